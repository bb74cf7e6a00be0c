//! CTX401 `not-append-only` (the in-file part; `fence` reports the rest).

use super::{RuleContext, RuleId, RuleMeta};
use crate::finding::{Finding, Severity};
use foldhash::{HashMap, HashMapExt};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX401",
    name: "not-append-only",
    default_severity: Severity::Error,
    summary: "a session file was rewritten or re-appended instead of appended",
    docs: r#"## What it finds
A session file that did not only grow by appends:
- within one file, a run of lines that repeats earlier lines byte for byte (the session
  header or entries written a second time), or an entry that repeats an earlier entry's id
  with the same JSON content (key order and whitespace aside) — one finding at the run's
  first line;
- between two snapshots (`ctxlint fence`), a truncated, replaced or rewritten file: NEW is
  a proper byte prefix of OLD (`truncate`, at NEW's last line), NEW's first line — the pi
  session header — differs (`replaced`, at line 1), or NEW otherwise does not start with OLD
  (`rewrite`, at the first differing line, with its byte offset and a diff; against a
  recorded fingerprint, at line 1 with no offset).

- a pi / OpenClaw session file whose `{"type":"session",…}` header line is gone while
  every line is a pi entry (at its first line): the runtime rewrote the file without it.

## Why it matters
A re-appended header or entry means a writer replayed its buffer onto the file (often after
a failed write or a lost lock). Readers then see the same entries twice, or a second session
header in the middle of the file.

## Example
```
{"type":"session","version":3,"id":"s1",…}
{"type":"message","id":"e7f1a201","parentId":null,…}
{"type":"session","version":3,"id":"s1",…}          <- lines 3–4 written again
{"type":"message","id":"e7f1a201","parentId":null,…}
```

## What it does not flag
Claude Code records without `uuid` (`permission-mode`, `last-prompt`,
`file-history-snapshot`, …): they are state snapshots written again by design. An id that
repeats with *different* content is `broken-parent-chain`, not this rule. Blank lines. In an
OpenAI Agents SDK session database, a repeat of the session's first items written more than a
minute after the item before it (`created_at`): a new run of the same prompts that got the
same answers (a demo script run again), not the history saved again after a run.
"#,
};

/// Reports runs of lines repeated byte for byte, and id repeats with equal content.
pub fn check(cx: &mut RuleContext) {
    if let Some(stream) = cx.stream {
        // A history snapshot saved again after itself (openai-agents-session).
        for r in &stream.requests {
            let Some((at, first, n)) = &r.resaved else { continue };
            let mut f = Finding::new(
                RuleId::NotAppendOnly,
                &r.path,
                cx.input.format,
                format!("the session's first {n} items are saved again from here: the whole history was added again instead of only the new items"),
            )
            .pointer(r.at(at))
            .request(r.index)
            .key(format!("resaved:{at}"))
            .related(&r.path, r.line, r.at(first), "first saved here")
            .help("add only the items of the new turn to the session (the runner already appends them)");
            f.line = r.line;
            cx.report(f);
        }
        return;
    }
    let Some((t, _)) = cx.transcript else { return };
    let input = cx.input;
    // A pi session whose header line is gone (every line an entry): the file
    // was rewritten without the line pi writes first and never again, and pi
    // loads no entry of it (pi-mono `session-manager.ts` `loadEntriesFromFile`
    // returns none when the first entry is not a `session` header).
    if input.format == crate::formats::pi_session::ID && t.header.is_none() && !t.entries.is_empty() {
        let first = &t.entries[0];
        cx.report(
            Finding::new(
                RuleId::NotAppendOnly,
                &input.path,
                input.format,
                "the session header (`{\"type\":\"session\",…}`, the line pi writes first) is missing: the file was rewritten without it",
            )
            .line(first.line)
            .entry_id(first.id.as_deref())
            .key("missing-header".to_string())
            .help("restore the header line (type, version, id, timestamp, cwd) before the first entry; pi and OpenClaw do not load a session file without it"),
        );
    }
    // Only hashes that occur twice or more can repeat: find them with one
    // sorted array (8 bytes a line) rather than a map of every line.
    let mut hashes: Vec<u64> = t.raw_lines().map(|rl| rl.hash).collect();
    hashes.sort_unstable();
    let twice: foldhash::HashSet<u64> = hashes.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    drop(hashes);
    let mut seen: HashMap<u64, u32> = HashMap::with_capacity(twice.len());
    let mut repeated_lines = <foldhash::HashSet<_> as foldhash::HashSetExt>::new();
    let mut prev_repeat: Option<u32> = None; // line number of the previous raw line if it repeated
    let mut prev_line: u32 = 0;
    for rl in t.raw_lines() {
        if !twice.contains(&rl.hash) {
            prev_line = rl.line; // a line seen once: neither a repeat nor repeated later
            continue;
        }
        // A line re-written by design inside a run of repeated lines
        // neither repeats nor ends the run (one finding per run).
        if rl.exempt && seen.contains_key(&rl.hash) {
            continue;
        }
        let repeat = !rl.exempt && seen.contains_key(&rl.hash);
        if repeat {
            repeated_lines.insert(rl.line);
            let first = seen[&rl.hash];
            let continues_run = prev_repeat == Some(prev_line);
            if !continues_run {
                let entry = t.entries.iter().find(|e| e.line == rl.line);
                cx.report(
                    Finding::new(
                        RuleId::NotAppendOnly,
                        &input.path,
                        input.format,
                        format!(
                            "line {} repeats line {first} byte for byte: earlier lines were written again",
                            rl.line
                        ),
                    )
                    .line(rl.line)
                    .entry_id(entry.and_then(|e| e.id.as_deref()))
                    .key(format!("repeat:{:016x}", rl.hash))
                    .related(&input.path, Some(first), "", "first written here")
                    .help("the writer re-appended lines it had already written; append only the new entries"),
                );
            }
            prev_repeat = Some(rl.line);
        } else {
            seen.entry(rl.hash).or_insert(rl.line);
        }
        prev_line = rl.line;
    }
    for r in &t.id_repeats {
        let e = &t.entries[r.entry as usize];
        if r.same_content == Some(true) && !repeated_lines.contains(&e.line) {
            let f = &t.entries[r.first as usize];
            cx.report(
                Finding::new(
                    RuleId::NotAppendOnly,
                    &input.path,
                    input.format,
                    format!(
                        "entry `{}` is written again (same content as line {})",
                        e.id.as_deref().unwrap_or(""),
                        f.line
                    ),
                )
                .line(e.line)
                .entry_id(e.id.as_deref())
                .key(format!("id-repeat:{}", e.id.as_deref().unwrap_or("")))
                .related(&input.path, Some(f.line), "", "first written here"),
            );
        }
    }
}
