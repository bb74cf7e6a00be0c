//! Structural defects of a transcript's entry tree (dangling parents, second
//! roots, ids reused with other content, cycles, bookkeeping side-leaves),
//! found once per transcript: `broken-parent-chain` reports them and every
//! pairing rule reads which entries they cut off (report the cause, not the
//! cascade: docs/spec.md §2).

use super::tree::Tree;
use crate::model::*;

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
    // The quoted strings of the torn lines' heads (and what lies between
    // them): a set, so that many dangling parents and many torn lines stay linear.
    let mut torn_strings: Option<std::collections::HashSet<&str>> = None;
    let mut first_sent = None;
    let mut first_root: Option<u32> = None;
    let fork_file = forked_agent_file(&input.path);
    for (i, e) in t.entries.iter().enumerate() {
        let i = i as u32;
        match &e.parent {
            Parent::Dangling(k) => {
                let pid = &t.dangling_ids[*k as usize];
                // A parent id that only a torn line carried is a consequence of that line.
                let torn = torn_strings
                    .get_or_insert_with(|| input.bad_lines.iter().flat_map(|b| b.head.split('"')).collect())
                    .contains(&**pid);
                // A bookkeeping record (Claude Code's hook `progress`) that no
                // message sent to the model descends from loses nothing: the
                // conversation goes on from its own entries.
                let idle = e.class == Class::Bookkeeping
                    && (!leads_to_conversation(t, tree, i, u32::MAX, true)
                        || opens_session(t, tree, i, &mut first_sent));
                // Claude Code: a forked sub-agent's file (prompt suggestion,
                // compaction: `subagents/agent-aprompt_suggestion-*.jsonl`,
                // `agent-acompact-*.jsonl`) parents its first message sent to
                // the model on the main session's record it forks from, which
                // is in the session's own file: the fork point, by design (an
                // ordinary sub-agent's file, `agent-<hex>.jsonl`, going on from
                // a tool result or a reply lost its head: reported).
                let fork = e.sidechain && fork_file && first_sent_index(t, &mut first_sent) >= i;
                // A record nothing descends from, written before the file's
                // main chain starts (its first root): it loses no turn of that chain (Claude
                // Code's plan mode "clear context" opens the new session's
                // file with the old session's interrupt marker, parented in
                // the old file, then the plan as a new root).
                let stray = tree.children[i as usize].is_empty()
                    && *first_root.get_or_insert_with(|| {
                        t.entries.iter().position(|e| e.parent == Parent::Root && !e.sidechain).map_or(0, |p| p as u32)
                    }) > i;
                out.push(ChainDefect {
                    entry: i,
                    kind: DefectKind::Dangling(pid.clone()),
                    cuts_path: true,
                    report: !torn && !idle && !fork && !stray,
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
                if seen_root && !boundary && !e.root_fork() {
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
                            .find(|&c| c != *p && c < i && leads_to_conversation(t, tree, c, i, false));
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
    // Each entry's place in `seen` (a scan of `seen` for each step was
    // quadratic in a cycle's length); entries of an earlier walk are `done`.
    let mut at = vec![usize::MAX; t.entries.len()];
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
            if at[cur as usize] != usize::MAX {
                let cycle = &seen[at[cur as usize]..];
                let last = *cycle.iter().max().expect("non-empty cycle");
                out.push(ChainDefect { entry: last, kind: DefectKind::Cycle, cuts_path: true, report: true });
                break;
            }
            at[cur as usize] = seen.len();
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

/// Whether the bookkeeping record `c`, whose parent dangles, only opens the
/// session: no entry sent to the model was written before it, and every path
/// below it reaches one first at a person's prompt (a user turn). Its
/// dangling parent then cuts nothing off: Claude Code's `SessionStart` hook
/// `progress` records name an in-memory record of the session's start that it
/// never writes (a session opened, then its first prompt). A file that lost its
/// head goes on from the middle of a conversation (a tool result, a reply) and
/// is still reported.
/// (`first_sent`: the index of the file's first entry sent to the model,
/// found once per transcript.)
fn opens_session(t: &Transcript, tree: &Tree, c: u32, first_sent: &mut Option<u32>) -> bool {
    let first = first_sent_index(t, first_sent);
    if first < c {
        return false;
    }
    let mut stack = vec![c];
    let mut budget = 10_000;
    while let Some(x) = stack.pop() {
        let xe = &t.entries[x as usize];
        if xe.class == Class::Compaction || super::tree::sent_again(xe) {
            if !xe.is_user_turn() {
                return false;
            }
            continue;
        }
        budget -= 1;
        if budget == 0 {
            return false;
        }
        stack.extend(tree.children[x as usize].iter().copied());
    }
    true
}

/// Whether `path` names a Claude Code forked sub-agent's file:
/// `agent-a<kind>-<hex>.jsonl` with a kind that is a word (`aprompt_suggestion`,
/// `acompact`), as Claude Code 2.1.x names the agents it forks from the main
/// session (an ordinary sub-agent's file is `agent-a<hex>.jsonl`).
fn forked_agent_file(path: &str) -> bool {
    let name = std::path::Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(stem) = name.strip_prefix("agent-a").and_then(|n| n.strip_suffix(".jsonl")) else { return false };
    let Some((kind, id)) = stem.split_once('-') else { return false };
    !kind.is_empty()
        && kind.bytes().all(|c| c.is_ascii_lowercase() || c == b'_')
        && kind.bytes().any(|c| !c.is_ascii_hexdigit())
        && !id.is_empty()
        && id.bytes().all(|c| c.is_ascii_hexdigit())
}

/// The index of the file's first entry sent to the model (a compaction or
/// a message sent again), `u32::MAX` when there is none; found once per
/// transcript (`first_sent`).
fn first_sent_index(t: &Transcript, first_sent: &mut Option<u32>) -> u32 {
    *first_sent.get_or_insert_with(|| {
        t.entries
            .iter()
            .position(|e| e.class == Class::Compaction || super::tree::sent_again(e))
            .map_or(u32::MAX, |p| p as u32)
    })
}

/// Whether `c` is, or has a descendant written before `before` that is, an entry sent to the model
/// (`past_budget` when 10,000 entries were looked at without an answer).
fn leads_to_conversation(t: &Transcript, tree: &Tree, c: u32, before: u32, past_budget: bool) -> bool {
    let mut stack = vec![c];
    let mut budget = 10_000;
    while let Some(x) = stack.pop() {
        if x >= before {
            continue;
        }
        // Only entries the model is sent count: a branch holding nothing but
        // transcript-only or failed messages (an OpenClaw `gateway-injected`
        // note) loses no context when a path skips it.
        let xe = &t.entries[x as usize];
        if xe.class == Class::Compaction || super::tree::sent_again(xe) {
            return true;
        }
        budget -= 1;
        if budget == 0 {
            return past_budget;
        }
        stack.extend(tree.children[x as usize].iter().copied());
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn forked_agent_files_are_told_from_ordinary_sub_agents() {
        for p in ["a/subagents/agent-aprompt_suggestion-6df527.jsonl", "agent-acompact-30e1f5.jsonl"] {
            assert!(super::forked_agent_file(p), "{p}");
        }
        for p in
            ["a/subagents/agent-af377a3d0c09506cf.jsonl", "agent-a1b2c3.jsonl", "agent-a-1.jsonl", "agent-abc-12.jsonl"]
        {
            assert!(!super::forked_agent_file(p), "{p}");
        }
    }
}
