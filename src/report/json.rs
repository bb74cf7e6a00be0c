//! `json`: one object, field for field as SPEC §4 defines it.

use crate::{CheckReport, Finding, Severity};
use rayon::prelude::*;
use serde_json::{Value, json};

/// One finding as a JSON value (excerpt masked and truncated).
pub fn finding_value(f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let (Value::Object(m), Some(e)) = (&mut v, super::excerpt(f)) {
        m.insert("excerpt".into(), Value::String(e));
    }
    v
}

/// The summary object.
pub fn summary(findings: &[Finding], files: usize, skipped: usize) -> Value {
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    json!({"files": files, "skipped": skipped, "findings": findings.len(), "errors": errors, "warnings": findings.len() - errors})
}

/// Renders a check report (pretty-printed, two-space indent). The findings,
/// which dominate a large report, are rendered in parallel and spliced in.
pub fn render(r: &CheckReport) -> String {
    const SLOT: &str = "\u{0}findings\u{0}";
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "findings": SLOT,
        "files": r.files,
        "skipped": r.skipped.iter().map(|s| json!({"path": s.path, "reason": s.reason})).collect::<Vec<_>>(),
        "summary": summary(&r.findings, r.files.len(), r.skipped.len()),
    });
    let head = serde_json::to_string_pretty(&v).unwrap_or_default();
    let findings: Vec<String> = r
        .findings
        .par_iter()
        .map(|f| {
            // Each finding sits at depth 2: indent its lines by four spaces
            // (JSON strings never hold a raw newline, so this is exact).
            let one = serde_json::to_string_pretty(&finding_value(f)).unwrap_or_default();
            format!("    {}", one.replace('\n', "\n    "))
        })
        .collect();
    let array = if findings.is_empty() { "[]".to_string() } else { format!("[\n{}\n  ]", findings.join(",\n")) };
    let slot = serde_json::to_string(SLOT).unwrap_or_default();
    let mut s = head.replacen(&slot, &array, 1);
    s.push('\n');
    s
}
