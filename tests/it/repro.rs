//! `ctxlint repro`: every produced case passes the shared case runner's
//! judgement (re-implemented here, and `../shared/cases/run_cases.py` itself
//! when it is present), is small, holds none of the planted personal data, and
//! is the same byte for byte on a second run.

use crate::support::ctxlint;
use crate::support::root;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The case's input files (everything but expected.json and case.md).
fn inputs_of(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !matches!(p.file_name().unwrap().to_str().unwrap(), "expected.json" | "case.md"))
        .collect();
    v.sort();
    v
}

fn lines_of(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|p| {
            let b = std::fs::read(p).unwrap();
            b.iter().filter(|&&c| c == b'\n').count() + usize::from(!b.is_empty() && !b.ends_with(b"\n"))
        })
        .sum()
}

/// Case directories under `out` (those holding expected.json).
fn cases_in(out: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walk(out).into_iter().filter(|p| p.join("expected.json").is_file()).collect();
    v.sort();
    v
}

fn walk(p: &Path) -> Vec<PathBuf> {
    let mut out = vec![p.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd {
            let e = e.unwrap().path();
            if e.is_dir() {
                out.extend(walk(&e));
            }
        }
    }
    out
}

type Key = (String, String, Option<i64>, Option<String>);

fn key(f: &Value) -> Key {
    (
        f["rule"].as_str().unwrap().to_string(),
        f["path"].as_str().unwrap().trim_start_matches("./").to_string(),
        f.get("line").and_then(Value::as_i64),
        f.get("pointer").and_then(Value::as_str).map(str::to_string),
    )
}

/// Judges a case as run_cases.py does for these exact expectations: runs its
/// command in the case directory, requires exit 1 and the same multiset of
/// findings (rule, path, and line/pointer where expected.json has them).
fn judge(case: &Path) -> Result<(), String> {
    let exp: Value = serde_json::from_slice(&std::fs::read(case.join("expected.json")).unwrap()).unwrap();
    assert_eq!(exp["exact"], Value::Bool(true));
    assert_eq!(exp["command"], serde_json::json!(["check", "."]));
    let out = ctxlint().current_dir(case).args(["check", ".", "--output-format", "json"]).output().unwrap();
    let code = out.status.code().unwrap();
    let got: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("{}: bad JSON: {e}", case.display()))?;
    let mut want: BTreeMap<Key, usize> = BTreeMap::new();
    for f in exp["findings"].as_array().unwrap() {
        *want.entry(key(f)).or_default() += 1;
    }
    let mut have: BTreeMap<Key, usize> = BTreeMap::new();
    for f in got["findings"].as_array().unwrap() {
        let mut k = key(f);
        // Compare line only where expected.json has it (JSONL), as the runner does.
        if !exp["findings"].as_array().unwrap().iter().any(|e| e.get("line").is_some() && key(e).1 == k.1) {
            k.2 = None;
        }
        *have.entry(k).or_default() += 1;
    }
    if code != 1 || want != have || want.is_empty() {
        return Err(format!("{}: exit {code}, expected {want:?}, produced {have:?}", case.display()));
    }
    Ok(())
}

fn run_cases_py(out: &Path) {
    let Some(script) = crate::shared::path("cases/run_cases.py") else { return };
    let bin = assert_cmd::cargo::cargo_bin("ctxlint");
    let o =
        std::process::Command::new("python3").arg(&script).arg("--bin").arg(&bin).arg(out).output().expect("python3");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "run_cases.py failed:\n{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

/// The shared `check` cases with findings: each reproduces, passes, and is small.
#[test]
fn every_handed_check_case_reproduces() {
    let tmp = tempfile::tempdir().unwrap();
    reduce_handed_cases(tmp.path());
}

/// The same cases pass `../shared/cases/run_cases.py` itself.
#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn every_handed_check_case_passes_run_cases_py() {
    let tmp = tempfile::tempdir().unwrap();
    reduce_handed_cases(tmp.path());
    run_cases_py(tmp.path());
}

/// Reduces every shared `check` case with findings into `tmp` and judges each reduced case.
fn reduce_handed_cases(tmp: &Path) {
    let mut n_cases = 0;
    let mut n_expected = 0;
    let mut rules_seen = Vec::new();
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(root().join("fixtures/cases")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs {
        let exp: Value = serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
        if exp["command"][0] != "check" || exp["findings"].as_array().unwrap().is_empty() {
            continue;
        }
        n_expected += exp["findings"].as_array().unwrap().len();
        let id = dir.file_name().unwrap().to_str().unwrap().to_string();
        let before_files = inputs_of(&dir);
        let out = tmp.join(&id);
        let o = ctxlint().arg("repro").arg(&dir).args(["--all", "-o"]).arg(&out).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{id}: {}", String::from_utf8_lossy(&o.stderr));
        // Nothing written beside the input.
        assert_eq!(inputs_of(&dir), before_files, "{id}: the input directory changed");
        let cases = cases_in(&out);
        assert_eq!(cases.len(), exp["findings"].as_array().unwrap().len(), "{id}: one case per finding");
        let before = lines_of(&before_files);
        for c in &cases {
            judge(c).unwrap();
            let after = lines_of(&inputs_of(c));
            assert!(after <= 20.max(before / 10), "{id}: {after} lines (input {before})");
            assert!(after >= 1);
            let exp_c: Value = serde_json::from_slice(&std::fs::read(c.join("expected.json")).unwrap()).unwrap();
            rules_seen.push(exp_c["findings"][0]["rule"].as_str().unwrap().to_string());
            let md = std::fs::read_to_string(c.join("case.md")).unwrap();
            assert!(md.contains("ctxlint check . --output-format json") && md.contains("ctxlint 0."), "{md}");
        }
        n_cases += cases.len();
    }
    // One case per expected finding of every `check` case (29 over the 45 shared cases).
    assert_eq!(n_cases, n_expected, "{rules_seen:?}");
    assert!(n_cases >= 29, "{n_cases}");
}

/// Every finding ctxlint reports on the shared corpus gives a passing, small case.
#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn every_corpus_finding_reproduces() {
    let Some(corpus) = crate::shared::path("corpus") else { return };
    let check = ctxlint().arg("check").arg(&corpus).args(["--output-format", "json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    let total = report["findings"].as_array().unwrap().len();
    assert!(total >= 20, "{total}");
    let tmp = tempfile::tempdir().unwrap();
    let o = ctxlint().arg("repro").arg(&corpus).args(["--all", "-o"]).arg(tmp.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains(&format!("{total} case(s) written, 0 not reproduced")), "{stdout}");
    let cases = cases_in(tmp.path());
    assert_eq!(cases.len(), total);
    for c in &cases {
        judge(c).unwrap();
    }
    // Sizes: "<dir>  <rule> at <where>: B -> A lines, …" per case.
    let re = regex::Regex::new(r": (\d+) -> (\d+) lines").unwrap();
    let mut sized = 0;
    for cap in re.captures_iter(&stdout) {
        let (b, a): (usize, usize) = (cap[1].parse().unwrap(), cap[2].parse().unwrap());
        assert!(a <= 20.max(b / 10), "{a} lines from {b}");
        sized += 1;
    }
    assert_eq!(sized, total);
    run_cases_py(tmp.path());
}

const PLANTED: &[&str] = &[
    "Alice Johnson",
    "Johnson",
    "alice.johnson@acme-corp.com",
    "acme-corp",
    "+1 415 555 0134",
    "415 555",
    "/home/alice/projects/secret-plan",
    "/Users/bob/Documents/payroll.xlsx",
    "payroll",
    "bob",
    "sk-proj-Q9xT7mK2pL4vN8rS1wY3zA6b",
    "Q9xT7mK2pL4vN8rS1wY3zA6b",
    "ghp_R4nD0mT0k3nV4lu3F0rT35t1ng0000aaaa",
    "R4nD0mT0k3n",
    "AKIAIOSFODNN7EXAMPLE",
    "IOSFODNN7",
    "C024BE91L",
    "123456789012345678",
    "https://intranet.acme-corp.com/wiki/oncall",
    "intranet",
];

/// A pi/OpenClaw session whose system event is rendered twice in one step
/// (duplicate-system-event at line 3), full of personal data.
fn pii_session() -> String {
    let event = "System: [2026-06-20 09:14:02 UTC] Slack DM from Alice Johnson in C024BE91L (Discord 123456789012345678): mail alice.johnson@acme-corp.com or call +1 415 555 0134";
    let lines = [
        serde_json::json!({"type":"session","version":3,"id":"5e55a0a4-0b79-459d-939c-e17cdbbf4fe2","timestamp":"2026-06-20T09:14:00.000Z","cwd":"/home/alice/projects/secret-plan"}),
        serde_json::json!({"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-06-20T09:14:02.000Z","message":{"role":"user","content":[{"type":"text","text":format!("{event}\n\nPlease read /Users/bob/Documents/payroll.xlsx; the key is sk-proj-Q9xT7mK2pL4vN8rS1wY3zA6b and the token ghp_R4nD0mT0k3nV4lu3F0rT35t1ng0000aaaa, AWS AKIAIOSFODNN7EXAMPLE, see https://intranet.acme-corp.com/wiki/oncall")}]}}),
        serde_json::json!({"type":"custom_message","customType":"openclaw.runtime-context","content":format!("OpenClaw runtime context for the immediately preceding user message.\n\n{event}\n\nConversation info (untrusted metadata):\n```json\n{{\"channel\":\"slack\",\"sender\":\"Alice Johnson\"}}\n```"),"display":false,"id":"c0ffee01","parentId":"a1b2c3d4","timestamp":"2026-06-20T09:14:02.003Z"}),
        serde_json::json!({"type":"message","id":"e5f6a7b8","parentId":"c0ffee01","timestamp":"2026-06-20T09:14:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Sure Alice Johnson, reading /Users/bob/Documents/payroll.xlsx now."},{"type":"toolCall","id":"call_9f8e7d","name":"read","arguments":{"path":"/Users/bob/Documents/payroll.xlsx"}}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse"}}),
        serde_json::json!({"type":"message","id":"0badcafe","parentId":"e5f6a7b8","timestamp":"2026-06-20T09:14:06.000Z","message":{"role":"toolResult","toolCallId":"call_9f8e7d","toolName":"read","content":[{"type":"text","text":"name,email,phone\nAlice Johnson,alice.johnson@acme-corp.com,+1 415 555 0134"}]}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn assert_no_planted(dir: &Path) {
    for p in walk(dir).iter().flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path())) {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !p.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for s in PLANTED {
            assert!(!text.contains(s), "{s:?} leaked into {}:\n{text}", p.display());
            assert!(!name.contains(s), "{s:?} in the file name {name}");
        }
    }
}

#[test]
fn planted_personal_data_never_reaches_the_case() {
    let src = tempfile::tempdir().unwrap();
    let input = src.path().join("alice-johnson-session.jsonl");
    std::fs::write(&input, pii_session()).unwrap();
    // The input shows the finding.
    let check = ctxlint().arg("check").arg(&input).args(["--output-format", "json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    let rules: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["duplicate-system-event"]);
    assert_eq!(report["findings"][0]["line"], 3);
    // Reduced (default budget) and unreduced (no time to reduce): both anonymised.
    for budget in ["30", "0.000001"] {
        let out = tempfile::tempdir().unwrap();
        let o = ctxlint()
            .arg("repro")
            .arg(&input)
            .args(["--rule", "duplicate-system-event", "--budget", budget, "-o"])
            .arg(out.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&o.stderr));
        let cases = cases_in(out.path());
        assert_eq!(cases.len(), 1);
        judge(&cases[0]).unwrap();
        let exp: Value = serde_json::from_slice(&std::fs::read(cases[0].join("expected.json")).unwrap()).unwrap();
        assert_eq!(exp["findings"][0]["rule"], "duplicate-system-event");
        assert_eq!(exp["format"], "pi-session");
        assert_no_planted(out.path());
        assert!(stdout.contains("replaced:"), "{stdout}");
        if budget != "30" {
            // Nothing was removed: every class was replaced, and the label kept its shape.
            for class in ["email", "key", "path", "phone", "channel-id", "url", "word"] {
                assert!(stdout.contains(&format!("{class} ")), "{class} not reported: {stdout}");
            }
            let text = std::fs::read_to_string(cases[0].join("session.jsonl")).unwrap();
            assert!(text.contains("System: [2026-06-20 09:14:02 UTC] "), "{text}");
            assert!(text.contains("user1@example.com") && text.contains("sk-REDACTED-"), "{text}");
            assert_eq!(lines_of(&inputs_of(&cases[0])), 5);
        } else {
            assert!(lines_of(&inputs_of(&cases[0])) <= 3, "{stdout}");
        }
    }
}

#[test]
fn two_runs_give_identical_cases() {
    let src = tempfile::tempdir().unwrap();
    let input = src.path().join("s.jsonl");
    std::fs::write(&input, pii_session()).unwrap();
    let cassette = root().join("fixtures/cases/cc-44045-resume-block-dropped");
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let out = tempfile::tempdir().unwrap();
        for p in [input.as_path(), cassette.as_path()] {
            let o = ctxlint().arg("repro").arg(p).args(["--all", "-o"]).arg(out.path()).output().unwrap();
            assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        }
        let mut files = BTreeMap::new();
        for c in cases_in(out.path()) {
            for e in std::fs::read_dir(&c).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(out.path()).unwrap().to_string_lossy().to_string();
                files.insert(rel, std::fs::read(&p).unwrap());
            }
        }
        assert_eq!(files.len(), 7, "{:?}", files.keys());
        outputs.push(files);
    }
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn selection_errors_and_existing_cases() {
    let src = tempfile::tempdir().unwrap();
    let input = src.path().join("s.jsonl");
    std::fs::write(&input, pii_session()).unwrap();
    let out = tempfile::tempdir().unwrap();
    // No finding of that rule: exit 2 with a clear message.
    let o = ctxlint()
        .arg("repro")
        .arg(&input)
        .args(["--rule", "orphan-tool-result", "-o"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no finding matches the selection"));
    let o = ctxlint().arg("repro").arg(&input).args(["--line", "2", "-o"]).arg(out.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    // By fingerprint, twice: the second run takes the next number.
    let check = ctxlint().arg("check").arg(&input).args(["--output-format", "json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    let fp = report["findings"][0]["fingerprint"].as_str().unwrap().to_string();
    for _ in 0..2 {
        let o = ctxlint().arg("repro").arg(&input).args(["--finding", &fp, "-o"]).arg(out.path()).output().unwrap();
        assert_eq!(o.status.code(), Some(0));
    }
    assert!(out.path().join("duplicate-system-event-1/expected.json").is_file());
    assert!(out.path().join("duplicate-system-event-2/expected.json").is_file());
    // --keep-text keeps the original file name and text.
    let o = ctxlint()
        .arg("repro")
        .arg(&input)
        .args(["--keep-text", "--source", "https://github.com/o/r/issues/1", "-o"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let c = out.path().join("duplicate-system-event-3");
    assert!(c.join("s.jsonl").is_file());
    let exp: Value = serde_json::from_slice(&std::fs::read(c.join("expected.json")).unwrap()).unwrap();
    assert_eq!(exp["source"], "https://github.com/o/r/issues/1");
    assert!(std::fs::read_to_string(c.join("case.md")).unwrap().contains("None (`--keep-text`)"));
    // An output folder inside an input folder is refused (it would be read as input next time).
    let o =
        ctxlint().arg("repro").arg(src.path()).arg("--all").arg("-o").arg(src.path().join("cases")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("lies inside the input folder"));
    assert!(!src.path().join("cases").exists());
    // `source`: a neutral name by default; a given URL has its keys masked.
    let o = ctxlint()
        .arg("repro")
        .arg(&input)
        .args(["--source", "https://example.test/i/1?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "-o"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let exp: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("duplicate-system-event-4/expected.json")).unwrap())
            .unwrap();
    assert_eq!(exp["source"], "https://example.test/i/1?token=ghp_****");
    let exp: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("duplicate-system-event-1/expected.json")).unwrap())
            .unwrap();
    assert_eq!(exp["source"], "input1.jsonl");
    // Budgets: not a positive number is a usage error; a huge one is capped, not a panic.
    for (budget, code) in [("0", 2), ("-1", 2), ("NaN", 2), ("1e30", 0)] {
        let o = ctxlint().arg("repro").arg(&input).args(["--budget", budget, "-o"]).arg(out.path()).output().unwrap();
        assert_eq!(o.status.code(), Some(code), "--budget {budget}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// A session long enough to be sliced (over 2,000 lines): a dangling parent in
/// the middle and a system event rendered twice near the end; each case is
/// tiny, re-threaded over the thousands of lines left out, and passes.
#[test]
fn long_sessions_are_sliced_around_the_finding() {
    let mut lines = vec![
        serde_json::json!({"type":"session","version":3,"id":"s-long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/srv/agent"}),
    ];
    let mut parent: Option<String> = None;
    let push = |lines: &mut Vec<Value>, mut v: Value, id: String, parent: &mut Option<String>| {
        v["id"] = Value::String(id.clone());
        v["parentId"] = parent.clone().map(Value::String).unwrap_or(Value::Null);
        lines.push(v);
        *parent = Some(id);
    };
    for t in 0..1_400 {
        let event = format!("System: [2026-01-01 {:02}:{:02}:00 UTC] Slack DM from user-{t}", t / 60 % 24, t % 60);
        let user = serde_json::json!({"type":"message","message":{"role":"user","content":[{"type":"text","text":format!("{event}\n\nplease look at item {t}")}]}});
        push(&mut lines, user, format!("u{t:05}"), &mut parent);
        if t == 1_300 {
            let carrier = serde_json::json!({"type":"custom_message","customType":"openclaw.runtime-context","content":format!("OpenClaw runtime context.\n\n{event}"),"display":false});
            push(&mut lines, carrier, format!("c{t:05}"), &mut parent);
        }
        let mut reply = serde_json::json!({"type":"message","message":{"role":"assistant","content":[{"type":"text","text":format!("done with item {t}")}],"provider":"p","model":"m","stopReason":"stop"}});
        if t == 700 {
            // Dangling parent: names no entry.
            reply["id"] = Value::String(format!("a{t:05}"));
            reply["parentId"] = Value::String("dead0001".into());
            lines.push(reply);
            parent = Some(format!("a{t:05}"));
        } else {
            push(&mut lines, reply, format!("a{t:05}"), &mut parent);
        }
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    assert!(lines.len() > 2_000);
    let src = tempfile::tempdir().unwrap();
    let input = src.path().join("long.jsonl");
    std::fs::write(&input, &text).unwrap();
    let check = ctxlint().arg("check").arg(&input).args(["--output-format", "json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    let mut found: Vec<(String, i64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["line"].as_i64().unwrap()))
        .collect();
    found.sort();
    assert_eq!(found, [("broken-parent-chain".to_string(), 1_403), ("duplicate-system-event".to_string(), 2_603)]);
    let out = tempfile::tempdir().unwrap();
    let o = ctxlint().arg("repro").arg(&input).args(["--all", "-o"]).arg(out.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&o.stderr));
    let cases = cases_in(out.path());
    assert_eq!(cases.len(), 2);
    for c in &cases {
        judge(c).unwrap();
        assert!(lines_of(&inputs_of(c)) <= 4, "{}", std::fs::read_to_string(c.join("session.jsonl")).unwrap());
    }
    // The dangling parent stays dangling (re-threading never repairs a defect).
    let bpc = std::fs::read_to_string(out.path().join("broken-parent-chain-1/session.jsonl")).unwrap();
    let entries: Vec<Value> = bpc.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = entries.iter().filter_map(|e| e["id"].as_str()).collect();
    let dangling: Vec<&str> =
        entries.iter().filter_map(|e| e["parentId"].as_str()).filter(|p| !ids.contains(p)).collect();
    assert_eq!(dangling.len(), 1, "{bpc}");
    assert_eq!(dangling[0].len(), "dead0001".len(), "{bpc}");
    assert!(!bpc.contains("dead0001"), "ids are anonymised: {bpc}");
    // The event's second copy hangs off its first one after thousands of lines were removed.
    let dse = std::fs::read_to_string(out.path().join("duplicate-system-event-1/session.jsonl")).unwrap();
    assert!(dse.contains("System: [2026-01-01 "), "{dse}");
    assert!(!dse.contains("u00000"), "{dse}");
}

/// Personal data of the shapes of issue #15 (national phones, cards, IBANs,
/// passport and plate numbers, IPv6 and street addresses, a person's name in
/// an MCP server's name) in a pi session and in an Anthropic request, each
/// with a defect on an MCP tool (in the session a result answering no call —
/// pi sends a result for an open call itself — in the request an unanswered
/// call): the written cases hold none of it, the call still pairs and the
/// finding still reproduces.
#[test]
fn issue_15_shapes_never_reach_the_case() {
    const TEXT: &str = "Call Alice on 020 7946 0958 or 07700 900123, in Paris 01 23 45 67 89, in Tokyo \
        03-1234-5678, in Sao Paulo (11) 91234-5678. Card 4111 1111 1111 1111 or 4111-1111-1111-1111, Amex \
        3782 822463 10005, IBAN DE89 3704 0044 0532 0130 00 or GB82 WEST 1234 5698 7654 32. Passport \
        L898902C3 or X1234567, plates AB12 CDE and B-MW 1234. Hosts 2001:db8:85a3::8a2e:370:7334 and \
        fe80::1ff:fe23:4567:890a%eth0. Ship to 221B Baker Street, London NW1 6XE, Hauptstraße 5, 10115 \
        Berlin or 1600 Amphitheatre Parkway, Mountain View, CA 94043. Use mcp__alice_gmail__send. \
        Kept: v1.2.3 at 10:30, 3 files, line 42:7, port :8080.";
    const ORIGINALS: &[&str] = &[
        "Alice",
        "alice",
        "7946 0958",
        "900123",
        "23 45 67 89",
        "1234-5678",
        "91234",
        "4111 1111",
        "4111-1111",
        "822463",
        "10005",
        "DE89",
        "3704 0044",
        "0130 00",
        "GB82",
        "WEST",
        "7654 32",
        "L898902C3",
        "X1234567",
        "AB12 CDE",
        "B-MW",
        "2001:db8",
        "85a3",
        "8a2e",
        ":7334",
        "fe80",
        "fe23",
        "890a",
        "221B",
        "Baker",
        "NW1 6XE",
        "Hauptstra",
        "10115",
        "1600 ",
        "Amphitheatre",
        "94043",
        "gmail",
    ];
    let pi = [
        serde_json::json!({"type":"session","version":3,"id":"5e55a0a4-0b79-459d-939c-e17cdbbf4fe2","timestamp":"2026-06-20T09:14:00.000Z","cwd":"/srv/agent"}),
        serde_json::json!({"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-06-20T09:14:02.000Z","message":{"role":"user","content":[{"type":"text","text":TEXT}]}}),
        serde_json::json!({"type":"message","id":"e5f6a7b8","parentId":"a1b2c3d4","timestamp":"2026-06-20T09:14:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Searching with mcp__alice_gmail__search."},{"type":"toolCall","id":"call_1a","name":"mcp__alice_gmail__search","arguments":{"query":"from:020 7946 0958"}}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse"}}),
        serde_json::json!({"type":"message","id":"0badcafe","parentId":"e5f6a7b8","timestamp":"2026-06-20T09:14:06.000Z","message":{"role":"toolResult","toolCallId":"call_1a","toolName":"mcp__alice_gmail__search","content":[{"type":"text","text":TEXT}]}}),
        serde_json::json!({"type":"message","id":"c0ffee02","parentId":"0badcafe","timestamp":"2026-06-20T09:14:07.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_2b","name":"mcp__alice_gmail__send","arguments":{"to":"+44 20 7946 0958","body":TEXT}}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse"}}),
        serde_json::json!({"type":"message","id":"deadbee5","parentId":"c0ffee02","timestamp":"2026-06-20T09:14:09.000Z","message":{"role":"toolResult","toolCallId":"call_3c","toolName":"mcp__alice_gmail__send","content":[{"type":"text","text":"sent to 020 7946 0958"}]}}),
    ];
    let request = serde_json::json!({"model":"claude-sonnet-4-5","max_tokens":1024,
        "tools":[{"name":"mcp__alice_gmail__send","description":"Send mail as Alice","input_schema":{"type":"object"}},
                 {"name":"mcp__alice_gmail__search","description":TEXT,"input_schema":{"type":"object"}}],
        "messages":[{"role":"user","content":TEXT},
            {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01AAA","name":"mcp__alice_gmail__search","input":{"q":TEXT}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01AAA","content":TEXT}]},
            {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01BBB","name":"mcp__alice_gmail__send","input":{"body":TEXT}}]},
            {"role":"user","content":"did it go out?"}]});
    let src = tempfile::tempdir().unwrap();
    let session = src.path().join("s.jsonl");
    std::fs::write(&session, pi.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let req = src.path().join("request.json");
    std::fs::write(&req, serde_json::to_string_pretty(&request).unwrap()).unwrap();
    for (input, case_file, rule) in
        [(&session, "session.jsonl", "orphan-tool-result"), (&req, "request.json", "unanswered-tool-call")]
    {
        // The input shows the finding, on the MCP call or result.
        let check = ctxlint().arg("check").arg(input).args(["--output-format", "json"]).output().unwrap();
        let report: Value = serde_json::from_slice(&check.stdout).unwrap();
        assert_eq!(report["findings"].as_array().unwrap().len(), 1, "{report}");
        assert_eq!(report["findings"][0]["rule"], rule);
        if rule == "unanswered-tool-call" {
            assert!(report["findings"][0]["message"].as_str().unwrap().contains("(mcp__alice_gmail__send)"));
        }
        for budget in ["30", "0.000001"] {
            let out = tempfile::tempdir().unwrap();
            let o =
                ctxlint().arg("repro").arg(input).args(["--budget", budget, "-o"]).arg(out.path()).output().unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert_eq!(o.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&o.stderr));
            assert!(stdout.contains("1 case(s) written, 0 not reproduced"), "{stdout}");
            let cases = cases_in(out.path());
            assert_eq!(cases.len(), 1);
            judge(&cases[0]).unwrap();
            for p in walk(out.path()).iter().flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path())) {
                if p.is_file() {
                    let text = std::fs::read_to_string(&p).unwrap();
                    for s in ORIGINALS {
                        assert!(!text.contains(s), "{s:?} leaked into {}:\n{text}", p.display());
                    }
                }
            }
            // The finding names the call's tool with its server replaced, as the case's file does.
            let exp: Value = serde_json::from_slice(&std::fs::read(cases[0].join("expected.json")).unwrap()).unwrap();
            assert_eq!(exp["findings"][0]["rule"], rule);
            let text = std::fs::read_to_string(cases[0].join(case_file)).unwrap();
            let send: Vec<&str> = text.split('"').filter(|s| s.starts_with("mcp__") && s.ends_with("__send")).collect();
            assert!(
                (rule != "unanswered-tool-call" || !send.is_empty())
                    && send.iter().all(|s| *s == send[0] && s.len() == "mcp__alice_gmail__send".len()),
                "{text}"
            );
            let check =
                ctxlint().current_dir(&cases[0]).args(["check", ".", "--output-format", "json"]).output().unwrap();
            let report: Value = serde_json::from_slice(&check.stdout).unwrap();
            assert_eq!(report["findings"][0]["rule"], rule, "{report}");
            if rule == "unanswered-tool-call" {
                let message = report["findings"][0]["message"].as_str().unwrap();
                assert!(message.contains(&format!("({})", send[0])), "{report}");
            }
            if budget != "30" {
                // Nothing was removed: every new class was replaced, and what the rules read is kept.
                for class in ["address", "ip", "mcp-server", "number", "passport", "phone", "plate"] {
                    assert!(stdout.contains(&format!("{class} ")), "{class} not reported: {stdout}");
                }
                for kept in ["v1.2.3 at 10:30, 3 ", " 42:7, ", " :8080.", ", CA ", "%eth0", "__search"] {
                    assert!(text.contains(kept), "{kept:?} not kept in {text}");
                }
            }
        }
    }
}

/// A cassette as vcrpy records it — gzip response bodies as `!!binary`
/// scalars — is rebuilt as the cassette loader reads it: its finding is
/// reduced to a case that passes (it was rebuilt as `null`, and 8 of 9 real
/// cassette findings were "not reproduced").
#[test]
fn a_cassette_with_binary_bodies_reproduces() {
    let input = root().join("fixtures/vcr/binary-bodies.yaml");
    assert!(std::fs::read_to_string(&input).unwrap().contains("!!binary"));
    let out = tempfile::tempdir().unwrap();
    let o = ctxlint().arg("repro").arg(&input).args(["--all", "-o"]).arg(out.path()).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("1 case(s) written, 0 not reproduced"), "{said}");
    let cases = cases_in(out.path());
    assert_eq!(cases.len(), 1);
    assert!(cases[0].ends_with("dropped-system-prompt-1"), "{cases:?}");
    judge(&cases[0]).unwrap();
}
