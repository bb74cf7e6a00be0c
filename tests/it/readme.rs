//! The README's commands, run as printed: the two commands at its top, the
//! `ctxlint check` steps of its GitHub Actions job, and its pre-commit hook
//! (with the real `pre-commit`, which `.ci/run` installs from PyPI; elsewhere
//! the hook test is skipped loudly when `pre-commit` is not installed, and
//! fails under `CI`).

use crate::support::under_ci;
use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

/// The body of the first fenced block of `lang` after the text `after`.
fn block(text: &str, after: &str, lang: &str) -> String {
    let from = text.find(after).unwrap_or_else(|| panic!("README has no `{after}`"));
    let fence = format!("```{lang}\n");
    let start = text[from..].find(&fence).map(|k| from + k + fence.len()).expect("a fenced block");
    let end = text[start..].find("```").map(|k| start + k).expect("a closed block");
    text[start..end].to_string()
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ctxlint"))
}

/// The arguments of a `ctxlint …` command line (no quoting in the README's commands).
fn ctxlint_args(line: &str) -> Vec<String> {
    let line = line.split("   #").next().unwrap_or(line).trim();
    let rest = line.split_once("ctxlint ").map(|(_, r)| r).unwrap_or_else(|| panic!("not a ctxlint command: {line}"));
    rest.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_two_commands_at_the_top_are_the_main_job_and_the_tests_ci_runs() {
    let text = readme();
    let top = block(&text, "# ctxlint", "sh");
    let lines: Vec<&str> = top.lines().collect();
    assert_eq!(lines.len(), 2, "two commands: {top}");
    assert!(lines[0].starts_with("cargo build --release && ./target/release/ctxlint check "), "{}", lines[0]);
    assert_eq!(lines[1], "cargo test --release");
    // .ci/run runs exactly the README's test command, last.
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    let last = ci.lines().map(str::trim).rfind(|l| !l.is_empty() && !l.starts_with('#'));
    assert_eq!(last, Some(lines[1]), ".ci/run must end with the README's test command");
    // pre-commit goes into a virtual environment under target/, never the machine's Python.
    assert!(!ci.contains("python3 -m pip install") && ci.contains("python3 -m venv target/tools-venv"), "{ci}");

    // The main job, from the project root as printed, on the real session in examples/
    // (nothing beside the repository needed): what the README says it finds.
    let args = ctxlint_args(lines[0].split("&& ").nth(1).expect("the check command"));
    assert_eq!(args, ["check", "examples/openclaw-session.jsonl"]);
    let out = Command::new(bin()).current_dir(root()).args(&args).args(["--output-format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "findings: exit 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let got: Vec<(String, u64, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["severity"].as_str().unwrap().into(),
            )
        })
        .collect();
    let dup = |line| ("duplicate-user-turn".to_string(), line, "error".to_string());
    assert_eq!(got, vec![dup(11), dup(26)]);
    assert!(text.contains("written again at line 11 and again at line 26"), "README says so");
    // examples/SOURCES.md names the source, its commit and licence, and the same findings.
    let sources = std::fs::read_to_string(root().join("examples/SOURCES.md")).unwrap();
    assert!(sources.contains("017d76e850429e2f7548e643efff11ec500eec8e") && sources.contains("licence: MIT"));
    assert!(sources.contains("| 11 | `duplicate-user-turn`") && sources.contains("| 26 | `duplicate-user-turn`"));
    assert!(root().join("examples/LICENSE-openclaw.txt").exists());
    // And as printed (human output): both findings.
    let human = Command::new(bin()).current_dir(root()).args(&args).env("NO_COLOR", "1").output().unwrap();
    let s = String::from_utf8_lossy(&human.stdout);
    assert!(
        s.contains("examples/openclaw-session.jsonl:11:") && s.contains("examples/openclaw-session.jsonl:26:"),
        "{s}"
    );
}

/// The HTML section's command, run as printed from the project root (its
/// `-o` redirected into a temporary folder): one page, the screenshots it
/// shows present.
#[test]
fn the_html_report_command_writes_the_page_the_readme_shows() {
    let text = readme();
    let cmd = block(&text, "## The HTML triage report", "sh");
    let mut args = ctxlint_args(cmd.lines().next().unwrap());
    let o = args.iter().position(|a| a == "-o").expect("-o FILE");
    assert_eq!(args[o + 1], "report.html");
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report.html");
    args[o + 1] = out.display().to_string();
    let run = Command::new(bin()).current_dir(root()).args(&args).output().unwrap();
    assert_eq!(run.status.code(), Some(1), "findings: exit 1: {}", String::from_utf8_lossy(&run.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!doctype html>") && html.contains("fixtures/report/mixed-session.jsonl"));
    for png in ["docs/report-session.png", "docs/report-stream.png"] {
        assert!(text.contains(&format!("]({png})")), "README shows {png}");
        let bytes = std::fs::read(root().join(png)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000, "{png}");
    }
}

/// A project with one defective transcript, a note beside it that matches no
/// format, and the files a repository also holds (`package.json`,
/// `.pre-commit-config.yaml`).
fn project(dir: &Path, hook: &str) {
    let put = |rel: &str, body: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put("package.json", "{\"name\": \"agent\", \"version\": \"1.0.0\"}\n");
    put(".pre-commit-config.yaml", hook);
    let case = root().join("fixtures/cases/cc-12162-orphan-result/session.jsonl");
    put("transcripts/session.jsonl", &std::fs::read_to_string(case).unwrap());
    // A file beside the transcripts that matches no format.
    put("transcripts/notes.json", "{\"note\": \"see the runbook\"}\n");
}

#[test]
fn the_ci_job_writes_sarif_then_fails_on_the_finding() {
    let text = readme();
    let job = block(&text, "## In CI", "yaml");
    let runs: Vec<&str> = job.lines().filter_map(|l| l.trim().strip_prefix("- run: ctxlint ")).collect();
    assert_eq!(runs.len(), 2, "{job}");
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "repos: []\n");
    // Step 1: SARIF for the upload step, exit 0 whatever is found.
    let a = ctxlint_args(&format!("ctxlint {}", runs[0]));
    let out = Command::new(bin()).current_dir(dir.path()).args(&a).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ctxlint.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "CTX302");
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "transcripts/session.jsonl");
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(loc["region"]["startLine"], 3);
    // Step 2: annotations, and the job fails.
    let b = ctxlint_args(&format!("ctxlint {}", runs[1]));
    let out = Command::new(bin()).current_dir(dir.path()).args(&b).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(s.lines().filter(|l| l.starts_with("::error ")).count(), 1, "{s}");
    assert!(s.contains("file=transcripts/session.jsonl,line=3"), "{s}");
}

/// `pre-commit` on PATH, else `python3 -m pre_commit` when importable.
fn pre_commit() -> Option<Vec<String>> {
    let ok =
        |cmd: &[&str]| std::process::Command::new(cmd[0]).args(&cmd[1..]).output().is_ok_and(|o| o.status.success());
    if ok(&["pre-commit", "--version"]) {
        return Some(vec!["pre-commit".into()]);
    }
    if ok(&["python3", "-m", "pre_commit", "--version"]) {
        return Some(vec!["python3".into(), "-m".into(), "pre_commit".into()]);
    }
    None
}

/// Runs `pre-commit` in a new git repository holding [`project`] and the
/// hook configuration `hook`, with `path` as `PATH`: first for a change to
/// `package.json` alone (the hook is skipped), then for every file (the hook
/// fails on the one defect and warns about the file that matches no format).
fn hook_reports_the_one_defect(pc: &[String], hook: &str, path: &str, env: &[(&str, &Path)]) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    project(&repo, hook);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    // pre-commit's cache in the temporary folder.
    let run = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&pc[0]);
        cmd.args(&pc[1..])
            .args(["run", "--color", "never"])
            .args(args)
            .current_dir(&repo)
            .env("PATH", path)
            .env("PRE_COMMIT_HOME", dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_GLOBAL", dir.path().join("gitconfig"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("pre-commit runs")
    };
    // A change to package.json alone: the hook is skipped, the commit goes through.
    let only = run(&["--files", "package.json"]);
    let s = String::from_utf8_lossy(&only.stdout);
    assert_eq!(only.status.code(), Some(0), "{s}{}", String::from_utf8_lossy(&only.stderr));
    assert!(s.contains("Skipped"), "{s}");
    let out = run(&["--all-files"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the hook fails on the finding: {s}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(s.contains("ctxlint") && s.contains("Failed"), "{s}");
    assert!(!s.contains("not found"), "{s}");
    // Exactly the one defect, at its line; the other files skipped with a warning, not an error.
    let findings: Vec<&str> = s.lines().filter(|l| l.contains("CTX")).collect();
    assert_eq!(findings.len(), 1, "{s}");
    assert!(findings[0].starts_with("transcripts/session.jsonl:3:"), "{}", findings[0]);
    assert!(findings[0].contains("CTX302"), "{}", findings[0]);
    assert!(
        s.contains("ctxlint: warning: transcripts/notes.json: matches no input format; skipped"),
        "the skipped file is named: {s}"
    );
    assert!(!s.contains("exit code: 2"), "{s}");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=ctxlint", "-c", "user.email=ctxlint@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git");
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// `PATH` with the `ctxlint` just built first, as `language: system` expects.
fn path_with_ctxlint() -> String {
    format!("{}:{}", bin().parent().unwrap().display(), std::env::var("PATH").unwrap_or_default())
}

/// A git repository in `dir` holding `files` (paths relative to the project
/// root) as one commit: a local clone of ctxlint for `repo:`. Returns the commit.
fn hook_repository(dir: &Path, files: &[String]) -> String {
    for f in files {
        let to = dir.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join(f), &to).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "ctxlint"]);
    git(dir, &["rev-parse", "HEAD"])
}

/// The README's `repo:`/`rev:` configuration, pointed at `repo` and `rev`, with hook `id`.
fn remote_hook_config(repo: &Path, rev: &str, id: &str) -> String {
    let text = readme();
    let hook = block(&text, "A pre-commit hook", "yaml");
    assert!(hook.contains("repo: https://github.com/ctxlint/ctxlint") && hook.contains("- id: ctxlint\n"), "{hook}");
    hook.replace("https://github.com/ctxlint/ctxlint", &repo.display().to_string())
        .replace("rev: v0.1.0", &format!("rev: {rev}"))
        .replace("- id: ctxlint\n", &format!("- id: {id}\n"))
}

#[test]
fn the_hooks_of_pre_commit_hooks_yaml_are_what_the_readme_names() {
    let manifest = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: serde_json::Value = serde_saphyr::from_str(&manifest).unwrap();
    let hooks = hooks.as_array().unwrap();
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ctxlint", "ctxlint-system"]);
    let lang: Vec<&str> = hooks.iter().map(|h| h["language"].as_str().unwrap()).collect();
    assert_eq!(lang, ["rust", "system"]);
    for h in hooks {
        assert_eq!(h["entry"], "ctxlint check");
        assert_eq!(h["pass_filenames"], false);
        assert_eq!(h["args"], serde_json::json!(["."]));
    }
    let text = readme();
    assert!(
        text.contains("`cargo install --locked --path .`") && text.contains("`pip install\n./python`"),
        "README says how to put ctxlint on PATH"
    );
}

#[test]
#[cfg_attr(ctxlint_no_pre_commit, ignore = "needs pre-commit (pip install pre-commit)")]
fn the_local_pre_commit_hook_reports_the_one_defect_and_skips_the_other_files() {
    let Some(pc) = pre_commit() else {
        assert!(!under_ci(), "pre-commit is not installed: .ci/run installs it from PyPI");
        eprintln!(
            "\n*** SKIPPED: pre-commit is not installed (pip install pre-commit) — the README's hook was not run. ***\n"
        );
        return;
    };
    let text = readme();
    let hook = block(&text, "as does a local hook", "yaml");
    assert!(hook.contains("repo: local"), "{hook}");
    hook_reports_the_one_defect(&pc, &hook, &path_with_ctxlint(), &[]);
}

/// The README's `repo:`/`rev:` configuration, with the `ctxlint-system` hook of
/// `.pre-commit-hooks.yaml`, from a local repository holding it.
#[test]
#[cfg_attr(ctxlint_no_pre_commit, ignore = "needs pre-commit (pip install pre-commit)")]
fn the_system_hook_of_the_repository_reports_the_one_defect() {
    let Some(pc) = pre_commit() else {
        assert!(!under_ci(), "pre-commit is not installed: .ci/run installs it from PyPI");
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let rev = hook_repository(d.path(), &[".pre-commit-hooks.yaml".to_string()]);
    let hook = remote_hook_config(d.path(), &rev, "ctxlint-system");
    hook_reports_the_one_defect(&pc, &hook, &path_with_ctxlint(), &[]);
    // Without ctxlint on PATH, pre-commit says so (what the README warns about).
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), &hook);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    let out = std::process::Command::new(&pc[0])
        .args(&pc[1..])
        .args(["run", "--color", "never", "--all-files"])
        .current_dir(dir.path())
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("PRE_COMMIT_HOME", dir.path().join(".cache"))
        .env("GIT_CONFIG_GLOBAL", dir.path().join(".gitconfig"))
        .output()
        .unwrap();
    if !std::env::var("PATH").unwrap_or_default().split(':').any(|p| Path::new(p).join("ctxlint").exists()) {
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(s.contains("Executable `ctxlint` not found"), "{s}");
    }
}

/// The README's `repo:`/`rev:` configuration as printed (hook `ctxlint`,
/// `language: rust`), from a local clone of this repository: pre-commit
/// builds ctxlint with `cargo install --path .` and runs it. A full release
/// build (minutes), so it runs under `CI` or with `--include-ignored`.
#[test]
#[cfg_attr(not(ctxlint_ci), ignore = "builds ctxlint again with cargo install (minutes); runs under CI")]
fn the_rust_hook_of_the_repository_builds_ctxlint_and_reports_the_one_defect() {
    let Some(pc) = pre_commit() else {
        panic!("pre-commit is not installed: .ci/run installs it from PyPI");
    };
    let listed = git(root(), &["ls-files", "-co", "--exclude-standard"]);
    let files: Vec<String> = listed.lines().filter(|f| root().join(f).is_file()).map(str::to_string).collect();
    let d = tempfile::tempdir().unwrap();
    let rev = hook_repository(d.path(), &files);
    let hook = remote_hook_config(d.path(), &rev, "ctxlint");
    // cargo's build folder kept under target/ between runs; the crates from Cargo.lock's versions.
    let target = root().join("target/pre-commit-cargo");
    hook_reports_the_one_defect(
        &pc,
        &hook,
        &std::env::var("PATH").unwrap_or_default(),
        &[("CARGO_TARGET_DIR", &target)],
    );
}

#[test]
fn the_rule_table_lists_every_rule_with_its_default_severity() {
    let text = readme();
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| l.starts_with("| CTX"))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect();
    assert_eq!(rows.len(), ctxlint::rules::RuleId::ALL.len());
    for (row, id) in rows.iter().zip(ctxlint::rules::RuleId::ALL) {
        let m = ctxlint::rules::meta(id);
        assert_eq!(row[0], m.code);
        assert_eq!(row[1], format!("`{}`", m.name));
        let sev = match m.default_severity {
            ctxlint::Severity::Error => "error",
            ctxlint::Severity::Warning => "warning",
        };
        assert!(row[2] == sev || row[2].starts_with(&format!("{sev}; a ")), "{}: {}", m.code, row[2]);
    }
}

#[test]
fn every_promise_names_the_tests_that_prove_it_and_they_exist() {
    // "What ctxlint promises": each promise ends with *Proved by* and the
    // tests that prove it (`file::name` in tests/it, or `module::tests::name`
    // of a unit test in src); each named test exists.
    let text = readme();
    let from = text.find("### What ctxlint promises").expect("the promises section");
    let to = from + text[from..].find("\n### Limits").expect("the section after it");
    let section = &text[from..to];
    let promises: Vec<&str> = section.split("\n- **").skip(1).collect();
    assert!(promises.len() >= 8, "{}", promises.len());
    for p in &promises {
        let (head, proof) = p.split_once("*Proved by*").unwrap_or_else(|| panic!("no *Proved by* in: {p}"));
        let proof = proof.split("\n\n").next().unwrap_or(proof);
        let names: Vec<&str> = proof.split('`').skip(1).step_by(2).collect();
        assert!(!names.is_empty(), "{head}");
        for name in names {
            let parts: Vec<&str> = name.split("::").collect();
            let (file, func) = match parts.as_slice() {
                [file, func] => (root().join("tests/it").join(format!("{file}.rs")), *func),
                [path @ .., "tests", func] => {
                    (root().join("crates/ctxlint-core/src").join(format!("{}.rs", path.join("/"))), *func)
                }
                _ => panic!("not a test name: {name}"),
            };
            let src = std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("{name}: no {}", file.display()));
            assert!(src.contains(&format!("fn {func}(")), "{name}: no such test in {}", file.display());
        }
    }
}

#[test]
fn check_help_and_readme_name_the_same_default_scan_folders() {
    // Issue 33 trial: `check --help` and README named different folders.
    let out = std::process::Command::new(bin()).args(["check", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let readme = readme();
    for folder in [
        "~/.openclaw/agents/*/sessions",
        "~/.pi/agent/sessions",
        "~/.claude/projects",
        "~/.codex/sessions",
        "~/.gemini/tmp/*/chats",
        "~/.gemini/tmp/*/checkpoint-*.json",
        "~/.qwen/projects/*/chats",
        "~/.copilot/session-state/*/events.jsonl",
        "~/.copilot/session-state/*.jsonl",
        "~/.cline/data",
        "opencode/opencode.db",
        "kilo/kilo.db",
        "opencode/storage/session",
        "$CLAUDE_CONFIG_DIR",
        "$CODEX_HOME",
        "$GEMINI_CLI_HOME",
        "$QWEN_HOME",
        "$COPILOT_HOME",
        "$XDG_DATA_HOME",
    ] {
        assert!(help.contains(folder), "check --help does not name {folder}");
        assert!(readme.contains(folder), "README does not name {folder}");
    }
}

#[test]
fn the_actions_workflow_is_whole_and_skips_the_sarif_upload_on_forks() {
    let text = readme();
    let from = text.find("```yaml\nname: ctxlint").expect("README shows a whole workflow");
    let block = &text[from + 8..];
    let block = &block[..block.find("```").unwrap()];
    let v: serde_json::Value = serde_saphyr::from_str(block).expect("the workflow is YAML");
    assert!(v["on"]["pull_request"].is_null() && v["on"].get("pull_request").is_some(), "{v}");
    let steps = v["jobs"]["ctxlint"]["steps"].as_array().unwrap();
    let upload = steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.contains("upload-sarif"))).unwrap();
    assert!(upload["if"].as_str().is_some_and(|c| c.contains("head.repo.full_name == github.repository")), "{upload}");
    assert!(steps.last().unwrap()["run"].as_str().unwrap().contains("--output-format github"));
}

/// `docs/spec.md` (the product contract the code and docs cite) is the text
/// of `../shared/SPEC.md` under its three-line header comment.
#[test]
#[cfg_attr(ctxlint_no_shared, ignore = "needs ../shared (the real corpus and cases) beside the repository")]
fn docs_spec_is_the_shared_contract() {
    let Some(shared) = crate::shared::path("SPEC.md") else { return };
    let ours = std::fs::read_to_string(crate::support::root().join("docs/spec.md")).unwrap();
    let body = ours.split_once("-->\n\n").map(|(_, b)| b).expect("docs/spec.md starts with its header comment");
    assert!(
        body == std::fs::read_to_string(shared).unwrap(),
        "docs/spec.md differs from ../shared/SPEC.md: copy it again (keep the header comment)"
    );
}
