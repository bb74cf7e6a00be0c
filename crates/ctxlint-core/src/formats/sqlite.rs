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
//!   WAL's rows are read without touching the original. Within one run
//!   ([`CopyScope`]) a database is copied once, however many of its sessions
//!   are loaded; a WAL larger than [`MAX_WAL`] (a sparse or runaway file) is
//!   not copied: the database is read without it, and the loaders say so
//!   ([`Db::wal_not_read`]). The temporary folders are removed at the end of
//!   the run, or by [`crate::safety::remove_temp_files`] when a signal ends it;
//! - with a non-empty `-journal` file instead (a hot rollback journal: a
//!   writer stopped mid-transaction), the database and its journal are
//!   copied likewise, and SQLite rolls the copy back when it opens it;
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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    /// The temporary folder holding the copy; removed when the last user of
    /// it is dropped (a copy shared within a [`CopyScope`]: at its end).
    _copy: Option<Arc<tempfile::TempDir>>,
    /// The size in bytes of a WAL beside the database that was not read
    /// (larger than [`MAX_WAL`]): its latest changes are not checked.
    pub wal_not_read: Option<u64>,
}

impl Db {
    /// The warning a loader gives when [`Db::wal_not_read`] is set.
    pub fn wal_warning(&self) -> Option<String> {
        self.wal_not_read.map(|n| {
            format!(
                "the WAL file beside the database ({n} bytes) is larger than {} MiB and was not read: its latest changes are not checked",
                MAX_WAL >> 20
            )
        })
    }
}

/// The largest `-wal` file copied with its database (bytes): SQLite
/// checkpoints a WAL at about 4 MB by default, so a larger one is rare and a
/// much larger one a sparse or runaway file.
pub const MAX_WAL: u64 = 256 << 20;

/// The copies made in the current [`CopyScope`]s, by database: its path,
/// the sizes and times of the database and its WAL, and the copy.
type CopyKey = (PathBuf, u64, Option<std::time::SystemTime>, u64, Option<std::time::SystemTime>);
static COPIES: Mutex<Vec<(CopyKey, Arc<tempfile::TempDir>)>> = Mutex::new(Vec::new());
static SCOPES: AtomicUsize = AtomicUsize::new(0);

/// While one is alive, a database with a WAL is copied once and its copy
/// shared by every load of it (an OpenCode store's sessions are each an
/// input); the copies are removed when the last scope ends. A run (`check`,
/// `show`, …) holds one.
pub struct CopyScope(());

impl CopyScope {
    /// Starts a scope.
    pub fn enter() -> CopyScope {
        SCOPES.fetch_add(1, Ordering::SeqCst);
        CopyScope(())
    }
}

impl Drop for CopyScope {
    fn drop(&mut self) {
        if SCOPES.fetch_sub(1, Ordering::SeqCst) == 1 {
            COPIES.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
    }
}

fn key_of(p: &Path, m: &std::fs::Metadata, w: &std::fs::Metadata) -> CopyKey {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    (abs, m.len(), m.modified().ok(), w.len(), w.modified().ok())
}

/// Copies the database `p` and its WAL `wal` into a new temporary folder
/// (registered with [`crate::safety::register_temp_path`] first, so that a
/// copy cut short by a signal is removed too); returns the folder.
fn copy_with_wal(p: &Path, side: &Side) -> std::io::Result<Arc<tempfile::TempDir>> {
    let dir = tempfile::tempdir()?;
    crate::safety::register_temp_path(dir.path());
    let copy = dir.path().join("db.sqlite");
    std::fs::copy(p, &copy)?;
    // Under the copy's name: `-wal`, or `-journal` (a hot rollback journal,
    // which SQLite rolls back when it opens the copy).
    std::fs::copy(&side.path, dir.path().join(format!("db.sqlite-{}", side.suffix)))?;
    Ok(Arc::new(dir))
}

/// The file SQLite keeps beside a database whose latest state is not all in
/// it: a non-empty `-wal`, else a non-empty `-journal` (only regular files:
/// a FIFO or a device of that name is not read).
struct Side {
    path: PathBuf,
    suffix: &'static str,
    meta: std::fs::Metadata,
}

fn side_file(p: &Path) -> Option<Side> {
    ["wal", "journal"].into_iter().find_map(|suffix| {
        let mut s = p.as_os_str().to_owned();
        s.push("-");
        s.push(suffix);
        let path = PathBuf::from(s);
        let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file() && m.len() > 0)?;
        Some(Side { path, suffix, meta })
    })
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
            // A hot rollback journal (a writer stopped mid-transaction) is
            // read as SQLite would after rolling it back: from a copy, as a WAL.
            let Some(side) = side_file(p) else {
                let conn = open_immutable(p).map_err(|e| sql_error(src, e))?;
                return Ok(Db { conn, _copy: None, wal_not_read: None });
            };
            let wm = &side.meta;
            if wm.len() > MAX_WAL {
                let conn = open_immutable(p).map_err(|e| sql_error(src, e))?;
                return Ok(Db { conn, _copy: None, wal_not_read: Some(wm.len()) });
            }
            let meta = std::fs::metadata(p).map_err(io)?;
            let dir = if SCOPES.load(Ordering::SeqCst) > 0 {
                let key = key_of(p, &meta, wm);
                let mut copies = COPIES.lock().unwrap_or_else(|e| e.into_inner());
                match copies.iter().find(|(k, _)| *k == key) {
                    Some((_, d)) => d.clone(),
                    None => {
                        let d = copy_with_wal(p, &side).map_err(io)?;
                        copies.push((key, d.clone()));
                        d
                    }
                }
            } else {
                copy_with_wal(p, &side).map_err(io)?
            };
            let copy = dir.path().join("db.sqlite");
            let conn =
                Connection::open_with_flags(&copy, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .map_err(|e| sql_error(src, e))?;
            Ok(Db { conn, _copy: Some(dir), wal_not_read: None })
        }
        _ => {
            let dir = tempfile::tempdir().map_err(io)?;
            crate::safety::register_temp_path(dir.path());
            let copy = dir.path().join("db.sqlite");
            std::fs::write(&copy, src.read_all()?).map_err(io)?;
            let conn = open_immutable(&copy).map_err(|e| sql_error(src, e))?;
            Ok(Db { conn, _copy: Some(Arc::new(dir)), wal_not_read: None })
        }
    }
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
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    // The path's own bytes (not a lossy UTF-8 copy, which would name another file).
    for &b in p.as_os_str().as_bytes() {
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

#[cfg(test)]
mod tests {
    /// `<db>-wal`, the WAL file SQLite keeps beside a database in WAL mode.
    fn wal_path(p: &Path) -> PathBuf {
        let mut s = p.as_os_str().to_owned();
        s.push("-wal");
        PathBuf::from(s)
    }

    use super::*;

    /// A database in WAL mode with its rows still in a non-empty `-wal` file,
    /// as a live store is: the pair is copied while the writer holds it open.
    fn live_store(dir: &Path) -> PathBuf {
        let w = dir.join("writer.db");
        let c = Connection::open(&w).unwrap();
        c.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x); INSERT INTO t VALUES (1);",
        )
        .unwrap();
        let db = dir.join("store.db");
        std::fs::copy(&w, &db).unwrap();
        std::fs::copy(wal_path(&w), wal_path(&db)).unwrap();
        drop(c);
        db
    }

    #[test]
    fn a_store_with_a_wal_is_copied_once_per_scope_and_the_copy_removed_at_its_end() {
        let d = tempfile::tempdir().unwrap();
        let db = live_store(d.path());
        let src = SourceRef::file("store.db", &db);
        let rows = |db: &Db| db.conn.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0)).unwrap();
        let a = open(&src).unwrap();
        assert_eq!(rows(&a), 1, "the WAL's row is read");
        drop(a);
        let scope = CopyScope::enter();
        let (a, b) = (open(&src).unwrap(), open(&src).unwrap());
        let copy = a._copy.clone().unwrap();
        assert!(Arc::ptr_eq(&copy, b._copy.as_ref().unwrap()), "one copy for both loads");
        assert_eq!((rows(&a), rows(&b)), (1, 1));
        let folder = copy.path().to_path_buf();
        drop((a, b, copy));
        assert!(folder.is_dir(), "kept for the rest of the run");
        drop(scope);
        assert!(!folder.exists(), "removed when the run ends");
        // Nothing was written beside the store.
        let mut names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["store.db", "store.db-wal", "writer.db"]);
    }

    #[test]
    fn a_wal_larger_than_the_cap_is_not_copied_and_the_loaders_are_told() {
        let d = tempfile::tempdir().unwrap();
        let db = live_store(d.path());
        // A sparse WAL past the cap (it takes no room on disk).
        std::fs::OpenOptions::new().write(true).open(wal_path(&db)).unwrap().set_len(MAX_WAL + 1).unwrap();
        let opened = open(&SourceRef::file("store.db", &db)).unwrap();
        assert_eq!(opened.wal_not_read, Some(MAX_WAL + 1));
        assert!(opened._copy.is_none());
        assert!(opened.wal_warning().unwrap().contains("larger than 256 MiB and was not read"));
    }
}
