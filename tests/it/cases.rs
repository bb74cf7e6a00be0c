//! Every case under `fixtures/cases/` (copied from the shared regression cases,
//! each from a public bug report) and under `fixtures/kinds/` (our own: one
//! input per kind of false alarm or miss found on real transcripts, written in
//! each runtime's record shapes by `fixtures/kinds/make_kinds.py`) runs as a test: the binary is run inside the
//! case directory with the case's command and `--output-format json`, and the
//! findings must match `expected.json` exactly, with the matching rules of
//! `shared/cases/README.md` (rule and path equal; line, pointer and request
//! equal when expected, a produced pointer may be a descendant; one-to-one).

use serde_json::Value;
use std::path::{Path, PathBuf};

fn norm_path(p: &str) -> String {
    p.trim_start_matches("./").to_string()
}

fn matches(exp: &Value, got: &Value) -> bool {
    if exp["rule"] != got["rule"] {
        return false;
    }
    if norm_path(exp["path"].as_str().unwrap_or("")) != norm_path(got["path"].as_str().unwrap_or("")) {
        return false;
    }
    for k in ["line", "request", "severity"] {
        if let Some(e) = exp.get(k) {
            if got.get(k) != Some(e) {
                return false;
            }
        }
    }
    // Our own cases may also name a part of the message (e.g. a copy count).
    if let Some(e) = exp.get("message").and_then(Value::as_str) {
        if !got["message"].as_str().is_some_and(|m| m.contains(e)) {
            return false;
        }
    }
    if let Some(e) = exp.get("pointer").and_then(Value::as_str) {
        let g = got.get("pointer").and_then(Value::as_str).unwrap_or("\u{0}");
        if !(g == e || e.is_empty() || g.starts_with(&format!("{e}/"))) {
            return false;
        }
    }
    true
}

fn run_case(dir: &Path) -> Result<(), String> {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let mut args: Vec<String> = expected["command"]
        .as_array()
        .expect("command")
        .iter()
        .map(|a| a.as_str().expect("string arg").to_string())
        .collect();
    args.push("--output-format".into());
    args.push("json".into());
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .expect("binary")
        .current_dir(dir)
        .args(&args)
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .map_err(|e| e.to_string())?;
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Value = serde_json::from_str(&stdout).map_err(|e| {
        format!("exit {code}, stdout not JSON ({e}): {stdout} {}", String::from_utf8_lossy(&out.stderr))
    })?;
    let produced = got["findings"].as_array().cloned().unwrap_or_default();
    let wanted = expected["findings"].as_array().cloned().unwrap_or_default();
    if code != if produced.is_empty() { 0 } else { 1 } {
        return Err(format!(
            "exit {code} with {} findings; stderr: {}",
            produced.len(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if let Some(v) = expected.get("verdict") {
        if got.get("verdict") != Some(v) {
            return Err(format!("verdict {:?}, expected {v}", got.get("verdict")));
        }
    }
    let mut used = vec![false; produced.len()];
    let mut missing = Vec::new();
    for e in &wanted {
        match (0..produced.len()).find(|&i| !used[i] && matches(e, &produced[i])) {
            Some(i) => used[i] = true,
            None => missing.push(e.to_string()),
        }
    }
    let extra: Vec<String> = produced
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(p, _)| format!("{} {} line {} pointer {}", p["rule"], p["path"], p["line"], p["pointer"]))
        .collect();
    if missing.is_empty() && (extra.is_empty() || expected["exact"] == Value::Bool(false)) {
        Ok(())
    } else {
        Err(format!("missing {missing:?}; unexpected {extra:?}"))
    }
}

// One test per case folder, written by build.rs (`fixture_case_tests`).
include!(concat!(env!("OUT_DIR"), "/fixture_cases.rs"));

/// Case `name` of `fixtures/<set>`: its findings match `expected.json`, and
/// its human output (`--output-format full`, no colour, 100 columns) is the
/// snapshot `snapshots/it__cases__<set>__<name>.snap`.
fn case(set: &str, name: &str) {
    let dir = crate::support::root().join("fixtures").join(set).join(name);
    if let Err(e) = run_case(&dir) {
        panic!("fixtures/{set}/{name}: {e}");
    }
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let args: Vec<&str> = expected["command"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let out = crate::support::ctxlint()
        .current_dir(&dir)
        .args(&args)
        .args(["--output-format", "full", "--color", "never"])
        .env("COLUMNS", "100")
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    insta::assert_snapshot!(format!("{set}__{name}"), String::from_utf8_lossy(&out.stdout));
}

/// Every folder under `fixtures/cases` and `fixtures/kinds` is a case (has
/// `expected.json`), so none is left out of the generated tests, and there
/// are as many as there were when the shared cases were last copied.
#[test]
fn every_case_folder_is_a_test() {
    for (set, min) in [("cases", 45), ("kinds", 14)] {
        let dirs: Vec<PathBuf> = std::fs::read_dir(crate::support::root().join("fixtures").join(set))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        let without: Vec<&PathBuf> = dirs.iter().filter(|d| !d.join("expected.json").is_file()).collect();
        assert!(without.is_empty(), "case folders without expected.json: {without:?}");
        assert!(dirs.len() >= min, "expected at least {min} cases in fixtures/{set}, found {}", dirs.len());
    }
}
