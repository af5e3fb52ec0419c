//! Qwen Code chats (twin: `recall/_twin/qwen.py`): `ChatRecord` lines whose `uuid`/`parentUuid` form a tree.
//!
//! `message` is a Gemini `Content` (`role`, `parts`), read by the Gemini text
//! rules ([`crate::gemini_text`]): thoughts, function calls and responses are
//! not conversation. The conversation is the active branch ([`crate::tree`]);
//! `tool_result` and `system` records are links in it only, except a
//! `custom_title` (the title: the user's, or the agent's own when its source
//! is `auto`) and `parent_session` (the session that spawned this one). A
//! record whose `provenance` says it is not the user's or the model's own
//! output is left out. Sidechain records are a sub-agent's: they become child
//! sessions, `<session>:agent-<agentId>`.

use crate::codex_text::sval;
use crate::gemini_text::{model_text, user_text};
use crate::jsonlines::for_each_object;
use crate::lazyjson::{Obj, LEAF};
use crate::pystamp::stamp;
use crate::records::{
    carried_sid, state_str, truthy, Message, Origin, Parsed, SessionInfo, SessionPart, State,
    ASSISTANT, SKIP_BAD_SHAPE, SKIP_UNKNOWN, TITLE_AGENT, TITLE_USER_GIVEN, USER,
};
use crate::tree::{Branch, Parent};
use indexmap::IndexMap;
use serde_json::{Map, Value};

struct Run<'o> {
    origin: &'o Origin,
    st: State,
    branch: Branch,
    subs: IndexMap<String, Vec<Message>>,
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
        if let Some(sid) = sval(obj.val("sessionId")) {
            if !matches!(self.st.get("sid"), Some(Value::String(_))) {
                self.st.insert("sid".into(), Value::String(sid));
            }
        }
        self.once("cwd", sval(obj.val("cwd")));
        self.once("started", stamp(obj.val("timestamp")));
        for (key, field) in [("agent_version", "version"), ("git_branch", "gitBranch")] {
            if let Some(v) = sval(obj.val(field)) {
                self.meta().insert(key.into(), Value::String(v));
            }
        }
        let own_id = sval(obj.val("uuid"));
        let parent = if !obj.has("parentUuid") {
            Parent::Previous
        } else {
            sval(obj.val("parentUuid")).map_or(Parent::Root, Parent::Of)
        };
        let provenance = obj.get("provenance");
        let mut message = None;
        match kind.as_ref() {
            "user" | "assistant" => {
                let (role, own) = if kind == "user" {
                    (USER, "real_user")
                } else {
                    (ASSISTANT, "assistant_output")
                };
                let theirs = provenance.is_some_and(|p| !p.is_str(own));
                match obj.val("message").as_obj() {
                    None => parsed.skip(SKIP_BAD_SHAPE),
                    Some(_) if theirs => {}
                    Some(m) => {
                        let text = if role == USER {
                            user_text(&m, true)
                        } else {
                            if let Some(model) = sval(obj.val("model")) {
                                self.meta().insert("model".into(), Value::String(model));
                            }
                            model_text(&m, true)
                        };
                        if !text.is_empty() {
                            let key = match &own_id {
                                Some(id) => id.clone(),
                                None => format!("{}@{off}", self.sid()),
                            };
                            message = Some(Message {
                                key,
                                role,
                                text,
                                timestamp: stamp(obj.val("timestamp")),
                            });
                        }
                    }
                }
            }
            "system" => self.system(obj),
            "tool_result" => {}
            _ => parsed.skip(SKIP_UNKNOWN),
        }
        let id = own_id.unwrap_or_else(|| format!("@{off}"));
        if obj.is_true("isSidechain") {
            let agent = sval(obj.val("agentId")).unwrap_or_else(|| "sidechain".into());
            if let Some(name) = sval(obj.val("agentName")) {
                let sub_names = self.st.entry("agent_names").or_insert(Value::Null);
                if !sub_names.is_object() {
                    *sub_names = Value::Object(Map::new());
                }
                if let Value::Object(names) = sub_names {
                    names.insert(agent.clone(), Value::String(name));
                }
            }
            self.subs.entry(agent).or_default().extend(message);
            self.branch.add(&self.st, id, parent, None, false);
        } else {
            self.branch.add(&self.st, id, parent, message, true);
        }
    }

    fn system(&mut self, obj: &Obj<'_>) {
        let Some(payload) = obj.val("systemPayload").as_obj() else {
            return;
        };
        let subtype = obj.val("subtype");
        if subtype.is_str("custom_title") {
            if let Some(title) = sval(payload.val("customTitle")) {
                let rank = if payload.val("titleSource").is_str("auto") {
                    TITLE_AGENT
                } else {
                    TITLE_USER_GIVEN
                };
                if state_str(&self.st, "title") != Some(title.as_str()) {
                    self.st.insert("title".into(), Value::String(title));
                    self.st.insert("title_rank".into(), Value::from(rank));
                    self.title_changed = true;
                }
            }
        } else if subtype.is_str("parent_session") {
            let parent = sval(payload.val("parentSessionId"));
            self.once("parent", parent);
        }
    }

    fn info(&self, sid: String, parent: Option<String>) -> SessionInfo {
        let mut info = SessionInfo::new(sid, "qwen", parent);
        info.project = state_str(&self.st, "cwd").map(String::from);
        info.started_at = state_str(&self.st, "started").map(String::from);
        info
    }

    fn finish(mut self, parsed: &mut Parsed) {
        let branch = std::mem::take(&mut self.branch);
        let (messages, again) = branch.finish(&mut self.st);
        if again {
            self.st.insert("reread".into(), Value::Bool(true));
        }
        let retitled = self.title_changed && truthy(self.st.get("emitted"));
        let main = !messages.is_empty() || retitled;
        if !main && self.subs.values().all(Vec::is_empty) {
            parsed.state = self.st; // no id taken from the file name before a record names it
            return;
        }
        let sid = self.sid();
        if main {
            let title = state_str(&self.st, "title").map(String::from);
            let mut info = self.info(sid.clone(), state_str(&self.st, "parent").map(String::from));
            info.title_rank = match (&title, self.st.get("title_rank")) {
                (Some(_), Some(Value::Number(n))) => n.as_i64().unwrap_or(TITLE_USER_GIVEN),
                (Some(_), _) => TITLE_USER_GIVEN,
                (None, _) => 0,
            };
            info.title = title;
            info.metadata = self
                .meta()
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect();
            parsed.parts.push(SessionPart {
                info,
                messages,
                replace: false,
                rewinds: Vec::new(),
            });
        }
        for (agent, messages) in std::mem::take(&mut self.subs) {
            if messages.is_empty() {
                continue;
            }
            let mut info = self.info(format!("{sid}:agent-{agent}"), Some(sid.clone()));
            let name = match self.st.get("agent_names") {
                Some(Value::Object(names)) => names.get(&agent).and_then(Value::as_str),
                _ => None,
            };
            if let Some(name) = name {
                info.metadata.insert("agent_name".into(), name.to_string());
            }
            parsed.parts.push(SessionPart {
                info,
                messages,
                replace: false,
                rewinds: Vec::new(),
            });
        }
        if !parsed.parts.is_empty() {
            self.st.insert("emitted".into(), Value::Bool(true));
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
        branch: Branch::default(),
        subs: IndexMap::new(),
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

    #[test]
    fn conversation_title_and_sidechain() {
        let data = br#"{"uuid":"u1","parentUuid":null,"sessionId":"q1","timestamp":"2026-01-01T00:00:00Z","type":"user","cwd":"/w","version":"0.9","message":{"role":"user","parts":[{"text":"fix the bug"}]}}
{"uuid":"a1","parentUuid":"u1","sessionId":"q1","timestamp":"2026-01-01T00:00:01Z","type":"assistant","model":"qwen3","message":{"role":"model","parts":[{"text":"thinking","thought":true},{"functionCall":{"name":"ls","args":{}}}]}}
{"uuid":"t1","parentUuid":"a1","sessionId":"q1","timestamp":"2026-01-01T00:00:02Z","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{}}}]}}
{"uuid":"a2","parentUuid":"t1","sessionId":"q1","timestamp":"2026-01-01T00:00:03Z","type":"assistant","message":{"role":"model","parts":[{"text":"Fixed."}]}}
{"uuid":"s1","parentUuid":"a2","sessionId":"q1","timestamp":"2026-01-01T00:00:04Z","type":"system","subtype":"custom_title","systemPayload":{"customTitle":"Bug fix"}}
{"uuid":"x1","parentUuid":"s1","sessionId":"q1","timestamp":"2026-01-01T00:00:05Z","type":"user","isSidechain":true,"agentId":"explore-1","message":{"role":"user","parts":[{"text":"look around"}]}}
"#;
        let origin = Origin {
            file_id: "q1".into(),
            ..Origin::default()
        };
        let p = parse(&origin, data, 0, &State::new());
        let main = &p.parts[0];
        let got: Vec<&str> = main.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(got, ["fix the bug", "Fixed."]);
        assert_eq!(main.info.title.as_deref(), Some("Bug fix"));
        assert_eq!(main.info.title_rank, TITLE_USER_GIVEN);
        let sub = &p.parts[1];
        assert_eq!(sub.info.session_id, "q1:agent-explore-1");
        assert_eq!(sub.info.parent_session_id.as_deref(), Some("q1"));
    }
}
