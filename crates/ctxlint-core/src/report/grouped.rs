//! `grouped`: findings under a heading per file (like ruff's `grouped`), each
//! finding one line `  line:col CODE name [severity] message` (the severity
//! as `full` shows it: ctxlint's rules have one each, and `--fail-on` acts on
//! it), then the summary.

use super::Out;
use crate::Severity;
use crate::check_report::CheckReport;
use owo_colors::OwoColorize;

/// Renders a check report; `summary` false (`--quiet`) leaves the summary out.
pub fn render(r: &CheckReport, color: bool, summary: bool) -> String {
    super::to_string(|w| write(r, color, summary, w))
}

/// Writes a check report, one line per finding under a heading per file;
/// `summary` false (`--quiet`) leaves the summary out.
pub fn write(r: &CheckReport, color: bool, summary: bool, out: Out<'_>) -> std::io::Result<()> {
    let mut current: Option<&str> = None;
    for f in &r.findings {
        if current != Some(f.path.as_str()) {
            if current.is_some() {
                writeln!(out)?;
            }
            let head = format!("{}:", crate::escape::escape_controls(&f.path));
            writeln!(out, "{}", if color { head.bold().underline().to_string() } else { head })?;
            current = Some(f.path.as_str());
        }
        let loc = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{l}:{c}"),
            (Some(l), None) => l.to_string(),
            _ => "-".into(),
        };
        let ptr = if f.line.is_none() && !f.pointer.is_empty() {
            format!(" ({})", crate::escape::escape_controls(&f.pointer))
        } else {
            String::new()
        };
        let msg = crate::escape::escape_controls(&crate::text::mask_secrets(&f.message)).into_owned();
        if color {
            let code = match f.severity {
                Severity::Error => f.code.red().bold().to_string(),
                Severity::Warning => f.code.yellow().bold().to_string(),
            };
            let sev = match f.severity {
                Severity::Error => "[error]".red().to_string(),
                Severity::Warning => "[warning]".yellow().to_string(),
            };
            writeln!(out, "  {} {code} {} {sev} {msg}{ptr}", loc.dimmed(), f.rule.name().bold())?;
        } else {
            writeln!(out, "  {loc} {} {} [{}] {msg}{ptr}", f.code, f.rule.name(), f.severity.as_str())?;
        }
    }
    if summary {
        if !r.findings.is_empty() {
            writeln!(out)?;
        }
        writeln!(out, "{}", super::full::summary_line(r, color))?;
        super::full::impact_lines(r, out)?;
    }
    Ok(())
}
