//! The embedding API: `check`, `check` of bytes held in memory, and `fence`,
//! each returning the JSON document the command line prints with
//! `--output-format json` (docs/spec.md §4), so a caller in another language (the
//! Python package in `python/`) gets exactly the command's findings.
//!
//! Findings are masked as the command masks them ([`crate::report::mask_finding`]);
//! errors are [`crate::Error`]s with the command's messages.

use crate::config::{Config, ConfigSet, Source};
use crate::inputs::{DiscoverOptions, Job, Plan};
use crate::rules::RuleId;
use crate::source::{Origin, SourceRef};
use crate::{Error, Result, Severity};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

/// What `ctxlint check` takes besides its paths.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--config FILE` (else each input's `ctxlint.toml` is discovered).
    pub config: Option<PathBuf>,
    /// `--isolated`: no configuration file at all.
    pub isolated: bool,
    /// `--select`: rule names, codes, code prefixes (`CTX1`) or `ALL`.
    pub select: Vec<String>,
    /// `--ignore`: as `select`.
    pub ignore: Vec<String>,
    /// `--extend-select`: as `select`, added to it (and turned on where a
    /// configuration turns them off).
    pub extend_select: Vec<String>,
    /// `--config KEY=VALUE`: TOML pairs over the configuration in force.
    pub config_inline: Vec<String>,
    /// `--input-format ID`.
    pub input_format: Option<String>,
    /// `--fail-on`: the severity at or above which a finding fails.
    pub fail_on: Option<Severity>,
}

/// Resolves `--select`/`--ignore` lists (`flag` names the option in errors).
pub fn parse_rules(flag: &str, list: &[String]) -> Result<HashSet<RuleId>> {
    let mut out = HashSet::new();
    for s in list.iter().filter(|s| !s.trim().is_empty()) {
        let rules = crate::rule_id::resolve_selector(s).map_err(|e| Error::Usage(format!("{flag}: {e}")))?;
        out.extend(rules);
    }
    Ok(out)
}

fn forced(o: &Options) -> Result<Option<crate::model::FormatId>> {
    match &o.input_format {
        None => Ok(None),
        Some(id) => crate::formats::parse_format_id(id).map(Some).ok_or_else(|| {
            Error::Usage(format!("unknown input format `{id}`; known: {}", crate::formats::ids_joined()))
        }),
    }
}

/// The configurations of a check, as the command builds them from its options.
pub fn config_set(o: &Options) -> Result<ConfigSet> {
    let inline = crate::config::parse_inline(&o.config_inline)?;
    let source = match (&o.config, o.isolated) {
        (_, true) => Source::Isolated,
        (Some(p), false) => Source::Fixed(Arc::new(Config::load_with(Some(p), &inline)?)),
        (None, false) => Source::Discover,
    };
    let mut set = ConfigSet::new(source);
    // With --isolated, inline settings are all there is (as ruff's --isolated with --config).
    set.inline = inline;
    if !o.select.is_empty() {
        let selected = parse_rules("--select", &o.select)?;
        if selected.is_empty() {
            return Err(Error::Usage(
                "--select: the selection is empty; name rules, codes, code prefixes (CTX1) or ALL".into(),
            ));
        }
        set.select = Some(selected);
    }
    set.ignore = parse_rules("--ignore", &o.ignore)?;
    set.extend_select = parse_rules("--extend-select", &o.extend_select)?;
    Ok(set)
}

fn finish_report(mut r: crate::check_report::CheckReport, o: &Options) -> crate::check_report::CheckReport {
    if let Some(s) = o.fail_on {
        let paths: Vec<String> = r.findings.iter().map(|f| f.path.clone()).collect();
        for p in paths {
            r.fail_on.insert(p, s);
        }
    }
    r.findings.iter_mut().for_each(crate::report::mask_finding);
    r
}

/// `ctxlint check PATHS…`: the report (findings masked). An empty `paths`
/// is a usage error (the command's scan of agent folders is not done here).
pub fn check_paths(paths: &[String], o: &Options) -> Result<crate::check_report::CheckReport> {
    if paths.is_empty() {
        return Err(Error::Usage("no path given: name the files or folders to check".into()));
    }
    let configs = config_set(o)?;
    let discover = DiscoverOptions { forced: forced(o)?, ..DiscoverOptions::default() };
    let plan = crate::inputs::discover(paths, &discover)?;
    Ok(finish_report(crate::check_plan_with(plan, &configs, &|_| {}), o))
}

/// Checks files held in memory, `(name, bytes)` each, as `ctxlint check`
/// would check a folder holding exactly them: request bodies of one format
/// form one stream in the given order (not sorted by name), any other file
/// is its own input. `format` forces every file's format (as
/// `--input-format`). A file that matches no format is in the report's
/// `skipped`; one that cannot be loaded in its `failed`.
pub fn check_memory(
    files: Vec<(String, Vec<u8>)>,
    stream_name: &str,
    o: &Options,
) -> Result<crate::check_report::CheckReport> {
    let configs = config_set(o)?;
    let forced = forced(o)?;
    let mut plan = Plan { forced, ..Plan::default() };
    let mut streams: Vec<(crate::model::FormatId, Vec<SourceRef>)> = Vec::new();
    for (name, bytes) in files {
        let src = SourceRef { display: name, origin: Origin::Memory(bytes.into()), seen: None, session: None };
        let format = match forced {
            Some(f) => Some(f),
            None => crate::formats::detect(&src)?,
        };
        let Some(f) = format else {
            plan.skipped
                .push(crate::inputs::Skipped { path: src.display.clone(), reason: "matches no input format".into() });
            continue;
        };
        if crate::formats::is_body_format(f) {
            match streams.iter_mut().find(|(g, _)| *g == f) {
                Some((_, v)) => v.push(src),
                None => streams.push((f, vec![src])),
            }
        } else {
            plan.jobs.push(Job::File(src, f));
        }
    }
    for (f, mut srcs) in streams {
        if srcs.len() == 1 {
            plan.jobs.push(Job::File(srcs.remove(0), f));
        } else {
            plan.jobs.push(Job::Stream(stream_name.to_string(), f, srcs));
        }
    }
    Ok(finish_report(crate::check_plan_with(plan, &configs, &|_| {}), o))
}

/// `--output-format json` of a check report: the document the command prints.
pub fn report_json(r: &crate::check_report::CheckReport) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = crate::report::json::write(r, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// `ctxlint fence OLD NEW --output-format json` (`owned`: `--owned`).
pub fn fence_json(old: &str, new: &str, owned: Option<Vec<String>>) -> Result<String> {
    use crate::fence::{Baseline, FenceOptions};
    let opts = FenceOptions { owned, hashes: true };
    let mut report = crate::fence::fence(&Baseline::File(old.into()), new, &opts)?;
    report.findings.iter_mut().for_each(crate::report::mask_finding);
    for e in &mut report.appended {
        for s in [&mut e.id, &mut e.parent, &mut e.kind, &mut e.role, &mut e.problem].into_iter().flatten() {
            *s = crate::text::mask_secrets(s);
        }
    }
    Ok(crate::report::fence::json(&report))
}
