//! `openai-agents-session`: an OpenAI Agents SDK session's items, as the SDK
//! keeps them — a JSON list of Responses input items (`await
//! session.get_items()`, one row of `agent_messages.message_data` each in a
//! `SQLiteSession` database).
//!
//! Format facts from openai/openai-agents-python `src/agents/memory/session.py`
//! and `sqlite_session.py` (`add_items` appends one row per item,
//! `get_items` returns them in row order; `SessionSettings(limit)` returns the
//! last N), checked against files openai-agents 0.24 wrote against a stub
//! provider: items are Responses input items — easy messages `{role,
//! content}`, `message` (`output_text` parts), `function_call` (`call_id`,
//! `name`, `arguments`), `function_call_output` (`call_id`, `output`),
//! `reasoning`, hosted-tool calls — and the runner sends them, in order, as
//! the next request's `input`.
//!
//! One file is one history snapshot (SPEC §1): each item is one message
//! (pointer `/i`), read as the Responses loader reads input items. A list
//! that repeats its own beginning — the whole history saved again after
//! itself (`session.add_items(await session.get_items())`, instead of only
//! the new items) — is `not-append-only` at the first repeated item
//! ([`Request::resaved`]); the repeated items are not read again, so their
//! calls and results are not reported a second time.

use super::body::*;
use super::openai_responses::parse_item;
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = "openai-agents-session";

/// Responses input item types (OpenAI API reference, `ResponseInputItem`).
const ITEM_TYPES: &[&str] = &[
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "custom_tool_call",
    "custom_tool_call_output",
    "computer_call",
    "computer_call_output",
    "file_search_call",
    "web_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "local_shell_call",
    "local_shell_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "item_reference",
    "compaction",
];

/// Whether a document is a list of Responses input items: every element an
/// item with a known `type`, or an easy message (`role` and `content`, no
/// `type`), and at least one element carries a `type` or an assistant /
/// tool-call shape (a bare list of `{role, content}` chat messages alone is
/// not claimed).
pub fn sniff(v: &Value) -> bool {
    let Some(a) = v.as_array() else { return false };
    !a.is_empty()
        && a.iter().any(|it| it.get("type").and_then(Value::as_str).is_some_and(|t| ITEM_TYPES.contains(&t)))
        && a.iter().all(|it| match it.get("type").and_then(Value::as_str) {
            Some(t) => ITEM_TYPES.contains(&t),
            None => {
                it.get("role").is_some_and(Value::is_string) && it.get("content").is_some() && it.get("parts").is_none()
            }
        })
}

/// Whether a document can be read as an item list when the format is forced
/// (`--input-format`): as [`sniff`], but a list of easy messages alone
/// (`[{role, content}, …]`, which the SDK keeps for a chat without tool
/// calls) fits too.
pub fn fits(v: &Value) -> bool {
    sniff(v)
        || v.as_array().is_some_and(|a| {
            !a.is_empty()
                && a.iter().all(|it| {
                    it.get("type").is_none()
                        && it.get("role").is_some_and(Value::is_string)
                        && it.get("content").is_some()
                        && it.get("parts").is_none()
                })
        })
}

/// Parses an item list at `base` into one request-like element.
pub fn parse(v: &Value, path: &Arc<str>, index: usize, base: &str) -> Request {
    let mut r = new_request(path, ID, index, base);
    let Some(items) = v.as_array() else { return r };
    let items: Vec<(String, &Value)> = items.iter().enumerate().map(|(i, it)| (ptr_idx(base, i), it)).collect();
    read_items(&mut r, &items);
    r
}

/// Reads a session's items (each with its JSON Pointer) into `r`'s messages.
fn read_items(r: &mut Request, items: &[(String, &Value)]) {
    let hashes: Vec<u64> = items.iter().map(|(_, it)| chash(it)).collect();
    let copy = resaved_at(&hashes).map_or(0..0, |(at, n)| {
        r.resaved = Some((items[at].0.clone(), items[0].0.clone(), n));
        at..at + n
    });
    for (i, (ptr, it)) in items.iter().enumerate() {
        if copy.contains(&i) {
            continue;
        }
        let mut m = parse_item(it, ptr.clone());
        if m.kind == MessageKind::ToolResult {
            m.result = Some(Box::default());
        }
        r.messages.push(m);
    }
}

/// The items table of an Agents SDK `SQLiteSession` database: the table
/// with `id`, `session_id` and `message_data` columns (`agent_messages` by
/// default; `SQLiteSession(messages_table=…)` renames it).
pub fn items_table(tables: &[(String, Vec<String>)]) -> Option<&str> {
    let has = |cols: &[String], c: &str| cols.iter().any(|x| x == c);
    tables
        .iter()
        .filter(|(_, cols)| has(cols, "id") && has(cols, "session_id") && has(cols, "message_data"))
        .min_by_key(|(n, _)| n != "agent_messages")
        .map(|(n, _)| n.as_str())
}

/// Loads an Agents SDK `SQLiteSession` database (`sqlite_session.py`:
/// `agent_sessions(session_id, created_at, updated_at)` and
/// `agent_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id,
/// message_data TEXT, created_at)`; `add_items` inserts one row per item,
/// `get_items` returns a session's rows in insertion order). Every session
/// is one history snapshot of the stream, named by its session id (sessions
/// are never one conversation), in the order of their first row. A message's
/// pointer is `/<table>/<row id>/message_data` and then into the item. A row
/// whose `message_data` is not JSON is not read, and `check` warns about it.
pub fn load_db(src: &crate::source::SourceRef) -> crate::error::Result<Input> {
    use super::sqlite;
    let db = sqlite::open(src)?;
    let bad = |e: rusqlite::Error| crate::error::Error::BadInput {
        path: src.display.clone().into(),
        format: ID.to_string(),
        reason: format!("cannot read the session database: {e}"),
    };
    let tables = sqlite::tables(&db.conn).map_err(bad)?;
    let Some(table) = items_table(&tables) else {
        return Err(crate::error::Error::BadInput {
            path: src.display.clone().into(),
            format: ID.to_string(),
            reason: "an SQLite database without an Agents SDK items table (columns `id`, `session_id`, `message_data`)"
                .into(),
        });
    };
    let sql = format!("SELECT id, session_id, message_data FROM {} ORDER BY id", sqlite::ident(table));
    let mut st = db.conn.prepare(&sql).map_err(bad)?;
    let rows = st
        .query_map([], |r| {
            let id: i64 = r.get(0)?;
            let sid: String = r.get::<_, Option<String>>(1)?.unwrap_or_default();
            let data = match r.get_ref(2)? {
                rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => Ok(t.to_vec()),
                _ => Err(()),
            };
            Ok((id, sid, data))
        })
        .map_err(bad)?;
    let mut sessions: Vec<(String, Vec<(String, Value)>)> = Vec::new();
    let mut unread = Vec::new();
    for row in rows {
        let (id, sid, data) = row.map_err(bad)?;
        let ptr = format!("/{}/{id}/message_data", sqlite::pointer_token(table));
        let item = match data.map(|d| serde_json::from_slice::<Value>(&d)) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                unread.push(Unread {
                    line: None,
                    pointer: ptr,
                    what: format!("row {id} of `{table}`: `message_data` is not JSON ({e})"),
                });
                continue;
            }
            Err(()) => {
                unread.push(Unread {
                    line: None,
                    pointer: ptr,
                    what: format!("row {id} of `{table}`: `message_data` is not text"),
                });
                continue;
            }
        };
        match sessions.iter_mut().find(|(s, _)| *s == sid) {
            Some((_, items)) => items.push((ptr, item)),
            None => sessions.push((sid, vec![(ptr, item)])),
        }
    }
    let path: Arc<str> = src.display.as_str().into();
    let mut requests = Vec::with_capacity(sessions.len());
    for (i, (sid, items)) in sessions.iter().enumerate() {
        let mut r = new_request(&path, ID, i, &format!("/{}", sqlite::pointer_token(table)));
        let refs: Vec<(String, &Value)> = items.iter().map(|(p, v)| (p.clone(), v)).collect();
        read_items(&mut r, &refs);
        r.session_id = Some(sid.as_str().into());
        r.label = Some(format!("session `{sid}`").into());
        requests.push(r);
    }
    Ok(Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests }),
        bad_lines: Vec::new(),
        more_bad_lines: 0,
        skipped: 0,
        unknown_records: 0,
        unread,
    })
}

/// Where the list repeats its own beginning: `(start of the copy, items
/// copied)` for the first `k` at which `hashes[k..k+n] == hashes[..n]` with
/// `n = min(k, len - k)` of at least 2 items — a history saved again after
/// itself.
fn resaved_at(hashes: &[u64]) -> Option<(usize, usize)> {
    let len = hashes.len();
    (2..=len.saturating_sub(2)).find_map(|k| {
        let n = k.min(len - k);
        (n >= 2 && hashes[k..k + n] == hashes[..n]).then_some((k, n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_and_a_history_saved_after_itself() {
        let h = json!([
            {"content": "hi", "role": "user"},
            {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}", "id": "fc1", "status": "completed"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {"type": "message", "role": "assistant", "id": "m1", "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        ]);
        assert!(sniff(&h));
        let r = parse(&h, &Arc::from("s.json"), 0, "");
        assert_eq!(r.messages.len(), 4);
        assert!(r.resaved.is_none());
        let mut twice = h.as_array().unwrap().clone();
        twice.extend(h.as_array().unwrap().clone());
        twice.push(json!({"content": "next", "role": "user"}));
        let r = parse(&Value::Array(twice), &Arc::from("s.json"), 0, "");
        assert_eq!(r.resaved, Some(("/4".to_string(), "/0".to_string(), 4)));
        let ptrs: Vec<&str> = r.messages.iter().map(|m| &*m.pointer).collect();
        assert_eq!(ptrs, ["/0", "/1", "/2", "/3", "/8"]);
        // Chat messages alone, a UI message list or a pydantic-ai history are not items.
        assert!(!sniff(&json!([{"role": "user", "content": "hi"}])));
        assert!(!sniff(&json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}]}])));
    }
}
