//! `ctxlint show`: the contexts as the model saw them — per request of a
//! stream, or per step (model call) of a transcript.
//!
//! A request lists, in cache order, its per-request system slots (one row per
//! slot) and its messages. A transcript step lists the context the runtime
//! would have sent for that model call ([`crate::analysis::Tree::step_context`]),
//! after the session-level base instructions when the format has them
//! (Codex). Steps are numbered 0.. in write order; a model call written as
//! several entries (Claude Code, Codex: one [`Entry::call_group`]) is one step,
//! at its first entry.
//!
//! Texts are masked ([`crate::text::mask_secrets`]) here. A transcript keeps
//! only a prefix of assistant, thinking and tool-result texts
//! ([`Block::has_full_text`]): [`ShownBlock::truncated`] says so and
//! [`ShownBlock::bytes`] gives the full length.
//!
//! Shape (JSON renderer: `report::show::json`):
//! ```text
//! Shown { path, format, transcript: bool, notes: Vec<String>, total, requests: Vec<Unit> }
//! Unit { index, pointer: Option<String>,          // a request's body pointer
//!        line: Option<u32>, entry_id: Option<String>,  // a step's model-call entry
//!        model: Option<String>, tools: Option<Tools>, messages: Vec<ShownMessage> }
//! ShownMessage { index, role, kind, pointer, line, entry_id, bytes, hash, first_line, blocks }
//! ShownBlock { kind, pointer, bytes, truncated, text, tool_name, tool_id }  // text: selected request only
//! ```

use crate::analysis::Tree;
use crate::model::*;
use crate::text::{excerpt, mask_secrets};

/// Characters of a message's first line in the table.
pub const FIRST_LINE_CHARS: usize = 60;

/// The `tools` value a request sends.
#[derive(Debug, Clone)]
pub struct Tools {
    /// Pointer of `tools`.
    pub pointer: String,
    /// Bytes of its canonical JSON.
    pub bytes: usize,
    /// Number of tools, when it is an array.
    pub count: Option<usize>,
    /// Short hash.
    pub hash: String,
}

/// One block of a shown message.
#[derive(Debug, Clone)]
pub struct ShownBlock {
    /// Block kind (`text`, `thinking`, `tool call`, …).
    pub kind: &'static str,
    /// Its JSON Pointer.
    pub pointer: String,
    /// Length in bytes of the full text.
    pub bytes: usize,
    /// Only a prefix of the text is kept (transcripts: assistant and tool-result texts).
    pub truncated: bool,
    /// The kept text, secrets masked.
    pub text: String,
    /// Tool name (calls, and results when recorded).
    pub tool_name: Option<String>,
    /// Tool call id (calls and results).
    pub tool_id: Option<String>,
}

/// One message (or system slot) of a request or step.
#[derive(Debug, Clone)]
pub struct ShownMessage {
    /// 0-based position in the request or step context.
    pub index: usize,
    /// Role it is sent with.
    pub role: &'static str,
    /// What it is: `system`, `system slot`, `user`, `assistant`, `tool call`,
    /// `assistant + tool call`, `tool result`, `tool results`, `context carrier`, …
    pub kind: String,
    /// JSON Pointer of the message (or slot).
    pub pointer: String,
    /// 1-based line of the transcript entry (transcripts only).
    pub line: Option<u32>,
    /// Transcript entry id, if any.
    pub entry_id: Option<String>,
    /// Total bytes of its texts.
    pub bytes: usize,
    /// Short hash (8 hex digits) of its blocks' kinds, tool ids and texts.
    pub hash: String,
    /// The first non-empty line, masked and truncated to [`FIRST_LINE_CHARS`].
    pub first_line: String,
    /// Its blocks.
    pub blocks: Vec<ShownBlock>,
}

/// One request, or one step of a transcript.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Request index (cassettes, exchange logs: counting skipped exchanges) or step number.
    pub index: usize,
    /// The request's body pointer in its file (streams).
    pub pointer: Option<String>,
    /// The request's file (streams).
    pub path: Option<String>,
    /// 1-based line of the model-call entry (steps) or of the request (exchange logs).
    pub line: Option<u32>,
    /// Id of the model-call entry (steps).
    pub entry_id: Option<String>,
    /// Model that answered (steps), when recorded.
    pub model: Option<String>,
    /// The `tools` the request sends.
    pub tools: Option<Tools>,
    /// Messages in order.
    pub messages: Vec<ShownMessage>,
}

/// What `show` prints for one input.
#[derive(Debug, Clone)]
pub struct Shown {
    /// Path as given.
    pub path: String,
    /// Format id.
    pub format: FormatId,
    /// A transcript (units are steps) rather than a stream (units are requests).
    pub transcript: bool,
    /// Facts worth saying (skipped exchanges, malformed lines, truncated texts).
    pub notes: Vec<String>,
    /// How many requests or steps the input has.
    pub total: usize,
    /// The requests or steps shown: all of them, or the selected one.
    pub requests: Vec<Unit>,
}

/// "3 requests: 0–2" / "2 requests: 0, 4" / "no requests".
pub fn describe_indices(idx: impl Iterator<Item = usize>, what: &str) -> String {
    let v: Vec<usize> = idx.collect();
    let plural = if v.len() == 1 { what.to_string() } else { format!("{what}s") };
    match v.as_slice() {
        [] => format!("no {what}s"),
        [x] => format!("1 {what}: {x}"),
        _ if v.windows(2).all(|w| w[1] == w[0] + 1) => format!("{} {plural}: {}–{}", v.len(), v[0], v[v.len() - 1]),
        _ if v.len() <= 12 => {
            format!("{} {plural}: {}", v.len(), v.iter().map(usize::to_string).collect::<Vec<_>>().join(", "))
        }
        _ => format!(
            "{} {plural}: {}, … {}",
            v.len(),
            v[..6].iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            v[v.len() - 1]
        ),
    }
}

/// Builds what `show` prints for an input: every request or step (block
/// texts left empty: the table needs only sizes, first lines and hashes), or
/// only request or step `only`, with its texts. A missing `only` is a usage
/// error naming the requests or steps that exist.
pub fn show(input: &Input, only: Option<usize>) -> crate::Result<Shown> {
    let mut shown = Shown {
        path: input.path.clone(),
        format: input.format,
        transcript: false,
        notes: Vec::new(),
        total: 0,
        requests: Vec::new(),
    };
    if input.skipped > 0 {
        shown.notes.push(format!("{} exchange(s) skipped: their bodies match no request format", input.skipped));
    }
    if !input.bad_lines.is_empty() {
        shown.notes.push(format!("{} malformed line(s) are not shown (run `ctxlint check`)", input.bad_lines.len()));
    }
    let missing = |n: usize, what: &str, idx: &mut dyn Iterator<Item = usize>| {
        crate::Error::Usage(format!("{}: no {what} {n} (it has {})", input.path, describe_indices(idx, what)))
    };
    match &input.body {
        Body::Stream(s) => {
            shown.total = s.requests.len();
            shown.requests = match only {
                Some(n) => match s.requests.iter().find(|r| r.index == n) {
                    Some(r) => vec![request_unit(r, true)],
                    None => return Err(missing(n, "request", &mut s.requests.iter().map(|r| r.index))),
                },
                None => s.requests.iter().map(|r| request_unit(r, false)).collect(),
            };
        }
        Body::Transcript(t) => {
            shown.transcript = true;
            let entries = crate::analysis::step_entries(t);
            shown.total = entries.len();
            let tree = Tree::build(t);
            shown.requests = match only {
                Some(n) => match entries.get(n) {
                    Some(&e) => vec![step_unit(t, &tree, n, e, true)],
                    None => return Err(missing(n, "step", &mut (0..entries.len()))),
                },
                None => entries.iter().enumerate().map(|(n, &e)| step_unit(t, &tree, n, e, false)).collect(),
            };
            let cut = t
                .entries
                .iter()
                .filter_map(|e| t.packed(e))
                .any(|m| m.blocks().any(|b| b.text().len() as u32 != b.text_len));
            if cut {
                shown.notes.push("ctxlint keeps only a prefix of the assistant, thinking, tool-call and tool-result texts of a transcript: such texts end with \"… (N bytes; the first K are kept)\" (or \"… (N bytes, not kept)\")".into());
            }
        }
    }
    Ok(shown)
}

fn request_unit(r: &Request, with_text: bool) -> Unit {
    let mut messages = Vec::new();
    for sl in &r.slots {
        let parts: Vec<&Block> = sl.parts.iter().collect();
        messages.push(message_row(
            messages.len(),
            "system",
            format!("{} slot", sl.kind.as_str()),
            sl.pointer.clone(),
            None,
            None,
            &parts,
            with_text,
        ));
    }
    for m in &r.messages {
        messages.push(from_message(messages.len(), m, None, None, with_text));
    }
    let tools = r.tools.as_ref().map(|(p, h, text)| Tools {
        pointer: p.clone(),
        bytes: text.len(),
        count: serde_json::from_str::<serde_json::Value>(text).ok().and_then(|v| v.as_array().map(Vec::len)),
        hash: format!("{:08x}", h >> 32),
    });
    Unit {
        index: r.index,
        pointer: Some(r.pointer.clone()),
        path: Some(r.path.to_string()),
        line: r.line,
        entry_id: None,
        model: None,
        tools,
        messages,
    }
}

fn step_unit(t: &Transcript, tree: &Tree, n: usize, i: u32, with_text: bool) -> Unit {
    let e = &t.entries[i as usize];
    let mut messages = Vec::new();
    if let Some(m) = &t.base_instructions {
        let line = Some(t.base_instructions_line).filter(|l| *l > 0);
        messages.push(from_message(0, m, line, None, with_text));
    }
    for x in tree.step_context(t, i) {
        let xe = &t.entries[x as usize];
        if let Some(m) = &t.message(xe) {
            messages.push(from_message(messages.len(), m, Some(xe.line), xe.id.as_deref(), with_text));
        }
    }
    let model = t.message(e).and_then(|m| m.assistant).and_then(|a| a.model).map(String::from);
    Unit {
        index: n,
        pointer: None,
        path: None,
        line: Some(e.line),
        entry_id: e.id.as_deref().map(str::to_string),
        model,
        tools: None,
        messages,
    }
}

fn block(b: &Block, with_text: bool) -> ShownBlock {
    ShownBlock {
        kind: b.kind.as_str(),
        pointer: b.pointer.to_string(),
        bytes: b.text_len as usize,
        truncated: !b.has_full_text(),
        text: if with_text { mask_secrets(&b.text) } else { String::new() },
        tool_name: b.tool_name.as_deref().map(str::to_string),
        tool_id: b.tool_id.as_deref().map(str::to_string),
    }
}

fn kind_of(m: &Message) -> String {
    let calls = m.blocks.iter().filter(|b| b.kind == BlockKind::ToolCall).count();
    if m.kind == MessageKind::Assistant && calls > 0 {
        let other = m.blocks.iter().any(|b| b.kind == BlockKind::Text && !b.is_blank());
        return if other { "assistant + tool call".into() } else { "tool call".into() };
    }
    m.kind.as_str().to_string()
}

fn from_message(index: usize, m: &Message, line: Option<u32>, entry_id: Option<&str>, with_text: bool) -> ShownMessage {
    let blocks: Vec<&Block> = m.blocks.iter().collect();
    message_row(
        index,
        m.role.as_str(),
        kind_of(m),
        m.pointer.to_string(),
        line,
        entry_id.map(str::to_string),
        &blocks,
        with_text,
    )
}

#[allow(clippy::too_many_arguments)]
fn message_row(
    index: usize,
    role: &'static str,
    kind: String,
    pointer: String,
    line: Option<u32>,
    entry_id: Option<String>,
    src: &[&Block],
    with_text: bool,
) -> ShownMessage {
    let bytes = src.iter().map(|b| b.text_len as usize).sum();
    let mut id = Vec::with_capacity(src.len() * 24);
    for b in src {
        id.extend_from_slice(b.kind.as_str().as_bytes());
        id.push(0);
        id.extend_from_slice(b.tool_id.as_deref().unwrap_or("").as_bytes());
        id.push(0);
        id.extend_from_slice(&b.text_hash.to_le_bytes());
        id.extend_from_slice(&b.text_len.to_le_bytes());
    }
    let hash = format!("{:08x}", crate::hash::hash_bytes(&id) >> 32);
    let blocks = src.iter().map(|b| block(b, with_text)).collect();
    ShownMessage { index, role, kind, pointer, line, entry_id, bytes, hash, first_line: first_line(src), blocks }
}

/// The first non-empty line of a message, masked and truncated: a tool call
/// shows `name(arguments`, thinking is marked `[thinking]`.
fn first_line(blocks: &[&Block]) -> String {
    for b in blocks {
        if b.kind == BlockKind::ToolCall {
            let args = b.text.trim();
            return excerpt(&format!("{}({args}", b.tool_name.as_deref().unwrap_or("?")), FIRST_LINE_CHARS);
        }
        if let Some(l) = b.text.lines().map(str::trim).find(|l| !l.is_empty()) {
            let l = if b.kind == BlockKind::Thinking { format!("[thinking] {l}") } else { l.to_string() };
            return excerpt(&l, FIRST_LINE_CHARS);
        }
    }
    match blocks.first() {
        Some(b) if b.kind != BlockKind::Text => format!("[{}]", b.kind.as_str()),
        _ if blocks.iter().any(|b| !b.has_full_text() && b.text.trim().is_empty()) => "(text not kept)".into(),
        _ if blocks.iter().any(|b| b.text_len > 0) => "(blank)".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::parse_body;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn request_rows_in_cache_order_with_slots_first() {
        let r = parse_body(
            "anthropic-messages",
            &json!({"system":"You are terse.","tools":[{"name":"x"}],"messages":[
                {"role":"user","content":[{"type":"text","text":"\n\nmy key sk-ant-api03-AAAABBBBCCCCDDDDEEEE"}]},
                {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{"a":1}}]},
                {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}),
            &Arc::from("r.json"),
            0,
            "",
        )
        .expect("parses");
        let u = request_unit(&r, true);
        let kinds: Vec<&str> = u.messages.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, vec!["system slot", "user", "tool call", "tool results"]);
        assert_eq!(u.messages[1].first_line, "my key sk-a****");
        assert_eq!(u.messages[2].first_line, "x({\"a\":1}");
        assert_eq!(u.tools.as_ref().and_then(|t| t.count), Some(1));
        assert_eq!(u.messages[0].pointer, "/system");
        assert_eq!(u.messages[2].blocks[0].pointer, "/messages/1/content/0");
    }

    #[test]
    fn indices_are_described() {
        assert_eq!(describe_indices([0, 1, 2].into_iter(), "request"), "3 requests: 0–2");
        assert_eq!(describe_indices([0, 4].into_iter(), "request"), "2 requests: 0, 4");
        assert_eq!(describe_indices(std::iter::empty(), "step"), "no steps");
    }
}
