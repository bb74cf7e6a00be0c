//! Anonymisation of a case: replaces personal and secret data with stable
//! placeholders of a similar shape, consistently across the whole case (the
//! same original always becomes the same placeholder, so duplicates stay
//! duplicates and ids still pair), while keeping what the rules read: keys,
//! roles, type tags, tool names (but for an MCP tool's server), statuses,
//! timestamps, the `System: [timestamp]` label shape, XML-like tags and
//! silent tokens.
//!
//! Classes replaced (the names `repro` reports):
//!
//! - `key`: API keys and tokens (their known prefix kept), JWTs, PEM blocks,
//!   credentials in URLs.
//! - `email`, `url` (`https://example.com/page<n>`), `path`
//!   (`/home/user<n>/file<n>`, as long as the original).
//! - `ip`: IPv4 addresses (`192.0.2.<n>`) and IPv6 ones, full, compressed, with
//!   a zone or IPv4-mapped, replaced whole (`fd00::<n>`, `::ffff:192.0.2.<n>`).
//! - `phone`: international (`+44 20 7946 0958`), with a trunk 0 and groups
//!   separated by one kind of separator (`020 7946 0958`, `07700 900123`,
//!   `01 23 45 67 89`, `03-1234-5678`), with a parenthesised area code
//!   (`(11) 91234-5678`), North American 3-3-4; 8 to 15 digits, never a date
//!   (`01.02.2024`) or part of a longer run of digit groups (`1 048 576`).
//! - `number`: SSNs, card numbers (in fours up to 19 digits, Amex and Diners
//!   4-6-5 and 4-6-4, in one run, the last four of a masked one), IBANs (in
//!   one run or in groups of four, country and check digits too), digit runs
//!   of 7 to 16.
//! - `address`: house numbers beside street words (`221B Baker Street`,
//!   `Hauptstraße 5`, `Via Roma 10`, `12 rue de la Paix`) and postcodes: UK
//!   (`NW1 6XE`), US ZIP and ZIP+4 after a state (`, CA 94043`), 5-digit
//!   European before a city after a comma or at a line start
//!   (`, 10115 Berlin`). The street and city names are words (below).
//! - `passport`: one or two capitals and 6 to 9 digits (`X1234567`); document
//!   numbers that mix letters and digits (`L898902C3`) are `id`s.
//! - `plate`: UK (`AB12 CDE`), German (`B-MW 1234`) and French (`AB-123-CD`)
//!   licence plates written with their separators; run-together ones
//!   (`7ABC123`) are `id`s. Plates without a digit-letter mix (`ABC 1234`,
//!   shared with `ISO 8601`) are not recognised.
//! - `channel-id` (Slack, Discord), `id` (UUIDs, hex and other identifiers
//!   mixing letters and digits).
//! - `mcp-server`: the server segment of an MCP tool name
//!   (`mcp__<server>__<tool>`), user-chosen and often a person's or an
//!   account's name, wherever the tool name appears (tool calls, results,
//!   definitions, free text), at both levels: each word of three letters or
//!   more as the same word of free text becomes at the full level, digits
//!   shifted; the `mcp__` prefix, the separators and the tool are kept, so
//!   calls still pair. A server named on its own (`alice_gmail` in prose) is
//!   free text; object keys (an `mcpServers` map's) are never replaced.
//! - `name`: a `name` field beside a `role`.
//! - `word`, at [`Level::Full`]: every other word of free text, as a
//!   placeholder word of the same length and case.
//!
//! Phones, cards, IBANs, addresses, passports and plates keep their shape with
//! every digit and letter changed in place, so no group of the original
//! survives. Kept: timestamps, times, versions, line and column numbers,
//! ports, small numbers in prose, `CONSTANT_CASE` tokens, code paths
//! (`std::fs`, `x[::2]`).
//!
//! The code, by job: `classes.rs` holds the classes of free text and the
//! regexes built from them; `walk.rs` walks a case's JSON or YAML tree (which
//! keys' values are kept, which are ids or tool names) and its unparsed JSONL
//! lines; `aider.rs` reads the lines of Aider's text format; `free_text.rs`
//! scans free text and replaces each class's matches; `tool_names.rs`
//! replaces what identifies in a tool name and an MCP tool's server;
//! `placeholders.rs` makes the consistent placeholders (numbered, same shape,
//! every character changed, words).

mod aider;
mod classes;
mod free_text;
mod placeholders;
mod tool_names;
mod walk;

use super::tree::{Case, Node};
use classes::MCP;
use regex::Captures;
use std::collections::{BTreeMap, HashMap, HashSet};

/// How much is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Identifying data and every word of free text.
    Full,
    /// Identifying data only (every class but `word`, and capitalised words
    /// as likely names); other words are kept.
    Identifiers,
}

/// Hosts of public model APIs, kept in request URIs.
const PUBLIC_HOSTS: &[&str] = &[
    "api.openai.com",
    "api.anthropic.com",
    "googleapis.com",
    "amazonaws.com",
    "api.mistral.ai",
    "api.groq.com",
    "api.cohere.com",
    "api.cohere.ai",
    "huggingface.co",
    "api.deepseek.com",
    "openrouter.ai",
    "api.x.ai",
    "api.together.xyz",
    "api.fireworks.ai",
    "openai.azure.com",
    "localhost",
    "127.0.0.1",
];

/// `s` with the server segment of every MCP tool name (`mcp__<server>__<tool>`)
/// replaced by `~`: what stays the same when a case is anonymised (a finding
/// message that names a tool is compared in this form).
pub fn mask_mcp_servers(s: &str) -> std::borrow::Cow<'_, str> {
    MCP.replace_all(s, |c: &Captures| format!("mcp__~__{}", &c[0][7 + c[1].len()..]))
}

/// Replaces data consistently; one per case.
#[derive(Debug)]
pub struct Anonymiser {
    level: Level,
    map: HashMap<(&'static str, String), String>,
    used: HashSet<String>,
    counters: HashMap<&'static str, u64>,
    counts: BTreeMap<&'static str, usize>,
}

impl Anonymiser {
    /// A fresh anonymiser.
    pub fn new(level: Level) -> Self {
        Anonymiser {
            level,
            map: HashMap::new(),
            used: HashSet::new(),
            counters: HashMap::new(),
            counts: BTreeMap::new(),
        }
    }

    /// Distinct originals replaced, per class.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        self.counts.clone()
    }

    /// Anonymises every file of a case in place, in file order.
    pub fn case(&mut self, case: &mut Case) {
        for f in &mut case.files {
            if let Some(text) = crate::formats::descriptor(f.format).and_then(|d| d.repro.text) {
                if let Node::Arr(_, lines) = &mut f.root {
                    for (_, l) in lines.iter_mut() {
                        if let Node::Raw(s) = l {
                            *s = self.aider_line(s, text.kept_opening);
                        }
                    }
                    continue;
                }
            }
            self.node(&mut f.root, None, false);
        }
    }

    /// A request URI: the scheme and path are kept (the endpoint pairs
    /// requests), a host outside the public provider APIs becomes
    /// `api.example.com`, query values are replaced by placeholders of their shape.
    pub fn uri(&mut self, s: &str) -> String {
        let Some((scheme, rest)) = s.split_once("://") else { return self.text(s) };
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (path, query) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        let public = PUBLIC_HOSTS.iter().any(|h| host == *h || host.ends_with(&format!(".{h}")));
        let host = if public {
            host.to_string()
        } else {
            self.note("url");
            "api.example.com".to_string()
        };
        let mut out = format!("{scheme}://{host}{path}");
        if let Some(q) = query {
            let parts: Vec<String> = q
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, v)) if !v.is_empty() && !matches!(v, "true" | "false") => {
                        format!("{k}={}", self.shape("id", v))
                    }
                    _ => kv.to_string(),
                })
                .collect();
            out.push('?');
            out.push_str(&parts.join("&"));
        }
        out
    }

    /// Anonymises free text.
    pub fn text(&mut self, s: &str) -> String {
        self.scan(s, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_identifying_data_consistently() {
        let mut a = Anonymiser::new(Level::Full);
        let s = "Mail alice.smith@corp.io or call +1 415 555 0134; key sk-proj-abcdefghijklmnopqrstuv in /home/alice/notes.txt, see https://corp.io/x?a=1 in C08ABCDEF12";
        let out = a.text(s);
        for leak in ["alice", "corp.io", "415", "abcdefghijklmnop", "notes", "C08ABCDEF12"] {
            assert!(!out.contains(leak), "{leak} in {out}");
        }
        assert!(out.contains("user1@example.com"), "{out}");
        assert!(out.contains("sk-REDACTED-000001"), "{out}");
        assert!(out.contains("/home/user1/file1.txt"), "{out}");
        assert_eq!(a.text(s), out, "the same original gives the same placeholder");
    }

    #[test]
    fn uris_keep_their_endpoint() {
        let mut a = Anonymiser::new(Level::Full);
        assert_eq!(
            a.uri("https://api.anthropic.com/v1/messages?beta=true"),
            "https://api.anthropic.com/v1/messages?beta=true"
        );
        let g = a.uri("https://generativelanguage.googleapis.com/v1beta/models/x:generateContent?key=AIzaSyA1234567");
        assert!(g.starts_with("https://generativelanguage.googleapis.com/v1beta/models/x:generateContent?key="), "{g}");
        assert!(!g.contains("AIzaSyA1234567"), "{g}");
        assert_eq!(
            a.uri("http://llm.corp.internal:8080/v1/chat/completions"),
            "http://api.example.com/v1/chat/completions"
        );
    }
}
