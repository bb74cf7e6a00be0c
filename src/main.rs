//! The `ctxlint` binary: the allocator and its options, the panic hook and
//! the signal handlers — everything process-wide — then the command line of
//! [`ctxlint_cli`], whose exit code it exits with. The only place in the
//! crate that calls `std::process::exit` or sets process-wide state.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc option numbers (`mi_option_e` in mimalloc's `include/mimalloc.h`, v3).
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Returns freed pages to the system at once (`true`) or after mimalloc's
/// default 10 ms (`false`): [`ctxlint_cli::Process`].
fn return_freed_memory_at_once(at_once: bool) {
    // SAFETY: a plain option setter; mimalloc reads options atomically.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, if at_once { 0 } else { 10 }) }
}

/// Returns the memory freed so far to the system, once
/// ([`ctxlint_cli::Process::release_freed_memory`]).
fn release_freed_memory() {
    // SAFETY: mimalloc's collection entry point, safe to call at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

fn main() {
    // Commit arena memory on demand (for arenas created from here on; the
    // first one follows the compile-time default set in .cargo/config.toml).
    // SAFETY: a plain option setter, called before any thread is started.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) }
    std::panic::set_hook(Box::new(|info| {
        eprintln!("ctxlint: internal error (a bug, please report it with the input that caused it): {info}");
    }));
    ctxlint_cli::set_process(ctxlint_cli::Process { return_freed_memory_at_once, release_freed_memory });
    #[cfg(unix)]
    on_signals();
    let code = ctxlint_cli::main_with_args(std::env::args_os());
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
