//! Turning command-line paths into inputs: files, `-` (stdin), directories
//! walked with the `ignore` crate (hidden files and folders walked,
//! `.gitignore`/`.ignore` honoured unless `--no-ignore`), request-body files of
//! one format in one directory — walked or named one by one — grouped into a
//! stream in natural filename order (`req2` before `req10`).

use crate::error::{Error, Result};
use crate::formats::{self, Detection};
use crate::model::FormatId;
use crate::source::SourceRef;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Options for discovering inputs.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// `--input-format`.
    pub forced: Option<FormatId>,
    /// `--no-stream`: every file on its own.
    pub no_stream: bool,
    /// `--strict`: skipped files make `check` exit 2. Discovery never fails
    /// for them: the exit code is decided last, by the caller.
    pub strict: bool,
    /// `--no-ignore`: also walk files that `.gitignore`/`.ignore` exclude.
    pub no_ignore: bool,
    /// `--stdin-filename`.
    pub stdin_filename: Option<String>,
    /// Files this run writes (`-o`, `--write-baseline`) or reads as settings
    /// (`--baseline`, `--config`), as given: a walk passes over them without
    /// reading or listing them, so `check . -o report.sarif` never reads the
    /// report it is writing, nor the one an earlier run wrote there (docs/spec.md §4).
    pub not_inputs: Vec<PathBuf>,
    /// `--exclude`: files and folders a walk leaves out, matched against
    /// their name and their path below the walked folder.
    pub exclude: Option<globset::GlobSet>,
    /// `--session`: of a store that holds several sessions (an OpenCode
    /// database), only this one; stores without it are passed over, and
    /// discovery fails (naming the sessions found) when no store holds it.
    pub session: Option<String>,
    /// Detect the small files of a walk when they are checked, from the
    /// bytes their check reads, not at discovery: each read once, not twice
    /// (issue 35). Only for a single folder named alone, with no
    /// `--input-format` or `--session`, holding no file reached twice (by
    /// links); their plan is then [`Plan::later`]. `check` sets it;
    /// `--show-files`, `show`, `diff` and `repro`, which need every format at
    /// discovery, do not.
    pub detect_when_checked: bool,
}

/// Builds `--exclude`'s globs (`None` when there are none); a bad glob is a
/// usage error naming it.
pub fn exclude_set(globs: &[String]) -> Result<Option<globset::GlobSet>> {
    let globs: Vec<&String> = globs.iter().filter(|g| !g.trim().is_empty()).collect();
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        let glob = globset::GlobBuilder::new(g.trim().trim_end_matches('/'))
            .literal_separator(true)
            .build()
            .map_err(|e| Error::Usage(format!("--exclude `{g}`: {e}")))?;
        b.add(glob);
    }
    b.build().map(Some).map_err(|e| Error::Usage(format!("--exclude: {e}")))
}

/// [`DiscoverOptions::not_inputs`] ready to compare: each file's name, and
/// where it leads (absolute, links resolved).
struct NotInputs(Vec<(std::ffi::OsString, PathBuf)>);

impl NotInputs {
    fn new(paths: &[PathBuf]) -> NotInputs {
        NotInputs(
            paths.iter().filter_map(|p| Some((p.file_name()?.to_os_string(), crate::safety::resolve(p)))).collect(),
        )
    }

    /// Whether the walked file `p` is one of them (its name compared first,
    /// so most files cost no system call).
    fn contains(&self, p: &Path) -> bool {
        let Some(name) = p.file_name() else { return false };
        self.0.iter().any(|(n, r)| n == name && crate::safety::resolve(p) == *r)
    }
}

/// One unit of work: a file, or several body files forming a stream.
#[derive(Debug, Clone)]
pub enum Job {
    /// One file of a known format.
    File(SourceRef, FormatId),
    /// Body files of one format in one directory, in order.
    Stream(String, FormatId, Vec<SourceRef>),
}

impl Job {
    /// Display path of the job.
    pub fn display(&self) -> &str {
        match self {
            Job::File(s, _) => &s.display,
            Job::Stream(d, _, _) => d,
        }
    }
    /// The one session of a store the job reads ([`SourceRef::session`]).
    pub fn session(&self) -> Option<&str> {
        match self {
            Job::File(s, _) => s.session.as_deref(),
            Job::Stream(..) => None,
        }
    }
    /// Size in bytes of the job's files as stored (0 when unknown).
    pub fn stored_bytes(&self) -> u64 {
        let one = |s: &SourceRef| s.size().unwrap_or(0);
        match self {
            Job::File(s, _) => one(s),
            Job::Stream(_, _, v) => v.iter().map(one).sum(),
        }
    }
}

/// The [`Skipped::reason`] of a readable file that matches no input format.
pub const NO_FORMAT: &str = "matches no input format";

/// A file that was skipped: it matches no format, or could not be walked.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// Display path.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// The plan: jobs in output order, and what was skipped.
#[derive(Debug, Default)]
pub struct Plan {
    /// Jobs in a stable order.
    pub jobs: Vec<Job>,
    /// Files that matched no format (walked or named), and walk errors.
    pub skipped: Vec<Skipped>,
    /// The files named on the command line (or `-`) that matched no format:
    /// one warning each, naming the formats tried.
    pub unrecognised: Vec<Error>,
    /// Paths that could not be read at all (missing, unreadable).
    pub errors: Vec<Error>,
    /// `--input-format`, when given: loading checks that each input fits it.
    pub forced: Option<FormatId>,
    /// With `--session`: the sessions of every store found, for the error
    /// when none is the one asked for.
    pub sessions_held: Vec<Box<str>>,
    /// The small files of a walk detected when they are checked
    /// ([`DiscoverOptions::detect_when_checked`]), and the files whose jobs
    /// wait for them (a folder's stream, a store's sessions).
    pub later: Option<Later>,
}

impl Plan {
    /// How many inputs the plan checks before the streams and stores of
    /// [`Plan::later`] are planned: its jobs and its files still to detect.
    pub fn work_len(&self) -> usize {
        self.jobs.len() + self.later.as_ref().map_or(0, |l| l.pending.len())
    }
}

/// A walked file whose format is detected when it is checked
/// ([`Later::detect`]): stamped at discovery, a regular file smaller than
/// [`formats::PEEK`] bytes.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The file (display path, path, stamp).
    pub src: SourceRef,
    path: PathBuf,
    /// Its place in the walk (0-based).
    seq: usize,
}

/// A file of a known format whose job waits until every file of the walk
/// is detected: a request-body file (its folder's files form one stream)
/// or a store of several sessions (one job per session).
#[derive(Debug, Clone)]
pub struct Deferred {
    seq: usize,
    src: SourceRef,
    path: PathBuf,
    format: FormatId,
}

/// What detecting a [`Pending`] file found.
#[derive(Debug)]
pub enum Detected {
    /// A file checked on its own, with the bytes read to detect it (its
    /// whole text, when it could be read in one go) for its load
    /// ([`formats::load_read`]).
    Job(Job, Option<SourceRef>),
    /// A request-body file or a store: planned with its folder ([`Later::finish`]).
    Deferred(Deferred),
    /// Skipped, with its place in the walk.
    Skipped(usize, Skipped),
}

/// The part of a plan made when its files are checked
/// ([`DiscoverOptions::detect_when_checked`]): the files to detect, and
/// what discovery already detected whose jobs wait for them.
#[derive(Debug, Default)]
pub struct Later {
    /// The walked folder as named, and its path: a stream is named by its
    /// folder's display path.
    arg: String,
    root: PathBuf,
    no_stream: bool,
    /// The files to detect when checked, in walk order.
    pub pending: Vec<Pending>,
    /// Files detected at discovery (large or not regular) whose jobs wait.
    deferred: Vec<Deferred>,
    /// What detection at discovery skipped, with places in the walk.
    skips: Vec<(usize, Skipped)>,
}

impl Pending {
    /// Its display path.
    pub fn display(&self) -> &str {
        &self.src.display
    }
}

/// Orders jobs and files as a report lists them: by display path in natural
/// order, then (two names shown alike: not UTF-8) by the path's own bytes,
/// as a walk orders a folder's names.
pub fn report_order(a: (&str, Option<&SourceRef>), b: (&str, Option<&SourceRef>)) -> Ordering {
    fn bytes(s: Option<&SourceRef>) -> Option<&[u8]> {
        match s.map(|s| &s.origin) {
            Some(crate::source::Origin::File(p)) => Some(p.as_os_str().as_encoded_bytes()),
            _ => None,
        }
    }
    natural_cmp(a.0, b.0).then_with(|| match (bytes(a.1), bytes(b.1)) {
        (Some(x), Some(y)) => natural_cmp_bytes(x, y),
        _ => Ordering::Equal,
    })
}

impl Job {
    /// The file of a one-file job ([`report_order`]).
    pub fn file(&self) -> Option<&SourceRef> {
        match self {
            Job::File(s, _) => Some(s),
            Job::Stream(..) => None,
        }
    }
}

impl Later {
    /// Whether a file of format `f` waits for its folder: a request-body
    /// file (unless `--no-stream`) or a store.
    fn holds_back(&self, f: FormatId) -> bool {
        (formats::joins_stream(f) && !self.no_stream) || formats::descriptor(f).is_some_and(|d| d.store.is_some())
    }

    /// Detects a pending file from its whole text, read once
    /// ([`formats::load_read`] loads it from the same bytes): what
    /// discovery would have planned for it.
    pub fn detect(&self, p: Pending) -> Detected {
        let Pending { mut src, path, seq } = p;
        let mut mem = formats::small_text_snapshot(&src, formats::PEEK as u64);
        if mem.is_none() && !src.seen.is_some_and(|s| src.stamp().is_some_and(|now| s.still_holds(&now))) {
            // Changed since the walk (replaced, rewritten): detected as it is
            // now, stamped again, as discovery stamps a file right before
            // detecting it.
            src.seen = src.stamp();
            mem = formats::small_text_snapshot(&src, formats::PEEK as u64);
        }
        let d = match &mem {
            Some(m) => formats::detect_input(m),
            None => formats::detect_input(&src),
        };
        match d {
            Ok(Detection::Format(f)) if self.holds_back(f) => {
                Detected::Deferred(Deferred { seq, src, path, format: f })
            }
            Ok(Detection::Format(f)) => Detected::Job(Job::File(src, f), mem),
            d => Detected::Skipped(seq, walked_skip(src, &path, d)),
        }
    }

    /// Plans the waiting files (those deferred when checked, and those
    /// deferred at discovery) as discovery plans them: by folder, a folder's
    /// request-body files of one format as one stream, a store's sessions
    /// one job each. Returns their jobs, and every file detection skipped
    /// (at discovery or when checked) in walk order.
    pub fn finish(self, mut deferred: Vec<Deferred>, mut skips: Vec<(usize, Skipped)>) -> (Vec<Job>, Vec<Skipped>) {
        deferred.extend(self.deferred);
        deferred.sort_by_key(|d| d.seq);
        skips.extend(self.skips);
        skips.sort_by_key(|s| s.0);
        let mut plan = Plan::default();
        let opts = DiscoverOptions { no_stream: self.no_stream, ..DiscoverOptions::default() };
        let (arg, root) = (self.arg, self.root);
        group(deferred.into_iter().map(|d| (d.src, d.path, d.format)).collect(), &opts, &mut plan, |dir| {
            let d = display_of(&arg, &root, dir);
            if d.is_empty() { ".".to_string() } else { d }
        });
        (plan.jobs, skips.into_iter().map(|(_, s)| s).collect())
    }
}

/// Compares file names in natural order: digit runs compare as numbers.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    natural_cmp_bytes(a.as_bytes(), b.as_bytes())
}

/// [`natural_cmp`] of two byte strings (file names as the file system gives
/// them: a walk sorts each folder's names without making text of them first).
pub fn natural_cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.first(), y.first()) {
            (None, None) => return Ordering::Equal,
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let nx = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let ny = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (dx, dy) = (&x[..nx], &y[..ny]);
                let tx = dx.iter().skip_while(|c| **c == b'0').count();
                let ty = dy.iter().skip_while(|c| **c == b'0').count();
                let o = tx.cmp(&ty).then_with(|| dx[nx - tx..].cmp(&dy[ny - ty..])).then(nx.cmp(&ny));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[nx..];
                y = &y[ny..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

fn display_of(base_arg: &str, base: &Path, p: &Path) -> String {
    match p.strip_prefix(base) {
        Ok(rel) if base_arg == "." => rel.to_string_lossy().into_owned(),
        Ok(rel) => Path::new(base_arg).join(rel).to_string_lossy().into_owned(),
        Err(_) => p.to_string_lossy().into_owned(),
    }
}

/// A file to detect: its source, its path on disk, and whether it was named
/// on the command line (else found by walking).
struct Candidate {
    src: SourceRef,
    path: PathBuf,
    named: bool,
}

/// Builds the plan for the given paths.
///
/// Never fails for one input: a path that cannot be read is recorded in
/// [`Plan::errors`], a file that matches no format in [`Plan::skipped`] (and,
/// when it was named on the command line, in [`Plan::unrecognised`]), and the
/// other paths are still planned (docs/spec.md §1: one unrecognised file never stops a
/// run). Request-body files of one format named on the command line are
/// grouped by directory exactly as a walk of that directory groups them.
pub fn discover(paths: &[String], opts: &DiscoverOptions) -> Result<Plan> {
    let mut plan = Plan { forced: opts.forced, ..Plan::default() };
    // (One folder named alone: its skips and jobs then keep their order.)
    let later = opts.detect_when_checked && opts.forced.is_none() && opts.session.is_none() && paths.len() == 1;
    let mut named: Vec<Candidate> = Vec::new();
    let mut named_once = std::collections::HashSet::new();
    let mut stdin_once = true;
    for arg in paths {
        if arg == "-" {
            // Standard input is read once, however often `-` is named.
            if !stdin_once {
                continue;
            }
            stdin_once = false;
            let name = opts.stdin_filename.clone().unwrap_or_else(|| "-".to_string());
            // Read as a stream: memory stays bounded whatever it holds (see `source::spool`).
            let src = match crate::source::stdin(&name) {
                Ok(src) => src,
                Err(e) => {
                    plan.errors.push(e);
                    continue;
                }
            };
            match detect_or(&src, opts) {
                Ok(Detection::Format(f)) => push_file(&mut plan, src, f, opts.session.as_deref()),
                Ok(d) => {
                    plan.skipped.push(Skipped { path: name.clone(), reason: skip_reason(d) });
                    plan.unrecognised.push(unknown(&name, d));
                }
                Err(e) => plan.errors.push(e),
            }
            continue;
        }
        let p = PathBuf::from(arg);
        let md = match std::fs::metadata(&p) {
            Ok(md) => md,
            Err(e) => {
                plan.errors.push(Error::io(arg, e));
                continue;
            }
        };
        if md.is_dir() {
            walk_dir(arg, &p, opts, &mut plan, later);
        } else if named_once.insert(identity(&p)) {
            // Named twice: checked once, under the first name (see `dedup_jobs`).
            named.push(Candidate { src: SourceRef::file(arg.clone(), p.clone()), path: p, named: true });
        }
    }
    if !named.is_empty() {
        group(detect_all(named, opts, &mut plan), opts, &mut plan, |dir| {
            // As a walk of that directory would show it: `dir/`, or `.` for the working directory.
            let d = dir.to_string_lossy();
            if d.is_empty() { ".".to_string() } else { Path::new(&*d).join("").to_string_lossy().into_owned() }
        });
    }
    dedup_jobs(&mut plan);
    if let Some(want) = &opts.session {
        if !plan.jobs.iter().any(|j| j.session() == Some(want.as_str())) {
            let held = &plan.sessions_held;
            let names: Vec<String> =
                held.iter().take(4).map(|id| crate::escape::escape_controls(id).into_owned()).collect();
            let more = if held.len() > 4 { ", …" } else { "" };
            return Err(Error::Usage(if held.is_empty() {
                format!(
                    "--session {}: {} holds no store of several sessions (an OpenCode or Kilo database)",
                    crate::escape::escape_controls(want),
                    paths.join(", ")
                )
            } else {
                format!(
                    "--session {}: no store in {} holds it (they hold {}{more})",
                    crate::escape::escape_controls(want),
                    paths.join(", "),
                    names.join(", ")
                )
            }));
        }
    }
    Ok(plan)
}

/// What makes two paths one file: its device and inode on Unix (links,
/// hard or symbolic, and other spellings are one file), else its resolved
/// path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileIdentity {
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(p: &Path) -> FileIdentity {
    #[cfg(unix)]
    if let Ok(md) = std::fs::metadata(p) {
        use std::os::unix::fs::MetadataExt;
        return FileIdentity::Inode(md.dev(), md.ino());
    }
    FileIdentity::Path(std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// Drops the jobs whose files an earlier job already checks: a file named
/// twice (`check a.jsonl a.jsonl`, `check a.jsonl ./a.jsonl`) or named and
/// inside a folder also named (`check t t/a.jsonl`) is checked once, under
/// the name it was first found by, as ruff does. Files are compared by
/// [`identity`] (links followed), and a store's sessions one by one.
fn dedup_jobs(plan: &mut Plan) {
    fn key(s: &SourceRef) -> Option<(FileIdentity, Option<Box<str>>)> {
        match &s.origin {
            // The stamp taken when its format was detected says it (no stat again).
            crate::source::Origin::File(p) => {
                let id = match s.seen.and_then(|st| st.inode()) {
                    Some((dev, ino)) => FileIdentity::Inode(dev, ino),
                    None => identity(p),
                };
                Some((id, s.session.clone()))
            }
            _ => None,
        }
    }
    if plan.jobs.len() < 2 {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    plan.jobs.retain(|j| match j {
        Job::File(s, _) => key(s).is_none_or(|k| seen.insert(k)),
        // A stream stays unless every one of its files was checked already.
        Job::Stream(_, _, v) => {
            let keys: Vec<_> = v.iter().filter_map(key).collect();
            let new = keys.is_empty() || keys.iter().any(|k| !seen.contains(k));
            seen.extend(keys);
            new
        }
    });
}

/// Plans one file: one job, or, for a store that holds several transcripts
/// (an OpenCode database: [`formats::Store`]), one job per session
/// ([`SourceRef::session`]).
fn push_file(plan: &mut Plan, src: SourceRef, f: FormatId, only: Option<&str>) {
    let store = formats::descriptor(f).and_then(|d| d.store);
    if let (Some(store), None) = (store, &src.session) {
        if let Ok(ids) = (store.sessions)(&src) {
            if !ids.is_empty() {
                if only.is_some() {
                    plan.sessions_held.extend(ids.iter().cloned());
                }
                // With --session, a store without it is passed over (the
                // run fails only when no store holds it: `discover`).
                for id in ids.into_iter().filter(|id| only.is_none_or(|o| &**id == o)) {
                    plan.jobs.push(Job::File(SourceRef { session: Some(id), ..src.clone() }, f));
                }
                return;
            }
        }
    }
    plan.jobs.push(Job::File(src, f));
}

fn unknown(path: &str, d: Detection) -> Error {
    let hint = match d {
        Detection::Unsupported(why) => format!("; it is {why}"),
        _ => "; use --input-format to force one".into(),
    };
    Error::UnknownFormat { path: path.into(), tried: formats_tried(), hint }
}

/// The formats a file that matched none was tried as, in a few words: the
/// list itself is `ctxlint formats` (issue 33: 22 ids after every warning
/// buried the warning in CI logs).
pub fn formats_tried() -> String {
    format!("none of the {} formats `ctxlint formats` lists", formats::REGISTRY.len())
}

/// The [`Skipped::reason`] of a file that matches no format we read.
fn skip_reason(d: Detection) -> String {
    match d {
        Detection::Unsupported(why) => format!("{NO_FORMAT}: {why}"),
        _ => NO_FORMAT.into(),
    }
}

fn detect_or(src: &SourceRef, opts: &DiscoverOptions) -> Result<Detection> {
    match opts.forced {
        Some(f) => Ok(Detection::Format(f)),
        None => formats::detect_just_stamped(src),
    }
}

/// Detects the format of every candidate (in parallel: detection reads the
/// head of each file), keeps the ones of a known format in order, and records
/// the others as skipped (or, when unreadable, as errors if named).
fn detect_all(found: Vec<Candidate>, opts: &DiscoverOptions, plan: &mut Plan) -> Vec<(SourceRef, PathBuf, FormatId)> {
    let mut out = Vec::new();
    for (c, d) in detect_each(found, opts) {
        match d {
            Ok(Detection::Format(f)) => out.push((c.src, c.path, f)),
            Ok(d) if c.named && crate::sidecars::reason(&c.path).is_none() => {
                plan.skipped.push(Skipped { path: c.src.display.clone(), reason: skip_reason(d) });
                plan.unrecognised.push(unknown(&c.src.display, d));
            }
            Err(e) if c.named => plan.errors.push(e),
            d => plan.skipped.push(walked_skip(c.src, &c.path, d)),
        }
    }
    out
}

/// Detects each candidate's format, in parallel (detection reads the head
/// of each file), stamping each one not stamped yet first: the load checks
/// the file is still what was detected.
fn detect_each(found: Vec<Candidate>, opts: &DiscoverOptions) -> Vec<(Candidate, Result<Detection>)> {
    found
        .into_par_iter()
        .map(|mut c| {
            if c.src.seen.is_none() {
                c.src.seen = c.src.stamp();
            }
            let d = detect_or(&c.src, opts);
            (c, d)
        })
        .collect()
}

/// Why a file found walking (or a named sidecar) that is of no format
/// ctxlint reads, or that could not be read, is skipped.
fn walked_skip(src: SourceRef, path: &Path, d: Result<Detection>) -> Skipped {
    match d {
        // A file an agent keeps beside its sessions, or a report ctxlint
        // wrote: skipped with its reason, counted in one note, named or
        // walked (`crate::sidecars`).
        Ok(d) => match crate::sidecars::reason(path) {
            Some(reason) => Skipped { path: src.display, reason },
            None => Skipped { path: src.display, reason: skip_reason(d) },
        },
        Err(e) => {
            // The error names the file; the reason is shown after the path.
            let reason = e.to_string();
            let reason = reason.strip_prefix(&format!("{}: ", src.display)).map_or(reason.clone(), str::to_string);
            Skipped { path: src.display, reason }
        }
    }
}

/// Groups detected files by directory: request-body files of one format in one
/// directory form one stream (natural order) unless `--no-stream`; the others
/// are jobs of their own. `dir_display` names a directory's stream.
fn group(
    files: Vec<(SourceRef, PathBuf, FormatId)>,
    opts: &DiscoverOptions,
    plan: &mut Plan,
    dir_display: impl Fn(&Path) -> String,
) {
    let mut by_dir: BTreeMap<PathBuf, Vec<(SourceRef, FormatId)>> = BTreeMap::new();
    for (src, path, f) in files {
        by_dir.entry(path.parent().map(Path::to_path_buf).unwrap_or_default()).or_default().push((src, f));
    }
    for (dir, files) in by_dir {
        let mut streams: BTreeMap<FormatId, Vec<SourceRef>> = BTreeMap::new();
        for (src, f) in files {
            if formats::joins_stream(f) && !opts.no_stream {
                streams.entry(f).or_default().push(src);
            } else {
                push_file(plan, src, f, opts.session.as_deref());
            }
        }
        for (f, mut srcs) in streams {
            srcs.sort_by(|a, b| natural_cmp(&a.display, &b.display));
            match srcs.pop() {
                Some(one) if srcs.is_empty() => plan.jobs.push(Job::File(one, f)),
                Some(last) => {
                    srcs.push(last);
                    plan.jobs.push(Job::Stream(dir_display(&dir), f, srcs));
                }
                None => {}
            }
        }
    }
}

/// Folders never walked into even though hidden files are: version-control stores.
const VCS_DIRS: [&str; 4] = [".git", ".hg", ".svn", ".jj"];

/// Walks one directory: hidden files and folders are walked (agents keep their
/// sessions in `.claude`, `.codex`, `.openclaw`, `.pi`, …), version-control
/// stores are not; `.gitignore`, `.ignore` and git's own exclude files are
/// honoured whether or not the directory is inside a git repository
/// (`require_git(false)`: a `.gitignore` beside the sessions means what it
/// says); `--no-ignore` walks everything except version-control stores.
/// File names a walk passes over without listing them as skipped: the
/// configuration files (`.ctxlint.toml`, `ctxlint.toml`, `pyproject.toml`,
/// which is never a transcript) and the ignore files the walk itself reads.
const NOT_INPUTS: &[&str] = &[
    crate::config::CONFIG_FILES[0],
    crate::config::CONFIG_FILES[1],
    crate::config::CONFIG_FILES[2],
    ".gitignore",
    ".ignore",
];

fn walk_dir(arg: &str, root: &Path, opts: &DiscoverOptions, plan: &mut Plan, later: bool) {
    let mut wb = ignore::WalkBuilder::new(root);
    wb.follow_links(true).sort_by_file_name(|a, b| natural_cmp_bytes(a.as_encoded_bytes(), b.as_encoded_bytes()));
    wb.hidden(false).require_git(false);
    if opts.no_ignore {
        wb.standard_filters(false);
    }
    let exclude = opts.exclude.clone();
    let base = root.to_path_buf();
    wb.filter_entry(move |e| {
        if e.depth() == 0 {
            return true;
        }
        if e.file_type().is_some_and(|t| t.is_dir())
            && VCS_DIRS.iter().any(|d| e.file_name() == std::ffi::OsStr::new(d))
        {
            return false;
        }
        exclude.as_ref().is_none_or(|x| {
            !(x.is_match(e.file_name()) || e.path().strip_prefix(&base).is_ok_and(|rel| x.is_match(rel)))
        })
    });
    let not_inputs = NotInputs::new(&opts.not_inputs);
    let mut found: Vec<Candidate> = Vec::new();
    for ent in wb.build() {
        let ent = match ent {
            Ok(e) => e,
            Err(e) => {
                // Loops through symlinks and unreadable entries: say so, go on.
                // Named by the entry's own path where the error has one (issue 7:
                // it used to name only the walked root).
                let path = error_path(&e).map(|p| display_of(arg, root, p)).unwrap_or_else(|| arg.to_string());
                plan.skipped.push(Skipped { path, reason: e.to_string() });
                continue;
            }
        };
        let Some(ft) = ent.file_type() else { continue };
        if ft.is_dir() {
            continue;
        }
        // ctxlint's own configuration and the walk's ignore files are not
        // inputs: never listed as skipped (with `--strict` they would fail
        // every run that keeps its `ctxlint.toml` beside the transcripts).
        if ent.depth() > 0 && NOT_INPUTS.iter().any(|n| ent.file_name() == std::ffi::OsStr::new(n)) {
            continue;
        }
        let path = ent.path().to_path_buf();
        // The report this run writes, and the settings it reads: not inputs.
        if ent.depth() > 0 && not_inputs.contains(&path) {
            continue;
        }
        // The message and part files of a legacy OpenCode `storage/` tree:
        // read with their session file, not inputs of their own.
        if ent.depth() > 0 && formats::is_store_member(&path) {
            continue;
        }
        let display = display_of(arg, root, &path);
        // An SQLite database's WAL, shared memory or journal beside it (read
        // with the database; a live `-wal` is not read on its own), a Claude
        // Code session's saved tool outputs: known sidecars
        // (`crate::sidecars`) skipped without being opened.
        if ent.depth() > 0 {
            if let Some(s) = crate::sidecars::known(&path).filter(|s| s.unopened) {
                plan.skipped.push(Skipped { path: display, reason: s.reason() });
                continue;
            }
        }
        if !ft.is_file() && !std::fs::metadata(&path).map(|m| m.is_file()).unwrap_or(false) {
            plan.skipped.push(Skipped { path: display, reason: "not a regular file".into() });
            continue;
        }
        found.push(Candidate { src: SourceRef::file(display, path.clone()), path, named: false });
    }
    let dir_display = |dir: &Path| {
        let d = display_of(arg, root, dir);
        if d.is_empty() { ".".to_string() } else { d }
    };
    let mut found = found;
    if later {
        // Stamped now, in parallel: a file reached twice (by links) is
        // checked once, as `dedup_jobs` decides at discovery, from a plan
        // made here (`detect_all` keeps these stamps).
        found = found
            .into_par_iter()
            .map(|mut c| {
                c.src.seen = c.src.stamp();
                c
            })
            .collect();
        let mut ids = std::collections::HashSet::new();
        if found.iter().all(|c| c.src.seen.and_then(|s| s.inode()).is_none_or(|id| ids.insert(id))) {
            plan_later(arg, root, found, opts, plan, dir_display);
            return;
        }
    }
    let files = detect_all(found, opts, plan);
    group(files, opts, plan, dir_display);
}

/// Plans a walk whose small files are detected when checked
/// ([`DiscoverOptions::detect_when_checked`]): those become
/// [`Later::pending`]; the others are detected now, files checked on their
/// own planned now, request-body files and stores held in [`Plan::later`]
/// with what detection skipped, all in walk order.
fn plan_later(
    arg: &str,
    root: &Path,
    found: Vec<Candidate>,
    opts: &DiscoverOptions,
    plan: &mut Plan,
    dir_display: impl Fn(&Path) -> String,
) {
    let mut later =
        Later { arg: arg.to_string(), root: root.to_path_buf(), no_stream: opts.no_stream, ..Later::default() };
    let small = |c: &Candidate| c.src.seen.is_some_and(|s| s.is_regular() && s.len < formats::PEEK as u64);
    let mut now = Vec::new();
    let mut seq_now = Vec::new();
    for (seq, c) in found.into_iter().enumerate() {
        if small(&c) {
            later.pending.push(Pending { src: c.src, path: c.path, seq });
        } else {
            seq_now.push(seq);
            now.push(c);
        }
    }
    let mut files = Vec::new();
    for (seq, (c, d)) in seq_now.into_iter().zip(detect_each(now, opts)) {
        match d {
            Ok(Detection::Format(f)) if later.holds_back(f) => {
                later.deferred.push(Deferred { seq, src: c.src, path: c.path, format: f })
            }
            Ok(Detection::Format(f)) => files.push((c.src, c.path, f)),
            d => later.skips.push((seq, walked_skip(c.src, &c.path, d))),
        }
    }
    group(files, opts, plan, dir_display);
    plan.later = Some(later);
}

/// The path a walk error is about, if it names one.
fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;
    use std::cmp::Ordering;

    /// A file replaced (renamed over) between the walk that stamped it and
    /// its check is detected and read as it is now, as discovery would have
    /// done stamping it right before detecting it (it was skipped as "the
    /// file shrank while it was read").
    #[test]
    fn a_pending_file_replaced_after_the_walk_is_detected_as_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-05-09T05:36:32.457Z","cwd":"/w"}"#;
        let entry = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-09T05:36:33.000Z","message":{"role":"user","content":"hi"}}"#;
        std::fs::write(&p, format!("{header}\n{entry}\n{entry}\n")).unwrap();
        let mut src = crate::source::SourceRef::file(String::from("s.jsonl"), p.clone());
        src.seen = src.stamp();
        let tmp = dir.path().join("s.tmp");
        std::fs::write(&tmp, format!("{header}\n{entry}\n")).unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        let pending = super::Pending { src, path: p.clone(), seq: 0 };
        match super::Later::default().detect(pending) {
            super::Detected::Job(super::Job::File(src, f), Some(mem)) => {
                assert_eq!(f, crate::formats::pi_session::ID);
                assert_eq!(src.size(), Some(std::fs::metadata(&p).unwrap().len()));
                assert_eq!(mem.size(), src.size());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn natural_order() {
        assert_eq!(natural_cmp("req2.json", "req10.json"), Ordering::Less);
        assert_eq!(natural_cmp("a", "b"), Ordering::Less);
        assert_eq!(natural_cmp("01-x", "02-x"), Ordering::Less);
        let mut v = vec!["req10", "req2", "req1"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, vec!["req1", "req2", "req10"]);
    }
}
