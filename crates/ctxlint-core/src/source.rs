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

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Longest JSONL line that is parsed (bytes). A longer line is reported as
/// `malformed-line` ("line longer than …") and skipped without being buffered.
pub const MAX_LINE: usize = 256 * 1024 * 1024;
/// Largest whole JSON / YAML document that is read (bytes, after decompression).
pub const MAX_DOCUMENT: u64 = 512 * 1024 * 1024;
/// Most bytes read from standard input (4 GiB, as given: before
/// decompression); one more is an error for that input that says to save it
/// to a file, which is read where it lies with no such limit. It bounds what
/// `check - < /dev/zero` writes to the temporary folder, and is far above what
/// standard input must hold: 8 times [`MAX_DOCUMENT`] (any request body a file
/// could hold), 16 times [`MAX_LINE`], and about 140 times the benchmark's
/// 30 MB, 3,500-turn session.
pub const MAX_STDIN: u64 = 4 << 30;
/// Standard input of at most this many bytes (1 MiB, the size of
/// [`LineReader`]'s buffer) is kept in memory; a longer one is copied to a
/// temporary file ([`spool`]).
pub const STDIN_IN_MEMORY: usize = 1 << 20;
/// Bytes copied from standard input to its temporary file at a time.
pub const SPOOL_CHUNK: usize = 64 << 10;

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

/// Standard input copied to an anonymous temporary file ([`spool`]): a file
/// with no name (unlinked when made, so the system frees it when ctxlint
/// exits, however it exits), in the system's temporary folder, never written
/// after it is made. It is read at offsets (`pread`), so any number of readers
/// share it, each at its own position; it cannot change, so it needs no [`Stamp`].
#[derive(Debug, Clone)]
pub struct Spool {
    file: Arc<File>,
    /// Bytes in the file.
    len: u64,
}

impl Spool {
    /// A reader over the whole file, from its start.
    fn reader(&self) -> SpoolReader {
        SpoolReader { spool: self.clone(), pos: 0 }
    }

    /// The first bytes, to recognise a compression format.
    fn head(&self) -> io::Result<([u8; HEAD], usize)> {
        let mut head = [0u8; HEAD];
        let n = self.reader().read_full(&mut head)?;
        Ok((head, n))
    }
}

/// Reads `buf.len()` bytes at `off` of `f` without moving a shared position
/// (`pread`); fewer at the end of the file.
fn read_at(f: &File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(f, buf, off)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(f, buf, off)
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (f, buf, off);
        Err(io::Error::new(io::ErrorKind::Unsupported, "reading a file at an offset"))
    }
}

/// Whether [`read_at`] works here: else standard input stays in memory.
const CAN_SPOOL: bool = cfg!(any(unix, windows));

/// The message of the error a [`Spool`] gives when its file ends before its
/// length (something else truncated it).
const SPOOL_SHRANK: &str = "the temporary copy of standard input ended early";

/// A reader of a [`Spool`] at its own position.
#[derive(Debug)]
struct SpoolReader {
    spool: Spool,
    pos: u64,
}

impl SpoolReader {
    /// Fills as much of `buf` as the file holds from the position.
    fn read_full(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.read(&mut buf[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(n)
    }
}

impl Read for SpoolReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.spool.len.saturating_sub(self.pos);
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        loop {
            match read_at(&self.spool.file, &mut buf[..want], self.pos) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, SPOOL_SHRANK)),
                Ok(n) => {
                    self.pos += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Seek for SpoolReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(o) => Some(o),
            SeekFrom::End(d) => self.spool.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.pos)
    }
}

/// An uncompressed input opened for reading at offsets: a file on disk or a [`Spool`].
#[derive(Debug)]
enum Plain {
    File(File),
    Spool(SpoolReader),
}

impl Read for Plain {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Plain::File(f) => f.read(buf),
            Plain::Spool(s) => s.read(buf),
        }
    }
}

impl Seek for Plain {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            Plain::File(f) => f.seek(to),
            Plain::Spool(s) => s.seek(to),
        }
    }
}

/// How much of standard input [`spool`] reads, and where it keeps it.
/// [`StdinLimits::default`] is what `ctxlint` uses; tests make them small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdinLimits {
    /// An input of at most this many bytes stays in memory
    /// ([`STDIN_IN_MEMORY`]); a longer one is copied to a temporary file.
    pub in_memory: usize,
    /// Most bytes read in all ([`MAX_STDIN`]); one more is an error.
    pub max: u64,
    /// Most bytes kept in memory when no temporary file can be made (the
    /// temporary folder is missing, read-only or full): [`MAX_DOCUMENT`],
    /// so that any request body a file could hold is still checked.
    pub max_in_memory: u64,
}

impl Default for StdinLimits {
    fn default() -> Self {
        StdinLimits { in_memory: STDIN_IN_MEMORY, max: MAX_STDIN, max_in_memory: MAX_DOCUMENT }
    }
}

/// `n` bytes for a message: `4294967296 bytes (4 GiB)`, `1000 bytes`.
fn bytes_shown(n: u64) -> String {
    let unit = [(30, "GiB"), (20, "MiB"), (10, "KiB")].into_iter().find(|(s, _)| n >= 1 << s && n % (1 << s) == 0);
    match unit {
        Some((s, u)) => format!("{n} bytes ({} {u})", n >> s),
        None => format!("{n} bytes"),
    }
}

/// Reads from `r` into `buf` until `buf` holds `limit` bytes or `r` ends.
fn read_into(r: &mut impl Read, buf: &mut Vec<u8>, limit: u64) -> io::Result<()> {
    let want = limit.saturating_sub(buf.len() as u64);
    r.take(want).read_to_end(buf).map(|_| ())
}

/// Reads standard input as the input named `display` (`-`, or
/// `--stdin-filename`), with [`StdinLimits::default`] and the system's
/// temporary folder (`tempfile::tempfile`, which honours `TMPDIR`). See [`spool`].
pub fn stdin(display: &str) -> Result<SourceRef> {
    spool(display, io::stdin().lock(), &StdinLimits::default(), tempfile::tempfile)
}

/// Reads `r` (standard input) to its end as the input named `display`, with
/// memory bounded whatever it holds:
///
/// - at most `limits.in_memory` bytes: kept in memory ([`Origin::Memory`]);
/// - more: copied in [`SPOOL_CHUNK`]-byte chunks to the file `temp` makes
///   (an anonymous temporary file: [`Origin::Spooled`]), then read like a
///   file on disk — the same lines, offsets, findings and limits
///   ([`MAX_LINE`], [`MAX_DOCUMENT`]) as a file holding the same bytes;
/// - when `temp` fails (no writable temporary folder), kept in memory up to
///   `limits.max_in_memory` bytes.
///
/// # Errors
///
/// Each names `display` ([`Error::Io`]), and the run goes on with the other
/// inputs: a failed read of `r`; more than `limits.max` bytes (or, with no
/// temporary file, more than `limits.max_in_memory`), read no further than
/// one chunk past the limit, with a message naming the limit and saying to
/// save the input to a file; a failed write of the temporary file (a full disk).
pub fn spool(
    display: &str,
    mut r: impl Read,
    limits: &StdinLimits,
    temp: impl FnOnce() -> io::Result<File>,
) -> Result<SourceRef> {
    let fail = |why: String| Error::io(display, io::Error::other(why));
    let mem =
        |b: Vec<u8>| SourceRef { display: display.into(), origin: Origin::Memory(b.into()), seen: None, session: None };
    let save = "save it to a file and name the file instead (`ctxlint check FILE`): a file is read where it lies, with no such limit";
    let mut head = Vec::new();
    let keep = u64::try_from(limits.in_memory).unwrap_or(u64::MAX).min(limits.max);
    read_into(&mut r, &mut head, keep.saturating_add(1)).map_err(|e| Error::io(display, e))?;
    if head.len() as u64 <= keep {
        return Ok(mem(head));
    }
    let made = if CAN_SPOOL { temp() } else { Err(io::Error::new(io::ErrorKind::Unsupported, "not on this system")) };
    let mut file = match made {
        Ok(f) => f,
        Err(why) => {
            // No temporary file: memory, up to a bound.
            let cap = limits.max_in_memory.min(limits.max);
            read_into(&mut r, &mut head, cap.saturating_add(1)).map_err(|e| Error::io(display, e))?;
            if head.len() as u64 > cap {
                return Err(fail(format!(
                    "standard input is longer than {}, the most ctxlint keeps in memory when it cannot make a temporary file to hold it (in {}: {why}); set TMPDIR to a writable folder, or {save}",
                    bytes_shown(cap),
                    crate::escape::shown(&std::env::temp_dir()),
                )));
            }
            return Ok(mem(head));
        }
    };
    let too_long = || {
        fail(format!(
            "standard input is longer than {}, the most ctxlint reads from it; {save}",
            bytes_shown(limits.max)
        ))
    };
    let unwritable = |e: io::Error| {
        fail(format!(
            "standard input could not be copied to a temporary file in {} ({e}); set TMPDIR to a folder with room, or save it to a file and name the file instead",
            crate::escape::shown(&std::env::temp_dir()),
        ))
    };
    let mut len = head.len() as u64;
    if len > limits.max {
        return Err(too_long());
    }
    file.write_all(&head).map_err(unwritable)?;
    drop(head);
    let mut chunk = vec![0u8; SPOOL_CHUNK];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(display, e)),
        };
        len += n as u64;
        if len > limits.max {
            return Err(too_long());
        }
        file.write_all(&chunk[..n]).map_err(unwritable)?;
    }
    Ok(SourceRef {
        display: display.into(),
        origin: Origin::Spooled(Spool { file: Arc::new(file), len }),
        seen: None,
        session: None,
    })
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

    /// The compression the first bytes announce (gzip, zstd, bzip2, xz magic numbers).
    fn compression(&self, head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
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
                let n = read_head(&f, &mut head).map_err(|e| Error::io(&self.display, e))?;
                let comp = self.compression(&head[..n]);
                let f = open_regular(p).map_err(|e| Error::io(&self.display, e))?;
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
        Ok(LineReader::with_capacity(self.buffer_hint(1 << 20), r))
    }

    /// A read buffer size for this input: its size on disk plus one byte,
    /// between 8 KiB and `max` bytes (`max` when the size is unknown).
    pub fn buffer_hint(&self, max: usize) -> usize {
        match self.size() {
            Some(n) => usize::try_from(n.saturating_add(1)).unwrap_or(max).clamp(8 << 10, max.max(8 << 10)),
            None => max,
        }
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
        let mut buf = Vec::new();
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    Gzip,
    Zstd,
    Bzip2,
    Xz,
}

/// Bytes read to recognise a compression format (the xz magic number is 6 bytes).
const HEAD: usize = 6;

/// Most times its compressed size that a compressed input may decompress to
/// (beyond [`MIN_DECOMPRESSED`]). Real session files and logs compress 5 to
/// 30 times; a decompression bomb (a few KB of zstd that decompress to
/// gigabytes of `{}` lines) far more.
pub const MAX_RATIO: u64 = 100;

/// Bytes any compressed input may decompress to whatever its ratio.
pub const MIN_DECOMPRESSED: u64 = 8 << 20;

/// The most bytes an input of `compressed` bytes may decompress to.
pub fn decompressed_limit(compressed: u64) -> u64 {
    compressed.saturating_mul(MAX_RATIO).max(MIN_DECOMPRESSED)
}

/// A decompressing reader that fails (an I/O error naming the limit) once it
/// has given more than its limit: a decompression bomb is an input error,
/// read no further, never memory or time without end.
struct Capped<R> {
    inner: R,
    left: u64,
    limit: u64,
    compressed: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // One byte past the limit tells a bomb from an input exactly at it.
        let want = buf.len().min(usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.left {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "decompresses to more than {} bytes ({} times its {} compressed bytes): a decompression bomb, not read further",
                    self.limit, MAX_RATIO, self.compressed
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// `r` (the stored bytes, `compressed` of them) behind the decompressor `c`
/// announces, capped at [`decompressed_limit`].
fn wrap(c: Compression, r: Box<dyn Read + Send>, compressed: u64) -> io::Result<Box<dyn Read + Send>> {
    let limit = decompressed_limit(compressed);
    let cap = |inner: Box<dyn Read + Send>| -> Box<dyn Read + Send> {
        Box::new(Capped { inner, left: limit, limit, compressed })
    };
    Ok(match c {
        Compression::None => r,
        Compression::Gzip => cap(Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(r)))),
        Compression::Zstd => cap(Box::new(zstd::stream::read::Decoder::new(r)?)),
        // Multi-stream, like `bzcat` and `xzcat`: concatenated streams are one input.
        Compression::Bzip2 => cap(Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(r)))),
        Compression::Xz => cap(Box::new(liblzma::read::XzDecoder::new_multi_decoder(BufReader::new(r)))),
    })
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
        Stamp { len: m.len(), modified: m.modified().ok(), id }
    }

    /// Whether what was read at `self` still stands at `later`: the same file,
    /// unchanged or only grown (an append: inputs are read up to their size
    /// when opened, so appended bytes are not read). A file that shrank, was
    /// rewritten in place at the same size, or was replaced does not.
    pub fn still_holds(&self, later: &Stamp) -> bool {
        later.id == self.id && (later.len > self.len || (later.len == self.len && later.modified == self.modified))
    }
}

/// Bytes of the window a [`RangeReader`] reads at once.
pub const RANGE_WINDOW: usize = 256 << 10;

/// Byte ranges of one uncompressed input, read again in any order through
/// one open file and a window of [`RANGE_WINDOW`] bytes: ranges asked for
/// in ascending order (the lines of a session, walked in write order) cost
/// one read per window, not an open, a stat and a seek per line. A range
/// longer than the window is read on its own. Made by
/// [`SourceRef::range_reader`].
#[derive(Debug)]
pub struct RangeReader {
    inner: RangeInner,
    window: Vec<u8>,
    /// File offset of `window[0]`.
    start: u64,
}

#[derive(Debug)]
enum RangeInner {
    /// A file on disk or standard input's temporary file.
    Plain(Plain),
    Memory(Arc<[u8]>),
}

impl RangeReader {
    /// Exactly `len` bytes at byte `offset`; `None` when they cannot be read
    /// (the file became shorter, an I/O error).
    pub fn read(&mut self, offset: u64, len: usize) -> Option<&[u8]> {
        let end = offset.checked_add(len as u64)?;
        match &mut self.inner {
            RangeInner::Memory(b) => b.get(usize::try_from(offset).ok()?..usize::try_from(end).ok()?),
            RangeInner::Plain(f) => {
                let inside = offset >= self.start && end <= self.start + self.window.len() as u64;
                if !inside {
                    let want = len.max(RANGE_WINDOW);
                    self.window.resize(want, 0);
                    if f.seek(SeekFrom::Start(offset)).is_err() {
                        self.window.clear();
                        return None;
                    }
                    let mut n = 0;
                    while n < want {
                        match f.read(&mut self.window[n..]) {
                            Ok(0) => break,
                            Ok(k) => n += k,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(_) => {
                                self.window.clear();
                                return None;
                            }
                        }
                    }
                    self.window.truncate(n);
                    // A long line leaves no oversized buffer behind.
                    if self.window.capacity() > 2 * RANGE_WINDOW && n <= RANGE_WINDOW {
                        self.window.shrink_to(RANGE_WINDOW);
                    }
                    self.start = offset;
                    if n < len {
                        return None;
                    }
                }
                let a = usize::try_from(offset - self.start).ok()?;
                self.window.get(a..a + len)
            }
        }
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
    // Non-blocking: a regular file ignores it, but a kernel file that calls
    // itself regular and waits for data (`/proc/kmsg`, reached through a
    // link) then fails its read ("temporarily unavailable") instead of
    // hanging the run.
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(p)
}

/// One JSONL line.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number.
    pub no: u32,
    /// Byte offset of the line start.
    pub offset: u64,
    /// The line's bytes without the `\n` (and without a trailing `\r`).
    pub bytes: &'a [u8],
    /// Whether the line ended with `\n` (false only for the last line).
    pub terminated: bool,
    /// The line was longer than [`MAX_LINE`]; `bytes` is empty.
    pub too_long: bool,
    /// Full length in bytes, without the newline.
    pub len: u64,
}

/// Splits a byte stream into lines with `memchr`, reading in large blocks.
/// Memory use is bounded by the longest line (capped at [`MAX_LINE`]).
pub struct LineReader<R: Read> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    no: u32,
    offset: u64,
    done: bool,
    /// Bytes of the read buffer handed out as the last line, consumed at the next call.
    pending: usize,
}

impl<R: Read> LineReader<R> {
    /// A reader over `r`.
    pub fn new(r: R) -> Self {
        Self::with_capacity(1 << 20, r)
    }

    /// A reader over `r` reading `cap` bytes at a time.
    pub fn with_capacity(cap: usize, r: R) -> Self {
        LineReader {
            inner: BufReader::with_capacity(cap, r),
            buf: Vec::new(),
            no: 0,
            offset: 0,
            done: false,
            pending: 0,
        }
    }

    /// The next line, or `None` at the end. A line that lies whole in the
    /// read buffer is handed out from there, without a copy.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.pending > 0 {
            self.inner.consume(self.pending);
            self.pending = 0;
        }
        if self.done {
            return Ok(None);
        }
        self.buf.clear();
        // Fast path: the whole line is in the buffer.
        let found = loop {
            match self.inner.fill_buf() {
                Ok(b) => break memchr::memchr(b'\n', b),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if let Some(i) = found {
            self.pending = i + 1;
            self.no += 1;
            let offset = self.offset;
            self.offset += i as u64 + 1;
            let mut bytes = &self.inner.buffer()[..i];
            if bytes.last() == Some(&b'\r') {
                bytes = &bytes[..bytes.len() - 1];
            }
            return Ok(Some(Line { no: self.no, offset, bytes, terminated: true, too_long: false, len: i as u64 }));
        }
        let mut total: u64 = 0;
        let mut too_long = false;
        let mut terminated = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                break;
            }
            match memchr::memchr(b'\n', avail) {
                Some(i) => {
                    if !too_long {
                        if self.buf.len() + i > MAX_LINE {
                            too_long = true;
                            self.buf = Vec::new();
                        } else {
                            self.buf.extend_from_slice(&avail[..i]);
                        }
                    }
                    total += i as u64;
                    self.inner.consume(i + 1);
                    terminated = true;
                    break;
                }
                None => {
                    let n = avail.len();
                    if !too_long {
                        if self.buf.len() + n > MAX_LINE {
                            too_long = true;
                            self.buf = Vec::new();
                        } else {
                            self.buf.extend_from_slice(avail);
                        }
                    }
                    total += n as u64;
                    self.inner.consume(n);
                }
            }
        }
        if !terminated && total == 0 {
            self.done = true;
            return Ok(None);
        }
        if !terminated {
            self.done = true;
        }
        self.no += 1;
        let offset = self.offset;
        self.offset += total + u64::from(terminated);
        let mut bytes: &[u8] = &self.buf;
        if bytes.last() == Some(&b'\r') {
            bytes = &bytes[..bytes.len() - 1];
        }
        Ok(Some(Line { no: self.no, offset, bytes, terminated, too_long, len: total }))
    }
}

/// Line-start offsets of a document held in memory, to turn byte offsets into
/// 1-based line and column numbers.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line of byte `offset`, without its column (a binary
    /// search: cheap on a file that is one long line).
    pub fn line(&self, offset: usize) -> u32 {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        (line + 1) as u32
    }

    /// 1-based line and 1-based character column of byte `offset` in `text`.
    pub fn line_col(&self, text: &[u8], offset: usize) -> (u32, u32) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let col = String::from_utf8_lossy(&text[start..offset.min(text.len())]).chars().count();
        ((line + 1) as u32, (col + 1) as u32)
    }

    /// [`LineIndex::line_col`] of each of `offsets` (in their order), in one
    /// sweep: a column is counted on from the previous offset of the same
    /// line, so many offsets in one long line (a JSON document on one line)
    /// cost that line's length once, not once each. The offsets must lie on
    /// character boundaries (JSON structure and value ends do).
    pub fn line_cols(&self, text: &[u8], offsets: &[usize]) -> Vec<(u32, u32)> {
        let mut order: Vec<usize> = (0..offsets.len()).collect();
        order.sort_by_key(|&i| offsets[i]);
        let mut out = vec![(1, 1); offsets.len()];
        // (line index, offset, 0-based column) of the last offset placed.
        let mut last: Option<(usize, usize, usize)> = None;
        for i in order {
            let offset = offsets[i].min(text.len());
            let line = match self.starts.binary_search(&offset) {
                Ok(k) => k,
                Err(k) => k - 1,
            };
            let (from, base) = match last {
                Some((l, o, c)) if l == line => (o, c),
                _ => (self.starts[line], 0),
            };
            let col = base + String::from_utf8_lossy(&text[from..offset]).chars().count();
            last = Some((line, offset, col));
            out[i] = ((line + 1) as u32, (col + 1) as u32);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_reader_reads_exact_ranges_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..(3 * RANGE_WINDOW + 123)).map(|k| (k % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        for src in [
            SourceRef::file("f", &p),
            SourceRef { display: "m".into(), origin: Origin::Memory(data.clone().into()), seen: None, session: None },
            spool("s", &data[..], &small(), tempfile::tempfile).unwrap(),
        ] {
            let mut r = src.range_reader().expect("uncompressed");
            let ranges = [
                (0u64, 10usize),
                (5, 1000),
                (RANGE_WINDOW as u64 - 3, 10), // across a window's end
                (2 * RANGE_WINDOW as u64, 7),
                (100, 3),                   // backwards
                (10, RANGE_WINDOW * 2),     // longer than a window
                (data.len() as u64 - 5, 5), // the last bytes
                (0, 0),
            ];
            for (o, n) in ranges {
                assert_eq!(r.read(o, n), Some(&data[o as usize..o as usize + n]), "{} {o} {n}", src.display);
            }
            assert_eq!(r.read(data.len() as u64 - 5, 6), None, "past the end");
            assert_eq!(r.read(u64::MAX, 2), None, "overflow");
            assert_eq!(r.read(3, 4), Some(&data[3..7]), "still usable after a failed read");
        }
        let gz = dir.path().join("f.gz");
        std::fs::write(&gz, [0x1f, 0x8b, 8, 0, 0, 0]).unwrap();
        assert!(SourceRef::file("f.gz", &gz).range_reader().is_none(), "compressed: no seeking");
        assert!(SourceRef::file("gone", dir.path().join("gone")).range_reader().is_none());
    }

    fn lines(input: &[u8]) -> Vec<(u32, u64, Vec<u8>, bool)> {
        let mut r = LineReader::new(input);
        let mut out = vec![];
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.no, l.offset, l.bytes.to_vec(), l.terminated));
        }
        out
    }

    #[test]
    fn splits_lines_with_offsets() {
        let v = lines(b"a\r\nbb\n\nccc");
        assert_eq!(
            v,
            vec![
                (1, 0, b"a".to_vec(), true),
                (2, 3, b"bb".to_vec(), true),
                (3, 6, b"".to_vec(), true),
                (4, 7, b"ccc".to_vec(), false)
            ]
        );
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn line_index_columns_count_chars() {
        let t = "ab\nhé x".as_bytes();
        let ix = LineIndex::new(t);
        assert_eq!(ix.line_col(t, 0), (1, 1));
        assert_eq!(ix.line_col(t, 6), (2, 3));
        let offs = [6, 0, 9, 4, 1, 6, 100];
        let each: Vec<(u32, u32)> = offs.iter().map(|&o| ix.line_col(t, o)).collect();
        assert_eq!(ix.line_cols(t, &offs), each);
    }

    /// Limits small enough for a test: 1 KiB in memory, 1 MiB in all, 256 KiB in memory without a temporary file.
    fn small() -> StdinLimits {
        StdinLimits { in_memory: 1 << 10, max: 1 << 20, max_in_memory: 256 << 10 }
    }

    fn is_spooled(s: &SourceRef) -> bool {
        matches!(s.origin, Origin::Spooled(_))
    }

    fn no_temp() -> io::Result<File> {
        Err(io::Error::new(io::ErrorKind::PermissionDenied, "read-only"))
    }

    /// Every line [`LineReader`] gives: number, offset, bytes, terminated, too long, length.
    fn all_lines(src: &SourceRef) -> Vec<(u32, u64, Vec<u8>, bool, bool, u64)> {
        let mut r = src.lines().unwrap();
        let mut out = vec![];
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.no, l.offset, l.bytes.to_vec(), l.terminated, l.too_long, l.len));
        }
        out
    }

    /// JSONL-like bytes: lines of growing length (one longer than a spool
    /// chunk), CRLF endings, a blank line, no final newline.
    fn jsonl_bytes() -> Vec<u8> {
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
    fn stdin_up_to_the_memory_bound_stays_in_memory_and_longer_is_spooled() {
        let data = jsonl_bytes();
        let at = |n: usize| spool("-", &data[..n], &small(), tempfile::tempfile).unwrap();
        let (kept, spooled) = (at(1 << 10), at((1 << 10) + 1));
        assert!(matches!(kept.origin, Origin::Memory(ref b) if **b == data[..1 << 10]));
        assert!(is_spooled(&spooled));
        assert_eq!(spooled.size(), Some((1 << 10) + 1));
        assert_eq!(spooled.read_all().unwrap(), &data[..(1 << 10) + 1]);
        assert_eq!((kept.stamp(), spooled.stamp()), (None, None), "standard input never changes once read");
        let empty = spool("-", &b""[..], &small(), tempfile::tempfile).unwrap();
        assert!(matches!(empty.origin, Origin::Memory(ref b) if b.is_empty()));
        assert!(all_lines(&empty).is_empty());
        assert_eq!(empty.display, "-");
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

    /// A reader that counts the bytes taken from it.
    struct Counted<R> {
        inner: R,
        taken: u64,
    }
    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.taken += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn endless_stdin_ends_at_the_limit_with_an_error_naming_it() {
        let limits = small();
        let mut zero = Counted { inner: io::repeat(0), taken: 0 };
        let e = spool("-", &mut zero, &limits, tempfile::tempfile).unwrap_err();
        assert_eq!(
            e.to_string(),
            "-: standard input is longer than 1048576 bytes (1 MiB), the most ctxlint reads from it; save it to a \
             file and name the file instead (`ctxlint check FILE`): a file is read where it lies, with no such limit"
        );
        assert_eq!(e.path(), Some(Path::new("-")));
        assert!(zero.taken > limits.max && zero.taken <= limits.max + SPOOL_CHUNK as u64, "read {}", zero.taken);
        // Exactly the limit is fine.
        let src = spool("-", io::repeat(7).take(limits.max), &limits, tempfile::tempfile).unwrap();
        assert_eq!(src.size(), Some(limits.max));
        // Named by --stdin-filename; with no temporary file, at the memory bound.
        let mut zero = Counted { inner: io::repeat(0), taken: 0 };
        let e = spool("piped.jsonl", &mut zero, &limits, no_temp).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "piped.jsonl: standard input is longer than 262144 bytes (256 KiB), the most ctxlint keeps in memory \
                 when it cannot make a temporary file to hold it (in {}: read-only); set TMPDIR to a writable folder, \
                 or save it to a file and name the file instead (`ctxlint check FILE`): a file is read where it lies, \
                 with no such limit",
                std::env::temp_dir().display()
            )
        );
        assert_eq!(zero.taken, limits.max_in_memory + 1);
        // The real /dev/zero, a device that never ends.
        #[cfg(unix)]
        {
            let e = spool("-", File::open("/dev/zero").unwrap(), &limits, tempfile::tempfile).unwrap_err();
            assert!(e.to_string().contains("longer than 1048576 bytes (1 MiB)"), "{e}");
        }
    }

    #[test]
    fn with_no_temporary_file_stdin_is_kept_in_memory_up_to_a_bound() {
        let data = jsonl_bytes();
        let limits = StdinLimits { max_in_memory: data.len() as u64, ..small() };
        let src = spool("-", &data[..], &limits, no_temp).unwrap();
        assert!(matches!(src.origin, Origin::Memory(ref b) if **b == *data));
        let e = spool("-", &data[..], &StdinLimits { max_in_memory: data.len() as u64 - 1, ..small() }, no_temp);
        let want = format!("longer than {} bytes, the most ctxlint keeps in memory", data.len() - 1);
        assert!(e.unwrap_err().to_string().contains(&want), "{want}");
    }

    /// Gives `ok` bytes, then fails with `EIO`.
    struct Failing {
        ok: usize,
    }
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.ok == 0 {
                return Err(io::Error::from_raw_os_error(5));
            }
            let n = buf.len().min(self.ok);
            buf[..n].fill(b'a');
            self.ok -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_failed_read_or_write_is_an_error_naming_the_input() {
        let eio = io::Error::from_raw_os_error(5).to_string();
        for ok in [10, 5000, 300_000] {
            let e = spool("in.json", Failing { ok }, &small(), tempfile::tempfile).unwrap_err();
            assert_eq!(e.to_string(), format!("in.json: {eio}"), "after {ok} bytes");
        }
        // A temporary file that refuses writes (a full disk): an error, no panic.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ro");
        std::fs::write(&p, b"").unwrap();
        let e = spool("-", &jsonl_bytes()[..], &small(), || File::open(&p)).unwrap_err().to_string();
        let why = File::open(&p).unwrap().write(b"x").unwrap_err();
        assert_eq!(
            e,
            format!(
                "-: standard input could not be copied to a temporary file in {} ({why}); set TMPDIR to a folder \
                 with room, or save it to a file and name the file instead",
                std::env::temp_dir().display()
            )
        );
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

    #[test]
    fn a_spool_reader_seeks_and_reads_at_its_own_position() {
        let data: Vec<u8> = (0..5000u32).map(|k| (k % 253) as u8).collect();
        let Origin::Spooled(s) = spool("-", &data[..], &small(), tempfile::tempfile).unwrap().origin else {
            panic!("not spooled")
        };
        let (mut a, mut b) = (s.reader(), s.reader());
        let mut x = [0u8; 10];
        assert_eq!(a.seek(SeekFrom::Start(4990)).unwrap(), 4990);
        assert_eq!(a.read_full(&mut x).unwrap(), 10);
        assert_eq!(x, data[4990..]);
        assert_eq!(b.read_full(&mut x).unwrap(), 10, "another reader starts at 0");
        assert_eq!(x, data[..10]);
        assert_eq!(a.read(&mut x).unwrap(), 0, "at the end");
        assert_eq!(b.seek(SeekFrom::End(-3)).unwrap(), 4997);
        assert_eq!(b.seek(SeekFrom::Current(-7)).unwrap(), 4990);
        assert!(b.seek(SeekFrom::Current(-5000)).is_err());
        assert_eq!(s.head().unwrap(), ([0, 1, 2, 3, 4, 5], 6));
        assert_eq!(bytes_shown(4 << 30), "4294967296 bytes (4 GiB)");
        assert_eq!(bytes_shown(1000), "1000 bytes");
    }
}
