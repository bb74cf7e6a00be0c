//! What OLD is known to contain: the ids and sessions of its first and last
//! bytes, and of the lines where the id search ([`PrefixScan`], fed the bytes
//! OLD and NEW share during the streaming pass) finds an id the append
//! mentions, confirmed by parsing those lines.

use super::format::Format;
use super::{HEAD_BYTES, read_at, to_line};
use crate::formats::record::Record;
use crate::source::{LineReader, MAX_LINE};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes read from the end of OLD to learn its session ids and whether it has entries.
const TAIL_BYTES: usize = 1 << 20;

/// What OLD is known to contain, for judging appended entries.
#[derive(Debug, Default)]
pub(super) struct Known {
    /// Tree ids (pi `id`, Claude Code `uuid`) found in OLD, with their line.
    pub(super) ids: HashMap<String, u32>,
    /// Session ids found in OLD.
    pub(super) sessions: HashSet<String>,
}

impl Known {
    fn add(&mut self, rec: &Record<'_>, line: u32) {
        if rec.tree && !rec.header {
            if let Some(id) = rec.id.as_deref() {
                self.ids.entry(id.to_string()).or_insert(line);
            }
        }
        if let Some(s) = rec.session.as_deref() {
            self.sessions.insert(s.to_string());
        }
    }
}

/// Facts read from OLD's first and last bytes.
#[derive(Debug, Default)]
pub(super) struct OldWindows {
    /// OLD has at least one tree entry (pi v2+: an entry after the header;
    /// Claude Code: a record with `uuid`).
    pub(super) has_root: bool,
    /// The first session id seen (Codex: OLD's first `session_meta` payload `id`).
    pub(super) first_session: Option<String>,
    /// Session ids seen.
    pub(super) sessions: HashSet<String>,
}

impl OldWindows {
    pub(super) fn read(f: &mut File, base: u64, fmt: &Format) -> io::Result<OldWindows> {
        let mut w = OldWindows::default();
        if base == 0 || fmt.schema.is_none() {
            return Ok(w);
        }
        let head = read_at(f, 0, HEAD_BYTES.min(usize::try_from(base).unwrap_or(HEAD_BYTES)))?;
        let tail_start = base.saturating_sub(TAIL_BYTES as u64);
        let tail = read_at(f, tail_start, usize::try_from(base - tail_start).unwrap_or(TAIL_BYTES))?;
        let mut visit = |bytes: &[u8], from_start: bool| {
            let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            if !from_start && !lines.is_empty() {
                lines.remove(0); // partial first line
            }
            for line in lines {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let Ok(rec) = fmt.classify(line) else { continue };
                if rec.tree && !rec.header {
                    w.has_root = true;
                }
                if let Some(s) = rec.session {
                    if w.first_session.is_none() {
                        w.first_session = Some(s.to_string());
                    }
                    w.sessions.insert(s.into_owned());
                }
            }
        };
        visit(&head, true);
        visit(&tail, tail_start == 0);
        Ok(w)
    }
}

/// Ids that JSON writers put between quotes verbatim (printable ASCII, no `"` or `\`).
pub(super) fn is_plain(quoted: &[u8]) -> bool {
    let inner = &quoted[1..quoted.len() - 1];
    !inner.is_empty() && inner.iter().all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

/// How the quoted ids are searched for.
enum Searcher {
    /// Nothing to look for.
    None,
    /// A few needles: one SIMD substring search each (memchr's `memmem`
    /// picks the needle's rarest bytes, so sequential hex ids stay fast).
    Finders(Vec<memchr::memmem::Finder<'static>>),
    /// Many needles (a long append): every value of an id key (`"id"`,
    /// `"uuid"`, `"sessionId"`) is looked up in a set instead.
    Keys {
        /// Finders for the quoted keys.
        keys: Vec<memchr::memmem::Finder<'static>>,
        /// The needles without their quotes.
        values: HashSet<Vec<u8>>,
        /// Longest value.
        longest: usize,
    },
}

/// Above this many needles, looking up every id value beats one search per needle.
const MAX_FINDERS: usize = 16;
/// The keys whose values the [`Searcher::Keys`] search looks up when the
/// format has no record schema (else its [`RecordSchema::id_keys`](crate::formats::record::RecordSchema::id_keys)).
pub(super) const DEFAULT_ID_KEYS: &[&str] = &["id", "uuid", "sessionId"];
/// Whitespace allowed around the `:` after a key by the [`Searcher::Keys`] search
/// (more is not found across a block boundary).
const KEY_SLACK: usize = 32;

/// With the `Keys` search: the end of the value that follows the key at
/// `hay[at..]`, when it is one of `values`.
fn key_value_end(hay: &[u8], at: usize, values: &HashSet<Vec<u8>>, longest: usize) -> Option<usize> {
    let ws = |b: &u8| matches!(b, b' ' | b'\t');
    let mut j = at;
    while hay.get(j).is_some_and(ws) {
        j += 1;
    }
    if hay.get(j) != Some(&b':') {
        return None;
    }
    j += 1;
    while hay.get(j).is_some_and(ws) {
        j += 1;
    }
    if hay.get(j) != Some(&b'"') {
        return None;
    }
    let v = j + 1;
    let window = &hay[v.min(hay.len())..(v + longest + 1).min(hay.len())];
    let end = v + memchr::memchr(b'"', window)?;
    values.contains(&hay[v..end]).then_some(end + 1)
}

/// Newline counting and id search over the bytes both files share.
pub(super) struct PrefixScan {
    /// Newlines seen.
    pub(super) newlines: u64,
    /// Offset of the start of the current line (after the last newline).
    pub(super) line_start: u64,
    searcher: Searcher,
    /// Longest needle − 1: bytes kept from the previous block to find needles that straddle two.
    keep: usize,
    tail: Vec<u8>,
    /// Match starts within the current block (scratch).
    hits: Vec<usize>,
    /// Candidate lines: start offset → 1-based line number.
    pub(super) candidates: BTreeMap<u64, u32>,
}

impl PrefixScan {
    /// A scan looking for `needles` (quoted, plain ids: see [`is_plain`]); a
    /// long list is looked up as the values of `id_keys`.
    pub(super) fn new(needles: &[Vec<u8>], id_keys: &[&str]) -> PrefixScan {
        let searcher = if needles.is_empty() {
            Searcher::None
        } else if needles.len() <= MAX_FINDERS {
            Searcher::Finders(needles.iter().map(|n| memchr::memmem::Finder::new(n).into_owned()).collect())
        } else {
            let values: HashSet<Vec<u8>> = needles.iter().map(|n| n[1..n.len() - 1].to_vec()).collect();
            let longest = values.iter().map(Vec::len).max().unwrap_or(0);
            let keys = id_keys
                .iter()
                .map(|k| memchr::memmem::Finder::new(format!("\"{k}\"").as_bytes()).into_owned())
                .collect();
            Searcher::Keys { keys, values, longest }
        };
        let longest = needles.iter().map(Vec::len).max().unwrap_or(1);
        let keep = match searcher {
            Searcher::Keys { .. } => id_keys.iter().map(|k| k.len() + 2).max().unwrap_or(0) + 2 * KEY_SLACK + longest,
            _ => longest.saturating_sub(1),
        };
        PrefixScan {
            newlines: 0,
            line_start: 0,
            searcher,
            keep,
            tail: Vec::new(),
            hits: Vec::new(),
            candidates: BTreeMap::new(),
        }
    }

    /// A scan that only counts lines.
    pub(super) fn lines_only() -> PrefixScan {
        PrefixScan {
            newlines: 0,
            line_start: 0,
            searcher: Searcher::None,
            keep: 0,
            tail: Vec::new(),
            hits: Vec::new(),
            candidates: BTreeMap::new(),
        }
    }

    /// Pushes the (start, end) of every needle found in `hay` onto `out`.
    fn find(searcher: &Searcher, hay: &[u8], out: &mut Vec<(usize, usize)>) {
        match searcher {
            Searcher::None => {}
            Searcher::Finders(fs) => {
                for f in fs {
                    let n = f.needle().len();
                    out.extend(f.find_iter(hay).map(|s| (s, s + n)));
                }
            }
            Searcher::Keys { keys, values, longest } => {
                for f in keys {
                    let n = f.needle().len();
                    out.extend(
                        f.find_iter(hay).filter_map(|s| key_value_end(hay, s + n, values, *longest).map(|e| (s, e))),
                    );
                }
            }
        }
    }

    /// Feeds `b`, the bytes at offset `pos` (called with consecutive ranges).
    pub(super) fn feed(&mut self, pos: u64, b: &[u8]) {
        if b.is_empty() {
            return;
        }
        if !matches!(self.searcher, Searcher::None) {
            let ls_prev = self.line_start;
            let mut found: Vec<(usize, usize)> = Vec::new();
            if self.keep > 0 && !self.tail.is_empty() {
                let t = self.tail.len();
                let mut j = self.tail.clone();
                j.extend_from_slice(&b[..self.keep.min(b.len())]);
                Self::find(&self.searcher, &j, &mut found);
                if found.iter().any(|&(s, e)| s < t && e > t) {
                    // Needles hold no newline: the match is on the line that was current.
                    self.candidates.entry(ls_prev).or_insert(to_line(self.newlines + 1));
                }
                found.clear();
            }
            Self::find(&self.searcher, b, &mut found);
            self.hits.clear();
            self.hits.extend(found.iter().map(|&(s, _)| s));
            self.hits.sort_unstable();
            let mut cursor = 0usize;
            let mut nl = self.newlines;
            for &s in &self.hits {
                nl += memchr::memchr_iter(b'\n', &b[cursor..s]).count() as u64;
                cursor = s;
                let ls = memchr::memrchr(b'\n', &b[..s]).map(|i| pos + i as u64 + 1).unwrap_or(ls_prev);
                self.candidates.entry(ls).or_insert(to_line(nl + 1));
            }
            if b.len() >= self.keep {
                self.tail.clear();
                self.tail.extend_from_slice(&b[b.len() - self.keep..]);
            } else {
                self.tail.extend_from_slice(b);
                let extra = self.tail.len().saturating_sub(self.keep);
                self.tail.drain(..extra);
            }
        }
        self.newlines += memchr::memchr_iter(b'\n', b).count() as u64;
        if let Some(i) = memchr::memrchr(b'\n', b) {
            self.line_start = pos + i as u64 + 1;
        }
    }
}

/// Reads the line starting at `off` (up to `limit` and [`MAX_LINE`]).
fn read_line_at(f: &mut File, off: u64, limit: u64) -> io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(off))?;
    let mut r = io::BufReader::with_capacity(64 * 1024, f.take(limit.saturating_sub(off).min(MAX_LINE as u64)));
    let mut v = Vec::new();
    io::BufRead::read_until(&mut r, b'\n', &mut v)?;
    Ok(v)
}

/// Parses the candidate lines the needle search found and records their ids.
pub(super) fn verify_candidates(
    f: &mut File,
    cands: &BTreeMap<u64, u32>,
    limit: u64,
    fmt: &Format,
) -> io::Result<Known> {
    let mut k = Known::default();
    for (&off, &line) in cands {
        let bytes = read_line_at(f, off, limit)?;
        if let Ok(rec) = fmt.classify(&bytes) {
            k.add(&rec, line);
        }
    }
    Ok(k)
}

/// The slow path for ids a quoted search cannot find reliably: parses every line of OLD.
pub(super) fn scan_all(f: &mut File, limit: u64, fmt: &Format) -> io::Result<Known> {
    let mut k = Known::default();
    f.seek(SeekFrom::Start(0))?;
    let mut lr = LineReader::new(f.take(limit));
    while let Some(l) = lr.next_line()? {
        if let Ok(rec) = fmt.classify(l.bytes) {
            k.add(&rec, l.no);
        }
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needles_straddling_blocks_are_found() {
        // An id split across two feeds is still found, with the right line.
        let mut s = PrefixScan::new(&[b"\"abcdef\"".to_vec()], DEFAULT_ID_KEYS);
        let text = b"x\n{\"id\":\"abcdef\"}\n";
        s.feed(0, &text[..10]);
        s.feed(10, &text[10..]);
        assert_eq!(s.candidates.into_iter().collect::<Vec<_>>(), vec![(2, 2)]);
    }

    #[test]
    fn many_needles_are_looked_up_by_key() {
        let needles: Vec<Vec<u8>> = (0..20).map(|i| format!("\"n{i:02}\"").into_bytes()).collect();
        let mut s = PrefixScan::new(&needles, DEFAULT_ID_KEYS);
        assert!(matches!(s.searcher, Searcher::Keys { .. }));
        let text = b"{\"parentId\":\"n05\",\"t\":\"n06\"}\n{\"x\":1,\"id\" : \"n07\"}\n{\"uuid\":\"n03\",\"sessionId\":\"zz\"}\n";
        // Split inside the second line's id value, across two feeds.
        let cut = text.windows(3).position(|w| w == b"n07").unwrap() + 1;
        s.feed(0, &text[..cut]);
        s.feed(cut as u64, &text[cut..]);
        let second = text.iter().position(|&b| b == b'\n').unwrap() as u64 + 1;
        let third = second + text[second as usize..].iter().position(|&b| b == b'\n').unwrap() as u64 + 1;
        assert_eq!(s.candidates.into_iter().collect::<Vec<_>>(), vec![(second, 2), (third, 3)]);
    }
}
