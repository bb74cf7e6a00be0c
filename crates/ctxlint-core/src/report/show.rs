//! Renderers of `ctxlint show` ([`crate::show::Shown`]): a table of messages
//! per request or step (comfy-table; in compact mode the new messages only,
//! after a line saying what was carried over), one request's or step's
//! context in full, and `json`. [`Renderer`] writes each unit as it arrives
//! (a [`crate::show::Sink`]); texts arrive masked.

use crate::show::{Delta, Mode, Shown, ShownBlock, ShownMessage, Sink, Unit};
use owo_colors::OwoColorize;
use serde_json::{Value, json};
use std::fmt::Write;
use std::path::PathBuf;

fn unit_title(s: &Shown, u: &Unit) -> String {
    if s.transcript {
        // Ids, model names, paths and pointers come from the input: shown
        // escaped, so none can drive the terminal or start a CI log line.
        let esc = crate::escape::escape_controls;
        let mut t = match (&s.session, &u.entry_id) {
            // A store's rows have no lines: the message names the step.
            (Some(_), Some(id)) => format!("step {}: model call at message {}", u.index, esc(id)),
            _ => format!("step {}: model call at line {}", u.index, u.line.unwrap_or(0)),
        };
        if let (None, Some(id)) = (&s.session, &u.entry_id) {
            let _ = write!(t, " (entry {})", esc(id));
        }
        if let Some(m) = &u.model {
            let _ = write!(t, ", model {}", esc(m));
        }
        let _ = write!(t, ", {} message{} in context", u.context_len, if u.context_len == 1 { "" } else { "s" });
        t
    } else {
        let esc = crate::escape::escape_controls;
        let mut t = format!("request {}", u.index);
        if let Some(p) = u.path.as_ref().filter(|p| **p != s.path) {
            let _ = write!(t, ": {}", esc(p));
        }
        if let Some(ptr) = u.pointer.as_ref().filter(|p| !p.is_empty()) {
            let _ = write!(t, "{} {}", if u.path.as_ref().is_some_and(|p| *p != s.path) { "" } else { ":" }, esc(ptr));
        }
        if let Some(l) = u.line {
            let _ = write!(t, " (line {l})");
        }
        if let Some(tools) = &u.tools {
            let n = tools.count.map(|n| format!("{n} tool{}, ", if n == 1 { "" } else { "s" })).unwrap_or_default();
            let _ = write!(t, "\ntools: {}{} bytes, hash {}", n, tools.bytes, tools.hash);
        }
        t
    }
}

fn header(s: &Shown, color: bool) -> String {
    let what = if s.transcript { "step" } else { "request" };
    let n = s.total;
    let session = s.session.as_deref().map(|id| format!(", session {}", crate::escape::escape_controls(id)));
    let line = format!(
        "{} ({}{}): {n} {what}{}",
        crate::escape::escape_controls(&s.path),
        s.format,
        session.unwrap_or_default(),
        if n == 1 { "" } else { "s" }
    );
    let mut out = if color { line.bold().to_string() } else { line };
    out.push('\n');
    for note in &s.notes {
        let _ = writeln!(out, "{}", super::term::wrap(&format!("note: {note}"), 6));
    }
    out
}

/// Says how a unit's context relates to the previous one (compact mode).
fn delta_line(s: &Shown, u: &Unit, d: &Delta) -> Option<String> {
    let what = if s.transcript { "step" } else { "request" };
    let prev = d.previous?;
    let n = u.messages.len();
    let new = if n == 0 { "nothing new".to_string() } else { format!("{n} new") };
    let m = |k: usize| format!("{k} message{}", if k == 1 { "" } else { "s" });
    let kept: usize = d.kept.iter().map(|r| r.count).sum();
    Some(match d.rebuilt {
        None => format!("{} carried over from {what} {prev}, {new}", m(d.carried)),
        Some(crate::show::CHAINED) => {
            format!("chained to {what} {prev}'s response: its context is held by the provider, not sent again; {new}")
        }
        Some(why) if kept > 0 => format!(
            "context rebuilt ({why}): {} carried over from {what} {prev}, {kept} sent again further on (not listed), {} no longer sent, {new}",
            m(d.carried),
            d.dropped
        ),
        Some(why) => format!(
            "context rebuilt ({why}): {} carried over from {what} {prev}, {} no longer sent, {new}",
            m(d.carried),
            d.dropped
        ),
    })
}

/// Renders one unit as a table of its (listed) messages.
fn unit_table(out: &mut String, s: &Shown, u: &Unit, color: bool) {
    out.push('\n');
    let title = unit_title(s, u);
    let _ = writeln!(out, "{}", if color { title.bold().to_string() } else { title });
    if let Some(l) = u.lane.as_ref().map(crate::conversation::Lane::describe) {
        let _ = writeln!(out, "{}", if color { l.dimmed().to_string() } else { l });
    }
    if let Some(l) = u.delta.as_ref().and_then(|d| delta_line(s, u, d)).map(|l| super::term::wrap(&l, 2)) {
        let _ = writeln!(out, "{}", if color { l.dimmed().to_string() } else { l });
    }
    if u.messages.is_empty() && u.delta.is_some() {
        return;
    }
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    let mut head = vec!["#", "role", "kind", "bytes", "first line", "hash"];
    // (A store's rows are numbered by position: "row", not "line".)
    if s.transcript {
        head.insert(1, if s.session.is_some() { "row" } else { "line" });
    }
    t.set_header(head);
    for m in &u.messages {
        let mut row = vec![
            m.index.to_string(),
            m.role.to_string(),
            m.kind.clone(),
            m.bytes.to_string(),
            m.first_line.clone(),
            m.hash.clone(),
        ];
        if s.transcript {
            row.insert(1, m.line.map(|l| l.to_string()).unwrap_or_default());
        }
        t.add_row(row);
    }
    // Every column but the first line's kept whole.
    let (columns, first_line) = if s.transcript { (7, 5) } else { (6, 4) };
    let whole: Vec<usize> = (0..columns).filter(|&i| i != first_line).collect();
    super::term::fit(&mut t, &whole);
    let _ = writeln!(out, "{t}");
}

/// Renders one request's or step's context in full (after its title).
fn unit_full(out: &mut String, s: &Shown, u: &Unit, color: bool) {
    out.push('\n');
    let title = unit_title(s, u);
    let _ = writeln!(out, "{}", if color { title.bold().to_string() } else { title });
    for m in &u.messages {
        out.push('\n');
        message(out, m, s.session.is_some(), color);
    }
}

/// Renders every request or step as a table of its messages.
pub fn table(s: &Shown, color: bool) -> String {
    let mut out = header(s, color);
    for u in &s.requests {
        unit_table(&mut out, s, u, color);
    }
    out
}

/// Renders one request's or step's context in full.
pub fn one(s: &Shown, u: &Unit, color: bool) -> String {
    let mut out = header(s, color);
    unit_full(&mut out, s, u, color);
    out
}

fn message(out: &mut String, m: &ShownMessage, store: bool, color: bool) {
    let mut h = format!("[{}] {} · {}", m.index, m.role, m.kind);
    if let (Some(l), false) = (m.line, m.entry_id.is_some() && store) {
        let _ = write!(h, " · line {l}");
    }
    // Ids, names and pointers come from the file: escaped as texts are.
    let esc = crate::escape::escape_controls;
    if let Some(id) = &m.entry_id {
        let _ = write!(h, " · entry {}", esc(id));
    }
    if !m.pointer.is_empty() {
        let _ = write!(h, " · {}", esc(&m.pointer));
    }
    let _ = write!(h, " · {} bytes · {}", m.bytes, m.hash);
    let _ = writeln!(out, "{}", if color { h.cyan().bold().to_string() } else { h });
    let labelled = m.blocks.len() > 1 || m.blocks.iter().any(|b| b.kind != "text");
    for b in &m.blocks {
        if labelled {
            let l = block_label(b, &m.pointer);
            let _ = writeln!(out, "  {}", if color { l.dimmed().to_string() } else { l });
        }
        block_text(out, b);
    }
}

fn block_label(b: &ShownBlock, msg_pointer: &str) -> String {
    let esc = crate::escape::escape_controls;
    let mut l = format!("── {}", b.kind);
    if let Some(n) = &b.tool_name {
        let _ = write!(l, " {}", esc(n));
    }
    if let Some(id) = &b.tool_id {
        let _ = write!(l, " (id {})", esc(id));
    }
    if b.pointer != msg_pointer {
        let _ = write!(l, " {}", esc(&b.pointer));
    }
    l
}

fn block_text(out: &mut String, b: &ShownBlock) {
    if b.text.is_empty() && b.bytes == 0 {
        let _ = writeln!(out, "    (empty)");
        return;
    }
    for l in b.text.lines() {
        // Control and bidirectional characters shown escaped (`\u{202e}`):
        // a text cannot drive the terminal or reorder what is printed.
        let l = crate::escape::escape_controls_but(l, &['\t']);
        // A GitHub runner trims a line before it looks for `::command`.
        let _ = writeln!(out, "    {}", crate::escape::no_ci_command(&l));
    }
    if b.truncated && b.text.is_empty() {
        let _ = writeln!(out, "    … ({} bytes, not kept)", b.bytes);
    } else if b.truncated {
        let _ = writeln!(out, "    … ({} bytes; the first {} are kept)", b.bytes, b.text.len());
    }
}

// The JSON shapes, serialised straight from the shown units (no
// intermediate `Value`: `show` writes one object per step of sessions with
// 100,000 steps). Field order is the output's.

#[derive(serde::Serialize)]
struct BlockJson<'a> {
    kind: &'a str,
    pointer: &'a str,
    bytes: usize,
    truncated: bool,
    tool_name: Option<&'a str>,
    tool_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

#[derive(serde::Serialize)]
struct MessageJson<'a> {
    index: usize,
    role: &'a str,
    kind: &'a str,
    pointer: &'a str,
    line: Option<u32>,
    entry_id: Option<&'a str>,
    bytes: usize,
    hash: &'a str,
    first_line: &'a str,
    blocks: Vec<BlockJson<'a>>,
}

#[derive(serde::Serialize)]
struct ToolsJson<'a> {
    pointer: &'a str,
    bytes: usize,
    count: Option<usize>,
    hash: &'a str,
}

#[derive(serde::Serialize)]
struct DeltaJson<'a> {
    previous: Option<usize>,
    carried: usize,
    dropped: usize,
    rebuilt: Option<&'static str>,
    kept: &'a [crate::show::Kept],
}

#[derive(serde::Serialize)]
struct UnitJson<'a> {
    index: usize,
    path: Option<&'a str>,
    pointer: Option<&'a str>,
    line: Option<u32>,
    entry_id: Option<&'a str>,
    model: Option<&'a str>,
    tools: Option<ToolsJson<'a>>,
    context_messages: usize,
    delta: Option<DeltaJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lane: Option<LaneJson>,
    messages: Vec<MessageJson<'a>>,
}

#[derive(serde::Serialize)]
struct LaneJson {
    lane: usize,
    agent: String,
    compared_with: Option<usize>,
}

fn unit_json(u: &Unit, with_text: bool) -> UnitJson<'_> {
    UnitJson {
        index: u.index,
        path: u.path.as_deref(),
        pointer: u.pointer.as_deref(),
        line: u.line,
        entry_id: u.entry_id.as_deref(),
        model: u.model.as_deref(),
        tools: u.tools.as_ref().map(|t| ToolsJson {
            pointer: &t.pointer,
            bytes: t.bytes,
            count: t.count,
            hash: &t.hash,
        }),
        context_messages: u.context_len,
        delta: u.delta.as_ref().map(|d| DeltaJson {
            previous: d.previous,
            carried: d.carried,
            dropped: d.dropped,
            rebuilt: d.rebuilt,
            kept: &d.kept,
        }),
        lane: u.lane.as_ref().map(|l| LaneJson {
            lane: l.lane,
            agent: crate::text::mask_secrets(&l.agent),
            compared_with: l.compared_with,
        }),
        messages: u
            .messages
            .iter()
            .map(|m| MessageJson {
                index: m.index,
                role: m.role,
                kind: &m.kind,
                pointer: &m.pointer,
                line: m.line,
                entry_id: m.entry_id.as_deref(),
                bytes: m.bytes,
                hash: &m.hash,
                first_line: &m.first_line,
                blocks: m
                    .blocks
                    .iter()
                    .map(|b| BlockJson {
                        kind: b.kind,
                        pointer: &b.pointer,
                        bytes: b.bytes,
                        truncated: b.truncated,
                        tool_name: b.tool_name.as_deref(),
                        tool_id: b.tool_id.as_deref(),
                        text: with_text.then_some(b.text.as_str()),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The JSON report's fields before `requests`.
fn json_head(s: &Shown) -> String {
    let mut fields: Vec<(&str, Value)> = vec![
        ("version", json!(1)),
        ("tool", json!("ctxlint")),
        ("command", json!("show")),
        ("path", json!(s.path)),
        ("format", json!(s.format)),
        ("kind", json!(if s.transcript { "transcript" } else { "stream" })),
        ("mode", json!(if s.mode == Mode::Compact { "compact" } else { "full" })),
        ("notes", json!(s.notes)),
        ("total", json!(s.total)),
    ];
    // A store's session (absent otherwise, as in `check`'s findings).
    if let Some(id) = &s.session {
        fields.insert(5, ("session", json!(id)));
    }
    let mut out = String::from("{\n");
    for (k, v) in fields {
        let _ = writeln!(out, "  {}: {},", json!(k), v);
    }
    out.push_str("  \"requests\": [");
    out
}

/// Renders the JSON report: one object, one unit per line.
///
/// ```text
/// {"version": 1, "tool": "ctxlint", "command": "show", "path", "format",
///  "session"? (one session of a store), "kind": "stream" | "transcript", "mode": "compact" | "full", "notes": [string], "total": n,
///  "requests": [{index, path, pointer, line, entry_id, model,
///                tools: {pointer, bytes, count, hash} | null,
///                context_messages: n,
///                delta: {previous: n | null, carried, dropped, rebuilt: string | null} | null,
///                messages: [{index, role, kind, pointer, line, entry_id, bytes,
///                            hash, first_line,
///                            blocks: [{kind, pointer, bytes, truncated, tool_name, tool_id, text?}]}]}]}
/// ```
/// `requests` holds every request (streams) or step (transcripts), or only the
/// selected one. In compact mode (the default) `messages` holds the messages
/// after the `delta.carried` ones kept from the previous unit's context
/// (`index` is the position in the whole context) and a request's `tools` is
/// null when unchanged; in full mode, and for a selected unit, `delta` is null
/// and `messages` the whole context. Block `text` (masked, a prefix when
/// `truncated`) is present only for a selected unit.
pub fn json(s: &Shown, selected: bool) -> String {
    let mut out = json_head(s);
    for (k, u) in s.requests.iter().enumerate() {
        json_unit(&mut out, k == 0, u, selected);
    }
    out.push_str(JSON_TAIL);
    out
}

const JSON_TAIL: &str = "\n  ]\n}\n";

fn json_unit(out: &mut String, first: bool, u: &Unit, with_text: bool) {
    out.push_str(if first { "\n    " } else { ",\n    " });
    // Serialising these shapes cannot fail (string keys, no maps); the
    // bytes are JSON text, so UTF-8.
    let mut bytes = std::mem::take(out).into_bytes();
    if serde_json::to_writer(&mut bytes, &unit_json(u, with_text)).is_err() {
        bytes.extend_from_slice(b"null");
    }
    *out = String::from_utf8(bytes).unwrap_or_default();
}

/// Writes what `show` prints as it arrives: the header, then each unit (a
/// table of its messages, its context in full when one unit is selected, or
/// one JSON line), flushed in blocks; nothing is kept between units.
pub struct Renderer<W: std::io::Write> {
    w: W,
    json: bool,
    color: bool,
    units: usize,
    /// The output's name in errors.
    label: PathBuf,
    buf: String,
}

impl<W: std::io::Write> Renderer<W> {
    /// A renderer writing to `w` (named `label` in errors), as JSON or for people.
    pub fn new(w: W, json: bool, color: bool, label: impl Into<PathBuf>) -> Self {
        Renderer { w, json, color, units: 0, label: label.into(), buf: String::new() }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.w
    }

    fn flush_buf(&mut self, force: bool) -> crate::Result<()> {
        if force || self.buf.len() >= 1 << 16 {
            self.w.write_all(self.buf.as_bytes()).map_err(|e| crate::Error::io(&self.label, e))?;
            self.buf.clear();
        }
        if force {
            self.w.flush().map_err(|e| crate::Error::io(&self.label, e))?;
        }
        Ok(())
    }
}

impl<W: std::io::Write> Sink for Renderer<W> {
    fn begin(&mut self, s: &Shown) -> crate::Result<()> {
        let head = if self.json { json_head(s) } else { header(s, self.color) };
        self.buf.push_str(&head);
        self.flush_buf(false)
    }
    fn units(&mut self, s: &Shown, units: Vec<Unit>) -> crate::Result<()> {
        use rayon::prelude::*;
        // Each unit renders on its own (tables are most of the time on long
        // sessions); the texts are written in order.
        let (json, color, done) = (self.json, self.color, self.units);
        let texts: Vec<String> = units
            .par_iter()
            .enumerate()
            .map(|(k, u)| {
                let mut out = String::new();
                if json {
                    json_unit(&mut out, done + k == 0, u, s.selected);
                } else if s.selected {
                    unit_full(&mut out, s, u, color);
                } else {
                    unit_table(&mut out, s, u, color);
                }
                // What the unit quotes (texts, ids, tool names, paths) is masked where it is built.
                out
            })
            .collect();
        drop(units);
        for t in texts {
            self.buf.push_str(&t);
            self.units += 1;
            self.flush_buf(false)?;
        }
        Ok(())
    }
    fn end(&mut self, _: &Shown) -> crate::Result<()> {
        if self.json {
            self.buf.push_str(JSON_TAIL);
        }
        self.flush_buf(true)
    }
}
