//! Findings of a `check --output-format json` run as tuples that tests compare
//! whole, so a wrong line, column or pointer fails the test.

use serde_json::Value;

/// One finding: (code, line, column, pointer, request, related (line, pointer));
/// lines and columns 1-based, request 1-based within its stream.
pub type Located = (String, u64, u64, String, u64, Vec<(u64, String)>);

/// Every finding of a JSON report, in report order. Panics (failing the test)
/// when a finding lacks one of the fields.
pub fn located(v: &Value) -> Vec<Located> {
    let s = |x: &Value| x.as_str().unwrap().to_string();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let related = f["related"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["line"].as_u64().unwrap(), s(&r["pointer"])))
                .collect();
            (
                s(&f["code"]),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                s(&f["pointer"]),
                f["request"].as_u64().unwrap(),
                related,
            )
        })
        .collect()
}
