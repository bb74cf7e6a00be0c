//! CTX102 `duplicate-context-block`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::dup::{self, Dupes, Occ, StreamMemo};
use crate::config::Settings;
use crate::finding::{Finding, Severity};
use crate::hash::hash_str;
use crate::model::*;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX102",
    name: "duplicate-context-block",
    default_severity: Severity::Warning,
    summary: "the same injected context block occurs in two messages of one request or step",
    docs: r#"## What it finds
A context block that occurs verbatim in two different user, system or developer messages of
one request, or of one step's context: a paragraph of 64 characters or more (configurable
with `context-block-min`), a `<system-reminder>…</system-reminder>` block, or injected hook
context.

## Why it matters
Runtimes that inject context (reminders, memory, skills lists, hook output) into every user
message re-send the same block many times per request: tokens are paid again on every step,
and the model may treat the repetition as emphasis.

## Example
```
user: <system-reminder>Skills available: changelog-writer</system-reminder> fix the build
assistant: …
user: <system-reminder>Skills available: changelog-writer</system-reminder> and the docs   <- reported
```

## What it does not flag
Tool results and assistant text; per-message envelope blocks that a runtime attaches to
every user message by design (OpenClaw `Sender (untrusted metadata)` / `Conversation info
(untrusted metadata)`); text a more specific rule reports (system events, system prompts);
a user turn that repeats an earlier user turn whole (a person repeating themselves, or a
`duplicate-user-turn`); runtime-context carriers of older turns (stripped from later steps).
"#,
};

/// The context blocks of a text: `<system-reminder>` blocks and long paragraphs.
fn blocks<'a>(s: &Settings, text: &'a str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find("<system-reminder>") {
        match rest[a..].find("</system-reminder>") {
            Some(z) => {
                out.push(rest[a..a + z + 18].trim());
                rest = &rest[a + z + 18..];
            }
            None => break,
        }
    }
    for p in crate::text::paragraphs(text) {
        if p.chars().count() < s.context_block_min
            || p.contains("<system-reminder>")
            || p.contains("</system-reminder>")
        {
            continue;
        }
        let first_line = p.lines().next().unwrap_or("");
        if first_line.trim_end().ends_with("(untrusted metadata):") || first_line.contains("(untrusted metadata)") {
            continue; // per-message envelope block
        }
        if p.lines().any(|l| s.is_event_label(l.trim())) {
            continue; // a system event: CTX101's
        }
        out.push(p);
    }
    out
}

/// Whether two occurrences are text another rule owns (two equal system
/// prompts: CTX103), or a whole repeated user turn (a person repeating themselves).
/// Each occurrence is (message kind, hash of the block's text, hash of the message's texts).
fn exempt(a: (MessageKind, u64, u64), b: (MessageKind, u64, u64)) -> bool {
    if a.0 == MessageKind::SystemPrompt && b.0 == MessageKind::SystemPrompt {
        return a.1 == b.1;
    }
    a.0 == MessageKind::UserTurn && b.0 == MessageKind::UserTurn && a.2 == b.2
}

fn message_hash(texts: impl Iterator<Item = (BlockKind, u64)>) -> u64 {
    texts.filter(|b| b.0 == BlockKind::Text).fold(0xcbf29ce484222325u64, |h, b| (h ^ b.1).wrapping_mul(0x100000001b3))
}

fn facts(m: &Message, b: &Block) -> (MessageKind, u64, u64) {
    (m.kind, b.text_hash, message_hash(m.blocks.iter().map(|b| (b.kind, b.text_hash))))
}

/// Checks requests and transcript steps.
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    let settings = cx.settings;
    if let Some((t, an)) = cx.transcript {
        let replayed: foldhash::HashSet<u32> = an.replays.iter().map(|r| r.entry).collect();
        let mut seen = Dupes::new();
        for (i, e) in t.entries.iter().enumerate() {
            let mut reported = false;
            let pm = dup::prompt_message(t, e);
            for (j, b, m) in dup::entry_blocks(pm.as_ref()) {
                let occ = Occ { unit: i as u32, block: j };
                for cb in blocks(settings, &b.text) {
                    let k = hash_str(cb);
                    let first = seen.find_in_transcript(t, &an.tree, k, occ, true);
                    seen.push(k, occ);
                    let Some(first) = first else { continue };
                    if reported || replayed.contains(&(i as u32)) {
                        continue;
                    }
                    // The first occurrence, read in place (it may be large and repeated often).
                    let fe = &t.entries[first.unit as usize];
                    let Some(fm) = t.packed(fe) else { continue };
                    let Some(fb) = fm.blocks().nth(first.block as usize) else { continue };
                    let first_facts =
                        (fm.kind(), fb.text_hash, message_hash(fm.blocks().map(|b| (b.kind, b.text_hash))));
                    if exempt(first_facts, facts(m, b)) {
                        continue;
                    }
                    reported = true;
                    cx.report(
                        Finding::new(
                            RuleId::DuplicateContextBlock,
                            &input.path,
                            input.format,
                            format!("context block already in this step's context (line {})", fe.line),
                        )
                        .line(e.line)
                        .pointer(b.pointer.to_string())
                        .entry_id(e.id.as_deref())
                        .excerpt(cb.to_string())
                        .related(&input.path, Some(fe.line), fb.pointer.to_string(), "first occurrence")
                        .help("inject each context block once per request"),
                    );
                }
            }
        }
    }
    if let Some(stream) = cx.stream {
        let mut memo = StreamMemo::new(stream);
        for r in &stream.requests {
            memo.next_request();
            let mut seen = Dupes::new();
            let units = dup::request_units(r);
            for (occ, b, m) in &units {
                let mut reported = false;
                for cb in blocks(settings, &b.text) {
                    let k = hash_str(cb);
                    let first = seen.find_in_request(k, *occ, true);
                    seen.push(k, *occ);
                    let Some(first) = first else { continue };
                    if reported {
                        continue;
                    }
                    let fb = dup::unit_block(r, first);
                    let fm = units.iter().find(|u| u.0 == first).and_then(|u| u.2);
                    if let (Some(fm), Some(m)) = (fm, m) {
                        if exempt(facts(fm, fb), facts(m, b)) {
                            continue;
                        }
                    }
                    if fm.is_none() && m.is_none() {
                        continue; // two system slot parts: CTX103's
                    }
                    reported = true;
                    let ptr = b.pointer.to_string();
                    let rel = ptr.strip_prefix(r.pointer.as_str()).unwrap_or(&ptr).to_string();
                    if !memo.is_new(&rel, cb) {
                        continue;
                    }
                    let mut f = Finding::new(
                        RuleId::DuplicateContextBlock,
                        &r.path,
                        input.format,
                        "context block already sent in this request",
                    )
                    .pointer(ptr)
                    .request(r.index)
                    .excerpt(cb.to_string())
                    .related(&r.path, r.line, dup::unit_pointer(r, first), "first occurrence")
                    .help("inject each context block once per request");
                    f.line = r.line;
                    cx.report(f);
                }
            }
        }
    }
}
