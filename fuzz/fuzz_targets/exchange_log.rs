//! The exchange_log loader on arbitrary bytes, then every rule over what it loaded.
//! The logic is in `src/lib.rs` (shared with tests/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ctxlint_fuzz::run("exchange_log", data));
