//! `ctxlint repro`: findings reduced to small, anonymised cases for bug
//! reports.

use crate::args::ReproArgs;
use crate::output::{mask_output, write_out};
use ctxlint::Error;
use ctxlint::error::exit_code;
use ctxlint::rules::RuleId;

pub(crate) fn cmd_repro(a: ReproArgs) -> ctxlint::Result<i32> {
    use ctxlint::repro;
    let rule = a
        .rule
        .as_deref()
        .map(|n| {
            RuleId::from_name_or_code(n).ok_or_else(|| {
                Error::Usage(format!("unknown rule `{}` (try `ctxlint rule`)", ctxlint::escape::escape_controls(n)))
            })
        })
        .transpose()?;
    if !(a.budget.is_finite() && a.budget > 0.0) {
        return Err(Error::Usage(format!("--budget must be a positive number of seconds, not {}", a.budget)));
    }
    let opts = repro::ReproOptions {
        paths: a.paths,
        discover: ctxlint::inputs::DiscoverOptions {
            forced: a.input_format,
            no_stream: a.no_stream,
            ..Default::default()
        },
        rule,
        fingerprint: a.finding,
        line: a.line,
        pointer: a.pointer,
        all: a.all,
        out_dir: a.out,
        // Capped at a year: a larger figure would overflow the deadline.
        budget: std::time::Duration::from_secs_f64(a.budget.min(3.15e7)),
        keep_text: a.keep_text,
        source: a.source,
        force: a.force,
    };
    let outcomes = repro::run(&opts, &mut |line| say!("ctxlint: {}", mask_output(line)))?;
    let mut out = String::new();
    let mut missing = 0;
    for o in &outcomes {
        match &o.dir {
            Some(d) => {
                let replaced: Vec<String> = o.replaced.iter().map(|(k, v)| format!("{k} {v}")).collect();
                out.push_str(&format!(
                    "{}  {} at {}: {} -> {} lines, {} -> {} bytes, {:.1} s, {} test runs{}{}\n",
                    d.display(),
                    o.rule.name(),
                    o.origin,
                    o.before.0,
                    o.after.0,
                    o.before.1,
                    o.after.1,
                    o.elapsed.as_secs_f64(),
                    o.tests,
                    if o.complete { "" } else { " (budget reached)" },
                    if !o.anonymised {
                        String::from("; text kept")
                    } else if replaced.is_empty() {
                        String::from("; nothing to replace")
                    } else {
                        format!("; replaced: {}", replaced.join(", "))
                    }
                ));
            }
            None => {
                missing += 1;
                out.push_str(&format!("not reproduced: {} at {}: {}\n", o.rule.name(), o.origin, o.notes.join("; ")));
            }
        }
    }
    out.push_str(&format!("{} case(s) written, {} not reproduced\n", outcomes.len() - missing, missing));
    write_out(&mask_output(&out));
    Ok(if missing == 0 { exit_code::OK } else { exit_code::FINDINGS })
}
