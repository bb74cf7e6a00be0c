//! The `ai-sdk-ui-messages` input format on `fixtures/formats/ai-sdk-ui-messages`
//! (UI messages built by the AI SDK itself, ai 5.0 and 4.3, against a stub
//! provider; defects derived from them: see its README): exact findings.

use assert_cmd::Command;
use serde_json::Value;

const DIR: &str = "fixtures/formats/ai-sdk-ui-messages";

/// (rule, path, line, pointer) of one expected finding.
type Want = (&'static str, &'static str, u64, &'static str);

fn check(name: &str) -> (i32, Value) {
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--isolated", "--output-format", "json", &format!("{DIR}/{name}")])
        .output()
        .unwrap();
    (out.status.code().unwrap(), serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

fn found(v: &Value) -> Vec<(String, String, u64, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap();
            (
                f["rule"].as_str().unwrap().into(),
                path.rsplit('/').next().unwrap().into(),
                f["line"].as_u64().unwrap(),
                f["pointer"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn recorded_chats_and_pending_tools_have_no_findings() {
    for name in [
        "clean.v5.json",
        "clean.v4.json",
        "tool-error.v5.json",
        // A client-side tool waiting for the user at the end of the chat is pending, not unanswered.
        "trap-pending-client-tool.v5.json",
        "trap-pending-after-error.v4.json",
    ] {
        let (code, v) = check(name);
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
        assert_eq!(v["files"][0]["format"], "ai-sdk-ui-messages", "{name}");
    }
}

#[test]
fn each_defect_is_found() {
    let cases: &[(&str, &[Want])] = &[
        ("unanswered-tool-call.v5.json", &[("unanswered-tool-call", "unanswered-tool-call.v5.json", 19, "/1/parts/1")]),
        ("unanswered-tool-call.v4.json", &[("unanswered-tool-call", "unanswered-tool-call.v4.json", 34, "/1/parts/1")]),
        (
            "duplicate-context-block.v5.json",
            &[("duplicate-context-block", "duplicate-context-block.v5.json", 54, "/2/parts/1")],
        ),
        (
            "duplicate-system-prompt.v5.json",
            &[("duplicate-system-prompt", "duplicate-system-prompt.v5.json", 56, "/3/parts/0")],
        ),
        ("dropped-system-prompt", &[("dropped-system-prompt", "02-chat.json", 1, "")]),
        ("history-rewrite", &[("history-rewrite", "02-chat.json", 35, "/1/parts/3")]),
    ];
    for (name, want) in cases {
        let (code, v) = check(name);
        let want: Vec<_> = want.iter().map(|(r, p, l, q)| (r.to_string(), p.to_string(), *l, q.to_string())).collect();
        assert_eq!((code, found(&v)), (1, want), "{name}");
    }
}
