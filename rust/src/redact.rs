//! Secret redaction: the rule table shared with the twin (`recall/_twin/redact.py`), run with the `regex` crate.
//!
//! The rules live in `python/recall/redact_rules.txt` (embedded here at build
//! time, read by `recall/_twin/redact.py` at run time), so both cores run the same
//! patterns. Each rule whose keywords occur in the text runs over all of it;
//! a match whose secret (first capture group that took part, else the whole
//! match) passes the rule's checks becomes a span; spans are ordered by start,
//! earlier rules first, and overlapping spans merge so that every character
//! any rule matched is replaced by `[REDACTED:label]`.

use crate::secret_checks::{entropy, is_placeholder, is_uuid, looks_like_value};
use aho_corasick::AhoCorasick;
use regex::Regex;
use std::sync::OnceLock;

/// The built-in rule table.
pub const RULES_TEXT: &str = include_str!("../../python/recall/redact_rules.txt");

/// A rule table line that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("rule line {0:?} does not have 5 tab-separated fields")]
    Fields(String),
    #[error("unknown check {check:?} in rule {rule}")]
    Check { rule: String, check: String },
    #[error("rule {rule}: {source}")]
    Pattern { rule: String, source: regex::Error },
}

/// One line of the rule table; its regex is compiled on first use.
#[derive(Debug)]
pub struct Rule {
    pub id: String,
    pub label: String,
    pub keywords: Vec<String>,
    pub pattern: String,
    boundary: bool,
    mixed: bool,
    no_uuid: bool,
    placeholder: bool,
    value: bool,
    min_entropy: Option<f64>,
    regex: OnceLock<Regex>,
}

impl Rule {
    fn parse(line: &str) -> Result<Rule, RuleError> {
        let fields: Vec<&str> = line.split('\t').collect();
        let [id, label, checks, keywords, pattern] = fields[..] else {
            return Err(RuleError::Fields(line.to_string()));
        };
        let mut rule = Rule {
            id: id.to_string(),
            label: label.to_string(),
            keywords: if keywords == "-" {
                Vec::new()
            } else {
                keywords.split(',').map(str::to_string).collect()
            },
            pattern: pattern.to_string(),
            boundary: false,
            mixed: false,
            no_uuid: false,
            placeholder: false,
            value: false,
            min_entropy: None,
            regex: OnceLock::new(),
        };
        for check in checks.split_whitespace() {
            match check {
                "B" => rule.boundary = true,
                "M" => rule.mixed = true,
                "U" => rule.no_uuid = true,
                "P" => rule.placeholder = true,
                "V" => rule.value = true,
                "-" => {}
                _ => match check.strip_prefix('E').map(str::parse::<f64>) {
                    Some(Ok(min)) => rule.min_entropy = Some(min),
                    _ => {
                        return Err(RuleError::Check {
                            rule: rule.id,
                            check: check.to_string(),
                        })
                    }
                },
            }
        }
        Ok(rule)
    }

    /// The pattern as the `regex` crate must see it: `(?i:` folds ASCII only,
    /// as Python's `re.ASCII` does (Unicode folding would also match `K`, `ſ`).
    pub fn compile(&self) -> Result<Regex, RuleError> {
        Regex::new(&self.pattern.replace("(?i:", "(?i-u:")).map_err(|source| RuleError::Pattern {
            rule: self.id.clone(),
            source,
        })
    }

    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| {
            self.compile()
                .unwrap_or_else(|e| panic!("built-in redaction rule does not compile: {e}"))
        })
    }

    fn accepts(&self, text: &str, start: usize, end: usize) -> bool {
        let secret = &text[start..end];
        if self.boundary
            && (text[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric())
                || text[end..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric()))
        {
            return false;
        }
        if self.placeholder && is_placeholder(secret) {
            return false;
        }
        if self.value && !looks_like_value(secret) {
            return false;
        }
        if self.mixed
            && !(secret.chars().any(|c| c.is_ascii_digit())
                && secret.chars().any(|c| c.is_ascii_alphabetic()))
        {
            return false;
        }
        if self.no_uuid && is_uuid(secret) {
            return false;
        }
        self.min_entropy.is_none_or(|min| entropy(secret) >= min)
    }
}

/// Parse a rule table: one rule a line, `#` comments and blank lines skipped.
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, RuleError> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(Rule::parse)
        .collect()
}

/// The built-in rules, parsed once.
pub fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        parse_rules(RULES_TEXT).unwrap_or_else(|e| panic!("built-in redaction rules: {e}"))
    })
}

/// Every rule's keywords in one automaton, with the rule each keyword belongs to.
struct Keywords {
    automaton: AhoCorasick,
    owner: Vec<usize>,
}

fn keywords() -> &'static Keywords {
    static KEYWORDS: OnceLock<Keywords> = OnceLock::new();
    KEYWORDS.get_or_init(|| {
        let mut words = Vec::new();
        let mut owner = Vec::new();
        for (index, rule) in rules().iter().enumerate() {
            for word in &rule.keywords {
                words.push(word.as_str());
                owner.push(index);
            }
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .unwrap_or_else(|e| panic!("redaction keywords: {e}"));
        Keywords { automaton, owner }
    })
}

/// Which rules may match `text`: those without keywords, and those with one
/// present in it (ASCII case-insensitively, as the twin's lowercased search).
fn candidates(text: &str) -> Vec<bool> {
    let table = rules();
    let mut run: Vec<bool> = table.iter().map(|r| r.keywords.is_empty()).collect();
    let kw = keywords();
    let mut left = run.iter().filter(|&&r| !r).count();
    for m in kw.automaton.find_overlapping_iter(text) {
        let rule = kw.owner[m.pattern().as_usize()];
        if !run[rule] {
            run[rule] = true;
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }
    run
}

/// A secret found in a text: byte offsets and the index of the rule that found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub rule: usize,
}

/// Every accepted match of every built-in rule, ordered by start then rule, not merged.
pub fn secret_spans(text: &str) -> Vec<Span> {
    let run = candidates(text);
    let mut found = Vec::new();
    for (index, rule) in rules().iter().enumerate() {
        if !run[index] {
            continue;
        }
        let regex = rule.regex();
        if regex.captures_len() == 1 {
            for m in regex.find_iter(text) {
                if m.start() < m.end() && rule.accepts(text, m.start(), m.end()) {
                    found.push(Span {
                        start: m.start(),
                        end: m.end(),
                        rule: index,
                    });
                }
            }
            continue;
        }
        for caps in regex.captures_iter(text) {
            let Some(m) = caps.iter().skip(1).flatten().next().or_else(|| caps.get(0)) else {
                continue;
            };
            if m.start() < m.end() && rule.accepts(text, m.start(), m.end()) {
                found.push(Span {
                    start: m.start(),
                    end: m.end(),
                    rule: index,
                });
            }
        }
    }
    found.sort_by_key(|s| (s.start, s.rule));
    found
}

/// Overlapping spans become one, labelled by the first (input sorted by start).
pub fn merge(spans: &[Span]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for &span in spans {
        match out.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => out.push(span),
        }
    }
    out
}

/// `text` with every secret the built-in rules find replaced by `[REDACTED:label]`.
pub fn redact(text: &str) -> String {
    let spans = merge(&secret_spans(text));
    if spans.is_empty() {
        return text.to_string();
    }
    let table = rules();
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for span in spans {
        out.push_str(&text[pos..span.start]);
        out.push_str("[REDACTED:");
        out.push_str(&table[span.rule].label);
        out.push(']');
        pos = span.end;
    }
    out.push_str(&text[pos..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_rule_parses_and_compiles() {
        let table = parse_rules(RULES_TEXT).unwrap();
        assert!(table.len() >= 40);
        for rule in &table {
            rule.compile().unwrap();
            assert!(!rule.label.is_empty() && !rule.id.is_empty());
        }
    }

    #[test]
    fn provider_keys_are_replaced_with_their_label() {
        let gh = format!("ghp_{}", "aB3".repeat(12));
        assert_eq!(
            redact(&format!("token {gh} done")),
            "token [REDACTED:github-token] done"
        );
        assert_eq!(
            redact("AKIAIOSFODNN7EXAMPLE"),
            "[REDACTED:aws-access-key-id]"
        );
    }

    #[test]
    fn assignments_keep_the_key_name() {
        assert_eq!(
            redact("DB_PASSWORD=hunter2!x"),
            "DB_PASSWORD=[REDACTED:password]"
        );
        assert_eq!(
            redact("\"api_key\": \"q8Zr2-LmN0p\""),
            "\"api_key\": \"[REDACTED:secret]\""
        );
    }

    #[test]
    fn code_and_numbers_are_not_secrets() {
        for text in [
            "password = self.password",
            "max_tokens: 4096",
            "tokenizer=gpt2",
            "token: Optional[str] = None",
            "api_key=os.environ[\"OPENAI_API_KEY\"]",
            "Authorization: Bearer $TOKEN",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn private_key_block_goes_whole() {
        let text = "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\nNzaC1\n-----END OPENSSH PRIVATE KEY-----\nz";
        assert_eq!(redact(text), "a\n[REDACTED:private-key]\nz");
    }

    #[test]
    fn overlapping_spans_merge() {
        let spans = [
            Span {
                start: 0,
                end: 4,
                rule: 1,
            },
            Span {
                start: 2,
                end: 8,
                rule: 0,
            },
            Span {
                start: 9,
                end: 10,
                rule: 2,
            },
        ];
        assert_eq!(
            merge(&spans),
            vec![
                Span {
                    start: 0,
                    end: 8,
                    rule: 1
                },
                Span {
                    start: 9,
                    end: 10,
                    rule: 2
                }
            ]
        );
    }
}
