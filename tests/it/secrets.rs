//! No secret in any output (issue 15): every shape planted in every place a
//! finding can quote — event lines, user turns, tool results, tool-call
//! arguments, system prompts, entry, parent and tool ids, tool names, torn
//! lines, fence diffs and appended lines, file names, configuration errors,
//! `repro --source` — and every output of `check` (each format), `show`,
//! `diff`, `fence` and `repro` searched for the secret's distinctive middle.
//! The secrets are realistic fakes.

use assert_cmd::Command;
use serde_json::json;
use std::path::Path;

/// A planted secret and the parts of it that must never be printed.
struct Planted {
    secret: &'static str,
    middles: &'static [&'static str],
}

const SECRETS: &[Planted] = &[
    Planted { secret: "sk-ant-api03-Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk", middles: &["Ty5Ui6Op7As8"] },
    Planted { secret: "sk-proj-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff", middles: &["Cv6Bn5Mm4L"] },
    Planted {
        secret: "AKIAZ7QWERTY12345678 wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        middles: &["QWERTY12345678", "XUtnFEMI/K7MDENG"],
    },
    Planted { secret: "aws_secret_access_key = Hx9Lr2Vq8Pt4Wm6Nc1Zb7Ky3Js5Fd0Ga/E+uQoIi", middles: &["Vq8Pt4Wm6Nc1"] },
    Planted { secret: "xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f6a7b", middles: &["0123456789-12345"] },
    Planted { secret: "xoxe-1-My0xLTEtVDAxMjM0NTY3ODkwLTEyMzQ1Njc4", middles: &["LTEtVDAxMjM0"] },
    Planted { secret: "xoxb-2048-4096-Qp0Wo9Ei8Ru7Ty6Ui5", middles: &["4096-Qp0Wo9Ei8"] },
    Planted {
        secret: "https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/q1w2e3r4t5y6u7i8o9p0AbCd",
        middles: &["T01ABCDEF/B02", "q1w2e3r4t5y6"],
    },
    Planted { secret: "ya29.a0AfB_byC1d2E3f4G5h6I7j8K9l0MnOpQrStUv", middles: &["AfB_byC1d2E3"] },
    Planted { secret: "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx1234", middles: &["EfGhIjKlMnOp"] },
    Planted { secret: "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", middles: &["C3d4E5f6G7h8"] },
    Planted { secret: "Authorization: Basic dXNlcjpodW50ZXIyLXN1cGVy", middles: &["cjpodW50ZXIy"] },
    // Issue 32's held-out shapes: a doubled prefix, a bare credential, an
    // AWS key id with a character glued after it.
    Planted {
        secret: "Authorization: Basic Authorization: Basic Zm9vOmJhcjEyMzQ1Njc4OQ==",
        middles: &["OmJhcjEyMzQ1"],
    },
    Planted { secret: "Basic YWxpY2U6czNjcjN0LXBhc3M=", middles: &["ZTpzM2NyM3Qt"] },
    Planted { secret: "AKIAZ7QWERTY12345678x", middles: &["QWERTY12345678"] },
    Planted { secret: "https://deploy:S3cr3tPassw0rdXyz@git.example.com/r.git", middles: &["S3cr3tPassw0rd"] },
    Planted {
        secret: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----",
        middles: &["LfVLPHCozMxH2Mo"],
    },
    Planted { secret: "sk_live_51Hx2Ab3Cd4Ef5Gh6Ij7Kl8Mn9", middles: &["Hx2Ab3Cd4Ef5"] },
    Planted { secret: "rk_live_51Jy3Bc4De5Fg6Hi7Jk8Lm9No0", middles: &["Jy3Bc4De5Fg6"] },
    Planted { secret: "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", middles: &["GhIjKlMnOpQr"] },
    Planted {
        secret: "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==",
        middles: &["YmFyYmF6cXV4"],
    },
    Planted { secret: "glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm", middles: &["Vu7Ts6Rq5P"] },
    Planted { secret: "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWxYz", middles: &["Ef3Gh4Ij5Kl6"] },
    Planted {
        secret: "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",
        middles: &["Ef3Gh4Ij5Kl6", "tU0vW1xY2zA3"],
    },
    Planted { secret: "gsk_Q2w3E4r5T6y7U8i9O0pAaSsDdFfGgHhJjKk", middles: &["T6y7U8i9O0pA"] },
    Planted { secret: "Bearer: Xq7Wv3Ub9Tn5Rm1Lk8", middles: &["Ub9Tn5Rm1L"] },
    Planted { secret: "bearer=Pz4Oy8Nx2Mw6Lv0Ku3", middles: &["Nx2Mw6Lv0K"] },
    Planted { secret: "Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", middles: &["b09199c62bcf94"] },
    Planted {
        secret: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZUBleGFtcGxlLm9yZyJ9.dBjf-J_xK9sP2mQ7rT4vW1yZ",
        middles: &["OiJhbGljZUBleGFt", "xK9sP2mQ7rT4"],
    },
];

fn ctxlint(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("ctxlint").expect("binary");
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

/// Runs ctxlint in `dir` and returns stdout and stderr together.
fn run(dir: &Path, args: &[&str]) -> String {
    let out = ctxlint(dir).args(args).output().expect("run");
    assert!(out.status.code().is_some_and(|c| c <= 2), "{args:?} crashed: {}", String::from_utf8_lossy(&out.stderr));
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn assert_no_leak(p: &Planted, what: &str, text: &str) {
    for m in p.middles {
        assert!(!text.contains(m), "{:?} leaked ({m}) in {what}:\n{text}", p.secret);
    }
}

/// Every file under `dir`, with its contents.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if e.is_dir() {
            out.extend(files(&e));
        } else {
            out.push((e.display().to_string(), String::from_utf8_lossy(&std::fs::read(&e).unwrap()).into_owned()));
        }
    }
    out
}

/// A pi session with the secret everywhere: texts (after `\n`, `\t`, a
/// letter, `_`, glued inside a word), ids, parent ids, tool ids and names
/// (also after 120 characters, where an output cuts them); an orphan tool result,
/// a broken parent chain, and a torn last line. The first `keep` lines are OLD for fence.
fn session(s: &str) -> (String, String) {
    let text = format!("please use\n{s} now\tx{s} and_{s} glued{s}in");
    let long = "x".repeat(120);
    let lines = [
        json!({"type":"session","version":3,"id":"s1","timestamp":"2026-06-20T09:14:00.000Z","cwd":"/w"}),
        json!({"type":"message","id":format!("u1{s}"),"parentId":null,"timestamp":"2026-06-20T09:14:01.000Z","message":{"role":"user","content":[{"type":"text","text":format!("System: [2026-06-20 09:14:01 UTC] event {s}\n\n{text}")}]}}),
        json!({"type":"message","id":format!("a1{s}"),"parentId":format!("u1{s}"),"timestamp":"2026-06-20T09:14:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":format!("call_{s}"),"name":format!("mcp__{s}__send"),"arguments":{"k":text}}],"provider":"anthropic","model":format!("m-{s}"),"stopReason":"toolUse"}}),
        json!({"type":"message","id":format!("t1{s}"),"parentId":format!("a1{s}"),"timestamp":"2026-06-20T09:14:03.000Z","message":{"role":"toolResult","toolCallId":format!("other_{long}{s}"),"toolName":format!("mcp__{s}__send"),"content":[{"type":"text","text":text}]}}),
        json!({"type":"message","id":format!("u2{s}"),"parentId":format!("gone_{long}{s}"),"timestamp":"2026-06-20T09:14:04.000Z","message":{"role":"user","content":[{"type":"text","text":text}]}}),
    ];
    let all: Vec<String> = lines.iter().map(|l| format!("{l}\n")).collect();
    let torn = json!({"type":"message","id":"torn","message":{"content":format!("x\n{s} and_{s}")}}).to_string();
    let session = format!("{}{}\n", all.concat(), &torn[..torn.len() - 3]);
    (session, all[..3].concat())
}

/// A chat request: its system prompt holds the secret (twice: a finding);
/// with `twice`, also its model name, and an unanswered tool call whose id
/// and name hold it (`repro` keeps tool names: the rules pair on them).
fn chat(s: &str, twice: bool) -> String {
    let sys = json!({"role":"system","content":format!("You are helpful. Key: {s}")});
    let mut messages = vec![sys.clone()];
    if twice {
        messages.push(sys);
    }
    messages.push(json!({"role":"user","content":format!("hello {s}")}));
    let mut model = "gpt-4o-mini".to_string();
    if twice {
        model = format!("gpt-{s}");
        messages.push(json!({"role":"assistant","content":null,"tool_calls":[{"id":format!("call_{s}"),"type":"function","function":{"name":format!("run_{s}"),"arguments":"{}"}}]}));
        messages.push(json!({"role":"user","content":"and?"}));
    }
    serde_json::to_string_pretty(&json!({"model":model,"messages":messages})).unwrap()
}

const FORMATS: &[&str] = &["full", "concise", "grouped", "json", "json-lines", "github", "sarif", "junit", "gitlab"];

#[test]
fn no_planted_secret_reaches_any_output() {
    for (n, p) in SECRETS.iter().enumerate() {
        let s = p.secret;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // A file name holds the secret too, when it can.
        let safe = s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        let name = if safe { format!("sess-{s}.jsonl") } else { format!("sess-{n}.jsonl") };
        let (sess, old) = session(s);
        std::fs::write(d.join(&name), &sess).unwrap();
        std::fs::write(d.join("old.jsonl"), &old).unwrap();
        // OLD's line 2 rewritten in NEW: fence prints a diff of both.
        let rewritten = sess.replacen("please use", "please USE", 1);
        std::fs::write(d.join("rewritten.jsonl"), &rewritten).unwrap();
        std::fs::write(d.join("a.json"), chat(s, true)).unwrap();
        std::fs::write(d.join("b.json"), chat("no key here", false)).unwrap();
        let mut outputs: Vec<(String, String)> = Vec::new();
        for f in FORMATS {
            outputs.push((format!("check {f}"), run(d, &["check", &name, "a.json", "--output-format", f])));
            outputs.push((format!("fence {f}"), run(d, &["fence", "old.jsonl", &name, "--output-format", f])));
            outputs.push((
                format!("fence rewrite {f}"),
                run(d, &["fence", "old.jsonl", "rewritten.jsonl", "--output-format", f]),
            ));
        }
        let listed = run(d, &["check", &name, "--output-format", "json"]);
        assert!(listed.contains("orphan-tool-result") && listed.contains("malformed-line"), "{listed}");
        let listed = run(d, &["check", "a.json", "--output-format", "json"]);
        assert!(listed.contains("unanswered-tool-call") && listed.contains("duplicate-system-prompt"), "{listed}");
        // A file of no known format, named: its warning, error and JSON entry.
        let bad = if safe { format!("bad-{s}.json") } else { format!("bad-{n}.json") };
        std::fs::write(d.join(&bad), "not json {").unwrap();
        let html = d.join("report.html");
        for args in [
            vec!["check", bad.as_str()],
            vec!["check", bad.as_str(), "--output-format", "json"],
            vec!["check", bad.as_str(), "--input-format", "pi-session", "--output-format", "json"],
            vec!["check", name.as_str(), "a.json", "--output-format", "html"],
            vec!["check", name.as_str(), "a.json", "--output-format", "html", "-o", html.to_str().unwrap()],
            vec!["check", ".", "--show-files"],
            vec!["check", "--show-settings", name.as_str()],
            vec!["show", name.as_str()],
            vec!["show", name.as_str(), "--full"],
            vec!["show", name.as_str(), "--step", "0"],
            vec!["show", name.as_str(), "--output-format", "json"],
            vec!["show", "a.json", "--step", "0"],
            vec!["diff", "a.json", "b.json"],
            vec!["diff", "a.json", "b.json", "--output-format", "json"],
            vec!["check", ".", "--output-format", "full"],
        ] {
            outputs.push((args.join(" "), run(d, &args)));
        }
        outputs.push(("report.html".into(), std::fs::read_to_string(&html).unwrap()));
        // A configuration error quotes the line.
        let cfg = tempfile::tempdir().unwrap();
        std::fs::write(cfg.path().join("ctxlint.toml"), format!("select = [\"{}\n", s.replace('\n', " "))).unwrap();
        std::fs::write(cfg.path().join("x.jsonl"), &sess).unwrap();
        outputs.push(("config error".into(), run(cfg.path(), &["check", "x.jsonl"])));
        // repro: its messages, its summary and every file it writes.
        let out = tempfile::tempdir().unwrap();
        let o = out.path().join("cases");
        let src = "https://bob:Pw9Zx8Cv7Bn6@tracker.example.com/issue/1";
        outputs.push((
            "repro".into(),
            run(d, &["repro", &name, "--all", "-o", o.to_str().unwrap(), "--source", src, "--budget", "5"]),
        ));
        let o2 = out.path().join("chat-cases");
        outputs.push((
            "repro chat".into(),
            run(d, &["repro", "a.json", "--all", "-o", o2.to_str().unwrap(), "--budget", "5"]),
        ));
        for (path, text) in files(&o2) {
            assert_no_leak(p, &path, &text);
        }
        for (what, text) in &outputs {
            assert_no_leak(p, what, text);
            assert!(!text.contains("Pw9Zx8Cv7Bn6"), "repro --source credentials in {what}:\n{text}");
        }
        if o.exists() {
            for (path, text) in files(&o) {
                assert_no_leak(p, &path, &text);
                assert_no_leak(p, &path, &path);
                assert!(!text.contains("Pw9Zx8Cv7Bn6"), "repro --source credentials in {path}");
            }
        }
    }
}

#[test]
fn repro_replaces_emails_paths_and_addresses_in_tool_names() {
    // Issue 32: `repro` kept tool names verbatim (the rules pair on them), so
    // an email, a home path or an IP address in one reached the case files.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let calls: Vec<_> = ["mail_bob.smith@example.org", "ping_10.20.30.40", "open_/home/bobsmith/private-repo"]
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"id":format!("call_{i}"),"type":"function","function":{"name":n,"arguments":"{}"}}))
        .collect();
    let req = json!({"model":"gpt-4o","messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":null,"tool_calls":calls},
        {"role":"user","content":"and?"}
    ]});
    std::fs::write(d.join("req.json"), req.to_string()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = out.path().join("cases");
    let said = run(d, &["repro", "req.json", "--all", "-o", o.to_str().unwrap(), "--budget", "5"]);
    let written = files(&o);
    assert_eq!(written.iter().filter(|(p, _)| p.ends_with("request.json")).count(), 3, "{said}");
    for (path, text) in written {
        for leak in ["bob.smith", "10.20.30.40", "bobsmith", "private-repo"] {
            assert!(!text.contains(leak), "{leak} in {path}:\n{text}");
        }
    }
}
