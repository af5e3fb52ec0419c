"""The contract of recall's core, implemented twice.

`recall._core` (Rust, built by maturin) and `recall._pycore` (pure Python)
expose exactly these names with exactly these semantics; `recall._accel`
picks one. Parity tests run every fixture through both.
"""

__all__ = ["__version__", "parse_transcript", "strip_reminders"]

from typing import Any

__version__: str

def strip_reminders(text: str) -> str:
    """Remove every `<system-reminder>…</system-reminder>` span and trim.

    Spans are matched non-greedily; an opening tag with no closing tag removes
    the rest of the text. The result is trimmed of the characters
    `str.strip()` removes. Each lone surrogate (half an emoji escaped in
    JSON) becomes U+FFFD first, since such text cannot be UTF-8.
    """

# --- transcript parsing (issue 3, part A) ------------------------------------

def parse_transcript(
    agent: str,
    data: bytes,
    base: int,
    state: dict[str, Any],
    origin: tuple[str, str | None, str | None, bool],
) -> tuple[
    list[
        tuple[
            str,
            str,
            str | None,
            str | None,
            int,
            str | None,
            str | None,
            dict[str, str],
            list[tuple[str, str, str, str | None]],
            bool,
            list[str],
        ]
    ],
    int,
    dict[str, Any],
    list[tuple[str, int]],
]:
    """Parse one agent's transcript bytes into plain records, resuming from `state`.

    `agent` is `claude`, `codex` or `gemini` (else ValueError). `data` is the
    file from byte `base` on; `state` is what the previous parse of the file
    returned (`{}` at offset 0). `origin` is what the path says:
    `(file_id, agent_id, parent, document)` — the id the file name gives,
    Claude's sub-agent id, the parent session the folders name, and whether
    the file is one JSON document (Gemini's legacy `.json`) rather than JSONL.

    Returns `(parts, offset, state, skipped)`: per session touched,
    `(session_id, agent, project, title, title_rank, parent_session_id,
    started_at, metadata, messages, replace, rewinds)` with messages as
    `(key, role, text, timestamp)`; the bytes consumed (to the end of the
    last complete line); the state for the next parse; and `(reason, count)`
    of skipped records in first-seen order. Keep/drop rules are FORMATS.md's,
    as `docs/mirror.md` lists them. Never raises on content: invalid UTF-8,
    broken JSON (including nesting deeper than 256), non-objects and
    unexpected shapes are counted and skipped. Lone surrogate escapes become
    U+FFFD.
    """
