//! ctxlint: lint what LLM agents send to their models.
//!
//! Bytes flow one way: **source → format loader → normalised model (with
//! source spans) → rules / fence / diff → findings → renderer**. This crate
//! is the library (the crate `ctxlint` of package `ctxlint-core`, which knows no
//! command line); the root package's `ctxlint_cli` is the command line over it,
//! `src/main.rs` its binary.
//!
//! ```no_run
//! let opts = ctxlint::CheckOptions { paths: vec!["session.jsonl".into()], ..Default::default() };
//! let report = ctxlint::check(&opts, &ctxlint::config::Config::default()).unwrap();
//! for f in &report.findings {
//!     println!("{}:{}: {} {}", f.path, f.line.unwrap_or(0), f.code, f.message);
//! }
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod api;
pub mod baseline;
pub mod catalog;
pub mod check_report;
pub mod config;
pub mod conversation;
pub mod diff;
pub mod error;
pub mod escape;
pub mod fence;
pub mod finding;
pub mod formats;
pub mod hash;
pub mod impact;
pub mod inputs;
pub mod locate;
pub mod model;
pub mod report;
pub mod repro;
pub mod rule_id;
pub mod rules;
pub mod safety;
pub mod show;
pub mod sidecars;
pub mod source;
pub mod text;

pub use check_report::{CheckOptions, CheckReport, Failed, FileSummary};
pub use error::{Error, Result};
pub use finding::{Finding, Related, Severity};
use rule_id::RuleId;
pub use rules::Unlisted;

use formats::LoadOptions;
use inputs::{DiscoverOptions, Job, Skipped};
use model::Input;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use source::SourceRef;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Loads one job into an input.
pub fn load_job(job: &Job) -> Result<Input> {
    load_job_with(job, &LoadOptions::default())
}

/// Loads one job with the given options.
pub fn load_job_with(job: &Job, lopts: &LoadOptions) -> Result<Input> {
    match job {
        Job::File(src, f) => formats::load(src, *f, lopts),
        Job::Stream(dir, f, srcs) => {
            // Joined as each file loads: equal history held once from the start.
            let mut joined = formats::JoinedStream::default();
            for s in srcs {
                joined.push(formats::load(s, *f, lopts)?);
            }
            Ok(joined.finish(dir, *f))
        }
    }
}

/// Loads the one input a path names (`diff`, `show`): a file, or a directory
/// holding one stream (request-body files of one format, pydantic-ai history
/// snapshots) or one other input. A directory holding several inputs is an
/// error naming a few of them. Also returns the walked files that were skipped
/// as matching no format (to be reported, never skipped silently).
pub fn load_path(path: &str, discover: &DiscoverOptions) -> Result<(Input, Vec<Skipped>)> {
    // `show` and `diff` print texts: keep them all.
    load_path_texts(path, discover, crate::model::packed::Texts::AsLoaded)
}

/// [`load_path`] keeping a transcript's `texts` (`show`'s tables need only
/// sizes, hashes and first lines: [`crate::model::packed::Texts::Compact`], the
/// rest read again per message shown).
pub fn load_path_texts(
    path: &str,
    discover: &DiscoverOptions,
    texts: crate::model::packed::Texts,
) -> Result<(Input, Vec<Skipped>)> {
    let mut plan = inputs::discover(&[path.to_string()], discover)?;
    if let Some(e) = plan.errors.pop().or_else(|| plan.unrecognised.pop()) {
        return Err(e);
    }
    match plan.jobs.as_slice() {
        [job] => Ok((load_job_with(job, &LoadOptions { texts, forced: plan.forced })?, plan.skipped)),
        [] => Err(Error::Usage(format!("{path}: no input of a known format found ({})", inputs::formats_tried()))),
        jobs if jobs.iter().all(|j| j.session().is_some()) => {
            let names: Vec<String> = jobs
                .iter()
                .take(4)
                .filter_map(Job::session)
                .map(|id| crate::escape::escape_controls(id).into_owned())
                .collect();
            let more = if jobs.len() > 4 { ", …" } else { "" };
            Err(Error::Usage(format!(
                "{path}: holds {} sessions ({}{more}); name one with --session ID",
                jobs.len(),
                names.join(", ")
            )))
        }
        jobs => {
            let names: Vec<&str> = jobs.iter().take(4).map(Job::display).collect();
            let more = if jobs.len() > 4 { ", …" } else { "" };
            Err(Error::Usage(format!(
                "{path}: holds {} inputs ({}{more}); name one of them",
                jobs.len(),
                names.join(", ")
            )))
        }
    }
}

/// Checks one loaded input: runs the rules, applies the configuration (levels,
/// overrides, `--select`/`--ignore`), and resolves columns and byte offsets.
pub fn check_input(input: &Input, job: &Job, config: &config::Config) -> Vec<Finding> {
    check_input_counted(input, job, config).0
}

/// [`check_input`], also giving the findings counted but not listed (past
/// [`rules::MAX_LISTED`] of one rule), each group under the path and with the
/// severity of the last finding of its rule that is listed.
pub fn check_input_counted(input: &Input, job: &Job, config: &config::Config) -> (Vec<Finding>, Vec<Unlisted>) {
    check_input_with(input, job, config, &conversation::Facts::default())
}

/// [`check_input_counted`], the rules reading and filling `facts` (the
/// stream facts of `input` shared with what runs beside them).
pub fn check_input_with(
    input: &Input,
    job: &Job,
    config: &config::Config,
    facts: &conversation::Facts,
) -> (Vec<Finding>, Vec<Unlisted>) {
    let settings = config.settings_for(&input.path);
    // Rules turned off (by selection or per-file ignores) are not run at all.
    let enabled = |r: RuleId| config.enabled(r) && settings.level(r).is_some();
    let found = rules::run_selected_with(input, &settings, &enabled, facts);
    let mut findings = found.findings;
    for f in &mut findings {
        if let (Some(s), true) = (settings.level(f.rule), settings.levels.contains_key(&f.rule)) {
            f.severity = s;
        }
    }
    let unlisted = found
        .unlisted
        .into_iter()
        .filter_map(|(rule, count)| {
            let last = findings.iter().rev().find(|f| f.rule == rule)?;
            Some(Unlisted {
                path: last.path.clone(),
                rule,
                code: rule.code(),
                severity: last.severity,
                count,
                per_run: false,
            })
        })
        .collect();
    if let model::Body::Transcript(t) = &input.body {
        set_step_indices(t, &mut findings);
    }
    if let model::Body::Stream(s) = &input.body {
        name_requests(s, &mut findings);
    }
    resolve_positions(job, input, &mut findings);
    (findings, unlisted)
}

/// Whether an input is large enough for its rules to run in parallel, each
/// its own task (the threshold [`rules::run_selected`] uses).
pub(crate) fn is_large(input: &Input) -> bool {
    input.entry_count() + 64 * input.request_count() >= 4096
}

/// Transcript findings carry the 0-based step index in `request` (docs/spec.md §4):
/// the step the reported entry is, or is first sent in (a line that is no
/// entry, such as a torn line, takes the next entry's).
fn set_step_indices(t: &model::Transcript, findings: &mut [Finding]) {
    if findings.iter().all(|f| f.request.is_some() || f.line.is_none()) {
        return;
    }
    // (Computed here, after the rules, not beside them: its vector of every
    // entry, 2.6 MB on a 300 MB session, is then not held at the rules' peak.)
    let steps = analysis::entry_steps(t);
    for f in findings.iter_mut().filter(|f| f.request.is_none()) {
        let Some(line) = f.line else { continue };
        let k = steps.partition_point(|(l, _)| *l < line);
        f.request = steps.get(k).and_then(|(_, s)| *s).map(|s| s as usize);
    }
}

/// Runs `check` over the given paths.
pub fn check(opts: &CheckOptions, config: &config::Config) -> Result<CheckReport> {
    let plan = inputs::discover(&opts.paths, &opts.discover)?;
    Ok(check_plan(plan, config, &|_| {}))
}

/// What checking one job gives: its summary and findings, or why it could not be checked.
type JobResult = Result<(FileSummary, Vec<Finding>, Vec<Unlisted>)>;
/// One job's result, its `fail_on` setting and what an observer kept of it.
type Checked<P> = (Job, JobResult, Option<Severity>, Option<P>);

/// Runs `check` over discovered jobs in parallel (rayon), calling `tick(n)`
/// after each job (`n` = jobs in the plan), with output in a stable order.
/// One configuration for every input; see [`check_plan_with`].
pub fn check_plan(plan: inputs::Plan, config: &config::Config, tick: &(dyn Fn(u64) + Sync)) -> CheckReport {
    check_plan_with(plan, &config::ConfigSet::fixed(config.clone()), tick)
}

/// Runs `check` over discovered jobs, each with the configuration in force for
/// it (docs/spec.md §3: the nearest `ctxlint.toml` from its folder upward), its
/// fingerprint paths relative to that configuration's project root (docs/spec.md §4).
/// A job whose configuration is invalid is an error; the others are checked.
pub fn check_plan_with(plan: inputs::Plan, configs: &config::ConfigSet, tick: &(dyn Fn(u64) + Sync)) -> CheckReport {
    check_plan_observed(plan, configs, tick, &Nothing).0
}

/// What a caller builds from each input beside the check, while the input is
/// loaded (so that it is read once): the HTML report's page of an input
/// (`report::html::Pages`). [`InputObserver::begin`] runs in parallel with
/// the rules, [`InputObserver::end`] after them with the input's findings.
pub trait InputObserver: Sync {
    /// What is kept of each input, in the order of the report's files.
    type Out: Send;
    /// Which texts the loader keeps ([`model::packed::Texts`]).
    fn texts(&self) -> model::packed::Texts;
    /// Starts on `input` (beside the rules); `session`: the session it is,
    /// in a store that holds several ([`inputs::Job::session`]); `facts`:
    /// the stream facts the rules compute too (each computed once).
    fn begin(&self, input: &Input, session: Option<&str>, facts: &conversation::Facts) -> Self::Out;
    /// Completes `out` once the input's `findings` are known.
    fn end(&self, out: &mut Self::Out, input: &Input, findings: &[Finding], facts: &conversation::Facts);
}

/// The observer of a plain check: keeps nothing, texts compact.
struct Nothing;

impl InputObserver for Nothing {
    type Out = ();
    fn texts(&self) -> model::packed::Texts {
        model::packed::Texts::Compact
    }
    fn begin(&self, _: &Input, _: Option<&str>, _: &conversation::Facts) {}
    fn end(&self, _: &mut (), _: &Input, _: &[Finding], _: &conversation::Facts) {}
}

/// [`check_plan_with`], also building what `observer` makes of each input
/// while it is loaded; its outputs are in the order of the report's files
/// (inputs that failed to load have none).
pub fn check_plan_observed<O: InputObserver>(
    plan: inputs::Plan,
    configs: &config::ConfigSet,
    tick: &(dyn Fn(u64) + Sync),
    observer: &O,
) -> (CheckReport, Vec<O::Out>) {
    // Every session of a store with a WAL reads one copy of it (library callers too).
    let _copies = formats::CopyScope::enter();
    let total = plan.work_len() as u64;
    // (The HTML report lists assistant and tool texts too: it keeps them rather than read their lines again.)
    let texts = observer.texts();
    let lopts = LoadOptions { forced: plan.forced, texts };
    // (`ticked`: a stream of files each counted when detected.)
    let check_one = |job: Job, read: Option<source::SourceRef>, ticked: bool| {
        // A file stamped at discovery is a file: its folder is its parent —
        // when its display path is that file's path as text, with no `..`
        // (`link/../f.jsonl` is not `./f.jsonl` to the kernel, and a name
        // that is not UTF-8 is shown with U+FFFD: then the display path may
        // name a directory, whose configuration applies, as it did before).
        let stamped_file = matches!(&job, Job::File(s, _) if s.seen.is_some() && matches!(&s.origin,
            source::Origin::File(p) if p.to_str() == Some(s.display.as_str())
                && !p.components().any(|c| c == std::path::Component::ParentDir)));
        let config = match configs.for_input(job.display(), stamped_file) {
            Ok(c) => c,
            Err(e) => {
                if !ticked {
                    tick(total);
                }
                return (job, Err(e), None, None);
            }
        };
        let root = configs.project_root(&config, job.display());
        let started = std::time::Instant::now();
        let mut page = None;
        // A file detected from its whole text is loaded from it (read once).
        let loaded = match (&job, &read) {
            (Job::File(src, f), Some(mem)) => formats::load_read(src, mem, *f, &lopts),
            _ => load_job_with(&job, &lopts),
        };
        drop(read);
        let r = loaded.map(|input| {
            let loaded = started.elapsed();
            // The page's steps need no findings: they are built beside the rules.
            // The calls' recorded usage is gathered beside the rules too; the
            // findings' impact once they are known.
            // The stream facts (links, lanes) are computed once, by whichever
            // side asks first.
            let facts = conversation::Facts::default();
            let rules = || check_input_with(&input, &job, &config, &facts);
            let beside = || (observer.begin(&input, job.session(), &facts), impact::Calls::of(&input, &facts));
            // (A small input on the calling thread: when many files are
            // checked, the files themselves keep every thread busy.)
            let ((mut findings, unlisted), (mut out, mut calls)) =
                if is_large(&input) { rayon::join(rules, beside) } else { (rules(), beside()) };
            let usage = impact::assess(&mut calls, &mut findings, &config.prices);
            drop(calls);
            observer.end(&mut out, &input, &findings, &facts);
            drop(facts);
            page = Some(out);
            // A store's findings name their session (their fingerprints too).
            if let Some(id) = job.session() {
                for f in &mut findings {
                    f.session = Some(id.to_string());
                }
            }
            // Occurrence numbers count within one path, so fingerprints
            // are computed here, in parallel, rather than after the merge.
            finish_in(&mut findings, &root);
            let summary = FileSummary {
                session: job.session().map(str::to_string),
                bytes: job.stored_bytes(),
                load_time: loaded,
                rules_time: started.elapsed() - loaded,
                findings: findings.len(),
                usage,
                impact: impact::InputImpact::of(&findings),
                ..FileSummary::of(&input)
            };
            // A large input is freed on another thread: the report need not
            // wait for it (a 300 MB session's took 7 ms on the one thread
            // left working at the end of a run).
            if is_large(&input) {
                rayon::spawn(move || drop(input));
            }
            (summary, findings, unlisted)
        });
        if !ticked {
            tick(total);
        }
        (job, r, config.fail_on, page)
    };
    // Jobs run in parallel in chunks taken in report order (natural path
    // order): once the run has listed MAX_LISTED_PER_RUN findings, the
    // findings of the later inputs are counted, not kept — the same ones
    // whatever the threads do, and the memory bounded however many inputs.
    // Files still to detect ([`inputs::Plan::later`]) are detected in their
    // job, from the bytes their load then reads, and take their places in
    // report order like the others.
    let mut later = plan.later;
    let pending = later.as_mut().map(|l| std::mem::take(&mut l.pending)).unwrap_or_default();
    let mut work: Vec<Work> =
        plan.jobs.into_iter().map(Work::Job).chain(pending.into_iter().map(Work::Pending)).collect();
    work.sort_by(|a, b| inputs::report_order((a.display(), a.file()), (b.display(), b.file())));
    let chunk = (rayon::current_num_threads() * 256).max(512);
    let mut results: Vec<Checked<O::Out>> = Vec::with_capacity(work.len());
    let (mut deferred, mut skips) = (Vec::new(), Vec::new());
    let mut listed = 0usize;
    let mut rest = work.into_iter();
    // (Pending files come only with their plan: this one is never used.)
    let no_plan = inputs::Later::default();
    loop {
        let batch: Vec<Work> = rest.by_ref().take(chunk).collect();
        if batch.is_empty() {
            break;
        }
        let done: Vec<Done<O::Out>> = batch
            .into_par_iter()
            .map(|w| match w {
                Work::Job(job) => Done::Checked(Box::new(check_one(job, None, false))),
                Work::Pending(p) => match later.as_ref().unwrap_or(&no_plan).detect(p) {
                    inputs::Detected::Job(job, read) => Done::Checked(Box::new(check_one(job, read, false))),
                    inputs::Detected::Deferred(d) => {
                        tick(total);
                        Done::Deferred(d)
                    }
                    inputs::Detected::Skipped(seq, s) => {
                        tick(total);
                        Done::Skipped(seq, s)
                    }
                },
            })
            .collect();
        for d in done {
            match d {
                Done::Checked(checked) => {
                    let (job, mut r, fail_on, page) = *checked;
                    if let Ok((_, findings, unlisted)) = &mut r {
                        cap_run(findings, unlisted, &mut listed);
                    }
                    results.push((job, r, fail_on, page));
                }
                Done::Deferred(d) => deferred.push(d),
                Done::Skipped(seq, s) => skips.push((seq, s)),
            }
        }
    }
    let mut skipped = plan.skipped;
    if let Some(later) = later {
        // The streams and stores among the files detected late, planned now
        // that every file is known, and put in their places in report order.
        let (jobs, late_skips) = later.finish(deferred, skips);
        skipped.extend(late_skips);
        if !jobs.is_empty() {
            let more: Vec<Checked<O::Out>> = jobs.into_par_iter().map(|j| check_one(j, None, true)).collect();
            results.extend(more);
            results.sort_by(|a, b| inputs::report_order((a.0.display(), a.0.file()), (b.0.display(), b.0.file())));
            recap(&mut results);
        }
    }
    let mut report = CheckReport {
        skipped,
        unrecognised: plan.unrecognised,
        errors: plan.errors.into_iter().map(Failed::from_error).collect(),
        ..Default::default()
    };
    let mut built = Vec::new();
    for (job, r, fail_on, page) in results {
        built.extend(page);
        match r {
            Ok((summary, findings, unlisted)) => {
                report.files.push(summary);
                if let Some(s) = fail_on {
                    report.fail_on.extend(findings.iter().map(|f| (f.path.clone(), s)));
                }
                report.findings.extend(findings);
                report.unlisted.extend(unlisted);
            }
            Err(e) => report.errors.push(Failed::new(job.display(), e)),
        }
    }
    sort_findings(&mut report.findings);
    (report, built)
}

/// One unit of a run's work: a planned job, or a file whose format is
/// detected when it is checked.
enum Work {
    Job(Job),
    Pending(inputs::Pending),
}

impl Work {
    fn display(&self) -> &str {
        match self {
            Work::Job(j) => j.display(),
            Work::Pending(p) => p.display(),
        }
    }
    fn file(&self) -> Option<&source::SourceRef> {
        match self {
            Work::Job(j) => j.file(),
            Work::Pending(p) => Some(&p.src),
        }
    }
}

/// What one unit of work gave: a checked input, a file whose job waits for
/// its folder, or a skipped file (with its place in the walk).
enum Done<P> {
    Checked(Box<Checked<P>>),
    Deferred(inputs::Deferred),
    Skipped(usize, inputs::Skipped),
}

/// Applies the run's cap ([`cap_run`]) again over results put in report
/// order after some were capped in an earlier order (streams planned once
/// every file was detected, placed among the others). An input's cut only
/// grows (the inputs before it now include those before it then), so this
/// is the one cap over the final order: what an input loses now comes
/// before what it lost then, and its per-run counts are merged in that order.
fn recap<P>(results: &mut [Checked<P>]) {
    let mut listed = 0usize;
    for (_, r, _, _) in results.iter_mut() {
        let Ok((_, findings, unlisted)) = r else { continue };
        let mut fresh = Vec::new();
        cap_run(findings, &mut fresh, &mut listed);
        if fresh.is_empty() {
            continue;
        }
        let (mut per_run, rule_level): (Vec<Unlisted>, Vec<Unlisted>) =
            std::mem::take(unlisted).into_iter().partition(|u| u.per_run);
        for u in &mut fresh {
            if let Some(i) =
                per_run.iter().position(|o| o.path == u.path && o.rule == u.rule && o.severity == u.severity)
            {
                u.count += per_run.remove(i).count;
            }
        }
        *unlisted = rule_level;
        unlisted.extend(fresh);
        unlisted.extend(per_run);
    }
}

/// Keeps at most [`rules::MAX_LISTED_PER_RUN`] findings over the run:
/// `listed` counts those kept so far; past it, `findings` (one input's, put
/// in report order first) are cut to what is left and the rest counted in
/// `unlisted`, per path, rule and severity (so the exit code still sees them).
fn cap_run(findings: &mut Vec<Finding>, unlisted: &mut Vec<Unlisted>, listed: &mut usize) {
    let room = rules::MAX_LISTED_PER_RUN.saturating_sub(*listed);
    if findings.len() > room {
        sort_findings(findings);
        let mut more: Vec<Unlisted> = Vec::new();
        for f in findings.drain(room..) {
            match more.iter_mut().find(|u| u.path == f.path && u.rule == f.rule && u.severity == f.severity) {
                Some(u) => u.count += 1,
                None => more.push(Unlisted {
                    path: f.path.clone(),
                    rule: f.rule,
                    code: f.code,
                    severity: f.severity,
                    count: 1,
                    per_run: true,
                }),
            }
        }
        findings.shrink_to_fit();
        unlisted.extend(more);
    }
    *listed += findings.len();
}

/// Sorts findings in report order: path (natural order), line, request, byte
/// offset, pointer, rule code. The sort is stable.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        inputs::natural_cmp(&a.path, &b.path)
            .then(a.line.cmp(&b.line))
            .then(a.request.cmp(&b.request))
            .then(a.byte_offset.cmp(&b.byte_offset))
            .then_with(|| inputs::natural_cmp(&a.pointer, &b.pointer))
            .then(a.code.cmp(b.code))
    });
}

/// Sorts findings and assigns fingerprints (docs/spec.md §4: a hash of rule,
/// project-relative path, normalised offending text and its occurrence number
/// among equal ones), the project root found as `check` finds it with no
/// `--config` or baseline: the folder of the nearest `ctxlint.toml`, else the
/// enclosing git work tree, else the working directory.
pub fn finish(findings: &mut [Finding]) {
    let configs = config::ConfigSet::new(config::Source::Discover);
    let mut roots: HashMap<String, std::path::PathBuf> = HashMap::new();
    for f in findings.iter() {
        if !roots.contains_key(&f.path) {
            let file = configs.file_for_dir(&configs.folder(&f.path));
            let c = config::Config { file, ..Default::default() };
            roots.insert(f.path.clone(), configs.project_root(&c, &f.path));
        }
    }
    fingerprint(findings, &|p| roots.get(p).map_or_else(|| p.to_string(), |r| config::project_relative(p, r)));
}

/// Sorts findings and assigns fingerprints with paths relative to `root` (see [`finish`]).
pub fn finish_in(findings: &mut [Finding], root: &std::path::Path) {
    fingerprint(findings, &|p| config::project_relative(p, root));
}

fn fingerprint(findings: &mut [Finding], rel: &dyn Fn(&str) -> String) {
    sort_findings(findings);
    // Occurrences of equal (rule, path, text) are counted under a 64-bit
    // hash of the three: no copy of the text is kept per finding.
    let mut seen: HashMap<[u8; 8], u32> = HashMap::new();
    let mut rels: HashMap<String, String> = HashMap::new();
    let mut norm = String::new();
    for f in findings.iter_mut() {
        norm.clear();
        for (i, w) in f.key.split_whitespace().enumerate() {
            if i > 0 {
                norm.push(' ');
            }
            norm.push_str(w);
        }
        if !rels.contains_key(&f.path) {
            rels.insert(f.path.clone(), rel(&f.path));
        }
        let path = rels.get(&f.path).map_or("", String::as_str);
        let mut h = Sha256::new();
        h.update(f.rule.name().as_bytes());
        h.update([0]);
        h.update(path.as_bytes());
        h.update([0]);
        // (Two sessions of one store are two inputs at one path.)
        if let Some(id) = &f.session {
            h.update(id.as_bytes());
            h.update([0]);
        }
        h.update(norm.as_bytes());
        h.update([0]);
        let group: [u8; 8] = h.clone().finalize()[..8].try_into().unwrap_or_default();
        let n = seen.entry(group).or_insert(0);
        *n += 1;
        h.update(n.to_le_bytes());
        let d = h.finalize();
        f.fingerprint = d[..8].iter().map(|b| format!("{b:02x}")).collect();
        f.key = String::new();
    }
}

/// The byte offset of 1-based `line` of a transcript input, when it is an
/// entry or a malformed line.
fn line_offset(input: &Input, line: u32) -> Option<u64> {
    if let Some(t) = input.as_transcript() {
        if let Ok(i) = t.entries.binary_search_by_key(&line, |e| e.line) {
            return Some(t.entries[i].offset);
        }
    }
    input.bad_lines.binary_search_by_key(&line, |b| b.line).ok().map(|i| input.bad_lines[i].offset)
}

/// Findings on a request that names itself ([`model::Request::label`]: an
/// OpenTelemetry span) say which: "…; in span `chat m` (trace `…`, span `…`)".
fn name_requests(s: &model::Stream, findings: &mut [Finding]) {
    if s.requests.iter().all(|r| r.label.is_none()) {
        return;
    }
    for f in findings {
        let Some(k) = f.request else { continue };
        let r = s.requests.get(k).filter(|r| r.index == k).or_else(|| s.requests.iter().find(|r| r.index == k));
        if let Some(l) = r.and_then(|r| r.label.as_deref()) {
            f.message = format!("{}; in {l}", f.message);
        }
    }
}

/// Fills `column` and `byte_offset` (and `line` for JSON documents) from the source bytes.
fn resolve_positions(job: &Job, input: &Input, findings: &mut [Finding]) {
    if findings.is_empty() {
        return;
    }
    let Some(how) = formats::descriptor(input.format).map(|d| d.locate) else { return };
    if let formats::Locate::Rows(name_rows) = how {
        if let Some(t) = input.as_transcript() {
            name_rows(t, findings);
        }
        return;
    }
    let sources: Vec<&SourceRef> = match job {
        Job::File(s, _) => vec![s],
        Job::Stream(_, _, v) => v.iter().collect(),
    };
    // JSON lines (unless this input is a document), each span found by the
    // format's own search if it has one.
    let (jsonl, span) = match how {
        formats::Locate::Lines { span, document } => (!document.is_some_and(|d| d(input)), span),
        _ => (false, None),
    };
    for src in sources {
        let mine: Vec<usize> = (0..findings.len()).filter(|&i| findings[i].path == src.display).collect();
        // Findings elsewhere whose related location is in this file (e.g. the
        // earlier request of a stream of body files).
        let related_here: Vec<usize> = (0..findings.len())
            .filter(|&i| findings[i].path != src.display && findings[i].related.iter().any(|r| r.path == src.display))
            .collect();
        if mine.is_empty() && (jsonl || related_here.is_empty()) {
            continue;
        }
        if jsonl {
            let wanted: BTreeSet<u32> = mine.iter().filter_map(|&i| findings[i].line).collect();
            let mut lines: HashMap<u32, (u64, Vec<u8>)> = HashMap::new();
            // A transcript knows where each of its lines starts: read just those.
            let offsets: Vec<(u32, u64)> =
                wanted.iter().filter_map(|&l| line_offset(input, l).map(|o| (l, o))).collect();
            if offsets.len() == wanted.len() {
                let at: Vec<u64> = offsets.iter().map(|x| x.1).collect();
                if let Some(read) = src.lines_at(&at) {
                    for ((l, o), bytes) in offsets.into_iter().zip(read) {
                        lines.insert(l, (o, bytes));
                    }
                }
            }
            let streamed = if lines.len() < wanted.len() { src.lines().ok() } else { None };
            if let Some(mut lr) = streamed {
                let last = wanted.iter().next_back().copied().unwrap_or(0);
                while let Ok(Some(l)) = lr.next_line() {
                    if wanted.contains(&l.no) {
                        lines.insert(l.no, (l.offset, l.bytes.to_vec()));
                    }
                    if l.no >= last {
                        break;
                    }
                }
            }
            // Findings grouped by line: one locator and one column sweep per
            // line, however many findings name it.
            let mut by_line: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
            for &i in &mine {
                if let Some(l) = findings[i].line.filter(|l| lines.contains_key(l)) {
                    by_line.entry(l).or_default().push(i);
                }
            }
            for (l, group) in by_line {
                let (off, bytes) = &lines[&l];
                let mut loc = locate::Locator::new(bytes);
                let spans: Vec<(usize, usize)> = group
                    .iter()
                    .map(|&i| {
                        let p = &findings[i].pointer;
                        match span {
                            Some(span) => span(&mut loc, p),
                            None => loc.span(p),
                        }
                        .unwrap_or((0, bytes.len()))
                    })
                    .collect();
                let offsets: Vec<usize> = spans.iter().flat_map(|&(a, e)| [a, e]).collect();
                // Columns count characters (a parsed line is UTF-8).
                let places = source::LineIndex::new(bytes).line_cols(bytes, &offsets);
                for (k, &i) in group.iter().enumerate() {
                    let f = &mut findings[i];
                    f.byte_offset = Some(off + spans[k].0 as u64);
                    f.column = Some(places[2 * k].1);
                    f.end_line = f.line;
                    f.end_column = Some(places[2 * k + 1].1);
                }
            }
        } else if let formats::Locate::Own(place) = how {
            place(src, findings, &mine, &related_here);
        } else {
            let Ok(bytes) = src.read_all() else { continue };
            let ix = source::LineIndex::new(&bytes);
            // A HAR pointer into an embedded body is located at the body's text.
            let mapped = match how {
                formats::Locate::Document { pointer } => pointer,
                _ => None,
            };
            let located = |p: &str| -> String { mapped.map_or(p, |m| m(p)).to_string() };
            // One locator and one column sweep for the whole document: many
            // findings in a document on one line cost its length once.
            let mut loc = locate::Locator::new(&bytes);
            let mut offsets = Vec::new();
            let mut spans = Vec::new(); // (finding, related index or none, start, end)
            for &i in mine.iter().chain(&related_here) {
                let f = &findings[i];
                if f.path == src.display {
                    if let Some((at, end)) = loc.span(&located(&f.pointer)) {
                        spans.push((i, None, at, end));
                        offsets.extend([at, end]);
                    }
                }
                for (k, r) in f.related.iter().enumerate() {
                    if r.path == src.display && r.line.is_none() {
                        if let Some(at) = loc.locate(&located(&r.pointer)) {
                            spans.push((i, Some(k), at, at));
                            offsets.extend([at, at]);
                        }
                    }
                }
            }
            let places = ix.line_cols(&bytes, &offsets);
            for (k, &(i, related, at, _)) in spans.iter().enumerate() {
                let ((l, c), (el, ec)) = (places[2 * k], places[2 * k + 1]);
                let f = &mut findings[i];
                match related {
                    None => {
                        f.line = Some(l);
                        f.column = Some(c);
                        f.byte_offset = Some(at as u64);
                        f.end_line = Some(el);
                        f.end_column = Some(ec);
                    }
                    Some(r) => f.related[r].line = Some(l),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_at_one_place_sort_by_pointer_numbers_as_numbers() {
        // Issue 32, the second attack round: findings inside one cassette
        // body (same line, no byte offset) came out /messages/10 before /messages/2.
        let mut v: Vec<Finding> = ["/messages/10", "/messages/2", "/messages/1/content/0", "/messages/1"]
            .iter()
            .map(|p| {
                let mut f =
                    Finding::new(rules::RuleId::OrphanToolResult, "c.yaml", crate::formats::vcr_cassette::ID, "m");
                f.line = Some(3);
                f.pointer = p.to_string();
                f
            })
            .collect();
        sort_findings(&mut v);
        let got: Vec<&str> = v.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(got, ["/messages/1", "/messages/1/content/0", "/messages/2", "/messages/10"]);
    }
}
