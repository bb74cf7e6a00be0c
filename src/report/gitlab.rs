//! `gitlab`: GitLab Code Quality report (a JSON array of issues with
//! `description`, `check_name`, `fingerprint`, `severity`, `location.path`,
//! `location.lines.begin`), as documented in GitLab's "Code Quality" docs.

use crate::{CheckReport, Severity};
use serde_json::json;

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    let issues: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            json!({
                "description": format!("{} {}: {}", f.code, f.rule.name(), crate::text::mask_secrets(&f.message)),
                "check_name": f.rule.name(),
                "fingerprint": f.fingerprint,
                "severity": match f.severity { Severity::Error => "major", Severity::Warning => "minor" },
                "location": {"path": f.path, "lines": {"begin": f.line.unwrap_or(1)}},
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&issues).unwrap_or_default();
    s.push('\n');
    s
}
