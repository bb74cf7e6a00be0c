//! `aider-llm-history`: the fixtures under `fixtures/formats/aider-llm-history/`
//! (written from Aider's `format_messages`, see the README there) give exactly
//! the findings listed — rule, line, column, pointer, request, related — and the
//! clean file none; detection, a forced format, `show` and `diff` on them.

use assert_cmd::Command;
use serde_json::Value;

const DIR: &str = "fixtures/formats/aider-llm-history";

fn run(args: &[&str]) -> (i32, String, String) {
    let out =
        Command::cargo_bin("ctxlint").unwrap().current_dir(env!("CARGO_MANIFEST_DIR")).args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// (rule, line, column, pointer, request, [(related line, related pointer)]) of each finding.
type F = (String, u64, Option<u64>, String, u64, Vec<(u64, String)>);

fn check(name: &str) -> (Vec<F>, Value) {
    let (code, out, err) = run(&["check", &format!("{DIR}/{name}"), "--output-format", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("no JSON ({e}): {out}\n{err}"));
    let f: Vec<F> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let related = f["related"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["line"].as_u64().unwrap(), r["pointer"].as_str().unwrap().to_string()))
                .collect();
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64(),
                f["pointer"].as_str().unwrap().to_string(),
                f["request"].as_u64().unwrap(),
                related,
            )
        })
        .collect();
    assert_eq!(code, if f.is_empty() { 0 } else { 1 }, "{err}");
    assert_eq!(v["files"][0]["format"], "aider-llm-history");
    (f, v)
}

/// `ctxlint diff` of requests `p[0]` and `p[1]` of fixture `name`: its JSON verdict.
fn diff_verdict(name: &str, p: [&str; 2]) -> String {
    let (code, out, err) = run(&["diff", &format!("{DIR}/{name}"), "--request", p[0], p[1], "--output-format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["verdict"].as_str().unwrap_or_default().to_string()
}

fn f(rule: &str, line: u64, col: Option<u64>, ptr: &str, req: u64, related: &[(u64, &str)]) -> F {
    (rule.into(), line, col, ptr.into(), req, related.iter().map(|(l, p)| (*l, p.to_string())).collect())
}

#[test]
fn the_clean_history_has_no_finding() {
    let (got, v) = check("clean.aider.llm.history");
    assert_eq!(got, vec![]);
    assert_eq!(v["files"][0]["requests"], 3);
}

#[test]
fn a_system_prompt_dropped_between_blocks() {
    // Block 1 (line 83) continues block 0 without block 0's system message (line 3).
    let (got, v) = check("dropped-system-prompt.aider.llm.history");
    assert_eq!(got, vec![f("dropped-system-prompt", 83, None, "", 1, &[(3, "/messages/0")])]);
    assert_eq!(v["findings"][0]["severity"], "error");
}

#[test]
fn the_repo_map_sent_twice_in_one_request() {
    // The second copy is message 5, whose text starts on line 64 after `USER `.
    let (got, v) = check("duplicate-context-block.aider.llm.history");
    assert_eq!(got, vec![f("duplicate-context-block", 64, Some(6), "/messages/5", 0, &[(21, "/messages/1")])]);
    assert_eq!(v["findings"][0]["byte_offset"], 2064);
}

#[test]
fn history_rewritten_between_consecutive_blocks() {
    // Block 2 re-sends block 1's assistant message (line 148) edited (line 256).
    let (got, _) = check("history-rewrite.aider.llm.history");
    assert_eq!(got, vec![f("history-rewrite", 256, Some(11), "/messages/6", 2, &[(148, "/messages/6")])]);
}

#[test]
fn the_system_prompt_twice_in_one_request() {
    let (got, _) = check("duplicate-system-prompt.aider.llm.history");
    assert_eq!(got, vec![f("duplicate-system-prompt", 21, Some(8), "/messages/1", 0, &[(3, "/messages/0")])]);
}

#[test]
fn the_reminder_and_the_moving_chat_files_are_by_design() {
    // Aider re-sends its `system_reminder` at the end of every request (a last
    // system message, or after the last user message's text) and places the chat
    // files after the done messages: neither is a rewrite nor a duplicate block.
    for name in ["reminder-sys.aider.llm.history", "reminder-user.aider.llm.history"] {
        let (got, v) = check(name);
        assert_eq!(got, vec![], "{name}");
        assert_eq!(v["files"][0]["requests"], 3, "{name}");
    }
    for p in [["0", "1"], ["1", "2"]] {
        assert_eq!(diff_verdict("reminder-user.aider.llm.history", p), "extension", "{p:?}");
    }
}

#[test]
fn a_rewrite_behind_the_reminder_is_still_found() {
    // Request 2 re-sends the first reply (message 6 of request 1, line 206) edited,
    // now message 4 (line 330): found, although the chat files and the reminder move.
    let (got, _) = check("history-rewrite-reminder.aider.llm.history");
    assert_eq!(got, vec![f("history-rewrite", 330, Some(11), "/messages/4", 2, &[(206, "/messages/6")])]);
}

#[test]
fn the_examples_a_refreshed_repo_map_and_a_cleared_chat_are_by_design() {
    // Aider sends fixed few-shot examples before every request's history, makes
    // the repo map again when a file joins the chat, and `/clear` drops the done
    // messages: request 1 extends request 0 (a new map, a new chat-files
    // message) and request 2 starts a new conversation. A real Aider history
    // (AndrewJacop/Simple-Calulator .aider.llm.history) had 8 history-rewrite
    // warnings from these, all false.
    let (got, v) = check("examples-map-refresh-clear.aider.llm.history");
    assert_eq!(got, vec![]);
    assert_eq!(v["files"][0]["requests"], 3);
    for (p, verdict) in [(["0", "1"], "extension"), (["1", "2"], "new conversation")] {
        assert_eq!(diff_verdict("examples-map-refresh-clear.aider.llm.history", p), verdict, "{p:?}");
    }
    // A reply re-sent edited behind the same examples and map is still a rewrite.
    let (got, _) = check("history-rewrite-examples.aider.llm.history");
    assert_eq!(got, vec![f("history-rewrite", 222, Some(11), "/messages/10", 2, &[(124, "/messages/10")])]);
}

#[test]
fn detection_and_a_forced_format() {
    let dir = tempfile::tempdir().unwrap();
    // Walking finds the hidden `.aider.llm.history` and reads it by content.
    let text = std::fs::read(format!("{}/{DIR}/duplicate-system-prompt.aider.llm.history", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    std::fs::write(dir.path().join(".aider.llm.history"), &text).unwrap();
    // A JSON body beside it is still read as JSON.
    std::fs::write(
        dir.path().join("req.json"),
        r#"{"model":"m","messages":[{"role":"user","content":"TO LLM 2025-03-14T09:26:53"}]}"#,
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    let (_, out, _) = run(&["check", d, "--output-format", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let mut formats: Vec<(String, String)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = f["path"].as_str().unwrap();
            (p[p.rfind('/').unwrap() + 1..].to_string(), f["format"].as_str().unwrap().to_string())
        })
        .collect();
    formats.sort();
    assert_eq!(
        formats,
        vec![(".aider.llm.history".into(), "aider-llm-history".into()), ("req.json".into(), "openai-chat".into())]
    );
    // Forced on a file that is not one: an error naming what is missing.
    let json = dir.path().join("req.json");
    let (code, _, err) = run(&["check", json.to_str().unwrap(), "--input-format", "aider-llm-history"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no line is a `TO LLM <timestamp>` header"), "{err}");
    // Forced on a history: the same findings as detected.
    let h = dir.path().join(".aider.llm.history");
    let (code, out, _) =
        run(&["check", h.to_str().unwrap(), "--input-format", "aider-llm-history", "--output-format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"][0]["rule"], "duplicate-system-prompt");
    // A garbage line is a malformed-line finding at its line.
    let mut torn = text.clone();
    torn.extend_from_slice(b"TO LLM 2025-03-14T09:30:00\nstray text\n");
    std::fs::write(&h, &torn).unwrap();
    let (_, out, _) = run(&["check", h.to_str().unwrap(), "--output-format", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let bad: Vec<(&str, u64, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "malformed-line")
        .map(|f| (f["rule"].as_str().unwrap(), f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    let n = text.iter().filter(|&&c| c == b'\n').count() as u64;
    assert_eq!(
        bad,
        vec![(
            "malformed-line",
            n + 2,
            "line does not fit an Aider LLM history: a line of a `TO LLM` block before its first `-------` message line"
        )]
    );
}

#[test]
fn show_lists_each_block_as_a_request() {
    let (code, out, err) =
        run(&["show", &format!("{DIR}/clean.aider.llm.history"), "--output-format", "json", "--full"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let reqs = v["requests"].as_array().unwrap();
    let counts: Vec<usize> = reqs.iter().map(|r| r["messages"].as_array().unwrap().len()).collect();
    assert_eq!(counts, vec![6, 8, 10]);
    let kinds: Vec<&str> =
        reqs[0]["messages"].as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, vec!["system", "meta", "assistant", "meta", "assistant", "user"]);
}

#[test]
fn diff_shows_the_edited_reply() {
    let (code, out, err) = run(&[
        "diff",
        &format!("{DIR}/history-rewrite.aider.llm.history"),
        "--request",
        "1",
        "2",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "rewrite");
    assert_eq!(v["first_divergence"]["pointer"], "/messages/6");
    assert_eq!(v["a"]["request"], 1);
    assert_eq!(v["b"]["format"], "aider-llm-history");
}
