//! Shared helpers for request-body loaders: every body format turns a parsed
//! JSON body (at a base pointer inside its file) into a [`Request`].

use crate::hash::canonical_hash;
use crate::model::*;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// Looking a key up in a JSON object as request bodies are read: a small
/// object (most messages and blocks hold two to six keys) is scanned in
/// order, as its entries lie; a larger one is looked up in its map
/// (`serde_json`'s `preserve_order` map hashes the key with SipHash: on a
/// log of small requests that was a tenth of the load). Same answer as
/// `Value::get` / `Map::get`.
pub trait Field {
    /// The value of `key`, when this is an object that holds it.
    fn field(&self, key: &str) -> Option<&Value>;
}

/// Objects up to this many entries are scanned rather than hashed into.
const SCAN_UP_TO: usize = 12;

impl Field for serde_json::Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCAN_UP_TO { self.iter().find_map(|(k, v)| (k == key).then_some(v)) } else { self.get(key) }
    }
}

impl Field for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.field(key),
            _ => None,
        }
    }
}

/// Keys never compared between requests (docs/spec.md §2: `cache_control` markers move).
pub const IGNORED_KEYS: &[&str] = &["cache_control"];

/// Canonical hash of an element, `cache_control` ignored.
pub fn chash(v: &Value) -> u64 {
    canonical_hash(v, IGNORED_KEYS)
}

/// The text of a content list that is exactly one plain text block
/// (`[{"type":"text","text":…}]`, `cache_control` aside): the block-list
/// serialisation of a string content. docs/spec.md §1 compares a Chat/Anthropic
/// message with string content equal to the same message with such a list
/// (Claude Code re-sends earlier user turns as strings and the latest as one
/// text block carrying `cache_control`). Two text blocks, or a block with any
/// other field (`citations`, …), are not this.
pub fn single_text_block(content: &Value) -> Option<&str> {
    let [Value::Object(b)] = content.as_array()?.as_slice() else { return None };
    if b.field("type").and_then(Value::as_str) != Some("text") {
        return None;
    }
    if b.keys().any(|k| k != "type" && k != "text" && !IGNORED_KEYS.contains(&k.as_str())) {
        return None;
    }
    b.field("text").and_then(Value::as_str)
}

/// Canonical hash of a string content `t` as its one-text-block form
/// (`{"type":"text","text":t}`), so that both serialisations compare equal
/// (see [`single_text_block`]).
pub fn text_block_hash(t: &str) -> u64 {
    crate::hash::canonical_string_object_hash(&[("text", t), ("type", "text")])
}

/// Why a request body that starts like JSON is not read: the parser's own
/// words (`trailing comma at line 1 column 57`, `EOF while parsing an object
/// …`: a body cut short), not a guess.
pub fn unparsed_json(text: &str) -> String {
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Err(e) => format!("its request body is JSON that does not parse: {e}"),
        Ok(_) => "its request body is JSON that does not parse".to_string(),
    }
}

/// Whether a body text is newline-delimited JSON (two or more lines, each
/// one JSON value: an `application/x-ndjson` upload such as a Hugging Face
/// Hub commit, a batch file), which no model endpoint takes as a request
/// body: not one JSON request that failed to parse.
pub fn is_ndjson(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).peekable();
    let mut n = 0;
    while let Some(l) = lines.next() {
        if serde_json::from_str::<serde::de::IgnoredAny>(l).is_err() {
            return false;
        }
        n += 1;
        if n > 1 && lines.peek().is_none() {
            return true;
        }
    }
    false
}

/// A request with no content yet.
pub fn new_request(path: &Arc<str>, format: FormatId, index: usize, pointer: &str) -> Request {
    Request {
        path: path.clone(),
        body_format: format,
        index,
        pointer: pointer.to_string(),
        line: None,
        endpoint: None,
        slots: Vec::new(),
        tools: None,
        messages: Vec::new(),
        previous_response_id: None,
        conversation_id: None,
        session_id: None,
        response_id: None,
        reply: None,
        raw: None,
        outcome: None,
        aliases: Vec::new(),
        floating: Default::default(),
        resaved: None,
        label: None,
        gaps: Vec::new(),
        usage: None,
        usage_is_run_total: false,
        model: None,
        time: 0,
        relative: false,
        elements: None,
    }
}

/// A message with no blocks.
pub fn message(role: Role, kind: MessageKind, pointer: String) -> Message {
    Message {
        role,
        kind,
        pointer: Cow::Owned(pointer),
        blocks: Vec::new(),
        assistant: None,
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    }
}

/// A text block with its canonical hash.
pub fn text_block(kind: BlockKind, pointer: String, text: &str, v: &Value) -> Block {
    let mut b = Block::new(kind, Cow::Owned(pointer), text, true);
    b.json_hash = chash(v);
    b
}

/// The string value of `v[key]`, or "".
pub fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Text of a "content" value that may be a string, an array of text parts, or
/// anything else (serialised).
pub fn flatten_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => s.clone(),
                Value::Object(_) => {
                    x.field("text").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| x.to_string())
                }
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Sets the request's `tools` slot from `v` (any JSON value). Tools sent
/// with `"defer_loading": true` (Anthropic's tool search, and the gateways
/// that copy it) are left out: they are not part of the prompt — "deferred
/// tools are excluded from the initial prompt entirely" (Anthropic, *Tool
/// search tool* and *Tool use with prompt caching*) — so adding one keeps
/// the prompt cache.
pub fn set_tools(r: &mut Request, base: &str, key: &str, v: Option<&Value>) {
    if let Some(t) = v {
        let deferred = |x: &Value| x.field("defer_loading").and_then(Value::as_bool) == Some(true);
        let kept;
        let t = match t.as_array() {
            Some(a) if a.iter().any(deferred) => {
                kept = Value::Array(a.iter().filter(|x| !deferred(x)).cloned().collect());
                &kept
            }
            _ => t,
        };
        r.tools = Some((ptr_join(base, key), chash(t), crate::hash::canonical_string(t, IGNORED_KEYS)));
    }
}

/// Whether a recorded exchange's response says the model call failed (docs/spec.md
/// §1 *failed attempt*): an HTTP error status (≥ 400) — `status` as a number,
/// vcrpy's `{code, message}` mapping, or `status_code` — or no response: a
/// `null` one, or (HAR) status 0, which a browser writes for a request that
/// got no answer. `resp` is the exchange's `response` value as recorded
/// (`None`: the exchange records no response at all, which says nothing).
pub fn response_failed(resp: Option<&Value>) -> bool {
    let Some(resp) = resp else { return false };
    if resp.is_null() {
        return true;
    }
    let status = resp.field("status").or_else(|| resp.field("status_code")).or_else(|| resp.field("statusCode"));
    let code = match status {
        Some(Value::Object(o)) => o.field("code").and_then(Value::as_u64),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(t)) => t.split_whitespace().next().and_then(|c| c.parse().ok()),
        _ => None,
    };
    matches!(code, Some(c) if c >= 400 || c == 0)
}

/// Marks a user-role message as holding only tool results, when it does.
pub fn classify_user(m: &mut Message) {
    if !m.blocks.is_empty() && m.blocks.iter().all(|b| b.kind == BlockKind::ToolResult) {
        m.kind = MessageKind::ToolResults;
    }
}

/// An assistant info record with only the model name.
pub fn assistant_info(model: Option<&str>) -> Option<Box<AssistantInfo>> {
    Some(Box::new(AssistantInfo { model: model.map(Into::into), ..Default::default() }))
}

/// What a chat-shaped body (OpenAI Chat, Anthropic Messages, Bedrock
/// Converse) lacks for a forced `--input-format`: its `messages` array.
pub fn missing_messages(v: &Value) -> Option<&'static str> {
    (!v.field("messages").is_some_and(Value::is_array)).then_some("no `messages` array")
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn newline_delimited_json_is_told_from_one_broken_body() {
        use super::is_ndjson;
        assert!(is_ndjson("{\"key\":\"header\"}\n{\"key\":\"file\",\"path\":\"a.py\"}\n"));
        assert!(!is_ndjson("{\"model\":\"m\",}"));
        assert!(!is_ndjson("{\"a\":1}"));
        assert!(!is_ndjson("{\"a\":1}\n{\"b\":"));
        assert!(!is_ndjson(""));
    }

    fn tools_hash(tools: serde_json::Value) -> u64 {
        let body =
            json!({"model": "claude-sonnet-4-5", "tools": tools, "messages": [{"role": "user", "content": "hi"}]});
        let r = super::super::parse_body(crate::formats::anthropic::ID, &body, &Arc::from("r.json"), 0, "")
            .expect("parses");
        r.tools.expect("tools").1
    }

    #[test]
    fn a_text_block_hash_is_the_canonical_hash_of_the_block() {
        for t in ["", "hi", "é\n\"quoted\"", &"x".repeat(5000)] {
            let block = json!({"type": "text", "text": t});
            assert_eq!(super::text_block_hash(t), super::chash(&block), "{t:?}");
            // cache_control is ignored by both.
            let marked = json!({"text": t, "cache_control": {"type": "ephemeral"}, "type": "text"});
            assert_eq!(super::text_block_hash(t), super::chash(&marked));
        }
        assert_ne!(super::text_block_hash("a"), super::text_block_hash("b"));
    }

    #[test]
    fn failed_responses() {
        use super::response_failed;
        for (v, want) in [
            (json!({"status": {"code": 404, "message": "Not Found"}}), true),
            (json!({"status": {"code": 200, "message": "OK"}}), false),
            (json!({"status": 500}), true),
            (json!({"status_code": 429}), true),
            (json!({"status": 0}), true),
            (json!({"status": "200 OK"}), false),
            (json!(null), true),
            (json!({"body": {"id": "x"}}), false),
        ] {
            assert_eq!(response_failed(Some(&v)), want, "{v}");
        }
        assert!(!response_failed(None));
    }

    #[test]
    fn deferred_tools_are_not_part_of_the_prompt() {
        let search = json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"});
        let a = json!({"name": "get_weather", "input_schema": {"type": "object"}});
        let deferred = json!({"name": "get_time", "input_schema": {"type": "object"}, "defer_loading": true});
        let plain = json!({"name": "get_time", "input_schema": {"type": "object"}});
        let base = tools_hash(json!([search.clone(), a.clone()]));
        // A deferred tool added: the same prompt (Anthropic tool search keeps the cache).
        assert_eq!(tools_hash(json!([search.clone(), a.clone(), deferred])), base);
        // The same tool sent loaded: another prompt.
        assert_ne!(tools_hash(json!([search, a, plain])), base);
    }
}
