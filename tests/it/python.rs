//! The Python package's tests (python/tests: the API against the command on
//! every case, the pytest plugin on pydantic-ai cassettes, the Dask fleet),
//! run with pytest in the virtual environment `python/build-venv.sh` builds
//! (`.ci/run` runs it first). Without it the test prints a loud SKIPPED
//! notice; under `CI` it fails.

use std::path::PathBuf;
use std::process::Command;

#[test]
#[cfg_attr(ctxlint_no_venv, ignore = "needs the Python virtual environment (python/build-venv.sh)")]
fn the_python_package_tests_pass_in_its_virtual_environment() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/py-venv/bin/python");
    if !python.exists() {
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(!ci, "{} is missing: .ci/run builds it with python/build-venv.sh", python.display());
        eprintln!(
            "\n*** SKIPPED: {} is missing (python/build-venv.sh builds it) — the Python package was not tested. ***\n",
            python.display()
        );
        return;
    }
    let out = Command::new(&python)
        .args(["-m", "pytest", "python/tests", "-q", "-p", "no:cacheprovider"])
        .current_dir(&root)
        .env("CTXLINT_BIN", env!("CARGO_BIN_EXE_ctxlint"))
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{text}");
    // Every test ran: none skipped (a missing corpus or dependency would skip).
    let last = text.lines().rev().find(|l| l.contains(" passed")).unwrap_or("");
    assert!(!last.contains("skipped"), "{last}");
    assert!(last.contains(" passed"), "{text}");
}
