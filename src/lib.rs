//! The `ctxlint` command line: parses arguments (clap derive), runs the
//! library, renders, and maps errors to the exit codes of docs/spec.md §4. The
//! binary (`src/main.rs`) and the Python package's `ctxlint` command both
//! call [`main_with_args`]; only the binary calls `std::process::exit`.

use clap::{CommandFactory, Parser};
use ctxlint::Error;
use ctxlint::error::exit_code;
use std::io::Write;
use std::path::Path;

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

mod agents;
mod args;
mod check;
mod diff;
mod fence;
mod load;
mod man;
mod output;
mod repro;
mod rule;
mod show;

use args::{CheckArgs, Cli, Command, FenceArgs, ViewFormat};
use check::{cmd_check, split_config_options};
use diff::cmd_diff;
use fence::{cmd_fence, fence_config};
use man::man_page;
use output::{dash_is_stdout, mask_output, write_out};
use repro::cmd_repro;
use rule::cmd_rule;
use show::cmd_show;

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
    /// Returns the memory freed so far to the system, once: called after a
    /// large file's detection (which parses a whole document and lets it
    /// go) and before it is loaded, so that the load does not stand on it.
    pub release_freed_memory: fn(),
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

/// Inputs of at least this many bytes (16 MiB) have freed memory returned
/// at once ([`return_freed_memory_at_once`]).
const LARGE_INPUT: u64 = 16 << 20;

/// Whether a file named on the command line is large ([`LARGE_INPUT`]).
fn names_a_large_file(paths: &[String]) -> bool {
    paths.iter().any(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() >= LARGE_INPUT))
}

/// [`Process::release_freed_memory`], when registered.
fn release_freed_memory() {
    if let Some(p) = PROCESS.get() {
        (p.release_freed_memory)();
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
    let _copies = ctxlint::formats::CopyScope::enter();
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
