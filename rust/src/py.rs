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

// --- Ranking: tokenize, BM25, dedup (see `tokenize.rs`, `bm25.rs`, `dedup.rs`) ---

/// Inputs larger than this (in UTF-8 bytes) are processed with the GIL released.
const RANK_DETACH_BYTES: usize = 64 * 1024;

impl From<crate::Bm25Error> for PyErr {
    fn from(e: crate::Bm25Error) -> Self {
        pyo3::exceptions::PyValueError::new_err(e.to_string())
    }
}

impl From<crate::ThresholdError> for PyErr {
    fn from(e: crate::ThresholdError) -> Self {
        pyo3::exceptions::PyValueError::new_err(e.to_string())
    }
}

/// Every item of a list of `str` as Rust text, by [`as_text`].
fn as_texts<'a>(items: &'a [Bound<'_, PyString>]) -> PyResult<Vec<Cow<'a, str>>> {
    items.iter().map(as_text).collect()
}

fn total_len(texts: &[Cow<'_, str>]) -> usize {
    texts.iter().map(|t| t.len()).sum()
}

/// Lowercase and split into words (see `tokenize.rs`).
#[pyfunction]
fn tokenize(py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
    let t = as_text(text)?;
    Ok(if t.len() > RANK_DETACH_BYTES {
        py.detach(|| crate::tokenize(&t))
    } else {
        crate::tokenize(&t)
    })
}

/// BM25 of each doc against the query, the docs being the collection (see `bm25.rs`).
#[pyfunction]
// Literal defaults (= bm25::K1, bm25::B) so the text signature shows them.
#[pyo3(signature = (query, docs, k1 = 1.2, b = 0.75))]
fn bm25_scores(
    py: Python<'_>,
    query: &Bound<'_, PyString>,
    docs: Vec<Bound<'_, PyString>>,
    k1: f64,
    b: f64,
) -> PyResult<Vec<f64>> {
    let query = as_text(query)?;
    let docs = as_texts(&docs)?;
    let run = || crate::bm25_scores(&query, &docs, k1, b);
    Ok(if query.len() + total_len(&docs) > RANK_DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    }?)
}

/// Indices of the texts that are not near-duplicates of an earlier kept one (see `dedup.rs`).
#[pyfunction]
// Literal default (= dedup::THRESHOLD) so the text signature shows it.
#[pyo3(signature = (texts, threshold = 0.8))]
fn dedup(py: Python<'_>, texts: Vec<Bound<'_, PyString>>, threshold: f64) -> PyResult<Vec<usize>> {
    let texts = as_texts(&texts)?;
    let run = || crate::dedup(&texts, threshold);
    Ok(if total_len(&texts) > RANK_DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    }?)
}

// --- end ranking ---

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    m.add_function(wrap_pyfunction!(strip_reminders, m)?)?;
    // Ranking.
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(bm25_scores, m)?)?;
    m.add_function(wrap_pyfunction!(dedup, m)?)?;
    Ok(())
}
