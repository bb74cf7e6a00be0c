//! Writing a case directory: the reduced input files, `expected.json` in the
//! schema of `../shared/cases/README.md`, and `case.md`.

use super::CaseOutcome;
use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::rule_id::RuleId;
use serde_json::json;
use std::path::{Path, PathBuf};

/// What a case is made of.
pub struct CaseInfo<'a> {
    /// The bug-report URL, or the (anonymised) input path.
    pub source: &'a str,
    /// The input format id.
    pub format: &'a str,
    /// The selected finding's rule.
    pub rule: RuleId,
    /// The reduced input files.
    pub files: &'a [(String, Vec<u8>)],
    /// Every finding ctxlint reports on them.
    pub findings: &'a [Finding],
    /// How the reduction went.
    pub outcome: &'a CaseOutcome,
    /// Whether compressed inputs were written decompressed.
    pub decompressed: bool,
    /// The file holding the selected finding.
    pub target_file: &'a str,
}

fn is_free(dir: &Path) -> bool {
    match std::fs::read_dir(dir) {
        Ok(mut rd) => rd.next().is_none(),
        Err(_) => !dir.exists(),
    }
}

/// The names of the files `repro` wrote into a case directory: `case.md`,
/// `expected.json`, and the input files its `case.md` lists (`- files:`).
/// Empty when `case.md` is not one `repro` wrote.
fn own_files(dir: &Path) -> Vec<String> {
    let Ok(md) = std::fs::read_to_string(dir.join("case.md")) else { return Vec::new() };
    if !md.lines().any(|l| l.starts_with("- written by: ctxlint ") && l.contains("(`ctxlint repro`)")) {
        return Vec::new();
    }
    let mut names = vec!["case.md".to_string(), "expected.json".to_string()];
    if let Some(line) = md.lines().find_map(|l| l.strip_prefix("- files: ")) {
        for n in line.split(", ") {
            if let Some(n) = n.strip_prefix('`').and_then(|n| n.strip_suffix('`')) {
                // A plain name inside the directory, never a path out of it.
                if !n.is_empty() && !n.contains(['/', '\\']) && n != "." && n != ".." {
                    names.push(n.to_string());
                }
            }
        }
    }
    names
}

/// Empties `dir` when it holds only what an earlier `repro` wrote there
/// (regular files named by [`own_files`]); a directory holding anything
/// else (another file, a folder, a link) is left as it is.
fn remove_own_files(dir: &Path) -> Result<()> {
    let own = own_files(dir);
    let Ok(rd) = std::fs::read_dir(dir) else { return Ok(()) };
    let mut remove = Vec::new();
    for e in rd {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let plain = e.file_type().is_ok_and(|t| t.is_file());
        if !plain || !own.contains(&name) {
            return Ok(());
        }
        remove.push(e.path());
    }
    for p in remove {
        std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

/// The next case directory `<out>/<rule>-<n>`: numbers already holding files
/// are skipped, unless `force` and the directory holds only the files an
/// earlier `repro` wrote there: then those are removed and the directory is
/// reused (a directory holding any other file is never emptied). A case directory that leads outside `out` (a symbolic
/// link) is refused.
pub fn next_dir(out: &Path, rule: RuleId, counter: &mut usize, force: bool) -> Result<PathBuf> {
    let root = crate::safety::resolve(out);
    loop {
        *counter += 1;
        let dir = out.join(format!("{}-{}", rule.name(), counter));
        let is_link = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !crate::safety::resolve(&dir).starts_with(&root) {
            return Err(Error::Usage(format!(
                "the case directory {} is a link to {}, outside {}: refusing to write through it",
                crate::escape::shown(&dir),
                crate::escape::shown(&crate::safety::resolve(&dir)),
                crate::escape::shown(out)
            )));
        }
        if force && !is_link && dir.is_dir() {
            remove_own_files(&dir)?;
        }
        if is_free(&dir) {
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            return Ok(dir);
        }
    }
}

/// `expected.json` for the case (every finding, `exact: true`, `command: ["check", "."]`).
pub fn expected_json(info: &CaseInfo) -> String {
    let findings: Vec<serde_json::Value> = info
        .findings
        .iter()
        .map(|f| {
            let mut o = serde_json::Map::new();
            o.insert("rule".into(), json!(f.rule.name()));
            o.insert("path".into(), json!(f.path));
            if super::kind_of(f.format) == super::Kind::Jsonl {
                if let Some(l) = f.line {
                    o.insert("line".into(), json!(l));
                }
            }
            o.insert("pointer".into(), json!(f.pointer));
            serde_json::Value::Object(o)
        })
        .collect();
    let doc = json!({
        "source": info.source,
        "format": info.format,
        "command": ["check", "."],
        "findings": findings,
        "exact": true,
        "note": format!("{} reduced by ctxlint repro {} ({} → {} lines)", info.rule.name(), env!("CARGO_PKG_VERSION"), info.outcome.before.0, info.outcome.after.0),
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// `case.md`: the rule, how to run the case, what was removed and replaced.
/// Holds no text of the input (only counts, names of files and rules).
pub fn case_md(info: &CaseInfo) -> String {
    let o = info.outcome;
    let m = crate::rules::meta(info.rule);
    let mut s = String::new();
    s.push_str(&format!("# {} ({}): reduced reproduction\n\n", m.name, m.code));
    s.push_str(&format!("- source: {}\n", info.source));
    s.push_str(&format!("- input format: `{}`\n", info.format));
    let names: Vec<String> = info.files.iter().map(|(n, _)| format!("`{n}`")).collect();
    s.push_str(&format!("- files: {}\n", names.join(", ")));
    s.push_str(&format!("- rule: `{}` — {}\n", m.name, m.summary));
    s.push_str(&format!("- written by: ctxlint {} (`ctxlint repro`)\n\n", env!("CARGO_PKG_VERSION")));
    s.push_str("## Run it\n\n```sh\nctxlint check . --output-format json\n```\n\n");
    s.push_str(&format!(
        "Expected: exit status 1 and the findings listed in `expected.json`, among them `{}` in `{}`.\n\n",
        m.name, info.target_file
    ));
    s.push_str("## What was removed\n\n");
    s.push_str(&format!(
        "The input was reduced from {} lines ({} bytes) to {} lines ({} bytes) in {} test runs of ctxlint, {}.\n",
        o.before.0,
        o.before.1,
        o.after.0,
        o.after.1,
        o.tests,
        if o.complete {
            "down to a 1-minimal case (removing any further entry, element or word loses the finding; \
             the text of a line that is not valid JSON is not reduced)"
        } else {
            "stopped by the time budget (the case may not be minimal)"
        }
    ));
    s.push_str("Removed entries' children were re-attached to their nearest kept ancestor; JSON was re-serialised compactly.\n");
    if info.decompressed {
        s.push_str("The input was compressed; the case holds it decompressed.\n");
    }
    s.push_str("\n## Anonymisation\n\n");
    if !o.anonymised {
        s.push_str("None (`--keep-text`): the text is the original's.\n");
    } else if o.replaced.is_empty() {
        s.push_str("Nothing left to replace after the reduction.\n");
    } else {
        let classes: Vec<String> = o.replaced.iter().map(|(k, v)| format!("{k} ({v})")).collect();
        s.push_str(&format!(
            "Replaced with stable placeholders of a similar shape (distinct values per class): {}. Keys, roles, type tags, tool names (but for an MCP tool's server), statuses, timestamps and `System: [..]` labels were kept.\n",
            classes.join(", ")
        ));
    }
    for n in &o.notes {
        s.push_str(&format!("\nNote: {n}\n"));
    }
    s
}

/// Writes the case into `dir`.
pub fn write(dir: &Path, info: &CaseInfo) -> Result<()> {
    for (name, bytes) in info.files {
        let p = dir.join(name);
        std::fs::write(&p, bytes).map_err(|e| Error::io(&p, e))?;
    }
    let p = dir.join("expected.json");
    std::fs::write(&p, expected_json(info)).map_err(|e| Error::io(&p, e))?;
    let p = dir.join("case.md");
    std::fs::write(&p, case_md(info)).map_err(|e| Error::io(&p, e))?;
    Ok(())
}
