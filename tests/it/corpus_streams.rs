//! The recorded streams of `../shared/corpus/` (VCR cassettes, exchange logs,
//! pydantic-ai history snapshots) load, and give exactly the findings below
//! (rule, 0-based request index, severity, pointer): the defects the corpus
//! MANIFEST lists, the tools-level warnings of the tool-search / deferred-tool
//! cassettes, and a few true defects of the test data literals. Everything else
//! — compaction and `previous_response_id` cassettes included — is clean.
//! Skipped with a printed reason when `../shared/corpus` is absent.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    crate::shared::path("corpus")
}

type Got = Vec<(String, u64, String, String)>;

fn check(args: &[&str], path: &Path) -> (i32, Got) {
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .arg("check")
        .args(args)
        .arg(path)
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: no JSON ({e}): {}", path.display(), String::from_utf8_lossy(&out.stderr)));
    let mut f: Got = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["request"].as_u64().unwrap_or(u64::MAX),
                f["severity"].as_str().unwrap().to_string(),
                f["pointer"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    f.sort();
    (out.status.code().unwrap(), f)
}

fn rw(req: u64, pointer: &str) -> (String, u64, String, String) {
    ("history-rewrite".into(), req, "warning".into(), pointer.into())
}

fn tools(req: u64) -> (String, u64, String, String) {
    rw(req, &format!("/interactions/{req}/request/parsed_body/tools"))
}

/// Cassettes with findings; every other cassette must be clean.
fn expected_cassettes() -> Vec<(&'static str, Got)> {
    vec![
        // MANIFEST: request 2 re-sends history that lost a thinking block.
        (
            "anthropic/test_anthropic_thinking_agui_0_1_10_drops_prefix.yaml",
            vec![rw(2, "/interactions/2/request/parsed_body/messages/1/content/0")],
        ),
        // MANIFEST: request 2 edits a reasoning item of request 1's history.
        (
            "openai-responses/test_openai_responses_thinking_with_modified_history.yaml",
            vec![rw(2, "/interactions/2/request/parsed_body/input/1")],
        ),
        // MANIFEST: request 3 replays the history without instructions (a new user turn:
        // warning) and without its tools.
        (
            "mixed/test_reused_tool_call_ids--request.yaml",
            vec![
                ("dropped-system-prompt".into(), 3, "warning".into(), "/interactions/3/request/parsed_body".into()),
                rw(3, "/interactions/3/request/parsed_body"),
            ],
        ),
        // Tool search / deferred tools: tools[] grows after the search step. On
        // Anthropic the discovered tools are sent with `defer_loading: true`,
        // which is not part of the prompt (the cache holds): no finding. The
        // other providers get them as plain tools: the prefix changes.
        ("anthropic/test_tool_search_eval--anthropic.yaml", vec![]),
        ("google/test_tool_search_eval--google.yaml", vec![tools(1), tools(4)]),
        ("openai-chat/test_tool_search_eval--openai-chat.yaml", vec![tools(1), tools(4)]),
        ("deepseek/test_deepseek_deferred_capability_with_thinking.yaml", vec![tools(1)]),
        ("google/test_google_deferred_capability_announcement_live.yaml", vec![tools(1)]),
        // Request 2 continues request 1's history but sends no tools any more.
        (
            "openai-chat/test_openai_tool_call_roundtrip_wire_stable--vercel.yaml",
            vec![rw(2, "/interactions/2/request/parsed_body")],
        ),
    ]
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.push(p);
        }
    }
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn every_cassette_gives_exactly_its_findings() {
    let Some(c) = corpus() else { return };
    let root = c.join("vcr-cassette");
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    files.sort();
    assert!(files.len() >= 46, "found {} cassettes", files.len());
    let expected = expected_cassettes();
    let mut failures = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let mut want = expected.iter().find(|(n, _)| *n == rel).map(|(_, g)| g.clone()).unwrap_or_default();
        want.sort();
        let (code, got) = check(&[], f);
        let want_code = if want.is_empty() { 0 } else { 1 };
        if code != want_code || got != want {
            failures.push(format!("{rel}: exit {code}, got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn dropped_instructions_point_at_the_prompt_in_the_previous_request() {
    let Some(c) = corpus() else { return };
    let f = c.join("vcr-cassette/mixed/test_reused_tool_call_ids--request.yaml");
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .arg("check")
        .arg(&f)
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = v["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "dropped-system-prompt").expect("finding");
    assert_eq!(d["related"][0]["pointer"], "/interactions/2/request/parsed_body/instructions");
    assert!(d["line"].as_u64().is_some(), "cassette findings carry a line");
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn exchange_logs_load_and_are_clean() {
    let Some(c) = corpus() else { return };
    let (code, got) = check(&[], &c.join("exchange-log"));
    assert_eq!((code, got), (0, vec![]));
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn pydantic_histories_load_one_by_one() {
    let Some(c) = corpus() else { return };
    let (code, got) = check(&["--no-stream"], &c.join("pydantic-ai-history"));
    assert_eq!(code, 1);
    // Data literals of pydantic-ai's serialisation tests: a call answered by no
    // return, and returns answering no call. Each file is its own input (request 0).
    let e = |r: &str, p: &str| (r.to_string(), 0, "error".to_string(), p.to_string());
    let mut want = vec![
        e("unanswered-tool-call", "/0/parts/1"),
        e("orphan-tool-result", "/0/parts/0"),
        e("orphan-tool-result", "/1/parts/0"),
    ];
    want.sort();
    assert_eq!(got, want);
}
