//! JSONL framing: one object a line, with the twin's rules for what counts as broken.
//!
//! Mirrors `recall.agents.base.iter_json_lines` / `decode_json`: invalid UTF-8
//! anywhere in a line is "invalid UTF-8"; otherwise anything neither serde_json
//! nor Python's `json` (which also takes `NaN`/`Infinity`) accepts, or nested
//! deeper than [`MAX_DEPTH`], is "broken JSON". A final line without a newline
//! is consumed only if complete; a half-written one is left, uncounted.

use crate::lazyjson::{Obj, Spec};
use crate::records::{Parsed, SKIP_BAD_UTF8, SKIP_BROKEN, SKIP_NOT_OBJECT};
use serde::de::IgnoredAny;

/// Containers nested deeper than this make a record unreadable (both cores).
pub const MAX_DEPTH: usize = 256;

/// Why a JSON text could not become an object.
#[derive(Debug, PartialEq, Eq)]
pub enum Bad {
    Utf8,
    Broken,
    NotObject,
}

impl Bad {
    pub fn reason(&self) -> &'static str {
        match self {
            Bad::Utf8 => SKIP_BAD_UTF8,
            Bad::Broken => SKIP_BROKEN,
            Bad::NotObject => SKIP_NOT_OBJECT,
        }
    }
}

/// Python's `bytes.strip()` set.
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_ascii_space(b))
}

/// Decode `raw` as one JSON value and hand the object to `f`.
pub fn with_object<R>(
    raw: &[u8],
    spec: &'static Spec,
    f: impl FnOnce(&Obj<'_>) -> R,
) -> Result<R, Bad> {
    let text = std::str::from_utf8(raw).map_err(|_| Bad::Utf8)?;
    let fast = Obj::parse_spec(text, spec).or_else(|| Obj::parse(text));
    if let Some(obj) = fast {
        // The common case: one pass validates the line and splits out what
        // the adapter reads; payloads it skips are never decoded.
        if too_deep(text.as_bytes()) {
            return Err(Bad::Broken);
        }
        return Ok(f(&obj));
    }
    let owned;
    let text = if valid(text) {
        text
    } else {
        match python_specials(text) {
            Some(t) if valid(&t) => {
                owned = t;
                owned.as_str()
            }
            _ => return Err(Bad::Broken),
        }
    };
    if too_deep(text.as_bytes()) {
        return Err(Bad::Broken);
    }
    match Obj::parse(text) {
        Some(obj) => Ok(f(&obj)),
        None => Err(Bad::NotObject),
    }
}

fn valid(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserialize::deserialize(&mut de)
        .map(|_: IgnoredAny| ())
        .and_then(|_| de.end())
        .is_ok()
}

/// Python's `json` reads `NaN`, `Infinity` and `-Infinity`; serde_json does
/// not. They become an out-of-range number, which reads the same wherever a
/// field is used (truthy, no valid timestamp).
fn python_specials(text: &str) -> Option<String> {
    if !text.contains("NaN") && !text.contains("Infinity") {
        return None;
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let (mut i, mut last, mut in_str) = (0, 0, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            match c {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        let token = if b[i..].starts_with(b"NaN") {
            3
        } else if b[i..].starts_with(b"Infinity") {
            8
        } else {
            0
        };
        let before = |j: usize| {
            j == 0 || matches!(b[j - 1], b'[' | b',' | b':' | b' ' | b'\t' | b'\n' | b'\r')
        };
        let starts = before(i) || (token == 8 && b[i - 1] == b'-' && before(i - 1));
        let ends = matches!(
            b.get(i + token),
            None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
        );
        if token > 0 && starts && ends {
            out.push_str(&text[last..i]);
            out.push_str("1e999");
            i += token;
            last = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Whether containers nest deeper than [`MAX_DEPTH`] (brackets in strings ignored).
fn too_deep(b: &[u8]) -> bool {
    // Fewer brackets than the limit, in strings or not, cannot nest past it.
    if memchr::memchr2_iter(b'[', b'{', b).nth(MAX_DEPTH).is_none() {
        return false;
    }
    let (mut depth, mut in_str, mut i) = (0usize, false, 0);
    while i < b.len() {
        match (in_str, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') | (false, b'"') => in_str = !in_str,
            (false, b'[' | b'{') => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            (false, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// Call `f(file_offset, object)` for each object line of `data`; counts what it skips.
pub fn for_each_object(
    data: &[u8],
    base: usize,
    spec: &'static Spec,
    parsed: &mut Parsed,
    mut f: impl FnMut(usize, &Obj<'_>, &mut Parsed),
) {
    parsed.offset = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
    let mut pos = 0;
    while pos < data.len() {
        let (stop, complete) = match memchr::memchr(b'\n', &data[pos..]) {
            Some(i) => (pos + i, true),
            None => (data.len(), false),
        };
        let line = &data[pos..stop];
        let start = pos;
        pos = if complete { stop + 1 } else { data.len() };
        if is_blank(line) {
            continue;
        }
        let mut bad = None;
        let r = with_object(line, spec, |obj| f(base + start, obj, &mut *parsed));
        if let Err(e) = r {
            bad = Some(e);
        }
        match bad {
            Some(Bad::NotObject) => parsed.skip(SKIP_NOT_OBJECT),
            Some(e) if complete => parsed.skip(e.reason()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lazyjson::LEAF;

    fn with_object_leaf<R>(raw: &[u8], f: impl FnOnce(&Obj<'_>) -> R) -> Result<R, Bad> {
        with_object(raw, &LEAF, f)
    }

    fn skipped(data: &[u8]) -> (Vec<(&'static str, i64)>, usize, usize) {
        let mut p = Parsed::default();
        let mut n = 0;
        for_each_object(data, 0, &LEAF, &mut p, |_, _, _| n += 1);
        (p.skipped.clone(), p.offset, n)
    }

    #[test]
    fn counts_bad_lines_and_leaves_half_written_tail() {
        let (sk, off, n) = skipped(b"{\"a\":1}\nnot json\n\xff\n[1]\n{\"b\":");
        assert_eq!(n, 1);
        assert_eq!(off, 23);
        assert_eq!(
            sk,
            vec![(SKIP_BROKEN, 1), (SKIP_BAD_UTF8, 1), (SKIP_NOT_OBJECT, 1)]
        );
    }

    #[test]
    fn python_specials_are_accepted() {
        assert!(with_object_leaf(b"{\"a\":NaN,\"b\":-Infinity}", |_| ()).is_ok());
        assert_eq!(with_object_leaf(b"{\"a\":-NaN}", |_| ()), Err(Bad::Broken));
        assert_eq!(with_object_leaf(b"{\"a\":1NaN}", |_| ()), Err(Bad::Broken));
        assert_eq!(
            with_object_leaf(b"{\"a\":\"NaN\"}", |o| o.text("a").into_owned()),
            Ok("NaN".into())
        );
    }

    #[test]
    fn deep_nesting_is_broken() {
        let ok = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        let deep = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(with_object_leaf(ok.as_bytes(), |_| ()).is_ok());
        assert_eq!(with_object_leaf(deep.as_bytes(), |_| ()), Err(Bad::Broken));
        let in_string = format!("{{\"a\":\"{}\"}}", "[".repeat(5000));
        assert!(with_object_leaf(in_string.as_bytes(), |_| ()).is_ok());
    }
}
