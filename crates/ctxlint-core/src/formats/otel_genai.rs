//! `otel-genai`: OpenTelemetry GenAI traces and logs, as files.
//!
//! Conventions followed: the GenAI semantic conventions as published in
//! open-telemetry/semantic-conventions v1.37.0 (`docs/gen-ai/gen-ai-spans.md`,
//! `gen-ai-events.md`) and carried on in open-telemetry/semantic-conventions-genai
//! (`docs/gen-ai/gen-ai-input-messages.json` at b49cb9d, `gen-ai-output-messages.json`
//! at 8f24f0e, `gen-ai-system-instructions.json` at 4487f9a); their status is
//! "Development". The older per-message events follow v1.30.0
//! (`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
//! `gen_ai.tool.message`, `gen_ai.choice`), as opentelemetry-instrumentation-openai-v2
//! 2.1b0 emits them and 2.4b0 still does without `OTEL_SEMCONV_STABILITY_OPT_IN`.
//! OpenInference keys follow Arize-ai/openinference `spec/semantic_conventions.md`
//! (`llm.input_messages.{i}.message.{role,content,contents.{j}.message_content.text,
//! tool_calls.{j}.tool_call.{id,function.name,function.arguments},tool_call_id}`,
//! `llm.tools.{i}.tool.json_schema`, `openinference.span.kind`), as
//! openinference-instrumentation-openai 0.1.66 writes them.
//!
//! Files read (one record after another; a record is one JSON value on one
//! line, or a pretty-printed value over several lines):
//! - OTLP/JSON (`opentelemetry-proto` `ExportTraceServiceRequest` /
//!   `ExportLogsServiceRequest` in the OTLP/JSON mapping: camelCase keys, hex ids,
//!   64-bit integers as strings): `{"resourceSpans":[{resource, scopeSpans:[{scope,
//!   spans:[{traceId, spanId, parentSpanId, name, startTimeUnixNano, attributes:
//!   [{key, value: AnyValue}], status}]}]}]}` and `{"resourceLogs":[{scopeLogs:
//!   [{logRecords:[{timeUnixNano, observedTimeUnixNano, eventName?, attributes,
//!   body: AnyValue, traceId, spanId}]}]}]}`, as the collector's `file` exporter
//!   writes them (one export per line) or as one whole document. `AnyValue` is
//!   `{stringValue|boolValue|intValue|doubleValue|bytesValue|arrayValue:{values}|
//!   kvlistValue:{values:[{key,value}]}}`.
//! - SDK dumps with plain JSON attributes: the GitHub Copilot CLI file exporter
//!   (`COPILOT_OTEL_FILE_EXPORTER_PATH`: one `{"type":"span", traceId, spanId,
//!   parentSpanId, name, kind, startTime:[s,ns], endTime, attributes:{…}, status,
//!   resource, instrumentationScope}` per line); Gemini CLI's `--telemetry-outfile`
//!   (google-gemini/gemini-cli `packages/core/src/telemetry/file-exporters.ts` at
//!   24861fd: each JS `ReadableSpan` / `ReadableLogRecord` as `JSON.stringify(x,
//!   null, 2)` plus a newline: `_spanContext`/`spanContext` `{traceId, spanId}`,
//!   `startTime`/`hrTime` `[s,ns]`); the Python SDK's `ConsoleSpanExporter`
//!   (`span.to_json()`, indent 4: `context: {trace_id: "0x…", span_id}`,
//!   `start_time` ISO 8601) and `ConsoleLogExporter`.
//!
//! What becomes a request (one per model call):
//! - an inference span (`gen_ai.operation.name` `chat`, `text_completion`,
//!   `generate_content`, or none) carrying `gen_ai.input.messages` /
//!   `gen_ai.system_instructions`; or a `gen_ai.client.inference.operation.details`
//!   log event carrying them (for the span it names, when that span carried none);
//! - the per-message events of one span (grouped by trace and span id, in record
//!   order); `gen_ai.choice` is the output and is not sent;
//! - an OpenInference LLM span with `llm.input_messages.*`.
//!
//! Mapping: `gen_ai.system_instructions` (parts) → the `system` slot;
//! `gen_ai.input.messages` `[{role, parts:[…]}]` → messages (`system`,
//! `user`, `assistant`, `tool`), parts `text` → text, `tool_call` {id, name,
//! arguments} → tool call, `tool_call_response` {id, response} → tool result,
//! `reasoning` → thinking, `blob`/`file`/`uri` → media, others (server tool calls
//! included, which the provider runs and answers itself) → other;
//! `gen_ai.tool.definitions` (or OpenInference `llm.tools`) → tools; the output
//! messages are the call's outcome and are never part of its prompt; a span with
//! status `ERROR` is a failed call ([`Outcome::PromptError`]: what follows is a
//! recovery, not compared). Attribute values may be JSON strings, OTLP arrays /
//! kvlists, or plain JSON; all are read.
//!
//! Streams: one file is one stream ordered by start time (`startTimeUnixNano`,
//! `[s,ns]` or ISO; file order when any is missing). Requests carry
//! `gen_ai.conversation.id` as [`Request::session_id`], else `trace:<trace id>`,
//! so each conversation (else each trace) is its own conversation; they are
//! paired per `gen_ai.provider.name`/model ([`Request::endpoint`]).
//!
//! Locations: [`Request::line`] is the 1-based line of the export record (for a
//! record over several lines, the line of the span's input attribute);
//! pointers go into that record down to the attribute
//! (`/resourceSpans/0/scopeSpans/0/spans/3/attributes/5/value/stringValue`) and,
//! inside a JSON-string attribute, on into that JSON
//! (`…/stringValue/2/parts/0`), as `har` continues after `postData/text`;
//! [`located_pointer`] gives the part that can be found in the file's bytes.
//! [`Request::label`] names the span (`name`, trace id, span id), and findings
//! name it. Spans and logs that are no model call are skipped and counted;
//! inference spans without captured content are skipped, counted, and said
//! once ([`Input::unread`]).

use super::LoadOptions;
use super::body::*;
use crate::error::Result;
use crate::model::*;
use crate::source::SourceRef;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("otel-genai");

/// The largest record (bytes) gathered over several lines; a longer one is malformed.
const MAX_RECORD: usize = 256 << 20;

/// Whether a record (a JSONL line or a whole document) is OpenTelemetry data
/// this format reads: an OTLP/JSON export (`resourceSpans` or `resourceLogs`
/// array) or an SDK dump record carrying GenAI or OpenInference attributes.
pub fn sniff(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if o.get("resourceSpans").is_some_and(Value::is_array) || o.get("resourceLogs").is_some_and(Value::is_array) {
        return true;
    }
    dump_ids(o).is_some()
        && o.get("attributes").and_then(Value::as_object).is_some_and(|a| {
            a.keys().any(|k| k.starts_with("gen_ai.") || k.starts_with("llm.") || k == "openinference.span.kind")
        })
}

/// Whether the bytes at the start of a file (`head`) begin with a
/// pretty-printed record [`sniff`] accepts, followed by more (a concatenation
/// of JSON values, as the SDKs' console and file exporters write).
pub fn sniff_concatenated(head: &[u8]) -> bool {
    let mut it = serde_json::Deserializer::from_slice(head).into_iter::<Value>();
    let mut seen = 0;
    while let Some(Ok(v)) = it.next() {
        if sniff(&v) {
            return true;
        }
        seen += 1;
        if seen >= 64 {
            break;
        }
    }
    false
}

/// The part of a finding's pointer that can be located in the file's bytes:
/// a pointer that continues inside a JSON-string attribute is cut after the
/// string (`…/value/stringValue/2/parts/0` → `…/value/stringValue`); any
/// other pointer is returned as is. For the SDK dumps (plain attribute
/// objects) the caller cuts segments until the pointer resolves.
pub fn located_pointer(pointer: &str) -> &str {
    match pointer.find("/stringValue/") {
        Some(i) => &pointer[..i + "/stringValue".len()],
        None => pointer,
    }
}

/// The trace and span id of an SDK dump record (Copilot/JS `traceId`,
/// `_spanContext`/`spanContext`, Python `context.trace_id` or `trace_id`).
fn dump_ids(o: &Map<String, Value>) -> Option<(String, String)> {
    let pick = |m: &Map<String, Value>, t: &str, s: &str| {
        let t = m.get(t).and_then(Value::as_str)?;
        Some((norm_id(t), m.get(s).and_then(Value::as_str).map(norm_id).unwrap_or_default()))
    };
    pick(o, "traceId", "spanId")
        .or_else(|| {
            ["_spanContext", "spanContext"].iter().find_map(|k| pick(o.get(*k)?.as_object()?, "traceId", "spanId"))
        })
        .or_else(|| pick(o.get("context")?.as_object()?, "trace_id", "span_id"))
        .or_else(|| pick(o, "trace_id", "span_id"))
}

/// An id in lower-case hex without the `0x` the Python SDK prints.
fn norm_id(s: &str) -> String {
    s.trim_start_matches("0x").to_ascii_lowercase()
}

/// How attribute values are encoded in a record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Enc {
    /// OTLP `AnyValue` objects.
    Otlp,
    /// Plain JSON values (SDK dumps).
    Plain,
}

/// One attribute: its key, raw value and the pointer of that raw value.
struct Attr<'a> {
    key: &'a str,
    raw: &'a Value,
    ptr: String,
}

/// A step of a logical path into a decoded attribute value.
#[derive(Clone)]
enum Seg<'a> {
    Idx(usize),
    Key(&'a str),
}

fn path_str(path: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for p in path {
        s = match p {
            Seg::Idx(i) => ptr_idx(&s, *i),
            Seg::Key(k) => ptr_join(&s, k),
        };
    }
    s
}

/// The pointer, in the file's record, of the element at `path` inside the
/// decoded value of an attribute whose raw value is `raw` at `base`: through
/// OTLP `arrayValue`/`kvlistValue` wrappers, and on into a JSON string.
fn ptr_into(enc: Enc, raw: &Value, base: &str, path: &[Seg<'_>]) -> String {
    if enc == Enc::Plain {
        return format!("{base}{}", path_str(path));
    }
    if raw.get("stringValue").is_some() {
        return format!("{base}/stringValue{}", path_str(path));
    }
    let Some(first) = path.first() else { return base.to_string() };
    if let Some(vals) = raw.get("arrayValue").and_then(|a| a.get("values")).and_then(Value::as_array) {
        if let Seg::Idx(i) = *first {
            if let Some(v) = vals.get(i) {
                return ptr_into(enc, v, &format!("{base}/arrayValue/values/{i}"), &path[1..]);
            }
        }
    }
    if let Some(vals) = raw.get("kvlistValue").and_then(|a| a.get("values")).and_then(Value::as_array) {
        if let Seg::Key(k) = *first {
            if let Some((n, kv)) =
                vals.iter().enumerate().find(|(_, kv)| kv.get("key").and_then(Value::as_str) == Some(k))
            {
                if let Some(v) = kv.get("value") {
                    return ptr_into(enc, v, &format!("{base}/kvlistValue/values/{n}/value"), &path[1..]);
                }
            }
        }
    }
    base.to_string()
}

/// An OTLP `AnyValue` as plain JSON (`intValue` strings become numbers).
fn any_to_json(v: &Value) -> Value {
    let Some(o) = v.as_object() else { return v.clone() };
    if let Some(s) = o.get("stringValue") {
        return s.clone();
    }
    if let Some(b) = o.get("boolValue") {
        return b.clone();
    }
    if let Some(i) = o.get("intValue") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(Value::from).unwrap_or_else(|_| i.clone()),
            other => other.clone(),
        };
    }
    if let Some(d) = o.get("doubleValue") {
        return d.clone();
    }
    if let Some(b) = o.get("bytesValue") {
        return b.clone();
    }
    if let Some(a) = o.get("arrayValue") {
        let vals = a.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        return Value::Array(vals.iter().map(any_to_json).collect());
    }
    if let Some(kv) = o.get("kvlistValue") {
        let mut m = Map::new();
        for e in kv.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(k) = e.get("key").and_then(Value::as_str) {
                m.insert(k.to_string(), e.get("value").map(any_to_json).unwrap_or(Value::Null));
            }
        }
        return Value::Object(m);
    }
    Value::Null
}

/// The decoded value of an attribute: OTLP wrappers removed and a string
/// holding JSON (an array or object) parsed.
fn decode(enc: Enc, raw: &Value) -> Value {
    let v = if enc == Enc::Otlp { any_to_json(raw) } else { raw.clone() };
    match &v {
        Value::String(s) if matches!(s.trim_start().as_bytes().first(), Some(b'[' | b'{')) => {
            serde_json::from_str(s).unwrap_or(v)
        }
        _ => v,
    }
}

/// The attributes of a span or log record at `base`.
fn attrs<'a>(enc: Enc, rec: &'a Value, base: &str) -> Vec<Attr<'a>> {
    let ap = ptr_join(base, "attributes");
    match (enc, rec.get("attributes")) {
        (Enc::Otlp, Some(Value::Array(a))) => a
            .iter()
            .enumerate()
            .filter_map(|(i, kv)| {
                let key = kv.get("key")?.as_str()?;
                Some(Attr { key, raw: kv.get("value")?, ptr: format!("{ap}/{i}/value") })
            })
            .collect(),
        (Enc::Plain, Some(Value::Object(m))) => {
            m.iter().map(|(k, v)| Attr { key: k.as_str(), raw: v, ptr: ptr_join(&ap, k) }).collect()
        }
        _ => Vec::new(),
    }
}

fn attr_str(enc: Enc, a: &[Attr<'_>], key: &str) -> Option<String> {
    let at = a.iter().find(|x| x.key == key)?;
    match decode(enc, at.raw) {
        Value::String(s) if !s.trim().is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A start time in nanoseconds since the epoch: a number or decimal string
/// of nanoseconds (OTLP), `[seconds, nanos]` (JS hrtime) or ISO 8601 (Python).
fn nanos(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .ok()
            .or_else(|| chrono::DateTime::parse_from_rfc3339(s.trim()).ok().and_then(|t| t.timestamp_nanos_opt())),
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().map(|u| u.min(i64::MAX as u64) as i64)),
        Value::Array(a) => match a.as_slice() {
            [s, ns] => Some(s.as_i64()?.saturating_mul(1_000_000_000).saturating_add(ns.as_i64()?)),
            _ => None,
        },
        _ => None,
    }
}

/// One model call being assembled.
struct Call {
    req: Request,
    time: Option<i64>,
    /// The call carries prompt content (messages or system instructions).
    content: bool,
    /// Per-message events: the next message index.
    events: usize,
}

/// What one file gives while it is read.
#[derive(Default)]
struct State {
    calls: Vec<Call>,
    /// (trace id, span id) → index in `calls`.
    by_span: HashMap<(String, String), usize>,
    /// Span names by (trace, span), for calls made from log events.
    names: HashMap<(String, String), String>,
    skipped: usize,
}

/// Loads an OpenTelemetry file as one stream.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let path: Arc<str> = src.display.as_str().into();
    let mut st = State::default();
    let mut acc = Acc::default();
    // Records cut short (torn) before a new record began: reported at their first line.
    let mut torn: Vec<BadLine> = Vec::new();
    let (bad_lines, _) = super::jsonl::read_lines(src, |line| {
        let bytes =
            if line.no == 1 { line.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line.bytes) } else { line.bytes };
        // A record that begins at column 0 while one is being gathered: the
        // gathered one was cut short (a torn JSONL line, or a dump cut off).
        // A whole JSONL record is itself read; a lone `{` starts a new one.
        if acc.start.is_some() && bytes.first() == Some(&b'{') {
            let whole = bytes.trim_ascii() == b"{" || serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok();
            if whole {
                torn.push(acc.torn("a new record begins on a later line before this one ends (cut short)"));
                acc.reset();
            }
        }
        if acc.start.is_none() {
            // The usual case, one record per line: parsed once.
            match serde_json::from_slice::<Value>(bytes) {
                Ok(v) => {
                    record(&mut st, &path, &v, line.no, None);
                    return super::jsonl::LineVerdict::Ok;
                }
                Err(e) if !e.is_eof() => {
                    return super::jsonl::LineVerdict::Malformed(super::jsonl::describe_json_error(&e));
                }
                // A value that goes on past this line: gathered below.
                Err(_) => {}
            }
        }
        match acc.push(line.no, line.offset, bytes) {
            Gathered::More => super::jsonl::LineVerdict::Ok,
            Gathered::Record(start, buf) => match serde_json::from_slice::<Value>(&buf) {
                Ok(v) => {
                    let multi = start != line.no;
                    record(&mut st, &path, &v, start, multi.then_some(&buf[..]));
                    super::jsonl::LineVerdict::Ok
                }
                Err(e) if start == line.no => {
                    super::jsonl::LineVerdict::Malformed(super::jsonl::describe_json_error(&e))
                }
                Err(e) => super::jsonl::LineVerdict::Malformed(format!(
                    "the record that starts at line {start} is not one JSON value: {}",
                    super::jsonl::describe_json_error(&e)
                )),
            },
            Gathered::TooLong(start) => super::jsonl::LineVerdict::Malformed(format!(
                "the record that starts at line {start} is longer than {} MiB without ending",
                MAX_RECORD >> 20
            )),
        }
    })?;
    let mut bad = bad_lines;
    if acc.start.is_some() && !acc.buf.is_empty() {
        torn.push(acc.torn("the file ends inside this record (cut short)"));
    }
    if !torn.is_empty() {
        for b in torn {
            bad.push_with(|| b);
        }
        bad.kept.sort_by_key(|b| b.line);
    }
    Ok(finish(src, st, bad))
}

fn finish(src: &SourceRef, st: State, bad: BadLines) -> Input {
    let State { calls, skipped, .. } = st;
    let mut skipped = skipped;
    let (mut no_content, mut first_no_content) = (0, None);
    let mut kept: Vec<Call> = Vec::with_capacity(calls.len());
    for c in calls {
        if c.content {
            kept.push(c);
        } else {
            // An inference call whose prompt content was not captured.
            skipped += 1;
            no_content += 1;
            first_no_content.get_or_insert((c.req.line.unwrap_or(1), c.req.pointer.clone()));
        }
    }
    if kept.iter().all(|c| c.time.is_some()) {
        kept.sort_by_key(|c| c.time);
    }
    let requests: Vec<Request> = kept
        .into_iter()
        .enumerate()
        .map(|(i, mut c)| {
            c.req.index = i;
            c.req
        })
        .collect();
    let mut unread = Vec::new();
    if let Some((line, pointer)) = first_no_content.filter(|_| no_content > 0) {
        unread.push(Unread {
            line: Some(line),
            pointer,
            what: format!(
                "{no_content} inference span(s) or event(s) carry no prompt content (capture was off: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, and OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental for the latest conventions), so they were not checked"
            ),
        });
    }
    Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests }),
        bad_lines: bad.kept,
        more_bad_lines: bad.more,
        skipped,
        unknown_records: 0,
        unread,
    }
}

/// Gathers lines into records: a line that is a whole JSON value is one; a
/// value that goes on over several lines (pretty-printed) is gathered until
/// its brackets close (strings and escapes followed).
#[derive(Default)]
struct Acc {
    buf: Vec<u8>,
    start: Option<u32>,
    /// Byte offset of the start line.
    offset: u64,
    depth: usize,
    in_str: bool,
    esc: bool,
}

enum Gathered {
    /// The line is inside a record that is not complete yet.
    More,
    /// A record (start line, bytes).
    Record(u32, Vec<u8>),
    /// A record grew past [`MAX_RECORD`]; it is dropped.
    TooLong(u32),
}

impl Acc {
    fn scan(&mut self, bytes: &[u8]) {
        for &c in bytes {
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if c == b'\\' {
                    self.esc = true;
                } else if c == b'"' {
                    self.in_str = false;
                }
                continue;
            }
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    fn reset(&mut self) {
        self.buf.clear();
        self.start = None;
        self.depth = 0;
        self.in_str = false;
        self.esc = false;
    }

    /// The gathered record as a bad line (`reason` says why it is one).
    fn torn(&self, reason: &str) -> BadLine {
        BadLine {
            line: self.start.unwrap_or(1),
            offset: self.offset,
            reason: reason.into(),
            head: crate::text::prefix(&String::from_utf8_lossy(&self.buf), 80).to_string(),
        }
    }

    fn push(&mut self, no: u32, offset: u64, bytes: &[u8]) -> Gathered {
        if self.start.is_none() {
            // A line that is no whole value (the caller parses whole ones first).
            let t = bytes.trim_ascii();
            if !matches!(t.first(), Some(b'{' | b'[')) {
                return Gathered::Record(no, t.to_vec());
            }
            self.scan(t);
            if self.depth == 0 {
                // Closed on this line yet not JSON: malformed as it is.
                let out = t.to_vec();
                self.reset();
                return Gathered::Record(no, out);
            }
            self.start = Some(no);
            self.offset = offset;
            self.buf.extend_from_slice(t);
            return Gathered::More;
        }
        let start = self.start.unwrap_or(no);
        self.buf.push(b'\n');
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > MAX_RECORD {
            self.reset();
            return Gathered::TooLong(start);
        }
        self.scan(bytes);
        if self.depth == 0 && !self.in_str {
            let out = std::mem::take(&mut self.buf);
            self.reset();
            return Gathered::Record(start, out);
        }
        Gathered::More
    }
}

fn arr(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Reads one record (at 1-based `line`; `multi`: its bytes when it spans
/// several lines, to find the line of each span within it).
fn record(st: &mut State, path: &Arc<str>, v: &Value, line: u32, multi: Option<&[u8]>) {
    let line_of = |ptr: &str| -> u32 {
        match multi.and_then(|b| crate::locate::locate(b, located_pointer(ptr)).map(|at| (b, at))) {
            Some((b, at)) => line + memchr::memchr_iter(b'\n', &b[..at]).count() as u32,
            None => line,
        }
    };
    if v.get("resourceSpans").is_some() || v.get("resourceLogs").is_some() {
        for (i, rs) in arr(v.get("resourceSpans")).iter().enumerate() {
            let scopes = rs.get("scopeSpans").or_else(|| rs.get("instrumentationLibrarySpans"));
            let sk = if rs.get("scopeSpans").is_some() { "scopeSpans" } else { "instrumentationLibrarySpans" };
            for (j, ss) in arr(scopes).iter().enumerate() {
                for (k, sp) in arr(ss.get("spans")).iter().enumerate() {
                    let base = format!("/resourceSpans/{i}/{sk}/{j}/spans/{k}");
                    let ids = (
                        sp.get("traceId").and_then(Value::as_str).map(norm_id).unwrap_or_default(),
                        sp.get("spanId").and_then(Value::as_str).map(norm_id).unwrap_or_default(),
                    );
                    let ok = sp
                        .get("status")
                        .and_then(|s| s.get("code"))
                        .is_some_and(|c| c.as_str() == Some("STATUS_CODE_ERROR") || c.as_i64() == Some(2));
                    let name = sp.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                    let time = nanos(sp.get("startTimeUnixNano"));
                    span(st, path, Enc::Otlp, sp, &base, ids, name, time, ok, &line_of);
                }
            }
        }
        for (i, rl) in arr(v.get("resourceLogs")).iter().enumerate() {
            let scopes = rl.get("scopeLogs").or_else(|| rl.get("instrumentationLibraryLogs"));
            let sk = if rl.get("scopeLogs").is_some() { "scopeLogs" } else { "instrumentationLibraryLogs" };
            for (j, sl) in arr(scopes).iter().enumerate() {
                for (k, lr) in arr(sl.get("logRecords")).iter().enumerate() {
                    let base = format!("/resourceLogs/{i}/{sk}/{j}/logRecords/{k}");
                    let ids = (
                        lr.get("traceId").and_then(Value::as_str).map(norm_id).unwrap_or_default(),
                        lr.get("spanId").and_then(Value::as_str).map(norm_id).unwrap_or_default(),
                    );
                    let time = nanos(lr.get("timeUnixNano"))
                        .filter(|t| *t > 0)
                        .or_else(|| nanos(lr.get("observedTimeUnixNano")));
                    let event = lr.get("eventName").and_then(Value::as_str).map(str::to_string);
                    log(st, path, Enc::Otlp, lr, &base, ids, event, time, &line_of);
                }
            }
        }
        return;
    }
    let Some(o) = v.as_object() else {
        st.skipped += 1;
        return;
    };
    let Some(ids) = dump_ids(o) else {
        st.skipped += 1;
        return;
    };
    let is_log = o.get("type").and_then(Value::as_str) == Some("log")
        || (o.contains_key("body") && !o.contains_key("name"))
        || o.contains_key("hrTime");
    if is_log {
        let time = nanos(o.get("timeUnixNano"))
            .or_else(|| nanos(o.get("hrTime")))
            .or_else(|| nanos(o.get("timestamp")))
            .or_else(|| nanos(o.get("observed_timestamp")));
        let event =
            ["eventName", "event_name"].iter().find_map(|k| o.get(*k).and_then(Value::as_str)).map(str::to_string);
        log(st, path, Enc::Plain, v, "", ids, event, time, &line_of);
    } else {
        let name = o.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let time = nanos(o.get("startTime")).or_else(|| nanos(o.get("start_time")));
        let err = o.get("status").is_some_and(|s| {
            let c = s.get("code").or_else(|| s.get("status_code"));
            c.and_then(Value::as_i64) == Some(2) || c.and_then(Value::as_str).is_some_and(|c| c.ends_with("ERROR"))
        });
        span(st, path, Enc::Plain, v, "", ids, name, time, err, &line_of);
    }
}

/// Whether a `gen_ai.operation.name` may be a model call: any but the
/// operations that are not one (`invoke_agent`, `execute_tool`,
/// `embeddings`, `create_agent`, `invoke_workflow`, `retrieval`); the model
/// calls are `chat`, `text_completion` and `generate_content`, but an
/// instrumentation's own name (or none) with prompt content is read too.
fn is_inference_op(op: Option<&str>) -> bool {
    !matches!(
        op,
        Some("invoke_agent" | "execute_tool" | "embeddings" | "create_agent" | "invoke_workflow" | "retrieval")
    )
}

const CONTENT_KEYS: &[&str] = &["gen_ai.input.messages", "gen_ai.system_instructions"];

#[allow(clippy::too_many_arguments)]
fn span(
    st: &mut State,
    path: &Arc<str>,
    enc: Enc,
    sp: &Value,
    base: &str,
    ids: (String, String),
    name: String,
    time: Option<i64>,
    failed: bool,
    line_of: &dyn Fn(&str) -> u32,
) {
    let a = attrs(enc, sp, base);
    st.names.insert(ids.clone(), name.clone());
    let op = attr_str(enc, &a, "gen_ai.operation.name");
    let oi_llm = attr_str(enc, &a, "openinference.span.kind").as_deref() == Some("LLM")
        || a.iter().any(|x| x.key.starts_with("llm.input_messages."));
    let genai = a.iter().any(|x| CONTENT_KEYS.contains(&x.key));
    if oi_llm && !genai {
        let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
        let content = openinference(&mut req, enc, &a);
        if failed {
            req.outcome = Some(Outcome::PromptError);
        }
        push_call(st, ids, Call { req, time, content, events: 0 });
        return;
    }
    let inference = is_inference_op(op.as_deref()) && (genai || op.is_some());
    if !inference {
        st.skipped += 1;
        return;
    }
    if let Some(&i) = st.by_span.get(&ids) {
        // An earlier operation-details event or per-message events for this span.
        let c = &mut st.calls[i];
        if failed {
            c.req.outcome = Some(Outcome::PromptError);
        }
        if !c.content && genai {
            let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
            semconv(&mut req, enc, &a);
            req.outcome = c.req.outcome;
            c.req = req;
            c.content = true;
            c.time = time.or(c.time);
        } else {
            c.req.label = Some(label(&name, &ids));
            c.time = time.or(c.time);
        }
        return;
    }
    // An inference span without content is kept as a placeholder: per-message
    // events or an operation-details event of the same span may carry it
    // (written before the span ends, or after it by another exporter).
    let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
    semconv(&mut req, enc, &a);
    if failed {
        req.outcome = Some(Outcome::PromptError);
    }
    push_call(st, ids, Call { req, time, content: genai, events: 0 });
}

fn push_call(st: &mut State, ids: (String, String), c: Call) {
    if !ids.1.is_empty() {
        st.by_span.insert(ids, st.calls.len());
    }
    st.calls.push(c);
}

/// How findings name a span; the ids are quoted, so that `repro`'s message
/// skeleton (quoted text and digits aside) survives anonymised ids.
fn label(name: &str, ids: &(String, String)) -> Box<str> {
    let name = if name.is_empty() { "(unnamed)" } else { name };
    format!("span `{name}` (trace `{}`, span `{}`)", ids.0, ids.1).into()
}

/// A request for one call, with its grouping and location facts.
fn new_call(
    path: &Arc<str>,
    enc: Enc,
    a: &[Attr<'_>],
    base: &str,
    ids: &(String, String),
    name: &str,
    line_of: &dyn Fn(&str) -> u32,
) -> Request {
    let mut r = new_request(path, ID, 0, base);
    let anchor = a
        .iter()
        .find(|x| x.key == "gen_ai.input.messages" || x.key.starts_with("llm.input_messages."))
        .map(|x| ptr_into(enc, x.raw, &x.ptr, &[]))
        .unwrap_or_else(|| base.to_string());
    r.line = Some(line_of(&anchor));
    r.session_id = Some(match attr_str(enc, a, "gen_ai.conversation.id").or_else(|| attr_str(enc, a, "session.id")) {
        Some(c) => c.into(),
        None => format!("trace:{}", ids.0).into(),
    });
    let provider = attr_str(enc, a, "gen_ai.provider.name")
        .or_else(|| attr_str(enc, a, "gen_ai.system"))
        .or_else(|| attr_str(enc, a, "llm.provider"))
        .or_else(|| attr_str(enc, a, "llm.system"));
    let model = attr_str(enc, a, "gen_ai.request.model").or_else(|| attr_str(enc, a, "llm.model_name"));
    r.endpoint = match (provider, model) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}").into()),
        (p, m) => p.or(m).map(Into::into),
    };
    r.response_id = attr_str(enc, a, "gen_ai.response.id").map(Into::into);
    r.label = Some(label(name, ids));
    r
}

/// Fills a request from the semantic-convention attributes.
fn semconv(r: &mut Request, enc: Enc, a: &[Attr<'_>]) {
    for at in a {
        match at.key {
            "gen_ai.system_instructions" => {
                let v = decode(enc, at.raw);
                let mut parts = Vec::new();
                let list: Vec<(Option<usize>, &Value)> = match &v {
                    Value::Array(x) => x.iter().enumerate().map(|(i, p)| (Some(i), p)).collect(),
                    other => vec![(None, other)],
                };
                for (i, p) in list {
                    let path: Vec<Seg> = i.map(Seg::Idx).into_iter().collect();
                    let ptr = ptr_into(enc, at.raw, &at.ptr, &path);
                    let text = match p {
                        Value::String(s) => s.clone(),
                        _ => part_text(p),
                    };
                    parts.push(text_block(BlockKind::Text, ptr, &text, p));
                }
                let ptr = ptr_into(enc, at.raw, &at.ptr, &[]);
                if !parts.is_empty() {
                    r.slots.push(Slot { kind: SlotKind::System, pointer: ptr, parts });
                }
            }
            "gen_ai.input.messages" => {
                if let Value::Array(msgs) = decode(enc, at.raw) {
                    for (i, m) in msgs.iter().enumerate() {
                        if let Some(msg) = message_of(enc, at, m, &[Seg::Idx(i)]) {
                            r.messages.push(msg);
                        }
                    }
                }
            }
            "gen_ai.tool.definitions" => {
                let v = decode(enc, at.raw);
                if !v.is_null() {
                    let ptr = ptr_into(enc, at.raw, &at.ptr, &[]);
                    r.tools = Some((ptr, chash(&v), crate::hash::canonical_string(&v, IGNORED_KEYS)));
                }
            }
            _ => {}
        }
    }
}

/// The text of a part: `content` (text, reasoning), else the part serialised.
fn part_text(p: &Value) -> String {
    match p.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => p.to_string(),
    }
}

fn role_of(role: &str) -> Option<(Role, MessageKind)> {
    Some(match role {
        "system" => (Role::System, MessageKind::SystemPrompt),
        "developer" => (Role::Developer, MessageKind::SystemPrompt),
        "user" | "human" => (Role::User, MessageKind::UserTurn),
        "assistant" | "model" | "ai" => (Role::Assistant, MessageKind::Assistant),
        "tool" | "function" => (Role::Tool, MessageKind::ToolResult),
        _ => return None,
    })
}

/// One `{role, parts}` message (at logical `path` in attribute `at`).
fn message_of(enc: Enc, at: &Attr<'_>, m: &Value, path: &[Seg<'_>]) -> Option<Message> {
    let (role, kind) = role_of(m.get("role")?.as_str()?)?;
    let mp = ptr_into(enc, at.raw, &at.ptr, path);
    let mut msg = message(role, kind, mp);
    let parts = m.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for (j, p) in parts.iter().enumerate() {
        let mut pp: Vec<Seg> = path.to_vec();
        pp.push(Seg::Key("parts"));
        pp.push(Seg::Idx(j));
        let ptr = ptr_into(enc, at.raw, &at.ptr, &pp);
        msg.blocks.push(part_block(p, ptr));
    }
    finish_message(&mut msg);
    Some(msg)
}

/// One message part as a block.
fn part_block(p: &Value, ptr: String) -> Block {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let (kind, text) = match ty {
        "text" => (BlockKind::Text, part_text(p)),
        "reasoning" | "thinking" => (BlockKind::Thinking, part_text(p)),
        "tool_call" => (BlockKind::ToolCall, p.get("arguments").map(Value::to_string).unwrap_or_default()),
        "tool_call_response" => (
            BlockKind::ToolResult,
            match p.get("response").or_else(|| p.get("result")) {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            },
        ),
        "blob" | "file" | "uri" | "image" => (BlockKind::Media, String::new()),
        _ => (BlockKind::Other, part_text(p)),
    };
    let mut b = text_block(kind, ptr, &text, p);
    if matches!(kind, BlockKind::ToolCall | BlockKind::ToolResult) {
        b.tool_id = p.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()).map(Into::into);
        b.tool_name = p.get("name").and_then(Value::as_str).map(Into::into);
    }
    b
}

/// Sets what a message's blocks make it: a user message of tool results
/// only is no user turn; a tool message gets its result facts.
fn finish_message(msg: &mut Message) {
    if msg.role == Role::User {
        classify_user(msg);
    }
    if msg.role == Role::Assistant {
        msg.assistant = assistant_info(None);
    }
    if msg.kind == MessageKind::ToolResult || msg.kind == MessageKind::ToolResults {
        msg.result = Some(Box::default());
    }
}

/// A log record: an operation-details event (a whole call) or a per-message event.
#[allow(clippy::too_many_arguments)]
fn log(
    st: &mut State,
    path: &Arc<str>,
    enc: Enc,
    lr: &Value,
    base: &str,
    ids: (String, String),
    event: Option<String>,
    time: Option<i64>,
    line_of: &dyn Fn(&str) -> u32,
) {
    let a = attrs(enc, lr, base);
    let event = event.filter(|e| !e.is_empty()).or_else(|| attr_str(enc, &a, "event.name"));
    let Some(event) = event else {
        st.skipped += 1;
        return;
    };
    let name = st.names.get(&ids).cloned().unwrap_or_default();
    if event == "gen_ai.client.inference.operation.details" {
        let genai = a.iter().any(|x| CONTENT_KEYS.contains(&x.key));
        let known = st.by_span.get(&ids).copied();
        if !genai || known.is_some_and(|i| st.calls[i].content) {
            // No content, or the span carried it too (`span_and_event`): one call.
            st.skipped += 1;
            return;
        }
        let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
        semconv(&mut req, enc, &a);
        match known {
            // The span came first (without content): the event is its content.
            Some(i) => {
                let c = &mut st.calls[i];
                req.outcome = c.req.outcome;
                c.req = req;
                c.content = true;
            }
            None => push_call(st, ids, Call { req, time, content: true, events: 0 }),
        }
        return;
    }
    let role = match event.as_str() {
        "gen_ai.system.message" => "system",
        "gen_ai.user.message" => "user",
        "gen_ai.assistant.message" => "assistant",
        "gen_ai.tool.message" => "tool",
        _ => {
            // `gen_ai.choice` (the output), `gen_ai.evaluation.result`, others.
            st.skipped += 1;
            return;
        }
    };
    let body_ptr = ptr_join(base, "body");
    let raw = lr.get("body").unwrap_or(&Value::Null);
    let body = decode(enc, raw);
    let i = match st.by_span.get(&ids) {
        Some(&i) if !st.calls[i].content || st.calls[i].events > 0 => i,
        _ => {
            let req = new_call(path, enc, &a, base, &ids, &name, line_of);
            push_call(st, ids.clone(), Call { req, time, content: false, events: 0 });
            st.calls.len() - 1
        }
    };
    let at = Attr { key: "body", raw, ptr: body_ptr };
    let c = &mut st.calls[i];
    if c.events == 0 {
        // The request is located at its first event.
        c.req.line = Some(line_of(base));
        c.req.pointer = base.to_string();
    }
    c.events += 1;
    if let Some(msg) = legacy_message(enc, &at, role, &body) {
        c.req.messages.push(msg);
        c.content = true;
    }
}

/// One v1.30 per-message event body: `{content}` (string or parts),
/// assistant `{content?, tool_calls:[{id, type, function:{name, arguments}}]}`,
/// tool `{content, id}`.
fn legacy_message(enc: Enc, at: &Attr<'_>, role: &str, body: &Value) -> Option<Message> {
    let (r, kind) = role_of(body.get("role").and_then(Value::as_str).unwrap_or(role))?;
    let mut msg = message(r, kind, ptr_into(enc, at.raw, &at.ptr, &[]));
    match body.get("content") {
        Some(Value::String(s)) => {
            let ptr = ptr_into(enc, at.raw, &at.ptr, &[Seg::Key("content")]);
            let bk = if r == Role::Tool { BlockKind::ToolResult } else { BlockKind::Text };
            let mut b = text_block(bk, ptr, s, &serde_json::json!({"type": "text", "text": s}));
            if bk == BlockKind::ToolResult {
                b.tool_id = body.get("id").and_then(Value::as_str).map(Into::into);
                b.json_hash = chash(&serde_json::json!({"id": body.get("id"), "content": s}));
            }
            msg.blocks.push(b);
        }
        Some(Value::Array(parts)) => {
            for (j, p) in parts.iter().enumerate() {
                let ptr = ptr_into(enc, at.raw, &at.ptr, &[Seg::Key("content"), Seg::Idx(j)]);
                let text = p.get("text").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| part_text(p));
                msg.blocks.push(text_block(BlockKind::Text, ptr, &text, p));
            }
        }
        _ => {}
    }
    if let Some(calls) = body.get("tool_calls").and_then(Value::as_array) {
        for (j, c) in calls.iter().enumerate() {
            let ptr = ptr_into(enc, at.raw, &at.ptr, &[Seg::Key("tool_calls"), Seg::Idx(j)]);
            let f = c.get("function");
            let args = f.and_then(|f| f.get("arguments")).map(|a| match a {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            let mut b = text_block(BlockKind::ToolCall, ptr, &args.unwrap_or_default(), c);
            b.tool_id = c.get("id").and_then(Value::as_str).map(Into::into);
            b.tool_name = f.and_then(|f| f.get("name")).and_then(Value::as_str).map(Into::into);
            msg.blocks.push(b);
        }
    }
    finish_message(&mut msg);
    Some(msg)
}

/// Fills a request from OpenInference's flattened `llm.input_messages.*`
/// and `llm.tools.*` attributes; says whether any message was found.
fn openinference(r: &mut Request, enc: Enc, a: &[Attr<'_>]) -> bool {
    // Message index → (attribute index per field).
    let mut msgs: std::collections::BTreeMap<usize, Vec<(&str, &Attr<'_>)>> = Default::default();
    let mut tools: Vec<(usize, Value)> = Vec::new();
    let mut tools_ptr = None;
    for at in a {
        if let Some(rest) = at.key.strip_prefix("llm.input_messages.") {
            let Some((i, field)) = rest.split_once('.') else { continue };
            let Ok(i) = i.parse::<usize>() else { continue };
            msgs.entry(i).or_default().push((field, at));
        } else if let Some(rest) = at.key.strip_prefix("llm.tools.") {
            let Some((i, _)) = rest.split_once('.') else { continue };
            if let Ok(i) = i.parse::<usize>() {
                tools_ptr.get_or_insert_with(|| at.ptr.clone());
                tools.push((i, decode(enc, at.raw)));
            }
        }
    }
    if !tools.is_empty() {
        tools.sort_by_key(|t| t.0);
        let v = Value::Array(tools.into_iter().map(|t| t.1).collect());
        r.tools = Some((tools_ptr.unwrap_or_default(), chash(&v), crate::hash::canonical_string(&v, IGNORED_KEYS)));
    }
    let any = !msgs.is_empty();
    for fields in msgs.into_values() {
        let get = |f: &str| fields.iter().find(|(k, _)| *k == f).map(|(_, at)| *at);
        let text_of = |at: &Attr<'_>| match decode(enc, at.raw) {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let Some(role_at) = get("message.role") else { continue };
        let Some((role, kind)) = role_of(&text_of(role_at)) else { continue };
        let mut msg = message(role, kind, ptr_into(enc, role_at.raw, &role_at.ptr, &[]));
        let call_id = get("message.tool_call_id").map(text_of);
        let mut push_text = |at: &Attr<'_>, t: String| {
            let ptr = ptr_into(enc, at.raw, &at.ptr, &[]);
            let (bk, v) = if role == Role::Tool {
                (BlockKind::ToolResult, serde_json::json!({"id": call_id, "content": t}))
            } else {
                (BlockKind::Text, serde_json::json!({"type": "text", "text": t}))
            };
            let mut b = text_block(bk, ptr, &t, &v);
            if bk == BlockKind::ToolResult {
                b.tool_id = call_id.as_deref().map(Into::into);
            }
            msg.blocks.push(b);
        };
        if let Some(at) = get("message.content") {
            push_text(at, text_of(at));
        }
        let mut contents: Vec<(usize, &Attr<'_>)> = fields
            .iter()
            .filter_map(|(k, at)| {
                let rest = k.strip_prefix("message.contents.")?;
                let (j, f) = rest.split_once('.')?;
                (f == "message_content.text").then_some((j.parse().ok()?, *at))
            })
            .collect();
        contents.sort_by_key(|c| c.0);
        for (_, at) in contents {
            push_text(at, text_of(at));
        }
        // Tool calls: `message.tool_calls.{j}.tool_call.{id,function.name,function.arguments}`.
        let mut calls: std::collections::BTreeMap<usize, [Option<&Attr<'_>>; 3]> = Default::default();
        for (k, at) in &fields {
            let Some(rest) = k.strip_prefix("message.tool_calls.") else { continue };
            let Some((j, f)) = rest.split_once('.') else { continue };
            let Ok(j) = j.parse::<usize>() else { continue };
            let slot = match f {
                "tool_call.id" => 0,
                "tool_call.function.name" => 1,
                "tool_call.function.arguments" => 2,
                _ => continue,
            };
            calls.entry(j).or_default()[slot] = Some(*at);
        }
        for [id, name, args] in calls.into_values() {
            let Some(anchor) = id.or(name).or(args) else { continue };
            let (id, name, args) = (id.map(text_of), name.map(text_of), args.map(text_of));
            let v = serde_json::json!({"id": id, "name": name, "arguments": args});
            let mut b = text_block(
                BlockKind::ToolCall,
                ptr_into(enc, anchor.raw, &anchor.ptr, &[]),
                args.as_deref().unwrap_or(""),
                &v,
            );
            b.tool_id = id.filter(|s| !s.is_empty()).map(Into::into);
            b.tool_name = name.map(Into::into);
            msg.blocks.push(b);
        }
        finish_message(&mut msg);
        r.messages.push(msg);
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load_text(text: &str) -> Input {
        super::super::load_str_for_test(load, "t.jsonl", text)
    }

    fn requests(i: &Input) -> &[Request] {
        match &i.body {
            Body::Stream(s) => &s.requests,
            _ => panic!("a stream"),
        }
    }

    fn sv(s: &str) -> Value {
        json!({"stringValue": s})
    }

    fn otlp_span(trace: &str, span: &str, start: &str, attrs: Vec<(&str, Value)>) -> Value {
        let attrs: Vec<Value> = attrs.into_iter().map(|(k, v)| json!({"key": k, "value": v})).collect();
        json!({"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[
            {"traceId":trace,"spanId":span,"name":"chat m","startTimeUnixNano":start,"attributes":attrs,"status":{}}]}]}]})
    }

    #[test]
    fn an_inference_span_is_a_request_with_pointers_into_its_json_attribute() {
        let msgs = r#"[{"role":"system","parts":[{"type":"text","content":"S"}]},{"role":"user","parts":[{"type":"text","content":"hi"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"ls","arguments":{"p":"."}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"a.rs"}]}]"#;
        let a = otlp_span(
            "AB01",
            "cd02",
            "200",
            vec![
                ("gen_ai.operation.name", sv("chat")),
                ("gen_ai.provider.name", sv("openai")),
                ("gen_ai.request.model", sv("gpt")),
                ("gen_ai.input.messages", sv(msgs)),
                ("gen_ai.system_instructions", sv(r#"[{"type":"text","content":"be brief"}]"#)),
            ],
        );
        let b = otlp_span("ab01", "ee03", "100", vec![("gen_ai.operation.name", sv("execute_tool"))]);
        let input = load_text(&format!("{a}\n{b}\n"));
        let rs = requests(&input);
        assert_eq!(rs.len(), 1);
        assert_eq!(input.skipped, 1);
        let r = &rs[0];
        let base = "/resourceSpans/0/scopeSpans/0/spans/0/attributes";
        assert_eq!((r.line, r.pointer.as_str()), (Some(1), "/resourceSpans/0/scopeSpans/0/spans/0"));
        assert_eq!(r.session_id.as_deref(), Some("trace:ab01"));
        assert_eq!(r.endpoint.as_deref(), Some("openai/gpt"));
        assert_eq!(r.label.as_deref(), Some("span `chat m` (trace `ab01`, span `cd02`)"));
        assert_eq!(r.slots[0].pointer, format!("{base}/4/value/stringValue"));
        assert_eq!(&*r.slots[0].parts[0].pointer, format!("{base}/4/value/stringValue/0"));
        let kinds: Vec<(Role, MessageKind, &str)> = r.messages.iter().map(|m| (m.role, m.kind, &*m.pointer)).collect();
        let mp = format!("{base}/3/value/stringValue");
        assert_eq!(
            kinds,
            [
                (Role::System, MessageKind::SystemPrompt, format!("{mp}/0").as_str()),
                (Role::User, MessageKind::UserTurn, format!("{mp}/1").as_str()),
                (Role::Assistant, MessageKind::Assistant, format!("{mp}/2").as_str()),
                (Role::Tool, MessageKind::ToolResult, format!("{mp}/3").as_str()),
            ]
        );
        assert_eq!(&*r.messages[2].blocks[0].pointer, format!("{mp}/2/parts/0"));
        assert_eq!(r.messages[2].blocks[0].tool_id.as_deref(), Some("c1"));
        assert_eq!(r.messages[3].blocks[0].tool_id.as_deref(), Some("c1"));
        assert_eq!(&*r.messages[3].blocks[0].text, "a.rs");
        assert_eq!(located_pointer(&r.messages[2].blocks[0].pointer), format!("{base}/3/value/stringValue"));
    }

    #[test]
    fn kvlist_values_and_plain_dumps_give_pointers_through_their_wrappers() {
        let parts = json!({"arrayValue":{"values":[{"kvlistValue":{"values":[
            {"key":"type","value":{"stringValue":"text"}},{"key":"content","value":{"stringValue":"hello"}}]}}]}});
        let msg = json!({"arrayValue":{"values":[{"kvlistValue":{"values":[
            {"key":"role","value":{"stringValue":"user"}},{"key":"parts","value":parts}]}}]}});
        let log = json!({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"gen_ai.client.inference.operation.details",
            "traceId":"t1","spanId":"s1","observedTimeUnixNano":"5","attributes":[{"key":"gen_ai.input.messages","value":msg}],"body":{}}]}]}]});
        let input = load_text(&format!("{log}\n"));
        let r = &requests(&input)[0];
        assert_eq!(
            &*r.messages[0].blocks[0].pointer,
            "/resourceLogs/0/scopeLogs/0/logRecords/0/attributes/0/value/arrayValue/values/0/kvlistValue/values/1/value/arrayValue/values/0"
        );
        assert_eq!(&*r.messages[0].blocks[0].text, "hello");
        // A Copilot CLI line: plain attributes, a JSON string.
        let line = json!({"type":"span","traceId":"T","spanId":"S","name":"chat x","startTime":[1, 5],
            "attributes":{"gen_ai.operation.name":"chat","gen_ai.conversation.id":"conv-1",
            "gen_ai.input.messages":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]"}});
        let input = load_text(&format!("{line}\n"));
        let r = &requests(&input)[0];
        assert_eq!(&*r.messages[0].blocks[0].pointer, "/attributes/gen_ai.input.messages/0/parts/0");
        assert_eq!(r.session_id.as_deref(), Some("conv-1"));
    }

    #[test]
    fn requests_are_ordered_by_start_time_and_pretty_printed_records_are_gathered() {
        let m = |t: &str| format!(r#"[{{"role":"user","parts":[{{"type":"text","content":"{t}"}}]}}]"#);
        let late = otlp_span("t", "a", "300", vec![("gen_ai.input.messages", sv(&m("late")))]);
        let early = otlp_span("t", "b", "100", vec![("gen_ai.input.messages", sv(&m("early")))]);
        let text = format!("{}\n{}\n", serde_json::to_string_pretty(&late).unwrap(), early);
        let input = load_text(&text);
        let rs = requests(&input);
        assert_eq!(rs.len(), 2);
        assert_eq!(&*rs[0].messages[0].blocks[0].text, "early");
        assert_eq!(rs[0].index, 0);
        let lines = serde_json::to_string_pretty(&late).unwrap().lines().count() as u32;
        assert_eq!(rs[0].line, Some(lines + 1));
        // The pretty-printed record: the line of its input attribute's value.
        let want =
            serde_json::to_string_pretty(&late).unwrap().lines().position(|l| l.contains("stringValue")).unwrap();
        assert_eq!(rs[1].line, Some(want as u32 + 1));
        assert!(input.bad_lines.is_empty());
    }

    #[test]
    fn hostile_records_are_bad_lines_or_skipped_never_a_panic() {
        let deep = "[".repeat(100_000);
        let huge = format!("{{\"resourceSpans\":[{{\"x\":\"{}\"}}]}}", "y".repeat(3 << 20));
        let wrong = r#"{"resourceSpans":{"a":1}}"#;
        let wrong2 = r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[1,{\"role\":5},{\"role\":\"user\",\"parts\":7}]"}},{"key":7}]}]}]}]}"#;
        let wrong3 = r#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"gen_ai.user.message","body":{"kvlistValue":{"values":"x"}}},{"eventName":"gen_ai.tool.message","attributes":5,"body":null}]}]}]}"#;
        let deep_string = format!(
            r#"{{"type":"span","traceId":"t","spanId":"s","attributes":{{"gen_ai.input.messages":"{}"}}}}"#,
            "[".repeat(10_000)
        );
        let torn = r#"{"resourceSpans":[{"scopeSpans""#;
        let text = [deep.as_str(), &huge, wrong, wrong2, wrong3, &deep_string, "not json", torn].join("\n");
        let input = load_text(&text);
        // Too deep (line 1), not JSON (7), and a record the file ends inside (8);
        // the rest is read.
        let bad: Vec<u32> = input.bad_lines.iter().map(|b| b.line).collect();
        assert_eq!(bad, [1, 7, 8]);
        let rs = requests(&input);
        let got: Vec<(Option<u32>, Vec<Role>)> =
            rs.iter().map(|r| (r.line, r.messages.iter().map(|m| m.role).collect())).collect();
        // Line 4: only the message with a string role and a parts list that is no
        // list (no blocks); line 5: the two per-message events (empty bodies);
        // line 6: an input that is no JSON array (no messages).
        assert_eq!(
            got,
            [(Some(4), vec![Role::User]), (Some(5), vec![Role::User]), (Some(5), vec![Role::Tool]), (Some(6), vec![])]
        );
        assert!(rs.iter().flat_map(|r| &r.messages).all(|m| m.blocks.is_empty()));
        // A record left open at the end is reported at its first line.
        let input = load_text("{\"resourceSpans\": [\n");
        assert_eq!(input.bad_lines.len(), 1);
        assert_eq!(input.bad_lines[0].line, 1);
    }

    #[test]
    fn a_torn_line_is_one_bad_line_and_the_records_after_it_are_read() {
        let m = r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#;
        let a = otlp_span("t", "a", "1", vec![("gen_ai.input.messages", sv(m))]);
        let b = otlp_span("t", "b", "2", vec![("gen_ai.input.messages", sv(m))]);
        let torn = r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x"#;
        let input = load_text(&format!("{a}\n{torn}\n{b}\n"));
        let bad: Vec<(u32, u64)> = input.bad_lines.iter().map(|b| (b.line, b.offset)).collect();
        assert_eq!(bad, [(2, a.to_string().len() as u64 + 1)]);
        let lines: Vec<Option<u32>> = requests(&input).iter().map(|r| r.line).collect();
        assert_eq!(lines, [Some(1), Some(3)]);
    }

    #[test]
    fn spans_without_content_are_counted_and_said_once() {
        let a = otlp_span("t", "a", "1", vec![("gen_ai.operation.name", sv("chat"))]);
        let b = otlp_span("t", "b", "2", vec![("gen_ai.operation.name", sv("chat"))]);
        let input = load_text(&format!("{a}\n{b}\n"));
        assert!(requests(&input).is_empty());
        assert_eq!(input.skipped, 2);
        assert_eq!(input.unread.len(), 1);
        assert!(input.unread[0].what.starts_with("2 inference span(s)"), "{}", input.unread[0].what);
    }

    #[test]
    fn sniffing_accepts_exports_and_genai_dumps_only() {
        assert!(sniff(&json!({"resourceSpans": []})));
        assert!(sniff(&json!({"resourceLogs": []})));
        assert!(sniff(
            &json!({"name":"chat","context":{"trace_id":"0x1","span_id":"0x2"},"attributes":{"gen_ai.input.messages":"[]"}})
        ));
        assert!(!sniff(&json!({"name":"GET","context":{"trace_id":"0x1"},"attributes":{"http.method":"GET"}})));
        assert!(!sniff(&json!({"messages": []})));
        let two = format!(
            "{}\n{}",
            serde_json::to_string_pretty(&json!({"name":"x","context":{"trace_id":"0x1"},"attributes":{}})).unwrap(),
            serde_json::to_string_pretty(
                &json!({"name":"chat","context":{"trace_id":"0x1"},"attributes":{"gen_ai.operation.name":"chat"}})
            )
            .unwrap()
        );
        assert!(sniff_concatenated(two.as_bytes()));
        assert!(!sniff_concatenated(b"{\"a\":1}\n{\"b\":2}"));
    }
}
