//! Loading the one input `diff` and `show` name, saying on standard error
//! which walked files were skipped.

/// Loads the one input PATH names, keeping the `texts` the command needs;
/// says on stderr which walked files were skipped.
pub(crate) fn load_path_texts(
    path: &str,
    discover: &ctxlint::inputs::DiscoverOptions,
    texts: ctxlint::model::packed::Texts,
) -> ctxlint::Result<ctxlint::model::Input> {
    let (input, skipped) = ctxlint::load_path_texts(path, discover, texts)?;
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().take(4).map(|s| s.path.as_str()).collect();
        let more = if skipped.len() > 4 { ", …" } else { "" };
        let why = ctxlint::report::full::skipped_reasons(&skipped);
        say!("ctxlint: {} file(s) in {path} skipped ({why}): {}{more}", skipped.len(), names.join(", "));
    }
    Ok(input)
}
