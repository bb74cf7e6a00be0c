//! The `not-append-only` findings of the `truncate`, `replaced` and
//! `rewrite` verdicts: for a divergence, the column of the first differing
//! byte, an excerpt around it and a bounded diff of the lines from there.

use super::format::{Format, header_ids};
use super::read_at;
use crate::finding::Finding;
use crate::model::FormatId;
use crate::rule_id::RuleId;
use std::fs::File;
use std::io;

/// Bytes of each file read from the first differing line to build the diff.
const DIFF_WINDOW: usize = 64 * 1024;
/// Lines of each file shown at most in a rewrite diff.
const DIFF_LINES: usize = 12;
/// Characters of a diff line shown at most.
const DIFF_WIDTH: usize = 160;

/// A truncation: NEW, `removed` bytes shorter than OLD, ends at `line`.
pub(super) fn truncate_finding(new: &str, old: Option<&str>, format: FormatId, line: u32, removed: u64) -> Finding {
    let mut f = Finding::new(
        RuleId::NotAppendOnly,
        new,
        format,
        format!(
            "NEW is a proper byte prefix of OLD: its last {removed} byte{} are gone (NEW ends at line {line})",
            if removed == 1 { "" } else { "s" }
        ),
    )
    .line(line)
    .key("truncate")
    .help("the file was truncated, or an older copy was written back over it; the entries after this line were lost");
    if let Some(o) = old {
        f = f.related(o, Some(line), "", "OLD continues after this line");
    }
    f
}

/// Where OLD and NEW part ways (two-file form).
#[derive(Debug, Clone, Copy)]
pub(super) struct Divergence {
    /// First differing byte.
    pub(super) byte_offset: u64,
    /// Its 1-based line.
    pub(super) line: u32,
    /// Offset of that line's first byte.
    pub(super) line_start: u64,
    /// Line 1 of a pi session: the header was replaced.
    pub(super) replaced: bool,
}

/// The `not-append-only` finding of a `rewrite` or `replaced` verdict, with
/// the column, an excerpt around the first differing byte and a bounded diff.
pub(super) fn rewrite_finding(
    old: &mut File,
    new_f: &mut File,
    old_head: &[u8],
    old_name: &str,
    new: &str,
    fmt: &Format,
    at: Divergence,
) -> Finding {
    let format = fmt.id.unwrap_or(crate::model::FormatId::UNKNOWN);
    let Divergence { byte_offset: d, line, line_start, replaced } = at;
    let max_lines = if replaced { 1 } else { DIFF_LINES };
    let (diff, column, excerpt) =
        rewrite_diff(old, new_f, line_start, d, line, old_name, new, max_lines).unwrap_or_default();
    let message = if replaced {
        match header_ids(fmt, old_head, new_f) {
            (Some(a), Some(b)) if a != b => {
                format!("the session header (line 1) was replaced: session id `{a}` became `{b}`")
            }
            _ => "the session header (line 1) was replaced".to_string(),
        }
    } else {
        format!(
            "NEW does not start with OLD: the first differing byte is at offset {d} (line {line}, column {column}); the file was rewritten, not appended"
        )
    };
    let mut f = Finding::new(RuleId::NotAppendOnly, new, format, message)
        .line(line)
        .excerpt(excerpt)
        .related(old_name, Some(line), "", if replaced { "OLD's header" } else { "OLD differs from here" })
        .help(if replaced {
            "another writer started the file afresh; the runner is no longer writing the session it locked"
        } else {
            "another writer rewrote the file in place (compaction, repair, an older copy written back); reload it instead of appending"
        });
    f.byte_offset = Some(d);
    f.column = Some(column.max(1));
    if !diff.is_empty() {
        f = f.diff(diff);
    }
    f
}

/// Complete lines of a window (the last partial one too when nothing else is there).
fn window_lines(b: &[u8], at_eof: bool) -> Vec<String> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    if v.len() > 1 && (!at_eof || v.last().is_some_and(|l| l.is_empty())) {
        v.pop();
    }
    v.into_iter().take(DIFF_LINES).map(|l| String::from_utf8_lossy(l).into_owned()).collect()
}

fn clip(s: &str, from: usize) -> String {
    let mut out = String::new();
    if from > 0 && s.chars().count() > from {
        out.push('…');
    }
    let mut it = s.chars().skip(from);
    out.extend(it.by_ref().take(DIFF_WIDTH));
    if it.next().is_some() {
        out.push('…');
    }
    out
}

/// A bounded unified diff of the lines from the first differing one, the
/// 1-based column of the first differing byte, and NEW's changed line clipped
/// around it (the excerpt).
#[allow(clippy::too_many_arguments)]
fn rewrite_diff(
    old: &mut File,
    new: &mut File,
    line_start: u64,
    d: u64,
    line: u32,
    old_name: &str,
    new_name: &str,
    max_lines: usize,
) -> io::Result<(String, u32, String)> {
    let ob = read_at(old, line_start, DIFF_WINDOW)?;
    let nb = read_at(new, line_start, DIFF_WINDOW)?;
    let within = usize::try_from(d - line_start).unwrap_or(0);
    let column = if within <= nb.len() {
        String::from_utf8_lossy(&nb[..within]).chars().count() as u32 + 1
    } else {
        // Past the window: count the characters up to the difference in
        // chunks (UTF-8 lead bytes; an invalid byte counts as one).
        let mut chars = 0u64;
        let mut at = line_start;
        while at < d {
            let n = usize::try_from(d - at).unwrap_or(usize::MAX).min(1 << 20);
            let chunk = read_at(new, at, n)?;
            if chunk.is_empty() {
                break;
            }
            chars += chunk.iter().filter(|b| (**b & 0xC0) != 0x80).count() as u64;
            at += chunk.len() as u64;
        }
        u32::try_from(chars + 1).unwrap_or(u32::MAX)
    };
    let mut ol = window_lines(&ob, ob.len() < DIFF_WINDOW);
    let mut nl = window_lines(&nb, nb.len() < DIFF_WINDOW);
    ol.truncate(max_lines);
    nl.truncate(max_lines);
    // Secrets are masked before lines are clipped: a clip could cut a key
    // in two and leave a part no mask recognises. The window is shifted by
    // what the masks removed from the first changed line.
    let raw_first = nl.first().map_or(0, |l| l.chars().count());
    for l in ol.iter_mut().chain(nl.iter_mut()) {
        if let std::borrow::Cow::Owned(m) = crate::text::mask_cow(l) {
            *l = m;
        }
    }
    let removed = raw_first.saturating_sub(nl.first().map_or(0, |l| l.chars().count()));
    let from = (column as usize - 1).saturating_sub(60).saturating_sub(removed);
    let excerpt = nl.first().map(|l| clip(l, from)).unwrap_or_default();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &ol, &nl);
    let mut out = format!("--- {}\n+++ {}\n", crate::text::mask_cow(old_name), crate::text::mask_cow(new_name));
    for group in similar::group_diff_ops(ops, 2) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (os, oe) = (first.old_range().start, last.old_range().end);
        let (ns, ne) = (first.new_range().start, last.new_range().end);
        out.push_str(&format!("@@ -{},{} +{},{} @@\n", os + line as usize, oe - os, ns + line as usize, ne - ns));
        for op in &group {
            let (tag, o, n) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                o.for_each(|i| out.push_str(&format!(" {}\n", clip(&ol[i], from))));
            } else {
                o.for_each(|i| out.push_str(&format!("-{}\n", clip(&ol[i], from))));
                n.for_each(|i| out.push_str(&format!("+{}\n", clip(&nl[i], from))));
            }
        }
    }
    Ok((out, column, excerpt))
}
