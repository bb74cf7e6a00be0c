//! `check --show-settings` and `check --show-files`: what `check` would use,
//! printed without checking anything.

use crate::config::ConfigSet;
use crate::error::Result;
use crate::inputs::{Job, Plan};
use crate::rule_id::{RuleId, Severity};

/// A TOML basic string (JSON string escapes are valid TOML ones).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn list(v: &[regex::Regex]) -> String {
    let items: Vec<String> = v.iter().map(|r| quoted(r.as_str())).collect();
    format!("[{}]", items.join(", "))
}

/// The settings in force for `path` (as given) and the file they come from,
/// in `ctxlint.toml` syntax: `fail-on`, `context-block-min`,
/// `context-block-allow`, `event-patterns` and every rule's level (after
/// `[[overrides]]`, `--select` and `--ignore`), then the configured `[prices]`
/// families (names as matched: lowercase, `.` as `-`). An invalid configuration file is an error.
pub fn render(configs: &ConfigSet, path: &str) -> Result<String> {
    let config = configs.for_path(path)?;
    let settings = config.settings_for(path);
    let mut out = format!("# settings for {path}\n");
    match &config.file {
        Some(f) => out.push_str(&format!("# from {}\n", f.display())),
        None => out.push_str("# from the defaults (no ctxlint.toml in force)\n"),
    }
    let root = configs.project_root(&config, path);
    out.push_str(&format!("# project root (fingerprint paths): {}\n", root.display()));
    out.push_str(&format!("fail-on = {}\n", quoted(config.fail_on.unwrap_or(Severity::Warning).as_str())));
    out.push_str(&format!("context-block-min = {}\n", settings.context_block_min));
    out.push_str(&format!("context-block-allow = {}\n", list(&settings.context_block_allow)));
    out.push_str(&format!("event-patterns = {}\n", list(&settings.event_patterns)));
    out.push_str("\n[rules]\n");
    for r in RuleId::ALL {
        let level = match (config.enabled(r), settings.level(r)) {
            (false, _) => "\"off\"  # --select/--ignore".to_string(),
            (true, None) => "\"off\"".to_string(),
            (true, Some(s)) => quoted(s.as_str()),
        };
        out.push_str(&format!("{} = {level}  # {}\n", r.name(), r.code()));
    }
    // The configured price families (the built-in table follows them).
    for (family, p) in &config.prices.configured {
        let opt = |k: &str, v: Option<f64>| v.map(|v| format!(", {k} = {v}")).unwrap_or_default();
        out.push_str(&format!(
            "\n[prices.{}]  # USD per million tokens; then the built-in table (impact/prices.rs)\ninput = {}\noutput = {}{}{}{}\n",
            quoted(family),
            p.input,
            p.output,
            opt("cache-read", p.cache_read).replace(", ", "\n"),
            opt("cache-write", p.cache_write).replace(", ", "\n"),
            opt("cache-write-1h", p.cache_write_1h).replace(", ", "\n"),
        ));
    }
    Ok(out)
}

/// The inputs a plan would check, one per line with its format (the files of
/// a stream indented under it), then the skipped files with their reasons and
/// the paths that cannot be read.
pub fn files(plan: &Plan) -> String {
    // A file name is one line, whatever it holds: its newlines and other
    // control characters are shown escaped (this text keeps its own).
    let esc = crate::escape::escape_controls;
    let mut out = String::new();
    for job in &plan.jobs {
        match job {
            // One session of a store is named by its id (masked as in reports).
            Job::File(s, f) => match &s.session {
                Some(id) => out.push_str(&format!(
                    "{} (session {}): {f}\n",
                    esc(&s.display),
                    esc(&crate::text::mask_secrets(id))
                )),
                None => out.push_str(&format!("{}: {f}\n", esc(&s.display))),
            },
            Job::Stream(dir, f, srcs) => {
                out.push_str(&format!("{}: {f} stream of {} files\n", esc(dir), srcs.len()));
                for s in srcs {
                    out.push_str(&format!("  {}\n", esc(&s.display)));
                }
            }
        }
    }
    for s in &plan.skipped {
        out.push_str(&format!("{}: skipped: {}\n", esc(&crate::text::mask_path(&s.path)), esc(&s.reason)));
    }
    for e in &plan.errors {
        out.push_str(&format!("error: {}\n", esc(&e.to_string())));
    }
    out
}
