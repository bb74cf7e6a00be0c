//! The catalogue of input formats `ctxlint formats` lists: every stable
//! format id, what it is, whether this build reads it, and where the agent
//! or tool that writes it keeps its files — each from its format's descriptor
//! ([`crate::formats::About`] in [`crate::formats::REGISTRY`]).

use serde_json::{Value, json};

/// Whether this build reads format `id`.
pub fn supported(id: &str) -> bool {
    crate::formats::parse_format_id(id).is_some()
}

/// The catalogue as a text table.
pub fn table() -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING).set_header(vec!["format", "supported", "kind", "what", "files"]);
    for f in crate::formats::REGISTRY {
        let a = &f.about;
        t.add_row(vec![f.id.as_str(), "yes", a.kind, a.what, a.location]);
    }
    crate::report::term::fit(&mut t, &[0, 1, 2]);
    let mut out: String = t.to_string().lines().map(|l| l.trim_end().to_string() + "\n").collect();
    out.push_str("\nDetection is by content; `--input-format ID` forces a supported format.\n");
    out
}

/// The catalogue as a JSON array of `{id, supported, kind, description, location}`.
pub fn json() -> String {
    let v: Vec<Value> = crate::formats::REGISTRY
        .iter()
        .map(|f| {
            let a = &f.about;
            json!({"id": f.id, "supported": true, "kind": a.kind, "description": a.what, "location": a.location})
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
