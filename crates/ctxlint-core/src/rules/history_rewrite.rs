//! CTX202 `history-rewrite`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::finding::{Finding, Severity};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX202",
    name: "history-rewrite",
    default_severity: Severity::Warning,
    summary: "request k+1 continues k's conversation but its prefix is not an extension of k's",
    docs: r#"## What it finds
Request k+1 continues request k's conversation, but its prefix — compared in cache order:
tools, then system, then messages — is not an extension of request k's. Reports the level
(`tools`, `system`, `messages`) and the first diverging element of request k+1 (a content
block, Responses item, Gemini part, pydantic-ai part or Bedrock content entry; a Chat message
with string content), once per pair, with a unified diff of that element. At the tools level
the pointer is `tools` (or the request body when request k+1 sends no tools). Requests are
paired per endpoint (the same body format and URL path); a request continues the previous
one when it chains to its response (`previous_response_id`) or both histories begin with the
same element, unless the two carry different session or conversation ids.

## Why it matters
Providers cache prompts by exact prefix. A rewritten history (a block edited, a thinking
block lost, a reminder dropped) throws the prompt cache away on every request after it,
and may change what the model believes happened.

## Example
`req2` re-sends `req1`'s first user message with one trailing newline added to a block:
reported at that block.

## What it does not flag
Moving `cache_control` markers, JSON key order, whitespace between JSON tokens (text inside
strings is compared byte for byte); `previous_response_id` chains; compaction boundaries;
a new conversation (requests of different sessions or conversation ids among them); a
message re-sent with its string content as a list of one text block, or back (Claude Code
re-sends earlier user turns as strings); a request whose history is a prefix of the previous
one's (a retry); a pydantic-ai dynamic prompt re-rendered in place; tools added or removed
with `"defer_loading": true` (Anthropic's tool search: deferred tools are not part of the
prompt, so they keep the cache); context a runtime places after the history on every
request by design, which moves down as the history grows (Aider's chat files and their
reply, and its `system_reminder` sent again at the end: as a last system message, or after
the last user message's text, which the next request re-sends without it — and with the
trailing blanks of the person's input that Aider dropped before appending it; a system message
that ends every request after the history, such as a LangGraph supervisor's routing
instruction, or comes right before a user message asked on every request, such as AutoGPT's
response-format instruction before its cycle trigger). A new call from an earlier point is no rewrite either: a request that keeps
the previous one's history up to its last user turn and replaces what follows (another
candidate graded), or — when the previous request's response is recorded — one that carries
none of that response nor the user turn it answered, and asks no more turns (a tree
search's sibling expansion). Nor is a handoff: a request with other instructions and none of
the tools, whose history called the previous agent's `transfer_to_…` tool, is the agent the
handoff called (the OpenAI Agents SDK), even when both prompts open with the same words; nor
a summariser's side call: a request with no tools and no system prompt that carries the
conversation and ends with a request for a summary of it, after a request of the chat that
sent a system prompt and no tools (LangGraph's summarisation how-to; with tools, langmem's
`SummarizationNode`); nor
a one-shot call that shares nothing before its question with a previous one-shot call that
sent no system prompt, and asks another question with a system prompt (two separate calls
that happen to send the same image); nor another run of the same opening on another model
(a second test run appended to a VCR cassette): a request that sends the previous one's
history, then — where its recorded reply would be — an assistant message of its own, and
none of that reply. Nor a prefill completed: the previous request ended with the start of
an assistant message for the model to continue (Anthropic's "prefill Claude's response"),
and this one sends in its place an assistant message that starts with it (the prefill and
the model's continuation joined). A system prompt that disappears is
`dropped-system-prompt` only.
"#,
};

/// Compares consecutive requests of a stream (see `crate::conversation`).
pub fn check(cx: &mut RuleContext) {
    let Some(stream) = cx.stream else { return };
    let input = cx.input;
    for pair in cx.conversation.pairs(stream) {
        let Some(rw) = &pair.rewrite else { continue };
        let (a, b) = (&stream.requests[pair.prev], &stream.requests[pair.cur]);
        let mut f = Finding::new(
            RuleId::HistoryRewrite,
            &b.path,
            input.format,
            format!(
                "the prefix of request {} is not an extension of request {}'s at the {} level: {}",
                b.index,
                a.index,
                rw.level.as_str(),
                rw.what
            ),
        )
        .pointer(rw.pointer.clone())
        .request(b.index)
        .key(format!("{}:{}", rw.level.as_str(), rw.pointer.strip_prefix(b.pointer.as_str()).unwrap_or(&rw.pointer)))
        .diff(rw.diff.clone())
        .related(
            &a.path,
            a.line,
            rw.prev_pointer.clone().unwrap_or_else(|| a.pointer.clone()),
            format!("request {} sent this prefix", a.index),
        )
        .help("keep the history append-only: re-send earlier elements byte for byte so the prompt cache is read");
        f = f.effect(crate::impact::Effect::CacheBreak {
            bytes: bytes_after(a, b, rw.level, &rw.pointer),
            before: a.index,
        });
        if !rw.text.is_empty() {
            f = f.excerpt(rw.text.clone());
        }
        f.line = b.line;
        cx.report(f);
    }
}

/// Bytes of request `a` from the first element `b` does not send again on:
/// at the tools level everything, at the system level the system slots and
/// the messages, else the messages from the one holding the first diverging
/// element (`pointer`, in request `b`) on.
fn bytes_after(
    a: &crate::model::Request,
    b: &crate::model::Request,
    level: crate::conversation::Level,
    pointer: &str,
) -> u64 {
    use crate::conversation::Level;
    let slot_bytes: u64 = a.slots.iter().flat_map(|s| &s.parts).map(|p| p.text.len() as u64).sum();
    let msgs = |from: usize| -> u64 { a.messages[from.min(a.messages.len())..].iter().map(|m| m.text_bytes()).sum() };
    let pointer = b.held(pointer);
    let holds = |m: &crate::model::Message| {
        pointer.strip_prefix(&*m.pointer).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    match level {
        Level::Tools => a.tools.as_ref().map_or(0, |t| t.2.len() as u64) + slot_bytes + msgs(0),
        Level::System => slot_bytes + msgs(0),
        Level::Messages => msgs(b.messages.iter().position(|m| holds(m)).unwrap_or(0)),
    }
}
