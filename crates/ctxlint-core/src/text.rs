//! Text helpers: safe prefixes, excerpts with secrets masked, line and
//! paragraph splitting.

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// Maximum characters of an excerpt in any output.
pub const EXCERPT_CHARS: usize = 160;
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

/// [`KEY_PATTERN`] but its last shape, credentials in a URL ([`URL_CREDENTIALS`]).
/// Word boundaries are ASCII ones (`(?-u:\b)`; a key is ASCII): with a
/// Unicode `\b` the regex engine leaves its DFAs for its slowest search on
/// any text that holds one non-ASCII character (`show` of a real 1 MB tool
/// result holding a `’` took 20 times as long as without it).
macro_rules! key_shapes {
    () => { concat!(
    // Anthropic (gitleaks anthropic-api-key, anthropic-admin-api-key), OpenAI
    // project and service-account keys (openai-api-key), OpenRouter `sk-or-v1-`.
    r"(?:sk-ant-(?:api|admin|oat|sid)\d{2}|sk-(?:proj|svcacct)|sk-or-v1)-[A-Za-z0-9_\-]{16,}",
    // Any other `sk-`/`rk-`/`pk-` key (OpenAI, DeepSeek, …), at a word start.
    r"|(?-u:\b)(?:sk|rk|pk)-(?:[A-Za-z0-9_]+-)*[A-Za-z0-9_\-]{16,}",
    // Stripe secret and restricted keys (gitleaks stripe-access-token).
    r"|(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}",
    // AWS access key ids (gitleaks aws-access-token). `AKIA` starts no word:
    // its key is masked even with more characters glued after it.
    r"|(?:A3T[A-Z0-9]|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)|AKIA[A-Z0-9]{16}[A-Za-z0-9]*",
    // Bearer tokens: `Bearer x`, `Bearer: x`, `bearer=x` (RFC 6750 §2.1).
    r"|(?i:bearer)(?:\s*[:=]\s*|\s+)[A-Za-z0-9\-._~+/]{12,}=*",
    // GitHub tokens (gitleaks github-pat, github-fine-grained-pat, github-oauth, github-app-token).
    r"|(?-u:\b)(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",
    r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}",
    // GitLab tokens (gitleaks gitlab-pat, gitlab-deploy-token, gitlab-runner-authentication-token, …).
    r"|gl(?:pat|dt|rt|ptt|soat|cbt|imt|agent|oas)-[A-Za-z0-9_\-]{20,}",
    // Slack bot, user, app, configuration and refresh tokens (gitleaks
    // slack-bot-token, slack-user-token, slack-app-token, slack-config-access-token,
    // slack-config-refresh-token) and webhooks (slack-webhook-url).
    r"|xox[abprse](?:\.xox[abp])?-[A-Za-z0-9\-]{10,}",
    r"|xapp-\d-[A-Za-z0-9\-]{10,}",
    r"|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{16,}",
    // Google API keys (gitleaks gcp-api-key), OAuth access tokens `ya29.` and
    // OAuth client secrets `GOCSPX-` (Google Identity docs).
    r"|AIza[0-9A-Za-z\-_]{35}",
    r"|ya29\.[0-9A-Za-z_\-]{20,}",
    r"|GOCSPX-[0-9A-Za-z_\-]{20,}",
    // Hugging Face (gitleaks huggingface-access-token), npm (npm-access-token),
    // SendGrid (sendgrid-api-token), Groq API keys (`gsk_`, console.groq.com).
    r"|hf_[A-Za-z0-9]{30,}",
    r"|npm_[A-Za-z0-9]{36}",
    r"|SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",
    r"|gsk_[A-Za-z0-9]{20,}",
    // xAI (`xai-`, console.x.ai) and Perplexity (`pplx-`) API keys; DigitalOcean
    // tokens (gitleaks digitalocean-pat, -access-token, -refresh-token);
    // Telegram bot tokens (gitleaks telegram-bot-api-token).
    r"|xai-[A-Za-z0-9]{20,}|pplx-[A-Za-z0-9]{20,}|do[opr]_v1_[a-f0-9]{64}",
    r"|(?-u:\b)\d{8,10}:AA[0-9A-Za-z_\-]{33}",
    // JWTs (gitleaks jwt): replaced whole, header and payload too.
    r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
    // PEM private-key blocks (gitleaks private-key), also cut off before their end line.
    // (`\x20` for a space: the anonymiser compiles this pattern in verbose mode.)
    // A block cut off ends at the end of the text, or at a `"` or `<` (the
    // end of the JSON string or XML element it sits in in a report line: a
    // key's base64 has neither; the character itself is not masked).
    r"|-----BEGIN[A-Z0-9\x20]{0,40}PRIVATE\x20KEY(?:\x20BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9\x20]{0,40}PRIVATE\x20KEY(?:\x20BLOCK)?-----|[\x22<]|$)",
    ) };
}

/// [`URL_CREDENTIALS`] as a literal, for `concat!`.
macro_rules! url_credentials {
    () => {
        r"(?i:https?|s?ftp|wss?|git|ssh|rediss?|postgres(?:ql)?|mysql|mongodb(?:\+srv)?|amqps?|smtps?|ldaps?)://[^\s/:@\x22'<>\\]{0,128}:[^\s/@\x22'<>\\]{1,256}@"
    };
}

/// The last shape of [`KEY_PATTERN`]: credentials in a URL's user info
/// (RFC 3986 §3.2.1: `scheme://user:password@host`). Its bounded repetitions
/// of Unicode classes make the largest part of the compiled pattern (5 ms and
/// 2.5 MB), so [`mask_secrets`] compiles it apart, and only for a text that
/// holds `://`.
pub const URL_CREDENTIALS: &str = url_credentials!();

/// API keys and tokens by their shape. One alternation with no groups, shared
/// by [`mask_secrets`] and the `repro` anonymiser. Each shape names its
/// source; where a shape follows the gitleaks rule set
/// (<https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml>,
/// MIT) the rule id is given. Shapes whose prefix never starts an ordinary
/// word match anywhere (after a letter, a digit or `_` too, as in `\nsk-ant-…`
/// inside a raw JSON line); the generic ones only at a word start. The last
/// shape is [`URL_CREDENTIALS`].
pub const KEY_PATTERN: &str = concat!(key_shapes!(), "|", url_credentials!());

/// Key-value secrets (`api_key=…`, `"password": "…"`, `aws_secret_access_key = …`,
/// Azure `AccountKey=…`, `Authorization: Basic …`): the value is masked.
const KV_PATTERN: &str = concat!(
    r"(?P<kv>(?i:api[_-]?key|aws[_-]?secret[_-]?access[_-]?key|secret[_-]?access[_-]?key|client[_-]?secret",
    r"|secret[_-]?key|secret|password|passwd|[A-Za-z0-9]*_pass|token|authorization|account[_-]?key|shared[_-]?access[_-]?key)",
    r"[\x22']?\s*[:=]\s*[\x22']?(?:(?i:basic)\s+)?)(?P<kvv>[^\s\x22',;]{8,})",
);

/// The shapes after the keys in [`SECRET`], each with its named groups.
/// `Token x` (Django REST framework's `TokenAuthentication`): masked only
/// when the value mixes letters and digits, so prose (`token consumption`) stays.
/// `Basic x` (RFC 7617) anywhere, glued to a word too, likewise: the
/// credential that follows a repeated `Authorization: Basic` is masked.
const OTHER_SHAPES: &str = concat!(
    r"(?P<tokx>(?i:token)\s+)(?P<tokv>[A-Za-z0-9\-._~+/]{16,}=*)|(?P<basx>Basic\s+)(?P<basv>[A-Za-z0-9+/]{12,}={0,2})",
    r"|(?P<flagx>--(?i:api[_-]?key|auth[_-]?token|token|password|passwd|secret)[=\s]\s*)(?P<flagv>[^\s\x22'-][^\s\x22']{7,})"
);

/// The named groups of [`KV_PATTERN`] and [`OTHER_SHAPES`] that open each
/// shape: a match with none of them is a key shape.
const SHAPE_GROUPS: [&str; 4] = ["kv", "tokx", "basx", "flagx"];

/// Every secret shape but [`URL_CREDENTIALS`]: the key shapes, the key-value
/// ones, then the others.
static SECRET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("(?:{})|{KV_PATTERN}|{OTHER_SHAPES}", key_shapes!())).expect("secret regex"));

/// [`URL_CREDENTIALS`], the shape [`SECRET`] leaves out: [`spans`] merges its
/// matches with [`SECRET`]'s as one regex of both would find them.
static URL: LazyLock<Regex> = LazyLock::new(|| Regex::new(URL_CREDENTIALS).expect("url credentials regex"));

/// The start of a key cut off by the end of a text (a stored text kept only
/// in part, a torn line): its prefix is known, the rest is masked.
static CUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:(?-u:\b)(?:sk|rk|pk)-|(?:sk|rk)_(?:live|test|prod)_|AKIA|ASIA|gh[pousr]_|github_pat_|gl(?:pat|dt|rt|ptt|soat)-",
        r"|xox[abprse][.\-]|xapp-|AIza|ya29\.|GOCSPX-|hf_|npm_|SG\.|gsk_|eyJ)",
        // A digit in what is left: `thighs_and_legs` at the end of a text is no key.
        r"[A-Za-z0-9_\-.+/]*\d[A-Za-z0-9_\-.+/]*\z",
        // Prefixes no word or prose has: a key even without a digit or a word
        // boundary before it (`xsk-ant-api03-…`, `sk-proj-abcDEF`, `AKIAIOSF`;
        // not `ASIA`, which ends `ASIAN`).
        r"|(?:sk-(?:ant|proj|or|svcacct|admin)-|AKIA[0-9A-Z]{2}|github_pat_|glpat-)[A-Za-z0-9_\-]*\z",
    ))
    .expect("cut regex")
});

/// An AWS secret access key (40 characters of base64, or more when a word
/// is glued after it) shortly after an access key id, or its start cut off
/// by the end of the text.
static AWS_PAIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?s:.{0,80}?)[^A-Za-z0-9/+=](?:(?P<aws>[A-Za-z0-9/+]{40,}=*)|(?P<awscut>[A-Za-z0-9/+]{8,39})\z)")
        .expect("aws regex")
});

/// Literals of which every shape above holds one (ASCII case ignored): a text
/// with none of them is returned as it is without running the regexes (`show`
/// masks every text it prints; most hold no key).
static TRIGGERS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "sk-",
            "rk-",
            "pk-",
            "sk_",
            "rk_",
            "akia",
            "asia",
            "a3t",
            "abia",
            "acca",
            "bearer",
            "gh",
            "github_pat_",
            "gl",
            "xox",
            "xapp-",
            "hooks.slack.com",
            "aiza",
            "ya29.",
            "gocspx-",
            "hf_",
            "npm_",
            "sg.",
            "gsk_",
            "xai-",
            "pplx-",
            "_v1_",
            ":aa",
            "_pass",
            "eyj",
            "-----begin",
            "://",
            "api",
            "secret",
            "passw",
            "token",
            "authorization",
            "basic",
            "key",
        ])
        .expect("trigger literals")
});

/// A masked range of a text: `[start, end)`, of which the first `keep` bytes stay.
struct Span {
    start: usize,
    end: usize,
    keep: usize,
}

/// Bytes of the first `n` characters of `s`.
fn chars_len(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

fn span(s: &str, start: usize, end: usize) -> Span {
    Span { start, end, keep: chars_len(&s[start..end], 4) }
}

/// One match of the secret shapes in a text.
enum Hit<'s> {
    /// Credentials in a URL ([`URL_CREDENTIALS`]).
    Url(regex::Match<'s>),
    /// Any other shape ([`SECRET`]), with its groups.
    Shape(regex::Captures<'s>),
}

/// The matches of every secret shape in `s`, in order: [`SECRET`]'s and
/// [`URL`]'s merged as the one regex `KEY_PATTERN|KV_PATTERN|OTHER_SHAPES`
/// finds them (leftmost-first): the one that starts first; at the same
/// start, a key shape before the URL's, and the URL's before the key-value,
/// token, `Basic` and flag shapes (the alternatives that follow it). (No
/// shape of today starts where a URL's credentials do; the order is kept
/// all the same.)
fn hits(s: &str) -> Vec<Hit<'_>> {
    let mut out = Vec::new();
    let urls = memchr::memmem::find(s.as_bytes(), b"://").is_some();
    let mut url = if urls { URL.find(s) } else { None };
    let mut at = 0;
    // SECRET's next match from `at`, kept while `at` has not passed its start
    // (searched again after every URL, a text of many URLs and no other
    // shape was read to its end once per URL).
    let mut next: Option<Option<regex::Captures<'_>>> = None;
    while at <= s.len() {
        if url.is_some_and(|u| u.start() < at) {
            url = URL.find_at(s, at);
        }
        if next.as_ref().is_none_or(|n| n.as_ref().and_then(|c| c.get(0)).is_some_and(|m| m.start() < at)) {
            next = Some(SECRET.captures_at(s, at));
        }
        let url_first = match (next.as_ref().expect("searched"), url) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(c), Some(u)) => {
                let m = c.get(0).map_or(usize::MAX, |m| m.start());
                u.start() < m || (u.start() == m && SHAPE_GROUPS.iter().any(|g| c.name(g).is_some()))
            }
        };
        if url_first {
            let u = url.take().expect("a URL match");
            at = u.end();
            url = URL.find_at(s, at);
            out.push(Hit::Url(u));
            continue;
        }
        let Some(c) = next.take().flatten() else { break };
        let whole = c.get(0).expect("group 0");
        // (No shape matches the empty string; step on all the same.)
        at = if whole.end() > whole.start() {
            whole.end()
        } else {
            whole.end() + s[whole.end()..].chars().next().map_or(1, char::len_utf8)
        };
        out.push(Hit::Shape(c));
    }
    out
}

/// The ranges of `s` to mask, sorted and disjoint; `cut`: also the start of
/// a key cut off by the end of `s` ([`CUT`]).
fn spans(s: &str, cut: bool) -> Vec<Span> {
    let mut out = Vec::new();
    for hit in hits(s) {
        let c = match hit {
            Hit::Url(u) => {
                // `scheme://user:password@`: the scheme and the first characters of the user stay.
                let i = u.as_str().find("://").map_or(0, |i| i + 3);
                out.push(span(s, u.start() + i, u.end() - 1));
                continue;
            }
            Hit::Shape(c) => c,
        };
        if let Some(v) = c.name("kvv") {
            out.push(span(s, v.start(), v.end()));
        } else if let Some(v) = c.name("tokv") {
            let t = v.as_str();
            if t.bytes().any(|b| b.is_ascii_digit()) && t.bytes().any(|b| b.is_ascii_alphabetic()) {
                out.push(span(s, v.start(), v.end()));
            }
        } else if let Some(v) = c.name("flagv") {
            // A command-line flag's value (`--api-key 4f3c…`).
            out.push(span(s, v.start(), v.end()));
        } else if let Some(v) = c.name("basv") {
            // Base64 of `user:password`, not a word of prose (`Basic Authentication`).
            let t = v.as_str();
            if t.bytes().any(|b| b.is_ascii_digit() || b"+/=".contains(&b))
                || t.bytes().skip(1).filter(u8::is_ascii_uppercase).count() >= 2
            {
                out.push(span(s, v.start(), v.end()));
            }
        } else if let Some(m) = c.get(0) {
            let t = m.as_str();
            if t.starts_with("-----BEGIN") {
                // The BEGIN line stays: it says what was there; a closing quote too.
                let keep = t[5..].find("-----").map_or(t.len(), |i| i + 10);
                let end = m.end() - usize::from(t.ends_with(['"', '<']));
                out.push(Span { start: m.start(), end, keep: keep.min(end - m.start()) });
            } else {
                out.push(span(s, m.start(), m.end()));
            }
        }
    }
    if let Some(m) = CUT.find(s).filter(|_| cut) {
        if out.last().is_none_or(|l| l.end <= m.start()) {
            out.push(span(s, m.start(), m.end()));
        }
    }
    if ["AKIA", "ASIA", "A3T", "ABIA", "ACCA"].iter().any(|p| s.contains(p)) {
        let mut extra: Vec<Span> = AWS_PAIR
            .captures_iter(s)
            .filter_map(|c| c.name("aws").or_else(|| c.name("awscut")))
            .map(|m| span(s, m.start(), m.end()))
            .collect();
        if !extra.is_empty() {
            out.append(&mut extra);
            out.sort_by_key(|x| x.start);
            let mut kept: Vec<Span> = Vec::with_capacity(out.len());
            for x in out {
                if kept.last().is_none_or(|l| x.start >= l.end) {
                    kept.push(x);
                }
            }
            out = kept;
        }
    }
    out
}

/// `s` with JSON string escapes decoded (`\n`, `\"`, `\u00e9`, surrogate
/// pairs), and for each byte of the result the offset of the escape or
/// character it came from in `s` (one more entry: `s.len()`). Invalid escapes stay as they are.
fn decode(s: &str) -> (String, Vec<usize>) {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut map = Vec::with_capacity(s.len() + 1);
    let hex4 = |i: usize| -> Option<u32> {
        let h = s.get(i..i + 4)?;
        if h.bytes().all(|c| c.is_ascii_hexdigit()) { u32::from_str_radix(h, 16).ok() } else { None }
    };
    let mut i = 0;
    while i < b.len() {
        let (c, len) = if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => (Some('\n'), 2),
                b't' => (Some('\t'), 2),
                b'r' => (Some('\r'), 2),
                b'b' => (Some('\u{8}'), 2),
                b'f' => (Some('\u{c}'), 2),
                b'"' => (Some('"'), 2),
                b'\\' => (Some('\\'), 2),
                b'/' => (Some('/'), 2),
                b'u' => match hex4(i + 2) {
                    Some(hi @ 0xD800..=0xDBFF) => match (s.get(i + 6..i + 8), hex4(i + 8)) {
                        (Some("\\u"), Some(lo @ 0xDC00..=0xDFFF)) => {
                            (char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)), 12)
                        }
                        _ => (Some('\u{fffd}'), 6),
                    },
                    Some(0xDC00..=0xDFFF) => (Some('\u{fffd}'), 6),
                    Some(u) => (char::from_u32(u), 6),
                    None => (None, 1),
                },
                _ => (None, 1),
            }
        } else {
            (None, 1)
        };
        match c {
            Some(c) => {
                for _ in 0..c.len_utf8() {
                    map.push(i);
                }
                out.push(c);
                i += len;
            }
            None => {
                // One character of `s` as it is.
                let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
                for _ in 0..ch.len_utf8() {
                    map.push(i);
                }
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    map.push(s.len());
    (out, map)
}

/// Replaces key-like strings (`sk-…`, `AKIA…`, bearer tokens, the shapes of
/// [`KEY_PATTERN`], `api_key=…`) by a mask that keeps only their first 4
/// characters (a PEM block its BEGIN line, a URL its scheme).
pub fn mask_secrets(s: &str) -> String {
    mask_cow(s).into_owned()
}

/// [`mask_secrets`], borrowing when nothing is masked. A text with
/// backslashes (a raw JSON line, a JSON document) is also searched with its
/// JSON escapes decoded, so that a key after `\n` or spelled with `\u` escapes
/// is found; the mask then replaces the escaped bytes.
pub fn mask_cow(s: &str) -> Cow<'_, str> {
    mask_with(s, true)
}

/// [`mask_cow`] for a file path: a whole key in it is masked, but not what
/// only looks like the start of a key cut off by the end of a text ([`CUT`]):
/// a path is never cut short, and `hf_ndjson_1.json` is a file name (it was
/// reported as `hf_n****`).
pub fn mask_path(s: &str) -> Cow<'_, str> {
    mask_with(s, false)
}

/// [`mask_cow`]; `cut`: also keys cut off by the end of the text.
fn mask_with(s: &str, cut: bool) -> Cow<'_, str> {
    let mut decoded: Option<(String, Vec<usize>)> = None;
    if memchr::memchr(b'\\', s.as_bytes()).is_some() {
        let (d, map) = decode(s);
        // A doubly escaped text (JSON in a JSON string): decode once more.
        if memchr::memchr(b'\\', d.as_bytes()).is_some() {
            let (d2, map2) = decode(&d);
            let composed = map2.iter().map(|&i| map[i]).collect();
            decoded = Some((d2, composed));
        } else {
            decoded = Some((d, map));
        }
    }
    let (text, map) = match &decoded {
        Some((d, m)) => (d.as_str(), Some(m)),
        None => (s, None),
    };
    if !TRIGGERS.is_match(text) {
        return Cow::Borrowed(s);
    }
    let found = spans(text, cut);
    if found.is_empty() {
        return Cow::Borrowed(s);
    }
    let at = |i: usize| map.map_or(i, |m| m[i]);
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for sp in found {
        let (start, keep, end) = (at(sp.start), at(sp.start + sp.keep), at(sp.end));
        if start < last {
            continue;
        }
        out.push_str(&s[last..start]);
        out.push_str(&s[start..keep]);
        out.push_str("****");
        last = end.max(keep);
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

/// A whole rendered output masked line by line (the last line of defence:
/// every renderer masks what it quotes, this catches what one missed).
pub fn mask_output(s: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut done = 0;
    for line in s.split_inclusive('\n') {
        let start = line.as_ptr() as usize - s.as_ptr() as usize;
        if let Cow::Owned(m) = mask_cow(line) {
            let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
            o.push_str(&s[done..start]);
            o.push_str(&m);
            done = start + line.len();
        }
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut o) => {
            o.push_str(&s[done..]);
            Cow::Owned(o)
        }
    }
}

/// A writer that masks what passes through it line by line, as
/// [`mask_output`] does on a whole text: each complete line is masked as it
/// arrives, so a report is never held whole. A line longer than
/// [`MaskLines::MAX_LINE`] bytes is masked and passed on in pieces of that
/// size (cut on a character boundary). [`MaskLines::finish`] passes on the
/// last, unterminated line; dropping without it loses that line.
pub struct MaskLines<W: std::io::Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: std::io::Write> MaskLines<W> {
    /// Longest piece held before it is masked and passed on (1 MiB).
    pub const MAX_LINE: usize = 1 << 20;

    /// Masks what is written before it reaches `inner`.
    pub fn new(inner: W) -> Self {
        MaskLines { inner, buf: Vec::new() }
    }

    fn pass(&mut self, end: usize) -> std::io::Result<()> {
        let (valid, rest) = match std::str::from_utf8(&self.buf[..end]) {
            Ok(t) => (t, end),
            Err(e) => (std::str::from_utf8(&self.buf[..e.valid_up_to()]).unwrap_or_default(), e.valid_up_to()),
        };
        // Bytes that are not UTF-8 at all (renderers never write them) pass as they are.
        let rest = if rest == 0 && end > 0 { end } else { rest };
        if valid.is_empty() {
            self.inner.write_all(&self.buf[..rest])?;
        } else {
            self.inner.write_all(mask_cow(valid).as_bytes())?;
        }
        self.buf.drain(..rest);
        Ok(())
    }

    /// Passes on what is left (an unterminated last line), flushes, and
    /// returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        while !self.buf.is_empty() {
            let n = self.buf.len();
            self.pass(n)?;
        }
        self.inner.flush()?;
        Ok(self.inner)
    }
}

impl<W: std::io::Write> std::io::Write for MaskLines<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut rest = data;
        while !rest.is_empty() {
            let room = Self::MAX_LINE.saturating_sub(self.buf.len()).max(1);
            let take = match memchr::memchr(b'\n', &rest[..rest.len().min(room)]) {
                Some(i) => i + 1,
                None => rest.len().min(room),
            };
            self.buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buf.last() == Some(&b'\n') || self.buf.len() >= Self::MAX_LINE {
                let n = self.buf.len();
                self.pass(n)?;
            }
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        // Only whole lines are ever passed on early; a partial line waits for its end.
        self.inner.flush()
    }
}

/// An excerpt for display: secrets masked, control and bidirectional
/// characters made visible ([`crate::escape::hidden`]),
/// at most `max_chars` characters (an ellipsis marks the cut).
pub fn excerpt(s: &str, max_chars: usize) -> String {
    let masked = mask_secrets(s);
    let mut out = String::new();
    let mut prev = ['\0', '\0'];
    for (n, c) in masked.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        // GitHub's legacy `##[command]` marker (see `safety::LEGACY_COMMAND`).
        let legacy = c == '[' && prev == ['#', '#'];
        prev = [prev[1], c];
        match c {
            _ if legacy => out.push_str("\\u{5b}"),
            '\n' => out.push_str("⏎ "),
            '\r' => out.push_str("\\r"),
            '\t' => out.push(' '),
            c if crate::escape::hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Paragraphs of a text: runs of lines separated by blank lines, trimmed.
/// (What `s.split("\n\n")` and then `split("\r\n\r\n")` give, found with
/// a SIMD substring search built once: `str::split` prepares a searcher
/// for every text and every piece, a twentieth of checking a stream of
/// short requests.)
pub fn paragraphs(s: &str) -> impl Iterator<Item = &str> {
    static BLANK: LazyLock<memchr::memmem::Finder<'static>> = LazyLock::new(|| memchr::memmem::Finder::new("\n\n"));
    static CRLF_BLANK: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new("\r\n\r\n"));
    split_on(s, &BLANK).flat_map(|p| split_on(p, &CRLF_BLANK)).map(str::trim).filter(|p| !p.is_empty())
}

/// `s` split at each non-overlapping occurrence of `f`'s needle, left to
/// right, as `str::split` splits it (empty pieces included). The needle is
/// ASCII, so every cut is at a character boundary.
fn split_on<'a>(s: &'a str, f: &'static memchr::memmem::Finder<'static>) -> impl Iterator<Item = &'a str> + use<'a> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match f.find(r.as_bytes()) {
            Some(i) => {
                rest = Some(&r[i + f.needle().len()..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// Lines of a text, trimmed of trailing `\r` and surrounding spaces.
pub fn lines(s: &str) -> impl Iterator<Item = &str> {
    s.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// Two texts made ready for a line diff: when both lack a final newline,
/// each (if not empty) gets one, so that they are diffed as lines without
/// "no newline at end of file" markers; a newline added or removed still
/// shows. Shared by every unified diff ctxlint writes (findings' `diff`,
/// `ctxlint diff`).
pub fn close_for_line_diff(a: &str, b: &str) -> (String, String) {
    let both_open = !a.ends_with('\n') && !b.ends_with('\n');
    let close = |t: &str| if both_open && !t.is_empty() { format!("{t}\n") } else { t.to_string() };
    (close(a), close(b))
}

/// Whether `t` is one short text (under `max_period` bytes) written two or
/// more times over, end to end — `t` has a period `p < max_period` with
/// `2 p <= t.len()` (a last copy may be cut short): padding written on
/// purpose to reach a prompt-cache minimum (pydantic-ai's cache tests send
/// `"YOU ARE A HELPFUL ASSISTANT THAT ANALYZES DOCUMENTS.\n" * 50`), not
/// context or a prompt sent twice. Linear: only the places where `t`'s
/// first bytes come again within `max_period` are tried.
pub fn is_repeated_unit(t: &[u8], max_period: usize) -> bool {
    let n = t.len();
    if n < 2 || max_period < 2 {
        return false;
    }
    // (The first byte found again, then its first bytes compared: no
    // searcher is built, as this runs on every paragraph.)
    let k = 16.min(n / 2).max(1);
    let end = n.min(max_period - 1 + k);
    for p in memchr::memchr_iter(t[0], &t[1..end]).map(|i| i + 1) {
        if p >= max_period || 2 * p > n {
            break;
        }
        if t[p..p + k] == t[..k] && t[p..] == t[..n - p] {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A match: its start, its end and the spans of its groups.
    type Found = (usize, usize, Vec<Option<(usize, usize)>>);

    /// [`hits`] finds what the one regex of every shape, [`URL_CREDENTIALS`]
    /// in its place at the end of [`KEY_PATTERN`], finds: the same matches
    /// with the same groups.
    fn one_regex_hits(s: &str) -> Vec<Found> {
        static ONE: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(&format!("(?:{KEY_PATTERN})|{KV_PATTERN}|{OTHER_SHAPES}")).expect("one regex"));
        ONE.captures_iter(s)
            .map(|c| {
                let m = c.get(0).expect("group 0");
                let groups = (1..c.len()).map(|i| c.get(i).map(|g| (g.start(), g.end()))).collect();
                (m.start(), m.end(), groups)
            })
            .collect()
    }

    fn merged_hits(s: &str) -> Vec<Found> {
        hits(s)
            .into_iter()
            .map(|h| match h {
                Hit::Url(u) => (u.start(), u.end(), vec![None; SECRET.captures_len() - 1]),
                Hit::Shape(c) => {
                    let m = c.get(0).expect("group 0");
                    let groups = (1..c.len()).map(|i| c.get(i).map(|g| (g.start(), g.end()))).collect();
                    (m.start(), m.end(), groups)
                }
            })
            .collect()
    }

    #[test]
    fn url_credentials_apart_find_what_one_regex_finds() {
        for s in [
            "https://user:pa55word@host and token abcdef0123456789abcd",
            "password=https://u:p@h",
            "api_key=secret123456 https://alice:hunter22@example.com",
            "--password https://a:b@c",
            "token https://bob:s3cretpass@db.example.com:5432/x",
            "Basic https://u:QWxhZGRpbjpvcGVuIHNlc2FtZQ==@h",
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz https://x:y@z https://x:y@z",
            "mongodb+srv://us\\u00e9r:pässwörd@cluster0/",
            "xhttps://u:p@h https://no-at-here ftp://a:b@",
        ] {
            assert_eq!(merged_hits(s), one_regex_hits(s), "{s}");
        }
    }

    proptest::proptest! {
        #[test]
        fn url_credentials_apart_find_what_one_regex_finds_on_any_mix(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "https://", "postgres://", "://", "user", "alice", ":", "pa55", "@", "/", " ", "\n", "é",
                "token ", "Token: ", "api_key=", "password\"", "--password ", "Basic ", "bearer ",
                "sk-", "ghp_", "abcdefghijklmnop", "0123456789", "QWxhZGRp==", "\"", "'",
            ]), 0..24)
        ) {
            let s: String = parts.concat();
            proptest::prop_assert_eq!(merged_hits(&s), one_regex_hits(&s), "{}", s);
        }
    }

    /// Paragraphs are what splitting at blank lines with `str::split` gives,
    /// on runs of newlines, CRLF, mixed endings, empty and edge texts.
    #[test]
    fn paragraphs_split_as_str_split_does() {
        let old = |s: &str| -> Vec<String> {
            s.split("\n\n")
                .flat_map(|p| p.split("\r\n\r\n"))
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect()
        };
        for s in [
            "",
            "\n",
            "\n\n",
            "\n\n\n",
            "a",
            "a\n\nb",
            "a\n\n\nb\n\n\n\nc",
            "a\r\n\r\nb\r\n\r\n\r\nc",
            "a\r\n\nb\n\r\n\r\nc\r\n\r\n",
            " x \n\n  \n\n y é\n\nz\r\n\r\n",
            "\n\na\n\n",
        ] {
            let new: Vec<String> = paragraphs(s).map(String::from).collect();
            assert_eq!(new, old(s), "{s:?}");
        }
    }

    #[test]
    fn a_path_is_masked_for_whole_keys_only() {
        // What looks like a key cut off at the end of a text is a file name.
        assert_eq!(mask_path("logs/hf_ndjson_1.json"), "logs/hf_ndjson_1.json");
        assert_eq!(mask_path("d8_hf_ndjson_1broken.json"), "d8_hf_ndjson_1broken.json");
        assert_eq!(mask_cow("d8_hf_ndjson_1broken.json"), "d8_hf_n****");
        // A whole key in a file name is still masked.
        assert_eq!(mask_path("keys/AKIAIOSFODNN7EXAMPLE_test.json"), "keys/AKIA****_test.json");
    }

    #[test]
    fn keys_in_text_with_non_ascii_characters_are_masked_at_ascii_word_starts() {
        // The same keys, in ASCII text and beside non-ASCII characters.
        assert_eq!(mask_cow("it’s sk-abcdefghijklmnopqrstuvwx, ok"), "it’s sk-a****, ok");
        assert_eq!(mask_cow("clé ghp_abcdefghijklmnopqrstuvwxyz0123"), "clé ghp_****");
        assert_eq!(mask_cow("é 12345678:AA0123456789abcdefghijklmnopqrstuvw"), "é 1234****");
        // Glued to a word (ASCII or not) a generic prefix is no key start.
        assert_eq!(mask_cow("task-abcdefghijklmnopqrstuvwx"), "task-abcdefghijklmnopqrstuvwx");
        // (A non-ASCII letter is no ASCII word character: the key after it is masked.)
        assert_eq!(mask_cow("ésk-abcdefghijklmnopqrstuvwx"), "ésk-a****");
    }

    #[test]
    fn mask_lines_masks_a_key_split_across_writes_as_mask_output_does() {
        use std::io::Write;
        let text = "a line\nkey sk-ant-api03-abcdefghijklmnopqrstuvwx end\nlast é sk-abcdefghijklmnopqrstuvwx";
        let mut w = MaskLines::new(Vec::new());
        // Written one byte at a time: keys, lines and the two-byte é all cut.
        for b in text.as_bytes() {
            w.write_all(std::slice::from_ref(b)).unwrap();
        }
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(out, mask_output(text));
        assert_eq!(out, "a line\nkey sk-a**** end\nlast é sk-a****");
    }

    #[test]
    fn mask_lines_passes_a_line_longer_than_its_buffer_in_pieces() {
        use std::io::Write;
        let long = "é".repeat(MaskLines::<Vec<u8>>::MAX_LINE); // 2 MiB, no newline
        let mut w = MaskLines::new(Vec::new());
        w.write_all(long.as_bytes()).unwrap();
        w.write_all(b"\nsk-abcdefghijklmnopqrstuvwx\n").unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(out, format!("{long}\nsk-a****\n"));
    }

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

    /// One fake secret of every shape, its masked form.
    const SHAPES: &[(&str, &str)] = &[
        ("xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f", "xapp****"),
        ("xoxe-1-My0xLTEtVDAxMjM0NTY3ODkwLTEyMzQ1Njc4", "xoxe****"),
        ("xoxe.xoxp-1-Mi0yLTExMjIzMzQ0NTU2Ni0yMjMz", "xoxe****"),
        ("https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/q1w2e3r4t5y6u7i8o9p0AbCd", "https://hook****"),
        ("ya29.a0AfB_byC1d2E3f4G5h6I7j8K9l0MnOpQrStUv", "ya29****"),
        ("GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx1234", "GOCS****"),
        ("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "AIza****"),
        ("glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm", "glpa****"),
        ("npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz", "npm_****"),
        ("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", "SG.A****"),
        ("gsk_Q2w3E4r5T6y7U8i9O0pAaSsDdFfGgHhJjKk", "gsk_****"),
        ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_A****"),
        ("sk_live_51Hx2Ab3Cd4Ef5Gh6Ij7Kl8Mn9", "sk_l****"),
        ("rk_live_51Hx2Ab3Cd4Ef5Gh6Ij7Kl8Mn9", "rk_l****"),
        ("sk-ant-api03-Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk", "sk-a****"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjf-J_xK9sP2mQ7rT4vW1yZ", "eyJh****"),
    ];

    #[test]
    fn masks_every_shape() {
        for (secret, masked) in SHAPES {
            assert_eq!(mask_secrets(&format!("see {secret} here")), format!("see {masked} here"), "{secret}");
        }
    }

    #[test]
    fn masks_after_json_escapes_letters_digits_and_underscores() {
        for (secret, masked) in SHAPES {
            assert_eq!(mask_secrets(&format!(r#"{{"t":"a\n{secret}"}}"#)), format!(r#"{{"t":"a\n{masked}"}}"#));
            assert_eq!(mask_secrets(&format!(r"a\t{secret}")), format!(r"a\t{masked}"));
        }
        assert_eq!(mask_secrets("x_AKIAIOSFODNN7EXAMPLE"), "x_AKIA****");
        assert_eq!(mask_secrets("id9ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWx"), "id9ghp_****");
        assert_eq!(mask_secrets("keysk-ant-api03-Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk"), "keysk-a****");
        // A key spelled with `\u` escapes, and one in JSON inside a JSON string.
        assert_eq!(mask_secrets(r"\u0073k-ant-api03-Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk"), r"\u0073k-a****");
        assert_eq!(mask_secrets(r"\\nsk-ant-api03-Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk"), r"\\nsk-a****");
    }

    #[test]
    fn masks_key_value_forms() {
        assert_eq!(mask_secrets("Authorization: Basic dXNlcjpodW50ZXIy"), "Authorization: Basic dXNl****");
        // Issue 32: held-out shapes that kept a credential.
        assert_eq!(
            mask_secrets("Authorization: Basic Authorization: Basic dXNlcjpodW50ZXIy"),
            "Authorization: Basic Auth**** Basic dXNl****"
        );
        assert_eq!(mask_secrets("orphan_Basic dXNlcjpodW50ZXIy"), "orphan_Basic dXNl****");
        assert_eq!(mask_secrets("gone_AKIAZ7QWERTY12345678x"), "gone_AKIA****");
        assert_eq!(mask_secrets("use Basic Authentication here"), "use Basic Authentication here");
        // The attack round's shapes.
        for (text, secret) in [
            ("SECRET_KEY=django-insecure-q1w2e3r4t5y6u7", "q1w2e3r4t5y6"),
            (r#""secret_key": "Zx9Cv8Bn7Mm6Ll5""#, "Cv8Bn7Mm6"),
            (r#""secretKey":"Zx9Cv8Bn7Mm6Ll5""#, "Cv8Bn7Mm6"),
            ("AWS_SECRET_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "XUtnFEMI"),
            ("DB_PASS=hunter2hunter2", "hunter2hun"),
            ("run --api-key 4f3c2a1b9e8d7c6b5a4f now", "2a1b9e8d7c"),
            ("login --password=S3cr3tPassw0rd", "cr3tPassw0"),
            ("xai-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0", "Ef3Gh4Ij5"),
            ("pplx-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0", "Ef3Gh4Ij5"),
            ("dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "456789abcdef0123"),
            ("bot 123456789:AAEhBP0av28fV5kOqA1bC2dE3fG4hI5jK6l now", "EhBP0av28f"),
        ] {
            let m = mask_secrets(text);
            assert!(!m.contains(secret), "{text} -> {m}");
        }
        assert_eq!(mask_secrets("Bearer: abcdefghijklmnop123"), "Bear****");
        assert_eq!(mask_secrets("bearer=abcdefghijklmnop123"), "bear****");
        assert_eq!(
            mask_secrets("Authorization: Token 9944b09199c62bcf9418ad846dd0e4bb"),
            "Authorization: Token 9944****"
        );
        assert_eq!(mask_secrets("the token consumption grew"), "the token consumption grew");
        assert_eq!(
            mask_secrets(
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;"
            ),
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9v****;"
        );
        assert_eq!(
            mask_secrets(r#"{"aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"#),
            r#"{"aws_secret_access_key": "wJal****"}"#
        );
        assert_eq!(mask_secrets("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), "AKIA**** wJal****");
        assert_eq!(
            mask_secrets("git clone https://deploy:S3cr3tPassw0rd@git.example.com/x.git"),
            "git clone https://depl****@git.example.com/x.git"
        );
        assert_eq!(
            mask_secrets(
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY----- after"
            ),
            "-----BEGIN RSA PRIVATE KEY-----**** after"
        );
        assert_eq!(
            mask_secrets("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
            "-----BEGIN PRIVATE KEY-----****"
        );
        // Cut off inside a JSON string: the string's closing quote stays (a
        // JSON report's masked excerpt line was made invalid JSON).
        assert_eq!(
            mask_secrets(r#"  "excerpt": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo","#),
            r#"  "excerpt": "-----BEGIN RSA PRIVATE KEY-----****","#
        );
        assert_eq!(
            mask_secrets(r#"  "excerpt": "-----BEGIN RSA PRIVATE KEY-----****","#),
            r#"  "excerpt": "-----BEGIN RSA PRIVATE KEY-----****","#
        );
        assert_eq!(
            mask_secrets("<failure>-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfV</failure>"),
            "<failure>-----BEGIN RSA PRIVATE KEY-----****</failure>"
        );
        // A URL with a password and no user name (Redis's usual form).
        assert_eq!(mask_secrets("redis://:s3cretpass@cache:6379/0"), "redis://:s3c****@cache:6379/0");
        // A key cut off by the end of a kept text.
        assert_eq!(mask_secrets("the token xghp_R4nD0"), "the token xghp_****");
        assert_eq!(mask_secrets("ends in ghp_"), "ends in ghp_");
        assert_eq!(mask_secrets("use sk-learn for this"), "use sk-learn for this");
        // Known key prefixes cut short: no digit or word boundary needed.
        assert_eq!(mask_secrets("key xsk-ant-api03-abcDE"), "key xsk-a****");
        assert_eq!(mask_secrets("key sk-proj-abcDEF"), "key sk-p****");
        assert_eq!(mask_secrets("id AKIAIOSFODNN"), "id AKIA****");
        assert_eq!(mask_secrets("SOUTHEAST ASIAN"), "SOUTHEAST ASIAN");
        assert_eq!(mask_secrets("in sk-learn"), "in sk-learn");
    }

    #[test]
    fn ordinary_text_stays() {
        for s in [
            "task-management-system-overview",
            "thighs_and_legs_workout_plan_for_beginners",
            "https://example.com/a:b@c", // no user info: a path
            "the basic understanding of tokens",
            "commit 1f0e3dad99908345f7439f8ffabdffc4d2e1a3b4",
            "see https://docs.example.com/path?x=1",
        ] {
            assert_eq!(mask_secrets(s), s);
        }
    }

    #[test]
    fn masking_is_idempotent() {
        for (secret, _) in SHAPES {
            let once = mask_secrets(secret);
            assert_eq!(mask_secrets(&once), once);
        }
    }

    #[test]
    fn mask_output_masks_each_line() {
        assert_eq!(mask_output("a\nkey sk-ant-api03-Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk\nb\n"), "a\nkey sk-a****\nb\n");
        assert!(matches!(mask_output("plain\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn excerpt_truncates() {
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
    #[test]
    fn a_repeated_unit_is_found_as_a_smallest_period_finds_it() {
        // The smallest period from the KMP failure function, for comparison.
        fn by_kmp(t: &[u8], max: usize) -> bool {
            let n = t.len();
            if n < 2 {
                return false;
            }
            let mut pi = vec![0usize; n];
            for i in 1..n {
                let mut k = pi[i - 1];
                while k > 0 && t[i] != t[k] {
                    k = pi[k - 1];
                }
                if t[i] == t[k] {
                    k += 1;
                }
                pi[i] = k;
            }
            let p = n - pi[n - 1];
            p < max && 2 * pi[n - 1] >= n
        }
        let pad = "YOU ARE A HELPFUL ASSISTANT THAT ANALYZES DOCUMENTS.\n".repeat(50);
        assert!(is_repeated_unit(pad.trim().as_bytes(), 200));
        assert!(!is_repeated_unit(pad.trim().as_bytes(), 40));
        assert!(!is_repeated_unit(b"a prompt that is said once and never again, long enough", 200));
        let mut seed = 7u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..20_000 {
            let unit: Vec<u8> = (0..1 + rnd(12)).map(|_| b"ab"[rnd(2) as usize]).collect();
            let reps = rnd(6) as usize;
            let mut t: Vec<u8> =
                unit.iter().copied().cycle().take(unit.len() * reps + rnd(unit.len() as u64 + 1) as usize).collect();
            if rnd(3) == 0 && !t.is_empty() {
                let i = rnd(t.len() as u64) as usize;
                t[i] = b'c';
            }
            for max in [2, 3, 5, 8, 200] {
                assert_eq!(is_repeated_unit(&t, max), by_kmp(&t, max), "{:?} {max}", String::from_utf8_lossy(&t));
            }
        }
    }
}
