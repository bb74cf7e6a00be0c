//! The format descriptor: everything the rest of ctxlint knows about one
//! input format, kept beside its loader (each loader file defines its
//! `pub static FORMAT: Format`) and listed once in [`super::REGISTRY`].
//!
//! Detection, `--input-format`'s fit check, loading, finding placement,
//! `fence`'s record schema, `repro`'s file names and `ctxlint formats`' text
//! all read a format's facts from here; no other module lists format ids.
//! Adding a format is one loader file (its `ID`, its functions and its
//! `FORMAT`) plus one line in [`super::REGISTRY`]; the registry's tests fail
//! when a descriptor is incomplete or contradicts itself (a transcript with
//! no loader, a body with no parser, two formats at one detection rank).

use super::record::RecordSchema;
use super::{Detection, LoadOptions};
use crate::error::Result;
use crate::finding::Finding;
use crate::locate::Locator;
use crate::model::{FormatId, Input, Message, Request, Transcript};
use crate::source::SourceRef;
use serde_json::Value;
use std::sync::Arc;

/// One input format (docs/spec.md §1).
pub struct Format {
    /// The stable id (`--input-format`, the `format` of every finding).
    pub id: FormatId,
    /// What one input of the format is.
    pub shape: Shape,
    /// How its files are written.
    pub encoding: Encoding,
    /// How detection recognises it by content.
    pub detect: Detect,
    /// How a forced format (`--input-format`) is checked against an input.
    pub fit: Fit,
    /// How an input is read.
    pub read: Read,
    /// How a finding's line, column and byte offset are found in the file.
    pub locate: Locate,
    /// The record facts `fence` needs (JSONL session formats only).
    pub record: Option<&'static RecordSchema>,
    /// How `repro` names the files of a case.
    pub repro: Repro,
    /// For a store holding several transcripts, how it is split into inputs.
    pub store: Option<Store>,
    /// Where the agents that write the format keep their files, for `check`
    /// with no PATH (docs/spec.md §3).
    pub agent_folders: &'static [AgentFolder],
    /// What `ctxlint formats` says about it.
    pub about: About,
}

/// A place an agent keeps its session files: the default scan of `check`
/// with no PATH looks there (docs/spec.md §3).
#[derive(Debug, Clone, Copy)]
pub struct AgentFolder {
    /// Order among every agent's folders (the scan lists them in it).
    pub rank: u8,
    /// Environment variables naming the agent's folder, the first one set
    /// (and not empty) winning.
    pub env: &'static [&'static str],
    /// The agent's folder under the user's home when no variable is set
    /// (`""`: the home itself).
    pub home: &'static str,
    /// Whether the variable names a home under which [`AgentFolder::home`]
    /// still applies (Gemini CLI's `$GEMINI_CLI_HOME`), not the folder itself.
    pub env_is_home: bool,
    /// The path under the agent's folder; a segment holding `*` matches any
    /// name there with the same start and end (`agents/*/sessions`,
    /// `tmp/*/checkpoint*.json`).
    pub pattern: &'static str,
    /// Whether what matches is a file (else a folder).
    pub file: bool,
}

impl AgentFolder {
    /// A folder under the user's home, with no variable.
    pub const fn home(rank: u8, home: &'static str, pattern: &'static str, file: bool) -> AgentFolder {
        AgentFolder { rank, env: &[], home, env_is_home: false, pattern, file }
    }
}

/// A format whose one file (or tree) holds many sessions (OpenCode's
/// database and its legacy `storage/` tree).
#[derive(Clone, Copy)]
pub struct Store {
    /// The sessions of one store, each checked as its own input
    /// ([`SourceRef::session`]); an error or none: the file is one input.
    pub sessions: fn(&SourceRef) -> Result<Vec<Box<str>>>,
    /// Whether a file found walking a folder belongs to a store tree (read
    /// with its session file, never as an input of its own).
    pub is_member: fn(&std::path::Path) -> bool,
}

/// What one input of a format is (docs/spec.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A session transcript (a tree of entries).
    Transcript,
    /// One request body per file; a directory of them is one stream.
    Body,
    /// One history snapshot per file (a stored run read as one request-like
    /// element); `joins`: files side by side are one stream (`false` for
    /// OpenAI Agents SDK sessions, one file per session appended in place).
    Snapshot {
        /// Whether files of the format in one directory form one stream.
        joins: bool,
    },
    /// A file (or store) holding a stream of recorded requests.
    Stream,
}

/// How a format's files are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// JSON lines, one record per line.
    Jsonl,
    /// One JSON document.
    Json,
    /// YAML (VCR cassettes).
    Yaml,
    /// Plain text blocks (Aider's LLM history).
    Text,
    /// An SQLite database (or a tree of JSON files standing for one).
    Database,
}

/// A test of one JSON value (a record, a document, a body).
pub type ValueTest = fn(&Value) -> bool;

/// A test of an input's first bytes.
pub type HeadTest = fn(&[u8]) -> bool;

/// An SQLite database's tables, each `(name, columns)` ([`super::sqlite::tables`]).
pub type Tables = [(String, Vec<String>)];

/// One detection test and its rank among the formats tested at the same step
/// (lower first; ranks are unique per step, a registry test checks it).
#[derive(Clone, Copy)]
pub struct Sniffer {
    /// Order among the formats with a test at this step.
    pub rank: u8,
    /// Whether a JSON value is one of this format's.
    pub test: fn(&Value) -> bool,
}

/// A detection test on the input's first bytes (text formats).
#[derive(Clone, Copy)]
pub struct TextSniffer {
    /// Order among the text tests.
    pub rank: u8,
    /// What the head (BOM and leading blanks removed) says, if anything.
    pub test: fn(&[u8]) -> Option<Detection>,
}

/// A detection test on an SQLite database's tables (`(table, columns)`).
#[derive(Clone, Copy)]
pub struct TableSniffer {
    /// Order among the database tests.
    pub rank: u8,
    /// Whether the tables are one of this format's stores.
    pub test: fn(&Tables) -> bool,
}

/// How detection recognises a format, step by step (docs/spec.md §1
/// "recognised by"; the steps are [`super::detect_input`]'s).
#[derive(Clone, Copy)]
pub struct Detect {
    /// A JSONL record that decides its file's format.
    pub record: Option<Sniffer>,
    /// Records only this format may claim: when this says yes, no other
    /// format's record test is tried (OpenClaw trajectory events carry
    /// `type` and `sessionId` as Claude Code's records do).
    pub owns_record: Option<fn(&Value) -> bool>,
    /// A record only this format writes but which alone does not decide
    /// (the format, unless a later record decides otherwise).
    pub weak_record: Option<Sniffer>,
    /// A whole JSON document of a transcript, archive or trace format.
    pub document: Option<Sniffer>,
    /// A JSON document this format's writer makes that ctxlint does not
    /// read, and why (skipped like an unknown file, with the reason).
    pub unsupported_document: Option<(ValueTest, &'static str)>,
    /// A request body or history snapshot (tried after every document test).
    pub body: Option<Sniffer>,
    /// Pretty-printed JSON records one after another (not one document).
    pub concatenated: Option<fn(&[u8]) -> bool>,
    /// A text (not JSON) head.
    pub text: Option<TextSniffer>,
    /// An SQLite database's tables.
    pub database: Option<TableSniffer>,
}

impl Detect {
    /// No test at any step (start a format's `Detect` from this).
    pub const NONE: Detect = Detect {
        record: None,
        owns_record: None,
        weak_record: None,
        document: None,
        unsupported_document: None,
        body: None,
        concatenated: None,
        text: None,
        database: None,
    };
}

/// How `--input-format` checks that an input fits the forced format
/// (docs/spec.md §1: otherwise an error naming what is missing, never a clean
/// pass). An SQLite input fits only a format whose [`Detect::database`] test
/// its tables pass, whatever the variant.
#[derive(Clone, Copy)]
pub enum Fit {
    /// JSONL: at least one record (a line that parses) passes `test`; else
    /// `missing`. `document`: the input also fits when it is one JSON
    /// document passing this (Gemini CLI's legacy chat).
    Records {
        /// The record test.
        test: fn(&Value) -> bool,
        /// What is missing when no record passes.
        missing: &'static str,
        /// A whole-document alternative.
        document: Option<fn(&Value) -> bool>,
    },
    /// One JSON document: `test` gives what is missing, or `None` when it
    /// fits. `noun` names what a document that does not parse is not ("no
    /// request body").
    Document {
        /// The document test.
        test: fn(&Value) -> Option<&'static str>,
        /// What an unparsable document lacks.
        noun: &'static str,
    },
    /// The format's own test of the input: `Ok(None)` fits, `Ok(Some(what
    /// is missing))` does not.
    Own(fn(&SourceRef) -> Result<Option<&'static str>>),
}

/// Parses one request body (or snapshot) of the format: `(document, path,
/// index in its stream, JSON Pointer of the body in its file)`.
pub type ParseBody = fn(&Value, &Arc<str>, usize, &str) -> Request;

/// How an input of the format is read.
#[derive(Clone, Copy)]
pub enum Read {
    /// The loader reads the file itself.
    File(fn(&SourceRef, &LoadOptions) -> Result<Input>),
    /// One JSON document parsed by `parse` into a one-request stream;
    /// `database`: the loader of the format's SQLite store, when it has one.
    Body {
        /// The body parser.
        parse: ParseBody,
        /// The store's loader.
        database: Option<fn(&SourceRef) -> Result<Input>>,
        /// The body's message list, when a file of the format can be read
        /// one list element at a time ([`Elements`]).
        elements: Option<Elements>,
    },
}

/// A body format's message list, read one element at a time from a
/// request-body file (`super::load::load_body_file`): only one element is
/// ever a parsed `Value`, not the whole document (a 100 MB body took four
/// times its size as one `Value`).
///
/// The format's [`ParseBody`] must read the list at `key` last and only by
/// calling `parse` on each element with its pointer
/// (`{base}/{key}/{index}`), pushing each message in order onto
/// [`Request::messages`], and must read nothing else of the list: the loader
/// then gives it the document with an empty list at `key` and pushes the
/// elements' messages itself, which is the same request.
#[derive(Clone, Copy)]
pub struct Elements {
    /// The top-level key of the list (`messages`, `input`).
    pub key: &'static str,
    /// Parses one element at its JSON Pointer.
    pub parse: fn(&Value, String) -> Message,
}

/// Finds a JSON Pointer's bytes `(start, end)` in one record.
pub type SpanFn = fn(&mut Locator<'_>, &str) -> Option<(usize, usize)>;

/// Places the findings of one file of an input: `(file, all findings,
/// indices of those in this file, indices of those elsewhere with a related
/// location here)`; sets lines, columns and byte offsets it can find.
pub type PlaceFn = fn(&SourceRef, &mut [Finding], &[usize], &[usize]);

/// How a finding's place in the file is found from its line and JSON
/// Pointer (`check`'s last step before rendering).
#[derive(Clone, Copy)]
pub enum Locate {
    /// JSONL: the pointer is found in the finding's line (column, byte
    /// offset, end). `span`: the format's own search (default: the pointer
    /// as is); `document`: an input of the format that is one JSON document
    /// instead, placed as [`Locate::Document`] is.
    Lines {
        /// The format's own search of a record.
        span: Option<SpanFn>,
        /// Whether an input is a document rather than JSON lines.
        document: Option<fn(&Input) -> bool>,
    },
    /// One JSON document: line, column and offset of the pointer, after
    /// `pointer` maps it to where its text is (a HAR body embedded as a string).
    Document {
        /// The format's pointer mapping.
        pointer: Option<fn(&str) -> &str>,
    },
    /// The format places findings itself (text blocks, YAML).
    Own(PlaceFn),
    /// No lines (a database): findings name rows of the transcript instead.
    Rows(fn(&Transcript, &mut [Finding])),
}

/// How `repro` writes a case of the format.
#[derive(Clone, Copy)]
pub struct Repro {
    /// The case's file name (one file), e.g. `session.jsonl`.
    pub name: &'static str,
    /// The name of file `i` (0-based) of several, when they are numbered
    /// (a stream of bodies); `None`: always [`Repro::name`].
    pub numbered: Option<fn(usize) -> String>,
    /// The keys of an entry's id and its parent's id, for formats whose
    /// entries form a tree (`repro` keeps the chain when it cuts).
    pub threading: Option<(&'static str, &'static str)>,
    /// For a text format, how its cases are cut and anonymised.
    pub text: Option<TextCase>,
    /// For a format that is not JSON but reads as a tree (YAML), the file as
    /// a JSON value read as the loader reads it, for `repro` to cut and
    /// anonymise (`None` when unreadable); `None` for JSON and text formats.
    pub value: Option<ValueOf>,
}

/// A file's bytes as a JSON value, `None` when unreadable ([`Repro::value`]).
pub type ValueOf = fn(&[u8]) -> Option<serde_json::Value>;

/// How `repro` handles a text format's files (Aider's LLM history).
#[derive(Clone, Copy)]
pub struct TextCase {
    /// The line opening each block (a request): a slice keeps whole blocks,
    /// since a window of lines would cut their headers off.
    pub block_header: &'static str,
    /// The opening of a free text that the format reads meaning from
    /// (Aider's own context messages), kept by the anonymiser so that a
    /// reduced case is read alike.
    pub kept_opening: fn(&str) -> Option<&'static str>,
}

/// What `ctxlint formats` says about a format.
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// What it is.
    pub what: &'static str,
    /// Whether files are transcripts, request bodies or streams of requests.
    pub kind: &'static str,
    /// Where the agent or tool keeps its files.
    pub location: &'static str,
}

impl Format {
    /// The descriptor of a request-body format: one JSON document per file
    /// (a directory of them is one stream), recognised at body rank `rank` by
    /// `sniff`, fitting a forced `--input-format` when `missing` finds nothing
    /// missing, parsed by `parse`, placed as a document, written by `repro` as
    /// `request.json` (`req1.json`, … for several).
    pub const fn request_body(
        id: FormatId,
        rank: u8,
        sniff: ValueTest,
        missing: fn(&Value) -> Option<&'static str>,
        parse: ParseBody,
        about: About,
    ) -> Format {
        Format {
            id,
            shape: Shape::Body,
            encoding: Encoding::Json,
            detect: Detect { body: Some(Sniffer { rank, test: sniff }), ..Detect::NONE },
            fit: Fit::Document { test: missing, noun: "no request body" },
            read: Read::Body { parse, database: None, elements: None },
            locate: Locate::Document { pointer: None },
            record: None,
            repro: BODY_REPRO,
            store: None,
            agent_folders: &[],
            about,
        }
    }

    /// The same descriptor, its files' message list read one element at a
    /// time ([`Elements`]).
    pub const fn with_elements(mut self, key: &'static str, parse: fn(&Value, String) -> Message) -> Format {
        if let Read::Body { parse: p, database, .. } = self.read {
            self.read = Read::Body { parse: p, database, elements: Some(Elements { key, parse }) };
        }
        self
    }

    /// The same descriptor, skipping a JSON document `test` recognises as
    /// this format's writer's but not read, with the reason `why`
    /// ([`Detect::unsupported_document`]).
    pub const fn with_unsupported_document(mut self, test: ValueTest, why: &'static str) -> Format {
        self.detect.unsupported_document = Some((test, why));
        self
    }

    /// Whether inputs are transcripts.
    pub fn is_transcript(&self) -> bool {
        self.shape == Shape::Transcript
    }

    /// Whether files are single request bodies or snapshots.
    pub fn is_body(&self) -> bool {
        matches!(self.shape, Shape::Body | Shape::Snapshot { .. })
    }

    /// Whether files are history snapshots.
    pub fn is_snapshot(&self) -> bool {
        matches!(self.shape, Shape::Snapshot { .. })
    }

    /// Whether files of the format in one directory form one stream.
    pub fn joins_stream(&self) -> bool {
        matches!(self.shape, Shape::Body | Shape::Snapshot { joins: true })
    }

    /// `repro`'s name for file `index` of `of`.
    pub fn case_file_name(&self, index: usize, of: usize) -> String {
        match self.repro.numbered {
            Some(n) if of > 1 => n(index),
            _ => self.repro.name.to_string(),
        }
    }
}

/// `repro`'s numbered names of request bodies: `req1.json`, `req2.json`, ….
pub fn numbered_requests(i: usize) -> String {
    format!("req{}.json", i + 1)
}

/// The [`Repro`] of a request-body format.
pub const BODY_REPRO: Repro =
    Repro { name: "request.json", numbered: Some(numbered_requests), threading: None, text: None, value: None };
