//! `json`: one object, field for field as SPEC §4 defines it.

use crate::{CheckReport, Finding, Severity};
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

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "findings": r.findings.iter().map(finding_value).collect::<Vec<_>>(),
        "files": r.files,
        "skipped": r.skipped.iter().map(|s| json!({"path": s.path, "reason": s.reason})).collect::<Vec<_>>(),
        "summary": summary(&r.findings, r.files.len(), r.skipped.len()),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
