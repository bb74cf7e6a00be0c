//! What the findings of a report cost, and what the inputs' recorded usage
//! says, summed over the run ([`Totals`]): the human summary's impact lines,
//! the JSON `summary`'s `tokens`, `cost_usd`, `unexplained_cache_breaks`, …
//! (docs/spec.md §4), and one finding's impact in words.

use crate::check_report::CheckReport;
use crate::impact::{CacheBreak, Impact};
use serde_json::{Value, json};

/// The run's totals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Findings with an impact.
    pub findings: usize,
    /// Tokens attributable to findings ([`crate::impact::totals`]).
    pub tokens: u64,
    /// Estimated cost attributable to findings, in USD (`None`: no finding has a price).
    pub cost_usd: Option<f64>,
    /// Findings with tokens whose model has no price (not in `cost_usd`).
    pub unpriced_findings: usize,
    /// Findings whose impact the recorded usage could judge, and of them those it confirms.
    pub judged: usize,
    /// See [`Totals::judged`].
    pub confirmed: usize,
    /// Inputs with recorded usage.
    pub inputs_with_usage: usize,
    /// Calls with recorded usage.
    pub calls: usize,
    /// Input tokens read from the cache, and all input tokens, over those calls.
    pub cache_read: u64,
    /// See [`Totals::cache_read`].
    pub input_all: u64,
    /// Estimated cost of the recorded calls whose model has a price, in USD (`None`: none has).
    pub recorded_cost_usd: Option<f64>,
    /// Recorded calls whose model has no price (not in `recorded_cost_usd`).
    pub unpriced_calls: usize,
    /// Cache breaks no finding explains: (path, the break, whether the input is a transcript).
    pub breaks: Vec<(String, CacheBreak, bool)>,
}

impl Totals {
    /// The totals of a report.
    pub fn of(r: &CheckReport) -> Totals {
        let (tokens, cost_usd, confirmed, judged) = crate::impact::totals(&r.findings);
        let mut t = Totals {
            findings: r.findings.iter().filter(|f| f.impact.is_some()).count(),
            unpriced_findings: r
                .findings
                .iter()
                .filter(|f| f.impact.as_ref().is_some_and(|i| i.tokens > 0 && i.cost_usd.is_none()))
                .count(),
            tokens,
            cost_usd,
            judged,
            confirmed,
            ..Totals::default()
        };
        for f in &r.files {
            let Some(u) = &f.usage else { continue };
            t.inputs_with_usage += 1;
            t.calls += u.calls;
            t.unpriced_calls += u.unpriced_calls;
            t.cache_read += u.cache_read;
            t.input_all += u.input + u.cache_read + u.cache_write;
            if let Some(c) = u.cost_usd {
                *t.recorded_cost_usd.get_or_insert(0.0) += c;
            }
            let transcript = f.requests == 0;
            t.breaks.extend(u.unexplained_cache_breaks.iter().map(|b| (f.path.clone(), b.clone(), transcript)));
        }
        t
    }

    /// The cache-read ratio over the recorded calls (`None`: no input recorded).
    pub fn cache_read_ratio(&self) -> Option<f64> {
        (self.input_all > 0).then(|| self.cache_read as f64 / self.input_all as f64)
    }

    /// Whether there is anything to say (an impact or recorded usage).
    pub fn any(&self) -> bool {
        self.findings > 0 || self.inputs_with_usage > 0
    }

    /// The JSON `summary` fields: `tokens`, `cost_usd`, `confirmed`,
    /// `judged`, `unexplained_cache_breaks` (a count), `recorded_cost_usd`,
    /// `unpriced_calls` and `cache_read_ratio`.
    pub fn json_fields(&self) -> serde_json::Map<String, Value> {
        let v = json!({
            "tokens": self.tokens,
            "cost_usd": self.cost_usd.map(round),
            "confirmed": self.confirmed,
            "judged": self.judged,
            "unexplained_cache_breaks": self.breaks.len(),
            "recorded_cost_usd": self.recorded_cost_usd.map(round),
            "unpriced_calls": self.unpriced_calls,
            "cache_read_ratio": self.cache_read_ratio().map(|x| (x * 10_000.0).round() / 10_000.0),
        });
        match v {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        }
    }

    /// The human summary's lines (none when there is nothing to say).
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.findings > 0 {
            let judged = match self.judged {
                0 => String::new(),
                n => format!("; recorded usage confirms {} of {n} judged", self.confirmed),
            };
            // (A price for some findings only is said to be theirs: "~$0.00"
            // beside tokens whose model has no price read as a known cost.)
            let (cost, partly) = match (self.cost_usd, self.unpriced_findings) {
                (Some(c), 0) => (format!(", ~{}", usd(c)), String::new()),
                (Some(c), n) => (
                    String::new(),
                    format!(
                        " (~{} for those of a priced model; {n} finding{} of a model with no price)",
                        usd(c),
                        if n == 1 { "" } else { "s" }
                    ),
                ),
                (None, _) => (String::new(), String::new()),
            };
            out.push(format!(
                "Impact: ~{} tokens{cost} attributable to {} finding{}{partly}{judged}.",
                thousands(self.tokens),
                self.findings,
                if self.findings == 1 { "" } else { "s" }
            ));
        }
        if self.inputs_with_usage > 0 {
            // The price table's figure, and how many calls it leaves out.
            let unpriced = match self.unpriced_calls {
                0 => String::new(),
                n if n == self.calls => String::new(),
                n => format!(
                    " ({} call{} of models without a price not counted)",
                    thousands(n as u64),
                    if n == 1 { "" } else { "s" }
                ),
            };
            let cost = match self.recorded_cost_usd {
                Some(c) => format!(", ~{} estimated{unpriced}", usd(c)),
                None => ", no model with a price".to_string(),
            };
            let ratio = self
                .cache_read_ratio()
                .map(|r| format!("; cache read {:.1} % of input", r * 100.0))
                .unwrap_or_default();
            out.push(format!(
                "Recorded usage: {} call{} in {} input{}{cost}{ratio}.",
                thousands(self.calls as u64),
                if self.calls == 1 { "" } else { "s" },
                self.inputs_with_usage,
                if self.inputs_with_usage == 1 { "" } else { "s" },
            ));
        }
        if !self.breaks.is_empty() {
            out.push(format!(
                "Unexplained cache breaks: {} (the cache read fell within the cache lifetime and no finding explains it; a place to look):",
                self.breaks.len()
            ));
            for (path, b, transcript) in self.breaks.iter().take(20) {
                out.push(format!("  {}", break_line(path, b, *transcript)));
            }
            if self.breaks.len() > 20 {
                out.push(format!("  … and {} more (see the JSON report)", self.breaks.len() - 20));
            }
        }
        out
    }
}

/// One unexplained cache break in words: `path:line: step k: 45,210 → 0
/// cached tokens 40 s after step j (model)` (`request` for a stream).
pub fn break_line(path: &str, b: &CacheBreak, transcript: bool) -> String {
    let unit = if transcript { "step" } else { "request" };
    let at = b.line.map(|l| format!("{path}:{l}")).unwrap_or_else(|| path.to_string());
    let model = b.model.as_deref().map(|m| format!(" ({})", crate::escape::escape_controls(m))).unwrap_or_default();
    format!(
        "{}: {unit} {}: {} → {} cached tokens {} s after {unit} {}{model}",
        crate::escape::escape_controls(&at),
        b.request,
        thousands(b.cached_before),
        thousands(b.cached_after),
        thousands(b.seconds as u64),
        b.previous
    )
}

/// One finding's impact in words, for the human output:
/// `~17 tokens (estimated), ~$0.00005; recorded usage confirms it (cached 47,540 → 53,678)`.
pub fn impact_words(i: &Impact) -> String {
    let tokens = format!("~{} tokens{}", thousands(i.tokens), if i.estimated { " (estimated)" } else { "" });
    let cost = i.cost_usd.map(|c| format!(", ~{}", usd(c))).unwrap_or_default();
    // The cached tokens before and after say something of a cache break
    // (taken from the usage, not estimated); of an added copy, the prompt's growth does.
    let cached = match (i.cached_before, i.cached_after, i.estimated) {
        (Some(b), Some(a), false) => format!(" (cached {} → {})", thousands(b), thousands(a)),
        _ => String::new(),
    };
    let verdict = match i.confirmed {
        Some(true) => format!("; recorded usage confirms it{cached}"),
        Some(false) => format!("; recorded usage does not confirm it{cached}"),
        None => String::new(),
    };
    format!("{tokens}{cost}{verdict}")
}

/// USD to 6 decimal places (JSON).
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// USD in words: `$12.34`, or to six decimal places below a cent (`$0.000051`),
/// rounded as the JSON report rounds (half away from zero).
pub fn usd(x: f64) -> String {
    let r = if x < 0.01 { (x * 1e6).round() / 1e6 } else { (x * 100.0).round() / 100.0 };
    if x > 0.0 && r == 0.0 {
        return "<$0.000001".into();
    }
    let x = r;
    if x >= 0.01 || x == 0.0 {
        format!("${x:.2}")
    } else {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0');
        if s == "0." { "<$0.000001".into() } else { format!("${s}") }
    }
}

/// An integer with thousands separators (`45,210`).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(usd(126.957), "$126.96");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(0.000051), "$0.000051");
        assert_eq!(usd(0.0000001), "<$0.000001");
    }
}
