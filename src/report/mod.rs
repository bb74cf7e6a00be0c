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
pub mod json;
pub mod json_lines;
pub mod junit;
pub mod sarif;
pub mod settings;
pub mod show;
pub mod statistics;

/// Maximum characters of an excerpt in any output.
pub const EXCERPT_CHARS: usize = 160;

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
    m(&mut f.message);
    m(&mut f.path);
    if let Some(e) = &mut f.entry_id {
        m(e);
    }
    for r in &mut f.related {
        m(&mut r.path);
        m(&mut r.message);
    }
    if let Some(h) = &mut f.help {
        m(h);
    }
    if let Some(d) = &mut f.diff {
        m(d);
    }
}
