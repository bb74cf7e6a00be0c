//! `ctxlint repro`: from a finding in a large, private transcript to a small,
//! anonymised regression case (the layout of `../shared/cases`) that anyone
//! can attach to a bug report and re-run.
//!
//! For each selected finding: **slice** the input to what the finding depends
//! on (for a long JSONL transcript, the finding's line, a window of lines around
//! it and around its related locations, header kept, parent links re-threaded
//! over the lines left out), **reduce** it by delta debugging ([`ddmin`]) while
//! the same rule still fires on the corresponding element (files of a stream,
//! then lines, then array elements and object members breadth first, then the
//! lines and words of strings), **anonymise** it ([`anonymise`]), **verify**
//! that the finding still fires, and **write** the case ([`case`]).
//!
//! The predicate runs ctxlint in-process on in-memory files exactly as
//! `ctxlint check .` would in the case directory (detection, streams of body
//! files in natural order, default configuration): nothing is written beside
//! the inputs, and no temporary files are needed.

pub mod anonymise;
pub mod case;
pub mod ddmin;
pub mod tree;

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::inputs::{self, DiscoverOptions, Job};
use crate::model::FormatId;
use crate::rule_id::RuleId;
use crate::source::{Origin, SourceRef};
use crate::{config, formats};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tree::{Case, CaseFile, Ids, Kind, Node, Threading};

/// Default time budget per finding.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(30);

/// A JSONL file with more lines than this is sliced before it is reduced.
const SLICE_ABOVE: usize = 2_000;
/// A JSONL file with more lines than this is never loaded whole into a case
/// (a finding that no window shows is then reported as not reproduced).
const WHOLE_FILE_MAX: usize = 50_000;

/// What `repro` is asked to do.
#[derive(Debug, Clone)]
pub struct ReproOptions {
    /// Inputs, as for `check`.
    pub paths: Vec<String>,
    /// Input discovery (`--input-format`, `--no-stream`).
    pub discover: DiscoverOptions,
    /// Only findings of this rule.
    pub rule: Option<RuleId>,
    /// Only the finding with this fingerprint.
    pub fingerprint: Option<String>,
    /// Only findings at this 1-based line.
    pub line: Option<u32>,
    /// Only findings at this JSON Pointer.
    pub pointer: Option<String>,
    /// Every matching finding (otherwise exactly one must match).
    pub all: bool,
    /// Where the case directories go.
    pub out_dir: PathBuf,
    /// Time budget per finding.
    pub budget: Duration,
    /// Skip anonymisation.
    pub keep_text: bool,
    /// The bug-report URL written as `source`.
    pub source: Option<String>,
    /// Replace existing non-empty case directories instead of picking the next number.
    pub force: bool,
}

/// What happened to one selected finding.
#[derive(Debug, Clone)]
pub struct CaseOutcome {
    /// The case directory written (`None` when the finding was not reproduced).
    pub dir: Option<PathBuf>,
    /// The rule.
    pub rule: RuleId,
    /// Where the finding was in the original input (path, line, pointer).
    pub origin: String,
    /// Lines and bytes of the input files before.
    pub before: (usize, usize),
    /// Lines and bytes of the case's input files after.
    pub after: (usize, usize),
    /// Wall time spent on this finding.
    pub elapsed: Duration,
    /// Predicate calls.
    pub tests: usize,
    /// Whether the reduction ran to a 1-minimal result within the budget.
    pub complete: bool,
    /// Classes of replaced text and how many distinct values each (empty with `--keep-text`).
    pub replaced: BTreeMap<&'static str, usize>,
    /// Whether the case was anonymised.
    pub anonymised: bool,
    /// Notes (fallbacks taken, why a finding could not be reproduced).
    pub notes: Vec<String>,
}

/// id → parent id (`None` = root).
type ParentMap = HashMap<String, Option<String>>;

/// One input file of a job, read once.
struct Source {
    /// Name in the case directory.
    name: String,
    /// Path as reported by `check`.
    display: String,
    /// Its text: whole in memory, or (an uncompressed JSONL file) read a
    /// line at a time when a case needs it.
    text: Text,
    /// Whether it was compressed.
    compressed: bool,
    /// Format.
    format: FormatId,
    /// JSONL: start offsets of lines.
    lines: Vec<usize>,
    /// JSONL transcripts with ids: id → parent over the whole file, and the
    /// ids used more than once (built on first use).
    parents: Option<(ParentMap, HashSet<String>)>,
}

/// The text of a [`Source`].
enum Text {
    /// Decompressed bytes, whole: documents, compressed files, and inputs
    /// that cannot be read at an offset.
    Bytes(Vec<u8>),
    /// An uncompressed JSONL file, read again line by line (a case keeps a
    /// few thousand lines; holding a 300 MB session whole took its size
    /// again, and twice that while it was read).
    File {
        /// Reads the lines again.
        reader: std::cell::RefCell<crate::source::RangeReader>,
        /// Length in bytes.
        len: usize,
        /// Whether its last byte is `\n`.
        newline_end: bool,
    },
}

/// Runs ctxlint on in-memory files as `ctxlint check .` would in a directory
/// holding exactly them. Returns the findings (sorted, fingerprinted) and each
/// file's detected format, or `None` when a file matches no format or fails to load.
pub fn check_files(files: &[(String, Vec<u8>)]) -> Option<(Vec<Finding>, Vec<FormatId>)> {
    let cfg = config::Config::default();
    let mut jobs = Vec::new();
    let mut streams: BTreeMap<FormatId, Vec<SourceRef>> = BTreeMap::new();
    let mut detected = Vec::new();
    for (name, bytes) in files {
        let src = SourceRef {
            display: name.clone(),
            origin: Origin::Memory(bytes.clone().into()),
            seen: None,
            session: None,
        };
        let f = formats::detect(&src).ok()??;
        detected.push(f);
        if formats::is_body_format(f) {
            streams.entry(f).or_default().push(src);
        } else {
            jobs.push(Job::File(src, f));
        }
    }
    for (f, mut srcs) in streams {
        srcs.sort_by(|a, b| inputs::natural_cmp(&a.display, &b.display));
        if srcs.len() == 1 {
            jobs.push(Job::File(srcs.pop()?, f));
        } else {
            jobs.push(Job::Stream(".".into(), f, srcs));
        }
    }
    let mut findings = Vec::new();
    for job in &jobs {
        let input = crate::load_job(job).ok()?;
        findings.extend(crate::check_input(&input, job, &cfg));
    }
    crate::finish(&mut findings);
    Some((findings, detected))
}

/// The element a finding is about, in the case's original coordinates.
#[derive(Debug, Clone)]
struct Target {
    rule: RuleId,
    file: String,
    /// JSONL: the 0-based original line index.
    line: Option<usize>,
    /// The original pointer (into the line's object for JSONL), when it can be followed.
    pointer: Option<String>,
}

/// The predicate: does the same rule still fire on the corresponding element,
/// with no finding of a rule that was not there to begin with?
struct Judge {
    target: Target,
    /// The finding's message with quoted text and numbers left out: the same
    /// rule firing for another reason (a missing id instead of a dangling
    /// parent) is not the same finding.
    skeleton: String,
    allowed: HashSet<RuleId>,
    /// The original's findings at the finding's element — its line in a
    /// JSONL file, else its pointer — as (rule, message skeleton), sorted: a
    /// reduced case must hold exactly these there (issue 33: a result's `id`
    /// dropped re-parented the reply, and the case gained an
    /// `unanswered-tool-call` the original did not have at that element).
    at_element: Vec<(RuleId, String)>,
    formats: HashMap<String, FormatId>,
    tests: usize,
}

/// The (rule, skeleton) pairs of `findings` at an element, sorted.
fn element_findings<'a>(findings: impl Iterator<Item = &'a Finding>) -> Vec<(RuleId, String)> {
    let mut v: Vec<(RuleId, String)> = findings.map(|f| (f.rule, skeleton(&f.message))).collect();
    v.sort();
    v
}

impl Judge {
    fn holds(&mut self, case: &Case) -> bool {
        self.tests += 1;
        let Some(file) = case.files.iter().find(|f| f.name == self.target.file) else { return false };
        let (line, scope) = match self.target.line {
            Some(orig) => {
                let Node::Arr(_, lines) = &file.root else { return false };
                let Some(pos) = lines.iter().position(|(o, _)| *o == orig) else { return false };
                (Some(pos as u32 + 1), &lines[pos].1)
            }
            None => (None, &file.root),
        };
        let pointer = match &self.target.pointer {
            Some(p) => match scope.map_pointer(p) {
                Some(m) => Some(m),
                None => return false,
            },
            None => None,
        };
        let rendered = render(case);
        let Some((findings, detected)) = check_files(&rendered) else { return false };
        for ((name, _), f) in rendered.iter().zip(&detected) {
            if self.formats.get(name).is_some_and(|want| want != f) {
                return false;
            }
        }
        if findings.iter().any(|f| !self.allowed.contains(&f.rule)) {
            return false;
        }
        let same = findings.iter().any(|f| {
            f.rule == self.target.rule
                && f.path == self.target.file
                && (line.is_none() || f.line == line)
                && pointer.as_ref().is_none_or(|p| f.pointer == *p || f.pointer.starts_with(&format!("{p}/")))
                && skeleton(&f.message) == self.skeleton
        });
        if !same {
            return false;
        }
        // Exactly the original's findings at the element, no more, no fewer.
        let here = findings.iter().filter(|f| {
            f.path == self.target.file
                && match (line, &pointer) {
                    (Some(l), _) => f.line == Some(l),
                    (None, Some(p)) => f.pointer == *p,
                    (None, None) => f.rule == self.target.rule && skeleton(&f.message) == self.skeleton,
                }
        });
        element_findings(here) == self.at_element
    }
}

/// A message without its variable parts: `quoted` text, numbers, ids, a
/// tool name in parentheses (one word: `tool call `x` (run_tool)`, whose
/// emails, paths and keys the anonymiser replaces; only whether there is
/// one stays), the server of an MCP tool name (anonymised, while the tool's
/// name is kept).
fn skeleton(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    // Text after an unquoted `(`, until its unquoted `)`.
    let mut paren: Option<(String, bool)> = None;
    for c in anonymise::mask_mcp_servers(message).chars() {
        if let Some((p, q)) = &mut paren {
            if c == ')' && !*q {
                let (word, _) = paren.take().unwrap_or_default();
                if word.chars().any(char::is_whitespace) {
                    out.push('(');
                    out.push_str(&skeleton(&word));
                    out.push(')');
                } else if word == "?" {
                    out.push_str("(?)");
                } else {
                    out.push_str("(name)");
                }
            } else {
                if c == '`' {
                    *q = !*q;
                }
                p.push(c);
            }
        } else if c == '`' {
            quoted = !quoted;
            out.push('`');
        } else if !quoted && c == '(' {
            paren = Some((String::new(), false));
        } else if !quoted && !c.is_ascii_digit() {
            out.push(c);
        }
    }
    if let Some((p, _)) = paren {
        out.push('(');
        out.push_str(&skeleton(&p));
    }
    out
}

/// The case's files as bytes.
pub fn render(case: &Case) -> Vec<(String, Vec<u8>)> {
    case.files.iter().map(|f| (f.name.clone(), f.render())).collect()
}

fn count_lines(b: &[u8]) -> usize {
    if b.is_empty() {
        return 0;
    }
    memchr::memchr_iter(b'\n', b).count() + usize::from(!b.ends_with(b"\n"))
}

/// How a case in `format` is written: JSONL for the line-oriented formats
/// (JSON lines and text blocks), whose findings also carry a line in
/// `expected.json`; YAML for cassettes; else one JSON document.
fn kind_of(format: FormatId) -> Kind {
    match formats::descriptor(format).map(|d| d.encoding) {
        Some(formats::Encoding::Jsonl | formats::Encoding::Text) => Kind::Jsonl,
        Some(formats::Encoding::Yaml) => Kind::Yaml,
        _ => Kind::Json,
    }
}

/// The keys of an entry's id and its parent's id in `format`, when its
/// entries form a tree ([`formats::Repro::threading`]).
fn threading_keys(format: FormatId) -> Option<(&'static str, &'static str)> {
    formats::descriptor(format)?.repro.threading
}

/// A neutral file name for an anonymised case (the original may carry a
/// session id or a name): [`formats::Repro`]'s.
fn neutral_name(format: FormatId, index: usize, of: usize) -> String {
    formats::descriptor(format).map_or_else(|| "request.json".into(), |d| d.case_file_name(index, of))
}

fn base_name(display: &str) -> String {
    let n = std::path::Path::new(display).file_name().map(|s| s.to_string_lossy().into_owned());
    let n = n.unwrap_or_else(|| "input".into());
    // A hidden name would be skipped by `check .` in the case directory.
    let n = n.trim_start_matches('.').to_string();
    let n = if n.is_empty() { "input".to_string() } else { n };
    n.strip_suffix(".gz").or_else(|| n.strip_suffix(".zst")).map(str::to_string).unwrap_or(n)
}

impl Source {
    fn read(src: &SourceRef, format: FormatId, name: String) -> Result<Source> {
        let compressed = src.logical_name() != src.display;
        let io = |e| Error::io(&src.display, e);
        if kind_of(format) == Kind::Jsonl {
            if let Some(reader) = src.range_reader().filter(|_| !compressed) {
                // Line starts, from one pass over the file (the bytes are not kept).
                let mut lines = Vec::new();
                let (mut len, mut last) = (0usize, None);
                let mut r = src.open()?;
                let mut buf = vec![0u8; 256 << 10];
                loop {
                    let n = r.read(&mut buf).map_err(io)?;
                    if n == 0 {
                        break;
                    }
                    if len == 0 {
                        lines.push(0);
                    }
                    lines.extend(memchr::memchr_iter(b'\n', &buf[..n]).map(|i| len + i + 1));
                    len += n;
                    last = Some(buf[n - 1]);
                }
                if lines.last() == Some(&len) {
                    lines.pop();
                }
                let text = Text::File { reader: reader.into(), len, newline_end: last == Some(b'\n') };
                return Ok(Source {
                    name,
                    display: src.display.clone(),
                    text,
                    compressed,
                    format,
                    lines,
                    parents: None,
                });
            }
        }
        let mut bytes = Vec::new();
        src.open()?.read_to_end(&mut bytes).map_err(io)?;
        let lines = if kind_of(format) == Kind::Jsonl {
            let mut v = vec![0];
            v.extend(memchr::memchr_iter(b'\n', &bytes).map(|i| i + 1).filter(|&i| i < bytes.len()));
            if bytes.is_empty() {
                v.clear();
            }
            v
        } else {
            Vec::new()
        };
        Ok(Source {
            name,
            display: src.display.clone(),
            text: Text::Bytes(bytes),
            compressed,
            format,
            lines,
            parents: None,
        })
    }

    /// Length in bytes.
    fn len(&self) -> usize {
        match &self.text {
            Text::Bytes(b) => b.len(),
            Text::File { len, .. } => *len,
        }
    }

    /// Number of lines, as [`count_lines`] counts them.
    fn line_count(&self) -> usize {
        match &self.text {
            Text::Bytes(b) => count_lines(b),
            Text::File { .. } => self.lines.len(),
        }
    }

    /// Whether the text ends with `\n`.
    fn ends_with_newline(&self) -> bool {
        match &self.text {
            Text::Bytes(b) => b.ends_with(b"\n"),
            Text::File { newline_end, .. } => *newline_end,
        }
    }

    /// The whole text of a document (empty for a JSONL file read by lines).
    fn bytes(&self) -> &[u8] {
        match &self.text {
            Text::Bytes(b) => b,
            Text::File { .. } => &[],
        }
    }

    /// Line `i` (0-based) without its `\n` (empty when the file can no
    /// longer be read there).
    fn line(&self, i: usize) -> std::borrow::Cow<'_, [u8]> {
        let len = self.len();
        let start = self.lines[i];
        let end = self.lines.get(i + 1).map(|e| e - 1).unwrap_or(len);
        let end = if i + 1 == self.lines.len() && self.ends_with_newline() { len - 1 } else { end };
        let end = end.max(start);
        match &self.text {
            Text::Bytes(b) => std::borrow::Cow::Borrowed(&b[start..end]),
            Text::File { reader, .. } => {
                let mut v = reader.borrow_mut().read(start as u64, end - start).map(<[u8]>::to_vec).unwrap_or_default();
                // A byte order mark reads as three spaces, as `SourceRef::open` gives it.
                if start == 0 && v.starts_with(b"\xEF\xBB\xBF") {
                    v[..3].copy_from_slice(b"   ");
                }
                std::borrow::Cow::Owned(v)
            }
        }
    }

    /// id → parent over the whole file (pi `id`/`parentId`, Claude Code `uuid`/`parentUuid`).
    fn parents(&mut self) -> (&ParentMap, &HashSet<String>) {
        if self.parents.is_none() {
            #[derive(serde::Deserialize)]
            struct Ids {
                id: Option<serde_json::Value>,
                #[serde(rename = "parentId")]
                parent_id: Option<serde_json::Value>,
                uuid: Option<serde_json::Value>,
                #[serde(rename = "parentUuid")]
                parent_uuid: Option<serde_json::Value>,
            }
            let mut map = HashMap::new();
            let mut dups = HashSet::new();
            let (idk, _) = threading_keys(self.format).unwrap_or(("id", "parentId"));
            for i in 0..self.lines.len() {
                let Ok(r) = serde_json::from_slice::<Ids>(&self.line(i)) else { continue };
                let (id, parent) = if idk == "uuid" { (r.uuid, r.parent_uuid) } else { (r.id, r.parent_id) };
                if let Some(serde_json::Value::String(id)) = id {
                    let p = match parent {
                        Some(serde_json::Value::String(p)) => Some(p),
                        _ => None,
                    };
                    if map.contains_key(&id) {
                        dups.insert(id.clone());
                    }
                    map.insert(id, p);
                }
            }
            self.parents = Some((map, dups));
        }
        let (m, d) = self.parents.as_ref().expect("just built");
        (m, d)
    }
}

/// Which lines of a JSONL file a slice keeps: the finding's line and a window
/// around it, the related lines and a smaller window around them, line 1.
fn slice_lines(n: usize, line: usize, related: &[usize], window: usize) -> Vec<usize> {
    if n <= SLICE_ABOVE || window >= n {
        return (0..n).collect();
    }
    let mut keep: HashSet<usize> = HashSet::new();
    keep.insert(0);
    let after = (window / 4).max(8);
    for i in line.saturating_sub(window)..=(line + after).min(n - 1) {
        keep.insert(i);
    }
    for &r in related {
        for i in r.saturating_sub(window / 4)..=(r + 8).min(n - 1) {
            keep.insert(i);
        }
    }
    let mut v: Vec<usize> = keep.into_iter().collect();
    v.sort_unstable();
    v
}

/// The lines of a text format's blocks (an Aider history's `TO LLM` blocks,
/// each with its `LLM RESPONSE`: [`formats::TextCase::block_header`]) that
/// hold line `line` or one of `related` (0-based), in order: a finding
/// depends on its own request and the one it is compared with.
fn text_blocks(s: &Source, header: &str, line: usize, related: &[usize]) -> Vec<usize> {
    let n = s.lines.len();
    let starts: Vec<usize> = (0..n).filter(|&i| s.line(i).starts_with(header.as_bytes())).collect();
    let block_of = |i: usize| starts.iter().rposition(|&b| b <= i);
    let mut wanted: Vec<Option<usize>> = std::iter::once(line).chain(related.iter().copied()).map(block_of).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut keep = Vec::new();
    for w in wanted {
        let (from, to) = match w {
            Some(b) => (starts[b], starts.get(b + 1).copied().unwrap_or(n)),
            None => (0, starts.first().copied().unwrap_or(n)),
        };
        keep.extend(from..to);
    }
    keep
}

/// Builds the (sliced) case for a finding.
/// An output folder inside a folder being checked would be walked as input by
/// the next run (cases of cases) and writes into the inputs' tree; one inside
/// the folder of an input file writes beside the inputs: both refused, as a
/// usage error naming both.
fn refuse_output_inside_inputs(opts: &ReproOptions) -> Result<()> {
    let inputs: Vec<&Path> = opts.paths.iter().map(Path::new).collect();
    crate::safety::refuse_outputs_on_inputs(&inputs, &[("-o", opts.out_dir.as_path())], crate::safety::Beside::Refused)
}

/// `input<n>` with the path's extension (`.jsonl`, `.json`, `.yaml`; a
/// compression suffix dropped), or `-` for standard input.
fn neutral_source(path: &str, n: usize) -> String {
    if path == "-" {
        return "-".into();
    }
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = name.strip_suffix(".gz").or_else(|| name.strip_suffix(".zst")).unwrap_or(name);
    match name.rsplit_once('.') {
        Some((_, ext)) if !ext.is_empty() && ext.len() <= 5 && ext.chars().all(|c| c.is_ascii_alphanumeric()) => {
            format!("input{n}.{ext}")
        }
        _ => format!("input{n}"),
    }
}

fn build_case(sources: &mut [Source], finding: &Finding, window: usize, embed: bool) -> Case {
    let mut ids = Ids::default();
    let mut files = Vec::new();
    for s in sources.iter_mut() {
        let kind = kind_of(s.format);
        match kind {
            Kind::Jsonl => {
                let n = s.lines.len();
                let keep = if s.display == finding.path {
                    let line =
                        finding.line.map(|l| (l as usize).saturating_sub(1)).unwrap_or(0).min(n.saturating_sub(1));
                    let related: Vec<usize> = finding
                        .related
                        .iter()
                        .filter(|r| r.path == s.display)
                        .filter_map(|r| r.line.map(|l| (l as usize).saturating_sub(1)))
                        .collect();
                    if let Some(text) = formats::descriptor(s.format).and_then(|d| d.repro.text) {
                        // Whole blocks: a window of lines would cut their headers off.
                        text_blocks(s, text.block_header, line, &related)
                    } else {
                        slice_lines(n, line, &related, window)
                    }
                } else {
                    (0..n.min(SLICE_ABOVE)).collect()
                };
                let mut lines = Vec::with_capacity(keep.len());
                for &i in &keep {
                    let raw = s.line(i);
                    let raw = &*raw;
                    let node = match serde_json::from_slice::<serde_json::Value>(raw) {
                        Ok(v) if !raw.contains(&0) => tree::from_value(v, &mut ids, embed),
                        _ => Node::Raw(String::from_utf8_lossy(raw).into_owned()),
                    };
                    lines.push((i, node));
                }
                let threading = threading_keys(s.format).map(|(id_key, parent_key)| {
                    let mut slice_ids: HashMap<String, Option<String>> = HashMap::new();
                    let mut parents_seen: Vec<String> = Vec::new();
                    for (_, l) in &lines {
                        if let Some(id) = l.get_str(id_key) {
                            slice_ids.insert(id.to_string(), l.get_str(parent_key).map(str::to_string));
                        }
                        if let Some(p) = l.get_str(parent_key) {
                            parents_seen.push(p.to_string());
                        }
                    }
                    let (all, dups) = s.parents();
                    let mut up: HashMap<String, Option<String>> = HashMap::new();
                    for (id, p) in &slice_ids {
                        if !dups.contains(id) {
                            up.insert(id.clone(), p.clone());
                        }
                    }
                    // Parents outside the slice: their nearest ancestor in it.
                    for p in parents_seen {
                        if slice_ids.contains_key(&p) || dups.contains(&p) || !all.contains_key(&p) {
                            continue;
                        }
                        let mut q = all.get(&p).cloned().flatten();
                        let mut steps = 0usize;
                        while let Some(x) = &q {
                            if slice_ids.contains_key(x) || dups.contains(x) || steps > all.len() {
                                break;
                            }
                            match all.get(x) {
                                Some(next) => q = next.clone(),
                                None => break,
                            }
                            steps += 1;
                        }
                        up.insert(p, q);
                    }
                    Threading { id_key, parent_key, up }
                });
                let root = Node::Arr(ids.next_id(), lines);
                files.push(CaseFile {
                    name: s.name.clone(),
                    format: s.format,
                    kind,
                    root,
                    trailing_newline: s.ends_with_newline(),
                    threading,
                });
            }
            Kind::Json | Kind::Yaml => {
                let v: serde_json::Value = if kind == Kind::Json {
                    serde_json::from_slice(s.bytes()).unwrap_or(serde_json::Value::Null)
                } else {
                    // Read as its loader reads it (a YAML cassette).
                    formats::descriptor(s.format)
                        .and_then(|d| d.repro.value)
                        .and_then(|value| value(s.bytes()))
                        .unwrap_or(serde_json::Value::Null)
                };
                files.push(CaseFile {
                    name: s.name.clone(),
                    format: s.format,
                    kind,
                    root: tree::from_value(v, &mut ids, embed),
                    trailing_newline: true,
                    threading: None,
                });
            }
        }
    }
    files.sort_by(|a, b| inputs::natural_cmp(&a.name, &b.name));
    Case { files }
}

/// A reduction site: the files of the case, a container, or a string.
#[derive(Debug, Clone, Copy)]
enum Site {
    Files,
    Node(usize, u32),
}

/// The candidate keeping only `keep` at `site`. Tool calls and results whose
/// partner was removed go too (pairs are kept or dropped together).
fn apply(case: &Case, site: Site, keep: &[usize]) -> Case {
    let mut c = case.clone();
    let set: HashSet<usize> = keep.iter().copied().collect();
    let mut gone = HashSet::new();
    match site {
        Site::Files => {
            for (i, f) in case.files.iter().enumerate() {
                if !set.contains(&i) {
                    tree::pair_ids(&f.root, &mut gone);
                }
            }
            let mut i = 0;
            c.files.retain(|_| {
                i += 1;
                set.contains(&(i - 1))
            });
        }
        Site::Node(f, id) => {
            if let Some(n) = c.files[f].root.find_mut(id) {
                match &*n {
                    Node::Arr(_, items) => items
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| !set.contains(i))
                        .for_each(|(_, (_, x))| tree::pair_ids(x, &mut gone)),
                    Node::Obj(_, m) => m
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| !set.contains(i))
                        .for_each(|(_, (_, x))| tree::pair_ids(x, &mut gone)),
                    _ => {}
                }
                n.retain_positions(keep);
            }
        }
    }
    if !gone.is_empty() {
        for f in &mut c.files {
            tree::drop_pairs(&mut f.root, &gone);
        }
    }
    c
}

fn site_len(case: &Case, site: Site) -> usize {
    match site {
        Site::Files => case.files.len(),
        Site::Node(f, id) => {
            let mut root = case.files[f].root.clone();
            root.find_mut(id).map(|n| n.len()).unwrap_or(0)
        }
    }
}

/// Tokens of a string: lines (`words == false`) or words with their trailing spaces.
fn tokens(s: &str, words: bool) -> Vec<&str> {
    if !words {
        return s.split_inclusive('\n').collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in s.char_indices() {
        let space = c.is_whitespace();
        if !space && in_space {
            out.push(&s[start..i]);
            start = i;
        }
        in_space = space;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

fn with_strings(case: &Case, f: usize, ids: &[u32], text: &str) -> Case {
    let mut c = case.clone();
    for &id in ids {
        if let Some(Node::Str(_, s)) = c.files[f].root.find_mut(id) {
            *s = text.to_string();
        }
    }
    c
}

fn get_string(case: &Case, f: usize, id: u32) -> Option<String> {
    let mut root = case.files[f].root.clone();
    match root.find_mut(id)? {
        Node::Str(_, s) => Some(s.clone()),
        _ => None,
    }
}

/// Reduces a case in place; returns whether the reduction was complete.
fn reduce(case: &mut Case, judge: &mut Judge, deadline: Instant) -> bool {
    let mut complete = true;
    // Structure: files, then containers breadth first, twice (a removal can
    // make another one possible).
    for _pass in 0..2 {
        let before = render(case);
        let mut sites = Vec::new();
        if case.files.len() > 1 {
            sites.push(Site::Files);
        }
        let mut per_file: Vec<Vec<u32>> = case
            .files
            .iter()
            .map(|f| {
                let mut v = Vec::new();
                f.root.containers(&mut v);
                v
            })
            .collect();
        // Interleave nothing: coarse sites of every file first (their roots), then the rest.
        for (fi, v) in per_file.iter_mut().enumerate() {
            if let Some(&r) = v.first() {
                sites.push(Site::Node(fi, r));
            }
        }
        for (fi, v) in per_file.iter().enumerate() {
            sites.extend(v.iter().skip(1).map(|&id| Site::Node(fi, id)));
        }
        let names: Vec<String> = case.files.iter().map(|f| f.name.clone()).collect();
        for site in sites {
            // A file removed by the Files site shifts indices: re-find by name.
            let site = match site {
                Site::Node(fi, id) => match case.files.iter().position(|f| f.name == names[fi]) {
                    Some(now) => Site::Node(now, id),
                    None => continue,
                },
                s => s,
            };
            let n = site_len(case, site);
            if n == 0 {
                continue;
            }
            let snapshot = case.clone();
            let out = ddmin::ddmin(n, deadline, &mut |keep| judge.holds(&apply(&snapshot, site, keep)));
            complete &= out.complete;
            if out.kept.len() < n {
                *case = apply(&snapshot, site, &out.kept);
            }
            if !out.complete {
                return false;
            }
        }
        if render(case) == before {
            break;
        }
    }
    // Text: lines, then words, of every string. Equal strings (a duplicate
    // and its first copy) are reduced together, so that they stay equal.
    for words in [false, true] {
        for fi in 0..case.files.len() {
            let mut strings = Vec::new();
            case.files[fi].root.strings(&mut strings);
            let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
            let mut at: HashMap<String, usize> = HashMap::new();
            for id in strings {
                let Some(s) = get_string(case, fi, id) else { continue };
                match at.get(&s) {
                    Some(&g) => groups[g].1.push(id),
                    None => {
                        at.insert(s.clone(), groups.len());
                        groups.push((s, vec![id]));
                    }
                }
            }
            for (s, ids) in groups {
                let toks: Vec<String> = tokens(&s, words).into_iter().map(str::to_string).collect();
                if toks.len() < 2 {
                    continue;
                }
                let snapshot = case.clone();
                let out = ddmin::ddmin(toks.len(), deadline, &mut |keep| {
                    let text: String = keep.iter().map(|&k| toks[k].as_str()).collect();
                    judge.holds(&with_strings(&snapshot, fi, &ids, &text))
                });
                if out.kept.len() < toks.len() {
                    let text: String = out.kept.iter().map(|&k| toks[k].as_str()).collect();
                    *case = with_strings(&snapshot, fi, &ids, &text);
                }
                if !out.complete {
                    return false;
                }
            }
        }
    }
    complete
}

fn finding_origin(f: &Finding) -> String {
    let mut s = f.path.clone();
    if let Some(l) = f.line {
        s.push_str(&format!(":{l}"));
    }
    if !f.pointer.is_empty() {
        s.push_str(&format!(" {}", f.pointer));
    }
    if let Some(r) = f.request {
        s.push_str(&format!(" (request {r})"));
    }
    s
}

/// Runs `repro`. `progress` receives one line per event other than a case
/// written (a finding not reproduced, an input that failed), for stderr; the
/// cases written are in the returned outcomes.
pub fn run(opts: &ReproOptions, progress: &mut dyn FnMut(&str)) -> Result<Vec<CaseOutcome>> {
    refuse_output_inside_inputs(opts)?;
    let mut plan = inputs::discover(&opts.paths, &opts.discover)?;
    // A path that cannot be read, or a named file of no known format, is an error here.
    if let Some(e) = plan.errors.pop().or_else(|| plan.unrecognised.pop()) {
        return Err(e);
    }
    let cfg = config::Config::default();
    let mut all = Vec::new();
    let mut job_of: HashMap<String, usize> = HashMap::new();
    for (ji, job) in plan.jobs.iter().enumerate() {
        match job {
            Job::File(s, _) => {
                job_of.insert(s.display.clone(), ji);
            }
            Job::Stream(_, _, v) => v.iter().for_each(|s| {
                job_of.insert(s.display.clone(), ji);
            }),
        }
        match crate::load_job(job) {
            Ok(input) => all.extend(crate::check_input(&input, job, &cfg)),
            // As `check` does: an input that cannot be read is reported, the others are used.
            Err(e) => progress(&format!("error: {e}")),
        }
    }
    crate::finish(&mut all);
    let selected: Vec<&Finding> = all
        .iter()
        .filter(|f| opts.rule.is_none_or(|r| f.rule == r))
        .filter(|f| opts.fingerprint.as_ref().is_none_or(|fp| f.fingerprint == *fp))
        .filter(|f| opts.line.is_none_or(|l| f.line == Some(l)))
        .filter(|f| opts.pointer.as_ref().is_none_or(|p| f.pointer == *p))
        .collect();
    if selected.is_empty() {
        return Err(Error::Usage(format!(
            "no finding matches the selection ({} finding(s) in the input{})",
            all.len(),
            if all.is_empty() { "" } else { "; list them with `ctxlint check`" }
        )));
    }
    if selected.len() > 1 && !opts.all {
        let list: Vec<String> = selected
            .iter()
            .take(5)
            .map(|f| format!("{} {} [{}]", f.rule.name(), finding_origin(f), f.fingerprint))
            .collect();
        return Err(Error::Usage(format!(
            "{} findings match; pick one with --finding FINGERPRINT, --line N or --pointer P, or use --all:\n  {}{}",
            selected.len(),
            list.join("\n  "),
            if selected.len() > 5 { "\n  …" } else { "" }
        )));
    }
    // Group by job, so that each input is read once.
    let mut by_job: BTreeMap<usize, Vec<&Finding>> = BTreeMap::new();
    for f in &selected {
        let ji = *job_of.get(&f.path).ok_or_else(|| Error::Internal(format!("no input for {}", f.path)))?;
        by_job.entry(ji).or_default().push(f);
    }
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| Error::io(&opts.out_dir, e))?;
    let mut counters: HashMap<RuleId, usize> = HashMap::new();
    let mut outcomes = Vec::new();
    for (ji, findings) in by_job {
        let job = &plan.jobs[ji];
        let (format, srcs): (FormatId, Vec<&SourceRef>) = match job {
            Job::File(s, f) => (*f, vec![s]),
            Job::Stream(_, f, v) => (*f, v.iter().collect()),
        };
        let of = srcs.len();
        let mut sources = Vec::new();
        for (i, s) in srcs.iter().enumerate() {
            let name =
                if opts.keep_text && s.display != "-" { base_name(&s.display) } else { neutral_name(format, i, of) };
            sources.push(Source::read(s, format, name)?);
        }
        let job_rules: HashSet<RuleId> =
            all.iter().filter(|f| job_of.get(&f.path) == Some(&ji)).map(|f| f.rule).collect();
        for f in findings {
            let n = counters.entry(f.rule).or_insert(0);
            // The original's findings at this finding's element (its line, else its pointer).
            let at_element = element_findings(all.iter().filter(|o| {
                o.path == f.path
                    && match (f.line, kind_of(format)) {
                        (Some(l), Kind::Jsonl) => o.line == Some(l),
                        _ => o.pointer == f.pointer,
                    }
            }));
            let out = reproduce_one(opts, &mut sources, f, &job_rules, &at_element, n, progress)?;
            outcomes.push(out);
        }
    }
    Ok(outcomes)
}

fn reproduce_one(
    opts: &ReproOptions,
    sources: &mut [Source],
    f: &Finding,
    job_rules: &HashSet<RuleId>,
    at_element: &[(RuleId, String)],
    counter: &mut usize,
    progress: &mut dyn FnMut(&str),
) -> Result<CaseOutcome> {
    let start = Instant::now();
    let deadline = start + opts.budget;
    let before = sources.iter().fold((0, 0), |(l, b), s| (l + s.line_count(), b + s.len()));
    let mut outcome = CaseOutcome {
        dir: None,
        rule: f.rule,
        origin: finding_origin(f),
        before,
        after: (0, 0),
        elapsed: Duration::ZERO,
        tests: 0,
        complete: false,
        replaced: BTreeMap::new(),
        anonymised: !opts.keep_text,
        notes: Vec::new(),
    };
    let Some(src) = sources.iter().find(|s| s.display == f.path) else {
        outcome.notes.push(format!("{}: not part of the input", f.path));
        return Ok(outcome);
    };
    let file = src.name.clone();
    let jsonl = kind_of(src.format) == Kind::Jsonl;
    let formats_by_name: HashMap<String, FormatId> = sources.iter().map(|s| (s.name.clone(), s.format)).collect();
    // Slice (widening the window until the finding shows), in the most reducible shape that shows it.
    let mut found: Option<(Case, Judge)> = None;
    'outer: for window in [64usize, 512, 4096, usize::MAX] {
        if window == usize::MAX && sources.iter().any(|s| s.lines.len() > WHOLE_FILE_MAX) {
            outcome.notes.push(format!(
                "the finding does not show in a window of 4,096 lines around it, and the input is too long ({} lines) to be reduced whole",
                sources.iter().map(|s| s.lines.len()).max().unwrap_or(0)
            ));
            break;
        }
        for embed in [true, false] {
            let case = build_case(sources, f, window, embed);
            let target_line = if jsonl { f.line.map(|l| (l as usize).saturating_sub(1)) } else { None };
            let mut target =
                Target { rule: f.rule, file: file.clone(), line: target_line, pointer: Some(f.pointer.clone()) };
            // A pointer the tree cannot follow is not compared.
            if let Some(cf) = case.files.iter().find(|c| c.name == file) {
                let scope = match (target.line, &cf.root) {
                    (Some(l), Node::Arr(_, v)) => v.iter().find(|(o, _)| *o == l).map(|(_, n)| n),
                    (Some(_), _) => None,
                    (None, r) => Some(r),
                };
                if scope.and_then(|s| s.map_pointer(&f.pointer)).is_none() {
                    target.pointer = None;
                }
            }
            let rendered = render(&case);
            let Some((initial, _)) = check_files(&rendered) else { continue };
            let mut allowed = job_rules.clone();
            allowed.extend(initial.iter().map(|x| x.rule));
            let mut judge = Judge {
                target,
                skeleton: skeleton(&f.message),
                allowed,
                at_element: at_element.to_vec(),
                formats: formats_by_name.clone(),
                tests: 0,
            };
            if judge.holds(&case) {
                found = Some((case, judge));
                break 'outer;
            }
            outcome.tests += judge.tests;
        }
        if sources.iter().all(|s| s.lines.len() <= window) {
            break;
        }
    }
    let Some((mut case, mut judge)) = found else {
        if outcome.notes.is_empty() {
            outcome.notes.push("the finding does not show in any slice of the input ctxlint can rebuild".into());
        }
        outcome.elapsed = start.elapsed();
        progress(&format!("{} at {}: not reproduced", f.rule.name(), outcome.origin));
        return Ok(outcome);
    };
    outcome.complete = reduce(&mut case, &mut judge, deadline);
    if !outcome.complete {
        outcome.notes.push(format!(
            "budget of {} s reached: the case is reduced but may not be minimal",
            opts.budget.as_secs_f64()
        ));
    }
    for cf in &mut case.files {
        cf.bake_threading();
    }
    // Anonymise, verify, fall back to a lighter mapping if needed.
    let mut final_case = case.clone();
    if !opts.keep_text {
        let mut done = false;
        for level in [anonymise::Level::Full, anonymise::Level::Identifiers] {
            let mut anon = anonymise::Anonymiser::new(level);
            let mut c = case.clone();
            anon.case(&mut c);
            if judge.holds(&c) {
                if level != anonymise::Level::Full {
                    outcome.notes.push(
                        "replacing every word removed the finding; only identifying data (ids, emails, numbers, addresses, URLs, paths, keys, capitalised words) was replaced".into(),
                    );
                }
                outcome.replaced = anon.counts();
                final_case = c;
                done = true;
                break;
            }
        }
        if !done {
            outcome.notes.push("anonymisation removes the finding; nothing written (rerun with --keep-text to write the reduced case as it is)".into());
            outcome.tests += judge.tests;
            outcome.elapsed = start.elapsed();
            progress(&format!("{} at {}: not reproduced after anonymisation", f.rule.name(), outcome.origin));
            return Ok(outcome);
        }
    } else if !judge.holds(&final_case) {
        outcome.notes.push("the reduced case does not show the finding".into());
        outcome.elapsed = start.elapsed();
        return Ok(outcome);
    }
    outcome.tests += judge.tests;
    let rendered = render(&final_case);
    let Some((findings, _)) = check_files(&rendered) else {
        return Err(Error::Internal("the reduced case no longer loads".into()));
    };
    outcome.after = rendered.iter().fold((0, 0), |(l, b), (_, x)| (l + count_lines(x), b + x.len()));
    let dir = case::next_dir(&opts.out_dir, f.rule, counter, opts.force)?;
    let source = match &opts.source {
        // The bug-report URL as given, with key-like strings masked (a token in a query string).
        Some(s) => crate::text::mask_secrets(s),
        None if opts.keep_text => opts.paths.join(" "),
        // A path names a person or a project as often as not: neutral names only.
        None => opts.paths.iter().enumerate().map(|(i, p)| neutral_source(p, i + 1)).collect::<Vec<_>>().join(" "),
    };
    outcome.elapsed = start.elapsed();
    let compressed: Vec<&str> = sources.iter().filter(|s| s.compressed).map(|s| s.display.as_str()).collect();
    let info = case::CaseInfo {
        source: &source,
        format: f.format.as_str(),
        rule: f.rule,
        files: &rendered,
        findings: &findings,
        outcome: &outcome,
        decompressed: !compressed.is_empty(),
        target_file: &file,
    };
    case::write(&dir, &info)?;
    // Said once, by the caller's listing of the cases written (issue 33: the
    // command printed each case twice, here on stderr and then on stdout).
    outcome.dir = Some(dir.clone());
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSONL file read again line by line gives the lines, counts and
    /// ends the whole bytes give.
    #[test]
    fn a_file_read_by_lines_is_the_file_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let pi = crate::formats::pi_session::ID;
        for text in
            ["", "\n", "a", "a\n", "a\nb", "a\r\nb\r\n", "{\"x\":1}\n\n{\"y\":2}\n", "\n\nlast", "\u{feff}{}\n{}"]
        {
            let p = dir.path().join("s.jsonl");
            std::fs::write(&p, text).unwrap();
            let src = SourceRef::file("s.jsonl", &p);
            let by_lines = Source::read(&src, pi, "s.jsonl".into()).unwrap();
            assert!(matches!(by_lines.text, Text::File { .. }), "{text:?}");
            let mut whole = Source::read(&src, pi, "s.jsonl".into()).unwrap();
            // (Read whole through `SourceRef::open`: a byte order mark as three spaces.)
            whole.text = Text::Bytes(text.replacen('\u{feff}', "   ", 1).into_bytes());
            whole.lines = {
                let mut v = vec![0];
                v.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1).filter(|&i| i < text.len()));
                if text.is_empty() {
                    v.clear();
                }
                v
            };
            assert_eq!(by_lines.lines, whole.lines, "{text:?}");
            assert_eq!(
                (by_lines.len(), by_lines.line_count(), by_lines.ends_with_newline()),
                (whole.len(), whole.line_count(), whole.ends_with_newline()),
                "{text:?}"
            );
            assert_eq!(whole.line_count(), count_lines(text.as_bytes()));
            for i in 0..whole.lines.len() {
                assert_eq!(by_lines.line(i), whole.line(i), "{text:?} line {i}");
            }
        }
    }
}
