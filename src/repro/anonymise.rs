//! Anonymisation of a case: replaces personal and secret data with stable
//! placeholders of a similar shape, consistently across the whole case (the
//! same original always becomes the same placeholder, so duplicates stay
//! duplicates and ids still pair), while keeping what the rules read: keys,
//! roles, type tags, tool names, statuses, timestamps, the
//! `System: [timestamp]` label shape, XML-like tags and silent tokens.
//!
//! Classes replaced: `key` (API keys and tokens), `email`, `url`, `path`,
//! `phone`, `channel-id` (Slack, Discord), `id` (UUIDs, hex and other
//! identifiers), `name` (a `name` field beside a `role`), and, at
//! [`Level::Full`], `word` (every other word of free text, as a placeholder
//! word of the same length and case).

use super::tree::{Case, Node};
use regex::{Captures, Regex};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

/// How much is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Identifying data and every word of free text.
    Full,
    /// Identifying data only (ids, emails, phones, URLs, paths, keys, and
    /// capitalised words as likely names); other words are kept.
    Identifiers,
}

/// Keys whose string values are structure, kept as they are.
const KEEP_KEYS: &[&str] = &[
    "type",
    "role",
    "kind",
    "part_kind",
    "subtype",
    "customType",
    "provider",
    "model",
    "modelId",
    "model_name",
    "api",
    "stopReason",
    "stop_reason",
    "finish_reason",
    "status",
    "deliveryStatus",
    "action",
    "version",
    "timestamp",
    "created_at",
    "createdAt",
    "method",
    "object",
    "mimeType",
    "media_type",
    "mime_type",
    "level",
    "operation",
    "thinkingLevel",
    "userType",
    "entrypoint",
    "transport",
    "event",
];

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

/// Keys whose values are identifiers: replaced as a whole, keeping their shape.
const ID_KEYS: &[&str] = &[
    "id",
    "parentId",
    "uuid",
    "parentUuid",
    "leafUuid",
    "logicalParentUuid",
    "sessionId",
    "session_id",
    "tool_call_id",
    "toolCallId",
    "tool_use_id",
    "call_id",
    "callId",
    "requestId",
    "request_id",
    "previous_response_id",
    "conversation_id",
    "messageId",
    "message_id",
    "run_id",
    "firstKeptEntryId",
    "sourceToolAssistantUUID",
    "promptId",
    "signature",
    "encrypted_content",
];

/// Keys naming a tool (kept), unless the object is a message (then `name` is a person's).
const TOOL_NAME_KEYS: &[&str] = &["name", "toolName", "tool_name", "recipient_name", "dynamic_ref"];

/// Words kept in free text: label shapes, envelopes and silent tokens the rules look for.
const KEEP_WORDS: &[&str] = &["System", "untrusted", "aborted", "Sender", "Conversation", "info", "metadata"];

static SCAN: LazyLock<Regex> = LazyLock::new(|| {
    let key = format!(r"|(?P<key>{})", crate::text::KEY_PATTERN);
    Regex::new(&[
        r"(?x)",
        r"(?P<label>(?m:^System(?:\x20\(untrusted\))?:\x20\[[^\]\n]+\]\x20))",
        r"|(?P<ts>\b\d{4}-\d{2}-\d{2}(?:[T\x20]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\x20UTC)?)?)",
        // A tag must close (`<b>`, `</x>`, `<a href=…>`): `<alice@example.org>` is an email.
        r"|(?P<tag></?[A-Za-z][\w:-]*(?:\s[^<>@\n]*)?/?>)",
        &key,
        r"|(?P<email>[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})",
        r"|(?P<url>\b(?:https?|wss?|ftp)://[^\s\x22'<>`\])]+)",
        r"|(?P<path>(?:~|\b[A-Za-z]:)?(?:[/\\][\w.\-@+]+){2,}[/\\]?)",
        // IPv4 addresses, SSN / card / IBAN shapes and long digit runs (phone
        // numbers without separators, account numbers), before phones and ids.
        r"|(?P<ip>\b\d{1,3}(?:\.\d{1,3}){3}\b)",
        r"|(?P<number>\b\d{3}-\d{2}-\d{4}\b|\b\d{4}(?:[\x20\-]\d{4}){2,4}\b|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\b\d{7,16}\b)",
        r"|(?P<phone>\+\d{1,3}[\x20.\-]?\(?\d{1,4}\)?(?:[\x20.\-]?\d{2,4}){2,4}\b|\(\d{3}\)\x20?\d{3}[\x20.\-]\d{4}\b|\b\d{3}[.\-]\d{3}[.\-]\d{4}\b)",
        r"|(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)",
        r"|(?P<chan>\b[CDGUW][A-Z0-9]{8,11}\b|\b\d{17,20}\b)",
        r"|(?P<const>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)",
        r"|(?P<tok>\b[A-Za-z]*\d[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*\b|\b[0-9a-f]{12,}\b)",
        r"|(?P<word>[\p{L}\p{M}]+)",
    ]
    .concat())
    .expect("anonymiser regex")
});

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
            if f.format == crate::formats::aider::ID {
                if let Node::Arr(_, lines) = &mut f.root {
                    for (_, l) in lines.iter_mut() {
                        if let Node::Raw(s) = l {
                            *s = self.aider_line(s);
                        }
                    }
                    continue;
                }
            }
            self.node(&mut f.root, None, false);
        }
    }

    /// Anonymises one line of an Aider LLM history: block headers (their
    /// timestamps are kept, as everywhere) and `-------` lines stay; a role
    /// tag (`USER `) and a list item's key (`type: `, `Image_url URL: `) stay,
    /// the text after them is free text; any other line is free text.
    fn aider_line(&mut self, s: &str) -> String {
        if s == "-------" || s.starts_with("TO LLM ") || s.starts_with("LLM RESPONSE ") {
            return s.to_string();
        }
        const TAGS: &[&str] = &["SYSTEM ", "USER ", "ASSISTANT ", "DEVELOPER ", "TOOL ", "FUNCTION "];
        let Some(tag) = TAGS.iter().find(|t| s.starts_with(**t)) else { return self.text(s) };
        let rest = &s[tag.len()..];
        if let Some(p) = crate::formats::aider::injected_prefix(rest) {
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

    fn node(&mut self, n: &mut Node, key: Option<&str>, in_message: bool) {
        match n {
            Node::Scalar(_) => {}
            Node::Str(_, s) => {
                let k = key.unwrap_or("");
                if KEEP_KEYS.contains(&k) || (TOOL_NAME_KEYS.contains(&k) && !in_message) {
                    return;
                }
                if k == "uri" || k == "url" {
                    *s = self.uri(s);
                } else if ID_KEYS.contains(&k) {
                    *s = self.shape("id", s);
                } else if k == "name" {
                    *s = self.shape("name", s);
                } else {
                    *s = self.text(s);
                }
            }
            Node::Embedded(inner) => self.node(inner, key, in_message),
            Node::Raw(s) => *s = self.raw_line(s),
            Node::Arr(_, items) => {
                for (_, x) in items.iter_mut() {
                    self.node(x, key, false);
                }
            }
            Node::Obj(_, members) => {
                let message = members.iter().any(|(k, _)| k == "role");
                for (k, x) in members.iter_mut() {
                    let k = k.clone();
                    self.node(x, Some(&k), message);
                }
            }
        }
    }

    /// Anonymises a JSONL line that is not one JSON value: string literals
    /// that are not keys are replaced; a string cut off by the end of the
    /// line has its letters and digits masked.
    fn raw_line(&mut self, s: &str) -> String {
        let b = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut last_key: Option<String> = None;
        let mut i = 0;
        while i < b.len() {
            if b[i] != b'"' {
                let next = s[i..].find('"').map(|k| i + k).unwrap_or(b.len());
                out.push_str(&s[i..next]);
                i = next;
                continue;
            }
            let mut j = i + 1;
            let mut closed = false;
            while j < b.len() {
                match b[j] {
                    b'\\' => j += 2,
                    b'"' => {
                        closed = true;
                        break;
                    }
                    _ => j += 1,
                }
            }
            if !closed {
                // A torn string: letters and digits become placeholders, but JSON
                // escapes (`\n`, `\"`, `\u00e9`) stay escapes, so the line stays
                // torn in the same way (the parse error is part of the finding).
                let mut rest = String::with_capacity(s.len() - i);
                let mut keep = 0usize;
                for c in s[i..].chars() {
                    if keep > 0 {
                        keep -= 1;
                        rest.push(c);
                        if keep == 0 && c == 'u' {
                            keep = 4;
                        }
                        continue;
                    }
                    if c == '\\' {
                        keep = 1;
                        rest.push(c);
                        continue;
                    }
                    rest.push(if c.is_alphanumeric() { if c.is_numeric() { '0' } else { 'x' } } else { c });
                }
                out.push_str(&rest);
                break;
            }
            let lit = &s[i..=j.min(b.len() - 1)];
            let is_key = s[(j + 1).min(b.len())..].trim_start().starts_with(':');
            match serde_json::from_str::<String>(lit) {
                Ok(text) if is_key => {
                    out.push_str(lit);
                    last_key = Some(text);
                }
                Ok(text) => {
                    let k = last_key.take().unwrap_or_default();
                    let t = if KEEP_KEYS.contains(&k.as_str()) || TOOL_NAME_KEYS.contains(&k.as_str()) {
                        text
                    } else if ID_KEYS.contains(&k.as_str()) {
                        self.shape("id", &text)
                    } else {
                        self.text(&text)
                    };
                    out.push_str(&serde_json::to_string(&t).unwrap_or_default());
                }
                Err(_) => out.push_str(lit),
            }
            i = j + 1;
        }
        out
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
        let re = &*SCAN;
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in re.captures_iter(s) {
            let m = c.get(0).expect("match");
            out.push_str(&s[last..m.start()]);
            out.push_str(&self.replace(&c));
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }

    fn replace(&mut self, c: &Captures) -> String {
        let m = &c[0];
        if c.name("label").is_some() || c.name("ts").is_some() || c.name("tag").is_some() || c.name("const").is_some() {
            return m.to_string();
        }
        if c.name("key").is_some() {
            return self.key(m);
        }
        if c.name("email").is_some() {
            return self.numbered("email", m, |n| format!("user{n}@example.com"));
        }
        if c.name("url").is_some() {
            return self.numbered("url", m, |n| format!("https://example.com/page{n}"));
        }
        if c.name("path").is_some() {
            let ext = m.rsplit(['/', '\\']).next().and_then(|last| last.rsplit_once('.')).map(|(_, e)| e);
            let ext = ext.filter(|e| e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric()));
            let dir = m.ends_with('/');
            // As long as the original (padded in the file name): a block's
            // length can decide a finding (`context-block-min`).
            let want = m.chars().count();
            return self.numbered("path", m, |n| {
                let mut p = format!("/home/user{n}/file{n}");
                let tail = ext.map_or(0, |e| e.len() + 1) + usize::from(dir);
                if p.len() + tail < want {
                    p.push('_');
                    while p.len() + tail < want {
                        p.push('x');
                    }
                }
                if let Some(e) = ext {
                    p.push('.');
                    p.push_str(e);
                }
                if dir {
                    p.push('/');
                }
                p
            });
        }
        if c.name("phone").is_some() {
            return self.shape("phone", m);
        }
        if c.name("ip").is_some() {
            return self.numbered("ip", m, |n| format!("192.0.2.{}", n % 250 + 1));
        }
        if c.name("number").is_some() {
            return self.shape("number", m);
        }
        if c.name("uuid").is_some() || c.name("tok").is_some() {
            return self.shape("id", m);
        }
        if c.name("chan").is_some() && m.chars().any(|c| c.is_ascii_digit()) {
            return self.shape("channel-id", m);
        }
        // A word. At the lighter level only capitalised words (likely names) go.
        let capitalised = m.chars().next().is_some_and(char::is_uppercase) && m.chars().skip(1).any(char::is_lowercase);
        if (self.level == Level::Identifiers && !capitalised) || m.chars().count() <= 2 || KEEP_WORDS.contains(&m) {
            return m.to_string();
        }
        self.word(m)
    }

    fn note(&mut self, class: &'static str) {
        *self.counts.entry(class).or_insert(0) += 1;
    }

    fn numbered(&mut self, class: &'static str, orig: &str, make: impl Fn(u64) -> String) -> String {
        if let Some(p) = self.map.get(&(class, orig.to_string())) {
            return p.clone();
        }
        let n = self.counters.entry(class).or_insert(0);
        *n += 1;
        let p = make(*n);
        self.note(class);
        self.used.insert(p.clone());
        self.map.insert((class, orig.to_string()), p.clone());
        p
    }

    /// An API key or token: its recognisable prefix, `REDACTED`, a number.
    fn key(&mut self, orig: &str) -> String {
        if let Some((scheme, _)) = orig.split_once("://") {
            // Credentials in a URL: the user and the password both go.
            let scheme = scheme.to_string();
            return self.numbered("key", orig, |n| format!("{scheme}://user{n}:REDACTED@"));
        }
        if orig.starts_with("-----BEGIN") {
            return self.numbered("key", orig, |n| {
                format!("-----BEGIN PRIVATE KEY-----\nREDACTED-{n:06}\n-----END PRIVATE KEY-----")
            });
        }
        let prefix: String = {
            let lower = orig.to_ascii_lowercase();
            if lower.starts_with("bearer") {
                "Bearer ".into()
            } else if orig.starts_with("eyJ") {
                // A JWT is replaced whole: its header and payload are data too.
                "eyJ".into()
            } else if let Some(i) = orig.find(['-', '_']).filter(|&i| i <= 12) {
                orig[..=i].to_string()
            } else {
                orig.chars().take(4).collect()
            }
        };
        self.numbered("key", orig, |n| format!("{prefix}REDACTED-{n:06}"))
    }

    /// A placeholder of the same shape: digits stay digits, letters stay
    /// letters of the same case (hex stays hex), everything else is kept; a
    /// short alphabetic prefix before `_` (`call_`, `toolu_`, `msg_`) is kept.
    fn shape(&mut self, class: &'static str, orig: &str) -> String {
        if orig.is_empty() {
            return String::new();
        }
        if let Some(p) = self.map.get(&(class, orig.to_string())) {
            return p.clone();
        }
        let keep = match orig.find('_') {
            Some(i) if i <= 6 && orig[..i].chars().all(|c| c.is_ascii_alphabetic()) => i + 1,
            _ => 0,
        };
        let hex = orig[keep..].chars().all(|c| c.is_ascii_hexdigit() || !c.is_alphanumeric());
        let mut attempt = 0u64;
        loop {
            let n = self.counters.entry(class).or_insert(0);
            *n += 1;
            let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03);
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let body: String = orig[keep..]
                .chars()
                .map(|c| {
                    let r = next();
                    if c.is_ascii_digit() {
                        char::from(b'0' + (r % 10) as u8)
                    } else if hex && c.is_ascii_hexdigit() {
                        let d = b"0123456789abcdef"[(r % 16) as usize];
                        let ch = char::from(d);
                        if c.is_ascii_uppercase() { ch.to_ascii_uppercase() } else { ch }
                    } else if c.is_ascii_uppercase() {
                        char::from(b'A' + (r % 26) as u8)
                    } else if c.is_alphabetic() {
                        char::from(b'a' + (r % 26) as u8)
                    } else {
                        c
                    }
                })
                .collect();
            let p = format!("{}{}", &orig[..keep], body);
            attempt += 1;
            if (p != orig && !self.used.contains(&p)) || attempt > 8 {
                self.note(class);
                self.used.insert(p.clone());
                self.map.insert((class, orig.to_string()), p.clone());
                return p;
            }
        }
    }

    /// A placeholder word of the same length and case pattern (the mapping is
    /// per lower-cased word, so `Hello` and `hello` stay related).
    fn word(&mut self, orig: &str) -> String {
        let lower = orig.to_lowercase();
        let base = match self.map.get(&("word", lower.clone())) {
            Some(p) => p.clone(),
            None => {
                let len = lower.chars().count();
                let mut p;
                let mut attempt = 0u32;
                loop {
                    let n = self.counters.entry("word").or_insert(0);
                    *n += 1;
                    // Pronounceable first; plain letters once those of this length run out;
                    // a repeat is accepted in the end rather than looping (short words only).
                    p = if attempt < 200 { syllables(*n, len) } else { letters(*n, len) };
                    attempt += 1;
                    if (!self.used.contains(&p) && p != lower) || attempt > 2_000 {
                        break;
                    }
                }
                self.note("word");
                self.used.insert(p.clone());
                self.map.insert(("word", lower), p.clone());
                p
            }
        };
        // Apply the original's case pattern.
        let upper_all = orig.chars().count() > 1 && orig.chars().all(|c| !c.is_lowercase());
        base.chars()
            .zip(orig.chars().chain(std::iter::repeat('a')))
            .map(|(p, o)| if upper_all || o.is_uppercase() { p.to_ascii_uppercase() } else { p })
            .collect()
    }
}

/// A placeholder of `len` letters, any letters.
fn letters(n: u64, len: usize) -> String {
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'a' + (x % 26) as u8)
        })
        .collect()
}

/// The `n`-th pronounceable placeholder word of `len` letters.
fn syllables(n: u64, len: usize) -> String {
    const C: &[u8] = b"bdfgklmnprstvz";
    const V: &[u8] = b"aeiou";
    let mut x = n.wrapping_mul(0x2545_F491_4F6C_DD1D);
    (0..len)
        .map(|i| {
            let set = if i % 2 == 0 { C } else { V };
            let c = set[(x % set.len() as u64) as usize];
            x /= set.len() as u64;
            if x == 0 {
                x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32 + 1) | 1;
            }
            char::from(c)
        })
        .collect()
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
    fn jwts_pem_blocks_and_url_credentials_go_whole() {
        let mut a = Anonymiser::new(Level::Identifiers);
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZUBleGFtcGxlLm9yZyJ9.dBjf-J_xK9sP2mQ7rT4vW1yZ";
        assert_eq!(a.text(&format!("auth {jwt} done")), "auth eyJREDACTED-000001 done");
        let out = a.text("clone https://deploy:S3cr3tPassw0rd@git.example.com/r.git");
        assert!(!out.contains("S3cr3t") && !out.contains("deploy"), "{out}");
        let pem =
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----";
        assert_eq!(a.text(pem), "-----BEGIN PRIVATE KEY-----\nREDACTED-000003\n-----END PRIVATE KEY-----");
    }

    #[test]
    fn numbers_addresses_and_bracketed_emails_are_replaced() {
        let mut a = Anonymiser::new(Level::Full);
        let planted = [
            "alice@example.org",
            "123-45-6789",
            "4111 1111 1111 1111",
            "4155550100",
            "203.0.113.45",
            "DE89370400440532013000",
        ];
        let s = "From Alice <alice@example.org>, SSN 123-45-6789, card 4111 1111 1111 1111, \
                 call 4155550100 at 203.0.113.45, IBAN DE89370400440532013000 <b>bold</b>";
        let out = a.text(s);
        for p in planted {
            assert!(!out.contains(p), "{p} survived in {out}");
        }
        assert!(!out.contains("alice"), "{out}");
        assert!(out.contains("<b>") && out.contains("</b>"), "closed tags are kept: {out}");
    }

    #[test]
    fn keeps_labels_timestamps_and_silent_tokens() {
        let mut a = Anonymiser::new(Level::Full);
        let out = a
            .text("System: [2026-06-20 09:14:02 UTC] Slack DM from Bob\nNO_REPLY <system-reminder>x</system-reminder>");
        assert!(out.starts_with("System: [2026-06-20 09:14:02 UTC] "), "{out}");
        assert!(out.contains("NO_REPLY"), "{out}");
        assert!(out.contains("<system-reminder>"), "{out}");
        assert!(!out.contains("Bob") && !out.contains("Slack"), "{out}");
        // Same length, same case pattern.
        assert_eq!(
            out.len(),
            "System: [2026-06-20 09:14:02 UTC] Slack DM from Bob\nNO_REPLY <system-reminder>x</system-reminder>".len()
        );
    }

    #[test]
    fn the_lighter_level_keeps_common_words_but_not_names() {
        let mut a = Anonymiser::new(Level::Identifiers);
        let out = a.text("please ask Alice about the deploy");
        assert!(out.starts_with("please ask ") && out.ends_with(" about the deploy"), "{out}");
        assert!(!out.contains("Alice"), "{out}");
    }

    #[test]
    fn ids_keep_their_shape() {
        let mut a = Anonymiser::new(Level::Full);
        let p = a.shape("id", "toolu_01AbC9");
        assert!(p.starts_with("toolu_") && p.len() == 12 && p != "toolu_01AbC9", "{p}");
        let u = a.shape("id", "8555a0a4-0b79-459d-939c-e17cdbbf4fe2");
        assert_eq!(u.len(), 36);
        assert!(u.chars().all(|c| c == '-' || c.is_ascii_hexdigit()), "{u}");
    }

    #[test]
    fn many_short_words_terminate() {
        let mut a = Anonymiser::new(Level::Full);
        let mut seen = HashSet::new();
        for i in 0..3_000u32 {
            let w: String = [b'a' + (i % 26) as u8, b'a' + (i / 26 % 26) as u8, b'a' + (i / 676 % 26) as u8]
                .iter()
                .map(|&b| char::from(b))
                .collect();
            let p = a.text(&w);
            assert_eq!(p.len(), 3);
            seen.insert(p);
        }
        assert!(seen.len() > 2_900, "{}", seen.len());
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

    #[test]
    fn torn_lines_are_masked() {
        let mut a = Anonymiser::new(Level::Full);
        let out = a.raw_line(r#"{"type":"message","text":"hello alice@x.org"}{"type":"mess"#);
        assert!(out.starts_with(r#"{"type":"message","text":""#), "{out}");
        assert!(!out.contains("alice"), "{out}");
        assert!(out.ends_with(r#"{"type":"xxxx"#), "{out}");
    }

    #[test]
    fn a_torn_string_keeps_its_json_escapes() {
        let mut a = Anonymiser::new(Level::Full);
        let out = a.raw_line(r#"{"type":"user","content":"passed [ 33%]\n\u00e9tape \"done\" an"#);
        assert_eq!(out, r#"{"type":"user","content":"xxxxxx [ 00%]\n\u00e9xxxx \"xxxx\" xx"#);
        assert!(serde_json::from_str::<serde_json::Value>(&format!("{out}\"}}")).is_ok(), "{out}");
    }
}
