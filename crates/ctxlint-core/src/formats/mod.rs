//! Input formats: detection by content (docs/spec.md §1) and the registry of loaders.
//! One file per format; each documents the upstream source of its facts.

pub mod ai_sdk;
pub mod aider;
pub mod anthropic;
pub mod bedrock;
pub mod body;
pub mod claude_code;
pub mod cline_history;
pub mod codex_rollout;
pub mod copilot_cli;
pub mod exchange_log;
pub mod format;
pub mod gemini;
pub mod gemini_cli;
pub mod har;
pub mod jsonl;
pub mod langgraph;
pub mod openai_agents;
pub mod openai_chat;
pub mod openai_responses;
pub mod openclaw_trajectory;
pub mod opencode;
pub mod otel_genai;
pub mod pi_session;
pub mod pydantic_ai;
pub mod record;
pub mod sqlite;
pub mod vcr_cassette;

use crate::error::{Error, Result};
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

pub use body::IGNORED_KEYS;
pub use format::{
    About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer, Store, TextCase,
};
pub use sqlite::CopyScope;
pub use vcr_cassette::MAX_YAML_DEPTH;

/// Every format ctxlint reads: the only list of formats. Listed in the order
/// `ctxlint formats` shows them; detection orders its tests by each
/// descriptor's ranks ([`Detect`]), not by this list.
pub static REGISTRY: &[&Format] = &[
    &pi_session::FORMAT,
    &claude_code::FORMAT,
    &codex_rollout::FORMAT,
    &pydantic_ai::FORMAT,
    &openai_chat::FORMAT,
    &openai_responses::FORMAT,
    &anthropic::FORMAT,
    &gemini::FORMAT,
    &bedrock::FORMAT,
    &exchange_log::FORMAT,
    &vcr_cassette::FORMAT,
    &har::FORMAT,
    &openclaw_trajectory::FORMAT,
    &aider::FORMAT,
    &otel_genai::FORMAT,
    &gemini_cli::FORMAT,
    &copilot_cli::FORMAT,
    &cline_history::FORMAT,
    &ai_sdk::FORMAT,
    &openai_agents::FORMAT,
    &langgraph::FORMAT,
    &opencode::FORMAT,
];

/// The descriptor of format `f`; `None` only for [`FormatId::UNKNOWN`] (ids
/// are made only by the loaders, and a registry test checks each is listed).
pub fn descriptor(f: FormatId) -> Option<&'static Format> {
    REGISTRY.iter().copied().find(|d| d.id == f)
}

/// Every agent's folders of the default scan ([`Format::agent_folders`]),
/// in rank order.
pub fn agent_folders() -> Vec<AgentFolder> {
    let mut v: Vec<AgentFolder> = REGISTRY.iter().flat_map(|d| d.agent_folders.iter().copied()).collect();
    v.sort_by_key(|f| f.rank);
    v
}

/// Whether `f` is a transcript format ([`Shape::Transcript`]).
pub fn is_transcript(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::is_transcript)
}

/// Formats whose files are single request bodies or history snapshots
/// (several in one directory may form a stream).
pub fn is_body_format(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::is_body)
}

/// Whether files of format `f` in one directory form one stream (docs/spec.md §1):
/// request bodies and history snapshots, except OpenAI Agents SDK sessions,
/// which the SDK keeps one per session and appends to in place (files side
/// by side are different sessions).
pub fn joins_stream(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::joins_stream)
}

/// Whether a file found walking a folder belongs to a store tree of some
/// format ([`Store::is_member`]): not an input of its own.
pub fn is_store_member(path: &std::path::Path) -> bool {
    REGISTRY.iter().filter_map(|d| d.store).any(|s| (s.is_member)(path))
}

/// Formats whose files are history snapshots (a stored run, read as one
/// request-like element), not request bodies.
pub fn is_snapshot_format(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::is_snapshot)
}

/// The registered formats with a detection test at one step, in rank order.
fn ranked<T: Copy>(step: impl Fn(&Detect) -> Option<T>, rank: impl Fn(&T) -> u8) -> Vec<(FormatId, T)> {
    let mut v: Vec<(FormatId, T)> = REGISTRY.iter().filter_map(|d| step(&d.detect).map(|t| (d.id, t))).collect();
    v.sort_by_key(|(_, t)| rank(t));
    v
}

/// The detection tests of each step, in rank order, built once from [`REGISTRY`].
struct Steps {
    record: Vec<(FormatId, Sniffer)>,
    owns_record: Vec<(FormatId, format::ValueTest)>,
    weak_record: Vec<(FormatId, Sniffer)>,
    document: Vec<(FormatId, Sniffer)>,
    unsupported_document: Vec<(format::ValueTest, &'static str)>,
    body: Vec<(FormatId, Sniffer)>,
    concatenated: Vec<(FormatId, format::HeadTest)>,
    text: Vec<(FormatId, format::TextSniffer)>,
    database: Vec<(FormatId, format::TableSniffer)>,
}

fn steps() -> &'static Steps {
    static STEPS: std::sync::OnceLock<Steps> = std::sync::OnceLock::new();
    STEPS.get_or_init(|| Steps {
        record: ranked(|d| d.record, |s| s.rank),
        owns_record: ranked(|d| d.owns_record, |_| 0),
        weak_record: ranked(|d| d.weak_record, |s| s.rank),
        document: ranked(|d| d.document, |s| s.rank),
        unsupported_document: REGISTRY.iter().filter_map(|d| d.detect.unsupported_document).collect(),
        body: ranked(|d| d.body, |s| s.rank),
        concatenated: ranked(|d| d.concatenated, |_| 0),
        text: ranked(|d| d.text, |s| s.rank),
        database: ranked(|d| d.database, |s| s.rank),
    })
}

/// Loading options.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--input-format`: the format was forced, not detected; [`load`] first
    /// checks that the input fits it ([`check_fit`]).
    pub forced: Option<FormatId>,
    /// Which texts of a transcript's messages to keep (`check` keeps the
    /// prompt side; `show` and reloads keep all as loaded).
    pub texts: crate::model::packed::Texts,
}

/// Looks a format id up (`--input-format`).
pub fn parse_format_id(s: &str) -> Option<FormatId> {
    REGISTRY.iter().map(|d| d.id).find(|f| f.as_str() == s)
}

/// Every format id, in [`REGISTRY`]'s order, joined with `", "` (for messages).
pub fn ids_joined() -> String {
    REGISTRY.iter().map(|d| d.id.as_str()).collect::<Vec<_>>().join(", ")
}

/// How many bytes detection reads from the start of an input.
pub const PEEK: usize = 256 * 1024;

/// JSONL detection reads at least this many records (and at least [`PEEK`]
/// bytes) before it gives up, when no record decides sooner (docs/spec.md §1).
pub const MIN_RECORDS: u32 = 64;

/// JSONL detection reads no further than this once it has seen 8 records
/// (the records may be huge: a pasted image is one line).
pub const MAX_SNIFF_BYTES: u64 = 64 * 1024 * 1024;

/// A first line longer than this that does not parse is a torn record, not
/// the opening line of a pretty-printed document.
const DOC_FIRST_LINE_MAX: u64 = 1024 * 1024;

/// The [`Detection::Unsupported`] reason of a single JSON document with
/// `traceSchema: "openclaw-trajectory"`: an export bundle's `manifest.json`
/// (`TrajectoryBundleManifest`, openclaw/openclaw `src/trajectory/types.ts`)
/// or a pretty-printed event, not the JSONL trajectory
/// [`openclaw_trajectory`] reads (one event per line).
pub const OPENCLAW_TRAJECTORY_DOCUMENT: &str = "an OpenClaw trajectory document, not a trajectory (an export bundle's manifest or a pretty-printed event; openclaw-trajectory reads `*.trajectory.jsonl` files, one event per line)";

/// What detection found in an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detection {
    /// A format ctxlint reads.
    Format(FormatId),
    /// A known kind of file that ctxlint does not read; the reason names it
    /// (e.g. [`OPENCLAW_TRAJECTORY_DOCUMENT`]). Such a file is skipped like an unknown one.
    Unsupported(&'static str),
    /// No format matched.
    Unknown,
}

/// What one JSONL record says about the format of its file.
enum Sniff {
    /// This record's format decides the file's.
    Decided(FormatId),
    /// A record only this format writes, but which alone does not decide
    /// (Claude Code bookkeeping without `uuid` or `sessionId`): the format,
    /// unless a later record decides otherwise.
    Weak(FormatId),
    /// Says nothing.
    Undecided,
}

/// Detects the format of an input by its content, or `None` (also for a
/// known format that is not supported yet, see [`detect_input`]).
pub fn detect(src: &SourceRef) -> Result<Option<FormatId>> {
    Ok(match detect_input(src)? {
        Detection::Format(f) => Some(f),
        Detection::Unsupported(_) | Detection::Unknown => None,
    })
}

/// Detects the format of an input by its content (docs/spec.md §1).
///
/// JSONL: records are read until one decides, at least the first
/// [`MIN_RECORDS`] records and the first [`PEEK`] bytes (no more than
/// [`MAX_SNIFF_BYTES`] past the 8th record), so any number of leading bookkeeping records
/// (Claude Code `file-history-snapshot`, `summary`, `permission-mode`, … lines)
/// never hide a format. Lines that do not parse are passed over. A single JSON
/// document is recognised by its body; YAML by `interactions:`; an Aider
/// LLM history by its first non-blank line, a `TO LLM <timestamp>` header
/// ([`aider::sniff`]: text never read as JSON, and JSON never as it).
pub fn detect_input(src: &SourceRef) -> Result<Detection> {
    let head = src.peek(PEEK)?;
    if sqlite::is_database(&head) {
        return Ok(detect_database(src));
    }
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let Some(start) = body.iter().position(|c| !c.is_ascii_whitespace()) else {
        return Ok(Detection::Unknown);
    };
    let t = &body[start..];
    if t[0] == b'{' || t[0] == b'[' {
        let blank = |l: &[u8]| l.iter().all(u8::is_ascii_whitespace);
        let (mut records, mut objects, mut weak) = (0u32, 0u32, None);
        // Whether the first line holds a whole JSON value: else the input is
        // read as one (pretty-printed) document first, whose inner lines
        // must not be taken for records.
        let mut first_parsed = None;
        let mut lr = src.lines()?;
        while let Some(l) = lr.next_line().map_err(|e| Error::io(&src.display, e))? {
            let end = l.offset + l.len;
            let bytes = if l.no == 1 { l.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l.bytes) } else { l.bytes };
            if l.too_long || !blank(bytes) {
                records += 1;
            }
            if !l.too_long && !blank(bytes) {
                let parsed = serde_json::from_slice::<Value>(bytes);
                if first_parsed.is_none() {
                    first_parsed = Some(parsed.is_ok());
                    // A long first line that does not parse is a torn record
                    // (issue 7: a pasted image), never a document's opening line.
                    if parsed.is_err() && l.len <= DOC_FIRST_LINE_MAX {
                        if let Some(d) = whole_document(src)? {
                            return Ok(d);
                        }
                        // Pretty-printed records one after another (the
                        // OpenTelemetry SDKs' console and file exporters).
                        if let Some((f, _)) = steps().concatenated.iter().find(|(_, test)| test(body)) {
                            return Ok(Detection::Format(*f));
                        }
                    }
                }
                if let Err(e) = &parsed {
                    // Two records fused on one line (a torn append): the first
                    // one still tells the format (the loader reports the line).
                    if e.to_string().starts_with("trailing characters") {
                        let first = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>().next();
                        if let Some(Ok(v)) = first {
                            if let Sniff::Decided(f) = sniff_record(&v) {
                                weak.get_or_insert(f);
                            }
                        }
                    }
                }
                if let Ok(v) = parsed {
                    objects += u32::from(v.is_object());
                    match sniff_record(&v) {
                        Sniff::Decided(f) => return Ok(Detection::Format(f)),
                        Sniff::Weak(f) => {
                            weak.get_or_insert(f);
                        }
                        Sniff::Undecided => {}
                    }
                }
            }
            if (records >= MIN_RECORDS && end >= PEEK as u64) || (records >= 8 && end >= MAX_SNIFF_BYTES) {
                break;
            }
        }
        if let Some(f) = weak {
            return Ok(Detection::Format(f));
        }
        // JSONL of records that match no format (two or more objects, the
        // first on line 1), or a document already tried: nothing more to try.
        if first_parsed == Some(false) || objects >= 2 {
            return Ok(Detection::Unknown);
        }
        return Ok(whole_document(src)?.unwrap_or(Detection::Unknown));
    }
    // Text: an Aider LLM history's `TO LLM <timestamp>` header, a cassette's
    // `interactions:`.
    Ok(steps().text.iter().find_map(|(_, s)| (s.test)(t)).unwrap_or(Detection::Unknown))
}

/// The detection of `src` read as one JSON document (a request body, a
/// pydantic-ai history), or `None` when it is not one.
fn whole_document(src: &SourceRef) -> Result<Option<Detection>> {
    let bytes = src.read_all()?;
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else { return Ok(None) };
    if let Some((_, why)) = steps().unsupported_document.iter().find(|(test, _)| test(&v)) {
        return Ok(Some(Detection::Unsupported(why)));
    }
    if let Some((f, _)) = steps().document.iter().find(|(_, s)| (s.test)(&v)) {
        return Ok(Some(Detection::Format(*f)));
    }
    Ok(Some(sniff_body(&v).map_or(Detection::Unknown, Detection::Format)))
}

/// Whether a record carries `traceSchema: "openclaw-trajectory"` (an event of [`openclaw_trajectory`]).
fn is_openclaw_trajectory(v: &Value) -> bool {
    v.get("traceSchema").and_then(Value::as_str) == Some(openclaw_trajectory::TRACE_SCHEMA)
}

fn sniff_record(v: &Value) -> Sniff {
    if let Some(f) = sniff_jsonl_record(v) {
        return Sniff::Decided(f);
    }
    match steps().weak_record.iter().find(|(_, s)| (s.test)(v)) {
        Some((f, _)) => Sniff::Weak(*f),
        None => Sniff::Undecided,
    }
}

/// Recognises one JSONL record (docs/spec.md §1 "recognised by"): the first
/// format, by rank, whose record test it passes. A record a format owns
/// ([`Detect::owns_record`]: OpenClaw trajectory events carry `type` and
/// `sessionId` too, but their `traceSchema` decides) is that format's or none.
pub fn sniff_jsonl_record(v: &Value) -> Option<FormatId> {
    v.as_object()?;
    let steps = steps();
    if let Some((owner, _)) = steps.owns_record.iter().find(|(_, owns)| owns(v)) {
        return steps.record.iter().find(|(f, s)| f == owner && (s.test)(v)).map(|(f, _)| *f);
    }
    steps.record.iter().find(|(_, s)| (s.test)(v)).map(|(f, _)| *f)
}

/// Checks that `src` fits `format`, which was forced on it
/// (`--input-format`), as the format's [`Fit`] says (docs/spec.md §1:
/// otherwise an error naming what is missing, never a clean pass). An SQLite
/// database fits only the format whose store it is.
pub fn check_fit(src: &SourceRef, format: FormatId) -> Result<()> {
    let unfit = |missing: &str| Error::DoesNotFit {
        path: src.display.clone().into(),
        format: format.to_string(),
        missing: missing.to_string(),
    };
    if src.peek(16).is_ok_and(|h| sqlite::is_database(&h)) {
        return match detect_database(src) {
            Detection::Format(f) if f == format => Ok(()),
            _ => Err(unfit("an SQLite database, not one of this format's stores")),
        };
    }
    let Some(d) = descriptor(format) else { return Err(unfit("a format ctxlint reads")) };
    match d.fit {
        Fit::Records { test, missing, document } => {
            let mut lr = src.lines()?;
            while let Some(l) = lr.next_line().map_err(|e| Error::io(&src.display, e))? {
                let bytes = if l.no == 1 { l.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l.bytes) } else { l.bytes };
                if l.too_long || bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if serde_json::from_slice::<Value>(bytes).is_ok_and(|v| test(&v)) {
                    return Ok(());
                }
            }
            if let Some(document) = document {
                if serde_json::from_slice::<Value>(&src.read_all()?).is_ok_and(|v| document(&v)) {
                    return Ok(());
                }
            }
            Err(unfit(missing))
        }
        Fit::Own(fits) => match fits(src)? {
            None => Ok(()),
            Some(missing) => Err(unfit(missing)),
        },
        Fit::Document { test, noun } => {
            let bytes = src.read_all()?;
            let v: Value = serde_json::from_slice(&bytes)
                .map_err(|e| unfit(&format!("not one JSON document ({e}), so {noun}")))?;
            match test(&v) {
                None => Ok(()),
                Some(missing) => Err(unfit(missing)),
            }
        }
    }
}

/// Recognises a request body (or a history snapshot): the first format, by
/// rank, whose body test it passes.
pub fn sniff_body(v: &Value) -> Option<FormatId> {
    steps().body.iter().find(|(_, s)| (s.test)(v)).map(|(f, _)| *f)
}

/// Parses a body of a known format into a request (`None` for a format that
/// is not a body format).
pub fn parse_body(format: FormatId, v: &Value, path: &Arc<str>, index: usize, base: &str) -> Option<Request> {
    match descriptor(format)?.read {
        Read::Body { parse, .. } => Some(parse(v, path, index, base)),
        Read::File(_) => None,
    }
}

/// What an SQLite database holds: an Agents SDK `SQLiteSession` store, an
/// OpenCode store, or something else (unknown, also when
/// SQLite cannot open it).
fn detect_database(src: &SourceRef) -> Detection {
    let Ok(db) = sqlite::open(src) else { return Detection::Unsupported(DAMAGED_DATABASE) };
    let Ok(tables) = sqlite::tables(&db.conn) else { return Detection::Unsupported(DAMAGED_DATABASE) };
    match steps().database.iter().find(|(_, s)| (s.test)(&tables)) {
        Some((f, _)) => Detection::Format(*f),
        None => Detection::Unknown,
    }
}

/// The [`Detection::Unsupported`] reason of a database SQLite cannot read.
pub const DAMAGED_DATABASE: &str = "an SQLite database that SQLite cannot read (truncated, damaged or encrypted), so its tables cannot tell its format";

/// The [`Detection::Unsupported`] reason of an OpenCode database.
pub const OPENCODE_DATABASE: &str =
    "an OpenCode database (`opencode.db`: session, message and part tables); the `opencode` format is not read yet";

/// Loads one input of a known format. Body formats give a one-request stream.
pub fn load(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    // A compressed input cannot be read again at an offset: keep every text
    // rather than decompress it from the start for each excerpt.
    let keep_all;
    let opts = if opts.texts == crate::model::packed::Texts::Compact && is_transcript(format) && src.is_compressed() {
        keep_all = LoadOptions { texts: crate::model::packed::Texts::AsLoaded, ..opts.clone() };
        &keep_all
    } else {
        opts
    };
    if opts.forced == Some(format) {
        check_fit(src, format)?;
    }
    let mut input = load_snapshot(src, format, opts)?;
    if let Body::Transcript(t) = &mut input.body {
        // Lines are read again by offset, verified by hash: no size to hold to.
        // (A database has no lines: its texts are all kept.)
        let lines = descriptor(format).is_some_and(|d| d.encoding != Encoding::Database);
        t.source = lines.then(|| SourceRef { seen: None, ..src.clone() });
        t.reader = Some(crate::model::MessageReader { format, read: reload_message });
        t.texts = opts.texts;
        t.messages.seal();
    }
    Ok(input)
}

/// How many times a file that changed while it was read is read again.
pub const READ_TRIES: usize = 3;

/// Loads `src` as one consistent snapshot: its [`crate::source::Stamp`] is
/// taken before and after; when the file shrank, was rewritten or replaced
/// in between (a second writer), it is read again, up to [`READ_TRIES`]
/// times, then an error — never findings (or a clean pass) for bytes that
/// were never one file. A file only appended to meanwhile is fine (its
/// appended bytes are not read), unless what was read ends inside a line
/// (a line being written, or a rewrite to a longer file): then it is read
/// again too.
fn load_snapshot(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    let mut last = None;
    for _ in 0..READ_TRIES {
        let before = src.stamp();
        if let (Some(seen), Some(b)) = (src.seen, before) {
            // Changed since its format was detected (emptied, rewritten): the
            // format must be what the file holds now.
            if !seen.still_holds(&b) && !matches!(detect_input(src), Ok(Detection::Format(f)) if f == format) {
                last = Some((seen.len, b.len));
                continue;
            }
        }
        // Read as exactly the bytes stamped now (a file emptied or cut
        // meanwhile ends early: an error, read again).
        let snap = SourceRef { seen: before.or(src.seen), ..src.clone() };
        let r = load_format(&snap, format, opts);
        let after = src.stamp();
        let shrank = matches!(&r, Err(Error::Io { source, .. }) if source.to_string() == crate::source::SHRANK);
        match (before, after) {
            (Some(b), Some(a)) if shrank || !b.still_holds(&a) => {
                last = Some((b.len, a.len));
                continue;
            }
            // Grown while read, and what was read ends inside a line: a
            // writer was mid-line (an append not done), or the file was
            // rewritten longer in place (the same inode, a larger size: it
            // looks like an append, and its first bytes are not the ones
            // stamped). Either way, read it again rather than report a
            // torn last line that no one wrote.
            (Some(b), Some(a)) if a.len > b.len && src.ends_a_line_at(b.len) == Some(false) => {
                last = Some((b.len, a.len));
                continue;
            }
            _ => return r,
        }
    }
    let (b, a) = last.unwrap_or_default();
    Err(Error::Io {
        path: src.display.clone().into(),
        source: std::io::Error::other(format!(
            "the file changed while it was read, {READ_TRIES} times ({b} bytes, then {a}): another process is rewriting it; check it again once that writer is done"
        )),
    })
}

/// The message of entry `e` of transcript `t` (of `format`) with every text
/// as its loader gives it (see [`crate::model::packed::Texts`]): the entry's line is
/// read again from the transcript's source and loaded on its own. `None` when
/// the line cannot be read or is no longer the line that was checked (the
/// file changed since), or carries no message.
pub fn reload_message(format: FormatId, t: &Transcript, e: &Entry) -> Option<Message> {
    message_from_line(format, t, reload_line(t, e)?, e.id.as_deref())
}

/// The message of one entry's line, loaded again with every text.
fn message_from_line(format: FormatId, t: &Transcript, bytes: Vec<u8>, want: Option<&str>) -> Option<Message> {
    let src = t.source.as_ref()?;
    let one = SourceRef {
        display: src.display.clone(),
        origin: crate::source::Origin::Memory(bytes.into()),
        seen: None,
        session: None,
    };
    // Not forced: one line alone need not fit the format's detection (a pi
    // message line has no session header); the loader is named directly.
    let opts = LoadOptions { forced: None, texts: crate::model::packed::Texts::AsLoaded };
    let input = load_format(&one, format, &opts).ok()?;
    let t = input.as_transcript()?;
    // One line may give several entries (a Gemini CLI record and its
    // results): the one with the entry's id, else the first.
    let first = t.entries.first()?;
    let e = match &want {
        Some(id) => t.entries.iter().find(|x| x.id.as_deref() == Some(id)).unwrap_or(first),
        None => first,
    };
    t.message(e)
}

/// Reads many lines of one transcript again (`show`'s first lines of texts
/// not kept) through one open file and a window of its bytes
/// ([`crate::source::RangeReader`]) instead of opening the file for each
/// line; each line is verified by length and hash as [`reload_line`] does,
/// which it falls back to for compressed inputs.
pub struct Reloader<'t> {
    format: FormatId,
    t: &'t Transcript,
    range: Option<crate::source::RangeReader>,
    opened: bool,
}

impl<'t> Reloader<'t> {
    /// A reloader for transcript `t` of format `format` (opens nothing yet).
    pub fn new(format: FormatId, t: &'t Transcript) -> Self {
        Reloader { format, t, range: None, opened: false }
    }

    /// The raw bytes of `e`'s line; `None` when the file is gone or the line changed.
    pub fn line(&mut self, e: &Entry) -> Option<Vec<u8>> {
        if !self.opened {
            self.opened = true;
            self.range = self.t.source.as_ref().and_then(|s| s.range_reader());
        }
        if let Some(r) = &mut self.range {
            if let Some(b) = r.read(e.offset, e.len as usize) {
                if crate::hash::hash_bytes(b) == e.raw_hash {
                    return Some(b.to_vec());
                }
            }
        }
        reload_line(self.t, e)
    }

    /// `e`'s message with every text, as [`reload_message`] gives it.
    pub fn message(&mut self, e: &Entry) -> Option<Message> {
        let bytes = self.line(e)?;
        message_from_line(self.format, self.t, bytes, e.id.as_deref())
    }
}

/// The raw bytes of an entry's line, read again ([`Transcript::raw_line`]).
pub fn reload_line(t: &Transcript, e: &Entry) -> Option<Vec<u8>> {
    t.raw_line(e)
}

fn load_format(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    let Some(d) = descriptor(format) else {
        return Err(Error::BadInput {
            path: src.display.clone().into(),
            format: format.to_string(),
            reason: "this format is not supported yet".into(),
        });
    };
    match d.read {
        Read::File(load) => load(src, opts),
        Read::Body { database: Some(load_db), .. } if src.peek(16).is_ok_and(|h| sqlite::is_database(&h)) => {
            load_db(src)
        }
        Read::Body { .. } => load_body_file(src, format),
    }
}

/// Resolves parent ids to entry indices while a transcript is assembled in
/// line order, without holding every parent id until the end: a parent
/// already seen (the usual case) resolves at once; a parent named before it
/// appears waits in a short list until [`ParentIds::finish`].
///
/// Ids are found by their 64-bit hash and confirmed against the entry's id,
/// so distinct ids that share a hash still resolve correctly.
#[derive(Default)]
pub struct ParentIds {
    /// Hash of an id → the first entry with that id.
    first: foldhash::HashMap<u64, u32>,
    /// Ids whose hash an earlier, different id already took → first entry.
    collided: foldhash::HashMap<Box<str>, u32>,
    /// (entry, parent id) not found when the entry was added.
    pending: Vec<(u32, Box<str>)>,
    /// (entry, first entry with the same id).
    repeats: Vec<(u32, u32)>,
}

impl ParentIds {
    /// Room for about `n` ids.
    pub fn reserve(&mut self, n: usize) {
        self.first.reserve(n);
    }

    fn find(&self, entries: &[Entry], id: &str) -> Option<u32> {
        let j = *self.first.get(&crate::hash::hash_str(id))?;
        if entries[j as usize].id.as_deref() == Some(id) {
            return Some(j);
        }
        self.collided.get(id).copied()
    }

    /// Adds `e` as entry `entries.len()` (call before pushing it): records
    /// its id, and sets its parent from `parent` — `None`: no parent (a
    /// root), `Some(id)`: that entry's, once known.
    pub fn add(&mut self, entries: &[Entry], e: &mut Entry, parent: Option<&str>) {
        let i = entries.len() as u32;
        // The parent first, among the entries before this one.
        e.parent = match parent {
            None => Parent::Root,
            Some(pid) => match self.find(entries, pid) {
                Some(j) => Parent::Entry(j),
                // An entry naming itself is kept (context.rs detects cycles).
                None if e.id.as_deref() == Some(pid) => Parent::Entry(i),
                None => {
                    self.pending.push((i, pid.into()));
                    Parent::Root
                }
            },
        };
        if let Some(id) = e.id.as_deref() {
            match self.find(entries, id) {
                Some(first) => self.repeats.push((i, first)),
                None => match self.first.entry(crate::hash::hash_str(id)) {
                    std::collections::hash_map::Entry::Occupied(_) => {
                        self.collided.insert(id.into(), i);
                    }
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(i);
                    }
                },
            }
        }
    }

    /// Resolves the parents named before they appeared (to a later entry, or
    /// [`Parent::Dangling`]) and records repeated ids in [`Transcript::id_repeats`].
    pub fn finish(self, t: &mut Transcript) {
        for (i, pid) in &self.pending {
            let parent = match self.find(&t.entries, pid) {
                Some(j) => Parent::Entry(j),
                None => {
                    t.dangling_ids.push(pid.clone());
                    Parent::Dangling(t.dangling_ids.len() as u32 - 1)
                }
            };
            t.entries[*i as usize].parent = parent;
        }
        t.id_repeats =
            self.repeats.into_iter().map(|(entry, first)| IdRepeat { entry, first, same_content: None }).collect();
    }
}

/// Links the entries of a transcript without ids linearly: each entry's parent is the one before.
pub fn link_linearly(t: &mut Transcript) {
    for (i, e) in t.entries.iter_mut().enumerate() {
        e.parent = if i == 0 { Parent::Root } else { Parent::Entry(i as u32 - 1) };
    }
}

/// Decides for each repeated id whether the two entries have the same JSON
/// content (key order and whitespace aside): byte-identical lines do; others
/// are re-read from the source and compared canonically.
pub fn fill_id_repeats(src: &SourceRef, t: &mut Transcript) {
    use std::collections::BTreeSet;
    let mut wanted = BTreeSet::new();
    for r in &mut t.id_repeats {
        let (a, b) = (&t.entries[r.first as usize], &t.entries[r.entry as usize]);
        if a.raw_hash == b.raw_hash {
            r.same_content = Some(true);
        } else {
            wanted.insert(a.line);
            wanted.insert(b.line);
        }
    }
    if !wanted.is_empty() {
        compare_repeats(src, t, &wanted);
    }
    // An entry written again with the same content is a storage defect
    // (`not-append-only`), not a second node of the tree.
    for r in t.id_repeats.clone() {
        if r.same_content == Some(true) {
            let e = &mut t.entries[r.entry as usize];
            e.parent = Parent::Detached;
            e.class = Class::Bookkeeping;
            e.is_model_call = false;
        }
    }
}

fn compare_repeats(src: &SourceRef, t: &mut Transcript, wanted: &std::collections::BTreeSet<u32>) {
    use std::collections::HashMap;
    let mut hashes: HashMap<u32, u64> = HashMap::new();
    if let Ok(mut lr) = src.lines() {
        while let Ok(Some(l)) = lr.next_line() {
            if wanted.contains(&l.no) {
                if let Ok(v) = serde_json::from_slice::<Value>(l.bytes) {
                    hashes.insert(l.no, crate::hash::canonical_hash(&v, &[]));
                }
            }
        }
    }
    for r in &mut t.id_repeats {
        if r.same_content.is_none() {
            let (a, b) = (t.entries[r.first as usize].line, t.entries[r.entry as usize].line);
            r.same_content = match (hashes.get(&a), hashes.get(&b)) {
                (Some(x), Some(y)) => Some(x == y),
                _ => Some(false),
            };
        }
    }
}

/// Loads a single request-body file as a one-request stream.
pub fn load_body_file(src: &SourceRef, format: FormatId) -> Result<Input> {
    let bytes = src.read_all()?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| Error::BadInput {
        path: src.display.clone().into(),
        format: format.to_string(),
        reason: format!("not valid JSON: {e}"),
    })?;
    let path: Arc<str> = src.display.as_str().into();
    let mut req =
        parse_body(format, &v, &path, 0, "").ok_or_else(|| Error::Internal(format!("no body parser for {format}")))?;
    // The parsed tree is gone before the raw text is kept, and valid UTF-8
    // (what serde_json accepted) becomes the text without a copy.
    drop(v);
    let raw = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    req.raw = Some(raw.into());
    Ok(Input {
        path: src.display.clone(),
        format,
        body: Body::Stream(Stream { requests: vec![req] }),
        bad_lines: Vec::new(),
        more_bad_lines: 0,
        skipped: 0,
        unknown_records: 0,
        unread: Vec::new(),
    })
}

/// Joins single-request inputs (files of one body format in one directory, in
/// natural filename order) into one stream input named `dir`.
pub fn join_stream(dir: &str, format: FormatId, inputs: Vec<Input>) -> Input {
    let mut requests = Vec::new();
    let mut unread = Vec::new();
    for inp in inputs {
        unread.extend(inp.unread);
        if let Body::Stream(s) = inp.body {
            requests.extend(s.requests);
        }
    }
    for (i, r) in requests.iter_mut().enumerate() {
        r.index = i;
    }
    Input {
        path: dir.to_string(),
        format,
        body: Body::Stream(Stream { requests }),
        bad_lines: Vec::new(),
        more_bad_lines: 0,
        skipped: 0,
        unknown_records: 0,
        unread,
    }
}

/// Loads `text` (held in memory, named `name`) with `load`, for unit tests.
#[cfg(test)]
pub(crate) fn load_str_for_test(load: fn(&SourceRef, &LoadOptions) -> Result<Input>, name: &str, text: &str) -> Input {
    let src = SourceRef {
        display: name.into(),
        origin: crate::source::Origin::Memory(text.as_bytes().to_vec().into()),
        seen: None,
        session: None,
    };
    load(&src, &LoadOptions::default()).expect("loads")
}

#[cfg(test)]
mod parent_ids_tests {
    use super::ParentIds;
    use crate::model::{Entry, Parent, Transcript};

    fn entry(no: u32, id: &str) -> Entry {
        let line = crate::source::Line { no, offset: 0, bytes: b"{}", terminated: true, too_long: false, len: 2 };
        let mut e = Entry::at(&line, "message", 0);
        e.id = Some(id.into());
        e
    }

    /// Adds (id, parent) pairs in order; returns the transcript.
    fn build(rows: &[(&str, Option<&str>)], tweak: impl FnOnce(&mut ParentIds)) -> Transcript {
        let mut t = Transcript::default();
        let mut p = ParentIds::default();
        tweak(&mut p);
        for (n, (id, parent)) in rows.iter().enumerate() {
            let mut e = entry(n as u32 + 1, id);
            p.add(&t.entries, &mut e, *parent);
            t.entries.push(e);
        }
        p.finish(&mut t);
        t
    }

    #[test]
    fn earlier_later_self_missing_and_repeated_parents() {
        let t = build(
            &[("a", None), ("b", Some("a")), ("c", Some("d")), ("d", Some("d")), ("a", Some("zz")), ("e", Some("a"))],
            |_| {},
        );
        let parents: Vec<Parent> = t.entries.iter().map(|e| e.parent).collect();
        assert_eq!(
            parents,
            vec![
                Parent::Root,
                Parent::Entry(0),
                Parent::Entry(3), // named before it appears
                Parent::Entry(3), // itself
                Parent::Dangling(0),
                Parent::Entry(0), // the first entry with a repeated id
            ]
        );
        assert_eq!(&*t.dangling_ids[0], "zz");
        assert_eq!(t.id_repeats.len(), 1);
        assert_eq!((t.id_repeats[0].entry, t.id_repeats[0].first), (4, 0));
    }

    #[test]
    fn ids_sharing_a_hash_still_resolve() {
        // Pretend "b" hashes like an entry with id "x" (which it is not): "b"
        // must go to the collision table and still be found.
        let t = build(&[("x", None), ("b", Some("x")), ("c", Some("b"))], |p| {
            p.first.insert(crate::hash::hash_str("b"), 0);
        });
        let parents: Vec<Parent> = t.entries.iter().map(|e| e.parent).collect();
        assert_eq!(parents, vec![Parent::Root, Parent::Entry(0), Parent::Entry(1)]);
        assert!(t.id_repeats.is_empty());
    }
}

#[cfg(test)]
mod reload_tests {
    use super::*;

    const LINES: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"a model-side text that is longer than thirty-two bytes"}],"provider":"p","model":"m","stopReason":"stop"}}"#,
        "\r\n",
    );

    #[test]
    fn a_dropped_text_is_read_again_unless_the_line_changed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, LINES).unwrap();
        let src = SourceRef::file("s.jsonl", &p);
        let input = load(&src, crate::formats::pi_session::ID, &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        let e = &t.entries[0];
        assert!(t.message(e).unwrap().blocks[0].text_dropped);
        let full = reload_message(crate::formats::pi_session::ID, t, e).unwrap();
        assert_eq!(&*full.blocks[0].text, "a model-side text that is longer than thirty-two bytes");
        // The same length, other bytes: the file changed since it was read.
        std::fs::write(&p, LINES.replace("longer", "LONGER")).unwrap();
        assert!(reload_message(crate::formats::pi_session::ID, t, e).is_none());
        std::fs::remove_file(&p).unwrap();
        assert!(reload_message(crate::formats::pi_session::ID, t, e).is_none());
    }

    #[test]
    fn a_reloader_reads_many_lines_through_one_window_and_checks_each() {
        // 3,000 assistant lines (about 600 KiB: more than two windows).
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let mut text = String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#);
        text.push('\n');
        let mut parent = String::from("null");
        for k in 0..3000 {
            text.push_str(&format!(
                r#"{{"type":"message","id":"m{k}","parentId":{parent},"timestamp":"t","message":{{"role":"assistant","content":[{{"type":"text","text":"reply number {k:05} to a question, long enough that check does not keep it ({})"}}],"provider":"p","model":"m","stopReason":"stop"}}}}"#,
                "x".repeat(k % 300)
            ));
            text.push('\n');
            parent = format!("\"m{k}\"");
        }
        std::fs::write(&p, &text).unwrap();
        let src = SourceRef::file("s.jsonl", &p);
        let input = load(&src, crate::formats::pi_session::ID, &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        assert_eq!(t.entries.len(), 3000);
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        // In order, backwards, then jumping: every one equal to its line read alone.
        let order: Vec<usize> = (0..3000).chain((0..3000).rev()).chain((0..3000).step_by(997)).collect();
        for k in order {
            let e = &t.entries[k];
            let m = r.message(e).expect("read again");
            assert!(m.blocks[0].text.starts_with(&format!("reply number {k:05} ")), "entry {k}");
            assert_eq!(r.line(e), reload_line(t, e));
        }
        // The file rewritten (same length, other bytes): every line is refused.
        std::fs::write(&p, text.replace("reply number", "REPLY NUMBER")).unwrap();
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        assert!(r.message(&t.entries[5]).is_none());
        assert!(r.message(&t.entries[2999]).is_none());
        // Shortened: the last lines cannot be read at all.
        std::fs::write(&p, &text[..text.len() / 2]).unwrap();
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        assert!(r.message(&t.entries[0]).is_some());
        assert!(r.message(&t.entries[2999]).is_none());
    }

    #[test]
    fn a_reloader_reads_compressed_transcripts_from_the_start() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(LINES.as_bytes()).unwrap();
        std::fs::write(&p, gz.finish().unwrap()).unwrap();
        let src = SourceRef::file("s.jsonl.gz", &p);
        let input = load(&src, crate::formats::pi_session::ID, &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        let m = r.message(&t.entries[0]).expect("read again");
        assert_eq!(&*m.blocks[0].text, "a model-side text that is longer than thirty-two bytes");
    }
}

#[cfg(test)]
mod detect_tests {
    use super::*;

    fn detect_str(text: &str) -> Detection {
        let src = SourceRef {
            display: "x.jsonl".into(),
            origin: crate::source::Origin::Memory(text.as_bytes().to_vec().into()),
            seen: None,
            session: None,
        };
        detect_input(&src).expect("reads")
    }

    const SNAPSHOT: &str = r#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2026-04-18T13:18:42.474Z"},"isSnapshotUpdate":false}"#;
    const USER: &str = r#"{"parentUuid":null,"isSidechain":false,"cwd":"/p","sessionId":"s1","version":"2.1.42","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-04-18T13:18:45.000Z"}"#;
    const TRAJECTORY: &str = r#"{"traceSchema":"openclaw-trajectory","schemaVersion":1,"traceId":"s1","source":"runtime","type":"session.started","ts":"2026-04-22T08:00:00.000Z","seq":1,"sourceSeq":1,"sessionId":"s1"}"#;

    fn lines(head: &[&str], n: usize, tail: &[&str]) -> String {
        let mut v: Vec<&str> = head.to_vec();
        v.extend(std::iter::repeat_n(SNAPSHOT, n));
        v.extend(tail);
        v.join("\n") + "\n"
    }

    #[test]
    fn leading_bookkeeping_records_never_hide_claude_code() {
        for n in [2, 8, 63, 200] {
            assert_eq!(
                detect_str(&lines(&[], n, &[USER])),
                Detection::Format(crate::formats::claude_code::ID),
                "{n} snapshots"
            );
        }
        // Bookkeeping only: still Claude Code (its record types), as are torn lines between.
        assert_eq!(detect_str(&lines(&[], 3, &[])), Detection::Format(crate::formats::claude_code::ID));
        assert_eq!(
            detect_str(&lines(&["{\"type\":\"user\",\"mess"], 3, &[USER])),
            Detection::Format(crate::formats::claude_code::ID)
        );
        // A later record of another format decides over bookkeeping-only evidence.
        let pi = r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#;
        assert_eq!(detect_str(&lines(&[], 2, &[pi])), Detection::Format(crate::formats::pi_session::ID));
    }

    #[test]
    fn the_window_is_64_records_and_256_kib() {
        // 300 records of 40 KiB that say nothing (12 MB): past both bounds, undecided.
        let filler = format!("{{\"note\":\"{}\"}}", "x".repeat(40 * 1024));
        let mut v = vec![filler.as_str(); 300];
        v.push(USER);
        assert_eq!(detect_str(&(v.join("\n") + "\n")), Detection::Unknown);
        // Within 64 records, however large they are.
        let mut v = vec![filler.as_str(); 60];
        v.push(USER);
        assert_eq!(detect_str(&(v.join("\n") + "\n")), Detection::Format(crate::formats::claude_code::ID));
        // Within 256 KiB, however many records.
        let small = "{\"note\":\"x\"}";
        let mut v = vec![small; 5000];
        v.push(USER);
        assert_eq!(detect_str(&(v.join("\n") + "\n")), Detection::Format(crate::formats::claude_code::ID));
    }

    #[test]
    fn a_pretty_printed_body_with_object_lines_is_one_document() {
        let body = "{\n  \"instructions\": \"be brief\",\n  \"input\": [\n    {\"type\": \"message\", \"role\": \"user\", \"content\": \"a\"},\n    {\"type\": \"message\", \"role\": \"user\", \"content\": \"b\"}\n  ]\n}\n";
        assert_eq!(detect_str(body), Detection::Format(crate::formats::openai_responses::ID));
        // A torn first line of a JSONL file: the records after it decide.
        assert_eq!(
            detect_str(&format!("{{\"type\":\"us\n{USER}\n")),
            Detection::Format(crate::formats::claude_code::ID)
        );
    }

    #[test]
    fn an_openclaw_trajectory_is_read_as_one_not_as_claude_code() {
        assert_eq!(detect_str(&format!("{TRAJECTORY}\n")), Detection::Format(crate::formats::openclaw_trajectory::ID));
        assert_eq!(
            sniff_jsonl_record(&serde_json::from_str(TRAJECTORY).unwrap()),
            Some(crate::formats::openclaw_trajectory::ID)
        );
        // Behind leading Claude Code bookkeeping-like records it still decides.
        assert_eq!(
            detect_str(&lines(&[], 3, &[TRAJECTORY])),
            Detection::Format(crate::formats::openclaw_trajectory::ID)
        );
        // Whole-document form (a pretty-printed event, or an export bundle's manifest): not a trajectory.
        let doc = serde_json::to_string_pretty(&serde_json::from_str::<Value>(TRAJECTORY).unwrap()).unwrap();
        assert_eq!(detect_str(&doc), Detection::Unsupported(OPENCLAW_TRAJECTORY_DOCUMENT));
        // The pointer file OpenClaw writes beside a session is another schema.
        let pointer = r#"{"traceSchema":"openclaw-trajectory-pointer","schemaVersion":1,"sessionId":"s1","runtimeFile":"/x.jsonl"}"#;
        assert_eq!(sniff_jsonl_record(&serde_json::from_str(pointer).unwrap()), None);
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn every_registered_format_has_a_whole_descriptor() {
        // Issue 34: the registry is the only list of formats; a descriptor
        // that is incomplete or contradicts itself fails here.
        let mut seen = std::collections::HashSet::new();
        for d in REGISTRY {
            let id = d.id.as_str();
            assert!(seen.insert(id), "{id} listed twice");
            assert_eq!(parse_format_id(id), Some(d.id));
            assert_eq!(descriptor(d.id).map(|x| x.id), Some(d.id));
            let a = &d.about;
            assert!(!a.what.is_empty() && !a.kind.is_empty() && !a.location.is_empty(), "{id}: about");
            match (d.shape, d.read) {
                (Shape::Transcript | Shape::Stream, Read::File(_))
                | (Shape::Body | Shape::Snapshot { .. }, Read::Body { .. }) => {}
                _ => panic!("{id}: its shape and how it is read disagree"),
            }
            let t = &d.detect;
            assert!(
                t.record.is_some()
                    || t.document.is_some()
                    || t.body.is_some()
                    || t.text.is_some()
                    || t.database.is_some(),
                "{id}: detection never recognises it"
            );
            if let Some(r) = d.record {
                assert!(
                    d.is_transcript() && d.encoding == Encoding::Jsonl,
                    "{id}: a record schema is for JSONL transcripts"
                );
                assert_eq!(r.format, d.id, "{id}: its record schema is another format's");
            }
            match d.locate {
                Locate::Lines { .. } => assert_eq!(d.encoding, Encoding::Jsonl, "{id}"),
                Locate::Rows(_) => assert_eq!(d.encoding, Encoding::Database, "{id}"),
                Locate::Document { .. } => assert_eq!(d.encoding, Encoding::Json, "{id}"),
                Locate::Own(_) => assert!(matches!(d.encoding, Encoding::Text | Encoding::Yaml), "{id}"),
            }
            if d.repro.threading.is_some() {
                assert!(d.is_transcript(), "{id}: threading keys are for transcripts");
            }
            assert!(!d.repro.name.is_empty() && d.case_file_name(0, 1) == d.repro.name, "{id}: repro name");
            assert_eq!(d.is_body(), t.body.is_some(), "{id}: a body format is recognised as a body, and only it");
        }
        // Ranks order detection at each step: two formats never share one.
        let s = steps();
        let unique = |v: Vec<u8>, step: &str| {
            let n = v.len();
            assert_eq!(
                v.into_iter().collect::<std::collections::BTreeSet<u8>>().len(),
                n,
                "two formats share a {step} rank"
            );
        };
        unique(s.record.iter().map(|(_, x)| x.rank).collect(), "record");
        unique(s.weak_record.iter().map(|(_, x)| x.rank).collect(), "weak record");
        unique(s.document.iter().map(|(_, x)| x.rank).collect(), "document");
        unique(s.body.iter().map(|(_, x)| x.rank).collect(), "body");
        unique(s.text.iter().map(|(_, x)| x.rank).collect(), "text");
        unique(s.database.iter().map(|(_, x)| x.rank).collect(), "database");
        unique(agent_folders().iter().map(|f| f.rank).collect(), "agent folder");
        assert!(agent_folders().iter().all(|f| !f.pattern.is_empty() && !f.pattern.starts_with('/')));
        assert!(descriptor(FormatId::UNKNOWN).is_none());
        assert!(!is_transcript(FormatId::UNKNOWN) && !is_body_format(FormatId::UNKNOWN));
    }

    #[test]
    fn detection_tries_the_formats_in_the_order_it_always_had() {
        // The formats below keep their order at each step; a format added
        // later may take any rank between them (it is left out here).
        const KNOWN: [&str; 22] = [
            "pi-session",
            "claude-code",
            "codex-rollout",
            "pydantic-ai-history",
            "openai-chat",
            "openai-responses",
            "anthropic-messages",
            "gemini",
            "bedrock-converse",
            "exchange-log",
            "vcr-cassette",
            "har",
            "openclaw-trajectory",
            "aider-llm-history",
            "otel-genai",
            "gemini-cli",
            "copilot-cli",
            "cline-history",
            "ai-sdk-ui-messages",
            "openai-agents-session",
            "langgraph-state",
            "opencode",
        ];
        let ids =
            |v: Vec<FormatId>| v.into_iter().map(FormatId::as_str).filter(|f| KNOWN.contains(f)).collect::<Vec<_>>();
        let s = steps();
        assert_eq!(
            ids(s.record.iter().map(|x| x.0).collect()),
            [
                "openclaw-trajectory",
                "pi-session",
                "gemini-cli",
                "codex-rollout",
                "claude-code",
                "copilot-cli",
                "exchange-log",
                "otel-genai"
            ]
        );
        assert_eq!(ids(s.weak_record.iter().map(|x| x.0).collect()), ["claude-code", "pi-session"]);
        assert_eq!(
            ids(s.document.iter().map(|x| x.0).collect()),
            ["har", "otel-genai", "gemini-cli", "cline-history", "opencode"]
        );
        assert_eq!(
            ids(s.body.iter().map(|x| x.0).collect()),
            [
                "ai-sdk-ui-messages",
                "openai-agents-session",
                "pydantic-ai-history",
                "langgraph-state",
                "gemini",
                "openai-responses",
                "bedrock-converse",
                "anthropic-messages",
                "openai-chat"
            ]
        );
        assert_eq!(ids(s.text.iter().map(|x| x.0).collect()), ["aider-llm-history", "vcr-cassette"]);
        assert_eq!(ids(s.database.iter().map(|x| x.0).collect()), ["openai-agents-session", "opencode"]);
    }
}
