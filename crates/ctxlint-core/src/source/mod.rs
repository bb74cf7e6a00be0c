//! Reading inputs: files (plain, `.gz`, `.zst`, `.bz2`, `.xz`), standard input, and JSONL
//! split line by line with `memchr` without holding the file in memory.
//!
//! Inputs are opened read-only and never written, locked or created beside
//! (docs/spec.md §5). Special files (FIFOs, sockets, devices) are refused before they
//! are opened, so a FIFO with no writer cannot hang ctxlint.
//!
//! Standard input is read as a stream too ([`spool`]): up to
//! [`STDIN_IN_MEMORY`] bytes it is kept in memory; a longer one is copied in
//! [`SPOOL_CHUNK`]-byte chunks to an anonymous temporary file in the system's
//! temporary folder (never beside an input), up to [`MAX_STDIN`] bytes, and
//! then read like a file on disk, with the same line and document limits.

mod compress;
mod elements;
mod lines;
mod range;
mod stdin;

use crate::error::{Error, Result};
use compress::{Compression, HEAD, wrap};
use range::{Plain, RangeInner};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use compress::{MAX_RATIO, MIN_DECOMPRESSED, decompressed_limit};
pub use elements::stream_array;
pub use lines::{Line, LineIndex, LineReader};
pub use range::{RANGE_WINDOW, RangeReader};
pub use stdin::{MAX_STDIN, SPOOL_CHUNK, STDIN_IN_MEMORY, Spool, StdinLimits, spool, stdin};

/// Longest JSONL line that is parsed (bytes). A longer line is reported as
/// `malformed-line` ("line longer than …") and skipped without being buffered.
pub const MAX_LINE: usize = 256 * 1024 * 1024;
/// Largest whole JSON / YAML document that is read (bytes, after decompression).
pub const MAX_DOCUMENT: u64 = 512 * 1024 * 1024;

/// Where an input's bytes come from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A file on disk.
    File(PathBuf),
    /// Bytes already in memory: a short standard input (see [`spool`]), or
    /// bytes a test, the fuzzer or `repro` made.
    Memory(Arc<[u8]>),
    /// A long standard input, copied to an anonymous temporary file (see [`spool`]).
    Spooled(Spool),
}

/// An input to read: its display path (as given) and where its bytes are.
#[derive(Debug, Clone)]
pub struct SourceRef {
    /// Path as given on the command line or found while walking (`-` names stdin
    /// unless `--stdin-filename` is given).
    pub display: String,
    /// The bytes' origin.
    pub origin: Origin,
    /// The file's [`Stamp`] when its format was detected: loading it checks
    /// that the file has not changed since in a way that could change it,
    /// and reads it as that many bytes (`None`: not detected from a file, or
    /// not known; then it is read up to its size when opened).
    pub seen: Option<Stamp>,
    /// The one session this source stands for, in a store that holds several
    /// (an OpenCode database: one transcript per session); `None` for the
    /// whole input.
    pub session: Option<Box<str>>,
}

impl SourceRef {
    /// A file source.
    pub fn file(display: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        SourceRef { display: display.into(), origin: Origin::File(path.into()), seen: None, session: None }
    }

    /// A small uncompressed file read whole in one open, as the stamp its
    /// format was detected with ([`SourceRef::seen`]) says it is: the same
    /// input with its bytes in memory, to load without opening the file again
    /// for each step. `None` — read it the usual way, which re-checks, retries
    /// and reports — when it is not a file, has no stamp, is `max` bytes or
    /// more, is compressed, cannot be read, or no longer holds to its stamp
    /// (it changed since it was detected, or while it was read).
    pub fn small_snapshot(&self, max: u64) -> Option<SourceRef> {
        // A file stamped regular is opened without asking its type again:
        // the stamp checked after the read names the same inode, which stays
        // the same kind of file (a FIFO or folder put in its place since is
        // another inode, and fails the check).
        let open = if self.seen.is_some_and(|s| s.regular) { open_nonblocking } else { open_regular };
        self.snapshot_opened_by(max, open, true)
    }

    /// [`SourceRef::small_snapshot`] for a caller that has just taken
    /// [`SourceRef::seen`] itself (discovery, right before detection): the
    /// stamp already says the file is a regular one, so it is opened without
    /// asking the file system its type a second time (checking 20,000 small
    /// sessions made 120,000 `stat` calls). `None` when the stamp is not
    /// of a regular file, and in every case [`SourceRef::small_snapshot`]
    /// gives `None`.
    ///
    /// For detection only: the bytes are not checked against the stamp
    /// afterwards (one `fstat` less per file). A file changed while it was
    /// read here no longer holds to the stamp, which was taken before, and
    /// the load, which checks it, detects such a file again.
    pub fn small_snapshot_just_stamped(&self, max: u64) -> Option<SourceRef> {
        if !self.seen.is_some_and(|s| s.regular) {
            return None;
        }
        self.snapshot_opened_by(max, open_nonblocking, false)
    }

    fn snapshot_opened_by(&self, max: u64, open: fn(&Path) -> io::Result<File>, verify: bool) -> Option<SourceRef> {
        let (Origin::File(p), Some(seen)) = (&self.origin, self.seen) else { return None };
        if seen.len >= max {
            return None;
        }
        let f = open(p).ok()?;
        // Exactly the bytes detected (in one read, as a rule), and the file
        // still that one, at that size, afterwards.
        // Read straight into the shared buffer (an `Arc<[u8]>` made from a
        // `Vec` would copy the whole file once more).
        let mut buf: Arc<[u8]> = std::iter::repeat_n(0u8, seen.len as usize).collect();
        (&f).read_exact(Arc::get_mut(&mut buf)?).ok()?;
        if verify {
            let now = Stamp::of(&f.metadata().ok()?);
            if now.len != seen.len || !seen.still_holds(&now) {
                return None;
            }
        }
        if self.compression(&buf) != Compression::None {
            return None;
        }
        Some(SourceRef { origin: Origin::Memory(buf), seen: None, ..self.clone() })
    }

    /// File name without compression suffixes, for format hints.
    pub fn logical_name(&self) -> &str {
        let n = self.display.as_str();
        [".gz", ".zst", ".bz2", ".xz"].iter().find_map(|s| n.strip_suffix(s)).unwrap_or(n)
    }

    /// Opens a decompressing reader over the whole input. A UTF-8 byte
    /// order mark at its start reads as three spaces (whitespace to JSON and
    /// YAML): line numbers and byte offsets stay those of the file, and a
    /// file saved by an editor that adds one is read like any other.
    pub fn open(&self) -> Result<Box<dyn Read + Send>> {
        let mut r = self.open_raw()?;
        let mut head = [0u8; 3];
        let mut n = 0;
        while n < 3 {
            match r.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.display, e)),
            }
        }
        if n == 3 && head == [0xEF, 0xBB, 0xBF] {
            head = *b"   ";
        }
        Ok(Box::new(io::Cursor::new(head[..n].to_vec()).chain(r)))
    }

    /// [`SourceRef::open`] without the byte-order-mark rule.
    fn open_raw(&self) -> Result<Box<dyn Read + Send>> {
        match &self.origin {
            Origin::Memory(bytes) => {
                let comp = self.compression(bytes);
                let cur = io::Cursor::new(ArcBytes(bytes.clone()));
                wrap(comp, Box::new(cur), bytes.len() as u64).map_err(|e| Error::io(&self.display, e))
            }
            Origin::Spooled(s) => {
                let (head, n) = s.head().map_err(|e| Error::io(&self.display, e))?;
                let comp = self.compression(&head[..n]);
                wrap(comp, Box::new(s.reader()), s.len).map_err(|e| Error::io(&self.display, e))
            }
            Origin::File(p) => {
                let f = open_regular(p).map_err(|e| Error::io(&self.display, e))?;
                let mut head = [0u8; HEAD];
                // Read at offset 0 (the file's position stays at its start:
                // one open serves the sniff and the read).
                let n = read_head_at(&f, &mut head).map_err(|e| Error::io(&self.display, e))?;
                let comp = self.compression(&head[..n]);
                // Read exactly up to that size: bytes a writer appends while it
                // is read are not read (see [`Stamp::still_holds`]), and a file
                // that ends sooner is an error ([`SHRANK`]).
                // The size stamped when the file was found (see `seen`), else its size now.
                let len = match self.seen {
                    Some(s) => s.len,
                    None => f.metadata().map_err(|e| Error::io(&self.display, e))?.len(),
                };
                wrap(comp, Box::new(Sized { f, left: len }), len).map_err(|e| Error::io(&self.display, e))
            }
        }
    }

    /// A [`LineReader`] over the whole input, with a buffer sized to the
    /// input (at most 1 MiB): checking thousands of small files must not
    /// allocate and fault in a megabyte for each.
    pub fn lines(&self) -> Result<LineReader<Box<dyn Read + Send>>> {
        let r = self.open()?;
        let size = self.size();
        Ok(LineReader::with_capacity(buffer_hint_of(size, 1 << 20), r).with_len(size))
    }

    /// A read buffer size for this input: its size on disk plus one byte,
    /// between 8 KiB and `max` bytes (`max` when the size is unknown).
    pub fn buffer_hint(&self, max: usize) -> usize {
        buffer_hint_of(self.size(), max)
    }

    /// Whether the first `len` bytes of the file end a line (byte `len - 1`
    /// is `\n`, or `len` is 0): `None` for standard input, bytes in memory,
    /// a compressed file (its bytes are not its lines) or a read error.
    pub fn ends_a_line_at(&self, len: u64) -> Option<bool> {
        let Origin::File(p) = &self.origin else { return None };
        if len == 0 {
            return Some(true);
        }
        if self.is_compressed() {
            return None;
        }
        let f = open_regular(p).ok()?;
        let mut b = [0u8; 1];
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(&f, &mut b, len - 1).ok()?;
        #[cfg(not(unix))]
        let n = {
            use std::io::{Read, Seek};
            let mut f = f;
            f.seek(io::SeekFrom::Start(len - 1)).ok()?;
            f.read(&mut b).ok()?
        };
        (n == 1).then_some(b[0] == b'\n')
    }

    /// Whether the bytes are gzip, zstd, bzip2 or xz compressed (false when unreadable).
    pub fn is_compressed(&self) -> bool {
        match &self.origin {
            Origin::Memory(bytes) => self.compression(bytes) != Compression::None,
            Origin::Spooled(s) => s.head().is_ok_and(|(head, n)| self.compression(&head[..n]) != Compression::None),
            Origin::File(p) => {
                let mut head = [0u8; HEAD];
                let n = open_regular(p).and_then(|f| read_head(&f, &mut head)).unwrap_or(0);
                self.compression(&head[..n]) != Compression::None
            }
        }
    }

    /// Reads the lines starting at the given byte offsets (after decompression
    /// there is no seeking, so `None` for compressed inputs: read them in order
    /// instead). Each line comes without its `\n` and a trailing `\r`, as
    /// [`LineReader`] gives it, capped at [`MAX_LINE`] bytes. `None` on an I/O error.
    pub fn lines_at(&self, offsets: &[u64]) -> Option<Vec<Vec<u8>>> {
        fn cut(mut v: Vec<u8>) -> Vec<u8> {
            if v.last() == Some(&b'\n') {
                v.pop();
            }
            if v.last() == Some(&b'\r') {
                v.pop();
            }
            v
        }
        match &self.origin {
            Origin::Memory(bytes) => {
                if self.compression(bytes) != Compression::None {
                    return None;
                }
                let line = |o: u64| {
                    let rest = bytes.get(usize::try_from(o).ok()?..)?;
                    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len()).min(MAX_LINE);
                    Some(cut(rest[..end].to_vec()))
                };
                offsets.iter().map(|&o| line(o)).collect()
            }
            Origin::File(_) | Origin::Spooled(_) => {
                let f = self.open_plain()?;
                let mut r = BufReader::with_capacity(64 << 10, f);
                let mut out = Vec::with_capacity(offsets.len());
                for &o in offsets {
                    r.seek(SeekFrom::Start(o)).ok()?;
                    let mut v = Vec::new();
                    (&mut r).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut v).ok()?;
                    out.push(cut(v));
                }
                Some(out)
            }
        }
    }

    /// Exactly `len` bytes at byte `offset` of an uncompressed input (a line
    /// whose length is known, read again for a finding or `show`); `None` for a
    /// compressed input or when the bytes cannot be read. Unlike
    /// [`SourceRef::lines_at`] it reads no more than the line itself.
    pub fn bytes_at(&self, offset: u64, len: usize) -> Option<Vec<u8>> {
        match &self.origin {
            Origin::Memory(bytes) => {
                if self.compression(bytes) != Compression::None {
                    return None;
                }
                let start = usize::try_from(offset).ok()?;
                bytes.get(start..start.checked_add(len)?).map(<[u8]>::to_vec)
            }
            Origin::File(_) | Origin::Spooled(_) => {
                let mut f = self.open_plain()?;
                f.seek(SeekFrom::Start(offset)).ok()?;
                let mut v = vec![0u8; len];
                f.read_exact(&mut v).ok()?;
                Some(v)
            }
        }
    }

    /// The file's [`Stamp`] now (`None` for standard input, which cannot
    /// change once read, or when it cannot be read).
    pub fn stamp(&self) -> Option<Stamp> {
        match &self.origin {
            Origin::File(p) => std::fs::metadata(p).ok().map(|m| Stamp::of(&m)),
            Origin::Memory(_) | Origin::Spooled(_) => None,
        }
    }

    /// The file (on disk, or standard input's temporary file) opened for
    /// reading at arbitrary offsets: `None` when it is compressed (no seeking
    /// in a decompressed stream), cannot be opened, or is in memory.
    fn open_plain(&self) -> Option<Plain> {
        let (plain, head, n) = match &self.origin {
            Origin::File(p) => {
                let f = open_regular(p).ok()?;
                let mut head = [0u8; HEAD];
                let n = read_head(&f, &mut head).ok()?;
                (Plain::File(f), head, n)
            }
            Origin::Spooled(s) => {
                let (head, n) = s.head().ok()?;
                (Plain::Spool(s.reader()), head, n)
            }
            Origin::Memory(_) => return None,
        };
        (self.compression(&head[..n]) == Compression::None).then_some(plain)
    }

    /// A [`RangeReader`] over an uncompressed input (`None` when it is
    /// compressed or cannot be opened): many lines read again through one
    /// open file instead of opening it for each.
    pub fn range_reader(&self) -> Option<RangeReader> {
        let inner = match &self.origin {
            Origin::Memory(bytes) => {
                if self.compression(bytes) != Compression::None {
                    return None;
                }
                RangeInner::Memory(bytes.clone())
            }
            Origin::File(_) | Origin::Spooled(_) => RangeInner::Plain(self.open_plain()?),
        };
        Some(RangeReader { inner, window: Vec::new(), start: 0 })
    }

    /// The first `n` bytes after decompression (fewer if the input is shorter).
    pub fn peek(&self, n: usize) -> Result<Vec<u8>> {
        let mut r = self.open()?;
        let mut buf = Vec::with_capacity(self.buffer_hint(n).min(n));
        (&mut r).take(n as u64).read_to_end(&mut buf).map_err(|e| Error::io(&self.display, e))?;
        Ok(buf)
    }

    /// The whole input after decompression, refusing documents over [`MAX_DOCUMENT`].
    pub fn read_all(&self) -> Result<Vec<u8>> {
        self.read_all_max(MAX_DOCUMENT)
    }

    /// [`SourceRef::read_all`] with the limit given (tests make it small).
    fn read_all_max(&self, max: u64) -> Result<Vec<u8>> {
        let mut r = self.open()?;
        // Room for the whole input at once when its size is known and it is
        // not compressed (else it grows as read): grown by doubling, a 100 MB
        // document took up to twice its size while it was read.
        let room = match self.size() {
            Some(n) if n <= max && !self.is_compressed() => n as usize + 1,
            _ => 0,
        };
        let mut buf = Vec::with_capacity(room);
        (&mut r).take(max + 1).read_to_end(&mut buf).map_err(|e| Error::io(&self.display, e))?;
        if buf.len() as u64 > max {
            return Err(Error::BadInput {
                path: self.display.clone().into(),
                format: "JSON".into(),
                reason: format!("document larger than {max} bytes"),
            });
        }
        Ok(buf)
    }

    /// Size in bytes as stored (on disk, or as read from standard input);
    /// `None` when the file's metadata cannot be read.
    pub fn size(&self) -> Option<u64> {
        match &self.origin {
            // The size its format was detected at is the size it is read up to.
            Origin::File(_) if self.seen.is_some() => self.seen.map(|s| s.len),
            Origin::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Origin::Memory(b) => Some(b.len() as u64),
            Origin::Spooled(s) => Some(s.len),
        }
    }
}

struct ArcBytes(Arc<[u8]>);
impl AsRef<[u8]> for ArcBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A file read up to the size it had when opened: bytes appended meanwhile
/// are not read, and a file that ends sooner (it shrank, or was truncated to
/// be written anew, while it was read) is an error ([`SHRANK`]), never a
/// shorter input.
struct Sized {
    f: File,
    left: u64,
}

/// The message of the error a [`Sized`] reader gives when the file ends early.
pub const SHRANK: &str = "the file shrank while it was read";

impl Read for Sized {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.f.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, SHRANK));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// What tells whether a file changed between two moments: its size, its
/// modification time and (on Unix) its device and inode (a file replaced by
/// a rename is another inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub len: u64,
    modified: Option<std::time::SystemTime>,
    id: (u64, u64),
    /// A regular file when stamped (not compared by [`Stamp::still_holds`]:
    /// the same device and inode stay the same kind of file).
    regular: bool,
}

impl Stamp {
    /// The stamp of a file's metadata.
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        Stamp { len: m.len(), modified: m.modified().ok(), id, regular: m.is_file() }
    }

    /// The file's device and inode (Unix; `None` elsewhere), links followed.
    pub fn inode(&self) -> Option<(u64, u64)> {
        cfg!(unix).then_some(self.id)
    }

    /// Whether the file was a regular file when stamped.
    pub fn is_regular(&self) -> bool {
        self.regular
    }

    /// Whether what was read at `self` still stands at `later`: the same file,
    /// unchanged or only grown (an append: inputs are read up to their size
    /// when opened, so appended bytes are not read). A file that shrank, was
    /// rewritten in place at the same size, or was replaced does not.
    pub fn still_holds(&self, later: &Stamp) -> bool {
        later.id == self.id && (later.len > self.len || (later.len == self.len && later.modified == self.modified))
    }
}

/// [`read_head`] with positioned reads (`pread`): the file's own position
/// is left at its start.
fn read_head_at(f: &File, buf: &mut [u8]) -> io::Result<usize> {
    #[cfg(unix)]
    {
        let mut n = 0;
        while n < buf.len() {
            match std::os::unix::fs::FileExt::read_at(f, &mut buf[n..], n as u64) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut g = f;
        let n = read_head(g, buf)?;
        g.seek(SeekFrom::Start(0))?;
        Ok(n)
    }
}

/// [`SourceRef::buffer_hint`] for an input of `size` bytes (`None`: unknown).
fn buffer_hint_of(size: Option<u64>, max: usize) -> usize {
    match size {
        Some(n) => usize::try_from(n.saturating_add(1)).unwrap_or(max).clamp(8 << 10, max.max(8 << 10)),
        None => max,
    }
}

fn read_head(mut f: &File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Opens `p` read-only after checking that it is a regular file (following
/// symlinks). FIFOs, sockets and devices are refused so that a FIFO with no
/// writer cannot block; directories are refused with `EISDIR`.
pub fn open_regular(p: &Path) -> io::Result<File> {
    let md = std::fs::metadata(p)?;
    if md.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
    }
    if !md.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file (FIFO, socket or device)"));
    }
    open_nonblocking(p)
}

/// Opens `p` read-only and non-blocking, with no check of its type (for a
/// path just stamped as a regular file; else [`open_regular`]).
fn open_nonblocking(p: &Path) -> io::Result<File> {
    // Non-blocking: a regular file ignores it, but a kernel file that calls
    // itself regular and waits for data (`/proc/kmsg`, reached through a
    // link) then fails its read ("temporarily unavailable") instead of
    // hanging the run.
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Limits small enough for a test: 1 KiB in memory, 1 MiB in all, 256 KiB in memory without a temporary file.
    pub(super) fn small() -> StdinLimits {
        StdinLimits { in_memory: 1 << 10, max: 1 << 20, max_in_memory: 256 << 10 }
    }

    pub(super) fn is_spooled(s: &SourceRef) -> bool {
        matches!(s.origin, Origin::Spooled(_))
    }

    /// Every line [`LineReader`] gives: number, offset, bytes, terminated, too long, length.
    pub(super) fn all_lines(src: &SourceRef) -> Vec<(u32, u64, Vec<u8>, bool, bool, u64)> {
        let mut r = src.lines().unwrap();
        let mut out = vec![];
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.no, l.offset, l.bytes.to_vec(), l.terminated, l.too_long, l.len));
        }
        out
    }

    /// JSONL-like bytes: lines of growing length (one longer than a spool
    /// chunk), CRLF endings, a blank line, no final newline.
    pub(super) fn jsonl_bytes() -> Vec<u8> {
        let mut data = Vec::new();
        for k in 0..200usize {
            data.extend_from_slice(format!("{{\"n\":{k},\"t\":\"{}\"}}", "x".repeat(k * 37)).as_bytes());
            data.extend_from_slice(if k % 7 == 0 { b"\r\n" } else { b"\n" });
        }
        data.extend_from_slice(b"\n");
        data.extend_from_slice(format!("{{\"long\":\"{}\"}}\n", "y".repeat(3 * SPOOL_CHUNK + 11)).as_bytes());
        data.extend_from_slice(b"{\"last\":true}");
        data
    }

    #[test]
    fn spooled_stdin_reads_exactly_like_the_file_of_the_same_bytes() {
        let data = jsonl_bytes();
        assert!(data.len() > 4 * SPOOL_CHUNK, "{}", data.len());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, &data).unwrap();
        let file = SourceRef::file("s.jsonl", &p);
        let spooled = spool("s.jsonl", &data[..], &small(), tempfile::tempfile).unwrap();
        let memory = spool("s.jsonl", &data[..], &StdinLimits::default(), tempfile::tempfile).unwrap();
        assert!(is_spooled(&spooled) && matches!(memory.origin, Origin::Memory(_)));
        let want = all_lines(&file);
        assert_eq!(want.len(), 203);
        assert_eq!(want[201].2.len(), 3 * SPOOL_CHUNK + 22);
        assert_eq!(want[202], (203, data.len() as u64 - 13, b"{\"last\":true}".to_vec(), false, false, 13));
        let offsets: Vec<u64> = want.iter().map(|l| l.1).collect();
        for src in [&spooled, &memory] {
            assert_eq!(all_lines(src), want, "{:?}", src.origin);
            assert_eq!(src.size(), Some(data.len() as u64));
            assert_eq!(src.peek(100).unwrap(), file.peek(100).unwrap());
            assert_eq!(src.read_all().unwrap(), data);
            assert!(!src.is_compressed());
            assert_eq!(src.lines_at(&offsets), file.lines_at(&offsets));
            assert_eq!(src.lines_at(&offsets).unwrap()[201], want[201].2);
            for l in &want {
                let len = usize::try_from(l.5).unwrap();
                assert_eq!(src.bytes_at(l.1, len), file.bytes_at(l.1, len), "line {}", l.0);
                let mut r = src.range_reader().unwrap();
                assert_eq!(r.read(l.1, len).map(<[u8]>::to_vec), file.bytes_at(l.1, len), "line {}", l.0);
            }
            assert_eq!(src.bytes_at(data.len() as u64 - 2, 3), None, "past the end");
        }
    }

    #[test]
    fn compressed_stdin_is_decompressed_from_its_spool() {
        let text = jsonl_bytes();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        assert!(gz.len() > 1 << 10);
        let src = spool("-", &gz[..], &small(), tempfile::tempfile).unwrap();
        assert!(is_spooled(&src) && src.is_compressed());
        assert_eq!(src.size(), Some(gz.len() as u64));
        assert_eq!(src.read_all().unwrap(), text);
        assert_eq!(all_lines(&src).len(), 203);
        assert!(src.range_reader().is_none() && src.lines_at(&[0]).is_none() && src.bytes_at(0, 1).is_none());
    }

    #[test]
    fn a_document_over_the_limit_is_the_same_error_from_stdin_as_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let data = vec![b' '; 2000];
        let p = dir.path().join("r.json");
        std::fs::write(&p, &data).unwrap();
        let file = SourceRef::file("r.json", &p);
        let spooled = spool("r.json", &data[..], &small(), tempfile::tempfile).unwrap();
        let memory = spool("r.json", &data[..], &StdinLimits::default(), tempfile::tempfile).unwrap();
        assert!(is_spooled(&spooled));
        for src in [&file, &spooled, &memory] {
            assert_eq!(
                src.read_all_max(1999).unwrap_err().to_string(),
                "r.json: cannot be read as JSON: document larger than 1999 bytes"
            );
            assert_eq!(src.read_all_max(2000).unwrap(), data);
        }
    }
}
