//! The shared analysis layer: everything computed once per input and read by
//! several rules. Data flows one way — model → analysis → rules — so nothing
//! here imports a rule: the rules read [`Analysis`] (transcripts) and the
//! stream helpers ([`dup::StreamMemo`], [`pairing::request`]).
//!
//! - [`tree`]: the entry tree of a transcript and what each step's context holds;
//! - [`chain`]: structural defects of that tree and the entries they cut off;
//! - [`replays`]: user turns written again after a failed attempt;
//! - [`pairing`]: tool calls and results along paths and within requests;
//! - [`dup`]: occurrences of equal blocks in one context (the duplicate rules).

pub mod chain;
pub mod dup;
pub mod pairing;
pub mod replays;
pub mod tree;
pub mod turns;

pub use chain::ChainDefect;
pub use pairing::Pairing;
pub use replays::Replay;
pub use tree::*;

use crate::model::*;

/// The analysis shared by every rule for one transcript.
#[derive(Debug)]
pub struct Analysis {
    /// Tree facts.
    pub tree: Tree,
    /// Structural defects found by `broken-parent-chain` (reported once).
    pub chain_defects: Vec<ChainDefect>,
    /// Entries cut off by a reported structural defect: the defect entry and
    /// its descendants (their pairing findings would be a cascade).
    pub tainted: Vec<bool>,
    /// User turns written again after a failed attempt (`duplicate-user-turn`),
    /// in write order.
    pub replays: Vec<Replay>,
    /// Tool pairing defects along the transcript's paths.
    pub pairing: Vec<Pairing>,
}

impl Analysis {
    /// Analyses a transcript.
    pub fn new(input: &Input, t: &Transcript) -> Analysis {
        let tree = Tree::build(t);
        let chain_defects = chain::defects(input, t, &tree);
        let mut tainted = vec![false; t.entries.len()];
        let mut stack: Vec<u32> = chain_defects.iter().filter(|d| d.cuts_path).map(|d| d.entry).collect();
        while let Some(e) = stack.pop() {
            if std::mem::replace(&mut tainted[e as usize], true) {
                continue;
            }
            stack.extend(tree.children[e as usize].iter().copied());
        }
        for (i, c) in tree.in_cycle.iter().enumerate() {
            if *c {
                tainted[i] = true;
            }
        }
        let replays = replays::replays(t);
        let mut an = Analysis { tree, chain_defects, tainted, replays, pairing: Vec::new() };
        an.pairing = pairing::transcript(t, &an);
        // A call whose result was on a torn line after it is a consequence of
        // that line (reported by `malformed-line`), not an unanswered call.
        if !input.bad_lines.is_empty() {
            an.pairing.retain(|p| match *p {
                Pairing::Unanswered { unit, block } => {
                    let e = &t.entries[unit as usize];
                    let id = t.packed(e).and_then(|m| m.blocks().nth(block as usize).and_then(|b| b.tool_id));
                    !id.is_some_and(|id| {
                        let quoted = format!("\"{id}\"");
                        input.bad_lines.iter().any(|b| b.line > e.line && b.head.contains(&quoted))
                    })
                }
                Pairing::Orphan { .. } => true,
            });
        }
        an
    }
}
