//! The JSONL driver shared by every line-oriented format: splits the input into
//! lines ([`crate::source::LineReader`]), screens each line for what makes it
//! not exactly one JSON value (NUL bytes, invalid UTF-8, over-long lines), and
//! hands the rest to the format's line parser. A line the parser rejects as
//! JSON becomes a [`BadLine`]; reading always goes on with the next line.

use crate::error::{Error, Result};
use crate::model::{BadLine, BadLines};
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
pub fn read_lines(src: &SourceRef, mut f: impl FnMut(&Line<'_>) -> LineVerdict) -> Result<(BadLines, u32)> {
    let mut lines = src.lines()?;
    let mut bad = BadLines::default();
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
            bad.push_with(|| bad_line(&line, reason));
        }
    }
    Ok((bad, count))
}

/// Lines gathered before a batch is parsed in parallel: about 1 MiB of text
/// (larger batches gained no speed and held more memory).
const BATCH_BYTES: usize = 1 << 20;

/// The largest line count handed to `consume` as an estimate (callers size tables by it).
const MAX_ESTIMATE: usize = 1 << 22;

/// At most this many lines in one batch.
const BATCH_LINES: usize = 64 << 10;

/// Below this many bytes a batch is parsed on the calling thread.
const SMALL_BATCH: usize = 256 << 10;

/// Where one line of a [`Batch`] lies.
struct Meta {
    no: u32,
    offset: u64,
    start: usize,
    end: usize,
    terminated: bool,
    too_long: bool,
    len: u64,
}

/// About [`BATCH_BYTES`] of consecutive lines, copied out of the reader.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    metas: Vec<Meta>,
}

impl Batch {
    fn line(&self, m: &Meta) -> Line<'_> {
        Line {
            no: m.no,
            offset: m.offset,
            bytes: &self.bytes[m.start..m.end],
            terminated: m.terminated,
            too_long: m.too_long,
            len: m.len,
        }
    }

    /// Refills the batch from `lines`; returns whether the input is at its end.
    fn fill<R: std::io::Read>(&mut self, lines: &mut crate::source::LineReader<R>) -> std::io::Result<bool> {
        self.bytes.clear();
        self.metas.clear();
        // Bounded by bytes and by lines (a run of blank lines adds no bytes).
        while self.bytes.len() < BATCH_BYTES && self.metas.len() < BATCH_LINES {
            let Some(l) = lines.next_line()? else { return Ok(true) };
            let start = self.bytes.len();
            self.bytes.extend_from_slice(l.bytes);
            self.metas.push(Meta {
                no: l.no,
                offset: l.offset,
                start,
                end: self.bytes.len(),
                terminated: l.terminated,
                too_long: l.too_long,
                len: l.len,
            });
        }
        Ok(false)
    }

    /// Screens and parses every line on the rayon pool, into `out` (reused).
    fn parse<T: Send>(
        &self,
        parse: &(impl Fn(&Line<'_>) -> T + Sync),
        out: &mut Vec<std::result::Result<T, LineVerdict>>,
    ) {
        use rayon::prelude::*;
        let one = |m: &Meta| {
            let line = self.line(m);
            match screen(&line) {
                Some(v) => Err(v),
                None => Ok(parse(&line)),
            }
        };
        // A small batch (a small file) is not worth splitting: when many
        // files are checked, the files themselves keep every thread busy.
        if self.bytes.len() < SMALL_BATCH {
            out.clear();
            out.extend(self.metas.iter().map(one));
        } else {
            self.metas.par_iter().with_min_len(64).map(one).collect_into_vec(out);
        }
    }
}

/// Like [`read_lines`], but parses in parallel. Lines are gathered in batches
/// of about 1 MiB; `parse` runs on each screened line of a batch on the rayon
/// pool (it must be a pure function of the line), and `consume` takes the
/// results one by one in line order while the next batch is read and parsed.
/// `consume` also gets an estimate of the input's number of lines (from its
/// size and the first batch's average line length; 0 when unknown) so that
/// its tables can be sized once instead of growing by doubling. Memory is
/// bounded by two batches and their results.
pub fn read_lines_par<T: Send>(
    src: &SourceRef,
    parse: impl Fn(&Line<'_>) -> T + Sync,
    mut consume: impl FnMut(&Line<'_>, T, usize) -> LineVerdict + Send,
) -> Result<(BadLines, u32)> {
    let mut lines = src.lines()?;
    let io = |e| Error::io(&src.display, e);
    let (mut cur, mut next) = (Batch::default(), Batch::default());
    let (mut cur_out, mut next_out) = (Vec::new(), Vec::new());
    let mut eof = cur.fill(&mut lines).map_err(io)?;
    cur.parse(&parse, &mut cur_out);
    let estimate = if eof {
        cur.metas.len()
    } else {
        // Blank lines and tiny records must not inflate it: a record line is
        // at least 32 bytes for this purpose, and the estimate is capped.
        let avg = ((cur.bytes.len() + cur.metas.len()) / cur.metas.len().max(1)).max(32);
        let size = src.size().unwrap_or(0) as usize;
        (size / avg + size / avg / 16 + 16).min(MAX_ESTIMATE)
    };
    let (mut bad, mut count) = (BadLines::default(), 0);
    let mut consume_batch = |b: &Batch, results: &mut Vec<std::result::Result<T, LineVerdict>>| {
        for (m, r) in b.metas.iter().zip(results.drain(..)) {
            let line = b.line(m);
            count = line.no;
            let verdict = match r {
                Err(v) => v,
                Ok(t) => consume(&line, t, estimate),
            };
            if let LineVerdict::Malformed(reason) = verdict {
                bad.push_with(|| bad_line(&line, reason));
            }
        }
    };
    if eof {
        // The whole input was one batch: nothing to overlap.
        consume_batch(&cur, &mut cur_out);
        return Ok((bad, count));
    }
    loop {
        let (read, ()) = rayon::join(
            || -> std::io::Result<bool> {
                if eof {
                    next.metas.clear();
                    return Ok(true);
                }
                let at_end = next.fill(&mut lines)?;
                next.parse(&parse, &mut next_out);
                Ok(at_end)
            },
            || consume_batch(&cur, &mut cur_out),
        );
        let was_eof = eof;
        eof = read.map_err(io)?;
        if was_eof {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
        std::mem::swap(&mut cur_out, &mut next_out);
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

/// Why a line is not a record of the expected shape.
pub enum Rejected {
    /// Not exactly one JSON value (becomes `malformed-line`): the reason.
    Malformed(String),
    /// Valid JSON of an unexpected shape: kept as an unknown record.
    Unknown,
    /// Valid JSON in which an object writes a key twice: the line as
    /// JSON.parse (and so the runtime) reads it, each key once with its last
    /// value, to be parsed instead.
    DuplicateKey(String),
}

/// Parses one line as `T`: one UTF-8 check of the whole line, then a parse
/// that need not check each string again (the parallel loaders' `parse_line`).
pub fn parse_record<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> std::result::Result<T, Rejected> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Rejected::Malformed(invalid_utf8(bytes)));
    };
    serde_json::from_str(text).map_err(|e| match malformed_reason(bytes, &e) {
        Some(reason) => Rejected::Malformed(reason),
        None if e.to_string().starts_with("duplicate field") => {
            last_key_wins(text).map_or(Rejected::Unknown, Rejected::DuplicateKey)
        }
        None => Rejected::Unknown,
    })
}

/// `text` (one JSON value) written again with each object's keys once, a
/// key written twice keeping its last value, as JSON.parse and serde_json's
/// `Value` read it; `None` when it does not parse.
pub fn last_key_wins(text: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(text).ok().map(|v| v.to_string())
}

/// The reason given for a line that is not valid UTF-8 (the same words as [`describe_line_error`]).
pub fn invalid_utf8(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Err(u) => format!("invalid UTF-8 at byte {} of the line", u.valid_up_to() + 1),
        Ok(_) => "invalid UTF-8".into(),
    }
}

/// Describes why a line failed to parse, naming invalid UTF-8 when that is the cause.
pub fn describe_line_error(bytes: &[u8], e: &serde_json::Error) -> String {
    match std::str::from_utf8(bytes) {
        Err(_) => invalid_utf8(bytes),
        Ok(_) => match lone_surrogate(bytes).filter(|_| is_syntax_error(e)) {
            // serde_json names it "unexpected end of hex escape" or "lone
            // leading surrogate in hex escape": say what the escape is.
            Some((at, esc)) => format!(
                "{}: `{esc}` at column {at} is a lone UTF-16 surrogate (half of a character cut in two), which JavaScript's JSON.parse reads but strict JSON parsers and providers' APIs reject",
                describe_json_error(e)
            ),
            None => describe_json_error(e),
        },
    }
}

/// `text` (JSON) with every lone UTF-16 surrogate escape ([`lone_surrogate`])
/// written as `\ufffd`, the replacement character: the one unreadable
/// character JavaScript's JSON.parse holds there, in a text Rust can hold
/// (the same length, so offsets and columns hold). `None` when it has none.
pub fn replace_lone_surrogates(text: &str) -> Option<String> {
    let mut out = text.as_bytes().to_vec();
    let mut from = 0;
    let mut any = false;
    while let Some((col, _)) = lone_surrogate(&out[from..]) {
        let at = from + col - 1;
        out[at..at + 6].copy_from_slice(br"\ufffd");
        from = at + 6;
        any = true;
    }
    // (Only ASCII bytes were written over ASCII bytes.)
    any.then(|| String::from_utf8(out).ok()).flatten()
}

/// The first `\uXXXX` escape of a UTF-16 surrogate that is not half of a
/// pair (a high surrogate not followed by a low one's escape, or a low one
/// alone): its 1-based column (byte) and its text. JSON's grammar allows it;
/// RFC 8259 §8.2 leaves its meaning to the parser, and serde_json refuses it.
pub fn lone_surrogate(bytes: &[u8]) -> Option<(usize, &str)> {
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at + 2..at + 6)?;
        (bytes.get(at + 1) == Some(&b'u')).then_some(())?;
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + k;
        match unit(at) {
            Some(0xD800..=0xDBFF) if matches!(unit(at + 6), Some(0xDC00..=0xDFFF)) => i = at + 12,
            Some(0xD800..=0xDFFF) => return Some((at + 1, std::str::from_utf8(&bytes[at..at + 6]).ok()?)),
            Some(_) => i = at + 6,
            // Any other escape is two bytes (`\\` included).
            None => i = at + 2,
        }
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    /// A lone surrogate escape is found and named; pairs, other escapes and
    /// an escaped backslash before `u` are not one.
    #[test]
    fn lone_surrogates_are_found_and_named() {
        assert_eq!(lone_surrogate(br#"{"t":"a \ud83d b"}"#), Some((9, r"\ud83d")));
        assert_eq!(lone_surrogate(br#"{"t":"\udc00"}"#), Some((7, r"\udc00")));
        assert_eq!(lone_surrogate(br#"{"t":"\ud83d\ude00 \u00e9 \n \\ud83d"}"#), None);
        assert_eq!(lone_surrogate(br#"{"t":"\ud83d\ude00\ud83d"}"#), Some((19, r"\ud83d")));
        assert_eq!(lone_surrogate(br#"{"t":"\ud83d\u0041"}"#), Some((7, r"\ud83d")));
        assert_eq!(lone_surrogate(br#"{"t":"\ud8"}"#), None);
        assert_eq!(
            replace_lone_surrogates(r#"{"t":"\ud83d\ude00 \ud83d \\ud83d \udc00"}"#).as_deref(),
            Some(r#"{"t":"\ud83d\ude00 \ufffd \\ud83d \ufffd"}"#)
        );
        assert_eq!(replace_lone_surrogates(r#"{"t":"\ud83d\ude00"}"#), None);
        let line = br#"{"type":"message","text":"hi \ud83d there"}"#;
        let e = serde_json::from_slice::<serde_json::Value>(line).unwrap_err();
        let why = describe_line_error(line, &e);
        assert!(why.contains(r"`\ud83d` at column 30 is a lone UTF-16 surrogate"), "{why}");
    }

    /// The parallel reader sees exactly the lines, offsets and verdicts of the
    /// sequential one, across many batches (blank, CRLF, NUL, torn and long lines).
    #[test]
    fn parallel_batches_match_the_sequential_reader() {
        let mut text = Vec::new();
        for i in 0..200_000u32 {
            match i % 7 {
                0 => text.extend_from_slice(b"\n"),
                1 => text.extend_from_slice(format!("{{\"i\":{i}}}\r\n").as_bytes()),
                2 => text.extend_from_slice(
                    format!("{{\"i\":{i},\"pad\":\"{}\"}}\n", "x".repeat(i as usize % 600)).as_bytes(),
                ),
                3 => text.extend_from_slice(b"{\"torn\":\n"),
                4 => text.extend_from_slice(b"{\"n\":\"a\0b\"}\n"),
                _ => text.extend_from_slice(format!("[{i}]\n").as_bytes()),
            }
        }
        text.extend_from_slice(b"{\"last\":true}"); // no final newline
        let src =
            SourceRef { display: "t.jsonl".into(), origin: Origin::Memory(text.into()), seen: None, session: None };
        let parse = |l: &Line<'_>| {
            (l.no, l.offset, l.bytes.to_vec(), serde_json::from_slice::<serde_json::Value>(l.bytes).is_ok())
        };
        let mut seq = Vec::new();
        let (bad_a, n_a) = read_lines(&src, |l| {
            let p = parse(l);
            let ok = p.3;
            seq.push(p);
            if ok { LineVerdict::Ok } else { LineVerdict::Malformed("bad".into()) }
        })
        .unwrap();
        let mut par = Vec::new();
        let (bad_b, n_b) = read_lines_par(&src, parse, |_, p, _| {
            let ok = p.3;
            par.push(p);
            if ok { LineVerdict::Ok } else { LineVerdict::Malformed("bad".into()) }
        })
        .unwrap();
        assert_eq!(n_a, n_b);
        assert_eq!(seq, par);
        let lines = |b: &[BadLine]| b.iter().map(|x| (x.line, x.offset, x.reason.clone())).collect::<Vec<_>>();
        assert_eq!(lines(&bad_a.kept), lines(&bad_b.kept));
        assert_eq!(bad_a.more, bad_b.more);
        // Past the first MAX_LISTED, bad lines are counted, not kept.
        assert_eq!(bad_a.kept.len(), crate::rules::MAX_LISTED);
        assert!(bad_a.more > 0, "{}", bad_a.more);
    }
}
