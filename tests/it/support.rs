//! What the integration tests share: the project's root, whether the run is
//! under CI, and the `ctxlint` binary as a command with the colour variables
//! of the caller's environment removed (a module that needs more, a timeout
//! or a different folder, adds it to this command).

use assert_cmd::Command;
use std::path::PathBuf;

/// The project's root (where `Cargo.toml` is): fixtures are named from it.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `CI` is set (to anything but empty, `false` or `0`): there, a
/// test that needs something absent (`../shared`, Chromium, pre-commit)
/// fails instead of skipping.
pub fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The built `ctxlint`, run from [`root`], without `NO_COLOR` or
/// `CLICOLOR_FORCE` from the caller's environment.
pub fn ctxlint() -> Command {
    let mut c = Command::cargo_bin("ctxlint").expect("the ctxlint binary");
    c.current_dir(root()).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    c
}
