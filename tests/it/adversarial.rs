//! Hostile inputs (docs/spec.md §5 "Safety", issue 7): every case must end with a
//! finding or a clear error naming the path, and an exit code of 0, 1 or 2 —
//! never a panic (exit 101), a crash (a signal) or a hang (each run has a
//! timeout). Inputs are never modified, and nothing is written beside them.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const BIN: &str = env!("CARGO_BIN_EXE_ctxlint");
const SESSION: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/report/mixed-session.jsonl");
const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cases");

/// What one run of `ctxlint check` gave.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// Peak resident set size seen while it ran (kB, sampled from /proc).
    peak_kb: u64,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr: {}", self.stdout, self.stderr))
    }

    fn findings(&self) -> Vec<Value> {
        self.json()["findings"].as_array().cloned().unwrap_or_default()
    }

    /// `(rule, line)` of every finding.
    fn rules_lines(&self) -> Vec<(String, u64)> {
        self.findings()
            .iter()
            .map(|f| (f["rule"].as_str().unwrap_or("").to_string(), f["line"].as_u64().unwrap_or(0)))
            .collect()
    }
}

/// Runs `ctxlint check --isolated --output-format json ARGS` with a timeout,
/// sampling the child's peak RSS, and asserts the outcome is an ordinary one:
/// exit 0, 1 or 2 (never 101 or a signal), and an exit 2 names `expect_path`.
fn check(args: &[&str], expect_path: &str, timeout: Duration) -> Run {
    check_fed(args, expect_path, timeout, None)
}

/// What writes a run's standard input.
type Feed = dyn Fn(&mut dyn Write) + Sync;

/// [`check`] with standard input a pipe that `feed` writes (then closes),
/// while ctxlint reads it; `None`: standard input is `/dev/null`.
fn check_fed(args: &[&str], expect_path: &str, timeout: Duration, feed: Option<&Feed>) -> Run {
    let out_dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (out_dir.path().join("out"), out_dir.path().join("err"));
    let mut child = Command::new(BIN)
        .args(["check", "--isolated", "--output-format", "json"])
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(if feed.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pipe = child.stdin.take();
    std::thread::scope(|scope| {
        if let (Some(feed), Some(mut pipe)) = (feed, pipe) {
            // A reader that stops early closes the pipe: the writer's error is its business.
            scope.spawn(move || feed(&mut pipe));
        }
        wait_for(child, args, expect_path, timeout, &out_path, &err_path)
    })
}

/// Waits for `child` (sampling its peak RSS), then reads its outputs and
/// asserts the outcome is an ordinary one (see [`check`]).
fn wait_for(
    mut child: std::process::Child,
    args: &[&str],
    expect_path: &str,
    timeout: Duration,
    out_path: &Path,
    err_path: &Path,
) -> Run {
    let status_file = format!("/proc/{}/status", child.id());
    let start = Instant::now();
    let mut peak_kb = 0;
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ctxlint check {args:?} did not finish within {timeout:?} (hang)");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let run = Run {
        code: status.code().unwrap_or_else(|| panic!("ctxlint check {args:?} was killed by a signal: {status:?}")),
        stdout: std::fs::read_to_string(out_path).unwrap(),
        stderr: std::fs::read_to_string(err_path).unwrap(),
        peak_kb,
    };
    assert!(
        matches!(run.code, 0..=2),
        "ctxlint check {args:?} exited {} (101 = panic)\nstderr: {}",
        run.code,
        run.stderr
    );
    assert!(!run.stderr.contains("internal error"), "panic reported: {}", run.stderr);
    if run.code == 2 {
        assert!(run.stderr.contains(expect_path), "the error does not name {expect_path}: {}", run.stderr);
    }
    run
}

const T: Duration = Duration::from_secs(60);

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The fixture session with `extra` lines appended (each ends with `\n`).
fn session_with(dir: &Path, name: &str, extra: &[&[u8]]) -> PathBuf {
    let mut bytes = std::fs::read(SESSION).unwrap();
    for l in extra {
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    }
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn session_lines() -> u64 {
    std::fs::read(SESSION).unwrap().iter().filter(|&&b| b == b'\n').count() as u64
}

fn skipped_paths(run: &Run) -> Vec<String> {
    run.json()["skipped"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap().to_string()).collect()
}

fn has_malformed_line(run: &Run, line: u64) -> bool {
    run.rules_lines().iter().any(|(r, l)| r == "malformed-line" && *l == line)
}

fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    let mut t = String::with_capacity(depth * (open.len() + close.len()) + inner.len());
    for _ in 0..depth {
        t.push_str(open);
    }
    t.push_str(inner);
    for _ in 0..depth {
        t.push_str(close);
    }
    t
}

// ---------------------------------------------------------------- nesting

#[test]
fn deeply_nested_jsonl_lines_are_checked_or_malformed() {
    let d = tempfile::tempdir().unwrap();
    let base = check(&[SESSION], "mixed-session.jsonl", T).rules_lines();
    let n = session_lines();
    let head = r#"{"type":"message","id":"deep","parentId":"u1","timestamp":"t","message":"#;
    // Valid JSON 10,000 levels deep: an unknown record, or its deep part ignored.
    let arrays = format!("{head}{}}}", nested(10_000, "[", "]", "1"));
    let objects = format!("{head}{}}}", nested(10_000, r#"{"a":"#, "}", "1"));
    let in_block = format!(
        r#"{head}{{"role":"user","content":[{{"type":"text","text":"hi","x":{}}}]}}}}"#,
        nested(10_000, "[", "]", "")
    );
    // Torn 10,000 levels deep (never closed): a malformed line.
    let torn = format!("{head}{}", nested(10_000, "[", "", ""));
    let torn_objects = format!("{head}{}", nested(10_000, r#"{"a":"#, "", ""));
    let lines = [arrays.as_bytes(), objects.as_bytes(), in_block.as_bytes(), torn.as_bytes(), torn_objects.as_bytes()];
    let p = session_with(d.path(), "deep.jsonl", &lines);
    let run = check(&[s(&p)], "deep.jsonl", T);
    assert!(run.code <= 1, "{}", run.stderr);
    let got = run.rules_lines();
    // The session before the deep lines is checked as without them.
    assert_eq!(got.iter().filter(|(_, l)| *l <= n).cloned().collect::<Vec<_>>(), base);
    assert!(has_malformed_line(&run, n + 4) && has_malformed_line(&run, n + 5), "{got:?}");
    // Every JSONL loader, forced, on the same file: the one it fits reads it
    // as detected; for the others it is an error naming what is missing
    // (docs/spec.md §1), found without choking on the deep lines.
    let run = check(&["--input-format", "pi-session", s(&p)], "deep.jsonl", T);
    assert!(has_malformed_line(&run, n + 4) && has_malformed_line(&run, n + 5), "{:?}", run.rules_lines());
    for f in ["claude-code", "codex-rollout", "exchange-log"] {
        let run = check(&["--input-format", f, s(&p)], "deep.jsonl", T);
        assert_eq!(run.code, 2, "{f}: {}", run.stderr);
        assert!(run.stderr.contains(&format!("--input-format {f}: no ")), "{f}: {}", run.stderr);
    }
    // A file of only a deep line matches no format: a clear error.
    let only = d.path().join("only-deep.jsonl");
    std::fs::write(&only, nested(10_000, "[", "]", "")).unwrap();
    let run = check(&[s(&only)], "only-deep.jsonl", T);
    assert_eq!(run.code, 2);
}

#[test]
fn deeply_nested_request_body_is_an_error_naming_the_file() {
    let d = tempfile::tempdir().unwrap();
    let body = format!(
        r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":{}}}]}}"#,
        nested(10_000, "[", "]", r#""x""#)
    );
    let p = d.path().join("request.json");
    std::fs::write(&p, &body).unwrap();
    let run = check(&[s(&p)], "request.json", T);
    assert_eq!(run.code, 2, "{}", run.stderr);
    for f in
        ["openai-chat", "anthropic-messages", "openai-responses", "gemini", "bedrock-converse", "pydantic-ai-history"]
    {
        let run = check(&["--input-format", f, s(&p)], "request.json", T);
        assert_eq!(run.code, 2, "{f}: {}", run.stderr);
    }
    // Deep nesting inside a VCR cassette's YAML (flow and block style; the
    // block mapping once overflowed the worker's stack), and inside its JSON body string.
    let y = d.path().join("cassette.yaml");
    std::fs::write(&y, format!("interactions:\n- request:\n    body: {}\n", nested(10_000, "[", "]", "1"))).unwrap();
    assert_eq!(check(&[s(&y)], "cassette.yaml", T).code, 2);
    let mut block = String::from("interactions:\n- request:\n    body:\n");
    for i in 0..3_000 {
        block.push_str(&" ".repeat(2 * i + 6));
        block.push_str("a:\n");
    }
    let yb = d.path().join("block.yaml");
    std::fs::write(&yb, &block).unwrap();
    assert_eq!(check(&[s(&yb)], "block.yaml", T).code, 2);
    let ys = d.path().join("seq.yaml");
    let mut seq = String::from("interactions:\n- request:\n    body:\n");
    for i in 0..3_000 {
        seq.push_str(&" ".repeat(2 * i + 6));
        seq.push_str("-\n");
    }
    std::fs::write(&ys, &seq).unwrap();
    check(&[s(&ys)], "seq.yaml", T);
    let y2 = d.path().join("cassette2.yaml");
    std::fs::write(
        &y2,
        format!("interactions:\n- request:\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n    body: '{}'\n", body.replace('\'', "''")),
    )
    .unwrap();
    check(&[s(&y2)], "cassette2.yaml", T);
    // Nesting a little under serde_json's limit parses, and the rules cope with it.
    let ok = d.path().join("ok.json");
    std::fs::write(&ok, format!(r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":"hi"}},{{"role":"user","content":"hi","x":{}}}]}}"#, nested(120, "[", "]", "1"))).unwrap();
    check(&[s(&ok)], "ok.json", T);
}

// ---------------------------------------------------------------- size

#[test]
fn hundred_megabyte_line_is_a_finding_with_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    // A torn 100 MB line (a string that never ends), then a valid one.
    let mut big =
        br#"{"type":"message","id":"big","parentId":"u1","timestamp":"t","message":{"role":"user","content":"#.to_vec();
    big.resize(100 * 1024 * 1024, b'a');
    let p = session_with(d.path(), "big.jsonl", &[&big]);
    let run = check(&[s(&p)], "big.jsonl", T);
    let n = session_lines();
    assert!(has_malformed_line(&run, n + 1), "{:?}", run.rules_lines());
    // One copy of the line is unavoidable; a few are a bug.
    eprintln!("torn 100 MB line: peak RSS {} kB", run.peak_kb);
    assert!(run.peak_kb < 400 * 1024, "peak RSS {} kB for a 100 MB line", run.peak_kb);

    // The same line first: detection reads past it (it once gave up after
    // 256 KiB with no complete line: "not a recognised input format").
    let mut first = big.clone();
    first.push(b'\n');
    first.extend_from_slice(&std::fs::read(SESSION).unwrap());
    let p = d.path().join("big-first.jsonl");
    std::fs::write(&p, &first).unwrap();
    let run = check(&[s(&p)], "big-first.jsonl", T);
    assert!(has_malformed_line(&run, 1), "{:?}\n{}", run.rules_lines(), run.stderr);
    eprintln!("torn 100 MB first line: peak RSS {} kB", run.peak_kb);
    assert!(run.peak_kb < 400 * 1024, "peak RSS {} kB for a 100 MB first line", run.peak_kb);
    drop(first);

    // A valid 100 MB line (one huge text block) loads and is checked.
    let mut ok = br#"{"type":"message","id":"big","parentId":"u1","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":""#.to_vec();
    ok.resize(100 * 1024 * 1024, b'a');
    ok.extend_from_slice(br#""}]}}"#);
    let p = session_with(d.path(), "big-ok.jsonl", &[&ok]);
    let run = check(&[s(&p)], "big-ok.jsonl", T);
    assert!(run.code <= 1);
    eprintln!("valid 100 MB line: peak RSS {} kB", run.peak_kb);
    assert!(run.peak_kb < 1024 * 1024, "peak RSS {} kB for a valid 100 MB line", run.peak_kb);
}

/// The fixture session, then a torn line one byte longer than
/// `source::MAX_LINE`, then the session's first line again; written in 1 MiB
/// pieces (never held whole).
fn write_over_long_line(w: &mut dyn Write) -> std::io::Result<()> {
    let session = std::fs::read(SESSION).unwrap();
    w.write_all(&session)?;
    let head = br#"{"type":"message","id":"big","parentId":"u1","timestamp":"t","message":{"role":"user","content":""#;
    w.write_all(head)?;
    let piece = vec![b'a'; 1 << 20];
    let mut left = ctxlint::source::MAX_LINE + 1 - head.len();
    while left > 0 {
        let n = left.min(piece.len());
        w.write_all(&piece[..n])?;
        left -= n;
    }
    w.write_all(b"\n")?;
    w.write_all(session.split(|&b| b == b'\n').next().unwrap())?;
    w.write_all(b"\n")
}

#[test]
fn a_line_over_the_limit_on_stdin_gets_the_finding_a_file_gets() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("long.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    write_over_long_line(&mut f).unwrap();
    f.into_inner().unwrap().sync_all().unwrap();
    let file = check(&[s(&p)], "long.jsonl", T);
    let feed = |w: &mut dyn Write| {
        let _ = write_over_long_line(w);
    };
    let piped = check_fed(&["-", "--stdin-filename", s(&p)], "long.jsonl", T, Some(&feed));
    let _ = std::fs::remove_file(&p);
    let n = session_lines();
    let over = file.findings().into_iter().find(|f| f["line"] == n + 1).expect("a finding on the long line");
    assert_eq!(over["rule"], "malformed-line");
    assert_eq!(
        over["message"],
        "line is not one valid JSON value: line is 268435457 bytes, longer than the 268435456 byte limit; not parsed"
    );
    assert_eq!(piped.code, file.code);
    assert_eq!(piped.stdout, file.stdout, "the same report, byte for byte");
    // Spooled in 64 KiB chunks: no more memory than the file (which holds the
    // line's first 256 MiB once, to place the finding).
    eprintln!("line over the limit: peak RSS {} kB as a file, {} kB on stdin", file.peak_kb, piped.peak_kb);
    assert!(piped.peak_kb < file.peak_kb + 64 * 1024, "{} kB on stdin, {} kB as a file", piped.peak_kb, file.peak_kb);
}

// ---------------------------------------------------------------- bytes

#[test]
fn invalid_utf8_is_a_malformed_line() {
    let d = tempfile::tempdir().unwrap();
    let bad_in_string: &[u8] = b"{\"type\":\"message\",\"id\":\"x1\",\"parentId\":\"u1\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \xff\xfe\"}}";
    let bad_outside: &[u8] = b"\xc3\x28{\"type\":\"message\"}";
    let p = session_with(d.path(), "utf8.jsonl", &[bad_in_string, bad_outside]);
    let run = check(&[s(&p)], "utf8.jsonl", T);
    let n = session_lines();
    assert!(has_malformed_line(&run, n + 1) && has_malformed_line(&run, n + 2), "{:?}", run.rules_lines());
    // Invalid UTF-8 in a request body, and in a file name met while walking.
    let b = d.path().join("body.json");
    std::fs::write(&b, b"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}").unwrap();
    check(&[s(&b)], "body.json", T);
    use std::os::unix::ffi::OsStrExt;
    let walk = d.path().join("walk");
    std::fs::create_dir(&walk).unwrap();
    std::fs::copy(SESSION, walk.join(std::ffi::OsStr::from_bytes(b"s\xff\xfe.jsonl"))).unwrap();
    let run = check(&[s(&walk)], "walk", T);
    assert_eq!(run.json()["files"].as_array().map(Vec::len), Some(1), "{}", run.stdout);
}

#[test]
fn nul_runs_are_findings_or_clear_errors() {
    let d = tempfile::tempdir().unwrap();
    let nuls = vec![0u8; 4096];
    let mut half =
        br#"{"type":"message","id":"n1","parentId":"u1","timestamp":"t","message":{"role":"user","content":"a"#
            .to_vec();
    half.extend_from_slice(&[0; 100]);
    half.extend_from_slice(br#""}}"#);
    let p = session_with(d.path(), "nul.jsonl", &[&nuls, &half]);
    let run = check(&[s(&p)], "nul.jsonl", T);
    let n = session_lines();
    assert!(has_malformed_line(&run, n + 1) && has_malformed_line(&run, n + 2), "{:?}", run.rules_lines());
    // A file of only NULs (a preallocated, never-written log): no format.
    let z = d.path().join("zeros.jsonl");
    std::fs::write(&z, vec![0u8; 1 << 20]).unwrap();
    assert_eq!(check(&[s(&z)], "zeros.jsonl", T).code, 2);
    assert!(check(&["--input-format", "pi-session", s(&z)], "zeros.jsonl", T).code <= 2);
}

/// `(rule, line, column, pointer)`: byte offsets differ by the `\r`s, nothing else may.
fn positions(run: &Run) -> Vec<(String, u64, u64, String)> {
    run.findings()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().into(),
                f["line"].as_u64().unwrap_or(0),
                f["column"].as_u64().unwrap_or(0),
                f["pointer"].as_str().unwrap_or("").into(),
            )
        })
        .collect()
}

#[test]
fn crlf_gives_the_same_findings_as_lf() {
    let d = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = vec![SESSION.into()];
    for e in std::fs::read_dir(CASES).unwrap() {
        for f in std::fs::read_dir(e.unwrap().path()).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name != "expected.json" && (name.ends_with(".jsonl") || name.ends_with(".json")) {
                inputs.push(f);
            }
        }
    }
    inputs.sort();
    let mut compared = 0;
    for (i, src) in inputs.iter().enumerate() {
        let bytes = std::fs::read(src).unwrap();
        let lf: Vec<u8> = bytes.iter().copied().filter(|&b| b != b'\r').collect();
        let mut crlf = Vec::new();
        for &b in &lf {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let (a, b) = (d.path().join(format!("lf{i}")), d.path().join(format!("crlf{i}")));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join(&name), &lf).unwrap();
        std::fs::write(b.join(&name), &crlf).unwrap();
        let (ra, rb) = (
            check(&["--no-stream", s(&a.join(&name))], &name, T),
            check(&["--no-stream", s(&b.join(&name))], &name, T),
        );
        assert_eq!(ra.code, rb.code, "{name}: exit codes differ\nLF: {}\nCRLF: {}", ra.stderr, rb.stderr);
        if ra.code != 2 {
            assert_eq!(positions(&ra), positions(&rb), "{}: CRLF findings differ from LF", src.display());
            compared += 1;
        }
    }
    assert!(compared >= 20, "only {compared} inputs compared");
}

#[test]
fn empty_file_is_a_clear_error_or_clean() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("empty.jsonl");
    std::fs::write(&p, b"").unwrap();
    assert_eq!(check(&[s(&p)], "empty.jsonl", T).code, 2);
    for f in [
        "pi-session",
        "claude-code",
        "codex-rollout",
        "exchange-log",
        "vcr-cassette",
        "har",
        "openai-chat",
        "pydantic-ai-history",
    ] {
        check(&["--input-format", f, s(&p)], "empty.jsonl", T);
    }
    // Whitespace only, a BOM only, blank CRLF lines.
    for (n, b) in [("ws.jsonl", &b" \n\t\n"[..]), ("bom.jsonl", b"\xef\xbb\xbf"), ("blank.jsonl", b"\r\n\r\n")] {
        let p = d.path().join(n);
        std::fs::write(&p, b).unwrap();
        check(&[s(&p)], n, T);
        check(&["--input-format", "pi-session", s(&p)], n, T);
    }
    // Met while walking: skipped, the rest still checked.
    std::fs::copy(SESSION, d.path().join("s.jsonl")).unwrap();
    let run = check(&[s(d.path())], s(d.path()), T);
    assert_eq!(run.json()["files"].as_array().map(Vec::len), Some(1), "{}", run.stdout);
}

/// Deterministic noise (xorshift).
fn noise(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn binary_files_are_clear_errors() {
    let d = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("image.jsonl", [&b"\x89PNG\r\n\x1a\n"[..], &noise(1 << 20, 7)].concat()),
        ("noise.json", noise(1 << 16, 11)),
        // Compressed-looking inputs whose streams are corrupt.
        ("broken.jsonl.gz", [&b"\x1f\x8b\x08\x00"[..], &noise(4096, 3)].concat()),
        ("broken.jsonl.zst", [&b"\x28\xb5\x2f\xfd"[..], &noise(4096, 5)].concat()),
        ("brace-noise.jsonl", [&b"{"[..], &noise(1 << 16, 13)].concat()),
    ];
    for (name, bytes) in &cases {
        let p = d.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let run = check(&[s(&p)], name, T);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        for f in [
            "pi-session",
            "claude-code",
            "codex-rollout",
            "exchange-log",
            "vcr-cassette",
            "har",
            "anthropic-messages",
            "pydantic-ai-history",
        ] {
            check(&["--input-format", f, s(&p)], name, T);
        }
    }
}

// ---------------------------------------------------------------- races

#[test]
fn file_growing_or_shrinking_while_read_does_not_panic() {
    let d = tempfile::tempdir().unwrap();
    let p = session_with(d.path(), "live.jsonl", &[]);
    let line = std::fs::read_to_string(SESSION).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (p, stop) = (p.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                i += 1;
                if i % 50 == 0 {
                    // Now and then the file is truncated and rewritten (log rotation).
                    std::fs::write(&p, &line[..line.len() / 2]).unwrap();
                } else {
                    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
                    // Whole lines and torn halves.
                    let chunk = if i % 3 == 0 { &line[..line.len() / 3] } else { &line[..] };
                    f.write_all(chunk.as_bytes()).unwrap();
                }
            }
        })
    };
    for _ in 0..20 {
        check(&[s(&p)], "live.jsonl", T);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
}

// ---------------------------------------------------------------- paths

#[test]
fn symlink_loop_walk_terminates() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    std::fs::create_dir_all(a.join("b")).unwrap();
    std::fs::copy(SESSION, a.join("b/s.jsonl")).unwrap();
    std::os::unix::fs::symlink(&a, a.join("b/back-to-a")).unwrap();
    std::os::unix::fs::symlink("..", a.join("b/up")).unwrap();
    std::os::unix::fs::symlink("self", d.path().join("self")).unwrap();
    let run = check(&[s(d.path())], s(d.path()), Duration::from_secs(30));
    assert!(run.code <= 1, "{}", run.stderr);
    assert!(!run.json()["files"].as_array().unwrap().is_empty());
    // Each loop is reported as skipped under its own path.
    let skipped = skipped_paths(&run);
    for l in ["a/b/back-to-a", "a/b/up", "self"] {
        assert!(skipped.iter().any(|p| p.ends_with(l)), "{l} not in {skipped:?}");
    }
    // A symlink to itself given directly.
    let run = check(&[s(&d.path().join("self"))], "self", T);
    assert_eq!(run.code, 2);
}

#[test]
fn unreadable_paths_are_clear_errors() {
    let d = tempfile::tempdir().unwrap();
    // A directory named like a session: walked (it is a directory), holding nothing.
    let dir = d.path().join("x.jsonl");
    std::fs::create_dir(&dir).unwrap();
    check(&[s(&dir)], "x.jsonl", T);
    check(&["--input-format", "pi-session", s(&dir)], "x.jsonl", T);
    // A dangling symlink, directly and while walking.
    let dangling = d.path().join("gone.jsonl");
    std::os::unix::fs::symlink(d.path().join("nowhere.jsonl"), &dangling).unwrap();
    let run = check(&[s(&dangling)], "gone.jsonl", T);
    assert_eq!(run.code, 2);
    // A FIFO with no writer: refused at once, never opened (opening it would block).
    let fifo = d.path().join("pipe.jsonl");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    let run = check(&[s(&fifo)], "pipe.jsonl", Duration::from_secs(20));
    assert_eq!(run.code, 2);
    let run = check(&["--input-format", "pi-session", s(&fifo)], "pipe.jsonl", Duration::from_secs(20));
    assert_eq!(run.code, 2);
    // All of them met while walking, beside a good file: the good one is checked.
    std::fs::copy(SESSION, d.path().join("good.jsonl")).unwrap();
    let run = check(&[s(d.path())], s(d.path()), Duration::from_secs(20));
    assert_eq!(run.json()["files"].as_array().map(Vec::len), Some(1), "{}\n{}", run.stdout, run.stderr);
    let skipped = skipped_paths(&run);
    for l in ["gone.jsonl", "pipe.jsonl"] {
        assert!(skipped.iter().any(|p| p.ends_with(l)), "{l} not in {skipped:?}");
    }
    let run = check(&["--no-ignore", s(d.path())], s(d.path()), Duration::from_secs(20));
    assert!(run.code <= 2);
    // A device.
    let run = check(&["/dev/zero"], "/dev/zero", Duration::from_secs(20));
    assert_eq!(run.code, 2);
}

// ---------------------------------------------------------------- inputs untouched

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let md = std::fs::symlink_metadata(&p).unwrap();
            let bytes = if md.is_file() { std::fs::read(&p).unwrap() } else { Vec::new() };
            if md.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p, (bytes, md.modified().unwrap(), md.permissions().mode()));
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

#[test]
fn inputs_are_never_modified_and_nothing_is_written_beside_them() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("in");
    copy_tree(Path::new(CASES), &root.join("cases"));
    std::fs::copy(SESSION, root.join("session.jsonl")).unwrap();
    // Compressed inputs too (decompressed in memory, never beside the file).
    let gz = std::process::Command::new("gzip").args(["-k", s(&root.join("session.jsonl"))]).status();
    if gz.map(|s| s.success()).unwrap_or(false) {
        std::fs::rename(root.join("session.jsonl.gz"), root.join("zipped.jsonl.gz")).unwrap();
    }
    // Make every mtime old, so that a rewrite with the same bytes would show.
    for (p, _) in snapshot(&root) {
        if std::fs::symlink_metadata(&p).unwrap().is_file() {
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)).unwrap();
        }
    }
    let before = snapshot(&root);
    let report = d.path().join("report.sarif");
    for args in [
        vec![s(&root)],
        vec!["--no-stream", s(&root)],
        vec!["--no-ignore", "--statistics", s(&root)],
        vec!["-o", s(&report), s(&root)],
    ] {
        check(&args, s(&root), Duration::from_secs(120));
    }
    let after = snapshot(&root);
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>(), "files were created or removed");
    for (p, (bytes, mtime, mode)) in &before {
        let (b2, m2, mode2) = &after[p];
        assert!(bytes == b2, "{} changed", p.display());
        assert_eq!(mtime, m2, "{} mtime changed", p.display());
        assert_eq!(mode, mode2, "{} mode changed", p.display());
    }
}

#[test]
fn millions_of_blank_lines_keep_memory_bounded() {
    // Blank lines add no bytes to a parse batch; batches are also bounded by
    // line count, and the size-based table estimate is capped (issue 7: a
    // file of newlines once made a batch, and the tables, grow without bound).
    let d = tempfile::tempdir().unwrap();
    let mut text = std::fs::read(SESSION).unwrap();
    text.extend(std::iter::repeat_n(b'\n', 30_000_000));
    text.extend_from_slice(b"{\"torn\":\n");
    let p = d.path().join("blanks.jsonl");
    std::fs::write(&p, &text).unwrap();
    let run = check(&[s(&p)], "blanks.jsonl", T);
    let last = session_lines() + 30_000_000 + 1;
    assert!(has_malformed_line(&run, last), "{:?}", run.rules_lines());
    eprintln!("30 M blank lines: peak RSS {} kB", run.peak_kb);
    assert!(run.peak_kb < 200 * 1024, "peak RSS {} kB for 30 M blank lines", run.peak_kb);
}
