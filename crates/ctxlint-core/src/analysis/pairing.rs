//! Tool-call / tool-result pairing, shared by `unanswered-tool-call` and
//! `orphan-tool-result` (docs/spec.md §1, CTX301/CTX302).
//!
//! In a request, calls and results pair by id in message order: a call must be
//! answered before the next model output or user turn. In a transcript,
//! pairing is judged along each entry's path; a call still pending at the end
//! of a path is not a finding; consequences of a reported broken chain are not
//! reported again.

use crate::analysis::{Analysis, sent_again};
use crate::model::*;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// A pairing defect.
#[derive(Debug, Clone, Copy)]
pub enum Pairing {
    /// A call with no result.
    Unanswered {
        /// Request message index, or transcript entry index.
        unit: u32,
        /// Block index in that message.
        block: u32,
    },
    /// A result with no earlier call (or answering one a second time).
    Orphan {
        /// Request message index, or transcript entry index.
        unit: u32,
        /// Block index in that message.
        block: u32,
        /// It answers a call that already has a result.
        second: bool,
    },
}

/// The [`request`] pairings of every request of one stream, computed once,
/// when first asked, and shared by the two rules that read them
/// (`unanswered-tool-call` and `orphan-tool-result`, which may run in
/// parallel: [`OnceLock`](std::sync::OnceLock)): one sweep over the
/// requests' messages instead of two. On a large stream those sweeps are
/// bound by memory, not by computing (a 96 MB OpenTelemetry trace's
/// requests do not fit in the cache): each sweep took 12 times what it
/// took on a trace of an eighth of the size.
#[derive(Debug, Default)]
pub struct StreamPairings {
    /// Request `i`'s pairings are `all[starts[i]..starts[i + 1]]`.
    once: std::sync::OnceLock<(Vec<usize>, Vec<Pairing>)>,
}

impl StreamPairings {
    /// The pairings of each request of `s` (the same stream on every call),
    /// in request order.
    pub fn requests<'a>(&'a self, s: &Stream) -> impl Iterator<Item = &'a [Pairing]> + 'a {
        let (starts, all) = self.once.get_or_init(|| {
            let mut starts = Vec::with_capacity(s.requests.len() + 1);
            let mut all = Vec::new();
            starts.push(0);
            for r in &s.requests {
                all.extend(request(r));
                starts.push(all.len());
            }
            (starts, all)
        });
        starts.windows(2).map(move |w| &all[w[0]..w[1]])
    }
}

/// Pairs the calls and results of one request.
pub fn request(r: &Request) -> Vec<Pairing> {
    let mut out = Vec::new();
    let mut calls: HashMap<&str, (u32, u32)> = HashMap::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut hosted: HashSet<&str> = HashSet::new();
    let mut open: Vec<(&str, u32, u32)> = Vec::new(); // calls of the latest model output, unanswered
    let mut prev_assistant = false;
    let flush = |open: &mut Vec<(&str, u32, u32)>, out: &mut Vec<Pairing>| {
        for (_, unit, block) in open.drain(..) {
            out.push(Pairing::Unanswered { unit, block });
        }
    };
    for (i, m) in r.messages.iter().enumerate() {
        let is_assistant = m.role == Role::Assistant;
        if is_assistant && !prev_assistant {
            // A new model output: calls of the previous one must have been answered.
            flush(&mut open, &mut out);
        }
        for (j, b) in m.blocks.iter().enumerate() {
            match b.kind {
                BlockKind::ToolCall => {
                    if let Some(id) = b.tool_id.as_deref() {
                        calls.insert(id, (i as u32, j as u32));
                        // An id used again by a later call (models that number
                        // their calls per turn) pairs with its nearest result.
                        answered.remove(id);
                        open.push((id, i as u32, j as u32));
                    }
                }
                // A hosted call (Anthropic `server_tool_use` / `mcp_tool_use`,
                // Responses `web_search_call`, `tool_search_call`, …) runs on the
                // provider's side: never unanswered, but a result naming it has its call.
                BlockKind::Other if b.tool_id.is_some() => {
                    hosted.insert(b.tool_id.as_deref().unwrap_or_default());
                }
                BlockKind::ToolResult => {
                    let Some(id) = b.tool_id.as_deref() else { continue };
                    if hosted.contains(id) && !calls.contains_key(id) {
                        continue;
                    }
                    if calls.contains_key(id) {
                        if !answered.insert(id) {
                            out.push(Pairing::Orphan { unit: i as u32, block: j as u32, second: true });
                        }
                        open.retain(|(c, _, _)| *c != id);
                    } else if r.previous_response_id.is_none() && !server_held(r) {
                        out.push(Pairing::Orphan { unit: i as u32, block: j as u32, second: false });
                    }
                }
                _ => {}
            }
        }
        // A user turn closes the calls still open, after its own results: a
        // result answers its call wherever it sits among the message's blocks
        // (Anthropic puts `tool_result` blocks first and may follow them with
        // text such as a `<system-reminder>`; docs/spec.md §2 CTX301).
        // (A user message with nothing in it is no user turn, docs/spec.md
        // §1: simonw/llm-openai-plugin sends `{"role": "user", "content": ""}`
        // before the tool results of every tool round, `_build_messages`.)
        if m.kind == MessageKind::UserTurn && !says_nothing(m) {
            flush(&mut open, &mut out);
        }
        prev_assistant = is_assistant;
    }
    // A history snapshot (pydantic-ai, AI SDK UI messages) that ends with the
    // model's response is a stored run, not a request: calls still pending at
    // its end (deferred or human-in-the-loop tools) are not yet due, as at the
    // end of a transcript path.
    let stored_run = crate::formats::is_snapshot_format(r.body_format)
        && r.messages.last().is_some_and(|m| m.role == Role::Assistant);
    if !stored_run {
        flush(&mut open, &mut out);
    }
    // Around an item that could not be read, a missing call or result may be
    // in it: the unread item is reported (a warning), not its cascade.
    if !r.gaps.is_empty() {
        out.retain(|p| match *p {
            Pairing::Unanswered { unit, .. } => !r.gaps.iter().any(|&g| g > unit),
            Pairing::Orphan { unit, second: false, .. } => !r.gaps.iter().any(|&g| g <= unit),
            Pairing::Orphan { .. } => true,
        });
    }
    out
}

/// Whether a message holds no block but empty or white-space text.
fn says_nothing(m: &crate::model::Message) -> bool {
    m.blocks.iter().all(|b| b.kind == BlockKind::Text && b.is_blank())
}

/// Whether the request's history is partly held by the provider (a Responses
/// `conversation` object, or `item_reference` items naming stored items): a
/// result whose call is not in the request answers the server-held part, as
/// with `previous_response_id` (docs/spec.md §2 CTX302). (An item reference
/// names the call's item id, `fc_…`, not its `call_id`: which result it
/// answers is not known here.)
fn server_held(r: &Request) -> bool {
    r.body_format == crate::formats::openai_responses::ID
        && (r.conversation_id.is_some()
            || r.messages.iter().any(|m| crate::formats::openai_responses::is_item_reference(m)))
}

fn result_ids(m: crate::model::packed::PackedMessage<'_>) -> impl Iterator<Item = (u32, &str)> {
    m.blocks().filter(|b| b.kind == BlockKind::ToolResult).filter_map(|b| b.tool_id.map(|id| (b.index, id)))
}

/// Entry indices by tool id, in one sorted array rather than a vector per id
/// (a long session has hundreds of thousands of tool ids).
/// Sorted in place: no second copy while it is built.
struct ById<'a> {
    /// (hash of the id, the id, entry), sorted: ids compare by their 64-bit
    /// hash first, so sorting and searching rarely compare the ids' bytes
    /// (tool call ids share long prefixes: `toolu_01…`, `call_…`), and by
    /// the id itself only when two hashes are equal — a collision never
    /// pairs two different ids.
    pairs: Vec<(u64, &'a str, u32)>,
}

impl<'a> ById<'a> {
    fn new(pairs: Vec<(&'a str, u32)>) -> Self {
        let mut pairs: Vec<(u64, &'a str, u32)> =
            pairs.into_iter().map(|(id, e)| (crate::hash::hash_str(id), id, e)).collect();
        pairs.sort_unstable();
        ById { pairs }
    }
    /// The entries naming `id`, as `(hash, id, entry)` sorted by entry.
    ///
    /// Found from where the id's hash says it is: the hashes are uniform
    /// over 64 bits, so `hash / 2^64` of the way into the array is within a
    /// few places of it, and the search widens from there by doubling steps
    /// ([`gallop`]). A binary search over the whole array missed the cache
    /// at nearly every step (a long session has hundreds of thousands of
    /// ids: 4 % of `check`'s time on a 296 MB session).
    fn slice(&self, id: &str) -> &[(u64, &'a str, u32)] {
        let h = crate::hash::hash_str(id);
        let p = &self.pairs;
        let before = |x: &(u64, &'a str, u32)| (x.0, x.1) < (h, id);
        let guess = ((u128::from(h) * p.len() as u128) >> 64) as usize;
        let lo = if p.get(guess).is_some_and(before) {
            gallop(p, guess + 1, before)
        } else {
            // The first place at or before the guess whose predecessor is before the id.
            let (mut hi, mut step) = (guess.min(p.len()), 1usize);
            let lo = loop {
                let cand = hi.saturating_sub(step);
                if cand == 0 || before(&p[cand - 1]) {
                    break cand;
                }
                hi = cand - 1;
                step = step.saturating_mul(2);
            };
            lo + p[lo..hi].partition_point(before)
        };
        let hi = gallop(p, lo, |x| x.0 == h && x.1 == id);
        &p[lo..hi]
    }
    /// The entries naming `id` strictly between `lo` and `hi` (write order).
    fn between(&self, id: &str, lo: u32, hi: u32) -> impl Iterator<Item = u32> + '_ {
        let s = self.slice(id);
        let a = s.partition_point(|x| x.2 <= lo);
        let b = s.partition_point(|x| x.2 < hi);
        s[a..b.max(a)].iter().map(|p| p.2)
    }
}

/// The first index from `start` on at which `pred` is false, `pred` being
/// true then false along `v`: probed at doubling distances from `start`,
/// then a binary search in the last step's range (a short run costs a few
/// probes near `start`, not a search of the whole rest).
fn gallop<T>(v: &[T], start: usize, pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut step) = (start.min(v.len()), 1usize);
    let hi = loop {
        let cand = lo.saturating_add(step - 1);
        if cand >= v.len() {
            break v.len();
        }
        if !pred(&v[cand]) {
            break cand;
        }
        lo = cand + 1;
        step = step.saturating_mul(2);
    };
    lo + v[lo..hi].partition_point(pred)
}

/// Pairs the calls and results of a transcript along its paths.
pub fn transcript(t: &Transcript, an: &Analysis) -> Vec<Pairing> {
    let tree = &an.tree;
    let mut out = Vec::new();
    let (mut calls, mut results) = (Vec::new(), Vec::new());
    for (i, e) in t.entries.iter().enumerate() {
        let Some(m) = t.packed(e) else { continue };
        for b in m.blocks() {
            match (b.kind, b.tool_id) {
                (BlockKind::ToolCall, Some(id)) => calls.push((id, i as u32)),
                (BlockKind::ToolResult, Some(id)) => results.push((id, i as u32)),
                _ => {}
            }
        }
    }
    let calls_by_id = ById::new(calls);
    let results_by_id = ById::new(results);
    // Unanswered calls.
    for (i, e) in t.entries.iter().enumerate() {
        let i = i as u32;
        if !e.is_model_call || !sent_again(e) || an.tainted[i as usize] {
            continue;
        }
        let Some(m) = t.packed(e) else { continue };
        let calls: Vec<(u32, &str)> = m
            .blocks()
            .filter(|b| b.kind == BlockKind::ToolCall)
            .filter_map(|b| b.tool_id.map(|id| (b.index, id)))
            .collect();
        if calls.is_empty() {
            continue;
        }
        // Results that are children of the call group's entries count as on the path (Claude Code).
        let mut group_results: HashSet<&str> = HashSet::new();
        if let Some(g) = e.call_group() {
            let mut x = i;
            loop {
                for &c in &tree.children[x as usize] {
                    if let Some(cm) = t.packed(&t.entries[c as usize]) {
                        group_results.extend(result_ids(cm).map(|r| r.1));
                    }
                }
                match t.entries[x as usize].parent {
                    Parent::Entry(p) if t.entries[p as usize].call_group() == Some(g) => x = p,
                    _ => break,
                }
            }
            let mut stack = vec![i];
            while let Some(x) = stack.pop() {
                for &c in &tree.children[x as usize] {
                    let ce = &t.entries[c as usize];
                    if let Some(cm) = t.packed(ce) {
                        group_results.extend(result_ids(cm).map(|r| r.1));
                    }
                    if ce.call_group() == Some(g) {
                        stack.push(c);
                    }
                }
            }
        }
        let mut missing: HashSet<u32> = HashSet::new();
        // DFS over descendants until the next model call or user turn on each path.
        let mut stack: Vec<(u32, Vec<&str>)> = tree.children[i as usize].iter().map(|&c| (c, Vec::new())).collect();
        while let Some((x, mut found)) = stack.pop() {
            let xe = &t.entries[x as usize];
            if an.tainted[x as usize] {
                continue; // a reported break cuts this path: its consequences are not reported
            }
            let same_group = e.call_group().is_some() && xe.call_group() == e.call_group();
            let stop = (xe.is_model_call && !same_group) || xe.is_user_turn();
            if xe.is_user_turn() {
                // Results in the user turn itself answer calls (tool results followed by text).
                if let Some(xm) = t.packed(xe) {
                    found.extend(result_ids(xm).map(|r| r.1));
                }
            }
            if stop {
                for (j, id) in &calls {
                    if !found.contains(id) && !group_results.contains(id) {
                        missing.insert(*j);
                    }
                }
                continue;
            }
            if let Some(xm) = t.packed(xe) {
                found.extend(result_ids(xm).map(|r| r.1));
            }
            for &c in &tree.children[x as usize] {
                stack.push((c, found.clone()));
            }
        }
        let mut missing: Vec<u32> = missing.into_iter().collect();
        missing.sort();
        for j in missing {
            out.push(Pairing::Unanswered { unit: i, block: j });
        }
    }
    // Orphan results.
    for (i, e) in t.entries.iter().enumerate() {
        let i = i as u32;
        let Some(m) = t.packed(e) else { continue };
        if !matches!(e.class, Class::Conversation) {
            continue;
        }
        for (j, id) in result_ids(m) {
            let slice = calls_by_id.slice(id);
            let calls = slice.iter().map(|p| p.2);
            let mut matched = None;
            // Nearest first: the calls written before the result (newest first),
            // then the later ones (a call group's entry may follow its result).
            // Ids reused turn after turn (`call_0` in every turn) then cost one
            // step, not one per earlier turn.
            let split = slice.partition_point(|x| x.2 < i);
            let (before, after) = slice.split_at(split);
            for c in before.iter().rev().chain(after).map(|p| p.2) {
                if c != i && tree.is_ancestor_or_self(c, i) && sent_again(&t.entries[c as usize]) {
                    matched = Some(c);
                    break;
                }
                // Claude Code: the call may sit in another entry of the same call group on the path.
                if let Some(g) = t.entries[c as usize].call_group() {
                    if let Parent::Entry(p) = e.parent {
                        if t.entries[p as usize].call_group() == Some(g) && sent_again(&t.entries[c as usize]) {
                            matched = Some(c);
                            break;
                        }
                    }
                }
            }
            match matched {
                Some(c) => {
                    // Answered twice on this path?
                    let second = results_by_id.between(id, c, i).any(|r| r != i && tree.is_ancestor_or_self(r, i));
                    if second {
                        out.push(Pairing::Orphan { unit: i, block: j, second: true });
                    }
                }
                None => {
                    // A result on a path cut by a reported break (a dangling parent,
                    // a second root, a torn line that held its call) is a consequence.
                    if an.tainted[i as usize] {
                        continue;
                    }
                    // A call cut by a compaction (not kept) is not judged.
                    if calls.clone().any(|c| tree.is_ancestor_or_self(c, i))
                        && tree.compaction[i as usize] != crate::analysis::NONE
                        && calls.clone().all(|c| sent_again(&t.entries[c as usize]))
                    {
                        continue;
                    }
                    out.push(Pairing::Orphan { unit: i, block: j, second: false });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `gallop` lands where a binary search over the rest lands.
        #[test]
        fn gallop_is_partition_point(mut v in proptest::collection::vec(0u8..20, 0..200), start in 0usize..220, cut in 0u8..21) {
            v.sort_unstable();
            let start = start.min(v.len());
            prop_assert_eq!(gallop(&v, start, |x| *x < cut), start + v[start..].partition_point(|x| *x < cut));
        }

        /// `ById::slice` gives exactly the entries naming the id, in write
        /// order, whether the id is there or not, reused or not.
        #[test]
        fn by_id_slice_is_every_entry_naming_the_id(ids in proptest::collection::vec(0u16..300, 0..400), probe in 0u16..320) {
            let names: Vec<String> = (0u16..320).map(|k| format!("call_{k}")).collect();
            let pairs: Vec<(&str, u32)> = ids.iter().enumerate().map(|(e, k)| (names[*k as usize].as_str(), e as u32)).collect();
            let by = ById::new(pairs.clone());
            let want: Vec<u32> = pairs.iter().filter(|p| p.0 == names[probe as usize]).map(|p| p.1).collect();
            let got: Vec<u32> = by.slice(&names[probe as usize]).iter().map(|p| p.2).collect();
            prop_assert_eq!(got, want);
        }
    }
}
