//! Replayed user turns (docs/spec.md §2 CTX203), found once per transcript in write
//! order: `duplicate-user-turn` reports them, `duplicate-reply` and
//! `duplicate-context-block` read them (a replayed turn is the same turn as
//! its previous copy).

use crate::model::*;

/// A user turn written again after a failed attempt.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The later copy.
    pub entry: u32,
    /// The previous copy.
    pub previous: u32,
    /// Only an aborted stop failed (warning).
    pub aborted_only: bool,
    /// What failed.
    pub why: String,
}

/// A copy written more than this long after the failed attempt's last own
/// entry (model-side entry or error record, never bookkeeping) is a new turn (a scheduled poll, a person asking again later), not a replay
/// (docs/spec.md §2 CTX203).
pub const REPLAY_WINDOW_SECS: u32 = 600;

/// A copy whose timestamps were rendered anew (its text differs from the
/// previous copy's only in timestamps) and that was written more than this
/// long after the failed attempt is a new scheduled prompt (a cron or
/// heartbeat poll firing again with its new `Current time:` line), not a
/// replay: runtimes retry and fall back within seconds (openclaw
/// `runWithModelFallback` re-runs at once with the same `commandBody`).
pub const RERENDERED_WINDOW_SECS: u32 = 60;

/// The user turn's text with envelopes, event labels and timestamps set aside
/// ([`super::turns::key`]).
fn user_text_key(t: &Transcript, e: &Entry) -> u64 {
    let m = t.packed(e);
    super::turns::key_blocks(m.iter().flat_map(|m| m.blocks()).map(|b| (b.kind, b.text(), b.text_hash)))
}

/// The raw texts of a user turn's blocks, hashed (timestamps included).
fn user_text_raw(t: &Transcript, e: &Entry) -> u64 {
    t.packed(e)
        .iter()
        .flat_map(|m| m.blocks())
        .fold(0xcbf29ce484222325u64, |h, b| (h ^ b.text_hash).wrapping_mul(0x100000001b3))
}

/// Whether the copy `e` comes late after the attempt's last own entry by the
/// messages' own times ([`crate::formats::pi_session::inner_time`]).
fn inner_late(t: &Transcript, e: &Entry, last: Option<u32>, rerendered: bool) -> bool {
    let time = |x: &Entry| t.raw_line(x).and_then(|l| crate::formats::pi_session::inner_time(&l));
    let (Some(now), Some(then)) = (time(e), last.and_then(|k| time(&t.entries[k as usize]))) else { return false };
    now > then.saturating_add(REPLAY_WINDOW_SECS) || (rerendered && now > then.saturating_add(RERENDERED_WINDOW_SECS))
}

/// Claude Code's interrupt marker, the user content it writes when the person
/// stops a run (`[Request interrupted by user]`, `… for tool use]`): it ends
/// an aborted attempt (docs/spec.md §1 failed attempt; shapes as read by
/// daaain/claude-code-log).
fn is_interrupt_marker(text: &str, hash: u64) -> bool {
    // A model-side text (tool results) may be kept only by its hash.
    use std::sync::LazyLock;
    static HASHES: LazyLock<[u64; 2]> = LazyLock::new(|| {
        [
            crate::hash::hash_str("[Request interrupted by user]"),
            crate::hash::hash_str("[Request interrupted by user for tool use]"),
        ]
    });
    text.trim_start().starts_with("[Request interrupted by user") || HASHES.contains(&hash)
}

#[derive(Default)]
struct Attempt<'a> {
    calls: usize,
    last: Option<Stop>,
    last_api_error: bool,
    last_final: bool,
    synthetic: bool,
    model: Option<&'a str>,
    /// Claude Code / Codex: the call group of the last model call (one call
    /// written over several entries), and whether any of its entries so far
    /// held a tool call / text.
    group: Option<&'a str>,
    group_call: bool,
    group_text: bool,
    /// Time of the attempt's last own entry: the user turn, a model-side
    /// entry (assistant message, tool result) or an error record written in
    /// place of one (OpenClaw `openclaw:prompt-error`); never bookkeeping
    /// (0: unknown).
    last_time: u32,
    /// That entry.
    last_entry: Option<u32>,
    /// A model call of the attempt showed text (the person read an answer).
    showed_text: bool,
    /// A tool call of the attempt completed: its result is neither an error
    /// nor synthetic (the run changed something before it was stopped).
    did_work: bool,
}

/// Longest user turn read as a short instruction (bytes of text).
const SHORT_INSTRUCTION: usize = 160;

/// Whether a user turn is a short instruction (a continuation such as
/// `keep going`), not a task: its texts hold at most [`SHORT_INSTRUCTION`]
/// bytes.
fn short_instruction(m: &crate::model::packed::PackedMessage<'_>) -> bool {
    m.blocks().filter(|b| b.kind == BlockKind::Text).map(|b| b.text_len as usize).sum::<usize>() <= SHORT_INSTRUCTION
}

/// Finds replayed user turns in write order (each write-order lane on its own,
/// see [`super::tree::lanes`]) of a transcript of `format`.
///
/// Gemini CLI: an attempt the person cancelled after the model had shown
/// text is no failed attempt the same words replay. Gemini CLI never sends a
/// turn again by itself; it writes `Request cancelled.` when the person
/// cancels, also at a tool's confirmation (declining the tool), and the
/// model's texts before that stay in the chat and in its history
/// (packages/core/src/core/geminiChat.ts keeps every turn). The same short
/// words after that (`yes` to the model's new proposal, `do it`, an error
/// log pasted again because the error came back) answer what the model
/// showed: a new turn. A copy after a cancel with no model text shown, or
/// after an error, is still a replay.
pub fn replays(format: FormatId, t: &Transcript) -> Vec<Replay> {
    let gemini_cli = format == crate::formats::gemini_cli::ID;
    let mut out = Vec::new();
    let lanes = super::tree::lanes(t);
    let mut states: foldhash::HashMap<u32, (Option<u32>, Attempt)> =
        <foldhash::HashMap<_, _> as foldhash::HashMapExt>::new();
    let entries = &t.entries;
    for (i, e) in entries.iter().enumerate() {
        let lane = lanes[i];
        if e.class != Class::Conversation {
            // Bookkeeping never dates the failed attempt: the next run writes
            // its own records (OpenClaw `model-snapshot`, openclaw
            // `src/agents/pi-embedded-runner/google.ts`, and
            // `openclaw.cache-ttl`, `src/agents/pi-embedded-runner/cache-ttl.ts`;
            // Claude Code state snapshots) just before it writes the copy, so
            // measuring from them would make a poll 20 minutes later look like
            // a retry seconds after the failure.
            continue;
        }
        // Read in place: every conversation entry passes here.
        let Some(m) = t.packed(e) else { continue };
        let (prev, att) = states.entry(lane).or_default();
        if let Some(a) = m.assistant_facts() {
            if a.transcript_only {
                continue;
            }
            att.calls += 1;
            att.last = Some(a.stop);
            if e.time != 0 {
                att.last_time = e.time;
            }
            att.last_entry = Some(i as u32);
            att.last_api_error = a.api_error;
            let has_call = m.blocks().any(|b| b.kind == BlockKind::ToolCall);
            let has_text =
                m.blocks().any(|b| b.kind == BlockKind::Text && (b.text_dropped || !b.text().trim().is_empty()));
            att.showed_text |= has_text && !a.api_error && a.stop != Stop::Error;
            // A model call split over entries ends with a final text only if
            // none of its entries holds a tool call and one holds text.
            let g = e.call_group();
            if g.is_some() && g == att.group {
                att.group_call |= has_call;
                att.group_text |= has_text;
            } else {
                (att.group, att.group_call, att.group_text) = (g, has_call, has_text);
            }
            let (has_call, has_text) = (att.group_call, att.group_text);
            att.last_final = !has_call && has_text && matches!(a.stop, Stop::Normal | Stop::Unknown) && !a.api_error;
            if att.last_final {
                att.synthetic = false;
            }
            att.model = m.model();
            continue;
        }
        let interrupted = m.role() == Role::User
            && !e.is_user_turn()
            && m.blocks().any(|b| b.kind == BlockKind::Text && is_interrupt_marker(b.text(), b.text_hash));
        if let Some(r) = m.result_facts() {
            if r.synthetic_or_aborted {
                att.synthetic = true;
            }
            att.did_work |= !r.synthetic_or_aborted && !r.is_error && !interrupted;
            if interrupted {
                att.last_final = false;
                if att.last != Some(Stop::Error) {
                    att.last = Some(Stop::Aborted);
                }
            }
            if e.time != 0 {
                att.last_time = e.time;
            }
            att.last_entry = Some(i as u32);
            continue;
        }
        if !e.is_user_turn() {
            if interrupted {
                // The person stopped the run: the attempt ends aborted (or
                // stays failed, when its last call had already failed).
                att.calls = att.calls.max(1);
                att.last_final = false;
                if att.last != Some(Stop::Error) {
                    att.last = Some(Stop::Aborted);
                }
                if e.time != 0 {
                    att.last_time = e.time;
                }
            }
            continue;
        }
        if let Some(p) = *prev {
            let pe = &entries[p as usize];
            let after = |secs: u32| e.time != 0 && att.last_time != 0 && e.time > att.last_time.saturating_add(secs);
            let late = after(REPLAY_WINDOW_SECS)
                || (after(RERENDERED_WINDOW_SECS) && user_text_raw(t, pe) != user_text_raw(t, e));
            // A candidate only: read the messages' own times too (pi / OpenClaw
            // `message.timestamp`, kept when a rewrite gives every entry one
            // `timestamp`); late by either clock is late.
            let late = late
                || (pe.raw_hash != e.raw_hash
                    && att.calls > 0
                    && !att.last_final
                    && inner_late(t, e, att.last_entry, user_text_raw(t, pe) != user_text_raw(t, e)));
            if pe.raw_hash != e.raw_hash
                && att.calls > 0
                && !att.last_final
                && !late
                && user_text_key(t, pe) == user_text_key(t, e)
            {
                // The next answer's model, for the fallback test (unpacked only here).
                let next_model = || {
                    entries[i + 1..]
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| lanes[i + 1 + k] == lane)
                        .find_map(|(_, x)| {
                            x.assistant_facts()
                                .filter(|a| !a.transcript_only)
                                .and_then(|_| t.message(x).and_then(|m| m.assistant))
                        })
                        .and_then(|a| a.model)
                };
                let fallback = || match (next_model(), att.model) {
                    (Some(n), Some(o)) if &*n != o => Some(format!("a fallback model ({n}) took over from {o}")),
                    _ => None,
                };
                let verdict = if att.last_api_error {
                    Some((false, "the attempt ended with an API-error stub".to_string()))
                } else if att.synthetic {
                    Some((false, "a tool result of the attempt was synthetic or aborted".to_string()))
                } else {
                    match att.last {
                        Some(Stop::Error) => Some((false, "the attempt ended with an error".to_string())),
                        // An aborted attempt followed by a fallback model is the runtime's
                        // retry, not a person sending the text again: an error.
                        Some(Stop::Aborted) => match fallback() {
                            Some(f) => Some((false, format!("the attempt was aborted and {f}"))),
                            // The person cancelled after reading the model's answer (see above),
                            // or stopped a run that had done work (a tool call completed) and
                            // gave the same short instruction again ("keep going"): it asks
                            // again of a changed state. A whole task sent again restarts it
                            // (the model reads the task twice): still a warning.
                            None if gemini_cli && att.showed_text => None,
                            None if att.did_work && short_instruction(&m) => None,
                            None => Some((true, "the attempt was aborted".to_string())),
                        },
                        _ => fallback().map(|f| (false, f)),
                    }
                };
                // The person stopped the run, went back to the turn and sent it
                // again from where it stood (Claude Code's rewind, a pi tree
                // branch): the copy is a sibling of the first, a fork; the
                // model reads the turn once, on the new branch.
                let rewound = matches!((pe.parent, e.parent), (Parent::Entry(a), Parent::Entry(b)) if a == b);
                if let Some((aborted_only, why)) = verdict.filter(|(aborted_only, _)| !(*aborted_only && rewound)) {
                    out.push(Replay { entry: i as u32, previous: p, aborted_only, why });
                }
            }
        }
        *prev = Some(i as u32);
        *att = Attempt { last_time: e.time, last_entry: Some(i as u32), ..Attempt::default() };
    }
    out
}
