//! `json-lines`: one JSON object per finding per line (the finding objects of `json`).

use super::Out;
use crate::check_report::CheckReport;

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    super::to_string(|w| write(r, w))
}

/// Writes a check report, one finding per line as it is serialised.
pub fn write(r: &CheckReport, out: Out<'_>) -> std::io::Result<()> {
    for f in &r.findings {
        serde_json::to_writer(&mut *out, &super::json::finding_value(f))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
