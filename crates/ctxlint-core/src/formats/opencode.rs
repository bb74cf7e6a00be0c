//! `opencode`: OpenCode's (and Kilo CLI's) SQLite store, `opencode.db`
//! (`kilo.db`), one transcript per session; and the legacy `storage/`
//! tree of OpenCode 1.1 and earlier, one transcript per session file.
//!
//! Format facts from sst/opencode (now anomalyco/opencode)
//! `packages/opencode/src/session/session.sql.ts` and `message-v2.ts`
//! (`toModelMessages`, `filterCompacted`), checked against the functions of
//! the opencode-ai 1.18.33 release binary and against databases 1.18.33 and
//! 1.2.1 wrote against a stub provider on 127.0.0.1 (with the requests it
//! sent):
//! - tables `session(id, parent_id, time_created, …)`, `message(id,
//!   session_id, time_created, time_updated, data)` and `part(id, message_id,
//!   session_id, …, data)`; `data` is the message's `MessageV2.Info` (role
//!   `user` / `assistant`, `parentID`, `error`, `finish`, `summary`, `time`)
//!   or the part's `MessageV2.Part` without their ids. A session's history is
//!   its messages by `time_created, id`; a message's parts are ordered by id.
//! - what is sent: user `text` parts unless `ignored` or empty (`synthetic`
//!   ones too: the runtime's own, so not a user turn, except the
//!   `compaction_continue` prompt that resumes the work after a compaction,
//!   which the model answers), `file` parts, a
//!   `compaction` part as the text "What did we do so far?", a `subtask`
//!   part as "The following tool was executed by the user". Assistant
//!   `text`, `reasoning` and `tool` parts: a tool part is the call and its
//!   result — `completed` its `output` (`[Old tool result content cleared]`
//!   once `time.compacted`), `error` its `error`, and `pending` / `running`
//!   the error "[Tool execution was interrupted]". A message without parts
//!   is skipped; an assistant message with `error` is a failed attempt, never
//!   sent again, except a `MessageAbortedError` that holds more than
//!   step-start and reasoning parts.
//! - compaction: a user message with a `compaction` part whose summary (an
//!   assistant message with `summary: true`, a `finish`, no `error`, and the
//!   compaction message as `parentID`) completed cuts the history: from it
//!   on only is sent. The summary call itself sends the conversation as one
//!   text, so it is not a step of the session.
//! - sub-agent sessions (`parent_id`) are sessions of their own.
//!
//! Entries are one per message (plus one for the results of its tool
//! parts), linear in history order; an entry's line is its position in the
//! session (the database has no lines: findings carry no line, and their
//! pointers name the row: `/message/<id>/data` or `/part/<id>/data/…`).
//! The database is opened as [`super::sqlite`] says: never written.

use super::body::{message, text_block};
use super::format::{
    About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Shape, Sniffer, Store, TableSniffer,
};
use super::sqlite;
use crate::error::{Error, Result};
use crate::hash::{hash_bytes, hash_str};
use crate::model::*;
use crate::source::{Line, SourceRef};
use rusqlite::OptionalExtension;
use serde_json::Value;

/// Format id.
pub const ID: FormatId = FormatId::new("opencode");

/// The text OpenCode sends for a `compaction` part (`toModelMessages`).
const COMPACTION_TEXT: &str = "What did we do so far?";
/// The text OpenCode sends for a `subtask` part.
const SUBTASK_TEXT: &str = "The following tool was executed by the user";
/// The result OpenCode sends for a tool part still pending or running.
const INTERRUPTED: &str = "[Tool execution was interrupted]";
/// The result OpenCode sends for a completed tool part whose output was pruned.
const CLEARED: &str = "[Old tool result content cleared]";

/// Whether the tables are an OpenCode store's: `session`, `message` and
/// `part`, the last two with a `data` column.
pub fn is_store(tables: &[(String, Vec<String>)]) -> bool {
    let cols = |n: &str| tables.iter().find(|(t, _)| t == n).map(|(_, c)| c.as_slice());
    let has = |n: &str, c: &str| cols(n).is_some_and(|cs| cs.iter().any(|x| x == c));
    cols("session").is_some() && has("message", "data") && has("message", "session_id") && has("part", "data")
}

fn bad(src: &SourceRef, e: rusqlite::Error) -> Error {
    Error::BadInput {
        path: src.display.clone().into(),
        format: ID.to_string(),
        reason: format!("cannot read the store: {e}"),
    }
}

/// The session ids of the store, oldest first (`time_created`, then id).
///
/// # Errors
/// When the database cannot be opened or read.
pub fn sessions(src: &SourceRef) -> Result<Vec<Box<str>>> {
    let db = sqlite::open(src)?;
    let mut st = db.conn.prepare("SELECT id FROM session ORDER BY time_created, id").map_err(|e| bad(src, e))?;
    let ids = st
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(|e| bad(src, e))?
        .filter_map(|r| r.ok().map(String::into_boxed_str))
        .collect();
    Ok(ids)
}

/// One stored message and its parts.
struct Stored {
    id: String,
    info: Value,
    parts: Vec<(String, Value)>,
    /// Ids of its parts that could not be read.
    lost: Vec<String>,
}

impl Stored {
    fn role(&self) -> &str {
        self.info.get("role").and_then(Value::as_str).unwrap_or("")
    }
    fn ptype(p: &Value) -> &str {
        p.get("type").and_then(Value::as_str).unwrap_or("")
    }
    /// A completed compaction summary (`summary`, a `finish`, no `error`).
    fn is_summary(&self) -> bool {
        self.role() == "assistant"
            && self.info.get("summary").and_then(Value::as_bool) == Some(true)
            && self.info.get("finish").is_some_and(|f| !f.is_null())
            && self.info.get("error").is_none_or(Value::is_null)
    }
}

/// Loads the session `src.session` of an OpenCode store (the only one when
/// `None` and the store holds one).
///
/// # Errors
/// When the database cannot be read, or holds several sessions and none is named.
pub fn load(src: &SourceRef, _opts: &super::LoadOptions) -> Result<Input> {
    if !src.peek(16).is_ok_and(|h| sqlite::is_database(&h)) {
        return load_legacy(src);
    }
    let db = sqlite::open(src)?;
    let session: Box<str> = match &src.session {
        Some(s) => s.clone(),
        None => {
            let all = sessions(src)?;
            match all.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Ok(Input::from_transcript(&src.display, ID, Transcript::default(), BadLines::default(), 0));
                }
                many => {
                    return Err(Error::BadInput {
                        path: src.display.clone().into(),
                        format: ID.to_string(),
                        reason: format!(
                            "the store holds {} sessions; each is checked as its own transcript",
                            many.len()
                        ),
                    });
                }
            }
        }
    };
    let mut unread = Vec::new();
    let mut msgs: Vec<Stored> = Vec::new();
    let rows = session_rows(src, &db.conn, &session).map_err(|e| bad(src, e))?;
    for (id, data) in rows.messages {
        match data.as_deref().map(serde_json::from_str::<Value>) {
            Some(Ok(info)) if info.is_object() => msgs.push(Stored { id, info, parts: Vec::new(), lost: Vec::new() }),
            _ => unread.push(Unread {
                line: None,
                pointer: format!("/message/{}/data", sqlite::pointer_token(&id)),
                what: format!("message `{id}`: `data` is not a JSON object"),
            }),
        }
    }
    let index: std::collections::HashMap<String, usize> =
        msgs.iter().enumerate().map(|(i, m)| (m.id.clone(), i)).collect();
    for (id, mid, data) in rows.parts {
        let Some(&i) = index.get(&mid) else { continue };
        match data.as_deref().map(serde_json::from_str::<Value>) {
            Some(Ok(p)) if p.is_object() => msgs[i].parts.push((id, p)),
            _ => {
                unread.push(Unread {
                    line: None,
                    pointer: format!("/part/{}/data", sqlite::pointer_token(&id)),
                    what: format!("part `{id}`: `data` is not a JSON object"),
                });
                unread_part(&mut msgs[i], id);
            }
        }
    }
    stand_in_for_lost_parts(&mut msgs);
    let mut t = build(&msgs);
    t.header = Some(Header { line: 1, version: 0, session_id: Some(session.clone()), openclaw: false });
    if let Some(w) = db.wal_warning() {
        unread.push(Unread { line: None, pointer: String::new(), what: w });
    }
    let mut input = Input::from_transcript(&src.display, ID, t, BadLines::default(), 0);
    input.unread = unread;
    Ok(input)
}

/// A session's rows: its messages `(id, data)` by `time_created, id`, and
/// their parts `(id, message id, data)` by `message_id, id`.
struct SessionRows {
    messages: Vec<(String, Option<String>)>,
    parts: Vec<(String, String, Option<String>)>,
}

/// Row ids of each session's messages and parts, for a store without the
/// `session_id` indexes OpenCode creates.
type RowMap = std::collections::HashMap<Box<str>, (Vec<i64>, Vec<i64>)>;

/// Row-id maps of the stores read in this run, by file (absolute path,
/// size, modification time): at most the last [`ROW_MAPS`] kept.
static ROW_MAPS_CACHE: std::sync::Mutex<Vec<(RowMapKey, std::sync::Arc<RowMap>)>> = std::sync::Mutex::new(Vec::new());
type RowMapKey = (std::path::PathBuf, u64, Option<std::time::SystemTime>);
/// How many stores' row-id maps are kept at once.
const ROW_MAPS: usize = 4;

/// Whether `table` has an index whose first column is `session_id` (an
/// error reading the schema counts as yes: the query by session is then
/// what it always was).
fn session_indexed(conn: &rusqlite::Connection, table: &str) -> bool {
    conn.query_row(
        "SELECT count(*) FROM pragma_index_list(?1) AS il, pragma_index_info(il.name) AS ii \
         WHERE ii.seqno = 0 AND ii.name = 'session_id'",
        [table],
        |r| r.get::<_, i64>(0),
    )
    .map_or(true, |n| n > 0)
}

/// One pass over `message` and `part`: the row ids of each session's rows.
fn row_map(conn: &rusqlite::Connection) -> rusqlite::Result<RowMap> {
    let mut map = RowMap::new();
    for (table, parts) in [("message", false), ("part", true)] {
        let mut st = conn.prepare(&format!("SELECT rowid, session_id FROM {table}"))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let Some(sid) = sqlite::text_lossy(r.get_ref(1)?) else { continue };
            let e = map.entry(sid.into_boxed_str()).or_default();
            let rowid: i64 = r.get(0)?;
            if parts { e.1.push(rowid) } else { e.0.push(rowid) }
        }
    }
    Ok(map)
}

/// The row-id map of the store `src`, made once per file in a run.
fn cached_row_map(src: &SourceRef, conn: &rusqlite::Connection) -> rusqlite::Result<std::sync::Arc<RowMap>> {
    let key = match &src.origin {
        crate::source::Origin::File(p) => std::fs::metadata(p)
            .ok()
            .map(|m| (std::path::absolute(p).unwrap_or_else(|_| p.clone()), m.len(), m.modified().ok())),
        _ => None,
    };
    let Some(key) = key else { return row_map(conn).map(std::sync::Arc::new) };
    // Held while the map is made: the other sessions of the store wait for it
    // instead of scanning the tables themselves.
    let mut cache = ROW_MAPS_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, m)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(m.clone());
    }
    let m = std::sync::Arc::new(row_map(conn)?);
    if cache.len() >= ROW_MAPS {
        cache.remove(0);
    }
    cache.push((key, m.clone()));
    Ok(m)
}

/// The rows of `session`. With OpenCode's `session_id` indexes, one query
/// per table; without them (a store another tool wrote, or damaged
/// indexes), a query by session would scan the whole table once per
/// session — quadratic over a store — so the tables are scanned once for
/// every session's row ids ([`cached_row_map`]) and each session reads its
/// rows by row id.
fn session_rows(src: &SourceRef, conn: &rusqlite::Connection, session: &str) -> rusqlite::Result<SessionRows> {
    let message = |r: &rusqlite::Row<'_>| -> rusqlite::Result<(String, Option<String>)> {
        Ok((sqlite::text_lossy(r.get_ref(0)?).unwrap_or_default(), sqlite::utf8_text(r.get_ref(1)?)))
    };
    let part = |r: &rusqlite::Row<'_>| -> rusqlite::Result<(String, String, Option<String>)> {
        Ok((
            sqlite::text_lossy(r.get_ref(0)?).unwrap_or_default(),
            sqlite::text_lossy(r.get_ref(1)?).unwrap_or_default(),
            sqlite::utf8_text(r.get_ref(2)?),
        ))
    };
    if session_indexed(conn, "message") && session_indexed(conn, "part") {
        let messages = conn
            .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?
            .query_map([session], message)?
            .collect::<rusqlite::Result<_>>()?;
        let parts = conn
            .prepare("SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id")?
            .query_map([session], part)?
            .collect::<rusqlite::Result<_>>()?;
        return Ok(SessionRows { messages, parts });
    }
    let map = cached_row_map(src, conn)?;
    let Some((mids, pids)) = map.get(session) else {
        return Ok(SessionRows { messages: Vec::new(), parts: Vec::new() });
    };
    let mut st = conn.prepare("SELECT id, data, time_created FROM message WHERE rowid = ?1")?;
    let mut messages: Vec<(i64, (String, Option<String>))> = Vec::with_capacity(mids.len());
    for rowid in mids {
        if let Some(row) = st.query_row([rowid], |r| Ok((r.get::<_, i64>(2).unwrap_or(0), message(r)?))).optional()? {
            messages.push(row);
        }
    }
    messages.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.0.cmp(&b.1.0)));
    let mut st = conn.prepare("SELECT id, message_id, data FROM part WHERE rowid = ?1")?;
    let mut parts = Vec::with_capacity(pids.len());
    for rowid in pids {
        if let Some(row) = st.query_row([rowid], part).optional()? {
            parts.push(row);
        }
    }
    parts.sort_by(|a: &(String, String, Option<String>), b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    Ok(SessionRows { messages: messages.into_iter().map(|(_, m)| m).collect(), parts })
}

/// Whether a JSON document is a legacy OpenCode session file
/// (`storage/session/<project id>/<session id>.json`, OpenCode 1.1 and
/// earlier: `{id: "ses_…", projectID, directory, time: {created}, …}`).
pub fn sniff_legacy_session(v: &Value) -> bool {
    v.get("id").and_then(Value::as_str).is_some_and(|id| id.starts_with("ses_"))
        && v.get("projectID").is_some_and(Value::is_string)
        && v.get("directory").is_some_and(Value::is_string)
        && v.pointer("/time/created").is_some_and(Value::is_number)
}

/// The `storage/` folder of a legacy session file, when `path` is one.
pub fn legacy_storage(path: &std::path::Path) -> Option<&std::path::Path> {
    let storage = path.parent()?.parent()?.parent()?;
    (path.parent()?.parent()?.file_name()? == "session" && storage.join("message").is_dir()).then_some(storage)
}

/// Whether `path` is a file of a legacy `storage/` tree that a session file
/// stands for (its messages, parts, project, diffs and migration marker):
/// read with the session, not an input of its own. Beside a database
/// (`opencode*.db`, `kilo*.db` next to `storage/`), OpenCode still writes
/// each session's file diffs to `storage/session_diff/<session id>.json`
/// (`storage.write(["session_diff", sessionID], diffs)`, sst/opencode
/// `packages/opencode/src/session/summary.ts`) and keeps the `storage/migration`
/// marker: the store's own files, not inputs either.
pub fn is_legacy_member(path: &std::path::Path) -> bool {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.file_name().is_some_and(|n| n == "storage") {
            let top = path.strip_prefix(d).ok().and_then(|r| r.components().next()).map(|c| c.as_os_str().to_owned());
            if d.join("session").is_dir() && d.join("message").is_dir() {
                return top.is_some_and(|t| t != "session");
            }
            return top.is_some_and(|t| t == "session_diff" || t == "migration") && beside_a_database(d);
        }
        dir = d.parent();
    }
    false
}

/// Whether the folder holding `storage` also holds an OpenCode or Kilo CLI
/// database (`opencode.db`, `opencode-stable.db`, `kilo.db`, …).
fn beside_a_database(storage: &std::path::Path) -> bool {
    let Some(parent) = storage.parent() else { return false };
    let Ok(entries) = std::fs::read_dir(parent) else { return false };
    entries.filter_map(|e| e.ok()).any(|e| {
        let name = e.file_name();
        let n = name.to_string_lossy();
        (n.starts_with("opencode") || n.starts_with("kilo")) && n.ends_with(".db")
    })
}

/// Most bytes read from one message or part file of a legacy tree: OpenCode
/// writes one message's metadata or one part per file, far below this; a
/// larger file (or a link to `/dev/zero`) is a file not read, not a hang.
pub const MAX_LEGACY_FILE: u64 = 64 << 20;

/// Reads one JSON file of a legacy tree; `Err` names what is wrong. Only a
/// regular file (after links) of at most [`MAX_LEGACY_FILE`] bytes is read:
/// a FIFO, a device or a link to one is refused without opening it for long.
fn read_json(p: &std::path::Path) -> std::result::Result<Value, String> {
    use std::io::Read;
    let f = crate::source::open_regular(p).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    f.take(MAX_LEGACY_FILE + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_LEGACY_FILE {
        return Err(format!("larger than {} MiB, not read", MAX_LEGACY_FILE >> 20));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("not JSON ({e})")),
    }
}

/// `id` when it can name one entry of a store folder: a single normal path
/// component (no separator, not `.` or `..`, not empty, no NUL). Ids come
/// from the files and are data: a session id `ses_/../../x` or an absolute
/// message id must never lead the reader out of the store's own folder.
fn store_name(id: &str) -> Option<&str> {
    let ok = !id.is_empty()
        && id != "."
        && id != ".."
        && !id.contains(['/', '\\', '\0'])
        && std::path::Path::new(id).components().count() == 1;
    ok.then_some(id)
}

/// The `.json` files of a folder, by name (ids sort by time).
fn json_files(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(d)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Loads a legacy session file with its messages
/// (`storage/message/<session id>/<message id>.json`) and their parts
/// (`storage/part/<message id>/<part id>.json`), as OpenCode 1.1 wrote them
/// (the same `MessageV2` shapes as the database, ids inline; facts from the
/// files opencode-ai 1.1.65 wrote and OpenCode's `json-migration.ts`, which
/// imports them into the database). Pointers are the database's
/// (`/message/<id>/data`, `/part/<id>/data/…`).
fn load_legacy(src: &SourceRef) -> Result<Input> {
    let bad = |reason: String| Error::BadInput { path: src.display.clone().into(), format: ID.to_string(), reason };
    let v: Value = serde_json::from_slice(&src.read_all()?).map_err(|e| bad(format!("not one JSON document: {e}")))?;
    if !sniff_legacy_session(&v) {
        return Err(bad("neither an OpenCode database nor a legacy session file".into()));
    }
    let sid = v.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
    let crate::source::Origin::File(path) = &src.origin else {
        return Err(bad(
            "a legacy session file is read from its storage/ folder: name the file, not standard input".into()
        ));
    };
    let Some(storage) = legacy_storage(path) else {
        return Err(bad(
            "a legacy session file must sit in storage/session/<project>/ beside storage/message/ and storage/part/"
                .into(),
        ));
    };
    let Some(sid_dir) = store_name(&sid) else {
        return Err(bad(format!(
            "session id {:?} cannot name a folder of the store (it holds a path separator or `..`)",
            crate::escape::escape_controls(&sid)
        )));
    };
    let mut unread = Vec::new();
    let mut msgs: Vec<Stored> = Vec::new();
    for f in json_files(&storage.join("message").join(sid_dir)) {
        let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match read_json(&f) {
            Ok(info) => {
                let id = info.get("id").and_then(Value::as_str).map_or(stem, str::to_string);
                msgs.push(Stored { id, info, parts: Vec::new(), lost: Vec::new() });
            }
            Err(why) => unread.push(Unread {
                line: None,
                pointer: format!("/message/{}/data", sqlite::pointer_token(&stem)),
                what: format!("{}: {why}", f.display()),
            }),
        }
    }
    let created = |m: &Stored| m.info.pointer("/time/created").and_then(Value::as_u64).unwrap_or(0);
    msgs.sort_by(|a, b| created(a).cmp(&created(b)).then_with(|| a.id.cmp(&b.id)));
    for m in &mut msgs {
        let Some(mid) = store_name(&m.id) else {
            unread.push(Unread {
                line: None,
                pointer: format!("/message/{}/data", sqlite::pointer_token(&m.id)),
                what: format!(
                    "message id {:?} cannot name a folder of the store: its parts were not read",
                    crate::escape::escape_controls(&m.id)
                ),
            });
            continue;
        };
        for f in json_files(&storage.join("part").join(mid)) {
            let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            match read_json(&f) {
                Ok(p) => {
                    let id = p.get("id").and_then(Value::as_str).map_or(stem, str::to_string);
                    m.parts.push((id, p));
                }
                Err(why) => {
                    unread.push(Unread {
                        line: None,
                        pointer: format!("/part/{}/data", sqlite::pointer_token(&stem)),
                        what: format!("{}: {why}", f.display()),
                    });
                    unread_part(m, stem);
                }
            }
        }
        m.parts.sort_by(|a, b| a.0.cmp(&b.0));
    }
    stand_in_for_lost_parts(&mut msgs);
    let mut t = build(&msgs);
    t.header = Some(Header { line: 1, version: 0, session_id: Some(sid.into()), openclaw: false });
    let mut input = Input::from_transcript(&src.display, ID, t, BadLines::default(), 0);
    input.unread = unread;
    Ok(input)
}

/// Records a part of `m` that could not be read.
fn unread_part(m: &mut Stored, id: String) {
    m.lost.push(id);
}

/// A user message none of whose parts could be read keeps a text naming
/// them: it is still the user turn it was (else the turn vanishes, and the
/// next reply looks like a second reply to the turn before). The text names
/// the parts, so two such turns are never equal. A message with other
/// parts is left as read.
fn stand_in_for_lost_parts(msgs: &mut [Stored]) {
    for m in msgs {
        if m.parts.is_empty() && !m.lost.is_empty() && m.role() == "user" {
            let text = format!("(part `{}` of this message could not be read)", m.lost.join("`, `"));
            m.parts.push((m.lost[0].clone(), serde_json::json!({"type": "text", "text": text})));
        }
    }
}

/// The pointer of a part's field.
fn part_ptr(id: &str, rest: &str) -> String {
    format!("/part/{}/data{rest}", sqlite::pointer_token(id))
}

/// The transcript of a session's messages, in history order.
fn build(msgs: &[Stored]) -> Transcript {
    let mut t = Transcript::default();
    // Compaction messages whose summary completed: the history is cut there.
    let summarised: std::collections::HashSet<&str> =
        msgs.iter().filter(|m| m.is_summary()).filter_map(|m| m.info.get("parentID").and_then(Value::as_str)).collect();
    let mut no = 0u32;
    // An open reply cut before its finish: (its parent user message, call group).
    let mut cut: Option<(String, Box<str>)> = None;
    for m in msgs {
        let raw = m.info.to_string();
        let mut push = |t: &mut Transcript,
                        etype: &str,
                        class: Class,
                        msg: Option<Message>,
                        model_call: bool,
                        group: Option<Box<str>>| {
            no += 1;
            let line =
                Line { no, offset: 0, bytes: raw.as_bytes(), terminated: true, too_long: false, len: raw.len() as u64 };
            let mut e = Entry::at(&line, etype, hash_bytes(raw.as_bytes()) ^ hash_str(&m.id) ^ u64::from(no));
            e.id = Some(m.id.as_str().into());
            e.time = m
                .info
                .pointer("/time/created")
                .and_then(Value::as_u64)
                .map_or(0, |ms| u32::try_from(ms / 1000).unwrap_or(0));
            e.class = class;
            e.is_model_call = model_call;
            e.set_call_group(group);
            let compaction = class == Class::Compaction;
            t.push(e, msg.map(|x| crate::model::packed::pack(&x, crate::model::packed::Texts::AsLoaded)).as_deref());
            if compaction {
                if let Some(c) = t.entries.last_mut() {
                    c.set_compaction(Some(Compaction { first_kept: None, new_root: true }));
                }
            }
            // Rows, not lines: never a repeated line.
            t.mark_last_exempt();
        };
        let mptr = format!("/message/{}/data", sqlite::pointer_token(&m.id));
        match m.role() {
            "user" => {
                let mut msg = message(Role::User, MessageKind::UserTurn, mptr);
                let mut authored = false;
                let mut compaction = false;
                for (pid, p) in &m.parts {
                    let text = p.get("text").and_then(Value::as_str).unwrap_or("");
                    match Stored::ptype(p) {
                        "text" if p.get("ignored").and_then(Value::as_bool) != Some(true) && !text.is_empty() => {
                            // The runtime's own text is not the user's, except the
                            // prompt that resumes the work after a compaction: a
                            // turn of its own, which the model answers.
                            authored |= p.get("synthetic").and_then(Value::as_bool) != Some(true)
                                || p.pointer("/metadata/compaction_continue").and_then(Value::as_bool) == Some(true);
                            msg.blocks.push(text_block(BlockKind::Text, part_ptr(pid, "/text"), text, p));
                        }
                        "file" => {
                            let name = p.get("filename").or_else(|| p.get("url")).and_then(Value::as_str).unwrap_or("");
                            authored = true;
                            msg.blocks.push(text_block(BlockKind::Media, part_ptr(pid, ""), name, p));
                        }
                        "compaction" => {
                            compaction = true;
                            msg.blocks.push(text_block(BlockKind::Text, part_ptr(pid, ""), COMPACTION_TEXT, p));
                        }
                        "subtask" => msg.blocks.push(text_block(BlockKind::Text, part_ptr(pid, ""), SUBTASK_TEXT, p)),
                        _ => {}
                    }
                }
                if !authored {
                    msg.kind = MessageKind::Meta;
                }
                let class = if msg.blocks.is_empty() {
                    Class::Bookkeeping
                } else if compaction && summarised.contains(m.id.as_str()) {
                    Class::Compaction
                } else {
                    Class::Conversation
                };
                cut = None;
                push(&mut t, "user", class, Some(msg), false, None);
            }
            "assistant" => {
                let error = m.info.get("error").filter(|e| !e.is_null());
                let aborted = error.and_then(|e| e.get("name")).and_then(Value::as_str) == Some("MessageAbortedError");
                let content = m.parts.iter().any(|(_, p)| !matches!(Stored::ptype(p), "step-start" | "reasoning"));
                let failed = error.is_some() && !(aborted && content);
                let mut msg = message(Role::Assistant, MessageKind::Assistant, mptr.clone());
                let mut results = message(Role::User, MessageKind::ToolResults, mptr);
                results.result = Some(Box::default());
                let mut calls = false;
                for (pid, p) in &m.parts {
                    match Stored::ptype(p) {
                        "text" => {
                            let text = p.get("text").and_then(Value::as_str).unwrap_or("");
                            msg.blocks.push(text_block(BlockKind::Text, part_ptr(pid, "/text"), text, p));
                        }
                        "reasoning" => {
                            let text = p.get("text").and_then(Value::as_str).unwrap_or("");
                            msg.blocks.push(text_block(BlockKind::Thinking, part_ptr(pid, "/text"), text, p));
                        }
                        "tool" => {
                            calls = true;
                            let call_id = p.get("callID").and_then(Value::as_str);
                            let state = p.get("state").unwrap_or(&Value::Null);
                            let input = state.get("input").map(Value::to_string).unwrap_or_default();
                            let mut call = text_block(BlockKind::ToolCall, part_ptr(pid, "/state/input"), &input, p);
                            call.tool_id = call_id.map(Into::into);
                            call.tool_name = p.get("tool").and_then(Value::as_str).map(Into::into);
                            msg.blocks.push(call);
                            let (rptr, text, is_error) = match state.get("status").and_then(Value::as_str) {
                                Some("completed") if state.pointer("/time/compacted").is_some_and(|c| !c.is_null()) => {
                                    (part_ptr(pid, "/state"), CLEARED.to_string(), false)
                                }
                                Some("completed") => (
                                    part_ptr(pid, "/state/output"),
                                    state.get("output").map(super::body::flatten_text).unwrap_or_default(),
                                    false,
                                ),
                                Some("error") => (
                                    part_ptr(pid, "/state/error"),
                                    state.get("error").map(super::body::flatten_text).unwrap_or_default(),
                                    true,
                                ),
                                _ => (part_ptr(pid, "/state"), INTERRUPTED.to_string(), true),
                            };
                            let mut r = text_block(BlockKind::ToolResult, rptr, &text, state);
                            r.tool_id = call_id.map(Into::into);
                            results.blocks.push(r);
                            if is_error {
                                results.result = Some(Box::new(ResultInfo { is_error: true, ..Default::default() }));
                            }
                        }
                        _ => {}
                    }
                }
                let stop = if failed {
                    if aborted { Stop::Aborted } else { Stop::Error }
                } else {
                    match m.info.get("finish").and_then(Value::as_str) {
                        Some("tool-calls") => Stop::ToolUse,
                        Some("stop" | "length") => Stop::Normal,
                        _ if calls => Stop::ToolUse,
                        _ => Stop::Unknown,
                    }
                };
                let model = match (
                    m.info.get("providerID").and_then(Value::as_str),
                    m.info.get("modelID").and_then(Value::as_str),
                ) {
                    (Some(p), Some(id)) => Some(format!("{p}/{id}").into_boxed_str()),
                    (None, Some(id)) => Some(id.into()),
                    _ => None,
                };
                msg.assistant = Some(Box::new(AssistantInfo { stop, model, ..Default::default() }));
                // The summary of a compaction is written by a call that sends
                // the conversation as one text: not a step of this session,
                // and not a reply to the user (it is sent as the history's start).
                let summary = m.info.get("summary").and_then(Value::as_bool) == Some(true);
                if summary && !failed {
                    msg.kind = MessageKind::CompactionSummary;
                    msg.assistant = None;
                }
                let class = if m.parts.is_empty() && !failed { Class::Bookkeeping } else { Class::Conversation };
                // A stream cut before its finish (`finish` "unknown" or none,
                // no error) is sent back as it is and the loop calls again:
                // the calls up to the one that finishes are one reply.
                let finished =
                    matches!(m.info.get("finish").and_then(Value::as_str), Some("stop" | "tool-calls" | "length"));
                let parent = m.info.get("parentID").and_then(Value::as_str).unwrap_or("");
                let group = match (&cut, failed || summary) {
                    (Some((p, g)), false) if p == parent => Some(g.clone()),
                    (_, false) if !finished && !m.parts.is_empty() => {
                        Some(format!("opencode:{}", m.id).into_boxed_str())
                    }
                    _ => None,
                };
                cut = match &group {
                    Some(g) if !finished => Some((parent.to_string(), g.clone())),
                    _ => None,
                };
                let at = t.entries.len() as u32;
                push(&mut t, "assistant", class, Some(msg), !summary, group);
                if let Some(u) = m.info.get("tokens").and_then(tokens_usage) {
                    t.set_usage(at, u);
                }
                if calls && !failed {
                    push(&mut t, "tool_result", Class::Conversation, Some(results), false, None);
                }
            }
            _ => push(&mut t, "unknown", Class::Bookkeeping, None, false, None),
        }
    }
    t.lines = no;
    t.has_ids = false;
    super::link_linearly(&mut t);
    t
}

/// An assistant message's `tokens` (`{input, output, reasoning, cache: {read,
/// write}}`: `input` without the cached tokens, `output` without the
/// reasoning ones — opencode `packages/opencode/src/session/index.ts` `getUsage`).
fn tokens_usage(t: &Value) -> Option<Usage> {
    let n = |p: &str| super::usage::count(t.pointer(p));
    let u = Usage {
        input: n("/input"),
        cache_read: n("/cache/read"),
        cache_write: n("/cache/write"),
        output: n("/output").saturating_add(n("/reasoning")),
        ..Usage::default()
    };
    (!u.is_empty()).then_some(u)
}

/// Rewrites `findings` on session transcript `t` for a database: the line
/// numbers that rules give (an entry's place in the session) become the
/// message they stand for — "line 8" in a message reads "message `msg_…`",
/// a related location without a pointer points at its message row — and
/// every line is cleared.
pub fn name_rows(t: &Transcript, findings: &mut [crate::finding::Finding]) {
    let entry_at = |line: u32| t.entries.iter().find(|e| e.line == line);
    let row = |line: u32| {
        entry_at(line).and_then(|e| e.id.as_deref()).map(|id| format!("/message/{}/data", sqlite::pointer_token(id)))
    };
    let re = regex::Regex::new(r"\bline (\d+)\b").expect("a valid pattern");
    for f in findings.iter_mut() {
        f.message = re
            .replace_all(&f.message, |c: &regex::Captures<'_>| {
                match c[1].parse::<u32>().ok().and_then(entry_at).and_then(|e| e.id.as_deref()) {
                    Some(id) => format!("message `{id}`"),
                    None => c[0].to_string(),
                }
            })
            .into_owned();
        for r in &mut f.related {
            if r.pointer.is_empty() {
                if let Some(p) = r.line.and_then(row) {
                    r.pointer = p;
                }
            }
            r.line = None;
        }
        if f.pointer.is_empty() {
            if let Some(p) = f.line.and_then(row) {
                f.pointer = p;
            }
        }
        f.line = None;
        f.end_line = None;
    }
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Transcript,
    encoding: Encoding::Database,
    detect: Detect {
        document: Some(Sniffer { rank: 4, test: sniff_legacy_session }),
        database: Some(TableSniffer { rank: 1, test: is_store }),
        ..Detect::NONE
    },
    fit: Fit::Document { test: |_| None, noun: "no request body" },
    read: Read::File(load),
    // A database has no lines: an entry's line is its place in the
    // session, so findings name messages and rows instead.
    locate: Locate::Rows(name_rows),
    record: None,
    repro: super::format::BODY_REPRO,
    store: Some(Store { sessions, is_member: is_legacy_member }),
    agent_folders: &[
        // OpenCode and Kilo CLI keep every session in one SQLite store in their
        // XDG data folder (`$XDG_DATA_HOME`, else `~/.local/share`; opencode
        // `packages/opencode/src/global/index.ts`): the database file only,
        // not its snapshots and logs; OpenCode 1.1 and earlier: one JSON file
        // per session (its messages and parts are read with it).
        AgentFolder {
            rank: 16,
            env: &["XDG_DATA_HOME"],
            home: ".local/share",
            env_is_home: false,
            pattern: "opencode/opencode.db",
            file: true,
        },
        AgentFolder {
            rank: 17,
            env: &["XDG_DATA_HOME"],
            home: ".local/share",
            env_is_home: false,
            pattern: "kilo/kilo.db",
            file: true,
        },
        AgentFolder {
            rank: 18,
            env: &["XDG_DATA_HOME"],
            home: ".local/share",
            env_is_home: false,
            pattern: "opencode/storage/session",
            file: false,
        },
    ],
    about: About {
        what: "OpenCode / Kilo CLI SQLite store, and OpenCode 1.1's legacy storage/ JSON tree (one transcript per session)",
        kind: "transcripts",
        location: "~/.local/share/opencode/opencode.db (legacy: opencode/storage/session/*/*.json), Kilo CLI: ~/.local/share/kilo/kilo.db (or $XDG_DATA_HOME)",
    },
};

#[cfg(test)]
mod tests {
    use super::is_legacy_member;

    #[test]
    fn session_diffs_and_the_migration_marker_beside_a_database_are_the_stores_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let storage = dir.path().join("opencode/storage");
        std::fs::create_dir_all(storage.join("session_diff")).unwrap();
        let diff = storage.join("session_diff/ses_A.json");
        let marker = storage.join("migration");
        let other = storage.join("notes.json");
        for p in [&diff, &marker, &other] {
            std::fs::write(p, "[]").unwrap();
        }
        // No database beside `storage/`: nothing says whose files they are.
        assert!(!is_legacy_member(&diff));
        std::fs::write(dir.path().join("opencode/opencode-stable.db"), b"").unwrap();
        assert!(is_legacy_member(&diff));
        assert!(is_legacy_member(&marker));
        assert!(!is_legacy_member(&other));
    }
}
