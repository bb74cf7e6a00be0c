//! CTX203 `duplicate-user-turn`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::dup::StreamMemo;
use crate::finding::{Finding, Severity};
use crate::model::*;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX203",
    name: "duplicate-user-turn",
    default_severity: Severity::Error,
    summary: "a user turn is written again after the attempt that answered it failed",
    docs: r#"## What it finds
A user turn written again right after the attempt that answered its previous copy failed,
with no other user turn between the two copies. The attempt failed when its last model call
ended with an error or aborted stop, was an API-error stub (Claude Code
`isApiErrorMessage`, model `<synthetic>`), when a tool result in it was synthetic or aborted
(OpenClaw `details.openclawSyntheticMissingToolResult`, result text exactly `aborted`), or
when a fallback model took over (the attempt did not end with a final text or a silent
token, and the next answer comes from a different provider/model) — even if that attempt
had already delivered a message-tool send. A warning when the failed attempt was only an
`aborted` stop with no fallback model taking over (often a person who stopped the run and
sent the text again); an error otherwise. Judged in write order.

A failed attempt with no assistant entry counts: OpenClaw writes a `custom` record with
`customType: "openclaw:prompt-error"` in its place (openclaw
`src/agents/pi-embedded-runner/run/attempt.ts`). Two copies are the same turn when their
texts are equal with per-message envelopes (OpenClaw's abort note `Note: The previous agent
run was aborted by the user. …` among them, `src/auto-reply/reply/body.ts`), system-event
label lines and timestamps aside (clock, date, weekday, AM/PM and time-zone words: the
heartbeat prompt's `Current time:` line, `src/agents/current-time.ts`).
A copy written more than 10 minutes after the failed attempt's last own entry — its last
model-side entry or error record, never a bookkeeping record such as the `model-snapshot`
(`src/agents/pi-embedded-runner/google.ts`) and `openclaw.cache-ttl`
(`src/agents/pi-embedded-runner/cache-ttl.ts`) records the next run writes just before its
prompt — or whose timestamps were rendered anew and that came more than 60 seconds after
it (a cron or heartbeat poll firing again), is a new turn, not a replay. A pi / OpenClaw
message is dated by its own `message.timestamp` (the entry's `timestamp` is written again
when OpenClaw rewrites a transcript).

In one recorded request (a cassette, an exchange log, a request body), a user turn equal to
the user turn just before it with no assistant message between them is a replay too: the
model reads the turn twice (crewAI re-appends the task after a failed or empty attempt).
Reported at the second copy, once per conversation. In a cassette, HAR or exchange log an
exchange whose response has an HTTP error status (or none) is a failed attempt.

## Why it matters
Retry and fallback paths that replay the user's message make the model answer the same
request twice: the user gets two replies, and tools with side effects run twice.

## Example
```
user       "summarise the incident"
assistant  stopReason: error (provider-a)
user       "summarise the incident"      <- reported
assistant  stopReason: stop (provider-b)
```

## What it does not flag
A user who repeats themselves after an attempt that ended normally; an entry written twice
byte for byte (`not-append-only`); a compaction's kept tail re-sent after the summary. In
Gemini CLI, the same words after the person cancelled a run in which the model had already
shown text (`yes` again to the model's next proposal, after declining a tool at its
confirmation): Gemini CLI never resends a turn itself, and the model's answer stays in its
history, so the words answer what it showed. A copy the person sent after stopping the run
that is a sibling of the first copy (the same parent: Claude Code's rewind, a pi tree branch):
a fork, on whose branch the model reads the turn once (a sibling copy after an error, a
synthetic result or a fallback model is the runtime's retry and is still reported). A short
instruction (at most 160 bytes: `keep going`) the person gives again after stopping a run
in which a tool call had completed: it asks again of a changed state (a whole task sent again
after such a run is still a warning: the model reads the task twice). In a recorded request,
two user turns whose texts are only a redaction placeholder (`REDACTED`, `[REDACTED]`,
`<FILTERED>`): the recording's texts were replaced before it was committed, so nothing says
the two turns were the same.
"#,
};

/// Whether `text` is only a redaction placeholder (`REDACTED`, `[REDACTED]`,
/// `<FILTERED>`, `***scrubbed***`, any case): a recording whose texts were
/// replaced before it was committed. Two such turns are equal only because
/// their words were removed, so they are not compared as copies.
fn is_redaction_placeholder(text: &str) -> bool {
    let word = text
        .trim()
        .trim_matches(|c: char| matches!(c, '[' | ']' | '<' | '>' | '*' | '_' | '{' | '}' | '(' | ')' | '#'));
    ["redacted", "filtered", "scrubbed"].iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// A user turn's content, for comparing two copies: its texts trimmed and
/// the canonical hashes of its other blocks (images, files).
fn turn_key(m: &Message) -> (Vec<&str>, Vec<u64>) {
    let texts = m.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| b.text.trim()).collect();
    let other = m.blocks.iter().filter(|b| b.kind != BlockKind::Text).map(|b| b.json_hash).collect();
    (texts, other)
}

/// In one recorded request, a user turn equal to the user turn just before
/// it with no assistant message between them (docs/spec.md §2 CTX203): the model
/// reads the turn twice. Reported at the second copy, once per conversation
/// (a later request re-sending the pair is the same copy).
fn check_stream(cx: &mut RuleContext, stream: &Stream) {
    let input = cx.input;
    let links = cx.conversation.links(stream);
    let mut memo = StreamMemo::new(stream, cx.conversation.links(stream));
    for (j, r) in stream.requests.iter().enumerate() {
        memo.next_request();
        let mut prev: Option<&Message> = None;
        for m in &r.messages {
            match m.kind {
                MessageKind::UserTurn => {}
                _ if m.role == Role::Assistant => {
                    prev = None;
                    continue;
                }
                _ => continue,
            }
            let key = turn_key(m);
            let empty = key.0.iter().all(|t| t.is_empty() || is_redaction_placeholder(t)) && key.1.is_empty();
            if let Some(p) = prev.filter(|p| !empty && turn_key(p) == key) {
                let rel = r.rel(&m.pointer).to_string();
                if memo.is_new(&rel, "duplicate-user-turn") {
                    let failed = links[j]
                        .prev()
                        .filter(|&i| matches!(stream.requests[i].outcome, Some(Outcome::PromptError | Outcome::Failed)))
                        .map(|i| format!(" (request {}'s exchange failed)", stream.requests[i].index))
                        .unwrap_or_default();
                    let text = m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<_>>().join("\n");
                    let mut f = Finding::new(
                        RuleId::DuplicateUserTurn,
                        &r.path,
                        input.format,
                        format!(
                            "this user turn is sent again right after its previous copy, with no assistant reply between them: the model reads it twice{failed}"
                        ),
                    )
                    .pointer(r.at(&m.pointer))
                    .request(r.index)
                    .excerpt(text)
                    .related(&r.path, r.line, r.at(&p.pointer), "previous copy")
                    .help("on retry, re-send the request as it was instead of appending the user message again");
                    f.line = r.line;
                    cx.report(f);
                }
            }
            prev = Some(m);
        }
    }
}

/// Reports the replays found by the analysis.
pub fn check(cx: &mut RuleContext) {
    if let Some(stream) = cx.stream {
        check_stream(cx, stream);
    }
    let input = cx.input;
    let Some((t, an)) = cx.transcript else { return };
    for r in &an.replays {
        let e = &t.entries[r.entry as usize];
        let p = &t.entries[r.previous as usize];
        let text = t
            .message(e)
            .map(|m| m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        let sev = if r.aborted_only { Severity::Warning } else { Severity::Error };
        cx.report(
            Finding::new(
                RuleId::DuplicateUserTurn,
                &input.path,
                input.format,
                format!("user turn from line {} written again: {}", p.line, r.why),
            )
            .severity(sev)
            .line(e.line)
            .pointer(t.message(e).map(|m| m.pointer.to_string()).unwrap_or_default())
            .entry_id(e.id.as_deref())
            .excerpt(text)
            .related(&input.path, Some(p.line), "", "previous copy")
            .help("on retry or fallback, re-run the existing turn instead of appending the user message again"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::is_redaction_placeholder;

    #[test]
    fn redaction_placeholders_are_recognised_and_words_are_not() {
        for t in ["REDACTED", " [REDACTED] ", "<FILTERED>", "***scrubbed***", "redacted", "{REDACTED}"] {
            assert!(is_redaction_placeholder(t), "{t}");
        }
        for t in ["", "REDACTED the file", "please redact it", "[REDACTED] and more", "filter"] {
            assert!(!is_redaction_placeholder(t), "{t}");
        }
    }
}
