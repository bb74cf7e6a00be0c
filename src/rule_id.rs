//! The rule ids: a leaf module (no imports of rules, analysis or model), so
//! findings, configuration and reports can name rules without depending on
//! the rules' code. Each rule's file holds its `META` (documentation); the
//! test in `rules/mod.rs` checks that this table and every `META` agree.

/// How serious a finding is. Ordered: `Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Reported; fails the run only when the failing severity is `warning` (the default).
    Warning,
    /// Reported; always fails the run (unless `--exit-zero`).
    Error,
}

impl Severity {
    /// `"warning"` or `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Every rule, as a closed enum (stable order = code order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleId {
    /// CTX101
    DuplicateSystemEvent,
    /// CTX102
    DuplicateContextBlock,
    /// CTX103
    DuplicateSystemPrompt,
    /// CTX201
    DroppedSystemPrompt,
    /// CTX202
    HistoryRewrite,
    /// CTX203
    DuplicateUserTurn,
    /// CTX204
    DuplicateReply,
    /// CTX301
    UnansweredToolCall,
    /// CTX302
    OrphanToolResult,
    /// CTX401
    NotAppendOnly,
    /// CTX402
    ForeignAppend,
    /// CTX403
    MalformedLine,
    /// CTX404
    BrokenParentChain,
}

impl RuleId {
    /// All rules in code order.
    pub const ALL: [RuleId; 13] = [
        RuleId::DuplicateSystemEvent,
        RuleId::DuplicateContextBlock,
        RuleId::DuplicateSystemPrompt,
        RuleId::DroppedSystemPrompt,
        RuleId::HistoryRewrite,
        RuleId::DuplicateUserTurn,
        RuleId::DuplicateReply,
        RuleId::UnansweredToolCall,
        RuleId::OrphanToolResult,
        RuleId::NotAppendOnly,
        RuleId::ForeignAppend,
        RuleId::MalformedLine,
        RuleId::BrokenParentChain,
    ];

    /// Stable code, name and default severity (SPEC §2), in one table.
    const fn row(self) -> (&'static str, &'static str, Severity) {
        use Severity::*;
        match self {
            RuleId::DuplicateSystemEvent => ("CTX101", "duplicate-system-event", Error),
            RuleId::DuplicateContextBlock => ("CTX102", "duplicate-context-block", Warning),
            RuleId::DuplicateSystemPrompt => ("CTX103", "duplicate-system-prompt", Error),
            RuleId::DroppedSystemPrompt => ("CTX201", "dropped-system-prompt", Error),
            RuleId::HistoryRewrite => ("CTX202", "history-rewrite", Warning),
            RuleId::DuplicateUserTurn => ("CTX203", "duplicate-user-turn", Error),
            RuleId::DuplicateReply => ("CTX204", "duplicate-reply", Error),
            RuleId::UnansweredToolCall => ("CTX301", "unanswered-tool-call", Error),
            RuleId::OrphanToolResult => ("CTX302", "orphan-tool-result", Error),
            RuleId::NotAppendOnly => ("CTX401", "not-append-only", Error),
            RuleId::ForeignAppend => ("CTX402", "foreign-append", Error),
            RuleId::MalformedLine => ("CTX403", "malformed-line", Error),
            RuleId::BrokenParentChain => ("CTX404", "broken-parent-chain", Error),
        }
    }
    /// Stable name, e.g. `duplicate-system-event`.
    pub fn name(self) -> &'static str {
        self.row().1
    }
    /// Stable code, e.g. `CTX101`.
    pub fn code(self) -> &'static str {
        self.row().0
    }
    /// Default severity.
    pub fn default_severity(self) -> Severity {
        self.row().2
    }
    /// Looks a rule up by name or code (case-insensitive).
    pub fn from_name_or_code(s: &str) -> Option<RuleId> {
        RuleId::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(s) || r.code().eq_ignore_ascii_case(s))
    }
}
