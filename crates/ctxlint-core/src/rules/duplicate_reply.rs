//! CTX204 `duplicate-reply`.

use super::{RuleContext, RuleId, RuleMeta};
use crate::finding::{Finding, Severity};
use crate::model::*;
use foldhash::{HashMap, HashMapExt, HashSet};
use std::collections::VecDeque;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    code: "CTX204",
    name: "duplicate-reply",
    default_severity: Severity::Error,
    summary: "a user turn receives a second visible reply",
    docs: r#"## What it finds
A second visible reply for one user turn. A visible reply is a delivered message-tool send
(OpenClaw `message` with `action: "send"` whose result shows `deliveryStatus`/`status`
`"sent"`, a platform `messageId`, or receipts), or a final text: a completed model call with
no tool call that ends the turn and whose text is not a silent token (`NO_REPLY`,
`HEARTBEAT_OK`). A model call written as several entries (Claude Code: the assistant
entries sharing one `message.id`; Codex: the response items of one response) is judged as
a whole. Each visible reply answers the oldest user turn without a reply yet; a
reply is a second reply only when every user turn written so far already has one. A user
turn reported by `duplicate-user-turn` is the same turn as its previous copy. Reported at
the assistant entry that produces the second reply (the final text, or the tool call of the
second send).

## Why it matters
The user sees the answer twice in their channel — the classic "message tool already replied,
then the final text was posted too" bug.

## Example
```
user        when is the next handover?
assistant   toolCall message {action: "send", …}
toolResult  {"deliveryStatus": "sent", "messageId": "…"}
assistant   "The next handover is Monday."      <- reported
```

## What it does not flag
Dry runs, suppressed or failed sends; silent finals (`NO_REPLY`, `HEARTBEAT_OK`); text beside
tool calls, and text of a call that ended to call tools or that the runtime went on from (Gemini
CLI: a `gemini` record followed by another model call before the next user turn; Claude Code: a
call whose stream stopped early, with no `stop_reason`, followed by another call); the delivery
mirror of a send already counted; failed or empty model calls (but a send delivered earlier in a
failed attempt still counts); an OpenClaw send to someone other than the person whose turn it is
(the turn's envelope names its sender and chat, the send's target is none of them): a message the
person asked the agent to write to a third party, after which the final text is the one reply; a
send from a turn that came through OpenClaw's gateway (the web chat or TUI, and events the
gateway delivers such as a cron job's announce: its text starts with the gateway's
`[Mon 2026-03-02 13:10 GMT+8]` stamp, not a channel envelope), which goes to a channel the
message tool names, not back to that chat (a heartbeat poll, stamped alike, is still judged); the
final text after a send to the turn's own conversation, which OpenClaw suppresses
(`shouldSuppressMessagingToolReplies`), and the final text of an isolated cron run (`[cron:…]`
prompt) after a send, which OpenClaw does not deliver (`skipMessagingToolDelivery`); a send that carries a file (`filePath`, `media`) after the
reply, part of that reply; a reply whose parent is no entry of the file (`broken-parent-chain`
reports it: one defect, one finding). In Claude Code, the prompt a custom, plugin or skill
slash command expands to (an `isMeta` user record parented on the command's
`<command-name>` record) is a new request of the person's: the answer to it is a new reply.
"#,
};

/// Silent tokens: a final text that is exactly one of these is never delivered.
pub const SILENT: &[&str] = &["NO_REPLY", "HEARTBEAT_OK"];

/// Checks transcripts in write order.
pub fn check(cx: &mut RuleContext) {
    let Some((t, an)) = cx.transcript else { return };
    let input = cx.input;
    let replayed: HashSet<u32> = an.replays.iter().map(|r| r.entry).collect();
    // An entry that reuses an id, or a model reply whose parent is no entry of
    // the file (a run that wrote into this file from another turn's history),
    // is reported by broken-parent-chain: one defect, one finding.
    let reused: HashSet<u32> = an
        .chain_defects
        .iter()
        .filter(|d| match d.kind {
            crate::analysis::chain::DefectKind::IdReused(_) => true,
            crate::analysis::chain::DefectKind::Dangling(_) => !t.entries[d.entry as usize].is_user_turn(),
            _ => false,
        })
        .map(|d| d.entry)
        .collect();
    // Sends awaiting their result: call id -> (entry, block pointer).
    let mut sends: HashMap<&str, (u32, String)> = HashMap::new();
    // Per write-order lane (Claude Code sub-agents; one lane elsewhere):
    // user turns without a reply, (user turn, replying entry), any turn seen.
    let lanes = crate::analysis::lanes(t);
    let mut states: HashMap<u32, LaneState> = HashMap::new();
    // Claude Code / Codex: one model call over several entries (same
    // `call_group`) is judged as a whole at its last entry: its texts joined,
    // any tool call or failure in any of its entries.
    let group_ends = crate::analysis::call_group_ends(t);
    let mut groups: HashMap<&str, GroupAcc> = HashMap::new();
    // Per lane: the latest user turn, and whether a send of its run was
    // delivered to the conversation it came from (OpenClaw then drops the
    // run's final payloads).
    let mut origin: HashMap<u32, (u32, bool)> = HashMap::new();
    let claude_code = input.format == crate::formats::claude_code::ID;
    let went_on = if claude_code { went_on_from(t, &lanes) } else { HashSet::default() };
    for (i, e) in t.entries.iter().enumerate() {
        let i = i as u32;
        if e.class != Class::Conversation || reused.contains(&i) {
            continue;
        }
        // Read in place: every conversation entry passes here.
        let Some(m) = t.packed(e) else { continue };
        let (pending, answered, any_turn) = states.entry(lanes[i as usize]).or_default();
        if e.is_user_turn() || (claude_code && crate::formats::claude_code::expands_command(t, e)) {
            origin.insert(lanes[i as usize], (i, false));
            if !replayed.contains(&i) {
                pending.push_back(i);
                *any_turn = true;
            }
            continue;
        }
        // (entry, pointer, text, the call's entries when some of its text was not kept)
        let mut reply: Option<(u32, String, String, Option<Vec<u32>>)> = None;
        if let Some(a) = m.assistant_facts() {
            if a.transcript_only || a.delivery_mirror || a.rewritten {
                continue;
            }
            for b in m.blocks() {
                if b.kind == BlockKind::ToolCall && b.is_send && !b.dry_run {
                    if let Some(id) = b.tool_id {
                        sends.insert(id, (i, b.pointer.to_string()));
                    }
                }
            }
            let view = m.blocks().map(|b| (b.kind, b.text(), b.text_dropped, b.pointer));
            let acc = match e.call_group() {
                Some(g) => {
                    let ga = groups.entry(g).or_default();
                    ga.add(i, view, &a);
                    if group_ends.get(g) != Some(&i) {
                        continue; // not the call's last entry yet
                    }
                    groups.remove(g).unwrap_or_default()
                }
                None => {
                    let mut acc = GroupAcc::default();
                    acc.add(i, view, &a);
                    acc
                }
            };
            if went_on.contains(&i) {
                continue; // a call the runtime went on from: no final reply
            }
            // A text not kept is longer than any silent token, and not blank.
            let text = acc.text.trim();
            if acc.failed || acc.has_call || (!acc.partial && text.is_empty()) {
                continue;
            }
            if origin.get(&lanes[i as usize]).is_some_and(|o| o.1) {
                continue; // suppressed: the run already sent to its own conversation
            }
            if !acc.partial && SILENT.contains(&text) {
                // A silent final closes the oldest open turn without a reply.
                pending.pop_front();
                continue;
            }
            // A single entry reports at its first text block (as before); a
            // split call at its first non-empty text.
            let first = if e.call_group().is_some() { acc.first_text } else { acc.first_any };
            let (at, ptr) = first.unwrap_or((i, String::new()));
            reply = Some((at, ptr, text.to_string(), acc.partial.then_some(acc.entries)));
        } else if let Some(r) = m.result_facts() {
            let id = m.blocks().find(|b| b.kind == BlockKind::ToolResult).and_then(|b| b.tool_id);
            if let Some((call_entry, ptr)) = id.and_then(|id| sends.remove(id)) {
                if r.delivered && !r.is_error {
                    let to = match origin.get(&lanes[i as usize]) {
                        Some(o) if input.format == crate::formats::pi_session::ID => {
                            send_target(t, e, &t.entries[o.0 as usize])
                        }
                        _ => Target::Unknown,
                    };
                    // A message to someone else (a third party the person asked
                    // the agent to write to) answers nobody's turn here.
                    if to == Target::Elsewhere {
                        continue;
                    }
                    reply = Some((call_entry, ptr, SEND.to_string(), None));
                    if let Some(o) = origin.get_mut(&lanes[i as usize]) {
                        o.1 |= to == Target::Origin;
                    }
                }
            }
        }
        let Some((at, ptr, text, partial)) = reply else { continue };
        if let Some(turn) = pending.pop_front() {
            answered.push((turn, at));
        } else if *any_turn && !(input.format == crate::formats::pi_session::ID && text == SEND && sends_a_file(t, at))
        {
            let (turn, first) = answered.last().copied().unwrap_or((0, at));
            let fe = &t.entries[first as usize];
            let te = &t.entries[turn as usize];
            let e = &t.entries[at as usize];
            let text = partial.and_then(|entries| full_text(t, &entries)).unwrap_or(text);
            cx.report(
                Finding::new(
                    RuleId::DuplicateReply,
                    &input.path,
                    input.format,
                    format!(
                        "second visible reply to the user turn at line {} (first reply at line {})",
                        te.line, fe.line
                    ),
                )
                .line(e.line)
                .pointer(ptr)
                .entry_id(e.id.as_deref())
                .excerpt(text)
                .related(&input.path, Some(fe.line), "", "first reply")
                .related(&input.path, Some(te.line), "", "user turn")
                .help(if input.format == crate::formats::pi_session::ID {
                    "after a delivered message-tool send, end the turn with a silent token (NO_REPLY)"
                } else {
                    "answer each user turn once: once a reply is delivered, end the turn instead of producing another"
                }),
            );
        }
    }
}

/// The excerpt of a reply that is a message-tool send.
const SEND: &str = "message-tool send";

/// Whether an OpenClaw send call carries a file (`filePath`, `media`,
/// `mediaUrl(s)`, `buffer`; openclaw `src/agents/tools/message-tool.ts`): a
/// file sent after the reply (the CSV and the map the reply announced) is
/// part of that reply, not a second one. Read from the call's line, only
/// when a send would otherwise be reported.
fn sends_a_file(t: &Transcript, call: u32) -> bool {
    static FILE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#""(?:filePath|media|mediaUrl|mediaUrls|buffer)"\s*:\s*(?:"[^"]|\[\s*")"#).expect("regex")
    });
    t.raw_line(&t.entries[call as usize]).is_some_and(|raw| FILE.is_match(&String::from_utf8_lossy(&raw)))
}

/// Where a delivered OpenClaw send went, against the user turn it ran for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The conversation the turn came from.
    Origin,
    /// Another conversation: the turn names its own sender or chat in an
    /// envelope, and the send's target is none of them.
    Elsewhere,
    /// Not known (no target in the result, or no envelope in the turn).
    Unknown,
}

/// Where a delivered OpenClaw send went: a target the send's result names
/// (`to`, `chatId`, `target`, channel prefix aside) that appears in the
/// turn's text — quoted in its envelope (`sender_id`, `chat_id`, the Sender
/// `id`) or as a word of its own (`Feishu[main] DM from ou_5d44…`, `ou_5d44…:
/// text`) — is the conversation the turn came from. OpenClaw then suppresses
/// the run's final reply payloads (openclaw
/// `src/auto-reply/reply/reply-payloads.ts`, `shouldSuppressMessagingToolReplies`:
/// a messaging-tool send to the originating target), so the final text is no
/// second visible reply. A send whose targets all differ from a turn that
/// carries OpenClaw's envelope (`… (untrusted metadata):`) went to someone
/// else: the final text still goes to the person, who got one reply.
fn send_target(t: &Transcript, result: &Entry, turn: &Entry) -> Target {
    static TARGET: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // In `details` as an object, or in the result text as JSON inside a JSON string (quotes escaped).
        regex::Regex::new(r#"\\?"(?:to|chatId|chat_id|target)\\?"\s*:\s*\\?"([^"\\]{3,})\\?""#).expect("regex")
    });
    // The result's own line (its text is kept only as a prefix).
    let Some(raw) = t.raw_line(result) else { return Target::Unknown };
    let raw = String::from_utf8_lossy(&raw);
    let Some(tm) = t.message(turn) else { return Target::Unknown };
    let turn_text: String = tm.blocks.iter().map(|b| &*b.text).collect::<Vec<_>>().join("\n");
    let word = |id: &str| {
        id.len() >= 6
            && turn_text.match_indices(id).any(|(k, _)| {
                let before = turn_text[..k].chars().next_back();
                let after = turn_text[k + id.len()..].chars().next();
                let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
                edge(before) && edge(after)
            })
    };
    // An isolated cron run (its prompt `[cron:<job id> <job name>] …`,
    // openclaw `src/cron/isolated-agent/run.ts`) delivers its final text to
    // the job's target, and skips that delivery when the message tool already
    // sent there (`skipMessagingToolDelivery`): a send with a target ends the
    // turn's visible replies, as a send to the origin does.
    let cron = turn_text.trim_start().starts_with("[cron:");
    let mut any = false;
    for c in TARGET.captures_iter(&raw) {
        if cron {
            return Target::Origin;
        }
        let target = &c[1];
        let bare = target.rsplit_once(':').map_or(target, |(_, id)| id);
        if bare.len() < 3 {
            continue;
        }
        any = true;
        if turn_text.contains(&format!("\"{bare}\"")) || word(bare) {
            return Target::Origin;
        }
    }
    if any && (turn_text.contains("(untrusted metadata):") || gateway_chat(&turn_text)) {
        Target::Elsewhere
    } else {
        Target::Unknown
    }
}

/// Whether a turn came in through OpenClaw's gateway chat (the web chat or
/// the TUI): its text starts with the time stamp the gateway's `chat.send`
/// and `agent` handlers put before a message that has none
/// (`[Mon 2026-03-02 13:10 GMT+8] …`: `injectTimestamp`, openclaw
/// `src/gateway/server-methods/agent-timestamp.ts`), where a message from a
/// channel carries its envelope. The message tool sends to channels, so a
/// send from such a turn goes elsewhere (the person asked for it: "message
/// my Feishu"). An event the gateway delivers stamped alike (a cron job's
/// announce to the main session) ends the same way: its final text goes to
/// the session's route unless the message tool already sent there, when
/// OpenClaw drops it (`shouldSuppressMessagingToolReplies`). A heartbeat
/// poll, stamped alike, delivers its final text to a channel target and is
/// left undecided.
fn gateway_chat(turn_text: &str) -> bool {
    static STAMP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]\n]*\] ")
            .expect("regex")
    });
    STAMP.is_match(turn_text.trim_start()) && !turn_text.contains("HEARTBEAT")
}

/// Per write-order lane: user turns without a reply, (user turn, replying
/// entry) pairs, and whether any user turn was seen.
type LaneState = (VecDeque<u32>, Vec<(u32, u32)>, bool);

/// The joined text of a model call's entries as their loader gives it (the
/// texts `check` does not keep are read again from the file).
fn full_text(t: &Transcript, entries: &[u32]) -> Option<String> {
    let mut acc = GroupAcc::default();
    for &k in entries {
        let m = t.full_message(&t.entries[k as usize])?;
        let a = m.assistant.clone()?;
        acc.add(k, m.blocks.iter().map(|b| (b.kind, &*b.text, b.text_dropped, &*b.pointer)), &a);
    }
    Some(acc.text.trim().to_string())
}

/// What one model call (all entries of a call group) amounts to.
#[derive(Default)]
struct GroupAcc {
    /// Its entries.
    entries: Vec<u32>,
    /// Some of its text was not kept in memory ([`Block::text_dropped`]).
    partial: bool,
    failed: bool,
    has_call: bool,
    /// Its texts joined.
    text: String,
    /// The first entry with non-empty text, and the pointer of that text.
    first_text: Option<(u32, String)>,
    /// The first text block, empty or not.
    first_any: Option<(u32, String)>,
}

impl GroupAcc {
    /// Adds entry `i`'s blocks, each as (kind, text as kept, text dropped, pointer).
    fn add<'b>(
        &mut self,
        i: u32,
        blocks: impl Iterator<Item = (BlockKind, &'b str, bool, &'b str)>,
        a: &AssistantInfo,
    ) {
        self.entries.push(i);
        self.failed |= a.api_error || matches!(a.stop, Stop::Error | Stop::Aborted);
        // A call that ended to call tools is a step, even when the runtime did
        // not record its calls (Gemini CLI's recordings without `toolCalls`).
        // A call that stopped for tool use made a call even when the call is
        // not a block of its own (Cline's XML tool calls are text).
        self.has_call |= a.stop == Stop::ToolUse;
        for (kind, text, dropped, pointer) in blocks {
            self.has_call |= kind == BlockKind::ToolCall;
            if kind != BlockKind::Text {
                continue;
            }
            if self.first_any.is_none() {
                self.first_any = Some((i, pointer.to_string()));
            }
            self.partial |= dropped;
            if self.first_text.is_none() && (dropped || !text.trim().is_empty()) {
                self.first_text = Some((i, pointer.to_string()));
            }
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            self.text.push_str(text);
        }
    }
}

/// Claude Code: the last entries of model calls whose stream stopped early —
/// no `stop_reason` — that the runtime went on from: the next model call of
/// their lane (another `message.id`, with no user turn or tool result
/// between) goes on from it. Such a call's text is no final reply; as for
/// Gemini CLI's calls the runtime went on from. Older builds wrote no
/// `stop_reason` at all (no call of the file has one): there only a next call
/// that streams the same first text again went on from it, and a next call
/// with other text is a second reply and stays one.
fn went_on_from(t: &Transcript, lanes: &[u32]) -> HashSet<u32> {
    /// One model call (its entries share a `message.id`): its last entry,
    /// whether that entry stopped early, and the hash of its first text.
    struct Call<'t> {
        group: Option<&'t str>,
        last: u32,
        early: bool,
        text: Option<u64>,
    }
    // (By hash: a model-side text may not be kept in memory.)
    let first_text = |e: &Entry| -> Option<u64> {
        t.packed(e)?.blocks().find(|b| b.kind == BlockKind::Text && b.text_len > 0).map(|b| b.text_hash)
    };
    let mut out = HashSet::default();
    // Per lane: the call before the current one (with nothing between them), and the current one.
    let mut prev: HashMap<u32, Call> = HashMap::new();
    let mut cur: HashMap<u32, Call> = HashMap::new();
    // Whether this build writes a call's `stop_reason` (some call of the file has one).
    let writes_stop = t
        .entries
        .iter()
        .any(|e| e.is_model_call && e.assistant_facts().is_some_and(|a| a.stop != Stop::Unknown && !a.api_error));
    let judge = |p: &Call, c: &Call, out: &mut HashSet<u32>| {
        if p.early && p.text.is_some() && (writes_stop || c.text == p.text) {
            out.insert(p.last);
        }
    };
    for (i, e) in t.entries.iter().enumerate() {
        if e.class != Class::Conversation || !e.has_message() {
            continue;
        }
        let lane = lanes[i];
        let Some(a) = e.assistant_facts().filter(|_| e.is_model_call && e.kind() == Some(MessageKind::Assistant))
        else {
            // A user turn, a tool result, a notice: what follows is no retry.
            if let (Some(p), Some(c)) = (prev.remove(&lane), cur.get(&lane)) {
                judge(&p, c, &mut out);
            }
            cur.remove(&lane);
            continue;
        };
        let group = e.call_group();
        let early = a.stop == Stop::Unknown && !a.api_error;
        match cur.get_mut(&lane) {
            Some(c) if c.group.is_some() && c.group == group => {
                c.last = i as u32;
                c.early = early;
                if c.text.is_none() {
                    c.text = first_text(e);
                }
            }
            _ => {
                let c = Call { group, last: i as u32, early, text: first_text(e) };
                if let Some(done) = cur.insert(lane, c) {
                    if let Some(p) = prev.remove(&lane) {
                        judge(&p, &done, &mut out);
                    }
                    prev.insert(lane, done);
                }
            }
        }
    }
    for (lane, p) in prev {
        if let Some(c) = cur.get(&lane) {
            judge(&p, c, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_stamped_by_openclaws_gateway_is_a_gateway_chat() {
        assert!(gateway_chat("[Mon 2026-03-02 13:10 GMT+8] send a hello to my Feishu"));
        assert!(gateway_chat("[Sun 2026-01-18 06:19 UTC] [System Message] [sessionId: s1] A cron job finished."));
        for t in [
            "[Signal Alice +1555 2026-01-18 00:19 PST] hello",
            "[Mon 2026-03-02 13:10 GMT+8] Read HEARTBEAT.md if it exists. If nothing needs attention, reply HEARTBEAT_OK.",
            "send a hello to my Feishu",
            "Conversation info (untrusted metadata):\n```json\n{}\n```\n\n[Mon 2026-03-02 13:10 GMT+8] hi",
        ] {
            assert!(!gateway_chat(t), "{t:?}");
        }
    }
}
