//! `ctxlint show`: the contexts as the model saw them, request by request
//! or step by step, or one input's HTML triage page.

use crate::args::{ColorChoice, ShowArgs, ViewFormat};
use crate::load::load_path_texts;
use crate::output::{emit_masked, refuse_overwrite, use_color};
use crate::{restore_purge_delay, return_freed_memory_at_once};
use ctxlint::Error;
use ctxlint::error::exit_code;

/// `show --full` warns from this many entries (or requests) on: its output
/// grows with the square of a session's length.
const FULL_WARN_UNITS: usize = 2000;

pub(crate) fn cmd_show(a: ShowArgs, color: ColorChoice) -> ctxlint::Result<i32> {
    use ctxlint::show::{Mode, show_each};
    refuse_overwrite(std::slice::from_ref(&a.path), &[], &[("-o", &a.output_file)])?;
    let discover = ctxlint::inputs::DiscoverOptions {
        forced: a.input_format,
        not_inputs: a.output_file.iter().cloned().collect(),
        session: a.session.clone(),
        ..Default::default()
    };
    if a.html {
        return show_html(&a, &discover);
    }
    // Tables need only sizes, hashes and first lines (issue 14: memory); a selected step prints its texts.
    let texts = if a.request.is_some() {
        ctxlint::model::packed::Texts::AsLoaded
    } else {
        ctxlint::model::packed::Texts::Compact
    };
    // One input: freed load buffers go back at once (peak RSS, issue 14).
    return_freed_memory_at_once();
    let input = load_path_texts(&a.path, &discover, texts)?;
    // Loaded: from here on memory is freed and taken again per batch of
    // steps, which the default purge delay serves without page faults.
    restore_purge_delay();
    let color = use_color(color, a.output_file.is_some());
    let mode = if a.full { Mode::Full } else { Mode::Compact };
    if a.full && a.request.is_none() {
        let steps = match &input.body {
            ctxlint::model::Body::Transcript(t) => t.entries.len(),
            ctxlint::model::Body::Stream(s) => s.requests.len(),
        };
        if steps > FULL_WARN_UNITS {
            say!(
                "ctxlint: warning: --full lists every step's whole context: on {} ({steps} entries) that is a great deal of output; the default view lists what is new at each step, --step N one step whole",
                a.path
            );
        }
    }
    let json = a.output_format == ViewFormat::Json;
    // Each step is written as soon as it is built (issue 14: never the whole output held).
    let result = match &a.output_file {
        Some(p) => {
            // Into a temporary file beside FILE, renamed once every step is written.
            let f = ctxlint::safety::AtomicFile::create(p)?;
            let mut r = ctxlint::report::show::Renderer::new(std::io::BufWriter::new(f), json, color, p);
            show_each(&input, a.request, mode, &mut r)
                .and_then(|()| r.into_inner().into_inner().map_err(|e| Error::io(p, e.into_error()))?.commit())
        }
        None => {
            let out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut r = ctxlint::report::show::Renderer::new(out, json, color, "<stdout>");
            match show_each(&input, a.request, mode, &mut r) {
                // A closed pipe (`| head`) ends the output quietly.
                Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            }
        }
    };
    result.map(|_| exit_code::OK)
}

/// `show PATH --html`: the one input's triage page, its findings checked
/// with the configuration in force for it (as `check` would).
fn show_html(a: &ShowArgs, discover: &ctxlint::inputs::DiscoverOptions) -> ctxlint::Result<i32> {
    let mut plan = ctxlint::inputs::discover(std::slice::from_ref(&a.path), discover)?;
    if let Some(e) = plan.errors.pop().or_else(|| plan.unrecognised.pop()) {
        return Err(e);
    }
    match plan.jobs.len() {
        1 => {}
        0 => return Err(Error::Usage(format!("{}: no input of a known format found", a.path))),
        n => {
            return Err(Error::Usage(format!(
                "{}: holds {n} inputs; name one of them, or use `ctxlint check {} --output-format html`",
                a.path, a.path
            )));
        }
    }
    let configs = ctxlint::config::ConfigSet::new(ctxlint::config::Source::Discover);
    let (mut report, pages) = ctxlint::report::html::check_plan_pages(plan, &configs, &|_| {});
    report.findings.iter_mut().for_each(ctxlint::report::mask_finding);
    if let Some(f) = report.errors.first() {
        return Err(Error::Usage(format!("{}: {}", f.path, f.message())));
    }
    emit_masked(a.output_file.as_ref(), false, &mut |w| ctxlint::report::html::write(&report, &pages, w))?;
    Ok(exit_code::OK)
}
