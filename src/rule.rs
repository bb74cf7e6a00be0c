//! `ctxlint rule`: a rule's documentation, or the list of rules.

use crate::args::{RuleArgs, ViewFormat};
use crate::output::write_out;
use ctxlint::Error;
use ctxlint::error::exit_code;
use ctxlint::rules::RuleId;

pub(crate) fn cmd_rule(a: RuleArgs) -> ctxlint::Result<i32> {
    let lookup = |n: &str| {
        RuleId::from_name_or_code(n).ok_or_else(|| {
            let hint = ctxlint::rule_id::suggest(n).map(|c| format!("; did you mean {c}?")).unwrap_or_default();
            Error::Usage(format!(
                "unknown rule `{}`{hint} (`ctxlint rule` lists them)",
                ctxlint::escape::escape_controls(n)
            ))
        })
    };
    if a.output_format == ViewFormat::Json {
        let v = match (&a.name, a.all) {
            (Some(n), false) => ctxlint::rules::rule_value(lookup(n)?),
            _ => serde_json::Value::Array(RuleId::ALL.iter().map(|r| ctxlint::rules::rule_value(*r)).collect()),
        };
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        write_out(&s);
        return Ok(exit_code::OK);
    }
    let out = match (&a.name, a.all) {
        (_, true) => ctxlint::rules::docs_markdown(),
        (None, false) => {
            let mut t = comfy_table::Table::new();
            t.load_preset(comfy_table::presets::NOTHING).set_header(vec!["code", "name", "default", "finds"]);
            for r in RuleId::ALL {
                let m = ctxlint::rules::meta(r);
                t.add_row(vec![m.code, m.name, m.default_severity.as_str(), m.summary]);
            }
            ctxlint::report::term::fit(&mut t, &[0, 1, 2]);
            format!("{t}\n\nRun `ctxlint rule NAME` for a rule's documentation.\n")
        }
        (Some(n), false) => ctxlint::rules::rule_markdown(lookup(n)?),
    };
    write_out(&out);
    Ok(exit_code::OK)
}
