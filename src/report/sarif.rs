//! `sarif`: SARIF 2.1.0 as GitHub code scanning accepts it: `tool.driver.rules`
//! with descriptions and help, results with `ruleId`, `ruleIndex`, `level`,
//! a physical location with a region, and `partialFingerprints`.

use crate::rule_id::RuleId;
use crate::{CheckReport, Severity};
use serde_json::{Value, json};

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    let rules: Vec<Value> = RuleId::ALL
        .iter()
        .map(|rule| {
            let m = crate::rules::meta(*rule);
            json!({
                "id": m.code,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.summary},
                "help": {"text": crate::rules::docs(*rule), "markdown": crate::rules::docs(*rule)},
                "helpUri": format!("https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md#{}", m.name),
                "defaultConfiguration": {"level": level(m.default_severity)},
                "properties": {"tags": ["agent-context"]},
            })
        })
        .collect();
    let results: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let mut region = serde_json::Map::new();
            if let Some(l) = f.line {
                region.insert("startLine".into(), json!(l));
                if let Some(c) = f.column {
                    region.insert("startColumn".into(), json!(c));
                }
                if let (Some(el), Some(ec)) = (f.end_line, f.end_column) {
                    region.insert("endLine".into(), json!(el));
                    region.insert("endColumn".into(), json!(ec));
                }
            } else {
                region.insert("startLine".into(), json!(1));
            }
            if let Some(e) = super::excerpt(f) {
                region.insert("snippet".into(), json!({"text": e}));
            }
            let mut msg = crate::text::mask_secrets(&f.message);
            if !f.pointer.is_empty() {
                msg.push_str(&format!(" (at {})", f.pointer));
            }
            let related: Vec<Value> = f
                .related
                .iter()
                .enumerate()
                .map(|(i, rel)| {
                    json!({
                        "id": i,
                        "message": {"text": rel.message},
                        "physicalLocation": {"artifactLocation": {"uri": uri(&rel.path)}, "region": {"startLine": rel.line.unwrap_or(1)}},
                    })
                })
                .collect();
            json!({
                "ruleId": f.code,
                "ruleIndex": RuleId::ALL.iter().position(|x| *x == f.rule).unwrap_or(0),
                "level": level(f.severity),
                "message": {"text": msg},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&f.path)}, "region": Value::Object(region)}}],
                "relatedLocations": related,
                "partialFingerprints": {"ctxlintFingerprint/v1": f.fingerprint},
                "properties": {"pointer": f.pointer, "rule": f.rule.name()},
            })
        })
        .collect();
    let v = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ctxlint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/ctxlint/ctxlint",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A relative URI for a path (forward slashes, spaces and `%` escaped, no leading `./`).
fn uri(p: &str) -> String {
    let p = p.trim_start_matches("./").replace('\\', "/");
    p.replace('%', "%25").replace(' ', "%20")
}
