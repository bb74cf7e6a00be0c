//! CTX201 `dropped-system-prompt`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::finding::{Finding, Severity};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX201",
    name: "dropped-system-prompt",
    default_severity: Severity::Error,
    summary: "a system prompt in request k is gone from request k+1 of the same conversation",
    docs: r#"## What it finds
A system prompt or instructions text present in request (or history snapshot) k that is
gone from request k+1 continuing the same conversation: its slot, message or part is absent
in k+1. A warning when a per-request slot (`instructions`, top-level `system`,
`systemInstruction`) is absent at a new user turn; an error otherwise — a system message or
system-prompt part among the messages that vanishes is an error even at a new user turn.
A request chained to k's response (`previous_response_id`) that sends k's user prompt again
with its tool results asks nothing new: not a new user turn.

Reported on request k+1 with pointer `""` (in a cassette or exchange log, the pointer of
request k+1's body); the related location is the prompt in request k.

## Why it matters
Mid-run steering, compaction summaries and reminders that the server added as system
prompts silently vanish from the next request: the model takes the next step without the
instruction it was given.

## Example
`req1.json` sends `instructions`; `req2.json` chains to it with `previous_response_id` and
sends no `instructions`: reported on `req2.json`, pointer `""`.

## What it does not flag
A new conversation; a compaction boundary; a prompt replaced in place by other text (that
is a change: `history-rewrite`); a pydantic-ai dynamic prompt re-rendered in place
(`dynamic_ref`); per-run instructions or a system message replaced at a new user turn (also
by one placed further on, after the history, as Cohere's chat order puts it: a `history-rewrite`
warning); a
slot prompt whose text (at least half of it, cut at a word) is sent in a message of the
next request under another framing (a summariser given the running summary in its
instruction); a one-shot question asked again without tools or system prompt after it was
answered, carrying nothing of that answer (the same question put to the model as a call of
its own, a client test's next setting — a chat app's first turn regenerated without its prompt
is missed for it), or in a request-body file of its own after one that sent it with a system
prompt (no reply is recorded: two tests' expected bodies); a request that sends an earlier
request's history again, whole, and only the beginning of a later one's, carrying none of the
later one's reply, is compared with the earlier one (the request whose history it extends
furthest: a VCR cassette's next test run, appended after the cycles of a run whose later
requests added a running-summary system message); and a request that sends again the history
of a request whose conversation had gone on (a later request carried its reply) is a run
started again from that point, compared with the request whose whole history and reply it
carries (a cassette's next run, whose first request matched a recorded one and was replayed,
not recorded again) — a retry of a request that did not go on is still compared with it.
Transcripts' rebuilt steps are not compared (a rebuilt path can only fork).
"#,
};

/// Compares consecutive requests of a stream (see `crate::conversation`).
pub fn check(cx: &mut RuleContext) {
    let Some(stream) = cx.stream else { return };
    let input = cx.input;
    for pair in cx.conversation.pairs(stream) {
        let (a, b) = (&stream.requests[pair.prev], &stream.requests[pair.cur]);
        for d in &pair.dropped {
            let (what, severity) = match d.slot {
                Some(kind) if pair.new_user_turn => (
                    format!("the `{}` sent with request {} is missing at this new user turn", kind.as_str(), a.index),
                    Severity::Warning,
                ),
                Some(kind) => (
                    format!(
                        "the `{}` sent with request {} is missing from this continuation of its conversation",
                        kind.as_str(),
                        a.index
                    ),
                    Severity::Error,
                ),
                None => (
                    format!(
                        "{} sent among the messages of request {} vanished from this continuation of its conversation",
                        if d.standing { "the standing system prompt" } else { "a mid-run system prompt" },
                        a.index
                    ),
                    Severity::Error,
                ),
            };
            let mut f = Finding::new(RuleId::DroppedSystemPrompt, &b.path, input.format, what)
                .pointer(b.pointer.clone())
                .request(b.index)
                .severity(severity)
                .excerpt(d.text.clone())
                .related(&a.path, a.line, d.pointer.clone(), format!("the prompt in request {}", a.index))
                .help("send the system prompt with every request of the conversation (per-request slots are not carried over)");
            f.line = b.line;
            // The cache breaks where the prompt was: what request k sent from there on.
            let bytes = match d.slot {
                Some(_) => {
                    a.slots.iter().flat_map(|s| &s.parts).map(|p| p.text.len() as u64).sum::<u64>()
                        + a.messages.iter().map(|m| m.text_bytes()).sum::<u64>()
                }
                None => {
                    let at = a.messages.iter().position(|m| a.held(&d.pointer).starts_with(&*m.pointer)).unwrap_or(0);
                    a.messages[at..].iter().map(|m| m.text_bytes()).sum()
                }
            };
            f = f.effect(crate::impact::Effect::CacheBreak { bytes, before: a.index });
            cx.report(f);
        }
    }
}
