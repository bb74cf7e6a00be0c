//! CTX103 `duplicate-system-prompt`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::dup::{self, Dupes, Occ, StreamMemo};
use crate::finding::{Finding, Severity};
use crate::hash::hash_str;
use crate::model::*;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX103",
    name: "duplicate-system-prompt",
    default_severity: Severity::Error,
    summary: "the same system prompt or instructions text occurs twice in one request or step",
    docs: r#"## What it finds
The same system prompt / instructions text twice or more in one request, or in the context
of one step of a transcript: in the top-level `system` slot, `system` / `developer` role
messages, `instructions`, a `<system>…</system>` user text, pydantic-ai `system-prompt`
parts, or Codex `base_instructions` and `developer` messages — e.g. a system message
re-added at each step of a run.

## Why it matters
Every copy costs tokens on every request, and models weight repeated instructions
differently; a prompt added once per step grows the context without bound.

## Example
```json
{"messages": [
  {"role": "system", "content": "You are a helpful assistant."},
  {"role": "system", "content": "You are a helpful assistant."},   <- reported
  {"role": "user", "content": "hi"}]}
```

## What it does not flag
Different system prompts; the same prompt in two different requests (every request carries
its own); empty prompts. Each later copy is reported once, with the first as related.
"#,
};

/// The system-prompt texts of a request: (occurrence, pointer, text).
fn request_prompts(r: &Request) -> Vec<(Occ, String, String)> {
    let mut out = Vec::new();
    for (occ, b, m) in dup::request_units(r) {
        let is_system = m.is_none_or(|m| m.kind == MessageKind::SystemPrompt);
        if is_system {
            out.push((occ, b.pointer.to_string(), b.text.to_string()));
        } else {
            for seg in system_tags(&b.text) {
                out.push((occ, b.pointer.to_string(), seg.to_string()));
            }
        }
    }
    out
}

/// `<system>…</system>` segments of a user text.
fn system_tags(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find("<system>") {
        let after = &rest[a + 8..];
        match after.find("</system>") {
            Some(z) => {
                out.push(after[..z].trim());
                rest = &after[z + 9..];
            }
            None => break,
        }
    }
    out
}

/// Checks requests and transcript steps.
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    if let Some(stream) = cx.stream {
        let mut memo = StreamMemo::new(stream);
        for r in &stream.requests {
            memo.next_request();
            let mut seen = Dupes::new();
            for (occ, ptr, text) in request_prompts(r) {
                let text = text.trim();
                if text.is_empty() {
                    continue;
                }
                let k = hash_str(text);
                if let Some(first) = seen.find_in_request(k, occ, false) {
                    let rel = ptr.strip_prefix(r.pointer.as_str()).unwrap_or(&ptr).to_string();
                    if memo.is_new(&rel, text) {
                        let mut f = Finding::new(
                            RuleId::DuplicateSystemPrompt,
                            &r.path,
                            input.format,
                            "the same system prompt is sent again in this request",
                        )
                        .pointer(ptr.clone())
                        .request(r.index)
                        .excerpt(text.to_string())
                        .related(&r.path, r.line, dup::unit_pointer(r, first), "first copy")
                        .help("send each system prompt once; do not re-add it at every step");
                        f.line = r.line;
                        cx.report(f);
                    }
                }
                seen.push(k, occ);
            }
        }
    }
    if let Some((t, an)) = cx.transcript {
        let base = t
            .base_instructions
            .as_ref()
            .map(|m| m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<_>>().join("\n"));
        let base_key = base.as_deref().map(str::trim).filter(|b| !b.is_empty()).map(hash_str);
        let mut seen = Dupes::new();
        for (i, e) in t.entries.iter().enumerate() {
            if e.kind() != Some(MessageKind::SystemPrompt) {
                continue;
            }
            let pm = dup::prompt_message(t, e);
            for (j, b, _) in dup::entry_blocks(pm.as_ref()) {
                let text = b.text.trim();
                if text.is_empty() {
                    continue;
                }
                let k = hash_str(text);
                let occ = Occ { unit: i as u32, block: j };
                let related = if Some(k) == base_key {
                    Some((
                        t.base_instructions_line,
                        t.base_instructions.as_ref().map(|m| m.pointer.to_string()).unwrap_or_default(),
                    ))
                } else {
                    seen.find_in_transcript(t, &an.tree, k, occ, false).map(|f| {
                        let fe = &t.entries[f.unit as usize];
                        let fb = t.packed(fe).and_then(|m| m.blocks().nth(f.block as usize));
                        (fe.line, fb.map(|b| b.pointer).unwrap_or("").to_string())
                    })
                };
                seen.push(k, occ);
                if let Some((line, ptr)) = related {
                    cx.report(
                        Finding::new(
                            RuleId::DuplicateSystemPrompt,
                            &input.path,
                            input.format,
                            format!("the same system prompt is already in context (line {line})"),
                        )
                        .line(e.line)
                        .pointer(b.pointer.to_string())
                        .entry_id(e.id.as_deref())
                        .excerpt(text.to_string())
                        .related(&input.path, Some(line), ptr, "first copy"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_system_tags() {
        assert_eq!(super::system_tags("a <system>x</system> b <system> y </system>"), vec!["x", "y"]);
    }
}
