//! The built-in price table: USD per million tokens, per model family, for
//! uncached input, output, prompt-cache reads and prompt-cache writes.
//!
//! Sources (the providers' own price lists, as published when this table
//! was written, [`AS_OF`]): Anthropic "Pricing" (docs.claude.com, prompt
//! caching: a 5-minute cache write costs 1.25× the input price, a one-hour
//! write 2×, a read 0.1×); OpenAI "Pricing" (platform.openai.com/docs/pricing:
//! cached input; no charge for cache writes, so a write costs the input
//! price); Google "Gemini Developer API pricing" (ai.google.dev: context
//! caching price, prompts ≤ 200k tokens). Prices change: a `[prices]` table
//! in `ctxlint.toml` overrides or adds families (see [`Price`]). A model no
//! family matches has no cost (`cost_usd: null`), never a guessed one.

use serde::Deserialize;

/// When the built-in prices were read from the providers' price lists.
pub const AS_OF: &str = "2025-11";

/// Prices of one model family in USD per million tokens.
///
/// In `ctxlint.toml` (`[prices."<family>"]`, the family matched as a
/// case-insensitive substring of the model name, `.` read as `-`):
/// ```toml
/// [prices."claude-sonnet-4"]
/// input = 3.0
/// output = 15.0
/// cache-read = 0.30
/// cache-write = 3.75
/// ```
/// `cache-write` defaults to `input` (providers that do not charge writes)
/// and `cache-read` to `input`; `cache-write-1h` (Anthropic's one-hour
/// lifetime) to `cache-write`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Price {
    /// Uncached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Input read from the prompt cache.
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Input written to the prompt cache (five-minute lifetime for Anthropic).
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Input written to Anthropic's one-hour prompt cache.
    #[serde(default)]
    pub cache_write_1h: Option<f64>,
}

impl Price {
    const fn new(input: f64, output: f64, cache_read: f64, cache_write: f64, cache_write_1h: f64) -> Price {
        Price {
            input,
            output,
            cache_read: Some(cache_read),
            cache_write: Some(cache_write),
            cache_write_1h: Some(cache_write_1h),
        }
    }
    /// Cache-read price (the input price when none is given).
    pub fn read(&self) -> f64 {
        self.cache_read.unwrap_or(self.input)
    }
    /// Cache-write price (the input price when none is given).
    pub fn write(&self) -> f64 {
        self.cache_write.unwrap_or(self.input)
    }
    /// One-hour cache-write price (the cache-write price when none is given).
    pub fn write_1h(&self) -> f64 {
        self.cache_write_1h.unwrap_or_else(|| self.write())
    }
    /// The cost of one call's usage in USD.
    pub fn cost(&self, u: &crate::model::Usage) -> f64 {
        let w1h = u.cache_write_1h.min(u.cache_write) as f64;
        let w5m = u.cache_write as f64 - w1h;
        (u.input as f64 * self.input
            + u.output as f64 * self.output
            + u.cache_read as f64 * self.read()
            + w5m * self.write()
            + w1h * self.write_1h())
            / 1e6
    }
}

/// Anthropic: input, output, cache read (0.1×), 5-minute write (1.25×), 1-hour write (2×).
const fn anthropic(input: f64, output: f64) -> Price {
    Price::new(input, output, input / 10.0, input * 1.25, input * 2.0)
}

/// OpenAI and Google: input, output, cached input; writes cost the input price.
const fn cached(input: f64, output: f64, read: f64) -> Price {
    Price::new(input, output, read, input, input)
}

/// The built-in families, most specific first: (name, a word the model
/// must also hold — `claude` for Anthropic's families, so that
/// `my-sonnet-clone` is not priced as Sonnet —, price). The first that
/// matches the normalised model name (lowercase, `.` and `_` as `-`; see
/// [`matches`]) prices it.
pub const BUILT_IN: &[(&str, &str, Price)] = &[
    // Anthropic. Opus 4 (`claude-opus-4-20250514`) and 4.1; Opus 4.5 and
    // later at Opus 4.5's price.
    ("opus-4-1", "claude", anthropic(15.0, 75.0)),
    ("opus-4", "claude", anthropic(15.0, 75.0)),
    ("claude-3-opus", "", anthropic(15.0, 75.0)),
    ("opus", "claude", anthropic(5.0, 25.0)),
    ("sonnet", "claude", anthropic(3.0, 15.0)),
    ("haiku-4-5", "claude", anthropic(1.0, 5.0)),
    ("3-5-haiku", "claude", anthropic(0.8, 4.0)),
    ("claude-3-haiku", "", anthropic(0.25, 1.25)),
    // OpenAI.
    ("gpt-5-nano", "", cached(0.05, 0.40, 0.005)),
    ("gpt-5-mini", "", cached(0.25, 2.0, 0.025)),
    ("gpt-5-2", "", cached(1.75, 14.0, 0.175)),
    ("gpt-5-1", "", cached(1.25, 10.0, 0.125)),
    ("gpt-5", "", cached(1.25, 10.0, 0.125)),
    ("gpt-4-1-nano", "", cached(0.10, 0.40, 0.025)),
    ("gpt-4-1-mini", "", cached(0.40, 1.60, 0.10)),
    ("gpt-4-1", "", cached(2.0, 8.0, 0.50)),
    ("gpt-4o-mini", "", cached(0.15, 0.60, 0.075)),
    ("gpt-4o-2024-05-13", "", cached(5.0, 15.0, 5.0)),
    ("gpt-4o", "", cached(2.50, 10.0, 1.25)),
    ("o4-mini", "", cached(1.10, 4.40, 0.275)),
    ("o3-mini", "", cached(1.10, 4.40, 0.55)),
    ("o3", "", cached(2.0, 8.0, 0.50)),
    // Google.
    ("gemini-3-pro", "", cached(2.0, 12.0, 0.20)),
    ("gemini-2-5-pro", "", cached(1.25, 10.0, 0.125)),
    ("gemini-2-5-flash-lite", "", cached(0.10, 0.40, 0.01)),
    ("gemini-2-5-flash", "", cached(0.30, 2.50, 0.03)),
    ("gemini-2-0-flash-lite", "", cached(0.075, 0.30, 0.075)),
    ("gemini-2-0-flash", "", cached(0.10, 0.40, 0.025)),
    ("gemini-1-5-flash", "", cached(0.075, 0.30, 0.01875)),
    ("gemini-1-5-pro", "", cached(1.25, 5.0, 0.3125)),
];

/// Words that make a model another product than the family it names
/// (`gpt-5-pro`, `o3-pro`, `gpt-4o-audio-preview`, `gpt-5-codex-mini`):
/// after a family's name, one of them means the family does not price it.
const VARIANTS: &[&str] =
    &["pro", "mini", "nano", "lite", "turbo", "audio", "realtime", "search", "transcribe", "tts", "image", "deep"];

/// Whether `family` prices the normalised model name `model`: it occurs
/// there as whole words (after the start or a character that is not a letter
/// or digit; followed by the end or `-`); when the family ends with a version
/// number, the next word is not a minor version (`gpt-5` does not price
/// `gpt-5-3-codex`; a date such as `2025-08-07` is no minor version); and no
/// later word is one of [`VARIANTS`] — so a model the table does not know
/// has no price rather than its neighbour's.
pub fn matches(model: &str, family: &str) -> bool {
    let mut from = 0;
    while let Some(k) = model[from..].find(family) {
        let at = from + k;
        let end = at + family.len();
        from = at + 1;
        let before_ok = model[..at].chars().next_back().is_none_or(|c| !c.is_ascii_alphanumeric());
        let rest = &model[end..];
        if !before_ok || !(rest.is_empty() || rest.starts_with('-')) {
            continue;
        }
        let mut words = rest.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
        let minor = |w: &str| w.len() <= 2 && w.chars().all(|c| c.is_ascii_digit());
        if family.ends_with(|c: char| c.is_ascii_digit()) && words.clone().next().is_some_and(minor) {
            continue;
        }
        if words.any(|w| VARIANTS.contains(&w)) {
            continue;
        }
        return true;
    }
    false
}

/// A model name as the table matches it: lowercase, `.` and `_` as `-`.
fn normalise(model: &str) -> String {
    model.to_ascii_lowercase().replace(['.', '_'], "-")
}

/// The prices in force: the configuration's families (`[prices]`, matched
/// first, the longest name first; as substrings, without the built-in
/// table's word rules: a configured family prices what its name names) then
/// the built-in ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    /// Configured families: (normalised pattern, price).
    pub configured: Vec<(String, Price)>,
}

impl Prices {
    /// Prices with `configured` families (as written in `[prices]`) before the built-in ones.
    pub fn with(configured: impl IntoIterator<Item = (String, Price)>) -> Prices {
        let mut c: Vec<(String, Price)> = configured.into_iter().map(|(k, p)| (normalise(&k), p)).collect();
        // The longest pattern first, so that a specific family wins over a general one.
        c.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        Prices { configured: c }
    }

    /// The price of `model` (`provider/model` or a bare model name), or `None`
    /// when no family matches.
    pub fn of(&self, model: &str) -> Option<Price> {
        let m = normalise(model);
        self.configured
            .iter()
            .find(|(k, _)| m.contains(k.as_str()))
            .map(|p| p.1)
            .or_else(|| BUILT_IN.iter().find(|(k, also, _)| matches(&m, k) && m.contains(also)).map(|p| p.2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;

    #[test]
    fn families_match_the_most_specific_first() {
        let p = Prices::default();
        assert_eq!(p.of("claude-sonnet-4-20250514").map(|p| p.input), Some(3.0));
        assert_eq!(p.of("anthropic/claude-opus-4-5").map(|p| p.input), Some(5.0));
        assert_eq!(p.of("claude-opus-4-1-20250805").map(|p| p.input), Some(15.0));
        assert_eq!(p.of("claude-opus-4-20250514").map(|p| p.input), Some(15.0));
        assert_eq!(p.of("claude-opus-4-5-20251101").map(|p| p.input), Some(5.0));
        assert_eq!(p.of("claude-haiku-4-5-20251001").map(|p| p.input), Some(1.0));
        assert_eq!(p.of("claude-sonnet-4-6").map(|p| p.input), Some(3.0));
        assert_eq!(p.of("gpt-5.2-codex").map(|p| p.input), Some(1.75));
        assert_eq!(p.of("gpt-5-2025-08-07").map(|p| p.input), Some(1.25));
        // Models the table does not know have no price, not a neighbour's.
        for unknown in [
            "gpt-4-1106-preview",
            "gpt-5-pro",
            "o3-pro",
            "chatgpt-4o-latest",
            "gpt-5.3-codex",
            "gpt-5.4",
            "gpt-5-codex-mini",
            "gpt-4o-audio-preview",
        ] {
            assert_eq!(p.of(unknown), None, "{unknown}");
        }
        assert_eq!(p.of("gpt-4o-2024-05-13").map(|p| p.input), Some(5.0));
        assert_eq!(p.of("my-sonnet-clone"), None);
        assert_eq!(p.of("us.anthropic.claude-sonnet-4-6").map(|p| p.input), Some(3.0));
        assert_eq!(p.of("us.anthropic.claude-opus-4-6-v1").map(|p| p.input), Some(5.0));
        assert_eq!(p.of("gpt-5.1-codex").map(|p| p.input), Some(1.25));
        assert_eq!(p.of("gpt-5-mini-2025-08-07").map(|p| p.input), Some(0.25));
        assert_eq!(p.of("gemini-2.5-flash-lite").map(|p| p.input), Some(0.10));
        assert_eq!(p.of("models/gemini-2.5-flash").map(|p| p.input), Some(0.30));
        assert_eq!(p.of("coder-model"), None);
        let c = Prices::with([(
            "coder".to_string(),
            Price { input: 1.0, output: 2.0, cache_read: None, cache_write: None, cache_write_1h: None },
        )]);
        assert_eq!(c.of("coder-model").map(|p| p.output), Some(2.0));
        assert_eq!(c.of("claude-3-5-haiku").map(|p| p.input), Some(0.8));
    }

    #[test]
    fn a_call_costs_each_kind_of_token_at_its_price() {
        let p = Prices::default().of("claude-sonnet-4").unwrap();
        // ccusage's figure for a real Claude Code session with these totals: $2.3932152.
        let u = Usage { input: 818, output: 51_933, cache_read: 3_647_854, cache_write: 137_976, cache_write_1h: 0 };
        assert!((p.cost(&u) - 2.3932152).abs() < 1e-9, "{}", p.cost(&u));
        let one_hour = Usage { cache_write: 1_000_000, cache_write_1h: 1_000_000, ..Usage::default() };
        assert!((p.cost(&one_hour) - 6.0).abs() < 1e-9);
    }
}
