//! Issue 33, "the first hour": what a ruff or ripgrep user tries first. Wide
//! tables fit the terminal (`COLUMNS` 80 and 120, snapshots with insta), a
//! skipped file's warning is not followed by every format id, `repro` names
//! each case once, `grouped` keeps the severity, and ruff's habits work:
//! `-q`/`-v` before the subcommand, `--config KEY=VALUE`, `--extend-select`,
//! `--exclude`, `[tool.ctxlint]` in `pyproject.toml` and `.ctxlint.toml`
//! found as ruff finds its files, and `ctxlint rule duplicate` suggesting the
//! rules that start so.

use crate::support::root;
use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn ctxlint() -> Command {
    let mut c = Command::cargo_bin("ctxlint").unwrap();
    c.current_dir(root()).env_remove("COLUMNS").env("NO_COLOR", "1");
    c
}

fn run(c: &mut Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

const MIXED: &str = "fixtures/report/mixed-session.jsonl";
const ORPHAN: &str = "fixtures/cases/cc-12162-orphan-result/session.jsonl";

/// The widest line of `s`, in terminal columns.
fn widest(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// `args` at `columns` columns: exit code and standard output.
fn at(columns: u16, args: &[&str]) -> (i32, String) {
    let (code, out, _) = run(ctxlint().env("COLUMNS", columns.to_string()).args(args));
    (code, out)
}

#[test]
fn wide_tables_fit_80_and_120_columns() {
    // Before issue 33, piped or not: formats 390 columns, the rule list 124.
    let (_, wide, _) = run(ctxlint().arg("formats"));
    assert!(widest(&wide) > 200, "without a width, whole lines: {}", widest(&wide));
    let cases: [(&str, &[&str], i32); 4] = [
        ("formats", &["formats"], 0),
        ("rules", &["rule"], 0),
        ("show", &["show", MIXED], 0),
        ("statistics", &["check", MIXED, "--statistics"], 1),
    ];
    for (name, args, want) in cases {
        for columns in [80u16, 120] {
            let (code, out) = at(columns, args);
            assert_eq!(code, want, "{name} {columns}: {out}");
            assert!(widest(&out) <= usize::from(columns), "{name} at {columns}: {} columns:\n{out}", widest(&out));
            if name != "formats" && name != "rules" {
                // Tables whose rows other issues add to are checked by width only.
                insta::assert_snapshot!(format!("{name}_{columns}"), out);
            }
        }
    }
    // Nothing lost to the wrapping: every format id and rule name is still printed.
    let (_, formats) = at(80, &["formats"]);
    for id in ctxlint::formats::REGISTRY.iter().map(|d| d.id.as_str()) {
        assert!(formats.contains(id), "{id} missing at 80 columns");
    }
    let (_, rules) = at(80, &["rule"]);
    for r in ctxlint::rules::RuleId::ALL {
        assert!(rules.contains(r.code()), "{} missing", r.code());
    }
}

#[test]
fn grouped_keeps_the_severity() {
    let (code, out, _) = run(ctxlint().args(["check", MIXED, "--output-format", "grouped"]));
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("  3:76 CTX101 duplicate-system-event [error] "), "{}", lines[0]);
    assert!(lines.iter().any(|l| l.contains(" CTX203 duplicate-user-turn [warning] ")), "{out}");
    assert!(lines.iter().any(|l| l.contains(" CTX302 orphan-tool-result [error] ")), "{out}");
}

#[test]
fn repro_names_each_case_once() {
    let out = tempfile::tempdir().unwrap();
    let cases = out.path().join("cases");
    let (code, stdout, stderr) = run(ctxlint().args(["repro", ORPHAN, "--all", "-o"]).arg(&cases));
    assert_eq!(code, 0, "{stderr}");
    let dir = cases.join("orphan-tool-result-1").display().to_string();
    assert_eq!(stdout.matches(&dir).count(), 1, "{stdout}");
    assert!(!stderr.contains(&dir), "the case is named once, on standard output: {stderr}");
    assert!(stdout.contains(" test runs"), "{stdout}");
    assert!(stdout.ends_with("1 case(s) written, 0 not reproduced\n"), "{stdout}");
}

#[test]
fn quiet_and_verbose_before_the_subcommand() {
    for args in [&["-q", "check", MIXED][..], &["check", "-q", MIXED], &["--quiet", "check", MIXED]] {
        let (code, out, err) = run(ctxlint().args(args));
        assert_eq!(code, 1, "{args:?}");
        assert!(!out.contains("Found 3 findings") && out.contains("CTX302"), "{args:?}: {out}");
        assert_eq!(err, "", "{args:?}");
    }
    let (code, _, err) = run(ctxlint().args(["-v", "check", MIXED]));
    assert_eq!(code, 1);
    assert!(err.contains("mixed-session.jsonl") && err.contains("pi-session"), "{err}");
    let (code, _, err) = run(ctxlint().args(["-q", "-v", "check", MIXED]));
    assert_eq!(code, 2, "{err}");
    // A stream joined from a folder's request bodies counts its findings,
    // which are at its member files' paths.
    let (code, _, err) = run(ctxlint().args(["-v", "check", "fixtures/cases/litellm-36559-system-hoist"]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("(anthropic-messages, 3 requests, 8.8 KB): 2 findings;"), "{err}");
}

/// The rules of the findings of `check ARGS --output-format json` in `dir`.
fn rules_in(dir: &Path, args: &[&str]) -> (i32, Vec<String>, Value) {
    let (code, out, err) = run(ctxlint().current_dir(dir).arg("check").args(args).args(["--output-format", "json"]));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let rules = v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect();
    (code, rules, v)
}

/// A folder holding the mixed session (CTX101 error, CTX203 warning, CTX302 error).
fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("t")).unwrap();
    std::fs::copy(root().join(MIXED), d.path().join("t/s.jsonl")).unwrap();
    d
}

#[test]
fn config_key_value_overrides_one_setting_as_ruffs_does() {
    let d = project();
    let p = d.path();
    let all = ["duplicate-system-event", "duplicate-user-turn", "orphan-tool-result"];
    assert_eq!(rules_in(p, &["t"]).1, all);
    // A rule turned off inline; the dotted key and the code both work.
    let (code, rules, _) = rules_in(p, &["t", "--config", "rules.CTX101 = \"off\""]);
    assert_eq!((code, rules), (1, vec![all[1].to_string(), all[2].to_string()]));
    // Over a configuration file found for the input: only the key named changes.
    std::fs::write(p.join("t/ctxlint.toml"), "[rules]\norphan-tool-result = \"off\"\n").unwrap();
    let (_, rules, _) = rules_in(p, &["t"]);
    assert_eq!(rules, [all[0], all[1]]);
    let (_, rules, _) = rules_in(p, &["t", "--config", "rules.duplicate-user-turn = \"off\""]);
    assert_eq!(rules, [all[0]]);
    // fail-on inline: warnings alone no longer fail.
    let (code, rules, _) = rules_in(
        p,
        &["t", "--config", "rules.CTX101 = \"off\"", "--config", "fail-on = \"error\"", "--select", "CTX203"],
    );
    assert_eq!((code, rules), (0, vec![all[1].to_string()]));
    // A file and an inline pair together; two files is an error; a bad pair says what it expects.
    std::fs::write(p.join("other.toml"), "[rules]\nCTX203 = \"off\"\n").unwrap();
    let (_, rules, _) = rules_in(p, &["t", "--config", "other.toml", "--config", "rules.CTX101 = \"off\""]);
    assert_eq!(rules, [all[2]], "other.toml replaces t/ctxlint.toml; the pair applies over it");
    let (code, _, err) =
        run(ctxlint().current_dir(p).args(["check", "t", "--config", "other.toml", "--config", "t/ctxlint.toml"]));
    assert_eq!(code, 2);
    assert!(err.contains("--config: two configuration files"), "{err}");
    let (code, _, err) = run(ctxlint().current_dir(p).args(["check", "t", "--config", "rules.CTX101 = off"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("--config `rules.CTX101 = off`: neither a configuration file nor a TOML `KEY = VALUE` pair"),
        "{err}"
    );
    let (code, _, err) = run(ctxlint().current_dir(p).args(["check", "t", "--config", "no-such-key = 1"]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown field `no-such-key`"), "{err}");
    // A missing file is still named as one.
    let (code, _, err) = run(ctxlint().current_dir(p).args(["check", "t", "--config", "missing.toml"]));
    assert_eq!(code, 2);
    assert!(err.contains("missing.toml"), "{err}");
    // --isolated with a pair: the pair over the defaults.
    let (_, rules, _) = rules_in(p, &["t", "--isolated", "--config", "rules.CTX101 = \"off\""]);
    assert_eq!(rules, [all[1], all[2]]);
}

#[test]
fn extend_select_and_exclude_as_ruffs() {
    let d = project();
    let p = d.path();
    let (_, rules, _) = rules_in(p, &["t", "--select", "CTX1", "--extend-select", "CTX302"]);
    assert_eq!(rules, ["duplicate-system-event", "orphan-tool-result"]);
    // A rule a configuration turns off, turned on again.
    std::fs::write(p.join("t/ctxlint.toml"), "[rules]\norphan-tool-result = \"off\"\n").unwrap();
    let (_, rules, _) = rules_in(p, &["t", "--extend-select", "orphan-tool-result"]);
    assert_eq!(rules, ["duplicate-system-event", "duplicate-user-turn", "orphan-tool-result"]);
    std::fs::remove_file(p.join("t/ctxlint.toml")).unwrap();
    // --exclude: by name, and by path below the folder checked; a file named is still checked.
    std::fs::create_dir_all(p.join("t/archive/old")).unwrap();
    std::fs::copy(root().join(ORPHAN), p.join("t/archive/old/cc.jsonl")).unwrap();
    let files = |args: &[&str]| -> Vec<String> {
        let (_, _, v) = rules_in(p, args);
        let mut f: Vec<String> =
            v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
        f.sort();
        f
    };
    assert_eq!(files(&["t"]), ["t/archive/old/cc.jsonl", "t/s.jsonl"]);
    assert_eq!(files(&["t", "--exclude", "archive"]), ["t/s.jsonl"]);
    assert_eq!(files(&["t", "--exclude", "archive/**"]), ["t/s.jsonl"]);
    assert_eq!(files(&["t", "--exclude", "*.jsonl,other"]), Vec::<String>::new().as_slice());
    assert_eq!(files(&["t", "--exclude", "s.jsonl"]), ["t/archive/old/cc.jsonl"]);
    assert_eq!(files(&["t/s.jsonl", "--exclude", "s.jsonl"]), ["t/s.jsonl"]);
    let (code, _, err) = run(ctxlint().current_dir(p).args(["check", "t", "--exclude", "a[b"]));
    assert_eq!(code, 2);
    assert!(err.contains("--exclude `a[b`"), "{err}");
}

#[test]
fn pyproject_and_dot_ctxlint_toml_are_found_as_ruff_finds_its_files() {
    let d = project();
    let p = d.path();
    // pyproject.toml without [tool.ctxlint]: not a configuration, and not a skipped input.
    std::fs::write(p.join("t/pyproject.toml"), "[project]\nname = \"agent\"\n").unwrap();
    let (code, rules, v) = rules_in(p, &["t", "--strict"]);
    assert_eq!((code, rules.len()), (1, 3), "{v}");
    assert_eq!(v["skipped"], serde_json::json!([]));
    // With [tool.ctxlint]: its settings apply.
    std::fs::write(
        p.join("t/pyproject.toml"),
        "[project]\nname = \"agent\"\n\n[tool.ctxlint]\nfail-on = \"error\"\n\n[tool.ctxlint.rules]\nCTX101 = \"off\"\n",
    )
    .unwrap();
    let (_, rules, v) = rules_in(p, &["t", "--strict"]);
    assert_eq!(rules, ["duplicate-user-turn", "orphan-tool-result"]);
    assert_eq!(v["skipped"], serde_json::json!([]));
    let (code, out, _) = run(ctxlint().current_dir(p).args(["check", "t", "--show-settings", "t"]));
    assert_eq!(code, 0);
    assert!(out.contains("pyproject.toml"), "{out}");
    // .ctxlint.toml beside it wins (ruff: .ruff.toml, ruff.toml, then pyproject.toml).
    std::fs::write(p.join("t/.ctxlint.toml"), "[rules]\nCTX302 = \"off\"\n").unwrap();
    let (_, rules, v) = rules_in(p, &["t", "--strict"]);
    assert_eq!(rules, ["duplicate-system-event", "duplicate-user-turn"]);
    assert_eq!(v["skipped"], serde_json::json!([]));
    // And ctxlint.toml comes after .ctxlint.toml, before pyproject.toml.
    std::fs::remove_file(p.join("t/.ctxlint.toml")).unwrap();
    std::fs::write(p.join("t/ctxlint.toml"), "[rules]\nCTX203 = \"off\"\n").unwrap();
    let (_, rules, _) = rules_in(p, &["t"]);
    assert_eq!(rules, ["duplicate-system-event", "orphan-tool-result"]);
    // --config names a pyproject.toml: its [tool.ctxlint] table.
    std::fs::remove_file(p.join("t/ctxlint.toml")).unwrap();
    std::fs::rename(p.join("t/pyproject.toml"), p.join("pyproject.toml")).unwrap();
    let (_, rules, _) = rules_in(p, &["t", "--config", "pyproject.toml"]);
    assert_eq!(rules, ["duplicate-user-turn", "orphan-tool-result"]);
}

#[test]
fn rule_duplicate_suggests_the_rules_that_start_so() {
    let (code, out, err) = run(ctxlint().args(["rule", "duplicate"]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with(
            "ctxlint: error: unknown rule `duplicate`; did you mean one of `duplicate-system-event` (CTX101), "
        ),
        "{err}"
    );
    let n = ctxlint::rules::RuleId::ALL.into_iter().filter(|r| r.name().starts_with("duplicate")).count();
    assert_eq!(err.matches("`duplicate-").count(), n, "{err}");
    let (code, _, err) = run(ctxlint().args(["check", MIXED, "--select", "duplicate"]));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean one of `duplicate-system-event`"), "{err}");
}

/// Issue 33, item 10: the help names every agent whose sessions `check` finds
/// by itself, every input format, and OpenCode's store among the folders scanned.
#[test]
fn the_help_names_every_session_store_agent_and_format() {
    let (code, top, _) = run(ctxlint().arg("--help"));
    assert_eq!(code, 0);
    let flat = top.split_whitespace().collect::<Vec<_>>().join(" ");
    for agent in ["pi/OpenClaw", "Claude Code", "Codex", "Gemini CLI", "Copilot CLI", "Cline", "OpenCode"] {
        assert!(flat.contains(agent), "{agent}: {top}");
    }
    let (code, check, _) = run(ctxlint().args(["check", "--help"]));
    assert_eq!(code, 0);
    let flat = check.split_whitespace().collect::<Vec<_>>().join(" ");
    for id in ctxlint::formats::REGISTRY.iter().map(|d| d.id.as_str()) {
        assert!(
            flat.contains(&format!(" {id},")) || flat.contains(&format!(" {id}.")),
            "{id} missing from check --help"
        );
    }
    assert!(flat.contains("~/.local/share/opencode/opencode.db"), "{check}");
    assert!(flat.contains("pyproject.toml") && flat.contains("--config 'KEY = VALUE'"), "{check}");
}

/// Issue 33, item 9: a reduced case holds exactly the original's findings at
/// its element (the line of a JSONL entry): the reducer may not trade the
/// defect's surroundings for another defect there (a tool result's `id`
/// dropped re-parented the reply, and the case gained an
/// `orphan-tool-result` the original did not have at that element).
#[test]
fn each_reduced_case_holds_exactly_the_original_findings_at_its_element() {
    let mut checked = 0;
    for input in [
        "examples/openclaw-session.jsonl",
        MIXED,
        "fixtures/cases/reply-sent-then-final/session.jsonl",
        "fixtures/cases/cc-37437-retry-wrong-parent/session.jsonl",
        ORPHAN,
    ] {
        let (_, out, _) = run(ctxlint().args(["check", input, "--output-format", "json"]));
        let original: Value = serde_json::from_str(&out).unwrap();
        let at_line = |v: &Value, line: u64| -> Vec<String> {
            let mut r: Vec<String> = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["line"].as_u64() == Some(line))
                .map(|f| f["rule"].as_str().unwrap().to_string())
                .collect();
            r.sort();
            r
        };
        let tmp = tempfile::tempdir().unwrap();
        let (code, stdout, stderr) = run(ctxlint().args(["repro", input, "--all", "-o"]).arg(tmp.path()));
        assert_eq!(code, 0, "{input}: {stdout}{stderr}");
        for line in stdout.lines().filter(|l| l.contains(" at ") && !l.starts_with("not reproduced")) {
            // `DIR  rule at PATH:LINE POINTER: …`
            let (dir, rest) = line.split_once("  ").unwrap();
            let (rule, rest) = rest.split_once(" at ").unwrap();
            let origin = rest.split(": ").next().unwrap().split(' ').next().unwrap();
            let orig_line: u64 = origin.rsplit(':').next().unwrap().parse().unwrap();
            let want = at_line(&original, orig_line);
            assert!(want.contains(&rule.to_string()), "{line}");
            let expected: Value =
                serde_json::from_slice(&std::fs::read(Path::new(dir).join("expected.json")).unwrap()).unwrap();
            // The target's line in the case: the findings of its rule whose line holds exactly `want`.
            let lines: Vec<u64> = expected["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["rule"] == rule)
                .filter_map(|f| f["line"].as_u64())
                .collect();
            assert!(!lines.is_empty(), "{line}: {expected}");
            assert!(
                lines.iter().any(|l| at_line(&expected, *l) == want),
                "{input}: the case {dir} holds {:?} at its element, the original {want:?}",
                lines.iter().map(|l| at_line(&expected, *l)).collect::<Vec<_>>()
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} cases");
}

/// Issue 33, item 6: the HTML report's cache legend names both swatches, and
/// a transcript's token estimate says what it leaves out.
#[test]
fn the_html_legend_and_token_estimate_say_what_they_show() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.html");
    let (code, _, err) =
        run(ctxlint().args(["check", "examples/openclaw-session.jsonl", "--output-format", "html", "-o"]).arg(&out));
    assert_eq!(code, 1, "{err}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("input tokens not read from the cache"), "the legend's second swatch is named");
    assert!(!html.contains(r#""input tokens read from cache / ""#));
    assert!(html.contains("a system prompt or tool definitions it does not hold are not counted"));
}

/// Issue 33, item 6: `diff` of requests it says it does not compare lists the
/// elements that differ without their texts (a whole tools array, a system
/// prompt), and cuts a long line of an element it shows.
#[test]
fn diff_does_not_print_the_texts_of_requests_it_does_not_compare() {
    let a = "fixtures/cases/litellm-36559-system-hoist/req1.json";
    let b = "fixtures/cases/cc-44045-resume-block-dropped/req1-fresh.json";
    let (code, out, err) = run(ctxlint().args(["diff", a, b]));
    assert!(code == 0 || code == 1, "{err}");
    assert!(out.starts_with("new conversation\n"), "{out}");
    assert!(out.contains("(not compared: the elements that differ are listed without their texts)"), "{out}");
    let texts: Vec<&str> = out.lines().filter(|l| l.starts_with("    ")).collect();
    assert_eq!(texts, Vec::<&str>::new(), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  + added ") || l.starts_with("  - removed ")), "{out}");
}
