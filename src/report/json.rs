//! `json`: one object, field for field as SPEC §4 defines it.

use crate::{CheckReport, Finding, Severity};
use rayon::prelude::*;
use serde_json::{Value, json};

/// One finding as a JSON value: the fields of [`Finding`], then `excerpt`
/// (masked and truncated; `null` when there is none), `help` (`null` when
/// none) and `url` (the rule's documentation).
pub fn finding_value(f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("excerpt".into(), super::excerpt(f).map_or(Value::Null, Value::String));
        m.insert("help".into(), f.help.as_deref().map_or(Value::Null, |h| Value::String(crate::text::mask_secrets(h))));
        m.insert("url".into(), Value::String(crate::rules::rule_url(f.rule)));
    }
    v
}

/// The summary object: inputs checked, skipped and not checked (`failed`),
/// findings, and findings by severity (`errors`, `warnings`).
pub fn summary(findings: &[Finding], files: usize, skipped: usize, failed: usize) -> Value {
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    json!({"files": files, "skipped": skipped, "failed": failed, "findings": findings.len(), "errors": errors, "warnings": findings.len() - errors})
}

/// The inputs that could not be checked: `[{"path", "error"}]` (the error
/// masked, as every message is).
pub fn failed(r: &CheckReport) -> Value {
    Value::Array(r.errors.iter().map(|f| json!({"path": f.path, "error": f.message()})).collect())
}

/// Renders a check report (pretty-printed, two-space indent). The findings,
/// which dominate a large report, are rendered in parallel and spliced in.
pub fn render(r: &CheckReport) -> String {
    const SLOT: &str = "\u{0}findings\u{0}";
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "findings": SLOT,
        "files": r.files,
        "skipped": r.skipped.iter().map(|s| json!({"path": s.path, "reason": s.reason})).collect::<Vec<_>>(),
        "failed": failed(r),
        "summary": summary(&r.findings, r.files.len(), r.skipped.len(), r.errors.len()),
    });
    let head = serde_json::to_string_pretty(&v).unwrap_or_default();
    let findings: Vec<Vec<u8>> = r
        .findings
        .par_iter()
        .map(|f| {
            // Each finding sits at depth 2: its lines are indented by four more
            // spaces (JSON strings never hold a raw newline, so this is exact).
            let mut w = Indented { out: b"    ".to_vec() };
            let _ = serde_json::to_writer_pretty(&mut w, &finding_value(f));
            w.out
        })
        .collect();
    let slot = serde_json::to_string(SLOT).unwrap_or_default();
    let (pre, post) = head.split_once(&slot).unwrap_or((&head, ""));
    let size = pre.len() + post.len() + findings.iter().map(|f| f.len() + 2).sum::<usize>() + 8;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(pre.as_bytes());
    if findings.is_empty() {
        out.extend_from_slice(b"[]");
    } else {
        out.extend_from_slice(b"[\n");
        for (i, f) in findings.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            out.extend_from_slice(f);
        }
        out.extend_from_slice(b"\n  ]");
    }
    out.extend_from_slice(post.as_bytes());
    out.push(b'\n');
    // Every piece is serde_json output: UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// A writer that indents every line after the first by four spaces.
struct Indented {
    out: Vec<u8>,
}

impl std::io::Write for Indented {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.out.extend_from_slice(&rest[..=i]);
            self.out.extend_from_slice(b"    ");
            rest = &rest[i + 1..];
        }
        self.out.extend_from_slice(rest);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule_id::RuleId;

    #[test]
    fn unknown_fields_are_null_never_absent() {
        let f = Finding::new(RuleId::DroppedSystemPrompt, "r.json", "openai-chat", "gone");
        let v = finding_value(&f);
        for k in ["line", "column", "byte_offset", "end_line", "end_column", "request", "entry_id", "excerpt", "help"] {
            assert_eq!(v.get(k), Some(&Value::Null), "{k}");
        }
        assert_eq!(v["pointer"], "");
        assert_eq!(v["url"], "https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md#dropped-system-prompt");
    }

    #[test]
    fn excerpt_and_help_are_masked() {
        let f = Finding::new(RuleId::DuplicateSystemPrompt, "r.json", "openai-chat", "twice")
            .excerpt("key sk-abcdefghijklmnopqrstuvwx here")
            .help("rotate sk-abcdefghijklmnopqrstuvwx");
        let v = finding_value(&f);
        assert_eq!(v["excerpt"], "key sk-a**** here");
        assert_eq!(v["help"], "rotate sk-a****");
    }
}
