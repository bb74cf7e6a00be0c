//! Properties of `fence` (docs/spec.md §3) on generated pi sessions, through the
//! library API:
//! - appending owned, valid entries gives `append-owned`;
//! - changing any single byte of OLD after line 1 gives `rewrite` at exactly
//!   that byte and its line; in line 1 (the pi header), `replaced`;
//! - any truncation gives `truncate` at NEW's last line;
//! - appending a user message gives `append-foreign` at that line;
//! - the fingerprint form agrees (owned appends), or reports line 1 (changes).

use ctxlint::fence::{Baseline, FenceOptions, Verdict, fence};
use proptest::prelude::*;
use serde_json::json;

/// A pi v3 session: header, then `n` message entries chained (with some forks).
fn session(texts: &[String], forks: &[usize]) -> (String, Vec<String>) {
    let mut out = json!({"type":"session","version":3,"id":"7c0d9a51-1111-4222-8333-944455556666","timestamp":"2026-07-01T00:00:00.000Z","cwd":"/w"}).to_string();
    out.push('\n');
    let mut ids: Vec<String> = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let id = format!("{:08x}", 0x1000 + i);
        let parent = match ids.len() {
            0 => None,
            n => Some(ids[n - 1 - forks.get(i).copied().unwrap_or(0) % n].clone()),
        };
        let role = ["user", "assistant", "toolResult"][i % 3];
        let line = json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-07-01T00:00:01.000Z",
            "message":{"role":role,"content":[{"type":"text","text":t}]}});
        out.push_str(&line.to_string());
        out.push('\n');
        ids.push(id);
    }
    (out, ids)
}

/// An owned entry of kind `k` (0..6) with a fresh id and the given parent.
fn owned_entry(k: usize, id: &str, parent: &str, text: &str) -> String {
    let v = match k % 6 {
        0 => {
            json!({"type":"message","id":id,"parentId":parent,"message":{"role":"assistant","content":[{"type":"text","text":text}],"provider":"anthropic","model":"m"}})
        }
        1 => {
            json!({"type":"message","id":id,"parentId":parent,"message":{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":text}]}})
        }
        2 => {
            json!({"type":"message","id":id,"parentId":parent,"message":{"role":"bashExecution","command":"ls","output":text,"exitCode":0}})
        }
        3 => json!({"type":"custom","id":id,"parentId":parent,"customType":"x","data":{"t":text}}),
        4 => json!({"type":"label","id":id,"parentId":parent,"targetId":parent,"label":text}),
        _ => {
            json!({"type":"message","id":id,"parentId":parent,"message":{"role":"assistant","content":[{"type":"text","text":text}],"provider":"openclaw","model":"delivery-mirror"}})
        }
    };
    v.to_string() + "\n"
}

fn user_entry(id: &str, parent: &str, text: &str) -> String {
    json!({"type":"message","id":id,"parentId":parent,"message":{"role":"user","content":[{"type":"text","text":text}]}}).to_string() + "\n"
}

fn judge(old: &[u8], new: &[u8]) -> ctxlint::fence::FenceReport {
    let dir = tempfile::tempdir().unwrap();
    let (o, n) = (dir.path().join("old.jsonl"), dir.path().join("new.jsonl"));
    std::fs::write(&o, old).unwrap();
    std::fs::write(&n, new).unwrap();
    fence(
        &Baseline::File(o.to_string_lossy().into_owned()),
        &n.to_string_lossy(),
        &FenceOptions { owned: None, hashes: true },
    )
    .unwrap()
}

/// The fingerprint form: NEW against OLD's size and SHA-256.
fn judge_fingerprint(old: &[u8], new: &[u8]) -> ctxlint::fence::FenceReport {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let n = dir.path().join("new.jsonl");
    std::fs::write(&n, new).unwrap();
    let baseline = Baseline::Fingerprint { size: old.len() as u64, sha256: Some(Sha256::digest(old).into()) };
    fence(&baseline, &n.to_string_lossy(), &FenceOptions::default()).unwrap()
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[ -~\u{e9}\u{4e2d}\n\"\\\\]{0,40}", 1..12)
}

fn line_of(bytes: &[u8], offset: usize) -> u32 {
    bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn owned_appends_are_accepted(t in texts(), forks in prop::collection::vec(0usize..3, 12), kinds in prop::collection::vec((0usize..6, 0usize..100, "[a-z ]{0,20}"), 1..8)) {
        let (old, mut ids) = session(&t, &forks);
        let mut new = old.clone();
        for (i, (k, p, text)) in kinds.iter().enumerate() {
            let id = format!("a{:07x}", i);
            let parent = ids[p % ids.len()].clone();
            new.push_str(&owned_entry(*k, &id, &parent, text));
            ids.push(id);
        }
        let r = judge(old.as_bytes(), new.as_bytes());
        prop_assert_eq!(r.verdict, Verdict::AppendOwned, "{:?}", r.findings.iter().map(|f| &f.message).collect::<Vec<_>>());
        prop_assert!(r.findings.is_empty());
        prop_assert_eq!(r.appended.len(), kinds.len());
        prop_assert_eq!(r.appended[0].line, t.len() as u32 + 2);
        let f = judge_fingerprint(old.as_bytes(), new.as_bytes());
        prop_assert_eq!(f.verdict, Verdict::AppendOwned);
        prop_assert_eq!(f.appended.len(), kinds.len());
    }

    #[test]
    fn a_single_changed_byte_is_located(t in texts(), at in any::<prop::sample::Index>(), delta in 1u8..=255, tail in prop::option::of("[a-z]{1,10}")) {
        let (old, ids) = session(&t, &[]);
        let old = old.into_bytes();
        let i = at.index(old.len());
        let mut new = old.clone();
        new[i] = new[i].wrapping_add(delta);
        if let Some(text) = tail {
            new.extend_from_slice(owned_entry(0, "b0000001", &ids[0], &text).as_bytes());
        }
        let r = judge(&old, &new);
        let line = line_of(&old, i);
        let d = r.first_difference.expect("a difference");
        prop_assert_eq!(d.byte_offset, i as u64);
        prop_assert_eq!(d.line, line);
        prop_assert_eq!(r.verdict, if line == 1 { Verdict::Replaced } else { Verdict::Rewrite });
        prop_assert_eq!(r.findings.len(), 1);
        prop_assert_eq!(r.findings[0].rule.name(), "not-append-only");
        prop_assert_eq!(r.findings[0].line, Some(line));
        prop_assert_eq!(r.findings[0].byte_offset, Some(i as u64));
        // Against a fingerprint the change cannot be located: line 1, no offset.
        let f = judge_fingerprint(&old, &new);
        prop_assert_eq!(f.verdict, Verdict::Rewrite);
        prop_assert_eq!(f.findings.len(), 1);
        prop_assert_eq!(f.findings[0].line, Some(1));
        prop_assert_eq!(f.findings[0].byte_offset, None);
    }

    #[test]
    fn any_truncation_is_a_truncate(t in texts(), at in any::<prop::sample::Index>()) {
        let (old, _) = session(&t, &[]);
        let old = old.into_bytes();
        let k = at.index(old.len()); // 0 ..= len-1: always a proper prefix
        let new = &old[..k];
        let r = judge(&old, new);
        prop_assert_eq!(r.verdict, Verdict::Truncate);
        let last = if k == 0 { 1 } else if new[k - 1] == b'\n' { line_of(new, k) - 1 } else { line_of(new, k) };
        prop_assert_eq!(r.findings.len(), 1);
        prop_assert_eq!(r.findings[0].rule.name(), "not-append-only");
        prop_assert_eq!(r.findings[0].line, Some(last));
    }

    #[test]
    fn an_appended_user_message_is_foreign(t in texts(), before in prop::collection::vec((0usize..6, "[a-z]{0,8}"), 0..4), after in 0usize..3, text in "[ -~]{0,30}") {
        let (old, ids) = session(&t, &[]);
        let mut new = old.clone();
        let mut last = ids.last().unwrap().clone();
        for (i, (k, s)) in before.iter().enumerate() {
            let id = format!("c{:07x}", i);
            new.push_str(&owned_entry(*k, &id, &last, s));
            last = id;
        }
        new.push_str(&user_entry("d0000001", &last, &text));
        for i in 0..after {
            let id = format!("e{:07x}", i);
            new.push_str(&owned_entry(i, &id, "d0000001", "x"));
        }
        let r = judge(old.as_bytes(), new.as_bytes());
        prop_assert_eq!(r.verdict, Verdict::AppendForeign);
        prop_assert_eq!(r.findings.len(), 1);
        prop_assert_eq!(r.findings[0].rule.name(), "foreign-append");
        prop_assert_eq!(r.findings[0].line, Some(t.len() as u32 + 2 + before.len() as u32));
    }

    #[test]
    fn arbitrary_bytes_get_the_byte_level_verdict(
        old in prop::collection::vec(prop::sample::select(b"{}[]\":,ab01 \n\r\x00\xff".to_vec()), 0..200),
        new in prop::collection::vec(prop::sample::select(b"{}[]\":,ab01 \n\r\x00\xff".to_vec()), 0..200),
        extend in any::<bool>(),
    ) {
        // NEW is either unrelated bytes or OLD plus them: fence never panics, and the
        // byte-level class of its verdict follows from the bytes alone.
        let new = if extend { [old.clone(), new].concat() } else { new };
        let dir = tempfile::tempdir().unwrap();
        let (o, n) = (dir.path().join("old"), dir.path().join("new"));
        std::fs::write(&o, &old).unwrap();
        std::fs::write(&n, &new).unwrap();
        let r = fence(&Baseline::File(o.to_string_lossy().into_owned()), &n.to_string_lossy(), &FenceOptions { owned: None, hashes: true });
        let appends = new.len() > old.len() && new.starts_with(&old);
        match r {
            Err(e) => prop_assert!(appends, "error {} for a non-append", e),
            Ok(r) => {
                let want: &[Verdict] = if new == old {
                    &[Verdict::Identical]
                } else if old.starts_with(&new) {
                    &[Verdict::Truncate]
                } else if appends {
                    &[Verdict::AppendMalformed, Verdict::AppendForeign, Verdict::AppendOwned]
                } else {
                    &[Verdict::Replaced, Verdict::Rewrite]
                };
                prop_assert!(want.contains(&r.verdict), "{:?} not in {:?}", r.verdict, want);
                prop_assert_eq!(r.verdict.is_clean(), r.findings.is_empty());
            }
        }
    }
}
