//! `codex-rollout`: Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Format facts (from openai/codex `codex-rs/protocol/src/protocol.rs`
//! `RolloutItem` / `RolloutLine`, and the rollouts in the corpus, CLI 0.50 –
//! current):
//! - each line is `{timestamp, type, payload}`; `type` is `session_meta`,
//!   `response_item`, `event_msg`, `turn_context` or `compacted` (newer
//!   builds add others, e.g. `world_state`: kept as bookkeeping).
//! - `session_meta.payload` holds the session `id` and the system prompt:
//!   `base_instructions` (a string, or `{text}` in newer builds) or, in older
//!   builds, `instructions`. It is sent with every request
//!   ([`Transcript::base_instructions`]). A rollout may hold further
//!   `session_meta` lines (forks, sub-agents): the first one is the header.
//! - `response_item.payload` is a Responses API item: `message` (roles
//!   `user`, `assistant`, `developer` = system prompt, `system`), `reasoning`,
//!   `function_call` / `function_call_output` (paired by `call_id`),
//!   `custom_tool_call` / `custom_tool_call_output`, `local_shell_call`,
//!   hosted calls (`web_search_call`, …), `ghost_snapshot` (an undo point,
//!   never sent). Very old builds wrote `tool_call` / `tool_result` items
//!   without ids. User messages that Codex injects (`<environment_context>`,
//!   `<user_instructions>`, AGENTS.md instructions) are not user turns.
//! - `compacted.payload.replacement_history` replaces the visible history by
//!   design: the entry is a compaction boundary whose content is the
//!   replacement items (everything before it is out of context).
//! - `event_msg` and `turn_context` are UI events and per-turn settings:
//!   bookkeeping (the model's input is the response items), except that an
//!   `error` or `turn_aborted` event ends the attempt as failed (kept as a
//!   failed assistant stub that is never sent, like a Claude Code API-error stub).
//! - the rollout is linear: each entry's parent is the previous entry.
//! - the items of one model response are written one by one; a response is
//!   the run of assistant-side items (reasoning, calls, assistant messages)
//!   after the last user-side item. Tool outputs may be recorded while the
//!   response is still streaming: an assistant-side item that follows an
//!   output while a call of the current response is still unanswered belongs
//!   to the same response (Codex only sends the next request once every call
//!   has its output). The items of one response share a
//!   [`Entry::call_group`] and are one step.
//! - legacy rollouts may hold lines without the `{timestamp,type,payload}`
//!   wrapper: a bare session header `{id, timestamp, instructions}`, bare
//!   response items, and `{"record_type":"state"}` lines; they are read too.

use super::body::{chash, flatten_text, message, text_block};
use super::format::{About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::openai_responses::parse_item;
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::SourceRef;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashSet;

/// Format id.
pub const ID: FormatId = FormatId::new("codex-rollout");

#[derive(Deserialize)]
struct RawLineRec<'a> {
    #[serde(rename = "type", default, borrow)]
    rtype: Option<&'a RawValue>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
    #[serde(default, borrow)]
    record_type: Option<&'a RawValue>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    timestamp: Option<&'a RawValue>,
}

/// The record facts of a Codex rollout (used by [`load`] and by `fence`):
/// `{timestamp, type, payload}` lines, no ids (the rollout is linear), the
/// session named once by the `session_meta` payload `id`, and every line the
/// CLI's own (`codex-rs/core/src/rollout/recorder.rs` writes them all).
pub static SCHEMA: super::record::RecordSchema = super::record::RecordSchema {
    format: ID,
    classify: classify_line,
    id_keys: &["id"],
    sessions: super::record::Sessions::Single,
};

fn classify_line<'a>(
    bytes: &'a [u8],
    _: &super::record::Context,
) -> std::result::Result<super::record::Record<'a>, String> {
    let rec: RawLineRec = super::record::parse_object(bytes, "Codex rollout line")?;
    let rtype = rstr(rec.rtype);
    let payload = rec.payload.and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
    Ok(record(rtype.as_deref(), payload.as_ref()).into_owned())
}

/// The record facts of one line: its `type` and its parsed `payload`.
fn record<'b>(rtype: Option<&'b str>, payload: Option<&'b Value>) -> super::record::Record<'b> {
    use std::borrow::Cow;
    let mut r = super::record::Record { runner_writes: true, ..Default::default() };
    let (Some(kind), Some(payload)) = (rtype, payload) else {
        r.kind = rtype.map(Cow::Borrowed);
        r.problem = Some("record lacks `type` or `payload`".into());
        return r;
    };
    let get = |k: &str| payload.get(k).and_then(Value::as_str).map(Cow::Borrowed);
    r.kind = Some(Cow::Borrowed(kind));
    r.role = get("role");
    r.subkind = get("type");
    if kind == "session_meta" {
        r.session = get("id");
    }
    r
}

/// The `type` of an `event_msg` payload.
#[derive(Deserialize)]
struct EventHead {
    #[serde(rename = "type", default)]
    etype: Option<String>,
}

fn rstr(v: Option<&RawValue>) -> Option<String> {
    v.filter(|v| v.get().starts_with('"')).and_then(|v| serde_json::from_str(v.get()).ok())
}

/// Response item types the model produces (one response = a run of these).
fn assistant_side(item_type: &str, role: &str) -> bool {
    match item_type {
        "message" => role == "assistant",
        "reasoning"
        | "function_call"
        | "custom_tool_call"
        | "local_shell_call"
        | "computer_call"
        | "mcp_call"
        | "web_search_call"
        | "file_search_call"
        | "tool_search_call"
        | "image_generation_call"
        | "tool_call" => true,
        _ => false,
    }
}

/// Response item types that carry a tool's output back to the model.
fn output_side(item_type: &str) -> bool {
    item_type.ends_with("_output") || item_type == "tool_result"
}

/// User-role texts Codex injects itself: context, not a user turn.
fn injected_user_text(text: &str) -> bool {
    let t = text.trim_start();
    const PREFIXES: &[&str] = &[
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<INSTRUCTIONS>",
        "<user_shell_command>",
        "<turn_aborted>",
        "<subagent_notification>",
        "<skill>",
        // Codex's warnings recorded as user messages (between a call and
        // its output, or before a request), which Codex itself does not take
        // for the person's messages (openai/codex `codex-rs/core` compaction
        // tests, `collect_user_messages_filters_legacy_warnings`).
        "Warning: apply_patch was requested via exec_command.",
        "Warning: The maximum number of unified exec processes you can keep open is",
        "Warning: Your account was flagged for potentially high-risk cyber activity",
    ];
    PREFIXES.iter().any(|p| t.starts_with(p))
}

/// Where each entry's context burst starts (`u32::MAX`: in none). A burst is
/// a run of two or more context messages — developer messages
/// (`<permissions instructions>`, `<collaboration_mode>`) and the
/// user-role context Codex writes itself (AGENTS.md instructions,
/// `<user_instructions>`, `<environment_context>`) — with only bookkeeping
/// records between them (a Codex notice such as `<turn_aborted>` or a
/// warning ends it). Codex writes one at the start of a session and writes
/// the whole set again to re-establish its baseline on a resume or a
/// rollback (openai/codex #8990 "update environment_context on resume",
/// #27836; seen in real rollouts of CLI 0.104 after an hour's pause, no new
/// `session_meta`). A later run is such a re-establishment when it holds
/// every kind of message the first run held (by each text's first line, or
/// its opening tag: `<collaboration_mode>` whatever mode it names, as the
/// run after a switch from Plan mode names the current one);
/// then its blocks equal to earlier ones are that baseline, by design, and
/// the duplicate rules look for a copy only inside the same run (the same
/// collaboration mode written twice in one run is still one too many). A
/// run that sends only some of them again (permissions and environment at
/// every turn) is compared as usual. A developer message made only of
/// settings updates Codex writes when a setting changed (codex-rs
/// `core/src/context_manager/updates.rs`, `build_settings_update_items`: the
/// collaboration mode — which carries the model and reasoning effort, so it
/// comes again with the same text after Plan mode and back, an effort change
/// or a `/model` switch —, the model-switch instructions, the permissions),
/// each of which did change between the `turn_context` before it and the
/// one after it ([`Transcript::turn_settings`]), or of a plugin's hint for
/// an @mention, is compared only within its own turn ([`Section`]).
pub fn context_bursts(t: &Transcript) -> Vec<u32> {
    const CONTEXT: &[&str] =
        &["# AGENTS.md instructions", "<user_instructions>", "<environment_context>", "<INSTRUCTIONS>"];
    // The first line of a context message's first text (its kind), or None
    // for an entry that is no context message.
    let kind_of = |e: &Entry| -> Option<String> {
        let k = e.kind()?;
        if !matches!(k, MessageKind::SystemPrompt | MessageKind::Meta) {
            return None;
        }
        let m = t.message(e)?;
        let text = m.blocks.iter().find(|b| b.kind == BlockKind::Text).map(|b| b.text.trim_start())?;
        if k == MessageKind::Meta && !CONTEXT.iter().any(|p| text.starts_with(p)) {
            return None;
        }
        // (A tagged message's kind is its tag: the collaboration mode's
        // first line names the mode, which a run written after a mode
        // change holds in its current value, `# Collaboration Mode: Default`
        // after `# Plan Mode`.)
        let first = text.lines().next().unwrap_or("");
        let kind = match first.find('>') {
            Some(end) if first.starts_with('<') => &first[..=end],
            _ => first,
        };
        Some(kind.to_string())
    };
    let mut runs: Vec<(Vec<usize>, std::collections::BTreeSet<String>)> = Vec::new();
    let mut run: (Vec<usize>, std::collections::BTreeSet<String>) = Default::default();
    for (i, e) in t.entries.iter().enumerate() {
        if e.kind().is_none() {
            continue; // bookkeeping
        }
        match kind_of(e) {
            Some(k) => {
                run.0.push(i);
                run.1.insert(k);
            }
            None => {
                if run.0.len() >= 2 {
                    runs.push(std::mem::take(&mut run));
                }
                run = Default::default();
            }
        }
    }
    if run.0.len() >= 2 {
        runs.push(run);
    }
    let mut out = vec![u32::MAX; t.entries.len()];
    if let Some(first) = runs.first().map(|r| r.1.clone()) {
        for (entries, kinds) in &runs {
            if kinds.is_superset(&first) {
                for &i in entries {
                    out[i] = entries[0] as u32;
                }
            }
        }
    }
    // A settings update Codex writes because the setting changed, or a
    // plugin's hint for a mention: compared only within its own turn.
    // (The person's last message so far: where a turn starts.)
    let mut after_user = 0usize;
    for (i, e) in t.entries.iter().enumerate() {
        if e.kind() == Some(MessageKind::UserTurn) {
            after_user = i + 1;
        }
        if out[i] != u32::MAX || e.kind() != Some(MessageKind::SystemPrompt) {
            continue;
        }
        let Some(m) = t.message(e) else { continue };
        let sections: Vec<Section> =
            m.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| section(&b.text)).collect();
        if sections.is_empty() || sections.contains(&Section::Other) {
            continue;
        }
        let (before, after) = turn_settings_around(t, i as u32);
        let changed = |s: &Section| match s {
            Section::Plugin => true,
            Section::CollaborationMode => setting_changed(before, after, |x| x.collaboration_mode),
            Section::ModelSwitch => setting_changed(before, after, |x| x.model),
            Section::Permissions => setting_changed(before, after, |x| x.permissions),
            Section::Other => false,
        };
        if sections.iter().all(changed) {
            out[i] = turn_start(before, after_user);
        }
    }
    out
}

/// What a section of a Codex developer message is (by its opening).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// `<collaboration_mode>`: written when the turn's collaboration mode
    /// differs from the previous turn's (`build_collaboration_mode_update_item`;
    /// the mode carries the model and reasoning effort).
    CollaborationMode,
    /// `<model_switch>`: a `/model` change (`build_model_instructions_update_item`).
    ModelSwitch,
    /// `<permissions instructions>`: a sandbox or approval policy change
    /// (`build_permissions_update_item`).
    Permissions,
    /// ``Capabilities from the `<plugin>` plugin:``: the hint for an explicit
    /// mention of a plugin (`core/src/plugins/injection.rs`,
    /// `build_plugin_injections`), once per plugin per turn.
    Plugin,
    /// Anything else.
    Other,
}

fn section(text: &str) -> Section {
    let t = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    if t.starts_with("<collaboration_mode>") {
        Section::CollaborationMode
    } else if t.starts_with("<model_switch>") {
        Section::ModelSwitch
    } else if t.starts_with("<permissions instructions>") {
        Section::Permissions
    } else if t
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("Capabilities from the `"))
        .and_then(|l| l.strip_suffix("` plugin:"))
        .is_some_and(|name| !name.trim().is_empty())
    {
        Section::Plugin
    } else {
        Section::Other
    }
}

/// The `turn_context` records around entry `i`: the last one before it and
/// the first one after it (Codex records a turn's settings updates, then its
/// `turn_context`, around the person's message: `codex-rs/core`
/// `record_context_updates_and_set_reference_context_item`).
fn turn_settings_around(t: &Transcript, i: u32) -> (Option<&TurnSettings>, Option<&TurnSettings>) {
    let k = t.turn_settings.partition_point(|s| s.entry < i);
    (k.checked_sub(1).map(|k| &t.turn_settings[k]), t.turn_settings.get(k))
}

/// Whether a setting differs between the turn before an update and the
/// turn it was written for — the only time Codex writes that update. Not
/// recorded on either side (no `turn_context` yet or after, an older CLI
/// that does not record the setting): taken as changed, as Codex writes it
/// only then.
fn setting_changed(
    before: Option<&TurnSettings>,
    after: Option<&TurnSettings>,
    get: impl Fn(&TurnSettings) -> Option<u64>,
) -> bool {
    match (before.and_then(&get), after.and_then(&get)) {
        (Some(b), Some(a)) => a != b,
        _ => true,
    }
}

/// Where the turn of an update starts, for its comparison window: after the
/// later of the last `turn_context` before it and the person's last message
/// before it (`after_user`: that message's index + 1, or 0), so two copies
/// within one turn are still found.
fn turn_start(before: Option<&TurnSettings>, after_user: usize) -> u32 {
    let tc = before.map_or(0, |s| s.entry as usize + 1);
    tc.max(after_user) as u32
}

/// The current model response being assembled.
#[derive(Default)]
struct Group {
    id: Option<Box<str>>,
    /// The previous conversation item was assistant-side.
    open: bool,
    /// Calls of this response still without an output.
    pending: HashSet<String>,
}

/// Loads a Codex rollout.
pub fn load(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let texts = opts.texts;
    let mut t = Transcript::default();
    let mut unknown = 0usize;
    let mut group = Group::default();
    // The last model call (its response's `token_count` event follows it) and
    // the model of the current turn (`turn_context.model`).
    let mut last_call: Option<u32> = None;
    let mut turn_model: Option<std::sync::Arc<str>> = None;

    let (bad_lines, lines) = jsonl::read_lines(src, |line| {
        let hash = hash_bytes(line.bytes);
        let rec: RawLineRec = match serde_json::from_slice(line.bytes) {
            Ok(r) => r,
            Err(e) => {
                if let Some(reason) = jsonl::malformed_reason(line.bytes, &e) {
                    return jsonl::LineVerdict::Malformed(reason);
                }
                unknown += 1;
                t.push_other_line(line.no, hash, false);
                return jsonl::LineVerdict::Ok;
            }
        };
        let rtype = rstr(rec.rtype).unwrap_or_default();
        // UI events and per-turn settings may be written twice with the same
        // bytes (same millisecond) by design. Response items too: the
        // recorder only appends (`codex-rs/core/src/rollout/recorder.rs`: one
        // writer task appends each `record_items` batch; a resume opens the
        // file in append mode), so a response item on a line of the same
        // bytes is an item Codex recorded (and sent) twice — the rules on
        // its content judge it (instructions: `duplicate-system-prompt`;
        // context: `duplicate-context-block`), not `not-append-only`, which
        // `fence` would not give either. The header and compactions still count.
        let exempt =
            matches!(rtype.as_str(), "event_msg" | "turn_context" | "response_item") || rec.record_type.is_some();
        // Legacy lines without the wrapper: the record itself is the payload.
        let (kind, payload, base): (&str, Option<&RawValue>, &str) = match (rec.payload, rtype.as_str()) {
            (Some(p), k) => (k, Some(p), "/payload"),
            (None, _) if rec.record_type.is_some() => ("state", None, ""),
            (None, "") if rec.id.is_some() => ("session_meta", None, ""),
            (None, _) if !rtype.is_empty() => ("response_item", None, ""),
            _ => ("", None, ""),
        };
        let value = |p: Option<&RawValue>| -> Option<Value> {
            match p {
                Some(p) => serde_json::from_str(p.get()).ok(),
                None => serde_json::from_slice(line.bytes).ok(),
            }
        };
        if kind == "session_meta" && t.header.is_none() {
            let v = value(payload).unwrap_or(Value::Null);
            t.header = Some(Header {
                line: line.no,
                version: 0,
                session_id: record(Some(kind), Some(&v)).session.as_deref().map(Into::into),
                openclaw: false,
            });
            if let Some(m) = base_instructions(&v, base) {
                t.base_instructions = Some(m);
                t.base_instructions_line = line.no;
            }
            t.push_other_line(line.no, hash, exempt);
            return jsonl::LineVerdict::Ok;
        }
        let mut entry = Entry::at(line, kind, hash);
        entry.time =
            rec.timestamp.and_then(|v| serde_json::from_str::<&str>(v.get()).ok()).map_or(0, crate::model::parse_time);
        let mut packed = None;
        match kind {
            "response_item" => {
                let v = value(payload).unwrap_or(Value::Null);
                let rec = record(Some(kind), Some(&v));
                let role = rec.role.as_deref().unwrap_or("");
                let ty = rec.subkind.as_deref().unwrap_or(if v.get("role").is_some() { "message" } else { "" });
                if ty == "ghost_snapshot" {
                    // An undo point for the UI; filtered out of every prompt.
                } else {
                    let mut m = item_message(&v, ty, base);
                    if assistant_side(ty, role) {
                        // A new response unless it continues the open one, or a
                        // call of the current one is still waiting for its output.
                        if (!group.open && group.pending.is_empty()) || group.id.is_none() {
                            group.id = Some(format!("codex:{}", line.no).into());
                            group.pending.clear();
                        }
                        group.open = true;
                        for b in &m.blocks {
                            if let (BlockKind::ToolCall, Some(id)) = (b.kind, b.tool_id.as_deref()) {
                                group.pending.insert(id.to_string());
                            }
                        }
                        entry.set_call_group(group.id.clone());
                        entry.is_model_call = true;
                        last_call = Some(t.entries.len() as u32);
                    } else if output_side(ty) {
                        group.open = false;
                        for b in &m.blocks {
                            if let Some(id) = b.tool_id.as_deref() {
                                group.pending.remove(id);
                            }
                        }
                    } else {
                        // A user-side message (or an item of unknown type) ends the response.
                        group = Group::default();
                    }
                    trim_model_side(&mut m);
                    entry.class = Class::Conversation;
                    packed = Some(crate::model::packed::pack(&m, texts));
                }
            }
            "compacted" => {
                let v = value(payload).unwrap_or(Value::Null);
                entry.class = Class::Compaction;
                entry.set_compaction(Some(Compaction { first_kept: None, new_root: true }));
                packed = Some(crate::model::packed::pack(&replacement_message(&v, base), texts));
                group = Group::default();
            }
            "event_msg" => {
                // A turn that failed (`error`) or was interrupted (`turn_aborted`) is
                // recorded only as an event: it ends the attempt like a Claude Code
                // API-error stub. The entry is a failed assistant stub, never sent
                // again and not a model call (it only informs `duplicate-user-turn`
                // and `duplicate-reply`).
                let ev = payload.and_then(|p| serde_json::from_str::<EventHead>(p.get()).ok());
                if ev.as_ref().and_then(|e| e.etype.as_deref()) == Some("token_count") {
                    // The usage of the response just written: `info.last_token_usage`
                    // (`TokenUsage`: `input_tokens` counts `cached_input_tokens`,
                    // `output_tokens` counts `reasoning_output_tokens`; openai/codex
                    // `codex-rs/protocol/src/protocol.rs`). A repeated event names the same call.
                    let v = value(payload).unwrap_or(Value::Null);
                    let last = v.get("info").and_then(|i| i.get("last_token_usage"));
                    if let (Some(l), Some(call)) = (last, last_call) {
                        let n = |k: &str| super::usage::count(l.get(k));
                        let (input, cached) = super::usage::split_cached(n("input_tokens"), n("cached_input_tokens"));
                        let u = Usage { input, cache_read: cached, output: n("output_tokens"), ..Usage::default() };
                        if !u.is_empty() {
                            t.set_usage(call, u);
                            if let Some(m) = &turn_model {
                                t.set_usage_model(call, m.clone());
                            }
                        }
                    }
                }
                let stop = match ev.as_ref().and_then(|e| e.etype.as_deref()) {
                    Some("error") => Some(Stop::Error),
                    Some("turn_aborted") => Some(Stop::Aborted),
                    _ => None,
                };
                if let Some(stop) = stop {
                    let mut m = message(Role::Assistant, MessageKind::Assistant, base.to_string());
                    m.assistant = Some(Box::new(AssistantInfo { stop, ..Default::default() }));
                    entry.class = Class::Conversation;
                    packed = Some(crate::model::packed::pack(&m, texts));
                    group = Group::default();
                }
            }
            "turn_context" => {
                let v = value(payload).unwrap_or(Value::Null);
                let h = |x: Option<&Value>| x.filter(|x| !x.is_null()).map(|x| crate::hash::hash_str(&x.to_string()));
                let permissions = (v.get("approval_policy").is_some() || v.get("sandbox_policy").is_some())
                    .then(|| crate::hash::hash_str(&format!("{}{}", v["approval_policy"], v["sandbox_policy"])));
                t.turn_settings.push(TurnSettings {
                    entry: t.entries.len() as u32,
                    model: h(v.get("model")),
                    permissions,
                    collaboration_mode: h(v.get("collaboration_mode")),
                });
                if let Some(m) = v.get("model").and_then(Value::as_str) {
                    if turn_model.as_deref() != Some(m) {
                        turn_model = Some(m.into());
                    }
                }
            }
            "session_meta" | "state" => {}
            _ => unknown += 1,
        }
        t.push(entry, packed.as_deref());
        if exempt {
            t.mark_last_exempt();
        }
        jsonl::LineVerdict::Ok
    })?;

    t.lines = lines;
    // Linear: each entry's parent is the previous entry.
    t.has_ids = false;
    super::link_linearly(&mut t);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

/// `base_instructions` (string or `{text}`), or legacy `instructions`, as a system prompt.
fn base_instructions(v: &Value, base: &str) -> Option<Message> {
    let (key, bi) = [("base_instructions", v.get("base_instructions")), ("instructions", v.get("instructions"))]
        .into_iter()
        .find_map(|(k, x)| x.filter(|x| !x.is_null()).map(|x| (k, x)))?;
    let ptr = ptr_join(base, key);
    let (text, block_ptr) = match bi {
        Value::String(s) => (s.clone(), ptr.clone()),
        Value::Object(_) => (bi.get("text").map(flatten_text).unwrap_or_default(), ptr_join(&ptr, "text")),
        other => (flatten_text(other), ptr.clone()),
    };
    let mut m = message(Role::System, MessageKind::SystemPrompt, ptr);
    m.blocks.push(text_block(BlockKind::Text, block_ptr, &text, bi));
    Some(m)
}

/// One response item as a message (Codex-specific kinds on top of [`parse_item`]).
fn item_message(v: &Value, ty: &str, base: &str) -> Message {
    match ty {
        // Legacy items without call ids: a call and a result that cannot be paired.
        "tool_call" => {
            let mut m = message(Role::Assistant, MessageKind::Assistant, base.to_string());
            let args = v.get("arguments").map(|a| a.to_string()).unwrap_or_default();
            let mut b = text_block(BlockKind::ToolCall, base.to_string(), &args, v);
            b.tool_name = v.pointer("/function/name").or_else(|| v.get("name")).and_then(Value::as_str).map(Into::into);
            m.blocks.push(b);
            m.assistant = Some(Box::default());
            m.json_hash = chash(v);
            m
        }
        "tool_result" => {
            let mut m = message(Role::Tool, MessageKind::ToolResult, base.to_string());
            let out = v.get("result").or_else(|| v.get("output")).map(|o| o.to_string()).unwrap_or_default();
            m.blocks.push(text_block(BlockKind::ToolResult, base.to_string(), &out, v));
            m.result = Some(Box::default());
            m.json_hash = chash(v);
            m
        }
        "image_generation_call" => {
            // A hosted tool: the call carries its own result.
            let mut m = message(Role::Assistant, MessageKind::Assistant, base.to_string());
            m.blocks.push(text_block(BlockKind::Other, base.to_string(), "", v));
            m.assistant = Some(Box::default());
            m.json_hash = chash(v);
            m
        }
        _ => {
            let mut m = parse_item(v, base.to_string());
            if m.kind == MessageKind::UserTurn {
                let texts: Vec<&str> =
                    m.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| b.text.as_ref()).collect();
                if !texts.is_empty() && texts.iter().all(|t| injected_user_text(t)) {
                    m.kind = MessageKind::Meta;
                }
            }
            if m.kind == MessageKind::ToolResult {
                m.result = Some(Box::default());
            }
            m
        }
    }
}

/// Assistant output and tool results keep a prefix of their text (memory).
fn trim_model_side(m: &mut Message) {
    if m.kind.is_prompt_side() {
        return;
    }
    for b in &mut m.blocks {
        if b.text.len() > 240 {
            let keep = crate::text::prefix(&b.text, 240).to_string();
            b.text = keep.into();
        }
    }
}

/// The replacement history of a `compacted` record, as the boundary's content.
fn replacement_message(v: &Value, base: &str) -> Message {
    let rp = ptr_join(base, "replacement_history");
    let mut m = message(Role::User, MessageKind::CompactionSummary, rp.clone());
    match v.get("replacement_history") {
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                let ty = it.get("type").and_then(Value::as_str).unwrap_or("");
                if ty == "ghost_snapshot" {
                    continue;
                }
                let im = item_message(
                    it,
                    if ty.is_empty() && it.get("role").is_some() { "message" } else { ty },
                    &ptr_idx(&rp, i),
                );
                for mut b in im.blocks {
                    // Replacement text is context; model-side blocks keep a prefix.
                    if !im.kind.is_prompt_side() && b.text.len() > 240 {
                        b.text = crate::text::prefix(&b.text, 240).to_string().into();
                    }
                    // Model-side text (assistant output) is not prompt text.
                    if b.kind == BlockKind::Text && !im.kind.is_prompt_side() {
                        b.kind = BlockKind::Other;
                    }
                    m.blocks.push(b);
                }
            }
        }
        _ => {
            // Older builds: only a summary `message`.
            let text = v.get("message").and_then(Value::as_str).unwrap_or("");
            m.blocks.push(text_block(BlockKind::Text, ptr_join(base, "message"), text, v));
        }
    }
    m
}

/// A Codex rollout record: `{timestamp, type, payload}` with a known `type`,
/// or a legacy (CLI < 0.3) `{"record_type":"state"}` line or bare session
/// header `{id, timestamp, instructions}`.
pub fn is_record(o: &serde_json::Map<String, Value>) -> bool {
    let ty = o.get("type").and_then(Value::as_str);
    (o.contains_key("payload")
        && o.contains_key("timestamp")
        && matches!(ty, Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")))
        || (o.contains_key("record_type") && o.len() <= 3)
        || (ty.is_none()
            && !o.contains_key("request")
            && o.contains_key("id")
            && o.contains_key("timestamp")
            && o.contains_key("instructions"))
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Jsonl,
    detect: Detect {
        record: Some(Sniffer { rank: 3, test: |v| v.as_object().is_some_and(is_record) }),
        ..Detect::NONE
    },
    fit: Fit::Records {
        test: |v| v.as_object().is_some_and(is_record),
        missing: "no record has `timestamp`, `payload` and `type` session_meta, response_item, event_msg, turn_context or compacted",
        document: None,
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: Some(&SCHEMA),
    repro: Repro { name: "rollout.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[AgentFolder {
        rank: 3,
        env: &["CODEX_HOME"],
        home: ".codex",
        env_is_home: false,
        pattern: "sessions",
        file: false,
    }],
    about: About {
        what: "Codex CLI rollout JSONL",
        kind: "transcript",
        location: "~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (or $CODEX_HOME/sessions)",
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(s: &str) -> Input {
        crate::formats::load_str_for_test(load, "r.jsonl", s)
    }

    fn tr(i: &Input) -> &Transcript {
        i.as_transcript().expect("transcript expected")
    }

    const META: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1","base_instructions":{"text":"You are Codex."}}}"#;
    const USER: &str = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}}"#;

    #[test]
    fn session_meta_is_the_header_and_system_prompt() {
        let input = load_str(&[META, USER].join("\n"));
        let t = tr(&input);
        assert_eq!(t.header.as_ref().unwrap().session_id.as_deref(), Some("s1"));
        let bi = t.base_instructions.as_ref().unwrap();
        assert_eq!(bi.blocks[0].text.as_ref(), "You are Codex.");
        assert_eq!(bi.blocks[0].pointer.as_ref(), "/payload/base_instructions/text");
        assert_eq!(t.base_instructions_line, 1);
        assert_eq!(t.entries.len(), 1);
        assert!(t.entries[0].is_user_turn());
        assert_eq!(t.entries[0].parent, Parent::Root);
    }

    #[test]
    fn one_response_is_one_call_group() {
        let s = [
            META,
            USER,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"x"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c2"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"ok"}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"web_search_call","status":"completed"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        let g: Vec<Option<&str>> = t.entries.iter().map(|e| e.call_group()).collect();
        // reasoning, two calls and the hosted call streamed while c1 was pending: one response.
        assert_eq!(g[1], Some("codex:3"));
        assert_eq!(g[2], Some("codex:3"));
        assert_eq!(g[3], Some("codex:3"));
        assert_eq!(g[6], Some("codex:3"));
        // the final message is the next response.
        assert_eq!(g[8], Some("codex:10"));
        assert_eq!(t.entries[5].class, Class::Bookkeeping);
        assert_eq!(t.entries[8].parent, Parent::Entry(7));
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
    fn pairing_and_replies_follow_responses() {
        let item = |p: &str| format!(r#"{{"timestamp":"t","type":"response_item","payload":{p}}}"#);
        let s = [
            META.to_string(),
            USER.to_string(),
            item(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Looking."}]}"#),
            item(r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}"#),
            item(r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c2"}"#),
            item(r#"{"type":"function_call_output","call_id":"c2","output":"ok"}"#),
            item(r#"{"type":"function_call_output","call_id":"c1","output":"ok"}"#),
            item(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed."}]}"#),
        ]
        .join("\n");
        // Text beside calls is not a reply; outputs streamed out of order still pair.
        assert_eq!(rules(&s), vec![]);
        let s2 = [
            s.clone(),
            item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"and the docs"}]}"#),
            item(r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c3"}"#),
            item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"stop"}]}"#),
            item(r#"{"type":"function_call_output","call_id":"c9","output":"ok"}"#),
            item(r#"{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]}"#),
        ]
        .join("\n");
        let want = [("duplicate-system-prompt", 13), ("orphan-tool-result", 12), ("unanswered-tool-call", 10)];
        assert_eq!(rules(&s2), want.iter().map(|(r, l)| (r.to_string(), *l)).collect::<Vec<_>>());
    }

    #[test]
    fn a_prompt_sent_again_after_a_failed_turn_is_a_replay() {
        let ev = |t: &str| {
            format!(
                r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"{t}","message":"stream disconnected"}}}}"#
            )
        };
        let user = |ts: u32| USER.replace(r#""timestamp":"t""#, &format!(r#""timestamp":"t{ts}""#));
        let reply = |ts: u32| {
            format!(
                r#"{{"timestamp":"t{ts}","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"Fixed."}}]}}}}"#
            )
        };
        let s = [
            META.to_string(),
            user(1),
            ev("error"),
            user(2),
            reply(3),
            ev("token_count"),
            ev("token_count"),
            user(4),
            reply(5),
        ]
        .join("\n");
        // Line 4 re-sends line 2 after the error; line 8 repeats it after a reply (not a
        // finding); the repeated token_count event (lines 6–7) is not a rewrite.
        assert_eq!(rules(&s), vec![("duplicate-user-turn".to_string(), 4)]);
        let s = [META.to_string(), user(1), ev("turn_aborted"), user(2), reply(3)].join("\n");
        let input = load_str(&s);
        let f = crate::rules::run_all(&input, &crate::config::Settings::default());
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, crate::finding::Severity::Warning);
        assert_eq!(tr(&input).entries[1].class, Class::Conversation);
        assert!(!crate::analysis::sent_again(&tr(&input).entries[1]));
    }

    #[test]
    fn torn_line_is_malformed_and_reading_goes_on() {
        let s = [
            META,
            USER,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAA"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        assert_eq!(input.bad_lines.len(), 1);
        assert_eq!(input.bad_lines[0].line, 3);
        assert_eq!(tr(&input).entries.len(), 2);
    }

    #[test]
    fn compacted_replaces_history() {
        let s = [
            META,
            USER,
            r#"{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]},{"type":"function_call","name":"shell","arguments":"{}","call_id":"c9"},{"type":"compaction","encrypted_content":"e"}]}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":"ok"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        let c = &t.entries[1];
        assert_eq!(c.class, Class::Compaction);
        assert!(c.compaction().unwrap().new_root);
        let m = t.message(c).unwrap();
        assert_eq!(m.kind, MessageKind::CompactionSummary);
        assert_eq!(m.blocks[0].pointer.as_ref(), "/payload/replacement_history/0/content/0");
        assert!(m.blocks.iter().any(|b| b.kind == BlockKind::ToolCall && b.tool_id.as_deref() == Some("c9")));
        assert_eq!(t.entries[3].kind(), Some(MessageKind::SystemPrompt));
        // Before the boundary is out of context after it.
        let tree = crate::analysis::Tree::build(t);
        assert!(!tree.in_context_at(t, 0, 3));
        assert!(tree.in_context_at(t, 1, 3));
    }

    #[test]
    fn legacy_lines_and_injected_context() {
        let s = [
            r#"{"id":"s0","timestamp":"t","instructions":"Be brief."}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/x</cwd></environment_context>"}]}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#,
            r#"{"timestamp":"t","type":"future_record","payload":{}}"#,
        ]
        .join("\n");
        let input = load_str(&s);
        let t = tr(&input);
        assert_eq!(t.base_instructions.as_ref().unwrap().blocks[0].text.as_ref(), "Be brief.");
        assert_eq!(t.entries[0].kind(), Some(MessageKind::Meta));
        assert_eq!(t.message(&t.entries[0]).unwrap().pointer.as_ref(), "");
        assert_eq!(t.entries[1].class, Class::Bookkeeping);
        assert!(t.entries[2].is_user_turn());
        assert_eq!(input.unknown_records, 1);
    }
}
