//! Tool names: kept, as the rules pair calls and results on them, but for
//! what identifies in them (keys, emails, URLs, paths, IP addresses, long
//! numbers) and an MCP tool's server (`mcp__<server>__<tool>`), replaced alike
//! wherever the tool is named.

use super::Anonymiser;
use super::classes::{IN_TOOL_NAMES, MCP, NUMBERS_IN_TOOL_NAMES};
use super::free_text::KEEP_WORDS;
use regex::Regex;

impl Anonymiser {
    /// `s` with the server segment of every MCP tool name in it replaced
    /// (`mcp__alice_gmail__send` → `mcp__fodub_kelom__send`), the rest kept:
    /// the prefix, the separators and the tool, so that calls, results and
    /// definitions still pair.
    pub(super) fn tool_names(&mut self, s: &str) -> String {
        let s = &self.in_tool_name(s);
        if !s.contains("mcp__") {
            return s.to_string();
        }
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in MCP.captures_iter(s) {
            let (Some(all), Some(server)) = (c.get(0), c.get(1)) else { continue };
            out.push_str(&s[last..server.start()]);
            let p = self.mcp_server(server.as_str());
            out.push_str(&p);
            last = server.end();
            out.push_str(&s[last..all.end()]);
            last = all.end();
        }
        out.push_str(&s[last..]);
        out
    }

    /// `s` (a tool name) with its keys, emails, URLs, paths, IP addresses and
    /// long numbers replaced as in free text (the same placeholder wherever
    /// the same original is, so a call and its result still pair); its
    /// words stay.
    fn in_tool_name(&mut self, s: &str) -> String {
        let once = self.in_tool_name_with(&IN_TOOL_NAMES, s, s);
        // `_` joins the words of a tool name (`ping_10.1.2.3`), where the
        // classes' word boundaries would not see an address start: the
        // addresses and numbers are searched again with `_` read as a space.
        let spaced = once.replace('_', " ");
        let out = self.in_tool_name_with(&NUMBERS_IN_TOOL_NAMES, &once, &spaced);
        // Shapes only `check`'s masking knows (`Basic …` credentials): masked
        // alike wherever the same name is, so calls still pair.
        crate::text::mask_secrets(&out)
    }

    /// `s` with the matches of `re` in `view` (`s` with the same byte
    /// lengths, some characters read differently) replaced.
    fn in_tool_name_with(&mut self, re: &Regex, s: &str, view: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for c in re.captures_iter(view) {
            let Some(m) = c.get(0) else { continue };
            if !s.is_char_boundary(m.start()) || !s.is_char_boundary(m.end()) {
                continue;
            }
            out.push_str(&s[last..m.start()]);
            match self.replace(&c, &view[..m.start()], &view[m.end()..]) {
                Some(r) => out.push_str(&r),
                None => out.push_str(&s[m.start()..m.end()]),
            }
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }

    /// An MCP server name: each word of it as the same word in free text (so
    /// `alice` is replaced alike in `mcp__alice_gmail__send` and in prose),
    /// digits shifted, separators kept; words of one or two letters are kept,
    /// as in free text.
    fn mcp_server(&mut self, server: &str) -> String {
        if let Some(p) = self.map.get(&("mcp-server", server.to_string())) {
            return p.clone();
        }
        let mut out = String::with_capacity(server.len());
        let mut run = String::new();
        let shift = self.counters.get("mcp-server").copied().unwrap_or(0) % 9 + 1;
        for ch in server.chars().chain(std::iter::once('_')) {
            if ch.is_alphabetic() {
                run.push(ch);
                continue;
            }
            if !run.is_empty() {
                let w = if run.chars().count() <= 2 || KEEP_WORDS.contains(&run.as_str()) {
                    run.clone()
                } else {
                    self.word(&run)
                };
                out.push_str(&w);
                run.clear();
            }
            match ch.to_digit(10) {
                Some(d) => out.push(char::from(b'0' + ((d as u64 + shift) % 10) as u8)),
                None => out.push(ch),
            }
        }
        out.pop();
        *self.counters.entry("mcp-server").or_insert(0) += 1;
        if out != server {
            self.note("mcp-server");
        }
        self.map.insert(("mcp-server", server.to_string()), out.clone());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Level, mask_mcp_servers};
    use super::*;

    #[test]
    fn mcp_server_names_are_replaced_alike_everywhere() {
        let v = serde_json::json!({
            "tools": [{"name": "mcp__alice_gmail__send", "description": "Send mail as Alice"}],
            "messages": [
                {"role": "assistant", "content": [
                    {"type": "toolCall", "id": "call_1", "name": "mcp__alice_gmail__send", "arguments": {"to": "x"}},
                    {"type": "toolCall", "id": "call_2", "name": "read", "arguments": {}}
                ]},
                {"role": "toolResult", "toolCallId": "call_1", "toolName": "mcp__alice_gmail__send", "content": "sent with mcp__alice_gmail__send"},
                {"role": "tool", "name": "mcp__alice_gmail__send", "content": "ok"},
                {"role": "user", "name": "alice", "content": "try mcp__bob2_drive__list, then mcp__alice_gmail__search"}
            ]
        });
        for (level, bob) in [(Level::Full, "mcp__mef4_nagun__list"), (Level::Identifiers, "mcp__keg4_lakar__list")] {
            let mut a = Anonymiser::new(level);
            let mut n = crate::repro::tree::from_value(v.clone(), &mut Default::default(), false);
            a.node(&mut n, None, false);
            let out = crate::repro::tree::to_value(&n);
            let text = out.to_string();
            assert!(!text.contains("alice") && !text.contains("bob"), "{text}");
            let send = out["tools"][0]["name"].as_str().unwrap_or_default().to_string();
            assert_eq!(send, "mcp__dubin_fodub__send", "{level:?}");
            assert_eq!(out["messages"][0]["content"][0]["name"], send.as_str());
            assert_eq!(out["messages"][1]["toolName"], send.as_str());
            assert_eq!(out["messages"][1]["content"].as_str().map(|s| s.ends_with(&send)), Some(true), "{text}");
            assert_eq!(out["messages"][2]["name"], send.as_str());
            // Other tool names are kept; a person's name beside a role is not.
            assert_eq!(out["messages"][0]["content"][1]["name"], "read");
            assert_ne!(out["messages"][3]["name"], "alice");
            let user = out["messages"][3]["content"].as_str().unwrap_or_default();
            assert!(user.contains(bob) && user.contains("mcp__dubin_fodub__search"), "{user}");
            assert_eq!(a.counts().get("mcp-server"), Some(&2));
        }
        // A finding message is compared with its servers masked.
        assert_eq!(mask_mcp_servers("tool call `x` (mcp__alice_gmail__send) has"), "tool call `x` (mcp__~__send) has");
    }

    #[test]
    fn keys_emails_paths_and_addresses_in_tool_names_are_replaced_alike() {
        // Issue 32: `repro` wrote a key in a tool name verbatim (and emails,
        // paths and IP addresses), though `check` masks it.
        let v = serde_json::json!({"messages": [
            {"role": "assistant", "content": [
                {"type": "toolCall", "id": "call_1", "name": "run_sk-proj-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1", "arguments": {}},
                {"type": "toolCall", "id": "call_2", "name": "mail_bob@example.com", "arguments": {}},
                {"type": "toolCall", "id": "call_3", "name": "ping_10.1.2.3", "arguments": {}},
                {"type": "toolCall", "id": "call_4", "name": "open_/home/bob/secret-proj", "arguments": {}},
                {"type": "toolCall", "id": "call_5", "name": "read_file", "arguments": {}},
                {"type": "toolCall", "id": "call_6", "name": "auth_Basic dXNlcjpodW50ZXIyLXN1cGVy", "arguments": {}}
            ]},
            {"role": "toolResult", "toolCallId": "call_1", "toolName": "run_sk-proj-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1", "content": "ok"},
            {"role": "toolResult", "toolCallId": "call_2", "toolName": "mail_bob@example.com", "content": "ok"}
        ]});
        let mut a = Anonymiser::new(Level::Identifiers);
        let mut n = crate::repro::tree::from_value(v, &mut Default::default(), false);
        a.node(&mut n, None, false);
        let out = crate::repro::tree::to_value(&n);
        let text = out.to_string();
        for leak in ["Zq8Xw7Cv6Bn5", "bob", "10.1.2.3", "secret-proj", "cjpodW50ZXIy"] {
            assert!(!text.contains(leak), "{leak} in {text}");
        }
        let calls = &out["messages"][0]["content"];
        assert_eq!(out["messages"][1]["toolName"], calls[0]["name"], "a call and its result still pair");
        assert_eq!(out["messages"][2]["toolName"], calls[1]["name"]);
        assert!(calls[0]["name"].as_str().is_some_and(|n| n.starts_with("run_sk-")), "{text}");
        assert_eq!(calls[4]["name"], "read_file", "words of a tool name stay");
    }
}
