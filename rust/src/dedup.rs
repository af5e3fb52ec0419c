//! Near-duplicate removal: Jaccard similarity of word sets against the texts kept so far.
//!
//! Contract (shared with `python/recall/_pyrank.py`): words come from
//! [`crate::tokenize`]; texts are taken in order and one is dropped when
//! `|A ∩ B| / |A ∪ B| >= threshold` (computed as an f64 division) for its word
//! set A and the set B of any text already kept. Two empty sets have
//! similarity 1 (empty texts are duplicates of each other); an empty and a
//! non-empty set have 0.

use std::collections::HashMap;
use thiserror::Error;

use crate::tokenize::{lowercase, words};

/// Default similarity at or above which a text is a duplicate.
pub const THRESHOLD: f64 = 0.8;

/// The threshold was outside `[0, 1]` or NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("threshold must be between 0 and 1")]
pub struct ThresholdError;

/// Indices of the `texts` to keep, ascending.
pub fn dedup<S: AsRef<str>>(texts: &[S], threshold: f64) -> Result<Vec<usize>, ThresholdError> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(ThresholdError);
    }
    let lowered: Vec<String> = texts.iter().map(|t| lowercase(t.as_ref())).collect();
    // Interned word ids, so each set is a sorted Vec merged in one pass.
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let sets: Vec<Vec<usize>> = lowered
        .iter()
        .map(|text| {
            let mut set: Vec<usize> = words(text)
                .map(|w| {
                    let next = ids.len();
                    *ids.entry(w).or_insert(next)
                })
                .collect();
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect();
    let mut kept: Vec<usize> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        if !kept.iter().any(|&k| similar(set, &sets[k], threshold)) {
            kept.push(i);
        }
    }
    Ok(kept)
}

/// Whether the Jaccard similarity of two sorted, distinct sets is `>= threshold`.
fn similar(a: &[usize], b: &[usize], threshold: f64) -> bool {
    let (small, big) = (a.len().min(b.len()), a.len().max(b.len()));
    if big == 0 {
        return true;
    }
    // |A ∩ B| <= small and |A ∪ B| >= big, and rounding is monotonic, so the
    // computed similarity cannot exceed small / big: skip the merge.
    if (small as f64 / big as f64) < threshold {
        return false;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common as f64 / (a.len() + b.len() - common) as f64 >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_case_and_punctuation_variants() {
        let texts = ["The cat sat.", "the CAT, sat!", "a dog"];
        assert_eq!(dedup(&texts, THRESHOLD), Ok(vec![0, 2]));
    }

    #[test]
    fn threshold_is_inclusive() {
        // 4 common words of 5: similarity exactly 0.8.
        assert_eq!(dedup(&["a b c d e", "a b c d"], 0.8), Ok(vec![0]));
        // 4 of 6: 0.666…, kept.
        assert_eq!(dedup(&["a b c d e", "a b c d x"], 0.8), Ok(vec![0, 1]));
    }

    #[test]
    fn compares_with_kept_texts_only() {
        // 1 is a duplicate of 0 and dropped; 2 is close to 1 but not to 0.
        let texts = ["a b c d e", "a b c d e f", "b c d e f g"];
        assert_eq!(dedup(&texts, 0.8), Ok(vec![0, 2]));
    }

    #[test]
    fn empty_sets() {
        assert_eq!(dedup(&["", "…", "x", ""], THRESHOLD), Ok(vec![0, 2]));
        assert_eq!(dedup(&["", "x"], 0.0), Ok(vec![0]));
        assert_eq!(dedup(&[] as &[&str], THRESHOLD), Ok(vec![]));
    }

    #[test]
    fn extreme_thresholds() {
        assert_eq!(dedup(&["a b", "b a", "a b c"], 1.0), Ok(vec![0, 2]));
        assert_eq!(dedup(&["a", "b", "c"], 0.0), Ok(vec![0]));
    }

    #[test]
    fn rejects_bad_thresholds() {
        for t in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
            assert_eq!(dedup(&["a"], t), Err(ThresholdError));
        }
    }
}
