//! The default scan of `check` with no PATH: the session folders of the
//! agents installed on this machine, as each format's descriptor names them
//! ([`ctxlint::formats::AgentFolder`]).

use ctxlint::formats::AgentFolder;
use std::path::{Path, PathBuf};

/// The session folders (and files) of agents installed on this machine
/// (docs/spec.md §3), in the registry's rank order, and the places looked at
/// (for the message when none exists).
pub(crate) fn agent_folders() -> (Vec<String>, Vec<String>) {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let env_dir = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut looked = Vec::new();
    let mut out = Vec::new();
    for f in ctxlint::formats::agent_folders() {
        let Some(base) = base(&f, home.as_deref(), &env_dir) else { continue };
        looked.push(base.join(f.pattern));
        out.extend(expand(&base, f.pattern, f.file));
    }
    let s = |v: Vec<PathBuf>| v.into_iter().map(|p| p.to_string_lossy().into_owned()).collect();
    (s(out), s(looked))
}

/// The agent's folder: the first environment variable set, else its folder
/// under the user's home; `None` when neither is known.
fn base(f: &AgentFolder, home: Option<&Path>, env_dir: &dyn Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
    match f.env.iter().find_map(|v| env_dir(v)) {
        Some(d) if f.env_is_home => Some(d.join(f.home)),
        Some(d) => Some(d),
        None => home.map(|h| h.join(f.home)),
    }
}

/// The files (`file`) or folders under `base` matching `pattern`, sorted: a
/// segment holding `*` matches every name there with the same start and end.
fn expand(base: &Path, pattern: &str, file: bool) -> Vec<PathBuf> {
    let mut at = vec![base.to_path_buf()];
    for seg in pattern.split('/') {
        at = match seg.split_once('*') {
            None => at.into_iter().map(|p| p.join(seg)).collect(),
            Some((start, end)) => at
                .iter()
                .filter_map(|p| std::fs::read_dir(p).ok())
                .flatten()
                .filter_map(|e| e.ok())
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.len() >= start.len() + end.len() && name.starts_with(start) && name.ends_with(end)
                })
                .map(|e| e.path())
                .collect(),
        };
    }
    let mut v: Vec<PathBuf> = at.into_iter().filter(|p| if file { p.is_file() } else { p.is_dir() }).collect();
    v.sort();
    v
}
