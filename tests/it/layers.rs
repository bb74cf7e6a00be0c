//! The library's modules form no import cycle (issue 34): data flows one
//! way, from reading inputs (source, formats) through the model, analysis
//! and rules to the check and its reports, then the commands. The graph is
//! read from the source itself: an edge A → B for every `crate::B` (or
//! `crate::{…, B, …}`; in `lib.rs`, a bare `B::`) in the code of the
//! top-level module A (its file or folder), comments and unit-test modules
//! (from the first `#[cfg(test)]` line of a file on) left out. Run alone:
//! `cargo test --release --test it layers`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A source file: (top-level module, path from `src/`, numbered code lines).
type Source = (String, String, Vec<(usize, String)>);

/// The library's sources (`crates/ctxlint-core/src`), as [`sources_in`] reads them.
fn sources() -> Vec<Source> {
    sources_in(&crate::support::root().join("crates/ctxlint-core/src"))
}

/// Each `.rs` file under `src`: its top-level module, its path from `src`,
/// and its code lines (1-based line number, the text before any `//`), up to
/// its first `#[cfg(test)]` line (unit tests are left out).
fn sources_in(src: &Path) -> Vec<Source> {
    let src = src.to_path_buf();
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(&src).unwrap();
                let top =
                    rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
                let code = std::fs::read_to_string(&p)
                    .unwrap()
                    .lines()
                    .take_while(|l| l.trim() != "#[cfg(test)]")
                    .enumerate()
                    .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("").to_string()))
                    .collect();
                out.push((top, rel.display().to_string(), code));
            }
        }
    }
    out
}

/// Top-level module → the top-level modules its code names.
fn graph() -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let files = sources();
    let modules: BTreeSet<String> = files.iter().map(|(m, _, _)| m.clone()).filter(|m| m != "main").collect();
    let word = regex::Regex::new(r"crate::([a-z_][a-z0-9_]*)").unwrap();
    let group = regex::Regex::new(r"crate::\{([^}]*)").unwrap();
    let member = regex::Regex::new(r"(?:^|[,{\s])([a-z_][a-z0-9_]*)(?:::|\s*,|\s*$)").unwrap();
    let bare = regex::Regex::new(r"(?:^|[^:\w])([a-z_][a-z0-9_]*)::").unwrap();
    let mut g: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (m, rel, lines) in &files {
        for (no, code) in lines {
            let code = code.as_str();
            let mut named: BTreeSet<String> = word.captures_iter(code).map(|c| c[1].to_string()).collect();
            for c in group.captures_iter(code) {
                named.extend(member.captures_iter(&c[1]).map(|c| c[1].to_string()));
            }
            if m == "lib" {
                named.extend(bare.captures_iter(code).map(|c| c[1].to_string()));
            }
            for n in named.into_iter().filter(|n| n != m && modules.contains(n)) {
                let at = format!("{rel}:{no}");
                g.entry(m.clone()).or_default().entry(n).or_default().push(at);
            }
        }
        g.entry(m.clone()).or_default();
    }
    g
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeMap<String, Vec<String>>>) -> Vec<Vec<String>> {
    struct S<'a> {
        g: &'a BTreeMap<String, BTreeMap<String, Vec<String>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut S<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = S { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: vec![], on: BTreeSet::new(), out: vec![] };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn layers_the_library_has_no_import_cycle() {
    let g = graph();
    assert!(g.len() > 20, "modules found: {:?}", g.keys().collect::<Vec<_>>());
    let found = cycles(&g);
    let explain: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    g[a].iter()
                        .filter(|(b, _)| c.contains(b))
                        .map(move |(b, at)| format!("  {a} -> {b}: {}", at.join(", ")))
                })
                .collect();
            format!("cycle {c:?}:\n{}", edges.join("\n"))
        })
        .collect();
    assert!(found.is_empty(), "import cycles among src/ modules:\n{}", explain.join("\n"));
}

#[test]
fn layers_the_check_engine_names_no_renderer_or_command() {
    // The engine (lib.rs) and everything below it know nothing of the
    // reports or the commands built on them.
    let g = graph();
    let above = ["report", "show", "fence", "repro", "cli", "api", "diff", "catalog"];
    for low in [
        "lib",
        "check_report",
        "model",
        "formats",
        "analysis",
        "conversation",
        "rules",
        "finding",
        "source",
        "text",
        "escape",
    ] {
        let bad: Vec<String> = g
            .get(low)
            .into_iter()
            .flat_map(|e| e.iter())
            .filter(|(b, _)| above.contains(&b.as_str()))
            .map(|(b, at)| format!("{low} -> {b}: {}", at.join(", ")))
            .collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
    assert!(Path::new(&crate::support::root().join("crates/ctxlint-core/src/escape.rs")).is_file());
}

#[test]
fn layers_only_the_binary_sets_process_wide_state() {
    // The library (and the Python module built on it) never exits the
    // process, installs a panic hook or tunes the allocator: main.rs does.
    let mut bad = Vec::new();
    let cli = sources_in(&crate::support::root().join("src"));
    for (_, rel, lines) in sources().iter().chain(&cli).filter(|(_, rel, _)| rel != "main.rs") {
        for (no, code) in lines {
            for what in ["process::exit", "panic::set_hook", "mi_option_set", "#[global_allocator]"] {
                if code.contains(what) {
                    bad.push(format!("{rel}:{no}: {what}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "process-wide state set outside src/main.rs:\n{}", bad.join("\n"));
}

#[test]
fn layers_the_library_links_no_command_line() {
    // The compiler enforces the split: the library crate cannot name what it
    // does not depend on. Its manifest lists no argument parser, progress
    // bar, allocator or signal handling (the CLI crate at the root has them).
    let manifest = std::fs::read_to_string(crate::support::root().join("crates/ctxlint-core/Cargo.toml")).unwrap();
    let deps: Vec<&str> = manifest
        .lines()
        .skip_while(|l| l.trim() != "[dependencies]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| l.split(['=', ' ']).next().filter(|n| !n.is_empty() && !n.starts_with('#')))
        .collect();
    assert!(deps.contains(&"serde_json"), "{deps:?}");
    for cli_only in ["clap", "clap_complete", "clap_mangen", "indicatif", "mimalloc", "libmimalloc-sys", "signal-hook"]
    {
        assert!(!deps.contains(&cli_only), "the library depends on {cli_only}: {deps:?}");
    }
}

#[test]
fn layers_format_ids_are_made_by_loaders_and_named_only_in_formats() {
    // Issue 34: a format id is a typed `FormatId`, made only by its loader's
    // `pub const ID` (and `FormatId::UNKNOWN`); no code outside `formats/`
    // (the CLI crate included: `check --help` lists the registry) spells one as text (it names the loader's `ID`, or asks the
    // descriptor), and every loader's id is in the registry.
    let files = sources();
    let make = regex::Regex::new(r#"FormatId::new\("([a-z0-9-]+)"\)"#).unwrap();
    let mut ids = Vec::new();
    let mut bad = Vec::new();
    for (_, rel, lines) in &files {
        for (no, code) in lines {
            for c in make.captures_iter(code) {
                if rel.starts_with("formats/") && code.starts_with("pub const ID: FormatId = ") {
                    ids.push(c[1].to_string());
                } else {
                    bad.push(format!("{rel}:{no}: makes a FormatId: {}", code.trim()));
                }
            }
        }
    }
    assert!(ids.len() >= 22, "{ids:?}");
    let cli = sources_in(&crate::support::root().join("src"));
    for (_, rel, lines) in files.iter().filter(|(_, rel, _)| !rel.starts_with("formats/")).chain(&cli) {
        for (no, code) in lines {
            for id in &ids {
                if code.contains(&format!("\"{id}\"")) {
                    bad.push(format!("{rel}:{no}: the format id \"{id}\" as text: {}", code.trim()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let out = crate::support::ctxlint().args(["formats", "--output-format", "json"]).output().unwrap();
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let listed: BTreeSet<&str> = listed.iter().filter_map(|f| f["id"].as_str()).collect();
    let made: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(listed, made);
}

#[test]
fn layers_commands_reach_formats_only_through_the_registry() {
    // Issue 34: the engine, the inputs, the rules and the commands (check, show, diff,
    // repro, fence, the reports, the CLI crate) know a format through its
    // descriptor (`formats::descriptor`, `formats::REGISTRY`) and the
    // registry's own API, never a loader's module — except for a loader's
    // typed `ID`, named where one format's behaviour is the point.
    let loaders: Vec<String> = std::fs::read_dir(crate::support::root().join("crates/ctxlint-core/src/formats"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|s| !["mod", "format"].contains(&s.as_str()))
        .collect();
    let reach = regex::Regex::new(&format!(r"formats::({})::(\w+)", loaders.join("|"))).unwrap();
    let commands =
        ["show", "diff", "repro", "fence", "report", "api", "catalog", "inputs", "lib", "config", "baseline"];
    let cli = sources_in(&crate::support::root().join("src"));
    let mut bad = Vec::new();
    for (top, rel, lines) in sources().iter().filter(|(top, _, _)| commands.contains(&top.as_str())).chain(&cli) {
        for (no, code) in lines {
            for c in reach.captures_iter(code) {
                // `fence` compares records through the record schema API.
                if &c[2] != "ID"
                    && !(top == "fence" && &c[1] == "record")
                    && !(&c[1] == "jsonl" && &c[2] == "describe_json_error")
                {
                    bad.push(format!("{rel}:{no}: formats::{}::{}", &c[1], &c[2]));
                }
            }
        }
    }
    assert!(bad.is_empty(), "a command reaches into a loader:\n{}", bad.join("\n"));
}
