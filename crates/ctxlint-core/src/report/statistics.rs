//! `--statistics`: counts per rule, as a table (human formats), one JSON
//! object (`json`) or one JSON object per rule per line (`json-lines`).

use crate::check_report::CheckReport;
use crate::rule_id::RuleId;
use crate::{Finding, Severity, Unlisted};
use serde_json::{Value, json};

/// Counts of one rule's findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCount {
    /// The rule.
    pub rule: RuleId,
    /// Findings of that rule.
    pub count: usize,
    /// Of which errors (after configuration).
    pub errors: usize,
    /// Of which warnings.
    pub warnings: usize,
}

/// The rules that have findings, in code order, with their counts: the
/// findings listed and those counted but not listed (`unlisted`).
pub fn counts(findings: &[Finding], unlisted: &[Unlisted]) -> Vec<RuleCount> {
    let mut by_rule: Vec<RuleCount> =
        RuleId::ALL.iter().map(|&rule| RuleCount { rule, count: 0, errors: 0, warnings: 0 }).collect();
    let mut add = |rule: RuleId, severity: Severity, n: usize| {
        if let Some(c) = by_rule.iter_mut().find(|c| c.rule == rule) {
            c.count += n;
            match severity {
                Severity::Error => c.errors += n,
                Severity::Warning => c.warnings += n,
            }
        }
    };
    for f in findings {
        add(f.rule, f.severity, 1);
    }
    for u in unlisted {
        add(u.rule, u.severity, u.count);
    }
    by_rule.retain(|c| c.count > 0);
    by_rule
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The table, then (unless `summary` is false) the summary line.
pub fn table(r: &CheckReport, summary: bool) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED).set_header(vec!["count", "code", "rule", "severity"]);
    for c in counts(&r.findings, &r.unlisted) {
        let sev = match (c.errors, c.warnings) {
            (_, 0) => "error".to_string(),
            (0, _) => "warning".to_string(),
            (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
        };
        t.add_row(vec![c.count.to_string(), c.rule.code().to_string(), c.rule.name().to_string(), sev]);
    }
    super::term::fit(&mut t, &[0, 1, 2]);
    let mut out = format!("{t}\n");
    if summary {
        out.push_str(&super::term::wrap(&super::full::summary_line(r, false), 0));
        out.push('\n');
    }
    out
}

fn count_value(c: &RuleCount) -> Value {
    json!({"code": c.rule.code(), "count": c.count, "errors": c.errors, "warnings": c.warnings})
}

/// One JSON object: `statistics` maps each rule name with findings to its
/// code and counts; `summary` is the summary of the `json` format.
pub fn json(r: &CheckReport) -> String {
    let stats: serde_json::Map<String, Value> =
        counts(&r.findings, &r.unlisted).iter().map(|c| (c.rule.name().to_string(), count_value(c))).collect();
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "statistics": stats,
        "summary": super::json::summary(r),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// One JSON object per rule with findings, one per line: `rule` and the counts.
pub fn json_lines(r: &CheckReport) -> String {
    let mut out = String::new();
    for c in counts(&r.findings, &r.unlisted) {
        let mut v = json!({"rule": c.rule.name()});
        if let (Value::Object(m), Value::Object(rest)) = (&mut v, count_value(&c)) {
            m.extend(rest);
        }
        out.push_str(&serde_json::to_string(&v).unwrap_or_default());
        out.push('\n');
    }
    out
}
