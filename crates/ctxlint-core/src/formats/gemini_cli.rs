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
//!   new history. `GeminiChat.setHistory()` (v0.45.2 and later) first records
//!   every turn it is given without an id as a new record (a `gemini` one
//!   without `model`), then writes the checkpoint: those records are the
//!   checkpoint being written, not model calls (see `Written`).
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
use super::format::{About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::gemini::{Pairing, part_block};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::{Line, SourceRef};
use serde_json::Value;
use std::collections::HashMap;

/// Format id.
pub const ID: FormatId = FormatId::new("gemini-cli");

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

/// Whether a whole JSON document is Gemini CLI's: a legacy chat
/// ([`sniff_chat`]) or a saved history ([`checkpoint_history`]).
pub fn sniff_document(v: &Value) -> bool {
    sniff_chat(v) || checkpoint_history(v).is_some()
}

/// Whether a whole JSON document is a legacy Gemini CLI chat
/// (`ConversationRecord`: `sessionId`, `projectHash`, `messages[]`).
pub fn sniff_chat(v: &Value) -> bool {
    v.get("sessionId").is_some_and(Value::is_string)
        && v.get("projectHash").is_some_and(Value::is_string)
        && v.get("messages").is_some_and(Value::is_array)
}

/// Whether `c` is a Gemini API `Content` as Gemini CLI saves it: `role`
/// `user` or `model` and `parts`, objects none of which has a `type` (AI SDK
/// `UIMessage` parts), `kind` or `part_kind` (pydantic-ai parts).
fn is_content(c: &Value) -> bool {
    matches!(c.get("role").and_then(Value::as_str), Some("user" | "model"))
        && c.get("parts").and_then(Value::as_array).is_some_and(|ps| {
            ps.iter().all(|p| {
                p.as_object()
                    .is_some_and(|o| !o.contains_key("type") && !o.contains_key("kind") && !o.contains_key("part_kind"))
            })
        })
}

/// The history a Gemini CLI checkpoint holds and its JSON Pointer: the
/// history exactly as the model saw it (`geminiClient.getHistory()`), as
/// written by
/// - `/chat save <tag>` (`packages/cli/src/ui/commands/chatCommand.ts`,
///   `Logger.saveCheckpoint` in `packages/core/src/core/logger.ts`):
///   `<project temp dir>/checkpoint-<tag>.json` (`checkpoint.json` in the
///   oldest builds), a bare `Content[]` array (the legacy format
///   `loadCheckpoint` still reads), or `{history: Content[], authType?}`;
/// - the checkpointing of file edits (`/restore`,
///   `packages/cli/src/ui/hooks/useGeminiStream.ts`
///   `saveRestorableToolCalls`): `<project temp dir>/checkpoints/*.json`,
///   `{history?, clientHistory: Content[], toolCall, commitHash, messageId?}`
///   — `clientHistory` is the model's history when the tool was called.
///
/// A Gemini request body holds `contents`, a pydantic-ai history `kind`ed
/// parts, an AI SDK `UIMessage[]` `type`d parts and role `assistant`: none
/// is taken.
pub fn checkpoint_history(v: &Value) -> Option<(&[Value], &'static str)> {
    let all = |a: &[Value]| !a.is_empty() && a.iter().all(is_content);
    match v {
        Value::Array(a) if all(a) => Some((a, "")),
        Value::Object(o) => {
            if let Some(h) = o.get("clientHistory").and_then(Value::as_array) {
                return (o.get("toolCall").is_some_and(Value::is_object) && all(h))
                    .then_some((h.as_slice(), "/clientHistory"));
            }
            let h = o.get("history").and_then(Value::as_array)?;
            (o.keys().all(|k| k == "history" || k == "authType") && all(h)).then_some((h.as_slice(), "/history"))
        }
        _ => None,
    }
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
        Ok(_) if !first.starts_with(b"[") => {}
        Err(_) if !first.starts_with(b"{") && !first.starts_with(b"[") => {}
        _ => {
            // A pretty-printed document: the legacy whole-file chat or a
            // checkpoint (a checkpoint is one array, on one line or more).
            let bytes = src.read_all()?;
            if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
                if sniff_chat(&v) {
                    return load_document(src, &bytes, &v);
                }
                if let Some((history, base)) = checkpoint_history(&v) {
                    return Ok(load_checkpoint(src, &bytes, history, base));
                }
            }
        }
    }
    if !first_line.is_empty() {
        // One line holding the whole legacy record is a document too.
        if let Ok(v) = serde_json::from_slice::<Value>(first_line) {
            let rest = &first[first_line.len()..];
            if rest.iter().all(u8::is_ascii_whitespace) {
                if sniff_chat(&v) && v.get("messages").and_then(Value::as_array).is_some_and(|m| !m.is_empty()) {
                    return load_document(src, &src.read_all()?, &v);
                }
                if let Some((history, base)) = checkpoint_history(&v) {
                    return Ok(load_checkpoint(src, &src.read_all()?, history, base));
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

/// The runtime's map of messages, in order of first appearance, with each
/// id's place in it (a lookup per record: linear in the records).
#[derive(Default)]
struct Chain {
    order: Vec<(Box<str>, Live)>,
    at: foldhash::HashMap<Box<str>, usize>,
}

impl Chain {
    fn position(&self, id: &str) -> Option<usize> {
        self.at.get(id).copied()
    }
    fn push(&mut self, id: &str, live: Live) {
        self.at.insert(id.into(), self.order.len());
        self.order.push((id.into(), live));
    }
    /// Keeps the first `k` messages (a `$rewindTo`).
    fn truncate(&mut self, k: usize) {
        for (id, _) in self.order.drain(k.min(self.order.len())..) {
            self.at.remove(&id);
        }
    }
    fn replace(&mut self, order: Vec<(Box<str>, Live)>) {
        self.at = order.iter().enumerate().map(|(i, (id, _))| (id.clone(), i)).collect();
        self.order = order;
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
    // The message records written since the last metadata line, rewind or
    // model output: a `setHistory` writes its history here before the
    // checkpoint (see [`Written`]).
    let mut written: Vec<Written> = Vec::new();
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
                Some(k) => chain.truncate(k),
                None => chain.truncate(0),
            }
            written.clear();
            // Metadata patches and rewinds are idempotent: written again by
            // design (each resume writes the same `$set {sessionId}`).
            t.push_other_line(line.no, hash, true);
            return jsonl::LineVerdict::Ok;
        }
        if let (Some("$set"), Some(set)) = (kind, v.get("$set")) {
            match set.get("messages").and_then(Value::as_array) {
                Some(msgs) => {
                    detach_history_written(&mut t, &mut known, &mut written, msgs);
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
                    chain.replace(order);
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
            written.clear();
            if t.header.is_none() {
                t.header = Some(Header {
                    line: line.no,
                    version: JSONL_VERSION,
                    session_id: v.get("sessionId").and_then(Value::as_str).map(Into::into),
                    openclaw: false,
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
        if let (Some(u), true) = (record_usage(&v), entries.first().is_some_and(|(e, _)| e.is_model_call)) {
            t.set_usage(first, u);
        }
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
            None => chain.push(id, live),
        }
        known.insert(id.into(), live);
        seen_ids.entry(id.into()).or_insert(first);
        let ty = v.get("type").and_then(Value::as_str);
        if update || (ty == Some("gemini") && v.get("model").is_some()) {
            written.clear();
        } else {
            written.push(Written { id: id.into(), first, last, synthetic: ty == Some("gemini") });
        }
        jsonl::LineVerdict::Ok
    })?;
    t.lines = lines;
    t.has_ids = false;
    drop_answered_results(&mut t);
    unrecorded_calls(&mut t, texts);
    mark_continued(&mut t, texts);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

/// A message record written with a new id since the last metadata line,
/// rewind or model output (`metadata` patches like `lastUpdated` aside).
///
/// `GeminiChat.setHistory()` (`packages/core/src/core/geminiChat.ts`, tag
/// `v0.45.2` and later) records every turn of the history it is given that
/// has no id yet with `chatRecordingService.recordSyntheticMessage()` (a new
/// id; a `gemini` record without `model`) and then writes the whole history
/// as a `$set.messages` checkpoint (`updateMessagesFromHistory`): the client
/// trimming its history (`client.ts`, `agentHistoryProvider.manageHistory()`)
/// writes the whole conversation again that way, within milliseconds and
/// with no model called.
struct Written {
    id: Box<str>,
    first: u32,
    last: u32,
    /// A `gemini` record without `model`: written by the runtime, not a
    /// model's output.
    synthetic: bool,
}

/// Before a `$set.messages` checkpoint is read: the records written just
/// before it that it holds, when they include a synthetic `gemini` record
/// ([`Written`]), are that checkpoint being written. They are taken off the
/// tree (bookkeeping, no model call) and forgotten, so the checkpoint writes
/// them as history at its own line instead of their being read as model
/// calls on top of the old history.
fn detach_history_written(
    t: &mut Transcript,
    known: &mut HashMap<Box<str>, Live>,
    written: &mut Vec<Written>,
    msgs: &[Value],
) {
    let held: std::collections::HashSet<&str> =
        msgs.iter().filter_map(|m| m.get("id").and_then(Value::as_str)).collect();
    let from = written.iter().rposition(|w| !held.contains(&*w.id)).map_or(0, |k| k + 1);
    let run = &written[from..];
    if run.iter().any(|w| w.synthetic) {
        for w in run {
            for i in w.first..=w.last {
                let e = &mut t.entries[i as usize];
                e.class = Class::Bookkeeping;
                e.is_model_call = false;
                e.parent = Parent::Detached;
            }
            known.remove(&w.id);
        }
    }
    written.clear();
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

/// Recordings made before `toolCalls` were recorded still write the results
/// of a call as a `user` record when they carry data (a file read as
/// `inlineData`: `functionResponse` plus the data part, `geminiChat.ts`
/// binary injections). Such results whose `gemini` record right before holds
/// no call answer a call the recording does not hold: they are sent (kept as
/// tool-results content), but their pairing cannot be judged.
fn unrecorded_calls(t: &mut Transcript, texts: crate::model::packed::Texts) {
    let mut fix = Vec::new();
    for (i, e) in t.entries.iter().enumerate() {
        if e.class != Class::Conversation || e.etype() != "user" {
            continue;
        }
        let Parent::Entry(p) = e.parent else { continue };
        let pe = &t.entries[p as usize];
        if pe.etype() != "gemini" || pe.kind() != Some(MessageKind::Assistant) {
            continue;
        }
        let (Some(pm), Some(m)) = (t.packed(pe), t.packed(e)) else { continue };
        if pm.blocks().any(|b| b.kind == BlockKind::ToolCall) || !m.blocks().any(|b| b.kind == BlockKind::ToolResult) {
            continue;
        }
        fix.push(i);
    }
    for i in fix {
        let Some(mut m) = t.message(&t.entries[i]) else { continue };
        for b in &mut m.blocks {
            if b.kind == BlockKind::ToolResult {
                b.kind = BlockKind::Other;
            }
        }
        m.kind = MessageKind::ToolResults;
        let packed = crate::model::packed::pack(&m, texts);
        let r = t.messages.push(&packed);
        t.entries[i].set_message_ref(r, &packed);
    }
}

/// Marks a `gemini` record the runtime went on from as a step of its tool
/// loop ([`Stop::ToolUse`]), not a final reply: one followed — before the
/// next user turn, UI notices, continuation prompts and tool results aside —
/// by another model call, or by a failed or aborted one (the runtime was
/// calling the model again when it failed or was cancelled). A recording made
/// before `toolCalls` were recorded (the whole-file chats of Sept 2025, and
/// Gemini Code Assist's) holds a tool loop as consecutive `gemini` records
/// whose calls are not written; `client.ts` also calls the model again after
/// a malformed function call or an invalid stream ("System: Please
/// continue.") and when the next-speaker check says the model should go on.
fn mark_continued(t: &mut Transcript, texts: crate::model::packed::Texts) {
    let mut open: Option<usize> = None;
    let mut marks = Vec::new();
    for (i, e) in t.entries.iter().enumerate() {
        if e.class != Class::Conversation || !e.has_message() {
            continue;
        }
        match e.kind() {
            Some(MessageKind::UserTurn) => open = None,
            Some(MessageKind::Assistant) => {
                let Some(a) = e.assistant_facts() else { continue };
                if a.rewritten {
                    continue;
                }
                if let Some(j) = open.take() {
                    marks.push(j);
                }
                if e.is_model_call && matches!(a.stop, Stop::Normal | Stop::Unknown) {
                    open = Some(i);
                }
            }
            _ => {}
        }
    }
    for j in marks {
        let Some(mut m) = t.message(&t.entries[j]) else { continue };
        if let Some(a) = m.assistant.as_mut() {
            a.stop = Stop::ToolUse;
        }
        let packed = crate::model::packed::pack(&m, texts);
        let r = t.messages.push(&packed);
        t.entries[j].set_message_ref(r, &packed);
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
        openclaw: false,
    });
    let msgs = v.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let starts = crate::locate::array_elements(bytes, "/messages").unwrap_or_default();
    let mut line_starts = vec![0usize];
    line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    let mut prev = Parent::Root;
    for (i, m) in msgs.iter().enumerate() {
        let start = starts.get(i).copied().unwrap_or(0);
        let end = starts.get(i).and_then(|&s| crate::locate::value_end(bytes, s)).unwrap_or(start);
        let no = line_starts.partition_point(|&s| s <= start) as u32;
        let raw = &bytes[start..end.max(start)];
        let line =
            Line { no, offset: start as u64, bytes: raw, terminated: true, too_long: false, len: raw.len() as u64 };
        let hash = hash_bytes(raw);
        let base = format!("/messages/{i}");
        if let Some(u) = record_usage(m) {
            if m.get("type").and_then(Value::as_str) == Some("gemini") {
                t.set_usage(t.entries.len() as u32, u);
            }
        }
        for (n, (mut e, packed)) in
            record_entries(m, &line, hash, &base, crate::model::packed::Texts::AsLoaded, &mut unknown, false)
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
    // Whole-file chats of the builds that also record the live results as a
    // `user` record (model steering writes them beside the steering text).
    drop_answered_results(&mut t);
    unrecorded_calls(&mut t, crate::model::packed::Texts::AsLoaded);
    mark_continued(&mut t, crate::model::packed::Texts::AsLoaded);
    Ok(Input::from_transcript(&src.display, ID, t, BadLines::default(), unknown))
}

/// Loads a checkpoint ([`checkpoint_history`]) as one history snapshot: a
/// transcript of linear entries, one per `Content` (pointer
/// `<base>/<i>`, at the line where it starts). Each `model` content is the
/// output of one model call, except the acknowledgement older builds wrote
/// after their environment context ([`LEGACY_CONTEXT_ACK`]); `user` contents
/// are user turns, tool results (`functionResponse` parts) or injected
/// context, as in a recording.
fn load_checkpoint(src: &SourceRef, bytes: &[u8], history: &[Value], base: &str) -> Input {
    let mut t = Transcript {
        header: Some(Header { line: 1, version: DOCUMENT_VERSION, session_id: None, openclaw: false }),
        ..Default::default()
    };
    let starts = crate::locate::array_elements(bytes, base).unwrap_or_default();
    let mut line_starts = vec![0usize];
    line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    let mut pairs = Pairing::default();
    let mut after_context = false;
    for (i, c) in history.iter().enumerate() {
        let ptr = format!("{base}/{i}");
        let start = starts.get(i).copied().unwrap_or(0);
        let end = starts.get(i).and_then(|&s| crate::locate::value_end(bytes, s)).unwrap_or(start);
        let raw = &bytes[start..end.max(start)];
        let no = line_starts.partition_point(|&s| s <= start) as u32;
        let line =
            Line { no, offset: start as u64, bytes: raw, terminated: true, too_long: false, len: raw.len() as u64 };
        let model = c.get("role").and_then(Value::as_str) == Some("model");
        let mut e = Entry::at(&line, if model { "model" } else { "user" }, hash_bytes(raw));
        let parts = c.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        let pp = ptr_join(&ptr, "parts");
        let blocks: Vec<Block> =
            parts.iter().enumerate().map(|(k, p)| part_block(p, ptr_idx(&pp, k), &mut pairs)).collect();
        let text: String = blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| &*b.text).collect();
        let mut m = if model {
            let mut m = message(Role::Assistant, MessageKind::Assistant, ptr.clone());
            m.blocks = blocks;
            let has_call = m.blocks.iter().any(|b| b.kind == BlockKind::ToolCall);
            let ack = after_context && text.trim() == LEGACY_CONTEXT_ACK;
            m.assistant = Some(Box::new(AssistantInfo {
                stop: if has_call {
                    Stop::ToolUse
                } else if !text.trim().is_empty() {
                    Stop::Normal
                } else {
                    Stop::Unknown
                },
                ..Default::default()
            }));
            e.is_model_call = !m.blocks.is_empty() && !ack;
            m
        } else {
            let (_, kind) = user_kind(&text);
            let mut m = message(Role::User, kind, ptr.clone());
            m.blocks = blocks;
            super::body::classify_user(&mut m);
            if m.kind == MessageKind::ToolResults {
                m.result = Some(Box::default());
            }
            m
        };
        after_context = !model && text.trim_start().starts_with(LEGACY_SESSION_CONTEXT);
        m.json_hash = chash(c);
        e.class = Class::Conversation;
        t.push(e, Some(&crate::model::packed::pack(&m, crate::model::packed::Texts::AsLoaded)));
        // Written whole (`JSON.stringify`): two equal contents (the same
        // short prompt, the same tool output) are not lines written again.
        t.mark_last_exempt();
    }
    t.lines = line_starts.len() as u32;
    t.has_ids = false;
    super::link_linearly(&mut t);
    mark_continued(&mut t, crate::model::packed::Texts::AsLoaded);
    Input::from_transcript(&src.display, ID, t, BadLines::default(), 0)
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

/// What an `error` or `info` record says of the model call it follows: an
/// error record is a failed model call only when it reports that call's
/// error, as `useGeminiStream.ts` writes it (`parseAndFormatApiError` in
/// `packages/core/src/utils/errorParsing.ts` formats every API error as
/// `[API Error: …]`; quota exhaustion and cancellation are reported through
/// it too); an `info` "Request cancelled." (`useGeminiStream.ts`, on
/// Esc/Ctrl-C while a request runs) ends an aborted attempt. Every other
/// error or info record is a UI notice ("🔴 Disconnected: IDE integration
/// disabled", "Automatic update failed", "⚠️  Response stopped due to
/// malformed function call.", authentication and update messages): no model
/// call ended there.
fn attempt_end(ty: &str, text: &str) -> Option<Stop> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    match ty {
        "info" => (t == "Request cancelled.").then_some(Stop::Aborted),
        "error" if lower.contains("request cancelled") || lower.contains("operation cancelled") => Some(Stop::Aborted),
        "error" if t.starts_with("[API Error") || lower.contains("quota") => Some(Stop::Error),
        _ => None,
    }
}

/// Prompts the runtime itself sends to make the model go on, recorded as
/// `user` records since `geminiChat.ts` records every message it sends:
/// "System: Please continue." after an invalid stream or a malformed
/// function call (`client.ts`, 0b6c02000f, Oct 2025, until 9380e13f6d, May
/// 2026) and "Please continue." after the next-speaker check
/// (`client.ts`, `checkNextSpeaker`). Sent, but not user-authored.
const CONTINUATION_PROMPTS: &[&str] = &["System: Please continue.", "Please continue."];

/// The opening of the environment context older builds sent as the first
/// user message, without `<session_context>` tags
/// (`packages/core/src/utils/environmentContext.ts`, before ffcd996366).
const LEGACY_SESSION_CONTEXT: &str = "This is the Gemini CLI. We are setting up the context for our chat.";

/// The model turn older builds wrote after [`LEGACY_SESSION_CONTEXT`]
/// themselves (`getInitialChatHistory`, until ffcd996366, Sept 2025): not
/// a model call.
const LEGACY_CONTEXT_ACK: &str = "Got it. Thanks for the context!";

/// How a `functionResponse` part reads once a `Part[]` is flattened to
/// text (`[Function Response: <name>]`, gemini-cli
/// `packages/core/src/utils/partUtils.ts` `partToString`): the legacy
/// whole-file chats (Sept–Oct 2025, no `toolCalls` recorded) store a tool's
/// output — `read_many_files`' `--- <path> ---` sections — as a `user`
/// record with that text. It is a tool result, not the person's text nor
/// injected context.
const FUNCTION_RESPONSE: &str = "[Function Response: ";

/// User text the runtime never sends as a user turn
/// (`isIgnoredUserContent`): commands are not sent at all, injected
/// context is sent but is not user-authored; a tool's output flattened to
/// text ([`FUNCTION_RESPONSE`]) is a tool result.
fn user_kind(text: &str) -> (Class, MessageKind) {
    let t = text.trim();
    if t.starts_with(FUNCTION_RESPONSE) {
        (Class::Conversation, MessageKind::ToolResults)
    } else if t.starts_with('/') || t.starts_with('?') {
        (Class::Hidden, MessageKind::Meta)
    } else if t.starts_with("<session_context>")
        || t.starts_with("<hook_context>")
        || t.starts_with(LEGACY_SESSION_CONTEXT)
        || CONTINUATION_PROMPTS.contains(&t)
    {
        (Class::Conversation, MessageKind::Meta)
    } else {
        (Class::Conversation, MessageKind::UserTurn)
    }
}

/// A `gemini` record's `tokens` (`{input, output, cached, thoughts, tool,
/// total}`, from the response's `usageMetadata`: `input` is
/// `promptTokenCount`, which counts the cached tokens; `thoughts` are billed
/// as output — gemini-cli `chatRecordingService.ts` `recordMessageTokens`).
fn record_usage(v: &Value) -> Option<Usage> {
    let t = v.get("tokens")?;
    let n = |k: &str| super::usage::count(t.get(k));
    let (input, cached) = super::usage::split_cached(n("input"), n("cached"));
    let u = Usage { input, cache_read: cached, output: n("output").saturating_add(n("thoughts")), ..Usage::default() };
    (!u.is_empty()).then_some(u)
}

/// The entries one message record gives (see the module documentation),
/// each with its packed message.
fn record_entries(
    v: &Value,
    line: &Line<'_>,
    hash: u64,
    base: &str,
    texts: crate::model::packed::Texts,
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
            out.push((e, Some(crate::model::packed::pack(&m, texts))));
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
                model: concrete_model(v),
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
            out.push((e, Some(crate::model::packed::pack(&m, texts))));
            if let Some(r) = results {
                let mut re = Entry::at(line, "gemini", hash);
                re.id = id.map(|i| format!("{i}_response").into());
                re.time = out[0].0.time;
                re.class = Class::Conversation;
                out.push((re, Some(crate::model::packed::pack(&r, texts))));
            }
        }
        "error" | "info" => match attempt_end(ty, &content_text(content)) {
            // A failed or aborted model call, recorded only as an error or
            // info line: a stub, never sent.
            Some(stop) => {
                let mut m = message(Role::Assistant, MessageKind::Assistant, base.to_string());
                m.assistant = Some(Box::new(AssistantInfo { stop, ..Default::default() }));
                e.class = Class::Conversation;
                out.push((e, Some(crate::model::packed::pack(&m, texts))));
            }
            // A UI notice (IDE connection, updates, authentication, finish
            // reasons): shown, never sent, no model call.
            None => out.push((e, None)),
        },
        "warning" => out.push((e, None)),
        _ => {
            *unknown += 1;
            out.push((e, None));
        }
    }
    out
}

/// The model a `gemini` record names, unless it is a routing alias
/// (`auto`, `auto-gemini-2.5`, `auto-gemini-3`: the model router picks the
/// model per request, `packages/core/src/config/models.ts`): an alias and
/// the model it picked are no fallback from one model to another.
fn concrete_model(v: &Value) -> Option<Box<str>> {
    v.get("model").and_then(Value::as_str).filter(|m| *m != "auto" && !m.starts_with("auto-")).map(Into::into)
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
        // A `cancelled` call is one the person declined or stopped (Esc at
        // its confirmation or while it ran, `useGeminiStream.ts`
        // `handleCompletedTools`): their abort, which the "Request
        // cancelled." record beside it ends; not a synthetic result.
        if c.get("status").and_then(Value::as_str) == Some("error") {
            info.is_error = true;
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
    // Calls without a recorded result yet: (function name, call id).
    let mut pending: Vec<(Box<str>, Box<str>)> = Vec::new();
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
                openclaw: false,
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
                let packed = crate::model::packed::pack(&m, texts);
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
                for b in mm.blocks.iter().filter(|b| b.kind == BlockKind::ToolResult) {
                    pending.retain(|(_, id)| Some(id) != b.tool_id.as_ref());
                }
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
                for b in mm.blocks.iter().filter(|b| b.kind == BlockKind::ToolCall) {
                    if let (Some(n), Some(id)) = (&b.tool_name, &b.tool_id) {
                        pending.push((n.clone(), id.clone()));
                    }
                }
                e.class = Class::Conversation;
                e.is_model_call = true;
                m = Some(mm);
            }
            // A call the person cancelled is answered, in what is sent, by
            // its cancellation (`CoreToolScheduler`: "Tool … was canceled by
            // the user.", added to the history), but Qwen Code 0.13 records
            // no `tool_result` for it: only this telemetry event. It answers
            // the latest call of that name still without a result.
            "system"
                if subtype == "ui_telemetry"
                    && v.pointer("/systemPayload/uiEvent/event.name").and_then(Value::as_str)
                        == Some("qwen-code.tool_call")
                    && v.pointer("/systemPayload/uiEvent/error")
                        .and_then(Value::as_str)
                        .is_some_and(|e| e.ends_with("was canceled by the user."))
                    && v.pointer("/systemPayload/uiEvent/function_name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| pending.iter().any(|(p, _)| &**p == n)) =>
            {
                let name = v.pointer("/systemPayload/uiEvent/function_name").and_then(Value::as_str).unwrap_or("");
                // The event hangs on the record of the call it ends (two
                // chains may interleave after a rewind): that record's call
                // first, else the latest of that name.
                let parent_calls: Vec<Box<str>> = v
                    .get("parentUuid")
                    .and_then(Value::as_str)
                    .and_then(|u| by_uuid.get(u))
                    .and_then(|&j| t.message(&t.entries[j as usize]))
                    .map(|pm| {
                        pm.blocks
                            .iter()
                            .filter(|b| b.kind == BlockKind::ToolCall && b.tool_name.as_deref() == Some(name))
                            .filter_map(|b| b.tool_id.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                let k = pending
                    .iter()
                    .position(|(p, id)| &**p == name && parent_calls.contains(id))
                    .or_else(|| pending.iter().rposition(|(p, _)| &**p == name))
                    .unwrap_or(0);
                let (_, id) = pending.remove(k);
                let ptr = "/systemPayload/uiEvent".to_string();
                let err = v.pointer("/systemPayload/uiEvent/error").cloned().unwrap_or(Value::Null);
                let mut b = text_block(BlockKind::ToolResult, ptr.clone(), err.as_str().unwrap_or(""), &err);
                b.tool_id = Some(id);
                b.tool_name = Some(name.into());
                let mut mm = message(Role::User, MessageKind::ToolResults, ptr);
                mm.blocks.push(b);
                mm.result = Some(Box::new(ResultInfo { is_error: true, ..Default::default() }));
                mm.json_hash = chash(&err);
                e.class = Class::Conversation;
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
        let packed = m.map(|m| crate::model::packed::pack(&m, texts));
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

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Jsonl,
    detect: Detect {
        // Before Claude Code: Qwen Code records carry `uuid` and `sessionId` too.
        record: Some(Sniffer { rank: 2, test: |v| sniff_qwen_record(v) || sniff_record(v) }),
        document: Some(Sniffer { rank: 2, test: sniff_document }),
        ..Detect::NONE
    },
    fit: Fit::Records {
        test: fits,
        missing: "no record is a Gemini CLI chat record (`sessionId` with `projectHash`, or `id`, `timestamp`, `type` and `content`, or `$set` / `$rewindTo`) or a Qwen Code record (`uuid`, `sessionId`, `type`, `message.parts`)",
        // Gemini CLI's legacy chat is one (pretty-printed) document.
        document: Some(sniff_document),
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: Some(is_document) },
    record: Some(&SCHEMA),
    repro: Repro { name: "session.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[
        // Gemini CLI (`$GEMINI_CLI_HOME` replaces the home folder: gemini-cli
        // `packages/core/src/utils/paths.ts`): the `chats` folders and the
        // `/chat save` checkpoints beside them (`checkpoint-<tag>.json`, core
        // `logger.ts`), not the logs.
        AgentFolder {
            rank: 13,
            env: &["GEMINI_CLI_HOME"],
            home: ".gemini",
            env_is_home: true,
            pattern: "tmp/*/chats",
            file: false,
        },
        AgentFolder {
            rank: 14,
            env: &["GEMINI_CLI_HOME"],
            home: ".gemini",
            env_is_home: true,
            pattern: "tmp/*/checkpoint*.json",
            file: true,
        },
        // Qwen Code (`$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`).
        AgentFolder {
            rank: 15,
            env: &["QWEN_RUNTIME_DIR", "QWEN_HOME"],
            home: ".qwen",
            env_is_home: false,
            pattern: "projects/*/chats",
            file: false,
        },
    ],
    about: About {
        what: "Gemini CLI chat recordings (JSONL, and the legacy whole-file JSON); Qwen Code chats",
        kind: "transcript",
        location: "~/.gemini/tmp/<project>/chats/session-*.jsonl (or $GEMINI_CLI_HOME/.gemini); Qwen Code: ~/.qwen/projects/*/chats/*.jsonl (or $QWEN_HOME, $QWEN_RUNTIME_DIR)",
    },
};
