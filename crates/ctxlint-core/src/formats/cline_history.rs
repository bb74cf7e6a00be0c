//! `cline-history`: Cline / Roo Code / Kilo Code task histories.
//!
//! Format facts from cline/cline (Apache-2.0) `src/core/storage/disk.ts`,
//! `src/core/task/index.ts` and `src/shared/messages/content.ts` (classic
//! task engine, commit 9ee61811), its SDK `sdk/packages/core` (commit
//! 21cb8d25: `fixtures/session/*.messages.json`), and RooCodeInc/Roo-Code
//! `src/core/task-persistence/apiMessages.ts`:
//! - classic: `<globalStorage>/<extension id>/tasks/<task id>/api_conversation_history.json`,
//!   a JSON array written whole: Anthropic `MessageParam`s as sent (`role`,
//!   `content` string or blocks `text`, `image`, `tool_use`, `tool_result`,
//!   `thinking`, …) plus `ts` (ms), `modelInfo`, `metrics`. The system
//!   prompt is not stored. The user message is written before its request;
//!   a retry sends the same history again without writing it again; an
//!   aborted or failed stream is written as an assistant message ending in
//!   `[Response interrupted by user]` or `[Response interrupted by API Error]`.
//! - Cline's SDK and CLI: `~/.cline/data/sessions/<id>/<id>.messages.json`,
//!   `{version, sessionId, agent, messages, system_prompt}` with the same
//!   messages (and `file` blocks); the system prompt is stored.
//!
//! The file is one transcript of linear entries, one per message (pointer
//! `/<i>`, or `/messages/<i>`), at the line where the message starts. An
//! interrupted assistant message is a failed attempt: the same user message
//! written again after it is a replay (`duplicate-user-turn`).
//!
//! Tool results, as Cline sends them (cline/cline 9ee61811
//! `src/core/task/tools/utils/ToolResultUtils.ts` `pushToolResult`,
//! `src/core/context/context-management/ContextManager.ts`):
//! - a result is a `tool_result` block when the call's id is known, else (the
//!   older XML tool calls, and calls whose id Cline lost: the `"cline"`
//!   fallback id) a user **text** block headed `[<tool> for '<target>'] Result:`
//!   or `[<tool>] Result:` (`ContextManager.parseToolCallWithFormat`); older
//!   versions wrote the header as a block of its own, the output in the next
//!   text block. Such text answers the calls of the assistant message before
//!   it, by tool name, else in order ([`answer_text_results`]), and is a tool
//!   result here (not a context block, not user-authored). An assistant
//!   message of XML tool calls (text only) followed by such results stopped
//!   for tool use: it is no final reply. A response that Cline answered with
//!   its "You did not use a tool" nudge was rejected: a failed attempt.
//! - before every request `ContextManager.ensureToolResultsFollowToolUse`
//!   gives each `tool_use` of an assistant message that is followed by a user
//!   message a `tool_result` ("result missing" when none was written): what is
//!   sent has no unanswered call there, so the loader adds that result too.
//!   A call followed by another assistant message is not repaired.
//! - a user message holding only tool results and the texts Cline adds to
//!   every request (`<environment_details>`, the focus-chain `task_progress`
//!   notices of `src/core/task/focus-chain/prompts.ts` and `index.ts`) is not a
//!   user turn, nor is Cline's `[TASK RESUMPTION]` notice
//!   (`src/core/prompts/responses.ts` `taskResumption`, unless it carries a
//!   `<user_message>`) or its "You did not use a tool" nudge (`noToolsUsed`).
//!
//! Roo Code's condensing keeps the replaced messages with `condenseParent`
//! (or `truncationParent`): they are not sent; its summary (`isSummary`) is a
//! compaction boundary; its `{type: "reasoning"}` entries are not messages.

use super::anthropic::parse_message;
use super::body::{message, text_block};
use super::format::{About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Shape, Sniffer};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::{Line, SourceRef};
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// Format id.
pub const ID: FormatId = FormatId::new("cline-history");

fn is_message(m: &Value) -> bool {
    (matches!(m.get("role").and_then(Value::as_str), Some("user" | "assistant"))
        && m.get("content").is_some_and(|c| c.is_string() || c.is_array())
        && m.get("parts").is_none()
        && m.get("type").is_none())
        || is_reasoning_item(m)
}

/// Roo Code keeps an OpenAI reasoning model's reasoning as its own entry
/// (`{type: "reasoning", …}`) between the messages.
fn is_reasoning_item(m: &Value) -> bool {
    m.get("type").and_then(Value::as_str) == Some("reasoning") && m.get("role").is_none()
}

/// Whether a document is a Cline task history: an array of Anthropic-shaped
/// messages of which at least one carries Cline's `ts` (ms) or `modelInfo`,
/// or an SDK messages file (`sessionId`, `messages`, `system_prompt`).
pub fn sniff_document(v: &Value) -> bool {
    match v {
        Value::Array(a) => {
            !a.is_empty()
                && a.iter().all(is_message)
                && a.iter().any(|m| m.get("ts").is_some_and(Value::is_number) || m.get("modelInfo").is_some())
        }
        Value::Object(o) => {
            o.get("sessionId").is_some_and(Value::is_string)
                && o.contains_key("system_prompt")
                && o.get("messages").and_then(Value::as_array).is_some_and(|a| a.iter().all(is_message))
        }
        _ => false,
    }
}

/// What Roo Code sends of a history that holds condensed or truncated
/// messages (RooCodeInc/Roo-Code cb836567 `src/core/condense/index.ts`
/// `getEffectiveApiHistory`): with a summary (`isSummary`), the messages from
/// the last one on, without the `tool_result`s whose `tool_use` was condensed
/// away; messages whose `truncationParent` names a truncation marker of the
/// file are hidden, and without a summary so are those whose `condenseParent`
/// names a summary's `condenseId` (a tag whose summary is gone, after a
/// rewind, is kept).
struct Effective {
    /// Index of the last summary.
    summary: Option<usize>,
    /// Tool-use ids of the assistant messages from the last summary on.
    calls: std::collections::HashSet<String>,
    summary_ids: std::collections::HashSet<String>,
    truncation_ids: std::collections::HashSet<String>,
}

impl Effective {
    fn of(list: &[Value]) -> Effective {
        let str_of = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
        let summary = list.iter().rposition(|m| m.get("isSummary").and_then(Value::as_bool) == Some(true));
        let from = summary.unwrap_or(0);
        let calls = list[from..]
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .filter_map(|m| m.get("content").and_then(Value::as_array))
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .filter_map(|b| str_of(b, "id"))
            .collect();
        let summary_ids = list
            .iter()
            .filter(|m| m.get("isSummary").and_then(Value::as_bool) == Some(true))
            .filter_map(|m| str_of(m, "condenseId"))
            .collect();
        let truncation_ids = list[from..]
            .iter()
            .filter(|m| m.get("isTruncationMarker").and_then(Value::as_bool) == Some(true))
            .filter_map(|m| str_of(m, "truncationId"))
            .collect();
        Effective { summary, calls, summary_ids, truncation_ids }
    }

    fn hidden(&self, i: usize, m: &Value) -> bool {
        let tag = |k: &str| m.get(k).and_then(Value::as_str);
        if tag("truncationParent").is_some_and(|t| self.truncation_ids.contains(t)) {
            return true;
        }
        // Only the messages from the last summary on are sent (the ones
        // before it are not judged: a condense makes a fresh start).
        match self.summary {
            Some(s) => i < s,
            None => tag("condenseParent").is_some_and(|c| self.summary_ids.contains(c)),
        }
    }
}

/// The header Cline writes before a tool's output when it stores the result
/// as text: `[<tool> for '<target>'] Result:` or `[<tool>] Result:` (cline/cline
/// `ContextManager.parseToolCallWithFormat`, `ToolResultUtils.pushToolResult`;
/// Roo Code and Kilo Code kept the shape). Group 1 is the tool name.
static RESULT_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[([^\]\s]+)(?: for [^\n]*?)?\] (?:Error )?Result:").expect("result header"));

/// The fixed label Cline's `attempt_completion` result puts before the
/// person's feedback (cline/cline `AttemptCompletionHandler.ts`): part of the
/// tool's result.
const COMPLETION_FEEDBACK: &str = "The user has provided feedback on the results.";

/// The start of Cline's nudge after a response without a tool use
/// (cline/cline `src/core/prompts/responses.ts` `noToolsUsed`).
const NO_TOOLS: &str = "[ERROR] You did not use a tool in your previous response!";

/// Whether a user text is one Cline adds to a request by itself, not written
/// by the person: the `<environment_details>` block of every request, the
/// focus-chain notices (cline/cline `src/core/task/focus-chain/prompts.ts`,
/// `index.ts`), the `[TASK RESUMPTION]` notice without a new message and the
/// "You did not use a tool" nudge (`src/core/prompts/responses.ts`).
fn is_runtime_text(t: &str) -> bool {
    let t = t.trim_start();
    t.starts_with("<environment_details>")
        || t.starts_with("# task_progress")
        || t.starts_with("# TODO LIST UPDATE REQUIRED")
        || t.starts_with(NO_TOOLS)
        || (t.starts_with("[TASK RESUMPTION]") && !t.contains("<user_message>"))
        || t.starts_with("(The user did not provide a new message.")
}

/// Reads the tool results a user message holds as text (see the module
/// documentation) and gives every call of the assistant message before it
/// (`calls`: id and name, in order) the result Cline sends: its `tool_result`
/// block, its text result, or the "result missing" result that
/// `ensureToolResultsFollowToolUse` inserts (added at the message's pointer).
fn answer_text_results(msg: &mut Message, calls: &[(Box<str>, Box<str>)]) {
    let mut answered: Vec<bool> = calls
        .iter()
        .map(|(id, _)| msg.blocks.iter().any(|b| b.kind == BlockKind::ToolResult && b.tool_id.as_deref() == Some(id)))
        .collect();
    let mut j = 0;
    while j < msg.blocks.len() {
        let b = &msg.blocks[j];
        let name = (b.kind == BlockKind::Text)
            .then(|| RESULT_HEADER.captures(b.text.trim_start()).map(|c| c[1].to_string()))
            .flatten();
        let Some(name) = name else {
            j += 1;
            continue;
        };
        let k = (0..calls.len())
            .find(|&k| !answered[k] && *calls[k].1 == *name)
            .or_else(|| answered.iter().position(|a| !a));
        let id = k.map(|k| {
            answered[k] = true;
            calls[k].0.clone()
        });
        let header_only = b.text.trim_end().ends_with("Result:");
        let mark = |b: &mut Block| {
            b.kind = BlockKind::ToolResult;
            b.tool_id = id.clone();
            b.tool_name = Some(name.as_str().into());
        };
        mark(&mut msg.blocks[j]);
        j += 1;
        // The tool's output may go on in blocks of its own: older Cline wrote
        // the header alone and the output after it; a complex result (the
        // `attempt_completion` result of `AttemptCompletionHandler.ts`, a
        // file read with images) is a list of blocks whose first one holds
        // the header. What the person wrote (`<feedback>`, `<answer>`) and
        // what Cline adds to every request stay outside.
        let mut first = true;
        while let Some(next) = msg.blocks.get_mut(j) {
            let more = match next.kind {
                BlockKind::Media => true,
                BlockKind::Text => {
                    let t = next.text.trim_start();
                    !RESULT_HEADER.is_match(t)
                        && !is_runtime_text(t)
                        && !t.starts_with("<feedback>")
                        && !t.starts_with("<answer>")
                        && !t.starts_with("The user provided the following feedback")
                        && ((header_only && first) || t.starts_with(COMPLETION_FEEDBACK))
                }
                _ => false,
            };
            if !more {
                break;
            }
            first = false;
            mark(next);
            j += 1;
        }
    }
    for (k, (id, name)) in calls.iter().enumerate() {
        if !answered[k] {
            let mut b = Block::new(BlockKind::ToolResult, msg.pointer.clone(), "result missing", true);
            b.tool_id = Some(id.clone());
            b.tool_name = Some(name.clone());
            msg.blocks.push(b);
        }
    }
}

/// Loads a task history (either layout).
pub fn load(src: &SourceRef, _opts: &super::LoadOptions) -> Result<Input> {
    let bytes = src.read_all()?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| crate::error::Error::BadInput {
        path: src.display.clone().into(),
        format: ID.to_string(),
        reason: format!("not one JSON document: {e}"),
    })?;
    let mut t = Transcript::default();
    let (list, base) = match &v {
        Value::Array(a) => (a.as_slice(), ""),
        _ => (v.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]), "/messages"),
    };
    let mut line_starts = vec![0usize];
    line_starts.extend(memchr::memchr_iter(b'\n', &bytes).map(|i| i + 1));
    let line_of = |at: usize| line_starts.partition_point(|&s| s <= at) as u32;
    t.header = Some(Header {
        line: 1,
        version: v.get("version").and_then(Value::as_u64).unwrap_or(0) as u32,
        session_id: v.get("sessionId").and_then(Value::as_str).map(Into::into),
        openclaw: false,
    });
    if let Some(sp) = v.get("system_prompt").and_then(Value::as_str) {
        let mut m = message(Role::System, MessageKind::SystemPrompt, "/system_prompt".into());
        m.blocks.push(text_block(BlockKind::Text, "/system_prompt".into(), sp, &Value::String(sp.into())));
        t.base_instructions = Some(m);
        t.base_instructions_line = crate::locate::locate(&bytes, "/system_prompt").map_or(1, &line_of);
    }
    let effective = Effective::of(list);
    // The tool calls of the message before, when it is an assistant message.
    let mut prev_calls: Vec<(Box<str>, Box<str>)> = Vec::new();
    let starts = crate::locate::array_elements(&bytes, if base.is_empty() { "" } else { base }).unwrap_or_default();
    for (i, m) in list.iter().enumerate() {
        let ptr = format!("{base}/{i}");
        let start = starts.get(i).copied().unwrap_or(0);
        let end = starts.get(i).and_then(|&s| crate::locate::value_end(&bytes, s)).unwrap_or(start);
        let raw = &bytes[start..end.max(start)];
        let line = Line {
            no: line_of(start),
            offset: start as u64,
            bytes: raw,
            terminated: true,
            too_long: false,
            len: raw.len() as u64,
        };
        let mut e = Entry::at(&line, m.get("role").and_then(Value::as_str).unwrap_or(""), hash_bytes(raw));
        e.id = m.get("id").and_then(Value::as_str).map(Into::into);
        e.time = m.get("ts").and_then(Value::as_u64).map_or(0, |ms| u32::try_from(ms / 1000).unwrap_or(0));
        if is_reasoning_item(m) {
            // Model-side state sent back to the same provider: not a message of its own here.
            e.class = Class::Hidden;
            t.push(e, None);
            continue;
        }
        let calls_before = std::mem::take(&mut prev_calls);
        let mut msg = parse_message(m, ptr.clone());
        // Cline SDK `file` blocks carry the file's text, sent as text.
        if let Some(blocks) = m.get("content").and_then(Value::as_array) {
            for (j, b) in blocks.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) == Some("file") {
                    if let (Some(slot), Some(text)) = (msg.blocks.get_mut(j), b.get("content").and_then(Value::as_str))
                    {
                        *slot = text_block(BlockKind::Text, format!("{ptr}/content/{j}"), text, b);
                    }
                }
            }
        }
        match msg.role {
            Role::Assistant => {
                let text: String =
                    msg.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| b.text.to_string()).collect();
                let has_call = msg.blocks.iter().any(|b| b.kind == BlockKind::ToolCall);
                // Cline's XML tool calls (before native tool calling) are text:
                // the next user message then opens with their text results.
                let xml_call = || {
                    list.get(i + 1).and_then(|n| n.get("content")).is_some_and(|c| match c {
                        Value::String(t) => RESULT_HEADER.is_match(t.trim_start()),
                        Value::Array(a) => a.iter().any(|b| {
                            b.get("text")
                                .and_then(Value::as_str)
                                .is_some_and(|t| RESULT_HEADER.is_match(t.trim_start()))
                        }),
                        _ => false,
                    })
                };
                let nudged = || {
                    list.get(i + 1).and_then(|n| n.get("content")).is_some_and(|c| match c {
                        Value::String(t) => t.trim_start().starts_with(NO_TOOLS),
                        Value::Array(a) => a.iter().any(|b| {
                            b.get("text").and_then(Value::as_str).is_some_and(|t| t.trim_start().starts_with(NO_TOOLS))
                        }),
                        _ => false,
                    })
                };
                let stop = if text.trim_end().ends_with("[Response interrupted by user]") {
                    Stop::Aborted
                } else if text.trim_end().ends_with("[Response interrupted by API Error]") {
                    Stop::Error
                } else if has_call || xml_call() {
                    Stop::ToolUse
                } else if nudged() {
                    // Cline requires a tool use in every response and rejects
                    // one without (`noToolsUsed`, counted as a mistake): no
                    // final reply, a failed attempt.
                    Stop::Error
                } else {
                    Stop::Normal
                };
                let model = m.pointer("/modelInfo/modelId").and_then(Value::as_str);
                msg.assistant =
                    Some(Box::new(AssistantInfo { stop, model: model.map(Into::into), ..Default::default() }));
                e.is_model_call = true;
            }
            _ => {
                if !calls_before.is_empty() {
                    answer_text_results(&mut msg, &calls_before);
                }
                let results = msg.blocks.iter().any(|b| b.kind == BlockKind::ToolResult);
                let only_runtime =
                    msg.blocks.iter().filter(|b| b.kind == BlockKind::Text).all(|b| is_runtime_text(&b.text));
                if results && only_runtime {
                    // Not a user turn; still prompt-side, so the notices Cline
                    // adds beside the results are compared as context.
                    msg.kind = MessageKind::Meta;
                }
                if results {
                    msg.result = Some(Box::default());
                }
            }
        }
        if msg.role == Role::Assistant {
            prev_calls = msg
                .blocks
                .iter()
                .filter(|b| b.kind == BlockKind::ToolCall)
                .filter_map(|b| Some((b.tool_id.clone()?, b.tool_name.clone().unwrap_or_default())))
                .collect();
        }
        let hidden = effective.hidden(i, m);
        if i >= effective.summary.unwrap_or(usize::MAX) && msg.role == Role::User {
            // Results whose call was condensed away are not sent.
            msg.blocks.retain(|b| {
                b.kind != BlockKind::ToolResult || b.tool_id.as_deref().is_some_and(|id| effective.calls.contains(id))
            });
        }
        let hidden = hidden || msg.blocks.is_empty();
        if m.get("isSummary").and_then(Value::as_bool) == Some(true) {
            msg.kind = MessageKind::CompactionSummary;
            e.class = Class::Compaction;
            e.set_compaction(Some(Compaction { first_kept: None, new_root: false }));
        } else {
            e.class = if hidden { Class::Hidden } else { Class::Conversation };
        }
        if msg.role == Role::User && msg.kind == MessageKind::UserTurn {
            // Cline's own notices (the resume notice written on every resume,
            // the no-tool nudge) beside nothing the person wrote: not a user turn.
            let texts: Vec<&Block> = msg.blocks.iter().filter(|b| b.kind == BlockKind::Text).collect();
            if !texts.is_empty() && texts.iter().all(|b| is_runtime_text(&b.text)) {
                msg.kind = MessageKind::Meta;
            }
        }
        t.push(e, Some(&crate::model::packed::pack(&msg, crate::model::packed::Texts::AsLoaded)));
    }
    t.lines = line_starts.len() as u32;
    t.has_ids = false;
    super::link_linearly(&mut t);
    Ok(Input::from_transcript(&src.display, ID, t, BadLines::default(), 0))
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Json,
    detect: Detect { document: Some(Sniffer { rank: 3, test: sniff_document }), ..Detect::NONE },
    fit: Fit::Document {
        test: |v| {
            (!sniff_document(v)).then_some(
                "not a Cline task history (an array of `{role, content}` messages with Cline's `ts`, or `{sessionId, messages, system_prompt}`)",
            )
        },
        noun: "no request body",
    },
    read: Read::File(load),
    locate: Locate::Document { pointer: None },
    record: None,
    repro: super::format::BODY_REPRO,
    store: None,
    agent_folders: &[
        // Cline, Roo Code and Kilo Code task folders in VS Code's
        // globalStorage (Linux and macOS), and the Cline CLI's: each task's
        // `api_conversation_history.json` and each SDK session's
        // `*.messages.json` (not the UI logs and manifests beside them).
        AgentFolder::home(
            5,
            ".config/Code/User/globalStorage",
            "saoudrizwan.claude-dev/tasks/*/api_conversation_history.json",
            true,
        ),
        AgentFolder::home(
            6,
            ".config/Code/User/globalStorage",
            "rooveterinaryinc.roo-cline/tasks/*/api_conversation_history.json",
            true,
        ),
        AgentFolder::home(
            7,
            ".config/Code/User/globalStorage",
            "kilocode.kilo-code/tasks/*/api_conversation_history.json",
            true,
        ),
        AgentFolder::home(
            8,
            "Library/Application Support/Code/User/globalStorage",
            "saoudrizwan.claude-dev/tasks/*/api_conversation_history.json",
            true,
        ),
        AgentFolder::home(
            9,
            "Library/Application Support/Code/User/globalStorage",
            "rooveterinaryinc.roo-cline/tasks/*/api_conversation_history.json",
            true,
        ),
        AgentFolder::home(
            10,
            "Library/Application Support/Code/User/globalStorage",
            "kilocode.kilo-code/tasks/*/api_conversation_history.json",
            true,
        ),
        AgentFolder::home(11, ".cline", "data/tasks/*/api_conversation_history.json", true),
        AgentFolder::home(12, ".cline", "data/sessions/*/*.messages.json", true),
    ],
    about: About {
        what: "Cline / Roo Code / Kilo Code task histories (api_conversation_history.json; Cline SDK/CLI <id>.messages.json)",
        kind: "transcript",
        location: "the editor's globalStorage: <extension id>/tasks/<task id>/api_conversation_history.json; ~/.cline/data/tasks/*/, ~/.cline/data/sessions/*/*.messages.json",
    },
};
