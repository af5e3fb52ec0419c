//! JSONL framing: one object a line, and what counts as broken (twin: `recall/jsonlines.py`, shared).
//!
//! Mirrors `recall.jsonlines.iter_json_lines` / `decode_json`: invalid UTF-8
//! anywhere in a line is "invalid UTF-8"; otherwise anything neither msgspec
//! nor Python's `json` reads, or nested deeper than [`MAX_DEPTH`], is "broken
//! JSON" (the grammar is [`crate::jsonscan`]'s). A final line without a
//! newline is consumed only if complete; a half-written one is left, uncounted.

use crate::lazyjson::{parse_line, Obj, Spec};
use crate::records::{Parsed, SKIP_BAD_UTF8, SKIP_BROKEN, SKIP_NOT_OBJECT};

pub use crate::jsonscan::MAX_DEPTH;

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
///
/// One pass checks the whole line and splits out what `spec` names; the
/// payloads an adapter skips are checked but never decoded.
pub fn with_object<R>(
    raw: &[u8],
    spec: &'static Spec,
    f: impl FnOnce(&Obj<'_>) -> R,
) -> Result<R, Bad> {
    let text = std::str::from_utf8(raw).map_err(|_| Bad::Utf8)?;
    match parse_line(text, spec) {
        Ok(Some(obj)) => Ok(f(&obj)),
        Ok(None) => Err(Bad::NotObject),
        Err(_) => Err(Bad::Broken),
    }
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
