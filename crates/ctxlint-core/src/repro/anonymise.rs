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

use super::tree::{Case, Node};
use regex::{Captures, Regex};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

/// How much is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Identifying data and every word of free text.
    Full,
    /// Identifying data only (every class but `word`, and capitalised words
    /// as likely names); other words are kept.
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
    // OpenTelemetry: event names and the SDK's span kind say what a record is.
    "eventName",
    "event_name",
    "event.name",
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
    // OpenTelemetry trace and span ids (OTLP/JSON, the JS and Python SDK dumps).
    "traceId",
    "spanId",
    "parentSpanId",
    "trace_id",
    "span_id",
    "parent_id",
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

/// Street types after a house number and street name (`221B Baker Street`).
const STREET_AFTER: &str = "Street|St|Road|Rd|Avenue|Ave|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Square|Sq|Way|Parkway|Pkwy|Terrace|Close|Crescent|Highway|Hwy|Loop|Row|Mews";
/// Endings of one-word street names before a house number (`Hauptstraße 5`,
/// `Kerkstraat 12`, `Storgatan 3`), and the same words standing alone after a hyphen.
const STREET_SUFFIX: &str = "straße|strasse|str\\.|gasse|weg|allee|platz|damm|ufer|chaussee|steig|straat|laan|gracht|plein|kade|gatan|vägen|gade|vej|veien";
/// Street words before a street name and a house number (`Via Roma 10`).
const STREET_BEFORE: &str = "Via|Viale|Corso|Piazza|Calle|Avenida|Rua|Carrer|Plaza|Paseo";
/// Street words after a house number, in French (`12 rue de la Paix`).
const STREET_FR: &str = "rue|avenue|boulevard|bd|chemin|allée|impasse|quai";
/// US states and territories, before a ZIP code (`, CA 94043`).
const US_STATES: &str = "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|GU|VI";

/// The classes of free text, in order of priority (at one position the first
/// that matches wins). A class marked `true` is checked after it matches
/// ([`Anonymiser::replace`] may turn it down); its text is then scanned again
/// without those classes ([`FALLBACK`]). Their shapes start and end at word
/// boundaries, so a span turned down never cuts another token in two.
fn classes() -> Vec<(bool, String)> {
    let hex = "[0-9A-Fa-f]{1,4}";
    let v4 = r"\d{1,3}(?:\.\d{1,3}){3}\b";
    vec![
        (false, r"(?P<label>(?m:^System(?:\x20\(untrusted\))?:\x20\[[^\]\n]+\]\x20))".into()),
        (false, r"(?P<ts>\b\d{4}-\d{2}-\d{2}(?:[T\x20]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\x20UTC)?)?)".into()),
        // A tag must close (`<b>`, `</x>`, `<a href=…>`): `<alice@example.org>` is an email.
        (false, r"(?P<tag></?[A-Za-z][\w:-]*(?:\s[^<>@\n]*)?/?>)".into()),
        (false, format!("(?P<key>{})", crate::text::KEY_PATTERN)),
        (false, r"(?P<email>[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})".into()),
        (false, r"(?P<url>\b(?:https?|wss?|ftp)://[^\s\x22'<>`\])]+)".into()),
        (false, r"(?P<path>(?:~|\b[A-Za-z]:)?(?:[/\\][\w.\-@+]+){2,}[/\\]?)".into()),
        // An MCP tool name, `mcp__<server>__<tool>`: the server is user-chosen.
        (false, r"(?P<mcp>\bmcp__[A-Za-z0-9\-]+(?:_[A-Za-z0-9\-]+)*__[A-Za-z0-9_\-]+)".into()),
        // IPv6 (RFC 4291 §2.2: full, `::`-compressed, with a dotted IPv4 tail), with a zone.
        (
            true,
            format!(
                r"(?P<ip6>(?:(?:\b{hex}:){{6}}{v4}|(?:\b{hex}(?::{hex}){{0,5}})?::(?:{hex}:){{0,5}}{v4}|\b{hex}(?::{hex}){{7}}\b|(?:\b{hex}(?::{hex}){{0,6}})?::(?:{hex}(?::{hex}){{0,6}}\b)?)(?:%[0-9A-Za-z_.\-]+)?)"
            ),
        ),
        // IPv4 addresses, before phones and ids.
        (false, r"(?P<ip>\b\d{1,3}(?:\.\d{1,3}){3}\b)".into()),
        // A house number beside street words: before a street name and type
        // (`221B Baker Street`), after a one-word street (`Hauptstraße 5`), after
        // a street word and name (`Via Roma 10`), before a French one (`12 rue de la Paix`).
        (
            false,
            format!(
                "(?P<addr>{})",
                [
                    format!(r"\b\d{{1,5}}[A-Za-z]?\x20(?:\p{{Lu}}[\p{{L}}'\-]*\.?\x20){{1,4}}(?:{STREET_AFTER})\b\.?"),
                    format!(
                        r"\b(?:\p{{Lu}}\p{{Ll}}+-)*(?:\p{{Lu}}\p{{Ll}}+(?:{STREET_SUFFIX})|Straße|Strasse|Weg|Allee|Platz|Gasse)\x20\d{{1,4}}[a-zA-Z]?\b"
                    ),
                    format!(r"\b(?:{STREET_BEFORE})\x20(?:\p{{L}}+\x20){{0,3}}?\p{{Lu}}\p{{L}}*,?\x20\d{{1,4}}[a-zA-Z]?\b"),
                    format!(r"\b\d{{1,4}}(?:\x20?(?:bis|ter))?,?\x20(?:{STREET_FR})\x20"),
                ]
                .join("|")
            ),
        ),
        // Postcodes: a US ZIP (or ZIP+4) after a state (`, CA 94043`), a 5-digit
        // European one before a city after a comma or at a line start (`, 10115 Berlin`),
        // a UK one anywhere (`NW1 6XE`).
        (
            false,
            format!(
                r"(?P<zip>,\x20(?:{US_STATES})\x20\d{{5}}(?:-\d{{4}})?\b|(?:,\x20|(?m:^))(?:[A-Z]{{1,2}}-)?\d{{5}}\x20\p{{Lu}}\p{{Ll}}+)"
            ),
        ),
        (false, r"(?P<ukpc>\b[A-Z]{1,2}\d[A-Z\d]?\x20\d[ABD-HJLNP-UW-Z]{2}\b)".into()),
        // IBANs written in groups of four (`DE89 3704 0044 0532 0130 00`).
        (true, r"(?P<iban>\b[A-Z]{2}\d{2}(?:\x20[A-Z0-9]{4}){2,7}(?:\x20[A-Z0-9]{1,3})?\b)".into()),
        // SSNs; card numbers in fours (up to 19 digits), Amex/Diners 4-6-5/4-6-4,
        // masked cards (their last four digits); IBANs in one run; long digit runs.
        (
            false,
            concat!(
                r"(?P<number>\b\d{3}-\d{2}-\d{4}\b|\b\d{4}(?:[\x20\-]\d{4}){2,3}(?:[\x20\-]\d{1,4})?\b",
                r"|\b\d{4}[\x20\-]\d{6}[\x20\-]\d{4,5}\b|(?:[*xX•]{4}[\x20\-]?){3}\d{4}\b|[*•]{2,}\x20?\d{4}\b",
                r"|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\b\d{7,16}\b)",
            )
            .into(),
        ),
        // Phones: international (`+44 20 7946 0958`), a parenthesised area code
        // (`(11) 91234-5678`), a trunk 0 and groups with one kind of separator
        // (`020 7946 0958`, `01 23 45 67 89`, `03-1234-5678`), North American
        // 3-3-4 (`1-800-555-0134`). Checked by `phone_like`.
        (
            true,
            concat!(
                r"(?P<phone>\+\d{1,3}[\x20.\-]?\(?\d{1,4}\)?(?:[\x20.\-]?\d{2,4}){2,4}\b",
                r"|\(\d{2,5}\)\x20?\d{1,5}(?:[\x20.\-]\d{2,5}){0,3}\b",
                r"|\b0\d{1,4}(?:\x20\d{2,8}){1,4}\b|\b0\d{1,4}(?:\.\d{2,8}){1,4}\b|\b0\d{1,4}(?:-\d{2,8}){1,4}\b",
                r"|\b(?:1[.\-])?\d{3}[.\-]\d{3}[.\-]\d{4}\b|\b(?:1\x20)?[2-9]\d{2}\x20\d{3}\x20\d{4}\b)",
            )
            .into(),
        ),
        (false, r"(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)".into()),
        (false, r"(?P<chan>\b[CDGUW][A-Z0-9]{8,11}\b|\b\d{17,20}\b)".into()),
        // Passport-like: one or two capitals and 6 to 9 digits (`X1234567`).
        (false, r"(?P<passport>\b[A-Z]{1,2}\d{6,9}\b)".into()),
        // Plate-like: UK `AB12 CDE`, German `B-MW 1234`, French `AB-123-CD`.
        (false, r"(?P<plate>\b[A-Z]{2}\d{2}\x20[A-Z]{3}\b|\b[A-ZÄÖÜ]{1,3}-[A-Z]{1,2}\x20\d{1,4}[EH]?\b|\b[A-Z]{2}-\d{3}-[A-Z]{2}\b)".into()),
        (false, r"(?P<const>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)".into()),
        (false, r"(?P<tok>\b[A-Za-z]*\d[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*\b|\b[0-9a-f]{12,}\b)".into()),
        (false, r"(?P<word>[\p{L}\p{M}]+)".into()),
    ]
}

fn scan_regex(with_checked: bool) -> Regex {
    let parts: Vec<String> =
        classes().into_iter().filter(|(checked, _)| with_checked || !checked).map(|(_, p)| p).collect();
    Regex::new(&format!("(?x){}", parts.join("|"))).expect("anonymiser regex")
}

/// Every class of free text.
static SCAN: LazyLock<Regex> = LazyLock::new(|| scan_regex(true));
/// The classes that are never turned down: for a span that a checked class turned down.
static FALLBACK: LazyLock<Regex> = LazyLock::new(|| scan_regex(false));
/// The classes a tool name is searched for: what identifies a person or
/// opens an account (keys, emails, URLs, paths, IP addresses, long numbers),
/// never ordinary words — a tool name is kept, as the rules pair calls and
/// results on it, but a key or an address inside one is not.
static IN_TOOL_NAMES: LazyLock<Regex> =
    LazyLock::new(|| classes_named(&["key", "email", "url", "path", "ip6", "ip", "number"]));
/// IP addresses and long numbers, for a tool name read with `_` as a space.
static NUMBERS_IN_TOOL_NAMES: LazyLock<Regex> = LazyLock::new(|| classes_named(&["ip6", "ip", "number"]));
/// One regex of the classes of [`classes`] whose capture group is named in `names`.
fn classes_named(names: &[&str]) -> Regex {
    let parts: Vec<String> = classes()
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| names.iter().any(|n| p.starts_with(&format!("(?P<{n}>"))))
        .collect();
    Regex::new(&format!("(?x){}", parts.join("|"))).expect("anonymiser class regex")
}
/// An MCP tool name, its server segment in group 1.
static MCP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bmcp__([A-Za-z0-9\-]+(?:_[A-Za-z0-9\-]+)*)__[A-Za-z0-9_\-]+").expect("mcp regex"));
/// A house number (or a postcode's digits) inside an address match.
static HOUSE_NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d{1,5}[A-Za-z]?\b").expect("number regex"));

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

    /// Anonymises one line of an Aider LLM history: block headers (their
    /// timestamps are kept, as everywhere) and `-------` lines stay; a role
    /// tag (`USER `) and a list item's key (`type: `, `Image_url URL: `) stay,
    /// the text after them is free text; any other line is free text.
    fn aider_line(&mut self, s: &str, kept_opening: fn(&str) -> Option<&'static str>) -> String {
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

    fn node(&mut self, n: &mut Node, key: Option<&str>, in_message: bool) {
        match n {
            Node::Scalar(_) => {}
            Node::Str(_, s) => {
                let k = key.unwrap_or("");
                if KEEP_KEYS.contains(&k) {
                    return;
                }
                // An OTLP attribute's name (`{"key": "gen_ai.input.messages", "value": …}`)
                // is schema, not content.
                if k == "key"
                    && !s.is_empty()
                    && s.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"._".contains(&c))
                {
                    return;
                }
                // A tool name is kept (rules pair on it), but for an MCP tool's
                // server; a `name` beside a `role` is a person's, unless it is an MCP tool's.
                if TOOL_NAME_KEYS.contains(&k) && (k != "name" || !in_message || MCP.is_match(s)) {
                    *s = self.tool_names(s);
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
                    let t = if KEEP_KEYS.contains(&k.as_str()) {
                        text
                    } else if TOOL_NAME_KEYS.contains(&k.as_str()) {
                        self.tool_names(&text)
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
        self.scan(s, true)
    }

    /// Free text, with every class ([`SCAN`]) or without the checked ones ([`FALLBACK`]).
    fn scan(&mut self, s: &str, checked: bool) -> String {
        let re: &Regex = if checked { &SCAN } else { &FALLBACK };
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in re.captures_iter(s) {
            let Some(m) = c.get(0) else { continue };
            out.push_str(&s[last..m.start()]);
            match self.replace(&c, &s[..m.start()], &s[m.end()..]) {
                Some(r) => out.push_str(&r),
                // Turned down: the span again, without the checked classes.
                None if checked => {
                    let r = self.scan(m.as_str(), false);
                    out.push_str(&r);
                }
                None => out.push_str(m.as_str()),
            }
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }

    /// The placeholder of one match, `None` when a checked class turns it down
    /// (`before` and `after`: the text around it).
    fn replace(&mut self, c: &Captures, before: &str, after: &str) -> Option<String> {
        let m = &c[0];
        if c.name("label").is_some() || c.name("ts").is_some() || c.name("tag").is_some() || c.name("const").is_some() {
            return Some(m.to_string());
        }
        if c.name("key").is_some() {
            return Some(self.key(m));
        }
        if c.name("email").is_some() {
            return Some(self.numbered("email", m, |n| format!("user{n}@example.com")));
        }
        if c.name("url").is_some() {
            return Some(self.numbered("url", m, |n| format!("https://example.com/page{n}")));
        }
        if c.name("path").is_some() {
            return Some(self.path(m));
        }
        if c.name("mcp").is_some() {
            return Some(self.tool_names(m));
        }
        if c.name("ip6").is_some() {
            return self.ip6(m, before, after);
        }
        if c.name("ip").is_some() {
            return Some(self.ipv4(m));
        }
        if c.name("addr").is_some() || c.name("zip").is_some() {
            return Some(self.address(m));
        }
        if c.name("ukpc").is_some() {
            return Some(self.data("address", m));
        }
        if c.name("iban").is_some() {
            let alnum = m.chars().filter(char::is_ascii_alphanumeric).count();
            let digits = m.chars().filter(char::is_ascii_digit).count();
            return ((15..=34).contains(&alnum) && digits >= 8).then(|| self.data("number", m));
        }
        if c.name("number").is_some() {
            // A masked card (`**** **** **** 4242`, `XXXX-XXXX-XXXX-4242`) keeps its mask; its last digits go.
            let masked = m.starts_with(['*', '•']) || m.chars().take(4).all(|c| matches!(c, 'x' | 'X'));
            if let Some(i) = m.find(|c: char| c.is_ascii_digit()).filter(|_| masked) {
                let tail = self.data("number", &m[i..]);
                return Some(format!("{}{tail}", &m[..i]));
            }
            return Some(self.data("number", m));
        }
        if c.name("phone").is_some() {
            return phone_like(m, before, after).then(|| self.data("phone", m));
        }
        if c.name("passport").is_some() {
            return Some(self.data("passport", m));
        }
        if c.name("plate").is_some() {
            return Some(self.data("plate", m));
        }
        if c.name("uuid").is_some() || c.name("tok").is_some() {
            return Some(self.shape("id", m));
        }
        if c.name("chan").is_some() && m.chars().any(|c| c.is_ascii_digit()) {
            return Some(self.shape("channel-id", m));
        }
        // A word. At the lighter level only capitalised words (likely names) go.
        let capitalised = m.chars().next().is_some_and(char::is_uppercase) && m.chars().skip(1).any(char::is_lowercase);
        if (self.level == Level::Identifiers && !capitalised) || m.chars().count() <= 2 || KEEP_WORDS.contains(&m) {
            return Some(m.to_string());
        }
        Some(self.word(m))
    }

    /// A path: `/home/user<n>/file<n>` with the original's extension, as long
    /// as the original (padded in the file name): a block's length can decide
    /// a finding (`context-block-min`).
    fn path(&mut self, m: &str) -> String {
        let ext = m.rsplit(['/', '\\']).next().and_then(|last| last.rsplit_once('.')).map(|(_, e)| e);
        let ext = ext.filter(|e| e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric()));
        let dir = m.ends_with('/');
        let want = m.chars().count();
        self.numbered("path", m, |n| {
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
        })
    }

    /// An IPv4 address: one of the documentation range `192.0.2.0/24` (RFC 5737).
    fn ipv4(&mut self, m: &str) -> String {
        self.numbered("ip", m, |n| format!("192.0.2.{}", n % 250 + 1))
    }

    /// An IPv6 address, replaced whole: `fd00::<n>` (a unique local address,
    /// RFC 4193), the same for every spelling of one address; an IPv4-mapped
    /// one (`::ffff:a.b.c.d`) keeps its prefix and has its IPv4 replaced as an
    /// IPv4 address. A zone (`%eth0`) is kept. Turned down: a span that does
    /// not parse as an address, has no digit, is part of a longer token
    /// (`std::a1`, `a::1::2`), is a Python slice (`x[::2]`, `x[1::2]`) or a
    /// Rust float path (`f64::add`).
    fn ip6(&mut self, m: &str, before: &str, after: &str) -> Option<String> {
        let (addr, zone) = match m.split_once('%') {
            Some((a, z)) => (a, Some(z)),
            None => (m, None),
        };
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let mut back = before.chars().rev();
        let (b1, b2) = (back.next(), back.next());
        if !addr.bytes().any(|b| b.is_ascii_digit())
            || b1.is_some_and(|c| word(c) || c == ':')
            || (b1 == Some('[') && b2.is_some_and(|c| word(c) || c == ')' || c == ']'))
        {
            return None;
        }
        let mut next = after.chars();
        match next.next() {
            Some(c) if c.is_alphanumeric() || c == '_' => return None,
            Some(':') if next.next().is_some_and(|c| c == ':' || c.is_ascii_hexdigit()) => return None,
            _ => {}
        }
        if addr.split(':').next().is_some_and(|g| matches!(g, "f16" | "f32" | "f64" | "f128")) {
            return None;
        }
        let ip: std::net::Ipv6Addr = addr.parse().ok()?;
        let zone = zone.map(|z| format!("%{z}")).unwrap_or_default();
        if let Some((head, v4)) = addr.rsplit_once(':').filter(|(_, v4)| v4.contains('.')) {
            if matches!(head.to_ascii_lowercase().as_str(), "::ffff" | ":" | "::ffff:0") {
                let v4 = self.ipv4(v4);
                return Some(format!("{head}:{v4}{zone}"));
            }
        }
        let p = self.numbered("ip", &ip.to_string(), |n| format!("fd00::{n:x}"));
        Some(format!("{p}{zone}"))
    }

    /// An address: its house numbers and postcode digits are replaced (as
    /// `address`), its words as any other words.
    fn address(&mut self, m: &str) -> String {
        let mut out = String::with_capacity(m.len());
        let mut last = 0;
        for n in HOUSE_NUMBER.find_iter(m) {
            let words = self.text(&m[last..n.start()]);
            out.push_str(&words);
            let p = self.data("address", n.as_str());
            out.push_str(&p);
            last = n.end();
        }
        let words = self.text(&m[last..]);
        out.push_str(&words);
        out
    }

    /// `s` with the server segment of every MCP tool name in it replaced
    /// (`mcp__alice_gmail__send` → `mcp__fodub_kelom__send`), the rest kept:
    /// the prefix, the separators and the tool, so that calls, results and
    /// definitions still pair.
    fn tool_names(&mut self, s: &str) -> String {
        let s = &self.in_tool_name(s);
        if !s.contains("mcp__") {
            return s.to_string();
        }
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in MCP.captures_iter(s) {
            let (Some(all), Some(server)) = (c.get(0), c.get(1)) else { continue };
            out.push_str(&s[last..server.start()]);
            let p = self.mcp_server(server.as_str());
            out.push_str(&p);
            last = server.end();
            out.push_str(&s[last..all.end()]);
            last = all.end();
        }
        out.push_str(&s[last..]);
        out
    }

    /// `s` (a tool name) with its keys, emails, URLs, paths, IP addresses and
    /// long numbers replaced as in free text (the same placeholder wherever
    /// the same original is, so a call and its result still pair); its
    /// words stay.
    fn in_tool_name(&mut self, s: &str) -> String {
        let once = self.in_tool_name_with(&IN_TOOL_NAMES, s, s);
        // `_` joins the words of a tool name (`ping_10.1.2.3`), where the
        // classes' word boundaries would not see an address start: the
        // addresses and numbers are searched again with `_` read as a space.
        let spaced = once.replace('_', " ");
        let out = self.in_tool_name_with(&NUMBERS_IN_TOOL_NAMES, &once, &spaced);
        // Shapes only `check`'s masking knows (`Basic …` credentials): masked
        // alike wherever the same name is, so calls still pair.
        crate::text::mask_secrets(&out)
    }

    /// `s` with the matches of `re` in `view` (`s` with the same byte
    /// lengths, some characters read differently) replaced.
    fn in_tool_name_with(&mut self, re: &Regex, s: &str, view: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in re.captures_iter(view) {
            let Some(m) = c.get(0) else { continue };
            if !s.is_char_boundary(m.start()) || !s.is_char_boundary(m.end()) {
                continue;
            }
            out.push_str(&s[last..m.start()]);
            match self.replace(&c, &view[..m.start()], &view[m.end()..]) {
                Some(r) => out.push_str(&r),
                None => out.push_str(&s[m.start()..m.end()]),
            }
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }

    /// An MCP server name: each word of it as the same word in free text (so
    /// `alice` is replaced alike in `mcp__alice_gmail__send` and in prose),
    /// digits shifted, separators kept; words of one or two letters are kept,
    /// as in free text.
    fn mcp_server(&mut self, server: &str) -> String {
        if let Some(p) = self.map.get(&("mcp-server", server.to_string())) {
            return p.clone();
        }
        let mut out = String::with_capacity(server.len());
        let mut run = String::new();
        let shift = self.counters.get("mcp-server").copied().unwrap_or(0) % 9 + 1;
        for ch in server.chars().chain(std::iter::once('_')) {
            if ch.is_alphabetic() {
                run.push(ch);
                continue;
            }
            if !run.is_empty() {
                let w = if run.chars().count() <= 2 || KEEP_WORDS.contains(&run.as_str()) {
                    run.clone()
                } else {
                    self.word(&run)
                };
                out.push_str(&w);
                run.clear();
            }
            match ch.to_digit(10) {
                Some(d) => out.push(char::from(b'0' + ((d as u64 + shift) % 10) as u8)),
                None => out.push(ch),
            }
        }
        out.pop();
        *self.counters.entry("mcp-server").or_insert(0) += 1;
        if out != server {
            self.note("mcp-server");
        }
        self.map.insert(("mcp-server", server.to_string()), out.clone());
        out
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

    /// A placeholder for personal data of a fixed shape (phone, card, IBAN,
    /// address, passport, plate): every digit becomes another digit and every
    /// letter another letter of the same case, in place, so that no digit or
    /// letter of the original stays where it was; everything else is kept.
    fn data(&mut self, class: &'static str, orig: &str) -> String {
        if let Some(p) = self.map.get(&(class, orig.to_string())) {
            return p.clone();
        }
        let mut attempt = 0u64;
        loop {
            let n = self.counters.entry(class).or_insert(0);
            *n += 1;
            let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let p: String = orig
                .chars()
                .map(|c| {
                    let r = next();
                    let other =
                        |base: u8, n: u8, c: u8| char::from(base + (c - base + 1 + (r % u64::from(n - 1)) as u8) % n);
                    if c.is_ascii_digit() {
                        other(b'0', 10, c as u8)
                    } else if c.is_ascii_uppercase() {
                        other(b'A', 26, c as u8)
                    } else if c.is_ascii_lowercase() {
                        other(b'a', 26, c as u8)
                    } else if c.is_alphabetic() {
                        // `Ä` in a plate: an ASCII letter.
                        char::from(if c.is_uppercase() { b'A' } else { b'a' } + (r % 26) as u8)
                    } else {
                        c
                    }
                })
                .collect();
            attempt += 1;
            if !self.used.contains(&p) || attempt > 8 {
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

/// Whether a phone-shaped match is a phone: 8 to 15 digits (E.164 allows 15),
/// not a date written with dots, dashes or spaces (`01.02.2024`), and not part
/// of a longer run of digit groups (`1 048 576`, `256 512 1024 2048`: the text
/// `before` it ends, or the text `after` it starts, with a separator and a digit).
fn phone_like(m: &str, before: &str, after: &str) -> bool {
    let groups: Vec<&str> = m.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).collect();
    let digits: usize = groups.iter().map(|g| g.len()).sum();
    if !(8..=15).contains(&digits) {
        return false;
    }
    let sep = |c: Option<char>| c.is_some_and(|c| matches!(c, ' ' | '.' | '-' | ','));
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    let mut back = before.chars().rev();
    if !m.starts_with('+') && sep(back.next()) && digit(back.next()) {
        return false;
    }
    let mut ahead = after.chars();
    if sep(ahead.next()) && digit(ahead.next()) {
        return false;
    }
    let in_range = |g: &str, max: u32| g.len() <= 2 && g.parse::<u32>().is_ok_and(|v| (1..=max).contains(&v));
    let date = match groups.as_slice() {
        [a, b, y] if y.len() == 4 && !m.starts_with(['+', '(']) => {
            (in_range(a, 31) && in_range(b, 12)) || (in_range(a, 12) && in_range(b, 31))
        }
        _ => false,
    };
    !date
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

    /// Asserts that `out` has the shape of `orig` (same length, the same
    /// non-alphanumeric characters in place) and that no digit or letter of
    /// `orig` is left where it was.
    fn every_character_changed(orig: &str, out: &str) {
        assert_eq!(orig.chars().count(), out.chars().count(), "{orig} -> {out}");
        for (o, p) in orig.chars().zip(out.chars()) {
            if o.is_alphanumeric() {
                assert_ne!(o, p, "{o} survived in {orig} -> {out}");
                assert_eq!(o.is_ascii_digit(), p.is_ascii_digit(), "{orig} -> {out}");
            } else {
                assert_eq!(o, p, "{orig} -> {out}");
            }
        }
    }

    /// The groups of two or more characters of `s` that hold a digit (`020 7946 0958` → `020`, `7946`, `0958`).
    fn groups(s: &str) -> Vec<&str> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|g| g.len() > 1 && g.chars().any(|c| c.is_ascii_digit()))
            .collect()
    }

    #[test]
    fn national_phone_formats_are_replaced_digit_for_digit() {
        let mut a = Anonymiser::new(Level::Identifiers);
        let cases = [
            ("020 7946 0958", "437 3320 5416"),
            ("07700 900123", "22044 896302"),
            ("01 23 45 67 89", "43 07 14 86 25"),
            ("03-1234-5678", "16-0746-2523"),
            ("(11) 91234-5678", "(82) 40627-9206"),
            ("030 12345678", "366 41224425"),
            ("(020) 7946.0958", "(394) 5628.1133"),
            ("+44 20 7946 0958", "+51 04 6763 2127"),
            ("1-800-555-0134", "8-762-172-4960"),
            ("415 555 0134", "936 932 7941"),
        ];
        for (orig, want) in cases {
            let out = a.text(&format!("call {orig} today"));
            assert_eq!(out, format!("call {want} today"), "{orig}");
            every_character_changed(orig, want);
            for g in groups(orig) {
                assert!(!out.contains(g), "{g} of {orig} survived: {out}");
            }
        }
        // The same number, the same placeholder; counted as phones.
        assert_eq!(a.text("020 7946 0958"), cases[0].1);
        assert_eq!(a.counts().get("phone"), Some(&cases.len()));
    }

    #[test]
    fn card_numbers_lose_every_digit() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("4111 1111 1111 1111", "8285 5959 6793 3306"),
            ("4111-1111-1111-1111", "6645-7007-9020-5759"),
            ("4111111111111111", "8379568073085748"),
            ("3782 822463 10005", "4031 946158 64694"),
            ("3056 930902 5904", "0767 424834 1288"),
            ("6304 0000 0000 0000 018", "9669 9989 5761 8746 653"),
        ] {
            let out = a.text(&format!("card {orig}, thanks"));
            assert_eq!(out, format!("card {want}, thanks"), "{orig}");
            every_character_changed(orig, want);
        }
        // A masked card keeps its mask and loses its last four digits.
        assert_eq!(a.text("card **** **** **** 4242 on file"), "card **** **** **** 7516 on file");
        assert_eq!(a.text("XXXX-XXXX-XXXX-4242"), "XXXX-XXXX-XXXX-7516");
        assert_eq!(a.counts().get("number"), Some(&7));
    }

    #[test]
    fn ibans_lose_their_country_check_digits_and_tail() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("DE89 3704 0044 0532 0130 00", "SD53 7542 5626 2727 4381 29"),
            ("GB82 WEST 1234 5698 7654 32", "RH16 EDQC 9143 9236 2547 71"),
            ("DE89370400440532013000", "XN47727362314169902764"),
            ("GB82WEST12345698765432", "XD31QOYG81890057638951"),
        ] {
            let out = a.text(&format!("IBAN {orig}."));
            assert_eq!(out, format!("IBAN {want}."), "{orig}");
            every_character_changed(orig, want);
        }
        // Capital groups with no digits in them are words, not an IBAN.
        assert_eq!(a.text("AB12 CDEF GHIJ KLMN"), "AB12 CDEF GHIJ KLMN");
    }

    #[test]
    fn passport_and_plate_like_ids_are_replaced() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want, class) in [
            ("X1234567", "M2970941", "passport"),
            ("AB1234567", "LH4670453", "passport"),
            ("L898902C3", "L400857M7", "id"),
            ("C01X00T47", "L40Y85D07", "channel-id"),
            ("AB12 CDE", "PA86 SVF", "plate"),
            ("B-MW 1234", "M-RC 7120", "plate"),
            ("AB-123-CD", "UK-968-EG", "plate"),
            ("7ABC123", "2CD9478", "id"),
        ] {
            let before = a.counts().get(class).copied().unwrap_or(0);
            let out = a.text(&format!("id {orig} seen"));
            assert_eq!(out, format!("id {want} seen"), "{orig}");
            assert_eq!(a.counts().get(class).copied().unwrap_or(0), before + 1, "{orig} as {class}");
            if class == "passport" || class == "plate" {
                every_character_changed(orig, want);
            } else {
                assert_eq!(want.len(), orig.len());
            }
        }
    }

    #[test]
    fn ipv6_addresses_are_replaced_whole() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("2001:db8::1", "fd00::1"),
            ("2001:0db8:0000:0000:0000:0000:0000:0001", "fd00::1"),
            ("2a00:1450:4001:82b::200e", "fd00::2"),
            ("fe80::1ff:fe23:4567:890a%eth0", "fd00::3%eth0"),
            ("::1", "fd00::4"),
            ("2001:db8:85a3:8d3:1319:8a2e:370:7348", "fd00::5"),
            ("::ffff:81.2.69.142", "::ffff:192.0.2.7"),
        ] {
            let out = a.text(&format!("from [{orig}]:443"));
            assert_eq!(out, format!("from [{want}]:443"), "{orig}");
            for g in orig.split([':', '.', '%']).filter(|g| g.len() > 1 && g.chars().any(|c| c.is_ascii_digit())) {
                assert!(!want.split([':', '.']).any(|w| w == g), "{g} of {orig} survived");
            }
        }
        // The embedded IPv4 is the same address as the plain one.
        assert_eq!(a.text("81.2.69.142"), "192.0.2.7");
    }

    #[test]
    fn street_numbers_and_postcodes_are_replaced() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("221B Baker Street, London NW1 6XE", "638M Dubin Fodubu, Gifepo YC4 0FD"),
            (
                "1600 Amphitheatre Parkway, Mountain View, CA 94043",
                "5868 Kegodorirufo Lakarip, Mukifine Lida, CA 07538",
            ),
            ("Hauptstraße 5, 10115 Berlin", "Mefibaborut 2, 43768 Nagunu"),
            ("Via Roma 10, 00184 Roma", "Pug Roko 43, 71872 Roko"),
            ("12 rue de la Paix, 75002 Paris", "85 rue de la Sila, 27176 Temir"),
            ("ZIP: Springfield, IL 62704-1234", "ZIP: Sufabefibip, IL 78662-7545"),
        ] {
            let out = a.text(orig);
            assert_eq!(out, want, "{orig}");
            for g in groups(orig) {
                assert!(!out.contains(g), "{g} of {orig} survived: {out}");
            }
        }
    }

    #[test]
    fn mcp_server_names_are_replaced_alike_everywhere() {
        let v = serde_json::json!({
            "tools": [{"name": "mcp__alice_gmail__send", "description": "Send mail as Alice"}],
            "messages": [
                {"role": "assistant", "content": [
                    {"type": "toolCall", "id": "call_1", "name": "mcp__alice_gmail__send", "arguments": {"to": "x"}},
                    {"type": "toolCall", "id": "call_2", "name": "read", "arguments": {}}
                ]},
                {"role": "toolResult", "toolCallId": "call_1", "toolName": "mcp__alice_gmail__send", "content": "sent with mcp__alice_gmail__send"},
                {"role": "tool", "name": "mcp__alice_gmail__send", "content": "ok"},
                {"role": "user", "name": "alice", "content": "try mcp__bob2_drive__list, then mcp__alice_gmail__search"}
            ]
        });
        for (level, bob) in [(Level::Full, "mcp__mef4_nagun__list"), (Level::Identifiers, "mcp__keg4_lakar__list")] {
            let mut a = Anonymiser::new(level);
            let mut n = super::super::tree::from_value(v.clone(), &mut Default::default(), false);
            a.node(&mut n, None, false);
            let out = super::super::tree::to_value(&n);
            let text = out.to_string();
            assert!(!text.contains("alice") && !text.contains("bob"), "{text}");
            let send = out["tools"][0]["name"].as_str().unwrap_or_default().to_string();
            assert_eq!(send, "mcp__dubin_fodub__send", "{level:?}");
            assert_eq!(out["messages"][0]["content"][0]["name"], send.as_str());
            assert_eq!(out["messages"][1]["toolName"], send.as_str());
            assert_eq!(out["messages"][1]["content"].as_str().map(|s| s.ends_with(&send)), Some(true), "{text}");
            assert_eq!(out["messages"][2]["name"], send.as_str());
            // Other tool names are kept; a person's name beside a role is not.
            assert_eq!(out["messages"][0]["content"][1]["name"], "read");
            assert_ne!(out["messages"][3]["name"], "alice");
            let user = out["messages"][3]["content"].as_str().unwrap_or_default();
            assert!(user.contains(bob) && user.contains("mcp__dubin_fodub__search"), "{user}");
            assert_eq!(a.counts().get("mcp-server"), Some(&2));
        }
        // A finding message is compared with its servers masked.
        assert_eq!(mask_mcp_servers("tool call `x` (mcp__alice_gmail__send) has"), "tool call `x` (mcp__~__send) has");
    }

    #[test]
    fn keys_emails_paths_and_addresses_in_tool_names_are_replaced_alike() {
        // Issue 32: `repro` wrote a key in a tool name verbatim (and emails,
        // paths and IP addresses), though `check` masks it.
        let v = serde_json::json!({"messages": [
            {"role": "assistant", "content": [
                {"type": "toolCall", "id": "call_1", "name": "run_sk-proj-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1", "arguments": {}},
                {"type": "toolCall", "id": "call_2", "name": "mail_bob@example.com", "arguments": {}},
                {"type": "toolCall", "id": "call_3", "name": "ping_10.1.2.3", "arguments": {}},
                {"type": "toolCall", "id": "call_4", "name": "open_/home/bob/secret-proj", "arguments": {}},
                {"type": "toolCall", "id": "call_5", "name": "read_file", "arguments": {}},
                {"type": "toolCall", "id": "call_6", "name": "auth_Basic dXNlcjpodW50ZXIyLXN1cGVy", "arguments": {}}
            ]},
            {"role": "toolResult", "toolCallId": "call_1", "toolName": "run_sk-proj-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1", "content": "ok"},
            {"role": "toolResult", "toolCallId": "call_2", "toolName": "mail_bob@example.com", "content": "ok"}
        ]});
        let mut a = Anonymiser::new(Level::Identifiers);
        let mut n = super::super::tree::from_value(v, &mut Default::default(), false);
        a.node(&mut n, None, false);
        let out = super::super::tree::to_value(&n);
        let text = out.to_string();
        for leak in ["Zq8Xw7Cv6Bn5", "bob", "10.1.2.3", "secret-proj", "cjpodW50ZXIy"] {
            assert!(!text.contains(leak), "{leak} in {text}");
        }
        let calls = &out["messages"][0]["content"];
        assert_eq!(out["messages"][1]["toolName"], calls[0]["name"], "a call and its result still pair");
        assert_eq!(out["messages"][2]["toolName"], calls[1]["name"]);
        assert!(calls[0]["name"].as_str().is_some_and(|n| n.starts_with("run_sk-")), "{text}");
        assert_eq!(calls[4]["name"], "read_file", "words of a tool name stay");
    }

    #[test]
    fn ordinary_numbers_times_and_code_are_kept() {
        let keep = "System: [2026-06-20 09:14:02 UTC] at 10:30 and 09:14:02.123, 2026-06-20T09:14:02Z, v1.2.3, 0.12.4, \
                    10.0.1, 3 files, 12 345 bytes, 1 048 576 bytes, 15.01.2024, 01.02.2024, 31-12-2024, line 42:7, \
                    main.rs:120:5, localhost:8080, port 8080, 100%, pages 10-20, 2023-2024, (1) 2 3, \
                    sizes 256 512 1024 2048, std::fs::read, a::b, io::stdin, x[::2], x[1::2], f64::EPSILON, \
                    NO_REPLY, HEARTBEAT_OK, CTX301, ISO 8601, RFC 3339, UTF-8, sha256, x86_64, <system-reminder>";
        let mut a = Anonymiser::new(Level::Identifiers);
        assert_eq!(a.text(keep), keep);
        assert!(a.counts().is_empty(), "{:?}", a.counts());
        // Hex ids go as ids, not as addresses or phones.
        let out = a.text("commit deadbeefcafe1234 and 0a1b2c3d");
        assert_eq!(out, "commit d664c9fabe537033 and 2c794389");
        assert_eq!(a.counts().into_keys().collect::<Vec<_>>(), ["id"]);
        // At the full level the numbers are still kept; only words change.
        let mut a = Anonymiser::new(Level::Full);
        let out = a.text("at 10:30, v1.2.3, 3 files, 12 345 bytes, line 42:7, localhost:8080, 15.01.2024");
        for kept in ["10:30", "v1.2.3", "3 ", "12 345 ", "42:7", ":8080", "15.01.2024"] {
            assert!(out.contains(kept), "{kept} in {out}");
        }
    }
}
