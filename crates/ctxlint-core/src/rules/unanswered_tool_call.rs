//! CTX301 `unanswered-tool-call`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::pairing::Pairing;
use crate::finding::{Finding, Severity};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX301",
    name: "unanswered-tool-call",
    default_severity: Severity::Error,
    summary: "a tool call has no matching result before the next model call or user turn",
    docs: r#"## What it finds
A tool call with no matching result before the next model call or user turn. Calls and
results pair by id in every format: OpenAI `tool_calls[].id` / `tool_call_id`, Responses
`call_id`, Anthropic `tool_use.id` / `tool_use_id`, Gemini `functionCall` /
`functionResponse` (by id, else by order and name), Bedrock `toolUseId`, pi `toolCall.id`
/ `toolCallId` — including mixed OpenAI/Anthropic shapes in one request. In a transcript
it is judged along each entry's path.

## Why it matters
Providers reject a history with an unanswered call (HTTP 400: "tool_use ids were found
without tool_result blocks"), so the session is stuck until the history is repaired — and
condensers or trimmers that drop one result of a parallel pair cause exactly this.

## Example
```json
{"role": "assistant", "tool_calls": [{"id": "call_A", …}, {"id": "call_B", …}]},
{"role": "tool", "tool_call_id": "call_B", "content": "ok"}
```
`call_A` is reported.

## What it does not flag
A call still pending at the end of a transcript path (the run is in flight); calls of pi
assistant messages that ended with `error` or `aborted` (pi never sends them again); a path
cut by a reported `broken-parent-chain` or torn line (the cause is reported, not the cascade).
A runtime that repairs a missing result before it sends the request sends no unanswered
call (docs/spec.md CTX301: what is judged is what the runtime sends): Cline
(`ensureToolResultsFollowToolUse`) and pi / OpenClaw session files — pi-ai's
`transformMessages` (pi-mono `packages/ai/src/providers/transform-messages.ts`) gives every
call left open before the next assistant message or user message a "No result provided"
error result, and OpenClaw's `sanitizeToolUseResultPairing`
(`src/agents/session-transcript-repair.ts`) inserts its own synthetic result first. A call
left open by a gateway restart or a crash is then an ordinary failed call to the model.
Claude Code too: before each request its `ensureToolResultPairing` gives a `tool_use` left
without a result the result `[Tool result missing due to internal error]` (seen by its
users, anthropics/claude-code#46767, #63678; the step is named in #32234), and the
Anthropic API refuses a request holding an unanswered `tool_use` — so a model call that
succeeded after the call shows what was sent. In a Claude Code session file an unanswered
call (one a later user turn or model call passed by) is not reported when the first model
call after it on its path succeeded — entries of its own model call (parallel calls
sharing a `message.id`) aside; it is when that call is an API error (the request was
refused: an older Claude Code that did not repair it). A call still pending at the end of
the path, an API error right after it included, is in flight as above. In a request, a user
message with nothing in it (`{"role": "user", "content": ""}`, which simonw/llm-openai-plugin
sends before the results of every tool round) is no user turn: a result after it still
answers the call.
"#,
};

/// The excerpt of a call: its tool's name and its arguments as sent
/// (`name {"path":"a.txt"}`), or its id when the arguments are not known.
fn call_excerpt(b: &crate::model::Block) -> String {
    let name = b.tool_name.as_deref().unwrap_or("");
    match b.text.trim() {
        "" => format!("{name} {}", b.tool_id.as_deref().unwrap_or("")),
        args => format!("{name} {args}"),
    }
}

/// How far past a call [`next_call_refused`] looks for the next model call
/// on its path (entries).
const NEXT_CALL_SCAN: usize = 20_000;

/// Whether the first model call on the path after entry `unit` (among its
/// descendants, in file order) is an API error: the request holding the
/// unanswered call was refused. `false` when it succeeded, and when there is
/// none (the run ended, or it is more than [`NEXT_CALL_SCAN`] entries on).
fn next_call_refused(t: &crate::model::Transcript, unit: usize) -> bool {
    use crate::model::{MessageKind, Parent};
    // (Parallel calls and a text before a call are entries of one model
    // call, sharing its `message.id`: not the next call.)
    let group = t.entries[unit].call_group();
    let end = t.entries.len().min(unit + 1 + NEXT_CALL_SCAN);
    let mut on_path = vec![false; end - unit];
    on_path[0] = true;
    for j in unit + 1..end {
        let e = &t.entries[j];
        let below = match e.parent {
            Parent::Entry(p) => (p as usize) >= unit && (p as usize) < j && on_path[p as usize - unit],
            _ => false,
        };
        if !below {
            continue;
        }
        on_path[j - unit] = true;
        if e.kind() != Some(MessageKind::Assistant) {
            continue;
        }
        if e.assistant_facts().is_some_and(|a| a.api_error) {
            return true;
        }
        if e.is_model_call && (group.is_none() || e.call_group() != group) {
            return false;
        }
    }
    false
}

/// Reports unanswered calls in requests and transcripts.
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    // pi-ai and OpenClaw repair every open call before they send (see the docs).
    let repaired = input.format == crate::formats::pi_session::ID;
    // Claude Code repairs one too; only a refused next call shows it did not.
    let repairs_unless_refused = input.format == crate::formats::claude_code::ID;
    if let Some((t, an)) = cx.transcript.filter(|_| !repaired) {
        // One entry may hold many unanswered calls: unpack it once.
        let mut cached: Option<(u32, crate::model::Message)> = None;
        for p in an.pairing(input, t) {
            if let Pairing::Unanswered { unit, block } = *p {
                if repairs_unless_refused && !next_call_refused(t, unit as usize) {
                    continue;
                }
                let e = &t.entries[unit as usize];
                if cached.as_ref().map(|c| c.0) != Some(unit) {
                    // Read again for the call's arguments (`check` keeps only their hash);
                    // a line read back that is not the whole message (a Qwen
                    // message written twice under one uuid is merged) is not used.
                    let kept = t.message(e);
                    let m = t
                        .full_message(e)
                        .filter(|r| kept.as_ref().is_some_and(|k| r.blocks.len() == k.blocks.len()))
                        .or(kept);
                    let Some(m) = m else { continue };
                    cached = Some((unit, m));
                }
                let Some((_, m)) = &cached else { continue };
                let Some(b) = m.blocks.get(block as usize) else { continue };
                let id = b.tool_id.as_deref().unwrap_or("");
                cx.report(
                    Finding::new(
                        RuleId::UnansweredToolCall,
                        &input.path,
                        input.format,
                        format!(
                            "tool call `{id}` ({}) has no result before the next model call or user turn",
                            b.tool_name.as_deref().unwrap_or("?")
                        ),
                    )
                    .line(e.line)
                    .pointer(b.pointer.to_string())
                    .entry_id(e.id.as_deref())
                    .excerpt(call_excerpt(b))
                    .key(id.to_string())
                    .help("write a tool result for every call (an error result is fine) before the next model call"),
                );
            }
        }
    }
    if let Some(stream) = cx.stream {
        // An element re-sent with the history of a later request of the same
        // conversation is the same defect: reported once, at its first request.
        let mut memo = crate::analysis::dup::StreamMemo::new(stream, cx.conversation.links(stream));
        for (r, pairs) in stream.requests.iter().zip(cx.pairings.requests(stream)) {
            memo.next_request();
            for &p in pairs {
                if let Pairing::Unanswered { unit, block } = p {
                    let b = &r.messages[unit as usize].blocks[block as usize];
                    let id = b.tool_id.as_deref().unwrap_or("");
                    let rel = r.rel(&b.pointer);
                    if !memo.is_new(rel, id) {
                        continue;
                    }
                    let mut f = Finding::new(
                        RuleId::UnansweredToolCall,
                        &r.path,
                        input.format,
                        format!("tool call `{id}` ({}) has no matching result", b.tool_name.as_deref().unwrap_or("?")),
                    )
                    .pointer(r.at(&b.pointer))
                    .request(r.index)
                    .excerpt(call_excerpt(b))
                    .key(id.to_string())
                    .help("send a tool result for every call (an error result is fine)");
                    f.line = r.line;
                    cx.report(f);
                }
            }
        }
    }
}
