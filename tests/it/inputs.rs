//! Inputs (issue 14): hidden agent folders are walked, `.gitignore` honoured;
//! an unrecognised file never aborts a run; request files named one by one
//! form the stream their directory would; fingerprints are project-relative;
//! configuration is found per input folder; `check` with no PATH scans the
//! agents' folders; `.bz2` and `.xz` inputs are read.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cases");

/// A Claude Code session with one `orphan-tool-result` at line 3.
fn claude_session() -> String {
    std::fs::read_to_string(format!("{CASES}/cc-12162-orphan-result/session.jsonl")).unwrap()
}
/// A Codex rollout with one `malformed-line` at line 4.
fn codex_rollout() -> String {
    std::fs::read_to_string(format!("{CASES}/codex-24425-torn-rollout/rollout.jsonl")).unwrap()
}
/// A pi/OpenClaw session with one `broken-parent-chain` at line 6.
fn pi_session() -> String {
    std::fs::read_to_string(format!("{CASES}/pilish-83-null-parent/session.jsonl")).unwrap()
}

fn put(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn ctxlint(cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("ctxlint").unwrap();
    c.current_dir(cwd).env_remove("CLAUDE_CONFIG_DIR").env_remove("CODEX_HOME");
    c
}

/// Runs `check ARGS --output-format json` in `cwd`: exit code, report, stderr.
fn check_json(cwd: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = ctxlint(cwd).arg("check").args(args).args(["--output-format", "json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap(), v, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn files_of(v: &Value) -> Vec<(String, String)> {
    let mut f: Vec<(String, String)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["format"].as_str().unwrap().to_string()))
        .collect();
    f.sort();
    f
}

fn findings_of(v: &Value) -> Vec<(String, String, Option<u64>)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["path"].as_str().unwrap().to_string(), f["line"].as_u64()))
        .collect()
}

fn fingerprints(v: &Value) -> Vec<String> {
    v["findings"].as_array().unwrap().iter().map(|f| f["fingerprint"].as_str().unwrap().to_string()).collect()
}

#[test]
fn hidden_agent_folders_are_walked_and_gitignore_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "t/.claude/projects/p/x.jsonl", &claude_session());
    put(d, "t/.codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-0197a1b2.jsonl", &codex_rollout());
    put(d, "t/.openclaw/agents/main/sessions/s.jsonl", &pi_session());
    put(d, "t/.gitignore", "old/\n");
    put(d, "t/old/y.jsonl", &claude_session());
    // Version-control stores are never walked, even with --no-ignore.
    put(d, "t/.git/z.jsonl", &claude_session());
    let (code, v, err) = check_json(d, &["t"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        files_of(&v),
        vec![
            ("t/.claude/projects/p/x.jsonl".to_string(), "claude-code".to_string()),
            (
                "t/.codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-0197a1b2.jsonl".to_string(),
                "codex-rollout".to_string()
            ),
            ("t/.openclaw/agents/main/sessions/s.jsonl".to_string(), "pi-session".to_string()),
        ]
    );
    let mut rules: Vec<String> = findings_of(&v).into_iter().map(|f| f.0).collect();
    rules.sort();
    assert_eq!(rules, vec!["broken-parent-chain", "malformed-line", "orphan-tool-result"]);
    // The walk's own ignore file is not an input: not listed as skipped.
    assert_eq!(v["skipped"], serde_json::json!([]));
    // --no-ignore walks the ignored folder too.
    let (_, v, _) = check_json(d, &["t", "--no-ignore"]);
    let paths: Vec<String> = files_of(&v).into_iter().map(|f| f.0).collect();
    assert_eq!(paths.len(), 4, "{paths:?}");
    assert!(paths.contains(&"t/old/y.jsonl".to_string()));
    assert_eq!(v["skipped"], serde_json::json!([]));
}

#[test]
fn an_unrecognised_named_file_is_skipped_and_the_reports_still_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "notes.json", "{\"notes\": \"hello\"}\n");
    put(d, "s.jsonl", &claude_session());
    let out = ctxlint(d)
        .args(["check", "notes.json", "s.jsonl", "--output-format", "sarif", "-o", "x.sarif", "--exit-zero"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "ctxlint: warning: notes.json: not a recognised input format (none of the {} formats `ctxlint formats` lists); use --input-format to force one; skipped\n",
            ctxlint::formats::REGISTRY.len()
        )),
        "{err}"
    );
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(d.join("x.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "CTX302");

    put(d, "package.json", "{\"name\": \"x\", \"version\": \"1.0.0\"}\n");
    put(d, ".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: []\n");
    put(d, "defective.jsonl", &claude_session());
    let args = ["package.json", ".pre-commit-config.yaml", "defective.jsonl"];
    let (code, v, err) = check_json(d, &args);
    assert_eq!(code, 1, "{err}");
    assert_eq!(findings_of(&v), vec![("orphan-tool-result".into(), "defective.jsonl".into(), Some(3))]);
    assert_eq!(
        v["skipped"],
        serde_json::json!([
            {"path": "package.json", "reason": "matches no input format"},
            {"path": ".pre-commit-config.yaml", "reason": "matches no input format"},
        ])
    );
    assert!(err.contains("package.json: not a recognised input format"), "{err}");
    assert!(err.contains(".pre-commit-config.yaml: not a recognised input format"), "{err}");
    // --strict: exit 2, the findings still printed and written.
    let (code, v, _) = check_json(d, &[&args[..], &["--strict"]].concat());
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["findings"], 1);
    let out = ctxlint(d)
        .arg("check")
        .args(args)
        .args(["--strict", "--output-format", "sarif", "-o", "y.sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(d.join("y.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 1);
    // Only unrecognised files: nothing to check at all is exit 2.
    let (code, v, _) = check_json(d, &["package.json"]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["skipped"], 1);
}

#[test]
fn a_file_named_twice_or_also_inside_a_named_folder_is_checked_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "t/a.jsonl", &pi_session());
    put(
        d,
        "t/reqs/req1.json",
        &std::fs::read_to_string(format!("{CASES}/cc-44045-resume-block-dropped/req1-fresh.json")).unwrap(),
    );
    put(
        d,
        "t/reqs/req2.json",
        &std::fs::read_to_string(format!("{CASES}/cc-44045-resume-block-dropped/req2-resumed.json")).unwrap(),
    );
    let (_, once, _) = check_json(d, &["t"]);
    assert_eq!(once["summary"]["files"], 2);
    assert_eq!(once["summary"]["findings"], 2);
    for args in [
        vec!["t/a.jsonl", "t/a.jsonl"],
        vec!["t/a.jsonl", "./t/a.jsonl"],
        vec!["t", "t"],
        vec!["t", "t/a.jsonl", "t/reqs/req2.json"],
        vec!["t", "t/reqs"],
    ] {
        let (_, v, err) = check_json(d, &args);
        let n = if args[0] == "t" { 2 } else { 1 };
        assert_eq!(v["summary"]["files"], n, "{args:?}: {err}");
        assert_eq!(v["summary"]["findings"], n, "{args:?}");
    }
    let (_, v, _) = check_json(d, &["t/a.jsonl", "./t/a.jsonl"]);
    assert_eq!(findings_of(&v), [("broken-parent-chain".to_string(), "t/a.jsonl".to_string(), Some(6))]);
    // A hard link is the same file.
    std::fs::hard_link(d.join("t/a.jsonl"), d.join("hard.jsonl")).unwrap();
    let (_, v, _) = check_json(d, &["t/a.jsonl", "hard.jsonl"]);
    assert_eq!(v["summary"]["files"], 1);
    // Standard input named twice is read once.
    let out =
        ctxlint(d).args(["check", "-", "-", "--output-format", "json"]).write_stdin(pi_session()).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["summary"]["files"].as_u64(), v["summary"]["skipped"].as_u64()), (Some(1), Some(0)), "{v}");
}

#[test]
fn request_files_named_one_by_one_form_their_directorys_stream() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let case = Path::new(CASES).join("cc-44045-resume-block-dropped");
    for f in ["req1-fresh.json", "req2-resumed.json"] {
        std::fs::create_dir_all(d.join("reqs")).unwrap();
        std::fs::copy(case.join(f), d.join("reqs").join(f)).unwrap();
    }
    let (code, walked, _) = check_json(d, &["reqs"]);
    assert_eq!(code, 1);
    let (code, named, err) = check_json(d, &["reqs/req2-resumed.json", "reqs/req1-fresh.json"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(named, walked);
    let f = &named["findings"][0];
    assert_eq!((f["rule"].as_str(), f["path"].as_str()), (Some("history-rewrite"), Some("reqs/req2-resumed.json")));
    assert_eq!(f["pointer"], "/messages/0/content/1");
    assert_eq!(named["summary"]["findings"], 1);
    assert_eq!(
        named["files"],
        serde_json::json!([{"path": "reqs/", "format": "anthropic-messages", "requests": 2, "entries": 0, "skipped_exchanges": 0,
            "usage": null, "impact": {"findings": 1, "tokens": 107, "cost_usd": 0.000369, "judged": 0, "confirmed": 0}}])
    );
    // From inside the folder, named files equal `check .`.
    let r = d.join("reqs");
    let (_, dot, _) = check_json(&r, &["."]);
    let (_, named_here, _) = check_json(&r, &["req1-fresh.json", "req2-resumed.json"]);
    assert_eq!(dot, named_here);
    assert_eq!(dot["findings"][0]["path"], "req2-resumed.json");
    // --no-stream keeps them apart: no pair, no rewrite.
    let (code, apart, _) = check_json(d, &["reqs/req1-fresh.json", "reqs/req2-resumed.json", "--no-stream"]);
    assert_eq!(code, 0);
    assert_eq!(apart["summary"]["files"], 2);
    assert_eq!(apart["summary"]["findings"], 0);
}

#[test]
fn fingerprints_are_project_relative_and_a_baseline_survives_another_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "ctxlint.toml", "");
    put(d, "t/session.jsonl", &claude_session());
    let abs = d.join("t").to_string_lossy().into_owned();
    let (_, a, _) = check_json(d, &["t"]);
    let (_, b, _) = check_json(d, &["./t"]);
    let (_, c, _) = check_json(d, &[&abs]);
    let (_, e, _) = check_json(&d.join("t"), &["."]);
    let fa = fingerprints(&a);
    assert_eq!(fa.len(), 1);
    assert_eq!(fa, fingerprints(&b));
    assert_eq!(fa, fingerprints(&c));
    assert_eq!(fa, fingerprints(&e));
    assert_eq!(a["findings"][0]["path"], "t/session.jsonl");
    assert_eq!(e["findings"][0]["path"], "session.jsonl");

    // No configuration, no git: relative to the baseline's folder.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "t/session.jsonl", &claude_session());
    let out = ctxlint(d).args(["check", "t", "--write-baseline", "base.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (code, v, err) = check_json(&d.join("t"), &[".", "--baseline", "../base.json"]);
    assert_eq!((code, v["summary"]["findings"].as_u64()), (0, Some(0)), "{err}");
    assert!(err.contains("1 finding(s) already in the baseline"), "{err}");
    let abs = d.join("t").to_string_lossy().into_owned();
    let (code, v, _) = check_json(d, &[&abs, "--baseline", "base.json"]);
    assert_eq!((code, v["summary"]["findings"].as_u64()), (0, Some(0)));
}

/// The configuration of a file named through a symlink and `..` is found
/// from the folder its path names as text: when that path (`link/../s.jsonl`,
/// `./s.jsonl` as text, `a/s.jsonl` to the kernel) names a directory with a
/// `ctxlint.toml`, that directory's configuration applies, named or walked
/// (a file's folder is taken as its parent without asking only when its
/// path has no `..`).
#[cfg(unix)]
#[test]
fn a_path_through_a_symlink_and_dotdot_keeps_its_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "a/session.jsonl", &claude_session());
    std::fs::create_dir_all(d.join("a/b")).unwrap();
    std::os::unix::fs::symlink("a/b", d.join("link")).unwrap();
    put(d, "session.jsonl/ctxlint.toml", "[rules]\norphan-tool-result = \"off\"\n");
    for arg in ["link/../session.jsonl", "link/.."] {
        let (code, v, err) = check_json(d, &[arg]);
        assert_eq!(code, 0, "{arg}: {err}");
        assert_eq!(v["findings"].as_array().unwrap().len(), 0, "{arg}: {v}");
        assert_eq!(v["files"][0]["path"], "link/../session.jsonl", "{arg}");
    }
    // Named without the detour, its own folder's (none): the finding.
    let (code, v, _) = check_json(d, &["a/session.jsonl"]);
    assert_eq!((code, v["findings"][0]["rule"].as_str()), (1, Some("orphan-tool-result")));
}

#[test]
fn configuration_is_found_from_each_inputs_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    put(d, "a/ctxlint.toml", "[rules]\norphan-tool-result = \"off\"\n");
    put(d, "a/session.jsonl", &claude_session());
    put(
        d,
        "b/ctxlint.toml",
        "fail-on = \"error\"\ncontext-block-min = 80\n[rules]\norphan-tool-result = \"warning\"\n",
    );
    put(d, "b/session.jsonl", &claude_session());
    put(d, "c/session.jsonl", &claude_session());
    std::fs::create_dir_all(d.join("elsewhere")).unwrap();
    let e = d.join("elsewhere");
    // From elsewhere: a's file turns the rule off, b's makes it a warning that does not fail.
    let (code, v, err) = check_json(&e, &["../a", "../b"]);
    assert_eq!(code, 0, "{err}");
    let fs: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["severity"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(fs, vec![("../b/session.jsonl".to_string(), "warning".to_string())]);
    // c has no configuration of its own: defaults, an error that fails.
    let (code, v, _) = check_json(&e, &["../c"]);
    assert_eq!(code, 1);
    assert_eq!(v["findings"][0]["severity"], "error");

    let out = ctxlint(&e).args(["check", "--show-settings", "../b/session.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let b_toml = d.join("b").join("ctxlint.toml");
    assert!(text.starts_with(&format!("# settings for ../b/session.jsonl\n# from {}\n", b_toml.display())), "{text}");
    for line in [
        "fail-on = \"error\"\n",
        "context-block-min = 80\n",
        "context-block-allow = []\n",
        "orphan-tool-result = \"warning\"  # CTX302\n",
        "duplicate-system-event = \"error\"  # CTX101\n",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let out = ctxlint(&e).args(["check", "--show-settings", "../c"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("# from the defaults (no ctxlint.toml in force)\n"), "{text}");
    assert!(text.contains("fail-on = \"warning\"\n"), "{text}");

    put(d, "c/notes.txt", "hello\n");
    let out = ctxlint(&e).args(["check", "--show-files", "../c", "../a/session.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "../c/session.jsonl: claude-code\n../a/session.jsonl: claude-code\n../c/notes.txt: skipped: matches no input format\n"
    );

    // fail-on = "off" is an error; TOML errors keep their lines, secrets masked.
    put(d, "c/ctxlint.toml", "fail-on = \"off\"\n");
    let out = ctxlint(&e).args(["check", "../c"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown variant `off`, expected `warning` or `error`"), "{err}");
    put(d, "c/ctxlint.toml", "api-key = \"sk-proj-AAAABBBBCCCCDDDDEEEEFFFF\"\n");
    let out = ctxlint(&e).args(["check", "../c"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown field `api-key`"), "{err}");
    assert!(err.contains("\n1 | api-key = "), "line breaks kept: {err}");
    assert!(!err.contains("AAAABBBBCCCCDDDD"), "secret leaked: {err}");
}

#[test]
fn no_path_scans_the_installed_agents_folders() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = d.join("home");
    put(&home, ".claude/projects/p/ignored-by-config-dir.jsonl", &claude_session());
    put(&home, ".openclaw/agents/main/sessions/s.jsonl", &pi_session());
    put(&home, ".pi/agent/sessions/--home--/p.jsonl", &pi_session());
    put(d, "claude-cfg/projects/q/y.jsonl", &claude_session());
    put(d, "codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-0197a1b2.jsonl", &codex_rollout());
    let run = || {
        // Standard input not piped (std's `output` gives /dev/null; assert_cmd's a pipe).
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlint"));
        c.current_dir(d)
            .stdin(std::process::Stdio::null())
            .env("HOME", &home)
            .env("CLAUDE_CONFIG_DIR", d.join("claude-cfg"))
            .env("CODEX_HOME", d.join("codex"));
        c
    };
    let out = run().args(["check", "--output-format", "json"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let h = home.to_string_lossy();
    let dd = d.to_string_lossy();
    assert!(
        err.contains(&format!(
            "ctxlint: scanning the session folders of installed agents: {h}/.openclaw/agents/main/sessions, {h}/.pi/agent/sessions, {dd}/claude-cfg/projects, {dd}/codex/sessions\n"
        )),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["files"], 4);
    // A piped standard input with no PATH: refuse to scan, point at `-`.
    let out = ctxlint(d).env("HOME", &home).arg("check").write_stdin("{}\n").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pass `-` to check standard input"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bzip2_and_xz_inputs_are_read() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = claude_session();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(text.as_bytes()).unwrap();
    std::fs::write(d.join("s.jsonl.bz2"), bz.finish().unwrap()).unwrap();
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(text.as_bytes()).unwrap();
    std::fs::write(d.join("s.jsonl.xz"), xz.finish().unwrap()).unwrap();
    put(d, "s.jsonl", &text);
    let (code, v, err) = check_json(d, &["s.jsonl.bz2", "s.jsonl.xz", "s.jsonl"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        files_of(&v),
        vec![
            ("s.jsonl".to_string(), "claude-code".to_string()),
            ("s.jsonl.bz2".to_string(), "claude-code".to_string()),
            ("s.jsonl.xz".to_string(), "claude-code".to_string()),
        ]
    );
    let mut fs = findings_of(&v);
    fs.sort();
    assert_eq!(
        fs,
        vec![
            ("orphan-tool-result".into(), "s.jsonl".into(), Some(3)),
            ("orphan-tool-result".into(), "s.jsonl.bz2".into(), Some(3)),
            ("orphan-tool-result".into(), "s.jsonl.xz".into(), Some(3)),
        ]
    );
}

#[test]
fn a_ctxlint_toml_beside_the_transcripts_is_not_an_input_even_with_strict() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/show/session.jsonl"), t.join("session.jsonl"))
        .unwrap();
    std::fs::write(t.join("ctxlint.toml"), "[rules]\nduplicate-system-event = \"off\"\n").unwrap();
    let (code, v, _) = check_json(d.path(), &["t", "--strict"]);
    assert_eq!(v["skipped"], serde_json::json!([]));
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(code, if v["findings"].as_array().unwrap().is_empty() { 0 } else { 1 });
}

#[test]
fn inputs_under_an_invalid_configuration_are_reported_as_not_checked() {
    // Two sessions under a bad ctxlint.toml, one elsewhere that is checked.
    let d = tempfile::tempdir().unwrap();
    put(d.path(), "t/bad/ctxlint.toml", "bogus-key = 1\n");
    put(d.path(), "t/bad/a.jsonl", &claude_session());
    put(d.path(), "t/bad/b.jsonl", &claude_session());
    put(d.path(), "t/good/s.jsonl", &claude_session());
    let (code, v, err) = check_json(d.path(), &["t"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(findings_of(&v), vec![("orphan-tool-result".into(), "t/good/s.jsonl".into(), Some(3))]);
    let failed: Vec<(&str, &str)> = v["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["error"].as_str().unwrap()))
        .collect();
    assert_eq!(failed.iter().map(|f| f.0).collect::<Vec<_>>(), ["t/bad/a.jsonl", "t/bad/b.jsonl"]);
    assert!(
        failed[0].1.contains("ctxlint.toml") && failed[0].1.contains("unknown field `bogus-key`"),
        "{}",
        failed[0].1
    );
    assert_eq!(v["summary"]["failed"], 2);
    assert_eq!(v["summary"]["files"], 1);
    // The error once on stderr, with the inputs it stopped.
    assert_eq!(err.matches("unknown field `bogus-key`").count(), 1, "{err}");
    assert!(err.contains("so 2 inputs were not checked: t/bad/a.jsonl, t/bad/b.jsonl"), "{err}");

    // Human summary, SARIF, GitHub and JUnit say so too.
    let run = |fmt: &str| {
        let out = ctxlint(d.path()).args(["check", "t", "--output-format", fmt, "--color", "never"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{fmt}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(
        run("full").ends_with(
            "Found 1 finding (1 error, 0 warnings) in 1 input, 2 not checked (errors below).\n\
             Recorded usage: 1 call in 1 input, ~$0.00012 estimated; cache read 0.0 % of input.\n"
        ),
        "{}",
        run("full")
    );
    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    let inv = &sarif["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 2);
    assert_eq!(notes[0]["level"], "error");
    assert_eq!(notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "t/bad/a.jsonl");
    let gh = run("github");
    assert_eq!(
        gh.lines()
            .filter(|l| l.starts_with("::error file=t/bad/") && l.contains("title=ctxlint%3A not checked::"))
            .count(),
        2,
        "{gh}"
    );
    let junit = run("junit");
    assert!(junit.contains(r#"<testsuite name="t/bad/a.jsonl""#) && junit.contains(r#"type="not-checked""#), "{junit}");
}

#[test]
fn an_exchange_whose_json_body_is_broken_is_warned_about_and_counted() {
    let d = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/streams/claude-code-string-turns.jsonl"),
    )
    .unwrap();
    let first = good.lines().next().unwrap();
    let broken = r#"{"request":{"method":"POST","url":"https://api.anthropic.com/v1/messages","body":"{\"model\": \"m\", \"messages\": [{\"ro"},"response":{"status":200}}"#;
    put(d.path(), "log.jsonl", &format!("{first}\n{broken}\n"));
    let (code, v, err) = check_json(d.path(), &["log.jsonl"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["files"][0]["format"], "exchange-log");
    assert_eq!(v["files"][0]["requests"], 1);
    assert_eq!(v["files"][0]["skipped_exchanges"], 1);
    assert!(
        err.contains("ctxlint: warning: log.jsonl:2: /request/body: its request body is JSON that does not parse: EOF while parsing a string at line 1 column 32; not checked"),
        "{err}"
    );
    // -q says nothing of it.
    let out = ctxlint(d.path()).args(["check", "log.jsonl", "-q"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("that exchange"));
}

#[test]
fn walked_files_that_match_no_format_are_each_warned_about() {
    let d = tempfile::tempdir().unwrap();
    put(d.path(), "t/s.jsonl", &claude_session());
    for k in 0..25 {
        put(d.path(), &format!("t/notes/n{k}.json"), "{\"note\": 1}\n");
    }
    let stderr = |extra: &[&str]| {
        let out = ctxlint(d.path()).args(["check", "t", "-o", "/dev/null"]).args(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{extra:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let err = stderr(&[]);
    let warned: Vec<&str> = err.lines().filter(|l| l.ends_with(": matches no input format; skipped")).collect();
    assert_eq!(warned.len(), 20, "{err}");
    assert_eq!(warned[0], "ctxlint: warning: t/notes/n0.json: matches no input format; skipped");
    assert_eq!(warned[19], "ctxlint: warning: t/notes/n19.json: matches no input format; skipped");
    assert!(
        err.contains("ctxlint: warning: and 5 more files skipped (`--verbose` or `--show-files` lists them all)\n"),
        "{err}"
    );
    // The formats tried: named once, by count, with where to read them (issue 33: not
    // the 22 ids after the warnings).
    assert_eq!(
        err.lines().filter(|l| l.contains("`ctxlint formats`")).collect::<Vec<_>>(),
        [format!(
            "ctxlint: note: a file skipped for matching no format was tried as each of the {} formats `ctxlint formats` lists; use --input-format to force one",
            ctxlint::formats::REGISTRY.len()
        )],
        "{err}"
    );
    assert!(!err.contains("pi-session, claude-code"), "{err}");
    let all = stderr(&["--verbose"]);
    assert_eq!(all.lines().filter(|l| l.ends_with(": matches no input format; skipped")).count(), 25, "{all}");
    assert!(!all.contains("more files skipped"));
    assert!(!stderr(&["-q"]).contains("skipped"));
}

/// A file rewritten in place while it is checked: every run gives the
/// findings of one whole version of it, or exit 2 (it changed while it was
/// read) — never a clean pass, never findings of bytes that were never one file.
#[test]
fn a_file_rewritten_while_it_is_checked_is_one_version_or_an_error() {
    let d = tempfile::tempdir().unwrap();
    let a = claude_session(); // orphan-tool-result at line 3
    let b = std::fs::read_to_string(format!("{CASES}/cc-37437-retry-wrong-parent/session.jsonl")).unwrap();
    let p = put(d.path(), "s.jsonl", &a);
    let writer = {
        let p = p.clone();
        std::thread::spawn(move || {
            let mut k = 0u64;
            // 30 rewrites, then the checks stop.
            while k < 30 {
                // Truncate and write: the file is empty, then half written, for a moment.
                std::fs::write(&p, if k % 2 == 0 { &b } else { &a }).unwrap();
                k += 1;
                // Longer than a kernel tick (file times are coarse): two rewrites are never one stamp.
                std::thread::sleep(std::time::Duration::from_millis(12));
            }
            k
        })
    };
    let want_a = vec![("orphan-tool-result".to_string(), "s.jsonl".to_string(), Some(3))];
    let want_b = vec![
        ("broken-parent-chain".to_string(), "s.jsonl".to_string(), Some(9)),
        ("duplicate-user-turn".to_string(), "s.jsonl".to_string(), Some(9)),
    ];
    let (mut seen_a, mut seen_b, mut changed) = (0, 0, 0);
    let mut runs = 0;
    while !writer.is_finished() || runs < 20 {
        runs += 1;
        let out =
            ctxlint(d.path()).args(["check", "s.jsonl", "--isolated", "--output-format", "json"]).output().unwrap();
        let code = out.status.code().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if code == 2 {
            changed += 1;
            continue;
        }
        // The file as it is between the writer's truncation and its write is
        // one version too (empty): on a loaded machine a run can fall wholly
        // within it. Any other clean pass is wrong.
        if code == 0 {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["files"][0]["entries"], 0, "never a clean pass of a written version: {v}{err}");
            continue;
        }
        assert_eq!(code, 1, "never a clean pass: {}{err}", String::from_utf8_lossy(&out.stdout));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got = findings_of(&v);
        if got == want_a {
            seen_a += 1;
        } else if got == want_b {
            seen_b += 1;
        } else {
            panic!("findings of no version: {got:?}\n{err}");
        }
    }
    let writes = writer.join().unwrap();
    assert_eq!(writes, 30);
    eprintln!("rewritten while checked: {seen_a} × A, {seen_b} × B, {changed} × changed while read");
}

#[test]
fn walked_files_that_cannot_be_transcripts_are_counted_not_each_named() {
    let d = tempfile::tempdir().unwrap();
    put(d.path(), "p/s.jsonl", &claude_session());
    put(d.path(), "p/src/main.rs", "fn main() {}\n");
    put(d.path(), "p/README.md", "# notes\n");
    put(d.path(), "p/notes.json", "{\"note\": 1}\n");
    let out = ctxlint(d.path()).args(["check", "p", "-o", "/dev/null"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("ctxlint: warning: p/notes.json: matches no input format; skipped\n"), "{err}");
    assert!(
        err.contains(
            "ctxlint: note: 2 other files skipped (not JSON, JSONL or YAML; `--show-files` or `--verbose` lists them)\n"
        ),
        "{err}"
    );
    assert!(!err.contains("main.rs") && !err.contains("README.md"), "{err}");
    // --verbose names them; -q says nothing; JSON lists all three.
    let v = ctxlint(d.path()).args(["check", "p", "-o", "/dev/null", "-v"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&v.stderr)
            .contains("ctxlint: warning: p/src/main.rs: matches no input format; skipped")
    );
    let q = ctxlint(d.path()).args(["check", "p", "p/README.md", "-o", "/dev/null", "-q"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&q.stderr), "");
    let (_, j, _) = check_json(d.path(), &["p"]);
    assert_eq!(j["skipped"].as_array().unwrap().len(), 3);
}

#[test]
fn a_misspelt_rule_in_the_configuration_suggests_the_nearest() {
    let d = tempfile::tempdir().unwrap();
    put(d.path(), "t/s.jsonl", &claude_session());
    put(d.path(), "t/ctxlint.toml", "[rules]\nmalfromed-line = \"warning\"\n");
    let (code, v, err) = check_json(d.path(), &["t"]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["failed"], 1);
    assert!(
        err.contains("ctxlint.toml: unknown rule `malfromed-line` in [rules]; did you mean `malformed-line`?"),
        "{err}"
    );
}

#[test]
fn a_key_written_twice_is_placed_at_its_last_value_as_it_is_read() {
    // Issue 32, the second attack round: the rules read the last `messages`
    // (as serde_json and JSON.parse do) but the finding was placed in the
    // first one, at another message.
    let d = tempfile::tempdir().unwrap();
    let text = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"a"},{"role":"user","content":"a2"},{"role":"user","content":"firstdoc"}],"messages":[{"role":"user","content":"b"},{"role":"user","content":"b2"},{"role":"tool","tool_call_id":"X2","content":"second"}]}"#;
    put(d.path(), "dup.json", text);
    let out = ctxlint(d.path()).args(["check", "dup.json", "--output-format", "json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &v["findings"][0];
    assert_eq!((f["rule"].as_str(), f["pointer"].as_str()), (Some("orphan-tool-result"), Some("/messages/2")));
    let at = text.rfind(r#"{"role":"tool""#).unwrap();
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64(), f["byte_offset"].as_u64()),
        (Some(1), Some(at as u64 + 1), Some(at as u64))
    );
}

#[test]
fn a_jsonl_entry_that_writes_a_key_twice_is_read_with_its_last_value() {
    // Issue 32, the second attack round: a pi or Claude Code line writing a
    // key twice was dropped as an unknown record (serde's "duplicate field"),
    // which made a false broken parent chain and hid the real finding after
    // it. JSON.parse reads such a line (the last value wins): so does ctxlint.
    let d = tempfile::tempdir().unwrap();
    let pi = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-04-19T00:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-04-19T13:00:02.000Z","timestamp":"2026-04-19T13:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
        r#"{"type":"message","id":"t1","parentId":"u1","timestamp":"2026-04-19T13:00:03.000Z","message":{"role":"toolResult","toolCallId":"zz","toolName":"x","content":[{"type":"text","text":"r"}]}}"#,
    ];
    put(d.path(), "pi.jsonl", &(pi.join("\n") + "\n"));
    let cc =
        std::fs::read_to_string(crate::support::root().join("fixtures/cases/cc-12162-orphan-result/session.jsonl"))
            .unwrap()
            .replacen(r#""isSidechain":false,"#, r#""isSidechain":false,"isSidechain":false,"#, 1);
    put(d.path(), "cc.jsonl", &cc);
    for (file, pointer) in [("pi.jsonl", "/message"), ("cc.jsonl", "/message/content/1")] {
        let out = ctxlint(d.path()).args(["check", file, "--output-format", "json"]).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got: Vec<(String, u64, String)> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (f["rule"].as_str().unwrap().into(), f["line"].as_u64().unwrap(), f["pointer"].as_str().unwrap().into())
            })
            .collect();
        assert_eq!(got, vec![("orphan-tool-result".to_string(), 3, pointer.to_string())], "{file}");
    }
}

/// Issue 35 (one read per file): `check` detects a walked folder's small
/// files when it checks them, from the bytes their load then reads, rather
/// than at discovery; the report is the one discovery-time detection gives:
/// the same findings, files, skipped files, failures and their order. Here
/// with a stream of request bodies split between small files (detected when
/// checked) and a large one (detected at discovery), a folder whose stream
/// name sorts before a file beside it (`a` and `a-b.jsonl`), a large
/// transcript, files of no format and an empty file.
#[test]
fn detecting_small_files_when_checked_changes_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let case = |n: &str| std::fs::read_to_string(format!("{CASES}/sysdrop-openai-chat-midrun/{n}")).unwrap();
    put(root, "a-b.jsonl", &pi_session());
    put(root, "a/x.jsonl", &claude_session());
    // A body of more than `PEEK` bytes: detected at discovery, joined to its folder's stream.
    let mut big: Value = serde_json::from_str(&case("req1.json")).unwrap();
    let pad = "padding ".repeat(40_000);
    big["messages"][0]["content"] =
        Value::String(format!("{}\n{pad}", big["messages"][0]["content"].as_str().unwrap()));
    put(root, "a/req1.json", &serde_json::to_string(&big).unwrap());
    put(root, "a/req2.json", &case("req2.json"));
    put(root, "reqs/req1.json", &case("req1.json"));
    put(root, "reqs/req2.json", &case("req2.json"));
    let mut long = claude_session();
    long.push_str(&format!("{{\"type\":\"summary\",\"summary\":\"{pad}\",\"leafUuid\":\"none\"}}\n"));
    put(root, "big.jsonl", &long);
    put(root, "codex/rollout.jsonl", &codex_rollout());
    put(root, "notes.json", "{\"hello\": 1}\n");
    put(root, "empty.jsonl", "");
    put(root, "README.md", "# sessions\n");
    let run = |later: bool| {
        let opts = ctxlint::CheckOptions {
            paths: vec![root.to_string_lossy().into_owned()],
            discover: ctxlint::inputs::DiscoverOptions { detect_when_checked: later, ..Default::default() },
        };
        let r = ctxlint::check(&opts, &ctxlint::config::Config::default()).unwrap();
        let findings: Vec<String> = r
            .findings
            .iter()
            .map(|f| {
                format!("{} {} {:?} {} {} {:?}", f.rule.name(), f.path, f.line, f.pointer, f.message, f.fingerprint)
            })
            .collect();
        let files: Vec<String> =
            r.files.iter().map(|f| format!("{} {} {} {}", f.path, f.format, f.requests, f.entries)).collect();
        let skipped: Vec<String> = r.skipped.iter().map(|s| format!("{}: {}", s.path, s.reason)).collect();
        let failed: Vec<String> = r.errors.iter().map(|e| e.message()).collect();
        (findings, files, skipped, failed)
    };
    // Every small file waits for its check; the two large ones do not.
    let later = ctxlint::inputs::DiscoverOptions { detect_when_checked: true, ..Default::default() };
    let plan = ctxlint::inputs::discover(&[root.to_string_lossy().into_owned()], &later).unwrap();
    assert_eq!(plan.later.as_ref().map(|l| l.pending.len()), Some(9));
    assert_eq!(plan.work_len(), 10, "{:?}", plan.jobs);
    let (at_discovery, when_checked) = (run(false), run(true));
    assert_eq!(at_discovery, when_checked);
    let (findings, files, skipped, failed) = when_checked;
    let base = root.to_string_lossy().into_owned();
    let names: Vec<String> = files.iter().map(|f| f.strip_prefix(&base).unwrap_or(f).to_string()).collect();
    assert!(names.iter().any(|f| f.starts_with("/a openai-chat 2 ")), "{names:?}");
    assert!(names.iter().any(|f| f.starts_with("/reqs openai-chat 2 ")), "{names:?}");
    assert!(names.iter().any(|f| f.starts_with("/big.jsonl claude-code")), "{names:?}");
    assert_eq!(files.len(), 6, "{files:?}");
    assert!(
        findings.iter().any(|f| f.starts_with("dropped-system-prompt") && f.contains("/reqs/req2.json")),
        "{findings:?}"
    );
    assert!(findings.iter().any(|f| f.starts_with("malformed-line") && f.contains("rollout.jsonl")), "{findings:?}");
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(failed.is_empty(), "{failed:?}");
}
