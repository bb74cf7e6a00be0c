//! Input formats: detection by content (SPEC §1) and the registry of loaders.
//! One file per format; each documents the upstream source of its facts.

pub mod anthropic;
pub mod bedrock;
pub mod body;
pub mod claude_code;
pub mod codex_rollout;
pub mod exchange_log;
pub mod gemini;
pub mod jsonl;
pub mod openai_chat;
pub mod openai_responses;
pub mod pi_session;
pub mod pydantic_ai;
pub mod vcr_cassette;

use crate::error::{Error, Result};
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// Every format id, in the order detection tries them.
pub const ALL: &[FormatId] = &[
    pi_session::ID,
    claude_code::ID,
    codex_rollout::ID,
    exchange_log::ID,
    pydantic_ai::ID,
    gemini::ID,
    openai_responses::ID,
    bedrock::ID,
    anthropic::ID,
    openai_chat::ID,
    vcr_cassette::ID,
];

/// Whether `f` is a transcript format (pi session, Claude Code, Codex rollout).
pub fn is_transcript(f: FormatId) -> bool {
    matches!(f, "pi-session" | "claude-code" | "codex-rollout")
}

/// Formats whose files are single request bodies (several in one directory form a stream).
pub fn is_body_format(f: FormatId) -> bool {
    matches!(
        f,
        "openai-chat"
            | "openai-responses"
            | "anthropic-messages"
            | "gemini"
            | "bedrock-converse"
            | "pydantic-ai-history"
    )
}

/// Loading options.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--input-format`: skip detection.
    pub forced: Option<FormatId>,
    /// Which texts of a transcript's messages to keep (`check` keeps the
    /// prompt side; `show` and reloads keep all as loaded).
    pub texts: crate::packed::Texts,
}

/// Looks a format id up (`--input-format`).
pub fn parse_format_id(s: &str) -> Option<FormatId> {
    ALL.iter().copied().find(|f| *f == s)
}

/// How many bytes detection reads from the start of an input.
const PEEK: usize = 256 * 1024;

/// Detects the format of an input by its content, or `None`.
pub fn detect(src: &SourceRef) -> Result<Option<FormatId>> {
    let head = src.peek(PEEK)?;
    // Work on bytes: only the first few lines are ever decoded.
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let Some(start) = body.iter().position(|c| !c.is_ascii_whitespace()) else {
        return Ok(None);
    };
    let t = &body[start..];
    let blank = |l: &[u8]| l.iter().all(u8::is_ascii_whitespace);
    if t[0] == b'{' || t[0] == b'[' {
        // JSONL: the first lines that parse decide. When the peek holds no
        // complete line (a first line longer than PEEK, e.g. a pasted image),
        // the first lines are read whole (issue 7: such sessions were "not a
        // recognised input format").
        let mut complete_lines: Vec<String> = Vec::new();
        let mut rest = t;
        while complete_lines.len() < 8 {
            let (line, more) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                // The last piece is a whole line only when the peek holds the whole input.
                None if head.len() < PEEK => (rest, None),
                None => break,
            };
            if !blank(line) {
                complete_lines.push(String::from_utf8_lossy(line).into_owned());
            }
            match more {
                Some(m) => rest = m,
                None => break,
            }
        }
        if complete_lines.is_empty() && head.len() >= PEEK {
            let mut lr = src.lines()?;
            while let Some(l) = lr.next_line().map_err(|e| Error::io(&src.display, e))? {
                if !l.too_long && !blank(l.bytes) {
                    complete_lines.push(String::from_utf8_lossy(l.bytes).trim_start_matches('\u{feff}').to_string());
                }
                if complete_lines.len() >= 2 || l.no >= 8 {
                    break;
                }
            }
        }
        let mut objects = 0;
        for line in complete_lines.iter().filter(|l| !l.trim().is_empty()).take(8) {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                if let Some(f) = sniff_jsonl_record(&v) {
                    return Ok(Some(f));
                }
                objects += 1;
                if objects >= 2 {
                    break;
                }
            }
        }
        // A whole JSON document.
        let bytes = src.read_all()?;
        if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
            return Ok(sniff_body(&v));
        }
        return Ok(None);
    }
    let has = |needle: &[u8]| memchr::memmem::find(t, needle).is_some();
    if t.starts_with(b"interactions:") || has(b"\ninteractions:") || t.starts_with(b"---") && has(b"interactions:") {
        return Ok(Some(vcr_cassette::ID));
    }
    Ok(None)
}

/// Recognises one JSONL record (SPEC §1 "recognised by").
pub fn sniff_jsonl_record(v: &Value) -> Option<FormatId> {
    let o = v.as_object()?;
    let ty = o.get("type").and_then(Value::as_str);
    if pi_session::sniff(v) {
        return Some(pi_session::ID);
    }
    if o.contains_key("payload")
        && o.contains_key("timestamp")
        && matches!(ty, Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"))
    {
        return Some(codex_rollout::ID);
    }
    // Legacy Codex rollouts (CLI < 0.3): `{"record_type":"state"}` lines and
    // a bare session header `{id, timestamp, instructions}`.
    if (o.contains_key("record_type") && o.len() <= 3)
        || (ty.is_none()
            && !o.contains_key("request")
            && o.contains_key("id")
            && o.contains_key("timestamp")
            && o.contains_key("instructions"))
    {
        return Some(codex_rollout::ID);
    }
    if ty.is_some()
        && (o.contains_key("uuid")
            || o.contains_key("parentUuid")
            || o.contains_key("sessionId")
            || o.contains_key("leafUuid")
            || ty == Some("summary"))
    {
        return Some(claude_code::ID);
    }
    // Claude Code usage-only lines (no `type`): `sessionId` and an assistant `message`.
    if ty.is_none()
        && !o.contains_key("request")
        && o.contains_key("sessionId")
        && o.get("message").and_then(|m| m.get("role")).and_then(Value::as_str) == Some("assistant")
    {
        return Some(claude_code::ID);
    }
    if o.get("request").is_some_and(Value::is_object) {
        return Some(exchange_log::ID);
    }
    None
}

/// Recognises a request body (or a pydantic-ai history).
pub fn sniff_body(v: &Value) -> Option<FormatId> {
    if v.is_array() {
        return pydantic_ai::sniff(v).then_some(pydantic_ai::ID);
    }
    if !v.is_object() {
        return None;
    }
    if gemini::sniff(v) {
        Some(gemini::ID)
    } else if openai_responses::sniff(v) {
        Some(openai_responses::ID)
    } else if bedrock::sniff(v) {
        Some(bedrock::ID)
    } else if anthropic::sniff(v) {
        Some(anthropic::ID)
    } else if openai_chat::sniff(v) {
        Some(openai_chat::ID)
    } else {
        None
    }
}

/// Parses a body of a known format into a request.
pub fn parse_body(format: FormatId, v: &Value, path: &Arc<str>, index: usize, base: &str) -> Option<Request> {
    Some(match format {
        "anthropic-messages" => anthropic::parse(v, path, index, base),
        "openai-chat" => openai_chat::parse(v, path, index, base),
        "openai-responses" => openai_responses::parse(v, path, index, base),
        "gemini" => gemini::parse(v, path, index, base),
        "bedrock-converse" => bedrock::parse(v, path, index, base),
        "pydantic-ai-history" => pydantic_ai::parse(v, path, index, base),
        _ => return None,
    })
}

/// Loads one input of a known format. Body formats give a one-request stream.
pub fn load(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    // A compressed input cannot be read again at an offset: keep every text
    // rather than decompress it from the start for each excerpt.
    let keep_all;
    let opts = if opts.texts == crate::packed::Texts::Compact && is_transcript(format) && src.is_compressed() {
        keep_all = LoadOptions { texts: crate::packed::Texts::AsLoaded, ..opts.clone() };
        &keep_all
    } else {
        opts
    };
    let mut input = load_format(src, format, opts)?;
    if let Body::Transcript(t) = &mut input.body {
        t.source = Some(src.clone());
        t.messages.seal();
    }
    Ok(input)
}

/// The message of entry `e` of transcript `t` (of `format`) with every text
/// as its loader gives it (see [`crate::packed::Texts`]): the entry's line is
/// read again from the transcript's source and loaded on its own. `None` when
/// the line cannot be read or is no longer the line that was checked (the
/// file changed since), or carries no message.
pub fn reload_message(format: FormatId, t: &Transcript, e: &Entry) -> Option<Message> {
    let src = t.source.as_ref()?;
    let bytes = reload_line(t, e)?;
    let one = SourceRef { display: src.display.clone(), origin: crate::source::Origin::Memory(bytes.into()) };
    let opts = LoadOptions { forced: Some(format), texts: crate::packed::Texts::AsLoaded };
    let input = load_format(&one, format, &opts).ok()?;
    let t = input.as_transcript()?;
    t.message(t.entries.first()?)
}

/// The raw bytes of an entry's line, read again from its file (at its byte
/// offset; from the start for compressed files) and verified by length and
/// hash; `None` when the file is gone or the line changed.
pub fn reload_line(t: &Transcript, e: &Entry) -> Option<Vec<u8>> {
    let src = t.source.as_ref()?;
    let bytes = match src.lines_at(&[e.offset]) {
        Some(mut v) => v.pop()?,
        // Compressed: no seeking; read up to the line.
        None => {
            let mut lines = src.lines().ok()?;
            loop {
                let l = lines.next_line().ok()??;
                if l.no == e.line {
                    break l.bytes.to_vec();
                }
            }
        }
    };
    (bytes.len() == e.len as usize && crate::hash::hash_bytes(&bytes) == e.raw_hash).then_some(bytes)
}

fn load_format(src: &SourceRef, format: FormatId, opts: &LoadOptions) -> Result<Input> {
    match format {
        "pi-session" => pi_session::load(src, opts),
        "claude-code" => claude_code::load(src, opts),
        "codex-rollout" => codex_rollout::load(src, opts),
        "exchange-log" => exchange_log::load(src, opts),
        "vcr-cassette" => vcr_cassette::load(src, opts),
        f if is_body_format(f) => load_body_file(src, f),
        other => Err(Error::BadInput {
            path: src.display.clone().into(),
            format: other.to_string(),
            reason: "this format is not supported yet".into(),
        }),
    }
}

/// Resolves parent ids to entry indices while a transcript is assembled in
/// line order, without holding every parent id until the end: a parent
/// already seen (the usual case) resolves at once; a parent named before it
/// appears waits in a short list until [`ParentIds::finish`].
///
/// Ids are found by their 64-bit hash and confirmed against the entry's id,
/// so distinct ids that share a hash still resolve correctly.
#[derive(Default)]
pub struct ParentIds {
    /// Hash of an id → the first entry with that id.
    first: foldhash::HashMap<u64, u32>,
    /// Ids whose hash an earlier, different id already took → first entry.
    collided: foldhash::HashMap<Box<str>, u32>,
    /// (entry, parent id) not found when the entry was added.
    pending: Vec<(u32, Box<str>)>,
    /// (entry, first entry with the same id).
    repeats: Vec<(u32, u32)>,
}

impl ParentIds {
    /// Room for about `n` ids.
    pub fn reserve(&mut self, n: usize) {
        self.first.reserve(n);
    }

    fn find(&self, entries: &[Entry], id: &str) -> Option<u32> {
        let j = *self.first.get(&crate::hash::hash_str(id))?;
        if entries[j as usize].id.as_deref() == Some(id) {
            return Some(j);
        }
        self.collided.get(id).copied()
    }

    /// Adds `e` as entry `entries.len()` (call before pushing it): records
    /// its id, and sets its parent from `parent` — `None`: no parent (a
    /// root), `Some(id)`: that entry's, once known.
    pub fn add(&mut self, entries: &[Entry], e: &mut Entry, parent: Option<&str>) {
        let i = entries.len() as u32;
        // The parent first, among the entries before this one.
        e.parent = match parent {
            None => Parent::Root,
            Some(pid) => match self.find(entries, pid) {
                Some(j) => Parent::Entry(j),
                // An entry naming itself is kept (context.rs detects cycles).
                None if e.id.as_deref() == Some(pid) => Parent::Entry(i),
                None => {
                    self.pending.push((i, pid.into()));
                    Parent::Root
                }
            },
        };
        if let Some(id) = e.id.as_deref() {
            match self.find(entries, id) {
                Some(first) => self.repeats.push((i, first)),
                None => match self.first.entry(crate::hash::hash_str(id)) {
                    std::collections::hash_map::Entry::Occupied(_) => {
                        self.collided.insert(id.into(), i);
                    }
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(i);
                    }
                },
            }
        }
    }

    /// Resolves the parents named before they appeared (to a later entry, or
    /// [`Parent::Dangling`]) and records repeated ids in [`Transcript::id_repeats`].
    pub fn finish(self, t: &mut Transcript) {
        for (i, pid) in &self.pending {
            let parent = match self.find(&t.entries, pid) {
                Some(j) => Parent::Entry(j),
                None => {
                    t.dangling_ids.push(pid.clone());
                    Parent::Dangling(t.dangling_ids.len() as u32 - 1)
                }
            };
            t.entries[*i as usize].parent = parent;
        }
        t.id_repeats =
            self.repeats.into_iter().map(|(entry, first)| IdRepeat { entry, first, same_content: None }).collect();
    }
}

/// Links the entries of a transcript without ids linearly: each entry's parent is the one before.
pub fn link_linearly(t: &mut Transcript) {
    for (i, e) in t.entries.iter_mut().enumerate() {
        e.parent = if i == 0 { Parent::Root } else { Parent::Entry(i as u32 - 1) };
    }
}

/// Decides for each repeated id whether the two entries have the same JSON
/// content (key order and whitespace aside): byte-identical lines do; others
/// are re-read from the source and compared canonically.
pub fn fill_id_repeats(src: &SourceRef, t: &mut Transcript) {
    use std::collections::BTreeSet;
    let mut wanted = BTreeSet::new();
    for r in &mut t.id_repeats {
        let (a, b) = (&t.entries[r.first as usize], &t.entries[r.entry as usize]);
        if a.raw_hash == b.raw_hash {
            r.same_content = Some(true);
        } else {
            wanted.insert(a.line);
            wanted.insert(b.line);
        }
    }
    if !wanted.is_empty() {
        compare_repeats(src, t, &wanted);
    }
    // An entry written again with the same content is a storage defect
    // (`not-append-only`), not a second node of the tree.
    for r in t.id_repeats.clone() {
        if r.same_content == Some(true) {
            let e = &mut t.entries[r.entry as usize];
            e.parent = Parent::Detached;
            e.class = Class::Bookkeeping;
            e.is_model_call = false;
        }
    }
}

fn compare_repeats(src: &SourceRef, t: &mut Transcript, wanted: &std::collections::BTreeSet<u32>) {
    use std::collections::HashMap;
    let mut hashes: HashMap<u32, u64> = HashMap::new();
    if let Ok(mut lr) = src.lines() {
        while let Ok(Some(l)) = lr.next_line() {
            if wanted.contains(&l.no) {
                if let Ok(v) = serde_json::from_slice::<Value>(l.bytes) {
                    hashes.insert(l.no, crate::hash::canonical_hash(&v, &[]));
                }
            }
        }
    }
    for r in &mut t.id_repeats {
        if r.same_content.is_none() {
            let (a, b) = (t.entries[r.first as usize].line, t.entries[r.entry as usize].line);
            r.same_content = match (hashes.get(&a), hashes.get(&b)) {
                (Some(x), Some(y)) => Some(x == y),
                _ => Some(false),
            };
        }
    }
}

/// Loads a single request-body file as a one-request stream.
pub fn load_body_file(src: &SourceRef, format: FormatId) -> Result<Input> {
    let bytes = src.read_all()?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| Error::BadInput {
        path: src.display.clone().into(),
        format: format.to_string(),
        reason: format!("not valid JSON: {e}"),
    })?;
    let path: Arc<str> = src.display.as_str().into();
    let mut req =
        parse_body(format, &v, &path, 0, "").ok_or_else(|| Error::Internal(format!("no body parser for {format}")))?;
    req.raw = Some(String::from_utf8_lossy(&bytes).into_owned().into());
    Ok(Input {
        path: src.display.clone(),
        format,
        body: Body::Stream(Stream { requests: vec![req] }),
        bad_lines: Vec::new(),
        skipped: 0,
        unknown_records: 0,
    })
}

/// Joins single-request inputs (files of one body format in one directory, in
/// natural filename order) into one stream input named `dir`.
pub fn join_stream(dir: &str, format: FormatId, inputs: Vec<Input>) -> Input {
    let mut requests = Vec::new();
    for inp in inputs {
        if let Body::Stream(s) = inp.body {
            requests.extend(s.requests);
        }
    }
    for (i, r) in requests.iter_mut().enumerate() {
        r.index = i;
    }
    Input {
        path: dir.to_string(),
        format,
        body: Body::Stream(Stream { requests }),
        bad_lines: Vec::new(),
        skipped: 0,
        unknown_records: 0,
    }
}

/// Loads `text` (held in memory, named `name`) with `load`, for unit tests.
#[cfg(test)]
pub(crate) fn load_str_for_test(load: fn(&SourceRef, &LoadOptions) -> Result<Input>, name: &str, text: &str) -> Input {
    let src =
        SourceRef { display: name.into(), origin: crate::source::Origin::Memory(text.as_bytes().to_vec().into()) };
    load(&src, &LoadOptions::default()).expect("loads")
}

#[cfg(test)]
mod parent_ids_tests {
    use super::ParentIds;
    use crate::model::{Entry, Parent, Transcript};

    fn entry(no: u32, id: &str) -> Entry {
        let line = crate::source::Line { no, offset: 0, bytes: b"{}", terminated: true, too_long: false, len: 2 };
        let mut e = Entry::at(&line, "message", 0);
        e.id = Some(id.into());
        e
    }

    /// Adds (id, parent) pairs in order; returns the transcript.
    fn build(rows: &[(&str, Option<&str>)], tweak: impl FnOnce(&mut ParentIds)) -> Transcript {
        let mut t = Transcript::default();
        let mut p = ParentIds::default();
        tweak(&mut p);
        for (n, (id, parent)) in rows.iter().enumerate() {
            let mut e = entry(n as u32 + 1, id);
            p.add(&t.entries, &mut e, *parent);
            t.entries.push(e);
        }
        p.finish(&mut t);
        t
    }

    #[test]
    fn earlier_later_self_missing_and_repeated_parents() {
        let t = build(
            &[("a", None), ("b", Some("a")), ("c", Some("d")), ("d", Some("d")), ("a", Some("zz")), ("e", Some("a"))],
            |_| {},
        );
        let parents: Vec<Parent> = t.entries.iter().map(|e| e.parent).collect();
        assert_eq!(
            parents,
            vec![
                Parent::Root,
                Parent::Entry(0),
                Parent::Entry(3), // named before it appears
                Parent::Entry(3), // itself
                Parent::Dangling(0),
                Parent::Entry(0), // the first entry with a repeated id
            ]
        );
        assert_eq!(&*t.dangling_ids[0], "zz");
        assert_eq!(t.id_repeats.len(), 1);
        assert_eq!((t.id_repeats[0].entry, t.id_repeats[0].first), (4, 0));
    }

    #[test]
    fn ids_sharing_a_hash_still_resolve() {
        // Pretend "b" hashes like an entry with id "x" (which it is not): "b"
        // must go to the collision table and still be found.
        let t = build(&[("x", None), ("b", Some("x")), ("c", Some("b"))], |p| {
            p.first.insert(crate::hash::hash_str("b"), 0);
        });
        let parents: Vec<Parent> = t.entries.iter().map(|e| e.parent).collect();
        assert_eq!(parents, vec![Parent::Root, Parent::Entry(0), Parent::Entry(1)]);
        assert!(t.id_repeats.is_empty());
    }
}

#[cfg(test)]
mod reload_tests {
    use super::*;

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
        let input = load(&src, "pi-session", &LoadOptions::default()).unwrap();
        let t = input.as_transcript().unwrap();
        let e = &t.entries[0];
        assert!(t.message(e).unwrap().blocks[0].text_dropped);
        let full = reload_message("pi-session", t, e).unwrap();
        assert_eq!(&*full.blocks[0].text, "a model-side text that is longer than thirty-two bytes");
        // The same length, other bytes: the file changed since it was read.
        std::fs::write(&p, LINES.replace("longer", "LONGER")).unwrap();
        assert!(reload_message("pi-session", t, e).is_none());
        std::fs::remove_file(&p).unwrap();
        assert!(reload_message("pi-session", t, e).is_none());
    }
}
