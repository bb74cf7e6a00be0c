//! `ctxlint show`: the contexts as the model saw them — per request of a
//! stream, or per step (model call) of a transcript.
//!
//! A request lists, in cache order, its per-request system slots (one row per
//! slot) and its messages. A transcript step lists the context the runtime
//! would have sent for that model call ([`crate::analysis::Tree::step_context`]),
//! after the session-level base instructions when the format has them
//! (Codex). Steps are numbered 0.. in write order; a model call written as
//! several entries (Claude Code, Codex: one [`Entry::call_group`]) is one step,
//! at its first entry.
//!
//! Output streams ([`show_each`]): requests and steps are built in batches
//! (at most [`BATCH_UNITS`] units or about [`BATCH_MESSAGES`] listed
//! messages; a step's lines read again through one
//! [`crate::formats::Reloader`] per thread, in parallel) and each batch is
//! handed to a [`Sink`] (the renderers of `report::show`, which render its
//! units in parallel and write them in order) before the next one, so
//! memory is bounded by one batch, not by the session. A step's context is computed incrementally
//! along the session ([`StepWalker`]): in write order most steps extend the
//! previous one, so only the entries written since are filtered; a step on
//! another branch, after a compaction or the first one is rebuilt from its
//! path. By default ([`Mode::Compact`]) a unit lists only the messages that
//! are new since the previous unit's context ([`Delta`] says how many were
//! carried over or no longer sent); [`Mode::Full`] lists whole contexts.
//!
//! Texts are masked ([`crate::text::mask_secrets`]) here. A transcript keeps
//! only a prefix of assistant, thinking and tool-result texts
//! ([`Block::has_full_text`]): [`ShownBlock::truncated`] says so and
//! [`ShownBlock::bytes`] gives the full length.
//!
//! Shape (JSON renderer: `report::show::json`):
//! ```text
//! Shown { path, format, transcript: bool, notes: Vec<String>, total, requests: Vec<Unit> }
//! Unit { index, pointer: Option<String>,          // a request's body pointer
//!        line: Option<u32>, entry_id: Option<String>,  // a step's model-call entry
//!        model: Option<String>, tools: Option<Tools>,
//!        context_len, delta: Option<Delta>,          // compact mode: what changed
//!        messages: Vec<ShownMessage> }               // compact: the new ones only
//! Delta { previous: Option<usize>, carried, dropped, rebuilt: Option<&str>,
//!         kept: Vec<Kept> }                        // sent again further on: not listed
//! Kept { from, at, count }                         // positions in the previous context and this one
//! ShownMessage { index, role, kind, pointer, line, entry_id, bytes, hash, first_line, blocks }
//! ShownBlock { kind, pointer, bytes, truncated, text, tool_name, tool_id }  // text: selected request only
//! ```

use crate::analysis::Tree;
use crate::model::*;
use crate::text::{excerpt, mask_secrets};

/// Characters of a message's first line in the table.
pub const FIRST_LINE_CHARS: usize = 60;

/// The `tools` value a request sends.
#[derive(Debug, Clone)]
pub struct Tools {
    /// Pointer of `tools`.
    pub pointer: String,
    /// Bytes of its canonical JSON.
    pub bytes: usize,
    /// Number of tools, when it is an array.
    pub count: Option<usize>,
    /// Short hash.
    pub hash: String,
}

/// One block of a shown message.
#[derive(Debug, Clone)]
pub struct ShownBlock {
    /// Block kind (`text`, `thinking`, `tool call`, …).
    pub kind: &'static str,
    /// Its JSON Pointer.
    pub pointer: String,
    /// Length in bytes of the full text.
    pub bytes: usize,
    /// Only a prefix of the text is kept (transcripts: assistant and
    /// tool-result texts; or cut to the characters asked for). A text that
    /// masking made shorter than `bytes` is not truncated.
    pub truncated: bool,
    /// The kept text, secrets masked.
    pub text: String,
    /// Tool name (calls, and results when recorded).
    pub tool_name: Option<String>,
    /// Tool call id (calls and results).
    pub tool_id: Option<String>,
}

/// One message (or system slot) of a request or step.
#[derive(Debug, Clone)]
pub struct ShownMessage {
    /// 0-based position in the request or step context.
    pub index: usize,
    /// Role it is sent with.
    pub role: &'static str,
    /// What it is: `system`, `system slot`, `user`, `assistant`, `tool call`,
    /// `assistant + tool call`, `tool result`, `tool results`, `context carrier`, …
    pub kind: String,
    /// JSON Pointer of the message (or slot).
    pub pointer: String,
    /// 1-based line of the transcript entry (transcripts only).
    pub line: Option<u32>,
    /// Transcript entry id, if any.
    pub entry_id: Option<String>,
    /// Total bytes of its texts.
    pub bytes: usize,
    /// Short hash (8 hex digits) of its blocks' kinds, tool ids and texts.
    pub hash: String,
    /// The first non-empty line, masked and truncated to [`FIRST_LINE_CHARS`].
    pub first_line: String,
    /// Its blocks.
    pub blocks: Vec<ShownBlock>,
}

/// One request, or one step of a transcript.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Request index (cassettes, exchange logs: counting skipped exchanges) or step number.
    pub index: usize,
    /// The request's body pointer in its file (streams).
    pub pointer: Option<String>,
    /// The request's file (streams).
    pub path: Option<String>,
    /// 1-based line of the model-call entry (steps) or of the request (exchange logs).
    pub line: Option<u32>,
    /// Id of the model-call entry (steps).
    pub entry_id: Option<String>,
    /// Model that answered (steps), when recorded.
    pub model: Option<String>,
    /// The `tools` the request sends.
    pub tools: Option<Tools>,
    /// How many messages (slots, base instructions) its whole context holds.
    pub context_len: usize,
    /// Compact mode: how the context relates to the previous unit's.
    pub delta: Option<Delta>,
    /// A request's lane (docs/spec.md §1 *Lanes*): the agent it belongs to and the
    /// request it is compared with (streams only).
    pub lane: Option<crate::conversation::Lane>,
    /// Messages in order: the whole context, or (compact mode) those after
    /// the carried-over ones.
    pub messages: Vec<ShownMessage>,
}

/// How a unit's context relates to the previous unit's (compact mode): a
/// step's to the previous step's, a stream's request's to its predecessor in
/// its lane ([`crate::conversation::lanes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    /// Index of the previous step, or of the request's predecessor in its
    /// lane (`None` for the first one, and for the first of a lane).
    pub previous: Option<usize>,
    /// Messages of the previous context still sent: the first `carried` of
    /// this context, in order (the listed messages follow them).
    pub carried: usize,
    /// Messages of the previous context no longer sent.
    pub dropped: usize,
    /// Why the context is not the previous one extended: `compaction`,
    /// `another branch`, `context carrier dropped`, `history differs`, or
    /// [`CHAINED`] (nothing carried, nothing dropped).
    pub rebuilt: Option<&'static str>,
    /// Messages of the previous context sent again in this one after the
    /// carried ones (a compaction keeps the latest entries after its
    /// summary): not listed in compact mode, not counted in `dropped`.
    /// In order of `at`; empty when the context was not rebuilt.
    pub kept: Vec<Kept>,
}

/// [`Delta::rebuilt`] of a request chained to its predecessor's response
/// (`previous_response_id`, or a stored Responses `conversation`): the
/// provider holds the predecessor's context, so the request sends only
/// what is new (docs/spec.md §1 *continues*).
pub const CHAINED: &str = "chained to its response";

/// A run of messages of the previous context sent again further on in a
/// rebuilt one: positions `from..from + count` of the previous context (its
/// whole context: the base instructions, when the format has them, are 0)
/// are positions `at..at + count` of this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Kept {
    /// Position of the run's first message in the previous context.
    pub from: usize,
    /// Position of the run's first message in this context.
    pub at: usize,
    /// Messages in the run.
    pub count: usize,
}

/// The runs of `old[k..]` that `new[k..]` sends again (after the common
/// prefix of `k` entries), as [`Kept`] positions in the two lists (each
/// entry is in a context at most once).
fn kept_runs(old: &[u32], new: &[u32], k: usize) -> Vec<Kept> {
    let at_old: foldhash::HashMap<u32, usize> = old.iter().enumerate().skip(k).map(|(i, &x)| (x, i)).collect();
    let mut runs: Vec<Kept> = Vec::new();
    for (j, x) in new.iter().enumerate().skip(k) {
        let Some(&i) = at_old.get(x) else { continue };
        match runs.last_mut() {
            Some(r) if r.from + r.count == i && r.at + r.count == j => r.count += 1,
            _ => runs.push(Kept { from: i, at: j, count: 1 }),
        }
    }
    runs
}

/// What `show` lists per unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The messages new since the previous unit's context (the default).
    Compact,
    /// Whole contexts.
    Full,
}

/// Receives what `show` prints, in order: the header once, the units in
/// batches as soon as they are built (each batch follows the previous one),
/// then the end.
pub trait Sink {
    /// The header (`s.requests` is empty).
    fn begin(&mut self, s: &Shown) -> crate::Result<()>;
    /// The next requests or steps, in order.
    fn units(&mut self, s: &Shown, units: Vec<Unit>) -> crate::Result<()>;
    /// After the last unit.
    fn end(&mut self, s: &Shown) -> crate::Result<()>;
    /// Whether the next batch should carry texts ([`show_each_texts`]); a
    /// sink with a budget of texts says no once it is spent.
    fn wants_texts(&self) -> bool {
        true
    }
}

/// A [`Sink`] that keeps every unit (small inputs and tests).
#[derive(Debug, Default)]
pub struct Collect(pub Option<Shown>);

impl Sink for Collect {
    fn begin(&mut self, s: &Shown) -> crate::Result<()> {
        self.0 = Some(s.clone());
        Ok(())
    }
    fn units(&mut self, _: &Shown, units: Vec<Unit>) -> crate::Result<()> {
        if let Some(s) = &mut self.0 {
            s.requests.extend(units);
        }
        Ok(())
    }
    fn end(&mut self, _: &Shown) -> crate::Result<()> {
        Ok(())
    }
}

/// A batch of units is handed to the [`Sink`] once it lists this many
/// messages or holds [`BATCH_UNITS`] units: large enough to build and
/// render its units in parallel, small enough to bound memory.
pub const BATCH_MESSAGES: usize = 4096;
/// See [`BATCH_MESSAGES`].
pub const BATCH_UNITS: usize = 512;

/// What `show` prints for one input.
#[derive(Debug, Clone)]
pub struct Shown {
    /// Path as given.
    pub path: String,
    /// Format id.
    pub format: FormatId,
    /// A transcript (units are steps) rather than a stream (units are requests).
    pub transcript: bool,
    /// Facts worth saying (skipped exchanges, malformed lines, truncated texts).
    pub notes: Vec<String>,
    /// How many requests or steps the input has.
    pub total: usize,
    /// What is listed per unit.
    pub mode: Mode,
    /// One request or step is selected (shown with its texts).
    pub selected: bool,
    /// The requests or steps shown: all of them, or the selected one (empty
    /// while streaming: units go to the [`Sink`]).
    pub requests: Vec<Unit>,
    /// The session shown, when the input is one session of a store that
    /// holds several (an OpenCode database): its steps are rows of a
    /// database, numbered by position, not lines of a file.
    pub session: Option<String>,
}

/// "3 requests: 0–2" / "2 requests: 0, 4" / "no requests".
pub fn describe_indices(idx: impl Iterator<Item = usize>, what: &str) -> String {
    let v: Vec<usize> = idx.collect();
    let plural = if v.len() == 1 { what.to_string() } else { format!("{what}s") };
    match v.as_slice() {
        [] => format!("no {what}s"),
        [x] => format!("1 {what}: {x}"),
        _ if v.windows(2).all(|w| w[1] == w[0] + 1) => format!("{} {plural}: {}–{}", v.len(), v[0], v[v.len() - 1]),
        _ if v.len() <= 12 => {
            format!("{} {plural}: {}", v.len(), v.iter().map(usize::to_string).collect::<Vec<_>>().join(", "))
        }
        _ => format!(
            "{} {plural}: {}, … {}",
            v.len(),
            v[..6].iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            v[v.len() - 1]
        ),
    }
}

/// Builds what `show` prints for an input and keeps it whole: every request
/// or step (whole contexts, block texts left empty), or only request or step
/// `only`, with its texts. See [`show_each`], which streams.
pub fn show(input: &Input, only: Option<usize>) -> crate::Result<Shown> {
    let mut c = Collect::default();
    show_each(input, only, Mode::Full, &mut c)?;
    c.0.ok_or_else(|| crate::Error::Usage(format!("{}: nothing to show", input.path)))
}

/// Streams what `show` prints for an input to `sink`: every request or step
/// (block texts left empty: the table needs only sizes, first lines and
/// hashes; in `mode`), or only request or step `only`, whole and with its
/// texts. A missing `only` is a usage error naming the requests or steps
/// that exist. Memory is bounded by one batch of units.
pub fn show_each(input: &Input, only: Option<usize>, mode: Mode, sink: &mut dyn Sink) -> crate::Result<()> {
    show_each_texts(input, only, mode, 0, sink)
}

/// [`show_each`], listing with each block of every unit the first
/// `text_chars` characters of its text, secrets masked (0: none, as
/// [`show_each`]; a selected unit `only` has its whole texts). The HTML
/// report (`report::html`) keeps such prefixes.
pub fn show_each_texts(
    input: &Input,
    only: Option<usize>,
    mode: Mode,
    text_chars: usize,
    sink: &mut dyn Sink,
) -> crate::Result<()> {
    show_each_with(input, only, mode, text_chars, sink, &crate::conversation::Facts::default())
}

/// [`show_each_texts`], a stream's lanes read from (or computed into)
/// `facts` (shared with the rules when the HTML report is built during a check).
pub fn show_each_with(
    input: &Input,
    only: Option<usize>,
    mode: Mode,
    text_chars: usize,
    sink: &mut dyn Sink,
    facts: &crate::conversation::Facts,
) -> crate::Result<()> {
    let mut shown = Shown {
        path: crate::text::mask_path(&input.path).into_owned(),
        format: input.format,
        transcript: false,
        notes: Vec::new(),
        total: 0,
        mode: if only.is_some() { Mode::Full } else { mode },
        selected: only.is_some(),
        requests: Vec::new(),
        session: None,
    };
    let compact = shown.mode == Mode::Compact;
    if input.skipped > 0 {
        shown.notes.push(format!("{} exchange(s) skipped: their bodies match no request format", input.skipped));
    }
    if !input.bad_lines.is_empty() {
        let n = input.bad_lines.len() + input.more_bad_lines;
        shown.notes.push(format!("{n} malformed line(s) are not shown (run `ctxlint check`)"));
    }
    let missing = |n: usize, what: &str, idx: &mut dyn Iterator<Item = usize>| {
        crate::Error::Usage(format!("{}: no {what} {n} (it has {})", input.path, describe_indices(idx, what)))
    };
    match &input.body {
        Body::Stream(s) => {
            shown.total = s.requests.len();
            if let Some(n) = only {
                let Some(r) = s.requests.iter().find(|r| r.index == n) else {
                    return Err(missing(n, "request", &mut s.requests.iter().map(|r| r.index)));
                };
                sink.begin(&shown)?;
                let mut u = request_unit(r, usize::MAX);
                let pos = s.requests.iter().position(|x| std::ptr::eq(x, r)).unwrap_or(0);
                u.lane = lane_of(s, facts.lanes(s), pos);
                sink.units(&shown, vec![u])?;
                return sink.end(&shown);
            }
            sink.begin(&shown)?;
            // The previous request's hashes, kept for the next one (its
            // predecessor, most often), else computed again.
            let mut prev: Option<(usize, Vec<String>)> = None;
            let mut batch = Vec::new();
            let mut listed = 0;
            let lanes = facts.lanes(s);
            let chars = if sink.wants_texts() { text_chars } else { 0 };
            for (pos, r) in s.requests.iter().enumerate() {
                if !compact {
                    let mut u = request_unit(r, chars);
                    u.lane = lane_of(s, lanes, pos);
                    listed += u.messages.len() + 1;
                    batch.push(u);
                } else {
                    let hashes = request_hashes(r);
                    // A request is compared with its predecessor in its lane
                    // (docs/spec.md §1 *Lanes*), not with the request before
                    // it in the file: on a stream where agents interleave (a
                    // main agent and its subagents through one proxy) every
                    // other request was "context rebuilt". The first request
                    // of a lane is compared with none (its lane line says so).
                    let predecessor = match lanes.get(pos) {
                        Some(l) => l.compared_with,
                        None => pos.checked_sub(1),
                    };
                    // Chained to its predecessor's response (`previous_response_id`,
                    // a stored Responses `conversation`): the provider holds
                    // that history, so nothing of it is sent and none of it
                    // dropped.
                    let chained = matches!(
                        facts.links(s).get(pos),
                        Some(&crate::conversation::Link::Continues { prev, chained: true }) if Some(prev) == predecessor
                    );
                    let (previous, carried, dropped) = match predecessor {
                        Some(p) if chained => (Some(s.requests[p].index), 0, 0),
                        Some(p) => {
                            let computed;
                            let ph = match &prev {
                                Some((q, ph)) if *q == p => ph,
                                _ => {
                                    computed = request_hashes(&s.requests[p]);
                                    &computed
                                }
                            };
                            let k = ph.iter().zip(&hashes).take_while(|(a, b)| a == b).count();
                            (Some(s.requests[p].index), k, ph.len() - k)
                        }
                        None => (None, 0, 0),
                    };
                    let mut u = request_unit_from(r, chars, carried);
                    u.lane = lane_of(s, lanes, pos);
                    let tools_of = |r: &Request| r.tools.as_ref().map(|t| t.1);
                    if predecessor.is_some_and(|p| tools_of(&s.requests[p]) == tools_of(r)) {
                        u.tools = None;
                    }
                    u.delta = Some(Delta {
                        previous,
                        carried,
                        dropped,
                        rebuilt: if chained { Some(CHAINED) } else { (dropped > 0).then_some("history differs") },
                        kept: Vec::new(),
                    });
                    prev = Some((pos, hashes));
                    listed += u.messages.len() + 1;
                    batch.push(u);
                }
                if listed >= BATCH_MESSAGES || batch.len() >= BATCH_UNITS {
                    sink.units(&shown, std::mem::take(&mut batch))?;
                    listed = 0;
                }
            }
            if !batch.is_empty() {
                sink.units(&shown, batch)?;
            }
            sink.end(&shown)
        }
        Body::Transcript(t) => {
            shown.transcript = true;
            if crate::formats::descriptor(input.format).is_some_and(|d| d.store.is_some()) {
                shown.session = t.header.as_ref().and_then(|h| h.session_id.as_deref()).map(mask_secrets);
            }
            let entries = crate::analysis::step_entries(t);
            shown.total = entries.len();
            let cut = t
                .entries
                .iter()
                .filter_map(|e| t.packed(e))
                .any(|m| m.blocks().any(|b| b.text().len() as u32 != b.text_len));
            if cut {
                shown.notes.push("ctxlint keeps only a prefix of the assistant, thinking, tool-call and tool-result texts of a transcript: such texts end with \"… (N bytes; the first K are kept)\" (or \"… (N bytes, not kept)\")".into());
            }
            let mut tree = Tree::build(t);
            // The children lists serve only the DFS that numbered the tree.
            tree.children = Default::default();
            if let Some(n) = only {
                let Some(&e) = entries.get(n) else {
                    return Err(missing(n, "step", &mut (0..entries.len())));
                };
                let ctx = step_context(t, &tree, e);
                sink.begin(&shown)?;
                let job = Job::new(t, n, e, &ctx, 0, None);
                let mut reload = crate::formats::Reloader::new(input.format, t);
                sink.units(&shown, vec![step_unit(&mut reload, t, &job, usize::MAX)])?;
                return sink.end(&shown);
            }
            sink.begin(&shown)?;
            let base = usize::from(t.base_instructions.is_some());
            let mut walk = StepWalker::default();
            let mut jobs: Vec<Job> = Vec::new();
            let mut listed = 0;
            // Contexts are walked in order; the units of a batch are then
            // built (lines read again, in parallel) and handed on together.
            let flush = |jobs: &mut Vec<Job>, sink: &mut dyn Sink| -> crate::Result<()> {
                use rayon::prelude::*;
                let text_chars = if sink.wants_texts() { text_chars } else { 0 };
                let units: Vec<Unit> = jobs
                    .par_iter()
                    .map_init(|| crate::formats::Reloader::new(input.format, t), |r, j| step_unit(r, t, j, text_chars))
                    .collect();
                jobs.clear();
                sink.units(&shown, units)
            };
            for (n, &e) in entries.iter().enumerate() {
                let change = walk.advance(t, &tree, e);
                let job = if compact {
                    let carried = if n == 0 { 0 } else { change.carried + base };
                    let kept = change
                        .kept
                        .iter()
                        .map(|r| Kept { from: r.from + base, at: r.at + base, count: r.count })
                        .collect();
                    let delta = Delta {
                        previous: n.checked_sub(1),
                        carried,
                        dropped: change.dropped,
                        rebuilt: change.rebuilt,
                        kept,
                    };
                    Job::new(t, n, e, &walk.ctx, carried, Some(delta))
                } else {
                    Job::new(t, n, e, &walk.ctx, 0, None)
                };
                listed += job.listed.len() + 1;
                jobs.push(job);
                if listed >= BATCH_MESSAGES || jobs.len() >= BATCH_UNITS {
                    flush(&mut jobs, sink)?;
                    listed = 0;
                }
            }
            if !jobs.is_empty() {
                flush(&mut jobs, sink)?;
            }
            sink.end(&shown)
        }
    }
}

/// What one step's unit is built from: step `n` at model call `entry`,
/// listing the messages of its context from position `from` on (the base
/// instructions, when the format has them, are position 0) but those its
/// delta says are [`Delta::kept`].
#[derive(Debug)]
struct Job {
    n: usize,
    entry: u32,
    /// The listed context entries (those from `from` on, less the base
    /// instructions and the kept ones), with their positions in the whole context.
    listed: Vec<(usize, u32)>,
    /// The base instructions are listed (first).
    with_base: bool,
    /// Messages in the whole context.
    context_len: usize,
    delta: Option<Delta>,
}

impl Job {
    fn new(t: &Transcript, n: usize, entry: u32, ctx: &[u32], from: usize, delta: Option<Delta>) -> Self {
        let base = usize::from(t.base_instructions.is_some());
        let skip = from.saturating_sub(base).min(ctx.len());
        let kept = delta.as_ref().map_or(&[][..], |d| &d.kept[..]);
        let mut runs = kept.iter().peekable();
        let mut listed = Vec::with_capacity(ctx.len() - skip);
        for (i, &x) in ctx.iter().enumerate().skip(skip) {
            let pos = base + i;
            while runs.peek().is_some_and(|r| r.at + r.count <= pos) {
                runs.next();
            }
            if runs.peek().is_some_and(|r| r.at <= pos) {
                continue;
            }
            listed.push((pos, x));
        }
        Job { n, entry, listed, with_base: base == 1 && from == 0, context_len: base + ctx.len(), delta }
    }
}

/// The context entries of step `s` that carry a message, in the order sent.
fn step_context(t: &Transcript, tree: &Tree, s: u32) -> Vec<u32> {
    let mut ctx = tree.step_context(t, s);
    ctx.retain(|&x| t.entries[x as usize].has_message());
    ctx
}

/// How a step's context came from the previous step's ([`StepWalker::advance`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change {
    /// Entries of the previous context still sent: the first `carried` of the new one.
    pub carried: usize,
    /// Entries of the previous context no longer sent.
    pub dropped: usize,
    /// Why the previous context was not simply extended.
    pub rebuilt: Option<&'static str>,
    /// A rebuilt context: the entries of the previous one it sends again
    /// after the carried ones (positions in the two contexts' entry lists,
    /// base instructions not counted).
    pub kept: Vec<Kept>,
}

/// The contexts of successive steps, each computed from the previous one:
/// when the previous step's entry is an ancestor of the next one's and no
/// compaction lies between them, the next context is the previous one (less
/// the runtime-context carriers of an earlier user turn) plus the sent
/// entries written between them, so a session's steps cost time linear in
/// its length; otherwise ([`Tree::step_context`]) the path is filtered again.
#[derive(Debug, Default)]
pub struct StepWalker {
    /// The current step's context: entries whose messages are sent, in order.
    pub ctx: Vec<u32>,
    prev: Option<u32>,
    /// Position in `ctx` of the first carrier, if any.
    first_carrier: Option<usize>,
}

impl StepWalker {
    /// Moves to the step at model call `s` and says how its context relates
    /// to the previous step's.
    pub fn advance(&mut self, t: &Transcript, tree: &Tree, s: u32) -> Change {
        let extends = self
            .prev
            .filter(|&p| tree.is_ancestor_or_self(p, s) && tree.compaction[p as usize] == tree.compaction[s as usize]);
        let change = match extends {
            Some(p) => {
                let mut change = Change { carried: self.ctx.len(), ..Change::default() };
                if tree.user_turn[p as usize] != tree.user_turn[s as usize] {
                    if let Some(k) = self.first_carrier.take() {
                        // The entries before the first carrier are carried; those
                        // after it that are no carriers move up: kept runs.
                        let before = self.ctx.len();
                        let mut keep = k;
                        let mut kept: Vec<Kept> = Vec::new();
                        for j in k..before {
                            let x = self.ctx[j];
                            if !is_carrier(t, x) {
                                match kept.last_mut() {
                                    Some(r) if r.from + r.count == j && r.at + r.count == keep => r.count += 1,
                                    _ => kept.push(Kept { from: j, at: keep, count: 1 }),
                                }
                                self.ctx[keep] = x;
                                keep += 1;
                            }
                        }
                        self.ctx.truncate(keep);
                        change = Change {
                            carried: k,
                            dropped: before - keep,
                            rebuilt: Some("context carrier dropped"),
                            kept,
                        };
                    }
                }
                // The entries from p to s's parent, oldest first.
                let start = self.ctx.len();
                let mut cur = s;
                let mut guard = 0usize;
                while let Parent::Entry(q) = t.entries[cur as usize].parent {
                    guard += 1;
                    if guard > t.entries.len() {
                        break;
                    }
                    if tree.in_context_at(t, q, s) && t.entries[q as usize].has_message() {
                        self.ctx.push(q);
                    }
                    if q == p {
                        break;
                    }
                    cur = q;
                }
                self.ctx[start..].reverse();
                if self.first_carrier.is_none() {
                    self.first_carrier = self.ctx[start..].iter().position(|&x| is_carrier(t, x)).map(|k| start + k);
                }
                change
            }
            None => match self.prev.and_then(|p| self.switch_branch(t, tree, p, s)) {
                Some(change) => change,
                None => {
                    let next = step_context(t, tree, s);
                    let k = self.ctx.iter().zip(&next).take_while(|(a, b)| a == b).count();
                    let rebuilt = match self.prev {
                        None => None,
                        Some(p) if !tree.is_ancestor_or_self(p, s) => Some("another branch"),
                        Some(_) => Some("compaction"),
                    };
                    // A compaction keeps the latest entries after its summary: they
                    // are the previous context's, sent again (listing them again
                    // at every compaction that keeps everything made `show`'s
                    // output grow with the square of the session).
                    let kept = if rebuilt.is_some() { kept_runs(&self.ctx, &next, k) } else { Vec::new() };
                    let moved: usize = kept.iter().map(|r| r.count).sum();
                    let change = Change { carried: k, dropped: self.ctx.len() - k - moved, rebuilt, kept };
                    self.ctx = next;
                    self.first_carrier = self.ctx.iter().position(|&x| is_carrier(t, x));
                    change
                }
            },
        };
        self.prev = Some(s);
        change
    }

    /// Moves from step `p` to step `s` on another branch under the same
    /// compaction without filtering the whole path again: the context up to
    /// the point `z` where the branches part (their lowest common ancestor,
    /// or above the user turn that starts there when the two steps are in
    /// different user turns, so that carriers are judged again) is kept, and
    /// the entries from `z` down to `s` are added. Costs the length of the
    /// branch left and of the branch entered, not of the whole path (a
    /// session retried many times at its tip is linear). `None` when the
    /// general rebuild applies (a compaction between, a cycle).
    fn switch_branch(&mut self, t: &Transcript, tree: &Tree, p: u32, s: u32) -> Option<Change> {
        use crate::analysis::tree::NONE;
        let c = tree.compaction[s as usize];
        if c != tree.compaction[p as usize] || tree.tin[s as usize] == NONE || tree.tin[p as usize] == NONE {
            return None;
        }
        let parent = |x: u32| match t.entries[x as usize].parent {
            Parent::Entry(q) => Some(q),
            _ => None,
        };
        // The lowest common ancestor (or self) of p and s.
        let mut a = s;
        let mut guard = 0usize;
        while !tree.is_ancestor_or_self(a, p) {
            a = parent(a)?;
            guard += 1;
            if guard > t.entries.len() {
                return None;
            }
        }
        let mut z = a;
        let (tp, ts) = (tree.user_turn[p as usize], tree.user_turn[s as usize]);
        if tp != ts {
            // A user turn at or above `a` is the turn `a` is in: its carriers
            // count for one step and not the other, so start above it.
            for u in [tp, ts] {
                if u == NONE {
                    return None; // carriers before any user turn: from the root
                }
                if tree.is_ancestor_or_self(u, z) {
                    z = parent(u)?;
                }
            }
        }
        if c != NONE && !tree.is_ancestor_or_self(c, z) {
            return None;
        }
        // Kept: the context entries that are ancestors-or-self of z (the
        // context is in path order, the compaction summary first and an
        // ancestor of z), but never s itself.
        let mut keep = self.ctx.len();
        while keep > 0 && !(tree.is_ancestor_or_self(self.ctx[keep - 1], z) && self.ctx[keep - 1] != s) {
            keep -= 1;
        }
        // The entries below z on s's path, oldest first.
        let mut seg = Vec::new();
        if z != s {
            let mut cur = s;
            let mut guard = 0usize;
            while let Some(q) = parent(cur) {
                guard += 1;
                if q == z || guard > t.entries.len() {
                    break;
                }
                if tree.in_context_at(t, q, s) && t.entries[q as usize].has_message() {
                    seg.push(q);
                }
                cur = q;
            }
            seg.reverse();
        }
        let same = self.ctx[keep..].iter().zip(&seg).take_while(|(a, b)| a == b).count();
        let change = Change {
            carried: keep + same,
            dropped: self.ctx.len() - keep - same,
            rebuilt: Some("another branch"),
            kept: Vec::new(),
        };
        self.ctx.truncate(keep);
        self.ctx.extend(seg);
        self.first_carrier = match self.first_carrier.filter(|&k| k < keep) {
            Some(k) => Some(k),
            None => self.ctx[keep..].iter().position(|&x| is_carrier(t, x)).map(|k| keep + k),
        };
        Some(change)
    }
}

fn is_carrier(t: &Transcript, x: u32) -> bool {
    t.entries[x as usize].kind() == Some(MessageKind::Carrier)
}

/// The lane of the request at position `pos`, with the request it is
/// compared with given by its request index (not its position); `None` for a
/// stream of one request.
fn lane_of(s: &Stream, lanes: &[crate::conversation::Lane], pos: usize) -> Option<crate::conversation::Lane> {
    if s.requests.len() < 2 {
        return None;
    }
    let mut l = lanes.get(pos)?.clone();
    l.compared_with = l.compared_with.map(|i| s.requests[i].index);
    Some(l)
}

fn request_unit(r: &Request, text_chars: usize) -> Unit {
    request_unit_from(r, text_chars, 0)
}

/// The hashes of a request's context elements as [`ShownMessage::hash`]
/// gives them (the slots, then the messages), without building the rows.
fn request_hashes(r: &Request) -> Vec<String> {
    let mut out = Vec::with_capacity(r.slots.len() + r.messages.len());
    for sl in &r.slots {
        out.push(row_hash(sl.parts.iter()));
    }
    for m in &r.messages {
        out.push(row_hash(m.blocks.iter()));
    }
    out
}

/// [`request_unit`] with the rows before position `skip` left out (a
/// compact view drops the ones carried from the previous request; their
/// texts need not be read); `context_len` counts them all.
fn request_unit_from(r: &Request, text_chars: usize, skip: usize) -> Unit {
    let mut messages = Vec::new();
    let mut pos = 0;
    for sl in &r.slots {
        if pos >= skip {
            let parts: Vec<&Block> = sl.parts.iter().collect();
            messages.push(message_row(
                pos,
                "system",
                format!("{} slot", sl.kind.as_str()),
                sl.pointer.clone(),
                None,
                None,
                &parts,
                text_chars,
            ));
        }
        pos += 1;
    }
    for m in &r.messages {
        if pos >= skip {
            messages.push(from_message(pos, m, None, None, text_chars));
        }
        pos += 1;
    }
    if r.relative {
        for m in &mut messages {
            m.pointer = r.at(&m.pointer);
            for b in &mut m.blocks {
                b.pointer = r.at(&b.pointer);
            }
        }
    }
    let tools = r.tools.as_ref().map(|(p, h, text)| Tools {
        pointer: r.at(p),
        bytes: text.len(),
        count: serde_json::from_str::<serde_json::Value>(text).ok().and_then(|v| v.as_array().map(Vec::len)),
        hash: format!("{:08x}", h >> 32),
    });
    Unit {
        index: r.index,
        pointer: Some(r.pointer.clone()),
        path: Some(crate::text::mask_path(&r.path).into_owned()),
        line: r.line,
        entry_id: None,
        model: None,
        tools,
        context_len: pos,
        delta: None,
        lane: None,
        messages,
    }
}

/// The unit of step `j` (its texts, up to `text_chars` characters of each block; 0: none).
fn step_unit(reload: &mut crate::formats::Reloader<'_>, t: &Transcript, j: &Job, text_chars: usize) -> Unit {
    let e = &t.entries[j.entry as usize];
    let mut messages = Vec::with_capacity(j.listed.len() + usize::from(j.with_base));
    if let Some(m) = t.base_instructions.as_ref().filter(|_| j.with_base) {
        let line = Some(t.base_instructions_line).filter(|l| *l > 0);
        messages.push(from_message(0, m, line, None, text_chars));
    }
    for &(pos, x) in &j.listed {
        let xe = &t.entries[x as usize];
        let Some(mut m) = t.message(xe) else { continue };
        // Loaded with compact texts, the text its first line comes from may not
        // be kept (loaded as the loader gives them, a reload adds nothing).
        if t.texts == crate::model::packed::Texts::Compact && needs_reload(&m.blocks) {
            if let Some(full) = reload.message(xe) {
                m.blocks = full.blocks;
            }
        }
        messages.push(from_message(pos, &m, Some(xe.line), xe.id.as_deref(), text_chars));
    }
    let model = t.message(e).and_then(|m| m.assistant).and_then(|a| a.model).map(|m| mask_secrets(&m));
    Unit {
        index: j.n,
        pointer: None,
        path: None,
        line: Some(e.line),
        entry_id: e.id.as_deref().map(mask_secrets),
        model,
        tools: None,
        context_len: j.context_len,
        delta: j.delta.clone(),
        lane: None,
        messages,
    }
}

fn block(b: &Block, text_chars: usize) -> ShownBlock {
    ShownBlock {
        kind: b.kind.as_str(),
        pointer: b.pointer.to_string(),
        bytes: b.text_len as usize,
        // Cut short in the transcript, or here to `text_chars` (a text that
        // masking made shorter is still whole).
        truncated: !b.has_full_text()
            || (text_chars != 0 && text_chars != usize::MAX && b.text.char_indices().nth(text_chars).is_some()),
        text: match text_chars {
            0 => String::new(),
            usize::MAX => mask_secrets(&b.text),
            n => masked_prefix(&b.text, n),
        },
        tool_name: b.tool_name.as_deref().map(mask_secrets),
        tool_id: b.tool_id.as_deref().map(mask_secrets),
    }
}

/// The first `n` characters of `text`, secrets masked. Masked before it is
/// cut (with some characters more), so that a key cut at the end is still
/// recognised and masked.
fn masked_prefix(text: &str, n: usize) -> String {
    let wide = text.char_indices().nth(n + 96).map_or(text.len(), |(i, _)| i);
    let masked = mask_secrets(&text[..wide]);
    match masked.char_indices().nth(n) {
        Some((i, _)) => masked[..i].to_string(),
        None => masked,
    }
}

fn kind_of(m: &Message) -> String {
    let calls = m.blocks.iter().filter(|b| b.kind == BlockKind::ToolCall).count();
    if m.kind == MessageKind::Assistant && calls > 0 {
        let other = m.blocks.iter().any(|b| b.kind == BlockKind::Text && !b.is_blank());
        return if other { "assistant + tool call".into() } else { "tool call".into() };
    }
    m.kind.as_str().to_string()
}

fn from_message(
    index: usize,
    m: &Message,
    line: Option<u32>,
    entry_id: Option<&str>,
    text_chars: usize,
) -> ShownMessage {
    let blocks: Vec<&Block> = m.blocks.iter().collect();
    message_row(
        index,
        m.role.as_str(),
        kind_of(m),
        m.pointer.to_string(),
        line,
        entry_id.map(str::to_string),
        &blocks,
        text_chars,
    )
}

/// A row's identity ([`ShownMessage::hash`]): its blocks' kinds, tool ids,
/// text hashes and lengths.
fn row_hash<'b>(src: impl Iterator<Item = &'b Block>) -> String {
    let mut id = Vec::with_capacity(48);
    for b in src {
        id.extend_from_slice(b.kind.as_str().as_bytes());
        id.push(0);
        id.extend_from_slice(b.tool_id.as_deref().unwrap_or("").as_bytes());
        id.push(0);
        id.extend_from_slice(&b.text_hash.to_le_bytes());
        id.extend_from_slice(&b.text_len.to_le_bytes());
    }
    format!("{:08x}", crate::hash::hash_bytes(&id) >> 32)
}

#[allow(clippy::too_many_arguments)]
fn message_row(
    index: usize,
    role: &'static str,
    kind: String,
    pointer: String,
    line: Option<u32>,
    entry_id: Option<String>,
    src: &[&Block],
    text_chars: usize,
) -> ShownMessage {
    let bytes = src.iter().map(|b| b.text_len as usize).sum();
    let hash = row_hash(src.iter().copied());
    let blocks = src.iter().map(|b| block(b, text_chars)).collect();
    let entry_id = entry_id.map(|i| mask_secrets(&i));
    ShownMessage { index, role, kind, pointer, line, entry_id, bytes, hash, first_line: first_line(src), blocks }
}

/// Whether [`first_line`] would read a text that was not kept (a transcript
/// loaded with [`crate::model::packed::Texts::Compact`]).
fn needs_reload(blocks: &[Block]) -> bool {
    for b in blocks {
        let dropped = !b.has_full_text() && b.text.is_empty() && b.text_len > 0;
        if b.kind == BlockKind::ToolCall || dropped {
            return dropped;
        }
        if b.text.lines().any(|l| !l.trim().is_empty()) {
            return false;
        }
    }
    false
}

/// The first non-empty line of a message, masked and truncated: a tool call
/// shows `name(arguments`, thinking is marked `[thinking]`.
fn first_line(blocks: &[&Block]) -> String {
    for b in blocks {
        if b.kind == BlockKind::ToolCall {
            let args = b.text.trim();
            return excerpt(&format!("{}({args}", b.tool_name.as_deref().unwrap_or("?")), FIRST_LINE_CHARS);
        }
        if let Some(l) = b.text.lines().map(str::trim).find(|l| !l.is_empty()) {
            let l = if b.kind == BlockKind::Thinking { format!("[thinking] {l}") } else { l.to_string() };
            return excerpt(&l, FIRST_LINE_CHARS);
        }
    }
    match blocks.first() {
        Some(b) if b.kind != BlockKind::Text => format!("[{}]", b.kind.as_str()),
        _ if blocks.iter().any(|b| !b.has_full_text() && b.text.trim().is_empty()) => "(text not kept)".into(),
        _ if blocks.iter().any(|b| b.text_len > 0) => "(blank)".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::parse_body;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn request_rows_in_cache_order_with_slots_first() {
        let r = parse_body(
            crate::formats::anthropic::ID,
            &json!({"system":"You are terse.","tools":[{"name":"x"}],"messages":[
                {"role":"user","content":[{"type":"text","text":"\n\nmy key sk-ant-api03-AAAABBBBCCCCDDDDEEEE"}]},
                {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{"a":1}}]},
                {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}),
            &Arc::from("r.json"),
            0,
            "",
        )
        .expect("parses");
        let u = request_unit(&r, usize::MAX);
        let kinds: Vec<&str> = u.messages.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, vec!["system slot", "user", "tool call", "tool results"]);
        assert_eq!(u.messages[1].first_line, "my key sk-a****");
        assert_eq!(u.messages[2].first_line, "x({\"a\":1}");
        assert_eq!(u.tools.as_ref().and_then(|t| t.count), Some(1));
        assert_eq!(u.messages[0].pointer, "/system");
        assert_eq!(u.messages[2].blocks[0].pointer, "/messages/1/content/0");
    }

    /// The walker's contexts equal the path filtered afresh at every step
    /// ([`Tree::step_context`]), on random branching sessions with user
    /// turns, runtime-context carriers, compactions and failed replies, in
    /// write order (the branch switches of `switch_branch` included).
    #[test]
    fn the_step_walker_matches_the_context_built_afresh() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut switches = 0;
        for round in 0..300 {
            let n = 5 + rnd(60);
            let mut lines =
                vec![json!({"type":"session","version":3,"id":"s","timestamp":"2026-04-19T00:00:00.000Z","cwd":"/w"})];
            let mut parents: Vec<Option<usize>> = Vec::new();
            for i in 0..n {
                // Mostly the latest entry (a conversation), sometimes an earlier one (a branch).
                let parent = match i {
                    0 => None,
                    _ if rnd(4) == 0 => Some(rnd(i)),
                    _ => Some(i - 1),
                };
                let id = format!("e{i}");
                let pid = parent.map(|p| format!("e{p}"));
                let ts = "2026-04-19T13:00:02.000Z";
                let text = |t: &str| json!([{"type":"text","text": format!("{t} {i}")}]);
                let v = match rnd(10) {
                    0..=2 => {
                        json!({"type":"message","id":id,"parentId":pid,"timestamp":ts,"message":{"role":"user","content":text("ask")}})
                    }
                    3..=6 => {
                        json!({"type":"message","id":id,"parentId":pid,"timestamp":ts,"message":{"role":"assistant","content":text("answer"),
                        "api":"anthropic-messages","provider":"anthropic","model":"m","stopReason": if rnd(8) == 0 { "error" } else { "stop" },
                        "usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2}}})
                    }
                    7 | 8 => {
                        json!({"type":"custom_message","id":id,"parentId":pid,"timestamp":ts,"customType":"openclaw.runtime-context","content":text("ctx"),"display":false})
                    }
                    _ => {
                        // A compaction keeping an ancestor (or nothing).
                        let mut kept = parent;
                        for _ in 0..rnd(4) {
                            kept = kept.and_then(|k| parents[k]);
                        }
                        json!({"type":"compaction","id":id,"parentId":pid,"timestamp":ts,"summary":"earlier work","firstKeptEntryId":kept.map(|k| format!("e{k}")),"tokensBefore":10})
                    }
                };
                parents.push(parent);
                lines.push(v);
            }
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let input = crate::formats::load_str_for_test(crate::formats::pi_session::load, "s.jsonl", &text);
            let Some(t) = input.as_transcript() else { panic!("a transcript") };
            let tree = Tree::build(t);
            let mut walk = StepWalker::default();
            let mut prev: Option<u32> = None;
            for e in crate::analysis::step_entries(t) {
                let before = walk.ctx.clone();
                let change = walk.advance(t, &tree, e);
                let fresh = step_context(t, &tree, e);
                assert_eq!(walk.ctx, fresh, "round {round}, step at entry {e}:\n{text}");
                // Tree::step_context walks only the part of the path that can
                // be sent: the same as filtering the whole path.
                let path = tree.path(t, e);
                let mut whole: Vec<u32> =
                    path[..path.len() - 1].iter().copied().filter(|&x| tree.in_context_at(t, x, e)).collect();
                if let Some(k) = whole.iter().position(|&x| x == tree.compaction[e as usize]) {
                    whole[..=k].rotate_right(1);
                }
                whole.retain(|&x| t.entries[x as usize].has_message());
                assert_eq!(fresh, whole, "round {round}, step at entry {e}:\n{text}");
                let k = before.iter().zip(&fresh).take_while(|(a, b)| a == b).count();
                let kept: usize = change.kept.iter().map(|r| r.count).sum();
                if change.rebuilt == Some("another branch") {
                    assert_eq!(
                        (change.carried, change.dropped + kept),
                        (k, before.len() - k),
                        "round {round}, entry {e}"
                    );
                }
                // The carried entries begin both contexts; a kept run is the
                // same entries in both, past the carried ones.
                assert_eq!(before[..change.carried], fresh[..change.carried], "round {round}, entry {e}");
                for r in &change.kept {
                    assert!(r.from >= change.carried && r.at >= change.carried, "round {round}, entry {e}");
                    assert_eq!(
                        before[r.from..r.from + r.count],
                        fresh[r.at..r.at + r.count],
                        "round {round}, entry {e}"
                    );
                }
                if prev.is_some_and(|p| !tree.is_ancestor_or_self(p, e)) {
                    switches += 1;
                }
                prev = Some(e);
            }
        }
        assert!(switches > 300, "branch switches tried: {switches}");
    }

    #[test]
    fn indices_are_described() {
        assert_eq!(describe_indices([0, 1, 2].into_iter(), "request"), "3 requests: 0–2");
        assert_eq!(describe_indices([0, 4].into_iter(), "request"), "2 requests: 0, 4");
        assert_eq!(describe_indices(std::iter::empty(), "step"), "no steps");
    }
}
