//! Standard input, read as a stream ([`spool`]): kept in memory up to
//! [`STDIN_IN_MEMORY`] bytes, else copied to an anonymous temporary file
//! ([`Spool`]) up to [`MAX_STDIN`] bytes and read at offsets like a file.

use super::compress::HEAD;
use super::{MAX_DOCUMENT, Origin, SourceRef};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

/// Most bytes read from standard input (4 GiB, as given: before
/// decompression); one more is an error for that input that says to save it
/// to a file, which is read where it lies with no such limit. It bounds what
/// `check - < /dev/zero` writes to the temporary folder, and is far above what
/// standard input must hold: 8 times [`MAX_DOCUMENT`] (any request body a file
/// could hold), 16 times [`MAX_LINE`](super::MAX_LINE), and about 140 times the benchmark's
/// 30 MB, 3,500-turn session.
pub const MAX_STDIN: u64 = 4 << 30;
/// Standard input of at most this many bytes (1 MiB, the size of
/// [`LineReader`](super::LineReader)'s buffer) is kept in memory; a longer one is copied to a
/// temporary file ([`spool`]).
pub const STDIN_IN_MEMORY: usize = 1 << 20;
/// Bytes copied from standard input to its temporary file at a time.
pub const SPOOL_CHUNK: usize = 64 << 10;

/// Standard input copied to an anonymous temporary file ([`spool`]): a file
/// with no name (unlinked when made, so the system frees it when ctxlint
/// exits, however it exits), in the system's temporary folder, never written
/// after it is made. It is read at offsets (`pread`), so any number of readers
/// share it, each at its own position; it cannot change, so it needs no [`Stamp`](super::Stamp).
#[derive(Debug, Clone)]
pub struct Spool {
    file: Arc<File>,
    /// Bytes in the file.
    pub(super) len: u64,
}

impl Spool {
    /// A reader over the whole file, from its start.
    pub(super) fn reader(&self) -> SpoolReader {
        SpoolReader { spool: self.clone(), pos: 0 }
    }

    /// The first bytes, to recognise a compression format.
    pub(super) fn head(&self) -> io::Result<([u8; HEAD], usize)> {
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
pub(super) struct SpoolReader {
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
///   ([`MAX_LINE`](super::MAX_LINE), [`MAX_DOCUMENT`]) as a file holding the same bytes;
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::tests::{all_lines, is_spooled, jsonl_bytes, small};
    use std::path::Path;

    fn no_temp() -> io::Result<File> {
        Err(io::Error::new(io::ErrorKind::PermissionDenied, "read-only"))
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
