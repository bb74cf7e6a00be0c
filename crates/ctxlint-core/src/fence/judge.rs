//! The appended bytes: each line judged on its own (one JSON entry with the
//! fields its format requires, its kind, id and parent), then all of them
//! against what OLD holds (fresh ids, parents that resolve, the runner's
//! kinds and session) for the verdict and its findings.

use super::format::Format;
use super::ids::{Known, OldWindows};
use super::{AppendedEntry, FenceOptions, FenceReport, Verdict, read_at};
use crate::finding::Finding;
use crate::formats::jsonl::describe_json_error;
use crate::formats::record::{self, Sessions};
use crate::model::FormatId;
use crate::rule_id::RuleId;
use crate::source::{LineReader, MAX_LINE};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes of a malformed appended line kept to recognise its id later.
const KEEP_RAW: usize = 64 * 1024;

/// One appended line, judged on its own (before OLD's ids are known).
#[derive(Debug, Default)]
pub(super) struct AppLine {
    /// 0-based index among the appended lines (after a glued segment).
    rel: u32,
    offset: u64,
    kind: Option<String>,
    role: Option<String>,
    id: Option<String>,
    parent: Option<String>,
    /// A node of the file's id tree ([`Record::tree`](crate::formats::record::Record::tree)): its id and parent are checked.
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
    pub(super) malformed: Option<String>,
    /// Start of the line (for excerpts).
    head: String,
    /// The raw text of a malformed line (capped), to recognise ids it carried.
    raw: Option<String>,
}

#[derive(Debug, Default)]
pub(super) struct Append {
    /// The appended bytes up to their first newline continue OLD's last line.
    glued_raw: Option<String>,
    pub(super) lines: Vec<AppLine>,
}

impl Append {
    /// Quoted ids and session ids to look for in OLD.
    pub(super) fn needles(&self) -> Vec<Vec<u8>> {
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

pub(super) fn read_append(f: &mut File, base: u64, sn: u64, fmt: &Format, opts: &FenceOptions) -> io::Result<Append> {
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
/// ([`RecordSchema::classify`](crate::formats::record::RecordSchema::classify), the loader's parser); `Err` = the line is not
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
pub(super) fn judge_append(
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
