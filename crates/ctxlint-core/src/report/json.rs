//! `json`: one object, field for field as docs/spec.md §4 defines it.

use super::Out;
use crate::check_report::CheckReport;
use crate::{Finding, Severity};
use rayon::prelude::*;
use serde_json::{Value, json};

/// One finding as a JSON value: the fields of [`Finding`], then `excerpt`
/// (masked and truncated; `null` when there is none), `help` (`null` when
/// none) and `url` (the rule's documentation).
pub fn finding_value(f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("excerpt".into(), super::excerpt(f).map_or(Value::Null, Value::String));
        m.insert("help".into(), f.help.as_deref().map_or(Value::Null, |h| Value::String(crate::text::mask_secrets(h))));
        m.insert("url".into(), Value::String(crate::rules::rule_url(f.rule)));
    }
    v
}

/// The summary object: inputs checked, skipped and not checked (`failed`),
/// findings listed, by severity (`errors`, `warnings`), and findings
/// counted but not listed (`unlisted`).
/// Then what the findings cost and what the recorded usage says
/// ([`super::impact::Totals::json_fields`]: `tokens`, `cost_usd`,
/// `confirmed`, `judged`, `unexplained_cache_breaks`, `recorded_cost_usd`,
/// `cache_read_ratio`).
pub fn summary(r: &CheckReport) -> Value {
    let mut v = summary_of(&r.findings, r.files.len(), r.skipped.len(), r.errors.len(), r.unlisted_count());
    if let Value::Object(m) = &mut v {
        m.extend(super::impact::Totals::of(r).json_fields());
    }
    v
}

/// [`summary`] from its parts: the findings listed and the counts.
pub fn summary_of(findings: &[Finding], files: usize, skipped: usize, failed: usize, unlisted: usize) -> Value {
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    json!({
        "files": files,
        "skipped": skipped,
        "failed": failed,
        "findings": findings.len(),
        "errors": errors,
        "warnings": findings.len() - errors,
        "unlisted": unlisted,
    })
}

/// The inputs that could not be checked: `[{"path", "error"}]` (the error
/// masked, as every message is).
pub fn failed(r: &CheckReport) -> Value {
    Value::Array(
        r.errors.iter().map(|f| json!({"path": crate::text::mask_path(&f.path), "error": f.message()})).collect(),
    )
}

/// Renders a check report (pretty-printed, two-space indent).
pub fn render(r: &CheckReport) -> String {
    super::to_string(|w| write(r, w))
}

/// Writes a check report (pretty-printed, two-space indent). The findings,
/// which dominate a large report, are rendered in parallel batches of
/// [`super::BATCH`] and written in order as each batch is done.
pub fn write(r: &CheckReport, out: Out<'_>) -> std::io::Result<()> {
    const SLOT: &str = "\u{0}findings\u{0}";
    const FILES: &str = "\u{0}files\u{0}";
    let v = json!({
        "version": 1,
        "tool": "ctxlint",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "findings": SLOT,
        "files": FILES,
        "skipped": r.skipped.iter().map(|s| json!({"path": crate::text::mask_path(&s.path), "reason": crate::text::mask_secrets(&s.reason)})).collect::<Vec<_>>(),
        "failed": failed(r),
        "unlisted": r.unlisted,
        "summary": summary(r),
    });
    let head = serde_json::to_string_pretty(&v).unwrap_or_default();
    let slot = serde_json::to_string(SLOT).unwrap_or_default();
    let files = serde_json::to_string(FILES).unwrap_or_default();
    let (pre, post) = head.split_once(&slot).unwrap_or((&head, ""));
    let (mid, post) = post.split_once(&files).unwrap_or((post, ""));
    out.write_all(pre.as_bytes())?;
    // Each finding sits at depth 2: its lines are indented by four more spaces.
    write_array(out, &r.findings, 4, finding_value)?;
    out.write_all(mid.as_bytes())?;
    // The files too, each written straight from its summary (a report of
    // 20,000 small files built a JSON value of every summary first: 0.17 s
    // and 66 MB).
    write_items(out, &r.files, 4)?;
    out.write_all(post.as_bytes())?;
    out.write_all(b"\n")
}

/// Writes `items` as a pretty-printed JSON array whose elements sit `indent`
/// spaces deep (the closing bracket two less), each element made by `value`
/// on the rayon pool, [`super::BATCH`] at a time, and written in order.
pub fn write_array<T: Sync>(
    out: Out<'_>,
    items: &[T],
    indent: usize,
    value: impl Fn(&T) -> Value + Sync,
) -> std::io::Result<()> {
    write_rendered(out, items, indent, |x, w| serde_json::to_writer_pretty(w, &value(x)))
}

/// [`write_array`] of items serialized as they are (no [`Value`] built).
pub fn write_items<T: serde::Serialize + Sync>(out: Out<'_>, items: &[T], indent: usize) -> std::io::Result<()> {
    write_rendered(out, items, indent, |x, w| serde_json::to_writer_pretty(w, x))
}

/// [`write_array`] with each element written by `render` into its indented buffer.
fn write_rendered<T: Sync>(
    out: Out<'_>,
    items: &[T],
    indent: usize,
    render: impl Fn(&T, Indented<&mut Vec<u8>>) -> serde_json::Result<()> + Sync,
) -> std::io::Result<()> {
    if items.is_empty() {
        return out.write_all(b"[]");
    }
    out.write_all(b"[\n")?;
    for (k, batch) in items.chunks(super::BATCH).enumerate() {
        let rendered: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|x| {
                let mut buf = vec![b' '; indent];
                let _ = render(x, Indented::new(&mut buf, indent));
                buf
            })
            .collect();
        for (i, b) in rendered.iter().enumerate() {
            if k > 0 || i > 0 {
                out.write_all(b",\n")?;
            }
            out.write_all(b)?;
        }
    }
    out.write_all(b"\n")?;
    out.write_all(&b"        "[..indent.saturating_sub(2).min(8)])?;
    out.write_all(b"]")
}

/// A writer that indents every line after the first by a number of spaces
/// (pretty JSON's strings never hold a raw newline, so re-indenting it this
/// way is exact).
pub struct Indented<W> {
    inner: W,
    pad: usize,
}

impl<W: std::io::Write> Indented<W> {
    /// Indents what is written to `inner` by `pad` spaces (at most 16).
    pub fn new(inner: W, pad: usize) -> Self {
        Indented { inner, pad: pad.min(16) }
    }
}

impl<W: std::io::Write> std::io::Write for Indented<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        const SPACES: &[u8; 16] = b"                ";
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.inner.write_all(&rest[..=i])?;
            self.inner.write_all(&SPACES[..self.pad])?;
            rest = &rest[i + 1..];
        }
        self.inner.write_all(rest)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule_id::RuleId;

    #[test]
    fn unknown_fields_are_null_never_absent() {
        let f = Finding::new(RuleId::DroppedSystemPrompt, "r.json", crate::formats::openai_chat::ID, "gone");
        let v = finding_value(&f);
        for k in ["line", "column", "byte_offset", "end_line", "end_column", "request", "entry_id", "excerpt", "help"] {
            assert_eq!(v.get(k), Some(&Value::Null), "{k}");
        }
        assert_eq!(v["pointer"], "");
        assert_eq!(v["url"], "https://github.com/ctxlint/ctxlint/blob/main/docs/rules.md#dropped-system-prompt");
    }

    #[test]
    fn excerpt_and_help_are_masked() {
        let f = Finding::new(RuleId::DuplicateSystemPrompt, "r.json", crate::formats::openai_chat::ID, "twice")
            .excerpt("key sk-abcdefghijklmnopqrstuvwx here")
            .help("rotate sk-abcdefghijklmnopqrstuvwx");
        let v = finding_value(&f);
        assert_eq!(v["excerpt"], "key sk-a**** here");
        assert_eq!(v["help"], "rotate sk-a****");
    }
}
