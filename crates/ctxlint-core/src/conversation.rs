//! Continuity between the requests of a stream (docs/spec.md §1): which earlier
//! request each request is compared with, whether it continues that request's
//! conversation, starts a new one or crosses a compaction boundary, and — for
//! a continuation — what was dropped and where the cache prefix first diverges.
//! `dropped-system-prompt` (CTX201) and `history-rewrite` (CTX202) read the
//! [`Pair`]s computed here; `dup::StreamMemo` reads the [`Link`]s.
//!
//! Terms:
//! - Requests are paired **per endpoint**: request k+1 is compared with the
//!   latest earlier request of the same body format and URL path (when
//!   recorded) — or, when its `previous_response_id` names the recorded
//!   response of an earlier request of that endpoint, with that request.
//! - An **element** is a content block, Responses item, Gemini part,
//!   pydantic-ai part or Bedrock content entry; a Chat message with string
//!   content (or a Responses item) is one element as a whole. Elements are
//!   compared by their canonical JSON hash (`cache_control`, key order and
//!   whitespace ignored) together with their role, after serialisation-only
//!   differences are removed by the loaders: an Anthropic string content
//!   hashes as its one text block, a Chat content list of one plain text part
//!   as the string (`formats::body::single_text_block`); a pydantic-ai system-prompt
//!   part with a `dynamic_ref` is compared by that ref (re-rendered in place by
//!   design).
//! - The **history** is the element list without system/developer messages,
//!   system-prompt parts and the per-request slots.
//! - k+1 **continues** k when it chains to k's response (`previous_response_id`
//!   matching k's recorded response id, or any `previous_response_id` when k's
//!   response was not recorded; the same Responses `conversation`), or when
//!   both histories begin with the same element. Different conversation ids
//!   ([`Request::conversation_id`]) or session ids ([`Request::session_id`]:
//!   Claude Code `metadata.user_id`, an exchange log's session header) mean
//!   different conversations. A history that gains a compaction element
//!   (Responses `compaction` item, Anthropic compaction block) or opens with a
//!   summary message crosses a **compaction boundary**: not compared.

use crate::model::*;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// How a request relates to the request it is paired with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// No earlier request on the same endpoint.
    First,
    /// Continues request `prev`'s conversation. `chained`: through a
    /// server-held prefix (`previous_response_id`, Responses `conversation`),
    /// so only the per-request slots are re-sent and compared.
    Continues {
        /// Index (in the stream's request list) of the paired request.
        prev: usize,
        /// Chained through a server-held prefix.
        chained: bool,
    },
    /// Starts a new conversation (not compared with `prev`).
    NewConversation {
        /// Index of the paired request.
        prev: usize,
    },
    /// Crosses a compaction boundary after `prev` (not compared).
    Compaction {
        /// Index of the paired request.
        prev: usize,
    },
    /// Continues the conversation of `prev`, whose model call the provider or
    /// the runtime refused ([`Outcome::PromptError`], recorded by an OpenClaw
    /// trajectory's `model.completed`): this request is the runtime's recovery
    /// (a compacted, trimmed or otherwise changed prompt), so the pair is not
    /// compared; the conversation goes on.
    AfterFailure {
        /// Index of the paired request.
        prev: usize,
    },
    /// Continues the conversation of `prev` (an earlier request whose history
    /// it shares) but is another agent's (docs/spec.md §1 *Lanes*): it shares neither
    /// the tool set nor the system prompt with any request of that
    /// conversation, so it starts its own lane and is compared with nothing.
    NewLane {
        /// Index of the latest earlier request of the conversation it continues.
        prev: usize,
    },
}

impl Link {
    /// The paired request, if any.
    pub fn prev(self) -> Option<usize> {
        match self {
            Link::First => None,
            Link::Continues { prev, .. }
            | Link::NewConversation { prev }
            | Link::Compaction { prev }
            | Link::AfterFailure { prev }
            | Link::NewLane { prev } => Some(prev),
        }
    }
}

/// One element of a request (see the module docs).
#[derive(Debug, Clone)]
pub struct Element<'a> {
    /// Comparison key (role + canonical hash, or the dynamic ref).
    pub key: u64,
    /// Pointer of the element.
    pub pointer: &'a str,
    /// A system/developer message or system-prompt part.
    pub system: bool,
    /// A compaction element (Responses `compaction` item, Anthropic compaction block).
    pub compaction: bool,
    /// Index of the message in [`Request::messages`].
    pub msg: usize,
    /// Index of the block, or `None` when the message is the element.
    pub block: Option<usize>,
}

impl Element<'_> {
    /// The element's text (a message element: its blocks' texts joined).
    pub fn text(&self, r: &Request) -> String {
        let m = &r.messages[self.msg];
        match self.block {
            Some(b) => m.blocks[b].text.to_string(),
            None => m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<_>>().join("\n"),
        }
    }
    /// A short description: role and block kind.
    pub fn describe(&self, r: &Request) -> String {
        let m = &r.messages[self.msg];
        if r.body_format == crate::formats::pydantic_ai::ID {
            let kind = m.blocks.first().map(|b| b.kind).unwrap_or(BlockKind::Other);
            return match (m.kind, kind) {
                (MessageKind::SystemPrompt, _) => "system-prompt part".into(),
                (MessageKind::UserTurn, _) => "user-prompt part".into(),
                (MessageKind::ToolResult, _) => "tool-return part".into(),
                (_, k) => format!("{} {} part", m.role.as_str(), k.as_str()),
            };
        }
        match self.block {
            // "tool result block", not "tool tool result block", for a role-`tool` message.
            Some(b) => match (m.role.as_str(), m.blocks[b].kind.as_str()) {
                (role, kind) if kind.starts_with(role) => format!("{kind} block"),
                (role, kind) => format!("{role} {kind} block"),
            },
            None => match m.blocks.as_slice() {
                [b] if b.kind != BlockKind::Text => format!("{} item", b.kind.as_str()),
                _ => format!("{} message", m.role.as_str()),
            },
        }
    }
}

/// Whether `text` (a prompt `b` no longer sends in its slot) is sent nearly
/// whole in a user or system text block that `b` sends and `a` did not,
/// under another framing: a part of it of at least two thirds of its length
/// (and 64 bytes), cut at one of the 8 word boundaries nearest its start or
/// its end, is in that block.
fn relocated(a: &Request, b: &Request, text: &str) -> bool {
    let most = (text.len() * 2).div_ceil(3).max(64);
    if text.len() < most {
        return false;
    }
    let old: HashSet<u64> = a.messages.iter().flat_map(|m| m.blocks.iter()).map(|x| x.text_hash).collect();
    let fresh: Vec<&str> = b
        .messages
        .iter()
        .filter(|m| m.role != Role::Assistant && m.result.is_none())
        .flat_map(|m| m.blocks.iter())
        .filter(|x| x.kind == BlockKind::Text && x.text.len() >= most && !old.contains(&x.text_hash))
        .map(|x| &*x.text)
        .collect();
    if fresh.is_empty() {
        return false;
    }
    let words = [' ', '\n'];
    let mut parts: Vec<&str> = vec![text];
    parts.extend(text.match_indices(words).take(8).map(|(i, _)| &text[i + 1..]).filter(|p| p.len() >= most));
    parts.extend(text.rmatch_indices(words).take(8).map(|(i, _)| &text[..i]).filter(|p| p.len() >= most));
    parts.iter().any(|p| fresh.iter().any(|x| x.len() >= p.len() && x.contains(p)))
}

/// Every system-prompt text a request sends, trimmed: slot parts (and whole
/// slots), system messages and parts, and `<system>…</system>` segments of
/// other messages (how some runtimes render a mid-run system prompt).
fn system_texts(r: &Request) -> HashSet<String> {
    let mut out = HashSet::new();
    for sl in &r.slots {
        for p in &sl.parts {
            out.insert(p.text.trim().to_string());
        }
        out.insert(sl.parts.iter().map(|p| p.text.as_ref()).collect::<Vec<_>>().join("\n").trim().to_string());
    }
    for m in &r.messages {
        let system = m.role.is_system() || m.kind == MessageKind::SystemPrompt;
        for b in &m.blocks {
            if system {
                out.insert(b.text.trim().to_string());
            } else if b.kind == BlockKind::Text {
                let mut rest: &str = &b.text;
                while let Some(i) = rest.find("<system>") {
                    let after = &rest[i + 8..];
                    let Some(j) = after.find("</system>") else { break };
                    out.insert(after[..j].trim().to_string());
                    rest = &after[j + 9..];
                }
            }
        }
        if system {
            out.insert(m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<_>>().join("\n").trim().to_string());
        }
    }
    out.remove("");
    out
}

fn mix(a: u64, b: u64) -> u64 {
    crate::hash::hash_bytes(&[a.to_le_bytes(), b.to_le_bytes()].concat())
}

fn role_code(r: Role) -> u64 {
    match r {
        Role::System => 1,
        Role::Developer => 2,
        Role::User => 3,
        Role::Assistant => 4,
        Role::Tool => 5,
    }
}

/// Every element of a request in order, system ones included.
pub fn elements(r: &Request) -> Vec<Element<'_>> {
    let mut out = Vec::new();
    for (i, m) in r.messages.iter().enumerate() {
        let system = m.role.is_system() || m.kind == MessageKind::SystemPrompt;
        let dynamic =
            m.dynamic_ref.as_deref().filter(|_| system).map(|d| crate::hash::hash_str(&format!("dynamic_ref\0{d}")));
        if m.json_hash != 0 || dynamic.is_some() {
            out.push(Element {
                key: dynamic.unwrap_or_else(|| mix(role_code(m.role), m.json_hash)),
                pointer: &m.pointer,
                system,
                compaction: m.kind == MessageKind::CompactionSummary
                    || m.blocks.iter().any(|b| b.kind == BlockKind::Compaction),
                msg: i,
                block: None,
            });
            continue;
        }
        for (j, b) in m.blocks.iter().enumerate() {
            out.push(Element {
                key: mix(role_code(m.role), if b.json_hash != 0 { b.json_hash } else { b.text_hash }),
                pointer: &b.pointer,
                system,
                compaction: b.kind == BlockKind::Compaction,
                msg: i,
                block: Some(j),
            });
        }
    }
    out
}

/// The elements of a request as its history is compared with another
/// request's ([`links`], [`compare`]): floating context left out (it moves
/// down as the history grows: [`crate::model::Floating`]), and a message
/// with a reminder appended keyed as if sent without it.
pub fn history_elements(r: &Request) -> Vec<Element<'_>> {
    let mut v = elements(r);
    let f = &r.floating;
    if !f.messages.is_empty() {
        v.retain(|e| !f.is_floating(e.msg));
    }
    if let Some((mi, _, key)) = f.appended {
        if let Some(m) = r.messages.get(mi) {
            let k = mix(role_code(m.role), key);
            for e in v.iter_mut().filter(|e| e.msg == mi && e.block.is_none()) {
                e.key = k;
            }
        }
    }
    v
}

/// Framings that open a history with a summary of an earlier, compacted one.
const SUMMARY_OPENINGS: &[&str] = &[
    "The conversation history before this point was compacted into the following summary:",
    "This session is being continued from a previous conversation",
    "Another language model started to solve this problem and produced a summary",
    "<summary>",
];

fn is_summary(r: &Request, e: &Element) -> bool {
    let m = &r.messages[e.msg];
    matches!(m.kind, MessageKind::CompactionSummary) || {
        let t = e.text(r);
        let t = t.trim_start();
        SUMMARY_OPENINGS.iter().any(|p| t.starts_with(p))
    }
}

/// Whether two requests are paired by endpoint (same body format and URL path when recorded).
fn same_endpoint(a: &Request, b: &Request) -> bool {
    a.body_format == b.body_format
        && match (&a.endpoint, &b.endpoint) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
}

/// What decides a request's lane (docs/spec.md §1 *Lanes*): its history keys, its
/// tool names and its standing system prompt.
struct Agent {
    /// History element keys (system elements and floating context left out).
    hist: Vec<u64>,
    /// Tool names, sorted and deduplicated (empty: no tools sent); shared by
    /// the requests that send the same tools ([`Shared`]).
    tools: std::sync::Arc<[String]>,
    /// The standing system prompt: the per-request slots' texts, then the
    /// system messages and parts before the first history element.
    system: std::sync::Arc<str>,
    /// Hash of `system`.
    system_hash: u64,
    /// Names of the tools called in the history (sorted, deduplicated).
    called: Vec<String>,
    /// Per element of `hist`: whether it belongs to a user turn.
    hist_user: Vec<bool>,
    /// The request ends with a user message asking for a summary of the
    /// conversation before it ([`asks_for_summary`]).
    summary_request: bool,
}

/// One copy of the system prompts and tool lists of a stream's [`Agent`]s:
/// every request of a conversation sends the same ones again (a 24 KB system
/// prompt per request was a second copy of the file).
#[derive(Default)]
struct Shared {
    systems: HashMap<u64, Vec<std::sync::Arc<str>>>,
    tools: HashMap<u64, Vec<std::sync::Arc<[String]>>>,
}

impl Shared {
    fn system(&mut self, hash: u64, s: String) -> std::sync::Arc<str> {
        let bucket = self.systems.entry(hash).or_default();
        if let Some(held) = bucket.iter().find(|h| ***h == *s) {
            return held.clone();
        }
        let new: std::sync::Arc<str> = s.into();
        bucket.push(new.clone());
        new
    }

    fn tools(&mut self, r: &Request) -> std::sync::Arc<[String]> {
        let Some(t) = r.tools.as_ref() else { return std::sync::Arc::from(Vec::new()) };
        let names = tool_names(&t.2);
        let bucket = self.tools.entry(crate::hash::hash_str(&t.2)).or_default();
        if let Some(held) = bucket.iter().find(|h| ***h == *names) {
            return held.clone();
        }
        let new: std::sync::Arc<[String]> = names.into();
        bucket.push(new.clone());
        new
    }
}

impl Agent {
    fn of(r: &Request, shared: &mut Shared) -> Agent {
        let els = history_elements(r);
        let hist: Vec<u64> = els.iter().filter(|e| !e.system).map(|e| e.key).collect();
        let mut system = String::new();
        for sl in &r.slots {
            for p in &sl.parts {
                if !p.text.trim().is_empty() {
                    system.push_str(p.text.trim());
                    system.push('\n');
                }
            }
        }
        for m in &r.messages {
            if !(m.role.is_system() || m.kind == MessageKind::SystemPrompt) {
                break;
            }
            for b in &m.blocks {
                if !b.text.trim().is_empty() {
                    system.push_str(b.text.trim());
                    system.push('\n');
                }
            }
        }
        let tools = shared.tools(r);
        let system = system.trim_end().to_string();
        let system_hash = crate::hash::hash_str(&system);
        let system = shared.system(system_hash, system);
        let mut called: Vec<String> = r
            .messages
            .iter()
            .flat_map(|m| &m.blocks)
            .filter(|b| b.kind == crate::model::BlockKind::ToolCall)
            .filter_map(|b| b.tool_name.as_deref().map(str::to_string))
            .collect();
        called.sort();
        called.dedup();
        let hist_user: Vec<bool> =
            els.iter().filter(|e| !e.system).map(|e| r.messages[e.msg].kind == MessageKind::UserTurn).collect();
        let summary_request = asks_for_summary(r);
        Agent { hist, tools, system, system_hash, called, hist_user, summary_request }
    }
}

/// Whether a request ends with a user message that asks for a summary of
/// the conversation above it: LangGraph's summarisation how-to and langmem's
/// `SummarizationNode` ("Create a summary of the conversation above:", "This
/// is summary of the conversation to date: … Extend the summary by taking
/// into account the new messages above:").
fn asks_for_summary(r: &Request) -> bool {
    let Some(m) = r.messages.last() else { return false };
    if m.kind != MessageKind::UserTurn || m.role.is_system() {
        return false;
    }
    let text: String = m
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Text)
        .map(|b| b.text.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    // (An instruction, not a person's question: "…summary of the
    // conversation so far?" typed in a chat is a turn of it.)
    !text.trim_end().ends_with('?')
        && text.contains("summary")
        && ["conversation above", "messages above", "conversation so far", "conversation to date"]
            .iter()
            .any(|p| text.contains(p))
}

/// The names of the tools in a `tools` value (its canonical JSON text): Chat
/// `{type, function: {name}}`, Anthropic and Responses `{name}`, Gemini
/// `{functionDeclarations: [{name}]}`, Bedrock `{toolSpec: {name}}` (or a
/// `toolConfig` holding `tools`). A tool without a name counts by its `type`
/// (`web_search_preview`, `code_execution`).
pub fn tool_names(tools_json: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => {
                if let Some(d) = o.get("functionDeclarations").or_else(|| o.get("function_declarations")) {
                    walk(d, out);
                    return;
                }
                if let Some(t) = o.get("tools") {
                    walk(t, out);
                    return;
                }
                let name = o
                    .get("function")
                    .or_else(|| o.get("toolSpec"))
                    .and_then(|f| f.get("name"))
                    .or_else(|| o.get("name"))
                    .or_else(|| o.get("type"))
                    .and_then(serde_json::Value::as_str);
                if let Some(n) = name {
                    out.push(n.to_string());
                } else if let Some(k) = o.keys().next() {
                    // Gemini built-in tools: `{"googleSearch": {}}`, `{"codeExecution": {}}`.
                    out.push(k.clone());
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(tools_json) {
        walk(&v, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// Whether two standing system prompts are the same agent's: equal, or
/// sharing a common prefix of at least half of the shorter one (a prompt
/// that grew, or whose live data changed). Both must be sent.
fn related_prompts(a: &Agent, b: &Agent) -> bool {
    if a.system.is_empty() || b.system.is_empty() {
        return false;
    }
    if a.system_hash == b.system_hash && a.system == b.system {
        return true;
    }
    let common = common_prefix(a.system.as_bytes(), b.system.as_bytes());
    2 * common >= a.system.len().min(b.system.len())
}

/// How many leading items `a` and `b` share. Compared a block at a time
/// (slice equality: `memcmp` for bytes and integers), then item by item in
/// the block that differs: system prompts of 8 KB are compared for every
/// candidate predecessor of every request.
fn common_prefix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n].iter().zip(&b[i..n]).take_while(|(x, y)| x == y).count()
}

/// Whether two requests are of the same agent (docs/spec.md §1 *Lanes*): system
/// prompts equal or sharing half of the shorter, or the same tool set by
/// names — but two non-empty tool sets without a common tool need equal
/// prompts, and when one of them sends no system prompt, one tool set
/// holding the other's (grown by a tool search, or no longer sent) is the
/// same agent's. An empty tool set is no evidence on its own when both requests
/// send system prompts and these are unrelated (two agents without tools —
/// an essay writer and its critic — are told apart by their prompts); when
/// one of them sends no system prompt, equal tool sets (none included) make
/// them one agent, so a request that merely lost its system prompt is still
/// compared (and the drop reported).
fn same_agent(a: &Agent, b: &Agent) -> bool {
    // Two tool sets that share no tool are two agents unless their prompts are
    // equal (a retry that swaps the tool set): agents built from one prompt
    // template (LangGraph's multi-agent collaboration: "You are a helpful AI
    // assistant, collaborating with other assistants … You have access to the
    // following tools: {tool_names}") share most of their prompt.
    let disjoint =
        !a.tools.is_empty() && !b.tools.is_empty() && a.tools.iter().all(|t| b.tools.binary_search(t).is_err());
    if disjoint {
        return !a.system.is_empty() && a.system_hash == b.system_hash && a.system == b.system;
    }
    if !a.system.is_empty() && !b.system.is_empty() {
        // A handoff: the request whose history called the other's
        // `transfer_to_…` tool, with other instructions and none of the tools,
        // is the agent the handoff called (the OpenAI Agents SDK runs it with
        // its own instructions over the carried history, `src/agents/_run_impl.py`)
        // — even when both prompts open with the same boilerplate ("You are a
        // helpful assistant that can …").
        // (Prompts that share more than an opening — one grown from the
        // other, or live data changed at the end — are one agent's.)
        let common = common_prefix(a.system.as_bytes(), b.system.as_bytes());
        let other_instructions = 4 * common < 3 * a.system.len().min(b.system.len());
        let handoff = |x: &Agent, y: &Agent| {
            x.tools.is_empty()
                && other_instructions
                && x.called.iter().any(|t| t.starts_with("transfer_to_") && y.tools.binary_search(t).is_ok())
        };
        if handoff(a, b) || handoff(b, a) {
            return false;
        }
        return related_prompts(a, b) || (a.tools == b.tools && !a.tools.is_empty());
    }
    // One of them (or both) sends no system prompt: the tool set tells, as
    // long as one holds the other's tools (a tool set that grew by a tool
    // search, or tools no longer sent).
    let within = |x: &[String], y: &[String]| x.iter().all(|t| y.binary_search(t).is_ok());
    if a.system.is_empty() == b.system.is_empty() {
        return within(&a.tools, &b.tools) || within(&b.tools, &a.tools);
    }
    // Only one sends a system prompt. An empty tool set holds nothing: a
    // supervisor without tools and a worker without a system prompt
    // with tools (LangGraph's hierarchical teams) are two agents. Tools in common say
    // one agent; so does a request that sends no tools but whose history
    // calls the other's tools (the same run replayed without its
    // instructions and tools: pydantic-ai's reused tool-call ids) — unless
    // that request is the one with the system prompt: new instructions and
    // none of the tools is the agent a handoff called (the OpenAI Agents
    // SDK's `transfer_to_…` in its history).
    // Neither sends tools: nothing tells them apart, one agent (a chat app
    // that passed back its history without the system prompt: pydantic-ai
    // issue 1032).
    if a.tools.is_empty() && b.tools.is_empty() {
        return true;
    }
    let both = !a.tools.is_empty() && !b.tools.is_empty();
    let replayed = |x: &Agent, y: &Agent| {
        x.tools.is_empty()
            && x.system.is_empty()
            && !y.tools.is_empty()
            && x.called.iter().any(|t| y.tools.binary_search(t).is_ok())
    };
    (both && (within(&a.tools, &b.tools) || within(&b.tools, &a.tools))) || replayed(a, b) || replayed(b, a)
}

/// Whether `new` is `old` followed by more copies of `old`'s prompt, joined
/// by whitespace (`old` itself one copy or several).
fn copies_again(old: &str, new: &str) -> bool {
    let o = old.trim();
    if o.is_empty() {
        return false;
    }
    let (mut rest, mut n) = (new.trim(), 0);
    while let Some(r) = rest.strip_prefix(o) {
        n += 1;
        rest = r.trim_start();
        if rest.is_empty() {
            return n >= 2;
        }
        if !r.starts_with(char::is_whitespace) {
            return false;
        }
    }
    // What is left is a leading whole copy of `old`'s own repeated prompt.
    n >= 1 && o.strip_prefix(rest).is_some_and(|t| t.starts_with(char::is_whitespace))
}

/// Whether `b` is a side call on a copy of `a`'s history rather than `a`'s
/// next request: `a` sends tools and ends with a user turn it has not
/// answered; `b` sends no tools, carries no reply to that turn and ends with
/// a user turn `a` never sent — an instruction put in the turn's place or
/// after it (a summariser: langmem's `SummarizationNode` asks "Create a
/// summary of the conversation above:" on the agent's history before the
/// agent answers; a router).
fn side_call_on(b: &Agent, a: &Agent) -> bool {
    if !b.tools.is_empty() || a.tools.is_empty() {
        return false;
    }
    let (Some(&al), Some(&bl)) = (a.hist.last(), b.hist.last()) else { return false };
    if a.hist_user.last() != Some(&true) || b.hist_user.last() != Some(&true) || a.hist.contains(&bl) {
        return false;
    }
    match b.hist.iter().position(|&k| k == al) {
        None => true,
        Some(p) => b.hist_user.get(p + 1) == Some(&true),
    }
}

/// Whether `b` is a summariser's side call on `a`'s conversation, when
/// neither sends tools: `a` sends a system prompt and `b` none, and `b` ends
/// with a request for a summary of the conversation ([`asks_for_summary`])
/// that `a` never sent. LangGraph's summarisation how-to sends the chat
/// model `SystemMessage("Summary of conversation earlier: …")` and the
/// messages, and the summariser the messages and its request alone (no
/// system prompt): another agent, not the chat's next request without its
/// prompt (docs/spec.md §1 *Lanes*: a summariser side call).
/// The conversation never goes on from it: no later request carries its
/// request for a summary.
fn summariser_on(agents: &[Agent], j: usize, i: usize) -> bool {
    let (b, a) = (&agents[j], &agents[i]);
    let Some(last) = b.hist.last() else { return false };
    b.summary_request
        && !a.summary_request
        && b.tools.is_empty()
        && a.tools.is_empty()
        && b.system.is_empty()
        && !a.system.is_empty()
        && !a.hist.contains(last)
        && !agents[j + 1..].iter().any(|x| x.hist.contains(last))
}

/// Whether `b`'s ids allow it to continue `a`'s conversation.
fn ids_compatible(a: &Request, b: &Request) -> bool {
    let differ = |x: &Option<Box<str>>, y: &Option<Box<str>>| matches!((x, y), (Some(x), Some(y)) if x != y);
    !differ(&a.session_id, &b.session_id) && !differ(&a.conversation_id, &b.conversation_id)
}

/// How many earlier requests of one conversation a request is checked
/// against when looking for its predecessor (the latest ones first).
const MAX_CANDIDATES: usize = 2048;

/// The link of every request of a stream, in order.
///
/// A request is compared with its **predecessor** (docs/spec.md §1 *Lanes*): the
/// latest earlier request of the same endpoint that it continues and that
/// is of the same agent ([`same_agent`]); among several, the one whose
/// history it extends furthest, then the latest. A request that continues
/// an earlier conversation but is of no agent of it starts its own lane
/// ([`Link::NewLane`]). A `previous_response_id` (or a stored Responses
/// conversation) names its predecessor outright.
pub fn links(s: &Stream) -> Vec<Link> {
    let mut out = Vec::with_capacity(s.requests.len());
    let mut last: HashMap<(FormatId, &str), usize> = HashMap::new();
    // Recorded response ids per endpoint: a `previous_response_id` names the
    // request it continues, even when other requests came in between.
    let mut responses: HashMap<(FormatId, &str, &str), usize> = HashMap::new();
    // The latest request of each client session per endpoint: sessions that
    // interleave in one proxy log (two Claude Code windows) are each compared
    // with their own previous request.
    let mut sessions: HashMap<(FormatId, &str, &str), usize> = HashMap::new();
    // Earlier requests per endpoint and first history element (the requests
    // a request may continue), in order.
    let mut by_first: HashMap<(FormatId, &str, u64), Vec<usize>> = HashMap::new();
    let mut shared = Shared::default();
    let agents: Vec<Agent> = s.requests.iter().map(|r| Agent::of(r, &mut shared)).collect();
    for (j, b) in s.requests.iter().enumerate() {
        let key = (b.body_format, b.endpoint.as_deref().unwrap_or(""));
        let mut latest = last.insert(key, j).filter(|&i| same_endpoint(&s.requests[i], b));
        if let Some(sid) = b.session_id.as_deref() {
            if let Some(i) = sessions.insert((key.0, key.1, sid), j).filter(|&i| same_endpoint(&s.requests[i], b)) {
                latest = Some(i);
            }
        }
        let named = b.previous_response_id.as_deref().and_then(|p| responses.get(&(key.0, key.1, p)).copied());
        let old = named.or(latest).map(|i| link(&s.requests[i], b, i));
        let chained = matches!(old, Some(Link::Continues { chained: true, .. }));
        let mut l = match old {
            Some(l) if chained || named.is_some() || b.previous_response_id.is_some() => Some(l),
            _ => None,
        };
        if l.is_none() {
            l = lane_link(s, &agents, j, by_first.get(&(key.0, key.1, agents[j].hist.first().copied().unwrap_or(0))));
        }
        let l = match l.or(old) {
            Some(Link::Continues { prev, chained: false })
                if s.requests[prev].outcome == Some(Outcome::PromptError) =>
            {
                Link::AfterFailure { prev }
            }
            Some(l) => l,
            None => Link::First,
        };
        out.push(l);
        if let Some(&f) = agents[j].hist.first() {
            by_first.entry((key.0, key.1, f)).or_default().push(j);
        }
        if let Some(id) = b.response_id.as_deref() {
            responses.insert((key.0, key.1, id), j);
        }
    }
    out
}

/// The predecessor of request `j` among `candidates` (earlier requests of
/// its endpoint whose history begins with its first element), or `None`
/// when it continues none of them.
fn lane_link(s: &Stream, agents: &[Agent], j: usize, candidates: Option<&Vec<usize>>) -> Option<Link> {
    let b = &s.requests[j];
    let hb = &agents[j].hist;
    if hb.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None; // (common prefix, index)
    // Whether the best so far has its recorded reply carried by `b`: among
    // requests `b` extends as far, the one whose reply it carries is the one
    // it continues (an agent's step, not the side call made between its
    // steps on the same history: pydantic-ai's MCP sampling), when `b`
    // extends both whole and the later one does not carry it too.
    let mut best_carried = false;
    let mut latest_continued = None;
    for &i in candidates?.iter().rev().take(MAX_CANDIDATES) {
        let a = &s.requests[i];
        if !same_endpoint(a, b) || !ids_compatible(a, b) {
            continue;
        }
        if latest_continued.is_none() {
            latest_continued = Some(i);
            // A side call on the conversation's latest request is no agent's
            // next request: its own lane.
            if side_call_on(&agents[j], &agents[i]) || summariser_on(agents, j, i) {
                if let Link::Continues { .. } = link(a, b, i) {
                    return Some(Link::NewLane { prev: i });
                }
            }
        }
        // (An earlier request that cannot extend `b` further than the best
        // so far is passed over before the agents are compared.)
        let ha = &agents[i].hist;
        let bound = ha.len().min(hb.len());
        if best.is_some_and(|(c, _)| bound < c || (bound == c && best_carried)) {
            continue;
        }
        if !same_agent(&agents[i], &agents[j]) {
            continue;
        }
        let common = common_prefix(ha, hb);
        let carried = || a.reply.as_ref().is_some_and(|r| r.carried_by(b));
        if best.is_none_or(|(c, _)| common > c) {
            best = Some((common, i));
            best_carried = common > 0 && common == ha.len() && carried();
            // (`b`'s whole history sent before: no earlier request shares
            // more of it, but one `b` extends whole may share as much.)
            if common == hb.len() && common == ha.len() {
                break;
            }
        } else if let Some((c, k)) = best.filter(|&(c, _)| common == c && c > 0) {
            let best_len = agents[k].hist.len();
            if c == ha.len() && c == hb.len() && c < best_len {
                // `b` sends this one's history again, whole, and only the
                // beginning of the later one's, carrying none of the later
                // one's reply: a run started again from this one's point (a
                // VCR cassette's next test run, re-recorded after the later
                // run's first steps), which it is compared with — the
                // request whose history it extends furthest (docs/spec.md §1
                // *Lanes*) —, not a retry of the later one that dropped what
                // the later one added.
                if !s.requests[k].reply.as_ref().is_some_and(|r| r.carried_by(b)) {
                    best = Some((c, i));
                    break;
                }
            } else if c == ha.len() && c == best_len {
                // Only between two requests `b` extends whole (which to compare
                // with decides no rewrite, only the tools and prompts compared),
                // and unless the later one carries that reply too: then it is the
                // conversation's later step.
                if carried() && !a.reply.as_ref().is_some_and(|r| r.carried_by(&s.requests[k])) {
                    best = Some((c, i));
                    best_carried = true;
                }
            }
        }
    }
    if let Some((c, k)) = best.filter(|&(c, _)| c > 0 && c == hb.len()) {
        if let Some(n) = restart_point(s, agents, j, k, candidates?) {
            best = Some((c, n));
        }
    }
    match (best, latest_continued) {
        (Some((_, i)), _) => Some(link(&s.requests[i], b, i)),
        (None, Some(prev)) => match link(&s.requests[prev], b, prev) {
            Link::Continues { .. } => Some(Link::NewLane { prev }),
            other => Some(other),
        },
        (None, None) => None,
    }
}

/// Where request `j` restarts a conversation, when the request `k` whose
/// history it sends again (`j`'s whole history is a prefix of `k`'s) had
/// gone on: a later request carried `k`'s recorded reply, so `j` is no retry
/// of a failed `k` but a run started again from that point (a VCR cassette's
/// next test run, whose first requests matched recorded ones and were
/// replayed, not recorded again). It continues the request whose whole
/// history it extends and whose recorded reply it carries, the one it
/// extends furthest (docs/spec.md §1 *Lanes*), not `k` (whose system prompts
/// the new run's state need not repeat: AutoGPT's running summary, added
/// after the first cycle of the earlier run). `None`: no such request, or
/// `k` did not go on (a retry of it is still compared with it).
fn restart_point(s: &Stream, agents: &[Agent], j: usize, k: usize, candidates: &[usize]) -> Option<usize> {
    let (b, hb) = (&s.requests[j], &agents[j].hist);
    let reply = s.requests[k].reply.as_ref()?;
    let mut later = candidates.iter().filter(|&&m| m > k && m < j).rev().take(MAX_CANDIDATES);
    if !later.any(|&m| reply.carried_by(&s.requests[m])) {
        return None;
    }
    let mut best: Option<(usize, usize)> = None; // (history length, index)
    for &n in candidates.iter().rev().take(MAX_CANDIDATES) {
        if n == k || n >= j {
            continue;
        }
        let a = &s.requests[n];
        let ha = &agents[n].hist;
        if ha.is_empty() || ha.len() >= hb.len() || best.is_some_and(|(l, _)| ha.len() <= l) {
            continue;
        }
        if !same_endpoint(a, b) || !ids_compatible(a, b) || !same_agent(&agents[n], &agents[j]) {
            continue;
        }
        if hb[..ha.len()] == ha[..] && a.reply.as_ref().is_some_and(|x| x.carried_by(b)) {
            best = Some((ha.len(), n));
        }
    }
    best.map(|(_, n)| n)
}

/// A request's lane (docs/spec.md §1 *Lanes*), for `show`, `diff` and the HTML report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// Lane number (0-based, in order of each lane's first request).
    pub lane: usize,
    /// Index (in the stream's request list) of the request this one is
    /// compared with (its predecessor), if any.
    pub compared_with: Option<usize>,
    /// The agent, as a short label: the start of its standing system prompt,
    /// else its tool names, else "no system prompt, no tools".
    pub agent: String,
}

impl Lane {
    /// Says which lane (agent) a request belongs to and what it is compared
    /// with, one line ("lane 1 (You are …), compared with request 3"), the
    /// agent's label masked and escaped.
    pub fn describe(&self) -> String {
        let masked = crate::text::mask_secrets(&self.agent);
        let agent = crate::escape::escape_controls(&masked);
        match self.compared_with {
            Some(p) => format!("lane {} ({agent}), compared with request {p}", self.lane),
            None => format!("lane {} ({agent}), compared with no earlier request", self.lane),
        }
    }
}

/// The lane of every request of a stream, in order: a request compared with
/// its predecessor (a continuation, a compaction or a recovery after a
/// failure) is in its predecessor's lane; any other starts a lane.
pub fn lanes(s: &Stream) -> Vec<Lane> {
    lanes_of(s, &links(s))
}

/// [`lanes`] of `s` from its [`links`] (`links`: `links(s)`).
fn lanes_of(s: &Stream, links: &[Link]) -> Vec<Lane> {
    let mut out: Vec<Lane> = Vec::with_capacity(s.requests.len());
    let mut n = 0;
    for (j, &l) in links.iter().enumerate() {
        let (lane, compared_with) = match l {
            Link::Continues { prev, .. } | Link::AfterFailure { prev } => (out[prev].lane, Some(prev)),
            Link::Compaction { prev } => (out[prev].lane, None),
            Link::First | Link::NewConversation { .. } | Link::NewLane { .. } => {
                n += 1;
                (n - 1, None)
            }
        };
        out.push(Lane { lane, compared_with, agent: agent_label(&s.requests[j]) });
    }
    out
}

/// A short label of a request's agent (see [`Lane::agent`]).
pub fn agent_label(r: &Request) -> String {
    let a = Agent::of(r, &mut Shared::default());
    let first = a.system.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    if !first.is_empty() {
        let cut: String = first.chars().take(60).collect();
        return if cut.len() < first.len() { format!("system \"{cut}…\"") } else { format!("system \"{cut}\"") };
    }
    if !a.tools.is_empty() {
        let mut names = a.tools.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
        if a.tools.len() > 4 {
            names.push_str(&format!(", … ({} tools)", a.tools.len()));
        }
        return format!("no system prompt, tools {names}");
    }
    "no system prompt, no tools".into()
}

fn link(a: &Request, b: &Request, prev: usize) -> Link {
    if let (Some(x), Some(y)) = (&a.session_id, &b.session_id) {
        // Different client sessions (Claude Code): different conversations,
        // however alike their first elements (every session opens with the
        // same reminder block).
        if x != y {
            return Link::NewConversation { prev };
        }
    }
    if let (Some(x), Some(y)) = (&a.conversation_id, &b.conversation_id) {
        if x != y {
            return Link::NewConversation { prev };
        }
        if b.body_format == crate::formats::openai_responses::ID {
            // A stored Responses conversation holds the prefix server-side.
            return Link::Continues { prev, chained: true };
        }
    }
    if let Some(p) = &b.previous_response_id {
        return match &a.response_id {
            Some(id) if id != p => Link::NewConversation { prev },
            _ => Link::Continues { prev, chained: true },
        };
    }
    let (ea, eb) = (history_elements(a), history_elements(b));
    let ha: Vec<&Element> = ea.iter().filter(|e| !e.system).collect();
    let hb: Vec<&Element> = eb.iter().filter(|e| !e.system).collect();
    let (Some(fa), Some(fb)) = (ha.first(), hb.first()) else { return Link::NewConversation { prev } };
    let a_keys: HashSet<u64> = ha.iter().map(|e| e.key).collect();
    if hb.iter().any(|e| e.compaction && !a_keys.contains(&e.key)) {
        return Link::Compaction { prev };
    }
    // A summary new in the first message, after blocks the runtime opens every
    // history with (Claude Code after `/compact`, through a proxy: its
    // claudeMd reminder, then "This session is being continued from a
    // previous conversation…"): a compaction boundary too.
    if hb.iter().take_while(|e| e.msg == fb.msg).any(|e| !a_keys.contains(&e.key) && is_summary(b, e)) {
        return Link::Compaction { prev };
    }
    if fa.key == fb.key {
        if another_run(a, b, &ha, &hb) {
            return Link::NewConversation { prev };
        }
        Link::Continues { prev, chained: false }
    } else if is_summary(b, fb) {
        Link::Compaction { prev }
    } else {
        Link::NewConversation { prev }
    }
}

/// Whether `b` is another run of `a`'s opening rather than its next step
/// (`ha`, `hb`: their history elements, system ones left out): `b` sends
/// `a`'s whole history and then, where `a`'s recorded reply would be, an
/// assistant message of its own, while `a`'s reply is nowhere in `b`. Ruby
/// VCR's `record: :new_episodes` appends a second test run to a cassette
/// (boxcars' `sql_active_record2.yml`: a 2023 run on one model, then a 2026
/// run on another, whose schema prompt lists its tables in another order):
/// both open with the same question, but the second run's history holds
/// its own answers, so what differs between them is no rewrite. Only a
/// recorded reply that names something ([`crate::model::Reply::known`]) is
/// evidence, and only when the two requests name different models: a
/// runtime may send its own rendering of the reply back on the same model
/// (chatlas turns Bedrock's forced `_structured_tool_call` into an
/// assistant text, then swaps the schema: a true tools rewrite).
fn another_run(a: &Request, b: &Request, ha: &[&Element], hb: &[&Element]) -> bool {
    let Some(reply) = &a.reply else { return false };
    let Some(next) = hb.get(ha.len()) else { return false };
    let models_differ = matches!((&a.model, &b.model), (Some(x), Some(y)) if !same_model(x, y));
    models_differ
        && b.messages[next.msg].role == Role::Assistant
        && ha.iter().zip(hb).all(|(x, y)| x.key == y.key)
        && !reply.carried_by(b)
}

/// Whether two model names name one model: equal after any provider prefix
/// (`openai/`), or one the other's dated snapshot (`gpt-5` and
/// `gpt-5-2025-08-07`, `gpt-4` and `gpt-4-0613`: a Responses cassette
/// records the alias a request asked for and the snapshot its response
/// names) — a date of four digits or more, not a version (`claude-3` and
/// `claude-3-5-sonnet`, as `impact::prices::matches` tells a minor version
/// from a date). `gpt-4o` and `gpt-4o-mini` are two models.
fn same_model(x: &str, y: &str) -> bool {
    fn bare(m: &str) -> &[u8] {
        m.rsplit('/').next().unwrap_or(m).as_bytes()
    }
    let (x, y) = (bare(x), bare(y));
    let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    let (head, rest) = long.split_at(short.len());
    head.eq_ignore_ascii_case(short)
        && match rest {
            [] => true,
            [b'-', date @ ..] => date.iter().take_while(|c| c.is_ascii_digit()).count() >= 4,
            _ => false,
        }
}

/// Where the cache prefix first diverges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `tools`.
    Tools,
    /// The system slot, or a system message among the messages.
    System,
    /// The messages.
    Messages,
}

impl Level {
    /// Name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Tools => "tools",
            Level::System => "system",
            Level::Messages => "messages",
        }
    }
}

/// A system prompt of request k missing from request k+1.
#[derive(Debug, Clone)]
pub struct Dropped {
    /// Pointer of the prompt in request k.
    pub pointer: String,
    /// Its text.
    pub text: String,
    /// A per-request slot (`Some(kind)`) or a message/part among the messages (`None`).
    pub slot: Option<SlotKind>,
    /// A message/part at the head of the history (a standing prompt), not a mid-run one.
    pub standing: bool,
}

/// The first divergence of request k+1's prefix from request k's.
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// Level of the divergence.
    pub level: Level,
    /// Pointer of the first diverging element of request k+1.
    pub pointer: String,
    /// Pointer of the corresponding element of request k, if any.
    pub prev_pointer: Option<String>,
    /// What diverges, for the message.
    pub what: String,
    /// The text of the diverging element of request k+1 (empty when it sends none).
    pub text: String,
    /// A unified diff of the diverging element.
    pub diff: String,
}

/// The comparison of a request with the one it continues.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Index of request k (in the stream's request list).
    pub prev: usize,
    /// Index of request k+1.
    pub cur: usize,
    /// k+1 adds a new user turn.
    pub new_user_turn: bool,
    /// System prompts of k missing from k+1.
    pub dropped: Vec<Dropped>,
    /// The first divergence of the prefix, if any.
    pub rewrite: Option<Rewrite>,
}

/// Compares every request of a stream with the one it continues.
pub fn pairs(s: &Stream) -> Vec<Pair> {
    pairs_of(s, &links(s))
}

fn pairs_of(s: &Stream, links: &[Link]) -> Vec<Pair> {
    links
        .iter()
        .enumerate()
        .filter_map(|(j, l)| match *l {
            Link::Continues { prev, chained } => Some(compare(&s.requests[prev], &s.requests[j], prev, j, chained)),
            _ => None,
        })
        .collect()
}

/// The [`links`], [`pairs`] and [`lanes`] of one stream, each computed once,
/// when first asked, and shared by the rules that read them, the recorded
/// usage and the HTML report's page (which run in parallel:
/// [`OnceLock`](std::sync::OnceLock)). Eight rule passes asked for the links
/// of the same stream; on a stream of long conversations that was most of
/// `check`'s time, and the HTML report asked twice more.
#[derive(Debug, Default)]
pub struct Facts {
    links: std::sync::OnceLock<Vec<Link>>,
    pairs: std::sync::OnceLock<Vec<Pair>>,
    lanes: std::sync::OnceLock<Vec<Lane>>,
}

impl Facts {
    /// [`links`] of `s` (the same stream on every call).
    pub fn links(&self, s: &Stream) -> &[Link] {
        self.links.get_or_init(|| links(s))
    }

    /// [`pairs`] of `s` (the same stream on every call).
    pub fn pairs(&self, s: &Stream) -> &[Pair] {
        self.pairs.get_or_init(|| pairs_of(s, self.links(s)))
    }

    /// [`lanes`] of `s` (the same stream on every call).
    pub fn lanes(&self, s: &Stream) -> &[Lane] {
        self.lanes.get_or_init(|| lanes_of(s, self.links(s)))
    }
}

fn user_turns(r: &Request) -> usize {
    r.messages.iter().filter(|m| m.kind == MessageKind::UserTurn).count()
}

/// Whether `b`, which chains to `a`'s response, sends a user turn `a` did not
/// send: a client that sends the prompt again with the results of the calls
/// it answered (maybe-finance's `ChatConfig#build_input` puts the user's
/// prompt before every `function_call_output`) asks nothing new.
fn new_turn_chained(a: &Request, b: &Request) -> bool {
    // (Without results, the same prompt again is the person asking again.)
    let results = b
        .messages
        .iter()
        .any(|m| m.kind == MessageKind::ToolResults || m.blocks.iter().any(|x| x.kind == BlockKind::ToolResult));
    if !results {
        return user_turns(b) > 0;
    }
    fn text(m: &Message) -> String {
        m.blocks.iter().map(|b| b.text.as_ref()).collect::<Vec<&str>>().join("\n")
    }
    let asked: Vec<String> = a.messages.iter().filter(|m| m.kind == MessageKind::UserTurn).map(|m| text(m)).collect();
    b.messages.iter().filter(|m| m.kind == MessageKind::UserTurn).any(|m| !asked.contains(&text(m)))
}

/// Compares request `b` (k+1) with request `a` (k) that it continues.
pub fn compare(a: &Request, b: &Request, prev: usize, cur: usize, chained: bool) -> Pair {
    let new_user_turn = if chained { new_turn_chained(a, b) } else { user_turns(b) > user_turns(a) };
    let mut pair = Pair { prev, cur, new_user_turn, dropped: Vec::new(), rewrite: None };
    if !chained && asked_again_alone(a, b) {
        return pair;
    }
    // Tools, in cache order first.
    if !chained {
        let ta = a.tools.as_ref().map(|t| t.1);
        let tb = b.tools.as_ref().map(|t| t.1);
        if ta != tb {
            let pa = a.tools.as_ref().map(|t| t.2.as_str()).unwrap_or("");
            let pb = b.tools.as_ref().map(|t| t.2.as_str()).unwrap_or("");
            let what = match (ta, tb) {
                (Some(_), None) => "the tools are no longer sent".to_string(),
                (None, Some(_)) => "tools are sent that the previous request did not send".to_string(),
                _ => "the tools differ".to_string(),
            };
            pair.rewrite = Some(Rewrite {
                level: Level::Tools,
                pointer: b.tools.as_ref().map(|t| b.at(&t.0)).unwrap_or_else(|| b.pointer.clone()),
                prev_pointer: a.tools.as_ref().map(|t| a.at(&t.0)),
                what,
                text: pb.to_string(),
                diff: unified(pa, pb),
            });
        }
    }
    // System slots.
    let b_texts = system_texts(b);
    for sa in &a.slots {
        let nonempty: Vec<&Block> = sa.parts.iter().filter(|p| !p.text.trim().is_empty()).collect();
        if nonempty.is_empty() {
            continue;
        }
        let Some(sb) = b.slots.iter().find(|s| s.kind == sa.kind) else {
            let text = join_parts(&nonempty);
            // Sent elsewhere: as a system message, or nearly whole in a new
            // message under another framing (a LangGraph summariser call:
            // "Summary of conversation earlier: S" as `system`, then "This is
            // summary of the conversation to date: S … Extend the summary" as
            // the user's message).
            if b_texts.contains(text.trim()) || relocated(a, b, text.trim()) {
                // Sent elsewhere (e.g. as a system message): a change, not a drop.
                if !chained && pair.rewrite.is_none() {
                    pair.rewrite = Some(Rewrite {
                        level: Level::System,
                        pointer: b.pointer.clone(),
                        prev_pointer: Some(a.at(&sa.pointer)),
                        what: format!("the `{}` slot is no longer sent (its text is sent elsewhere)", sa.kind.as_str()),
                        text: String::new(),
                        diff: unified(&text, ""),
                    });
                }
            } else {
                pair.dropped.push(Dropped { pointer: a.at(&sa.pointer), text, slot: Some(sa.kind), standing: true });
            }
            continue;
        };
        let ka: Vec<u64> = sa.parts.iter().map(|p| p.json_hash).collect();
        let kb: Vec<u64> = sb.parts.iter().map(|p| p.json_hash).collect();
        if ka == kb {
            continue;
        }
        if let Some(missing) = removed_from(&ka, &kb) {
            for i in missing {
                let p = &sa.parts[i];
                if !p.text.trim().is_empty() && !b_texts.contains(p.text.trim()) {
                    pair.dropped.push(Dropped {
                        pointer: a.at(&p.pointer),
                        text: p.text.to_string(),
                        slot: Some(sa.kind),
                        standing: true,
                    });
                }
            }
            continue;
        }
        if !chained && pair.rewrite.is_none() {
            let i = common_prefix(&ka, &kb);
            let (pa, pb) = (sa.parts.get(i), sb.parts.get(i));
            if let (Some(pa), Some(pb)) = (pa, pb) {
                if copies_again(&pa.text, &pb.text) {
                    // The slot holds its prompt once more (crewAI joins its
                    // system messages after a retry): `duplicate-system-prompt`
                    // reports it; one defect, one finding.
                    continue;
                }
            }
            pair.rewrite = Some(Rewrite {
                level: Level::System,
                pointer: b.at(pb.map_or(sb.pointer.as_str(), |p| &*p.pointer)),
                prev_pointer: pa.map(|p| a.at(&p.pointer)),
                what: format!("the `{}` slot changed", sa.kind.as_str()),
                text: pb.map(|p| p.text.to_string()).unwrap_or_default(),
                diff: unified(pa.map(|p| p.text.as_ref()).unwrap_or(""), pb.map(|p| p.text.as_ref()).unwrap_or("")),
            });
        }
    }
    if !chained && pair.rewrite.is_none() {
        if let Some(sb) = b.slots.iter().find(|sb| {
            !a.slots.iter().any(|sa| sa.kind == sb.kind) && sb.parts.iter().any(|p| !p.text.trim().is_empty())
        }) {
            pair.rewrite = Some(Rewrite {
                level: Level::System,
                pointer: b.at(&sb.pointer),
                prev_pointer: None,
                what: format!("a `{}` slot is sent that the previous request did not send", sb.kind.as_str()),
                text: join_parts(&sb.parts.iter().collect::<Vec<_>>()),
                diff: unified("", &join_parts(&sb.parts.iter().collect::<Vec<_>>())),
            });
        }
    }
    if chained {
        return pair;
    }
    // Messages.
    let (mut ea, mut eb) = (history_elements(a), history_elements(b));
    trailing_instructions_move_down(&mut ea, &mut eb);
    trailing_instructions_before_trigger(a, &mut ea, b, &mut eb);
    // A history that is a prefix of the previous one's (a retry, or a fresh run
    // of the same prompt) still reads the cache: never a rewrite (docs/spec.md §1);
    // its system prompts are still compared below.
    let (ha, hb): (Vec<u64>, Vec<u64>) = (
        ea.iter().filter(|e| !e.system).map(|e| e.key).collect(),
        eb.iter().filter(|e| !e.system).map(|e| e.key).collect(),
    );
    let retry = hb.len() <= ha.len() && ha[..hb.len()] == hb[..];
    let branch = !retry && is_branch(a, &ea, b, &eb);
    let (mut i, mut j) = (0, 0);
    while i < ea.len() && j < eb.len() {
        let (x, y) = (&ea[i], &eb[j]);
        if x.key == y.key || completes_prefill(a, &ea, i, b, y) {
            i += 1;
            j += 1;
            continue;
        }
        // Still sent elsewhere (moved, or rendered as `<system>` text): a change, not a drop.
        let moved = eb.iter().any(|e| e.key == x.key) || b_texts.contains(x.text(a).trim());
        if x.system && !moved && (!y.system || ea.get(i + 1).is_some_and(|n| n.key == y.key)) {
            // Replaced at a new user turn by a system message placed further
            // on (ruby_llm's Cohere payload keeps the chat's order: `[user,
            // assistant, system B, user]` after `with_instructions` replaced
            // A): a change of prompt, whose cache loss is a rewrite
            // (docs/spec.md §2: must not fire).
            if pair.new_user_turn {
                if let Some(n) = eb[j..].iter().find(|e| e.system && !ea.iter().any(|o| o.key == e.key)) {
                    if pair.rewrite.is_none() {
                        pair.rewrite = Some(Rewrite {
                            level: Level::System,
                            pointer: b.at(n.pointer),
                            prev_pointer: Some(a.at(x.pointer)),
                            what: format!(
                                "the {} the previous request sent here is replaced by another one later in this request",
                                x.describe(a)
                            ),
                            text: n.text(b),
                            diff: element_diff(a, x, b, n),
                        });
                    }
                    i += 1;
                    continue;
                }
            }
            // Vanished (not replaced in place): dropped-system-prompt only.
            let standing = ea[..i].iter().all(|e| e.system);
            pair.dropped.push(Dropped { pointer: a.at(x.pointer), text: x.text(a), slot: None, standing });
            i += 1;
            continue;
        }
        if pair.rewrite.is_none() {
            let level = if x.system || y.system { Level::System } else { Level::Messages };
            if branch && level == Level::Messages {
                // A new call from the same point (docs/spec.md §1): not a rewrite.
                break;
            }
            if branch
                && i == 0
                && j == 0
                && !x.system
                && y.system
                && ea.iter().all(|e| !e.system)
                && one_question(a, &ea)
                && one_question(b, &eb)
            {
                // A new one-shot call that shares nothing before its question
                // with `a` (also no system prompt: `a` sent none) and asks
                // another one: a separate call (paper-qa describes a figure,
                // then summarises a text chunk holding that figure, with a
                // system prompt), not `a`'s conversation given a prompt.
                break;
            }
            if level == Level::Messages && sibling(a, &ea, b, &eb) {
                // A new call from an earlier point (a tree search's next
                // expansion): not a rewrite.
                break;
            }
            pair.rewrite = Some(Rewrite {
                level,
                pointer: b.at(y.pointer),
                prev_pointer: Some(a.at(x.pointer)),
                what: format!(
                    "this {} differs from the {} the previous request sent here",
                    y.describe(b),
                    x.describe(a)
                ),
                text: y.text(b),
                diff: element_diff(a, x, b, y),
            });
        }
        break;
    }
    if retry {
        pair.rewrite = None;
    }
    pair
}

/// Whether element `i` of `a`'s history is a prefill that `b` sends again
/// completed: `a` ends with an assistant message's text (the start of the
/// answer, which the model continues: Anthropic's "prefill Claude's
/// response"), and `b` sends in its place an assistant text that starts with
/// it and goes on with `a`'s recorded reply, when one is recorded (the
/// prefill and the model's continuation joined, as the answer now stands).
/// The way prefill works, not a rewrite.
fn completes_prefill(a: &Request, ea: &[Element], i: usize, b: &Request, y: &Element) -> bool {
    let x = &ea[i];
    if i + 1 != ea.len() || x.system || y.system {
        return false;
    }
    let (ma, mb) = (&a.messages[x.msg], &b.messages[y.msg]);
    if ma.role != Role::Assistant || mb.role != Role::Assistant {
        return false;
    }
    let (tx, ty) = (x.text(a), y.text(b));
    let prefill = tx.trim_end();
    if prefill.trim().is_empty() || ty.len() <= prefill.len() || !ty.starts_with(prefill) {
        return false;
    }
    // With the reply recorded, the rest is that reply (white space at the
    // join aside), not an edit that happens to keep the prefill's words.
    match a.reply.as_ref().filter(|r| !r.texts.is_empty()) {
        Some(r) => {
            let rest = &ty[prefill.len()..];
            let trimmed = rest.trim_start();
            [rest.to_string(), trimmed.to_string(), format!(" {trimmed}")]
                .iter()
                .any(|t| r.texts.binary_search(&crate::hash::hash_str(t)).is_ok())
        }
        None => true,
    }
}

/// Whether `b` is a new call from an earlier point than `a`'s last user turn
/// (docs/spec.md §1 read for a reply that is recorded): `a`'s recorded reply
/// is nowhere in `b`, and neither is the user turn `a` asked it for — a
/// sibling branch of a tree search (LangGraph's LATS: each expansion carries
/// its own candidate and its own reflection), which reads the cache up to
/// where it forked — and `b` asks no more user turns than `a` (one that
/// does continued a conversation, whatever it sent back as the reply). A
/// request that sends `a`'s last turn again without its reply (as it was, or
/// re-rendered: timestamps and envelopes aside), over a history changed
/// before it, is still a rewrite (the same question asked again over an
/// edited history: pydantic-ai's dropped thinking block).
fn sibling(a: &Request, ea: &[Element], b: &Request, eb: &[Element]) -> bool {
    let Some(reply) = a.reply.as_ref() else { return false };
    if reply.carried_by(b) {
        return false;
    }
    // (A request that asks more turns than `a` continued a conversation.)
    let turns = |r: &Request, es: &[Element]| {
        es.iter().filter(|e| !e.system && r.messages[e.msg].kind == MessageKind::UserTurn).count()
    };
    if turns(b, eb) > turns(a, ea) {
        return false;
    }
    let last_turn = ea.iter().filter(|e| !e.system).rev().find(|e| a.messages[e.msg].kind == MessageKind::UserTurn);
    let Some(t) = last_turn else { return false };
    if eb.iter().any(|e| e.key == t.key) {
        return false;
    }
    // Nor sent again re-rendered (a timestamp in it changed): that is the
    // same turn over a rewritten history. Compared with digits and white
    // space aside.
    let key = |r: &Request, m: usize| {
        let mut t = String::new();
        for x in &r.messages[m].blocks {
            t.push_str(x.kind.as_str());
            for w in x.text.split_whitespace() {
                t.push(' ');
                t.extend(w.chars().filter(|c| !c.is_ascii_digit()));
            }
            t.push('\n');
        }
        crate::hash::hash_str(&t)
    };
    let kt = key(a, t.msg);
    // (A message's elements are consecutive: each turn keyed once.)
    let mut turns: Vec<usize> =
        eb.iter().filter(|e| !e.system && b.messages[e.msg].kind == MessageKind::UserTurn).map(|e| e.msg).collect();
    turns.dedup();
    !turns.into_iter().any(|m| key(b, m) == kt)
}

/// Leaves out of the comparison the system or developer messages that end
/// `a` after its history and end `b` again, unchanged, after a history that
/// grew: an instruction a runtime places after the conversation on every
/// request (a LangGraph supervisor's "Given the conversation above, who
/// should act next?"), which moves down as the history grows, as Aider's
/// reminder does ([`crate::model::Floating`]). Its old place is no rewrite.
fn trailing_instructions_move_down(ea: &mut Vec<Element<'_>>, eb: &mut Vec<Element<'_>>) {
    let n = ea.iter().rev().take_while(|e| e.system).count();
    if n == 0 || n == ea.len() || eb.len() <= ea.len() {
        return;
    }
    let same = ea[ea.len() - n..].iter().zip(&eb[eb.len() - n..]).all(|(x, y)| x.key == y.key);
    if same && !eb[..eb.len() - n].last().is_some_and(|e| e.system) {
        ea.truncate(ea.len() - n);
        eb.truncate(eb.len() - n);
    }
}

/// [`trailing_instructions_move_down`] for instructions followed by a user
/// message the runtime asks with on every request: system or developer
/// messages right before `a`'s last message, a user turn, that come again,
/// unchanged, right before `b`'s last message, a user turn, after a history
/// that grew. AutoGPT (2023) ends every request with its response-format
/// instruction (a system message) and then its cycle trigger ("Determine
/// exactly one command to use…"), and keeps only the trigger in the history
/// (`autogpt/agents/base.py`, `construct_base_prompt`: "append_messages —
/// messages to insert after the message history", then the cycle
/// instruction; `on_response` stores the last message). The instructions'
/// old place is no rewrite; the messages around them are still compared.
fn trailing_instructions_before_trigger(
    a: &Request,
    ea: &mut Vec<Element<'_>>,
    b: &Request,
    eb: &mut Vec<Element<'_>>,
) {
    // (The last message's elements, and the system run before them.)
    let tail = |es: &[Element], r: &Request| -> Option<(usize, usize)> {
        let last = es.last()?;
        if last.system || r.messages[last.msg].kind != MessageKind::UserTurn {
            return None;
        }
        let t = es.iter().rev().take_while(|e| e.msg == last.msg && !e.system).count();
        let n = es[..es.len() - t].iter().rev().take_while(|e| e.system).count();
        (n > 0).then_some((t, n))
    };
    // `b`'s run, after its grown history, is the end of `a`'s run (which
    // may follow the system prompt itself, when `a` had no history yet).
    let (Some((ta, na)), Some((tb, nb))) = (tail(ea, a), tail(eb, b)) else { return };
    // (`b` that sends all of `a` first moved nothing: what it adds after is
    // judged as sent — crewAI's reused executor appends its system prompt
    // and task again, a prompt sent twice.)
    if nb > na || eb.len() <= ea.len() || ea.iter().zip(eb.iter()).all(|(x, y)| x.key == y.key) {
        return;
    }
    let (sa, sb) = (ea.len() - ta - nb, eb.len() - tb - nb);
    let same = ea[sa..sa + nb].iter().zip(&eb[sb..sb + nb]).all(|(x, y)| x.key == y.key);
    // (What comes before `a`'s run — its system prompt at least — `b` sends
    // first too: a run that is `a`'s whole system prompt, sent again after
    // the history, is a prompt sent twice, not an instruction moving down.)
    let kept = sa > 0 && ea[..sa].iter().zip(&eb[..sa]).all(|(x, y)| x.key == y.key);
    if same && kept && sb > 0 && !eb[sb - 1].system {
        ea.drain(sa..sa + nb);
        eb.drain(sb..sb + nb);
    }
}

/// Whether a request's history is one user turn and nothing else, system
/// prompts aside (a one-shot call): every other element belongs to one user
/// message.
fn one_question(r: &Request, es: &[Element]) -> bool {
    let mut msgs = es.iter().filter(|e| !e.system).map(|e| e.msg);
    let Some(first) = msgs.next() else { return false };
    r.messages[first].kind == MessageKind::UserTurn && msgs.all(|m| m == first)
}

/// Whether `b` asks `a`'s one question again as a call of its own: both send
/// no tools and a history of one user turn, the same one; `a` sent a system
/// prompt, `b` sends none, and `a`'s recorded reply is nowhere in `b`. `a` was
/// answered and its answer not used: the same question put to the model
/// again with other settings, not `a`'s conversation going on without its
/// prompt (AgentOps's provider tests call the client with a system prompt,
/// then streamed without one, on one cassette). A history passed back after
/// the reply (pydantic-ai issue 1032) carries the reply and is still compared.
/// Two request-body files record no reply: each is a call of its own file,
/// taken the same way (Semantic Kernel's cross-language tests keep the
/// expected body of each test, `prompt_with_helper_functions_expected.json`
/// with the system message its template renders beside
/// `prompt_with_simple_variable_expected.json` without one).
fn asked_again_alone(a: &Request, b: &Request) -> bool {
    let separate_files = a.reply.is_none() && a.pointer.is_empty() && b.pointer.is_empty() && a.path != b.path;
    if a.tools.is_some() || b.tools.is_some() || (!separate_files && a.reply.as_ref().is_none_or(|r| r.carried_by(b))) {
        return false;
    }
    let (ea, eb) = (history_elements(a), history_elements(b));
    let sends_prompt = |es: &[Element], r: &Request| {
        es.iter().any(|e| e.system) || r.slots.iter().any(|s| s.parts.iter().any(|p| !p.text.trim().is_empty()))
    };
    if !sends_prompt(&ea, a) || sends_prompt(&eb, b) || !one_question(a, &ea) || !one_question(b, &eb) {
        return false;
    }
    ea.iter().filter(|e| !e.system).map(|e| e.key).eq(eb.iter().filter(|e| !e.system).map(|e| e.key))
}

/// Whether `b` is a new call from the same point as `a` (docs/spec.md §1): its
/// history keeps `a`'s up to `a`'s last user turn and replaces that turn —
/// what follows in `b` holds nothing a model wrote (no assistant element),
/// so `a`'s reply is not carried after a changed turn. A few-shot
/// prediction with a new input, a one-shot run again on other input, a
/// regenerated question: the cache is still read up to there. Also when
/// `b` keeps that turn and replaces what followed it in `a`, carrying none
/// of `a`'s recorded reply (a sibling candidate; see the end).
fn is_branch(a: &Request, ea: &[Element], b: &Request, eb: &[Element]) -> bool {
    let ha: Vec<&Element> = ea.iter().filter(|e| !e.system).collect();
    let hb: Vec<&Element> = eb.iter().filter(|e| !e.system).collect();
    let Some(last_turn) = ha.iter().rev().find(|e| a.messages[e.msg].kind == MessageKind::UserTurn).map(|e| e.msg)
    else {
        return false;
    };
    let Some(u) = ha.iter().position(|e| e.msg == last_turn) else { return false };
    if hb.len() <= u || ha[..u].iter().zip(&hb[..u]).any(|(x, y)| x.key != y.key) {
        return false;
    }
    let changed = ha[u..].iter().map(|e| e.key).ne(hb[u..].iter().map(|e| e.key));
    if changed && hb[u..].iter().all(|e| b.messages[e.msg].role != Role::Assistant) {
        return true;
    }
    // A sibling from after the turn: `b` keeps the turn too and replaces what
    // `a` sent after it — a candidate graded after another, a best-of-n
    // sample (LangGraph's LATS grader) — when `a`'s recorded reply is nowhere
    // in `b` and no new turn follows: the cache is read up to the turn, as
    // for a new call from there. (Without a recorded reply nothing tells it
    // from a tool loop pruned under the same turn: a rewrite.)
    let (ta, tb) = (&ha[u + 1..], hb.get(u + 1..).unwrap_or_default());
    ha[u].key == hb[u].key
        && !ta.is_empty()
        && !tb.is_empty()
        && ta[0].key != tb[0].key
        && a.reply.as_ref().is_some_and(|r| !r.carried_by(b))
        && tb.iter().all(|e| b.messages[e.msg].kind != MessageKind::UserTurn)
}

fn join_parts(parts: &[&Block]) -> String {
    parts.iter().map(|p| p.text.as_ref()).collect::<Vec<_>>().join("\n")
}

/// When `b` is `a` with some entries removed (order kept), the removed indices of `a`.
fn removed_from(a: &[u64], b: &[u64]) -> Option<Vec<usize>> {
    if b.len() >= a.len() {
        return None;
    }
    let mut missing = Vec::new();
    let mut j = 0;
    for (i, x) in a.iter().enumerate() {
        if j < b.len() && b[j] == *x {
            j += 1;
        } else {
            missing.push(i);
        }
    }
    (j == b.len()).then_some(missing)
}

fn element_diff(a: &Request, x: &Element, b: &Request, y: &Element) -> String {
    let (ta, tb) = (x.text(a), y.text(b));
    let mut d = unified(&ta, &tb);
    if ta == tb {
        d = format!("(same text; the {} differs in other fields, e.g. ids, types or signatures)\n", y.describe(b));
    }
    format!("--- request {} {}\n+++ request {} {}\n{d}", a.index, a.at(x.pointer), b.index, b.at(y.pointer))
}

/// A short unified diff of two texts (at most 40 lines).
pub fn unified(a: &str, b: &str) -> String {
    let (a, b) = crate::text::close_for_line_diff(a, b);
    // A deadline, as `diff`'s text comparison has: past it similar gives a
    // coarser (still correct) diff, so two texts of 40,000 different lines
    // take a fraction of a second, not tens of seconds (the excerpt shows 40
    // lines of it anyway).
    let diff = similar::TextDiff::configure()
        .deadline(std::time::Instant::now() + std::time::Duration::from_millis(200))
        .diff_lines(&a, &b);
    let mut out = String::new();
    for hunk in diff.unified_diff().context_radius(2).iter_hunks() {
        out.push_str(&hunk.to_string());
    }
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    let lines: Vec<&str> = out.lines().collect();
    if lines.len() > 40 {
        let mut s = lines[..40].join("\n");
        s.push_str(&format!("\n… ({} more lines)\n", lines.len() - 40));
        return s;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::parse_body;
    use serde_json::{Value, json};
    use std::sync::Arc;

    fn stream(format: FormatId, bodies: &[Value]) -> Stream {
        let requests = bodies
            .iter()
            .enumerate()
            .map(|(i, v)| parse_body(format, v, &Arc::from(format!("req{}.json", i + 1)), i, "").expect("parses"))
            .collect();
        Stream { requests }
    }

    /// `diff` keeps a large body's long assistant and tool texts as their
    /// first bytes ([`crate::formats::ELEMENT_PREFIX`]): enough to tell a
    /// compaction summary by its opening.
    #[test]
    fn kept_prefixes_hold_every_summary_opening() {
        assert!(SUMMARY_OPENINGS.iter().all(|o| o.len() < crate::formats::ELEMENT_PREFIX));
    }

    #[test]
    fn same_first_element_continues_different_starts_new() {
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"}]}),
                json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
                json!({"messages":[{"role":"user","content":"other"}]}),
            ],
        );
        let l = links(&s);
        assert_eq!(l[0], Link::First);
        assert_eq!(l[1], Link::Continues { prev: 0, chained: false });
        assert_eq!(l[2], Link::NewConversation { prev: 1 });
        let p = pairs(&s);
        assert_eq!(p.len(), 1);
        assert!(p[0].dropped.is_empty() && p[0].rewrite.is_none() && p[0].new_user_turn);
    }

    #[test]
    fn previous_response_id_must_match_a_recorded_response() {
        let mut s = stream(
            crate::formats::openai_responses::ID,
            &[json!({"input":"a"}), json!({"previous_response_id":"r1","input":"b"})],
        );
        assert_eq!(links(&s)[1], Link::Continues { prev: 0, chained: true });
        s.requests[0].response_id = Some("r0".into());
        assert_eq!(links(&s)[1], Link::NewConversation { prev: 0 });
        s.requests[0].response_id = Some("r1".into());
        assert_eq!(links(&s)[1], Link::Continues { prev: 0, chained: true });
    }

    #[test]
    fn different_session_ids_start_a_new_conversation_equal_or_absent_ones_do_not() {
        let user_id = |s: &str| format!(r#"{{"device_id":"d","account_uuid":"","session_id":"{s}"}}"#);
        let body = |u: Option<String>, t: &str| {
            let mut b = json!({"system":"S","messages":[
                {"role":"user","content":[{"type":"text","text":"<system-reminder>r</system-reminder>"},{"type":"text","text":t}]}]});
            if let Some(u) = u {
                b["metadata"] = json!({ "user_id": u });
            }
            b
        };
        for (a, b, want) in [
            (Some(user_id("s1")), Some(user_id("s2")), Link::NewConversation { prev: 0 }),
            (Some(user_id("s1")), Some(user_id("s1")), Link::Continues { prev: 0, chained: false }),
            (None, Some(user_id("s2")), Link::Continues { prev: 0, chained: false }),
        ] {
            let s = stream(crate::formats::anthropic::ID, &[body(a, "one"), body(b, "two")]);
            assert_eq!(links(&s)[1], want);
        }
    }

    #[test]
    fn string_content_and_one_text_block_are_one_element() {
        let s = stream(
            crate::formats::anthropic::ID,
            &[
                json!({"messages":[{"role":"user","content":"a"}]}),
                json!({"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]},
                    {"role":"assistant","content":"b"}]}),
            ],
        );
        assert_eq!(links(&s)[1], Link::Continues { prev: 0, chained: false });
        let p = &pairs(&s)[0];
        assert!(p.rewrite.is_none() && p.dropped.is_empty());
    }

    #[test]
    fn endpoints_pair_separately() {
        let mut s = stream(
            crate::formats::openai_responses::ID,
            &[
                json!({"input":"a"}),
                json!({"input":"z"}),
                json!({"input":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}),
            ],
        );
        s.requests[0].endpoint = Some("/v1/responses".into());
        s.requests[1].endpoint = Some("/v1/responses/compact".into());
        s.requests[2].endpoint = Some("/v1/responses".into());
        let l = links(&s);
        assert_eq!(l[1], Link::First);
        assert_eq!(l[2].prev(), Some(0));
    }

    #[test]
    fn compaction_item_is_a_boundary() {
        let s = stream(
            crate::formats::openai_responses::ID,
            &[
                json!({"input":[{"role":"user","content":"a"}]}),
                json!({"input":[{"role":"user","content":"a"},{"type":"compaction","encrypted_content":"x"},{"role":"user","content":"c"}]}),
            ],
        );
        assert_eq!(links(&s)[1], Link::Compaction { prev: 0 });
    }

    #[test]
    fn vanished_system_message_is_dropped_not_rewritten() {
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"},{"role":"system","content":"mid"}]}),
                json!({"messages":[{"role":"system","content":"S"},{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}),
            ],
        );
        let p = &pairs(&s)[0];
        assert_eq!(p.dropped.len(), 1);
        assert_eq!(p.dropped[0].pointer, "/messages/2");
        assert!(p.rewrite.is_none());
    }

    #[test]
    fn reordered_system_messages_are_a_rewrite_not_a_drop() {
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                json!({"tools":[{"name":"t"}],"messages":[{"role":"system","content":"A"},{"role":"system","content":"B"},{"role":"user","content":"a"}]}),
                json!({"tools":[{"name":"t"}],"messages":[{"role":"system","content":"B"},{"role":"system","content":"A"},{"role":"user","content":"a"},{"role":"user","content":"b"}]}),
            ],
        );
        let p = &pairs(&s)[0];
        assert!(p.dropped.is_empty());
        assert_eq!(p.rewrite.as_ref().map(|r| r.pointer.as_str()), Some("/messages/0"));
    }

    #[test]
    fn system_part_rendered_as_system_tagged_user_text_is_not_dropped() {
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                json!({"messages":[{"role":"user","content":"a"},{"role":"system","content":"Tools loaded."},{"role":"assistant","content":"b"}]}),
                json!({"messages":[{"role":"user","content":"a"},{"role":"user","content":"<system>Tools loaded.</system>"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}),
            ],
        );
        let p = &pairs(&s)[0];
        assert!(p.dropped.is_empty());
        assert_eq!(p.rewrite.as_ref().map(|r| r.pointer.as_str()), Some("/messages/1"));
    }

    #[test]
    fn replaced_system_message_is_a_rewrite() {
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                json!({"messages":[{"role":"system","content":"S1"},{"role":"user","content":"a"}]}),
                json!({"messages":[{"role":"system","content":"S2"},{"role":"user","content":"a"},{"role":"user","content":"b"}]}),
            ],
        );
        let p = &pairs(&s)[0];
        assert!(p.dropped.is_empty());
        let r = p.rewrite.as_ref().expect("rewrite");
        assert_eq!((r.level, r.pointer.as_str()), (Level::System, "/messages/0"));
        assert!(r.diff.contains("-S1") && r.diff.contains("+S2"));
    }

    #[test]
    fn prefix_of_previous_history_is_not_a_rewrite() {
        let s = stream(
            crate::formats::anthropic::ID,
            &[
                json!({"system":"S","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]}),
                json!({"system":"S","messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]}),
            ],
        );
        let p = &pairs(&s)[0];
        assert!(p.rewrite.is_none() && p.dropped.is_empty());
    }

    #[test]
    fn retry_with_other_tools_is_still_not_a_rewrite() {
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                json!({"tools":[{"name":"a"}],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}),
                json!({"tools":[{"name":"b"}],"messages":[{"role":"user","content":"a"}]}),
            ],
        );
        // Disjoint tool sets without a system prompt are two agents (issue 31): not compared at all.
        assert!(pairs(&s).iter().all(|p| p.rewrite.is_none()));
    }

    #[test]
    fn a_slot_that_holds_its_prompt_again_is_no_rewrite_of_it() {
        let u = "You are a researcher. ".repeat(12);
        let u = u.trim();
        assert!(copies_again(u, &format!("{u}\n\n{u}")));
        assert!(copies_again(&format!("{u} {u}"), &format!("{u} {u} {u}")));
        assert!(!copies_again(u, &format!("{u}\n\nAnd be brief.")));
        assert!(!copies_again(u, u));
        assert!(!copies_again("", "x x"));
    }

    #[test]
    fn tools_change_is_reported_first() {
        let s = stream(
            crate::formats::anthropic::ID,
            &[
                json!({"tools":[{"name":"a"}],"messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}),
                json!({"system":"Be brief.","tools":[{"name":"b"}],"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}),
                // The same system prompt: one agent, whose tools are no longer sent.
                json!({"system":"Be brief.","messages":[{"role":"user","content":[{"type":"text","text":"x"}]},{"role":"assistant","content":[{"type":"text","text":"y"}]}]}),
            ],
        );
        let l = links(&s);
        assert_eq!(l[1], Link::NewConversation { prev: 0 });
        let p = &pairs(&s)[0];
        let r = p.rewrite.as_ref().expect("rewrite");
        assert_eq!((r.level, r.pointer.as_str()), (Level::Tools, ""));
    }

    fn chat(system: Option<&str>, tools: &[&str], msgs: Value) -> Value {
        let mut m = msgs.as_array().cloned().unwrap_or_default();
        if let Some(s) = system {
            m.insert(0, json!({"role": "system", "content": s}));
        }
        let mut b = json!({ "messages": m });
        if !tools.is_empty() {
            b["tools"] = tools.iter().map(|t| json!({"type": "function", "function": {"name": t}})).collect();
        }
        b
    }

    #[test]
    fn a_dated_snapshot_is_its_alias_model() {
        assert!(same_model("gpt-5", "gpt-5-2025-08-07"));
        assert!(same_model("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"));
        assert!(same_model("openai/gpt-4o", "gpt-4o"));
        assert!(!same_model("gpt-4o", "gpt-4o-mini"));
        assert!(!same_model("gpt-3.5-turbo", "gpt-4o-mini"));
        assert!(same_model("gpt-4", "gpt-4-0613"));
        assert!(!same_model("claude-3", "claude-3-5-sonnet"));
    }

    #[test]
    fn lanes_compare_each_agent_with_its_own_previous_request() {
        let q = json!({"role": "user", "content": "GDP of France?"});
        let sup = "You are a supervisor managing workers: researcher, coder.";
        let res = "You are a research assistant. Use web_search.";
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                chat(Some(sup), &["route"], json!([q.clone()])),
                chat(Some(res), &["web_search"], json!([q.clone()])),
                chat(Some(res), &["web_search"], json!([q.clone(), {"role":"assistant","content":"3 T"}])),
                chat(Some(sup), &["route"], json!([q.clone(), {"role":"assistant","content":"3 T"}])),
                chat(None, &["run_python"], json!([q.clone(), {"role":"assistant","content":"3 T"}])),
            ],
        );
        let l = links(&s);
        assert_eq!(l[1], Link::NewLane { prev: 0 });
        assert_eq!(l[2], Link::Continues { prev: 1, chained: false });
        assert_eq!(l[3], Link::Continues { prev: 0, chained: false });
        assert_eq!(l[4], Link::NewLane { prev: 3 });
        assert!(pairs(&s).iter().all(|p| p.rewrite.is_none() && p.dropped.is_empty()));
        let lanes = lanes(&s);
        assert_eq!(
            lanes.iter().map(|l| (l.lane, l.compared_with)).collect::<Vec<_>>(),
            vec![(0, None), (1, None), (1, Some(1)), (0, Some(0)), (2, None)]
        );
        assert_eq!(lanes[4].agent, "no system prompt, tools run_python");
    }

    #[test]
    fn agents_from_one_prompt_template_with_disjoint_tools_are_two_lanes() {
        let t = "You are a helpful AI assistant, collaborating with other assistants. You have access to the following tools: ";
        let q = json!({"role": "user", "content": "Chart the GDP."});
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                chat(Some(format!("{t}search.").as_str()), &["search"], json!([q.clone()])),
                chat(
                    Some(format!("{t}python_repl.").as_str()),
                    &["python_repl"],
                    json!([q.clone(), {"role":"assistant","content":"x"}]),
                ),
                // The same prompt with another tool set: a retry that swaps the tools, compared.
                chat(
                    Some(format!("{t}search.").as_str()),
                    &["fetch"],
                    json!([q.clone(), {"role":"assistant","content":"y"}]),
                ),
            ],
        );
        let l = links(&s);
        assert_eq!(l[1], Link::NewLane { prev: 0 });
        assert_eq!(l[2], Link::Continues { prev: 0, chained: false });
        let same = stream(
            crate::formats::openai_chat::ID,
            &[
                chat(Some("Respond using the TranscriptSummary function."), &["TranscriptSummary"], json!([q.clone()])),
                chat(
                    Some("Respond using the TranscriptSummary function."),
                    &["Patch"],
                    json!([q.clone(), {"role":"assistant","content":"y"}]),
                ),
            ],
        );
        assert_eq!(links(&same)[1], Link::Continues { prev: 0, chained: false });
        assert_eq!(pairs(&same)[0].rewrite.as_ref().map(|r| r.level), Some(Level::Tools));
    }

    #[test]
    fn a_new_call_from_the_same_point_is_not_a_rewrite_a_kept_reply_is() {
        let demos = json!([{"role":"user","content":"Q: capital of Germany?"},{"role":"assistant","content":"Berlin"}]);
        let with = |q: &str| {
            let mut m = demos.as_array().cloned().unwrap_or_default();
            m.push(json!({"role": "user", "content": q}));
            chat(Some("Answer."), &[], Value::Array(m))
        };
        let s = stream(crate::formats::openai_chat::ID, &[with("Q: largest planet?"), with("Q: 7 times 8?")]);
        assert_eq!(links(&s)[1], Link::Continues { prev: 0, chained: false });
        assert!(pairs(&s)[0].rewrite.is_none());
        // A changed earlier turn with the reply after it kept: a rewrite.
        let s = stream(
            crate::formats::openai_chat::ID,
            &[
                chat(
                    None,
                    &[],
                    json!([{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]),
                ),
                chat(
                    None,
                    &[],
                    json!([{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c2"},{"role":"assistant","content":"d"},{"role":"user","content":"e"}]),
                ),
            ],
        );
        assert_eq!(pairs(&s)[0].rewrite.as_ref().map(|r| r.pointer.as_str()), Some("/messages/2"));
    }

    #[test]
    fn tool_names_of_every_provider_shape() {
        assert_eq!(tool_names(r#"[{"type":"function","function":{"name":"b"}},{"name":"a"}]"#), vec!["a", "b"]);
        assert_eq!(
            tool_names(r#"[{"functionDeclarations":[{"name":"x"},{"name":"y"}]},{"googleSearch":{}}]"#),
            vec!["googleSearch", "x", "y"]
        );
        assert_eq!(tool_names(r#"{"tools":[{"toolSpec":{"name":"t"}}]}"#), vec!["t"]);
    }

    #[test]
    fn a_chained_request_sending_the_prompt_again_asks_nothing_new() {
        let id = crate::formats::openai_responses::ID;
        let next = |q: &str| json!({"previous_response_id":"r","input":[{"role":"user","content":q},{"type":"function_call_output","call_id":"c","output":"x"}]});
        let first = json!({"instructions":"I","input":[{"role":"user","content":"What is my net worth?"}]});
        let again = &pairs(&stream(id, &[first.clone(), next("What is my net worth?")]))[0];
        assert_eq!((again.dropped.len(), again.new_user_turn), (1, false));
        let other = &pairs(&stream(id, &[first, next("And my debts?")]))[0];
        assert_eq!((other.dropped.len(), other.new_user_turn), (1, true));
    }

    #[test]
    fn slot_missing_is_dropped() {
        let s = stream(
            crate::formats::openai_responses::ID,
            &[
                json!({"instructions":"I","input":"a"}),
                json!({"previous_response_id":"r","input":[{"type":"function_call_output","call_id":"c","output":"x"}]}),
            ],
        );
        let p = &pairs(&s)[0];
        assert_eq!(p.dropped.len(), 1);
        assert_eq!(p.dropped[0].slot, Some(SlotKind::Instructions));
        assert!(!p.new_user_turn);
        assert!(p.rewrite.is_none());
    }

    #[test]
    fn a_slot_prompt_sent_again_under_another_framing_is_moved_a_quarter_of_it_is_dropped() {
        let summary = "the user is Bob, he likes the Boston Celtics because they win a lot, and we discussed their 17 championships";
        let sys = format!("Summary of conversation earlier: {summary}");
        let first = json!({"system": sys, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]});
        let again = |text: String| {
            json!({"max_tokens": 10, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                   {"role": "user", "content": text}]})
        };
        let id = crate::formats::anthropic::ID;
        // (Not a summariser's request: that is another agent's side call.)
        let moved = again(format!("Notes from before: {summary}\n\nGo on:"));
        let p = &pairs(&stream(id, &[first.clone(), moved]))[0];
        assert!(p.dropped.is_empty());
        let r = p.rewrite.as_ref().unwrap();
        assert_eq!(
            (r.level, r.what.as_str()),
            (Level::System, "the `system` slot is no longer sent (its text is sent elsewhere)")
        );
        let quarter = again(format!("Extend this: {}", &summary[..summary.len() / 2]));
        assert_eq!(pairs(&stream(id, &[first, quarter]))[0].dropped.len(), 1);
    }
}
