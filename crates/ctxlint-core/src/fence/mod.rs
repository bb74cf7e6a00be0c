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
//! ([`RecordSchema::classify`](record::RecordSchema::classify)), which gives its kind, role, tree id and
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

mod findings;
mod format;
mod ids;
mod judge;
mod scan;

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::formats::record;
use crate::model::FormatId;
use crate::rule_id::RuleId;
use crate::source::open_regular;
use findings::{Divergence, rewrite_finding, truncate_finding};
use format::Format;
use ids::{DEFAULT_ID_KEYS, OldWindows, PrefixScan, is_plain, scan_all, verify_candidates};
use judge::{judge_append, read_append};
use scan::{Outcome, PassError, pass_files, pass_fingerprint};
use serde::Serialize;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Block size of the streaming comparison (bytes). Peak memory of a fence is
/// about two blocks plus the appended lines being judged.
pub const BLOCK: usize = 1 << 20;
/// Bytes read from the start of a file to detect its format.
const HEAD_BYTES: usize = 256 * 1024;

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

    let format_id = fmt.id.unwrap_or(crate::model::FormatId::UNKNOWN);
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
                    tried: format!(
                        "tried: {}",
                        record::formats().map(crate::model::FormatId::as_str).collect::<Vec<_>>().join(", ")
                    ),
                    hint: "; fence needs a session format to judge who owns the appended entries".into(),
                });
            }
            judge_append(&mut report, app, &known, &windows, &fmt, new, format_id, to_line(prefix.newlines + 1), glued);
        }
    }
    crate::finish(&mut report.findings);
    Ok(report)
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

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};
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
    fn sha_hex_parsing() {
        assert!(parse_sha256_hex("zz").is_err());
        let h = "7496174701feb55efc64af55b194043f0fddd59bf8fef2c999d8fb2e6305264f";
        assert_eq!(hex(&parse_sha256_hex(h).unwrap()), h);
    }
}
