//! The CLI surface: configuration files, overrides, baselines, stdin,
//! compressed inputs, rule selection.

use crate::support::ctxlint;
use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn json_out(c: &mut Command) -> (i32, Value) {
    let out = c.args(["--output-format", "json"]).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), v)
}

fn rules_of(v: &Value) -> Vec<(String, String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().into(),
                f["path"].as_str().unwrap().into(),
                f["severity"].as_str().unwrap().into(),
            )
        })
        .collect()
}

const SESSION: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/report/mixed-session.jsonl");

/// A project with two folders holding the same session, and a config that
/// turns a rule off in one folder and raises another to error in the other.
fn project(config: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for sub in ["quiet", "strict"] {
        std::fs::create_dir(d.path().join(sub)).unwrap();
        std::fs::copy(SESSION, d.path().join(sub).join("s.jsonl")).unwrap();
    }
    std::fs::write(d.path().join("ctxlint.toml"), config).unwrap();
    d
}

#[test]
fn overrides_turn_a_rule_off_in_one_folder_and_to_error_in_another() {
    let d = project(
        r#"
[[overrides]]
paths = ["quiet/**"]
rules = { duplicate-system-event = "off" }

[[overrides]]
paths = ["strict/**"]
rules = { CTX203 = "error" }
"#,
    );
    let (code, v) = json_out(ctxlint().current_dir(d.path()).args(["check", "."]));
    assert_eq!(code, 1);
    let mut got = rules_of(&v);
    got.sort();
    let want = vec![
        ("duplicate-system-event".into(), "strict/s.jsonl".into(), "error".into()),
        ("duplicate-user-turn".into(), "quiet/s.jsonl".into(), "warning".into()),
        ("duplicate-user-turn".into(), "strict/s.jsonl".into(), "error".into()),
        ("orphan-tool-result".into(), "quiet/s.jsonl".into(), "error".into()),
        ("orphan-tool-result".into(), "strict/s.jsonl".into(), "error".into()),
    ];
    assert_eq!(got, want);
}

#[test]
fn config_is_found_from_a_subdirectory_and_isolated_ignores_it() {
    let d = project("[rules]\norphan-tool-result = \"off\"\n");
    let (_, v) = json_out(ctxlint().current_dir(d.path().join("quiet")).args(["check", "s.jsonl"]));
    assert!(rules_of(&v).iter().all(|r| r.0 != "orphan-tool-result"));
    let (_, v) = json_out(ctxlint().current_dir(d.path().join("quiet")).args(["check", "s.jsonl", "--isolated"]));
    assert!(rules_of(&v).iter().any(|r| r.0 == "orphan-tool-result"));
}

#[test]
fn unknown_config_key_is_exit_2_naming_the_key_and_file() {
    let d = project("[rules]\norphan-tool-result = \"off\"\n\ncolour = \"red\"\n");
    let out = ctxlint().current_dir(d.path()).args(["check", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("colour") && err.contains("ctxlint.toml"), "{err}");
}

#[test]
fn unknown_rule_in_config_is_exit_2() {
    let d = project("[rules]\nno-such-rule = \"off\"\n");
    let out = ctxlint().current_dir(d.path()).args(["check", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-rule"));
}

#[test]
fn fail_on_error_makes_warnings_exit_0() {
    let d = project("fail-on = \"error\"\n[rules]\nCTX101 = \"off\"\nCTX302 = \"off\"\n");
    let (code, v) = json_out(ctxlint().current_dir(d.path()).args(["check", "quiet"]));
    assert_eq!(rules_of(&v).len(), 1);
    assert_eq!(code, 0);
}

#[test]
fn select_and_ignore() {
    let (_, v) = json_out(ctxlint().args([
        "check",
        SESSION,
        "--isolated",
        "--select",
        "CTX101,orphan-tool-result",
        "--ignore",
        "CTX101",
    ]));
    assert_eq!(rules_of(&v).into_iter().map(|r| r.0).collect::<Vec<_>>(), vec!["orphan-tool-result"]);
}

#[test]
fn exit_zero() {
    let out = ctxlint().args(["check", SESSION, "--exit-zero"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn baseline_on_the_shared_cases_then_one_new_defect() {
    let Some(cases) = crate::shared::path("cases") else { return };
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("cases");
    copy_dir(&cases, &tree);
    let base = d.path().join("baseline.json");
    let out = ctxlint()
        .current_dir(d.path())
        .args(["check", "cases", "--isolated", "--write-baseline"])
        .arg(&base)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, v) =
        json_out(ctxlint().current_dir(d.path()).args(["check", "cases", "--isolated", "--baseline"]).arg(&base));
    assert_eq!((code, v["findings"].as_array().unwrap().len()), (0, 0));
    // One new defect file.
    std::fs::copy(SESSION, tree.join("new-defect.jsonl")).unwrap();
    let (code, v) = json_out(
        ctxlint()
            .current_dir(d.path())
            .args(["check", "cases", "--isolated", "--select", "CTX302", "--baseline"])
            .arg(&base),
    );
    assert_eq!(code, 1);
    assert_eq!(rules_of(&v), vec![("orphan-tool-result".into(), "cases/new-defect.jsonl".into(), "error".into())]);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn stdin_with_a_filename() {
    let (code, v) =
        json_out(ctxlint().args(["check", "-", "--stdin-filename", "piped.jsonl"]).pipe_stdin(SESSION).unwrap());
    assert_eq!(code, 1);
    assert!(rules_of(&v).iter().all(|r| r.1 == "piped.jsonl"));
    assert_eq!(rules_of(&v).len(), 3);
}

#[test]
fn gzip_and_zstd_inputs_are_read_transparently() {
    let d = tempfile::tempdir().unwrap();
    let raw = std::fs::read(SESSION).unwrap();
    let gz = d.path().join("s.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &raw).unwrap();
    enc.finish().unwrap();
    let zst = d.path().join("s.jsonl.zst");
    std::fs::write(&zst, zstd::encode_all(&raw[..], 3).unwrap()).unwrap();
    for p in [gz, zst] {
        let (code, v) = json_out(ctxlint().arg("check").arg(&p));
        assert_eq!(code, 1);
        let lines: Vec<u64> = v["findings"].as_array().unwrap().iter().map(|f| f["line"].as_u64().unwrap()).collect();
        assert_eq!(lines, vec![3, 5, 7], "{}", p.display());
    }
}

#[test]
fn statistics_table() {
    let out = ctxlint().args(["check", SESSION, "--statistics"]).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("duplicate-user-turn") && s.contains("CTX302"), "{s}");
}

#[test]
fn statistics_with_a_format_that_has_no_table_is_a_usage_error_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    for f in ["html", "sarif", "junit", "gitlab"] {
        let o = d.path().join(format!("report.{f}"));
        let out = ctxlint()
            .args(["check", SESSION, "--statistics", "--output-format", f, "-o", o.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{f}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("--statistics prints counts per rule, as a table or as JSON; {f} has no such form")),
            "{err}"
        );
        assert!(!o.exists(), "{f}");
    }
}

#[test]
fn dash_as_the_output_file_is_standard_output() {
    let d = tempfile::tempdir().unwrap();
    let req = |n: u8| format!("{}/fixtures/cases/litellm-36559-system-hoist/req{n}.json", env!("CARGO_MANIFEST_DIR"));
    let (req1, req2) = (req(1), req(2));
    for args in [
        vec!["check", SESSION, "--output-format", "json", "-o", "-"],
        vec!["show", SESSION, "-o", "-"],
        vec!["diff", &req1, &req2, "-o", "-"],
    ] {
        let out = ctxlint().current_dir(d.path()).args(&args).output().unwrap();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert!(!d.path().join("-").exists(), "{args:?} wrote a file named -");
    }
    let out = ctxlint()
        .current_dir(d.path())
        .args(["check", SESSION, "--output-format", "json", "-o", "-"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["findings"], 3);
}

#[test]
fn bidirectional_controls_are_shown_escaped_in_every_human_output() {
    let d = tempfile::tempdir().unwrap();
    let bidi = "\u{202e}evil\u{2066}x\u{2069}\u{200f}";
    let session =
        std::fs::read_to_string(SESSION).unwrap().replace("Slack DM from user-a", &format!("Slack DM {bidi}"));
    let name = format!("s{bidi}.jsonl");
    std::fs::write(d.path().join(&name), &session).unwrap();
    let req = |n: u8| {
        std::fs::read_to_string(format!(
            "{}/fixtures/cases/litellm-36559-system-hoist/req{n}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let (r1, r2) = (req(1), req(2));
    let first_text = r1.find("\"text\": \"").map(|i| i + 9).unwrap();
    std::fs::write(d.path().join("r1.json"), &r1).unwrap();
    std::fs::write(d.path().join("r2.json"), format!("{}{bidi}{}", &r2[..first_text], &r2[first_text..])).unwrap();
    for args in [
        vec!["check", name.as_str()],
        vec!["check", ".", "--show-files"],
        vec!["show", name.as_str()],
        vec!["show", name.as_str(), "--step", "0"],
        vec!["show", name.as_str(), "--step", "0", "--full"],
        vec!["diff", "r1.json", "r2.json"],
    ] {
        let out = ctxlint().current_dir(d.path()).env("NO_COLOR", "1").args(&args).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {text}");
        for c in ['\u{202e}', '\u{2066}', '\u{2069}', '\u{200f}'] {
            assert!(!text.contains(c), "{args:?} printed {c:?} raw:\n{text}");
        }
        assert!(text.contains("\\u{202e}"), "{args:?}: {text}");
    }
}

#[test]
fn no_path_scans_installed_agent_folders() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".pi/agent/sessions/--w--");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(SESSION, dir.join("s.jsonl")).unwrap();
    // std's `output` gives the child /dev/null: not piped (assert_cmd's is a pipe,
    // and a piped standard input with no PATH is refused, tests/inputs.rs).
    let bin = || {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlint"));
        c.env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("QWEN_HOME")
            .env_remove("QWEN_RUNTIME_DIR")
            .env_remove("COPILOT_HOME")
            .env_remove("XDG_DATA_HOME");
        c
    };
    // An OpenClaw trajectory beside its session is checked too.
    let oc = home.path().join(".openclaw/agents/main/sessions");
    std::fs::create_dir_all(&oc).unwrap();
    std::fs::copy(
        fixture("formats/openclaw-trajectory/orphan-tool-result.trajectory.jsonl"),
        oc.join("s.trajectory.jsonl"),
    )
    .unwrap();
    // Gemini CLI and Qwen Code chats: only their `chats` folders are walked
    // (the logs beside them are not session files).
    let gem = home.path().join(".gemini/tmp/proj/chats");
    std::fs::create_dir_all(&gem).unwrap();
    std::fs::copy(fixture("formats/gemini-cli/unanswered-tool-call.jsonl"), gem.join("session-1.jsonl")).unwrap();
    std::fs::write(home.path().join(".gemini/tmp/proj/logs.json"), "[]").unwrap();
    let qw = home.path().join(".qwen/projects/-w-proj/chats");
    std::fs::create_dir_all(&qw).unwrap();
    std::fs::copy(fixture("formats/gemini-cli/recorded/qwen-clean.jsonl"), qw.join("q.jsonl")).unwrap();
    // Copilot CLI: each session's `events.jsonl`, not the workspace files beside it.
    let cp = home.path().join(".copilot/session-state/0197-a/");
    std::fs::create_dir_all(cp.join("checkpoints")).unwrap();
    std::fs::copy(fixture("formats/copilot-cli/clean.jsonl"), cp.join("events.jsonl")).unwrap();
    std::fs::write(cp.join("workspace.yaml"), "cwd: /w\n").unwrap();
    std::fs::write(cp.join("checkpoints/index.md"), "# checkpoints\n").unwrap();
    // … and the earlier flat layout, one `<session id>.jsonl` per session.
    std::fs::copy(fixture("formats/copilot-cli/clean.jsonl"), home.path().join(".copilot/session-state/0196-b.jsonl"))
        .unwrap();
    // Cline: each task's API history, not the UI log beside it.
    let task = home.path().join(".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1764662400000");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::copy(
        fixture("formats/cline-history/clean.api_conversation_history.json"),
        task.join("api_conversation_history.json"),
    )
    .unwrap();
    std::fs::write(task.join("ui_messages.json"), "[]").unwrap();
    // Claude Code and Codex sessions.
    let cc = home.path().join(".claude/projects/-w-proj");
    std::fs::create_dir_all(&cc).unwrap();
    std::fs::copy(fixture("cases/cc-12162-orphan-result/session.jsonl"), cc.join("s.jsonl")).unwrap();
    let cx = home.path().join(".codex/sessions/2026/01/02");
    std::fs::create_dir_all(&cx).unwrap();
    std::fs::copy(fixture("cases/codex-24425-torn-rollout/rollout.jsonl"), cx.join("rollout-1.jsonl")).unwrap();
    // Roo Code (VS Code globalStorage) and a Cline SDK session.
    let roo = home.path().join(".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/t1");
    std::fs::create_dir_all(&roo).unwrap();
    std::fs::copy(
        fixture("formats/cline-history/clean.api_conversation_history.json"),
        roo.join("api_conversation_history.json"),
    )
    .unwrap();
    // OpenCode: the store, one transcript per session (not its snapshots and logs).
    let oc_data = home.path().join(".local/share/opencode");
    std::fs::create_dir_all(oc_data.join("log")).unwrap();
    std::fs::copy(fixture("formats/opencode/two-sessions.db"), oc_data.join("opencode.db")).unwrap();
    std::fs::write(oc_data.join("log/dev.log"), "INFO started\n").unwrap();
    let out = bin().env("HOME", home.path()).arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tasks/1764662400000/api_conversation_history.json") && !err.contains("ui_messages"), "{err}");
    assert!(err.contains(".copilot/session-state/0197-a/events.jsonl"), "{err}");
    assert!(err.contains(".copilot/session-state/0196-b.jsonl"), "{err}");
    assert!(!err.contains("workspace.yaml") && !err.contains("index.md"), "{err}");
    assert!(err.contains(".gemini/tmp/proj/chats") && err.contains(".qwen/projects/-w-proj/chats"), "{err}");
    assert!(!err.contains("logs.json"), "{err}");
    assert!(String::from_utf8_lossy(&out.stderr).contains(".pi/agent/sessions"));
    let json = bin().env("HOME", home.path()).args(["check", "--output-format", "json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    let formats: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["format"].as_str().unwrap()).collect();
    assert!(formats.contains(&"openclaw-trajectory"), "{formats:?}");
    assert_eq!(formats.iter().filter(|f| **f == "gemini-cli").count(), 2, "{formats:?}");
    assert_eq!(formats.iter().filter(|f| **f == "copilot-cli").count(), 2, "{formats:?}");
    assert!(formats.contains(&"cline-history"), "{formats:?}");
    assert_eq!(formats.iter().filter(|f| **f == "opencode").count(), 2, "{formats:?}");
    assert_eq!(formats.iter().filter(|f| **f == "cline-history").count(), 2, "{formats:?}");
    assert!(
        formats.contains(&"claude-code") && formats.contains(&"codex-rollout") && formats.contains(&"pi-session"),
        "{formats:?}"
    );
    assert!(err.contains(".local/share/opencode/opencode.db") && !err.contains("dev.log"), "{err}");
    assert!(
        v["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "unanswered-tool-call"
            && f["format"] == "gemini-cli"
            && f["pointer"] == "/toolCalls/0")
    );
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "orphan-tool-result"
        && f["format"] == "openclaw-trajectory"
        && f["pointer"] == "/data/messages/2"));
    let empty = tempfile::tempdir().unwrap();
    let out = bin().env("HOME", empty.path()).arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fence_ownership_comes_from_the_config_file() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases/fence-foreign-user-message");
    let d = tempfile::tempdir().unwrap();
    for f in ["old.jsonl", "new.jsonl"] {
        std::fs::copy(case.join(f), d.path().join(f)).unwrap();
    }
    let out = ctxlint().current_dir(d.path()).args(["fence", "old.jsonl", "new.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    std::fs::write(d.path().join("ctxlint.toml"), "[fence]\nowned = [\"assistant\", \"toolResult\", \"user\"]\n")
        .unwrap();
    let out = ctxlint().current_dir(d.path()).args(["fence", "old.jsonl", "new.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out = ctxlint().current_dir(d.path()).args(["fence", "old.jsonl", "new.jsonl", "--isolated"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_folder_without_inputs_warns_and_skipped_files_say_why() {
    let d = tempfile::tempdir().unwrap();
    let out = ctxlint().args(["check"]).arg(d.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "No findings in 0 inputs.\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: no input files found under"), "{err}");

    std::fs::write(d.path().join("notes.json"), "{\"a\": 1}\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/nonexistent/ctxlint", d.path().join("gone.jsonl")).unwrap();
    let out = ctxlint().args(["check", "--output-format", "concise"]).arg(d.path()).output().unwrap();
    // No input at all, only skipped files: exit 2 (docs/spec.md §1), the report still printed.
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    #[cfg(unix)]
    assert_eq!(text, "No findings in 0 inputs, 2 skipped (1 no known format, 1 unreadable).\n");
    // Skipped files are listed, not a sign that nothing was found.
    assert!(!String::from_utf8_lossy(&out.stderr).contains("no input files found"));
}

// ------------------------------------------------- detection and --input-format (issue 13)

fn fixture(rel: &str) -> String {
    format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// (rule, line, pointer) of each finding.
fn located(v: &Value) -> Vec<(String, u64, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (f["rule"].as_str().unwrap().into(), f["line"].as_u64().unwrap(), f["pointer"].as_str().unwrap().into())
        })
        .collect()
}

const CC_SNAPSHOTS: &str = "detect/cc-leading-snapshots.jsonl";

#[test]
fn a_claude_code_session_behind_leading_snapshots_is_checked() {
    // Three `file-history-snapshot` lines and a `worktree-state` line (no uuid, no sessionId) first.
    let (code, v) = json_out(ctxlint().args(["check", &fixture(CC_SNAPSHOTS), "--isolated"]));
    assert_eq!(code, 1);
    assert_eq!(v["files"][0]["format"], "claude-code");
    assert_eq!(v["files"][0]["entries"], 8);
    assert_eq!(located(&v), vec![("unanswered-tool-call".into(), 6, "/message/content/0".into())]);
}

#[test]
fn an_openclaw_trajectory_beside_a_session_is_checked_not_skipped() {
    // A walked `agents/x/sessions/` folder, as OpenClaw lays it out: the
    // session file and its trajectory sidecar.
    let d = tempfile::tempdir().unwrap();
    let sessions = d.path().join("agents/main/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(fixture(CC_SNAPSHOTS), sessions.join("session.jsonl")).unwrap();
    std::fs::copy(
        fixture("formats/openclaw-trajectory/unanswered-tool-call.trajectory.jsonl"),
        sessions.join("session.trajectory.jsonl"),
    )
    .unwrap();
    let (code, v) = json_out(ctxlint().current_dir(d.path()).args(["check", ".", "--isolated"]));
    assert_eq!(code, 1);
    assert_eq!(
        v["files"],
        serde_json::json!([
            {"path": "agents/main/sessions/session.jsonl", "format": "claude-code", "requests": 0, "entries": 8, "skipped_exchanges": 0,
             "usage": {"calls": 1, "input": 12, "cache_read": 0, "cache_write": 0, "output": 30, "cache_read_ratio": 0.0,
                       "cost_usd": 0.000486, "unpriced_models": [], "unpriced_calls": 0, "unexplained_cache_breaks": []},
             "impact": null},
            // `model.completed` usage (pi-ai's, `input` without the 1,200 cached
            // tokens): 1480×3 + 1200×0.30 + 96×15 per million = $0.00624.
            {"path": "agents/main/sessions/session.trajectory.jsonl", "format": "openclaw-trajectory", "requests": 1, "entries": 0, "skipped_exchanges": 0,
             "usage": {"calls": 1, "input": 1480, "cache_read": 1200, "cache_write": 0, "output": 96, "cache_read_ratio": 0.4478,
                       "cost_usd": 0.00624, "unpriced_models": [], "unpriced_calls": 0, "unexplained_cache_breaks": []},
             "impact": null}
        ])
    );
    assert_eq!(v["skipped"], serde_json::json!([]));
    assert_eq!(
        located(&v),
        vec![
            ("unanswered-tool-call".into(), 6, "/message/content/0".into()),
            ("unanswered-tool-call".into(), 2, "/data/messages/1/content/1".into()),
        ]
    );
    // Named on the command line, and forced: the same.
    for extra in [&[][..], &["--input-format", "openclaw-trajectory"][..]] {
        let (code, v) = json_out(
            ctxlint()
                .current_dir(d.path())
                .args(["check", "agents/main/sessions/session.trajectory.jsonl", "--isolated"])
                .args(extra),
        );
        assert_eq!(code, 1, "{extra:?}");
        assert_eq!(v["files"][0]["format"], "openclaw-trajectory");
        assert_eq!(located(&v), vec![("unanswered-tool-call".into(), 2, "/data/messages/1/content/1".into())]);
    }
}

#[test]
fn a_trajectory_document_that_is_not_jsonl_is_skipped_saying_what_it_is() {
    let d = tempfile::tempdir().unwrap();
    let manifest = r#"{
  "traceSchema": "openclaw-trajectory",
  "schemaVersion": 1,
  "generatedAt": "2026-04-22T09:00:00.000Z",
  "traceId": "s1",
  "sessionId": "s1",
  "workspaceDir": "/home/dev/proj",
  "leafId": null,
  "eventCount": 3,
  "runtimeEventCount": 3,
  "transcriptEventCount": 0,
  "sourceFiles": {"session": "session.jsonl"}
}
"#;
    std::fs::write(d.path().join("manifest.json"), manifest).unwrap();
    let out = ctxlint().current_dir(d.path()).args(["check", "manifest.json", "--isolated"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("; it is an OpenClaw trajectory document, not a trajectory (an export bundle's manifest or a pretty-printed event; openclaw-trajectory reads `*.trajectory.jsonl` files, one event per line)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_session_of_only_bookkeeping_records_is_claude_code_detected_or_forced() {
    let d = tempfile::tempdir().unwrap();
    let snap = r#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2026-04-18T13:18:42.474Z"},"isSnapshotUpdate":false}"#;
    let p = d.path().join("snaps.jsonl");
    std::fs::write(&p, format!("{snap}\n{snap}\n")).unwrap();
    let p = p.to_string_lossy().into_owned();
    for forced in [None, Some("claude-code")] {
        let mut c = ctxlint();
        c.args(["check", "--isolated", &p]);
        if let Some(f) = forced {
            c.args(["--input-format", f]);
        }
        let (code, v) = json_out(&mut c);
        assert_eq!(code, 0, "{forced:?}");
        assert_eq!(v["files"][0]["format"], "claude-code");
        assert_eq!(v["files"][0]["entries"], 2);
        assert_eq!(v["summary"]["failed"], 0);
    }
    let out = ctxlint().args(["show", &p, "--input-format", "claude-code"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("{p} (claude-code): 0 steps\n")));
}

/// `check --input-format FORMAT FILE`: exit code and stderr.
fn forced(format: &str, file: &str) -> (i32, String) {
    let out = ctxlint().args(["check", "--isolated", "--input-format", format, file]).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_forced_format_the_file_does_not_fit_is_an_error_naming_what_is_missing() {
    let d = tempfile::tempdir().unwrap();
    let body = d.path().join("body.json");
    std::fs::write(&body, r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#).unwrap();
    let body = body.to_string_lossy().into_owned();
    let cc = fixture(CC_SNAPSHOTS);
    let cases = [
        (
            "pi-session",
            cc.clone(),
            "--input-format pi-session: no record has `type` \"session\" with `id`, `version` or `cwd` (the session header pi writes first), nor is a pi session entry (`type`, `id`, `parentId`, `timestamp`); the file does not fit that format",
        ),
        (
            "codex-rollout",
            cc.clone(),
            "--input-format codex-rollout: no record has `timestamp`, `payload` and `type` session_meta, response_item, event_msg, turn_context or compacted; the file does not fit that format",
        ),
        (
            "exchange-log",
            cc.clone(),
            "--input-format exchange-log: no line has a `request` object; the file does not fit that format",
        ),
        (
            "claude-code",
            SESSION.to_string(),
            "--input-format claude-code: no record has `type` with `uuid`, `parentUuid` or `sessionId` (a Claude Code session record), nor is one of its bookkeeping records (`file-history-snapshot`, `summary`, …); the file does not fit that format",
        ),
        (
            "claude-code",
            fixture("detect/openclaw.trajectory.jsonl"),
            "--input-format claude-code: no record has `type` with `uuid`, `parentUuid` or `sessionId` (a Claude Code session record), nor is one of its bookkeeping records (`file-history-snapshot`, `summary`, …); the file does not fit that format",
        ),
        (
            "openclaw-trajectory",
            cc.clone(),
            "--input-format openclaw-trajectory: no record has `traceSchema` \"openclaw-trajectory\" and a `type` (an OpenClaw trajectory event); the file does not fit that format",
        ),
        (
            "anthropic-messages",
            SESSION.to_string(),
            "--input-format anthropic-messages: not one JSON document (trailing characters at line 2 column 1), so no request body; the file does not fit that format",
        ),
        (
            "vcr-cassette",
            body.clone(),
            "--input-format vcr-cassette: no top-level `interactions` list (a VCR cassette); the file does not fit that format",
        ),
        ("gemini", body.clone(), "--input-format gemini: no `contents` array; the file does not fit that format"),
        (
            "openai-responses",
            body.clone(),
            "--input-format openai-responses: no `input`, `instructions` or `previous_response_id`; the file does not fit that format",
        ),
        (
            "pydantic-ai-history",
            body.clone(),
            "--input-format pydantic-ai-history: not an array of messages with `kind` \"request\" or \"response\" and `parts`; the file does not fit that format",
        ),
    ];
    for (format, file, want) in cases {
        let (code, err) = forced(format, &file);
        assert_eq!(code, 2, "{format} on {file}: {err}");
        assert_eq!(err, format!("ctxlint: error: {file}: {want}\n"), "{format} on {file}");
    }
    // One unfit file among others: an error for it, the others still checked and reported.
    let (code, v) = json_out(ctxlint().args(["check", "--isolated", "--input-format", "claude-code", &cc, SESSION]));
    assert_eq!(code, 2);
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(located(&v), vec![("unanswered-tool-call".into(), 6, "/message/content/0".into())]);
}

#[test]
fn a_forced_format_that_fits_is_checked_as_if_detected() {
    let cc = fixture(CC_SNAPSHOTS);
    let (code, v) = json_out(ctxlint().args(["check", "--isolated", "--input-format", "claude-code", &cc]));
    assert_eq!(code, 1);
    assert_eq!(located(&v), vec![("unanswered-tool-call".into(), 6, "/message/content/0".into())]);
    let (code, v) = json_out(ctxlint().args(["check", "--isolated", "--input-format", "pi-session", SESSION]));
    let (code_detected, v_detected) = json_out(ctxlint().args(["check", "--isolated", SESSION]));
    assert_eq!((code, located(&v)), (code_detected, located(&v_detected)));
    // A Chat body forced as Anthropic Messages (both have `messages`).
    let d = tempfile::tempdir().unwrap();
    let body = d.path().join("body.json");
    std::fs::write(&body, r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#).unwrap();
    let (code, v) =
        json_out(ctxlint().args(["check", "--isolated", "--input-format", "anthropic-messages"]).arg(&body));
    assert_eq!((code, v["files"][0]["format"].as_str()), (0, Some("anthropic-messages")));
    // A cassette forced as one.
    let (code, v) = json_out(ctxlint().args([
        "check",
        "--isolated",
        "--input-format",
        "vcr-cassette",
        &fixture("vcr/binary-bodies.yaml"),
    ]));
    assert_eq!((code, v["files"][0]["requests"].as_u64()), (1, Some(3)));
}

#[test]
fn a_cassette_with_binary_bodies_is_checked() {
    // Interaction 0: a non-UTF-8 event-stream response; 1: a protobuf request
    // body (skipped, still counted); 2: a gzip'd JSON request; 3: a gRPC
    // `request_sample` (skipped); 4: drops the system prompt of request 2.
    let (code, v) = json_out(ctxlint().args(["check", "--isolated", &fixture("vcr/binary-bodies.yaml")]));
    assert_eq!(code, 1);
    assert_eq!(v["files"][0]["requests"], 3);
    let f = &v["findings"].as_array().unwrap()[..];
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0]["rule"].as_str(), f[0]["request"].as_u64(), f[0]["line"].as_u64(), f[0]["pointer"].as_str()),
        (Some("dropped-system-prompt"), Some(4), Some(79), Some("/interactions/4/request/parsed_body"))
    );
    assert_eq!(f[0]["related"][0]["pointer"], "/interactions/2/request/body/string/system");
}

#[test]
fn rule_duplicate_context_block_lists_the_built_in_wrappers_with_their_sources() {
    let out =
        assert_cmd::Command::cargo_bin("ctxlint").unwrap().args(["rule", "duplicate-context-block"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "Built-in wrappers",
        "| OpenClaw | per-message envelopes",
        "openclaw/openclaw src/auto-reply/reply/inbound-meta.ts",
        "openclaw/openclaw src/auto-reply/reply/body.ts",
        "openclaw/openclaw src/cron/isolated-agent/run.ts",
        "openclaw/openclaw src/agents/internal-events.ts",
        "| Claude Code | the local-command caveat",
        "| Claude Code | IDE notices",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(!text.contains("{wrappers}"), "{text}");
}
