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

// --- transcript parsing (issue 3, part A) ------------------------------------

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
    Ok((parts, parsed.offset, state, skipped)
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
// --- end transcript parsing ---------------------------------------------------

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    m.add_function(wrap_pyfunction!(strip_reminders, m)?)?;
    m.add_function(wrap_pyfunction!(parse_transcript, m)?)?; // transcript parsing
    Ok(())
}
