//! The `har` input format on the archives of `fixtures/formats/har` (seven
//! recorded with mitmdump in front of a stub provider, one DevTools-shaped
//! archive built by hand; see its README): exact findings per archive,
//! skipped and unread entries, base64 bodies, order by `startedDateTime`,
//! a forced format that does not fit, `diff`, `show` and `repro`.

use serde_json::Value;

use crate::found::{Located, located};
use crate::support::ctxlint;
use std::path::Path;

const DIR: &str = "fixtures/formats/har";

fn har(name: &str) -> String {
    format!("{DIR}/{name}.har")
}

/// Exit code, JSON report and standard error of `check --isolated FILE`.
fn check(name: &str) -> (i32, Value, String) {
    let out = ctxlint().args(["check", "--isolated", "--output-format", "json", &har(name)]).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), v, String::from_utf8(out.stderr).unwrap())
}

fn one(code: &str, line: u64, pointer: &str, request: u64, related: &[(u64, &str)]) -> Located {
    // mitmproxy indents by 4: the body text string of every finding starts at column 33.
    let related = related.iter().map(|(l, p)| (*l, p.to_string())).collect();
    (code.into(), line, 33, pointer.into(), request, related)
}

/// (format, requests, skipped exchanges) of the report's only file.
fn file_counts(v: &Value) -> (String, u64, u64) {
    let f = &v["files"][0];
    (f["format"].as_str().unwrap().into(), f["requests"].as_u64().unwrap(), f["skipped_exchanges"].as_u64().unwrap())
}

#[test]
fn the_clean_recording_has_no_findings_and_counts_what_it_skipped() {
    let (code, v, err) = check("clean");
    assert_eq!((code, located(&v), err.as_str()), (0, vec![], ""));
    // GET /v1/models and POST /v1/messages/count_tokens are not model calls.
    assert_eq!(file_counts(&v), ("har".into(), 6, 2));
}

#[test]
fn each_recorded_defect_is_found_at_its_entry() {
    let t = "/request/postData/text";
    let cases: Vec<(&str, Vec<Located>)> = vec![
        (
            "dropped-system-prompt",
            vec![one("CTX201", 144, &format!("/log/entries/1{t}"), 1, &[(54, &format!("/log/entries/0{t}/system"))])],
        ),
        (
            "duplicate-system-event",
            vec![one(
                "CTX101",
                144,
                &format!("/log/entries/1{t}/messages/3"),
                1,
                &[(144, &format!("/log/entries/1{t}/messages/3"))],
            )],
        ),
        (
            "history-rewrite",
            vec![one(
                "CTX202",
                234,
                &format!("/log/entries/2{t}/messages/2"),
                2,
                &[(144, &format!("/log/entries/1{t}/messages/2"))],
            )],
        ),
        ("unanswered-tool-call", vec![one("CTX301", 144, &format!("/log/entries/1{t}/messages/1/content/0"), 1, &[])]),
        ("orphan-tool-result", vec![one("CTX302", 234, &format!("/log/entries/2{t}/messages/6"), 2, &[])]),
        (
            "context-duplicates",
            vec![
                one(
                    "CTX103",
                    54,
                    &format!("/log/entries/0{t}/messages/1"),
                    0,
                    &[(54, &format!("/log/entries/0{t}/messages/0"))],
                ),
                one(
                    "CTX102",
                    234,
                    &format!("/log/entries/2{t}/input/2/content/0"),
                    2,
                    &[(234, &format!("/log/entries/2{t}/input/0/content/0"))],
                ),
            ],
        ),
    ];
    for (name, want) in cases {
        let (code, v, err) = check(name);
        assert_eq!(code, 1, "{name}: {err}");
        assert_eq!(located(&v), want, "{name}");
        assert_eq!(file_counts(&v).2, 0, "{name}");
    }
}

#[test]
fn the_line_is_the_line_of_the_body_text() {
    let text = std::fs::read_to_string(har("dropped-system-prompt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[143].starts_with("                        \"text\": \"{\\\"model\\\": \\\"claude-sonnet-4-5\\\""));
    assert!(lines[53].starts_with("                        \"text\": "));
    let (_, v, _) = check("dropped-system-prompt");
    // The byte offset is that of the text string's opening quote.
    let off = v["findings"][0]["byte_offset"].as_u64().unwrap() as usize;
    let line_start: usize = lines[..143].iter().map(|l| l.len() + 1).sum();
    assert_eq!(off, line_start + 32);
    assert_eq!(&text[off..off + 2], "\"{");
}

#[test]
fn a_browser_archive_skips_pages_reads_base64_and_warns_about_a_body_that_is_not_json() {
    let (code, v, err) = check("browser");
    assert_eq!(code, 1);
    let t = "/log/entries/2/request/postData/text";
    assert_eq!(
        located(&v),
        vec![("CTX102".into(), 190, 21, format!("{t}/messages/3"), 2, vec![(190, format!("{t}/messages/1"))])]
    );
    // The page, the script, the analytics beacon and the `[object Object]` body.
    assert_eq!(file_counts(&v), ("har".into(), 2, 4));
    assert_eq!(
        err,
        "ctxlint: warning: fixtures/formats/har/browser.har:417: /log/entries/5/request/postData/text: its request body is not valid JSON (expected value at line 1 column 2); not checked\n"
    );
}

#[test]
fn show_lists_requests_in_start_order_with_the_base64_body_read() {
    let out = ctxlint().args(["show", "--output-format", "json", &har("browser")]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "har");
    let reqs = v["requests"].as_array().unwrap();
    // Entry 4 (base64 `postData`, 09:00:12) was sent before entry 2 (09:00:41), which the file lists first.
    let got: Vec<(u64, u64, u64)> = reqs
        .iter()
        .map(|r| (r["index"].as_u64().unwrap(), r["line"].as_u64().unwrap(), r["context_messages"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, vec![(4, 338, 2), (2, 190, 4)]);
    assert_eq!(reqs[1]["delta"]["previous"], 4);
    assert_eq!(reqs[1]["delta"]["carried"], 2);
    let out = ctxlint().args(["show", "--color", "never", &har("browser"), "--request", "4"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(text.contains("How do I export a project?"), "{text}");
    assert!(text.contains("You are the Example Docs helper."), "{text}");
}

#[test]
fn diff_of_two_requests_of_an_archive() {
    let out = ctxlint()
        .args(["diff", "--output-format", "json", &har("history-rewrite"), "--request", "1", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = "/request/postData/text";
    assert_eq!(v["verdict"], "rewrite");
    assert_eq!(v["summary"], format!("rewrite at messages /log/entries/2{t}/messages/2"));
    assert_eq!(v["first_divergence"]["prev_pointer"], format!("/log/entries/1{t}/messages/2"));
    assert_eq!((v["a"]["format"].as_str(), v["a"]["request"].as_u64()), (Some("openai-chat"), Some(1)));
    let ops: Vec<(&str, &str)> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["op"].as_str().unwrap(), c["pointer"].as_str().unwrap()))
        .collect();
    let p = |k: usize| format!("/log/entries/2{t}/messages/{k}");
    assert_eq!(ops, vec![("changed", p(2).as_str()), ("added", p(4).as_str()), ("added", p(5).as_str())]);
}

#[test]
fn a_forced_har_that_is_not_one_says_what_is_missing() {
    let d = tempfile::tempdir().unwrap();
    let no_entries = d.path().join("x.har");
    std::fs::write(&no_entries, r#"{"log": {"version": "1.2", "creator": {"name": "x"}}}"#).unwrap();
    let body = d.path().join("body.json");
    std::fs::write(&body, r#"{"model": "m", "messages": [{"role": "user", "content": "hi"}]}"#).unwrap();
    let jsonl = format!("{}/fixtures/streams/claude-code-two-sessions.jsonl", env!("CARGO_MANIFEST_DIR"));
    for (file, want) in [
        (no_entries.to_str().unwrap(), "`log` has no `entries` array (an HTTP Archive's list of requests)"),
        (body.to_str().unwrap(), "no top-level `log` object with `entries` (an HTTP Archive 1.2 document)"),
        (jsonl.as_str(), "not one JSON document (trailing characters at line 2 column 1), so no HTTP Archive"),
    ] {
        let out = ctxlint().args(["check", "--isolated", "--input-format", "har", file]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(&format!(
                "ctxlint: error: {file}: --input-format har: {want}; the file does not fit that format\n"
            )),
            "{err}"
        );
    }
    // Not detected as one either: skipped with the reason.
    let out = ctxlint().args(["check", "--isolated", no_entries.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A recorded archive forced as what it is: checked as detected.
    let out =
        ctxlint().args(["check", "--isolated", "--input-format", "har", &har("orphan-tool-result")]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_walked_folder_finds_every_archive() {
    let out = ctxlint().args(["check", "--isolated", "--output-format", "json", DIR]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut files: Vec<(String, String)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().rsplit('/').next().unwrap().into(), f["format"].as_str().unwrap().into()))
        .collect();
    files.sort();
    let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "browser.har",
            "clean.har",
            "context-duplicates.har",
            "dropped-system-prompt.har",
            "duplicate-system-event.har",
            "history-rewrite.har",
            "orphan-tool-result.har",
            "unanswered-tool-call.har"
        ]
    );
    assert!(files.iter().all(|(_, f)| f == "har"));
    assert_eq!(v["summary"]["findings"], 8);
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn repro_of_an_archive_finding_is_a_passing_case() {
    let Some(script) = crate::shared::path("cases/run_cases.py") else { return };
    let out_dir = tempfile::tempdir().unwrap();
    let out = ctxlint()
        .args(["repro", "--all", "--out"])
        .arg(out_dir.path())
        .args([&har("dropped-system-prompt"), &har("orphan-tool-result")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let case = out_dir.path().join("dropped-system-prompt-1");
    let expected: Value = serde_json::from_slice(&std::fs::read(case.join("expected.json")).unwrap()).unwrap();
    assert_eq!(expected["format"], "har");
    assert_eq!(expected["findings"][0]["pointer"], "/log/entries/1/request/postData/text");
    assert!(Path::new(&case.join("archive.har")).is_file());
    let o = std::process::Command::new("python3")
        .arg(&script)
        .arg("--bin")
        .arg(assert_cmd::cargo::cargo_bin("ctxlint"))
        .arg(out_dir.path())
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("2 passed, 0 failed"), "{text}");
}

#[test]
fn an_archive_of_no_model_traffic_says_nothing_was_checked_and_an_empty_file_says_it_is_empty() {
    // A real Chrome export of a web app's own traffic (a helper's round of
    // real files) read as "No findings in 1 input" with no word that none of
    // its entries was a model call.
    let d = tempfile::tempdir().unwrap();
    let entry = |url: &str| {
        serde_json::json!({"startedDateTime": "2026-11-20T09:00:00.000Z", "time": 1,
            "request": {"method": "GET", "url": url, "httpVersion": "HTTP/2", "headers": [], "cookies": [], "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "text/html"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
    };
    let doc = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
        "entries": [entry("http://localhost:3000/"), entry("http://localhost:3000/app.js")]}});
    let p = d.path().join("localhost.har");
    std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let out = ctxlint().args(["check", "--isolated"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "ctxlint: note: {}: no request ctxlint reads in it (all 2 exchanges skipped: not model calls, or bodies of a shape it does not read); nothing was checked\n",
            p.display()
        )
    );
    // The HTML report's index counts them too (its table: "0 (2 exchanges skipped)").
    let html = d.path().join("report.html");
    let out = ctxlint()
        .args(["check", "--isolated", "-q", "--output-format", "html", "-o"])
        .arg(&html)
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let index = crate::html::embedded(&std::fs::read_to_string(&html).unwrap(), "ctxlint-index");
    assert_eq!(
        (index["files"][0]["requests"].as_u64(), index["files"][0]["skipped_exchanges"].as_u64()),
        (Some(0), Some(2))
    );
    // An empty log (a proxy that recorded nothing yet) is named as empty.
    let e = d.path().join("log-empty.jsonl");
    std::fs::write(&e, b"").unwrap();
    let out = ctxlint().args(["check", "--isolated"]).arg(&e).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("it is empty (no bytes, or white space only): nothing to check"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
