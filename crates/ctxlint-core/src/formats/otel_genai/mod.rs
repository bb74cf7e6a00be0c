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
//!   writes them (one export per line) or as one whole document; also one
//!   element of `resourceSpans` / `resourceLogs` on its own (`{resource,
//!   scopeSpans, schemaUrl}`, as an OTLP receiver that dumps each one it is
//!   sent writes it, pretty-printed: pointers start at the element). `AnyValue` is
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
//! - an OpenInference LLM span with `llm.input_messages.*`;
//!
//! but not a span whose input holds the result of a tool call that its own
//! `gen_ai.output.messages` makes (and the input does not): it recorded a
//! step's additions, not the request sent (GitHub Copilot CLI 1.0.12's `chat`
//! spans), so neither it nor the other spans of its conversation are read;
//! they are counted and said once ([`Input::unread`]).
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

mod attrs;
mod calls;
mod gather;
mod messages;
mod records;

use super::LoadOptions;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use crate::error::Result;
use crate::model::*;
use crate::source::SourceRef;
use calls::State;
use gather::{Acc, Gathered, MAX_RECORD};
use records::{dump_ids, record};
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("otel-genai");

/// Whether a record (a JSONL line or a whole document) is OpenTelemetry data
/// this format reads: an OTLP/JSON export (`resourceSpans` or `resourceLogs`
/// array) or an SDK dump record carrying GenAI or OpenInference attributes,
/// or an array holding such records (Arize Phoenix's saved spans) among its
/// first 64 elements.
pub fn sniff(v: &Value) -> bool {
    match v {
        Value::Array(items) => items.iter().take(64).any(sniff_object),
        _ => sniff_object(v),
    }
}

fn sniff_object(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if o.get("resourceSpans").is_some_and(Value::is_array) || o.get("resourceLogs").is_some_and(Value::is_array) {
        return true;
    }
    if records::is_resource_spans(v) || records::is_resource_logs(v) {
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
    let (mut calls, mut skipped, mut interner) = st.into_parts();
    let (mut no_content, mut first_no_content) = (0, None);
    // A conversation one of whose spans recorded a step's delta (its input
    // answers its own output's tool calls) is not read at all: its other
    // spans recorded deltas too, though nothing shows it.
    let delta_conversations: foldhash::HashSet<Box<str>> =
        calls.iter().filter(|c| c.content && c.delta).filter_map(|c| c.req.session_id.clone()).collect();
    let (mut deltas, mut first_delta) = (0, None);
    // In place: the calls are the largest thing a trace holds (a 96 MB
    // trace's 39,000 were 21 MB), and a second vector of them doubled it.
    calls.retain_mut(|c| {
        if c.content && (c.delta || c.req.session_id.as_ref().is_some_and(|s| delta_conversations.contains(s))) {
            skipped += 1;
            deltas += 1;
            first_delta.get_or_insert((c.req.line.unwrap_or(1), c.req.pointer.clone()));
            false
        } else if c.content {
            interner.request(&mut c.req);
            true
        } else {
            // An inference call whose prompt content was not captured.
            skipped += 1;
            no_content += 1;
            first_no_content.get_or_insert((c.req.line.unwrap_or(1), c.req.pointer.clone()));
            false
        }
    });
    if calls.iter().all(|c| c.time.is_some()) {
        calls.sort_by_key(|c| c.time);
    }
    // (Collected in place: a request is a call without its bookkeeping.)
    let requests: Vec<Request> = calls
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
    if let Some((line, pointer)) = first_delta.filter(|_| deltas > 0) {
        unread.push(Unread {
            line: Some(line),
            pointer,
            what: format!(
                "{deltas} inference span(s) of {} conversation(s) whose spans record only what each step added, with the results of the span's own tool calls (as GitHub Copilot CLI's chat spans do), not the request that was sent, were not checked",
                delta_conversations.len()
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

/// The `--input-format otel-genai` fit: records may be pretty-printed over
/// several lines, so any line that is a record, or a head that begins with
/// one, or one whole document.
fn fits(src: &SourceRef) -> Result<Option<&'static str>> {
    let mut lr = src.lines()?;
    while let Some(l) = lr.next_line().map_err(|e| crate::error::Error::io(&src.display, e))? {
        let bytes = if l.no == 1 { l.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l.bytes) } else { l.bytes };
        if !l.too_long && serde_json::from_slice::<Value>(bytes).is_ok_and(|v| sniff(&v)) {
            return Ok(None);
        }
    }
    let head = src.peek(super::PEEK)?;
    if sniff_concatenated(&head) || serde_json::from_slice::<Value>(&src.read_all()?).is_ok_and(|v| sniff(&v)) {
        return Ok(None);
    }
    Ok(Some(
        "no record is an OTLP/JSON export (`resourceSpans` or `resourceLogs`) or a span or log record with `gen_ai.*` or `llm.*` attributes",
    ))
}

/// Where an `otel-genai` pointer lies in its record's line: the pointer cut
/// after a JSON-string attribute ([`located_pointer`]),
/// then, for the SDK dumps' plain attributes (a string holding JSON, a
/// pretty-printed record's partial line), cut segment by segment until it
/// resolves.
fn span(loc: &mut crate::locate::Locator<'_>, pointer: &str) -> Option<(usize, usize)> {
    let mut p = located_pointer(pointer);
    loop {
        if let Some(s) = loc.span(p) {
            return Some(s);
        }
        p = &p[..p.rfind('/')?];
    }
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Jsonl,
    detect: Detect {
        record: Some(Sniffer { rank: 7, test: sniff }),
        document: Some(Sniffer { rank: 1, test: sniff }),
        // Pretty-printed records one after another (the OpenTelemetry SDKs'
        // console and file exporters).
        concatenated: Some(sniff_concatenated),
        ..Detect::NONE
    },
    fit: Fit::Own(fits),
    read: Read::File(load),
    locate: Locate::Lines { span: Some(span), document: None },
    record: None,
    repro: Repro { name: "traces.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[],
    about: About {
        what: "OpenTelemetry GenAI traces and logs (semconv 1.37+ gen_ai.input.messages, operation-details events, v1.30 per-message events) as OTLP JSON or SDK JSON dumps; OpenInference spans",
        kind: "streams of requests",
        location: "the file exporter's or collector's output file",
    },
};

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
    fn a_span_whose_input_answers_its_own_calls_is_no_request_and_its_conversation_is_not_read() {
        let span = |id: &str, start: &str, conv: &str, input: &str, output: &str| {
            otlp_span(
                "ab01",
                id,
                start,
                vec![
                    ("gen_ai.operation.name", sv("chat")),
                    ("gen_ai.conversation.id", sv(conv)),
                    ("gen_ai.input.messages", sv(input)),
                    ("gen_ai.output.messages", sv(output)),
                ],
            )
        };
        let call =
            |id: &str| format!(r#"{{"role":"assistant","parts":[{{"type":"tool_call","id":"{id}","name":"ls"}}]}}"#);
        let result = |id: &str| {
            format!(r#"{{"role":"tool","parts":[{{"type":"tool_call_response","id":"{id}","response":"a"}}]}}"#)
        };
        let user = r#"{"role":"user","parts":[{"type":"text","content":"hi"}]}"#;
        let text = r#"[{"role":"assistant","parts":[{"type":"text","content":"done"}]}]"#;
        // Copilot CLI: the step's input holds the results of its own output's calls.
        let a = span("a1", "100", "copilot", &format!("[{user},{}]", result("t1")), &format!("[{}]", call("t1")));
        // Its next step says nothing of it, but is in the same conversation.
        let b = span("a2", "200", "copilot", &format!("[{user}]"), text);
        // An instrumentation that numbers calls per step: the history answers
        // call "0" and the output makes a call "0" again; a request.
        let c =
            span("b1", "300", "other", &format!("[{user},{},{}]", call("0"), result("0")), &format!("[{}]", call("0")));
        let input = load_text(&format!("{a}\n{b}\n{c}\n"));
        let rs = requests(&input);
        assert_eq!(rs.iter().map(|r| r.session_id.as_deref()).collect::<Vec<_>>(), [Some("other")]);
        assert_eq!(input.skipped, 2);
        assert_eq!(input.unread.len(), 1);
        assert_eq!(
            (input.unread[0].line, input.unread[0].pointer.as_str()),
            (Some(1), "/resourceSpans/0/scopeSpans/0/spans/0")
        );
        assert!(
            input.unread[0]
                .what
                .starts_with("2 inference span(s) of 1 conversation(s) whose spans record only what each step added"),
            "{}",
            input.unread[0].what
        );
    }

    #[test]
    fn a_bare_resource_spans_record_is_read_with_pointers_from_it() {
        let v = otlp_span(
            "ab01",
            "cd02",
            "100",
            vec![
                ("gen_ai.operation.name", sv("chat")),
                ("gen_ai.input.messages", sv(r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#)),
            ],
        );
        let bare = &v["resourceSpans"][0];
        assert!(sniff(bare));
        let input = load_text(&format!("{}\n", serde_json::to_string_pretty(bare).unwrap()));
        let rs = requests(&input);
        assert_eq!(rs.len(), 1);
        assert_eq!(rs[0].pointer, "/scopeSpans/0/spans/0");
        assert_eq!(&*rs[0].messages[0].pointer, "/scopeSpans/0/spans/0/attributes/1/value/stringValue/0");
        // (An object with `scopeSpans` but no `resource` is not taken for one.)
        assert!(!sniff(&json!({"scopeSpans": []})));
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
        // An array of span objects (Arize Phoenix), not any array.
        assert!(sniff(&json!([{"name":"agent","context":{"trace_id":"t","span_id":"a"},"attributes":{}},
                    {"name":"chat","context":{"trace_id":"t","span_id":"b"},"attributes":{"llm.model_name":"m"}}])));
        assert!(!sniff(&json!([{"role":"user","content":"hi"}])));
    }

    #[test]
    fn an_array_of_spans_is_read_span_by_span_with_pointers_at_their_index() {
        let doc = serde_json::to_string_pretty(&json!([
            {"name":"agent","context":{"trace_id":"t-1","span_id":"s-1"},"start_time":"2026-01-01T00:00:00+00:00",
             "status_code":"OK","attributes":{"openinference.span.kind":"AGENT"}},
            {"name":"ChatCompletion","context":{"trace_id":"t-1","span_id":"s-2"},"start_time":"2026-01-01T00:00:01+00:00",
             "status_code":"OK","attributes":{
                "llm.input_messages.0.message.role":"system","llm.input_messages.0.message.content":"Be brief.",
                "llm.input_messages.1.message.role":"user","llm.input_messages.1.message.content":"Hi?"}},
            {"name":"ChatCompletion","context":{"trace_id":"t-1","span_id":"s-3"},"start_time":"2026-01-01T00:00:02+00:00",
             "status_code":"ERROR","attributes":{
                "llm.input_messages.0.message.role":"user","llm.input_messages.0.message.content":"Hi?"}}
        ]))
        .unwrap();
        let input = load_text(&doc);
        let rs = requests(&input);
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].pointer, "/1");
        assert_eq!(rs[1].pointer, "/2");
        assert_eq!(rs[0].messages[0].pointer.as_ref(), "/1/attributes/llm.input_messages.0.message.role");
        // (Phoenix's `status_code` beside the span's fields.)
        assert_eq!(rs[1].outcome, Some(Outcome::PromptError));
        assert!(input.bad_lines.is_empty());
    }
}
