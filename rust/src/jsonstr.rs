//! JSON string literals decoded as Python's `json` plus the twin's `scrub` would.
//!
//! Escaped UTF-16 code units are paired where they form a surrogate pair;
//! each lone surrogate (half an emoji, cut by a JavaScript writer) becomes
//! U+FFFD, since Rust strings, like SQLite's UTF-8, cannot hold it.

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
    let b = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut units: Vec<u16> = Vec::new();
    let mut i = 0;
    let mut plain = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        flush_units(&mut units, &mut out);
        out.push_str(&inner[plain..i]);
        let esc = b.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        match esc {
            b'u' => {
                units.push(hex4(&b[i..]));
                i += 4;
                plain = i;
                // Consecutive \u escapes are decoded together so pairs join.
                while b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
                    units.push(hex4(&b[i + 2..]));
                    i += 6;
                    plain = i;
                }
                flush_units(&mut units, &mut out);
                continue;
            }
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            other => out.push(other as char),
        }
        plain = i;
    }
    out.push_str(&inner[plain..]);
    Cow::Owned(out)
}

fn hex4(b: &[u8]) -> u16 {
    b.iter().take(4).fold(0u16, |acc, &c| {
        let d = (c as char).to_digit(16).unwrap_or(0) as u16;
        (acc << 4) | d
    })
}

fn flush_units(units: &mut Vec<u16>, out: &mut String) {
    if units.is_empty() {
        return;
    }
    out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{FFFD}')));
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
}
