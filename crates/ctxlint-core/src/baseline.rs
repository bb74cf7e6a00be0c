//! Baselines: accept today's findings and fail only on new ones.
//!
//! A baseline file is JSON: `{"version": 1, "tool": "ctxlint", "findings":
//! [{"fingerprint", "rule", "path"}]}`. Fingerprints (docs/spec.md §4) hash the rule,
//! the path, the normalised offending text and its occurrence number — never a
//! line, offset or pointer — so they survive unrelated edits of the file.

use crate::Finding;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

#[derive(Serialize, Deserialize)]
struct Entry {
    fingerprint: String,
    rule: String,
    path: String,
}

#[derive(Serialize, Deserialize)]
struct File {
    version: u32,
    tool: String,
    findings: Vec<Entry>,
}

/// Writes the fingerprints of `findings` to `path` (atomically: a temporary
/// file beside it, renamed).
pub fn write(path: &Path, findings: &[Finding]) -> Result<()> {
    let f = File {
        version: 1,
        tool: "ctxlint".into(),
        findings: findings
            .iter()
            .map(|f| Entry { fingerprint: f.fingerprint.clone(), rule: f.rule.name().into(), path: f.path.clone() })
            .collect(),
    };
    let text = serde_json::to_string_pretty(&f).map_err(|e| Error::Internal(e.to_string()))?;
    crate::safety::write_atomic(path, (text + "\n").as_bytes())
}

/// Reads the fingerprints of a baseline file (a regular file of at most
/// [`crate::safety::MAX_BASELINE_BYTES`]).
pub fn read(path: &Path) -> Result<HashSet<String>> {
    let text = crate::safety::read_bounded(path, crate::safety::MAX_BASELINE_BYTES, "baseline")?;
    let f: File = serde_json::from_str(&text)
        .map_err(|e| Error::Config { path: path.to_path_buf(), reason: format!("not a ctxlint baseline: {e}") })?;
    Ok(f.findings.into_iter().map(|e| e.fingerprint).collect())
}

/// Drops the findings whose fingerprint is in the baseline; returns how many were dropped.
pub fn filter(findings: &mut Vec<Finding>, baseline: &HashSet<String>) -> usize {
    let before = findings.len();
    findings.retain(|f| !baseline.contains(&f.fingerprint));
    before - findings.len()
}
