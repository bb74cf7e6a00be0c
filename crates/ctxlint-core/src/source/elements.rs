//! Reads the elements of one array of a JSON document one at a time as the
//! document is read, without holding the document: an HTTP Archive's
//! `log.entries`, a large request body's `messages`. Only the element being
//! read, and what comes before the array, are held.

use crate::locate::{skip_value, skip_ws, string_end};
use std::io::{self, Read};

/// A window on an input read in chunks: the bytes not yet given up, their
/// offset, and the line feeds before them.
struct Window<'r> {
    r: &'r mut dyn Read,
    buf: Vec<u8>,
    chunk: usize,
    eof: bool,
    /// Line feeds in the bytes given up and in `buf[..counted]`.
    feeds: u64,
    counted: usize,
    /// Bytes given up: the input offset of `buf[0]`.
    given: u64,
}

impl Window<'_> {
    /// Reads at least `n` more bytes (fewer at the end of the input);
    /// `None` on a read error.
    fn more(&mut self, n: usize) -> Option<()> {
        let want = self.buf.len() + n.max(self.chunk);
        while self.buf.len() < want && !self.eof {
            let old = self.buf.len();
            self.buf.resize(want, 0);
            let got = loop {
                match self.r.read(&mut self.buf[old..]) {
                    Ok(k) => break k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return None,
                }
            };
            self.buf.truncate(old + got);
            self.eof = got == 0;
        }
        Some(())
    }

    /// Line feeds before `buf[p]` (`p` never goes back).
    fn feeds_before(&mut self, p: usize) -> u64 {
        self.feeds += memchr::memchr_iter(b'\n', &self.buf[self.counted..p]).count() as u64;
        self.counted = p;
        self.feeds
    }

    /// Gives up `buf[..p]`.
    fn give_up(&mut self, p: usize) {
        self.feeds_before(p);
        self.given += p as u64;
        self.buf.drain(..p);
        self.counted = 0;
    }
}

/// Where a walk down the keys stopped.
enum Walk {
    /// Just after the array's `[`.
    Found(usize),
    /// The bytes so far end before the walk could tell.
    More,
    /// Not such a document.
    No,
}

/// Walks `t` (a document's beginning) down the object members named `keys`
/// (each the first member of that name, its key written without escapes)
/// to an array.
fn walk(t: &[u8], keys: &[&str]) -> Walk {
    let mut p = skip_ws(t, 0);
    for (level, key) in keys.iter().enumerate() {
        match t.get(p) {
            Some(b'{') => p += 1,
            Some(_) => return Walk::No,
            None => return Walk::More,
        }
        loop {
            p = skip_ws(t, p);
            match t.get(p) {
                Some(b'"') => {}
                Some(_) => return Walk::No,
                None => return Walk::More,
            }
            let Some(k_end) = string_end(t, p) else { return Walk::More };
            let name = &t[p + 1..k_end - 1];
            p = skip_ws(t, k_end);
            match t.get(p) {
                Some(b':') => p = skip_ws(t, p + 1),
                Some(_) => return Walk::No,
                None => return Walk::More,
            }
            if name == key.as_bytes() {
                if level + 1 == keys.len() {
                    return match t.get(p) {
                        Some(b'[') => Walk::Found(p + 1),
                        Some(_) => Walk::No,
                        None => Walk::More,
                    };
                }
                break;
            }
            match skip_value(t, p) {
                Some(e) if e < t.len() => p = skip_ws(t, e),
                _ => return Walk::More,
            }
            match t.get(p) {
                Some(b',') => p += 1,
                Some(_) => return Walk::No,
                None => return Walk::More,
            }
        }
    }
    Walk::No
}

/// Reads the document `r` gives, calling `each(index, element, line_feeds,
/// offset)` for each element of the array at `keys` (object members from the
/// top, e.g. `["log", "entries"]`) in order, with the element's bytes, the
/// number of line feeds in the input before its first byte (its 1-based line
/// is that plus one) and the byte offset of that first byte in the input. Reads `chunk` bytes at a time; holds what precedes the
/// array, one element and one chunk.
///
/// Returns the *outline*: the document with that array emptied (`[]`), for
/// the caller to parse the rest and to check that the whole reads as JSON
/// (an outline that parses, with elements that each parse, is a document
/// that parses). `None` when the document does not read so: a read error,
/// no such array (a member written twice is not looked for past its first
/// time; a key with escapes is not matched), bytes that are not JSON around
/// or between the elements, or `each` returned `false`. The caller then
/// reads the document whole, which gives the same answer or the error.
pub fn stream_array(
    r: &mut dyn Read,
    keys: &[&str],
    chunk: usize,
    mut each: impl FnMut(usize, &[u8], u64, u64) -> bool,
) -> Option<Vec<u8>> {
    let mut w = Window { r, buf: Vec::new(), chunk: chunk.max(1), eof: false, feeds: 0, counted: 0, given: 0 };
    let start = loop {
        match walk(&w.buf, keys) {
            Walk::Found(p) => break p,
            Walk::No => return None,
            Walk::More if w.eof => return None,
            Walk::More => {
                let n = w.buf.len();
                w.more(n)?;
            }
        }
    };
    let mut outline = w.buf[..start].to_vec();
    let mut p = start;
    let mut index = 0;
    let mut after_element = false;
    loop {
        p = skip_ws(&w.buf, p);
        let Some(&c) = w.buf.get(p) else {
            if w.eof {
                return None;
            }
            w.give_up(p);
            p = 0;
            w.more(0)?;
            continue;
        };
        if after_element {
            match c {
                b',' => {
                    p += 1;
                    after_element = false;
                }
                b']' => break,
                _ => return None,
            }
            continue;
        }
        if c == b']' && index == 0 {
            break;
        }
        match skip_value(&w.buf, p) {
            Some(e) if e < w.buf.len() => {
                let feeds = w.feeds_before(p);
                if !each(index, &w.buf[p..e], feeds, w.given + p as u64) {
                    return None;
                }
                index += 1;
                p = e;
                after_element = true;
            }
            _ if w.eof => return None,
            _ => {
                // The element goes on past the bytes read: read as many again.
                w.give_up(p);
                p = 0;
                let n = w.buf.len();
                w.more(n)?;
            }
        }
    }
    outline.extend_from_slice(&w.buf[p..]);
    w.r.read_to_end(&mut outline).ok()?;
    Some(outline)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each element given: index, text, line feeds before it.
    type Given = Vec<(usize, String, u64)>;

    fn run(doc: &str, keys: &[&str], chunk: usize) -> Option<(Given, String)> {
        let mut got = Vec::new();
        let mut r = io::Cursor::new(doc.as_bytes().to_vec());
        let outline = stream_array(&mut r, keys, chunk, |i, b, f, at| {
            // The offset names the element's bytes in the document.
            assert_eq!(&doc.as_bytes()[at as usize..at as usize + b.len()], b);
            got.push((i, String::from_utf8(b.to_vec()).unwrap(), f));
            true
        })?;
        Some((got, String::from_utf8(outline).unwrap()))
    }

    #[test]
    fn elements_come_one_by_one_with_their_line_and_the_outline_is_the_rest() {
        let doc = "{\"log\": {\"version\": \"1.2\", \"pages\": [{\"a\": \"]\"}],\n \"entries\": [\n  {\"x\": \"a,\\\"b\"},\n  [1, 2],\n  17, \"s\"\n ], \"z\": 1}}\n";
        for chunk in [1, 2, 3, 7, 64, 4096] {
            let (got, outline) = run(doc, &["log", "entries"], chunk).unwrap();
            assert_eq!(
                got,
                vec![
                    (0, "{\"x\": \"a,\\\"b\"}".to_string(), 2),
                    (1, "[1, 2]".to_string(), 3),
                    (2, "17".to_string(), 4),
                    (3, "\"s\"".to_string(), 4),
                ],
                "chunk {chunk}"
            );
            assert_eq!(
                outline,
                "{\"log\": {\"version\": \"1.2\", \"pages\": [{\"a\": \"]\"}],\n \"entries\": [] ], \"z\": 1}}\n"
                    .replace("[] ]", "[]"),
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn an_empty_array_and_documents_that_do_not_read_so() {
        assert_eq!(run("{\"messages\": []}", &["messages"], 3).unwrap().1, "{\"messages\": []}");
        assert_eq!(run("{\"messages\": [ ] , \"m\": 2}", &["messages"], 2).unwrap().1, "{\"messages\": [] , \"m\": 2}");
        for bad in [
            "[1, 2]",
            "{\"messages\": {}}",
            "{\"other\": [1]}",
            "{\"messages\": [1 2]}",
            "{\"messages\": [1,",
            "{\"messages\": [{\"a\": 1}",
            "{\"m\\u0065ssages\": [1]}",
            "",
        ] {
            assert!(run(bad, &["messages"], 2).is_none(), "{bad}");
        }
        let mut r = io::Cursor::new(b"{\"messages\": [1, 2, 3]}".to_vec());
        assert!(stream_array(&mut r, &["messages"], 4, |i, _, _, _| i < 1).is_none());
    }
}
