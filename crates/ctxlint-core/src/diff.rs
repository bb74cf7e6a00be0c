//! `ctxlint diff`: a structural diff of two recorded requests, aligned in
//! cache order (tools → system → messages), with the verdict of
//! [`crate::conversation`] on top (docs/spec.md §1, §3).
//!
//! The verdict is not computed here: [`diff`] asks `conversation::links`
//! whether B continues A, starts a new conversation or crosses a compaction,
//! and `conversation::compare` where B's cache prefix first diverges. This
//! module only aligns the elements of both requests for display:
//! - **tools**: the whole `tools` value is one element (its canonical JSON);
//! - **system**: the parts of the per-request slots (`system`, `instructions`,
//!   `systemInstruction`), aligned per slot kind;
//! - **messages**: the elements of `conversation::elements` (content blocks,
//!   items, parts; a Chat message with string content as a whole), system
//!   messages and system-prompt parts included, aligned by their comparison
//!   key (role + canonical JSON hash, `cache_control` ignored), so a moved
//!   `cache_control` marker is never a change.
//!
//! Alignment is a Myers diff of the keys; inside a replaced run, an element of
//! B is paired with the next unpaired element of A of the same description
//! (role and block kind, e.g. "user text block") and reported as `Changed`
//! with a line diff of their texts; the others are `Removed` / `Added`.
//!
//! Cost (issue 15): the element alignment has a deadline ([`ALIGN_BUDGET`]:
//! past it, the rest is one replaced run) and the pairing inside a replaced
//! run is linear; texts are diffed only for changed elements, all of one
//! request pair under one deadline ([`TEXT_BUDGET`], inline emphasis
//! included): past it, texts are compared as coarse line runs without
//! emphasis. So two large bodies are compared in time about linear in their size.
//!
//! Texts are masked ([`crate::text::mask_secrets`]) before they are stored or
//! diffed: no renderer can show a key.
//!
//! Shape of a [`RequestDiff`] (JSON renderer: `report::diff::json`):
//! ```text
//! RequestDiff { a: RequestRef, b: RequestRef, verdict: Verdict,
//!               rewrite: Option<Rewrite>,    // the first divergence (verdict Rewrite)
//!               dropped: Vec<Dropped>,       // system prompts of A missing from B
//!               chained: bool,               // B chains to A's response (server-held prefix)
//!               changes: Vec<Change> }       // every element in cache order, Same ones included
//! Change { op: Same|Added|Removed|Changed, level: tools|system|messages, section,
//!          a: Option<Side>, b: Option<Side>, diff: Option<TextChange> }
//! Side { pointer, what, text, bytes }
//! ```

use crate::conversation::{self, Dropped, Level, Link, Rewrite};
use crate::model::*;
use crate::text::mask_secrets;
use similar::{Algorithm, ChangeTag, DiffOp};
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// What `ctxlint diff` concludes about B relative to A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The same tools, system prompts and elements (other fields, such as
    /// `model` or sampling parameters, are not compared).
    Identical,
    /// B continues A's conversation and its cache prefix extends A's.
    Extension,
    /// B continues A's conversation with a history that is a prefix of A's (a
    /// retry, or a fresh run of the same prompt): it still reads the cache.
    Retry,
    /// B continues A's conversation but its prefix diverges (`history-rewrite`).
    Rewrite,
    /// B starts a new conversation (or is sent to another endpoint): not compared.
    NewConversation,
    /// B crosses a compaction boundary after A: not compared.
    Compaction,
}

impl Verdict {
    /// Stable name (`identical`, `extension`, `retry`, `rewrite`, `new conversation`, `compaction`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::Extension => "extension",
            Verdict::Retry => "retry",
            Verdict::Rewrite => "rewrite",
            Verdict::NewConversation => "new conversation",
            Verdict::Compaction => "compaction",
        }
    }
}

/// Which request a side of the diff is.
#[derive(Debug, Clone)]
pub struct RequestRef {
    /// File the request came from (as given).
    pub path: String,
    /// Body format id.
    pub format: FormatId,
    /// 0-based request index in its file or stream.
    pub index: usize,
    /// Pointer of the body in its file (`""` for a body file).
    pub pointer: String,
}

impl RequestRef {
    fn of(r: &Request) -> RequestRef {
        RequestRef { path: r.path.to_string(), format: r.body_format, index: r.index, pointer: r.pointer.clone() }
    }
}

/// What happened to an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Sent by both, equal.
    Same,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// In both at the same place, different.
    Changed,
}

impl Op {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Same => "same",
            Op::Added => "added",
            Op::Removed => "removed",
            Op::Changed => "changed",
        }
    }
}

/// One element on one side.
#[derive(Debug, Clone)]
pub struct Side {
    /// JSON Pointer of the element in its document.
    pub pointer: String,
    /// Description, e.g. "user text block", "`system` part", "tools". Empty,
    /// as [`Side::text`] is, for an element both requests send alike
    /// ([`Op::Same`]): no output shows it.
    pub what: String,
    /// Its text for display (tool calls: name, id and pretty-printed
    /// arguments), secrets masked. Empty for an element (tools, system part,
    /// message) both requests send alike ([`Op::Same`]): no output shows it,
    /// and building it for every unchanged element was most of a report's
    /// request diffs.
    pub text: String,
    /// Length in bytes of its text as sent.
    pub bytes: usize,
}

/// One line of a text diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// Context, removed or added.
    pub tag: ChangeTag,
    /// The line's text in segments; `true` marks a segment that differs from the
    /// paired line (inline emphasis). Without the line break.
    pub parts: Vec<(bool, String)>,
    /// The line has no newline at its end (only shown when the other text's has one).
    pub no_newline: bool,
}

/// A hunk of a text diff.
#[derive(Debug, Clone)]
pub struct Hunk {
    /// `@@ -a,b +c,d @@`.
    pub header: String,
    /// Its lines.
    pub lines: Vec<DiffLine>,
}

/// The line diff of two texts, with inline emphasis.
#[derive(Debug, Clone, Default)]
pub struct TextChange {
    /// Hunks with two lines of context.
    pub hunks: Vec<Hunk>,
    /// Said instead of (or besides) hunks, e.g. when the texts are equal and
    /// the elements differ in other fields.
    pub note: Option<String>,
}

impl TextChange {
    /// The diff as unified-diff text (no file header).
    pub fn unified(&self) -> String {
        let mut out = String::new();
        for h in &self.hunks {
            out.push_str(&h.header);
            out.push('\n');
            for l in &h.lines {
                out.push(match l.tag {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                });
                for (_, s) in &l.parts {
                    out.push_str(s);
                }
                out.push('\n');
                if l.no_newline {
                    out.push_str("\\ No newline at end of text\n");
                }
            }
        }
        out
    }
}

/// One element in cache order.
#[derive(Debug, Clone)]
pub struct Change {
    /// What happened to it.
    pub op: Op,
    /// Cache level (a system message among the messages is at level `System`).
    pub level: Level,
    /// Where the element is sent: `tools`, `system` (the per-request slots) or `messages`.
    pub section: &'static str,
    /// The element in A (absent when added).
    pub a: Option<Side>,
    /// The element in B (absent when removed).
    pub b: Option<Side>,
    /// The text diff (changed elements only).
    pub diff: Option<TextChange>,
}

impl Change {
    /// Where the change is: B's pointer, or A's for a removed element.
    pub fn pointer(&self) -> &str {
        self.b.as_ref().or(self.a.as_ref()).map(|s| s.pointer.as_str()).unwrap_or("")
    }
}

/// The structural diff of two requests.
#[derive(Debug, Clone)]
pub struct RequestDiff {
    /// Request A (the earlier one).
    pub a: RequestRef,
    /// Request B.
    pub b: RequestRef,
    /// The verdict.
    pub verdict: Verdict,
    /// The first divergence of B's cache prefix (verdict `Rewrite`), from `conversation::compare`.
    pub rewrite: Option<Rewrite>,
    /// System prompts of A that B no longer sends (`dropped-system-prompt`).
    pub dropped: Vec<Dropped>,
    /// B chains to A's response (`previous_response_id`, a stored
    /// conversation): its history is held by the server, so B's messages are
    /// all new and A's are not listed as removed.
    pub chained: bool,
    /// Why B is not compared with A, for `NewConversation` when it is not about the history.
    pub note: Option<String>,
    /// When A and B are requests of one stream: the lane (agent) of each, and
    /// the request the rules compare it with (docs/spec.md §1 *Lanes*), as `show`
    /// says it; set by the caller ([`lanes_of`]).
    pub lanes: Option<[String; 2]>,
    /// Every element of both requests in cache order.
    pub changes: Vec<Change>,
}

impl RequestDiff {
    /// The first line of the report: `extension`, `identical`, `retry`,
    /// `rewrite at <level> <pointer>`, `new conversation`, `compaction`.
    pub fn headline(&self) -> String {
        match (&self.verdict, &self.rewrite) {
            (Verdict::Rewrite, Some(r)) => {
                let p = if r.pointer.is_empty() { "\"\"" } else { r.pointer.as_str() };
                format!("rewrite at {} {p}", r.level.as_str())
            }
            (v, _) => v.as_str().to_string(),
        }
    }
    /// Whether B is compared with A: not when it starts another conversation
    /// (or goes to another endpoint) or follows a compaction. The reports then
    /// list the elements that differ without their texts.
    pub fn compared(&self) -> bool {
        !matches!(self.verdict, Verdict::NewConversation | Verdict::Compaction)
    }
    /// Elements that differ (every change but `Same`).
    pub fn differences(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.op != Op::Same)
    }
}

/// Time the Myers alignment of one list of elements may take before the
/// rest is aligned coarsely.
pub const ALIGN_BUDGET: Duration = Duration::from_millis(250);
/// Time all text diffs of one request pair may take before the rest are
/// coarse (no inline emphasis, line runs replaced whole).
pub const TEXT_BUDGET: Duration = Duration::from_secs(1);

/// Compares request `b` with the earlier request `a`.
pub fn diff(a: &Request, b: &Request) -> RequestDiff {
    let mut changes = Vec::new();
    let deadline = Instant::now() + TEXT_BUDGET;
    tools(a, b, &mut changes, deadline);
    slots(a, b, &mut changes, deadline);
    // The verdict: conversation.rs decides, on a two-request stream.
    let pair_stream = Stream { requests: vec![a.clone(), b.clone()] };
    let link = conversation::links(&pair_stream)[1];
    let chained = matches!(link, Link::Continues { chained: true, .. });
    messages(a, b, chained, &mut changes, deadline);
    let mut out = RequestDiff {
        a: RequestRef::of(a),
        b: RequestRef::of(b),
        verdict: Verdict::NewConversation,
        rewrite: None,
        dropped: Vec::new(),
        chained,
        note: None,
        lanes: None,
        changes,
    };
    if out.differences().next().is_none() {
        out.verdict = Verdict::Identical;
        return out;
    }
    match link {
        Link::First => {
            out.note = Some(format!(
                "the requests are sent to different endpoints ({} and {}): not compared",
                endpoint(a),
                endpoint(b)
            ));
        }
        Link::NewConversation { .. } => {
            out.note = Some(
                if a.conversation_id.is_some() && b.conversation_id.is_some() && a.conversation_id != b.conversation_id
                {
                    "the requests carry different conversation ids".into()
                } else if a.session_id.is_some() && b.session_id.is_some() && a.session_id != b.session_id {
                    "the requests carry different session ids".into()
                } else if b.previous_response_id.is_some() {
                    "B's previous_response_id does not name A's recorded response".into()
                } else {
                    "the histories begin with different elements".into()
                },
            );
        }
        Link::NewLane { .. } => {
            out.note = Some(
                "B continues A's conversation but is another agent's request: it shares neither the tool set nor the system prompt with A, so it starts its own lane and is not compared with A"
                    .into(),
            );
        }
        Link::Compaction { .. } => out.verdict = Verdict::Compaction,
        Link::AfterFailure { .. } => {
            out.note = Some(
                "A's model call failed with a prompt error: B is the runtime's recovery, which the rules do not compare"
                    .into(),
            );
            let pair = conversation::compare(a, b, a.index, b.index, false);
            out.dropped = pair.dropped;
            out.verdict = if pair.rewrite.is_some() { Verdict::Rewrite } else { Verdict::Extension };
            out.rewrite = pair.rewrite;
        }
        Link::Continues { chained, .. } => {
            let pair = conversation::compare(a, b, a.index, b.index, chained);
            out.dropped = pair.dropped;
            out.verdict = if pair.rewrite.is_some() {
                Verdict::Rewrite
            } else if !chained && is_retry(a, b) {
                Verdict::Retry
            } else {
                Verdict::Extension
            };
            out.rewrite = pair.rewrite;
        }
    }
    out
}

/// The lanes of requests `a` and `b` of one stream `s` (see
/// [`RequestDiff::lanes`]), with the request each is compared with named by
/// its request index. `lanes` are [`conversation::lanes`] of `s` (computed
/// once by a caller that diffs many pairs of one stream).
pub fn lanes_of(s: &Stream, lanes: &[conversation::Lane], a: &Request, b: &Request) -> Option<[String; 2]> {
    let line = |r: &Request| {
        let pos = s.requests.iter().position(|x| std::ptr::eq(x, r))?;
        let mut l = lanes.get(pos)?.clone();
        l.compared_with = l.compared_with.map(|i| s.requests[i].index);
        Some(l.describe())
    };
    Some([line(a)?, line(b)?])
}

/// The requests of a loaded input; a transcript is an error (`diff` compares
/// recorded requests).
pub fn requests(input: &Input) -> crate::Result<&[Request]> {
    match &input.body {
        Body::Stream(s) if !s.requests.is_empty() => Ok(&s.requests),
        Body::Stream(_) => Err(crate::Error::Usage(format!(
            "{}: holds no request ({} exchange(s) skipped: no request format)",
            input.path, input.skipped
        ))),
        Body::Transcript(_) => Err(crate::Error::Usage(format!(
            "{}: is a {} transcript, not a recorded request; `ctxlint diff` compares request bodies, cassettes, exchange logs and history snapshots (try `ctxlint show {}`)",
            input.path, input.format, input.path
        ))),
    }
}

/// Request `i` of an input (its 0-based request index: for cassettes and
/// exchange logs, the interaction or line, counting skipped exchanges).
pub fn pick(input: &Input, i: usize) -> crate::Result<&Request> {
    let rs = requests(input)?;
    rs.iter().find(|r| r.index == i).ok_or_else(|| {
        crate::Error::Usage(format!(
            "{}: no request {i} (it has {})",
            input.path,
            crate::show::describe_indices(rs.iter().map(|r| r.index), "request")
        ))
    })
}

/// The only request of an input (a body file, or a one-request stream).
pub fn only(input: &Input) -> crate::Result<&Request> {
    match requests(input)? {
        [r] => Ok(r),
        rs => Err(crate::Error::Usage(format!(
            "{}: holds {} requests; pick them with `--request I J` (it has {})",
            input.path,
            rs.len(),
            crate::show::describe_indices(rs.iter().map(|r| r.index), "request")
        ))),
    }
}

fn endpoint(r: &Request) -> String {
    match &r.endpoint {
        Some(e) => format!("{} {e}", r.body_format),
        None => r.body_format.to_string(),
    }
}

/// B's history is a proper prefix of A's (or equal to it).
fn is_retry(a: &Request, b: &Request) -> bool {
    let ha: Vec<u64> = conversation::elements(a).iter().filter(|e| !e.system).map(|e| e.key).collect();
    let hb: Vec<u64> = conversation::elements(b).iter().filter(|e| !e.system).map(|e| e.key).collect();
    hb.len() <= ha.len() && ha[..hb.len()] == hb[..]
}

fn tools(a: &Request, b: &Request, out: &mut Vec<Change>, deadline: Instant) {
    // (Equal tools have no text: see [`Side::text`].)
    let side_with = |r: &Request, t: &(String, u64, String), text: bool| Side {
        pointer: r.at(&t.0),
        what: if text { "tools".into() } else { String::new() },
        text: if text { mask_secrets(&t.2) } else { String::new() },
        bytes: t.2.len(),
    };
    let side = |r: &Request, t: &(String, u64, String)| side_with(r, t, true);
    match (&a.tools, &b.tools) {
        (None, None) => {}
        (Some(x), None) => out.push(change(Op::Removed, Level::Tools, Some(side(a, x)), None)),
        (None, Some(y)) => out.push(change(Op::Added, Level::Tools, None, Some(side(b, y)))),
        (Some(x), Some(y)) => {
            if x.1 == y.1 {
                out.push(change(Op::Same, Level::Tools, Some(side_with(a, x, false)), Some(side_with(b, y, false))));
            } else {
                let (sa, sb) = (side(a, x), side(b, y));
                let d = text_change_until(&sa.text, &sb.text, deadline);
                out.push(Change {
                    op: Op::Changed,
                    level: Level::Tools,
                    section: "tools",
                    a: Some(sa),
                    b: Some(sb),
                    diff: Some(d),
                });
            }
        }
    }
}

fn change(op: Op, level: Level, a: Option<Side>, b: Option<Side>) -> Change {
    let section = match level {
        Level::Tools => "tools",
        Level::System => "system",
        Level::Messages => "messages",
    };
    Change { op, level, section, a, b, diff: None }
}

fn slots(a: &Request, b: &Request, out: &mut Vec<Change>, deadline: Instant) {
    // Slot kinds in A's order, then B's new ones.
    let mut kinds: Vec<SlotKind> = a.slots.iter().map(|s| s.kind).collect();
    kinds.extend(b.slots.iter().map(|s| s.kind).filter(|k| !a.slots.iter().any(|s| s.kind == *k)));
    kinds.dedup();
    for kind in kinds {
        let pa: Vec<&Block> = a.slots.iter().filter(|s| s.kind == kind).flat_map(|s| &s.parts).collect();
        let pb: Vec<&Block> = b.slots.iter().filter(|s| s.kind == kind).flat_map(|s| &s.parts).collect();
        let key = |p: &&Block| if p.json_hash != 0 { p.json_hash } else { p.text_hash };
        let side_with = |r: &Request, p: &Block, text: bool| Side {
            pointer: r.at(&p.pointer),
            what: if text { format!("`{}` part", kind.as_str()) } else { String::new() },
            text: if text { mask_secrets(&p.text) } else { String::new() },
            bytes: p.text_len as usize,
        };
        let side = |r: &Request, p: &Block| side_with(r, p, true);
        for pairing in align(
            &pa.iter().map(key).collect::<Vec<_>>(),
            &pb.iter().map(key).collect::<Vec<_>>(),
            &vec![0; pa.len()],
            &vec![0; pb.len()],
        ) {
            out.push(match pairing {
                Pairing::Same(i, j) => {
                    change(Op::Same, Level::System, Some(side_with(a, pa[i], false)), Some(side_with(b, pb[j], false)))
                }
                Pairing::Removed(i) => change(Op::Removed, Level::System, Some(side(a, pa[i])), None),
                Pairing::Added(j) => change(Op::Added, Level::System, None, Some(side(b, pb[j]))),
                Pairing::Changed(i, j) => {
                    let (sa, sb) = (side(a, pa[i]), side(b, pb[j]));
                    let mut d = text_change_until(&sa.text, &sb.text, deadline);
                    if d.hunks.is_empty() {
                        d.note = Some(other_fields(a, &sa.pointer, b, &sb.pointer, &mut d, deadline));
                    }
                    Change {
                        op: Op::Changed,
                        level: Level::System,
                        section: "system",
                        a: Some(sa),
                        b: Some(sb),
                        diff: Some(d),
                    }
                }
            });
        }
    }
}

fn messages(a: &Request, b: &Request, chained: bool, out: &mut Vec<Change>, deadline: Instant) {
    let (ea, eb) = (conversation::elements(a), conversation::elements(b));
    // The message last read again from each side's file (a block of it
    // shown), kept for its next blocks: read again once per message, not
    // once per block (6,000 blocks of one message took two minutes).
    let again_a: RefCell<Option<(usize, Option<Message>)>> = RefCell::new(None);
    let again_b: RefCell<Option<(usize, Option<Message>)>> = RefCell::new(None);
    let side_with = |r: &Request, e: &conversation::Element, text: bool| {
        let m = &r.messages[e.msg];
        let pick = |m| element_blocks(m, e.block);
        let blocks = pick(m);
        let bytes = blocks.iter().map(|b| b.text_len as usize).sum();
        // A text kept only as its first bytes (a large body loaded for
        // `diff`): the element is read again, whole, to be shown.
        let shown_again = text && blocks.iter().any(|b| !b.has_full_text());
        let cache = if std::ptr::eq(r, a) { &again_a } else { &again_b };
        if shown_again && cache.borrow().as_ref().is_none_or(|(k, _)| *k != e.msg) {
            let x = crate::formats::element_again(r, e.msg).filter(|x| same_texts(x, m));
            *cache.borrow_mut() = Some((e.msg, x));
        }
        let held = cache.borrow();
        let again = held.as_ref().filter(|_| shown_again).and_then(|(_, x)| x.as_ref());
        let blocks = match again {
            Some(x) => pick(x),
            None => blocks,
        };
        Side {
            pointer: r.at(e.pointer),
            what: if text { e.describe(r) } else { String::new() },
            text: if text {
                mask_secrets(&blocks.iter().map(|b| display_text(b)).collect::<Vec<_>>().join("\n"))
            } else {
                String::new()
            },
            bytes,
        }
    };
    let side = |r: &Request, e: &conversation::Element| side_with(r, e, true);
    let level = |e: &conversation::Element| if e.system { Level::System } else { Level::Messages };
    if chained {
        // The prefix is held by the server: everything B sends is new.
        for y in &eb {
            out.push(Change { section: "messages", ..change(Op::Added, level(y), None, Some(side(b, y))) });
        }
        return;
    }
    let ka: Vec<u64> = ea.iter().map(|e| e.key).collect();
    let kb: Vec<u64> = eb.iter().map(|e| e.key).collect();
    // Elements pair as a change when they are of one kind; a string-content
    // message and a text block of that role are one kind (docs/spec.md §1: the two
    // serialisations of one element), so an edited turn re-sent in the other
    // shape shows as changed, with its text diff.
    let class = |r: &Request, e: &conversation::Element| {
        let m = &r.messages[e.msg];
        let text = match e.block {
            Some(i) => m.blocks[i].kind == BlockKind::Text,
            None => matches!(m.blocks.as_slice(), [x] if x.kind == BlockKind::Text),
        };
        if text && r.body_format != crate::formats::pydantic_ai::ID {
            format!("{} text", m.role.as_str())
        } else {
            e.describe(r)
        }
    };
    let mut ids: foldhash::HashMap<String, u32> = Default::default();
    let mut id = |c: String| {
        let n = ids.len() as u32;
        *ids.entry(c).or_insert(n)
    };
    let da: Vec<u32> = ea.iter().map(|e| id(class(a, e))).collect();
    let db: Vec<u32> = eb.iter().map(|e| id(class(b, e))).collect();
    let pairings = align(&ka, &kb, &da, &db);
    // One change per pairing: room for them at once (grown by doubling,
    // a 90,000-element pair of bodies held 15 MB for 10).
    out.reserve_exact(pairings.len());
    for pairing in pairings {
        let mut c = match pairing {
            Pairing::Same(i, j) => {
                change(Op::Same, level(&ea[i]), Some(side_with(a, &ea[i], false)), Some(side_with(b, &eb[j], false)))
            }
            Pairing::Removed(i) => change(Op::Removed, level(&ea[i]), Some(side(a, &ea[i])), None),
            Pairing::Added(j) => change(Op::Added, level(&eb[j]), None, Some(side(b, &eb[j]))),
            Pairing::Changed(i, j) => {
                let (sa, sb) = (side(a, &ea[i]), side(b, &eb[j]));
                let mut d = text_change_until(&sa.text, &sb.text, deadline);
                if d.hunks.is_empty() {
                    d.note = Some(other_fields(a, &sa.pointer, b, &sb.pointer, &mut d, deadline));
                }
                let lv = if ea[i].system || eb[j].system { Level::System } else { Level::Messages };
                Change { op: Op::Changed, level: lv, section: "messages", a: Some(sa), b: Some(sb), diff: Some(d) }
            }
        };
        c.section = "messages";
        out.push(c);
    }
}

/// A block's text for display: tool calls show their name, id and
/// pretty-printed arguments; tool results their call id; media a placeholder.
fn display_text(b: &Block) -> String {
    let mut head = String::new();
    if matches!(b.kind, BlockKind::ToolCall | BlockKind::ToolResult) {
        let mut parts = Vec::new();
        if let Some(n) = &b.tool_name {
            parts.push(n.to_string());
        }
        if let Some(id) = &b.tool_id {
            parts.push(format!("id {id}"));
        }
        if !parts.is_empty() {
            head = format!("[{} {}]\n", b.kind.as_str(), parts.join(", "));
        }
    }
    let body = match b.kind {
        BlockKind::ToolCall => match serde_json::from_str::<serde_json::Value>(&b.text) {
            Ok(v) if v.is_object() || v.is_array() => {
                serde_json::to_string_pretty(&v).unwrap_or_else(|_| b.text.to_string())
            }
            _ => b.text.to_string(),
        },
        BlockKind::Media if b.text.is_empty() => "(media)".to_string(),
        _ => b.text.to_string(),
    };
    head + &body
}

/// When the texts are equal, the elements differ in other fields: show their
/// canonical JSON when both documents are kept (request-body files), else say so.
fn other_fields(a: &Request, pa: &str, b: &Request, pb: &str, d: &mut TextChange, deadline: Instant) -> String {
    if let (Some(ja), Some(jb)) = (element_json(a, pa), element_json(b, pb)) {
        let c = text_change_until(&mask_secrets(&ja), &mask_secrets(&jb), deadline);
        if !c.hunks.is_empty() {
            d.hunks = c.hunks;
            return "same text; the element's JSON differs (canonical form, `cache_control` ignored):".into();
        }
    }
    "same text; the elements differ in other fields (e.g. ids, types or signatures)".into()
}

/// The canonical JSON of the element at `pointer`: read from the file's
/// element that holds it when the request keeps its elements' places (a
/// large body, not held whole), else from the kept document text.
fn element_json(r: &Request, pointer: &str) -> Option<String> {
    let v: serde_json::Value = match crate::formats::element_json_again(r, pointer) {
        Some(text) => serde_json::from_str(&text).ok()?,
        None => {
            let raw = r.raw.as_deref()?.text()?;
            let (at, end) = crate::locate::locate_span(raw.as_bytes(), pointer)?;
            serde_json::from_str(raw.get(at..end)?).ok()?
        }
    };
    Some(crate::hash::canonical_string(&v, crate::formats::IGNORED_KEYS))
}

/// The blocks of message `m` an element is: block `block`, or all of them.
fn element_blocks(m: &Message, block: Option<usize>) -> Vec<&Block> {
    match block {
        Some(i) => m.blocks.get(i).into_iter().collect(),
        None => m.blocks.iter().collect(),
    }
}

/// Whether `again` (a message read again from its file) has the texts of
/// `loaded`: as many blocks, each of the same length and hash (the file has
/// not changed since it was loaded).
fn same_texts(again: &Message, loaded: &Message) -> bool {
    again.blocks.len() == loaded.blocks.len()
        && again.blocks.iter().zip(&loaded.blocks).all(|(x, y)| x.text_len == y.text_len && x.text_hash == y.text_hash)
}

/// How two element lists align.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pairing {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
    Changed(usize, usize),
}

/// Aligns two key lists (Myers, coarse past [`ALIGN_BUDGET`]); inside a
/// replaced run, pairs an element of `b` with the next unpaired element of
/// `a` of the same class (`ca`, `cb`); the unpaired ones are listed removed
/// first, then added. Linear in the run's length besides the Myers diff.
fn align(ka: &[u64], kb: &[u64], ca: &[u32], cb: &[u32]) -> Vec<Pairing> {
    let mut out = Vec::with_capacity(ka.len().max(kb.len()));
    let deadline = Instant::now() + ALIGN_BUDGET;
    // Lists without a common key are one replaced run: no Myers search (its
    // cost grows with the product of their lengths when nothing matches).
    let in_a: foldhash::HashSet<u64> = ka.iter().copied().collect();
    let ops = if kb.iter().any(|k| in_a.contains(k)) {
        similar::capture_diff_slices_deadline(Algorithm::Myers, ka, kb, Some(deadline))
    } else if ka.is_empty() && kb.is_empty() {
        Vec::new()
    } else if ka.is_empty() {
        vec![DiffOp::Insert { old_index: 0, new_index: 0, new_len: kb.len() }]
    } else if kb.is_empty() {
        vec![DiffOp::Delete { old_index: 0, old_len: ka.len(), new_index: 0 }]
    } else {
        vec![DiffOp::Replace { old_index: 0, old_len: ka.len(), new_index: 0, new_len: kb.len() }]
    };
    for op in ops {
        match op {
            DiffOp::Equal { old_index, new_index, len } => {
                out.extend((0..len).map(|k| Pairing::Same(old_index + k, new_index + k)))
            }
            DiffOp::Delete { old_index, old_len, .. } => {
                out.extend((old_index..old_index + old_len).map(Pairing::Removed))
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                out.extend((new_index..new_index + new_len).map(Pairing::Added))
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                let (old_end, new_end) = (old_index + old_len, new_index + new_len);
                // Positions of each class in A's run, and a cursor per class.
                let mut by_class: foldhash::HashMap<u32, (Vec<usize>, usize)> = Default::default();
                for k in old_index..old_end {
                    by_class.entry(ca.get(k).copied().unwrap_or(u32::MAX)).or_default().0.push(k);
                }
                let mut matches = Vec::new();
                let mut i = old_index;
                for j in new_index..new_end {
                    let Some((pos, cur)) = cb.get(j).and_then(|c| by_class.get_mut(c)) else { continue };
                    while *cur < pos.len() && pos[*cur] < i {
                        *cur += 1;
                    }
                    if let Some(&k) = pos.get(*cur) {
                        matches.push((k, j));
                        i = k + 1;
                        *cur += 1;
                    }
                }
                // Unpaired elements: A's removed ones before B's added ones.
                let (mut oi, mut nj) = (old_index, new_index);
                for (k, j) in matches {
                    out.extend((oi..k).map(Pairing::Removed));
                    out.extend((nj..j).map(Pairing::Added));
                    out.push(Pairing::Changed(k, j));
                    (oi, nj) = (k + 1, j + 1);
                }
                out.extend((oi..old_end).map(Pairing::Removed));
                out.extend((nj..new_end).map(Pairing::Added));
            }
        }
    }
    out
}

/// The line diff of two texts with inline (word-level) emphasis and two lines
/// of context. Texts that both lack a final newline are diffed as lines
/// without "no newline" markers; a newline added or removed shows.
pub fn text_change(a: &str, b: &str) -> TextChange {
    text_change_until(a, b, Instant::now() + TEXT_BUDGET)
}

/// [`text_change`] with a deadline: past it, the texts are compared as
/// coarse line runs and without inline emphasis.
pub fn text_change_until(a: &str, b: &str, deadline: Instant) -> TextChange {
    let (a, b) = crate::text::close_for_line_diff(a, b);
    let diff = similar::TextDiff::configure().algorithm(Algorithm::Patience).deadline(deadline).diff_lines(&a, &b);
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(2) {
        let header = similar::udiff::UnifiedHunkHeader::new(&group).to_string();
        let mut lines = Vec::new();
        for op in &group {
            if Instant::now() >= deadline {
                for c in diff.iter_changes(op) {
                    let s = c.value().trim_end_matches(['\n', '\r']);
                    let parts = if s.is_empty() { Vec::new() } else { vec![(false, s.to_string())] };
                    lines.push(DiffLine { tag: c.tag(), parts, no_newline: c.missing_newline() });
                }
                continue;
            }
            for c in diff.iter_inline_changes_deadline(op, Some(deadline)) {
                let mut parts: Vec<(bool, String)> = Vec::new();
                for (emph, s) in c.iter_strings_lossy() {
                    let s = s.trim_end_matches(['\n', '\r']).to_string();
                    if s.is_empty() {
                        continue;
                    }
                    match parts.last_mut() {
                        Some((e, prev)) if *e == emph => prev.push_str(&s),
                        _ => parts.push((emph, s)),
                    }
                }
                lines.push(DiffLine { tag: c.tag(), parts, no_newline: c.missing_newline() });
            }
        }
        hunks.push(Hunk { header, lines });
    }
    TextChange { hunks, note: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::parse_body;
    use serde_json::{Value, json};
    use std::sync::Arc;

    fn req(format: FormatId, i: usize, v: Value) -> Request {
        parse_body(format, &v, &Arc::from(format!("req{i}.json")), i, "").expect("parses")
    }

    fn ops(d: &RequestDiff) -> Vec<(&'static str, String)> {
        d.differences().map(|c| (c.op.as_str(), c.pointer().to_string())).collect()
    }

    #[test]
    fn moved_cache_control_is_not_a_change_and_a_removed_block_is_listed() {
        let t = |s: &str| json!({"type":"text","text":s});
        let cc = |s: &str| json!({"type":"text","text":s,"cache_control":{"type":"ephemeral"}});
        let a = req(
            crate::formats::anthropic::ID,
            0,
            json!({"messages":[{"role":"user","content":[t("r0"), t("r1"), t("r2"), t("r3"), cc("go")]}]}),
        );
        let b = req(
            crate::formats::anthropic::ID,
            1,
            json!({"messages":[{"role":"user","content":[t("r0"), t("r1\n"), t("r3"), t("go")]},{"role":"assistant","content":[t("ok")]},{"role":"user","content":[cc("more")]}]}),
        );
        let d = diff(&a, &b);
        assert_eq!(d.verdict, Verdict::Rewrite);
        assert_eq!(d.headline(), "rewrite at messages /messages/0/content/1");
        assert_eq!(
            ops(&d),
            vec![
                ("changed", "/messages/0/content/1".to_string()),
                ("removed", "/messages/0/content/2".to_string()),
                ("added", "/messages/1/content/0".to_string()),
                ("added", "/messages/2/content/0".to_string()),
            ]
        );
        let c = d.differences().next().expect("a change");
        let u = c.diff.as_ref().expect("diff").unified();
        assert!(u.contains("-r1\n\\ No newline at end of text\n+r1\n"), "{u}");
    }

    #[test]
    fn extension_identical_retry() {
        let a = req(
            crate::formats::openai_chat::ID,
            0,
            json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"}]}),
        );
        let b = req(
            crate::formats::openai_chat::ID,
            1,
            json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}),
        );
        let d = diff(&a, &b);
        assert_eq!(d.verdict, Verdict::Extension);
        assert_eq!(ops(&d), vec![("added", "/messages/2".to_string())]);
        assert_eq!(diff(&a, &a).verdict, Verdict::Identical);
        assert_eq!(diff(&b, &a).verdict, Verdict::Retry);
    }

    #[test]
    fn new_conversation_and_dropped_prompt() {
        let a = req(crate::formats::anthropic::ID, 0, json!({"system":"S","messages":[{"role":"user","content":"a"}]}));
        let b = req(
            crate::formats::anthropic::ID,
            1,
            json!({"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
        );
        let d = diff(&a, &b);
        assert_eq!(d.verdict, Verdict::Extension);
        assert_eq!(d.dropped.len(), 1);
        assert_eq!(d.dropped[0].pointer, "/system");
        assert_eq!(ops(&d)[0], ("removed", "/system".to_string()));
        let c = req(crate::formats::anthropic::ID, 2, json!({"messages":[{"role":"user","content":"other"}]}));
        assert_eq!(diff(&b, &c).verdict, Verdict::NewConversation);
    }

    #[test]
    fn tools_change_is_a_rewrite_at_tools_with_a_json_diff() {
        // One agent (the same system prompt) whose tool set was swapped: a
        // rewrite at the tools level. Without the shared prompt the two
        // disjoint tool sets are two agents (docs/spec.md §1 Lanes): not compared.
        let sys = json!({"role":"system","content":"You are the billing agent."});
        let a = req(
            crate::formats::openai_chat::ID,
            0,
            json!({"tools":[{"name":"a"}],"messages":[sys.clone(),{"role":"user","content":"x"}]}),
        );
        let b = req(
            crate::formats::openai_chat::ID,
            1,
            json!({"tools":[{"name":"b"}],"messages":[sys,{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}),
        );
        let d = diff(&a, &b);
        assert_eq!(d.headline(), "rewrite at tools /tools");
        let other = req(
            crate::formats::openai_chat::ID,
            1,
            json!({"tools":[{"name":"b"}],"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}),
        );
        let bare = req(
            crate::formats::openai_chat::ID,
            0,
            json!({"tools":[{"name":"a"}],"messages":[{"role":"user","content":"x"}]}),
        );
        assert_ne!(diff(&bare, &other).headline(), "rewrite at tools /tools");
        let c = d.differences().next().expect("change");
        assert_eq!((c.op, c.level), (Op::Changed, Level::Tools));
        let u = c.diff.as_ref().expect("diff").unified();
        assert!(u.contains("-    \"name\": \"a\"") && u.contains("+    \"name\": \"b\""), "{u}");
    }

    #[test]
    fn secrets_are_masked_in_texts_and_diffs() {
        let a = req(
            crate::formats::openai_chat::ID,
            0,
            json!({"messages":[{"role":"user","content":"key sk-ant-api03-AAAABBBBCCCCDDDDEEEE one"}]}),
        );
        let b = req(
            crate::formats::openai_chat::ID,
            1,
            json!({"messages":[{"role":"user","content":"key sk-ant-api03-AAAABBBBCCCCDDDDEEEE two"}]}),
        );
        let d = diff(&a, &b);
        let all = format!("{:?}", d.changes);
        assert!(!all.contains("AAAABBBB"), "{all}");
    }

    #[test]
    fn align_pairs_by_description_inside_a_replaced_run() {
        let p = align(&[1, 2, 3], &[1, 9, 3], &[0, 0, 0], &[0, 0, 0]);
        assert_eq!(p, vec![Pairing::Same(0, 0), Pairing::Changed(1, 1), Pairing::Same(2, 2)]);
        let p = align(&[1, 2, 3], &[1, 9, 3], &[0, 1, 0], &[0, 2, 0]);
        assert_eq!(p, vec![Pairing::Same(0, 0), Pairing::Removed(1), Pairing::Added(1), Pairing::Same(2, 2)]);
    }

    /// Two large Chat bodies (read as they stream) whose long assistant and
    /// tool texts `diff` keeps as their first bytes: the report is the one
    /// of the bodies held whole, the changed texts read again from the files.
    #[test]
    fn a_large_body_diffed_with_prefixes_reads_shown_elements_again() {
        let dir = tempfile::tempdir().unwrap();
        let long = |t: &str, i: usize| format!("{t} {i} ") + &"the agent reads the file and answers ".repeat(20);
        let mut msgs = vec![json!({"role": "system", "content": "You are terse."})];
        let mut i = 0;
        while serde_json::to_string(&msgs).unwrap().len() < (1 << 20) + 4096 {
            msgs.push(json!({"role": "user", "content": long("ask", i)}));
            msgs.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("call_{i}"),
                "type": "function", "function": {"name": "read", "arguments": format!("{{\"path\": \"{}\"}}", long("f", i))}}]}));
            msgs.push(json!({"role": "tool", "tool_call_id": format!("call_{i}"), "content": long("out", i)}));
            msgs.push(json!({"role": "assistant", "content": long("reply", i)}));
            i += 1;
        }
        let mut b = msgs.clone();
        // A changed reply text, a changed tool result, a call whose id alone changed.
        b[4]["content"] = json!(long("edited reply", 0));
        b[7]["content"] = json!(long("other output", 1));
        b[10]["tool_calls"][0]["id"] = json!("call_x");
        b.push(json!({"role": "user", "content": "go on"}));
        // An added reply of many long parts: each shown whole (its message read again once).
        let parts: Vec<Value> = (0..30).map(|k| json!({"type": "text", "text": long("part", k)})).collect();
        b.push(json!({"role": "assistant", "content": parts}));
        let (pa, pb) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::fs::write(&pa, serde_json::to_vec(&json!({"model": "gpt-4o", "messages": msgs})).unwrap()).unwrap();
        std::fs::write(&pb, serde_json::to_vec(&json!({"model": "gpt-4o", "messages": b})).unwrap()).unwrap();
        let report = |texts| {
            let load = |p: &std::path::Path| {
                crate::load_path_texts(p.to_str().unwrap(), &Default::default(), texts).unwrap().0
            };
            let (a, b) = (load(&pa), load(&pb));
            let d = diff(only(&a).unwrap(), only(&b).unwrap());
            let rb = only(&b).unwrap();
            let cut = rb.messages.iter().flat_map(|m| &m.blocks).filter(|x| !x.has_full_text()).count();
            let id = crate::formats::element_json_again(rb, "/messages/10/tool_calls/0/id");
            (crate::report::diff::full(&d, false), crate::report::diff::json(&d), cut, id)
        };
        let (full_whole, json_whole, cut_whole, id_whole) = report(crate::model::packed::Texts::AsLoaded);
        let (full_cut, json_cut, cut, id) = report(crate::model::packed::Texts::Prefixes);
        assert_eq!((cut_whole, id_whole), (0, None));
        assert_eq!(id.as_deref(), Some("\"call_x\""));
        assert!(cut > 3 * i - 10, "{cut} texts cut of {i} rounds");
        assert_eq!(full_cut, full_whole);
        assert_eq!(json_cut, json_whole);
        // The shown texts are whole, and the id-only change shows its JSON.
        assert!(full_whole.contains("edited reply 0 the agent reads the file and answers the agent"), "{full_whole}");
        assert!(full_whole.contains(&"the agent reads the file and answers ".repeat(19)), "{full_whole}");
        assert!(full_whole.contains("call_x"), "{full_whole}");
        assert!(full_whole.contains("part 29 the agent reads the file and answers the agent"), "{full_whole}");
    }
}
