//! `ctxlint man`: the man page (roff) built from the clap command, every
//! subcommand and option on one page.

use crate::args::Cli;
use clap::CommandFactory;

/// The man page: the main page (synopsis, description, options), then a
/// section per subcommand with its synopsis, description and every option.
/// One page, so it names no other page.
pub(crate) fn man_page() -> std::io::Result<String> {
    let mut cmd = Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    let mut page = String::from_utf8_lossy(&out).into_owned();
    page.push_str(".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        page.push_str(&man_subcommand(sub));
    }
    if let Some(after) = cmd.get_after_help() {
        page.push_str(".SH EXAMPLES\n");
        page.push_str(&roff_text(&after.to_string()));
    }
    page.push_str(&format!(".SH VERSION\nv{}\n", env!("CARGO_PKG_VERSION")));
    Ok(page)
}

/// Escapes text for roff: backslashes, hyphens, and leading dots or quotes.
fn roff_escape(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') { format!("\\&{s}") } else { s }
}

/// Text kept as written (no filling), escaped.
fn roff_text(s: &str) -> String {
    let mut out = String::from(".nf\n");
    for l in s.lines() {
        out.push_str(&roff_escape(l));
        out.push('\n');
    }
    out.push_str(".fi\n");
    out
}

/// One subcommand's section of the man page.
fn man_subcommand(sub: &clap::Command) -> String {
    let mut out = String::new();
    let usage = sub.clone().render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ").to_string();
    out.push_str(&format!(".SS \"{}\"\n", roff_escape(&format!("ctxlint {}", sub.get_name()))));
    out.push_str(&format!(".B {}\n.PP\n", roff_escape(&usage)));
    if let Some(about) = sub.get_long_about().or(sub.get_about()) {
        for para in about.to_string().split("\n\n") {
            out.push_str(&roff_escape(&para.replace('\n', " ")));
            out.push_str("\n.PP\n");
        }
    }
    for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
        let mut names = Vec::new();
        if let Some(c) = arg.get_short() {
            names.push(format!("\\fB\\-{}\\fR", roff_escape(&c.to_string())));
        }
        if let Some(l) = arg.get_long() {
            names.push(format!("\\fB\\-\\-{}\\fR", roff_escape(l)));
        }
        let values: Vec<String> = arg
            .get_value_names()
            .map(|v| v.iter().map(|n| format!("\\fI{}\\fR", roff_escape(n))).collect())
            .unwrap_or_default();
        let head = if names.is_empty() {
            values.join(" ")
        } else if arg.get_action().takes_values() && !values.is_empty() {
            format!("{} {}", names.join(", "), values.join(" "))
        } else {
            names.join(", ")
        };
        out.push_str(&format!(".TP\n{head}\n"));
        let help = arg.get_long_help().or(arg.get_help()).map(|h| h.to_string()).unwrap_or_default();
        out.push_str(&roff_escape(&help.replace('\n', " ")));
        let possible: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|p| !p.is_hide_set())
            .map(|p| match p.get_help() {
                Some(h) => format!("{} ({h})", p.get_name()),
                None => p.get_name().to_string(),
            })
            .collect();
        if !possible.is_empty()
            && arg.get_num_args().is_none_or(|n| n.takes_values())
            && arg.get_action().takes_values()
        {
            out.push_str(&roff_escape(&format!("; values: {}.", possible.join(", "))));
        }
        out.push('\n');
    }
    if let Some(after) = sub.get_after_long_help().or(sub.get_after_help()) {
        out.push_str(".PP\n");
        out.push_str(&roff_text(&after.to_string()));
    }
    for nested in sub.get_subcommands().filter(|s| s.get_name() != "help") {
        out.push_str(&man_subcommand(nested));
    }
    out
}
