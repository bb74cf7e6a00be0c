//! `github`: GitHub Actions workflow commands (`::error file=…,line=…::message`),
//! escaped as the runner expects: in the message `%`, `\r`, `\n` become `%25`,
//! `%0D`, `%0A`; in properties `:` and `,` also become `%3A` and `%2C`.
//! `col`/`endColumn` are given only when the element starts and ends on one line.

use super::Out;
use crate::Severity;
use crate::check_report::CheckReport;

/// Escapes a message (workflow command data). Other control and
/// bidirectional characters (ESC, BEL, U+202E) are made visible first
/// (`\u{1b}`), so that text from a file or a file name cannot drive the
/// terminal a CI log is read in.
pub fn escape_data(s: &str) -> String {
    crate::escape::escape_controls_but(s, &['\r', '\n']).replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    super::to_string(|w| write(r, w))
}

/// Writes a check report: one workflow command per finding, then one error
/// per input that could not be checked.
pub fn write(r: &CheckReport, out: Out<'_>) -> std::io::Result<()> {
    for f in &r.findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut props = vec![format!("file={}", escape_property(&f.path))];
        if let Some(l) = f.line {
            props.push(format!("line={l}"));
            if let (Some(c), Some(el), Some(ec)) = (f.column, f.end_line, f.end_column) {
                if el == l {
                    props.push(format!("endLine={el}"));
                    props.push(format!("col={c}"));
                    props.push(format!("endColumn={ec}"));
                }
            }
        }
        props.push(format!("title={}", escape_property(&format!("{} {}", f.code, f.rule.name()))));
        let mut msg = crate::text::mask_secrets(&f.message);
        if !f.pointer.is_empty() {
            msg.push_str(&format!(" (at {})", f.pointer));
        }
        if let Some(e) = super::excerpt(f) {
            msg.push_str(&format!("\n{e}"));
        }
        writeln!(out, "::{level} {}::{}", props.join(","), escape_data(&msg))?;
    }
    // Findings counted but not listed: a warning at their file.
    for u in &r.unlisted {
        let props = [
            format!("file={}", escape_property(&u.path)),
            format!("title={}", escape_property(&format!("{} {}: findings not listed", u.code, u.rule.name()))),
        ];
        writeln!(out, "::warning {}::{}", props.join(","), escape_data(&super::unlisted_message(u)))?;
    }
    // An input that could not be checked fails the job visibly, at its file.
    for f in &r.errors {
        let mut props = Vec::new();
        if !f.path.is_empty() {
            props.push(format!("file={}", escape_property(&f.path)));
        }
        props.push(format!("title={}", escape_property("ctxlint: not checked")));
        writeln!(out, "::error {}::{}", props.join(","), escape_data(&f.message()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Undoes the runner's escaping, to prove the round trip.
    fn unescape(s: &str) -> String {
        s.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
    }

    #[test]
    fn special_characters_round_trip() {
        for s in ["100% done", "a:b,c", "line1\nline2\r\n", "%0A literal", "%%,::"] {
            assert_eq!(unescape(&escape_property(s)), s);
            assert_eq!(unescape(&escape_data(s)), s);
            assert!(!escape_property(s).contains([':', ',', '\n', '\r']));
        }
    }
}
