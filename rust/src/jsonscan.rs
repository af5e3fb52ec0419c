//! A validating JSON scanner with the grammar the twin accepts, in one pass.
//!
//! The twin reads a line with msgspec, falling back to Python's `json`; what
//! either accepts is what this accepts: RFC 8259 JSON plus `NaN`, `Infinity`
//! and `-Infinity`, any `\uXXXX` escape (lone surrogates included), and no
//! container nested deeper than [`MAX_DEPTH`]. The scanner only moves over
//! the text and checks it; [`crate::lazyjson`] decides what to keep, so the
//! values an adapter never reads (tool results, most of the bytes) are checked
//! and passed over without being decoded or copied.

/// Containers nested deeper than this make a record unreadable (both cores).
pub const MAX_DEPTH: usize = 256;

/// The text is not JSON the twin would read.
#[derive(Debug, PartialEq, Eq)]
pub struct Broken;

/// A string literal as it appears in the text, quotes included.
#[derive(Clone, Copy, Debug)]
pub struct Lit<'a> {
    pub text: &'a str,
    /// Whether it holds a backslash escape (else its inner text is its value).
    pub escaped: bool,
}

impl<'a> Lit<'a> {
    /// The text between the quotes, still escaped.
    pub fn inner(&self) -> &'a str {
        &self.text[1..self.text.len() - 1]
    }
}

/// A cursor over validated UTF-8 text.
pub struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Scanner<'a> {
        Scanner {
            text,
            pos: 0,
            depth: 0,
        }
    }

    /// The next byte after any whitespace, not consumed.
    pub fn peek(&mut self) -> Option<u8> {
        let b = self.text.as_bytes();
        while let Some(&c) = b.get(self.pos) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(c);
            }
            self.pos += 1;
        }
        None
    }

    /// Only whitespace may follow the value.
    pub fn finish(&mut self) -> Result<(), Broken> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Broken),
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), Broken> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Broken)
        }
    }

    /// One value of any kind, checked and passed over; its text.
    pub fn value(&mut self) -> Result<&'a str, Broken> {
        let start = match self.peek() {
            Some(_) => self.pos,
            None => return Err(Broken),
        };
        match self.text.as_bytes()[start] {
            b'"' => {
                self.string()?;
            }
            b'{' => self.object(|s, _| s.value().map(drop))?,
            b'[' => self.array(|s| s.value().map(drop))?,
            b't' => self.word("true")?,
            b'f' => self.word("false")?,
            b'n' => self.word("null")?,
            b'N' => self.word("NaN")?,
            b'I' => self.word("Infinity")?,
            b'-' | b'0'..=b'9' => self.number()?,
            _ => return Err(Broken),
        }
        Ok(&self.text[start..self.pos])
    }

    /// An object, handing each key to `member`, which must take one value.
    pub fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, Lit<'a>) -> Result<(), Broken>,
    ) -> Result<(), Broken> {
        self.open(b'{')?;
        if self.peek() == Some(b'}') {
            return self.close();
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(Broken);
            }
            let key = self.string()?;
            self.eat(b':')?;
            member(self, key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => return self.close(),
                _ => return Err(Broken),
            }
        }
    }

    /// An array, calling `element` for each, which must take one value.
    pub fn array(
        &mut self,
        mut element: impl FnMut(&mut Self) -> Result<(), Broken>,
    ) -> Result<(), Broken> {
        self.open(b'[')?;
        if self.peek() == Some(b']') {
            return self.close();
        }
        loop {
            element(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => return self.close(),
                _ => return Err(Broken),
            }
        }
    }

    fn open(&mut self, c: u8) -> Result<(), Broken> {
        self.eat(c)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Broken);
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), Broken> {
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    /// A string literal: escapes must be JSON's, control characters escaped.
    pub fn string(&mut self) -> Result<Lit<'a>, Broken> {
        let b = self.text.as_bytes();
        let start = self.pos;
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            i += to_special(&b[i..]);
            match b.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Lit {
                        text: &self.text[start..i + 1],
                        escaped,
                    });
                }
                Some(b'\\') => {
                    escaped = true;
                    i += match b.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                        Some(b'u') if hex4(b.get(i + 2..i + 6)) => 6,
                        _ => return Err(Broken),
                    };
                }
                _ => return Err(Broken), // a raw control character, or the end
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, or `-Infinity`.
    fn number(&mut self) -> Result<(), Broken> {
        let b = self.text.as_bytes();
        let mut i = self.pos;
        if b[i] == b'-' {
            i += 1;
            if b[i..].starts_with(b"Infinity") {
                self.pos = i + 8;
                return Ok(());
            }
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(b, i + 1),
            _ => return Err(Broken),
        }
        if b.get(i) == Some(&b'.') {
            i = at_least_one_digit(b, i + 1)?;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            i = at_least_one_digit(b, i)?;
        }
        self.pos = i;
        Ok(())
    }

    fn word(&mut self, w: &str) -> Result<(), Broken> {
        if self.text.as_bytes()[self.pos..].starts_with(w.as_bytes()) {
            self.pos += w.len();
            Ok(())
        } else {
            Err(Broken)
        }
    }
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

fn at_least_one_digit(b: &[u8], i: usize) -> Result<usize, Broken> {
    let end = digits(b, i);
    if end > i {
        Ok(end)
    } else {
        Err(Broken)
    }
}

fn hex4(h: Option<&[u8]>) -> bool {
    h.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
}

/// Index of the first `"`, `\` or control character (< 0x20) in `b`, or its length.
///
/// Most strings are short (keys, ids), so the first 16 bytes are tested a
/// word at a time; a longer run is found with memchr and checked for control
/// characters in a loop the compiler vectorises.
fn to_special(b: &[u8]) -> usize {
    let head = b.len().min(16) & !7;
    for at in (0..head).step_by(8) {
        let flags = special_flags(&b[at..at + 8]);
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
    }
    let rest = &b[head..];
    let end = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
    if !has_control(&rest[..end]) {
        return head + end;
    }
    let ctl = rest.iter().position(|&c| c < 0x20).unwrap_or(end);
    head + ctl
}

/// Flags (0x80 in each byte) where an 8-byte word holds `"`, `\` or a control
/// character: a byte of `w ^ c` is zero where `w` holds `c`, and
/// `(x - 0x01..) & !x & 0x80..` flags zero bytes. A borrow can flag a byte
/// above a true match, never below one, so the lowest flag is exact.
fn special_flags(word: &[u8]) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
    let quote = w ^ (ONES * u64::from(b'"'));
    let slash = w ^ (ONES * u64::from(b'\\'));
    let flags = (quote.wrapping_sub(ONES) & !quote)
        | (slash.wrapping_sub(ONES) & !slash)
        | (w.wrapping_sub(ONES * 0x20) & !w);
    flags & HIGH
}

fn has_control(b: &[u8]) -> bool {
    b.chunks(64)
        .any(|c| c.iter().fold(false, |any, &x| any | (x < 0x20)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> bool {
        let mut s = Scanner::new(text);
        s.value().is_ok() && s.finish().is_ok()
    }

    #[test]
    fn accepts_what_python_json_reads() {
        for t in [
            "{}",
            " [ ] ",
            "\t{\"a\" : [1, -0, 0.5, 1e5, 2E-3, 3e+0, -1.25e10]}\r\n",
            "{\"a\":NaN,\"b\":Infinity,\"c\":-Infinity}",
            "[true,false,null]",
            "\"\\ud800 lone\\udc00 \\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"",
            "\"é — ✓ 😀\"",
            "123456789012345678901234567890",
            "{\"a\":1,\"a\":2}",
        ] {
            assert!(ok(t), "{t}");
        }
    }

    #[test]
    fn refuses_what_it_does_not() {
        for t in [
            "",
            "   ",
            "{",
            "{\"a\":1,}",
            "[1,]",
            "[,1]",
            "{\"a\" 1}",
            "{a:1}",
            "{'a':1}",
            "01",
            "[01]",
            "1.",
            ".5",
            "1e",
            "1e+",
            "-",
            "+1",
            "-NaN",
            "nan",
            "infinity",
            "[1NaN]",
            "tru",
            "nul",
            "\"tab\there\"",
            "\"\\x41\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"open",
            "{} {}",
            "{}\u{b}",
            "{}\u{c}",
            "\u{feff}{}",
            "\u{a0}{}",
        ] {
            assert!(!ok(t), "{t:?}");
        }
    }

    #[test]
    fn depth_is_limited_outside_strings() {
        let at = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(ok(&at(MAX_DEPTH)));
        assert!(!ok(&at(MAX_DEPTH + 1)));
        assert!(ok(&format!("\"{}\"", "[".repeat(5000))));
        // Depth is released on the way out: siblings may each go deep.
        assert!(ok(&format!(
            "[{},{}]",
            at(MAX_DEPTH - 1),
            at(MAX_DEPTH - 1)
        )));
    }

    #[test]
    fn special_bytes_are_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..=len {
                for c in [b'"', b'\\', 0x00, 0x1f] {
                    let mut v = vec![b'a'; len];
                    if at < len {
                        v[at] = c;
                    }
                    v.extend_from_slice(&[0x20, 0x7f, 0x80, 0xff]);
                    let want = if at < len { at } else { v.len() };
                    assert_eq!(to_special(&v), want, "len {len} at {at} byte {c}");
                }
            }
        }
    }

    #[test]
    fn literal_reports_escapes() {
        let mut s = Scanner::new(r#""plain" "a\nb""#);
        let a = s.string().unwrap();
        assert_eq!(
            (a.text, a.escaped, a.inner()),
            ("\"plain\"", false, "plain")
        );
        s.peek();
        let b = s.string().unwrap();
        assert_eq!((b.inner(), b.escaped), (r"a\nb", true));
    }
}
