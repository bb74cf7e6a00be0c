//! Files agents keep beside their sessions by design, and reports ctxlint
//! wrote, are known sidecars (`src/sidecars.rs`, docs/spec.md §1): skipped together in
//! one counted note, each listed under `skipped` with its reason, never a
//! `--strict` failure; a real input with a sidecar's name is still read.

use serde_json::Value;
use std::path::Path;

const PI: &str = concat!(
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-04-19T13:00:00.000Z","cwd":"/w"}"#,
    "\n",
    r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-04-19T13:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
    "\n",
    r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-04-19T13:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop"}}"#,
    "\n",
);

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// An agent home as people keep it: sessions with their sidecars, two
/// ctxlint reports, one unknown JSON file, and a pi session named like an
/// OpenClaw index (read, not hidden).
fn agent_home() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    put(r, ".claude/projects/-w/0c1d/subagents/agent-a1.meta.json", r#"{"agentType":"general-purpose"}"#);
    // A session holding only its `claude --teleport` record (a real file of a
    // `~/.claude` backup): a Claude Code session with no model call.
    put(
        r,
        ".claude/projects/-w/0c1d.jsonl",
        "{\"type\":\"teleported-from\",\"remoteSessionId\":\"session_01X\",\"branch\":\"claude/x\",\"messageCount\":0}\n",
    );
    // Saved tool outputs that printed lines of another session (a grep over
    // `~/.claude/projects`): sidecars, never read as sessions — also in a
    // session folder whose session file a backup left out.
    put(
        r,
        ".claude/projects/-w/7280d7ee-fb42-42c7-a7eb-e8f636279107/tool-results/b7n1edfvt.txt",
        "{\"type\":\"user\",\"uuid\":\"u3\",\"parentUuid\":\"u2\",\"sessionId\":\"5c04\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    );
    put(
        r,
        ".claude/projects/-w/0c1d/tool-results/b0giwlk6l.txt",
        "{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"u1\",\"sessionId\":\"5c04\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    );
    put(
        r,
        ".claude/history.jsonl",
        "{\"display\":\"/init\",\"pastedContents\":{},\"timestamp\":1760501344792,\"project\":\"/w\"}\n",
    );
    put(r, ".codex/history.jsonl", "{\"session_id\":\"019a\",\"ts\":1776603600,\"text\":\"hi\"}\n");
    std::fs::create_dir_all(r.join(".codex/sessions")).unwrap();
    put(
        r,
        ".gemini/tmp/9f3e/logs.json",
        r#"[{"sessionId":"s","messageId":0,"type":"user","message":"hi","timestamp":"2026-04-19T13:00:00.000Z"}]"#,
    );
    put(r, "tasks/1776603600/ui_messages.json", r#"[{"ts":1776603600000,"type":"say","say":"text","text":"hi"}]"#);
    put(r, "tasks/1776603600/task_metadata.json", r#"{"files_in_context":[],"model_usage":[]}"#);
    put(r, ".copilot/session-state/7b2a/workspace.yaml", "id: 7b2a\ncwd: /w\n");
    put(r, ".copilot/session-state/7b2a/vscode.metadata.json", "{}");
    put(
        r,
        ".copilot/session-state/7b2a/vscode.requests.metadata.json",
        r#"[{"vscodeRequestId":"r1","copilotRequestId":"c1","toolIdEditMap":{}}]"#,
    );
    put(r, ".copilot/session-state/7b2a/rewind-snapshots/index.json", r#"{"snapshots":[]}"#);
    put(
        r,
        ".openclaw/agents/main/sessions/sessions.json",
        r#"{"agent:main:main":{"sessionId":"s1","updatedAt":1776603600000}}"#,
    );
    put(r, ".openclaw/agents/main/sessions/s1.jsonl", PI);
    put(r, ".openclaw/agents/main/sessions/s1.jsonl.lock", r#"{"pid":4242}"#);
    put(
        r,
        ".openclaw/agents/main/sessions/s1.trajectory-path.json",
        r#"{"traceSchema":"openclaw-trajectory-pointer","schemaVersion":1,"sessionId":"s1"}"#,
    );
    put(r, ".openclaw/agents/ops/sessions/sessions.json", PI);
    put(r, "ctxlint-report.json", r#"{"version": 1, "tool": "ctxlint", "findings": [], "files": [], "summary": {}}"#);
    put(
        r,
        "ctxlint.sarif",
        r#"{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "ctxlint", "rules": []}}, "results": []}]}"#,
    );
    put(r, "notes.json", r#"{"todo": "nothing"}"#);
    d
}

fn run(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(dir)
        .args(["check", "--isolated", "--output-format", "json"])
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), v, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn skipped(v: &Value) -> Vec<(String, String)> {
    let mut s: Vec<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap().to_string(), s["reason"].as_str().unwrap().to_string()))
        .collect();
    s.sort();
    s
}

#[test]
fn sidecars_are_one_counted_note_and_listed_with_their_reason() {
    let d = agent_home();
    let (code, v, stderr) = run(d.path(), &["."]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "ctxlint: note: 17 sidecar files skipped (kept beside sessions by their agent, or a ctxlint report; `--show-files` lists them)",
            "ctxlint: warning: notes.json: matches no input format; skipped",
            format!(
                "ctxlint: note: a file skipped for matching no format was tried as each of the {} formats `ctxlint formats` lists; use --input-format to force one",
                ctxlint::formats::REGISTRY.len()
            )
            .as_str(),
        ],
        "{stderr}"
    );
    let files: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    // The pi session named `sessions.json` is read: detection comes first.
    assert_eq!(
        files,
        [
            ".claude/projects/-w/0c1d.jsonl",
            ".openclaw/agents/main/sessions/s1.jsonl",
            ".openclaw/agents/ops/sessions/sessions.json"
        ],
        "{v}"
    );
    let s = skipped(&v);
    let sc = "sidecar file: ";
    let want: Vec<(String, String)> = [
        (".claude/history.jsonl", "Claude Code prompt history"),
        (".claude/projects/-w/0c1d/subagents/agent-a1.meta.json", "Claude Code sub-agent metadata"),
        (".claude/projects/-w/0c1d/tool-results/b0giwlk6l.txt", "Claude Code saved tool outputs"),
        (
            ".claude/projects/-w/7280d7ee-fb42-42c7-a7eb-e8f636279107/tool-results/b7n1edfvt.txt",
            "Claude Code saved tool outputs",
        ),
        (".codex/history.jsonl", "Codex prompt history"),
        (".copilot/session-state/7b2a/rewind-snapshots/index.json", "Copilot CLI session state"),
        (".copilot/session-state/7b2a/vscode.metadata.json", "Copilot CLI session state"),
        (".copilot/session-state/7b2a/vscode.requests.metadata.json", "Copilot CLI session state"),
        (".copilot/session-state/7b2a/workspace.yaml", "Copilot CLI session state"),
        (".gemini/tmp/9f3e/logs.json", "Gemini CLI / Qwen Code prompt log"),
        (".openclaw/agents/main/sessions/s1.jsonl.lock", "OpenClaw session store index"),
        (".openclaw/agents/main/sessions/s1.trajectory-path.json", "OpenClaw session store index"),
        (".openclaw/agents/main/sessions/sessions.json", "OpenClaw session store index"),
        ("ctxlint-report.json", "a report ctxlint wrote (`--output-format json`)"),
        ("ctxlint.sarif", "a report ctxlint wrote (`--output-format sarif`)"),
        ("notes.json", "matches no input format"),
        ("tasks/1776603600/task_metadata.json", "Cline / Roo Code / Kilo Code task UI state"),
        ("tasks/1776603600/ui_messages.json", "Cline / Roo Code / Kilo Code task UI state"),
    ]
    .iter()
    .map(|(p, r)| (p.to_string(), r.to_string()))
    .collect();
    assert_eq!(s.len(), want.len(), "{s:#?}");
    for ((gp, gr), (wp, wr)) in s.iter().zip(&want) {
        assert_eq!(gp, wp);
        if wr == "matches no input format" {
            assert_eq!(gr, wr);
        } else {
            assert!(gr.starts_with(&format!("{sc}{wr}")), "{gp}: {gr}");
        }
    }
    assert_eq!(v["summary"]["skipped"], 18, "{v}");
}

#[test]
fn sidecars_never_fail_strict_and_a_named_sidecar_is_the_same_note() {
    let d = agent_home();
    std::fs::remove_file(d.path().join("notes.json")).unwrap();
    let (code, v, stderr) = run(d.path(), &["--strict", "."]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    // Named on the command line: skipped with the same note, no warning, and
    // the other input still checked.
    let (code, v, stderr) = run(d.path(), &[".codex/history.jsonl", ".openclaw/agents/main/sessions/s1.jsonl"]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "ctxlint: note: 1 sidecar file skipped (kept beside sessions by their agent, or a ctxlint report; `--show-files` lists them)"
    );
    assert_eq!(v["files"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(skipped(&v)[0].0, ".codex/history.jsonl");
}

#[test]
fn a_report_ctxlint_wrote_inside_the_checked_folder_is_a_sidecar_on_the_next_run() {
    let d = agent_home();
    std::fs::remove_file(d.path().join("notes.json")).unwrap();
    // One finding, so that every report has one to list.
    put(d.path(), ".openclaw/agents/main/sessions/s2.jsonl", PI.split_once('\n').unwrap().1);
    // Written outside the folder, then put inside it (as a CI job that keeps
    // its reports beside the transcripts does).
    let reports = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("out")).unwrap();
    for fmt in ["json", "sarif", "gitlab", "junit", "html", "json-lines"] {
        let file = reports.path().join(format!("report.{fmt}"));
        let out = assert_cmd::Command::cargo_bin("ctxlint")
            .unwrap()
            .current_dir(d.path())
            .args(["check", "--isolated", "--output-format", fmt, "-o", file.to_str().unwrap(), "."])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{fmt}: {}", String::from_utf8_lossy(&out.stderr));
        std::fs::copy(&file, d.path().join(format!("out/report.{fmt}"))).unwrap();
    }
    let (code, v, stderr) = run(d.path(), &["out"]);
    assert_eq!(code, 2, "{v}\n{stderr}");
    let s = skipped(&v);
    assert_eq!(s.len(), 6, "{s:#?}");
    for (p, r) in &s {
        let fmt = p.rsplit('.').next().unwrap();
        assert_eq!(r, &format!("sidecar file: a report ctxlint wrote (`--output-format {fmt}`)"), "{p}");
    }
}
