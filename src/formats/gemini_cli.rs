//! `gemini-cli`: Gemini CLI chat recordings
//! (`~/.gemini/tmp/<project hash>/chats/session-*.jsonl`, and the older
//! whole-file `session-*.json`).
//!
//! Format facts from google-gemini/gemini-cli
//! `packages/core/src/services/chatRecordingService.ts` and
//! `chatRecordingTypes.ts` (commit 5411f113, 2026-08) and
//! `packages/core/src/utils/sessionUtils.ts` (`convertSessionToClientHistory`,
//! how a recording becomes the model's history again):
//! - JSONL, one record a line, appended (`appendRecord`). The first line is
//!   the metadata `{sessionId, projectHash, startTime, lastUpdated, kind?}`.
//! - A message record is `{id, timestamp, type, content, displayContent?}`
//!   with `type` `user`, `gemini`, `info`, `error` or `warning`; a `gemini`
//!   record adds `toolCalls[]` (`{id, name, args, result?, status, …}`),
//!   `thoughts[]`, `tokens`, `model`. `content` is a `PartListUnion` (a
//!   string, one `Part` or a list of them).
//! - The reader keeps the **last record per id** in a map ordered by each
//!   id's first appearance (`loadConversationRecord`): a record repeating an
//!   earlier id is an update of that message by design (`pushMessage`:
//!   tokens, tool calls and their results are added by writing the whole
//!   message again), never a duplicate.
//! - `{"$rewindTo": id}` removes that message and every later one; the next
//!   message continues from the one before it (a fork, here: the removed
//!   messages stay in the tree as a branch that was sent before).
//! - `{"$set": {…}}` updates metadata; with `messages` it is a checkpoint
//!   that replaces the whole history (masking of tool output, compression):
//!   a rewrite by design, read as a compaction boundary whose content is the
//!   new history.
//! - What is sent (`convertSessionToClientHistory`): `info`, `error` and
//!   `warning` records never; `user` records unless their text starts with
//!   `/`, `?` (commands), `<session_context>` or `<hook_context>` (injected
//!   context, sent but not a user turn: [`MessageKind::Meta`] here); a `gemini`
//!   record as a `model` turn — its `content` parts when they hold function
//!   calls or thoughts, else its thoughts, content and `toolCalls` as
//!   `functionCall` parts — followed by a `user` turn of the calls' results
//!   (`functionResponse`s; id `<message id>_response`). A call without a
//!   `result` is sent without a response. Builds 0.6x also record the live
//!   results as a `user` record of `functionResponse` parts; resuming such a
//!   session sends each result twice (seen with 0.61.0 against a stub
//!   provider: the resumed request's user turn held both copies). Steps here
//!   are the live requests: the `user` record's results count, and the
//!   results entry built from `toolCalls[].result` is dropped for calls it
//!   answers. The doubled results of a resumed request are not reported.
//!
//! Every record is an upsert by design (messages by id, metadata patches,
//! the metadata line a resume writes again), so lines written again are
//! never `not-append-only` here; `fence` judges rewrites.
//!
//! Each message record is one entry (a `gemini` record with results is two:
//! the model turn, and its results with id `<id>_response`, both at the
//! record's line). An `error` record stands for a failed attempt (a stub that
//! is never sent, like a Codex `error` event). Entries hang in map order:
//! each one's parent is the last message before it; an update takes the
//! place of the record it updates, which becomes bookkeeping.
//!
//! Qwen Code's recordings (`~/.qwen/projects/<project>/chats/<session>.jsonl`)
//! are read by [`load_qwen`]: see its documentation.

use super::body::{chash, message, text_block};
use super::gemini::{Pairing, part_block};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::{Line, SourceRef};
use serde_json::Value;
use std::collections::HashMap;

/// Format id.
pub const ID: FormatId = "gemini-cli";

/// [`Header::version`] of a legacy whole-file chat (one JSON document:
/// pointers go into the document, not into one line's object).
pub const DOCUMENT_VERSION: u32 = 1;

/// [`Header::version`] of a JSONL recording.
pub const JSONL_VERSION: u32 = 2;

/// Whether `input` is a legacy whole-file chat ([`DOCUMENT_VERSION`]).
pub fn is_document(input: &Input) -> bool {
    input.format == ID
        && input.as_transcript().and_then(|t| t.header.as_ref()).is_some_and(|h| h.version == DOCUMENT_VERSION)
}

/// Message record types (`ConversationRecordExtra.type`).
const TYPES: &[&str] = &["user", "gemini", "info", "error", "warning"];

/// Whether a JSONL record is Gemini CLI's: the metadata line, a message
/// record, a `$set` or `$rewindTo` record.
pub fn sniff_record(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let st = |k: &str| o.get(k).is_some_and(Value::is_string);
    (st("sessionId") && st("projectHash"))
        || (o.len() == 1 && (st("$rewindTo") || o.get("$set").is_some_and(Value::is_object)))
        || (st("id")
            && st("timestamp")
            && o.contains_key("content")
            && o.get("type").and_then(Value::as_str).is_some_and(|t| TYPES.contains(&t)))
}

/// Whether a whole JSON document is a legacy Gemini CLI chat
/// (`ConversationRecord`: `sessionId`, `projectHash`, `messages[]`).
pub fn sniff_document(v: &Value) -> bool {
    v.get("sessionId").is_some_and(Value::is_string)
        && v.get("projectHash").is_some_and(Value::is_string)
        && v.get("messages").is_some_and(Value::is_array)
}

/// Whether a JSONL record is Qwen Code's: `uuid`, `sessionId`, a `type` and a
/// `message` holding Gemini `parts` (Claude Code's records hold `content`), or
/// a `system` record with a `systemPayload` object (Claude Code's `system`
/// records have none).
pub fn sniff_qwen_record(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    o.get("uuid").is_some_and(Value::is_string)
        && o.contains_key("sessionId")
        && o.get("type").and_then(Value::as_str).is_some_and(|t| QWEN_TYPES.contains(&t))
        && (o.get("message").and_then(|m| m.get("parts")).is_some_and(Value::is_array)
            || (o.get("type").and_then(Value::as_str) == Some("system")
                && o.contains_key("subtype")
                && o.get("systemPayload").is_some_and(Value::is_object)))
}

/// The record facts of a Gemini CLI or Qwen Code recording (used by the
/// loaders and by `fence`). Gemini CLI writes every record of its chat
/// (`chatRecordingService.ts`): message records (`id`, `type`), `$set` and
/// `$rewindTo` records, and the metadata line (`sessionId`, `projectHash`);
/// the kind is the message `type`, or `$set` / `$rewindTo` / `metadata`. A
/// repeated id is an update by design, so ids are not tree ids. Qwen Code's
/// `uuid` / `parentUuid` records (`type` user, assistant, tool_result,
/// system) repeat a uuid by design too (`aggregateRecords`).
pub static SCHEMA: super::record::RecordSchema = super::record::RecordSchema {
    format: ID,
    classify: classify_line,
    id_keys: &["id", "uuid", "sessionId"],
    sessions: super::record::Sessions::Unchecked,
};

fn classify_line<'a>(
    bytes: &'a [u8],
    _: &super::record::Context,
) -> std::result::Result<super::record::Record<'a>, String> {
    let v: serde_json::Map<String, Value> = super::record::parse_object(bytes, "Gemini CLI record")?;
    Ok(record(&v).into_owned())
}

/// The record facts of one parsed record.
fn record(m: &serde_json::Map<String, Value>) -> super::record::Record<'_> {
    use super::record::{Record, value_str};
    use std::borrow::Cow;
    let mut r = Record { runner_writes: true, ..Default::default() };
    let kind = value_str(m, "type");
    if m.contains_key("uuid") {
        r.session = value_str(m, "sessionId");
        if kind.is_none() {
            r.problem = Some("record has no `type`".into());
        }
        r.kind = kind;
        return r;
    }
    r.kind = if m.contains_key("$rewindTo") {
        Some(Cow::Borrowed("$rewindTo"))
    } else if m.contains_key("$set") {
        Some(Cow::Borrowed("$set"))
    } else if m.contains_key("sessionId") && m.contains_key("projectHash") {
        Some(Cow::Borrowed("metadata"))
    } else if m.get("id").is_some_and(Value::is_string) && kind.is_some() {
        kind
    } else {
        r.problem =
            Some("record is neither a message (`id` and `type`), a `$set`, a `$rewindTo` nor the metadata line".into());
        kind
    };
    r
}

/// Qwen Code `ChatRecord.type`s.
const QWEN_TYPES: &[&str] = &["user", "assistant", "tool_result", "system"];

/// Loads a Gemini CLI recording (JSONL or a legacy whole-file JSON document)
/// or a Qwen Code recording.
pub fn load(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let head = src.peek(super::PEEK)?;
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let first = body.iter().position(|c| !c.is_ascii_whitespace()).map(|i| &body[i..]).unwrap_or_default();
    let first_line = first.split(|&c| c == b'\n').next().unwrap_or_default();
    match serde_json::from_slice::<Value>(first_line) {
        Ok(v) if sniff_qwen_record(&v) => return load_qwen(src, opts),
        Ok(_) => {}
        Err(_) if first.starts_with(b"{") => {
            // A pretty-printed document: the legacy whole-file chat.
            let bytes = src.read_all()?;
            if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
                if sniff_document(&v) {
                    return load_document(src, &bytes, &v);
                }
            }
        }
        Err(_) => {}
    }
    if !first_line.is_empty() {
        // One line holding the whole legacy record is a document too.
        if let Ok(v) = serde_json::from_slice::<Value>(first_line) {
            if sniff_document(&v) && v.get("messages").and_then(Value::as_array).is_some_and(|m| !m.is_empty()) {
                let rest = &first[first_line.len()..];
                if rest.iter().all(u8::is_ascii_whitespace) {
                    return load_document(src, &src.read_all()?, &v);
                }
            }
        }
    }
    load_jsonl(src, opts)
}

/// One live message of the map the runtime keeps: its entries (the model
/// turn and, when it has results, the results entry).
#[derive(Clone, Copy)]
struct Live {
    first: u32,
    last: u32,
    /// Canonical hash of the record that wrote it (0 inside a checkpoint).
    content: u64,
}

/// The runtime's map of messages, in order of first appearance.
#[derive(Default)]
struct Chain {
    order: Vec<(Box<str>, Live)>,
}

impl Chain {
    fn position(&self, id: &str) -> Option<usize> {
        self.order.iter().rposition(|(k, _)| &**k == id)
    }
    fn tip_before(&self, k: usize) -> Parent {
        match k.checked_sub(1).and_then(|i| self.order.get(i)) {
            Some((_, l)) => Parent::Entry(l.last),
            None => Parent::Root,
        }
    }
}

fn load_jsonl(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let texts = opts.texts;
    let mut t = Transcript::default();
    let mut unknown = 0usize;
    let mut chain = Chain::default();
    let mut seen_ids: HashMap<Box<str>, u32> = HashMap::new();
    // The latest version of every message written, by id.
    let mut known: HashMap<Box<str>, Live> = HashMap::new();
    let (bad_lines, lines) = jsonl::read_lines(src, |line| {
        let hash = hash_bytes(line.bytes);
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => return jsonl::LineVerdict::Malformed(jsonl::describe_line_error(line.bytes, &e)),
        };
        let Some(obj) = v.as_object() else {
            unknown += 1;
            t.push_other_line(line.no, hash, false);
            return jsonl::LineVerdict::Ok;
        };
        let rec = record(obj);
        let kind = rec.kind.as_deref();
        if let (Some("$rewindTo"), Some(id)) = (kind, v.get("$rewindTo").and_then(Value::as_str)) {
            match chain.position(id) {
                Some(k) => chain.order.truncate(k),
                None => chain.order.clear(),
            }
            // Metadata patches and rewinds are idempotent: written again by
            // design (each resume writes the same `$set {sessionId}`).
            t.push_other_line(line.no, hash, true);
            return jsonl::LineVerdict::Ok;
        }
        if let (Some("$set"), Some(set)) = (kind, v.get("$set")) {
            match set.get("messages").and_then(Value::as_array) {
                Some(msgs) => {
                    // The history as it now stands (`loadConversationRecord`
                    // clears and rebuilds its map): a message already written
                    // with the same content at the same place is kept; the
                    // others are written here (the first history of a session,
                    // the history a resume writes again, masked tool output,
                    // a compression's summary).
                    let mut order = Vec::with_capacity(msgs.len());
                    let mut tip = Parent::Root;
                    let before = t.entries.len();
                    for (k, msg) in msgs.iter().enumerate() {
                        let Some(id) = msg.get("id").and_then(Value::as_str) else { continue };
                        let h = chash(msg);
                        if let Some(l) =
                            known.get(id).filter(|l| l.content == h && t.entries[l.first as usize].parent == tip)
                        {
                            order.push((Box::from(id), *l));
                            tip = Parent::Entry(l.last);
                            continue;
                        }
                        let base = format!("/$set/messages/{k}");
                        let first = t.entries.len() as u32;
                        for (mut e, packed) in record_entries(msg, line, hash, &base, texts, &mut unknown, true) {
                            e.parent = tip;
                            tip = Parent::Entry(t.entries.len() as u32);
                            t.push(e, packed.as_deref());
                            // Written by design: a second resume writes the same line again.
                            t.mark_last_exempt();
                        }
                        if t.entries.len() as u32 > first {
                            let live = Live { first, last: t.entries.len() as u32 - 1, content: h };
                            known.insert(id.into(), live);
                            order.push((id.into(), live));
                        }
                    }
                    chain.order = order;
                    if t.entries.len() == before {
                        t.push_other_line(line.no, hash, true);
                    }
                }
                // Metadata patches are idempotent: written again by design
                // (each resume writes the same `$set {sessionId}`).
                None => t.push_other_line(line.no, hash, true),
            }
            return jsonl::LineVerdict::Ok;
        }
        if kind == Some("metadata") && v.get("sessionId").is_some_and(Value::is_string) {
            if t.header.is_none() {
                t.header = Some(Header {
                    line: line.no,
                    version: JSONL_VERSION,
                    session_id: v.get("sessionId").and_then(Value::as_str).map(Into::into),
                });
            }
            // Written again by design: a resume appends the metadata line again.
            t.push_other_line(line.no, hash, true);
            return jsonl::LineVerdict::Ok;
        }
        let Some(id) = v.get("id").and_then(Value::as_str) else {
            unknown += 1;
            t.push_other_line(line.no, hash, false);
            return jsonl::LineVerdict::Ok;
        };
        let update = seen_ids.contains_key(id);
        let (parent, replaces) = match chain.position(id) {
            Some(k) => (chain.tip_before(k), Some(k)),
            None => (chain.tip_before(chain.order.len()), None),
        };
        let entries = record_entries(&v, line, hash, "", texts, &mut unknown, false);
        let first = t.entries.len() as u32;
        let mut prev = parent;
        for (n, (mut e, packed)) in entries.into_iter().enumerate() {
            e.parent = prev;
            prev = Parent::Entry(t.entries.len() as u32);
            t.push(e, packed.as_deref());
            // An update, or the results entry sharing the record's line, is
            // written by design: never a repeated line.
            if update || n > 0 {
                t.mark_last_exempt();
            }
        }
        let last = t.entries.len() as u32 - 1;
        let live = Live { first, last, content: chash(&v) };
        match replaces {
            Some(k) => {
                // The earlier version is superseded: bookkeeping, off the tree.
                let old = chain.order[k].1;
                if t.entries[old.first as usize].class != Class::Compaction {
                    for i in old.first..=old.last {
                        let e = &mut t.entries[i as usize];
                        e.class = Class::Bookkeeping;
                        e.is_model_call = false;
                        e.parent = Parent::Detached;
                    }
                }
                chain.order[k].1 = live;
                if let Some((_, next)) = chain.order.get(k + 1) {
                    if t.entries[next.first as usize].class != Class::Compaction {
                        t.entries[next.first as usize].parent = Parent::Entry(last);
                    }
                }
            }
            None => chain.order.push((id.into(), live)),
        }
        known.insert(id.into(), live);
        seen_ids.entry(id.into()).or_insert(first);
        jsonl::LineVerdict::Ok
    })?;
    t.lines = lines;
    t.has_ids = false;
    drop_answered_results(&mut t);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

/// Newer builds (0.6x) also record the results the live chat sent as a
/// `user` record of `functionResponse` parts after the `gemini` record; the
/// live request held those once, so a results entry built from
/// `toolCalls[].result` whose calls such a record answers is dropped (it is
/// what a resumed session adds: see the module documentation).
fn drop_answered_results(t: &mut Transcript) {
    let mut answered: std::collections::HashSet<Box<str>> = std::collections::HashSet::new();
    for e in &t.entries {
        if e.etype() == "user" && e.class == Class::Conversation {
            if let Some(m) = t.message(e) {
                answered.extend(
                    m.blocks.iter().filter(|b| b.kind == BlockKind::ToolResult).filter_map(|b| b.tool_id.clone()),
                );
            }
        }
    }
    if answered.is_empty() {
        return;
    }
    for i in 0..t.entries.len() {
        let e = &t.entries[i];
        if e.etype() != "gemini" || !e.id.as_deref().is_some_and(|x| x.ends_with("_response")) {
            continue;
        }
        if e.class != Class::Conversation || e.kind() != Some(MessageKind::ToolResults) {
            continue;
        }
        let Some(m) = t.message(e) else { continue };
        let ids: Vec<&str> = m.blocks.iter().filter_map(|b| b.tool_id.as_deref()).collect();
        if ids.is_empty() || !ids.iter().all(|x| answered.contains(*x)) {
            continue;
        }
        let parent = e.parent;
        let me = Parent::Entry(i as u32);
        for c in &mut t.entries[i + 1..] {
            if c.parent == me {
                c.parent = parent;
            }
        }
        let e = &mut t.entries[i];
        e.class = Class::Bookkeeping;
        e.parent = Parent::Detached;
    }
}

/// Loads a legacy whole-file chat: each element of `messages` is an entry at
/// its own line (pointer `/messages/<i>`), linked in order.
fn load_document(src: &SourceRef, bytes: &[u8], v: &Value) -> Result<Input> {
    let mut t = Transcript::default();
    let mut unknown = 0usize;
    t.header = Some(Header {
        line: 1,
        version: DOCUMENT_VERSION,
        session_id: v.get("sessionId").and_then(Value::as_str).map(Into::into),
    });
    let msgs = v.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let starts = crate::locate::array_elements(bytes, "/messages").unwrap_or_default();
    let mut line_starts = vec![0usize];
    line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    let mut prev = Parent::Root;
    for (i, m) in msgs.iter().enumerate() {
        let start = starts.get(i).copied().unwrap_or(0);
        let end = crate::locate::locate_span(bytes, &format!("/messages/{i}")).map_or(start, |(_, e)| e);
        let no = line_starts.partition_point(|&s| s <= start) as u32;
        let raw = &bytes[start..end.max(start)];
        let line =
            Line { no, offset: start as u64, bytes: raw, terminated: true, too_long: false, len: raw.len() as u64 };
        let hash = hash_bytes(raw);
        let base = format!("/messages/{i}");
        for (n, (mut e, packed)) in
            record_entries(m, &line, hash, &base, crate::packed::Texts::AsLoaded, &mut unknown, false)
                .into_iter()
                .enumerate()
        {
            e.parent = prev;
            prev = Parent::Entry(t.entries.len() as u32);
            t.push(e, packed.as_deref());
            if n > 0 {
                t.mark_last_exempt();
            }
        }
    }
    t.lines = line_starts.len() as u32;
    t.has_ids = false;
    let _ = src;
    Ok(Input::from_transcript(&src.display, ID, t, BadLines::default(), unknown))
}

/// Text of a `PartListUnion`'s text parts.
fn content_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(content_text).collect(),
        Value::Object(o) => o.get("text").and_then(Value::as_str).unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

/// The blocks of a `PartListUnion` at `ptr`.
fn content_blocks(c: &Value, ptr: &str, pairs: &mut Pairing, out: &mut Vec<Block>) {
    match c {
        Value::String(s) if !s.is_empty() => {
            out.push(text_block(BlockKind::Text, ptr.to_string(), s, &Value::String(s.clone())));
        }
        Value::Array(a) => {
            for (i, p) in a.iter().enumerate() {
                let pp = ptr_idx(ptr, i);
                match p {
                    Value::String(s) => out.push(text_block(BlockKind::Text, pp, s, p)),
                    _ => out.push(part_block(p, pp, pairs)),
                }
            }
        }
        Value::Object(_) => out.push(part_block(c, ptr.to_string(), pairs)),
        _ => {}
    }
}

/// User text the runtime never sends as a user turn
/// (`isIgnoredUserContent`): commands are not sent at all, injected
/// context is sent but is not user-authored.
fn user_kind(text: &str) -> (Class, MessageKind) {
    let t = text.trim();
    if t.starts_with('/') || t.starts_with('?') {
        (Class::Hidden, MessageKind::Meta)
    } else if t.starts_with("<session_context>") || t.starts_with("<hook_context>") {
        (Class::Conversation, MessageKind::Meta)
    } else {
        (Class::Conversation, MessageKind::UserTurn)
    }
}

/// The entries one message record gives (see the module documentation),
/// each with its packed message.
fn record_entries(
    v: &Value,
    line: &Line<'_>,
    hash: u64,
    base: &str,
    texts: crate::packed::Texts,
    unknown: &mut usize,
    copy: bool,
) -> Vec<(Entry, Option<Box<[u8]>>)> {
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    let id = v.get("id").and_then(Value::as_str);
    let mut e = Entry::at(line, ty, hash);
    e.id = id.map(Into::into);
    e.time = v.get("timestamp").and_then(Value::as_str).map_or(0, parse_time);
    let content = v.get("content").unwrap_or(&Value::Null);
    let cptr = ptr_join(base, "content");
    let mut pairs = Pairing::default();
    let mut out = Vec::new();
    match ty {
        "user" => {
            let (class, kind) = user_kind(&content_text(content));
            let mut m = message(Role::User, kind, base.to_string());
            content_blocks(content, &cptr, &mut pairs, &mut m.blocks);
            if kind == MessageKind::UserTurn {
                super::body::classify_user(&mut m);
            }
            m.json_hash = chash(content);
            e.class = class;
            out.push((e, Some(crate::packed::pack(&m, texts))));
        }
        "gemini" => {
            let mut m = message(Role::Assistant, MessageKind::Assistant, base.to_string());
            let parts = content.as_array().map(Vec::as_slice).unwrap_or(&[]);
            let modern =
                parts.iter().any(|p| p.get("functionCall").is_some() || p.get("thought").is_some_and(|t| t == true));
            let calls = v.get("toolCalls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            if !modern {
                for (i, th) in v.get("thoughts").and_then(Value::as_array).into_iter().flatten().enumerate() {
                    let text = format!(
                        "{} {}",
                        th.get("subject").and_then(Value::as_str).unwrap_or(""),
                        th.get("description").and_then(Value::as_str).unwrap_or("")
                    );
                    m.blocks.push(text_block(BlockKind::Thinking, ptr_idx(&ptr_join(base, "thoughts"), i), &text, th));
                }
            }
            content_blocks(content, &cptr, &mut pairs, &mut m.blocks);
            if !modern {
                for (i, c) in calls.iter().enumerate() {
                    let args = c.get("args").map(Value::to_string).unwrap_or_default();
                    let sent = serde_json::json!({"functionCall": {"id": c.get("id"), "name": c.get("name"), "args": c.get("args")}});
                    let mut b = text_block(BlockKind::ToolCall, ptr_idx(&ptr_join(base, "toolCalls"), i), &args, &sent);
                    b.tool_id = c.get("id").and_then(Value::as_str).map(Into::into);
                    b.tool_name = c.get("name").and_then(Value::as_str).map(Into::into);
                    m.blocks.push(b);
                }
            }
            let has_call = m.blocks.iter().any(|b| b.kind == BlockKind::ToolCall);
            let has_text = m.blocks.iter().any(|b| b.kind == BlockKind::Text && !b.text.trim().is_empty());
            m.assistant = Some(Box::new(AssistantInfo {
                stop: if has_call {
                    Stop::ToolUse
                } else if has_text {
                    Stop::Normal
                } else {
                    Stop::Unknown
                },
                model: v.get("model").and_then(Value::as_str).map(Into::into),
                // A message written again by a `$set.messages` is history,
                // not a new model output.
                rewritten: copy,
                ..Default::default()
            }));
            m.json_hash = chash(&serde_json::json!([
                content,
                calls.iter().map(|c| (c.get("id"), c.get("name"), c.get("args"))).collect::<Vec<_>>()
            ]));
            e.class = Class::Conversation;
            e.is_model_call = !m.blocks.is_empty() && !copy;
            let results = results_message(calls, base, &mut pairs);
            out.push((e, Some(crate::packed::pack(&m, texts))));
            if let Some(r) = results {
                let mut re = Entry::at(line, "gemini", hash);
                re.id = id.map(|i| format!("{i}_response").into());
                re.time = out[0].0.time;
                re.class = Class::Conversation;
                out.push((re, Some(crate::packed::pack(&r, texts))));
            }
        }
        "error" => {
            // A failed attempt, recorded only as an error line: a stub, never sent.
            let mut m = message(Role::Assistant, MessageKind::Assistant, base.to_string());
            m.assistant = Some(Box::new(AssistantInfo { stop: Stop::Error, ..Default::default() }));
            e.class = Class::Conversation;
            out.push((e, Some(crate::packed::pack(&m, texts))));
        }
        "info" | "warning" => out.push((e, None)),
        _ => {
            *unknown += 1;
            out.push((e, None));
        }
    }
    out
}

/// The results of a `gemini` record's tool calls, as the `user` turn the
/// runtime sends after it; `None` when no call has a result yet.
fn results_message(calls: &[Value], base: &str, pairs: &mut Pairing) -> Option<Message> {
    let mut m = message(Role::User, MessageKind::ToolResults, ptr_join(base, "toolCalls"));
    let mut info = ResultInfo::default();
    for (i, c) in calls.iter().enumerate() {
        let Some(r) = c.get("result").filter(|r| !r.is_null()) else { continue };
        let rp = ptr_join(&ptr_idx(&ptr_join(base, "toolCalls"), i), "result");
        let id = c.get("id").and_then(Value::as_str);
        let name = c.get("name").and_then(Value::as_str);
        let before = m.blocks.len();
        match r {
            Value::String(s) => m.blocks.push(text_block(BlockKind::ToolResult, rp, s, r)),
            _ => content_blocks(r, &rp, pairs, &mut m.blocks),
        }
        for b in &mut m.blocks[before..] {
            if b.kind == BlockKind::ToolResult || r.is_string() {
                b.kind = BlockKind::ToolResult;
                // A response part without an id answers the call it is recorded under.
                if b.tool_id.as_deref().is_none_or(|t| t.starts_with("#gemini-")) {
                    b.tool_id = id.map(Into::into);
                }
                if b.tool_name.is_none() {
                    b.tool_name = name.map(Into::into);
                }
            }
        }
        match c.get("status").and_then(Value::as_str) {
            Some("error") => info.is_error = true,
            Some("cancelled") => info.synthetic_or_aborted = true,
            _ => {}
        }
    }
    if m.blocks.is_empty() {
        return None;
    }
    m.json_hash = chash(&Value::Array(calls.iter().map(|c| c.get("result").cloned().unwrap_or(Value::Null)).collect()));
    m.result = Some(Box::new(info));
    Some(m)
}

// ---------------------------------------------------------------------------
// Qwen Code
// ---------------------------------------------------------------------------

/// Loads a Qwen Code chat recording.
///
/// Format facts from QwenLM/qwen-code (npm `@qwen-code/qwen-code` 0.15.10:
/// `packages/core/src/services/chatRecordingService.ts` `ChatRecord`, and
/// `sessionService.ts` `reconstructHistory`, `aggregateRecords`,
/// `buildApiHistoryFromConversation`):
/// - one record a line, appended: `{uuid, parentUuid, sessionId, timestamp,
///   type, subtype?, systemPayload?, cwd, version, message?}`; `parentUuid`
///   is the record written before (every record is in the chain, system
///   records too); resume walks `parentUuid` back from the last record, so a
///   rewind (`system`/`rewind`, hung on an older record) leaves the records
///   after its target on a dead branch (a fork here).
/// - `type` `user` (text; `subtype` `notification` is a runtime notice,
///   `cron` a scheduled prompt), `assistant` (`message` a Gemini `Content`:
///   thought, text and `functionCall` parts), `tool_result` (one per call:
///   a user `functionResponse`), `system` (never sent: bookkeeping that stays
///   in the chain, read as hidden entries).
/// - records sharing a `uuid` are one message (`aggregateRecords`
///   concatenates their parts): a repeat is merged into the first, never a
///   reused id.
/// - `system`/`chat_compression` with `systemPayload.compressedHistory`
///   (the whole new history, `Content[]`) is a compaction: the request is
///   that history plus every later record's `message`.
/// - the system prompt is not recorded.
pub fn load_qwen(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let texts = opts.texts;
    let mut t = Transcript::default();
    let mut unknown = 0usize;
    let mut pids = super::ParentIds::default();
    let mut by_uuid: HashMap<Box<str>, u32> = HashMap::new();
    let (bad_lines, lines) = jsonl::read_lines(src, |line| {
        let hash = hash_bytes(line.bytes);
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => return jsonl::LineVerdict::Malformed(jsonl::describe_line_error(line.bytes, &e)),
        };
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
        let subtype = v.get("subtype").and_then(Value::as_str).unwrap_or("");
        let uuid = v.get("uuid").and_then(Value::as_str);
        if t.header.is_none() {
            t.header = Some(Header {
                line: line.no,
                version: JSONL_VERSION,
                session_id: v.get("sessionId").and_then(Value::as_str).map(Into::into),
            });
        }
        let msg = v.get("message");
        let parts = msg.and_then(|m| m.get("parts")).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        let mut pairs = Pairing::default();
        let blocks = |pairs: &mut Pairing| -> Vec<Block> {
            parts.iter().enumerate().map(|(i, p)| part_block(p, ptr_idx("/message/parts", i), pairs)).collect()
        };
        // A repeated uuid: the same message, its parts appended (`aggregateRecords`).
        if let Some(&j) = uuid.and_then(|u| by_uuid.get(u)) {
            let e = &t.entries[j as usize];
            if let Some(mut m) = t.message(e) {
                m.blocks.extend(blocks(&mut pairs));
                let packed = crate::packed::pack(&m, texts);
                let r = t.messages.push(&packed);
                t.entries[j as usize].set_message_ref(r, &packed);
            }
            t.push_other_line(line.no, hash, true);
            return jsonl::LineVerdict::Ok;
        }
        let mut e = Entry::at(line, ty, hash);
        e.id = uuid.map(Into::into);
        e.time = v.get("timestamp").and_then(Value::as_str).map_or(0, parse_time);
        let mut m = None;
        match ty {
            "user" | "tool_result" => {
                let mut mm = message(Role::User, MessageKind::UserTurn, "/message".into());
                mm.blocks = blocks(&mut pairs);
                let text: String = mm.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| &*b.text).collect();
                let (class, kind) = user_kind(&text);
                mm.kind = if subtype == "notification" { MessageKind::Meta } else { kind };
                super::body::classify_user(&mut mm);
                if mm.kind == MessageKind::ToolResults {
                    let status = v.pointer("/toolCallResult/status").and_then(Value::as_str);
                    mm.result = Some(Box::new(ResultInfo {
                        is_error: status == Some("error"),
                        synthetic_or_aborted: status == Some("cancelled"),
                        ..Default::default()
                    }));
                }
                mm.json_hash = chash(msg.unwrap_or(&Value::Null));
                e.class = class;
                m = Some(mm);
            }
            "assistant" => {
                let mut mm = message(Role::Assistant, MessageKind::Assistant, "/message".into());
                mm.blocks = blocks(&mut pairs);
                let has_call = mm.blocks.iter().any(|b| b.kind == BlockKind::ToolCall);
                mm.assistant = Some(Box::new(AssistantInfo {
                    stop: if has_call { Stop::ToolUse } else { Stop::Normal },
                    model: v.get("model").and_then(Value::as_str).map(Into::into),
                    ..Default::default()
                }));
                mm.json_hash = chash(msg.unwrap_or(&Value::Null));
                e.class = Class::Conversation;
                e.is_model_call = true;
                m = Some(mm);
            }
            "system" => match v.pointer("/systemPayload/compressedHistory").and_then(Value::as_array) {
                Some(hist) if subtype == "chat_compression" => {
                    let base = "/systemPayload/compressedHistory";
                    let mut mm = message(Role::User, MessageKind::CompactionSummary, base.into());
                    for (i, c) in hist.iter().enumerate() {
                        let cp = ptr_join(&ptr_idx(base, i), "parts");
                        let model = c.get("role").and_then(Value::as_str) == Some("model");
                        for (k, p) in c.get("parts").and_then(Value::as_array).into_iter().flatten().enumerate() {
                            let mut b = part_block(p, ptr_idx(&cp, k), &mut pairs);
                            if model && b.kind == BlockKind::Text {
                                b.kind = BlockKind::Other;
                            }
                            mm.blocks.push(b);
                        }
                    }
                    e.class = Class::Compaction;
                    e.set_compaction(Some(Compaction { first_kept: None, new_root: false }));
                    m = Some(mm);
                }
                // In the chain, never sent (titles, telemetry, rewinds, commands).
                _ => {
                    e.class = Class::Hidden;
                    // A rewind to the first turn hangs on no record: a new
                    // chain by design, not a second root.
                    if subtype == "rewind" && v.get("parentUuid").is_none_or(Value::is_null) {
                        e.set_compaction(Some(Compaction { first_kept: None, new_root: true }));
                    }
                }
            },
            _ => unknown += 1,
        }
        let parent = v.get("parentUuid").and_then(Value::as_str);
        pids.add(&t.entries, &mut e, parent);
        if let Some(u) = uuid {
            by_uuid.insert(u.into(), t.entries.len() as u32);
        }
        let packed = m.map(|m| crate::packed::pack(&m, texts));
        t.push(e, packed.as_deref());
        jsonl::LineVerdict::Ok
    })?;
    t.lines = lines;
    t.has_ids = true;
    pids.finish(&mut t);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

/// Whether one record (or a whole document) fits the format (`--input-format`).
pub fn fits(v: &Value) -> bool {
    sniff_record(v) || sniff_qwen_record(v) || sniff_document(v)
}
