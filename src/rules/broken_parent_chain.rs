//! CTX404 `broken-parent-chain`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::context::Tree;
use crate::finding::{Finding, Severity};
use crate::model::*;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX404",
    name: "broken-parent-chain",
    default_severity: Severity::Error,
    summary: "an entry's parent link is broken, so its path skips or loses turns",
    docs: r#"## What it finds
A transcript whose entry tree is broken:
- a parent reference names no entry of the file (dangling `parentId` / `parentUuid`);
- a second root appears mid-file (`parentId: null` after the first entry) that is not a
  compaction boundary;
- an id repeats with different content;
- parents form a cycle;
- a conversation entry hangs off a bookkeeping record that is a side-leaf — the record's
  parent already had another child leading to conversation entries, written before the
  entry — so the entry's path skips those turns (Claude Code's retry bug: a prompt parented
  on a `progress` record).

`ctxlint fence` reports it for appended entries (verdict `append-malformed`): an appended
entry whose parent is neither in OLD nor earlier in the append, one without a parent when the
file already has a root (a Claude Code `compact_boundary` is not a second root), or one that
reuses an id of the file. pi v1 entries have no ids and are not checked.

## Why it matters
The runtime rebuilds the context by walking parent links from the leaf. A broken link
silently drops earlier turns from every later request, or loses the session on resume.

## Example
```
{"type":"message","id":"p0000004","parentId":"p0000003",…}
{"type":"session_info","id":"p0000005","parentId":null,…}   <- a second root, mid-file
```

## What it does not flag
Forks (two children of one entry) and `branch_summary` entries; a Claude Code
`compact_boundary` with `parentUuid: null` (a new chain by design), and the root of a
sub-agent's records (`isSidechain`) inlined in a session file; pi v1 files and Codex
rollouts (linear, no ids); an entry written twice byte for byte (`not-append-only`). Consequences are not
reported again: a dangling parent that names the id of a torn (malformed) line, and
pairing findings that arise only because a reported break cut entries off a path.
"#,
};

/// What is broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefectKind {
    /// Parent names no entry.
    Dangling(Box<str>),
    /// A second root mid-file.
    SecondRoot,
    /// Same id, different content (index of the first entry with the id).
    IdReused(u32),
    /// Part of a parent cycle.
    Cycle,
    /// Hangs off a bookkeeping side-leaf (the side-leaf entry, and the sibling skipped).
    BookkeepingSideLeaf {
        /// The bookkeeping record used as parent.
        leaf: u32,
        /// The first conversation entry the path skips.
        skipped: u32,
    },
}

/// One structural defect.
#[derive(Debug, Clone)]
pub struct ChainDefect {
    /// The entry reported.
    pub entry: u32,
    /// What is broken.
    pub kind: DefectKind,
    /// Whether it cuts entries off the entry's path (descendants' pairing findings are a cascade).
    pub cuts_path: bool,
    /// Whether to report it (false for consequences of a torn line).
    pub report: bool,
}

/// Finds the structural defects of a transcript.
pub fn defects(input: &Input, t: &Transcript, tree: &Tree) -> Vec<ChainDefect> {
    let mut out = Vec::new();
    if !t.has_ids {
        return out;
    }
    let mut seen_root = false;
    for (i, e) in t.entries.iter().enumerate() {
        let i = i as u32;
        match &e.parent {
            Parent::Dangling(k) => {
                let pid = &t.dangling_ids[*k as usize];
                // A parent id that only a torn line carried is a consequence of that line.
                let torn = input.bad_lines.iter().any(|b| b.head.contains(&**pid));
                out.push(ChainDefect {
                    entry: i,
                    kind: DefectKind::Dangling(pid.clone()),
                    cuts_path: true,
                    report: !torn,
                });
                seen_root = true;
            }
            Parent::Root => {
                let boundary = e.compaction().is_some_and(|c| c.new_root);
                // Claude Code: a sub-agent's records (`isSidechain`) inlined in a
                // session file start their own chain by design; they neither
                // are nor make a second root of the main chain.
                if e.sidechain {
                    continue;
                }
                if seen_root && !boundary {
                    out.push(ChainDefect { entry: i, kind: DefectKind::SecondRoot, cuts_path: true, report: true });
                }
                seen_root = true;
            }
            Parent::Entry(p) => {
                let b = &t.entries[*p as usize];
                if matches!(e.class, Class::Conversation | Class::Compaction) && b.class == Class::Bookkeeping {
                    if let Parent::Entry(gp) = b.parent {
                        let skipped = tree.children[gp as usize]
                            .iter()
                            .copied()
                            .find(|&c| c != *p && c < i && leads_to_conversation(t, tree, c, i));
                        if let Some(skipped) = skipped {
                            out.push(ChainDefect {
                                entry: i,
                                kind: DefectKind::BookkeepingSideLeaf { leaf: *p, skipped },
                                cuts_path: true,
                                report: true,
                            });
                        }
                    }
                }
            }
            Parent::Detached => {}
        }
    }
    for r in &t.id_repeats {
        if r.same_content == Some(false) {
            out.push(ChainDefect {
                entry: r.entry,
                kind: DefectKind::IdReused(r.first),
                cuts_path: false,
                report: true,
            });
        }
    }
    // Cycles: report each cycle once, at its last-written member.
    let mut done = vec![false; t.entries.len()];
    for start in 0..t.entries.len() {
        if !tree.in_cycle[start] || done[start] {
            continue;
        }
        let mut seen = Vec::new();
        let mut cur = start as u32;
        loop {
            if done[cur as usize] {
                break;
            }
            if let Some(pos) = seen.iter().position(|&x| x == cur) {
                let cycle = &seen[pos..];
                let last = *cycle.iter().max().expect("non-empty cycle");
                out.push(ChainDefect { entry: last, kind: DefectKind::Cycle, cuts_path: true, report: true });
                break;
            }
            seen.push(cur);
            match t.entries[cur as usize].parent {
                Parent::Entry(p) => cur = p,
                _ => break,
            }
        }
        for s in seen {
            done[s as usize] = true;
        }
    }
    out.sort_by_key(|d| d.entry);
    out
}

/// Whether `c` is a conversation entry or has a conversation descendant written before `before`.
fn leads_to_conversation(t: &Transcript, tree: &Tree, c: u32, before: u32) -> bool {
    let mut stack = vec![c];
    let mut budget = 10_000;
    while let Some(x) = stack.pop() {
        if x >= before {
            continue;
        }
        if matches!(t.entries[x as usize].class, Class::Conversation | Class::Compaction) {
            return true;
        }
        budget -= 1;
        if budget == 0 {
            return false;
        }
        stack.extend(tree.children[x as usize].iter().copied());
    }
    false
}

/// Reports the defects found by the analysis.
pub fn check(cx: &mut RuleContext) {
    let Some((t, an)) = cx.transcript else { return };
    let input = cx.input;
    for d in an.chain_defects.iter().filter(|d| d.report) {
        let e = &t.entries[d.entry as usize];
        let id = e.id.as_deref().unwrap_or("");
        let mut f = Finding::new(RuleId::BrokenParentChain, &input.path, input.format, String::new())
            .line(e.line)
            .entry_id(e.id.as_deref());
        match &d.kind {
            DefectKind::Dangling(pid) => {
                f.message = format!(
                    "entry `{id}` names parent `{pid}`, which is no entry of this file: its path loses every earlier turn"
                );
                f = f.key(format!("dangling:{id}:{pid}")).excerpt(format!("parent: {pid}"));
            }
            DefectKind::SecondRoot => {
                f.message =
                    format!("entry `{id}` has no parent although the file already has a root: a second root mid-file");
                f = f.key(format!("second-root:{id}")).help("parent the entry on the latest entry of the session");
            }
            DefectKind::IdReused(first) => {
                let fl = t.entries[*first as usize].line;
                f.message = format!("id `{id}` was already used by line {fl} with different content");
                f = f.key(format!("id-reused:{id}")).related(&input.path, Some(fl), "", "first entry with this id");
            }
            DefectKind::Cycle => {
                f.message = format!("entry `{id}` is part of a parent cycle: no path from it reaches the root");
                f = f.key(format!("cycle:{id}"));
            }
            DefectKind::BookkeepingSideLeaf { leaf, skipped } => {
                let l = &t.entries[*leaf as usize];
                let s = &t.entries[*skipped as usize];
                f.message = format!(
                    "entry `{id}` hangs off the {} record at line {}, a side-leaf: its path skips line {} and the turns after it",
                    l.etype(),
                    l.line,
                    s.line
                );
                f = f
                    .key(format!("side-leaf:{id}"))
                    .related(&input.path, Some(l.line), "", "bookkeeping side-leaf used as parent")
                    .related(&input.path, Some(s.line), "", "first entry skipped")
                    .help("parent the entry on the latest conversation entry");
            }
        }
        cx.report(f);
    }
}
