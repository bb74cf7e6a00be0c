//! Reading inputs: files (plain, `.gz`, `.zst`, `.bz2`, `.xz`), standard input, and JSONL
//! split line by line with `memchr` without holding the file in memory.
//!
//! Inputs are opened read-only and never written, locked or created beside
//! (SPEC §5). Special files (FIFOs, sockets, devices) are refused before they
//! are opened, so a FIFO with no writer cannot hang ctxlint.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Bytes already in memory (standard input), with the name to report.
    Memory(Arc<[u8]>),
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
}

impl SourceRef {
    /// A file source.
    pub fn file(display: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        SourceRef { display: display.into(), origin: Origin::File(path.into()), seen: None }
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

    /// Opens a decompressing reader over the whole input.
    pub fn open(&self) -> Result<Box<dyn Read + Send>> {
        match &self.origin {
            Origin::Memory(bytes) => {
                let comp = self.compression(bytes);
                let cur = io::Cursor::new(ArcBytes(bytes.clone()));
                wrap(comp, Box::new(cur)).map_err(|e| Error::io(&self.display, e))
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
                wrap(comp, Box::new(Sized { f, left: len })).map_err(|e| Error::io(&self.display, e))
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

    /// Whether the bytes are gzip, zstd, bzip2 or xz compressed (false when unreadable).
    pub fn is_compressed(&self) -> bool {
        match &self.origin {
            Origin::Memory(bytes) => self.compression(bytes) != Compression::None,
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
            Origin::File(p) => {
                use std::io::{BufRead, Seek, SeekFrom};
                let f = self.open_plain(p)?;
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
            Origin::File(p) => {
                use std::io::{Seek, SeekFrom};
                let mut f = self.open_plain(p)?;
                f.seek(SeekFrom::Start(offset)).ok()?;
                let mut v = vec![0u8; len];
                f.read_exact(&mut v).ok()?;
                Some(v)
            }
        }
    }

    /// The file's [`Stamp`] now (`None` for standard input, or when it cannot
    /// be read).
    pub fn stamp(&self) -> Option<Stamp> {
        match &self.origin {
            Origin::File(p) => std::fs::metadata(p).ok().map(|m| Stamp::of(&m)),
            Origin::Memory(_) => None,
        }
    }

    /// The file `p` opened for reading at arbitrary offsets: `None` when it
    /// is compressed (no seeking in a decompressed stream) or cannot be opened.
    fn open_plain(&self, p: &Path) -> Option<File> {
        let f = open_regular(p).ok()?;
        let mut head = [0u8; HEAD];
        let n = read_head(&f, &mut head).ok()?;
        (self.compression(&head[..n]) == Compression::None).then_some(f)
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
            Origin::File(p) => RangeInner::File(self.open_plain(p)?),
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
        let mut r = self.open()?;
        let mut buf = Vec::new();
        (&mut r).take(MAX_DOCUMENT + 1).read_to_end(&mut buf).map_err(|e| Error::io(&self.display, e))?;
        if buf.len() as u64 > MAX_DOCUMENT {
            return Err(Error::BadInput {
                path: self.display.clone().into(),
                format: "JSON".into(),
                reason: format!("document larger than {MAX_DOCUMENT} bytes"),
            });
        }
        Ok(buf)
    }

    /// Size in bytes on disk, when it is a file.
    pub fn size(&self) -> Option<u64> {
        match &self.origin {
            Origin::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Origin::Memory(b) => Some(b.len() as u64),
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

fn wrap(c: Compression, r: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    Ok(match c {
        Compression::None => r,
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(r))),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(r)?),
        // Multi-stream, like `bzcat` and `xzcat`: concatenated streams are one input.
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(r))),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(BufReader::new(r))),
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
    File(File),
    Memory(Arc<[u8]>),
}

impl RangeReader {
    /// Exactly `len` bytes at byte `offset`; `None` when they cannot be read
    /// (the file became shorter, an I/O error).
    pub fn read(&mut self, offset: u64, len: usize) -> Option<&[u8]> {
        let end = offset.checked_add(len as u64)?;
        match &mut self.inner {
            RangeInner::Memory(b) => b.get(usize::try_from(offset).ok()?..usize::try_from(end).ok()?),
            RangeInner::File(f) => {
                let inside = offset >= self.start && end <= self.start + self.window.len() as u64;
                if !inside {
                    use std::io::{Seek, SeekFrom};
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
    File::open(p)
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
            SourceRef { display: "m".into(), origin: Origin::Memory(data.clone().into()), seen: None },
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
    }
}
