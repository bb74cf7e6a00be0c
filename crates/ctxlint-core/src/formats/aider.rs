//! `aider-llm-history`: Aider's LLM history file (`--llm-history-file`,
//! usually `.aider.llm.history` in the project), a text file of blocks, each
//! one a request that Aider sent through litellm, in the order they were sent.
//!
//! Facts from Aider's source (Apache-2.0, `Aider-AI/aider`, read at commit
//! `5dc9490bb35f9729ef2c95d00a19ccd30c26339c`):
//! - `InputOutput.log_llm_history(role, content)` (`aider/io.py`) appends
//!   `f"{role.upper()} {timestamp}\n"` then `content + "\n"`, where the
//!   timestamp is `datetime.now().isoformat(timespec="seconds")` (local time,
//!   no zone: `2025-03-14T09:26:53`). The file is opened in text mode, so on
//!   Windows every `\n` is written as `\r\n`.
//! - `Coder.send` (`aider/coders/base_coder.py`) is the only caller: before
//!   the call it logs `"TO LLM"` with `format_messages(messages)`, and in its
//!   `finally` clause `"LLM RESPONSE"` with
//!   `format_content("ASSISTANT", self.partial_response_content)` — so every
//!   request block is followed by a response block unless the process died,
//!   and a reply that was only a function call, or an error, logs an empty
//!   response (a blank line).
//! - `format_messages` (`aider/utils.py`), without a title: for each message
//!   a line `-------`, then, for string content, `format_content(ROLE,
//!   content)`: **every** line of `content.splitlines()` prefixed with the
//!   upper-cased role and one space (`USER ` for an empty line); for list
//!   content (image messages, and the messages `ChatChunks.add_cache_control`
//!   turns into `[{"type": "text", "text": …, "cache_control": …}]`), for each
//!   dict item and each of its keys a line `ROLE key: value` — or `ROLE
//!   Key URL: url` (`key.capitalize()`) when the value is a dict with `url` —
//!   where `value` is Python's `str()` of it, so the later lines of a
//!   multi-line `text` are written raw, *without* the role tag; a non-dict
//!   item is `ROLE item`. A message's `function_call` adds `ROLE Function
//!   Call: {…}` (Python's repr of the dict). `tool_calls` are not written.
//!   Content `None` or `""` writes no line at all.
//!
//! How this loader reads it (the assumptions are marked):
//! - A header is a line `TO LLM <timestamp>` or `LLM RESPONSE <timestamp>`
//!   whose timestamp starts with a `YYYY-MM-DD` date. Each `TO LLM` block is
//!   one [`Request`] of one stream (the file), numbered from 0 in file order;
//!   its `LLM RESPONSE` block is its reply (read and checked for shape, and
//!   kept as the request's [`Request::reply`]: text the model wrote, which
//!   Aider hands on — an architect's plan given to the editor model; a
//!   Chat-shaped stream has no response id, so continuity is decided by the
//!   histories' first elements as for every Chat stream, docs/spec.md §1).
//! - Within a block, each `-------` line starts a message (a blank line in
//!   files Aider wrote before v0.72, whose `format_messages` appended `""`
//!   there: a block whose first line is blank is read so, a blank line then
//!   starting a message only when the next line carries a role tag or ends
//!   the block, else it is a blank line of a list item's raw text); the role is the
//!   tag of its first line (`SYSTEM`, `USER`, `ASSISTANT`, `DEVELOPER`,
//!   `TOOL`, `FUNCTION`). A message is list content when its first line is
//!   `ROLE type: …` (*assumed*: Aider's list items put `type` first, and a
//!   string content whose first line is `type: …` would be read as a list);
//!   a line inside a list `text` value that is not `ROLE key: …` continues
//!   that value (*assumed*: a raw text line that itself looks like `ROLE
//!   key: value` ends it). A `ROLE Function Call: {…}` last line of an
//!   assistant message is its function call (name taken from `'name': '…'`,
//!   the whole repr kept as its arguments). A message with no line gets
//!   the role that alternates with the message before it (*assumed*: it is
//!   an empty assistant reply or user message; the log does not say).
//! - Messages are then built exactly as an `openai-chat` body's messages
//!   ([`super::openai_chat::parse_message`]): a string content is one element,
//!   a list of one plain text part equals that string (`cache_control` aside).
//!   Splitting on lines loses what `splitlines()` loses (a final newline, a
//!   lone `\r`, which break it was); texts are compared as rejoined with `\n`.
//! - Lines that fit none of this (text before the first header, a line
//!   without its message's role tag, a response line without `ASSISTANT `,
//!   invalid UTF-8, NUL bytes) become [`BadLine`]s (`malformed-line`), and
//!   reading goes on. A file that ends without a final newline inside a
//!   `TO LLM` block was cut mid-write: that block is not loaded and its last
//!   line is a bad line. A complete block without a response (Aider killed
//!   while waiting) is loaded: the request was sent.
//!
//! Pointers (docs/spec.md §1, "a JSON Pointer into that line's object" for JSONL):
//! each request's pointer is `""` and its line is its `TO LLM` header;
//! pointers inside it are relative to the block, as if the block were the
//! Chat body `{"messages": […]}`: `/messages/M` is the message after the
//! block's M-th (0-based) `-------` line, `/messages/M/content/J` the J-th
//! list item, `/messages/M/function_call` the function call. A finding is
//! reported at the line where that element's text starts (the message's
//! first `ROLE` line, the item's `type:` line), at the column after the role
//! tag; an element with no line at its `-------` line ([`locate`]).

use super::LoadOptions;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, TextCase, TextSniffer};
use crate::error::{Error, Result};
use crate::model::*;
use crate::source::SourceRef;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("aider-llm-history");

/// The request header's tag (`log_llm_history("TO LLM", …)`).
const TO_LLM: &str = "TO LLM";
/// The response header's tag (`log_llm_history("LLM RESPONSE", …)`).
const LLM_RESPONSE: &str = "LLM RESPONSE";
/// The line `format_messages` writes before each message.
const SEPARATOR: &str = "-------";

/// The two kinds of block header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header {
    ToLlm,
    Response,
}

/// Whether `s` starts like an ISO 8601 date-time (`YYYY-MM-DD`, then
/// optionally `T` or a space and a time): the `isoformat()` timestamp.
fn is_timestamp(s: &str) -> bool {
    let b = s.trim().as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && (b.len() == 10 || matches!(b[10], b'T' | b' ') && digits(11..13) && b.get(13) == Some(&b':'))
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b':' | b'.' | b'+' | b' '))
}

/// The header a line is, if any.
fn header(line: &str) -> Option<Header> {
    let rest = |tag: &str| line.strip_prefix(tag).and_then(|r| r.strip_prefix(' ')).filter(|r| is_timestamp(r));
    if rest(TO_LLM).is_some() {
        Some(Header::ToLlm)
    } else if rest(LLM_RESPONSE).is_some() {
        Some(Header::Response)
    } else {
        None
    }
}

/// Whether the first non-blank line of `head` (the start of a file, a UTF-8
/// BOM aside) is a `TO LLM <timestamp>` header: detection (docs/spec.md §1).
pub fn sniff(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let Some(line) = head.split(|&c| c == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)) else {
        return false;
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // Only the start of the line is needed (a header is short).
    let line = &line[..line.len().min(200)];
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&line[..e.valid_up_to()]).unwrap_or(""),
    };
    header(text) == Some(Header::ToLlm)
}

/// What a forced `--input-format aider-llm-history` requires and a file
/// lacks (docs/spec.md §1): no line of it is a `TO LLM <timestamp>` header.
pub const MISSING: &str =
    "no line is a `TO LLM <timestamp>` header (an Aider LLM history file is blocks that start with one)";

/// Whether any line of `src` is a `TO LLM <timestamp>` header (for a forced format).
pub fn fits(src: &SourceRef) -> Result<bool> {
    let mut lr = src.lines()?;
    while let Some(l) = lr.next_line().map_err(|e| Error::io(&src.display, e))? {
        let b = if l.no == 1 { l.bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l.bytes) } else { l.bytes };
        if !l.too_long && std::str::from_utf8(b).ok().and_then(header) == Some(Header::ToLlm) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The upper-cased role tags `format_messages` writes (`msg["role"].upper()`).
fn role_of(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "SYSTEM" => "system",
        "DEVELOPER" => "developer",
        "USER" => "user",
        "ASSISTANT" => "assistant",
        "TOOL" => "tool",
        "FUNCTION" => "function",
        _ => return None,
    })
}

/// The role tag of a line and the text after it (`"USER hi"` → `("USER", "hi")`;
/// `"USER"` alone, a line whose trailing space was stripped, → `("USER", "")`).
fn split_tag(line: &str) -> Option<(&str, &str)> {
    let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
    role_of(tag).map(|_| (tag, rest))
}

/// The first lines of the user-role messages Aider writes itself around the
/// user's turns (`Coder.format_chat_chunks`: repo map, read-only files, chat
/// files, and the notes sent when no file is in the chat), from
/// `aider/coders/base_prompts.py` (`repo_content_prefix`,
/// `read_only_files_prefix`, `files_content_prefix`, `files_no_full_files`,
/// `files_no_full_files_with_repo_map`) and the ask coder's variants
/// (`ask_prompts.py`). Such a message is injected context
/// ([`MessageKind::Meta`]), not a user turn: the same repo map sent twice in a
/// request is a `duplicate-context-block`, not a person repeating themselves.
const INJECTED_CONTEXT: &[&str] = &[
    "Here are summaries of some files present in my git repository.",
    "I am working with you on code in a git repository.",
    "Here are some READ ONLY files, provided for your reference.",
    "I have *added these files to the chat*",
    "I am not sharing any files that you can edit yet.",
    "I am not sharing the full contents of any files with you yet.",
    "Don't try and edit any existing code without asking me to add the files to the chat!",
];

/// Whether a user-role text is one of Aider's own context messages ([`INJECTED_CONTEXT`]).
fn is_injected_context(text: &str) -> bool {
    injected_prefix(text).is_some()
}

/// The [`INJECTED_CONTEXT`] opening `text` starts with, if any (kept by
/// `repro`'s anonymiser, so a reduced case classifies the message alike).
pub fn injected_prefix(text: &str) -> Option<&'static str> {
    INJECTED_CONTEXT.iter().copied().find(|p| text.starts_with(p))
}

/// The openings of Aider's chat-files messages (`Coder.get_chat_files_messages`,
/// `aider/coders/base_coder.py`; texts `files_content_prefix`,
/// `files_no_full_files`, `files_no_full_files_with_repo_map` of
/// `aider/coders/base_prompts.py`, and of the other modes' prompts:
/// `ask_prompts.py`, `context_prompts.py`, `architect_prompts.py` ("…the full
/// contents of any files with you yet."), `help_prompts.py`, the
/// function-call coders' `wholefile_func_prompts.py`): sent after the done
/// messages, each with a canned assistant reply, so they move down as the
/// history grows.
const CHAT_FILES: &[&str] = &[
    "I have *added these files to the chat*",
    "I am not sharing any files that you can edit yet.",
    "Don't try and edit any existing code without asking me to add the files to the chat!",
    "I am not sharing the full contents of any files with you yet.",
    "I am not sharing any files with you.",
    "I am not sharing any files yet.",
    "These are some files we have been discussing that we may want to edit after you answer my questions:",
    "Here is the current content of the files:",
];

/// The openings of the context messages Aider builds afresh for every
/// request from the repository's state, before the done messages
/// (`Coder.get_repo_messages` and `get_readonly_files_messages`,
/// `aider/coders/base_coder.py`; texts `repo_content_prefix` and
/// `read_only_files_prefix` of `aider/coders/base_prompts.py`, the ask
/// coder's `repo_content_prefix` of `ask_prompts.py`), each with a canned
/// assistant reply: the repo map is made again when the files in the chat
/// change (`--map-refresh`, which `--cache-prompts` sets to `files`), so a
/// map that differs from the previous request's is the map of the new
/// files, not history rewritten.
///
/// Each is the whole prefix with the canned reply that follows it (a person's
/// message that merely starts like one is history).
const REBUILT: &[(&str, &str)] = &[
    (
        "Here are summaries of some files present in my git repository.\nDo not propose changes to these files, treat them as *read-only*.\nIf you need to edit any of these files, ask me to *add them to the chat* first.\n",
        "Ok, I won't try and edit those files without asking first.",
    ),
    (
        "I am working with you on code in a git repository.\nHere are summaries of some files present in my git repo.\nIf you need to see the full contents of any files to answer my questions, ask me to *add them to the chat*.\n",
        "Ok, I won't try and edit those files without asking first.",
    ),
    (
        "Here are some READ ONLY files, provided for your reference.\nDo not edit these files!\n",
        "Ok, I will use these files as references.",
    ),
];

/// How the few-shot examples of Aider's edit formats begin (the first user
/// message of `example_messages` in `aider/coders/editblock_prompts.py`,
/// `wholefile_prompts.py`, `udiff_prompts.py`): the examples are taken as
/// such only when they begin so, right after the system prompt (a person who
/// types [`EXAMPLES_END`] in a chat without examples is writing history).
const EXAMPLE_OPENINGS: &[&str] = &[
    "Change get_factorial() to use math.factorial",
    "Change the greeting to be more casual",
    "Replace is_prime with a call to sympy.",
];

/// The user message that ends Aider's few-shot examples (answered `Ok.`):
/// `Coder.format_chat_chunks` sends the edit format's `example_messages`
/// and this pair after the system prompt when the model does not take its
/// examples in the system message (`examples_as_sys_msg`). Fixed text, the
/// same for every request: part of the prompt, not of the history (every
/// request would otherwise seem to continue every earlier one, a chat
/// cleared with `/clear` or `/reset` too).
const EXAMPLES_END: &str = "I switched to a new code base. Please don't consider the above files";

/// The shortest text taken as a reminder (shorter repeats are no evidence):
/// as long as the shortest Aider writes, the language line `Reply in
/// English.` (`Coder.fmt_system_prompt`'s `language` sentence, the whole
/// `system_reminder` of the ask and help modes).
const MIN_REMINDER: usize = 16;

/// The one full text of a message with a single text block.
fn only_text(m: &Message) -> Option<&str> {
    match m.blocks.as_slice() {
        [b] if b.kind == BlockKind::Text && b.has_full_text() => Some(&b.text),
        _ => None,
    }
}

/// Whether `s` is the reminder at the end of system prompt `sys`:
/// `Coder.format_chat_chunks` appends `"\n" + system_reminder` to the main
/// system prompt, and sends the same text again at the end of the request.
fn is_reminder_of(sys: &str, s: &str) -> bool {
    s.len() >= MIN_REMINDER
        && sys.len() > s.len()
        && sys.ends_with(s)
        && sys.as_bytes()[sys.len() - s.len() - 1] == b'\n'
}

/// Where Aider's `reminder: user` text starts in the last user message `u`
/// (`final["content"] + "\n\n" + system_reminder`): the byte index of the
/// `\n\n` before the longest such end of `u` that ends `sys` too (linear:
/// only the common end of the two texts is searched).
fn appended_reminder(sys: &str, u: &str) -> Option<usize> {
    let common = u.bytes().rev().zip(sys.bytes().rev()).take_while(|(a, b)| a == b).count();
    let from = u.len().saturating_sub(common + 2);
    let bytes = u.as_bytes();
    let mut p = from;
    while p + 2 <= bytes.len() {
        let Some(q) = memchr::memmem::find(&bytes[p..], b"\n\n") else { break };
        let at = p + q;
        // `u[at + 2..]` ends `sys` (it lies within the common end): O(1) checks only.
        let n = u.len() - at - 2;
        if n >= MIN_REMINDER && sys.len() > n && sys.as_bytes()[sys.len() - n - 1] == b'\n' {
            return Some(at);
        }
        p = at + 1;
    }
    None
}

/// What of a request floats ([`Floating`]): the few-shot examples
/// ([`EXAMPLES_END`]), the chat-files messages with their replies, the repo
/// map and read-only files with theirs (made again for each request:
/// [`REBUILT`]), and the `system_reminder` re-sent at the end (a last system
/// message, or appended to the last user message).
fn floating(msgs: &[Arc<Message>]) -> Floating {
    let mut f = Floating::default();
    // The few-shot examples and the pair that ends them, before any context
    // message Aider injects (the repo map and files come after them).
    let first = msgs.iter().position(|m| !m.role.is_system()).unwrap_or(msgs.len());
    let opens_examples = msgs
        .get(first)
        .filter(|m| m.role == Role::User)
        .and_then(|m| only_text(m))
        .is_some_and(|t| EXAMPLE_OPENINGS.iter().any(|o| t.starts_with(o)));
    let examples_end = msgs
        .iter()
        .take_while(|m| m.kind != MessageKind::Meta)
        .position(|m| m.role == Role::User && only_text(m).is_some_and(|t| t.starts_with(EXAMPLES_END)))
        .filter(|&i| opens_examples && i > first && msgs.get(i + 1).is_some_and(|n| n.role == Role::Assistant));
    if let Some(end) = examples_end {
        f.messages.extend((0..=end + 1).filter(|&i| !msgs[i].role.is_system()));
    }
    for (i, m) in msgs.iter().enumerate() {
        if m.kind != MessageKind::Meta {
            continue;
        }
        let Some(b) = m.blocks.first() else { continue };
        let reply = msgs.get(i + 1).filter(|n| n.role == Role::Assistant);
        if CHAT_FILES.iter().any(|p| b.text.starts_with(p)) {
            f.messages.push(i);
            if reply.is_some() {
                f.messages.push(i + 1);
            }
        } else if REBUILT
            .iter()
            .any(|(p, ok)| b.text.starts_with(p) && reply.and_then(|n| only_text(n)).is_some_and(|t| t.trim() == *ok))
        {
            f.messages.extend([i, i + 1]);
        }
    }
    let Some(sys) = msgs.first().filter(|m| m.role.is_system()).and_then(|m| only_text(m)) else { return f };
    let last = msgs.len() - 1;
    if last == 0 {
        return f;
    }
    let lm = &msgs[last];
    let Some(t) = only_text(lm) else { return f };
    if lm.role.is_system() {
        if is_reminder_of(sys, t) {
            f.messages.push(last);
        }
    } else if lm.role == Role::User {
        if let Some(mut at) = appended_reminder(sys, t) {
            // Where the content ends when line breaks run into the reminder
            // (`content\n\n` + `\n\n` + reminder): the last place in that run
            // the reminder may start from, since the reminder itself starts
            // as the system prompt's end does.
            while t.as_bytes().get(at + 2) == Some(&b'\n') && is_reminder_of(sys, &t[at + 3..]) {
                at += 1;
            }
            // A content that ended with a line break is read back without it
            // when sent again alone (the log writes `splitlines()`, which
            // drops a final one), but keeps it here, before the reminder.
            let kept = &t[..at];
            let kept = kept.strip_suffix('\n').unwrap_or(kept);
            let key = super::body::chash(&json!({"role": "user", "content": kept}));
            f.appended = Some((last, t.len() - at, key));
        }
    }
    f
}

/// Keys the user turn request `prev` sent with the reminder appended
/// ([`Floating::appended`]) as the next request `next` sends it again, when
/// that copy is the same text with blanks after it: Aider sends the person's
/// input with its trailing spaces dropped before the reminder and stores it
/// as typed (a real ask-mode history: `…functions?` + `\n\nReply in
/// English.`, then `…functions?  ` in the next request's history). The
/// reminder's removal changes that message by design, and the blanks with
/// it; the prefix cache breaks there either way.
fn rekey_reminded_turn(prev: &mut Request, next: &Request) {
    let Some((mi, len, _)) = prev.floating.appended else { return };
    let Some(t) = prev.messages.get(mi).and_then(|m| only_text(m)) else { return };
    let Some(kept) = t.get(..t.len() - len) else { return };
    let kept = kept.strip_suffix('\n').unwrap_or(kept);
    let blanks_after = |u: &str| {
        u.strip_prefix(kept).is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|c| c == b' ' || c == b'\t'))
    };
    let user_texts = || next.messages.iter().filter(|m| m.role == Role::User).filter_map(|m| Some((m, only_text(m)?)));
    if user_texts().any(|(_, u)| u == kept) {
        return; // sent again as it was sent before the reminder
    }
    // (The latest copy: the turn is the newest of the history.)
    if let Some((copy, _)) = user_texts().rev().find(|(_, u)| blanks_after(u)) {
        prev.floating.appended = Some((mi, len, copy.json_hash));
    }
}

/// Where an element of a block starts: 1-based line, 1-based column (in
/// characters), byte offset in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// 0-based byte offset of that column in the file.
    pub offset: u64,
}

/// One line of a message, as read.
#[derive(Debug)]
struct MsgLine {
    no: u32,
    offset: u64,
    text: String,
}

impl MsgLine {
    /// The position of the text after a role tag of `tag_len` bytes (or the line start).
    fn pos(&self, tag_len: usize) -> Pos {
        let skip = if tag_len > 0 && self.text.len() > tag_len { tag_len + 1 } else { 0 };
        let column = self.text[..skip].chars().count() as u32 + 1;
        Pos { line: self.no, column, offset: self.offset + skip as u64 }
    }
}

/// A message being read: the ordinal of its `-------` line in the block, and its lines.
#[derive(Debug)]
struct PendingMsg {
    ordinal: usize,
    lines: Vec<MsgLine>,
}

/// A `TO LLM` block being read.
#[derive(Debug)]
struct PendingReq {
    index: usize,
    /// 1-based line and byte offset of its `TO LLM` header.
    line: u32,
    offset: u64,
    /// `-------` lines seen so far.
    separators: usize,
    messages: Vec<Message>,
    /// The role of the last message built (for an empty message's guess).
    last_role: Option<&'static str>,
    /// Element pointer → where it starts.
    positions: Vec<(String, Pos)>,
    /// Whether its `LLM RESPONSE` block was seen.
    answered: bool,
    /// Its messages are separated by blank lines, as Aider wrote them before
    /// v0.72 (`format_messages` appended `""` where it now appends
    /// `-------`; Aider-AI/aider `aider/utils.py`): decided by the block's
    /// first line (`None` until then).
    blank_separated: Option<bool>,
    /// The blank lines just read in a blank-separated block (line, offset):
    /// message separators (all but the last beginning a message of no line)
    /// when the next line starts a message (a role tag, or nothing: a
    /// header or the end), else blank lines inside a list item's text
    /// (written raw, without a tag).
    blanks: Vec<(u32, u64)>,
}

/// Which part of the file a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before the first header.
    Preamble,
    /// Inside a `TO LLM` block.
    Request,
    /// Inside the `LLM RESPONSE` block of the last request.
    Response,
    /// Inside an `LLM RESPONSE` block with no request of its own (its lines are passed over).
    Orphan,
}

/// The result of reading a whole file.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The requests, in file order.
    pub requests: Vec<Request>,
    /// Where each request's elements start: `(header line, pointer) → position`.
    pub positions: HashMap<(u32, String), Pos>,
    /// Lines that fit no part of the format.
    pub bad: BadLines,
    /// The replies (`LLM RESPONSE` text, lines joined with `\n`) by request
    /// index; `None` when the block has none.
    pub replies: Vec<Option<String>>,
}

/// The line-by-line reader (a pure state machine over lines, for `load`,
/// [`locate`] and the unit tests).
struct Parser {
    path: Arc<str>,
    section: Section,
    req: Option<PendingReq>,
    msg: Option<PendingMsg>,
    /// The lines of the current `LLM RESPONSE` block, role tags removed.
    reply: Option<Vec<String>>,
    out: Parsed,
    /// One copy of the history the requests send again.
    interner: Interner,
    /// The last line seen: number, byte offset, whether it ended with a newline.
    last: Option<(u32, u64, bool)>,
}

impl Parser {
    fn new(path: Arc<str>) -> Self {
        Parser {
            path,
            section: Section::Preamble,
            req: None,
            msg: None,
            reply: None,
            out: Parsed::default(),
            interner: Interner::default(),
            last: None,
        }
    }

    fn bad(&mut self, no: u32, offset: u64, text: &str, reason: impl Into<String>) {
        let reason = reason.into();
        self.out.bad.push_with(|| BadLine {
            line: no,
            offset,
            reason,
            head: crate::text::prefix(text, 200).to_string(),
        });
    }

    /// Reads one line (`bytes` without its `\n` and a trailing `\r`).
    fn line(&mut self, no: u32, offset: u64, bytes: &[u8], terminated: bool, too_long: Option<u64>) {
        self.last = Some((no, offset, terminated));
        if let Some(len) = too_long {
            let why = format!("line is {len} bytes, longer than the {} byte limit; not read", crate::source::MAX_LINE);
            self.bad(no, offset, "", why);
            return;
        }
        let bytes = if no == 1 { bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes) } else { bytes };
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let head = String::from_utf8_lossy(&bytes[..bytes.len().min(400)]).into_owned();
                let why = format!("invalid UTF-8 at byte {} (Aider writes the file as UTF-8)", e.valid_up_to() + 1);
                self.bad(no, offset, &head, why);
                return;
            }
        };
        if let Some(i) = text.find('\0') {
            self.bad(no, offset, text, format!("NUL byte at column {}", text[..i].chars().count() + 1));
            return;
        }
        match header(text) {
            Some(Header::ToLlm) => {
                self.finish_request();
                self.req = Some(PendingReq {
                    index: self.out.requests.len(),
                    line: no,
                    offset,
                    separators: 0,
                    messages: Vec::new(),
                    last_role: None,
                    positions: Vec::new(),
                    answered: false,
                    blank_separated: None,
                    blanks: Vec::new(),
                });
                self.section = Section::Request;
                return;
            }
            Some(Header::Response) => {
                self.flush_blank();
                self.finish_message();
                match &mut self.req {
                    Some(r) if !r.answered => {
                        r.answered = true;
                        self.reply = Some(Vec::new());
                        self.section = Section::Response;
                    }
                    _ => {
                        let why = "an `LLM RESPONSE` block with no `TO LLM` block of its own before it";
                        self.bad(no, offset, text, why);
                        self.section = Section::Orphan;
                    }
                }
                return;
            }
            None => {}
        }
        match self.section {
            Section::Preamble => {
                if !text.trim().is_empty() {
                    self.bad(no, offset, text, "text before the first `TO LLM <timestamp>` header");
                }
            }
            Section::Orphan => {}
            Section::Response => {
                let Some(reply) = &mut self.reply else { return };
                match text.strip_prefix("ASSISTANT").filter(|r| r.is_empty() || r.starts_with(' ')) {
                    Some(r) => reply.push(r.strip_prefix(' ').unwrap_or(r).to_string()),
                    // An empty reply is written as one blank line.
                    None if text.trim().is_empty() => {}
                    None => {
                        self.bad(no, offset, text, "a line of an `LLM RESPONSE` block without the `ASSISTANT ` tag")
                    }
                }
            }
            Section::Request => {
                let Some(r) = &mut self.req else { return };
                let blank_separated = *r.blank_separated.get_or_insert(text.is_empty());
                if text == SEPARATOR && !blank_separated {
                    self.start_message(no, offset);
                    return;
                }
                if blank_separated {
                    if text.is_empty() {
                        r.blanks.push((no, offset));
                        return;
                    }
                    let tagged = split_tag(text).is_some_and(|(t, _)| role_of(t).is_some());
                    match &mut self.msg {
                        Some(m) if !tagged => {
                            let blanks = std::mem::take(&mut r.blanks);
                            m.lines.extend(blanks.into_iter().map(|(no, offset)| MsgLine {
                                no,
                                offset,
                                text: String::new(),
                            }));
                        }
                        _ => self.flush_blank(),
                    }
                }
                match &mut self.msg {
                    Some(m) => m.lines.push(MsgLine { no, offset, text: text.to_string() }),
                    None if text.trim().is_empty() => {}
                    None => {
                        self.bad(no, offset, text, "a line of a `TO LLM` block before its first `-------` message line")
                    }
                }
            }
        }
    }

    /// Starts message `/messages/N` of the pending request at its separator
    /// (a `-------` line, or a blank line before v0.72) at line `no`.
    fn start_message(&mut self, no: u32, offset: u64) {
        self.finish_message();
        let Some(r) = &mut self.req else { return };
        let ordinal = r.separators;
        r.separators += 1;
        r.positions.push((format!("/messages/{ordinal}"), Pos { line: no, column: 1, offset }));
        self.msg = Some(PendingMsg { ordinal, lines: Vec::new() });
    }

    /// The blank lines pending in a blank-separated block, read as
    /// separators: each begins a message (all but the last with no line).
    fn flush_blank(&mut self) {
        let blanks = self.req.as_mut().map(|r| std::mem::take(&mut r.blanks)).unwrap_or_default();
        for (no, offset) in blanks {
            self.start_message(no, offset);
        }
    }

    /// Builds the pending message into the pending request.
    fn finish_message(&mut self) {
        let Some(m) = self.msg.take() else { return };
        let Some(mut r) = self.req.take() else { return };
        self.build_message(&mut r, m);
        self.req = Some(r);
    }

    fn build_message(&mut self, r: &mut PendingReq, m: PendingMsg) {
        let mp = format!("/messages/{}", m.ordinal);
        // Trailing blank lines are not part of a message (format_messages
        // writes none; an empty messages list or an editor may leave one).
        let mut lines = m.lines;
        while lines.last().is_some_and(|l| l.text.trim().is_empty()) {
            lines.pop();
        }
        let first_tag = lines.first().and_then(|l| split_tag(&l.text)).map(|(t, _)| t.to_string());
        let Some(tag) = first_tag.or_else(|| {
            lines.is_empty().then(|| if r.last_role == Some("user") { "ASSISTANT" } else { "USER" }.to_string())
        }) else {
            // No role: every line of it is unreadable.
            for l in &lines {
                let why = "a message line without a role tag (`SYSTEM `, `USER `, `ASSISTANT `, …)";
                self.bad(l.no, l.offset, &l.text, why);
            }
            return;
        };
        let role = role_of(&tag).unwrap_or("user");
        let tl = tag.len();
        let rest = |l: &MsgLine| -> Option<String> {
            match split_tag(&l.text) {
                Some((t, r)) if t == tag => Some(r.to_string()),
                _ => None,
            }
        };
        // A function call: the last line `ROLE Function Call: {…}` of an assistant message.
        let mut function_call = None;
        if role == "assistant" {
            if let Some(last) = lines.last() {
                if let Some(call) = rest(last).and_then(|r| r.strip_prefix("Function Call: ").map(str::to_string)) {
                    let name = call
                        .split_once("'name': '")
                        .and_then(|(_, n)| n.split_once('\''))
                        .map(|(n, _)| n.to_string())
                        .unwrap_or_default();
                    function_call = Some((json!({"name": name, "arguments": call}), last.pos(tl)));
                    lines.pop();
                }
            }
        }
        let mut obj = Map::new();
        obj.insert("role".into(), Value::String(role.into()));
        let list = lines.first().and_then(rest).is_some_and(|r| r.starts_with("type: ") || r == "type:");
        if lines.is_empty() {
            if function_call.is_none() {
                obj.insert("content".into(), Value::String(String::new()));
            }
        } else if list {
            let mut parts: Vec<(Map<String, Value>, Pos)> = Vec::new();
            // The key whose string value a raw line continues.
            let mut open: Option<String> = None;
            for l in &lines {
                let item = rest(l).and_then(|r| {
                    let (k, v) = r.split_once(": ").or_else(|| r.strip_suffix(':').map(|k| (k, "")))?;
                    let key_ok = !k.is_empty()
                        && k.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
                        && k.as_bytes()[0].is_ascii_lowercase();
                    if key_ok {
                        return Some((k.to_string(), v.to_string(), false));
                    }
                    let url_key = k.strip_suffix(" URL")?;
                    let ok = url_key.bytes().next().is_some_and(|c| c.is_ascii_uppercase())
                        && url_key.bytes().skip(1).all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_');
                    ok.then(|| (url_key.to_ascii_lowercase(), v.to_string(), true))
                });
                match item {
                    Some((k, v, is_url)) => {
                        let new_part = k == "type" || parts.last().is_none_or(|(p, _)| p.contains_key(&k));
                        if new_part {
                            parts.push((Map::new(), l.pos(tl)));
                        }
                        let Some((p, _)) = parts.last_mut() else { continue };
                        if is_url {
                            p.insert(k, json!({"url": v}));
                            open = None;
                        } else if k == "cache_control" {
                            // Python's repr of the marker; ignored in comparisons anyway.
                            p.insert(k, json!({"type": "ephemeral"}));
                            open = None;
                        } else {
                            p.insert(k.clone(), Value::String(v));
                            open = Some(k);
                        }
                    }
                    None => match (parts.last_mut(), &open) {
                        (Some((p, _)), Some(k)) => {
                            if let Some(Value::String(s)) = p.get_mut(k) {
                                s.push('\n');
                                s.push_str(&l.text);
                            }
                        }
                        _ => self.bad(l.no, l.offset, &l.text, "a line of a list content that continues no item"),
                    },
                }
            }
            for (j, (_, pos)) in parts.iter().enumerate() {
                r.positions.push((format!("{mp}/content/{j}"), *pos));
            }
            obj.insert("content".into(), Value::Array(parts.into_iter().map(|(p, _)| Value::Object(p)).collect()));
        } else {
            let mut text = String::new();
            let mut first = true;
            for l in &lines {
                match rest(l) {
                    Some(t) => {
                        if !first {
                            text.push('\n');
                        }
                        text.push_str(&t);
                        first = false;
                    }
                    None => {
                        let why = format!("a line of a {tag} message without its `{tag} ` tag");
                        self.bad(l.no, l.offset, &l.text, why);
                    }
                }
            }
            obj.insert("content".into(), Value::String(text));
        }
        // The message starts at its first line of text, else at its `-------`.
        let start = lines.first().map(|l| l.pos(tl)).or(function_call.as_ref().map(|(_, p)| *p));
        if let Some(p) = start {
            if let Some(e) = r.positions.iter_mut().find(|(k, _)| *k == mp) {
                e.1 = p;
            }
        }
        if let Some((fc, pos)) = function_call {
            obj.insert("function_call".into(), fc);
            r.positions.push((format!("{mp}/function_call"), pos));
        }
        r.last_role = Some(role);
        let mut msg = super::openai_chat::parse_message(&Value::Object(obj), mp);
        if msg.kind == MessageKind::UserTurn && msg.blocks.first().is_some_and(|b| is_injected_context(&b.text)) {
            msg.kind = MessageKind::Meta;
        }
        r.messages.push(msg);
    }

    /// Ends the pending request (and its message and reply).
    fn finish_request(&mut self) {
        self.flush_blank();
        self.finish_message();
        let reply = self.reply.take();
        let Some(r) = self.req.take() else { return };
        let mut req = super::body::new_request(&self.path, ID, r.index, "");
        req.line = Some(r.line);
        req.messages = r.messages.into_iter().map(Arc::new).collect();
        req.floating = floating(&req.messages);
        if let Some(prev) = self.out.requests.last_mut() {
            rekey_reminded_turn(prev, &req);
        }
        for (p, pos) in r.positions {
            self.out.positions.insert((r.line, p), pos);
        }
        self.out.positions.insert((r.line, String::new()), Pos { line: r.line, column: 1, offset: r.offset });
        self.interner.request(&mut req);
        self.out.requests.push(req);
        let reply = if r.answered { reply.map(|v| v.join("\n")) } else { None };
        if let (Some(text), Some(req)) = (&reply, self.out.requests.last_mut()) {
            let mut known = Reply::default();
            super::reply::text(text, &mut known);
            req.reply = known.known();
        }
        self.out.replies.push(reply);
    }

    /// Ends the file.
    fn finish(mut self) -> Parsed {
        // Cut mid-write: the last line has no newline and lies in a request block.
        if let (Some((no, offset, false)), Section::Request) = (self.last, self.section) {
            if let Some(r) = self.req.take() {
                self.msg = None;
                let why = format!(
                    "the file ends mid-line in the `TO LLM` block of line {} (a write cut short): that block is not checked",
                    r.line
                );
                self.out.bad.push_with(|| BadLine { line: no, offset, reason: why, head: String::new() });
            }
        }
        self.finish_request();
        self.out
    }
}

/// Reads a whole file into requests, positions and bad lines.
fn parse_source(src: &SourceRef) -> Result<Parsed> {
    let mut p = Parser::new(src.display.as_str().into());
    let mut lr = src.lines()?;
    while let Some(l) = lr.next_line().map_err(|e| Error::io(&src.display, e))? {
        p.line(l.no, l.offset, l.bytes, l.terminated, l.too_long.then_some(l.len));
    }
    Ok(p.finish())
}

/// Reads `text` (a whole file) for tests and [`locate`].
pub fn parse_text(path: &str, text: &[u8]) -> Parsed {
    let mut p = Parser::new(path.into());
    let mut offset = 0u64;
    let mut no = 0u32;
    let mut rest = text;
    while !rest.is_empty() {
        no += 1;
        let (line, terminated, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], true, &rest[i + 1..]),
            None => (rest, false, &rest[rest.len()..]),
        };
        let bytes = line.strip_suffix(b"\r").unwrap_or(line);
        p.line(no, offset, bytes, terminated, None);
        offset += line.len() as u64 + u64::from(terminated);
        rest = next;
    }
    p.finish()
}

/// Loads an Aider LLM history file as one stream of requests.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let parsed = parse_source(src)?;
    // A file with lines of the format's shape but no block at all is not
    // this format (detection and a forced format both require a header).
    if parsed.requests.is_empty() && parsed.bad.kept.is_empty() && !fits(src)? {
        return Err(Error::DoesNotFit {
            path: src.display.clone().into(),
            format: ID.to_string(),
            missing: MISSING.into(),
        });
    }
    Ok(Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests: parsed.requests }),
        bad_lines: parsed.bad.kept,
        more_bad_lines: parsed.bad.more,
        skipped: 0,
        unknown_records: 0,
        unread: Vec::new(),
    })
}

/// Where the element `pointer` of the block whose `TO LLM` header is on
/// line `header_line` starts, in a file read whole (`bytes`): see the
/// module's pointer scheme. `None` when there is no such block or element.
pub fn locate(parsed: &Parsed, header_line: u32, pointer: &str) -> Option<Pos> {
    let exact = parsed.positions.get(&(header_line, pointer.to_string()));
    exact.copied().or_else(|| {
        // A pointer below an element (none is made today): its element's start.
        let mut p = pointer;
        while let Some((head, _)) = p.rsplit_once('/').filter(|(h, _)| !h.is_empty()) {
            if let Some(pos) = parsed.positions.get(&(header_line, head.to_string())) {
                return Some(*pos);
            }
            p = head;
        }
        None
    })
}

/// Places the findings of one LLM history file ([`super::Locate::Own`]):
/// each element's line, column and offset from its text block (a finding's
/// line is its request's `TO LLM` header until then); `mine` are the
/// findings in this file, `related` those elsewhere with a related location
/// here.
pub fn place(src: &SourceRef, findings: &mut [crate::finding::Finding], mine: &[usize], related: &[usize]) {
    let Ok(bytes) = src.read_all() else { return };
    let parsed = parse_text(&src.display, &bytes);
    for &i in mine.iter().chain(related) {
        let f = &mut findings[i];
        if f.path == src.display && !f.pointer.is_empty() {
            if let Some(p) = f.line.and_then(|l| locate(&parsed, l, &f.pointer)) {
                f.line = Some(p.line);
                f.column = Some(p.column);
                f.byte_offset = Some(p.offset);
            }
        }
        for r in &mut f.related {
            if r.path == src.display && !r.pointer.is_empty() {
                if let Some(p) = r.line.and_then(|l| locate(&parsed, l, &r.pointer)) {
                    r.line = Some(p.line);
                }
            }
        }
    }
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Text,
    detect: Detect {
        text: Some(TextSniffer { rank: 0, test: |t| sniff(t).then_some(super::Detection::Format(ID)) }),
        ..Detect::NONE
    },
    fit: Fit::Own(|src| Ok((!fits(src)?).then_some(MISSING))),
    read: Read::File(load),
    locate: Locate::Own(place),
    record: None,
    repro: Repro {
        name: "llm.history",
        numbered: None,
        threading: None,
        text: Some(TextCase { block_header: "TO LLM ", kept_opening: injected_prefix }),
        value: None,
    },
    store: None,
    agent_folders: &[],
    about: About {
        what: "Aider LLM history (TO LLM / LLM RESPONSE blocks)",
        kind: "stream of requests",
        location: ".aider.llm.history in the project (--llm-history-file)",
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reminder_is_the_end_of_the_system_prompt_sent_again() {
        let rem = "# Rules:\n\nEvery block must use this format, exactly as shown.";
        let sys = format!("Act as an expert.\n{rem}");
        assert!(is_reminder_of(&sys, rem));
        assert!(!is_reminder_of(&sys, "use this format, exactly as shown.")); // not at a line start
        assert!(!is_reminder_of(rem, rem)); // the whole prompt is no reminder
        assert!(!is_reminder_of("x\nshort", "short"));
        let user = format!("Fix it\n\n{rem}");
        assert_eq!(appended_reminder(&sys, &user), Some(6));
        assert_eq!(appended_reminder(&sys, "Fix it\n\nsomething else entirely, not from the prompt at all"), None);
        // Many paragraph breaks in both texts: linear, and the longest reminder wins.
        let long: String = "\n\n".repeat(200_000);
        let sys = format!("S\n{long}tail of the reminder text, long enough to count");
        let user = format!("U{long}tail of the reminder text, long enough to count");
        let at = appended_reminder(&sys, &user).unwrap();
        assert!(is_reminder_of(&sys, &user[at + 2..]));
        assert!(at <= 3, "{at}");
    }

    #[test]
    fn floating_context_is_marked() {
        let sys = "Act as an expert.\n# Rules: every block must use this format, exactly.";
        let rem = "# Rules: every block must use this format, exactly.";
        let msgs: Vec<Arc<Message>> = [
            json!({"role": "system", "content": sys}),
            json!({"role": "user", "content": "I have *added these files to the chat* so you can go ahead and edit them."}),
            json!({"role": "assistant", "content": "Ok, any changes I propose will be to those files."}),
            json!({"role": "user", "content": "Fix it"}),
            json!({"role": "system", "content": rem}),
        ]
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut m = super::super::openai_chat::parse_message(v, format!("/messages/{i}"));
            if m.kind == MessageKind::UserTurn && is_injected_context(&m.blocks[0].text) {
                m.kind = MessageKind::Meta;
            }
            Arc::new(m)
        })
        .collect();
        let f = floating(&msgs);
        assert_eq!(f.messages, vec![1, 2, 4]);
        assert_eq!(f.appended, None);
        let mut user = msgs[..4].to_vec();
        user[3] = Arc::new(super::super::openai_chat::parse_message(
            &json!({"role": "user", "content": format!("Fix it\n\n{rem}")}),
            "/messages/3".into(),
        ));
        let f = floating(&user);
        assert_eq!(f.messages, vec![1, 2]);
        assert_eq!(f.appended, Some((3, rem.len() + 2, msgs[3].json_hash)));
    }

    fn msg_of(v: &serde_json::Value, i: usize) -> Arc<Message> {
        let mut m = super::super::openai_chat::parse_message(v, format!("/messages/{i}"));
        if m.kind == MessageKind::UserTurn && is_injected_context(&m.blocks[0].text) {
            m.kind = MessageKind::Meta;
        }
        Arc::new(m)
    }

    #[test]
    fn examples_and_the_repo_map_float() {
        let msgs: Vec<Arc<Message>> = [
            json!({"role": "system", "content": "Act as an expert."}),
            json!({"role": "user", "content": "Change get_factorial() to use math.factorial"}),
            json!({"role": "assistant", "content": "To make this change we need to modify `main.py`."}),
            json!({"role": "user", "content": "I switched to a new code base. Please don't consider the above files or try to edit them any longer."}),
            json!({"role": "assistant", "content": "Ok."}),
            json!({"role": "user", "content": format!("{}\nmain.py", REBUILT[0].0)}),
            json!({"role": "assistant", "content": "Ok, I won't try and edit those files without asking first."}),
            json!({"role": "user", "content": "Fix it"}),
            json!({"role": "assistant", "content": "Done."}),
            json!({"role": "user", "content": "I switched to a new code base. Please don't consider the above files or try to edit them any longer."}),
            json!({"role": "assistant", "content": "Ok."}),
        ]
        .iter()
        .enumerate()
        .map(|(i, v)| msg_of(v, i))
        .collect();
        // The examples up to their closing pair, and the map with its reply; the
        // same words typed later by the person are theirs.
        assert_eq!(floating(&msgs).messages, vec![1, 2, 3, 4, 5, 6]);
        // No closing pair before the injected context: no examples.
        let without: Vec<Arc<Message>> = [&msgs[..1], &msgs[5..]].concat();
        assert_eq!(floating(&without).messages, vec![1, 2]);
        // The pair typed by the person in a chat without examples is history,
        // and so is a message that only starts like the repo map.
        let typed: Vec<Arc<Message>> = [&msgs[..1], &msgs[7..]].concat();
        assert_eq!(floating(&typed).messages, Vec::<usize>::new());
        let mut like_map = msgs.clone();
        like_map[5] = msg_of(
            &json!({"role": "user", "content": "Here are summaries of some files present in my git repository. What do you think?"}),
            5,
        );
        assert_eq!(floating(&like_map).messages, vec![1, 2, 3, 4]);
    }

    fn parse(text: &str) -> Parsed {
        parse_text("h", text.as_bytes())
    }

    /// (role, kind, pointer, first block's text) of each message of request `i`.
    fn messages(p: &Parsed, i: usize) -> Vec<(&'static str, &'static str, String, String)> {
        p.requests[i]
            .messages
            .iter()
            .map(|m| {
                let t = m.blocks.first().map(|b| b.text.to_string()).unwrap_or_default();
                (m.role.as_str(), m.kind.as_str(), m.pointer.to_string(), t)
            })
            .collect()
    }

    fn reasons(p: &Parsed) -> Vec<(u32, String)> {
        p.bad.kept.iter().map(|b| (b.line, b.reason.clone())).collect()
    }

    const TWO: &str = "TO LLM 2025-03-14T09:26:53\n-------\nSYSTEM Act as an expert.\nSYSTEM \nSYSTEM Be brief.\n-------\nUSER hi\n-------\nASSISTANT Ok.\n-------\nUSER Change it\nUSER   now\nLLM RESPONSE 2025-03-14T09:26:58\nASSISTANT Done.\nASSISTANT Really.\nTO LLM 2025-03-14T09:27:10\n-------\nSYSTEM Act as an expert.\nLLM RESPONSE 2025-03-14T09:27:11\n\n";

    #[test]
    fn blocks_are_requests_and_every_line_of_a_message_carries_its_role() {
        let p = parse(TWO);
        assert_eq!(p.requests.len(), 2);
        assert!(p.bad.kept.is_empty(), "{:?}", reasons(&p));
        assert_eq!(
            messages(&p, 0),
            vec![
                ("system", "system", "/messages/0".into(), "Act as an expert.\n\nBe brief.".into()),
                ("user", "user", "/messages/1".into(), "hi".into()),
                ("assistant", "assistant", "/messages/2".into(), "Ok.".into()),
                ("user", "user", "/messages/3".into(), "Change it\n  now".into()),
            ]
        );
        let r = &p.requests[1];
        assert_eq!((r.index, r.line, r.pointer.as_str(), r.body_format), (1, Some(16), "", ID));
        assert_eq!(p.replies, vec![Some("Done.\nReally.".to_string()), Some(String::new())]);
        // Positions: the message's first text line, after its tag.
        assert_eq!(locate(&p, 1, "/messages/0"), Some(Pos { line: 3, column: 8, offset: 42 }));
        assert_eq!(locate(&p, 1, "/messages/3"), Some(Pos { line: 11, column: 6, offset: 136 }));
        assert_eq!(locate(&p, 16, ""), Some(Pos { line: 16, column: 1, offset: 224 }));
        assert_eq!(locate(&p, 16, "/messages/1"), None);
        assert_eq!((&TWO[42..45], &TWO[136..142], &TWO[224..230]), ("Act", "Change", "TO LLM"));
    }

    /// Before v0.72 Aider wrote a blank line where it now writes `-------`.
    const OLD: &str = "TO LLM 2025-01-07T19:32:18\n\nSYSTEM Act as an expert.\nSYSTEM \nSYSTEM Be brief.\n\nUSER type: text\nUSER text: first line\n\n\nsecond line after two blank ones\nUSER cache_control: {'type': 'ephemeral'}\n\n\nUSER Change it\nLLM RESPONSE 2025-01-07T19:32:20\nASSISTANT hello\n";

    #[test]
    fn blank_lines_separate_the_messages_of_a_block_before_v0_72() {
        let p = parse(OLD);
        assert!(p.bad.kept.is_empty(), "{:?}", reasons(&p));
        assert_eq!(
            messages(&p, 0),
            vec![
                ("system", "system", "/messages/0".into(), "Act as an expert.\n\nBe brief.".into()),
                // Blank lines inside a list item's text are no separators: the next line has no role tag.
                ("user", "user", "/messages/1".into(), "first line\n\n\nsecond line after two blank ones".into()),
                // Two blank lines: a message with no line between them.
                ("assistant", "assistant", "/messages/2".into(), "".into()),
                ("user", "user", "/messages/3".into(), "Change it".into()),
            ]
        );
        assert_eq!(p.replies, vec![Some("hello".to_string())]);
        // The same block with `-------` lines reads the same.
        let new =
            OLD.replacen("\n\nSYSTEM", "\n-------\nSYSTEM", 1).replace("Be brief.\n\nUSER", "Be brief.\n-------\nUSER");
        let new = new.replace("'ephemeral'}\n\n\nUSER", "'ephemeral'}\n-------\n-------\nUSER");
        assert_eq!(messages(&parse(&new), 0), messages(&p, 0));
    }

    #[test]
    fn a_reminder_after_a_final_line_break_floats() {
        // The user's content ends with a line break: sent with the reminder it
        // keeps it (`X\n` + `\n\n` + reminder), sent again alone it is read
        // back without it (splitlines drops a final one).
        let sys = "Act as an expert.\n```\n# Rules: every block must use this format, exactly.";
        let rem = "# Rules: every block must use this format, exactly.";
        let msgs: Vec<Arc<Message>> = [
            json!({"role": "system", "content": sys}),
            json!({"role": "user", "content": format!("</userRequest>\n\n\n{rem}")}),
        ]
        .iter()
        .enumerate()
        .map(|(i, v)| msg_of(v, i))
        .collect();
        let (at, len, key) = floating(&msgs).appended.expect("the reminder floats");
        assert_eq!((at, len), (1, rem.len() + 2));
        assert_eq!(key, super::super::body::chash(&json!({"role": "user", "content": "</userRequest>"})));
        // Line breaks running into a reminder that the system prompt sets off
        // with a blank line (`main\n` + `\n` + reminder): the content ended
        // with two, and is read back with one.
        let sys =
            "Act as an expert.\nOnly change the files that need it.\n\nTo suggest changes, return the whole file.";
        let msgs: Vec<Arc<Message>> = [
            json!({"role": "system", "content": sys}),
            json!({"role": "user", "content": "# Fix any errors below\n...\n\n\n\nTo suggest changes, return the whole file."}),
        ]
        .iter()
        .enumerate()
        .map(|(i, v)| msg_of(v, i))
        .collect();
        let (_, _, key) = floating(&msgs).appended.expect("the reminder floats");
        assert_eq!(
            key,
            super::super::body::chash(&json!({"role": "user", "content": "# Fix any errors below\n...\n"}))
        );
    }

    #[test]
    fn the_other_modes_chat_files_pair_and_the_language_reminder_float() {
        let msgs: Vec<Arc<Message>> = [
            json!({"role": "system", "content": "Act as an expert code analyst.\nReply in English."}),
            json!({"role": "user", "content": "what does main.py do?"}),
            json!({"role": "assistant", "content": "It parses the arguments."}),
            json!({"role": "user", "content": "I am not sharing the full contents of any files with you yet."}),
            json!({"role": "assistant", "content": "Ok."}),
            json!({"role": "user", "content": "and utils.py?\n\nReply in English."}),
        ]
        .iter()
        .enumerate()
        .map(|(i, v)| msg_of(v, i))
        .collect();
        let f = floating(&msgs);
        assert_eq!(f.messages, vec![3, 4]);
        let (at, len, key) = f.appended.expect("`Reply in English.` is the ask mode's reminder");
        assert_eq!((at, len), (5, "\n\nReply in English.".len()));
        assert_eq!(key, super::super::body::chash(&json!({"role": "user", "content": "and utils.py?"})));
    }

    #[test]
    fn a_reminded_turn_stored_with_trailing_blanks_is_keyed_as_stored() {
        let sys = json!({"role": "system", "content": "Act as an expert code analyst.\nReply in English."});
        let request = |msgs: &[serde_json::Value]| {
            let mut r = super::super::body::new_request(&"h".into(), ID, 0, "");
            r.messages = msgs.iter().enumerate().map(|(i, v)| msg_of(v, i)).collect();
            r.floating = floating(&r.messages);
            r
        };
        let asked = json!({"role": "user", "content": "what would you change?\n\nReply in English."});
        let prev = request(&[sys.clone(), asked]);
        let plain = super::super::body::chash(&json!({"role": "user", "content": "what would you change?"}));
        assert_eq!(prev.floating.appended.map(|a| a.2), Some(plain));
        let next_with = |copy: &str| {
            request(&[
                sys.clone(),
                json!({"role": "user", "content": copy}),
                json!({"role": "assistant", "content": "First, the constructor."}),
                json!({"role": "user", "content": "and then?\n\nReply in English."}),
            ])
        };
        for (copy, rekeyed) in [
            ("what would you change?  ", true),
            ("what would you change?\t", true),
            ("what would you change?", false),
            ("what would you change? Also the tests.", false),
            ("what would you change?\n", false),
        ] {
            let mut p = prev.clone();
            let next = next_with(copy);
            rekey_reminded_turn(&mut p, &next);
            let want = if rekeyed { next.messages[1].json_hash } else { plain };
            assert_eq!(p.floating.appended.map(|a| a.2), Some(want), "{copy:?}");
        }
    }

    #[test]
    fn crlf_reads_as_lf() {
        let lf = parse(TWO);
        let crlf = parse(&TWO.replace('\n', "\r\n"));
        assert!(crlf.bad.kept.is_empty());
        assert_eq!(messages(&lf, 0), messages(&crlf, 0));
        assert_eq!(lf.requests[0].messages[3].json_hash, crlf.requests[0].messages[3].json_hash);
        // Offsets count the `\r`s.
        assert_eq!(locate(&crlf, 1, "/messages/3").map(|p| (p.line, p.offset)), Some((11, 146)));
    }

    #[test]
    fn list_content_with_a_multi_line_text_equals_the_string_and_images_are_media() {
        let list = "TO LLM 2025-03-14T09:26:53\n-------\nUSER type: text\nUSER text: I have *added these files to the chat* so you can edit them.\nraw second line\n\nUSER third\nUSER cache_control: {'type': 'ephemeral'}\n-------\nUSER type: text\nUSER text: Image file: a.png\nUSER type: image_url\nUSER Image_url URL: data:image/png;base64,AAAA\n";
        let p = parse(list);
        assert!(p.bad.kept.is_empty(), "{:?}", reasons(&p));
        let m = &p.requests[0].messages[0];
        assert_eq!(m.kind, MessageKind::Meta);
        assert_eq!(
            &*m.blocks[0].text,
            "I have *added these files to the chat* so you can edit them.\nraw second line\n\nUSER third"
        );
        assert_eq!(m.blocks[0].pointer, "/messages/0/content/0");
        // The same message logged as a string hashes alike (docs/spec.md §1).
        let s = parse(
            "TO LLM 2025-03-14T09:26:53\n-------\nUSER I have *added these files to the chat* so you can edit them.\nUSER raw second line\nUSER \nUSER USER third\n",
        );
        assert_eq!(m.json_hash, s.requests[0].messages[0].json_hash);
        assert_ne!(m.json_hash, 0);
        let img = &p.requests[0].messages[1];
        let kinds: Vec<BlockKind> = img.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, vec![BlockKind::Text, BlockKind::Media]);
        assert_eq!(locate(&p, 1, "/messages/1/content/1").map(|p| p.line), Some(12));
    }

    #[test]
    fn a_function_call_line_is_a_tool_call_and_an_empty_message_alternates() {
        let t = "TO LLM 2025-03-14T09:26:53\n-------\nUSER go\n-------\nASSISTANT Function Call: {'name': 'replace_lines', 'arguments': '{\"a\": 1}'}\n-------\n-------\nASSISTANT Ok.\n";
        let p = parse(t);
        let m = &p.requests[0].messages;
        assert_eq!(m.len(), 4);
        assert_eq!(m[1].blocks.len(), 1);
        assert_eq!(
            (m[1].blocks[0].kind, m[1].blocks[0].tool_name.as_deref()),
            (BlockKind::ToolCall, Some("replace_lines"))
        );
        assert_eq!(m[1].blocks[0].pointer, "/messages/1/function_call");
        // No line: the role the log does not give alternates with the one before.
        assert_eq!((m[2].role, m[2].blocks[0].text.as_ref()), (Role::User, ""));
        assert_eq!(locate(&p, 1, "/messages/2").map(|p| p.line), Some(6));
    }

    #[test]
    fn garbage_lines_are_bad_lines_and_reading_goes_on() {
        let t = "some preface\nTO LLM 2025-03-14T09:26:53\nstray\n-------\nUSER hi\nnot tagged\nASSISTANT wrong role\n-------\nnonsense\nLLM RESPONSE 2025-03-14T09:26:58\nASSISTANT ok\nbad reply line\nLLM RESPONSE 2025-03-14T09:26:59\nASSISTANT again\nTO LLM 2025-03-14T09:27:00\n-------\nUSER \u{0}x\nUSER fine\n";
        let p = parse(t);
        assert_eq!(
            reasons(&p),
            vec![
                (1, "text before the first `TO LLM <timestamp>` header".to_string()),
                (3, "a line of a `TO LLM` block before its first `-------` message line".to_string()),
                (6, "a line of a USER message without its `USER ` tag".to_string()),
                (7, "a line of a USER message without its `USER ` tag".to_string()),
                (9, "a message line without a role tag (`SYSTEM `, `USER `, `ASSISTANT `, …)".to_string()),
                (12, "a line of an `LLM RESPONSE` block without the `ASSISTANT ` tag".to_string()),
                (13, "an `LLM RESPONSE` block with no `TO LLM` block of its own before it".to_string()),
                (17, "NUL byte at column 6".to_string()),
            ]
        );
        assert_eq!(p.requests.len(), 2);
        assert_eq!(messages(&p, 0), vec![("user", "user", "/messages/0".into(), "hi".into())]);
        assert_eq!(messages(&p, 1), vec![("user", "user", "/messages/0".into(), "fine".into())]);
        // Invalid UTF-8 is a bad line too.
        let p = parse_text("h", b"TO LLM 2025-03-14T09:26:53\n-------\nUSER \xff\xfe\nUSER ok\n");
        assert_eq!(reasons(&p), vec![(3, "invalid UTF-8 at byte 6 (Aider writes the file as UTF-8)".to_string())]);
    }

    #[test]
    fn a_block_cut_mid_line_is_not_loaded_but_a_block_without_reply_is() {
        let cut = "TO LLM 2025-03-14T09:26:53\n-------\nUSER hi\nLLM RESPONSE 2025-03-14T09:26:58\nASSISTANT ok\nTO LLM 2025-03-14T09:27:00\n-------\nUSER hi\n-------\nASSIS";
        let p = parse(cut);
        assert_eq!(p.requests.len(), 1);
        assert_eq!(
            reasons(&p),
            vec![(
                10,
                "the file ends mid-line in the `TO LLM` block of line 6 (a write cut short): that block is not checked"
                    .to_string()
            )]
        );
        let unanswered = "TO LLM 2025-03-14T09:26:53\n-------\nUSER hi\n";
        let p = parse(unanswered);
        assert_eq!((p.requests.len(), p.replies.clone()), (1, vec![None]));
        assert!(p.bad.kept.is_empty());
    }

    #[test]
    fn detection_needs_a_dated_to_llm_header_first() {
        assert!(sniff(b"\n\nTO LLM 2025-03-14T09:26:53\n-------\n"));
        assert!(sniff(b"\xEF\xBB\xBFTO LLM 2025-03-14T09:26:53\r\n"));
        assert!(sniff(b"TO LLM 2025-03-14"));
        for no in [
            &b"TO LLM yesterday\n"[..],
            b"LLM RESPONSE 2025-03-14T09:26:58\n",
            b"TO LLM\n",
            b"TO LLM 2025-3-14\n",
            b"{\"messages\": []}\n",
            b"interactions:\n",
            b"",
            b"\xff\xfe",
        ] {
            assert!(!sniff(no), "{:?}", String::from_utf8_lossy(no));
        }
    }

    #[test]
    fn no_input_panics() {
        // Every prefix of a file with each shape in it, and odd bytes.
        let all = format!(
            "{TWO}TO LLM 2025-03-14T09:28:00\n-------\nUSER type: text\nUSER text: a\nb\n-------\nASSISTANT Function Call: {{'name\n\u{0}\r\r\n"
        );
        for k in 0..all.len() {
            if all.is_char_boundary(k) {
                let _ = parse(&all[..k]);
            }
        }
        for junk in [&b"\r"[..], b"\n\n\n", b"-------\n", b"TO LLM 2025-01-01\n-------\n-------\n", b"USER type:\n"] {
            let _ = parse_text("h", junk);
        }
    }
}
