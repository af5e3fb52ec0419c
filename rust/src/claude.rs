//! Claude Code transcripts (twin: `recall/_twin/claude.py`): one file, one session plus sub-agents.
//!
//! Keeps `text` blocks of user/assistant lines that are neither `isMeta` nor
//! `isCompactSummary`, queued prompts from `queued_command` attachments, and
//! titles; which session a line belongs to follows the same settling rules,
//! with the same carried state, as the twin.

use crate::claude_text::{clean_user_text, text_pieces};
use crate::jsonlines::for_each_object;
use crate::lazyjson::{Obj, Spec, LEAF};
use crate::pytext::strip;
use crate::records::{
    Message, Origin, Parsed, SessionInfo, SessionPart, State, ASSISTANT, SKIP_BAD_SHAPE,
    SKIP_UNKNOWN, TITLE_AGENT, TITLE_USER_GIVEN, USER,
};
use indexmap::{IndexMap, IndexSet};
use serde_json::Value;

/// Split out in the line's one pass: the blocks of `message.content` and a
/// queued prompt; tool inputs and results inside them stay raw, unread.
static LINE: Spec = Spec {
    keys: &[("message", &MESSAGE), ("attachment", &ATTACHMENT)],
};
static MESSAGE: Spec = Spec {
    keys: &[("content", &LEAF)],
};
static ATTACHMENT: Spec = Spec {
    keys: &[("prompt", &LEAF)],
};

const SYNTHETIC_MODEL: &str = "<synthetic>";

const IGNORED: [&str; 20] = [
    "system",
    "attachment",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "last-prompt",
    "agent-name",
    "agent-setting",
    "permission-mode",
    "mode",
    "pr-link",
    "bridge-session",
    "worktree-state",
    "frame-link",
    "started",
    "result",
    "relocated",
    "atis-latch",
    "tool_use",
    "tool_result",
]; // fmt: skip

fn title_field(kind: &str) -> Option<(&'static str, i64)> {
    match kind {
        "custom-title" => Some(("customTitle", TITLE_USER_GIVEN)),
        "ai-title" => Some(("aiTitle", TITLE_AGENT)),
        _ => None,
    }
}

struct Session {
    info: SessionInfo,
    messages: IndexMap<String, Message>,
}

impl Session {
    fn title(&mut self, text: &str, rank: i64) {
        if !text.is_empty() && rank >= self.info.title_rank {
            self.info.title = Some(text.to_string());
            self.info.title_rank = rank;
        }
    }
}

struct Reader<'o> {
    stem: &'o str,
    agent_id: Option<&'o str>,
    sessions: IndexMap<String, Session>,
    sid: Option<String>,
    decided: bool,
    pending: Option<(String, i64)>,
    projected: IndexSet<String>,
}

impl<'o> Reader<'o> {
    fn new(origin: &'o Origin, st: &State) -> Reader<'o> {
        let sid = match st.get("sid") {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        let pending = match st.get("pending") {
            Some(Value::Array(a)) if a.len() == 2 => match (&a[0], &a[1]) {
                (Value::String(t), Value::Number(n)) if n.is_i64() => {
                    Some((t.clone(), n.as_i64().unwrap_or(0)))
                }
                _ => None,
            },
            _ => None,
        };
        let projected = match st.get("proj") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            _ => IndexSet::new(),
        };
        let mut r = Reader {
            stem: &origin.file_id,
            agent_id: origin.agent_id.as_deref(),
            sessions: IndexMap::new(),
            sid,
            decided: st.get("decided") == Some(&Value::Bool(true)),
            pending,
            projected,
        };
        if let Some(parent) = &origin.parent {
            r.sid = Some(parent.clone());
            r.decided = true;
        }
        r
    }

    fn state(&self) -> State {
        let mut proj: Vec<&String> = self.projected.iter().collect();
        proj.sort();
        let mut st = State::new();
        st.insert(
            "sid".into(),
            self.sid.clone().map_or(Value::Null, Value::String),
        );
        st.insert("decided".into(), Value::Bool(self.decided));
        let pending = self.pending.as_ref().map_or(Value::Null, |(t, r)| {
            Value::Array(vec![Value::String(t.clone()), Value::from(*r)])
        });
        st.insert("pending".into(), pending);
        st.insert(
            "proj".into(),
            proj.into_iter().map(|s| Value::String(s.clone())).collect(),
        );
        st
    }

    fn decide(&mut self, obj: &Obj<'_>) {
        let sid = obj.text("sessionId");
        let own_stem = self.agent_id.is_some() && sid == self.stem;
        if !sid.is_empty() && !own_stem {
            self.sid = Some(sid.into_owned());
            self.settle();
        }
    }

    fn settle(&mut self) {
        self.decided = true;
        if let Some((text, rank)) = self.pending.take() {
            let own = self.own();
            self.sessions[&own].title(&text, rank);
        }
    }

    fn session(&mut self, id: String, parent: Option<String>) -> String {
        if !self.sessions.contains_key(&id) {
            let info = SessionInfo::new(id.clone(), "claude", parent);
            let messages = IndexMap::new();
            self.sessions.insert(id.clone(), Session { info, messages });
        }
        id
    }

    fn own(&mut self) -> String {
        match (self.agent_id, &self.sid) {
            (None, sid) => {
                let id = sid.clone().unwrap_or_else(|| self.stem.to_string());
                self.session(id, None)
            }
            (Some(_), None) => self.session(self.stem.to_string(), None),
            (Some(agent), Some(sid)) => {
                let (id, parent) = (format!("{sid}:agent-{agent}"), sid.clone());
                self.session(id, Some(parent))
            }
        }
    }

    fn session_of(&mut self, obj: &Obj<'_>) -> String {
        if !self.decided {
            self.settle();
        }
        if self.agent_id.is_none() && obj.is_true("isSidechain") {
            let parent = self.sid.clone().unwrap_or_else(|| self.stem.to_string());
            let agent = obj.text("agentId");
            let child = if agent.is_empty() {
                format!("{parent}:sidechain")
            } else {
                format!("{parent}:agent-{agent}")
            };
            return self.session(child, Some(parent));
        }
        self.own()
    }

    fn line(&mut self, offset: usize, obj: &Obj<'_>, parsed: &mut Parsed) {
        let Some(kind) = obj.val("type").as_str() else {
            return parsed.skip(SKIP_BAD_SHAPE);
        };
        if !self.decided {
            self.decide(obj);
        }
        if kind == USER || kind == ASSISTANT {
            self.turn(
                offset,
                if kind == USER { USER } else { ASSISTANT },
                obj,
                parsed,
            );
        } else if kind == "attachment" {
            self.queued(offset, obj);
        } else if kind == "summary" {
            summary(obj, parsed);
        } else if let Some((field, rank)) = title_field(&kind) {
            let raw = obj.text(field);
            let text = strip(&raw);
            if text.is_empty() {
                return;
            }
            if self.decided {
                let own = self.own();
                self.sessions[&own].title(text, rank);
            } else if self.pending.as_ref().is_none_or(|(_, r)| rank >= *r) {
                self.pending = Some((text.to_string(), rank));
            }
        } else if !IGNORED.contains(&kind.as_ref()) {
            parsed.skip(SKIP_UNKNOWN);
        }
    }

    fn turn(&mut self, offset: usize, role: &'static str, obj: &Obj<'_>, parsed: &mut Parsed) {
        if obj.is_true("isMeta") || obj.is_true("isCompactSummary") {
            return;
        }
        let message = obj.val("message").as_obj();
        let pieces = message.as_ref().and_then(|m| text_pieces(m.val("content")));
        let (Some(message), Some(pieces)) = (message, pieces) else {
            return parsed.skip(SKIP_BAD_SHAPE);
        };
        let session = self.session_of(obj);
        let model = message.text("model");
        self.note(&session, obj, &model, role);
        let texts: Vec<String> = if role == ASSISTANT {
            if model == SYNTHETIC_MODEL || obj.is_true("isApiErrorMessage") {
                return;
            }
            pieces.iter().map(|p| strip(p).to_string()).collect()
        } else {
            pieces.iter().map(|p| clean_user_text(p)).collect()
        };
        self.add(&session, offset, role, obj, &texts);
    }

    fn queued(&mut self, offset: usize, obj: &Obj<'_>) {
        let Some(att) = obj.val("attachment").as_obj() else {
            return;
        };
        if !att.val("type").is_str("queued_command") {
            return;
        }
        let mode = att.val("commandMode");
        if att.is_true("isMeta") || !(mode.is_null() || mode.is_str("prompt")) {
            return;
        }
        let pieces = text_pieces(att.val("prompt")).unwrap_or_default();
        let texts: Vec<String> = pieces.iter().map(|p| clean_user_text(p)).collect();
        let session = self.session_of(obj);
        self.add(&session, offset, USER, obj, &texts);
    }

    fn add(
        &mut self,
        sid: &str,
        offset: usize,
        role: &'static str,
        obj: &Obj<'_>,
        texts: &[String],
    ) {
        let text = texts
            .iter()
            .filter(|t| !t.is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n\n");
        if text.is_empty() {
            return;
        }
        let uuid = obj.text("uuid");
        let key = if uuid.is_empty() {
            format!("{sid}@{offset}")
        } else {
            uuid.into_owned()
        };
        let stamp = obj.text("timestamp");
        let timestamp = (!stamp.is_empty()).then(|| stamp.into_owned());
        let msg = Message {
            key: key.clone(),
            role,
            text,
            timestamp,
        };
        self.sessions[sid].messages.insert(key, msg);
    }

    fn note(&mut self, sid: &str, obj: &Obj<'_>, model: &str, role: &str) {
        let cwd = obj.text("cwd");
        let first_cwd = !cwd.is_empty() && !self.projected.contains(sid);
        if first_cwd {
            // The first cwd: later ones follow the agent's `cd`s inside the project.
            self.projected.insert(sid.to_string());
        }
        let info = &mut self.sessions[sid].info;
        if first_cwd {
            info.project = Some(cwd.into_owned());
        }
        for (field, name) in [
            ("gitBranch", "git_branch"),
            ("version", "agent_version"),
            ("entrypoint", "entrypoint"),
        ] {
            set_meta(&mut info.metadata, name, &obj.text(field));
        }
        if model != SYNTHETIC_MODEL && role == ASSISTANT {
            set_meta(&mut info.metadata, "model", model);
        }
    }
}

/// A `summary` line titles the session holding its leaf message, which may be
/// in another file: it is reported as `(leaf, text)` for the store to match.
fn summary(obj: &Obj<'_>, parsed: &mut Parsed) {
    let leaf = obj.text("leafUuid");
    let raw = obj.text("summary");
    let text = strip(&raw);
    if !leaf.is_empty() && !text.is_empty() {
        parsed.summaries.push((leaf.into_owned(), text.to_string()));
    }
}

/// `metadata[name] = value` for a non-empty value; most lines repeat what is
/// there, so nothing is allocated then.
fn set_meta(metadata: &mut IndexMap<String, String>, name: &str, value: &str) {
    if !value.is_empty() && metadata.get(name).map(String::as_str) != Some(value) {
        metadata.insert(name.to_string(), value.to_string());
    }
}

/// Parse `data` (the file from byte `base` on) with the state of the previous parse.
pub fn parse(origin: &Origin, data: &[u8], base: usize, state: &State) -> Parsed {
    let mut parsed = Parsed::default();
    let mut reader = Reader::new(origin, state);
    for_each_object(data, base, &LINE, &mut parsed, |off, obj, parsed| {
        reader.line(off, obj, parsed)
    });
    parsed.state = reader.state();
    parsed.parts = reader
        .sessions
        .into_values()
        .map(|s| SessionPart {
            info: s.info,
            messages: s.messages.into_values().collect(),
            replace: false,
            rewinds: Vec::new(),
        })
        .collect();
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(stem: &str, agent: Option<&str>, parent: Option<&str>) -> Origin {
        Origin {
            file_id: stem.into(),
            agent_id: agent.map(String::from),
            parent: parent.map(String::from),
            document: false,
        }
    }

    #[test]
    fn summary_lines_are_reported_not_titles() {
        let data = b"{\"type\":\"summary\",\"summary\":\" Auth \",\"leafUuid\":\"L\"}\n{\"type\":\"summary\",\"summary\":\"no leaf\"}\n{\"type\":\"user\",\"sessionId\":\"s1\",\"uuid\":\"u1\",\"message\":{\"content\":\"hi\"}}\n";
        let p = parse(&origin("f", None, None), data, 0, &State::new());
        assert_eq!(p.summaries, vec![("L".to_string(), "Auth".to_string())]);
        assert_eq!(p.parts[0].info.title, None);
    }

    #[test]
    fn title_before_session_id_waits_and_survives_a_split() {
        let data = b"{\"type\":\"ai-title\",\"aiTitle\":\"Auth work\"}\n{\"type\":\"user\",\"sessionId\":\"s1\",\"uuid\":\"u1\",\"message\":{\"content\":\"hi\"}}\n";
        let whole = parse(&origin("f", None, None), data, 0, &State::new());
        assert_eq!(whole.parts[0].info.session_id, "s1");
        assert_eq!(whole.parts[0].info.title.as_deref(), Some("Auth work"));
        let cut = data.iter().position(|&b| b == b'\n').unwrap() + 1;
        let first = parse(&origin("f", None, None), &data[..cut], 0, &State::new());
        assert!(first.parts.is_empty());
        let rest = parse(&origin("f", None, None), &data[cut..], cut, &first.state);
        assert_eq!(rest.parts[0].info.title.as_deref(), Some("Auth work"));
    }

    #[test]
    fn sidechains_and_subagent_files_become_child_sessions() {
        let inline = b"{\"type\":\"user\",\"sessionId\":\"s1\",\"isSidechain\":true,\"agentId\":\"a7\",\"message\":{\"content\":\"task\"}}\n";
        let p = parse(&origin("s1", None, None), inline, 0, &State::new());
        assert_eq!(p.parts[0].info.session_id, "s1:agent-a7");
        assert_eq!(p.parts[0].info.parent_session_id.as_deref(), Some("s1"));
        let file = b"{\"type\":\"assistant\",\"sessionId\":\"agent-a7\",\"message\":{\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n";
        let p = parse(
            &origin("agent-a7", Some("a7"), Some("s1")),
            file,
            0,
            &State::new(),
        );
        assert_eq!(p.parts[0].info.session_id, "s1:agent-a7");
        assert_eq!(p.parts[0].messages[0].key, "s1:agent-a7@0");
        assert_eq!(
            p.parts[0].info.metadata.get("model").map(String::as_str),
            Some("m")
        );
    }

    #[test]
    fn meta_synthetic_and_tool_only_lines_are_not_turns() {
        let data = b"{\"type\":\"user\",\"isMeta\":true,\"message\":{\"content\":\"caveat\"}}\n{\"type\":\"assistant\",\"message\":{\"model\":\"<synthetic>\",\"content\":\"No response requested.\"}}\n{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":\"out\"}]}}\n{\"type\":\"brand-new\"}\n";
        let p = parse(&origin("f", None, None), data, 0, &State::new());
        assert!(p.parts.iter().all(|s| s.messages.is_empty()));
        assert_eq!(p.skipped, vec![(SKIP_UNKNOWN, 1)]);
    }
}
