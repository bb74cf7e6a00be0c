//! What each defect cost: the tokens it adds or forces to be sent again, the
//! provider's recorded usage around it, whether that usage confirms it, and
//! an estimated cost in USD (docs/spec.md §4 `impact`); and per input, the
//! recorded usage's totals and the cache breaks no finding explains.
//!
//! The model: every input is a list of **calls** — a transcript's steps
//! (model calls), a stream's requests — each with the usage the provider
//! reported for it (when recorded: [`crate::model::Usage`]), the model that
//! answered and when it was sent. A finding's `request` names its call.
//!
//! - A second visible reply ([`Effect::ExtraCall`], `duplicate-reply`) costs
//!   the whole call that made it, from its recorded usage (no usage: no
//!   impact known).
//! - A defect that **adds** text ([`Effect::Added`]: a duplicated system
//!   event, context block or system prompt) costs the tokens of one more
//!   copy, estimated from its bytes (÷ 4, [`BYTES_PER_TOKEN`]), sent once at
//!   the input price. The recorded usage **confirms** it when the prompt grew
//!   from the previous call by at least half that many tokens (or, for a
//!   first call, holds them), and refutes it when it did not.
//! - A defect that **breaks the prompt cache** ([`Effect::CacheBreak`]: a
//!   history rewrite, a dropped system prompt) forces what followed the
//!   break to be sent again instead of read from the cache. With recorded
//!   usage, the tokens are the cached prefix lost: what the previous call had
//!   in the cache (`cache_read + cache_write`) less what this call read; the
//!   usage confirms the break when that loss is at least a tenth of the
//!   prefix, and refutes it when the read did not fall (or barely). Without
//!   usage the tokens are estimated from the bytes of the previous request
//!   after the break. The cost is those tokens at the cache-write price less
//!   the cache-read price. Where the usage shows no cache in use (nothing
//!   read or written before: a prefix under the provider's minimum, or no
//!   caching), nothing was re-sent because of it: 0 tokens, cost 0, and
//!   `confirmed` is `null` (the usage cannot say what the break will cost
//!   once the prefix is cached).
//!
//! A usage that sums a whole run's calls (an OpenClaw trajectory's
//! `model.completed`) counts in the totals but confirms or refutes nothing.
//!
//! Unexplained cache breaks: a call whose cache read fell below half of what
//! the previous call on its path left in the cache (and by 1,024 tokens or
//! more), sent within the provider's cache lifetime after it, with the same
//! model, no compaction between and no finding at that call that breaks the
//! cache. Only Anthropic's own API promises a hit within the lifetime
//! ([`lifetime`]: 5 minutes, or one hour once the session writes one-hour
//! entries); other providers' calls are not judged, nor are calls without
//! timestamps (most cassettes).

pub mod prices;

use crate::finding::Finding;
use crate::model::{Body, Class, Input, Parent, Stream, Transcript, Usage};
use crate::rule_id::RuleId;
use prices::Prices;
use serde::Serialize;

/// Bytes per token for estimates (the usual rule of thumb for English text and code).
pub const BYTES_PER_TOKEN: u64 = 4;
/// The smallest fall of the cache read listed as an unexplained break (Anthropic caches prefixes of 1,024 tokens and more).
pub const MIN_CACHE_LOSS: u64 = 1024;

pub use crate::finding::{Effect, Impact};

/// A cache break that no finding explains.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheBreak {
    /// 0-based request or step index of the call whose cache read fell.
    pub request: usize,
    /// 1-based line of that call, when known.
    pub line: Option<u32>,
    /// Its entry id, when it has one.
    pub entry_id: Option<String>,
    /// The request or step index of the previous call on its path.
    pub previous: usize,
    /// What the previous call left in the cache (`cache_read + cache_write`).
    pub cached_before: u64,
    /// What this call read from the cache.
    pub cached_after: u64,
    /// Seconds between the two calls.
    pub seconds: u32,
    /// The model, when recorded.
    pub model: Option<String>,
}

/// The recorded usage of one input, summed over its calls (JSON `files[].usage`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct InputUsage {
    /// Calls with recorded usage.
    pub calls: usize,
    /// Uncached input tokens.
    pub input: u64,
    /// Input tokens read from the cache.
    pub cache_read: u64,
    /// Input tokens written to the cache.
    pub cache_write: u64,
    /// Output tokens.
    pub output: u64,
    /// `cache_read` ÷ all input tokens (`None` when there were none).
    pub cache_read_ratio: Option<f64>,
    /// Estimated cost of the calls in USD, over the calls whose model has a price.
    pub cost_usd: Option<f64>,
    /// Models with usage but no price (their calls are not in `cost_usd`).
    pub unpriced_models: Vec<String>,
    /// Calls with usage whose model has no price (not in `cost_usd`).
    pub unpriced_calls: usize,
    /// Cache breaks no finding explains.
    pub unexplained_cache_breaks: Vec<CacheBreak>,
}

/// An index a [`Call`] does not have (no model, no previous call, no entry).
const NONE: u32 = u32::MAX;

/// One call of an input (a step or a request), 52 bytes: a 300 MB session
/// has 122,000 of them, held while its rules run (88 bytes each with the
/// model and entry id as string slices and the previous call as a `usize`).
#[derive(Debug, Clone)]
struct Call {
    usage: Option<Usage>,
    /// The model, as an index into [`Calls::models`] ([`NONE`]: not recorded).
    model: u32,
    time: u32,
    /// The previous call on its path (index into the calls; [`NONE`]: none).
    prev: u32,
    /// A compaction lies between the previous call and this one.
    compacted: bool,
    /// `usage` is a whole run's ([`crate::model::Request::usage_is_run_total`]):
    /// summed, never compared with another call's.
    run_total: bool,
    line: Option<u32>,
    /// The transcript entry that opened the step ([`NONE`] for a request).
    entry: u32,
}

impl Default for Call {
    fn default() -> Call {
        Call {
            usage: None,
            model: NONE,
            time: 0,
            prev: NONE,
            compacted: false,
            run_total: false,
            line: None,
            entry: NONE,
        }
    }
}

impl Call {
    /// The previous call on its path.
    fn prev(&self) -> Option<usize> {
        (self.prev != NONE).then_some(self.prev as usize)
    }
}

/// The distinct model names of an input's calls, each once: a [`Call`]
/// holds its model's index (equal names, equal indices).
#[derive(Debug, Default)]
struct Models<'a> {
    names: Vec<&'a str>,
    index: foldhash::HashMap<&'a str, u32>,
}

impl<'a> Models<'a> {
    /// The index of `name`, added when new.
    fn of(&mut self, name: Option<&'a str>) -> u32 {
        let Some(name) = name else { return NONE };
        let next = self.names.len() as u32;
        let names = &mut self.names;
        *self.index.entry(name).or_insert_with(|| {
            names.push(name);
            next
        })
    }
}

/// The calls of an input by request index (docs/spec.md §4 `request`),
/// with their recorded usage: what [`assess`] reads. Built by [`Calls::of`]
/// without the findings, so the engine builds it beside the rules.
#[derive(Debug, Default)]
pub struct Calls<'a> {
    calls: Vec<Call>,
    /// The calls' model names ([`Call::model`]).
    models: Models<'a>,
    /// The transcript whose entries the calls' [`Call::entry`] index.
    transcript: Option<&'a Transcript>,
    /// The input records usage for at least one call.
    has_usage: bool,
    /// A transcript that records no usage, whose steps are numbered only if
    /// a finding needs its model ([`Calls::complete`]).
    later: Option<&'a Transcript>,
}

impl<'a> Calls<'a> {
    /// The calls of `input`. A stream's are its requests (with their models,
    /// for prices, even without usage); a transcript that records no usage
    /// is numbered later, only if a finding has an impact to price.
    /// A stream's links are read from (or computed into) `facts`.
    pub fn of(input: &'a Input, facts: &crate::conversation::Facts) -> Calls<'a> {
        let mut c = match &input.body {
            Body::Transcript(t) if !t.usage.iter().any(Option::is_some) => {
                return Calls { later: Some(t), ..Calls::default() };
            }
            Body::Transcript(t) => transcript_calls(t),
            Body::Stream(s) => stream_calls(s, facts),
        };
        c.has_usage = match &input.body {
            Body::Transcript(_) => true,
            Body::Stream(s) => s.requests.iter().any(|r| r.usage.is_some()),
        };
        c
    }

    /// Numbers a transcript's steps left for later ([`Calls::of`]).
    fn complete(&mut self) {
        if let Some(t) = self.later.take() {
            let c = transcript_calls(t);
            (self.calls, self.models, self.transcript) = (c.calls, c.models, c.transcript);
        }
    }
    fn get(&self, i: usize) -> Option<&Call> {
        self.calls.get(i)
    }
    /// The model of call `c`.
    fn model(&self, c: &Call) -> Option<&'a str> {
        self.models.names.get(c.model as usize).copied()
    }
    /// The id of the entry that opened call `c` (a transcript's step).
    fn entry_id(&self, c: &Call) -> Option<&'a str> {
        self.transcript?.entries.get(c.entry as usize)?.id.as_deref()
    }
    /// The usage of call `i` as one call's (`None` for a run's total).
    fn one(&self, i: usize) -> Option<Usage> {
        self.get(i).filter(|c| !c.run_total).and_then(|c| c.usage)
    }
}

/// The steps of a transcript as calls: numbered as
/// [`crate::analysis::entry_steps`] numbers them (model calls in write order,
/// the entries of one split call one step), each with the last usage
/// recorded on its entries, and its previous step along the parent chain.
fn transcript_calls(t: &Transcript) -> Calls<'_> {
    let mut step_of = vec![NONE; t.entries.len()];
    let mut calls: Vec<Call> = Vec::new();
    let mut models = Models::default();
    let mut first_entry: Vec<u32> = Vec::new();
    let steps = t.entries.iter().filter(|e| e.is_model_call).count();
    calls.reserve(steps);
    first_entry.reserve(steps);
    let mut group_step: foldhash::HashMap<&str, u32> = Default::default();
    for (i, e) in t.entries.iter().enumerate() {
        if !e.is_model_call {
            continue;
        }
        let s = match e.call_group() {
            Some(g) => *group_step.entry(g).or_insert(calls.len() as u32),
            None => calls.len() as u32,
        };
        if s as usize == calls.len() {
            calls.push(Call {
                time: e.time,
                line: Some(e.line),
                entry: i as u32,
                model: models.of(t.packed(e).and_then(|m| m.model())),
                ..Call::default()
            });
            first_entry.push(i as u32);
        }
        step_of[i] = s;
        // The last usage recorded on the step's entries wins: Claude Code
        // writes one line per content block of a response, each with the
        // usage as it stood, and only the last one holds the final output
        // count (ccusage reads the same way).
        let c = &mut calls[s as usize];
        if let Some(Some(u)) = t.usage.get(i) {
            c.usage = Some(*u);
            if let Some(Some(m)) = t.usage_models.get(i) {
                c.model = models.of(Some(m));
            }
        }
    }
    // The previous step on each step's path: up the parent chain from its first entry.
    for (s, &first) in first_entry.iter().enumerate() {
        let mut x = first;
        let mut compacted = false;
        for _ in 0..100_000 {
            let Parent::Entry(p) = t.entries[x as usize].parent else { break };
            let ps = step_of[p as usize];
            if ps != NONE && ps as usize != s {
                calls[s].prev = ps;
                break;
            }
            compacted |= t.entries[p as usize].class == Class::Compaction;
            x = p;
        }
        calls[s].compacted = compacted;
    }
    Calls { calls, models, transcript: Some(t), has_usage: false, later: None }
}

/// The requests of a stream as calls, by request index, each with the
/// request it continues (its conversation's previous request).
fn stream_calls<'a>(s: &'a Stream, facts: &crate::conversation::Facts) -> Calls<'a> {
    let n = s.requests.iter().map(|r| r.index + 1).max().unwrap_or(0);
    let mut calls: Vec<Call> = vec![Call::default(); n];
    let mut models = Models::default();
    for r in &s.requests {
        calls[r.index] = Call {
            usage: r.usage,
            model: models.of(r.model.as_deref()),
            time: r.time,
            line: r.line,
            run_total: r.usage_is_run_total,
            ..Call::default()
        };
    }
    if s.requests.iter().any(|r| r.usage.is_some()) {
        for (j, l) in facts.links(s).iter().enumerate() {
            if let crate::conversation::Link::Continues { prev, .. } = *l {
                calls[s.requests[j].index].prev = s.requests[prev].index as u32;
            }
        }
    }
    Calls { calls, models, transcript: None, has_usage: false, later: None }
}

/// How long a provider keeps a cached prefix, in seconds, for `model`
/// (`one_hour`: the session wrote one-hour entries); `None`: not judged.
///
/// Only Anthropic's own API is judged: a prefix read again within its
/// lifetime is read from the cache (Anthropic prompt caching guide: 5
/// minutes, refreshed on each read, or one hour for one-hour entries).
/// Elsewhere a hit is not promised, so a fall says nothing of the session:
/// OpenAI routes requests by a hash of the prefix and serves overflow from
/// machines without it (OpenAI prompt caching guide), Gemini's implicit
/// caching is best effort, and on Amazon Bedrock (model ids
/// `anthropic.claude-…`, `us.anthropic.…`) or Vertex AI the real OpenClaw
/// sessions read lost their cache within the lifetime on 5 % of calls with
/// nothing in the session to explain it, against 0.3 % of Claude Code's
/// calls on Anthropic's API.
pub fn lifetime(model: &str, one_hour: bool) -> Option<u32> {
    let m = model.to_ascii_lowercase();
    let elsewhere = ["bedrock", "vertex", "anthropic.claude", "openrouter"].iter().any(|p| m.contains(p));
    (m.contains("claude") && !elsewhere).then_some(if one_hour { 3600 } else { 300 })
}

/// Whether a rule's findings break the prompt cache at their call.
fn breaks_cache(r: RuleId) -> bool {
    matches!(r, RuleId::HistoryRewrite | RuleId::DroppedSystemPrompt | RuleId::NotAppendOnly)
}

/// What a finding does to the prompt: what its rule said, else, for the
/// duplicate rules, one more copy of the text it quotes, and for
/// `duplicate-reply` a whole extra call. A user turn written again
/// (`duplicate-user-turn`) has none: whether both copies are sent, and
/// whether the attempt after it is an extra call or the one that answers,
/// depends on the runtime (on the real OpenClaw sessions the prompt often
/// did not grow by the copy: the failed attempt's turn is not sent again).
fn effect_of(f: &Finding) -> Option<Effect> {
    f.effect.or_else(|| match f.rule {
        RuleId::DuplicateSystemEvent | RuleId::DuplicateContextBlock | RuleId::DuplicateSystemPrompt => {
            (f.text_bytes > 0).then_some(Effect::Added { bytes: f.text_bytes })
        }
        RuleId::DuplicateReply => Some(Effect::ExtraCall),
        _ => None,
    })
}

/// Fills in the `impact` of `findings` (one input's, whose calls are
/// `calls`: [`Calls::of`]) and gives the input's recorded usage, or `None`
/// when it records none.
pub fn assess(calls: &mut Calls<'_>, findings: &mut [Finding], prices: &Prices) -> Option<InputUsage> {
    if findings.iter().any(|f| effect_of(f).is_some()) {
        calls.complete();
    }
    let calls = &*calls;
    for f in findings.iter_mut() {
        let Some(effect) = effect_of(f) else { continue };
        f.impact = impact_of(effect, f.request, calls, prices);
    }
    calls.has_usage.then(|| usage_of(calls, findings, prices))
}

/// The impact of one effect at call `at` (`None`: nothing is known — an
/// extra call whose usage is not recorded).
fn impact_of(effect: Effect, at: Option<usize>, calls: &Calls<'_>, prices: &Prices) -> Option<Impact> {
    let cur = at.and_then(|i| calls.get(i));
    let model = cur.and_then(|c| calls.model(c));
    let price = model.and_then(|m| prices.of(m));
    Some(match effect {
        Effect::ExtraCall => {
            // The call was made and billed: its whole prompt and output.
            let u = at.and_then(|i| calls.one(i))?;
            Impact {
                tokens: u.prompt() + u.output as u64,
                estimated: false,
                // Of the call itself, not of a change between two calls.
                cached_before: None,
                cached_after: Some(u.cache_read as u64),
                confirmed: Some(true),
                cost_usd: price.map(|p| round8(p.cost(&u))),
            }
        }
        Effect::Added { bytes } => {
            let tokens = bytes.div_ceil(BYTES_PER_TOKEN);
            let (before, after) = (cur.and_then(Call::prev).and_then(|p| calls.one(p)), at.and_then(|i| calls.one(i)));
            let confirmed = match (cur.and_then(Call::prev), before, after) {
                (_, Some(b), Some(a)) => Some(a.prompt().saturating_sub(b.prompt()) * 2 >= tokens),
                (None, _, Some(a)) => Some(a.prompt() >= tokens),
                _ => None,
            };
            Impact {
                tokens,
                estimated: true,
                cached_before: before.map(|u| u.cache_read as u64),
                cached_after: after.map(|u| u.cache_read as u64),
                confirmed,
                cost_usd: price.map(|p| round8(tokens as f64 * p.input / 1e6)),
            }
        }
        Effect::CacheBreak { bytes, before } => {
            let prev = calls.one(before);
            let after = at.and_then(|i| calls.one(i));
            let estimate = bytes.div_ceil(BYTES_PER_TOKEN);
            // `no_cache`: the usage shows no cache in use (nothing read or
            // written before): nothing was re-sent because of the break.
            let (tokens, estimated, confirmed, no_cache) = match (prev, after) {
                (Some(p), Some(a)) => {
                    let had = p.cache_read as u64 + p.cache_write as u64;
                    let lost = had.saturating_sub(a.cache_read as u64);
                    if had == 0 {
                        (0, false, None, true)
                    } else {
                        (lost, false, Some(lost > 0 && lost * 10 >= had), false)
                    }
                }
                _ => (estimate, true, None, false),
            };
            let cost = price.map(|p| match confirmed {
                Some(false) => 0.0,
                _ if no_cache => 0.0,
                _ => round8(tokens as f64 * (p.write() - p.read()).max(0.0) / 1e6),
            });
            Impact {
                tokens,
                estimated,
                cached_before: prev.map(|u| u.cache_read as u64 + u.cache_write as u64),
                cached_after: after.map(|u| u.cache_read as u64),
                confirmed,
                cost_usd: cost,
            }
        }
    })
}

/// USD rounded to 8 decimal places (a finding's cost can be a fraction of a cent).
fn round8(x: f64) -> f64 {
    (x * 1e8).round() / 1e8
}

/// The recorded usage of an input's calls, with its unexplained cache breaks.
fn usage_of(calls: &Calls<'_>, findings: &[Finding], prices: &Prices) -> InputUsage {
    let mut out = InputUsage::default();
    let mut cost = 0.0;
    let mut priced = false;
    let mut one_hour = false;
    // The price of the last model seen: calls in a row mostly name the same one.
    let mut last: Option<(&str, Option<prices::Price>)> = None;
    let explained: std::collections::HashSet<usize> =
        findings.iter().filter(|f| breaks_cache(f.rule)).filter_map(|f| f.request).collect();
    for (i, c) in calls.calls.iter().enumerate() {
        let Some(u) = c.usage else { continue };
        out.calls += 1;
        out.input += u.input as u64;
        out.cache_read += u.cache_read as u64;
        out.cache_write += u.cache_write as u64;
        out.output += u.output as u64;
        let model = calls.model(c);
        let price = match (model, last) {
            (Some(m), Some((l, p))) if std::ptr::eq(m, l) || m == l => p,
            (Some(m), _) => {
                let p = prices.of(m);
                last = Some((m, p));
                p
            }
            (None, _) => None,
        };
        match price {
            Some(p) => {
                cost += p.cost(&u);
                priced = true;
            }
            None => {
                out.unpriced_calls += 1;
                let m = model.unwrap_or("(model not recorded)").to_string();
                if !out.unpriced_models.contains(&m) {
                    out.unpriced_models.push(m);
                }
            }
        }
        one_hour |= u.cache_write_1h > 0;
        // An unexplained break?
        let Some(p) = c.prev().and_then(|p| calls.get(p).map(|x| (p, x))) else { continue };
        let (pi, pc) = p;
        let Some(pu) = pc.usage.filter(|_| !pc.run_total && !c.run_total) else { continue };
        let had = pu.cache_read as u64 + pu.cache_write as u64;
        let got = u.cache_read as u64;
        if had < MIN_CACHE_LOSS || got * 2 >= had || had - got < MIN_CACHE_LOSS {
            continue;
        }
        if c.compacted || explained.contains(&i) || c.model != pc.model || c.time == 0 || pc.time == 0 {
            continue;
        }
        let Some(ttl) = model.and_then(|m| lifetime(m, one_hour)) else { continue };
        let Some(gap) = c.time.checked_sub(pc.time) else { continue };
        if gap > ttl {
            continue;
        }
        out.unexplained_cache_breaks.push(CacheBreak {
            request: i,
            line: c.line,
            entry_id: calls.entry_id(c).map(str::to_string),
            previous: pi,
            cached_before: had,
            cached_after: got,
            seconds: gap,
            model: model.map(str::to_string),
        });
    }
    let all = out.input + out.cache_read + out.cache_write;
    out.cache_read_ratio = (all > 0).then(|| (out.cache_read as f64 / all as f64 * 10_000.0).round() / 10_000.0);
    out.cost_usd = priced.then_some((cost * 1e6).round() / 1e6);
    out
}

/// What one input's findings cost (JSON `files[].impact`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct InputImpact {
    /// Findings with an impact.
    pub findings: usize,
    /// Tokens attributable to them ([`totals`]).
    pub tokens: u64,
    /// Estimated cost attributable to them in USD (`None`: no finding has a price).
    pub cost_usd: Option<f64>,
    /// Of them, those whose impact the recorded usage could judge.
    pub judged: usize,
    /// Of those, the ones it confirms.
    pub confirmed: usize,
}

impl InputImpact {
    /// The impact of one input's findings, `None` when none has one.
    pub fn of(findings: &[Finding]) -> Option<InputImpact> {
        let n = findings.iter().filter(|f| f.impact.is_some()).count();
        let (tokens, cost_usd, confirmed, judged) = totals(findings);
        (n > 0).then_some(InputImpact {
            findings: n,
            tokens,
            cost_usd: cost_usd.map(|c| (c * 1e6).round() / 1e6),
            judged,
            confirmed,
        })
    }
}

/// Totals over findings' impacts: (tokens, cost in USD — `None` when no
/// finding has a price —, findings whose impact the recorded usage
/// confirms, findings it could judge). A cache
/// break reported by two rules at one request (a rewrite that is also a
/// dropped system prompt) is counted once, at the larger figure.
pub fn totals(findings: &[Finding]) -> (u64, Option<f64>, usize, usize) {
    let mut breaks: std::collections::HashMap<(&str, Option<usize>), (u64, f64)> = Default::default();
    let (mut tokens, mut cost, mut confirmed, mut judged) = (0u64, 0.0f64, 0usize, 0usize);
    let mut priced = false;
    for f in findings {
        let Some(i) = &f.impact else { continue };
        priced |= i.cost_usd.is_some();
        if let Some(c) = i.confirmed {
            judged += 1;
            confirmed += c as usize;
        }
        if breaks_cache(f.rule) {
            let e = breaks.entry((f.path.as_str(), f.request)).or_default();
            e.0 = e.0.max(i.tokens);
            e.1 = e.1.max(i.cost_usd.unwrap_or(0.0));
        } else {
            tokens += i.tokens;
            cost += i.cost_usd.unwrap_or(0.0);
        }
    }
    for (t, c) in breaks.values() {
        tokens += t;
        cost += c;
    }
    (tokens, priced.then_some(cost), confirmed, judged)
}

/// Orders findings by estimated cost, highest first (then tokens; findings
/// without impact last), keeping the report order among equals (`--sort impact`).
pub fn sort_by_impact(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        let key = |f: &Finding| f.impact.map(|i| (i.cost_usd.unwrap_or(0.0), i.tokens));
        match (key(a), key(b)) {
            (Some(x), Some(y)) => y.0.total_cmp(&x.0).then(y.1.cmp(&x.1)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(usage: Usage, prev: Option<usize>, run_total: bool) -> Call {
        let prev = prev.map_or(NONE, |p| p as u32);
        Call { usage: Some(usage), model: 0, time: 100, prev, run_total, ..Call::default() }
    }

    /// Calls of one model, `claude-sonnet-4-5`.
    fn calls_of(calls: Vec<Call>) -> Calls<'static> {
        let mut models = Models::default();
        models.of(Some("claude-sonnet-4-5"));
        Calls { calls, models, transcript: None, has_usage: true, later: None }
    }

    #[test]
    fn a_call_is_52_bytes_and_equal_models_share_an_index() {
        assert_eq!(std::mem::size_of::<Call>(), 52);
        let mut m = Models::default();
        assert_eq!((m.of(Some("a")), m.of(Some("b")), m.of(Some("a")), m.of(None)), (0, 1, 0, NONE));
    }

    #[test]
    fn a_run_total_is_summed_but_never_compared() {
        let big = Usage { input: 100_000, ..Usage::default() };
        let small = Usage { input: 15_000, ..Usage::default() };
        let calls = calls_of(vec![call(big, None, true), call(small, Some(0), true)]);
        let i = impact_of(Effect::Added { bytes: 400 }, Some(1), &calls, &Prices::default()).unwrap();
        assert_eq!((i.tokens, i.confirmed, i.cached_before), (100, None, None));
        // A run's total is no one call's: an extra call there has no known impact.
        assert_eq!(impact_of(Effect::ExtraCall, Some(1), &calls, &Prices::default()), None);
        let u = usage_of(&calls, &[], &Prices::default());
        assert_eq!((u.calls, u.input), (2, 115_000));
        // The same figures as single calls: the prompt shrank, so the copy is refuted.
        let calls = calls_of(vec![call(big, None, false), call(small, Some(0), false)]);
        let i = impact_of(Effect::Added { bytes: 400 }, Some(1), &calls, &Prices::default()).unwrap();
        assert_eq!(i.confirmed, Some(false));
        // An extra call costs its whole recorded usage: 15,000 input tokens at $3 per million.
        let x = impact_of(Effect::ExtraCall, Some(1), &calls, &Prices::default()).unwrap();
        assert_eq!((x.tokens, x.estimated, x.confirmed, x.cost_usd), (15_000, false, Some(true), Some(0.045)));
    }

    #[test]
    fn only_anthropics_own_api_has_a_lifetime_judged() {
        assert_eq!(lifetime("claude-sonnet-4-6", false), Some(300));
        assert_eq!(lifetime("anthropic/claude-opus-4-5", true), Some(3600));
        assert_eq!(lifetime("amazon-bedrock/us.anthropic.claude-opus-4-6-v1", false), None);
        assert_eq!(lifetime("gpt-5.1-codex", false), None);
        assert_eq!(lifetime("gemini-2.5-flash", false), None);
    }

    #[test]
    fn a_break_explained_by_a_finding_or_past_the_lifetime_is_not_listed() {
        let had = Usage { cache_read: 20_000, cache_write: 1_000, ..Usage::default() };
        let fell = Usage { cache_read: 2_000, cache_write: 19_000, ..Usage::default() };
        let mut late = call(fell, Some(0), false);
        late.time = 100 + 301;
        let calls = calls_of(vec![call(had, None, false), call(fell, Some(0), false), late]);
        let u = usage_of(&calls, &[], &Prices::default());
        let listed: Vec<usize> = u.unexplained_cache_breaks.iter().map(|b| b.request).collect();
        assert_eq!(listed, [1]);
        assert_eq!(
            (u.unexplained_cache_breaks[0].cached_before, u.unexplained_cache_breaks[0].cached_after),
            (21_000, 2_000)
        );
        let mut f = Finding::new(RuleId::HistoryRewrite, "p", crate::model::FormatId::UNKNOWN, "m");
        f.request = Some(1);
        assert!(usage_of(&calls, &[f], &Prices::default()).unexplained_cache_breaks.is_empty());
    }
}
