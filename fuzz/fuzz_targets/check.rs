//! Whole `check` of arbitrary bytes: detection, load, rules, positions, every renderer.
//! The logic is in `src/lib.rs` (shared with tests/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ctxlint_fuzz::run("check", data));
