//! `openclaw-trajectory`: OpenClaw's runtime trajectory sidecar
//! `<session>.trajectory.jsonl`, written beside the session file in
//! `~/.openclaw/agents/<agent>/sessions/`. A stream of requests.
//!
//! Facts from openclaw/openclaw:
//! - `src/trajectory/types.ts` (`TrajectoryEvent`): one event per line,
//!   `{traceSchema: "openclaw-trajectory", schemaVersion: 1, traceId, source:
//!   "runtime"|"transcript"|"export", type, ts, seq, sourceSeq?, sessionId,
//!   sessionKey?, runId?, workspaceDir?, provider?, modelId?, modelApi?,
//!   entryId?, parentEntryId?, data?}`.
//! - `src/trajectory/runtime.ts` (`createTrajectoryRuntimeRecorder`):
//!   `traceId` is the session id; `data` is sanitised and bounded — a string
//!   over 32,768 characters becomes `{truncated: true, reason:
//!   "trajectory-field-size-limit", originalChars, limitChars}`, an array over
//!   64 items keeps 64 and gains `{truncated: true, reason:
//!   "trajectory-array-size-limit", originalLength, limitItems}`, objects deeper
//!   than 6 levels become a `trajectory-depth-limit` marker, and an event over
//!   the per-event byte limit keeps its envelope with `data: {truncated: true,
//!   reason: "trajectory-event-size-limit", …}`; tools are
//!   `toTrajectoryToolDefinitions` (`{name, description?, parameters?}` sorted
//!   by name).
//! - `src/agents/pi-embedded-runner/run/attempt.ts` (the embedded pi runner):
//!   `context.compiled` is recorded once per attempt, just before the prompt
//!   is submitted, with `{systemPrompt, prompt, messages, tools,
//!   providerVisibleTools?, imagesCount, streamStrategy, transport,
//!   transcriptLeafId}` — `messages` is the session's `AgentMessage` list
//!   *before* the prompt (pi-agent-core shapes, as in a pi session's `message`
//!   entries), `prompt` the user text then submitted; with tool search
//!   compacting the tools, `tools` is the full list and `providerVisibleTools`
//!   what the provider is sent. The Codex harness
//!   (`extensions/codex/src/app-server/trajectory.ts`) records
//!   `{systemPrompt, prompt, imagesCount, tools}` without messages.
//!   `model.completed` (`src/agents/pi-embedded-runner/run/attempt.ts` and the
//!   Codex harness) ends the attempt: `{aborted, externalAbort, timedOut,
//!   idleTimedOut, timedOutDuringCompaction, timedOutDuringToolExecution,
//!   timedOutByRunBudget, promptError (text), promptErrorSource, usage: {input,
//!   output, cacheRead, cacheWrite, …}, promptCache, stopReason, assistantTexts,
//!   messagesSnapshot, …}`.
//!
//! How ctxlint reads it:
//! - each `context.compiled` record is one request: pointer `/data`,
//!   `systemPrompt` the `system` slot, `providerVisibleTools` (else `tools`)
//!   the tools, `messages[i]` at `/data/messages/i` (roles `user`,
//!   `assistant`, `toolResult`, `bashExecution`, `custom`, `branchSummary`,
//!   `compactionSummary`; assistant messages that ended with `stopReason`
//!   `error` or `aborted` are not sent again, as pi-ai's `transformMessages`
//!   skips them), then `prompt` as the last user turn at `/data/prompt`; when
//!   the next request of the same session carries it among its messages (the
//!   session stored it), that is the same copy ([`Request::aliases`]), so the
//!   duplicate rules report a defect in it once.
//!   The request index is the record's position among the file's
//!   `context.compiled` records;
//! - requests are grouped by `sessionId` ([`Request::session_id`]: different
//!   sessions in one file are different conversations) and paired per
//!   `provider/modelId` ([`Request::endpoint`]: a fallback model has its own
//!   prompt cache); the runs (`runId`) of one session continue one conversation;
//! - `model.completed` gives the outcome of the latest earlier
//!   `context.compiled` of the same session and run ([`Request::outcome`]): a
//!   request after one that failed with a prompt error is the runtime's
//!   recovery and is not compared with it (`crate::conversation::Link::AfterFailure`);
//! - recorder truncation: a `context.compiled` whose whole `data` was cut is
//!   skipped and warned about ([`Input::unread`]); a `messages` list cut at 64
//!   is read up to the last point where every tool call is answered (the rest
//!   was not recorded) and gets no `prompt`; a string cut for its size is read
//!   as a short placeholder `[not recorded: N characters]`.

use super::body::*;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::model::*;
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("openclaw-trajectory");

/// The `traceSchema` every trajectory event carries.
pub const TRACE_SCHEMA: &str = "openclaw-trajectory";

/// Whether a record is a trajectory event (`traceSchema: "openclaw-trajectory"`
/// with a string `type`).
pub fn sniff(v: &Value) -> bool {
    v.get("traceSchema").and_then(Value::as_str) == Some(TRACE_SCHEMA) && v.get("type").is_some_and(Value::is_string)
}

/// A `context.compiled` request waiting for its session's later records.
struct Pending {
    req: Request,
    /// `data.prompt`, the user text submitted after the messages.
    prompt: Option<String>,
    /// The messages were cut by the recorder: no prompt follows them.
    cut: bool,
    run_id: Option<String>,
}

/// Loads a trajectory.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let path: Arc<str> = src.display.as_str().into();
    let mut pending: Vec<Pending> = Vec::new();
    let mut unread = Vec::new();
    let mut skipped = 0;
    let mut unknown = 0;
    let mut index = 0usize;
    let (bad_lines, _) = jsonl::read_lines(src, |line| {
        let v: Value = match serde_json::from_slice(line.bytes) {
            Ok(v) => v,
            Err(e) => return jsonl::LineVerdict::Malformed(jsonl::describe_json_error(&e)),
        };
        if !sniff(&v) {
            unknown += 1;
            return jsonl::LineVerdict::Ok;
        }
        let str_of = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        let session = str_of("sessionId").or_else(|| str_of("traceId"));
        let run_id = str_of("runId").map(str::to_string);
        match v.get("type").and_then(Value::as_str) {
            Some("context.compiled") => {
                let i = index;
                index += 1;
                let data = v.get("data");
                let Some(data) = data.filter(|d| d.is_object() && !is_cut(d)) else {
                    skipped += 1;
                    let what = if data.is_some_and(is_cut) {
                        "its `data` was cut by OpenClaw's trajectory size limit, so the request was not recorded"
                    } else {
                        "it has no `data` object, so no request"
                    };
                    unread.push(Unread { line: Some(line.no), pointer: "/data".into(), what: what.into() });
                    return jsonl::LineVerdict::Ok;
                };
                let (mut req, cut) = parse(data, &path, i, "/data");
                req.line = Some(line.no);
                req.session_id = session.map(Into::into);
                req.model = str_of("modelId").map(Into::into);
                req.time = str_of("ts").or_else(|| str_of("timestamp")).map_or(0, crate::model::parse_time);
                req.endpoint = match (str_of("provider"), str_of("modelId")) {
                    (Some(p), Some(m)) => Some(format!("{p}/{m}").into()),
                    (p, m) => p.or(m).map(Into::into),
                };
                let prompt = data.get("prompt").and_then(Value::as_str).filter(|p| !p.trim().is_empty());
                pending.push(Pending { req, prompt: prompt.map(str::to_string), cut, run_id });
            }
            Some("model.completed") => {
                let outcome = v.get("data").map(outcome).unwrap_or(Outcome::Completed);
                let mine = pending
                    .iter_mut()
                    .rev()
                    .find(|p| p.req.session_id.as_deref() == session && p.run_id == run_id && p.req.outcome.is_none());
                if let Some(p) = mine {
                    p.req.outcome = Some(outcome);
                    // `data.usage` is pi-ai's `Usage` (`input` without the cached
                    // tokens), summed over the run's model calls (the attempt's
                    // agent loop, `attempt.ts`): a run total, not one call's.
                    p.req.usage = v.get("data").and_then(|d| d.get("usage")).and_then(super::usage::of_object);
                    p.req.usage_is_run_total = true;
                }
            }
            _ => {}
        }
        jsonl::LineVerdict::Ok
    })?;
    let requests = finish(pending);
    Ok(Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests }),
        bad_lines: bad_lines.kept,
        more_bad_lines: bad_lines.more,
        skipped,
        unknown_records: unknown,
        unread,
    })
}

/// Appends each request's `prompt` as its last user turn (`/data/prompt`);
/// when the next request of the same session carries that text as a user
/// message (the session stored it), that block is recorded as the prompt's
/// alias ([`Request::aliases`]), so that the duplicate rules judge the one
/// copy once.
fn finish(pending: Vec<Pending>) -> Vec<Request> {
    let mut out: Vec<Request> = Vec::with_capacity(pending.len());
    let mut prompts: Vec<(Option<String>, bool)> = Vec::with_capacity(pending.len());
    let mut interner = Interner::default();
    for mut p in pending {
        prompts.push((p.prompt, p.cut));
        interner.request(&mut p.req);
        out.push(p.req);
    }
    for k in 0..out.len() {
        let (Some(prompt), false) = (&prompts[k].0, prompts[k].1) else { continue };
        let sid = out[k].session_id.clone();
        let alias = out[k + 1..].iter().find(|r| r.session_id == sid).and_then(|next| {
            next.messages.iter().filter(|m| m.kind == MessageKind::UserTurn).find_map(|m| {
                let b = m.blocks.iter().find(|b| b.kind == BlockKind::Text && *b.text == **prompt)?;
                Some(b.pointer.strip_prefix(next.pointer.as_str()).unwrap_or(&b.pointer).to_string())
            })
        });
        let r = &mut out[k];
        let ptr = ptr_join(&r.pointer, "prompt");
        let mut m = message(Role::User, MessageKind::UserTurn, ptr.clone());
        let mut b = Block::new(BlockKind::Text, ptr.into(), prompt, true);
        b.json_hash = text_block_hash(prompt);
        m.blocks.push(b);
        r.messages.push(Arc::new(m));
        if let Some(a) = alias {
            r.aliases.push(("/prompt".into(), a));
        }
    }
    out
}

/// The outcome a `model.completed` record's `data` gives.
fn outcome(d: &Value) -> Outcome {
    let yes = |k: &str| d.get(k).and_then(Value::as_bool) == Some(true);
    let error = d.get("promptError").is_some_and(|e| match e {
        Value::String(s) => !s.trim().is_empty(),
        Value::Null | Value::Bool(false) => false,
        _ => true,
    });
    if error {
        Outcome::PromptError
    } else if yes("timedOut")
        || yes("idleTimedOut")
        || yes("timedOutDuringCompaction")
        || yes("timedOutDuringToolExecution")
        || yes("timedOutByRunBudget")
    {
        Outcome::TimedOut
    } else if yes("aborted") || yes("externalAbort") {
        Outcome::Aborted
    } else {
        Outcome::Completed
    }
}

/// Whether `v` is one of the recorder's truncation markers (`{truncated: true, reason: …}`).
fn is_cut(v: &Value) -> bool {
    v.get("truncated").and_then(Value::as_bool) == Some(true) && v.get("reason").is_some_and(Value::is_string)
}

/// The text of a string field, or a short placeholder for a string the
/// recorder cut for its size (`originalChars`), or "" for anything else.
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(m) if is_cut(m) => match m.get("originalChars").and_then(Value::as_u64) {
            Some(n) => format!("[not recorded: {n} characters]"),
            None => "[not recorded]".into(),
        },
        _ => String::new(),
    }
}

/// Parses a `context.compiled` record's `data` (at `base`) into a request;
/// also says whether its `messages` list was cut by the recorder.
pub fn parse(data: &Value, path: &Arc<str>, index: usize, base: &str) -> (Request, bool) {
    let mut r = new_request(path, ID, index, base);
    if let Some(sys) = data.get("systemPrompt").filter(|s| !s.is_null()) {
        let ptr = ptr_join(base, "systemPrompt");
        let t = text_of(Some(sys));
        let mut b = text_block(BlockKind::Text, ptr.clone(), &t, sys);
        if sys.is_string() {
            b.json_hash = text_block_hash(&t);
        }
        r.slots.push(Slot { kind: SlotKind::System, pointer: ptr, parts: vec![b] });
    }
    match data.get("providerVisibleTools").filter(|t| t.is_array()) {
        Some(t) => set_tools(&mut r, base, "providerVisibleTools", Some(t)),
        None => set_tools(&mut r, base, "tools", data.get("tools").filter(|t| !t.is_null())),
    }
    let mut cut = false;
    if let Some(msgs) = data.get("messages").and_then(Value::as_array) {
        let mp = ptr_join(base, "messages");
        for (i, m) in msgs.iter().enumerate() {
            if is_cut(m) {
                cut = true;
                continue;
            }
            if let Some(msg) = parse_message(m, ptr_idx(&mp, i)) {
                r.messages.push(Arc::new(msg));
            }
        }
    }
    if cut {
        let keep = answered_prefix(&r.messages);
        r.messages.truncate(keep);
    }
    (r, cut)
}

/// The length of the longest prefix of `msgs` after which no tool call is
/// left unanswered (a list the recorder cut ends there: the results of the
/// calls before the cut were not recorded).
fn answered_prefix(msgs: &[Arc<Message>]) -> usize {
    let mut open: Vec<&str> = Vec::new();
    let mut keep = 0;
    for (i, m) in msgs.iter().enumerate() {
        for b in &m.blocks {
            match (b.kind, b.tool_id.as_deref()) {
                (BlockKind::ToolCall, Some(id)) => open.push(id),
                (BlockKind::ToolResult, Some(id)) => open.retain(|c| *c != id),
                _ => {}
            }
        }
        if open.is_empty() {
            keep = i + 1;
        }
    }
    keep
}

/// Parses one pi-agent-core `AgentMessage` (at `mp`); `None` for a message
/// that is not sent (an assistant message that ended with `error` or
/// `aborted`, a `bashExecution` with `excludeFromContext`, an unknown role).
pub fn parse_message(m: &Value, mp: String) -> Option<Message> {
    let role = s(m, "role");
    let content = m.get("content").unwrap_or(&Value::Null);
    Some(match role {
        "user" => {
            let mut msg = content_message(Role::User, MessageKind::UserTurn, mp, content);
            classify_user(&mut msg);
            msg
        }
        "assistant" => {
            let stop = match s(m, "stopReason") {
                "stop" | "length" | "end_turn" => Stop::Normal,
                "toolUse" | "tool_use" | "tool_calls" => Stop::ToolUse,
                "error" => Stop::Error,
                "aborted" => Stop::Aborted,
                _ => Stop::Unknown,
            };
            if matches!(stop, Stop::Error | Stop::Aborted) {
                return None;
            }
            let mut msg = content_message(Role::Assistant, MessageKind::Assistant, mp, content);
            let (provider, model) = (s(m, "provider"), s(m, "model"));
            msg.assistant = Some(Box::new(AssistantInfo {
                stop,
                model: match (provider, model) {
                    ("", "") => None,
                    ("", md) => Some(md.into()),
                    (p, "") => Some(p.into()),
                    (p, md) => Some(format!("{p}/{md}").into()),
                },
                transcript_only: provider == "openclaw",
                api_error: false,
                delivery_mirror: model == "delivery-mirror",
                rewritten: false,
            }));
            msg
        }
        "toolResult" => {
            let text = match content {
                Value::Array(a) => a.iter().map(|b| text_of(b.get("text"))).collect::<Vec<_>>().join("\n"),
                other => text_of(Some(other)),
            };
            // What is sent: the call id, name, content and error flag (not
            // `details` or `timestamp`, which stay in the session).
            let sent = serde_json::json!({
                "toolCallId": m.get("toolCallId"), "toolName": m.get("toolName"),
                "content": content, "isError": m.get("isError"),
            });
            let mut b = text_block(BlockKind::ToolResult, mp.clone(), &text, &sent);
            b.tool_id = m.get("toolCallId").and_then(Value::as_str).map(Into::into);
            b.tool_name = m.get("toolName").and_then(Value::as_str).map(Into::into);
            let details = m.get("details");
            let info = ResultInfo {
                synthetic_or_aborted: details
                    .and_then(|d| d.get("openclawSyntheticMissingToolResult"))
                    .and_then(Value::as_bool)
                    == Some(true)
                    || text.trim() == "aborted",
                delivered: details.is_some_and(super::pi_session::delivered),
                is_error: m.get("isError").and_then(Value::as_bool) == Some(true),
            };
            let mut msg = message(Role::Tool, MessageKind::ToolResult, mp);
            msg.blocks.push(b);
            msg.result = Some(Box::new(info));
            msg
        }
        "bashExecution" => {
            if m.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            let text = format!("Ran `{}`\n{}", text_of(m.get("command")), text_of(m.get("output")));
            let mut msg = message(Role::User, MessageKind::Bash, mp.clone());
            msg.blocks.push(text_block(BlockKind::Text, mp, &text, m));
            msg
        }
        "custom" | "hookMessage" => {
            let kind = if s(m, "customType") == "openclaw.runtime-context" {
                MessageKind::Carrier
            } else {
                MessageKind::Extension
            };
            content_message(Role::User, kind, mp, content)
        }
        "branchSummary" | "compactionSummary" => {
            let kind =
                if role == "branchSummary" { MessageKind::BranchSummary } else { MessageKind::CompactionSummary };
            let sp = ptr_join(&mp, "summary");
            let mut msg = message(Role::User, kind, mp);
            let t = text_of(m.get("summary"));
            msg.blocks.push(text_block(BlockKind::Text, sp, &t, m.get("summary").unwrap_or(&Value::Null)));
            msg
        }
        _ => return None,
    })
}

/// A message from a pi `content` value: a string (one text block, hashed as
/// its one-text-block form) or an array of `text`, `image`, `thinking` and
/// `toolCall` blocks.
fn content_message(role: Role, kind: MessageKind, mp: String, content: &Value) -> Message {
    let mut msg = message(role, kind, mp.clone());
    let cp = ptr_join(&mp, "content");
    match content {
        Value::Array(a) => {
            for (j, b) in a.iter().enumerate() {
                msg.blocks.push(parse_block(b, ptr_idx(&cp, j)));
            }
        }
        Value::Null => {}
        other => {
            let t = text_of(Some(other));
            let mut b = text_block(BlockKind::Text, cp, &t, other);
            if other.is_string() {
                b.json_hash = text_block_hash(&t);
            }
            msg.blocks.push(b);
        }
    }
    msg
}

/// One pi content block.
fn parse_block(b: &Value, p: String) -> Block {
    let ty = s(b, "type");
    let (kind, text) = match ty {
        "text" => (BlockKind::Text, text_of(b.get("text"))),
        "thinking" => (BlockKind::Thinking, text_of(b.get("thinking"))),
        "redactedThinking" | "redacted_thinking" => (BlockKind::Thinking, String::new()),
        "toolCall" => (BlockKind::ToolCall, b.get("arguments").map(Value::to_string).unwrap_or_default()),
        "image" => (BlockKind::Media, String::new()),
        _ if is_cut(b) => (BlockKind::Other, text_of(Some(b))),
        _ => (BlockKind::Other, text_of(b.get("text"))),
    };
    let mut bl = text_block(kind, p, &text, b);
    if kind == BlockKind::ToolCall {
        bl.tool_id = b.get("id").and_then(Value::as_str).map(Into::into);
        bl.tool_name = b.get("name").and_then(Value::as_str).map(Into::into);
        if bl.tool_name.as_deref() == Some("message") {
            (bl.is_send, bl.dry_run) = super::pi_session::send_facts(&text);
        }
    }
    bl
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Jsonl,
    detect: Detect {
        record: Some(Sniffer { rank: 0, test: sniff }),
        owns_record: Some(super::is_openclaw_trajectory),
        unsupported_document: Some((super::is_openclaw_trajectory, super::OPENCLAW_TRAJECTORY_DOCUMENT)),
        ..Detect::NONE
    },
    fit: Fit::Records {
        test: sniff,
        missing: "no record has `traceSchema` \"openclaw-trajectory\" and a `type` (an OpenClaw trajectory event)",
        document: None,
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: None,
    repro: Repro { name: "session.trajectory.jsonl", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[],
    about: About {
        what: "OpenClaw trajectory JSONL (traceSchema \"openclaw-trajectory\"): context.compiled records as requests, model.completed outcomes",
        kind: "stream of requests",
        location: "~/.openclaw/agents/*/sessions/*.trajectory.jsonl",
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(ty: &str, seq: u32, run: &str, data: Value) -> String {
        json!({"traceSchema":"openclaw-trajectory","schemaVersion":1,"traceId":"s1","source":"runtime",
            "type":ty,"ts":"2026-04-22T08:00:00.000Z","seq":seq,"sourceSeq":seq,"sessionId":"s1",
            "runId":run,"provider":"anthropic","modelId":"claude-sonnet-4-5","modelApi":"anthropic-messages","data":data})
        .to_string()
    }

    fn load_lines(lines: &[String]) -> Input {
        super::super::load_str_for_test(load, "t.trajectory.jsonl", &(lines.join("\n") + "\n"))
    }

    fn user(t: &str) -> Value {
        json!({"role":"user","content":[{"type":"text","text":t}],"timestamp":1})
    }

    #[test]
    fn a_context_compiled_record_is_a_request_with_its_prompt_last() {
        let input = load_lines(&[
            event("session.started", 1, "r1", json!({"trigger":"user"})),
            event(
                "context.compiled",
                2,
                "r1",
                json!({"systemPrompt":"S","prompt":"fix it","messages":[],"tools":[{"name":"read"}]}),
            ),
            event("model.completed", 3, "r1", json!({"aborted":false,"timedOut":false,"usage":{"input":10}})),
        ]);
        let Body::Stream(s) = &input.body else { panic!("a stream") };
        assert_eq!(s.requests.len(), 1);
        let r = &s.requests[0];
        assert_eq!((r.index, r.line, r.pointer.as_str()), (0, Some(2), "/data"));
        assert_eq!(r.slots[0].pointer, "/data/systemPrompt");
        assert_eq!(r.tools.as_ref().map(|t| t.0.as_str()), Some("/data/tools"));
        assert_eq!(r.messages.len(), 1);
        assert_eq!(&*r.messages[0].pointer, "/data/prompt");
        assert_eq!(r.messages[0].kind, MessageKind::UserTurn);
        assert_eq!(r.outcome, Some(Outcome::Completed));
        assert_eq!(r.session_id.as_deref(), Some("s1"));
        assert_eq!(r.endpoint.as_deref(), Some("anthropic/claude-sonnet-4-5"));
        assert_eq!(input.unknown_records, 0);
    }

    #[test]
    fn a_prompt_the_next_request_carries_is_aliased_to_its_copy_there() {
        let input = load_lines(&[
            event("context.compiled", 1, "r1", json!({"systemPrompt":"S","prompt":"one","messages":[]})),
            event("model.completed", 2, "r1", json!({"promptError":"400 context too long"})),
            event("context.compiled", 3, "r2", json!({"systemPrompt":"S","prompt":"two","messages":[user("one")]})),
        ]);
        let Body::Stream(s) = &input.body else { panic!("a stream") };
        assert_eq!(s.requests[0].messages.len(), 1);
        assert_eq!(s.requests[0].aliases, [("/prompt".to_string(), "/messages/0/content/0".to_string())]);
        assert_eq!(s.requests[0].outcome, Some(Outcome::PromptError));
        let ptrs: Vec<&str> = s.requests[1].messages.iter().map(|m| &*m.pointer).collect();
        assert_eq!(ptrs, ["/data/messages/0", "/data/prompt"]);
        assert_eq!(s.requests[1].outcome, None);
        assert!(s.requests[1].aliases.is_empty());
        // A string prompt hashes as the stored one-text-block message.
        assert_eq!(s.requests[1].messages[0].blocks[0].json_hash, text_block_hash("one"));
    }

    #[test]
    fn failed_assistant_messages_are_not_sent_and_outcomes_are_read() {
        let msgs = json!([user("hi"),
            {"role":"assistant","content":[{"type":"text","text":"partial"}],"stopReason":"aborted"},
            {"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}],"stopReason":"toolUse"},
            {"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"A"}],"isError":false,"timestamp":2},
            {"role":"bashExecution","command":"ls","output":"a","excludeFromContext":true},
            {"role":"compactionSummary","summary":"earlier","tokensBefore":10}]);
        let (r, cut) = parse(&json!({"messages": msgs}), &Arc::from("t"), 0, "/data");
        assert!(!cut);
        let kinds: Vec<(&str, MessageKind)> = r.messages.iter().map(|m| (&*m.pointer, m.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("/data/messages/0", MessageKind::UserTurn),
                ("/data/messages/2", MessageKind::Assistant),
                ("/data/messages/3", MessageKind::ToolResult),
                ("/data/messages/5", MessageKind::CompactionSummary),
            ]
        );
        assert_eq!(r.messages[1].blocks[0].tool_id.as_deref(), Some("c1"));
        assert_eq!(r.messages[2].blocks[0].tool_id.as_deref(), Some("c1"));
        assert_eq!(&*r.messages[3].blocks[0].pointer, "/data/messages/5/summary");
        for (d, want) in [
            (json!({"aborted":true}), Outcome::Aborted),
            (json!({"externalAbort":true,"timedOut":false}), Outcome::Aborted),
            (json!({"idleTimedOut":true,"aborted":true}), Outcome::TimedOut),
            (json!({"promptError":"boom","aborted":true}), Outcome::PromptError),
            (json!({"promptError":null,"stopReason":"stop"}), Outcome::Completed),
        ] {
            assert_eq!(outcome(&d), want, "{d}");
        }
    }

    #[test]
    fn recorder_truncation_is_read_as_far_as_it_was_recorded() {
        let mut msgs: Vec<Value> = vec![user("hi")];
        msgs.push(json!({"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"toolUse"}));
        msgs.push(json!({"truncated":true,"reason":"trajectory-array-size-limit","originalLength":70,"limitItems":64}));
        let sys =
            json!({"truncated":true,"reason":"trajectory-field-size-limit","originalChars":40000,"limitChars":32768});
        let input = load_lines(&[
            event("context.compiled", 1, "r1", json!({"systemPrompt":sys,"prompt":"go","messages":msgs})),
            event("context.compiled", 2, "r2", json!({"truncated":true,"reason":"trajectory-event-size-limit"})),
            "{\"traceSchema\":\"openclaw-trajectory\",\"type\":\"context.compiled\",\"data\"".to_string(),
            event("context.compiled", 4, "r3", json!({"prompt":"x"})),
        ]);
        let Body::Stream(s) = &input.body else { panic!("a stream") };
        assert_eq!(s.requests.len(), 2);
        let r = &s.requests[0];
        // Cut after the unanswered call's message: only the first user message, and no prompt.
        let ptrs: Vec<&str> = r.messages.iter().map(|m| &*m.pointer).collect();
        assert_eq!(ptrs, ["/data/messages/0"]);
        assert_eq!(&*r.slots[0].parts[0].text, "[not recorded: 40000 characters]");
        assert_eq!(input.skipped, 1);
        assert_eq!(input.unread.len(), 1);
        assert_eq!(input.unread[0].line, Some(2));
        assert_eq!(input.bad_lines.len(), 1);
        assert_eq!(input.bad_lines[0].line, 3);
        // The index counts the unrecorded request.
        assert_eq!((s.requests[1].index, s.requests[1].line), (2, Some(4)));
    }
}
