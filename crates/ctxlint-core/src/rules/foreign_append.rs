//! CTX402 `foreign-append` (reported by `ctxlint fence` only).

use super::{RuleContext, RuleMeta};
use crate::finding::Severity;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX402",
    name: "foreign-append",
    default_severity: Severity::Error,
    summary: "fence: an appended entry is not one the runner owns",
    docs: r#"## What it finds
`ctxlint fence OLD NEW` only: NEW is OLD plus well-formed appended entries, but one of them
is of a kind the runner does not own — another writer changed the conversation while the
runner had released its lock. Reported once, at the first such entry.

Runner-owned by default (pi/OpenClaw): messages with role `assistant`, `toolResult` or
`bashExecution` (OpenClaw delivery mirrors included), and `custom`, `label`, `session_info`
entries. Everything else (a user message, `custom_message`, `compaction`, `model_change`,
`thinking_level_change`, `branch_summary`) is another writer's. For `claude-code` and
`codex-rollout`, entries under the same session id are owned. `--owned KIND,…` overrides.

## Why it matters
The runner's next step was computed from OLD; a user message or compaction written in
between is lost or answered twice.

## Example
OLD ends with a tool result; NEW appends `{"type":"message",…,"message":{"role":"user",…}}`
from another lane: `foreign-append` at that line.

## What it does not flag
The runner's own appends (tool calls, tool results, delivery mirrors, labels). A malformed
append is `malformed-line` / `broken-parent-chain` instead (that verdict wins).
"#,
};

/// Nothing to check in a single input: `fence` reports this rule.
pub fn check(_cx: &mut RuleContext) {}
