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

/// (exit code, JSON report) of `ctxlint check --isolated --output-format json
/// PATH`, run from the project folder (`Null` when stdout is not JSON).
pub fn check_json(path: &str) -> (i32, Value) {
    let (code, v, _) = check_json_stderr(path);
    (code, v)
}

/// [`check_json`], and its standard error (the warnings).
pub fn check_json_stderr(path: &str) -> (i32, Value, String) {
    let out = assert_cmd::Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--isolated", "--output-format", "json", path])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), v, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// One finding as (rule, 1-based line, pointer).
pub type Found = (String, u64, String);

/// An expected [`Found`].
pub type Want = (&'static str, u64, &'static str);

/// Every finding of a JSON report as (rule, line, pointer), in report order.
pub fn rule_line_pointer(v: &Value) -> Vec<Found> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (f["rule"].as_str().unwrap().into(), f["line"].as_u64().unwrap(), f["pointer"].as_str().unwrap().into())
        })
        .collect()
}

/// Checks each `(file under dir, expected findings)`: exit 1 and exactly
/// those findings, as (rule, line, pointer).
pub fn assert_findings(dir: &str, cases: &[(&str, &[Want])]) {
    for (name, want) in cases {
        let (code, v) = check_json(&format!("{dir}/{name}"));
        let want: Vec<Found> = want.iter().map(|(r, l, p)| (r.to_string(), *l, p.to_string())).collect();
        assert_eq!((code, rule_line_pointer(&v)), (1, want), "{name}");
    }
}
