//! What a recorded response answered, reduced to what a later request can be
//! matched on ([`Reply`]): the tool call ids it made and the hashes of its
//! texts. A request that carries its predecessor's reply after a changed
//! turn rewrote the history; one that carries none of it is a new call from
//! an earlier point — a sibling candidate, a tree search's next expansion
//! (docs/spec.md §1, "new call from the same point").
//!
//! Shapes read (each provider's API reference, response object):
//!
//! | provider | answer | tool call id | text |
//! |---|---|---|---|
//! | OpenAI Chat Completions | `choices[].message` (streamed: `choices[].delta`) | `tool_calls[].id` | `content` (a string) |
//! | Anthropic Messages | `content[]` (streamed: `content_block_start.content_block`) | `tool_use.id` | `text.text` |
//! | OpenAI Responses | `output[]` (streamed: `response.output_item.added`/`done` `item`, `response.completed` `response`) | `function_call.call_id` | `message.content[].text` |
//! | Gemini | `candidates[].content.parts[]` | `functionCall.id` | `text` |
//! | Bedrock Converse | `output.message.content[]` | `toolUse.toolUseId` | `text` |
//!
//! A streamed text arrives in pieces and is not hashed (the tool call ids of
//! a stream are read), and Gemini's thought summaries (`"thought": true`
//! parts, never sent back) are left out. Texts are hashed as [`crate::model::Block::text_hash`]
//! hashes a block's text, so an assistant text block sent again matches; and
//! line by line, so the model's text given back inside another message is
//! known as the model's.

use crate::model::Reply;
use serde_json::Value;

/// The reply markers of one response value (a whole body, or one `data:`
/// event of a stream) added to `out`.
pub fn add(v: &Value, out: &mut Reply) {
    if let Some(choices) = v.get("choices").and_then(Value::as_array) {
        for c in choices {
            if let Some(m) = c.get("message") {
                tool_calls(m, out);
                if let Some(t) = m.get("content").and_then(Value::as_str) {
                    text(t, out);
                }
            }
            if let Some(d) = c.get("delta") {
                tool_calls(d, out);
            }
        }
    }
    // Anthropic (`content`), and Bedrock Converse inside `output.message`.
    for parts in [v.get("content"), v.get("output").and_then(|o| o.get("message")).and_then(|m| m.get("content"))]
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
    {
        for p in parts {
            part(p, out);
        }
    }
    if let Some(b) = v.get("content_block") {
        part(b, out);
    }
    // Responses: `output[]`, a streamed `item`, or the whole `response`.
    if let Some(items) = v.get("output").and_then(Value::as_array) {
        for it in items {
            item(it, out);
        }
    }
    if let Some(it) = v.get("item") {
        item(it, out);
    }
    if let Some(r) = v.get("response").filter(|r| r.is_object()) {
        if let Some(items) = r.get("output").and_then(Value::as_array) {
            for it in items {
                item(it, out);
            }
        }
    }
    if let Some(cands) = v.get("candidates").and_then(Value::as_array) {
        for c in cands {
            // (A thought summary, `"thought": true`, is never sent back.)
            let parts = c.get("content").and_then(|x| x.get("parts")).and_then(Value::as_array);
            for p in parts.into_iter().flatten().filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true)) {
                if let Some(id) = p.get("functionCall").and_then(|f| f.get("id")).and_then(Value::as_str) {
                    id_of(id, out);
                }
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    text(t, out);
                }
            }
        }
    }
}

fn tool_calls(m: &Value, out: &mut Reply) {
    for c in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            id_of(id, out);
        }
    }
}

/// An Anthropic content block or a Bedrock Converse content entry.
fn part(p: &Value, out: &mut Reply) {
    match p.get("type").and_then(Value::as_str) {
        Some("tool_use" | "server_tool_use") => {
            if let Some(id) = p.get("id").and_then(Value::as_str) {
                id_of(id, out);
            }
        }
        Some("text") => {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                text(t, out);
            }
        }
        _ => {
            if let Some(id) = p.get("toolUse").and_then(|u| u.get("toolUseId")).and_then(Value::as_str) {
                id_of(id, out);
            } else if let Some(t) = p.get("text").and_then(Value::as_str) {
                text(t, out);
            }
        }
    }
}

/// A Responses output item.
fn item(it: &Value, out: &mut Reply) {
    match it.get("type").and_then(Value::as_str) {
        Some("function_call" | "custom_tool_call" | "local_shell_call" | "computer_call") => {
            if let Some(id) = it.get("call_id").and_then(Value::as_str) {
                id_of(id, out);
            }
        }
        Some("message") => {
            for c in it.get("content").and_then(Value::as_array).into_iter().flatten() {
                if let Some(t) = c.get("text").and_then(Value::as_str) {
                    text(t, out);
                }
            }
        }
        _ => {}
    }
}

fn id_of(id: &str, out: &mut Reply) {
    if !id.is_empty() {
        out.tool_ids.push(id.into());
    }
}

/// Adds a response's text `t` (a whole text, as the model wrote it): its
/// hash and the hashes of its trimmed lines of 8 bytes or more.
pub fn text(t: &str, out: &mut Reply) {
    if !t.trim().is_empty() {
        out.texts.push(crate::hash::hash_str(t));
        out.lines.extend(t.lines().map(str::trim).filter(|l| l.len() >= 8).map(crate::hash::hash_str));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(v: Value) -> Reply {
        let mut r = Reply::default();
        add(&v, &mut r);
        r
    }

    #[test]
    fn every_shape_gives_its_tool_call_ids_and_texts() {
        let h = crate::hash::hash_str;
        let chat =
            json!({"choices": [{"message": {"role": "assistant", "content": "hi", "tool_calls": [{"id": "call_1"}]}}]});
        assert_eq!(of(chat), Reply { tool_ids: vec!["call_1".into()], texts: vec![h("hi")], lines: vec![] });
        let anth = json!({"content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "toolu_1"}]});
        assert_eq!(of(anth), Reply { tool_ids: vec!["toolu_1".into()], texts: vec![h("a")], lines: vec![] });
        let resp = json!({"output": [{"type": "function_call", "call_id": "fc_1"},
                                     {"type": "message", "content": [{"type": "output_text", "text": "b"}]}]});
        assert_eq!(of(resp), Reply { tool_ids: vec!["fc_1".into()], texts: vec![h("b")], lines: vec![] });
        let gem = json!({"candidates": [{"content": {"parts": [{"text": "c"}, {"functionCall": {"id": "g1"}}]}}]});
        assert_eq!(of(gem), Reply { tool_ids: vec!["g1".into()], texts: vec![h("c")], lines: vec![] });
        let bed = json!({"output": {"message": {"content": [{"text": "d"}, {"toolUse": {"toolUseId": "tu1"}}]}}});
        assert_eq!(of(bed), Reply { tool_ids: vec!["tu1".into()], texts: vec![h("d")], lines: vec![] });
        // Streamed: the ids of the deltas and started blocks; no partial text.
        let mut r = Reply::default();
        add(&json!({"choices": [{"delta": {"tool_calls": [{"id": "call_9", "index": 0}]}}]}), &mut r);
        add(&json!({"choices": [{"delta": {"content": "par"}}]}), &mut r);
        add(&json!({"type": "content_block_start", "content_block": {"type": "tool_use", "id": "toolu_9"}}), &mut r);
        assert_eq!(r, Reply { tool_ids: vec!["call_9".into(), "toolu_9".into()], texts: vec![], lines: vec![] });
        // A Gemini thought summary is not read; repeats go once sorted.
        let thought =
            json!({"candidates": [{"content": {"parts": [{"text": "thinking…", "thought": true}, {"text": "e"}]}}]});
        assert_eq!(of(thought).texts, vec![h("e")]);
        let mut twice = of(
            json!({"content": [{"type": "tool_use", "id": "b"}, {"type": "tool_use", "id": "a"}, {"type": "tool_use", "id": "b"}]}),
        );
        twice.sort();
        assert_eq!(twice.tool_ids, vec!["a".into(), "b".into()] as Vec<Box<str>>);
        // A text's lines of 8 bytes or more, trimmed.
        let long = json!({"content": [{"type": "text", "text": "## Report\n  Pikas are small mammals.  \nok"}]});
        assert_eq!(of(long).lines, vec![h("## Report"), h("Pikas are small mammals.")]);
    }
}
