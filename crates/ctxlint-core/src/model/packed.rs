//! Transcript messages stored packed: one byte string per message instead of
//! a [`Message`] with its vector of [`Block`]s.
//!
//! A loaded transcript keeps one message per entry for the whole check, and
//! for the sessions ctxlint is pointed at (hundreds of thousands of entries)
//! the struct layout was most of the memory: a `Message` is 96 bytes, each
//! `Block` 96 more, and every pointer, id and text its own allocation. Packed,
//! a message costs its texts plus a dozen bytes per block (issue 7: peak RSS
//! of `check` under 25 % of the file). The messages of a transcript live one
//! after another in a [`MessageArena`]; rules read one through
//! [`crate::model::Transcript::message`] (unpacked into an owned [`Message`])
//! or [`crate::model::Transcript::packed`] (read in place, no allocation); an
//! entry keeps the role, kind and assistant facts so that most questions never
//! read the arena at all.
//!
//! Layout (integers are unsigned LEB128 varints unless sized; strings are a
//! varint byte length and UTF-8 bytes; hashes are 8 bytes little-endian):
//!
//! ```text
//! message: role u8 | kind u8 | flags u8 | stop u8 | assistant flags u8 | result flags u8
//!          | pointer | [json_hash] | [model] | [dynamic_ref str] | block count | block*
//! model:   varint index into the process's model names plus one, or 0 and a string
//! pointer: a one-byte code of a common pointer (see POINTER_TABLES), or 0 and a string
//! block:   kind u8 | flags u8 | pointer | text_len | text_hash | text | [json_hash]
//!          | [tool_id str] | [tool_name str]
//!          (text: its bytes when it is the full text, i.e. text_len bytes; else a str,
//!          empty when the text was dropped)
//! arena:   per message, varint byte length | message bytes
//! ```

use crate::model::{AssistantInfo, Block, BlockKind, Message, MessageKind, Ptr, ResultInfo, Role, Stop};
use std::borrow::Cow;

/// Pointers the loaders write for most messages and blocks, stored as one
/// byte: the position in these tables, taken one after another, plus one.
const POINTER_TABLES: [&[&str]; 5] =
    [&FIXED_POINTERS, &MESSAGE_CONTENT, &CONTENT, &PAYLOAD_CONTENT, &ATTACHMENT_CONTENT];

const FIXED_POINTERS: [&str; 9] = [
    "",
    "/message",
    "/content",
    "/summary",
    "/message/summary",
    "/attachment",
    "/payload",
    "/message/content",
    "/payload/content",
];

/// `/message/content/N` for N < 16 (pi and Claude Code content blocks).
pub const MESSAGE_CONTENT: [&str; 16] = [
    "/message/content/0",
    "/message/content/1",
    "/message/content/2",
    "/message/content/3",
    "/message/content/4",
    "/message/content/5",
    "/message/content/6",
    "/message/content/7",
    "/message/content/8",
    "/message/content/9",
    "/message/content/10",
    "/message/content/11",
    "/message/content/12",
    "/message/content/13",
    "/message/content/14",
    "/message/content/15",
];

/// `/content/N` for N < 16 (pi `custom_message` content blocks).
pub const CONTENT: [&str; 16] = [
    "/content/0",
    "/content/1",
    "/content/2",
    "/content/3",
    "/content/4",
    "/content/5",
    "/content/6",
    "/content/7",
    "/content/8",
    "/content/9",
    "/content/10",
    "/content/11",
    "/content/12",
    "/content/13",
    "/content/14",
    "/content/15",
];

/// `/payload/content/N` for N < 16 (Codex content items).
const PAYLOAD_CONTENT: [&str; 16] = [
    "/payload/content/0",
    "/payload/content/1",
    "/payload/content/2",
    "/payload/content/3",
    "/payload/content/4",
    "/payload/content/5",
    "/payload/content/6",
    "/payload/content/7",
    "/payload/content/8",
    "/payload/content/9",
    "/payload/content/10",
    "/payload/content/11",
    "/payload/content/12",
    "/payload/content/13",
    "/payload/content/14",
    "/payload/content/15",
];

/// `/attachment/content/N` for N < 16 (Claude Code attachments).
const ATTACHMENT_CONTENT: [&str; 16] = [
    "/attachment/content/0",
    "/attachment/content/1",
    "/attachment/content/2",
    "/attachment/content/3",
    "/attachment/content/4",
    "/attachment/content/5",
    "/attachment/content/6",
    "/attachment/content/7",
    "/attachment/content/8",
    "/attachment/content/9",
    "/attachment/content/10",
    "/attachment/content/11",
    "/attachment/content/12",
    "/attachment/content/13",
    "/attachment/content/14",
    "/attachment/content/15",
];

/// The one-byte code of `p`, if it has one.
fn pointer_code(p: &str) -> Option<u8> {
    let mut base = 0;
    for t in POINTER_TABLES {
        if let Some(i) = t.iter().position(|x| *x == p) {
            return Some((base + i + 1) as u8);
        }
        base += t.len();
    }
    None
}

/// The pointer with one-byte `code`.
fn pointer_of(code: u8) -> Option<&'static str> {
    let mut i = usize::from(code).checked_sub(1)?;
    for t in POINTER_TABLES {
        if i < t.len() {
            return Some(t[i]);
        }
        i -= t.len();
    }
    None
}

/// One packed message (see the module docs), borrowed from a
/// [`MessageArena`] (or from [`pack`]'s output); unpack with [`PackedMessage::unpack`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PackedMessage<'a>(&'a [u8]);

impl std::fmt::Debug for PackedMessage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.unpack().fmt(f)
    }
}

const M_ASSISTANT: u8 = 1;
const M_RESULT: u8 = 2;
const M_DYNAMIC_REF: u8 = 4;
const M_JSON_HASH: u8 = 8;

const B_SEND: u8 = 1;
const B_DRY_RUN: u8 = 2;
const B_TOOL_ID: u8 = 4;
const B_TOOL_NAME: u8 = 8;
const B_JSON_HASH: u8 = 16;
const B_FULL_TEXT: u8 = 32;
const B_DROPPED: u8 = 64;

/// Which texts a packed message keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Texts {
    /// Prompt-side texts (the duplicate rules scan them) and model-side texts
    /// of at most [`SHORT_TEXT`] bytes once trimmed (silent tokens, empty
    /// replies); longer model-side texts only by length and hash. Used by
    /// `check`: excerpts of the few findings that need them are read again
    /// from the file ([`crate::model::Transcript::full_message`]).
    #[default]
    Compact,
    /// Every text as the loader gave it (`show`, reloads).
    AsLoaded,
    /// Every text of a transcript, as [`Texts::AsLoaded`]; of a request body
    /// of 1 MiB or more read as it streams (uncompressed), the long texts of
    /// its assistant and tool messages only as their first bytes
    /// ([`crate::formats::load::ELEMENT_PREFIX`]), with where each element of
    /// its message list is in the file ([`crate::model::Request::elements`]).
    /// Used by `diff`, which compares elements by hash and reads an element
    /// it shows again from the file
    /// ([`crate::formats::load::element_again`]): two 52 MB bodies took
    /// twice their size, most of it texts no output shows.
    Prefixes,
}

/// Model-side texts up to this many bytes (trimmed) are kept by [`Texts::Compact`].
pub const SHORT_TEXT: usize = 32;

const A_TRANSCRIPT_ONLY: u8 = 1;
const A_API_ERROR: u8 = 2;
const A_DELIVERY_MIRROR: u8 = 4;
const A_MODEL: u8 = 8;
const A_REWRITTEN: u8 = 16;

const R_SYNTHETIC: u8 = 1;
const R_DELIVERED: u8 = 2;
const R_ERROR: u8 = 4;

const ROLES: [Role; 5] = [Role::System, Role::Developer, Role::User, Role::Assistant, Role::Tool];
const KINDS: [MessageKind; 11] = [
    MessageKind::SystemPrompt,
    MessageKind::UserTurn,
    MessageKind::ToolResults,
    MessageKind::Assistant,
    MessageKind::ToolResult,
    MessageKind::CompactionSummary,
    MessageKind::BranchSummary,
    MessageKind::Carrier,
    MessageKind::Extension,
    MessageKind::Bash,
    MessageKind::Meta,
];
const BLOCK_KINDS: [BlockKind; 7] = [
    BlockKind::Text,
    BlockKind::Thinking,
    BlockKind::ToolCall,
    BlockKind::ToolResult,
    BlockKind::Media,
    BlockKind::Compaction,
    BlockKind::Other,
];
const STOPS: [Stop; 5] = [Stop::Unknown, Stop::Normal, Stop::ToolUse, Stop::Error, Stop::Aborted];

// The codes below index the tables above; the matches are exhaustive so that
// a new variant cannot be packed without being given a code.

fn role_code(r: Role) -> u8 {
    match r {
        Role::System => 0,
        Role::Developer => 1,
        Role::User => 2,
        Role::Assistant => 3,
        Role::Tool => 4,
    }
}

fn kind_code(k: MessageKind) -> u8 {
    match k {
        MessageKind::SystemPrompt => 0,
        MessageKind::UserTurn => 1,
        MessageKind::ToolResults => 2,
        MessageKind::Assistant => 3,
        MessageKind::ToolResult => 4,
        MessageKind::CompactionSummary => 5,
        MessageKind::BranchSummary => 6,
        MessageKind::Carrier => 7,
        MessageKind::Extension => 8,
        MessageKind::Bash => 9,
        MessageKind::Meta => 10,
    }
}

fn block_kind_code(k: BlockKind) -> u8 {
    match k {
        BlockKind::Text => 0,
        BlockKind::Thinking => 1,
        BlockKind::ToolCall => 2,
        BlockKind::ToolResult => 3,
        BlockKind::Media => 4,
        BlockKind::Compaction => 5,
        BlockKind::Other => 6,
    }
}

fn stop_code(s: Stop) -> u8 {
    match s {
        Stop::Unknown => 0,
        Stop::Normal => 1,
        Stop::ToolUse => 2,
        Stop::Error => 3,
        Stop::Aborted => 4,
    }
}

/// Packs `m`, keeping `texts` (the bytes of one message, see the module docs).
pub fn pack(m: &Message, texts: Texts) -> Box<[u8]> {
    let drop_long = texts == Texts::Compact && !m.kind.is_prompt_side();
    let texts: usize = m.blocks.iter().map(|b| b.text.len() + 24).sum();
    let mut w = Vec::with_capacity(8 + texts);
    let mut flags = 0;
    if m.assistant.is_some() {
        flags |= M_ASSISTANT;
    }
    if m.result.is_some() {
        flags |= M_RESULT;
    }
    if m.dynamic_ref.is_some() {
        flags |= M_DYNAMIC_REF;
    }
    if m.json_hash != 0 {
        flags |= M_JSON_HASH;
    }
    let (mut stop, mut af, mut rf) = (0, 0, 0);
    if let Some(a) = &m.assistant {
        stop = stop_code(a.stop);
        af |= if a.transcript_only { A_TRANSCRIPT_ONLY } else { 0 };
        af |= if a.api_error { A_API_ERROR } else { 0 };
        af |= if a.delivery_mirror { A_DELIVERY_MIRROR } else { 0 };
        af |= if a.rewritten { A_REWRITTEN } else { 0 };
        af |= if a.model.is_some() { A_MODEL } else { 0 };
    }
    if let Some(r) = &m.result {
        rf |= if r.synthetic_or_aborted { R_SYNTHETIC } else { 0 };
        rf |= if r.delivered { R_DELIVERED } else { 0 };
        rf |= if r.is_error { R_ERROR } else { 0 };
    }
    w.extend_from_slice(&[role_code(m.role), kind_code(m.kind), flags, stop, af, rf]);
    put_ptr(&mut w, &m.pointer);
    if m.json_hash != 0 {
        w.extend_from_slice(&m.json_hash.to_le_bytes());
    }
    if let Some(model) = m.assistant.as_ref().and_then(|a| a.model.as_ref()) {
        // A session names a handful of models thousands of times.
        match models::intern(model) {
            Some(i) => put_varint(&mut w, u64::from(i) + 1),
            None => {
                w.push(0);
                put_str(&mut w, model);
            }
        }
    }
    if let Some(d) = &m.dynamic_ref {
        put_str(&mut w, d);
    }
    put_varint(&mut w, m.blocks.len() as u64);
    for b in &m.blocks {
        let dropped = b.text_dropped || (drop_long && b.text.trim().len() > SHORT_TEXT);
        let full = !dropped && b.has_full_text();
        let mut bf = 0;
        bf |= if b.is_send { B_SEND } else { 0 };
        bf |= if b.dry_run { B_DRY_RUN } else { 0 };
        bf |= if b.tool_id.is_some() { B_TOOL_ID } else { 0 };
        bf |= if b.tool_name.is_some() { B_TOOL_NAME } else { 0 };
        bf |= if b.json_hash != 0 { B_JSON_HASH } else { 0 };
        bf |= if full { B_FULL_TEXT } else { 0 };
        bf |= if dropped { B_DROPPED } else { 0 };
        w.extend_from_slice(&[block_kind_code(b.kind), bf]);
        put_ptr(&mut w, &b.pointer);
        put_varint(&mut w, u64::from(b.text_len));
        w.extend_from_slice(&b.text_hash.to_le_bytes());
        if dropped {
            w.push(0);
        } else if full {
            w.extend_from_slice(b.text.as_bytes());
        } else {
            put_str(&mut w, &b.text);
        }
        if b.json_hash != 0 {
            w.extend_from_slice(&b.json_hash.to_le_bytes());
        }
        if let Some(id) = &b.tool_id {
            put_str(&mut w, id);
        }
        if let Some(name) = &b.tool_name {
            put_str(&mut w, name);
        }
    }
    // An exact-size copy: shrinking in place (realloc) may keep the whole capacity.
    Box::from(w.as_slice())
}

impl<'a> PackedMessage<'a> {
    /// The message packed in `bytes` (as [`pack`] wrote them).
    pub fn new(bytes: &'a [u8]) -> Self {
        PackedMessage(bytes)
    }

    /// The message's role (read without unpacking).
    pub fn role(&self) -> Role {
        ROLES.get(usize::from(self.0[0])).copied().unwrap_or(Role::User)
    }

    /// The message's kind (read without unpacking).
    pub fn kind(&self) -> MessageKind {
        KINDS.get(usize::from(self.0[1])).copied().unwrap_or(MessageKind::UserTurn)
    }

    /// The assistant facts without the model name (read without unpacking).
    pub fn assistant_facts(&self) -> Option<AssistantInfo> {
        (self.0[2] & M_ASSISTANT != 0).then(|| {
            let af = self.0[4];
            AssistantInfo {
                stop: STOPS.get(usize::from(self.0[3])).copied().unwrap_or_default(),
                model: None,
                transcript_only: af & A_TRANSCRIPT_ONLY != 0,
                api_error: af & A_API_ERROR != 0,
                delivery_mirror: af & A_DELIVERY_MIRROR != 0,
                rewritten: af & A_REWRITTEN != 0,
            }
        })
    }

    /// The tool-result facts (read without unpacking).
    pub fn result_facts(&self) -> Option<ResultInfo> {
        (self.0[2] & M_RESULT != 0).then(|| {
            let rf = self.0[5];
            ResultInfo {
                synthetic_or_aborted: rf & R_SYNTHETIC != 0,
                delivered: rf & R_DELIVERED != 0,
                is_error: rf & R_ERROR != 0,
            }
        })
    }

    /// The first bytes (role, kind, stop, assistant flags with 0x80 when the
    /// message has assistant facts) that an entry keeps to answer
    /// [`PackedMessage::role`], [`PackedMessage::kind`] and
    /// [`PackedMessage::assistant_facts`] without reading the arena.
    pub fn head(bytes: &[u8]) -> [u8; 4] {
        let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
        let assistant = if b(2) & M_ASSISTANT != 0 { 0x80 } else { 0 };
        [b(0), b(1), b(3), b(4) | assistant]
    }

    /// Role from a [`PackedMessage::head`].
    pub fn role_of(head: [u8; 4]) -> Role {
        ROLES.get(usize::from(head[0])).copied().unwrap_or(Role::User)
    }

    /// Kind from a [`PackedMessage::head`].
    pub fn kind_of(head: [u8; 4]) -> MessageKind {
        KINDS.get(usize::from(head[1])).copied().unwrap_or(MessageKind::UserTurn)
    }

    /// Assistant facts (without the model name) from a [`PackedMessage::head`].
    pub fn assistant_of(head: [u8; 4]) -> Option<AssistantInfo> {
        (head[3] & 0x80 != 0).then(|| AssistantInfo {
            stop: STOPS.get(usize::from(head[2])).copied().unwrap_or_default(),
            model: None,
            transcript_only: head[3] & A_TRANSCRIPT_ONLY != 0,
            api_error: head[3] & A_API_ERROR != 0,
            delivery_mirror: head[3] & A_DELIVERY_MIRROR != 0,
            rewritten: head[3] & A_REWRITTEN != 0,
        })
    }

    /// The message, unpacked.
    pub fn unpack(&self) -> Message {
        let (mut r, head) = self.read_head();
        let n = r.varint() as usize;
        let mut blocks = Vec::with_capacity(n.min(self.0.len()));
        let mut it = Blocks { r, left: n, next: 0 };
        for b in it.by_ref() {
            blocks.push(b.to_block());
        }
        Message {
            role: self.role(),
            kind: self.kind(),
            pointer: head.pointer,
            blocks,
            assistant: self.assistant_facts().map(|mut a| {
                a.model = head.model.map(Into::into);
                Box::new(a)
            }),
            result: self.result_facts().map(Box::new),
            dynamic_ref: head.dynamic_ref.map(Into::into),
            json_hash: head.json_hash,
        }
    }

    /// The model name of an assistant message (read without unpacking the blocks).
    pub fn model(self) -> Option<&'a str> {
        self.read_head().1.model
    }

    /// The blocks, borrowed (no allocation).
    pub fn blocks(self) -> Blocks<'a> {
        let (mut r, _) = self.read_head();
        let left = r.varint() as usize;
        Blocks { r, left, next: 0 }
    }

    fn read_head(self) -> (Reader<'a>, Head<'a>) {
        let mut r = Reader { b: self.0, at: 6 };
        let flags = self.0[2];
        let pointer = r.ptr();
        let json_hash = if flags & M_JSON_HASH != 0 { r.u64() } else { 0 };
        let model = (self.0[4] & A_MODEL != 0 && flags & M_ASSISTANT != 0).then(|| match r.varint() {
            0 => r.str(),
            i => models::name(i as u32 - 1),
        });
        let dynamic_ref = (flags & M_DYNAMIC_REF != 0).then(|| r.str());
        (r, Head { pointer, json_hash, model, dynamic_ref })
    }
}

struct Head<'a> {
    pointer: Ptr,
    json_hash: u64,
    model: Option<&'a str>,
    dynamic_ref: Option<&'a str>,
}

/// One block of a packed message, borrowed: the fields of [`Block`].
#[derive(Debug, Clone, Copy)]
pub struct BlockRef<'a> {
    /// Index of the block in its message.
    pub index: u32,
    /// What it is.
    pub kind: BlockKind,
    /// JSON Pointer of the block.
    pub pointer: &'a str,
    /// Its text as kept, checked as UTF-8 only when read ([`BlockRef::text`]).
    text: &'a [u8],
    /// Length in bytes of the full text.
    pub text_len: u32,
    /// Hash of the full text.
    pub text_hash: u64,
    /// Canonical JSON hash (0 for transcripts).
    pub json_hash: u64,
    /// Tool call id.
    pub tool_id: Option<&'a str>,
    /// Tool name.
    pub tool_name: Option<&'a str>,
    /// A message-tool send.
    pub is_send: bool,
    /// A dry run.
    pub dry_run: bool,
    /// The text was not kept (see [`Block::text_dropped`]).
    pub text_dropped: bool,
    /// `pointer`, when it is one of the common pointers (a one-byte code).
    static_pointer: Option<&'static str>,
}

impl<'a> BlockRef<'a> {
    /// Its text as kept (see [`Block::text`]).
    pub fn text(&self) -> &'a str {
        std::str::from_utf8(self.text).unwrap_or("")
    }
    /// An owned [`Block`].
    pub fn to_block(&self) -> Block {
        Block {
            kind: self.kind,
            pointer: match self.static_pointer {
                Some(p) => Cow::Borrowed(p),
                None => Cow::Owned(self.pointer.to_string()),
            },
            text: self.text().into(),
            text_len: self.text_len,
            text_hash: self.text_hash,
            json_hash: self.json_hash,
            tool_id: self.tool_id.map(Into::into),
            tool_name: self.tool_name.map(Into::into),
            is_send: self.is_send,
            dry_run: self.dry_run,
            text_dropped: self.text_dropped,
        }
    }
}

/// The blocks of a packed message, in order (see [`PackedMessage::blocks`]).
#[derive(Clone)]
pub struct Blocks<'a> {
    r: Reader<'a>,
    left: usize,
    next: u32,
}

impl<'a> Iterator for Blocks<'a> {
    type Item = BlockRef<'a>;
    fn next(&mut self) -> Option<BlockRef<'a>> {
        if self.left == 0 || self.r.at >= self.r.b.len() {
            return None;
        }
        self.left -= 1;
        let r = &mut self.r;
        let kind = BLOCK_KINDS.get(usize::from(r.u8())).copied().unwrap_or(BlockKind::Other);
        let bf = r.u8();
        let (pointer, static_pointer) = r.ptr_str();
        let text_len = r.varint() as u32;
        let text_hash = r.u64();
        let text = if bf & B_FULL_TEXT != 0 { r.bytes_of(text_len as usize) } else { r.bytes() };
        let json_hash = if bf & B_JSON_HASH != 0 { r.u64() } else { 0 };
        let tool_id = (bf & B_TOOL_ID != 0).then(|| r.str());
        let tool_name = (bf & B_TOOL_NAME != 0).then(|| r.str());
        self.next += 1;
        Some(BlockRef {
            index: self.next - 1,
            kind,
            pointer,
            text,
            text_len,
            text_hash,
            json_hash,
            tool_id,
            tool_name,
            is_send: bf & B_SEND != 0,
            dry_run: bf & B_DRY_RUN != 0,
            text_dropped: bf & B_DROPPED != 0,
            static_pointer,
        })
    }
}

/// Where a message lives in a [`MessageArena`]: chunk and byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsgRef {
    chunk: u32,
    at: u32,
}

impl MsgRef {
    /// No message.
    pub const NONE: MsgRef = MsgRef { chunk: u32::MAX, at: u32::MAX };
}

/// Largest arena chunk: chunks are never grown (no copy, no doubled peak).
const CHUNK: usize = 1 << 20;

/// The packed messages of one transcript, one after another in chunks of
/// 4 KiB doubling up to 1 MiB (a larger message gets a chunk of its own). Each is stored once: a
/// message byte-for-byte equal to an earlier prompt-side one (the same
/// runtime-context carrier or system prompt injected at every turn) shares
/// its bytes. Entries hold a [`MsgRef`].
#[derive(Default)]
pub struct MessageArena {
    chunks: Vec<Vec<u8>>,
    /// While loading: hash of a prompt-side message's bytes → where it is.
    seen: foldhash::HashMap<u64, MsgRef>,
}

impl std::fmt::Debug for MessageArena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MessageArena({} chunks, {} bytes)", self.chunks.len(), self.len())
    }
}

impl MessageArena {
    /// Stores the packed `bytes` (from [`pack`]); returns where they are.
    pub fn push(&mut self, bytes: &[u8]) -> MsgRef {
        let shared = PackedMessage(bytes).kind().is_prompt_side();
        let h = if shared { crate::hash::hash_bytes(bytes) } else { 0 };
        if shared {
            if let Some(&r) = self.seen.get(&h) {
                if self.get(r).0 == bytes {
                    return r;
                }
            }
        }
        // (The length prefix on the stack: at most 10 bytes.)
        let (mut len, mut n, mut v) = ([0u8; 10], 0, bytes.len() as u64);
        while v >= 0x80 {
            len[n] = (v as u8) | 0x80;
            v >>= 7;
            n += 1;
        }
        len[n] = v as u8;
        let len = &len[..=n];
        let need = len.len() + bytes.len();
        let fits = self.chunks.last().is_some_and(|c| c.capacity() - c.len() >= need);
        if !fits {
            // Chunks grow from 4 KiB to 1 MiB: a small session does not pay for a whole chunk.
            let next = self.chunks.last().map_or(4 << 10, |c| (c.capacity() * 2).min(CHUNK));
            self.chunks.push(Vec::with_capacity(need.max(next)));
        }
        let chunk = self.chunks.len() - 1;
        let c = &mut self.chunks[chunk];
        let r = MsgRef { chunk: chunk as u32, at: c.len() as u32 };
        c.extend_from_slice(len);
        c.extend_from_slice(bytes);
        if shared {
            self.seen.entry(h).or_insert(r);
        }
        r
    }

    /// Loading is over: forgets what it needed to share messages.
    pub fn seal(&mut self) {
        self.seen = Default::default();
    }

    /// The message at `r` (`NONE` or a reference into another arena gives an empty message).
    pub fn get(&self, r: MsgRef) -> PackedMessage<'_> {
        let Some(c) = self.chunks.get(r.chunk as usize) else { return PackedMessage(&[0; 7]) };
        let mut rd = Reader { b: c, at: r.at as usize };
        let len = rd.varint() as usize;
        let end = rd.at.saturating_add(len).min(c.len());
        PackedMessage(&c[rd.at.min(end)..end])
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Whether no message is held.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }
}

/// Model names (`provider/model`), interned for the whole process: a session
/// names a handful of models on every assistant message. Bounded: past
/// [`models::MAX`] names, further ones are stored inline in each message.
mod models {
    use std::sync::{OnceLock, RwLock};

    /// Most names interned.
    pub const MAX: usize = 4096;

    #[derive(Default)]
    struct Table {
        names: Vec<&'static str>,
        index: foldhash::HashMap<&'static str, u32>,
    }

    fn table() -> &'static RwLock<Table> {
        static T: OnceLock<RwLock<Table>> = OnceLock::new();
        T.get_or_init(Default::default)
    }

    thread_local! {
        /// The names this thread has looked up: most lookups touch no shared state.
        static SEEN: std::cell::RefCell<Vec<(&'static str, u32)>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    /// The index of `name`, interning it if there is room.
    pub fn intern(name: &str) -> Option<u32> {
        let local = SEEN.with(|s| s.borrow().iter().find(|(n, _)| *n == name).map(|(_, i)| *i));
        if local.is_some() {
            return local;
        }
        let i = intern_shared(name)?;
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < 16 {
                s.push((self::name(i), i));
            }
        });
        Some(i)
    }

    fn intern_shared(name: &str) -> Option<u32> {
        if let Some(&i) = table().read().ok()?.index.get(name) {
            return Some(i);
        }
        let mut t = table().write().ok()?;
        if let Some(&i) = t.index.get(name) {
            return Some(i);
        }
        if t.names.len() >= MAX || name.len() > 256 {
            return None;
        }
        // Leaked on purpose: at most MAX short names for the process's life.
        let leaked: &'static str = Box::leak(name.into());
        let i = t.names.len() as u32;
        t.names.push(leaked);
        t.index.insert(leaked, i);
        Some(i)
    }

    /// The name at `i` ("" if unknown).
    pub fn name(i: u32) -> &'static str {
        table().read().ok().and_then(|t| t.names.get(i as usize).copied()).unwrap_or("")
    }
}

fn put_varint(w: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        w.push((v as u8) | 0x80);
        v >>= 7;
    }
    w.push(v as u8);
}

fn put_str(w: &mut Vec<u8>, s: &str) {
    put_varint(w, s.len() as u64);
    w.extend_from_slice(s.as_bytes());
}

fn put_ptr(w: &mut Vec<u8>, p: &str) {
    match pointer_code(p) {
        Some(c) => w.push(c),
        None => {
            w.push(0);
            put_str(w, p);
        }
    }
}

/// Reads what [`pack`] wrote. The bytes are always ours, so a short read
/// cannot happen; it yields zeros and empty strings rather than panic.
#[derive(Clone)]
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn u8(&mut self) -> u8 {
        let v = self.b.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }
    fn u64(&mut self) -> u64 {
        let v = self.b.get(self.at..self.at + 8).map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])));
        self.at += 8;
        v
    }
    fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let byte = self.u8();
            v |= u64::from(byte & 0x7f) << shift.min(63);
            shift += 7;
            if byte & 0x80 == 0 || shift >= 70 {
                return v;
            }
        }
    }
    fn bytes_of(&mut self, len: usize) -> &'a [u8] {
        let end = self.at.saturating_add(len).min(self.b.len());
        let s = &self.b[self.at.min(end)..end];
        self.at = end;
        s
    }
    fn bytes(&mut self) -> &'a [u8] {
        let len = self.varint() as usize;
        self.bytes_of(len)
    }
    fn str(&mut self) -> &'a str {
        std::str::from_utf8(self.bytes()).unwrap_or("")
    }
    fn ptr(&mut self) -> Ptr {
        match self.u8() {
            0 => Cow::Owned(self.str().to_string()),
            c => Cow::Borrowed(pointer_of(c).unwrap_or("")),
        }
    }
    fn ptr_str(&mut self) -> (&'a str, Option<&'static str>) {
        match self.u8() {
            0 => (self.str(), None),
            i => {
                let p = pointer_of(i).unwrap_or("");
                (p, Some(p))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: BlockKind, ptr: &str, text: &str, full: bool) -> Block {
        let mut b = Block::new(kind, Cow::Owned(ptr.to_string()), text, full);
        if !full {
            b.text = crate::text::prefix(text, 3).into();
        }
        b
    }

    #[test]
    fn every_field_survives_packing() {
        let mut call = block(BlockKind::ToolCall, "/message/content/2", "{\"a\":1}", false);
        call.tool_id = Some("call_1".into());
        call.tool_name = Some("message".into());
        call.is_send = true;
        call.dry_run = true;
        call.json_hash = 0xdead_beef_0000_0001;
        let m = Message {
            role: Role::Assistant,
            kind: MessageKind::Assistant,
            pointer: Cow::Borrowed("/message"),
            blocks: vec![
                block(BlockKind::Text, "/message/content/0", "héllo wörld", true),
                block(BlockKind::Thinking, "/odd/pointer/~1x", "long thinking text", false),
                call,
                block(BlockKind::Media, "/message/content/99", "", true),
            ],
            assistant: Some(Box::new(AssistantInfo {
                stop: Stop::Aborted,
                model: Some("openai/gpt".into()),
                transcript_only: true,
                api_error: false,
                delivery_mirror: true,
                rewritten: true,
            })),
            result: Some(Box::new(ResultInfo { synthetic_or_aborted: true, delivered: false, is_error: true })),
            dynamic_ref: Some("ref".into()),
            json_hash: u64::MAX,
        };
        let bytes = pack(&m, Texts::AsLoaded);
        let p = PackedMessage::new(&bytes);
        let u = p.unpack();
        assert_eq!(format!("{m:?}"), format!("{u:?}"));
        assert_eq!(p.role(), Role::Assistant);
        assert_eq!(p.kind(), MessageKind::Assistant);
        assert!(p.assistant_facts().is_some_and(|a| a.stop == Stop::Aborted && a.model.is_none()));
        assert!(p.result_facts().is_some_and(|r| r.is_error && r.synthetic_or_aborted && !r.delivered));
        // Known pointers are one byte and come back borrowed.
        assert!(matches!(u.pointer, Cow::Borrowed("/message")));
        assert!(matches!(u.blocks[0].pointer, Cow::Borrowed("/message/content/0")));
        assert_eq!(u.blocks[3].pointer, "/message/content/99");
    }

    #[test]
    fn every_role_and_kind_round_trips() {
        for role in ROLES {
            for kind in KINDS {
                let m = Message {
                    role,
                    kind,
                    pointer: Cow::Borrowed(""),
                    blocks: Vec::new(),
                    assistant: None,
                    result: None,
                    dynamic_ref: None,
                    json_hash: 0,
                };
                let bytes = pack(&m, Texts::AsLoaded);
                let p = PackedMessage::new(&bytes);
                assert_eq!((p.role(), p.kind()), (role, kind));
                assert_eq!(format!("{m:?}"), format!("{:?}", p.unpack()));
            }
        }
    }

    #[test]
    fn a_text_over_a_megabyte_and_large_lengths_round_trip() {
        let big = "x".repeat(3 << 20);
        let mut b = block(BlockKind::ToolResult, "/content", &big, true);
        b.text_len = u32::MAX;
        b.text = "abc".into();
        let m = Message {
            role: Role::Tool,
            kind: MessageKind::ToolResult,
            pointer: Cow::Borrowed(""),
            blocks: vec![block(BlockKind::Text, "/content/0", &big, true), b],
            assistant: None,
            result: None,
            dynamic_ref: None,
            json_hash: 0,
        };
        assert_eq!(format!("{m:?}"), format!("{:?}", PackedMessage::new(&pack(&m, Texts::AsLoaded)).unpack()));
    }

    fn text_message(kind: MessageKind, texts: &[&str]) -> Message {
        Message {
            role: if kind.is_prompt_side() { Role::User } else { Role::Assistant },
            kind,
            pointer: Cow::Borrowed("/message"),
            blocks: texts
                .iter()
                .map(|t| Block::new(BlockKind::Text, Cow::Borrowed("/message/content/0"), t, true))
                .collect(),
            assistant: None,
            result: None,
            dynamic_ref: None,
            json_hash: 0,
        }
    }

    #[test]
    fn compact_keeps_prompt_texts_and_short_model_texts_only() {
        let long = "a reply that is well over thirty-two bytes long";
        let padded = format!("   NO_REPLY{}", " ".repeat(100));
        let m = text_message(MessageKind::Assistant, &[long, "NO_REPLY", &padded, "  "]);
        let u = PackedMessage::new(&pack(&m, Texts::Compact)).unpack();
        let kept: Vec<(&str, bool, u32, bool)> =
            u.blocks.iter().map(|b| (&*b.text, b.text_dropped, b.text_len, b.is_blank())).collect();
        assert_eq!(
            kept,
            vec![
                ("", true, long.len() as u32, false),
                ("NO_REPLY", false, 8, false),
                (padded.as_str(), false, padded.len() as u32, false),
                ("  ", false, 2, true),
            ]
        );
        assert_eq!(u.blocks[0].text_hash, crate::hash::hash_str(long));
        // Prompt-side texts are kept whatever their length.
        let p = text_message(MessageKind::UserTurn, &[long]);
        assert_eq!(&*PackedMessage::new(&pack(&p, Texts::Compact)).unpack().blocks[0].text, long);
        // As loaded: everything.
        assert_eq!(&*PackedMessage::new(&pack(&m, Texts::AsLoaded)).unpack().blocks[0].text, long);
    }

    #[test]
    fn the_arena_shares_equal_prompt_messages_and_spans_chunks() {
        let mut a = MessageArena::default();
        let carrier = pack(&text_message(MessageKind::Carrier, &["OpenClaw runtime context"]), Texts::AsLoaded);
        let reply = pack(&text_message(MessageKind::Assistant, &["ok"]), Texts::AsLoaded);
        let r1 = a.push(&carrier);
        let r2 = a.push(&reply);
        let r3 = a.push(&carrier);
        let r4 = a.push(&reply);
        assert_eq!(r1, r3, "equal prompt-side messages share their bytes");
        assert_ne!(r2, r4, "model output is never shared");
        // A message larger than a chunk, and many small ones across chunk ends.
        let big_text = "x".repeat(CHUNK + 10);
        let big = pack(&text_message(MessageKind::UserTurn, &[&big_text]), Texts::AsLoaded);
        let rb = a.push(&big);
        let mut small = Vec::new();
        for i in 0..40_000 {
            let t = format!("message number {i}");
            let bytes = pack(&text_message(MessageKind::Assistant, &[&t]), Texts::AsLoaded);
            small.push((a.push(&bytes), t));
        }
        a.seal();
        assert!(a.chunks.len() >= 3);
        assert_eq!(&*a.get(rb).unpack().blocks[0].text, big_text);
        assert_eq!(&*a.get(r1).unpack().blocks[0].text, "OpenClaw runtime context");
        for (r, t) in &small {
            assert_eq!(&*a.get(*r).unpack().blocks[0].text, t.as_str());
        }
        // A reference the arena never gave is an empty message, not a panic.
        assert!(a.get(MsgRef::NONE).unpack().blocks.is_empty());
    }

    #[test]
    fn model_names_are_interned_up_to_a_bound_then_stored_inline() {
        let msg = |model: String| Message {
            role: Role::Assistant,
            kind: MessageKind::Assistant,
            pointer: Cow::Borrowed("/message"),
            blocks: Vec::new(),
            assistant: Some(Box::new(AssistantInfo { model: Some(model.into()), ..Default::default() })),
            result: None,
            dynamic_ref: None,
            json_hash: 0,
        };
        // More distinct names than the table holds: all round-trip.
        for i in 0..models::MAX + 50 {
            let name = format!("provider/model-{i}");
            let bytes = pack(&msg(name.clone()), Texts::Compact);
            let u = PackedMessage::new(&bytes).unpack();
            assert_eq!(u.assistant.and_then(|a| a.model).as_deref(), Some(name.as_str()));
        }
        let long = "m".repeat(300);
        let u = PackedMessage::new(&pack(&msg(long.clone()), Texts::Compact)).unpack();
        assert_eq!(u.assistant.and_then(|a| a.model).as_deref(), Some(long.as_str()));
    }

    #[test]
    fn codes_index_their_tables() {
        for (i, r) in ROLES.iter().enumerate() {
            assert_eq!(usize::from(role_code(*r)), i);
        }
        for (i, k) in KINDS.iter().enumerate() {
            assert_eq!(usize::from(kind_code(*k)), i);
        }
        for (i, k) in BLOCK_KINDS.iter().enumerate() {
            assert_eq!(usize::from(block_kind_code(*k)), i);
        }
        for (i, k) in STOPS.iter().enumerate() {
            assert_eq!(usize::from(stop_code(*k)), i);
        }
    }

    #[test]
    fn every_common_pointer_has_a_code_that_gives_it_back() {
        let all: Vec<&str> = POINTER_TABLES.iter().flat_map(|t| t.iter().copied()).collect();
        assert!(all.len() < 255);
        for p in &all {
            let c = pointer_code(p).expect("a code");
            assert_eq!(pointer_of(c), Some(*p));
        }
        assert_eq!(pointer_code("/message/content/16"), None);
        assert_eq!(pointer_of(0), None);
        assert_eq!(pointer_of(255), None);
    }
}
