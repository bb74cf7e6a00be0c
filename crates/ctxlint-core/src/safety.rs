//! What ctxlint promises about the files it touches (README, "What ctxlint
//! promises"; docs/spec.md §4, §5): an output path that is, or resolves through links
//! to, an input (for `repro`, one that lies inside an input folder or beside an
//! input) is refused before anything is read or written
//! ([`refuse_outputs_on_inputs`]); reports are written to a
//! temporary file beside the target and renamed ([`AtomicFile`]), so a failed
//! run never leaves half a report; configuration and baseline files are read
//! only when they are regular files of a bounded size ([`read_bounded`]); and
//! the worker threads fall back to fewer, down to the calling thread alone,
//! when the system refuses to create them ([`build_pool`]).

use crate::error::{Error, Result};
use crate::escape::shown;
use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

/// The largest configuration file read (`ctxlint.toml`, `--config`).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;
/// The largest baseline file read (`--baseline`).
pub const MAX_BASELINE_BYTES: u64 = 256 << 20;
/// The most worker threads ever started, whatever `-j` asks for.
pub const MAX_THREADS: usize = 256;

/// Where `p` leads: absolute, with every link resolved in the part of it that
/// exists (a file not written yet resolves through its folder).
pub fn resolve(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut base = abs.as_path();
    let mut rest: Vec<&OsStr> = Vec::new();
    loop {
        if let Ok(c) = base.canonicalize() {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return normalise(&out);
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                base = parent;
            }
            _ => return normalise(&abs),
        }
    }
}

/// `.` and `..` removed lexically (only in the part that does not exist).
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether `a` and `b` are one file (the same device and inode: hard links too).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// How the folder of an input counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beside {
    /// Only an input itself is refused: a report may lie beside an input
    /// file or inside a folder being checked (`check . -o report.sarif`,
    /// what CI jobs write; docs/spec.md §4). The caller leaves that file out of the
    /// run's inputs ([`crate::inputs::DiscoverOptions::not_inputs`]):
    /// reports of `check`, `show`, `diff`, `fence`, and `--write-baseline`.
    Allowed,
    /// The folder holding an input file is refused too: `repro` writes
    /// nothing beside its inputs.
    Refused,
}

/// Refuses (exit 2, naming both paths) any output that is an input —
/// itself, through a symbolic link or as a hard link — or, with
/// [`Beside::Refused`], lies inside an input folder or the folder of an
/// input file. `inputs`
/// are paths as given (`-` is standard input and skipped); `outputs` pair
/// each output path with the flag that named it.
pub fn refuse_outputs_on_inputs(inputs: &[&Path], outputs: &[(&str, &Path)], beside: Beside) -> Result<()> {
    for &(flag, out) in outputs {
        let o = resolve(out);
        for &input in inputs {
            if input.as_os_str() == "-" || input.as_os_str().is_empty() {
                continue;
            }
            let i = resolve(input);
            let is_dir = i.is_dir();
            if o == i || same_file(out, input) {
                let what = if is_dir { "the input folder" } else { "the input" };
                return Err(Error::Usage(format!(
                    "{flag} {}: is {what} {}{}; ctxlint never writes to its inputs: choose another path",
                    shown(out),
                    shown(input),
                    if same_name(out, input) {
                        ""
                    } else if o == i {
                        " (through a link)"
                    } else {
                        " (a hard link to it)"
                    }
                )));
            }
            let folder = match beside {
                Beside::Allowed => None,
                Beside::Refused if is_dir => Some(i.clone()),
                Beside::Refused => i.parent().map(Path::to_path_buf),
            };
            if let Some(folder) = folder {
                if o.starts_with(&folder) {
                    let (what, why) = if is_dir {
                        ("inside the input folder", "a later run would read it as an input")
                    } else {
                        ("inside the folder of the input", "nothing is written beside the inputs")
                    };
                    return Err(Error::Usage(format!(
                        "{flag} {}: lies {what} {} ({why}); choose a path outside it",
                        shown(out),
                        shown(input)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// `p` made absolute and normalised, without resolving links.
fn resolve_lexical(p: &Path) -> PathBuf {
    normalise(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

fn same_name(a: &Path, b: &Path) -> bool {
    resolve_lexical(a) == resolve_lexical(b)
}

/// A report being written: bytes go to a temporary file beside the target
/// (`.<name>.<random>.tmp`), which [`AtomicFile::commit`] renames over it; a
/// run that fails before that removes the temporary file and leaves the
/// target as it was. A target that is a device or a FIFO (`/dev/null`,
/// `/dev/stdout`) is written in place; a symbolic link is followed (the file
/// it names is replaced, the link kept).
pub struct AtomicFile {
    target: PathBuf,
    inner: Inner,
}

enum Inner {
    Temp(tempfile::NamedTempFile),
    Direct(std::fs::File),
}

/// The temporary files of the reports being written (see [`remove_temp_files`]).
static LIVE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes the temporary file of every report still being written, and
/// every temporary folder registered with [`register_temp_path`] (a
/// database's private copy): the binary calls it when SIGTERM, SIGINT or
/// SIGHUP ends the run, so that no `.<name>.<random>.tmp` is left beside a
/// target and no copy in the temporary folder.
pub fn remove_temp_files() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for p in live {
        if p.is_dir() {
            let _ = std::fs::remove_dir_all(p);
        } else {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Registers a temporary file or folder for [`remove_temp_files`] (one that
/// is already gone when it runs is skipped).
pub fn register_temp_path(p: &Path) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    // Entries of folders already removed are dropped as new ones come.
    live.retain(|x| x.exists());
    live.push(p.to_path_buf());
}

fn forget_temp_file(p: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).retain(|x| x != p);
}

impl AtomicFile {
    /// Starts writing `target` (named as given in errors).
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let err = |e| Error::io(target, e);
        match std::fs::metadata(target) {
            Ok(m) if m.is_dir() => {
                return Err(err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory")));
            }
            Ok(m) if !m.is_file() => {
                let f = std::fs::OpenOptions::new().write(true).open(target).map_err(err)?;
                return Ok(AtomicFile { target: target.to_path_buf(), inner: Inner::Direct(f) });
            }
            _ => {}
        }
        // Through a link: the temporary file goes beside the file it names.
        let dest = match std::fs::symlink_metadata(target) {
            Ok(m) if m.file_type().is_symlink() => target.canonicalize().unwrap_or_else(|_| target.to_path_buf()),
            _ => target.to_path_buf(),
        };
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // As a plain create would make it (the umask applies).
            b.permissions(std::fs::Permissions::from_mode(0o666));
        }
        // The operating system's error, without the temporary file's name.
        let tmp = b.tempfile_in(&dir).map_err(|e| {
            let plain = e.to_string().split(" at path ").next().unwrap_or_default().to_string();
            err(io::Error::new(e.kind(), plain))
        })?;
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(tmp.path().to_path_buf());
        Ok(AtomicFile { target: dest, inner: Inner::Temp(tmp) })
    }

    /// Puts the finished report in place.
    pub fn commit(self) -> Result<()> {
        match self.inner {
            Inner::Temp(mut t) => {
                let tmp = t.path().to_path_buf();
                let done = t
                    .flush()
                    .map_err(|e| Error::io(&self.target, e))
                    .and_then(|()| t.persist(&self.target).map(|_| ()).map_err(|e| Error::io(&self.target, e.error)));
                forget_temp_file(&tmp);
                done
            }
            Inner::Direct(mut f) => f.flush().map_err(|e| Error::io(&self.target, e)),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            // The file itself: an error names no temporary path.
            Inner::Temp(t) => t.as_file_mut().write(buf),
            Inner::Direct(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Temp(t) => t.as_file_mut().flush(),
            Inner::Direct(f) => f.flush(),
        }
    }
}

/// Writes `bytes` to `target` through an [`AtomicFile`].
pub fn write_atomic(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(target)?;
    f.write_all(bytes).map_err(|e| Error::io(target, e))?;
    f.commit()
}

/// Reads a configuration or baseline file (`what`): refused unless it is a
/// regular file (a FIFO would block, `/dev/zero` never ends), and unless it
/// holds at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<String> {
    let f = crate::source::open_regular(path).map_err(|e| Error::io(path, e))?;
    let too_big = |n: u64| Error::Config {
        path: path.to_path_buf(),
        reason: format!("the {what} is {n} bytes, more than the {} MiB a {what} may hold", limit >> 20),
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > limit {
        return Err(too_big(len));
    }
    let mut buf = Vec::with_capacity(len as usize);
    f.take(limit + 1).read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
    if buf.len() as u64 > limit {
        return Err(too_big(buf.len() as u64));
    }
    String::from_utf8(buf)
        .map_err(|_| Error::Config { path: path.to_path_buf(), reason: format!("the {what} is not UTF-8 text") })
}

/// How many worker threads to ask for: `-j N` (capped at [`MAX_THREADS`],
/// and, when `work` says how many inputs there are, at the larger of that
/// and the number of cores: more threads than inputs only help a single
/// large input, whose batches use one per core), else one per core.
pub fn wanted_threads(requested: Option<usize>, work: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match requested {
        None | Some(0) => cores.min(MAX_THREADS),
        Some(n) => {
            let n = n.min(MAX_THREADS);
            match work {
                Some(w) => n.min(w.max(cores)),
                None => n,
            }
        }
    }
}

/// What [`fall_back`] settled on.
#[derive(Debug, PartialEq, Eq)]
pub struct Fallback<T> {
    /// The pool (or whatever `build` made).
    pub pool: T,
    /// Threads asked for.
    pub wanted: usize,
    /// Threads the pool has (1: the calling thread alone).
    pub threads: usize,
    /// The last error, when fewer than `wanted` were started.
    pub error: Option<String>,
}

/// Calls `build(k)` for k = `wanted`, then halving k down to 1 (the calling
/// thread alone), until one succeeds. `None` when even 1 fails.
pub fn fall_back<T, E: std::fmt::Display>(
    wanted: usize,
    mut build: impl FnMut(usize) -> std::result::Result<T, E>,
) -> Option<Fallback<T>> {
    let mut k = wanted.max(1);
    let mut error = None;
    loop {
        match build(k) {
            Ok(pool) => return Some(Fallback { pool, wanted, threads: k, error }),
            Err(e) => error = Some(e.to_string()),
        }
        if k == 1 {
            return None;
        }
        k = (k / 2).max(1);
    }
}

/// Stack size of spawned workers: the command runs on one of them
/// (`install`), so it gets what the main thread has.
const WORKER_STACK: usize = 8 << 20;

/// A rayon pool of `wanted` threads, or as many as the system allows: fewer
/// (halving), down to the calling thread alone (`use_current_thread`, no
/// thread spawned, so that last step cannot fail). Run the work inside it
/// with `ThreadPool::install`. Never the global pool: rayon builds that only
/// once, so a failed build could not be retried. The calling thread joins a
/// pool only when it is the pool's one thread: a build that fails after
/// taking the calling thread in would leave it registered.
pub fn build_pool(wanted: usize) -> Option<Fallback<rayon::ThreadPool>> {
    fall_back(wanted, |k| {
        let b = rayon::ThreadPoolBuilder::new();
        if k == 1 {
            b.num_threads(1).use_current_thread().build()
        } else {
            b.num_threads(k).stack_size(WORKER_STACK).build()
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::escape::{escape_bidi, escape_controls, escape_controls_but};

    #[test]
    fn remove_temp_files_removes_the_temporary_file_of_a_report_being_written() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("report.json");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"{\"partial\":").unwrap();
        let names = || std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect::<Vec<_>>();
        assert_eq!(names().len(), 1, "the temporary file is there while the report is written");
        remove_temp_files();
        assert_eq!(names(), Vec::<std::ffi::OsString>::new());
        drop(f);
        // A committed report is no longer a temporary file to remove.
        let mut g = AtomicFile::create(&target).unwrap();
        g.write_all(b"{}").unwrap();
        g.commit().unwrap();
        remove_temp_files();
        assert_eq!(std::fs::read(&target).unwrap(), b"{}");
    }

    use super::*;

    #[test]
    fn bidirectional_controls_are_escaped_like_control_characters() {
        assert_eq!(escape_controls("a\u{202e}gnp.exe"), "a\\u{202e}gnp.exe");
        assert_eq!(escape_controls("x\u{2066}y\u{2069}\u{200f}"), "x\\u{2066}y\\u{2069}\\u{200f}");
        assert_eq!(escape_controls("\u{1b}[31m"), "\\u{1b}[31m");
        assert_eq!(escape_controls("עברית and العربية"), "עברית and العربية");
        assert_eq!(crate::text::excerpt("evil\u{202e}txt", 40), "evil\\u{202e}txt");
        assert_eq!(escape_bidi("\u{1b}[31m-a\u{202e}b\u{1b}[0m"), "\u{1b}[31m-a\\u{202e}b\u{1b}[0m");
    }

    #[test]
    fn falls_back_by_halving_down_to_the_calling_thread() {
        let mut tried = Vec::new();
        let r = fall_back(8, |k| {
            tried.push(k);
            if k == 1 { Ok("current") } else { Err(format!("cannot spawn {k}")) }
        });
        assert_eq!(tried, vec![8, 4, 2, 1]);
        assert_eq!(r, Some(Fallback { pool: "current", wanted: 8, threads: 1, error: Some("cannot spawn 2".into()) }));
    }

    #[test]
    fn fallback_stops_at_the_first_count_that_works() {
        let mut tried = Vec::new();
        let r = fall_back(6, |k| {
            tried.push(k);
            if k <= 3 { Ok(k) } else { Err("EAGAIN") }
        });
        assert_eq!(tried, vec![6, 3]);
        assert_eq!(r.map(|f| (f.threads, f.error)), Some((3, Some("EAGAIN".into()))));
        assert_eq!(fall_back(2, Ok::<_, String>).map(|f| (f.threads, f.error)), Some((2, None)));
        assert!(fall_back(3, |_| Err::<(), _>("no")).is_none());
    }

    #[test]
    fn the_calling_thread_alone_runs_parallel_iterators() {
        // Simulated: every pool with spawned threads fails to build. On a
        // thread of its own: the calling thread stays registered in the pool.
        let (sum, threads, fell_back) = std::thread::spawn(move || {
            let f = fall_back(4, |k| {
                if k > 1 {
                    Err("simulated: Resource temporarily unavailable".to_string())
                } else {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(1)
                        .use_current_thread()
                        .build()
                        .map_err(|e| e.to_string())
                }
            })
            .unwrap();
            use rayon::prelude::*;
            let caller = std::thread::current().id();
            let (sum, threads, same) = f.pool.install(|| {
                let sum: u64 = (0..10_000u64).into_par_iter().sum();
                let (a, b) = rayon::join(|| std::thread::current().id(), || std::thread::current().id());
                (sum, rayon::current_num_threads(), a == caller && b == caller)
            });
            assert!(same, "all work ran on the calling thread");
            (sum, threads, f.threads)
        })
        .join()
        .unwrap();
        assert_eq!((sum, threads, fell_back), (49_995_000, 1, 1));
    }

    #[test]
    fn threads_are_capped() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS);
        assert_eq!(wanted_threads(Some(100_000), None), MAX_THREADS);
        assert_eq!(wanted_threads(Some(100_000), Some(1)), cores);
        assert_eq!(wanted_threads(Some(100_000), Some(1000)), MAX_THREADS);
        assert_eq!(wanted_threads(Some(3), Some(1000)), 3);
        assert_eq!(wanted_threads(None, Some(1)), cores);
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("a\u{1b}[31mb\nc\u{7f}"), "a\\u{1b}[31mb\\nc\\u{7f}");
        assert_eq!(escape_controls_but("x\u{1b}\ny", &['\n']), "x\\u{1b}\ny");
        assert!(matches!(escape_controls("plain é"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn resolve_goes_through_links_and_missing_tails() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::create_dir(&real).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, d.path().join("link")).unwrap();
        let want = real.canonicalize().unwrap().join("new/x.sarif");
        #[cfg(unix)]
        assert_eq!(resolve(&d.path().join("link/new/./x.sarif")), want);
        assert_eq!(resolve(&d.path().join("real/new/../new/x.sarif")), want);
    }
}
