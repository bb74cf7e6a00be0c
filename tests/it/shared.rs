//! `../shared` (the real corpus, the regression cases, the session generator)
//! sits beside the repository in CI and on developers' machines, but not in
//! every clone. A test that needs it calls [`path`]: when it is absent the test
//! is skipped with a loud notice — unless `CI` is set, where it must be present
//! and its absence fails the test.

use std::path::{Path, PathBuf};

/// `../shared/<rel>` when it exists. When it does not: under `CI` the test
/// fails; elsewhere a notice is printed (shown with `--nocapture`, and
/// counted in the summary line printed at the end of `cases`) and `None`
/// is returned so the caller skips.
pub fn path(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared").join(rel);
    if p.exists() {
        return Some(p);
    }
    if crate::support::under_ci() {
        panic!("{} is absent: under CI the shared corpus and cases must sit beside the repository", p.display());
    }
    eprintln!(
        "\n*** SKIPPED: {} is absent — this test needs ../shared (the real corpus and cases). \
         Clone or copy it beside the repository to run it. ***\n",
        p.display()
    );
    None
}
