//! Attribute values as records carry them (OTLP `AnyValue` objects, or plain
//! JSON in the SDK dumps), decoded, and the pointer in the file's record of
//! an element inside a decoded value: through OTLP `arrayValue` /
//! `kvlistValue` wrappers and on into a JSON string.

use crate::model::*;
use serde_json::{Map, Value};

/// How attribute values are encoded in a record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Enc {
    /// OTLP `AnyValue` objects.
    Otlp,
    /// Plain JSON values (SDK dumps).
    Plain,
}

/// One attribute: its key, raw value and the pointer of that raw value.
pub(super) struct Attr<'a> {
    pub(super) key: &'a str,
    pub(super) raw: &'a Value,
    pub(super) ptr: String,
}

/// A step of a logical path into a decoded attribute value.
#[derive(Clone)]
pub(super) enum Seg<'a> {
    Idx(usize),
    Key(&'a str),
}

fn path_str(path: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for p in path {
        s = match p {
            Seg::Idx(i) => ptr_idx(&s, *i),
            Seg::Key(k) => ptr_join(&s, k),
        };
    }
    s
}

/// The pointer, in the file's record, of the element at `path` inside the
/// decoded value of an attribute whose raw value is `raw` at `base`: through
/// OTLP `arrayValue`/`kvlistValue` wrappers, and on into a JSON string.
pub(super) fn ptr_into(enc: Enc, raw: &Value, base: &str, path: &[Seg<'_>]) -> String {
    if enc == Enc::Plain {
        return format!("{base}{}", path_str(path));
    }
    if raw.get("stringValue").is_some() {
        return format!("{base}/stringValue{}", path_str(path));
    }
    let Some(first) = path.first() else { return base.to_string() };
    if let Some(vals) = raw.get("arrayValue").and_then(|a| a.get("values")).and_then(Value::as_array) {
        if let Seg::Idx(i) = *first {
            if let Some(v) = vals.get(i) {
                return ptr_into(enc, v, &format!("{base}/arrayValue/values/{i}"), &path[1..]);
            }
        }
    }
    if let Some(vals) = raw.get("kvlistValue").and_then(|a| a.get("values")).and_then(Value::as_array) {
        if let Seg::Key(k) = *first {
            if let Some((n, kv)) =
                vals.iter().enumerate().find(|(_, kv)| kv.get("key").and_then(Value::as_str) == Some(k))
            {
                if let Some(v) = kv.get("value") {
                    return ptr_into(enc, v, &format!("{base}/kvlistValue/values/{n}/value"), &path[1..]);
                }
            }
        }
    }
    base.to_string()
}

/// An OTLP `AnyValue` as plain JSON (`intValue` strings become numbers).
fn any_to_json(v: &Value) -> Value {
    let Some(o) = v.as_object() else { return v.clone() };
    if let Some(s) = o.get("stringValue") {
        return s.clone();
    }
    if let Some(b) = o.get("boolValue") {
        return b.clone();
    }
    if let Some(i) = o.get("intValue") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(Value::from).unwrap_or_else(|_| i.clone()),
            other => other.clone(),
        };
    }
    if let Some(d) = o.get("doubleValue") {
        return d.clone();
    }
    if let Some(b) = o.get("bytesValue") {
        return b.clone();
    }
    if let Some(a) = o.get("arrayValue") {
        let vals = a.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        return Value::Array(vals.iter().map(any_to_json).collect());
    }
    if let Some(kv) = o.get("kvlistValue") {
        let mut m = Map::new();
        for e in kv.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(k) = e.get("key").and_then(Value::as_str) {
                m.insert(k.to_string(), e.get("value").map(any_to_json).unwrap_or(Value::Null));
            }
        }
        return Value::Object(m);
    }
    Value::Null
}

/// The decoded value of an attribute: OTLP wrappers removed and a string
/// holding JSON (an array or object) parsed.
pub(super) fn decode(enc: Enc, raw: &Value) -> Value {
    let v = if enc == Enc::Otlp { any_to_json(raw) } else { raw.clone() };
    match &v {
        Value::String(s) if matches!(s.trim_start().as_bytes().first(), Some(b'[' | b'{')) => {
            serde_json::from_str(s).unwrap_or(v)
        }
        _ => v,
    }
}

/// The attributes of a span or log record at `base`.
pub(super) fn attrs<'a>(enc: Enc, rec: &'a Value, base: &str) -> Vec<Attr<'a>> {
    let ap = ptr_join(base, "attributes");
    match (enc, rec.get("attributes")) {
        (Enc::Otlp, Some(Value::Array(a))) => a
            .iter()
            .enumerate()
            .filter_map(|(i, kv)| {
                let key = kv.get("key")?.as_str()?;
                Some(Attr { key, raw: kv.get("value")?, ptr: format!("{ap}/{i}/value") })
            })
            .collect(),
        (Enc::Plain, Some(Value::Object(m))) => {
            m.iter().map(|(k, v)| Attr { key: k.as_str(), raw: v, ptr: ptr_join(&ap, k) }).collect()
        }
        _ => Vec::new(),
    }
}

pub(super) fn attr_str(enc: Enc, a: &[Attr<'_>], key: &str) -> Option<String> {
    let at = a.iter().find(|x| x.key == key)?;
    match decode(enc, at.raw) {
        Value::String(s) if !s.trim().is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
