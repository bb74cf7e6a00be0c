//! `gitlab`: GitLab Code Quality report (a JSON array of issues with
//! `description`, `check_name`, `fingerprint`, `severity`, `location.path`,
//! `location.lines.begin`), as documented in GitLab's "Code Quality" docs.

use super::Out;
use crate::Severity;
use crate::check_report::CheckReport;
use serde_json::json;

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    super::to_string(|w| write(r, w))
}

/// Writes a check report: the array is written issue by issue, never built
/// whole. Findings counted but not listed are one issue per input and rule.
pub fn write(r: &CheckReport, out: Out<'_>) -> std::io::Result<()> {
    enum Item<'a> {
        Finding(&'a crate::Finding),
        Unlisted(&'a crate::Unlisted),
    }
    let severity = |s: Severity| match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
    };
    let items: Vec<Item<'_>> =
        r.findings.iter().map(Item::Finding).chain(r.unlisted.iter().map(Item::Unlisted)).collect();
    super::json::write_array(out, &items, 2, |item| match item {
        Item::Finding(f) => json!({
            "description": format!("{} {}: {}", f.code, f.rule.name(), crate::text::mask_cow(&f.message)),
            "check_name": f.rule.name(),
            "fingerprint": f.fingerprint,
            "severity": severity(f.severity),
            "location": {"path": f.path, "lines": {"begin": f.line.unwrap_or(1)}},
        }),
        Item::Unlisted(u) => json!({
            "description": super::unlisted_message(u),
            "check_name": u.rule.name(),
            "fingerprint": format!("{:016x}", crate::hash::hash_str(&format!("unlisted\u{0}{}\u{0}{}", u.rule.name(), u.path))),
            "severity": severity(u.severity),
            "location": {"path": u.path, "lines": {"begin": 1}},
        }),
    })?;
    out.write_all(b"\n")
}
