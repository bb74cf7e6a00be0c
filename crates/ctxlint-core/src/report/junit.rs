//! `junit`: JUnit XML (via `quick-junit`): one test suite per input; one failing
//! test case per finding, and one passing case for an input without findings.

use crate::check_report::CheckReport;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

/// Renders a check report.
pub fn render(r: &CheckReport) -> String {
    let mut report = Report::new("ctxlint");
    // Suites in input order, then paths only findings name (request files of a stream).
    let mut paths: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
    let mut by_path: std::collections::HashMap<&str, Vec<&crate::Finding>> = std::collections::HashMap::new();
    for f in &r.findings {
        let mine = by_path.entry(f.path.as_str()).or_default();
        if mine.is_empty() && !r.files.iter().any(|x| x.path == f.path) {
            paths.push(&f.path);
        }
        mine.push(f);
    }
    // File names are escaped as in every human output (a name can hold a
    // newline and a CI command); quoted lines cannot start one.
    let esc = |p: &str| crate::escape::escape_controls(p).into_owned();
    for p in paths {
        let mut suite = TestSuite::new(esc(p));
        let mine = by_path.remove(p).unwrap_or_default();
        let unlisted: Vec<_> = r.unlisted.iter().filter(|u| u.path == p).collect();
        if mine.is_empty() && unlisted.is_empty() {
            suite.add_test_case(TestCase::new("ctxlint", TestCaseStatus::success()));
        }
        for f in mine {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(crate::text::mask_secrets(&f.message));
            status.set_type(f.rule.name());
            let mut desc = format!(
                "{}:{} {} {}",
                esc(&f.path),
                f.line.map(|l| l.to_string()).unwrap_or_default(),
                f.code,
                f.rule.name()
            );
            if !f.pointer.is_empty() {
                desc.push_str(&format!(" at {}", esc(&f.pointer)));
            }
            if let Some(e) = super::excerpt(f) {
                desc.push_str(&format!("\n{e}"));
            }
            let desc: Vec<String> = desc.lines().map(|l| crate::escape::no_ci_command(l).into_owned()).collect();
            status.set_description(desc.join("\n"));
            let name = format!(
                "{} {}:{}",
                f.code,
                esc(&f.path),
                f.line.map(|l| l.to_string()).unwrap_or_else(|| esc(&f.pointer))
            );
            let mut tc = TestCase::new(name, status);
            tc.set_classname(format!("ctxlint.{}", f.rule.name()));
            suite.add_test_case(tc);
        }
        for u in unlisted {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(super::unlisted_message(u));
            status.set_type(u.rule.name());
            let mut tc = TestCase::new(format!("{} {}: {} more", u.code, esc(&u.path), u.count), status);
            tc.set_classname(format!("ctxlint.{}", u.rule.name()));
            suite.add_test_case(tc);
        }
        report.add_test_suite(suite);
    }
    // An input that could not be checked: a test case in error, under its path.
    for f in &r.errors {
        let mut suite = TestSuite::new(if f.path.is_empty() { "ctxlint".to_string() } else { esc(&f.path) });
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(format!("not checked: {}", f.message()));
        status.set_type("not-checked");
        let mut tc = TestCase::new("ctxlint", status);
        tc.set_classname("ctxlint");
        suite.add_test_case(tc);
        report.add_test_suite(suite);
    }
    xml_chars(&report.to_string().unwrap_or_default())
}

/// The text with every character XML 1.0 does not allow (C0 controls other
/// than tab and line breaks, U+FFFE, U+FFFF) replaced by U+FFFD, so that a
/// finding quoting such bytes never makes the report unreadable.
fn xml_chars(s: &str) -> String {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    if s.chars().all(allowed) {
        return s.to_string();
    }
    s.chars().map(|c| if allowed(c) { c } else { '\u{FFFD}' }).collect()
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleId;

    #[test]
    fn characters_xml_forbids_never_reach_the_report() {
        let mut r = crate::check_report::CheckReport::default();
        let f = crate::Finding::new(
            RuleId::MalformedLine,
            "s.jsonl",
            crate::formats::pi_session::ID,
            "bad \u{FFFE}\u{FFFF} and \u{1}\u{1b} bytes",
        )
        .line(3);
        r.findings.push(f);
        let xml = super::render(&r);
        for bad in ['\u{FFFE}', '\u{FFFF}', '\u{1}', '\u{1b}'] {
            assert!(!xml.contains(bad), "{bad:?} in {xml}");
        }
        assert!(
            !xml.contains("&#1;")
                && !xml.contains("&#x1;")
                && !xml.contains("&#27;")
                && !xml.contains("&#x1b;")
                && !xml.contains("&#x1B;"),
            "{xml}"
        );
        assert!(xml.contains("bad \u{FFFD}\u{FFFD} and"), "{xml}");
    }
}
