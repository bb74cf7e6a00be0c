//! `bedrock-converse`: Amazon Bedrock Converse request bodies. Facts from the
//! Bedrock Converse API reference: `system[]` of `{text}` (or `{cachePoint}`);
//! `messages[]` of `{role, content[]}` whose entries are `{text}`, `{image}`,
//! `{document}`, `{toolUse{toolUseId,name,input}}`,
//! `{toolResult{toolUseId,content,status}}`, `{reasoningContent}`,
//! `{cachePoint}` (a cache marker, ignored when comparing);
//! `toolConfig.tools[]`.

use super::body::*;
use super::format::{About, Format};
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("bedrock-converse");

/// Whether a body looks like a Converse request: `content` entries are
/// untyped objects keyed by `text` / `toolUse` / `toolResult`.
pub fn sniff(v: &Value) -> bool {
    let Some(msgs) = v.field("messages").and_then(Value::as_array) else { return false };
    let mut any = false;
    for m in msgs {
        if let Some(a) = m.field("content").and_then(Value::as_array) {
            for b in a {
                if b.field("type").is_some() {
                    return false;
                }
                if b.field("text").is_some()
                    || b.field("toolUse").is_some()
                    || b.field("toolResult").is_some()
                    || b.field("image").is_some()
                    || b.field("reasoningContent").is_some()
                {
                    any = true;
                }
            }
        } else if m.field("content").is_some() {
            return false;
        }
    }
    any || v.field("toolConfig").is_some() || v.field("inferenceConfig").is_some()
}

/// Parses a body at `base` into a request.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    if let Some(sys) = v.field("system").and_then(Value::as_array) {
        let ptr = ptr_join(base, "system");
        let mut slot = Slot { kind: SlotKind::System, pointer: ptr.clone(), parts: Vec::new() };
        for (i, b) in sys.iter().enumerate() {
            if let Some(t) = b.field("text").and_then(Value::as_str) {
                slot.parts.push(text_block(BlockKind::Text, ptr_idx(&ptr, i), t, b));
            }
        }
        r.slots.push(slot);
    }
    // The tool definitions (`toolChoice` is not part of the cached prefix).
    if let Some(tc) = v.field("toolConfig") {
        match tc.field("tools") {
            Some(t) => set_tools(&mut r, &ptr_join(base, "toolConfig"), "tools", Some(t)),
            None => set_tools(&mut r, base, "toolConfig", Some(tc)),
        }
    }
    let Some(msgs) = v.field("messages").and_then(Value::as_array) else { return r };
    for (i, m) in msgs.iter().enumerate() {
        let mp = ptr_idx(&ptr_join(base, "messages"), i);
        let assistant = s(m, "role") == "assistant";
        let mut msg = message(
            if assistant { Role::Assistant } else { Role::User },
            if assistant { MessageKind::Assistant } else { MessageKind::UserTurn },
            mp.clone(),
        );
        let cp = ptr_join(&mp, "content");
        for (j, b) in m.field("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]).iter().enumerate()
        {
            if b.field("cachePoint").is_some() {
                continue;
            }
            let p = ptr_idx(&cp, j);
            let bl = if let Some(tu) = b.field("toolUse") {
                let mut bl =
                    text_block(BlockKind::ToolCall, p, &tu.field("input").map(Value::to_string).unwrap_or_default(), b);
                bl.tool_id = tu.field("toolUseId").and_then(Value::as_str).map(Into::into);
                bl.tool_name = tu.field("name").and_then(Value::as_str).map(Into::into);
                bl
            } else if let Some(tr) = b.field("toolResult") {
                let mut bl =
                    text_block(BlockKind::ToolResult, p, &flatten_text(tr.field("content").unwrap_or(&Value::Null)), b);
                bl.tool_id = tr.field("toolUseId").and_then(Value::as_str).map(Into::into);
                bl
            } else if let Some(t) = b.field("text").and_then(Value::as_str) {
                text_block(BlockKind::Text, p, t, b)
            } else if b.field("reasoningContent").is_some() {
                text_block(BlockKind::Thinking, p, "", b)
            } else {
                text_block(BlockKind::Media, p, "", b)
            };
            msg.blocks.push(bl);
        }
        if assistant {
            msg.assistant = assistant_info(None);
        } else {
            classify_user(&mut msg);
        }
        r.messages.push(Arc::new(msg));
    }
    r
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format::request_body(
    ID,
    6,
    sniff,
    super::body::missing_messages,
    parse,
    About {
        what: "Bedrock Converse request body",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
);
