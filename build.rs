//! Looks for what some integration tests need beside the repository and, for
//! each thing absent, sets a `cfg` that marks those tests
//! `#[ignore = "needs …"]`, so `cargo test` on a clean clone passes and its
//! summary line says how many were not run ("N ignored") instead of hiding
//! them among the passes:
//!
//! | cfg                    | set when this is absent                                           |
//! |------------------------|-------------------------------------------------------------------|
//! | `ctxlint_no_shared`    | `../shared` (the real corpus, the regression cases, their runner)  |
//! | `ctxlint_no_chromium`  | Chromium (`CTXLINT_CHROMIUM`, `/usr/bin/chromium`, …)              |
//! | `ctxlint_no_axe`       | axe-core (`CTXLINT_AXE`, `target/axe/node_modules/axe-core/axe.min.js`) |
//! | `ctxlint_no_venv`      | the Python package's virtual environment (`target/py-venv`)        |
//! | `ctxlint_no_pre_commit`| `pre-commit` (on `PATH`, or `python3 -m pre_commit`)               |
//!
//! Under `CI` (set and not `0`/`false`) none is set: those tests run, and
//! fail when what they need is missing (`.ci/run` installs it); `ctxlint_ci`
//! is set instead, which runs the tests too slow for every local run (the
//! `language: rust` pre-commit hook, built by `cargo install`).
//!
//! The search runs when this script changes or when `CI`, `PATH`,
//! `CTXLINT_CHROMIUM` or `CTXLINT_AXE` change: after installing something
//! else, `touch build.rs` (or `cargo test -- --include-ignored`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CFGS: [&str; 5] =
    ["ctxlint_no_shared", "ctxlint_no_chromium", "ctxlint_no_axe", "ctxlint_no_venv", "ctxlint_no_pre_commit"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in ["CI", "PATH", "CTXLINT_CHROMIUM", "CTXLINT_AXE"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for cfg in CFGS.iter().chain(&["ctxlint_ci"]) {
        println!("cargo:rustc-check-cfg=cfg({cfg})");
    }
    fixture_case_tests();
    let under_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
    if under_ci {
        // The slow tests (a second release build by pre-commit) run under CI only.
        println!("cargo:rustc-cfg=ctxlint_ci");
        return;
    }
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let absent = [
        !root.join("../shared/corpus").is_dir() || !root.join("../shared/cases").is_dir(),
        chromium().is_none(),
        !std::env::var_os("CTXLINT_AXE")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/axe/node_modules/axe-core/axe.min.js"))
            .is_file(),
        !root.join("target/py-venv/bin/python").exists(),
        !runs(&["pre-commit", "--version"]) && !runs(&["python3", "-m", "pre_commit", "--version"]),
    ];
    for (cfg, absent) in CFGS.iter().zip(absent) {
        if absent {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
}

/// Writes `$OUT_DIR/fixture_cases.rs`: one `#[test]` per case folder (one
/// holding `expected.json`) under `fixtures/cases/` and `fixtures/kinds/`,
/// which `tests/it/cases.rs` includes, so that each case passes or fails by
/// its own name and a new folder is a new test without an edit.
fn fixture_case_tests() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut out = String::new();
    for set in ["cases", "kinds"] {
        let dir = root.join("fixtures").join(set);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter(|e| e.path().join("expected.json").is_file())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        for name in names {
            let ident: String =
                name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
            out.push_str(&format!("#[test]\nfn {set}_{ident}() {{\n    case({set:?}, {name:?});\n}}\n\n"));
        }
    }
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("fixture_cases.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// The Chromium binary the browser tests would start (tests/it/browser.rs).
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CTXLINT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .iter()
        .map(Path::new)
        .find(|p| p.exists())
        .map(Path::to_path_buf)
}

/// Whether the command runs and exits 0.
fn runs(cmd: &[&str]) -> bool {
    Command::new(cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
