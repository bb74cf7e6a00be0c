//! The Claude Code and Codex rollout corpus (`../shared/corpus`, real files from
//! public repositories): every file loads, and ctxlint reports exactly the
//! findings listed here (rule and line), each checked by hand to be true of the
//! file. Also runs the Claude Code / Codex regression cases copied into
//! `fixtures/cases/`.
//!
//! The corpus is not part of this repository: when `../shared/corpus` is
//! absent, the corpus tests print why and pass.

use ctxlint::CheckOptions;
use ctxlint::config::Config;
use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    crate::shared::path("corpus")
}

/// (rule, line) of every finding on one file, sorted.
fn findings(path: &Path) -> Vec<(String, u32)> {
    let opts = CheckOptions { paths: vec![path.to_string_lossy().into_owned()], ..Default::default() };
    let report = ctxlint::check(&opts, &Config::default()).expect("check runs");
    assert!(report.errors.is_empty(), "{}: load errors {:?}", path.display(), report.errors);
    assert_eq!(report.files.len(), 1, "{}: one input", path.display());
    let mut v: Vec<(String, u32)> =
        report.findings.iter().map(|f| (f.rule.name().to_string(), f.line.unwrap_or(0))).collect();
    v.sort();
    v
}

fn many(rule: &str, lines: &[u32]) -> Vec<(String, u32)> {
    lines.iter().map(|&l| (rule.to_string(), l)).collect()
}

fn check_folder(folder: &str, expected: &[(&str, Vec<(String, u32)>)]) {
    let Some(corpus) = corpus_dir() else { return };
    let dir = corpus.join(folder);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        let want = expected
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
            .unwrap_or_else(|| panic!("{folder}/{name}: no expectation listed"));
        let mut want = want;
        want.sort();
        assert_eq!(findings(&dir.join(name)), want, "{folder}/{name}");
    }
    assert_eq!(names.len(), expected.len(), "{folder}: files listed but absent");
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn claude_code_corpus() {
    // agentsessions-claude-small-all-record-types.jsonl is a synthetic catalogue whose
    // ids were trimmed to "[trimmed for fixture]": line 42 names its own uuid as parent
    // (a cycle of one), and 44 later records reuse that uuid with different content. The
    // user prompt at line 63 has `parentUuid: null` mid-file: a prompt written anew after a
    // rewind to the first one (a fork at the root, by design; line 51 is a compact_boundary,
    // legal too). The sidechain root at line 1 and the progress root at line 11 start
    // separate chains (sub-agent / main).
    let mut catalogue = vec![("broken-parent-chain".to_string(), 42)];
    let reused: Vec<u32> = [43, 44, 45].into_iter().chain(47..=84).chain([87, 88, 89]).collect();
    catalogue.extend(many("broken-parent-chain", &reused));
    let expected: Vec<(&str, Vec<(String, u32)>)> = vec![
        ("agentsessions-claude-schema_drift.jsonl", vec![]),
        ("agentsessions-claude-small-all-record-types.jsonl", catalogue),
        ("cclog-real-v1.0.51-326189cf.jsonl", vec![]),
        ("cclog-real-v2.1.114-worktrees-ef958aa1.jsonl", vec![]),
        ("cclog-real-v2.1.17-print-mode-94604a7b.jsonl", vec![]),
        ("cclog-real-v2.1.17-subagent-agent-a2271d1.jsonl", vec![]),
        ("cclog-real-v2.1.42-ideas-03eb5929.jsonl", vec![]),
        // A one-line excerpt: its parentUuid names a record that is not in the file,
        // but it is a bookkeeping record (`system` away_summary) that no message sent
        // to the model descends from: its path loses no turn (real Claude Code hook
        // `progress` records dangle the same way by design).
        ("cclog-synthetic-away_summary.jsonl", vec![]),
        ("cclog-synthetic-dag_fork.jsonl", vec![]),
        ("cclog-synthetic-hook_attachments.jsonl", vec![]),
        ("cctranscripts-sample_session.jsonl", vec![]),
        ("ccusage-claude-usage-only.jsonl", vec![]),
    ];
    check_folder("claude-code", &expected);
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn codex_rollout_corpus() {
    // agentsessions-codex-small-all-event-types.jsonl (texts and ids trimmed): the
    // developer message at line 98 repeats base_instructions ("[trimmed for fixture]")
    // in each of its 7 parts (MANIFEST's known defect); the custom_tool_call_output at
    // line 28 answers call id "[trimmed for fixture]", which no earlier item (nor the
    // replacement history of the compaction at line 26) holds.
    let expected: Vec<(&str, Vec<(String, u32)>)> = vec![
        ("agentsessions-codex-large.jsonl", vec![]),
        (
            "agentsessions-codex-small-all-event-types.jsonl",
            [many("orphan-tool-result", &[28]), many("duplicate-system-prompt", &[98; 7])].concat(),
        ),
        ("agentsessions-codex_050_legacy.jsonl", vec![]),
        ("cclog-synthetic-rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl", vec![]),
        ("ccusage-codex-token_count.jsonl", vec![]),
    ];
    check_folder("codex-rollout", &expected);
}

#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn claude_code_project_folder_with_subagents() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let session = tmp.path().join("-src-exp").join("29ccd257");
    std::fs::create_dir_all(session.join("subagents")).expect("mkdir");
    std::fs::copy(
        corpus.join("claude-code/cclog-real-v2.1.17-subagent-agent-a2271d1.jsonl"),
        session.join("subagents/agent-a2271d1.jsonl"),
    )
    .expect("copy");
    std::fs::copy(
        corpus.join("claude-code/cclog-real-v2.1.17-print-mode-94604a7b.jsonl"),
        tmp.path().join("-src-exp/29ccd257.jsonl"),
    )
    .expect("copy");
    std::fs::write(session.join("notes.txt"), "not a session").expect("write");
    let opts = CheckOptions { paths: vec![tmp.path().to_string_lossy().into_owned()], ..Default::default() };
    let report = ctxlint::check(&opts, &Config::default()).expect("check runs");
    assert!(report.errors.is_empty());
    assert_eq!(report.files.len(), 2, "each session file on its own: {:?}", report.files);
    assert!(report.files.iter().all(|f| f.format == ctxlint::formats::claude_code::ID));
    assert_eq!(report.skipped.len(), 1);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

/// The regression cases copied from `shared/cases` (same verdicts as `run_cases.py`).
#[test]
fn fixture_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
    for case in [
        "cc-12162-orphan-result",
        "cc-37437-retry-wrong-parent",
        "codex-24425-torn-rollout",
        "trap-cc-compact-boundary",
    ] {
        let dir = root.join(case);
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).expect("expected.json"))
                .expect("json");
        let opts = CheckOptions { paths: vec![dir.to_string_lossy().into_owned()], ..Default::default() };
        let report = ctxlint::check(&opts, &Config::default()).expect("check runs");
        assert!(report.errors.is_empty(), "{case}: {:?}", report.errors);
        let mut got: Vec<(String, String, u32, String)> = report
            .findings
            .iter()
            .map(|f| {
                let rel = Path::new(&f.path)
                    .strip_prefix(&dir)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| f.path.clone());
                (f.rule.name().to_string(), rel, f.line.unwrap_or(0), f.pointer.clone())
            })
            .collect();
        got.sort();
        let want = expected["findings"].as_array().expect("findings");
        assert_eq!(got.len(), want.len(), "{case}: {got:?}");
        for w in want {
            let found = got.iter().any(|g| {
                g.0 == w["rule"].as_str().unwrap_or("")
                    && g.1 == w["path"].as_str().unwrap_or("")
                    && w.get("line").and_then(|l| l.as_u64()).is_none_or(|l| u64::from(g.2) == l)
                    && w.get("pointer")
                        .and_then(|p| p.as_str())
                        .is_none_or(|p| g.3 == p || g.3.starts_with(&format!("{p}/")))
            });
            assert!(found, "{case}: expected {w} in {got:?}");
        }
    }
}
