//! When two user turns are "the same turn" (SPEC §2 CTX102 and CTX203): their
//! texts are equal once per-message envelopes, re-rendered system-event label
//! lines and timestamps are set aside. A runtime that re-sends a turn
//! re-renders those parts, and a scheduled prompt (a heartbeat poll, a cron
//! trigger) carries a new timestamp every time.
//!
//! What is set aside, and where the shapes come from:
//! - OpenClaw's per-message envelopes: a line ending in `(untrusted metadata):`
//!   followed by a fenced JSON block (`Sender (untrusted metadata):`,
//!   `Conversation info (untrusted metadata):`, `Replied message (untrusted,
//!   for context):`; openclaw `src/auto-reply/reply/inbound-meta.ts`);
//! - system-event label lines (`System: [<time>] …`, `System (untrusted): [<time>] …`;
//!   openclaw `src/infra/system-events.ts`, the default CTX101 pattern);
//! - GitHub Copilot CLI's `<current_datetime>` stamp and `<reminder>` /
//!   `<system_reminder>` state block around a `user.message`'s text;
//! - timestamps: ISO 8601 date-times, OpenClaw's envelope prefix
//!   `[Sun 2026-03-08 22:03 GMT+9]`, and bare clock times `10:04` / `10:04:05`.

use regex::Regex;
use std::sync::LazyLock;

static ENVELOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[^\n]*\(untrusted[^\n]*\):[ \t]*\n```[A-Za-z]*\n(?s:.*?)\n```[ \t]*(?:\n|$)").expect("regex")
});
/// GitHub Copilot CLI's per-message envelopes around the person's text in a
/// `user.message`'s `transformedContent`: the `<current_datetime>` stamp and
/// the `<reminder>` / `<system_reminder>` block that carries the session's
/// state (`<sql_tables>`, instruction context), re-rendered on every message
/// (as written in `events.jsonl` by Copilot CLI 0.0.3xx–1.0.x).
static COPILOT_ENVELOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<current_datetime>[^<]*</current_datetime>|<(?:system_reminder|reminder)>(?s:.*?)</(?:system_reminder|reminder)>")
        .expect("regex")
});
static EVENT_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]*System(?: \(untrusted\))?: \[[^\]\n]+\][^\n]*(?:\n|$)").expect("regex"));
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\[(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? )?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}[^\]\n]{0,24}\]",
        r"|\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?: ?(?:Z|UTC|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}:?\d{2}))?",
        r"|\b\d{1,2}:\d{2}(?::\d{2})?\b",
    ))
    .expect("regex")
});

/// The text of a user turn with envelopes, event label lines and timestamps
/// removed and white space folded: equal results mean the same turn.
pub fn normalise(text: &str) -> String {
    let a = ENVELOPE.replace_all(text, "");
    let a = if a.contains("<current_datetime>") || a.contains("reminder>") {
        std::borrow::Cow::Owned(COPILOT_ENVELOPE.replace_all(&a, "").into_owned())
    } else {
        a
    };
    let b = EVENT_LINE.replace_all(&a, "");
    let c = TIMESTAMP.replace_all(&b, "");
    c.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A hash of the normalised texts of a message's text blocks, in order
/// (see [`normalise`]). Cheap when a block has none of the set-aside parts.
pub fn key<'a>(texts: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut h = 0xcbf29ce484222325u64;
    for t in texts {
        let n = normalise(t);
        if n.is_empty() {
            continue;
        }
        h = (h ^ crate::hash::hash_str(&n)).wrapping_mul(0x100000001b3);
    }
    h
}

/// [`key`] over a message's blocks: text blocks normalised, every other
/// block (an image, a document) by its own hash, so a turn with an image is
/// not the same turn as one without. Each block is `(kind, text, text hash)`.
pub fn key_blocks<'a>(blocks: impl IntoIterator<Item = (crate::model::BlockKind, &'a str, u64)>) -> u64 {
    let mut h = 0xcbf29ce484222325u64;
    for (kind, text, hash) in blocks {
        let x = if kind == crate::model::BlockKind::Text {
            let n = normalise(text);
            if n.is_empty() {
                continue;
            }
            crate::hash::hash_str(&n)
        } else {
            hash ^ (kind as u64).wrapping_mul(0x9e3779b97f4a7c15)
        };
        h = (h ^ x).wrapping_mul(0x100000001b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_labels_and_timestamps_are_set_aside() {
        let a = "Sender (untrusted metadata):\n```json\n{\n  \"id\": \"u1\"\n}\n```\n\n[Sun 2026-03-08 22:03 GMT+9] check the heartbeat";
        let b = "Sender (untrusted metadata):\n```json\n{\n  \"id\": \"u2\"\n}\n```\n\n[Sun 2026-03-08 23:03 GMT+9] check the heartbeat";
        assert_eq!(normalise(a), "check the heartbeat");
        assert_eq!(key([a]), key([b]));
        let e1 = "System: [2026-03-08 22:03:01 UTC] Slack DM from ana\n\nplease rerun";
        let e2 = "System: [2026-03-08 22:04:09 UTC] Slack DM from ana\nplease rerun";
        assert_eq!(normalise(e1), "please rerun");
        assert_eq!(key([e1]), key([e2]));
        assert_eq!(normalise("Read HEARTBEAT.md at 2026-03-08T13:03:00.000Z now"), "Read HEARTBEAT.md at now");
        assert_eq!(normalise("poll at 10:04:05 please"), "poll at please");
    }

    #[test]
    fn different_texts_stay_different() {
        assert_ne!(key(["summarise the incident"]), key(["summarise the outage"]));
        assert_ne!(key(["a", "b"]), key(["b", "a"]));
        // Numbers that are not times stay.
        assert_ne!(key(["version 1.2"]), key(["version 1.3"]));
    }
}
