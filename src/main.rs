//! The `ctxlint` command line: parses arguments (clap derive), runs the
//! library, renders, and maps errors to the exit codes of SPEC §4. Nothing
//! else in the crate calls `std::process::exit`.

use clap::{Args, Parser, Subcommand, ValueEnum};
use ctxlint::error::exit_code;
use ctxlint::{config::Settings, formats, rules::RuleId, CheckOptions, Severity};
use std::io::{IsTerminal, Write};

/// Lint what LLM agents send to their models.
///
/// ctxlint reads session transcripts (pi/OpenClaw, Claude Code, Codex) and
/// recorded request bodies (OpenAI, Anthropic, Gemini, Bedrock, pydantic-ai,
/// exchange logs, VCR cassettes), rebuilds the context the model saw at each
/// step, and reports defects: context rendered twice, system prompts dropped
/// or duplicated, history rewritten under the prompt cache, tool calls without
/// results, replayed user turns, duplicate replies, and session files that
/// were not append-only.
#[derive(Parser, Debug)]
#[command(name = "ctxlint", version, about, long_about, after_help = "Examples:\n  ctxlint check session.jsonl\n  ctxlint check ~/.openclaw/agents/main/sessions --output-format json\n  ctxlint rule duplicate-system-event\n\nExit codes: 0 no findings, 1 findings, 2 usage/config/I-O error, 101 internal error.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Lint files, directories (recursive), or - (stdin).
    Check(CheckArgs),
    /// Explain a rule (by name or code), or list them all.
    Rule(RuleArgs),
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Files or directories to check; `-` reads standard input.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT")]
    output_format: Option<OutputFormat>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    input_format: Option<&'static str>,
    /// Check every request file on its own instead of joining a directory's files into a stream.
    #[arg(long)]
    no_stream: bool,
    /// Treat walked files that match no format as errors.
    #[arg(long)]
    strict: bool,
    /// Include hidden and .gitignore'd files when walking directories.
    #[arg(long)]
    no_ignore: bool,
    /// Name to report for standard input.
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<String>,
    /// Exit 0 even when there are findings.
    #[arg(long)]
    exit_zero: bool,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Args, Debug)]
struct RuleArgs {
    /// Rule name or code, e.g. `duplicate-system-event` or `CTX101`.
    name: Option<String>,
    /// List every rule with its documentation.
    #[arg(long)]
    all: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum OutputFormat {
    /// Human-readable, with excerpts and help (default on a terminal).
    Full,
    /// One JSON object (SPEC §4).
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

fn parse_input_format(s: &str) -> Result<&'static str, String> {
    formats::parse_format_id(s).ok_or_else(|| format!("unknown input format `{s}`; known: {}", formats::ALL.join(", ")))
}

fn use_color(c: ColorChoice) -> bool {
    match c {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                return false;
            }
            if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
                return true;
            }
            std::io::stdout().is_terminal()
        }
    }
}

fn main() {
    let code = match std::panic::catch_unwind(run) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("ctxlint: internal error (a bug): please report it with the input that caused it");
            exit_code::INTERNAL
        }
    };
    std::process::exit(code);
}

fn run() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) => cmd_check(a),
        Command::Rule(a) => cmd_rule(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ctxlint: error: {e}");
            e.exit_code()
        }
    }
}

fn write_out(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

fn cmd_check(a: CheckArgs) -> ctxlint::Result<i32> {
    if a.paths.is_empty() {
        return Err(ctxlint::Error::Usage("no PATH given (try `ctxlint check .`)".into()));
    }
    let opts = CheckOptions {
        paths: a.paths.clone(),
        discover: ctxlint::inputs::DiscoverOptions {
            forced: a.input_format,
            no_stream: a.no_stream,
            strict: a.strict,
            no_ignore: a.no_ignore,
            stdin_filename: a.stdin_filename.clone(),
        },
    };
    let settings = Settings::default();
    let report = ctxlint::check(&opts, &settings)?;
    let color = use_color(a.color);
    let fmt = a.output_format.unwrap_or(OutputFormat::Full);
    let text = match fmt {
        OutputFormat::Full => ctxlint::report::full::render(&report, color),
        OutputFormat::Json => ctxlint::report::json::render(&report),
    };
    write_out(&text);
    for e in &report.errors {
        eprintln!("ctxlint: error: {e}");
    }
    if !report.errors.is_empty() {
        return Ok(exit_code::USAGE);
    }
    let failing = report.findings.iter().any(|f| f.severity >= Severity::Warning);
    Ok(if failing && !a.exit_zero { exit_code::FINDINGS } else { exit_code::OK })
}

fn cmd_rule(a: RuleArgs) -> ctxlint::Result<i32> {
    let mut out = String::new();
    if a.all || a.name.is_none() {
        for r in RuleId::ALL {
            let m = r.meta();
            if a.all {
                out.push_str(&format!("# {} `{}` ({})\n\n{}\n", m.code, m.name, m.default_severity.as_str(), m.docs));
            } else {
                out.push_str(&format!("{:<7} {:<24} {:<8} {}\n", m.code, m.name, m.default_severity.as_str(), m.summary));
            }
        }
    } else if let Some(n) = &a.name {
        let r = RuleId::from_name_or_code(n).ok_or_else(|| ctxlint::Error::Usage(format!("unknown rule `{n}` (try `ctxlint rule --all`)")))?;
        let m = r.meta();
        out.push_str(&format!("# {} `{}`\n\nDefault severity: {}. {}\n\n{}", m.code, m.name, m.default_severity.as_str(), m.summary, m.docs));
    }
    write_out(&out);
    Ok(exit_code::OK)
}
