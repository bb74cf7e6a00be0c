//! Byte ranges of an uncompressed input read again at offsets (a line named
//! by a finding, the lines `show` prints): [`RangeReader`] and the file it
//! reads through.

use super::stdin::SpoolReader;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;

/// An uncompressed input opened for reading at offsets: a file on disk or a [`Spool`](super::Spool).
#[derive(Debug)]
pub(super) enum Plain {
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

/// Bytes of the window a [`RangeReader`] reads at once.
pub const RANGE_WINDOW: usize = 256 << 10;

/// Byte ranges of one uncompressed input, read again in any order through
/// one open file and a window of [`RANGE_WINDOW`] bytes: ranges asked for
/// in ascending order (the lines of a session, walked in write order) cost
/// one read per window, not an open, a stat and a seek per line. A range
/// longer than the window is read on its own. Made by
/// [`SourceRef::range_reader`](super::SourceRef::range_reader).
#[derive(Debug)]
pub struct RangeReader {
    pub(super) inner: RangeInner,
    pub(super) window: Vec<u8>,
    /// File offset of `window[0]`.
    pub(super) start: u64,
}

#[derive(Debug)]
pub(super) enum RangeInner {
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::tests::small;
    use crate::source::{Origin, SourceRef, spool};

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
}
