//! The `ctxlint` binary: the allocator, then the command line of
//! [`ctxlint::cli`], whose exit code it exits with. The only place in the
//! crate that calls `std::process::exit`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    #[cfg(unix)]
    on_signals();
    let code = ctxlint::cli::main_with_args(std::env::args_os());
    // A signal that ended a read or a write early (EINTR) ends the run as
    // the signal does, whichever thread sees it first.
    #[cfg(unix)]
    if let Some(sig) = signalled() {
        ctxlint::safety::remove_temp_files();
        std::process::exit(128 + sig);
    }
    std::process::exit(code);
}

/// The terminating signal received, set by the signal handler itself.
#[cfg(unix)]
static SIGNAL: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicUsize>> = std::sync::OnceLock::new();

#[cfg(unix)]
fn signalled() -> Option<i32> {
    let sig = SIGNAL.get()?.load(std::sync::atomic::Ordering::SeqCst);
    (sig != 0).then_some(sig as i32)
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
        let flag = SIGNAL.get_or_init(|| std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0))).clone();
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            let _ = signal_hook::flag::register_usize(sig, flag.clone(), sig as usize);
        }
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            if let Some(sig) = signals.forever().next() {
                ctxlint::safety::remove_temp_files();
                std::process::exit(128 + sig);
            }
        }
    });
}
