//! A flood of findings (issue 15, "linear on every shape"): past
//! `rules::MAX_LISTED` findings of one rule on one input, the rest are
//! counted, not kept, and every output says how many more there were; the
//! reports are written as they are rendered (a closed pipe ends them quietly).

use assert_cmd::Command;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

const MAX: usize = ctxlint::rules::MAX_LISTED;

fn ctxlint() -> Command {
    let mut c = crate::support::ctxlint();
    c.timeout(Duration::from_secs(120));
    c
}

/// A pi session: the header, one valid user message (line 2), then `torn`
/// torn lines (lines 3 ..): one `malformed-line` finding each.
fn torn_session(dir: &Path, torn: usize) -> String {
    let mut s = String::from(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-03-12T10:00:00.000Z","cwd":"/w"}
{"type":"message","id":"m0","parentId":null,"timestamp":"2026-03-12T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
"#,
    );
    for i in 0..torn {
        s.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"t{i}\",\"parentId\":\"m0\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"cut\n"
        ));
    }
    let p = dir.join("flood.jsonl");
    std::fs::write(&p, s).unwrap();
    p.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = ctxlint().args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn past_the_cap_findings_are_counted_and_every_output_says_how_many_more() {
    let dir = tempfile::tempdir().unwrap();
    let p = torn_session(dir.path(), MAX + 7);
    let warning = format!(
        "ctxlint: warning: {p}: 7 more CTX403 malformed-line findings are not listed (at most {MAX} of one rule are listed per input)"
    );

    // json: the first MAX findings (lines 3 .. MAX+2), then `unlisted` and the count in the summary.
    let (code, out, err) = run(&["check", &p, "--output-format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), MAX);
    assert!(findings.iter().all(|f| f["rule"] == "malformed-line"));
    assert_eq!(findings[0]["line"], 3);
    assert_eq!(findings[MAX - 1]["line"], MAX + 2);
    assert_eq!(
        v["unlisted"],
        json!([{"path": p, "rule": "malformed-line", "code": "CTX403", "severity": "error", "count": 7}])
    );
    assert_eq!(v["summary"]["findings"], MAX);
    assert_eq!(v["summary"]["unlisted"], 7);
    assert_eq!(err.lines().filter(|l| *l == warning).count(), 1, "{err}");

    // The human formats: the summary line counts them.
    for format in ["full", "concise", "grouped"] {
        let (code, out, err) = run(&["check", &p, "--output-format", format, "--color", "never"]);
        assert_eq!(code, 1);
        assert!(
            out.ends_with(&format!(
                "Found {MAX} findings ({MAX} errors, 0 warnings) in 1 input; 7 more not listed (see the warnings).\n"
            )),
            "{format}: {}",
            &out[out.len().saturating_sub(300)..]
        );
        assert!(err.contains(&warning), "{format}: {err}");
    }

    // --statistics counts every finding, listed or not.
    let (_, out, _) = run(&["check", &p, "--statistics", "--output-format", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["statistics"]["malformed-line"],
        json!({"code": "CTX403", "count": MAX + 7, "errors": MAX + 7, "warnings": 0, "tokens": 0, "cost_usd": null})
    );

    // sarif: a warning notification at the file, naming the rule.
    let (_, out, _) = run(&["check", &p, "--output-format", "sarif"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["runs"][0]["results"].as_array().unwrap().len(), MAX);
    let inv = &v["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["level"], "warning");
    assert_eq!(notes[0]["associatedRule"]["id"], "CTX403");
    assert!(notes[0]["message"]["text"].as_str().unwrap().starts_with("7 more CTX403 malformed-line findings"));

    // github: one warning annotation at the file.
    let (_, out, _) = run(&["check", &p, "--output-format", "github"]);
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "::warning file={},title=CTX403 malformed-line%3A findings not listed::7 more CTX403",
            p.replace(':', "%3A")
        )),
        "{last}"
    );
    assert_eq!(out.lines().count(), MAX + 1);

    // junit: a failing case for them in the file's suite.
    let (_, out, _) = run(&["check", &p, "--output-format", "junit"]);
    assert!(out.contains(&format!("name=\"CTX403 {p}: 7 more\"")), "{}", &out[..500]);

    // gitlab: one issue for them after the findings.
    let (_, out, _) = run(&["check", &p, "--output-format", "gitlab"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let issues = v.as_array().unwrap();
    assert_eq!(issues.len(), MAX + 1);
    assert!(issues[MAX]["description"].as_str().unwrap().starts_with("7 more CTX403 malformed-line findings"));
    assert_eq!(issues[MAX]["severity"], "major");

    // -q silences the warning, not the counts.
    let (code, out, err) = run(&["check", &p, "--output-format", "json", "-q"]);
    assert_eq!(code, 1);
    assert_eq!(err, "");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["summary"]["unlisted"], 7);
}

#[test]
fn under_the_cap_nothing_is_unlisted_and_a_turned_off_rule_counts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = torn_session(dir.path(), 3);
    let (code, out, err) = run(&["check", &p, "--output-format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 3);
    assert_eq!(v["unlisted"], json!([]));
    assert!(!err.contains("not listed"), "{err}");

    let p = torn_session(dir.path(), MAX + 1);
    let (code, out, err) = run(&["check", &p, "--output-format", "json", "--ignore", "CTX403"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"], json!([]));
    assert_eq!(v["unlisted"], json!([]));
    assert_eq!(v["summary"]["unlisted"], 0);
}

#[test]
fn a_report_file_is_written_as_it_is_rendered_and_matches_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let p = torn_session(dir.path(), 2_000);
    let out_dir = tempfile::tempdir().unwrap();
    for format in ["full", "json", "sarif", "gitlab", "json-lines", "github", "junit"] {
        let (_, stdout, _) = run(&["check", &p, "--output-format", format, "--color", "never"]);
        let file = out_dir.path().join(format!("report.{format}"));
        let (code, none, _) = run(&["check", &p, "--output-format", format, "-o", file.to_str().unwrap()]);
        assert_eq!(code, 1);
        assert_eq!(none, "");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout, "{format}");
    }
    // Only the reports are left in the output folder (no temporary files).
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 7);
}

#[test]
fn a_closed_standard_output_ends_the_report_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let p = torn_session(dir.path(), 5_000);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlint"))
        .args(["check", &p, "--output-format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 64];
    child.stdout.as_mut().unwrap().read_exact(&mut head).unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked") && !err.contains("error"), "{err}");
    let _ = std::io::stderr().flush();
}

/// A folder of `files` copies (`f0.jsonl`, `f1.jsonl`, …) of a session of
/// `per` torn lines.
fn flood_folder(files: usize, per: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let one = torn_session(dir.path(), per);
    let body = std::fs::read(&one).unwrap();
    std::fs::remove_file(&one).unwrap();
    for k in 0..files {
        std::fs::write(dir.path().join(format!("f{k}.jsonl")), &body).unwrap();
    }
    dir
}

#[test]
fn past_the_run_cap_later_inputs_findings_are_counted_and_memory_stays_bounded() {
    // Issue 32 item 5: the cap was per input only, so 80 copies of a flood
    // file kept every finding (SARIF 0.4 GB, HTML 1.4 GB of memory). Past
    // MAX_LISTED_PER_RUN findings in the run, the later inputs' findings (in
    // report order) are counted, not kept; the exit code still sees them.
    const RUN: usize = ctxlint::rules::MAX_LISTED_PER_RUN;
    let per = 9_000;
    let files = RUN / per + 1;
    let dir = flood_folder(files, per);
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = run(&["check", d, "--output-format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), RUN);
    let over = files * per - RUN;
    assert_eq!(v["summary"]["unlisted"], over);
    let last = format!("{d}/f{}.jsonl", files - 1);
    assert_eq!(
        v["unlisted"],
        json!([{"path": last, "rule": "malformed-line", "code": "CTX403", "severity": "error", "count": over}])
    );
    // The listed ones are the first in report order: every line of the first files.
    assert_eq!(v["findings"][0]["path"], format!("{d}/f0.jsonl"));
    assert_eq!(v["findings"][RUN - 1]["path"], last);
    assert!(
        err.contains(&format!(
            "{last}: {over} more CTX403 malformed-line findings are not listed (at most {RUN} findings are listed per run)"
        )),
        "{err}"
    );
}

#[test]
fn past_the_run_cap_many_inputs_get_one_warning_line() {
    // 20,000 small files past the cap printed one warning per file.
    const RUN: usize = ctxlint::rules::MAX_LISTED_PER_RUN;
    let per = 9_000;
    let files = RUN / per + 8;
    let dir = flood_folder(files, per);
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = run(&["check", d, "--output-format", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let over = files * per - RUN;
    let inputs = v["unlisted"].as_array().unwrap().len();
    assert_eq!(inputs, 8);
    assert_eq!(v["summary"]["unlisted"], over);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("not listed")).collect();
    assert_eq!(
        lines,
        [format!(
            "ctxlint: warning: {over} more findings in {inputs} inputs are not listed (at most {RUN} findings are listed per run; the JSON report's `unlisted` names each input)"
        )],
        "{err}"
    );
}
