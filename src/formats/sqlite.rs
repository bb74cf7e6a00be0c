//! Session stores kept in SQLite databases (the OpenAI Agents SDK's
//! `SQLiteSession`), read with the bundled SQLite through `rusqlite`.
//!
//! A database is never written, locked or given a file beside it:
//! - without a `-wal` file beside it, it is opened read-only and immutable
//!   (`file:…?mode=ro&immutable=1`: SQLite takes no lock and creates no
//!   `-shm` or journal file);
//! - with a non-empty `-wal` file (a live database in WAL mode, whose latest
//!   rows may not be in the main file yet), the database and its WAL are
//!   copied into a private temporary folder and the copy is opened, so the
//!   WAL's rows are read without touching the original;
//! - an input that is not a file on disk (standard input) is copied to a
//!   private temporary file first.
//!
//! Findings on a database point at a table, a row id and a JSON Pointer into
//! a column's JSON: `/agent_messages/17/message_data/content/0` (row 17 of
//! `agent_messages`, its `message_data` column, then the pointer into it).

use crate::error::{Error, Result};
use crate::source::{Origin, SourceRef};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// The 16 bytes every SQLite 3 database file starts with.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether `head` (the first bytes of an input) is an SQLite database.
pub fn is_database(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// An open database, and the private copy it was opened from, if any.
pub struct Db {
    /// The connection (read-only, or on a private copy).
    pub conn: Connection,
    /// The temporary folder holding the copy; removed when dropped.
    _copy: Option<tempfile::TempDir>,
}

fn sql_error(src: &SourceRef, e: rusqlite::Error) -> Error {
    Error::BadInput {
        path: src.display.clone().into(),
        format: "sqlite".into(),
        reason: format!("not a readable SQLite database: {e}"),
    }
}

/// Opens `src` as described in the module documentation.
///
/// # Errors
/// `Error::Io` when the file or its WAL cannot be read or copied,
/// `Error::BadInput` when SQLite refuses the file.
pub fn open(src: &SourceRef) -> Result<Db> {
    let io = |e: std::io::Error| Error::io(&src.display, e);
    match &src.origin {
        Origin::File(p) if !src.is_compressed() => {
            let wal = wal_path(p);
            let live = std::fs::metadata(&wal).is_ok_and(|m| m.is_file() && m.len() > 0);
            if !live {
                let conn = open_immutable(p).map_err(|e| sql_error(src, e))?;
                return Ok(Db { conn, _copy: None });
            }
            let dir = tempfile::tempdir().map_err(io)?;
            let copy = dir.path().join("db.sqlite");
            std::fs::copy(p, &copy).map_err(io)?;
            std::fs::copy(&wal, wal_path(&copy)).map_err(io)?;
            let conn =
                Connection::open_with_flags(&copy, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .map_err(|e| sql_error(src, e))?;
            Ok(Db { conn, _copy: Some(dir) })
        }
        _ => {
            let dir = tempfile::tempdir().map_err(io)?;
            let copy = dir.path().join("db.sqlite");
            std::fs::write(&copy, src.read_all()?).map_err(io)?;
            let conn = open_immutable(&copy).map_err(|e| sql_error(src, e))?;
            Ok(Db { conn, _copy: Some(dir) })
        }
    }
}

/// `<db>-wal`, the WAL file SQLite keeps beside a database in WAL mode.
fn wal_path(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
}

fn open_immutable(p: &Path) -> rusqlite::Result<Connection> {
    // A URI filename: `immutable=1` tells SQLite the file cannot change, so it
    // takes no locks and never looks for (or creates) a journal or `-shm`.
    let uri = percent_path(p);
    Connection::open_with_flags(
        format!("{uri}?mode=ro&immutable=1"),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

/// `file:` followed by the path with every byte outside unreserved ASCII and `/` percent-encoded.
fn percent_path(p: &Path) -> String {
    let mut uri = String::from("file:");
    for b in p.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The names of the tables of `conn`, and the columns of each.
pub fn tables(conn: &Connection) -> rusqlite::Result<Vec<(String, Vec<String>)>> {
    let mut st = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let names: Vec<String> = st.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        let mut st = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
        let cols: Vec<String> = st.query_map([&n], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        out.push((n, cols));
    }
    Ok(out)
}

/// Quotes an SQL identifier (`"name"`, inner quotes doubled).
pub fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A cell as text, whatever SQLite holds in it: an integer or real as its
/// decimal form, text or a blob as UTF-8 with damaged bytes replaced (U+FFFD);
/// `None` for NULL. A cell of an unexpected type is about its row, never an
/// error about the whole store.
pub fn text_lossy(v: rusqlite::types::ValueRef<'_>) -> Option<String> {
    use rusqlite::types::ValueRef as V;
    match v {
        V::Null => None,
        V::Integer(i) => Some(i.to_string()),
        V::Real(f) => Some(f.to_string()),
        V::Text(t) | V::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
    }
}

/// A cell that is UTF-8 text (or a blob of UTF-8), else `None`: a JSON
/// document column, where a damaged byte makes the document unreadable.
pub fn utf8_text(v: rusqlite::types::ValueRef<'_>) -> Option<String> {
    use rusqlite::types::ValueRef as V;
    match v {
        V::Text(t) | V::Blob(t) => std::str::from_utf8(t).ok().map(str::to_string),
        _ => None,
    }
}

/// A table or column name as a JSON Pointer token (`~` → `~0`, `/` → `~1`).
pub fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
