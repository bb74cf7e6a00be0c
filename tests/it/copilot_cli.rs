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
