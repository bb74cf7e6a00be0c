//! `claude-code`: Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`,
//! sub-agents in `<session>/subagents/agent-*.jsonl`).
//!
//! Format facts (from real sessions of CC 1.0.51 – 2.1.114 in the corpus,
//! daaain/claude-code-log's parser and its test data, and docs/spec.md §1):
//! - every record is one JSON object with a `type`. Conversation records
//!   (`user`, `assistant`, `system`, `attachment`, `progress`) carry `uuid`,
//!   `parentUuid` (`null` = a root), `sessionId`, `isSidechain`; they form a
//!   tree. Records without `uuid` (`permission-mode`, `last-prompt`,
//!   `file-history-snapshot`, `queue-operation`, `summary`, `mode`, titles,
//!   …) are state snapshots re-appended by design: bookkeeping, detached
//!   from the tree, and exempt from the byte-for-byte repeat check.
//! - one model call is written as several `assistant` records, one per content
//!   block, sharing `message.id` ([`Entry::call_group`]); each `tool_result`
//!   (in a `user` record) is parented on the record holding its `tool_use`, and
//!   the next call hangs off the last result, so sibling results of a parallel
//!   call are off the next call's path (pairing treats the group as one step).
//! - `user` records hold the prompt (`message.content` string or blocks);
//!   `isMeta` records (but for a message another agent sent, `origin.kind`
//!   `peer` or `coordinator`, which the model answers), slash-command records (`<command-name>…`, local
//!   command output, `!` shell input/output) and interrupt markers
//!   (`[Request interrupted by user…]`) are not user turns; an `isMeta`
//!   record naming a tool call (`sourceToolUseID`: a skill's body, which the
//!   `Skill` tool call loads) holds that call's output, read as tool results;
//!   `isCompactSummary` records hold the compaction summary.
//! - `system` records with `subtype: "compact_boundary"` start a new chain by
//!   design (`parentUuid: null`, `logicalParentUuid` naming the old leaf);
//!   every other `system` record (hooks, turn duration, API errors, …) and
//!   `progress` records are bookkeeping.
//! - `attachment` records are sent to the model only for the kinds the
//!   runtime injects as context (hook additional context, reminders, memory,
//!   mentioned files, …): those are `Meta` messages (a `queued_command` in
//!   prompt mode, typed by the user mid-run, is a user turn); other kinds are
//!   bookkeeping.
//! - API-error stubs are assistant records with `isApiErrorMessage: true` or
//!   model `<synthetic>`; they are not model calls and are never sent again.
//! - schema drift is tolerated: records without `type` (usage-only lines),
//!   top-level `tool_use` / `tool_result` records, and unknown types are kept
//!   as bookkeeping and counted in `unknown_records`; records that lack the
//!   `parentUuid` key altogether (early or third-party writers) are read as a
//!   linear chain (parent = the previous record with a `uuid`).

use super::format::{About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::SourceRef;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;

/// Format id.
pub const ID: FormatId = FormatId::new("claude-code");

/// Every field is read as a raw value and interpreted leniently: a field of an
/// unexpected JSON type (schema drift, trimmed fixtures) must not make the
/// whole record unreadable.
#[derive(Deserialize)]
struct RawRecord<'a> {
    #[serde(rename = "type", default, borrow)]
    rtype: Option<&'a RawValue>,
    #[serde(default, borrow)]
    uuid: Option<&'a RawValue>,
    /// `None`: key absent; `Some(None)`: `null`.
    #[serde(rename = "parentUuid", default, deserialize_with = "some_or_null", borrow)]
    parent_uuid: Option<Option<&'a RawValue>>,
    #[serde(rename = "isSidechain", default, borrow)]
    is_sidechain: Option<&'a RawValue>,
    #[serde(rename = "isMeta", default, borrow)]
    is_meta: Option<&'a RawValue>,
    /// On an `isMeta` user record: the tool call whose output it carries (a
    /// skill's body, which the `Skill` tool call loads: its `tool_result`
    /// says only "Launching skill: …").
    #[serde(rename = "sourceToolUseID", default, borrow)]
    source_tool_use_id: Option<&'a RawValue>,
    #[serde(rename = "isCompactSummary", default, borrow)]
    is_compact_summary: Option<&'a RawValue>,
    /// The Claude Code version that wrote the record (`"1.0.90"`).
    #[serde(default, borrow)]
    version: Option<&'a RawValue>,
    #[serde(rename = "isApiErrorMessage", default, borrow)]
    is_api_error: Option<&'a RawValue>,
    #[serde(rename = "isAbortedMidStream", default, borrow)]
    aborted_mid_stream: Option<&'a RawValue>,
    #[serde(default, borrow)]
    subtype: Option<&'a RawValue>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default, borrow)]
    attachment: Option<&'a RawValue>,
    #[serde(default, borrow)]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "sessionId", default, borrow)]
    session_id: Option<&'a RawValue>,
    /// Who sent a `user` record (`{"kind": "human" | "task-notification" |
    /// "peer" | "coordinator", …}`); read only on `isMeta` records.
    #[serde(default, borrow)]
    origin: Option<&'a RawValue>,
}

/// The record facts of a Claude Code session (used by [`load`] and by
/// `fence`): records with a `uuid` form the tree (`parentUuid`, `null` = a
/// root; a `compact_boundary` or a sidechain start is a root by design), every
/// record names its `sessionId`, and every record is the runtime's own.
pub static SCHEMA: super::record::RecordSchema = super::record::RecordSchema {
    format: ID,
    classify: classify_line,
    id_keys: &["uuid", "sessionId"],
    sessions: super::record::Sessions::AnyOfFile,
};

fn classify_line<'a>(
    bytes: &'a [u8],
    _: &super::record::Context,
) -> std::result::Result<super::record::Record<'a>, String> {
    let raw: RawRecord = super::record::parse_object(bytes, "Claude Code record")?;
    let msg = parse_message(raw.message);
    Ok(record(&raw, msg.as_ref()).into_owned())
}

/// The record facts of one parsed record; `msg` is its parsed `message`.
fn record<'b>(raw: &'b RawRecord<'_>, msg: Option<&'b RawMessage<'_>>) -> super::record::Record<'b> {
    use super::record::{Parent, Record};
    let kind = rstr(raw.rtype);
    let mut r = Record { runner_writes: true, ..Default::default() };
    if kind.is_none() {
        r.problem = Some("record has no `type`".into());
    }
    r.role = msg.and_then(|m| rstr(m.role));
    r.session = rstr(raw.session_id);
    match (raw.uuid, rstr(raw.uuid)) {
        (None, _) => {}
        (Some(_), Some(u)) if !u.is_empty() => {
            r.id = Some(u);
            r.tree = true;
            r.parent = match raw.parent_uuid {
                // Claude Code always writes `parentUuid`; a record without the
                // key (hand-made or converted transcripts) is read linearly.
                None => Parent::Absent,
                Some(None) => Parent::Null,
                Some(Some(p)) => match rstr(Some(p)) {
                    Some(p) => Parent::Id(p),
                    None => {
                        r.problem.get_or_insert("`parentUuid` is neither a string nor null".into());
                        Parent::Null
                    }
                },
            };
        }
        (Some(_), _) => {
            r.problem.get_or_insert("record `uuid` is not a non-empty string".into());
        }
    }
    // Roots by design: a `compact_boundary`, a sub-agent's first record, and
    // a person's prompt with `parentUuid: null` mid-file — Claude Code's rewind
    // (Esc Esc, pick a message) branches from the picked prompt's parent, so a
    // prompt written anew in place of the first one is a fork at the root.
    let rewound_first_prompt = kind.as_deref() == Some("user")
        && !rtrue(raw.is_meta)
        && !rtrue(raw.is_compact_summary)
        && msg.and_then(|m| m.content).is_some_and(|c| !c.get().contains("\"tool_result\""));
    // Claude Code 1.0.x wrote no `compact_boundary`: its compaction summary
    // (`isCompactSummary: true`, "This session is being continued from a
    // previous conversation…") is itself the new chain's root (real sessions
    // of CC 1.0.90). From 2.x the summary hangs off the boundary.
    let v1_compaction = kind.as_deref() == Some("user")
        && rtrue(raw.is_compact_summary)
        && rstr(raw.version).is_some_and(|v| v.starts_with("1."));
    r.root_exempt = (kind.as_deref() == Some("system") && rstr(raw.subtype).as_deref() == Some("compact_boundary"))
        || rtrue(raw.is_sidechain)
        || v1_compaction
        || rewound_first_prompt;
    r.kind = kind;
    r
}

#[derive(Deserialize, Default)]
struct RawMessage<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    role: Option<&'a RawValue>,
    #[serde(default, borrow)]
    model: Option<&'a RawValue>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    stop_reason: Option<&'a RawValue>,
    /// A usage of the wrong shape is not recorded; it never costs the record.
    #[serde(default)]
    usage: super::usage::ObjectOnly<RawUsage>,
}

/// The Anthropic Messages API's `usage`, as Claude Code records it on each
/// assistant record: `input_tokens` excludes the cached tokens.
#[derive(Deserialize, Default)]
struct RawUsage {
    #[serde(default)]
    input_tokens: super::usage::Count,
    #[serde(default)]
    cache_read_input_tokens: super::usage::Count,
    #[serde(default)]
    cache_creation_input_tokens: super::usage::Count,
    #[serde(default)]
    output_tokens: super::usage::Count,
    #[serde(default)]
    cache_creation: super::usage::ObjectOnly<RawCacheCreation>,
}

/// `usage.cache_creation`: the cache writes by lifetime (Anthropic prompt caching).
#[derive(Deserialize, Default)]
struct RawCacheCreation {
    #[serde(default)]
    ephemeral_1h_input_tokens: super::usage::Count,
}

impl RawUsage {
    fn get(&self) -> Option<crate::model::Usage> {
        let n = super::usage::count_of;
        let u = crate::model::Usage {
            input: n(self.input_tokens),
            cache_read: n(self.cache_read_input_tokens),
            cache_write: n(self.cache_creation_input_tokens),
            cache_write_1h: self.cache_creation.0.as_ref().map_or(0, |c| n(c.ephemeral_1h_input_tokens)),
            output: n(self.output_tokens),
        };
        (u != crate::model::Usage::default()).then_some(u)
    }
}

#[derive(Deserialize, Default)]
struct RawBlock<'a> {
    #[serde(rename = "type", default, borrow)]
    btype: Option<&'a RawValue>,
    #[serde(default, borrow)]
    text: Option<&'a RawValue>,
    #[serde(default, borrow)]
    thinking: Option<&'a RawValue>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    name: Option<&'a RawValue>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_use_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    is_error: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct RawAttachment<'a> {
    #[serde(rename = "type", default, borrow)]
    atype: Option<&'a RawValue>,
    #[serde(rename = "commandMode", default, borrow)]
    command_mode: Option<&'a RawValue>,
}

/// Distinguishes a missing field (`None`) from `null` (`Some(None)`).
fn some_or_null<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A raw value as a string, if it is one.
fn rstr(v: Option<&RawValue>) -> Option<Cow<'_, str>> {
    let v = v?;
    let s = v.get();
    if !s.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(s) {
        Ok(b) => Some(Cow::Borrowed(b)),
        Err(_) => serde_json::from_str::<String>(s)
            .ok()
            // A lone surrogate escape (Claude Code cutting a tool's output
            // inside an emoji): read with U+FFFD there, the one unreadable
            // character JSON.parse gives the runtime, not as no text at all.
            .or_else(|| serde_json::from_str::<String>(&jsonl::replace_lone_surrogates(s)?).ok())
            .map(Cow::Owned),
    }
}

/// A raw value is JSON `true`.
fn rtrue(v: Option<&RawValue>) -> bool {
    v.is_some_and(|v| v.get() == "true")
}

/// Attachment kinds the runtime renders into the model's context (as
/// `<system-reminder>` user content). Every other kind (hook success/error
/// notices, mode switches, budgets, …) is bookkeeping.
const INJECTED_ATTACHMENTS: &[&str] = &[
    "hook_additional_context",
    "deferred_tools_delta",
    "mcp_instructions_delta",
    "compact_file_reference",
    "plan_mode_exit",
    "plan_mode_reentry",
    "nested_memory",
    "file",
    "edited_text_file",
    "todo_reminder",
    "task_reminder",
    "plan_mode",
    "critical_system_reminder",
    "queued_command",
    "skill_listing",
    "invoked_skills",
    "date_change",
];

/// Record types that are known bookkeeping (not counted as unknown).
const KNOWN_BOOKKEEPING: &[&str] = &[
    "progress",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "permission-mode",
    "last-prompt",
    "mode",
    "custom-title",
    "ai-title",
    "agent-name",
    "tag",
    "worktree-state",
    "pr-link",
    "frame-link",
    "teleported-from",
];

/// Claude Code: the prompt a slash command expands to — an `isMeta` user
/// record (a `Meta` message) parented on the command's own record
/// (`<command-message>…<command-name>/name</command-name>`). For a custom,
/// plugin or skill command the expanded prompt is sent as the person's
/// request (Claude Code's slash-commands documentation), so the model's
/// answer to it is a new turn's reply. A built-in command run locally
/// (`/model`, `/clear`) is followed by its `<local-command-stdout>` output
/// instead, which is a marker, not a prompt.
pub fn expands_command(t: &crate::model::Transcript, e: &crate::model::Entry) -> bool {
    use crate::model::{BlockKind, Entry, MessageKind, Parent};
    let Parent::Entry(p) = e.parent else { return false };
    let pe = &t.entries[p as usize];
    if e.kind() != Some(MessageKind::Meta) || pe.kind() != Some(MessageKind::Meta) {
        return false;
    }
    let first_text = |x: &Entry| -> Option<String> {
        let m = t.packed(x)?;
        let b = m.blocks().find(|b| b.kind == BlockKind::Text)?;
        Some(b.text().trim_start().chars().take(64).collect())
    };
    let Some(command) = first_text(pe) else { return false };
    if !(command.starts_with("<command-message>") || command.starts_with("<command-name>")) {
        return false;
    }
    // (A command file may open with a tag of its own: only Claude Code's markers are no prompt.)
    const MARKERS: [&str; 5] = ["<command-", "<local-command-", "<bash-", "Caveat:", "[Request interrupted"];
    first_text(e).is_some_and(|p| !p.is_empty() && !MARKERS.iter().any(|m| p.starts_with(m)))
}

/// Claude Code: what a command the person ran in Claude Code itself gives
/// the model — an `isMeta` user record (a `Meta` message) parented on the
/// command's `system` record (`subtype: "local_command"`, holding
/// `<command-name>` or `<local-command-stdout>`), such as `/context`'s
/// `## Context Usage` report (Claude Code 2.1.2xx sessions). Two runs of one
/// command give equal output by design.
pub fn follows_local_command(t: &crate::model::Transcript, e: &crate::model::Entry) -> bool {
    use crate::model::{MessageKind, Parent};
    let Parent::Entry(p) = e.parent else { return false };
    e.kind() == Some(MessageKind::Meta) && t.entries[p as usize].local_command()
}

/// Texts Claude Code writes as user content that no person typed as a prompt.
fn is_command_or_marker(text: &str) -> bool {
    let t = text.trim_start();
    const PREFIXES: &[&str] = &[
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<bash-input>",
        "<bash-stdout>",
        "<bash-stderr>",
        "[Request interrupted by user",
        "Caveat: The messages below were generated by the user while running local commands",
    ];
    PREFIXES.iter().any(|p| t.starts_with(p))
}

/// What one line of a Claude Code session is, parsed on its own (in
/// parallel, see [`jsonl::read_lines_par`]); [`load`] assembles the lines in order.
enum Parsed {
    /// Not exactly one JSON value: the reason.
    Malformed(String),
    /// Valid JSON of an unexpected shape (not an object, duplicate keys): the line's hash.
    Unknown(u64),
    /// A record.
    Entry(Box<ParsedEntry>),
}

struct ParsedEntry {
    entry: Entry,
    /// Its message, packed.
    packed: Option<Box<[u8]>>,
    /// `parentUuid`: absent (linear fallback), `null`, or a uuid.
    parent: Option<Option<Box<str>>>,
    /// A record of an unknown type or without its message.
    unknown: bool,
    /// The model call's reported usage (assistant records).
    usage: Option<crate::model::Usage>,
}

fn parse_line(line: &crate::source::Line<'_>, texts: crate::model::packed::Texts) -> Parsed {
    parse_line_once(line, texts, true)
}

/// [`parse_line`]; a line that writes a key twice is read as JSON.parse
/// reads it (the last value) when `retry`, else kept as an unknown record.
fn parse_line_once(line: &crate::source::Line<'_>, texts: crate::model::packed::Texts, retry: bool) -> Parsed {
    let hash = hash_bytes(line.bytes);
    let raw: RawRecord = match jsonl::parse_record(line.bytes) {
        Ok(r) => r,
        Err(jsonl::Rejected::Malformed(reason)) => return Parsed::Malformed(reason),
        Err(jsonl::Rejected::DuplicateKey(fixed)) if retry => {
            return parse_line_once(&crate::source::Line { bytes: fixed.as_bytes(), ..*line }, texts, false);
        }
        Err(jsonl::Rejected::Unknown | jsonl::Rejected::DuplicateKey(_)) => return Parsed::Unknown(hash),
    };
    let rtype = rstr(raw.rtype);
    let msg = match rtype.as_deref() {
        Some("user" | "assistant") => parse_message(raw.message),
        _ => None,
    };
    let rec = record(&raw, msg.as_ref());
    let etype = rec.kind.as_deref().unwrap_or("");
    let mut entry = Entry::at(line, etype, hash);
    if rec.root_exempt && etype == "user" && !rtrue(raw.is_sidechain) {
        entry.set_root_fork();
    }
    entry.id = rec.id.as_deref().map(Into::into);
    entry.sidechain = rtrue(raw.is_sidechain);
    entry.time = rstr(raw.timestamp).as_deref().map_or(0, crate::model::parse_time);
    let parent = match &rec.parent {
        super::record::Parent::Absent => None,
        super::record::Parent::Null => Some(None),
        super::record::Parent::Id(p) => Some(Some(p.as_ref().into())),
    };
    let mut unknown = false;
    let mut packed = None;
    let mut usage = None;
    match etype {
        "user" => match msg.as_ref() {
            Some(m) => {
                entry.class = Class::Conversation;
                packed = Some(crate::model::packed::pack(
                    &user_message(m, meta_of(&raw), rtrue(raw.is_compact_summary)),
                    texts,
                ));
            }
            None => unknown = true,
        },
        "assistant" => match msg.as_ref() {
            Some(m) => {
                let (msg, group, model_call) =
                    assistant_message(m, rtrue(raw.is_api_error), rtrue(raw.aborted_mid_stream));
                entry.class = Class::Conversation;
                packed = Some(crate::model::packed::pack(&msg, texts));
                entry.set_call_group(group);
                entry.is_model_call = model_call;
                if model_call {
                    usage = m.usage.0.as_ref().and_then(RawUsage::get);
                }
            }
            None => unknown = true,
        },
        "system" => match rstr(raw.subtype).as_deref() {
            Some("compact_boundary") => {
                entry.class = Class::Compaction;
                // `new_root` is settled once parents are resolved.
                entry.set_compaction(Some(Compaction { first_kept: None, new_root: false }));
            }
            Some("local_command") => entry.set_local_command(),
            Some("api_error") => {
                // A model call that failed: Claude Code writes one such record per
                // failed try (`retryAttempt` of `maxRetries`, `error.status`) and
                // retries; when the tries are spent it writes an API-error stub,
                // and when the person interrupts the retries it writes
                // `[Request interrupted by user]` (shapes as read by
                // daaain/claude-code-log and ryoppippi/ccusage; docs/spec.md §1 failed
                // attempt). Loaded as a failed assistant stub that is no model
                // call and is never sent again, like OpenClaw's prompt-error record.
                entry.class = Class::Conversation;
                packed = Some(crate::model::packed::pack(&api_error_stub(), texts));
            }
            _ => {}
        },
        "attachment" => {
            if let Some(m) = attachment_message(raw.attachment) {
                entry.class = Class::Conversation;
                packed = Some(crate::model::packed::pack(&m, texts));
            }
        }
        // Schema drift: top-level tool records (no ids to pair), tolerated.
        "tool_use" | "tool_result" => unknown = true,
        k if KNOWN_BOOKKEEPING.contains(&k) => {}
        _ => unknown = true,
    }
    if entry.class == Class::Bookkeeping {
        // Claude Code writes its bookkeeping when the *next* run starts (a
        // `queue-operation` for the typed prompt, an `away_summary` after a
        // break, `last-prompt`, snapshots): such a record never dates the
        // attempt before it (docs/spec.md §2 CTX203: the failed attempt's last entry is
        // its own last model-side entry or error record).
        entry.time = 0;
    }
    Parsed::Entry(Box::new(ParsedEntry { entry, packed, parent, unknown, usage }))
}

/// Loads a Claude Code session.
pub fn load(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let mut t = Transcript::default();
    let mut pids = super::ParentIds::default();
    // Per entry: no `parentUuid` key (the linear fallback applies).
    let mut linear: Vec<bool> = Vec::new();
    let mut unknown = 0usize;

    let (bad_lines, lines) = jsonl::read_lines_par(
        src,
        |l| parse_line(l, opts.texts),
        |line, parsed, estimate| {
            if t.entries.capacity() == 0 && estimate > 0 {
                t.entries.reserve(estimate);
                pids.reserve(estimate);
                linear.reserve(estimate);
            }
            match parsed {
                Parsed::Malformed(reason) => return jsonl::LineVerdict::Malformed(reason),
                Parsed::Unknown(hash) => {
                    unknown += 1;
                    t.push_other_line(line.no, hash, false);
                }
                Parsed::Entry(p) => {
                    let ParsedEntry { mut entry, packed, parent, unknown: unk, usage } = *p;
                    if let Some(u) = usage {
                        t.set_usage(t.entries.len() as u32, u);
                    }
                    let exempt = entry.id.is_none();
                    unknown += usize::from(unk);
                    linear.push(parent.is_none());
                    pids.add(&t.entries, &mut entry, parent.flatten().as_deref());
                    t.push(entry, packed.as_deref());
                    if exempt {
                        t.mark_last_exempt();
                    }
                }
            }
            jsonl::LineVerdict::Ok
        },
    )?;

    t.lines = lines;
    t.has_ids = true;
    t.header = None;
    // Ids resolve over uuid-bearing records only; then the linear fallback for
    // records without a `parentUuid` key, and uuid-less records are detached.
    pids.finish(&mut t);
    let mut prev_with_id: Option<u32> = None;
    for (i, e) in t.entries.iter_mut().enumerate() {
        if e.id.is_none() {
            e.parent = Parent::Detached;
            e.class = Class::Bookkeeping;
            e.time = 0;
            e.is_model_call = false;
            e.clear_message();
            e.set_compaction(None);
            continue;
        }
        if linear[i] {
            e.parent = match prev_with_id {
                // A compaction boundary without a parent key starts a new chain.
                _ if e.compaction().is_some() => Parent::Root,
                Some(p) => Parent::Entry(p),
                None => Parent::Root,
            };
        }
        let is_root = e.parent == Parent::Root;
        if let Some(c) = e.compaction_mut() {
            c.new_root = is_root;
        }
        prev_with_id = Some(i as u32);
    }
    bridge_unwritten_attachments(src, &mut t);
    super::fill_id_repeats(src, &mut t);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

/// Whether a Claude Code version (`"2.1.92"`) is one that writes no
/// attachment record into a sub-agent's file: 2.1.69 or later (2.1.92 seen
/// doing it; 2.1.2–2.1.68 seen writing them).
fn leaves_attachment_out(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor), Some(patch)) => (major, minor, patch) >= (2, 1, 69),
        _ => false,
    }
}

/// A sub-agent's reply parented on an attachment the runtime sent but did not
/// write to the sub-agent's file is hung on the prompt written right before
/// it, as Claude Code's own resume does.
///
/// Claude Code 2.1.92 parents the first reply after each prompt on an
/// `attachment` record (`deferred_tools_delta` and the like, written in the
/// main session's file between the prompt and the reply) and writes no
/// attachment record into a sub-agent's `subagents/agent-<hex>.jsonl`
/// (anthropics/claude-code#75283: attachments delivered to sub-agents are not
/// persisted to their transcripts); resuming the sub-agent writes its records
/// again with that reply parented on the prompt. Seen in every 2.1.92
/// sub-agent file of a real session, in none from 2.1.2–2.1.68. Only in a
/// sub-agent's own file (`subagents/agent-*.jsonl`) written by 2.1.69 or
/// later, and only a sidechain assistant message whose parent names no record
/// of the file, which
/// no other record names, written right after a sidechain prompt (a user turn)
/// that nothing else hangs on, is hung there; a file that lost its head (a
/// reply or result first, a prompt with later records below it) is still
/// broken. A record written again when the sub-agent resumed, equal to the
/// bridged one but for its repaired `parentUuid`, is that record written again
/// (one run of lines written again, not an id reused with other content).
/// (Records lost from such a file right after a prompt leave the same shape:
/// that loss is not seen.)
fn bridge_unwritten_attachments(src: &SourceRef, t: &mut Transcript) {
    if !t.entries.iter().any(|e| matches!(e.parent, Parent::Dangling(_)) && e.sidechain) {
        return;
    }
    let mut named: HashMap<&str, u32> = HashMap::new();
    for e in &t.entries {
        if let Parent::Dangling(k) = e.parent {
            *named.entry(&t.dangling_ids[k as usize]).or_default() += 1;
        }
    }
    // (Records written again under an id already used are no new children.)
    let repeated: std::collections::HashSet<u32> = t.id_repeats.iter().map(|r| r.entry).collect();
    let mut has_child = vec![false; t.entries.len()];
    for (i, e) in t.entries.iter().enumerate() {
        if let Parent::Entry(p) = e.parent {
            has_child[p as usize] |= !repeated.contains(&(i as u32));
        }
    }
    let mut bridged = Vec::new();
    for i in 1..t.entries.len() {
        let (e, prev) = (&t.entries[i], &t.entries[i - 1]);
        let Parent::Dangling(k) = e.parent else { continue };
        let fits = e.sidechain
            && e.etype() == "assistant"
            && e.class == Class::Conversation
            && named.get(&*t.dangling_ids[k as usize]) == Some(&1)
            && prev.sidechain
            && prev.id.is_some()
            && prev.is_user_turn()
            && !has_child[i - 1]
            && (prev.time == 0 || e.time == 0 || prev.time <= e.time);
        if fits {
            bridged.push(i as u32);
        }
    }
    // Only in a sub-agent's own file (`subagents/agent-*.jsonl`), written by
    // a build that leaves the attachment out (seen in 2.1.92; 2.1.68 and
    // earlier write it): read again from the candidates' lines.
    let name = std::path::Path::new(&src.display);
    let subagent_file = name.parent().and_then(|p| p.file_name()).is_some_and(|p| p == "subagents")
        && name.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("agent-"));
    if !subagent_file || bridged.is_empty() {
        return;
    }
    let lines: std::collections::HashSet<u32> = bridged.iter().map(|&i| t.entries[i as usize].line).collect();
    let mut recent = std::collections::HashSet::new();
    if let Ok(mut lr) = src.lines() {
        while let Ok(Some(l)) = lr.next_line() {
            if lines.contains(&l.no) {
                let v: Option<serde_json::Value> = serde_json::from_slice(l.bytes).ok();
                if v.as_ref()
                    .and_then(|v| v.get("version"))
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(leaves_attachment_out)
                {
                    recent.insert(l.no);
                }
            }
        }
    }
    bridged.retain(|&i| recent.contains(&t.entries[i as usize].line));
    for &i in &bridged {
        t.entries[i as usize].parent = Parent::Entry(i - 1);
    }
    // Records written again by a resume with the repaired parent.
    let again: Vec<(u32, u32)> = t
        .id_repeats
        .iter()
        .filter(|r| {
            bridged.binary_search(&r.first).is_ok()
                && t.entries[r.entry as usize].parent == t.entries[r.first as usize].parent
        })
        .map(|r| (r.entry, r.first))
        .collect();
    if again.is_empty() {
        return;
    }
    let wanted: std::collections::HashSet<u32> =
        again.iter().flat_map(|&(a, b)| [t.entries[a as usize].line, t.entries[b as usize].line]).collect();
    let mut hashes: HashMap<u32, u64> = HashMap::new();
    if let Ok(mut lr) = src.lines() {
        while let Ok(Some(l)) = lr.next_line() {
            if wanted.contains(&l.no) {
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(l.bytes) {
                    hashes.insert(l.no, crate::hash::canonical_hash(&v, &["parentUuid"]));
                }
            }
        }
    }
    for (a, b) in again {
        let (la, lb) = (t.entries[a as usize].line, t.entries[b as usize].line);
        if hashes.get(&la).is_some_and(|h| hashes.get(&lb) == Some(h)) {
            t.entries[a as usize].raw_hash = t.entries[b as usize].raw_hash;
        }
    }
}

fn parse_message(v: Option<&RawValue>) -> Option<RawMessage<'_>> {
    let v = v?;
    if !v.get().starts_with('{') {
        return None;
    }
    Some(serde_json::from_str(v.get()).unwrap_or_default())
}

/// The blocks of a `message.content` value (string or array). Text of
/// prompt-side messages is kept in full.
fn blocks(content: Option<&RawValue>, keep_full: bool) -> (Vec<Block>, bool) {
    let mut out = Vec::new();
    let mut any_error = false;
    let Some(c) = content else { return (out, any_error) };
    let s = c.get();
    if s.starts_with('"') {
        let text = rstr(Some(c)).unwrap_or_default();
        out.push(Block::new(BlockKind::Text, Cow::Borrowed("/message/content"), &text, keep_full));
    } else if s.starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(s).unwrap_or_default();
        for (i, it) in items.iter().enumerate() {
            let b: RawBlock = if it.get().starts_with('{') {
                serde_json::from_str(it.get()).unwrap_or_default()
            } else {
                RawBlock::default()
            };
            any_error |= rtrue(b.is_error);
            out.push(block(&b, i, keep_full));
        }
    }
    (out, any_error)
}

fn block(b: &RawBlock, i: usize, keep_full: bool) -> Block {
    let ptr: Ptr = Cow::Owned(format!("/message/content/{i}"));
    let btype = rstr(b.btype);
    match btype.as_deref().unwrap_or("") {
        "text" => Block::new(BlockKind::Text, ptr, &rstr(b.text).unwrap_or_default(), keep_full),
        "thinking" => Block::new(BlockKind::Thinking, ptr, &rstr(b.thinking).unwrap_or_default(), false),
        "redacted_thinking" => Block::new(BlockKind::Thinking, ptr, "", false),
        "tool_use" => {
            let mut bl = Block::new(BlockKind::ToolCall, ptr, b.input.map(RawValue::get).unwrap_or(""), false);
            bl.tool_id = rstr(b.id).as_deref().map(Into::into);
            bl.tool_name = rstr(b.name).as_deref().map(Into::into);
            bl
        }
        "tool_result" => {
            let mut bl = Block::new(BlockKind::ToolResult, ptr, &result_text(b.content), false);
            bl.tool_id = rstr(b.tool_use_id).as_deref().map(Into::into);
            bl
        }
        "image" | "document" => Block::new(BlockKind::Media, ptr, "", false),
        // Server-side tools (`server_tool_use`, `web_search_tool_result`, MCP
        // connector blocks) carry their own results: not paired here.
        other => Block::new(BlockKind::Other, ptr, rstr(b.text).as_deref().unwrap_or(other), keep_full),
    }
}

/// The text of a `tool_result` content (string, or text blocks joined).
fn result_text(content: Option<&RawValue>) -> String {
    let Some(c) = content else { return String::new() };
    let s = c.get();
    if s.starts_with('"') {
        return rstr(Some(c)).unwrap_or_default().into_owned();
    }
    if s.starts_with('[') {
        let items: Vec<RawBlock> = serde_json::from_str(s).unwrap_or_default();
        return items.iter().filter_map(|b| rstr(b.text)).collect::<Vec<_>>().join("\n");
    }
    String::new()
}

/// How a `user` record's `isMeta` reads: not meta, meta (context the
/// runtime adds), or the output of a tool call the model made, carried in a
/// meta record of its own (`sourceToolUseID`: a skill's body loaded by the
/// `Skill` tool, loaded again by design each time the model calls it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Meta {
    No,
    Context,
    ToolOutput,
}

fn meta_of(raw: &RawRecord<'_>) -> Meta {
    match (rtrue(raw.is_meta), rstr(raw.source_tool_use_id).is_some_and(|s| !s.is_empty())) {
        (false, _) => Meta::No,
        // A message another agent sent this one, which the model answers: a
        // new turn, though Claude Code marks it `isMeta` (no person typed it).
        (true, false) if from_another_agent(raw.origin) => Meta::No,
        (true, false) => Meta::Context,
        (true, true) => Meta::ToolOutput,
    }
}

/// Whether a `user` record's `origin` names another agent as its sender:
/// `peer` (another Claude Code session: `Another Claude session sent a
/// message: <cross-session-message …>`) or `coordinator` (the session that
/// started a sub-agent: `The coordinator sent a message while you were
/// working: …`). Shapes as written by real sessions of Claude Code 2.1.2xx
/// (its source is not public).
fn from_another_agent(origin: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Origin<'a> {
        #[serde(default, borrow)]
        kind: Option<&'a RawValue>,
    }
    let Some(o) = origin.filter(|o| o.get().starts_with('{')) else { return false };
    serde_json::from_str::<Origin>(o.get())
        .ok()
        .and_then(|o| rstr(o.kind))
        .is_some_and(|k| k == "peer" || k == "coordinator")
}

fn user_message(m: &RawMessage, meta: Meta, compact_summary: bool) -> Message {
    let (mut bl, is_error) = blocks(m.content, true);
    let has_result = bl.iter().any(|b| b.kind == BlockKind::ToolResult);
    let texts: Vec<&str> = bl.iter().filter(|b| b.kind == BlockKind::Text).map(|b| b.text.as_ref()).collect();
    let only_markers = texts.iter().all(|t| t.trim().is_empty() || is_command_or_marker(t));
    let kind = if compact_summary {
        MessageKind::CompactionSummary
    } else if (has_result
        && only_markers
        && bl.iter().all(|b| matches!(b.kind, BlockKind::ToolResult | BlockKind::Text)))
        || meta == Meta::ToolOutput
    {
        MessageKind::ToolResults
    } else if meta == Meta::Context || (!texts.is_empty() && only_markers) {
        MessageKind::Meta
    } else {
        MessageKind::UserTurn
    };
    let mut msg = Message {
        role: Role::User,
        kind,
        pointer: Cow::Borrowed("/message"),
        blocks: Vec::new(),
        assistant: None,
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    };
    if kind == MessageKind::ToolResults {
        let aborted =
            bl.iter().any(|b| b.kind == BlockKind::ToolResult && b.has_full_text() && b.text.trim() == "aborted");
        msg.result = Some(Box::new(ResultInfo { synthetic_or_aborted: aborted, delivered: false, is_error }));
    }
    if !kind.is_prompt_side() {
        // Tool results keep only a prefix of their text.
        for b in &mut bl {
            if b.kind != BlockKind::ToolResult && b.has_full_text() && b.text.len() > 240 {
                let keep = crate::text::prefix(&b.text, 240).to_string();
                b.text = keep.into();
            }
        }
    }
    msg.blocks = bl;
    msg
}

/// (message, call group, is a model call).
fn assistant_message(m: &RawMessage, api_error_flag: bool, aborted: bool) -> (Message, Option<Box<str>>, bool) {
    let (mut bl, _) = blocks(m.content, false);
    // A tool result in the model's own message is a server-side tool's,
    // returned in the same response as its `server_tool_use` call (Z.ai's
    // built-in `webReader` on its Anthropic-compatible endpoint, as Claude
    // Code records it): no client call answered, none to pair.
    for b in bl.iter_mut().filter(|b| b.kind == BlockKind::ToolResult) {
        b.kind = BlockKind::Other;
    }
    let model = rstr(m.model);
    // `<synthetic>` assistant records are written by Claude Code itself, not
    // by the model: an API-error stub (`isApiErrorMessage: true`; older builds
    // wrote some without the flag), or the "No response requested." placeholder
    // that answers a turn that asked for none (a resumed session's "Continue
    // from where you left off.", an interrupted or superseded prompt). The
    // placeholder is no error and no reply: transcript-only.
    let synthetic = model.as_deref() == Some("<synthetic>");
    let placeholder = synthetic
        && !api_error_flag
        && bl.iter().all(|b| b.kind == BlockKind::Text && b.text.trim() == NO_RESPONSE_REQUESTED);
    let api_error = api_error_flag || (synthetic && !placeholder);
    let stop = if aborted {
        Stop::Aborted
    } else {
        match rstr(m.stop_reason).as_deref() {
            Some(
                "end_turn"
                | "stop_sequence"
                | "max_tokens"
                | "pause_turn"
                | "refusal"
                | "model_context_window_exceeded",
            ) => Stop::Normal,
            Some("tool_use") => Stop::ToolUse,
            _ => Stop::Unknown,
        }
    };
    let info = AssistantInfo {
        stop,
        model: model.as_deref().map(Into::into),
        transcript_only: placeholder,
        api_error,
        delivery_mirror: false,
        rewritten: false,
    };
    let msg = Message {
        role: Role::Assistant,
        kind: MessageKind::Assistant,
        pointer: Cow::Borrowed("/message"),
        blocks: bl,
        assistant: Some(Box::new(info)),
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    };
    let group = rstr(m.id).filter(|s| !s.is_empty()).map(|s| s.as_ref().into());
    (msg, group, !api_error && !placeholder)
}

/// The text of Claude Code's `<synthetic>` placeholder reply.
const NO_RESPONSE_REQUESTED: &str = "No response requested.";

/// The failed-attempt stub of a `system` `api_error` record: an assistant
/// message that ended with an error, with no content and no model.
fn api_error_stub() -> Message {
    Message {
        role: Role::Assistant,
        kind: MessageKind::Assistant,
        pointer: Cow::Borrowed(""),
        blocks: Vec::new(),
        assistant: Some(Box::new(AssistantInfo { stop: Stop::Error, ..Default::default() })),
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    }
}

/// The Meta message of an injected attachment, or `None` (bookkeeping).
///
/// Claude Code turns each injected attachment into user content wrapped in
/// `<system-reminder>` tags when it builds the request (shapes as written in
/// real session files of CC 2.1.x and as read by daaain/claude-code-log and
/// ryoppippi/ccusage). The session file records the attachment's data, not the
/// fixed wording around it, so each is loaded as its data — the text that
/// varies — inside `<system-reminder>` tags: a reminder sent again with the
/// same data is the same block (CTX102 compares it), one sent with changed
/// data (a todo list that moved on) is not, and its size counts.
fn attachment_message(v: Option<&RawValue>) -> Option<Message> {
    let v = v.filter(|v| v.get().starts_with('{'))?;
    let a: RawAttachment = serde_json::from_str(v.get()).unwrap_or_default();
    let kind = rstr(a.atype)?;
    if !INJECTED_ATTACHMENTS.contains(&kind.as_ref()) {
        return None;
    }
    let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(v.get()).unwrap_or_default();
    let mut blocks = Vec::new();
    // Kinds loaded from their data alone are labelled with the kind, so two
    // notices of different kinds on the same data (a plan file entered and
    // left) differ, and a reader sees what the block is.
    let label = !matches!(
        kind.as_ref(),
        "hook_additional_context"
            | "critical_system_reminder"
            | "skill_listing"
            | "file"
            | "nested_memory"
            | "queued_command"
            | "edited_text_file"
    );
    for (field, text, media) in attachment_parts(&kind, &obj) {
        let text = if label { format!("[{kind}]\n{text}") } else { text };
        let ptr =
            if field.is_empty() { Cow::Borrowed("/attachment") } else { Cow::Owned(format!("/attachment/{field}")) };
        if media {
            blocks.push(Block::new(BlockKind::Media, ptr, "", false));
        } else if kind == "file" {
            // A file read for the person's @-mention (or again after a
            // compaction) is sent as a Read tool call and its result: tool
            // output, which CTX102 does not compare (two files may share a
            // paragraph); its size counts.
            blocks.push(Block::new(BlockKind::Other, ptr, &text, true));
        } else {
            // A todo (task) reminder is a periodic nudge: Claude Code adds it
            // again every few model calls while the list goes unused, with the
            // list as it stands, so copies with the same list are the design,
            // not a double injection (real sessions of CC 2.1.x: the same
            // reminder every 5–19 calls). Not compared by CTX102; its size counts.
            let periodic = kind == "todo_reminder" || kind == "task_reminder";
            let wrapped = format!("<system-reminder>\n{text}\n</system-reminder>");
            blocks.push(Block::new(if periodic { BlockKind::Other } else { BlockKind::Text }, ptr, &wrapped, true));
        }
    }
    if blocks.is_empty() {
        blocks.push(Block::new(BlockKind::Other, Cow::Borrowed("/attachment"), "", false));
    }
    // A prompt the user typed while the model was working, handed to the model
    // mid-run: user-authored, so a user turn (it waits for its own reply).
    let queued_prompt = kind == "queued_command" && rstr(a.command_mode).is_none_or(|m| m == "prompt");
    let kind = if queued_prompt { MessageKind::UserTurn } else { MessageKind::Meta };
    if queued_prompt {
        // The person's own words: no reminder tags around them.
        for b in &mut blocks {
            if b.kind == BlockKind::Text {
                let t = b.text.trim_start_matches("<system-reminder>\n").trim_end_matches("\n</system-reminder>");
                *b = Block::new(BlockKind::Text, b.pointer.clone(), t, true);
            }
        }
    }
    Some(Message {
        role: Role::User,
        kind,
        pointer: Cow::Borrowed("/attachment"),
        blocks,
        assistant: None,
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    })
}

/// The parts of an injected attachment: (field under `/attachment`, its
/// text, is media). The data each kind carries, as Claude Code records it:
/// - `todo_reminder` / `task_reminder`: `content`, the todo list / task list
///   (objects, one line each; an empty list is still a reminder);
/// - `deferred_tools_delta`: `addedLines` (else `addedNames`) and
///   `removedNames`, the tool names announced;
/// - `file`: `content.file.content` (an image file is media);
///   `nested_memory`: `content.content`; `edited_text_file`: `snippet`;
/// - `skill_listing`, `hook_additional_context`, `critical_system_reminder`:
///   `content` (a string or strings); `queued_command`: `prompt` (a string or
///   text blocks);
/// - `date_change`: `newDate`; `compact_file_reference`: `filename`; plan-mode
///   notices: `planFilePath` with the reminder's variant (`reminderType`
///   full or sparse, `planExists`, `isSubAgent`); any other kind: the
///   record's data as JSON.
fn attachment_parts(kind: &str, a: &serde_json::Map<String, serde_json::Value>) -> Vec<(String, String, bool)> {
    use serde_json::Value;
    let line = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("text") {
            Some(Value::String(t)) if o.get("type").and_then(Value::as_str) == Some("text") => t.clone(),
            _ => v.to_string(),
        },
        _ => v.to_string(),
    };
    // A string, or an array whose items are joined one a line.
    let joined = |v: &Value| match v {
        Value::Array(items) => items.iter().map(line).collect::<Vec<_>>().join("\n"),
        other => line(other),
    };
    let field = |name: &str| a.get(name).map(|v| (name.to_string(), joined(v), false));
    let mut out = Vec::new();
    match kind {
        "deferred_tools_delta" => {
            let added = a.get("addedLines").filter(|v| v.as_array().is_some_and(|x| !x.is_empty()));
            let (name, added) = match added {
                Some(v) => ("addedLines", v),
                None => ("addedNames", a.get("addedNames").unwrap_or(&Value::Null)),
            };
            let mut text = joined(added);
            if let Some(r) = a.get("removedNames").filter(|v| v.as_array().is_some_and(|x| !x.is_empty())) {
                text.push_str("\nremoved:\n");
                text.push_str(&joined(r));
            }
            out.push((name.to_string(), text, false));
        }
        "file" => match a.get("content") {
            Some(Value::Object(c)) if c.get("type").and_then(Value::as_str) == Some("text") => {
                let text = c.get("file").and_then(|f| f.get("content")).map(joined).unwrap_or_default();
                out.push(("content/file/content".to_string(), text, false));
            }
            Some(Value::Object(_)) => out.push(("content".to_string(), String::new(), true)),
            Some(v) => out.push(("content".to_string(), joined(v), false)),
            None => {}
        },
        "nested_memory" => match a.get("content") {
            Some(Value::Object(c)) => {
                out.push(("content/content".to_string(), c.get("content").map(joined).unwrap_or_default(), false))
            }
            Some(v) => out.push(("content".to_string(), joined(v), false)),
            None => {}
        },
        "edited_text_file" => out.extend(field("snippet")),
        "date_change" => out.extend(field("newDate")),
        "compact_file_reference" => out.extend(field("filename")),
        "plan_mode" | "plan_mode_exit" | "plan_mode_reentry" => {
            // Claude Code words a plan-mode reminder by its variant: the full
            // instructions when plan mode starts, a sparse line on the turns
            // after (`reminderType`), and other words when the plan file
            // exists or a sub-agent reads it: the same path in two variants is
            // two texts, not one sent twice.
            out.extend(field("planFilePath").map(|(f, mut text, m)| {
                for k in ["reminderType", "planExists", "isSubAgent"] {
                    if let Some(v) = a.get(k) {
                        text.push_str(&format!("\n{k}: {}", line(v)));
                    }
                }
                (f, text, m)
            }))
        }
        "queued_command" => out.extend(field("prompt").or_else(|| field("content"))),
        "todo_reminder" | "task_reminder" => {
            let text = a.get("content").map(joined).unwrap_or_default();
            out.push(("content".to_string(), if text.is_empty() { "(empty list)".to_string() } else { text }, false));
        }
        _ => match a.get("content") {
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                for (i, it) in items.iter().enumerate() {
                    out.push((format!("content/{i}"), line(it), false));
                }
            }
            Some(v) => out.push(("content".to_string(), joined(v), false)),
            None => {
                let mut rest = a.clone();
                rest.remove("type");
                out.push((String::new(), Value::Object(rest).to_string(), false));
            }
        },
    }
    out
}

/// Claude Code record types written without `uuid` (state snapshots and
/// titles, see this module), some of them without `sessionId` either
/// (`file-history-snapshot`: `{type, messageId, snapshot, isSnapshotUpdate}`).
const BOOKKEEPING: &[&str] = &[
    "file-history-snapshot",
    "summary",
    "permission-mode",
    "last-prompt",
    "queue-operation",
    "mode",
    "custom-title",
    "worktree-state",
    "pr-link",
    // `claude --teleport` (a claude.ai session resumed locally): `{type,
    // remoteSessionId, branch, messageCount}`, seen alone in real session
    // files of a `~/.claude` backup.
    "teleported-from",
];

/// Whether a record is one of Claude Code's bookkeeping records
/// ([`BOOKKEEPING`]): Claude Code's alone, but without the ids that decide.
pub fn is_bookkeeping(v: &serde_json::Value) -> bool {
    v.get("type").and_then(serde_json::Value::as_str).is_some_and(|t| BOOKKEEPING.contains(&t))
}

/// A Claude Code record: a `type` with `uuid`, `parentUuid`, `sessionId` or
/// `leafUuid` (or a `summary` record), or a usage-only line without `type`
/// (`sessionId` and an assistant `message`).
pub fn is_record(o: &serde_json::Map<String, serde_json::Value>) -> bool {
    let ty = o.get("type").and_then(serde_json::Value::as_str);
    (ty.is_some()
        && (o.contains_key("uuid")
            || o.contains_key("parentUuid")
            || o.contains_key("sessionId")
            || o.contains_key("leafUuid")
            || ty == Some("summary")))
        || (ty.is_none()
            && !o.contains_key("request")
            && o.contains_key("sessionId")
            && o.get("message").and_then(|m| m.get("role")).and_then(serde_json::Value::as_str) == Some("assistant"))
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Jsonl,
    detect: Detect {
        record: Some(Sniffer { rank: 4, test: |v| v.as_object().is_some_and(is_record) }),
        weak_record: Some(Sniffer { rank: 0, test: is_bookkeeping }),
        ..Detect::NONE
    },
    // Bookkeeping records alone (a session of file-history snapshots) are
    // Claude Code's too, as detection says: a session with 0 steps.
    fit: Fit::Records {
        test: |v| !super::is_openclaw_trajectory(v) && (v.as_object().is_some_and(is_record) || is_bookkeeping(v)),
        missing: "no record has `type` with `uuid`, `parentUuid` or `sessionId` (a Claude Code session record), nor is one of its bookkeeping records (`file-history-snapshot`, `summary`, …)",
        document: None,
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: Some(&SCHEMA),
    repro: Repro {
        name: "session.jsonl",
        numbered: None,
        threading: Some(("uuid", "parentUuid")),
        text: None,
        value: None,
    },
    store: None,
    agent_folders: &[AgentFolder {
        rank: 2,
        env: &["CLAUDE_CONFIG_DIR"],
        home: ".claude",
        env_is_home: false,
        pattern: "projects",
        file: false,
    }],
    about: About {
        what: "Claude Code session JSONL",
        kind: "transcript",
        location: "~/.claude/projects/*/*.jsonl (or $CLAUDE_CONFIG_DIR/projects)",
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(s: &str) -> Input {
        crate::formats::load_str_for_test(load, "t.jsonl", s)
    }

    fn tr(i: &Input) -> &Transcript {
        i.as_transcript().expect("transcript expected")
    }

    const U1: &str = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"list files"}}"#;

    /// A lone surrogate escape in a tool result and a user text (Claude
    /// Code cut the output inside an emoji) reads as U+FFFD there, not as
    /// no text; a pair reads as its character.
    #[test]
    fn builds_that_leave_sub_agent_attachments_out() {
        for (v, out) in [("2.1.92", true), ("2.1.69", true), ("2.2.0", true), ("3.0.1", true)] {
            assert_eq!(super::leaves_attachment_out(v), out, "{v}");
        }
        for v in ["2.1.68", "2.1.2", "1.0.115", "2.1", "", "x.y.z"] {
            assert!(!super::leaves_attachment_out(v), "{v}");
        }
    }

    #[test]
    fn a_lone_surrogate_reads_as_the_replacement_character() {
        let s = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"list \ud83d\ude00 files \udc00"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use"}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt \ud83d"}]}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.entries.len(), 3);
        assert!(input.bad_lines.is_empty());
        let text = |i: usize| t.message(&t.entries[i]).unwrap().blocks[0].text.to_string();
        assert_eq!(text(0), "list \u{1F600} files \u{FFFD}");
        assert_eq!(text(2), "a.txt \u{FFFD}");
    }

    #[test]
    fn split_assistant_entries_share_a_call_group() {
        let s = [
            U1,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"Looking."}],"stop_reason":null}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use"}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.entries.len(), 4);
        assert_eq!(t.entries[1].call_group(), Some("msg_1"));
        assert_eq!(t.entries[2].call_group(), Some("msg_1"));
        assert!(t.entries[1].is_model_call && t.entries[2].is_model_call);
        assert_eq!(t.entries[3].parent, Parent::Entry(2));
        assert_eq!(t.entries[3].kind(), Some(MessageKind::ToolResults));
        let b = &t.message(&t.entries[3]).unwrap().blocks[0];
        assert_eq!(
            (b.kind, b.tool_id.as_deref(), b.pointer.as_ref()),
            (BlockKind::ToolResult, Some("toolu_1"), "/message/content/0")
        );
        assert!(t.entries[0].is_user_turn());
    }

    #[test]
    fn uuid_less_records_are_detached_and_exempt() {
        let s = [
            r#"{"type":"permission-mode","permissionMode":"default","sessionId":"s"}"#,
            U1,
            r#"{"type":"permission-mode","permissionMode":"default","sessionId":"s"}"#,
            r#"{"timestamp":"t","sessionId":"s","message":{"role":"assistant","id":"m1","usage":{}}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.entries[0].parent, Parent::Detached);
        assert_eq!(t.entries[2].parent, Parent::Detached);
        assert_eq!(t.entries[3].class, Class::Bookkeeping);
        let rl: Vec<_> = t.raw_lines().collect();
        assert!(rl[2].exempt && !rl[1].exempt);
        assert_eq!(t.entries[1].parent, Parent::Root);
        assert_eq!(input.unknown_records, 1); // the type-less usage line
    }

    #[test]
    fn compact_boundary_is_a_new_root() {
        let s = [
            U1,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"u1","sessionId":"s","content":"Conversation compacted"}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"c1","isCompactSummary":true,"sessionId":"s","message":{"role":"user","content":"Summary"}}"#,
            r#"{"type":"system","subtype":"turn_duration","uuid":"x1","parentUuid":"u2","sessionId":"s"}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.entries[1].class, Class::Compaction);
        assert!(t.entries[1].compaction().unwrap().new_root);
        assert_eq!(t.entries[2].kind(), Some(MessageKind::CompactionSummary));
        assert!(!t.entries[2].is_user_turn());
        assert_eq!(t.entries[3].class, Class::Bookkeeping);
    }

    #[test]
    fn sidechain_meta_commands_and_api_errors() {
        let s = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":true,"sessionId":"s","message":{"role":"user","content":"explore"}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","isMeta":true,"sessionId":"s","message":{"role":"user","content":"<local-command-caveat>Caveat</local-command-caveat>"}}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s","message":{"role":"user","content":"<command-name>/exit</command-name>"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u3","isApiErrorMessage":true,"sessionId":"s","message":{"id":"e1","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}],"stop_reason":"stop_sequence"}}"#,
            r#"{"type":"attachment","uuid":"h1","parentUuid":"a1","sessionId":"s","attachment":{"type":"hook_additional_context","content":["focus: tests"]}}"#,
            r#"{"type":"attachment","uuid":"h2","parentUuid":"h1","sessionId":"s","attachment":{"type":"hook_success","content":""}}"#,
            r#"{"type":"mystery","uuid":"z1","parentUuid":"h2","sessionId":"s"}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert!(t.entries[0].sidechain && t.entries[0].is_user_turn());
        assert_eq!(t.entries[1].kind(), Some(MessageKind::Meta));
        assert_eq!(t.entries[2].kind(), Some(MessageKind::Meta));
        let a = t.message(&t.entries[3]).unwrap().assistant.unwrap();
        assert!(a.api_error && !t.entries[3].is_model_call);
        assert_eq!(t.entries[4].kind(), Some(MessageKind::Meta));
        assert_eq!(t.entries[4].class, Class::Conversation);
        assert_eq!(t.entries[5].class, Class::Bookkeeping);
        assert_eq!(t.entries[6].class, Class::Bookkeeping);
        assert_eq!(input.unknown_records, 1);
    }

    #[test]
    fn a_meta_record_naming_a_tool_call_holds_its_output() {
        let s = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"notes"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Skill","input":{"skill":"notes"}}],"stop_reason":"tool_use"}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Launching skill: notes"}]}}"#,
            r#"{"type":"user","uuid":"k1","parentUuid":"r1","isMeta":true,"sourceToolUseID":"toolu_1","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /s\n\n# Notes"}]}}"#,
            r#"{"type":"user","uuid":"k2","parentUuid":"k1","isMeta":true,"sourceToolUseID":"","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"context"}]}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.entries[3].kind(), Some(MessageKind::ToolResults));
        assert!(!t.entries[3].is_user_turn());
        // (An empty id names no call: context, as any meta record.)
        assert_eq!(t.entries[4].kind(), Some(MessageKind::Meta));
    }

    fn rules(s: &str) -> Vec<(String, u32)> {
        let input = load_str(s);
        let mut v: Vec<(String, u32)> = crate::rules::run_all(&input, &crate::config::Settings::default())
            .iter()
            .map(|f| (f.rule.name().to_string(), f.line.unwrap_or(0)))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_split_call_is_one_reply_and_sub_agents_have_their_own_lane() {
        let a = |uuid: &str, parent: &str, mid: &str, content: &str, side: bool| {
            format!(
                r#"{{"type":"assistant","uuid":"{uuid}","parentUuid":"{parent}","isSidechain":{side},"sessionId":"s","message":{{"id":"{mid}","role":"assistant","model":"m","content":[{content}],"stop_reason":null}}}}"#
            )
        };
        let s = [
            U1.to_string(),
            a("a1", "u1", "m1", r#"{"type":"text","text":"Let me look."}"#, false),
            a("a2", "a1", "m1", r#"{"type":"tool_use","id":"t1","name":"Task","input":{}}"#, false),
            // The sub-agent's own conversation, inlined (older builds).
            r#"{"type":"user","uuid":"s1","parentUuid":null,"isSidechain":true,"sessionId":"s","message":{"role":"user","content":"explore the repo"}}"#.to_string(),
            a("s2", "s1", "m2", r#"{"type":"text","text":"The repo has two crates."}"#, true),
            r#"{"type":"user","uuid":"r1","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"two crates"}]}}"#.to_string(),
            a("a3", "r1", "m3", r#"{"type":"thinking","thinking":"ok"}"#, false),
            a("a4", "a3", "m3", r#"{"type":"text","text":"Two crates:"}"#, false),
            a("a5", "a4", "m3", r#"{"type":"text","text":"core and cli."}"#, false),
        ]
        .join("\n");
        assert_eq!(rules(&s), vec![]);
        // A second final text for the same turn is a duplicate reply, reported at its text.
        let s2 = format!("{s}\n{}", a("a6", "a5", "m4", r#"{"type":"text","text":"Again: core and cli."}"#, false));
        assert_eq!(rules(&s2), vec![("duplicate-reply".to_string(), 10)]);
    }

    #[test]
    fn injected_attachments_carry_their_data_and_size() {
        let names: Vec<String> = (0..2000).map(|i| format!("\"mcp__server__tool_{i}\"")).collect();
        let s = [
            U1.to_string(),
            format!(
                r#"{{"type":"attachment","uuid":"d1","parentUuid":"u1","sessionId":"s","attachment":{{"type":"deferred_tools_delta","addedNames":[{n}],"addedLines":[{n}],"removedNames":[]}}}}"#,
                n = names.join(",")
            ),
            r#"{"type":"attachment","uuid":"t1","parentUuid":"d1","sessionId":"s","attachment":{"type":"todo_reminder","content":[{"content":"Fix the build","status":"pending","activeForm":"Fixing"}],"itemCount":1}}"#.to_string(),
            r#"{"type":"attachment","uuid":"c1","parentUuid":"t1","sessionId":"s","attachment":{"type":"command_permissions","allowedTools":[]}}"#.to_string(),
            r#"{"type":"system","subtype":"api_error","uuid":"e1","parentUuid":"c1","sessionId":"s","level":"error","error":{"status":503},"retryAttempt":1,"maxRetries":10}"#.to_string(),
            r#"{"type":"assistant","uuid":"a1","parentUuid":"e1","sessionId":"s","message":{"id":"m1","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}],"stop_reason":"stop_sequence"}}"#.to_string(),
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        let d = t.message(&t.entries[1]).unwrap();
        assert_eq!((d.kind, d.blocks[0].pointer.as_ref()), (MessageKind::Meta, "/attachment/addedLines"));
        assert!(d.blocks[0].text_len > 40_000, "{}", d.blocks[0].text_len);
        let todo = t.message(&t.entries[2]).unwrap();
        assert!(todo.blocks[0].text.contains("Fix the build") && todo.blocks[0].text.starts_with("<system-reminder>"));
        assert_eq!(t.entries[3].class, Class::Bookkeeping);
        let e = t.message(&t.entries[4]).unwrap().assistant.unwrap();
        assert!(e.stop == Stop::Error && !t.entries[4].is_model_call);
        let p = t.message(&t.entries[5]).unwrap().assistant.unwrap();
        assert!(p.transcript_only && !p.api_error && !t.entries[5].is_model_call);
    }

    #[test]
    fn missing_parent_keys_read_linearly_and_torn_lines_are_bad_lines() {
        let s = [
            r#"{"type":"summary","summary":"s","leafUuid":"zz"}"#,
            r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","uuid":"a1","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":"mo"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.entries[0].parent, Parent::Detached);
        assert_eq!(t.entries[1].parent, Parent::Root);
        assert_eq!(t.entries[2].parent, Parent::Entry(1));
        assert_eq!(input.bad_lines.len(), 1);
        assert_eq!(input.bad_lines[0].line, 4);
    }
}
