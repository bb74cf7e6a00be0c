//! `opencode`: OpenCode's SQLite store, one transcript per session
//! (fixtures/formats/opencode, recorded with opencode 1.18.33 and 1.2.1).

use crate::found::check_json;
use serde_json::Value;

const DIR: &str = "fixtures/formats/opencode";

/// (rule, pointer, step, entry id, message) of every finding.
fn found(v: &Value) -> Vec<(String, String, u64, String, String)> {
    let s = |x: &Value| x.as_str().unwrap_or_default().to_string();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                s(&f["rule"]),
                s(&f["pointer"]),
                f["request"].as_u64().unwrap_or(u64::MAX),
                s(&f["entry_id"]),
                s(&f["message"]),
            )
        })
        .collect()
}

#[test]
fn recorded_stores_are_clean_and_each_session_is_a_transcript() {
    // clean: a tool call and two turns; errored: an HTTP 400 (a failed
    // attempt, not sent), a stream cut mid-answer (continued by a second
    // call: one reply), an HTTP 500 retried; compaction: two automatic
    // compactions, each followed by the runtime's "Continue" prompt.
    for (name, sessions) in [("clean", 1), ("errored", 1), ("compaction", 1), ("two-sessions", 2), ("v1.2.1", 1)] {
        let (code, v) = check_json(&format!("{DIR}/{name}.db"));
        assert_eq!((code, found(&v)), (0, vec![]), "{name}");
        let files = v["files"].as_array().unwrap();
        assert_eq!(files.len(), sessions, "{name}: {v}");
        assert!(files.iter().all(|f| f["format"] == "opencode"), "{name}");
    }
}

#[test]
fn a_prompt_typed_again_after_a_failed_call_is_a_replay() {
    // errored.db with the second prompt made the first one again: OpenCode
    // drops the failed assistant message and sends both copies.
    let (code, v) = check_json(&format!("{DIR}/replay-after-error.db"));
    assert_eq!(code, 1);
    assert_eq!(
        found(&v),
        vec![(
            "duplicate-user-turn".into(),
            "/message/msg_2380675ea001TLMlXUBbtl0RKG/data".into(),
            1,
            "msg_2380675ea001TLMlXUBbtl0RKG".into(),
            "user turn from message `msg_23806161a001d2wVMcefrGpkwz` written again: the attempt ended with an error"
                .into()
        )]
    );
    let f = &v["findings"][0];
    assert!(f["line"].is_null() && f["column"].is_null(), "a database has no lines: {f}");
    assert_eq!(f["related"][0]["pointer"], "/message/msg_23806161a001d2wVMcefrGpkwz/data");
}

#[test]
fn a_session_is_shown_step_by_step_and_the_store_is_never_touched() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("opencode.db");
    std::fs::copy(format!("{}/{DIR}/compaction.db", env!("CARGO_MANIFEST_DIR")), &db).unwrap();
    let before: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    let bytes = std::fs::read(&db).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["show", db.to_str().unwrap(), "--color", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // A store's steps are named by session and message, its rows by position.
    assert!(text.contains("(opencode, session ses_"), "{text}");
    assert!(text.contains("): 5 steps") && text.contains("step 0: model call at message msg_"), "{text}");
    assert!(text.contains("│ # ┆ row ┆ role") && !text.contains("at line"), "{text}");
    // The history is cut at each completed compaction.
    assert_eq!(text.matches("context rebuilt (compaction)").count(), 2, "{text}");
    assert!(text.contains("What did we do so far?") && text.contains("compaction summary"), "{text}");
    let after: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before, after);
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
    // A store with several sessions names them: `show` needs one, given with --session.
    let run = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("ctxlint")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .args(["--color", "never"])
            .output()
            .unwrap()
    };
    let db = format!("{DIR}/two-sessions.db");
    let out = run(&["show", &db]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "ctxlint: error: {db}: holds 2 sessions (ses_dc7f9dffeffeKSG6MYP2IuzyV0, ses_dc7f97903ffec23XMbI1rM2vci); name one with --session ID\n"
        )
    );
    let out = run(&["show", &db, "--session", "ses_dc7f97903ffec23XMbI1rM2vci"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(opencode, session ses_dc7f97903ffec23XMbI1rM2vci): 2 steps")
            && text.contains("Second session: READ_TOOL"),
        "{text}"
    );
    let out = run(&["show", &db, "--session", "ses_dc7f97903ffec23XMbI1rM2vci", "--output-format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["format"].as_str(), v["session"].as_str()),
        (Some("opencode"), Some("ses_dc7f97903ffec23XMbI1rM2vci"))
    );
    // --show-files names each session a store holds.
    let out = run(&["check", &db, "--show-files"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{db} (session ses_dc7f9dffeffeKSG6MYP2IuzyV0): opencode\n{db} (session ses_dc7f97903ffec23XMbI1rM2vci): opencode\n"
        )
    );
    let out = run(&["show", &db, "--session", "ses_nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!(
        "--session ses_nope: no store in {db} holds it (they hold ses_dc7f9dffeffeKSG6MYP2IuzyV0, ses_dc7f97903ffec23XMbI1rM2vci)"
    )));
    // check names each session's summary, and checks one when asked.
    let (_, v) = check_json(&db);
    let sessions: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["session"].as_str().unwrap()).collect();
    assert_eq!(sessions, ["ses_dc7f9dffeffeKSG6MYP2IuzyV0", "ses_dc7f97903ffec23XMbI1rM2vci"]);
    let out = run(&["check", &db, "--session", "ses_dc7f9dffeffeKSG6MYP2IuzyV0", "--output-format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(
        (v["files"][0]["session"].as_str(), v["files"][0]["entries"].as_u64()),
        (Some("ses_dc7f9dffeffeKSG6MYP2IuzyV0"), Some(2))
    );
    // A folder of several stores: those without the session are passed over.
    let out = run(&["check", DIR, "--session", "ses_dc7f97903ffec23XMbI1rM2vci", "--output-format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stores: Vec<(&str, &str)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| Some((f["path"].as_str()?, f["session"].as_str()?)))
        .collect();
    assert_eq!(stores, [(db.as_str(), "ses_dc7f97903ffec23XMbI1rM2vci")], "{v}");
    assert_eq!(v["failed"], serde_json::json!([]), "{v}");
    // --session where no store is: an error, not ignored.
    let out = run(&["show", "fixtures/formats/copilot-cli/clean.jsonl", "--session", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no store of several sessions"));
    // Inputs that are no store's sessions carry no `session`.
    let (_, v) = check_json("fixtures/formats/copilot-cli/clean.jsonl");
    assert!(v["files"][0].get("session").is_none(), "{v}");
}

/// The recorded OpenCode 1.1.65 `storage/` tree copied into `to`.
fn copy_legacy_tree(to: &std::path::Path) {
    copy_tree(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR).join("legacy-1.1.65"), to);
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&p).unwrap();
            copy_tree(&e.path(), &p);
        } else {
            std::fs::copy(e.path(), p).unwrap();
        }
    }
}

#[test]
fn a_legacy_storage_tree_is_one_transcript_per_session_file() {
    // OpenCode 1.1.65's `storage/`: a walk finds the session file and reads
    // its messages and parts with it; they, the project and the diffs are
    // not inputs of their own (never listed as skipped).
    let d = tempfile::tempdir().unwrap();
    copy_legacy_tree(d.path());
    let storage = d.path().join("storage");
    let (code, v) = check_json(storage.to_str().unwrap());
    assert_eq!((code, found(&v)), (0, vec![]), "{v}");
    assert_eq!(v["files"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["files"][0]["format"], "opencode");
    assert_eq!(v["skipped"].as_array().map(Vec::len), Some(0), "{v}");
    let out =
        assert_cmd::Command::cargo_bin("ctxlint").unwrap().args(["show", storage.to_str().unwrap()]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("(opencode, session ses_dc7f76c62ffeZNEkSGl3JdgFch): 3 steps"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The second prompt made the first one again after the first call
    // failed: a replay. A part file that is not JSON is named, the rest read.
    let msgs = storage.join("message/ses_dc7f76c62ffeZNEkSGl3JdgFch");
    let first = msgs.join("msg_2380893bb0019Lc0JuuqQp26h0.json");
    let mut failed: Value =
        serde_json::from_str(&std::fs::read_to_string(msgs.join("msg_2380895df001DhhasxWvYvsRiA.json")).unwrap())
            .unwrap();
    failed["error"] = serde_json::json!({"name": "APIError", "data": {"message": "overloaded", "isRetryable": true}});
    std::fs::write(msgs.join("msg_2380895df001DhhasxWvYvsRiA.json"), failed.to_string()).unwrap();
    let first_text = {
        let p = storage.join("part/msg_2380893bb0019Lc0JuuqQp26h0");
        let f = std::fs::read_dir(&p).unwrap().next().unwrap().unwrap().path();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        v["text"].as_str().unwrap().to_string()
    };
    let second = storage.join("part/msg_23808a1b7001YHtzVwBTt7CREx");
    let f = std::fs::read_dir(&second).unwrap().next().unwrap().unwrap().path();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    v["text"] = Value::String(first_text);
    std::fs::write(&f, v.to_string()).unwrap();
    std::fs::write(storage.join("part/msg_23808a1b7001YHtzVwBTt7CREx/prt_zzz.json"), "{torn").unwrap();
    assert!(first.is_file());
    let (code, v) = check_json(storage.to_str().unwrap());
    assert_eq!(code, 1, "{v}");
    let got: Vec<(String, String)> = found(&v).into_iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(
        got,
        vec![("duplicate-user-turn".to_string(), "/message/msg_23808a1b7001YHtzVwBTt7CREx/data".to_string())]
    );
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--isolated", storage.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("prt_zzz.json: not JSON"), "{err}");
}

/// `clean.db` copied into a temporary folder with `sql` run on it; then
/// `check --output-format json`: exit code, report, stderr.
fn damaged(sql: &str) -> (i32, Value, String) {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("store.db");
    std::fs::copy(format!("{}/{DIR}/clean.db", env!("CARGO_MANIFEST_DIR")), &db).unwrap();
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(sql).unwrap();
    drop(c);
    crate::found::check_json_stderr(db.to_str().unwrap())
}

#[test]
fn a_damaged_cell_is_about_its_part_and_a_user_turn_whose_part_is_lost_stays_a_turn() {
    // A part whose bytes are not UTF-8: warned about, the rest of the store read.
    let (code, v, err) =
        damaged("UPDATE part SET data = CAST(X'7BFF' AS TEXT) WHERE id = 'prt_2380566e7001Bhel7OwkzAUv7b';");
    assert_eq!((code, found(&v)), (0, vec![]), "{err}");
    assert_eq!(v["files"][0]["format"], "opencode");
    assert!(
        err.contains("/part/prt_2380566e7001Bhel7OwkzAUv7b/data: part `prt_2380566e7001Bhel7OwkzAUv7b`: `data` is not a JSON object; not checked"),
        "{err}"
    );
    // The second prompt's only part lost: the turn is still there, so the
    // reply to it is no second reply to the first prompt.
    let (code, v, err) = damaged(
        "UPDATE part SET data = X'7B2274797065223A2274657874222C2274657874223A22686922FF7D' WHERE id = 'prt_23805a8e9001W0wfELaV114RRZ';",
    );
    assert_eq!((code, found(&v)), (0, vec![]), "{err}");
    assert!(err.contains("part `prt_23805a8e9001W0wfELaV114RRZ`: `data` is not a JSON object; not checked"), "{err}");
}

#[test]
fn ids_from_a_legacy_tree_never_lead_out_of_the_store() {
    // Issue 32: a session id `ses_/../../../../outside` and a message id
    // that is an absolute path made ctxlint read (and `show` print) JSON
    // files of any folder. Ids are data: the secret beside the store is
    // never read, the session is refused with its reason.
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    copy_legacy_tree(&root);
    let outside = d.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = r#"{"id":"msg_x","role":"user","time":{"created":1},"sessionID":"s"}"#;
    std::fs::write(outside.join("leak.json"), secret).unwrap();
    let sfile =
        root.join("storage/session/70da48d63ce91705699aed8d8787660e6064de32/ses_dc7f76c62ffeZNEkSGl3JdgFch.json");
    let mut s: Value = serde_json::from_str(&std::fs::read_to_string(&sfile).unwrap()).unwrap();
    s["id"] = Value::String("ses_/../../../outside".into());
    std::fs::write(&sfile, s.to_string()).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["show", sfile.to_str().unwrap(), "--full"])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("cannot name a folder of the store"), "{all}");
    assert!(!all.contains("msg_x"), "{all}");

    // A message whose id is an absolute path: its parts are not looked up
    // there; the message is named as not fully read.
    std::fs::write(&sfile, {
        s["id"] = Value::String("ses_dc7f76c62ffeZNEkSGl3JdgFch".into());
        s.to_string()
    })
    .unwrap();
    let part_dir = outside.join("part");
    std::fs::create_dir_all(&part_dir).unwrap();
    std::fs::write(
        part_dir.join("prt_1.json"),
        r#"{"id":"prt_1","type":"text","text":"OUTSIDE-TEXT","messageID":"m","sessionID":"s"}"#,
    )
    .unwrap();
    let mfile = root.join("storage/message/ses_dc7f76c62ffeZNEkSGl3JdgFch/msg_2380893bb0019Lc0JuuqQp26h0.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&mfile).unwrap()).unwrap();
    m["id"] = Value::String(part_dir.to_str().unwrap().into());
    std::fs::write(&mfile, m.to_string()).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["show", sfile.to_str().unwrap(), "--full"])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!all.contains("OUTSIDE-TEXT"), "{all}");
    let out =
        assert_cmd::Command::cargo_bin("ctxlint").unwrap().args(["check", sfile.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot name a folder of the store: its parts were not read"), "{err}");
    assert!(!err.contains("OUTSIDE-TEXT"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_link_to_dev_zero_among_legacy_files_is_a_file_not_read() {
    // Issue 32: a FIFO among the message files hung forever; a link to
    // /dev/zero grew until out of memory. Both are named as not read; the
    // rest of the session is checked.
    let d = tempfile::tempdir().unwrap();
    copy_legacy_tree(d.path());
    let msgs = d.path().join("storage/message/ses_dc7f76c62ffeZNEkSGl3JdgFch");
    let fifo = msgs.join("msg_zz_fifo.json");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    std::os::unix::fs::symlink("/dev/zero", msgs.join("msg_zz_zero.json")).unwrap();
    let part = d.path().join("storage/part/msg_2380893bb0019Lc0JuuqQp26h0");
    std::os::unix::fs::symlink("/dev/zero", part.join("prt_zz_zero.json")).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--output-format", "json", d.path().join("storage").to_str().unwrap()])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(v["files"].as_array().map(Vec::len), Some(1), "{v} {err}");
    assert!(err.contains("msg_zz_fifo.json: not a regular file"), "{err}");
    assert!(err.contains("msg_zz_zero.json: not a regular file"), "{err}");
    assert!(err.contains("prt_zz_zero.json: not a regular file"), "{err}");
}

#[test]
fn a_store_without_its_session_indexes_reads_the_same_in_one_scan() {
    // Issue 32 item 11: without OpenCode's `session_id` indexes, each
    // session's query scanned the whole tables (1,000 / 2,000 / 4,000
    // sessions: 3.2 / 11.6 / 40 s); the tables are now scanned once for the
    // row ids of every session (bench: `bench.py --only shapes`,
    // opencode-no-index). What is read must not change.
    let tmp = tempfile::tempdir().unwrap();
    for name in ["clean", "errored", "compaction", "two-sessions", "replay-after-error", "v1.2.1"] {
        let with = format!("{DIR}/{name}.db");
        let without = tmp.path().join(format!("{name}.db"));
        std::fs::copy(&with, &without).unwrap();
        let c = rusqlite::Connection::open(&without).unwrap();
        let names: Vec<String> = c
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(names.iter().any(|n| n.starts_with("message_session")), "{name}: {names:?}");
        for n in &names {
            c.execute(&format!("DROP INDEX `{n}`"), []).unwrap();
        }
        drop(c);
        let (code_with, v_with) = check_json(&with);
        let (code_without, v_without) = check_json(without.to_str().unwrap());
        assert_eq!((code_without, found(&v_without)), (code_with, found(&v_with)), "{name}");
        let summary = |v: &Value| -> Vec<Value> {
            v["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    f.as_object_mut().unwrap().remove("path");
                    f
                })
                .collect()
        };
        assert_eq!(summary(&v_without), summary(&v_with), "{name}");
    }
}

#[test]
fn a_store_whose_name_is_not_utf8_is_read() {
    // Issue 32, the attack round: the SQLite URI was built from a lossy
    // UTF-8 copy of the path, so `st\xffre.db` named another file and the
    // store was "an SQLite database that SQLite cannot read".
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(format!("{DIR}/clean.db"), tmp.path().join(std::ffi::OsStr::from_bytes(b"st\xffre.db"))).unwrap();
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--output-format", "json"])
        .arg(tmp.path())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(v["summary"]["files"], 1, "{v}");
}

#[test]
fn a_store_with_a_hot_rollback_journal_is_read_as_rolled_back_and_left_as_it_is() {
    // Issue 32, the second attack round: a store whose writer stopped
    // mid-transaction (a non-empty `-journal` beside it, pages already
    // written) was skipped as "truncated, damaged or encrypted"; SQLite reads
    // it after rolling the journal back. ctxlint reads a rolled-back copy and
    // never touches the store or its journal.
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("opencode.db");
    std::fs::copy(format!("{DIR}/clean.db"), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "delete").unwrap();
    conn.pragma_update(None, "cache_size", 1).unwrap();
    conn.execute_batch("BEGIN; DELETE FROM part; CREATE TABLE junk(x);").unwrap();
    for _ in 0..2000 {
        conn.execute("INSERT INTO junk VALUES (?1)", ["x".repeat(1000)]).unwrap();
    }
    std::mem::forget(conn); // the writer stops: no commit, no rollback
    let journal = d.path().join("opencode.db-journal");
    assert!(std::fs::metadata(&journal).unwrap().len() > 0, "a hot journal");
    let before = (std::fs::read(&db).unwrap(), std::fs::read(&journal).unwrap());
    let (code, v) = check_json(&db.to_string_lossy());
    let (clean_code, clean) = check_json(&format!("{DIR}/clean.db"));
    assert_eq!((code, found(&v)), (clean_code, found(&clean)), "{v}");
    assert_eq!(v["files"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["files"][0]["entries"], clean["files"][0]["entries"], "the parts the transaction deleted are read");
    assert_eq!((std::fs::read(&db).unwrap(), std::fs::read(&journal).unwrap()), before, "the store is untouched");
    let names: Vec<String> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// `replay-after-error.db` with its session copied under another id (every
/// message and part id renamed): a store of two sessions, each with the
/// same replay.
fn two_sessions_with_a_replay_each(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("store.db");
    std::fs::copy(format!("{}/{DIR}/replay-after-error.db", env!("CARGO_MANIFEST_DIR")), &db).unwrap();
    let c = rusqlite::Connection::open(&db).unwrap();
    let shift = "time_created = time_created + 1000000, time_updated = time_updated + 1000000";
    c.execute_batch(&format!(
        "CREATE TEMP TABLE s AS SELECT * FROM session;
         UPDATE s SET id = '{SECOND}', {shift}; INSERT INTO session SELECT * FROM s;
         CREATE TEMP TABLE m AS SELECT * FROM message;
         UPDATE m SET id = replace(id, 'msg_2380', 'msg_2390'), session_id = '{SECOND}',
           data = replace(data, 'msg_2380', 'msg_2390'), {shift};
         INSERT INTO message SELECT * FROM m;
         CREATE TEMP TABLE p AS SELECT * FROM part;
         UPDATE p SET id = replace(id, 'prt_2380', 'prt_2390'), message_id = replace(message_id, 'msg_2380', 'msg_2390'),
           session_id = '{SECOND}', data = replace(data, 'msg_2380', 'msg_2390'), {shift};
         INSERT INTO part SELECT * FROM p;"
    ))
    .unwrap();
    db
}

const FIRST: &str = "ses_dc7f9ebddffeHpRErMcGMD02cn";
const SECOND: &str = "ses_dc7f00000000SecondSession00";

#[test]
fn findings_of_a_store_of_several_sessions_name_their_session_and_have_a_page_each() {
    // Before: the two equal replays had one fingerprint (a baseline of one
    // hid the other), named no session, and the HTML report put both
    // sessions' findings on the first session's page.
    let d = tempfile::tempdir().unwrap();
    let db = two_sessions_with_a_replay_each(d.path());
    let (code, v) = check_json(db.to_str().unwrap());
    assert_eq!(code, 1, "{v}");
    let f = v["findings"].as_array().unwrap();
    let got: Vec<(&str, &str)> =
        f.iter().map(|f| (f["session"].as_str().unwrap(), f["pointer"].as_str().unwrap())).collect();
    assert_eq!(
        got,
        [
            (FIRST, "/message/msg_2380675ea001TLMlXUBbtl0RKG/data"),
            (SECOND, "/message/msg_2390675ea001TLMlXUBbtl0RKG/data")
        ]
    );
    assert_ne!(f[0]["fingerprint"], f[1]["fingerprint"]);
    // The human output names it where it names the pointer.
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--isolated", "--output-format", "full", "--color", "never"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("   at session {SECOND}, pointer /message/msg_2390675ea001TLMlXUBbtl0RKG/data, step 1")),
        "{text}"
    );
    // SARIF too.
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--isolated", "--output-format", "sarif"])
        .arg(&db)
        .output()
        .unwrap();
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"][1]["properties"]["session"], SECOND);
    // The HTML report: a page per session, each with its own finding.
    let html = d.path().join("r.html");
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["check", "--isolated", "-q", "--output-format", "html", "-o"])
        .arg(&html)
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let data = crate::html::embedded(&std::fs::read_to_string(&html).unwrap(), "ctxlint-index");
    let pages: Vec<(u64, &str)> = data["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["page"].as_u64().unwrap(), f["session"].as_str().unwrap()))
        .collect();
    assert_eq!(pages, [(0, FIRST), (1, SECOND)]);
    assert_eq!(data["pages"][1]["session"], SECOND);
    // `diff` is no tool for a store: it says so, and what to use, instead of
    // asking for a `--session` it does not take.
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .args(["diff"])
        .arg(&db)
        .args(["--request", "0", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is a opencode store of transcripts (one per session), not recorded requests")
            && err.contains("--session ID"),
        "{err}"
    );
    // Inputs that are no store's sessions carry no `session` at all.
    let (_, v) = check_json(&format!("{DIR}/../../report/mixed-session.jsonl"));
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f.get("session").is_none()), "{v}");
}
