//! Where the commands write: a report to `-o FILE` (atomically) or to
//! standard output, masked on the way, coloured or not; and the refusal to
//! write over an input.

use crate::args::ColorChoice;
use ctxlint::Error;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Whether to colour standard output: decided by `ctxlint::report::color::decide`.
/// A report written to a file (`-o`) is coloured only with `--color always`.
pub(crate) fn use_color(c: ColorChoice, to_file: bool) -> bool {
    use ctxlint::report::color::{self, ColorChoice as C};
    if to_file {
        return c == ColorChoice::Always;
    }
    let choice = match c {
        ColorChoice::Auto => C::Auto,
        ColorChoice::Always => C::Always,
        ColorChoice::Never => C::Never,
    };
    color::from_env(choice, std::io::stdout().is_terminal())
}

/// Refuses (exit 2) an output that is one of the inputs, before anything is
/// read or written (README, "What ctxlint promises"); one inside a folder
/// being checked is allowed and left out of the inputs (docs/spec.md §4). `inputs`
/// are the paths to check, `extra` the files read besides them (`--config`,
/// `--baseline`).
pub(crate) fn refuse_overwrite(
    inputs: &[String],
    extra: &[&Option<PathBuf>],
    outputs: &[(&str, &Option<PathBuf>)],
) -> ctxlint::Result<()> {
    let mut ins: Vec<&Path> = inputs.iter().map(Path::new).collect();
    ins.extend(extra.iter().filter_map(|p| p.as_deref()));
    let outs: Vec<(&str, &Path)> = outputs.iter().filter_map(|(f, p)| p.as_deref().map(|p| (*f, p))).collect();
    ctxlint::safety::refuse_outputs_on_inputs(&ins, &outs, ctxlint::safety::Beside::Allowed)?;
    refuse_walked_inputs(inputs, &outs)
}

/// Refuses an output that is an existing file of an input format inside a
/// folder being checked (or a link to one): a walk of that folder would
/// check it, so it is an input, which a report must not replace. (Leaving
/// the output out of the inputs, as a report inside a checked folder is,
/// wrote a report over a cassette: `check . -o many.yaml`.) A report
/// ctxlint wrote, or any file of no input format, may be replaced.
fn refuse_walked_inputs(inputs: &[String], outs: &[(&str, &Path)]) -> ctxlint::Result<()> {
    for &(flag, out) in outs {
        let o = ctxlint::safety::resolve(out);
        if !o.is_file() {
            continue;
        }
        let Some(dir) =
            inputs.iter().map(Path::new).map(ctxlint::safety::resolve).find(|i| i.is_dir() && o.starts_with(i))
        else {
            continue;
        };
        let src = ctxlint::source::SourceRef::file(o.to_string_lossy().into_owned(), o.clone());
        if let Ok(Some(format)) = ctxlint::formats::detect(&src) {
            return Err(ctxlint::Error::Usage(format!(
                "{flag} {}: is an input of the folder being checked, {} (a `{format}` file); ctxlint never writes to its inputs: choose another path",
                ctxlint::escape::shown(out),
                ctxlint::escape::shown(&dir)
            )));
        }
    }
    Ok(())
}

/// `-o -` is standard output, as a PATH of `-` is standard input (as in
/// ripgrep and curl): no file named `-` is written.
pub(crate) fn dash_is_stdout(o: Option<PathBuf>) -> Option<PathBuf> {
    o.filter(|p| p.as_os_str() != "-")
}

/// The last line of defence against a leaked secret in a report: every line
/// masked ([`ctxlint::text::mask_output`]) before it is written.
pub(crate) fn mask_output(s: &str) -> std::borrow::Cow<'_, str> {
    ctxlint::text::mask_output(s)
}

/// [`write_out`] for text that quotes paths and values from the inputs
/// (`--show-files`, `--show-settings`): key-like strings masked, control
/// and bidirectional characters escaped (line breaks and tabs kept).
pub(crate) fn write_out_masked(s: &str) {
    write_out(&ctxlint::escape::escape_controls_but(&mask_output(s), &['\n', '\t']));
}

pub(crate) fn write_out(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// Writes a report to `-o FILE` (atomically: a temporary file beside it,
/// renamed) or to standard output.
pub(crate) fn emit(text: &str, file: Option<&PathBuf>) -> ctxlint::Result<()> {
    emit_with(file, &mut |w| w.write_all(text.as_bytes()))
}

/// Runs a renderer into `-o FILE` (atomically: a temporary file beside it,
/// renamed once the whole report is written) or into standard output, as it
/// writes: masked line by line on the way ([`ctxlint::text::MaskLines`]),
/// buffered, never held whole. A closed standard output (a pipe into `head`)
/// ends the report quietly; any other write error is an error.
fn emit_with(
    file: Option<&PathBuf>,
    render: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> ctxlint::Result<()> {
    emit_masked(file, true, render)
}

/// [`emit_with`]; `mask_again: false` skips the last masking pass over the
/// written text, for the HTML report: every text in it was masked where it
/// was taken (findings by `mask_finding` and `finding_value`, contexts by
/// `show`), and a second pass over a report of tens of megabytes of
/// JSON-escaped text would cost more than checking the input.
pub(crate) fn emit_masked(
    file: Option<&PathBuf>,
    mask_again: bool,
    render: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> ctxlint::Result<()> {
    use ctxlint::text::MaskLines;
    if !mask_again {
        const BUF: usize = 256 << 10;
        return match file {
            Some(p) => {
                let mut w = std::io::BufWriter::with_capacity(BUF, ctxlint::safety::AtomicFile::create(p)?);
                match render(&mut w).and_then(|()| w.into_inner().map_err(|e| e.into_error())) {
                    Ok(f) => f.commit(),
                    Err(e) => Err(Error::io(p, e)),
                }
            }
            None => {
                let mut w = std::io::BufWriter::with_capacity(BUF, std::io::stdout().lock());
                match render(&mut w).and_then(|()| w.flush()) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    Err(e) => Err(Error::io("standard output", e)),
                }
            }
        };
    }
    const BUF: usize = 256 << 10;
    match file {
        Some(p) => {
            let mut w = MaskLines::new(std::io::BufWriter::with_capacity(BUF, ctxlint::safety::AtomicFile::create(p)?));
            let written =
                render(&mut w).and_then(|()| w.finish()).and_then(|b| b.into_inner().map_err(|e| e.into_error()));
            match written {
                Ok(f) => f.commit(),
                Err(e) => Err(Error::io(p, e)),
            }
        }
        None => {
            let mut w = MaskLines::new(std::io::BufWriter::with_capacity(BUF, std::io::stdout().lock()));
            match render(&mut w).and_then(|()| w.finish()).and_then(|mut b| b.flush()) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(Error::io("standard output", e)),
            }
        }
    }
}
