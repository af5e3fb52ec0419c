//! Factory Droid sessions (twin: `recall/_twin/factory.py`): `session_start` then `message` lines.
//!
//! The first line, `{"type":"session_start","id","title","owner","cwd"}`,
//! names the session (else the file's stem, in [`Origin`]), its title and its
//! folder. Each `{"type":"message","id","timestamp","message":{"role",
//! "content"}}` carries Anthropic content: a string or blocks. Kept are the
//! `text` blocks of user and assistant messages, a user's without the
//! `<system-reminder>` blocks Droid prepends (and Claude Code's other
//! wrappers); thinking, `tool_use` and `tool_result` blocks are not
//! conversation. Other line types (`todo_state`, the ones Droid will add)
//! are passed over without a count; a line without a string `type` is
//! counted. A message's key is `<session>#<id>` (`<session>@<offset>` when
//! it has no id); the first message's time starts the session.

use crate::claude_text::{clean_user_text, text_pieces};
use crate::jsonlines::for_each_object;
use crate::lazyjson::{Obj, LEAF};
use crate::pystamp::stamp;
use crate::pytext::strip;
use crate::records::{
    carried_sid, state_str, Message, Origin, Parsed, SessionInfo, SessionPart, State, ASSISTANT,
    SKIP_BAD_SHAPE, SKIP_UNKNOWN, TITLE_AGENT, USER,
};
use serde_json::Value;

/// A non-blank string field, stripped.
fn field(obj: &Obj<'_>, key: &str) -> Option<String> {
    let v = obj.val(key).as_str()?;
    let s = strip(&v);
    (!s.is_empty()).then(|| s.to_string())
}

/// `session_start`: the session's id (unless an earlier parse settled it), title, folder.
fn start(st: &mut State, obj: &Obj<'_>) {
    if state_str(st, "sid").is_none() {
        if let Some(id) = field(obj, "id") {
            st.insert("sid".into(), Value::String(id));
        }
    }
    for key in ["title", "cwd"] {
        if let Some(v) = field(obj, key) {
            st.insert(key.into(), Value::String(v));
        }
    }
}

fn message(sid: &str, off: usize, obj: &Obj<'_>, parsed: &mut Parsed) -> Option<Message> {
    let message = obj.val("message").as_obj();
    let pieces = message.as_ref().and_then(|m| text_pieces(m.val("content")));
    let (Some(message), Some(pieces)) = (message, pieces) else {
        parsed.skip(SKIP_BAD_SHAPE);
        return None;
    };
    let role = match message.val("role").as_str().as_deref() {
        Some("user") => USER,
        Some("assistant") => ASSISTANT,
        _ => return None,
    };
    let texts: Vec<String> = pieces
        .iter()
        .map(|p| {
            if role == USER {
                clean_user_text(p)
            } else {
                strip(p).to_string()
            }
        })
        .filter(|t| !t.is_empty())
        .collect();
    if texts.is_empty() {
        return None;
    }
    let key = match field(obj, "id") {
        Some(id) => format!("{sid}#{id}"),
        None => format!("{sid}@{off}"),
    };
    Some(Message {
        key,
        role,
        text: texts.join("\n\n"),
        timestamp: stamp(obj.val("timestamp")),
    })
}

/// Parse `data` (the file from byte `base` on) with the previous parse's state.
pub fn parse(origin: &Origin, data: &[u8], base: usize, state: &State) -> Parsed {
    let mut parsed = Parsed::default();
    let mut st = state.clone();
    let mut messages = Vec::new();
    let mut started = false;
    for_each_object(data, base, &LEAF, &mut parsed, |off, obj, parsed| {
        let kind = obj.val("type");
        if !kind.is_string() {
            let why = if obj.has("type") {
                SKIP_BAD_SHAPE
            } else {
                SKIP_UNKNOWN
            };
            return parsed.skip(why);
        }
        if kind.is_str("session_start") {
            start(&mut st, obj);
            started = true;
        } else if kind.is_str("message") {
            let sid = carried_sid(&mut st, &origin.file_id);
            if let Some(m) = message(&sid, off, obj, parsed) {
                if state_str(&st, "started").is_none() {
                    if let Some(at) = &m.timestamp {
                        st.insert("started".into(), Value::String(at.clone()));
                    }
                }
                messages.push(m);
            }
        }
    });
    if started || !messages.is_empty() {
        let sid = carried_sid(&mut st, &origin.file_id);
        let mut info = SessionInfo::new(sid, "factory", origin.parent.clone());
        info.project = state_str(&st, "cwd").map(String::from);
        if let Some(title) = state_str(&st, "title") {
            info.title = Some(title.to_string());
            info.title_rank = TITLE_AGENT;
        }
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
    fn prompts_and_answers_are_kept_tools_go() {
        let data = br#"{"type":"session_start","id":"f-1","title":"Fix the flaky test","owner":"dev","cwd":"/home/dev/shop"}
{"type":"message","id":"m1","timestamp":"2026-09-01T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>\nfiles: a.py\n</system-reminder>"},{"type":"text","text":" why does it fail? "}]}}
{"type":"message","id":"m2","timestamp":"2026-09-01T10:00:05.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"no"},{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}
{"type":"message","id":"m3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"big"}]}}
{"type":"todo_state","todos":[]}
{"type":"message","id":"m4","message":"oops"}
{"id":"x"}
"#;
        let origin = Origin {
            file_id: "file-stem".into(),
            ..Origin::default()
        };
        let p = parse(&origin, data, 0, &State::new());
        let part = &p.parts[0];
        assert_eq!(part.info.session_id, "f-1");
        assert_eq!(part.info.project.as_deref(), Some("/home/dev/shop"));
        assert_eq!(part.info.title.as_deref(), Some("Fix the flaky test"));
        let got: Vec<(&str, &str)> = part
            .messages
            .iter()
            .map(|m| (m.key.as_str(), m.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [("f-1#m1", "why does it fail?"), ("f-1#m2", "Let me look.")]
        );
        assert_eq!(
            part.info.started_at.as_deref(),
            Some("2026-09-01T10:00:00.000Z")
        );
        assert_eq!(p.skipped, vec![(SKIP_BAD_SHAPE, 1), (SKIP_UNKNOWN, 1)]);
    }

    #[test]
    fn a_later_parse_keeps_the_session() {
        let first = br#"{"type":"session_start","id":"f-2","cwd":"/w"}
"#;
        let origin = Origin {
            file_id: "stem".into(),
            ..Origin::default()
        };
        let p = parse(&origin, first, 0, &State::new());
        let more = br#"{"type":"message","message":{"role":"assistant","content":"done"}}
"#;
        let q = parse(&origin, more, first.len(), &p.state);
        let part = &q.parts[0];
        assert_eq!(part.info.session_id, "f-2");
        assert_eq!(part.info.project.as_deref(), Some("/w"));
        assert_eq!(part.messages[0].key, format!("f-2@{}", first.len()));
    }
}
