//! What `check` is asked and what it returns: [`CheckOptions`], and the
//! [`CheckReport`] every renderer reads (its findings, the summary of each
//! input, the inputs skipped or failed, the findings counted but not listed).
//! The engine (`lib.rs`) fills it; `report/` renders it.

use crate::inputs::{DiscoverOptions, Skipped};
use crate::model::{self, FormatId, Input};
use crate::{Error, Finding, Severity, Unlisted};
use std::collections::HashMap;

/// What `check` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Paths as given (`-` = stdin).
    pub paths: Vec<String>,
    /// Input discovery options.
    pub discover: DiscoverOptions,
}

/// One checked input in the summary (docs/spec.md §4 `files`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FileSummary {
    /// Display path.
    pub path: String,
    /// The session of a store that holds several (an OpenCode database: one
    /// summary per session, all with the store's path); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Format id.
    pub format: FormatId,
    /// Requests in the stream (0 for transcripts).
    pub requests: usize,
    /// Transcript entries (0 for streams).
    pub entries: usize,
    /// Exchanges of a stream that were skipped: not model calls, bodies that
    /// match no request format, and the [`FileSummary::unread`] ones.
    pub skipped_exchanges: usize,
    /// The provider's recorded usage summed over the input's calls, with the
    /// cache breaks no finding explains (`null` when it records none).
    pub usage: Option<crate::impact::InputUsage>,
    /// What the input's findings cost (`null` when none has an impact).
    pub impact: Option<crate::impact::InputImpact>,
    /// Exchanges with a model endpoint whose request body could not be read
    /// (warned about on stderr).
    #[serde(skip)]
    pub unread: Vec<model::Unread>,
    /// Bytes of the input as stored (compressed size for compressed files).
    #[serde(skip)]
    pub bytes: u64,
    /// Time to read and load the input (`--verbose`).
    #[serde(skip)]
    pub load_time: std::time::Duration,
    /// Time the rules took on it (`--verbose`).
    #[serde(skip)]
    pub rules_time: std::time::Duration,
    /// Findings on it, listed ones (`--verbose`): a stream joined from the
    /// files of a folder has its findings at its member files' paths.
    #[serde(skip)]
    pub findings: usize,
}

impl FileSummary {
    /// The summary of a loaded input.
    pub fn of(input: &Input) -> Self {
        FileSummary {
            path: input.path.clone(),
            session: None,
            format: input.format,
            requests: input.request_count(),
            entries: input.entry_count(),
            skipped_exchanges: input.skipped,
            unread: input.unread.clone(),
            ..FileSummary::default()
        }
    }

    /// One warning per unread exchange: `path:line: pointer: what; not checked` (no
    /// pointer when it has none, and no second "not checked" when `what` says it).
    pub fn warnings(&self) -> Vec<String> {
        self.unread
            .iter()
            .map(|u| {
                let at = u.line.map(|l| format!(":{l}")).unwrap_or_default();
                let pointer = if u.pointer.is_empty() { String::new() } else { format!(" {}:", u.pointer) };
                let tail = if u.what.ends_with("not checked") { "" } else { "; not checked" };
                format!("{}{at}:{pointer} {}{tail}", self.path, u.what)
            })
            .collect()
    }

    /// A note for a stream in which no exchange is a model call (a HAR of
    /// a web app's own traffic, a proxy log of other requests): it was read,
    /// and nothing in it was checked. `None` otherwise.
    pub fn note(&self) -> Option<String> {
        (self.requests == 0 && self.entries == 0 && self.skipped_exchanges > 0 && self.unread.is_empty()).then(|| {
            let n = self.skipped_exchanges;
            let what = if n == 1 { "its 1 exchange".to_string() } else { format!("all {n} exchanges") };
            format!(
                "{}: no request ctxlint reads in it ({what} skipped: not model calls, or bodies of a shape it does not read); nothing was checked",
                self.path
            )
        })
    }
}

/// An input that could not be checked, and why (JSON `failed`).
#[derive(Debug)]
pub struct Failed {
    /// The input's display path (for an error of a path given on the
    /// command line, that path).
    pub path: String,
    /// Why it could not be checked (an invalid configuration in force for
    /// it names the configuration file).
    pub error: Error,
}

impl Failed {
    /// A failure of the input `path`.
    pub fn new(path: impl Into<String>, error: Error) -> Self {
        Failed { path: path.into(), error }
    }

    /// A failure found before any input was read (a path that could not be
    /// walked), named by the error's own path.
    pub fn from_error(error: Error) -> Self {
        let path = error.path().map(|p| p.display().to_string()).unwrap_or_default();
        Failed { path, error }
    }

    /// The error, masked for output (secrets masked, as every message is).
    pub fn message(&self) -> String {
        crate::text::mask_secrets(&self.error.to_string())
    }
}

/// The result of `check`.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Findings, sorted by path, line, pointer and code.
    pub findings: Vec<Finding>,
    /// Checked inputs.
    pub files: Vec<FileSummary>,
    /// Files skipped as matching no format (walked or named), and walk errors.
    pub skipped: Vec<Skipped>,
    /// Files named on the command line that match no format (each one warned about).
    pub unrecognised: Vec<Error>,
    /// Inputs that could not be checked (I/O, format or configuration
    /// errors), in input order; the rest were (docs/spec.md §4 `failed`).
    pub errors: Vec<Failed>,
    /// The failing severity (`fail-on`) of each finding's path, where its
    /// configuration sets one (default: warning).
    pub fail_on: HashMap<String, Severity>,
    /// Findings counted but not listed: past [`crate::rules::MAX_LISTED`] of one
    /// rule on one input, per input and rule, in input order.
    pub unlisted: Vec<Unlisted>,
}

impl CheckReport {
    /// Whether a finding is at or above the failing severity of its configuration.
    pub fn failing(&self) -> bool {
        let fails = |path: &str, s: Severity| s >= self.fail_on.get(path).copied().unwrap_or(Severity::Warning);
        self.findings.iter().any(|f| fails(&f.path, f.severity))
            || self.unlisted.iter().any(|u| fails(&u.path, u.severity))
    }

    /// Findings counted but not listed, in all.
    pub fn unlisted_count(&self) -> usize {
        self.unlisted.iter().map(|u| u.count).sum()
    }
}
