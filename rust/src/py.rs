//! The only pyo3 file: exposes the pure-Rust API as `recall._core`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::borrow::Cow;

/// A Python `str` as Rust text. Lone surrogates (JSON escapes of an emoji cut
/// in half) cannot be UTF-8: each becomes U+FFFD, exactly as the twin does.
fn as_text<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    if let Ok(t) = s.to_str() {
        return Ok(Cow::Borrowed(t));
    }
    let raw = s.call_method1("encode", ("utf-16-le", "surrogatepass"))?;
    let bytes = raw.cast::<PyBytes>()?.as_bytes();
    let units = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    Ok(Cow::Owned(
        char::decode_utf16(units)
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    ))
}

/// Remove `<system-reminder>` spans and trim (see `reminders.rs`).
#[pyfunction]
fn strip_reminders(py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<String> {
    let t = as_text(text)?;
    Ok(if t.len() > 64 * 1024 {
        py.detach(|| crate::strip_reminders(&t))
    } else {
        crate::strip_reminders(&t)
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    m.add_function(wrap_pyfunction!(strip_reminders, m)?)?;
    Ok(())
}
