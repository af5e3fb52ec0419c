//! JSONL framing: one object a line, and what counts as broken (twin: `recall/jsonlines.py`, shared).
//!
//! Mirrors `recall.jsonlines.iter_json_lines` / `decode_json`: invalid UTF-8
//! anywhere in a line is "invalid UTF-8"; otherwise anything neither msgspec
//! nor Python's `json` reads, or nested deeper than [`MAX_DEPTH`], is "broken
//! JSON" (the grammar is [`crate::jsonscan`]'s). A final line without a
//! newline is consumed only if complete; a half-written one is left, uncounted.
//!
//! The line loop every line-based parser shares is here too: [`LineRun`] (a
//! record at a time, then the session parts) driven by [`parse_lines`], and
//! [`record_type`], a record's `type` or the skip it counts.

use crate::lazyjson::{parse_line, Obj, Spec};
use crate::records::{
    set_once, state_meta, Parsed, State, SKIP_BAD_SHAPE, SKIP_BAD_UTF8, SKIP_BROKEN,
    SKIP_NOT_OBJECT, SKIP_UNKNOWN,
};
use serde_json::{Map, Value};
use std::borrow::Cow;

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

/// One parse of a line-based transcript: a record at a time, then the session
/// parts. Codex, Gemini, Copilot, Qwen, Pi and OpenClaw parse this way
/// ([`parse_lines`]); what they carry between parses is their [`State`].
pub trait LineRun: Sized {
    /// The state carried to the next parse of the file.
    fn state(&mut self) -> &mut State;
    /// Read one object line, at `off` in the file.
    fn record(&mut self, off: usize, obj: &Obj<'_>, parsed: &mut Parsed);
    /// Turn what was read into session parts, and hand the state on.
    fn finish(self, parsed: &mut Parsed);

    /// The state's `meta` object ([`state_meta`]).
    fn meta(&mut self) -> &mut Map<String, Value> {
        state_meta(self.state())
    }

    /// Set `key` in the state unless it holds a truthy value ([`set_once`]).
    fn once(&mut self, key: &str, value: Option<String>) {
        set_once(self.state(), key, value)
    }
}

/// The line loop: every object line of `data` (the file from byte `base` on)
/// through `run.record`, then `run.finish`.
pub fn parse_lines(mut run: impl LineRun, data: &[u8], base: usize, spec: &'static Spec) -> Parsed {
    let mut parsed = Parsed::default();
    for_each_object(data, base, spec, &mut parsed, |off, obj, parsed| {
        run.record(off, obj, parsed)
    });
    run.finish(&mut parsed);
    parsed
}

/// A record's `type` string; None, with the skip counted, when it has none (an
/// unknown record) or one that is not a string (a bad shape).
pub fn record_type<'o>(obj: &'o Obj<'_>, parsed: &mut Parsed) -> Option<Cow<'o, str>> {
    let kind = obj.val("type").as_str();
    if kind.is_none() {
        parsed.skip(if obj.has("type") {
            SKIP_BAD_SHAPE
        } else {
            SKIP_UNKNOWN
        });
    }
    kind
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
