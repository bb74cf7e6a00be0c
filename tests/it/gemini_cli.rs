//! The `gemini-cli` input format (Gemini CLI chats, JSONL and legacy JSON;
//! Qwen Code chats) on the files of `fixtures/formats/gemini-cli`: the
//! recordings made by running the real CLIs against a stub provider (see
//! `recorded/README.md`) have no findings; each defect fixture gives exactly
//! its finding, at its line and JSON Pointer.

use crate::found::{Want, assert_findings, check_json, rule_line_pointer as found};
use crate::support::ctxlint;
use serde_json::Value;

const DIR: &str = "fixtures/formats/gemini-cli";

fn check(name: &str) -> (i32, Value) {
    check_json(&format!("{DIR}/{name}"))
}

#[test]
fn the_recorded_sessions_load_and_have_no_findings() {
    let mut n = 0;
    for e in std::fs::read_dir(format!("{}/{DIR}/recorded", env!("CARGO_MANIFEST_DIR"))).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            continue;
        }
        let (code, v) = check(&format!("recorded/{name}"));
        // 0.61's resume writes the history again with each tool result twice
        // (the request it then sent held both: see recorded/README.md).
        let want = match name.as_str() {
            "gemini-0.61-resumed.jsonl" => {
                (1, vec![("orphan-tool-result".to_string(), 15, "/$set/messages/4/content/0".to_string())])
            }
            _ => (0, vec![]),
        };
        assert_eq!((code, found(&v)), want, "{name}");
        assert_eq!(v["files"][0]["format"], "gemini-cli", "{name}");
        assert!(v["files"][0]["entries"].as_u64().unwrap() >= 3, "{name}");
        n += 1;
    }
    assert_eq!(n, 15);
}

#[test]
fn the_traps_and_clean_files_have_no_findings() {
    for name in [
        "clean.jsonl",
        "legacy-clean.json",
        "trap-rewind.jsonl",
        "trap-checkpoint.jsonl",
        // Every record is an upsert: lines written again are not a rewrite.
        "trap-reappended.jsonl",
        "qwen-trap-merge-and-rewind.jsonl",
        // Issue 30: two `gemini` records in a row are steps of one turn (a
        // tool loop recorded without `toolCalls`, a next-speaker or
        // malformed-call continuation), not a second reply; this fixture's
        // `duplicate-reply` at line 4 was a false finding.
        "duplicate-reply.jsonl",
        "issue30/trap-ide-disconnected.json",
        "issue30/trap-no-toolcalls-2025-09.json",
        "issue30/trap-malformed-call-continued.json",
        "issue30/checkpoint-clean.json",
        "issue30/restore-checkpoint.json",
        "issue30/qwen-cancelled-call-telemetry.jsonl",
    ] {
        let (code, v) = check(name);
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
    }
}

#[test]
fn each_defect_is_found_at_its_line_and_pointer() {
    let cases: &[(&str, &[Want])] = &[
        ("unanswered-tool-call.jsonl", &[("unanswered-tool-call", 3, "/toolCalls/0")]),
        ("legacy-unanswered.json", &[("unanswered-tool-call", 27, "/messages/1/toolCalls/0")]),
        ("orphan-tool-result.jsonl", &[("orphan-tool-result", 3, "/content/0")]),
        ("duplicate-user-turn.jsonl", &[("duplicate-user-turn", 4, "")]),
        ("duplicate-context-block.jsonl", &[("duplicate-context-block", 4, "/content/0")]),
        ("malformed-line.jsonl", &[("malformed-line", 6, "")]),
        ("qwen-broken-parent-chain.jsonl", &[("broken-parent-chain", 6, "")]),
        ("qwen-unanswered-tool-call.jsonl", &[("unanswered-tool-call", 4, "/message/parts/0")]),
        ("issue30/duplicate-user-turn-after-api-error.json", &[("duplicate-user-turn", 23, "/messages/2")]),
        ("issue30/duplicate-user-turn-after-cancel.json", &[("duplicate-user-turn", 55, "/messages/4")]),
        ("issue30/checkpoint-unanswered.json", &[("unanswered-tool-call", 22, "/history/2/parts/0")]),
        ("issue30/qwen-unanswered-without-telemetry.jsonl", &[("unanswered-tool-call", 2, "/message/parts/1")]),
    ];
    assert_findings(DIR, cases);
}

#[test]
fn a_repeated_id_is_an_update_and_a_resumed_session_is_read_as_sent() {
    // The tool call is written first without, then with its result (same id):
    // the update, not the first record, is the message.
    let (_, v) = check("clean.jsonl");
    assert_eq!(v["files"][0]["entries"], 9);
    // 0.61 also records the live results as a `user` record: the live steps
    // see each result once (lines 8 and 21 are not reported); only the
    // history its resume wrote again holds one twice.
    let (_, v) = check("recorded/gemini-0.61-resumed.jsonl");
    assert_eq!(found(&v).len(), 1);
    assert!(v["findings"][0]["message"].as_str().unwrap().contains("a second time"));
}

#[test]
fn detection_fits_and_show() {
    // A forced format the file does not fit is an error naming what is missing.
    let out = ctxlint()
        .args(["check", "--isolated", "--input-format", "gemini-cli", "fixtures/formats/har/clean.har"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("projectHash"), "{}", String::from_utf8_lossy(&out.stderr));
    // Forced on its own format, the legacy document still fits.
    let out = ctxlint()
        .args(["check", "--isolated", "--input-format", "gemini-cli", &format!("{DIR}/legacy-clean.json")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = ctxlint().args(["show", &format!("{DIR}/recorded/gemini-0.61-clean.jsonl")]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("gemini-cli"), "{text}");
    assert!(text.contains("2 steps"), "{text}");
    assert!(text.contains("<session_context>"), "{text}");
    assert!(!text.contains("compaction summary"), "{text}");
}

#[test]
fn a_re_sent_prompt_after_request_cancelled_is_a_warning_after_an_api_error_an_error() {
    let (_, v) = check("issue30/duplicate-user-turn-after-cancel.json");
    assert_eq!(v["findings"][0]["severity"], "warning");
    assert!(v["findings"][0]["message"].as_str().unwrap().contains("aborted"));
    let (_, v) = check("issue30/duplicate-user-turn-after-api-error.json");
    assert_eq!(v["findings"][0]["severity"], "error");
}

#[test]
fn checkpoints_are_gemini_cli_and_look_alikes_are_not() {
    for (name, format) in [
        ("checkpoint-clean.json", "gemini-cli"),
        ("checkpoint-unanswered.json", "gemini-cli"),
        ("restore-checkpoint.json", "gemini-cli"),
        ("not-pydantic-ai.json", "pydantic-ai-history"),
        ("not-ai-sdk.json", "ai-sdk-ui-messages"),
        ("not-gemini-body.json", "gemini"),
    ] {
        let out = ctxlint()
            .args(["check", "--isolated", "--no-stream", "--output-format", "json", &format!("{DIR}/issue30/{name}")])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["files"][0]["format"], format, "{name}");
    }
    // The legacy checkpoint's context and its canned acknowledgement are no
    // model call: 4 model calls (a text, a call, two texts … ) are steps.
    let (_, v) = check("issue30/checkpoint-clean.json");
    assert_eq!(v["files"][0]["entries"], 11);
}

#[test]
fn a_qwen_message_written_twice_with_open_calls_is_no_crash() {
    // Issue 32, the attack round: one uuid written twice, each copy holding
    // an unanswered call (Qwen merges a repeated uuid into one message):
    // unanswered-tool-call read back one line and indexed the merged
    // message's blocks — exit 101.
    let rec = |u: &str, p: Option<&str>, t: &str, m: serde_json::Value| {
        serde_json::json!({"uuid":u,"parentUuid":p,"sessionId":"s","timestamp":"2026-12-02T14:35:04.178Z","type":t,"cwd":"/p","version":"0.15.10","message":m,"model":"m"})
            .to_string()
    };
    let call = |i: u32| serde_json::json!({"role":"model","parts":[{"functionCall":{"id":format!("call_{i}"),"name":"ls","args":{}}}]});
    let text = [
        rec("u1", None, "user", serde_json::json!({"role":"user","parts":[{"text":"list"}]})),
        rec("a1", Some("u1"), "assistant", call(1)),
        rec("a1", Some("u1"), "assistant", call(2)),
        rec("u2", Some("a1"), "user", serde_json::json!({"role":"user","parts":[{"text":"never mind"}]})),
    ]
    .join("\n");
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("qwen.jsonl");
    std::fs::write(&p, text + "\n").unwrap();
    for f in ["json", "full", "html"] {
        let out = ctxlint().args(["check", p.to_str().unwrap(), "--output-format", f]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{f}: {err}");
        assert!(!err.contains("internal error"), "{f}: {err}");
    }
}
