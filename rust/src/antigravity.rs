//! Antigravity CLI transcripts (twin: `recall/_twin/antigravity.py`): one step a line, `{step_index, source, type, content, created_at}`.
//!
//! A `USER_INPUT` step is the user's (unless its `source` is the system's or
//! the model's): the words inside `<USER_REQUEST>`, or, without that wrapper,
//! the text before the first `<ADDITIONAL_METADATA>` or
//! `<USER_SETTINGS_CHANGE>` block Antigravity appends. A `PLANNER_RESPONSE`
//! step's `content` is the assistant's answer; its `thinking` and
//! `tool_calls` are not conversation. Every other step (tool results, file
//! views, commands, web searches, checkpoints, system messages, the types it
//! will add) is passed over without a count. The path names the session
//! (`brain/<id>/…`, in [`Origin`]); the first step's `created_at` starts it.

use crate::jsonlines::for_each_object;
use crate::lazyjson::{Obj, LEAF};
use crate::pystamp::stamp;
use crate::pytext::strip;
use crate::records::{
    carried_sid, state_str, Message, Origin, Parsed, SessionInfo, SessionPart, State, ASSISTANT,
    SKIP_BAD_SHAPE, SKIP_UNKNOWN, USER,
};
use serde_json::Value;

const REQUEST_OPEN: &str = "<USER_REQUEST>";
const REQUEST_CLOSE: &str = "</USER_REQUEST>";
const APPENDED: [&str; 2] = ["<ADDITIONAL_METADATA>", "<USER_SETTINGS_CHANGE>"];

/// What the user typed of a `USER_INPUT` step's content.
pub fn user_request(content: &str) -> &str {
    if let Some(i) = content.find(REQUEST_OPEN) {
        let inner = i + REQUEST_OPEN.len();
        if let Some(j) = content[inner..].find(REQUEST_CLOSE) {
            return strip(&content[inner..inner + j]);
        }
    }
    let end = APPENDED
        .iter()
        .filter_map(|tag| content.find(tag))
        .min()
        .unwrap_or(content.len());
    strip(&content[..end])
}

fn message(st: &mut State, origin: &Origin, off: usize, obj: &Obj<'_>) -> Option<Message> {
    let role = match obj.val("type").as_str()?.as_ref() {
        "USER_INPUT" => {
            let source = obj.val("source").as_str();
            if source.is_some_and(|s| s == "SYSTEM" || s == "MODEL") {
                return None;
            }
            USER
        }
        "PLANNER_RESPONSE" => ASSISTANT,
        _ => return None,
    };
    let content = obj.text("content");
    let text = if role == USER {
        user_request(&content)
    } else {
        strip(&content)
    };
    if text.is_empty() {
        return None;
    }
    let sid = carried_sid(st, &origin.file_id);
    Some(Message {
        key: format!("{sid}@{off}"),
        role,
        text: text.to_string(),
        timestamp: stamp(obj.val("created_at")),
    })
}

/// Parse `data` (the file from byte `base` on) with the previous parse's state.
pub fn parse(origin: &Origin, data: &[u8], base: usize, state: &State) -> Parsed {
    let mut parsed = Parsed::default();
    let mut st = state.clone();
    let mut messages = Vec::new();
    for_each_object(data, base, &LEAF, &mut parsed, |off, obj, parsed| {
        if !obj.val("type").is_string() {
            let why = if obj.has("type") {
                SKIP_BAD_SHAPE
            } else {
                SKIP_UNKNOWN
            };
            return parsed.skip(why);
        }
        if state_str(&st, "started").is_none() {
            if let Some(at) = stamp(obj.val("created_at")) {
                st.insert("started".into(), Value::String(at));
            }
        }
        messages.extend(message(&mut st, origin, off, obj));
    });
    if !messages.is_empty() {
        let sid = carried_sid(&mut st, &origin.file_id);
        let mut info = SessionInfo::new(sid, "antigravity", origin.parent.clone());
        info.started_at = state_str(&st, "started").map(String::from);
        parsed.parts.push(SessionPart {
            info,
            messages,
            replace: false,
            rewinds: Vec::new(),
        });
    }
    parsed.state = st;
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_and_the_answer_are_kept() {
        let data = br#"{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","created_at":"2026-06-26T21:16:16Z","content":"<USER_REQUEST>\nList the files.\n</USER_REQUEST>\n<USER_SETTINGS_CHANGE>model</USER_SETTINGS_CHANGE>"}
{"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","thinking":"no","tool_calls":[{"name":"list_dir"}]}
{"step_index":2,"source":"MODEL","type":"RUN_COMMAND","content":"a.txt"}
{"step_index":3,"source":"MODEL","type":"PLANNER_RESPONSE","thinking":"no","content":" Two files. "}
{"step_index":4}
"#;
        let origin = Origin {
            file_id: "conv-1".into(),
            ..Origin::default()
        };
        let p = parse(&origin, data, 0, &State::new());
        let part = &p.parts[0];
        let got: Vec<&str> = part.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(got, ["List the files.", "Two files."]);
        assert_eq!(
            part.info.started_at.as_deref(),
            Some("2026-06-26T21:16:16Z")
        );
        assert_eq!(p.skipped, vec![(SKIP_UNKNOWN, 1)]);
    }

    #[test]
    fn without_the_wrapper_the_appended_blocks_go() {
        assert_eq!(user_request(" go <ADDITIONAL_METADATA>x"), "go");
        assert_eq!(user_request("<USER_REQUEST>open"), "<USER_REQUEST>open");
    }
}
