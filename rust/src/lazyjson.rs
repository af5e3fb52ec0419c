//! Lazy JSON: objects as borrowed `(key, raw value)` lists, decoded only where read.
//!
//! A transcript line is validated once, in full, by [`crate::jsonscan`], but
//! only the members a [`Spec`] names are split out; every other member stays
//! borrowed raw text until an adapter asks for it, so tool results (most of
//! the bytes) are never unescaped or allocated. Semantics follow Python's
//! `json`/`msgspec` as the twin sees them: duplicate keys keep the last value,
//! lone surrogate escapes become U+FFFD, numbers are only read where a field
//! needs one.

use crate::jsonscan::{Broken, Lit, Scanner};
use crate::jsonstr::{key_bytes, unescape};
use std::borrow::Cow;

/// A JSON value: checked raw text classified by its first byte, or a part of
/// a tree already split out during the line's single pass (see [`Spec`]).
#[derive(Clone, Copy, Debug)]
pub enum Val<'a> {
    Null,
    Bool(bool),
    /// Number text, e.g. `-1.5e3`, `NaN` or `-Infinity`.
    Num(&'a str),
    /// String text including its quotes, still escaped.
    Str(&'a str),
    Arr(&'a str),
    Obj(&'a str),
    Tree(&'a Obj<'a>),
    List(&'a [Item<'a>]),
}

impl<'a> Val<'a> {
    /// Classify checked JSON text (leading/trailing whitespace allowed).
    pub fn from_text(text: &'a str) -> Val<'a> {
        let t = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
        match t.as_bytes().first() {
            Some(b'"') => Val::Str(t),
            Some(b'{') => Val::Obj(t),
            Some(b'[') => Val::Arr(t),
            Some(b't') => Val::Bool(true),
            Some(b'f') => Val::Bool(false),
            Some(b'n') | None => Val::Null,
            _ => Val::Num(t),
        }
    }

    /// The decoded string, or None when the value is not a string.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        match *self {
            Val::Str(t) => Some(unescape(t)),
            _ => None,
        }
    }

    pub fn as_obj(&self) -> Option<ObjRef<'a>> {
        match *self {
            Val::Obj(t) => Obj::parse(t).map(ObjRef::Owned),
            Val::Tree(o) => Some(ObjRef::Borrowed(o)),
            _ => None,
        }
    }

    pub fn as_arr(&self) -> Option<Vec<Val<'a>>> {
        match *self {
            Val::Arr(t) => {
                let mut out = Vec::new();
                Scanner::new(t)
                    .array(|s| s.value().map(|v| out.push(Val::from_text(v))))
                    .ok()?;
                Some(out)
            }
            Val::List(items) => Some(items.iter().map(Item::val).collect()),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Val::Null)
    }

    pub fn is_obj(&self) -> bool {
        matches!(self, Val::Obj(_) | Val::Tree(_))
    }

    pub fn is_arr(&self) -> bool {
        matches!(self, Val::Arr(_) | Val::List(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Val::Str(_))
    }

    /// Python truthiness of the decoded value.
    pub fn truthy(&self) -> bool {
        match *self {
            Val::Null => false,
            Val::Bool(b) => b,
            // NaN and the infinities parse too; a number too long for f64 is huge.
            Val::Num(t) => t.parse::<f64>().map(|f| f != 0.0).unwrap_or(true),
            Val::Str(t) => t.len() > 2,
            Val::Arr(t) | Val::Obj(t) => t[1..t.len() - 1]
                .bytes()
                .any(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')),
            Val::Tree(o) => !o.members.is_empty(),
            Val::List(items) => !items.is_empty(),
        }
    }

    /// Whether the value equals the string `s` (Python `value == s`).
    pub fn is_str(&self, s: &str) -> bool {
        match *self {
            Val::Str(t) => {
                let inner = &t[1..t.len() - 1];
                if inner.contains('\\') {
                    unescape(t) == s
                } else {
                    inner == s
                }
            }
            _ => false,
        }
    }
}

/// An object reached through a value: split out during the line's pass, or parsed now.
pub enum ObjRef<'a> {
    Owned(Obj<'a>),
    Borrowed(&'a Obj<'a>),
}

impl<'a> std::ops::Deref for ObjRef<'a> {
    type Target = Obj<'a>;
    fn deref(&self) -> &Obj<'a> {
        match self {
            ObjRef::Owned(o) => o,
            ObjRef::Borrowed(o) => o,
        }
    }
}

/// Which members to split out in the same pass as the line, by key, at each
/// level; every other member stays raw. Arrays pass their spec to elements.
pub struct Spec {
    pub keys: &'static [(&'static str, &'static Spec)],
}

/// Split out nothing below: objects keep raw members.
pub static LEAF: Spec = Spec { keys: &[] };

/// A member's value: checked raw text, or split out because a [`Spec`] asked for it.
#[derive(Debug)]
pub enum Item<'a> {
    Raw(&'a str),
    Obj(Obj<'a>),
    Arr(Vec<Item<'a>>),
}

impl<'a> Item<'a> {
    pub fn val(&self) -> Val<'_> {
        match self {
            Item::Raw(t) => Val::from_text(t),
            Item::Obj(o) => Val::Tree(o),
            Item::Arr(a) => Val::List(a),
        }
    }
}

/// A JSON object's members in order, keys decoded (WTF-8 bytes).
#[derive(Debug, Default)]
pub struct Obj<'a> {
    members: Vec<(Cow<'a, [u8]>, Item<'a>)>,
}

impl<'a> Obj<'a> {
    /// Split checked object text into raw members; None if it is not an object.
    pub fn parse(text: &'a str) -> Option<Obj<'a>> {
        Obj::parse_spec(text, &LEAF)
    }

    /// Check `text` and split it in one pass, descending where `spec` says;
    /// None if it is not JSON the twin reads or not an object.
    pub fn parse_spec(text: &'a str, spec: &'static Spec) -> Option<Obj<'a>> {
        parse_line(text, spec).ok().flatten()
    }

    fn item(&self, key: &[u8]) -> Option<&Item<'a>> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// The last value stored under `key` (Python `dict.get`).
    pub fn get(&self, key: &str) -> Option<Val<'_>> {
        self.item(key.as_bytes()).map(Item::val)
    }

    /// `obj.get(key)` with absent read as null.
    pub fn val(&self, key: &str) -> Val<'_> {
        self.get(key).unwrap_or(Val::Null)
    }

    pub fn has(&self, key: &str) -> bool {
        self.item(key.as_bytes()).is_some()
    }

    /// `text_of(obj.get(key))`: the string, or "" when absent or not a string.
    pub fn text(&self, key: &str) -> Cow<'_, str> {
        self.val(key).as_str().unwrap_or(Cow::Borrowed(""))
    }

    /// `obj.get(key) is True`.
    pub fn is_true(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Val::Bool(true)))
    }

    /// Distinct keys in first-seen order, each with its last value (dict iteration).
    pub fn values(&self) -> Vec<Val<'_>> {
        let mut seen: Vec<&[u8]> = Vec::new();
        let mut out = Vec::new();
        for (k, _) in &self.members {
            if !seen.contains(&k.as_ref()) {
                seen.push(k.as_ref());
                out.extend(self.item(k).map(Item::val));
            }
        }
        out
    }
}

/// Check a whole JSON text: `Some` object split by `spec`, `None` for any
/// other valid value, `Broken` for anything the twin would not read.
pub fn parse_line<'a>(text: &'a str, spec: &'static Spec) -> Result<Option<Obj<'a>>, Broken> {
    let mut s = Scanner::new(text);
    let obj = if s.peek() == Some(b'{') {
        Some(split_obj(&mut s, spec)?)
    } else {
        s.value()?;
        None
    };
    s.finish()?;
    Ok(obj)
}

fn split_obj<'a>(s: &mut Scanner<'a>, spec: &'static Spec) -> Result<Obj<'a>, Broken> {
    let mut members = Vec::with_capacity(16); // a transcript line has ~10-20 keys
    s.object(|s, key: Lit<'a>| {
        let key = key_bytes(key);
        let sub = spec.keys.iter().find(|(k, _)| k.as_bytes() == key.as_ref());
        let value = match sub {
            Some((_, sub)) => split(s, sub)?,
            None => Item::Raw(s.value()?),
        };
        members.push((key, value));
        Ok(())
    })?;
    Ok(Obj { members })
}

/// A value under a spec'd key: containers are split (arrays pass the spec on).
fn split<'a>(s: &mut Scanner<'a>, spec: &'static Spec) -> Result<Item<'a>, Broken> {
    match s.peek() {
        Some(b'{') => split_obj(s, spec).map(Item::Obj),
        Some(b'[') => {
            let mut items = Vec::new();
            s.array(|s| split(s, spec).map(|item| items.push(item)))?;
            Ok(Item::Arr(items))
        }
        _ => s.value().map(Item::Raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_duplicate_key_wins() {
        let o = Obj::parse(r#"{"a":1,"b":"x","a":"two"}"#).unwrap();
        assert_eq!(o.text("a"), "two");
        assert_eq!(o.values().len(), 2);
    }

    #[test]
    fn escaped_keys_match() {
        let o = Obj::parse(r#"{"\u0074ype":"user","k\ud800":1}"#).unwrap();
        assert!(o.val("type").is_str("user"));
    }

    #[test]
    fn truthiness_follows_python() {
        for (t, want) in [
            ("0", false),
            ("-0.0", false),
            ("1e-400", false),
            ("2", true),
            ("\"\"", false),
            ("\"a\"", true),
            ("[ ]", false),
            ("{\"a\":1}", true),
            ("null", false),
        ] {
            assert_eq!(Val::from_text(t).truthy(), want, "{t}");
        }
    }
}
