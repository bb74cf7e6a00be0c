//! Rebuilt contexts: the tree of a transcript and what each model call (step)
//! saw (docs/spec.md §1), computed once per transcript and shared by every rule.
//!
//! A step's context is the path from the root to its parent, cut at the last
//! compaction on that path (its summary plus the kept entries), without
//! bookkeeping and hidden entries, without failed or transcript-only
//! assistant messages, and with only the runtime-context carrier of the latest
//! user turn. Rather than materialising every step's context (quadratic in a
//! long session), the analysis answers in O(1) whether an element is in the
//! context at a later point of the same path ([`Tree::in_context_at`]), using
//! DFS entry/exit times for ancestry and per-entry nearest-ancestor tables.

use crate::model::*;

/// `u32::MAX` marks "none" in the per-entry tables.
pub const NONE: u32 = u32::MAX;

/// The children of every entry, in one flat array (compressed sparse rows):
/// `children[i]` is the slice of entry `i`'s children in write order. Two
/// `u32`s per entry instead of a vector each.
#[derive(Debug, Default)]
pub struct Children {
    /// `start[i]..start[i + 1]` indexes [`Children::list`]; `n + 1` items.
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Children {
    /// Builds the table from `(parent, child)` edges, which must come in write order of the child.
    fn build(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Children {
        let mut start = vec![0u32; n + 1];
        for (p, _) in edges.clone() {
            start[p as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[n] as usize];
        for (p, c) in edges {
            list[fill[p as usize] as usize] = c;
            fill[p as usize] += 1;
        }
        Children { start, list }
    }
}

impl std::ops::Index<usize> for Children {
    type Output = [u32];
    fn index(&self, i: usize) -> &[u32] {
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// Tree facts of one transcript.
#[derive(Debug, Default)]
pub struct Tree {
    /// Children of each entry, in write order (`children[i]` is a slice).
    pub children: Children,
    /// DFS entry time (NONE for entries not reachable from a root: cycles).
    pub tin: Vec<u32>,
    /// DFS exit time.
    pub tout: Vec<u32>,
    /// Nearest ancestor-or-self that is a user turn.
    pub user_turn: Vec<u32>,
    /// Nearest ancestor-or-self that is a compaction boundary.
    pub compaction: Vec<u32>,
    /// Entries that are part of a parent cycle.
    pub in_cycle: Vec<bool>,
}

impl Tree {
    /// Builds the tree facts of `t`.
    pub fn build(t: &Transcript) -> Tree {
        let n = t.entries.len();
        let edges = t.entries.iter().enumerate().filter_map(|(i, e)| match e.parent {
            Parent::Entry(p) if (p as usize) < n && p as usize != i => Some((p, i as u32)),
            _ => None, // roots, dangling, detached, and self-parents (a cycle of one)
        });
        let children = Children::build(n, edges);
        let roots: Vec<u32> = t
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.parent, Parent::Root | Parent::Dangling(_)))
            .map(|(i, _)| i as u32)
            .collect();
        let mut tree = Tree {
            children,
            tin: vec![NONE; n],
            tout: vec![NONE; n],
            user_turn: vec![NONE; n],
            compaction: vec![NONE; n],
            in_cycle: vec![false; n],
        };
        let mut clock = 0u32;
        // Iterative DFS: (node, next child index).
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for &r in &roots {
            tree.enter(t, r, None, &mut clock);
            stack.push((r, 0));
            while let Some(&mut (node, ref mut k)) = stack.last_mut() {
                if let Some(&c) = tree.children[node as usize].get(*k) {
                    *k += 1;
                    if tree.tin[c as usize] != NONE {
                        continue;
                    }
                    tree.enter(t, c, Some(node), &mut clock);
                    stack.push((c, 0));
                } else {
                    tree.tout[node as usize] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
        for i in 0..n {
            if tree.tin[i] == NONE && t.entries[i].parent != Parent::Detached {
                tree.in_cycle[i] = true;
            }
        }
        tree
    }

    fn enter(&mut self, t: &Transcript, i: u32, parent: Option<u32>, clock: &mut u32) {
        let e = &t.entries[i as usize];
        self.tin[i as usize] = *clock;
        *clock += 1;
        let (pu, pc) =
            parent.map(|p| (self.user_turn[p as usize], self.compaction[p as usize])).unwrap_or((NONE, NONE));
        self.user_turn[i as usize] = if e.is_user_turn() { i } else { pu };
        self.compaction[i as usize] = if e.class == Class::Compaction { i } else { pc };
    }

    /// Whether `a` is an ancestor of `b` or `b` itself.
    pub fn is_ancestor_or_self(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        self.tin[a] != NONE && self.tin[b] != NONE && self.tin[a] <= self.tin[b] && self.tout[b] <= self.tout[a]
    }

    /// Whether the message of entry `x` (an ancestor-or-self of `y`) is still in
    /// the context the runtime sends at `y`: not cut by a later compaction, not
    /// an earlier compaction's summary (only the latest compaction on the path
    /// is sent), not
    /// a failed or transcript-only assistant message, not bookkeeping, and, for
    /// a runtime-context carrier, still attached to the latest user turn.
    pub fn in_context_at(&self, t: &Transcript, x: u32, y: u32) -> bool {
        if !self.is_ancestor_or_self(x, y) {
            return false;
        }
        let e = &t.entries[x as usize];
        if !sent_again(e) {
            return false;
        }
        let c = self.compaction[y as usize];
        if c != NONE && !self.is_ancestor_or_self(c, x) {
            // x lies before the last compaction on y's path: only kept entries survive.
            let kept = t.entries[c as usize].compaction().and_then(|c| c.first_kept);
            match kept {
                Some(k) if self.is_ancestor_or_self(k, x) => {}
                _ => return false,
            }
            // Only the latest compaction's summary is sent (first); an earlier
            // compaction among the kept entries is not sent again (pi-mono
            // `buildSessionContext` in packages/coding-agent/src/core/session-manager.ts
            // appends only `message`, `custom_message` and `branch_summary`
            // entries around the latest compaction's summary).
            if e.class == Class::Compaction {
                return false;
            }
        }
        if e.kind() == Some(MessageKind::Carrier) {
            return self.user_turn[x as usize] == self.user_turn[y as usize];
        }
        true
    }

    /// The path from the root to `e` (inclusive), root first.
    pub fn path(&self, t: &Transcript, e: u32) -> Vec<u32> {
        let mut out = vec![e];
        let mut cur = e;
        while let Parent::Entry(p) = t.entries[cur as usize].parent {
            if out.len() > t.entries.len() {
                break; // cycle guard
            }
            out.push(p);
            cur = p;
        }
        out.reverse();
        out
    }

    /// The context of the step at model call `s`: entries of its path (before
    /// `s`) whose messages the runtime sends, in order.
    ///
    /// Only the part of the path that can be sent is walked: from `s` up to
    /// the latest compaction's first kept entry (or the compaction itself
    /// when it keeps none), so a long session compacted at every turn costs
    /// each step its kept context, not its whole path; an entry in a parent
    /// cycle (reachable from no root) has an empty context.
    pub fn step_context(&self, t: &Transcript, s: u32) -> Vec<u32> {
        if self.tin[s as usize] == NONE {
            return Vec::new(); // in_context_at holds for no entry
        }
        let c = self.compaction[s as usize];
        // Entries above `stop` are cut by the compaction (see in_context_at).
        let stop = if c == NONE {
            NONE
        } else {
            match t.entries[c as usize].compaction().and_then(|x| x.first_kept) {
                Some(k) if self.is_ancestor_or_self(k, c) => k,
                _ => c,
            }
        };
        let mut path = Vec::new();
        let mut cur = s;
        while let Parent::Entry(p) = t.entries[cur as usize].parent {
            if path.len() > t.entries.len() {
                break; // cycle guard
            }
            path.push(p);
            if p == stop {
                break;
            }
            cur = p;
        }
        path.reverse();
        let mut out: Vec<u32> = path.into_iter().filter(|&x| self.in_context_at(t, x, s)).collect();
        // The latest compaction's summary is sent first, before the kept
        // entries that precede it on the path (pi-mono `buildSessionContext`).
        let c = self.compaction[s as usize];
        if let Some(k) = out.iter().position(|&x| x == c) {
            out[..=k].rotate_right(1);
        }
        out
    }
}

/// Whether an entry's message is part of later requests: conversation or a
/// compaction summary, and not a failed, aborted, API-error or transcript-only
/// assistant message (pi-ai's `transformMessages` skips `error`/`aborted`).
pub fn sent_again(e: &Entry) -> bool {
    match e.class {
        Class::Conversation | Class::Compaction => {}
        _ => return false,
    }
    match e.assistant_facts() {
        Some(a) => !(a.transcript_only || a.api_error || matches!(a.stop, Stop::Error | Stop::Aborted)),
        None => e.has_message(),
    }
}

/// Write-order lanes (Claude Code sub-agents): the write-order rules
/// (`duplicate-user-turn`, `duplicate-reply`) judge each lane on its own.
/// Lane 0 is the main conversation. A sidechain entry (`isSidechain`: a
/// sub-agent's record inlined in the session file) takes its parent's lane when
/// the parent is an earlier sidechain entry, else it starts a lane of its own
/// (its index + 1). Formats without sidechains (pi, Codex) have one lane.
pub fn lanes(t: &Transcript) -> Vec<u32> {
    let mut lane = vec![0u32; t.entries.len()];
    for (i, e) in t.entries.iter().enumerate() {
        if !e.sidechain {
            continue;
        }
        lane[i] = match e.parent {
            Parent::Entry(p) if (p as usize) < i && t.entries[p as usize].sidechain => lane[p as usize],
            _ => i as u32 + 1,
        };
    }
    lane
}

/// Claude Code / Codex write one model call as several assistant entries
/// sharing [`Entry::call_group`]: for each group, the index of its last entry
/// (in write order). Rules that judge a whole model call (a final text)
/// evaluate it there.
pub fn call_group_ends(t: &Transcript) -> foldhash::HashMap<&str, u32> {
    let mut last = <foldhash::HashMap<_, _> as foldhash::HashMapExt>::new();
    for (i, e) in t.entries.iter().enumerate() {
        if let Some(g) = e.call_group() {
            if e.class == Class::Conversation {
                last.insert(g, i as u32);
            }
        }
    }
    last
}

/// The entry of each step: model calls in write order, the first entry of a
/// call split over several entries (Claude Code, Codex: one [`Entry::call_group`]).
pub fn step_entries(t: &Transcript) -> Vec<u32> {
    let mut seen_groups: foldhash::HashSet<&str> = Default::default();
    let mut out = Vec::new();
    for (i, e) in t.entries.iter().enumerate() {
        if !e.is_model_call {
            continue;
        }
        if let Some(g) = e.call_group() {
            if !seen_groups.insert(g) {
                continue;
            }
        }
        out.push(i as u32);
    }
    out
}

/// For each entry in write order, `(line, step)`: the 0-based index of the
/// step (model call, as [`step_entries`] numbers them) that the entry is or
/// is first sent in — the next model call written after it; `None` after
/// the last model call. Entries of one split call share its step.
pub fn entry_steps(t: &Transcript) -> Vec<(u32, Option<u32>)> {
    let mut group_step: foldhash::HashMap<&str, u32> = Default::default();
    let mut next = 0u32;
    let mut own: Vec<Option<u32>> = Vec::with_capacity(t.entries.len());
    for e in &t.entries {
        if !e.is_model_call {
            own.push(None);
            continue;
        }
        let s = match e.call_group() {
            Some(g) => *group_step.entry(g).or_insert_with(|| {
                next += 1;
                next - 1
            }),
            None => {
                next += 1;
                next - 1
            }
        };
        own.push(Some(s));
    }
    // Entries that are not model calls take the step of the next model call.
    let mut out = vec![(0u32, None); t.entries.len()];
    let mut upcoming: Option<u32> = None;
    for (k, e) in t.entries.iter().enumerate().rev() {
        if let Some(s) = own[k] {
            upcoming = Some(s);
        }
        out[k] = (e.line, own[k].or(upcoming));
    }
    out
}
