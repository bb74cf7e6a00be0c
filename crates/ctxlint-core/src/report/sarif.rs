//! `sarif`: SARIF 2.1.0 as GitHub code scanning accepts it: `tool.driver.rules`
//! with descriptions and help, results with `ruleId`, `ruleIndex`, `level`,
//! a physical location with a region, and `partialFingerprints`.

use super::Out;
use crate::Severity;
use crate::check_report::CheckReport;
use crate::rule_id::RuleId;
use serde_json::{Value, json};
use std::path::{Component, Path, PathBuf};

/// Renders a check report; relative URIs are relative to the working directory.
pub fn render(r: &CheckReport) -> String {
    super::to_string(|w| write(r, w))
}

/// Writes a check report; relative URIs are relative to the working directory.
pub fn write(r: &CheckReport, out: Out<'_>) -> std::io::Result<()> {
    let cwd = std::env::current_dir().unwrap_or_default();
    write_in(r, &cwd, out)
}

/// Renders a check report with locations relative to `root` (see [`write_in`]).
pub fn render_in(r: &CheckReport, root: &Path) -> String {
    super::to_string(|w| write_in(r, root, w))
}

/// Writes a check report with locations relative to `root` (`%SRCROOT%`):
/// a path under `root` becomes a relative URI with `uriBaseId: "%SRCROOT%"`,
/// any other an absolute `file://` URI, so code scanning can map both. The
/// results are written in batches as they are made, never built whole.
pub fn write_in(r: &CheckReport, root: &Path, out: Out<'_>) -> std::io::Result<()> {
    let root = normalise(root, Path::new("/"));
    let location = |p: &str| artifact_location(p, &root);
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
                "helpUri": crate::rules::rule_url(*rule),
                "defaultConfiguration": {"level": level(m.default_severity)},
                "properties": {"tags": ["agent-context"]},
            })
        })
        .collect();
    let result = |f: &crate::Finding| {
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
                        "physicalLocation": {"artifactLocation": location(&rel.path), "region": {"startLine": rel.line.unwrap_or(1)}},
                    })
                })
                .collect();
        let mut properties = json!({"pointer": f.pointer, "rule": f.rule.name()});
        if let (Some(id), Value::Object(m)) = (&f.session, &mut properties) {
            m.insert("session".into(), json!(id));
        }
        json!({
            "ruleId": f.code,
            "ruleIndex": RuleId::ALL.iter().position(|x| *x == f.rule).unwrap_or(0),
            "level": level(f.severity),
            "message": {"text": msg},
            "locations": [{"physicalLocation": {"artifactLocation": location(&f.path), "region": Value::Object(region)}}],
            "relatedLocations": related,
            "partialFingerprints": {"ctxlintFingerprint/v1": f.fingerprint},
            "properties": properties,
        })
    };
    const SLOT: &str = "\u{0}results\u{0}";
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
            "originalUriBaseIds": {"%SRCROOT%": {"uri": dir_uri(&root)}},
            "invocations": [invocation(r, &location)],
            "results": SLOT,
        }],
    });
    let head = serde_json::to_string_pretty(&v).unwrap_or_default();
    let slot = serde_json::to_string(SLOT).unwrap_or_default();
    let (pre, post) = head.split_once(&slot).unwrap_or((&head, ""));
    out.write_all(pre.as_bytes())?;
    // results: root → runs[0] → results[i], eight spaces deep.
    super::json::write_array(out, &r.findings, 8, result)?;
    out.write_all(post.as_bytes())?;
    out.write_all(b"\n")
}

/// The run's invocation: successful unless an input could not be checked,
/// each such input an error notification at its file (SARIF 2.1.0 §3.20);
/// findings counted but not listed are a warning notification each, at
/// their file, naming the rule (`associatedRule`).
fn invocation(r: &CheckReport, location: &dyn Fn(&str) -> Value) -> Value {
    let mut notes: Vec<Value> = r
        .errors
        .iter()
        .map(|f| {
            let mut n = json!({"level": "error", "message": {"text": format!("not checked: {}", f.message())}});
            if !f.path.is_empty() {
                n["locations"] = json!([{"physicalLocation": {"artifactLocation": location(&f.path)}}]);
            }
            n
        })
        .collect();
    notes.extend(r.unlisted.iter().map(|u| {
        json!({
            "level": "warning",
            "message": {"text": super::unlisted_message(u)},
            "locations": [{"physicalLocation": {"artifactLocation": location(&u.path)}}],
            "associatedRule": {"id": u.code, "index": RuleId::ALL.iter().position(|x| *x == u.rule).unwrap_or(0)},
        })
    }));
    json!({"executionSuccessful": r.errors.is_empty(), "toolExecutionNotifications": notes})
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The `artifactLocation` of a path as given on the command line.
fn artifact_location(p: &str, root: &Path) -> Value {
    let abs = normalise(Path::new(p), root);
    match abs.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            json!({"uri": encode(&rel.to_string_lossy().replace('\\', "/")), "uriBaseId": "%SRCROOT%"})
        }
        _ => json!({"uri": file_uri(&abs)}),
    }
}

/// `p` made absolute against `base`, with `.` and `..` resolved lexically.
fn normalise(p: &Path, base: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(p).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// An absolute `file://` URI.
fn file_uri(abs: &Path) -> String {
    let s = abs.to_string_lossy().replace('\\', "/");
    let s = if s.starts_with('/') { s } else { format!("/{s}") };
    format!("file://{}", encode(&s))
}

/// The `file://` URI of a directory (ends with `/`, as `originalUriBaseIds` requires).
fn dir_uri(abs: &Path) -> String {
    let u = file_uri(abs);
    if u.ends_with('/') { u } else { u + "/" }
}

/// Percent-encodes everything but unreserved characters and `/` (RFC 3986).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        let root = Path::new("/w/proj");
        assert_eq!(artifact_location("a b/x.jsonl", root), json!({"uri": "a%20b/x.jsonl", "uriBaseId": "%SRCROOT%"}));
        assert_eq!(artifact_location("./t/../x.json", root), json!({"uri": "x.json", "uriBaseId": "%SRCROOT%"}));
        assert_eq!(artifact_location("/w/proj/s.jsonl", root), json!({"uri": "s.jsonl", "uriBaseId": "%SRCROOT%"}));
        assert_eq!(artifact_location("../other/s.jsonl", root), json!({"uri": "file:///w/other/s.jsonl"}));
        assert_eq!(artifact_location("/tmp/x%.jsonl", root), json!({"uri": "file:///tmp/x%25.jsonl"}));
        assert_eq!(dir_uri(root), "file:///w/proj/");
    }
}
