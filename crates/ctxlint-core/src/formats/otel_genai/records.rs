//! One record of the file: the spans and log records of an OTLP/JSON export
//! (`resourceSpans`, `resourceLogs`), or one SDK dump record (a span or a
//! log record with plain JSON attributes), with its trace and span ids and
//! start time, handed on to the span and log readers.

use super::attrs::Enc;
use super::calls::{State, log, span};
use super::located_pointer;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The trace and span id of an SDK dump record (Copilot/JS `traceId`,
/// `_spanContext`/`spanContext`, Python `context.trace_id` or `trace_id`).
pub(super) fn dump_ids(o: &Map<String, Value>) -> Option<(String, String)> {
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

fn arr(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Reads one record (at 1-based `line`; `multi`: its bytes when it spans
/// several lines, to find the line of each span within it). A record that
/// is a JSON array holds records (Arize Phoenix saves a trace's spans as one
/// array of span objects): each is read at its index (`/3/attributes/…`).
pub(super) fn record(st: &mut State, path: &Arc<str>, v: &Value, line: u32, multi: Option<&[u8]>) {
    let line_of = |ptr: &str| -> u32 {
        match multi.and_then(|b| crate::locate::locate(b, located_pointer(ptr)).map(|at| (b, at))) {
            Some((b, at)) => line + memchr::memchr_iter(b'\n', &b[..at]).count() as u32,
            None => line,
        }
    };
    match v {
        // (Any other array is one record skipped, as before.)
        Value::Array(items) if super::sniff(v) => {
            for (i, x) in items.iter().enumerate() {
                record_at(st, path, x, &format!("/{i}"), &line_of);
            }
        }
        _ => record_at(st, path, v, "", &line_of),
    }
}

/// [`record`] of one value at pointer `at` in its record (`""`: the record).
fn record_at(st: &mut State, path: &Arc<str>, v: &Value, at: &str, line_of: &dyn Fn(&str) -> u32) {
    if v.get("resourceSpans").is_some() || v.get("resourceLogs").is_some() {
        for (i, rs) in arr(v.get("resourceSpans")).iter().enumerate() {
            resource_spans(st, path, rs, &format!("{at}/resourceSpans/{i}"), line_of);
        }
        for (i, rl) in arr(v.get("resourceLogs")).iter().enumerate() {
            resource_logs(st, path, rl, &format!("{at}/resourceLogs/{i}"), line_of);
        }
        return;
    }
    // One element of those arrays on its own (an OTLP receiver that dumps
    // each `ResourceSpans` it is sent: `{resource, scopeSpans, schemaUrl}`).
    if is_resource_spans(v) {
        resource_spans(st, path, v, at, line_of);
        return;
    }
    if is_resource_logs(v) {
        resource_logs(st, path, v, at, line_of);
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
        log(st, path, Enc::Plain, v, at, ids, event, time, line_of);
    } else {
        let name = o.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let time = nanos(o.get("startTime")).or_else(|| nanos(o.get("start_time")));
        // (Phoenix writes `status_code` beside the span's other fields.)
        let err = o.get("status").is_some_and(|s| {
            let c = s.get("code").or_else(|| s.get("status_code"));
            c.and_then(Value::as_i64) == Some(2) || c.and_then(Value::as_str).is_some_and(|c| c.ends_with("ERROR"))
        }) || o.get("status_code").and_then(Value::as_str).is_some_and(|c| c.ends_with("ERROR"));
        span(st, path, Enc::Plain, v, at, ids, name, time, err, line_of);
    }
}

/// Whether a value is one OTLP `ResourceSpans` (`scopeSpans`, or the older
/// `instrumentationLibrarySpans`, an array beside `resource`).
pub(super) fn is_resource_spans(v: &Value) -> bool {
    v.get("resource").is_some_and(Value::is_object)
        && ["scopeSpans", "instrumentationLibrarySpans"].iter().any(|k| v.get(*k).is_some_and(Value::is_array))
}

/// Whether a value is one OTLP `ResourceLogs` (`scopeLogs`, or the older
/// `instrumentationLibraryLogs`, an array beside `resource`).
pub(super) fn is_resource_logs(v: &Value) -> bool {
    v.get("resource").is_some_and(Value::is_object)
        && ["scopeLogs", "instrumentationLibraryLogs"].iter().any(|k| v.get(*k).is_some_and(Value::is_array))
}

/// The spans of one `ResourceSpans` at pointer `base`.
fn resource_spans(st: &mut State, path: &Arc<str>, rs: &Value, base: &str, line_of: &dyn Fn(&str) -> u32) {
    let scopes = rs.get("scopeSpans").or_else(|| rs.get("instrumentationLibrarySpans"));
    let sk = if rs.get("scopeSpans").is_some() { "scopeSpans" } else { "instrumentationLibrarySpans" };
    for (j, ss) in arr(scopes).iter().enumerate() {
        for (k, sp) in arr(ss.get("spans")).iter().enumerate() {
            let base = format!("{base}/{sk}/{j}/spans/{k}");
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
            span(st, path, Enc::Otlp, sp, &base, ids, name, time, ok, line_of);
        }
    }
}

/// The log records of one `ResourceLogs` at pointer `base`.
fn resource_logs(st: &mut State, path: &Arc<str>, rl: &Value, base: &str, line_of: &dyn Fn(&str) -> u32) {
    let scopes = rl.get("scopeLogs").or_else(|| rl.get("instrumentationLibraryLogs"));
    let sk = if rl.get("scopeLogs").is_some() { "scopeLogs" } else { "instrumentationLibraryLogs" };
    for (j, sl) in arr(scopes).iter().enumerate() {
        for (k, lr) in arr(sl.get("logRecords")).iter().enumerate() {
            let base = format!("{base}/{sk}/{j}/logRecords/{k}");
            let ids = (
                lr.get("traceId").and_then(Value::as_str).map(norm_id).unwrap_or_default(),
                lr.get("spanId").and_then(Value::as_str).map(norm_id).unwrap_or_default(),
            );
            let time =
                nanos(lr.get("timeUnixNano")).filter(|t| *t > 0).or_else(|| nanos(lr.get("observedTimeUnixNano")));
            let event = lr.get("eventName").and_then(Value::as_str).map(str::to_string);
            log(st, path, Enc::Otlp, lr, &base, ids, event, time, line_of);
        }
    }
}
