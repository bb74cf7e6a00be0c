//! The `otel-genai` input format on the files of `fixtures/formats/otel-genai`
//! (recorded with real OpenTelemetry instrumentation against a stub provider;
//! see its README): exact findings per file, the clean ones none, skipped
//! spans, detection without `--input-format`, a forced format that does not
//! fit, `show`, `diff` and `repro`.

use serde_json::Value;

use crate::found::{Located, located};
use crate::support::ctxlint;

const DIR: &str = "fixtures/formats/otel-genai";

fn file(name: &str) -> String {
    format!("{DIR}/{name}.jsonl")
}

fn check(name: &str) -> (i32, Value) {
    let out = ctxlint().args(["check", "--isolated", "--output-format", "json", &file(name)]).output().unwrap();
    (out.status.code().unwrap(), serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

fn one(code: &str, line: u64, col: u64, pointer: &str, request: u64, related: &[(u64, &str)]) -> Located {
    (code.into(), line, col, pointer.into(), request, related.iter().map(|(l, p)| (*l, p.to_string())).collect())
}

/// (format, requests, skipped).
fn counts(v: &Value) -> (String, u64, u64) {
    let f = &v["files"][0];
    (f["format"].as_str().unwrap().into(), f["requests"].as_u64().unwrap(), f["skipped_exchanges"].as_u64().unwrap())
}

#[test]
fn the_clean_recordings_have_no_findings() {
    for (name, requests, skipped) in [
        ("span.clean", 4, 2),
        ("event.clean", 4, 2),
        ("legacy.clean", 4, 6),
        ("console.clean", 4, 2),
        ("copilot.clean", 4, 2),
        ("openinference.clean", 4, 2),
        ("pydantic.clean", 3, 3),
    ] {
        let (code, v) = check(name);
        assert_eq!((code, located(&v)), (0, vec![]), "{name}");
        assert_eq!(counts(&v), ("otel-genai".into(), requests, skipped), "{name}");
    }
}

#[test]
fn each_recorded_defect_is_found_at_its_span() {
    let sp = "/resourceSpans/0/scopeSpans/0/spans/0";
    let m = format!("{sp}/attributes/8/value/stringValue");
    let cases: Vec<(&str, Vec<Located>)> = vec![
        ("span.dropped-system-prompt", vec![one("CTX201", 2, 506, sp, 1, &[(1, &format!("{m}/0/parts/0"))])]),
        (
            "span.duplicate-system-prompt",
            vec![one("CTX103", 1, 1375, &format!("{m}/1/parts/0"), 0, &[(1, &format!("{m}/0/parts/0"))])],
        ),
        (
            "span.duplicate-context-block",
            vec![one("CTX102", 1, 1375, &format!("{m}/3/parts/0"), 0, &[(1, &format!("{m}/1/parts/0"))])],
        ),
        (
            "span.duplicate-system-event",
            vec![one("CTX101", 1, 1375, &format!("{m}/1/parts/0"), 0, &[(1, &format!("{m}/1/parts/0"))])],
        ),
        (
            "span.history-rewrite",
            vec![one("CTX202", 3, 1375, &format!("{m}/3/parts/0"), 2, &[(2, &format!("{m}/3/parts/0"))])],
        ),
        ("span.unanswered-tool-call", vec![one("CTX301", 2, 1375, &format!("{m}/2/parts/0"), 1, &[])]),
        ("span.orphan-tool-result", vec![one("CTX302", 2, 1375, &format!("{m}/3/parts/0"), 1, &[])]),
        (
            "event.dropped-system-prompt",
            vec![one(
                "CTX201",
                3,
                510,
                "/resourceLogs/0/scopeLogs/0/logRecords/0",
                1,
                &[(
                    1,
                    "/resourceLogs/0/scopeLogs/0/logRecords/0/attributes/8/value/arrayValue/values/0/kvlistValue/values/1/value/arrayValue/values/0",
                )],
            )],
        ),
        (
            "legacy.history-rewrite",
            vec![one(
                "CTX202",
                11,
                558,
                "/resourceLogs/0/scopeLogs/0/logRecords/0/body/kvlistValue/values/0/value/stringValue",
                2,
                &[(5, "/resourceLogs/0/scopeLogs/0/logRecords/0/body/kvlistValue/values/0/value/stringValue")],
            )],
        ),
        (
            "console.duplicate-system-prompt",
            vec![one(
                "CTX103",
                26,
                9,
                "/attributes/gen_ai.input.messages/1/parts/0",
                0,
                &[(26, "/attributes/gen_ai.input.messages/0/parts/0")],
            )],
        ),
        (
            "copilot.unanswered-tool-call",
            vec![one("CTX301", 2, 543, "/attributes/gen_ai.input.messages/2/parts/0", 1, &[])],
        ),
        (
            "openinference.orphan-tool-result",
            vec![one("CTX302", 2, 3208, &format!("{sp}/attributes/15/value/stringValue"), 1, &[])],
        ),
    ];
    for (name, want) in cases {
        let (code, v) = check(name);
        assert_eq!((code, located(&v)), (1, want), "{name}");
    }
}

#[test]
fn findings_name_the_span_and_the_format_is_detected_by_content() {
    let (_, v) = check("span.unanswered-tool-call");
    let msg = v["findings"][0]["message"].as_str().unwrap();
    assert!(msg.starts_with("tool call `call_"), "{msg}");
    let tail = msg.split("; in ").nth(1).unwrap();
    assert!(tail.starts_with("span `chat gpt-4o-mini` (trace `"), "{msg}");
    assert!(tail.contains("`, span `") && tail.ends_with("`)"), "{msg}");
    assert_eq!(v["findings"][0]["format"], "otel-genai");
    // Forced, it fits; forced on a file of another format, it names what is missing.
    let out = ctxlint()
        .args(["check", "--isolated", "--input-format", "otel-genai", &file("console.clean")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = ctxlint()
        .args(["check", "--isolated", "--input-format", "otel-genai", "fixtures/formats/har/clean.har"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("resourceSpans"));
}

#[test]
fn show_and_diff_read_a_recording() {
    let out = ctxlint().args(["show", &file("span.clean")]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(otel-genai): 4 requests"), "{text}");
    assert!(text.contains("List the files in src/ please."), "{text}");
    let out = ctxlint().args(["diff", &file("span.history-rewrite"), "--request", "1", "2"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("lib.rs"), "{text}");
}

#[test]
fn repro_reduces_a_dropped_system_prompt_to_a_small_anonymised_case() {
    reduce_dropped_system_prompt();
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn repro_reduces_a_dropped_system_prompt_to_a_case_that_run_cases_passes() {
    let dir = reduce_dropped_system_prompt();
    let Some(runner) = crate::shared::path("cases/run_cases.py") else { return };
    let bin = assert_cmd::cargo::cargo_bin("ctxlint");
    let out = std::process::Command::new("python3").arg(runner).arg("--bin").arg(bin).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed, 0 failed"));
}

/// `repro` of the dropped system prompt of `span.dropped-system-prompt`: one case, anonymised.
fn reduce_dropped_system_prompt() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = ctxlint()
        .args(["repro", &file("span.dropped-system-prompt"), "--line", "2", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let case = dir.path().join("dropped-system-prompt-1");
    let expected: Value = serde_json::from_slice(&std::fs::read(case.join("expected.json")).unwrap()).unwrap();
    assert_eq!(expected["format"], "otel-genai");
    assert_eq!(expected["findings"][0]["rule"], "dropped-system-prompt");
    assert_eq!(expected["findings"][0]["pointer"], "/resourceSpans/0/scopeSpans/0/spans/0");
    // Anonymised under a neutral name; the OTLP attribute names and the roles are kept.
    let input = std::fs::read_to_string(case.join("traces.jsonl")).unwrap();
    assert_eq!(input.lines().count(), 2);
    assert!(input.contains(r#""key":"gen_ai.input.messages""#), "{input}");
    assert!(!input.contains("careful coding assistant"), "{input}");
    dir
}

#[test]
fn a_rewritten_tool_result_is_named_once_as_a_tool_result_block() {
    let (_, v) = check("span.history-rewrite");
    let msg = v["findings"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("this tool result block differs from the tool result block the previous request sent here"),
        "{msg}"
    );
}

#[test]
fn spans_recorded_without_their_content_give_one_warning_said_once() {
    // A real Agent Framework dump recorded with content capture off gave
    // `traces.jsonl:425: : 34 inference span(s) … so they were not checked;
    // not checked` (an empty pointer, "not checked" twice).
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("fixtures/formats/otel-genai/console.clean.jsonl").unwrap();
    let stripped: String =
        text.lines().filter(|l| !l.contains("\"gen_ai.input.messages\"")).map(|l| format!("{l}\n")).collect();
    let p = d.path().join("traces.jsonl");
    std::fs::write(&p, stripped).unwrap();
    let out = crate::support::ctxlint().args(["check", "--isolated"]).arg(&p).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let w: Vec<&str> = err.lines().filter(|l| l.contains("carry no prompt content")).collect();
    assert_eq!(w.len(), 1, "{err}");
    assert!(w[0].starts_with(&format!("ctxlint: warning: {}:", p.display())), "{err}");
    assert!(!w[0].contains(": :") && w[0].ends_with("so they were not checked"), "{err}");
}
