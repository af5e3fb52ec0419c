//! Near-duplicate removal: Jaccard similarity of word sets against the texts kept so far (twin: `recall/_twin/rank.py`).
//!
//! Contract (shared with `python/recall/_twin/rank.py`): words come from
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
///
/// Decides exactly as comparing each text with every kept one would, but
/// finds the kept texts worth comparing through an index of their rarest
/// words (prefix filtering): if `|A ∩ B| >= t · |A ∪ B|`, the first common
/// word in a global rarest-first order lies within the first
/// `|X| - ceil(t · |X|) + 1` words of each set X; one extra word per prefix
/// covers float rounding, so no pair the plain comparison would flag is
/// missed, and every candidate is then checked with the plain comparison.
pub fn dedup<S: AsRef<str>>(texts: &[S], threshold: f64) -> Result<Vec<usize>, ThresholdError> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(ThresholdError);
    }
    if threshold == 0.0 {
        // Every similarity is >= 0: the first text makes all others duplicates.
        return Ok(if texts.is_empty() { vec![] } else { vec![0] });
    }
    let sets = rarest_first_sets(texts);
    let mut postings: Vec<Vec<usize>> =
        vec![Vec::new(); sets.iter().flatten().max().map_or(0, |&w| w + 1)];
    let mut checked = vec![usize::MAX; sets.len()];
    let mut kept: Vec<usize> = Vec::new();
    let mut kept_empty = false;
    for (i, set) in sets.iter().enumerate() {
        let prefix = &set[..prefix_len(set.len(), threshold)];
        let duplicate = if set.is_empty() {
            kept_empty // two empty sets have similarity 1; empty and non-empty 0
        } else {
            let mut found = false;
            'probe: for &w in prefix {
                for &k in &postings[w] {
                    if checked[k] != i {
                        checked[k] = i;
                        if similar(set, &sets[k], threshold) {
                            found = true;
                            break 'probe;
                        }
                    }
                }
            }
            found
        };
        if !duplicate {
            kept.push(i);
            kept_empty |= set.is_empty();
            for &w in prefix {
                postings[w].push(i);
            }
        }
    }
    Ok(kept)
}

/// How many of a set's rarest words to index and probe (see [`dedup`]).
fn prefix_len(len: usize, threshold: f64) -> usize {
    let needed = (threshold * len as f64).ceil() as usize;
    (len + 2).saturating_sub(needed).min(len)
}

/// Each text's distinct words as ranks in one rarest-first order, sorted.
fn rarest_first_sets<S: AsRef<str>>(texts: &[S]) -> Vec<Vec<usize>> {
    let lowered: Vec<String> = texts.iter().map(|t| lowercase(t.as_ref())).collect();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut sets: Vec<Vec<usize>> = lowered
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
    let mut df = vec![0usize; ids.len()];
    for &w in sets.iter().flatten() {
        df[w] += 1;
    }
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_unstable_by_key(|&w| (df[w], w));
    let mut rank = vec![0usize; ids.len()];
    for (r, &w) in order.iter().enumerate() {
        rank[w] = r;
    }
    for set in &mut sets {
        for w in set.iter_mut() {
            *w = rank[*w];
        }
        set.sort_unstable();
    }
    sets
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
    fn prefix_filter_decides_as_comparing_every_pair() {
        // Brute force over small vocabularies, where overlaps and ties abound.
        let mut seed = 42u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for case in 0..3000 {
            let texts: Vec<String> = (0..next(12))
                .map(|_| {
                    (0..next(9))
                        .map(|_| ["a", "b", "c", "d", "e", "f", "g"][next(7) as usize])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let t = [0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 1.0][case % 7];
            let sets: Vec<Vec<&str>> = texts
                .iter()
                .map(|x| {
                    let mut s: Vec<&str> = x.split(' ').filter(|w| !w.is_empty()).collect();
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect();
            let mut brute: Vec<usize> = Vec::new();
            for (i, a) in sets.iter().enumerate() {
                let dup = brute.iter().any(|&k| {
                    let b = &sets[k];
                    let common = a.iter().filter(|w| b.contains(w)).count();
                    let union = a.len() + b.len() - common;
                    union == 0 || common as f64 / union as f64 >= t
                });
                if !dup {
                    brute.push(i);
                }
            }
            assert_eq!(dedup(&texts, t), Ok(brute), "{texts:?} at {t}");
        }
    }

    #[test]
    fn rejects_bad_thresholds() {
        for t in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
            assert_eq!(dedup(&["a"], t), Err(ThresholdError));
        }
    }
}
