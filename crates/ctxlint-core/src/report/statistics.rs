//! `--statistics`: counts per rule, as a table (human formats), one JSON
//! object (`json`) or one JSON object per rule per line (`json-lines`).

use crate::check_report::CheckReport;
use crate::rule_id::RuleId;
use crate::{Finding, Severity, Unlisted};
use serde_json::{Value, json};

/// Counts of one rule's findings.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleCount {
    /// The rule.
    pub rule: RuleId,
    /// Findings of that rule.
    pub count: usize,
    /// Of which errors (after configuration).
    pub errors: usize,
    /// Of which warnings.
    pub warnings: usize,
    /// Tokens attributable to them (their impacts summed).
    pub tokens: u64,
    /// Estimated cost attributable to them in USD.
    pub cost_usd: f64,
    /// Whether any of them has a cost (else the cost is not known).
    pub priced: bool,
}

/// The rules that have findings, in code order, with their counts: the
/// findings listed and those counted but not listed (`unlisted`).
pub fn counts(findings: &[Finding], unlisted: &[Unlisted]) -> Vec<RuleCount> {
    let mut by_rule: Vec<RuleCount> = RuleId::ALL
        .iter()
        .map(|&rule| RuleCount { rule, count: 0, errors: 0, warnings: 0, tokens: 0, cost_usd: 0.0, priced: false })
        .collect();
    let mut add = |rule: RuleId, severity: Severity, n: usize, impact: Option<&crate::impact::Impact>| {
        if let Some(c) = by_rule.iter_mut().find(|c| c.rule == rule) {
            if let Some(i) = impact {
                c.tokens += i.tokens;
                c.cost_usd += i.cost_usd.unwrap_or(0.0);
                c.priced |= i.cost_usd.is_some();
            }
            c.count += n;
            match severity {
                Severity::Error => c.errors += n,
                Severity::Warning => c.warnings += n,
            }
        }
    };
    for f in findings {
        add(f.rule, f.severity, 1, f.impact.as_ref());
    }
    for u in unlisted {
        add(u.rule, u.severity, u.count, None);
    }
    by_rule.retain(|c| c.count > 0);
    by_rule
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The table, then (unless `summary` is false) the summary line.
/// With findings that have an impact, the table adds their tokens and cost
/// per rule, and a second table gives each input's figures (see [`inputs_table`]).
pub fn table(r: &CheckReport, summary: bool) -> String {
    let totals = super::impact::Totals::of(r);
    let costs = totals.findings > 0;
    let mut t = comfy_table::Table::new();
    let mut header = vec!["count", "code", "rule", "severity"];
    if costs {
        header.extend(["tokens", "cost"]);
    }
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED).set_header(header);
    for c in counts(&r.findings, &r.unlisted) {
        let sev = match (c.errors, c.warnings) {
            (_, 0) => "error".to_string(),
            (0, _) => "warning".to_string(),
            (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
        };
        let mut row = vec![c.count.to_string(), c.rule.code().to_string(), c.rule.name().to_string(), sev];
        if costs {
            let has = r.findings.iter().any(|f| f.rule == c.rule && f.impact.is_some());
            row.push(if has { format!("~{}", super::impact::thousands(c.tokens)) } else { "-".into() });
            row.push(if c.priced { format!("~{}", super::impact::usd(c.cost_usd)) } else { "-".into() });
        }
        t.add_row(row);
    }
    super::term::fit(&mut t, &[0, 1, 2]);
    let mut out = format!("{t}\n");
    if totals.any() {
        out.push_str(&inputs_table(r));
    }
    if summary {
        out.push_str(&super::term::wrap(&super::full::summary_line(r, false), 0));
        out.push('\n');
        for l in super::impact::Totals::of(r).lines() {
            out.push_str(&super::term::wrap(&l, 0));
            out.push('\n');
        }
    }
    out
}

/// The inputs with recorded usage or findings that have an impact, the
/// costliest first (at most 30 rows; the JSON report gives every one): the
/// findings' tokens and cost (`tokens`, `cost`), the recorded calls' cost
/// from the price table (`recorded`), the cache-read ratio and the
/// unexplained cache breaks (`breaks`).
pub fn inputs_table(r: &CheckReport) -> String {
    let mut t = comfy_table::Table::new();
    // Short headers: the table fits 80 columns with room for the paths.
    // tokens, cost: the findings'; recorded: the calls' cost at list prices;
    // breaks: unexplained cache breaks.
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED).set_header(vec![
        "input",
        "tokens",
        "cost",
        "recorded",
        "cache read",
        "breaks",
    ]);
    // The costliest inputs first (findings' cost, then the recorded cost), at most MAX_ROWS.
    const MAX_ROWS: usize = 30;
    let cost = |f: &crate::check_report::FileSummary| {
        (f.impact.and_then(|i| i.cost_usd).unwrap_or(0.0), f.usage.as_ref().and_then(|u| u.cost_usd).unwrap_or(0.0))
    };
    let mut files: Vec<&crate::check_report::FileSummary> =
        r.files.iter().filter(|f| f.usage.is_some() || f.impact.is_some()).collect();
    files.sort_by(|a, b| {
        let (x, y) = (cost(a), cost(b));
        y.0.total_cmp(&x.0).then(y.1.total_cmp(&x.1))
    });
    let more = files.len().saturating_sub(MAX_ROWS);
    files.truncate(MAX_ROWS);
    let mut rows = 0;
    for f in files {
        rows += 1;
        let dash = || "-".to_string();
        let (tokens, cost) = f.impact.map_or((dash(), dash()), |i| {
            (
                format!("~{}", super::impact::thousands(i.tokens)),
                i.cost_usd.map_or_else(dash, |c| format!("~{}", super::impact::usd(c))),
            )
        });
        let u = f.usage.as_ref();
        t.add_row(vec![
            crate::escape::escape_controls(&crate::text::mask_path(&f.path)).into_owned(),
            tokens,
            cost,
            u.and_then(|u| u.cost_usd).map_or_else(dash, |c| format!("~{}", super::impact::usd(c))),
            u.and_then(|u| u.cache_read_ratio).map_or_else(dash, |x| format!("{:.1} %", x * 100.0)),
            u.map_or_else(dash, |u| u.unexplained_cache_breaks.len().to_string()),
        ]);
    }
    if rows == 0 {
        return String::new();
    }
    super::term::fit(&mut t, &[1, 2, 3, 4, 5]);
    let tail = if more > 0 {
        format!("… and {} more input{} (the JSON report gives every one)\n", more, if more == 1 { "" } else { "s" })
    } else {
        String::new()
    };
    format!("{t}\n{tail}")
}

fn count_value(c: &RuleCount) -> Value {
    let mut v = json!({"code": c.rule.code(), "count": c.count, "errors": c.errors, "warnings": c.warnings});
    if let Value::Object(m) = &mut v {
        m.insert("tokens".into(), json!(c.tokens));
        m.insert("cost_usd".into(), if c.priced { json!((c.cost_usd * 1e6).round() / 1e6) } else { Value::Null });
    }
    v
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
