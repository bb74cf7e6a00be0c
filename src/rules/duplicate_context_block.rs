//! CTX102 `duplicate-context-block`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::dup::{self, Dupes, Occ};
use crate::config::Settings;
use crate::finding::{Finding, Severity};
use crate::hash::hash_str;
use crate::model::*;
use regex::Regex;
use std::sync::LazyLock;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX102",
    name: "duplicate-context-block",
    default_severity: Severity::Warning,
    summary: "the same injected context block occurs in two messages of one request or step",
    docs: r#"## What it finds
A block of injected context that occurs verbatim in two or more different user, system or
developer messages of one request, or of one step's context: a paragraph of 64 characters
or more (configurable with `context-block-min`), a `<system-reminder>…</system-reminder>`
block, injected hook context, a runtime notice, recorded instructions or environment
context (Codex re-recording `AGENTS.md` or `<environment_context>`), or one event delivered
twice. **One finding per distinct block per input** (stream or transcript), at its second
copy in context, saying how many copies the fullest context holds; `related` points at the
first copy.

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
- tool results and assistant text;
- the latest compaction summary (earlier summaries are not in context at all);
- a recurring prompt: a user turn whose text, per-message envelopes and timestamps aside,
  equals an earlier user turn's (heartbeat polls, cron triggers, a person repeating
  themselves), and a user turn reported by `duplicate-user-turn`;
- per-event wrapper text a runtime puts around every event of a kind by design (the
  built-in list below, with the upstream source of each), and text matching a
  `context-block-allow` pattern in `ctxlint.toml`;
- text a more specific rule reports (system events: CTX101; system prompts: CTX103);
- runtime-context carriers of older turns (stripped from later steps).

## Built-in wrappers
{wrappers}
"#,
};

/// Per-event wrapper text that a runtime puts around every event of a kind by
/// design (SPEC §2 CTX102): a context block matching one of these patterns
/// (the whole block, after trimming) is not a duplicate.
#[derive(Debug)]
pub struct Wrapper {
    /// The runtime that writes it.
    pub runtime: &'static str,
    /// What it is.
    pub what: &'static str,
    /// Regex matched against the whole block.
    pub pattern: &'static str,
    /// The upstream file the text follows.
    pub source: &'static str,
}

/// The built-in wrappers, per runtime.
pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        runtime: "OpenClaw",
        what: "per-message envelopes: `Sender (untrusted metadata):`, `Conversation info (untrusted metadata):`, `Replied message (untrusted, for context):` and the other untrusted-context blocks, each a label line and a fenced JSON block",
        pattern: r"(?s)^[^\n]*\(untrusted[^\n]*\):\s*(?:```.*)?$",
        source: "openclaw/openclaw src/auto-reply/reply/inbound-meta.ts",
    },
    Wrapper {
        runtime: "Claude Code",
        what: "the `<local-command-caveat>` note written before the output of a local command",
        pattern: r"(?s)^<local-command-caveat>.*</local-command-caveat>$",
        source: "Claude Code session files (`isMeta` user records); shapes as parsed by daaain/claude-code-log claude_code_log/parser.py",
    },
    Wrapper {
        runtime: "Claude Code",
        what: "command and command-output blocks: `<command-name>`, `<command-message>`, `<command-args>`, `<local-command-stdout>`, `<local-command-stderr>`, `<bash-input>`, `<bash-stdout>`, `<bash-stderr>` (two runs of one command give equal output by design)",
        pattern: r"(?s)^(?:\s*<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr)>.*?</(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr)>)+\s*$",
        source: "Claude Code session files (slash commands and `!` shell commands); shapes as parsed by daaain/claude-code-log claude_code_log/parser.py",
    },
];

static WRAPPER_RES: LazyLock<Vec<Regex>> =
    LazyLock::new(|| WRAPPERS.iter().map(|w| Regex::new(w.pattern).expect("built-in wrapper pattern")).collect());

/// Whether a context block is built-in wrapper text or matches a configured
/// `context-block-allow` pattern.
fn allowed(s: &Settings, block: &str) -> bool {
    WRAPPER_RES.iter().any(|r| r.is_match(block)) || s.context_block_allow.iter().any(|r| r.is_match(block))
}

/// The built-in wrapper list as Markdown (shown by `ctxlint rule duplicate-context-block`).
pub fn wrappers_markdown() -> String {
    let mut out = String::from("| runtime | wrapper | source |\n|---|---|---|\n");
    for w in WRAPPERS {
        out.push_str(&format!("| {} | {} | `{}` |\n", w.runtime, w.what.replace('|', "\\|"), w.source));
    }
    out
}

/// The context blocks of a text: `<system-reminder>` blocks and long
/// paragraphs, without envelope and wrapper text and without system events
/// (CTX101's).
fn blocks<'a>(s: &Settings, text: &'a str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find("<system-reminder>") {
        match rest[a..].find("</system-reminder>") {
            Some(z) => {
                let b = rest[a..a + z + 18].trim();
                if !allowed(s, b) {
                    out.push(b);
                }
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
        if p.lines().next().is_some_and(|l| l.contains("(untrusted metadata)")) || allowed(s, p) {
            continue; // per-message envelope or wrapper text
        }
        if p.lines().any(|l| s.is_event_label(l.trim())) {
            continue; // a system event: CTX101's
        }
        out.push(p);
    }
    out
}

/// A finding waiting for its count: the first in-context repeat of a block,
/// and the most copies one context held.
struct Pending {
    finding: Finding,
    copies: u32,
}

/// One finding per distinct block per input, in the order first found.
#[derive(Default)]
struct PerBlock {
    by_key: foldhash::HashMap<u64, usize>,
    list: Vec<Pending>,
}

impl PerBlock {
    /// Records `copies` copies of block `key` in one context; `make` builds
    /// the finding the first time.
    fn note(&mut self, key: u64, copies: u32, make: impl FnOnce() -> Finding) {
        match self.by_key.get(&key) {
            Some(&i) => self.list[i].copies = self.list[i].copies.max(copies),
            None => {
                self.by_key.insert(key, self.list.len());
                self.list.push(Pending { finding: make(), copies });
            }
        }
    }

    fn report(self, cx: &mut RuleContext) {
        for p in self.list {
            let mut f = p.finding;
            f.message = format!("{} ({} copies in the fullest context)", f.message, p.copies);
            cx.report(f);
        }
    }
}

/// Checks requests and transcript steps.
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    let settings = cx.settings;
    let mut found = PerBlock::default();
    if let Some((t, an)) = cx.transcript {
        let replayed: foldhash::HashSet<u32> = an.replays.iter().map(|r| r.entry).collect();
        // Normalised texts of the user turns so far: a user turn equal to an
        // earlier one is a recurring prompt.
        let mut turns: foldhash::HashSet<u64> = Default::default();
        let mut seen = Dupes::new();
        for (i, e) in t.entries.iter().enumerate() {
            let pm = dup::prompt_message(t, e);
            let Some(m) = pm.as_ref() else { continue };
            if m.kind == MessageKind::CompactionSummary {
                continue; // the latest summary is exempt; earlier ones are not in context
            }
            let recurring = m.kind == MessageKind::UserTurn
                && !turns.insert(crate::analysis::turns::key(
                    m.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| b.text.as_ref()),
                ));
            let quiet = recurring || replayed.contains(&(i as u32));
            for (j, b, m) in dup::entry_blocks(pm.as_ref()) {
                let occ = Occ { unit: i as u32, block: j };
                for cb in blocks(settings, &b.text) {
                    let k = hash_str(cb);
                    let (first, copies) = seen.copies_in_transcript(t, &an.tree, k, occ);
                    seen.push(k, occ);
                    let Some(first) = first else { continue };
                    if quiet {
                        continue;
                    }
                    // The first occurrence, read in place (it may be large and repeated often).
                    let fe = &t.entries[first.unit as usize];
                    let Some(fm) = t.packed(fe) else { continue };
                    let Some(fb) = fm.blocks().nth(first.block as usize) else { continue };
                    if fm.kind() == MessageKind::SystemPrompt && m.kind == MessageKind::SystemPrompt {
                        continue; // two equal system prompts: CTX103's
                    }
                    found.note(k, copies + 1, || {
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
                        .help("inject each context block once per request")
                    });
                }
            }
        }
    }
    if let Some(stream) = cx.stream {
        for r in &stream.requests {
            let mut seen = Dupes::new();
            let mut counts: foldhash::HashMap<u64, u32> = Default::default();
            let mut firsts: Vec<(u64, Occ, Occ, String)> = Vec::new();
            let units = dup::request_units(r);
            // A user turn equal to an earlier one (normalised) is a recurring prompt.
            let mut turns: foldhash::HashSet<u64> = Default::default();
            let recurring: Vec<bool> = r
                .messages
                .iter()
                .map(|m| {
                    m.kind == MessageKind::UserTurn
                        && !turns.insert(crate::analysis::turns::key(
                            m.blocks.iter().filter(|b| b.kind == BlockKind::Text).map(|b| b.text.as_ref()),
                        ))
                })
                .collect();
            for (occ, b, m) in &units {
                let recurring = occ.unit & dup::SLOT == 0 && recurring.get(occ.unit as usize) == Some(&true);
                for cb in blocks(settings, &b.text) {
                    let k = hash_str(cb);
                    let first = seen.find_in_request(k, *occ, true);
                    let fresh_unit = !seen.has_unit(k, occ.unit);
                    seen.push(k, *occ);
                    if fresh_unit {
                        *counts.entry(k).or_default() += 1;
                    }
                    let Some(first) = first else { continue };
                    if recurring {
                        continue;
                    }
                    let fm = units.iter().find(|u| u.0 == first).and_then(|u| u.2);
                    let system = |m: Option<&Message>| m.is_none_or(|m| m.kind == MessageKind::SystemPrompt);
                    if system(fm) && system(*m) {
                        continue; // two system prompts or slot parts: CTX103's
                    }
                    if !firsts.iter().any(|f| f.0 == k) {
                        firsts.push((k, first, *occ, cb.to_string()));
                    }
                }
            }
            for (k, first, occ, text) in firsts {
                let copies = counts.get(&k).copied().unwrap_or(2);
                found.note(k, copies, || {
                    let mut f = Finding::new(
                        RuleId::DuplicateContextBlock,
                        &r.path,
                        input.format,
                        "context block already sent in this request",
                    )
                    .pointer(dup::unit_pointer(r, occ))
                    .request(r.index)
                    .excerpt(text)
                    .related(&r.path, r.line, dup::unit_pointer(r, first), "first occurrence")
                    .help("inject each context block once per request");
                    f.line = r.line;
                    f
                });
            }
        }
    }
    found.report(cx);
}
