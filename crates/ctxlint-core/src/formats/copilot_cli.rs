//! `copilot-cli`: GitHub Copilot CLI session event logs
//! (`$COPILOT_HOME/session-state/<session id>/events.jsonl`, `~/.copilot`
//! by default).
//!
//! Format facts from the CLI's published package (npm `@github/copilot`
//! 1.0.60: `schemas/session-events.schema.json`,
//! `copilot-sdk/generated/session-events.d.ts`, and the replay in `app.js`,
//! `Session.processEventForState`; the CLI's source is not public) and its
//! issue tracker (github/copilot-cli #2649, #2012, #2490, #4098, #2217):
//! - every line is an event `{type, data, id, timestamp, parentId,
//!   ephemeral?, agentId?}`; `parentId` is the previous persisted event (a
//!   linear log, with gaps where ephemeral events were not written), so the
//!   log is read in line order, never as a tree.
//! - the request is rebuilt by replaying the events in order:
//!   `system.message` is the system prompt (upserted: the latest one is
//!   sent, [`Transcript::base_instructions`] here); `user.message` is a user
//!   turn sent as `transformedContent` (else `content`; with a `source` it
//!   was injected: not user-authored); `assistant.message` (not ephemeral,
//!   not a sub-agent's: no `agentId` / `parentToolCallId`) is one model call
//!   with its `content`, `reasoningText` and `toolRequests[]`
//!   (`toolCallId`, `name`, `arguments`); `tool.execution_complete` is the
//!   call's result (`result.content`, or `error.message` when `success` is
//!   false); a second result for one call is dropped by the runtime, as is a
//!   result without a call (they are bookkeeping here).
//! - one model response may be written as several `assistant.message`
//!   events: builds of late 2025 (session files `session-state/<id>.jsonl`)
//!   wrote the response's text and each of its parallel tool requests as
//!   events of their own, before the tool results. An `assistant.message`
//!   with tool requests that follows another one with no tool result, user
//!   message or failure between, or while a call of that response still
//!   waits for its result, belongs to the same response (a text-only one
//!   starts a response: the model writes its text first): the events share an
//!   [`Entry::call_group`] and are one model call (one step), as Claude Code's
//!   entries of one `message.id` are.
//! - `abort` and a cold `session.resume` give every call still waiting a
//!   synthetic result ("The execution of this tool, or a previous tool was
//!   interrupted."): read as a results entry (after an `abort`, part of the
//!   aborted stop: the same turn sent again is a `duplicate-user-turn`
//!   warning; after a resume, synthetic), and an `abort` as a failed (aborted)
//!   attempt; a persisted `session.error` is a failed attempt too. The
//!   `<current_datetime>` stamp and the `<reminder>` state block in
//!   `transformedContent` are per-message envelopes (`analysis::turns`): a
//!   `/init` run again after an abort is the same turn sent again.
//! - `session.compaction_complete` with `success` and `summaryContent`
//!   replaces the history before its `session.compaction_start` with the
//!   summary; what arrived in between is kept.
//! - everything else (turn markers, usage, tool starts, hooks, permissions,
//!   truncation notes, shutdown) is bookkeeping.
//! - torn lines: the runtime's reader splits lines at U+2028 / U+2029 too, so
//!   an event holding either unescaped is torn for it (#2012, #2490) and a
//!   `malformed-line` here; an event whose text held raw newlines is split
//!   over several lines (#2649): one `malformed-line` at its first line.

use super::body::{chash, message, s, text_block};
use super::format::{About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;

/// Format id.
pub const ID: FormatId = FormatId::new("copilot-cli");

/// Whether a JSONL record is a Copilot CLI event: a dotted `type`, a `data`
/// object, `id`, `timestamp` and a `parentId` key.
pub fn sniff(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    o.get("type").and_then(Value::as_str).is_some_and(|t| t.contains('.') || t == "abort")
        && o.get("data").is_some_and(Value::is_object)
        && o.get("id").is_some_and(Value::is_string)
        && o.contains_key("parentId")
        && o.contains_key("timestamp")
}

/// The synthetic result the runtime gives calls cut off by an abort or a resume.
const INTERRUPTED: &str = "The execution of this tool, or a previous tool was interrupted.";

/// The record facts of an `events.jsonl` (used by [`load`] and by `fence`):
/// every event `{type, data, id, timestamp, parentId}` is the CLI's own
/// (`--owned` narrows that); the kind is the event `type`. `parentId` links
/// events in write order, not a tree ctxlint checks (a resume continues the
/// chain from any event). A raw U+2028 / U+2029 in a line is a torn event:
/// the CLI's own reader splits there (github/copilot-cli#2012).
pub static SCHEMA: super::record::RecordSchema = super::record::RecordSchema {
    format: ID,
    classify: classify_line,
    id_keys: &["id"],
    sessions: super::record::Sessions::Unchecked,
};

fn classify_line<'a>(
    bytes: &'a [u8],
    _: &super::record::Context,
) -> std::result::Result<super::record::Record<'a>, String> {
    if let Some(reason) = torn_by_separator(bytes) {
        return Err(reason);
    }
    let v: serde_json::Map<String, Value> = super::record::parse_object(bytes, "Copilot CLI event")?;
    Ok(record(&v).into_owned())
}

/// Why a line holding a raw U+2028 / U+2029 is a torn event, if it holds one.
fn torn_by_separator(bytes: &[u8]) -> Option<String> {
    let i = memchr::memmem::find(bytes, "\u{2028}".as_bytes())
        .or_else(|| memchr::memmem::find(bytes, "\u{2029}".as_bytes()))?;
    Some(format!(
        "raw U+2028/U+2029 at byte {}: the Copilot CLI's reader splits the event there (escape it as \\u2028)",
        i + 1
    ))
}

/// The record facts of one parsed event.
fn record(m: &serde_json::Map<String, Value>) -> super::record::Record<'_> {
    use super::record::{Record, value_str};
    let mut r = Record { runner_writes: true, kind: value_str(m, "type"), ..Default::default() };
    if r.kind.is_none() || !m.get("data").is_some_and(Value::is_object) || !m.get("id").is_some_and(Value::is_string) {
        r.problem = Some("event lacks `type`, a `data` object or an `id`".into());
    }
    r
}

/// Loads an `events.jsonl`.
pub fn load(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let texts = opts.texts;
    let mut t = Transcript::default();
    let mut unknown = 0usize;
    // Calls made and not yet answered, in order; calls answered.
    let mut pending: Vec<(Box<str>, Option<Box<str>>)> = Vec::new();
    let mut compaction_start: Option<usize> = None;
    // The model response being written: its call group, whether a result or
    // another event has closed it since its last `assistant.message`, and
    // its calls still waiting for their results.
    let mut group: Option<Box<str>> = None;
    let mut group_open = false;
    let mut group_pending: std::collections::HashSet<Box<str>> = std::collections::HashSet::new();
    // The system prompts in force: (role/name, text, line), in order.
    let mut system: Vec<(String, String, u32)> = Vec::new();
    // The line of an event that ended inside a string (torn by raw newlines)
    // while its later lines follow; the first lines that had such lines.
    let mut open_first: Option<u32> = None;
    let mut continued: Vec<u32> = Vec::new();
    let (mut bad_lines, lines) = jsonl::read_lines(src, |line| {
        let hash = hash_bytes(line.bytes);
        if let Some(reason) = torn_by_separator(line.bytes) {
            open_first = None;
            return jsonl::LineVerdict::Malformed(reason);
        }
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => {
                let reason = jsonl::describe_line_error(line.bytes, &e);
                // The rest of an event torn by a raw newline: part of the
                // finding at its first line.
                let continues = open_first.is_some();
                if continues {
                    if let Some(first) = open_first {
                        if !continued.contains(&first) {
                            continued.push(first);
                        }
                    }
                    return jsonl::LineVerdict::Malformed(format!("{CONTINUATION}{reason}"));
                }
                if e.is_eof() {
                    open_first = Some(line.no);
                }
                return jsonl::LineVerdict::Malformed(reason);
            }
        };
        open_first = None;
        let rec = v.as_object().map(record).unwrap_or_default();
        let ty = rec.kind.as_deref().unwrap_or("");
        let data = v.get("data").unwrap_or(&Value::Null);
        let ephemeral = v.get("ephemeral").and_then(Value::as_bool) == Some(true);
        let sub_agent = v.get("agentId").is_some_and(|a| !a.is_null())
            || data.get("parentToolCallId").is_some_and(|a| !a.is_null());
        let mut e = Entry::at(line, ty, hash);
        e.id = v.get("id").and_then(Value::as_str).map(Into::into);
        e.time = v.get("timestamp").and_then(Value::as_str).map_or(0, parse_time);
        let mut out: Vec<(Entry, Message)> = Vec::new();
        match ty {
            "session.start" if t.header.is_none() => {
                t.header = Some(Header {
                    line: line.no,
                    version: data.get("version").and_then(Value::as_u64).unwrap_or(1) as u32,
                    session_id: data.get("sessionId").and_then(Value::as_str).map(Into::into),
                    openclaw: false,
                });
            }
            "system.message" if !ephemeral && !sub_agent => {
                // Upserted per role and name: the latest of each is sent. Copilot
                // writes it again at every turn: the same text keeps the line
                // it was first written at (the prompt the first calls sent).
                let key = format!("{}/{}", s(data, "role"), s(data, "name"));
                let text = data.get("content").and_then(Value::as_str).unwrap_or("");
                if !system.iter().any(|(k, t, _)| *k == key && t == text) {
                    system.retain(|(k, _, _)| *k != key);
                    system.push((key, text.to_string(), line.no));
                }
            }
            "user.message" if !sub_agent => {
                group = None;
                let (key, text) = match data.get("transformedContent").and_then(Value::as_str) {
                    Some(tc) => ("transformedContent", tc),
                    None => ("content", data.get("content").and_then(Value::as_str).unwrap_or("")),
                };
                let injected = data.get("source").is_some_and(|s| !s.is_null());
                let kind = if injected { MessageKind::Meta } else { MessageKind::UserTurn };
                let mut m = message(Role::User, kind, "/data".into());
                m.blocks.push(text_block(BlockKind::Text, format!("/data/{key}"), text, &Value::String(text.into())));
                m.json_hash = m.blocks[0].json_hash;
                e.class = Class::Conversation;
                out.push((e, m));
            }
            "system.notification" if !sub_agent && s(data, "kind") != "instruction_discovered" => {
                let text = data.get("content").and_then(Value::as_str).unwrap_or("");
                let mut m = message(Role::User, MessageKind::Meta, "/data".into());
                m.blocks.push(text_block(BlockKind::Text, "/data/content".into(), text, data));
                e.class = Class::Conversation;
                out.push((e, m));
            }
            "assistant.message" if !ephemeral && !sub_agent => {
                let mut m = message(Role::Assistant, MessageKind::Assistant, "/data".into());
                if let Some(r) = data.get("reasoningText").and_then(Value::as_str).filter(|r| !r.is_empty()) {
                    m.blocks.push(text_block(BlockKind::Thinking, "/data/reasoningText".into(), r, data));
                }
                let text = data.get("content").and_then(Value::as_str).unwrap_or("");
                if !text.is_empty() {
                    m.blocks.push(text_block(
                        BlockKind::Text,
                        "/data/content".into(),
                        text,
                        &Value::String(text.into()),
                    ));
                }
                let calls = data.get("toolRequests").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
                for (i, c) in calls.iter().enumerate() {
                    let args = match c.get("arguments") {
                        Some(Value::String(a)) => a.clone(),
                        Some(a) => a.to_string(),
                        None => String::new(),
                    };
                    let mut b = text_block(BlockKind::ToolCall, format!("/data/toolRequests/{i}"), &args, c);
                    b.tool_id = c.get("toolCallId").and_then(Value::as_str).map(Into::into);
                    b.tool_name = c.get("name").and_then(Value::as_str).map(Into::into);
                    if let Some(id) = &b.tool_id {
                        pending.push((id.clone(), b.tool_name.clone()));
                    }
                    m.blocks.push(b);
                }
                m.assistant = Some(Box::new(AssistantInfo {
                    stop: if calls.is_empty() { Stop::Normal } else { Stop::ToolUse },
                    model: data.get("model").and_then(Value::as_str).map(Into::into),
                    ..Default::default()
                }));
                m.json_hash = chash(&serde_json::json!([data.get("content"), data.get("toolRequests")]));
                let asks = data.get("toolRequests").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
                if group.is_none() || !asks || (!group_open && group_pending.is_empty()) {
                    group = Some(format!("copilot:{}", line.no).into());
                    group_pending.clear();
                }
                group_open = true;
                group_pending.extend(
                    m.blocks.iter().filter(|b| b.kind == BlockKind::ToolCall).filter_map(|b| b.tool_id.clone()),
                );
                e.set_call_group(group.clone());
                e.class = Class::Conversation;
                e.is_model_call = true;
                out.push((e, m));
            }
            "tool.execution_complete" if !sub_agent => {
                let id = data.get("toolCallId").and_then(Value::as_str).unwrap_or("");
                group_open = false;
                group_pending.remove(id);
                let waiting = pending.iter().position(|(p, _)| &**p == id);
                // The runtime drops a second result and a result without a call.
                if let Some(k) = waiting.filter(|_| data.get("isUserRequested").and_then(Value::as_bool) != Some(true))
                {
                    let (id, name) = pending.remove(k);
                    let success = data.get("success").and_then(Value::as_bool).unwrap_or(true);
                    let (ptr, text) = if success {
                        ("/data/result/content", data.pointer("/result/content").and_then(Value::as_str).unwrap_or(""))
                    } else {
                        ("/data/error/message", data.pointer("/error/message").and_then(Value::as_str).unwrap_or(""))
                    };
                    let mut m = message(Role::Tool, MessageKind::ToolResult, "/data".into());
                    let mut b = text_block(BlockKind::ToolResult, ptr.into(), text, &Value::String(text.into()));
                    b.tool_id = Some(id.clone());
                    b.tool_name = name;
                    m.json_hash = b.json_hash;
                    m.blocks.push(b);
                    m.result = Some(Box::new(ResultInfo { is_error: !success, ..Default::default() }));
                    e.class = Class::Conversation;
                    out.push((e, m));
                }
            }
            "abort" | "session.resume" | "session.error" => {
                group = None;
                let cold = ty == "abort"
                    || (ty == "session.resume"
                        && data.get("continuePendingWork").and_then(Value::as_bool) != Some(true));
                if cold && !pending.is_empty() {
                    let mut m = message(Role::Tool, MessageKind::ToolResult, "".into());
                    for (id, name) in pending.drain(..) {
                        let mut b = text_block(BlockKind::ToolResult, "".into(), INTERRUPTED, &Value::Null);
                        b.tool_id = Some(id);
                        b.tool_name = name;
                        m.blocks.push(b);
                    }
                    // After an `abort` the interrupted results are the aborted
                    // stop's own (the person stopped the run: a warning when the
                    // turn is sent again); after a resume they stand in for
                    // results the runtime lost.
                    m.result = Some(Box::new(ResultInfo { synthetic_or_aborted: ty != "abort", ..Default::default() }));
                    let mut re = Entry::at(line, ty, hash);
                    re.time = e.time;
                    re.class = Class::Conversation;
                    out.push((re, m));
                }
                if ty != "session.resume" && !ephemeral {
                    // A failed attempt: a stub, never sent.
                    let mut m = message(Role::Assistant, MessageKind::Assistant, "/data".into());
                    let stop = if ty == "abort" { Stop::Aborted } else { Stop::Error };
                    m.assistant = Some(Box::new(AssistantInfo { stop, ..Default::default() }));
                    e.class = Class::Conversation;
                    out.push((e, m));
                }
            }
            "session.compaction_start" => compaction_start = Some(t.entries.len()),
            "session.compaction_complete" => {
                group = None;
                let summary = data.get("summaryContent").and_then(Value::as_str);
                if let (Some(summary), true) = (summary, data.get("success").and_then(Value::as_bool) == Some(true)) {
                    let start = compaction_start.take().unwrap_or(t.entries.len());
                    let first_kept =
                        (start..t.entries.len()).find(|&i| t.entries[i].class == Class::Conversation).map(|i| i as u32);
                    let mut m = message(Role::User, MessageKind::CompactionSummary, "/data".into());
                    m.blocks.push(text_block(BlockKind::Compaction, "/data/summaryContent".into(), summary, data));
                    e.class = Class::Compaction;
                    e.set_compaction(Some(Compaction { first_kept, new_root: false }));
                    out.push((e, m));
                }
            }
            _ if ty.is_empty() => unknown += 1,
            _ => {}
        }
        if out.is_empty() {
            t.push_other_line(line.no, hash, false);
        }
        for (n, (e, m)) in out.into_iter().enumerate() {
            t.push(e, Some(&crate::model::packed::pack(&m, texts)));
            if n > 0 {
                t.mark_last_exempt();
            }
        }
        jsonl::LineVerdict::Ok
    })?;
    // An event torn by raw newlines is one finding, at its first line.
    bad_lines.kept.retain(|b| !b.reason.starts_with(CONTINUATION));
    for b in &mut bad_lines.kept {
        if continued.contains(&b.line) {
            b.reason.push_str(
                "; the event goes on over the next lines: a raw newline was written inside a string (copilot-cli #2649)",
            );
        }
    }
    if !system.is_empty() {
        // One system message of the latest prompt per role (the pointers of
        // a prompt from an earlier line say `/data/content` of that line).
        let mut m = message(Role::System, MessageKind::SystemPrompt, "/data".into());
        for (_, text, _) in &system {
            m.blocks.push(text_block(BlockKind::Text, "/data/content".into(), text, &Value::String(text.clone())));
        }
        t.base_instructions = Some(m);
        t.base_instructions_line = system.last().map_or(0, |x| x.2);
    }
    t.lines = lines;
    t.has_ids = false;
    super::link_linearly(&mut t);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

/// Marks the later lines of an event torn by raw newlines (dropped from the findings).
const CONTINUATION: &str = "\u{0}continuation: ";

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Jsonl,
    detect: Detect { record: Some(Sniffer { rank: 5, test: sniff }), ..Detect::NONE },
    fit: Fit::Records {
        test: sniff,
        missing: "no record is a Copilot CLI event (`type` such as user.message, a `data` object, `id`, `parentId`, `timestamp`)",
        document: None,
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: Some(&SCHEMA),
    repro: Repro { name: "events.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[
        // Each session folder's `events.jsonl`, not the workspace files and
        // checkpoints beside it.
        AgentFolder {
            rank: 4,
            env: &["COPILOT_HOME"],
            home: ".copilot",
            env_is_home: false,
            pattern: "session-state/*/events.jsonl",
            file: true,
        },
        // The earlier flat layout, one `<session id>.jsonl` per session
        // (Copilot CLI of late 2025, also as run inside VS Code's Copilot Chat).
        AgentFolder {
            rank: 19,
            env: &["COPILOT_HOME"],
            home: ".copilot",
            env_is_home: false,
            pattern: "session-state/*.jsonl",
            file: true,
        },
    ],
    about: About {
        what: "GitHub Copilot CLI session event logs (events.jsonl)",
        kind: "transcript",
        location: "~/.copilot/session-state/<id>/events.jsonl (or $COPILOT_HOME/session-state)",
    },
};
