//! `json-lines`: one JSON object per finding per line (the finding objects of `json`).

use crate::CheckReport;

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    let mut out = String::new();
    for f in &r.findings {
        out.push_str(&serde_json::to_string(&super::json::finding_value(f)).unwrap_or_default());
        out.push('\n');
    }
    out
}
