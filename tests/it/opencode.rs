//! `opencode`: OpenCode's SQLite store, one transcript per session
//! (fixtures/formats/opencode, recorded with opencode 1.18.33 and 1.2.1).

use crate::found::check_json;
use serde_json::Value;

const DIR: &str = "fixtures/formats/opencode";

/// (rule, pointer, step, entry id, message) of every finding.
fn found(v: &Value) -> Vec<(String, String, u64, String, String)> {
    let s = |x: &Value| x.as_str().unwrap_or_default().to_string();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                s(&f["rule"]),
                s(&f["pointer"]),
                f["request"].as_u64().unwrap_or(u64::MAX),
                s(&f["entry_id"]),
                s(&f["message"]),
            )
        })
        .collect()
}

#[test]
fn recorded_stores_are_clean_and_each_session_is_a_transcript() {
    // clean: a tool call and two turns; errored: an HTTP 400 (a failed
    // attempt, not sent), a stream cut mid-answer (continued by a second
    // call: one reply), an HTTP 500 retried; compaction: two automatic
    // compactions, each followed by the runtime's "Continue" prompt.
    for (name, sessions) in [("clean", 1), ("errored", 1), ("compaction", 1), ("two-sessions", 2), ("v1.2.1", 1)] {
        let (code, v) = check_json(&format!("{DIR}/{name}.db"));
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
        let files = v["files"].as_array().unwrap();
        assert_eq!(files.len(), sessions, "{name}: {v}");
        assert!(files.iter().all(|f| f["format"] == "opencode"), "{name}");
    }
}

#[test]
fn a_prompt_typed_again_after_a_failed_call_is_a_replay() {
    // errored.db with the second prompt made the first one again: OpenCode
    // drops the failed assistant message and sends both copies.
    let (code, v) = check_json(&format!("{DIR}/replay-after-error.db"));
    assert_eq!(code, 1);
    assert_eq!(
        found(&v),
        vec![(
            "duplicate-user-turn".into(),
            "/message/msg_2380675ea001TLMlXUBbtl0RKG/data".into(),
            1,
            "msg_2380675ea001TLMlXUBbtl0RKG".into(),
            "user turn from message `msg_23806161a001d2wVMcefrGpkwz` written again: the attempt ended with an error"
                .into()
        )]
    );
    let f = &v["findings"][0];
    assert!(f["line"].is_null() && f["column"].is_null(), "a database has no lines: {f}");
    assert_eq!(f["related"][0]["pointer"], "/message/msg_23806161a001d2wVMcefrGpkwz/data");
}

#[test]
fn a_session_is_shown_step_by_step_and_the_store_is_never_touched() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("opencode.db");
    std::fs::copy(format!("{}/{DIR}/compaction.db", env!("CARGO_MANIFEST_DIR")), &db).unwrap();
    let before: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    let bytes = std::fs::read(&db).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["show", db.to_str().unwrap(), "--color", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(opencode): 5 steps"), "{text}");
    // The history is cut at each completed compaction.
    assert_eq!(text.matches("context rebuilt (compaction)").count(), 2, "{text}");
    assert!(text.contains("What did we do so far?") && text.contains("compaction summary"), "{text}");
    let after: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before, after);
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
    // A store with several sessions names them: `show` needs one input.
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["show", &format!("{DIR}/two-sessions.db")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("holds 2 inputs"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
