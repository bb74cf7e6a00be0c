//! `pi-session`: pi / OpenClaw session JSONL, versions 1–3.
//!
//! Format facts (from pi-mono `packages/coding-agent/docs/session.md`,
//! `src/core/session-manager.ts`, `src/core/messages.ts`, and OpenClaw's
//! transcript writer):
//! - line 1 is the header `{"type":"session","version":N,"id":…}`; no
//!   `version` means v1. v1 entries have no `id`/`parentId` and form a linear
//!   list; v2+ entries form a tree by `id`/`parentId` (`parentId: null` = root).
//! - `message` entries carry an `AgentMessage`: roles `user`, `assistant`,
//!   `toolResult`, `bashExecution` (not sent when `excludeFromContext`),
//!   `custom` (v3; `hookMessage` in v2), `branchSummary`, `compactionSummary`.
//! - `custom_message` entries are sent as user-role messages; `custom`,
//!   `label`, `session_info`, `model_change`, `thinking_level_change` are never
//!   sent (bookkeeping).
//! - `compaction` entries hold `summary` and `firstKeptEntryId`
//!   (v1: `firstKeptEntryIndex`); `branch_summary` entries hold `summary`.
//! - OpenClaw: `custom_message` with `customType: "openclaw.runtime-context"` is
//!   the prompt-local runtime-context carrier; assistant messages with
//!   `provider: "openclaw"` (e.g. `model: "delivery-mirror"`,
//!   `"gateway-injected"`) are written by the runtime, not by a model.
//! - pi-ai's `transformMessages` skips assistant messages whose `stopReason`
//!   is `error` or `aborted` when it builds the next request.

use super::format::{About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use super::{LoadOptions, jsonl};
use crate::error::Result;
use crate::hash::hash_bytes;
use crate::model::*;
use crate::source::SourceRef;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// Format id.
pub const ID: FormatId = FormatId::new("pi-session");

/// Whether the first line looks like a pi session header.
pub fn sniff(first: &serde_json::Value) -> bool {
    first.get("type").and_then(|t| t.as_str()) == Some("session")
        && first.get("payload").is_none()
        && (first.get("id").is_some() || first.get("version").is_some() || first.get("cwd").is_some())
}

/// Why a file holding what `pi --mode json` prints is skipped
/// ([`super::Detection::Unsupported`]): print mode writes the session header,
/// then every agent event as one JSON line (pi-mono
/// `packages/coding-agent/src/modes/print-mode.ts`, `runPrintMode`): no
/// entry ids, a `turn_start` written alike every turn. A workflow that saves
/// a headless run's output keeps this, not the session file.
pub const PRINT_MODE_OUTPUT: &str = "a pi `--mode json` event stream (print mode's output: the session header, then agent events such as `agent_start` and `message_end`), not a session file";

/// Whether a record is an agent event `pi --mode json` prints after the
/// header ([`PRINT_MODE_OUTPUT`]; pi-mono `AgentSessionEvent`: `agent_*`,
/// `turn_*`, `message_*`, `tool_execution_*`, `auto_compaction_*`,
/// `auto_retry_*`), not a session entry (no `id`).
pub fn is_print_mode_event(v: &serde_json::Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let ty = o.get("type").and_then(|t| t.as_str()).unwrap_or("");
    !o.contains_key("id")
        && ["agent_", "turn_", "message_", "tool_execution_", "auto_compaction_", "auto_retry_"]
            .iter()
            .any(|p| ty.starts_with(p))
}

/// The entry types pi writes after the header (pi-mono
/// `packages/coding-agent/src/core/session-manager.ts`, `SessionEntry`).
const ENTRY_TYPES: &[&str] = &[
    "message",
    "custom",
    "custom_message",
    "compaction",
    "branch_summary",
    "model_change",
    "thinking_level_change",
    "label",
    "session_info",
];

/// Whether a record has the shape of a pi (v2+) session entry: a pi entry
/// `type`, a string `id`, a `parentId` (null or a string) and a string
/// `timestamp`, a `message` entry with a `message.role`, and none of the
/// fields that mark another runtime's record (`uuid`, `sessionId`,
/// `payload`, `traceSchema`). A file whose header line was lost when the
/// runtime rewrote it still has entries of this shape on every line: it is
/// read as a pi session, and `not-append-only` reports the missing header.
/// (v1 entries carry no ids: a v1 file without its header is not
/// recognised.)
pub fn sniff_entry(v: &serde_json::Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let ty = o.get("type").and_then(|t| t.as_str()).unwrap_or("");
    ENTRY_TYPES.contains(&ty)
        && o.get("id").is_some_and(|i| i.as_str().is_some_and(|s| !s.is_empty()))
        && o.get("parentId").is_some_and(|p| p.is_null() || p.is_string())
        && o.get("timestamp").is_some_and(|t| t.is_string())
        && !["uuid", "sessionId", "payload", "traceSchema"].iter().any(|k| o.contains_key(*k))
        && (ty != "message" || o.get("message").and_then(|m| m.get("role")).is_some_and(|r| r.is_string()))
}

/// The record facts of a pi session (docs/spec.md §1; used by [`load`] and by `fence`):
/// ids and parents from v2 on, `session` headers, and the kinds the runner
/// writes itself (`assistant`, `toolResult` and `bashExecution` messages,
/// `custom`, `label`, `session_info`; user messages and the rest come from
/// other writers, see pi-mono `session-manager.ts` `appendMessage` callers).
pub static SCHEMA: super::record::RecordSchema = super::record::RecordSchema {
    format: ID,
    classify: classify_line,
    id_keys: &["id"],
    sessions: super::record::Sessions::Unchecked,
};

fn classify_line<'a>(
    bytes: &'a [u8],
    cx: &super::record::Context,
) -> std::result::Result<super::record::Record<'a>, String> {
    let raw: RawEntry = super::record::parse_object(bytes, "pi session entry")?;
    Ok(record(&raw, cx.version).into_owned())
}

/// The record facts of one parsed entry. `version` is the file's header
/// version (0 when unknown: ids are read but their absence is no problem).
fn record<'b>(raw: &'b RawEntry<'_>, version: u64) -> super::record::Record<'b> {
    use super::record::{Parent, Record};
    let kind = raw.etype.as_deref();
    let mut r = Record { kind: kind.map(Cow::Borrowed), ..Default::default() };
    let Some(kind) = kind else {
        r.problem = Some("entry has no `type`".into());
        return r;
    };
    if kind == "session" {
        r.header = true;
        r.id = raw.id.as_deref().map(Cow::Borrowed);
        r.version = Some(raw.version.map_or(1, u64::from));
        return r;
    }
    if kind == "message" {
        r.role = raw.message.as_ref().and_then(|m| m.role.as_deref()).map(Cow::Borrowed);
        if r.role.is_none() {
            r.problem = Some("message entry has no `message.role`".into());
        }
    }
    r.runner_writes = match kind {
        "message" => matches!(r.role.as_deref(), Some("assistant" | "toolResult" | "bashExecution")),
        "custom" | "label" | "session_info" => true,
        _ => false,
    };
    r.id = raw.id.as_deref().map(Cow::Borrowed);
    r.parent = match &raw.parent_id {
        None | Some(None) => Parent::Null,
        Some(Some(p)) => Parent::Id(Cow::Borrowed(p.as_ref())),
    };
    if version >= 2 {
        r.tree = true;
        match raw.id.as_deref() {
            Some("") => r.problem = r.problem.take().or(Some("entry has an empty `id`".into())),
            Some(_) => {}
            None => {
                r.problem = r.problem.take().or(Some(format!("entry has no `id` (required in pi session v{version})")))
            }
        }
    }
    r
}

#[derive(Deserialize)]
struct RawEntry<'a> {
    #[serde(rename = "type", borrow)]
    etype: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "parentId", default, deserialize_with = "some_or_null", borrow)]
    parent_id: Option<Option<Cow<'a, str>>>,
    version: Option<u32>,
    #[serde(borrow)]
    message: Option<RawMessage<'a>>,
    #[serde(rename = "customType", borrow)]
    custom_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(borrow)]
    summary: Option<Cow<'a, str>>,
    #[serde(rename = "firstKeptEntryId", borrow)]
    first_kept_id: Option<Cow<'a, str>>,
    #[serde(rename = "firstKeptEntryIndex")]
    first_kept_index: Option<u64>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    /// The session header's working folder.
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    /// `custom` entries: the extension's data (OpenClaw `openclaw:prompt-error`:
    /// `{timestamp, runId, sessionId, provider, model, api, error}`).
    /// (Any JSON: an extension's data may be of any shape, so it is parsed
    /// only for the custom types ctxlint reads.)
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

/// The fields of a `custom` entry's `data` that ctxlint reads.
#[derive(Deserialize)]
struct RawCustomData<'a> {
    #[serde(borrow)]
    provider: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
}

/// pi-ai's `Usage` (pi-mono `packages/ai/src/types.ts`): token counts,
/// `input` without the cached ones. Its `cost` is not read (ctxlint prices
/// calls from its own table, see [`crate::impact::prices`]).
#[derive(Deserialize)]
struct RawUsage {
    #[serde(default)]
    input: super::usage::Count,
    #[serde(default)]
    output: super::usage::Count,
    #[serde(rename = "cacheRead", default)]
    cache_read: super::usage::Count,
    #[serde(rename = "cacheWrite", default)]
    cache_write: super::usage::Count,
}

impl RawUsage {
    fn get(&self) -> Option<Usage> {
        let n = super::usage::count_of;
        let u = Usage {
            input: n(self.input),
            cache_read: n(self.cache_read),
            cache_write: n(self.cache_write),
            output: n(self.output),
            cache_write_1h: 0,
        };
        // All zero: not recorded (OpenClaw's transcript-only records write zeros).
        (u != Usage::default()).then_some(u)
    }
}

#[derive(Deserialize)]
struct RawMessage<'a> {
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(rename = "stopReason", borrow)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow)]
    provider: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolName", borrow)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    /// A usage of the wrong shape is not recorded; it never costs the message.
    #[serde(default)]
    usage: super::usage::ObjectOnly<RawUsage>,
    #[serde(borrow)]
    details: Option<&'a RawValue>,
    #[serde(rename = "excludeFromContext")]
    exclude_from_context: Option<bool>,
    #[serde(rename = "customType", borrow)]
    custom_type: Option<Cow<'a, str>>,
    #[serde(rename = "openclawDeliveryMirror", borrow)]
    delivery_mirror: Option<&'a RawValue>,
    #[serde(borrow)]
    command: Option<Cow<'a, str>>,
    #[serde(borrow)]
    output: Option<Cow<'a, str>>,
    #[serde(borrow)]
    summary: Option<Cow<'a, str>>,
}

/// When a pi / OpenClaw entry's message (or error record) was made, from
/// its own line: pi-ai's `Message.timestamp` or an OpenClaw custom record's
/// `data.timestamp`, Unix milliseconds, as seconds. The entry's `timestamp`
/// is written again when OpenClaw rewrites a transcript (a run of hundreds of
/// entries with one time); these are not. `None` when absent or implausible.
pub fn inner_time(line: &[u8]) -> Option<u32> {
    #[derive(Deserialize)]
    struct Inner<'a> {
        #[serde(borrow)]
        timestamp: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        message: Option<Inner<'a>>,
        #[serde(borrow)]
        data: Option<Inner<'a>>,
    }
    let l: Line = serde_json::from_slice(line).ok()?;
    let v = l.message.and_then(|m| m.timestamp).or(l.data.and_then(|d| d.timestamp))?;
    let ms: f64 = v.get().parse().ok()?;
    (1e12..4e12).contains(&ms).then(|| (ms / 1000.0) as u32)
}

/// One content block. Parsed in a single pass by a lenient visitor: a block
/// that is not an object, or a field of an unexpected type, gives an empty
/// block or field instead of an error (a later duplicate key wins).
#[derive(Default)]
struct RawBlock<'a> {
    btype: Option<Cow<'a, str>>,
    text: Option<Cow<'a, str>>,
    thinking: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
    name: Option<Cow<'a, str>>,
    arguments: Option<&'a RawValue>,
}

impl<'de: 'a, 'a> Deserialize<'de> for RawBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = RawBlock<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                let mut b = RawBlock::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "type" => b.btype = map.next_value::<LenientStr<'a>>()?.0,
                        "text" => b.text = map.next_value::<LenientStr<'a>>()?.0,
                        "thinking" => b.thinking = map.next_value::<LenientStr<'a>>()?.0,
                        "id" => b.id = map.next_value::<LenientStr<'a>>()?.0,
                        "name" => b.name = map.next_value::<LenientStr<'a>>()?.0,
                        "arguments" => b.arguments = Some(map.next_value::<&'de RawValue>()?),
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(b)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(RawBlock::default())
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<Self::Value, E> {
                Ok(RawBlock::default())
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(RawBlock::default())
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(RawBlock::default())
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(RawBlock::default())
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(RawBlock::default())
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(RawBlock::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A string, or `None` for a value of any other type (consumed, not an error).
struct LenientStr<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientStr<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = LenientStr<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Owned(v))))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(LenientStr(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(LenientStr(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A `content` field: a string or an array of blocks, parsed in one pass.
#[derive(Default)]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<RawBlock<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(2));
                // A block of an unexpected shape is kept as an empty block, not an error.
                while let Some(b) = seq.next_element::<RawBlock<'a>>()? {
                    v.push(b);
                }
                Ok(Content::Blocks(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(Content::None)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Distinguishes a missing field (`None`) from `null` (`Some(None)`).
fn some_or_null<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// What one line of a pi session is, parsed on its own (in parallel, see
/// [`jsonl::read_lines_par`]); [`load`] then assembles the lines in order.
enum Parsed {
    /// Not exactly one JSON value: the reason.
    Malformed(String),
    /// Valid JSON of an unexpected shape (hash of the line).
    Unknown(u64),
    /// A `session` header line.
    Header { hash: u64, version: Option<u32>, id: Option<Box<str>>, openclaw: bool },
    /// An entry.
    Entry(Box<ParsedEntry>),
}

struct ParsedEntry {
    entry: Entry,
    /// Its message, packed.
    packed: Option<Box<[u8]>>,
    /// `parentId`: absent, `null`, or an id.
    parent: Option<Option<Box<str>>>,
    /// For a `compaction`: (`firstKeptEntryId`, `firstKeptEntryIndex`).
    first_kept: Option<(Option<Box<str>>, Option<u64>)>,
    /// An unknown entry type or a `message` entry without a message.
    unknown: bool,
    /// The model call's reported usage (assistant messages).
    usage: Option<Usage>,
}

fn parse_line(line: &crate::source::Line<'_>, texts: crate::model::packed::Texts) -> Parsed {
    parse_line_once(line, texts, true)
}

/// [`parse_line`]; a line that writes a key twice is read as JSON.parse
/// reads it (the last value) when `retry`, else kept as an unknown record.
fn parse_line_once(line: &crate::source::Line<'_>, texts: crate::model::packed::Texts, retry: bool) -> Parsed {
    let hash = hash_bytes(line.bytes);
    let raw: RawEntry = match jsonl::parse_record(line.bytes) {
        Ok(r) => r,
        Err(jsonl::Rejected::Malformed(reason)) => return Parsed::Malformed(reason),
        Err(jsonl::Rejected::DuplicateKey(fixed)) if retry => {
            return parse_line_once(&crate::source::Line { bytes: fixed.as_bytes(), ..*line }, texts, false);
        }
        Err(jsonl::Rejected::Unknown | jsonl::Rejected::DuplicateKey(_)) => return Parsed::Unknown(hash),
    };
    let rec = record(&raw, 0);
    let etype = rec.kind.as_deref().unwrap_or("");
    if rec.header {
        let openclaw = raw.cwd.as_deref().is_some_and(|c| c.contains("/.openclaw/") || c.ends_with("/openclaw"));
        return Parsed::Header { hash, version: raw.version, id: rec.id.as_deref().map(Into::into), openclaw };
    }
    let mut entry = Entry::at(line, etype, hash);
    entry.id = rec.id.as_deref().map(Into::into);
    entry.time = raw.timestamp.as_deref().map_or(0, crate::model::parse_time);
    let parent = match &rec.parent {
        super::record::Parent::Id(p) => Some(Some(p.as_ref().into())),
        _ => None,
    };
    let mut first_kept = None;
    let mut unknown = false;
    let mut packed = None;
    let mut usage = None;
    match etype {
        "message" => {
            if let Some(m) = &raw.message {
                let (class, msg, model_call) = message(m);
                entry.class = class;
                if let Some(m) = msg {
                    packed = Some(crate::model::packed::pack(&m, texts));
                }
                entry.is_model_call = model_call;
                if model_call {
                    usage = m.usage.0.as_ref().and_then(RawUsage::get);
                }
            } else {
                unknown = true;
            }
        }
        "custom_message" => {
            let carrier = raw.custom_type.as_deref() == Some("openclaw.runtime-context");
            let kind = if carrier { MessageKind::Carrier } else { MessageKind::Extension };
            entry.class = Class::Conversation;
            packed = Some(crate::model::packed::pack(
                &content_message(Role::User, kind, "", &raw.content, "/content", true),
                texts,
            ));
        }
        "compaction" => {
            entry.class = Class::Compaction;
            packed = Some(crate::model::packed::pack(
                &summary_message(MessageKind::CompactionSummary, raw.summary.as_deref().unwrap_or("")),
                texts,
            ));
            entry.set_compaction(Some(Compaction { first_kept: None, new_root: false }));
            first_kept = Some((raw.first_kept_id.as_deref().map(Into::into), raw.first_kept_index));
        }
        "branch_summary" => {
            entry.class = Class::Conversation;
            packed = Some(crate::model::packed::pack(
                &summary_message(MessageKind::BranchSummary, raw.summary.as_deref().unwrap_or("")),
                texts,
            ));
        }
        "custom" if raw.custom_type.as_deref() == Some("openclaw:prompt-error") => {
            // OpenClaw writes this record in place of the assistant entry when a
            // model call fails before any reply (openclaw
            // `src/agents/pi-embedded-runner/run/attempt.ts`: `customType:
            // "openclaw:prompt-error"`, `data: {timestamp, runId, sessionId,
            // provider, model, api, error}`), then the fallback model gets the
            // same user message again. It is a failed attempt (docs/spec.md §1): a failed
            // assistant stub, never sent and not a model call, that informs
            // `duplicate-user-turn` and `duplicate-reply`.
            let data = raw.data.and_then(|d| serde_json::from_str::<RawCustomData>(d.get()).ok());
            let model = data.as_ref().and_then(|d| match (d.provider.as_deref(), d.model.as_deref()) {
                (Some(p), Some(m)) => Some(format!("{p}/{m}").into_boxed_str()),
                (None, Some(m)) => Some(m.into()),
                _ => None,
            });
            let msg = Message {
                role: Role::Assistant,
                kind: MessageKind::Assistant,
                pointer: Cow::Borrowed(""),
                blocks: Vec::new(),
                assistant: Some(Box::new(AssistantInfo { stop: Stop::Error, model, ..Default::default() })),
                result: None,
                dynamic_ref: None,
                json_hash: 0,
            };
            entry.class = Class::Conversation;
            packed = Some(crate::model::packed::pack(&msg, texts));
        }
        "custom" | "label" | "session_info" | "model_change" | "thinking_level_change" => {}
        _ => unknown = true,
    }
    Parsed::Entry(Box::new(ParsedEntry { entry, packed, parent, first_kept, unknown, usage }))
}

/// Loads a pi / OpenClaw session. Lines are parsed in parallel and assembled in order.
pub fn load(src: &SourceRef, opts: &LoadOptions) -> Result<Input> {
    let mut t = Transcript::default();
    let mut pids = super::ParentIds::default();
    let mut first_kept: Vec<(u32, Option<Box<str>>, Option<u64>)> = Vec::new();
    let mut unknown = 0usize;
    let mut version = 1u32;
    let mut header_seen = false;

    let (bad_lines, lines) = jsonl::read_lines_par(
        src,
        |l| parse_line(l, opts.texts),
        |line, parsed, estimate| {
            if t.entries.capacity() == 0 && estimate > 0 {
                t.entries.reserve(estimate);
                pids.reserve(estimate);
            }
            match parsed {
                Parsed::Malformed(reason) => return jsonl::LineVerdict::Malformed(reason),
                Parsed::Unknown(hash) => {
                    unknown += 1;
                    t.push_other_line(line.no, hash, false);
                }
                Parsed::Header { hash, version: v, id, openclaw } => {
                    t.push_other_line(line.no, hash, false);
                    if !header_seen {
                        header_seen = true;
                        version = v.unwrap_or(1);
                        t.header = Some(Header { line: line.no, version, session_id: id, openclaw });
                    }
                }
                Parsed::Entry(p) => {
                    let ParsedEntry { mut entry, packed, parent, first_kept: fk, unknown: unk, usage } = *p;
                    if let Some(u) = usage {
                        t.set_usage(t.entries.len() as u32, u);
                    }
                    if let Some((id, index)) = fk {
                        first_kept.push((t.entries.len() as u32, id, index));
                    }
                    unknown += usize::from(unk);
                    // `parentId: null` and no `parentId` both make a root.
                    pids.add(&t.entries, &mut entry, parent.flatten().as_deref());
                    t.push(entry, packed.as_deref());
                }
            }
            jsonl::LineVerdict::Ok
        },
    )?;

    t.lines = lines;
    t.has_ids = version >= 2 || t.entries.iter().any(|e| e.id.is_some());
    if t.has_ids {
        pids.finish(&mut t);
    } else {
        super::link_linearly(&mut t);
    }
    // Each id's first entry, looked up once per compaction (a scan each was
    // quadratic in a session compacted at every turn).
    let mut by_id: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    if first_kept.iter().any(|k| k.1.is_some()) {
        for (i, e) in t.entries.iter().enumerate() {
            if let Some(id) = e.id.as_deref() {
                by_id.entry(id).or_insert(i);
            }
        }
    }
    let targets: Vec<(u32, Option<usize>)> = first_kept
        .into_iter()
        .map(|(idx, id, index)| {
            let target = match (id, index) {
                (Some(id), _) => by_id.get(&*id).copied(),
                // v1: index into the session's entries (the header excluded).
                (None, Some(i)) => usize::try_from(i).ok().filter(|&i| i < t.entries.len()),
                _ => None,
            };
            (idx, target)
        })
        .collect();
    drop(by_id);
    for (idx, target) in targets {
        if let Some(c) = t.entries[idx as usize].compaction_mut() {
            c.first_kept = target.map(|i| i as u32);
        }
    }
    super::fill_id_repeats(src, &mut t);
    Ok(Input::from_transcript(&src.display, ID, t, bad_lines, unknown))
}

fn summary_message(kind: MessageKind, text: &str) -> Message {
    Message {
        role: Role::User,
        kind,
        pointer: Cow::Borrowed(""),
        blocks: vec![Block::new(BlockKind::Text, Cow::Borrowed("/summary"), text, true)],
        assistant: None,
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    }
}

/// Builds a message from a `content` value (string or block array).
fn content_message(
    role: Role,
    kind: MessageKind,
    msg_ptr: &'static str,
    content: &Content,
    content_ptr: &'static str,
    full: bool,
) -> Message {
    let mut blocks = Vec::new();
    match content {
        Content::Text(text) => blocks.push(Block::new(BlockKind::Text, Cow::Borrowed(content_ptr), text, full)),
        Content::Blocks(raw) => {
            blocks.reserve_exact(raw.len());
            for (i, b) in raw.iter().enumerate() {
                blocks.push(block(b, content_ptr, i, full));
            }
        }
        Content::None => {}
    }
    Message {
        role,
        kind,
        pointer: Cow::Borrowed(msg_ptr),
        blocks,
        assistant: None,
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    }
}

/// `/message/content/N` and `/content/N` for small N without allocating.
fn block_ptr(content_ptr: &str, i: usize) -> Ptr {
    use crate::model::packed::{CONTENT, MESSAGE_CONTENT};
    match content_ptr {
        "/message/content" if i < MESSAGE_CONTENT.len() => Cow::Borrowed(MESSAGE_CONTENT[i]),
        "/content" if i < CONTENT.len() => Cow::Borrowed(CONTENT[i]),
        _ => Cow::Owned(ptr_idx(content_ptr, i)),
    }
}

/// Bytes of assistant text kept for excerpts and silent-token checks (the
/// full text's hash and length are always kept).
const ASSISTANT_TEXT_KEEP: usize = 160;

fn block(b: &RawBlock, content_ptr: &str, i: usize, full: bool) -> Block {
    let ptr = block_ptr(content_ptr, i);
    match b.btype.as_deref().unwrap_or("") {
        "text" => {
            let t = b.text.as_deref().unwrap_or("");
            let mut bl = Block::new(
                BlockKind::Text,
                ptr,
                crate::text::prefix(t, if full { usize::MAX } else { ASSISTANT_TEXT_KEEP }),
                true,
            );
            bl.text_len = t.len() as u32;
            bl.text_hash = crate::hash::hash_str(t);
            bl
        }
        "thinking" => thin_block(BlockKind::Thinking, ptr, b.thinking.as_deref().unwrap_or("")),
        "toolCall" => {
            // The arguments are kept (as JSON text) for `show` and excerpts;
            // `check` packs them by length and hash only (`Texts::Compact`).
            let args = b.arguments.map(|a| a.get()).unwrap_or("");
            let mut bl = Block::new(BlockKind::ToolCall, ptr, args, true);
            bl.tool_id = b.id.as_deref().map(Into::into);
            bl.tool_name = b.name.as_deref().map(Into::into);
            if b.name.as_deref() == Some("message") {
                let (send, dry) = send_facts(args);
                bl.is_send = send;
                bl.dry_run = dry;
            }
            bl
        }
        "image" => Block::new(BlockKind::Media, ptr, "", false),
        other => Block::new(BlockKind::Other, ptr, b.text.as_deref().unwrap_or(other), full),
    }
}

/// A block that keeps only the hash and length of its text (thinking, tool arguments).
fn thin_block(kind: BlockKind, ptr: Ptr, text: &str) -> Block {
    let mut b = Block::new(kind, ptr, "", true);
    b.text_len = text.len() as u32;
    b.text_hash = crate::hash::hash_str(text);
    b
}

/// For a `message` tool call's arguments: (posts to a channel, dry run).
/// OpenClaw's message tool sends when `action` is `"send"` (also `reply`).
pub fn send_facts(args_json: &str) -> (bool, bool) {
    let v: serde_json::Value = match serde_json::from_str(args_json) {
        Ok(v) => v,
        Err(_) => return (false, false),
    };
    let action = v.get("action").and_then(|a| a.as_str()).unwrap_or("");
    let send = matches!(action, "send" | "reply" | "sendMessage");
    let dry = v.get("dryRun").and_then(|d| d.as_bool()).unwrap_or(false)
        || v.get("dry_run").and_then(|d| d.as_bool()).unwrap_or(false);
    (send, dry)
}

/// Delivery evidence in a message-tool result (OpenClaw): `deliveryStatus` or
/// `status` `"sent"` (or `"delivered"`, `"partial"`), a platform `messageId`,
/// non-empty `receipts`, or a positive delivered count — and not a dry run,
/// nor a suppressed or failed send.
pub fn delivered(v: &serde_json::Value) -> bool {
    fn walk(v: &serde_json::Value, depth: usize, found: &mut bool, negative: &mut bool) {
        if depth > 6 {
            return;
        }
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("dryRun" | "dry_run" | "suppressed", serde_json::Value::Bool(true)) => *negative = true,
                        ("deliveryStatus" | "status", serde_json::Value::String(s)) => match s.as_str() {
                            "sent" | "delivered" | "partial" | "partially_sent" => *found = true,
                            "dry_run" | "dryRun" | "suppressed" | "failed" | "error" | "skipped" => *negative = true,
                            _ => {}
                        },
                        ("messageId" | "message_id" | "ts", serde_json::Value::String(s))
                            if !s.is_empty() && k != "ts" =>
                        {
                            *found = true
                        }
                        ("messageId" | "message_id", serde_json::Value::Number(_)) => *found = true,
                        ("receipts" | "messageIds", serde_json::Value::Array(a)) if !a.is_empty() => *found = true,
                        ("delivered" | "sentCount" | "deliveredCount", serde_json::Value::Number(n))
                            if n.as_f64().unwrap_or(0.0) > 0.0 =>
                        {
                            *found = true
                        }
                        _ => walk(x, depth + 1, found, negative),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, depth + 1, found, negative)),
            _ => {}
        }
    }
    let (mut found, mut negative) = (false, false);
    walk(v, 0, &mut found, &mut negative);
    found && !negative
}

/// Classifies one `message` entry: (class, message, is a model call).
fn message(m: &RawMessage) -> (Class, Option<Message>, bool) {
    let role = m.role.as_deref().unwrap_or("");
    match role {
        "user" => {
            let msg =
                content_message(Role::User, MessageKind::UserTurn, "/message", &m.content, "/message/content", true);
            let only_results = !msg.blocks.is_empty() && msg.blocks.iter().all(|b| b.kind == BlockKind::ToolResult);
            let mut msg = msg;
            if only_results {
                msg.kind = MessageKind::ToolResults;
            }
            (Class::Conversation, Some(msg), false)
        }
        "assistant" => {
            let mut msg = content_message(
                Role::Assistant,
                MessageKind::Assistant,
                "/message",
                &m.content,
                "/message/content",
                false,
            );
            let stop = match m.stop_reason.as_deref() {
                Some("stop" | "length" | "end_turn") => Stop::Normal,
                Some("toolUse" | "tool_use" | "tool_calls") => Stop::ToolUse,
                Some("error") => Stop::Error,
                Some("aborted") => Stop::Aborted,
                _ => Stop::Unknown,
            };
            let provider = m.provider.as_deref().unwrap_or("");
            let transcript_only = provider == "openclaw";
            let mirror = m.delivery_mirror.is_some() || m.model.as_deref() == Some("delivery-mirror");
            let model = match (m.provider.as_deref(), m.model.as_deref()) {
                (Some(p), Some(md)) => Some(format!("{p}/{md}").into_boxed_str()),
                (None, Some(md)) => Some(md.into()),
                (Some(p), None) => Some(p.into()),
                _ => None,
            };
            msg.assistant = Some(Box::new(AssistantInfo {
                stop,
                model,
                transcript_only,
                api_error: false,
                delivery_mirror: mirror,
                rewritten: false,
            }));
            (Class::Conversation, Some(msg), !transcript_only)
        }
        "toolResult" => {
            // The result itself is the element that pairs with the call: one block
            // at the message, keeping a short prefix of its text.
            let texts: Vec<&str> = match &m.content {
                Content::Text(t) => vec![t.as_ref()],
                Content::Blocks(b) => b.iter().filter_map(|b| b.text.as_deref()).collect(),
                Content::None => Vec::new(),
            };
            let first = texts.first().copied().unwrap_or("");
            let total: usize = texts.iter().map(|t| t.len()).sum::<usize>() + texts.len().saturating_sub(1);
            let mut rb =
                Block::new(BlockKind::ToolResult, Cow::Borrowed("/message"), crate::text::prefix(first, 64), true);
            rb.text_len = total as u32;
            rb.text_hash = texts.iter().fold(0u64, |h, t| h.rotate_left(5) ^ crate::hash::hash_str(t));
            rb.tool_id = m.tool_call_id.as_deref().map(Into::into);
            rb.tool_name = m.tool_name.as_deref().map(Into::into);
            let mut info = ResultInfo { is_error: m.is_error.unwrap_or(false), ..Default::default() };
            let details_raw = m.details.map(|d| d.get()).unwrap_or("");
            let looks_delivery = |s: &str| {
                s.contains("deliveryStatus")
                    || s.contains("messageId")
                    || s.contains("receipts")
                    || s.contains("\"status\"")
                    || s.contains("openclawSynthetic")
            };
            let details: Option<serde_json::Value> =
                if looks_delivery(details_raw) { serde_json::from_str(details_raw).ok() } else { None };
            if let Some(d) = &details {
                if d.get("openclawSyntheticMissingToolResult").and_then(|x| x.as_bool()) == Some(true) {
                    info.synthetic_or_aborted = true;
                }
            }
            if texts.len() == 1 && first.trim() == "aborted" {
                info.synthetic_or_aborted = true;
            }
            let mut delivered_ = details.as_ref().map(delivered).unwrap_or(false);
            if !delivered_ && texts.len() == 1 && first.trim_start().starts_with('{') && looks_delivery(first) {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(first) {
                    delivered_ = delivered(&v);
                }
            }
            info.delivered = delivered_;
            let msg = Message {
                role: Role::Tool,
                kind: MessageKind::ToolResult,
                pointer: Cow::Borrowed("/message"),
                blocks: vec![rb],
                assistant: None,
                result: Some(Box::new(info)),
                dynamic_ref: None,
                json_hash: 0,
            };
            (Class::Conversation, Some(msg), false)
        }
        "bashExecution" => {
            let text = format!("Ran `{}`\n{}", m.command.as_deref().unwrap_or(""), m.output.as_deref().unwrap_or(""));
            let msg = Message {
                role: Role::User,
                kind: MessageKind::Bash,
                pointer: Cow::Borrowed("/message"),
                blocks: vec![Block::new(BlockKind::Text, Cow::Borrowed("/message"), &text, false)],
                assistant: None,
                result: None,
                dynamic_ref: None,
                json_hash: 0,
            };
            let class = if m.exclude_from_context == Some(true) { Class::Hidden } else { Class::Conversation };
            (class, Some(msg), false)
        }
        "custom" | "hookMessage" => {
            let carrier = m.custom_type.as_deref() == Some("openclaw.runtime-context");
            let kind = if carrier { MessageKind::Carrier } else { MessageKind::Extension };
            (
                Class::Conversation,
                Some(content_message(Role::User, kind, "/message", &m.content, "/message/content", true)),
                false,
            )
        }
        "branchSummary" => (Class::Conversation, Some(summary_like(MessageKind::BranchSummary, m)), false),
        "compactionSummary" => (Class::Conversation, Some(summary_like(MessageKind::CompactionSummary, m)), false),
        _ => (Class::Bookkeeping, None, false),
    }
}

fn summary_like(kind: MessageKind, m: &RawMessage) -> Message {
    Message {
        role: Role::User,
        kind,
        pointer: Cow::Borrowed("/message"),
        blocks: vec![Block::new(
            BlockKind::Text,
            Cow::Borrowed("/message/summary"),
            m.summary.as_deref().unwrap_or(""),
            true,
        )],
        assistant: None,
        result: None,
        dynamic_ref: None,
        json_hash: 0,
    }
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Jsonl,
    detect: Detect {
        record: Some(Sniffer { rank: 1, test: sniff }),
        // A pi session entry without the header line (lost in a rewrite):
        // pi's, unless a record decides otherwise.
        weak_record: Some(Sniffer { rank: 1, test: sniff_entry }),
        ..Detect::NONE
    },
    fit: Fit::Records {
        test: |v| sniff(v) || sniff_entry(v),
        missing: "no record has `type` \"session\" with `id`, `version` or `cwd` (the session header pi writes first), nor is a pi session entry (`type`, `id`, `parentId`, `timestamp`)",
        document: None,
    },
    read: Read::File(load),
    locate: Locate::Lines { span: None, document: None },
    record: Some(&SCHEMA),
    repro: Repro {
        name: "session.jsonl",
        numbered: None,
        threading: Some(("id", "parentId")),
        text: None,
        value: None,
    },
    store: None,
    agent_folders: &[
        // OpenClaw keeps pi sessions per agent.
        AgentFolder::home(0, ".openclaw", "agents/*/sessions", false),
        AgentFolder::home(1, ".pi", "agent/sessions", false),
    ],
    about: About {
        what: "pi / OpenClaw session JSONL, versions 1-3",
        kind: "transcript",
        location: "~/.pi/agent/sessions/*/*.jsonl; OpenClaw: ~/.openclaw/agents/*/sessions/*.jsonl",
    },
};
