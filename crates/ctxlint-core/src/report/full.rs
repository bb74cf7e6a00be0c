//! `full`: the human format (default on a terminal): `path:line:col: CODE
//! name: message`, an excerpt, related locations, a help line, then a summary.

use super::Out;
use crate::check_report::CheckReport;
use crate::{Finding, Severity};
use owo_colors::OwoColorize;
use std::fmt::Write as _;

/// Renders one finding.
pub fn finding(out: &mut String, f: &Finding, color: bool) {
    // Control characters in a file name are shown escaped, never sent to the terminal.
    let path = crate::escape::escape_controls(&f.path);
    let loc = match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
        (Some(l), None) => format!("{path}:{l}"),
        _ => path.into_owned(),
    };
    let sev = f.severity.as_str();
    // Ids, tool and model names quoted in a message come from the input.
    let esc = crate::escape::escape_controls;
    let message = esc(&f.message);
    if color {
        let code = match f.severity {
            Severity::Error => f.code.red().bold().to_string(),
            Severity::Warning => f.code.yellow().bold().to_string(),
        };
        let _ = writeln!(
            out,
            "{}: {} {} {}: {}",
            loc.bold(),
            code,
            f.rule.name().bold(),
            format!("[{sev}]").dimmed(),
            message
        );
    } else {
        let _ = writeln!(out, "{loc}: {} {} [{sev}]: {}", f.code, f.rule.name(), message);
    }
    let mut where_ = Vec::new();
    if let Some(id) = &f.session {
        where_.push(format!("session {}", esc(id)));
    }
    if !f.pointer.is_empty() {
        where_.push(format!("pointer {}", esc(&f.pointer)));
    }
    if let Some(r) = f.request {
        let unit = if crate::formats::is_transcript(f.format) { "step" } else { "request" };
        where_.push(format!("{unit} {r}"));
    }
    if let Some(id) = &f.entry_id {
        where_.push(format!("entry {}", esc(id)));
    }
    if !where_.is_empty() {
        let s = where_.join(", ");
        let _ = writeln!(out, "   {} {}", if color { "at".dimmed().to_string() } else { "at".into() }, s);
    }
    if let Some(e) = super::excerpt(f) {
        let _ = writeln!(out, "    | {}", if color { e.cyan().to_string() } else { e });
    }
    for r in &f.related {
        let path = crate::escape::escape_controls(&r.path);
        let loc = match r.line {
            Some(l) => format!("{path}:{l}"),
            None => path.into_owned(),
        };
        let ptr = if r.pointer.is_empty() { String::new() } else { format!(" {}", esc(&r.pointer)) };
        let _ = writeln!(out, "    = {}: {loc}{ptr}", esc(&r.message));
    }
    if let Some(d) = &f.diff {
        for l in d.lines().take(40) {
            let _ = writeln!(out, "    {}", esc(l));
        }
    }
    if let Some(i) = &f.impact {
        let _ = writeln!(out, "    = impact: {}", super::impact::impact_words(i));
    }
    if let Some(h) = &f.help {
        let _ = writeln!(out, "    = {}: {h}", if color { "help".green().to_string() } else { "help".into() });
    }
    out.push('\n');
}

/// Why walked files were skipped, in a few words: `"no known format"`, or
/// counts per kind (`"2 no known format, 3 sidecar files, 1 unreadable"`).
/// The JSON output lists each file. A known format that is not supported yet
/// counts as no known format.
pub fn skipped_reasons(skipped: &[crate::inputs::Skipped]) -> String {
    let unknown = skipped.iter().filter(|s| s.reason.starts_with(crate::inputs::NO_FORMAT)).count();
    let sidecars = skipped.iter().filter(|s| crate::sidecars::is_sidecar_reason(&s.reason)).count();
    let other = skipped.len() - unknown - sidecars;
    let kinds = [(unknown, "no known format"), (sidecars, "sidecar files"), (other, "unreadable")];
    let present: Vec<_> = kinds.iter().filter(|(n, _)| *n > 0).collect();
    match present.as_slice() {
        [] => "no known format".into(),
        [(_, what)] => (*what).into(),
        _ => present.iter().map(|(n, what)| format!("{n} {what}")).collect::<Vec<_>>().join(", "),
    }
}

/// The summary line: findings, inputs checked, skipped (with why), and
/// inputs that could not be checked (their errors follow on stderr).
pub fn summary_line(r: &CheckReport, color: bool) -> String {
    let (findings, files) = (&r.findings, r.files.len());
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let warnings = findings.len() - errors;
    let mut tail = if r.skipped.is_empty() {
        String::new()
    } else {
        format!(", {} skipped ({})", r.skipped.len(), skipped_reasons(&r.skipped))
    };
    if !r.errors.is_empty() {
        let n = r.errors.len();
        tail.push_str(&format!(", {n} not checked (error{} below)", if n == 1 { "" } else { "s" }));
    }
    let more = r.unlisted_count();
    if more > 0 {
        tail.push_str(&format!("; {more} more not listed (see the warnings)"));
    }
    let s = if findings.is_empty() {
        format!("No findings in {files} input{}{tail}.", if files == 1 { "" } else { "s" })
    } else {
        format!(
            "Found {} finding{} ({errors} error{}, {warnings} warning{}) in {files} input{}{tail}.",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" },
            if files == 1 { "" } else { "s" }
        )
    };
    let clean = findings.is_empty() && r.errors.is_empty();
    if color { if clean { s.green().bold().to_string() } else { s.bold().to_string() } } else { s }
}

/// Renders a check report.
pub fn render(r: &CheckReport, color: bool) -> String {
    render_with(r, color, true)
}

/// Renders a check report; `summary` false (`--quiet`) leaves the summary line out.
pub fn render_with(r: &CheckReport, color: bool, summary: bool) -> String {
    super::to_string(|w| write(r, color, summary, w))
}

/// Writes a check report, finding by finding; `summary` false (`--quiet`)
/// leaves the summary line out.
pub fn write(r: &CheckReport, color: bool, summary: bool, w: Out<'_>) -> std::io::Result<()> {
    let mut buf = String::new();
    for f in &r.findings {
        buf.clear();
        finding(&mut buf, f, color);
        w.write_all(buf.as_bytes())?;
    }
    if summary {
        writeln!(w, "{}", summary_line(r, color))?;
        impact_lines(r, w)?;
    }
    Ok(())
}

/// The summary's impact lines ([`super::impact::Totals::lines`]): what the
/// findings cost, the recorded usage, the unexplained cache breaks.
pub fn impact_lines(r: &CheckReport, w: Out<'_>) -> std::io::Result<()> {
    for l in super::impact::Totals::of(r).lines() {
        writeln!(w, "{l}")?;
    }
    Ok(())
}
