//! Text helpers: safe prefixes, excerpts with secrets masked, line and
//! paragraph splitting.

use regex::Regex;
use std::sync::LazyLock;

/// The longest prefix of `s` of at most `max` bytes that ends on a char boundary.
pub fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// API keys and tokens by their shape: OpenAI/Anthropic `sk-…`, AWS `AKIA…`,
/// bearer tokens, GitHub, Slack and Google keys, JWTs. One alternation with no
/// groups, shared by [`mask_secrets`] and the `repro` anonymiser.
pub const KEY_PATTERN: &str = concat!(
    r"\b(?:sk|rk|pk)-(?:[A-Za-z0-9_]+-)*[A-Za-z0-9_\-]{16,}",
    r"|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",
    r"|(?i:bearer)\s+[A-Za-z0-9\-._~+/]{12,}=*",
    r"|\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}",
    r"|\bAIza[0-9A-Za-z\-_]{35}",
    r"|\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
);

static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?:{KEY_PATTERN})|(?P<kv>(?i:api[_-]?key|secret|password|passwd|token|authorization)\s*[:=]\s*[\x22']?)(?P<kvv>[^\s\x22',;]{{8,}})"
    ))
    .expect("secret regex")
});

/// Replaces key-like strings (`sk-…`, `AKIA…`, bearer tokens, GitHub/Slack/Google
/// keys, JWTs, `api_key=…`) by a mask that keeps only their first 4 characters.
pub fn mask_secrets(s: &str) -> String {
    SECRET
        .replace_all(s, |c: &regex::Captures| {
            if let (Some(k), Some(v)) = (c.name("kv"), c.name("kvv")) {
                format!("{}{}", k.as_str(), mask_one(v.as_str()))
            } else {
                mask_one(&c[0])
            }
        })
        .into_owned()
}

fn mask_one(s: &str) -> String {
    let keep: String = s.chars().take(4).collect();
    format!("{keep}****")
}

/// An excerpt for display: secrets masked, control characters made visible,
/// at most `max_chars` characters (an ellipsis marks the cut).
pub fn excerpt(s: &str, max_chars: usize) -> String {
    let masked = mask_secrets(s);
    let mut out = String::new();
    for (n, c) in masked.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("⏎ "),
            '\r' => out.push_str("\\r"),
            '\t' => out.push(' '),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Paragraphs of a text: runs of lines separated by blank lines, trimmed.
pub fn paragraphs(s: &str) -> impl Iterator<Item = &str> {
    s.split("\n\n").flat_map(|p| p.split("\r\n\r\n")).map(str::trim).filter(|p| !p.is_empty())
}

/// Lines of a text, trimmed of trailing `\r` and surrounding spaces.
pub fn lines(s: &str) -> impl Iterator<Item = &str> {
    s.lines().map(str::trim).filter(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_common_keys() {
        let s = "key sk-ant-api03-abcdefghijklmnopqrstuvwx and AKIAABCDEFGHIJKLMNOP and Bearer abcdefghijklmnop123";
        let m = mask_secrets(s);
        assert!(!m.contains("abcdefghijklmnopqrstuvwx"), "{m}");
        assert!(!m.contains("ABCDEFGHIJKLMNOP"), "{m}");
        assert!(!m.contains("abcdefghijklmnop123"), "{m}");
        assert!(m.contains("sk-a****"), "{m}");
    }

    #[test]
    fn masks_key_value_secrets() {
        let m = mask_secrets("api_key=0123456789abcdef");
        assert_eq!(m, "api_key=0123****");
    }

    #[test]
    fn prefix_respects_char_boundaries() {
        assert_eq!(prefix("héllo", 2), "h");
    }

    #[test]
    fn excerpt_truncates() {
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
