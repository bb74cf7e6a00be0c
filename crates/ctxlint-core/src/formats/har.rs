//! `har`: HTTP Archive files of provider API traffic — browser devtools
//! exports, mitmproxy's `hardump` (`mitmproxy/addons/savehar.py`), Charles.
//!
//! Shape (HAR 1.2, Jan Odvarko's spec, the W3C *HTTP Archive (HAR) format*
//! draft): one JSON document `{"log": {"version", "creator": {name, version},
//! "browser"?, "pages"?: […], "entries": [entry…]}}`; an entry is
//! `{"pageref"?, "startedDateTime": ISO 8601, "time": ms, "request": {method,
//! url, httpVersion, cookies, headers: [{name, value}], queryString,
//! "postData"?: {mimeType, params, text}, headersSize, bodySize}, "response":
//! {status, statusText, headers, "content": {size, mimeType, "text"?,
//! "encoding"?}, …}, "cache", "timings", …}`. Browsers add `_`-prefixed
//! fields (`_initiator`, `_resourceType`, `_priority`), which are ignored.
//!
//! One archive is one stream (docs/spec.md §1). Every entry whose request is a model
//! call becomes a request: a `POST` whose `postData.text` is a JSON body of a
//! request format (OpenAI Chat or Responses, Anthropic Messages, Gemini,
//! Bedrock Converse), loaded by that format's parser. The body format follows
//! the URL path when the path is a known provider endpoint
//! ([`endpoint_format`]: `/chat/completions`, `/responses`, `/messages`,
//! `:generateContent`, Bedrock `/model/{id}/converse` and `/invoke`) and the
//! body has that format's fields, else the body's shape (hosts are never
//! required: proxies, Azure, OpenRouter and local servers serve the same
//! paths). Other entries (pages, scripts, analytics, token counting, model
//! listing) are skipped and counted in [`Input::skipped`]. A known provider
//! endpoint whose request body cannot be read (no `postData.text`, not JSON,
//! undecodable base64) is skipped, counted and listed in [`Input::unread`].
//!
//! `postData.text` is a JSON *string* holding the body (a JSON text inside
//! the archive's JSON). The HAR 1.2 `postData` has no `encoding` field, but
//! `content` has one and some writers put `"encoding": "base64"` on
//! `postData` too: such text is base64-decoded (then gunzipped when it
//! starts with the gzip magic); a text that is not JSON but decodes as
//! base64 to JSON is read the same way.
//!
//! Locations: the request index is the entry's 0-based position in
//! `log.entries` (counting skipped entries, as for cassettes). Pointers go
//! into the whole document and continue into the embedded body after the
//! text: `/log/entries/3/request/postData/text/messages/1`. Such a pointer
//! cannot be resolved in the archive's bytes (it goes into a string), so the
//! line, column and byte offset of a finding are those of the
//! `postData.text` string ([`located_pointer`]), as vcr-cassette gives the
//! line of `body.string`.
//!
//! Order: requests are ordered by `startedDateTime` (stable for ties; file
//! order when any entry's time does not parse). The endpoint is the URL's
//! path. The response id (`response.content.text` as JSON `id` /
//! `responseId`, or the first `data:` event of a streamed body carrying one;
//! base64 when `content.encoding` is `base64`) chains `previous_response_id`.
//! A request header `X-Claude-Code-Session-Id` or `session_id` names the
//! client session, as in an exchange log.

use super::LoadOptions;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer};
use crate::error::{Error, Result};
use crate::model::*;
use crate::source::{LineIndex, SourceRef};
use serde_json::Value;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("har");

/// The pointer suffix, after `/log/entries/N`, of a request's body text.
const TEXT: &str = "/request/postData/text";

/// Whether a JSON document is an HTTP Archive: a top-level `log` object with
/// an `entries` array and a `version` string or `creator` object (both are
/// required by HAR 1.2; one of them is enough here).
pub fn sniff(v: &Value) -> bool {
    let Some(log) = v.get("log").and_then(Value::as_object) else { return false };
    log.get("entries").is_some_and(Value::is_array)
        && (log.get("version").is_some_and(Value::is_string) || log.get("creator").is_some_and(Value::is_object))
}

/// Whether a document has a `log.entries` array, for a forced
/// `--input-format har` (what [`load`] needs); the error names what is missing.
pub fn fit(v: &Value) -> std::result::Result<(), &'static str> {
    match v.get("log") {
        Some(Value::Object(log)) if log.get("entries").is_some_and(Value::is_array) => Ok(()),
        Some(Value::Object(_)) => Err("`log` has no `entries` array (an HTTP Archive's list of requests)"),
        _ => Err("no top-level `log` object with `entries` (an HTTP Archive 1.2 document)"),
    }
}

/// The part of a finding's pointer that names a value in the archive's own
/// bytes: a pointer into an embedded body
/// (`/log/entries/3/request/postData/text/messages/1`) is cut after the body
/// text (`/log/entries/3/request/postData/text`); any other pointer is
/// returned as it is.
pub fn located_pointer(pointer: &str) -> &str {
    let Some(rest) = pointer.strip_prefix("/log/entries/") else { return pointer };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return pointer;
    }
    let after = &rest[digits..];
    if after.starts_with(TEXT) && (after.len() == TEXT.len() || after.as_bytes()[TEXT.len()] == b'/') {
        return &pointer[..pointer.len() - after.len() + TEXT.len()];
    }
    pointer
}

/// The body format a known provider endpoint serves, from the URL path
/// (lower-cased; any host, any prefix such as Azure's `/openai/deployments/…`
/// or OpenRouter's `/api/v1`): `…/chat/completions` OpenAI Chat (and Cohere's
/// `…/v2/chat`, a Chat-shaped body), `…/responses`
/// OpenAI Responses, `…/messages` Anthropic Messages, `…:generateContent` /
/// `…:streamGenerateContent` Gemini, Bedrock `…/model/{id}/converse` (and
/// `converse-stream`) Converse, `…/model/{id}/invoke` (and
/// `invoke-with-response-stream`) Anthropic Messages (Claude on Bedrock
/// takes a Messages body). `None` for any other path.
pub fn endpoint_format(path: &str) -> Option<FormatId> {
    let p = path.to_ascii_lowercase();
    let p = p.trim_end_matches('/');
    let bedrock = |verbs: &[&str]| {
        verbs.iter().any(|v| p.ends_with(&format!("/{v}"))) && p.rsplit('/').nth(2).is_some_and(|m| m == "model")
    };
    Some(if p.ends_with("/chat/completions") || p.ends_with("/v2/chat") {
        super::openai_chat::ID
    } else if p.ends_with("/responses") {
        super::openai_responses::ID
    } else if p.ends_with("/messages") {
        super::anthropic::ID
    } else if p.ends_with(":generatecontent")
        || p.ends_with(":streamgeneratecontent")
        || p.ends_with("%3ageneratecontent")
        || p.ends_with("%3astreamgeneratecontent")
    {
        super::gemini::ID
    } else if bedrock(&["converse", "converse-stream"]) {
        super::bedrock::ID
    } else if bedrock(&["invoke", "invoke-with-response-stream"]) {
        super::anthropic::ID
    } else {
        return None;
    })
}

/// The body format of a request sent to `endpoint` (a URL path: a
/// cassette's or an exchange log's, or `""` when not recorded): the
/// endpoint's ([`endpoint_format`]) when the body fits it, else the body's
/// own ([`super::sniff_body`], never a pydantic-ai history). A body alone can
/// be ambiguous — a Mistral or Cohere request whose messages are typed text
/// blocks reads like an Anthropic one — and the path it was sent to is not.
///
/// The endpoint's format is taken only when its own body test accepts the
/// body too (a reduced or hand-made body that merely has `messages` keeps
/// the format its content gives, wherever it was sent).
pub fn body_format(endpoint: &str, v: &Value) -> Option<FormatId> {
    let accepts = |f: &FormatId| {
        body_fits(*f, v) && super::descriptor(*f).and_then(|d| d.detect.body).is_none_or(|s| (s.test)(v))
    };
    endpoint_format(endpoint).filter(accepts).or_else(|| super::sniff_body(v).filter(|f| *f != super::pydantic_ai::ID))
}

/// Whether `v` has the fields a body of `format` needs (so that a path's
/// format is used only for a body that is one).
fn body_fits(format: FormatId, v: &Value) -> bool {
    match format {
        super::openai_chat::ID | super::anthropic::ID | super::bedrock::ID => {
            v.get("messages").is_some_and(Value::is_array)
        }
        super::gemini::ID => super::gemini::sniff(v),
        super::openai_responses::ID => super::openai_responses::sniff(v),
        _ => false,
    }
}

/// What was read of one entry's request body.
enum BodyText {
    /// The parsed JSON body.
    Json(Value),
    /// No `postData.text` (or an empty one).
    Missing,
    /// Text that is not a JSON body, and why.
    Unreadable(String),
}

/// Reads `postData` (`text`, optional `encoding: "base64"`).
fn body_text(post: Option<&Value>) -> BodyText {
    let Some(text) = post.and_then(|p| p.get("text")).and_then(Value::as_str).filter(|t| !t.trim().is_empty()) else {
        return BodyText::Missing;
    };
    let looks_json = |b: &[u8]| matches!(b.iter().find(|c| !c.is_ascii_whitespace()), Some(b'{' | b'['));
    let base64 =
        post.and_then(|p| p.get("encoding")).and_then(Value::as_str).is_some_and(|e| e.eq_ignore_ascii_case("base64"));
    if !base64 {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => return BodyText::Json(v),
            Err(e) if looks_json(text.as_bytes()) => {
                return BodyText::Unreadable(format!("its request body is not valid JSON ({e})"));
            }
            Err(_) => {}
        }
    }
    let what = match super::vcr_cassette::decode_binary(text) {
        Some(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => return BodyText::Json(v),
            Err(e) if looks_json(&bytes) => format!("its base64-encoded request body is not valid JSON ({e})"),
            Err(_) => "its base64-encoded request body is not JSON".into(),
        },
        None if base64 => "its request body is marked base64 but is not valid base64".into(),
        None => "its request body is not JSON".into(),
    };
    BodyText::Unreadable(what)
}

/// What a recorded response says of its call ([`super::usage::Response`]:
/// its id, usage and model), read once from `response.content.text`
/// (base64 when `content.encoding` is `base64`): one JSON document, or the
/// `data:` events of a streamed body.
fn response_facts(resp: Option<&Value>) -> super::usage::Response {
    let Some(content) = resp.and_then(|r| r.get("content")) else { return Default::default() };
    let Some(text) = content.get("text").and_then(Value::as_str) else { return Default::default() };
    let base64 = content.get("encoding").and_then(Value::as_str).is_some_and(|e| e.eq_ignore_ascii_case("base64"));
    if !base64 {
        return super::usage::Response::of_text(text);
    }
    match super::vcr_cassette::decode_binary(text) {
        Some(b) => super::usage::Response::of_text(&String::from_utf8_lossy(&b)),
        None => Default::default(),
    }
}

/// The client session id among HAR request headers (`[{name, value}]`,
/// names case-insensitive): [`super::exchange_log::SESSION_HEADERS`].
fn session_header(headers: Option<&Value>) -> Option<&str> {
    let hs = headers?.as_array()?;
    super::exchange_log::SESSION_HEADERS.iter().find_map(|want| {
        hs.iter()
            .filter(|h| h.get("name").and_then(Value::as_str).is_some_and(|n| n.eq_ignore_ascii_case(want)))
            .filter_map(|h| h.get("value").and_then(Value::as_str))
            .map(str::trim)
            .find(|s| !s.is_empty())
    })
}

/// Milliseconds since the epoch of a `startedDateTime` (ISO 8601 with an
/// offset, as HAR 1.2 requires), or `None`.
fn started_ms(v: &Value) -> Option<i64> {
    let s = v.get("startedDateTime")?.as_str()?;
    chrono::DateTime::parse_from_rfc3339(s.trim()).ok().map(|t| t.timestamp_millis())
}

/// An archive with its `log`, then the log's `entries`, as raw JSON texts
/// (borrowed from the file's bytes); the entries are read as a list of raw
/// texts only when they are an array.
#[derive(serde::Deserialize)]
struct Shallow<'a> {
    #[serde(borrow, default)]
    log: Option<&'a serde_json::value::RawValue>,
}

/// One entry: its raw text (read when its turn comes) or, for an archive
/// read whole, its value.
enum Entry<'a> {
    Raw(&'a serde_json::value::RawValue),
    Value(&'a Value),
}

#[derive(serde::Deserialize)]
struct ShallowLog<'a> {
    #[serde(borrow, default)]
    entries: Option<&'a serde_json::value::RawValue>,
}

/// Whether a document's bytes are an HTTP Archive as [`sniff`] decides, read
/// without building the document: a top-level `log` object whose `entries`
/// is an array and whose `version` is a string or `creator` an object.
pub fn sniff_bytes(doc: &[u8]) -> bool {
    let mut loc = crate::locate::Locator::new(doc);
    let at = |p: &str, loc: &mut crate::locate::Locator<'_>| loc.locate(p).and_then(|i| doc.get(i).copied());
    at("/log/entries", &mut loc) == Some(b'[')
        && (at("/log/version", &mut loc) == Some(b'"') || at("/log/creator", &mut loc) == Some(b'{'))
}

/// What the entries read so far give: the archive's requests (with their
/// `startedDateTime` in milliseconds, to order them), the skipped entries and
/// the unread bodies.
struct Acc {
    path: Arc<str>,
    requests: Vec<(Option<i64>, Request)>,
    interner: Interner,
    skipped: usize,
    unread: Vec<Unread>,
}

impl Acc {
    fn new(path: Arc<str>) -> Self {
        Acc { path, requests: Vec::new(), interner: Interner::default(), skipped: 0, unread: Vec::new() }
    }

    /// Reads entry `i` (`e`); `text_line` gives the 1-based line of its body text.
    fn entry(&mut self, i: usize, e: &Value, text_line: &dyn Fn() -> Option<u32>) {
        let req = e.get("request");
        let method = req.and_then(|r| r.get("method")).and_then(Value::as_str).unwrap_or("").to_ascii_uppercase();
        let url = req.and_then(|r| r.get("url")).and_then(Value::as_str).unwrap_or("");
        let endpoint = super::vcr_cassette::uri_path(url);
        let known = endpoint_format(endpoint);
        if method != "POST" || super::vcr_cassette::not_a_model_call(&method, endpoint) {
            self.skipped += 1;
            return;
        }
        let base = format!("/log/entries/{i}{TEXT}");
        let v = match body_text(req.and_then(|r| r.get("postData"))) {
            BodyText::Json(v) => v,
            BodyText::Missing => {
                if known.is_some() {
                    let what = "no request body was recorded (`postData.text` is missing or empty)".to_string();
                    self.unread.push(Unread { line: text_line(), pointer: format!("/log/entries/{i}/request"), what });
                }
                self.skipped += 1;
                return;
            }
            BodyText::Unreadable(what) => {
                if known.is_some() {
                    self.unread.push(Unread { line: text_line(), pointer: base, what });
                }
                self.skipped += 1;
                return;
            }
        };
        // (The path decides whenever the body has what its format needs: a
        // HAR is a capture of the traffic itself, and a Messages body of
        // string contents reads like a Chat body. `body_format` also asks the
        // format's own body test, for recordings whose requests a test
        // suite or `repro` may have reshaped.)
        let format = known
            .filter(|f| body_fits(*f, &v))
            .or_else(|| super::sniff_body(&v).filter(|f| *f != super::pydantic_ai::ID));
        let Some(mut r) = format.and_then(|f| super::parse_body(f, &v, &self.path, i, "")) else {
            self.skipped += 1;
            return;
        };
        r.line = text_line();
        r.endpoint = Some(endpoint.into());
        if let Some(id) = session_header(req.and_then(|r| r.get("headers"))) {
            r.session_id = Some(id.into());
        }
        if super::body::response_failed(e.get("response")) {
            r.outcome = Some(Outcome::Failed);
        }
        let facts = response_facts(e.get("response"));
        r.response_id = facts.id;
        r.reply = facts.reply.known();
        r.usage = facts.usage;
        if facts.model.is_some() {
            r.model = facts.model;
        }
        let started = started_ms(e);
        r.time = started.map_or(0, |ms| (ms / 1000).clamp(0, u32::MAX as i64) as u32);
        // The body's elements hold pointers relative to it (the entry's own
        // base is `r.pointer`): a message the next entry sends again is then
        // equal to this one's and held once.
        r.pointer = base;
        r.relative = true;
        self.interner.request(&mut r);
        self.requests.push((started, r));
    }

    fn finish(mut self, src: &SourceRef) -> Input {
        if self.requests.iter().all(|(t, _)| t.is_some()) {
            self.requests.sort_by_key(|(t, _)| *t);
        }
        Input {
            path: src.display.clone(),
            format: ID,
            body: Body::Stream(Stream { requests: self.requests.into_iter().map(|(_, r)| r).collect() }),
            bad_lines: Vec::new(),
            more_bad_lines: 0,
            skipped: self.skipped,
            unknown_records: 0,
            unread: self.unread,
        }
    }
}

/// Archives at least this large (bytes) are read as they stream
/// ([`stream`]); smaller ones are read whole, which costs less to set up.
pub(super) const STREAM_FROM: u64 = 1 << 20;

/// Loads an archive as one stream. An archive of [`STREAM_FROM`] bytes or
/// more is parsed as it is read ([`stream`]), each entry read and dropped
/// in turn, so the file is never held whole; an archive that does not read
/// so (not valid JSON, a repeated `log` or `entries`, `log` not an object)
/// and a small one are read whole ([`load_whole`]), which gives the same
/// requests or the error.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let path: Arc<str> = src.display.as_str().into();
    if src.size().is_some_and(|n| (STREAM_FROM..=crate::source::MAX_DOCUMENT).contains(&n)) {
        if let Some(acc) = stream(src, Acc::new(path.clone())) {
            return Ok(acc.finish(src));
        }
    }
    load_whole(src, Acc::new(path))
}

/// Reads the archive's `log.entries` one entry at a time as the file is read
/// ([`crate::source::stream_array`]), then checks that the rest of the
/// document reads as the archive (`log` and its `entries` once each).
/// `None` when it does not read so.
fn stream(src: &SourceRef, mut acc: Acc) -> Option<Acc> {
    let mut r = src.open().ok()?;
    let outline = crate::source::stream_array(&mut r, &["log", "entries"], 256 * 1024, |i, bytes, feeds, _| {
        let Ok(e) = serde_json::from_slice::<Value>(bytes) else { return false };
        let text_line = || {
            let at = crate::locate::locate(bytes, TEXT).unwrap_or(0);
            u32::try_from(feeds + memchr::memchr_iter(b'\n', &bytes[..at]).count() as u64 + 1).ok()
        };
        acc.entry(i, &e, &text_line);
        true
    })?;
    let log = serde_json::from_slice::<Shallow>(&outline).ok()?.log?;
    let entries = serde_json::from_str::<ShallowLog>(log.get()).ok()?.entries?;
    (entries.get() == "[]").then_some(acc)
}

/// Loads an archive held whole (what [`stream`] does not read): each entry
/// left as its raw text, else the whole document as one value.
fn load_whole(src: &SourceRef, mut acc: Acc) -> Result<Input> {
    let bytes = src.read_all()?;
    let bad = |reason: String| Error::BadInput { path: src.display.clone().into(), format: ID.to_string(), reason };
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    // (Anything that does not read so — a duplicate key, `log` not an
    // object — is read whole and gives the same answer.)
    let shallow = serde_json::from_slice::<Shallow>(body)
        .ok()
        .and_then(|d| d.log)
        .and_then(|l| serde_json::from_str::<ShallowLog>(l.get()).ok())
        .and_then(|l| l.entries)
        .and_then(|e| serde_json::from_str::<Vec<&serde_json::value::RawValue>>(e.get()).ok());
    let whole: Value;
    let entries: Vec<Entry<'_>> = match shallow {
        Some(raw) => raw.into_iter().map(Entry::Raw).collect(),
        None => {
            whole = serde_json::from_slice(body).map_err(|e| bad(format!("not valid JSON: {e}")))?;
            match whole.get("log").and_then(|l| l.get("entries")) {
                Some(Value::Array(a)) => a.iter().map(Entry::Value).collect(),
                _ => return Err(bad(fit(&whole).err().unwrap_or("no `log.entries` array").to_string())),
            }
        }
    };
    // Where each entry starts (one pass), to give each request the line of its body text.
    let starts = crate::locate::array_elements(body, "/log/entries").unwrap_or_default();
    let offset = usize::from(body.len() != bytes.len()) * 3;
    let index = LineIndex::new(&bytes);
    for (i, entry) in entries.iter().enumerate() {
        let parsed: Value;
        let e = match entry {
            Entry::Value(v) => *v,
            Entry::Raw(r) => {
                parsed = serde_json::from_str(r.get()).map_err(|e| bad(format!("not valid JSON: {e}")))?;
                &parsed
            }
        };
        let text_line = || -> Option<u32> {
            let s = *starts.get(i)?;
            let at = crate::locate::locate(&body[s..], TEXT).map(|k| s + k).unwrap_or(s);
            Some(index.line(at + offset))
        };
        acc.entry(i, e, &text_line);
    }
    Ok(acc.finish(src))
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Json,
    detect: Detect { document: Some(Sniffer { rank: 0, test: sniff }), ..Detect::NONE },
    fit: Fit::Document { test: |v| fit(v).err(), noun: "no HTTP Archive" },
    read: Read::File(load),
    locate: Locate::Document { pointer: Some(located_pointer) },
    record: None,
    repro: Repro { name: "archive.har", numbered: None, threading: None, text: None, value: None },
    store: None,
    agent_folders: &[],
    about: About {
        what: "HTTP Archive 1.2 of provider API traffic (browser devtools, mitmproxy hardump, Charles exports)",
        kind: "stream of requests",
        location: "wherever it was exported (*.har)",
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn memory(text: &str) -> SourceRef {
        let origin = crate::source::Origin::Memory(text.as_bytes().to_vec().into());
        SourceRef { display: "a.har".into(), origin, seen: None, session: None }
    }

    #[test]
    fn an_archive_read_as_it_streams_is_the_archive_read_whole() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/formats/har");
        let mut docs: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "har"))
            .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
            .collect();
        docs.sort();
        assert!(docs.len() >= 8);
        let variants: Vec<(String, String)> = docs
            .iter()
            .flat_map(|(n, d)| {
                [
                    (n.clone(), d.clone()),
                    (format!("{n} (BOM, CRLF)"), format!("\u{FEFF}{}", d.replace('\n', "\r\n"))),
                    (format!("{n} (one line)"), serde_json::from_str::<Value>(d).unwrap().to_string()),
                ]
            })
            .collect();
        for (name, doc) in &variants {
            let src = memory(doc);
            let streamed = stream(&src, Acc::new("a.har".into())).expect(name).finish(&src);
            let whole = load_whole(&src, Acc::new("a.har".into())).unwrap();
            assert!(streamed.request_count() > 0 || name.contains("browser"), "{name}");
            assert_eq!(format!("{streamed:?}"), format!("{whole:?}"), "{name}");
        }
        // What does not read so is left to the whole reading.
        for not in [
            r#"{"log": {"entries": []}, "log": {"entries": []}}"#,
            r#"{"log": {"entries": [], "entries": []}}"#,
            r#"{"log": {"entries": [{}]}} x"#,
            r#"{"log": {"entries": [{"a": tru}]}}"#,
        ] {
            let src = memory(not);
            assert!(stream(&src, Acc::new("a.har".into())).is_none(), "{not}");
        }
    }

    fn load_json(v: &Value) -> Input {
        super::super::load_str_for_test(load, "a.har", &serde_json::to_string_pretty(v).unwrap())
    }

    fn entry(t: &str, method: &str, url: &str, post: Option<Value>, resp: Option<&str>) -> Value {
        let mut req = json!({"method": method, "url": url, "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "queryString": [], "headersSize": -1, "bodySize": 0});
        if let Some(p) = post {
            req["postData"] = p;
        }
        json!({"startedDateTime": t, "time": 1, "request": req,
               "response": {"status": 200, "content": {"size": 0, "mimeType": "application/json", "text": resp.unwrap_or("")}},
               "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
    }

    fn har(entries: Vec<Value>) -> Value {
        json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
    }

    fn text(body: &Value) -> Value {
        json!({"mimeType": "application/json", "text": body.to_string()})
    }

    #[test]
    fn an_archive_is_recognised_from_its_bytes_and_read_entry_by_entry_or_whole() {
        let chat = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]});
        let e = entry(
            "2025-01-01T00:00:00.000Z",
            "POST",
            "https://api.openai.com/v1/chat/completions",
            Some(text(&chat)),
            None,
        );
        let doc = har(vec![e.clone()]);
        assert!(sniff_bytes(doc.to_string().as_bytes()));
        assert!(sniff_bytes(serde_json::to_string_pretty(&doc).unwrap().as_bytes()));
        // What `sniff` asks of the value, asked of the bytes.
        for not in [
            json!({"log": {"entries": []}}),
            json!({"log": {"version": 1, "entries": []}}),
            json!({"log": {"version": "1.2", "entries": {}}}),
            json!({"entries": [], "version": "1.2"}),
            json!([{"log": {"version": "1.2", "entries": []}}]),
        ] {
            assert!(!sniff_bytes(not.to_string().as_bytes()), "{not}");
            assert!(!sniff(&not), "{not}");
        }
        // A duplicate `log` (the last one counts, as a value reads it) is
        // read whole: the same one request as the shallow reading gives.
        let one = load_json(&doc);
        let dup = format!(r#"{{"log": {{"entries": 5}}, "log": {}}}"#, doc["log"]);
        let twice = super::super::load_str_for_test(load, "a.har", &dup);
        assert_eq!(one.request_count(), 1);
        assert_eq!(twice.request_count(), 1);
    }

    #[test]
    fn provider_entries_become_requests_in_time_order_others_are_counted() {
        let chat = json!({"model": "gpt-4o", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]});
        let resp =
            json!({"model": "gpt-4.1", "input": [{"role": "user", "content": "hi"}], "previous_response_id": "resp_0"});
        let v = har(vec![
            entry(
                "2025-01-01T00:00:02.500Z",
                "POST",
                "http://127.0.0.1:8080/v1/chat/completions",
                Some(text(&chat)),
                Some(r#"{"id":"chatcmpl-1"}"#),
            ),
            entry("2025-01-01T00:00:00.000Z", "GET", "https://example.com/index.html", None, None),
            entry(
                "2025-01-01T00:00:02.100Z",
                "POST",
                "https://proxy.local/openai/v1/responses?api-version=1",
                Some(text(&resp)),
                Some("event: response.created\ndata: {\"response\":{\"id\":\"resp_1\"}}\n"),
            ),
            entry(
                "2025-01-01T00:00:03.000Z",
                "POST",
                "https://x/collect",
                Some(json!({"mimeType": "application/json", "text": "{\"ev\": 1}"})),
                None,
            ),
        ]);
        let inp = load_json(&v);
        assert_eq!(inp.skipped, 2);
        let Body::Stream(s) = &inp.body else { panic!() };
        let got: Vec<_> = s
            .requests
            .iter()
            .map(|r| {
                (r.index, r.body_format.as_str(), r.endpoint.as_deref(), r.response_id.as_deref(), r.pointer.as_str())
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    2,
                    "openai-responses",
                    Some("/openai/v1/responses"),
                    Some("resp_1"),
                    "/log/entries/2/request/postData/text"
                ),
                (
                    0,
                    "openai-chat",
                    Some("/v1/chat/completions"),
                    Some("chatcmpl-1"),
                    "/log/entries/0/request/postData/text"
                ),
            ]
        );
        // Held relative to the entry's body, given in the file by `at`.
        assert_eq!(s.requests[1].messages[1].pointer, "/messages/1");
        assert_eq!(
            s.requests[1].at(&s.requests[1].messages[1].pointer),
            "/log/entries/0/request/postData/text/messages/1"
        );
        // Pretty-printed: the line of each entry's `"text": …`.
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        let line_of = |needle: &str| pretty.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1;
        assert_eq!(s.requests[1].line, Some(line_of("\"text\": \"{\\\"model\\\":\\\"gpt-4o\\\"")));
        assert_eq!(s.requests[0].line, Some(line_of("\"text\": \"{\\\"model\\\":\\\"gpt-4.1\\\"")));
    }

    #[test]
    fn history_an_entry_sends_again_is_held_once_at_each_entrys_pointers() {
        let first = json!({"model": "gpt-4o", "messages": [
            {"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"}]});
        let second = json!({"model": "gpt-4o", "messages": [
            {"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"}, {"role": "user", "content": "bye"}]});
        let url = "https://api.openai.com/v1/chat/completions";
        let v = har(vec![
            entry("2025-01-01T00:00:00Z", "POST", url, Some(text(&first)), None),
            entry("2025-01-01T00:00:01Z", "POST", url, Some(text(&second)), None),
        ]);
        let inp = load_json(&v);
        let Body::Stream(s) = &inp.body else { panic!() };
        let (a, b) = (&s.requests[0], &s.requests[1]);
        assert!(a.relative && b.relative);
        assert!(Arc::ptr_eq(&a.messages[0], &b.messages[0]));
        assert!(Arc::ptr_eq(&a.messages[1], &b.messages[1]));
        assert_eq!(a.at(&a.messages[1].pointer), "/log/entries/0/request/postData/text/messages/1");
        assert_eq!(b.at(&b.messages[1].pointer), "/log/entries/1/request/postData/text/messages/1");
        assert_eq!(b.rel(&b.messages[3].blocks[0].pointer), "/messages/3");
        assert_eq!(b.at(&b.messages[3].blocks[0].pointer), "/log/entries/1/request/postData/text/messages/3");
    }

    #[test]
    fn the_path_decides_the_body_format_when_the_body_fits() {
        // A Messages body with string contents and no `system` looks like a Chat body.
        let b = json!({"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]});
        let v = har(vec![
            entry("2025-01-01T00:00:00Z", "POST", "https://gw/anthropic/v1/messages", Some(text(&b)), None),
            entry("2025-01-01T00:00:01Z", "POST", "https://gw/llm", Some(text(&b)), None),
            entry(
                "2025-01-01T00:00:02Z",
                "POST",
                "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-v2/invoke",
                Some(text(&b)),
                None,
            ),
            // Path says Gemini, body says Chat: the body wins.
            entry(
                "2025-01-01T00:00:03Z",
                "POST",
                "https://g/v1beta/models/gemini-2.5-pro:generateContent",
                Some(text(&b)),
                None,
            ),
        ]);
        let inp = load_json(&v);
        let Body::Stream(s) = &inp.body else { panic!() };
        let f: Vec<_> = s.requests.iter().map(|r| r.body_format.as_str()).collect();
        assert_eq!(f, vec!["anthropic-messages", "openai-chat", "anthropic-messages", "openai-chat"]);
    }

    #[test]
    fn base64_bodies_and_responses_are_decoded() {
        // base64 of {"model":"m","messages":[{"role":"user","content":"hi"}]} and of {"id":"msg_9"}.
        let body = "eyJtb2RlbCI6Im0iLCJtZXNzYWdlcyI6W3sicm9sZSI6InVzZXIiLCJjb250ZW50IjoiaGkifV19";
        let mut e = entry(
            "2025-01-01T00:00:00Z",
            "POST",
            "https://api.anthropic.com/v1/messages",
            Some(json!({"mimeType": "application/json", "text": body, "encoding": "base64"})),
            Some("eyJpZCI6Im1zZ185In0="),
        );
        e["response"]["content"]["encoding"] = json!("base64");
        let inp = load_json(&har(vec![e]));
        let Body::Stream(s) = &inp.body else { panic!() };
        assert_eq!(s.requests.len(), 1);
        assert_eq!(s.requests[0].response_id.as_deref(), Some("msg_9"));
        assert_eq!(&*s.requests[0].messages[0].blocks[0].text, "hi");
    }

    #[test]
    fn unreadable_provider_bodies_are_listed_and_others_are_not() {
        let p = |t: &str| Some(json!({"mimeType": "application/json", "text": t}));
        let v = har(vec![
            entry(
                "2025-01-01T00:00:00Z",
                "POST",
                "https://api.openai.com/v1/chat/completions",
                p("{\"messages\": [cut"),
                None,
            ),
            entry(
                "2025-01-01T00:00:01Z",
                "POST",
                "https://api.openai.com/v1/chat/completions",
                p("model=gpt&x=1"),
                None,
            ),
            entry("2025-01-01T00:00:02Z", "POST", "https://api.openai.com/v1/responses", None, None),
            entry(
                "2025-01-01T00:00:03Z",
                "POST",
                "https://api.anthropic.com/v1/messages",
                Some(json!({"text": "!!", "encoding": "base64"})),
                None,
            ),
            // Not a provider path: skipped quietly.
            entry("2025-01-01T00:00:04Z", "POST", "https://x/collect", p("{cut"), None),
            entry(
                "2025-01-01T00:00:05Z",
                "POST",
                "https://api.anthropic.com/v1/messages/count_tokens",
                p("{cut"),
                None,
            ),
        ]);
        let inp = load_json(&v);
        assert_eq!(inp.skipped, 6);
        let got: Vec<(&str, &str)> = inp.unread.iter().map(|u| (u.pointer.as_str(), u.what.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (
                    "/log/entries/0/request/postData/text",
                    "its request body is not valid JSON (expected value at line 1 column 15)"
                ),
                ("/log/entries/1/request/postData/text", "its request body is not JSON"),
                ("/log/entries/2/request", "no request body was recorded (`postData.text` is missing or empty)"),
                ("/log/entries/3/request/postData/text", "its request body is marked base64 but is not valid base64"),
            ]
        );
        assert!(inp.unread.iter().all(|u| u.line.is_some()));
    }

    #[test]
    fn hostile_entries_are_skipped_not_fatal() {
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let nested = format!("{{\"messages\": {deep}}}");
        let v = json!({"log": {"version": "1.2", "entries": [
            1, null, "x", [], {},
            {"request": "POST"},
            {"request": {"method": 7, "url": ["/v1/messages"]}},
            {"startedDateTime": "yesterday", "request": {"method": "post", "url": "/v1/messages", "postData": {"text": nested}}},
            {"request": {"method": "POST", "url": "/v1/responses", "postData": {"text": 5, "encoding": ["base64"]}}},
            {"request": {"method": "POST", "url": "https://h/v1/chat/completions", "postData": {"text": "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"}},
             "response": {"content": {"text": "H4sI!!", "encoding": "base64"}}}
        ]}});
        let inp = load_json(&v);
        assert_eq!(inp.skipped, 9);
        assert_eq!(inp.request_count(), 1);
        let got: Vec<&str> = inp.unread.iter().map(|u| u.pointer.as_str()).collect();
        assert_eq!(got, vec!["/log/entries/7/request/postData/text", "/log/entries/8/request"]);
        assert!(
            inp.unread[0].what.starts_with("its request body is not valid JSON (recursion limit exceeded"),
            "{:?}",
            inp.unread[0]
        );
    }

    #[test]
    fn detection_and_fit() {
        assert!(sniff(&json!({"log": {"version": "1.2", "entries": []}})));
        assert!(sniff(&json!({"log": {"creator": {"name": "x"}, "entries": []}})));
        assert!(!sniff(&json!({"log": {"entries": []}})));
        assert!(!sniff(&json!({"log": {"version": "1.2", "entries": {}}})));
        assert_eq!(fit(&json!({"log": {"entries": []}})), Ok(()));
        assert!(fit(&json!({"log": {}})).unwrap_err().contains("no `entries` array"));
        assert!(fit(&json!({"messages": []})).unwrap_err().contains("no top-level `log`"));
    }

    #[test]
    fn pointers_are_cut_at_the_body_text() {
        assert_eq!(
            located_pointer("/log/entries/3/request/postData/text/messages/1"),
            "/log/entries/3/request/postData/text"
        );
        assert_eq!(located_pointer("/log/entries/3/request/postData/text"), "/log/entries/3/request/postData/text");
        assert_eq!(
            located_pointer("/log/entries/3/request/postData/textual"),
            "/log/entries/3/request/postData/textual"
        );
        assert_eq!(located_pointer("/log/entries/x/request/postData/text/a"), "/log/entries/x/request/postData/text/a");
        assert_eq!(located_pointer(""), "");
    }

    #[test]
    fn endpoints() {
        assert_eq!(endpoint_format("/v1/chat/completions"), Some(crate::formats::openai_chat::ID));
        assert_eq!(endpoint_format("/openai/deployments/d/chat/completions"), Some(crate::formats::openai_chat::ID));
        assert_eq!(endpoint_format("/v1/responses"), Some(crate::formats::openai_responses::ID));
        assert_eq!(endpoint_format("/v1/messages"), Some(crate::formats::anthropic::ID));
        assert_eq!(
            endpoint_format("/v1beta/models/gemini-2.5-flash:streamGenerateContent"),
            Some(crate::formats::gemini::ID)
        );
        assert_eq!(
            endpoint_format("/model/us.anthropic.claude-3-5-haiku/converse-stream"),
            Some(crate::formats::bedrock::ID)
        );
        assert_eq!(endpoint_format("/model/anthropic.claude-v2/invoke"), Some(crate::formats::anthropic::ID));
        assert_eq!(endpoint_format("/v1/messages/count_tokens"), None);
        assert_eq!(endpoint_format("/invoke"), None);
        assert_eq!(endpoint_format("/"), None);
    }
}
