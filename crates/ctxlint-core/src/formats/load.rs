//! Loading an input of a known format: the options, the consistent-snapshot
//! read (a file rewritten while read is read again), the dispatch to the
//! format's reader, single body files and streams of them, and reading one
//! entry's line again with every text.

use super::*;
use crate::error::{Error, Result};
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// Loading options.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--input-format`: the format was forced, not detected; [`load`] first
    /// checks that the input fits it ([`check_fit`]).
    pub forced: Option<FormatId>,
    /// Which texts of a transcript's messages to keep (`check` keeps the
    /// prompt side; `show` and reloads keep all as loaded).
    pub texts: crate::model::packed::Texts,
}

/// Loads one input of a known format. Body formats give a one-request stream.
pub fn load(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    // A small file is read once, whole, and loaded from memory (checking
    // 20,000 small sessions opened each one five times and stat-ed it ten).
    // Its lines are still read again, by offset and verified, from the file.
    let whole = descriptor(format).is_some_and(|d| d.encoding != Encoding::Database);
    if let Some(mem) = whole.then(|| small_text_snapshot(src, SMALL_FILE)).flatten() {
        if opts.forced == Some(format) {
            check_fit(&mem, format)?;
        }
        let input = load_format(&mem, format, opts)?;
        return Ok(finish(input, src, format, opts));
    }
    // A compressed input cannot be read again at an offset: keep every text
    // rather than decompress it from the start for each excerpt.
    let keep_all;
    let opts = if opts.texts == crate::model::packed::Texts::Compact && is_transcript(format) && src.is_compressed() {
        keep_all = LoadOptions { texts: crate::model::packed::Texts::AsLoaded, ..opts.clone() };
        &keep_all
    } else {
        opts
    };
    if opts.forced == Some(format) {
        check_fit(src, format)?;
    }
    let input = load_snapshot(src, format, opts)?;
    Ok(finish(input, src, format, opts))
}

/// [`load`] of a small file from the bytes already read from it: `mem`, its
/// [`small_text_snapshot`] (of at most [`SMALL_FILE`] bytes), which its
/// format was detected from (`check` reads a walked small file once: issue
/// 35). The same input [`load`] gives; a database's format is loaded from its
/// file ([`load`]).
///
/// # Errors
/// As [`load`].
pub fn load_read(src: &SourceRef, mem: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    if descriptor(format).is_none_or(|d| d.encoding == Encoding::Database) {
        return load(src, format, opts);
    }
    if opts.forced == Some(format) {
        check_fit(mem, format)?;
    }
    let input = load_format(mem, format, opts)?;
    Ok(finish(input, src, format, opts))
}

/// [`SourceRef::small_snapshot`], but `None` for an SQLite database (read
/// through SQLite, from its file, with its journal).
pub(crate) fn small_text_snapshot(src: &SourceRef, max: u64) -> Option<SourceRef> {
    text_only(src.small_snapshot(max)?)
}

/// [`small_text_snapshot`] through [`SourceRef::small_snapshot_just_stamped`].
pub(super) fn small_text_snapshot_just_stamped(src: &SourceRef, max: u64) -> Option<SourceRef> {
    text_only(src.small_snapshot_just_stamped(max)?)
}

fn text_only(s: SourceRef) -> Option<SourceRef> {
    match &s.origin {
        crate::source::Origin::Memory(b) if super::sqlite::is_database(b) => None,
        _ => Some(s),
    }
}

/// Files under this size (bytes) are read whole, once ([`SourceRef::small_snapshot`]).
pub const SMALL_FILE: u64 = 256 * 1024;

/// Links a loaded transcript to its source, for lines read again.
fn finish(mut input: Input, src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Input {
    if let Body::Transcript(t) = &mut input.body {
        // Lines are read again by offset, verified by hash: no size to hold to.
        // (A database has no lines: its texts are all kept.)
        let lines = descriptor(format).is_some_and(|d| d.encoding != Encoding::Database);
        t.source = lines.then(|| SourceRef { seen: None, ..src.clone() });
        t.reader = Some(crate::model::MessageReader { format, read: reload_message });
        t.texts = opts.texts;
        t.messages.seal();
    }
    input
}

/// How many times a file that changed while it was read is read again.
pub const READ_TRIES: usize = 3;

/// Loads `src` as one consistent snapshot: its [`crate::source::Stamp`] is
/// taken before and after; when the file shrank, was rewritten or replaced
/// in between (a second writer), it is read again, up to [`READ_TRIES`]
/// times, then an error — never findings (or a clean pass) for bytes that
/// were never one file. A file only appended to meanwhile is fine (its
/// appended bytes are not read), unless what was read ends inside a line
/// (a line being written, or a rewrite to a longer file): then it is read
/// again too.
fn load_snapshot(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    let mut last = None;
    for _ in 0..READ_TRIES {
        let before = src.stamp();
        if let (Some(seen), Some(b)) = (src.seen, before) {
            // Changed since its format was detected (emptied, rewritten): the
            // format must be what the file holds now.
            if !seen.still_holds(&b) && !matches!(detect_input(src), Ok(Detection::Format(f)) if f == format) {
                last = Some((seen.len, b.len));
                continue;
            }
        }
        // Read as exactly the bytes stamped now (a file emptied or cut
        // meanwhile ends early: an error, read again).
        let snap = SourceRef { seen: before.or(src.seen), ..src.clone() };
        let r = load_format(&snap, format, opts);
        let after = src.stamp();
        let shrank = matches!(&r, Err(Error::Io { source, .. }) if source.to_string() == crate::source::SHRANK);
        match (before, after) {
            (Some(b), Some(a)) if shrank || !b.still_holds(&a) => {
                last = Some((b.len, a.len));
                continue;
            }
            // Grown while read, and what was read ends inside a line: a
            // writer was mid-line (an append not done), or the file was
            // rewritten longer in place (the same inode, a larger size: it
            // looks like an append, and its first bytes are not the ones
            // stamped). Either way, read it again rather than report a
            // torn last line that no one wrote.
            (Some(b), Some(a)) if a.len > b.len && src.ends_a_line_at(b.len) == Some(false) => {
                last = Some((b.len, a.len));
                continue;
            }
            _ => return r,
        }
    }
    let (b, a) = last.unwrap_or_default();
    Err(Error::Io {
        path: src.display.clone().into(),
        source: std::io::Error::other(format!(
            "the file changed while it was read, {READ_TRIES} times ({b} bytes, then {a}): another process is rewriting it; check it again once that writer is done"
        )),
    })
}

/// The message of entry `e` of transcript `t` (of `format`) with every text
/// as its loader gives it (see [`crate::model::packed::Texts`]): the entry's line is
/// read again from the transcript's source and loaded on its own. `None` when
/// the line cannot be read or is no longer the line that was checked (the
/// file changed since), or carries no message.
pub fn reload_message(format: FormatId, t: &Transcript, e: &Entry) -> Option<Message> {
    message_from_line(format, t, reload_line(t, e)?, e.id.as_deref())
}

/// The message of one entry's line, loaded again with every text.
fn message_from_line(format: FormatId, t: &Transcript, bytes: Vec<u8>, want: Option<&str>) -> Option<Message> {
    let src = t.source.as_ref()?;
    let one = SourceRef {
        display: src.display.clone(),
        origin: crate::source::Origin::Memory(bytes.into()),
        seen: None,
        session: None,
    };
    // Not forced: one line alone need not fit the format's detection (a pi
    // message line has no session header); the loader is named directly.
    let opts = LoadOptions { forced: None, texts: crate::model::packed::Texts::AsLoaded };
    let input = load_format(&one, format, &opts).ok()?;
    let t = input.as_transcript()?;
    // One line may give several entries (a Gemini CLI record and its
    // results): the one with the entry's id, else the first.
    let first = t.entries.first()?;
    let e = match &want {
        Some(id) => t.entries.iter().find(|x| x.id.as_deref() == Some(id)).unwrap_or(first),
        None => first,
    };
    t.message(e)
}

/// Reads many lines of one transcript again (`show`'s first lines of texts
/// not kept) through one open file and a window of its bytes
/// ([`crate::source::RangeReader`]) instead of opening the file for each
/// line; each line is verified by length and hash as [`reload_line`] does,
/// which it falls back to for compressed inputs.
pub struct Reloader<'t> {
    format: FormatId,
    t: &'t Transcript,
    range: Option<crate::source::RangeReader>,
    opened: bool,
}

impl<'t> Reloader<'t> {
    /// A reloader for transcript `t` of format `format` (opens nothing yet).
    pub fn new(format: FormatId, t: &'t Transcript) -> Self {
        Reloader { format, t, range: None, opened: false }
    }

    /// The raw bytes of `e`'s line; `None` when the file is gone or the line changed.
    pub fn line(&mut self, e: &Entry) -> Option<Vec<u8>> {
        if !self.opened {
            self.opened = true;
            self.range = self.t.source.as_ref().and_then(|s| s.range_reader());
        }
        if let Some(r) = &mut self.range {
            if let Some(b) = r.read(e.offset, e.len as usize) {
                if crate::hash::hash_bytes(b) == e.raw_hash {
                    return Some(b.to_vec());
                }
            }
        }
        reload_line(self.t, e)
    }

    /// `e`'s message with every text, as [`reload_message`] gives it.
    pub fn message(&mut self, e: &Entry) -> Option<Message> {
        let bytes = self.line(e)?;
        message_from_line(self.format, self.t, bytes, e.id.as_deref())
    }
}

/// The raw bytes of an entry's line, read again ([`Transcript::raw_line`]).
pub fn reload_line(t: &Transcript, e: &Entry) -> Option<Vec<u8>> {
    t.raw_line(e)
}

fn load_format(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    let Some(d) = descriptor(format) else {
        return Err(Error::BadInput {
            path: src.display.clone().into(),
            format: format.to_string(),
            reason: "this format is not supported yet".into(),
        });
    };
    match d.read {
        Read::File(load) => load(src, opts),
        Read::Body { database: Some(load_db), .. } if src.peek(16).is_ok_and(|h| sqlite::is_database(&h)) => {
            load_db(src)
        }
        Read::Body { .. } => load_body_file(src, format, opts),
    }
}

/// Parses a body of a known format into a request (`None` for a format that
/// is not a body format), with the model the body names (`model`, the
/// field every request format shares) as [`Request::model`] until a recorded
/// response names the one that answered.
pub fn parse_body(format: FormatId, v: &Value, path: &Arc<str>, index: usize, base: &str) -> Option<Request> {
    match descriptor(format)?.read {
        Read::Body { parse, .. } => {
            let mut r = parse(v, path, index, base);
            if r.model.is_none() {
                r.model = v.get("model").and_then(Value::as_str).filter(|m| !m.trim().is_empty()).map(Into::into);
            }
            Some(r)
        }
        Read::File(_) => None,
    }
}

/// Loads a single request-body file as a one-request stream. The document's
/// text is kept as [`Request::raw`] (for `diff`'s canonical JSON of an element
/// whose text is unchanged) unless `opts.texts` is
/// [`crate::model::packed::Texts::Compact`]: `check` never reads it, and held
/// it doubled the memory of a large body.
pub fn load_body_file(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    let path: Arc<str> = src.display.as_str().into();
    let elements = match descriptor(format).map(|d| d.read) {
        Some(Read::Body { elements, .. }) => elements,
        _ => None,
    };
    let streamed = elements
        .filter(|_| src.size().is_some_and(|n| (STREAM_FROM..=crate::source::MAX_DOCUMENT).contains(&n)))
        .and_then(|el| stream_body(src, format, el, &path, opts.texts == crate::model::packed::Texts::Prefixes));
    if let Some(mut req) = streamed {
        if opts.texts != crate::model::packed::Texts::Compact {
            req.raw = Some(Arc::new(crate::model::RawDocument::read_again(src.clone())));
        }
        return Ok(one_request(src, format, req));
    }
    let bytes = src.read_all()?;
    let by_elements = elements.and_then(|el| parse_body_by_elements(format, el, &bytes, &path));
    let mut req = match by_elements {
        Some(r) => r,
        None => {
            let v: Value = serde_json::from_slice(&bytes).map_err(|e| Error::BadInput {
                path: src.display.clone().into(),
                format: format.to_string(),
                reason: format!("not valid JSON: {e}"),
            })?;
            parse_body(format, &v, &path, 0, "")
                .ok_or_else(|| Error::Internal(format!("no body parser for {format}")))?
        }
    };
    if opts.texts != crate::model::packed::Texts::Compact {
        req.raw = Some(Arc::new(crate::model::RawDocument::kept(bytes)));
    }
    Ok(one_request(src, format, req))
}

/// The input of a body file: one request.
fn one_request(src: &SourceRef, format: FormatId, req: Request) -> Input {
    Input {
        path: src.display.clone(),
        format,
        body: Body::Stream(Stream { requests: vec![req] }),
        bad_lines: Vec::new(),
        more_bad_lines: 0,
        skipped: 0,
        unknown_records: 0,
        unread: Vec::new(),
    }
}

/// Body files at least this large (bytes) are read as they stream when
/// their document text is not kept ([`stream_body`]); smaller ones are read
/// whole, which costs less to set up.
const STREAM_FROM: u64 = 1 << 20;

/// Reads a body file's message list one element at a time as the file is
/// read ([`crate::source::stream_array`]), then the rest of the document as
/// [`parse_body_by_elements`] does: the file is never held whole, only the
/// request made of it. With `prefixes` (and an uncompressed input, which can
/// be read again by offset) the long texts of assistant and tool messages are
/// kept as their first bytes ([`cut_shown_texts`]) and each element's place
/// in the file is kept ([`Request::elements`]). `None` when the document does
/// not read so (the caller reads it whole, which gives the same request or
/// the error).
fn stream_body(
    src: &SourceRef,
    format: FormatId,
    el: super::format::Elements,
    path: &Arc<str>,
    prefixes: bool,
) -> Option<Request> {
    let prefixes = prefixes && !src.is_compressed();
    let mut r = src.open().ok()?;
    let at = ptr_join("", el.key);
    let mut messages = Vec::new();
    let mut spans = Vec::new();
    let outline =
        crate::source::stream_array(
            &mut r,
            &[el.key],
            256 * 1024,
            |i, bytes, _, offset| match serde_json::from_slice::<Value>(bytes) {
                Ok(v) => {
                    let mut m = (el.parse)(&v, ptr_idx(&at, i));
                    if prefixes {
                        cut_shown_texts(&mut m);
                        spans.push((offset, bytes.len() as u64));
                    }
                    messages.push(element_message(m));
                    true
                }
                Err(_) => false,
            },
        )?;
    // The document's other members, as parse_body_by_elements reads them
    // (its list is empty here), then the elements, in that order as there.
    let mut req = parse_body_by_elements(format, el, &outline, path)?;
    if prefixes {
        let first = req.messages.len();
        req.elements = Some(Arc::new(ElementSpans { source: src.clone(), list: at, first, spans }));
    }
    req.messages.reserve_exact(messages.len());
    req.messages.append(&mut messages);
    Some(req)
}

/// Bytes of a long text [`cut_shown_texts`] keeps (after its leading white
/// space): more than the longest opening of a compaction summary the request
/// comparison looks for (`conversation.rs`, 85 bytes).
pub const ELEMENT_PREFIX: usize = 128;

/// Keeps the long texts of an assistant or tool message only as their first
/// [`ELEMENT_PREFIX`] bytes (after leading white space), their lengths and
/// hashes as they were: the texts `diff` compares by hash and shows only
/// when the element changed, reading it again ([`element_again`]). Left
/// whole: messages of other roles and texts of other kinds (the request
/// comparison reads user and system texts, and the openings of compaction
/// summaries), a tool message's plain texts, and an assistant text holding
/// `<system>` (a system prompt rendered into the history, which the
/// comparison looks for).
fn cut_shown_texts(m: &mut Message) {
    if !matches!(m.role, Role::Assistant | Role::Tool) {
        return;
    }
    for b in &mut m.blocks {
        let cut = match b.kind {
            BlockKind::Text => m.role == Role::Assistant && !b.text.contains("<system>"),
            BlockKind::ToolCall | BlockKind::ToolResult | BlockKind::Thinking => true,
            _ => false,
        };
        if !cut {
            continue;
        }
        let lead = b.text.len() - b.text.trim_start().len();
        let kept = crate::text::prefix(&b.text, lead + ELEMENT_PREFIX);
        if kept.len() < b.text.len() {
            b.text = kept.into();
        }
    }
}

/// Message `msg` of `r` read again, whole, from the element of the body's
/// message list it was read from ([`Request::elements`], set by a load with
/// [`crate::model::packed::Texts::Prefixes`]): the same message with every
/// text as in the file. `None` when `r` keeps no element places, `msg` is
/// not an element of the list, or the element cannot be read or parsed
/// again. A file changed since gives the message as it is now: callers
/// compare its texts' hashes with the ones loaded.
pub fn element_again(r: &Request, msg: usize) -> Option<Message> {
    let e = r.elements.as_deref()?;
    let i = msg.checked_sub(e.first)?;
    let bytes = element_bytes(e, i)?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    let Some(Read::Body { elements: Some(el), .. }) = descriptor(r.body_format).map(|d| d.read) else {
        return None;
    };
    Some((el.parse)(&v, ptr_idx(&e.list, i)))
}

/// The JSON text of the value at `pointer` (a JSON Pointer in the file of
/// `r`) read from the element of its message list that holds it
/// ([`Request::elements`]); `None` when `r` keeps no element places, the
/// pointer is not inside an element, or it cannot be read.
pub fn element_json_again(r: &Request, pointer: &str) -> Option<String> {
    let e = r.elements.as_deref()?;
    let rest = pointer.strip_prefix(e.list.as_str())?.strip_prefix('/')?;
    let (index, inner) = rest.split_once('/').map_or((rest, ""), |(i, tail)| (i, tail));
    if index.len() > 1 && index.starts_with('0') {
        return None;
    }
    let i: usize = index.parse().ok()?;
    let bytes = element_bytes(e, i)?;
    let inner = if inner.is_empty() { String::new() } else { format!("/{inner}") };
    let (at, end) = crate::locate::locate_span(&bytes, &inner)?;
    String::from_utf8(bytes.get(at..end)?.to_vec()).ok()
}

/// The bytes of element `i` of the list, read again from the input at its place.
fn element_bytes(e: &ElementSpans, i: usize) -> Option<Vec<u8>> {
    let &(offset, len) = e.spans.get(i)?;
    e.source.bytes_at(offset, usize::try_from(len).ok()?)
}

/// A message read from one element of a body's list, to keep: its blocks
/// given exactly the room they take (a vector of one block pushed has room
/// for four: 288 bytes a message more, 26 MB on a 104 MB body of 90,000
/// messages). A stream's messages are trimmed so by [`crate::model::Interner`];
/// a body file's are not interned.
fn element_message(mut m: crate::model::Message) -> Arc<crate::model::Message> {
    m.blocks.shrink_to_fit();
    Arc::new(m)
}

/// A body document's top-level members in document order, each value left
/// as its raw text.
struct Members<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    out.push((k, m.next_value()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Parses a body document `bytes` of `format` with its message list read one
/// element at a time ([`super::format::Elements`]): the other members are
/// parsed as usual, the format's parser reads the document with an empty
/// list, and each element is parsed, read and dropped in turn. `None` when the
/// document does not read so (not an object, a repeated member, invalid
/// JSON): the caller parses it whole, which gives the same request or the
/// same error.
fn parse_body_by_elements(
    format: FormatId,
    el: super::format::Elements,
    bytes: &[u8],
    path: &Arc<str>,
) -> Option<Request> {
    let Members(members) = serde_json::from_slice(bytes).ok()?;
    let mut doc = serde_json::Map::with_capacity(members.len());
    let mut list = None;
    for (k, raw) in members {
        let v = if k == el.key && raw.get().starts_with('[') {
            list = Some(raw);
            Value::Array(Vec::new())
        } else if is_large_scalar_array(raw.get()) {
            Value::Array(Vec::new())
        } else {
            serde_json::from_str(raw.get()).ok()?
        };
        if doc.insert(k, v).is_some() {
            return None;
        }
    }
    let doc = Value::Object(doc);
    let mut r = parse_body(format, &doc, path, 0, "")?;
    if let Some(list) = list {
        let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(list.get()).ok()?;
        let at = ptr_join("", el.key);
        r.messages.reserve(items.len());
        for (i, item) in items.iter().enumerate() {
            let v: Value = serde_json::from_str(item.get()).ok()?;
            r.messages.push(element_message((el.parse)(&v, ptr_idx(&at, i))));
        }
    }
    Some(r)
}

/// Whether a member's raw text is an array of at least 64 KiB holding no
/// string and no object (numbers, booleans, nulls, arrays of them: token
/// ids, an embedding). No body parser reads one, so it is given to the
/// parser empty: as `serde_json::Value`s it took 32 bytes a number (a
/// 20 MB body of zeros peaked at 1.3 GB).
fn is_large_scalar_array(raw: &str) -> bool {
    raw.len() >= 64 * 1024 && raw.starts_with('[') && memchr::memchr2(b'"', b'{', raw.as_bytes()).is_none()
}

/// A stream joined from single-request inputs (files of one body format in
/// one directory, in natural filename order), one at a time: each
/// input's messages and texts are replaced by equal ones already held as it
/// comes ([`Interner::request`]), so a folder of bodies that each send the
/// history again holds that history once, not once per file until the end.
#[derive(Default)]
pub struct JoinedStream {
    requests: Vec<Request>,
    unread: Vec<crate::model::Unread>,
    interner: Interner,
}

impl JoinedStream {
    /// Adds the requests of the next input (in filename order).
    pub fn push(&mut self, inp: Input) {
        self.unread.extend(inp.unread);
        if let Body::Stream(s) = inp.body {
            for mut r in s.requests {
                self.interner.request(&mut r);
                self.requests.push(r);
            }
        }
    }

    /// The stream input named `dir`, its requests numbered in order.
    pub fn finish(self, dir: &str, format: FormatId) -> Input {
        let JoinedStream { mut requests, unread, .. } = self;
        for (i, r) in requests.iter_mut().enumerate() {
            r.index = i;
        }
        Input {
            path: dir.to_string(),
            format,
            body: Body::Stream(Stream { requests }),
            bad_lines: Vec::new(),
            more_bad_lines: 0,
            skipped: 0,
            unknown_records: 0,
            unread,
        }
    }
}

/// Loads `text` (held in memory, named `name`) with `load`, for unit tests.
#[cfg(test)]
pub(crate) fn load_str_for_test(load: fn(&SourceRef, &LoadOptions) -> Result<Input>, name: &str, text: &str) -> Input {
    let src = SourceRef {
        display: name.into(),
        origin: crate::source::Origin::Memory(text.as_bytes().to_vec().into()),
        seen: None,
        session: None,
    };
    load(&src, &LoadOptions::default()).expect("loads")
}

#[cfg(test)]
mod reload_tests {
    use super::*;

    #[test]
    fn a_folder_of_bodies_holds_history_sent_again_once_and_check_keeps_no_document() {
        let dir = tempfile::tempdir().unwrap();
        let sys = format!("You are careful. {}", "word ".repeat(40));
        let bodies = [
            serde_json::json!({"model": "m", "messages": [{"role": "system", "content": sys}, {"role": "user", "content": "first"}]}),
            serde_json::json!({"model": "m", "messages": [{"role": "system", "content": sys}, {"role": "user", "content": "first"},
                {"role": "assistant", "content": "ok"}, {"role": "user", "content": "second"}]}),
        ];
        let mut joined = JoinedStream::default();
        for (i, b) in bodies.iter().enumerate() {
            let p = dir.path().join(format!("r{i}.json"));
            std::fs::write(&p, b.to_string()).unwrap();
            let src = SourceRef::file(format!("r{i}.json"), &p);
            let input = load(&src, crate::formats::openai_chat::ID, &LoadOptions::default()).unwrap();
            let Body::Stream(s) = &input.body else { panic!("a stream") };
            // `check` (texts compact) keeps no copy of the document.
            assert!(s.requests[0].raw.is_none());
            let kept = LoadOptions { texts: crate::model::packed::Texts::AsLoaded, ..Default::default() };
            let Body::Stream(s) = load(&src, crate::formats::openai_chat::ID, &kept).unwrap().body else { panic!() };
            assert_eq!(s.requests[0].raw.as_deref().and_then(|r| r.text()), Some(b.to_string().as_str()));
            joined.push(input);
        }
        let input = joined.finish("bodies", crate::formats::openai_chat::ID);
        let Body::Stream(s) = &input.body else { panic!("a stream") };
        assert_eq!(s.requests.iter().map(|r| (r.index, r.messages.len())).collect::<Vec<_>>(), [(0, 2), (1, 4)]);
        // The system prompt and the first turn, sent again, are the first request's messages.
        for k in 0..2 {
            assert!(Arc::ptr_eq(&s.requests[0].messages[k], &s.requests[1].messages[k]), "message {k}");
        }
    }

    const LINES: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"a model-side text that is longer than thirty-two bytes"}],"provider":"p","model":"m","stopReason":"stop"}}"#,
        "\r\n",
    );

    #[test]
    fn a_dropped_text_is_read_again_unless_the_line_changed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, LINES).unwrap();
        let src = SourceRef::file("s.jsonl", &p);
        let input = load(&src, crate::formats::pi_session::ID, &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        let e = &t.entries[0];
        assert!(t.message(e).unwrap().blocks[0].text_dropped);
        let full = reload_message(crate::formats::pi_session::ID, t, e).unwrap();
        assert_eq!(&*full.blocks[0].text, "a model-side text that is longer than thirty-two bytes");
        // The same length, other bytes: the file changed since it was read.
        std::fs::write(&p, LINES.replace("longer", "LONGER")).unwrap();
        assert!(reload_message(crate::formats::pi_session::ID, t, e).is_none());
        std::fs::remove_file(&p).unwrap();
        assert!(reload_message(crate::formats::pi_session::ID, t, e).is_none());
    }

    #[test]
    fn a_reloader_reads_many_lines_through_one_window_and_checks_each() {
        // 3,000 assistant lines (about 600 KiB: more than two windows).
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let mut text = String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#);
        text.push('\n');
        let mut parent = String::from("null");
        for k in 0..3000 {
            text.push_str(&format!(
                r#"{{"type":"message","id":"m{k}","parentId":{parent},"timestamp":"t","message":{{"role":"assistant","content":[{{"type":"text","text":"reply number {k:05} to a question, long enough that check does not keep it ({})"}}],"provider":"p","model":"m","stopReason":"stop"}}}}"#,
                "x".repeat(k % 300)
            ));
            text.push('\n');
            parent = format!("\"m{k}\"");
        }
        std::fs::write(&p, &text).unwrap();
        let src = SourceRef::file("s.jsonl", &p);
        let input = load(&src, crate::formats::pi_session::ID, &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        assert_eq!(t.entries.len(), 3000);
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        // In order, backwards, then jumping: every one equal to its line read alone.
        let order: Vec<usize> = (0..3000).chain((0..3000).rev()).chain((0..3000).step_by(997)).collect();
        for k in order {
            let e = &t.entries[k];
            let m = r.message(e).expect("read again");
            assert!(m.blocks[0].text.starts_with(&format!("reply number {k:05} ")), "entry {k}");
            assert_eq!(r.line(e), reload_line(t, e));
        }
        // The file rewritten (same length, other bytes): every line is refused.
        std::fs::write(&p, text.replace("reply number", "REPLY NUMBER")).unwrap();
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        assert!(r.message(&t.entries[5]).is_none());
        assert!(r.message(&t.entries[2999]).is_none());
        // Shortened: the last lines cannot be read at all.
        std::fs::write(&p, &text[..text.len() / 2]).unwrap();
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        assert!(r.message(&t.entries[0]).is_some());
        assert!(r.message(&t.entries[2999]).is_none());
    }

    #[test]
    fn a_reloader_reads_compressed_transcripts_from_the_start() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(LINES.as_bytes()).unwrap();
        std::fs::write(&p, gz.finish().unwrap()).unwrap();
        let src = SourceRef::file("s.jsonl.gz", &p);
        let input = load(&src, crate::formats::pi_session::ID, &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        let mut r = Reloader::new(crate::formats::pi_session::ID, t);
        let m = r.message(&t.entries[0]).expect("read again");
        assert_eq!(&*m.blocks[0].text, "a model-side text that is longer than thirty-two bytes");
    }
}

#[cfg(test)]
mod by_elements_tests {
    use super::*;

    /// The request a body parses to, read whole and read by elements, as
    /// its debug form (`None` when the by-elements read gives way).
    fn both(format: FormatId, doc: &str) -> (String, Option<String>) {
        let path: Arc<str> = "b.json".into();
        let v: Value = serde_json::from_str(doc).unwrap();
        let whole = parse_body(format, &v, &path, 0, "").unwrap();
        let Some(Read::Body { elements: Some(el), .. }) = descriptor(format).map(|d| d.read) else {
            panic!("{format} reads by elements")
        };
        let by = parse_body_by_elements(format, el, doc.as_bytes(), &path);
        // Read as it streams: the same request, when the list is an array.
        let streamed = stream_body(&memory(doc), format, el, &path, false);
        let list_is_array = v.get(el.key).is_some_and(Value::is_array);
        assert_eq!(streamed.is_some(), list_is_array && by.is_some(), "{doc}");
        if let Some(r) = streamed {
            assert_eq!(format!("{r:?}"), format!("{whole:?}"), "{doc}");
        }
        (format!("{whole:?}"), by.map(|r| format!("{r:?}")))
    }

    fn memory(text: &str) -> SourceRef {
        let origin = crate::source::Origin::Memory(text.as_bytes().to_vec().into());
        SourceRef { display: "b.json".into(), origin, seen: None, session: None }
    }

    #[test]
    fn a_body_read_by_elements_is_the_body_read_whole() {
        let chat = super::super::openai_chat::ID;
        let anthropic = super::super::anthropic::ID;
        let responses = super::super::openai_responses::ID;
        for (format, doc) in [
            (
                chat,
                r#"{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"f"}}],"messages":[
                {"role":"system","content":"be brief"},
                {"role":"user","content":[{"type":"text","text":"hi"}]},
                {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
                {"role":"tool","tool_call_id":"c1","content":"ok"},
                {"role":"user","content":[{"type":"text","text":"a\"b"},{"type":"image_url","image_url":{"url":"x"}}]}],
                "stream":true}"#,
            ),
            (chat, r#"{"messages":"not a list","model":"m"}"#),
            (chat, r#"{"model":"m","messages":[]}"#),
            (
                anthropic,
                r#"{"model":"claude-sonnet-4-5","system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],
                "metadata":{"user_id":"user_x_account__session_5f0c1a4e-0000-4000-8000-000000000000"},
                "messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]},
                {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}]}"#,
            ),
            (
                responses,
                r#"{"model":"o3","instructions":"ins","input":[{"role":"user","content":"q"},
                {"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"o"}],
                "previous_response_id":"resp_1"}"#,
            ),
            (responses, r#"{"model":"o3","input":"just a string"}"#),
        ] {
            let (whole, by) = both(format, doc);
            assert_eq!(Some(whole), by, "{doc}");
        }
        // A member that is a long array of scalars (token ids) is given to
        // the parser empty: the same request as read whole, whatever the
        // body format.
        let ids = format!("[{}]", vec!["0"; 40_000].join(","));
        assert!(is_large_scalar_array(&ids) && !is_large_scalar_array("[1, 2]"));
        assert!(!is_large_scalar_array(&format!("[{}, \"a\"]", vec!["0"; 40_000].join(","))));
        for (format, doc) in [
            (chat, format!(r#"{{"model":"m","x":{ids},"messages":[{{"role":"user","content":"q"}}],"y":{ids}}}"#)),
            (anthropic, format!(r#"{{"model":"m","messages":[{{"role":"user","content":"q"}}],"x":{ids}}}"#)),
            (responses, format!(r#"{{"model":"m","input":[{{"role":"user","content":"q"}}],"x":[{ids}]}}"#)),
        ] {
            let (whole, by) = both(format, &doc);
            assert_eq!(Some(whole), by);
        }
    }

    #[test]
    fn a_body_that_does_not_read_by_elements_is_read_whole() {
        let chat = super::super::openai_chat::ID;
        // A repeated member: serde_json keeps the last one; read whole.
        let (_, by) = both(chat, r#"{"messages":[{"role":"user","content":"a"}],"messages":[]}"#);
        assert_eq!(by, None);
        let path: Arc<str> = "b.json".into();
        let Some(Read::Body { elements: Some(el), .. }) = descriptor(chat).map(|d| d.read) else { panic!() };
        for bad in ["[]", "{\"messages\":[{]}", "{\"messages\":[]} x", "", "{\"messages\":[{\"role\":tru}]}"] {
            assert!(parse_body_by_elements(chat, el, bad.as_bytes(), &path).is_none(), "{bad}");
            assert!(stream_body(&memory(bad), chat, el, &path, false).is_none(), "{bad}");
        }
    }
}
