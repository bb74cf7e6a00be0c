//! `openclaw-trajectory`: every fixture under `fixtures/formats/openclaw-trajectory/`
//! gives exactly its findings (rule, line, pointer, request, severity), and
//! `diff`, `show` and `repro` work on a trajectory.

use crate::support::ctxlint;
use serde_json::Value;

fn fixture(name: &str) -> String {
    format!("{}/fixtures/formats/openclaw-trajectory/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// (rule, severity, line, pointer, request, related (line, pointer)).
type Found = (String, String, u64, String, u64, Vec<(u64, String)>);

fn check(name: &str) -> (i32, Value, Vec<Found>) {
    let out = ctxlint().args(["check", "--isolated", "--output-format", "json", &fixture(name)]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let related = f["related"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["line"].as_u64().unwrap_or(0), r["pointer"].as_str().unwrap().to_string()))
                .collect();
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["pointer"].as_str().unwrap().to_string(),
                f["request"].as_u64().unwrap(),
                related,
            )
        })
        .collect();
    (out.status.code().unwrap(), v, found)
}

fn f(rule: &str, sev: &str, line: u64, ptr: &str, req: u64, related: &[(u64, &str)]) -> Found {
    (rule.into(), sev.into(), line, ptr.into(), req, related.iter().map(|(l, p)| (*l, p.to_string())).collect())
}

#[test]
fn the_clean_trajectory_has_no_findings() {
    let (code, v, found) = check("clean.trajectory.jsonl");
    assert_eq!(found, vec![]);
    assert_eq!(code, 0);
    // Four context.compiled records: two sessions, one aborted attempt retried.
    assert_eq!(v["files"][0]["format"], "openclaw-trajectory");
    assert_eq!(v["files"][0]["requests"], 4);
}

#[test]
fn a_recovery_after_a_prompt_error_is_not_compared() {
    // The retry changes the system prompt and trims a tool result: compared
    // with the refused attempt it would be a history-rewrite.
    let (code, _, found) = check("prompt-error-recovery.trajectory.jsonl");
    assert_eq!(found, vec![]);
    assert_eq!(code, 0);
}

#[test]
fn duplicate_system_event_once_though_the_next_run_resends_it() {
    let (_, _, found) = check("duplicate-system-event.trajectory.jsonl");
    assert_eq!(
        found,
        vec![f("duplicate-system-event", "error", 2, "/data/prompt", 0, &[(2, "/data/messages/0/content/0")])]
    );
}

#[test]
fn duplicate_context_block() {
    let (_, _, found) = check("duplicate-context-block.trajectory.jsonl");
    assert_eq!(
        found,
        vec![f("duplicate-context-block", "warning", 2, "/data/prompt", 0, &[(2, "/data/messages/0/content/0")])]
    );
}

#[test]
fn duplicate_system_prompt() {
    let (_, _, found) = check("duplicate-system-prompt.trajectory.jsonl");
    // The CTX102 beside it is the same overlap an `anthropic-messages` body
    // with this content gives (its paragraphs are context blocks too).
    assert_eq!(
        found,
        vec![
            f("duplicate-context-block", "warning", 2, "/data/messages/0/content/0", 0, &[(2, "/data/systemPrompt")]),
            f("duplicate-system-prompt", "error", 2, "/data/messages/0/content/0", 0, &[(2, "/data/systemPrompt")]),
        ]
    );
}

#[test]
fn dropped_system_prompt() {
    let (_, _, found) = check("dropped-system-prompt.trajectory.jsonl");
    assert_eq!(found, vec![f("dropped-system-prompt", "warning", 4, "/data", 1, &[(2, "/data/systemPrompt")])]);
}

#[test]
fn history_rewrite() {
    let (_, _, found) = check("history-rewrite.trajectory.jsonl");
    assert_eq!(found, vec![f("history-rewrite", "warning", 4, "/data/messages/2", 1, &[(2, "/data/messages/2")])]);
}

#[test]
fn unanswered_tool_call() {
    let (_, _, found) = check("unanswered-tool-call.trajectory.jsonl");
    assert_eq!(found, vec![f("unanswered-tool-call", "error", 2, "/data/messages/1/content/1", 0, &[])]);
}

#[test]
fn orphan_tool_result() {
    let (_, _, found) = check("orphan-tool-result.trajectory.jsonl");
    assert_eq!(found, vec![f("orphan-tool-result", "error", 2, "/data/messages/2", 0, &[])]);
}

#[test]
fn diff_of_two_requests_of_a_trajectory() {
    let out = ctxlint()
        .args(["diff", &fixture("history-rewrite.trajectory.jsonl"), "--request", "0", "1", "--output-format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "rewrite");
    assert_eq!(v["a"]["format"], "openclaw-trajectory");
    assert_eq!((v["a"]["request"].as_u64(), v["b"]["request"].as_u64()), (Some(0), Some(1)));
    assert_eq!(v["first_divergence"]["level"], "messages");
    assert_eq!(v["first_divergence"]["pointer"], "/data/messages/2");
    // After a prompt error: shown, with a note that the rules do not compare it.
    let out = ctxlint()
        .args(["diff", &fixture("prompt-error-recovery.trajectory.jsonl"), "--request", "0", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("A's model call failed with a prompt error"), "{text}");
}

#[test]
fn show_lists_each_request_with_its_line() {
    let out = ctxlint().args(["show", &fixture("clean.trajectory.jsonl"), "--output-format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "openclaw-trajectory");
    assert_eq!(v["total"], 4);
    let lines: Vec<u64> = v["requests"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [2, 4, 6, 9]);
    let text = ctxlint().args(["show", &fixture("clean.trajectory.jsonl")]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(
            "request 2: /data (line 6)\nlane 0 (system \"You are a personal assistant running inside OpenClaw.\"), compared with request 1\n6 messages carried over from request 1, nothing new"
        ),
        "{text}"
    );
}

#[test]
fn repro_of_a_trajectory_finding_is_a_case_that_passes() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("cases");
    let r = ctxlint()
        .args(["repro", "--out", dir.to_str().unwrap(), &fixture("unanswered-tool-call.trajectory.jsonl")])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stderr));
    let case = dir.join("unanswered-tool-call-1");
    let input = std::fs::read_to_string(case.join("session.trajectory.jsonl")).unwrap();
    assert_eq!(input.lines().count(), 1);
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap()).unwrap();
    assert_eq!(expected["findings"][0]["rule"], "unanswered-tool-call");
    assert_eq!(expected["findings"][0]["line"], 1);
    // The case checks as it says.
    let (code, v) = {
        let o = ctxlint()
            .current_dir(&case)
            .args(["check", ".", "--isolated", "--output-format", "json"])
            .output()
            .unwrap();
        (o.status.code().unwrap(), serde_json::from_slice::<Value>(&o.stdout).unwrap())
    };
    assert_eq!(code, 1);
    assert_eq!(v["findings"][0]["rule"], "unanswered-tool-call");
    assert_eq!(v["findings"][0]["pointer"], expected["findings"][0]["pointer"]);
}
