//! The OpenAI Agents SDK's `SQLiteSession` database (`openai-agents-session`):
//! recorded databases, and databases made here with the SDK's schema.

use crate::found::check_json;
use serde_json::Value;
use std::path::Path;

const DIR: &str = "fixtures/formats/openai-agents-session/sqlite";

/// (rule, pointer, message) of every finding.
fn rpm(v: &Value) -> Vec<(String, String, String)> {
    let s = |x: &Value| x.as_str().unwrap_or_default().to_string();
    v["findings"].as_array().unwrap().iter().map(|f| (s(&f["rule"]), s(&f["pointer"]), s(&f["message"]))).collect()
}

#[test]
fn recorded_databases_give_exactly_their_findings() {
    for name in ["clean", "two-sessions", "interrupted", "popped", "advanced"] {
        let (code, v) = check_json(&format!("{DIR}/{name}.db"));
        assert_eq!((code, rpm(&v)), (0, vec![]), "{name}");
        assert_eq!(v["files"][0]["format"], "openai-agents-session", "{name}");
    }
    // One request-like element per session, in the order of their first row.
    let (_, v) = check_json(&format!("{DIR}/two-sessions.db"));
    assert_eq!(v["files"][0]["requests"], 2);
    let (_, v) = check_json(&format!("{DIR}/interrupted.db"));
    assert_eq!(v["files"][0]["requests"], 3);
    // A function_call row without its output row (written by hand with the
    // SDK's `add_items`): the finding names the table, the row and the session.
    let (code, v) = check_json(&format!("{DIR}/orphan.db"));
    assert_eq!(
        (code, rpm(&v)),
        (
            1,
            vec![(
                "unanswered-tool-call".into(),
                "/agent_messages/2/message_data".into(),
                "tool call `call_orphan1` (get_weather) has no matching result; in session `orphan-1`".into()
            )]
        )
    );
}

/// A database with the SDK's schema (`sqlite_session.py`) and `rows`
/// (session id, item JSON), in WAL mode like the SDK's.
fn make_db(path: &Path, rows: &[(&str, &str)]) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
         CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);",
    )
    .unwrap();
    for (s, m) in rows {
        c.execute("INSERT OR IGNORE INTO agent_sessions (session_id) VALUES (?1)", [s]).unwrap();
        c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES (?1, ?2)", [s, m]).unwrap();
    }
    c
}

const TURN: [&str; 4] = [
    r#"{"content": "What's the weather in Paris?", "role": "user"}"#,
    r#"{"arguments": "{\"city\": \"Paris\"}", "call_id": "call_1", "name": "get_weather", "type": "function_call", "id": "fc_1", "status": "completed"}"#,
    r#"{"call_id": "call_1", "output": "sunny", "type": "function_call_output"}"#,
    r#"{"id": "msg_1", "content": [{"annotations": [], "text": "It is sunny.", "type": "output_text"}], "role": "assistant", "status": "completed", "type": "message"}"#,
];

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_live_database_is_read_with_its_wal_and_nothing_is_written_beside_it() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("live.db");
    let mut rows: Vec<(&str, &str)> = TURN.iter().map(|m| ("s1", *m)).collect();
    // The whole history saved again after itself, then a new message: the
    // session was re-saved, not appended.
    rows.extend(TURN.iter().map(|m| ("s1", *m)));
    rows.push(("s1", r#"{"content": "And tomorrow?", "role": "user"}"#));
    // Another session: a row that is not JSON, then a call that lost its
    // output (a row not read after a call could hold its output: see
    // `a_row_that_cannot_be_read_…`).
    rows.push(("s2", "{not json"));
    rows.push(("s2", TURN[0]));
    rows.push(("s2", TURN[1]));
    rows.push(("s2", r#"{"content": "Hello?", "role": "user"}"#));
    // The connection stays open: the rows are still in `live.db-wal`.
    let conn = make_db(&db, &rows);
    let before = listing(d.path());
    assert!(before.contains(&"live.db-wal".to_string()), "{before:?}");
    let wal = std::fs::read(d.path().join("live.db-wal")).unwrap();
    let main = std::fs::read(&db).unwrap();
    let (code, v) = check_json(db.to_str().unwrap());
    assert_eq!(code, 1, "{v}");
    let got = rpm(&v);
    let want = [
        (
            "not-append-only".to_string(),
            "/agent_messages/5/message_data".to_string(),
            "history snapshot holds its own first 4 elements again from element 5 (pointer `/agent_messages/1/message_data`); the history was saved again instead of appended; in session `s1`".to_string(),
        ),
        (
            "unanswered-tool-call".to_string(),
            "/agent_messages/12/message_data".to_string(),
            "tool call `call_1` (get_weather) has no matching result; in session `s2`".to_string(),
        ),
    ];
    assert_eq!(
        got.iter().map(|x| (&x.0, &x.1)).collect::<Vec<_>>(),
        want.iter().map(|x| (&x.0, &x.1)).collect::<Vec<_>>(),
        "{got:#?}"
    );
    assert!(got[1].2 == want[1].2, "{got:#?}");
    // The row that is not JSON is named in a warning, and the rest is read.
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--isolated", db.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("row 10 of `agent_messages`: `message_data` is not JSON"), "{err}");
    // Nothing beside the database changed: no `-shm`, no journal, same bytes.
    assert_eq!(listing(d.path()), before);
    assert_eq!(std::fs::read(d.path().join("live.db-wal")).unwrap(), wal);
    assert_eq!(std::fs::read(&db).unwrap(), main);
    drop(conn);
}

#[test]
fn a_closed_database_is_opened_immutable_and_renamed_tables_are_found() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("renamed.sqlite");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        // `SQLiteSession(sessions_table="s", messages_table="items")`.
        c.execute_batch(
            "CREATE TABLE s (session_id TEXT PRIMARY KEY);
             CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP);",
        )
        .unwrap();
        for m in &TURN[..2] {
            c.execute("INSERT INTO items (session_id, message_data) VALUES ('x', ?1)", [m]).unwrap();
        }
        c.execute(
            "INSERT INTO items (session_id, message_data) VALUES ('x', ?1)",
            [r#"{"content": "next", "role": "user"}"#],
        )
        .unwrap();
    }
    let before = listing(d.path());
    let (code, v) = check_json(db.to_str().unwrap());
    assert_eq!(code, 1);
    assert_eq!(rpm(&v)[0].1, "/items/2/message_data");
    assert_eq!(listing(d.path()), before);
    // Forced: `--input-format openai-agents-session` fits; another format does not.
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--isolated", "--input-format", "pi-session", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("an SQLite database"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // An SQLite database of another application is skipped as unrecognised, not an error.
    let other = d.path().join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (a INTEGER);").unwrap();
    let (code, v) = check_json(d.path().to_str().unwrap());
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["skipped"].as_array().map(Vec::len), Some(1), "{v}");
}

/// Runs `check --output-format json` on a database: exit code, report, stderr.
fn check_db(path: &Path) -> (i32, Value, String) {
    crate::found::check_json_stderr(path.to_str().unwrap())
}

#[test]
fn a_row_that_cannot_be_read_is_warned_about_and_the_calls_around_it_are_not_judged() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("gap.db");
    // The output row of session a is cut short; session b's has the call's
    // result in a JSON array (not an item); session c is whole.
    let cut = &TURN[2][..TURN[2].len() - 5];
    let rows = [
        ("a", TURN[0]),
        ("a", TURN[1]),
        ("a", cut),
        ("a", TURN[3]),
        ("b", TURN[0]),
        ("b", TURN[1]),
        ("b", "[1, 2]"),
        ("b", TURN[3]),
        ("c", TURN[0]),
        ("c", TURN[1]),
        ("c", r#"{"content": "Hello?", "role": "user"}"#),
    ];
    drop(make_db(&db, &rows));
    let (code, v, err) = check_db(&db);
    // Only session c, whose call has no result row at all before the next
    // user turn, has a finding.
    assert_eq!(
        (code, rpm(&v)),
        (
            1,
            vec![(
                "unanswered-tool-call".into(),
                "/agent_messages/10/message_data".into(),
                "tool call `call_1` (get_weather) has no matching result; in session `c`".into()
            )]
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "/agent_messages/3/message_data: row 3 of `agent_messages`: `message_data` is not JSON (EOF while parsing"
        ),
        "{err}"
    );
    assert!(err.contains("/agent_messages/7/message_data: row 7 of `agent_messages`: `message_data` is JSON but not an object (an array); not checked"), "{err}");
    assert_eq!(err.matches("; not checked").count(), 2, "{err}");
}

#[test]
fn a_cell_of_another_type_is_about_its_row_not_the_whole_store() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("cells.db");
    let c = make_db(&db, &TURN.map(|m| ("s", m)));
    // A session id that is not UTF-8 text, a message_data that is a number:
    // two rows not read, the other sessions still checked.
    c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES (CAST(X'73FF' AS TEXT), ?1)", [TURN[0]])
        .unwrap();
    c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('t', 42)", []).unwrap();
    drop(c);
    let (code, v, err) = check_db(&db);
    assert_eq!((code, rpm(&v)), (0, vec![]), "{err}");
    assert_eq!(v["files"][0]["format"], "openai-agents-session");
    assert!(
        err.contains(
            "row 5 of `agent_messages`: `session_id` is missing or not text, so its session is not known; not checked"
        ),
        "{err}"
    );
    assert!(
        err.contains("row 6 of `agent_messages`: `message_data` is JSON but not an object (a number); not checked"),
        "{err}"
    );
}

#[test]
fn an_item_that_is_not_as_the_sdk_writes_it_is_a_row_not_read_not_a_false_finding() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("items.db");
    // Each session's output row is not as the SDK writes it; each would
    // leave the call unanswered (or the result orphaned) if read as it is.
    let bad = [
        r#"{"call_id": 5, "output": "x", "type": "function_call_output"}"#,
        r#"{"output": "x", "type": "function_call_output"}"#,
        r#"{"call_id": "call_1", "output": "x", "type": 3}"#,
        r#"{}"#,
        r#"{"call_id": "call_1", "output": "x", "type": "shell_call_output"}"#,
    ];
    let mut rows = Vec::new();
    let names = ["s0", "s1", "s2", "s3", "s4"];
    for (n, b) in names.iter().zip(bad) {
        rows.extend([(*n, TURN[0]), (*n, TURN[1]), (*n, b), (*n, TURN[3])]);
    }
    // A call whose call_id is a number, then its result.
    let call = r#"{"arguments": "{}", "call_id": 7, "name": "get_weather", "type": "function_call"}"#;
    rows.extend([("s5", TURN[0]), ("s5", call), ("s5", TURN[2]), ("s5", TURN[3])]);
    drop(make_db(&db, &rows));
    let (code, v, err) = check_db(&db);
    assert_eq!((code, rpm(&v)), (0, vec![]), "{err}");
    for want in [
        "row 3 of `agent_messages`: a `function_call_output` item whose `call_id` is a number, not a string; not checked",
        "row 7 of `agent_messages`: a `function_call_output` item without `call_id`; not checked",
        "row 11 of `agent_messages`: the item's `type` is a number, not a string; not checked",
        "row 15 of `agent_messages`: the item has neither `type` nor `role`; not checked",
        "row 19 of `agent_messages`: a `shell_call_output` item (a type ctxlint does not read) with a `call_id`; not checked",
        "row 22 of `agent_messages`: a `function_call` item whose `call_id` is a number, not a string; not checked",
    ] {
        assert!(err.contains(want), "{want}\n{err}");
    }
}

/// A database of 1 KiB pages holding 40 sessions of padded turns (enough
/// pages to damage one in the middle), and its connection.
fn forty_sessions(db: &Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch(
        "PRAGMA page_size=1024;
         CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);",
    )
    .unwrap();
    let pad = format!(r#"{{"content": "{}", "role": "user"}}"#, "x".repeat(300));
    for n in 0..40 {
        let s = format!("s{n}");
        for m in [pad.as_str(), TURN[1], TURN[2], TURN[3]] {
            c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES (?1, ?2)", [&s, m]).unwrap();
        }
    }
    c
}

#[test]
fn a_damaged_page_loses_only_its_rows_and_the_rest_is_still_checked() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("damaged.db");
    let c = forty_sessions(&db);
    // The last session's call has no result: a real finding.
    let call = r#"{"arguments": "{}", "call_id": "call_last", "name": "get_weather", "type": "function_call"}"#;
    for m in [TURN[0], call, r#"{"content": "Hello?", "role": "user"}"#] {
        c.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('last', ?1)", [m]).unwrap();
    }
    drop(c);
    let (code, v, err) = check_db(&db);
    assert_eq!(code, 1, "{err}");
    let whole = rpm(&v);
    assert_eq!(whole.len(), 1, "{whole:?}");
    // Page 20's header overwritten: SQLite calls the file malformed there.
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[19 * 1024..19 * 1024 + 8].fill(0xff);
    std::fs::write(&db, &bytes).unwrap();
    let (code, v, err) = check_db(&db);
    assert_eq!((code, rpm(&v)), (1, whole), "{err}");
    assert!(err.contains("of `agent_messages` could not be read: the database is damaged there (SQLite: "), "{err}");
    assert!(err.contains(": rows ") || err.contains(": row "), "the lost rows are named: {err}");
}

#[test]
fn rows_after_a_damaged_page_are_found_by_seeking_whatever_their_ids() {
    // Issue 32 item 7: past a damaged page, every id up to the largest was
    // looked up one by one (a 64 KB database: 9.6 s; beyond 50 M ids the
    // rows after the damage were given up). The rows are now found by
    // seeks: here the last session's rows have ids past 60 M, and its
    // unanswered call is still reported.
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("far.db");
    let c = forty_sessions(&db);
    let call = r#"{"arguments": "{}", "call_id": "call_last", "name": "get_weather", "type": "function_call"}"#;
    for (k, m) in [TURN[0], call, r#"{"content": "Hello?", "role": "user"}"#].into_iter().enumerate() {
        c.execute(
            "INSERT INTO agent_messages (id, session_id, message_data) VALUES (?1, 'last', ?2)",
            rusqlite::params![60_000_000_i64 + k as i64, m],
        )
        .unwrap();
    }
    drop(c);
    let (code, v, err) = check_db(&db);
    assert_eq!(code, 1, "{err}");
    let whole = rpm(&v);
    assert_eq!(whole.len(), 1, "{whole:?}");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[19 * 1024..19 * 1024 + 8].fill(0xff);
    std::fs::write(&db, &bytes).unwrap();
    let (code, v, err) = check_db(&db);
    assert_eq!((code, rpm(&v)), (1, whole), "{err}");
    assert!(err.contains("could not be read: the database is damaged there"), "{err}");
    assert!(!err.contains("the rows from there on"), "rows after the damage were given up: {err}");
}

#[test]
fn a_database_damaged_before_its_first_row_ends_instead_of_seeking_forever() {
    // Found by the `sqlite_damaged` fuzz target's first hand-made input
    // (fixtures/fuzz-regressions/sqlite_damaged/agents-pages-damaged): with
    // no row read, the search for the first readable id started from
    // i64::MIN, its doubling step stopped growing at i64::MAX and the seek
    // position never reached the end — the run never finished.
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("first-page-damaged.db");
    let mut bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/formats/openai-agents-session/sqlite/two-sessions.db"
    ))
    .unwrap();
    bytes[4096] = 0x0d;
    bytes[8192] = 0xff;
    bytes[12288] = 0x05;
    std::fs::write(&db, &bytes).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", db.to_str().unwrap(), "--output-format", "json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("the rows from there on of `agent_messages` could not be read: the database is damaged there"),
        "{err}"
    );
}
