//! Renderers of `ctxlint show` ([`crate::show::Shown`]): a table of messages
//! per request or step (comfy-table), one request's or step's context in
//! full, and `json`. Texts arrive masked.

use crate::show::{Shown, ShownBlock, ShownMessage, Unit};
use owo_colors::OwoColorize;
use serde_json::{Value, json};
use std::fmt::Write;

fn unit_title(s: &Shown, u: &Unit) -> String {
    if s.transcript {
        let mut t = format!("step {}: model call at line {}", u.index, u.line.unwrap_or(0));
        if let Some(id) = &u.entry_id {
            let _ = write!(t, " (entry {id})");
        }
        if let Some(m) = &u.model {
            let _ = write!(t, ", model {m}");
        }
        let _ = write!(t, ", {} message{} in context", u.messages.len(), if u.messages.len() == 1 { "" } else { "s" });
        t
    } else {
        let mut t = format!("request {}", u.index);
        if let Some(p) = u.path.as_ref().filter(|p| **p != s.path) {
            let _ = write!(t, ": {p}");
        }
        if let Some(ptr) = u.pointer.as_ref().filter(|p| !p.is_empty()) {
            let _ = write!(t, "{} {ptr}", if u.path.as_ref().is_some_and(|p| *p != s.path) { "" } else { ":" });
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
    let line = format!("{} ({}): {n} {what}{}", s.path, s.format, if n == 1 { "" } else { "s" });
    let mut out = if color { line.bold().to_string() } else { line };
    out.push('\n');
    for note in &s.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// Renders every request or step as a table of its messages.
pub fn table(s: &Shown, color: bool) -> String {
    let mut out = header(s, color);
    for u in &s.requests {
        out.push('\n');
        let title = unit_title(s, u);
        let _ = writeln!(out, "{}", if color { title.bold().to_string() } else { title });
        let mut t = comfy_table::Table::new();
        t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
        let mut head = vec!["#", "role", "kind", "bytes", "first line", "hash"];
        if s.transcript {
            head.insert(1, "line");
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
        let _ = writeln!(out, "{t}");
    }
    out
}

/// Renders one request's or step's context in full.
pub fn one(s: &Shown, u: &Unit, color: bool) -> String {
    let mut out = header(s, color);
    out.push('\n');
    let title = unit_title(s, u);
    let _ = writeln!(out, "{}", if color { title.bold().to_string() } else { title });
    for m in &u.messages {
        out.push('\n');
        message(&mut out, m, color);
    }
    out
}

fn message(out: &mut String, m: &ShownMessage, color: bool) {
    let mut h = format!("[{}] {} · {}", m.index, m.role, m.kind);
    if let Some(l) = m.line {
        let _ = write!(h, " · line {l}");
    }
    if let Some(id) = &m.entry_id {
        let _ = write!(h, " · entry {id}");
    }
    if !m.pointer.is_empty() {
        let _ = write!(h, " · {}", m.pointer);
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
    let mut l = format!("── {}", b.kind);
    if let Some(n) = &b.tool_name {
        let _ = write!(l, " {n}");
    }
    if let Some(id) = &b.tool_id {
        let _ = write!(l, " (id {id})");
    }
    if b.pointer != msg_pointer {
        let _ = write!(l, " {}", b.pointer);
    }
    l
}

fn block_text(out: &mut String, b: &ShownBlock) {
    if b.text.is_empty() && b.bytes == 0 {
        let _ = writeln!(out, "    (empty)");
        return;
    }
    for l in b.text.lines() {
        let _ = writeln!(out, "    {l}");
    }
    if b.truncated && b.text.is_empty() {
        let _ = writeln!(out, "    … ({} bytes, not kept)", b.bytes);
    } else if b.truncated {
        let _ = writeln!(out, "    … ({} bytes; the first {} are kept)", b.bytes, b.text.len());
    }
}

fn block_json(b: &ShownBlock, with_text: bool) -> Value {
    let mut o = json!({
        "kind": b.kind,
        "pointer": b.pointer,
        "bytes": b.bytes,
        "truncated": b.truncated,
        "tool_name": b.tool_name,
        "tool_id": b.tool_id,
    });
    if with_text {
        o["text"] = json!(b.text);
    }
    o
}

fn unit_json(u: &Unit, with_text: bool) -> Value {
    json!({
        "index": u.index,
        "path": u.path,
        "pointer": u.pointer,
        "line": u.line,
        "entry_id": u.entry_id,
        "model": u.model,
        "tools": u.tools.as_ref().map(|t| json!({"pointer": t.pointer, "bytes": t.bytes, "count": t.count, "hash": t.hash})),
        "messages": u.messages.iter().map(|m| json!({
            "index": m.index,
            "role": m.role,
            "kind": m.kind,
            "pointer": m.pointer,
            "line": m.line,
            "entry_id": m.entry_id,
            "bytes": m.bytes,
            "hash": m.hash,
            "first_line": m.first_line,
            "blocks": m.blocks.iter().map(|b| block_json(b, with_text)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// Renders the JSON report: one object.
///
/// ```text
/// {"version": 1, "tool": "ctxlint", "command": "show", "path", "format",
///  "kind": "stream" | "transcript", "notes": [string], "total": n,
///  "requests": [{index, path, pointer, line, entry_id, model,
///                tools: {pointer, bytes, count, hash} | null,
///                messages: [{index, role, kind, pointer, line, entry_id, bytes,
///                            hash, first_line,
///                            blocks: [{kind, pointer, bytes, truncated, tool_name, tool_id, text?}]}]}]}
/// ```
/// `requests` holds every request (streams) or step (transcripts), or only the
/// selected one; block `text` (masked, a prefix when `truncated`) is present
/// only for a selected request.
pub fn json(s: &Shown, selected: bool) -> String {
    let units: Vec<Value> = s.requests.iter().map(|u| unit_json(u, selected)).collect();
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "command": "show",
        "path": s.path,
        "format": s.format,
        "kind": if s.transcript { "transcript" } else { "stream" },
        "notes": s.notes,
        "total": s.total,
        "requests": units,
    });
    let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
    out.push('\n');
    out
}
