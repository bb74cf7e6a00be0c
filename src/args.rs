//! The command line's arguments: the clap derive structs and enums of
//! `ctxlint` and of each subcommand, with their help texts.

use clap::{Args, Parser, Subcommand, ValueEnum};
use ctxlint::formats;
use std::path::PathBuf;

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
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// When to use colour; `auto` follows NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE, CLICOLOR=0, TERM=dumb and the terminal.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub(crate) color: ColorChoice,
    /// `check`: print the findings only: no summary line, no notes on standard error.
    #[arg(short = 'q', long, conflicts_with = "verbose", global = true)]
    pub(crate) quiet: bool,
    /// `check`: also print, on standard error, every checked input with its format and
    /// size (entries or requests) and the time each phase took.
    #[arg(short = 'v', long, global = true)]
    pub(crate) verbose: bool,
    /// `check`, `fence`: a configuration file to use instead of the ones found (ctxlint.toml,
    /// .ctxlint.toml, or a pyproject.toml's [tool.ctxlint]), or a TOML `KEY = VALUE` pair that
    /// overrides one setting of the configuration in force (`--config 'fail-on = "error"'`,
    /// `--config 'rules.CTX101 = "off"'`); repeatable; before or after the subcommand, as ruff's.
    #[arg(long = "config", value_name = "CONFIG_OPTION", global = true)]
    pub(crate) config_options: Vec<String>,
    /// `check`, `fence`: ignore every configuration file (before or after the subcommand).
    #[arg(long, global = true)]
    pub(crate) isolated: bool,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Lint files, directories (recursive), or - (stdin). With no PATH, scan the
    /// session folders of agents installed on this machine.
    #[command(after_long_help = check_help())]
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
pub(crate) struct CheckArgs {
    /// Files or directories to check; `-` reads standard input (at most 4 GiB; over 1 MiB it is
    /// copied to an unnamed temporary file in $TMPDIR).
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Full)]
    pub(crate) output_format: OutputFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output_file: Option<PathBuf>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    pub(crate) input_format: Option<ctxlint::model::FormatId>,
    /// Check every request file on its own instead of joining a directory's files into a stream.
    #[arg(long)]
    pub(crate) no_stream: bool,
    /// Exit 2 when any file is skipped (matches no format); every other input is still checked and reported.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Also walk files that .gitignore/.ignore exclude (hidden files are always walked).
    #[arg(long)]
    pub(crate) no_ignore: bool,
    /// Print the settings in force for PATH (default: .) and the file they come from, then exit.
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = ".")]
    pub(crate) show_settings: Option<String>,
    /// Print the inputs that would be checked, with their formats, and the skipped files, then exit.
    #[arg(long)]
    pub(crate) show_files: bool,
    /// Name to report for standard input.
    #[arg(long, value_name = "NAME")]
    pub(crate) stdin_filename: Option<String>,
    /// Exit 0 even when there are findings (errors — an input not checked, an
    /// invalid configuration, nothing checked at all — still exit 2).
    #[arg(long)]
    pub(crate) exit_zero: bool,
    /// The `--config` options (global: before or after the subcommand).
    #[arg(skip)]
    pub(crate) config_options: Vec<String>,
    /// The file among `--config` options.
    #[arg(skip)]
    pub(crate) config: Option<PathBuf>,
    /// The `KEY = VALUE` pairs among `--config` options.
    #[arg(skip)]
    pub(crate) config_inline: Vec<String>,
    /// `--isolated` (global).
    #[arg(skip)]
    pub(crate) isolated: bool,
    /// Only these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub(crate) select: Vec<String>,
    /// Never these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub(crate) ignore: Vec<String>,
    /// These rules besides those of --select (names, codes or prefixes, comma-separated); turns
    /// on a rule a configuration turns off.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub(crate) extend_select: Vec<String>,
    /// Leave out of the walk the files and folders matching these globs (comma-separated),
    /// matched against each one's name and its path below the folder checked (`--exclude
    /// 'archive/**,*.bak.jsonl'`); files named on the command line are always checked.
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// Of a store that holds several sessions (an OpenCode or Kilo database), check only
    /// this one (an id the JSON report's `files[].session` gives).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Print counts per rule instead of the findings.
    #[arg(long)]
    pub(crate) statistics: bool,
    /// Order of the findings: `path` (by file, line and pointer: the default) or `impact`
    /// (the estimated cost of each finding, highest first; findings with no impact last).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = SortOrder::Path)]
    pub(crate) sort: SortOrder,
    /// Report only findings not recorded in this baseline file.
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Record today's findings in FILE (then exit 0).
    #[arg(long, value_name = "FILE")]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Worker threads (default: one per core; at most 256, and no more than the inputs or cores when only files are named; fewer when the system refuses them).
    #[arg(short = 'j', long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Lowest severity that makes the run exit 1 (overrides `fail-on` in the configuration).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub(crate) fail_on: Option<FailOn>,
    /// `-q`/`--quiet`, a global option (before or after the subcommand, as ruff's).
    #[arg(skip)]
    pub(crate) quiet: bool,
    /// `-v`/`--verbose`, a global option.
    #[arg(skip)]
    pub(crate) verbose: bool,
}

/// `--sort`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SortOrder {
    /// By path, line, pointer and code.
    Path,
    /// By estimated cost (USD), then tokens, highest first.
    Impact,
}

/// `--fail-on`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailOn {
    /// Any finding fails the run (the default).
    Warning,
    /// Only errors fail the run.
    Error,
}

/// `check --help`'s text after the options: [`CHECK_HELP`] with every input
/// format of [`ctxlint::formats::REGISTRY`] named (wrapped at 95 columns, as
/// the rest of it is).
pub(crate) fn check_help() -> String {
    let ids = ctxlint::formats::ids_joined();
    let para = format!(
        "Input formats (detected by content; --input-format ID forces one): {ids}. `ctxlint formats` lists them with where each agent keeps its files."
    );
    let mut lines: Vec<String> = Vec::new();
    for word in para.split(' ') {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= 95 => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    CHECK_HELP.replace("{formats}", &lines.join("\n"))
}

/// `check --help`'s text after the options; `{formats}` is filled by [`check_help`].
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
~/.qwen/projects/*/chats, ~/.copilot/session-state/*/events.jsonl (and the earlier
~/.copilot/session-state/*.jsonl),
Cline / Roo Code / Kilo Code task histories in VS Code's globalStorage and ~/.cline/data, and
the OpenCode and Kilo CLI stores ~/.local/share/opencode/opencode.db,
~/.local/share/kilo/kilo.db and the legacy ~/.local/share/opencode/storage/session.
$CLAUDE_CONFIG_DIR, $CODEX_HOME, $GEMINI_CLI_HOME, $QWEN_RUNTIME_DIR or $QWEN_HOME,
$COPILOT_HOME and $XDG_DATA_HOME replace their defaults when set.

{formats}

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

const SHOW_HELP: &str = "Without --request, prints per request (streams) or per step (transcripts: one step per model call, its context rebuilt from the session tree) a table of its messages: index, role, kind, size in bytes, first line and a short hash (equal hashes: equal messages). By default only the messages new since the previous step's context (a stream's request: since its predecessor in its lane, the agent it belongs to) are listed, after a line saying how many were carried over (or that the context was rebuilt: a compaction, another branch, a context carrier dropped; the messages a compaction keeps after its summary were listed before and are counted, not listed again); --full lists whole contexts. With --request N (--step N), prints that request's or step's context in full, with its texts. Output is written as it is built. Secrets are masked. A transcript keeps only a prefix of assistant, thinking, tool-call and tool-result texts (a few hundred bytes at most, less for some formats): such texts end with \"… (N bytes; the first K are kept)\" and say their full size. --full on a long session prints every step's whole context (its size grows with the square of the session's length): prefer the default, or --step N.\n\nExamples:\n  ctxlint show session.jsonl\n  ctxlint show session.jsonl --full\n  ctxlint show session.jsonl --step 12\n  ctxlint show cassette.yaml --request 2\n\nExit codes: 0 shown; 2 usage or I/O error (e.g. no such request or step).";

const REPRO_HELP: &str = "Selecting findings: with none of --finding, --line, --pointer, --all, exactly one finding (of --rule, if given) must match. Fingerprints are printed by `ctxlint check --output-format json`.\n\nThe case directory is what `ctxlint check .` needs: run it there, or hand it to ../shared/cases/run_cases.py. Nothing is written beside the inputs: DIR may not lie inside an input folder or the folder of an input file. An existing non-empty case directory is never overwritten (the next number is used); with --force, one that holds only what an earlier repro wrote there is replaced.\n\nExamples:\n  ctxlint repro session.jsonl --line 448 -o ../cases/\n  ctxlint repro big.jsonl --rule duplicate-system-event --all -o ../cases/ --budget 10\n  ctxlint repro cassette.yaml --finding 3f2a9c0d1e4b5a67 -o ../cases/ --source https://github.com/o/r/issues/1\n  ctxlint repro requests/ --all -o ../cases/ --keep-text   # a directory of request bodies (one stream)\n\nExit codes: 0 every selected finding was written as a case; 1 some could not be reproduced (see stderr); 2 usage or I/O error, or no finding matches the selection.";

#[derive(Args, Debug)]
pub(crate) struct ReproArgs {
    /// Files or directories to check, as for `check`.
    #[arg(value_name = "PATH", required = true)]
    pub(crate) paths: Vec<String>,
    /// Only findings of this rule (name or code).
    #[arg(long, value_name = "NAME")]
    pub(crate) rule: Option<String>,
    /// Only the finding with this fingerprint.
    #[arg(long, value_name = "FINGERPRINT")]
    pub(crate) finding: Option<String>,
    /// Only findings at this 1-based line.
    #[arg(long, value_name = "N")]
    pub(crate) line: Option<u32>,
    /// Only findings at this JSON Pointer.
    #[arg(long, value_name = "P")]
    pub(crate) pointer: Option<String>,
    /// Every matching finding (one case each).
    #[arg(long)]
    pub(crate) all: bool,
    /// Directory the cases are written into (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR", required = true)]
    pub(crate) out: PathBuf,
    /// Time budget per finding, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub(crate) budget: f64,
    /// Do not anonymise: keep the input's text (for cases that stay private).
    #[arg(long)]
    pub(crate) keep_text: bool,
    /// The bug-report URL to record as the case's `source` (default: the input path, anonymised).
    #[arg(long, value_name = "URL")]
    pub(crate) source: Option<String>,
    /// Replace an existing case directory that holds only what an earlier `repro` wrote there, instead of using the next number.
    #[arg(long)]
    pub(crate) force: bool,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    pub(crate) input_format: Option<ctxlint::model::FormatId>,
    /// Check every request file on its own instead of joining a directory's files into a stream.
    #[arg(long)]
    pub(crate) no_stream: bool,
}

#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// A request-body file (any body format), a one-request stream, or, with
    /// --request I J, a stream: a cassette, an exchange log, a directory of
    /// request files, or a pydantic-ai history directory.
    #[arg(value_name = "A")]
    pub(crate) a: String,
    /// The second request-body file (the later request). With --request I J,
    /// request I is taken from A and request J from B.
    #[arg(value_name = "B")]
    pub(crate) b: Option<String>,
    /// The 0-based requests to compare (I the earlier, J the later; in
    /// cassettes and exchange logs, the interaction or line index).
    #[arg(long, num_args = 2, value_names = ["I", "J"])]
    pub(crate) request: Option<Vec<usize>>,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    pub(crate) output_format: ViewFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output_file: Option<PathBuf>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    pub(crate) input_format: Option<ctxlint::model::FormatId>,
}

#[derive(Args, Debug)]
pub(crate) struct ShowArgs {
    /// A transcript, a request-body file, a stream (cassette, exchange log), or
    /// a directory holding one stream.
    #[arg(value_name = "PATH")]
    pub(crate) path: String,
    /// Print this 0-based request (streams) or step (transcripts) in full, with its texts.
    #[arg(long, visible_alias = "step", value_name = "N")]
    pub(crate) request: Option<usize>,
    /// Of a store that holds several sessions (an OpenCode or Kilo database), show this one
    /// (`check --output-format json` lists them as `files[].session`).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// List every request's or step's whole context, not only what is new since the previous one.
    #[arg(long)]
    pub(crate) full: bool,
    /// Write the HTML triage page of this input instead (as `check --output-format html`:
    /// timeline, findings, contexts and diffs); use with -o FILE.
    #[arg(long, conflicts_with_all = ["request", "full", "output_format"])]
    pub(crate) html: bool,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    pub(crate) output_format: ViewFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output_file: Option<PathBuf>,
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "ID", value_parser = parse_input_format)]
    pub(crate) input_format: Option<ctxlint::model::FormatId>,
}

/// Output formats of `diff` and `show`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ViewFormat {
    /// Human-readable.
    Full,
    /// One JSON object.
    Json,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  ctxlint fence before.jsonl session.jsonl\n  ctxlint fence session.jsonl --prefix-size 2092 --prefix-sha256 7496…264f --output-format json\n\nExit codes: 0 identical or append-owned, 1 any other verdict, 2 usage/I-O error."
)]
pub(crate) struct FenceArgs {
    /// OLD and NEW, or only NEW with --prefix-size.
    #[arg(value_name = "FILE", num_args = 1..=2, required = true)]
    pub(crate) files: Vec<String>,
    /// OLD's recorded size in bytes (fingerprint form: give only NEW).
    #[arg(long, value_name = "N")]
    pub(crate) prefix_size: Option<u64>,
    /// OLD's recorded SHA-256 (64 hex digits); needs --prefix-size.
    #[arg(long, value_name = "HEX", requires = "prefix_size")]
    pub(crate) prefix_sha256: Option<String>,
    /// Kinds the runner owns, replacing the default: entry types and message roles, comma-separated (e.g. `assistant,toolResult,custom`).
    #[arg(long, value_name = "KIND,…", value_delimiter = ',')]
    pub(crate) owned: Option<Vec<String>>,
    /// `--config PATH` (global): the configuration whose `[fence] owned` is used.
    #[arg(skip)]
    pub(crate) config: Option<PathBuf>,
    /// `--isolated` (global).
    #[arg(skip)]
    pub(crate) isolated: bool,
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = OutputFormat::Full)]
    pub(crate) output_format: OutputFormat,
    /// Write the report to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(crate) output_file: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct RuleArgs {
    /// Rule name or code, e.g. `duplicate-system-event` or `CTX101`.
    pub(crate) name: Option<String>,
    /// Print every rule with its documentation.
    #[arg(long)]
    pub(crate) all: bool,
    /// Output format: Markdown and tables, or JSON (one object per rule; an array with --all or no NAME).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    pub(crate) output_format: ViewFormat,
}

#[derive(Args, Debug)]
pub(crate) struct FormatsArgs {
    /// Output format: a table, or a JSON array of {id, supported, kind, description, location}.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Full)]
    pub(crate) output_format: ViewFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutputFormat {
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
pub(crate) enum ColorChoice {
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
