//! What one record of a session file is: the facts a JSONL session format's
//! loader reads from a line (its kind, role, id, parent and session) and that
//! `ctxlint fence` judges appended lines by.
//!
//! Each JSONL session format with an append discipline has one
//! [`RecordSchema`], defined in its own loader file next to the record type it
//! parses (`pi_session::SCHEMA`, `claude_code::SCHEMA`, …). Its
//! [`RecordSchema::classify`] parses a line with the loader's own record type
//! and returns a [`Record`]; the loader takes its entry ids and parents from the
//! same function, so `check` and `fence` cannot disagree about what a line is.
//! A new JSONL format gets `fence` by adding its schema to [`schema`].

use crate::model::FormatId;
use std::borrow::Cow;

/// A record's parent link, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Parent<'a> {
    /// No parent key (a linear format, or a record outside the tree).
    #[default]
    Absent,
    /// The parent key is `null`: the record is a root.
    Null,
    /// The id of the parent record.
    Id(Cow<'a, str>),
}

/// The facts of one record. Strings borrow from the line where the JSON has no
/// escapes.
#[derive(Debug, Clone, Default)]
pub struct Record<'a> {
    /// The record kind: the entry `type` (pi, Claude Code, Codex `type`,
    /// Copilot event `type`, Gemini message `type` or `$set` / `$rewindTo` /
    /// `metadata`).
    pub kind: Option<Cow<'a, str>>,
    /// A second kind name (Codex `payload.type`), matched by `--owned` too.
    pub subkind: Option<Cow<'a, str>>,
    /// The message role (pi / Claude Code `message.role`, Codex `payload.role`).
    pub role: Option<Cow<'a, str>>,
    /// The record's id when it takes part in an id/parent tree (pi v2+ `id`,
    /// Claude Code `uuid`); for a session header, the session id.
    pub id: Option<Cow<'a, str>>,
    /// The parent link of a tree record.
    pub parent: Parent<'a>,
    /// The record is a node of the file's id/parent tree: its id must be fresh
    /// and its parent must resolve.
    pub tree: bool,
    /// A root by design (Claude Code `compact_boundary`, a sidechain start).
    pub root_exempt: bool,
    /// The session the record belongs to (Claude Code `sessionId`, Codex
    /// `session_meta` payload `id`), when the schema checks sessions.
    pub session: Option<Cow<'a, str>>,
    /// A session header (pi `{"type":"session"}`): owned only as the first
    /// line of a file.
    pub header: bool,
    /// The header's format version (pi `version`; 1 when absent).
    pub version: Option<u64>,
    /// The runtime writes records of this kind itself (the default ownership
    /// when the runner does not name its kinds with `--owned`).
    pub runner_writes: bool,
    /// A field the runtime always writes is missing or of the wrong type:
    /// `fence` calls such an appended line malformed; a loader reads it
    /// leniently.
    pub problem: Option<String>,
}

impl Record<'_> {
    /// The same facts, owning their strings.
    pub fn into_owned(self) -> Record<'static> {
        let own = |c: Option<Cow<'_, str>>| c.map(|c| Cow::Owned(c.into_owned()));
        Record {
            kind: own(self.kind),
            subkind: own(self.subkind),
            role: own(self.role),
            id: own(self.id),
            parent: match self.parent {
                Parent::Absent => Parent::Absent,
                Parent::Null => Parent::Null,
                Parent::Id(p) => Parent::Id(Cow::Owned(p.into_owned())),
            },
            tree: self.tree,
            root_exempt: self.root_exempt,
            session: own(self.session),
            header: self.header,
            version: self.version,
            runner_writes: self.runner_writes,
            problem: self.problem,
        }
    }

    /// The kind names `--owned` lists are matched against: kind, subkind, role.
    pub fn owned_names(&self) -> impl Iterator<Item = &str> {
        [&self.kind, &self.subkind, &self.role].into_iter().flatten().map(|c| c.as_ref())
    }
}

/// What the classifier needs to know about the file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// The format version from the file's header (pi); 0 when unknown.
    pub version: u64,
}

/// How a format ties records to a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sessions {
    /// Records name no session, or sessions are not checked.
    Unchecked,
    /// Every record names its session (Claude Code `sessionId`); a file may
    /// hold several (a resumed or forked session), and an appended record must
    /// name one of them (the first appended one when the file has none).
    AnyOfFile,
    /// One record names the file's session (Codex `session_meta`); a second
    /// one naming another session belongs to another run.
    Single,
}

/// A JSONL session format's record facts, for its loader and for `fence`.
pub struct RecordSchema {
    /// The format.
    pub format: FormatId,
    /// Parses one line (without its newline) with the loader's record type.
    /// `Err` = not one JSON object of the format's shape, with the reason.
    pub classify: for<'a> fn(&'a [u8], &Context) -> Result<Record<'a>, String>,
    /// The keys whose string values are record or session ids (for the
    /// quoted-id search over a file's bytes).
    pub id_keys: &'static [&'static str],
    /// How records are tied to a session.
    pub sessions: Sessions,
}

/// The record schema of a JSONL session format, when it has one
/// ([`super::Format::record`]).
pub fn schema(format: FormatId) -> Option<&'static RecordSchema> {
    super::descriptor(format)?.record
}

/// The formats that have a [`RecordSchema`], in [`super::REGISTRY`]'s order
/// (the order `fence` names them in).
pub fn formats() -> impl Iterator<Item = FormatId> {
    super::REGISTRY.iter().filter(|d| d.record.is_some()).map(|d| d.id)
}

/// Parses `bytes` as one JSON object (strictly: valid UTF-8, one value, an
/// object) into `T`, the loader's record type. `what` names the format's
/// records in the reason of a shape error ("pi session entry").
pub fn parse_object<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| super::jsonl::invalid_utf8(bytes))?;
    let first = text.trim_start().as_bytes().first().copied();
    match serde_json::from_str::<T>(text) {
        Ok(v) if first == Some(b'{') => Ok(v),
        Ok(_) => Err("not a JSON object: an entry must be an object".into()),
        Err(e) => match super::jsonl::malformed_reason(bytes, &e) {
            Some(reason) => Err(format!("not one valid JSON value: {reason}")),
            None if first != Some(b'{') => Err("not a JSON object: an entry must be an object".into()),
            None => Err(format!("not a {what}: {}", super::jsonl::describe_json_error(&e))),
        },
    }
}

/// A string field read leniently from a raw JSON value (`None` when it is not a string).
pub fn raw_str(v: Option<&serde_json::value::RawValue>) -> Option<Cow<'_, str>> {
    let v = v?;
    if !v.get().starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(v.get()) {
        Ok(b) => Some(Cow::Borrowed(b)),
        Err(_) => serde_json::from_str::<String>(v.get()).ok().map(Cow::Owned),
    }
}

/// A `serde_json::Value` string field as a borrowed `Cow`.
pub fn value_str<'a>(m: &'a serde_json::Map<String, serde_json::Value>, key: &str) -> Option<Cow<'a, str>> {
    m.get(key).and_then(serde_json::Value::as_str).map(Cow::Borrowed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{LoadOptions, load, sniff_jsonl_record};
    use crate::source::SourceRef;
    use std::path::{Path, PathBuf};

    /// Every JSONL fixture of a format with a schema: cases and format fixtures.
    fn fixtures() -> Vec<(PathBuf, FormatId)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut out = Vec::new();
        let mut stack = vec![root.join("cases"), root.join("formats")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "jsonl") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let format = text
                    .lines()
                    .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                    .find_map(|v| sniff_jsonl_record(&v));
                if let Some(f) = format.filter(|&f| schema(f).is_some()) {
                    out.push((p, f));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn the_loader_and_the_classifier_agree_on_every_fixture_line() {
        let files = fixtures();
        let formats: std::collections::BTreeSet<FormatId> = files.iter().map(|(_, f)| *f).collect();
        assert_eq!(formats.len(), super::formats().count(), "a fixture of every schema format: {formats:?}");
        let mut tree_entries = 0;
        for (path, format) in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let lines: Vec<&str> = text.split('\n').collect();
            let src = SourceRef::file(path.display().to_string(), path);
            let Ok(input) = load(&src, *format, &LoadOptions::default()) else { continue };
            let Some(t) = input.as_transcript() else { continue };
            let version = t.header.as_ref().map_or(0, |h| u64::from(h.version));
            let cx = Context { version: if *format == crate::formats::pi_session::ID { version.max(1) } else { 0 } };
            let s = schema(*format).unwrap();
            for e in &t.entries {
                let line = lines[e.line as usize - 1].trim_end_matches('\r');
                let Ok(rec) = (s.classify)(line.as_bytes(), &cx) else {
                    panic!("{}:{}: the loader read an entry the classifier rejects", path.display(), e.line);
                };
                assert!(!rec.header, "{}:{}", path.display(), e.line);
                if rec.tree {
                    tree_entries += 1;
                    assert_eq!(rec.id.as_deref(), e.id.as_deref(), "{}:{}", path.display(), e.line);
                }
            }
        }
        assert!(tree_entries > 100, "{tree_entries}");
    }

    #[test]
    fn kinds_roles_and_ownership_per_format() {
        let cx = Context { version: 3 };
        let pi = |l: &str| {
            (schema(crate::formats::pi_session::ID).unwrap().classify)(l.as_bytes(), &cx).map(Record::into_owned)
        };
        let r =
            pi(r#"{"type":"message","id":"a","parentId":"b","message":{"role":"toolResult","content":[]}}"#).unwrap();
        assert_eq!(
            (r.kind.as_deref(), r.role.as_deref(), r.runner_writes, r.tree),
            (Some("message"), Some("toolResult"), true, true)
        );
        assert_eq!(r.parent, Parent::Id("b".into()));
        let r = pi(r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#).unwrap();
        assert_eq!((r.runner_writes, r.parent), (false, Parent::Null));
        // An extension's data may be any JSON.
        let r = pi(r#"{"type":"custom","id":"c","parentId":"a","customType":"x","data":"plain"}"#).unwrap();
        assert!(r.runner_writes && r.problem.is_none());
        assert_eq!(
            pi(r#"{"type":"label","parentId":"a"}"#).unwrap().problem.as_deref(),
            Some("entry has no `id` (required in pi session v3)")
        );
        assert_eq!(pi("[1]").unwrap_err(), "not a JSON object: an entry must be an object");
        assert!(pi(r#"{"type":"label","id":5}"#).unwrap_err().starts_with("not a pi session entry: invalid type"));
        let r = pi(r#"{"type":"session","version":2,"id":"s1"}"#).unwrap();
        assert_eq!((r.header, r.version, r.id.as_deref()), (true, Some(2), Some("s1")));

        let cc = |l: &str| {
            (schema(crate::formats::claude_code::ID).unwrap().classify)(l.as_bytes(), &cx).map(Record::into_owned)
        };
        let r = cc(r#"{"type":"system","subtype":"compact_boundary","uuid":"u","parentUuid":null,"sessionId":"s"}"#)
            .unwrap();
        assert_eq!(
            (r.tree, r.root_exempt, r.parent.clone(), r.session.as_deref()),
            (true, true, Parent::Null, Some("s"))
        );
        let r = cc(r#"{"type":"user","uuid":"u","parentUuid":"p","message":{"role":"user","content":"x"}}"#).unwrap();
        assert_eq!(r.role.as_deref(), Some("user"));
        assert!(!cc(r#"{"type":"permission-mode","sessionId":"s"}"#).unwrap().tree);
        assert_eq!(
            cc(r#"{"type":"user","uuid":"u","parentUuid":3}"#).unwrap().problem.as_deref(),
            Some("`parentUuid` is neither a string nor null")
        );

        let cx0 = Context::default();
        let codex = |l: &str| {
            (schema(crate::formats::codex_rollout::ID).unwrap().classify)(l.as_bytes(), &cx0).map(Record::into_owned)
        };
        let r = codex(r#"{"type":"session_meta","payload":{"id":"s9"}}"#).unwrap();
        assert_eq!(r.session.as_deref(), Some("s9"));
        let r = codex(r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}"#).unwrap();
        assert_eq!(r.owned_names().collect::<Vec<_>>(), ["response_item", "message", "user"]);
        assert!(codex(r#"{"type":"response_item"}"#).unwrap().problem.is_some());

        let gem = |l: &str| {
            (schema(crate::formats::gemini_cli::ID).unwrap().classify)(l.as_bytes(), &cx0).map(Record::into_owned)
        };
        assert_eq!(gem(r#"{"$rewindTo":"m1"}"#).unwrap().kind.as_deref(), Some("$rewindTo"));
        assert_eq!(gem(r#"{"sessionId":"s","projectHash":"h"}"#).unwrap().kind.as_deref(), Some("metadata"));
        assert_eq!(gem(r#"{"id":"m","type":"gemini","content":[]}"#).unwrap().kind.as_deref(), Some("gemini"));

        let cop = |l: &str| {
            (schema(crate::formats::copilot_cli::ID).unwrap().classify)(l.as_bytes(), &cx0).map(Record::into_owned)
        };
        assert_eq!(cop(r#"{"type":"user.message","data":{},"id":"e"}"#).unwrap().kind.as_deref(), Some("user.message"));
        assert!(
            cop("{\"type\":\"user.message\",\"data\":{\"content\":\"a\u{2028}b\"},\"id\":\"e\"}")
                .unwrap_err()
                .starts_with("raw U+2028/U+2029 at byte")
        );
    }
}
