//! Standard input read as a stream (issue 15): a short one stays in memory, a
//! long one is copied to an anonymous temporary file and read like a file —
//! either way the report is the one the file of the same bytes gets, and
//! `check - < /dev/zero` ends with an error instead of growing without bound.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cases");

fn ctxlint(cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("ctxlint").unwrap();
    c.current_dir(cwd).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    c
}

/// Exit code, standard output and standard error of one run.
type Out = (i32, Vec<u8>, String);

fn run(c: &mut Command) -> Out {
    let o = c.output().unwrap();
    (o.status.code().unwrap(), o.stdout, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `cc-12162-orphan-result` made long (3.66 MB, so it is spooled): line 2's
/// assistant text is 2.16 MB, line 3's orphan tool result 1.5 MB (its
/// finding quotes it: read again from the input at its offset), and a reply
/// at line 5 makes a second step whose context holds both (`show` reads
/// their first lines again).
fn long_session() -> Vec<u8> {
    let src = std::fs::read_to_string(format!("{CASES}/cc-12162-orphan-result/session.jsonl")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    assert_eq!(lines.len(), 4);
    let fill = "lorem ipsum dolor sit amet ".repeat(80_000);
    let l2 = lines[1].replace(r#""Running them now.""#, &format!(r#""Running them now. {fill}""#));
    let result = r#""The user doesn't want to proceed with this tool use.""#;
    assert!(lines[2].contains(result));
    let l3 = lines[2].replace(result, &format!(r#""The user doesn't want to proceed. {}""#, &fill[..1_500_000]));
    let l5 = lines[1]
        .replace("30000000-0000-4000-8000-000000000002", "30000000-0000-4000-8000-000000000005")
        .replace(
            r#""parentUuid":"30000000-0000-4000-8000-000000000001""#,
            r#""parentUuid":"30000000-0000-4000-8000-000000000004""#,
        )
        .replace("msg_03A", "msg_03B")
        .replace("Running them now.", "Auth suite only.");
    let text = [lines[0], &l2, &l3, lines[3], &l5].join("\n") + "\n";
    assert!(text.len() > 3 << 20, "{}", text.len());
    text.into_bytes()
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, b).unwrap();
    enc.finish().unwrap()
}

/// `v` with every string equal to `from` replaced by `to`, and every
/// `fingerprint` removed (it hashes the path).
fn renamed(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::String(s) if s == from => Value::String(to.into()),
        Value::Array(a) => Value::Array(a.iter().map(|x| renamed(x, from, to)).collect()),
        Value::Object(o) => Value::Object(
            o.iter().filter(|(k, _)| *k != "fingerprint").map(|(k, x)| (k.clone(), renamed(x, from, to))).collect(),
        ),
        x => x.clone(),
    }
}

fn json(o: &Out) -> Value {
    serde_json::from_slice(&o.1).unwrap_or_else(|e| panic!("{e}: {}\n{}", String::from_utf8_lossy(&o.1), o.2))
}

/// `(rule, line, excerpt length)` of every finding.
fn findings(v: &Value) -> Vec<(String, u64, usize)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["excerpt"].as_str().map_or(0, |e| e.chars().count()),
            )
        })
        .collect()
}

/// Checks `bytes` as the file `name` in a fresh folder and as piped standard
/// input (named by `--stdin-filename`, then as `-`) and asserts the three
/// reports agree; `env` is set for the standard-input runs. Returns the
/// file's report.
fn same_as_the_file(name: &str, bytes: &[u8], env: &[(&str, &Path)]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(name), bytes).unwrap();
    let args = ["check", "--isolated", "--output-format", "json"];
    let file = run(ctxlint(d).args(args).arg(name));
    let piped = |extra: &[&str]| {
        let mut c = ctxlint(d);
        for (k, v) in env {
            c.env(k, v);
        }
        run(c.args(args).arg("-").args(extra).write_stdin(bytes.to_vec()))
    };
    let named = piped(&["--stdin-filename", name]);
    assert_eq!(named.0, file.0, "{name}: exit code\n{}", named.2);
    assert_eq!(String::from_utf8_lossy(&named.1), String::from_utf8_lossy(&file.1), "{name}: report");
    assert_eq!(named.2, file.2, "{name}: standard error");
    let dash = piped(&[]);
    assert_eq!(dash.0, file.0, "{name}: exit code\n{}", dash.2);
    assert_eq!(renamed(&json(&dash), "-", "-"), renamed(&json(&file), name, "-"), "{name} as -");
    std::fs::remove_file(d.join(name)).unwrap();
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing written beside the input");
    json(&file)
}

#[test]
fn piped_stdin_gives_the_report_the_file_gives() {
    // Short (kept in memory): a torn JSONL line, and a request body.
    let torn = std::fs::read(format!("{CASES}/cc-53821-torn-final-line/session.jsonl")).unwrap();
    let v = same_as_the_file("session.jsonl", &torn, &[]);
    assert_eq!(findings(&v), vec![("malformed-line".into(), 7, 161)]);
    let body = std::fs::read(format!("{CASES}/cc-16021-reminder-every-turn/request.json")).unwrap();
    let v = same_as_the_file("request.json", &body, &[]);
    assert_eq!(v["findings"][0]["rule"], "duplicate-context-block");
    assert_eq!(v["findings"][0]["pointer"], "/messages/6/content/1");
    assert_eq!(v["findings"].as_array().unwrap().len(), 1);
    // Long (spooled): lines, offsets, columns and the excerpt read again at its offset.
    let long = long_session();
    let v = same_as_the_file("long.jsonl", &long, &[]);
    assert_eq!(findings(&v), vec![("orphan-tool-result".into(), 3, 161)]);
    let at = long.windows(22).position(|w| w == br#"{"type":"tool_result","#).unwrap();
    assert_eq!(v["findings"][0]["byte_offset"], at);
    assert_eq!(at, 2_161_205);
    assert_eq!(v["files"][0]["entries"], 5);
    // Compressed and long: decompressed from the temporary file.
    let v = same_as_the_file("long.jsonl.gz", &gzip(&long), &[]);
    assert_eq!(findings(&v), vec![("orphan-tool-result".into(), 3, 161)]);
}

#[test]
fn stdin_without_a_writable_temporary_folder_is_read_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let v = same_as_the_file("long.jsonl", &long_session(), &[("TMPDIR", &missing)]);
    assert_eq!(findings(&v), vec![("orphan-tool-result".into(), 3, 161)]);
    assert!(!missing.exists());
}

#[test]
fn show_reads_a_spooled_stdin_again_like_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = long_session();
    std::fs::write(d.join("long.jsonl"), &long).unwrap();
    for args in [&["show"][..], &["show", "--request", "1", "--output-format", "json"]] {
        let file = run(ctxlint(d).args(args).arg("long.jsonl"));
        let piped = run(ctxlint(d).args(args).arg("-").write_stdin(long.clone()));
        assert_eq!(file.0, 0, "{}", file.2);
        assert_eq!(piped.0, 0, "{}", piped.2);
        let want = String::from_utf8_lossy(&file.1).replace("long.jsonl", "-");
        assert_eq!(String::from_utf8_lossy(&piped.1), want, "{args:?}");
        // The first line of a text not kept, read again from the temporary file.
        assert!(want.contains("Running them now. lorem ipsum dolor sit amet"), "{want}");
    }
}

#[test]
fn a_failed_read_of_stdin_is_an_error_for_it_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(format!("{CASES}/cc-53821-torn-final-line/session.jsonl"), d.join("s.jsonl")).unwrap();
    // A directory as standard input: opening it works, reading it fails (EISDIR).
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlint"))
        .current_dir(d)
        .args(["check", "--isolated", "--output-format", "json", "-", "s.jsonl", "--stdin-filename", "piped.jsonl"])
        .stdin(std::fs::File::open(d).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let eisdir = std::io::Error::from_raw_os_error(21).to_string();
    assert_eq!(v["failed"], serde_json::json!([{"path": "piped.jsonl", "error": format!("piped.jsonl: {eisdir}")}]));
    assert_eq!(findings(&v), vec![("malformed-line".into(), 7, 161)]);
}

#[test]
fn endless_stdin_ends_at_the_limit_with_an_error_naming_it() {
    use ctxlint::source::{SPOOL_CHUNK, StdinLimits, spool};
    // A real pipe that never ends (`check - < /dev/zero` reads what this
    // reads, up to 4 GiB): the limits made small, the function `check -` calls.
    let mut cat =
        std::process::Command::new("cat").arg("/dev/zero").stdout(std::process::Stdio::piped()).spawn().expect("cat");
    let limits = StdinLimits { in_memory: 64 << 10, max: 8 << 20, max_in_memory: 1 << 20 };
    let e = spool("piped.jsonl", cat.stdout.take().unwrap(), &limits, tempfile::tempfile).unwrap_err();
    cat.kill().unwrap();
    cat.wait().unwrap();
    assert_eq!(
        e.to_string(),
        "piped.jsonl: standard input is longer than 8388608 bytes (8 MiB), the most ctxlint reads from it; save it \
         to a file and name the file instead (`ctxlint check FILE`): a file is read where it lies, with no such limit"
    );
    assert_eq!(e.exit_code(), 2);
    assert_eq!(SPOOL_CHUNK, 64 << 10);
    assert_eq!(ctxlint::source::MAX_STDIN, 4 << 30);
    assert_eq!(StdinLimits::default(), StdinLimits { in_memory: 1 << 20, max: 4 << 30, max_in_memory: 512 << 20 });
}

/// Standard input holding nothing to check (an empty JSON array, as a Cline
/// task that has recorded nothing writes) is skipped with its reason, and the
/// error names it as `--stdin-filename` does.
#[test]
fn an_empty_document_on_standard_input_is_named_as_given() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = run(ctxlint(d.path())
        .args(["check", "--isolated", "-", "--stdin-filename", "api_conversation_history.json"])
        .write_stdin("[ ]\n"));
    assert_eq!(
        (code, String::from_utf8_lossy(&out).as_ref()),
        (2, "No findings in 0 inputs, 1 skipped (no known format).\n")
    );
    assert_eq!(
        err,
        "ctxlint: warning: api_conversation_history.json: not a recognised input format (none of the 22 formats `ctxlint formats` lists); it is an empty JSON array or object (`[]` or `{}`): nothing to check; skipped\nctxlint: error: no input of a known format in api_conversation_history.json\n"
    );
}
