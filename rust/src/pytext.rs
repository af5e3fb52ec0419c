//! Python's string predicates, so both cores trim, lower and match alike.

/// Python's `str.isspace()` set: Unicode White_Space plus the four ASCII
/// information separators, so both cores trim the same characters.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `str.lstrip()`.
pub fn lstrip(s: &str) -> &str {
    s.trim_start_matches(is_py_space)
}

/// `s.strip().lower().startswith(p)` for ASCII-lowercase prefixes `p`,
/// with Unicode lowering (the Kelvin sign lowers to `k`, as in Python).
pub fn lower_starts_with_any(s: &str, prefixes: &[&str]) -> bool {
    let s = strip(s);
    let longest = prefixes.iter().map(|p| p.len()).max().unwrap_or(0);
    let head = &s.as_bytes()[..s.len().min(longest)];
    if head.is_ascii() {
        // The common case: ASCII lowers byte for byte.
        return prefixes
            .iter()
            .any(|p| head.len() >= p.len() && head[..p.len()].eq_ignore_ascii_case(p.as_bytes()));
    }
    let mut lowered = String::new();
    for c in s.chars() {
        if lowered.len() >= longest {
            break;
        }
        lowered.extend(c.to_lowercase());
    }
    prefixes.iter().any(|p| lowered.starts_with(p))
}

/// `s.strip()` as an owned string, or None when nothing is left (the twin's `_str`).
pub fn nonblank(s: &str) -> Option<String> {
    let t = strip(s);
    (!t.is_empty()).then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_python_whitespace() {
        assert_eq!(strip("\u{1c} a \u{3000}"), "a");
        assert_eq!(lstrip("  a "), "a ");
    }

    #[test]
    fn lowering_prefix_match() {
        assert!(lower_starts_with_any("  <S\u{212A}ILL> x", &["<skill>"]));
        assert!(!lower_starts_with_any("<skil", &["<skill>"]));
    }
}
