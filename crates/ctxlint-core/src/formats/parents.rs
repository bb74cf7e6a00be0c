//! Tying entries to their parents while a transcript is assembled
//! ([`ParentIds`]), linear chains for formats without ids, and repeated ids.

use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;

/// Resolves parent ids to entry indices while a transcript is assembled in
/// line order, without holding every parent id until the end: a parent
/// already seen (the usual case) resolves at once; a parent named before it
/// appears waits in a short list until [`ParentIds::finish`].
///
/// Ids are found by their 64-bit hash and confirmed against the entry's id,
/// so distinct ids that share a hash still resolve correctly.
#[derive(Default)]
pub struct ParentIds {
    /// Hash of an id → the first entry with that id.
    first: foldhash::HashMap<u64, u32>,
    /// Ids whose hash an earlier, different id already took → first entry.
    collided: foldhash::HashMap<Box<str>, u32>,
    /// (entry, parent id) not found when the entry was added.
    pending: Vec<(u32, Box<str>)>,
    /// (entry, first entry with the same id).
    repeats: Vec<(u32, u32)>,
    /// The entry whose id was registered last (the first with that id): most
    /// entries name the entry just before them as their parent, found here
    /// without a table lookup.
    last: Option<u32>,
}

impl ParentIds {
    /// Room for about `n` ids.
    pub fn reserve(&mut self, n: usize) {
        self.first.reserve(n);
    }

    fn find(&self, entries: &[Entry], id: &str) -> Option<u32> {
        let j = *self.first.get(&crate::hash::hash_str(id))?;
        if entries[j as usize].id.as_deref() == Some(id) {
            return Some(j);
        }
        self.collided.get(id).copied()
    }

    /// Adds `e` as entry `entries.len()` (call before pushing it): records
    /// its id, and sets its parent from `parent` — `None`: no parent (a
    /// root), `Some(id)`: that entry's, once known.
    pub fn add(&mut self, entries: &[Entry], e: &mut Entry, parent: Option<&str>) {
        let i = entries.len() as u32;
        // The parent first, among the entries before this one.
        e.parent = match parent {
            None => Parent::Root,
            Some(pid) => match self
                .last
                .filter(|&k| entries.get(k as usize).is_some_and(|x| x.id.as_deref() == Some(pid)))
                .or_else(|| self.find(entries, pid))
            {
                Some(j) => Parent::Entry(j),
                // An entry naming itself is kept (context.rs detects cycles).
                None if e.id.as_deref() == Some(pid) => Parent::Entry(i),
                None => {
                    self.pending.push((i, pid.into()));
                    Parent::Root
                }
            },
        };
        if let Some(id) = e.id.as_deref() {
            // One probe of the table: an id seen before, an id whose hash
            // another id took, or a new one.
            match self.first.entry(crate::hash::hash_str(id)) {
                std::collections::hash_map::Entry::Occupied(o) => {
                    let j = *o.get();
                    if entries[j as usize].id.as_deref() == Some(id) {
                        self.repeats.push((i, j));
                    } else if let Some(&first) = self.collided.get(id) {
                        self.repeats.push((i, first));
                    } else {
                        self.collided.insert(id.into(), i);
                        self.last = Some(i);
                    }
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(i);
                    self.last = Some(i);
                }
            }
        }
    }

    /// Resolves the parents named before they appeared (to a later entry, or
    /// [`Parent::Dangling`]) and records repeated ids in [`Transcript::id_repeats`].
    pub fn finish(self, t: &mut Transcript) {
        for (i, pid) in &self.pending {
            let parent = match self.find(&t.entries, pid) {
                Some(j) => Parent::Entry(j),
                None => {
                    t.dangling_ids.push(pid.clone());
                    Parent::Dangling(t.dangling_ids.len() as u32 - 1)
                }
            };
            t.entries[*i as usize].parent = parent;
        }
        t.id_repeats =
            self.repeats.into_iter().map(|(entry, first)| IdRepeat { entry, first, same_content: None }).collect();
    }
}

/// Links the entries of a transcript without ids linearly: each entry's parent is the one before.
pub fn link_linearly(t: &mut Transcript) {
    for (i, e) in t.entries.iter_mut().enumerate() {
        e.parent = if i == 0 { Parent::Root } else { Parent::Entry(i as u32 - 1) };
    }
}

/// Decides for each repeated id whether the two entries have the same JSON
/// content (key order and whitespace aside): byte-identical lines do; others
/// are re-read from the source and compared canonically.
pub fn fill_id_repeats(src: &SourceRef, t: &mut Transcript) {
    use std::collections::BTreeSet;
    let mut wanted = BTreeSet::new();
    for r in &mut t.id_repeats {
        let (a, b) = (&t.entries[r.first as usize], &t.entries[r.entry as usize]);
        if a.raw_hash == b.raw_hash {
            r.same_content = Some(true);
        } else {
            wanted.insert(a.line);
            wanted.insert(b.line);
        }
    }
    if !wanted.is_empty() {
        compare_repeats(src, t, &wanted);
    }
    // An entry written again with the same content is a storage defect
    // (`not-append-only`), not a second node of the tree.
    for r in t.id_repeats.clone() {
        if r.same_content == Some(true) {
            let e = &mut t.entries[r.entry as usize];
            e.parent = Parent::Detached;
            e.class = Class::Bookkeeping;
            e.is_model_call = false;
        }
    }
}

fn compare_repeats(src: &SourceRef, t: &mut Transcript, wanted: &std::collections::BTreeSet<u32>) {
    use std::collections::HashMap;
    let mut hashes: HashMap<u32, u64> = HashMap::new();
    if let Ok(mut lr) = src.lines() {
        while let Ok(Some(l)) = lr.next_line() {
            if wanted.contains(&l.no) {
                if let Ok(v) = serde_json::from_slice::<Value>(l.bytes) {
                    hashes.insert(l.no, crate::hash::canonical_hash(&v, &[]));
                }
            }
        }
    }
    for r in &mut t.id_repeats {
        if r.same_content.is_none() {
            let (a, b) = (t.entries[r.first as usize].line, t.entries[r.entry as usize].line);
            r.same_content = match (hashes.get(&a), hashes.get(&b)) {
                (Some(x), Some(y)) => Some(x == y),
                _ => Some(false),
            };
        }
    }
}

#[cfg(test)]
mod parent_ids_tests {
    use super::ParentIds;
    use crate::model::{Entry, Parent, Transcript};

    fn entry(no: u32, id: &str) -> Entry {
        let line = crate::source::Line { no, offset: 0, bytes: b"{}", terminated: true, too_long: false, len: 2 };
        let mut e = Entry::at(&line, "message", 0);
        e.id = Some(id.into());
        e
    }

    /// Adds (id, parent) pairs in order; returns the transcript.
    fn build(rows: &[(&str, Option<&str>)], tweak: impl FnOnce(&mut ParentIds)) -> Transcript {
        let mut t = Transcript::default();
        let mut p = ParentIds::default();
        tweak(&mut p);
        for (n, (id, parent)) in rows.iter().enumerate() {
            let mut e = entry(n as u32 + 1, id);
            p.add(&t.entries, &mut e, *parent);
            t.entries.push(e);
        }
        p.finish(&mut t);
        t
    }

    #[test]
    fn earlier_later_self_missing_and_repeated_parents() {
        let t = build(
            &[("a", None), ("b", Some("a")), ("c", Some("d")), ("d", Some("d")), ("a", Some("zz")), ("e", Some("a"))],
            |_| {},
        );
        let parents: Vec<Parent> = t.entries.iter().map(|e| e.parent).collect();
        assert_eq!(
            parents,
            vec![
                Parent::Root,
                Parent::Entry(0),
                Parent::Entry(3), // named before it appears
                Parent::Entry(3), // itself
                Parent::Dangling(0),
                Parent::Entry(0), // the first entry with a repeated id
            ]
        );
        assert_eq!(&*t.dangling_ids[0], "zz");
        assert_eq!(t.id_repeats.len(), 1);
        assert_eq!((t.id_repeats[0].entry, t.id_repeats[0].first), (4, 0));
    }

    #[test]
    fn ids_sharing_a_hash_still_resolve() {
        // Pretend "b" hashes like an entry with id "x" (which it is not): "b"
        // must go to the collision table and still be found.
        let t = build(&[("x", None), ("b", Some("x")), ("c", Some("b"))], |p| {
            p.first.insert(crate::hash::hash_str("b"), 0);
        });
        let parents: Vec<Parent> = t.entries.iter().map(|e| e.parent).collect();
        assert_eq!(parents, vec![Parent::Root, Parent::Entry(0), Parent::Entry(1)]);
        assert!(t.id_repeats.is_empty());
    }
}
