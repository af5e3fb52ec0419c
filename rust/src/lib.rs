//! recall's native core: pure-Rust text routines shared with the Python twin.
//!
//! Everything here is plain Rust with inline tests; the Python binding lives in
//! `py.rs`, compiled only with the `python` feature, so `cargo test` needs no
//! interpreter.

pub mod reminders;

pub use reminders::strip_reminders;

// Ranking where result lists meet: BM25 re-scoring and Jaccard dedup, over
// words from one table-driven tokenizer.
pub mod bm25;
pub mod dedup;
pub mod tokenize;

pub use bm25::{bm25_scores, Bm25Error};
pub use dedup::{dedup, ThresholdError};
pub use tokenize::tokenize;

#[cfg(feature = "python")]
mod py;

/// Version of the core; the Python selector refuses a core from another build.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
