//! The `copilot-cli` input format on `fixtures/formats/copilot-cli`: the
//! MIT-licensed example logs of jazzyalex/agent-sessions load without
//! findings; each defect fixture (derived from them, following the CLI's event
//! schema) gives exactly its finding; torn lines are one `malformed-line`
//! each, at the line the CLI's reader fails on.

use crate::found::{Want, assert_findings, check_json, rule_line_pointer as found};
use serde_json::Value;

const DIR: &str = "fixtures/formats/copilot-cli";

fn check(name: &str) -> (i32, Value) {
    check_json(&format!("{DIR}/{name}"))
}

#[test]
fn example_logs_clean_files_and_traps_have_no_findings() {
    for name in [
        "agent-sessions/small.jsonl",
        "agent-sessions/large.jsonl",
        "agent-sessions/schema_drift.jsonl",
        "clean.jsonl",
        // An abort gives the waiting call its synthetic "interrupted" result.
        "trap-abort.jsonl",
        // A compaction replaces the history before it with its summary.
        "trap-compaction.jsonl",
    ] {
        let (code, v) = check(name);
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
        assert_eq!(v["files"][0]["format"], "copilot-cli", "{name}");
    }
}

#[test]
fn each_defect_is_found_at_its_line() {
    let cases: &[(&str, &[Want])] = &[
        ("unanswered-tool-call.jsonl", &[("unanswered-tool-call", 15, "/data/toolRequests/0")]),
        ("duplicate-user-turn.jsonl", &[("duplicate-user-turn", 16, "/data")]),
        ("duplicate-reply.jsonl", &[("duplicate-reply", 16, "/data/content")]),
        ("duplicate-context-block.jsonl", &[("duplicate-context-block", 16, "/data/transformedContent")]),
        ("not-append-only.jsonl", &[("not-append-only", 14, "")]),
        // One event over three lines (raw newlines in its text): one finding at its
        // first line, and the call it answered is not reported as unanswered.
        ("torn-raw-newline.jsonl", &[("malformed-line", 11, "")]),
        ("torn-u2028.jsonl", &[("malformed-line", 12, "")]),
        ("torn-fused.jsonl", &[("malformed-line", 12, "")]),
    ];
    assert_findings(DIR, cases);
    let (_, v) = check("torn-raw-newline.jsonl");
    let msg = v["findings"][0]["message"].as_str().unwrap();
    assert!(msg.contains("raw newline"), "{msg}");
    let (_, v) = check("torn-u2028.jsonl");
    let msg = v["findings"][0]["message"].as_str().unwrap();
    assert!(msg.contains("U+2028"), "{msg}");
}

#[test]
fn a_system_prompt_written_again_unchanged_keeps_its_first_line() {
    // Copilot CLI writes its `system.message` again at every turn: `show`
    // labelled the first call's system prompt with a line written minutes
    // after that call (a real session: line 189 for a prompt first at line 3).
    let d = tempfile::tempdir().unwrap();
    let sys = |id: &str, parent: &str, text: &str| {
        serde_json::json!({"type": "system.message", "data": {"role": "system", "content": text}, "id": id, "timestamp": "2026-06-08T02:33:34.280Z", "parentId": parent}).to_string()
    };
    let user = |id: &str, parent: &str, text: &str| {
        serde_json::json!({"type": "user.message", "data": {"content": text, "transformedContent": text, "attachments": []}, "id": id, "timestamp": "2026-06-08T02:33:35.000Z", "parentId": parent}).to_string()
    };
    let reply = |id: &str, parent: &str, text: &str| {
        serde_json::json!({"type": "assistant.message", "data": {"messageId": id, "model": "claude-sonnet-4.6", "content": text, "toolRequests": []}, "id": id, "timestamp": "2026-06-08T02:33:40.000Z", "parentId": parent}).to_string()
    };
    let start = serde_json::json!({"type": "session.start", "data": {"sessionId": "s", "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.60", "startTime": "2026-06-08T02:32:49.813Z"}, "id": "e1", "timestamp": "2026-06-08T02:32:50.426Z", "parentId": null}).to_string();
    let lines = [
        start,
        sys("e2", "e1", "You are the GitHub Copilot CLI."),
        user("e3", "e2", "list the files"),
        reply("e4", "e3", "a.txt b.txt"),
        sys("e5", "e4", "You are the GitHub Copilot CLI."),
        user("e6", "e5", "thanks"),
        reply("e7", "e6", "You're welcome."),
    ];
    let p = d.path().join("events.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["show", p.to_str().unwrap(), "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sys = &v["requests"][0]["messages"][0];
    assert_eq!((sys["role"].as_str(), sys["line"].as_u64()), (Some("system"), Some(2)), "{v}");
}
