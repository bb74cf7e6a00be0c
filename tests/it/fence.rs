//! `ctxlint fence` end to end: every `fixtures/cases/fence-*` case (copied
//! from the shared regression cases) must give exactly its verdict and its
//! findings (rule, path, line), and the command line must behave (exit codes,
//! JSON fields, refusing special files, writing nothing).

use assert_cmd::Command;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixtures/cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("fence-")))
        .collect();
    v.sort();
    v
}

fn ctxlint() -> Command {
    Command::cargo_bin("ctxlint").expect("binary")
}

fn run_json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = ctxlint().current_dir(dir).args(args).args(["--output-format", "json"]).output().expect("run");
    let code = out.status.code().unwrap_or(-1);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout not JSON ({e}): {} / {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, v)
}

fn triples(findings: &Value) -> Vec<(String, String, Option<u64>)> {
    let mut v: Vec<_> = findings
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["path"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_fence_case_gives_its_verdict_and_findings() {
    let cases = cases();
    assert!(cases.len() >= 11, "expected the 11 fence cases, found {}", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        let args: Vec<&str> = expected["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert_eq!(args[0], "fence", "{name}");
        let (code, got) = run_json(dir, &args);
        let verdict = expected["verdict"].as_str().unwrap();
        let want = triples(&expected["findings"]);
        let have = triples(&got["findings"]);
        let want_code = if matches!(verdict, "identical" | "append-owned") { 0 } else { 1 };
        if got["verdict"] != verdict || want != have || code != want_code {
            failures.push(format!("{name}: verdict {} (want {verdict}), exit {code} (want {want_code}), findings {have:?} (want {want:?})", got["verdict"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_carries_sizes_hashes_and_appended_entries() {
    let dir = cases().into_iter().find(|p| p.ends_with("fence-trap-owned-tool-turn")).unwrap();
    let (code, v) = run_json(&dir, &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!(code, 0);
    assert_eq!(v["version"], 1);
    assert_eq!(v["tool"], "ctxlint");
    assert_eq!(v["format"], "pi-session");
    for (k, f) in [("old", "old.jsonl"), ("new", "new.jsonl")] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        assert_eq!(v[k]["size"], bytes.len() as u64, "{k}");
        let h: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(v[k]["sha256"], h.as_str(), "{k}");
        assert_eq!(v[k]["path"], f);
    }
    assert_eq!(v["first_difference"], Value::Null);
    let app = v["appended"].as_array().unwrap();
    assert_eq!(app.iter().map(|a| a["line"].as_u64().unwrap()).collect::<Vec<_>>(), vec![8, 9, 10]);
    assert_eq!(
        app.iter().map(|a| a["role"].as_str().unwrap()).collect::<Vec<_>>(),
        vec!["assistant", "toolResult", "assistant"]
    );
    assert!(app.iter().all(|a| a["owned"] == true && a["type"] == "message"));
    assert_eq!(v["summary"]["findings"], 0);
}

#[test]
fn json_rewrite_has_first_difference_and_fingerprint_form_has_none() {
    let dir = cases().into_iter().find(|p| p.ends_with("fence-compaction-rewrite")).unwrap();
    let (code, v) = run_json(&dir, &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!(code, 1);
    let old = std::fs::read(dir.join("old.jsonl")).unwrap();
    let new = std::fs::read(dir.join("new.jsonl")).unwrap();
    let d = old.iter().zip(&new).position(|(a, b)| a != b).unwrap();
    assert_eq!(v["first_difference"]["byte_offset"], d as u64);
    assert_eq!(v["first_difference"]["line"], 2);
    assert_eq!(v["findings"][0]["byte_offset"], d as u64);
    assert!(v["findings"][0]["fingerprint"].as_str().is_some_and(|f| !f.is_empty()));

    // NEW against a fingerprint of its first 500 bytes with a wrong hash: rewrite at
    // line 1, no offset; shorter than the fingerprint: truncate.
    let size = "500";
    let zeros = "0".repeat(64);
    let (code, v) = run_json(&dir, &["fence", "new.jsonl", "--prefix-size", size, "--prefix-sha256", &zeros]);
    assert_eq!(code, 1);
    assert_eq!(v["verdict"], "rewrite");
    assert_eq!(v["findings"][0]["line"], 1);
    assert_eq!(v["findings"][0]["byte_offset"], Value::Null);
    assert_eq!(v["first_difference"], Value::Null);
    assert_eq!(v["old"]["path"], Value::Null);
    assert_eq!(v["old"]["sha256"], zeros.as_str());
    let size = (new.len() + 1).to_string();
    let (code, v) = run_json(&dir, &["fence", "new.jsonl", "--prefix-size", &size]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("truncate")));
    assert_eq!(v["findings"][0]["line"], 5);
}

#[test]
fn full_output_shows_verdict_table_and_diff() {
    let owned = cases().into_iter().find(|p| p.ends_with("fence-trap-owned-mirror-label")).unwrap();
    let out =
        ctxlint().current_dir(&owned).args(["fence", "old.jsonl", "new.jsonl", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("verdict: append-owned"), "{s}");
    assert!(s.contains("| line") && s.contains("label") && s.contains("yes"), "{s}");
    assert!(!s.contains('\u{1b}'), "no colour with --color never");

    let rewrite = cases().into_iter().find(|p| p.ends_with("fence-compaction-rewrite")).unwrap();
    let out =
        ctxlint().current_dir(&rewrite).args(["fence", "old.jsonl", "new.jsonl", "--color", "never"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("verdict: rewrite"), "{s}");
    assert!(s.contains("first difference: byte 149 (line 2)"), "{s}");
    assert!(s.contains("new.jsonl:2:") && s.contains("CTX401 not-append-only"), "{s}");
    assert!(s.contains("--- old.jsonl") && s.contains("+++ new.jsonl") && s.contains("@@ -2,"), "{s}");

    let out =
        ctxlint().current_dir(&owned).args(["fence", "old.jsonl", "new.jsonl", "--color", "always"]).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains('\u{1b}'));
}

#[test]
fn ci_formats_and_output_file() {
    let dir = cases().into_iter().find(|p| p.ends_with("fence-foreign-user-message")).unwrap();
    let out = ctxlint()
        .current_dir(&dir)
        .args(["fence", "old.jsonl", "new.jsonl", "--output-format", "concise"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("new.jsonl:6:1: CTX402"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = ctxlint()
        .current_dir(&dir)
        .args(["fence", "old.jsonl", "new.jsonl", "--output-format", "github"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("file=new.jsonl,line=6"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let tmp = tempfile::tempdir().unwrap();
    let report = tmp.path().join("fence.json");
    let out = ctxlint()
        .current_dir(&dir)
        .args(["fence", "old.jsonl", "new.jsonl", "--output-format", "json", "-o"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(v["verdict"], "append-foreign");
}

#[test]
fn owned_override_changes_the_verdict() {
    let dir = cases().into_iter().find(|p| p.ends_with("fence-foreign-user-message")).unwrap();
    let (code, v) = run_json(&dir, &["fence", "old.jsonl", "new.jsonl", "--owned", "assistant,toolResult,user"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("append-owned")));
    let dir = cases().into_iter().find(|p| p.ends_with("fence-trap-owned-mirror-label")).unwrap();
    let (code, v) = run_json(&dir, &["fence", "old.jsonl", "new.jsonl", "--owned", "assistant"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("append-foreign")));
    assert_eq!(triples(&v["findings"]), vec![("foreign-append".into(), "new.jsonl".into(), Some(7))]);
}

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.jsonl"), "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n").unwrap();
    let bad: &[&[&str]] = &[
        &["fence", "a.jsonl"],
        &["fence", "a.jsonl", "a.jsonl", "a.jsonl"],
        &["fence", "a.jsonl", "a.jsonl", "--prefix-size", "3"],
        &["fence", "a.jsonl", "--prefix-size", "3", "--prefix-sha256", "xyz"],
        &["fence", "a.jsonl", "--prefix-sha256", "00"],
        &["fence", "missing.jsonl", "a.jsonl"],
        &["fence", "a.jsonl", "missing.jsonl"],
        &["fence", ".", "a.jsonl"],
        &["fence", "-", "a.jsonl"],
    ];
    for args in bad {
        let out = ctxlint().current_dir(dir.path()).args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stderr.is_empty(), "{args:?} says why");
    }
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.jsonl"), "{}\n").unwrap();
    let fifo = dir.path().join("fifo");
    let ok = std::process::Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        return; // no mkfifo on this machine
    }
    let out = ctxlint()
        .current_dir(dir.path())
        .args(["fence", "a.jsonl", "fifo"])
        .timeout(std::time::Duration::from_secs(10))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fifo"));
}

#[test]
fn nothing_is_written_beside_the_inputs() {
    let src = cases().into_iter().find(|p| p.ends_with("fence-append-no-newline")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for f in ["old.jsonl", "new.jsonl"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    let bytes = std::fs::read(dir.path().join("new.jsonl")).unwrap();
    for fmt in ["json", "full"] {
        let out = ctxlint()
            .current_dir(dir.path())
            .args(["fence", "old.jsonl", "new.jsonl", "--output-format", fmt])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
    }
    let mut after: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    after.sort();
    let mut before = before;
    before.sort();
    assert_eq!(before, after);
    assert_eq!(std::fs::read(dir.path().join("new.jsonl")).unwrap(), bytes);
}

#[test]
fn unrecognised_format_with_an_append_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old"), "{\"a\":1}\n").unwrap();
    std::fs::write(dir.path().join("new"), "{\"a\":1}\n{\"a\":2}\n").unwrap();
    let out = ctxlint().current_dir(dir.path()).args(["fence", "old", "new"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Byte-level verdicts need no format.
    let (code, v) = run_json(dir.path(), &["fence", "new", "old"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("truncate")));
}

#[test]
fn fence_rules_are_documented() {
    for r in ["not-append-only", "foreign-append", "malformed-line", "broken-parent-chain"] {
        let out = ctxlint().args(["rule", r]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stdout).contains("fence"), "{r} docs mention fence");
    }
}

/// NEW rewritten in place (truncated to OLD less a line, then the owned
/// append written again, each by truncating and writing) while `fence`
/// judges it: every answer is the verdict of one whole version (the empty
/// file between truncate and write included), with that version's size and
/// SHA-256, or exit 2 (changed while it was read) — never `append-malformed`
/// for a valid owned append, never one version's verdict with another's hash.
#[test]
fn a_new_file_rewritten_while_fenced_is_judged_whole_or_refused() {
    let case = cases().into_iter().find(|p| p.ends_with("fence-trap-owned-tool-turn")).unwrap();
    let d = tempfile::tempdir().unwrap();
    let old = std::fs::read(case.join("old.jsonl")).unwrap();
    let full = std::fs::read(case.join("new.jsonl")).unwrap();
    // A truncated NEW: OLD less its last line (a `truncate` verdict).
    let cut = old[..old[..old.len() - 1].iter().rposition(|b| *b == b'\n').unwrap() + 1].to_vec();
    std::fs::write(d.path().join("old.jsonl"), &old).unwrap();
    let new = d.path().join("new.jsonl");
    std::fs::write(&new, &full).unwrap();
    let sha = |b: &[u8]| -> String { Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect() };
    let writer = {
        let (new, full, cut) = (new.clone(), full.clone(), cut.clone());
        std::thread::spawn(move || {
            let mut k = 0u64;
            // 30 rewrites, then the checks stop.
            while k < 30 {
                std::fs::write(&new, if k % 2 == 0 { &cut } else { &full }).unwrap();
                k += 1;
                // Longer than a kernel tick (file times are coarse): two rewrites are never one stamp.
                std::thread::sleep(std::time::Duration::from_millis(12));
            }
            k
        })
    };
    let mut seen = std::collections::BTreeMap::new();
    let mut runs = 0;
    while !writer.is_finished() || runs < 20 {
        runs += 1;
        let out = ctxlint()
            .current_dir(d.path())
            .args(["fence", "old.jsonl", "new.jsonl", "--output-format", "json"])
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        if code == 2 {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("changed while it was read"), "{err}");
            *seen.entry("changed".to_string()).or_insert(0) += 1;
            continue;
        }
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let verdict = v["verdict"].as_str().unwrap_or("?").to_string();
        // The writer truncates before it writes: an empty NEW, caught while it
        // stayed empty, is one of its versions too.
        let empty = Vec::new();
        let want = match verdict.as_str() {
            "append-owned" => &full,
            "truncate" if v["new"]["size"] == 0 => &empty,
            "truncate" => &cut,
            other => panic!("a verdict on no version of NEW: {other}: {v}"),
        };
        assert_eq!(code, if verdict == "append-owned" { 0 } else { 1 });
        assert_eq!(v["new"]["size"], want.len() as u64, "{v}");
        assert_eq!(v["new"]["sha256"], sha(want).as_str(), "{v}");
        *seen.entry(verdict).or_insert(0) += 1;
    }
    let writes = writer.join().expect("the writer ran");
    assert_eq!(writes, 30);
    eprintln!("fenced while rewritten: {seen:?}");
}

/// A difference more than 64 KiB into a line: its column is counted to the
/// byte, not capped at the diff window.
#[test]
fn a_difference_far_into_a_long_line_has_its_true_column() {
    let d = tempfile::tempdir().unwrap();
    let head = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-03-12T10:00:00.000Z","cwd":"/w"}"#;
    let pre = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-12T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":""#;
    let long = "x".repeat(200_000);
    let old = format!("{head}\n{pre}{long}\"}}]}}}}\n");
    let mut changed = long.clone();
    changed.replace_range(150_000..150_001, "y");
    let new = format!("{head}\n{pre}{changed}\"}}]}}}}\n");
    std::fs::write(d.path().join("old.jsonl"), &old).unwrap();
    std::fs::write(d.path().join("new.jsonl"), &new).unwrap();
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!(code, 1);
    assert_eq!(v["verdict"], "rewrite");
    let f = &v["findings"][0];
    assert_eq!(f["line"], 2);
    assert_eq!(f["column"], (pre.len() + 150_000 + 1) as u64);
    assert_eq!(v["first_difference"]["byte_offset"], (head.len() + 1 + pre.len() + 150_000) as u64);
}

/// Writes `old` (the first `keep` lines of `src`) and `new` (all of `src`,
/// then `extra` lines) into a temporary folder.
fn snapshot_pair(src: &str, keep: usize, extra: &[&str]) -> tempfile::TempDir {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(src)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let d = tempfile::tempdir().unwrap();
    let mut old = lines[..keep].join("\n");
    old.push('\n');
    let mut new = lines.join("\n");
    new.push('\n');
    for l in extra {
        new.push_str(l);
        new.push('\n');
    }
    std::fs::write(d.path().join("old.jsonl"), old).unwrap();
    std::fs::write(d.path().join("new.jsonl"), new).unwrap();
    d
}

#[test]
fn gemini_cli_chats_are_fenced_by_record_kind() {
    let src = "fixtures/formats/gemini-cli/recorded/gemini-0.61-clean.jsonl";
    // The CLI's own appends: message records, their updates and `$set` records.
    let d = snapshot_pair(src, 4, &[]);
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!((code, v["verdict"].as_str(), v["format"].as_str()), (0, Some("append-owned"), Some("gemini-cli")));
    assert_eq!(v["appended"].as_array().map(Vec::len), Some(7));
    // The runner owns only its model's records: a `user` record appended by
    // another process is foreign.
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl", "--owned", "gemini,$set"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("append-foreign")));
    assert_eq!(triples(&v["findings"]), vec![("foreign-append".into(), "new.jsonl".into(), Some(8))]);
    // A torn append (a record without its end) is reported at its line.
    let d =
        snapshot_pair(src, 11, &[r#"{"id":"x1","timestamp":"2026-12-02T14:40:00.000Z","type":"user","content":[{"te"#]);
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!(code, 1);
    assert_eq!(triples(&v["findings"]), vec![("malformed-line".into(), "new.jsonl".into(), Some(12))]);
    // A record that is neither a message, a `$set`, a `$rewindTo` nor metadata.
    let d = snapshot_pair(src, 11, &[r#"{"timestamp":"2026-12-02T14:40:00.000Z","type":"user"}"#]);
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!(code, 1);
    assert!(v["findings"][0]["message"].as_str().unwrap().contains("neither a message"), "{v}");
}

#[test]
fn copilot_cli_event_logs_are_fenced_by_event_type() {
    let src = "fixtures/formats/copilot-cli/clean.jsonl";
    let d = snapshot_pair(src, 6, &[]);
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!((code, v["verdict"].as_str(), v["format"].as_str()), (0, Some("append-owned"), Some("copilot-cli")));
    // Only the assistant side is the runner's: the appended `user.message` is foreign.
    let owned = "assistant.turn_start,assistant.message,assistant.turn_end,tool.execution_start,tool.execution_complete,system.message";
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl", "--owned", owned]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("append-foreign")));
    assert_eq!(triples(&v["findings"]), vec![("foreign-append".into(), "new.jsonl".into(), Some(7))]);
    // The log rewritten (the first event changed) is not append-only.
    let text = std::fs::read_to_string(d.path().join("new.jsonl")).unwrap();
    std::fs::write(d.path().join("new.jsonl"), text.replacen("gpt-5-mini", "gpt-5-nano", 1)).unwrap();
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("rewrite")));
}

#[test]
fn fence_judges_an_appended_line_as_check_reads_it() {
    // One parser per format: a Copilot event torn by a raw U+2028 (the CLI's
    // reader splits there) is a malformed line to `check` and to `fence`, with
    // the same reason at the same line.
    let src = "fixtures/formats/copilot-cli/clean.jsonl";
    let torn = "{\"type\":\"user.message\",\"data\":{\"content\":\"a\u{2028}b\"},\"id\":\"torn-1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"parentId\":null}";
    let d = snapshot_pair(src, 6, &[torn]);
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("append-malformed")));
    let lines = std::fs::read_to_string(d.path().join("new.jsonl")).unwrap().lines().count() as u64;
    assert_eq!(triples(&v["findings"]), vec![("malformed-line".into(), "new.jsonl".into(), Some(lines))]);
    let fence_msg = v["findings"][0]["message"].as_str().unwrap().to_string();
    let (_, c) = run_json(d.path(), &["check", "new.jsonl"]);
    let f = c["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "malformed-line").expect("check finds it");
    assert_eq!(f["line"].as_u64(), Some(lines));
    let reason = f["message"].as_str().unwrap().split(": ").skip(1).collect::<Vec<_>>().join(": ");
    assert!(reason.starts_with("raw U+2028/U+2029 at byte"), "{reason}");
    assert!(fence_msg.ends_with(&reason), "fence: {fence_msg}\ncheck: {reason}");
    // A pi extension's `custom` entry carries data of any shape: still owned.
    let d = tempfile::tempdir().unwrap();
    let old = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
        "\n"
    );
    let new = format!(
        "{old}{}\n",
        r#"{"type":"custom","id":"c1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","customType":"ext","data":["any",1]}"#
    );
    std::fs::write(d.path().join("old.jsonl"), old).unwrap();
    std::fs::write(d.path().join("new.jsonl"), new).unwrap();
    let (code, v) = run_json(d.path(), &["fence", "old.jsonl", "new.jsonl"]);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("append-owned")), "{v}");
    let (_, c) = run_json(d.path(), &["check", "new.jsonl"]);
    assert_eq!(c["findings"].as_array().map(Vec::len), Some(0), "{c}");
}

#[test]
fn html_is_refused_and_gitlab_is_gitlab() {
    // Issue 34 (found on the way): `fence --output-format html` printed GitLab JSON.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    std::fs::write(
        &p,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-03-12T10:00:00.000Z\",\"cwd\":\"/w\"}\n",
    )
    .unwrap();
    let p = p.to_str().unwrap();
    let out = ctxlint().args(["fence", p, p, "--output-format", "html"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("fence has no html output"));
    let out = ctxlint().args(["fence", p, p, "--output-format", "gitlab"]).output().unwrap();
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stdout).trim()), (Some(0), "[]"));
}
