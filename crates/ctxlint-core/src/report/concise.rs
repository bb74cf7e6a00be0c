//! `concise`: one line per finding, `path:line:col: CODE [severity] message`, then the summary.

use super::Out;
use crate::check_report::CheckReport;

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    render_with(r, true)
}

/// Renders a check report; `summary` false (`--quiet`) leaves the summary line out.
pub fn render_with(r: &CheckReport, summary: bool) -> String {
    super::to_string(|w| write(r, summary, w))
}

/// Writes a check report, one line per finding; `summary` false (`--quiet`)
/// leaves the summary line out.
pub fn write(r: &CheckReport, summary: bool, out: Out<'_>) -> std::io::Result<()> {
    for f in &r.findings {
        let path = crate::escape::escape_controls(&f.path);
        let loc = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
            (Some(l), None) => format!("{path}:{l}"),
            _ => path.into_owned(),
        };
        let ptr = if f.line.is_none() && !f.pointer.is_empty() {
            format!(" ({})", crate::escape::escape_controls(&f.pointer))
        } else {
            String::new()
        };
        writeln!(
            out,
            "{loc}: {} [{}] {}{ptr}",
            f.code,
            f.severity.as_str(),
            crate::escape::escape_controls(&crate::text::mask_cow(&f.message))
        )?;
    }
    if summary {
        writeln!(out, "{}", super::full::summary_line(r, false))?;
        super::full::impact_lines(r, out)?;
    }
    Ok(())
}
