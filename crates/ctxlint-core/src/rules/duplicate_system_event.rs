//! CTX101 `duplicate-system-event`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::dup::{self, Dupes, Occ, StreamMemo};
use crate::config::{EVENT_TEXT_MIN, Settings};
use crate::finding::{Finding, Severity};
use crate::hash::hash_str;
use foldhash::{HashSet, HashSetExt};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX101",
    name: "duplicate-system-event",
    default_severity: Severity::Error,
    summary: "a system event is rendered twice or more in one request or one step",
    docs: r#"## What it finds
A system event (a line such as `System: [2026-06-20 09:14:02 UTC] Slack DM from user-a`)
rendered twice or more in one request, or in the context of one step of a transcript:
the same label line repeats, or the event text it carries (16 characters or more) appears
again as a line or paragraph of its own, e.g. inside a wrapper or a runtime-context
carrier. The label pattern is configurable (`event-patterns` in `ctxlint.toml`; default
`^System(?: \(untrusted\))?: \[[^\]]+\] .+$`).

## Why it matters
The model sees the event twice and treats it as two events: it answers twice, or reasons
about a repeated notification that never happened.

## Example
```
user:  System: [2026-06-20 09:14:02 UTC] Slack DM from user-a
       can you check the deploy?
user:  OpenClaw runtime context …
       System: [2026-06-20 09:14:02 UTC] Slack DM from user-a   <- reported here
```

## What it does not flag
The same label in two *different* requests (history is re-sent every step); two label
lines with different timestamps (two events); a label in a runtime-context carrier of an
older turn (carriers are prompt-local, stripped from later steps); the labels of a user
turn replayed after a failed attempt, which repeat those of its earlier copy (the replay is
reported once, by `duplicate-user-turn`); tool results and assistant text. Each later copy is reported once, with the first copy as related.
"#,
};

enum Item<'a> {
    Label { line: &'a str, event: Option<&'a str> },
    Bare(&'a str),
}

/// The event texts of the label lines of `text` (the first pass of a transcript).
fn label_events<'a>(s: &Settings, text: &'a str) -> impl Iterator<Item = &'a str> {
    crate::text::lines(text).filter(|l| s.is_event_label(l)).filter_map(event_of)
}

/// The event text a label line carries, when long enough to match on.
fn event_of(line: &str) -> Option<&str> {
    line.find("] ").map(|k| line[k + 2..].trim()).filter(|e| e.chars().count() >= EVENT_TEXT_MIN)
}

/// The label lines, and the bare lines/paragraphs whose hash is an event hash.
fn items<'a>(s: &Settings, text: &'a str, events: Option<&HashSet<u64>>) -> Vec<Item<'a>> {
    let mut out = Vec::new();
    let mut bare = Vec::new();
    // With no event texts known, no bare line can match: labels only.
    let want_bare = events.is_none_or(|ev| !ev.is_empty());
    for line in crate::text::lines(text) {
        if s.is_event_label(line) {
            out.push(Item::Label { line, event: event_of(line) });
        } else if want_bare && line.len() >= EVENT_TEXT_MIN && line.chars().count() >= EVENT_TEXT_MIN {
            bare.push(line);
        }
    }
    for p in crate::text::paragraphs(text).filter(|_| want_bare) {
        if p.len() >= EVENT_TEXT_MIN && p.contains('\n') && p.chars().count() >= EVENT_TEXT_MIN {
            bare.push(p);
        }
    }
    for b in bare {
        if events.is_none_or(|ev| ev.contains(&hash_str(b))) {
            out.push(Item::Bare(b));
        }
    }
    out
}

const L: u64 = 0x4c;

fn key_label(line: &str) -> u64 {
    hash_str(line) ^ L
}

/// Checks transcripts (per step) and requests (per request).
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    let settings = cx.settings;
    if let Some((t, an)) = cx.transcript {
        // Pass 1: the event texts of every label, so that only matching bare lines are indexed.
        let mut events = HashSet::new();
        for e in &t.entries {
            for b in dup::prompt_blocks(t, e) {
                events.extend(label_events(settings, b.text()).map(hash_str));
            }
        }
        // A replayed user turn (CTX203) re-renders the labels of its earlier
        // copies: one defect, reported by `duplicate-user-turn`, not again here.
        let copies: foldhash::HashMap<u32, u32> = an.replays.iter().map(|r| (r.entry, r.previous)).collect();
        let is_earlier_copy = |mut at: u32, of: u32| {
            while let Some(&p) = copies.get(&at) {
                if p == of {
                    return true;
                }
                at = p;
            }
            false
        };
        let (mut labels, mut label_events, mut bare) = (Dupes::new(), Dupes::new(), Dupes::new());
        for (i, e) in t.entries.iter().enumerate() {
            for b in dup::prompt_blocks(t, e) {
                let occ = Occ { unit: i as u32, block: b.index };
                let mut reported = false;
                for it in items(settings, b.text(), Some(&events)) {
                    let (first, shown) = match it {
                        Item::Label { line, event } => {
                            let k = key_label(line);
                            let mut first = labels.find_in_transcript(t, &an.tree, k, occ, false);
                            labels.push(k, occ);
                            if let Some(ev) = event {
                                let k = hash_str(ev);
                                first = first.or_else(|| bare.find_in_transcript(t, &an.tree, k, occ, false));
                                label_events.push(k, occ);
                            }
                            (first, line)
                        }
                        Item::Bare(text) => {
                            let k = hash_str(text);
                            let first = label_events.find_in_transcript(t, &an.tree, k, occ, false);
                            bare.push(k, occ);
                            (first, text)
                        }
                    };
                    let first = first.filter(|f| !is_earlier_copy(i as u32, f.unit));
                    if let (Some(first), false) = (first, reported) {
                        reported = true;
                        let fe = &t.entries[first.unit as usize];
                        let fb = t.packed(fe).and_then(|m| m.blocks().nth(first.block as usize));
                        let fb_pointer = fb.map(|b| b.pointer).unwrap_or("");
                        cx.report(
                            Finding::new(
                                RuleId::DuplicateSystemEvent,
                                &input.path,
                                input.format,
                                format!("system event rendered again in the same step (first at line {})", fe.line),
                            )
                            .line(e.line)
                            .pointer(b.pointer.to_string())
                            .entry_id(e.id.as_deref())
                            .excerpt(shown.to_string())
                            .related(&input.path, Some(fe.line), fb_pointer.to_string(), "first occurrence")
                            .help(
                                "render each system event once per request; strip it from the runtime-context carrier",
                            ),
                        );
                    }
                }
            }
        }
    }
    if let Some(stream) = cx.stream {
        let mut memo = StreamMemo::new(stream, cx.conversation.links(stream));
        for r in &stream.requests {
            memo.next_request();
            let (mut labels, mut label_events, mut bare) = (Dupes::new(), Dupes::new(), Dupes::new());
            for (occ, b, _) in dup::request_units(r) {
                let mut reported = false;
                for it in items(settings, &b.text, None) {
                    let (first, shown) = match it {
                        Item::Label { line, event } => {
                            let k = key_label(line);
                            let mut first = labels.find_in_request(k, occ, false);
                            labels.push(k, occ);
                            if let Some(ev) = event {
                                let k = hash_str(ev);
                                first = first.or_else(|| bare.find_in_request(k, occ, false));
                                label_events.push(k, occ);
                            }
                            (first, line)
                        }
                        Item::Bare(text) => {
                            let k = hash_str(text);
                            let first = label_events.find_in_request(k, occ, false);
                            bare.push(k, occ);
                            (first, text)
                        }
                    };
                    if let (Some(first), false) = (first, reported) {
                        reported = true;
                        let ptr = r.at(&b.pointer);
                        let rel = ptr.strip_prefix(r.pointer.as_str()).unwrap_or(&ptr).to_string();
                        if !memo.is_new(&rel, shown) {
                            continue;
                        }
                        let mut f = Finding::new(
                            RuleId::DuplicateSystemEvent,
                            &r.path,
                            input.format,
                            "system event rendered again in the same request",
                        )
                        .pointer(ptr)
                        .request(r.index)
                        .excerpt(shown.to_string())
                        .related(&r.path, r.line, dup::unit_pointer(r, first), "first occurrence")
                        .help("render each system event once per request");
                        f.line = r.line;
                        cx.report(f);
                    }
                }
            }
        }
    }
}
