//! `gemini`: Gemini `generateContent` request bodies. Facts from the Gemini API
//! reference: `contents[]` of `{role: "user"|"model"|"function", parts[]}`;
//! parts are `{text}`, `{inlineData}`, `{fileData}`, `{functionCall{id?,name,
//! args}}`, `{functionResponse{id?,name,response}}`, `{thought:true,…}`;
//! `systemInstruction{parts[]}` is the system slot (also `system_instruction`);
//! `tools[].functionDeclarations[]`. Calls and responses pair by `id` when
//! present, else by order and name.

use super::body::*;
use super::format::{About, Format};
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("gemini");

/// Whether a body looks like a Gemini request: `contents` a list, or one
/// content object with `parts` (the API reads a single value where a list is
/// expected, and clients send it: sublayer's Ruby cassettes).
pub fn sniff(v: &Value) -> bool {
    v.field("contents").is_some_and(|c| c.is_array() || c.field("parts").is_some())
}

/// The items of a repeated field with their pointers: a list's items at
/// `{ptr}/{i}`, or one object given in its place at `{ptr}`.
fn items<'v>(v: Option<&'v Value>, ptr: &str) -> Vec<(&'v Value, String)> {
    match v {
        Some(Value::Array(a)) => a.iter().enumerate().map(|(i, x)| (x, ptr_idx(ptr, i))).collect(),
        Some(o @ Value::Object(_)) => vec![(o, ptr.to_string())],
        _ => Vec::new(),
    }
}

/// Parses a body at `base` into a request.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    for key in ["systemInstruction", "system_instruction"] {
        if let Some(si) = v.get(key) {
            let ptr = ptr_join(base, key);
            let mut slot = Slot { kind: SlotKind::SystemInstruction, pointer: ptr.clone(), parts: Vec::new() };
            // `parts` a list, or one part as an object (ellmer sends
            // `{"parts": {"text": …}}`: R `list(parts = list(text = …))`
            // unboxed by jsonlite, `R/provider-google.R`; the API takes it,
            // as it takes one `contents` object).
            match si.field("parts").filter(|p| p.is_array() || p.is_object()) {
                Some(parts) => {
                    for (p, pp) in items(Some(parts), &ptr_join(&ptr, "parts")) {
                        slot.parts.push(text_block(BlockKind::Text, pp, s(p, "text"), p));
                    }
                }
                None => slot.parts.push(text_block(BlockKind::Text, ptr.clone(), &flatten_text(si), si)),
            }
            r.slots.push(slot);
        }
    }
    set_tools(&mut r, base, "tools", v.field("tools"));
    if !sniff(v) {
        return r;
    }
    // Calls without ids pair by order and name: give them synthetic ids.
    let mut pairs = Pairing::default();
    for (c, mp) in items(v.field("contents"), &ptr_join(base, "contents")) {
        let (role, kind) = match s(c, "role") {
            "model" | "assistant" => (Role::Assistant, MessageKind::Assistant),
            "function" | "tool" => (Role::User, MessageKind::ToolResults),
            _ => (Role::User, MessageKind::UserTurn),
        };
        let mut m = message(role, kind, mp.clone());
        for (p, ptr) in items(c.field("parts"), &ptr_join(&mp, "parts")) {
            let b = part_block(p, ptr, &mut pairs);
            m.blocks.push(b);
        }
        if role == Role::User {
            classify_user(&mut m);
        } else {
            m.assistant = assistant_info(None);
        }
        r.messages.push(Arc::new(m));
    }
    r
}

/// Pairs Gemini `functionCall`s and `functionResponse`s that carry no `id`
/// by order and name (the API's rule), with synthetic ids.
#[derive(Debug, Default)]
pub struct Pairing {
    pending: Vec<(String, String)>, // (name, synthetic id)
    counter: usize,
}

/// One Gemini `Part` (`{text}`, `{thought, text}`, `{functionCall}`,
/// `{functionResponse}`, `{inlineData}`/`{fileData}`, snake_case too) as a
/// block at `ptr`; calls and responses without `id` are paired by `pairs`.
pub fn part_block(p: &Value, ptr: String, pairs: &mut Pairing) -> Block {
    if let Some(fc) = p.field("functionCall").or_else(|| p.field("function_call")) {
        let mut b =
            text_block(BlockKind::ToolCall, ptr, &fc.field("args").map(Value::to_string).unwrap_or_default(), p);
        let name = s(fc, "name").to_string();
        b.tool_id = Some(match fc.field("id").and_then(Value::as_str) {
            Some(id) => id.into(),
            None => {
                pairs.counter += 1;
                let id = format!("#gemini-call-{}", pairs.counter);
                pairs.pending.push((name.clone(), id.clone()));
                id.into()
            }
        });
        b.tool_name = Some(name.into());
        b
    } else if let Some(fr) = p.field("functionResponse").or_else(|| p.field("function_response")) {
        let mut b =
            text_block(BlockKind::ToolResult, ptr, &fr.field("response").map(Value::to_string).unwrap_or_default(), p);
        let name = s(fr, "name").to_string();
        // The Gemini API returns calls without ids; Gemini CLI gives the
        // call an id of its own (`<name>-<ms>-<hex>`) that only the response
        // carries (core `scheduler`, `convertToFunctionResponse`): a response
        // with an id answers the oldest call of its name sent without one.
        let pending = pairs.pending.iter().position(|(n, _)| *n == name);
        b.tool_id = Some(match (fr.field("id").and_then(Value::as_str), pending) {
            (_, Some(k)) => pairs.pending.remove(k).1.into(),
            (Some(id), None) => id.into(),
            (None, None) => format!("#gemini-unmatched-{name}").into(),
        });
        b.tool_name = Some(name.into());
        b
    } else if p.field("thought").and_then(Value::as_bool) == Some(true) {
        text_block(BlockKind::Thinking, ptr, s(p, "text"), p)
    } else if let Some(t) = p.field("text").and_then(Value::as_str) {
        text_block(BlockKind::Text, ptr, t, p)
    } else if p.field("inlineData").is_some() || p.field("fileData").is_some() || p.field("inline_data").is_some() {
        text_block(BlockKind::Media, ptr, "", p)
    } else {
        text_block(BlockKind::Other, ptr, "", p)
    }
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format::request_body(
    ID,
    4,
    sniff,
    |v| (!sniff(v)).then_some("no `contents` array"),
    parse,
    About {
        what: "Gemini generateContent request body",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
);

#[cfg(test)]
mod tests {
    use super::*;

    /// ellmer's `"systemInstruction": {"parts": {"text": …}}` (one part as an
    /// object, `R/provider-google.R`): the slot holds the prompt's text, not
    /// the JSON of the slot, at the part's pointer.
    #[test]
    fn one_system_part_object_in_place_of_the_list() {
        let v: Value = serde_json::from_str(
            r#"{"systemInstruction": {"parts": {"text": "Always use a tool."}}, "contents": [{"role": "user", "parts": [{"text": "Date?"}]}]}"#,
        )
        .unwrap();
        let r = parse(&v, &Arc::from("b.json"), 0, "");
        let slot = &r.slots[0];
        assert_eq!(slot.parts.len(), 1);
        assert_eq!(&*slot.parts[0].text, "Always use a tool.");
        assert_eq!(&*slot.parts[0].pointer, "/systemInstruction/parts");
    }

    #[test]
    fn one_content_object_in_place_of_the_list() {
        let v: Value = serde_json::from_str(
            r#"{"contents": {"role": "user", "parts": {"text": "Provide a four digit passcode"}}, "generationConfig": {}}"#,
        )
        .unwrap();
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("b.json"), 0, "");
        assert_eq!(r.messages.len(), 1);
        assert_eq!(r.messages[0].pointer.as_ref(), "/contents");
        assert_eq!(r.messages[0].blocks[0].pointer.as_ref(), "/contents/parts");
        assert_eq!(&*r.messages[0].blocks[0].text, "Provide a four digit passcode");
        // A `contents` object without parts is no Gemini request.
        assert!(!sniff(&serde_json::json!({"contents": {"a": 1}})));
    }
}
