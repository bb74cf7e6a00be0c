//! The shared mechanism of the duplicate rules (CTX101–CTX103): occurrences of
//! equal keys that lie in one request or one step. In a transcript two
//! occurrences lie in one step when the earlier is on the later's path and
//! still in context there ([`crate::analysis::Tree::in_context_at`]); a copy is
//! reported once, however many steps contain it.

use crate::analysis::{Tree, sent_again};
use crate::model::*;
use foldhash::{HashMap, HashSet};

/// Where an occurrence is: a transcript entry (or request message / slot part) and a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Occ {
    /// Transcript entry index, or request unit (see [`request_units`]).
    pub unit: u32,
    /// Block index inside the unit.
    pub block: u32,
}

/// Candidates scanned backwards per key before giving up (bounds pathological inputs).
const SCAN: usize = 256;

/// Occurrences by key.
#[derive(Default)]
pub struct Dupes {
    by_key: HashMap<u64, Vec<Occ>>,
}

impl Dupes {
    /// A new index.
    pub fn new() -> Self {
        Self::default()
    }

    /// The first earlier occurrence of `key` in context at `occ` (transcripts).
    /// `distinct_units` requires it to be in another entry.
    pub fn find_in_transcript(
        &self,
        t: &Transcript,
        tree: &Tree,
        key: u64,
        occ: Occ,
        distinct_units: bool,
    ) -> Option<Occ> {
        let list = self.by_key.get(&key)?;
        let mut first = None;
        for prev in list.iter().rev().take(SCAN) {
            if prev.unit == occ.unit {
                if !distinct_units {
                    first = Some(*prev);
                }
                continue;
            }
            if !tree.is_ancestor_or_self(prev.unit, occ.unit) {
                continue; // another branch
            }
            if tree.in_context_at(t, prev.unit, occ.unit) {
                first = Some(*prev);
            } else {
                break; // activity is monotone along a path: earlier copies are out too
            }
        }
        first
    }

    /// Like [`Dupes::find_in_transcript`] with distinct units, and also counts
    /// the earlier copies (in distinct entries) still in context at `occ`
    /// (within the scan bound): `(first, copies before occ)`.
    pub fn copies_in_transcript(&self, t: &Transcript, tree: &Tree, key: u64, occ: Occ) -> (Option<Occ>, u32) {
        let Some(list) = self.by_key.get(&key) else { return (None, 0) };
        let (mut first, mut n, mut last_unit) = (None, 0u32, u32::MAX);
        for prev in list.iter().rev().take(SCAN) {
            if prev.unit == occ.unit || !tree.is_ancestor_or_self(prev.unit, occ.unit) {
                continue; // the same entry, or another branch
            }
            if tree.in_context_at(t, prev.unit, occ.unit) {
                first = Some(*prev);
                if prev.unit != last_unit {
                    n += 1;
                    last_unit = prev.unit;
                }
            } else {
                break; // activity is monotone along a path: earlier copies are out too
            }
        }
        (first, n)
    }

    /// The first occurrence of `key` in units `from..to`, and how many of
    /// those units hold it (for a copy looked for only among the entries of
    /// one group, such as a Codex context burst).
    pub fn first_in_units(&self, key: u64, from: u32, to: u32) -> (Option<Occ>, u32) {
        let Some(list) = self.by_key.get(&key) else { return (None, 0) };
        let mut units: Vec<u32> = list.iter().filter(|o| (from..to).contains(&o.unit)).map(|o| o.unit).collect();
        units.dedup();
        (list.iter().find(|o| (from..to).contains(&o.unit)).copied(), units.len() as u32)
    }

    /// Whether `key` already occurred in unit `unit`.
    pub fn has_unit(&self, key: u64, unit: u32) -> bool {
        self.by_key.get(&key).is_some_and(|l| l.iter().any(|o| o.unit == unit))
    }

    /// The first earlier occurrence of `key` in the same request.
    pub fn find_in_request(&self, key: u64, occ: Occ, distinct_units: bool) -> Option<Occ> {
        self.by_key.get(&key)?.iter().find(|p| !distinct_units || p.unit != occ.unit).copied()
    }

    /// Records an occurrence.
    pub fn push(&mut self, key: u64, occ: Occ) {
        self.by_key.entry(key).or_default().push(occ);
    }
}

/// Request units: messages are `0..n`; slot part `p` of slot `s` is `SLOT | s << 16 | p`.
pub const SLOT: u32 = 0x8000_0000;

/// The prompt-side text blocks of a request, in order: slot parts first, then
/// messages (tool results, assistant output and media excluded).
pub fn request_units(r: &Request) -> Vec<(Occ, &Block, Option<&Message>)> {
    let mut out = Vec::new();
    for (s, slot) in r.slots.iter().enumerate() {
        for (p, b) in slot.parts.iter().enumerate() {
            out.push((Occ { unit: SLOT | (s as u32) << 16 | p as u32, block: 0 }, b, None));
        }
    }
    for (i, m) in r.messages.iter().enumerate() {
        if m.role == Role::Assistant || m.role == Role::Tool {
            continue;
        }
        for (j, b) in m.blocks.iter().enumerate() {
            if b.kind == BlockKind::Text {
                out.push((Occ { unit: i as u32, block: j as u32 }, b, Some(&**m)));
            }
        }
    }
    out
}

/// The message of a transcript entry when it is prompt-side and sent, unpacked
/// (the kind is checked first, so other messages are never unpacked).
pub fn prompt_message(t: &Transcript, e: &Entry) -> Option<Message> {
    e.kind().filter(|k| k.is_prompt_side() && sent_again(e)).and_then(|_| t.message(e))
}

/// The text blocks of a transcript entry's message when it is prompt-side
/// and sent ([`prompt_message`]'s), read in place from the packed message:
/// nothing is unpacked for a rule that reads only texts and pointers.
pub fn prompt_blocks<'a>(t: &'a Transcript, e: &Entry) -> impl Iterator<Item = crate::model::packed::BlockRef<'a>> {
    e.kind()
        .filter(|k| k.is_prompt_side() && sent_again(e))
        .and_then(|_| t.packed(e))
        .into_iter()
        .flat_map(|m| m.blocks().filter(|b| b.kind == BlockKind::Text))
}

/// The text blocks of a [`prompt_message`], with their index.
pub fn entry_blocks(m: Option<&Message>) -> impl Iterator<Item = (u32, &Block, &Message)> {
    m.into_iter().flat_map(|m| {
        m.blocks.iter().enumerate().filter(|(_, b)| b.kind == BlockKind::Text).map(move |(j, b)| (j as u32, b, m))
    })
}

/// Suppresses re-reports across a stream: a finding whose (pointer relative to
/// its request body, key) was already seen in an earlier request of the same
/// conversation (requests paired per endpoint and linked by
/// [`crate::conversation::links`]) is the same copy re-sent with the history.
/// Built with [`StreamMemo::new`]; `default()` only remembers the previous
/// request.
#[derive(Default)]
pub struct StreamMemo {
    prev: HashSet<(String, String)>,
    cur: HashSet<(String, String)>,
    /// Conversation number of each request (empty: previous-request mode).
    conv_of: Vec<usize>,
    /// Keys seen so far, per conversation.
    seen: HashMap<usize, HashSet<(String, String)>>,
    next: usize,
    current: Option<usize>,
    /// Per request (by position), its [`Request::aliases`]: a copy there is
    /// recorded under the pointer it has in the next request.
    aliases: Vec<HashMap<String, String>>,
    current_aliases: Option<usize>,
}

impl StreamMemo {
    /// A memo that follows the conversations of `s`, whose
    /// [`links`](crate::conversation::links) are `links`.
    pub fn new(s: &Stream, links: &[crate::conversation::Link]) -> Self {
        use crate::conversation::Link;
        let mut conv_of: Vec<usize> = Vec::with_capacity(s.requests.len());
        for (j, &l) in links.iter().enumerate() {
            let c = match l {
                Link::Continues { prev, .. }
                | Link::Compaction { prev }
                | Link::AfterFailure { prev }
                | Link::NewLane { prev } => conv_of[prev],
                Link::First | Link::NewConversation { .. } => j,
            };
            conv_of.push(c);
        }
        let aliases = if s.requests.iter().any(|r| !r.aliases.is_empty()) {
            s.requests.iter().map(|r| r.aliases.iter().cloned().collect()).collect()
        } else {
            Vec::new()
        };
        StreamMemo { conv_of, aliases, ..Default::default() }
    }
    /// Starts the next request (call once per request, in stream order).
    pub fn next_request(&mut self) {
        if self.conv_of.is_empty() {
            self.prev = std::mem::take(&mut self.cur);
        } else {
            self.current = self.conv_of.get(self.next).copied();
            self.current_aliases = Some(self.next).filter(|&i| i < self.aliases.len());
            self.next += 1;
        }
    }
    /// Records a finding; returns whether it is new (not a re-send of an earlier request's).
    pub fn is_new(&mut self, rel_pointer: &str, key: &str) -> bool {
        let rel_pointer =
            self.current_aliases.and_then(|i| self.aliases[i].get(rel_pointer)).map_or(rel_pointer, String::as_str);
        let k = (rel_pointer.to_string(), key.to_string());
        if let Some(c) = self.current {
            return self.seen.entry(c).or_default().insert(k);
        }
        let new = !self.prev.contains(&k);
        self.cur.insert(k);
        new
    }
}

/// The JSON Pointer in the file of a request unit's block ([`Request::at`]).
pub fn unit_pointer(r: &Request, occ: Occ) -> String {
    if occ.unit & SLOT != 0 {
        let s = ((occ.unit & !SLOT) >> 16) as usize;
        let p = (occ.unit & 0xffff) as usize;
        return r.at(&r.slots[s].parts[p].pointer);
    }
    r.at(&r.messages[occ.unit as usize].blocks[occ.block as usize].pointer)
}

/// The block of a request unit.
pub fn unit_block(r: &Request, occ: Occ) -> &Block {
    if occ.unit & SLOT != 0 {
        let s = ((occ.unit & !SLOT) >> 16) as usize;
        let p = (occ.unit & 0xffff) as usize;
        return &r.slots[s].parts[p];
    }
    &r.messages[occ.unit as usize].blocks[occ.block as usize]
}

#[cfg(test)]
mod tests {
    use super::StreamMemo;
    use crate::formats::parse_body;
    use crate::model::Stream;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn memo_follows_conversations_across_interleaved_endpoints_and_retries() {
        let chat = |msgs: serde_json::Value| json!({ "messages": msgs });
        let a = json!([{"role":"user","content":"a"}]);
        let ab =
            json!([{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]);
        let other = json!([{"role":"user","content":"z"}]);
        let bodies = [chat(ab.clone()), chat(a), chat(ab), chat(other)];
        let mut s = Stream {
            requests: bodies
                .iter()
                .enumerate()
                .map(|(i, b)| parse_body(crate::formats::openai_chat::ID, b, &Arc::from("x"), i, "").expect("parses"))
                .collect(),
        };
        // An unrelated endpoint in between does not break the chain.
        let mut g = parse_body(
            crate::formats::gemini::ID,
            &json!({"contents":[{"role":"user","parts":[{"text":"q"}]}]}),
            &Arc::from("x"),
            9,
            "",
        )
        .expect("parses");
        g.endpoint = Some("/g".into());
        s.requests.insert(1, g);
        let mut m = StreamMemo::new(&s, &crate::conversation::links(&s));
        let mut seen = Vec::new();
        for _ in 0..s.requests.len() {
            m.next_request();
            seen.push(m.is_new("/messages/0", "dup"));
        }
        // request 0 reports; the gemini request is its own conversation; the retry (2) and the
        // re-extension (3) are the same conversation; request 4 is a new conversation.
        assert_eq!(seen, vec![true, true, false, false, true]);
    }
}
