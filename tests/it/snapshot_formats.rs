//! History-snapshot formats recorded with the real libraries against a stub
//! provider (`openai-agents-session`: openai-agents 0.24; `langgraph-state`:
//! a `langgraph dev` server, langgraph 1.2): every recorded file loads in its
//! format, the clean ones and the pending calls have no findings, and each
//! defect is found at its file, line and pointer.

use assert_cmd::Command;
use serde_json::Value;

/// (rule, file name, line, pointer) of one expected finding.
type Want = (&'static str, &'static str, u64, &'static str);

fn check(path: &str) -> (i32, Value) {
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--isolated", "--output-format", "json", path])
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
            (
                f["rule"].as_str().unwrap().into(),
                f["path"].as_str().unwrap().rsplit('/').next().unwrap().into(),
                f["line"].as_u64().unwrap(),
                f["pointer"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn expect(dir: &str, format: &str, clean: &[&str], defects: &[(&str, &[Want])]) {
    for name in clean {
        let (code, v) = check(&format!("{dir}/{name}"));
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
        assert_eq!(v["files"][0]["format"], format, "{name}");
    }
    for (name, want) in defects {
        let (code, v) = check(&format!("{dir}/{name}"));
        let want: Vec<_> = want.iter().map(|(r, p, l, q)| (r.to_string(), p.to_string(), *l, q.to_string())).collect();
        assert_eq!((code, found(&v)), (1, want), "{name}");
        assert_eq!(v["files"][0]["format"], format, "{name}");
    }
}

#[test]
fn openai_agents_session_items() {
    expect(
        "fixtures/formats/openai-agents-session",
        "openai-agents-session",
        &[
            "clean.items.json",
            "streamed.items.json",
            "maxturns.items.json",
            "trap-pending-approval.items.json",
            // Files side by side are different sessions, never one stream.
            "trap-two-sessions",
        ],
        &[
            ("duplicated.items.json", &[("not-append-only", "duplicated.items.json", 32, "/4")]),
            ("orphan.items.json", &[("orphan-tool-result", "orphan.items.json", 2, "/0")]),
            (
                "unanswered-tool-call.items.json",
                &[("unanswered-tool-call", "unanswered-tool-call.items.json", 6, "/1")],
            ),
        ],
    );
}

#[test]
fn langgraph_thread_states() {
    expect(
        "fixtures/formats/langgraph-state",
        "langgraph-state",
        &[
            "clean.state.json",
            "clean.history-checkpoint.json",
            // Stopped before the `tools` node (mid-run, or interrupted for review): pending.
            "trap-midrun-checkpoint.json",
            "trap-interrupt-before-tools.state.json",
        ],
        &[
            ("orphan.state.json", &[("orphan-tool-result", "orphan.state.json", 13, "/values/messages/1/content")]),
            (
                "orphan.after-next-turn.state.json",
                &[("orphan-tool-result", "orphan.after-next-turn.state.json", 13, "/values/messages/1/content")],
            ),
            (
                "unanswered-tool-call.state.json",
                &[("unanswered-tool-call", "unanswered-tool-call.state.json", 36, "/values/messages/1/tool_calls/0")],
            ),
            ("history-rewrite", &[("history-rewrite", "02-state.json", 54, "/values/messages/2")]),
        ],
    );
}
