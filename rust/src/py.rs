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

// --- issue 5: secret redaction (see redact.rs) ---

/// Large texts are redacted without the GIL, as `strip_reminders` does.
const DETACH_BYTES: usize = 64 * 1024;

/// `text` with every secret the built-in rules find replaced by `[REDACTED:label]`.
#[pyfunction]
fn redact(py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<String> {
    let t = as_text(text)?;
    Ok(if t.len() > DETACH_BYTES {
        py.detach(|| crate::redact::redact(&t))
    } else {
        crate::redact::redact(&t)
    })
}

/// Every accepted match as `(start, end, label)` in character offsets, unmerged.
#[pyfunction]
fn secret_spans(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
) -> PyResult<Vec<(usize, usize, String)>> {
    let t = as_text(text)?;
    let spans = if t.len() > DETACH_BYTES {
        py.detach(|| crate::redact::secret_spans(&t))
    } else {
        crate::redact::secret_spans(&t)
    };
    let table = crate::redact::rules();
    let mut offsets: Vec<usize> = spans.iter().flat_map(|s| [s.start, s.end]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut chars = Vec::with_capacity(offsets.len());
    let (mut byte, mut count) = (0usize, 0usize);
    for &target in &offsets {
        count += t[byte..target].chars().count();
        byte = target;
        chars.push(count);
    }
    let at = |b: usize| chars[offsets.binary_search(&b).unwrap_or(0)];
    Ok(spans
        .iter()
        .map(|s| (at(s.start), at(s.end), table[s.rule].label.clone()))
        .collect())
}

// --- end issue 5 ---

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    m.add_function(wrap_pyfunction!(strip_reminders, m)?)?;
    // issue 5: secret redaction
    m.add_function(wrap_pyfunction!(redact, m)?)?;
    m.add_function(wrap_pyfunction!(secret_spans, m)?)?;
    Ok(())
}
