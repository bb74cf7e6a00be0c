//! Issue 14, output side: `--statistics` per output format, the JSON fields
//! (excerpt, end position, help, url, tool_version), SARIF locations, colour
//! from flags and environment, `-q`/`-v`/`--fail-on`, selectors, `grouped`,
//! `rule`/`formats` as JSON, `check --help` and the man page.

use assert_cmd::Command;
use serde_json::{Value, json};

const INPUT: &str = "fixtures/report/mixed-session.jsonl";
const COLOR_VARS: [&str; 5] = ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR", "TERM"];

/// `ctxlint` in the crate root with no colour-related environment.
fn ctxlint() -> Command {
    let mut c = Command::cargo_bin("ctxlint").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    for v in COLOR_VARS {
        c.env_remove(v);
    }
    c
}

fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn check(args: &[&str]) -> (i32, String, String) {
    run(ctxlint().arg("check").arg(INPUT).args(args))
}

#[test]
fn statistics_as_json() {
    let (code, out, _) = check(&["--statistics", "--output-format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["tool"], "ctxlint");
    assert_eq!(v["tool_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        v["statistics"],
        json!({
            "duplicate-system-event": {"code": "CTX101", "count": 1, "errors": 1, "warnings": 0, "tokens": 14, "cost_usd": null},
            "duplicate-user-turn": {"code": "CTX203", "count": 1, "errors": 0, "warnings": 1, "tokens": 0, "cost_usd": null},
            "orphan-tool-result": {"code": "CTX302", "count": 1, "errors": 1, "warnings": 0, "tokens": 0, "cost_usd": null},
        })
    );
    assert_eq!(
        v["summary"],
        json!({"files": 1, "skipped": 0, "failed": 0, "findings": 3, "errors": 2, "warnings": 1, "unlisted": 0,
               "tokens": 14, "cost_usd": null, "confirmed": 0, "judged": 0, "unexplained_cache_breaks": 0,
               "recorded_cost_usd": null, "unpriced_calls": 0, "cache_read_ratio": null})
    );
}

#[test]
fn statistics_as_json_lines() {
    let (_, out, _) = check(&["--statistics", "--output-format", "json-lines"]);
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[1],
        json!({"rule": "duplicate-user-turn", "code": "CTX203", "count": 1, "errors": 0, "warnings": 1, "tokens": 0, "cost_usd": null})
    );
}

#[test]
fn statistics_table_for_human_formats_with_plural_severities() {
    for f in ["full", "concise", "grouped"] {
        let (code, out, _) = check(&["--statistics", "--output-format", f]);
        assert_eq!(code, 1);
        insta::assert_snapshot!("statistics_table", out);
    }
    // A rule with errors and warnings says "2 errors, 1 warning" (a severity override per path).
    let d = tempfile::tempdir().unwrap();
    for n in ["a", "b", "c"] {
        std::fs::copy(INPUT, d.path().join(format!("{n}.jsonl"))).unwrap();
    }
    std::fs::write(
        d.path().join("ctxlint.toml"),
        "[[overrides]]\npaths = [\"c.jsonl\"]\nrules = { duplicate-system-event = \"warning\" }\n",
    )
    .unwrap();
    let (_, out, err) = run(Command::cargo_bin("ctxlint").unwrap().current_dir(d.path()).args([
        "check",
        ".",
        "--statistics",
        "--select",
        "CTX101",
    ]));
    assert!(out.contains("│ 3     ┆ CTX101 ┆ duplicate-system-event ┆ 2 errors, 1 warning ┆"), "{out}{err}");
}

#[test]
fn json_fields() {
    let (code, out, _) = check(&["--output-format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["version", "tool", "tool_version", "findings", "files", "skipped", "failed", "unlisted", "summary"]
    );
    assert_eq!(v["tool_version"], env!("CARGO_PKG_VERSION"));
    let f = &v["findings"][0];
    let keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "rule",
            "code",
            "severity",
            "message",
            "path",
            "format",
            "line",
            "column",
            "byte_offset",
            "end_line",
            "end_column",
            "pointer",
            "request",
            "entry_id",
            "related",
            "fingerprint",
            "impact",
            "excerpt",
            "help",
            "url"
        ]
    );
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(3), Some(76)));
    assert_eq!((f["end_line"].as_u64(), f["end_column"].as_u64()), (Some(3), Some(161)));
    assert_eq!(f["help"], "render each system event once per request; strip it from the runtime-context carrier");
    assert_eq!(f["url"], "https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md#duplicate-system-event");
    assert_eq!(v["findings"][1]["excerpt"].as_str().map(|e| e.contains("sk-a****")), Some(true));
    // Every finding has every key, in every finding object (json-lines too).
    let (_, lines, _) = check(&["--output-format", "json-lines"]);
    for l in lines.lines() {
        let g: Value = serde_json::from_str(l).unwrap();
        assert_eq!(g.as_object().unwrap().len(), keys.len());
    }
}

#[test]
fn json_torn_line_has_its_end_and_excerpt() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.jsonl"), "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"mess\n")
        .unwrap();
    let (_, out, err) = run(Command::cargo_bin("ctxlint").unwrap().current_dir(d.path()).args([
        "check",
        "a.jsonl",
        "--output-format",
        "json",
    ]));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "malformed-line", "{out}");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(2), Some(1)));
    assert_eq!((f["end_line"].as_u64(), f["end_column"].as_u64()), (Some(2), Some(14)));
    assert_eq!(f["excerpt"], "{\"type\":\"mess");
    assert_eq!(f["entry_id"], Value::Null);
    assert_eq!(f["request"], Value::Null);
    assert_eq!(f["url"], "https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md#malformed-line");
}

#[test]
fn sarif_locations_are_srcroot_relative_or_file_uris() {
    let (_, out, _) = check(&["--output-format", "sarif"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let run0 = &v["runs"][0];
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let root_uri = run0["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    assert!(root_uri.starts_with("file:///") && root_uri.ends_with('/'), "{root_uri}");
    assert_eq!(
        run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "fixtures/report/mixed-session.jsonl", "uriBaseId": "%SRCROOT%"})
    );
    assert_eq!(
        run0["results"][0]["relatedLocations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "fixtures/report/mixed-session.jsonl", "uriBaseId": "%SRCROOT%"})
    );
    // An absolute path under the working directory is relative too.
    let abs = root.join(INPUT);
    let (_, out, _) =
        run(ctxlint().args(["check", abs.to_str().unwrap(), "--output-format", "sarif"]).current_dir(&root));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/report/mixed-session.jsonl"
    );
    // A path outside the working directory is an absolute file:// URI.
    let d = tempfile::tempdir().unwrap();
    let sub = d.path().join("work dir");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(INPUT, d.path().join("s.jsonl")).unwrap();
    let (_, out, _) = run(Command::cargo_bin("ctxlint").unwrap().current_dir(&sub).args([
        "check",
        "../s.jsonl",
        "--output-format",
        "sarif",
    ]));
    let v: Value = serde_json::from_str(&out).unwrap();
    let loc = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    let parent = std::env::current_dir().map(|_| d.path().to_string_lossy().into_owned()).unwrap();
    assert_eq!(loc, &json!({"uri": format!("file://{parent}/s.jsonl")}));
    assert!(
        v["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap().ends_with("/work%20dir/"),
        "{}",
        v["runs"][0]["originalUriBaseIds"]
    );
}

fn coloured(args: &[&str], env: &[(&str, &str)]) -> bool {
    let mut c = ctxlint();
    c.arg("check").arg(INPUT).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let (code, out, _) = run(&mut c);
    assert_eq!(code, 1);
    out.contains('\u{1b}')
}

#[test]
fn colour_follows_flags_and_environment() {
    // Standard output is a pipe here: `auto` means no colour unless forced.
    assert!(!coloured(&[], &[]));
    assert!(coloured(&["--color", "always"], &[]));
    assert!(coloured(&["--color", "always"], &[("NO_COLOR", "1")]));
    assert!(!coloured(&["--color", "never"], &[("FORCE_COLOR", "1")]));
    assert!(coloured(&[], &[("FORCE_COLOR", "1")]));
    assert!(coloured(&[], &[("FORCE_COLOR", "yes")]));
    assert!(!coloured(&[], &[("FORCE_COLOR", "0")]));
    assert!(!coloured(&[], &[("FORCE_COLOR", "")]));
    assert!(!coloured(&[], &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]));
    assert!(coloured(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!coloured(&[], &[("CLICOLOR_FORCE", "0")]));
    assert!(!coloured(&[], &[("CLICOLOR", "0")]));
    assert!(!coloured(&[], &[("TERM", "dumb")]));
    assert!(coloured(&["--output-format", "grouped"], &[("FORCE_COLOR", "1")]));
    // Forcing by environment does not colour a report written to a file.
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("out.txt");
    let (_, _, _) = run(ctxlint().args(["check", INPUT, "-o", p.to_str().unwrap()]).env("FORCE_COLOR", "1"));
    assert!(!std::fs::read_to_string(&p).unwrap().contains('\u{1b}'));
}

#[test]
fn quiet_prints_findings_only() {
    let (code, out, err) = check(&["-q", "--output-format", "concise"]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("Found"));
    assert_eq!(err, "");
    let (_, out, _) = check(&["--quiet"]);
    assert!(!out.contains("Found 3 findings") && out.contains("CTX302"), "{out}");
    let (_, out, _) = check(&["-q", "--output-format", "grouped"]);
    assert!(!out.contains("Found"));
    let (code, _, err) = check(&["-q", "-v"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn verbose_lists_inputs_and_times_on_stderr() {
    let (code, out, err) = check(&["-v", "--output-format", "json"]);
    assert_eq!(code, 1);
    serde_json::from_str::<Value>(&out).unwrap();
    // Each input with its format, size and findings, and its load and rule times.
    let line = err.lines().find(|l| l.starts_with("ctxlint: checked ")).unwrap_or_else(|| panic!("{err}"));
    let size = std::fs::metadata(INPUT).unwrap().len();
    let want = format!(
        "ctxlint: checked fixtures/report/mixed-session.jsonl (pi-session, 7 entries, {:.1} KB): 3 findings; load ",
        size as f64 / 1e3
    );
    assert!(line.starts_with(&want), "{line}");
    assert!(line.ends_with(" ms") && line.contains(" ms, rules "), "{line}");
    assert!(err.contains("ctxlint: 1 input checked, 0 skipped; discovery "), "{err}");
}

#[test]
fn fail_on_overrides_the_configuration() {
    assert_eq!(check(&["--select", "CTX203"]).0, 1);
    assert_eq!(check(&["--select", "CTX203", "--fail-on", "error"]).0, 0);
    assert_eq!(check(&["--fail-on", "error"]).0, 1);
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(INPUT, d.path().join("s.jsonl")).unwrap();
    std::fs::write(d.path().join("ctxlint.toml"), "fail-on = \"error\"\n").unwrap();
    let at = |args: &[&str]| {
        run(Command::cargo_bin("ctxlint")
            .unwrap()
            .current_dir(d.path())
            .args(["check", "s.jsonl", "--select", "CTX203"])
            .args(args))
        .0
    };
    assert_eq!(at(&[]), 0);
    assert_eq!(at(&["--fail-on", "warning"]), 1);
    let (code, _, err) = check(&["--fail-on", "info"]);
    assert_eq!(code, 2, "{err}");
}

fn codes(args: &[&str]) -> Vec<String> {
    let (_, out, err) = check(&[args, &["--output-format", "json"]].concat());
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{err}"));
    v["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect()
}

#[test]
fn selectors_take_prefixes_and_all() {
    assert_eq!(codes(&["--select", "CTX1"]), ["CTX101"]);
    assert_eq!(codes(&["--select", "ctx2,CTX3"]), ["CTX203", "CTX302"]);
    assert_eq!(codes(&["--select", "ALL"]), ["CTX101", "CTX203", "CTX302"]);
    assert_eq!(codes(&["--select", "ALL", "--ignore", "CTX2"]), ["CTX101", "CTX302"]);
    assert_eq!(codes(&["--ignore", "CTX"]), Vec::<String>::new());
    assert_eq!(codes(&["--select", "orphan-tool-result"]), ["CTX302"]);
}

#[test]
fn unknown_selectors_suggest_and_empty_selection_is_an_error() {
    let (code, out, err) = check(&["--select", "duplicate-sytem-event"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("--select: unknown rule `duplicate-sytem-event`; did you mean `duplicate-system-event`?"),
        "{err}"
    );
    let (code, _, err) = check(&["--ignore", "CTX9"]);
    assert_eq!(code, 2);
    assert!(err.contains("--ignore: unknown rule `CTX9`"), "{err}");
    let (code, _, err) = check(&["--select", "ctx30l"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `CTX301`?"), "{err}");
    let (code, _, err) = check(&["--select", ""]);
    assert_eq!(code, 2);
    assert!(err.contains("--select: the selection is empty"), "{err}");
    let (code, _, err) = run(ctxlint().args(["rule", "unanswered-tool-cal"]));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `unanswered-tool-call`?"), "{err}");
}

#[test]
fn grouped_output() {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(INPUT, d.path().join("a.jsonl")).unwrap();
    std::fs::copy(INPUT, d.path().join("b.jsonl")).unwrap();
    let (code, out, _) = run(Command::cargo_bin("ctxlint").unwrap().current_dir(d.path()).args([
        "check",
        "a.jsonl",
        "b.jsonl",
        "--output-format",
        "grouped",
        "--color",
        "never",
        "--select",
        "CTX1,CTX3",
    ]));
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
    let (_, out, _) = check(&["--output-format", "grouped", "--color", "never"]);
    assert!(
        out.starts_with(
            "fixtures/report/mixed-session.jsonl:\n  3:76 CTX101 duplicate-system-event [error] system event"
        ),
        "{out}"
    );
    assert!(!out.contains("AAAABBBBCCCCDDDD"));
}

#[test]
fn rule_as_json() {
    let (code, out, _) = run(ctxlint().args(["rule", "CTX301", "--output-format", "json"]));
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["code"], "CTX301");
    assert_eq!(v["name"], "unanswered-tool-call");
    assert_eq!(v["default_severity"], "error");
    assert_eq!(v["url"], "https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md#unanswered-tool-call");
    assert!(v["summary"].as_str().unwrap().starts_with("a tool call"), "{v}");
    assert!(v["docs"].as_str().unwrap().starts_with("## CTX301 `unanswered-tool-call`"));
    let (code, out, _) = run(ctxlint().args(["rule", "--all", "--output-format", "json"]));
    assert_eq!(code, 0);
    let all: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(all.len(), 13);
    assert_eq!(all[7], v);
    let names: Vec<&str> = all.iter().map(|r| r["code"].as_str().unwrap()).collect();
    assert_eq!(names[..3], ["CTX101", "CTX102", "CTX103"]);
    assert_eq!(all[1]["default_severity"], "warning");
}

#[test]
fn formats_lists_every_format_id() {
    let ids: Vec<&str> = ctxlint::formats::REGISTRY.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids.len(), ids.iter().collect::<std::collections::BTreeSet<_>>().len());
    assert!(ids.contains(&"pi-session") && ids.contains(&"opencode"), "{ids:?}");
    let (code, out, _) = run(ctxlint().args(["formats", "--output-format", "json"]));
    assert_eq!(code, 0);
    let v: Vec<Value> = serde_json::from_str(&out).unwrap();
    let got: Vec<&str> = v.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(got, ids);
    let supported: Vec<&str> = v.iter().filter(|f| f["supported"] == true).map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(supported, ids);
    assert_eq!(v[1]["location"], "~/.claude/projects/*/*.jsonl (or $CLAUDE_CONFIG_DIR/projects)");
    let (code, out, _) = run(ctxlint().arg("formats"));
    assert_eq!(code, 0);
    for id in ids {
        assert!(out.lines().any(|l| l.trim_start().starts_with(&format!("{id} "))), "{id}:\n{out}");
    }
    assert!(out.lines().any(|l| l.contains("opencode") && l.contains(" yes ")));
    assert!(out.lines().any(|l| l.contains("codex-rollout") && l.contains(" yes ")));
}

#[test]
fn check_help_has_examples_exit_codes_formats_and_folders() {
    let (code, out, _) = run(ctxlint().args(["check", "--help"]));
    assert_eq!(code, 0);
    for s in [
        "  ctxlint check ",
        "  ctxlint check ~/.claude/projects\n",
        "  ctxlint check . -o report.sarif --output-format sarif\n",
        "--write-baseline ctxlint-baseline.json",
        "--baseline ctxlint-baseline.json",
        "Exit codes:",
        "  101  internal error",
        "  2    usage, configuration or I/O error",
        "vcr-cassette",
        "ctxlint.toml",
        "~/.codex/sessions",
        "--fail-on",
        "--quiet",
        "--verbose",
    ] {
        assert!(out.contains(s), "`{s}` missing from check --help:\n{out}");
    }
    for cmd in
        [&["--help"][..], &["check", "--help"], &["fence", "--help"], &["rule", "--help"], &["formats", "--help"]]
    {
        let (_, out, _) = run(ctxlint().args(cmd));
        assert!(!out.contains("SPEC"), "{cmd:?} mentions SPEC:\n{out}");
    }
}

#[test]
fn man_page_documents_every_subcommand_and_option() {
    let (code, out, _) = run(ctxlint().arg("man"));
    assert_eq!(code, 0);
    assert!(out.starts_with(".ie") || out.contains(".TH ctxlint"), "{}", &out[..200.min(out.len())]);
    let text = out.replace("\\-", "-");
    for sub in ["check", "fence", "diff", "show", "repro", "rule", "formats", "completions", "man"] {
        assert!(text.contains(&format!(".SS \"ctxlint {sub}\"")), "no section for {sub}");
    }
    // Every option of `check`, from its own --help.
    let (_, help, _) = run(ctxlint().args(["check", "--help"]));
    let longs: Vec<&str> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| l.trim_start().split([',', ' ']).find(|w| w.starts_with("--")))
        .filter(|w| w.len() > 2)
        .collect();
    assert!(longs.len() >= 20, "{longs:?}");
    for l in longs {
        assert!(text.contains(&format!("\\fB{l}\\fR")), "{l} missing from the man page");
    }
    assert!(!text.contains("(1)"), "the page names other pages");
}
