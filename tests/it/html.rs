//! `--output-format html` and `show --html`: the self-contained triage page,
//! read as a file (no external URL, secrets masked, its embedded JSON) and
//! driven in headless Chromium ([`super::browser`]): the timeline's steps and
//! marks, a click on a finding opening its step with the offending block
//! highlighted, the filters, the keyboard, and no request leaving the page.

use super::browser::{Browser, axe};
use crate::support::root;
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Runs `ctxlint check ARGS --output-format html -o DIR/report.html` and returns the report's path.
fn report(dir: &Path, args: &[&str]) -> PathBuf {
    let out = dir.join("report.html");
    let a = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(root())
        .arg("check")
        .args(args)
        .args(["-q", "--output-format", "html", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(matches!(a.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&a.stderr));
    out
}

/// The JSON of `<script type="application/json" id=ID>`.
pub(crate) fn embedded(html: &str, id: &str) -> Value {
    let open = format!("<script type=\"application/json\" id=\"{id}\">");
    let start = html.find(&open).unwrap_or_else(|| panic!("no {id}")) + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn the_report_is_one_file_that_names_no_external_resource_and_masks_secrets() {
    let d = tempfile::tempdir().unwrap();
    let html = std::fs::read_to_string(report(d.path(), &["fixtures/report/mixed-session.jsonl"])).unwrap();
    assert!(html.starts_with("<!doctype html>\n<html lang=\"en\">"));
    assert!(html.contains(
        "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\""
    ));
    for bad in ["http://", "https://", "//cdn", "<link", "@import", "url(", " src=", "<iframe", "<img"] {
        assert!(!html.contains(bad), "the report contains {bad:?}");
    }
    // The fixture's key is in the first user message, its copy and two excerpts.
    assert!(!html.contains("sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF"));
    assert!(html.contains("sk-a****"));
    let index = embedded(&html, "ctxlint-index");
    assert_eq!(index["summary"]["findings"], 3);
    let rules: Vec<&str> = index["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["duplicate-system-event", "duplicate-user-turn", "orphan-tool-result"]);
    let page = &index["pages"][0];
    assert_eq!(page["total"], 3);
    assert_eq!(page["format"], "pi-session");
    // Step 1 no longer sends step 0's runtime-context carrier (line 3).
    assert_eq!(page["ctx"], serde_json::json!([2, 2, 4]));
    assert_eq!(page["carried"], serde_json::json!([0, 1, 2]));
    assert_eq!(page["dropped"], serde_json::json!([0, 1, 0]));
    assert_eq!(page["new"], serde_json::json!([2, 1, 2]));
    assert_eq!(page["rebuilt"][1], 3);
    assert_eq!(index["rebuilt"][3], "context carrier dropped");
    // Step 1's new message: the user turn written again (line 5).
    let chunk = embedded(&html, "p0-c0");
    assert_eq!(chunk[1][0][3], 5);
    assert_eq!(chunk[1][0][0], "user");
    // The key masked makes the text shorter than its 118 bytes, not cut.
    let block = &chunk[0][0][7][0];
    assert_eq!((block[2].as_u64(), block[3].as_u64()), (Some(118), Some(0)));
    assert!(block[4].as_str().unwrap().contains("sk-a****") && block[4].as_str().unwrap().len() < 118);
}

#[test]
fn show_html_writes_the_page_of_one_input() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("one.html");
    let a = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(root())
        .args(["show", "fixtures/report/mixed-session.jsonl", "--html", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(a.status.code(), Some(0), "{}", String::from_utf8_lossy(&a.stderr));
    let index = embedded(&std::fs::read_to_string(&out).unwrap(), "ctxlint-index");
    assert_eq!(index["pages"].as_array().unwrap().len(), 1);
    assert_eq!(index["summary"]["findings"], 3);
    let many = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(root())
        .args(["show", "fixtures/cases", "--html"])
        .output()
        .unwrap();
    assert_eq!(many.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&many.stderr).contains("ctxlint check fixtures/cases --output-format html"));
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_a_click_on_a_finding_opens_its_step_with_the_block_highlighted() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let file = report(d.path(), &["fixtures/report/mixed-session.jsonl"]);
    b.navigate(&file, "");
    assert_eq!(b.eval("document.querySelectorAll('#timeline .bar').length"), 3);
    assert_eq!(b.eval("document.querySelector('#timeline').dataset.units"), "3");
    // Steps 0, 1 and 2 hold one finding each (an error, a warning, an error).
    assert_eq!(b.eval("[...document.querySelectorAll('#timeline .bar')].map(x => x.dataset.findings).join()"), "1,1,1");
    assert_eq!(b.eval("document.querySelectorAll('#timeline .bar .mark').length"), 3);
    // Three bars: the panel is as wide as its bars, and its axis's last label ends with them.
    let gap = "(() => { const t = document.querySelector('#timeline').getBoundingClientRect(); \
               const b = [...document.querySelectorAll('#timeline .bar')].pop().getBoundingClientRect(); \
               const a = document.querySelector('.axis').getBoundingClientRect(); \
               return Math.round(t.right - b.right) <= 8 && Math.round(Math.abs(a.right - t.right)) <= 2; })()";
    assert_eq!(b.eval(gap), true, "the timeline of three steps is wider than its bars");
    assert_eq!(b.eval("document.querySelectorAll('#timeline .mark-error').length"), 2);
    assert_eq!(b.eval("document.querySelectorAll('#findings button.finding').length"), 3);
    // Click the duplicate system event (line 3, pointer /content).
    let after_click = "new Promise(r => { document.querySelector('#findings button.finding[data-rule=\"duplicate-system-event\"]').click(); setTimeout(r, 150); }).then(() => 1)";
    b.eval(after_click);
    assert_eq!(b.eval("document.querySelector('#detail-title').textContent"), "step 0 (line 4), model p/m");
    assert_eq!(b.eval("document.querySelector('#context tr.hot').dataset.k"), "1");
    assert_eq!(b.eval("document.querySelector('#context tr.hot .hot-block').dataset.pointer"), "/content");
    assert!(
        b.eval("document.querySelector('#context tr.hot .hot-block pre').textContent")
            .as_str()
            .unwrap()
            .contains("System: [2026-06-20 09:14:02 UTC] Slack DM from user-a")
    );
    // Its first copy (line 2, /message/content/0) is marked and linked.
    assert_eq!(b.eval("document.querySelector('#context tr.rel').dataset.k"), "0");
    assert_eq!(b.eval("document.querySelector('#context tr.rel .rel-block').dataset.pointer"), "/message/content/0");
    assert_eq!(
        b.eval("document.querySelector('#focus button.related').textContent"),
        "first occurrence: line 2 /message/content/0"
    );
    assert_eq!(b.eval("location.hash"), "#p=0&f=0&s=0");
    // The link to the first copy moves the keyboard focus to its row.
    b.eval("document.querySelector('#focus button.related').click()");
    assert_eq!(b.eval("document.activeElement.dataset.k"), "0");
    assert_eq!(b.eval("document.activeElement.classList.contains('rel')"), true);
    assert_eq!(b.eval("document.querySelector('#timeline .bar[aria-current=\"true\"]').dataset.from"), "0");
    // Step 1, side by side with step 0: the carrier is no longer sent, the user turn is new.
    b.eval("new Promise(r => { document.querySelectorAll('#timeline .bar')[1].click(); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(b.eval("document.querySelector('#detail-title').textContent"), "step 1 (line 6), model p/m");
    assert_eq!(
        b.eval("[...document.querySelectorAll('#side-by-side tr.del')].map(r => r.children[1].textContent).join()"),
        "user · context carrier"
    );
    assert_eq!(
        b.eval("[...document.querySelectorAll('#side-by-side tr.add')].map(r => r.children[1].textContent).join()"),
        "user · user"
    );
    // The rule filter keeps one finding and one mark.
    b.eval("new Promise(r => { const s = document.querySelector('#filter-rule'); s.value = 'orphan-tool-result'; s.dispatchEvent(new Event('change')); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(b.eval("document.querySelectorAll('#findings button.finding').length"), 1);
    assert_eq!(b.eval("document.querySelectorAll('#timeline .bar .mark').length"), 1);
    // The timeline is one tab stop; arrow keys move along it.
    b.eval("document.querySelector('#timeline .bar[tabindex=\"0\"]').focus()");
    let focused = "[...document.querySelectorAll('#timeline .bar')].indexOf(document.activeElement)";
    let before = b.eval(focused).as_i64().unwrap();
    b.eval("document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}))");
    assert_eq!(b.eval(focused).as_i64().unwrap(), before + 1);
    assert_eq!(b.eval("document.querySelectorAll('#timeline .bar[tabindex=\"0\"]').length"), 1);
    assert_eq!(
        b.eval("document.querySelectorAll('[tabindex]:not([tabindex=\"0\"]):not([tabindex=\"-1\"])').length"),
        0
    );
    assert_eq!(b.exceptions(), Vec::<String>::new());
    let external: Vec<&String> = b.requests.iter().filter(|u| !u.starts_with("file://")).collect();
    assert!(external.is_empty(), "the page made requests: {external:?}");
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_a_bidirectional_control_in_a_text_is_shown_not_obeyed() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let session = std::fs::read_to_string(root().join("fixtures/report/mixed-session.jsonl")).unwrap();
    let planted = session.replace("Slack DM from user-a", "Slack DM from \u{202e}user-a\u{2066}");
    assert_ne!(planted, session);
    let input = d.path().join("bidi.jsonl");
    std::fs::write(&input, planted).unwrap();
    let file = report(d.path(), &[input.to_str().unwrap()]);
    b.navigate(&file, "");
    b.eval("new Promise(r => { document.querySelector('#findings button.finding[data-rule=\"duplicate-system-event\"]').click(); setTimeout(r, 150); }).then(() => 1)");
    let text = b.eval("document.querySelector('#context tr.hot .hot-block pre').textContent");
    assert!(text.as_str().unwrap().contains("Slack DM from \\u{202e}user-a\\u{2066}"), "{text}");
    let raw = "[...document.querySelectorAll('body *:not(script)')].some(e => [...e.childNodes].some(n => n.nodeType === 3 && /[\\u202a-\\u202e\\u2066-\\u2069]/.test(n.data)) || /[\\u202a-\\u202e\\u2066-\\u2069]/.test(e.getAttribute('title') || ''))";
    assert_eq!(b.eval(raw), false);
    assert_eq!(b.exceptions(), Vec::<String>::new());
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_an_input_not_checked_is_named_on_the_page_of_the_one_that_was() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report.html");
    let run = Command::cargo_bin("ctxlint")
        .unwrap()
        .current_dir(root())
        .args(["check", "fixtures/report/mixed-session.jsonl", "gone.jsonl", "-q", "--output-format", "html", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    b.navigate(&out, "");
    assert_eq!(b.eval("document.querySelector('h1').textContent"), "fixtures/report/mixed-session.jsonl");
    assert_eq!(
        b.eval("document.querySelector('#not-checked').textContent"),
        "note: 1 input was not checked (the summary says why)."
    );
    b.eval("new Promise(r => { document.querySelector('#not-checked a').click(); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(b.eval("document.querySelector('h1').textContent"), "Summary");
    assert!(b.eval("document.body.textContent").as_str().unwrap().contains("gone.jsonl: "));
    assert_eq!(b.exceptions(), Vec::<String>::new());
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_a_stream_marks_its_cache_breaks_and_shows_the_request_diff() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let file = report(d.path(), &["fixtures/cases/litellm-36559-system-hoist"]);
    b.navigate(&file, "");
    assert_eq!(b.eval("document.querySelectorAll('#timeline .bar').length"), 3);
    assert_eq!(b.eval("document.querySelectorAll('#timeline .mark-break').length"), 2);
    b.eval("new Promise(r => { document.querySelectorAll('#findings button.finding')[1].click(); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(b.eval("document.querySelector('#detail-title').textContent"), "request 2");
    // The finding's pointer /system/3 is the fourth part of the system slot.
    assert_eq!(b.eval("document.querySelector('#context tr.hot .hot-block').dataset.pointer"), "/system/3");
    assert_eq!(
        b.eval("document.querySelector('#request-diff').previousElementSibling.previousElementSibling.textContent"),
        "Structural diff (ctxlint diff): rewrite at system /system/3"
    );
    assert!(b.eval("document.querySelectorAll('#request-diff tbody tr').length").as_i64().unwrap() >= 1);
    // The related location, the previous request's prefix, is another
    // request: its link opens it.
    assert_eq!(
        b.eval("document.querySelector('#focus button.related').textContent"),
        "request 1 sent this prefix: fixtures/cases/litellm-36559-system-hoist/req2.json line 1 (the whole request)"
    );
    b.eval("new Promise(r => { document.querySelector('#focus button.related').click(); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(b.eval("location.hash"), "#p=0&f=1&s=1&r=0");
    assert_eq!(b.eval("document.querySelector('#detail-title').textContent"), "request 1");
    assert_eq!(b.exceptions(), Vec::<String>::new());
    assert!(b.requests.iter().all(|u| u.starts_with("file://")), "{:?}", b.requests);
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_the_summary_of_many_inputs_sorts_and_links_to_each_page() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let file = report(d.path(), &["fixtures/cases"]);
    let html = std::fs::read_to_string(&file).unwrap();
    let index = embedded(&html, "ctxlint-index");
    let mut rules: Vec<&str> =
        index["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    rules.sort();
    rules.dedup();
    let files = index["files"].as_array().unwrap().len();
    b.navigate(&file, "");
    assert_eq!(b.eval("document.querySelector('h1').textContent"), "Summary");
    assert_eq!(b.eval("document.querySelectorAll('#by-rule tbody tr').length"), rules.len());
    assert_eq!(b.eval("document.querySelectorAll('#by-file tbody tr').length"), files);
    // Sorted by findings, most first; a click on "code" sorts by code.
    let counts = b.eval("[...document.querySelectorAll('#by-rule tbody tr')].map(r => +r.children[2].textContent)");
    let counts: Vec<i64> = counts.as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    // A stream's findings name its request files; its row and the rule's
    // "inputs" count them under the folder.
    let row = |path: &str| {
        format!(
            "[...document.querySelectorAll('#by-file tbody tr')].find(r => r.children[0].textContent === '{path}').children[3].textContent"
        )
    };
    assert_eq!(b.eval(&row("fixtures/cases/litellm-36559-system-hoist")), "2");
    let inputs_of = |rule: &str| {
        let mut of: Vec<String> = index["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == rule)
            .map(|f| {
                let path = f["path"].as_str().unwrap();
                index["pages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["files"].as_array().is_some_and(|fs| fs.iter().any(|x| x == path)))
                    .map_or(path.to_string(), |p| p["path"].as_str().unwrap().to_string())
            })
            .collect();
        of.sort();
        of.dedup();
        of.len()
    };
    let shown = b.eval("[...document.querySelectorAll('#by-rule tbody tr')].find(r => r.children[1].textContent === 'history-rewrite').children[5].textContent");
    assert_eq!(shown, inputs_of("history-rewrite").to_string());
    assert!(
        inputs_of("history-rewrite")
            < index["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "history-rewrite").count()
    );
    b.eval("document.querySelector('#by-rule thead button').click()");
    let codes = b.eval("[...document.querySelectorAll('#by-rule tbody tr')].map(r => r.children[0].textContent)");
    let codes: Vec<&str> = codes.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(codes, sorted);
    // A file's link opens its page.
    b.eval(
        "new Promise(r => { document.querySelector('#by-file tbody a').click(); setTimeout(r, 150); }).then(() => 1)",
    );
    assert!(b.eval("location.hash").as_str().unwrap().starts_with("#p="));
    assert_eq!(b.eval("document.querySelectorAll('#timeline').length"), 1);
    assert_eq!(b.exceptions(), Vec::<String>::new());
    assert!(b.requests.iter().all(|u| u.starts_with("file://")), "{:?}", b.requests);
}

/// axe-core's WCAG 2.x A and AA rules (contrast among them) on every view
/// of the report, in the light and the dark colour scheme: no violation.
#[test]
#[cfg_attr(
    any(ctxlint_no_chromium, ctxlint_no_axe),
    ignore = "needs Chromium and axe-core (apt-get install chromium; npm install --prefix target/axe axe-core)"
)]
fn in_chromium_axe_core_finds_no_accessibility_violation_in_light_or_dark() {
    let Some(axe) = axe() else { return };
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let session = report(d.path(), &["fixtures/report/mixed-session.jsonl"]);
    let e = tempfile::tempdir().unwrap();
    let many = report(e.path(), &["fixtures/cases/litellm-36559-system-hoist", "fixtures/report/mixed-session.jsonl"]);
    // Each view, and an element it must show (so that axe sees it).
    let views: [(&Path, &str, &str); 5] = [
        (&session, "", "#timeline"),
        (&session, "#p=0&f=0&s=0", "#context tr.hot"),
        (&session, "#p=0&s=1", "#side-by-side tr.add"),
        (&many, "#summary", "#by-rule"),
        (&many, "#p=0&f=1", "#request-diff tbody tr"),
    ];
    for scheme in ["light", "dark"] {
        b.color_scheme(scheme);
        for (file, fragment, shows) in views {
            b.navigate(file, fragment);
            assert_eq!(b.eval(&format!("!!document.querySelector('{shows}')")), true, "{fragment} shows {shows}");
            assert_eq!(b.eval(&format!("{axe}\n;typeof axe")), "object");
            let found = b.eval(
                "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})\
                 .then(r => ({passes: r.passes.length, violations: r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ') + ' ' + n.failureSummary).join(' | '))}))",
            );
            assert_eq!(found["violations"], serde_json::json!([]), "{scheme} {}{fragment}", file.display());
            assert!(found["passes"].as_i64().unwrap() > 10, "{found}");
        }
    }
    assert_eq!(b.exceptions(), Vec::<String>::new());
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_a_clicked_finding_deep_in_a_long_step_is_scrolled_into_view() {
    // Issue 33: a clicked finding scrolled its own block off-screen. The
    // finding sits in the last of 121 steps, its block at the end of a
    // context of 243 messages: after the click the highlighted block is in
    // the viewport.
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"s-long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_string(),
    ];
    let mut parent = "null".to_string();
    for k in 0..120 {
        let (u, a) = (format!("u{k}"), format!("a{k}"));
        lines.push(format!(r#"{{"type":"message","id":"{u}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"question number {k}"}}]}}}}"#));
        lines.push(format!(r#"{{"type":"message","id":"{a}","parentId":"{u}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"answer number {k}"}}],"provider":"p","model":"m","stopReason":"stop"}}}}"#));
        parent = format!("\"{a}\"");
    }
    lines.push(format!(r#"{{"type":"message","id":"ux","parentId":{parent},"timestamp":"2026-01-01T00:00:03.000Z","message":{{"role":"user","content":[{{"type":"text","text":"System: [2026-06-20 09:14:02 UTC] Slack DM from user-a\n\ndeploy please"}}]}}}}"#));
    lines.push(r#"{"type":"custom_message","customType":"openclaw.runtime-context","content":"OpenClaw runtime context.\n\nSystem: [2026-06-20 09:14:02 UTC] Slack DM from user-a","display":false,"id":"cx","parentId":"ux","timestamp":"2026-01-01T00:00:04.000Z"}"#.to_string());
    lines.push(r#"{"type":"message","id":"ax","parentId":"cx","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"deployed"}],"provider":"p","model":"m","stopReason":"stop"}}"#.to_string());
    let session = d.path().join("long.jsonl");
    std::fs::write(&session, lines.join("\n") + "\n").unwrap();
    let file = report(d.path(), &[session.to_str().unwrap()]);
    b.navigate(&file, "");
    assert_eq!(b.eval("document.querySelectorAll('#findings button.finding').length"), 1);
    b.eval("new Promise(r => { document.querySelector('#findings button.finding').click(); setTimeout(r, 200); }).then(() => 1)");
    assert_eq!(b.eval("document.querySelector('#detail-title').textContent"), "step 120 (line 244), model p/m");
    let inside = "(() => { const r = document.getElementById('hot').getBoundingClientRect(); \
                  return r.bottom > 0 && r.top < window.innerHeight; })()";
    assert_eq!(b.eval(inside), true, "the highlighted block is off-screen");
    assert!(b.eval("window.scrollY").as_f64().unwrap() > 0.0, "the page did not scroll");
    assert_eq!(b.exceptions(), Vec::<String>::new());
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_the_cost_of_findings_and_an_unexplained_cache_break_are_shown() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let file = report(d.path(), &["fixtures/usage/claude-code-usage.jsonl", "fixtures/usage/anthropic-cassette.yaml"]);
    let html = std::fs::read_to_string(&file).unwrap();
    let index = embedded(&html, "ctxlint-index");
    assert_eq!(index["summary"]["unexplained_cache_breaks"], 1);
    assert_eq!(index["files"][1]["usage"]["unexplained_cache_breaks"][0]["request"], 3);
    b.navigate(&file, "");
    assert_eq!(
        b.eval("document.querySelector('#impact').textContent"),
        "Impact: ~1,615 tokens, ~$0.005556 attributable to 2 findings; recorded usage confirms 2 of 2 judged."
    );
    assert_eq!(
        b.eval("document.querySelector('#unexplained li').textContent"),
        "fixtures/usage/claude-code-usage.jsonl:9: step 3: 12,800 → 2,000 cached tokens 60 s after step 2 (claude-sonnet-4-5-20250929)"
    );
    // The break's link opens the session's page at that step, marked on the timeline.
    b.eval("new Promise(r => { document.querySelector('#unexplained a').click(); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(b.eval("document.querySelectorAll('#timeline .mark-unexplained').length"), 1);
    assert_eq!(b.eval("document.querySelector('#timeline .bar[data-unexplained]').dataset.from"), "3");
    assert!(
        b.eval("document.querySelector('#detail .unexplained').textContent")
            .as_str()
            .unwrap()
            .starts_with("Unexplained cache break")
    );
    // A finding's impact in its panel.
    b.eval("new Promise(r => { document.querySelector('#findings button.finding').click(); setTimeout(r, 150); }).then(() => 1)");
    assert_eq!(
        b.eval("document.querySelector('#focus .impact').textContent"),
        "impact: ~35 tokens (estimated), ~$0.000105; recorded usage confirms it"
    );
    assert_eq!(b.exceptions(), Vec::<String>::new());
}

#[test]
fn a_rebuilt_context_that_sends_earlier_messages_again_embeds_them_once() {
    let d = tempfile::tempdir().unwrap();
    let html = std::fs::read_to_string(report(
        d.path(),
        &["fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl"],
    ))
    .unwrap();
    let page = &embedded(&html, "ctxlint-index")["pages"][0];
    // Steps 2 and 3 are compactions that keep earlier messages after their summary.
    assert_eq!(page["kept"], serde_json::json!([[2, [[2, 1, 1]]], [3, [[1, 1, 3]]]]));
    assert_eq!(page["new"], serde_json::json!([1, 2, 3, 3]));
    assert_eq!(page["dropped"], serde_json::json!([0, 0, 2, 1]));
    assert_eq!(page["ctx"], serde_json::json!([1, 3, 4, 6]));
    // The bytes of a whole context count the kept messages too (80 + 67 + 72
    // at step 1; 260 + 72 + 75 + 43 at step 2).
    assert_eq!(page["bytes"][1], 219);
    assert_eq!(page["bytes"][2], 450);
}

#[test]
#[cfg_attr(ctxlint_no_chromium, ignore = "needs Chromium (apt-get install chromium)")]
fn in_chromium_a_compacted_step_shows_its_whole_context_with_the_kept_messages_in_place() {
    let Some(mut b) = Browser::launch() else { return };
    let d = tempfile::tempdir().unwrap();
    let file = report(d.path(), &["fixtures/kinds/oc-two-compactions-only-latest-summary/session.jsonl"]);
    b.navigate(&file, "#p=0&s=3");
    let lines = "[...document.querySelectorAll('#context tbody tr')].map(r => r.children[4].textContent).join()";
    assert_eq!(b.eval(lines), "9,4,5,7,8,10");
    let new = "[...document.querySelectorAll('#context tbody tr.new')].map(r => r.children[4].textContent).join()";
    assert_eq!(b.eval(new), "9,8,10");
    let side = "[...document.querySelectorAll('#side-by-side table')].map(t => [...t.querySelectorAll('td.num:first-child')].map(c => c.textContent).join(' ')).join('|')";
    assert_eq!(b.eval(side), "0|0 4 5");
    assert!(
        b.eval("document.querySelector('#side-by-side').previousElementSibling.textContent")
            .as_str()
            .unwrap()
            .starts_with("0 messages carried over from step 2; 3 sent again further on; 1 no longer sent; 3 new")
    );
    // Walking back to step 2 rebuilds its context from the start.
    b.navigate(&file, "#p=0&s=2");
    assert_eq!(b.eval(lines), "6,4,5,7");
    assert_eq!(b.exceptions(), Vec::<String>::new());
}
