//! The JSONL driver shared by every line-oriented format: splits the input into
//! lines ([`crate::source::LineReader`]), screens each line for what makes it
//! not exactly one JSON value (NUL bytes, invalid UTF-8, over-long lines), and
//! hands the rest to the format's line parser. A line the parser rejects as
//! JSON becomes a [`BadLine`]; reading always goes on with the next line.

use crate::error::{Error, Result};
use crate::model::BadLine;
use crate::source::{Line, SourceRef};

/// What a format's line parser says about one line.
pub enum LineVerdict {
    /// Parsed and used.
    Ok,
    /// Not exactly one JSON value: the reason (becomes `malformed-line`).
    Malformed(String),
}

/// Reads every line of `src`, calling `f` for each non-blank, screened line.
/// Returns the bad lines and the number of lines read.
pub fn read_lines(src: &SourceRef, mut f: impl FnMut(&Line<'_>) -> LineVerdict) -> Result<(Vec<BadLine>, u32)> {
    let mut lines = src.lines()?;
    let mut bad = Vec::new();
    let mut count = 0;
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => return Err(Error::io(&src.display, e)),
        };
        count = line.no;
        let verdict = screen(&line).unwrap_or_else(|| f(&line));
        if let LineVerdict::Malformed(reason) = verdict {
            bad.push(bad_line(&line, reason));
        }
    }
    Ok((bad, count))
}

/// Lines gathered before a batch is parsed in parallel: about 4 MiB of text.
const BATCH_BYTES: usize = 4 << 20;

/// Like [`read_lines`], but parses in parallel: lines are gathered in
/// batches of about 4 MiB, `parse` runs on each screened line of a batch on
/// the rayon pool (it must be a pure function of the line), then `consume`
/// takes the results one by one in line order, on the calling thread. Memory
/// is bounded by one batch and its results. After the first batch, `reserve`
/// is called once with an estimate of the number of lines in the input (from
/// its size and the first batch's average line length), so that the caller's
/// tables can be sized once instead of growing by doubling (each doubling of a
/// large table briefly holds both copies).
pub fn read_lines_par<T: Send>(
    src: &SourceRef,
    parse: impl Fn(&Line<'_>) -> T + Sync,
    mut reserve: impl FnMut(usize),
    mut consume: impl FnMut(&Line<'_>, T) -> LineVerdict,
) -> Result<(Vec<BadLine>, u32)> {
    use rayon::prelude::*;
    struct Meta {
        no: u32,
        offset: u64,
        start: usize,
        end: usize,
        terminated: bool,
        too_long: bool,
        len: u64,
    }
    fn view<'b>(m: &Meta, bytes: &'b [u8]) -> Line<'b> {
        Line {
            no: m.no,
            offset: m.offset,
            bytes: &bytes[m.start..m.end],
            terminated: m.terminated,
            too_long: m.too_long,
            len: m.len,
        }
    }
    let mut lines = src.lines()?;
    let mut bad = Vec::new();
    let mut count = 0;
    let mut bytes: Vec<u8> = Vec::new();
    let mut metas: Vec<Meta> = Vec::new();
    let mut eof = false;
    let mut first = true;
    while !eof {
        bytes.clear();
        metas.clear();
        while bytes.len() < BATCH_BYTES {
            match lines.next_line() {
                Ok(Some(l)) => {
                    count = l.no;
                    let start = bytes.len();
                    bytes.extend_from_slice(l.bytes);
                    metas.push(Meta {
                        no: l.no,
                        offset: l.offset,
                        start,
                        end: bytes.len(),
                        terminated: l.terminated,
                        too_long: l.too_long,
                        len: l.len,
                    });
                }
                Ok(None) => {
                    eof = true;
                    break;
                }
                Err(e) => return Err(Error::io(&src.display, e)),
            }
        }
        if first {
            first = false;
            let avg = (bytes.len() + metas.len()) / metas.len().max(1);
            let size = src.size().unwrap_or(0) as usize;
            reserve(if eof { metas.len() } else { size / avg.max(1) + size / avg.max(1) / 16 + 16 });
        }
        let results: Vec<std::result::Result<T, LineVerdict>> = metas
            .par_iter()
            .with_min_len(64)
            .map(|m| {
                let line = view(m, &bytes);
                match screen(&line) {
                    Some(v) => Err(v),
                    None => Ok(parse(&line)),
                }
            })
            .collect();
        for (m, r) in metas.iter().zip(results) {
            let line = view(m, &bytes);
            let verdict = match r {
                Err(v) => v,
                Ok(t) => consume(&line, t),
            };
            if let LineVerdict::Malformed(reason) = verdict {
                bad.push(bad_line(&line, reason));
            }
        }
    }
    Ok((bad, count))
}

/// Builds a [`BadLine`] for `line`.
pub fn bad_line(line: &Line<'_>, reason: String) -> BadLine {
    let head = crate::text::prefix(&String::from_utf8_lossy(&line.bytes[..line.bytes.len().min(400)]), 200).to_string();
    BadLine { line: line.no, offset: line.offset, reason, head }
}

/// Checks that do not need a parser. `Some(Ok)` skips blank lines.
fn screen(line: &Line<'_>) -> Option<LineVerdict> {
    if line.too_long {
        return Some(LineVerdict::Malformed(format!(
            "line is {} bytes, longer than the {} byte limit; not parsed",
            line.len,
            crate::source::MAX_LINE
        )));
    }
    let b = line.bytes;
    if b.iter().all(|c| c.is_ascii_whitespace()) {
        return Some(LineVerdict::Ok);
    }
    if let Some(i) = memchr::memchr(0, b) {
        return Some(LineVerdict::Malformed(format!("NUL byte at column {}", i + 1)));
    }
    // UTF-8 is validated by the JSON parser (inside strings) and by the syntax
    // itself (outside them); `describe_line_error` names it when it fails.
    None
}

/// Why a line that a loader's typed parse rejected with `e` is malformed, or
/// `None` when it is valid JSON of an unexpected shape (kept as an unknown
/// record). A shape error can come before a syntax error further on the line
/// (a torn `{"message":[1,` fails on the array's shape before its end), so a
/// non-syntax error is confirmed by checking the whole line with `IgnoredAny`
/// (iterative in serde_json: no depth limit, no allocation per value). Issue 7:
/// torn lines were counted as unknown records instead of `malformed-line`.
pub fn malformed_reason(bytes: &[u8], e: &serde_json::Error) -> Option<String> {
    if is_syntax_error(e) || std::str::from_utf8(bytes).is_err() {
        return Some(describe_line_error(bytes, e));
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        Ok(_) => None,
        Err(e) => Some(describe_line_error(bytes, &e)),
    }
}

/// Describes why a line failed to parse, naming invalid UTF-8 when that is the cause.
pub fn describe_line_error(bytes: &[u8], e: &serde_json::Error) -> String {
    match std::str::from_utf8(bytes) {
        Err(u) => format!("invalid UTF-8 at byte {} of the line", u.valid_up_to() + 1),
        Ok(_) => describe_json_error(e),
    }
}

/// Describes a serde_json error on a line for a human ("EOF while parsing a
/// string at column 212", "trailing characters at column 1024: two JSON values on one line").
pub fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
    let col = e.column();
    if msg.starts_with("trailing characters") {
        format!("{msg} at column {col}: more than one JSON value on one line")
    } else if e.is_eof() {
        format!("{msg} at column {col}: the line ends inside a JSON value (torn write?)")
    } else {
        format!("{msg} at column {col}")
    }
}

/// Whether a serde_json error means the bytes are not JSON at all (syntax, EOF),
/// as opposed to valid JSON of an unexpected shape.
pub fn is_syntax_error(e: &serde_json::Error) -> bool {
    matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof)
}
