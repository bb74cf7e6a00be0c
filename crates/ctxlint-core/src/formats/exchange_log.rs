//! `exchange-log`: JSONL of recorded exchanges, one `{"request": …,
//! "response": …}` per line, where `request` is a body or holds one under
//! `body` (claude-trace, claude-tap and similar proxies; see claude-tap's
//! `tests/fixtures/*.jsonl`). A body may also be a JSON string. Lines whose
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

use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("exchange-log");

/// Loads an exchange log.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let path: Arc<str> = src.display.as_str().into();
    let mut requests = Vec::new();
    let mut interner = Interner::default();
    let mut skipped = 0;
    let mut unread = Vec::new();
    let mut index = 0usize;
    let (bad_lines, _) = jsonl::read_lines(src, |line| {
        let mut v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => return jsonl::LineVerdict::Malformed(jsonl::describe_json_error(&e)),
        };
        let i = index;
        index += 1;
        if v.get("request").is_none() {
            skipped += 1;
            return jsonl::LineVerdict::Ok;
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
                    skipped += 1;
                    // Text that starts like JSON and does not parse; a form or
                    // multipart body is simply not a JSON model call.
                    if matches!(s.trim_start().as_bytes().first(), Some(b'{' | b'[')) {
                        let what = super::body::unparsed_json(s);
                        unread.push(Unread { line: Some(line.no), pointer: ptr.to_string(), what });
                    }
                    return jsonl::LineVerdict::Ok;
                }
            },
            b => b,
        };
        let Some(format) = super::sniff_body(body).filter(|f| *f != super::pydantic_ai::ID) else {
            skipped += 1;
            return jsonl::LineVerdict::Ok;
        };
        if let Some(mut r) = super::parse_body(format, body, &path, i, ptr) {
            r.line = Some(line.no);
            r.endpoint = req.get("path").or_else(|| req.get("url")).and_then(Value::as_str).map(|u| {
                let p = u.split('?').next().unwrap_or(u);
                let p = p
                    .find("://")
                    .map(|k| &p[k + 3..])
                    .map(|rest| rest.find('/').map(|s| &rest[s..]).unwrap_or("/"))
                    .unwrap_or(p);
                p.into()
            });
            if let Some(id) = session_header(req.get("headers")) {
                r.session_id = Some(id.into());
            }
            let resp = v.get("response");
            if super::body::response_failed(resp) {
                r.outcome = Some(Outcome::Failed);
            }
            r.response_id = resp
                .and_then(|r| r.get("body").and_then(|b| b.get("id")).or_else(|| r.get("id")))
                .and_then(Value::as_str)
                .map(Into::into);
            let facts = resp.map(response_facts).unwrap_or_default();
            r.usage = facts.usage;
            if facts.model.is_some() {
                r.model = facts.model;
            }
            r.reply = facts.reply.known();
            r.time = sent_at(req, &v);
            interner.request(&mut r);
            requests.push(r);
        } else {
            skipped += 1;
        }
        jsonl::LineVerdict::Ok
    })?;
    Ok(Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests }),
        bad_lines: bad_lines.kept,
        more_bad_lines: bad_lines.more,
        skipped,
        unknown_records: 0,
        unread,
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
    v.get("request").is_some_and(Value::is_object)
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Jsonl,
    detect: Detect { record: Some(Sniffer { rank: 6, test: is_exchange }), ..Detect::NONE },
    fit: Fit::Records { test: is_exchange, missing: "no line has a `request` object", document: None },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: None,
    repro: Repro { name: "exchanges.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[],
    about: About {
        what: "JSONL of recorded {request, response} exchanges (claude-trace, claude-tap and similar proxies)",
        kind: "stream of requests",
        location: "claude-trace: .claude-trace/log-*.jsonl in the project",
    },
};

/// The usage and model of a recorded response ([`super::usage`]): its `body`
/// (a JSON object, or a JSON or `data:` event text), else claude-trace's
/// `body_raw` (the streamed text).
fn response_facts(resp: &Value) -> super::usage::Response {
    use super::usage::Response;
    match resp.get("body") {
        Some(b @ Value::Object(_)) => Response::of_value(b),
        Some(Value::String(t)) => Response::of_text(t),
        _ => resp.get("body_raw").and_then(Value::as_str).map(Response::of_text).unwrap_or_default(),
    }
}

/// When the request was sent, in seconds since the Unix epoch: claude-trace's
/// `request.timestamp` (seconds, a number), else the line's `logged_at` or
/// `timestamp` (RFC 3339); 0 when none is recorded.
fn sent_at(req: &Value, line: &Value) -> u32 {
    if let Some(t) = req.get("timestamp").and_then(Value::as_f64).filter(|t| t.is_finite() && *t > 0.0) {
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
