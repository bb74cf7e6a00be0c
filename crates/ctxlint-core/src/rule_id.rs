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

    /// Stable code, name and default severity (docs/spec.md §2), in one table.
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

/// Resolves one `--select`/`--ignore` selector: a rule name or code, a code
/// prefix (`CTX1` is CTX101–CTX103, `CTX` every rule) or `ALL`, all
/// case-insensitive. An unknown selector is an error that suggests the
/// nearest name or code ("did you mean `…`?").
pub fn resolve_selector(s: &str) -> Result<Vec<RuleId>, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("ALL") {
        return Ok(RuleId::ALL.to_vec());
    }
    if let Some(r) = RuleId::from_name_or_code(s) {
        return Ok(vec![r]);
    }
    let upper = s.to_ascii_uppercase();
    let by_prefix: Vec<RuleId> = if upper.len() >= 3 && upper.starts_with("CTX") {
        RuleId::ALL.into_iter().filter(|r| r.code().starts_with(&upper)).collect()
    } else {
        Vec::new()
    };
    if !by_prefix.is_empty() {
        return Ok(by_prefix);
    }
    let hint = suggest(s).map(|c| format!("; did you mean {c}?")).unwrap_or_default();
    Err(format!(
        "unknown rule `{}`{hint} (`ctxlint rule` lists them; a code prefix such as `CTX1` or `ALL` selects several)",
        crate::escape::escape_controls(s)
    ))
}

/// What `s` may have meant, quoted for a message ("did you mean …?"): the
/// rules a code prefix names (`CTX2`: `` one of `CTX201` (…), … ``); else the
/// rule name or code nearest to it by edit distance when it is near enough to
/// be a likely typo (at most a third of its length, or 2): `` `name` ``;
/// else the rules whose names start with it or hold it as a word
/// (`duplicate`: seven of them), as ruff suggests: `` one of `a`, `b` ``.
pub fn suggest(s: &str) -> Option<String> {
    let lower = s.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return None;
    }
    // A code prefix (`CTX2`): the rules it names, as `--select` takes it.
    if lower.starts_with("ctx") && lower.len() >= 4 {
        let codes: Vec<String> = RuleId::ALL
            .into_iter()
            .filter(|r| r.code().to_ascii_lowercase().starts_with(&lower))
            .map(|r| format!("`{}` ({})", r.code(), r.name()))
            .collect();
        match codes.len() {
            0 => {}
            1 => return Some(codes[0].clone()),
            _ => return Some(format!("one of {}", codes.join(", "))),
        }
    }
    let (d, c) = RuleId::ALL
        .into_iter()
        .flat_map(|r| [r.name(), r.code()])
        .map(|c| (edit_distance(&lower, &c.to_ascii_lowercase()), c))
        .min_by_key(|(d, _)| *d)?;
    if d <= (lower.chars().count() / 3).max(2) {
        return Some(format!("`{c}`"));
    }
    let word = |name: &str| name.split('-').any(|w| w == lower);
    let hits: Vec<String> = RuleId::ALL
        .into_iter()
        .filter(|r| r.name().starts_with(&lower) || (lower.len() >= 3 && word(r.name())))
        .map(|r| format!("`{}` ({})", r.name(), r.code()))
        .collect();
    match hits.len() {
        0 => None,
        1 => Some(hits[0].clone()),
        _ => Some(format!("one of {}", hits.join(", "))),
    }
}

/// The Levenshtein distance between two strings, in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        assert_eq!(resolve_selector("ALL").unwrap().len(), 13);
        assert_eq!(resolve_selector("all").unwrap().len(), 13);
        assert_eq!(
            resolve_selector("CTX1").unwrap(),
            vec![RuleId::DuplicateSystemEvent, RuleId::DuplicateContextBlock, RuleId::DuplicateSystemPrompt]
        );
        assert_eq!(resolve_selector("ctx40").unwrap().len(), 4);
        assert_eq!(resolve_selector("CTX").unwrap().len(), 13);
        assert_eq!(resolve_selector("CTX203").unwrap(), vec![RuleId::DuplicateUserTurn]);
        assert_eq!(resolve_selector("history-rewrite").unwrap(), vec![RuleId::HistoryRewrite]);
        let e = resolve_selector("duplicate-sytem-event").unwrap_err();
        assert!(e.contains("did you mean `duplicate-system-event`?"), "{e}");
        let e = resolve_selector("CTX109").unwrap_err();
        assert!(e.contains("did you mean `CTX10"), "{e}");
        assert!(!resolve_selector("zzzzzzzzzzzzzzzzzzzz").unwrap_err().contains("did you mean"));
        // A word several rules start with: all of them (issue 33: `ctxlint rule duplicate`).
        let dup: Vec<String> = RuleId::ALL
            .into_iter()
            .filter(|r| r.name().starts_with("duplicate"))
            .map(|r| format!("`{}` ({})", r.name(), r.code()))
            .collect();
        assert!(dup.len() >= 5, "{dup:?}");
        assert_eq!(suggest("duplicate"), Some(format!("one of {}", dup.join(", "))));
        let e = resolve_selector("duplicate").unwrap_err();
        assert!(e.contains("; did you mean one of `duplicate-system-event` (CTX101), "), "{e}");
        assert_eq!(suggest("orphan"), Some("`orphan-tool-result` (CTX302)".to_string()));
        // A code prefix names its rules (issue 33: `ctxlint rule CTX2` suggested CTX102).
        let two = suggest("ctx2").unwrap();
        assert!(two.starts_with("one of `CTX201` (dropped-system-prompt), `CTX202` (history-rewrite)"), "{two}");
        assert!(!two.contains("CTX102"), "{two}");
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
