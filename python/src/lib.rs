//! `ctxlint._ctxlint`: the native module of the Python package. Each
//! function returns the JSON document the command line prints with
//! `--output-format json` ([`ctxlint::api`]); `ctxlint/__init__.py` turns it
//! into typed objects. The GIL is released while ctxlint works, so threads
//! and Dask workers in one process check files in parallel.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    _ctxlint,
    CtxlintError,
    PyException,
    "A ctxlint error: usage, configuration or I/O (exit code 2 on the command line), with the command's message."
);
pyo3::create_exception!(_ctxlint, UsageError, CtxlintError, "A bad argument or option (the command's usage error).");

fn err(e: ctxlint::Error) -> PyErr {
    let msg = ctxlint::text::mask_secrets(&e.to_string());
    match e {
        ctxlint::Error::Usage(_) => UsageError::new_err(msg),
        _ => CtxlintError::new_err(msg),
    }
}

fn severity(s: Option<&str>) -> PyResult<Option<ctxlint::Severity>> {
    match s {
        None => Ok(None),
        Some("warning") => Ok(Some(ctxlint::Severity::Warning)),
        Some("error") => Ok(Some(ctxlint::Severity::Error)),
        Some(other) => Err(UsageError::new_err(format!("fail_on: `{other}` is not `warning` or `error`"))),
    }
}

#[allow(clippy::too_many_arguments)]
fn options(
    config: Option<String>,
    isolated: bool,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    input_format: Option<String>,
    fail_on: Option<&str>,
) -> PyResult<ctxlint::api::Options> {
    Ok(ctxlint::api::Options {
        config: config.map(Into::into),
        isolated,
        select: select.unwrap_or_default(),
        ignore: ignore.unwrap_or_default(),
        input_format,
        fail_on: severity(fail_on)?,
        ..Default::default()
    })
}

/// check_json(paths, config=None, isolated=False, select=None, ignore=None, input_format=None, fail_on=None) -> str
///
/// `ctxlint check PATHS --output-format json`: the JSON report.
#[pyfunction]
#[pyo3(signature = (paths, config=None, isolated=false, select=None, ignore=None, input_format=None, fail_on=None))]
#[allow(clippy::too_many_arguments)]
fn check_json(
    py: Python<'_>,
    paths: Vec<String>,
    config: Option<String>,
    isolated: bool,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    input_format: Option<String>,
    fail_on: Option<&str>,
) -> PyResult<String> {
    let o = options(config, isolated, select, ignore, input_format, fail_on)?;
    py.detach(|| ctxlint::api::check_paths(&paths, &o).map(|r| ctxlint::api::report_json(&r))).map_err(err)
}

/// check_memory_json(files, stream_name, config=None, isolated=False, select=None, ignore=None, input_format=None, fail_on=None) -> str
///
/// Checks `(name, bytes)` pairs held in memory as a folder holding exactly
/// them (request bodies of one format: one stream, in the given order).
#[pyfunction]
#[pyo3(signature = (files, stream_name, config=None, isolated=false, select=None, ignore=None, input_format=None, fail_on=None))]
#[allow(clippy::too_many_arguments)]
fn check_memory_json(
    py: Python<'_>,
    files: Vec<(String, Vec<u8>)>,
    stream_name: String,
    config: Option<String>,
    isolated: bool,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    input_format: Option<String>,
    fail_on: Option<&str>,
) -> PyResult<String> {
    let o = options(config, isolated, select, ignore, input_format, fail_on)?;
    py.detach(|| ctxlint::api::check_memory(files, &stream_name, &o).map(|r| ctxlint::api::report_json(&r)))
        .map_err(err)
}

/// fence_json(old, new, owned=None) -> str
///
/// `ctxlint fence OLD NEW --output-format json`.
#[pyfunction]
#[pyo3(signature = (old, new, owned=None))]
fn fence_json(py: Python<'_>, old: String, new: String, owned: Option<Vec<String>>) -> PyResult<String> {
    py.detach(|| ctxlint::api::fence_json(&old, &new, owned)).map_err(err)
}

/// main(argv) -> int
///
/// The `ctxlint` command line, run in this process with `argv` (the
/// program name first); returns its exit code. `--help`, `--version` and
/// argument errors print and give their exit code (0 or 2), as the binary
/// does; the process is never exited.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| ctxlint_cli::main_with_args(argv))
}

#[pymodule]
fn _ctxlint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CtxlintError", m.py().get_type::<CtxlintError>())?;
    m.add("UsageError", m.py().get_type::<UsageError>())?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(check_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_memory_json, m)?)?;
    m.add_function(wrap_pyfunction!(fence_json, m)?)?;
    Ok(())
}
