//! Spans and log events to model calls: an inference span, an
//! operation-details event or the per-message events of one span become one
//! request, located, grouped (by conversation, else trace) and named.

use super::ID;
use super::attrs::{Attr, Enc, attr_str, attrs, decode, ptr_into};
use super::messages::{answers_own_calls, legacy_message, openinference, semconv};
use crate::formats::body::*;
use crate::model::*;
use foldhash::HashMap;
use serde_json::Value;
use std::sync::Arc;

/// One model call being assembled.
pub(super) struct Call {
    pub(super) req: Request,
    pub(super) time: Option<i64>,
    /// The call carries prompt content (messages or system instructions).
    pub(super) content: bool,
    /// Its input holds the result of a tool call its own output makes: what
    /// the span recorded is not the request that was sent
    /// ([`answers_own_calls`]).
    pub(super) delta: bool,
    /// Per-message events: the next message index.
    events: usize,
}

/// What one file gives while it is read.
#[derive(Default)]
pub(super) struct State {
    pub(super) calls: Vec<Call>,
    /// (trace id, span id) → index in `calls`.
    by_span: HashMap<(String, String), usize>,
    /// Span names by (trace, span), for calls made from log events.
    names: HashMap<(String, String), String>,
    pub(super) skipped: usize,
    /// One copy of what the calls send again (each call is interned when it
    /// is made, and again at the end for the messages events added).
    pub(super) interner: Interner,
}

impl State {
    /// The calls, the count of records skipped and the interner, once the
    /// file is read: the span maps (one entry per span, keys owned) are
    /// dropped here, before the calls are turned into requests.
    pub(super) fn into_parts(self) -> (Vec<Call>, usize, Interner) {
        (self.calls, self.skipped, self.interner)
    }
}

/// Whether a `gen_ai.operation.name` may be a model call: any but the
/// operations that are not one (`invoke_agent`, `execute_tool`,
/// `embeddings`, `create_agent`, `invoke_workflow`, `retrieval`); the model
/// calls are `chat`, `text_completion` and `generate_content`, but an
/// instrumentation's own name (or none) with prompt content is read too.
fn is_inference_op(op: Option<&str>) -> bool {
    !matches!(
        op,
        Some("invoke_agent" | "execute_tool" | "embeddings" | "create_agent" | "invoke_workflow" | "retrieval")
    )
}

const CONTENT_KEYS: &[&str] = &["gen_ai.input.messages", "gen_ai.system_instructions"];

#[allow(clippy::too_many_arguments)]
pub(super) fn span(
    st: &mut State,
    path: &Arc<str>,
    enc: Enc,
    sp: &Value,
    base: &str,
    ids: (String, String),
    name: String,
    time: Option<i64>,
    failed: bool,
    line_of: &dyn Fn(&str) -> u32,
) {
    let a = attrs(enc, sp, base);
    st.names.insert(ids.clone(), name.clone());
    let op = attr_str(enc, &a, "gen_ai.operation.name");
    let oi_llm = attr_str(enc, &a, "openinference.span.kind").as_deref() == Some("LLM")
        || a.iter().any(|x| x.key.starts_with("llm.input_messages."));
    let genai = a.iter().any(|x| CONTENT_KEYS.contains(&x.key));
    if oi_llm && !genai {
        let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
        let content = openinference(&mut req, enc, &a);
        if failed {
            req.outcome = Some(Outcome::PromptError);
        }
        push_call(st, ids, Call { req, time, content, delta: false, events: 0 });
        return;
    }
    let inference = is_inference_op(op.as_deref()) && (genai || op.is_some());
    if !inference {
        st.skipped += 1;
        return;
    }
    if let Some(&i) = st.by_span.get(&ids) {
        // An earlier operation-details event or per-message events for this span.
        let c = &mut st.calls[i];
        if failed {
            c.req.outcome = Some(Outcome::PromptError);
        }
        if !c.content && genai {
            let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
            semconv(&mut req, enc, &a);
            req.outcome = c.req.outcome;
            c.delta = answers_own_calls(enc, &a, &req);
            c.req = req;
            c.content = true;
            c.time = time.or(c.time);
        } else {
            c.req.label = Some(label(&name, &ids));
            c.time = time.or(c.time);
        }
        return;
    }
    // An inference span without content is kept as a placeholder: per-message
    // events or an operation-details event of the same span may carry it
    // (written before the span ends, or after it by another exporter).
    let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
    semconv(&mut req, enc, &a);
    if failed {
        req.outcome = Some(Outcome::PromptError);
    }
    let delta = answers_own_calls(enc, &a, &req);
    push_call(st, ids, Call { req, time, content: genai, delta, events: 0 });
}

fn push_call(st: &mut State, ids: (String, String), mut c: Call) {
    st.interner.request(&mut c.req);
    if !ids.1.is_empty() {
        st.by_span.insert(ids, st.calls.len());
    }
    st.calls.push(c);
}

/// How findings name a span; the ids are quoted, so that `repro`'s message
/// skeleton (quoted text and digits aside) survives anonymised ids.
fn label(name: &str, ids: &(String, String)) -> Box<str> {
    let name = if name.is_empty() { "(unnamed)" } else { name };
    format!("span `{name}` (trace `{}`, span `{}`)", ids.0, ids.1).into()
}

/// A request for one call, with its grouping and location facts.
fn new_call(
    path: &Arc<str>,
    enc: Enc,
    a: &[Attr<'_>],
    base: &str,
    ids: &(String, String),
    name: &str,
    line_of: &dyn Fn(&str) -> u32,
) -> Request {
    let mut r = new_request(path, ID, 0, base);
    let anchor = a
        .iter()
        .find(|x| x.key == "gen_ai.input.messages" || x.key.starts_with("llm.input_messages."))
        .map(|x| ptr_into(enc, x.raw, &x.ptr, &[]))
        .unwrap_or_else(|| base.to_string());
    r.line = Some(line_of(&anchor));
    r.session_id = Some(match attr_str(enc, a, "gen_ai.conversation.id").or_else(|| attr_str(enc, a, "session.id")) {
        Some(c) => c.into(),
        None => format!("trace:{}", ids.0).into(),
    });
    let provider = attr_str(enc, a, "gen_ai.provider.name")
        .or_else(|| attr_str(enc, a, "gen_ai.system"))
        .or_else(|| attr_str(enc, a, "llm.provider"))
        .or_else(|| attr_str(enc, a, "llm.system"));
    let model = attr_str(enc, a, "gen_ai.request.model").or_else(|| attr_str(enc, a, "llm.model_name"));
    r.endpoint = match (provider, model) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}").into()),
        (p, m) => p.or(m).map(Into::into),
    };
    r.response_id = attr_str(enc, a, "gen_ai.response.id").map(Into::into);
    r.label = Some(label(name, ids));
    r
}

/// A log record: an operation-details event (a whole call) or a per-message event.
#[allow(clippy::too_many_arguments)]
pub(super) fn log(
    st: &mut State,
    path: &Arc<str>,
    enc: Enc,
    lr: &Value,
    base: &str,
    ids: (String, String),
    event: Option<String>,
    time: Option<i64>,
    line_of: &dyn Fn(&str) -> u32,
) {
    let a = attrs(enc, lr, base);
    let event = event.filter(|e| !e.is_empty()).or_else(|| attr_str(enc, &a, "event.name"));
    let Some(event) = event else {
        st.skipped += 1;
        return;
    };
    let name = st.names.get(&ids).cloned().unwrap_or_default();
    if event == "gen_ai.client.inference.operation.details" {
        let genai = a.iter().any(|x| CONTENT_KEYS.contains(&x.key));
        let known = st.by_span.get(&ids).copied();
        if !genai || known.is_some_and(|i| st.calls[i].content) {
            // No content, or the span carried it too (`span_and_event`): one call.
            st.skipped += 1;
            return;
        }
        let mut req = new_call(path, enc, &a, base, &ids, &name, line_of);
        semconv(&mut req, enc, &a);
        let delta = answers_own_calls(enc, &a, &req);
        match known {
            // The span came first (without content): the event is its content.
            Some(i) => {
                let c = &mut st.calls[i];
                req.outcome = c.req.outcome;
                c.req = req;
                c.content = true;
                c.delta = delta;
            }
            None => push_call(st, ids, Call { req, time, content: true, delta, events: 0 }),
        }
        return;
    }
    let role = match event.as_str() {
        "gen_ai.system.message" => "system",
        "gen_ai.user.message" => "user",
        "gen_ai.assistant.message" => "assistant",
        "gen_ai.tool.message" => "tool",
        _ => {
            // `gen_ai.choice` (the output), `gen_ai.evaluation.result`, others.
            st.skipped += 1;
            return;
        }
    };
    let body_ptr = ptr_join(base, "body");
    let raw = lr.get("body").unwrap_or(&Value::Null);
    let body = decode(enc, raw);
    let i = match st.by_span.get(&ids) {
        Some(&i) if !st.calls[i].content || st.calls[i].events > 0 => i,
        _ => {
            let req = new_call(path, enc, &a, base, &ids, &name, line_of);
            push_call(st, ids.clone(), Call { req, time, content: false, delta: false, events: 0 });
            st.calls.len() - 1
        }
    };
    let at = Attr { key: "body", raw, ptr: body_ptr };
    let c = &mut st.calls[i];
    if c.events == 0 {
        // The request is located at its first event.
        c.req.line = Some(line_of(base));
        c.req.pointer = base.to_string();
    }
    c.events += 1;
    if let Some(msg) = legacy_message(enc, &at, role, &body) {
        c.req.messages.push(Arc::new(msg));
        c.content = true;
    }
}
