//! OpenCode's legacy storage/ tree, built from the input, then every rule and position resolution.
//! The logic is in `src/lib.rs` (shared with tests/it/fuzz_regressions.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ctxlint_fuzz::run("opencode_tree", data));
