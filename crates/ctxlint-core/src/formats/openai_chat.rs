//! `openai-chat`: OpenAI Chat Completions request bodies (also Mistral, Groq,
//! DeepSeek, Hugging Face router, Cohere v2, which share the shape). Facts from
//! OpenAI's Chat Completions reference: `messages[]` of `{role, content}` with
//! roles `system`, `developer`, `user`, `assistant`, `tool` (legacy
//! `function`); `content` is a string or an array of parts; assistant
//! `tool_calls[]` are `{id, type:"function", function:{name, arguments}}`;
//! tool messages answer them by `tool_call_id`. Some proxies (LiteLLM) pass
//! Anthropic-shaped `tool_use` / `tool_result` blocks inside `content`: they
//! are read as such (mixed shapes pair by id). A `content` list of exactly
//! one plain text part is compared as the string it serialises (docs/spec.md §1).

use super::anthropic;
use super::body::*;
use super::format::{About, Format};
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("openai-chat");

/// Whether a body looks like a Chat Completions request.
pub fn sniff(v: &Value) -> bool {
    v.field("messages")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().all(|m| m.field("role").is_some()) && !a.is_empty() || v.field("model").is_some())
        && v.field("contents").is_none()
        && !says_nothing(v)
}

/// Whether a message carries something a Chat Completions request sends:
/// `content`, `tool_calls` or the legacy `function_call`.
fn sends_something(m: &Value) -> bool {
    m.field("content").is_some() || m.field("tool_calls").is_some() || m.field("function_call").is_some()
}

/// Whether a body's `messages` list is not empty and none of its messages
/// carries `content`, `tool_calls` or `function_call`: no Chat Completions
/// request (the API requires `content` unless there are tool calls), but a
/// framework's own message shape — DSPy's request snapshots store
/// `{role, parts: [{type, text}]}` (`tests/predict/snapshots/*.json`). Read
/// as a request, every message would be empty and nothing checked: such a
/// document is skipped with [`PARTS_NOT_CONTENT`] (messages with `parts`), or
/// as matching no format. (The AI SDK's `useChat` body, whose `messages` are
/// `UIMessage`s, is read as [`super::ai_sdk`]'s.)
fn says_nothing(v: &Value) -> bool {
    v.field("messages").and_then(Value::as_array).is_some_and(|a| !a.is_empty() && !a.iter().any(sends_something))
}

/// [`says_nothing`] of a document whose messages hold `parts` instead
/// (skipped with [`PARTS_NOT_CONTENT`]), unless they are the AI SDK's
/// `UIMessage`s (a `useChat` body: [`super::ai_sdk::ui_messages`]).
fn parts_not_content(v: &Value) -> bool {
    says_nothing(v)
        && super::ai_sdk::ui_messages(v).is_none()
        && v.field("messages")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().all(|m| m.field("role").is_some() && m.field("parts").is_some()))
}

/// Why a document of [`parts_not_content`] is skipped.
pub const PARTS_NOT_CONTENT: &str = "a `messages` list whose messages hold `parts`, not `content` (a framework's own message shape, such as DSPy's request snapshots), not a request ctxlint reads";

/// The text of a `thinking` content part: a string, or Mistral's list of
/// text chunks (`{"type": "thinking", "thinking": [{"type": "text", "text":
/// …}]}`, the shape Mistral's reasoning models return and take back; Mistral
/// API docs, "Reasoning"), the chunks' texts joined by line breaks.
fn thinking_text(part: &Value) -> std::borrow::Cow<'_, str> {
    match part.field("thinking") {
        Some(Value::String(t)) => std::borrow::Cow::Borrowed(t),
        Some(Value::Array(chunks)) => std::borrow::Cow::Owned(
            chunks.iter().map(|c| s(c, "text")).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n"),
        ),
        _ => std::borrow::Cow::Borrowed(""),
    }
}

/// Parses a body at `base` into a request.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    set_tools(&mut r, base, "tools", v.field("tools").or_else(|| v.field("functions")));
    let Some(msgs) = v.field("messages").and_then(Value::as_array) else { return r };
    for (i, m) in msgs.iter().enumerate() {
        let mp = ptr_idx(&ptr_join(base, "messages"), i);
        r.messages.push(Arc::new(parse_message(m, mp)));
    }
    r
}

/// Whether a system message's text is AutoGPT's record of a command it ran,
/// `Command <name> returned: <result>`: AutoGPT (0.3–0.4) has no tool
/// messages and adds each command's result to the history as a system
/// message (`autogpt/agent/agent.py`: `self.history.add("system", result,
/// "action_result")`). Two runs of one command that give the same output are
/// two tool results, not a system prompt sent twice.
fn is_command_result(text: &str) -> bool {
    text.strip_prefix("Command ")
        .and_then(|r| r.split_once(" returned: ").or_else(|| r.split_once(" returned:")))
        .is_some_and(|(name, _)| !name.is_empty() && !name.contains(char::is_whitespace))
}

/// Parses one Chat message `m` whose JSON Pointer is `mp` (also used by
/// loaders that rebuild Chat-shaped messages from another rendering, such as
/// [`super::aider`]).
pub fn parse_message(m: &Value, mp: String) -> Message {
    let role_s = s(m, "role");
    let (role, kind) = match role_s {
        "system" => (Role::System, MessageKind::SystemPrompt),
        "developer" => (Role::Developer, MessageKind::SystemPrompt),
        "assistant" | "model" | "chatbot" => (Role::Assistant, MessageKind::Assistant),
        "tool" | "function" => (Role::Tool, MessageKind::ToolResult),
        _ => (Role::User, MessageKind::UserTurn),
    };
    let content = m.field("content").unwrap_or(&Value::Null);
    // (Never the first message: a result follows the command it answers,
    // and a system prompt that opens with those words is still one.)
    if role == Role::System && !mp.ends_with("/messages/0") && content.as_str().is_some_and(is_command_result) {
        // The runtime's record of a command it ran: a tool result, whose
        // call (a JSON command in the assistant's text) has no id.
        let mut msg = message(Role::Tool, MessageKind::ToolResult, mp.clone());
        msg.blocks.push(text_block(BlockKind::Other, mp, content.as_str().unwrap_or(""), content));
        msg.json_hash = chash(m);
        return msg;
    }
    let mut msg = message(role, kind, mp.clone());
    if role == Role::Tool {
        let text = flatten_text(content);
        let mut b = text_block(BlockKind::ToolResult, mp.clone(), &text, m);
        b.tool_id = m.field("tool_call_id").and_then(Value::as_str).map(Into::into);
        b.tool_name = m.field("name").and_then(Value::as_str).map(Into::into);
        msg.blocks.push(b);
        msg.json_hash = chash(m);
        return msg;
    }
    match content {
        Value::String(t) => {
            // With `tool_calls` the blocks are the elements: the text is hashed
            // as its one-text-part form (docs/spec.md §1).
            let mut b = text_block(BlockKind::Text, mp.clone(), t, content);
            b.json_hash = text_block_hash(t);
            msg.blocks.push(b);
            if m.field("tool_calls").is_none() {
                msg.json_hash = chash(m);
            }
        }
        Value::Array(a) => {
            // A list of exactly one plain text part is the string content
            // serialised another way (docs/spec.md §1): the message is one element,
            // hashed as if its content were that string.
            if let Some(t) = single_text_block(content).filter(|_| m.field("tool_calls").is_none()) {
                let mut as_string = m.clone();
                if let Some(o) = as_string.as_object_mut() {
                    o.insert("content".into(), Value::String(t.to_string()));
                }
                msg.json_hash = chash(&as_string);
            }
            let cp = ptr_join(&mp, "content");
            for (j, part) in a.iter().enumerate() {
                let pp = ptr_idx(&cp, j);
                let b = match s(part, "type") {
                    "text" | "input_text" | "output_text" => text_block(BlockKind::Text, pp, s(part, "text"), part),
                    "image_url" | "input_audio" | "file" | "image" | "document" => {
                        text_block(BlockKind::Media, pp, "", part)
                    }
                    "thinking" | "reasoning" => text_block(BlockKind::Thinking, pp, &thinking_text(part), part),
                    "tool_use" | "tool_result" => anthropic::parse_block(part, pp),
                    _ => text_block(BlockKind::Other, pp, s(part, "text"), part),
                };
                msg.blocks.push(b);
            }
        }
        _ => {}
    }
    if let Some(calls) = m.field("tool_calls").and_then(Value::as_array) {
        let tp = ptr_join(&mp, "tool_calls");
        for (j, c) in calls.iter().enumerate() {
            let f = c.field("function").unwrap_or(&Value::Null);
            let mut b = text_block(BlockKind::ToolCall, ptr_idx(&tp, j), s(f, "arguments"), c);
            b.tool_id = c.field("id").and_then(Value::as_str).map(Into::into);
            b.tool_name = f.field("name").and_then(Value::as_str).map(Into::into);
            msg.blocks.push(b);
        }
    }
    if let Some(fc) = m.field("function_call") {
        let mut b = text_block(BlockKind::ToolCall, ptr_join(&mp, "function_call"), s(fc, "arguments"), fc);
        b.tool_name = fc.field("name").and_then(Value::as_str).map(Into::into);
        msg.blocks.push(b);
    }
    match role {
        Role::User => classify_user(&mut msg),
        Role::Assistant => msg.assistant = assistant_info(None),
        _ => {}
    }
    msg
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format::request_body(
    ID,
    8,
    sniff,
    super::body::missing_messages,
    parse,
    About {
        what: "OpenAI Chat Completions request body (also Mistral, Groq, DeepSeek, HF router, Cohere v2)",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
)
.with_elements("messages", parse_message)
.with_unsupported_document(parts_not_content, PARTS_NOT_CONTENT);

#[cfg(test)]
mod tests {
    use super::*;

    /// AutoGPT's command results (system messages) are tool results; other
    /// system messages, and a text that only starts alike, are not.
    #[test]
    fn a_command_result_system_message_is_a_tool_result() {
        let m = parse_message(
            &serde_json::json!({"role": "system", "content": "Command execute_python_file returned: [0, 1]"}),
            "/messages/5".into(),
        );
        assert_eq!((m.role, m.kind), (Role::Tool, MessageKind::ToolResult));
        assert_eq!(
            (m.blocks[0].kind, &*m.blocks[0].text),
            (BlockKind::Other, "Command execute_python_file returned: [0, 1]")
        );
        for text in ["You are Auto-GPT.", "Command the fleet to return: now", "Command  returned: x"] {
            let m = parse_message(&serde_json::json!({"role": "system", "content": text}), "/messages/3".into());
            assert_eq!(m.kind, MessageKind::SystemPrompt, "{text}");
        }
        // The first message is the system prompt, whatever its words.
        let first = parse_message(
            &serde_json::json!({"role": "system", "content": "Command run returned: nothing yet; plan the next step."}),
            "/messages/0".into(),
        );
        assert_eq!(first.kind, MessageKind::SystemPrompt);
    }
}
