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

// --- secret redaction (see redact.rs) ---

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

// --- transcript parsing ---

use crate::records::{Parsed, SessionPart};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyTuple};
use serde_json::{Map, Number, Value};

/// A JSON-shaped Python value (the carried parser state) as a serde value.
fn value_from_py(o: &Bound<'_, PyAny>) -> PyResult<Value> {
    if o.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = o.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if o.is_instance_of::<PyInt>() {
        return Ok(match o.extract::<i64>() {
            Ok(i) => Value::from(i),
            Err(_) => Number::from_f64(o.extract::<f64>()?).map_or(Value::Null, Value::Number),
        });
    }
    if o.is_instance_of::<PyFloat>() {
        return Ok(Number::from_f64(o.extract::<f64>()?).map_or(Value::Null, Value::Number));
    }
    if let Ok(s) = o.cast::<PyString>() {
        return Ok(Value::String(as_text(s)?.into_owned()));
    }
    if let Ok(d) = o.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => as_text(s)?.into_owned(),
                Err(_) => k.str()?.to_string(),
            };
            m.insert(key, value_from_py(&v)?);
        }
        return Ok(Value::Object(m));
    }
    if o.is_instance_of::<PyList>() || o.is_instance_of::<PyTuple>() {
        return o.try_iter()?.map(|x| value_from_py(&x?)).collect();
    }
    Err(PyTypeError::new_err(format!(
        "parser state holds a {}, not JSON data",
        o.get_type().name()?
    )))
}

fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(0.0).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(value_to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let dict = PyDict::new(py);
            for (k, x) in m {
                dict.set_item(k, value_to_py(py, x)?)?;
            }
            dict.into_any()
        }
    })
}

fn part_to_py<'py>(py: Python<'py>, part: SessionPart) -> PyResult<Bound<'py, PyAny>> {
    let info = part.info;
    let metadata = PyDict::new(py);
    for (k, v) in &info.metadata {
        metadata.set_item(k, v)?;
    }
    let messages = PyList::empty(py);
    for m in part.messages {
        messages.append((m.key, m.role, m.text, m.timestamp))?;
    }
    let flat = (
        info.session_id,
        info.agent,
        info.project,
        info.title,
        info.title_rank,
        info.parent_session_id,
        info.started_at,
        metadata,
        messages,
        part.replace,
        part.rewinds,
    );
    Ok(flat.into_pyobject(py)?.into_any())
}

fn parsed_to_py<'py>(py: Python<'py>, parsed: Parsed) -> PyResult<Bound<'py, PyAny>> {
    let parts = PyList::empty(py);
    for part in parsed.parts {
        parts.append(part_to_py(py, part)?)?;
    }
    let state = value_to_py(py, &Value::Object(parsed.state))?;
    let skipped = parsed.skipped;
    Ok((parts, parsed.offset, state, skipped, parsed.summaries)
        .into_pyobject(py)?
        .into_any())
}

type OriginArg<'py> = (
    Bound<'py, PyString>,
    Option<Bound<'py, PyString>>,
    Option<Bound<'py, PyString>>,
    bool,
);

/// Parse transcript bytes for one agent (see `transcript.rs` and `_core.pyi`).
#[pyfunction]
fn parse_transcript<'py>(
    py: Python<'py>,
    agent: &str,
    data: &Bound<'py, PyBytes>,
    base: usize,
    state: &Bound<'py, PyDict>,
    origin: OriginArg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let opt = |s: &Option<Bound<'py, PyString>>| -> PyResult<Option<String>> {
        s.as_ref()
            .map(|s| as_text(s).map(Cow::into_owned))
            .transpose()
    };
    let origin = crate::Origin {
        file_id: as_text(&origin.0)?.into_owned(),
        agent_id: opt(&origin.1)?,
        parent: opt(&origin.2)?,
        document: origin.3,
    };
    let state = match value_from_py(state.as_any())? {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let bytes = data.as_bytes();
    let parsed = py
        .detach(|| crate::parse_transcript(agent, &origin, bytes, base, &state))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    parsed_to_py(py, parsed)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    m.add_function(wrap_pyfunction!(strip_reminders, m)?)?;
    // Ranking.
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(bm25_scores, m)?)?;
    m.add_function(wrap_pyfunction!(dedup, m)?)?;
    // secret redaction
    m.add_function(wrap_pyfunction!(redact, m)?)?;
    m.add_function(wrap_pyfunction!(secret_spans, m)?)?;
    m.add_function(wrap_pyfunction!(parse_transcript, m)?)?; // transcript parsing
    Ok(())
}
