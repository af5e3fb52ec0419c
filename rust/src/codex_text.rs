//! What of a Codex record is conversation (twin: `recall/_twin/codex_text.py`).
//!
//! User text that Codex injected (AGENTS.md, environment context, skills,
//! hook prompts, warnings) is recognised by its start, lowercased as Python
//! lowers it; message content is read as the twin reads it, including the
//! shapes on which the twin raises (and counts the record as malformed).

use crate::lazyjson::{Obj, Val};
use crate::pytext::{lower_starts_with_any, nonblank};
use crate::reminders::strip_reminders;
use std::borrow::Cow;
use thiserror::Error;

/// A content item whose `type` is a list or object: the twin's set lookup
/// raises TypeError there, and the whole record counts as malformed.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("a content item's type is a list or an object")]
pub struct UnhashableType;

pub const TEXT_ITEMS: [&str; 3] = ["input_text", "output_text", "text"];

/// Starts (lowercased) of user text Codex injected rather than the user typed.
const INJECTED: [&str; 18] = [
    "# agents.md instructions for",
    "<instructions>",
    "<user_instructions>",
    "<environment_context>",
    "<skill>",
    "<skills_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<hook_prompt",
    "<hook_context>",
    "<additional_context>",
    "<extension_context>",
    "<goal_context>",
    "<external_",
    "warning: apply_patch was requested via ",
    "warning: the maximum number of unified exec processes you can keep open is",
    "warning: your account was flagged for potentially high-risk cyber activity",
];

pub fn user_text(raw: &str) -> String {
    if lower_starts_with_any(raw, &INJECTED) {
        String::new()
    } else {
        strip_reminders(raw)
    }
}

/// `_str`: a string field stripped, None when absent, not a string or blank.
pub fn sval(v: Val<'_>) -> Option<String> {
    v.as_str().and_then(|s| nonblank(&s))
}

/// `kind in <hashable set>`: a list or object kind raises TypeError in the twin.
pub enum Kind<'a> {
    Str(Cow<'a, str>),
    Null,
    OtherScalar,
    Unhashable,
}

pub fn kind_of(v: Option<Val<'_>>) -> Kind<'_> {
    match v {
        None | Some(Val::Null) => Kind::Null,
        Some(v) if v.is_arr() || v.is_obj() => Kind::Unhashable,
        Some(v) => v.as_str().map_or(Kind::OtherScalar, Kind::Str),
    }
}

pub fn parent_of(payload: &Obj<'_>) -> Option<String> {
    let mut parent = sval(payload.val("parent_thread_id"));
    if parent.is_none() {
        if let Some(source) = payload.val("source").as_obj() {
            if let Some(sub) = source.val("subagent").as_obj() {
                for value in sub.values() {
                    if let Some(v) = value.as_obj() {
                        parent = parent.or_else(|| sval(v.val("parent_thread_id")));
                    }
                }
            }
        }
    }
    parent
}

/// The text items of a message payload: Ok(None) on a wrong shape, Err on the twin's TypeError.
pub fn message_texts(item: &Obj<'_>) -> Result<Option<Vec<String>>, UnhashableType> {
    let content = item.get("content").unwrap_or_else(|| item.val("message"));
    if let Some(s) = content.as_str() {
        return Ok(Some(vec![s.into_owned()]));
    }
    let Some(parts) = content.as_arr() else {
        return Ok(None);
    };
    let mut texts = Vec::new();
    for part in parts {
        if let Some(s) = part.as_str() {
            texts.push(s.into_owned());
        } else if let Some(p) = part.as_obj() {
            let hit = match kind_of(p.get("type")) {
                Kind::Unhashable => return Err(UnhashableType),
                Kind::Str(k) => TEXT_ITEMS.contains(&k.as_ref()),
                Kind::Null => !p.has("type"), // absent means "text"; null is no item
                Kind::OtherScalar => false,
            };
            if hit {
                texts.push(p.text("text").into_owned());
            }
        }
    }
    Ok(Some(texts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_context_is_not_user_text() {
        assert_eq!(user_text("  <ENVIRONMENT_CONTEXT><cwd>/w</cwd>"), "");
        assert_eq!(user_text("# AGENTS.md instructions for /w\n..."), "");
        assert_eq!(
            user_text("fix <system-reminder>x</system-reminder>it"),
            "fix it"
        );
    }

    #[test]
    fn content_shapes() {
        let item = Obj::parse(r#"{"content":[{"type":"input_text","text":"a"},{"text":"b"},{"type":null,"text":"c"},"d"]}"#).unwrap();
        assert_eq!(
            message_texts(&item),
            Ok(Some(vec!["a".into(), "b".into(), "d".into()]))
        );
        let bad = Obj::parse(r#"{"content":[{"type":[1],"text":"a"}]}"#).unwrap();
        assert_eq!(message_texts(&bad), Err(UnhashableType));
        let none = Obj::parse(r#"{"content":null,"message":"m"}"#).unwrap();
        assert_eq!(message_texts(&none), Ok(None));
    }

    #[test]
    fn parent_from_subagent_source() {
        let p =
            Obj::parse(r#"{"source":{"subagent":{"thread_spawn":{"parent_thread_id":" p1 "}}}}"#)
                .unwrap();
        assert_eq!(parent_of(&p).as_deref(), Some("p1"));
    }
}
