//! Replayed user turns (SPEC §2 CTX203), found once per transcript in write
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

fn user_text_hash(t: &Transcript, e: &Entry) -> u64 {
    let mut h = 0xcbf29ce484222325u64;
    for b in t.packed(e).into_iter().flat_map(|m| m.blocks()) {
        h = (h ^ b.text_hash).wrapping_mul(0x100000001b3);
    }
    h
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
}

/// Finds replayed user turns in write order (each write-order lane on its own,
/// see [`super::tree::lanes`]).
pub fn replays(t: &Transcript) -> Vec<Replay> {
    let mut out = Vec::new();
    let lanes = super::tree::lanes(t);
    let mut states: foldhash::HashMap<u32, (Option<u32>, Attempt)> =
        <foldhash::HashMap<_, _> as foldhash::HashMapExt>::new();
    let entries = &t.entries;
    for (i, e) in entries.iter().enumerate() {
        if e.class != Class::Conversation {
            continue;
        }
        // Read in place: every conversation entry passes here.
        let Some(m) = t.packed(e) else { continue };
        let lane = lanes[i];
        let (prev, att) = states.entry(lane).or_default();
        if let Some(a) = m.assistant_facts() {
            if a.transcript_only {
                continue;
            }
            att.calls += 1;
            att.last = Some(a.stop);
            att.last_api_error = a.api_error;
            let has_call = m.blocks().any(|b| b.kind == BlockKind::ToolCall);
            let has_text =
                m.blocks().any(|b| b.kind == BlockKind::Text && (b.text_dropped || !b.text().trim().is_empty()));
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
        if let Some(r) = m.result_facts() {
            if r.synthetic_or_aborted {
                att.synthetic = true;
            }
            continue;
        }
        if !e.is_user_turn() {
            continue;
        }
        if let Some(p) = *prev {
            let pe = &entries[p as usize];
            if pe.raw_hash != e.raw_hash
                && user_text_hash(t, pe) == user_text_hash(t, e)
                && att.calls > 0
                && !att.last_final
            {
                let verdict = if att.last_api_error {
                    Some((false, "the attempt ended with an API-error stub".to_string()))
                } else if att.synthetic {
                    Some((false, "a tool result of the attempt was synthetic or aborted".to_string()))
                } else {
                    match att.last {
                        Some(Stop::Error) => Some((false, "the attempt ended with an error".to_string())),
                        Some(Stop::Aborted) => Some((true, "the attempt was aborted".to_string())),
                        _ => {
                            // Fallback: the next answer comes from a different model.
                            let next =
                                entries[i + 1..].iter().enumerate().filter(|(k, _)| lanes[i + 1 + k] == lane).find_map(
                                    |(_, x)| {
                                        // Unpack only the answer found (for its model name).
                                        x.assistant_facts()
                                            .filter(|a| !a.transcript_only)
                                            .and_then(|_| t.message(x).and_then(|m| m.assistant))
                                    },
                                );
                            match (next.as_ref().and_then(|a| a.model.as_deref()), att.model) {
                                (Some(n), Some(o)) if n != o => {
                                    Some((false, format!("a fallback model ({n}) took over from {o}")))
                                }
                                _ => None,
                            }
                        }
                    }
                };
                if let Some((aborted_only, why)) = verdict {
                    out.push(Replay { entry: i as u32, previous: p, aborted_only, why });
                }
            }
        }
        *prev = Some(i as u32);
        *att = Attempt::default();
    }
    out
}
