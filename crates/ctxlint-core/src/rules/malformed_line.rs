//! CTX403 `malformed-line`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::finding::{Finding, Severity};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX403",
    name: "malformed-line",
    default_severity: Severity::Error,
    summary: "a JSONL line is not exactly one valid JSON value",
    docs: r#"## What it finds
A line of a JSONL input (session transcript, rollout, exchange log) that is not exactly one
valid JSON value: a torn write that stops inside a string, two objects glued onto one line
(an append onto a file whose last line lacked `\n`), NUL bytes, invalid UTF-8, or a line
longer than the 256 MiB limit.

`ctxlint fence` reports it for appended bytes (verdict `append-malformed`): appended bytes
that do not end with `\n` (a torn write, even when the JSON is complete) or do not start on
a line of their own, an appended line that is not one JSON object (blank lines included),
and an entry that lacks a field its format requires (pi v2+: `id`).

## Why it matters
Runtimes skip or choke on such lines: the entry is silently lost from the next request, or
the whole session fails to load. A glued line usually means two writers, or a crash mid-write.

## Example
```
{"type":"message","id":"a1",…}{"type":"message","id":"a2",…}
```
Line 440 of a real pi session: two objects with no newline between them.

## What it does not flag
Blank lines, a valid last line without a trailing newline (only `fence` requires that of an
append), and valid JSON of an unexpected shape (kept as an unknown record). Reading always
goes on with the next line; the complete copy of a torn record written later is not
reported again.
"#,
};

/// Reports every bad line the loader recorded.
pub fn check(cx: &mut RuleContext) {
    let input = cx.input;
    for b in &input.bad_lines {
        cx.report(
            Finding::new(
                RuleId::MalformedLine,
                &input.path,
                input.format,
                if input.format == crate::formats::aider::ID {
                    // A text format: its lines are not JSON.
                    format!("line does not fit an Aider LLM history: {}", b.reason)
                } else {
                    format!("line is not one valid JSON value: {}", b.reason)
                },
            )
            .line(b.line)
            .excerpt(b.head.clone())
            .key(format!("{}:{}", b.reason, b.head))
            .help("repair or remove the line; if it is a torn write, look for the complete record on a later line"),
        );
    }
    cx.count_unlisted(input.more_bad_lines);
}
