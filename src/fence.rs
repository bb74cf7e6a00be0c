//! `ctxlint fence`: the configuration it reads (`[fence] owned`) and the
//! command.

use crate::args::{ColorChoice, FenceArgs, OutputFormat};
use crate::output::{emit, refuse_overwrite, use_color};
use ctxlint::Error;
use ctxlint::config::Config;
use ctxlint::error::exit_code;
use std::path::{Path, PathBuf};

/// The configuration: `--isolated` (none), `--config PATH`, or the nearest `ctxlint.toml`.
fn load_config(path: Option<&PathBuf>, isolated: bool) -> ctxlint::Result<Config> {
    if isolated {
        return Ok(Config::default());
    }
    if let Some(p) = path {
        return Config::load(p);
    }
    match std::env::current_dir().ok().and_then(|d| Config::discover(&d)) {
        Some(p) => Config::load(&p),
        None => Ok(Config::default()),
    }
}

/// `fence`'s configuration file from the `--config` options: one file at
/// most, not with `--isolated`; `fence` takes no `KEY = VALUE` settings.
pub(crate) fn fence_config(options: Vec<String>, isolated: bool) -> ctxlint::Result<Option<PathBuf>> {
    let mut file = None;
    for o in options {
        if !Path::new(&o).is_file() && o.contains('=') {
            return Err(Error::Usage(format!(
                "--config {o}: `fence` reads only a configuration file's `[fence] owned`, not `KEY = VALUE` settings"
            )));
        }
        if isolated {
            return Err(Error::Usage(format!("--config {o}: --isolated reads no configuration file")));
        }
        if file.replace(PathBuf::from(&o)).is_some() {
            return Err(Error::Usage("--config: `fence` takes one configuration file".into()));
        }
    }
    Ok(file)
}

/// What `fence` would print for a format it refuses before any work
/// (`--output-format html`): nothing; never reached.
fn unreachable_html() -> String {
    String::new()
}

pub(crate) fn cmd_fence(a: FenceArgs, color: ColorChoice) -> ctxlint::Result<i32> {
    use ctxlint::fence::{self, Baseline, FenceOptions};
    use ctxlint::report::fence as render;
    if a.output_format == OutputFormat::Html {
        // It once printed GitLab JSON under this name.
        return Err(Error::Usage(
            "fence has no html output: use full, json, or one of the CI formats (concise, grouped, json-lines, github, sarif, junit, gitlab)".into(),
        ));
    }
    let (baseline, new) = match (a.prefix_size, a.files.as_slice()) {
        (None, [old, new]) => (Baseline::File(old.clone()), new.clone()),
        (Some(size), [new]) => {
            let sha256 = a.prefix_sha256.as_deref().map(fence::parse_sha256_hex).transpose()?;
            (Baseline::Fingerprint { size, sha256 }, new.clone())
        }
        (None, _) => {
            return Err(Error::Usage("fence needs OLD and NEW, or NEW with --prefix-size N".into()));
        }
        (Some(_), _) => {
            return Err(Error::Usage("with --prefix-size, give only NEW".into()));
        }
    };
    refuse_overwrite(&a.files, &[&a.config], &[("-o", &a.output_file)])?;
    let config = load_config(a.config.as_ref(), a.isolated)?;
    let owned = a
        .owned
        .or(config.fence_owned)
        .map(|v| v.into_iter().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect());
    let opts = FenceOptions { owned, hashes: a.output_format == OutputFormat::Json };
    let mut report = fence::fence(&baseline, &new, &opts)?;
    report.findings.iter_mut().for_each(ctxlint::report::mask_finding);
    for e in &mut report.appended {
        for s in [&mut e.id, &mut e.parent, &mut e.kind, &mut e.role, &mut e.problem].into_iter().flatten() {
            *s = ctxlint::text::mask_secrets(s);
        }
    }
    let color = use_color(color, a.output_file.is_some());
    let text = match a.output_format {
        OutputFormat::Full => render::full(&report, color),
        OutputFormat::Json => render::json(&report),
        other => {
            // The CI formats list the findings as `check` does.
            let r = render::as_check_report(&report);
            match other {
                OutputFormat::Concise => ctxlint::report::concise::render(&r),
                OutputFormat::Grouped => ctxlint::report::grouped::render(&r, color, true),
                OutputFormat::JsonLines => ctxlint::report::json_lines::render(&r),
                OutputFormat::Github => ctxlint::report::github::render(&r),
                OutputFormat::Sarif => ctxlint::report::sarif::render(&r),
                OutputFormat::Junit => ctxlint::report::junit::render(&r),
                OutputFormat::Gitlab => ctxlint::report::gitlab::render(&r),
                OutputFormat::Full | OutputFormat::Json | OutputFormat::Html => unreachable_html(),
            }
        }
    };
    emit(&text, a.output_file.as_ref())?;
    Ok(if report.verdict.is_clean() { exit_code::OK } else { exit_code::FINDINGS })
}
