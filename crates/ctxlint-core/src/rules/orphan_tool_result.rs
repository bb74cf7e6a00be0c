//! CTX302 `orphan-tool-result`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::pairing::Pairing;
use crate::finding::{Finding, Severity};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX302",
    name: "orphan-tool-result",
    default_severity: Severity::Error,
    summary: "a tool result matches no earlier call, or answers a call a second time",
    docs: r#"## What it finds
A tool result whose id matches no earlier tool call in the request (or on the transcript
entry's path), or that answers a call a second time. Pairing by id as in
`unanswered-tool-call`.

## Why it matters
Providers reject results without a preceding call (HTTP 400), and trimmers that cut
history at a fixed count often keep the result of a call they dropped.

## Example
```json
{"role": "user", "parts": [{"functionResponse": {"id": "adk-7f3e…", "name": "search_trains", …}}]}
```
with no `functionCall` of that id anywhere before it.

## What it does not flag
With `previous_response_id`, a Responses `conversation`, or `item_reference` items (stored
items named by id, as the Vercel AI SDK replays its earlier tool calls), a result whose call is
not in the request answers the server-held part. A result cut off from its call by a reported `broken-parent-chain`.
A result answering a call of a pi assistant message that ended with `error` or `aborted` *is*
reported: pi never sends that call again. In an OpenClaw session (its header's `cwd` in an
OpenClaw workspace), the result `Tool NAME not found`, alone in its message, of a call to a
tool the run does not offer: OpenClaw's session guard
(`src/agents/session-tool-result-guard.ts`) writes the assistant message without that call
but keeps the result, and its pairing repair (`repairToolUseResultPairing`,
`src/agents/session-transcript-repair.ts`, on by default) drops the result before every
request: it is never sent. A tool result inside the model's own reply: a server-side tool's,
returned in the same response as its `server_tool_use` call (Z.ai's built-in `webReader`, as
Claude Code records it on that endpoint).
"#,
};

/// Reports orphan results in requests and transcripts.
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    if let Some((t, an)) = cx.transcript {
        // One entry may hold many orphans: unpack it (and read it again) once.
        let mut cached: Option<(u32, crate::model::Message)> = None;
        for p in an.pairing(input, t) {
            if let Pairing::Orphan { unit, block, second } = *p {
                let e = &t.entries[unit as usize];
                if cached.as_ref().map(|c| c.0) != Some(unit) {
                    let Some(m) = t.message(e) else { continue };
                    // A long result text is not kept in memory: read it again.
                    let full = m
                        .blocks
                        .iter()
                        .any(|b| b.text_dropped)
                        .then(|| t.full_message(e))
                        .flatten()
                        .filter(|r| r.blocks.len() == m.blocks.len());
                    cached = Some((unit, full.unwrap_or(m)));
                }
                let Some((_, m)) = &cached else { continue };
                let Some(b) = m.blocks.get(block as usize) else { continue };
                let openclaw =
                    input.format == crate::formats::pi_session::ID && t.header.as_ref().is_some_and(|h| h.openclaw);
                if !second && openclaw && m.blocks.len() == 1 && rejected_tool(b) {
                    continue;
                }
                let id = b.tool_id.as_deref().unwrap_or("");
                let what =
                    if second { "answers its call a second time" } else { "matches no earlier tool call on its path" };
                cx.report(
                    Finding::new(
                        RuleId::OrphanToolResult,
                        &input.path,
                        input.format,
                        format!("tool result for `{id}` {what}"),
                    )
                    .line(e.line)
                    .pointer(b.pointer.to_string())
                    .entry_id(e.id.as_deref())
                    .excerpt(b.text.to_string())
                    .key(format!("{id}:{second}"))
                    .help("drop the result together with its call, or keep both"),
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
                if let Pairing::Orphan { unit, block, second } = p {
                    let b = &r.messages[unit as usize].blocks[block as usize];
                    let id = b.tool_id.as_deref().unwrap_or("");
                    let rel = r.rel(&b.pointer);
                    if !memo.is_new(rel, id) {
                        continue;
                    }
                    let what = if second { "answers its call a second time" } else { "matches no earlier tool call" };
                    let mut f = Finding::new(
                        RuleId::OrphanToolResult,
                        &r.path,
                        input.format,
                        format!("tool result for `{id}` {what}"),
                    )
                    .pointer(r.at(&b.pointer))
                    .request(r.index)
                    .excerpt(b.text.to_string())
                    .key(format!("{id}:{second}"))
                    .help("drop the result together with its call, or keep both");
                    f.line = r.line;
                    cx.report(f);
                }
            }
        }
    }
}

/// OpenClaw's answer to a call of a tool the run does not offer, `Tool NAME
/// not found`, left without its call: the session guard
/// (`src/agents/session-tool-result-guard.ts`) drops such calls from the
/// assistant message it writes but keeps their results, and the pairing
/// repair (`repairToolUseResultPairing` in
/// `src/agents/session-transcript-repair.ts`) drops those results before
/// every request. (pi keeps the call of an unknown tool: its result is no orphan.)
fn rejected_tool(b: &crate::model::Block) -> bool {
    let name = b.tool_name.as_deref().unwrap_or("");
    // (The whole result: the block keeps a prefix of the first text only.)
    !name.is_empty()
        && b.text_len as usize == b.text.len()
        && b.text.trim().strip_prefix("Tool ").and_then(|r| r.strip_suffix(" not found")) == Some(name)
}
