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
//! the next request's `input`. The SDK for JavaScript (openai/openai-agents-js
//! `packages/agents-core/src/types/protocol.ts`) writes the same items with
//! `callId` for `call_id` and its results as `function_call_result` (`output`
//! `{type: "text", text}`) and `computer_call_result`: read as the Responses
//! items it sends for them.
//!
//! One file is one history snapshot (docs/spec.md §1): each item is one message
//! (pointer `/i`), read as the Responses loader reads input items. A list
//! that repeats its own beginning — the whole history saved again after
//! itself (`session.add_items(await session.get_items())`, instead of only
//! the new items) — is `not-append-only` at the first repeated item
//! ([`Request::resaved`]); the repeated items are not read again, so their
//! calls and results are not reported a second time.

use super::body::*;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Shape, Sniffer, TableSniffer};
use super::openai_responses::parse_item;
use crate::model::*;
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("openai-agents-session");

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

/// The result item types of the OpenAI Agents SDK for JavaScript
/// (openai/openai-agents-js `packages/agents-core/src/types/protocol.ts`),
/// whose items are otherwise the Responses ones with `callId` for `call_id`.
const JS_RESULT_TYPES: &[(&str, &str)] =
    &[("function_call_result", "function_call_output"), ("computer_call_result", "computer_call_output")];

fn known_type(t: &str) -> bool {
    ITEM_TYPES.contains(&t) || JS_RESULT_TYPES.iter().any(|(js, _)| *js == t)
}

/// A JavaScript Agents SDK item (see [`JS_RESULT_TYPES`]) as the Responses
/// input item the SDK sends for it: `callId` read as `call_id`, a
/// `function_call_result` as a `function_call_output` whose `output` is the
/// result's text (`{"type":"text","text":…}`) or, otherwise, the result as
/// it is. `None` for an item already in the Responses shape.
fn js_item(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
    let result = JS_RESULT_TYPES.iter().find(|(js, _)| *js == ty).map(|(_, r)| *r);
    let renamed_id = o.contains_key("callId") && !o.contains_key("call_id");
    if result.is_none() && !renamed_id {
        return None;
    }
    let mut out = o.clone();
    if let Some(id) = out.remove("callId") {
        out.entry("call_id").or_insert(id);
    }
    if let Some(r) = result {
        out.insert("type".into(), Value::String(r.into()));
        if let Some(Value::Object(res)) = out.get("output") {
            if res.get("type").and_then(Value::as_str) == Some("text") {
                if let Some(t) = res.get("text").cloned() {
                    out.insert("output".into(), t);
                }
            }
        }
    }
    Some(Value::Object(out))
}

/// Whether a document is a list of Responses input items: every element an
/// item with a known `type` (the JavaScript SDK's result items too), or an
/// easy message (`role` and `content`, no `type`), and at least one element
/// carries a `type` or an assistant / tool-call shape (a bare list of
/// `{role, content}` chat messages alone is not claimed).
pub fn sniff(v: &Value) -> bool {
    let Some(a) = v.as_array() else { return false };
    !a.is_empty()
        && a.iter().any(|it| it.get("type").and_then(Value::as_str).is_some_and(known_type))
        && a.iter().all(|it| match it.get("type").and_then(Value::as_str) {
            Some(t) => known_type(t),
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
    read_items_with_gaps(r, items, &[], &[]);
}

/// [`read_items`], with `gaps`: for each item that could not be read, how
/// many readable items came before it (ascending); they become
/// [`Request::gaps`].
fn read_items_with_gaps(r: &mut Request, items: &[(String, &Value)], gaps: &[usize], times: &[Option<i64>]) {
    let hashes: Vec<u64> = items.iter().map(|(_, it)| chash(it)).collect();
    // A history with a gap is not judged as saved again after itself; nor
    // one whose copy was written long after the item before it: a re-save
    // follows the run that wrote that item (`add_items` right after
    // `Runner.run`), and items written minutes later are a new run of the
    // same prompts that got the same answers (a demo script run again).
    let later_run = |at: usize| match (times.get(at.wrapping_sub(1)), times.get(at)) {
        (Some(Some(a)), Some(Some(b))) => b - a > RERUN_GAP_SECONDS,
        _ => false,
    };
    let copy = if gaps.is_empty() { resaved_at(&hashes) } else { None }.filter(|&(at, _)| !later_run(at));
    let copy = copy.map_or(0..0, |(at, n)| {
        r.resaved = Some((items[at].0.clone(), items[0].0.clone(), n));
        at..at + n
    });
    let mut gaps = gaps.iter().peekable();
    for (i, (ptr, it)) in items.iter().enumerate() {
        while gaps.next_if(|&&g| g <= i).is_some() {
            r.gaps.push(r.messages.len() as u32);
        }
        if copy.contains(&i) {
            continue;
        }
        let js = js_item(it);
        let mut m = parse_item(js.as_ref().unwrap_or(it), ptr.clone());
        if m.kind == MessageKind::ToolResult {
            m.result = Some(Box::default());
        }
        r.messages.push(Arc::new(m));
    }
    for _ in gaps {
        r.gaps.push(r.messages.len() as u32);
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

/// One row of the items table, owned: its row id (when an integer), its id
/// as text, its session (`None`: missing or not UTF-8 text, a damaged cell;
/// the SDK always writes one), and its item or why it cannot be read.
struct StoredRow {
    rowid: Option<i64>,
    id: String,
    session: Option<String>,
    item: Result<Value, String>,
    /// `created_at` in seconds (when the table has it and it reads as a time).
    time: Option<i64>,
}

impl StoredRow {
    fn of(row: &rusqlite::Row<'_>) -> StoredRow {
        use rusqlite::types::ValueRef as V;
        let rowid = match row.get_ref(0) {
            Ok(V::Integer(i)) => Some(i),
            _ => None,
        };
        let id = row.get_ref(0).ok().and_then(super::sqlite::text_lossy).unwrap_or_default();
        let session = match row.get_ref(1) {
            Ok(V::Text(t)) => std::str::from_utf8(t).ok().map(str::to_string),
            Ok(V::Integer(_) | V::Real(_)) => row.get_ref(1).ok().and_then(super::sqlite::text_lossy),
            _ => None,
        };
        let item = match row.get_ref(2) {
            Ok(V::Text(t) | V::Blob(t)) => match serde_json::from_slice::<Value>(t) {
                Ok(v) if v.is_object() => match item_problem(&v) {
                    None => Ok(v),
                    Some(why) => Err(why),
                },
                Ok(v) => Err(format!("`message_data` is JSON but not an object ({})", json_kind(&v))),
                Err(e) => Err(format!("`message_data` is not JSON ({e})")),
            },
            Ok(_) => Err("`message_data` is not text".to_string()),
            Err(e) => Err(format!("`message_data` cannot be read ({e})")),
        };
        let time = match row.get_ref(3) {
            Ok(V::Text(t)) => std::str::from_utf8(t).ok().and_then(sql_time),
            Ok(V::Integer(i)) => Some(i),
            Ok(V::Real(f)) if f.is_finite() => Some(f as i64),
            _ => None,
        };
        StoredRow { rowid, id, session, item, time }
    }
}

/// Seconds since 0000-03-01 (a monotonic count, not an epoch) of an SQLite
/// `CURRENT_TIMESTAMP` text (`YYYY-MM-DD HH:MM:SS`, a `T` or fractions
/// allowed), as the SDK's `created_at` default writes it; `None` for
/// anything else.
fn sql_time(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b' ' | b'T') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let n = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, se) = (n(0..4)?, n(5..7)?, n(8..10)?, n(11..13)?, n(14..16)?, n(17..19)?);
    // Days from a civil date (Howard Hinnant's algorithm, shifted to March).
    let (y, m) = if mo <= 2 { (y - 1, mo + 9) } else { (y, mo - 3) };
    let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d - 1;
    Some(((days * 24 + h) * 60 + mi) * 60 + se)
}

/// The rows read so far: per session its id, its items (pointer, item) and
/// its gaps (how many items were read before each row not read); and the
/// rows not read.
struct Rows<'a> {
    table: &'a str,
    sessions: Vec<SessionRows>,
    /// Each session's place in `sessions` (a lookup per row: linear in the rows).
    at: foldhash::HashMap<String, usize>,
    unread: Vec<Unread>,
}

/// A session's id, its items (pointer, item), its gaps, and its items'
/// `created_at` seconds (aligned with the items).
type SessionRows = (String, Vec<(String, Value)>, Vec<usize>, Vec<Option<i64>>);

impl Rows<'_> {
    fn gap_everywhere(&mut self) {
        for (_, items, gaps, _) in &mut self.sessions {
            gaps.push(items.len());
        }
    }

    fn take(&mut self, r: StoredRow) {
        use super::sqlite::pointer_token;
        let table = self.table;
        let ptr = format!("/{}/{}/message_data", pointer_token(table), pointer_token(&r.id));
        let id = &r.id;
        // A row whose session is not known may belong to any session.
        let Some(sid) = r.session else {
            self.unread.push(Unread {
                line: None,
                pointer: ptr,
                what: format!(
                    "row {id} of `{table}`: `session_id` is missing or not text, so its session is not known"
                ),
            });
            self.gap_everywhere();
            return;
        };
        let at = match self.at.get(&sid) {
            Some(&k) => k,
            None => {
                self.at.insert(sid.clone(), self.sessions.len());
                self.sessions.push((sid, Vec::new(), Vec::new(), Vec::new()));
                self.sessions.len() - 1
            }
        };
        let (_, items, gaps, times) = &mut self.sessions[at];
        match r.item {
            Ok(v) => {
                items.push((ptr, v));
                times.push(r.time);
            }
            Err(why) => {
                self.unread.push(Unread { line: None, pointer: ptr, what: format!("row {id} of `{table}`: {why}") });
                gaps.push(items.len());
            }
        }
    }

    /// Takes every row of `rows` until their end or the first error; returns
    /// the last row id read and the error, if one ended them.
    fn take_all(&mut self, rows: &mut rusqlite::Rows<'_>) -> (Option<i64>, Option<rusqlite::Error>) {
        let mut last = None;
        loop {
            match rows.next() {
                Ok(Some(row)) => {
                    let r = StoredRow::of(row);
                    last = r.rowid.or(last);
                    self.take(r);
                }
                Ok(None) => return (last, None),
                Err(e) => return (last, Some(e)),
            }
        }
    }

    /// Rows lost to a damaged page: ids `a` to `b`, or (`None`) every row
    /// after the last one read.
    fn lost(&mut self, run: Option<(i64, i64)>, e: &rusqlite::Error) {
        let table = self.table;
        let (pointer, which) = match run {
            Some((a, b)) if a == b => (format!("/{}/{a}", super::sqlite::pointer_token(table)), format!("row {a}")),
            Some((a, b)) => (format!("/{}/{a}", super::sqlite::pointer_token(table)), format!("rows {a} to {b}")),
            None => (format!("/{}", super::sqlite::pointer_token(table)), "the rows from there on".into()),
        };
        self.unread.push(Unread {
            line: None,
            pointer,
            what: format!("{which} of `{table}` could not be read: the database is damaged there (SQLite: {e})"),
        });
        self.gap_everywhere();
    }
}

/// Loads an Agents SDK `SQLiteSession` database (`sqlite_session.py`:
/// `agent_sessions(session_id, created_at, updated_at)` and
/// `agent_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id,
/// message_data TEXT, created_at)`; `add_items` inserts one row per item,
/// `get_items` returns a session's rows in insertion order). Every session
/// is one history snapshot of the stream, named by its session id (sessions
/// are never one conversation), in the order of their first row. A message's
/// pointer is `/<table>/<row id>/message_data` and then into the item. A row
/// whose `message_data` is not a JSON object is not read, and `check` warns
/// about it; so are the rows past a damaged page. Calls and results around
/// a row not read are not judged ([`Request::gaps`]).
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
    // `created_at` when the table has it (`SQLiteSession` and
    // `SQLAlchemySession` do): a re-save is told from a new run by it.
    let has_time = tables.iter().any(|(t, cols)| t == table && cols.iter().any(|c| c == "created_at"));
    let cols = if has_time { "id, session_id, message_data, created_at" } else { "id, session_id, message_data" };
    let sql = format!("SELECT {cols} FROM {} ORDER BY id", sqlite::ident(table));
    let mut st = db.conn.prepare(&sql).map_err(bad)?;
    // Any cell of any type is read (`StoredRow::of`): a value that is not
    // what the SDK writes is a warning about that row, never an error about
    // the whole store.
    let mut rows = st.query([]).map_err(bad)?;
    let mut read = Rows { table, sessions: Vec::new(), at: Default::default(), unread: Vec::new() };
    let (last_id, damaged) = read.take_all(&mut rows);
    drop(rows);
    drop(st);
    if let Some(e) = damaged {
        // A damaged page ends the scan. The scan starts again after it: the
        // first row id past the damaged pages is found by seeks on the id
        // (each seek walks the tree from its root; an exponential search,
        // then a binary one, over where to seek from: a few dozen seeks per
        // damaged run, whatever the ids), so only the rows on the damaged
        // pages are lost; each run of them is a warning and a gap in every
        // session.
        let t = sqlite::ident(table);
        let seek = format!("SELECT id FROM {t} WHERE id >= ?1 ORDER BY id LIMIT 1");
        let scan = format!("SELECT {cols} FROM {t} WHERE id >= ?1 ORDER BY id");
        // The next row id at or after `p` (Ok(None): none), or Err when the seek meets damage.
        let probe = |p: i64| -> Result<Option<i64>, ()> {
            db.conn.query_row(&seek, [p], |r| r.get::<_, i64>(0)).map(Some).or_else(|err| match err {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                _ => Err(()),
            })
        };
        // Positions are i128 so that neither the doubling step nor the
        // midpoint can overflow, whatever ids the damaged pages left (a seek
        // from i64::MIN with a step that stopped growing once looped forever).
        let mut lo: i128 = last_id.map_or(i128::from(i64::MIN), |id| i128::from(id) + 1); // the first id not read
        let max = i128::from(i64::MAX);
        let at = |p: i128| i64::try_from(p.min(max)).unwrap_or(i64::MAX);
        loop {
            if lo > max {
                break;
            }
            // Past `lo`, the smallest place to seek from that meets no damage.
            let (mut bad, mut step) = (lo, 1i128);
            let good = loop {
                let p = (lo + step).min(max);
                match probe(at(p)) {
                    Ok(next) => break Some((p, next)),
                    Err(()) if p == max => break None,
                    Err(()) => (bad, step) = (p, step * 2),
                }
            };
            let Some((mut hi, mut next)) = good else {
                read.lost(None, &e);
                break;
            };
            while hi - bad > 1 {
                let mid = bad + (hi - bad) / 2;
                match probe(at(mid)) {
                    Ok(n) => (hi, next) = (mid, n),
                    Err(()) => bad = mid,
                }
            }
            let Some(resume) = next else {
                read.lost(None, &e);
                break;
            };
            read.lost(Some((at(lo), resume.saturating_sub(1))), &e);
            // Read on from `resume` until the end or the next damage.
            let (last, failed) = match db.conn.prepare(&scan) {
                Ok(mut st) => match st.query([resume]) {
                    Ok(mut rows) => read.take_all(&mut rows),
                    Err(err) => (None, Some(err)),
                },
                Err(err) => (None, Some(err)),
            };
            if failed.is_none() {
                break;
            }
            let from = last.map_or(i128::from(resume), |id| i128::from(id) + 1);
            if from <= lo {
                read.lost(None, &e);
                break;
            }
            lo = from;
        }
    }
    let Rows { sessions, mut unread, .. } = read;
    if let Some(w) = db.wal_warning() {
        unread.push(Unread { line: None, pointer: String::new(), what: w });
    }
    let path: Arc<str> = src.display.as_str().into();
    let mut requests = Vec::with_capacity(sessions.len());
    let mut interner = Interner::default();
    for (i, (sid, items, gaps, times)) in sessions.iter().enumerate() {
        let mut r = new_request(&path, ID, i, &format!("/{}", sqlite::pointer_token(table)));
        let refs: Vec<(String, &Value)> = items.iter().map(|(p, v)| (p.clone(), v)).collect();
        read_items_with_gaps(&mut r, &refs, gaps, times);
        r.session_id = Some(sid.as_str().into());
        r.label = Some(format!("session `{sid}`").into());
        interner.request(&mut r);
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

/// Item types whose `call_id` pairs a tool call with its result
/// (`openai_responses::parse_item`): without a string `call_id` the item
/// answers nothing and is answered by nothing.
const PAIRED: &[&str] = &[
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "computer_call",
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "computer_call_output",
];

/// Why a stored item (a JSON object) cannot be read as the SDK writes it,
/// if it cannot: a `type` that is not a string, no `type` and no `role`, a
/// tool call or result without a string `call_id`, or a type ctxlint does
/// not read that carries a `call_id` (a tool call or result of a kind added
/// later). Such a row is warned about and is a gap ([`Request::gaps`]):
/// the calls and results around it are not judged.
fn item_problem(v: &Value) -> Option<String> {
    let ty = match v.get("type") {
        None if v.get("role").is_some_and(Value::is_string) => return None,
        None => return Some("the item has neither `type` nor `role`".into()),
        Some(Value::String(t)) => t.as_str(),
        Some(t) => return Some(format!("the item's `type` is {}, not a string", json_kind(t))),
    };
    let call_id = v.get("call_id");
    if PAIRED.contains(&ty) {
        return match call_id {
            Some(Value::String(_)) => None,
            None => Some(format!("a `{ty}` item without `call_id`")),
            Some(c) => Some(format!("a `{ty}` item whose `call_id` is {}, not a string", json_kind(c))),
        };
    }
    let known = matches!(
        ty,
        "message"
            | "reasoning"
            | "web_search_call"
            | "file_search_call"
            | "mcp_call"
            | "mcp_list_tools"
            | "mcp_approval_request"
            | "mcp_approval_response"
            | "tool_search_call"
            | "tool_search_output"
            | "image_generation_call"
            | "code_interpreter_call"
            | "item_reference"
            | "compaction"
    );
    (!known && call_id.is_some()).then(|| format!("a `{ty}` item (a type ctxlint does not read) with a `call_id`"))
}

/// "a string", "an array", … : what a JSON value is, for messages.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How long after the item before it (seconds, by `created_at`) a copy of a
/// session's beginning is taken for a new run rather than a re-save.
const RERUN_GAP_SECONDS: i64 = 60;

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

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Snapshot { joins: false },
    encoding: Encoding::Json,
    detect: Detect {
        body: Some(Sniffer { rank: 1, test: sniff }),
        database: Some(TableSniffer { rank: 0, test: |t| items_table(t).is_some() }),
        ..Detect::NONE
    },
    fit: Fit::Document {
        test: |v| {
            (!fits(v)).then_some(
                "not an array of Responses input items (each with a `type` such as message, function_call or function_call_output, or an easy message `{role, content}`)",
            )
        },
        noun: "no request body",
    },
    read: Read::Body { parse, database: Some(load_db), elements: None },
    locate: Locate::Document { pointer: None },
    record: None,
    repro: super::format::BODY_REPRO,
    store: None,
    agent_folders: &[],
    about: About {
        what: "OpenAI Agents SDK session items: a JSON list of Responses input items, as get_items() returns them, or a SQLiteSession database (one history per session, read-only)",
        kind: "history snapshots",
        location: "wherever the application saves it (SQLiteSession(session_id, db_path))",
    },
};

#[cfg(test)]
mod tests {
    /// `created_at` as SQLite's `CURRENT_TIMESTAMP` writes it, to seconds.
    #[test]
    fn sql_times() {
        let t = |x| super::sql_time(x);
        assert_eq!(t("2025-07-10 15:30:41").unwrap() - t("2025-07-10 15:22:10").unwrap(), 511);
        assert_eq!(t("2025-03-01 00:00:00").unwrap() - t("2025-02-28 23:59:59").unwrap(), 1);
        assert_eq!(t("2025-07-10T15:30:41.123").unwrap(), t("2025-07-10 15:30:41").unwrap());
        assert_eq!(t("yesterday"), None);
        assert_eq!(t("2025-07-10"), None);
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn javascript_sdk_items_are_read_as_the_responses_items_they_are_sent_as() {
        let v = json!([
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Book a hotel"}]},
            {"type": "function_call", "id": "fc_1", "callId": "call_A", "name": "transfer", "status": "completed", "arguments": "{}"},
            {"type": "function_call_result", "name": "transfer", "callId": "call_A", "status": "completed",
             "output": {"type": "text", "text": "{\"assistant\":\"Hotel Agent\"}"}},
            {"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Which dates?"}]}
        ]);
        assert!(sniff(&v));
        let r = parse(&v, &Arc::from("history.json"), 0, "");
        let kinds: Vec<MessageKind> = r.messages.iter().map(|m| m.kind).collect();
        assert_eq!(kinds[2], MessageKind::ToolResult);
        assert_eq!(r.messages[1].blocks[0].tool_id.as_deref(), Some("call_A"));
        assert_eq!(r.messages[2].blocks[0].tool_id.as_deref(), Some("call_A"));
        assert_eq!(&*r.messages[2].blocks[0].text, "{\"assistant\":\"Hotel Agent\"}");
        assert_eq!(&*r.messages[2].pointer, "/2");
    }

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
