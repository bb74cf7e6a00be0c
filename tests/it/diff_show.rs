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
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
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
    let (code, v) = run_json(&["show", "fixtures/show/session.jsonl", "--full"]);
    assert_eq!(code, 0);
    assert_eq!(v["kind"], "transcript");
    assert_eq!(v["mode"], "full");
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
    let (_, v) = run_json(&["show", CC, "--full"]);
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
    // A case's own files (`case.md`, `expected.json`) are sidecars; still named.
    let (code, _, err) = run(&["diff", CC, "--request", "0", "1", "--color", "never"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("2 file(s) in fixtures/cases/cc-44045-resume-block-dropped skipped (sidecar files)")
            && err.contains("case.md"),
        "{err}"
    );
    // A file of no known format beside the bodies is named as such.
    let d = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(CC).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), d.path().join(e.file_name())).unwrap();
    }
    std::fs::write(d.path().join("notes.json"), "{\"todo\": 1}").unwrap();
    let dir = d.path().to_str().unwrap();
    let (code, _, err) = run(&["diff", dir, "--request", "0", "1", "--color", "never"]);
    assert_eq!(code, 1);
    assert!(err.contains("skipped (1 no known format, 2 sidecar files)") && err.contains("notes.json"), "{err}");
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
    let (code, v) =
        run_json(&["show", "fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl", "--full"]);
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

/// One step of a compact `show --output-format json`: (carried, dropped,
/// rebuilt, lines of the listed messages, indices of the listed messages).
type CompactStep = (u64, u64, Option<String>, Vec<u64>, Vec<u64>);

/// Every step of a compact `show --output-format json`.
fn compact_steps(path: &str) -> Vec<CompactStep> {
    let (code, v) = run_json(&["show", path]);
    assert_eq!(code, 0);
    assert_eq!(v["mode"], "compact");
    v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let d = &u["delta"];
            let ms = u["messages"].as_array().unwrap();
            (
                d["carried"].as_u64().unwrap(),
                d["dropped"].as_u64().unwrap(),
                d["rebuilt"].as_str().map(String::from),
                ms.iter().map(|m| m["line"].as_u64().unwrap()).collect(),
                ms.iter().map(|m| m["index"].as_u64().unwrap()).collect(),
            )
        })
        .collect()
}

#[test]
fn show_compact_lists_what_is_new_per_step() {
    let steps = compact_steps("fixtures/show/session.jsonl");
    assert_eq!(steps, vec![(0, 0, None, vec![2], vec![0]), (1, 0, None, vec![3, 4], vec![1, 2])]);
    let (code, v) = run_json(&["show", "fixtures/show/session.jsonl"]);
    assert_eq!(code, 0);
    assert_eq!(v["requests"][0]["delta"]["previous"], Value::Null);
    assert_eq!(v["requests"][1]["delta"]["previous"], 0);
    assert_eq!(v["requests"][1]["context_messages"], 3);
    // The human output says what was carried over.
    let (code, out, _) = run(&["show", "fixtures/show/session.jsonl", "--color", "never"]);
    assert_eq!(code, 0);
    assert!(out.contains("1 message carried over from step 0, 2 new\n"), "{out}");
    assert!(!out.contains("AAAABBBB"), "secret leaked: {out}");
}

#[test]
fn show_compact_rebuilds_the_context_at_a_compaction_with_the_latest_summary_first() {
    let steps = compact_steps("fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl");
    let c = Some("compaction".to_string());
    assert_eq!(
        steps,
        vec![
            (0, 0, None, vec![2], vec![0]),
            (1, 0, None, vec![3, 4], vec![1, 2]),
            // The compaction keeps line 4 (sent at step 1): it is not listed again.
            (0, 2, c.clone(), vec![6, 5, 7], vec![0, 2, 3]),
            // Lines 4, 5 and 7 (step 2's positions 1-3) are kept after the new summary.
            (0, 1, c, vec![9, 8, 10], vec![0, 4, 5]),
        ]
    );
    let (_, v) = run_json(&["show", "fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl"]);
    assert_eq!(v["requests"][2]["delta"]["kept"], serde_json::json!([{"from": 2, "at": 1, "count": 1}]));
    assert_eq!(v["requests"][3]["delta"]["kept"], serde_json::json!([{"from": 1, "at": 1, "count": 3}]));
    assert_eq!(v["requests"][1]["delta"]["kept"], serde_json::json!([]));
    let (_, out, _) =
        run(&["show", "fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl", "--color", "never"]);
    assert!(
        out.contains("context rebuilt (compaction): 0 messages carried over from step 1, 1 sent again further on (not listed), 2 no longer sent, 3 new"),
        "{out}"
    );
    // --full still lists whole contexts.
    let (_, full, _) = run(&[
        "show",
        "fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl",
        "--full",
        "--color",
        "never",
    ]);
    assert_eq!(full.matches("│ 4 ┆ 8 ").count(), 1, "{full}");
}

/// A pi session of `n` turns, each followed by a compaction that keeps every
/// entry from the first user message on.
fn keep_everything_session(n: usize) -> String {
    let mut out =
        String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#);
    out.push('\n');
    let mut prev = String::from("null");
    let mut k = 0;
    let mut entry = |body: String, out: &mut String| {
        k += 1;
        let id = format!("{k:08x}");
        out.push_str(&format!(r#"{{"id":"{id}","parentId":{prev},"timestamp":"2026-01-01T00:00:00.000Z",{body}}}"#));
        out.push('\n');
        prev = format!("\"{id}\"");
    };
    for i in 0..n {
        entry(
            format!(
                r#""type":"message","message":{{"role":"user","content":[{{"type":"text","text":"question {i}"}}],"timestamp":1}}"#
            ),
            &mut out,
        );
        entry(
            format!(
                r#""type":"message","message":{{"role":"assistant","content":[{{"type":"text","text":"answer {i}"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":1}}"#
            ),
            &mut out,
        );
        entry(
            format!(r#""type":"compaction","summary":"summary {i}","firstKeptEntryId":"00000001","tokensBefore":10"#),
            &mut out,
        );
    }
    out
}

#[test]
fn show_lists_a_kept_message_once_however_many_compactions_keep_it() {
    // Every step's context is the whole session: listing it at each
    // compaction made the output grow with the square of the session
    // (3,000 turns: 54 s and 1.4 GB of text; the HTML report 2 GB of memory).
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("keep.jsonl");
    std::fs::write(&f, keep_everything_session(300)).unwrap();
    let (code, v) = run_json(&["show", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    let units = v["requests"].as_array().unwrap();
    assert_eq!(units.len(), 300);
    for (n, u) in units.iter().enumerate().skip(2) {
        // The new summary, the previous answer and the new question.
        let lines: Vec<u64> = u["messages"].as_array().unwrap().iter().map(|m| m["line"].as_u64().unwrap()).collect();
        let l = 3 * n as u64 + 2;
        assert_eq!(lines, vec![l - 1, l - 2, l], "step {n}");
        assert_eq!(u["delta"]["kept"], serde_json::json!([{"from": 1, "at": 1, "count": 2 * n - 1}]), "step {n}");
        assert_eq!((u["delta"]["dropped"].as_u64(), u["context_messages"].as_u64()), (Some(1), Some(2 * n as u64 + 2)));
    }
    let (_, out, _) = run(&["show", f.to_str().unwrap(), "--color", "never"]);
    assert!(out.len() < 2_000 * 300, "{} bytes", out.len());
}

#[test]
fn show_full_lists_whole_contexts_and_step_is_request() {
    let (code, out, _) = run(&["show", "fixtures/show/session.jsonl", "--full", "--color", "never"]);
    assert_eq!(code, 0);
    assert!(!out.contains("carried over"), "{out}");
    insta::assert_snapshot!("show_transcript_table_full", out);
    let (c1, by_request, _) = run(&["show", "fixtures/show/session.jsonl", "--request", "1", "--color", "never"]);
    let (c2, by_step, _) = run(&["show", "fixtures/show/session.jsonl", "--step", "1", "--color", "never"]);
    assert_eq!((c1, c2), (0, 0));
    assert_eq!(by_request, by_step);
    let (code, v) = run_json(&["show", "fixtures/show/session.jsonl", "--step", "1"]);
    assert_eq!(code, 0);
    let m = v["requests"][0]["messages"].as_array().unwrap();
    assert_eq!(m.len(), 3, "a selected step lists its whole context");
    assert!(m[0]["blocks"][0]["text"].as_str().unwrap().contains("sk-a****"));
    assert_eq!(v["requests"][0]["delta"], Value::Null);
}

#[test]
fn show_json_is_one_valid_object_in_every_mode() {
    for args in [
        vec!["show", "fixtures/show/session.jsonl"],
        vec!["show", "fixtures/show/session.jsonl", "--full"],
        vec!["show", "fixtures/show/session.jsonl", "--step", "0"],
        vec!["show", CC],
        vec!["show", "fixtures/streams/claude-code-sessions-headers.jsonl"],
    ] {
        let (code, v) = run_json(&args);
        assert_eq!(code, 0, "{args:?}");
        assert_eq!(v["command"], "show");
        assert!(v["requests"].is_array(), "{args:?}");
        assert!(v["requests"].as_array().unwrap().len() as u64 <= v["total"].as_u64().unwrap(), "{args:?}");
    }
    // A stream in compact mode lists what each request adds.
    let (_, v) = run_json(&["show", CC]);
    let r1 = &v["requests"][1];
    assert!(r1["delta"]["carried"].as_u64().unwrap() >= 1, "{r1}");
}

/// A pi session of `turns` user turns, each answered with a tool call, its
/// result and a final text.
fn long_session(turns: usize) -> String {
    let mut out = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s-long\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n",
    );
    let mut parent = Value::Null;
    let mut n = 0;
    let mut push = |out: &mut String, message: Value| {
        n += 1;
        let id = format!("e{n:07}");
        let line = json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", "message": message});
        out.push_str(&line.to_string());
        out.push('\n');
        parent = json!(id);
    };
    for t in 0..turns {
        push(
            &mut out,
            json!({"role": "user", "content": [{"type": "text", "text": format!("Question {t}: read file {t}.")}]}),
        );
        push(
            &mut out,
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("c{t}"), "name": "read", "arguments": {"path": format!("f{t}.txt")}}], "provider": "p", "model": "m", "stopReason": "toolUse"}),
        );
        push(
            &mut out,
            json!({"role": "toolResult", "toolCallId": format!("c{t}"), "toolName": "read", "content": [{"type": "text", "text": format!("contents of file {t}")}]}),
        );
        push(
            &mut out,
            json!({"role": "assistant", "content": [{"type": "text", "text": format!("File {t} says hello.")}], "provider": "p", "model": "m", "stopReason": "stop"}),
        );
    }
    out
}

#[test]
fn show_output_grows_linearly_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut sizes = Vec::new();
    for turns in [750, 1500] {
        let p = dir.path().join(format!("long-{turns}.jsonl"));
        std::fs::write(&p, long_session(turns)).unwrap();
        let p = p.to_string_lossy().into_owned();
        let (code, out, err) = run(&["show", &p, "--color", "never"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.matches("\nstep ").count(), 2 * turns, "one step per model call");
        let (code, json_out, _) = run(&["show", &p, "--output-format", "json"]);
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(&json_out).unwrap();
        assert_eq!(v["requests"].as_array().unwrap().len(), 2 * turns);
        sizes.push((out.len() as f64, json_out.len() as f64));
    }
    // Twice the session, about twice the output (a quadratic output would be four times).
    let (human, json) = (sizes[1].0 / sizes[0].0, sizes[1].1 / sizes[0].1);
    assert!((1.8..2.3).contains(&human), "human output grew {human}x");
    assert!((1.8..2.3).contains(&json), "JSON output grew {json}x");
}

#[test]
fn diff_refuses_standard_input_named_twice() {
    // Issue 32 (attack round): `diff - -` said "not a recognised input format"
    // of the empty second read.
    let (code, out, err) = run(&["diff", "-", "-"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("standard input (`-`) is named twice"), "{err}");
}

/// A shown message as (line, hash): what the rebuilt and the full contexts are compared by.
fn row(m: &Value) -> (u64, String) {
    (m["line"].as_u64().unwrap_or(0), m["hash"].as_str().unwrap().to_string())
}

/// Each step's whole context rebuilt from the compact output — the previous
/// step's first `carried` messages, then this step's `kept` runs of the
/// previous context at their positions and its listed messages at theirs —
/// as (line, hash) per position.
fn rebuilt_contexts(compact: &Value) -> Vec<Vec<(u64, String)>> {
    let mut out: Vec<Vec<(u64, String)>> = Vec::new();
    for u in compact["requests"].as_array().unwrap() {
        let prev = out.last().cloned().unwrap_or_default();
        let n = u["context_messages"].as_u64().unwrap() as usize;
        let mut ctx: Vec<Option<(u64, String)>> = vec![None; n];
        let d = &u["delta"];
        for (k, slot) in ctx.iter_mut().enumerate().take(d["carried"].as_u64().unwrap_or(0) as usize) {
            *slot = Some(prev[k].clone());
        }
        for r in d["kept"].as_array().into_iter().flatten() {
            let (from, at, count) =
                (r["from"].as_u64().unwrap(), r["at"].as_u64().unwrap(), r["count"].as_u64().unwrap());
            for j in 0..count as usize {
                assert!(ctx[at as usize + j].is_none(), "position {} filled twice", at as usize + j);
                ctx[at as usize + j] = Some(prev[from as usize + j].clone());
            }
        }
        for m in u["messages"].as_array().unwrap() {
            let i = m["index"].as_u64().unwrap() as usize;
            assert!(ctx[i].is_none(), "position {i} filled twice");
            ctx[i] = Some(row(m));
        }
        out.push(
            ctx.into_iter().enumerate().map(|(i, x)| x.unwrap_or_else(|| panic!("position {i} unfilled"))).collect(),
        );
    }
    out
}

#[test]
fn the_compact_view_rebuilds_every_whole_context_of_every_transcript_fixture() {
    // `show`'s default view lists only what is new; with the carried prefix and
    // the kept runs, it must give back exactly what `--full` lists, step by
    // step (compactions, branches, carriers, base instructions).
    let d = tempfile::tempdir().unwrap();
    let keep = d.path().join("keep.jsonl");
    std::fs::write(&keep, keep_everything_session(40)).unwrap();
    let mut inputs = vec![keep.to_str().unwrap().to_string()];
    for dir in [
        "fixtures/kinds",
        "fixtures/cases",
        "fixtures/show",
        "fixtures/formats/pi-session",
        "fixtures/formats/claude-code",
    ] {
        let Ok(rd) = std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)) else { continue };
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for p in files {
            let list: Vec<std::path::PathBuf> = if p.is_dir() {
                let mut v: Vec<_> = std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()).collect();
                v.sort();
                v
            } else {
                vec![p]
            };
            inputs.extend(
                list.into_iter()
                    .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                    .map(|f| f.to_str().unwrap().to_string()),
            );
        }
    }
    let mut steps = 0;
    let mut with_kept = 0;
    for f in &inputs {
        // (A fixture that is no transcript on purpose — `pi --mode json`
        // output — is refused by name.)
        let (code, _, err) = run(&["show", f, "--output-format", "json"]);
        if code == 2 && err.contains("not a recognised input format") {
            continue;
        }
        let (code, compact) = run_json(&["show", f]);
        if code != 0 || compact["kind"] != "transcript" {
            continue;
        }
        let (_, full) = run_json(&["show", f, "--full"]);
        let whole: Vec<Vec<(u64, String)>> = full["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["messages"].as_array().unwrap().iter().map(row).collect())
            .collect();
        assert_eq!(rebuilt_contexts(&compact), whole, "{f}");
        steps += whole.len();
        with_kept += compact["requests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["delta"]["kept"].as_array().is_some_and(|k| !k.is_empty()))
            .count();
    }
    assert!(steps > 200 && with_kept > 40, "{steps} steps, {with_kept} with kept runs");
}

/// Two request bodies large enough to be read as they stream (1 MiB and
/// more): their texts are not held, yet an element whose text is unchanged
/// and whose other fields changed is shown as its JSON, read again from the
/// file — small or large, the same answer.
#[test]
fn diff_of_large_bodies_shows_the_changed_fields_of_an_element_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for turns in [4, 800] {
        let mut msgs = vec![json!({"role": "system", "content": "be careful"})];
        for i in 0..turns {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            msgs.push(json!({"role": role, "content": format!("turn {i} {}", "word ".repeat(400))}));
        }
        let a = json!({"model": "gpt-4o", "messages": msgs});
        let mut b = a.clone();
        b["messages"][3]["name"] = json!("bob");
        let (pa, pb) = (dir.path().join(format!("a{turns}.json")), dir.path().join(format!("b{turns}.json")));
        std::fs::write(&pa, a.to_string()).unwrap();
        std::fs::write(&pb, serde_json::to_string_pretty(&b).unwrap()).unwrap();
        assert_eq!(std::fs::metadata(&pa).unwrap().len() > 1 << 20, turns == 800);
        let (code, out, err) = run(&["diff", pa.to_str().unwrap(), pb.to_str().unwrap(), "--color", "never"]);
        assert_eq!(code, 1, "{err}");
        assert!(out.contains("same text; the element's JSON differs"), "{out}");
        assert!(out.contains("+  \"name\": \"bob\","), "{out}");
        let at = out.find("(same text;").expect("the element's hunk");
        outputs.push(out[at..].lines().take(6).collect::<Vec<_>>().join("\n"));
    }
    assert_eq!(outputs[0], outputs[1]);
}

/// A stream's request is compared with its predecessor in its lane, not with
/// the request before it in the file: a supervisor's second request after a
/// worker's carries its own first request's messages over (it said "context
/// rebuilt: 0 carried over from request 2"), and a worker's first request is
/// compared with none.
#[test]
fn show_compares_a_stream_request_with_its_predecessor_in_its_lane() {
    let (code, out, _) = run(&["show", "fixtures/cases/lanes-trap-supervisor-workers/log.jsonl", "--color", "never"]);
    assert_eq!(code, 0);
    assert!(!out.contains("context rebuilt"), "{out}");
    assert!(out.contains("lane 0 (system \"You are a supervisor"), "{out}");
    assert!(out.contains("compared with request 0\n2 messages carried over from request 0, 3 new\n"), "{out}");
    let (_, v) = run_json(&["show", "fixtures/cases/lanes-trap-supervisor-workers/log.jsonl"]);
    let deltas: Vec<(Value, Value, Value)> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["delta"]["previous"].clone(), r["delta"]["carried"].clone(), r["delta"]["dropped"].clone()))
        .collect();
    let lanes: Vec<Value> = v["requests"].as_array().unwrap().iter().map(|r| r["lane"].clone()).collect();
    assert!(deltas.iter().all(|(_, _, dropped)| dropped == 0), "{deltas:?}\n{lanes:?}");
    let previous: Vec<&Value> = deltas.iter().map(|(p, _, _)| p).collect();
    let compared: Vec<&Value> = lanes.iter().map(|l| &l["compared_with"]).collect();
    assert_eq!(previous, compared);
    assert_eq!(compared, [&Value::Null, &Value::Null, &json!(1), &json!(0), &Value::Null]);
}

/// A request chained to its predecessor's response (`previous_response_id`)
/// sends only what is new: `show` says the provider holds the rest, not
/// that the context was rebuilt with every earlier message "no longer
/// sent" (as `diff` already said: "B chains to A's response").
#[test]
fn show_says_a_chained_request_sends_only_what_is_new() {
    const CODEX: &str = "fixtures/cases/codex-1207-instructions-dropped";
    let (code, out, _) = run(&["show", CODEX, "--color", "never"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("chained to request 0's response: its context is held by the provider, not sent again; 1 new"),
        "{out}"
    );
    assert!(!out.contains("context rebuilt"), "{out}");
    let (_, v) = run_json(&["show", CODEX]);
    assert_eq!(
        v["requests"][1]["delta"],
        json!({"previous": 0, "carried": 0, "dropped": 0, "rebuilt": "chained to its response", "kept": []})
    );
}
