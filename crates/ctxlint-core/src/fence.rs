//! `ctxlint fence`: is NEW an append-only, runner-owned extension of OLD?
//! (docs/spec.md §3).
//!
//! A runner that releases its session-file lock (for a model call, say) takes
//! a snapshot of the file — a copy (OLD) or a fingerprint (OLD's size and
//! SHA-256) — and, when it takes the lock back, asks whether the file only
//! grew by entries it owns. [`fence`] answers with a [`Verdict`] and the
//! findings that go with it.
//!
//! # How it works
//! 1. **Bytes.** One streaming pass reads OLD and NEW side by side in
//!    [`BLOCK`]-byte blocks and compares them with `memcmp`; neither file is
//!    held in memory. The same pass counts newlines (for line numbers),
//!    computes SHA-256 hashes only when asked for ([`FenceOptions::hashes`], or
//!    the fingerprint form; on a second thread), and searches OLD's bytes for
//!    the ids an append mentions (`memmem` over each quoted id, or, for a long
//!    append, a set lookup of every `"id"`/`"uuid"`/`"sessionId"` value);
//!    only the candidate lines are parsed afterwards, to confirm.
//! 2. **Entries.** When NEW starts with OLD, the appended bytes (usually
//!    small) are parsed line by line before that pass, so that the pass knows
//!    which ids to look for. Each appended line must be one JSON object
//!    terminated by `\n`, carry the fields its format requires, have a fresh id
//!    and a parent that resolves, and be of a kind the runner owns.
//!
//! Formats: every JSONL session format with a
//! [`crate::formats::record::RecordSchema`] (`pi-session`, `claude-code`,
//! `codex-rollout`, `gemini-cli`, `copilot-cli`). Fence does not parse records
//! itself: each line is classified by the format's own loader code
//! ([`RecordSchema::classify`]), which gives its kind, role, tree id and
//! parent, session and whether the runtime writes it; the same function gives
//! `check` its entry ids and parents. The format is detected on OLD's first
//! parseable lines (NEW's when OLD is empty) with
//! [`crate::formats::sniff_jsonl_record`].
//!
//! Line numbers are 1-based lines of NEW; byte offsets are 0-based offsets in
//! NEW. Files are opened read-only with [`crate::source::open_regular`]
//! (special files are refused) and their size is taken when they are opened:
//! bytes appended while ctxlint reads are not judged, and a file that shrinks
//! while it is read is an I/O error.

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::formats::jsonl::describe_json_error;
use crate::formats::record::{self, Record, RecordSchema, Sessions};
use crate::model::FormatId;
use crate::rule_id::RuleId;
use crate::source::{LineReader, MAX_LINE, open_regular};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Block size of the streaming comparison (bytes). Peak memory of a fence is
/// about two blocks plus the appended lines being judged.
pub const BLOCK: usize = 1 << 20;
/// Bytes read from the start of a file to detect its format.
const HEAD_BYTES: usize = 256 * 1024;
/// Bytes read from the end of OLD to learn its session ids and whether it has entries.
const TAIL_BYTES: usize = 1 << 20;
/// Bytes of each file read from the first differing line to build the diff.
const DIFF_WINDOW: usize = 64 * 1024;
/// Lines of each file shown at most in a rewrite diff.
const DIFF_LINES: usize = 12;
/// Characters of a diff line shown at most.
const DIFF_WIDTH: usize = 160;
/// Bytes of a malformed appended line kept to recognise its id later.
const KEEP_RAW: usize = 64 * 1024;

/// What `fence` concluded (docs/spec.md §3). The first two exit 0, the rest 1.
///
/// When several apply, the first in this order wins: `Identical`, `Truncate`,
/// `Replaced`, `Rewrite`, `AppendMalformed`, `AppendForeign`, `AppendOwned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// NEW has the same bytes as OLD.
    Identical,
    /// NEW is OLD plus well-formed, runner-owned entries.
    AppendOwned,
    /// NEW is a proper byte prefix of OLD.
    Truncate,
    /// NEW does not start with OLD and its first line (the pi session header) differs.
    Replaced,
    /// NEW does not start with OLD (any other change).
    Rewrite,
    /// NEW starts with OLD, but the appended bytes are not well-formed entries.
    AppendMalformed,
    /// NEW starts with OLD, well formed, but an appended entry is another writer's.
    AppendForeign,
}

impl Verdict {
    /// The stable name, e.g. `"append-owned"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::AppendOwned => "append-owned",
            Verdict::Truncate => "truncate",
            Verdict::Replaced => "replaced",
            Verdict::Rewrite => "rewrite",
            Verdict::AppendMalformed => "append-malformed",
            Verdict::AppendForeign => "append-foreign",
        }
    }

    /// Whether the change is acceptable (`identical`, `append-owned`: exit 0).
    pub fn is_clean(self) -> bool {
        matches!(self, Verdict::Identical | Verdict::AppendOwned)
    }

    /// One sentence for humans.
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Identical => "NEW has the same bytes as OLD",
            Verdict::AppendOwned => "NEW is OLD plus entries the runner owns",
            Verdict::Truncate => "NEW is a truncated copy of OLD",
            Verdict::Replaced => "NEW's session header differs from OLD's: the file was replaced",
            Verdict::Rewrite => "NEW does not start with OLD: the file was rewritten",
            Verdict::AppendMalformed => "NEW starts with OLD, but the appended bytes are not well-formed entries",
            Verdict::AppendForeign => "NEW starts with OLD, but another writer appended to it",
        }
    }
}

/// What NEW is compared against.
#[derive(Debug, Clone)]
pub enum Baseline {
    /// The OLD snapshot: a path, as given (it is also the path reported).
    File(String),
    /// A recorded fingerprint of OLD: its size in bytes and, optionally, the
    /// SHA-256 of those bytes. Without a hash only the size is checked.
    Fingerprint {
        /// OLD's size in bytes (`--prefix-size`).
        size: u64,
        /// SHA-256 of OLD's bytes (`--prefix-sha256`).
        sha256: Option<[u8; 32]>,
    },
}

/// Options of [`fence`].
#[derive(Debug, Clone, Default)]
pub struct FenceOptions {
    /// Kinds the runner owns, replacing the format's default: entry `type`s and
    /// message roles (pi `message.role`, Claude Code `message.role`, Codex
    /// `payload.type` / `payload.role`). `None` = the default of docs/spec.md §3.
    pub owned: Option<Vec<String>>,
    /// Compute the SHA-256 of OLD and NEW for [`FenceReport::old`] / [`FenceReport::new`].
    /// Costs one hash pass (shared where the files agree); off by default.
    pub hashes: bool,
}

/// Size and hash of one side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct FileStat {
    /// Path as given; `None` for a recorded fingerprint.
    pub path: Option<String>,
    /// Size in bytes (for a fingerprint: the recorded size).
    pub size: u64,
    /// Lower-case hex SHA-256 of the whole file, when computed (for a
    /// fingerprint: the recorded hash, if any).
    pub sha256: Option<String>,
}

/// Where NEW first stops continuing OLD (`replaced`, `rewrite`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// 0-based byte offset of the first differing byte (the same in both files).
    pub byte_offset: u64,
    /// 1-based line of NEW (and of OLD) holding that byte.
    pub line: u32,
}

/// One appended line of NEW, as judged.
#[derive(Debug, Clone, Serialize)]
pub struct AppendedEntry {
    /// 1-based line in NEW.
    pub line: u32,
    /// 0-based byte offset of the line in NEW.
    pub byte_offset: u64,
    /// The record's `type`, when it has one.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The message role (pi / Claude Code `message.role`, Codex `payload.role`), when any.
    pub role: Option<String>,
    /// The entry id (pi `id`, Claude Code `uuid`), when any.
    pub id: Option<String>,
    /// The parent id named (pi `parentId`, Claude Code `parentUuid`), when any.
    pub parent: Option<String>,
    /// Whether the runner owns this entry (its kind and session).
    pub owned: bool,
    /// What is wrong with it (malformed, broken parent chain, foreign), if anything.
    pub problem: Option<String>,
}

/// The result of [`fence`].
#[derive(Debug, Clone)]
pub struct FenceReport {
    /// The verdict.
    pub verdict: Verdict,
    /// The detected format of the session file, when recognised.
    pub format: Option<FormatId>,
    /// OLD (or the recorded fingerprint).
    pub old: FileStat,
    /// NEW.
    pub new: FileStat,
    /// First differing byte (set for `replaced` and `rewrite` in the two-file form).
    pub first_difference: Option<Difference>,
    /// The appended lines (set when NEW starts with OLD and is longer).
    pub appended: Vec<AppendedEntry>,
    /// The findings that come with the verdict (none for `identical`, `append-owned`),
    /// sorted and fingerprinted by [`crate::finish`].
    pub findings: Vec<Finding>,
}

/// Parses a 64-digit hex SHA-256 (`--prefix-sha256`).
///
/// # Errors
/// [`Error::Usage`] when `s` is not 64 hex digits.
pub fn parse_sha256_hex(s: &str) -> Result<[u8; 32]> {
    let s = s.trim();
    let bad = || Error::Usage(format!("`{s}` is not a SHA-256 (64 hex digits)"));
    if s.len() != 64 || !s.is_ascii() {
        return Err(bad());
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(out)
}

/// Lower-case hex of a digest.
pub fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares NEW (a path, as given) with `baseline` and judges the change.
///
/// # Errors
/// [`Error::Io`] when a file cannot be opened or read, is not a regular file,
/// or shrinks while it is read; [`Error::UnknownFormat`] when NEW appends
/// well-formed lines to a file of no recognised session format (ownership
/// cannot be judged). Defects of the change itself are findings, never errors.
pub fn fence(baseline: &Baseline, new: &str, opts: &FenceOptions) -> Result<FenceReport> {
    // One consistent snapshot of both files: their stamps are taken before
    // and after (as OpenClaw's own fence stats before and after); a file
    // that changed in any way meanwhile (shrank, grew, was rewritten or
    // replaced) is judged again, then "changed while it was read" — never a
    // verdict on bytes that were never one file.
    let stamps = || {
        let one = |p: &str| std::fs::metadata(p).ok().map(|m| crate::source::Stamp::of(&m));
        let old = match baseline {
            Baseline::File(p) => one(p),
            Baseline::Fingerprint { .. } => None,
        };
        (one(new), old)
    };
    // Unchanged, not merely grown: truncating and writing a file anew makes
    // it grow from empty, and fence is run on files no one should be writing.
    let holds = |a: &Option<crate::source::Stamp>, b: &Option<crate::source::Stamp>| match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    for _ in 0..crate::formats::READ_TRIES {
        let before = stamps();
        let r = fence_once(baseline, new, opts);
        let after = stamps();
        // File times are coarse (a kernel tick): a file truncated and written
        // back to its size within one tick keeps its stamp, so the sizes
        // judged must also be the sizes stamped.
        let sized = |size: u64, s: &Option<crate::source::Stamp>| s.is_none_or(|s| s.len == size);
        let judged_sizes = match &r {
            Ok(rep) => sized(rep.new.size, &before.0) && (rep.old.path.is_none() || sized(rep.old.size, &before.1)),
            Err(_) => true,
        };
        if holds(&before.0, &after.0) && holds(&before.1, &after.1) && judged_sizes {
            return r;
        }
    }
    Err(Error::io(
        new,
        io::Error::other(format!(
            "NEW or OLD changed while it was read, {} times: another process is rewriting it; run fence again once that writer is done",
            crate::formats::READ_TRIES
        )),
    ))
}

/// One reading of [`fence`].
fn fence_once(baseline: &Baseline, new: &str, opts: &FenceOptions) -> Result<FenceReport> {
    let (mut new_f, sn) = open_sized(new)?;
    let (mut old_f, so, old_display) = match baseline {
        Baseline::File(p) => {
            let (f, n) = open_sized(p)?;
            (Some(f), n, Some(p.as_str()))
        }
        Baseline::Fingerprint { size, .. } => (None, *size, None),
    };
    let base = so;

    // The format, from OLD's head (NEW's when OLD is empty or only a fingerprint).
    let head = match old_f.as_mut() {
        Some(f) if so > 0 => read_at(f, 0, HEAD_BYTES).map_err(|e| Error::io(old_display.unwrap_or(new), e))?,
        _ => read_at(&mut new_f, 0, HEAD_BYTES).map_err(|e| Error::io(new, e))?,
    };
    let fmt = Format::sniff(&head);

    // Judge the appended bytes first (they are usually small) so that the
    // streaming pass knows which ids to look for in OLD.
    let mut app = None;
    if sn > base && plausible_prefix(old_f.as_mut(), &mut new_f, base).map_err(|e| Error::io(new, e))? {
        app = Some(read_append(&mut new_f, base, sn, &fmt, opts).map_err(|e| Error::io(new, e))?);
    }
    let needles = app.as_ref().map(|a| a.needles()).unwrap_or_default();
    // Search OLD for the quoted ids; when that cannot be relied on (ids a JSON
    // writer may escape), parse every line of OLD after the pass instead.
    let id_keys = fmt.schema.map_or(DEFAULT_ID_KEYS, |s| s.id_keys);
    let scan = needles.iter().all(|n| is_plain(n)).then(|| PrefixScan::new(&needles, id_keys));
    let searched = scan.is_some();
    let mut prefix = scan.unwrap_or_else(PrefixScan::lines_only);

    let pass = match (&baseline, old_f.as_mut()) {
        (Baseline::File(p), Some(of)) => {
            pass_files(of, so, &mut new_f, sn, opts.hashes, &mut prefix).map_err(|e| io_either(e, p, new))?
        }
        (Baseline::Fingerprint { size, sha256 }, _) => {
            pass_fingerprint(&mut new_f, sn, *size, sha256.as_ref(), opts.hashes, &mut prefix)
                .map_err(|e| Error::io(new, e))?
        }
        (Baseline::File(_), None) => return Err(Error::Internal("fence: OLD not opened".into())),
    };

    let format_id = fmt.id.unwrap_or(FormatId::UNKNOWN);
    let old_stat = FileStat {
        path: old_display.map(str::to_string),
        size: so,
        sha256: match baseline {
            Baseline::Fingerprint { sha256, .. } => sha256.map(|h| hex(&h)),
            Baseline::File(_) => pass.old_sha.map(|h| hex(&h)),
        },
    };
    let new_stat = FileStat { path: Some(new.to_string()), size: sn, sha256: pass.new_sha.map(|h| hex(&h)) };
    let mut report = FenceReport {
        verdict: Verdict::Identical,
        format: fmt.id,
        old: old_stat,
        new: new_stat,
        first_difference: None,
        appended: Vec::new(),
        findings: Vec::new(),
    };
    let old_name = old_display.unwrap_or("OLD");

    match pass.outcome {
        Outcome::Identical => {}
        Outcome::Truncate => {
            report.verdict = Verdict::Truncate;
            let line = match (sn, pass.last_byte) {
                (0, _) => 1,
                (_, Some(b'\n')) => to_line(prefix.newlines),
                _ => to_line(prefix.newlines + 1),
            };
            report.findings.push(truncate_finding(new, old_display, format_id, line, so - sn));
        }
        Outcome::HashMismatch => {
            report.verdict = Verdict::Rewrite;
            report.findings.push(
                Finding::new(
                    RuleId::NotAppendOnly,
                    new,
                    format_id,
                    format!(
                        "the SHA-256 of NEW's first {so} bytes does not match the recorded fingerprint: the prefix was rewritten (a fingerprint cannot locate the change)"
                    ),
                )
                .line(1)
                .key("fingerprint-mismatch")
                .help("compare NEW with a copy of the file taken at the fingerprint to see what changed"),
            );
        }
        Outcome::Diverge(d) => {
            let line = to_line(prefix.newlines + 1);
            let replaced = line == 1 && fmt.header_first_line;
            report.verdict = if replaced { Verdict::Replaced } else { Verdict::Rewrite };
            report.first_difference = Some(Difference { byte_offset: d, line });
            let at = Divergence { byte_offset: d, line, line_start: prefix.line_start, replaced };
            let f = match old_f.as_mut() {
                Some(of) => rewrite_finding(of, &mut new_f, &head, old_name, new, &fmt, at),
                None => return Err(Error::Internal("fence: a divergence without OLD".into())),
            };
            report.findings.push(f);
        }
        Outcome::Append => {
            let Some(app) = app else {
                // The quick plausibility check said "not a prefix" but the full pass
                // says it is: impossible unless the file changed under us.
                return Err(Error::io(new, io::Error::other("file changed while it was read")));
            };
            let known = if searched {
                verify_candidates(&mut new_f, &prefix.candidates, base, &fmt).map_err(|e| Error::io(new, e))?
            } else {
                scan_all(&mut new_f, base, &fmt).map_err(|e| Error::io(new, e))?
            };
            let windows = OldWindows::read(&mut new_f, base, &fmt).map_err(|e| Error::io(new, e))?;
            let glued = base > 0 && pass.prefix_last_byte != Some(b'\n');
            if app.lines.iter().all(|l| l.malformed.is_none()) && !glued && fmt.id.is_none() {
                return Err(Error::UnknownFormat {
                    path: new.into(),
                    tried: format!("tried: {}", record::formats().map(FormatId::as_str).collect::<Vec<_>>().join(", ")),
                    hint: "; fence needs a session format to judge who owns the appended entries".into(),
                });
            }
            judge_append(&mut report, app, &known, &windows, &fmt, new, format_id, to_line(prefix.newlines + 1), glued);
        }
    }
    crate::finish(&mut report.findings);
    Ok(report)
}

/// A truncation: NEW, `removed` bytes shorter than OLD, ends at `line`.
fn truncate_finding(new: &str, old: Option<&str>, format: FormatId, line: u32, removed: u64) -> Finding {
    let mut f = Finding::new(
        RuleId::NotAppendOnly,
        new,
        format,
        format!(
            "NEW is a proper byte prefix of OLD: its last {removed} byte{} are gone (NEW ends at line {line})",
            if removed == 1 { "" } else { "s" }
        ),
    )
    .line(line)
    .key("truncate")
    .help("the file was truncated, or an older copy was written back over it; the entries after this line were lost");
    if let Some(o) = old {
        f = f.related(o, Some(line), "", "OLD continues after this line");
    }
    f
}

/// Where OLD and NEW part ways (two-file form).
#[derive(Debug, Clone, Copy)]
struct Divergence {
    /// First differing byte.
    byte_offset: u64,
    /// Its 1-based line.
    line: u32,
    /// Offset of that line's first byte.
    line_start: u64,
    /// Line 1 of a pi session: the header was replaced.
    replaced: bool,
}

/// The `not-append-only` finding of a `rewrite` or `replaced` verdict, with
/// the column, an excerpt around the first differing byte and a bounded diff.
fn rewrite_finding(
    old: &mut File,
    new_f: &mut File,
    old_head: &[u8],
    old_name: &str,
    new: &str,
    fmt: &Format,
    at: Divergence,
) -> Finding {
    let format = fmt.id.unwrap_or(FormatId::UNKNOWN);
    let Divergence { byte_offset: d, line, line_start, replaced } = at;
    let max_lines = if replaced { 1 } else { DIFF_LINES };
    let (diff, column, excerpt) =
        rewrite_diff(old, new_f, line_start, d, line, old_name, new, max_lines).unwrap_or_default();
    let message = if replaced {
        match header_ids(fmt, old_head, new_f) {
            (Some(a), Some(b)) if a != b => {
                format!("the session header (line 1) was replaced: session id `{a}` became `{b}`")
            }
            _ => "the session header (line 1) was replaced".to_string(),
        }
    } else {
        format!(
            "NEW does not start with OLD: the first differing byte is at offset {d} (line {line}, column {column}); the file was rewritten, not appended"
        )
    };
    let mut f = Finding::new(RuleId::NotAppendOnly, new, format, message)
        .line(line)
        .excerpt(excerpt)
        .related(old_name, Some(line), "", if replaced { "OLD's header" } else { "OLD differs from here" })
        .help(if replaced {
            "another writer started the file afresh; the runner is no longer writing the session it locked"
        } else {
            "another writer rewrote the file in place (compaction, repair, an older copy written back); reload it instead of appending"
        });
    f.byte_offset = Some(d);
    f.column = Some(column.max(1));
    if !diff.is_empty() {
        f = f.diff(diff);
    }
    f
}

fn io_either(e: PassError, old: &str, new: &str) -> Error {
    match e {
        PassError::Old(e) => Error::io(old, e),
        PassError::New(e) => Error::io(new, e),
    }
}

fn to_line(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn open_sized(p: &str) -> Result<(File, u64)> {
    if p == "-" {
        return Err(Error::Usage("fence compares files on disk; `-` (standard input) cannot be fenced".into()));
    }
    let f = open_regular(Path::new(p)).map_err(|e| Error::io(p, e))?;
    let n = f.metadata().map_err(|e| Error::io(p, e))?.len();
    Ok((f, n))
}

/// Reads up to `len` bytes at `off`.
fn read_at(f: &mut File, off: u64, len: usize) -> io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(off))?;
    let mut v = Vec::with_capacity(len.min(BLOCK));
    f.take(len as u64).read_to_end(&mut v)?;
    Ok(v)
}

/// Cheap pre-check before parsing the appended bytes: do OLD's first and last
/// 64 KiB equal NEW's bytes at the same offsets? (Always true for a fingerprint.)
fn plausible_prefix(old: Option<&mut File>, new: &mut File, base: u64) -> io::Result<bool> {
    let Some(old) = old else { return Ok(true) };
    const W: u64 = 64 * 1024;
    for start in [0, base.saturating_sub(W)] {
        let len = (base - start).min(W) as usize;
        if read_at(old, start, len)? != read_at(new, start, len)? {
            return Ok(false);
        }
    }
    Ok(true)
}

// ---------------------------------------------------------------------------
// Format facts

#[derive(Clone, Copy, Default)]
struct Format {
    id: Option<FormatId>,
    /// The format's record facts (the loader's own classification).
    schema: Option<&'static RecordSchema>,
    /// The header's format version (pi; 1 when absent, 0 without a header).
    version: u64,
    /// Line 1 is a session header (pi): a change there is `replaced`.
    header_first_line: bool,
}

impl Format {
    fn sniff(head: &[u8]) -> Format {
        let complete = if head.len() >= HEAD_BYTES {
            match memchr::memrchr(b'\n', head) {
                Some(i) => &head[..i],
                None => head,
            }
        } else {
            head
        };
        let mut tried = 0;
        for (i, line) in complete.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            tried += 1;
            if tried > 8 {
                break;
            }
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if let Some(id) = crate::formats::sniff_jsonl_record(&v) {
                let schema = record::schema(id);
                let mut f = Format { id: Some(id), schema, version: 0, header_first_line: false };
                if let Some(rec) = f.classify(line).ok().filter(|r| r.header) {
                    f.header_first_line = i == 0;
                    f.version = rec.version.unwrap_or(1);
                }
                return f;
            }
        }
        Format::default()
    }

    /// The loader's facts of one line of this file.
    fn classify<'a>(&self, line: &'a [u8]) -> std::result::Result<Record<'a>, String> {
        match self.schema {
            Some(s) => (s.classify)(line, &record::Context { version: self.version }),
            None => Err("no record schema".into()),
        }
    }

    fn sessions(&self) -> Sessions {
        self.schema.map_or(Sessions::Unchecked, |s| s.sessions)
    }
}

/// The session ids of the line 1 headers of OLD (from `head`) and NEW.
fn header_ids(fmt: &Format, head: &[u8], new: &mut File) -> (Option<String>, Option<String>) {
    let id_of = |b: &[u8]| -> Option<String> {
        let line = b.split(|&c| c == b'\n').next()?;
        let rec = fmt.classify(line).ok().filter(|r| r.header)?;
        rec.id.map(|c| c.into_owned())
    };
    let new_head = read_at(new, 0, HEAD_BYTES).unwrap_or_default();
    (id_of(head), id_of(&new_head))
}

/// What OLD is known to contain, for judging appended entries.
#[derive(Debug, Default)]
struct Known {
    /// Tree ids (pi `id`, Claude Code `uuid`) found in OLD, with their line.
    ids: HashMap<String, u32>,
    /// Session ids found in OLD.
    sessions: HashSet<String>,
}

impl Known {
    fn add(&mut self, rec: &Record<'_>, line: u32) {
        if rec.tree && !rec.header {
            if let Some(id) = rec.id.as_deref() {
                self.ids.entry(id.to_string()).or_insert(line);
            }
        }
        if let Some(s) = rec.session.as_deref() {
            self.sessions.insert(s.to_string());
        }
    }
}

/// Facts read from OLD's first and last bytes.
#[derive(Debug, Default)]
struct OldWindows {
    /// OLD has at least one tree entry (pi v2+: an entry after the header;
    /// Claude Code: a record with `uuid`).
    has_root: bool,
    /// The first session id seen (Codex: OLD's first `session_meta` payload `id`).
    first_session: Option<String>,
    /// Session ids seen.
    sessions: HashSet<String>,
}

impl OldWindows {
    fn read(f: &mut File, base: u64, fmt: &Format) -> io::Result<OldWindows> {
        let mut w = OldWindows::default();
        if base == 0 || fmt.schema.is_none() {
            return Ok(w);
        }
        let head = read_at(f, 0, HEAD_BYTES.min(usize::try_from(base).unwrap_or(HEAD_BYTES)))?;
        let tail_start = base.saturating_sub(TAIL_BYTES as u64);
        let tail = read_at(f, tail_start, usize::try_from(base - tail_start).unwrap_or(TAIL_BYTES))?;
        let mut visit = |bytes: &[u8], from_start: bool| {
            let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            if !from_start && !lines.is_empty() {
                lines.remove(0); // partial first line
            }
            for line in lines {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let Ok(rec) = fmt.classify(line) else { continue };
                if rec.tree && !rec.header {
                    w.has_root = true;
                }
                if let Some(s) = rec.session {
                    if w.first_session.is_none() {
                        w.first_session = Some(s.to_string());
                    }
                    w.sessions.insert(s.into_owned());
                }
            }
        };
        visit(&head, true);
        visit(&tail, tail_start == 0);
        Ok(w)
    }
}

// ---------------------------------------------------------------------------
// The appended bytes

/// One appended line, judged on its own (before OLD's ids are known).
#[derive(Debug, Default)]
struct AppLine {
    /// 0-based index among the appended lines (after a glued segment).
    rel: u32,
    offset: u64,
    kind: Option<String>,
    role: Option<String>,
    id: Option<String>,
    parent: Option<String>,
    /// A node of the file's id tree ([`Record::tree`]): its id and parent are checked.
    tree: bool,
    /// Has an id and no parent (pi: `parentId` null or absent; Claude Code: `parentUuid: null`).
    root: bool,
    /// A root by design (Claude Code `compact_boundary`, sidechain start).
    root_exempt: bool,
    /// Claude Code `sessionId`, or Codex `session_meta` payload `id`.
    session: Option<String>,
    /// Owned by kind (before the session check).
    kind_owned: bool,
    /// A pi session header.
    header: bool,
    malformed: Option<String>,
    /// Start of the line (for excerpts).
    head: String,
    /// The raw text of a malformed line (capped), to recognise ids it carried.
    raw: Option<String>,
}

#[derive(Debug, Default)]
struct Append {
    /// The appended bytes up to their first newline continue OLD's last line.
    glued_raw: Option<String>,
    lines: Vec<AppLine>,
}

impl Append {
    /// Quoted ids and session ids to look for in OLD.
    fn needles(&self) -> Vec<Vec<u8>> {
        let mut set: HashSet<&str> = HashSet::new();
        for l in &self.lines {
            if l.malformed.is_some() {
                continue;
            }
            for s in [&l.id, &l.parent, &l.session].into_iter().flatten() {
                set.insert(s);
            }
        }
        let mut v: Vec<Vec<u8>> = set.into_iter().map(|s| format!("\"{s}\"").into_bytes()).collect();
        v.sort();
        v
    }
}

/// Ids that JSON writers put between quotes verbatim (printable ASCII, no `"` or `\`).
fn is_plain(quoted: &[u8]) -> bool {
    let inner = &quoted[1..quoted.len() - 1];
    !inner.is_empty() && inner.iter().all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

fn read_append(f: &mut File, base: u64, sn: u64, fmt: &Format, opts: &FenceOptions) -> io::Result<Append> {
    let glued = base > 0 && read_at(f, base - 1, 1)?.first() != Some(&b'\n');
    f.seek(SeekFrom::Start(base))?;
    let mut lr = LineReader::new(f.take(sn - base));
    let mut app = Append::default();
    let mut rel = 0u32;
    let mut first = glued;
    while let Some(line) = lr.next_line()? {
        if first {
            first = false;
            app.glued_raw = Some(String::from_utf8_lossy(&line.bytes[..line.bytes.len().min(KEEP_RAW)]).into_owned());
            continue;
        }
        let mut l = judge_line(fmt, &line, base == 0 && rel == 0, opts);
        l.rel = rel;
        l.offset = base + line.offset;
        app.lines.push(l);
        rel += 1;
    }
    Ok(app)
}

fn judge_line(fmt: &Format, line: &crate::source::Line<'_>, first_in_file: bool, opts: &FenceOptions) -> AppLine {
    let b = line.bytes;
    let mut l = AppLine {
        head: crate::text::prefix(&String::from_utf8_lossy(&b[..b.len().min(400)]), 200).to_string(),
        ..Default::default()
    };
    let mut problem: Option<String> = None;
    if !line.terminated {
        problem = Some("the append does not end with a newline: its last line is unterminated (a torn write; the next append would be glued onto it)".into());
    }
    let screened = if line.too_long {
        Some(format!("line is {} bytes, longer than the {MAX_LINE} byte limit", line.len))
    } else if b.iter().all(u8::is_ascii_whitespace) {
        Some("blank line: an appended line must be one JSON entry".to_string())
    } else if let Some(i) = memchr::memchr(0, b) {
        Some(format!("NUL byte at column {}", i + 1))
    } else if let Err(e) = std::str::from_utf8(b) {
        Some(format!("invalid UTF-8 at byte {} of the line", e.valid_up_to()))
    } else {
        None
    };
    if let Some(p) = screened {
        problem.get_or_insert(p);
    } else if fmt.schema.is_some() {
        if let Err(p) = judge_record(fmt, b, first_in_file, opts, &mut l) {
            problem.get_or_insert(p);
        }
    } else {
        // No record schema (an unknown format): any JSON object is an entry.
        match serde_json::from_slice::<Value>(b) {
            Ok(Value::Object(m)) => l.kind = m.get("type").and_then(Value::as_str).map(str::to_string),
            Ok(_) => {
                problem.get_or_insert("not a JSON object: an entry must be an object".into());
            }
            Err(e) => {
                problem.get_or_insert(format!("not one valid JSON value: {}", describe_json_error(&e)));
            }
        }
    }
    if problem.is_some() {
        l.raw = Some(String::from_utf8_lossy(&b[..b.len().min(KEEP_RAW)]).into_owned());
    }
    l.malformed = problem;
    l
}

/// Fills the facts of `l` from the format's own record classification
/// ([`RecordSchema::classify`], the loader's parser); `Err` = the line is not
/// a record of the format, or a field the runtime always writes is missing.
fn judge_record(
    fmt: &Format,
    line: &[u8],
    first_in_file: bool,
    opts: &FenceOptions,
    l: &mut AppLine,
) -> std::result::Result<(), String> {
    let rec = fmt.classify(line)?;
    if let (None, Some(p)) = (&rec.kind, &rec.problem) {
        // A record without its kind: nothing else is read from it.
        return Err(p.clone());
    }
    l.kind = rec.kind.as_deref().map(str::to_string);
    l.role = rec.role.as_deref().map(str::to_string);
    l.session = rec.session.as_deref().map(str::to_string);
    l.header = rec.header;
    l.root_exempt = rec.root_exempt;
    if rec.tree {
        l.tree = true;
        l.id = rec.id.as_deref().map(str::to_string);
        match &rec.parent {
            record::Parent::Null => l.root = true,
            record::Parent::Id(p) => l.parent = Some(p.to_string()),
            record::Parent::Absent => {}
        }
    }
    l.kind_owned = if rec.header {
        // The header of a file that was empty; anywhere else it is a second header.
        first_in_file
    } else {
        match opts.owned.as_deref() {
            Some(list) => rec.owned_names().any(|k| list.iter().any(|o| o == k)),
            None => rec.runner_writes,
        }
    };
    match rec.problem {
        Some(p) => Err(p),
        None => Ok(()),
    }
}

#[allow(clippy::too_many_arguments)]
fn judge_append(
    report: &mut FenceReport,
    app: Append,
    known: &Known,
    w: &OldWindows,
    fmt: &Format,
    new: &str,
    format_id: FormatId,
    first_line: u32,
    glued: bool,
) {
    let mut broken: Vec<Finding> = Vec::new();
    let mut foreign: Option<Finding> = None;
    let raws: Vec<&str> =
        app.glued_raw.iter().map(String::as_str).chain(app.lines.iter().filter_map(|l| l.raw.as_deref())).collect();
    let lines_start = if glued {
        broken.push(
            Finding::new(
                RuleId::MalformedLine,
                new,
                format_id,
                "the append does not start on a line of its own: OLD's last line had no trailing newline, and the appended bytes continue it",
            )
            .line(first_line)
            .excerpt(app.glued_raw.as_deref().map(|r| crate::text::prefix(r, 200)).unwrap_or(""))
            .key("glued-append")
            .help("a writer appended to a file whose last line was torn; repair the last line before appending"),
        );
        first_line.saturating_add(1)
    } else {
        first_line
    };
    let mut app_ids: HashMap<&str, u32> = HashMap::new();
    let mut has_root = w.has_root || !known.ids.is_empty();
    // Claude Code: the sessions of OLD; when OLD has none, the first appended one.
    // AnyOfFile (Claude Code): the sessions of OLD; when OLD has none, the first appended one.
    let mut file_sessions: HashSet<&str> = w.sessions.iter().chain(known.sessions.iter()).map(String::as_str).collect();
    // Single (Codex): OLD's first session; when OLD has none, the first appended one.
    let mut single_session: Option<&str> = w.first_session.as_deref();
    for l in &app.lines {
        let line = lines_start.saturating_add(l.rel);
        let mut entry = AppendedEntry {
            line,
            byte_offset: l.offset,
            kind: l.kind.clone(),
            role: l.role.clone(),
            id: l.id.clone(),
            parent: l.parent.clone(),
            owned: false,
            problem: None,
        };
        let at = |f: Finding| -> Finding {
            let mut f = f.line(line).entry_id(l.id.as_deref());
            f.byte_offset = Some(l.offset);
            f.column = Some(1);
            f
        };
        if let Some(p) = &l.malformed {
            // Ownership is moot for a malformed line; the table shows what its kind says.
            entry.owned = l.kind_owned;
            entry.problem = Some(p.clone());
            broken.push(at(Finding::new(
                RuleId::MalformedLine,
                new,
                format_id,
                format!("appended line is not a valid entry: {p}"),
            )
            .excerpt(l.head.clone())
            .key(format!("{p}:{}", l.head))
            .help(
                "every appended line must be one JSON entry with the fields its format requires, ending with a newline",
            )));
            report.appended.push(entry);
            continue;
        }
        // Ids and parents (pi v2+, Claude Code records with a uuid).
        let mut chain: Option<(String, Option<u32>)> = None;
        if l.tree {
            if let Some(id) = l.id.as_deref() {
                if let Some(&first) = known.ids.get(id).or_else(|| app_ids.get(id)) {
                    chain = Some((format!("appended entry reuses the id `{id}` of line {first}"), Some(first)));
                } else if let Some(p) = l.parent.as_deref() {
                    if !known.ids.contains_key(p) && !app_ids.contains_key(p) && !raws.iter().any(|r| r.contains(p)) {
                        chain = Some((format!("appended entry's parent `{p}` names no entry of the file"), None));
                    }
                } else if l.root && has_root && !l.root_exempt {
                    chain = Some((
                        "appended entry has no parent although the file already has a root: a second root".into(),
                        None,
                    ));
                }
                app_ids.entry(id).or_insert(line);
                has_root = true;
            }
        }
        if let Some((msg, related)) = chain {
            entry.problem = Some(msg.clone());
            let mut f = at(Finding::new(RuleId::BrokenParentChain, new, format_id, msg.clone())
                .excerpt(l.head.clone())
                .key(msg))
            .help("an appended entry must have a fresh id and a parent that is already in the file");
            if let Some(r) = related {
                f = f.related(new, Some(r), "", "id first used here");
            }
            broken.push(f);
            report.appended.push(entry);
            continue;
        }
        // Ownership: kind, then session.
        let session_ok = match (fmt.sessions(), l.session.as_deref()) {
            (Sessions::AnyOfFile, Some(s)) => {
                if file_sessions.is_empty() {
                    file_sessions.insert(s);
                }
                file_sessions.contains(s)
            }
            (Sessions::Single, Some(s)) => *single_session.get_or_insert(s) == s,
            _ => true,
        };
        entry.owned = l.kind_owned && session_ok;
        if !entry.owned {
            let what = describe_kind(l);
            let msg = if !session_ok {
                format!(
                    "appended {what} belongs to another session (`{}`): not the runner's",
                    l.session.as_deref().unwrap_or("")
                )
            } else if l.header {
                "a session header was appended mid-file: not an entry the runner writes".to_string()
            } else {
                format!("appended {what} is not a kind the runner owns: another writer changed the session")
            };
            entry.problem = Some(msg.clone());
            if foreign.is_none() {
                foreign = Some(
                    at(Finding::new(RuleId::ForeignAppend, new, format_id, msg).excerpt(l.head.clone()).key(format!("foreign:{what}")))
                        .help("another writer appended while the runner had released its lock; reload the session before the next step"),
                );
            }
        }
        report.appended.push(entry);
    }
    if !broken.is_empty() {
        report.verdict = Verdict::AppendMalformed;
        report.findings.extend(broken);
    } else if let Some(f) = foreign {
        report.verdict = Verdict::AppendForeign;
        report.findings.push(f);
    } else {
        report.verdict = Verdict::AppendOwned;
    }
}

fn describe_kind(l: &AppLine) -> String {
    match (l.kind.as_deref(), l.role.as_deref()) {
        (Some("message"), Some(r)) => format!("`{r}` message"),
        (Some(k), Some(r)) => format!("`{k}` record (role `{r}`)"),
        (Some(k), None) => format!("`{k}` entry"),
        _ => "entry".into(),
    }
}

// ---------------------------------------------------------------------------
// The streaming pass

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Identical,
    /// NEW starts with OLD and is longer.
    Append,
    /// NEW is a proper prefix of OLD (or shorter than the fingerprint size).
    Truncate,
    /// First differing byte.
    Diverge(u64),
    /// The fingerprint's hash does not match.
    HashMismatch,
}

struct Pass {
    outcome: Outcome,
    /// Last byte of the common bytes (NEW's last byte for `Truncate`).
    last_byte: Option<u8>,
    /// Last byte of OLD's bytes (for `Append`: whether OLD ended with `\n`).
    prefix_last_byte: Option<u8>,
    old_sha: Option<[u8; 32]>,
    new_sha: Option<[u8; 32]>,
}

enum PassError {
    Old(io::Error),
    New(io::Error),
}

/// How the quoted ids are searched for.
enum Searcher {
    /// Nothing to look for.
    None,
    /// A few needles: one SIMD substring search each (memchr's `memmem`
    /// picks the needle's rarest bytes, so sequential hex ids stay fast).
    Finders(Vec<memchr::memmem::Finder<'static>>),
    /// Many needles (a long append): every value of an id key (`"id"`,
    /// `"uuid"`, `"sessionId"`) is looked up in a set instead.
    Keys {
        /// Finders for the quoted keys.
        keys: Vec<memchr::memmem::Finder<'static>>,
        /// The needles without their quotes.
        values: HashSet<Vec<u8>>,
        /// Longest value.
        longest: usize,
    },
}

/// Above this many needles, looking up every id value beats one search per needle.
const MAX_FINDERS: usize = 16;
/// The keys whose values the [`Searcher::Keys`] search looks up when the
/// format has no record schema (else its [`RecordSchema::id_keys`]).
const DEFAULT_ID_KEYS: &[&str] = &["id", "uuid", "sessionId"];
/// Whitespace allowed around the `:` after a key by the [`Searcher::Keys`] search
/// (more is not found across a block boundary).
const KEY_SLACK: usize = 32;

/// With the `Keys` search: the end of the value that follows the key at
/// `hay[at..]`, when it is one of `values`.
fn key_value_end(hay: &[u8], at: usize, values: &HashSet<Vec<u8>>, longest: usize) -> Option<usize> {
    let ws = |b: &u8| matches!(b, b' ' | b'\t');
    let mut j = at;
    while hay.get(j).is_some_and(ws) {
        j += 1;
    }
    if hay.get(j) != Some(&b':') {
        return None;
    }
    j += 1;
    while hay.get(j).is_some_and(ws) {
        j += 1;
    }
    if hay.get(j) != Some(&b'"') {
        return None;
    }
    let v = j + 1;
    let window = &hay[v.min(hay.len())..(v + longest + 1).min(hay.len())];
    let end = v + memchr::memchr(b'"', window)?;
    values.contains(&hay[v..end]).then_some(end + 1)
}

/// Newline counting and id search over the bytes both files share.
struct PrefixScan {
    /// Newlines seen.
    newlines: u64,
    /// Offset of the start of the current line (after the last newline).
    line_start: u64,
    searcher: Searcher,
    /// Longest needle − 1: bytes kept from the previous block to find needles that straddle two.
    keep: usize,
    tail: Vec<u8>,
    /// Match starts within the current block (scratch).
    hits: Vec<usize>,
    /// Candidate lines: start offset → 1-based line number.
    candidates: BTreeMap<u64, u32>,
}

impl PrefixScan {
    /// A scan looking for `needles` (quoted, plain ids: see [`is_plain`]); a
    /// long list is looked up as the values of `id_keys`.
    fn new(needles: &[Vec<u8>], id_keys: &[&str]) -> PrefixScan {
        let searcher = if needles.is_empty() {
            Searcher::None
        } else if needles.len() <= MAX_FINDERS {
            Searcher::Finders(needles.iter().map(|n| memchr::memmem::Finder::new(n).into_owned()).collect())
        } else {
            let values: HashSet<Vec<u8>> = needles.iter().map(|n| n[1..n.len() - 1].to_vec()).collect();
            let longest = values.iter().map(Vec::len).max().unwrap_or(0);
            let keys = id_keys
                .iter()
                .map(|k| memchr::memmem::Finder::new(format!("\"{k}\"").as_bytes()).into_owned())
                .collect();
            Searcher::Keys { keys, values, longest }
        };
        let longest = needles.iter().map(Vec::len).max().unwrap_or(1);
        let keep = match searcher {
            Searcher::Keys { .. } => id_keys.iter().map(|k| k.len() + 2).max().unwrap_or(0) + 2 * KEY_SLACK + longest,
            _ => longest.saturating_sub(1),
        };
        PrefixScan {
            newlines: 0,
            line_start: 0,
            searcher,
            keep,
            tail: Vec::new(),
            hits: Vec::new(),
            candidates: BTreeMap::new(),
        }
    }

    /// A scan that only counts lines.
    fn lines_only() -> PrefixScan {
        PrefixScan {
            newlines: 0,
            line_start: 0,
            searcher: Searcher::None,
            keep: 0,
            tail: Vec::new(),
            hits: Vec::new(),
            candidates: BTreeMap::new(),
        }
    }

    /// Pushes the (start, end) of every needle found in `hay` onto `out`.
    fn find(searcher: &Searcher, hay: &[u8], out: &mut Vec<(usize, usize)>) {
        match searcher {
            Searcher::None => {}
            Searcher::Finders(fs) => {
                for f in fs {
                    let n = f.needle().len();
                    out.extend(f.find_iter(hay).map(|s| (s, s + n)));
                }
            }
            Searcher::Keys { keys, values, longest } => {
                for f in keys {
                    let n = f.needle().len();
                    out.extend(
                        f.find_iter(hay).filter_map(|s| key_value_end(hay, s + n, values, *longest).map(|e| (s, e))),
                    );
                }
            }
        }
    }

    /// Feeds `b`, the bytes at offset `pos` (called with consecutive ranges).
    fn feed(&mut self, pos: u64, b: &[u8]) {
        if b.is_empty() {
            return;
        }
        if !matches!(self.searcher, Searcher::None) {
            let ls_prev = self.line_start;
            let mut found: Vec<(usize, usize)> = Vec::new();
            if self.keep > 0 && !self.tail.is_empty() {
                let t = self.tail.len();
                let mut j = self.tail.clone();
                j.extend_from_slice(&b[..self.keep.min(b.len())]);
                Self::find(&self.searcher, &j, &mut found);
                if found.iter().any(|&(s, e)| s < t && e > t) {
                    // Needles hold no newline: the match is on the line that was current.
                    self.candidates.entry(ls_prev).or_insert(to_line(self.newlines + 1));
                }
                found.clear();
            }
            Self::find(&self.searcher, b, &mut found);
            self.hits.clear();
            self.hits.extend(found.iter().map(|&(s, _)| s));
            self.hits.sort_unstable();
            let mut cursor = 0usize;
            let mut nl = self.newlines;
            for &s in &self.hits {
                nl += memchr::memchr_iter(b'\n', &b[cursor..s]).count() as u64;
                cursor = s;
                let ls = memchr::memrchr(b'\n', &b[..s]).map(|i| pos + i as u64 + 1).unwrap_or(ls_prev);
                self.candidates.entry(ls).or_insert(to_line(nl + 1));
            }
            if b.len() >= self.keep {
                self.tail.clear();
                self.tail.extend_from_slice(&b[b.len() - self.keep..]);
            } else {
                self.tail.extend_from_slice(b);
                let extra = self.tail.len().saturating_sub(self.keep);
                self.tail.drain(..extra);
            }
        }
        self.newlines += memchr::memchr_iter(b'\n', b).count() as u64;
        if let Some(i) = memchr::memrchr(b'\n', b) {
            self.line_start = pos + i as u64 + 1;
        }
    }
}

/// Fills `buf` from `f`, reading at most `*remaining` bytes; a file that ends
/// early (it shrank while being read) is an error.
fn fill(f: &mut File, buf: &mut [u8], remaining: &mut u64) -> io::Result<usize> {
    let want = usize::try_from((buf.len() as u64).min(*remaining)).unwrap_or(buf.len());
    let mut n = 0;
    while n < want {
        match f.read(&mut buf[n..want]) {
            Ok(0) => {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "file shrank while it was read"));
            }
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    *remaining -= n as u64;
    Ok(n)
}

/// Index of the first differing byte of two equal-length slices (`a.len()` when equal).
fn first_diff(a: &[u8], b: &[u8]) -> usize {
    if a == b {
        return a.len();
    }
    const C: usize = 64;
    let mut i = 0;
    while i + C <= a.len() && a[i..i + C] == b[i..i + C] {
        i += C;
    }
    i + a[i..].iter().zip(&b[i..]).position(|(x, y)| x != y).unwrap_or(a.len() - i)
}

/// Which file hashed bytes belong to.
#[derive(Debug, Clone, Copy)]
enum Side {
    /// Bytes both files share (before they part ways).
    Both,
    Old,
    New,
}

enum HashMsg {
    /// `buf[..len]` belongs to `side`.
    Bytes(Side, Vec<u8>, usize),
    /// The files part ways here: OLD's and NEW's hashes continue from the shared state.
    Fork,
}

/// SHA-256 of (OLD, or NEW's first N bytes for a fingerprint; NEW).
type Digests = ([u8; 32], [u8; 32]);

/// Buffers in flight: the reader holds two, the hashing thread queues the rest.
const POOL: usize = 8;

/// The running SHA-256 state of a pass: one hash while the files agree,
/// two (OLD, NEW) from the point where they part ways.
#[derive(Default)]
struct HashState {
    common: Sha256,
    split: Option<(Sha256, Sha256)>,
}

impl HashState {
    fn apply(&mut self, m: HashMsg) -> Option<Vec<u8>> {
        match m {
            HashMsg::Fork => {
                self.split = Some((self.common.clone(), self.common.clone()));
                None
            }
            HashMsg::Bytes(side, buf, len) => {
                let bytes = &buf[..len.min(buf.len())];
                match (side, &mut self.split) {
                    (Side::Both, _) | (_, None) => self.common.update(bytes),
                    (Side::Old, Some((o, _))) => o.update(bytes),
                    (Side::New, Some((_, n))) => n.update(bytes),
                }
                Some(buf)
            }
        }
    }

    fn finish(self) -> Digests {
        match self.split {
            Some((o, n)) => (o.finalize().into(), n.finalize().into()),
            None => {
                let d: [u8; 32] = self.common.finalize().into();
                (d, d)
            }
        }
    }
}

/// Where blocks are hashed: on a second thread, or (when no thread can be
/// started: a pids limit) on the calling thread.
enum Hasher {
    Thread(SyncSender<HashMsg>, JoinHandle<Digests>),
    Inline(Box<std::cell::RefCell<HashState>>),
}

/// The block buffers of a pass, and the thread that hashes them.
///
/// With hashing on, SHA-256 runs on a second thread while the calling thread
/// reads and compares: blocks travel to it through a bounded channel and come
/// back through the pool, so memory stays at [`POOL`] blocks. When that
/// thread cannot be started, the calling thread hashes each block itself.
struct Blocks {
    pool_tx: SyncSender<Vec<u8>>,
    pool_rx: Receiver<Vec<u8>>,
    hasher: Option<Hasher>,
}

impl Blocks {
    fn new(hash: bool, block: usize) -> Blocks {
        let (pool_tx, pool_rx) = sync_channel(POOL);
        // Without hashing the reader only ever holds two blocks.
        for _ in 0..if hash { POOL } else { 2 } {
            let _ = pool_tx.try_send(vec![0u8; block]);
        }
        let hasher = hash.then(|| {
            let (tx, rx) = sync_channel::<HashMsg>(POOL);
            let back = pool_tx.clone();
            let spawned = std::thread::Builder::new().name("ctxlint-sha256".into()).spawn(move || {
                let mut state = HashState::default();
                for m in rx {
                    if let Some(buf) = state.apply(m) {
                        let _ = back.try_send(buf);
                    }
                }
                state.finish()
            });
            match spawned {
                Ok(handle) => Hasher::Thread(tx, handle),
                Err(_) => Hasher::Inline(Box::new(std::cell::RefCell::new(HashState::default()))),
            }
        });
        Blocks { pool_tx, pool_rx, hasher }
    }

    /// A free block. Should the hashing thread have died with blocks in
    /// flight, a fresh one is allocated rather than waiting forever (the
    /// failure is then reported by [`Blocks::finish`]).
    fn get(&self) -> Vec<u8> {
        loop {
            match self.pool_rx.recv_timeout(std::time::Duration::from_millis(200)) {
                Ok(b) => return b,
                Err(RecvTimeoutError::Timeout) if matches!(&self.hasher, Some(Hasher::Thread(_, h)) if !h.is_finished()) =>
                    {}
                Err(_) => return vec![0u8; BLOCK],
            }
        }
    }

    /// Returns a block to the pool.
    fn give(&self, b: Vec<u8>) {
        let _ = self.pool_tx.try_send(b);
    }

    /// Hashes `b[..len]` as `side` (when hashing), then recycles `b`.
    fn hash(&self, side: Side, b: Vec<u8>, len: usize) {
        match &self.hasher {
            Some(Hasher::Thread(tx, _)) => {
                let _ = tx.send(HashMsg::Bytes(side, b, len));
            }
            Some(Hasher::Inline(state)) => {
                if let Some(b) = state.borrow_mut().apply(HashMsg::Bytes(side, b, len)) {
                    self.give(b);
                }
            }
            None => self.give(b),
        }
    }

    fn fork(&self) {
        match &self.hasher {
            Some(Hasher::Thread(tx, _)) => {
                let _ = tx.send(HashMsg::Fork);
            }
            Some(Hasher::Inline(state)) => {
                state.borrow_mut().apply(HashMsg::Fork);
            }
            None => {}
        }
    }

    /// Reads the rest of `f` and hashes it as `side`.
    fn drain(&self, f: &mut File, side: Side, remaining: &mut u64) -> io::Result<()> {
        while *remaining > 0 {
            let mut b = self.get();
            let n = fill(f, &mut b, remaining)?;
            self.hash(side, b, n);
        }
        Ok(())
    }

    /// Waits for the hashes: (OLD or the shared prefix, NEW); `None` without hashing.
    fn finish(self) -> io::Result<Option<Digests>> {
        match self.hasher {
            None => Ok(None),
            Some(Hasher::Inline(state)) => Ok(Some(state.into_inner().finish())),
            Some(Hasher::Thread(tx, handle)) => {
                drop(tx);
                handle.join().map(Some).map_err(|_| io::Error::other("the hashing thread failed"))
            }
        }
    }
}

/// The two-file pass: compares OLD (`so` bytes) with NEW (`sn` bytes).
fn pass_files(
    old: &mut File,
    so: u64,
    new: &mut File,
    sn: u64,
    hashes: bool,
    scan: &mut PrefixScan,
) -> std::result::Result<Pass, PassError> {
    old.seek(SeekFrom::Start(0)).map_err(PassError::Old)?;
    new.seek(SeekFrom::Start(0)).map_err(PassError::New)?;
    let block = BLOCK.min(usize::try_from(so.max(sn)).unwrap_or(BLOCK).max(1));
    let blocks = Blocks::new(hashes, block);
    let (mut ro, mut rn) = (so, sn);
    let mut pos = 0u64;
    let mut pass =
        Pass { outcome: Outcome::Identical, last_byte: None, prefix_last_byte: None, old_sha: None, new_sha: None };
    loop {
        let (mut bo, mut bn) = (blocks.get(), blocks.get());
        let a = fill(old, &mut bo, &mut ro).map_err(PassError::Old)?;
        let b = fill(new, &mut bn, &mut rn).map_err(PassError::New)?;
        let m = a.min(b);
        let i = first_diff(&bo[..m], &bn[..m]);
        scan.feed(pos, &bn[..i]);
        if i > 0 {
            pass.last_byte = Some(bn[i - 1]);
        }
        pos += i as u64;
        if i == m && a == b {
            blocks.give(bo);
            blocks.hash(Side::Both, bn, i);
            if a == 0 {
                break;
            }
            continue;
        }
        // The files part ways in this block.
        pass.outcome = if i < m {
            Outcome::Diverge(pos)
        } else if a < b {
            pass.prefix_last_byte = pass.last_byte;
            Outcome::Append
        } else {
            Outcome::Truncate
        };
        if hashes {
            let (old_rest, new_rest) = (bo[i..a].to_vec(), bn[i..b].to_vec());
            blocks.give(bo);
            blocks.hash(Side::Both, bn, i);
            blocks.fork();
            let (lo, ln) = (old_rest.len(), new_rest.len());
            blocks.hash(Side::Old, old_rest, lo);
            blocks.drain(old, Side::Old, &mut ro).map_err(PassError::Old)?;
            blocks.hash(Side::New, new_rest, ln);
            blocks.drain(new, Side::New, &mut rn).map_err(PassError::New)?;
        }
        break;
    }
    if let Some((o, n)) = blocks.finish().map_err(PassError::New)? {
        pass.old_sha = Some(o);
        pass.new_sha = Some(n);
    }
    Ok(pass)
}

/// The fingerprint pass: NEW's first `size` bytes stand for OLD.
fn pass_fingerprint(
    new: &mut File,
    sn: u64,
    size: u64,
    sha: Option<&[u8; 32]>,
    hashes: bool,
    scan: &mut PrefixScan,
) -> io::Result<Pass> {
    new.seek(SeekFrom::Start(0))?;
    let blocks = Blocks::new(hashes || sha.is_some(), BLOCK.min(usize::try_from(sn).unwrap_or(BLOCK).max(1)));
    let mut rem = sn;
    let mut pos = 0u64;
    let mut forked = false;
    let mut pass =
        Pass { outcome: Outcome::Identical, last_byte: None, prefix_last_byte: None, old_sha: None, new_sha: None };
    if size == 0 {
        blocks.fork();
        forked = true;
    }
    while rem > 0 && (pos < size || hashes) {
        let mut b = blocks.get();
        let n = fill(new, &mut b, &mut rem)?;
        let in_prefix = usize::try_from(size.saturating_sub(pos)).unwrap_or(usize::MAX).min(n);
        if in_prefix > 0 {
            scan.feed(pos, &b[..in_prefix]);
            pass.last_byte = Some(b[in_prefix - 1]);
        }
        if forked || in_prefix == n && pos + (n as u64) < size {
            blocks.hash(if forked { Side::New } else { Side::Both }, b, n);
        } else {
            // The fingerprint's end is in this block.
            let rest = b[in_prefix..n].to_vec();
            blocks.hash(Side::Both, b, in_prefix);
            blocks.fork();
            forked = true;
            let l = rest.len();
            blocks.hash(Side::New, rest, l);
        }
        pos += n as u64;
    }
    let digests = blocks.finish()?;
    if hashes {
        pass.new_sha = digests.map(|d| d.1);
    }
    pass.prefix_last_byte = pass.last_byte;
    let prefix_sha = digests.filter(|_| forked).map(|d| d.0);
    pass.outcome = if sn < size {
        Outcome::Truncate
    } else if sha.is_some_and(|s| prefix_sha.as_ref() != Some(s)) {
        Outcome::HashMismatch
    } else if sn == size {
        Outcome::Identical
    } else {
        Outcome::Append
    };
    Ok(pass)
}

/// Reads the line starting at `off` (up to `limit` and [`MAX_LINE`]).
fn read_line_at(f: &mut File, off: u64, limit: u64) -> io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(off))?;
    let mut r = io::BufReader::with_capacity(64 * 1024, f.take(limit.saturating_sub(off).min(MAX_LINE as u64)));
    let mut v = Vec::new();
    io::BufRead::read_until(&mut r, b'\n', &mut v)?;
    Ok(v)
}

/// Parses the candidate lines the needle search found and records their ids.
fn verify_candidates(f: &mut File, cands: &BTreeMap<u64, u32>, limit: u64, fmt: &Format) -> io::Result<Known> {
    let mut k = Known::default();
    for (&off, &line) in cands {
        let bytes = read_line_at(f, off, limit)?;
        if let Ok(rec) = fmt.classify(&bytes) {
            k.add(&rec, line);
        }
    }
    Ok(k)
}

/// The slow path for ids a quoted search cannot find reliably: parses every line of OLD.
fn scan_all(f: &mut File, limit: u64, fmt: &Format) -> io::Result<Known> {
    let mut k = Known::default();
    f.seek(SeekFrom::Start(0))?;
    let mut lr = LineReader::new(f.take(limit));
    while let Some(l) = lr.next_line()? {
        if let Ok(rec) = fmt.classify(l.bytes) {
            k.add(&rec, l.no);
        }
    }
    Ok(k)
}

// ---------------------------------------------------------------------------
// The rewrite diff

/// Complete lines of a window (the last partial one too when nothing else is there).
fn window_lines(b: &[u8], at_eof: bool) -> Vec<String> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    if v.len() > 1 && (!at_eof || v.last().is_some_and(|l| l.is_empty())) {
        v.pop();
    }
    v.into_iter().take(DIFF_LINES).map(|l| String::from_utf8_lossy(l).into_owned()).collect()
}

fn clip(s: &str, from: usize) -> String {
    let mut out = String::new();
    if from > 0 && s.chars().count() > from {
        out.push('…');
    }
    let mut it = s.chars().skip(from);
    out.extend(it.by_ref().take(DIFF_WIDTH));
    if it.next().is_some() {
        out.push('…');
    }
    out
}

/// A bounded unified diff of the lines from the first differing one, the
/// 1-based column of the first differing byte, and NEW's changed line clipped
/// around it (the excerpt).
#[allow(clippy::too_many_arguments)]
fn rewrite_diff(
    old: &mut File,
    new: &mut File,
    line_start: u64,
    d: u64,
    line: u32,
    old_name: &str,
    new_name: &str,
    max_lines: usize,
) -> io::Result<(String, u32, String)> {
    let ob = read_at(old, line_start, DIFF_WINDOW)?;
    let nb = read_at(new, line_start, DIFF_WINDOW)?;
    let within = usize::try_from(d - line_start).unwrap_or(0);
    let column = if within <= nb.len() {
        String::from_utf8_lossy(&nb[..within]).chars().count() as u32 + 1
    } else {
        // Past the window: count the characters up to the difference in
        // chunks (UTF-8 lead bytes; an invalid byte counts as one).
        let mut chars = 0u64;
        let mut at = line_start;
        while at < d {
            let n = usize::try_from(d - at).unwrap_or(usize::MAX).min(1 << 20);
            let chunk = read_at(new, at, n)?;
            if chunk.is_empty() {
                break;
            }
            chars += chunk.iter().filter(|b| (**b & 0xC0) != 0x80).count() as u64;
            at += chunk.len() as u64;
        }
        u32::try_from(chars + 1).unwrap_or(u32::MAX)
    };
    let mut ol = window_lines(&ob, ob.len() < DIFF_WINDOW);
    let mut nl = window_lines(&nb, nb.len() < DIFF_WINDOW);
    ol.truncate(max_lines);
    nl.truncate(max_lines);
    // Secrets are masked before lines are clipped: a clip could cut a key
    // in two and leave a part no mask recognises. The window is shifted by
    // what the masks removed from the first changed line.
    let raw_first = nl.first().map_or(0, |l| l.chars().count());
    for l in ol.iter_mut().chain(nl.iter_mut()) {
        if let std::borrow::Cow::Owned(m) = crate::text::mask_cow(l) {
            *l = m;
        }
    }
    let removed = raw_first.saturating_sub(nl.first().map_or(0, |l| l.chars().count()));
    let from = (column as usize - 1).saturating_sub(60).saturating_sub(removed);
    let excerpt = nl.first().map(|l| clip(l, from)).unwrap_or_default();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &ol, &nl);
    let mut out = format!("--- {}\n+++ {}\n", crate::text::mask_cow(old_name), crate::text::mask_cow(new_name));
    for group in similar::group_diff_ops(ops, 2) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (os, oe) = (first.old_range().start, last.old_range().end);
        let (ns, ne) = (first.new_range().start, last.new_range().end);
        out.push_str(&format!("@@ -{},{} +{},{} @@\n", os + line as usize, oe - os, ns + line as usize, ne - ns));
        for op in &group {
            let (tag, o, n) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                o.for_each(|i| out.push_str(&format!(" {}\n", clip(&ol[i], from))));
            } else {
                o.for_each(|i| out.push_str(&format!("-{}\n", clip(&ol[i], from))));
                n.for_each(|i| out.push_str(&format!("+{}\n", clip(&nl[i], from))));
            }
        }
    }
    Ok((out, column, excerpt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
        let p = dir.path().join(name);
        std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
        p.to_string_lossy().into_owned()
    }

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}"#;

    fn pi(lines: &[&str]) -> String {
        let mut s = String::from(HEADER);
        s.push('\n');
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }

    fn msg(id: &str, parent: Option<&str>, role: &str) -> String {
        let p = parent.map(|p| format!("\"{p}\"")).unwrap_or("null".into());
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{p},"message":{{"role":"{role}","content":[{{"type":"text","text":"hi"}}]}}}}"#
        )
    }

    fn run(old: &str, new: &str) -> FenceReport {
        let d = tempfile::tempdir().unwrap();
        let o = file(&d, "old.jsonl", old.as_bytes());
        let n = file(&d, "new.jsonl", new.as_bytes());
        fence(&Baseline::File(o), &n, &FenceOptions { hashes: true, ..Default::default() }).unwrap()
    }

    fn rules(r: &FenceReport) -> Vec<(&'static str, Option<u32>)> {
        r.findings.iter().map(|f| (f.rule.name(), f.line)).collect()
    }

    #[test]
    fn identical_and_owned_append() {
        let old = pi(&[&msg("a1", None, "user")]);
        let r = run(&old, &old);
        assert_eq!(r.verdict, Verdict::Identical);
        assert_eq!(r.old.sha256, r.new.sha256);
        let new = old.clone() + &msg("a2", Some("a1"), "assistant") + "\n";
        let r = run(&old, &new);
        assert_eq!(r.verdict, Verdict::AppendOwned, "{:?}", r.findings);
        assert_eq!(r.appended.len(), 1);
        assert_eq!(r.appended[0].line, 3);
        assert!(r.appended[0].owned);
        let h = |b: &str| hex(&Sha256::digest(b.as_bytes()));
        assert_eq!(r.old.sha256.as_deref(), Some(h(&old).as_str()));
        assert_eq!(r.new.sha256.as_deref(), Some(h(&new).as_str()));
    }

    #[test]
    fn foreign_user_message() {
        let old = pi(&[&msg("a1", None, "user"), &msg("a2", Some("a1"), "assistant")]);
        let new = old.clone()
            + &msg("a3", Some("a2"), "toolResult")
            + "\n"
            + &msg("a4", Some("a3"), "user")
            + "\n"
            + &msg("a5", Some("a4"), "user")
            + "\n";
        let r = run(&old, &new);
        assert_eq!(r.verdict, Verdict::AppendForeign);
        assert_eq!(rules(&r), vec![("foreign-append", Some(5))]);
    }

    #[test]
    fn malformed_wins_over_foreign() {
        let old = pi(&[&msg("a1", None, "user")]);
        let new = old.clone() + &msg("a2", Some("a1"), "user") + "\n{\"type\":\"message\",\n";
        let r = run(&old, &new);
        assert_eq!(r.verdict, Verdict::AppendMalformed);
        assert_eq!(rules(&r), vec![("malformed-line", Some(4))]);
    }

    #[test]
    fn id_and_parent_checks() {
        let old = pi(&[&msg("a1", None, "user"), &msg("a2", Some("a1"), "assistant")]);
        let cases = [
            (msg("a1", Some("a2"), "assistant"), "reuses"),
            (msg("a3", Some("zz"), "assistant"), "names no entry"),
            (msg("a3", None, "assistant"), "second root"),
        ];
        for (line, what) in cases {
            let r = run(&old, &(old.clone() + &line + "\n"));
            assert_eq!(r.verdict, Verdict::AppendMalformed, "{what}");
            assert_eq!(rules(&r), vec![("broken-parent-chain", Some(4))], "{what}");
            assert!(r.findings[0].message.contains(what), "{}", r.findings[0].message);
        }
        // A parent earlier in the append resolves; an id reused within the append does not.
        let new =
            old.clone() + &msg("b1", Some("a2"), "assistant") + "\n" + &msg("b2", Some("b1"), "toolResult") + "\n";
        assert_eq!(run(&old, &new).verdict, Verdict::AppendOwned);
        let new =
            old.clone() + &msg("b1", Some("a2"), "assistant") + "\n" + &msg("b1", Some("a2"), "toolResult") + "\n";
        assert_eq!(rules(&run(&old, &new)), vec![("broken-parent-chain", Some(5))]);
    }

    #[test]
    fn glued_and_unterminated_appends() {
        let old = pi(&[&msg("a1", None, "user")]);
        let torn = &old[..old.len() - 1];
        let r = run(torn, &(old.clone() + &msg("a2", Some("a1"), "assistant") + "\n"));
        assert_eq!(r.verdict, Verdict::AppendMalformed);
        assert_eq!(rules(&r), vec![("malformed-line", Some(2))]);
        let r = run(&old, &(old.clone() + &msg("a2", Some("a1"), "assistant")));
        assert_eq!(rules(&r), vec![("malformed-line", Some(3))]);
    }

    #[test]
    fn truncate_replaced_rewrite() {
        let old = pi(&[&msg("a1", None, "user"), &msg("a2", Some("a1"), "assistant")]);
        let r = run(&old, "");
        assert_eq!((r.verdict, rules(&r)), (Verdict::Truncate, vec![("not-append-only", Some(1))]));
        let r = run(&old, &old[..old.len() - 5]);
        assert_eq!((r.verdict, rules(&r)), (Verdict::Truncate, vec![("not-append-only", Some(3))]));
        let r = run(&old, &old.replacen("\"s1\"", "\"s2\"", 1));
        assert_eq!((r.verdict, rules(&r)), (Verdict::Replaced, vec![("not-append-only", Some(1))]));
        let new = old.replacen("\"hi\"", "\"ho\"", 1);
        let r = run(&old, &new);
        assert_eq!((r.verdict, rules(&r)), (Verdict::Rewrite, vec![("not-append-only", Some(2))]));
        let d = r.first_difference.unwrap();
        assert_eq!(d.line, 2);
        assert_eq!(old.as_bytes()[d.byte_offset as usize - 1], b'h');
        assert_ne!(old.as_bytes()[d.byte_offset as usize], new.as_bytes()[d.byte_offset as usize]);
        let diff = r.findings[0].diff.as_deref().unwrap();
        assert!(diff.contains("\n-") && diff.contains("\n+") && diff.contains("ho"), "{diff}");
    }

    #[test]
    fn fingerprint_form() {
        let old = pi(&[&msg("a1", None, "user")]);
        let new = old.clone() + &msg("a2", Some("a1"), "assistant") + "\n";
        let d = tempfile::tempdir().unwrap();
        let n = file(&d, "new.jsonl", new.as_bytes());
        let sha: [u8; 32] = Sha256::digest(old.as_bytes()).into();
        let fp =
            |size: u64, sha256| fence(&Baseline::Fingerprint { size, sha256 }, &n, &FenceOptions::default()).unwrap();
        assert_eq!(fp(old.len() as u64, Some(sha)).verdict, Verdict::AppendOwned);
        assert_eq!(fp(old.len() as u64, None).verdict, Verdict::AppendOwned);
        let r = fp(old.len() as u64, Some([0; 32]));
        assert_eq!((r.verdict, rules(&r)), (Verdict::Rewrite, vec![("not-append-only", Some(1))]));
        assert_eq!(r.findings[0].byte_offset, None);
        let r = fp(new.len() as u64 + 10, None);
        assert_eq!((r.verdict, rules(&r)), (Verdict::Truncate, vec![("not-append-only", Some(3))]));
        let full: [u8; 32] = Sha256::digest(new.as_bytes()).into();
        assert_eq!(fp(new.len() as u64, Some(full)).verdict, Verdict::Identical);
    }

    #[test]
    fn owned_override_and_v1() {
        let old = pi(&[&msg("a1", None, "user")]);
        let new = old.clone() + &msg("a2", Some("a1"), "user") + "\n";
        let d = tempfile::tempdir().unwrap();
        let (o, n) = (file(&d, "o", old.as_bytes()), file(&d, "n", new.as_bytes()));
        let opts = FenceOptions { owned: Some(vec!["user".into()]), hashes: false };
        assert_eq!(fence(&Baseline::File(o.clone()), &n, &opts).unwrap().verdict, Verdict::AppendOwned);
        let opts = FenceOptions { owned: Some(vec!["assistant".into()]), hashes: false };
        assert_eq!(fence(&Baseline::File(o), &n, &opts).unwrap().verdict, Verdict::AppendForeign);
        // pi v1: no ids at all, not checked.
        let v1 = "{\"type\":\"session\",\"id\":\"s\",\"cwd\":\"/\"}\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n";
        let r = run(
            v1,
            &(v1.to_string() + "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":\"y\"}}\n"),
        );
        assert_eq!(r.verdict, Verdict::AppendOwned, "{:?}", r.findings);
    }

    #[test]
    fn claude_code_sessions() {
        let rec = |u: &str, p: Option<&str>, s: &str, t: &str| {
            let p = p.map(|p| format!("\"{p}\"")).unwrap_or("null".into());
            format!(
                r#"{{"type":"{t}","uuid":"{u}","parentUuid":{p},"sessionId":"{s}","message":{{"role":"{t}","content":"x"}}}}"#
            ) + "\n"
        };
        let old = rec("u1", None, "S", "user") + &rec("u2", Some("u1"), "S", "assistant");
        let r = run(
            &old,
            &(old.clone() + &rec("u3", Some("u2"), "S", "user") + "{\"type\":\"last-prompt\",\"sessionId\":\"S\"}\n"),
        );
        assert_eq!(r.verdict, Verdict::AppendOwned, "{:?}", r.findings);
        let r = run(&old, &(old.clone() + &rec("u3", Some("u2"), "T", "user")));
        assert_eq!((r.verdict, rules(&r)), (Verdict::AppendForeign, vec![("foreign-append", Some(3))]));
        let r = run(&old, &(old.clone() + &rec("u3", None, "S", "assistant")));
        assert_eq!((r.verdict, rules(&r)), (Verdict::AppendMalformed, vec![("broken-parent-chain", Some(3))]));
        // A prompt written anew after a rewind to the first one: a fork at the root.
        assert_eq!(run(&old, &(old.clone() + &rec("u3", None, "S", "user"))).verdict, Verdict::AppendOwned);
        let cb = r#"{"type":"system","subtype":"compact_boundary","uuid":"u3","parentUuid":null,"sessionId":"S"}"#
            .to_string()
            + "\n";
        assert_eq!(run(&old, &(old.clone() + &cb)).verdict, Verdict::AppendOwned);
        // A record without `parentUuid` at all is not taken for a second root.
        let bare = r#"{"type":"user","uuid":"u3","sessionId":"S"}"#.to_string() + "\n";
        assert_eq!(run(&old, &(old.clone() + &bare)).verdict, Verdict::AppendOwned);
        // Line 1 is not a header: a change there is a rewrite.
        assert_eq!(run(&old, &old.replacen("u1", "u9", 1)).verdict, Verdict::Rewrite);
    }

    #[test]
    fn codex_sessions() {
        let meta = |id: &str| {
            format!(r#"{{"timestamp":"t","type":"session_meta","payload":{{"id":"{id}","cwd":"/"}}}}"#) + "\n"
        };
        let item = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#
            .to_string() + "\n";
        let old = meta("A") + &item;
        assert_eq!(run(&old, &(old.clone() + &item + &meta("A"))).verdict, Verdict::AppendOwned);
        let r = run(&old, &(old.clone() + &item + &meta("B")));
        assert_eq!((r.verdict, rules(&r)), (Verdict::AppendForeign, vec![("foreign-append", Some(4))]));
        let r = run(&old, &(old.clone() + "{\"type\":\"event_msg\"}\n"));
        assert_eq!((r.verdict, rules(&r)), (Verdict::AppendMalformed, vec![("malformed-line", Some(3))]));
    }

    #[test]
    fn files_larger_than_a_block() {
        // ~2.5 MiB of entries; the id `straddle` sits across the first block boundary.
        let mut old = pi(&[]);
        let mut prev = "f0000000".to_string();
        old += &msg(&prev, None, "user");
        old.push('\n');
        let mut n = 1;
        let filler = "x".repeat(900);
        let push = |old: &mut String, id: &str, prev: &mut String| {
            *old += &msg(id, Some(prev), "assistant").replace("\"hi\"", &format!("\"{filler}\""));
            old.push('\n');
            *prev = id.to_string();
        };
        while old.len() < BLOCK - 4000 {
            push(&mut old, &format!("f{n:07}"), &mut prev);
            n += 1;
        }
        // A padding line so that the next line's id starts 3 bytes before the boundary.
        let next_head = r#"{"type":"message","id":""#.len();
        let pad_base = format!(r#"{{"type":"custom","id":"pad00000","parentId":"{prev}","data":""}}"#).len() + 1;
        let pad = BLOCK - 3 - next_head - old.len() - pad_base;
        old += &format!(r#"{{"type":"custom","id":"pad00000","parentId":"{prev}","data":"{}"}}"#, "p".repeat(pad));
        old.push('\n');
        let straddle_line = old.matches('\n').count() as u32 + 1;
        push(&mut old, "straddle", &mut "pad00000".to_string());
        assert_eq!(&old[BLOCK - 3..BLOCK + 5], "straddle");
        prev = "straddle".into();
        while old.len() < 5 * BLOCK / 2 {
            push(&mut old, &format!("g{n:07}"), &mut prev);
            n += 1;
        }
        let lines = old.matches('\n').count() as u32;

        let owned = old.clone() + &msg("new00001", Some("straddle"), "assistant") + "\n";
        let r = run(&old, &owned);
        assert_eq!(r.verdict, Verdict::AppendOwned, "{:?}", r.findings);
        assert_eq!(r.appended[0].line, lines + 1);
        let h = |b: &str| hex(&Sha256::digest(b.as_bytes()));
        assert_eq!(r.old.sha256.as_deref(), Some(h(&old).as_str()));
        assert_eq!(r.new.sha256.as_deref(), Some(h(&owned).as_str()));

        let reused = old.clone() + &msg("straddle", Some("g0000999"), "assistant") + "\n";
        let r = run(&old, &reused);
        assert_eq!(rules(&r), vec![("broken-parent-chain", Some(lines + 1))]);
        assert!(r.findings[0].message.contains(&format!("line {straddle_line}")), "{}", r.findings[0].message);

        let at = 2 * BLOCK + 5;
        let mut changed = old.clone().into_bytes();
        changed[at] ^= 1;
        let changed = String::from_utf8(changed).unwrap();
        let r = run(&old, &changed);
        let line = old[..at].matches('\n').count() as u32 + 1;
        assert_eq!(r.first_difference, Some(Difference { byte_offset: at as u64, line }));
        assert_eq!(rules(&r), vec![("not-append-only", Some(line))]);
        assert_eq!(r.old.sha256.as_deref(), Some(h(&old).as_str()));
        assert_eq!(r.new.sha256.as_deref(), Some(h(&changed).as_str()));

        let cut = 3 * BLOCK / 2;
        let r = run(&old, &old[..cut]);
        assert_eq!(rules(&r), vec![("not-append-only", Some(old[..cut].matches('\n').count() as u32 + 1))]);
        assert_eq!(r.new.sha256.as_deref(), Some(h(&old[..cut]).as_str()));

        let d = tempfile::tempdir().unwrap();
        let nf = file(&d, "n", owned.as_bytes());
        let sha: [u8; 32] = Sha256::digest(old.as_bytes()).into();
        let opts = FenceOptions { hashes: true, ..Default::default() };
        let r = fence(&Baseline::Fingerprint { size: old.len() as u64, sha256: Some(sha) }, &nf, &opts).unwrap();
        assert_eq!(r.verdict, Verdict::AppendOwned);
        assert_eq!(r.new.sha256.as_deref(), Some(h(&owned).as_str()));
    }

    #[test]
    fn needles_straddling_blocks_are_found() {
        // An id split across two feeds is still found, with the right line.
        let mut s = PrefixScan::new(&[b"\"abcdef\"".to_vec()], DEFAULT_ID_KEYS);
        let text = b"x\n{\"id\":\"abcdef\"}\n";
        s.feed(0, &text[..10]);
        s.feed(10, &text[10..]);
        assert_eq!(s.candidates.into_iter().collect::<Vec<_>>(), vec![(2, 2)]);
    }

    #[test]
    fn long_appends_resolve_ids_by_key() {
        let old_entries: Vec<String> = (0..30)
            .map(|i| {
                let parent = (i > 0).then(|| format!("o{:03}", i - 1));
                msg(&format!("o{i:03}"), parent.as_deref(), "user")
            })
            .collect();
        let old = pi(&old_entries.iter().map(String::as_str).collect::<Vec<_>>());
        let mut new = old.clone();
        for i in 0..20 {
            let parent = if i == 0 { "o017".to_string() } else { format!("a{:03}", i - 1) };
            new += &msg(&format!("a{i:03}"), Some(&parent), "assistant");
            new.push('\n');
        }
        assert_eq!(run(&old, &new).verdict, Verdict::AppendOwned);
        let bad = new.clone() + &msg("o004", Some("a019"), "assistant") + "\n";
        let r = run(&old, &bad);
        assert_eq!(rules(&r), vec![("broken-parent-chain", Some(52))]);
        assert!(r.findings[0].message.contains("of line 6"), "{}", r.findings[0].message);
        let bad = new + &msg("b000", Some("nowhere"), "assistant") + "\n";
        assert!(run(&old, &bad).findings[0].message.contains("names no entry"));
    }

    #[test]
    fn many_needles_are_looked_up_by_key() {
        let needles: Vec<Vec<u8>> = (0..20).map(|i| format!("\"n{i:02}\"").into_bytes()).collect();
        let mut s = PrefixScan::new(&needles, DEFAULT_ID_KEYS);
        assert!(matches!(s.searcher, Searcher::Keys { .. }));
        let text = b"{\"parentId\":\"n05\",\"t\":\"n06\"}\n{\"x\":1,\"id\" : \"n07\"}\n{\"uuid\":\"n03\",\"sessionId\":\"zz\"}\n";
        // Split inside the second line's id value, across two feeds.
        let cut = text.windows(3).position(|w| w == b"n07").unwrap() + 1;
        s.feed(0, &text[..cut]);
        s.feed(cut as u64, &text[cut..]);
        let second = text.iter().position(|&b| b == b'\n').unwrap() as u64 + 1;
        let third = second + text[second as usize..].iter().position(|&b| b == b'\n').unwrap() as u64 + 1;
        assert_eq!(s.candidates.into_iter().collect::<Vec<_>>(), vec![(second, 2), (third, 3)]);
    }

    #[test]
    fn first_diff_finds_the_byte() {
        let a = vec![7u8; 300];
        for i in [0, 63, 64, 200, 299] {
            let mut b = a.clone();
            b[i] = 8;
            assert_eq!(first_diff(&a, &b), i);
        }
        assert_eq!(first_diff(&a, &a), 300);
    }

    #[test]
    fn sha_hex_parsing() {
        assert!(parse_sha256_hex("zz").is_err());
        let h = "7496174701feb55efc64af55b194043f0fddd59bf8fef2c999d8fb2e6305264f";
        assert_eq!(hex(&parse_sha256_hex(h).unwrap()), h);
    }
}
