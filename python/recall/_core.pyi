"""The contract of recall's core, implemented twice.

`recall._core` (Rust, built by maturin) and the twin in `recall._twin` (pure Python)
expose exactly these names with exactly these semantics; `recall._accel`
picks one. Parity tests run every fixture through both.
"""

__all__ = ["__version__", "parse_transcript", "redact", "secret_spans", "strip_reminders"]

from typing import Any

__version__: str

def strip_reminders(text: str) -> str:
    """Remove every `<system-reminder>…</system-reminder>` span and trim.

    Spans are matched non-greedily; an opening tag with no closing tag removes
    the rest of the text. The result is trimmed of the characters
    `str.strip()` removes. Each lone surrogate (half an emoji escaped in
    JSON) becomes U+FFFD first, since such text cannot be UTF-8.
    """

# Ranking where result lists meet (rust/src/{tokenize,bm25,dedup}.rs, _twin/rank.py).

__all__ += ["bm25_scores", "dedup", "tokenize"]

def tokenize(text: str) -> list[str]:
    """Lowercase `text` and split it into words: the words BM25 and dedup see.

    The rule uses its own tables (`SEPARATORS`, `CJK`, `LOWER` in
    `rust/src/tokenize.rs`, copied in `_twin/rank.py`), never the Unicode
    properties of Rust or Python, so both cores split alike on all of Unicode
    whatever Unicode version each was built with:

    1. Each lone surrogate becomes U+FFFD (a surrogate pair becomes its char).
    2. Each char is lowercased by `LOWER`: Unicode 14.0's simple (one char to
       one char) lowercase mapping, plus U+0130 İ to `i`. No context: final Σ
       becomes σ, not ς. Letters cased only in later Unicode versions, and
       fullwidth or other compatibility forms, are left as they are; no
       normalisation (NFC/NFKC) is applied.
    3. The lowered text is split. Separators end a word and are dropped:
       ASCII other than `[0-9A-Za-z_]`; every char `str.isspace()` accepts;
       U+0080–00A9, 00AB–00B1, 00B4, 00B6–00B8, 00BB, 00BF, 00D7, 00F7 (C1
       controls, Latin-1 punctuation, soft hyphen); the punctuation of Greek,
       Armenian, Hebrew, Arabic, Devanagari, Thai, Myanmar, Georgian,
       Ethiopic, Canadian syllabics and Mongolian (037E, 0387, 055A–055F,
       0589–058A, 05BE, 05C0, 05C3, 05C6, 05F3–05F4, 0609–060D, 061B–061F,
       066A–066D, 06D4, 0964–0965, 0E4F, 0E5A–0E5B, 104A–104F, 10FB,
       1360–1368, 166D–166E, 1680, 1800–180A); 2000–206F (spaces,
       zero-width chars and joiners, dashes, quotes, bidi controls); 20A0–20CF
       (currency); 2190–245F and 2500–2BFF (arrows, maths, technical, box
       drawing, shapes, dingbats); 2E00–2E7F; the CJK punctuation 3000–3004,
       3008–3020, 3030, 303D–303F, 30A0, 30FB; FD3E–FD3F; FE00–FE1F and
       FE30–FE6F (variation selectors, vertical and small forms); FEFF; the
       fullwidth punctuation FF01–FF0F, FF1A–FF20, FF3B–FF3E, FF40,
       FF5B–FF65; FFE0–FFFF (incl. U+FFFD); 1F000–1FBFF (emoji, pictographs,
       playing cards, regional indicators, skin tones); E0000–E007F (tags);
       E0100–E01EF (variation selectors). CJK chars are each a word of their
       own, since Chinese and Japanese put no spaces between words (Korean
       syllables too, so a particle-suffixed word still shares chars with its
       stem): 1100–11FF, 2E80–2FDF, 3005–3007, 3021–3029, 3031–3035,
       3038–303C, 3041–309F, 30A1–30FA, 30FC–30FF, 3105–4DBF, 4E00–9FFF,
       A960–A97F, AC00–D7FF, F900–FAFF, FF66–FFDC, 1AFF0–1B16F,
       20000–3FFFF. Every other char (letters, digits, combining marks, other
       scripts' letters, private use) extends the current word.

    So `"Fix PAY-1234 in 日本語🚀"` gives `["fix", "pay", "1234", "in", "日",
    "本", "語"]`. Thai, Lao, Khmer and Myanmar, which also have no spaces, are
    split only at separators.
    """

def bm25_scores(query: str, docs: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Okapi BM25 of each of `docs` against `query`, the docs being the collection.

    For re-scoring candidates from different indexes (computers, memories,
    files) whose own FTS5 scores cannot be compared. Words come from
    `tokenize`; each distinct query word counts once, however often the
    query repeats it. With N = len(docs), n(t) the number of docs containing
    t, |D| a doc's word count and avgdl the mean |D|, a doc scores the sum
    over the distinct query words it contains of
    `idf(t) * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * |D| / avgdl)))`,
    where `idf(t) = log1p((N - n + 0.5) / (n + 0.5))`, never negative. Docs
    without any query word score 0.0, as do all docs when none has a word.
    Both cores evaluate this in f64 in the same order: the scores are
    bit-identical.

    Raises:
        ValueError: `k1` is negative or not finite, or `b` is outside [0, 1].
    """

def dedup(texts: list[str], threshold: float = 0.8) -> list[int]:
    """Indices of the `texts` to keep, ascending: near-duplicates removed.

    Texts are taken in order; one is dropped when the Jaccard similarity
    `|A ∩ B| / |A ∪ B|` of its word set A (from `tokenize`) with the word set
    B of any text already kept is `>= threshold`. Two empty sets have
    similarity 1 (so of several texts without words only the first is kept);
    an empty and a non-empty set have 0.

    Raises:
        ValueError: `threshold` is outside [0, 1] or NaN.
    """

# --- secret redaction ---

def redact(text: str) -> str:
    """Replace every secret the built-in rules find with `[REDACTED:label]`.

    The rules are `recall/redact_rules.txt`: each rule whose keywords occur
    in the text runs over it; a match whose secret (its first capture group
    that took part, else the whole match) passes the rule's checks is a span;
    overlapping spans merge, labelled by the earliest (then the rule listed
    first). Lone surrogates become U+FFFD first.
    """

def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Every accepted match as `(start, end, label)`, in character offsets.

    Ordered by start, then by the rule's place in the table; not merged, so
    a caller can drop some (an allow-list) before merging the rest.
    """

# --- transcript parsing ---

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
    list[tuple[str, str]],
]:
    """Parse one agent's transcript bytes into plain records, resuming from `state`.

    `agent` is `claude`, `codex`, `gemini`, `copilot`, `cursor`, `pi`,
    `openclaw`, `qwen` or `antigravity` (else ValueError). `data` is the
    file from byte `base` on; `state` is what the previous parse of the file
    returned (`{}` at offset 0); for Pi, OpenClaw and Qwen it comes back
    with `"reread": true` when the conversation's branch moved to entries
    before `base` (the caller reads the file again from the start). `origin` is what the path says:
    `(file_id, agent_id, parent, document)` — the id the file name gives,
    Claude's sub-agent id, the parent session the folders name, and whether
    the file is one JSON document (Gemini's legacy `.json`) rather than JSONL.

    Returns `(parts, offset, state, skipped, summaries)`: per session touched,
    `(session_id, agent, project, title, title_rank, parent_session_id,
    started_at, metadata, messages, replace, rewinds)` with messages as
    `(key, role, text, timestamp)`; the bytes consumed (to the end of the
    last complete line); the state for the next parse; `(reason, count)` of
    skipped records in first-seen order; and Claude `summary` lines as
    `(leafUuid, summary)` in file order (those with a non-empty leaf and
    stripped text). A summary titles the session holding its leaf message,
    often in another file, so it is no part's title. A part's `title_rank`
    is 3 for the agent's own title (Claude `ai-title`, Codex thread name,
    Gemini summary) and 4 for the user's (`custom-title`), 0 without one.
    Keep/drop rules are FORMATS.md's, as `docs/mirror.md` lists them. Never
    raises on content: invalid UTF-8, broken JSON (including nesting deeper
    than 256), non-objects and unexpected shapes are counted and skipped.
    Lone surrogate escapes become U+FFFD.
    """
