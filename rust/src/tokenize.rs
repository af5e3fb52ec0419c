//! The word tokenizer shared by BM25 and dedup, driven by its own tables (twin: `recall/_twin/rank.py`).
//!
//! Contract (shared with `python/recall/_twin/rank.py` and documented in
//! `_core.pyi`): the text is first lowercased char by char through [`LOWER`],
//! then split: a char in [`SEPARATORS`] ends the current word, a char in
//! [`CJK`] is a word on its own (Chinese, Japanese and Korean text has no
//! spaces, so each ideograph, kana or hangul char is a token), and any other
//! char extends the current word. No Unicode property of Rust or of Python is
//! consulted, so the two cores split alike whatever Unicode version each was
//! built with; an exhaustive test over every code point checks it.

/// Inclusive code point ranges that separate words: ASCII other than
/// `[0-9A-Za-z_]`, every whitespace char (`reminders::is_py_space`), C1
/// controls, and the punctuation, symbol, emoji, zero-width and variation
/// selector blocks listed. Sorted, disjoint.
#[rustfmt::skip]
pub const SEPARATORS: &[(u32, u32)] = &[
    (0x0000, 0x002F), (0x003A, 0x0040), (0x005B, 0x005E), (0x0060, 0x0060), (0x007B, 0x00A9),
    (0x00AB, 0x00B1), (0x00B4, 0x00B4), (0x00B6, 0x00B8), (0x00BB, 0x00BB), (0x00BF, 0x00BF),
    (0x00D7, 0x00D7), (0x00F7, 0x00F7), (0x037E, 0x037E), (0x0387, 0x0387), (0x055A, 0x055F),
    (0x0589, 0x058A), (0x05BE, 0x05BE), (0x05C0, 0x05C0), (0x05C3, 0x05C3), (0x05C6, 0x05C6),
    (0x05F3, 0x05F4), (0x0609, 0x060D), (0x061B, 0x061F), (0x066A, 0x066D), (0x06D4, 0x06D4),
    (0x0964, 0x0965), (0x0E4F, 0x0E4F), (0x0E5A, 0x0E5B), (0x104A, 0x104F), (0x10FB, 0x10FB),
    (0x1360, 0x1368), (0x166D, 0x166E), (0x1680, 0x1680), (0x1800, 0x180A), (0x2000, 0x206F),
    (0x20A0, 0x20CF), (0x2190, 0x245F), (0x2500, 0x2BFF), (0x2E00, 0x2E7F), (0x3000, 0x3004),
    (0x3008, 0x3020), (0x3030, 0x3030), (0x303D, 0x303F), (0x30A0, 0x30A0), (0x30FB, 0x30FB),
    (0xFD3E, 0xFD3F), (0xFE00, 0xFE1F), (0xFE30, 0xFE6F), (0xFEFF, 0xFEFF), (0xFF01, 0xFF0F),
    (0xFF1A, 0xFF20), (0xFF3B, 0xFF3E), (0xFF40, 0xFF40), (0xFF5B, 0xFF65), (0xFFE0, 0xFFFF),
    (0x1F000, 0x1FBFF), (0xE0000, 0xE007F), (0xE0100, 0xE01EF),
];

/// Inclusive ranges of chars that are each a word of their own: Hangul jamo
/// and syllables, CJK radicals, ideographs and their extensions, kana, the
/// ideographic iteration marks, enclosed CJK and halfwidth kana. Sorted,
/// disjoint from [`SEPARATORS`].
#[rustfmt::skip]
pub const CJK: &[(u32, u32)] = &[
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035),
    (0x3038, 0x303C), (0x3041, 0x309F), (0x30A1, 0x30FA), (0x30FC, 0x30FF), (0x3105, 0x4DBF),
    (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFFDC),
    (0x1AFF0, 0x1B16F), (0x20000, 0x3FFFF),
];

/// Lowercasing: `(first, last, delta, step)` maps `first`, `first + step`, …
/// `last` to itself plus `delta`. It is Unicode 14.0's simple lowercase
/// mapping (UnicodeData.txt), one char to one char with no final-sigma rule,
/// with U+0130 İ mapped to `i`. Letters cased only in later versions are left
/// as they are, so a newer Rust or Python changes nothing.
#[rustfmt::skip]
pub const LOWER: &[(u32, u32, i32, u32)] = &[
    (0x0041, 0x005A, 32, 1), (0x00C0, 0x00D6, 32, 1), (0x00D8, 0x00DE, 32, 1),
    (0x0100, 0x012E, 1, 2), (0x0130, 0x0130, -199, 1), (0x0132, 0x0136, 1, 2),
    (0x0139, 0x0147, 1, 2), (0x014A, 0x0176, 1, 2), (0x0178, 0x0178, -121, 1),
    (0x0179, 0x017D, 1, 2), (0x0181, 0x0181, 210, 1), (0x0182, 0x0184, 1, 2),
    (0x0186, 0x0186, 206, 1), (0x0187, 0x0187, 1, 1), (0x0189, 0x018A, 205, 1),
    (0x018B, 0x018B, 1, 1), (0x018E, 0x018E, 79, 1), (0x018F, 0x018F, 202, 1),
    (0x0190, 0x0190, 203, 1), (0x0191, 0x0191, 1, 1), (0x0193, 0x0193, 205, 1),
    (0x0194, 0x0194, 207, 1), (0x0196, 0x0196, 211, 1), (0x0197, 0x0197, 209, 1),
    (0x0198, 0x0198, 1, 1), (0x019C, 0x019C, 211, 1), (0x019D, 0x019D, 213, 1),
    (0x019F, 0x019F, 214, 1), (0x01A0, 0x01A4, 1, 2), (0x01A6, 0x01A6, 218, 1),
    (0x01A7, 0x01A7, 1, 1), (0x01A9, 0x01A9, 218, 1), (0x01AC, 0x01AC, 1, 1),
    (0x01AE, 0x01AE, 218, 1), (0x01AF, 0x01AF, 1, 1), (0x01B1, 0x01B2, 217, 1),
    (0x01B3, 0x01B5, 1, 2), (0x01B7, 0x01B7, 219, 1), (0x01B8, 0x01B8, 1, 1),
    (0x01BC, 0x01BC, 1, 1), (0x01C4, 0x01C4, 2, 1), (0x01C5, 0x01C5, 1, 1),
    (0x01C7, 0x01C7, 2, 1), (0x01C8, 0x01C8, 1, 1), (0x01CA, 0x01CA, 2, 1),
    (0x01CB, 0x01DB, 1, 2), (0x01DE, 0x01EE, 1, 2), (0x01F1, 0x01F1, 2, 1),
    (0x01F2, 0x01F4, 1, 2), (0x01F6, 0x01F6, -97, 1), (0x01F7, 0x01F7, -56, 1),
    (0x01F8, 0x021E, 1, 2), (0x0220, 0x0220, -130, 1), (0x0222, 0x0232, 1, 2),
    (0x023A, 0x023A, 10795, 1), (0x023B, 0x023B, 1, 1), (0x023D, 0x023D, -163, 1),
    (0x023E, 0x023E, 10792, 1), (0x0241, 0x0241, 1, 1), (0x0243, 0x0243, -195, 1),
    (0x0244, 0x0244, 69, 1), (0x0245, 0x0245, 71, 1), (0x0246, 0x024E, 1, 2),
    (0x0370, 0x0372, 1, 2), (0x0376, 0x0376, 1, 1), (0x037F, 0x037F, 116, 1),
    (0x0386, 0x0386, 38, 1), (0x0388, 0x038A, 37, 1), (0x038C, 0x038C, 64, 1),
    (0x038E, 0x038F, 63, 1), (0x0391, 0x03A1, 32, 1), (0x03A3, 0x03AB, 32, 1),
    (0x03CF, 0x03CF, 8, 1), (0x03D8, 0x03EE, 1, 2), (0x03F4, 0x03F4, -60, 1),
    (0x03F7, 0x03F7, 1, 1), (0x03F9, 0x03F9, -7, 1), (0x03FA, 0x03FA, 1, 1),
    (0x03FD, 0x03FF, -130, 1), (0x0400, 0x040F, 80, 1), (0x0410, 0x042F, 32, 1),
    (0x0460, 0x0480, 1, 2), (0x048A, 0x04BE, 1, 2), (0x04C0, 0x04C0, 15, 1),
    (0x04C1, 0x04CD, 1, 2), (0x04D0, 0x052E, 1, 2), (0x0531, 0x0556, 48, 1),
    (0x10A0, 0x10C5, 7264, 1), (0x10C7, 0x10C7, 7264, 1), (0x10CD, 0x10CD, 7264, 1),
    (0x13A0, 0x13EF, 38864, 1), (0x13F0, 0x13F5, 8, 1), (0x1C90, 0x1CBA, -3008, 1),
    (0x1CBD, 0x1CBF, -3008, 1), (0x1E00, 0x1E94, 1, 2), (0x1E9E, 0x1E9E, -7615, 1),
    (0x1EA0, 0x1EFE, 1, 2), (0x1F08, 0x1F0F, -8, 1), (0x1F18, 0x1F1D, -8, 1),
    (0x1F28, 0x1F2F, -8, 1), (0x1F38, 0x1F3F, -8, 1), (0x1F48, 0x1F4D, -8, 1),
    (0x1F59, 0x1F5F, -8, 2), (0x1F68, 0x1F6F, -8, 1), (0x1F88, 0x1F8F, -8, 1),
    (0x1F98, 0x1F9F, -8, 1), (0x1FA8, 0x1FAF, -8, 1), (0x1FB8, 0x1FB9, -8, 1),
    (0x1FBA, 0x1FBB, -74, 1), (0x1FBC, 0x1FBC, -9, 1), (0x1FC8, 0x1FCB, -86, 1),
    (0x1FCC, 0x1FCC, -9, 1), (0x1FD8, 0x1FD9, -8, 1), (0x1FDA, 0x1FDB, -100, 1),
    (0x1FE8, 0x1FE9, -8, 1), (0x1FEA, 0x1FEB, -112, 1), (0x1FEC, 0x1FEC, -7, 1),
    (0x1FF8, 0x1FF9, -128, 1), (0x1FFA, 0x1FFB, -126, 1), (0x1FFC, 0x1FFC, -9, 1),
    (0x2126, 0x2126, -7517, 1), (0x212A, 0x212A, -8383, 1), (0x212B, 0x212B, -8262, 1),
    (0x2132, 0x2132, 28, 1), (0x2160, 0x216F, 16, 1), (0x2183, 0x2183, 1, 1),
    (0x24B6, 0x24CF, 26, 1), (0x2C00, 0x2C2F, 48, 1), (0x2C60, 0x2C60, 1, 1),
    (0x2C62, 0x2C62, -10743, 1), (0x2C63, 0x2C63, -3814, 1), (0x2C64, 0x2C64, -10727, 1),
    (0x2C67, 0x2C6B, 1, 2), (0x2C6D, 0x2C6D, -10780, 1), (0x2C6E, 0x2C6E, -10749, 1),
    (0x2C6F, 0x2C6F, -10783, 1), (0x2C70, 0x2C70, -10782, 1), (0x2C72, 0x2C72, 1, 1),
    (0x2C75, 0x2C75, 1, 1), (0x2C7E, 0x2C7F, -10815, 1), (0x2C80, 0x2CE2, 1, 2),
    (0x2CEB, 0x2CED, 1, 2), (0x2CF2, 0x2CF2, 1, 1), (0xA640, 0xA66C, 1, 2),
    (0xA680, 0xA69A, 1, 2), (0xA722, 0xA72E, 1, 2), (0xA732, 0xA76E, 1, 2),
    (0xA779, 0xA77B, 1, 2), (0xA77D, 0xA77D, -35332, 1), (0xA77E, 0xA786, 1, 2),
    (0xA78B, 0xA78B, 1, 1), (0xA78D, 0xA78D, -42280, 1), (0xA790, 0xA792, 1, 2),
    (0xA796, 0xA7A8, 1, 2), (0xA7AA, 0xA7AA, -42308, 1), (0xA7AB, 0xA7AB, -42319, 1),
    (0xA7AC, 0xA7AC, -42315, 1), (0xA7AD, 0xA7AD, -42305, 1), (0xA7AE, 0xA7AE, -42308, 1),
    (0xA7B0, 0xA7B0, -42258, 1), (0xA7B1, 0xA7B1, -42282, 1), (0xA7B2, 0xA7B2, -42261, 1),
    (0xA7B3, 0xA7B3, 928, 1), (0xA7B4, 0xA7C2, 1, 2), (0xA7C4, 0xA7C4, -48, 1),
    (0xA7C5, 0xA7C5, -42307, 1), (0xA7C6, 0xA7C6, -35384, 1), (0xA7C7, 0xA7C9, 1, 2),
    (0xA7D0, 0xA7D0, 1, 1), (0xA7D6, 0xA7D8, 1, 2), (0xA7F5, 0xA7F5, 1, 1),
    (0xFF21, 0xFF3A, 32, 1), (0x10400, 0x10427, 40, 1), (0x104B0, 0x104D3, 40, 1),
    (0x10570, 0x1057A, 39, 1), (0x1057C, 0x1058A, 39, 1), (0x1058C, 0x10592, 39, 1),
    (0x10594, 0x10595, 39, 1), (0x10C80, 0x10CB2, 64, 1), (0x118A0, 0x118BF, 32, 1),
    (0x16E40, 0x16E5F, 32, 1), (0x1E900, 0x1E921, 34, 1),
];

/// How the splitter treats one (already lowercased) char.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Ends the current word and is dropped.
    Separator,
    /// A word on its own.
    Cjk,
    /// Extends the current word.
    Word,
}

fn in_ranges(table: &[(u32, u32)], u: u32) -> bool {
    let i = table.partition_point(|&(first, _)| first <= u);
    i > 0 && u <= table[i - 1].1
}

/// The class of `c` by [`SEPARATORS`] and [`CJK`].
pub fn class(c: char) -> Class {
    if c.is_ascii() {
        // Same as the table's ASCII rows, without the search.
        return if c.is_ascii_alphanumeric() || c == '_' {
            Class::Word
        } else {
            Class::Separator
        };
    }
    let u = u32::from(c);
    if in_ranges(SEPARATORS, u) {
        Class::Separator
    } else if in_ranges(CJK, u) {
        Class::Cjk
    } else {
        Class::Word
    }
}

/// `c` lowercased by [`LOWER`].
pub fn lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let u = u32::from(c);
    let i = LOWER.partition_point(|&(first, ..)| first <= u);
    if i > 0 {
        let (first, last, delta, step) = LOWER[i - 1];
        if u <= last && (u - first) % step == 0 {
            return char::from_u32(u.wrapping_add_signed(delta)).unwrap_or(c);
        }
    }
    c
}

/// Write `text` lowercased by [`LOWER`] into `out`, replacing its contents.
pub fn lowercase_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().map(lower));
    }
}

/// `text` lowercased by [`LOWER`].
pub fn lowercase(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    lowercase_into(text, &mut out);
    out
}

/// The words of text that is already lowercased, as slices of it.
pub fn words(lowered: &str) -> Words<'_> {
    Words { rest: lowered }
}

/// Iterator returned by [`words`].
#[derive(Clone, Debug)]
pub struct Words<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest;
        let mut start = None;
        for (i, c) in rest.char_indices() {
            match (class(c), start) {
                (Class::Word, None) => start = Some(i),
                (Class::Word, Some(_)) | (Class::Separator, None) => {}
                (_, Some(s)) => {
                    self.rest = &rest[i..];
                    return Some(&rest[s..i]);
                }
                (Class::Cjk, None) => {
                    let end = i + c.len_utf8();
                    self.rest = &rest[end..];
                    return Some(&rest[i..end]);
                }
            }
        }
        self.rest = "";
        start.map(|s| &rest[s..])
    }
}

/// Lowercase `text` and split it into words (see the module docs).
pub fn tokenize(text: &str) -> Vec<String> {
    words(&lowercase(text)).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pytext::is_py_space;

    fn toks(text: &str) -> Vec<String> {
        tokenize(text)
    }

    #[test]
    fn splits_ascii_on_punctuation() {
        assert_eq!(
            toks("Fix PAY-1234: --no-verify in src/main.rs, foo_bar=42!"),
            ["fix", "pay", "1234", "no", "verify", "in", "src", "main", "rs", "foo_bar", "42"]
        );
    }

    #[test]
    fn cjk_chars_are_words_of_their_own() {
        assert_eq!(
            toks("日本語のtest、한국"),
            ["日", "本", "語", "の", "test", "한", "국"]
        );
    }

    #[test]
    fn lowercases_without_context() {
        // Final sigma stays σ, İ becomes a plain i, the Kelvin sign a k.
        assert_eq!(
            toks("ΟΔΟΣ İstanbul \u{212A}elvin ＡＢ"),
            ["οδοσ", "istanbul", "kelvin", "ａｂ"]
        );
    }

    #[test]
    fn marks_stay_in_words_and_symbols_split() {
        assert_eq!(
            toks("nai\u{308}ve deploy🚀now a\u{AD}b x\u{200D}y \u{FFFD}z"),
            ["nai\u{308}ve", "deploy", "now", "a", "b", "x", "y", "z"]
        );
    }

    #[test]
    fn empty_and_separator_only_text_has_no_words() {
        assert!(toks("").is_empty());
        assert!(toks(" \t\u{3000}。…🙂").is_empty());
    }

    #[test]
    fn ascii_fast_paths_match_the_tables() {
        for b in 0u8..128 {
            let c = char::from(b);
            let u = u32::from(c);
            let by_table = if in_ranges(SEPARATORS, u) {
                Class::Separator
            } else {
                Class::Word
            };
            assert_eq!(class(c), by_table, "{u:#x}");
            let mapped = LOWER
                .iter()
                .find(|&&(f, l, _, s)| (f..=l).contains(&u) && (u - f) % s == 0)
                .map_or(u, |&(_, _, d, _)| u.wrapping_add_signed(d));
            assert_eq!(u32::from(lower(c)), mapped, "{u:#x}");
        }
    }

    #[test]
    fn tables_are_sorted_and_disjoint() {
        for t in [SEPARATORS, CJK] {
            assert!(t.iter().all(|&(a, b)| a <= b));
            assert!(t.windows(2).all(|w| w[0].1 < w[1].0));
        }
        assert!(LOWER.iter().all(|&(a, b, _, s)| a <= b && s > 0));
        assert!(LOWER.windows(2).all(|w| w[0].1 < w[1].0));
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let u = u32::from(c);
            assert!(!(in_ranges(SEPARATORS, u) && in_ranges(CJK, u)), "{u:#x}");
        }
    }

    #[test]
    fn every_python_space_separates() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if is_py_space(c) {
                assert_eq!(class(c), Class::Separator, "{:#x}", u32::from(c));
            }
        }
    }

    #[test]
    fn lowercasing_keeps_the_class_and_agrees_with_std() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let l = lower(c);
            assert_eq!(class(c), class(l), "{:#x}", u32::from(c));
            if l != c && c != '\u{130}' {
                // Every table entry is also Rust's own (newer) mapping.
                assert!(c.to_lowercase().eq([l]), "{:#x}", u32::from(c));
            }
        }
    }

    #[test]
    fn words_of_lowered_text_are_slices() {
        let low = lowercase("A,B日c");
        assert_eq!(words(&low).collect::<Vec<_>>(), ["a", "b", "日", "c"]);
    }
}
