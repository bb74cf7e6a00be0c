//! Fast, stable 64-bit hashes for duplicate detection (xxh3, via `xxhash-rust`),
//! and the canonical JSON hash used to compare elements "by what is sent"
//! (key order, whitespace between tokens and `cache_control` markers ignored;
//! text inside strings compared byte for byte — docs/spec.md §2 must-not-fire list).

use serde_json::Value;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// Hash of a byte string.
pub fn hash_bytes(b: &[u8]) -> u64 {
    xxh3_64(b)
}

/// Hash of a string.
pub fn hash_str(s: &str) -> u64 {
    xxh3_64(s.as_bytes())
}

/// Canonical hash of a JSON value: object keys sorted, whitespace irrelevant,
/// keys listed in `ignore` skipped at every depth (e.g. `cache_control`).
pub fn canonical_hash(v: &Value, ignore: &[&str]) -> u64 {
    let mut h = Xxh3::new();
    feed(&mut h, v, ignore);
    h.digest()
}

fn feed(h: &mut Xxh3, v: &Value, ignore: &[&str]) {
    match v {
        Value::Null => h.update(b"n"),
        Value::Bool(b) => h.update(if *b { b"t" } else { b"f" }),
        Value::Number(n) => {
            h.update(b"#");
            h.update(n.to_string().as_bytes());
        }
        Value::String(s) => {
            h.update(b"s");
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        Value::Array(a) => {
            h.update(b"[");
            h.update(&(a.len() as u64).to_le_bytes());
            for x in a {
                feed(h, x, ignore);
            }
        }
        Value::Object(m) => {
            // (Entries sorted by key, not keys then looked up: the map's
            // lookups hash each key with SipHash.)
            let mut entries: Vec<(&String, &Value)> = m.iter().filter(|(k, _)| !ignore.contains(&k.as_str())).collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            h.update(b"{");
            h.update(&(entries.len() as u64).to_le_bytes());
            for (k, v) in entries {
                h.update(&(k.len() as u64).to_le_bytes());
                h.update(k.as_bytes());
                feed(h, v, ignore);
            }
        }
    }
}

/// [`canonical_hash`] of an object whose values are all strings, given as
/// `(key, value)` pairs in key order (sorted, no key repeated, none to
/// ignore), without building the object: the canonical hash of
/// `{"text": t, "type": "text"}` for every string content read.
pub fn canonical_string_object_hash(sorted: &[(&str, &str)]) -> u64 {
    debug_assert!(sorted.windows(2).all(|w| w[0].0 < w[1].0), "keys in order");
    let mut h = Xxh3::new();
    h.update(b"{");
    h.update(&(sorted.len() as u64).to_le_bytes());
    for (k, v) in sorted {
        h.update(&(k.len() as u64).to_le_bytes());
        h.update(k.as_bytes());
        h.update(b"s");
        h.update(&(v.len() as u64).to_le_bytes());
        h.update(v.as_bytes());
    }
    h.digest()
}

/// Canonical JSON text (sorted keys, compact, `ignore` keys dropped), for diffs.
pub fn canonical_string(v: &Value, ignore: &[&str]) -> String {
    fn strip(v: &Value, ignore: &[&str]) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().filter(|k| !ignore.contains(&k.as_str())).collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), strip(&m[k.as_str()], ignore));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| strip(x, ignore)).collect()),
            x => x.clone(),
        }
    }
    serde_json::to_string_pretty(&strip(v, ignore)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_cache_control_do_not_matter() {
        let a = json!({"type":"text","text":"hi","cache_control":{"type":"ephemeral"}});
        let b = json!({"text":"hi","type":"text"});
        assert_eq!(canonical_hash(&a, &["cache_control"]), canonical_hash(&b, &["cache_control"]));
    }

    #[test]
    fn text_inside_strings_matters() {
        let a = json!({"text":"hi"});
        let b = json!({"text":"hi\n"});
        assert_ne!(canonical_hash(&a, &[]), canonical_hash(&b, &[]));
    }
}
