//! JSONL split line by line with `memchr` ([`LineReader`]) without holding
//! the input in memory, and the line and column of a byte offset in a
//! document held in memory ([`LineIndex`]).

use super::MAX_LINE;
use std::io::{self, BufRead, BufReader, Read};

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
    /// The input's length when known ([`LineReader::with_len`]): a line
    /// longer than the read buffer grows its copy by doubling only up to
    /// the bytes left (a 104 MB one-line document took a 128 MB copy).
    len: Option<u64>,
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
            len: None,
        }
    }

    /// The reader, told the input is `len` bytes long (a hint for the room
    /// a long line takes; a longer input — a compressed file's size is not
    /// its text's — is still read whole, its long lines' room doubling).
    pub fn with_len(mut self, len: Option<u64>) -> Self {
        self.len = len;
        self
    }

    /// Appends `more` to the long line being gathered in `buf`, growing its
    /// room by doubling but not past the bytes the input (`len` long) has
    /// left after `line_start`, where the line began.
    fn gather_into(buf: &mut Vec<u8>, len: Option<u64>, more: &[u8], line_start: u64) {
        let need = buf.len() + more.len();
        if need > buf.capacity() {
            let left = len.map(|n| n.saturating_sub(line_start)).and_then(|n| usize::try_from(n).ok());
            let doubled = (buf.capacity() * 2).max(need);
            // (A hint already passed — a compressed input, a file grown
            // since — is no bound: doubling goes on.)
            let room = match left {
                Some(l) if l >= need => doubled.min(l),
                _ => doubled,
            };
            buf.reserve_exact(room - buf.len());
        }
        buf.extend_from_slice(more);
    }

    /// Bytes read so far: the offset of the next line (at the end, the
    /// input's length).
    pub fn offset(&self) -> u64 {
        self.offset
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
                            Self::gather_into(&mut self.buf, self.len, &avail[..i], self.offset);
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
                            Self::gather_into(&mut self.buf, self.len, avail, self.offset);
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

    /// Lines longer than the read buffer read the same whatever the
    /// length hint says: right, too small (a compressed input, a file grown
    /// since), too large or absent; with a right hint the long line's room
    /// is its length, not the next power of two.
    #[test]
    fn long_lines_read_the_same_with_any_length_hint() {
        let mut input = Vec::new();
        for n in [10, 70_000, 3, 200_000, 0, 5] {
            input.extend(std::iter::repeat_n(b'a', n));
            input.push(b'\n');
        }
        input.extend(std::iter::repeat_n(b'b', 150_000));
        let read = |hint: Option<u64>| {
            let mut r = LineReader::with_capacity(8 << 10, &input[..]).with_len(hint);
            let mut out = vec![];
            while let Some(l) = r.next_line().unwrap() {
                out.push((l.no, l.offset, l.bytes.to_vec(), l.terminated, l.len));
            }
            (out, r.offset())
        };
        let want = read(None);
        assert_eq!(want.0.len(), 7);
        assert_eq!(want.1, input.len() as u64);
        for hint in [Some(input.len() as u64), Some(1000), Some(0), Some(u64::MAX)] {
            assert_eq!(read(hint), want, "{hint:?}");
        }
        let one = vec![b'c'; 150_000];
        let mut r = LineReader::with_capacity(8 << 10, &one[..]).with_len(Some(one.len() as u64));
        assert_eq!(r.next_line().unwrap().map(|l| l.len), Some(150_000));
        assert_eq!(r.buf.capacity(), 150_000);
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
}
