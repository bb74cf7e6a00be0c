//! The lines of a text format's case (Aider's LLM history): block headers,
//! separators, role tags and list-item keys kept, the rest free text.

use super::Anonymiser;

impl Anonymiser {
    /// Anonymises one line of an Aider LLM history: block headers (their
    /// timestamps are kept, as everywhere) and `-------` lines stay; a role
    /// tag (`USER `) and a list item's key (`type: `, `Image_url URL: `) stay,
    /// the text after them is free text; any other line is free text.
    pub(super) fn aider_line(&mut self, s: &str, kept_opening: fn(&str) -> Option<&'static str>) -> String {
        if s == "-------" || s.starts_with("TO LLM ") || s.starts_with("LLM RESPONSE ") {
            return s.to_string();
        }
        const TAGS: &[&str] = &["SYSTEM ", "USER ", "ASSISTANT ", "DEVELOPER ", "TOOL ", "FUNCTION "];
        let Some(tag) = TAGS.iter().find(|t| s.starts_with(**t)) else { return self.text(s) };
        let rest = &s[tag.len()..];
        if let Some(p) = kept_opening(rest) {
            // Aider's own context openings decide how the message is read.
            let tail = self.text(&rest[p.len()..]);
            return format!("{tag}{p}{tail}");
        }
        let key_len = rest
            .split_once(": ")
            .filter(|(k, _)| {
                !k.is_empty() && k.len() <= 24 && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b' ')
            })
            .map_or(0, |(k, _)| k.len() + 2);
        let (key, value) = rest.split_at(key_len);
        let value = if key == "type: " { value.to_string() } else { self.text(value) };
        format!("{tag}{key}{value}")
    }
}
