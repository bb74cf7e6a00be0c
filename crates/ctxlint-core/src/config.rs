//! Effective settings: rule levels, patterns and thresholds. `ctxlint.toml`
//! loading (with `[rules]`, `[[overrides]]`) fills these; defaults follow docs/spec.md §2.

use crate::finding::Severity;
use crate::rule_id::RuleId;
use regex::Regex;
use std::collections::HashMap;

/// Default system-event label pattern (docs/spec.md CTX101).
pub const DEFAULT_EVENT_PATTERN: &str = r"^System(?: \(untrusted\))?: \[[^\]]+\] .+$";
/// Default minimum length of a paragraph counted as a context block (docs/spec.md CTX102).
pub const DEFAULT_CONTEXT_BLOCK_MIN: usize = 64;
/// Minimum length of an event text matched on its own (docs/spec.md CTX101).
pub const EVENT_TEXT_MIN: usize = 16;

/// Settings that rules read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// System-event label line patterns (any match is a label). Shared, not
    /// cloned, with each input's copy of the settings: a cloned `Regex` has
    /// its own search caches, which were built again for every file.
    pub event_patterns: std::sync::Arc<[Regex]>,
    /// Minimum characters for a paragraph to count as a context block.
    pub context_block_min: usize,
    /// `context-block-allow`: a context block matching any of these (anywhere
    /// in the block) is never a `duplicate-context-block`.
    /// Shared as `event_patterns` is.
    pub context_block_allow: std::sync::Arc<[Regex]>,
    /// Per-rule level: `None` = off, `Some(severity)`.
    pub levels: HashMap<RuleId, Option<Severity>>,
}

/// The default event pattern, compiled once per process.
static DEFAULT_EVENT_PATTERNS: std::sync::LazyLock<std::sync::Arc<[Regex]>> = std::sync::LazyLock::new(|| {
    std::sync::Arc::from(vec![Regex::new(DEFAULT_EVENT_PATTERN).expect("default pattern")])
});

impl Default for Settings {
    fn default() -> Self {
        Settings {
            event_patterns: DEFAULT_EVENT_PATTERNS.clone(),
            context_block_min: DEFAULT_CONTEXT_BLOCK_MIN,
            context_block_allow: std::sync::Arc::from(Vec::new()),
            levels: HashMap::new(),
        }
    }
}

impl Settings {
    /// The effective level of a rule (`None` = off).
    pub fn level(&self, r: RuleId) -> Option<Severity> {
        match self.levels.get(&r) {
            Some(l) => *l,
            None => Some(r.default_severity()),
        }
    }
    /// Whether a line is a system-event label.
    pub fn is_event_label(&self, line: &str) -> bool {
        // The default pattern only matches lines that start with `System`:
        // most lines are ruled out without running the regex.
        self.event_patterns
            .iter()
            .any(|p| (line.starts_with("System") || p.as_str() != DEFAULT_EVENT_PATTERN) && p.is_match(line))
    }
}

// ---------------------------------------------------------------------------
// ctxlint.toml
// ---------------------------------------------------------------------------

use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Name of the configuration file, found from each input's folder upward.
pub const CONFIG_FILE: &str = "ctxlint.toml";
/// The configuration files looked for in each folder, the first found winning
/// (as ruff looks for `.ruff.toml`, `ruff.toml`, then a `pyproject.toml` with
/// a `[tool.ruff]` table): a `pyproject.toml` counts only when it has a
/// `[tool.ctxlint]` table.
pub const CONFIG_FILES: [&str; 3] = [".ctxlint.toml", CONFIG_FILE, PYPROJECT];
/// Python's project file, read for its `[tool.ctxlint]` table.
pub const PYPROJECT: &str = "pyproject.toml";

/// A rule level as written in `ctxlint.toml`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Report as an error.
    Error,
    /// Report as a warning.
    Warning,
    /// Do not report.
    Off,
}

impl Level {
    fn as_option(self) -> Option<Severity> {
        match self {
            Level::Error => Some(Severity::Error),
            Level::Warning => Some(Severity::Warning),
            Level::Off => None,
        }
    }
}

/// `fail-on` as written in `ctxlint.toml`: only a severity (`"off"` is an error:
/// use `--exit-zero` to never fail).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Exit 1 for any finding.
    Warning,
    /// Exit 1 only for errors.
    Error,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Warning => Severity::Warning,
            FailOn::Error => Severity::Error,
        }
    }
}

/// The `ctxlint.toml` file, as written. Unknown keys are errors.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    /// Lowest severity that makes `check` exit 1 (`"warning"`, the default, or `"error"`).
    pub fail_on: Option<FailOn>,
    /// System-event label patterns (regexes), replacing the default.
    pub event_patterns: Option<Vec<String>>,
    /// Minimum characters of a paragraph counted as a context block.
    pub context_block_min: Option<usize>,
    /// Regexes: context blocks they match are exempt from `duplicate-context-block`.
    pub context_block_allow: Option<Vec<String>>,
    /// Rule levels by name or code.
    #[serde(default)]
    pub rules: HashMap<String, Level>,
    /// Per-path rule levels.
    #[serde(default)]
    pub overrides: Vec<Override>,
    /// `fence` settings.
    pub fence: Option<FenceConfig>,
    /// Prices per model family (USD per million tokens), before the built-in table.
    #[serde(default)]
    pub prices: HashMap<String, crate::impact::prices::Price>,
}

/// An `[[overrides]]` table: rule levels for paths matching its globs.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Override {
    /// Globs relative to the configuration file's directory (`**` crosses folders).
    pub paths: Vec<String>,
    /// Rule levels by name or code.
    #[serde(default)]
    pub rules: HashMap<String, Level>,
}

/// The `[fence]` table.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FenceConfig {
    /// Entry types and message roles the runner owns (replaces the default set).
    pub owned: Option<Vec<String>>,
}

/// The effective configuration: base settings, per-path overrides and where it came from.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Settings for paths no override matches.
    pub base: Settings,
    /// Overrides in file order (later wins).
    pub overrides: Vec<(globset::GlobSet, HashMap<RuleId, Option<Severity>>)>,
    /// Directory the globs are relative to.
    pub root: Option<PathBuf>,
    /// The file it was read from.
    pub file: Option<PathBuf>,
    /// Lowest failing severity.
    pub fail_on: Option<Severity>,
    /// Fence ownership override.
    pub fence_owned: Option<Vec<String>>,
    /// `--select`: only these rules (None = all).
    pub select: Option<std::collections::HashSet<RuleId>>,
    /// `--ignore`: never these rules.
    pub ignore: std::collections::HashSet<RuleId>,
    /// The price table in force (`[prices]`, then the built-in families).
    pub prices: crate::impact::prices::Prices,
}

/// The `[prices]` table: each price finite and not negative.
fn prices(path: &Path, m: HashMap<String, crate::impact::prices::Price>) -> Result<crate::impact::prices::Prices> {
    for (k, p) in &m {
        let all = [Some(p.input), Some(p.output), p.cache_read, p.cache_write, p.cache_write_1h];
        if k.trim().is_empty() || all.iter().flatten().any(|x| !x.is_finite() || *x < 0.0 || *x > 1e6) {
            return Err(Error::Config {
                path: path.to_path_buf(),
                reason: format!(
                    "[prices.\"{}\"]: a family needs a name and prices that are numbers from 0 to 1,000,000 (USD per million tokens)",
                    crate::escape::escape_controls(k)
                ),
            });
        }
    }
    Ok(crate::impact::prices::Prices::with(m))
}

fn parse_levels(file: &Path, m: &HashMap<String, Level>, what: &str) -> Result<HashMap<RuleId, Option<Severity>>> {
    let mut out = HashMap::new();
    for (k, v) in m {
        let r = RuleId::from_name_or_code(k).ok_or_else(|| Error::Config {
            path: file.to_path_buf(),
            reason: format!(
                "unknown rule `{}` in {what}{}",
                crate::escape::escape_controls(k),
                crate::rule_id::suggest(k).map(|c| format!("; did you mean {c}?")).unwrap_or_default()
            ),
        })?;
        out.insert(r, v.as_option());
    }
    Ok(out)
}

/// The settings table of a configuration file: the whole file, or a
/// `pyproject.toml`'s `[tool.ctxlint]` table (empty when it has none).
fn read_table(path: &Path) -> Result<toml::Table> {
    let text = crate::safety::read_bounded(path, crate::safety::MAX_CONFIG_BYTES, "configuration file")?;
    let mut table: toml::Table = toml::from_str(&text).map_err(|e| Error::Config {
        path: path.to_path_buf(),
        reason: crate::text::mask_secrets(e.to_string().trim_end()),
    })?;
    if path.file_name().is_some_and(|n| n == PYPROJECT) {
        return Ok(match table.remove("tool") {
            Some(toml::Value::Table(mut tool)) => match tool.remove("ctxlint") {
                Some(toml::Value::Table(t)) => t,
                Some(_) => {
                    return Err(Error::Config {
                        path: path.to_path_buf(),
                        reason: "[tool.ctxlint] is not a table".into(),
                    });
                }
                None => toml::Table::new(),
            },
            _ => toml::Table::new(),
        });
    }
    Ok(table)
}

/// Whether a `pyproject.toml` has a `[tool.ctxlint]` table (one that cannot
/// be read or parsed has none: it is another tool's file).
fn has_tool_table(path: &Path) -> bool {
    crate::safety::read_bounded(path, crate::safety::MAX_CONFIG_BYTES, "configuration file")
        .ok()
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .is_some_and(|t| t.get("tool").and_then(|x| x.get("ctxlint")).is_some())
}

/// `over`'s keys written into `base`: tables merged key by key, any other
/// value replacing the one there.
pub fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Parses `--config KEY=VALUE` overrides (each a TOML document of one or
/// more `KEY = VALUE` pairs, dotted keys allowed: `rules.CTX101 = "off"`)
/// into one table, later ones winning.
pub fn parse_inline(pairs: &[String]) -> Result<toml::Table> {
    let mut out = toml::Table::new();
    for p in pairs {
        let t: toml::Table = toml::from_str(p).map_err(|e| {
            Error::Usage(format!(
                "--config `{p}`: neither a configuration file nor a TOML `KEY = VALUE` pair (as in ctxlint.toml, e.g. `fail-on = \"error\"` or `rules.CTX101 = \"off\"`): {}",
                e.message()
            ))
        })?;
        merge(&mut out, &t);
    }
    Ok(out)
}

impl Config {
    /// Finds the configuration in `start` or its ancestors: in each folder
    /// the first of [`CONFIG_FILES`] present (a `pyproject.toml` only with a
    /// `[tool.ctxlint]` table).
    pub fn discover(start: &Path) -> Option<PathBuf> {
        let mut dir = Some(start);
        while let Some(d) = dir {
            for name in CONFIG_FILES {
                let p = d.join(name);
                if p.is_file() && (name != PYPROJECT || has_tool_table(&p)) {
                    return Some(p);
                }
            }
            dir = d.parent();
        }
        None
    }

    /// Reads and validates a configuration file. Unknown keys, unknown rules,
    /// bad levels, bad globs and bad regexes are errors naming the key and file.
    pub fn load(path: &Path) -> Result<Config> {
        Config::load_with(Some(path), &toml::Table::new())
    }

    /// [`Config::load`] of `path` (none: the defaults) with `inline` settings
    /// over it (`--config KEY=VALUE`, ruff's inline overrides: a table replaces
    /// nothing but the keys it names). A `pyproject.toml` is read for its
    /// `[tool.ctxlint]` table.
    pub fn load_with(path: Option<&Path>, inline: &toml::Table) -> Result<Config> {
        let shown = path.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("--config"));
        let err = |e: toml::de::Error| Error::Config {
            path: shown.clone(),
            reason: crate::text::mask_secrets(e.to_string().trim_end()),
        };
        // A ctxlint.toml alone is read straight from its text, so that an error
        // quotes its line under a caret.
        if let Some(p) = path.filter(|p| inline.is_empty() && p.file_name().is_none_or(|n| n != PYPROJECT)) {
            let text = crate::safety::read_bounded(p, crate::safety::MAX_CONFIG_BYTES, "configuration file")?;
            return Config::from_file_config(p, toml::from_str(&text).map_err(err)?);
        }
        let mut table = match path {
            Some(p) => read_table(p)?,
            None => toml::Table::new(),
        };
        merge(&mut table, inline);
        // The message keeps its line breaks (it quotes the offending line under
        // a caret); key-like secrets in that line are masked.
        let fc: FileConfig = toml::Value::Table(table).try_into().map_err(err)?;
        let mut c = Config::from_file_config(&shown, fc)?;
        if path.is_none() {
            c.root = None;
            c.file = None;
        }
        Ok(c)
    }

    fn from_file_config(path: &Path, fc: FileConfig) -> Result<Config> {
        let mut base = Settings::default();
        if let Some(p) = &fc.event_patterns {
            base.event_patterns = p
                .iter()
                .map(|s| {
                    Regex::new(s)
                        .map_err(|e| Error::Config { path: path.to_path_buf(), reason: format!("event-patterns: {e}") })
                })
                .collect::<Result<Vec<_>>>()?
                .into();
        }
        if let Some(p) = &fc.context_block_allow {
            base.context_block_allow = p
                .iter()
                .map(|s| {
                    Regex::new(s).map_err(|e| Error::Config {
                        path: path.to_path_buf(),
                        reason: format!("context-block-allow: {e}"),
                    })
                })
                .collect::<Result<Vec<_>>>()?
                .into();
        }
        if let Some(n) = fc.context_block_min {
            base.context_block_min = n;
        }
        base.levels = parse_levels(path, &fc.rules, "[rules]")?;
        let mut overrides = Vec::new();
        for (i, o) in fc.overrides.iter().enumerate() {
            let mut b = globset::GlobSetBuilder::new();
            for g in &o.paths {
                let glob = globset::GlobBuilder::new(g).literal_separator(true).build().map_err(|e| Error::Config {
                    path: path.to_path_buf(),
                    reason: format!("overrides[{i}].paths: {e}"),
                })?;
                b.add(glob);
            }
            let set = b.build().map_err(|e| Error::Config {
                path: path.to_path_buf(),
                reason: format!("overrides[{i}].paths: {e}"),
            })?;
            overrides.push((set, parse_levels(path, &o.rules, &format!("overrides[{i}].rules"))?));
        }
        Ok(Config {
            base,
            overrides,
            root: path.parent().map(Path::to_path_buf),
            file: Some(path.to_path_buf()),
            fail_on: fc.fail_on.map(FailOn::severity),
            fence_owned: fc.fence.and_then(|f| f.owned),
            prices: prices(path, fc.prices)?,
            ..Default::default()
        })
    }

    /// Whether `--select` / `--ignore` let a rule run.
    pub fn enabled(&self, r: RuleId) -> bool {
        !self.ignore.contains(&r) && self.select.as_ref().is_none_or(|s| s.contains(&r))
    }

    /// The settings for one input path (as given on the command line).
    pub fn settings_for(&self, path: &str) -> Settings {
        let mut s = self.base.clone();
        if self.overrides.is_empty() {
            return s;
        }
        let given = Path::new(path);
        let abs = if given.is_absolute() {
            given.to_path_buf()
        } else {
            std::env::current_dir().map(|d| d.join(given)).unwrap_or_else(|_| given.to_path_buf())
        };
        let abs = normalize(&abs);
        let rel = self.root.as_ref().and_then(|r| abs.strip_prefix(normalize(r)).ok().map(Path::to_path_buf));
        for (set, levels) in &self.overrides {
            let hit = rel.as_ref().is_some_and(|r| set.is_match(r)) || set.is_match(given);
            if hit {
                s.levels.extend(levels.iter().map(|(k, v)| (*k, *v)));
            }
        }
        s
    }
}

/// Removes `.` and resolves `..` lexically.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// [`absolute`] against a working directory already known (`None`: ask).
fn absolute_in(cwd: Option<&Path>, p: &Path) -> PathBuf {
    match cwd {
        Some(d) if !p.is_absolute() => normalize(&d.join(p)),
        _ => absolute(p),
    }
}

/// Makes `p` absolute (joined to the working directory) and lexically normal.
pub fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf()))
    }
}

/// The enclosing git work tree of `dir` (the nearest ancestor holding `.git`).
pub fn git_work_tree(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// Where each input's configuration comes from (docs/spec.md §3).
#[derive(Debug, Clone)]
pub enum Source {
    /// `--isolated`: defaults only.
    Isolated,
    /// `--config PATH`: this configuration for every input.
    Fixed(std::sync::Arc<Config>),
    /// The nearest `ctxlint.toml` from each input's folder upward, else the
    /// working directory's (ruff's hierarchical discovery).
    Discover,
}

/// The configurations in force for a run: found per input folder, loaded once
/// each, with the command line's `--select`/`--ignore` applied to every one.
#[derive(Debug)]
pub struct ConfigSet {
    source: Source,
    /// `--select`: only these rules (None = all).
    pub select: Option<std::collections::HashSet<RuleId>>,
    /// `--ignore`: never these rules.
    pub ignore: std::collections::HashSet<RuleId>,
    /// `--extend-select`: these rules too (added to `--select`, and turned on
    /// where a configuration turns them off).
    pub extend_select: std::collections::HashSet<RuleId>,
    /// `--config KEY=VALUE` overrides, over every configuration read (and over
    /// the defaults where none is found).
    pub inline: toml::Table,
    /// The project root when no configuration is in force and no git work
    /// tree encloses an input: the folder of the baseline file being written
    /// or read (else the working directory).
    pub fallback_root: Option<PathBuf>,
    /// Loaded configurations by file (None: defaults).
    loaded: std::sync::Mutex<HashMap<Option<PathBuf>, std::sync::Arc<Config>>>,
    /// The configuration file found for a folder.
    found: std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// The git work tree enclosing a folder.
    git: std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// [`ConfigSet::folder_of`] by input path, and the working directory
    /// when the set was made: each input's folder is found once (checking
    /// 20,000 files asked the working directory and stat-ed each file twice
    /// for it).
    folders: std::sync::Mutex<HashMap<String, PathBuf>>,
    cwd: Option<PathBuf>,
}

impl ConfigSet {
    /// A set reading configurations from `source`.
    pub fn new(source: Source) -> Self {
        ConfigSet {
            source,
            select: None,
            ignore: Default::default(),
            extend_select: Default::default(),
            inline: Default::default(),
            fallback_root: None,
            loaded: Default::default(),
            found: Default::default(),
            git: Default::default(),
            folders: Default::default(),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// [`ConfigSet::folder_of`], found once per path, against the working
    /// directory the set was made in.
    pub fn folder(&self, path: &str) -> PathBuf {
        self.folder_known(path, false)
    }

    /// [`ConfigSet::folder`]; `file`: the caller knows `path` names a file
    /// (discovery stamped it as one), so it is not asked whether it is a
    /// directory (one `stat` per input).
    fn folder_known(&self, path: &str, file: bool) -> PathBuf {
        if let Some(f) = self.folders.lock().ok().and_then(|m| m.get(path).cloned()) {
            return f;
        }
        let f = if path == "-" {
            absolute_in(self.cwd.as_deref(), Path::new("."))
        } else {
            let abs = absolute_in(self.cwd.as_deref(), Path::new(path));
            if !file && abs.is_dir() { abs } else { abs.parent().map(Path::to_path_buf).unwrap_or(abs) }
        };
        if let Ok(mut m) = self.folders.lock() {
            m.insert(path.to_string(), f.clone());
        }
        f
    }

    /// One configuration for every input (library callers, tests).
    pub fn fixed(config: Config) -> Self {
        let mut s = ConfigSet::new(Source::Fixed(std::sync::Arc::new(config.clone())));
        s.select = config.select;
        s.ignore = config.ignore;
        s
    }

    /// The configuration file in force for inputs in folder `dir` (absolute):
    /// the nearest `ctxlint.toml` from `dir` upward, else the working directory's.
    pub fn file_for_dir(&self, dir: &Path) -> Option<PathBuf> {
        match &self.source {
            Source::Isolated => None,
            Source::Fixed(c) => c.file.clone(),
            Source::Discover => {
                if let Some(hit) = self.found.lock().ok().and_then(|m| m.get(dir).cloned()) {
                    return hit;
                }
                let hit =
                    Config::discover(dir).or_else(|| std::env::current_dir().ok().and_then(|d| Config::discover(&d)));
                if let Ok(mut m) = self.found.lock() {
                    m.insert(dir.to_path_buf(), hit.clone());
                }
                hit
            }
        }
    }

    /// The folder an input path (as given; a directory for a stream) lives in, absolute.
    pub fn folder_of(path: &str) -> PathBuf {
        if path == "-" {
            return absolute(Path::new("."));
        }
        let abs = absolute(Path::new(path));
        if abs.is_dir() { abs } else { abs.parent().map(Path::to_path_buf).unwrap_or(abs) }
    }

    /// The configuration in force for an input (path as given), with
    /// `--select`/`--ignore` applied. An invalid configuration file is an error.
    pub fn for_path(&self, path: &str) -> Result<std::sync::Arc<Config>> {
        self.for_input(path, false)
    }

    /// [`ConfigSet::for_path`]; `file`: the caller knows `path` names a
    /// file, not a directory (see [`ConfigSet::folder`]).
    pub fn for_input(&self, path: &str, file: bool) -> Result<std::sync::Arc<Config>> {
        let file = match &self.source {
            Source::Fixed(c) => c.file.clone(),
            Source::Isolated => None,
            Source::Discover => self.file_for_dir(&self.folder_known(path, file)),
        };
        if let Some(c) = self.loaded.lock().ok().and_then(|m| m.get(&file).cloned()) {
            return Ok(c);
        }
        let c = match (&self.source, &file) {
            (Source::Fixed(c), _) => self.with_cli(c),
            (_, Some(f)) => self.with_cli(&Config::load_with(Some(f), &self.inline)?),
            (_, None) if !self.inline.is_empty() => self.with_cli(&Config::load_with(None, &self.inline)?),
            (_, None) => self.with_cli(&Config::default()),
        };
        if let Ok(mut m) = self.loaded.lock() {
            m.insert(file, c.clone());
        }
        Ok(c)
    }

    fn with_cli(&self, c: &Config) -> std::sync::Arc<Config> {
        let mut c = c.clone();
        c.select = self.select.clone();
        if let Some(s) = c.select.as_mut() {
            s.extend(self.extend_select.iter().copied());
        }
        for r in &self.extend_select {
            if c.base.levels.get(r) == Some(&None) {
                c.base.levels.remove(r);
            }
        }
        c.ignore = self.ignore.clone();
        std::sync::Arc::new(c)
    }

    /// The project root fingerprint paths are relative to (docs/spec.md §4): the
    /// folder of the configuration in force, else the enclosing git work tree,
    /// else the folder of the baseline file, else the working directory.
    pub fn project_root(&self, config: &Config, path: &str) -> PathBuf {
        let cwd = self.cwd.as_deref();
        if let Some(r) = config.file.as_ref().and_then(|f| f.parent()) {
            return absolute_in(cwd, r);
        }
        let dir = self.folder(path);
        let git = match self.git.lock().ok().and_then(|m| m.get(&dir).cloned()) {
            Some(g) => g,
            None => {
                let g = git_work_tree(&dir);
                if let Ok(mut m) = self.git.lock() {
                    m.insert(dir, g.clone());
                }
                g
            }
        };
        if let Some(g) = git {
            return g;
        }
        match &self.fallback_root {
            Some(r) => absolute_in(cwd, r),
            None => absolute_in(cwd, Path::new(".")),
        }
    }
}

/// The path of `path` (as given) relative to `root`, with `/` separators;
/// the absolute path when it is outside `root`.
pub fn project_relative(path: &str, root: &Path) -> String {
    if path == "-" {
        return path.to_string();
    }
    let abs = absolute(Path::new(path));
    let rel = abs.strip_prefix(root).map(Path::to_path_buf).or_else(|_| {
        // Symlinked spellings ($PWD through a link): compare real paths.
        match (abs.canonicalize(), root.canonicalize()) {
            (Ok(a), Ok(r)) => a.strip_prefix(&r).map(Path::to_path_buf).map_err(|_| ()),
            _ => Err(()),
        }
    });
    let p = rel.unwrap_or(abs);
    p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}
