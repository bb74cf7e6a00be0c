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
    /// Tool pairing defects along the transcript's paths: computed when a
    /// rule first asks ([`Analysis::pairing`]), so that it runs beside the
    /// other rules instead of before them all.
    pairing: std::sync::OnceLock<Vec<Pairing>>,
    /// Codex context runs ([`Analysis::context_bursts`]), computed once for
    /// the two duplicate rules that read them.
    context_bursts: std::sync::OnceLock<Vec<u32>>,
}

impl Analysis {
    /// Analyses a transcript.
    pub fn new(input: &Input, t: &Transcript) -> Analysis {
        // The user-turn replays need only the entries: found beside the tree.
        let (tree, replays) = if crate::is_large(input) {
            rayon::join(|| Tree::build(t), || replays::replays(input.format, t))
        } else {
            (Tree::build(t), replays::replays(input.format, t))
        };
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
        Analysis {
            tree,
            chain_defects,
            tainted,
            replays,
            pairing: std::sync::OnceLock::new(),
            context_bursts: std::sync::OnceLock::new(),
        }
    }

    /// The tool pairing defects along the paths of `t` (the transcript this
    /// analysis is of, loaded from `input`), computed once.
    pub fn pairing(&self, input: &Input, t: &Transcript) -> &[Pairing] {
        self.pairing.get_or_init(|| self.find_pairing(input, t))
    }

    /// For a Codex rollout, where each entry's context run starts
    /// ([`crate::formats::codex_rollout::context_bursts`]; `u32::MAX`: in
    /// none), computed once; `None` for other formats.
    pub fn context_bursts(&self, input: &Input, t: &Transcript) -> Option<&[u32]> {
        (input.format == crate::formats::codex_rollout::ID)
            .then(|| self.context_bursts.get_or_init(|| crate::formats::codex_rollout::context_bursts(t)).as_slice())
    }

    fn find_pairing(&self, input: &Input, t: &Transcript) -> Vec<Pairing> {
        let mut pairing = pairing::transcript(t, self);
        // A call whose result was on a torn line after it (or a result whose
        // call was on one before it) is a consequence of that line, reported
        // by `malformed-line`: not a pairing defect.
        if !input.bad_lines.is_empty() {
            let bad: Vec<u32> = input.bad_lines.iter().map(|b| b.line).collect();
            let torn_between = |a: u32, b: u32| bad.iter().any(|&l| a < l && l < b);
            let quoted_in = |id: &str, keep: &dyn Fn(u32) -> bool| {
                let quoted = format!("\"{id}\"");
                input.bad_lines.iter().any(|b| keep(b.line) && b.head.contains(&quoted))
            };
            // The line of the user turn before entry `i` in write order, and of
            // the next user turn or model call after it.
            let turn_before = |i: usize| t.entries[..i].iter().rev().find(|x| x.is_user_turn()).map_or(0, |x| x.line);
            let next_stop = |i: usize| {
                t.entries[i + 1..].iter().find(|x| x.is_user_turn() || x.is_model_call).map_or(u32::MAX, |x| x.line)
            };
            let tool_id = |unit: u32, block: u32| {
                t.packed(&t.entries[unit as usize])
                    .and_then(|m| m.blocks().nth(block as usize).and_then(|b| b.tool_id.map(str::to_string)))
            };
            pairing.retain(|p| match *p {
                Pairing::Unanswered { unit, block } => {
                    let line = t.entries[unit as usize].line;
                    let cut = torn_between(line, next_stop(unit as usize))
                        || tool_id(unit, block).is_some_and(|id| quoted_in(&id, &|l| l > line));
                    !cut
                }
                // A result whose call was on a torn line before it.
                Pairing::Orphan { unit, block, second: false } => {
                    let line = t.entries[unit as usize].line;
                    let cut = torn_between(turn_before(unit as usize), line)
                        || tool_id(unit, block).is_some_and(|id| quoted_in(&id, &|l| l < line));
                    !cut
                }
                Pairing::Orphan { .. } => true,
            });
        }
        pairing
    }
}
