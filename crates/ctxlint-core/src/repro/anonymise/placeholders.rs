//! Placeholders, the same for every occurrence of one original: numbered
//! ones, ids of the same shape, personal data with every digit and letter
//! changed in place, and placeholder words (pronounceable first); and the
//! count of distinct originals replaced per class.

use super::Anonymiser;

impl Anonymiser {
    pub(super) fn note(&mut self, class: &'static str) {
        *self.counts.entry(class).or_insert(0) += 1;
    }

    pub(super) fn numbered(&mut self, class: &'static str, orig: &str, make: impl Fn(u64) -> String) -> String {
        if let Some(p) = self.map.get(&(class, orig.to_string())) {
            return p.clone();
        }
        let n = self.counters.entry(class).or_insert(0);
        *n += 1;
        let p = make(*n);
        self.note(class);
        self.used.insert(p.clone());
        self.map.insert((class, orig.to_string()), p.clone());
        p
    }

    /// A placeholder of the same shape: digits stay digits, letters stay
    /// letters of the same case (hex stays hex), everything else is kept; a
    /// short alphabetic prefix before `_` (`call_`, `toolu_`, `msg_`) is kept.
    pub(super) fn shape(&mut self, class: &'static str, orig: &str) -> String {
        if orig.is_empty() {
            return String::new();
        }
        if let Some(p) = self.map.get(&(class, orig.to_string())) {
            return p.clone();
        }
        let keep = match orig.find('_') {
            Some(i) if i <= 6 && orig[..i].chars().all(|c| c.is_ascii_alphabetic()) => i + 1,
            _ => 0,
        };
        let hex = orig[keep..].chars().all(|c| c.is_ascii_hexdigit() || !c.is_alphanumeric());
        let mut attempt = 0u64;
        loop {
            let n = self.counters.entry(class).or_insert(0);
            *n += 1;
            let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03);
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let body: String = orig[keep..]
                .chars()
                .map(|c| {
                    let r = next();
                    if c.is_ascii_digit() {
                        char::from(b'0' + (r % 10) as u8)
                    } else if hex && c.is_ascii_hexdigit() {
                        let d = b"0123456789abcdef"[(r % 16) as usize];
                        let ch = char::from(d);
                        if c.is_ascii_uppercase() { ch.to_ascii_uppercase() } else { ch }
                    } else if c.is_ascii_uppercase() {
                        char::from(b'A' + (r % 26) as u8)
                    } else if c.is_alphabetic() {
                        char::from(b'a' + (r % 26) as u8)
                    } else {
                        c
                    }
                })
                .collect();
            let p = format!("{}{}", &orig[..keep], body);
            attempt += 1;
            if (p != orig && !self.used.contains(&p)) || attempt > 8 {
                self.note(class);
                self.used.insert(p.clone());
                self.map.insert((class, orig.to_string()), p.clone());
                return p;
            }
        }
    }

    /// A placeholder for personal data of a fixed shape (phone, card, IBAN,
    /// address, passport, plate): every digit becomes another digit and every
    /// letter another letter of the same case, in place, so that no digit or
    /// letter of the original stays where it was; everything else is kept.
    pub(super) fn data(&mut self, class: &'static str, orig: &str) -> String {
        if let Some(p) = self.map.get(&(class, orig.to_string())) {
            return p.clone();
        }
        let mut attempt = 0u64;
        loop {
            let n = self.counters.entry(class).or_insert(0);
            *n += 1;
            let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let p: String = orig
                .chars()
                .map(|c| {
                    let r = next();
                    let other =
                        |base: u8, n: u8, c: u8| char::from(base + (c - base + 1 + (r % u64::from(n - 1)) as u8) % n);
                    if c.is_ascii_digit() {
                        other(b'0', 10, c as u8)
                    } else if c.is_ascii_uppercase() {
                        other(b'A', 26, c as u8)
                    } else if c.is_ascii_lowercase() {
                        other(b'a', 26, c as u8)
                    } else if c.is_alphabetic() {
                        // `Ä` in a plate: an ASCII letter.
                        char::from(if c.is_uppercase() { b'A' } else { b'a' } + (r % 26) as u8)
                    } else {
                        c
                    }
                })
                .collect();
            attempt += 1;
            if !self.used.contains(&p) || attempt > 8 {
                self.note(class);
                self.used.insert(p.clone());
                self.map.insert((class, orig.to_string()), p.clone());
                return p;
            }
        }
    }

    /// A placeholder word of the same length and case pattern (the mapping is
    /// per lower-cased word, so `Hello` and `hello` stay related).
    pub(super) fn word(&mut self, orig: &str) -> String {
        let lower = orig.to_lowercase();
        let base = match self.map.get(&("word", lower.clone())) {
            Some(p) => p.clone(),
            None => {
                let len = lower.chars().count();
                let mut p;
                let mut attempt = 0u32;
                loop {
                    let n = self.counters.entry("word").or_insert(0);
                    *n += 1;
                    // Pronounceable first; plain letters once those of this length run out;
                    // a repeat is accepted in the end rather than looping (short words only).
                    p = if attempt < 200 { syllables(*n, len) } else { letters(*n, len) };
                    attempt += 1;
                    if (!self.used.contains(&p) && p != lower) || attempt > 2_000 {
                        break;
                    }
                }
                self.note("word");
                self.used.insert(p.clone());
                self.map.insert(("word", lower), p.clone());
                p
            }
        };
        // Apply the original's case pattern.
        let upper_all = orig.chars().count() > 1 && orig.chars().all(|c| !c.is_lowercase());
        base.chars()
            .zip(orig.chars().chain(std::iter::repeat('a')))
            .map(|(p, o)| if upper_all || o.is_uppercase() { p.to_ascii_uppercase() } else { p })
            .collect()
    }
}

/// A placeholder of `len` letters, any letters.
fn letters(n: u64, len: usize) -> String {
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'a' + (x % 26) as u8)
        })
        .collect()
}

/// The `n`-th pronounceable placeholder word of `len` letters.
fn syllables(n: u64, len: usize) -> String {
    const C: &[u8] = b"bdfgklmnprstvz";
    const V: &[u8] = b"aeiou";
    let mut x = n.wrapping_mul(0x2545_F491_4F6C_DD1D);
    (0..len)
        .map(|i| {
            let set = if i % 2 == 0 { C } else { V };
            let c = set[(x % set.len() as u64) as usize];
            x /= set.len() as u64;
            if x == 0 {
                x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32 + 1) | 1;
            }
            char::from(c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_keep_their_shape() {
        let mut a = Anonymiser::new(Level::Full);
        let p = a.shape("id", "toolu_01AbC9");
        assert!(p.starts_with("toolu_") && p.len() == 12 && p != "toolu_01AbC9", "{p}");
        let u = a.shape("id", "8555a0a4-0b79-459d-939c-e17cdbbf4fe2");
        assert_eq!(u.len(), 36);
        assert!(u.chars().all(|c| c == '-' || c.is_ascii_hexdigit()), "{u}");
    }

    #[test]
    fn many_short_words_terminate() {
        let mut a = Anonymiser::new(Level::Full);
        let mut seen = HashSet::new();
        for i in 0..3_000u32 {
            let w: String = [b'a' + (i % 26) as u8, b'a' + (i / 26 % 26) as u8, b'a' + (i / 676 % 26) as u8]
                .iter()
                .map(|&b| char::from(b))
                .collect();
            let p = a.text(&w);
            assert_eq!(p.len(), 3);
            seen.insert(p);
        }
        assert!(seen.len() > 2_900, "{}", seen.len());
    }
}
