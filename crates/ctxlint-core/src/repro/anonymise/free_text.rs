//! Free text: the scan for the classes (a checked class may turn a match
//! down, its span then scanned again without the checked classes), the
//! placeholder of each class's match (keys, paths, IPv4 and IPv6 addresses,
//! street addresses, numbers, phones, ids, words) and the check that a
//! phone-shaped match is a phone.

use super::classes::{FALLBACK, HOUSE_NUMBER, SCAN};
use super::{Anonymiser, Level};
use regex::{Captures, Regex};

/// Words kept in free text: label shapes, envelopes and silent tokens the rules look for.
pub(super) const KEEP_WORDS: &[&str] =
    &["System", "untrusted", "aborted", "Sender", "Conversation", "info", "metadata"];

impl Anonymiser {
    /// Free text, with every class ([`SCAN`]) or without the checked ones ([`FALLBACK`]).
    pub(super) fn scan(&mut self, s: &str, checked: bool) -> String {
        let re: &Regex = if checked { &SCAN } else { &FALLBACK };
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in re.captures_iter(s) {
            let Some(m) = c.get(0) else { continue };
            out.push_str(&s[last..m.start()]);
            match self.replace(&c, &s[..m.start()], &s[m.end()..]) {
                Some(r) => out.push_str(&r),
                // Turned down: the span again, without the checked classes.
                None if checked => {
                    let r = self.scan(m.as_str(), false);
                    out.push_str(&r);
                }
                None => out.push_str(m.as_str()),
            }
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }

    /// The placeholder of one match, `None` when a checked class turns it down
    /// (`before` and `after`: the text around it).
    pub(super) fn replace(&mut self, c: &Captures, before: &str, after: &str) -> Option<String> {
        let m = &c[0];
        if c.name("label").is_some() || c.name("ts").is_some() || c.name("tag").is_some() || c.name("const").is_some() {
            return Some(m.to_string());
        }
        if c.name("key").is_some() {
            return Some(self.key(m));
        }
        if c.name("email").is_some() {
            return Some(self.numbered("email", m, |n| format!("user{n}@example.com")));
        }
        if c.name("url").is_some() {
            return Some(self.numbered("url", m, |n| format!("https://example.com/page{n}")));
        }
        if c.name("path").is_some() {
            return Some(self.path(m));
        }
        if c.name("mcp").is_some() {
            return Some(self.tool_names(m));
        }
        if c.name("ip6").is_some() {
            return self.ip6(m, before, after);
        }
        if c.name("ip").is_some() {
            return Some(self.ipv4(m));
        }
        if c.name("addr").is_some() || c.name("zip").is_some() {
            return Some(self.address(m));
        }
        if c.name("ukpc").is_some() {
            return Some(self.data("address", m));
        }
        if c.name("iban").is_some() {
            let alnum = m.chars().filter(char::is_ascii_alphanumeric).count();
            let digits = m.chars().filter(char::is_ascii_digit).count();
            return ((15..=34).contains(&alnum) && digits >= 8).then(|| self.data("number", m));
        }
        if c.name("number").is_some() {
            // A masked card (`**** **** **** 4242`, `XXXX-XXXX-XXXX-4242`) keeps its mask; its last digits go.
            let masked = m.starts_with(['*', '•']) || m.chars().take(4).all(|c| matches!(c, 'x' | 'X'));
            if let Some(i) = m.find(|c: char| c.is_ascii_digit()).filter(|_| masked) {
                let tail = self.data("number", &m[i..]);
                return Some(format!("{}{tail}", &m[..i]));
            }
            return Some(self.data("number", m));
        }
        if c.name("phone").is_some() {
            return phone_like(m, before, after).then(|| self.data("phone", m));
        }
        if c.name("passport").is_some() {
            return Some(self.data("passport", m));
        }
        if c.name("plate").is_some() {
            return Some(self.data("plate", m));
        }
        if c.name("uuid").is_some() || c.name("tok").is_some() {
            return Some(self.shape("id", m));
        }
        if c.name("chan").is_some() && m.chars().any(|c| c.is_ascii_digit()) {
            return Some(self.shape("channel-id", m));
        }
        // A word. At the lighter level only capitalised words (likely names) go.
        let capitalised = m.chars().next().is_some_and(char::is_uppercase) && m.chars().skip(1).any(char::is_lowercase);
        if (self.level == Level::Identifiers && !capitalised) || m.chars().count() <= 2 || KEEP_WORDS.contains(&m) {
            return Some(m.to_string());
        }
        Some(self.word(m))
    }

    /// A path: `/home/user<n>/file<n>` with the original's extension, as long
    /// as the original (padded in the file name): a block's length can decide
    /// a finding (`context-block-min`).
    fn path(&mut self, m: &str) -> String {
        let ext = m.rsplit(['/', '\\']).next().and_then(|last| last.rsplit_once('.')).map(|(_, e)| e);
        let ext = ext.filter(|e| e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric()));
        let dir = m.ends_with('/');
        let want = m.chars().count();
        self.numbered("path", m, |n| {
            let mut p = format!("/home/user{n}/file{n}");
            let tail = ext.map_or(0, |e| e.len() + 1) + usize::from(dir);
            if p.len() + tail < want {
                p.push('_');
                while p.len() + tail < want {
                    p.push('x');
                }
            }
            if let Some(e) = ext {
                p.push('.');
                p.push_str(e);
            }
            if dir {
                p.push('/');
            }
            p
        })
    }

    /// An IPv4 address: one of the documentation range `192.0.2.0/24` (RFC 5737).
    fn ipv4(&mut self, m: &str) -> String {
        self.numbered("ip", m, |n| format!("192.0.2.{}", n % 250 + 1))
    }

    /// An IPv6 address, replaced whole: `fd00::<n>` (a unique local address,
    /// RFC 4193), the same for every spelling of one address; an IPv4-mapped
    /// one (`::ffff:a.b.c.d`) keeps its prefix and has its IPv4 replaced as an
    /// IPv4 address. A zone (`%eth0`) is kept. Turned down: a span that does
    /// not parse as an address, has no digit, is part of a longer token
    /// (`std::a1`, `a::1::2`), is a Python slice (`x[::2]`, `x[1::2]`) or a
    /// Rust float path (`f64::add`).
    fn ip6(&mut self, m: &str, before: &str, after: &str) -> Option<String> {
        let (addr, zone) = match m.split_once('%') {
            Some((a, z)) => (a, Some(z)),
            None => (m, None),
        };
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let mut back = before.chars().rev();
        let (b1, b2) = (back.next(), back.next());
        if !addr.bytes().any(|b| b.is_ascii_digit())
            || b1.is_some_and(|c| word(c) || c == ':')
            || (b1 == Some('[') && b2.is_some_and(|c| word(c) || c == ')' || c == ']'))
        {
            return None;
        }
        let mut next = after.chars();
        match next.next() {
            Some(c) if c.is_alphanumeric() || c == '_' => return None,
            Some(':') if next.next().is_some_and(|c| c == ':' || c.is_ascii_hexdigit()) => return None,
            _ => {}
        }
        if addr.split(':').next().is_some_and(|g| matches!(g, "f16" | "f32" | "f64" | "f128")) {
            return None;
        }
        let ip: std::net::Ipv6Addr = addr.parse().ok()?;
        let zone = zone.map(|z| format!("%{z}")).unwrap_or_default();
        if let Some((head, v4)) = addr.rsplit_once(':').filter(|(_, v4)| v4.contains('.')) {
            if matches!(head.to_ascii_lowercase().as_str(), "::ffff" | ":" | "::ffff:0") {
                let v4 = self.ipv4(v4);
                return Some(format!("{head}:{v4}{zone}"));
            }
        }
        let p = self.numbered("ip", &ip.to_string(), |n| format!("fd00::{n:x}"));
        Some(format!("{p}{zone}"))
    }

    /// An address: its house numbers and postcode digits are replaced (as
    /// `address`), its words as any other words.
    fn address(&mut self, m: &str) -> String {
        let mut out = String::with_capacity(m.len());
        let mut last = 0;
        for n in HOUSE_NUMBER.find_iter(m) {
            let words = self.text(&m[last..n.start()]);
            out.push_str(&words);
            let p = self.data("address", n.as_str());
            out.push_str(&p);
            last = n.end();
        }
        let words = self.text(&m[last..]);
        out.push_str(&words);
        out
    }

    /// An API key or token: its recognisable prefix, `REDACTED`, a number.
    fn key(&mut self, orig: &str) -> String {
        if let Some((scheme, _)) = orig.split_once("://") {
            // Credentials in a URL: the user and the password both go.
            let scheme = scheme.to_string();
            return self.numbered("key", orig, |n| format!("{scheme}://user{n}:REDACTED@"));
        }
        if orig.starts_with("-----BEGIN") {
            return self.numbered("key", orig, |n| {
                format!("-----BEGIN PRIVATE KEY-----\nREDACTED-{n:06}\n-----END PRIVATE KEY-----")
            });
        }
        let prefix: String = {
            let lower = orig.to_ascii_lowercase();
            if lower.starts_with("bearer") {
                "Bearer ".into()
            } else if orig.starts_with("eyJ") {
                // A JWT is replaced whole: its header and payload are data too.
                "eyJ".into()
            } else if let Some(i) = orig.find(['-', '_']).filter(|&i| i <= 12) {
                orig[..=i].to_string()
            } else {
                orig.chars().take(4).collect()
            }
        };
        self.numbered("key", orig, |n| format!("{prefix}REDACTED-{n:06}"))
    }
}

/// Whether a phone-shaped match is a phone: 8 to 15 digits (E.164 allows 15),
/// not a date written with dots, dashes or spaces (`01.02.2024`), and not part
/// of a longer run of digit groups (`1 048 576`, `256 512 1024 2048`: the text
/// `before` it ends, or the text `after` it starts, with a separator and a digit).
fn phone_like(m: &str, before: &str, after: &str) -> bool {
    let groups: Vec<&str> = m.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).collect();
    let digits: usize = groups.iter().map(|g| g.len()).sum();
    if !(8..=15).contains(&digits) {
        return false;
    }
    let sep = |c: Option<char>| c.is_some_and(|c| matches!(c, ' ' | '.' | '-' | ','));
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    let mut back = before.chars().rev();
    if !m.starts_with('+') && sep(back.next()) && digit(back.next()) {
        return false;
    }
    let mut ahead = after.chars();
    if sep(ahead.next()) && digit(ahead.next()) {
        return false;
    }
    let in_range = |g: &str, max: u32| g.len() <= 2 && g.parse::<u32>().is_ok_and(|v| (1..=max).contains(&v));
    let date = match groups.as_slice() {
        [a, b, y] if y.len() == 4 && !m.starts_with(['+', '(']) => {
            (in_range(a, 31) && in_range(b, 12)) || (in_range(a, 12) && in_range(b, 31))
        }
        _ => false,
    };
    !date
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwts_pem_blocks_and_url_credentials_go_whole() {
        let mut a = Anonymiser::new(Level::Identifiers);
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZUBleGFtcGxlLm9yZyJ9.dBjf-J_xK9sP2mQ7rT4vW1yZ";
        assert_eq!(a.text(&format!("auth {jwt} done")), "auth eyJREDACTED-000001 done");
        let out = a.text("clone https://deploy:S3cr3tPassw0rd@git.example.com/r.git");
        assert!(!out.contains("S3cr3t") && !out.contains("deploy"), "{out}");
        let pem =
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----";
        assert_eq!(a.text(pem), "-----BEGIN PRIVATE KEY-----\nREDACTED-000003\n-----END PRIVATE KEY-----");
    }

    #[test]
    fn numbers_addresses_and_bracketed_emails_are_replaced() {
        let mut a = Anonymiser::new(Level::Full);
        let planted = [
            "alice@example.org",
            "123-45-6789",
            "4111 1111 1111 1111",
            "4155550100",
            "203.0.113.45",
            "DE89370400440532013000",
        ];
        let s = "From Alice <alice@example.org>, SSN 123-45-6789, card 4111 1111 1111 1111, \
                 call 4155550100 at 203.0.113.45, IBAN DE89370400440532013000 <b>bold</b>";
        let out = a.text(s);
        for p in planted {
            assert!(!out.contains(p), "{p} survived in {out}");
        }
        assert!(!out.contains("alice"), "{out}");
        assert!(out.contains("<b>") && out.contains("</b>"), "closed tags are kept: {out}");
    }

    #[test]
    fn keeps_labels_timestamps_and_silent_tokens() {
        let mut a = Anonymiser::new(Level::Full);
        let out = a
            .text("System: [2026-06-20 09:14:02 UTC] Slack DM from Bob\nNO_REPLY <system-reminder>x</system-reminder>");
        assert!(out.starts_with("System: [2026-06-20 09:14:02 UTC] "), "{out}");
        assert!(out.contains("NO_REPLY"), "{out}");
        assert!(out.contains("<system-reminder>"), "{out}");
        assert!(!out.contains("Bob") && !out.contains("Slack"), "{out}");
        // Same length, same case pattern.
        assert_eq!(
            out.len(),
            "System: [2026-06-20 09:14:02 UTC] Slack DM from Bob\nNO_REPLY <system-reminder>x</system-reminder>".len()
        );
    }

    #[test]
    fn the_lighter_level_keeps_common_words_but_not_names() {
        let mut a = Anonymiser::new(Level::Identifiers);
        let out = a.text("please ask Alice about the deploy");
        assert!(out.starts_with("please ask ") && out.ends_with(" about the deploy"), "{out}");
        assert!(!out.contains("Alice"), "{out}");
    }

    /// Asserts that `out` has the shape of `orig` (same length, the same
    /// non-alphanumeric characters in place) and that no digit or letter of
    /// `orig` is left where it was.
    fn every_character_changed(orig: &str, out: &str) {
        assert_eq!(orig.chars().count(), out.chars().count(), "{orig} -> {out}");
        for (o, p) in orig.chars().zip(out.chars()) {
            if o.is_alphanumeric() {
                assert_ne!(o, p, "{o} survived in {orig} -> {out}");
                assert_eq!(o.is_ascii_digit(), p.is_ascii_digit(), "{orig} -> {out}");
            } else {
                assert_eq!(o, p, "{orig} -> {out}");
            }
        }
    }

    /// The groups of two or more characters of `s` that hold a digit (`020 7946 0958` → `020`, `7946`, `0958`).
    fn groups(s: &str) -> Vec<&str> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|g| g.len() > 1 && g.chars().any(|c| c.is_ascii_digit()))
            .collect()
    }

    #[test]
    fn national_phone_formats_are_replaced_digit_for_digit() {
        let mut a = Anonymiser::new(Level::Identifiers);
        let cases = [
            ("020 7946 0958", "437 3320 5416"),
            ("07700 900123", "22044 896302"),
            ("01 23 45 67 89", "43 07 14 86 25"),
            ("03-1234-5678", "16-0746-2523"),
            ("(11) 91234-5678", "(82) 40627-9206"),
            ("030 12345678", "366 41224425"),
            ("(020) 7946.0958", "(394) 5628.1133"),
            ("+44 20 7946 0958", "+51 04 6763 2127"),
            ("1-800-555-0134", "8-762-172-4960"),
            ("415 555 0134", "936 932 7941"),
        ];
        for (orig, want) in cases {
            let out = a.text(&format!("call {orig} today"));
            assert_eq!(out, format!("call {want} today"), "{orig}");
            every_character_changed(orig, want);
            for g in groups(orig) {
                assert!(!out.contains(g), "{g} of {orig} survived: {out}");
            }
        }
        // The same number, the same placeholder; counted as phones.
        assert_eq!(a.text("020 7946 0958"), cases[0].1);
        assert_eq!(a.counts().get("phone"), Some(&cases.len()));
    }

    #[test]
    fn card_numbers_lose_every_digit() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("4111 1111 1111 1111", "8285 5959 6793 3306"),
            ("4111-1111-1111-1111", "6645-7007-9020-5759"),
            ("4111111111111111", "8379568073085748"),
            ("3782 822463 10005", "4031 946158 64694"),
            ("3056 930902 5904", "0767 424834 1288"),
            ("6304 0000 0000 0000 018", "9669 9989 5761 8746 653"),
        ] {
            let out = a.text(&format!("card {orig}, thanks"));
            assert_eq!(out, format!("card {want}, thanks"), "{orig}");
            every_character_changed(orig, want);
        }
        // A masked card keeps its mask and loses its last four digits.
        assert_eq!(a.text("card **** **** **** 4242 on file"), "card **** **** **** 7516 on file");
        assert_eq!(a.text("XXXX-XXXX-XXXX-4242"), "XXXX-XXXX-XXXX-7516");
        assert_eq!(a.counts().get("number"), Some(&7));
    }

    #[test]
    fn ibans_lose_their_country_check_digits_and_tail() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("DE89 3704 0044 0532 0130 00", "SD53 7542 5626 2727 4381 29"),
            ("GB82 WEST 1234 5698 7654 32", "RH16 EDQC 9143 9236 2547 71"),
            ("DE89370400440532013000", "XN47727362314169902764"),
            ("GB82WEST12345698765432", "XD31QOYG81890057638951"),
        ] {
            let out = a.text(&format!("IBAN {orig}."));
            assert_eq!(out, format!("IBAN {want}."), "{orig}");
            every_character_changed(orig, want);
        }
        // Capital groups with no digits in them are words, not an IBAN.
        assert_eq!(a.text("AB12 CDEF GHIJ KLMN"), "AB12 CDEF GHIJ KLMN");
    }

    #[test]
    fn passport_and_plate_like_ids_are_replaced() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want, class) in [
            ("X1234567", "M2970941", "passport"),
            ("AB1234567", "LH4670453", "passport"),
            ("L898902C3", "L400857M7", "id"),
            ("C01X00T47", "L40Y85D07", "channel-id"),
            ("AB12 CDE", "PA86 SVF", "plate"),
            ("B-MW 1234", "M-RC 7120", "plate"),
            ("AB-123-CD", "UK-968-EG", "plate"),
            ("7ABC123", "2CD9478", "id"),
        ] {
            let before = a.counts().get(class).copied().unwrap_or(0);
            let out = a.text(&format!("id {orig} seen"));
            assert_eq!(out, format!("id {want} seen"), "{orig}");
            assert_eq!(a.counts().get(class).copied().unwrap_or(0), before + 1, "{orig} as {class}");
            if class == "passport" || class == "plate" {
                every_character_changed(orig, want);
            } else {
                assert_eq!(want.len(), orig.len());
            }
        }
    }

    #[test]
    fn ipv6_addresses_are_replaced_whole() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("2001:db8::1", "fd00::1"),
            ("2001:0db8:0000:0000:0000:0000:0000:0001", "fd00::1"),
            ("2a00:1450:4001:82b::200e", "fd00::2"),
            ("fe80::1ff:fe23:4567:890a%eth0", "fd00::3%eth0"),
            ("::1", "fd00::4"),
            ("2001:db8:85a3:8d3:1319:8a2e:370:7348", "fd00::5"),
            ("::ffff:81.2.69.142", "::ffff:192.0.2.7"),
        ] {
            let out = a.text(&format!("from [{orig}]:443"));
            assert_eq!(out, format!("from [{want}]:443"), "{orig}");
            for g in orig.split([':', '.', '%']).filter(|g| g.len() > 1 && g.chars().any(|c| c.is_ascii_digit())) {
                assert!(!want.split([':', '.']).any(|w| w == g), "{g} of {orig} survived");
            }
        }
        // The embedded IPv4 is the same address as the plain one.
        assert_eq!(a.text("81.2.69.142"), "192.0.2.7");
    }

    #[test]
    fn street_numbers_and_postcodes_are_replaced() {
        let mut a = Anonymiser::new(Level::Identifiers);
        for (orig, want) in [
            ("221B Baker Street, London NW1 6XE", "638M Dubin Fodubu, Gifepo YC4 0FD"),
            (
                "1600 Amphitheatre Parkway, Mountain View, CA 94043",
                "5868 Kegodorirufo Lakarip, Mukifine Lida, CA 07538",
            ),
            ("Hauptstraße 5, 10115 Berlin", "Mefibaborut 2, 43768 Nagunu"),
            ("Via Roma 10, 00184 Roma", "Pug Roko 43, 71872 Roko"),
            ("12 rue de la Paix, 75002 Paris", "85 rue de la Sila, 27176 Temir"),
            ("ZIP: Springfield, IL 62704-1234", "ZIP: Sufabefibip, IL 78662-7545"),
        ] {
            let out = a.text(orig);
            assert_eq!(out, want, "{orig}");
            for g in groups(orig) {
                assert!(!out.contains(g), "{g} of {orig} survived: {out}");
            }
        }
    }

    #[test]
    fn ordinary_numbers_times_and_code_are_kept() {
        let keep = "System: [2026-06-20 09:14:02 UTC] at 10:30 and 09:14:02.123, 2026-06-20T09:14:02Z, v1.2.3, 0.12.4, \
                    10.0.1, 3 files, 12 345 bytes, 1 048 576 bytes, 15.01.2024, 01.02.2024, 31-12-2024, line 42:7, \
                    main.rs:120:5, localhost:8080, port 8080, 100%, pages 10-20, 2023-2024, (1) 2 3, \
                    sizes 256 512 1024 2048, std::fs::read, a::b, io::stdin, x[::2], x[1::2], f64::EPSILON, \
                    NO_REPLY, HEARTBEAT_OK, CTX301, ISO 8601, RFC 3339, UTF-8, sha256, x86_64, <system-reminder>";
        let mut a = Anonymiser::new(Level::Identifiers);
        assert_eq!(a.text(keep), keep);
        assert!(a.counts().is_empty(), "{:?}", a.counts());
        // Hex ids go as ids, not as addresses or phones.
        let out = a.text("commit deadbeefcafe1234 and 0a1b2c3d");
        assert_eq!(out, "commit d664c9fabe537033 and 2c794389");
        assert_eq!(a.counts().into_keys().collect::<Vec<_>>(), ["id"]);
        // At the full level the numbers are still kept; only words change.
        let mut a = Anonymiser::new(Level::Full);
        let out = a.text("at 10:30, v1.2.3, 3 files, 12 345 bytes, line 42:7, localhost:8080, 15.01.2024");
        for kept in ["10:30", "v1.2.3", "3 ", "12 345 ", "42:7", ":8080", "15.01.2024"] {
            assert!(out.contains(kept), "{kept} in {out}");
        }
    }
}
