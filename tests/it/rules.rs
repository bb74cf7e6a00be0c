//! Rule behaviour on small inline inputs: each test names the defect (or the
//! trap) and asserts the exact rule, line and pointer.

use ctxlint::CheckOptions;
use ctxlint::config::Config;
use std::io::Write;

fn check_text(name: &str, text: &str) -> Vec<(String, Option<u32>, String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::File::create(&p).unwrap().write_all(text.as_bytes()).unwrap();
    let opts = CheckOptions { paths: vec![p.to_string_lossy().into_owned()], ..Default::default() };
    let r = ctxlint::check(&opts, &Config::default()).unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.findings
        .iter()
        .map(|f| (f.rule.name().to_string(), f.line, f.pointer.clone(), f.severity.as_str().to_string()))
        .collect()
}

const HDR: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn user(id: &str, parent: &str, text: &str) -> String {
    let parent = if parent.is_empty() { "null".to_string() } else { format!("\"{parent}\"") };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":{}}}]}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn assistant(id: &str, parent: &str, content: &str, stop: &str, model: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":{content},"provider":"p","model":"{model}","stopReason":"{stop}"}}}}"#
    )
}

fn carrier(id: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"custom_message","customType":"openclaw.runtime-context","content":{},"display":false,"id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.500Z"}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn lines(v: &[String]) -> String {
    let mut s = v.join("\n");
    s.push('\n');
    s
}

#[test]
fn system_event_repeated_in_the_carrier_is_reported_at_the_carrier() {
    let ev = "System: [2026-06-20 09:14:02 UTC] Slack DM from user-a";
    let text = lines(&[
        HDR.into(),
        user("u1", "", &format!("{ev}\n\nhello there")),
        carrier("c1", "u1", &format!("OpenClaw runtime context.\n\n{ev}")),
        assistant("a1", "c1", r#"[{"type":"text","text":"hi"}]"#, "stop", "m"),
    ]);
    assert_eq!(
        check_text("s.jsonl", &text),
        vec![("duplicate-system-event".into(), Some(3), "/content".into(), "error".into())]
    );
}

#[test]
fn event_text_alone_in_a_wrapper_is_a_duplicate() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "System: [2026-06-20 09:14:02 UTC] Deploy finished on staging-3\n\nok?"),
        carrier("c1", "u1", "<event>\nDeploy finished on staging-3\n</event>"),
        assistant("a1", "c1", r#"[{"type":"text","text":"hi"}]"#, "stop", "m"),
    ]);
    assert_eq!(check_text("s.jsonl", &text)[0].0, "duplicate-system-event");
}

#[test]
fn same_event_in_an_older_turns_carrier_is_not_a_duplicate() {
    // Carriers are prompt-local: the old carrier is stripped once a new user turn arrives.
    let ev1 = "System: [2026-06-20 09:14:02 UTC] Slack DM from user-a";
    let ev2 = "System: [2026-06-20 09:20:00 UTC] Slack DM from user-a";
    let text = lines(&[
        HDR.into(),
        user("u1", "", &format!("{ev1}\n\nfirst")),
        carrier("c1", "u1", "Conversation info (untrusted metadata):\n```json\n{}\n```"),
        assistant("a1", "c1", r#"[{"type":"text","text":"one"}]"#, "stop", "m"),
        user("u2", "a1", &format!("{ev2}\n\nsecond")),
        carrier("c2", "u2", "Conversation info (untrusted metadata):\n```json\n{}\n```"),
        assistant("a2", "c2", r#"[{"type":"text","text":"two"}]"#, "stop", "m"),
    ]);
    assert_eq!(check_text("s.jsonl", &text), vec![]);
}

#[test]
fn dangling_parent_is_reported_once_and_its_cascade_is_not() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "run it"),
        assistant("a1", "u1", r#"[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]"#, "toolUse", "m"),
        r#"{"type":"message","id":"r1","parentId":"deadbeef","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false}}"#.into(),
        assistant("a2", "r1", r#"[{"type":"text","text":"done"}]"#, "stop", "m"),
    ]);
    assert_eq!(check_text("s.jsonl", &text), vec![("broken-parent-chain".into(), Some(4), "".into(), "error".into())]);
}

#[test]
fn parent_cycle_is_reported_once() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "hi"),
        r#"{"type":"label","id":"x1","parentId":"x2","timestamp":"t","targetId":"u1","label":"a"}"#.into(),
        r#"{"type":"label","id":"x2","parentId":"x1","timestamp":"t","targetId":"u1","label":"b"}"#.into(),
    ]);
    assert_eq!(check_text("s.jsonl", &text), vec![("broken-parent-chain".into(), Some(4), "".into(), "error".into())]);
}

#[test]
fn id_reused_with_other_content_is_a_broken_chain_and_same_content_is_not_append_only() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "hi"),
        assistant("a1", "u1", r#"[{"type":"text","text":"hello"}]"#, "stop", "m"),
        assistant("a1", "u1", r#"[{"type":"text","text":"other"}]"#, "stop", "m"),
        // same JSON content, different key order: not-append-only
        r#"{"parentId":"u1","id":"u9","type":"message","timestamp":"t","message":{"role":"user","content":"x"}}"#
            .into(),
        r#"{"type":"message","id":"u9","parentId":"u1","timestamp":"t","message":{"content":"x","role":"user"}}"#
            .into(),
    ]);
    assert_eq!(
        check_text("s.jsonl", &text),
        vec![
            ("broken-parent-chain".into(), Some(4), "".into(), "error".into()),
            ("not-append-only".into(), Some(6), "".into(), "error".into())
        ]
    );
}

#[test]
fn torn_line_is_malformed_and_reading_goes_on() {
    let text = format!(
        "{HDR}\n{}\n{{\"type\":\"message\",\"id\":\"x\n{}\n",
        user("u1", "", "hi"),
        assistant("a1", "u1", r#"[{"type":"text","text":"hello"}]"#, "stop", "m")
    );
    assert_eq!(check_text("s.jsonl", &text), vec![("malformed-line".into(), Some(3), "".into(), "error".into())]);
}

#[test]
fn nul_bytes_and_invalid_utf8_are_malformed_lines() {
    let mut bytes = format!("{HDR}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"message\",\0\0\0}\n");
    bytes.extend_from_slice(b"{\"type\":\"label\",\"id\":\"\xff\xfe\"}\n");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, &bytes).unwrap();
    let r = ctxlint::check(
        &CheckOptions { paths: vec![p.to_string_lossy().into()], ..Default::default() },
        &Config::default(),
    )
    .unwrap();
    let got: Vec<(&str, Option<u32>)> = r.findings.iter().map(|f| (f.rule.name(), f.line)).collect();
    assert_eq!(got, vec![("malformed-line", Some(2)), ("malformed-line", Some(3))]);
}

#[test]
fn aborted_then_resent_is_a_warning_and_normal_repeat_is_nothing() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "ok"),
        assistant("a1", "u1", "[]", "aborted", "m"),
        user("u2", "a1", "ok"),
        assistant("a2", "u2", r#"[{"type":"text","text":"done"}]"#, "stop", "m"),
        user("u3", "a2", "ok"),
        assistant("a3", "u3", r#"[{"type":"text","text":"again"}]"#, "stop", "m"),
    ]);
    assert_eq!(
        check_text("s.jsonl", &text),
        vec![("duplicate-user-turn".into(), Some(4), "/message".into(), "warning".into())]
    );
}

#[test]
fn fallback_model_taking_over_is_a_duplicate_user_turn() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "book it"),
        assistant("a1", "u1", r#"[{"type":"toolCall","id":"c1","name":"book","arguments":{}}]"#, "toolUse", "model-a"),
        r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"book","content":[{"type":"text","text":"booked"}],"isError":false}}"#.into(),
        user("u2", "r1", "book it"),
        assistant("a2", "u2", r#"[{"type":"text","text":"booked"}]"#, "stop", "model-b"),
    ]);
    assert_eq!(
        check_text("s.jsonl", &text),
        vec![("duplicate-user-turn".into(), Some(5), "/message".into(), "error".into())]
    );
}

#[test]
fn errored_call_is_not_unanswered_but_its_result_is_an_orphan() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "go"),
        assistant("a1", "u1", r#"[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]"#, "error", "m"),
        r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"x"}],"isError":false}}"#.into(),
        assistant("a2", "r1", r#"[{"type":"text","text":"done"}]"#, "stop", "m"),
    ]);
    assert_eq!(
        check_text("s.jsonl", &text),
        vec![("orphan-tool-result".into(), Some(4), "/message".into(), "error".into())]
    );
}

#[test]
fn unanswered_call_before_the_next_user_turn_is_repaired_by_pi_before_it_sends() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "go"),
        assistant("a1", "u1", r#"[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]"#, "toolUse", "m"),
        user("u2", "a1", "never mind"),
        assistant("a2", "u2", r#"[{"type":"text","text":"ok"}]"#, "stop", "m"),
    ]);
    // pi-ai's transformMessages sends a "No result provided" result for c1.
    assert_eq!(check_text("s.jsonl", &text), vec![]);
}

#[test]
fn call_pending_at_the_end_of_the_path_is_not_a_finding() {
    let text = lines(&[
        HDR.into(),
        user("u1", "", "go"),
        assistant("a1", "u1", r#"[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}]"#, "toolUse", "m"),
    ]);
    assert_eq!(check_text("s.jsonl", &text), vec![]);
}

#[test]
fn system_prompt_twice_in_an_anthropic_request() {
    let body = r#"{"model":"claude","max_tokens":10,"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"Be brief."}],"messages":[{"role":"user","content":"hi"}]}"#;
    assert_eq!(
        check_text("req.json", body),
        vec![("duplicate-system-prompt".into(), Some(1), "/system/1".into(), "error".into())]
    );
}

#[test]
fn system_reminder_twice_is_a_context_block_but_envelopes_are_not() {
    let rem = "<system-reminder>\\nThe todo list is empty. Use the TodoWrite tool when the task has several steps.\\n</system-reminder>";
    let env = "Sender (untrusted metadata):\\n```json\\n{\\\"label\\\": \\\"openclaw-tui (gateway-client)\\\", \\\"id\\\": \\\"gateway-client\\\"}\\n```";
    let body = format!(
        r#"{{"model":"claude","max_tokens":10,"messages":[{{"role":"user","content":[{{"type":"text","text":"{rem}"}},{{"type":"text","text":"{env}\n\nfirst question"}}]}},{{"role":"assistant","content":"a"}},{{"role":"user","content":[{{"type":"text","text":"{rem}"}},{{"type":"text","text":"{env}\n\nsecond question"}}]}}]}}"#
    );
    assert_eq!(
        check_text("req.json", &body),
        vec![("duplicate-context-block".into(), Some(1), "/messages/2/content/0".into(), "warning".into())]
    );
}

#[test]
fn mixed_openai_and_anthropic_shapes_pair_by_id() {
    let body = r#"{"model":"gpt","messages":[{"role":"user","content":"list"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a b"}]},{"role":"assistant","tool_calls":[{"id":"t2","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"t2","content":"c"}]}"#;
    assert_eq!(check_text("req.json", body), vec![]);
}

#[test]
fn byte_for_byte_repeats_are_reported_once_per_run() {
    let a = user("u1", "", "first");
    let b = assistant("a1", "u1", r#"[{"type":"text","text":"one"}]"#, "stop", "m");
    let c = user("u2", "a1", "second");
    let d = assistant("a2", "u2", r#"[{"type":"text","text":"two"}]"#, "stop", "m");
    let rule = |v: Vec<(String, Option<u32>, String, String)>| -> Vec<Option<u32>> {
        v.into_iter().filter(|f| f.0 == "not-append-only").map(|f| f.1).collect()
    };
    // a b a c b: the unique line between the two repeats ends the first run.
    let split = lines(&[HDR.into(), a.clone(), b.clone(), a.clone(), c.clone(), b.clone()]);
    assert_eq!(rule(check_text("split.jsonl", &split)), vec![Some(4), Some(6)]);
    // a b c d a b: one run of two repeated lines, reported at its start.
    let run = lines(&[HDR.into(), a.clone(), b.clone(), c, d, a, b]);
    assert_eq!(rule(check_text("run.jsonl", &run)), vec![Some(6)]);
}

/// `check` keeps long model-side texts only by length and hash; a finding that
/// shows one reads its line again. The excerpt and the fingerprint are those
/// of the full text, whether the file is plain or compressed (compressed
/// inputs keep every text instead), and whatever the reply's length.
#[test]
fn a_long_reply_text_is_read_again_for_the_excerpt() {
    use std::io::Write as _;
    let long = format!("The next on-call handover is Monday. {}", "More detail follows here. ".repeat(20));
    let send = r#"[{"type":"toolCall","id":"c1","name":"message","arguments":{"action":"send","message":"hi"}}]"#;
    let text = lines(&[
        HDR.into(),
        user("u1", "", "when is the handover?"),
        assistant("a1", "u1", send, "toolUse", "m"),
        r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"message","content":[{"type":"text","text":"{\"deliveryStatus\":\"sent\",\"messageId\":\"m1\"}"}],"details":{"deliveryStatus":"sent","result":{"messageId":"m1"}},"isError":false}}"#.into(),
        assistant("a2", "r1", &serde_json::json!([{"type":"text","text": long}]).to_string(), "stop", "m"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("s.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.path().join("g.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
    let mut seen = Vec::new();
    for p in [&plain, &gz] {
        let opts = CheckOptions { paths: vec![p.to_string_lossy().into_owned()], ..Default::default() };
        let r = ctxlint::check(&opts, &Config::default()).unwrap();
        let f = r.findings.iter().find(|f| f.rule.name() == "duplicate-reply").expect("a second reply");
        assert_eq!(f.line, Some(5));
        // pi keeps 160 bytes of assistant text for excerpts (as before texts were dropped).
        assert_eq!(f.excerpt.as_deref(), Some(long[..160].trim()));
        seen.push(f.key.clone());
    }
    assert_eq!(seen[0], seen[1]);
}
