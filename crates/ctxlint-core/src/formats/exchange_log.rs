//! `exchange-log`: JSONL of recorded exchanges, one `{"request": …,
//! "response": …}` per line, where `request` is a body or holds one under
//! `body` (claude-trace, claude-tap and similar proxies; see claude-tap's
//! `tests/fixtures/*.jsonl`), or one exchange saved as a whole JSON document
//! ([`load_document`]). A body may also be a JSON string. Lines whose
//! body matches no request format (token counting, model listing) are
//! skipped and counted; the request index counts them (docs/spec.md §1).
//!
//! A line's `request.headers` (an object of header names, in any case, to a
//! string or a list of strings: claude-tap's
//! `tests/fixtures/codex_ws_multi_response_trace.jsonl`, claude-trace's
//! `request.headers`) may name the client session: Claude Code sends
//! `X-Claude-Code-Session-Id` on every request, and `session_id` is the other
//! name proxies read (gproxy's session affinity reads both on Claude
//! Messages). It becomes [`Request::session_id`], over one read from the body.

use super::body::Field;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("exchange-log");

/// Loads an exchange log: JSONL, one exchange per line, or one exchange
/// saved as a whole (pretty-printed) JSON document ([`load_document`]).
pub fn load(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    if let Some(input) = load_document(src, opts)? {
        return Ok(input);
    }
    let path: Arc<str> = src.display.as_str().into();
    let mut acc = Acc { path, requests: Vec::new(), interner: Interner::default(), skipped: 0, unread: Vec::new() };
    let mut index = 0usize;
    let (bad_lines, _) = jsonl::read_lines(src, |line| {
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => return jsonl::LineVerdict::Malformed(jsonl::describe_json_error(&e)),
        };
        let i = index;
        index += acc.exchange(v, i, line.no);
        jsonl::LineVerdict::Ok
    })?;
    Ok(acc.finish(src, bad_lines.kept, bad_lines.more))
}

/// An exchange saved as one JSON document ([`is_exchange_document`]: a
/// pretty-printed `{"request": …, "response": …}`, one file per exchange —
/// the Datadog APM test agent's recordings, `tests/cassettes/<provider>/*.json`
/// in dd-trace-py, whose `request` holds `method`, `url`, `headers` and the
/// body as a JSON string —, or a `request` that is the body itself): read
/// as an exchange log of that one exchange, at the line of its
/// `request.body` (else of `request`). `None` when the input is not one
/// such document (JSONL is read line by line).
fn load_document(src: &SourceRef, _opts: &LoadOptions) -> Result<Option<Input>> {
    let head = src.peek(super::PEEK)?;
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let Some(start) = body.iter().position(|c| !c.is_ascii_whitespace()) else { return Ok(None) };
    let first = &body[start..];
    let first_line = first.split(|&c| c == b'\n').next().unwrap_or_default();
    // A first line that is a whole value is a JSONL record (or a one-line
    // document, which JSONL reads as its one line).
    if !first.starts_with(b"{") || serde_json::from_slice::<serde::de::IgnoredAny>(first_line).is_ok() {
        return Ok(None);
    }
    let bytes = src.read_all()?;
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else { return Ok(None) };
    if !is_exchange_document(&v) {
        return Ok(None);
    }
    let at = crate::locate::locate(&bytes, "/request/body").or_else(|| crate::locate::locate(&bytes, "/request"));
    let line = at.map_or(1, |k| memchr::memchr_iter(b'\n', &bytes[..k]).count() as u32 + 1);
    let path: Arc<str> = src.display.as_str().into();
    let mut acc = Acc { path, requests: Vec::new(), interner: Interner::default(), skipped: 0, unread: Vec::new() };
    acc.exchange(v, 0, line);
    Ok(Some(acc.finish(src, Vec::new(), 0)))
}

/// Whether a whole JSON document is one recorded exchange: a `request`
/// object that holds a `body` and the call's `method`, `url`, `uri` or
/// `path`, beside a `response`; or a `request` that is itself a request
/// body (UI-TARS / Tarko's agent snapshots, `loop-N/llm-request.jsonl`:
/// `{provider, request: <OpenAI Chat body>, baseURL}` pretty-printed,
/// bytedance/UI-TARS-desktop `multimodal/tarko/agent-snapshot`).
pub fn is_exchange_document(v: &Value) -> bool {
    let Some(req) = v.field("request").and_then(Value::as_object) else { return false };
    let http = v.field("response").is_some()
        && req.contains_key("body")
        && ["method", "url", "uri", "path"].iter().any(|k| req.get(*k).is_some_and(Value::is_string));
    http || super::sniff_body(&v["request"]).is_some_and(|f| f != super::pydantic_ai::ID)
}

/// The requests read so far, with what was skipped or could not be read.
struct Acc {
    path: Arc<str>,
    requests: Vec<Request>,
    interner: Interner,
    skipped: usize,
    unread: Vec<Unread>,
}

impl Acc {
    /// Reads exchange `v`, its body at 1-based `line`, as request `i` (and
    /// on, for a WebSocket exchange of several requests: [`Acc::ws_frames`]).
    /// Returns how many request indices it took (at least 1).
    fn exchange(&mut self, v: Value, i: usize, line: u32) -> usize {
        if let Some(n) = self.ws_frames(&v, i, line) {
            return n;
        }
        self.http(v, i, line);
        1
    }

    /// The requests of a WebSocket exchange, as claude-tap records Codex over
    /// the Responses WebSocket (liaohch3/claude-tap `claude_tap/ws_proxy.py`,
    /// `_build_ws_record`): every client frame is kept in `request.ws_events`,
    /// and `request.body` is those frames merged into one
    /// (`_reconstruct_ws_request_body`: their `input` and `tools` lists joined,
    /// the other keys from the later frames), a body that was never sent.
    /// Each `response.create` frame is one request, in order, at
    /// `/request/ws_events/<k>` (a `generate: false` frame too: it sent its
    /// context to warm the prompt cache, and the next frame chains to it by
    /// `previous_response_id`); the server's events in `response.ws_events`
    /// give each its response when there is one per frame (the n-th
    /// `response.completed`, `response.failed` or `response.incomplete`).
    /// `None` when `request.ws_events` holds no `response.create` frame.
    fn ws_frames(&mut self, v: &Value, i: usize, line: u32) -> Option<usize> {
        let req = v.field("request")?;
        let frames = req.field("ws_events")?.as_array()?;
        let kind = |e: &Value| e.field("type").and_then(Value::as_str).map(str::to_string);
        let creates: Vec<(usize, &Value)> =
            frames.iter().enumerate().filter(|(_, f)| kind(f).as_deref() == Some("response.create")).collect();
        if creates.is_empty() {
            return None;
        }
        let events = v.field("response").and_then(|r| r.field("ws_events")).and_then(Value::as_array);
        let ends: Vec<&Value> = events
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter(|e| {
                matches!(kind(e).as_deref(), Some("response.completed" | "response.failed" | "response.incomplete"))
            })
            .collect();
        for (n, &(k, frame)) in creates.iter().enumerate() {
            let ptr = format!("/request/ws_events/{k}");
            let parsed = super::sniff_body(frame)
                .filter(|f| *f != super::pydantic_ai::ID)
                .and_then(|format| super::parse_body(format, frame, &self.path, i + n, &ptr));
            let Some(r) = parsed else {
                self.skipped += 1;
                continue;
            };
            let (facts, failed) = match ends.get(n).filter(|_| ends.len() == creates.len()) {
                Some(end) => (
                    super::usage::Response::of_value(end.field("response").unwrap_or(&Value::Null)),
                    kind(end).as_deref() == Some("response.failed"),
                ),
                None => Default::default(),
            };
            let id = facts.id.clone();
            self.keep(r, v, line, id, facts, failed);
        }
        Some(creates.len())
    }

    /// Keeps request `r` of exchange `v` (its body at 1-based `line`) with
    /// what the exchange records around it (endpoint, client session, time)
    /// and what its response says: its id, `facts`, whether it `failed`.
    fn keep(
        &mut self,
        mut r: Request,
        v: &Value,
        line: u32,
        response_id: Option<Box<str>>,
        facts: super::usage::Response,
        failed: bool,
    ) {
        let req = &v["request"];
        r.line = Some(line);
        r.endpoint = endpoint(req);
        if let Some(id) = session_header(req.field("headers")) {
            r.session_id = Some(id.into());
        }
        if failed {
            r.outcome = Some(Outcome::Failed);
        }
        r.response_id = response_id;
        r.usage = facts.usage;
        if facts.model.is_some() {
            r.model = facts.model;
        }
        r.reply = facts.reply.known();
        r.time = sent_at(req, v);
        self.interner.request(&mut r);
        self.requests.push(r);
    }

    /// Reads HTTP exchange `i` (`v`), its body at 1-based `line`.
    fn http(&mut self, mut v: Value, i: usize, line: u32) {
        if v.field("request").is_none() {
            self.skipped += 1;
            return;
        }
        // The body is taken out of the line's value (nothing after reads it
        // there), not copied: a copy of every body was a sixth of the load.
        let taken = v.get_mut("request").and_then(Value::as_object_mut).and_then(|o| o.remove("body"));
        let req = &v["request"];
        let (body, ptr) = match &taken {
            Some(b) => (b, "/request/body"),
            None => (req, "/request"),
        };
        let parsed;
        let body = match body {
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(_) => {
                    self.skipped += 1;
                    // Text that starts like JSON and does not parse; a form or
                    // multipart body is simply not a JSON model call.
                    if matches!(s.trim_start().as_bytes().first(), Some(b'{' | b'[')) && !super::body::is_ndjson(s) {
                        let what = super::body::unparsed_json(s);
                        self.unread.push(Unread { line: Some(line), pointer: ptr.to_string(), what });
                    }
                    return;
                }
            },
            b => b,
        };
        let Some(format) = super::har::body_format(endpoint(req).as_deref().unwrap_or(""), body) else {
            self.skipped += 1;
            return;
        };
        let Some(r) = super::parse_body(format, body, &self.path, i, ptr) else {
            self.skipped += 1;
            return;
        };
        let resp = v.field("response");
        let failed = super::body::response_failed(resp);
        let id = resp
            .and_then(|r| r.field("body").and_then(|b| b.field("id")).or_else(|| r.field("id")))
            .and_then(Value::as_str)
            .map(Into::into);
        let facts = resp.map(response_facts).unwrap_or_default();
        self.keep(r, &v, line, id, facts, failed);
    }

    fn finish(self, src: &SourceRef, bad_lines: Vec<BadLine>, more_bad_lines: usize) -> Input {
        Input {
            path: src.display.clone(),
            format: ID,
            body: Body::Stream(Stream { requests: self.requests }),
            bad_lines,
            more_bad_lines,
            skipped: self.skipped,
            unknown_records: 0,
            unread: self.unread,
        }
    }
}

/// The path a recorded request was sent to (`path`, else `url` without
/// its scheme, host and query).
fn endpoint(req: &Value) -> Option<Box<str>> {
    req.field("path").or_else(|| req.field("url")).and_then(Value::as_str).map(|u| {
        let p = u.split('?').next().unwrap_or(u);
        let p = p
            .find("://")
            .map(|k| &p[k + 3..])
            .map(|rest| rest.find('/').map(|s| &rest[s..]).unwrap_or("/"))
            .unwrap_or(p);
        p.into()
    })
}

/// Request header names that carry a client session id, lower case.
pub const SESSION_HEADERS: &[&str] = &["x-claude-code-session-id", "session_id"];

/// The session id among recorded request headers (names case-insensitive; a
/// value may be a string or a list of strings, the first non-empty one counts).
fn session_header(headers: Option<&Value>) -> Option<&str> {
    let h = headers?.as_object()?;
    SESSION_HEADERS.iter().find_map(|want| {
        h.iter().filter(|(k, _)| k.eq_ignore_ascii_case(want)).find_map(|(_, v)| {
            let s = match v {
                Value::String(s) => Some(s.as_str()),
                Value::Array(a) => a.iter().filter_map(Value::as_str).find(|s| !s.trim().is_empty()),
                _ => None,
            }?;
            Some(s.trim()).filter(|s| !s.is_empty())
        })
    })
}

/// An exchange-log line: an object with a `request` object.
pub fn is_exchange(v: &Value) -> bool {
    v.field("request").is_some_and(Value::is_object)
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Jsonl,
    detect: Detect {
        record: Some(Sniffer { rank: 6, test: is_exchange }),
        document: Some(Sniffer { rank: 6, test: is_exchange_document }),
        ..Detect::NONE
    },
    fit: Fit::Records {
        test: is_exchange,
        missing: "no line has a `request` object",
        document: Some(is_exchange_document),
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: None,
    repro: Repro { name: "exchanges.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[],
    about: About {
        what: "JSONL of recorded {request, response} exchanges (claude-trace, claude-tap and similar proxies), or one exchange saved as a JSON document",
        kind: "stream of requests",
        location: "claude-trace: .claude-trace/log-*.jsonl in the project",
    },
};

/// The usage and model of a recorded response ([`super::usage`]): its `body`
/// (a JSON object, or a JSON or `data:` event text), else claude-trace's
/// `body_raw` (the streamed text).
fn response_facts(resp: &Value) -> super::usage::Response {
    use super::usage::Response;
    match resp.field("body") {
        Some(b @ Value::Object(_)) => Response::of_value(b),
        Some(Value::String(t)) => Response::of_text(t),
        _ => resp.field("body_raw").and_then(Value::as_str).map(Response::of_text).unwrap_or_default(),
    }
}

/// When the request was sent, in seconds since the Unix epoch: claude-trace's
/// `request.timestamp` (seconds, a number), else the line's `logged_at` or
/// `timestamp` (RFC 3339); 0 when none is recorded.
fn sent_at(req: &Value, line: &Value) -> u32 {
    if let Some(t) = req.field("timestamp").and_then(Value::as_f64).filter(|t| t.is_finite() && *t > 0.0) {
        // Milliseconds when too large to be seconds.
        let secs = if t > 1e11 { t / 1000.0 } else { t };
        return secs.min(u32::MAX as f64) as u32;
    }
    ["logged_at", "timestamp"]
        .iter()
        .find_map(|k| line.get(*k).and_then(Value::as_str))
        .map_or(0, crate::model::parse_time)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_websocket_response_create_frame_is_a_request_with_its_response() {
        let frame = |prev: Option<&str>, text: &str| {
            let mut f = json!({"type": "response.create", "model": "gpt-5", "instructions": "I",
                "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]});
            if let Some(p) = prev {
                f["previous_response_id"] = json!(p);
            }
            f
        };
        let done = |id: &str| json!({"type": "response.completed", "response": {"id": id, "output": []}});
        let line = json!({"transport": "websocket", "request": {"path": "/v1/responses", "headers": {"session_id": "s"},
            "body": frame(Some("r1"), "merged, never sent"),
            "ws_events": [frame(None, "a"), {"type": "session.update"}, frame(Some("r1"), "b")]},
            "response": {"status": 101, "ws_events": [{"type": "response.created", "response": {"id": "r1"}}, done("r1"), done("r2")]}});
        let plain = json!({"request": {"path": "/v1/responses", "body": frame(None, "c")}});
        let input = crate::formats::load_str_for_test(load, "t.jsonl", &format!("{line}\n{plain}\n"));
        let Body::Stream(s) = &input.body else { panic!("a stream") };
        let got: Vec<(usize, &str, Option<&str>, Option<&str>)> = s
            .requests
            .iter()
            .map(|r| (r.index, r.pointer.as_str(), r.response_id.as_deref(), r.session_id.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (0, "/request/ws_events/0", Some("r1"), Some("s")),
                (1, "/request/ws_events/2", Some("r2"), Some("s")),
                (2, "/request/body", None, None),
            ]
        );
        assert_eq!(s.requests[1].endpoint.as_deref(), Some("/v1/responses"));
    }

    #[test]
    fn session_header_is_read_case_insensitively() {
        let h = json!({"User-Agent":"claude-cli/2.0.14","X-Claude-Code-Session-Id":"s-1"});
        assert_eq!(session_header(Some(&h)), Some("s-1"));
        assert_eq!(session_header(Some(&json!({"session_id":["", "s-2"]}))), Some("s-2"));
        assert_eq!(session_header(Some(&json!({"x-claude-code-session-id":"  "}))), None);
        assert_eq!(session_header(Some(&json!({"authorization":"Bearer x"}))), None);
        assert_eq!(session_header(Some(&json!("x"))), None);
        assert_eq!(session_header(None), None);
    }
}
