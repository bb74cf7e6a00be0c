//! CTX404 `broken-parent-chain`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::analysis::chain::DefectKind;
use crate::finding::{Finding, Severity};

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX404",
    name: "broken-parent-chain",
    default_severity: Severity::Error,
    summary: "an entry's parent link is broken, so its path skips or loses turns",
    docs: r#"## What it finds
A transcript whose entry tree is broken:
- a parent reference names no entry of the file (dangling `parentId` / `parentUuid`);
- a second root appears mid-file (`parentId: null` after the first entry) that is not a
  compaction boundary;
- an id repeats with different content;
- parents form a cycle;
- a conversation entry hangs off a bookkeeping record that is a side-leaf — the record's
  parent already had another child leading to conversation entries, written before the
  entry — so the entry's path skips those turns (Claude Code's retry bug: a prompt parented
  on a `progress` record).

`ctxlint fence` reports it for appended entries (verdict `append-malformed`): an appended
entry whose parent is neither in OLD nor earlier in the append, one without a parent when the
file already has a root (a Claude Code `compact_boundary` is not a second root), or one that
reuses an id of the file. pi v1 entries have no ids and are not checked.

## Why it matters
The runtime rebuilds the context by walking parent links from the leaf. A broken link
silently drops earlier turns from every later request, or loses the session on resume.

## Example
```
{"type":"message","id":"p0000004","parentId":"p0000003",…}
{"type":"session_info","id":"p0000005","parentId":null,…}   <- a second root, mid-file
```

## What it does not flag
Forks (two children of one entry) and `branch_summary` entries; a Claude Code
`compact_boundary` with `parentUuid: null` (a new chain by design), and the root of a
sub-agent's records (`isSidechain`) inlined in a session file; pi v1 files and Codex
rollouts (linear, no ids); an entry written twice byte for byte (`not-append-only`); a
dangling parent on a bookkeeping record that no message sent to the model descends from
(Claude Code's hook `progress` records, parented on entries it never writes, with only more
progress below them: no turn is lost), or one that opens the session — nothing sent to the
model written before it, and a person's prompt the first message below it (Claude Code's
`SessionStart` hook records, parented on a record of the session's start it never writes).
A Claude Code forked sub-agent's first message sent to the model (in a prompt suggestion's
`subagents/agent-aprompt_suggestion-*.jsonl`, a compaction's `agent-acompact-*.jsonl`),
parented on the main session's record it forks from, which is in the session's own file (an
ordinary sub-agent's `agent-<hex>.jsonl` going on from a tool result is still reported); a
sub-agent's reply written right after its prompt but parented on the attachment record sent
between them, which Claude Code from 2.1.69 (2.1.92 seen) does not write to the sub-agent's
`subagents/agent-*.jsonl` (read as hung on the prompt, as Claude Code's resume does; records
lost right after a prompt there look the same and are not seen); a
record nothing descends from, written before the file's first root (plan mode's "clear
context" opens the new session's file with the old session's interrupt marker). A file that
lost its head, going on from a tool result or a reply, is still reported.
Consequences are not
reported again: a dangling parent that names the id of a torn (malformed) line, and
pairing findings that arise only because a reported break cut entries off a path.
"#,
};

/// Reports the defects found by the analysis.
pub fn check(cx: &mut RuleContext) {
    let Some((t, an)) = cx.transcript else { return };
    let input = cx.input;
    for d in an.chain_defects.iter().filter(|d| d.report) {
        let e = &t.entries[d.entry as usize];
        let id = e.id.as_deref().unwrap_or("");
        let mut f = Finding::new(RuleId::BrokenParentChain, &input.path, input.format, String::new())
            .line(e.line)
            .entry_id(e.id.as_deref());
        match &d.kind {
            DefectKind::Dangling(pid) => {
                f.message = format!(
                    "entry `{id}` names parent `{pid}`, which is no entry of this file: its path loses every earlier turn"
                );
                // The file's first entry: what came before it is gone (a file
                // cut at its head, or replaced by a partial copy — git
                // checking out a tracked transcript), not written out of order.
                let opens = t.entries[..d.entry as usize].iter().all(|x| x.id.is_none());
                f = f.key(format!("dangling:{id}:{pid}")).excerpt(format!("parent: {pid}")).help(if opens {
                    "the file starts after its parent: it lost its head (cut, or replaced by a partial copy, such as git checking out a tracked transcript); restore the earlier entries"
                } else {
                    "write the parent before its child, and never delete or rewrite entries a later one names"
                });
            }
            DefectKind::SecondRoot => {
                // A record with no `id` (`{}`, a type this loader does not know) is named by what it lacks.
                let who = if e.id.is_some() { format!("entry `{id}`") } else { "a record with no `id`".to_string() };
                f.message = format!("{who} has no parent although the file already has a root: a second root mid-file");
                f = f.key(format!("second-root:{id}")).help("parent the entry on the latest entry of the session");
            }
            DefectKind::IdReused(first) => {
                let fl = t.entries[*first as usize].line;
                f.message = format!("id `{id}` was already used by line {fl} with different content");
                f = f
                    .key(format!("id-reused:{id}"))
                    .related(&input.path, Some(fl), "", "first entry with this id")
                    .help("give every entry a fresh id; append a new entry instead of writing one again changed");
            }
            DefectKind::Cycle => {
                f.message = format!("entry `{id}` is part of a parent cycle: no path from it reaches the root");
                f = f.key(format!("cycle:{id}")).help("parent each entry on one written before it");
            }
            DefectKind::BookkeepingSideLeaf { leaf, skipped } => {
                let l = &t.entries[*leaf as usize];
                let s = &t.entries[*skipped as usize];
                f.message = format!(
                    "entry `{id}` hangs off the {} record at line {}, a side-leaf: its path skips line {} and the turns after it",
                    l.etype(),
                    l.line,
                    s.line
                );
                f = f
                    .key(format!("side-leaf:{id}"))
                    .related(&input.path, Some(l.line), "", "bookkeeping side-leaf used as parent")
                    .related(&input.path, Some(s.line), "", "first entry skipped")
                    .help("parent the entry on the latest conversation entry");
            }
        }
        cx.report(f);
    }
}
