//! `ai-sdk-ui-messages`: a Vercel AI SDK chat as the application persists it,
//! a JSON array of `UIMessage`s (`{id, role, parts[], metadata?}`), and the
//! request body `useChat` posts to the application's route (`{id, messages:
//! UIMessage[], trigger, messageId, …}`: [`ui_messages`]; pointers then start
//! `/messages`).
//!
//! Format facts from vercel/ai `packages/ai/src/ui/ui-messages.ts` (v5:
//! `UIMessagePart`) and `convert-to-model-messages.ts` (how the history is
//! sent again), checked against files the SDK itself built
//! (`readUIMessageStream`, ai 5.0; `appendResponseMessages`, ai 4.3):
//! - roles `system`, `user`, `assistant`; user parts `text` and `file`;
//!   assistant parts `text`, `reasoning`, `file`, `source-*`, `step-start`
//!   (a new model call), `data-*` (never sent), and tool parts:
//!   v5 `tool-<name>` / `dynamic-tool` (`toolCallId`, `state`
//!   `input-streaming` | `input-available` | `output-available` |
//!   `output-error`, `input`, `output`, `errorText`), v4 `tool-invocation`
//!   (`toolInvocation: {toolCallId, toolName, args, state: partial-call |
//!   call | result, result}`).
//! - a tool part is sent as the model's tool call and, once it has an output
//!   (`output-available`, `output-error`; v4 `result`), as a tool result
//!   right after the step that made it. A tool part without an output is
//!   a call without a result: pending at the end of the chat (a client-side
//!   tool waiting for the user), unanswered once a later message follows.
//!
//! One file is one history snapshot (docs/spec.md §1): a request-like element. A user
//! or system `UIMessage` is one message (pointer `/i`) with a block per part
//! (`/i/parts/j`); an assistant `UIMessage` is one message per step, and the
//! step's tool results one tool-role message after it, each result a block at
//! `/i/parts/j/output` (`/errorText`; v4 `/toolInvocation/result`). Ids, timestamps, `state` and `providerMetadata`
//! are not compared. The first user or assistant message that has an `id`
//! names the chat: snapshots whose first such ids differ are different
//! conversations, and a snapshot without any id is a conversation of its own.

use super::body::*;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Shape, Sniffer};
use crate::model::*;
use serde_json::{Value, json};
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("ai-sdk-ui-messages");

/// Whether a document is a `UIMessage[]`, or the body `useChat` sends to the
/// application's route (an object whose `messages` is one: [`ui_messages`]).
pub fn sniff(v: &Value) -> bool {
    ui_messages(v).is_some()
}

/// The `UIMessage[]` of a document and the pointer of that list: the document
/// itself (`""`), or the `messages` of the request body the AI SDK's
/// `useChat` posts to the application's route — `{...body, id: <chat id>,
/// messages, trigger: "submit-message" | "regenerate-message", messageId}`
/// (vercel/ai `packages/ai/src/ui/http-chat-transport.ts`,
/// `HttpChatTransport.sendMessages`; the history the server sends on, with
/// `convertToModelMessages`, as it does a persisted chat's). `None` unless
/// that list is a `UIMessage[]` ([`is_ui_messages`]).
pub fn ui_messages(v: &Value) -> Option<(&Vec<Value>, &'static str)> {
    let (a, at) = match v {
        Value::Array(a) => (a, ""),
        Value::Object(o) => (o.get("messages")?.as_array()?, "/messages"),
        _ => return None,
    };
    is_ui_messages(a).then_some((a, at))
}

/// Whether a list is a `UIMessage[]`: not empty, objects with
/// `role` (system, user, assistant) and `parts`, every part an object with a
/// string `type`, and at least one message with an `id` or one part of a
/// type only the AI SDK writes (tool parts, `step-start`, `reasoning`,
/// `source-*`, `data-*`: an ai 4 chat saved without its messages' ids).
fn is_ui_messages(a: &[Value]) -> bool {
    let sdk_part = |p: &Value| {
        let t = s(p, "type");
        matches!(t, "tool-invocation" | "step-start" | "reasoning" | "dynamic-tool")
            || ["tool-", "source-", "data-"].iter().any(|x| t.starts_with(x))
    };
    !a.is_empty()
        && a.iter().any(|m| {
            m.get("id").is_some_and(Value::is_string)
                || m.get("parts").and_then(Value::as_array).is_some_and(|ps| ps.iter().any(sdk_part))
        })
        && a.iter().all(|m| {
            matches!(m.get("role").and_then(Value::as_str), Some("system" | "user" | "assistant"))
                && m.get("parts").and_then(Value::as_array).is_some_and(|ps| ps.iter().all(is_ui_part))
        })
}

/// Whether a part has the keys the AI SDK gives its type (`ui-messages.ts`):
/// a string `type`; a `text` or `reasoning` part a `text`; a tool part
/// (`tool-<name>`, `dynamic-tool`) a `toolCallId`, a v4 `tool-invocation`
/// a `toolInvocation` object. (TanStack AI's messages look alike from afar — `{id,
/// role, parts}` — but hold `{type: "text", content}` and `tool-call` /
/// `tool-result` parts with `id` and `toolCallId` elsewhere: not these.)
fn is_ui_part(p: &Value) -> bool {
    let Some(t) = p.get("type").and_then(Value::as_str) else { return false };
    // (Present, whatever its value: a damaged chat is still read, and says so.)
    let has = |k: &str| p.get(k).is_some();
    match t {
        "text" | "reasoning" => has("text"),
        "tool-invocation" => p.get("toolInvocation").is_some_and(Value::is_object),
        "dynamic-tool" => has("toolCallId"),
        t if t.starts_with("tool-") => has("toolCallId"),
        _ => true,
    }
}

/// A tool part's call and result, whichever version wrote it:
/// (call id, tool name, input, result pointer suffix and value, is error).
struct ToolPart<'a> {
    id: Option<&'a str>,
    name: String,
    input: Option<&'a Value>,
    result: Option<(&'static str, &'a Value, bool)>,
}

fn tool_part(p: &Value) -> Option<ToolPart<'_>> {
    let ty = s(p, "type");
    if ty == "tool-invocation" {
        let ti = p.get("toolInvocation")?;
        let result = (s(ti, "state") == "result")
            .then(|| ti.get("result").map(|r| ("toolInvocation/result", r, false)))
            .flatten();
        return Some(ToolPart {
            id: ti.get("toolCallId").and_then(Value::as_str),
            name: s(ti, "toolName").to_string(),
            input: ti.get("args"),
            result,
        });
    }
    let name = if ty == "dynamic-tool" { s(p, "toolName").to_string() } else { ty.strip_prefix("tool-")?.to_string() };
    let result = match s(p, "state") {
        "output-available" => p.get("output").map(|o| ("output", o, false)),
        "output-error" => p.get("errorText").map(|o| ("errorText", o, true)),
        _ => None,
    };
    Some(ToolPart { id: p.get("toolCallId").and_then(Value::as_str), name, input: p.get("input"), result })
}

/// Parses a `UIMessage[]` document at `base` into one request-like element.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    let Some((msgs, at)) = ui_messages(v) else { return r };
    let list = format!("{base}{at}");
    // A chat's messages keep their ids: snapshots whose first user or
    // assistant messages that have an id differ in it are different chats
    // (a folder of one file per chat; ai 4's `appendResponseMessages` gives
    // the assistant's messages ids and an application may keep the user's
    // without). A snapshot without any id is a chat of its own: nothing
    // tells it from another chat that opens with the same words.
    r.conversation_id = Some(
        msgs.iter()
            .filter(|m| s(m, "role") != "system")
            .find_map(|m| m.get("id").and_then(Value::as_str))
            .map_or_else(|| format!("ui-file:{path}:{base}"), |id| format!("ui-message:{id}"))
            .into(),
    );
    for (i, m) in msgs.iter().enumerate() {
        let mp = ptr_idx(&list, i);
        let pp = ptr_join(&mp, "parts");
        let parts = m.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        match s(m, "role") {
            "assistant" => {
                // One message per model call (`step-start` opens the next);
                // the step's tool results follow it as one tool message.
                let mut step = message(Role::Assistant, MessageKind::Assistant, mp.clone());
                step.assistant = assistant_info(None);
                let mut results = message(Role::Tool, MessageKind::ToolResult, mp.clone());
                results.result = Some(Box::default());
                let flush = |r: &mut Request, step: &mut Message, results: &mut Message| {
                    if !step.blocks.is_empty() {
                        step.json_hash = chash(&Value::Array(step.blocks.iter().map(|b| json!(b.json_hash)).collect()));
                        let mut next = message(Role::Assistant, MessageKind::Assistant, mp.clone());
                        next.assistant = assistant_info(None);
                        r.messages.push(Arc::new(std::mem::replace(step, next)));
                    }
                    if !results.blocks.is_empty() {
                        results.json_hash =
                            chash(&Value::Array(results.blocks.iter().map(|b| json!(b.json_hash)).collect()));
                        let mut next = message(Role::Tool, MessageKind::ToolResult, mp.clone());
                        next.result = Some(Box::default());
                        r.messages.push(Arc::new(std::mem::replace(results, next)));
                    }
                };
                for (j, p) in parts.iter().enumerate() {
                    let ptr = ptr_idx(&pp, j);
                    let ty = s(p, "type");
                    if ty == "step-start" {
                        flush(&mut r, &mut step, &mut results);
                        continue;
                    }
                    if step.blocks.is_empty() {
                        step.pointer = ptr.clone().into();
                    }
                    if let Some(tp) = tool_part(p) {
                        let args = tp.input.map(Value::to_string).unwrap_or_default();
                        let sent = json!({"toolCallId": tp.id, "toolName": tp.name, "input": tp.input});
                        let mut b = text_block(BlockKind::ToolCall, ptr.clone(), &args, &sent);
                        b.tool_id = tp.id.map(Into::into);
                        b.tool_name = Some(tp.name.as_str().into());
                        step.blocks.push(b);
                        if let Some((suffix, out, is_error)) = tp.result {
                            let rp = format!("{ptr}/{suffix}");
                            let text = out.as_str().map(str::to_string).unwrap_or_else(|| out.to_string());
                            if results.blocks.is_empty() {
                                results.pointer = rp.clone().into();
                            }
                            let mut rb = text_block(BlockKind::ToolResult, rp, &text, out);
                            rb.tool_id = tp.id.map(Into::into);
                            rb.tool_name = Some(tp.name.as_str().into());
                            results.blocks.push(rb);
                            if is_error {
                                results.result = Some(Box::new(ResultInfo { is_error, ..Default::default() }));
                            }
                        }
                    } else {
                        let kind = match ty {
                            "text" => BlockKind::Text,
                            "reasoning" => BlockKind::Thinking,
                            "file" => BlockKind::Media,
                            // Data parts and sources are UI-only: never sent.
                            _ => continue,
                        };
                        let sent = json!({"type": ty, "text": p.get("text"), "url": p.get("url")});
                        step.blocks.push(text_block(kind, ptr, s(p, "text"), &sent));
                    }
                }
                flush(&mut r, &mut step, &mut results);
            }
            role => {
                let (role, kind) = match role {
                    "system" => (Role::System, MessageKind::SystemPrompt),
                    _ => (Role::User, MessageKind::UserTurn),
                };
                let mut msg = message(role, kind, mp.clone());
                for (j, p) in parts.iter().enumerate() {
                    let ptr = ptr_idx(&pp, j);
                    let bk = match s(p, "type") {
                        "text" => BlockKind::Text,
                        "file" => BlockKind::Media,
                        _ => continue,
                    };
                    let sent = json!({"type": s(p, "type"), "text": p.get("text"), "url": p.get("url")});
                    msg.blocks.push(text_block(bk, ptr, s(p, "text"), &sent));
                }
                msg.json_hash = chash(&Value::Array(msg.blocks.iter().map(|b| json!(b.json_hash)).collect()));
                r.messages.push(Arc::new(msg));
            }
        }
    }
    r
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Snapshot { joins: true },
    encoding: Encoding::Json,
    detect: Detect { body: Some(Sniffer { rank: 0, test: sniff }), ..Detect::NONE },
    fit: Fit::Document {
        test: |v| {
            (!sniff(v)).then_some(
                "not an array of UI messages with `role` (system, user, assistant), `parts` of typed parts, and an `id` (nor a `useChat` body whose `messages` is one)",
            )
        },
        noun: "no request body",
    },
    read: Read::Body { parse, database: None, elements: None },
    locate: Locate::Document { pointer: None },
    record: None,
    repro: super::format::BODY_REPRO,
    store: None,
    agent_folders: &[],
    about: About {
        what: "Vercel AI SDK UIMessage[] JSON (parts with tool-* / tool-invocation states), or a useChat request body",
        kind: "history snapshot",
        location: "wherever the application persists its chats",
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_parts_are_a_call_and_its_result_after_the_step() {
        let v = json!([
            {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "weather?"}]},
            {"id": "a1", "role": "assistant", "parts": [
                {"type": "step-start"},
                {"type": "tool-getWeather", "toolCallId": "c1", "state": "output-available", "input": {"city": "Paris"}, "output": {"t": 21}},
                {"type": "step-start"},
                {"type": "text", "text": "sunny", "state": "done"}]}
        ]);
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("chat.json"), 0, "");
        let kinds: Vec<(Role, &str)> = r.messages.iter().map(|m| (m.role, &*m.pointer)).collect();
        assert_eq!(
            kinds,
            [
                (Role::User, "/0"),
                (Role::Assistant, "/1/parts/1"),
                (Role::Tool, "/1/parts/1/output"),
                (Role::Assistant, "/1/parts/3"),
            ]
        );
        assert_eq!(r.messages[2].blocks[0].tool_id.as_deref(), Some("c1"));
        assert_eq!(&*r.messages[0].blocks[0].pointer, "/0/parts/0");
        // A pydantic-ai history or a Gemini `contents` list is not one.
        assert!(!sniff(&json!([{"kind": "request", "parts": []}])));
        assert!(!sniff(&json!([{"role": "user", "parts": [{"text": "hi"}]}])));
        // Without any id, only with a part only the AI SDK writes.
        assert!(!sniff(&json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}]}])));
    }

    /// The body `useChat` posts (vercel/ai `http-chat-transport.ts`): its
    /// `messages` are read as the chat, pointers under `/messages`; DSPy's
    /// `{role, parts}` snapshot is still not one.
    #[test]
    fn a_use_chat_body_is_its_messages() {
        let v = json!({"id": "chat-1", "trigger": "submit-message", "messageId": null, "messages": [
            {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "weather?"}]},
            {"id": "a1", "role": "assistant", "parts": [
                {"type": "step-start"},
                {"type": "tool-getWeather", "toolCallId": "c1", "state": "output-available", "input": {}, "output": 21}]},
            {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "and Rome?"}]}
        ]});
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("body.json"), 0, "");
        let ptrs: Vec<&str> = r.messages.iter().map(|m| &*m.pointer).collect();
        assert_eq!(ptrs, ["/messages/0", "/messages/1/parts/1", "/messages/1/parts/1/output", "/messages/2"]);
        assert_eq!(r.conversation_id.as_deref(), Some("ui-message:u1"));
        let dspy = json!({"model": "m", "messages": [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]});
        assert!(!sniff(&dspy));
        // TanStack AI's body (`{messages, data}`): text in `content`, `tool-call` / `tool-result` parts.
        let tanstack = json!({"messages": [
            {"id": "m1", "role": "user", "parts": [{"type": "text", "content": "weather?"}]},
            {"id": "m2", "role": "assistant", "parts": [
                {"type": "tool-call", "id": "call_abc", "name": "weather", "arguments": "{}", "state": "input-complete"},
                {"type": "tool-result", "toolCallId": "call_abc", "content": "21", "state": "complete"}]}
        ], "data": {}});
        assert!(!sniff(&tanstack));
        assert!(!sniff(&json!({"messages": []})));
    }

    #[test]
    fn a_chat_is_named_by_its_first_message_id_else_by_its_file() {
        let chat = |first: Value| {
            json!([
                {"role": "user", "parts": [{"type": "text", "text": "hello"}]},
                first,
                {"id": "u9", "role": "user", "parts": [{"type": "text", "text": "bye"}]}
            ])
        };
        // ai 4's appendResponseMessages: the user's message saved without an id.
        let v = chat(json!({"id": "msg-A", "role": "assistant", "parts": [{"type": "text", "text": "Hi"}]}));
        let r = parse(&v, &Arc::from("a.json"), 0, "");
        assert_eq!(r.conversation_id.as_deref(), Some("ui-message:msg-A"));
        // No id at all (an ai 4 chat with tool calls, saved without them): its file.
        let v = json!([
            {"role": "user", "parts": [{"type": "text", "text": "weather?"}]},
            {"role": "assistant", "parts": [{"type": "tool-invocation", "toolInvocation":
                {"state": "result", "toolCallId": "c1", "toolName": "w", "args": {}, "result": "rain"}}]}
        ]);
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("chats/b.json"), 0, "");
        assert_eq!(r.conversation_id.as_deref(), Some("ui-file:chats/b.json:"));
    }
}
