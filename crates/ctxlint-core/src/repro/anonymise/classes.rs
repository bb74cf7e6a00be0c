//! The classes of free text the anonymiser recognises (their patterns, in
//! order of priority, and the street and state words they are built from),
//! and the regexes built from them: the scan of free text, its fallback, the
//! classes searched in tool names, MCP tool names and house numbers.

use regex::Regex;
use std::sync::LazyLock;

/// Street types after a house number and street name (`221B Baker Street`).
const STREET_AFTER: &str = "Street|St|Road|Rd|Avenue|Ave|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Square|Sq|Way|Parkway|Pkwy|Terrace|Close|Crescent|Highway|Hwy|Loop|Row|Mews";
/// Endings of one-word street names before a house number (`Hauptstraße 5`,
/// `Kerkstraat 12`, `Storgatan 3`), and the same words standing alone after a hyphen.
const STREET_SUFFIX: &str = "straße|strasse|str\\.|gasse|weg|allee|platz|damm|ufer|chaussee|steig|straat|laan|gracht|plein|kade|gatan|vägen|gade|vej|veien";
/// Street words before a street name and a house number (`Via Roma 10`).
const STREET_BEFORE: &str = "Via|Viale|Corso|Piazza|Calle|Avenida|Rua|Carrer|Plaza|Paseo";
/// Street words after a house number, in French (`12 rue de la Paix`).
const STREET_FR: &str = "rue|avenue|boulevard|bd|chemin|allée|impasse|quai";
/// US states and territories, before a ZIP code (`, CA 94043`).
const US_STATES: &str = "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|GU|VI";

/// The classes of free text, in order of priority (at one position the first
/// that matches wins). A class marked `true` is checked after it matches
/// ([`Anonymiser::replace`] may turn it down); its text is then scanned again
/// without those classes ([`FALLBACK`]). Their shapes start and end at word
/// boundaries, so a span turned down never cuts another token in two.
///
/// [`Anonymiser::replace`]: super::Anonymiser::replace
fn classes() -> Vec<(bool, String)> {
    let hex = "[0-9A-Fa-f]{1,4}";
    let v4 = r"\d{1,3}(?:\.\d{1,3}){3}\b";
    vec![
        (false, r"(?P<label>(?m:^System(?:\x20\(untrusted\))?:\x20\[[^\]\n]+\]\x20))".into()),
        (false, r"(?P<ts>\b\d{4}-\d{2}-\d{2}(?:[T\x20]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\x20UTC)?)?)".into()),
        // A tag must close (`<b>`, `</x>`, `<a href=…>`): `<alice@example.org>` is an email.
        (false, r"(?P<tag></?[A-Za-z][\w:-]*(?:\s[^<>@\n]*)?/?>)".into()),
        (false, format!("(?P<key>{})", crate::text::KEY_PATTERN)),
        (false, r"(?P<email>[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})".into()),
        (false, r"(?P<url>\b(?:https?|wss?|ftp)://[^\s\x22'<>`\])]+)".into()),
        (false, r"(?P<path>(?:~|\b[A-Za-z]:)?(?:[/\\][\w.\-@+]+){2,}[/\\]?)".into()),
        // An MCP tool name, `mcp__<server>__<tool>`: the server is user-chosen.
        (false, r"(?P<mcp>\bmcp__[A-Za-z0-9\-]+(?:_[A-Za-z0-9\-]+)*__[A-Za-z0-9_\-]+)".into()),
        // IPv6 (RFC 4291 §2.2: full, `::`-compressed, with a dotted IPv4 tail), with a zone.
        (
            true,
            format!(
                r"(?P<ip6>(?:(?:\b{hex}:){{6}}{v4}|(?:\b{hex}(?::{hex}){{0,5}})?::(?:{hex}:){{0,5}}{v4}|\b{hex}(?::{hex}){{7}}\b|(?:\b{hex}(?::{hex}){{0,6}})?::(?:{hex}(?::{hex}){{0,6}}\b)?)(?:%[0-9A-Za-z_.\-]+)?)"
            ),
        ),
        // IPv4 addresses, before phones and ids.
        (false, r"(?P<ip>\b\d{1,3}(?:\.\d{1,3}){3}\b)".into()),
        // A house number beside street words: before a street name and type
        // (`221B Baker Street`), after a one-word street (`Hauptstraße 5`), after
        // a street word and name (`Via Roma 10`), before a French one (`12 rue de la Paix`).
        (
            false,
            format!(
                "(?P<addr>{})",
                [
                    format!(r"\b\d{{1,5}}[A-Za-z]?\x20(?:\p{{Lu}}[\p{{L}}'\-]*\.?\x20){{1,4}}(?:{STREET_AFTER})\b\.?"),
                    format!(
                        r"\b(?:\p{{Lu}}\p{{Ll}}+-)*(?:\p{{Lu}}\p{{Ll}}+(?:{STREET_SUFFIX})|Straße|Strasse|Weg|Allee|Platz|Gasse)\x20\d{{1,4}}[a-zA-Z]?\b"
                    ),
                    format!(r"\b(?:{STREET_BEFORE})\x20(?:\p{{L}}+\x20){{0,3}}?\p{{Lu}}\p{{L}}*,?\x20\d{{1,4}}[a-zA-Z]?\b"),
                    format!(r"\b\d{{1,4}}(?:\x20?(?:bis|ter))?,?\x20(?:{STREET_FR})\x20"),
                ]
                .join("|")
            ),
        ),
        // Postcodes: a US ZIP (or ZIP+4) after a state (`, CA 94043`), a 5-digit
        // European one before a city after a comma or at a line start (`, 10115 Berlin`),
        // a UK one anywhere (`NW1 6XE`).
        (
            false,
            format!(
                r"(?P<zip>,\x20(?:{US_STATES})\x20\d{{5}}(?:-\d{{4}})?\b|(?:,\x20|(?m:^))(?:[A-Z]{{1,2}}-)?\d{{5}}\x20\p{{Lu}}\p{{Ll}}+)"
            ),
        ),
        (false, r"(?P<ukpc>\b[A-Z]{1,2}\d[A-Z\d]?\x20\d[ABD-HJLNP-UW-Z]{2}\b)".into()),
        // IBANs written in groups of four (`DE89 3704 0044 0532 0130 00`).
        (true, r"(?P<iban>\b[A-Z]{2}\d{2}(?:\x20[A-Z0-9]{4}){2,7}(?:\x20[A-Z0-9]{1,3})?\b)".into()),
        // SSNs; card numbers in fours (up to 19 digits), Amex/Diners 4-6-5/4-6-4,
        // masked cards (their last four digits); IBANs in one run; long digit runs.
        (
            false,
            concat!(
                r"(?P<number>\b\d{3}-\d{2}-\d{4}\b|\b\d{4}(?:[\x20\-]\d{4}){2,3}(?:[\x20\-]\d{1,4})?\b",
                r"|\b\d{4}[\x20\-]\d{6}[\x20\-]\d{4,5}\b|(?:[*xX•]{4}[\x20\-]?){3}\d{4}\b|[*•]{2,}\x20?\d{4}\b",
                r"|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\b\d{7,16}\b)",
            )
            .into(),
        ),
        // Phones: international (`+44 20 7946 0958`), a parenthesised area code
        // (`(11) 91234-5678`), a trunk 0 and groups with one kind of separator
        // (`020 7946 0958`, `01 23 45 67 89`, `03-1234-5678`), North American
        // 3-3-4 (`1-800-555-0134`). Checked by `phone_like`.
        (
            true,
            concat!(
                r"(?P<phone>\+\d{1,3}[\x20.\-]?\(?\d{1,4}\)?(?:[\x20.\-]?\d{2,4}){2,4}\b",
                r"|\(\d{2,5}\)\x20?\d{1,5}(?:[\x20.\-]\d{2,5}){0,3}\b",
                r"|\b0\d{1,4}(?:\x20\d{2,8}){1,4}\b|\b0\d{1,4}(?:\.\d{2,8}){1,4}\b|\b0\d{1,4}(?:-\d{2,8}){1,4}\b",
                r"|\b(?:1[.\-])?\d{3}[.\-]\d{3}[.\-]\d{4}\b|\b(?:1\x20)?[2-9]\d{2}\x20\d{3}\x20\d{4}\b)",
            )
            .into(),
        ),
        (false, r"(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)".into()),
        (false, r"(?P<chan>\b[CDGUW][A-Z0-9]{8,11}\b|\b\d{17,20}\b)".into()),
        // Passport-like: one or two capitals and 6 to 9 digits (`X1234567`).
        (false, r"(?P<passport>\b[A-Z]{1,2}\d{6,9}\b)".into()),
        // Plate-like: UK `AB12 CDE`, German `B-MW 1234`, French `AB-123-CD`.
        (false, r"(?P<plate>\b[A-Z]{2}\d{2}\x20[A-Z]{3}\b|\b[A-ZÄÖÜ]{1,3}-[A-Z]{1,2}\x20\d{1,4}[EH]?\b|\b[A-Z]{2}-\d{3}-[A-Z]{2}\b)".into()),
        (false, r"(?P<const>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)".into()),
        (false, r"(?P<tok>\b[A-Za-z]*\d[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*\b|\b[0-9a-f]{12,}\b)".into()),
        (false, r"(?P<word>[\p{L}\p{M}]+)".into()),
    ]
}

fn scan_regex(with_checked: bool) -> Regex {
    let parts: Vec<String> =
        classes().into_iter().filter(|(checked, _)| with_checked || !checked).map(|(_, p)| p).collect();
    Regex::new(&format!("(?x){}", parts.join("|"))).expect("anonymiser regex")
}

/// Every class of free text.
pub(super) static SCAN: LazyLock<Regex> = LazyLock::new(|| scan_regex(true));
/// The classes that are never turned down: for a span that a checked class turned down.
pub(super) static FALLBACK: LazyLock<Regex> = LazyLock::new(|| scan_regex(false));
/// The classes a tool name is searched for: what identifies a person or
/// opens an account (keys, emails, URLs, paths, IP addresses, long numbers),
/// never ordinary words — a tool name is kept, as the rules pair calls and
/// results on it, but a key or an address inside one is not.
pub(super) static IN_TOOL_NAMES: LazyLock<Regex> =
    LazyLock::new(|| classes_named(&["key", "email", "url", "path", "ip6", "ip", "number"]));
/// IP addresses and long numbers, for a tool name read with `_` as a space.
pub(super) static NUMBERS_IN_TOOL_NAMES: LazyLock<Regex> = LazyLock::new(|| classes_named(&["ip6", "ip", "number"]));
/// One regex of the classes of [`classes`] whose capture group is named in `names`.
fn classes_named(names: &[&str]) -> Regex {
    let parts: Vec<String> = classes()
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| names.iter().any(|n| p.starts_with(&format!("(?P<{n}>"))))
        .collect();
    Regex::new(&format!("(?x){}", parts.join("|"))).expect("anonymiser class regex")
}
/// An MCP tool name, its server segment in group 1.
pub(super) static MCP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bmcp__([A-Za-z0-9\-]+(?:_[A-Za-z0-9\-]+)*)__[A-Za-z0-9_\-]+").expect("mcp regex"));
/// A house number (or a postcode's digits) inside an address match.
pub(super) static HOUSE_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d{1,5}[A-Za-z]?\b").expect("number regex"));
