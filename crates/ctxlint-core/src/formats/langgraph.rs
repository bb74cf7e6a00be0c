//! `langgraph-state`: a LangGraph thread's state or checkpoint as JSON — the
//! LangGraph API's `GET /threads/{thread_id}/state` (and each element of
//! `/threads/{thread_id}/history`), or an application's dump of
//! `graph.get_state(config)`: `{values: {messages: [...]}, next, tasks,
//! metadata, checkpoint, …}`.
//!
//! Format facts from langchain-ai/langchain `libs/core/langchain_core/messages`
//! (`BaseMessage.model_dump()`: `{type, content, id, name, additional_kwargs,
//! response_metadata, …}`; `AIMessage.tool_calls` `[{name, args, id,
//! type: "tool_call"}]`, `invalid_tool_calls`; `ToolMessage.tool_call_id`,
//! `status`) and langgraph `prebuilt/chat_agent_executor.py` (the state's
//! `messages` are sent as the next model call's history, after the system
//! prompt the graph adds), checked against state and history JSON a real
//! `langgraph dev` server returned (langgraph 1.2.24, langgraph-api 0.16.7).
//! Messages of `messages_to_dict` (`{type, data: {...}}`) are read too, and
//! messages serialised as constructors (`{lc: 1, type: "constructor", id:
//! [..., "HumanMessage"], kwargs: {...}}`, `langchain_core/load/serializable.py`).
//!
//! One file is one history snapshot (docs/spec.md §1): message `i` is at
//! `/values/messages/i`, content blocks at `…/content/j`, tool calls at
//! `…/tool_calls/k`. `type` `human` is a user turn, `ai` the model, `tool` a
//! tool result, `system` a system prompt. A trailing AI message whose calls
//! have no results yet is pending (the graph stopped before its `tools` node:
//! `next: ["tools"]`, an interrupt for human review), not unanswered.

use super::body::*;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Shape, Sniffer};
use crate::model::*;
use serde_json::{Value, json};
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("langgraph-state");

/// LangChain message `type`s.
const TYPES: &[&str] = &["human", "ai", "tool", "system", "function", "chat", "remove"];

fn messages(v: &Value) -> Option<&Vec<Value>> {
    v.get("values")?.get("messages")?.as_array()
}

/// The message `type` of a message in LangChain's serialised form
/// (`dumpd`/`Serializable.to_json()`: `{"lc": 1, "type": "constructor", "id":
/// ["langchain_core", "messages", "HumanMessage"], "kwargs": {…}}`, as a
/// checkpointer's JSON serde writes messages), from its class name
/// (`AIMessageChunk` too); `None` for anything else.
fn constructor_type(m: &Value) -> Option<&'static str> {
    if m.get("lc").is_none() || s(m, "type") != "constructor" || !m.get("kwargs").is_some_and(Value::is_object) {
        return None;
    }
    let class = m.get("id")?.as_array()?.last()?.as_str()?;
    let class = class.strip_suffix("Chunk").unwrap_or(class);
    Some(match class {
        "HumanMessage" => "human",
        "AIMessage" => "ai",
        "ToolMessage" => "tool",
        "SystemMessage" => "system",
        "FunctionMessage" => "function",
        "ChatMessage" => "chat",
        "RemoveMessage" => "remove",
        _ => return None,
    })
}

/// Whether a document is a thread state or checkpoint: `values.messages` of
/// LangChain messages (each with a known `type`, or serialised as a
/// constructor of a message class).
pub fn sniff(v: &Value) -> bool {
    messages(v).is_some_and(|ms| {
        ms.iter().all(|m| {
            m.get("type").and_then(Value::as_str).is_some_and(|t| TYPES.contains(&t)) || constructor_type(m).is_some()
        })
    })
}

/// Whether a document is a LangGraph thread state (the API's `ThreadState`:
/// `values`, `next`, `checkpoint`, `metadata`, …; langchain-ai/langgraph
/// `libs/sdk-py/langgraph_sdk/schema.py`) whose graph has no `messages`
/// channel: no model context to rebuild (skipped with [`NO_MESSAGES`]).
fn is_state_without_messages(v: &Value) -> bool {
    v.get("values").is_some_and(|x| x.is_object() && x.get("messages").is_none())
        && v.get("next").is_some_and(Value::is_array)
        && (v.get("checkpoint").is_some() || v.get("metadata").is_some())
}

/// Why a LangGraph thread state without a `messages` channel is skipped.
pub const NO_MESSAGES: &str = "a LangGraph thread state whose graph has no `messages` channel (`values` holds other state): no model context to check";

/// Parses a thread state at `base` into one request-like element.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    let Some(ms) = messages(v) else { return r };
    r.conversation_id = v
        .pointer("/metadata/thread_id")
        .or_else(|| v.pointer("/checkpoint/thread_id"))
        .and_then(Value::as_str)
        .map(Into::into);
    let list = ptr_join(&ptr_join(base, "values"), "messages");
    for (i, raw) in ms.iter().enumerate() {
        let mp = ptr_idx(&list, i);
        // `messages_to_dict` wraps the fields in `data`; a serialised
        // constructor in `kwargs`.
        let (m, fp, ty) = match (constructor_type(raw), raw.get("data").filter(|d| d.is_object())) {
            (Some(t), _) => (&raw["kwargs"], ptr_join(&mp, "kwargs"), t),
            (None, Some(d)) => (d, ptr_join(&mp, "data"), s(raw, "type")),
            (None, None) => (raw, mp.clone(), s(raw, "type")),
        };
        let (role, kind, bk) = match ty {
            "human" | "chat" => (Role::User, MessageKind::UserTurn, BlockKind::Text),
            "system" => (Role::System, MessageKind::SystemPrompt, BlockKind::Text),
            "tool" | "function" => (Role::Tool, MessageKind::ToolResult, BlockKind::ToolResult),
            "ai" => (Role::Assistant, MessageKind::Assistant, BlockKind::Text),
            _ => continue,
        };
        let mut msg = message(role, kind, mp.clone());
        let cp = ptr_join(&fp, "content");
        match m.get("content") {
            Some(Value::String(t)) if !t.is_empty() || role != Role::Assistant => {
                msg.blocks.push(text_block(bk, cp.clone(), t, &Value::String(t.clone())));
            }
            Some(Value::Array(blocks)) => {
                for (j, b) in blocks.iter().enumerate() {
                    let (kind, text) = match (b, s(b, "type")) {
                        (Value::String(t), _) => (bk, t.as_str()),
                        (_, "text") => (bk, s(b, "text")),
                        (_, "thinking" | "reasoning") => (BlockKind::Thinking, s(b, "thinking")),
                        (_, "image_url" | "image" | "file") => (BlockKind::Media, ""),
                        (_, "tool_use") => continue, // repeated in `tool_calls`
                        _ => (BlockKind::Other, ""),
                    };
                    msg.blocks.push(text_block(kind, ptr_idx(&cp, j), text, b));
                }
            }
            _ => {}
        }
        if role == Role::Tool {
            let id = m.get("tool_call_id").and_then(Value::as_str);
            for b in &mut msg.blocks {
                b.kind = BlockKind::ToolResult;
                b.tool_id = id.map(Into::into);
                b.tool_name = m.get("name").and_then(Value::as_str).map(Into::into);
            }
            if msg.blocks.is_empty() {
                let mut b = text_block(BlockKind::ToolResult, cp, "", &Value::Null);
                b.tool_id = id.map(Into::into);
                msg.blocks.push(b);
            }
            msg.result = Some(Box::new(ResultInfo { is_error: s(m, "status") == "error", ..Default::default() }));
        }
        if role == Role::Assistant {
            let tp = ptr_join(&fp, "tool_calls");
            for (k, c) in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate() {
                let args = c.get("args").map(Value::to_string).unwrap_or_default();
                let sent = json!({"name": c.get("name"), "args": c.get("args"), "id": c.get("id")});
                let mut b = text_block(BlockKind::ToolCall, ptr_idx(&tp, k), &args, &sent);
                b.tool_id = c.get("id").and_then(Value::as_str).map(Into::into);
                b.tool_name = c.get("name").and_then(Value::as_str).map(Into::into);
                msg.blocks.push(b);
            }
            msg.assistant = assistant_info(m.pointer("/response_metadata/model_name").and_then(Value::as_str));
        }
        // What is sent: type, content, tool calls and call id — not ids,
        // usage or response metadata.
        msg.json_hash = chash(&json!([ty, m.get("content"), m.get("tool_calls"), m.get("tool_call_id")]));
        r.messages.push(Arc::new(msg));
    }
    r
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Snapshot { joins: true },
    encoding: Encoding::Json,
    detect: Detect {
        body: Some(Sniffer { rank: 3, test: sniff }),
        unsupported_document: Some((is_state_without_messages, NO_MESSAGES)),
        ..Detect::NONE
    },
    fit: Fit::Document {
        test: |v| {
            (!sniff(v)).then_some("no `values.messages` list of LangChain messages (`type` human, ai, tool, system)")
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
        what: "LangGraph thread state / checkpoint JSON (values.messages of LangChain messages)",
        kind: "history snapshot",
        location: "the LangGraph API's GET /threads/{id}/state, or the application's dump",
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_messages_calls_and_results() {
        let v = json!({"values": {"messages": [
            {"type": "human", "content": "weather?", "id": "h1"},
            {"type": "ai", "content": "", "id": "a1", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}]},
            {"type": "tool", "content": "sunny", "tool_call_id": "c1", "name": "get_weather", "id": "t1", "status": "success"}
        ]}, "next": [], "metadata": {"thread_id": "th1"}});
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("state.json"), 0, "");
        let ptrs: Vec<&str> = r.messages.iter().flat_map(|m| m.blocks.iter().map(|b| &*b.pointer)).collect();
        assert_eq!(
            ptrs,
            ["/values/messages/0/content", "/values/messages/1/tool_calls/0", "/values/messages/2/content"]
        );
        assert_eq!(r.messages[2].blocks[0].tool_id.as_deref(), Some("c1"));
        assert_eq!(r.conversation_id.as_deref(), Some("th1"));
        assert!(!sniff(&json!({"values": {"messages": [{"role": "user", "content": "x"}]}})));
    }

    #[test]
    fn messages_serialised_as_constructors_are_read_from_their_kwargs() {
        let v = json!({"values": {"messages": [
            {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "SystemMessage"], "kwargs": {"content": "Be brief."}},
            {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"], "kwargs": {"content": "hi"}},
            {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessageChunk"], "kwargs": {"content": "hello"}}
        ]}});
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("state.json"), 0, "");
        let roles: Vec<Role> = r.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::System, Role::User, Role::Assistant]);
        assert_eq!(&*r.messages[1].blocks[0].pointer, "/values/messages/1/kwargs/content");
        // A constructor of another class is no message.
        assert!(!sniff(&json!({"values": {"messages": [
            {"lc": 1, "type": "constructor", "id": ["langchain_core", "documents", "Document"], "kwargs": {}}]}})));
    }
}
