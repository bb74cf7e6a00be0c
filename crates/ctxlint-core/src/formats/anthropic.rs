//! `anthropic-messages`: Anthropic Messages API request bodies (also Bedrock
//! `invoke` bodies). Facts from Anthropic's Messages API reference: top-level
//! `system` is a string or an array of `{type:"text", text}` blocks;
//! `messages[]` have `role` `user`/`assistant` and `content` as a string or an
//! array of blocks (`text`, `image`, `document`, `tool_use{id,name,input}`,
//! `tool_result{tool_use_id,content}`, `thinking`, `redacted_thinking`,
//! `compaction`, server tool blocks). `cache_control` may sit on any block.
//! A string `content` (or `system`) is hashed as its one-text-block form, so
//! that the two serialisations compare equal (docs/spec.md §1).
//!
//! `metadata.user_id` carries Claude Code's session id (read into
//! [`Request::session_id`], see [`claude_code_session_id`]).

use super::body::*;
use super::format::{About, Format};
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("anthropic-messages");

/// Whether a body looks like an Anthropic Messages request.
pub fn sniff(v: &Value) -> bool {
    let Some(msgs) = v.field("messages").and_then(Value::as_array) else { return false };
    if v.field("contents").is_some() {
        return false;
    }
    if v.field("system")
        .is_some_and(|s| s.is_string() || s.as_array().is_some_and(|a| a.iter().all(|b| b.field("type").is_some())))
    {
        return true;
    }
    // Block content with typed blocks and no OpenAI-only fields: Chat
    // Completions' own body fields, tools in its shape (`{type: "function",
    // function}`: Cohere v2 and Mistral take them too; Anthropic's are
    // `{name, input_schema}`), or a Mistral `thinking` part (a list of text
    // chunks; Anthropic's `thinking` is a string with a `signature`).
    const CHAT_ONLY: &[&str] = &["reasoning_effort", "response_format", "max_completion_tokens", "frequency_penalty"];
    if CHAT_ONLY.iter().any(|k| v.field(k).is_some())
        || v.field("tools").and_then(Value::as_array).is_some_and(|a| a.iter().any(|t| t.field("function").is_some()))
    {
        return false;
    }
    let (mut typed_blocks, mut own_blocks) = (false, false);
    for m in msgs {
        if m.field("tool_calls").is_some() || matches!(s(m, "role"), "system" | "developer" | "tool" | "function") {
            return false;
        }
        if let Some(a) = m.field("content").and_then(Value::as_array) {
            for b in a {
                match b.field("type").and_then(Value::as_str) {
                    Some("image_url" | "input_text" | "output_text" | "input_image") => return false,
                    Some("thinking") if b.field("thinking").is_some_and(Value::is_array) => return false,
                    Some(t) => {
                        typed_blocks = true;
                        own_blocks |= ANTHROPIC_BLOCKS.contains(&t)
                            || b.field("cache_control").is_some()
                            || (t == "thinking" && b.field("thinking").is_some_and(Value::is_string));
                    }
                    None => return false,
                }
            }
        }
    }
    // Blocks only Anthropic's API takes decide; plain typed text blocks need
    // the `max_tokens` the Messages API requires (without it they are another
    // provider's: a Mistral or Cohere body of user messages).
    own_blocks
        || v.field("max_tokens").is_some()
            && (typed_blocks || v.field("model").is_some_and(|m| m.as_str().is_some_and(|s| s.contains("claude"))))
}

/// Content block types only the Anthropic Messages API takes (its
/// `ContentBlockParam` union, anthropic-sdk-python `types/`; a `thinking`
/// block with a string `thinking` and a block with `cache_control` too).
const ANTHROPIC_BLOCKS: &[&str] = &[
    "tool_use",
    "tool_result",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "search_result",
];

/// Whether a system block is Claude Code's billing attribution line and
/// nothing else: `x-anthropic-billing-header: cc_version=2.1.141.535;
/// cc_entrypoint=sdk-ts; cch=11a93;`, which Claude Code 2.1 sends as
/// `system[0]` of every request with a `cch` that changes from request to
/// request (anthropics/claude-code#68900). Anthropic's API reads it as a
/// header, not as prompt: a recorded Claude Agent SDK session read its whole
/// previous prefix from the prompt cache though the block had changed
/// (braintrustdata/braintrust-sdk-javascript, `claude-agent-sdk` cassette).
/// It is not read as a part of the system prompt (a changed `cch` was
/// reported as a history rewrite).
fn is_billing_header(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("x-anthropic-billing-header:") && !t.contains('\n')
}

/// Parses a body at `base` into a request.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    if let Some(sys) = v.field("system") {
        let ptr = ptr_join(base, "system");
        let mut slot = Slot { kind: SlotKind::System, pointer: ptr.clone(), parts: Vec::new() };
        match sys {
            Value::String(t) => {
                let mut b = text_block(BlockKind::Text, ptr, t, sys);
                b.json_hash = text_block_hash(t);
                slot.parts.push(b);
            }
            Value::Array(a) => {
                for (i, b) in a.iter().enumerate() {
                    if is_billing_header(s(b, "text")) {
                        continue;
                    }
                    slot.parts.push(text_block(BlockKind::Text, ptr_idx(&ptr, i), s(b, "text"), b));
                }
            }
            _ => {}
        }
        r.slots.push(slot);
    }
    set_tools(&mut r, base, "tools", v.field("tools"));
    r.session_id = v
        .field("metadata")
        .and_then(|m| m.field("user_id"))
        .and_then(Value::as_str)
        .and_then(claude_code_session_id)
        .map(Into::into);
    if let Some(msgs) = v.field("messages").and_then(Value::as_array) {
        for (i, m) in msgs.iter().enumerate() {
            let mp = ptr_idx(&ptr_join(base, "messages"), i);
            r.messages.push(Arc::new(parse_message(m, mp)));
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
    let content = m.field("content").unwrap_or(&Value::Null);
    match content {
        Value::String(t) => {
            // Hashed as `[{"type":"text","text":t}]` would hash its block:
            // the same element whichever way it is serialised.
            let mut b = text_block(BlockKind::Text, mp.clone(), t, m);
            b.json_hash = text_block_hash(t);
            msg.blocks.push(b);
            msg.json_hash = b_hash(&msg);
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

fn b_hash(m: &Message) -> u64 {
    m.blocks.first().map_or(0, |b| b.json_hash)
}

/// The session id in a Claude Code `metadata.user_id`, in either shape
/// Claude Code sends:
/// - newer builds: a JSON string `{"device_id":…,"account_uuid":…,"session_id":"<uuid>"}`;
/// - older builds: `user_<64 hex>_account_<uuid>_session_<uuid>` (`_account__session_`
///   when no account is logged in).
///
/// Both shapes as parsed by LuthienResearch/luthien-proxy
/// `src/luthien_proxy/pipeline/session.py` (`extract_session_id_from_anthropic_body`:
/// the pattern `_session_([a-f0-9-]+)$`, then the JSON form's `session_id`). Any
/// other `user_id` (an application's own user name) is no session id.
pub fn claude_code_session_id(user_id: &str) -> Option<String> {
    let u = user_id.trim();
    if u.starts_with('{') {
        let v: Value = serde_json::from_str(u).ok()?;
        let id = v.field("session_id")?.as_str()?;
        return (!id.is_empty()).then(|| id.to_string());
    }
    let rest = u.strip_prefix("user_")?;
    let i = rest.rfind("_session_")?;
    if !rest[..i].contains("_account_") {
        return None;
    }
    let id = &rest[i + "_session_".len()..];
    (!id.is_empty() && id.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-')).then(|| id.to_string())
}

/// Parses one Anthropic content block.
pub fn parse_block(b: &Value, p: String) -> Block {
    let ty = s(b, "type");
    let (kind, text) = match ty {
        "text" => (BlockKind::Text, s(b, "text").to_string()),
        "thinking" => (BlockKind::Thinking, s(b, "thinking").to_string()),
        "redacted_thinking" => (BlockKind::Thinking, s(b, "data").to_string()),
        "tool_use" => (BlockKind::ToolCall, b.field("input").map(Value::to_string).unwrap_or_default()),
        // Server-side calls run by the provider (web search, code execution, MCP
        // connector): they carry their own `*_tool_result` blocks, may be in
        // flight when a turn pauses (`stop_reason: "pause_turn"`), and are never
        // the client's to answer (Anthropic docs: server tools, MCP connector).
        "server_tool_use" | "mcp_tool_use" => {
            (BlockKind::Other, b.field("input").map(Value::to_string).unwrap_or_default())
        }
        // Server tool results (`web_search_tool_result`, `tool_search_tool_result`, …)
        // answer the `server_tool_use` block of the same id, inline.
        t if t == "tool_result" || t.ends_with("_tool_result") => {
            (BlockKind::ToolResult, flatten_text(b.field("content").unwrap_or(&Value::Null)))
        }
        "image" | "document" | "file" => (BlockKind::Media, String::new()),
        "compaction" => (BlockKind::Compaction, s(b, "content").to_string()),
        _ => (BlockKind::Other, s(b, "text").to_string()),
    };
    let mut bl = text_block(kind, p, &text, b);
    match kind {
        BlockKind::ToolCall => {
            bl.tool_id = b.field("id").and_then(Value::as_str).map(Into::into);
            bl.tool_name = b.field("name").and_then(Value::as_str).map(Into::into);
        }
        BlockKind::Other if matches!(ty, "server_tool_use" | "mcp_tool_use") => {
            bl.tool_id = b.field("id").and_then(Value::as_str).map(Into::into);
            bl.tool_name = b.field("name").and_then(Value::as_str).map(Into::into);
        }
        BlockKind::ToolResult => {
            bl.tool_id = b.field("tool_use_id").and_then(Value::as_str).map(Into::into);
        }
        _ => {}
    }
    bl
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format::request_body(
    ID,
    7,
    sniff,
    super::body::missing_messages,
    parse,
    About {
        what: "Anthropic Messages request body (also Bedrock invoke)",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
)
.with_elements("messages", parse_message);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_billing_header_block_is_no_part_of_the_system_prompt() {
        let path: Arc<str> = "b.json".into();
        let v = json!({"system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.141.535; cc_entrypoint=sdk-ts; cch=11a93;"},
            {"type": "text", "text": "You are Claude Code."},
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.87.1a2;\nAnd the prompt on the next line."}],
            "messages": [{"role": "user", "content": "hi"}]});
        let r = parse(&v, &path, 0, "");
        let parts: Vec<&str> = r.slots[0].parts.iter().map(|b| &*b.pointer).collect();
        // (A block that holds more than the header line is prompt.)
        assert_eq!(parts, ["/system/1", "/system/2"]);
    }

    #[test]
    fn session_id_from_both_claude_code_user_id_shapes() {
        let json_form =
            r#"{"device_id":"3f4a1b7c","account_uuid":"","session_id":"2c4e1cf0-7a67-4d2e-9a4b-1d16d3f44752"}"#;
        assert_eq!(claude_code_session_id(json_form).as_deref(), Some("2c4e1cf0-7a67-4d2e-9a4b-1d16d3f44752"));
        let legacy = "user_8b7e2c1d4f6a9b3c0d1e2f3456789abcdeffedcba9876543210fedcba1234567_account__session_7d0e2f61-4b5c-4a9d-8f11-2c3d4e5f6a7b";
        assert_eq!(claude_code_session_id(legacy).as_deref(), Some("7d0e2f61-4b5c-4a9d-8f11-2c3d4e5f6a7b"));
        let logged_in = "user_abc_account_11111111-2222-3333-4444-555555555555_session_0a1b-2c3d";
        assert_eq!(claude_code_session_id(logged_in).as_deref(), Some("0a1b-2c3d"));
        for other in ["alice", "user_abc_session_0a1b", "{\"device_id\":\"d\"}", "{\"session_id\":\"\"}", "{broken", ""]
        {
            assert_eq!(claude_code_session_id(other), None, "{other}");
        }
    }

    #[test]
    fn string_content_hashes_as_its_one_text_block() {
        let p = |v: Value| parse(&v, &Arc::from("r.json"), 0, "");
        let a = p(json!({"system":"S","messages":[{"role":"user","content":"hi"}],"metadata":{"user_id":"alice"}}));
        let b = p(json!({"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],
            "messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}));
        assert_eq!(a.messages[0].json_hash, b.messages[0].blocks[0].json_hash);
        assert_eq!(a.slots[0].parts[0].json_hash, b.slots[0].parts[0].json_hash);
        assert_eq!(a.session_id, None);
        let c = p(json!({"messages":[{"role":"user","content":[{"type":"text","text":"hi","citations":[]}]}]}));
        assert_ne!(a.messages[0].json_hash, c.messages[0].blocks[0].json_hash);
    }
}
