//! The `ctxlint` command line: parses arguments (clap derive), runs the
//! library, renders, and maps errors to the exit codes of docs/spec.md §4. The
//! binary (`src/main.rs`) and the Python package's `ctxlint` command both
//! call [`main_with_args`]; only the binary calls `std::process::exit`.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use ctxlint::config::Config;
use ctxlint::error::exit_code;
use ctxlint::{Error, Severity, formats, rules::RuleId};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// `eprintln!` with key-like strings masked (a key in a file name, say) and
/// control characters escaped (`\u{1b}`): a file name in a message cannot
/// drive the terminal, and a newline in a file name cannot start a line of
/// its own (a forged `::error` workflow command in a CI log): every message
/// is one line.
macro_rules! say {
    ($($t:tt)*) => {
        eprintln!(
            "{}",
            ctxlint::escape::escape_controls_but(&ctxlint::text::mask_output(&format!($($t)*)), &['\t'])
        )
    };
}

/// [`say!`] for an error message that has lines of its own (a TOML parse
/// error quotes the configuration with a caret under the fault): its line
/// breaks are kept. Only for [`Error`]'s messages, whose paths are escaped
/// where the message is made ([`ctxlint::escape::shown`]).
macro_rules! say_lines {
    ($($t:tt)*) => {
        eprintln!(
            "{}",
            ctxlint::escape::escape_controls_but(&ctxlint::text::mask_output(&format!($($t)*)), &['\n', '\t'])
        )
    };
}

/// Lint what LLM agents send to their models.
///
/// ctxlint reads session transcripts (pi/OpenClaw, Claude Code, Codex, Gemini
/// CLI and Qwen Code, Copilot CLI, Cline and Roo/Kilo Code, OpenCode and Kilo
/// CLI; aider, the AI SDK, OpenAI Agents, LangGraph) and recorded request
/// bodies (OpenAI, Anthropic, Gemini, Bedrock, pydantic-ai, exchange logs, VCR
/// cassettes, HAR, OpenTelemetry GenAI spans), rebuilds the context the model saw at each
/// step, and reports defects: context rendered twice, system prompts dropped
/// or duplicated, history rewritten under the prompt cache, tool calls without
/// results, replayed user turns, duplicate replies, and session files that
/// were not append-only.
#[derive(Parser, Debug)]
#[command(
    name = "ctxlint",
    version,
    about,
    long_about,
    after_help = "Examples:\n  ctxlint check session.jsonl\n  ctxlint check ~/.claude/projects --output-format sarif -o ctxlint.sarif\n  ctxlint check                      # scans the installed agents' session folders\n  ctxlint rule duplicate-system-event\n  ctxlint formats                    # every input format and where each agent keeps its files\n\nExit codes: 0 no failing findings, 1 findings, 2 usage/config/I-O error, 101 internal error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to use colour; `auto` follows NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE, CLICOLOR=0, TERM=dumb and the terminal.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    /// `check`: print the findings only: no summary line, no notes on standard error.
    #[arg(short = 'q', long, conflicts_with = "verbose", global = true)]
    quiet: bool,
    /// `check`: also print, on standard error, every checked input with its format and
    /// size (entries or requests) and the time each phase took.
    #[arg(short = 'v', long, global = true)]
    verbose: bool,
    /// `check`, `fence`: a configuration file to use instead of the ones found (ctxlint.toml,
    /// .ctxlint.toml, or a pyproject.toml's [tool.ctxlint]), or a TOML `KEY = VALUE` pair that
    /// overrides one setting of the configuration in force (`--config 'fail-on = "error"'`,
    /// `--config 'rules.CTX101 = "off"'`); repeatable; before or after the subcommand, as ruff's.
    #[arg(long = "config", value_name = "CONFIG_OPTION", global = true)]
    config_options: Vec<String>,
    /// `check`, `fence`: ignore every configuration file (before or after the subcommand).
    #[arg(long, global = true)]
    isolated: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Lint files, directories (recursive), or - (stdin). With no PATH, scan the
    /// session folders of agents installed on this machine.
    #[command(after_long_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Is NEW an append-only, runner-owned extension of OLD?
    ///
    /// `ctxlint fence OLD NEW` compares two snapshots of a session file;
    /// `ctxlint fence NEW --prefix-size N [--prefix-sha256 HEX]` compares NEW
    /// against a recorded fingerprint of OLD. Verdicts: identical, append-owned
    /// (exit 0); truncate, replaced, rewrite, append-malformed, append-foreign
    /// (exit 1, each with its finding). Session files: JSONL sessions of
    /// pi/OpenClaw (`pi-session`), Claude Code, Codex rollouts, Gemini CLI and
    /// Copilot CLI, told apart by their content.
    Fence(FenceArgs),
    /// Structural diff of two requests (A B), or of requests I and J of one stream.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// The contexts as the model saw them, request by request or step by step.
    #[command(after_help = SHOW_HELP)]
    Show(ShowArgs),
    /// Reduce a finding to a small, anonymised case for a bug report.
    ///
    /// For each selected finding, writes DIR/<rule>-<n>/ with the reduced input,
    /// expected.json (every finding ctxlint reports on it, in the schema of the
    /// shared regression cases) and case.md. The input is first sliced to what
    /// the finding depends on, then reduced by delta debugging (entries,
    /// requests, messages, blocks, then lines and words of text) while the same
    /// rule still fires on the same element; then names, ids, emails, phone,
    /// card, IBAN, passport and plate numbers, IP and street addresses, MCP
    /// server names, URLs, paths, keys and free text are replaced by consistent
    /// placeholders, and the finding is checked again before anything is written.
    #[command(after_help = REPRO_HELP)]
    Repro(ReproArgs),
    /// Explain a rule (by name or code), or list them all.
    Rule(RuleArgs),
    /// List every input format id: what it is, whether it is supported yet,
    /// and where each agent keeps its files.
    Formats(FormatsArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to standard output: every subcommand and option on one page.
    Man,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Files or directories to check; `-` reads standard input (at most 4 GiB; over 1 MiB it is
    /// copied to an unnamed temporary file in $TMPDIR).
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Full)]
    output_format: OutputFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    output_file: Option<PathBuf>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    input_format: Option<ctxlint::model::FormatId>,
    /// Check every request file on its own instead of joining a directory's files into a stream.
    #[arg(long)]
    no_stream: bool,
    /// Exit 2 when any file is skipped (matches no format); every other input is still checked and reported.
    #[arg(long)]
    strict: bool,
    /// Also walk files that .gitignore/.ignore exclude (hidden files are always walked).
    #[arg(long)]
    no_ignore: bool,
    /// Print the settings in force for PATH (default: .) and the file they come from, then exit.
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = ".")]
    show_settings: Option<String>,
    /// Print the inputs that would be checked, with their formats, and the skipped files, then exit.
    #[arg(long)]
    show_files: bool,
    /// Name to report for standard input.
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<String>,
    /// Exit 0 even when there are findings (errors — an input not checked, an
    /// invalid configuration, nothing checked at all — still exit 2).
    #[arg(long)]
    exit_zero: bool,
    /// The `--config` options (global: before or after the subcommand).
    #[arg(skip)]
    config_options: Vec<String>,
    /// The file among `--config` options.
    #[arg(skip)]
    config: Option<PathBuf>,
    /// The `KEY = VALUE` pairs among `--config` options.
    #[arg(skip)]
    config_inline: Vec<String>,
    /// `--isolated` (global).
    #[arg(skip)]
    isolated: bool,
    /// Only these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    select: Vec<String>,
    /// Never these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    ignore: Vec<String>,
    /// These rules besides those of --select (names, codes or prefixes, comma-separated); turns
    /// on a rule a configuration turns off.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    extend_select: Vec<String>,
    /// Leave out of the walk the files and folders matching these globs (comma-separated),
    /// matched against each one's name and its path below the folder checked (`--exclude
    /// 'archive/**,*.bak.jsonl'`); files named on the command line are always checked.
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    exclude: Vec<String>,
    /// Print counts per rule instead of the findings.
    #[arg(long)]
    statistics: bool,
    /// Report only findings not recorded in this baseline file.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record today's findings in FILE (then exit 0).
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Worker threads (default: one per core; at most 256, and no more than the inputs or cores when only files are named; fewer when the system refuses them).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Lowest severity that makes the run exit 1 (overrides `fail-on` in the configuration).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    fail_on: Option<FailOn>,
    /// `-q`/`--quiet`, a global option (before or after the subcommand, as ruff's).
    #[arg(skip)]
    quiet: bool,
    /// `-v`/`--verbose`, a global option.
    #[arg(skip)]
    verbose: bool,
}

/// `--fail-on`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FailOn {
    /// Any finding fails the run (the default).
    Warning,
    /// Only errors fail the run.
    Error,
}

const CHECK_HELP: &str = "Examples:
  ctxlint check                                   # the installed agents' session folders
  ctxlint check ~/.claude/projects
  ctxlint check session.jsonl --output-format concise
  ctxlint check . -o report.sarif --output-format sarif
  ctxlint check . --select CTX1 --ignore duplicate-context-block
  ctxlint check transcripts/ --write-baseline ctxlint-baseline.json   # record today's findings
  ctxlint check transcripts/ --baseline ctxlint-baseline.json         # report only new ones
  cat request.json | ctxlint check - --stdin-filename request.json

Standard input (`-`) gets the report a file of the same bytes gets. Up to 1 MiB is kept in
memory; a longer input is copied to an unnamed temporary file in $TMPDIR (else /tmp; in memory
up to 512 MiB when none can be made), never beside an input. At most 4 GiB is read from it:
save a larger input to a file and name the file.

With no PATH, check scans the session folders of the agents installed on this machine:
~/.openclaw/agents/*/sessions, ~/.pi/agent/sessions, ~/.claude/projects, ~/.codex/sessions,
~/.gemini/tmp/*/chats and its /chat save checkpoints (~/.gemini/tmp/*/checkpoint-*.json),
~/.qwen/projects/*/chats, ~/.copilot/session-state/*/events.jsonl,
Cline / Roo Code / Kilo Code task histories in VS Code's globalStorage and ~/.cline/data, and
the OpenCode and Kilo CLI stores ~/.local/share/opencode/opencode.db,
~/.local/share/kilo/kilo.db and the legacy ~/.local/share/opencode/storage/session.
$CLAUDE_CONFIG_DIR, $CODEX_HOME, $GEMINI_CLI_HOME, $QWEN_RUNTIME_DIR or $QWEN_HOME,
$COPILOT_HOME and $XDG_DATA_HOME replace their defaults when set.

Input formats (detected by content; --input-format ID forces one): pi-session, claude-code,
codex-rollout, pydantic-ai-history, openai-chat, openai-responses, anthropic-messages, gemini,
bedrock-converse, exchange-log, vcr-cassette, har, openclaw-trajectory, aider-llm-history,
otel-genai, gemini-cli, copilot-cli, cline-history, ai-sdk-ui-messages, openai-agents-session,
langgraph-state, opencode. `ctxlint formats` lists them with where each agent keeps its files.

Configuration: for each input, the nearest .ctxlint.toml, ctxlint.toml or pyproject.toml with a
[tool.ctxlint] table from the input's folder upward, else the working directory's (`--config
PATH` names one, `--config 'KEY = VALUE'` overrides one setting, `--isolated` ignores all;
`--show-settings PATH` prints what is in force). --select/--extend-select/--ignore take rule
names, codes, code prefixes (CTX1 is CTX101-CTX103) or ALL; `ctxlint rule` lists the rules.

Exit codes:
  0    no finding at or above the failing severity (--fail-on; any finding by default)
  1    findings
  2    usage, configuration or I/O error
  101  internal error (a bug in ctxlint)";

const DIFF_HELP: &str = "The first line is the verdict: `identical`, `extension` (B continues A and extends its cache prefix), `retry` (B's history is a prefix of A's: still a cache read), `rewrite at <level> <pointer>` (B continues A but its prefix diverges there, in cache order tools -> system -> messages), `new conversation` or `compaction` (not compared). Then every element of both requests in cache order: added (+), removed (-), changed (~) with a diff of its text, unchanged runs collapsed (=). Texts are compared as sent; moved `cache_control` markers, key order and whitespace between JSON tokens are not changes. Secrets are masked.\n\nExamples:\n  ctxlint diff req1.json req2.json\n  ctxlint diff cassette.yaml --request 1 2\n  ctxlint diff exchanges.jsonl --request 3 4 --output-format json\n\nExit codes: 0 identical, extension, retry, new conversation or compaction; 1 rewrite; 2 usage or I/O error (e.g. no such request, or a file that is not a request).";

const SHOW_HELP: &str = "Without --request, prints per request (streams) or per step (transcripts: one step per model call, its context rebuilt from the session tree) a table of its messages: index, role, kind, size in bytes, first line and a short hash (equal hashes: equal messages). By default only the messages new since the previous request's or step's context are listed, after a line saying how many were carried over (or that the context was rebuilt: a compaction, another branch, a context carrier dropped); --full lists whole contexts. With --request N (--step N), prints that request's or step's context in full, with its texts. Output is written as it is built. Secrets are masked. A transcript keeps only a prefix of assistant, thinking, tool-call and tool-result texts (a few hundred bytes at most, less for some formats): such texts end with \"… (N bytes; the first K are kept)\" and say their full size. --full on a long session prints every step's whole context (its size grows with the square of the session's length): prefer the default, or --step N.\n\nExamples:\n  ctxlint show session.jsonl\n  ctxlint show session.jsonl --full\n  ctxlint show session.jsonl --step 12\n  ctxlint show cassette.yaml --request 2\n\nExit codes: 0 shown; 2 usage or I/O error (e.g. no such request or step).";

const REPRO_HELP: &str = "Selecting findings: with none of --finding, --line, --pointer, --all, exactly one finding (of --rule, if given) must match. Fingerprints are printed by `ctxlint check --output-format json`.\n\nThe case directory is what `ctxlint check .` needs: run it there, or hand it to ../shared/cases/run_cases.py. Nothing is written beside the inputs: DIR may not lie inside an input folder or the folder of an input file. An existing non-empty case directory is never overwritten (the next number is used); with --force, one that holds only what an earlier repro wrote there is replaced.\n\nExamples:\n  ctxlint repro session.jsonl --line 448 -o ../cases/\n  ctxlint repro big.jsonl --rule duplicate-system-event --all -o ../cases/ --budget 10\n  ctxlint repro cassette.yaml --finding 3f2a9c0d1e4b5a67 -o ../cases/ --source https://github.com/o/r/issues/1\n  ctxlint repro requests/ --all -o ../cases/ --keep-text   # a directory of request bodies (one stream)\n\nExit codes: 0 every selected finding was written as a case; 1 some could not be reproduced (see stderr); 2 usage or I/O error, or no finding matches the selection.";

#[derive(Args, Debug)]
struct ReproArgs {
    /// Files or directories to check, as for `check`.
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<String>,
    /// Only findings of this rule (name or code).
    #[arg(long, value_name = "NAME")]
    rule: Option<String>,
    /// Only the finding with this fingerprint.
    #[arg(long, value_name = "FINGERPRINT")]
    finding: Option<String>,
    /// Only findings at this 1-based line.
    #[arg(long, value_name = "N")]
    line: Option<u32>,
    /// Only findings at this JSON Pointer.
    #[arg(long, value_name = "P")]
    pointer: Option<String>,
    /// Every matching finding (one case each).
    #[arg(long)]
    all: bool,
    /// Directory the cases are written into (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR", required = true)]
    out: PathBuf,
    /// Time budget per finding, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    budget: f64,
    /// Do not anonymise: keep the input's text (for cases that stay private).
    #[arg(long)]
    keep_text: bool,
    /// The bug-report URL to record as the case's `source` (default: the input path, anonymised).
    #[arg(long, value_name = "URL")]
    source: Option<String>,
    /// Replace an existing case directory that holds only what an earlier `repro` wrote there, instead of using the next number.
    #[arg(long)]
    force: bool,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    input_format: Option<ctxlint::model::FormatId>,
    /// Check every request file on its own instead of joining a directory's files into a stream.
    #[arg(long)]
    no_stream: bool,
}

#[derive(Args, Debug)]
struct DiffArgs {
    /// A request-body file (any body format), a one-request stream, or, with
    /// --request I J, a stream: a cassette, an exchange log, a directory of
    /// request files, or a pydantic-ai history directory.
    #[arg(value_name = "A")]
    a: String,
    /// The second request-body file (the later request). With --request I J,
    /// request I is taken from A and request J from B.
    #[arg(value_name = "B")]
    b: Option<String>,
    /// The 0-based requests to compare (I the earlier, J the later; in
    /// cassettes and exchange logs, the interaction or line index).
    #[arg(long, num_args = 2, value_names = ["I", "J"])]
    request: Option<Vec<usize>>,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    output_format: ViewFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    output_file: Option<PathBuf>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    input_format: Option<ctxlint::model::FormatId>,
}

#[derive(Args, Debug)]
struct ShowArgs {
    /// A transcript, a request-body file, a stream (cassette, exchange log), or
    /// a directory holding one stream.
    #[arg(value_name = "PATH")]
    path: String,
    /// Print this 0-based request (streams) or step (transcripts) in full, with its texts.
    #[arg(long, visible_alias = "step", value_name = "N")]
    request: Option<usize>,
    /// List every request's or step's whole context, not only what is new since the previous one.
    #[arg(long)]
    full: bool,
    /// Write the HTML triage page of this input instead (as `check --output-format html`:
    /// timeline, findings, contexts and diffs); use with -o FILE.
    #[arg(long, conflicts_with_all = ["request", "full", "output_format"])]
    html: bool,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    output_format: ViewFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    output_file: Option<PathBuf>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    input_format: Option<ctxlint::model::FormatId>,
}

/// Output formats of `diff` and `show`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ViewFormat {
    /// Human-readable.
    Full,
    /// One JSON object.
    Json,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  ctxlint fence before.jsonl session.jsonl\n  ctxlint fence session.jsonl --prefix-size 2092 --prefix-sha256 7496…264f --output-format json\n\nExit codes: 0 identical or append-owned, 1 any other verdict, 2 usage/I-O error."
)]
struct FenceArgs {
    /// OLD and NEW, or only NEW with --prefix-size.
    #[arg(value_name = "FILE", num_args = 1..=2, required = true)]
    files: Vec<String>,
    /// OLD's recorded size in bytes (fingerprint form: give only NEW).
    #[arg(long, value_name = "N")]
    prefix_size: Option<u64>,
    /// OLD's recorded SHA-256 (64 hex digits); needs --prefix-size.
    #[arg(long, value_name = "HEX", requires = "prefix_size")]
    prefix_sha256: Option<String>,
    /// Kinds the runner owns, replacing the default: entry types and message roles, comma-separated (e.g. `assistant,toolResult,custom`).
    #[arg(long, value_name = "KIND,…", value_delimiter = ',')]
    owned: Option<Vec<String>>,
    /// `--config PATH` (global): the configuration whose `[fence] owned` is used.
    #[arg(skip)]
    config: Option<PathBuf>,
    /// `--isolated` (global).
    #[arg(skip)]
    isolated: bool,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Full)]
    output_format: OutputFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    output_file: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct RuleArgs {
    /// Rule name or code, e.g. `duplicate-system-event` or `CTX101`.
    name: Option<String>,
    /// Print every rule with its documentation.
    #[arg(long)]
    all: bool,
    /// Output format: Markdown and tables, or JSON (one object per rule; an array with --all or no NAME).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    output_format: ViewFormat,
}

#[derive(Args, Debug)]
struct FormatsArgs {
    /// Output format: a table, or a JSON array of {id, supported, kind, description, location}.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    output_format: ViewFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum OutputFormat {
    /// Human-readable, with excerpts, related locations and help.
    Full,
    /// One line per finding.
    Concise,
    /// Findings under a heading per file, one line each.
    Grouped,
    /// One JSON object: findings, files, skipped, summary.
    Json,
    /// One JSON object per finding per line.
    JsonLines,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// JUnit XML.
    Junit,
    /// GitLab Code Quality JSON.
    Gitlab,
    /// One self-contained HTML triage page (use with -o FILE): a timeline of
    /// each input's steps with context sizes, cache breaks and findings.
    Html,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorChoice {
    /// Colour when the output is a terminal, unless the environment says otherwise.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

fn parse_input_format(s: &str) -> Result<ctxlint::model::FormatId, String> {
    formats::parse_format_id(s).ok_or_else(|| format!("unknown input format `{s}`; known: {}", formats::ids_joined()))
}

/// Whether to colour standard output: decided by `ctxlint::report::color::decide`.
/// A report written to a file (`-o`) is coloured only with `--color always`.
fn use_color(c: ColorChoice, to_file: bool) -> bool {
    use ctxlint::report::color::{self, ColorChoice as C};
    if to_file {
        return c == ColorChoice::Always;
    }
    let choice = match c {
        ColorChoice::Auto => C::Auto,
        ColorChoice::Always => C::Always,
        ColorChoice::Never => C::Never,
    };
    color::from_env(choice, std::io::stdout().is_terminal())
}

/// Inputs from this size on make `check` return freed memory at once.
const LARGE_INPUT: u64 = 16 << 20;

/// What the program running the command line tunes in its own process (the
/// library never sets process-wide state itself: the `ctxlint` binary, which
/// owns the allocator, registers this with [`set_process`]; the Python
/// module does not).
#[derive(Clone, Copy, Debug)]
pub struct Process {
    /// `true`: return freed pages to the system at once; `false`: back to
    /// the allocator's default delay. On a large input the load buffers
    /// freed while the model grows would otherwise stay resident (peak RSS is
    /// one of the benchmark's targets, issue 7); on thousands of small files
    /// returning them at once costs page faults the threads wait on together.
    pub return_freed_memory_at_once: fn(bool),
}

static PROCESS: std::sync::OnceLock<Process> = std::sync::OnceLock::new();

/// Registers the process's hooks ([`Process`]); the first registration wins.
pub fn set_process(p: Process) {
    let _ = PROCESS.set(p);
}

fn return_freed_memory_at_once() {
    if let Some(p) = PROCESS.get() {
        (p.return_freed_memory_at_once)(true);
    }
}

/// Back to the allocator's default after [`return_freed_memory_at_once`].
fn restore_purge_delay() {
    if let Some(p) = PROCESS.get() {
        (p.return_freed_memory_at_once)(false);
    }
}

/// Runs the command line with `args` (the program name first, as
/// `std::env::args_os` gives them) and returns its exit code (docs/spec.md §4): 0,
/// 1 for findings, 2 for usage, configuration or I/O errors, 101 for an
/// internal error (a panic, caught; the binary's panic hook reports it).
/// `--help`, `--version` and argument errors are printed and give their exit
/// code (0 or 2); the process is never exited here. Standard output is
/// flushed before it returns.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    // A database with a WAL is copied once per run, and the copy removed at its end.
    let _copies = ctxlint::formats::sqlite::CopyScope::enter();
    // clap's own errors quote the values given (`--input-format sk-ant-…`):
    // printed with key-like strings masked, as every other output.
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            let styled = std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none();
            let text = if styled { e.render().ansi().to_string() } else { e.render().to_string() };
            eprint!("{}", ctxlint::text::mask_secrets(&text));
            let _ = std::io::stderr().flush();
            return e.exit_code();
        }
        Err(e) => {
            // --help, --version: printed as clap prints them.
            let _ = e.print();
            let _ = std::io::stdout().flush();
            return e.exit_code();
        }
    };
    let code = std::panic::catch_unwind(move || run(cli)).unwrap_or(exit_code::INTERNAL);
    let _ = std::io::stdout().flush();
    code
}

fn run(cli: Cli) -> i32 {
    // The commands that check inputs run in a pool of worker threads that
    // falls back to fewer, down to this thread alone (a pids limit, `ulimit
    // -u`, a large `-j`): never a panic for want of threads.
    let (requested, work) = match &cli.command {
        Command::Check(a) => (a.threads, named_work(&a.paths)),
        Command::Show(_) | Command::Diff(_) | Command::Repro(_) => (None, None),
        _ => return dispatch(cli),
    };
    match ctxlint::safety::build_pool(ctxlint::safety::wanted_threads(requested, work)) {
        Some(f) => {
            if let Some(e) = &f.error {
                let using =
                    if f.threads == 1 { "this thread alone".to_string() } else { format!("{} threads", f.threads) };
                say!("ctxlint: warning: could not start {} worker threads ({e}); using {using}", f.wanted);
            }
            f.pool.install(|| dispatch(cli))
        }
        None => dispatch(cli),
    }
}

/// How many inputs the named paths are, when none is a folder (a folder, or
/// no path at all, may hold any number).
fn named_work(paths: &[String]) -> Option<usize> {
    let files = !paths.is_empty() && paths.iter().all(|p| p == "-" || !Path::new(p).is_dir());
    files.then_some(paths.len())
}

/// Refuses (exit 2) an output that is one of the inputs, before anything is
/// read or written (README, "What ctxlint promises"); one inside a folder
/// being checked is allowed and left out of the inputs (docs/spec.md §4). `inputs`
/// are the paths to check, `extra` the files read besides them (`--config`,
/// `--baseline`).
fn refuse_overwrite(
    inputs: &[String],
    extra: &[&Option<PathBuf>],
    outputs: &[(&str, &Option<PathBuf>)],
) -> ctxlint::Result<()> {
    let mut ins: Vec<&Path> = inputs.iter().map(Path::new).collect();
    ins.extend(extra.iter().filter_map(|p| p.as_deref()));
    let outs: Vec<(&str, &Path)> = outputs.iter().filter_map(|(f, p)| p.as_deref().map(|p| (*f, p))).collect();
    ctxlint::safety::refuse_outputs_on_inputs(&ins, &outs, ctxlint::safety::Beside::Allowed)
}

/// `-o -` is standard output, as a PATH of `-` is standard input (as in
/// ripgrep and curl): no file named `-` is written.
fn dash_is_stdout(o: Option<PathBuf>) -> Option<PathBuf> {
    o.filter(|p| p.as_os_str() != "-")
}

fn dispatch(mut cli: Cli) -> i32 {
    let color = cli.color;
    let report_file = match &mut cli.command {
        Command::Check(a) => Some(&mut a.output_file),
        Command::Fence(a) => Some(&mut a.output_file),
        Command::Diff(a) => Some(&mut a.output_file),
        Command::Show(a) => Some(&mut a.output_file),
        _ => None,
    };
    if let Some(o) = report_file {
        *o = dash_is_stdout(o.take());
    }
    let (quiet, verbose) = (cli.quiet, cli.verbose);
    let result = match cli.command {
        Command::Check(a) => {
            let a = CheckArgs { quiet, verbose, config_options: cli.config_options, isolated: cli.isolated, ..a };
            split_config_options(a).and_then(|a| cmd_check(a, color))
        }
        Command::Fence(a) => fence_config(cli.config_options, cli.isolated)
            .and_then(|config| cmd_fence(FenceArgs { config, isolated: cli.isolated, ..a }, color)),
        Command::Diff(a) => cmd_diff(a, color),
        Command::Show(a) => cmd_show(a, color),
        Command::Rule(a) => cmd_rule(a),
        Command::Formats(a) => {
            write_out(&match a.output_format {
                ViewFormat::Full => ctxlint::catalog::table(),
                ViewFormat::Json => ctxlint::catalog::json(),
            });
            Ok(exit_code::OK)
        }
        Command::Repro(a) => cmd_repro(a),
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "ctxlint", &mut std::io::stdout());
            Ok(exit_code::OK)
        }
        Command::Man => man_page().map_err(|e| Error::io("-", e)).map(|page| {
            write_out(&page);
            exit_code::OK
        }),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            say_lines!("ctxlint: error: {}", mask_output(&e.to_string()));
            e.exit_code()
        }
    }
}

/// The last line of defence against a leaked secret in a report: every line
/// masked ([`ctxlint::text::mask_output`]) before it is written.
fn mask_output(s: &str) -> std::borrow::Cow<'_, str> {
    ctxlint::text::mask_output(s)
}

/// [`write_out`] for text that quotes paths and values from the inputs
/// (`--show-files`, `--show-settings`): key-like strings masked, control
/// and bidirectional characters escaped (line breaks and tabs kept).
fn write_out_masked(s: &str) {
    write_out(&ctxlint::escape::escape_controls_but(&mask_output(s), &['\n', '\t']));
}

fn write_out(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// The man page: the main page (synopsis, description, options), then a
/// section per subcommand with its synopsis, description and every option.
/// One page, so it names no other page.
fn man_page() -> std::io::Result<String> {
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

/// The session folders of agents installed on this machine (docs/spec.md §3), and the
/// places looked at (for the message when none exists).
fn agent_folders() -> (Vec<String>, Vec<String>) {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let env_dir = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut looked = Vec::new();
    let mut out = Vec::new();
    if let Some(home) = &home {
        let agents = home.join(".openclaw/agents");
        looked.push(agents.join("*/sessions"));
        if let Ok(rd) = std::fs::read_dir(&agents) {
            let mut v: Vec<PathBuf> =
                rd.filter_map(|e| e.ok().map(|e| e.path().join("sessions"))).filter(|p| p.is_dir()).collect();
            v.sort();
            out.extend(v);
        }
        looked.push(home.join(".pi/agent/sessions"));
    }
    if let Some(d) = env_dir("CLAUDE_CONFIG_DIR").or_else(|| home.as_ref().map(|h| h.join(".claude"))) {
        looked.push(d.join("projects"));
    }
    if let Some(d) = env_dir("CODEX_HOME").or_else(|| home.as_ref().map(|h| h.join(".codex"))) {
        looked.push(d.join("sessions"));
    }
    // The first place looked at is the OpenClaw pattern, already expanded above.
    out.extend(looked.iter().skip(usize::from(home.is_some())).filter(|p| p.is_dir()).cloned());
    // Gemini CLI (`$GEMINI_CLI_HOME` replaces the home folder: gemini-cli
    // `packages/core/src/utils/paths.ts`) and Qwen Code (`$QWEN_RUNTIME_DIR`,
    // else `$QWEN_HOME`, else `~/.qwen`): the `chats` folders and Gemini
    // CLI's `/chat save` checkpoints, not the logs beside them.
    let gemini = env_dir("GEMINI_CLI_HOME").or_else(|| home.clone()).map(|h| h.join(".gemini/tmp"));
    let qwen = env_dir("QWEN_RUNTIME_DIR")
        .or_else(|| env_dir("QWEN_HOME"))
        .or_else(|| home.as_ref().map(|h| h.join(".qwen")))
        .map(|d| d.join("projects"));
    // Copilot CLI: each session folder's `events.jsonl` (`$COPILOT_HOME`, else
    // `~/.copilot`), not the workspace files and checkpoints beside it.
    if let Some(root) = env_dir("COPILOT_HOME").or_else(|| home.as_ref().map(|h| h.join(".copilot"))) {
        let root = root.join("session-state");
        looked.push(root.join("*/events.jsonl"));
        if let Ok(rd) = std::fs::read_dir(&root) {
            let mut v: Vec<PathBuf> =
                rd.filter_map(|e| e.ok().map(|e| e.path().join("events.jsonl"))).filter(|p| p.is_file()).collect();
            v.sort();
            out.extend(v);
        }
    }
    // Cline, Roo Code and Kilo Code task folders in VS Code's globalStorage
    // (Linux and macOS), and the Cline CLI's: each task's
    // `api_conversation_history.json` and each SDK session's `*.messages.json`
    // (not the UI logs and manifests beside them).
    if let Some(home) = &home {
        let mut roots: Vec<PathBuf> = Vec::new();
        for code in [".config/Code/User/globalStorage", "Library/Application Support/Code/User/globalStorage"] {
            for ext in ["saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code"] {
                roots.push(home.join(code).join(ext).join("tasks"));
            }
        }
        roots.push(home.join(".cline/data/tasks"));
        for root in roots {
            looked.push(root.join("*/api_conversation_history.json"));
            if let Ok(rd) = std::fs::read_dir(&root) {
                let mut v: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path().join("api_conversation_history.json")))
                    .filter(|p| p.is_file())
                    .collect();
                v.sort();
                out.extend(v);
            }
        }
        let sessions = home.join(".cline/data/sessions");
        looked.push(sessions.join("*/*.messages.json"));
        if let Ok(rd) = std::fs::read_dir(&sessions) {
            let mut v: Vec<PathBuf> = rd
                .filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_dir(e.path()).ok())
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".messages.json"))
                .collect();
            v.sort();
            out.extend(v);
        }
    }
    for (k, root) in [gemini, qwen].into_iter().enumerate() {
        let Some(root) = root else { continue };
        looked.push(root.join("*/chats"));
        if let Ok(rd) = std::fs::read_dir(&root) {
            let mut v: Vec<PathBuf> =
                rd.filter_map(|e| e.ok().map(|e| e.path().join("chats"))).filter(|p| p.is_dir()).collect();
            v.sort();
            out.extend(v);
        }
        // Gemini CLI's `/chat save` checkpoints beside the chats
        // (`<project temp dir>/checkpoint-<tag>.json`, core `logger.ts`).
        if k == 0 {
            looked.push(root.join("*/checkpoint-*.json"));
            let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
                .into_iter()
                .flatten()
                .filter_map(|e| std::fs::read_dir(e.ok()?.path()).ok())
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    p.is_file() && name.starts_with("checkpoint") && name.ends_with(".json")
                })
                .collect();
            v.sort();
            out.extend(v);
        }
    }
    // OpenCode and Kilo CLI keep every session in one SQLite store in their
    // XDG data folder (`$XDG_DATA_HOME`, else `~/.local/share`; opencode
    // `packages/opencode/src/global/index.ts`): the database file only, not
    // its snapshots and logs.
    let data = env_dir("XDG_DATA_HOME").or_else(|| home.as_ref().map(|h| h.join(".local/share")));
    if let Some(data) = data {
        for db in [data.join("opencode/opencode.db"), data.join("kilo/kilo.db")] {
            if db.is_file() {
                out.push(db.clone());
            }
            looked.push(db);
        }
        // OpenCode 1.1 and earlier: one JSON file per session (its messages
        // and parts are read with it).
        let legacy = data.join("opencode/storage/session");
        if legacy.is_dir() {
            out.push(legacy.clone());
        }
        looked.push(legacy);
    }
    let s = |v: Vec<PathBuf>| v.into_iter().map(|p| p.to_string_lossy().into_owned()).collect();
    (s(out), s(looked))
}

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
fn fence_config(options: Vec<String>, isolated: bool) -> ctxlint::Result<Option<PathBuf>> {
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

/// Sorts `--config` options as ruff does: an existing file, or an argument
/// without `=`, names a configuration file (one at most, and not with
/// `--isolated`); any other is a `KEY = VALUE` override.
fn split_config_options(mut a: CheckArgs) -> ctxlint::Result<CheckArgs> {
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

fn cmd_check(a: CheckArgs, color: ColorChoice) -> ctxlint::Result<i32> {
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
    };
    let plan = ctxlint::inputs::discover(&paths, &discover)?;
    if a.show_files {
        write_out_masked(&ctxlint::report::settings::files(&plan));
        return Ok(exit_code::OK);
    }
    // `-q`: the findings only (the skipped files are still in JSON `skipped`).
    if !a.quiet {
        for e in &plan.unrecognised {
            say!("ctxlint: warning: {e}; skipped");
        }
        warn_walked_skips(&plan, a.verbose);
    }
    let discovered = started.elapsed();
    if rayon::iter::ParallelIterator::any(rayon::iter::IntoParallelRefIterator::par_iter(&plan.jobs), |j| {
        j.stored_bytes() >= LARGE_INPUT
    }) {
        return_freed_memory_at_once();
    }
    let bar = (std::io::stderr().is_terminal() && plan.jobs.len() >= 200).then(|| {
        let b = indicatif::ProgressBar::new(plan.jobs.len() as u64);
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
        for w in report.files.iter().flat_map(ctxlint::FileSummary::warnings) {
            say!("ctxlint: warning: {}", ctxlint::text::mask_secrets(&w));
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
        for u in &report.unlisted {
            say!(
                "ctxlint: warning: {}: {}",
                ctxlint::escape::escape_controls(&mask_output(&u.path)),
                ctxlint::report::unlisted_message(u)
            );
        }
    }
    // The exit code is decided last, once every report is written (docs/spec.md §1).
    if !report.errors.is_empty() {
        return Ok(exit_code::USAGE);
    }
    if report.files.is_empty() && !report.skipped.is_empty() {
        say!("ctxlint: error: no input of a known format in {}", paths.join(", "));
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
        let n = r.findings.iter().filter(|x| x.path == f.path).count();
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

/// What `fence` would print for a format it refuses before any work
/// (`--output-format html`): nothing; never reached.
fn unreachable_html() -> String {
    String::new()
}

fn cmd_fence(a: FenceArgs, color: ColorChoice) -> ctxlint::Result<i32> {
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

/// Writes a report to `-o FILE` (atomically: a temporary file beside it,
/// renamed) or to standard output.
fn emit(text: &str, file: Option<&PathBuf>) -> ctxlint::Result<()> {
    emit_with(file, &mut |w| w.write_all(text.as_bytes()))
}

/// Runs a renderer into `-o FILE` (atomically: a temporary file beside it,
/// renamed once the whole report is written) or into standard output, as it
/// writes: masked line by line on the way ([`ctxlint::text::MaskLines`]),
/// buffered, never held whole. A closed standard output (a pipe into `head`)
/// ends the report quietly; any other write error is an error.
fn emit_with(
    file: Option<&PathBuf>,
    render: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> ctxlint::Result<()> {
    emit_masked(file, true, render)
}

/// [`emit_with`]; `mask_again: false` skips the last masking pass over the
/// written text, for the HTML report: every text in it was masked where it
/// was taken (findings by `mask_finding` and `finding_value`, contexts by
/// `show`), and a second pass over a report of tens of megabytes of
/// JSON-escaped text would cost more than checking the input.
fn emit_masked(
    file: Option<&PathBuf>,
    mask_again: bool,
    render: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> ctxlint::Result<()> {
    use ctxlint::text::MaskLines;
    if !mask_again {
        const BUF: usize = 256 << 10;
        return match file {
            Some(p) => {
                let mut w = std::io::BufWriter::with_capacity(BUF, ctxlint::safety::AtomicFile::create(p)?);
                match render(&mut w).and_then(|()| w.into_inner().map_err(|e| e.into_error())) {
                    Ok(f) => f.commit(),
                    Err(e) => Err(Error::io(p, e)),
                }
            }
            None => {
                let mut w = std::io::BufWriter::with_capacity(BUF, std::io::stdout().lock());
                match render(&mut w).and_then(|()| w.flush()) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    Err(e) => Err(Error::io("standard output", e)),
                }
            }
        };
    }
    const BUF: usize = 256 << 10;
    match file {
        Some(p) => {
            let mut w = MaskLines::new(std::io::BufWriter::with_capacity(BUF, ctxlint::safety::AtomicFile::create(p)?));
            let written =
                render(&mut w).and_then(|()| w.finish()).and_then(|b| b.into_inner().map_err(|e| e.into_error()));
            match written {
                Ok(f) => f.commit(),
                Err(e) => Err(Error::io(p, e)),
            }
        }
        None => {
            let mut w = MaskLines::new(std::io::BufWriter::with_capacity(BUF, std::io::stdout().lock()));
            match render(&mut w).and_then(|()| w.finish()).and_then(|mut b| b.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(Error::io("standard output", e)),
            }
        }
    }
}

/// Loads the one input PATH names; says on stderr which walked files were skipped.
fn load_path(path: &str, discover: &ctxlint::inputs::DiscoverOptions) -> ctxlint::Result<ctxlint::model::Input> {
    load_path_texts(path, discover, ctxlint::model::packed::Texts::AsLoaded)
}

/// [`load_path`] keeping a transcript's `texts`.
fn load_path_texts(
    path: &str,
    discover: &ctxlint::inputs::DiscoverOptions,
    texts: ctxlint::model::packed::Texts,
) -> ctxlint::Result<ctxlint::model::Input> {
    let (input, skipped) = ctxlint::load_path_texts(path, discover, texts)?;
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().take(4).map(|s| s.path.as_str()).collect();
        let more = if skipped.len() > 4 { ", …" } else { "" };
        let why = ctxlint::report::full::skipped_reasons(&skipped);
        say!("ctxlint: {} file(s) in {path} skipped ({why}): {}{more}", skipped.len(), names.join(", "));
    }
    Ok(input)
}

fn cmd_diff(a: DiffArgs, color: ColorChoice) -> ctxlint::Result<i32> {
    use ctxlint::diff::{self, Verdict};
    let named: Vec<String> = std::iter::once(a.a.clone()).chain(a.b.clone()).collect();
    if a.a == "-" && a.b.as_deref() == Some("-") {
        // Standard input can be read once: the second `-` would be empty.
        return Err(Error::Usage(
            "standard input (`-`) is named twice: give one of the two requests as a file, or pick two requests of one stream with `ctxlint diff - --request I J`".into(),
        ));
    }
    refuse_overwrite(&named, &[], &[("-o", &a.output_file)])?;
    let discover = ctxlint::inputs::DiscoverOptions {
        forced: a.input_format,
        not_inputs: a.output_file.iter().cloned().collect(),
        ..Default::default()
    };
    let first = load_path(&a.a, &discover)?;
    let second = a.b.as_deref().map(|b| load_path(b, &discover)).transpose()?;
    let (ra, rb) = match (&second, a.request.as_deref()) {
        (Some(s), Some(&[i, j])) => (diff::pick(&first, i)?, diff::pick(s, j)?),
        (Some(s), _) => (diff::only(&first)?, diff::only(s)?),
        (None, Some(&[i, j])) => (diff::pick(&first, i)?, diff::pick(&first, j)?),
        (None, _) => {
            let n = diff::requests(&first)?.len();
            return Err(Error::Usage(format!(
                "{}: give a second request file (`ctxlint diff A B`), or pick two requests of this stream with `--request I J` (it holds {n} request{})",
                a.a,
                if n == 1 { "" } else { "s" }
            )));
        }
    };
    let mut d = diff::diff(ra, rb);
    if let (None, ctxlint::model::Body::Stream(s)) = (&second, &first.body) {
        d.lanes = diff::lanes_of(s, ra, rb);
    }
    let text = match a.output_format {
        ViewFormat::Full => ctxlint::report::diff::full(&d, use_color(color, a.output_file.is_some())),
        ViewFormat::Json => ctxlint::report::diff::json(&d),
    };
    emit(&text, a.output_file.as_ref())?;
    Ok(if d.verdict == Verdict::Rewrite { exit_code::FINDINGS } else { exit_code::OK })
}

/// Walked files that were skipped, shown in a run's warnings before it
/// says "and N more" (all of them with `--verbose`; every one is in JSON
/// `skipped` and `--show-files`).
const WALKED_SKIPS_SHOWN: usize = 20;

/// Warns about each file skipped while walking (docs/spec.md §1: never a silent
/// skip), naming it and the reason; files named on the command line were
/// warned about already, with the formats tried.
fn warn_walked_skips(plan: &ctxlint::inputs::Plan, verbose: bool) {
    let named: std::collections::HashSet<String> =
        plan.unrecognised.iter().filter_map(|e| e.path().map(|p| p.display().to_string())).collect();
    let (sidecars, all): (Vec<&ctxlint::inputs::Skipped>, Vec<_>) = plan
        .skipped
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
        inputs.entry(m).or_default().push(ctxlint::text::mask_secrets(&f.path));
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

/// `show --full` warns from this many entries (or requests) on: its output
/// grows with the square of a session's length.
const FULL_WARN_UNITS: usize = 2000;

fn cmd_show(a: ShowArgs, color: ColorChoice) -> ctxlint::Result<i32> {
    use ctxlint::show::{Mode, show_each};
    refuse_overwrite(std::slice::from_ref(&a.path), &[], &[("-o", &a.output_file)])?;
    let discover = ctxlint::inputs::DiscoverOptions {
        forced: a.input_format,
        not_inputs: a.output_file.iter().cloned().collect(),
        ..Default::default()
    };
    if a.html {
        return show_html(&a, &discover);
    }
    // Tables need only sizes, hashes and first lines (issue 14: memory); a selected step prints its texts.
    let texts = if a.request.is_some() {
        ctxlint::model::packed::Texts::AsLoaded
    } else {
        ctxlint::model::packed::Texts::Compact
    };
    // One input: freed load buffers go back at once (peak RSS, issue 14).
    return_freed_memory_at_once();
    let input = load_path_texts(&a.path, &discover, texts)?;
    // Loaded: from here on memory is freed and taken again per batch of
    // steps, which the default purge delay serves without page faults.
    restore_purge_delay();
    let color = use_color(color, a.output_file.is_some());
    let mode = if a.full { Mode::Full } else { Mode::Compact };
    if a.full && a.request.is_none() {
        let steps = match &input.body {
            ctxlint::model::Body::Transcript(t) => t.entries.len(),
            ctxlint::model::Body::Stream(s) => s.requests.len(),
        };
        if steps > FULL_WARN_UNITS {
            say!(
                "ctxlint: warning: --full lists every step's whole context: on {} ({steps} entries) that is a great deal of output; the default view lists what is new at each step, --step N one step whole",
                a.path
            );
        }
    }
    let json = a.output_format == ViewFormat::Json;
    // Each step is written as soon as it is built (issue 14: never the whole output held).
    let result = match &a.output_file {
        Some(p) => {
            // Into a temporary file beside FILE, renamed once every step is written.
            let f = ctxlint::safety::AtomicFile::create(p)?;
            let mut r = ctxlint::report::show::Renderer::new(std::io::BufWriter::new(f), json, color, p);
            show_each(&input, a.request, mode, &mut r)
                .and_then(|()| r.into_inner().into_inner().map_err(|e| Error::io(p, e.into_error()))?.commit())
        }
        None => {
            let out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut r = ctxlint::report::show::Renderer::new(out, json, color, "<stdout>");
            match show_each(&input, a.request, mode, &mut r) {
                // A closed pipe (`| head`) ends the output quietly.
                Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            }
        }
    };
    result.map(|_| exit_code::OK)
}

/// `show PATH --html`: the one input's triage page, its findings checked
/// with the configuration in force for it (as `check` would).
fn show_html(a: &ShowArgs, discover: &ctxlint::inputs::DiscoverOptions) -> ctxlint::Result<i32> {
    let mut plan = ctxlint::inputs::discover(std::slice::from_ref(&a.path), discover)?;
    if let Some(e) = plan.errors.pop().or_else(|| plan.unrecognised.pop()) {
        return Err(e);
    }
    match plan.jobs.len() {
        1 => {}
        0 => return Err(Error::Usage(format!("{}: no input of a known format found", a.path))),
        n => {
            return Err(Error::Usage(format!(
                "{}: holds {n} inputs; name one of them, or use `ctxlint check {} --output-format html`",
                a.path, a.path
            )));
        }
    }
    let configs = ctxlint::config::ConfigSet::new(ctxlint::config::Source::Discover);
    let (mut report, pages) = ctxlint::report::html::check_plan_pages(plan, &configs, &|_| {});
    report.findings.iter_mut().for_each(ctxlint::report::mask_finding);
    if let Some(f) = report.errors.first() {
        return Err(Error::Usage(format!("{}: {}", f.path, f.message())));
    }
    emit_masked(a.output_file.as_ref(), false, &mut |w| ctxlint::report::html::write(&report, &pages, w))?;
    Ok(exit_code::OK)
}

fn cmd_repro(a: ReproArgs) -> ctxlint::Result<i32> {
    use ctxlint::repro;
    let rule = a
        .rule
        .as_deref()
        .map(|n| {
            RuleId::from_name_or_code(n).ok_or_else(|| {
                Error::Usage(format!("unknown rule `{}` (try `ctxlint rule`)", ctxlint::escape::escape_controls(n)))
            })
        })
        .transpose()?;
    if !(a.budget.is_finite() && a.budget > 0.0) {
        return Err(Error::Usage(format!("--budget must be a positive number of seconds, not {}", a.budget)));
    }
    let opts = repro::ReproOptions {
        paths: a.paths,
        discover: ctxlint::inputs::DiscoverOptions {
            forced: a.input_format,
            no_stream: a.no_stream,
            ..Default::default()
        },
        rule,
        fingerprint: a.finding,
        line: a.line,
        pointer: a.pointer,
        all: a.all,
        out_dir: a.out,
        // Capped at a year: a larger figure would overflow the deadline.
        budget: std::time::Duration::from_secs_f64(a.budget.min(3.15e7)),
        keep_text: a.keep_text,
        source: a.source,
        force: a.force,
    };
    let outcomes = repro::run(&opts, &mut |line| say!("ctxlint: {}", mask_output(line)))?;
    let mut out = String::new();
    let mut missing = 0;
    for o in &outcomes {
        match &o.dir {
            Some(d) => {
                let replaced: Vec<String> = o.replaced.iter().map(|(k, v)| format!("{k} {v}")).collect();
                out.push_str(&format!(
                    "{}  {} at {}: {} -> {} lines, {} -> {} bytes, {:.1} s, {} test runs{}{}\n",
                    d.display(),
                    o.rule.name(),
                    o.origin,
                    o.before.0,
                    o.after.0,
                    o.before.1,
                    o.after.1,
                    o.elapsed.as_secs_f64(),
                    o.tests,
                    if o.complete { "" } else { " (budget reached)" },
                    if !o.anonymised {
                        String::from("; text kept")
                    } else if replaced.is_empty() {
                        String::from("; nothing to replace")
                    } else {
                        format!("; replaced: {}", replaced.join(", "))
                    }
                ));
            }
            None => {
                missing += 1;
                out.push_str(&format!("not reproduced: {} at {}: {}\n", o.rule.name(), o.origin, o.notes.join("; ")));
            }
        }
    }
    out.push_str(&format!("{} case(s) written, {} not reproduced\n", outcomes.len() - missing, missing));
    write_out(&mask_output(&out));
    Ok(if missing == 0 { exit_code::OK } else { exit_code::FINDINGS })
}

fn cmd_rule(a: RuleArgs) -> ctxlint::Result<i32> {
    let lookup = |n: &str| {
        RuleId::from_name_or_code(n).ok_or_else(|| {
            let hint = ctxlint::rule_id::suggest(n).map(|c| format!("; did you mean {c}?")).unwrap_or_default();
            Error::Usage(format!(
                "unknown rule `{}`{hint} (`ctxlint rule` lists them)",
                ctxlint::escape::escape_controls(n)
            ))
        })
    };
    if a.output_format == ViewFormat::Json {
        let v = match (&a.name, a.all) {
            (Some(n), false) => ctxlint::rules::rule_value(lookup(n)?),
            _ => serde_json::Value::Array(RuleId::ALL.iter().map(|r| ctxlint::rules::rule_value(*r)).collect()),
        };
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        write_out(&s);
        return Ok(exit_code::OK);
    }
    let out = match (&a.name, a.all) {
        (_, true) => ctxlint::rules::docs_markdown(),
        (None, false) => {
            let mut t = comfy_table::Table::new();
            t.load_preset(comfy_table::presets::NOTHING).set_header(vec!["code", "name", "default", "finds"]);
            for r in RuleId::ALL {
                let m = ctxlint::rules::meta(r);
                t.add_row(vec![m.code, m.name, m.default_severity.as_str(), m.summary]);
            }
            ctxlint::report::term::fit(&mut t, &[0, 1, 2]);
            format!("{t}\n\nRun `ctxlint rule NAME` for a rule's documentation.\n")
        }
        (Some(n), false) => ctxlint::rules::rule_markdown(lookup(n)?),
    };
    write_out(&out);
    Ok(exit_code::OK)
}
