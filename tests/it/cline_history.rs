//! The `cline-history` input format on `fixtures/formats/cline-history`:
//! Cline's own SDK session fixtures (Apache-2.0) load without findings; each
//! classic task-folder fixture gives exactly its finding.

use crate::found::{Want, assert_findings, check_json, rule_line_pointer as found};
use assert_cmd::Command;
use serde_json::Value;

const DIR: &str = "fixtures/formats/cline-history";

fn check(name: &str) -> (i32, Value) {
    check_json(&format!("{DIR}/{name}"))
}

#[test]
fn cline_fixtures_and_clean_tasks_have_no_findings() {
    for name in [
        "cline-sdk/basic.compaction.json",
        "cline-sdk/agentic.compaction.json",
        "clean.api_conversation_history.json",
        "trap-retry/api_conversation_history.json",
        // A call left without a result before the next user message: Cline's
        // `ensureToolResultsFollowToolUse` sends "result missing" for it, so
        // what is sent has no unanswered call (was a false finding before
        // issue 30; a call followed by another assistant message is kept, see
        // fixtures/kinds/cline-text-results-and-notices).
        "trap-repaired-call/api_conversation_history.json",
        // Roo Code: a condense summary makes a fresh start, and a result whose
        // call was condensed away is not sent; reasoning entries are not messages.
        "trap-roo-condense/api_conversation_history.json",
        "trap-roo-reasoning/api_conversation_history.json",
    ] {
        let (code, v) = check(name);
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
        assert_eq!(v["files"][0]["format"], "cline-history", "{name}");
    }
    // The SDK layout stores the system prompt: it is in every step's context.
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["show", &format!("{DIR}/cline-sdk/basic.compaction.json")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(cline-history)") && text.contains("system"), "{text}");
}

#[test]
fn each_task_defect_is_found() {
    let cases: &[(&str, &[Want])] = &[
        ("duplicate-user-turn/api_conversation_history.json", &[("duplicate-user-turn", 39, "/2")]),
        ("orphan-tool-result/api_conversation_history.json", &[("orphan-tool-result", 55, "/2/content/1")]),
        ("duplicate-context-block/api_conversation_history.json", &[("duplicate-context-block", 50, "/2/content/1")]),
    ];
    assert_findings(DIR, cases);
}
