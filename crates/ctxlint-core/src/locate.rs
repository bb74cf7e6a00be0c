//! Finds where an RFC 6901 JSON Pointer's value starts in a JSON text, without
//! parsing the whole document into a tree: a small scanner walks only as deep
//! as the pointer and skips everything else (iteratively, so deep nesting
//! cannot overflow the stack).

/// Byte offset (0-based) in `text` of the first byte of the value named by
/// `pointer`, or `None` when the pointer does not resolve or the text is not
/// JSON. A key written twice names its last value (as serde_json and
/// JSON.parse read it). For many pointers into one text use [`Locator`].
pub fn locate(text: &[u8], pointer: &str) -> Option<usize> {
    Locator::new(text).locate(pointer)
}

/// Byte range (`start..end`) of the value named by `pointer`.
pub fn locate_span(text: &[u8], pointer: &str) -> Option<(usize, usize)> {
    Locator::new(text).span(pointer)
}

/// Places many JSON Pointers in one JSON document in time linear in the
/// document (per level of nesting), where calling [`locate`] once per
/// pointer scans from the document's start each time: each container a
/// pointer passes through is scanned once, and the start of each of its
/// members (the last, when an object repeats a key) is kept for every later
/// pointer. Offsets are bytes, 0-based; results equal [`locate`]'s and
/// [`locate_span`]'s.
pub struct Locator<'a> {
    text: &'a [u8],
    /// Container start → its members' value starts (`None`: not a container).
    members: std::collections::HashMap<usize, Option<Members>>,
    /// Value start → the offset just past it.
    ends: std::collections::HashMap<usize, Option<usize>>,
}

enum Members {
    Object(std::collections::HashMap<String, usize>),
    Array(Vec<usize>),
}

impl<'a> Locator<'a> {
    /// A locator over `text` (nothing is scanned until asked).
    pub fn new(text: &'a [u8]) -> Self {
        Locator { text, members: Default::default(), ends: Default::default() }
    }

    /// As [`locate`]: the byte offset of the first byte of the value named by
    /// `pointer`.
    pub fn locate(&mut self, pointer: &str) -> Option<usize> {
        let mut pos = skip_ws(self.text, 0);
        if pointer.is_empty() {
            return Some(pos);
        }
        for tok in pointer.strip_prefix('/')?.split('/') {
            let tok = tok.replace("~1", "/").replace("~0", "~");
            pos = match self.members(pos)? {
                Members::Object(m) => *m.get(&tok)?,
                Members::Array(v) => *v.get(tok.parse::<usize>().ok()?)?,
            };
        }
        Some(pos)
    }

    /// As [`locate_span`]: the byte range (`start..end`) of the value named by
    /// `pointer`.
    pub fn span(&mut self, pointer: &str) -> Option<(usize, usize)> {
        let start = self.locate(pointer)?;
        let text = self.text;
        let end = *self.ends.entry(start).or_insert_with(|| skip_value(text, start));
        Some((start, end?))
    }

    /// The members of the container starting at `pos`, scanned once; a
    /// container cut short keeps the members before the cut (as [`locate`]
    /// finds them).
    fn members(&mut self, pos: usize) -> Option<&Members> {
        let text = self.text;
        self.members
            .entry(pos)
            .or_insert_with(|| match *text.get(pos)? {
                b'{' => {
                    let mut m = std::collections::HashMap::new();
                    let mut p = pos + 1;
                    while let Some((key, value)) = member_at(text, p) {
                        m.insert(key, value); // a key written twice: the last is the value
                        match skip_value(text, value).map(|e| skip_ws(text, e)) {
                            Some(e) if text.get(e) == Some(&b',') => p = e + 1,
                            _ => break,
                        }
                    }
                    Some(Members::Object(m))
                }
                b'[' => {
                    let mut v = Vec::new();
                    let mut p = pos + 1;
                    loop {
                        p = skip_ws(text, p);
                        if matches!(text.get(p), None | Some(b']')) {
                            break;
                        }
                        v.push(p);
                        match skip_value(text, p).map(|e| skip_ws(text, e)) {
                            Some(e) if text.get(e) == Some(&b',') => p = e + 1,
                            _ => break,
                        }
                    }
                    Some(Members::Array(v))
                }
                _ => None,
            })
            .as_ref()
    }
}

/// The byte offset just past the JSON value that starts at `start` (a
/// string, number, literal, object or array), scanning that value only: the
/// end of an element found by [`array_elements`] costs its own length, not a
/// walk from the start of the document. `None` when the text there is not
/// JSON.
pub fn value_end(text: &[u8], start: usize) -> Option<usize> {
    skip_value(text, start)
}

/// Byte offsets (0-based) in `text` of the first byte of each element of the
/// array named by `pointer`, in one pass over it (so that finding a field of
/// every element costs one scan, not one scan from the start per element);
/// `None` when the pointer does not name an array or the text is not JSON.
pub fn array_elements(text: &[u8], pointer: &str) -> Option<Vec<usize>> {
    let mut pos = locate(text, pointer)?;
    if *text.get(pos)? != b'[' {
        return None;
    }
    pos += 1;
    let mut out = Vec::new();
    loop {
        pos = skip_ws(text, pos);
        if *text.get(pos)? == b']' {
            return Some(out);
        }
        out.push(pos);
        pos = skip_ws(text, skip_value(text, pos)?);
        match *text.get(pos)? {
            b',' => pos += 1,
            b']' => return Some(out),
            _ => return None,
        }
    }
}

/// The key of the object member at `p` (after any whitespace) and where its
/// value starts.
fn member_at(t: &[u8], p: usize) -> Option<(String, usize)> {
    let (key, after) = read_string(t, skip_ws(t, p))?;
    let q = skip_ws(t, after);
    (*t.get(q)? == b':').then(|| (key, skip_ws(t, q + 1)))
}

pub(crate) fn skip_ws(t: &[u8], mut p: usize) -> usize {
    while p < t.len() && matches!(t[p], b' ' | b'\t' | b'\n' | b'\r') {
        p += 1;
    }
    p
}

/// Reads a JSON string starting at `p` (which must be `"`); returns the
/// decoded string (escapes other than `\"`, `\\`, `\/` kept loosely) and the
/// position after the closing quote.
fn read_string(t: &[u8], p: usize) -> Option<(String, usize)> {
    if t.get(p) != Some(&b'"') {
        return None;
    }
    let end = string_end(t, p)?;
    let raw = &t[p..end];
    let s: String = serde_json::from_slice(raw).ok()?;
    Some((s, end))
}

/// Position after the closing quote of the string starting at `p`.
pub(crate) fn string_end(t: &[u8], p: usize) -> Option<usize> {
    let mut i = p + 1;
    loop {
        let j = memchr::memchr2(b'"', b'\\', &t[i..])? + i;
        if t[j] == b'\\' {
            i = j + 2;
            if i > t.len() {
                return None;
            }
        } else {
            return Some(j + 1);
        }
    }
}

/// Position after the value starting at `p`.
pub(crate) fn skip_value(t: &[u8], p: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = p;
    loop {
        let c = *t.get(i)?;
        match c {
            b'"' => i = string_end(t, i)?,
            b'{' | b'[' => {
                depth += 1;
                i += 1
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1
            }
            _ => {
                if depth == 0 {
                    // scalar: runs until a delimiter
                    while i < t.len() && !matches!(t[i], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        i += 1;
                    }
                    return Some(i);
                }
                i += 1;
            }
        }
        if depth == 0 && matches!(c, b'"' | b'}' | b']') {
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values() {
        let t = br#"{"a": [1, {"b": "x\"y"}, [true]], "c/d": {"e": null}}"#;
        assert_eq!(locate(t, ""), Some(0));
        assert_eq!(&t[locate(t, "/a").unwrap()..][..1], b"[");
        assert_eq!(&t[locate(t, "/a/1/b").unwrap()..][..3], b"\"x\\");
        assert_eq!(&t[locate(t, "/a/2/0").unwrap()..][..4], b"true");
        assert_eq!(&t[locate(t, "/c~1d/e").unwrap()..][..4], b"null");
        assert_eq!(locate(t, "/a/5"), None);
        assert_eq!(locate(t, "/zz"), None);
    }

    /// The scanner `locate` was before it became one [`Locator`] lookup: a
    /// walk from the document's start per pointer, kept as the reference.
    fn reference(text: &[u8], pointer: &str) -> Option<usize> {
        let mut pos = skip_ws(text, 0);
        if pointer.is_empty() {
            return Some(pos);
        }
        let tokens = pointer.strip_prefix('/')?.split('/').map(|t| t.replace("~1", "/").replace("~0", "~"));
        for tok in tokens {
            pos = skip_ws(text, pos);
            match *text.get(pos)? {
                b'{' => {
                    pos += 1;
                    let mut found = None;
                    loop {
                        pos = skip_ws(text, pos);
                        let Some((key, after)) = read_string(text, pos) else { break };
                        pos = skip_ws(text, after);
                        if text.get(pos) != Some(&b':') {
                            break;
                        }
                        pos = skip_ws(text, pos + 1);
                        if key == tok {
                            // A key written twice: the last one is the value
                            // (as serde_json and JSON.parse read it).
                            found = Some(pos);
                        }
                        match skip_value(text, pos).map(|e| skip_ws(text, e)) {
                            Some(e) if text.get(e) == Some(&b',') => pos = e + 1,
                            _ => break,
                        }
                    }
                    pos = found?;
                }
                b'[' => {
                    let want: usize = tok.parse().ok()?;
                    pos += 1;
                    let mut i = 0;
                    loop {
                        pos = skip_ws(text, pos);
                        if *text.get(pos)? == b']' {
                            return None;
                        }
                        if i == want {
                            break;
                        }
                        pos = skip_value(text, pos)?;
                        pos = skip_ws(text, pos);
                        match *text.get(pos)? {
                            b',' => pos += 1,
                            _ => return None,
                        }
                        i += 1;
                    }
                }
                _ => return None,
            }
        }
        Some(skip_ws(text, pos))
    }

    #[test]
    fn a_locator_agrees_with_locate() {
        let docs: [&[u8]; 5] = [
            br#"{"a": [1, {"b": "x\"y"}, [true]], "c/d": {"e": null}, "a": 5, "m~n": [ ]}"#,
            br#" [ {"k": 1} , [2, [3]], "s" ] "#,
            br#"{"a": [1, 2"#,     // cut short: the members before the cut are found
            br#"{"a": 1 "b": 2}"#, // no comma: "b" is not found
            b"",
        ];
        let pointers = [
            "", "/a", "/a/0", "/a/1/b", "/a/2/0", "/a/3", "/c~1d/e", "/m~0n", "/m~0n/0", "/0/k", "/1/1/0", "/2", "/3",
            "/b", "/a/x", "/zz/0", "/1/01",
        ];
        // A key written twice: the last is the value (as serde_json reads it).
        let d = docs[0];
        assert_eq!(&d[locate(d, "/a").unwrap()..][..1], b"5");
        assert_eq!(Locator::new(d).span("/a").map(|(a, e)| &d[a..e]), Some(&b"5"[..]));
        assert_eq!(locate(br#"{"a": 1, "a": [2"#, "/a/0"), Some(15));
        for d in docs {
            let mut l = Locator::new(d);
            for _ in 0..2 {
                for p in pointers {
                    let span = reference(d, p).and_then(|a| value_end(d, a).map(|e| (a, e)));
                    assert_eq!(l.locate(p), reference(d, p), "{p} in {}", String::from_utf8_lossy(d));
                    assert_eq!(l.span(p), span, "{p} in {}", String::from_utf8_lossy(d));
                }
            }
        }
    }

    #[test]
    fn lists_array_elements() {
        let t = br#"{"a": [ 1, {"b": "]"} ,[2], "x" ], "c": 3, "e": []}"#;
        let got = array_elements(t, "/a").unwrap();
        assert_eq!(got, vec![8, 11, 23, 28]);
        assert_eq!(&t[locate(&t[got[1]..], "/b").unwrap() + got[1]..][..3], b"\"]\"");
        assert_eq!(array_elements(t, "/e"), Some(vec![]));
        assert_eq!(array_elements(t, "/c"), None);
        assert_eq!(array_elements(b"[1, 2", ""), None);
    }
}
