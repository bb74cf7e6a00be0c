//! `vcr-cassette`: VCR YAML cassettes (vcrpy, pytest-recording; pydantic-ai's
//! `tests/**/cassettes/*.yaml`; Ruby's VCR and R's vcr, whose list is
//! `http_interactions:`): a mapping with `interactions:`, a list of
//! `{request: {method, uri, headers, body | parsed_body}, response: {status,
//! headers, body | parsed_body}}`. The request body is in `parsed_body` (a
//! YAML mapping, pydantic-ai's custom serializer), in `body` as such a
//! mapping (pydantic-ai's Hugging Face cassettes), or a JSON string in
//! `body.string` or `body` (vcrpy's default), or in the state of a body vcrpy
//! saved as the Python `BytesIO` it was (`body: !!python/object/new:_io.BytesIO
//! {state: !!python/tuple [!!binary '…', 0, null]}`, pointer `/body/state/0`).
//! Also vcrpy's cassette dict as a custom serializer writes it: parallel
//! `requests:` and `responses:` lists (LangChain's `langchain_tests`
//! `CustomSerializer`, `*.yaml.gz`), pointers `/requests/<i>/body`.
//!
//! One cassette is one stream; the request index is the 0-based interaction
//! index, counting interactions skipped because they are not model calls
//! (token counting, file uploads, model listing, bodies that match no request
//! format), which are counted in [`Input::skipped`] (docs/spec.md §1). Pointers go
//! into the whole document (`/interactions/3/request/parsed_body/messages/1`;
//! for a JSON string body, the pointer continues into the embedded JSON after
//! `/interactions/3/request/body`). The endpoint is the URI's path. Response
//! ids are read from the recorded response (JSON `id` / `responseId`, or the
//! `data:` events of a streamed body) so that `previous_response_id` chains
//! can be checked.
//!
//! Binary bodies: vcrpy writes a body that is `bytes` (gzip'd, an AWS event
//! stream, a gRPC message) as a YAML `!!binary` scalar (base64; PyYAML's
//! `represent_binary`), e.g. `body: {string: !!binary |\n  H4sI…}`; pydantic-ai's
//! gRPC cassettes (`request_sample`/`response_sample` with a `raw: !!binary`
//! field) likewise. Such a scalar is read as its base64 text (never decoded by
//! the YAML reader, so a non-UTF-8 payload cannot make the cassette
//! unreadable) and decoded here only where a body is wanted: base64, then
//! gunzip when it starts with the gzip magic, then UTF-8 JSON. A request whose
//! body is not JSON after that is an exchange skipped (and counted); a response
//! body that is not JSON just gives no response id.

use super::LoadOptions;
use super::format::{About, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, TextSniffer};
use crate::error::{Error, Result};
use crate::model::*;
use crate::source::SourceRef;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Format id.
pub const ID: FormatId = FormatId::new("vcr-cassette");

/// A cassette: vcrpy's `interactions`, or Ruby VCR's and R vcr's
/// `http_interactions` (the same request/response pairs: VCR's
/// `lib/vcr/cassette/serializers`, `HTTPInteraction#to_hash`; R vcr writes
/// `status: 200` and header values as strings).
///
/// Also vcrpy's cassette dict as a custom serializer is handed it:
/// parallel `requests` and `responses` lists, request `i` answered by
/// response `i` (LangChain's `langchain_tests` `CustomSerializer`, which
/// every LangChain partner package's integration tests register for
/// `*.yaml.gz`: `yaml.dump(cassette_dict)`, gzip'd, bodies as `!!binary`).
#[derive(Deserialize)]
struct Cassette {
    #[serde(default)]
    interactions: Option<Vec<Interaction>>,
    #[serde(default)]
    http_interactions: Option<Vec<Interaction>>,
    #[serde(default)]
    requests: Option<Vec<serde_saphyr::Spanned<Loose>>>,
    #[serde(default)]
    responses: Option<Vec<Loose>>,
}

/// One request and its response, from either layout.
struct Pair<'a> {
    request: Option<&'a serde_saphyr::Spanned<Loose>>,
    response: Option<&'a Loose>,
}

impl Cassette {
    /// The request/response pairs, and the pointer of pair `i`'s request.
    fn pairs(&self) -> (Vec<Pair<'_>>, fn(usize) -> String) {
        fn of(v: &[Interaction]) -> Vec<Pair<'_>> {
            v.iter().map(|it| Pair { request: it.request.as_ref(), response: it.response.as_ref() }).collect()
        }
        match (&self.interactions, &self.http_interactions, &self.requests) {
            (Some(v), _, _) => (of(v), |i| format!("/interactions/{i}/request")),
            (None, Some(v), _) => (of(v), |i| format!("/http_interactions/{i}/request")),
            (None, None, Some(reqs)) => {
                let resps = self.responses.as_deref().unwrap_or(&[]);
                let pairs = reqs.iter().enumerate().map(|(i, r)| Pair { request: Some(r), response: resps.get(i) });
                (pairs.collect(), |i| format!("/requests/{i}"))
            }
            (None, None, None) => (Vec::new(), |i| format!("/interactions/{i}/request")),
        }
    }
}

#[derive(Deserialize)]
struct Interaction {
    #[serde(default)]
    request: Option<serde_saphyr::Spanned<Loose>>,
    #[serde(default)]
    response: Option<Loose>,
}

/// A field of a request or response mapping (read from the YAML node as
/// JSON, so a repeated key is read as PyYAML reads it: the last wins).
fn field<'a>(m: &'a Loose, key: &str) -> Option<&'a Value> {
    m.0.get(key).filter(|v| !v.is_null())
}

/// Any YAML node as JSON. `!!binary` scalars arrive as their base64 text
/// (the reader is told to ignore the tag, see [`load`]); bytes given any
/// other way become (lossy) strings.
struct Loose(Value);

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor).map(Loose)
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Value, E> {
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> std::result::Result<Value, E> {
        self.visit_bytes(&v)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Loose(v)) = a.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Loose(k)) = a.next_key()? {
            let key = match k {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let Loose(v) = a.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// The path of a URI (`https://host/v1/messages?beta=true` → `/v1/messages`).
pub fn uri_path(u: &str) -> &str {
    let p = u.split(['?', '#']).next().unwrap_or(u);
    match p.find("://") {
        Some(k) => {
            let rest = &p[k + 3..];
            rest.find('/').map(|s| &rest[s..]).unwrap_or("/")
        }
        None => p,
    }
}

/// Endpoints that are not model calls even when their body looks like one
/// (`method` upper case; token counting, embeddings, files, model listing).
pub fn not_a_model_call(method: &str, path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    !matches!(method, "" | "POST" | "WEBSOCKET")
        || p.ends_with("/count_tokens")
        || p.contains(":counttokens")
        || p.contains(":embedcontent")
        || p.contains(":batchembedcontents")
        || p.contains("/embeddings")
        || p.contains("/files")
        || p.contains("/uploads")
        || p.ends_with("/models")
        // OpenAI endpoints whose bodies are no chat request (their `input`
        // would read as a Responses request's).
        || ["/moderations", "/audio/", "/realtime/", "/assistants", "/images/", "/batches", "/threads"]
            .iter()
            .any(|e| p.contains(e))
}

/// A body given as a JSON string (`body: '…'` or `body: {string: '…'}`), with the pointer suffix.
fn string_body(b: &Value) -> Option<(Value, &'static str)> {
    let (s, suffix) = body_string(b)?;
    json_text(s).map(|v| (v, suffix))
}

/// The text of a body and its pointer suffix: `body: '…'`, `body: {string:
/// '…'}`, or a body vcrpy saved as the Python object it was, a `BytesIO`
/// (`body: !!python/object/new:_io.BytesIO {state: !!python/tuple [!!binary
/// '…', 0, null]}`: the tags are dropped, the state's first item is the
/// payload).
fn body_string(b: &Value) -> Option<(&str, &'static str)> {
    match b {
        Value::String(s) => Some((s.as_str(), "/body")),
        Value::Object(o) => match (o.get("string"), o.get("base64_string")) {
            (Some(s), _) => Some((s.as_str()?, "/body/string")),
            // Ruby VCR with `preserve_exact_body_bytes`: the body base64-encoded.
            (None, Some(s)) => Some((s.as_str()?, "/body/base64_string")),
            (None, None) => Some((o.get("state")?.get(0)?.as_str()?, "/body/state/0")),
        },
        _ => None,
    }
}

/// Why a body that [`string_body`] could not read is a JSON request body
/// that is broken, with its pointer suffix: text (or a base64 payload) that
/// starts like JSON but does not parse, or a gzip'd payload that does not
/// decompress. `None` for bodies that are simply not JSON — form-encoded
/// OAuth refreshes, multipart uploads, protobuf (gRPC) — which are not JSON
/// model calls, and for an empty body.
fn unreadable_body(b: &Value) -> Option<(String, &'static str)> {
    let (s, suffix) = body_string(b)?;
    let looks_json = |b: &[u8]| matches!(b.iter().find(|c| !c.is_ascii_whitespace()), Some(b'{' | b'['));
    if looks_json(s.as_bytes()) {
        // (Newline-delimited JSON is an upload or a batch, not a model call.)
        return (!super::body::is_ndjson(s)).then(|| (super::body::unparsed_json(s), suffix));
    }
    let what = {
        match base64_decode(s) {
            Some(bytes) if bytes.starts_with(&[0x1f, 0x8b]) => match decode_binary(s) {
                None => "its request body is a gzip'd payload that does not decompress",
                Some(json) if looks_json(&json) => "its gzip'd request body is JSON that does not parse",
                Some(_) => return None,
            },
            Some(bytes) if looks_json(&bytes) => "its base64-encoded request body is JSON that does not parse",
            // `H4sI` is the base64 of gzip's magic bytes: a gzip'd payload cut or mangled.
            None if s.trim_start().starts_with("H4sI") => {
                "its request body starts like a base64 gzip payload but is not valid base64"
            }
            _ => return None,
        }
    };
    Some((what.to_string(), suffix))
}

/// Why a body sent to a model endpoint (one [`super::har::endpoint_format`]
/// knows: `/chat/completions`, `/messages`, …) that [`unreadable_body`]
/// passed over cannot be read: a non-empty body that is neither JSON nor
/// valid base64 (a `!!binary` scalar whose base64 is broken: a payload cut,
/// or a character replaced) is reported, not skipped. A valid base64
/// payload that is not JSON stays unreported: a protobuf (gRPC) body is no
/// JSON model call. `None` for an empty body.
fn not_json(b: &Value) -> Option<(String, &'static str)> {
    let (s, suffix) = body_string(b)?;
    if s.trim().is_empty() || base64_decode(s).is_some() {
        return None;
    }
    Some((
        "its request body to a model endpoint is neither JSON nor a valid base64 (`!!binary`) payload".to_string(),
        suffix,
    ))
}

/// Largest decompressed size of a gzip'd body (a bomb is not read further).
const MAX_GUNZIPPED: u64 = 64 * 1024 * 1024;

/// The JSON a body string holds: the string itself, or (a `!!binary`
/// scalar, see the module doc) its base64 payload, gunzipped when gzip'd.
fn json_text(s: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(s) {
        return Some(v);
    }
    let bytes = decode_binary(s)?;
    serde_json::from_slice::<Value>(&bytes).ok()
}

/// A text body: the string itself when it is not base64, else its decoded
/// payload as UTF-8 (lossy), gunzipped when gzip'd.
fn body_text(s: &str) -> std::borrow::Cow<'_, str> {
    match decode_binary(s) {
        Some(b) => String::from_utf8_lossy(&b).into_owned().into(),
        None => s.into(),
    }
}

/// Decodes the payload of a `!!binary` scalar: base64 (whitespace ignored,
/// RFC 4648 alphabet with padding, as PyYAML's `base64.encodebytes` writes
/// it), then gunzipped when it starts with the gzip magic `1f 8b`. `None`
/// when `s` is not base64 or a gzip'd payload does not decompress, or would
/// decompress to more than [`gunzip_limit`] bytes (a decompression bomb: a
/// few KB per body, times every entry of a HAR, once took gigabytes).
pub fn decode_binary(s: &str) -> Option<Vec<u8>> {
    let bytes = base64_decode(s)?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let limit = gunzip_limit(bytes.len() as u64);
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice()).take(limit + 1).read_to_end(&mut out).ok()?;
        return (out.len() as u64 <= limit).then_some(out);
    }
    Some(bytes)
}

/// The most bytes a gzip'd body of `compressed` bytes may decompress to:
/// [`crate::source::MAX_RATIO`] times its size, at least 1 MiB, at most
/// [`MAX_GUNZIPPED`].
pub fn gunzip_limit(compressed: u64) -> u64 {
    compressed.saturating_mul(crate::source::MAX_RATIO).clamp(1 << 20, MAX_GUNZIPPED)
}

/// Standard base64 with `=` padding, ASCII whitespace ignored (PyYAML
/// breaks a `!!binary` payload into lines); `None` for anything else (or an
/// empty payload).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let compact: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(compact).ok().filter(|b| !b.is_empty())
}

/// What a recorded response says of its call ([`super::usage::Response`]):
/// its `parsed_body`, and for what that lacks (an id, a usage) its `body`
/// text (JSON, or a stream of `data:` events), each parsed once.
fn response_facts(r: &Loose) -> super::usage::Response {
    use super::usage::Response;
    let parsed = field(r, "parsed_body").map(Response::of_value).unwrap_or_default();
    if parsed.id.is_some() && parsed.usage.is_some() {
        return parsed;
    }
    let text = match field(r, "body") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Object(o)) => match o.get("string").and_then(Value::as_str) {
            Some(s) => s,
            None => return parsed,
        },
        _ => return parsed,
    };
    let body = Response::of_text(&body_text(text));
    // The model comes with the usage it was read with.
    let model = if parsed.usage.is_some() { parsed.model } else { body.model };
    let reply =
        if parsed.reply.tool_ids.is_empty() && parsed.reply.texts.is_empty() { body.reply } else { parsed.reply };
    Response { id: parsed.id.or(body.id), usage: parsed.usage.or(body.usage), model, reply }
}

/// Why a YAML file with `interactions:` is skipped when that key holds a
/// mapping (docs/spec.md §1: not a list of request/response pairs).
pub const NOT_A_CASSETTE: &str = "a YAML file whose `interactions` is a mapping, not a list of request/response pairs: no VCR cassette (e.g. Mirascope's own response cache)";

/// Whether the top-level `interactions:` key of a block YAML text (its first
/// bytes) holds a mapping: its first content line below is a `key:` line,
/// not a `- ` item, with no value on the key's own line.
pub fn interactions_is_mapping(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    fn k(l: &str) -> Option<&str> {
        l.strip_prefix("interactions:").or_else(|| l.strip_prefix("http_interactions:"))
    }
    let mut lines = text.lines().skip_while(|l| k(l).is_none());
    let Some(key) = lines.next() else { return false };
    let inline = k(key).unwrap_or("").trim();
    if !inline.is_empty() {
        return inline.starts_with('{');
    }
    let Some(next) = lines.find_map(yline) else { return false };
    !next.dash && ykey(next.rest).is_some()
}

/// Whether the YAML document has a top-level `interactions` key (for a
/// forced `--input-format vcr-cassette`). A document that is not readable
/// YAML counts as having one: [`load`] then says what is wrong with it.
pub fn has_interactions(src: &SourceRef) -> Result<bool> {
    #[derive(Deserialize)]
    struct Top {
        #[serde(default)]
        interactions: Option<IgnoredAny>,
        #[serde(default)]
        http_interactions: Option<IgnoredAny>,
        #[serde(default)]
        requests: Option<IgnoredAny>,
        #[serde(default)]
        responses: Option<IgnoredAny>,
    }
    let bytes = src.read_all()?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(match serde_saphyr::from_str_with_options::<Top>(&text, yaml_options()) {
        Ok(top) => {
            top.interactions.is_some()
                || top.http_interactions.is_some()
                || (top.requests.is_some() && top.responses.is_some())
        }
        Err(_) => true,
    })
}

/// `text` with every continuation line of a multi-line quoted scalar that is
/// indented no deeper than the scalar's key indented one space past it, or
/// with tabs in its indentation (lmnr-python's Azure cassettes: a JSON error
/// body indented with tabs), indented with spaces (PyYAML reads such a
/// scalar: a flow scalar's line breaks fold and the white space that starts
/// a continuation line is dropped, so no value changes; see [`load`]);
/// `None` when no line needed it. Lines are never added or removed, so line
/// numbers stay exact.
pub fn indent_quoted_continuations(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 256);
    let mut changed = false;
    // Inside a quoted scalar: (quote, indent its continuation lines need).
    let mut open: Option<(u8, usize)> = None;
    // Inside a block scalar (`|`, `>`): the column of its key; its lines,
    // more indented, are text (a quote there opens nothing).
    let mut block: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(col) = block {
            let ind = body.len() - body.trim_start_matches(' ').len();
            if body.trim().is_empty() || ind > col {
                out.push_str(line);
                continue;
            }
            block = None;
        }
        let mut line = line;
        let from = match open {
            Some((_, need)) => {
                let lead = body.len() - body.trim_start_matches([' ', '\t']).len();
                let ind = body.len() - body.trim_start_matches(' ').len();
                if !body.trim().is_empty() && body[..lead].contains('\t') {
                    // (White space that starts a continuation line is dropped.)
                    out.extend(std::iter::repeat_n(' ', need.max(lead)));
                    line = &line[lead..];
                    changed = true;
                } else if !body.trim().is_empty() && ind < need {
                    out.extend(std::iter::repeat_n(' ', need - ind));
                    changed = true;
                }
                0
            }
            None => {
                let Some(y) = yline(body) else {
                    out.push_str(line);
                    continue;
                };
                // The value after `key:` (or after the `- ` markers).
                let block_value = |v: &str| v.starts_with(['|', '>']);
                let key = ykey(y.rest);
                match &key {
                    Some((_, v)) if block_value(v) => {
                        block = Some(y.eff);
                        out.push_str(line);
                        continue;
                    }
                    None if y.dash && block_value(y.rest) => {
                        block = Some(y.eff.saturating_sub(1));
                        out.push_str(line);
                        continue;
                    }
                    _ => {}
                }
                let value_at = match key {
                    Some((_, v)) if !v.is_empty() => y.eff + (v.as_ptr() as usize - y.rest.as_ptr() as usize),
                    Some(_) => {
                        out.push_str(line);
                        continue;
                    }
                    None if y.dash => y.eff,
                    // A quoted scalar on a line of its own, after its `key:`.
                    None if y.rest.starts_with(['\'', '"']) => y.eff,
                    None => {
                        out.push_str(line);
                        continue;
                    }
                };
                match body.as_bytes().get(value_at) {
                    Some(&q @ (b'\'' | b'"')) => {
                        // One more than the key's column is not always enough
                        // for the strict reader; two is (and changes no value).
                        // A scalar on a line of its own needs only its own column.
                        open = Some((q, if value_at == y.eff && !y.dash { y.eff } else { y.eff + 2 }));
                        value_at + 1
                    }
                    _ => {
                        out.push_str(line);
                        continue;
                    }
                }
            }
        };
        // Scan for the closing quote.
        if let Some((q, _)) = open {
            let b = body.as_bytes();
            let mut i = from;
            while i < b.len() {
                if q == b'"' && b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if b[i] == q {
                    if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    open = None;
                    break;
                }
                i += 1;
            }
        }
        out.push_str(line);
    }
    changed.then_some(out)
}

/// A cassette's YAML as a JSON value, read as [`load`] reads it (the same
/// options, and a quoted scalar continued level with its key read the same
/// way), for `repro` to rebuild it; `None` when it is not readable YAML.
pub fn yaml_value(text: &str) -> Option<serde_json::Value> {
    let read = |t: &str| serde_saphyr::from_str_with_options::<serde_json::Value>(t, yaml_options());
    match read(text) {
        Err(e) if refused_continuation(&e.to_string()) => read(&indent_quoted_continuations(text)?).ok(),
        other => other.ok(),
    }
}

/// Whether a YAML reader's error is one [`indent_quoted_continuations`]
/// mends: a quoted scalar's continuation line indented level with its key,
/// or with a tab.
fn refused_continuation(e: &str) -> bool {
    e.contains("invalid indentation in multiline quoted scalar") || e.contains("tab cannot be used as indentation")
}

/// A cassette as JSON (its mappings, sequences and scalars) for `repro`
/// ([`Repro::value`]), read as the cassette loader reads it ([`yaml_value`]): a real
/// cassette the loader reads (vcrpy's `!!binary` bodies, a repeated key, a
/// quoted scalar continued level with its key) was rebuilt as `null`, and
/// its findings were "not reproduced".
///
/// A `!!binary` body (vcrpy writes gzip'd bodies so: base64 text here) whose
/// payload is JSON, or gzip'd UTF-8 text, is rebuilt as that text, which the
/// loader reads the same: its texts can then be reduced and anonymised
/// (replacing words inside base64 broke the payload, and the finding went
/// with it).
pub fn repro_value(bytes: &[u8]) -> Option<serde_json::Value> {
    let mut v = yaml_value(&String::from_utf8_lossy(bytes))?;
    decode_binaries(&mut v);
    Some(v)
}

/// Replaces each base64 string whose payload is JSON (or gzip'd UTF-8 text)
/// by that text ([`repro_value`]).
fn decode_binaries(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => {
            let t = s.trim_start();
            if t.starts_with('{') || t.starts_with('[') || s.len() < 8 {
                return;
            }
            let gzipped = t.starts_with("H4sI");
            let Some(bytes) = decode_binary(s) else { return };
            let Ok(text) = String::from_utf8(bytes) else { return };
            let json = serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|d| d.is_object() || d.is_array());
            if json || gzipped {
                *s = text;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(decode_binaries),
        serde_json::Value::Object(o) => o.values_mut().for_each(decode_binaries),
        _ => {}
    }
}

/// How cassettes are read: nesting capped, `!!binary` kept as text (see [`load`]).
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::Options {
        budget: Some(serde_saphyr::Budget { max_depth: MAX_YAML_DEPTH, ..serde_saphyr::Budget::default() }),
        ignore_binary_tag_for_string: true,
        // PyYAML (vcrpy) lets a repeated key's last value win.
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        ..serde_saphyr::Options::default()
    }
}

/// Deepest YAML nesting (mappings + sequences) read from a cassette.
pub const MAX_YAML_DEPTH: usize = 128;

/// Loads a cassette as one stream.
pub fn load(src: &SourceRef, _opts: &LoadOptions) -> Result<Input> {
    let bytes = src.read_all()?;
    let bad = |reason: String| Error::BadInput { path: src.display.clone().into(), format: ID.to_string(), reason };
    // YAML is UTF-8 (PyYAML and Ruby's Psych reject other bytes); a byte
    // order mark at the start is allowed and read as nothing.
    let text = match std::str::from_utf8(&bytes) {
        // (The reader gives a byte order mark as three spaces, which would
        // indent the document's first line: dropped before a top-level key.)
        Ok(t) => std::borrow::Cow::Borrowed(match t.strip_prefix("   ") {
            Some(r) if ["---", "interactions:", "http_interactions:"].iter().any(|k| r.starts_with(k)) => r,
            _ => t,
        }),
        Err(e) => {
            let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
            return Err(bad(format!(
                "not valid UTF-8 at line {line} (byte {}): no YAML reader reads it",
                e.valid_up_to()
            )));
        }
    };
    // Nesting is capped well below serde-saphyr's default (2,000): the YAML
    // is deserialised recursively (through `Loose`) on a worker thread's
    // 2 MiB stack, which a ~1,200-level block mapping overflowed (issue 7;
    // a debug build overflows nested sequences from ~240 levels). Real
    // cassettes nest a few dozen levels; serde_json's own limit is also 128.
    //
    // `!!binary` scalars are read as their base64 text (see the module doc):
    // decoding them in the YAML reader made any non-UTF-8 payload — even in a
    // field ctxlint never reads — fail the whole cassette (issue 13).
    //
    // PyYAML (which vcrpy uses) reads what a strict reader refuses: a quoted
    // scalar continued on lines indented level with its key. Such a text is
    // read again with those lines indented one space more, which changes no
    // value (a flow scalar's line breaks fold, leading spaces dropped) and no
    // line number.
    let first = serde_saphyr::from_str_with_options::<Cassette>(&text, yaml_options());
    let cassette: Cassette = match first {
        Err(e) if refused_continuation(&e.to_string()) => match indent_quoted_continuations(&text) {
            Some(fixed) => serde_saphyr::from_str_with_options(&fixed, yaml_options()),
            None => Err(e),
        },
        other => other,
    }
    .map_err(|e| {
        let e = e.to_string();
        bad(format!("not a readable VCR cassette: {}", e.lines().next().unwrap_or("").trim_start_matches("error: ")))
    })?;
    let path: Arc<str> = src.display.as_str().into();
    let mut requests = Vec::new();
    let mut interner = Interner::default();
    let mut skipped = 0;
    let mut unread = Vec::new();
    let (pairs, request_pointer) = cassette.pairs();
    for (i, it) in pairs.iter().enumerate() {
        let Some(req) = it.request else {
            skipped += 1;
            continue;
        };
        let line = u32::try_from(req.referenced.line()).ok().filter(|l| *l > 0);
        let req = &req.value;
        let str_of = |k: &str| field(req, k).and_then(Value::as_str).map(str::to_string).unwrap_or_default();
        let method = str_of("method").to_ascii_uppercase();
        let uri = str_of("uri");
        let endpoint = uri_path(&uri).to_string();
        let base = request_pointer(i);
        let model_call = !not_a_model_call(&method, &endpoint);
        let body = match (field(req, "parsed_body"), field(req, "body")) {
            (Some(v), _) if v.is_object() || v.is_array() => Some((v.clone(), format!("{base}/parsed_body"))),
            // The JSON body itself as a YAML mapping, with neither `string` nor
            // `state` (pydantic-ai's Hugging Face cassettes).
            (_, Some(b))
                if b.as_object()
                    .is_some_and(|o| !["string", "state", "encoding"].iter().any(|k| o.contains_key(*k))) =>
            {
                Some((b.clone(), format!("{base}/body")))
            }
            (_, Some(b)) => {
                let got = string_body(b).map(|(v, suffix)| (v, format!("{base}{suffix}")));
                if got.is_none() && model_call {
                    let known = super::har::endpoint_format(&endpoint).is_some();
                    if let Some((what, suffix)) = unreadable_body(b).or_else(|| known.then(|| not_json(b)).flatten()) {
                        unread.push(Unread { line, pointer: format!("{base}{suffix}"), what });
                    }
                }
                got
            }
            _ => None,
        };
        let parsed = body.filter(|_| model_call).and_then(|(v, ptr)| {
            let f = super::har::body_format(&endpoint, &v)?;
            let mut r = super::parse_body(f, &v, &path, i, "")?;
            r.pointer = ptr;
            r.relative = true;
            Some(r)
        });
        let Some(mut r) = parsed else {
            skipped += 1;
            continue;
        };
        r.line = line;
        if !uri.is_empty() {
            r.endpoint = Some(endpoint.into());
        }
        if let Some(facts) = it.response.map(response_facts) {
            r.response_id = facts.id;
            r.reply = facts.reply.known();
            r.usage = facts.usage;
            if facts.model.is_some() {
                r.model = facts.model;
            }
        }
        // An HTTP error status is a failed attempt (docs/spec.md §1).
        if let Some(resp) = it.response {
            if super::body::response_failed(Some(&resp.0)) {
                r.outcome = Some(Outcome::Failed);
            }
        }
        // The body's elements hold pointers relative to it (the interaction's
        // own base is `r.pointer`): a message the next interaction sends
        // again is then equal to this one's and held once.
        interner.request(&mut r);
        requests.push(r);
    }
    Ok(Input {
        path: src.display.clone(),
        format: ID,
        body: Body::Stream(Stream { requests }),
        bad_lines: Vec::new(),
        more_bad_lines: 0,
        skipped,
        unknown_records: 0,
        unread,
    })
}

/// One line of a block-style YAML document, split for [`locate_line`].
struct YLine<'a> {
    /// Spaces before the first character.
    raw: usize,
    /// Column of the content after any `- ` sequence markers.
    eff: usize,
    /// The line starts with a `- ` sequence marker.
    dash: bool,
    /// The content after the indentation and sequence markers.
    rest: &'a str,
}

fn yline(l: &str) -> Option<YLine<'_>> {
    let raw = l.len() - l.trim_start_matches(' ').len();
    let mut rest = &l[raw..];
    if rest.trim().is_empty() || rest.starts_with('#') {
        return None;
    }
    let mut eff = raw;
    let dash = rest.starts_with("- ") || rest == "-";
    while rest.starts_with("- ") || rest == "-" {
        let after = rest[1..].trim_start_matches(' ');
        eff += rest.len() - after.len();
        rest = after;
    }
    Some(YLine { raw, eff, dash, rest })
}

/// The key of a `key: value` line content, and the value text after it.
fn ykey(rest: &str) -> Option<(String, &str)> {
    let (key, after) = if let Some(q @ ('"' | '\'')) = rest.chars().next() {
        let end = rest[1..].find(q)? + 1;
        (rest[1..end].to_string(), &rest[end + 1..])
    } else {
        let i = rest.find(':')?;
        (rest[..i].trim_end().to_string(), &rest[i..])
    };
    let v = after.strip_prefix(':')?;
    (v.is_empty() || v.starts_with(' ')).then(|| (key, v.trim()))
}

/// The 1-based line of the node a JSON Pointer names in a block-style YAML
/// document (as vcrpy and PyYAML write cassettes); the deepest node found
/// when the pointer goes further (into a scalar or a JSON string body).
/// For many pointers into one document use [`YamlLocator`].
pub fn locate_line(text: &str, pointer: &str) -> Option<u32> {
    YamlLocator::new(text).line(pointer)
}

/// Places many JSON Pointers in one block-style YAML document in time linear
/// in the document (per level of nesting): its lines are split once, and each
/// block a pointer passes through is scanned once for its sequence items or
/// mapping keys, kept for every later pointer.
pub struct YamlLocator<'a> {
    lines: Vec<&'a str>,
    /// (first line, indent) of a sequence → the lines its items start on.
    items: HashMap<(usize, usize), Vec<usize>>,
    /// (first line, indent) of a mapping → the line of each key (the last,
    /// when a key repeats, as PyYAML and serde-saphyr read it).
    keys: HashMap<(usize, usize), HashMap<String, usize>>,
}

impl<'a> YamlLocator<'a> {
    /// A locator over `text` (split into lines now, scanned when asked).
    pub fn new(text: &'a str) -> Self {
        YamlLocator { lines: text.lines().collect(), items: HashMap::new(), keys: HashMap::new() }
    }

    fn next_content(&self, from: usize) -> Option<usize> {
        (from..self.lines.len()).find(|&i| yline(self.lines[i]).is_some_and(|y| !y.rest.starts_with("---")))
    }

    /// The lines of the items of the sequence whose dashes are at column
    /// `ind`, from line `pos` to the end of its block.
    fn items(&mut self, pos: usize, ind: usize) -> &[usize] {
        let lines = &self.lines;
        self.items.entry((pos, ind)).or_insert_with(|| {
            let mut out = Vec::new();
            for (i, l) in lines.iter().enumerate().skip(pos) {
                let Some(y) = yline(l) else { continue };
                if i != pos && y.raw < ind {
                    break;
                }
                // Item starts: a dash at this indent (or, on the first line, after an outer dash).
                if (y.dash && y.raw == ind) || (i == pos && l.get(ind..).is_some_and(|r| r.starts_with("- "))) {
                    out.push(i);
                }
            }
            out
        })
    }

    /// The line of each key of the mapping whose keys are at column `ind`,
    /// from line `pos` to the end of its block.
    fn keys(&mut self, pos: usize, ind: usize) -> &HashMap<String, usize> {
        let lines = &self.lines;
        self.keys.entry((pos, ind)).or_insert_with(|| {
            let mut out = HashMap::new();
            for (i, l) in lines.iter().enumerate().skip(pos) {
                let Some(y) = yline(l) else { continue };
                if i != pos && y.raw < ind {
                    break;
                }
                if y.eff == ind {
                    if let Some((k, _)) = ykey(y.rest) {
                        out.insert(k, i); // a key written twice: the last is read
                    }
                }
            }
            out
        })
    }

    /// As [`locate_line`].
    pub fn line(&mut self, pointer: &str) -> Option<u32> {
        let mut pos = self.next_content(0)?;
        let first = yline(self.lines[pos])?;
        // (is a sequence, indent of its keys or dashes)
        let (mut seq, mut ind) = (first.dash, first.raw);
        let mut found = pos;
        for tok in pointer.split('/').skip(1) {
            let tok = tok.replace("~1", "/").replace("~0", "~");
            if seq {
                let n: usize = tok.parse().ok()?;
                let i = *self.items(pos, ind).get(n)?;
                found = i;
                // The item's content after its dash at `ind`.
                let line = self.lines[i];
                let after = line[ind + 1..].trim_start_matches(' ');
                let col = line.len() - after.len();
                if after.is_empty() {
                    let j = self.next_content(i + 1)?;
                    let y = yline(self.lines[j])?;
                    (seq, ind, pos) = (y.dash, y.raw, j);
                } else if after.starts_with("- ") || after == "-" {
                    (seq, ind, pos) = (true, col, i);
                } else if ykey(after).is_some() {
                    (seq, ind, pos) = (false, col, i);
                } else {
                    return Some(found as u32 + 1);
                }
            } else {
                let i = *self.keys(pos, ind).get(&tok)?;
                found = i;
                let y = yline(self.lines[i])?;
                let (_, v) = ykey(y.rest)?;
                let v = v.trim_start_matches(['&', '!']).split_whitespace().next().unwrap_or("");
                if !v.is_empty()
                    && !v.starts_with('#')
                    && !ykey(y.rest).is_some_and(|(_, v)| v.starts_with('&') && v.split_whitespace().count() == 1)
                {
                    return Some(found as u32 + 1);
                }
                let j = self.next_content(i + 1)?;
                let c = yline(self.lines[j])?;
                if c.raw < ind || (c.raw == ind && !c.dash) {
                    return Some(found as u32 + 1);
                }
                (seq, ind, pos) = (c.dash, c.raw, j);
            }
        }
        Some(found as u32 + 1)
    }
}

/// Detection's test of a text head ([`super::Detect::text`]): a cassette
/// has a top-level `interactions:` key (after a `---` document start, or on
/// any line); one whose `interactions` is a mapping is a known kind of file
/// ctxlint does not read ([`NOT_A_CASSETTE`]).
pub fn sniff_head(t: &[u8]) -> Option<super::Detection> {
    let t = t.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(t);
    let has = |needle: &[u8]| memchr::memmem::find(t, needle).is_some();
    // (Ruby VCR and R vcr: `http_interactions:`.)
    let key = |k: &[u8]| t.starts_with(k) || memchr::memmem::find_iter(t, k).any(|at| t[at - 1] == b'\n');
    if key(b"interactions:") || key(b"http_interactions:") || t.starts_with(b"---") && has(b"interactions:") {
        if interactions_is_mapping(t) {
            return Some(super::Detection::Unsupported(NOT_A_CASSETTE));
        }
        return Some(super::Detection::Format(ID));
    }
    // vcrpy's cassette dict as a custom serializer writes it (see [`Cassette`]):
    // `requests:` first (keys sorted), a list of requests with a `uri`.
    if t.starts_with(b"requests:\n- ") && (has(b"\n  uri: ") || has(b"\n  method: ")) && key(b"responses:") {
        return Some(super::Detection::Format(ID));
    }
    None
}

/// Places the findings of one cassette ([`super::Locate::Own`]): YAML lines
/// only, from the pointer's key (columns and offsets are not resolved).
pub fn place(src: &SourceRef, findings: &mut [crate::finding::Finding], mine: &[usize], related: &[usize]) {
    let Ok(bytes) = src.read_all() else { return };
    let text = String::from_utf8_lossy(&bytes);
    let mut loc = YamlLocator::new(&text);
    for &i in mine.iter().chain(related) {
        let f = &mut findings[i];
        if f.path != src.display {
            continue;
        }
        if let Some(l) = loc.line(&f.pointer) {
            f.line = Some(l);
        }
        for r in &mut f.related {
            if r.path == src.display {
                if let Some(l) = loc.line(&r.pointer) {
                    r.line = Some(l);
                }
            }
        }
    }
}

/// The format's descriptor ([`super::REGISTRY`]).
pub static FORMAT: Format = Format {
    id: ID,
    shape: Shape::Stream,
    encoding: Encoding::Yaml,
    detect: Detect { text: Some(TextSniffer { rank: 1, test: sniff_head }), ..Detect::NONE },
    fit: Fit::Own(|src| Ok((!has_interactions(src)?).then_some("no top-level `interactions` list (a VCR cassette)"))),
    read: Read::File(load),
    locate: Locate::Own(place),
    record: None,
    repro: Repro { name: "cassette.yaml", numbered: None, threading: None, text: None, value: Some(repro_value) },
    store: None,
    agent_folders: &[],
    about: About {
        what: "VCR YAML cassette (vcrpy, pytest-recording; Ruby VCR, R vcr; LangChain's langchain_tests *.yaml.gz)",
        kind: "stream of requests",
        location: "tests/cassettes/**/*.yaml, spec/fixtures/vcr_cassettes/*.yml in the project",
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    #[test]
    fn a_gzip_bomb_body_is_not_decoded() {
        use std::io::Write as _;
        // Issue 32: base64 + gzip bodies of a few KB each, 64 MiB apiece
        // once decoded, took gigabytes over a HAR's entries.
        let b64 = |bytes: &[u8]| {
            const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            let mut out = String::new();
            for c in bytes.chunks(3) {
                let n = (u32::from(c[0]) << 16)
                    | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                    | u32::from(*c.get(2).unwrap_or(&0));
                for k in 0..4 {
                    out.push(if k <= c.len() { A[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
                }
            }
            out
        };
        let gz = |body: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(body).unwrap();
            e.finish().unwrap()
        };
        let small = br#"{"messages":[{"role":"user","content":"hi"}]}"#;
        assert_eq!(decode_binary(&b64(&gz(small))).as_deref(), Some(&small[..]));
        let bomb = gz(&b" ".repeat(4 << 20));
        assert!(bomb.len() < 10 << 10);
        assert_eq!(decode_binary(&b64(&bomb)), None);
        assert_eq!(gunzip_limit(10), 1 << 20);
        assert_eq!(gunzip_limit(1 << 40), MAX_GUNZIPPED);
    }

    fn load_str(y: &str) -> Input {
        let src = SourceRef {
            display: "c.yaml".into(),
            origin: Origin::Memory(y.as_bytes().to_vec().into()),
            seen: None,
            session: None,
        };
        load(&src, &LoadOptions::default()).expect("loads")
    }

    /// A quoted scalar on a line of its own whose continuation lines are
    /// indented with tabs (lmnr-python's Azure content-filter cassette, a
    /// JSON error body): PyYAML reads it, the strict reader refused the whole
    /// cassette. Read with the tabs as spaces, the same value, the same lines.
    #[test]
    fn a_quoted_scalar_continued_with_tabs_is_read_as_pyyaml_reads_it() {
        let y = "interactions:\n- request:\n    body: '{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'\n    method: POST\n    uri: https://x.openai.azure.com/openai/deployments/d/chat/completions\n  response:\n    body:\n      string:\n        '{\n\t\t\"error\": {\n\t\t    \"code\": \"content_filter\"\n\t\t}\n\t\t}\n        '\n    status:\n      code: 400\nversion: 1\n";
        let fixed = indent_quoted_continuations(y).expect("mended");
        assert_eq!(fixed.lines().count(), y.lines().count());
        assert!(!fixed.contains('\t'));
        let v = yaml_value(y).expect("read");
        assert_eq!(
            v["interactions"][0]["response"]["body"]["string"],
            "{ \"error\": { \"code\": \"content_filter\" } } "
        );
        let inp = load_str(y);
        let Body::Stream(s) = &inp.body else { panic!() };
        assert_eq!((s.requests.len(), s.requests[0].line), (1, Some(3)));
    }

    /// A block scalar's lines are text: a line of one that starts with a
    /// quote opens no quoted scalar, and its tabs are kept (the mending is
    /// for the quoted scalar continued with tabs further on). Values as PyYAML
    /// reads them.
    #[test]
    fn a_block_scalar_is_left_as_it_is_when_a_cassette_is_mended() {
        let y = "interactions:\n- request:\n    body: |\n      'quoted line\n      \tkept tab\n    method: POST\n    uri: https://x/v1/chat/completions\n  response:\n    body:\n      string:\n        '{\n\t\t\"id\": \"c\"\n\t\t}'\nversion: 1\n";
        let v = yaml_value(y).expect("read");
        assert_eq!(v["interactions"][0]["request"]["body"], "'quoted line\n\tkept tab\n");
        assert_eq!(v["interactions"][0]["response"]["body"]["string"], "{ \"id\": \"c\" }");
    }

    #[test]
    fn ruby_and_r_cassettes_hold_their_interactions_under_http_interactions() {
        // Ruby VCR: `---` first, lower-case method, `body: {encoding, string}`.
        let ruby = "---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://api.openai.com/v1/chat/completions\n    body:\n      encoding: UTF-8\n      string: '{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'\n  response:\n    status:\n      code: 200\n      message: OK\n    body:\n      encoding: UTF-8\n      string: '{\"id\":\"c1\"}'\n  recorded_at: Mon, 01 Jan 2024 00:00:00 GMT\nrecorded_with: VCR 6.2.0\n";
        assert!(matches!(sniff_head(ruby.as_bytes()), Some(super::super::Detection::Format(ID))));
        let inp = load_str(ruby);
        let Body::Stream(s) = &inp.body else { panic!() };
        assert_eq!(s.requests.len(), 1);
        let r = &s.requests[0];
        assert_eq!(r.pointer, "/http_interactions/0/request/body/string");
        assert_eq!(r.at(&r.messages[0].pointer), "/http_interactions/0/request/body/string/messages/0");
        assert_eq!(r.response_id.as_deref(), Some("c1"));
        // R vcr: no `---`, `status: 200`; an error status is a failed attempt.
        let r_vcr = "http_interactions:\n- request:\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n    body:\n      string: '{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'\n  response:\n    status: 500\n";
        assert!(matches!(sniff_head(r_vcr.as_bytes()), Some(super::super::Detection::Format(ID))));
        let inp = load_str(r_vcr);
        let Body::Stream(s) = &inp.body else { panic!() };
        assert_eq!(s.requests[0].outcome, Some(Outcome::Failed));
    }

    #[test]
    fn ruby_vcr_base64_bodies_bom_and_non_chat_endpoints() {
        use base64::Engine as _;
        let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
        let b64 = base64::engine::general_purpose::STANDARD.encode(body);
        let y = format!(
            "{bom}---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://api.openai.com/v1/chat/completions\n    body:\n      encoding: ASCII-8BIT\n      base64_string: {b64}\n- request:\n    method: post\n    uri: https://api.openai.com/v1/moderations\n    body:\n      string: '{{\"input\":\"hello\"}}'\n",
            bom = '\u{feff}'
        );
        let inp = load_str(&y);
        let Body::Stream(s) = &inp.body else { panic!() };
        assert_eq!(s.requests.len(), 1);
        assert_eq!(s.requests[0].pointer, "/http_interactions/0/request/body/base64_string");
        assert_eq!(inp.skipped, 1);
        // Not UTF-8: an error naming the line.
        let src = SourceRef {
            display: "bad.yml".into(),
            origin: Origin::Memory(b"http_interactions:\n- request:\n    body: \xff\n".to_vec().into()),
            seen: None,
            session: None,
        };
        let e = load(&src, &LoadOptions::default()).err().unwrap().to_string();
        assert!(e.contains("not valid UTF-8 at line 3"), "{e}");
        // A mapping under http_interactions is no cassette, as under interactions.
        assert!(interactions_is_mapping(b"http_interactions:\n  a: 1\n"));
    }

    #[test]
    fn parsed_body_string_body_and_skipped_interactions() {
        let y = r#"interactions:
- request:
    body: null
    headers:
      content-type:
      - !!binary |
        YXBwbGljYXRpb24vanNvbg==
    method: GET
    uri: https://api.openai.com/v1/models
  response:
    body:
      string: '{"data": []}'
- request:
    method: POST
    parsed_body:
      messages:
      - content: hi
        role: user
      model: gpt-4o
    uri: https://api.openai.com/v1/chat/completions
  response:
    parsed_body:
      id: chatcmpl-1
- request:
    body: '{"input": [{"role": "user", "content": "hi"}], "model": "gpt-4.1"}'
    method: POST
    uri: https://api.openai.com/v1/responses?x=1
  response:
    body:
      string: "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\"}}\n"
version: 1
"#;
        let inp = load_str(y);
        assert_eq!(inp.skipped, 1);
        let Body::Stream(s) = &inp.body else { panic!() };
        assert_eq!(s.requests.len(), 2);
        let (a, b) = (&s.requests[0], &s.requests[1]);
        assert_eq!(
            (a.index, a.body_format, a.endpoint.as_deref()),
            (1, crate::formats::openai_chat::ID, Some("/v1/chat/completions"))
        );
        assert_eq!(a.at(&a.messages[0].pointer), "/interactions/1/request/parsed_body/messages/0");
        assert_eq!(a.response_id.as_deref(), Some("chatcmpl-1"));
        assert_eq!(
            (b.index, b.body_format, b.endpoint.as_deref()),
            (2, crate::formats::openai_responses::ID, Some("/v1/responses"))
        );
        assert_eq!(b.pointer, "/interactions/2/request/body");
        assert_eq!(b.response_id.as_deref(), Some("resp_1"));
        assert!(a.line.is_some());
    }

    /// vcrpy's shape for `bytes` bodies: `!!binary` scalars that are not
    /// UTF-8 (an event-stream response, a protobuf request), a gzip'd JSON
    /// request, and a gRPC interaction without `request`.
    #[test]
    fn binary_bodies_are_decoded_or_skipped_and_counted() {
        let inp = load_str(include_str!("../../../../fixtures/vcr/binary-bodies.yaml"));
        // Interaction 1 (a protobuf request body) and 3 (`request_sample`, gRPC).
        assert_eq!(inp.skipped, 2);
        let Body::Stream(s) = &inp.body else { panic!() };
        let got: Vec<_> = s
            .requests
            .iter()
            // `line`: the request mapping's first key.
            .map(|r| (r.index, r.body_format.as_str(), r.pointer.as_str(), r.response_id.as_deref(), r.line))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "anthropic-messages", "/interactions/0/request/parsed_body", None, Some(3)),
                // Gzip'd JSON under `!!binary`; its gzip'd response holds the id.
                (2, "anthropic-messages", "/interactions/2/request/body/string", Some("msg_02"), Some(46)),
                (4, "anthropic-messages", "/interactions/4/request/parsed_body", Some("msg_04"), Some(78)),
            ]
        );
        assert_eq!(
            s.requests[1].at(&s.requests[1].messages[2].pointer),
            "/interactions/2/request/body/string/messages/2"
        );
        assert_eq!(&*s.requests[1].messages[2].blocks[0].text, "And of Germany?");
    }

    #[test]
    fn broken_json_request_bodies_are_named_and_other_bodies_are_not() {
        let y = r#"interactions:
- request:
    body: '{"messages": [{"role": "user", "content": "cut'
    method: POST
    uri: https://api.anthropic.com/v1/messages
- request:
    body: grant_type=refresh_token&client_secret=scrubbed
    method: POST
    uri: https://oauth2.googleapis.com/token
- request:
    body: "--b0\r\nContent-Disposition: form-data; name=sdp\r\n\r\nv=0\r\n--b0--\r\n"
    method: POST
    uri: https://api.openai.com/v1/realtime/calls
- request:
    body:
      string: !!binary |
        B64JSON
    method: POST
    uri: https://api.anthropic.com/v1/messages
- request:
    body:
      string: !!binary |
        BADGZ
    method: POST
    uri: https://api.anthropic.com/v1/messages
- request:
    body: '{"messages": [{"role": "user", "content": "cut'
    method: POST
    uri: https://api.anthropic.com/v1/messages/count_tokens
- request:
    body:
      string: !!binary |
        GOODGZ
    method: POST
    uri: https://api.anthropic.com/v1/messages
- request:
    body: !!binary |
      eyJtb2RlbCI6ICJncHQtNG8iLCAibWVz*2FnZXMiOiBbXX0=
    method: POST
    uri: https://api.openai.com/v1/chat/completions
- request:
    body: !!binary |
      CmAKXApaV2hhdCBpcyB0aGUgY2FwaXRhbCBvZiBGcmFuY2U/EAESG2NsYXVkZYoBU/8=
    method: POST
    uri: https://api.openai.com/v1/chat/completions
version: 1
"#
        .replace("B64JSON", "eyJtZXNzYWdlcyI6IFt7InJvbGUiOiAidXNlciI=")
        .replace("BADGZ", "H4sIACB9D2sC/6tWys1PAAAAslLKVdJRyk0tLk5M")
        .replace(
            "GOODGZ",
            "H4sIACB9D2sC/6tWys1PSc1RslLKVdJRyk0tLk5MTy1WsoquVirKz0kFipcWpxYBpZLz80pS80qAAhmZSrWxtQDvNcJUOQAAAA==",
        );
        let inp = load_str(&y);
        let got: Vec<(Option<u32>, &str, &str)> =
            inp.unread.iter().map(|u| (u.line, u.pointer.as_str(), u.what.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (
                    Some(3),
                    "/interactions/0/request/body",
                    "its request body is JSON that does not parse: EOF while parsing a string at line 1 column 46"
                ),
                (
                    Some(15),
                    "/interactions/3/request/body/string",
                    "its base64-encoded request body is JSON that does not parse"
                ),
                (
                    Some(21),
                    "/interactions/4/request/body/string",
                    "its request body is a gzip'd payload that does not decompress"
                ),
                // A `!!binary` body whose base64 is broken (`*`), sent to a model endpoint.
                (
                    Some(37),
                    "/interactions/7/request/body",
                    "its request body to a model endpoint is neither JSON nor a valid base64 (`!!binary`) payload"
                ),
            ]
        );
        // Form-encoded, multipart, token-counting and protobuf (valid base64,
        // not JSON) exchanges are skipped quietly; the gzip'd JSON one is read.
        assert_eq!(inp.skipped, 8);
        assert_eq!(inp.request_count(), 1);
    }

    #[test]
    fn base64_and_gzip_payloads() {
        assert_eq!(decode_binary("YXBwbGljYXRp\n  b24vanNvbg==\n").as_deref(), Some(&b"application/json"[..]));
        assert_eq!(decode_binary("YXR0ZW1wdD0x").as_deref(), Some(&b"attempt=1"[..]));
        // Not base64: JSON text, a URL, a bad length, padding inside.
        assert_eq!(decode_binary("{\"a\": 1}"), None);
        assert_eq!(decode_binary("https://x/y"), None);
        assert_eq!(decode_binary("YXR0ZW1wdD0"), None);
        assert_eq!(decode_binary("YQ==YQ=="), None);
        assert_eq!(decode_binary(""), None);
        // gzip("{}"), as Python's gzip.compress(b"{}", mtime=0) writes it.
        assert_eq!(decode_binary("H4sIAAAAAAACA6uuBQBDv6ajAgAAAA==").as_deref(), Some(&b"{}"[..]));
        assert_eq!(json_text("H4sIAAAAAAACA6uuBQBDv6ajAgAAAA=="), Some(serde_json::json!({})));
    }

    #[test]
    fn token_counting_is_skipped() {
        let y = "interactions:\n- request:\n    method: POST\n    parsed_body:\n      messages:\n      - content: [{type: text, text: hi}]\n        role: user\n      model: claude-sonnet-4-5\n    uri: https://api.anthropic.com/v1/messages/count_tokens\n";
        let inp = load_str(y);
        assert_eq!(inp.skipped, 1);
        assert_eq!(inp.request_count(), 0);
    }

    #[test]
    fn locates_pointers_in_block_yaml() {
        let y = "interactions:\n- request:\n    headers:\n      accept:\n      - application/json\n    parsed_body:\n      messages:\n      - content:\n        - text: hi\n          type: text\n        role: user\n      - content: yo\n        role: assistant\n      model: m\n    uri: https://x/v1/messages\n- request:\n    body: '{\"a\": 1}'\n";
        assert_eq!(locate_line(y, "/interactions/0/request"), Some(2));
        assert_eq!(locate_line(y, "/interactions/0/request/parsed_body"), Some(6));
        assert_eq!(locate_line(y, "/interactions/0/request/parsed_body/messages/0/content/0"), Some(9));
        assert_eq!(locate_line(y, "/interactions/0/request/parsed_body/messages/0/role"), Some(11));
        assert_eq!(locate_line(y, "/interactions/0/request/parsed_body/messages/1"), Some(12));
        assert_eq!(locate_line(y, "/interactions/0/request/parsed_body/model"), Some(14));
        assert_eq!(locate_line(y, "/interactions/1/request/body/messages/0"), Some(17));
    }

    #[test]
    fn uri_paths() {
        assert_eq!(uri_path("https://api.anthropic.com/v1/messages?beta=true"), "/v1/messages");
        assert_eq!(uri_path("https://h"), "/");
        assert_eq!(uri_path("/v1/x"), "/v1/x");
    }
}
