//! `anthropic-messages`: Anthropic Messages API request bodies (also Bedrock
//! `invoke` bodies). Facts from Anthropic's Messages API reference: top-level
//! `system` is a string or an array of `{type:"text", text}` blocks;
//! `messages[]` have `role` `user`/`assistant` and `content` as a string or an
//! array of blocks (`text`, `image`, `document`, `tool_use{id,name,input}`,
//! `tool_result{tool_use_id,content}`, `thinking`, `redacted_thinking`,
//! `compaction`, server tool blocks). `cache_control` may sit on any block.

use super::body::*;
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = "anthropic-messages";

/// Whether a body looks like an Anthropic Messages request.
pub fn sniff(v: &Value) -> bool {
    let Some(msgs) = v.get("messages").and_then(Value::as_array) else { return false };
    if v.get("contents").is_some() {
        return false;
    }
    if v.get("system")
        .is_some_and(|s| s.is_string() || s.as_array().is_some_and(|a| a.iter().all(|b| b.get("type").is_some())))
    {
        return true;
    }
    // Block content with typed blocks and no OpenAI-only fields.
    let mut typed_blocks = false;
    for m in msgs {
        if m.get("tool_calls").is_some() || matches!(s(m, "role"), "system" | "developer" | "tool" | "function") {
            return false;
        }
        if let Some(a) = m.get("content").and_then(Value::as_array) {
            for b in a {
                match b.get("type").and_then(Value::as_str) {
                    Some("image_url" | "input_text" | "output_text" | "input_image") => return false,
                    Some(_) => typed_blocks = true,
                    None => return false,
                }
            }
        }
    }
    typed_blocks
        || v.get("max_tokens").is_some()
            && v.get("model").is_some_and(|m| m.as_str().is_some_and(|s| s.contains("claude")))
}

/// Parses a body at `base` into a request.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    if let Some(sys) = v.get("system") {
        let ptr = ptr_join(base, "system");
        let mut slot = Slot { kind: SlotKind::System, pointer: ptr.clone(), parts: Vec::new() };
        match sys {
            Value::String(t) => slot.parts.push(text_block(BlockKind::Text, ptr, t, sys)),
            Value::Array(a) => {
                for (i, b) in a.iter().enumerate() {
                    slot.parts.push(text_block(BlockKind::Text, ptr_idx(&ptr, i), s(b, "text"), b));
                }
            }
            _ => {}
        }
        r.slots.push(slot);
    }
    set_tools(&mut r, base, "tools", v.get("tools"));
    if let Some(msgs) = v.get("messages").and_then(Value::as_array) {
        for (i, m) in msgs.iter().enumerate() {
            let mp = ptr_idx(&ptr_join(base, "messages"), i);
            r.messages.push(parse_message(m, mp));
        }
    }
    r
}

/// Parses one message with Anthropic-shaped content (also used for mixed
/// shapes inside OpenAI Chat bodies).
pub fn parse_message(m: &Value, mp: String) -> Message {
    let role = match s(m, "role") {
        "assistant" => Role::Assistant,
        "system" => Role::System,
        _ => Role::User,
    };
    let kind = match role {
        Role::Assistant => MessageKind::Assistant,
        Role::System => MessageKind::SystemPrompt,
        _ => MessageKind::UserTurn,
    };
    let mut msg = message(role, kind, mp.clone());
    let content = m.get("content").unwrap_or(&Value::Null);
    match content {
        Value::String(t) => {
            let mut b = text_block(BlockKind::Text, mp.clone(), t, m);
            b.json_hash = chash(content);
            msg.blocks.push(b);
            msg.json_hash = chash(content);
        }
        Value::Array(a) => {
            let cp = ptr_join(&mp, "content");
            for (j, b) in a.iter().enumerate() {
                msg.blocks.push(parse_block(b, ptr_idx(&cp, j)));
            }
        }
        _ => {}
    }
    if role == Role::User {
        classify_user(&mut msg);
    }
    if role == Role::Assistant {
        msg.assistant = assistant_info(None);
    }
    msg
}

/// Parses one Anthropic content block.
pub fn parse_block(b: &Value, p: String) -> Block {
    let ty = s(b, "type");
    let (kind, text) = match ty {
        "text" => (BlockKind::Text, s(b, "text").to_string()),
        "thinking" => (BlockKind::Thinking, s(b, "thinking").to_string()),
        "redacted_thinking" => (BlockKind::Thinking, s(b, "data").to_string()),
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            (BlockKind::ToolCall, b.get("input").map(Value::to_string).unwrap_or_default())
        }
        // Server tool results (`web_search_tool_result`, `tool_search_tool_result`, …)
        // answer the `server_tool_use` block of the same id, inline.
        t if t == "tool_result" || t.ends_with("_tool_result") => {
            (BlockKind::ToolResult, flatten_text(b.get("content").unwrap_or(&Value::Null)))
        }
        "image" | "document" | "file" => (BlockKind::Media, String::new()),
        "compaction" => (BlockKind::Compaction, s(b, "content").to_string()),
        _ => (BlockKind::Other, s(b, "text").to_string()),
    };
    let mut bl = text_block(kind, p, &text, b);
    match kind {
        BlockKind::ToolCall => {
            bl.tool_id = b.get("id").and_then(Value::as_str).map(Into::into);
            bl.tool_name = b.get("name").and_then(Value::as_str).map(Into::into);
        }
        BlockKind::ToolResult => {
            bl.tool_id = b.get("tool_use_id").and_then(Value::as_str).map(Into::into);
        }
        _ => {}
    }
    bl
}
