//! Every integration test, in one test binary (`cargo test --test it`): one
//! link of the library and its dependencies instead of one per file, which
//! is most of a fresh `cargo test --release`'s time on a 2-core machine.
//! Each former test file is a module here; `shared` says loudly (and fails
//! under CI) when the `../shared` corpus and cases are absent.

mod browser;
mod shared;
mod snapshot_formats;
mod support;

mod adversarial;
mod agents_sqlite;
mod aider;
mod cases;
mod cli;
mod cline_history;
mod copilot_cli;
mod corpus_cc_codex;
mod corpus_pi;
mod corpus_streams;
mod diff_show;
mod fence;
mod fence_props;
mod first_hour;
mod flood;
mod formats_out;
mod found;
mod fuzz_regressions;
mod gemini_cli;
mod har;
mod html;
mod impact;
mod inputs;
mod layers;
mod opencode;
mod otel;
mod output;
mod output_cli;
mod python;
mod readme;
mod repro;
mod rules;
mod safety;
mod secrets;
mod sidecars;
mod stdin;
mod streams;
mod trajectory;
