//! What each fuzz target does with its input, in one place so that
//! `tests/fuzz_regressions.rs` can replay saved crashing inputs through the
//! very same code (it includes this file as a module). Every target feeds the
//! fuzz input to the library in memory (`source::Origin::Memory`), so nothing
//! is written per execution. Errors are fine; panics are not.

use ctxlint::config::Config;
use ctxlint::formats::{self, LoadOptions};
use ctxlint::inputs::Job;
use ctxlint::model::FormatId;
use ctxlint::source::{LineReader, Origin, SourceRef};
use std::io::Read;
use std::sync::Arc;

/// The fuzz targets (file names under `fuzz_targets/`, folders under `corpus/`).
pub const TARGETS: &[&str] = &[
    "pi_session",
    "claude_code",
    "codex_rollout",
    "exchange_log",
    "pydantic_ai",
    "vcr_cassette",
    "openclaw_trajectory",
    "har",
    "aider",
    "gemini_cli",
    "copilot_cli",
    "cline_history",
    "ai_sdk",
    "langgraph",
    "openai_agents",
    "otel_genai",
    "opencode_tree",
    "sqlite_damaged",
    "bodies",
    "line_reader",
    "locate",
    "check",
];

/// Runs target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "pi_session" => load_and_check("session.jsonl", data, id("pi-session")),
        "claude_code" => load_and_check("session.jsonl", data, id("claude-code")),
        "codex_rollout" => load_and_check("rollout.jsonl", data, id("codex-rollout")),
        "exchange_log" => load_and_check("exchanges.jsonl", data, id("exchange-log")),
        "pydantic_ai" => load_and_check("history.json", data, id("pydantic-ai-history")),
        "vcr_cassette" => load_and_check("cassette.yaml", data, id("vcr-cassette")),
        "openclaw_trajectory" => load_and_check("session.trajectory.jsonl", data, id("openclaw-trajectory")),
        "har" => load_and_check("archive.har", data, id("har")),
        "aider" => load_and_check("llm.history", data, id("aider-llm-history")),
        "gemini_cli" => load_and_check("session.jsonl", data, id("gemini-cli")),
        "copilot_cli" => load_and_check("events.jsonl", data, id("copilot-cli")),
        "cline_history" => load_and_check("api_conversation_history.json", data, id("cline-history")),
        "ai_sdk" => load_and_check("chat.json", data, id("ai-sdk-ui-messages")),
        "langgraph" => load_and_check("state.json", data, id("langgraph-state")),
        "openai_agents" => load_and_check("items.json", data, id("openai-agents-session")),
        "otel_genai" => load_and_check("traces.jsonl", data, id("otel-genai")),
        "opencode_tree" => opencode_tree(data),
        "sqlite_damaged" => sqlite_damaged(data),
        "bodies" => bodies(data),
        "line_reader" => line_reader(data),
        "locate" => locate(data),
        "check" => detect_and_check("input", data),
        other => panic!("no fuzz target {other}"),
    }
}

/// An in-memory source named `name`.
pub fn memory(name: &str, data: &[u8]) -> SourceRef {
    SourceRef { display: name.to_string(), origin: Origin::Memory(data.into()), seen: None, session: None }
}

/// Loads `data` as `format` (no detection) and, when it loads, runs every rule
/// and resolves finding positions, as `check` does.
/// The registered format `s` (a fuzz target names its format by its id).
fn id(s: &str) -> FormatId {
    formats::parse_format_id(s).expect("a registered format id")
}

pub fn load_and_check(name: &str, data: &[u8], format: FormatId) {
    let src = memory(name, data);
    if let Ok(input) = formats::load(&src, format, &LoadOptions::default()) {
        let job = Job::File(src, format);
        let mut findings = ctxlint::check_input(&input, &job, &Config::default());
        ctxlint::finish(&mut findings);
    }
}

/// The whole `check` pipeline for one input: detection, load, rules, positions,
/// sorting/fingerprints, and every renderer.
pub fn detect_and_check(name: &str, data: &[u8]) {
    let src = memory(name, data);
    let Ok(Some(format)) = formats::detect(&src) else { return };
    let job = Job::File(src, format);
    let mut report = ctxlint::CheckReport::default();
    match ctxlint::load_job(&job) {
        Ok(input) => {
            report.findings = ctxlint::check_input(&input, &job, &Config::default());
            report.files.push(ctxlint::FileSummary::of(&input));
        }
        Err(e) => report.errors.push(ctxlint::Failed::new(name, e)),
    }
    ctxlint::finish(&mut report.findings);
    render_all(&report);
}

/// Runs every output renderer over a report.
pub fn render_all(r: &ctxlint::CheckReport) {
    use ctxlint::report::*;
    let _ = full::render(r, false);
    let _ = full::render(r, true);
    let _ = concise::render(r);
    let _ = json::render(r);
    let _ = json_lines::render(r);
    let _ = github::render(r);
    let _ = sarif::render(r);
    let _ = junit::render(r);
    let _ = gitlab::render(r);
}

/// Request bodies: detection, then the detected body loader; and every body
/// parser forced on any JSON value the bytes hold (parsers must cope with a
/// body of any shape, not only the ones detection accepts).
pub fn bodies(data: &[u8]) {
    let src = memory("request.json", data);
    if let Ok(Some(f)) = formats::detect(&src) {
        if formats::is_body_format(f) {
            load_and_check("request.json", data, f);
        }
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        let path: Arc<str> = "request.json".into();
        let _ = formats::sniff_body(&v);
        for d in formats::REGISTRY.iter().filter(|d| d.is_body()) {
            let _ = formats::parse_body(d.id, &v, &path, 0, "");
        }
    }
}

/// A reader returning short chunks, so that line ends fall on every kind of buffer boundary.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [u8],
    i: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = if self.sizes.is_empty() { buf.len() } else { 1 + self.sizes[self.i % self.sizes.len()] as usize };
        self.i += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// `source::LineReader` against a reference split on `\n`. Input: one byte
/// `k`, then `k % 8` chunk sizes for the reader, then the data.
pub fn line_reader(input: &[u8]) {
    let (sizes, data) = match input.split_first() {
        Some((&k, rest)) => rest.split_at((k as usize % 8).min(rest.len())),
        None => (&[][..], input),
    };
    // Reference: split on '\n'; a final piece is a line only when non-empty.
    let mut expected: Vec<(u64, &[u8], bool)> = Vec::new();
    let mut off = 0u64;
    let mut rest = data;
    while let Some(i) = rest.iter().position(|&b| b == b'\n') {
        expected.push((off, &rest[..i], true));
        off += i as u64 + 1;
        rest = &rest[i + 1..];
    }
    if !rest.is_empty() {
        expected.push((off, rest, false));
    }
    let mut r = LineReader::new(Chunked { data, sizes, i: 0 });
    let mut n = 0usize;
    while let Some(l) = r.next_line().expect("reading from memory cannot fail") {
        let (eoff, ebytes, eterm) = expected[n];
        let stripped = ebytes.strip_suffix(b"\r").unwrap_or(ebytes);
        assert_eq!(l.no as usize, n + 1);
        assert_eq!(l.offset, eoff);
        assert_eq!(l.bytes, stripped);
        assert_eq!(l.terminated, eterm);
        assert_eq!(l.len, ebytes.len() as u64);
        assert!(!l.too_long);
        n += 1;
    }
    assert_eq!(n, expected.len());
    assert!(r.next_line().expect("no error after the end").is_none(), "no line after the end");
}

/// `locate::locate` / `locate_span` on `pointer \n json-text`: no panic, and
/// any offset or span returned lies inside the text.
pub fn locate(data: &[u8]) {
    use ctxlint::locate::{locate, locate_span};
    let (ptr, text) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b""[..], data),
    };
    let ptr = String::from_utf8_lossy(ptr);
    if let Some(at) = locate(text, &ptr) {
        assert!(at <= text.len());
    }
    if let Some((a, b)) = locate_span(text, &ptr) {
        assert!(a <= b && b <= text.len());
    }
    for p in ["", "/0", "/messages/0/content", "/a/b/c"] {
        let _ = locate_span(text, p);
    }
}

/// A name the fuzz input chose, made safe to be one file name of the tree
/// (ASCII letters, digits, `_` and `-`; never empty; at most 40 bytes).
fn file_name(raw: &[u8], fallback: &str) -> String {
    let s: String = raw
        .iter()
        .filter(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
        .take(40)
        .map(|&b| b as char)
        .collect();
    if s.is_empty() { fallback.to_string() } else { s }
}

/// OpenCode's legacy `storage/` tree, built in a temporary folder from the
/// input, then loaded from its session file. The input is sections split on
/// `\n--\n`: the first is the session file
/// (`storage/session/prj/ses.json`); each later one starts with a header line
/// `m <message id>` (a message file `storage/message/<session id>/<id>.json`,
/// the session id read from the first section's `id` when it can name a
/// folder) or `p <message id> <part id>` (a part file
/// `storage/part/<message id>/<part id>.json`), the rest of the section being
/// the file's bytes. Every execution writes only inside its own temporary folder.
pub fn opencode_tree(data: &[u8]) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let storage = dir.path().join("storage");
    let mut sections = split_sections(data);
    let session = sections.remove(0);
    let sid = serde_json::from_slice::<serde_json::Value>(session)
        .ok()
        .and_then(|v| v.get("id").and_then(|i| i.as_str()).map(str::to_string))
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
        .unwrap_or_else(|| "ses".to_string());
    let ses_dir = storage.join("session").join("prj");
    let msg_dir = storage.join("message").join(&sid);
    for d in [&ses_dir, &msg_dir, &storage.join("part")] {
        if std::fs::create_dir_all(d).is_err() {
            return;
        }
    }
    let ses = ses_dir.join("ses.json");
    if std::fs::write(&ses, session).is_err() {
        return;
    }
    for (i, sec) in sections.iter().enumerate().take(64) {
        let (head, body) = match sec.iter().position(|&b| b == b'\n') {
            Some(n) => (&sec[..n], &sec[n + 1..]),
            None => (&sec[..], &b""[..]),
        };
        let mut words = head.split(|&b| b == b' ');
        let kind = words.next().unwrap_or_default();
        let fallback = format!("x{i}");
        let path = if kind == b"p" {
            let mid = file_name(words.next().unwrap_or_default(), "msg");
            let pid = file_name(words.next().unwrap_or_default(), &fallback);
            let d = storage.join("part").join(mid);
            let _ = std::fs::create_dir_all(&d);
            d.join(format!("{pid}.json"))
        } else {
            msg_dir.join(format!("{}.json", file_name(words.next().unwrap_or_default(), &fallback)))
        };
        let _ = std::fs::write(path, body);
    }
    let src =
        SourceRef { display: ses.display().to_string(), origin: Origin::File(ses.clone()), seen: None, session: None };
    if let Ok(input) = formats::load(&src, formats::opencode::ID, &LoadOptions::default()) {
        let job = Job::File(src, formats::opencode::ID);
        let mut findings = ctxlint::check_input(&input, &job, &Config::default());
        ctxlint::finish(&mut findings);
    }
}

/// `data` split on `\n--\n` (at least one section).
fn split_sections(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(i) = rest.windows(4).position(|w| w == b"\n--\n") {
        out.push(&rest[..i]);
        rest = &rest[i + 4..];
    }
    out.push(rest);
    out
}

/// Seed databases the damage is done to: OpenCode stores and an Agents SDK
/// `SQLiteSession` database, as the committed fixtures hold them.
const SEED_DATABASES: &[(&[u8], &str)] = &[
    (include_bytes!("../../fixtures/formats/opencode/two-sessions.db"), "opencode"),
    (include_bytes!("../../fixtures/formats/opencode/compaction.db"), "opencode"),
    (include_bytes!("../../fixtures/formats/openai-agents-session/sqlite/two-sessions.db"), "openai-agents-session"),
    (include_bytes!("../../fixtures/formats/openai-agents-session/sqlite/advanced.db"), "openai-agents-session"),
];

/// The SQLite loaders over damaged databases. The input's first byte picks a
/// seed database (and, with its high bit, cuts the file to a fraction the
/// second byte names); the rest is 4-byte patches: a 24-bit little-endian
/// offset (modulo the file's size) and the byte written there. The damaged
/// file is loaded through detection (`formats::detect`, so a page-1 header
/// the damage broke is an unrecognised file) and, for an OpenCode store,
/// once per session it lists; every rule and position resolution then runs.
pub fn sqlite_damaged(data: &[u8]) {
    let Some((&pick, mut rest)) = data.split_first() else { return };
    let (seed, format) = SEED_DATABASES[pick as usize % SEED_DATABASES.len()];
    let format = id(format);
    let mut db = seed.to_vec();
    if pick & 0x80 != 0 {
        if let Some((&frac, r)) = rest.split_first() {
            db.truncate(db.len() * (frac as usize + 1) / 256);
            rest = r;
        }
    }
    for p in rest.chunks_exact(4) {
        if db.is_empty() {
            break;
        }
        let off = (p[0] as usize | (p[1] as usize) << 8 | (p[2] as usize) << 16) % db.len();
        db[off] = p[3];
    }
    let src = memory("store.db", &db);
    if !matches!(formats::detect(&src), Ok(Some(f)) if f == format) {
        let _ = formats::load(&src, format, &LoadOptions::default());
        return;
    }
    let sessions: Vec<Option<Box<str>>> = if format == formats::opencode::ID {
        match formats::opencode::sessions(&src) {
            Ok(ids) => ids.into_iter().take(4).map(Some).collect(),
            Err(_) => return,
        }
    } else {
        vec![None]
    };
    for session in sessions {
        let src = SourceRef { session, ..memory("store.db", &db) };
        if let Ok(input) = formats::load(&src, format, &LoadOptions::default()) {
            let job = Job::File(src, format);
            let mut findings = ctxlint::check_input(&input, &job, &Config::default());
            ctxlint::finish(&mut findings);
        }
    }
}
