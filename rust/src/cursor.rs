//! Cursor agent transcripts (twin: `recall/_twin/cursor.py`): `{"role", "message": {"content"}}` lines.
//!
//! `content` is a string or a list of blocks; kept are `text` blocks (and an
//! unknown block's visible `text`), bare string blocks, and of a user's turn
//! only the words inside `<user_query>` when Cursor wrapped them so, without
//! injected reminders. Thinking, tool calls and results, images and files are
//! not conversation; roleless lines (`turn_ended`) are markers, passed over
//! without a count. Lines carry no time and the path names the session
//! ([`Origin`]): the adapter stamps the messages with the file's mtime and
//! resolves the workspace folder, which need the disk. A message's key is
//! `<session>@<byte offset>`.

use crate::jsonlines::for_each_object;
use crate::lazyjson::{Val, LEAF};
use crate::pytext::strip;
use crate::records::{Message, Origin, Parsed, SessionInfo, SessionPart, State, ASSISTANT, USER};
use crate::reminders::strip_reminders;

/// Block types whose content is never conversation.
const HIDDEN: [&str; 8] = [
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_call",
    "tool_result",
    "tool-result",
    "image",
    "file",
];

const QUERY_OPEN: &str = "<user_query>";
const QUERY_CLOSE: &str = "</user_query>";

/// The visible text of a message's content: a string, or its text-bearing blocks.
pub fn block_text(content: Val<'_>) -> String {
    if let Some(s) = content.as_str() {
        return strip(&s).to_string();
    }
    let mut texts: Vec<String> = Vec::new();
    for block in content.as_arr().unwrap_or_default() {
        if let Some(s) = block.as_str() {
            texts.push(s.into_owned());
        } else if let Some(obj) = block.as_obj() {
            let hidden = obj
                .val("type")
                .as_str()
                .is_some_and(|t| HIDDEN.contains(&t.as_ref()));
            if !hidden {
                texts.push(strip(&obj.text("text")).to_string());
            }
        }
    }
    let kept: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| !t.is_empty())
        .collect();
    strip(&kept.join("\n\n")).to_string()
}

/// What the user typed: inside `<user_query>` when Cursor wrapped it (every
/// such span, non-greedy), without the injected reminders.
pub fn user_words(text: &str) -> String {
    let mut found: Vec<&str> = Vec::new();
    let mut pos = 0;
    while let Some(i) = text[pos..].find(QUERY_OPEN) {
        let inner = pos + i + QUERY_OPEN.len();
        let Some(j) = text[inner..].find(QUERY_CLOSE) else {
            break;
        };
        found.push(strip(&text[inner..inner + j]));
        pos = inner + j + QUERY_CLOSE.len();
    }
    let inner = if found.is_empty() {
        text.to_string()
    } else {
        found.join("\n\n")
    };
    strip(&strip_reminders(&inner)).to_string()
}

/// Parse `data` (the file from byte `base` on); a transcript carries no state.
pub fn parse(origin: &Origin, data: &[u8], base: usize, _state: &State) -> Parsed {
    let mut parsed = Parsed::default();
    let sid = origin.file_id.clone();
    let mut messages = Vec::new();
    for_each_object(data, base, &LEAF, &mut parsed, |off, obj, _| {
        let role = match obj.val("role").as_str().as_deref().map(strip) {
            Some("user") => USER,
            Some("assistant") => ASSISTANT,
            _ => return, // turn_ended and other markers
        };
        let message = obj.val("message").as_obj();
        let content = match &message {
            Some(message) => message.val("content"),
            None => obj.val("content"),
        };
        let mut text = block_text(content);
        if role == USER {
            text = user_words(&text);
        }
        if !text.is_empty() {
            messages.push(Message {
                key: format!("{sid}@{off}"),
                role,
                text,
                timestamp: None,
            });
        }
    });
    parsed.parts.push(SessionPart {
        info: SessionInfo::new(sid.clone(), "cursor", origin.parent.clone()),
        messages,
        replace: false,
        rewinds: Vec::new(),
    });
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_kept_and_tools_go() {
        let data = br#"{"role":"user","message":{"content":[{"type":"text","text":"<user_info>x</user_info>\n<user_query>\n why? \n</user_query>"}]}}
{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"no"},{"type":"text","text":" because "},{"type":"tool_use","text":"no"}]}}
{"type":"turn_ended"}
{"role":"user","message":{"content":[{"type":"tool_result","content":"no"}]}}
"#;
        let origin = Origin {
            file_id: "s1".into(),
            parent: Some("p".into()),
            ..Origin::default()
        };
        let p = parse(&origin, data, 7, &State::new());
        let part = &p.parts[0];
        let got: Vec<(&str, &str)> = part
            .messages
            .iter()
            .map(|m| (m.key.as_str(), m.text.as_str()))
            .collect();
        assert_eq!(got, [("s1@7", "why?"), ("s1@134", "because")]);
        assert_eq!(part.info.parent_session_id.as_deref(), Some("p"));
        assert!(p.skipped.is_empty());
    }

    #[test]
    fn every_query_span_and_no_close() {
        assert_eq!(
            user_words("<user_query>a</user_query> x <user_query> b </user_query>"),
            "a\n\nb"
        );
        assert_eq!(user_words("<user_query>open"), "<user_query>open");
    }
}
