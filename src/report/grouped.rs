//! `grouped`: findings under a heading per file (like ruff's `grouped`), each
//! finding one line `  line:col CODE name message`, then the summary.

use crate::{CheckReport, Severity};
use owo_colors::OwoColorize;
use std::fmt::Write;

/// Renders a check report; `summary` false (`--quiet`) leaves the summary out.
pub fn render(r: &CheckReport, color: bool, summary: bool) -> String {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for f in &r.findings {
        if current != Some(f.path.as_str()) {
            if current.is_some() {
                out.push('\n');
            }
            let head = format!("{}:", crate::safety::escape_controls(&f.path));
            let _ = writeln!(out, "{}", if color { head.bold().underline().to_string() } else { head });
            current = Some(f.path.as_str());
        }
        let loc = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{l}:{c}"),
            (Some(l), None) => l.to_string(),
            _ => "-".into(),
        };
        let ptr = if f.line.is_none() && !f.pointer.is_empty() { format!(" ({})", f.pointer) } else { String::new() };
        let msg = crate::text::mask_secrets(&f.message);
        if color {
            let code = match f.severity {
                Severity::Error => f.code.red().bold().to_string(),
                Severity::Warning => f.code.yellow().bold().to_string(),
            };
            let _ = writeln!(out, "  {} {code} {} {msg}{ptr}", loc.dimmed(), f.rule.name().bold());
        } else {
            let _ = writeln!(out, "  {loc} {} {} {msg}{ptr}", f.code, f.rule.name());
        }
    }
    if summary {
        if !r.findings.is_empty() {
            out.push('\n');
        }
        out.push_str(&super::full::summary_line(r, color));
        out.push('\n');
    }
    out
}
