//! Pi and OpenClaw sessions (twin: `recall/_twin/pi.py`): a header line, then a tree of entries.
//!
//! The header (`type: session`) names the session, its cwd and start, and
//! the session it was forked from. Every later entry has an `id` and a
//! `parentId`; the conversation is the active branch ([`crate::tree`]).
//! User and assistant text is kept (thinking, tool calls and results, bash
//! runs, extension messages and summaries are not); `session_info` names the
//! session; OpenClaw's `delivery-mirror` assistant copies of channel
//! deliveries are dropped. Entries before the tree (format v1) have no ids
//! and hang under the entry before them.

use crate::codex_text::sval;
use crate::jsonlines::for_each_object;
use crate::lazyjson::{Obj, Val, LEAF};
use crate::pystamp::stamp;
use crate::pytext::strip;
use crate::records::{
    carried_sid, state_str, truthy, Message, Origin, Parsed, SessionInfo, SessionPart, State,
    ASSISTANT, SKIP_BAD_SHAPE, SKIP_UNKNOWN, TITLE_USER_GIVEN, USER,
};
use crate::tree::{Branch, Parent};
use serde_json::{Map, Value};

/// Entry types that carry no conversation: kept in the tree, not counted.
const KNOWN: [&str; 8] = [
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];
/// OpenClaw's model name on an assistant copy of a message delivered to a channel.
const DELIVERY_MIRROR: &str = "delivery-mirror";

/// The text of a string content, or of a content list's `text` blocks.
pub fn blocks_text(content: Val<'_>) -> String {
    if let Some(s) = content.as_str() {
        return strip(&s).to_string();
    }
    let Some(blocks) = content.as_arr() else {
        return String::new();
    };
    let mut texts = Vec::new();
    for block in blocks {
        if let Some(b) = block.as_obj() {
            if b.val("type").is_str("text") {
                let text = b.text("text");
                let t = strip(&text);
                if !t.is_empty() {
                    texts.push(t.to_string());
                }
            }
        }
    }
    texts.join("\n\n")
}

/// The session id in a fork's `parentSession` path (`…/<time>_<uuid>.jsonl`).
fn fork_id(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or("");
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    let id = stem.rsplit('_').next().unwrap_or("");
    (!id.is_empty()).then(|| id.to_string())
}

struct Run<'o> {
    origin: &'o Origin,
    agent: &'static str,
    st: State,
    branch: Branch,
    title_changed: bool,
}

impl Run<'_> {
    fn meta(&mut self) -> &mut Map<String, Value> {
        if !matches!(self.st.get("meta"), Some(Value::Object(_))) {
            self.st.insert("meta".into(), Value::Object(Map::new()));
        }
        match self.st.get_mut("meta") {
            Some(Value::Object(m)) => m,
            _ => unreachable!("meta was just made an object"),
        }
    }

    fn sid(&mut self) -> String {
        carried_sid(&mut self.st, &self.origin.file_id)
    }

    fn record(&mut self, off: usize, obj: &Obj<'_>, parsed: &mut Parsed) {
        let Some(kind) = obj.val("type").as_str() else {
            let why = if obj.has("type") {
                SKIP_BAD_SHAPE
            } else {
                SKIP_UNKNOWN
            };
            return parsed.skip(why);
        };
        if kind == "session" {
            return self.header(obj);
        }
        let own_id = sval(obj.val("id"));
        let parent = if !obj.has("parentId") {
            Parent::Previous
        } else {
            sval(obj.val("parentId")).map_or(Parent::Root, Parent::Of)
        };
        let mut message = None;
        match kind.as_ref() {
            "message" => message = self.message(off, own_id.as_deref(), obj, parsed),
            "session_info" => {
                if let Some(name) = sval(obj.val("name")) {
                    if state_str(&self.st, "title") != Some(name.as_str()) {
                        self.st.insert("title".into(), Value::String(name));
                        self.title_changed = true;
                    }
                }
            }
            "model_change" => {
                if let Some(model) = sval(obj.val("modelId")) {
                    self.meta().insert("model".into(), Value::String(model));
                }
            }
            k if KNOWN.contains(&k) => {}
            _ => parsed.skip(SKIP_UNKNOWN),
        }
        let id = own_id.unwrap_or_else(|| format!("@{off}"));
        self.branch.add(&self.st, id, parent, message, true);
    }

    fn header(&mut self, obj: &Obj<'_>) {
        if let Some(id) = sval(obj.val("id")) {
            if !matches!(self.st.get("sid"), Some(Value::String(_))) {
                self.st.insert("sid".into(), Value::String(id));
            }
        }
        for (key, value) in [
            ("cwd", sval(obj.val("cwd"))),
            ("started", stamp(obj.val("timestamp"))),
        ] {
            if let (false, Some(v)) = (truthy(self.st.get(key)), value) {
                self.st.insert(key.into(), Value::String(v));
            }
        }
        if let Some(fork) = sval(obj.val("parentSession")).and_then(|p| fork_id(&p)) {
            self.meta()
                .insert("forked_from".into(), Value::String(fork));
        }
    }

    fn message(
        &mut self,
        off: usize,
        own_id: Option<&str>,
        obj: &Obj<'_>,
        parsed: &mut Parsed,
    ) -> Option<Message> {
        let Some(m) = obj.val("message").as_obj() else {
            parsed.skip(SKIP_BAD_SHAPE);
            return None;
        };
        let role = m.val("role");
        let (role, text) = if role.is_str("user") {
            (USER, blocks_text(m.val("content")))
        } else if role.is_str("assistant") {
            let model = sval(m.val("model"));
            if model.as_deref() == Some(DELIVERY_MIRROR) {
                return None; // a copy of what was delivered to a channel
            }
            if let Some(model) = model {
                self.meta().insert("model".into(), Value::String(model));
            }
            (ASSISTANT, blocks_text(m.val("content")))
        } else {
            return None; // tool results, bash runs, extension messages, summaries
        };
        if text.is_empty() {
            return None;
        }
        let key = match own_id {
            Some(id) => id.to_string(),
            None => format!("{}@{off}", self.sid()),
        };
        let timestamp = stamp(obj.val("timestamp")).or_else(|| stamp(m.val("timestamp")));
        Some(Message {
            key,
            role,
            text,
            timestamp,
        })
    }

    fn finish(mut self, parsed: &mut Parsed) {
        let branch = std::mem::take(&mut self.branch);
        let (messages, again) = branch.finish(&mut self.st);
        if again {
            self.st.insert("reread".into(), Value::Bool(true));
        }
        let retitled = self.title_changed && truthy(self.st.get("emitted"));
        if messages.is_empty() && !retitled {
            parsed.state = self.st;
            return;
        }
        self.st.insert("emitted".into(), Value::Bool(true));
        let sid = self.sid();
        let meta = self.meta().clone();
        let st = &self.st;
        let title = state_str(st, "title").map(String::from);
        let mut info = SessionInfo::new(sid, self.agent, None);
        info.project = state_str(st, "cwd").map(String::from);
        info.title_rank = if title.is_some() { TITLE_USER_GIVEN } else { 0 };
        info.title = title;
        info.started_at = state_str(st, "started").map(String::from);
        info.metadata = meta
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string())))
            .collect();
        parsed.parts.push(SessionPart {
            info,
            messages,
            replace: false,
            rewinds: Vec::new(),
        });
        parsed.state = self.st;
    }
}

/// Parse `data` (the file from byte `base` on) as `agent` ("pi" or "openclaw").
pub fn parse(
    agent: &'static str,
    origin: &Origin,
    data: &[u8],
    base: usize,
    state: &State,
) -> Parsed {
    let mut parsed = Parsed::default();
    let mut run = Run {
        origin,
        agent,
        st: state.clone(),
        branch: Branch::default(),
        title_changed: false,
    };
    run.st.shift_remove("reread");
    run.meta();
    for_each_object(data, base, &LEAF, &mut parsed, |off, obj, parsed| {
        run.record(off, obj, parsed)
    });
    run.finish(&mut parsed);
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin {
            file_id: "2026-01-01T00-00-00-000Z_f1".into(),
            ..Origin::default()
        }
    }

    #[test]
    fn active_branch_title_and_mirror_copies() {
        let data = br#"{"type":"session","version":3,"id":"p1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hello"}}
{"type":"message","id":"b1","parentId":"a1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"old answer"}]}}
{"type":"message","id":"b2","parentId":"a1","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"new answer"}]}}
{"type":"message","id":"b3","parentId":"b2","message":{"role":"assistant","model":"delivery-mirror","content":[{"type":"text","text":"new answer"}]}}
{"type":"session_info","id":"c1","parentId":"b3","name":"Greeting"}
"#;
        let p = parse("pi", &origin(), data, 0, &State::new());
        let part = &p.parts[0];
        let got: Vec<&str> = part.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(got, ["hello", "new answer"]);
        assert_eq!(part.info.session_id, "p1");
        assert_eq!(part.info.title.as_deref(), Some("Greeting"));
        assert_eq!(part.info.project.as_deref(), Some("/w"));
        assert!(!p.state.contains_key("reread"));
    }

    #[test]
    fn fork_parent_from_path() {
        assert_eq!(
            fork_id("/h/.pi/agent/sessions/--w--/2026-01-01_abc.jsonl").as_deref(),
            Some("abc")
        );
    }
}
