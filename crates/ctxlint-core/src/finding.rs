//! Findings: what a rule reports, in the shape of docs/spec.md §4's JSON output.

use crate::rule_id::RuleId;
use serde::Serialize;
use std::borrow::Cow;

pub use crate::rule_id::Severity;

/// A location related to a finding (e.g. the first occurrence of a duplicate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    /// Path as given on the command line.
    pub path: String,
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// RFC 6901 JSON Pointer into the document (or the JSONL line's object).
    pub pointer: String,
    /// What this location is, e.g. `"first occurrence"`.
    pub message: String,
}

/// One defect found in one input.
///
/// Field names and meanings follow docs/spec.md §4. Locations are filled in two steps:
/// a rule sets `path`, `pointer`, `line` (for JSONL) and `request`; the
/// pipeline then resolves `column` and `byte_offset` from the source bytes.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Rule name, e.g. `duplicate-system-event`.
    #[serde(serialize_with = "ser_rule_name")]
    pub rule: RuleId,
    /// Rule code, e.g. `CTX101`.
    pub code: &'static str,
    /// Effective severity (after configuration).
    pub severity: Severity,
    /// One-sentence description of this occurrence.
    pub message: String,
    /// Path as given on the command line (relative stays relative).
    pub path: String,
    /// The session, in a store that holds several (an OpenCode database:
    /// [`crate::source::SourceRef::session`]); absent (not `null`) otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Input format id (docs/spec.md §1), e.g. `pi-session`.
    pub format: crate::model::FormatId,
    /// 1-based line of the offending element.
    pub line: Option<u32>,
    /// 1-based column (in characters) of the offending element on its line.
    pub column: Option<u32>,
    /// 0-based byte offset of the offending element in the file.
    pub byte_offset: Option<u64>,
    /// 1-based line where the offending element ends, when known.
    pub end_line: Option<u32>,
    /// 1-based column (in characters) just after the offending element, when known.
    pub end_column: Option<u32>,
    /// JSON Pointer of the smallest element carrying the defect (`""` = the whole document).
    pub pointer: String,
    /// 0-based request (stream) or step (transcript) index.
    pub request: Option<usize>,
    /// Transcript entry id (`id` / `uuid`), when the element is an entry with one.
    pub entry_id: Option<String>,
    /// Related locations (first occurrence, the request compared against, …).
    pub related: Vec<Related>,
    /// Stable hash of rule, path (and session, in a store of several), normalised offending text and occurrence number.
    pub fingerprint: String,
    /// What the defect cost in tokens and money, and whether the provider's
    /// recorded usage confirms it (docs/spec.md §4 `impact`); `None` (JSON
    /// `null`) when nothing is known. Filled by [`crate::impact::assess`].
    pub impact: Option<Impact>,
    /// What the defect does to the prompt, as the rule that found it says
    /// ([`Effect`]); read by [`crate::impact::assess`].
    #[serde(skip)]
    pub effect: Option<Effect>,
    /// Bytes of the offending text as the rule gave it, before it was cut
    /// to an excerpt ([`Finding::compact`]); 0 when there is none.
    #[serde(skip)]
    pub text_bytes: u64,
    /// The offending text. Rules set it whole; once reported it is kept as
    /// every output shows it ([`Finding::compact`]: masked, cut to
    /// [`crate::text::EXCERPT_CHARS`] characters), so a finding costs a few
    /// hundred bytes however long the text it quotes.
    #[serde(skip)]
    pub excerpt: Option<String>,
    /// A help line: how to fix or what to look at (most are fixed texts, not copied per finding).
    #[serde(skip)]
    pub help: Option<Cow<'static, str>>,
    /// A unified diff illustrating the defect (history rewrites, fence rewrites).
    #[serde(skip)]
    pub diff: Option<String>,
    /// Normalised offending text used for the fingerprint (never shown);
    /// emptied once the fingerprint is computed.
    #[serde(skip)]
    pub key: String,
}

fn ser_rule_name<S: serde::Serializer>(r: &RuleId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(r.name())
}

impl Finding {
    /// A new finding for `rule` at `path`, with the rule's default severity and
    /// an empty pointer. Fill the rest with the builder methods.
    pub fn new(rule: RuleId, path: &str, format: crate::model::FormatId, message: impl Into<String>) -> Self {
        Finding {
            rule,
            code: rule.code(),
            severity: rule.default_severity(),
            message: message.into(),
            path: path.to_string(),
            session: None,
            format,
            line: None,
            column: None,
            byte_offset: None,
            end_line: None,
            end_column: None,
            pointer: String::new(),
            request: None,
            entry_id: None,
            related: Vec::new(),
            fingerprint: String::new(),
            impact: None,
            effect: None,
            text_bytes: 0,
            excerpt: None,
            help: None,
            diff: None,
            key: String::new(),
        }
    }

    /// Sets the 1-based line.
    pub fn line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }
    /// Sets the JSON Pointer.
    pub fn pointer(mut self, p: impl Into<String>) -> Self {
        self.pointer = p.into();
        self
    }
    /// Sets the request / step index.
    pub fn request(mut self, i: usize) -> Self {
        self.request = Some(i);
        self
    }
    /// Sets the entry id.
    pub fn entry_id(mut self, id: Option<&str>) -> Self {
        self.entry_id = id.map(str::to_string);
        self
    }
    /// Sets the severity.
    pub fn severity(mut self, s: Severity) -> Self {
        self.severity = s;
        self
    }
    /// Sets the excerpt (the offending text) and, unless set later, the fingerprint key.
    pub fn excerpt(mut self, text: impl Into<String>) -> Self {
        let t = text.into();
        if self.key.is_empty() {
            self.key = t.clone();
        }
        self.excerpt = Some(t);
        self
    }
    /// Sets the normalised text the fingerprint is computed from.
    pub fn key(mut self, k: impl Into<String>) -> Self {
        self.key = k.into();
        self
    }
    /// Sets the help line.
    pub fn help(mut self, h: impl Into<Cow<'static, str>>) -> Self {
        self.help = Some(h.into());
        self
    }
    /// Keeps of the excerpt only what any output shows of it: masked, control
    /// characters made visible, at most [`crate::text::EXCERPT_CHARS`]
    /// characters (renderers apply the same cut, which leaves this text as
    /// it is). Called on every finding as it is reported.
    ///
    /// The message and the related locations' messages, which quote ids,
    /// tool names and model names from the input, get their control and
    /// bidirectional characters escaped here, once, for every output: an id
    /// holding ESC, CR or a newline can then neither drive a terminal nor
    /// forge a line of a CI log.
    pub fn compact(&mut self) {
        if let Some(e) = &mut self.excerpt {
            // The whole text's bytes, unless the rule counted them already
            // (paragraphs repeated together: one finding, quoting the first).
            if self.text_bytes == 0 {
                self.text_bytes = e.len() as u64;
            }
            *e = crate::text::excerpt(e, crate::text::EXCERPT_CHARS);
            e.shrink_to_fit();
        }
        if let Cow::Owned(m) = crate::escape::escape_controls(&self.message) {
            self.message = m;
        }
        for r in &mut self.related {
            if let Cow::Owned(m) = crate::escape::escape_controls(&r.message) {
                r.message = m;
            }
        }
    }
    /// Sets what the defect does to the prompt ([`Effect`]).
    pub fn effect(mut self, e: Effect) -> Self {
        self.effect = Some(e);
        self
    }
    /// Sets the diff.
    pub fn diff(mut self, d: impl Into<String>) -> Self {
        self.diff = Some(d.into());
        self
    }
    /// Adds a related location.
    pub fn related(
        mut self,
        path: &str,
        line: Option<u32>,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        self.related.push(Related { path: path.to_string(), line, pointer: pointer.into(), message: message.into() });
        self
    }
}

/// A finding's impact (docs/spec.md §4): JSON `{"tokens", "estimated",
/// "cached_before", "cached_after", "confirmed", "cost_usd"}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Impact {
    /// Tokens the defect adds, or forces to be sent again uncached.
    pub tokens: u64,
    /// `tokens` is estimated from bytes (÷ 4), not taken from recorded usage.
    pub estimated: bool,
    /// Cached input tokens before: for a cache break, what the previous call
    /// left in the cache (`cache_read + cache_write`); for an added copy,
    /// the previous call's cache read; for an extra call, `None`. `None`
    /// also when not recorded.
    pub cached_before: Option<u64>,
    /// This call's cache read (`None`: not recorded).
    pub cached_after: Option<u64>,
    /// Whether the provider's recorded usage confirms the defect (`None`: it cannot say).
    pub confirmed: Option<bool>,
    /// Estimated cost in USD (`None`: the model is unknown or has no price).
    pub cost_usd: Option<f64>,
}

/// What a defect does to the prompt, as the rule that finds it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Adds one more copy of `bytes` bytes of text to the context.
    Added {
        /// Bytes of the copy.
        bytes: u64,
    },
    /// Makes a whole model call that should not have been made (a second
    /// visible reply to one user turn): its recorded usage is the cost.
    ExtraCall,
    /// Breaks the prompt cache: the context after the break is sent again.
    CacheBreak {
        /// Bytes of the previous request after the break (the estimate without usage).
        bytes: u64,
        /// The request index (docs/spec.md §4 `request`) of the request compared against.
        before: usize,
    },
}
