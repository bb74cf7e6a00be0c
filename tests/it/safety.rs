//! The promises of README "What ctxlint promises" (issue 15, data loss and
//! panics): an output that is or lies inside an input is refused before
//! anything is read or written; reports are written atomically; `repro`
//! writes nothing beside its inputs, never through a link out of its folder,
//! and `--force` empties only its own case directories; special and huge
//! configuration and baseline files are refused; worker threads fall back to
//! fewer; control characters in file names are escaped; an empty
//! `--select` is a usage error.

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn ctxlint() -> Command {
    let mut c = crate::support::ctxlint();
    c.timeout(Duration::from_secs(60));
    c
}

/// A pi session whose last line is torn: one `malformed-line` finding at line 12.
fn session() -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut b = std::fs::read(root.join("fixtures/kinds/oc-heartbeat-polls-recurring/session.jsonl")).unwrap();
    b.extend_from_slice(b"{\"type\":\"message\"\n");
    b
}

/// Every file under `dir` (relative path → bytes), links as `-> target`.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let md = std::fs::symlink_metadata(&p).unwrap();
            if md.file_type().is_symlink() {
                out.insert(rel, format!("-> {}", std::fs::read_link(&p).unwrap().display()).into_bytes());
            } else if md.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn run(cmd: &mut Command) -> (Option<i32>, String, String) {
    let o = cmd.output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A folder holding `x.jsonl` (the session), as the working directory.
fn workdir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("x.jsonl"), session()).unwrap();
    d
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let d = workdir();
    #[cfg(unix)]
    std::os::unix::fs::symlink("x.jsonl", d.path().join("link.jsonl")).unwrap();
    std::fs::hard_link(d.path().join("x.jsonl"), d.path().join("hard.jsonl")).unwrap();
    std::fs::copy(d.path().join("x.jsonl"), d.path().join("new.jsonl")).unwrap();
    let before = tree(d.path());
    let cases: &[(&[&str], &str)] = &[
        (
            &["check", "x.jsonl", "-o", "x.jsonl"],
            "ctxlint: error: -o x.jsonl: is the input x.jsonl; ctxlint never writes to its inputs: choose another path\n",
        ),
        (
            &["check", "x.jsonl", "-o", "./x.jsonl", "--output-format", "sarif"],
            "ctxlint: error: -o ./x.jsonl: is the input x.jsonl; ctxlint never writes to its inputs: choose another path\n",
        ),
        #[cfg(unix)]
        (
            &["check", "x.jsonl", "-o", "link.jsonl"],
            "ctxlint: error: -o link.jsonl: is the input x.jsonl (through a link); ctxlint never writes to its inputs: choose another path\n",
        ),
        (
            &["check", "x.jsonl", "-o", "hard.jsonl"],
            "ctxlint: error: -o hard.jsonl: is the input x.jsonl (a hard link to it); ctxlint never writes to its inputs: choose another path\n",
        ),
        (
            &["check", "x.jsonl", "--write-baseline", "x.jsonl"],
            "ctxlint: error: --write-baseline x.jsonl: is the input x.jsonl; ctxlint never writes to its inputs: choose another path\n",
        ),
        (
            &["fence", "x.jsonl", "new.jsonl", "-o", "new.jsonl"],
            "ctxlint: error: -o new.jsonl: is the input new.jsonl; ctxlint never writes to its inputs: choose another path\n",
        ),
        (
            &["show", "x.jsonl", "-o", "x.jsonl"],
            "ctxlint: error: -o x.jsonl: is the input x.jsonl; ctxlint never writes to its inputs: choose another path\n",
        ),
        (
            &["diff", "x.jsonl", "new.jsonl", "-o", "new.jsonl"],
            "ctxlint: error: -o new.jsonl: is the input new.jsonl; ctxlint never writes to its inputs: choose another path\n",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args(*args));
        assert_eq!((code, out.as_str(), err.as_str()), (Some(2), "", *want), "{args:?}");
        assert_eq!(tree(d.path()), before, "{args:?} changed the folder");
    }
}

#[test]
fn an_output_inside_a_walked_folder_is_written_and_never_read_as_an_input() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("sessions/a")).unwrap();
    std::fs::write(d.path().join("sessions/a/x.jsonl"), session()).unwrap();
    std::fs::create_dir(d.path().join("reports")).unwrap();
    let before = tree(d.path());
    // What CI jobs write (docs/spec.md §4): `check . -o report.sarif`, twice in a row. The second
    // run neither reads the first's report nor lists it as skipped: one input, one finding.
    for round in 0..2 {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args([
            "check",
            ".",
            "-o",
            "report.sarif",
            "--output-format",
            "sarif",
            "--strict",
        ]));
        assert_eq!((code, out.as_str(), err.as_str()), (Some(1), "", ""), "round {round}");
        let sarif: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.path().join("report.sarif")).unwrap()).unwrap();
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "round {round}: {results:?}");
        assert_eq!(results[0]["ruleId"], "CTX403");
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "sessions/a/x.jsonl",
            "round {round}"
        );
    }
    // The files it would check: the session only, the report neither an input nor skipped.
    let (code, out, _) =
        run(ctxlint().current_dir(d.path()).args(["check", ".", "-o", "report.sarif", "--show-files"]));
    assert_eq!(code, Some(0));
    assert!(out.contains("sessions/a/x.jsonl") && !out.contains("report.sarif"), "{out}");
    // Deep inside the walked folder, with JSON: the same, twice.
    for _ in 0..2 {
        let (code, _, err) = run(ctxlint().current_dir(d.path()).args([
            "check",
            "sessions",
            "-o",
            "sessions/a/r.json",
            "--output-format",
            "json",
        ]));
        assert_eq!((code, err.as_str()), (Some(1), ""));
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.path().join("sessions/a/r.json")).unwrap()).unwrap();
        assert_eq!(v["summary"]["files"], 1);
        assert_eq!(v["summary"]["skipped"], 0);
        assert_eq!(v["skipped"], serde_json::json!([]));
    }
    // (The report of an earlier run with another -o is another matter: ctxlint's own
    // reports are recognised by content in input discovery, not here.)
    std::fs::remove_file(d.path().join("sessions/a/r.json")).unwrap();
    // A baseline written inside the folder checked, then read from it: never an input.
    for args in [&["--write-baseline", "sessions/b.json"][..], &["--baseline", "sessions/b.json", "--strict"][..]] {
        let (code, _, err) = run(ctxlint().current_dir(d.path()).args(["check", "sessions"]).args(args));
        assert!(!err.contains("b.json: matches no"), "{err}");
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
    for f in ["report.sarif", "sessions/b.json"] {
        std::fs::remove_file(d.path().join(f)).unwrap();
    }
    // Named as an input, the report is refused.
    let (code, _, err) = run(ctxlint().current_dir(d.path()).args([
        "check",
        "sessions",
        "sessions/a/x.jsonl",
        "-o",
        "sessions/a/x.jsonl",
    ]));
    assert_eq!(
        (code, err.as_str()),
        (
            Some(2),
            "ctxlint: error: -o sessions/a/x.jsonl: is the input sessions/a/x.jsonl; ctxlint never writes to its inputs: choose another path\n"
        )
    );
    // A configuration named with --config is an input too.
    std::fs::write(d.path().join("ctxlint.toml"), "").unwrap();
    let (code, _, err) = run(ctxlint().current_dir(d.path()).args([
        "check",
        "sessions",
        "--config",
        "ctxlint.toml",
        "-o",
        "ctxlint.toml",
    ]));
    assert_eq!(
        (code, err.as_str()),
        (
            Some(2),
            "ctxlint: error: -o ctxlint.toml: is the input ctxlint.toml; ctxlint never writes to its inputs: choose another path\n"
        )
    );
    std::fs::remove_file(d.path().join("ctxlint.toml")).unwrap();
    assert_eq!(tree(d.path()), before);
    // Beside the folder: written, and nothing else left behind.
    let (code, _, _) = run(ctxlint().current_dir(d.path()).args([
        "check",
        "sessions",
        "-o",
        "reports/x.sarif",
        "--output-format",
        "sarif",
    ]));
    assert_eq!(code, Some(1));
    let mut after = tree(d.path());
    let sarif = after.remove("reports/x.sarif").expect("the report");
    assert!(serde_json::from_slice::<serde_json::Value>(&sarif).unwrap()["runs"].is_array());
    assert_eq!(after, before, "only the report was added");
}

#[test]
fn a_failed_run_leaves_the_old_report_and_no_temporary_file() {
    let d = workdir();
    std::fs::write(d.path().join("out.txt"), "the old report\n").unwrap();
    let before = tree(d.path());
    // `show --step` of a step that does not exist fails after the output was opened.
    let (code, out, err) =
        run(ctxlint().current_dir(d.path()).args(["show", "x.jsonl", "--step", "999", "-o", "out.txt"]));
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert_eq!(tree(d.path()), before);
    // A report into a missing folder: the operating system's error, no temporary file named.
    let (code, _, err) = run(ctxlint().current_dir(d.path()).args(["check", "x.jsonl", "-o", "no/such/r.txt"]));
    assert_eq!(
        (code, err.as_str()),
        (Some(2), "ctxlint: error: no/such/r.txt: No such file or directory (os error 2)\n")
    );
    // A successful run replaces the report whole.
    let (code, _, _) =
        run(ctxlint().current_dir(d.path()).args(["check", "x.jsonl", "-o", "out.txt", "--output-format", "concise"]));
    assert_eq!(code, Some(1));
    let mut after = tree(d.path());
    let report = String::from_utf8(after.remove("out.txt").unwrap()).unwrap();
    assert!(report.starts_with("x.jsonl:12:1: CTX403 [error] "), "{report}");
    let mut rest = before.clone();
    rest.remove("out.txt");
    assert_eq!(after, rest);
    // `-o /dev/null` is written in place, never replaced.
    #[cfg(unix)]
    {
        let (code, _, err) = run(ctxlint().current_dir(d.path()).args(["check", "x.jsonl", "-o", "/dev/null"]));
        assert_eq!((code, err.as_str()), (Some(1), ""));
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }
}

#[test]
fn repro_writes_nothing_beside_a_file_input() {
    let d = workdir();
    let before = tree(d.path());
    let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["repro", "x.jsonl", "-o", "cases"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            Some(2),
            "",
            "ctxlint: error: -o cases: lies inside the folder of the input x.jsonl (nothing is written beside the inputs); choose a path outside it\n"
        )
    );
    assert_eq!(tree(d.path()), before);
}

#[cfg(unix)]
#[test]
fn repro_refuses_a_case_directory_that_links_outside() {
    let d = workdir();
    let out = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), out.path().join("malformed-line-1")).unwrap();
    let (code, stdout, err) = run(ctxlint().arg("repro").arg(d.path().join("x.jsonl")).arg("-o").arg(out.path()));
    let link = out.path().join("malformed-line-1");
    assert_eq!(
        (code, stdout.as_str(), err.lines().last().unwrap_or("")),
        (
            Some(2),
            "",
            format!(
                "ctxlint: error: the case directory {} is a link to {}, outside {}: refusing to write through it",
                link.display(),
                elsewhere.path().canonicalize().unwrap().display(),
                out.path().display()
            )
            .as_str()
        )
    );
    assert!(tree(elsewhere.path()).is_empty(), "nothing written through the link");
    // With --force too.
    let (code, _, _) =
        run(ctxlint().arg("repro").arg(d.path().join("x.jsonl")).arg("--force").arg("-o").arg(out.path()));
    assert_eq!(code, Some(2));
    assert!(tree(elsewhere.path()).is_empty());
}

#[test]
fn repro_force_replaces_only_its_own_case_directories() {
    let d = workdir();
    let out = tempfile::tempdir().unwrap();
    let repro = |force: bool| {
        let mut c = ctxlint();
        c.arg("repro").arg(d.path().join("x.jsonl")).arg("-o").arg(out.path());
        if force {
            c.arg("--force");
        }
        let (code, _, err) = run(&mut c);
        assert_eq!(code, Some(0), "{err}");
    };
    repro(false);
    let first = tree(out.path());
    let names: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "malformed-line-1/",
            "malformed-line-1/case.md",
            "malformed-line-1/expected.json",
            "malformed-line-1/session.jsonl"
        ]
    );
    // --force on a case directory holding only its own files: replaced in place.
    repro(true);
    assert_eq!(tree(out.path()), first);
    // A file of someone else's in it: that directory is left whole, the next number used.
    std::fs::write(out.path().join("malformed-line-1/notes.txt"), "mine\n").unwrap();
    let with_notes = tree(out.path());
    repro(true);
    let after = tree(out.path());
    for (k, v) in &with_notes {
        assert_eq!(after.get(k), Some(v), "{k} kept");
    }
    let added: Vec<&str> = after.keys().filter(|k| !with_notes.contains_key(*k)).map(String::as_str).collect();
    assert_eq!(
        added,
        [
            "malformed-line-2/",
            "malformed-line-2/case.md",
            "malformed-line-2/expected.json",
            "malformed-line-2/session.jsonl"
        ]
    );
}

#[cfg(unix)]
#[test]
fn special_and_huge_configuration_and_baseline_files_are_refused() {
    let d = workdir();
    let fifo = d.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let huge_config = d.path().join("huge.toml");
    std::fs::File::create(&huge_config).unwrap().set_len((16 << 20) + 1).unwrap();
    let huge_baseline = d.path().join("huge.json");
    std::fs::File::create(&huge_baseline).unwrap().set_len((256 << 20) + 1).unwrap();
    let not_regular = "not a regular file (FIFO, socket or device)";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["check", "x.jsonl", "--config", "/dev/zero"], format!("ctxlint: error: /dev/zero: {not_regular}\n")),
        (vec!["check", "x.jsonl", "--config", "fifo"], format!("ctxlint: error: fifo: {not_regular}\n")),
        (vec!["check", "x.jsonl", "--baseline", "/dev/zero", "-q"], format!("ctxlint: error: /dev/zero: {not_regular}\n")),
        (vec!["check", "x.jsonl", "--baseline", "fifo", "-q"], format!("ctxlint: error: fifo: {not_regular}\n")),
        (vec!["fence", "x.jsonl", "x.jsonl", "--config", "fifo"], format!("ctxlint: error: fifo: {not_regular}\n")),
        (
            vec!["check", "x.jsonl", "--config", "huge.toml"],
            "ctxlint: error: huge.toml: the configuration file is 16777217 bytes, more than the 16 MiB a configuration file may hold\n".into(),
        ),
        (
            vec!["check", "x.jsonl", "--baseline", "huge.json", "-q"],
            "ctxlint: error: huge.json: the baseline is 268435457 bytes, more than the 256 MiB a baseline may hold\n".into(),
        ),
    ];
    for (args, want) in cases {
        let started = std::time::Instant::now();
        let (code, _, err) = run(ctxlint().current_dir(d.path()).args(&args));
        assert_eq!((code, err.as_str()), (Some(2), want.as_str()), "{args:?}");
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", started.elapsed());
    }
}

#[test]
fn control_characters_in_file_names_are_escaped() {
    let d = tempfile::tempdir().unwrap();
    let name = "a\u{1b}[31mb.jsonl";
    std::fs::write(d.path().join(name), session()).unwrap();
    for format in ["full", "concise", "grouped"] {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["check", name, "--output-format", format]));
        assert_eq!(code, Some(1), "{format}: {err}");
        assert!(!out.contains('\u{1b}') && !err.contains('\u{1b}'), "{format}: {out:?}");
        assert!(out.contains("a\\u{1b}[31mb.jsonl"), "{format}: {out}");
    }
    // JSON keeps the name as it is (escaped by JSON itself).
    let (_, out, _) = run(ctxlint().current_dir(d.path()).args(["check", name, "--output-format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"][0]["path"], name);
    // Error messages too.
    let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["check", "m\u{1b}]0;x\u{7}.jsonl"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            Some(2),
            "No findings in 0 inputs, 1 not checked (error below).\n",
            "ctxlint: error: m\\u{1b}]0;x\\u{7}.jsonl: No such file or directory (os error 2)\n"
        )
    );
}

#[test]
fn an_empty_rule_selection_is_a_usage_error() {
    let d = workdir();
    let want = "ctxlint: error: --select: the selection is empty; name rules, codes, code prefixes (CTX1) or ALL\n";
    for sel in ["--select=", "--select= ", "--select=,"] {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["check", "x.jsonl", sel]));
        assert_eq!((code, out.as_str(), err.as_str()), (Some(2), "", want), "{sel:?}");
    }
    // An empty --ignore ignores nothing (a CI variable left empty): every rule still runs.
    let (code, out, _) =
        run(ctxlint().current_dir(d.path()).args(["check", "x.jsonl", "--ignore=", "--output-format", "concise"]));
    assert_eq!(code, Some(1));
    assert!(out.starts_with("x.jsonl:12:1: CTX403 [error] "), "{out}");
}

#[test]
fn a_huge_thread_count_is_capped() {
    let d = workdir();
    for j in ["100000", "0", "1"] {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args([
            "check",
            "-j",
            j,
            "x.jsonl",
            "--output-format",
            "concise",
            "-q",
        ]));
        assert_eq!(code, Some(1), "-j {j}: {err}");
        assert!(out.starts_with("x.jsonl:12:1: CTX403 [error] "), "-j {j}: {out}");
        assert!(!err.contains("internal error"), "-j {j}: {err}");
    }
}

/// Under a process limit of 1 no worker thread can be started: the run goes
/// on in the calling thread (it exited 101, "The global thread pool has not
/// been initialized", before). RLIMIT_NPROC does not bind root, so as root
/// the binary runs as `nobody` (setpriv); without prlimit the test says so.
#[cfg(target_os = "linux")]
#[test]
fn threads_fall_back_to_the_calling_thread_under_a_process_limit() {
    let has = |tool: &str| std::process::Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !has("prlimit") {
        eprintln!("skipped: prlimit is not installed");
        return;
    }
    let root = std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if root && !has("setpriv") {
        eprintln!("skipped: running as root and setpriv is not installed");
        return;
    }
    let d = workdir();
    // Readable by `nobody`.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(d.path().join("x.jsonl"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("ctxlint");
    // `fence` hashes on a second thread when asked (JSON): on this one when none starts.
    let fence = &["fence", "x.jsonl", "x.jsonl", "--output-format", "json"][..];
    for args in [&["check", "x.jsonl"][..], &["check", "-j", "100000", "."], &["show", "x.jsonl"], fence] {
        let mut c = if root {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "prlimit", "--nproc=1", "--"]);
            c
        } else {
            let mut c = std::process::Command::new("prlimit");
            c.args(["--nproc=1", "--"]);
            c
        };
        let o = c.arg(&bin).args(args).arg("--color=never").current_dir(d.path()).output().unwrap();
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(!err.contains("internal error"), "{args:?}: {err}");
        let want = if args[0] == "check" { 1 } else { 0 };
        assert_eq!(o.status.code(), Some(want), "{args:?}: {out}\n{err}");
        if args[0] == "fence" {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["verdict"], "identical", "{out}");
            continue;
        }
        let warning = err.lines().next().unwrap_or("");
        assert!(
            warning.starts_with("ctxlint: warning: could not start ")
                && warning.ends_with("; using this thread alone")
                && warning.contains("Resource temporarily unavailable"),
            "{args:?}: {err}"
        );
        if args[0] == "check" {
            assert!(out.contains("x.jsonl:12:1: CTX403 malformed-line [error]"), "{args:?}: {out}");
        }
    }
}

#[test]
fn a_file_name_or_an_id_cannot_forge_a_ci_log_line_or_drive_the_terminal() {
    // Issue 32: a newline in a file name was printed raw in the skipped
    // warning, -v, --show-files and the unknown-format error, so a file named
    // `x\n::error file=a::pwned` injected a GitHub workflow command; ESC/BEL
    // reached `file=` of the github format; ids and tool names from the input
    // reached finding messages raw.
    let d = tempfile::tempdir().unwrap();
    let forged = "x\n::error file=a::pwned.json";
    std::fs::write(d.path().join(forged), b"{\"hello\": 1}").unwrap();
    let bell = "b\u{7}\u{1b}]0;t\u{7}.jsonl";
    std::fs::write(d.path().join(bell), session()).unwrap();
    // A tool-result id holding ESC and CR, answering no call.
    let s = concat!(
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"go"}]}}"#,
        "\n",
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"x1","name":"r\u001b[2Jm","arguments":{}}],"stopReason":"toolUse"}}"#,
        "\n",
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c\u001b]8;;http://e\u0007\r1","toolName":"r\u001b[2Jm","content":[{"type":"text","text":"next"}]}}"#,
        "\n",
        r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop"}}"#,
        "\n"
    );
    std::fs::write(d.path().join("ids.jsonl"), s).unwrap();
    let forged_line = |t: &str| t.lines().any(|l| l.trim_start().starts_with("::error file=a"));
    for args in [
        vec!["check", "."],
        vec!["check", ".", "-v"],
        vec!["check", ".", "--show-files"],
        vec!["check", ".", "--output-format", "github"],
        vec!["check", ".", "--output-format", "concise"],
        vec!["check", ".", "--output-format", "grouped"],
        vec!["check", forged],
        vec!["show", "ids.jsonl"],
        vec!["show", "ids.jsonl", "--full"],
    ] {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args(&args));
        assert!(code.is_some(), "{args:?}");
        for t in [&out, &err] {
            assert!(!forged_line(t), "{args:?}: a forged workflow command:\n{t}");
            assert!(
                !t.contains(['\u{1b}', '\u{7}', '\r']),
                "{args:?}: a raw control character reached the output: {t:?}"
            );
        }
    }
    // The github format escapes the name as a property, ESC made visible.
    let (_, out, _) = run(ctxlint().current_dir(d.path()).args(["check", bell, "--output-format", "github"]));
    assert!(out.starts_with("::error file=b\\u{7}\\u{1b}]0;t\\u{7}.jsonl,line=12"), "{out}");
    // The message quoting the id shows it escaped; JSON keeps the id itself.
    let (_, out, _) = run(ctxlint().current_dir(d.path()).args(["check", "ids.jsonl", "--output-format", "concise"]));
    assert!(out.contains("c\\u{1b}]8;;http://e\\u{7}\\r1"), "{out}");
}

#[test]
fn a_decompression_bomb_is_an_input_error_and_the_rest_is_checked() {
    // Issue 32: a 2,954-byte .jsonl.zst of `{}` lines peaked at 2.7 GB; a
    // .json.gz bomb at 5.3 GB. Decompressing stops past 100 times the
    // compressed size (at least 8 MiB): an error naming the file, exit 2,
    // and the other input still checked and reported.
    use std::io::Write as _;
    let d = tempfile::tempdir().unwrap();
    let mut lines =
        br#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_vec();
    lines.push(b'\n');
    lines.extend(b"{}\n".repeat(40 << 20 >> 2));
    let zst = zstd::stream::encode_all(&lines[..], 19).unwrap();
    assert!(zst.len() < 64 << 10, "{}", zst.len());
    std::fs::write(d.path().join("bomb.jsonl.zst"), &zst).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(b"{\"messages\": [").unwrap();
    gz.write_all(&b" ".repeat(64 << 20)).unwrap();
    gz.write_all(b"]}").unwrap();
    std::fs::write(d.path().join("bomb.json.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(d.path().join("x.jsonl"), session()).unwrap();
    let (code, out, err) = run(ctxlint().current_dir(d.path()).args([
        "check",
        "bomb.jsonl.zst",
        "bomb.json.gz",
        "x.jsonl",
        "--output-format",
        "json",
    ]));
    assert_eq!(code, Some(2), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["findings"][0]["path"], "x.jsonl");
    let failed: Vec<&str> = v["failed"].as_array().unwrap().iter().filter_map(|f| f["path"].as_str()).collect();
    assert!(failed.contains(&"bomb.jsonl.zst") && failed.contains(&"bomb.json.gz"), "{v}");
    assert!(err.contains("a decompression bomb"), "{err}");
}

#[cfg(unix)]
#[test]
fn sigterm_exits_143_and_a_write_past_ulimit_f_is_an_error_that_leaves_no_temporary_file() {
    // Issue 32 item 12: SIGTERM or SIGXFSZ during a report write left
    // `.name.XXXX.tmp` beside the target. SIGTERM now removes the report's
    // temporary file and exits 128 + 15 (here the run is still waiting for
    // its standard input); SIGXFSZ is a write error naming the output file.
    let bin = assert_cmd::cargo::cargo_bin("ctxlint");
    let mut child = std::process::Command::new(&bin)
        .args(["check", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(143), "killed by the signal: no handler removed the temporary file");
    let d = tempfile::tempdir().unwrap();
    let session = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/report/mixed-session.jsonl");
    let script =
        format!("ulimit -f 1; exec '{}' check '{}' --output-format json -o out.json", bin.display(), session.display());
    let out = std::process::Command::new("sh").arg("-c").arg(&script).current_dir(d.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ctxlint: error: out.json: File too large"), "{err}");
    assert!(!err.contains(".tmp"), "{err}");
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn o_over_the_discovered_configuration_is_refused_and_leaves_it_as_it_was() {
    // Issue 32 item 12: `-o ctxlint.toml` replaced the configuration in force
    // (the next run failed). The same for `.ctxlint.toml`, a `pyproject.toml`
    // with `[tool.ctxlint]`, and `--write-baseline`; a `pyproject.toml`
    // without the table is no configuration of ours.
    let d = tempfile::tempdir().unwrap();
    let session = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/report/mixed-session.jsonl");
    std::fs::copy(&session, d.path().join("s.jsonl")).unwrap();
    for (name, text, flag) in [
        ("ctxlint.toml", "[rules]\nCTX101 = \"off\"\n", "-o"),
        (".ctxlint.toml", "[rules]\nCTX101 = \"off\"\n", "-o"),
        ("pyproject.toml", "[tool.ctxlint.rules]\nCTX101 = \"off\"\n", "--write-baseline"),
    ] {
        let sub = d.path().join(format!("p-{flag}-{name}"));
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join(name), text).unwrap();
        let (code, _, err) = run(ctxlint().current_dir(&sub).args(["check", "../s.jsonl", flag, name]));
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains("this is the ctxlint configuration found for that folder"), "{err}");
        assert_eq!(std::fs::read_to_string(sub.join(name)).unwrap(), text);
    }
    let other = d.path().join("plain");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
    let (code, _, err) = run(ctxlint().current_dir(&other).args([
        "check",
        "../s.jsonl",
        "--output-format",
        "json",
        "-o",
        "pyproject.toml",
    ]));
    assert_eq!(code, Some(1), "{err}");
    assert!(std::fs::read_to_string(other.join("pyproject.toml")).unwrap().starts_with('{'));
}

#[test]
fn show_escapes_ids_model_names_and_request_paths_and_legacy_ci_commands() {
    // Issue 32, the attack round: `show` printed entry ids, model names,
    // request file names and lane labels raw (ESC, BEL, a newline then
    // `::error`), and a file name `##[stop-commands]…` reached the CI log
    // as GitHub's legacy workflow command.
    let d = tempfile::tempdir().unwrap();
    let rec = |id: &str, parent: Option<&str>, msg: serde_json::Value| {
        serde_json::json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-06-20T09:14:01.000Z","message":msg})
            .to_string()
    };
    let lines = [
        serde_json::json!({"type":"session","version":3,"id":"s","timestamp":"2026-06-20T09:14:00.000Z","cwd":"/w"})
            .to_string(),
        rec(
            "u1",
            None,
            serde_json::json!({"role":"user","content":[{"type":"text","text":"hi\n    ::add-mask::x\n##[error]y"}]}),
        ),
        rec(
            "a1\n::error file=a::pwned",
            Some("u1"),
            serde_json::json!({"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m\u{1b}]0;PWNED\u{7}\u{1b}[2J","stopReason":"stop"}),
        ),
    ];
    std::fs::write(d.path().join("s.jsonl"), lines.join("\n") + "\n").unwrap();
    std::fs::write(d.path().join("##[stop-commands]x9f2a1.json"), "{\"hello\":1}").unwrap();
    for args in [vec!["show", "s.jsonl"], vec!["show", "s.jsonl", "--step", "0"], vec!["show", "s.jsonl", "--full"]] {
        let (code, out, err) = run(ctxlint().current_dir(d.path()).args(&args));
        assert_eq!(code, Some(0), "{args:?}: {err}");
        for l in out.lines().chain(err.lines()) {
            assert!(!l.trim_start().starts_with("::"), "{args:?} starts a workflow command: {l:?}");
            assert!(!l.contains("##["), "{args:?} holds a legacy workflow command: {l:?}");
            assert!(!l.contains('\u{1b}') && !l.contains('\u{7}'), "{args:?} drives the terminal: {l:?}");
        }
    }
    let (_, out, err) = run(ctxlint().current_dir(d.path()).args(["check", ".", "--output-format", "github"]));
    assert!(err.contains("##\\u{5b}stop-commands]x9f2a1.json: matches no input format"), "{err}");
    assert!(!out.contains("##[") && !err.contains("##["), "{out}{err}");
}

#[test]
fn show_step_and_junit_escape_tool_names_ids_file_names_and_quoted_ci_commands() {
    // Issue 32, the second attack round: `show --step N` printed a tool
    // call's name and id and a tool result's id raw; JUnit put a file name
    // raw in suite and case names and let a quoted line start `::error`.
    let d = tempfile::tempdir().unwrap();
    let bad = "X\u{1b}[31mRED\u{7}\rCR\n::error file=a::pwn\n##[error]p\u{202e}RLO\u{0}Z";
    let body = serde_json::json!({"model":"gpt","messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":null,"tool_calls":[{"id":format!("c{bad}"),"type":"function","function":{"name":format!("t{bad}"),"arguments":"{}"}}]},
        {"role":"tool","tool_call_id":format!("zz{bad}"),"content":"::error file=a::pwn"}]});
    std::fs::write(d.path().join("plain.json"), body.to_string()).unwrap();
    let name = "f\u{1b}[2Jn\n::error::x\u{202e}.json";
    std::fs::write(d.path().join(name), body.to_string()).unwrap();
    let clean = |what: &str, text: &str| {
        for l in text.lines() {
            assert!(!l.trim_start().starts_with("::"), "{what} starts a workflow command: {l:?}");
            assert!(!l.contains("##["), "{what} holds a legacy workflow command: {l:?}");
            assert!(
                !l.chars().any(|c| c.is_control() && c != '\t' || c == '\u{202e}'),
                "{what} holds a raw control: {l:?}"
            );
        }
    };
    let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["show", "--step", "0", "plain.json"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("tool call tX\\u{1b}[31mRED"), "{out}");
    clean("show --step", &out);
    let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["check", ".", "--output-format", "junit"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(out.contains("f\\u{1b}[2Jn\\n::error::x\\u{202e}.json"), "{out}");
    assert!(out.contains("\\u{3a}:error file=a::pwn"), "the quoted result's line: {out}");
    clean("junit", &out);
}

#[test]
fn a_byte_order_mark_is_read_as_whitespace() {
    // Issue 32, the attack round: a UTF-8 BOM before a session's first line
    // was a malformed line (and a broken parent chain after it); before a
    // request body, "not a recognised input format".
    let d = tempfile::tempdir().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sess = std::fs::read(root.join("fixtures/kinds/oc-heartbeat-polls-recurring/session.jsonl")).unwrap();
    let body = br#"{"model":"gpt-4o","messages":[{"role":"system","content":"s"},{"role":"system","content":"s"},{"role":"user","content":"hi"}]}"#;
    for (name, bytes) in [("plain.jsonl", &sess[..]), ("plain.json", &body[..])] {
        std::fs::write(d.path().join(name), bytes).unwrap();
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend_from_slice(bytes);
        std::fs::write(d.path().join(format!("bom-{name}")), bom).unwrap();
        let json = |n: &str| {
            let (code, out, err) = run(ctxlint().current_dir(d.path()).args(["check", n, "--output-format", "json"]));
            let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{n}: {err}"));
            let rules: Vec<(String, u64)> = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["rule"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap_or(0)))
                .collect();
            (code, rules, v["summary"]["files"].clone())
        };
        assert_eq!(json(&format!("bom-{name}")), json(name), "{name}");
    }
}

#[test]
fn an_unknown_rule_name_is_echoed_escaped() {
    // Issue 32, the second attack round: `ctxlint rule $'x\n::error::'`
    // echoed the newline raw, so the name started a workflow command.
    let (code, out, err) = run(ctxlint().args(["rule", "x\n::error::pwn"]));
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert!(err.contains("unknown rule `x\\n::error::pwn`"), "{err}");
    assert!(err.lines().all(|l| !l.trim_start().starts_with("::")), "{err}");
}

#[test]
fn a_private_key_cut_off_in_an_excerpt_keeps_every_report_valid_and_masked() {
    // A repeated paragraph holding a private key: the excerpt, masked to its
    // BEGIN line, was masked again line by line up to the end of the line,
    // taking the JSON string's closing quote (and JUnit's closing tag) with it.
    let d = workdir();
    let para = "Context note: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY----- (this paragraph is long enough to count as a context block).";
    let body = serde_json::json!({"model": "m", "messages": [
        {"role": "user", "content": format!("{para}\n\nfirst question")},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": format!("{para}\n\nsecond question")},
    ]});
    let p = d.path().join("pem.json");
    std::fs::write(&p, body.to_string()).unwrap();
    for fmt in ["json", "sarif", "gitlab", "junit", "full", "html"] {
        let out = ctxlint().args(["check", p.to_str().unwrap(), "--output-format", fmt]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{fmt}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains("MIIEow"), "{fmt}: {text}");
        if ["json", "junit", "full"].contains(&fmt) {
            assert!(text.contains("-----BEGIN RSA PRIVATE KEY-----****"), "{fmt}: {text}");
        }
        match fmt {
            "json" | "sarif" | "gitlab" => {
                serde_json::from_str::<serde_json::Value>(&text).unwrap_or_else(|e| panic!("{fmt}: {e}\n{text}"));
            }
            "junit" => assert!(
                text.contains("-----BEGIN RSA PRIVATE KEY-----****</failure>")
                    || text.contains("-----BEGIN RSA PRIVATE KEY-----****\n"),
                "{text}"
            ),
            _ => {}
        }
    }
}

#[test]
fn an_output_that_is_an_input_found_by_the_walk_is_refused_even_through_a_link() {
    // A new user's `check . -o many.yaml` replaced a cassette of the folder
    // with the report (the output was left out of the inputs, as a report
    // inside a checked folder is, then written over).
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("cfg")).unwrap();
    std::fs::write(d.path().join("cfg/many.jsonl"), session()).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(d.path().join("cfg/many.jsonl"), d.path().join("link.jsonl")).unwrap();
    let before = tree(d.path());
    let cfg = d.path().join("cfg");
    for out in [PathBuf::from("many.jsonl"), cfg.join("many.jsonl"), d.path().join("link.jsonl")] {
        let (code, stdout, err) = run(ctxlint().current_dir(&cfg).args(["check", "."]).arg("-o").arg(&out));
        assert_eq!((code, stdout.as_str()), (Some(2), ""), "{}: {err}", out.display());
        assert!(
            err.contains("is an input of the folder being checked") && err.contains("a `pi-session` file"),
            "{err}"
        );
    }
    assert_eq!(tree(d.path()), before, "nothing written");
    // A report ctxlint wrote there before is replaced, as always.
    let (code, _, _) = run(ctxlint().current_dir(&cfg).args(["check", ".", "-o", "r.json", "--output-format", "json"]));
    let (again, _, err) =
        run(ctxlint().current_dir(&cfg).args(["check", ".", "-o", "r.json", "--output-format", "json"]));
    assert_eq!((code, again), (Some(1), Some(1)), "{err}");
}
