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

/// `docs/report.schema.json` (the JSON report's contract, which the Python
/// package and CI users read) validates the report of every fixture, the
/// real corpus, a flood (unlisted findings), a skipped file and an input
/// that cannot be checked; its rule names are the rules'.
#[test]
fn the_json_report_follows_its_committed_schema() {
    let root = crate::support::root();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("docs/report.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let names: Vec<String> =
        schema["$defs"]["rule"]["enum"].as_array().unwrap().iter().map(|v| v.to_string()).collect();
    let out = crate::support::ctxlint().args(["rule", "--all", "--output-format", "json"]).output().unwrap();
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ours: Vec<String> = rules.as_array().unwrap().iter().map(|r| r["name"].to_string()).collect();
    let mut theirs = names.clone();
    ours.sort();
    theirs.sort();
    assert_eq!(theirs, ours, "the schema's rule names are the rules'");
    let d = tempfile::tempdir().unwrap();
    let mut torn = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-06-20T09:14:00.000Z\",\"cwd\":\"/w\"}\n",
    );
    for i in 0..10_050 {
        torn.push_str(&format!("{{\"type\":\"message\",\"id\":\"m{i}\n"));
    }
    std::fs::write(d.path().join("flood.jsonl"), torn).unwrap();
    std::fs::write(d.path().join("note.json"), "{\"hello\": 1}").unwrap();
    std::fs::write(d.path().join("gone.jsonl.gz"), [0x1f, 0x8b, 8, 0, 1, 2]).unwrap();
    // A file forced to a format it does not fit cannot be checked: `failed`.
    let forced = d.path().join("forced.jsonl");
    std::fs::write(&forced, "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/w\"}\n").unwrap();
    let mut checked = 0;
    let dir = d.path().to_string_lossy().into_owned();
    let mut runs: Vec<Vec<String>> = vec![
        vec![root.join("fixtures").to_string_lossy().into_owned()],
        vec![dir.clone()],
        vec![forced.to_string_lossy().into_owned(), "--input-format".into(), "openai-chat".into()],
    ];
    runs.extend(crate::shared::path("corpus").map(|c| vec![c.to_string_lossy().into_owned()]));
    for args in runs {
        let out =
            crate::support::ctxlint().arg("check").args(&args).args(["--output-format", "json"]).output().unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let errors: Vec<String> =
            validator.iter_errors(&doc).take(20).map(|e| format!("{} at {}", e, e.instance_path)).collect();
        assert!(
            errors.is_empty(),
            "{args:?}: the report does not follow docs/report.schema.json:\n{}",
            errors.join("\n")
        );
        checked += doc["findings"].as_array().unwrap().len();
        if args[0] == dir {
            assert!(!doc["unlisted"].as_array().unwrap().is_empty(), "the flood is counted");
            assert!(doc["skipped"].as_array().unwrap().len() >= 2, "note.json and gone.jsonl.gz are skipped");
        }
        if args.len() == 3 {
            assert_eq!(doc["failed"].as_array().unwrap().len(), 1, "the forced file is not checked");
        }
    }
    assert!(checked > 10_000, "findings validated: {checked}");
}
