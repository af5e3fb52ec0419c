//! What of a Gemini message record is conversation (twin: `recall/_twin/gemini_text.py`).
//!
//! User records prefer `displayContent` (the typed text) over `content`
//! (which carries @-file expansions and a trailing `<hook_context>` part);
//! tool responses, slash commands and injected preambles are not turns.

use crate::lazyjson::{Obj, Val};
use crate::pytext::{is_py_space, lstrip, strip};
use crate::reminders::strip_reminders;

const IGNORED_USER_PREFIXES: [&str; 4] = ["/", "?", "<session_context>", "<hook_context>"];
const REF_HEADER: &str = "--- Content from referenced files ---";
const HOOK_OPEN: &str = "<hook_context>";
const HOOK_CLOSE: &str = "</hook_context>";

/// A PartListUnion (string, one part, or a list of either) as a list.
fn parts<'a>(content: Val<'a>) -> Vec<Val<'a>> {
    match content {
        Val::Null => Vec::new(),
        Val::Arr(_) | Val::List(_) => content.as_arr().unwrap_or_default(),
        other => vec![other],
    }
}

fn part_texts(parts: &[Val<'_>]) -> Vec<String> {
    let mut texts = Vec::new();
    for part in parts {
        if let Some(s) = part.as_str() {
            texts.push(s.into_owned());
        } else if let Some(p) = part.as_obj() {
            if !p.val("thought").truthy() && p.has("text") {
                texts.push(p.text("text").into_owned());
            }
        }
    }
    texts
}

/// `record["content"]`, or `parts` for a `/chat save` turn in a legacy document.
fn content<'a>(rec: &'a Obj<'_>, legacy: bool) -> Val<'a> {
    if legacy && !rec.has("content") && rec.has("parts") {
        return rec.val("parts");
    }
    rec.val("content")
}

fn only_tool_responses(parts: &[Val<'_>]) -> bool {
    !parts.is_empty()
        && parts
            .iter()
            .all(|p| p.as_obj().is_some_and(|o| o.has("functionResponse")))
}

/// `re.sub(r"\s*<hook_context>.*?</hook_context>\s*$", "", text, flags=DOTALL)`.
fn drop_hook_tail(text: &str) -> &str {
    let (Some(open), Some(close)) = (text.find(HOOK_OPEN), text.rfind(HOOK_CLOSE)) else {
        return text;
    };
    let tail_blank = text[close + HOOK_CLOSE.len()..].chars().all(is_py_space);
    if close < open + HOOK_OPEN.len() || !tail_blank {
        return text;
    }
    text[..open].trim_end_matches(is_py_space)
}

/// The typed text of a user record, or "" when it is not a human turn.
pub fn user_text(rec: &Obj<'_>, legacy: bool) -> String {
    let content = parts(content(rec, legacy));
    if only_tool_responses(&content) {
        return String::new();
    }
    let display = parts(rec.val("displayContent"));
    let shown = part_texts(&display);
    let texts = if shown.is_empty() {
        part_texts(&content)
    } else {
        shown
    };
    let joined: String = texts
        .iter()
        .filter(|t| !lstrip(t).starts_with(HOOK_OPEN))
        .map(String::as_str)
        .collect();
    let typed = joined.split(REF_HEADER).next().unwrap_or("");
    let text = strip_reminders(drop_hook_tail(typed));
    if IGNORED_USER_PREFIXES.iter().any(|p| text.starts_with(p)) {
        return String::new();
    }
    text
}

/// The visible text of a model record (thoughts left out).
pub fn model_text(rec: &Obj<'_>, legacy: bool) -> String {
    let texts = part_texts(&parts(content(rec, legacy)));
    strip(&texts.concat()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(json: &str) -> String {
        user_text(&Obj::parse(json).unwrap(), false)
    }

    #[test]
    fn display_content_wins_and_hook_tail_goes() {
        assert_eq!(
            user(r#"{"content":[{"text":"x"}],"displayContent":"typed"}"#),
            "typed"
        );
        assert_eq!(
            user(
                r#"{"content":[{"text":"ask\n<hook_context>a</hook_context> b </hook_context>\n"}]}"#
            ),
            "ask"
        );
        assert_eq!(
            user(r#"{"content":"q <hook_context>a</hook_context> tail"}"#),
            "q <hook_context>a</hook_context> tail"
        );
    }

    #[test]
    fn not_turns() {
        assert_eq!(user(r#"{"content":[{"functionResponse":{}}]}"#), "");
        assert_eq!(user(r#"{"content":"/help"}"#), "");
        assert_eq!(
            user(r#"{"content":"a\n--- Content from referenced files ---\nfile"}"#),
            "a"
        );
    }
}
