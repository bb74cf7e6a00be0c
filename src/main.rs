//! The `ctxlint` binary: the allocator, then the command line of
//! [`ctxlint::cli`], whose exit code it exits with. The only place in the
//! crate that calls `std::process::exit`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    #[cfg(unix)]
    on_signals();
    std::process::exit(ctxlint::cli::main_with_args(std::env::args_os()));
}

/// SIGTERM, SIGINT and SIGHUP end the run as they would (exit 128 + the
/// signal's number), but first remove the temporary file of a report being
/// written ([`ctxlint::safety::remove_temp_files`]); SIGXFSZ (a write past
/// `ulimit -f`) no longer kills the process: the write fails with `EFBIG`,
/// reported as an error naming the output file, and its temporary file is
/// removed as on every failed write.
#[cfg(unix)]
fn on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};
    let _ = signal_hook::flag::register(SIGXFSZ, std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)));
    // The handlers are installed by the thread that serves them: with no
    // thread to spare (a process limit) the signals keep their default action.
    let _ = std::thread::Builder::new().name("signals".into()).spawn(|| {
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            if let Some(sig) = signals.forever().next() {
                ctxlint::safety::remove_temp_files();
                std::process::exit(128 + sig);
            }
        }
    });
}
