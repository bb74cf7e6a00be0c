//! `exchange-log`: JSONL of recorded exchanges, one `{"request": …,
//! "response": …}` per line, where `request` is a body or holds one under
//! `body` (claude-trace, claude-tap and similar proxies; see claude-tap's
//! `tests/fixtures/*.jsonl`). A body may also be a JSON string. Lines whose
//! body matches no request format (token counting, model listing) are
//! skipped and counted; the request index counts them (SPEC §1).

use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = "exchange-log";

/// Loads an exchange log.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let path: Arc<str> = src.display.as_str().into();
    let mut requests = Vec::new();
    let mut skipped = 0;
    let mut index = 0usize;
    let (bad_lines, _) = jsonl::read_lines(src, |line| {
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => return jsonl::LineVerdict::Malformed(jsonl::describe_json_error(&e)),
        };
        let i = index;
        index += 1;
        let Some(req) = v.get("request") else {
            skipped += 1;
            return jsonl::LineVerdict::Ok;
        };
        let (body, ptr) = match req.get("body") {
            Some(b) => (b.clone(), "/request/body"),
            None => (req.clone(), "/request"),
        };
        let body = match body {
            Value::String(s) => match serde_json::from_str::<Value>(&s) {
                Ok(v) => v,
                Err(_) => {
                    skipped += 1;
                    return jsonl::LineVerdict::Ok;
                }
            },
            b => b,
        };
        let Some(format) = super::sniff_body(&body).filter(|f| *f != "pydantic-ai-history") else {
            skipped += 1;
            return jsonl::LineVerdict::Ok;
        };
        if let Some(mut r) = super::parse_body(format, &body, &path, i, ptr) {
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
            let resp = v.get("response");
            r.response_id = resp
                .and_then(|r| r.get("body").and_then(|b| b.get("id")).or_else(|| r.get("id")))
                .and_then(Value::as_str)
                .map(Into::into);
            requests.push(r);
        }
        jsonl::LineVerdict::Ok
    })?;
    Ok(Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests }),
        bad_lines,
        skipped,
        unknown_records: 0,
    })
}
