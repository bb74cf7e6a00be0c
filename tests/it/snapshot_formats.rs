//! History-snapshot formats recorded with the real libraries against a stub
//! provider (`openai-agents-session`: openai-agents 0.24; `langgraph-state`:
//! a `langgraph dev` server, langgraph 1.2; `ai-sdk-ui-messages`: the AI SDK
//! 5.0 and 4.3, see each fixture folder's README): every recorded file loads in its
//! format, the clean ones and the pending calls have no findings, and each
//! defect is found at its file, line and pointer.

use crate::found::check_json as check;
use serde_json::Value;

/// (rule, file name, line, pointer) of one expected finding.
type Want = (&'static str, &'static str, u64, &'static str);

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

#[test]
fn ai_sdk_ui_messages() {
    expect(
        "fixtures/formats/ai-sdk-ui-messages",
        "ai-sdk-ui-messages",
        &[
            "clean.v5.json",
            "clean.v4.json",
            "tool-error.v5.json",
            // A client-side tool waiting for the user at the end of the chat is pending, not unanswered.
            "trap-pending-client-tool.v5.json",
            "trap-pending-after-error.v4.json",
        ],
        &[
            (
                "unanswered-tool-call.v5.json",
                &[("unanswered-tool-call", "unanswered-tool-call.v5.json", 19, "/1/parts/1")],
            ),
            (
                "unanswered-tool-call.v4.json",
                &[("unanswered-tool-call", "unanswered-tool-call.v4.json", 34, "/1/parts/1")],
            ),
            // The body `useChat` posts to the application's route: its `messages`.
            (
                "unanswered-tool-call.use-chat-body.json",
                &[("unanswered-tool-call", "unanswered-tool-call.use-chat-body.json", 21, "/messages/1/parts/1")],
            ),
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
        ],
    );
}
