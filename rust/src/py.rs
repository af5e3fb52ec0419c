//! The only pyo3 file: exposes the pure-Rust API as `recall._core`.

use pyo3::prelude::*;

/// Remove `<system-reminder>` spans and trim (see `reminders.rs`).
#[pyfunction]
fn strip_reminders(py: Python<'_>, text: &str) -> String {
    if text.len() > 64 * 1024 {
        py.detach(|| crate::strip_reminders(text))
    } else {
        crate::strip_reminders(text)
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    m.add_function(wrap_pyfunction!(strip_reminders, m)?)?;
    Ok(())
}
