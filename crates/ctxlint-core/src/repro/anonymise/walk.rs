//! Walking a case's JSON or YAML tree: which keys' values are structure and
//! kept, which are ids (replaced keeping their shape), tool names or request
//! URIs, and which are free text; and JSONL lines that are not one JSON
//! value, string by string.

use super::Anonymiser;
use super::classes::MCP;
use crate::repro::tree::Node;

/// Keys whose string values are structure, kept as they are.
const KEEP_KEYS: &[&str] = &[
    "type",
    "role",
    "kind",
    "part_kind",
    "subtype",
    "customType",
    "provider",
    "model",
    "modelId",
    "model_name",
    "api",
    "stopReason",
    "stop_reason",
    "finish_reason",
    "status",
    "deliveryStatus",
    "action",
    "version",
    "timestamp",
    "created_at",
    "createdAt",
    "method",
    "object",
    "mimeType",
    "media_type",
    "mime_type",
    "level",
    "operation",
    "thinkingLevel",
    "userType",
    "entrypoint",
    "transport",
    "event",
    // OpenTelemetry: event names and the SDK's span kind say what a record is.
    "eventName",
    "event_name",
    "event.name",
];

/// Keys whose values are identifiers: replaced as a whole, keeping their shape.
const ID_KEYS: &[&str] = &[
    "id",
    "parentId",
    "uuid",
    "parentUuid",
    "leafUuid",
    "logicalParentUuid",
    "sessionId",
    "session_id",
    "tool_call_id",
    "toolCallId",
    // OpenTelemetry trace and span ids (OTLP/JSON, the JS and Python SDK dumps).
    "traceId",
    "spanId",
    "parentSpanId",
    "trace_id",
    "span_id",
    "parent_id",
    "tool_use_id",
    "call_id",
    "callId",
    "requestId",
    "request_id",
    "previous_response_id",
    "conversation_id",
    "messageId",
    "message_id",
    "run_id",
    "firstKeptEntryId",
    "sourceToolAssistantUUID",
    "promptId",
    "signature",
    "encrypted_content",
];

/// Keys naming a tool (kept), unless the object is a message (then `name` is a person's).
const TOOL_NAME_KEYS: &[&str] = &["name", "toolName", "tool_name", "recipient_name", "dynamic_ref"];

impl Anonymiser {
    pub(super) fn node(&mut self, n: &mut Node, key: Option<&str>, in_message: bool) {
        match n {
            Node::Scalar(_) => {}
            Node::Str(_, s) => {
                let k = key.unwrap_or("");
                if KEEP_KEYS.contains(&k) {
                    return;
                }
                // An OTLP attribute's name (`{"key": "gen_ai.input.messages", "value": …}`)
                // is schema, not content.
                if k == "key"
                    && !s.is_empty()
                    && s.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"._".contains(&c))
                {
                    return;
                }
                // A tool name is kept (rules pair on it), but for an MCP tool's
                // server; a `name` beside a `role` is a person's, unless it is an MCP tool's.
                if TOOL_NAME_KEYS.contains(&k) && (k != "name" || !in_message || MCP.is_match(s)) {
                    *s = self.tool_names(s);
                    return;
                }
                if k == "uri" || k == "url" {
                    *s = self.uri(s);
                } else if ID_KEYS.contains(&k) {
                    *s = self.shape("id", s);
                } else if k == "name" {
                    *s = self.shape("name", s);
                } else {
                    *s = self.text(s);
                }
            }
            Node::Embedded(inner) => self.node(inner, key, in_message),
            Node::Raw(s) => *s = self.raw_line(s),
            Node::Arr(_, items) => {
                for (_, x) in items.iter_mut() {
                    self.node(x, key, false);
                }
            }
            Node::Obj(_, members) => {
                let message = members.iter().any(|(k, _)| k == "role");
                for (k, x) in members.iter_mut() {
                    let k = k.clone();
                    self.node(x, Some(&k), message);
                }
            }
        }
    }

    /// Anonymises a JSONL line that is not one JSON value: string literals
    /// that are not keys are replaced; a string cut off by the end of the
    /// line has its letters and digits masked.
    fn raw_line(&mut self, s: &str) -> String {
        let b = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut last_key: Option<String> = None;
        let mut i = 0;
        while i < b.len() {
            if b[i] != b'"' {
                let next = s[i..].find('"').map(|k| i + k).unwrap_or(b.len());
                out.push_str(&s[i..next]);
                i = next;
                continue;
            }
            let mut j = i + 1;
            let mut closed = false;
            while j < b.len() {
                match b[j] {
                    b'\\' => j += 2,
                    b'"' => {
                        closed = true;
                        break;
                    }
                    _ => j += 1,
                }
            }
            if !closed {
                // A torn string: letters and digits become placeholders, but JSON
                // escapes (`\n`, `\"`, `\u00e9`) stay escapes, so the line stays
                // torn in the same way (the parse error is part of the finding).
                let mut rest = String::with_capacity(s.len() - i);
                let mut keep = 0usize;
                for c in s[i..].chars() {
                    if keep > 0 {
                        keep -= 1;
                        rest.push(c);
                        if keep == 0 && c == 'u' {
                            keep = 4;
                        }
                        continue;
                    }
                    if c == '\\' {
                        keep = 1;
                        rest.push(c);
                        continue;
                    }
                    rest.push(if c.is_alphanumeric() { if c.is_numeric() { '0' } else { 'x' } } else { c });
                }
                out.push_str(&rest);
                break;
            }
            let lit = &s[i..=j.min(b.len() - 1)];
            let is_key = s[(j + 1).min(b.len())..].trim_start().starts_with(':');
            match serde_json::from_str::<String>(lit) {
                Ok(text) if is_key => {
                    out.push_str(lit);
                    last_key = Some(text);
                }
                Ok(text) => {
                    let k = last_key.take().unwrap_or_default();
                    let t = if KEEP_KEYS.contains(&k.as_str()) {
                        text
                    } else if TOOL_NAME_KEYS.contains(&k.as_str()) {
                        self.tool_names(&text)
                    } else if ID_KEYS.contains(&k.as_str()) {
                        self.shape("id", &text)
                    } else {
                        self.text(&text)
                    };
                    out.push_str(&serde_json::to_string(&t).unwrap_or_default());
                }
                Err(_) => out.push_str(lit),
            }
            i = j + 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;

    #[test]
    fn torn_lines_are_masked() {
        let mut a = Anonymiser::new(Level::Full);
        let out = a.raw_line(r#"{"type":"message","text":"hello alice@x.org"}{"type":"mess"#);
        assert!(out.starts_with(r#"{"type":"message","text":""#), "{out}");
        assert!(!out.contains("alice"), "{out}");
        assert!(out.ends_with(r#"{"type":"xxxx"#), "{out}");
    }

    #[test]
    fn a_torn_string_keeps_its_json_escapes() {
        let mut a = Anonymiser::new(Level::Full);
        let out = a.raw_line(r#"{"type":"user","content":"passed [ 33%]\n\u00e9tape \"done\" an"#);
        assert_eq!(out, r#"{"type":"user","content":"xxxxxx [ 00%]\n\u00e9xxxx \"xxxx\" xx"#);
        assert!(serde_json::from_str::<serde_json::Value>(&format!("{out}\"}}")).is_ok(), "{out}");
    }
}
