//! `concise`: one line per finding, `path:line:col: CODE [severity] message`, then the summary.

use crate::CheckReport;

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    render_with(r, true)
}

/// Renders a check report; `summary` false (`--quiet`) leaves the summary line out.
pub fn render_with(r: &CheckReport, summary: bool) -> String {
    let mut out = String::new();
    for f in &r.findings {
        let path = crate::safety::escape_controls(&f.path);
        let loc = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
            (Some(l), None) => format!("{path}:{l}"),
            _ => path.into_owned(),
        };
        let ptr = if f.line.is_none() && !f.pointer.is_empty() { format!(" ({})", f.pointer) } else { String::new() };
        out.push_str(&format!(
            "{loc}: {} [{}] {}{ptr}\n",
            f.code,
            f.severity.as_str(),
            crate::text::mask_secrets(&f.message)
        ));
    }
    if summary {
        out.push_str(&super::full::summary_line(r, false));
        out.push('\n');
    }
    out
}
