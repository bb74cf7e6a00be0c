//! Lines gathered into records: one JSON value per line, or a
//! pretty-printed value over several lines (as the SDKs' console and file
//! exporters write them), up to [`MAX_RECORD`] bytes.

use crate::model::*;

/// The largest record (bytes) gathered over several lines; a longer one is malformed.
pub(super) const MAX_RECORD: usize = 256 << 20;

/// Gathers lines into records: a line that is a whole JSON value is one; a
/// value that goes on over several lines (pretty-printed) is gathered until
/// its brackets close (strings and escapes followed).
#[derive(Default)]
pub(super) struct Acc {
    pub(super) buf: Vec<u8>,
    pub(super) start: Option<u32>,
    /// Byte offset of the start line.
    offset: u64,
    depth: usize,
    in_str: bool,
    esc: bool,
}

pub(super) enum Gathered {
    /// The line is inside a record that is not complete yet.
    More,
    /// A record (start line, bytes).
    Record(u32, Vec<u8>),
    /// A record grew past [`MAX_RECORD`]; it is dropped.
    TooLong(u32),
}

impl Acc {
    fn scan(&mut self, bytes: &[u8]) {
        for &c in bytes {
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if c == b'\\' {
                    self.esc = true;
                } else if c == b'"' {
                    self.in_str = false;
                }
                continue;
            }
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    pub(super) fn reset(&mut self) {
        self.buf.clear();
        self.start = None;
        self.depth = 0;
        self.in_str = false;
        self.esc = false;
    }

    /// The gathered record as a bad line (`reason` says why it is one).
    pub(super) fn torn(&self, reason: &str) -> BadLine {
        BadLine {
            line: self.start.unwrap_or(1),
            offset: self.offset,
            reason: reason.into(),
            head: crate::text::prefix(&String::from_utf8_lossy(&self.buf), 80).to_string(),
        }
    }

    pub(super) fn push(&mut self, no: u32, offset: u64, bytes: &[u8]) -> Gathered {
        if self.start.is_none() {
            // A line that is no whole value (the caller parses whole ones first).
            let t = bytes.trim_ascii();
            if !matches!(t.first(), Some(b'{' | b'[')) {
                return Gathered::Record(no, t.to_vec());
            }
            self.scan(t);
            if self.depth == 0 {
                // Closed on this line yet not JSON: malformed as it is.
                let out = t.to_vec();
                self.reset();
                return Gathered::Record(no, out);
            }
            self.start = Some(no);
            self.offset = offset;
            self.buf.extend_from_slice(t);
            return Gathered::More;
        }
        let start = self.start.unwrap_or(no);
        self.buf.push(b'\n');
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > MAX_RECORD {
            self.reset();
            return Gathered::TooLong(start);
        }
        self.scan(bytes);
        if self.depth == 0 && !self.in_str {
            let out = std::mem::take(&mut self.buf);
            self.reset();
            return Gathered::Record(start, out);
        }
        Gathered::More
    }
}
