//! Effective settings: rule levels, patterns and thresholds. `ctxlint.toml`
//! loading (with `[rules]`, `[[overrides]]`) fills these; defaults follow SPEC §2.

use crate::finding::Severity;
use crate::rules::RuleId;
use regex::Regex;
use std::collections::HashMap;

/// Default system-event label pattern (SPEC CTX101).
pub const DEFAULT_EVENT_PATTERN: &str = r"^System(?: \(untrusted\))?: \[[^\]]+\] .+$";
/// Default minimum length of a paragraph counted as a context block (SPEC CTX102).
pub const DEFAULT_CONTEXT_BLOCK_MIN: usize = 64;
/// Minimum length of an event text matched on its own (SPEC CTX101).
pub const EVENT_TEXT_MIN: usize = 16;

/// Settings that rules read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// System-event label line patterns (any match is a label).
    pub event_patterns: Vec<Regex>,
    /// Minimum characters for a paragraph to count as a context block.
    pub context_block_min: usize,
    /// Per-rule level: `None` = off, `Some(severity)`.
    pub levels: HashMap<RuleId, Option<Severity>>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            event_patterns: vec![Regex::new(DEFAULT_EVENT_PATTERN).expect("default pattern")],
            context_block_min: DEFAULT_CONTEXT_BLOCK_MIN,
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
        self.event_patterns.iter().any(|p| p.is_match(line))
    }
}
