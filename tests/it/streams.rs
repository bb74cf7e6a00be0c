//! Continuity rules (`dropped-system-prompt`, `history-rewrite`) and the stream
//! loaders (`pydantic-ai-history` directories, `vcr-cassette`) on small inline
//! inputs: each test names the defect (or the trap) and asserts the exact
//! rule, request, pointer and severity.

use ctxlint::CheckOptions;
use ctxlint::config::Config;
use ctxlint::inputs::DiscoverOptions;
use serde_json::{Value, json};

/// (rule, request, pointer, severity)
type F = (String, Option<usize>, String, String);

fn check_dir(files: &[(&str, String)], no_stream: bool) -> (Vec<F>, Vec<ctxlint::Finding>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let opts = CheckOptions {
        paths: vec![dir.path().to_string_lossy().into_owned()],
        discover: DiscoverOptions { no_stream, ..Default::default() },
    };
    let r = ctxlint::check(&opts, &Config::default()).unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let short = r
        .findings
        .iter()
        .map(|f| (f.rule.name().to_string(), f.request, f.pointer.clone(), f.severity.as_str().to_string()))
        .collect();
    (short, r.findings)
}

fn bodies(v: &[Value]) -> Vec<(&'static str, String)> {
    const NAMES: [&str; 4] = ["req1.json", "req2.json", "req3.json", "req4.json"];
    v.iter().enumerate().map(|(i, b)| (NAMES[i], serde_json::to_string_pretty(b).unwrap())).collect()
}

fn f(rule: &str, req: usize, ptr: &str, sev: &str) -> F {
    (rule.into(), Some(req), ptr.into(), sev.into())
}

#[test]
fn instructions_missing_at_a_new_user_turn_is_a_warning() {
    let (got, all) = check_dir(
        &bodies(&[
            json!({"instructions":"Be terse.","input":[{"role":"user","content":"a"}]}),
            json!({"input":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("dropped-system-prompt", 1, "", "warning")]);
    assert!(all[0].path.ends_with("req2.json"));
    assert_eq!(all[0].related[0].pointer, "/instructions");
    assert!(all[0].related[0].path.ends_with("req1.json"));
    assert_eq!(all[0].related[0].line, Some(2), "the related prompt in the other file is located");
}

#[test]
fn system_slot_missing_without_a_new_user_turn_is_an_error() {
    let call = |id: &str| json!({"role":"assistant","content":[{"type":"tool_use","id":id,"name":"x","input":{}}]});
    let result = |id: &str| json!({"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":"ok"}]});
    let user = json!({"role":"user","content":[{"type":"text","text":"a"}]});
    let (got, _) = check_dir(
        &bodies(&[
            json!({"system":"S","messages":[user, call("t1"), result("t1")]}),
            json!({"messages":[user, call("t1"), result("t1"), call("t2"), result("t2")]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("dropped-system-prompt", 1, "", "error")]);
}

#[test]
fn system_message_vanishing_at_a_new_user_turn_is_still_an_error_and_not_a_rewrite() {
    let (got, _) = check_dir(
        &bodies(&[
            json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"},{"role":"system","content":"mid-run rule"},{"role":"assistant","content":"b"}]}),
            json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("dropped-system-prompt", 1, "", "error")]);
}

#[test]
fn system_message_replaced_at_a_new_user_turn_is_a_rewrite_only_with_a_diff() {
    let (got, all) = check_dir(
        &bodies(&[
            json!({"messages":[{"role":"system","content":"You are helpful.\nBe brief."},{"role":"user","content":"a"}]}),
            json!({"messages":[{"role":"system","content":"You are helpful.\nBe verbose."},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/0", "warning")]);
    let d = all[0].diff.as_deref().expect("diff");
    assert!(d.contains("-Be brief.") && d.contains("+Be verbose."), "{d}");
    assert!(all[0].message.contains("system level"));
}

#[test]
fn moved_cache_control_and_key_order_are_not_rewrites() {
    let (got, _) = check_dir(
        &[
            ("req1.json", r#"{"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]}"#.into()),
            ("req2.json", r#"{"system":[{"text":"S","type":"text"}],"messages":[{"content":[{"text":"a","type":"text"}],"role":"user"},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":[{"type":"text","text":"c","cache_control":{"type":"ephemeral"}}]}]}"#.into()),
        ],
        false,
    );
    assert_eq!(got, vec![]);
}

#[test]
fn a_newline_added_inside_a_block_is_a_rewrite_at_that_block() {
    let (got, _) = check_dir(
        &bodies(&[
            json!({"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]}),
            json!({"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"y\n"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/0/content/1", "warning")]);
}

#[test]
fn retry_with_a_shorter_history_is_not_a_rewrite_but_its_prompts_are_compared() {
    let (got, _) = check_dir(
        &bodies(&[
            json!({"instructions":"I","input":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
            json!({"input":[{"role":"user","content":"a"}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("dropped-system-prompt", 1, "", "error")]);
}

#[test]
fn different_conversation_ids_are_different_conversations() {
    let (got, _) = check_dir(
        &bodies(&[
            json!({"conversation":"conv_1","instructions":"I","input":[{"role":"user","content":"a"}]}),
            json!({"conversation":"conv_2","input":[{"role":"user","content":"a"}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![]);
}

#[test]
fn tools_dropped_is_a_rewrite_at_the_body() {
    let (got, _) = check_dir(
        &bodies(&[
            json!({"tools":[{"type":"function","function":{"name":"x"}}],"messages":[{"role":"user","content":"a"}]}),
            json!({"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "", "warning")]);
}

fn history(conv: &str, parts: Value) -> String {
    serde_json::to_string(
        &json!([{"kind":"request","parts":parts,"instructions":null,"conversation_id":conv,"run_id":"r"}]),
    )
    .unwrap()
}

#[test]
fn pydantic_snapshots_in_a_directory_form_one_stream_and_no_stream_splits_them() {
    let sys = |c: &str, ts: &str| json!({"part_kind":"system-prompt","content":c,"timestamp":ts,"dynamic_ref":null});
    let user = |c: &str| json!({"part_kind":"user-prompt","content":c});
    let files = vec![
        (
            "01-a.json",
            history(
                "c1",
                json!([sys("Standing.", "2026-01-01T00:00:00Z"), user("go"), sys("Mid-run.", "2026-01-01T00:00:01Z")]),
            ),
        ),
        ("02-b.json", history("c1", json!([sys("Standing.", "2027-01-01T00:00:00Z"), user("go"), user("next")]))),
    ];
    let (got, all) = check_dir(&files, false);
    assert_eq!(got, vec![f("dropped-system-prompt", 1, "", "error")]);
    assert!(all[0].path.ends_with("02-b.json"));
    assert_eq!(all[0].related[0].pointer, "/0/parts/2");
    let (got, _) = check_dir(&files, true);
    assert_eq!(got, vec![]);
}

#[test]
fn pydantic_dynamic_prompt_re_rendered_in_place_is_nothing() {
    let dynp = |c: &str| json!({"part_kind":"system-prompt","content":c,"dynamic_ref":"today"});
    let user = |c: &str| json!({"part_kind":"user-prompt","content":c});
    let files = vec![
        ("01.json", history("c1", json!([dynp("Today is Monday."), user("go")]))),
        ("02.json", history("c1", json!([dynp("Today is Tuesday."), user("go"), user("again")]))),
    ];
    let (got, _) = check_dir(&files, false);
    assert_eq!(got, vec![]);
}

#[test]
fn cassette_request_index_counts_skipped_interactions() {
    let y = r#"interactions:
- request:
    method: POST
    parsed_body:
      instructions: Be terse.
      input:
      - content: a
        role: user
      model: gpt-4.1
    uri: https://api.openai.com/v1/responses
  response:
    parsed_body:
      id: resp_1
- request:
    method: GET
    uri: https://api.openai.com/v1/models
- request:
    method: POST
    parsed_body:
      input:
      - call_id: c1
        output: done
        type: function_call_output
      model: gpt-4.1
      previous_response_id: resp_1
    uri: https://api.openai.com/v1/responses
version: 1
"#;
    let (got, all) = check_dir(&[("c.yaml", y.to_string())], false);
    assert_eq!(got, vec![f("dropped-system-prompt", 2, "/interactions/2/request/parsed_body", "error")]);
    assert_eq!(all[0].line, Some(19));
    assert_eq!(all[0].related[0].line, Some(5));
}

#[test]
fn cassette_previous_response_id_of_another_response_is_not_a_continuation() {
    let y = r#"interactions:
- request:
    method: POST
    parsed_body:
      instructions: Be terse.
      input: a
    uri: https://api.openai.com/v1/responses
  response:
    parsed_body:
      id: resp_1
- request:
    method: POST
    parsed_body:
      input: b
      previous_response_id: resp_other
    uri: https://api.openai.com/v1/responses
"#;
    let (got, _) = check_dir(&[("c.yaml", y.to_string())], false);
    assert_eq!(got, vec![]);
}

#[test]
fn pydantic_snapshot_ending_with_pending_calls_is_not_unanswered_but_a_missing_return_is() {
    let call = json!({"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"approve","args":{},"tool_call_id":"k1"}]});
    let user = json!({"kind":"request","parts":[{"part_kind":"user-prompt","content":"go"}]});
    let (got, _) = check_dir(&[("h.json", serde_json::to_string(&json!([user, call])).unwrap())], false);
    assert_eq!(got, vec![]);
    let later = json!({"kind":"request","parts":[{"part_kind":"user-prompt","content":"and now?"}]});
    let (got, _) = check_dir(&[("h.json", serde_json::to_string(&json!([user, call, later])).unwrap())], false);
    assert_eq!(got, vec![f("unanswered-tool-call", 0, "/1/parts/0", "error")]);
}

#[test]
fn exchange_log_chains_by_recorded_response_ids() {
    let line = |body: Value, id: &str| {
        serde_json::to_string(&json!({"request":{"method":"POST","path":"/v1/responses","body":body},"response":{"status":200,"body":{"id":id}}})).unwrap()
    };
    let log = [
        line(json!({"instructions":"I","input":[{"role":"user","content":"a"}]}), "resp_1"),
        line(json!({"model":"m","input":[]}), "x"),
        line(json!({"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c","output":"ok"}]}), "resp_2"),
        line(json!({"previous_response_id":"resp_other","input":[{"role":"user","content":"b"}]}), "resp_3"),
    ]
    .join("\n");
    let (got, _) = check_dir(&[("log.jsonl", format!("{log}\n"))], false);
    // Request 2 names request 0's response although request 1 came in between: it continues
    // request 0 and lacks its instructions (no new user turn: an error). Request 3 names a
    // response that is not recorded before it, while the latest request's is: a new conversation.
    assert_eq!(got, vec![f("dropped-system-prompt", 2, "/request/body", "error")]);
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/fixtures/streams/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn claude_code_sessions_interleaved_in_one_log_are_separate_conversations() {
    // claude-trace log: sessions A and B interleaved (A B A B); both open with the same
    // <system-reminder> block, B without A's output-style system block. Their
    // `metadata.user_id` (the JSON form) names different sessions: nothing is compared
    // across them, so neither a dropped system block nor a rewritten first turn.
    let (got, _) = check_dir(&[("trace.jsonl", fixture("claude-code-two-sessions.jsonl"))], false);
    assert_eq!(got, vec![]);
}

#[test]
fn claude_code_earlier_turn_resent_as_a_plain_string_is_not_a_rewrite() {
    // Request 0 sends the latest user turn as one text block with cache_control;
    // request 1 re-sends it as a plain string: a serialisation-only difference.
    let (got, _) = check_dir(&[("trace.jsonl", fixture("claude-code-string-turns.jsonl"))], false);
    assert_eq!(got, vec![]);
}

#[test]
fn claude_code_session_header_separates_sessions_and_an_edit_within_one_is_still_a_rewrite() {
    // claude-tap log: sessions C (requests 0-1) and D (2-4) named by X-Claude-Code-Session-Id
    // (and the older `user_…_account__session_…` user_id). C→D is not compared; request 4
    // re-sends request 3's block turn "can we use thin?" as the string "can we use thin LTO?".
    let (got, all) = check_dir(&[("tap.jsonl", fixture("claude-code-sessions-headers.jsonl"))], false);
    assert_eq!(got, vec![f("history-rewrite", 4, "/request/body/messages/2", "warning")]);
    assert_eq!(all[0].line, Some(5));
    assert_eq!(all[0].related[0].pointer, "/request/body/messages/2/content/0");
    let d = all[0].diff.as_deref().expect("diff");
    assert!(d.contains("-can we use thin?") && d.contains("+can we use thin LTO?"), "{d}");
}

/// An exchange-log line for an Anthropic body, with optional request headers.
fn xline(body: Value, headers: Value) -> String {
    serde_json::to_string(&json!({"request":{"method":"POST","path":"/v1/messages","headers":headers,"body":body},"response":{"status":200}})).unwrap()
}

fn cc_body(user_id: Option<&str>, messages: Value) -> Value {
    let mut b = json!({"model":"claude-sonnet-4-5","max_tokens":1024,"system":[{"type":"text","text":"You are Claude Code."}],"messages":messages});
    if let Some(u) = user_id {
        b["metadata"] = json!({"user_id": u});
    }
    b
}

#[test]
fn session_ids_equal_or_absent_keep_the_first_element_rule() {
    let reminder = json!({"type":"text","text":"<system-reminder>ctx</system-reminder>"});
    let first = json!([{"role":"user","content":[reminder, {"type":"text","text":"one"}]}]);
    let edited = json!([{"role":"user","content":[reminder, {"type":"text","text":"two"}]},{"role":"assistant","content":[{"type":"text","text":"ok"}]}]);
    let sess = |s: &str| format!(r#"{{"device_id":"d","account_uuid":"","session_id":"{s}"}}"#);
    let want_rewrite = vec![f("history-rewrite", 1, "/request/body/messages/0/content/1", "warning")];
    for (a, b, want) in [
        (Some(sess("s1")), Some(sess("s1")), want_rewrite.clone()),
        (Some(sess("s1")), None, want_rewrite.clone()),
        (None, Some(sess("s2")), want_rewrite.clone()),
        (None, None, want_rewrite.clone()),
        (Some(sess("s1")), Some(sess("s2")), vec![]),
        // An application's own user id is no session id.
        (Some("alice".into()), Some("bob".into()), want_rewrite.clone()),
    ] {
        let log = [
            xline(cc_body(a.as_deref(), first.clone()), json!({})),
            xline(cc_body(b.as_deref(), edited.clone()), json!({})),
        ]
        .join("\n");
        let (got, _) = check_dir(&[("log.jsonl", format!("{log}\n"))], false);
        assert_eq!(got, want, "{a:?} {b:?}");
    }
    // The header alone (any case), and the header over the body's id.
    for (ha, hb, want) in [
        (json!({"X-Claude-Code-Session-Id":"h1"}), json!({"x-claude-code-session-id":"h2"}), vec![]),
        (json!({"session_id":"h1"}), json!({"Session_Id":"h2"}), vec![]),
        (json!({"x-claude-code-session-id":"h1"}), json!({"x-claude-code-session-id":"h1"}), want_rewrite.clone()),
    ] {
        let log = [
            xline(cc_body(Some(&sess("s1")), first.clone()), ha.clone()),
            xline(cc_body(Some(&sess("s1")), edited.clone()), hb.clone()),
        ]
        .join("\n");
        let (got, _) = check_dir(&[("log.jsonl", format!("{log}\n"))], false);
        assert_eq!(got, want, "{ha} {hb}");
    }
}

#[test]
fn legacy_user_id_sessions_separate_request_body_files() {
    let legacy = |s: &str| format!("user_{}_account__session_{s}", "a".repeat(64));
    let first = json!([{"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"one"}]}]);
    let other = json!([{"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"two"}]}]);
    let (got, _) = check_dir(
        &bodies(&[
            cc_body(Some(&legacy("11111111-aaaa")), first.clone()),
            cc_body(Some(&legacy("22222222-bbbb")), other.clone()),
        ]),
        false,
    );
    assert_eq!(got, vec![]);
    // The same session is compared. (Issue 31: `other` alone replaces the
    // last user turn — a new call from the same point, no rewrite — so the
    // compared request carries a reply after the changed turn.)
    let changed = json!([
        {"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"two"}]},
        {"role":"assistant","content":[{"type":"text","text":"ok"}]},
        {"role":"user","content":[{"type":"text","text":"three"}]}]);
    let (got, _) = check_dir(
        &bodies(&[cc_body(Some(&legacy("11111111-aaaa")), first), cc_body(Some(&legacy("11111111-aaaa")), changed)]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/0/content/1", "warning")]);
}

#[test]
fn anthropic_string_and_one_text_block_are_the_same_element_but_not_other_shapes() {
    let a = json!({"role":"assistant","content":[{"type":"text","text":"b"}]});
    let blocks =
        |t: &str| json!({"role":"user","content":[{"type":"text","text":t,"cache_control":{"type":"ephemeral"}}]});
    let string = |t: &str| json!({"role":"user","content":t});
    let next = json!({"role":"user","content":[{"type":"text","text":"c"}]});
    // Blocks → string, string → blocks (also as the first element: it continues), and the
    // string system slot → one system block.
    for (x, y) in [(blocks("q"), string("q")), (string("q"), blocks("q"))] {
        let (got, _) = check_dir(
            &bodies(&[
                json!({"system":"S","messages":[x.clone()]}),
                json!({"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[y.clone(), a, next]}),
            ]),
            false,
        );
        assert_eq!(got, vec![], "{x} {y}");
    }
    // A real change of text is a rewrite (at the string message, or at the block). (Bodies
    // of plain text blocks carry the `max_tokens` every Messages request has: without it
    // they may be another provider's.)
    let (got, _) = check_dir(
        &bodies(&[
            json!({"max_tokens":1024,"messages":[string("u"), a, blocks("q")]}),
            json!({"max_tokens":1024,"messages":[string("u"), a, string("q!"), a, next]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/2", "warning")]);
    let (got, _) = check_dir(
        &bodies(&[
            json!({"max_tokens":1024,"messages":[string("u"), a, string("q")]}),
            json!({"max_tokens":1024,"messages":[string("u"), a, blocks("q!"), a, next]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/2/content/0", "warning")]);
    // Two text blocks are not the string of their joined texts; a block with citations is
    // not a plain text block.
    let two = json!({"role":"user","content":[{"type":"text","text":"q"},{"type":"text","text":"r"}]});
    let cited = json!({"role":"user","content":[{"type":"text","text":"q","citations":[]}]});
    for (x, y, ptr) in [(two, string("q\nr"), "/messages/2"), (string("q"), cited, "/messages/2/content/0")] {
        let (got, _) = check_dir(
            &bodies(&[
                json!({"max_tokens":1024,"messages":[string("u"), a, x.clone()]}),
                json!({"max_tokens":1024,"messages":[string("u"), a, y.clone(), a, next]}),
            ]),
            false,
        );
        assert_eq!(got, vec![f("history-rewrite", 1, ptr, "warning")], "{x} {y}");
    }
}

#[test]
fn chat_string_and_one_text_part_are_the_same_message() {
    let a = json!({"role":"assistant","content":"b"});
    let next = json!({"role":"user","content":"c"});
    let part = |t: &str| json!({"role":"user","content":[{"type":"text","text":t}]});
    let string = |t: &str| json!({"role":"user","content":t});
    // A system message keeps the bodies `openai-chat` (a body of user/assistant
    // messages with text parts only is read as `anthropic-messages`).
    let sys = json!({"role":"system","content":"S"});
    for (x, y) in [(part("q"), string("q")), (string("q"), part("q"))] {
        let (got, _) = check_dir(
            &bodies(&[
                json!({"model":"gpt-4.1","messages":[{"role":"system","content":[{"type":"text","text":"S"}]}, x.clone()]}),
                json!({"model":"gpt-4.1","messages":[{"role":"system","content":"S"}, y.clone(), a, next]}),
            ]),
            false,
        );
        assert_eq!(got, vec![], "{x} {y}");
    }
    let (got, _) = check_dir(
        &bodies(&[
            json!({"model":"gpt-4.1","messages":[sys, string("u"), a, part("q")]}),
            json!({"model":"gpt-4.1","messages":[sys, string("u"), a, string("q "), a, next]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/3", "warning")]);
    let two = json!({"role":"user","content":[{"type":"text","text":"q"},{"type":"text","text":"r"}]});
    let (got, _) = check_dir(
        &bodies(&[
            json!({"model":"gpt-4.1","messages":[sys, string("u"), a, string("q\nr")]}),
            json!({"model":"gpt-4.1","messages":[sys, string("u"), a, two, a, next]}),
        ]),
        false,
    );
    assert_eq!(got, vec![f("history-rewrite", 1, "/messages/3/content/0", "warning")]);
}

#[test]
fn cassette_turn_resent_as_a_string_is_not_a_rewrite() {
    let y = r#"interactions:
- request:
    method: POST
    parsed_body:
      max_tokens: 1024
      messages:
      - content: start
        role: user
      - content:
        - text: ok
          type: text
        role: assistant
      - content:
        - text: hello
          type: text
          cache_control:
            type: ephemeral
        role: user
      model: claude-sonnet-4-5
    uri: https://api.anthropic.com/v1/messages
- request:
    method: POST
    parsed_body:
      max_tokens: 1024
      messages:
      - content: start
        role: user
      - content:
        - text: ok
          type: text
        role: assistant
      - content: hello
        role: user
      - content:
        - text: hi
          type: text
        role: assistant
      - content:
        - text: again
          type: text
        role: user
      model: claude-sonnet-4-5
    uri: https://api.anthropic.com/v1/messages
"#;
    let (got, _) = check_dir(&[("c.yaml", y.to_string())], false);
    assert_eq!(got, vec![]);
    let (got, _) = check_dir(&[("c.yaml", y.replacen("content: hello", "content: hello!", 1))], false);
    assert_eq!(got, vec![f("history-rewrite", 1, "/interactions/1/request/parsed_body/messages/2", "warning")]);
}

#[test]
fn interleaved_sessions_are_each_compared_with_their_own_previous_request() {
    // Two Claude Code windows in one proxy log: A0, B0, A1, B1. A1 edits A0's turn (a rewrite
    // inside session A); B1 extends B0 cleanly. Each request pairs with its own session's last.
    let sess = |s: &str| format!(r#"{{"device_id":"d","account_uuid":"","session_id":"{s}"}}"#);
    let reminder = json!({"type":"text","text":"<system-reminder>ctx</system-reminder>"});
    let a0 = json!([{"role":"user","content":[reminder, {"type":"text","text":"fix the parser"}]}]);
    let a1 = json!([{"role":"user","content":[reminder, {"type":"text","text":"fix the lexer"}]},{"role":"assistant","content":[{"type":"text","text":"ok"}]},{"role":"user","content":"go on"}]);
    let b0 = json!([{"role":"user","content":[reminder, {"type":"text","text":"write docs"}]}]);
    let b1 = json!([{"role":"user","content":[reminder, {"type":"text","text":"write docs"}]},{"role":"assistant","content":[{"type":"text","text":"done"}]},{"role":"user","content":"thanks"}]);
    let log = [
        xline(cc_body(Some(&sess("a")), a0), json!({})),
        xline(cc_body(Some(&sess("b")), b0), json!({})),
        xline(cc_body(Some(&sess("a")), a1), json!({})),
        xline(cc_body(Some(&sess("b")), b1), json!({})),
    ]
    .join("\n");
    let (got, _) = check_dir(&[("log.jsonl", format!("{log}\n"))], false);
    assert_eq!(got, vec![f("history-rewrite", 2, "/request/body/messages/0/content/1", "warning")]);
}
