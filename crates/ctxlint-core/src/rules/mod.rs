//! The rules: one file per rule, each holding its metadata, its documentation
//! and its logic; this module is the single table that maps codes to rules
//! (ruff's pattern) and runs them over a loaded input.

use crate::analysis::Analysis;
use crate::config::Settings;
use crate::finding::{Finding, Severity};
use crate::model::{Body, Input, Stream, Transcript};

pub mod broken_parent_chain;
pub mod dropped_system_prompt;
pub mod duplicate_context_block;
pub mod duplicate_reply;
pub mod duplicate_system_event;
pub mod duplicate_system_prompt;
pub mod duplicate_user_turn;
pub mod foreign_append;
pub mod history_rewrite;
pub mod malformed_line;
pub mod not_append_only;
pub mod orphan_tool_result;
pub mod unanswered_tool_call;

/// Static description of a rule: the same text feeds `ctxlint rule` and `docs/rules.md`.
#[derive(Debug)]
pub struct RuleMeta {
    /// Stable code, e.g. `CTX101`.
    pub code: &'static str,
    /// Stable name, e.g. `duplicate-system-event`.
    pub name: &'static str,
    /// Severity unless configured otherwise.
    pub default_severity: Severity,
    /// One line: what it finds.
    pub summary: &'static str,
    /// Markdown documentation with the sections *What it finds*, *Why it matters*,
    /// *Example* and *What it does not flag*.
    pub docs: &'static str,
}

pub use crate::rule_id::RuleId;

/// The metadata and documentation of a rule (its `META`, from its own file).
pub fn meta(r: RuleId) -> &'static RuleMeta {
    match r {
        RuleId::DuplicateSystemEvent => &duplicate_system_event::META,
        RuleId::DuplicateContextBlock => &duplicate_context_block::META,
        RuleId::DuplicateSystemPrompt => &duplicate_system_prompt::META,
        RuleId::DroppedSystemPrompt => &dropped_system_prompt::META,
        RuleId::HistoryRewrite => &history_rewrite::META,
        RuleId::DuplicateUserTurn => &duplicate_user_turn::META,
        RuleId::DuplicateReply => &duplicate_reply::META,
        RuleId::UnansweredToolCall => &unanswered_tool_call::META,
        RuleId::OrphanToolResult => &orphan_tool_result::META,
        RuleId::NotAppendOnly => &not_append_only::META,
        RuleId::ForeignAppend => &foreign_append::META,
        RuleId::MalformedLine => &malformed_line::META,
        RuleId::BrokenParentChain => &broken_parent_chain::META,
    }
}

/// What a rule's `check` receives: the input, the shared transcript analysis,
/// the settings, and the sink for findings.
pub struct RuleContext<'a> {
    /// The loaded input.
    pub input: &'a Input,
    /// For transcripts: the transcript and its analysis (tree, contexts, defects).
    pub transcript: Option<(&'a Transcript, &'a Analysis)>,
    /// For streams: the requests.
    pub stream: Option<&'a Stream>,
    /// For streams: how the requests continue each other, computed once for
    /// all rules (empty and unused for transcripts).
    pub conversation: &'a crate::conversation::Facts,
    /// For streams: each request's tool-call pairing, computed once for the
    /// rules that read it.
    pub pairings: &'a crate::analysis::pairing::StreamPairings,
    /// Effective settings (patterns, thresholds).
    pub settings: &'a Settings,
    /// Findings reported so far for this input (at most [`MAX_LISTED`]).
    pub findings: Vec<Finding>,
    /// Findings reported past [`MAX_LISTED`]: counted, not kept.
    pub unlisted: usize,
}

pub use crate::model::MAX_LISTED;

/// Most findings listed in one run, over all its inputs: past it, the
/// findings of the inputs that come later in report order are counted, not
/// kept ([`Unlisted`] with `per_run`), so a run's memory is bounded however
/// many flooded inputs it reads. The exit code still counts them.
pub const MAX_LISTED_PER_RUN: usize = 50_000;

impl RuleContext<'_> {
    /// Reports a finding: kept (its excerpt cut to what outputs show, see
    /// [`Finding::compact`]) while fewer than [`MAX_LISTED`] are, else counted.
    pub fn report(&mut self, mut f: Finding) {
        if self.findings.len() >= MAX_LISTED {
            self.unlisted += 1;
            return;
        }
        f.compact();
        self.findings.push(f);
    }

    /// Counts `n` findings of this rule that are not listed (the loader kept
    /// no more than [`MAX_LISTED`] of what they are about).
    pub fn count_unlisted(&mut self, n: usize) {
        self.unlisted += n;
    }
}

/// Findings of one rule on one input that were counted but not listed
/// (past [`MAX_LISTED`] of that rule on that input, or past
/// [`MAX_LISTED_PER_RUN`] in the whole run: `per_run`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unlisted {
    /// The input's path (for a stream of request files, its directory).
    pub path: String,
    /// The rule.
    #[serde(serialize_with = "ser_rule_name")]
    pub rule: RuleId,
    /// Its code, e.g. `CTX403`.
    pub code: &'static str,
    /// The severity its listed findings have.
    pub severity: crate::Severity,
    /// How many more were found than listed.
    pub count: usize,
    /// Whether they were left out by the run's cap ([`MAX_LISTED_PER_RUN`])
    /// rather than the input's ([`MAX_LISTED`]); not part of the JSON output.
    #[serde(skip)]
    pub per_run: bool,
}

fn ser_rule_name<S: serde::Serializer>(r: &RuleId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(r.name())
}

/// What the rules found on one input: the findings listed, and the counts of
/// those past [`MAX_LISTED`], per rule.
#[derive(Debug, Default)]
pub struct Found {
    /// Findings, in code order.
    pub findings: Vec<Finding>,
    /// Rules that found more than they list, with how many more.
    pub unlisted: Vec<(RuleId, usize)>,
}

/// Every rule's check, in code order, with the one rule it reports
/// (`foreign-append` is reported by `fence` alone).
/// A rule's check: reads the context, reports into it.
type Check = fn(&mut RuleContext<'_>);

const CHECKS: [(RuleId, Check); 12] = [
    (RuleId::MalformedLine, malformed_line::check),
    (RuleId::NotAppendOnly, not_append_only::check),
    (RuleId::BrokenParentChain, broken_parent_chain::check),
    (RuleId::DuplicateSystemEvent, duplicate_system_event::check),
    (RuleId::DuplicateSystemPrompt, duplicate_system_prompt::check),
    (RuleId::DuplicateContextBlock, duplicate_context_block::check),
    (RuleId::DroppedSystemPrompt, dropped_system_prompt::check),
    (RuleId::HistoryRewrite, history_rewrite::check),
    (RuleId::DuplicateUserTurn, duplicate_user_turn::check),
    (RuleId::DuplicateReply, duplicate_reply::check),
    (RuleId::UnansweredToolCall, unanswered_tool_call::check),
    (RuleId::OrphanToolResult, orphan_tool_result::check),
];

/// The order in which [`CHECKS`] start when run in parallel (indices into
/// it): the costliest first, as measured on a 296 MB pi session (CPU per
/// rule: `duplicate-context-block` 168 ms, `orphan-tool-result` 156 ms with
/// the tool pairing it computes, `duplicate-system-event` 89 ms,
/// `duplicate-reply` 28 ms, the rest 10 ms or less). In code order, one
/// thread ran the first six rules (278 ms) while the other ran the last six
/// (184 ms). `unanswered-tool-call`, which reads the same pairing, starts
/// last, so that it never waits for it while a thread could work.
const PARALLEL_ORDER: [usize; 12] = [5, 11, 3, 9, 1, 0, 2, 4, 6, 7, 8, 10];

/// What one rule's run gave: the rule, its findings, and how many more it
/// found past [`MAX_LISTED`].
type RuleRun = (RuleId, Vec<Finding>, usize);

/// Runs every rule over one loaded input and returns the raw findings (before
/// severity configuration and sorting), in code order. Rules are independent
/// of each other, so they run in parallel on the rayon pool; each has its own
/// sink, and the sinks are joined in code order.
pub fn run_all(input: &Input, settings: &Settings) -> Vec<Finding> {
    run_selected(input, settings, &|_| true).findings
}

/// Runs the rules `enabled` selects over one input (see [`run_all`]),
/// returning the findings and, per rule, how many were found past
/// [`MAX_LISTED`].
pub fn run_selected(input: &Input, settings: &Settings, enabled: &(dyn Fn(RuleId) -> bool + Sync)) -> Found {
    run_selected_with(input, settings, enabled, &crate::conversation::Facts::default())
}

/// [`run_selected`], reading and filling `conversation`: the stream facts of
/// `input` that others computing beside the rules share (the HTML report's
/// page, the recorded usage).
pub fn run_selected_with(
    input: &Input,
    settings: &Settings,
    enabled: &(dyn Fn(RuleId) -> bool + Sync),
    conversation: &crate::conversation::Facts,
) -> Found {
    let analysis;
    let (transcript, stream) = match &input.body {
        Body::Transcript(t) => {
            analysis = Analysis::new(input, t);
            (Some((t, &analysis)), None)
        }
        Body::Stream(s) => (None, Some(s)),
    };
    let pairings = crate::analysis::pairing::StreamPairings::default();
    let pairings = &pairings;
    let run = |&(rule, check): &(RuleId, Check)| {
        let mut cx = RuleContext {
            input,
            transcript,
            stream,
            conversation,
            pairings,
            settings,
            findings: Vec::new(),
            unlisted: 0,
        };
        if enabled(rule) {
            check(&mut cx);
        }
        (rule, cx.findings, cx.unlisted)
    };
    // A small input is checked on the calling thread: when many files are
    // checked, the files themselves keep every thread busy.
    let big = crate::is_large(input);
    let per_rule: Vec<RuleRun> = if big {
        // Each rule its own task, started in [`PARALLEL_ORDER`] (first in,
        // first out, whichever thread is free), so that the threads finish
        // together; the sinks are put back in code order.
        let mut slots: Vec<Option<RuleRun>> = vec![None; CHECKS.len()];
        rayon::scope_fifo(|s| {
            let mut by_order: Vec<(usize, &mut Option<RuleRun>)> = slots.iter_mut().enumerate().collect();
            by_order.sort_by_key(|(k, _)| PARALLEL_ORDER.iter().position(|o| o == k));
            for (k, slot) in by_order {
                let run = &run;
                s.spawn_fifo(move |_| *slot = Some(run(&CHECKS[k])));
            }
        });
        slots.into_iter().flatten().collect()
    } else {
        CHECKS.iter().map(run).collect()
    };
    let mut found = Found::default();
    for (rule, findings, unlisted) in per_rule {
        found.findings.extend(findings);
        if unlisted > 0 {
            found.unlisted.push((rule, unlisted));
        }
    }
    found
}

/// A rule's documentation (Markdown), with generated parts filled in (the
/// built-in wrapper list of `duplicate-context-block`).
pub fn docs(r: RuleId) -> String {
    let d = meta(r).docs;
    if d.contains("{wrappers}") {
        d.replace("{wrappers}", &duplicate_context_block::wrappers_markdown())
    } else {
        d.to_string()
    }
}

/// One rule's documentation as Markdown (what `ctxlint rule NAME` prints).
pub fn rule_markdown(r: RuleId) -> String {
    let m = meta(r);
    let docs = docs(r);
    format!(
        "## {} `{}`\n\nDefault severity: **{}**. {}.\n\n{}",
        m.code,
        m.name,
        m.default_severity.as_str(),
        capitalise(m.summary),
        docs.replace("\n## ", "\n### ").replacen("## ", "### ", 1)
    )
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// Where the rules' documentation lives: `docs/rules.md` on the project's
/// repository. Each rule has an anchor named after it (see [`docs_markdown`]).
pub const RULES_DOC_URL: &str = "https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md";

/// The documentation URL of one rule: [`RULES_DOC_URL`]`#<name>`.
pub fn rule_url(r: RuleId) -> String {
    format!("{RULES_DOC_URL}#{}", r.name())
}

/// One rule as a JSON object (`ctxlint rule --output-format json`): code,
/// name, default severity, summary, documentation URL and Markdown docs.
pub fn rule_value(r: RuleId) -> serde_json::Value {
    let m = meta(r);
    serde_json::json!({
        "code": m.code,
        "name": m.name,
        "default_severity": m.default_severity.as_str(),
        "summary": m.summary,
        "url": rule_url(r),
        "docs": rule_markdown(r),
    })
}

/// Every rule's documentation as one Markdown page (`docs/rules.md`, `ctxlint rule --all`).
pub fn docs_markdown() -> String {
    let mut out = String::from(
        "# ctxlint rules\n\n<!-- Generated from src/rules/*.rs by `ctxlint rule --all`; do not edit. -->\n\n| code | name | default | finds |\n|---|---|---|---|\n",
    );
    for r in RuleId::ALL {
        let m = meta(r);
        out.push_str(&format!(
            "| {} | [`{}`](#{}) | {} | {} |\n",
            m.code,
            m.name,
            m.name,
            m.default_severity.as_str(),
            m.summary
        ));
    }
    for r in RuleId::ALL {
        out.push_str(&format!("\n<a id=\"{}\"></a>\n", r.name()));
        out.push_str(&rule_markdown(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaf table in `rule_id.rs` and each rule file's `META` agree.
    #[test]
    fn rule_table_matches_every_rule_file() {
        for r in RuleId::ALL {
            let m = meta(r);
            assert_eq!((r.code(), r.name(), r.default_severity()), (m.code, m.name, m.default_severity));
        }
    }

    /// Every rule runs once in parallel: the start order is a permutation,
    /// the costliest first, and the two rules sharing the tool pairing apart.
    #[test]
    fn the_parallel_order_runs_every_rule_once() {
        let mut seen = PARALLEL_ORDER.to_vec();
        seen.sort_unstable();
        assert_eq!(seen, (0..CHECKS.len()).collect::<Vec<_>>());
        let rule = |i: usize| CHECKS[PARALLEL_ORDER[i]].0;
        assert_eq!((rule(0), rule(1)), (RuleId::DuplicateContextBlock, RuleId::OrphanToolResult));
        assert_eq!(rule(CHECKS.len() - 1), RuleId::UnansweredToolCall);
    }
}
