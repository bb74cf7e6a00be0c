//! When two user turns are "the same turn" (docs/spec.md §2 CTX102 and CTX203): their
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
//!   openclaw `src/infra/system-events.ts`, the default CTX101 pattern) and
//!   the `System: …` continuation lines of a multi-line event after them;
//! - GitHub Copilot CLI's `<current_datetime>` stamp, `<tools_changed_notice>` and `<reminder>` /
//!   `<system_reminder>` state block around a `user.message`'s text;
//! - OpenClaw's abort note, put before the next message after a run was
//!   aborted (`Note: The previous agent run was aborted by the user. Resume
//!   carefully or ask for clarification.` and a blank line; openclaw
//!   `src/auto-reply/reply/body.ts`, `abortedHint`): the message re-sent after
//!   an aborted run carries it, its first copy does not;
//! - the heartbeat and cron prompts' whole `Current time: …` line (openclaw
//!   `src/agents/current-time.ts`): a poll written before an update added the
//!   line is the same poll as one written after it;
//! - timestamps: ISO 8601 date-times and dates, OpenClaw's envelope prefix
//!   `[Sun 2026-03-08 22:03 GMT+9]`, clock times `10:04` / `10:04:05` with
//!   their AM/PM and time-zone words, weekday names, written dates (`April
//!   19th, 2026`, `19 April 2026`), IANA zones in parentheses and UTC/GMT
//!   offsets — the heartbeat and cron prompts' `Current time: Sunday, April
//!   19th, 2026 - 6:26 AM (America/Los_Angeles) / 2026-04-19 13:26 UTC` line
//!   (openclaw `src/agents/current-time.ts`, `src/infra/heartbeat-runner.ts`).

use regex::Regex;
use std::sync::LazyLock;

static ENVELOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[^\n]*\(untrusted[^\n]*\):[ \t]*\n```[A-Za-z]*\n(?s:.*?)\n```[ \t]*(?:\n|$)").expect("regex")
});
static EVENT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // A label line and the `System: ` continuation lines of a multi-line event.
    Regex::new(r"(?m)^[ \t]*System(?: \(untrusted\))?: \[[^\]\n]+\][^\n]*(?:\n[ \t]*System(?: \(untrusted\))?:(?:[ \t][^\n]*)?)*(?:\n|$)")
            .expect("regex")
});
static ABORT_NOTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*Note: The previous agent run was aborted by the user\. Resume carefully or ask for clarification\.[ \t]*(?:\n|$)")
        .expect("regex")
});
/// GitHub Copilot CLI's per-message envelopes around the person's text in a
/// `user.message`'s `transformedContent`: the `<current_datetime>` stamp,
/// the `<reminder>` / `<system_reminder>` block that carries the session's
/// state (`<sql_tables>`, instruction context), re-rendered on every message,
/// and the `<tools_changed_notice>` of the tools added or removed since the
/// last message (as written in `events.jsonl` by Copilot CLI 0.0.3xx–1.0.x).
static COPILOT_ENVELOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<current_datetime>[^<]*</current_datetime>|<(?:system_reminder|reminder)>(?s:.*?)</(?:system_reminder|reminder)>|<tools_changed_notice>(?s:.*?)</tools_changed_notice>")
        .expect("regex")
});
static CURRENT_TIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]*Current time:[^\n]*(?:\n|$)").expect("regex"));
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\[(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? )?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}[^\]\n]{0,24}\]",
        r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?: ?(?:Z|UTC|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}:?\d{2}))?)?",
        // A clock time with its AM/PM and zone words.
        r"|\b\d{1,2}(?::\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\b\.?)?|\s?[AaPp]\.?[Mm]\b\.?)(?:\s(?:UTC|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?|[A-Z]{1,4}T)\b)?",
        // Weekday names.
        r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b\.?",
        // Written dates: `April 19th, 2026`, `Apr 19`, `19 April 2026`.
        r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.? \d{1,2}(?:st|nd|rd|th)?\b(?:,? \d{4}\b)?",
        r"|\b\d{1,2}(?:st|nd|rd|th)? (?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\b\.?(?:,? \d{4}\b)?",
        // Time zones: an IANA name or UTC/GMT offset in parentheses, a bare UTC/GMT offset.
        r"|\((?:[A-Z][A-Za-z_]+(?:/[A-Za-z_+\-0-9]+)+|UTC|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?)\)",
        r"|\b(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?\b",
    ))
    .expect("regex")
});

/// The text of a user turn with envelopes, event label lines and timestamps
/// removed and white space folded: equal results mean the same turn.
pub fn normalise(text: &str) -> String {
    let a = ENVELOPE.replace_all(text, "");
    let a = ABORT_NOTE.replace_all(&a, "");
    let a = if a.contains("<current_datetime>") || a.contains("reminder>") || a.contains("<tools_changed_notice>") {
        std::borrow::Cow::Owned(COPILOT_ENVELOPE.replace_all(&a, "").into_owned())
    } else {
        a
    };
    let b = EVENT_LINE.replace_all(&a, "");
    let b = if b.contains("Current time:") { CURRENT_TIME.replace_all(&b, "").into_owned().into() } else { b };
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
    fn clock_date_weekday_am_pm_and_zone_words_are_set_aside() {
        // OpenClaw's heartbeat prompt, a day apart (src/agents/current-time.ts).
        let a = "Read HEARTBEAT.md if it exists.\nCurrent time: Sunday, April 19th, 2026 - 6:26 AM (America/Los_Angeles) / 2026-04-19 13:26 UTC";
        let b = "Read HEARTBEAT.md if it exists.\nCurrent time: Monday, April 20th, 2026 - 11:56 PM (America/Los_Angeles) / 2026-04-21 06:56 UTC";
        assert_eq!(key([a]), key([b]));
        assert_eq!(normalise(a), "Read HEARTBEAT.md if it exists.");
        // A poll from before the line was added is the same poll.
        assert_eq!(key(["Read HEARTBEAT.md if it exists."]), key([a]));
        // The label elsewhere on a line is the person's text.
        assert_eq!(normalise("the Current time: field is wrong"), "the Current time: field is wrong");
        assert_eq!(normalise("due 3 Jan 2026 at 9pm PST"), "due at");
        assert_eq!(normalise("on Tue. 4:05 p.m. GMT+2 ok"), "on ok");
        // Words that are not times stay.
        assert_ne!(key(["May I ask"]), key(["Can I ask"]));
        assert_ne!(key(["meet 3 people"]), key(["meet 4 people"]));
    }

    #[test]
    fn a_multi_line_event_is_set_aside_with_its_continuation_lines() {
        // A heartbeat poll that carries a cron event of several lines is still the poll.
        let a = "System: [2026-04-20 17:23:54 PDT] GOOD MORNING!\nSystem: \nSystem: **FOCUS**\nSystem: Lead with intention.\n\nRead HEARTBEAT.md if it exists.";
        assert_eq!(normalise(a), "Read HEARTBEAT.md if it exists.");
        // A line that merely starts with `System:` and follows no label stays.
        assert_eq!(normalise("System: is down\nplease check"), "System: is down please check");
    }

    #[test]
    fn abort_note_is_set_aside() {
        let a = "Conversation info (untrusted metadata):\n```json\n{\"m\": 1}\n```\n\nship the release notes";
        let b = "Note: The previous agent run was aborted by the user. Resume carefully or ask for clarification.\n\nConversation info (untrusted metadata):\n```json\n{\"m\": 2}\n```\n\nship the release notes";
        assert_eq!(key([a]), key([b]));
    }

    #[test]
    fn different_texts_stay_different() {
        assert_ne!(key(["summarise the incident"]), key(["summarise the outage"]));
        assert_ne!(key(["a", "b"]), key(["b", "a"]));
        // Numbers that are not times stay.
        assert_ne!(key(["version 1.2"]), key(["version 1.3"]));
    }
}
