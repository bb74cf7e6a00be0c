//! Detection by content (docs/spec.md §1): the steps detection takes on an
//! input's head (JSONL records, one JSON document, a request body, a text
//! head, SQLite tables), each trying the registered formats' tests in rank
//! order ([`super::Detect`]), and the fit check of a forced `--input-format`.

use super::*;
use crate::error::{Error, Result};
use crate::model::*;
use crate::source::{MAX_DOCUMENT, SourceRef};
use serde_json::Value;

/// The registered formats with a detection test at one step, in rank order.
fn ranked<T: Copy>(step: impl Fn(&Detect) -> Option<T>, rank: impl Fn(&T) -> u8) -> Vec<(FormatId, T)> {
    let mut v: Vec<(FormatId, T)> = REGISTRY.iter().filter_map(|d| step(&d.detect).map(|t| (d.id, t))).collect();
    v.sort_by_key(|(_, t)| rank(t));
    v
}

/// The detection tests of each step, in rank order, built once from [`REGISTRY`].
pub(super) struct Steps {
    pub(super) record: Vec<(FormatId, Sniffer)>,
    pub(super) owns_record: Vec<(FormatId, format::ValueTest)>,
    pub(super) weak_record: Vec<(FormatId, Sniffer)>,
    pub(super) document: Vec<(FormatId, Sniffer)>,
    pub(super) unsupported_document: Vec<(format::ValueTest, &'static str)>,
    pub(super) body: Vec<(FormatId, Sniffer)>,
    pub(super) concatenated: Vec<(FormatId, format::HeadTest)>,
    pub(super) text: Vec<(FormatId, format::TextSniffer)>,
    pub(super) database: Vec<(FormatId, format::TableSniffer)>,
}

pub(super) fn steps() -> &'static Steps {
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

/// [`detect_input`] of a file whose [`SourceRef::seen`] the caller has just
/// taken (discovery): a small one is read without asking its type again
/// ([`SourceRef::small_snapshot_just_stamped`]); the same detection.
pub fn detect_just_stamped(src: &SourceRef) -> Result<Detection> {
    match super::load::small_text_snapshot_just_stamped(src, PEEK as u64) {
        Some(whole) => detect_input(&whole),
        None => detect_input(src),
    }
}

/// Whether `t` (from its first non-white byte to the end of the file) is
/// `[]` or `{}`, white space inside and after allowed.
fn is_empty_document(t: &[u8]) -> bool {
    let mut rest = t[1..].iter().filter(|c| !c.is_ascii_whitespace());
    matches!((t[0], rest.next(), rest.next()), (b'[', Some(b']'), None) | (b'{', Some(b'}'), None))
}

/// Why an empty file (no bytes, or white space and a byte-order mark only)
/// is skipped ([`Detection::Unsupported`]): a proxy or an agent that recorded
/// nothing yet leaves one.
pub const EMPTY: &str = "empty (no bytes, or white space only): nothing to check";

/// Why a file holding only an empty JSON array or object is skipped
/// ([`Detection::Unsupported`]): a task that recorded no message yet (Cline
/// writes `[]` to `api_conversation_history.json` when a task starts).
pub const EMPTY_DOCUMENT: &str = "an empty JSON array or object (`[]` or `{}`): nothing to check";

/// Why a Git LFS pointer file is skipped ([`Detection::Unsupported`]): a
/// repository that keeps its sessions in Git LFS checks out, without
/// `git lfs pull`, a three-line text (`version https://git-lfs.github.com/spec/v1`,
/// `oid sha256:…`, `size …`; the Git LFS specification, `docs/spec.md` of
/// git-lfs/git-lfs) in place of each file.
pub const LFS_POINTER: &str =
    "a Git LFS pointer, not the file itself (its content is in Git LFS: `git lfs pull` fetches it)";

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
    // A small file stamped when found is read whole in one go and detected
    // from memory (checking 20,000 small sessions opened each one four
    // times); a database is opened as one, with its journal.
    if let Some(whole) = super::load::small_text_snapshot(src, PEEK as u64) {
        return detect_input(&whole);
    }
    let head = src.peek(PEEK)?;
    if sqlite::is_database(&head) {
        return Ok(detect_database(src));
    }
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let Some(start) = body.iter().position(|c| !c.is_ascii_whitespace()) else {
        // (Only a head of white space could still be followed by text.)
        if head.len() < PEEK {
            return Ok(Detection::Unsupported(EMPTY));
        }
        return Ok(Detection::Unknown);
    };
    let t = &body[start..];
    if head.len() < PEEK && is_empty_document(t) {
        return Ok(Detection::Unsupported(EMPTY_DOCUMENT));
    }
    if t.starts_with(b"version https://git-lfs.github.com/spec/") {
        return Ok(Detection::Unsupported(LFS_POINTER));
    }
    if t[0] == b'{' || t[0] == b'[' {
        if let Some(d) = one_long_line(src, &head) {
            return Ok(d);
        }
        let blank = |l: &[u8]| l.iter().all(u8::is_ascii_whitespace);
        let (mut records, mut objects, mut weak) = (0u32, 0u32, None);
        // A pi session header, decided by the record after it (a session
        // entry, or an event of print mode's output).
        let mut after_header: Option<FormatId> = None;
        // Whether the first line holds a whole JSON value: else the input is
        // read as one (pretty-printed) document first, whose inner lines
        // must not be taken for records.
        let mut first_parsed = None;
        // The whole-document detection of a large first value, made while
        // its line and its value are at hand: when it is the only record
        // and the rest is JSON whitespace, it is the document's, which is
        // then neither read nor parsed again.
        let mut first_document: Option<Option<Detection>> = None;
        let mut json_space_only = true;
        let mut lr = src.lines()?;
        while let Some(l) = lr.next_line().map_err(|e| Error::io(&src.display, e))? {
            let end = l.offset + l.len;
            let bytes = if l.no == 1 { l.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l.bytes) } else { l.bytes };
            if l.too_long || !blank(bytes) {
                records += 1;
            } else if !bytes.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r')) {
                // (A form feed is blank here but not JSON whitespace.)
                json_space_only = false;
            }
            if !l.too_long && !blank(bytes) {
                let parsed = parse_for_detection(bytes);
                if first_parsed.is_none() {
                    first_parsed = Some(parsed.is_ok());
                    if let Ok(v) = &parsed {
                        if bytes.len() >= REUSED_DOCUMENT_MIN {
                            first_document = Some(document_detection(bytes, Some(v)));
                        }
                    }
                    // A long first line that does not parse is a torn record
                    // (issue 7: a pasted image), unless the input is one JSON
                    // value going on over later lines: read as it streams, the
                    // parse stops at a torn line's end (a body whose first
                    // line was 1 MiB was skipped, one of 1 MiB + 4 KiB read).
                    if parsed.is_err() && l.len > DOC_FIRST_LINE_MAX {
                        if let Some(d) = streamed_document(src) {
                            return Ok(d);
                        }
                    }
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
                    if let Some(f) = after_header.take() {
                        // What `pi --mode json` prints starts with the session header too.
                        return Ok(if pi_session::is_print_mode_event(&v) {
                            Detection::Unsupported(pi_session::PRINT_MODE_OUTPUT)
                        } else {
                            Detection::Format(f)
                        });
                    }
                    objects += u32::from(v.is_object());
                    match sniff_record(&v) {
                        Sniff::Decided(f) if f == pi_session::ID && pi_session::sniff(&v) => after_header = Some(f),
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
        if let Some(f) = after_header.or(weak) {
            return Ok(Detection::Format(f));
        }
        // JSONL of records that match no format (two or more objects, the
        // first on line 1), or a document already tried: nothing more to try.
        if first_parsed == Some(false) || objects >= 2 {
            return Ok(Detection::Unknown);
        }
        let read = lr.offset();
        // The line just read may be the whole document: let it go first.
        drop(lr);
        if let Some(d) = first_document.filter(|_| records == 1 && json_space_only && read <= MAX_DOCUMENT) {
            return Ok(d.unwrap_or(Detection::Unknown));
        }
        return Ok(whole_document(src)?.unwrap_or(Detection::Unknown));
    }
    // Text: an Aider LLM history's `TO LLM <timestamp>` header, a cassette's
    // `interactions:`.
    Ok(steps().text.iter().find_map(|(_, s)| (s.test)(t)).unwrap_or(Detection::Unknown))
}

/// The detection of an input whose first line is longer than the head read
/// ([`PEEK`] bytes without a line feed) and which is one JSON value (at least
/// [`REUSED_DOCUMENT_MIN`] bytes) followed by JSON white space only: a whole
/// request body or history on one line ([`streamed_document`]), so that
/// neither the line nor the whole value is held (a 26 MB body took a 28 MB
/// line buffer and its value at once). An HTTP Archive (its first key `log`)
/// is recognised from its bytes as a pretty-printed one is, no value built
/// (a one-line archive was parsed twice: 90 MB, 0.72 s, against 0.22 s).
/// `None` for any other input (the loop of [`detect_input`] then reads it).
fn one_long_line(src: &SourceRef, head: &[u8]) -> Option<Detection> {
    let size = src.size()?;
    if head.len() < PEEK
        || memchr::memchr(b'\n', head).is_some()
        || size < (REUSED_DOCUMENT_MIN + 4096) as u64
        || size > crate::source::MAX_LINE as u64
    {
        return None;
    }
    if first_key_is(head, b"log") {
        // (Only an archive is answered here: another document, or a record,
        // is read as below.)
        if let Ok(Some(d @ Detection::Format(_))) = whole_document(src) {
            return Some(d);
        }
    }
    streamed_document(src)
}

/// Whether a JSON document's first key (after a byte-order mark and white
/// space) is `key`, as written (no escapes).
fn first_key_is(head: &[u8], key: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut rest = head.iter().skip_while(|c| c.is_ascii_whitespace());
    if rest.next() != Some(&b'{') {
        return false;
    }
    let rest: Vec<u8> = rest.skip_while(|c| c.is_ascii_whitespace()).take(key.len() + 2).copied().collect();
    rest.len() == key.len() + 2 && rest[0] == b'"' && &rest[1..=key.len()] == key && rest[key.len() + 1] == b'"'
}

/// `src` as one JSON value followed by JSON white space, parsed as it is
/// read with long strings cut and long arrays' scalars dropped ([`Cut`]):
/// what a forced format's document test looks at, without the file or its
/// whole value held (a 20 MB body of numbers took 1.2 GB). The inner error
/// is serde_json's, as `from_slice` gives it; the outer one an I/O error.
fn streamed_value(src: &SourceRef) -> Result<serde_json::Result<Value>> {
    let r = std::io::BufReader::with_capacity(64 * 1024, src.open()?);
    let mut de = serde_json::Deserializer::from_reader(r);
    Ok(serde::de::DeserializeSeed::deserialize(Cut, &mut de).and_then(|v| de.end().map(|()| v)))
}

/// The detection of `src` as one JSON value followed by JSON white space
/// only, parsed as it is read with long strings cut ([`Cut`]): the answer the
/// record loop of [`detect_input`] gives a one-line document (its record
/// tests first, then the document's). `None` when the input is not one JSON
/// value: a torn JSONL record fails at its line's end, so the parse stops
/// there.
fn streamed_document(src: &SourceRef) -> Option<Detection> {
    let v = streamed_value(src).ok()?.ok()?;
    Some(match sniff_record(&v) {
        Sniff::Decided(f) | Sniff::Weak(f) => Detection::Format(f),
        Sniff::Undecided => document_detection(b"", Some(&v)).unwrap_or(Detection::Unknown),
    })
}

/// The detection of `src` read as one JSON document (a request body, a
/// pydantic-ai history), or `None` when it is not one.
///
/// A large document whose first key is `log` is first read as an HTTP
/// Archive streams ([`streamed_archive`]), so that detection does not hold
/// the file (a 117 MB archive was read whole here, then again entry by entry
/// to load it: the detection was the run's peak memory).
fn whole_document(src: &SourceRef) -> Result<Option<Detection>> {
    if src.size().is_some_and(|n| (har::STREAM_FROM..=MAX_DOCUMENT).contains(&n)) && streamed_archive(src) {
        return Ok(Some(Detection::Format(har::ID)));
    }
    Ok(document_detection(&src.read_all()?, None))
}

/// Whether `src`, read as it streams, is an HTTP Archive as
/// [`document_detection`] decides from the whole document: its first key
/// `log`, each element of `log.entries` valid JSON, and the document with
/// that array emptied (the outline [`crate::source::stream_array`] gives)
/// an archive by the same test. (The test reads the outline the same way
/// it reads the whole: `log.entries` is still an array, the other members
/// are all there, and JSON whose every element parses in an outline that
/// parses is JSON.) Holds one entry at a time. `false` when it does not read
/// so — not an archive, or one that is not valid JSON —: the caller then
/// reads the document whole, which decides.
fn streamed_archive(src: &SourceRef) -> bool {
    let Ok(head) = src.peek(4096) else { return false };
    if !first_key_is(&head, b"log") {
        return false;
    }
    let Ok(mut r) = src.open() else { return false };
    let valid = |_: usize, bytes: &[u8], _: u64, _: u64| serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok();
    crate::source::stream_array(&mut r, &["log", "entries"], 256 * 1024, valid)
        .is_some_and(|outline| matches!(document_detection(&outline, None), Some(Detection::Format(f)) if f == har::ID))
}

/// A first line at least this long (bytes) that parses is detected as a
/// whole document while it is read ([`detect_input`]).
const REUSED_DOCUMENT_MIN: usize = 1 << 20;

/// Elements of an array past which its scalars are not kept in a value
/// parsed for detection ([`Cut`]).
const DETECTION_SCALARS_MAX: usize = 4096;

/// Strings longer than this (bytes) are cut to it in a value parsed for
/// detection from a large text ([`parse_for_detection`]).
const DETECTION_STRING_MAX: usize = 256;

/// `bytes` parsed as one JSON value for the format tests to look at. A text of
/// at least [`REUSED_DOCUMENT_MIN`] bytes (a whole document on one line, a
/// record holding a pasted file) is parsed with every string longer than
/// [`DETECTION_STRING_MAX`] bytes cut to its first bytes (at a character
/// boundary): the tests look at keys, types, roles and the starts of texts,
/// and the texts were most of the value (a 25 MB request of large tool
/// results: 76 → 66 MB peak). Valid or not exactly as
/// `serde_json::from_slice::<Value>` says, with the same error.
fn parse_for_detection(bytes: &[u8]) -> serde_json::Result<Value> {
    if bytes.len() < REUSED_DOCUMENT_MIN {
        return serde_json::from_slice(bytes);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let v = serde::de::DeserializeSeed::deserialize(Cut, &mut de)?;
    de.end()?;
    Ok(v)
}

/// A [`Value`] with long strings cut ([`parse_for_detection`]).
#[derive(Clone, Copy)]
struct Cut;

impl<'de> serde::de::DeserializeSeed<'de> for Cut {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Cut {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> std::result::Result<Value, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, t: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(crate::text::prefix(t, DETECTION_STRING_MAX).to_string()))
    }
    fn visit_string<E: serde::de::Error>(self, t: String) -> std::result::Result<Value, E> {
        self.visit_str(&t)
    }
    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = a.next_element_seed(self)? {
            // Past the first DETECTION_SCALARS_MAX elements, an array's
            // numbers, booleans and nulls are read and not kept (token ids,
            // an embedding): no format test looks so far into one, and as
            // values they took 32 bytes a number (20 MB of zeros: 1.3 GB).
            if out.len() < DETECTION_SCALARS_MAX || !(v.is_number() || v.is_boolean() || v.is_null()) {
                out.push(v);
            }
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> std::result::Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(k) = a.next_key::<String>()? {
            let v = a.next_value_seed(self)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// [`whole_document`] of a document's bytes, given its value when it was
/// already parsed from the same JSON text (`parsed`; else it is parsed here).
fn document_detection(bytes: &[u8], parsed: Option<&Value>) -> Option<Detection> {
    // An HTTP Archive (the one document format that runs to hundreds of
    // megabytes) is recognised from its bytes: valid JSON, checked without
    // building it, with `log.entries` and `log.version` or `log.creator`
    // where [`har::sniff`] looks for them (and no trajectory's
    // `traceSchema`, the one test before it).
    // (A value parsed from these bytes makes them valid JSON, and one with
    // no top-level `log` key is no archive: its bytes are not scanned.)
    if parsed.is_none_or(|v| v.get("log").is_some())
        && har::sniff_bytes(bytes)
        && crate::locate::locate(bytes, "/traceSchema").is_none()
        && (parsed.is_some() || serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok())
    {
        return Some(Detection::Format(har::ID));
    }
    let owned;
    let v = match parsed {
        Some(v) => v,
        None => {
            owned = parse_for_detection(bytes).ok()?;
            &owned
        }
    };
    if let Some((_, why)) = steps().unsupported_document.iter().find(|(test, _)| test(v)) {
        return Some(Detection::Unsupported(why));
    }
    if let Some((f, _)) = steps().document.iter().find(|(_, s)| (s.test)(v)) {
        return Some(Detection::Format(*f));
    }
    Some(sniff_body(v).map_or(Detection::Unknown, Detection::Format))
}

/// Whether a record carries `traceSchema: "openclaw-trajectory"` (an event of [`openclaw_trajectory`]).
pub(super) fn is_openclaw_trajectory(v: &Value) -> bool {
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
                if streamed_value(src)?.is_ok_and(|v| document(&v)) {
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
            let v: Value =
                streamed_value(src)?.map_err(|e| unfit(&format!("not one JSON document ({e}), so {noun}")))?;
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

    /// What `pi --mode json` prints (the session header, then agent events)
    /// is no session file; a header followed by entries, or alone, is one.
    #[test]
    fn pi_print_mode_output_is_told_from_a_session_by_the_record_after_the_header() {
        let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-05-09T05:36:32.457Z","cwd":"/w"}"#;
        let entry = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-09T05:36:33.000Z","message":{"role":"user","content":"hi"}}"#;
        let detect = |t: String| {
            let src = SourceRef {
                display: "s.jsonl".into(),
                origin: crate::source::Origin::Memory(t.into_bytes().into()),
                seen: None,
                session: None,
            };
            detect_input(&src).unwrap()
        };
        let print_mode = Detection::Unsupported(pi_session::PRINT_MODE_OUTPUT);
        assert_eq!(
            detect(format!("{header}\n{{\"type\":\"agent_start\"}}\n{{\"type\":\"turn_start\"}}\n")),
            print_mode
        );
        assert_eq!(
            detect(format!("{header}\n\n{{\"type\":\"message_end\",\"message\":{{\"role\":\"user\"}}}}\n")),
            print_mode
        );
        assert_eq!(detect(format!("{header}\n{entry}\n")), Detection::Format(pi_session::ID));
        assert_eq!(detect(format!("{header}\n")), Detection::Format(pi_session::ID));
        // A torn line after the header says nothing; the next record decides.
        assert_eq!(detect(format!("{header}\n{{\"type\":\"mess\n{entry}\n")), Detection::Format(pi_session::ID));
    }

    /// An archive is recognised as it streams ([`streamed_archive`]) exactly
    /// when the whole document is one ([`document_detection`]): every
    /// fixture archive, also on one line and after a byte-order mark, and
    /// documents that are not archives or not valid JSON (left to the whole
    /// reading).
    #[test]
    fn an_archive_is_recognised_as_it_streams_as_when_read_whole() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/formats/har");
        let mut docs: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "har"))
            .map(|p| std::fs::read_to_string(&p).unwrap())
            .collect();
        assert!(docs.len() >= 8);
        let one_line: Vec<String> =
            docs.iter().map(|d| serde_json::from_str::<Value>(d).unwrap().to_string()).collect();
        let bom: Vec<String> = docs.iter().map(|d| format!("\u{FEFF}{d}")).collect();
        docs.extend(one_line);
        docs.extend(bom);
        let not_archives = [
            r#"{"log": {"version": "1.2", "entries": [{}]}} x"#,
            r#"{"log": {"version": "1.2", "entries": [{"a": tru}]}}"#,
            r#"{"log": {"version": "1.2", "entries": [{}]}, "traceSchema": "openclaw-trajectory"}"#,
            r#"{"log": {"entries": [{}]}}"#,
            r#"{"log": {"version": 2, "entries": [{}]}}"#,
            r#"{"log": {"version": "1.2", "entries": {}}}"#,
            r#"{"log": [], "entries": []}"#,
            r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}"#,
            r#"{"log": {"version": "1.2", "entries": [{}]}, "log": {"entries": []}}"#,
        ];
        let mut archives = 0;
        for d in docs.iter().map(String::as_str).chain(not_archives) {
            let src = SourceRef {
                display: "a.har".into(),
                origin: crate::source::Origin::Memory(d.as_bytes().to_vec().into()),
                seen: None,
                session: None,
            };
            // (The loop of `detect_input` reads a document's first line
            // without its byte-order mark, and so an archive with one.)
            let body = d.strip_prefix('\u{FEFF}').unwrap_or(d);
            let whole = document_detection(body.as_bytes(), None) == Some(Detection::Format(har::ID));
            assert_eq!(streamed_archive(&src), whole, "{}", &d[..d.len().min(120)]);
            archives += usize::from(whole);
        }
        assert_eq!(archives, docs.len());
    }

    /// A whole document on one long line is detected as it is read
    /// ([`one_long_line`]), with the answer the record loop gives; what is
    /// not one such document is left to the loop.
    #[test]
    fn one_long_line_is_detected_as_it_is_read_as_the_loop_would() {
        let big = "x ".repeat(700_000);
        let chat = serde_json::json!({"model": "gpt-4o", "messages": [{"role": "user", "content": big}]}).to_string();
        let history = serde_json::json!([{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": big}]}])
            .to_string();
        let cc = serde_json::json!({"type": "user", "sessionId": "a", "uuid": "u1", "parentUuid": null,
            "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": big}})
        .to_string();
        let src = |t: &str| SourceRef {
            display: "x.json".into(),
            origin: crate::source::Origin::Memory(t.as_bytes().to_vec().into()),
            seen: None,
            session: None,
        };
        let head = |t: &str| t.as_bytes()[..PEEK.min(t.len())].to_vec();
        for (text, format) in [
            (chat.clone(), "openai-chat"),
            (format!("{chat}\r\n \n"), "openai-chat"),
            (history.clone(), "pydantic-ai-history"),
            (format!("{cc}\n"), "claude-code"),
        ] {
            assert_eq!(one_long_line(&src(&text), &head(&text)), Some(Detection::Format(FormatId::new(format))));
            assert_eq!(detect_str(&text), Detection::Format(FormatId::new(format)));
        }
        for text in
            [format!("{chat}\n{chat}\n"), format!("{chat}\u{c}"), chat[..chat.len() - 1].to_string(), "[1]".into()]
        {
            assert_eq!(one_long_line(&src(&text), &head(&text)), None);
        }
    }

    /// A document whose first line is longer than [`DOC_FIRST_LINE_MAX`] and
    /// which goes on over later lines is one document at any size (a body of
    /// 1 MiB + 700 bytes was skipped, one of 1 MiB + 4 KiB read); a torn
    /// first record of a JSONL file is still passed over for the records
    /// after it; a one-line archive is an archive.
    #[test]
    fn a_long_first_line_is_a_document_if_the_input_is_one() {
        let pad = "p".repeat(DOC_FIRST_LINE_MAX as usize + 10);
        let msgs = r#"[{"role": "system", "content": "S"}, {"role": "user", "content": "q"}]"#;
        for extra in [0, 5000] {
            let text = format!(
                "{{\"x_pad\":\"{pad}{}\",\n\"model\": \"gpt-4o\",\n\"messages\": {msgs}}}\n",
                "p".repeat(extra)
            );
            assert_eq!(detect_str(&text), Detection::Format(FormatId::new("openai-chat")), "{extra}");
        }
        let record = r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}"#;
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}"#;
        let torn = format!("{{\"type\":\"message\",\"message\":{{\"content\":\"{pad}\n{header}\n{record}\n");
        assert_eq!(detect_str(&torn), detect_str(&format!("{header}\n{record}\n")));
        let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "x"}, "entries": [{"pad": pad}]}})
            .to_string();
        assert_eq!(detect_str(&har), Detection::Format(FormatId::new("har")));
    }

    /// A long array's numbers, booleans and nulls past the first
    /// [`DETECTION_SCALARS_MAX`] are not kept (its objects are), so a body
    /// carrying token ids is detected in bounded memory; a forced format's
    /// test reads the same value.
    #[test]
    fn a_long_array_of_scalars_is_cut_for_detection() {
        let n = 600_000;
        let mut mixed: Vec<Value> = vec![Value::from(0); n];
        mixed.push(serde_json::json!({"role": "user"}));
        let doc = serde_json::json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "x": mixed});
        let text = doc.to_string();
        assert!(text.len() >= REUSED_DOCUMENT_MIN);
        let v = parse_for_detection(text.as_bytes()).unwrap();
        let x = v["x"].as_array().unwrap();
        assert_eq!(x.len(), DETECTION_SCALARS_MAX + 1);
        assert_eq!(x.last(), Some(&serde_json::json!({"role": "user"})));
        assert_eq!(detect_str(&text), Detection::Format(FormatId::new("openai-chat")));
        let src = SourceRef {
            display: "x.json".into(),
            origin: crate::source::Origin::Memory(text.into_bytes().into()),
            seen: None,
            session: None,
        };
        assert!(check_fit(&src, FormatId::new("openai-chat")).is_ok());
    }

    /// A large text is parsed for detection with long strings cut, small
    /// ones whole; valid or not as serde_json says, with its error.
    #[test]
    fn large_texts_are_parsed_for_detection_with_long_strings_cut() {
        let long = "é".repeat(REUSED_DOCUMENT_MIN);
        let doc = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": long}, {"n": 1.5, "b": true, "z": null, "i": -3}]});
        let text = doc.to_string();
        let v = parse_for_detection(text.as_bytes()).expect("parses");
        let cut = v["messages"][0]["content"].as_str().unwrap();
        assert_eq!(cut.len(), DETECTION_STRING_MAX);
        assert!(long.starts_with(cut));
        let mut whole = doc.clone();
        whole["messages"][0]["content"] = Value::String(cut.to_string());
        assert_eq!(v, whole);
        // Keys in document order, a repeated key's last value in its first place, as serde_json.
        let repeated = format!(r#"{{"b":1,"a":"{}","b":2}}"#, "x".repeat(REUSED_DOCUMENT_MIN));
        let v = parse_for_detection(repeated.as_bytes()).unwrap();
        assert_eq!(
            v.as_object().unwrap().iter().map(|(k, v)| (k.as_str(), v.as_u64())).collect::<Vec<_>>(),
            [("b", Some(2)), ("a", None)]
        );
        // A small text keeps its strings.
        let small = serde_json::json!({"t": "y".repeat(2000)}).to_string();
        assert_eq!(parse_for_detection(small.as_bytes()).unwrap()["t"].as_str().unwrap().len(), 2000);
        // Invalid: the same error.
        for bad in [
            format!("{text} x"),
            text[..text.len() - 1].to_string(),
            format!("[{}", "1,".repeat(REUSED_DOCUMENT_MIN)),
            format!("{}{}", "[".repeat(200), " ".repeat(REUSED_DOCUMENT_MIN)),
        ] {
            let want = serde_json::from_slice::<Value>(bad.as_bytes()).unwrap_err().to_string();
            assert_eq!(parse_for_detection(bad.as_bytes()).unwrap_err().to_string(), want);
        }
    }

    /// A one-line document of at least [`REUSED_DOCUMENT_MIN`] bytes is
    /// detected from the value its line gave exactly as from the whole
    /// document read again: around it blank lines, CRLF, a BOM, JSON
    /// whitespace or a form feed (blank to the line reader, not to JSON),
    /// a second record, a HAR and an OpenClaw trajectory's `traceSchema`.
    #[test]
    fn a_large_one_line_document_is_detected_as_the_whole_document() {
        let text = "x".repeat(400);
        let msgs: Vec<String> =
            (0..3000).map(|i| format!(r#"{{"role":"{}","content":"{text}"}}"#, ["user", "assistant"][i % 2])).collect();
        let chat = format!(r#"{{"model":"m","messages":[{{"role":"system","content":"s"}},{}]}}"#, msgs.join(","));
        assert!(chat.len() >= REUSED_DOCUMENT_MIN);
        let entry = format!(
            r#"{{"request":{{"method":"POST","url":"https://x/v1/chat/completions","postData":{{"text":{}}}}}}}"#,
            serde_json::to_string(&chat).unwrap()
        );
        let har = format!(r#"{{"log":{{"version":"1.2","entries":[{entry}]}}}}"#);
        let traced = format!(r#"{{"traceSchema":"t",{}"#, &har[1..]);
        for doc in [&chat, &har, &traced] {
            for (around, whole) in [
                (("", ""), true),
                (("", "\n"), true),
                (("\n \n", "\r\n\r\n"), true),
                (("\u{feff}", "\n"), true),
                (("", "\n\t \n"), true),
                (("", "\n\u{c}\n"), false),
                (("\u{c}\n", ""), false),
                (("", "\n1\n"), false),
            ] {
                let input = format!("{}{doc}{}", around.0, around.1);
                let got = detect_str(&input);
                // The whole document as read again (a BOM reads as spaces).
                let bytes = input.replacen('\u{feff}', "   ", 1);
                let want = document_detection(bytes.as_bytes(), None).unwrap_or(Detection::Unknown);
                assert_eq!(got, want, "{around:?}");
                assert_eq!(got != Detection::Unknown, whole, "{around:?}");
            }
        }
        assert_eq!(detect_str(&chat), Detection::Format(super::super::openai_chat::ID));
        assert_eq!(detect_str(&har), Detection::Format(har::ID));
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

    /// A LangGraph thread state whose graph keeps no messages is named as
    /// one (langchain-ai/social-media-agent's `generate_post` state); with a
    /// `values.messages` list it is read.
    #[test]
    fn a_langgraph_state_without_messages_is_named() {
        let s = r#"{"values":{"links":["https://x"],"report":""},"next":["generatePost"],"tasks":[],"metadata":{"graph_id":"generate_post"},"checkpoint":{"thread_id":"t"}}"#;
        assert_eq!(detect_str(s), Detection::Unsupported(crate::formats::langgraph::NO_MESSAGES));
        let m = r#"{"values":{"messages":[{"type":"human","content":"hi"}]},"next":[],"tasks":[],"metadata":{},"checkpoint":{}}"#;
        assert_eq!(detect_str(m), Detection::Format(crate::formats::langgraph::ID));
    }

    /// A Git LFS pointer checked out in place of a session is named as one.
    #[test]
    fn a_git_lfs_pointer_is_named() {
        let p = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
        assert_eq!(detect_str(p), Detection::Unsupported(LFS_POINTER));
    }

    /// Typed content blocks alone do not make a body Anthropic's: a Cohere v2
    /// body with Chat Completions tools (`{type: "function", function}`), a
    /// Mistral body with a `thinking` part holding a list of chunks or with
    /// `reasoning_effort` (crmne/ruby_llm cassettes), one without the
    /// `max_tokens` Anthropic requires, are Chat bodies; the Mistral thinking
    /// chunks are read as the part's text.
    #[test]
    fn typed_blocks_with_chat_tools_or_mistral_thinking_are_chat() {
        use crate::formats::openai_chat;
        let cohere = r#"{"model":"command-a-03-2025","messages":[{"role":"user","content":[{"type":"text","text":"Weather in Berlin?"}]}],"tools":[{"type":"function","function":{"name":"weather","parameters":{}}}]}"#;
        assert_eq!(detect_str(cohere), Detection::Format(openai_chat::ID));
        let mistral = r#"{"model":"mistral-small-latest","messages":[{"role":"user","content":"12*12?"},{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"12 times 12 is 144."}]},{"type":"text","text":"144"}]},{"role":"user","content":"Add 10."}]}"#;
        assert_eq!(detect_str(mistral), Detection::Format(openai_chat::ID));
        let effort = r#"{"model":"m","reasoning_effort":"high","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#;
        assert_eq!(detect_str(effort), Detection::Format(openai_chat::ID));
        let v: Value = serde_json::from_str(mistral).unwrap();
        let r = openai_chat::parse(&v, &std::sync::Arc::from("b.json"), 0, "");
        assert_eq!(&*r.messages[1].blocks[0].text, "12 times 12 is 144.");
        // Typed text blocks alone, without the `max_tokens` the Messages API
        // requires: another provider's (Magistral's first request).
        let magistral = r#"{"model":"magistral-medium-latest","messages":[{"role":"user","content":[{"type":"text","text":"12*12?"}]}]}"#;
        assert_eq!(detect_str(magistral), Detection::Format(openai_chat::ID));
        // Anthropic's own typed blocks and tools stay Anthropic's.
        let claude = r#"{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"yo"}]}],"tools":[{"name":"w","input_schema":{}}]}"#;
        assert_eq!(detect_str(claude), Detection::Format(crate::formats::anthropic::ID));
        // Blocks only Anthropic takes decide without `max_tokens` (a hand-made body).
        let own = r#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]}]}"#;
        assert_eq!(detect_str(own), Detection::Format(crate::formats::anthropic::ID));
        let cached = r#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}"#;
        assert_eq!(detect_str(cached), Detection::Format(crate::formats::anthropic::ID));
    }

    /// A `messages` list none of whose messages carries `content`,
    /// `tool_calls` or `function_call` is no Chat Completions request (DSPy's
    /// request snapshot, `stanfordnlp/dspy` `tests/predict/snapshots/`, was
    /// read as one and every message checked empty): skipped with the reason
    /// when its messages hold `parts`, else matching no format. One message
    /// that sends something keeps the body a request.
    #[test]
    fn a_messages_list_without_content_is_no_chat_request() {
        use crate::formats::openai_chat;
        let dspy = r#"{"model":"m","messages":[{"role":"system","parts":[{"type":"text","text":"Be terse."}]},{"role":"user","parts":[{"type":"text","text":"Say hi."}]}]}"#;
        assert_eq!(detect_str(dspy), Detection::Unsupported(openai_chat::PARTS_NOT_CONTENT));
        let bare = r#"{"model":"m","messages":[{"role":"user","text":"Say hi."}]}"#;
        assert_eq!(detect_str(bare), Detection::Unknown);
        for body in [
            r#"{"model":"m","messages":[{"role":"user","parts":[]},{"role":"user","content":"hi"}]}"#,
            r#"{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#,
            r#"{"model":"m","messages":[]}"#,
        ] {
            assert_eq!(detect_str(body), Detection::Format(openai_chat::ID), "{body}");
        }
    }
}
