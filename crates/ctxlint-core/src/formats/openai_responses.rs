//! `openai-responses`: OpenAI Responses API request bodies. Facts from OpenAI's
//! Responses reference: `instructions` (string) is the system prompt slot;
//! `input` is a string or an array of items: messages (`{type?:"message",
//! role, content}` with `input_text`/`output_text`/`input_image` parts; roles
//! `system`/`developer` are system prompts), `function_call{call_id,name,
//! arguments}`, `function_call_output{call_id,output}`, `custom_tool_call` /
//! `custom_tool_call_output`, `local_shell_call`, `reasoning`, `compaction`,
//! `item_reference`. `previous_response_id` chains to a stored response
//! (its items are not repeated); `conversation` names a stored conversation.

use super::body::*;
use super::format::{About, Format};
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("openai-responses");

/// Whether a body looks like a Responses request (and is no Response object:
/// OpenAI's `Response` has `"object": "response"`, `output` and `status`).
pub fn sniff(v: &Value) -> bool {
    // A response object (`"object": "response"`, saved by a test or a
    // tracer) echoes the request's `instructions`: it is no request.
    v.field("object").and_then(Value::as_str) != Some("response")
        // The API's parameters are snake_case names: a map of span
        // attributes (`gen_ai.operation.name`, and an `input` string) or an
        // Agents SDK run state (`$schemaVersion`, `original_input`, …) that
        // holds an `input` is no request body.
        && v.as_object().is_some_and(|o| {
            o.keys().all(|k| k.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'))
        })
        && v.field("original_input").is_none()
        && v.field("messages").is_none()
        && v.field("contents").is_none()
        && (v.field("input").is_some_and(|i| i.is_array() || i.is_string())
            || v.field("instructions").is_some_and(Value::is_string)
            || v.field("previous_response_id").is_some())
}

/// Parses a body at `base` into a request.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    if let Some(ins) = v.field("instructions").filter(|i| !i.is_null()) {
        let ptr = ptr_join(base, "instructions");
        let text = flatten_text(ins);
        r.slots.push(Slot {
            kind: SlotKind::Instructions,
            pointer: ptr.clone(),
            parts: vec![text_block(BlockKind::Text, ptr, &text, ins)],
        });
    }
    set_tools(&mut r, base, "tools", v.field("tools"));
    r.previous_response_id = v.field("previous_response_id").and_then(Value::as_str).map(Into::into);
    r.conversation_id = match v.field("conversation") {
        Some(Value::String(s)) => Some(s.as_str().into()),
        Some(o @ Value::Object(_)) => o.field("id").and_then(Value::as_str).map(Into::into),
        _ => None,
    };
    let ip = ptr_join(base, "input");
    match v.field("input") {
        Some(Value::String(t)) => {
            let mut m = message(Role::User, MessageKind::UserTurn, ip.clone());
            m.blocks.push(text_block(BlockKind::Text, ip, t, v.field("input").unwrap_or(&Value::Null)));
            // The same element as the one-item list `[{"role": "user", "content": t}]`.
            m.json_hash = plain_message_hash("user", t);
            r.messages.push(Arc::new(m));
        }
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                r.messages.push(Arc::new(parse_item(it, ptr_idx(&ip, i))));
            }
        }
        _ => {}
    }
    r
}

/// The item type of a Responses `item_reference`, kept as its block's tool name.
const ITEM_REFERENCE: &str = "item_reference";

/// Whether a message read by [`parse_item`] is an `item_reference`: a stored
/// item named by id, which the request does not send (the provider holds it).
pub fn is_item_reference(m: &Message) -> bool {
    m.kind == MessageKind::Meta
        && matches!(m.blocks.as_slice(), [b] if b.kind == BlockKind::Other && b.tool_name.as_deref() == Some(ITEM_REFERENCE))
}

/// Parses one input item (also used for Codex rollout `response_item` payloads).
pub fn parse_item(it: &Value, p: String) -> Message {
    let ty =
        it.field("type").and_then(Value::as_str).unwrap_or(if it.field("role").is_some() { "message" } else { "" });
    let mut m;
    match ty {
        "message" => {
            let (role, kind) = match s(it, "role") {
                "system" => (Role::System, MessageKind::SystemPrompt),
                "developer" => (Role::Developer, MessageKind::SystemPrompt),
                "assistant" => (Role::Assistant, MessageKind::Assistant),
                _ => (Role::User, MessageKind::UserTurn),
            };
            m = message(role, kind, p.clone());
            match it.field("content") {
                Some(Value::String(t)) => m.blocks.push(text_block(BlockKind::Text, p.clone(), t, it)),
                Some(Value::Array(parts)) => {
                    let cp = ptr_join(&p, "content");
                    for (j, part) in parts.iter().enumerate() {
                        let kind = match s(part, "type") {
                            "input_text" | "output_text" | "text" => BlockKind::Text,
                            "input_image" | "input_file" | "input_audio" => BlockKind::Media,
                            "refusal" => BlockKind::Text,
                            _ => BlockKind::Other,
                        };
                        let text =
                            part.field("text").or_else(|| part.field("refusal")).and_then(Value::as_str).unwrap_or("");
                        m.blocks.push(text_block(kind, ptr_idx(&cp, j), text, part));
                    }
                }
                _ => {}
            }
            if role == Role::Assistant {
                m.assistant = assistant_info(None);
            }
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "computer_call" | "mcp_call"
        | "web_search_call" | "file_search_call" | "tool_search_call" => {
            m = message(Role::Assistant, MessageKind::Assistant, p.clone());
            let args = it
                .field("arguments")
                .or_else(|| it.field("input"))
                .or_else(|| it.field("action"))
                .map(|a| a.as_str().map(str::to_string).unwrap_or_else(|| a.to_string()))
                .unwrap_or_default();
            let mut b = text_block(BlockKind::ToolCall, p.clone(), &args, it);
            b.tool_id = it.field("call_id").or_else(|| it.field("id")).and_then(Value::as_str).map(Into::into);
            b.tool_name = it.field("name").and_then(Value::as_str).map(Into::into).or_else(|| Some(ty.into()));
            // Hosted tool calls (web search, MCP) carry their own results.
            if matches!(ty, "web_search_call" | "file_search_call" | "mcp_call" | "tool_search_call") {
                b.kind = BlockKind::Other;
            }
            m.blocks.push(b);
            m.assistant = assistant_info(None);
        }
        "function_call_output"
        | "custom_tool_call_output"
        | "local_shell_call_output"
        | "computer_call_output"
        | "tool_search_output" => {
            m = message(Role::Tool, MessageKind::ToolResult, p.clone());
            let out = it.field("output").map(flatten_text).unwrap_or_default();
            let mut b = text_block(BlockKind::ToolResult, p.clone(), &out, it);
            b.tool_id = it.field("call_id").and_then(Value::as_str).map(Into::into);
            if ty == "tool_search_output" {
                b.kind = BlockKind::Other;
            }
            m.blocks.push(b);
        }
        "reasoning" => {
            m = message(Role::Assistant, MessageKind::Assistant, p.clone());
            let text = it.field("summary").map(flatten_text).unwrap_or_default();
            m.blocks.push(text_block(BlockKind::Thinking, p.clone(), &text, it));
            m.assistant = assistant_info(None);
        }
        "compaction" | "compaction_summary" => {
            m = message(Role::User, MessageKind::CompactionSummary, p.clone());
            m.blocks.push(text_block(BlockKind::Compaction, p.clone(), s(it, "encrypted_content"), it));
        }
        "item_reference" => {
            // A stored item named by id (`{type: item_reference, id}`): the
            // Vercel AI SDK's OpenAI provider replays its earlier tool calls
            // so when `store` is on. Marked: the request's history is partly
            // held by the provider ([`is_item_reference`]).
            m = message(Role::User, MessageKind::Meta, p.clone());
            let mut b = text_block(BlockKind::Other, p.clone(), "", it);
            b.tool_name = Some(ITEM_REFERENCE.into());
            m.blocks.push(b);
        }
        _ => {
            m = message(Role::User, MessageKind::Meta, p.clone());
            m.blocks.push(text_block(BlockKind::Other, p.clone(), "", it));
        }
    }
    m.json_hash = match (ty, plain_message_text(it)) {
        ("message", Some((role, t))) => plain_message_hash(role, t),
        _ => chash(it),
    };
    m
}

/// Hash of a plain message item (see [`plain_message_text`]).
fn plain_message_hash(role: &str, text: &str) -> u64 {
    chash(&serde_json::json!({"role": role, "content": text}))
}

/// A message item that only says "role said this text", however serialised:
/// `{"role", "content": t}`, with `"type": "message"`, or with content a list
/// of one `input_text` / `output_text` / `text` part holding only `type` and
/// `text`. A string `input` is such a user message; SDKs write the same
/// message in any of these forms from one request to the next (docs/spec.md §1:
/// serialisation-only differences are removed).
fn plain_message_text(it: &Value) -> Option<(&str, &str)> {
    let o = it.as_object()?;
    if o.keys().any(|k| !matches!(k.as_str(), "role" | "content" | "type")) {
        return None;
    }
    if o.field("type").is_some_and(|t| t != "message") {
        return None;
    }
    let role = o.field("role")?.as_str()?;
    let text = match o.field("content")? {
        Value::String(t) => t.as_str(),
        Value::Array(a) => match a.as_slice() {
            [Value::Object(p)]
                if p.keys().all(|k| k == "type" || k == "text")
                    && matches!(
                        p.field("type").and_then(Value::as_str),
                        Some("input_text" | "output_text" | "text")
                    ) =>
            {
                p.field("text")?.as_str()?
            }
            _ => return None,
        },
        _ => return None,
    };
    Some((role, text))
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format::request_body(
    ID,
    5,
    sniff,
    |v| {
        let fits = v.field("input").is_some_and(|i| i.is_array() || i.is_string())
            || v.field("instructions").is_some_and(Value::is_string)
            || v.field("previous_response_id").is_some();
        (!fits).then_some("no `input`, `instructions` or `previous_response_id`")
    },
    parse,
    About {
        what: "OpenAI Responses request body",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
)
.with_elements("input", parse_item);

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn span_attributes_and_an_agents_run_state_are_no_request_body() {
        // A bare map of OpenTelemetry span attributes with an `input` string
        // (an instrumentation's test snapshot).
        let attrs =
            json!({"gen_ai.operation.name": "chat", "input": "{\"messages\": []}", "gen_ai.input.messages": "[]"});
        assert!(!super::sniff(&attrs));
        // An OpenAI Agents SDK RunState (tests/fixtures/run_state/features/*.json).
        let state = json!({"$schemaVersion": "1.0", "original_input": "hi", "generated_items": [], "input": "hi"});
        assert!(!super::sniff(&state));
        assert!(!super::sniff(&json!({"original_input": "hi", "input": "hi"})));
        // A request body.
        assert!(super::sniff(&json!({"model": "gpt-5", "input": "hi", "store": false, "max_output_tokens": 50})));
    }

    #[test]
    fn a_response_object_is_no_request_body() {
        // OpenAI's Response object, as a tracer's test fixture saves it: it echoes `instructions`.
        let response = json!({"id": "resp_1", "object": "response", "instructions": "You are a helpful assistant.",
                              "model": "gpt-4o", "output": [], "status": "completed"});
        assert!(!super::sniff(&response));
        let request = json!({"model": "gpt-4o", "instructions": "You are a helpful assistant.", "input": "hi"});
        assert!(super::sniff(&request));
    }
}
