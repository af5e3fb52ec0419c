//! One entry point for every agent: `parse_transcript(agent, origin, data, base, state)` (twin: `recall/_twin/transcript.py`).
//!
//! It picks the agent's parser and nothing else; the parsers depend on
//! [`crate::records`], never on this file. What only the file's path can tell
//! (its session id, sub-agent id, parent) arrives in [`Origin`], worked out
//! once in Python for both cores; anything needing the disk (Claude's
//! `.meta.json`, Gemini's project registry) stays in Python.

use crate::records::{Origin, Parsed, State};
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    #[error(
        "no transcript parser for agent {0:?} (known: antigravity, claude, codex, copilot, cursor, gemini, openclaw, pi, qwen)"
    )]
    UnknownAgent(String),
}

/// Parse `data`, the transcript's bytes from file offset `base` on, resuming from `state`.
///
/// Never fails on content: unreadable records are skipped and counted.
pub fn parse_transcript(
    agent: &str,
    origin: &Origin,
    data: &[u8],
    base: usize,
    state: &State,
) -> Result<Parsed, ParseError> {
    Ok(match agent {
        "claude" => crate::claude::parse(origin, data, base, state),
        "codex" => crate::codex::parse(origin, data, base, state),
        "gemini" if origin.document => crate::gemini::parse_document(origin, data),
        "gemini" => crate::gemini::parse(origin, data, base, state),
        "copilot" => crate::copilot::parse(origin, data, base, state),
        "cursor" => crate::cursor::parse(origin, data, base, state),
        "pi" => crate::pi::parse("pi", origin, data, base, state),
        "openclaw" => crate::pi::parse("openclaw", origin, data, base, state),
        "qwen" => crate::qwen::parse(origin, data, base, state),
        "antigravity" => crate::antigravity::parse(origin, data, base, state),
        other => return Err(ParseError::UnknownAgent(other.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(id: &str) -> Origin {
        Origin {
            file_id: id.into(),
            ..Origin::default()
        }
    }

    #[test]
    fn unknown_agent_is_an_error() {
        let err = parse_transcript("aider", &origin("x"), b"", 0, &State::new()).unwrap_err();
        assert_eq!(err, ParseError::UnknownAgent("aider".into()));
    }

    #[test]
    fn claude_turns_and_state() {
        let data = br#"{"type":"user","sessionId":"s1","uuid":"u1","cwd":"/p","message":{"role":"user","content":"<system-reminder>x</system-reminder> hello"}}
{"type":"assistant","sessionId":"s1","uuid":"a1","message":{"model":"m","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":" hi "}]}}
{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result","content":"big"}]}}
"#;
        let p = parse_transcript("claude", &origin("file"), data, 0, &State::new()).unwrap();
        assert_eq!(p.parts.len(), 1);
        let part = &p.parts[0];
        assert_eq!(part.info.session_id, "s1");
        assert_eq!(part.info.project.as_deref(), Some("/p"));
        let texts: Vec<&str> = part.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["hello", "hi"]);
        assert_eq!(p.offset, data.len());
        assert_eq!(p.state["sid"], "s1");
    }

    #[test]
    fn codex_drops_injected_and_repeats() {
        let data = br#"{"timestamp":"t0","type":"session_meta","payload":{"id":"c1","cwd":"/w"}}
{"timestamp":"t1","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}
{"timestamp":"t2","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}
{"timestamp":"t3","type":"event_msg","payload":{"type":"user_message","message":"fix it"}}
{"timestamp":"t4","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}
"#;
        let p = parse_transcript("codex", &origin("rollout"), data, 10, &State::new()).unwrap();
        let part = &p.parts[0];
        assert_eq!(part.info.session_id, "c1");
        let got: Vec<(&str, &str)> = part
            .messages
            .iter()
            .map(|m| (m.key.as_str(), m.text.as_str()))
            .collect();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, "fix it");
        assert!(got[0].0.starts_with("c1@"));
        assert_eq!(part.messages[1].timestamp.as_deref(), Some("t4"));
    }

    #[test]
    fn gemini_last_copy_wins_and_rewind() {
        let data = br#"{"sessionId":"g1","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}
{"id":"u1","type":"user","content":[{"text":"first"}]}
{"id":"m1","type":"gemini","content":"draft"}
{"id":"m1","type":"gemini","content":"final","timestamp":1741518000123}
{"id":"u2","type":"user","content":"second"}
{"$rewindTo":"u2"}
"#;
        let p = parse_transcript("gemini", &origin("session-x"), data, 0, &State::new()).unwrap();
        let part = &p.parts[0];
        let got: Vec<&str> = part.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(got, ["first", "final"]);
        assert_eq!(
            part.messages[1].timestamp.as_deref(),
            Some("2025-03-09T11:00:00.123000Z")
        );
        assert_eq!(
            part.info.started_at.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
    }
}
