//! `ctxlint diff` and `ctxlint show`: snapshots of the human output
//! (`--color never`) and exact pointers and verdicts of the JSON output.
//! The cassette test reads `../shared/corpus` and is skipped (with a printed
//! reason) when it is absent.

use assert_cmd::Command;
use serde_json::{Value, json};

const CC: &str = "fixtures/cases/cc-44045-resume-block-dropped";
const CASSETTE: &str = "../shared/corpus/vcr-cassette/anthropic/test_anthropic_thinking_agui_0_1_10_drops_prefix.yaml";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn run_json(args: &[&str]) -> (i32, Value) {
    let mut a = args.to_vec();
    a.extend(["--output-format", "json"]);
    let (code, out, err) = run(&a);
    (code, serde_json::from_str(&out).unwrap_or_else(|e| panic!("no JSON ({e}): {out}\n{err}")))
}

/// (op, pointer) of every change.
fn changes(v: &Value) -> Vec<(String, String)> {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["op"].as_str().unwrap().to_string(), c["pointer"].as_str().unwrap().to_string()))
        .collect()
}

fn has_cassette() -> bool {
    crate::shared::path(CASSETTE.trim_start_matches("../shared/")).is_some()
}

#[test]
fn diff_resumed_session_full() {
    let (code, out, _) =
        run(&["diff", &format!("{CC}/req1-fresh.json"), &format!("{CC}/req2-resumed.json"), "--color", "never"]);
    assert_eq!(code, 1, "a rewrite exits 1");
    assert!(out.starts_with("rewrite at messages /messages/0/content/1\n"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn diff_resumed_session_json_pointers() {
    let (code, v) = run_json(&["diff", &format!("{CC}/req1-fresh.json"), &format!("{CC}/req2-resumed.json")]);
    assert_eq!(code, 1);
    assert_eq!(v["verdict"], "rewrite");
    assert_eq!(v["summary"], "rewrite at messages /messages/0/content/1");
    assert_eq!(v["first_divergence"]["pointer"], "/messages/0/content/1");
    assert_eq!(v["first_divergence"]["prev_pointer"], "/messages/0/content/1");
    assert_eq!(v["first_divergence"]["level"], "messages");
    // The newline added to block 1, the skills reminder removed; the prompt
    // block whose cache_control moved is not a change.
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        changes(&v),
        vec![
            s("changed", "/messages/0/content/1"),
            s("removed", "/messages/0/content/2"),
            s("added", "/messages/1/content/0"),
            s("added", "/messages/2/content/0")
        ]
    );
    assert!(v["changes"][1]["text"].as_str().unwrap().contains("Skills available"));
    assert_eq!(
        v["changes"][0]["diff"],
        "@@ -1,3 +1,3 @@\n <system-reminder>\n A companion panel is available in this session.\n-</system-reminder>\n\\ No newline at end of text\n+</system-reminder>\n"
    );
    assert_eq!(v["unchanged"], 4);
    assert_eq!(v["dropped"], json!([]));
}

#[test]
fn diff_cassette_shows_the_lost_thinking_block_first() {
    if !has_cassette() {
        return;
    }
    let (code, out, _) = run(&["diff", CASSETTE, "--request", "1", "2", "--color", "never"]);
    assert_eq!(code, 1);
    let out = out.replace(CASSETTE, "CASSETTE");
    insta::assert_snapshot!(out);
    let (_, v) = run_json(&["diff", CASSETTE, "--request", "1", "2"]);
    assert_eq!(v["summary"], "rewrite at messages /interactions/2/request/parsed_body/messages/1/content/0");
    assert_eq!(v["first_divergence"]["prev_pointer"], "/interactions/1/request/parsed_body/messages/1/content/0");
    let first = &v["changes"][0];
    assert_eq!(
        (first["op"].as_str(), first["pointer"].as_str(), first["what"].as_str()),
        (
            Some("removed"),
            Some("/interactions/1/request/parsed_body/messages/1/content/0"),
            Some("assistant thinking block")
        )
    );
    assert_eq!(changes(&v).len(), 1, "only the thinking block differs");
    assert_eq!(v["a"]["request"], 1);
    assert_eq!(v["b"]["request"], 2);
}

#[test]
fn diff_verdicts_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, v: Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        p.to_string_lossy().into_owned()
    };
    let a = w(
        "a.json",
        json!({"model":"gpt-4o","messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"}]}),
    );
    let b = w(
        "b.json",
        json!({"model":"gpt-4o","messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]}),
    );
    let c = w("c.json", json!({"model":"gpt-4o","messages":[{"role":"user","content":"unrelated"}]}));
    let (code, v) = run_json(&["diff", &a, &b]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("extension")));
    assert_eq!(
        changes(&v),
        vec![("added".to_string(), "/messages/2".to_string()), ("added".to_string(), "/messages/3".to_string())]
    );
    let (code, v) = run_json(&["diff", &a, &a]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("identical")));
    let (code, v) = run_json(&["diff", &b, &a]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("retry")));
    let (code, v) = run_json(&["diff", &b, &c]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("new conversation")));
    // The directory is a stream of three requests.
    let d = dir.path().to_string_lossy().into_owned();
    let (code, v) = run_json(&["diff", &d, "--request", "0", "1"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("extension")));
}

#[test]
fn diff_errors_exit_2_with_a_clear_message() {
    let (code, _, err) = run(&["diff", CC, "--request", "0", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("no request 5") && err.contains("2 requests: 0–1"), "{err}");
    let (code, _, err) = run(&["diff", CC]);
    assert_eq!(code, 2);
    assert!(err.contains("--request I J"), "{err}");
    let (code, _, err) = run(&["diff", "fixtures/show/session.jsonl", &format!("{CC}/req1-fresh.json")]);
    assert_eq!(code, 2);
    assert!(err.contains("is a pi-session transcript"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.txt");
    std::fs::write(&p, "hello\n").unwrap();
    let (code, _, err) = run(&["diff", p.to_str().unwrap(), &format!("{CC}/req1-fresh.json")]);
    assert_eq!(code, 2);
    assert!(err.contains("notes.txt") && err.contains("not a recognised input format"), "{err}");
}

#[test]
fn show_transcript_table() {
    let (code, out, _) = run(&["show", "fixtures/show/session.jsonl", "--color", "never"]);
    assert_eq!(code, 0);
    assert!(!out.contains("AAAABBBB"), "secret leaked: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn show_transcript_step_in_full_marks_truncation() {
    let (code, out, _) = run(&["show", "fixtures/show/session.jsonl", "--request", "1", "--color", "never"]);
    assert_eq!(code, 0);
    assert!(!out.contains("AAAABBBB"), "secret leaked: {out}");
    assert!(out.contains("… (757 bytes; the first"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn show_request_file_table_and_full() {
    let (code, out, _) = run(&["show", &format!("{CC}/req2-resumed.json"), "--color", "never"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("show_request_file_table", out);
    let (code, out, _) = run(&["show", &format!("{CC}/req2-resumed.json"), "--request", "0", "--color", "never"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("show_request_file_full", out);
}

#[test]
fn show_json() {
    let (code, v) = run_json(&["show", "fixtures/show/session.jsonl"]);
    assert_eq!(code, 0);
    assert_eq!(v["kind"], "transcript");
    let steps = v["requests"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["entry_id"], "a2");
    let kinds: Vec<&str> =
        steps[1]["messages"].as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, vec!["user", "assistant + tool call", "tool result"]);
    assert!(steps[1]["messages"][0]["blocks"][0].get("text").is_none(), "texts only for a selected step");
    let (_, v) = run_json(&["show", "fixtures/show/session.jsonl", "--request", "1"]);
    let m = &v["requests"][0]["messages"];
    assert_eq!(m[2]["blocks"][0]["truncated"], true);
    assert_eq!(m[2]["blocks"][0]["bytes"], 757);
    assert_eq!(m[1]["blocks"][1]["pointer"], "/message/content/1");
    assert_eq!(m[0]["line"], 2);
    let text = m[0]["blocks"][0]["text"].as_str().unwrap();
    assert!(text.contains("sk-a****") && !text.contains("AAAABBBB"), "{text}");
    let (_, v) = run_json(&["show", CC]);
    assert_eq!(v["kind"], "stream");
    let ptrs: Vec<&str> =
        v["requests"][1]["messages"].as_array().unwrap().iter().map(|m| m["pointer"].as_str().unwrap()).collect();
    assert_eq!(ptrs, vec!["/system", "/messages/0", "/messages/1", "/messages/2"]);
}

#[test]
fn show_bad_request_index_is_exit_2() {
    let (code, _, err) = run(&["show", "fixtures/show/session.jsonl", "--request", "7"]);
    assert_eq!(code, 2);
    assert!(err.contains("no step 7 (it has 2 steps: 0–1)"), "{err}");
}

#[test]
fn files_skipped_in_a_stream_directory_are_reported() {
    let (code, _, err) = run(&["diff", CC, "--request", "0", "1", "--color", "never"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("2 file(s) in fixtures/cases/cc-44045-resume-block-dropped skipped (no known format)")
            && err.contains("case.md"),
        "{err}"
    );
}

#[test]
fn diff_says_nothing_of_a_turn_resent_as_a_string_but_shows_an_edit() {
    // Request 1 re-sends request 0's block turn as a plain string: only the new elements show.
    let (code, v) = run_json(&["diff", "fixtures/streams/claude-code-string-turns.jsonl", "--request", "0", "1"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("extension")));
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    let differing: Vec<_> = changes(&v).into_iter().filter(|(op, _)| op != "same").collect();
    assert_eq!(
        differing,
        vec![s("added", "/request/body/messages/3/content/0"), s("added", "/request/body/messages/4/content/0")]
    );
    // An edited turn re-sent in the other shape is one change, with its text diff.
    let (code, v) = run_json(&["diff", "fixtures/streams/claude-code-sessions-headers.jsonl", "--request", "3", "4"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("rewrite")));
    assert_eq!(v["first_divergence"]["pointer"], "/request/body/messages/2");
    let c = v["changes"].as_array().unwrap().iter().find(|c| c["op"] == "changed").expect("a change");
    assert_eq!(c["pointer"], "/request/body/messages/2");
    // Different Claude Code sessions: not compared, and the note says why.
    let (code, v) = run_json(&["diff", "fixtures/streams/claude-code-two-sessions.jsonl", "--request", "0", "1"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("new conversation")));
    assert_eq!(v["note"], "the requests carry different session ids");
}

#[test]
fn show_sends_only_the_latest_compaction_summary_and_sends_it_first() {
    // Two compactions keep the same first entry (line 4); the second (line 9) repeats the
    // first's summary. pi-mono `buildSessionContext`: the latest summary first, then the kept
    // entries from line 4 on, without the earlier compaction (line 6), then what follows.
    let (code, v) = run_json(&["show", "fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl"]);
    assert_eq!(code, 0);
    let steps = v["requests"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    let ctx = |k: usize| -> Vec<(u64, String)> {
        steps[k]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["line"].as_u64().unwrap(), m["kind"].as_str().unwrap().to_string()))
            .collect()
    };
    let s = |l: u64, k: &str| (l, k.to_string());
    assert_eq!(ctx(2), vec![s(6, "compaction summary"), s(4, "user"), s(5, "assistant"), s(7, "user")]);
    assert_eq!(
        ctx(3),
        vec![
            s(9, "compaction summary"),
            s(4, "user"),
            s(5, "assistant"),
            s(7, "user"),
            s(8, "assistant"),
            s(10, "user")
        ]
    );
}
