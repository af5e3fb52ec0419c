//! recall's native core: pure-Rust text routines shared with the Python twin.
//!
//! Everything here is plain Rust with inline tests; the Python binding lives in
//! `py.rs`, compiled only with the `python` feature, so `cargo test` needs no
//! interpreter.

pub mod reminders;

// --- secret redaction ---
pub mod redact;
pub mod secret_checks;
pub use redact::redact;

pub use reminders::strip_reminders;

// Ranking where result lists meet: BM25 re-scoring and Jaccard dedup, over
// words from one table-driven tokenizer.
pub mod bm25;
pub mod dedup;
pub mod tokenize;

pub use bm25::{bm25_scores, Bm25Error};
pub use dedup::{dedup, ThresholdError};
pub use tokenize::tokenize;

// --- transcript parsing ---
pub mod antigravity;
pub mod claude;
pub mod claude_text;
pub mod codex;
pub mod codex_text;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod gemini_text;
pub mod jsonlines;
pub mod jsonscan;
pub mod jsonstr;
pub mod lazyjson;
pub mod pi;
pub mod pystamp;
pub mod pytext;
pub mod qwen;
pub mod records;
pub mod transcript;
pub mod tree;

pub use records::Origin;
pub use transcript::{parse_transcript, ParseError};

#[cfg(feature = "python")]
mod py;

#[cfg(test)]
mod module_graph;

/// Version of the core; the Python selector refuses a core from another build.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
