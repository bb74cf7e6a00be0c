//! `pydantic-ai-history`: a pydantic-ai message history serialised with
//! `ModelMessagesTypeAdapter` (pydantic-ai `messages.py`): a JSON array of
//! `ModelRequest` (`kind: "request"`, `parts`, `instructions`, `run_id`,
//! `conversation_id`, `timestamp`) and `ModelResponse` (`kind: "response"`,
//! `parts`, `usage`, `model_name`, `provider_*`, `finish_reason`) objects.
//!
//! Request parts (`part_kind`): `system-prompt` (`content`, `dynamic_ref`),
//! `user-prompt` (`content`: a string or a list of strings and media),
//! `tool-return` (`tool_name`, `content`, `tool_call_id`), `retry-prompt`
//! (`content`, `tool_name`/`tool_call_id` when it answers a call, else it is
//! sent as user text). Response parts: `text`, `thinking`, `tool-call`
//! (`tool_name`, `args` as an object or a JSON string, `tool_call_id`),
//! `builtin-tool-call` / `builtin-tool-return` (hosted tools), `file`.
//!
//! One file is one history snapshot: one request-like element of a stream
//! (docs/spec.md §1). Every part is one element and one [`Message`] (pointer
//! `/i/parts/j`). Parts are compared by what is sent — part kind, content,
//! tool name, arguments, call id — never by timestamps, `run_id`, usage or
//! provider metadata. Standing system prompts are the `system-prompt` parts
//! at the head of the first request; the per-request slot is `instructions`
//! (pydantic-ai's `Model._get_instructions`: the latest request's, or the one
//! before when the latest holds only tool returns / retry prompts).

use super::body::*;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use crate::model::*;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("pydantic-ai-history");

/// Whether a document looks like a serialised pydantic-ai history.
pub fn sniff(v: &Value) -> bool {
    v.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|m| {
                matches!(m.get("kind").and_then(Value::as_str), Some("request" | "response"))
                    && m.get("parts").is_some_and(Value::is_array)
            })
    })
}

/// What is sent of a part: the fields that reach the model.
fn sent_value(p: &Value) -> Value {
    let mut o = Map::new();
    for k in ["part_kind", "content", "tool_name", "tool_call_id", "args", "transcript"] {
        let Some(x) = p.get(k).filter(|x| !x.is_null()) else { continue };
        let x = if k == "args" {
            // `args` is an object or the same object as a JSON string.
            match x {
                Value::String(s) => {
                    serde_json::from_str::<Value>(s).ok().filter(Value::is_object).unwrap_or_else(|| x.clone())
                }
                _ => x.clone(),
            }
        } else {
            x.clone()
        };
        o.insert(k.to_string(), x);
    }
    Value::Object(o)
}

fn content_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"),
        Some(other) => other.to_string(),
    }
}

fn stop_of(finish: Option<&str>) -> Stop {
    match finish {
        Some("stop" | "length" | "content_filter") => Stop::Normal,
        Some("tool_call") => Stop::ToolUse,
        Some("error") => Stop::Error,
        _ => Stop::Unknown,
    }
}

/// Parses a history document at `base` into one request-like element.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    let Some(msgs) = v.as_array() else { return r };
    for (i, m) in msgs.iter().enumerate() {
        let mp = ptr_idx(base, i);
        let is_request = s(m, "kind") == "request";
        if let Some(c) = m.get("conversation_id").and_then(Value::as_str) {
            r.conversation_id = Some(c.into());
        }
        let model = m.get("model_name").and_then(Value::as_str);
        let stop = stop_of(m.get("finish_reason").and_then(Value::as_str));
        let pp = ptr_join(&mp, "parts");
        for (j, p) in m.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
            let ptr = ptr_idx(&pp, j);
            let kind = s(p, "part_kind");
            let sent = sent_value(p);
            let text = content_text(p.get("content"));
            let (role, mkind, bkind) = match (is_request, kind) {
                (true, "system-prompt") => (Role::System, MessageKind::SystemPrompt, BlockKind::Text),
                (true, "user-prompt") => (Role::User, MessageKind::UserTurn, BlockKind::Text),
                (true, "tool-return") => (Role::Tool, MessageKind::ToolResult, BlockKind::ToolResult),
                (true, "retry-prompt") if p.get("tool_name").is_some_and(|t| !t.is_null()) => {
                    (Role::Tool, MessageKind::ToolResult, BlockKind::ToolResult)
                }
                (true, "retry-prompt") => (Role::User, MessageKind::Meta, BlockKind::Text),
                (true, "speech") => (Role::User, MessageKind::UserTurn, BlockKind::Media),
                (_, k) if k.contains("compaction") => {
                    (Role::User, MessageKind::CompactionSummary, BlockKind::Compaction)
                }
                (true, _) => (Role::User, MessageKind::Meta, BlockKind::Other),
                (false, "text") => (Role::Assistant, MessageKind::Assistant, BlockKind::Text),
                (false, "thinking") => (Role::Assistant, MessageKind::Assistant, BlockKind::Thinking),
                (false, "tool-call") => (Role::Assistant, MessageKind::Assistant, BlockKind::ToolCall),
                (false, "file" | "speech") => (Role::Assistant, MessageKind::Assistant, BlockKind::Media),
                (false, _) => (Role::Assistant, MessageKind::Assistant, BlockKind::Other),
            };
            let text = match bkind {
                BlockKind::ToolCall => p
                    .get("args")
                    .map(|a| a.as_str().map(str::to_string).unwrap_or_else(|| a.to_string()))
                    .unwrap_or_default(),
                BlockKind::Media => content_text(p.get("transcript")),
                _ => text,
            };
            let keep_full = mkind.is_prompt_side();
            let mut b = Block::new(bkind, ptr.clone().into(), &text, keep_full);
            b.json_hash = chash(&sent);
            if matches!(bkind, BlockKind::ToolCall | BlockKind::ToolResult) {
                b.tool_id = p.get("tool_call_id").and_then(Value::as_str).map(Into::into);
                b.tool_name = p.get("tool_name").and_then(Value::as_str).map(Into::into);
            }
            let mut msg = message(role, mkind, ptr);
            msg.json_hash = b.json_hash;
            msg.blocks.push(b);
            if mkind == MessageKind::SystemPrompt {
                msg.dynamic_ref = p.get("dynamic_ref").and_then(Value::as_str).map(Into::into);
            }
            if role == Role::Assistant {
                msg.assistant =
                    Some(Box::new(AssistantInfo { stop, model: model.map(Into::into), ..Default::default() }));
            }
            r.messages.push(Arc::new(msg));
        }
    }
    if let Some((i, ins)) = instructions(msgs) {
        let ptr = ptr_join(&ptr_idx(base, i), "instructions");
        r.slots.push(Slot {
            kind: SlotKind::Instructions,
            pointer: ptr.clone(),
            parts: vec![text_block(BlockKind::Text, ptr, ins, &Value::String(ins.to_string()))],
        });
    }
    r
}

/// The instructions sent with the snapshot's latest request, and the index
/// of the message holding them (pydantic-ai `Model._get_instructions`).
fn instructions(msgs: &[Value]) -> Option<(usize, &str)> {
    let mut last_two: Vec<usize> = Vec::new();
    for (i, m) in msgs.iter().enumerate().rev() {
        if s(m, "kind") != "request" {
            continue;
        }
        last_two.push(i);
        if last_two.len() == 2 {
            break;
        }
        if let Some(t) = m.get("instructions").and_then(Value::as_str) {
            return Some((i, t));
        }
    }
    if last_two.len() != 2 {
        return None;
    }
    let only_returns = msgs[last_two[0]]
        .get("parts")
        .and_then(Value::as_array)
        .is_some_and(|ps| ps.iter().all(|p| matches!(s(p, "part_kind"), "tool-return" | "retry-prompt")));
    if only_returns {
        return msgs[last_two[1]].get("instructions").and_then(Value::as_str).map(|t| (last_two[1], t));
    }
    None
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Snapshot { joins: true },
    encoding: Encoding::Json,
    detect: Detect { body: Some(Sniffer { rank: 2, test: sniff }), ..Detect::NONE },
    fit: Fit::Document {
        test: |v| (!sniff(v)).then_some("not an array of messages with `kind` \"request\" or \"response\" and `parts`"),
        noun: "no request body",
    },
    read: Read::Body { parse, database: None, elements: None },
    locate: Locate::Document { pointer: None },
    record: None,
    repro: Repro {
        name: "history.json",
        numbered: Some(|i| format!("{:02}-history.json", i + 1)),
        threading: None,
        text: None,
        value: None,
    },
    store: None,
    agent_folders: &[],
    about: About {
        what: "pydantic-ai message history (ModelMessagesTypeAdapter JSON)",
        kind: "history snapshot",
        location: "wherever the application saves it",
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(v: &Value) -> Request {
        parse(v, &Arc::from("h.json"), 0, "")
    }

    #[test]
    fn parts_are_elements_and_timestamps_do_not_count() {
        let a = json!([{"kind":"request","parts":[
            {"part_kind":"system-prompt","content":"Be brief.","timestamp":"2026-01-01T00:00:00Z","dynamic_ref":null},
            {"part_kind":"user-prompt","content":"hi","timestamp":"2026-01-01T00:00:00Z"}],
            "instructions":"Answer in French.","run_id":"r1","conversation_id":"c1"},
            {"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"t","args":"{\"x\":1}","tool_call_id":"k"}],"usage":{"input_tokens":3},"finish_reason":"tool_call"}]);
        let b = json!([{"kind":"request","parts":[
            {"part_kind":"system-prompt","content":"Be brief.","timestamp":"2027-01-01T00:00:00Z","dynamic_ref":null},
            {"part_kind":"user-prompt","content":"hi","timestamp":"2027-01-01T00:00:00Z"}],
            "instructions":"Answer in French.","run_id":"r2","conversation_id":"c1"},
            {"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"t","args":{"x":1},"tool_call_id":"k"}],"usage":{"input_tokens":9}}]);
        let (ra, rb) = (load(&a), load(&b));
        assert!(sniff(&a));
        assert_eq!(ra.messages.len(), 3);
        assert_eq!(ra.messages[1].pointer, "/0/parts/1");
        assert_eq!(ra.messages[0].kind, MessageKind::SystemPrompt);
        assert_eq!(ra.messages[2].blocks[0].tool_id.as_deref(), Some("k"));
        for (x, y) in ra.messages.iter().zip(&rb.messages) {
            assert_eq!(x.json_hash, y.json_hash);
        }
        assert_eq!(ra.conversation_id.as_deref(), Some("c1"));
        assert_eq!(ra.slots[0].pointer, "/0/instructions");
        assert_eq!(&*ra.slots[0].parts[0].text, "Answer in French.");
    }

    #[test]
    fn instructions_of_a_tool_return_request_come_from_the_one_before() {
        let h = json!([
            {"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}],"instructions":"I1"},
            {"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"t","args":{},"tool_call_id":"k"}]},
            {"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"t","content":"ok","tool_call_id":"k"}],"instructions":null}]);
        let r = load(&h);
        assert_eq!(r.slots[0].pointer, "/0/instructions");
        assert_eq!(r.messages[2].role, Role::Tool);
    }

    #[test]
    fn retry_prompt_without_tool_is_user_text() {
        let h =
            json!([{"kind":"request","parts":[{"part_kind":"retry-prompt","content":"try again","tool_name":null}]}]);
        let r = load(&h);
        assert_eq!(r.messages[0].role, Role::User);
        assert_eq!(r.messages[0].kind, MessageKind::Meta);
    }
}
