//! The normalised model every loader produces and every rule reads.
//!
//! Two shapes of input exist (docs/spec.md §1):
//! - a **transcript** (`pi-session`, `claude-code`, `codex-rollout`): a list of
//!   entries in write order, forming a tree by id/parent; the model calls
//!   (steps) and their contexts are rebuilt from it by [`crate::analysis::Tree`];
//! - a **stream** of recorded requests (request-body files, exchange logs,
//!   cassettes, pydantic-ai history snapshots): each request holds its
//!   per-request slots (system prompt, instructions, tools) and its messages.
//!
//! Every element keeps where it came from: transcripts keep the 1-based line and
//! byte offset of each entry and a JSON Pointer into that line's object;
//! requests keep their file, the pointer of their body inside it, and a pointer
//! for every message and block. Texts that rules need (the prompt side: user,
//! system, developer, extension and carrier messages) are kept in full;
//! assistant text, thinking and tool results keep a short prefix, their length
//! and a hash, so that a 300 MB transcript does not have to live in memory.
//! A transcript's messages are stored packed in [`Transcript::messages`] (see
//! [`crate::model::packed`]); `check` keeps of the model side only short texts
//! ([`crate::model::packed::Texts::Compact`]) and reads the others again for the
//! findings that quote them ([`crate::model::Transcript::full_message`]).

mod intern;
pub mod packed;
pub use intern::Interner;

use packed::{MessageArena, MsgRef, PackedMessage};
use std::borrow::Cow;
use std::sync::Arc;

/// Most findings one rule lists for one input, and most malformed lines an
/// input keeps ([`BadLines`]). A flood past it (a file of torn lines, a
/// broken chain on every line) is counted, not kept: each output says how
/// many more there were, so none is dropped silently, and memory stays
/// bounded by this count, not by the input.
pub const MAX_LISTED: usize = 10_000;
/// A format id of docs/spec.md §1 (`pi-session`, `claude-code`, …), the key
/// of the format's descriptor in [`crate::formats::REGISTRY`]. Each loader
/// defines its own as `pub const ID` and nothing else makes one (a test
/// checks it), so a mistyped id does not compile; text is turned into one
/// only by [`crate::formats::parse_format_id`]. Shown and serialised as its
/// text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FormatId(&'static str);

impl FormatId {
    /// No format: what `fence` names when neither file is of a format it
    /// knows. Not a registered format (it has no descriptor).
    pub const UNKNOWN: FormatId = FormatId("unknown");

    /// The id of a new format: for a loader's `pub const ID` only.
    #[doc(hidden)]
    pub const fn new(id: &'static str) -> Self {
        FormatId(id)
    }

    /// The id's text, e.g. `"pi-session"`.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl Default for FormatId {
    /// [`FormatId::UNKNOWN`].
    fn default() -> Self {
        FormatId::UNKNOWN
    }
}

impl std::fmt::Display for FormatId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl serde::Serialize for FormatId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

/// One loaded input: a transcript file, or a stream of requests.
#[derive(Debug)]
pub struct Input {
    /// Path as given on the command line (or found by walking a directory).
    pub path: String,
    /// Detected (or forced) format id.
    pub format: FormatId,
    /// The content.
    pub body: Body,
    /// JSONL lines that are not exactly one JSON value (reported by
    /// `malformed-line`), the first [`MAX_LISTED`] of them.
    pub bad_lines: Vec<BadLine>,
    /// Malformed lines past those kept in `bad_lines`: counted, not kept.
    pub more_bad_lines: usize,
    /// Elements skipped because they match no request format (counted, docs/spec.md §1).
    pub skipped: usize,
    /// Records kept but not understood (unknown entry types), counted for `show`.
    pub unknown_records: usize,
    /// Exchanges with a model endpoint whose request body could not be read
    /// (not JSON, an undecodable `!!binary` payload): skipped (and counted
    /// in `skipped`), and each one warned about by `check`.
    pub unread: Vec<Unread>,
}

/// An exchange whose request body could not be read ([`Input::unread`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// 1-based line of the exchange (its request) in the file, when known.
    pub line: Option<u32>,
    /// JSON Pointer of the body.
    pub pointer: String,
    /// What was wrong, e.g. "request body is not JSON".
    pub what: String,
}

/// The content of an input.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per input
pub enum Body {
    /// A session transcript.
    Transcript(Transcript),
    /// An ordered list of recorded requests.
    Stream(Stream),
}

impl Input {
    /// A transcript input read from `path`: `bad_lines` are its malformed
    /// lines, `unknown_records` the records kept but not understood.
    pub fn from_transcript(
        path: &str,
        format: FormatId,
        t: Transcript,
        bad_lines: BadLines,
        unknown_records: usize,
    ) -> Input {
        Input {
            path: path.to_string(),
            format,
            body: Body::Transcript(t),
            bad_lines: bad_lines.kept,
            more_bad_lines: bad_lines.more,
            skipped: 0,
            unknown_records,
            unread: Vec::new(),
        }
    }
    /// The transcript, when the input is one.
    pub fn as_transcript(&self) -> Option<&Transcript> {
        match &self.body {
            Body::Transcript(t) => Some(t),
            Body::Stream(_) => None,
        }
    }
    /// Number of requests (streams) or model calls (transcripts are counted by entries instead).
    pub fn request_count(&self) -> usize {
        match &self.body {
            Body::Stream(s) => s.requests.len(),
            Body::Transcript(_) => 0,
        }
    }
    /// Number of transcript entries (0 for streams).
    pub fn entry_count(&self) -> usize {
        match &self.body {
            Body::Transcript(t) => t.entries.len(),
            Body::Stream(_) => 0,
        }
    }
}

/// The malformed lines of a JSONL file, as a loader records them.
#[derive(Debug, Clone, Default)]
pub struct BadLines {
    /// The first [`MAX_LISTED`] malformed lines, in file order.
    pub kept: Vec<BadLine>,
    /// How many more there were.
    pub more: usize,
}

impl BadLines {
    /// Records one malformed line: kept while fewer than
    /// [`MAX_LISTED`] are, else counted (`make` is not called).
    pub fn push_with(&mut self, make: impl FnOnce() -> BadLine) {
        if self.kept.len() < MAX_LISTED {
            self.kept.push(make());
        } else {
            self.more += 1;
        }
    }
}

/// A JSONL line that is not exactly one JSON value.
#[derive(Debug, Clone)]
pub struct BadLine {
    /// 1-based line number.
    pub line: u32,
    /// Byte offset of the line start in the file.
    pub offset: u64,
    /// What is wrong (serde_json's message, or "NUL bytes", "invalid UTF-8", …).
    pub reason: String,
    /// The start of the line (for the excerpt), at most 200 bytes, lossily decoded.
    pub head: String,
}

// ---------------------------------------------------------------------------
// Messages and blocks (shared by transcripts and requests)
// ---------------------------------------------------------------------------

/// The role a message is sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// `system`
    System,
    /// `developer` (OpenAI)
    Developer,
    /// `user`
    User,
    /// `assistant` / `model`
    Assistant,
    /// `tool` / `toolResult` / `function`
    Tool,
}

impl Role {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
    /// System or developer role.
    pub fn is_system(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }
}

/// What a message is, beyond its role (decides *user turn*, docs/spec.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A system prompt / instructions message or part.
    SystemPrompt,
    /// A user-role message with user-authored content: a **user turn**.
    UserTurn,
    /// A user-role message holding only tool results.
    ToolResults,
    /// A model output.
    Assistant,
    /// A tool-role result message.
    ToolResult,
    /// A compaction summary.
    CompactionSummary,
    /// A branch summary (pi `branch_summary`).
    BranchSummary,
    /// A runtime-context carrier (OpenClaw `openclaw.runtime-context`): prompt-local.
    Carrier,
    /// Extension content sent as user role (pi `custom_message`).
    Extension,
    /// A `bashExecution` record sent as user role.
    Bash,
    /// Claude Code meta / command output / injected attachment context sent as user role.
    Meta,
}

impl MessageKind {
    /// Short name for `show`.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::SystemPrompt => "system",
            MessageKind::UserTurn => "user",
            MessageKind::ToolResults => "tool results",
            MessageKind::Assistant => "assistant",
            MessageKind::ToolResult => "tool result",
            MessageKind::CompactionSummary => "compaction summary",
            MessageKind::BranchSummary => "branch summary",
            MessageKind::Carrier => "context carrier",
            MessageKind::Extension => "extension",
            MessageKind::Bash => "bash",
            MessageKind::Meta => "meta",
        }
    }
    /// Prompt-side messages: their text is kept in full and scanned by the
    /// duplicate rules (system events, context blocks, system prompts).
    pub fn is_prompt_side(self) -> bool {
        matches!(
            self,
            MessageKind::SystemPrompt
                | MessageKind::UserTurn
                | MessageKind::Carrier
                | MessageKind::Extension
                | MessageKind::Meta
                | MessageKind::CompactionSummary
                | MessageKind::BranchSummary
        )
    }
}

/// How a model call ended (assistant messages only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stop {
    /// Unknown or not recorded.
    #[default]
    Unknown,
    /// Ended normally with text (`stop`, `end_turn`, `length`).
    Normal,
    /// Ended to call tools.
    ToolUse,
    /// Ended with an error.
    Error,
    /// Aborted (by the user or the runtime).
    Aborted,
}

/// Facts about an assistant message that the reply and replay rules need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssistantInfo {
    /// How the call ended.
    pub stop: Stop,
    /// `provider/model` of the answer, when recorded.
    pub model: Option<Box<str>>,
    /// Transcript-only record, not model output (OpenClaw `provider: "openclaw"`).
    pub transcript_only: bool,
    /// An API-error stub (Claude Code `isApiErrorMessage`, model `<synthetic>`).
    pub api_error: bool,
    /// OpenClaw delivery mirror of a send.
    pub delivery_mirror: bool,
    /// A model message written again as history, not a new output (Gemini
    /// CLI `$set.messages`): in context, never a reply.
    pub rewritten: bool,
}

/// Facts about a tool result that pairing and reply rules need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultInfo {
    /// Synthetic or aborted result (OpenClaw `openclawSyntheticMissingToolResult`, text `aborted`).
    pub synthetic_or_aborted: bool,
    /// The result shows delivery of a message-tool send (`deliveryStatus`/`status` "sent",
    /// a platform `messageId`, receipts).
    pub delivered: bool,
    /// The result is an error.
    pub is_error: bool,
}

/// One message of a request or one transcript entry's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Role it is sent with.
    pub role: Role,
    /// What it is.
    pub kind: MessageKind,
    /// JSON Pointer of the message (into the document, or into the JSONL line's object).
    pub pointer: Ptr,
    /// Content blocks in order. A plain-string content is one `Text` block whose pointer is the message's.
    pub blocks: Vec<Block>,
    /// Assistant facts (assistant messages only).
    pub assistant: Option<Box<AssistantInfo>>,
    /// Tool-result facts (tool results only).
    pub result: Option<Box<ResultInfo>>,
    /// pydantic-ai `dynamic_ref` of a system-prompt part.
    pub dynamic_ref: Option<Box<str>>,
    /// When the message itself is one history element (a Chat message with
    /// string content, a Responses item): its canonical JSON hash; else 0 and
    /// its blocks are the elements.
    pub json_hash: u64,
}

impl Message {
    /// Bytes of the texts of its blocks (the estimate of what it sends, in bytes).
    pub fn text_bytes(&self) -> u64 {
        self.blocks.iter().map(|b| b.text.len() as u64).sum()
    }
}

/// Block kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Plain text.
    Text,
    /// Model reasoning (thinking, reasoning item).
    Thinking,
    /// A tool call (`tool_use`, `toolCall`, `function_call`, `tool_calls[]`, `functionCall`, `toolUse`).
    ToolCall,
    /// A tool result (`tool_result`, `function_call_output`, `functionResponse`, `toolResult`).
    ToolResult,
    /// Image, document or other binary content.
    Media,
    /// A compaction block / item.
    Compaction,
    /// Anything else.
    Other,
}

impl BlockKind {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Text => "text",
            BlockKind::Thinking => "thinking",
            BlockKind::ToolCall => "tool call",
            BlockKind::ToolResult => "tool result",
            BlockKind::Media => "media",
            BlockKind::Compaction => "compaction",
            BlockKind::Other => "other",
        }
    }
}

/// One content block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// What it is.
    pub kind: BlockKind,
    /// JSON Pointer of the block.
    pub pointer: Ptr,
    /// Its text: in full for prompt-side messages, else a prefix (see [`Block::text_len`]),
    /// or nothing ([`Block::text_dropped`]). Shared: a stream holds a text its
    /// requests send again once ([`Interner`]).
    pub text: Arc<str>,
    /// Length in bytes of the full text.
    pub text_len: u32,
    /// Hash of the full text (xxh-style 64-bit, see [`crate::hash`]).
    pub text_hash: u64,
    /// Hash of the block's canonical JSON (key order, whitespace and `cache_control` ignored).
    /// 0 when the loader does not compute it (transcripts).
    pub json_hash: u64,
    /// Tool call id (calls and results).
    pub tool_id: Option<Box<str>>,
    /// Tool name (calls, and results when recorded).
    pub tool_name: Option<Box<str>>,
    /// For message-tool calls: this call posts to a channel (`message` with `action: "send"`).
    pub is_send: bool,
    /// For message-tool calls: a dry run.
    pub dry_run: bool,
    /// The text was not kept in memory (a long model-side text of a
    /// transcript, see [`crate::model::packed::Texts`]): `text` is empty; the loader
    /// gives it again with [`crate::model::Transcript::full_message`].
    pub text_dropped: bool,
}

impl Block {
    /// A block with the given kind and text; hashes computed here.
    pub fn new(kind: BlockKind, pointer: Ptr, text: &str, keep_full: bool) -> Block {
        let text_hash = crate::hash::hash_str(text);
        let kept = if keep_full { text } else { crate::text::prefix(text, 240) };
        Block {
            kind,
            pointer,
            text: kept.into(),
            text_len: text.len().min(u32::MAX as usize) as u32,
            text_hash,
            json_hash: 0,
            tool_id: None,
            tool_name: None,
            is_send: false,
            dry_run: false,
            text_dropped: false,
        }
    }
    /// Whether the text (as kept) is empty or white space; a dropped text is not.
    pub fn is_blank(&self) -> bool {
        !self.text_dropped && self.text.trim().is_empty()
    }
    /// Whether `text` holds the full text.
    pub fn has_full_text(&self) -> bool {
        self.text.len() as u32 == self.text_len
    }
}

/// A JSON Pointer, cheap to clone (static for fixed transcript paths).
pub type Ptr = Cow<'static, str>;

/// Joins a pointer and a token (escaping `~` and `/` as RFC 6901 says).
pub fn ptr_join(base: &str, token: &str) -> String {
    let mut s = String::with_capacity(base.len() + token.len() + 1);
    s.push_str(base);
    s.push('/');
    for c in token.chars() {
        match c {
            '~' => s.push_str("~0"),
            '/' => s.push_str("~1"),
            c => s.push(c),
        }
    }
    s
}

/// Joins a pointer and an array index.
pub fn ptr_idx(base: &str, i: usize) -> String {
    format!("{base}/{i}")
}

// ---------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------

/// How a transcript's loader reads one entry's message again, with every
/// text ([`Transcript::full_message`]): its format and its reader.
#[derive(Debug, Clone, Copy)]
pub struct MessageReader {
    /// The transcript's format.
    pub format: FormatId,
    /// Reads `(format, transcript, entry)`'s message from the entry's line.
    pub read: fn(FormatId, &Transcript, &Entry) -> Option<Message>,
}

/// A session transcript: entries in write order.
#[derive(Debug, Default)]
pub struct Transcript {
    /// Session header (pi line 1; Codex `session_meta`).
    pub header: Option<Header>,
    /// Entries in write order (the header is not an entry). Malformed lines are not entries.
    pub entries: Vec<Entry>,
    /// Whether entries carry ids (false for pi v1: linear by position).
    pub has_ids: bool,
    /// Total number of lines read (including blank and malformed ones).
    pub lines: u32,
    /// Codex/Claude Code system prompt text at the session level
    /// (`session_meta.base_instructions`), as a message in context of every step.
    pub base_instructions: Option<Message>,
    /// Line of `base_instructions` (the session_meta line).
    pub base_instructions_line: u32,
    /// The parsed lines that are not entries (headers, unknown records), in
    /// order; with the entries they make [`Transcript::raw_lines`].
    pub other_lines: Vec<RawLine>,
    /// Entries whose line is re-written by design (see [`RawLine::exempt`]), ascending.
    pub exempt_entries: Vec<u32>,
    /// Entries whose id repeats an earlier entry's id.
    pub id_repeats: Vec<IdRepeat>,
    /// The parent ids that name no entry ([`Parent::Dangling`] indexes here).
    pub dangling_ids: Vec<Box<str>>,
    /// Where the lines were read from (to read a line again:
    /// [`Transcript::raw_line`], [`Transcript::full_message`]).
    pub source: Option<crate::source::SourceRef>,
    /// How an entry's message is read again with every text (set by the
    /// loader, [`crate::formats::load`]; `None`: it cannot be).
    pub reader: Option<MessageReader>,
    /// The entries' messages, packed.
    pub messages: MessageArena,
    /// Which texts the loader kept ([`crate::formats::load`] records it): with
    /// [`crate::model::packed::Texts::AsLoaded`], reading a line again gives nothing more.
    pub texts: crate::model::packed::Texts,
    /// Input tokens the provider reported per model call, by entry index
    /// (empty when the transcript records none; see [`Transcript::set_usage`]).
    pub usage: Vec<Option<Usage>>,
    /// The model named beside the usage, by entry index, where the entry's
    /// message does not name it (a Codex `turn_context` `model`); empty otherwise.
    pub usage_models: Vec<Option<Arc<str>>>,
    /// The per-turn settings a runtime records (Codex `turn_context`), in
    /// write order; empty for other formats.
    pub turn_settings: Vec<TurnSettings>,
}

/// One turn's settings as a Codex `turn_context` record gives them, each as
/// a hash of its JSON value (`None`: not recorded), to tell whether a setting
/// changed from the turn before (openai/codex `codex-rs/protocol`
/// `TurnContextItem`: `model`, `approval_policy`, `sandbox_policy`,
/// `collaboration_mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnSettings {
    /// The `turn_context` record's entry index.
    pub entry: u32,
    /// `model`.
    pub model: Option<u64>,
    /// `approval_policy` and `sandbox_policy` together.
    pub permissions: Option<u64>,
    /// `collaboration_mode` (its mode and settings: model, reasoning effort,
    /// developer instructions).
    pub collaboration_mode: Option<u64>,
}

/// The tokens of one model call as the provider reported them: what was
/// read from the prompt cache, written to it, sent uncached, and generated.
/// `input` never counts the cached tokens (`input + cache_read + cache_write`
/// is the whole prompt), whatever the provider's own convention; each loader
/// converts (see [`crate::formats::usage`] for the shapes and their sources).
/// Read from pi-ai's `usage` (`input`, `output`, `cacheRead`, `cacheWrite`;
/// pi-mono `packages/ai/src/types.ts`), the Anthropic Messages `usage` that
/// Claude Code records (`input_tokens`, `output_tokens`,
/// `cache_read_input_tokens`, `cache_creation_input_tokens`, and
/// `cache_creation.ephemeral_1h_input_tokens`), and the others listed there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens not read from the cache nor written to it.
    pub input: u32,
    /// Input tokens read from the prompt cache.
    pub cache_read: u32,
    /// Input tokens written to the prompt cache.
    pub cache_write: u32,
    /// Of `cache_write`, the tokens written with a one-hour lifetime
    /// (Anthropic `cache_creation.ephemeral_1h_input_tokens`; 0 when not said).
    pub cache_write_1h: u32,
    /// Output tokens (reasoning tokens included where the provider counts them apart).
    pub output: u32,
}

impl Usage {
    /// The whole prompt: `input + cache_read + cache_write` tokens.
    pub fn prompt(&self) -> u64 {
        self.input as u64 + self.cache_read as u64 + self.cache_write as u64
    }
    /// Whether nothing was recorded (every count zero).
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}

impl Transcript {
    /// The raw bytes of an entry's line, read again from its file (at its
    /// byte offset; from the start for compressed files) and verified by
    /// length and hash; `None` when the file is gone or the line changed.
    pub fn raw_line(&self, e: &Entry) -> Option<Vec<u8>> {
        let src = self.source.as_ref()?;
        // The line's length is known: read exactly it (no 64 KiB buffer per line).
        if let Some(b) = src.bytes_at(e.offset, e.len as usize) {
            if crate::hash::hash_bytes(&b) == e.raw_hash {
                return Some(b);
            }
        }
        let bytes = match src.lines_at(&[e.offset]) {
            Some(mut v) => v.pop()?,
            // Compressed: no seeking; read up to the line.
            None => {
                let mut lines = src.lines().ok()?;
                loop {
                    let l = lines.next_line().ok()??;
                    if l.no == e.line {
                        break l.bytes.to_vec();
                    }
                }
            }
        };
        (bytes.len() == e.len as usize && crate::hash::hash_bytes(&bytes) == e.raw_hash).then_some(bytes)
    }

    /// `e`'s message with every text as its loader gives it (a transcript
    /// checked keeps only short texts of some messages, see
    /// [`crate::model::packed::Texts`]): its line is read again and loaded on
    /// its own. `None` when the line cannot be read or is no longer the line
    /// that was checked (the file changed since), or carries no message.
    pub fn full_message(&self, e: &Entry) -> Option<Message> {
        let r = self.reader?;
        (r.read)(r.format, self, e)
    }

    /// Appends `e`, with its message packed as `packed` (see [`crate::model::packed::pack`]).
    pub fn push(&mut self, mut e: Entry, packed: Option<&[u8]>) {
        if let Some(bytes) = packed {
            let r = self.messages.push(bytes);
            e.set_message_ref(r, bytes);
        }
        self.entries.push(e);
    }
    /// Records the usage of entry `entry` (a model call).
    pub fn set_usage(&mut self, entry: u32, u: Usage) {
        let i = entry as usize;
        if self.usage.len() <= i {
            if self.usage.capacity() <= i {
                // Room for the entries the loader expects (it reserves them
                // from the input's size), not the next power of two: grown
                // by doubling, the table of a 300 MB session took 12 MB.
                let want = (i + 1).max(self.entries.capacity()).max(2 * self.usage.len());
                self.usage.reserve_exact(want - self.usage.len());
            }
            self.usage.resize(i + 1, None);
        }
        self.usage[i] = Some(u);
    }
    /// Records the model that answered entry `entry`, where its message does not say.
    pub fn set_usage_model(&mut self, entry: u32, model: Arc<str>) {
        let i = entry as usize;
        if self.usage_models.len() <= i {
            self.usage_models.resize(i + 1, None);
        }
        self.usage_models[i] = Some(model);
    }
    /// Records a parsed line that is not an entry (call in line order).
    pub fn push_other_line(&mut self, line: u32, hash: u64, exempt: bool) {
        self.other_lines.push(RawLine { line, hash, exempt });
    }
    /// Marks the last entry's line as re-written by design.
    pub fn mark_last_exempt(&mut self) {
        if let Some(i) = self.entries.len().checked_sub(1) {
            self.exempt_entries.push(i as u32);
        }
    }
    /// Every parsed line's identity (entries and other lines), in line order:
    /// for lines written again byte for byte.
    pub fn raw_lines(&self) -> impl Iterator<Item = RawLine> + '_ {
        let mut exempt = self.exempt_entries.iter().peekable();
        let mut entries = self.entries.iter().enumerate().map(move |(i, e)| {
            let ex = exempt.next_if(|&&x| x == i as u32).is_some();
            RawLine { line: e.line, hash: e.raw_hash, exempt: ex }
        });
        let mut others = self.other_lines.iter().copied();
        let (mut a, mut b) = (entries.next(), others.next());
        std::iter::from_fn(move || match (a, b) {
            (Some(x), Some(y)) if y.line < x.line => {
                b = others.next();
                Some(y)
            }
            (Some(x), _) => {
                a = entries.next();
                Some(x)
            }
            (None, Some(y)) => {
                b = others.next();
                Some(y)
            }
            (None, None) => None,
        })
    }
    /// The message entry `e` carries, unpacked.
    pub fn message(&self, e: &Entry) -> Option<Message> {
        self.packed(e).map(|p| p.unpack())
    }
    /// The message entry `e` carries, packed (read without copying).
    pub fn packed(&self, e: &Entry) -> Option<PackedMessage<'_>> {
        e.has_message().then(|| self.messages.get(e.msg))
    }
}

/// A parsed line's identity, for detecting lines written again byte for byte.
#[derive(Debug, Clone, Copy)]
pub struct RawLine {
    /// 1-based line.
    pub line: u32,
    /// Hash of the line's bytes.
    pub hash: u64,
    /// Re-written by design (Claude Code uuid-less state snapshots): never a repeat.
    pub exempt: bool,
}

/// An entry whose id repeats an earlier entry's id.
#[derive(Debug, Clone, Copy)]
pub struct IdRepeat {
    /// The later entry.
    pub entry: u32,
    /// The first entry with that id.
    pub first: u32,
    /// Same JSON content (key order and whitespace aside); `None` when not compared.
    pub same_content: Option<bool>,
}

/// The session header.
#[derive(Debug, Clone)]
pub struct Header {
    /// 1-based line.
    pub line: u32,
    /// Format version (pi: 1 when absent).
    pub version: u32,
    /// Session id.
    pub session_id: Option<Box<str>>,
    /// A pi session header whose `cwd` lies in an OpenClaw workspace or
    /// install (`~/.openclaw/workspace…`, `…/openclaw`): the session file is
    /// OpenClaw's, which repairs tool-call pairing before every request.
    pub openclaw: bool,
}

/// How an entry hangs in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    /// `parentId: null` (or absent where the format allows): a root.
    Root,
    /// The entry at this index in [`Transcript::entries`].
    Entry(u32),
    /// A parent id that names no entry of the file: its index in
    /// [`Transcript::dangling_ids`].
    Dangling(u32),
    /// Not part of the tree at all (Claude Code uuid-less state snapshots,
    /// summary records): never a root, never a parent.
    Detached,
}

/// What an entry is for context rebuilding (docs/spec.md §1 *bookkeeping*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Part of the conversation: carries a message sent to the model (or a summary).
    Conversation,
    /// Part of the conversation, but never sent (pi `custom`, excluded bash executions).
    Hidden,
    /// Bookkeeping: state snapshots, progress, metadata. Never conversation.
    Bookkeeping,
    /// A compaction boundary (pi `compaction`, Claude Code `compact_boundary`, Codex `compacted`).
    Compaction,
}

/// Seconds since the Unix epoch of an RFC 3339 timestamp (`2026-03-08T13:03:00.000Z`),
/// as pi, OpenClaw, Claude Code and Codex write them; 0 when it does not parse
/// or lies outside 1970–2106.
pub fn parse_time(s: &str) -> u32 {
    let s = s.trim();
    // Fast path for the shape every runtime writes (`YYYY-MM-DDTHH:MM:SS[.fff]Z`);
    // anything else goes through chrono's RFC 3339 parser.
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b.get(r.clone())?.iter().try_fold(0u32, |n, c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    let utc = b.last() == Some(&b'Z')
        && b.len() >= 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':';
    if utc && (b.len() == 20 || (b[19] == b'.' && b[20..b.len() - 1].iter().all(u8::is_ascii_digit))) {
        let t = (|| {
            let d = chrono::NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
            Some(d.and_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)?.and_utc().timestamp())
        })();
        return t.and_then(|t| u32::try_from(t).ok()).unwrap_or(0);
    }
    chrono::DateTime::parse_from_rfc3339(s).ok().and_then(|t| u32::try_from(t.timestamp()).ok()).unwrap_or(0)
}

/// A compaction: what survives it.
#[derive(Debug, Clone)]
pub struct Compaction {
    /// First kept entry (pi `firstKeptEntryId` / `firstKeptEntryIndex`), if any and resolvable.
    pub first_kept: Option<u32>,
    /// Whether the boundary starts a new chain by design (Claude Code `compact_boundary`
    /// with `parentUuid: null`; Codex `compacted`).
    pub new_root: bool,
}

/// Entry types the loaders know, stored as a one-byte index (pi
/// `session.ts` entry types; Claude Code record types; Codex rollout item types).
const ENTRY_TYPES: &[&str] = &[
    "message",
    "custom_message",
    "custom",
    "compaction",
    "branch_summary",
    "label",
    "session_info",
    "model_change",
    "thinking_level_change",
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "file-history-snapshot",
    "permission-mode",
    "last-prompt",
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "state",
];

/// One transcript entry (one JSONL line that parsed).
///
/// Kept small (72 bytes; its message is packed, see [`crate::model::packed`]): a long
/// session has hundreds of thousands of entries and all of them are held for
/// the whole check. Fields few entries have live in one boxed `EntryExtra`.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line.
    pub line: u32,
    /// Length of the line in bytes (without the newline).
    pub len: u32,
    /// Byte offset of the line start.
    pub offset: u64,
    /// Entry id (`id` / `uuid`), if any.
    pub id: Option<Box<str>>,
    /// Where its message (if any) is in [`Transcript::messages`] (read it
    /// with [`Transcript::message`]; [`MsgRef::NONE`]: no message).
    pub msg: MsgRef,
    /// Hash of the raw line bytes.
    pub raw_hash: u64,
    /// Where it hangs.
    pub parent: Parent,
    /// Conversation or bookkeeping.
    pub class: Class,
    /// Claude Code sidechain record.
    pub sidechain: bool,
    /// The entry is a model call (a step): an assistant message that is model output.
    pub is_model_call: bool,
    /// When it was written: seconds since the Unix epoch from the entry's
    /// `timestamp` (RFC 3339), 0 when absent or unreadable.
    pub time: u32,
    /// Index into the known entry types plus one; 0: the type is in `extra`.
    etype: u8,
    /// The message's role, kind and assistant facts ([`PackedMessage::head`]).
    head: [u8; 4],
    /// What few entries have.
    extra: Option<Box<EntryExtra>>,
}

/// The fields of an [`Entry`] that few entries have.
#[derive(Debug, Clone, Default)]
struct EntryExtra {
    /// An entry type the loaders do not know, as written.
    etype: Option<Box<str>>,
    /// Compaction details (class `Compaction`).
    compaction: Option<Compaction>,
    /// `message.id` shared by the entries of one split model call.
    call_group: Option<Box<str>>,
    /// A root by design that starts a fork at the root (Claude Code: a prompt
    /// written anew in place of the first one after a rewind).
    root_fork: bool,
    /// A record of a command the person ran in the runtime itself (Claude
    /// Code: a `system` record with `subtype: "local_command"`).
    local_command: bool,
}

impl Entry {
    /// A bookkeeping entry for `line` with type `etype` and the hash of the
    /// line's bytes; the loader fills in the rest (id, class, message, …).
    pub fn at(line: &crate::source::Line<'_>, etype: &str, raw_hash: u64) -> Entry {
        let known = ENTRY_TYPES.iter().position(|k| *k == etype);
        Entry {
            line: line.no,
            len: line.bytes.len().min(u32::MAX as usize) as u32,
            offset: line.offset,
            id: None,
            msg: MsgRef::NONE,
            raw_hash,
            parent: Parent::Root,
            class: Class::Bookkeeping,
            sidechain: false,
            is_model_call: false,
            time: 0,
            etype: known.map_or(0, |i| i as u8 + 1),
            head: [0; 4],
            extra: match known {
                Some(_) => None,
                None => Some(Box::new(EntryExtra { etype: Some(etype.into()), ..Default::default() })),
            },
        }
    }
    fn extra_mut(&mut self) -> &mut EntryExtra {
        self.extra.get_or_insert_with(Box::default)
    }
    /// Entry type as written (`message`, `custom`, `user`, `response_item`, …).
    pub fn etype(&self) -> &str {
        match self.etype {
            0 => self.extra.as_ref().and_then(|x| x.etype.as_deref()).unwrap_or(""),
            i => ENTRY_TYPES.get(usize::from(i) - 1).copied().unwrap_or(""),
        }
    }
    /// Compaction details (class `Compaction`).
    pub fn compaction(&self) -> Option<&Compaction> {
        self.extra.as_ref().and_then(|x| x.compaction.as_ref())
    }
    /// Compaction details, to amend.
    pub fn compaction_mut(&mut self) -> Option<&mut Compaction> {
        self.extra.as_mut().and_then(|x| x.compaction.as_mut())
    }
    /// Sets (or, with `None`, removes) the compaction details.
    pub fn set_compaction(&mut self, c: Option<Compaction>) {
        if c.is_some() || self.extra.is_some() {
            self.extra_mut().compaction = c;
        }
    }
    /// Claude Code / Codex: `message.id` (or response) shared by the entries of one split model call.
    pub fn call_group(&self) -> Option<&str> {
        self.extra.as_ref().and_then(|x| x.call_group.as_deref())
    }
    /// Sets the call group.
    pub fn set_call_group(&mut self, g: Option<Box<str>>) {
        if g.is_some() || self.extra.is_some() {
            self.extra_mut().call_group = g;
        }
    }
    /// A root by design: a fork at the root, not a second root
    /// (`broken-parent-chain`), e.g. Claude Code's rewind to the first prompt.
    pub fn root_fork(&self) -> bool {
        self.extra.as_ref().is_some_and(|x| x.root_fork)
    }
    /// Marks the entry a fork at the root.
    pub fn set_root_fork(&mut self) {
        self.extra_mut().root_fork = true;
    }
    /// A record of a command the person ran in the runtime itself (Claude
    /// Code's `system` records with `subtype: "local_command"`: the command
    /// and its output); bookkeeping.
    pub fn local_command(&self) -> bool {
        self.extra.as_ref().is_some_and(|x| x.local_command)
    }
    /// Marks the entry a local command's record.
    pub fn set_local_command(&mut self) {
        self.extra_mut().local_command = true;
    }
    /// Records that its message (packed as `bytes`) is at `r`.
    pub fn set_message_ref(&mut self, r: MsgRef, bytes: &[u8]) {
        self.msg = r;
        self.head = PackedMessage::head(bytes);
    }
    /// Drops its message.
    pub fn clear_message(&mut self) {
        self.msg = MsgRef::NONE;
        self.head = [0; 4];
    }
    /// Whether the entry carries a message.
    pub fn has_message(&self) -> bool {
        self.msg != MsgRef::NONE
    }
    /// The message kind, if the entry carries a message.
    pub fn kind(&self) -> Option<MessageKind> {
        self.has_message().then(|| PackedMessage::kind_of(self.head))
    }
    /// The message's assistant facts without the model name (assistant messages only).
    pub fn assistant_facts(&self) -> Option<AssistantInfo> {
        self.has_message().then(|| PackedMessage::assistant_of(self.head)).flatten()
    }
    /// Whether the entry is a user turn (docs/spec.md §1).
    pub fn is_user_turn(&self) -> bool {
        self.class == Class::Conversation && self.kind() == Some(MessageKind::UserTurn)
    }
}

// ---------------------------------------------------------------------------
// Streams of requests
// ---------------------------------------------------------------------------

/// An ordered list of requests (one run).
#[derive(Debug, Default)]
pub struct Stream {
    /// Requests in order.
    pub requests: Vec<Request>,
}

/// A per-request slot kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlotKind {
    /// Anthropic top-level `system`, Bedrock `system`.
    System,
    /// OpenAI Responses `instructions`, pydantic-ai `instructions`.
    Instructions,
    /// Gemini `systemInstruction`.
    SystemInstruction,
}

impl SlotKind {
    /// Field name.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotKind::System => "system",
            SlotKind::Instructions => "instructions",
            SlotKind::SystemInstruction => "systemInstruction",
        }
    }
}

/// A per-request system-prompt slot.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Which slot.
    pub kind: SlotKind,
    /// Pointer of the slot.
    pub pointer: String,
    /// Its text parts (one per system block; a string slot is one part).
    pub parts: Vec<Block>,
}

/// The document text of a request-body file ([`Request::raw`]): the text
/// read (a small file), or the input to read it again from, once, when it is
/// first asked for (a large file read as it streamed, whose text is not held
/// beside its request). Read again, a file that changed since is read as it
/// is now (the text is only shown, never checked).
#[derive(Debug)]
pub struct RawDocument {
    text: std::sync::OnceLock<Option<String>>,
    source: Option<crate::source::SourceRef>,
}

impl RawDocument {
    /// The text as read (valid UTF-8 becomes it without a copy; other bytes
    /// are read lossily).
    pub fn kept(bytes: Vec<u8>) -> Self {
        let text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        RawDocument { text: std::sync::OnceLock::from(Some(text)), source: None }
    }

    /// The text of `source`, read when first asked for.
    pub fn read_again(source: crate::source::SourceRef) -> Self {
        RawDocument { text: std::sync::OnceLock::new(), source: Some(source) }
    }

    /// The document text; `None` when it cannot be read again.
    pub fn text(&self) -> Option<&str> {
        self.text
            .get_or_init(|| {
                let bytes = self.source.as_ref()?.read_all().ok()?;
                Some(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
            })
            .as_deref()
    }
}

/// Where the elements of a request body's message list are in its file
/// ([`Request::elements`]), to read one again
/// ([`crate::formats::load::element_again`]).
#[derive(Debug)]
pub struct ElementSpans {
    /// The input (uncompressed), read again by offset.
    pub source: crate::source::SourceRef,
    /// JSON Pointer of the list (`/messages`); element *i* is at `{list}/{i}`.
    pub list: String,
    /// Index in [`Request::messages`] of the list's element 0.
    pub first: usize,
    /// Byte offset in the input and length in bytes of each element, in order.
    pub spans: Vec<(u64, u64)>,
}

/// One recorded request (or history snapshot).
#[derive(Debug, Clone)]
pub struct Request {
    /// File the request came from (as given).
    pub path: Arc<str>,
    /// Format id of the body (`openai-chat`, …), even inside a cassette or log.
    pub body_format: FormatId,
    /// 0-based index in the stream (for cassettes/logs: the interaction/line index, counting skipped ones).
    pub index: usize,
    /// Pointer of the body in its file (`""` for a body file; `/interactions/3/request/parsed_body`).
    pub pointer: String,
    /// 1-based line of the body (JSONL exchange logs), else None.
    pub line: Option<u32>,
    /// The endpoint (URL path) the request was sent to, when recorded.
    pub endpoint: Option<Box<str>>,
    /// Per-request system slots.
    pub slots: Vec<Slot>,
    /// Pointer of `tools` and its canonical hash, if any.
    pub tools: Option<(String, u64, String)>,
    /// Messages in order, including system/developer messages and system-prompt parts.
    /// Shared: a message a stream's requests send again (their history) is held once
    /// ([`Interner`]), so a stream takes memory for what it sends that is new, not for
    /// every request's whole history.
    pub messages: Vec<Arc<Message>>,
    /// `previous_response_id`, if any.
    pub previous_response_id: Option<Box<str>>,
    /// Conversation id (pydantic-ai `conversation_id`, Responses `conversation`).
    pub conversation_id: Option<Box<str>>,
    /// Client session id, when the request carries one: Claude Code's
    /// `metadata.user_id` (a JSON string holding `session_id`, or the older
    /// `user_<hash>_account_<uuid>_session_<uuid>` form; see
    /// [`crate::formats::anthropic::claude_code_session_id`]), or an exchange
    /// log's `x-claude-code-session-id` / `session_id` request header. Two
    /// requests with different session ids are different conversations (docs/spec.md
    /// §1); unlike [`Request::conversation_id`] an equal one says nothing of a
    /// server-held prefix.
    pub session_id: Option<Box<str>>,
    /// Ids of the response to this request, if recorded (to chain `previous_response_id`).
    pub response_id: Option<Box<str>>,
    /// What the recorded response answered (its tool call ids and texts),
    /// to tell whether a later request carries it; `None` when no response
    /// is recorded or it names nothing to match.
    pub reply: Option<Box<Reply>>,
    /// The raw document text of a request-body file, for `diff` to show an
    /// element's JSON: kept as read, or read again from its input the first
    /// time it is asked for ([`RawDocument`]).
    pub raw: Option<Arc<RawDocument>>,
    /// How the model call this request opened ended, when the recording says
    /// (an OpenClaw trajectory's `model.completed` record); `None` when not recorded.
    pub outcome: Option<Outcome>,
    /// Elements this request sends that the next request of its conversation
    /// sends again at another place: (pointer relative to [`Request::pointer`]
    /// here, pointer relative to the next request's body there). An OpenClaw
    /// trajectory's `prompt` (`/prompt`) is stored by the session and re-sent
    /// among the next request's messages (`/messages/4/content/0`): the same
    /// copy, which the duplicate rules report once.
    pub aliases: Vec<(String, String)>,
    /// Context the runtime places after the history on every request, by
    /// design (set by a loader that knows the runtime; empty otherwise).
    pub floating: Floating,
    /// A history snapshot that holds its own beginning again after itself
    /// (the whole history saved again instead of appended): (pointer of the
    /// first repeated element, pointer of the element it repeats, how many
    /// elements repeat). The repeated elements are not in `messages`.
    pub resaved: Option<(String, String, usize)>,
    /// How the recording names this request, for finding messages (an
    /// OpenTelemetry span: "span `chat gpt-4o` (trace `…`, span `…`)"); `None`
    /// when the index and pointer say enough.
    pub label: Option<Box<str>>,
    /// Where items of this history could not be read (an Agents SDK row whose
    /// `message_data` is not a JSON object, a damaged page): for each, the
    /// index in `messages` of the first message read after it (`messages.len()`
    /// when nothing was read after it). A tool call before a gap may have its
    /// result in it, a result after one its call: neither is judged (the
    /// unread item is reported, not the cascade).
    pub gaps: Vec<u32>,
    /// The tokens the provider reported for this call, when the recording
    /// holds its response (a cassette's or log's response body, an OpenClaw
    /// trajectory's `model.completed`); `None` when not recorded.
    pub usage: Option<Usage>,
    /// `usage` sums every model call of the run this request opened, not
    /// this request's alone (an OpenClaw trajectory's `model.completed`
    /// closes a whole agent loop): totals read it, judgments of one call do not.
    pub usage_is_run_total: bool,
    /// The model that answered (the response's `model`, else the request's), when recorded.
    pub model: Option<Box<str>>,
    /// When the request was sent: seconds since the Unix epoch, 0 when not recorded.
    pub time: u32,
    /// Whether the pointers this request's elements hold (its messages' and
    /// blocks', its slots' parts', its slots', `tools`' and `resaved`'s) are
    /// relative to [`Request::pointer`] (`/messages/3`) rather than JSON
    /// Pointers in the file. Set by the loaders of documents that hold many
    /// requests at pointers of their own (an HTTP Archive's
    /// `/log/entries/{i}/request/postData/text`), so that a message re-sent
    /// by the next request is the same message and is held once
    /// ([`Interner::request`]). Read element pointers through
    /// [`Request::at`] (for output) and [`Request::rel`] (to compare across
    /// requests).
    pub relative: bool,
    /// Where each element of the body's message list is in the file, when
    /// some of their texts are kept only as their first bytes (a large body
    /// loaded with [`crate::model::packed::Texts::Prefixes`]: a block whose
    /// `text` is shorter than its `text_len`); `None` otherwise.
    pub elements: Option<Arc<ElementSpans>>,
}

impl Request {
    /// The JSON Pointer in the file of `p`, a pointer one of this request's
    /// elements holds ([`Request::relative`]).
    pub fn at(&self, p: &str) -> String {
        if self.relative { format!("{}{p}", self.pointer) } else { p.to_string() }
    }

    /// `p`, a pointer one of this request's elements holds, relative to the
    /// request's body ([`Request::pointer`]): the same element in two
    /// requests of a stream has the same one.
    pub fn rel<'a>(&self, p: &'a str) -> &'a str {
        if self.relative { p } else { p.strip_prefix(self.pointer.as_str()).unwrap_or(p) }
    }

    /// `p`, a JSON Pointer in the file into this request's body, as this
    /// request's elements hold it ([`Request::relative`]), to compare with
    /// them.
    pub fn held<'a>(&self, p: &'a str) -> &'a str {
        if self.relative { p.strip_prefix(self.pointer.as_str()).unwrap_or(p) } else { p }
    }
}

/// Context a runtime re-places after the history, or builds afresh, on
/// every request ([`Request::floating`]): it moves down as the history grows
/// or is made again from the current state, so its old place or old text is
/// no history rewrite (`history-rewrite`), and a reminder repeated from the
/// system prompt there is deliberate (`duplicate-context-block`). Aider is
/// the case (`Coder.format_chat_chunks` and `ChatChunks.all_messages`,
/// Aider-AI/aider `aider/coders/base_coder.py`, `chat_chunks.py`): the chat
/// files and their canned reply come after the done messages, the repo map
/// and read-only files (and their replies) before them are made again for
/// each request, the few-shot examples after the system prompt are the same
/// fixed text in every request (prompt, not history), and the
/// `system_reminder` ends every request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Floating {
    /// Indices into [`Request::messages`] of floating messages (Aider's
    /// few-shot examples; its chat-files, repo-map and read-only-files
    /// messages and their replies; the reminder sent as a last system
    /// message).
    pub messages: Vec<usize>,
    /// A reminder appended to the text of the last message (Aider's
    /// `reminder: user` models): that message's index, the byte length of
    /// the appended text (separator included) at the end of its last text
    /// block, and the message's history key without it (its
    /// [`Message::json_hash`] as if it had been sent without the reminder).
    pub appended: Option<(usize, usize, u64)>,
}

impl Floating {
    /// Whether message `i` floats.
    pub fn is_floating(&self, i: usize) -> bool {
        self.messages.contains(&i)
    }
}

/// What a recorded response answered, reduced to what a later request can
/// be matched on ([`Request::reply`], read by [`crate::formats::reply`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The tool call ids it made.
    pub tool_ids: Vec<Box<str>>,
    /// [`crate::hash::hash_str`] of each of its texts (whole texts only).
    pub texts: Vec<u64>,
    /// [`crate::hash::hash_str`] of each trimmed line of 8 bytes or more of
    /// its texts: text the model wrote, when a later request gives it back
    /// (`duplicate-context-block`'s model-written text).
    pub lines: Vec<u64>,
}

impl Reply {
    /// Sorted and without repeats (what [`Reply::carried_by`] searches), and
    /// `Some` when it names anything to match.
    pub fn known(mut self) -> Option<Box<Reply>> {
        self.sort();
        (!self.tool_ids.is_empty() || !self.texts.is_empty()).then(|| Box::new(self))
    }

    /// Sorts each list and drops repeats (a streamed response names a call
    /// id in several events).
    pub fn sort(&mut self) {
        self.tool_ids.sort_unstable();
        self.tool_ids.dedup();
        self.texts.sort_unstable();
        self.texts.dedup();
        self.lines.sort_unstable();
        self.lines.dedup();
    }

    /// Whether `r` sends any of it again: a tool call with one of its ids, or
    /// an assistant text block with one of its texts. Lists sorted
    /// ([`Reply::known`]).
    pub fn carried_by(&self, r: &Request) -> bool {
        r.messages.iter().filter(|m| m.role == Role::Assistant).flat_map(|m| m.blocks.iter()).any(|b| {
            b.tool_id.as_deref().is_some_and(|id| self.tool_ids.binary_search_by(|x| (**x).cmp(id)).is_ok())
                || (b.kind == BlockKind::Text && self.texts.binary_search(&b.text_hash).is_ok())
        })
    }
}

/// How a recorded model call ended ([`Request::outcome`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Completed (neither aborted, timed out nor refused).
    Completed,
    /// Aborted (by the user, the runtime or an external abort).
    Aborted,
    /// Timed out (the whole call, while idle, during compaction or tool execution, or over the run budget).
    TimedOut,
    /// The provider or the runtime refused the prompt (OpenClaw `promptError`):
    /// what the runtime sends next is its recovery, not a continuation to compare.
    PromptError,
    /// A recorded exchange whose response has an HTTP error status, or none
    /// (a cassette, HAR or exchange log: a failed attempt, docs/spec.md §1). Unlike
    /// [`Outcome::PromptError`] the next request is still compared with it.
    Failed,
}

impl Outcome {
    /// Stable name (`completed`, `aborted`, `timed out`, `prompt error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Aborted => "aborted",
            Outcome::TimedOut => "timed out",
            Outcome::PromptError => "prompt error",
            Outcome::Failed => "failed",
        }
    }
}

#[cfg(test)]
mod time_tests {
    use super::parse_time;

    #[test]
    fn timestamps_parse_on_the_fast_path_and_through_chrono() {
        assert_eq!(parse_time("2026-03-12T02:49:27.194Z"), 1773283767);
        assert_eq!(parse_time("2026-03-12T02:49:27Z"), 1773283767);
        assert_eq!(parse_time("2026-03-12T11:49:27.194+09:00"), 1773283767);
        assert_eq!(parse_time(" 2026-03-12T02:49:27.194Z "), 1773283767);
        for bad in
            ["", "t", "[trimmed for fixture]", "2026-13-12T02:49:27Z", "2026-03-12T25:49:27Z", "1969-12-31T23:59:59Z"]
        {
            assert_eq!(parse_time(bad), 0, "{bad}");
        }
    }
}
