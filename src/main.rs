//! The `ctxlint` binary: the allocator, then the command line of
//! [`ctxlint::cli`], whose exit code it exits with. The only place in the
//! crate that calls `std::process::exit`.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(ctxlint::cli::main_with_args(std::env::args_os()));
}
