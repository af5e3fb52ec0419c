//! Okapi BM25 of candidate texts against a query, the candidates being the collection (twin: `recall/_twin/rank.py`).
//!
//! Contract (shared with `python/recall/_twin/rank.py`): words come from
//! [`crate::tokenize`]; each distinct query word counts once, in order of
//! first appearance; N is the number of docs, n(t) how many contain t, |D| a
//! doc's word count and avgdl the mean of |D|. A doc scores
//! `Σ idf(t) · (tf · (k1 + 1) / (tf + k1 · (1 − b + b · |D| / avgdl)))` over
//! the query words it contains, with `idf(t) = ln_1p((N − n + 0.5) / (n + 0.5))`
//! (never negative). Every step is f64, in the order written, so the Python
//! twin gets the same bits.

use std::collections::HashMap;
use thiserror::Error;

use crate::tokenize::{lowercase, lowercase_into, words};

/// Default term-frequency saturation.
pub const K1: f64 = 1.2;
/// Default length normalisation.
pub const B: f64 = 0.75;

/// A BM25 parameter out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Bm25Error {
    /// `k1` was negative, infinite or NaN.
    #[error("k1 must be a finite number >= 0")]
    K1,
    /// `b` was outside `[0, 1]` or NaN.
    #[error("b must be between 0 and 1")]
    B,
}

/// The BM25 score of each of `docs` against `query`, in order.
pub fn bm25_scores<S: AsRef<str>>(
    query: &str,
    docs: &[S],
    k1: f64,
    b: f64,
) -> Result<Vec<f64>, Bm25Error> {
    if !(k1.is_finite() && k1 >= 0.0) {
        return Err(Bm25Error::K1);
    }
    if !(0.0..=1.0).contains(&b) {
        return Err(Bm25Error::B);
    }
    let query = lowercase(query);
    let mut index: HashMap<&str, usize> = HashMap::new();
    for w in words(&query) {
        let next = index.len();
        index.entry(w).or_insert(next);
    }
    let n_terms = index.len();
    let n_docs = docs.len();

    // Per doc, only the query terms it contains, as (term, count) in term
    // order: memory grows with the matches, not with docs × query terms.
    let mut matches: Vec<Vec<(usize, usize)>> = Vec::with_capacity(n_docs);
    let mut lengths = Vec::with_capacity(n_docs);
    let mut df = vec![0usize; n_terms];
    let mut counts = vec![0usize; n_terms];
    let mut touched: Vec<usize> = Vec::new();
    let mut buf = String::new();
    for doc in docs {
        lowercase_into(doc.as_ref(), &mut buf);
        let mut len = 0usize;
        for w in words(&buf) {
            len += 1;
            if let Some(&t) = index.get(w) {
                if counts[t] == 0 {
                    touched.push(t);
                }
                counts[t] += 1;
            }
        }
        touched.sort_unstable();
        let found: Vec<(usize, usize)> = touched.iter().map(|&t| (t, counts[t])).collect();
        for &t in &touched {
            df[t] += 1;
            counts[t] = 0;
        }
        touched.clear();
        matches.push(found);
        lengths.push(len);
    }
    let total: usize = lengths.iter().sum();
    if total == 0 {
        // No words anywhere (or no docs): nothing can match, and avgdl is 0.
        return Ok(vec![0.0; n_docs]);
    }
    let avgdl = total as f64 / n_docs as f64;
    let idf: Vec<f64> = df
        .iter()
        .map(|&n| (((n_docs - n) as f64 + 0.5) / (n as f64 + 0.5)).ln_1p())
        .collect();
    Ok(matches
        .iter()
        .zip(&lengths)
        .map(|(found, &len)| {
            let norm = k1 * (1.0 - b + b * len as f64 / avgdl);
            let mut score = 0.0;
            // In query-term order, as the twin sums.
            for &(t, f) in found {
                let f = f as f64;
                score += idf[t] * (f * (k1 + 1.0) / (f + norm));
            }
            score
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn hand_computed_single_term() {
        // N = 3, n(a) = 2: idf = ln(1 + 1.5 / 2.5) = ln 1.6; avgdl = 4 / 3.
        // doc 0: |D| = 2, norm = 1.2 · (0.25 + 0.75 · 1.5) = 1.65.
        // doc 1: |D| = 1, norm = 1.2 · (0.25 + 0.75 · 0.75) = 0.975.
        let s = bm25_scores("A", &["a b", "a", "c"], K1, B).unwrap();
        assert!(close(s[0], 1.6f64.ln() * 2.2 / 2.65), "{s:?}");
        assert!(close(s[1], 1.6f64.ln() * 2.2 / 1.975), "{s:?}");
        assert_eq!(s[2], 0.0);
    }

    #[test]
    fn repeated_query_words_count_once() {
        let docs = ["x y", "y z", "z"];
        assert_eq!(
            bm25_scores("x x y", &docs, K1, B),
            bm25_scores("x y", &docs, K1, B)
        );
    }

    #[test]
    fn k1_zero_gives_plain_idf_sums() {
        // tf / (tf + 0) = 1: the score is the sum of the matched idfs.
        let s = bm25_scores("a b", &["a a b", "b", "c", "c"], 0.0, B).unwrap();
        let idf_a = (1.0f64 + 3.5 / 1.5).ln();
        let idf_b = (1.0f64 + 2.5 / 2.5).ln();
        assert!(close(s[0], idf_a + idf_b) && close(s[1], idf_b), "{s:?}");
    }

    #[test]
    fn empty_inputs() {
        assert_eq!(bm25_scores("a", &[] as &[&str], K1, B), Ok(vec![]));
        assert_eq!(bm25_scores("", &["a", "b"], K1, B), Ok(vec![0.0, 0.0]));
        assert_eq!(bm25_scores("a", &["", "…"], K1, B), Ok(vec![0.0, 0.0]));
    }

    #[test]
    fn long_query_over_many_docs() {
        // 20k query words x 20k docs: a dense docs x terms table would be
        // 400M counters; only the matches are kept.
        let query: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
        let docs: Vec<String> = (0..20_000).map(|i| format!("w{i} x")).collect();
        let s = bm25_scores(&query.join(" "), &docs, K1, B).unwrap();
        assert_eq!(s.len(), docs.len());
        assert!(s.windows(2).all(|w| w[0] == w[1] && w[0] > 0.0));
    }

    #[test]
    fn rejects_bad_parameters() {
        assert_eq!(bm25_scores("a", &["a"], -0.1, B), Err(Bm25Error::K1));
        assert_eq!(bm25_scores("a", &["a"], f64::NAN, B), Err(Bm25Error::K1));
        assert_eq!(
            bm25_scores("a", &["a"], f64::INFINITY, B),
            Err(Bm25Error::K1)
        );
        assert_eq!(bm25_scores("a", &["a"], K1, 1.5), Err(Bm25Error::B));
        assert_eq!(bm25_scores("a", &["a"], K1, f64::NAN), Err(Bm25Error::B));
    }
}
