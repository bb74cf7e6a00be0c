//! `ctxlint diff`: the structural diff of two requests.

use crate::args::{ColorChoice, DiffArgs, ViewFormat};
use crate::load::load_path_texts;
use crate::output::{emit, refuse_overwrite, use_color};
use ctxlint::Error;
use ctxlint::error::exit_code;

pub(crate) fn cmd_diff(a: DiffArgs, color: ColorChoice) -> ctxlint::Result<i32> {
    use ctxlint::diff::{self, Verdict};
    let named: Vec<String> = std::iter::once(a.a.clone()).chain(a.b.clone()).collect();
    if a.a == "-" && a.b.as_deref() == Some("-") {
        // Standard input can be read once: the second `-` would be empty.
        return Err(Error::Usage(
            "standard input (`-`) is named twice: give one of the two requests as a file, or pick two requests of one stream with `ctxlint diff - --request I J`".into(),
        ));
    }
    refuse_overwrite(&named, &[], &[("-o", &a.output_file)])?;
    let discover = ctxlint::inputs::DiscoverOptions {
        forced: a.input_format,
        not_inputs: a.output_file.iter().cloned().collect(),
        ..Default::default()
    };
    // A large body's long assistant and tool texts are kept as their first
    // bytes: elements compare by hash, and one shown is read again whole.
    let texts = ctxlint::model::packed::Texts::Prefixes;
    let load = |p: &str| load_path_texts(p, &discover, texts).map_err(|e| store_error(p).unwrap_or(e));
    // Freed load buffers (a detection's document, an element's parse) go
    // back at once while the requests load (peak RSS, issue 35), as `show` does.
    crate::return_freed_memory_at_once();
    let first = load(&a.a)?;
    let second = a.b.as_deref().map(load).transpose()?;
    crate::restore_purge_delay();
    let (ra, rb) = match (&second, a.request.as_deref()) {
        (Some(s), Some(&[i, j])) => (diff::pick(&first, i)?, diff::pick(s, j)?),
        (Some(s), _) => (diff::only(&first)?, diff::only(s)?),
        (None, Some(&[i, j])) => (diff::pick(&first, i)?, diff::pick(&first, j)?),
        (None, _) => {
            let n = diff::requests(&first)?.len();
            return Err(Error::Usage(format!(
                "{}: give a second request file (`ctxlint diff A B`), or pick two requests of this stream with `--request I J` (it holds {n} request{})",
                a.a,
                if n == 1 { "" } else { "s" }
            )));
        }
    };
    let mut d = diff::diff(ra, rb);
    if let (None, ctxlint::model::Body::Stream(s)) = (&second, &first.body) {
        d.lanes = diff::lanes_of(s, &ctxlint::conversation::lanes(s), ra, rb);
    }
    let text = match a.output_format {
        ViewFormat::Full => ctxlint::report::diff::full(&d, use_color(color, a.output_file.is_some())),
        ViewFormat::Json => ctxlint::report::diff::json(&d),
    };
    emit(&text, a.output_file.as_ref())?;
    Ok(if d.verdict == Verdict::Rewrite { exit_code::FINDINGS } else { exit_code::OK })
}

/// The error for a store of several transcripts (an OpenCode database), which
/// loading asks a `--session` of, which `diff` has no use for: what it is, and
/// what to use. Detected only once loading has failed (detection of a large
/// document costs a parse).
fn store_error(p: &str) -> Option<Error> {
    if !std::path::Path::new(p).is_file() {
        return None;
    }
    let src = ctxlint::source::SourceRef::file(p.to_string(), p);
    let f = ctxlint::formats::detect(&src).ok()??;
    ctxlint::formats::descriptor(f)?.store?;
    let p = ctxlint::escape::escape_controls(p);
    Some(Error::Usage(format!(
        "{p}: is a {f} store of transcripts (one per session), not recorded requests; `ctxlint diff` compares request bodies, cassettes, exchange logs and history snapshots (try `ctxlint show {p} --session ID`: `ctxlint check {p} --output-format json` lists the sessions)"
    )))
}
