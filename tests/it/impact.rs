//! What each defect cost (issue 36): the recorded usage of every shape, the
//! `impact` of findings, unexplained cache breaks, totals, `[prices]` and
//! `--sort impact`. Fixtures in `fixtures/usage/` (written by its `make.py`);
//! the expected figures are worked out by hand from the fixtures' usage and
//! the built-in price table, as the comments show.

use crate::support::{ctxlint, root};
use serde_json::{Value, json};

fn report(args: &[&str]) -> Value {
    let out = ctxlint().args(["check", "--output-format", "json"]).args(args).current_dir(root()).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn usage_of(path: &str) -> Value {
    report(&[path])["files"][0]["usage"].clone()
}

#[test]
fn claude_code_usage_is_summed_per_call_with_the_last_line_of_a_split_response() {
    let r = report(&["fixtures/usage/claude-code-usage.jsonl"]);
    // Five responses; the first is written as two lines (output 5, then 40).
    // input 10+5+30+8+4; output 40+20+10+6+3; cache read 12000+12500+2000;
    // writes 12000+500+300+11000+13500. Sonnet 4.5: $3 in, $15 out, $0.30
    // read, $3.75 write per million: 171+1185+7950+139875 = $0.149181.
    assert_eq!(
        r["files"][0]["usage"],
        json!({"calls": 5, "input": 57, "cache_read": 26500, "cache_write": 37300, "output": 79,
               "cache_read_ratio": 0.415, "cost_usd": 0.149181, "unpriced_models": [], "unpriced_calls": 0,
               "unexplained_cache_breaks": [{"request": 3, "line": 9, "entry_id": "00000000-0000-4000-8000-000000000009",
                   "previous": 2, "cached_before": 12800, "cached_after": 2000, "seconds": 60,
                   "model": "claude-sonnet-4-5-20250929"}]})
    );
    // The reminder (140 bytes: 35 tokens) sent a second time at step 2; the
    // prompt grew from 12,505 to 12,830 tokens, more than half of 35.
    let f = &r["findings"][0];
    assert_eq!((f["rule"].as_str(), f["request"].as_u64()), (Some("duplicate-context-block"), Some(2)));
    assert_eq!(
        f["impact"],
        json!({"tokens": 35, "estimated": true, "cached_before": 12000, "cached_after": 12500, "confirmed": true, "cost_usd": 0.000105})
    );
    let s = &r["summary"];
    assert_eq!(
        (
            &s["tokens"],
            &s["cost_usd"],
            &s["confirmed"],
            &s["judged"],
            &s["unexplained_cache_breaks"],
            &s["recorded_cost_usd"]
        ),
        (&json!(35), &json!(0.000105), &json!(1), &json!(1), &json!(1), &json!(0.149181))
    );
    assert_eq!(
        r["files"][0]["impact"],
        json!({"findings": 1, "tokens": 35, "cost_usd": 0.000105, "judged": 1, "confirmed": 1})
    );
}

#[test]
fn a_cache_break_is_confirmed_only_when_the_recorded_cache_read_fell() {
    // Request 1 left 2,100 + 1,600 tokens in the cache; request 2 read 2,120:
    // 1,580 lost, re-written at $3.75 instead of read at $0.30 per million.
    let r = report(&["fixtures/usage/anthropic-cassette.yaml"]);
    let f = &r["findings"][0];
    assert_eq!((f["rule"].as_str(), f["request"].as_u64()), (Some("history-rewrite"), Some(2)));
    assert_eq!(
        f["impact"],
        json!({"tokens": 1580, "estimated": false, "cached_before": 3700, "cached_after": 2120, "confirmed": true, "cost_usd": 0.005451})
    );
    // The same rewrite where the read did not fall: not confirmed, no cost.
    let r = report(&["fixtures/usage/anthropic-cassette-kept.yaml"]);
    assert_eq!(
        r["findings"][0]["impact"],
        json!({"tokens": 0, "estimated": false, "cached_before": 2140, "cached_after": 2140, "confirmed": false, "cost_usd": 0.0})
    );
    // Cassettes record no times: no break is judged unexplained.
    assert_eq!(r["files"][0]["usage"]["unexplained_cache_breaks"], json!([]));
}

#[test]
fn every_usage_shape_is_read() {
    // Codex `token_count` (`input_tokens` counts the cached ones; the event
    // written twice names one call) with `turn_context.model` gpt-5.1-codex:
    // (5000+336)×1.25 + 4864×0.125 + 90×10 = $0.008178.
    assert_eq!(
        usage_of("fixtures/usage/codex-usage.jsonl"),
        json!({"calls": 2, "input": 5336, "cache_read": 4864, "cache_write": 0, "output": 90, "cache_read_ratio": 0.4769,
               "cost_usd": 0.008178, "unpriced_models": [], "unpriced_calls": 0, "unexplained_cache_breaks": []})
    );
    // claude-trace: a JSON body (8 in, 4 out) and a streamed `body_raw`
    // (`message_start` 9 in, `message_delta` 7 out); Haiku 4.5 $1/$5.
    assert_eq!(
        usage_of("fixtures/usage/exchange-log-usage.jsonl"),
        json!({"calls": 2, "input": 17, "cache_read": 0, "cache_write": 0, "output": 11, "cache_read_ratio": 0.0,
               "cost_usd": 0.000072, "unpriced_models": [], "unpriced_calls": 0, "unexplained_cache_breaks": []})
    );
    // Gemini CLI `tokens` (two records of 812 in, 41 out; gemini-2.5-pro $1.25/$10).
    assert_eq!(usage_of("fixtures/formats/gemini-cli/clean.jsonl")["cost_usd"], json!(0.00285));
    // HAR response texts: Chat Completions, Anthropic and Responses usage;
    // the `count_tokens` exchange is no call.
    let har = usage_of("fixtures/formats/har/clean.har");
    assert_eq!((&har["calls"], &har["input"], &har["output"]), (&json!(6), &json!(314), &json!(69)));
    // OpenCode assistant `tokens` (102+103+104 in, 10 each out); its stub model has no price.
    let oc = usage_of("fixtures/formats/opencode/clean.db");
    assert_eq!(
        (&oc["calls"], &oc["input"], &oc["output"], &oc["cost_usd"]),
        (&json!(3), &json!(309), &json!(30), &Value::Null)
    );
    assert_eq!((&oc["unpriced_models"], &oc["unpriced_calls"]), (&json!(["stub/stub-model"]), &json!(3)));
    // pi/OpenClaw assistant `usage` (five calls of 100 in, 10 out).
    let pi = usage_of("fixtures/kinds/oc-heartbeat-polls-recurring/session.jsonl");
    assert_eq!((&pi["calls"], &pi["input"], &pi["output"]), (&json!(5), &json!(500), &json!(50)));
}

#[test]
fn configured_prices_replace_the_built_in_ones_and_bad_ones_are_refused() {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("fixtures/usage/codex-usage.jsonl"), d.path().join("s.jsonl")).unwrap();
    std::fs::write(
        d.path().join("ctxlint.toml"),
        "[prices.\"gpt-5.1\"]\ninput = 1.0\noutput = 2.0\ncache-read = 0.5\n",
    )
    .unwrap();
    let out = ctxlint().args(["check", "s.jsonl", "--output-format", "json"]).current_dir(d.path()).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 5336×1 + 4864×0.5 + 90×2 = 7,948 → $0.007948.
    assert_eq!(v["files"][0]["usage"]["cost_usd"], json!(0.007948));
    std::fs::write(d.path().join("ctxlint.toml"), "[prices.\"gpt-5.1\"]\ninput = -1.0\noutput = 2.0\n").unwrap();
    let out = ctxlint().args(["check", "s.jsonl"]).current_dir(d.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[prices.\"gpt-5.1\"]") && err.contains("numbers from 0 to 1,000,000"), "{err}");
}

#[test]
fn sort_impact_puts_the_costliest_finding_first() {
    let r = report(&["fixtures/usage", "--sort", "impact"]);
    let order: Vec<(&str, Option<f64>)> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["impact"]["cost_usd"].as_f64()))
        .collect();
    assert_eq!(
        order,
        vec![
            ("fixtures/usage/anthropic-cassette.yaml", Some(0.005451)),
            ("fixtures/usage/claude-code-usage.jsonl", Some(0.000105)),
            ("fixtures/usage/anthropic-cassette-kept.yaml", Some(0.0)),
        ]
    );
    // Without --sort, the report order (by path).
    let r = report(&["fixtures/usage"]);
    assert_eq!(r["findings"][0]["path"], "fixtures/usage/anthropic-cassette-kept.yaml");
}

#[test]
fn the_human_summary_says_what_the_findings_cost() {
    let out = ctxlint()
        .args(["check", "fixtures/usage/claude-code-usage.jsonl", "--color", "never"])
        .current_dir(root())
        .output()
        .unwrap();
    insta::assert_snapshot!("impact_full", String::from_utf8_lossy(&out.stdout));
    let out = ctxlint()
        .args(["check", "fixtures/usage", "--statistics", "--output-format", "json"])
        .current_dir(root())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["statistics"]["history-rewrite"],
        json!({"code": "CTX202", "count": 2, "errors": 0, "warnings": 2, "tokens": 1580, "cost_usd": 0.005451})
    );
}

#[test]
fn paragraphs_repeated_together_are_one_finding_that_costs_them_all() {
    // A real Copilot CLI session repeated 16 paragraphs of one message in a
    // later one: one finding (one defect) whose impact counted only the first.
    let d = tempfile::tempdir().unwrap();
    let para = |i: usize| {
        format!(
            "Paragraph {i} of the injected guide: {}.",
            "keep every step small and checked".repeat(2).trim_end_matches("ed")
        )
    };
    let block: Vec<String> = (0..3).map(para).collect();
    assert!(block.iter().all(|p| p.len() == 100));
    let body = json!({"model": "gpt-4o", "messages": [
        {"role": "user", "content": format!("{}\n\nfirst question", block.join("\n\n"))},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": format!("{}\n\nsecond question", block.join("\n\n"))},
    ]});
    let p = d.path().join("request.json");
    std::fs::write(&p, body.to_string()).unwrap();
    let r = report(&[p.to_str().unwrap()]);
    let found = r["findings"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{r}");
    assert_eq!(
        (found[0]["rule"].as_str(), found[0]["pointer"].as_str()),
        (Some("duplicate-context-block"), Some("/messages/2"))
    );
    // 3 x 100 bytes: 300 bytes, 75 tokens (the first paragraph alone: 25).
    assert_eq!(found[0]["impact"]["tokens"], json!(75), "{r}");
}

#[test]
fn a_cost_known_for_some_findings_only_is_said_to_be_theirs() {
    // A new user read "Impact: ~140 tokens, ~$0.00" where the 140 tokens were
    // a finding of an unpriced model and $0.00 another's.
    let out = crate::support::ctxlint()
        .args(["check", "--isolated", "fixtures/kinds/forks-hidden-defects-stay-reported"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("Impact:")).unwrap_or_default();
    assert!(line.contains("for those of a priced model;") && line.contains("of a model with no price)"), "{text}");
}
