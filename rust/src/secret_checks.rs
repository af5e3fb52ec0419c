//! What a matched secret must also be: its entropy, and the tests that tell a value from code (twin: `recall/_twin/redact.py`).
//!
//! The rule table names which of these checks each rule applies.

use std::collections::BTreeMap;

/// Shannon entropy in bits per character, summed in code-point order (as the twin does).
pub fn entropy(text: &str) -> f64 {
    let mut counts: BTreeMap<char, u32> = BTreeMap::new();
    let mut n = 0u32;
    for c in text.chars() {
        *counts.entry(c).or_insert(0) += 1;
        n += 1;
    }
    let mut h = 0.0f64;
    for &count in counts.values() {
        let p = f64::from(count) / f64::from(n);
        h -= p * p.log2();
    }
    h
}

const PLACEHOLDER_PREFIXES: [&str; 7] = ["$", "<", "{", "[", "%(", "%s", "#{"];
const PLACEHOLDER_CHARS: &str = "*xX.-_#•";
const PLACEHOLDER_WORDS: [&str; 10] = [
    "your",
    "example",
    "placeholder",
    "redacted",
    "xxxx",
    "****",
    "...",
    "changeme",
    "replace_me",
    "replace-me",
];
const PLACEHOLDER_EXACT: [&str; 21] = [
    "password",
    "passwd",
    "pass",
    "secret",
    "token",
    "bearer",
    "basic",
    "digest",
    "negotiate",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "string",
    "required",
    "hidden",
    "empty",
    "unset",
    "default",
];

/// `$VAR`, `<your key>`, `****`, `"password"`: text standing in for a secret.
pub fn is_placeholder(value: &str) -> bool {
    if PLACEHOLDER_PREFIXES.iter().any(|p| value.starts_with(p))
        || value.chars().all(|c| PLACEHOLDER_CHARS.contains(c))
    {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    PLACEHOLDER_EXACT.contains(&lower.as_str())
        || PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
}

fn is_ident(part: &str) -> bool {
    let mut chars = part.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `a.b.c` (optionally ending in `!` or `?`): a reference in code, not a value.
fn is_code_path(value: &str) -> bool {
    let parts: Vec<&str> = value.trim_end_matches(['!', '?']).split('.').collect();
    parts.len() >= 2 && parts.iter().all(|p| is_ident(p))
}

/// An assignment's value that could be a secret rather than code, a number or a path.
pub fn looks_like_value(value: &str) -> bool {
    if value.chars().count() < 6 || is_placeholder(value) {
        return false;
    }
    if value.chars().all(|c| "0123456789.,:_ +-".contains(c)) || value.contains("://") {
        return false;
    }
    let mut rest = value.chars().skip(1);
    if ["/", "~", "./", "../"].iter().any(|p| value.starts_with(p))
        || (rest.next() == Some(':') && rest.next() == Some('\\'))
    {
        return false;
    }
    if is_code_path(value) {
        return false;
    }
    if value
        .chars()
        .all(|c| c.is_ascii_alphabetic() || "_.-".contains(c))
    {
        return value.chars().count() >= 20 && !value.contains('_') && !value.contains('.');
    }
    true
}

/// A canonical 8-4-4-4-12 hex UUID.
pub fn is_uuid(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_known_strings() {
        assert_eq!(entropy(""), 0.0);
        assert_eq!(entropy("aaaa"), 0.0);
        assert_eq!(entropy("abcdefgh"), 3.0);
    }

    #[test]
    fn uuids_placeholders_and_values() {
        assert!(is_uuid("550e8400-e29b-41d4-a716-446655440000"));
        assert!(!is_uuid("550e8400-e29b-41d4-a716-44665544000g"));
        assert!(is_placeholder("${DB_PASSWORD}") && is_placeholder("<your-key>"));
        assert!(is_placeholder("****") && is_placeholder("Password"));
        assert!(!is_placeholder("hunter2!x"));
        assert!(looks_like_value("hunter2!x"));
        for code in [
            "self.password",
            "4096",
            "/etc/key.pem",
            "getenv",
            "https://x",
        ] {
            assert!(!looks_like_value(code), "{code}");
        }
        assert!(looks_like_value("correct-horse-battery-staple"));
    }
}
