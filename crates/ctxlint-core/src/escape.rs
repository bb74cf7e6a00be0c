//! Escaping for terminals and CI logs: every text from a file or a file
//! name that ctxlint prints goes through here, so that it cannot move the
//! cursor, recolour the terminal, reorder the text after it or forge a CI
//! workflow command. The lowest layer: it uses nothing of the crate.

use std::path::Path;

/// `s` with control characters made visible (`\u{1b}`, `\n`), as excerpts
/// show them: for file names in human output and messages, so that a name
/// cannot move the cursor, recolour the terminal or forge a line.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    escape_controls_but(s, &[])
}

/// [`escape_controls`] keeping the characters in `keep` (a message's own
/// line breaks).
pub fn escape_controls_but<'a>(s: &'a str, keep: &[char]) -> std::borrow::Cow<'a, str> {
    if !s.chars().any(|c| hidden(c) && !keep.contains(&c)) && !s.contains(LEGACY_COMMAND) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev = ['\0', '\0'];
    for c in s.chars() {
        let legacy = c == '[' && prev == ['#', '#'];
        prev = [prev[1], c];
        match c {
            _ if legacy => out.push_str("\\u{5b}"),
            c if keep.contains(&c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// GitHub's legacy workflow-command marker, read anywhere in a line of a
/// job's output (actions/runner `ActionCommand.TryParse`): `##[stop-commands]`
/// in a file name would turn off every annotation after it. Its `[` is shown
/// escaped (`##\u{5b}`) wherever names, ids and excerpts are.
pub const LEGACY_COMMAND: &str = "##[";

/// `s` with only its bidirectional controls escaped (see [`hidden`]): for
/// rendered output that holds its own colour codes.
pub fn escape_bidi(s: &str) -> std::borrow::Cow<'_, str> {
    let bidi = |c: char| hidden(c) && !c.is_control();
    if !s.chars().any(bidi) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars().map(|c| if bidi(c) { format!("\\u{{{:x}}}", c as u32) } else { c.to_string() }).collect(),
    )
}

/// A character shown escaped (`\u{202e}`) rather than as itself: a control
/// character (Unicode category Cc), or a bidirectional control (U+202A to
/// U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C), which reorders the
/// text drawn after it ("Trojan Source", CVE-2021-42574).
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// A path shown in a message: its control characters escaped.
pub fn shown(p: &Path) -> String {
    escape_controls(&p.to_string_lossy()).into_owned()
}

/// A line of output a CI runner might read: a line that starts (after
/// blanks, which runners trim) with a workflow command's `::` has its first
/// `:` shown escaped (`\u{3a}:`), so that quoted text cannot forge one.
pub fn no_ci_command(line: &str) -> std::borrow::Cow<'_, str> {
    let body = line.trim_start();
    match body.strip_prefix("::") {
        Some(rest) => std::borrow::Cow::Owned(format!("{}\\u{{3a}}:{rest}", &line[..line.len() - body.len()])),
        None => std::borrow::Cow::Borrowed(line),
    }
}
