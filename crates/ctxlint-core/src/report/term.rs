//! The width human output is fitted to, as ruff and ripgrep fit theirs:
//! tables (`formats`, `rule`, `show`, `--statistics`) wrap their widest
//! columns to it instead of running off the right edge, where a terminal
//! wraps them into junk (issue 33: `formats` was 390 columns wide).

use std::io::IsTerminal;

/// The width to fit to, in columns: `COLUMNS` when it is a positive number
/// (shells export it; tests set it), else the terminal's width when standard
/// output is a terminal, else `None`: a pipe or a file gets whole lines.
pub fn width() -> Option<u16> {
    static WIDTH: std::sync::OnceLock<Option<u16>> = std::sync::OnceLock::new();
    *WIDTH.get_or_init(find_width)
}

fn find_width() -> Option<u16> {
    if let Some(n) = std::env::var("COLUMNS").ok().and_then(|v| v.trim().parse::<u16>().ok()).filter(|n| *n > 0) {
        return Some(n);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0).filter(|w| *w > 0)
}

/// Makes `t` fit [`width`]: its columns wrap (words first, then inside long
/// words) when the table would be wider; unchanged when no width is known.
/// The columns in `whole` (ids, codes, names, numbers) are never wrapped: the
/// others give way.
pub fn fit(t: &mut comfy_table::Table, whole: &[usize]) {
    let Some(w) = width() else { return };
    t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    t.set_width(w);
    let widths = t.column_max_content_widths();
    for &i in whole {
        if let (Some(c), Some(&n)) = (t.column_mut(i), widths.get(i)) {
            // The boundary counts the column's padding (one space each side).
            c.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(comfy_table::Width::Fixed(
                n.saturating_add(2),
            )));
        }
    }
}

/// `text` with each line longer than [`width`] broken at spaces (a word
/// longer than the width stays whole on its own line); unchanged when no
/// width is known. Continuation lines are indented by `indent` spaces.
pub fn wrap(text: &str, indent: usize) -> String {
    match width() {
        Some(w) => wrap_to(text, usize::from(w), indent),
        None => text.to_string(),
    }
}

/// [`wrap`] to a given width.
pub fn wrap_to(text: &str, width: usize, indent: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let (mut col, mut at_start) = (0, true);
        for word in line.split(' ') {
            let w = unicode_width::UnicodeWidthStr::width(word);
            if !at_start {
                if col + 1 + w > width {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent));
                    col = indent;
                } else {
                    out.push(' ');
                    col += 1;
                }
            }
            out.push_str(word);
            col += w;
            at_start = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap_to;

    #[test]
    fn wraps_at_spaces_and_keeps_long_words_whole() {
        assert_eq!(wrap_to("aaa bbb ccc", 7, 0), "aaa bbb\nccc");
        assert_eq!(wrap_to("aaa bbb ccc", 7, 2), "aaa bbb\n  ccc");
        assert_eq!(wrap_to("short", 80, 0), "short");
        assert_eq!(wrap_to("a verylongword b", 5, 0), "a\nverylongword\nb");
        assert_eq!(wrap_to("one\ntwo three", 5, 0), "one\ntwo\nthree");
    }
}
