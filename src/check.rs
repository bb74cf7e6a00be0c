//! `ctxlint check`: its configuration options, the run over the inputs, the
//! report, the notes and warnings on standard error, and the exit code.

use crate::agents::agent_folders;
use crate::args::{CheckArgs, ColorChoice, FailOn, OutputFormat};
use crate::output::{emit, emit_masked, refuse_overwrite, use_color, write_out_masked};
use crate::{LARGE_INPUT, return_freed_memory_at_once};

/// Past the run's cap of listed findings, the inputs whose findings were
/// only counted get a warning line each up to this many, else one line for all.
const UNLISTED_LINES: usize = 5;
use clap::ValueEnum;
use ctxlint::error::exit_code;
use ctxlint::{Error, Severity};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Whether standard input is piped or redirected from a file (not a terminal,
/// not `/dev/null`, not closed): then `check` with no PATH refuses to scan.
fn stdin_is_piped() -> bool {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        match stdin.as_fd().try_clone_to_owned().map(std::fs::File::from).and_then(|f| f.metadata()) {
            Ok(m) => m.file_type().is_fifo() || m.file_type().is_socket() || m.is_file(),
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// Sorts `--config` options as ruff does: an existing file, or an argument
/// without `=`, names a configuration file (one at most, and not with
/// `--isolated`); any other is a `KEY = VALUE` override.
pub(crate) fn split_config_options(mut a: CheckArgs) -> ctxlint::Result<CheckArgs> {
    for o in std::mem::take(&mut a.config_options) {
        if Path::new(&o).is_file() || !o.contains('=') {
            if let Some(first) = &a.config {
                return Err(Error::Usage(format!(
                    "--config: two configuration files ({} and {o}); give one, and settings as `KEY = VALUE`",
                    first.display()
                )));
            }
            if a.isolated {
                return Err(Error::Usage(format!(
                    "--config {o}: --isolated reads no configuration file (`KEY = VALUE` settings still apply)"
                )));
            }
            a.config = Some(PathBuf::from(o));
        } else {
            a.config_inline.push(o);
        }
    }
    Ok(a)
}

/// The configurations `check` uses: `--isolated`, `--config PATH`, or found per input.
fn config_set(a: &CheckArgs) -> ctxlint::Result<ctxlint::config::ConfigSet> {
    let mut set = ctxlint::api::config_set(&ctxlint::api::Options {
        config: a.config.clone(),
        isolated: a.isolated,
        select: a.select.clone(),
        ignore: a.ignore.clone(),
        extend_select: a.extend_select.clone(),
        config_inline: a.config_inline.clone(),
        ..Default::default()
    })?;
    // The project root when neither a configuration nor a git work tree gives one (docs/spec.md §4).
    set.fallback_root = a
        .write_baseline
        .as_ref()
        .or(a.baseline.as_ref())
        .map(|p| ctxlint::config::absolute(p).parent().map(PathBuf::from).unwrap_or_default());
    Ok(set)
}

/// Refuses (exit 2) an output file that is a configuration ctxlint would
/// read: the `ctxlint.toml`, `.ctxlint.toml` or `pyproject.toml` (with a
/// `[tool.ctxlint]` table) that discovery finds from the file's own folder.
/// Writing a report over it would break the next run.
fn refuse_config_overwrite(outputs: &[(&str, &Option<PathBuf>)]) -> ctxlint::Result<()> {
    for (flag, p) in outputs {
        let Some(p) = p.as_deref() else { continue };
        let abs = ctxlint::config::absolute(p);
        let Some(dir) = abs.parent() else { continue };
        if ctxlint::config::Config::discover(dir).is_some_and(|c| ctxlint::config::absolute(&c) == abs) {
            return Err(Error::Usage(format!(
                "{flag} {}: this is the ctxlint configuration found for that folder; writing a report over it would break the next run: write the report elsewhere",
                ctxlint::escape::shown(p)
            )));
        }
    }
    Ok(())
}

pub(crate) fn cmd_check(a: CheckArgs, color: ColorChoice) -> ctxlint::Result<i32> {
    let guard = |paths: &[String]| {
        refuse_overwrite(paths, &[&a.config, &a.baseline], &[("-o", &a.output_file)])?;
        refuse_overwrite(paths, &[&a.config], &[("--write-baseline", &a.write_baseline)])
    };
    guard(&a.paths)?;
    refuse_config_overwrite(&[("-o", &a.output_file), ("--write-baseline", &a.write_baseline)])?;
    if a.statistics
        && matches!(
            a.output_format,
            OutputFormat::Sarif | OutputFormat::Junit | OutputFormat::Gitlab | OutputFormat::Html
        )
    {
        let name = a.output_format.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
        return Err(Error::Usage(format!(
            "--statistics prints counts per rule, as a table or as JSON; {name} has no such form: drop --statistics, or use --output-format full, concise, grouped, github, json or json-lines"
        )));
    }
    let configs = config_set(&a)?;
    if let Some(p) = &a.show_settings {
        write_out_masked(&ctxlint::report::settings::render(&configs, p)?);
        return Ok(exit_code::OK);
    }
    let mut paths = a.paths.clone();
    if paths.is_empty() {
        if stdin_is_piped() {
            return Err(Error::Usage(
                "no PATH given and standard input is piped: pass `-` to check standard input (`ctxlint check -`), or name the files to check; with no PATH, ctxlint scans the installed agents' session folders".into(),
            ));
        }
        let looked;
        (paths, looked) = agent_folders();
        if paths.is_empty() {
            return Err(Error::Usage(format!(
                "no PATH given, and no agent session folders were found (looked for {}); try `ctxlint check PATH`",
                looked.join(", ")
            )));
        }
        guard(&paths)?;
        if !a.quiet {
            say!("ctxlint: scanning the session folders of installed agents: {}", paths.join(", "));
        }
    }
    let started = std::time::Instant::now();
    let discover = ctxlint::inputs::DiscoverOptions {
        forced: a.input_format,
        no_stream: a.no_stream,
        strict: a.strict,
        no_ignore: a.no_ignore,
        stdin_filename: a.stdin_filename.clone(),
        not_inputs: [&a.output_file, &a.write_baseline, &a.baseline, &a.config]
            .into_iter()
            .filter_map(|p| p.clone())
            .collect(),
        exclude: ctxlint::inputs::exclude_set(&a.exclude)?,
        session: a.session.clone(),
        // (`--show-files` lists every file's format before anything is checked.)
        detect_when_checked: !a.show_files,
    };
    let plan = ctxlint::inputs::discover(&paths, &discover)?;
    // A large file named on the command line: the whole document its
    // detection parsed is given back before the file is loaded.
    if crate::names_a_large_file(&paths) {
        crate::release_freed_memory();
    }
    if a.show_files {
        write_out_masked(&ctxlint::report::settings::files(&plan));
        return Ok(exit_code::OK);
    }
    // `-q`: the findings only (the skipped files are still in JSON `skipped`).
    if !a.quiet {
        for e in &plan.unrecognised {
            say!("ctxlint: warning: {e}; skipped");
        }
        // (Files detected when checked are skipped, if they are, once checked.)
        if plan.later.is_none() {
            warn_walked_skips(&plan.skipped, &plan.unrecognised, a.verbose);
        }
    }
    let skips_warned = plan.later.is_none();
    let discovered = started.elapsed();
    if rayon::iter::ParallelIterator::any(rayon::iter::IntoParallelRefIterator::par_iter(&plan.jobs), |j| {
        j.stored_bytes() >= LARGE_INPUT
    }) {
        return_freed_memory_at_once();
    }
    let bar = (std::io::stderr().is_terminal() && plan.work_len() >= 200).then(|| {
        let b = indicatif::ProgressBar::new(plan.work_len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} inputs {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let tick = |_: u64| {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let (mut report, pages) = if a.output_format == OutputFormat::Html && !a.statistics {
        ctxlint::report::html::check_plan_pages(plan, &configs, &tick)
    } else {
        (ctxlint::check_plan_with(plan, &configs, &tick), Vec::new())
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if !a.quiet {
        if !skips_warned {
            warn_walked_skips(&report.skipped, &report.unrecognised, a.verbose);
        }
        for w in report.files.iter().flat_map(ctxlint::FileSummary::warnings) {
            say!("ctxlint: warning: {}", ctxlint::text::mask_secrets(&w));
        }
        // Named up to three; more in one counted note (a folder of cassettes
        // of other endpoints gave 36 notes).
        let notes: Vec<String> = report.files.iter().filter_map(ctxlint::FileSummary::note).collect();
        if notes.len() <= 3 || a.verbose {
            for n in &notes {
                say!("ctxlint: note: {}", ctxlint::text::mask_secrets(n));
            }
        } else {
            say!(
                "ctxlint: note: {} inputs hold no request ctxlint reads (not model calls, or bodies of a shape it does not read): nothing in them was checked (`--verbose` names them)",
                notes.len()
            );
        }
    }
    // `--fail-on` on the command line wins over every configuration's `fail-on`.
    if let Some(f) = a.fail_on {
        let s = match f {
            FailOn::Warning => Severity::Warning,
            FailOn::Error => Severity::Error,
        };
        let paths: Vec<String> = report.findings.iter().map(|f| f.path.clone()).collect();
        for p in paths {
            report.fail_on.insert(p, s);
        }
    }
    if a.verbose {
        verbose_report(&report, discovered, started.elapsed());
    }
    if let Some(p) = &a.write_baseline {
        ctxlint::baseline::write(p, &report.findings)?;
        if !a.quiet {
            say!("ctxlint: wrote {} finding(s) to the baseline {}", report.findings.len(), p.display());
        }
        print_failures(&report.errors);
        return Ok(if report.errors.is_empty() { exit_code::OK } else { exit_code::USAGE });
    }
    if let Some(p) = &a.baseline {
        let known = ctxlint::baseline::read(p)?;
        let n = ctxlint::baseline::filter(&mut report.findings, &known);
        if !a.quiet {
            say!("ctxlint: {n} finding(s) already in the baseline {} were not reported", p.display());
        }
    }
    report.findings.iter_mut().for_each(ctxlint::report::mask_finding);
    if a.sort == crate::args::SortOrder::Impact {
        ctxlint::impact::sort_by_impact(&mut report.findings);
    }
    let color = use_color(color, a.output_file.is_some());
    let summary = !a.quiet;
    if a.statistics {
        use ctxlint::report::statistics;
        let text = match a.output_format {
            OutputFormat::Json => statistics::json(&report),
            OutputFormat::JsonLines => statistics::json_lines(&report),
            _ => statistics::table(&report, summary),
        };
        emit(&text, a.output_file.as_ref())?;
    } else {
        use ctxlint::report as r;
        let format = a.output_format;
        emit_masked(a.output_file.as_ref(), format != OutputFormat::Html, &mut |w| match format {
            OutputFormat::Full => r::full::write(&report, color, summary, w),
            OutputFormat::Concise => r::concise::write(&report, summary, w),
            OutputFormat::Grouped => r::grouped::write(&report, color, summary, w),
            OutputFormat::Json => r::json::write(&report, w),
            OutputFormat::JsonLines => r::json_lines::write(&report, w),
            OutputFormat::Github => r::github::write(&report, w),
            OutputFormat::Sarif => r::sarif::write(&report, w),
            OutputFormat::Junit => w.write_all(r::junit::render(&report).as_bytes()),
            OutputFormat::Gitlab => r::gitlab::write(&report, w),
            OutputFormat::Html => r::html::write(&report, &pages, w),
        })?;
    }
    print_failures(&report.errors);
    if !a.quiet {
        // Past the run's cap every later input's findings are counted: one
        // line each for a few inputs, else one line for all (20,000 small
        // files past the cap printed 3,334 warnings).
        let per_run = report.unlisted.iter().filter(|u| u.per_run).count();
        for u in report.unlisted.iter().filter(|u| !u.per_run || per_run <= UNLISTED_LINES) {
            say!(
                "ctxlint: warning: {}: {}",
                ctxlint::escape::escape_controls(&ctxlint::text::mask_path(&u.path)),
                ctxlint::report::unlisted_message(u)
            );
        }
        if per_run > UNLISTED_LINES {
            let n: usize = report.unlisted.iter().filter(|u| u.per_run).map(|u| u.count).sum();
            say!(
                "ctxlint: warning: {n} more findings in {per_run} inputs are not listed (at most {} findings are listed per run; the JSON report's `unlisted` names each input)",
                ctxlint::rules::MAX_LISTED_PER_RUN
            );
        }
    }
    // The exit code is decided last, once every report is written (docs/spec.md §1).
    if !report.errors.is_empty() {
        return Ok(exit_code::USAGE);
    }
    if report.files.is_empty() && !report.skipped.is_empty() {
        // Standard input is named as its warning named it (`--stdin-filename`).
        let named: Vec<String> = paths
            .iter()
            .map(|p| match (p.as_str(), &a.stdin_filename) {
                ("-", Some(name)) => name.clone(),
                _ => p.clone(),
            })
            .collect();
        say!("ctxlint: error: no input of a known format in {}", named.join(", "));
        return Ok(exit_code::USAGE);
    }
    if report.files.is_empty() {
        say!("ctxlint: warning: no input files found under {}", paths.join(", "));
    }
    // Known sidecars are not inputs: never a `--strict` failure.
    let strict_skips = report.skipped.iter().filter(|s| !ctxlint::sidecars::is_sidecar_reason(&s.reason)).count();
    if a.strict && strict_skips > 0 {
        say!("ctxlint: error: {} file(s) skipped (--strict)", strict_skips);
        return Ok(exit_code::USAGE);
    }
    Ok(if report.failing() && !a.exit_zero { exit_code::FINDINGS } else { exit_code::OK })
}

/// `--verbose`: each checked input with its format and size, and the phases' times, on stderr.
fn verbose_report(r: &ctxlint::CheckReport, discovered: std::time::Duration, total: std::time::Duration) {
    for f in &r.files {
        let size = if ctxlint::formats::is_transcript(f.format) {
            format!("{} entr{}", f.entries, if f.entries == 1 { "y" } else { "ies" })
        } else {
            format!("{} request{}", f.requests, if f.requests == 1 { "" } else { "s" })
        };
        let n = f.findings;
        say!(
            "ctxlint: checked {} ({}, {size}, {}): {n} finding{}; load {:.1} ms, rules {:.1} ms",
            f.path,
            f.format,
            human_bytes(f.bytes),
            if n == 1 { "" } else { "s" },
            f.load_time.as_secs_f64() * 1e3,
            f.rules_time.as_secs_f64() * 1e3
        );
    }
    // The skipped files were each named in the warnings before the check.
    say!(
        "ctxlint: {} input{} checked, {} skipped; discovery {:.1} ms, total {:.1} ms",
        r.files.len(),
        if r.files.len() == 1 { "" } else { "s" },
        r.skipped.len(),
        discovered.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
}

/// `1234` → "1.2 KB" (decimal units, as `ls -h --si`).
fn human_bytes(n: u64) -> String {
    match n {
        0..=999 => format!("{n} B"),
        1_000..=999_999 => format!("{:.1} KB", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// Walked files that were skipped, shown in a run's warnings before it
/// says "and N more" (all of them with `--verbose`; every one is in JSON
/// `skipped` and `--show-files`).
const WALKED_SKIPS_SHOWN: usize = 20;

/// Warns about each file skipped while walking (docs/spec.md §1: never a silent
/// skip), naming it and the reason; files named on the command line were
/// warned about already, with the formats tried.
fn warn_walked_skips(skipped: &[ctxlint::inputs::Skipped], unrecognised: &[ctxlint::Error], verbose: bool) {
    let named: std::collections::HashSet<String> =
        unrecognised.iter().filter_map(|e| e.path().map(|p| p.display().to_string())).collect();
    let (sidecars, all): (Vec<&ctxlint::inputs::Skipped>, Vec<_>) = skipped
        .iter()
        .filter(|s| !named.contains(&s.path))
        .partition(|s| ctxlint::sidecars::is_sidecar_reason(&s.reason));
    // Files agents keep beside their sessions by design, and reports ctxlint
    // wrote: one counted note (docs/spec.md §1), each listed in JSON `skipped`.
    if !sidecars.is_empty() {
        say!(
            "ctxlint: note: {} sidecar file{} skipped (kept beside sessions by their agent, or a ctxlint report; `--show-files` lists them)",
            sidecars.len(),
            if sidecars.len() == 1 { "" } else { "s" }
        );
        if verbose {
            for s in &sidecars {
                say!("ctxlint: note: {}: {}; skipped", s.path, s.reason);
            }
        }
    }
    // A walk over a project meets source files, docs and images that can
    // never be transcripts: those are counted in one note (and listed in
    // JSON `skipped`), the others — JSON, JSONL, YAML, compressed, no
    // extension, unreadable — each named.
    let (walked, other): (Vec<&ctxlint::inputs::Skipped>, Vec<_>) = all
        .into_iter()
        .partition(|s| verbose || could_be_input(&s.path) || !s.reason.starts_with(ctxlint::inputs::NO_FORMAT));
    if !other.is_empty() {
        say!(
            "ctxlint: note: {} other file{} skipped (not JSON, JSONL or YAML; `--show-files` or `--verbose` lists them)",
            other.len(),
            if other.len() == 1 { "" } else { "s" }
        );
    }
    let shown = if verbose { walked.len() } else { walked.len().min(WALKED_SKIPS_SHOWN) };
    for s in &walked[..shown] {
        say!("ctxlint: warning: {}: {}; skipped", s.path, s.reason);
    }
    if walked.len() > shown {
        say!(
            "ctxlint: warning: and {} more files skipped (`--verbose` or `--show-files` lists them all)",
            walked.len() - shown
        );
    }
    if walked.iter().any(|s| s.reason.starts_with(ctxlint::inputs::NO_FORMAT)) {
        say!(
            "ctxlint: note: a file skipped for matching no format was tried as each of the {} formats `ctxlint formats` lists; use --input-format to force one",
            ctxlint::formats::REGISTRY.len()
        );
    }
}

/// Whether a file's name leaves it possibly an input: JSON, JSONL, YAML
/// (any of them compressed), a `.log`, or no extension at all.
fn could_be_input(path: &str) -> bool {
    let name =
        std::path::Path::new(path).file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let name = [".gz", ".zst", ".bz2", ".xz"].iter().find_map(|c| name.strip_suffix(c)).unwrap_or(&name);
    match name.rsplit_once('.') {
        None => true,
        Some((_, ext)) => matches!(ext, "json" | "jsonl" | "ndjson" | "yaml" | "yml" | "log"),
    }
}

/// Says why inputs could not be checked: each distinct error once (an
/// invalid configuration fails every input under it), with the inputs it
/// stopped when it is not about the input itself.
fn print_failures(failed: &[ctxlint::Failed]) {
    let mut order: Vec<String> = Vec::new();
    let mut inputs: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
    for f in failed {
        let m = f.message();
        if !inputs.contains_key(&m) {
            order.push(m.clone());
        }
        inputs.entry(m).or_default().push(ctxlint::text::mask_path(&f.path).into_owned());
    }
    for m in order {
        say_lines!("ctxlint: error: {m}");
        let paths = &inputs[&m];
        let own = paths.len() == 1 && m.starts_with(&format!("{}:", ctxlint::escape::escape_controls(&paths[0])));
        if !own && !paths.iter().all(|p| p.is_empty()) {
            let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
            let more = if paths.len() > 5 { format!(" and {} more", paths.len() - 5) } else { String::new() };
            say!(
                "  so {} input{} {} not checked: {}{more}",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" },
                if paths.len() == 1 { "was" } else { "were" },
                shown.join(", ")
            );
        }
    }
}
