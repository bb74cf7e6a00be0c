//! Turning command-line paths into inputs: files, `-` (stdin), directories
//! walked with the `ignore` crate (hidden files and `.gitignore` respected
//! unless `--no-ignore`), request-body files of one format in one directory
//! grouped into a stream in natural filename order (`req2` before `req10`).

use crate::error::{Error, Result};
use crate::formats::{self, Detection};
use crate::model::FormatId;
use crate::source::{Origin, SourceRef};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Options for discovering inputs.
#[derive(Debug, Clone, Default)]
pub struct DiscoverOptions {
    /// `--input-format`.
    pub forced: Option<FormatId>,
    /// `--no-stream`: every file on its own.
    pub no_stream: bool,
    /// `--strict`: walked files that match no format are errors.
    pub strict: bool,
    /// `--no-ignore`: include hidden and ignored files.
    pub no_ignore: bool,
    /// `--stdin-filename`.
    pub stdin_filename: Option<String>,
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
    /// Size in bytes of the job's files as stored (0 when unknown).
    pub fn stored_bytes(&self) -> u64 {
        let one = |s: &SourceRef| match &s.origin {
            crate::source::Origin::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            crate::source::Origin::Memory(b) => b.len() as u64,
        };
        match self {
            Job::File(s, _) => one(s),
            Job::Stream(_, _, v) => v.iter().map(one).sum(),
        }
    }
}

/// The [`Skipped::reason`] of a readable file that matches no input format.
pub const NO_FORMAT: &str = "matches no input format";

/// A file that was skipped while walking.
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
    /// Walked files that matched no format.
    pub skipped: Vec<Skipped>,
    /// `--input-format`, when given: loading checks that each input fits it.
    pub forced: Option<FormatId>,
}

/// Compares file names in natural order: digit runs compare as numbers.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
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

/// Builds the plan for the given paths.
pub fn discover(paths: &[String], opts: &DiscoverOptions) -> Result<Plan> {
    let mut plan = Plan { forced: opts.forced, ..Plan::default() };
    for arg in paths {
        if arg == "-" {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).map_err(|e| Error::io("-", e))?;
            let name = opts.stdin_filename.clone().unwrap_or_else(|| "-".to_string());
            let src = SourceRef { display: name.clone(), origin: Origin::Memory(buf.into()) };
            let f = named_format(&src, opts)?;
            plan.jobs.push(Job::File(src, f));
            continue;
        }
        let p = PathBuf::from(arg);
        let md = std::fs::metadata(&p).map_err(|e| Error::io(arg, e))?;
        if md.is_dir() {
            walk_dir(arg, &p, opts, &mut plan)?;
        } else {
            let src = SourceRef::file(arg.clone(), p.clone());
            let f = named_format(&src, opts)?;
            plan.jobs.push(Job::File(src, f));
        }
    }
    Ok(plan)
}

fn unknown(path: &str, d: Detection) -> Error {
    let hint = match d {
        Detection::Unsupported(why) => format!("; it is {why}"),
        _ => "; use --input-format to force one".into(),
    };
    Error::UnknownFormat { path: path.into(), tried: formats::ALL.join(", "), hint }
}

/// The [`Skipped::reason`] of a walked file that matches no format we read.
fn skip_reason(d: Detection) -> String {
    match d {
        Detection::Unsupported(why) => format!("{NO_FORMAT}: {why}"),
        _ => NO_FORMAT.into(),
    }
}

fn detect_or(src: &SourceRef, opts: &DiscoverOptions) -> Result<Detection> {
    match opts.forced {
        Some(f) => Ok(Detection::Format(f)),
        None => formats::detect_input(src),
    }
}

/// The format of a file named on the command line (or stdin).
fn named_format(src: &SourceRef, opts: &DiscoverOptions) -> Result<FormatId> {
    match detect_or(src, opts)? {
        Detection::Format(f) => Ok(f),
        d => Err(unknown(&src.display, d)),
    }
}

fn walk_dir(arg: &str, root: &Path, opts: &DiscoverOptions, plan: &mut Plan) -> Result<()> {
    let mut wb = ignore::WalkBuilder::new(root);
    wb.follow_links(true).sort_by_file_name(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    if opts.no_ignore {
        wb.standard_filters(false);
    } else {
        wb.require_git(false);
    }
    // Files grouped by their directory, to form streams.
    let mut by_dir: BTreeMap<PathBuf, Vec<(SourceRef, FormatId)>> = BTreeMap::new();
    let mut found: Vec<(SourceRef, PathBuf)> = Vec::new();
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
        let path = ent.path().to_path_buf();
        let display = display_of(arg, root, &path);
        if !ft.is_file() && !std::fs::metadata(&path).map(|m| m.is_file()).unwrap_or(false) {
            plan.skipped.push(Skipped { path: display, reason: "not a regular file".into() });
            continue;
        }
        found.push((SourceRef::file(display, path.clone()), path));
    }
    // Detection reads the head of every file: done in parallel (rayon), results kept in walk order.
    let detected: Vec<(SourceRef, PathBuf, Result<Detection>)> = found
        .into_par_iter()
        .map(|(src, path)| {
            let d = detect_or(&src, opts);
            (src, path, d)
        })
        .collect();
    for (src, path, d) in detected {
        match d {
            Ok(Detection::Format(f)) => {
                by_dir.entry(path.parent().map(Path::to_path_buf).unwrap_or_default()).or_default().push((src, f))
            }
            Ok(d) => {
                if opts.strict {
                    return Err(unknown(&src.display, d));
                }
                plan.skipped.push(Skipped { path: src.display, reason: skip_reason(d) });
            }
            Err(e) => {
                if opts.strict {
                    return Err(e);
                }
                plan.skipped.push(Skipped { path: src.display, reason: e.to_string() });
            }
        }
    }
    for (dir, files) in by_dir {
        let dir_display = display_of(arg, root, &dir);
        let dir_display = if dir_display.is_empty() { ".".to_string() } else { dir_display };
        let mut streams: BTreeMap<FormatId, Vec<SourceRef>> = BTreeMap::new();
        for (src, f) in files {
            if formats::is_body_format(f) && !opts.no_stream {
                streams.entry(f).or_default().push(src);
            } else {
                plan.jobs.push(Job::File(src, f));
            }
        }
        for (f, mut srcs) in streams {
            srcs.sort_by(|a, b| natural_cmp(&a.display, &b.display));
            if srcs.len() == 1 {
                plan.jobs.push(Job::File(srcs.pop().expect("one"), f));
            } else {
                plan.jobs.push(Job::Stream(dir_display.clone(), f, srcs));
            }
        }
    }
    Ok(())
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
