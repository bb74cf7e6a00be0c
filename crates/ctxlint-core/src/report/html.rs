//! `html`: one self-contained triage page (docs/spec.md §4) for a check report.
//!
//! **One file, not a folder.** A triage report is attached to bug reports
//! and kept as a CI artifact, so it is a single HTML file that works from
//! `file://`: CSS and JavaScript inline, no network (a `Content-Security-Policy`
//! of `default-src 'none'` forbids every request), light and dark, every
//! control a button, link or select reachable by keyboard.
//!
//! **What it holds.** A summary (findings per rule and per file, sortable)
//! and a page per checked input ([`Page`]): a timeline of its requests or
//! steps, a bar each for the context's size in bytes and estimated tokens
//! ([`TOKEN_ESTIMATE`]), the provider's cache usage where the transcript
//! records it, a mark where each finding sits (cache breaks,
//! `history-rewrite` and `dropped-system-prompt`, marked apart), a filter by
//! rule and severity; a step or finding opens the context at that step, the
//! offending block highlighted and its related first copy linked, and the
//! structural diff against the previous request or step.
//!
//! **How it scales.** The context of every step is not written out: as
//! `ctxlint show` does, each step lists only the messages new since the
//! previous step's context and how many of that context it carries over
//! ([`crate::show::Delta`]); the page rebuilds a step's context from those
//! counts. Each block keeps the first [`SNIPPET_CHARS`] characters of its
//! text (masked), up to [`TEXT_BUDGET`] bytes of texts per input; sizes are
//! always shown. The per-step numbers are one small JSON object read at
//! once; the messages are in JSON blocks of [`CHUNK`] steps, parsed only
//! when a step among them is opened. Every `<` in embedded JSON is written
//! `\u003c`, so no text can close its `<script>` element.
//!
//! Every text is masked ([`crate::text::mask_secrets`]) as in the other
//! formats: findings as [`super::json::finding_value`] gives them (masked
//! and truncated excerpts), texts by [`crate::show`].

use super::Out;
use crate::Finding;
use crate::check_report::CheckReport;
use crate::show::{Mode, Shown, Sink, Unit};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Steps (or requests) per embedded block of messages.
pub const CHUNK: usize = 500;
/// Characters of each block's text kept in the report.
pub const SNIPPET_CHARS: usize = 600;
/// Bytes of block texts kept per input; past it, blocks keep only their
/// sizes and first lines (the page says so).
pub const TEXT_BUDGET: usize = 16 << 20;
/// Adjacent request pairs of a stream diffed in full (`ctxlint diff`'s
/// model) when the stream has at most this many requests; in a longer
/// stream only the pairs whose later request has a finding are.
pub const DIFF_ALL_UNDER: usize = 200;
/// Changes listed per diffed pair.
const DIFF_CHANGES: usize = 60;
/// Characters of a side's text in a diff.
const DIFF_TEXT_CHARS: usize = 1200;
/// The token estimate the report shows, named on the page.
pub const TOKEN_ESTIMATE: &str = "estimated tokens ≈ bytes ÷ 4 (the usual rule of thumb for English text with BPE tokenizers; code and non-Latin text run higher)";

/// What the report shows of one checked input: its timeline and, in
/// blocks, the messages new at each step. Built while the input is loaded
/// ([`Page::build`]), so `check` reads each input once.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// Display path (masked).
    pub path: String,
    /// The session, in a store that holds several (pages of one store share
    /// its path).
    pub session: Option<String>,
    /// Format id.
    pub format: crate::model::FormatId,
    /// Steps of a transcript (else requests of a stream).
    pub transcript: bool,
    /// Facts `show` states about the input (skipped exchanges, malformed lines).
    pub notes: Vec<String>,
    /// Request index (streams count skipped exchanges) or step number, per unit.
    pub index: Vec<usize>,
    /// 1-based line of the model call (steps) or request (exchange logs).
    pub line: Vec<Option<u32>>,
    /// Messages in the unit's whole context.
    pub context_len: Vec<usize>,
    /// Bytes of the texts of the unit's whole context.
    pub bytes: Vec<u64>,
    /// Messages carried over from the previous unit's context (the first ones).
    pub carried: Vec<usize>,
    /// Messages of the previous context no longer sent.
    pub dropped: Vec<usize>,
    /// Why the context was rebuilt (index into [`REBUILT`], 0: extended).
    pub rebuilt: Vec<u8>,
    /// Messages new at each unit (listed in the blocks).
    pub new: Vec<u32>,
    /// Units whose rebuilt context sends messages of the previous one again
    /// after the carried ones (`show`'s [`crate::show::Delta::kept`]):
    /// `(unit position, [from, at, count] per run)`.
    pub kept: Vec<(usize, Vec<[usize; 3]>)>,
    /// Model per unit (index into `models`, 0: not recorded).
    pub model: Vec<u16>,
    /// Models named (`models[0]` is `""`).
    pub models: Vec<String>,
    /// Cache usage the provider reported per step, when the transcript records it.
    pub usage: Vec<Option<crate::model::Usage>>,
    /// Streams: each request's body pointer in its file (`""` for a file that is one body).
    pub body: Vec<String>,
    /// Streams: each request's file, as an index into `files`.
    pub file: Vec<u32>,
    /// Streams: the files the requests are read from (masked); findings name these.
    pub files: Vec<String>,
    /// Streams: each request's lane (docs/spec.md §1 *Lanes*), as `show` says it
    /// ("lane 1 (system "…"), compared with request 0"); empty for transcripts.
    pub lane: Vec<String>,
    /// The messages, one JSON array per [`CHUNK`] units.
    pub chunks: Vec<String>,
    /// Request diffs (streams): `(unit position, JSON)`.
    pub diffs: Vec<(usize, String)>,
    /// Some block texts were left out ([`TEXT_BUDGET`]).
    pub texts_cut: bool,
}

/// The embedded index (`ctxlint-index`): the check report's summary,
/// files, findings (as `--output-format json` gives them, without `url`)
/// and each page's numbers.
#[derive(serde::Serialize)]
struct Index<'a> {
    version: u32,
    tool: &'static str,
    tool_version: &'static str,
    token_estimate: &'static str,
    snippet_chars: usize,
    text_budget: usize,
    rebuilt: [&'static str; 7],
    summary: Value,
    files: Vec<Value>,
    skipped: Vec<Value>,
    failed: Value,
    unlisted: Vec<Value>,
    findings: Vec<Value>,
    pages: Vec<Meta<'a>>,
}

/// A page's numbers as the index embeds them (`pages[i]`): one array per
/// field, one element per unit; `index` and `body`/`file` are `null` when
/// they say nothing (units numbered 0…n, a transcript).
#[derive(serde::Serialize)]
struct Meta<'a> {
    id: usize,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    format: crate::model::FormatId,
    transcript: bool,
    notes: &'a [String],
    total: usize,
    chunk: usize,
    chunks: usize,
    index: Option<&'a Vec<usize>>,
    line: &'a [Option<u32>],
    ctx: &'a [usize],
    bytes: &'a [u64],
    carried: &'a [usize],
    dropped: &'a [usize],
    rebuilt: &'a [u8],
    new: &'a [u32],
    kept: &'a [(usize, Vec<[usize; 3]>)],
    model: &'a [u16],
    models: &'a [String],
    /// Per step `[input, cache_read, cache_write]` tokens, or `null`.
    usage: Option<Vec<Option<[u32; 3]>>>,
    diffs: bool,
    body: Option<&'a Vec<String>>,
    file: Option<&'a Vec<u32>>,
    files: &'a [String],
    lane: Option<&'a Vec<String>>,
    texts_cut: bool,
}

/// Why a context was rebuilt, as coded in [`Page::rebuilt`].
pub const REBUILT: [&str; 7] =
    ["", "compaction", "another branch", "context carrier dropped", "history differs", crate::show::CHAINED, "rebuilt"];

fn rebuilt_code(r: Option<&str>) -> u8 {
    match r {
        None => 0,
        Some(s) => REBUILT.iter().position(|x| *x == s).unwrap_or(REBUILT.len() - 1) as u8,
    }
}

/// Builds a [`Page`] from `show`'s units as they stream.
struct PageSink {
    page: Page,
    /// Prefix sums of the bytes of the current context's messages.
    sums: Vec<u64>,
    /// The current chunk's units, as JSON arrays ([`unit_json`]).
    chunk: Vec<String>,
    text_bytes: usize,
}

/// One unit's new messages as the JSON array the page reads:
/// `[[role, kind, bytes, line, pointer, first_line, entry_id,
/// [[kind, pointer, bytes, cut, text, tool_name, tool_id], …]], …]`
/// (`cut`: 1 when only a prefix of the text is kept; not when masking made
/// it shorter than `bytes`). Texts are left
/// out (`""`) unless `texts`. Returns the JSON and the bytes of text kept.
fn unit_json(u: &Unit, texts: bool) -> (String, usize) {
    type BlockRow<'a> = (&'a str, &'a str, usize, u8, &'a str, Option<&'a String>, Option<&'a String>);
    let mut kept = 0;
    let rows: Vec<_> = u
        .messages
        .iter()
        .map(|m| {
            let blocks: Vec<BlockRow<'_>> = m
                .blocks
                .iter()
                .map(|b| {
                    let text = if texts { b.text.as_str() } else { "" };
                    kept += text.len();
                    let cut = b.truncated;
                    (b.kind, b.pointer.as_str(), b.bytes, u8::from(cut), text, b.tool_name.as_ref(), b.tool_id.as_ref())
                })
                .collect();
            (
                m.role,
                m.kind.as_str(),
                m.bytes,
                m.line,
                m.pointer.as_str(),
                m.first_line.as_str(),
                m.entry_id.as_ref(),
                blocks,
            )
        })
        .collect();
    (serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into()), kept)
}

impl PageSink {
    fn flush_chunk(&mut self) {
        let mut s = String::with_capacity(self.chunk.iter().map(|x| x.len() + 1).sum::<usize>() + 2);
        s.push('[');
        for (i, u) in self.chunk.drain(..).enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&u);
        }
        s.push(']');
        self.page.chunks.push(s);
    }
}

impl Sink for PageSink {
    fn begin(&mut self, s: &Shown) -> crate::Result<()> {
        self.page.transcript = s.transcript;
        self.page.notes = s.notes.clone();
        self.page.format = s.format;
        self.sums = vec![0];
        self.page.models = vec![String::new()];
        Ok(())
    }
    fn units(&mut self, _: &Shown, units: Vec<Unit>) -> crate::Result<()> {
        // The texts of a batch are kept while the input's budget lasts (it
        // may run over by one batch). Its units are serialised in parallel.
        let texts = self.wants_texts();
        let json: Vec<(String, usize)> = {
            use rayon::prelude::*;
            units.par_iter().map(|u| unit_json(u, texts)).collect()
        };
        if !texts && units.iter().any(|u| u.messages.iter().any(|m| m.blocks.iter().any(|b| b.bytes > 0))) {
            self.page.texts_cut = true;
        }
        for (u, (j, kept)) in units.iter().zip(json) {
            self.text_bytes += kept;
            let carried = u.delta.as_ref().map_or(0, |d| d.carried).min(self.sums.len() - 1);
            let kept = u.delta.as_ref().map_or(&[][..], |d| &d.kept[..]);
            if kept.is_empty() {
                self.sums.truncate(carried + 1);
                for m in &u.messages {
                    let last = *self.sums.last().unwrap_or(&0);
                    self.sums.push(last + m.bytes as u64);
                }
            } else {
                // The whole context in order: the carried messages, then the
                // kept runs (sizes from the previous context's sums) at their
                // positions and the listed messages between them.
                let old = std::mem::take(&mut self.sums);
                let size = |i: usize| old.get(i + 1).zip(old.get(i)).map_or(0, |(b, a)| b.saturating_sub(*a));
                let mut sums = old[..=carried].to_vec();
                let mut listed = u.messages.iter().peekable();
                for r in kept {
                    while listed.peek().is_some_and(|m| m.index < r.at) {
                        let m = listed.next().map_or(0, |m| m.bytes as u64);
                        sums.push(sums.last().unwrap_or(&0) + m);
                    }
                    for i in r.from..r.from + r.count {
                        sums.push(sums.last().unwrap_or(&0) + size(i));
                    }
                }
                for m in listed {
                    sums.push(sums.last().unwrap_or(&0) + m.bytes as u64);
                }
                self.sums = sums;
                self.page.kept.push((self.page.index.len(), kept.iter().map(|r| [r.from, r.at, r.count]).collect()));
            }
            let p = &mut self.page;
            p.index.push(u.index);
            p.line.push(u.line);
            p.context_len.push(u.context_len);
            p.bytes.push(*self.sums.last().unwrap_or(&0));
            p.carried.push(carried);
            p.dropped.push(u.delta.as_ref().map_or(0, |d| d.dropped));
            p.rebuilt.push(rebuilt_code(u.delta.as_ref().and_then(|d| d.rebuilt)));
            p.new.push(u.messages.len() as u32);
            if !self.page.transcript {
                let p = &mut self.page;
                p.lane.push(u.lane.as_ref().map(crate::conversation::Lane::describe).unwrap_or_default());
                p.body.push(u.pointer.clone().unwrap_or_default());
                let f = u.path.clone().unwrap_or_default();
                let k = match p.files.last() {
                    Some(x) if *x == f => p.files.len() - 1,
                    _ => match p.files.iter().position(|x| *x == f) {
                        Some(k) => k,
                        None => {
                            p.files.push(f);
                            p.files.len() - 1
                        }
                    },
                };
                p.file.push(k as u32);
            }
            let p = &mut self.page;
            let model = match &u.model {
                None => 0,
                Some(m) => match p.models.iter().position(|x| x == m) {
                    Some(i) => i,
                    None if p.models.len() < u16::MAX as usize => {
                        p.models.push(m.clone());
                        p.models.len() - 1
                    }
                    None => 0,
                },
            };
            p.model.push(model as u16);
            self.chunk.push(j);
            if self.chunk.len() == CHUNK {
                self.flush_chunk();
            }
        }
        Ok(())
    }
    fn wants_texts(&self) -> bool {
        self.text_bytes < TEXT_BUDGET
    }
    fn end(&mut self, _: &Shown) -> crate::Result<()> {
        if !self.chunk.is_empty() {
            self.flush_chunk();
        }
        Ok(())
    }
}

/// Builds each input's [`Page`] during the check
/// ([`crate::InputObserver`]): its steps beside the rules, its request diffs
/// after them; assistant and tool texts are kept as loaded (the page lists
/// them) rather than read again.
pub struct Pages;

impl crate::InputObserver for Pages {
    type Out = Page;
    fn texts(&self) -> crate::model::packed::Texts {
        crate::model::packed::Texts::AsLoaded
    }
    fn begin(&self, input: &crate::model::Input, session: Option<&str>, facts: &crate::conversation::Facts) -> Page {
        Page { session: session.map(str::to_string), ..Page::units(input, facts) }
    }
    fn end(
        &self,
        page: &mut Page,
        input: &crate::model::Input,
        findings: &[Finding],
        facts: &crate::conversation::Facts,
    ) {
        page.add_diffs(input, findings, facts);
    }
}

/// [`crate::check_plan_with`], also building the HTML report's page of each
/// input while it is loaded, so that the report reads every input once.
/// Pages are in the order of the report's files.
pub fn check_plan_pages(
    plan: crate::inputs::Plan,
    configs: &crate::config::ConfigSet,
    tick: &(dyn Fn(u64) + Sync),
) -> (crate::check_report::CheckReport, Vec<Page>) {
    crate::check_plan_observed(plan, configs, tick, &Pages)
}

impl Page {
    /// Builds the page of a loaded input; `findings` (its own) decide which
    /// request pairs of a long stream are diffed. An input `show` cannot
    /// list (none today) gives a page with no steps.
    pub fn build(input: &crate::model::Input, findings: &[Finding]) -> Page {
        let facts = crate::conversation::Facts::default();
        let mut page = Page::units(input, &facts);
        page.add_diffs(input, findings, &facts);
        page
    }

    /// The part of [`Page::build`] that needs no findings (every step's
    /// sizes, texts and cache usage), so it can run beside the rules.
    /// `facts`: the input's stream facts, shared with the rules.
    pub fn units(input: &crate::model::Input, facts: &crate::conversation::Facts) -> Page {
        let mut sink = PageSink { page: Page::default(), sums: vec![0], chunk: Vec::new(), text_bytes: 0 };
        let listed = crate::show::show_each_with(input, None, Mode::Compact, SNIPPET_CHARS, &mut sink, facts);
        let mut page = sink.page;
        if listed.is_err() {
            page = Page { notes: vec!["its contexts could not be listed".into()], ..Page::default() };
        }
        page.path = crate::text::mask_path(&input.path).into_owned();
        page.format = input.format;
        if let crate::model::Body::Transcript(t) = &input.body {
            if t.usage.iter().any(Option::is_some) {
                let steps = crate::analysis::step_entries(t);
                page.usage = steps.iter().map(|&e| t.usage.get(e as usize).copied().flatten()).collect();
            }
        }
        page
    }

    /// Adds the request diffs of a stream: every pair when it is short,
    /// else the pairs whose later request has one of `findings`.
    /// `facts`: the input's stream facts, shared with the rules.
    pub fn add_diffs(&mut self, input: &crate::model::Input, findings: &[Finding], facts: &crate::conversation::Facts) {
        let page = self;
        if let crate::model::Body::Stream(s) = &input.body {
            let hot: BTreeSet<usize> = findings.iter().filter_map(|f| f.request).collect();
            let all = s.requests.len() <= DIFF_ALL_UNDER;
            // Each request is diffed with the request the rules compare it
            // with (its lane's predecessor, docs/spec.md §1 Lanes), else the one before.
            let lanes = facts.lanes(s);
            for k in 1..s.requests.len() {
                if all || hot.contains(&s.requests[k].index) {
                    let p = lanes.get(k).and_then(|l| l.compared_with).unwrap_or(k - 1);
                    let mut d = crate::diff::diff(&s.requests[p], &s.requests[k]);
                    d.lanes = crate::diff::lanes_of(s, lanes, &s.requests[p], &s.requests[k]);
                    page.diffs.push((k, diff_value(&d).to_string()));
                }
            }
        }
    }

    fn meta(&self, i: usize) -> Meta<'_> {
        let identity = self.index.iter().enumerate().all(|(k, &x)| k == x);
        Meta {
            id: i,
            path: &self.path,
            session: self.session.as_deref(),
            format: self.format,
            transcript: self.transcript,
            notes: &self.notes,
            total: self.index.len(),
            chunk: CHUNK,
            chunks: self.chunks.len(),
            index: (!identity).then_some(&self.index),
            line: &self.line,
            ctx: &self.context_len,
            bytes: &self.bytes,
            carried: &self.carried,
            dropped: &self.dropped,
            rebuilt: &self.rebuilt,
            new: &self.new,
            kept: &self.kept,
            model: &self.model,
            models: &self.models,
            usage: (!self.usage.is_empty())
                .then(|| self.usage.iter().map(|u| u.map(|u| [u.input, u.cache_read, u.cache_write])).collect()),
            diffs: !self.diffs.is_empty(),
            body: (!self.transcript).then_some(&self.body),
            file: (!self.transcript).then_some(&self.file),
            files: &self.files,
            lane: (!self.transcript && self.lane.iter().any(|l| !l.is_empty())).then_some(&self.lane),
            texts_cut: self.texts_cut,
        }
    }
}

fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

/// A request diff as the page renders it side by side: the headline and
/// the elements that differ (`op`, `section`, each side's pointer, what it
/// is, bytes and text, and the unified text diff of a changed element).
///
/// Requests the page says are not compared (another conversation, across a
/// compaction) list their differing elements without texts (issue 33: a 91 KB
/// tools array and whole system prompts were printed for them).
fn diff_value(d: &crate::diff::RequestDiff) -> Value {
    let compared = d.compared();
    let side = |s: &Option<crate::diff::Side>| match s {
        Some(s) => json!({
            "pointer": s.pointer,
            "what": s.what,
            "bytes": s.bytes,
            "text": compared.then(|| cut(&s.text, DIFF_TEXT_CHARS)),
        }),
        None => Value::Null,
    };
    let changes: Vec<Value> = d
        .differences()
        .take(DIFF_CHANGES)
        .map(|c| {
            json!({
                "op": c.op.as_str(),
                "section": c.section,
                "a": side(&c.a),
                "b": side(&c.b),
                "diff": c
                    .diff
                    .as_ref()
                    .filter(|_| compared)
                    .map(|t| cut(&crate::text::mask_secrets(&t.unified()), 4 * DIFF_TEXT_CHARS)),
            })
        })
        .collect();
    let total = d.differences().count();
    json!({
        "headline": d.headline(),
        "note": d.note,
        "same": d.changes.len() - total,
        "total": total,
        "changes": changes,
    })
}

/// Embeds a JSON text in a `<script type="application/json">` element: every
/// `<` becomes `\u003c` (only strings hold one), so `</script>` cannot occur.
fn script_json(out: Out<'_>, id: &str, json: &str) -> std::io::Result<()> {
    write!(out, "<script type=\"application/json\" id=\"{id}\">")?;
    let mut rest = json.as_bytes();
    while let Some(i) = memchr::memchr(b'<', rest) {
        out.write_all(&rest[..i])?;
        out.write_all(b"\\u003c")?;
        rest = &rest[i + 1..];
    }
    out.write_all(rest)?;
    out.write_all(b"</script>\n")
}

const CSS: &str = include_str!("html/report.css");
const JS: &str = include_str!("html/report.js");

/// Writes the report: the summary and one page per input in `pages`
/// (matched to the report's files by path; an input without a page is
/// listed in the summary only).
pub fn write(r: &CheckReport, pages: &[Page], out: Out<'_>) -> std::io::Result<()> {
    // Without `url`: the page names no external address (the rule's
    // documentation is `ctxlint rule NAME`).
    let findings: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let mut v = super::json::finding_value(f);
            if let Value::Object(m) = &mut v {
                m.remove("url");
            }
            v
        })
        .collect();
    // (A store of several sessions has a page per session, all at its path.)
    let by_path: std::collections::HashMap<(&str, Option<&str>), usize> =
        pages.iter().enumerate().rev().map(|(i, p)| ((p.path.as_str(), p.session.as_deref()), i)).collect();
    let page_of =
        |path: &str, session: Option<&str>| by_path.get(&(crate::text::mask_path(path).as_ref(), session)).copied();
    let files: Vec<Value> = r
        .files
        .iter()
        .map(|f| {
            let mut v = json!({
                "path": crate::text::mask_path(&f.path),
                "format": f.format,
                "requests": f.requests,
                "entries": f.entries,
                "skipped_exchanges": f.skipped_exchanges,
                "page": page_of(&f.path, f.session.as_deref()),
                "usage": f.usage,
                "impact": f.impact,
            });
            if let (Some(id), Value::Object(m)) = (&f.session, &mut v) {
                m.insert("session".into(), json!(id));
            }
            v
        })
        .collect();
    let skipped: Vec<Value> = r
        .skipped
        .iter()
        .map(|s| json!({"path": crate::text::mask_path(&s.path), "reason": crate::text::mask_secrets(&s.reason)}))
        .collect();
    let unlisted: Vec<Value> = r
        .unlisted
        .iter()
        .map(|u| json!({"path": crate::text::mask_path(&u.path), "message": super::unlisted_message(u)}))
        .collect();
    let index = Index {
        version: 1,
        tool: "ctxlint",
        tool_version: env!("CARGO_PKG_VERSION"),
        token_estimate: TOKEN_ESTIMATE,
        snippet_chars: SNIPPET_CHARS,
        text_budget: TEXT_BUDGET,
        rebuilt: REBUILT,
        summary: super::json::summary(r),
        files,
        skipped,
        failed: super::json::failed(r),
        unlisted,
        findings,
        pages: pages.iter().enumerate().map(|(i, p)| p.meta(i)).collect(),
    };
    let title = match pages {
        [p] => format!("ctxlint: {}", p.path),
        _ => format!("ctxlint: {} inputs", r.files.len()),
    };
    out.write_all(b"<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")?;
    out.write_all(b"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")?;
    out.write_all(b"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n")?;
    out.write_all(b"<meta name=\"color-scheme\" content=\"light dark\">\n")?;
    write!(out, "<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n", escape(&title))?;
    writeln!(
        out,
        "<header class=\"top\"><a class=\"brand\" href=\"#\">ctxlint</a> <span class=\"muted\">triage report · ctxlint {} · {} finding{} in {} input{}</span></header>",
        env!("CARGO_PKG_VERSION"),
        r.findings.len(),
        if r.findings.len() == 1 { "" } else { "s" },
        r.files.len(),
        if r.files.len() == 1 { "" } else { "s" },
    )?;
    out.write_all(b"<main id=\"app\" tabindex=\"-1\"><noscript><p>This report needs JavaScript to draw its pages; the findings are in the JSON element <code>ctxlint-index</code> of this file.</p></noscript></main>\n")?;
    script_json(out, "ctxlint-index", &serde_json::to_string(&index).map_err(std::io::Error::other)?)?;
    write!(out, "<script>\n{JS}</script>\n")?;
    for (i, p) in pages.iter().enumerate() {
        for (j, c) in p.chunks.iter().enumerate() {
            script_json(out, &format!("p{i}-c{j}"), c)?;
        }
        if !p.diffs.is_empty() {
            let mut s = String::from("{");
            for (k, (pos, d)) in p.diffs.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                s.push_str(&format!("\"{pos}\":{d}"));
            }
            s.push('}');
            script_json(out, &format!("p{i}-d"), &s)?;
        }
    }
    out.write_all(b"</body>\n</html>\n")
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_close_its_script_element() {
        let mut out = Vec::new();
        script_json(&mut out, "x", r#"["</script><script>alert(1)</script>"]"#).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s.matches("</script>").count(), 1, "{s}");
        let inner = s.trim_start_matches("<script type=\"application/json\" id=\"x\">").trim_end_matches("</script>\n");
        let v: Value = serde_json::from_str(inner).unwrap();
        assert_eq!(v[0], "</script><script>alert(1)</script>");
    }

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }
}
