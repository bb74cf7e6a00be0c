//! Deterministic delta debugging (Zeller and Hildebrandt's *ddmin*) over a
//! list of units, bounded by a deadline.
//!
//! The units are `0..n`; the predicate receives a subset (ascending indices)
//! and answers whether that subset still shows the behaviour being kept (here:
//! the same finding still fires). The result is 1-minimal when the run is
//! complete: removing any single remaining unit loses the behaviour.

use std::time::Instant;

/// What one ddmin run gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The kept units, ascending.
    pub kept: Vec<usize>,
    /// How many times the predicate was called.
    pub tests: usize,
    /// `false` when the deadline stopped the run before it was 1-minimal.
    pub complete: bool,
}

/// Reduces `0..n` to a small subset for which `test` still holds.
///
/// `test(&all)` is assumed to hold and is not called. The empty subset is
/// tried first (often everything at a site can go), then subsets and
/// complements at growing granularity. Deterministic: the same predicate gives
/// the same calls in the same order. Stops (keeping the best subset so far)
/// when `deadline` has passed.
pub fn ddmin(n: usize, deadline: Instant, test: &mut dyn FnMut(&[usize]) -> bool) -> Outcome {
    let mut cur: Vec<usize> = (0..n).collect();
    let mut tests = 0usize;
    if n == 0 {
        return Outcome { kept: cur, tests, complete: true };
    }
    if Instant::now() >= deadline {
        return Outcome { kept: cur, tests, complete: false };
    }
    tests += 1;
    if test(&[]) {
        return Outcome { kept: Vec::new(), tests, complete: true };
    }
    let mut gran = 2usize;
    while cur.len() >= 2 {
        let chunks = split(&cur, gran);
        let mut reduced = false;
        for c in &chunks {
            if Instant::now() >= deadline {
                return Outcome { kept: cur, tests, complete: false };
            }
            tests += 1;
            if test(c) {
                cur = c.clone();
                gran = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && chunks.len() > 2 {
            for i in 0..chunks.len() {
                if Instant::now() >= deadline {
                    return Outcome { kept: cur, tests, complete: false };
                }
                let comp: Vec<usize> =
                    chunks.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, c)| c.iter().copied()).collect();
                tests += 1;
                if test(&comp) {
                    cur = comp;
                    gran = (gran - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if gran >= cur.len() {
                break;
            }
            gran = (gran * 2).min(cur.len());
        }
    }
    Outcome { kept: cur, tests, complete: true }
}

/// Splits `v` into `k` contiguous chunks of nearly equal size (none empty).
fn split(v: &[usize], k: usize) -> Vec<Vec<usize>> {
    let k = k.min(v.len()).max(1);
    let mut out = Vec::with_capacity(k);
    let mut start = 0;
    for i in 0..k {
        let end = start + (v.len() - start) / (k - i);
        out.push(v[start..end].to_vec());
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn finds_the_needed_pair() {
        let mut calls = Vec::new();
        let out = ddmin(40, far(), &mut |s: &[usize]| {
            calls.push(s.to_vec());
            s.contains(&7) && s.contains(&31)
        });
        assert_eq!(out.kept, vec![7, 31]);
        assert!(out.complete);
        assert_eq!(out.tests, calls.len());
        // Deterministic: the same calls again.
        let mut again = Vec::new();
        ddmin(40, far(), &mut |s: &[usize]| {
            again.push(s.to_vec());
            s.contains(&7) && s.contains(&31)
        });
        assert_eq!(calls, again);
    }

    #[test]
    fn empty_subset_and_single_unit() {
        assert_eq!(ddmin(5, far(), &mut |_| true).kept, Vec::<usize>::new());
        assert_eq!(ddmin(5, far(), &mut |s: &[usize]| s.contains(&4)).kept, vec![4]);
        assert_eq!(ddmin(0, far(), &mut |_| false).kept, Vec::<usize>::new());
    }

    #[test]
    fn deadline_keeps_everything_so_far() {
        let out = ddmin(10, Instant::now(), &mut |_| true);
        assert!(!out.complete);
        assert_eq!(out.kept.len(), 10);
    }

    #[test]
    fn split_is_even() {
        assert_eq!(split(&[0, 1, 2, 3, 4], 2), vec![vec![0, 1], vec![2, 3, 4]]);
        assert_eq!(split(&[0, 1], 4), vec![vec![0], vec![1]]);
    }
}
