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
re-added at each step of a run. Also one text that is two or more copies of one prompt of
at least 200 characters joined by whitespace (a `systemInstruction` or `system` text, as a
runtime that concatenates its system messages writes it: crewAI's Gemini provider joins
every system message into `systemInstruction`, and after a retry holds the prompt twice),
reported once at that text; a short text repeated over and over, or a prompt written more
than four times over from the first request that holds it (padding to reach a prompt-cache
minimum, as test suites write it), is not such copies (copies that grow from request to
request are).

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
its own); empty prompts. Each later copy is reported once, with the first as related. In a
Codex rollout, the developer messages Codex writes whole again to re-establish its context
on a resume or a rollback (the run of permissions, collaboration-mode, `AGENTS.md` and
environment messages, the mode the one in force then; openai/codex #8990, #27836) are
compared only within their own run,
and so are the settings updates Codex writes when a setting changed — the collaboration
mode, the `<model_switch>` instructions, the permissions — when the `turn_context` records
before and after them show that setting changed (the mode carries the model and reasoning
effort, so its text comes again after Plan mode and back, on an effort change or a `/model`
switch: `updates.rs`), and a plugin's ``Capabilities from the `…` plugin`` hint for each
@mention (`plugins/injection.rs`): those are compared within their own turn (the same update
twice in one turn, or with nothing changed, is still reported). A system message that is a
runtime's record of a command it ran — AutoGPT's `Command <name> returned: …`
(`autogpt/agent/agent.py`, `history.add("system", result, "action_result")`) — is a tool
result: two runs with the same output are not a prompt sent twice.
"#,
};

/// The system-prompt texts of a request: (occurrence, JSON Pointer in the file, text).
fn request_prompts(r: &Request) -> Vec<(Occ, String, String)> {
    let mut out = Vec::new();
    for (occ, b, m) in dup::request_units(r) {
        let is_system = m.is_none_or(|m| m.kind == MessageKind::SystemPrompt);
        if is_system {
            out.push((occ, r.at(&b.pointer), b.text.to_string()));
        } else {
            for seg in system_tags(&b.text) {
                out.push((occ, r.at(&b.pointer), seg.to_string()));
            }
        }
    }
    out
}

/// Shortest prompt a repeated copy is judged on (docs/spec.md §2 CTX103).
const MIN_COPY: usize = 200;

/// Most copies of a prompt in one text judged without an earlier request
/// holding fewer (a join after a retry or two); more, from the first request
/// on, is padding.
const MAX_JOINED: usize = 4;

/// When `text` is two or more copies of one prompt of at least [`MIN_COPY`]
/// characters joined by whitespace — as a runtime that concatenates its
/// system messages into one slot writes it (crewAI's Gemini provider joins
/// every system message into `systemInstruction` and, after a retry, holds
/// the prompt twice) — the prompt and the number of copies.
pub fn repeated_copies(text: &str) -> Option<(&str, usize)> {
    let text = text.trim();
    if text.len() < 2 * MIN_COPY || crate::text::is_repeated_unit(text.as_bytes(), MIN_COPY) {
        return None;
    }
    // The second copy starts after whitespace with the first copy's opening.
    let probe = &text.as_bytes()[..64.min(text.len())];
    let finder = memchr::memmem::Finder::new(probe);
    let mut from = MIN_COPY;
    while let Some(k) = finder.find(&text.as_bytes()[from.min(text.len())..]) {
        let at = from + k;
        from = at + 1;
        if !text.as_bytes()[at - 1].is_ascii_whitespace() || !text.is_char_boundary(at) {
            continue;
        }
        let copy = text[..at].trim_end();
        if copy.chars().count() < MIN_COPY {
            continue;
        }
        let (mut rest, mut n) = (text, 0);
        while let Some(r) = rest.strip_prefix(copy) {
            n += 1;
            if r.is_empty() {
                return (n >= 2).then_some((copy, n));
            }
            if !r.starts_with(char::is_whitespace) {
                break;
            }
            rest = r.trim_start();
        }
    }
    None
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
        let mut memo = StreamMemo::new(stream, cx.conversation.links(stream));
        // The fewest copies each repeated prompt was first seen with (by hash).
        let mut first_copies: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
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
                // A prompt written many times over from the first request that
                // holds it is filler an author wrote to reach a prompt-cache
                // minimum (`<<~INSTRUCTIONS * 150`); a runtime that joins its
                // system messages writes a few copies, or more as a run goes on.
                let copies = repeated_copies(text).filter(|&(copy, n)| {
                    let first = *first_copies.entry(hash_str(copy)).or_insert(n);
                    n <= MAX_JOINED || first < n
                });
                if let Some((copy, n)) = copies {
                    let rel = ptr.strip_prefix(r.pointer.as_str()).unwrap_or(&ptr).to_string();
                    if memo.is_new(&rel, &format!("copies\0{copy}")) {
                        let mut f = Finding::new(
                            RuleId::DuplicateSystemPrompt,
                            &r.path,
                            input.format,
                            format!(
                                "this system prompt text holds the same prompt ({} characters) {n} times, joined by whitespace",
                                copy.chars().count()
                            ),
                        )
                        .pointer(ptr.clone())
                        .request(r.index)
                        .excerpt(copy.to_string())
                        .related(&r.path, r.line, ptr.clone(), "first copy (at the start of this text)")
                        .help("join each system message into the slot once; do not re-add it on retry")
                        // Every copy after the first is extra, not one.
                        .effect(crate::impact::Effect::Added { bytes: ((n - 1) * copy.len()) as u64 });
                        f.line = r.line;
                        cx.report(f);
                    }
                }
            }
        }
    }
    if let Some((t, an)) = cx.transcript {
        let base = t
            .base_instructions
            .as_ref()
            .map(|m| m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<_>>().join("\n"));
        let base_key = base.as_deref().map(str::trim).filter(|b| !b.is_empty()).map(hash_str);
        // Codex re-establishes its baseline in a burst of context messages:
        // a copy is looked for only inside the same burst.
        let bursts = an.context_bursts(input, t);
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
                    let burst = bursts.map(|b| b[i]).filter(|&b| b != u32::MAX);
                    match burst {
                        Some(start) => seen.first_in_units(k, start, i as u32 + 1).0,
                        None => seen.find_in_transcript(t, &an.tree, k, occ, false),
                    }
                    .map(|f| {
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
                        .related(&input.path, Some(line), ptr, "first copy")
                        .help("record each system prompt once; do not write it again while it is in context"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn repeated_copies_in_one_text() {
        let p = (0..30).map(|i| format!("Rule {i} applies.")).collect::<Vec<_>>().join(" ");
        let p = p.as_str();
        assert_eq!(super::repeated_copies(&format!("{p}\n{p}")), Some((p, 2)));
        assert_eq!(super::repeated_copies(&format!("{p}\n\n{p} {p}\n")), Some((p, 3)));
        // Not whole copies, too short, or not separated by whitespace.
        assert_eq!(super::repeated_copies(&format!("{p}\n{p} and more")), None);
        assert_eq!(super::repeated_copies("short prompt\nshort prompt"), None);
        assert_eq!(super::repeated_copies(&format!("{p}{p}")), None);
        assert_eq!(super::repeated_copies(p), None);
        // A short line repeated to pad a prompt past a cache minimum: not copies of a prompt.
        assert_eq!(super::repeated_copies(&"YOU MUST RESPONSE ONLY WITH SINGLE NUMBER\n".repeat(100)), None);
    }

    #[test]
    fn finds_system_tags() {
        assert_eq!(super::system_tags("a <system>x</system> b <system> y </system>"), vec!["x", "y"]);
    }
}
