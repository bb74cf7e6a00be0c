//! Snapshot tests (insta) of the human and JSON output on a session with
//! findings of both severities and a key-like secret in an excerpt.

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn full_output() {
    let (code, out) = run(&["check", "fixtures/report/mixed-session.jsonl", "--color", "never"]);
    assert_eq!(code, 1);
    assert!(!out.contains("AAAABBBBCCCCDDDD"), "secret leaked: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn json_output() {
    let (code, out) = run(&["check", "fixtures/report/mixed-session.jsonl", "--output-format", "json"]);
    assert_eq!(code, 1);
    assert!(!out.contains("AAAABBBBCCCCDDDD"), "secret leaked");
    insta::assert_snapshot!(out);
}

#[test]
fn rule_docs_are_printed_by_name_and_code() {
    let (code, by_name) = run(&["rule", "duplicate-system-event"]);
    assert_eq!(code, 0);
    let (_, by_code) = run(&["rule", "ctx101"]);
    assert_eq!(by_name, by_code);
    assert!(by_name.contains("## What it does not flag"));
}

#[test]
fn unknown_file_format_is_exit_2_naming_the_file_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.txt");
    std::fs::write(&p, "hello\n").unwrap();
    let out = Command::cargo_bin("ctxlint").unwrap().arg("check").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // The formats tried: by count and where to read them, not 22 ids (issue 33).
    assert!(err.contains("notes.txt") && err.contains("formats `ctxlint formats` lists"), "{err}");
}

#[test]
fn walked_unknown_files_are_skipped_and_counted_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .arg("check")
        .arg(dir.path())
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    // Nothing but a skipped file: no input at all is exit 2 (docs/spec.md §1), the report still written.
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["skipped"], 1);
    let out = Command::cargo_bin("ctxlint").unwrap().arg("check").arg(dir.path()).arg("--strict").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
