//! Renderers of `ctxlint diff` ([`crate::diff::RequestDiff`]): `full` (the
//! verdict, then the elements in cache order with their text diffs, runs of
//! unchanged elements collapsed) and `json`. Texts arrive masked.

use crate::diff::{Change, Op, RequestDiff, RequestRef, TextChange, Verdict};
use owo_colors::OwoColorize;
use serde_json::{Value, json};
use similar::ChangeTag;
use std::fmt::Write;

/// Lines of an added or removed element's text shown by `full`.
pub const ELEMENT_LINES: usize = 12;
/// Lines of a changed element's diff shown by `full`.
pub const DIFF_LINES: usize = 80;

fn side_name(r: &RequestRef) -> String {
    let ptr = if r.pointer.is_empty() { String::new() } else { format!(" {}", r.pointer) };
    format!("{} (request {}, {}){ptr}", crate::escape::escape_controls(&r.path), r.index, r.format)
}

/// Renders the human report.
pub fn full(d: &RequestDiff, color: bool) -> String {
    let mut out = String::new();
    let head = d.headline();
    let head = if !color {
        head
    } else {
        match d.verdict {
            Verdict::Rewrite => head.red().bold().to_string(),
            Verdict::NewConversation | Verdict::Compaction => head.yellow().bold().to_string(),
            _ => head.green().bold().to_string(),
        }
    };
    let _ = writeln!(out, "{head}");
    let _ = writeln!(out, "  A: {}", side_name(&d.a));
    let _ = writeln!(out, "  B: {}", side_name(&d.b));
    if let Some(r) = &d.rewrite {
        let _ = writeln!(out, "  first divergence: {}", r.what);
        if let Some(p) = &r.prev_pointer {
            let _ = writeln!(
                out,
                "    A sent {p} where B sends {}",
                if r.pointer.is_empty() { "\"\"" } else { r.pointer.as_str() }
            );
        }
    }
    if d.chained {
        let _ =
            writeln!(out, "  B chains to A's response: its history is held by the server; only what B sends is listed");
    }
    if let Some(n) = &d.note {
        let _ = writeln!(out, "  note: {n}");
    }
    if let Some([la, lb]) = &d.lanes {
        let _ = writeln!(out, "  A: {la}");
        let _ = writeln!(out, "  B: {lb}");
    }
    if !d.compared() {
        let _ = writeln!(out, "  (not compared: the elements that differ are listed without their texts)");
    }
    for p in &d.dropped {
        let what = match p.slot {
            Some(k) => format!("the `{}` slot", k.as_str()),
            None => "a system prompt".into(),
        };
        let _ = writeln!(out, "  dropped: {what} at A {}: {}", p.pointer, crate::text::excerpt(&p.text, 80));
    }
    // The first change that shows the divergence (A's lost element, or B's new one).
    let first = d.rewrite.as_ref().and_then(|r| {
        d.changes.iter().position(|c| {
            c.op != Op::Same
                && (c.b.as_ref().is_some_and(|s| s.pointer == r.pointer)
                    || c.a.as_ref().zip(r.prev_pointer.as_ref()).is_some_and(|(s, p)| &s.pointer == p))
        })
    });
    let mut section: Option<&str> = None;
    let mut i = 0;
    while i < d.changes.len() {
        let c = &d.changes[i];
        if section != Some(c.section) {
            section = Some(c.section);
            out.push('\n');
            let _ = writeln!(out, "{}:", if color { c.section.bold().to_string() } else { c.section.to_string() });
        }
        if c.op == Op::Same {
            let mut j = i;
            while j < d.changes.len() && d.changes[j].op == Op::Same && d.changes[j].section == c.section {
                j += 1;
            }
            let first_p = c.pointer();
            let last_p = d.changes[j - 1].pointer();
            let n = j - i;
            let span = if n == 1 { first_p.to_string() } else { format!("{first_p} … {last_p}") };
            let line = format!("  = {n} unchanged: B {span}");
            let _ = writeln!(out, "{}", if color { line.dimmed().to_string() } else { line });
            i = j;
            continue;
        }
        change(&mut out, c, first == Some(i), color, d.compared());
        i += 1;
    }
    let (mut ch, mut rm, mut ad, mut same) = (0, 0, 0, 0);
    for c in &d.changes {
        match c.op {
            Op::Changed => ch += 1,
            Op::Removed => rm += 1,
            Op::Added => ad += 1,
            Op::Same => same += 1,
        }
    }
    let _ = writeln!(
        out,
        "\n{ch} changed, {rm} removed, {ad} added, {same} unchanged element{}.",
        if same == 1 { "" } else { "s" }
    );
    // The texts' bidirectional controls shown escaped (colour codes kept).
    crate::escape::escape_bidi(&out).into_owned()
}

/// One element that differs. `texts` false (requests not compared): its
/// head line only (pointer, what, sizes), never its text.
fn change(out: &mut String, c: &Change, first: bool, color: bool, texts: bool) {
    let mark = if first { "  <- first divergence" } else { "" };
    let mark = if color { mark.bold().to_string() } else { mark.to_string() };
    match c.op {
        Op::Same => {}
        Op::Removed | Op::Added => {
            let (s, sign) = if c.op == Op::Removed { (c.a.as_ref(), '-') } else { (c.b.as_ref(), '+') };
            let Some(s) = s else { return };
            let side = if c.op == Op::Removed { "A " } else { "" };
            let head = format!("  {sign} {} {side}{} {}, {} bytes", c.op.as_str(), s.pointer, s.what, s.bytes);
            let _ = writeln!(out, "{}{mark}", paint(&head, sign, color));
            if !texts {
                return;
            }
            let lines: Vec<&str> = s.text.lines().collect();
            for l in lines.iter().take(ELEMENT_LINES) {
                let _ = writeln!(out, "{}", paint(&format!("    {sign} {}", cut_line(l)), sign, color));
            }
            if lines.len() > ELEMENT_LINES {
                let n = lines.len() - ELEMENT_LINES;
                let _ = writeln!(out, "    … ({n} more line{})", if n == 1 { "" } else { "s" });
            }
        }
        Op::Changed => {
            let (Some(a), Some(b)) = (&c.a, &c.b) else { return };
            let was = if a.pointer == b.pointer { String::new() } else { format!(" (A {})", a.pointer) };
            let what = if a.what == b.what { b.what.clone() } else { format!("{} (was {})", b.what, a.what) };
            let head = format!("  ~ changed {}{was} {what}, {} -> {} bytes", b.pointer, a.bytes, b.bytes);
            let _ = writeln!(out, "{}{mark}", if color { head.yellow().to_string() } else { head });
            if let Some(d) = c.diff.as_ref().filter(|_| texts) {
                text_change(out, d, color);
            }
        }
    }
}

/// Characters of one line of an added or removed element's text shown by
/// `full` (a tools array or a document is often one line of JSON).
pub const LINE_CHARS: usize = 240;

/// `line` cut at [`LINE_CHARS`] characters, saying how much was left out.
fn cut_line(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(LINE_CHARS) {
        Some((i, _)) => format!("{}… ({} more bytes)", &line[..i], line.len() - i).into(),
        None => line.into(),
    }
}

fn paint(s: &str, sign: char, color: bool) -> String {
    match (color, sign) {
        (false, _) => s.to_string(),
        (true, '-') => s.red().to_string(),
        (true, '+') => s.green().to_string(),
        _ => s.to_string(),
    }
}

fn text_change(out: &mut String, d: &TextChange, color: bool) {
    if let Some(n) = &d.note {
        let _ = writeln!(out, "    ({n})");
    }
    if d.hunks.is_empty() && d.note.is_none() {
        let _ = writeln!(out, "    (the texts differ only inside masked secrets)");
    }
    let mut shown = 0;
    let total: usize = d.hunks.iter().map(|h| h.lines.len() + 1).sum();
    'hunks: for h in &d.hunks {
        if shown >= DIFF_LINES {
            break;
        }
        let _ = writeln!(out, "    {}", if color { h.header.cyan().to_string() } else { h.header.clone() });
        shown += 1;
        for l in &h.lines {
            if shown >= DIFF_LINES {
                break 'hunks;
            }
            let sign = match l.tag {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            };
            let mut line = format!("    {sign}");
            for (emph, s) in &l.parts {
                if !color {
                    line.push_str(s);
                } else if *emph {
                    let _ = write!(line, "{}", paint(s, sign, true).reversed());
                } else {
                    line.push_str(&paint(s, sign, true));
                }
            }
            let _ = writeln!(
                out,
                "{}",
                if color && sign != ' ' { paint(&line[..5], sign, true) + &line[5..] } else { line }
            );
            shown += 1;
            if l.no_newline {
                let _ = writeln!(out, "    \\ No newline at end of text");
            }
        }
    }
    if total > shown {
        let _ = writeln!(out, "    … ({} more diff lines; `--output-format json` has them all)", total - shown);
    }
}

fn rref(r: &RequestRef) -> Value {
    json!({"path": r.path, "format": r.format, "request": r.index, "pointer": r.pointer})
}

/// Renders the JSON report: one object.
///
/// ```text
/// {"version": 1, "tool": "ctxlint", "command": "diff",
///  "verdict": "identical|extension|retry|rewrite|new conversation|compaction",
///  "summary": "<the headline, e.g. rewrite at messages /messages/0/content/1>",
///  "a": {path, format, request, pointer}, "b": {…},
///  "first_divergence": {level, pointer, prev_pointer, what} | null,
///  "dropped": [{pointer, slot, text}], "chained": bool, "note": string | null,
///  "changes": [{op: changed|removed|added, level, section, pointer, a_pointer, b_pointer,
///               what, a_bytes, b_bytes, text?, diff?}],
///  "unchanged": n}
/// ```
/// `pointer` is where the change is (B's element, or A's for a removed one);
/// `text` is the element's masked text (added, removed); `diff` a unified
/// diff of the texts (changed).
pub fn json(d: &RequestDiff) -> String {
    let changes: Vec<Value> = d
        .differences()
        .map(|c| {
            let mut o = json!({
                "op": c.op.as_str(),
                "level": c.level.as_str(),
                "section": c.section,
                "pointer": c.pointer(),
                "a_pointer": c.a.as_ref().map(|s| s.pointer.clone()),
                "b_pointer": c.b.as_ref().map(|s| s.pointer.clone()),
                "what": c.b.as_ref().or(c.a.as_ref()).map(|s| s.what.clone()),
                "a_bytes": c.a.as_ref().map(|s| s.bytes),
                "b_bytes": c.b.as_ref().map(|s| s.bytes),
            });
            match c.op {
                Op::Added | Op::Removed => o["text"] = json!(c.b.as_ref().or(c.a.as_ref()).map(|s| s.text.clone())),
                Op::Changed => {
                    if let Some(t) = &c.diff {
                        o["diff"] = json!(t.unified());
                        if let Some(n) = &t.note {
                            o["note"] = json!(n);
                        }
                    }
                }
                Op::Same => {}
            }
            o
        })
        .collect();
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "command": "diff",
        "verdict": d.verdict.as_str(),
        "summary": d.headline(),
        "a": rref(&d.a),
        "b": rref(&d.b),
        "first_divergence": d.rewrite.as_ref().map(|r| json!({"level": r.level.as_str(), "pointer": r.pointer, "prev_pointer": r.prev_pointer, "what": r.what})),
        "dropped": d.dropped.iter().map(|p| json!({"pointer": p.pointer, "slot": p.slot.map(|k| k.as_str()), "text": crate::text::mask_secrets(&p.text)})).collect::<Vec<_>>(),
        "chained": d.chained,
        "note": d.note,
        "lanes": d.lanes.as_ref().map(|[a, b]| json!({"a": a, "b": b})),
        "changes": changes,
        "unchanged": d.changes.iter().filter(|c| c.op == Op::Same).count(),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
