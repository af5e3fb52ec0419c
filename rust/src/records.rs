//! What a parse takes and returns: [`Origin`], [`Parsed`] and the carried [`State`] (twin: `recall/_twin/records.py`).
//!
//! Every parser and `transcript.rs` build on these shapes, so the parsers
//! never import the entry point that calls them. [`Parsed`] holds, field for
//! field, what `recall.types.Parsed` holds; `py.rs` turns it into the plain
//! tuples both cores return, and `recall.agents.transcript` into the msgspec
//! Structs. The resumable state is a JSON object, as the store keeps it. The
//! skip reasons, roles and agent title ranks are the constants of
//! `recall.jsonlines` and `recall.types` the parsers need.
//! The state's small rules every parser applies ([`carried_sid`],
//! [`claim_sid`], [`set_once`], [`state_meta`], [`string_metadata`]) live
//! beside it.

use indexmap::IndexMap;
use serde_json::{Map, Value};

pub const SKIP_BROKEN: &str = "broken JSON";
pub const SKIP_NOT_OBJECT: &str = "not an object";
pub const SKIP_BAD_UTF8: &str = "invalid UTF-8";
pub const SKIP_UNKNOWN: &str = "unknown record type";
pub const SKIP_BAD_SHAPE: &str = "unexpected shape";

pub const USER: &str = "user";
pub const ASSISTANT: &str = "assistant";

/// The agent's own title: Claude `ai-title`, Codex thread name, Gemini summary.
pub const TITLE_AGENT: i64 = 3;
/// A title the user chose (Claude `custom-title`, from /rename).
pub const TITLE_USER_GIVEN: i64 = 4;

/// What a transcript's path says about it.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// The id the file name gives (session id fallback; Claude's stem).
    pub file_id: String,
    /// Claude: the sub-agent id of an `agent-<id>.jsonl` file.
    pub agent_id: Option<String>,
    /// Claude 2.1.x: the parent session from `<parent>/subagents/`; Gemini:
    /// the parent of a `chats/<parent>/<id>.jsonl` sub-agent chat.
    pub parent: Option<String>,
    /// A whole-file JSON document (Gemini's legacy `.json`), not JSONL.
    pub document: bool,
}

/// The state an adapter carries from one parse of a file to the next.
pub type State = Map<String, Value>;

/// The session id a parse carries in its state (`"sid"`), set from the file's
/// own id the first time; later parses of the file keep whatever the records said.
pub fn carried_sid(st: &mut State, file_id: &str) -> String {
    if let Some(Value::String(s)) = st.get("sid") {
        return s.clone();
    }
    st.insert("sid".into(), Value::String(file_id.to_owned()));
    file_id.to_owned()
}

#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub key: String,
    pub role: &'static str,
    pub text: String,
    pub timestamp: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    pub session_id: String,
    pub agent: &'static str,
    pub project: Option<String>,
    pub title: Option<String>,
    pub title_rank: i64,
    pub parent_session_id: Option<String>,
    pub started_at: Option<String>,
    /// Insertion-ordered, like the Python dict.
    pub metadata: IndexMap<String, String>,
}

impl SessionInfo {
    pub fn new(session_id: String, agent: &'static str, parent: Option<String>) -> SessionInfo {
        SessionInfo {
            session_id,
            agent,
            project: None,
            title: None,
            title_rank: 0,
            parent_session_id: parent,
            started_at: None,
            metadata: IndexMap::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionPart {
    pub info: SessionInfo,
    pub messages: Vec<Message>,
    pub replace: bool,
    pub rewinds: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub parts: Vec<SessionPart>,
    /// Bytes of the input consumed (to the end of the last complete line).
    pub offset: usize,
    pub state: State,
    /// Skipped records by reason, in first-seen order.
    pub skipped: Vec<(&'static str, i64)>,
    /// Claude `summary` lines as `(leafUuid, text)`: they title whichever
    /// session holds the leaf message, which the store matches.
    pub summaries: Vec<(String, String)>,
}

impl Parsed {
    pub fn skip(&mut self, reason: &'static str) {
        match self.skipped.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((reason, 1)),
        }
    }
}

/// The state's `meta` object (the metadata the records named so far), made an
/// empty object first when it is missing or not one: every line-based parser
/// keeps its session's metadata there between parses.
pub fn state_meta(st: &mut State) -> &mut Map<String, Value> {
    if !matches!(st.get("meta"), Some(Value::Object(_))) {
        st.insert("meta".into(), Value::Object(Map::new()));
    }
    match st.get_mut("meta") {
        Some(Value::Object(m)) => m,
        _ => unreachable!("meta was just made an object"),
    }
}

/// Take the session id a record names (`id`) unless the state carries one
/// already: the first record to name it wins, over the file's own id too.
pub fn claim_sid(st: &mut State, id: Option<String>) {
    if let Some(id) = id {
        if !matches!(st.get("sid"), Some(Value::String(_))) {
            st.insert("sid".into(), Value::String(id));
        }
    }
}

/// Set `key` to `value` unless the state holds a truthy value there already:
/// the first record that names it wins.
pub fn set_once(st: &mut State, key: &str, value: Option<String>) {
    if let (false, Some(v)) = (truthy(st.get(key)), value) {
        st.insert(key.into(), Value::String(v));
    }
}

/// A session's metadata from a `meta` object: its string values, in order.
pub fn string_metadata(meta: &Map<String, Value>) -> IndexMap<String, String> {
    meta.iter()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
        .collect()
}

/// `st.get(key)` as a non-empty string, Python-truthiness style.
pub fn state_str<'s>(st: &'s State, key: &str) -> Option<&'s str> {
    match st.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// An optional string as a JSON value (None becomes null).
pub fn opt_value(v: Option<&str>) -> Value {
    v.map_or(Value::Null, |s| Value::String(s.to_string()))
}

/// Python truthiness of a state value.
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}
