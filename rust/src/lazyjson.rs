//! Lazy JSON: objects as borrowed `(key, raw value)` lists, decoded only where read.
//!
//! A transcript line is validated once, in full, by serde_json, but only its
//! top-level members are split out; each member stays a borrowed `&RawValue`
//! until an adapter asks for it, so tool results (most of the bytes) are never
//! unescaped or allocated. Semantics follow Python's `json`/`msgspec` as the
//! twin sees them: duplicate keys keep the last value, lone surrogate escapes
//! become U+FFFD, numbers are only read where a field needs one.

use crate::jsonstr::unescape;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A JSON value: raw text classified by its first byte, or a part of a
/// tree already split out during the line's single pass (see [`Spec`]).
#[derive(Clone, Copy, Debug)]
pub enum Val<'a> {
    Null,
    Bool(bool),
    /// Number text, e.g. `-1.5e3`.
    Num(&'a str),
    /// String text including its quotes, still escaped.
    Str(&'a str),
    Arr(&'a str),
    Obj(&'a str),
    /// A string serde_json already decoded.
    Text(&'a str),
    /// A number serde_json already read (only its truthiness is used).
    Number(f64),
    Tree(&'a Obj<'a>),
    List(&'a [Item<'a>]),
}

impl<'a> Val<'a> {
    pub fn of(raw: &'a RawValue) -> Val<'a> {
        Val::from_text(raw.get())
    }

    /// Classify validated JSON text (leading/trailing whitespace allowed).
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
            Val::Text(t) => Some(Cow::Borrowed(t)),
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
            Val::Arr(t) => serde_json::from_str::<Vec<&'a RawValue>>(t)
                .ok()
                .map(|v| v.into_iter().map(Val::of).collect()),
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
        matches!(self, Val::Str(_) | Val::Text(_))
    }

    /// Python truthiness of the decoded value.
    pub fn truthy(&self) -> bool {
        match *self {
            Val::Null => false,
            Val::Bool(b) => b,
            Val::Num(t) => t.parse::<f64>().map(|f| f != 0.0).unwrap_or(true),
            Val::Number(f) => f != 0.0,
            Val::Str(t) => t.len() > 2,
            Val::Text(t) => !t.is_empty(),
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
            Val::Text(t) => t == s,
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

/// A member's value: raw text, or split out because a [`Spec`] asked for it.
#[derive(Debug)]
pub enum Item<'a> {
    Raw(&'a RawValue),
    Obj(Obj<'a>),
    Arr(Vec<Item<'a>>),
    Text(Cow<'a, str>),
    Number(f64),
    Bool(bool),
    Null,
}

impl<'a> Item<'a> {
    pub fn val(&self) -> Val<'_> {
        match self {
            Item::Raw(r) => Val::of(r),
            Item::Obj(o) => Val::Tree(o),
            Item::Arr(a) => Val::List(a),
            Item::Text(t) => Val::Text(t),
            Item::Number(f) => Val::Number(*f),
            Item::Bool(b) => Val::Bool(*b),
            Item::Null => Val::Null,
        }
    }
}

/// A JSON object's members in order, keys decoded (WTF-8 bytes).
#[derive(Debug, Default)]
pub struct Obj<'a> {
    members: Vec<(Cow<'a, [u8]>, Item<'a>)>,
}

impl<'a> Obj<'a> {
    /// Split validated object text into raw members; None if it is not an object.
    pub fn parse(text: &'a str) -> Option<Obj<'a>> {
        Obj::parse_spec(text, &LEAF)
    }

    /// Validate `text` and split it in one pass, descending where `spec` says.
    ///
    /// Fails on anything serde_json refuses while decoding the split-out
    /// parts (a lone surrogate in such a string, an out-of-range number);
    /// callers then fall back to [`Obj::parse`], which decodes nothing.
    pub fn parse_spec(text: &'a str, spec: &'static Spec) -> Option<Obj<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let obj = ObjSeed(spec).deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(obj)
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

struct ObjSeed(&'static Spec);

impl<'de> DeserializeSeed<'de> for ObjSeed {
    type Value = Obj<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Obj<'de>, D::Error> {
        d.deserialize_map(ItemVisitor(self.0))
            .and_then(|item| match item {
                Item::Obj(o) => Ok(o),
                _ => Err(serde::de::Error::custom("not an object")),
            })
    }
}

struct ItemSeed(&'static Spec);

impl<'de> DeserializeSeed<'de> for ItemSeed {
    type Value = Item<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Item<'de>, D::Error> {
        d.deserialize_any(ItemVisitor(self.0))
    }
}

struct ItemVisitor(&'static Spec);

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Item<'de>, M::Error> {
        let mut members = Vec::with_capacity(16); // a transcript line has ~10-20 keys
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let sub = self
                .0
                .keys
                .iter()
                .find(|(k, _)| k.as_bytes() == key.as_ref());
            let value = match sub {
                Some((_, spec)) => map.next_value_seed(ItemSeed(spec))?,
                None => Item::Raw(map.next_value()?),
            };
            members.push((key, value));
        }
        Ok(Item::Obj(Obj { members }))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Item<'de>, S::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ItemSeed(self.0))? {
            items.push(item);
        }
        Ok(Item::Arr(items))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Item<'de>, E> {
        Ok(Item::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Item<'de>, E> {
        Ok(Item::Text(Cow::Owned(v.to_string())))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Item<'de>, E> {
        Ok(Item::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Item<'de>, E> {
        Ok(Item::Number(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Item<'de>, E> {
        Ok(Item::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Item<'de>, E> {
        Ok(Item::Number(v))
    }
    fn visit_unit<E>(self) -> Result<Item<'de>, E> {
        Ok(Item::Null)
    }
    fn visit_none<E>(self) -> Result<Item<'de>, E> {
        Ok(Item::Null)
    }
}

/// Keys are read as raw bytes: serde_json then decodes escapes without
/// rejecting lone surrogates, which Python accepts.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, [u8]>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_bytes(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, [u8]>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_vec()))
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
