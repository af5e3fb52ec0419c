//! Gemini CLI chats (twin: `recall/_twin/gemini.py`): JSONL records, `$set`, `$rewindTo`, legacy documents.
//!
//! The same message id re-appended replaces the earlier copy in place; a
//! rewind cuts the message list at an id; `$set.messages` checkpoints are
//! merged. The carried state (message order with kept flags, title, …) is
//! the twin's dict, key for key.

use crate::gemini_text::{model_text, user_text};
use crate::jsonlines::{for_each_object, with_object, Bad};
use crate::lazyjson::{Obj, Spec, Val, LEAF};
use crate::pystamp::stamp;
use crate::pytext::nonblank;
use crate::records::{
    carried_sid, opt_value, state_str, truthy, Message, Origin, Parsed, SessionInfo, SessionPart,
    State, ASSISTANT, SKIP_BAD_SHAPE, SKIP_UNKNOWN, TITLE_AGENT, USER,
};
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Split out in one pass: message parts and checkpoint message lists
/// (tool calls and their results stay raw, unread).
static RECORD: Spec = Spec {
    keys: &[
        ("content", &LEAF),
        ("displayContent", &LEAF),
        ("parts", &LEAF),
        ("messages", &RECORD),
        ("history", &RECORD),
        ("$set", &RECORD),
    ],
};

fn sval(v: Val<'_>) -> Option<String> {
    v.as_str().and_then(|s| nonblank(&s))
}

/// `rec.get(a, rec.get(b))`: the first key if present at all, else the second.
fn get_or<'a>(rec: &'a Obj<'_>, a: &str, b: &str) -> Val<'a> {
    rec.get(a).unwrap_or_else(|| rec.val(b))
}

struct Run<'o> {
    origin: &'o Origin,
    st: State,
    order: Vec<(String, bool)>,
    pos: HashMap<String, usize>,
    stored: HashSet<String>,
    pending: IndexMap<String, Message>,
    rewinds: Vec<String>,
    replace: bool,
    title_changed: bool,
}

impl<'o> Run<'o> {
    fn new(origin: &'o Origin, state: &State) -> Run<'o> {
        let mut st = state.clone();
        if !st.contains_key("meta") {
            st.insert("meta".into(), Value::Object(Map::new()));
        }
        let order: Vec<(String, bool)> = match st.get("order") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|e| match e.as_array().map(Vec::as_slice) {
                    Some([Value::String(k), kept]) => Some((k.clone(), truthy(Some(kept)))),
                    _ => None,
                })
                .collect(),
            _ => {
                st.insert("order".into(), Value::Array(Vec::new()));
                Vec::new()
            }
        };
        let pos = order
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        let stored = order
            .iter()
            .filter(|(_, kept)| *kept)
            .map(|(k, _)| k.clone())
            .collect();
        Run {
            origin,
            st,
            order,
            pos,
            stored,
            pending: IndexMap::new(),
            rewinds: Vec::new(),
            replace: false,
            title_changed: false,
        }
    }

    fn meta(&mut self) -> &mut Map<String, Value> {
        match self.st.get_mut("meta") {
            Some(Value::Object(m)) => m,
            _ => unreachable!("meta is an object from the start"),
        }
    }

    fn sid(&mut self) -> String {
        carried_sid(&mut self.st, &self.origin.file_id)
    }

    fn key(&mut self, msg_id: &str) -> String {
        format!("{}#{msg_id}", self.sid())
    }

    fn metadata(&mut self, rec: &Obj<'_>) {
        if let Some(sid) = sval(rec.val("sessionId")) {
            if !matches!(self.st.get("sid"), Some(Value::String(_))) {
                self.st.insert("sid".into(), Value::String(sid));
            }
        }
        let started = if truthy(self.st.get("started")) {
            self.st["started"].clone()
        } else {
            opt_value(stamp(get_or(rec, "startTime", "start_time")).as_deref())
        };
        self.st.insert("started".into(), started);
        if let Some(dirs) = rec.val("directories").as_arr() {
            if let Some(first) = dirs.first().and_then(|d| sval(*d)) {
                self.st.insert("project".into(), Value::String(first));
            }
        }
        for (key, field) in [("kind", "kind"), ("project_hash", "projectHash")] {
            if let Some(clean) = sval(rec.val(field)) {
                self.meta().insert(key.into(), Value::String(clean));
            }
        }
        if let Some(model) = rec.val("meta").as_obj().and_then(|m| sval(m.val("model"))) {
            self.meta().entry("model").or_insert(Value::String(model));
        }
        if let Some(summary) = sval(rec.val("summary")) {
            if state_str(&self.st, "title") != Some(summary.as_str()) {
                self.st.insert("title".into(), Value::String(summary));
                self.title_changed = true;
            }
        }
    }

    fn message(&mut self, rec: &Obj<'_>, fallback_key: String, legacy: bool, parsed: &mut Parsed) {
        let key = match sval(rec.val("id")) {
            Some(id) => self.key(&id),
            None => fallback_key,
        };
        let kind = get_or(rec, "type", "role");
        let role = match kind.as_str().as_deref() {
            Some("user") => Some(USER),
            Some("gemini" | "model") => Some(ASSISTANT),
            _ => None,
        };
        let mut text = String::new();
        if role == Some(USER) {
            text = user_text(rec, legacy);
        } else if role == Some(ASSISTANT) {
            if let Some(model) = sval(rec.val("model")) {
                self.meta().insert("model".into(), Value::String(model));
            }
            text = model_text(rec, legacy);
        } else if !kind.is_string() {
            parsed.skip(SKIP_BAD_SHAPE);
        } else if !["info", "error", "warning"].iter().any(|d| kind.is_str(d)) {
            parsed.skip(SKIP_UNKNOWN);
        }
        let timestamp = stamp(get_or(rec, "timestamp", "ts"));
        let kept = match role {
            Some(role) if !text.is_empty() => Some(Message {
                key: key.clone(),
                role,
                text,
                timestamp,
            }),
            _ => None,
        };
        match self.pos.get(&key) {
            None => {
                self.pos.insert(key.clone(), self.order.len());
                self.order.push((key.clone(), kept.is_some()));
            }
            Some(&i) if kept.is_some() => self.order[i].1 = true,
            Some(_) => {}
        }
        if let Some(msg) = kept {
            self.pending.insert(key, msg); // a re-appended id keeps its place
        }
    }

    fn rewind(&mut self, msg_id: &str) {
        let key = self.key(msg_id);
        let Some(&i) = self.pos.get(&key) else {
            if !self.replace {
                self.rewinds.push(key); // unknown here: the store may know it
            }
            return;
        };
        let removed: Vec<(String, bool)> = self.order.drain(i..).collect();
        let first_stored = removed
            .iter()
            .find(|(k, kept)| *kept && self.stored.contains(k))
            .map(|(k, _)| k.clone());
        for (k, _) in &removed {
            self.pos.remove(k);
            self.pending.shift_remove(k);
            self.stored.remove(k);
        }
        self.rewinds.extend(first_stored);
    }

    fn checkpoint(
        &mut self,
        records: Vec<Val<'_>>,
        off: usize,
        replace: bool,
        parsed: &mut Parsed,
    ) {
        if replace {
            self.replace = true;
            self.rewinds.clear();
            self.pending.clear();
            self.order.clear();
            self.pos.clear();
            self.stored.clear();
        }
        for (n, rec) in records.into_iter().enumerate() {
            match rec.as_obj() {
                Some(obj) => {
                    let fallback = format!("{}@{off}.{n}", self.sid());
                    self.message(&obj, fallback, replace, parsed);
                }
                None => parsed.skip(SKIP_BAD_SHAPE),
            }
        }
    }

    fn record(&mut self, off: usize, rec: &Obj<'_>, parsed: &mut Parsed) {
        if rec.has("$rewindTo") {
            match sval(rec.val("$rewindTo")) {
                Some(target) => self.rewind(&target),
                None => parsed.skip(SKIP_BAD_SHAPE),
            }
        } else if rec.has("$set") {
            let Some(patch) = rec.val("$set").as_obj() else {
                return parsed.skip(SKIP_BAD_SHAPE);
            };
            self.metadata(&patch);
            if let Some(records) = patch.val("messages").as_arr() {
                self.checkpoint(records, off, false, parsed);
            }
        } else if let Some(records) = rec.val("messages").as_arr() {
            self.metadata(rec); // a whole legacy record on one line
            self.checkpoint(records, off, false, parsed);
        } else if rec.has("id") || rec.has("type") {
            let fallback = format!("{}@{off}", self.sid());
            self.message(rec, fallback, false, parsed);
        } else if rec.has("sessionId") {
            self.metadata(rec);
        } else {
            parsed.skip(SKIP_UNKNOWN);
        }
    }

    fn document(&mut self, doc: &Obj<'_>, parsed: &mut Parsed) {
        self.metadata(doc);
        let records = doc.get("messages").unwrap_or_else(|| doc.val("history"));
        match records.as_arr() {
            // `/chat save` checkpoints hold API Content turns: {role, parts}
            Some(records) => self.checkpoint(records, 0, true, parsed),
            None => parsed.skip(SKIP_BAD_SHAPE),
        }
    }

    fn finish(mut self, parsed: &mut Parsed) {
        let order: Vec<Value> = self
            .order
            .iter()
            .map(|(k, kept)| Value::Array(vec![Value::String(k.clone()), Value::Bool(*kept)]))
            .collect();
        self.st.insert("order".into(), Value::Array(order));
        let messages: Vec<Message> = std::mem::take(&mut self.pending).into_values().collect();
        let touched = self.replace || !self.rewinds.is_empty() || self.title_changed;
        if messages.is_empty() && !(touched && truthy(self.st.get("emitted"))) {
            parsed.state = self.st;
            return; // nothing to say, and no empty session is created for it
        }
        self.st.insert("emitted".into(), Value::Bool(true));
        let sid = self.sid();
        let meta = self.meta().clone();
        let st = &self.st;
        let title = state_str(st, "title").map(String::from);
        let mut info = SessionInfo::new(sid, "gemini", self.origin.parent.clone());
        info.project = state_str(st, "project").map(String::from);
        info.title_rank = if title.is_some() { TITLE_AGENT } else { 0 };
        info.title = title;
        info.started_at = state_str(st, "started").map(String::from);
        info.metadata = meta
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string())))
            .collect();
        let (replace, rewinds) = (self.replace, std::mem::take(&mut self.rewinds));
        parsed.parts.push(SessionPart {
            info,
            messages,
            replace,
            rewinds,
        });
        parsed.state = self.st;
    }
}

/// Parse JSONL `data` (the file from byte `base` on) with the previous parse's state.
pub fn parse(origin: &Origin, data: &[u8], base: usize, state: &State) -> Parsed {
    let mut parsed = Parsed::default();
    let mut run = Run::new(origin, state);
    for_each_object(data, base, &RECORD, &mut parsed, |off, rec, parsed| {
        run.record(off, rec, parsed)
    });
    run.finish(&mut parsed);
    parsed
}

/// Parse a legacy whole-file `.json` chat (always from the start, no state).
pub fn parse_document(origin: &Origin, data: &[u8]) -> Parsed {
    let mut parsed = Parsed {
        offset: data.len(),
        ..Parsed::default()
    };
    let mut run = Run::new(origin, &State::new());
    let result = with_object(data, &RECORD, |doc| run.document(doc, &mut parsed));
    match result {
        Ok(()) => {}
        Err(Bad::NotObject) => parsed.skip(SKIP_BAD_SHAPE),
        Err(e) => parsed.skip(e.reason()),
    }
    run.finish(&mut parsed);
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin {
            file_id: "session-x".into(),
            ..Origin::default()
        }
    }

    #[test]
    fn rewind_of_a_stored_message_is_reported() {
        let first = b"{\"sessionId\":\"g\"}\n{\"id\":\"u1\",\"type\":\"user\",\"content\":\"one\"}\n{\"id\":\"u2\",\"type\":\"user\",\"content\":\"two\"}\n";
        let p1 = parse(&origin(), first, 0, &State::new());
        assert_eq!(p1.parts[0].messages.len(), 2);
        let second =
            b"{\"$rewindTo\":\"u2\"}\n{\"id\":\"u3\",\"type\":\"user\",\"content\":\"three\"}\n";
        let p2 = parse(&origin(), second, first.len(), &p1.state);
        assert_eq!(p2.parts[0].rewinds, vec!["g#u2".to_string()]);
        assert_eq!(p2.parts[0].messages[0].text, "three");
    }

    #[test]
    fn legacy_document_reads_parts_and_replaces() {
        let doc = br#"{"sessionId":"g","history":[{"role":"user","parts":[{"text":"hello"}]},{"role":"model","parts":[{"text":"hi","thought":false}]}]}"#;
        let p = parse_document(
            &Origin {
                document: true,
                ..origin()
            },
            doc,
        );
        let part = &p.parts[0];
        assert!(part.replace);
        let got: Vec<&str> = part.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(got, ["hello", "hi"]);
        assert_eq!(p.offset, doc.len());
    }

    #[test]
    fn info_and_tool_response_records_are_dropped() {
        let data = b"{\"id\":\"i1\",\"type\":\"info\",\"content\":\"x\"}\n{\"id\":\"t1\",\"type\":\"user\",\"content\":[{\"functionResponse\":{}}]}\n{\"id\":\"q\",\"type\":\"user\",\"content\":\"/help\"}\n";
        let p = parse(&origin(), data, 0, &State::new());
        assert!(p.parts.is_empty());
        assert!(p.skipped.is_empty());
    }
}
