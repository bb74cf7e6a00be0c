//! Every output format on a session with findings of both severities: a
//! snapshot each (insta), secrets masked everywhere, SARIF validated against
//! the SARIF 2.1.0 JSON schema vendored in `tests/data` (from the serde-sarif
//! crate's sources; tests never download anything).

use assert_cmd::Command;

const INPUT: &str = "fixtures/report/mixed-session.jsonl";
const SECRET: &str = "AAAABBBBCCCCDDDD";

fn render(format: &str) -> String {
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", INPUT, "--output-format", format, "--color", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{format}: {}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(!s.contains(SECRET), "{format} leaks the secret:\n{s}");
    s
}

#[test]
fn concise() {
    insta::assert_snapshot!(render("concise"));
}

#[test]
fn json_lines() {
    let s = render("json-lines");
    for l in s.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["rule"].is_string() && v["fingerprint"].is_string());
    }
    insta::assert_snapshot!(s);
}

#[test]
fn github() {
    insta::assert_snapshot!(render("github"));
}

#[test]
fn gitlab() {
    let s = render("gitlab");
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    insta::assert_snapshot!(s);
}

#[test]
fn junit() {
    let s = render("junit");
    assert!(s.starts_with("<?xml"));
    insta::assert_snapshot!(s);
}

#[test]
fn sarif_is_valid_sarif_2_1_0() {
    let s = render("sarif");
    let doc: serde_json::Value = serde_json::from_str(&s).unwrap();
    let schema: serde_json::Value = serde_json::from_str(include_str!("../data/sarif-2.1.0.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "SARIF does not validate:\n{}", errors.join("\n"));
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["ruleId"], "CTX101");
    assert_eq!(results[1]["level"], "warning");
    assert!(results[0]["partialFingerprints"].is_object());
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
    // The %SRCROOT% base is the working directory: machine-dependent.
    let root = doc["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap().to_string();
    insta::assert_snapshot!(s.replace(&root, "file:///SRCROOT/"));
}

#[test]
fn output_file_is_written_and_stdout_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("out.sarif");
    let out = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", INPUT, "--output-format", "sarif", "-o"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(std::fs::read_to_string(&p).unwrap().contains("\"2.1.0\""));
}

#[test]
fn docs_rules_md_is_generated_from_the_rule_files() {
    let out = Command::cargo_bin("ctxlint").unwrap().args(["rule", "--all"]).output().unwrap();
    let on_disk = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    assert!(
        on_disk == String::from_utf8(out.stdout).unwrap(),
        "docs/rules.md is stale: run `cargo run -- rule --all > docs/rules.md`"
    );
}

#[test]
fn completions_and_man_page() {
    let out = Command::cargo_bin("ctxlint").unwrap().args(["completions", "bash"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("ctxlint"));
    let out = Command::cargo_bin("ctxlint").unwrap().arg("man").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(".TH ctxlint"));
}
