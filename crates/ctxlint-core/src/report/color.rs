//! Whether to colour human output: the one place that decides, from
//! `--color`, the environment (`NO_COLOR`, `FORCE_COLOR`, `CLICOLOR_FORCE`,
//! `CLICOLOR`, `TERM`) and whether the output is a terminal.

/// The `--color` choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorChoice {
    /// Decide from the environment and the terminal.
    Auto,
    /// Always colour (the environment is not consulted).
    Always,
    /// Never colour.
    Never,
}

/// Decides whether to colour, reading the environment through `env`.
///
/// `--color always|never` wins. With `auto`, in this order: `NO_COLOR`
/// (non-empty) means no colour; `FORCE_COLOR` (non-empty, not `0`) or
/// `CLICOLOR_FORCE` (non-empty, not `0`) means colour; `CLICOLOR=0` or
/// `TERM=dumb` means no colour; otherwise colour only when the output is a
/// terminal.
pub fn decide(choice: ColorChoice, to_terminal: bool, env: &dyn Fn(&str) -> Option<String>) -> bool {
    match choice {
        ColorChoice::Always => return true,
        ColorChoice::Never => return false,
        ColorChoice::Auto => {}
    }
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    if set("NO_COLOR").is_some() {
        return false;
    }
    if set("FORCE_COLOR").is_some_and(|v| v != "0") || set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
        return true;
    }
    if set("CLICOLOR").is_some_and(|v| v == "0") || set("TERM").is_some_and(|v| v == "dumb") {
        return false;
    }
    to_terminal
}

/// [`decide`] with the process environment.
pub fn from_env(choice: ColorChoice, to_terminal: bool) -> bool {
    decide(choice, to_terminal, &|k| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)], choice: ColorChoice, tty: bool) -> bool {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        decide(choice, tty, &|k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn flags_win() {
        assert!(with(&[("NO_COLOR", "1")], ColorChoice::Always, false));
        assert!(!with(&[("FORCE_COLOR", "1")], ColorChoice::Never, true));
    }

    #[test]
    fn auto_follows_the_terminal() {
        assert!(with(&[], ColorChoice::Auto, true));
        assert!(!with(&[], ColorChoice::Auto, false));
    }

    #[test]
    fn environment() {
        use ColorChoice::Auto;
        assert!(!with(&[("NO_COLOR", "1")], Auto, true));
        assert!(with(&[("NO_COLOR", "")], Auto, true), "an empty NO_COLOR is unset");
        assert!(!with(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")], Auto, true));
        assert!(with(&[("FORCE_COLOR", "1")], Auto, false));
        assert!(with(&[("FORCE_COLOR", "true")], Auto, false));
        assert!(!with(&[("FORCE_COLOR", "0")], Auto, false));
        assert!(!with(&[("FORCE_COLOR", "")], Auto, false));
        assert!(with(&[("CLICOLOR_FORCE", "1")], Auto, false));
        assert!(!with(&[("CLICOLOR_FORCE", "0")], Auto, false));
        assert!(!with(&[("CLICOLOR", "0")], Auto, true));
        assert!(with(&[("CLICOLOR", "1")], Auto, true));
        assert!(!with(&[("TERM", "dumb")], Auto, true));
        assert!(with(&[("TERM", "xterm-256color")], Auto, true));
        assert!(with(&[("TERM", "dumb"), ("FORCE_COLOR", "1")], Auto, true));
    }
}
