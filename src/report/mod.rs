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
