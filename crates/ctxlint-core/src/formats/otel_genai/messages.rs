//! Attributes to messages: the GenAI semantic conventions
//! (`gen_ai.system_instructions`, `gen_ai.input.messages`,
//! `gen_ai.tool.definitions`), the v1.30 per-message event bodies, and
//! OpenInference's flattened `llm.input_messages.*` / `llm.tools.*`
//! attributes, as a request's system slot, messages and tools.

use super::attrs::{Attr, Enc, Seg, decode, ptr_into};
use crate::formats::body::*;
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Fills a request from the semantic-convention attributes.
pub(super) fn semconv(r: &mut Request, enc: Enc, a: &[Attr<'_>]) {
    for at in a {
        match at.key {
            "gen_ai.system_instructions" => {
                let v = decode(enc, at.raw);
                let mut parts = Vec::new();
                let list: Vec<(Option<usize>, &Value)> = match &v {
                    Value::Array(x) => x.iter().enumerate().map(|(i, p)| (Some(i), p)).collect(),
                    other => vec![(None, other)],
                };
                for (i, p) in list {
                    let path: Vec<Seg> = i.map(Seg::Idx).into_iter().collect();
                    let ptr = ptr_into(enc, at.raw, &at.ptr, &path);
                    let text = match p {
                        Value::String(s) => s.clone(),
                        _ => part_text(p),
                    };
                    parts.push(text_block(BlockKind::Text, ptr, &text, p));
                }
                let ptr = ptr_into(enc, at.raw, &at.ptr, &[]);
                if !parts.is_empty() {
                    r.slots.push(Slot { kind: SlotKind::System, pointer: ptr, parts });
                }
            }
            "gen_ai.input.messages" => {
                if let Value::Array(msgs) = decode(enc, at.raw) {
                    for (i, m) in msgs.iter().enumerate() {
                        if let Some(msg) = message_of(enc, at, m, &[Seg::Idx(i)]) {
                            r.messages.push(Arc::new(msg));
                        }
                    }
                }
            }
            "gen_ai.tool.definitions" => {
                let v = decode(enc, at.raw);
                if !v.is_null() {
                    let ptr = ptr_into(enc, at.raw, &at.ptr, &[]);
                    r.tools = Some((ptr, chash(&v), crate::hash::canonical_string(&v, IGNORED_KEYS)));
                }
            }
            _ => {}
        }
    }
}

/// Whether a call's input messages (read into `r`) hold the result of a
/// tool call that the call's own output (`gen_ai.output.messages`) makes,
/// and not that call. No
/// model is sent the result of a call it has not made yet, so such a span
/// did not record the request that was sent. GitHub Copilot CLI 1.0.12's
/// `chat` spans (`service.name` `github-copilot`, scope `github.copilot`)
/// record what each step added (the new user message, if any) together with
/// the results of that step's own tool calls, and no earlier history: read
/// as requests, every result was an orphan (113 false `orphan-tool-result`
/// errors on a real trace, `MattGertz/OTEL-test` `watson-output/otel-raw.jsonl`).
pub(super) fn answers_own_calls(enc: Enc, a: &[Attr<'_>], r: &Request) -> bool {
    // (Only results whose call the input does not hold: an instrumentation
    // that numbers calls per step may reuse an id the history answered.)
    let ids = |kind: BlockKind| {
        r.messages
            .iter()
            .flat_map(|m| m.blocks.iter())
            .filter(move |b| b.kind == kind)
            .filter_map(|b| b.tool_id.as_deref())
    };
    let calls: Vec<&str> = ids(BlockKind::ToolCall).collect();
    let results: Vec<&str> = ids(BlockKind::ToolResult).filter(|id| !calls.contains(id)).collect();
    if results.is_empty() {
        return false;
    }
    let Some(at) = a.iter().find(|x| x.key == "gen_ai.output.messages") else { return false };
    let Value::Array(msgs) = decode(enc, at.raw) else { return false };
    msgs.iter()
        .filter_map(|m| m.get("parts").and_then(Value::as_array))
        .flatten()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool_call"))
        .filter_map(|p| p.get("id").and_then(Value::as_str))
        .any(|id| results.contains(&id))
}

/// The text of a part: `content` (text, reasoning), else the part serialised.
fn part_text(p: &Value) -> String {
    match p.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => p.to_string(),
    }
}

fn role_of(role: &str) -> Option<(Role, MessageKind)> {
    Some(match role {
        "system" => (Role::System, MessageKind::SystemPrompt),
        "developer" => (Role::Developer, MessageKind::SystemPrompt),
        "user" | "human" => (Role::User, MessageKind::UserTurn),
        "assistant" | "model" | "ai" => (Role::Assistant, MessageKind::Assistant),
        "tool" | "function" => (Role::Tool, MessageKind::ToolResult),
        _ => return None,
    })
}

/// One `{role, parts}` message (at logical `path` in attribute `at`).
fn message_of(enc: Enc, at: &Attr<'_>, m: &Value, path: &[Seg<'_>]) -> Option<Message> {
    let (role, kind) = role_of(m.get("role")?.as_str()?)?;
    let mp = ptr_into(enc, at.raw, &at.ptr, path);
    let mut msg = message(role, kind, mp);
    let parts = m.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for (j, p) in parts.iter().enumerate() {
        let mut pp: Vec<Seg> = path.to_vec();
        pp.push(Seg::Key("parts"));
        pp.push(Seg::Idx(j));
        let ptr = ptr_into(enc, at.raw, &at.ptr, &pp);
        msg.blocks.push(part_block(p, ptr));
    }
    finish_message(&mut msg);
    Some(msg)
}

/// One message part as a block.
fn part_block(p: &Value, ptr: String) -> Block {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let (kind, text) = match ty {
        "text" => (BlockKind::Text, part_text(p)),
        "reasoning" | "thinking" => (BlockKind::Thinking, part_text(p)),
        "tool_call" => (BlockKind::ToolCall, p.get("arguments").map(Value::to_string).unwrap_or_default()),
        "tool_call_response" => (
            BlockKind::ToolResult,
            match p.get("response").or_else(|| p.get("result")) {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            },
        ),
        "blob" | "file" | "uri" | "image" => (BlockKind::Media, String::new()),
        _ => (BlockKind::Other, part_text(p)),
    };
    let mut b = text_block(kind, ptr, &text, p);
    if matches!(kind, BlockKind::ToolCall | BlockKind::ToolResult) {
        b.tool_id = p.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()).map(Into::into);
        b.tool_name = p.get("name").and_then(Value::as_str).map(Into::into);
    }
    b
}

/// Sets what a message's blocks make it: a user message of tool results
/// only is no user turn; a tool message gets its result facts.
fn finish_message(msg: &mut Message) {
    if msg.role == Role::User {
        classify_user(msg);
    }
    if msg.role == Role::Assistant {
        msg.assistant = assistant_info(None);
    }
    if msg.kind == MessageKind::ToolResult || msg.kind == MessageKind::ToolResults {
        msg.result = Some(Box::default());
    }
}

/// One v1.30 per-message event body: `{content}` (string or parts),
/// assistant `{content?, tool_calls:[{id, type, function:{name, arguments}}]}`,
/// tool `{content, id}`.
pub(super) fn legacy_message(enc: Enc, at: &Attr<'_>, role: &str, body: &Value) -> Option<Message> {
    let (r, kind) = role_of(body.get("role").and_then(Value::as_str).unwrap_or(role))?;
    let mut msg = message(r, kind, ptr_into(enc, at.raw, &at.ptr, &[]));
    match body.get("content") {
        Some(Value::String(s)) => {
            let ptr = ptr_into(enc, at.raw, &at.ptr, &[Seg::Key("content")]);
            let bk = if r == Role::Tool { BlockKind::ToolResult } else { BlockKind::Text };
            let mut b = text_block(bk, ptr, s, &serde_json::json!({"type": "text", "text": s}));
            if bk == BlockKind::ToolResult {
                b.tool_id = body.get("id").and_then(Value::as_str).map(Into::into);
                b.json_hash = chash(&serde_json::json!({"id": body.get("id"), "content": s}));
            }
            msg.blocks.push(b);
        }
        Some(Value::Array(parts)) => {
            for (j, p) in parts.iter().enumerate() {
                let ptr = ptr_into(enc, at.raw, &at.ptr, &[Seg::Key("content"), Seg::Idx(j)]);
                let text = p.get("text").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| part_text(p));
                msg.blocks.push(text_block(BlockKind::Text, ptr, &text, p));
            }
        }
        _ => {}
    }
    if let Some(calls) = body.get("tool_calls").and_then(Value::as_array) {
        for (j, c) in calls.iter().enumerate() {
            let ptr = ptr_into(enc, at.raw, &at.ptr, &[Seg::Key("tool_calls"), Seg::Idx(j)]);
            let f = c.get("function");
            let args = f.and_then(|f| f.get("arguments")).map(|a| match a {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            let mut b = text_block(BlockKind::ToolCall, ptr, &args.unwrap_or_default(), c);
            b.tool_id = c.get("id").and_then(Value::as_str).map(Into::into);
            b.tool_name = f.and_then(|f| f.get("name")).and_then(Value::as_str).map(Into::into);
            msg.blocks.push(b);
        }
    }
    finish_message(&mut msg);
    Some(msg)
}

/// Fills a request from OpenInference's flattened `llm.input_messages.*`
/// and `llm.tools.*` attributes; says whether any message was found.
pub(super) fn openinference(r: &mut Request, enc: Enc, a: &[Attr<'_>]) -> bool {
    // Message index → (attribute index per field).
    let mut msgs: std::collections::BTreeMap<usize, Vec<(&str, &Attr<'_>)>> = Default::default();
    let mut tools: Vec<(usize, Value)> = Vec::new();
    let mut tools_ptr = None;
    for at in a {
        if let Some(rest) = at.key.strip_prefix("llm.input_messages.") {
            let Some((i, field)) = rest.split_once('.') else { continue };
            let Ok(i) = i.parse::<usize>() else { continue };
            msgs.entry(i).or_default().push((field, at));
        } else if let Some(rest) = at.key.strip_prefix("llm.tools.") {
            let Some((i, _)) = rest.split_once('.') else { continue };
            if let Ok(i) = i.parse::<usize>() {
                tools_ptr.get_or_insert_with(|| at.ptr.clone());
                tools.push((i, decode(enc, at.raw)));
            }
        }
    }
    if !tools.is_empty() {
        tools.sort_by_key(|t| t.0);
        let v = Value::Array(tools.into_iter().map(|t| t.1).collect());
        r.tools = Some((tools_ptr.unwrap_or_default(), chash(&v), crate::hash::canonical_string(&v, IGNORED_KEYS)));
    }
    let any = !msgs.is_empty();
    for fields in msgs.into_values() {
        let get = |f: &str| fields.iter().find(|(k, _)| *k == f).map(|(_, at)| *at);
        let text_of = |at: &Attr<'_>| match decode(enc, at.raw) {
            Value::String(s) => s,
            other => other.to_string(),
        };
        let Some(role_at) = get("message.role") else { continue };
        let Some((role, kind)) = role_of(&text_of(role_at)) else { continue };
        let mut msg = message(role, kind, ptr_into(enc, role_at.raw, &role_at.ptr, &[]));
        let call_id = get("message.tool_call_id").map(text_of);
        let mut push_text = |at: &Attr<'_>, t: String| {
            let ptr = ptr_into(enc, at.raw, &at.ptr, &[]);
            let (bk, v) = if role == Role::Tool {
                (BlockKind::ToolResult, serde_json::json!({"id": call_id, "content": t}))
            } else {
                (BlockKind::Text, serde_json::json!({"type": "text", "text": t}))
            };
            let mut b = text_block(bk, ptr, &t, &v);
            if bk == BlockKind::ToolResult {
                b.tool_id = call_id.as_deref().map(Into::into);
            }
            msg.blocks.push(b);
        };
        if let Some(at) = get("message.content") {
            push_text(at, text_of(at));
        }
        let mut contents: Vec<(usize, &Attr<'_>)> = fields
            .iter()
            .filter_map(|(k, at)| {
                let rest = k.strip_prefix("message.contents.")?;
                let (j, f) = rest.split_once('.')?;
                (f == "message_content.text").then_some((j.parse().ok()?, *at))
            })
            .collect();
        contents.sort_by_key(|c| c.0);
        for (_, at) in contents {
            push_text(at, text_of(at));
        }
        // Tool calls: `message.tool_calls.{j}.tool_call.{id,function.name,function.arguments}`.
        let mut calls: std::collections::BTreeMap<usize, [Option<&Attr<'_>>; 3]> = Default::default();
        for (k, at) in &fields {
            let Some(rest) = k.strip_prefix("message.tool_calls.") else { continue };
            let Some((j, f)) = rest.split_once('.') else { continue };
            let Ok(j) = j.parse::<usize>() else { continue };
            let slot = match f {
                "tool_call.id" => 0,
                "tool_call.function.name" => 1,
                "tool_call.function.arguments" => 2,
                _ => continue,
            };
            calls.entry(j).or_default()[slot] = Some(*at);
        }
        for [id, name, args] in calls.into_values() {
            let Some(anchor) = id.or(name).or(args) else { continue };
            let (id, name, args) = (id.map(text_of), name.map(text_of), args.map(text_of));
            let v = serde_json::json!({"id": id, "name": name, "arguments": args});
            let mut b = text_block(
                BlockKind::ToolCall,
                ptr_into(enc, anchor.raw, &anchor.ptr, &[]),
                args.as_deref().unwrap_or(""),
                &v,
            );
            b.tool_id = id.filter(|s| !s.is_empty()).map(Into::into);
            b.tool_name = name.map(Into::into);
            msg.blocks.push(b);
        }
        finish_message(&mut msg);
        r.messages.push(Arc::new(msg));
    }
    any
}
