//! Renderers: one file per output format. A renderer only formats what a
//! finding already says; excerpts are masked and truncated here, in every format.

pub mod color;
pub mod concise;
pub mod diff;
pub mod fence;
pub mod full;
pub mod github;
pub mod gitlab;
pub mod grouped;
pub mod html;
pub mod impact;
pub mod json;
pub mod json_lines;
pub mod junit;
pub mod sarif;
pub mod settings;
pub mod show;
pub mod statistics;
pub mod term;

/// A renderer's output: any byte sink (standard output, a report file, a
/// buffer). Renderers write finding by finding, so a report of many findings
/// is never held whole in memory.
pub type Out<'a> = &'a mut dyn std::io::Write;

/// Runs a renderer into a `String` (tests and small reports). Renderers
/// write UTF-8 only; an I/O error cannot happen on a `Vec`.
pub fn to_string(write: impl FnOnce(Out<'_>) -> std::io::Result<()>) -> String {
    let mut buf = Vec::new();
    let _ = write(&mut buf);
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Findings rendered per parallel batch by the renderers that format them on
/// the rayon pool (`json`, `sarif`): bounds the rendered text held at once.
pub const BATCH: usize = 1024;

/// What every output says of findings counted but not listed:
/// `"90000 more CTX403 malformed-line findings are not listed (at most 10000 of one rule are listed per input)"`.
/// Past the run's cap: `"… not listed (at most 50000 findings are listed per run)"`.
pub fn unlisted_message(u: &crate::Unlisted) -> String {
    let why = if u.per_run {
        format!("at most {} findings are listed per run", crate::rules::MAX_LISTED_PER_RUN)
    } else {
        format!("at most {} of one rule are listed per input", crate::rules::MAX_LISTED)
    };
    format!(
        "{} more {} {} finding{} not listed ({why})",
        u.count,
        u.code,
        u.rule.name(),
        if u.count == 1 { " is" } else { "s are" },
    )
}

pub use crate::text::EXCERPT_CHARS;

/// The masked, truncated excerpt of a finding, if any.
pub fn excerpt(f: &crate::Finding) -> Option<String> {
    f.excerpt.as_deref().map(|e| crate::text::excerpt(e, EXCERPT_CHARS))
}

/// Masks what a finding quotes besides its excerpt (which every renderer
/// masks as it truncates it): the message (ids, tool names), the entry id,
/// the path, related locations, the help line and the diff. Called once on
/// a report before it is rendered, so that every format gets the same text.
pub fn mask_finding(f: &mut crate::Finding) {
    fn m(s: &mut String) {
        if let std::borrow::Cow::Owned(x) = crate::text::mask_cow(s) {
            *s = x;
        }
    }
    fn p(s: &mut String) {
        if let std::borrow::Cow::Owned(x) = crate::text::mask_path(s) {
            *s = x;
        }
    }
    m(&mut f.message);
    p(&mut f.path);
    if let Some(e) = &mut f.entry_id {
        m(e);
    }
    for r in &mut f.related {
        p(&mut r.path);
        m(&mut r.message);
    }
    if let Some(h) = &mut f.help {
        if let std::borrow::Cow::Owned(x) = crate::text::mask_cow(h) {
            *h = x.into();
        }
    }
    if let Some(d) = &mut f.diff {
        m(d);
    }
}
