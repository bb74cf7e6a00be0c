//! The token usage providers report, in each shape a recording carries it,
//! converted to [`Usage`] (whose `input` never counts cached tokens).
//!
//! | shape | fields | `input` counts cached? | source |
//! |---|---|---|---|
//! | Anthropic Messages `usage` (Claude Code records it as is) | `input_tokens`, `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`, `cache_creation.ephemeral_1h_input_tokens` | no | Anthropic API reference, Messages: `usage`; prompt caching guide |
//! | OpenAI Chat Completions `usage` | `prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens` | yes | OpenAI API reference, chat object `usage` |
//! | OpenAI Responses `usage` (Codex `token_count` events carry the same counts) | `input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens` | yes | OpenAI API reference, response object `usage`; openai/codex `codex-rs/protocol/src/protocol.rs` `TokenUsage` |
//! | Gemini `usageMetadata` | `promptTokenCount`, `candidatesTokenCount`, `cachedContentTokenCount`, `thoughtsTokenCount` | yes | Gemini API reference, `UsageMetadata` |
//! | Bedrock Converse `usage` | `inputTokens`, `outputTokens`, `cacheReadInputTokens`, `cacheWriteInputTokens` | no | AWS Bedrock API reference, `TokenUsage` |
//! | pi-ai `usage` (pi/OpenClaw sessions, OpenClaw trajectories) | `input`, `output`, `cacheRead`, `cacheWrite` | no | pi-mono `packages/ai/src/types.ts` `Usage` |
//!
//! A streamed response body (`data:` events) is read event by event and the
//! counts merged by maximum: Anthropic's `message_start` carries the input
//! counts and `message_delta` the output, OpenAI's last chunk and a
//! Responses `response.completed` event the whole usage, Gemini's chunks
//! running totals.

use crate::model::Usage;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// A token count as a typed loader reads it: any JSON value, a number kept,
/// anything else read as not recorded — a usage field of the wrong type never
/// costs the line it is on.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Count(pub Option<f64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a token count")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                Ok(Count(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(Some(v as f64)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Count, D::Error> {
                Count::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A JSON object read as `T`, anything else (a list, a string, `null`) as
/// `None`, so that a usage object of the wrong shape is not recorded instead
/// of being read by position or failing its line. `T`'s own fields must not
/// fail (use [`Count`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectOnly<T>(pub Option<T>);

impl<T> Default for ObjectOnly<T> {
    fn default() -> Self {
        ObjectOnly(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ObjectOnly<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<ObjectOnly<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(a)).map(|t| ObjectOnly(Some(t)))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<ObjectOnly<T>, D::Error> {
                ObjectOnly::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ObjectOnly<T>, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ObjectOnly(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ObjectOnly<T>, E> {
                Ok(ObjectOnly(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A token count from JSON: a finite, non-negative number, capped at `u32::MAX`.
pub fn count(v: Option<&Value>) -> u32 {
    v.and_then(Value::as_f64).filter(|x| x.is_finite() && *x >= 0.0).map_or(0, |x| x.min(u32::MAX as f64) as u32)
}

/// A token count from an optional number (typed loaders).
pub fn count_f64(x: Option<f64>) -> u32 {
    x.filter(|v| v.is_finite() && *v >= 0.0).map_or(0, |v| v.min(u32::MAX as f64) as u32)
}

/// A token count read by [`Count`].
pub fn count_of(c: Count) -> u32 {
    count_f64(c.0)
}

/// Splits a prompt count that includes cached tokens into (uncached,
/// cached), the cached part never more than the prompt.
pub fn split_cached(prompt: u32, cached: u32) -> (u32, u32) {
    let cached = cached.min(prompt);
    (prompt - cached, cached)
}

/// The usage object of one response (or one streamed event) in any shape
/// of the table above; `None` when it holds none or only zeros.
pub fn of_object(u: &Value) -> Option<Usage> {
    let o = u.as_object()?;
    let get = |k: &str| o.get(k);
    let out = if o.contains_key("promptTokenCount") || o.contains_key("candidatesTokenCount") {
        // Gemini: the prompt count includes the cached content.
        let prompt = count(get("promptTokenCount"));
        let cached = count(get("cachedContentTokenCount")).min(prompt);
        Usage {
            input: prompt - cached,
            cache_read: cached,
            output: count(get("candidatesTokenCount")).saturating_add(count(get("thoughtsTokenCount"))),
            ..Usage::default()
        }
    } else if o.contains_key("prompt_tokens") || o.contains_key("completion_tokens") {
        // OpenAI Chat Completions: the prompt count includes the cached tokens.
        let prompt = count(get("prompt_tokens"));
        let cached = count(get("prompt_tokens_details").and_then(|d| d.get("cached_tokens"))).min(prompt);
        Usage {
            input: prompt - cached,
            cache_read: cached,
            output: count(get("completion_tokens")),
            ..Usage::default()
        }
    } else if o.contains_key("inputTokens") || o.contains_key("outputTokens") {
        // Bedrock Converse: cached tokens counted apart.
        Usage {
            input: count(get("inputTokens")),
            cache_read: count(get("cacheReadInputTokens")),
            cache_write: count(get("cacheWriteInputTokens")),
            output: count(get("outputTokens")),
            ..Usage::default()
        }
    } else if o.contains_key("cache_read_input_tokens") || o.contains_key("cache_creation_input_tokens") {
        // Anthropic Messages: cached tokens counted apart.
        Usage {
            input: count(get("input_tokens")),
            cache_read: count(get("cache_read_input_tokens")),
            cache_write: count(get("cache_creation_input_tokens")),
            cache_write_1h: count(get("cache_creation").and_then(|c| c.get("ephemeral_1h_input_tokens"))),
            output: count(get("output_tokens")),
        }
    } else if o.contains_key("input_tokens") || o.contains_key("output_tokens") {
        // OpenAI Responses (cached tokens inside the input count), or an
        // Anthropic usage without cache fields (nothing cached: the same).
        let prompt = count(get("input_tokens"));
        let cached = count(get("input_tokens_details").and_then(|d| d.get("cached_tokens"))).min(prompt);
        Usage { input: prompt - cached, cache_read: cached, output: count(get("output_tokens")), ..Usage::default() }
    } else if o.contains_key("input") || o.contains_key("cacheRead") {
        // pi-ai.
        Usage {
            input: count(get("input")),
            cache_read: count(get("cacheRead")),
            cache_write: count(get("cacheWrite")),
            output: count(get("output")),
            ..Usage::default()
        }
    } else {
        return None;
    };
    (!out.is_empty()).then_some(out)
}

/// The usage and model of a response body (a JSON value): its `usage`,
/// `usageMetadata`, `message.usage` or `response.usage`, and `model`,
/// `modelVersion`, `message.model` or `response.model`.
pub fn of_response(v: &Value) -> (Option<Usage>, Option<&str>) {
    let usage = ["usage", "usageMetadata"]
        .iter()
        .find_map(|k| v.get(*k))
        .or_else(|| v.get("message").and_then(|m| m.get("usage")))
        .or_else(|| v.get("response").and_then(|m| m.get("usage")))
        .and_then(of_object);
    let model = ["model", "modelVersion"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .or_else(|| v.get("message").and_then(|m| m.get("model")).and_then(Value::as_str))
        .or_else(|| v.get("response").and_then(|m| m.get("model")).and_then(Value::as_str))
        .filter(|m| !m.trim().is_empty());
    (usage, model)
}

/// Merges two readings of one call's usage (streamed events) by maximum.
pub fn merge(a: Option<Usage>, b: Option<Usage>) -> Option<Usage> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Usage {
            input: a.input.max(b.input),
            cache_read: a.cache_read.max(b.cache_read),
            cache_write: a.cache_write.max(b.cache_write),
            cache_write_1h: a.cache_write_1h.max(b.cache_write_1h),
            output: a.output.max(b.output),
        }),
        (a, b) => a.or(b),
    }
}

/// What a recorded response says of its call: its id (to chain
/// `previous_response_id`), its usage and the model that answered.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Response {
    /// JSON `id`, `responseId` or `response.id`.
    pub id: Option<Box<str>>,
    /// Its usage, in any shape [`of_object`] reads.
    pub usage: Option<Usage>,
    /// Its model ([`of_response`]).
    pub model: Option<Box<str>>,
    /// What it answered ([`super::reply`]).
    pub reply: crate::model::Reply,
}

fn id_of(v: &Value) -> Option<Box<str>> {
    v.get("id")
        .or_else(|| v.get("responseId"))
        .or_else(|| v.get("response").and_then(|r| r.get("id")))
        .and_then(Value::as_str)
        .map(Into::into)
}

impl Response {
    /// A response body read as a JSON value.
    pub fn of_value(v: &Value) -> Response {
        let (usage, model) = of_response(v);
        let mut reply = crate::model::Reply::default();
        super::reply::add(v, &mut reply);
        Response { id: id_of(v), usage, model: model.map(Into::into), reply }
    }

    /// A response body given as text, parsed once: one JSON document, or a
    /// stream of `data:` events (the first id and model; the usage merged,
    /// see the module docs).
    pub fn of_text(text: &str) -> Response {
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            return Response::of_value(&v);
        }
        let mut out = Response::default();
        for v in text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        {
            let r = Response::of_value(&v);
            out.usage = merge(out.usage, r.usage);
            out.id = out.id.or(r.id);
            out.model = out.model.or(r.model);
            out.reply.tool_ids.extend(r.reply.tool_ids);
            out.reply.texts.extend(r.reply.texts);
            out.reply.lines.extend(r.reply.lines);
        }
        out
    }
}

/// The usage and model of a response body given as text ([`Response::of_text`]).
pub fn of_response_text(text: &str) -> (Option<Usage>, Option<Box<str>>) {
    let r = Response::of_text(text);
    (r.usage, r.model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_counts_input_without_the_cached_tokens() {
        let a = json!({"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20,
                       "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 20}});
        assert_eq!(
            of_object(&a),
            Some(Usage { input: 10, cache_read: 100, cache_write: 20, cache_write_1h: 20, output: 5 })
        );
        let chat =
            json!({"prompt_tokens": 120, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 100}});
        assert_eq!(of_object(&chat), Some(Usage { input: 20, cache_read: 100, output: 7, ..Usage::default() }));
        let resp = json!({"input_tokens": 120, "output_tokens": 7, "input_tokens_details": {"cached_tokens": 64}});
        assert_eq!(of_object(&resp), Some(Usage { input: 56, cache_read: 64, output: 7, ..Usage::default() }));
        let gem = json!({"promptTokenCount": 300, "candidatesTokenCount": 9, "cachedContentTokenCount": 256, "thoughtsTokenCount": 3});
        assert_eq!(of_object(&gem), Some(Usage { input: 44, cache_read: 256, output: 12, ..Usage::default() }));
        let bed = json!({"inputTokens": 4, "outputTokens": 2, "cacheReadInputTokens": 8, "cacheWriteInputTokens": 16});
        assert_eq!(
            of_object(&bed),
            Some(Usage { input: 4, cache_read: 8, cache_write: 16, output: 2, ..Usage::default() })
        );
        let pi = json!({"input": 3, "output": 4, "cacheRead": 5, "cacheWrite": 6, "totalTokens": 18});
        assert_eq!(
            of_object(&pi),
            Some(Usage { input: 3, cache_read: 5, cache_write: 6, output: 4, ..Usage::default() })
        );
        assert_eq!(of_object(&json!({"input_tokens": 0})), None);
        // A cached count larger than the prompt is the prompt.
        let over = json!({"prompt_tokens": 100, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 1000000000}});
        assert_eq!(of_object(&over), Some(Usage { input: 0, cache_read: 100, output: 1, ..Usage::default() }));
        assert_eq!(of_object(&json!({"prompt_tokens": -3, "completion_tokens": "x"})), None);
    }

    #[test]
    fn fields_of_the_wrong_type_are_not_recorded_and_do_not_fail() {
        #[derive(serde::Deserialize)]
        struct U {
            #[serde(default)]
            input: Count,
            #[serde(default)]
            nested: ObjectOnly<std::collections::BTreeMap<String, Count>>,
        }
        #[derive(serde::Deserialize)]
        struct Line {
            #[serde(default)]
            usage: ObjectOnly<U>,
        }
        let read =
            |s: &str| serde_json::from_str::<Line>(s).unwrap().usage.0.map(|u| (u.input.0, u.nested.0.is_some()));
        assert_eq!(read(r#"{"usage":{"input":"10","nested":"x"}}"#), Some((None, false)));
        assert_eq!(read(r#"{"usage":{"input":[1],"nested":{"a":{"b":1}}}}"#), Some((None, true)));
        assert_eq!(read(r#"{"usage":{"input":7.5}}"#), Some((Some(7.5), false)));
        assert_eq!(read(r#"{"usage":[1,2,3]}"#), None);
        assert_eq!(read(r#"{"usage":"NaN"}"#), None);
        assert_eq!(read(r#"{"usage":null}"#), None);
    }

    #[test]
    fn a_streamed_anthropic_body_merges_start_and_delta() {
        let text = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":900,\"cache_creation_input_tokens\":0,\"output_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":42}}\n";
        let (u, m) = of_response_text(text);
        assert_eq!(u, Some(Usage { input: 12, cache_read: 900, output: 42, ..Usage::default() }));
        assert_eq!(m.as_deref(), Some("claude-sonnet-4-5"));
    }
}
