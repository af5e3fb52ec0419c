//! Codex CLI rollouts (twin: `recall/_twin/codex.py`): envelopes, legacy flat records, drift shapes.
//!
//! The conversation is `response_item` messages; `event_msg` user/agent
//! messages stand in only while a file has shown no message item. Injected
//! context in user text is dropped; a message repeating the previous one
//! with the same role is dropped. State is the twin's dict, key for key.

use crate::codex_text::{kind_of, message_texts, parent_of, sval, user_text, Kind};
use crate::jsonlines::{parse_lines, LineRun};
use crate::lazyjson::{Obj, Spec, Val, LEAF};
use crate::pytext::strip;
use crate::records::{
    carried_sid, claim_sid, opt_value, state_str, string_metadata, truthy, Message, Origin, Parsed,
    SessionInfo, SessionPart, State, ASSISTANT, SKIP_BAD_SHAPE, SKIP_UNKNOWN, TITLE_AGENT, USER,
};
use serde_json::Value;
use std::borrow::Cow;

/// Split out in the line's one pass: the envelope's payload (its tool
/// output or arguments stay raw, unread).
static LINE: Spec = Spec {
    keys: &[("payload", &LEAF)],
};

const ENVELOPES: [&str; 4] = ["session_meta", "response_item", "event_msg", "turn_context"];
const IGNORED: [&str; 4] = [
    "compacted",
    "world_state",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
];
const ITEM_TYPES: [&str; 15] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "tool_search_output",
    "image_generation_call",
    "agent_message",
    "compaction",
    "ghost_snapshot",
    "other",
]; // fmt: skip
struct Run<'o> {
    origin: &'o Origin,
    st: State,
    items: Vec<Message>,
    events: Vec<Message>,
    title_changed: bool,
}

impl Run<'_> {
    fn sid(&mut self) -> String {
        carried_sid(&mut self.st, &self.origin.file_id)
    }

    fn session_meta(&mut self, payload: &Obj<'_>, stamp: Val<'_>) {
        if truthy(self.st.get("meta_seen")) {
            return; // a fork's or resume's copy: the file's first session_meta wins
        }
        self.st.insert("meta_seen".into(), Value::Bool(true));
        let sid = sval(payload.val("session_id")).or_else(|| sval(payload.val("id")));
        claim_sid(&mut self.st, sid);
        self.st
            .insert("cwd".into(), opt_value(sval(payload.val("cwd")).as_deref()));
        let started = sval(payload.val("timestamp")).or_else(|| sval(stamp));
        self.st
            .insert("started".into(), opt_value(started.as_deref()));
        self.st
            .insert("parent".into(), opt_value(parent_of(payload).as_deref()));
        let git = payload.val("git").as_obj();
        let fields = [
            ("agent_version", payload.val("cli_version")),
            ("originator", payload.val("originator")),
            ("forked_from", payload.val("forked_from_id")),
            (
                "git_branch",
                git.as_ref().map_or(Val::Null, |g| g.val("branch")),
            ),
        ];
        for (key, value) in fields {
            if let Some(clean) = sval(value) {
                self.meta().insert(key.into(), Value::String(clean));
            }
        }
    }

    fn turn_context(&mut self, payload: &Obj<'_>) {
        if let Some(model) = sval(payload.val("model")) {
            self.meta().insert("model".into(), Value::String(model));
        }
        if !truthy(self.st.get("turn_cwd")) {
            let cwd = sval(payload.val("cwd"));
            self.st.insert("turn_cwd".into(), opt_value(cwd.as_deref()));
        }
    }

    fn item(&mut self, off: usize, item: &Obj<'_>, stamp: Val<'_>, parsed: &mut Parsed) {
        let kind = match item.get("type") {
            None => Kind::Str(Cow::Borrowed("message")),
            v => kind_of(v),
        };
        match &kind {
            Kind::Str(k) if k == "message" => {}
            Kind::Null if item.has("role") => {}
            Kind::Str(_) => return, // reasoning, calls, outputs, snapshots: not conversation
            _ => return parsed.skip(SKIP_BAD_SHAPE),
        }
        let role_text = item.text("role");
        let role = match role_text.as_ref() {
            USER => Some(USER),
            ASSISTANT => Some(ASSISTANT),
            _ => None,
        };
        let texts = match message_texts(item) {
            Err(_) | Ok(None) => return parsed.skip(SKIP_BAD_SHAPE),
            Ok(Some(t)) => t,
        };
        let Some(role) = role else {
            return; // developer / system
        };
        if let Some(model) = sval(item.val("model")) {
            if !self.meta().contains_key("model") {
                self.meta().insert("model".into(), Value::String(model));
            }
        }
        self.st.insert("items_seen".into(), Value::Bool(true));
        let clean: Vec<String> = texts
            .iter()
            .map(|t| {
                if role == USER {
                    user_text(t)
                } else {
                    strip(t).to_string()
                }
            })
            .filter(|t| !t.is_empty())
            .collect();
        let msg = self.message("last", off, role, clean.join("\n\n"), stamp);
        self.items.extend(msg);
    }

    fn event(&mut self, off: usize, payload: &Obj<'_>, stamp: Val<'_>) {
        let kind = payload.val("type");
        if kind.is_str("thread_name_updated") {
            let name = sval(payload.val("thread_name")).or_else(|| sval(payload.val("name")));
            if let Some(name) = name {
                if state_str(&self.st, "title") != Some(name.as_str()) {
                    self.st.insert("title".into(), Value::String(name));
                    self.title_changed = true;
                }
            }
        } else if kind.is_str("user_message") || kind.is_str("agent_message") {
            let text = payload.text("message");
            let (role, text) = if kind.is_str("user_message") {
                (USER, user_text(&text))
            } else {
                (ASSISTANT, strip(&text).to_string())
            };
            let msg = self.message("last_event", off, role, text, stamp);
            self.events.extend(msg);
        }
    }

    fn message(
        &mut self,
        last_key: &str,
        off: usize,
        role: &'static str,
        text: String,
        stamp: Val<'_>,
    ) -> Option<Message> {
        if text.is_empty() {
            return None;
        }
        let pair = Value::Array(vec![
            Value::String(role.into()),
            Value::String(text.clone()),
        ]);
        if self.st.get(last_key) == Some(&pair) {
            return None;
        }
        self.st.insert(last_key.into(), pair);
        let key = format!("{}@{off}", self.sid());
        Some(Message {
            key,
            role,
            text,
            timestamp: sval(stamp),
        })
    }
}

impl LineRun for Run<'_> {
    fn state(&mut self) -> &mut State {
        &mut self.st
    }

    fn record(&mut self, off: usize, obj: &Obj<'_>, parsed: &mut Parsed) {
        let kind = kind_of(obj.get("type"));
        let stamp = obj.val("timestamp");
        let item_stamp = if stamp.is_null() {
            obj.val("created_at")
        } else {
            stamp
        };
        match &kind {
            Kind::Unhashable => parsed.skip(SKIP_BAD_SHAPE),
            Kind::Str(k) if ENVELOPES.contains(&k.as_ref()) && obj.has("payload") => {
                let Some(payload) = obj.val("payload").as_obj() else {
                    return parsed.skip(SKIP_BAD_SHAPE);
                };
                match k.as_ref() {
                    "session_meta" => self.session_meta(&payload, stamp),
                    "response_item" => self.item(off, &payload, stamp, parsed),
                    "event_msg" => self.event(off, &payload, stamp),
                    _ => self.turn_context(&payload),
                }
            }
            Kind::Str(k) if IGNORED.contains(&k.as_ref()) => {}
            _ if obj.has("record_type") => {}
            Kind::Str(k) if ITEM_TYPES.contains(&k.as_ref()) => {
                self.item(off, obj, item_stamp, parsed)
            }
            Kind::Null if obj.has("role") => self.item(off, obj, item_stamp, parsed),
            Kind::Null if obj.has("id") && (obj.has("instructions") || obj.has("git")) => {
                self.session_meta(obj, stamp) // the legacy bare header
            }
            Kind::Str(_) | Kind::Null => parsed.skip(SKIP_UNKNOWN),
            Kind::OtherScalar => parsed.skip(SKIP_BAD_SHAPE),
        }
    }

    fn finish(mut self, parsed: &mut Parsed) {
        let mut replace = false;
        let messages = if truthy(self.st.get("items_seen")) {
            if truthy(self.st.shift_remove("events_emitted").as_ref()) {
                replace = true; // drop the event-log fallback stored by earlier parses
            }
            std::mem::take(&mut self.items)
        } else {
            let events = std::mem::take(&mut self.events);
            if !events.is_empty() {
                self.st.insert("events_emitted".into(), Value::Bool(true));
            }
            events
        };
        let retitled = self.title_changed && truthy(self.st.get("emitted"));
        if messages.is_empty() && !replace && !retitled {
            parsed.state = self.st;
            return;
        }
        self.st.insert("emitted".into(), Value::Bool(true));
        let sid = self.sid();
        let meta = self.meta().clone();
        let st = &self.st;
        let title = state_str(st, "title").map(String::from);
        let mut info = SessionInfo::new(sid, "codex", state_str(st, "parent").map(String::from));
        info.project = state_str(st, "cwd")
            .or_else(|| state_str(st, "turn_cwd"))
            .map(String::from);
        info.title_rank = if title.is_some() { TITLE_AGENT } else { 0 };
        info.title = title;
        info.started_at = state_str(st, "started").map(String::from);
        info.metadata = string_metadata(&meta);
        parsed.parts.push(SessionPart {
            info,
            messages,
            replace,
            rewinds: Vec::new(),
        });
        parsed.state = self.st;
    }
}

/// Parse `data` (the file from byte `base` on) with the state of the previous parse.
pub fn parse(origin: &Origin, data: &[u8], base: usize, state: &State) -> Parsed {
    let mut run = Run {
        origin,
        st: state.clone(),
        items: Vec::new(),
        events: Vec::new(),
        title_changed: false,
    };
    run.meta();
    parse_lines(run, data, base, &LINE)
}
