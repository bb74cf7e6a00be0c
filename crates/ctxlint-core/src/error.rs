//! The one error type of the library, and the exit codes it maps to.
//!
//! Follows the pattern of cargo-nextest's `errors.rs` / `exit_codes.rs`: every
//! variant knows its exit code; only `main.rs` (the binary) calls `std::process::exit`.

use std::path::PathBuf;

/// Exit codes documented in docs/spec.md §4.
pub mod exit_code {
    /// No finding at or above the failing severity.
    pub const OK: i32 = 0;
    /// Findings at or above the failing severity.
    pub const FINDINGS: i32 = 1;
    /// Usage, configuration or I/O error.
    pub const USAGE: i32 = 2;
    /// Internal error (a bug in ctxlint).
    pub const INTERNAL: i32 = 101;
}

/// Errors that stop ctxlint from checking an input at all.
///
/// Defects *inside* an input (a torn JSONL line, a dangling parent) are never
/// errors: they are [`crate::Finding`]s, and the rest of the input is still checked.
///
/// Paths are shown with their control characters escaped (a newline in a
/// file name cannot start a line of a CI log of its own).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A path could not be opened or read.
    #[error("{}: {source}", shown(path))]
    Io {
        /// The path as given.
        path: PathBuf,
        /// The operating-system error.
        #[source]
        source: std::io::Error,
    },
    /// A file named on the command line matches no input format.
    #[error("{}: not a recognised input format ({tried}){hint}", shown(path))]
    UnknownFormat {
        /// The path as given.
        path: PathBuf,
        /// What was tried: `tried: ID, ID` for a short list, else a count
        /// and where to read the list (`ctxlint formats`), so that a warning
        /// per file does not repeat 22 format ids.
        tried: String,
        /// Extra explanation (starts with "; " when non-empty).
        hint: String,
    },
    /// A file was forced to a format (`--input-format`) but does not parse as it.
    #[error("{}: cannot be read as {format}: {reason}", shown(path))]
    BadInput {
        /// The path as given.
        path: PathBuf,
        /// The format id that was forced or detected.
        format: String,
        /// What was wrong, with a line number where there is one.
        reason: String,
    },
    /// A file forced to a format (`--input-format`) that it does not fit:
    /// none of its records has the fields that format requires (docs/spec.md §1).
    #[error("{}: --input-format {format}: {missing}; the file does not fit that format", shown(path))]
    DoesNotFit {
        /// The path as given.
        path: PathBuf,
        /// The forced format id.
        format: String,
        /// What the file lacks (names the fields).
        missing: String,
    },
    /// Bad command-line usage that clap could not catch.
    #[error("{0}")]
    Usage(String),
    /// A configuration file is invalid.
    #[error("{}: {reason}", shown(path))]
    Config {
        /// The configuration file.
        path: PathBuf,
        /// What was wrong (names the key).
        reason: String,
    },
    /// An invariant of ctxlint itself was broken.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The process exit code for this error (docs/spec.md §4).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Internal(_) => exit_code::INTERNAL,
            _ => exit_code::USAGE,
        }
    }

    /// The path the error is about, when it names one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Error::Io { path, .. }
            | Error::UnknownFormat { path, .. }
            | Error::BadInput { path, .. }
            | Error::DoesNotFit { path, .. }
            | Error::Config { path, .. } => Some(path),
            Error::Usage(_) | Error::Internal(_) => None,
        }
    }

    /// Shorthand for an I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A path as a message shows it: control characters escaped.
fn shown(p: &std::path::Path) -> String {
    crate::escape::shown(p)
}
