//! `<system-reminder>` stripping: the spans agents inject into user text (twin: `recall/_twin/reminders.py`).
//!
//! Contract (shared with `python/recall/_twin/reminders.py`): every
//! `<system-reminder>…</system-reminder>` span is removed, non-greedily; an
//! opening tag with no closing tag removes everything after it (a transcript
//! cut mid-reminder is still a reminder); the result is trimmed of the
//! characters Python's `str.strip()` removes.

use crate::pytext::is_py_space;

const OPEN: &str = "<system-reminder>";
const CLOSE: &str = "</system-reminder>";

/// Remove reminder spans from `text` and trim the result.
pub fn strip_reminders(text: &str) -> String {
    if !text.contains(OPEN) {
        return text.trim_matches(is_py_space).to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after_open = &rest[start + OPEN.len()..];
        match after_open.find(CLOSE) {
            Some(end) => rest = &after_open[end + CLOSE.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out.trim_matches(is_py_space).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_spans_and_trims() {
        let t = "<system-reminder>x\ny</system-reminder>\nhello <system-reminder>z</system-reminder>world\n";
        assert_eq!(strip_reminders(t), "hello world");
    }

    #[test]
    fn unterminated_reminder_runs_to_end() {
        assert_eq!(strip_reminders("ask <system-reminder>never closed"), "ask");
    }

    #[test]
    fn plain_text_is_trimmed_only() {
        assert_eq!(strip_reminders("\u{3000} 日本語 \x1f"), "日本語");
    }

    #[test]
    fn only_reminder_gives_empty() {
        assert_eq!(strip_reminders("<system-reminder>a</system-reminder>"), "");
    }

    #[test]
    fn stray_close_tag_is_kept() {
        assert_eq!(
            strip_reminders("a </system-reminder> b"),
            "a </system-reminder> b"
        );
    }
}
