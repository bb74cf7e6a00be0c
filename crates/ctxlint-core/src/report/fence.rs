//! Rendering a [`FenceReport`] (`ctxlint fence`): `full` (verdict, a table of
//! the appended entries, the findings with the rewrite diff) and `json`
//! (docs/spec.md §4 plus the fence fields `verdict`, `old`, `new`, `first_difference`
//! and `appended`).

use crate::check_report::{CheckReport, FileSummary};
use crate::fence::FenceReport;
use comfy_table::{Cell, Color, ContentArrangement, Table, presets};
use owo_colors::OwoColorize;
use serde_json::json;
use std::fmt::Write;

/// Rows of the appended-entries table shown at most in `full`.
pub const MAX_ROWS: usize = 50;

/// The findings of a fence as a [`CheckReport`], for the formats that only
/// list findings (`concise`, `json-lines`, `github`, `sarif`, `junit`, `gitlab`).
pub fn as_check_report(r: &FenceReport) -> CheckReport {
    let format = r.format.unwrap_or(crate::model::FormatId::UNKNOWN);
    let file = |path: &str| FileSummary { path: path.to_string(), format, ..FileSummary::default() };
    CheckReport {
        findings: r.findings.clone(),
        files: r.old.path.iter().chain(&r.new.path).map(|p| file(p)).collect(),
        skipped: Vec::new(),
        errors: Vec::new(),
        ..Default::default()
    }
}

fn inputs(r: &FenceReport) -> usize {
    1 + usize::from(r.old.path.is_some())
}

/// The `json` output: one object.
pub fn json(r: &FenceReport) -> String {
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "verdict": r.verdict.as_str(),
        "format": r.format,
        "old": r.old,
        "new": r.new,
        "first_difference": r.first_difference,
        "appended": r.appended,
        "findings": r.findings.iter().map(super::json::finding_value).collect::<Vec<_>>(),
        "summary": super::json::summary_of(&r.findings, inputs(r), 0, 0, 0),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// The `full` output: the verdict, the appended entries, the findings and a summary.
pub fn full(r: &FenceReport, color: bool) -> String {
    let mut out = String::new();
    let old = match &r.old.path {
        Some(p) => format!("{} ({} bytes)", crate::escape::escape_controls(p), r.old.size),
        None => format!(
            "a fingerprint ({} bytes{})",
            r.old.size,
            r.old.sha256.as_deref().map(|h| format!(", sha256 {}", &h[..12.min(h.len())])).unwrap_or_default()
        ),
    };
    let new = format!("{} ({} bytes)", crate::escape::escape_controls(r.new.path.as_deref().unwrap_or("")), r.new.size);
    let format = r.format.map_or("unrecognised format", crate::model::FormatId::as_str);
    let _ = writeln!(out, "fence: {new} against {old}, {format}");
    let verdict = r.verdict.as_str();
    let verdict = if !color {
        verdict.to_string()
    } else if r.verdict.is_clean() {
        verdict.green().bold().to_string()
    } else {
        verdict.red().bold().to_string()
    };
    let _ = writeln!(out, "verdict: {verdict}: {}", r.verdict.describe());
    if let Some(d) = r.first_difference {
        let _ = writeln!(out, "first difference: byte {} (line {})", d.byte_offset, d.line);
    }
    if !r.appended.is_empty() {
        let _ = writeln!(out, "appended: {} line{}", r.appended.len(), if r.appended.len() == 1 { "" } else { "s" });
        out.push_str(&table(r, color));
        out.push('\n');
    }
    out.push('\n');
    for f in &r.findings {
        super::full::finding(&mut out, f, color);
    }
    let summary = super::full::summary_line(&as_check_report(r), color);
    out.push_str(&summary);
    out.push('\n');
    out
}

fn table(r: &FenceReport, color: bool) -> String {
    let mut t = Table::new();
    t.load_preset(if color { presets::UTF8_FULL_CONDENSED } else { presets::ASCII_MARKDOWN });
    t.set_content_arrangement(ContentArrangement::Dynamic);
    if !color {
        t.force_no_tty();
    } else {
        t.enforce_styling();
    }
    t.set_header(vec!["line", "type", "role", "id", "owned?", "problem"]);
    for e in r.appended.iter().take(MAX_ROWS) {
        let owned = if e.owned { Cell::new("yes") } else { Cell::new("no") };
        let owned = if color { owned.fg(if e.owned { Color::Green } else { Color::Red }) } else { owned };
        let problem = e.problem.as_deref().map(|p| crate::text::excerpt(p, 80)).unwrap_or_default();
        t.add_row(vec![
            Cell::new(e.line),
            Cell::new(e.kind.as_deref().map_or("-".into(), |k| crate::text::excerpt(k, 40))),
            Cell::new(e.role.as_deref().map_or("-".into(), |k| crate::text::excerpt(k, 40))),
            Cell::new(e.id.as_deref().map(|i| crate::text::excerpt(i, 40)).unwrap_or_else(|| "-".into())),
            owned,
            Cell::new(problem),
        ]);
    }
    let mut s = t.to_string();
    if r.appended.len() > MAX_ROWS {
        let _ = write!(s, "\n… and {} more appended lines", r.appended.len() - MAX_ROWS);
    }
    s
}
