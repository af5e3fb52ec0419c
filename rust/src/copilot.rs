//! GitHub Copilot CLI event logs (twin: `recall/_twin/copilot.py`): `{type, id, parentId, timestamp, data}` lines.
//!
//! `session.start` names the session, its cwd, model and repository; a
//! resume or a cwd change fills the cwd when the start had none. The
//! conversation is `user.message` `content` (what the user saw and typed;
//! never `transformedContent`) and `assistant.message` `content`. A user
//! message with a `source` (a skill's hidden prompt, another agent's),
//! an autopilot continuation, or one from a sub-agent is not the user's.
//! One response split into chunks (the same `apiCallId`) is one message,
//! rewritten in place as chunks arrive. Assistant messages of a sub-agent
//! (`agentId`, or the older `parentToolCallId`) become child sessions,
//! `<session>:agent-<id>`. Every other event type (tools, reasoning, hooks,
//! usage, system prompts, the ~130 types the schema has and those it will
//! have) carries no conversation and is passed over without a count.

use crate::codex_text::sval;
use crate::jsonlines::for_each_object;
use crate::lazyjson::{Obj, LEAF};
use crate::pystamp::stamp;
use crate::pytext::strip;
use crate::records::{
    carried_sid, state_str, truthy, Message, Origin, Parsed, SessionInfo, SessionPart, State,
    ASSISTANT, SKIP_BAD_SHAPE, SKIP_UNKNOWN, USER,
};
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// Events whose `data` must be an object to be read.
const READ: [&str; 6] = [
    "session.start",
    "session.resume",
    "session.context_changed",
    "session.model_change",
    "user.message",
    "assistant.message",
];

struct Run<'o> {
    origin: &'o Origin,
    st: State,
    /// Messages by key, with the sub-agent they belong to (None: the session).
    pending: IndexMap<String, (Option<String>, Message)>,
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

    fn once(&mut self, key: &str, value: Option<String>) {
        if let (false, Some(v)) = (truthy(self.st.get(key)), value) {
            self.st.insert(key.into(), Value::String(v));
        }
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
        if !READ.contains(&kind.as_ref()) {
            return;
        }
        let Some(data) = obj.val("data").as_obj() else {
            return parsed.skip(SKIP_BAD_SHAPE);
        };
        match kind.as_ref() {
            "session.start" => self.start(obj, &data),
            "session.resume" => {
                if let Some(ctx) = data.val("context").as_obj() {
                    self.once("cwd", sval(ctx.val("cwd")));
                }
            }
            "session.context_changed" => self.once("cwd", sval(data.val("cwd"))),
            "session.model_change" => {
                if let Some(model) = sval(data.val("newModel")) {
                    self.meta().insert("model".into(), Value::String(model));
                }
            }
            "user.message" => self.user(off, obj, &data),
            _ => self.assistant(off, obj, &data),
        }
    }

    fn start(&mut self, obj: &Obj<'_>, data: &Obj<'_>) {
        if let Some(sid) = sval(data.val("sessionId")) {
            if !matches!(self.st.get("sid"), Some(Value::String(_))) {
                self.st.insert("sid".into(), Value::String(sid));
            }
        }
        let started = sval(data.val("startTime")).or_else(|| stamp(obj.val("timestamp")));
        self.once("started", started);
        let ctx = data.val("context").as_obj();
        let of_ctx = |key: &str| ctx.as_ref().and_then(|c| sval(c.val(key)));
        let cwd = of_ctx("cwd");
        let fields = [
            ("agent_version", sval(data.val("copilotVersion"))),
            ("model", sval(data.val("selectedModel"))),
            ("repository", of_ctx("repository")),
            ("git_branch", of_ctx("branch")),
        ];
        self.once("cwd", cwd);
        for (key, value) in fields {
            if let Some(v) = value {
                self.meta().insert(key.into(), Value::String(v));
            }
        }
    }

    fn user(&mut self, off: usize, obj: &Obj<'_>, data: &Obj<'_>) {
        let injected = sval(obj.val("agentId")).is_some()
            || sval(data.val("source")).is_some()
            || data.is_true("isAutopilotContinuation");
        let content = data.text("content");
        let text = strip(&content);
        if injected || text.is_empty() {
            return;
        }
        self.st.shift_remove("call");
        let key = format!("{}@{off}", self.sid());
        let msg = Message {
            key: key.clone(),
            role: USER,
            text: text.to_string(),
            timestamp: stamp(obj.val("timestamp")),
        };
        self.pending.insert(key, (None, msg));
    }

    fn assistant(&mut self, off: usize, obj: &Obj<'_>, data: &Obj<'_>) {
        if let Some(model) = sval(data.val("model")) {
            self.meta().insert("model".into(), Value::String(model));
        }
        let content = data.text("content");
        let text = strip(&content);
        if text.is_empty() {
            return; // a turn of tool requests only
        }
        let target = sval(obj.val("agentId")).or_else(|| sval(data.val("parentToolCallId")));
        let call = sval(data.val("apiCallId"));
        let target_value = target.clone().map_or(Value::Null, Value::String);
        let (key, text) = match (&call, self.st.get("call")) {
            (Some(c), Some(Value::Array(prev)))
                if prev.len() == 4 && prev[0] == *c && prev[2] == target_value =>
            {
                let key = prev[1].as_str().unwrap_or_default().to_string();
                let before = prev[3].as_str().unwrap_or_default();
                (key, format!("{before}\n\n{text}"))
            }
            _ => (format!("{}@{off}", self.sid()), text.to_string()),
        };
        match call {
            Some(c) => {
                let kept = vec![
                    Value::String(c),
                    Value::String(key.clone()),
                    target_value,
                    Value::String(text.clone()),
                ];
                self.st.insert("call".into(), Value::Array(kept));
            }
            None => {
                self.st.shift_remove("call");
            }
        }
        let msg = Message {
            key: key.clone(),
            role: ASSISTANT,
            text,
            timestamp: stamp(obj.val("timestamp")),
        };
        self.pending.insert(key, (target, msg));
    }

    fn info(&mut self, sid: String, parent: Option<String>) -> SessionInfo {
        let mut info = SessionInfo::new(sid, "copilot", parent);
        info.project = state_str(&self.st, "cwd").map(String::from);
        info.started_at = state_str(&self.st, "started").map(String::from);
        info
    }

    fn finish(mut self, parsed: &mut Parsed) {
        if self.pending.is_empty() {
            parsed.state = self.st; // no id taken from the file name before the start is read
            return;
        }
        let sid = self.sid();
        let mut main = Vec::new();
        let mut subs: IndexMap<String, Vec<Message>> = IndexMap::new();
        for (_, (target, msg)) in std::mem::take(&mut self.pending) {
            match target {
                None => main.push(msg),
                Some(agent) => subs.entry(agent).or_default().push(msg),
            }
        }
        if !main.is_empty() {
            let mut info = self.info(sid.clone(), None);
            info.metadata = self
                .meta()
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect();
            parsed.parts.push(SessionPart {
                info,
                messages: main,
                replace: false,
                rewinds: Vec::new(),
            });
        }
        for (agent, messages) in subs {
            let info = self.info(format!("{sid}:agent-{agent}"), Some(sid.clone()));
            parsed.parts.push(SessionPart {
                info,
                messages,
                replace: false,
                rewinds: Vec::new(),
            });
        }
        parsed.state = self.st;
    }
}

/// Parse `data` (the file from byte `base` on) with the previous parse's state.
pub fn parse(origin: &Origin, data: &[u8], base: usize, state: &State) -> Parsed {
    let mut parsed = Parsed::default();
    let mut run = Run {
        origin,
        st: state.clone(),
        pending: IndexMap::new(),
    };
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

    #[test]
    fn chunks_join_and_injected_prompts_go() {
        let data =
            br#"{"type":"session.start","id":"e1","data":{"sessionId":"c1","context":{"cwd":"/w"}}}
{"type":"user.message","id":"e2","data":{"content":" why? ","transformedContent":"<x>why?</x>"}}
{"type":"assistant.message","id":"e3","data":{"apiCallId":"r1","content":"Part one."}}
{"type":"assistant.message","id":"e4","data":{"apiCallId":"r1","content":"Part two."}}
{"type":"user.message","id":"e5","data":{"content":"<skill>","source":"skill-pdf"}}
{"type":"assistant.message","id":"e6","agentId":"sub1","data":{"content":"from the helper"}}
"#;
        let origin = Origin {
            file_id: "c1".into(),
            ..Origin::default()
        };
        let p = parse(&origin, data, 0, &State::new());
        let main = &p.parts[0];
        let got: Vec<&str> = main.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(got, ["why?", "Part one.\n\nPart two."]);
        assert_eq!(main.info.project.as_deref(), Some("/w"));
        assert_eq!(p.parts[1].info.session_id, "c1:agent-sub1");
    }
}
