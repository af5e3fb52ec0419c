//! JSON string literals decoded as Python's `json` plus the twin's `scrub` would.
//!
//! Escaped UTF-16 code units are paired where they form a surrogate pair;
//! each lone surrogate (half an emoji, cut by a JavaScript writer) becomes
//! U+FFFD, since Rust strings, like SQLite's UTF-8, cannot hold it.

use crate::jsonscan::Lit;
use std::borrow::Cow;

/// Decode a JSON string literal (with quotes). Escapes of UTF-16 code units are
/// paired where they form a surrogate pair; each lone surrogate becomes U+FFFD,
/// as Python's `scrub` makes of what `json.loads` returns.
pub fn unescape(lit: &str) -> Cow<'_, str> {
    let Some(inner) = lit.get(1..lit.len().saturating_sub(1)) else {
        return Cow::Borrowed("");
    };
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    let mut out = Vec::with_capacity(inner.len());
    decode(inner, &mut out, |_, out| {
        out.extend_from_slice("\u{FFFD}".as_bytes());
    });
    // Only whole UTF-8 sequences and replacement characters were written, so
    // this checks without copying; the lossy branch is never taken.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// An object key as Python's `dict` tells keys apart: decoded, with each lone
/// surrogate kept as its own three bytes (WTF-8), so `"k\ud800"` and
/// `"k\ud801"` stay two keys.
pub fn key_bytes(key: Lit<'_>) -> Cow<'_, [u8]> {
    if !key.escaped {
        return Cow::Borrowed(key.inner().as_bytes());
    }
    let mut out = Vec::with_capacity(key.inner().len());
    decode(key.inner(), &mut out, |unit, out| {
        out.extend_from_slice(&[
            0xE0 | (unit >> 12) as u8,
            0x80 | ((unit >> 6) & 0x3F) as u8,
            0x80 | (unit & 0x3F) as u8,
        ]);
    });
    Cow::Owned(out)
}

/// Decode the inside of a checked string literal into `out`, handing each
/// lone surrogate to `lone`.
fn decode(inner: &str, out: &mut Vec<u8>, lone: impl Fn(u16, &mut Vec<u8>)) {
    let b = inner.as_bytes();
    let mut units: Vec<u16> = Vec::new();
    let mut i = 0;
    let mut plain = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        out.extend_from_slice(&b[plain..i]);
        let esc = b.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        let c = match esc {
            b'u' => {
                units.push(hex4(&b[i..]));
                i += 4;
                // Consecutive \u escapes are decoded together so pairs join.
                while b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
                    units.push(hex4(&b[i + 2..]));
                    i += 6;
                }
                for r in char::decode_utf16(units.drain(..)) {
                    match r {
                        Ok(c) => push_char(out, c),
                        Err(e) => lone(e.unpaired_surrogate(), out),
                    }
                }
                plain = i;
                continue;
            }
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            other => other as char,
        };
        push_char(out, c);
        plain = i;
    }
    out.extend_from_slice(&b[plain..]);
}

fn push_char(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

fn hex4(b: &[u8]) -> u16 {
    b.iter().take(4).fold(0u16, |acc, &c| {
        let d = (c as char).to_digit(16).unwrap_or(0) as u16;
        (acc << 4) | d
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_lone_surrogates() {
        assert_eq!(unescape(r#""a\nb\u00e9""#), "a\nb\u{e9}");
        assert_eq!(unescape(r#""\ud83d\ude00""#), "\u{1F600}");
        assert_eq!(unescape(r#""x\ud83d""#), "x\u{FFFD}");
        assert_eq!(unescape(r#""\ude00\ud83d\n""#), "\u{FFFD}\u{FFFD}\n");
        assert_eq!(unescape(r#""\"\\\/\b\f\t""#), "\"\\/\u{8}\u{c}\t");
        assert_eq!(unescape(r#""plain""#), "plain");
    }

    fn key(text: &str) -> Vec<u8> {
        let lit = crate::jsonscan::Scanner::new(text).string().unwrap();
        key_bytes(lit).into_owned()
    }

    #[test]
    fn keys_keep_lone_surrogates_apart() {
        assert_eq!(key(r#""\u0074ype""#), b"type");
        assert_eq!(key(r#""plain""#), b"plain");
        assert_ne!(key(r#""k\ud800""#), key(r#""k\ud801""#));
        assert_eq!(key(r#""k\ud800""#), b"k\xed\xa0\x80");
        assert_eq!(key(r#""\ud83d\ude00""#), "\u{1F600}".as_bytes());
    }
}
