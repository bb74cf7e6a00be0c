//! Known sidecar files: files an agent keeps beside its sessions by design
//! (an index, a lock, a prompt history, UI state, metadata) and reports
//! ctxlint itself wrote (docs/spec.md §1). They are never inputs: a walk that meets
//! one — or a command line that names one — skips it with a reason that
//! starts with [`SIDECAR`], listed under `skipped` in JSON and
//! `--show-files`, counted in one note on standard error (not a warning each)
//! and never a `--strict` failure.
//!
//! The one list of them is [`KNOWN`] (by name *and* location) plus
//! [`own_report`] (by content). Only a file that matches no input format is
//! asked about: a real session never hides behind a sidecar's name.

use std::path::Path;

/// The start of the [`crate::inputs::Skipped::reason`] of a known sidecar.
pub const SIDECAR: &str = "sidecar file";

/// A kind of file an agent keeps beside its sessions.
#[derive(Debug)]
pub struct Sidecar {
    /// The agent that writes it.
    pub runtime: &'static str,
    /// What it is.
    pub what: &'static str,
    /// The upstream file or documentation the shape follows.
    pub source: &'static str,
    /// Whether a path is one (its name and where it sits).
    pub matches: fn(&Path) -> bool,
    /// Skipped in a walk before it is opened: its bytes can look like an
    /// input's (a database's journal; a tool output holding lines copied
    /// from sessions) but it never is one. Other sidecars are asked about
    /// only once they match no input format.
    pub unopened: bool,
}

fn name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// The name of the folder `up` levels above the file (1: its own folder).
fn folder(p: &Path, up: usize) -> &str {
    let mut a = Some(p);
    for _ in 0..up {
        a = a.and_then(Path::parent);
    }
    a.map(name).unwrap_or("")
}

fn sibling_file(p: &Path, n: &str) -> bool {
    p.with_file_name(n).is_file()
}

fn sibling_dir(p: &Path, n: &str) -> bool {
    p.with_file_name(n).is_dir()
}

/// The known sidecars, per agent.
pub const KNOWN: &[Sidecar] = &[
    Sidecar {
        runtime: "ctxlint",
        what: "a case `ctxlint repro` wrote (or one of `../shared/cases`): its `expected.json` and `case.md`, beside each other",
        source: "ctxlint `repro` (crates/ctxlint-core/src/repro/case.rs; the shared cases' README)",
        matches: |p| match name(p) {
            "expected.json" => sibling_file(p, "case.md"),
            "case.md" => sibling_file(p, "expected.json"),
            _ => false,
        },
        unopened: false,
    },
    Sidecar {
        runtime: "SQLite",
        what: "write-ahead log, shared memory or rollback journal (`<db>-wal`, `<db>-shm`, `<db>-journal`) beside its database, read with it",
        source: "https://sqlite.org/tempfiles.html",
        matches: |p| {
            let s = p.as_os_str().to_string_lossy();
            ["-wal", "-shm", "-journal"]
                .iter()
                .any(|suffix| s.strip_suffix(suffix).is_some_and(|db| !db.is_empty() && Path::new(db).is_file()))
        },
        unopened: true,
    },
    Sidecar {
        runtime: "Aider",
        what: "the chat log `.aider.chat.history.md` and the prompt history `.aider.input.history` (what the person saw and typed; the requests are in `--llm-history-file`)",
        source: "Aider `aider/args.py` (`--chat-history-file` default `.aider.chat.history.md`, `--input-history-file` default `.aider.input.history`)",
        matches: |p| matches!(name(p), ".aider.chat.history.md" | ".aider.input.history"),
        unopened: false,
    },
    Sidecar {
        runtime: "Claude Code",
        what: "sub-agent metadata `*.meta.json` (in `subagents/` or beside its `<name>.jsonl`)",
        source: "Claude Code `~/.claude/projects/<project>/<session>/subagents/agent-<id>.meta.json`",
        matches: |p| {
            name(p).strip_suffix(".meta.json").is_some_and(|stem| {
                !stem.is_empty() && (folder(p, 1) == "subagents" || sibling_file(p, &format!("{stem}.jsonl")))
            })
        },
        unopened: false,
    },
    Sidecar {
        runtime: "Claude Code",
        what: "prompt history `history.jsonl` (in `~/.claude` or `$CLAUDE_CONFIG_DIR`, beside `projects/`: one `{display, pastedContents, timestamp, project}` line per prompt typed, for the up-arrow recall)",
        source: "Claude Code `~/.claude/history.jsonl` (seen in real `~/.claude` backups, 2.x)",
        matches: |p| name(p) == "history.jsonl" && (folder(p, 1) == ".claude" || sibling_dir(p, "projects")),
        unopened: false,
    },
    Sidecar {
        runtime: "Claude Code",
        what: "saved tool outputs `tool-results/*` (in `<session>/`, beside `<session>.jsonl`; one that printed session lines is not a session)",
        source: "Claude Code `~/.claude/projects/<project>/<session>/tool-results/<id>.txt` (seen in real `~/.claude` backups, 2.1.x)",
        matches: |p| {
            // Beside its session file, or in a session-id folder of a project
            // under `projects/` (a backup may leave the session file out).
            let uuid = |s: &str| {
                s.len() == 36
                    && s.chars()
                        .enumerate()
                        .all(|(i, c)| if [8, 13, 18, 23].contains(&i) { c == '-' } else { c.is_ascii_hexdigit() })
            };
            folder(p, 1) == "tool-results"
                && p.parent().and_then(Path::parent).is_some_and(|session| {
                    let id = name(session);
                    !id.is_empty()
                        && (sibling_file(session, &format!("{id}.jsonl")) || (uuid(id) && folder(p, 4) == "projects"))
                })
        },
        unopened: true,
    },
    Sidecar {
        runtime: "Codex",
        what: "prompt history `history.jsonl` (in `~/.codex` or `$CODEX_HOME`, beside `sessions/`)",
        source: "openai/codex codex-rs/core/src/message_history.rs",
        matches: |p| name(p) == "history.jsonl" && (folder(p, 1) == ".codex" || sibling_dir(p, "sessions")),
        unopened: false,
    },
    Sidecar {
        runtime: "Gemini CLI / Qwen Code",
        what: "prompt log `logs.json` (in `tmp/<project hash>/`, beside `chats/`)",
        source: "google-gemini/gemini-cli packages/core/src/core/logger.ts",
        matches: |p| name(p) == "logs.json" && (sibling_dir(p, "chats") || folder(p, 2) == "tmp"),
        unopened: false,
    },
    Sidecar {
        runtime: "Cline / Roo Code / Kilo Code",
        what: "task UI state `ui_messages.json` and `task_metadata.json` (in `tasks/<id>/`, beside `api_conversation_history.json`)",
        source: "cline/cline src/core/storage/disk.ts (GlobalFileNames)",
        matches: |p| {
            matches!(name(p), "ui_messages.json" | "task_metadata.json")
                && (sibling_file(p, "api_conversation_history.json") || folder(p, 2) == "tasks")
        },
        unopened: false,
    },
    Sidecar {
        runtime: "Copilot CLI",
        what: "session state `workspace.yaml`, `vscode.metadata.json`, `vscode.requests.metadata.json` and `rewind-snapshots/index.json` (in `session-state/<id>/`, beside `events.jsonl`)",
        source: "GitHub Copilot CLI `~/.copilot/session-state/<id>/`",
        matches: |p| match name(p) {
            "workspace.yaml" | "vscode.metadata.json" | "vscode.requests.metadata.json" => {
                sibling_file(p, "events.jsonl") || folder(p, 2) == "session-state"
            }
            "index.json" => {
                folder(p, 1) == "rewind-snapshots"
                    && p.parent().is_some_and(|d| sibling_file(d, "events.jsonl") || folder(p, 3) == "session-state")
            }
            _ => false,
        },
        unopened: false,
    },
    Sidecar {
        runtime: "Copilot CLI",
        what: "rewind backups `rewind-snapshots/backups/<hash>-<ms>` (byte copies of the workspace's files before an edit, listed in `rewind-snapshots/index.json`: a copy of a session file is no session), the checkpoint history `checkpoints/*.md` and the per-session store `session.db` (in `session-state/<id>/`)",
        source: "GitHub Copilot CLI `~/.copilot/session-state/<id>/` (1.0.x, as written by real sessions of 2026; the CLI's source is not public)",
        matches: |p| {
            let session_dir = |d: Option<&Path>| {
                d.is_some_and(|d| d.join("events.jsonl").is_file() || d.parent().map(name) == Some("session-state"))
            };
            if folder(p, 1) == "backups" && folder(p, 2) == "rewind-snapshots" {
                return session_dir(p.parent().and_then(Path::parent).and_then(Path::parent));
            }
            if folder(p, 1) == "checkpoints" && name(p).ends_with(".md") {
                return session_dir(p.parent().and_then(Path::parent));
            }
            name(p) == "session.db" && session_dir(p.parent())
        },
        unopened: true,
    },
    Sidecar {
        runtime: "Claude Code",
        what: "the live-session registry `sessions/<pid>.json` (in `~/.claude`: one per running process, `pid`, `sessionId`, `cwd`, `startedAt`)",
        source: "Claude Code `~/.claude/sessions/<pid>.json` (2.1.x, as seen in real `~/.claude` backups)",
        matches: |p| {
            folder(p, 1) == "sessions"
                && folder(p, 2) == ".claude"
                && name(p).strip_suffix(".json").is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        },
        unopened: false,
    },
    Sidecar {
        runtime: "Codex",
        what: "home files `version.json` (update check), `config.toml`, `auth.json` and the logs `log/*.log` (in `~/.codex` or `$CODEX_HOME`)",
        source: "openai/codex codex-rs/tui/src/updates.rs (version.json), codex-rs/core/src/config (config.toml), codex-rs/login (auth.json), codex-rs/tui/src/lib.rs (log/codex-tui.log)",
        matches: |p| {
            (folder(p, 1) == ".codex" && matches!(name(p), "version.json" | "config.toml" | "auth.json"))
                || (folder(p, 1) == "log" && folder(p, 2) == ".codex" && name(p).ends_with(".log"))
        },
        unopened: false,
    },
    Sidecar {
        runtime: "Gemini CLI / Qwen Code",
        what: "home files `settings.json`, `installation_id`, `user_id`, `projects.json`, `google_accounts.json`, `oauth_creds.json` and `mcp-oauth-tokens*.json` (in `~/.gemini` or `~/.qwen`)",
        source: "google-gemini/gemini-cli packages/core/src/config/storage.ts (Storage: getGlobalSettingsPath, getInstallationIdPath, getGoogleAccountsPath, getMcpOAuthTokensPath; OAUTH_FILE), packages/core/src/config/projectRegistry.ts",
        matches: |p| {
            matches!(folder(p, 1), ".gemini" | ".qwen")
                && (matches!(
                    name(p),
                    "settings.json"
                        | "installation_id"
                        | "user_id"
                        | "projects.json"
                        | "google_accounts.json"
                        | "oauth_creds.json"
                ) || (name(p).starts_with("mcp-oauth-tokens") && name(p).ends_with(".json")))
        },
        unopened: false,
    },
    Sidecar {
        runtime: "OpenClaw",
        what: "session store index `sessions.json` (and its `sessions.json.*` companions), trajectory pointers `*.trajectory-path.json` and session locks `*.jsonl.lock` (in `agents/<id>/sessions/`)",
        source: "openclaw/openclaw src/config/sessions/store.ts, src/agents/session-write-lock.ts, src/trajectory (traceSchema `openclaw-trajectory-pointer`)",
        matches: |p| {
            let n = name(p);
            let in_sessions = folder(p, 1) == "sessions" || folder(p, 2) == "sessions";
            (in_sessions && (n == "sessions.json" || n.starts_with("sessions.json.")))
                || n.ends_with(".trajectory-path.json")
                || n.strip_suffix(".lock").is_some_and(|s| s.ends_with(".jsonl") && sibling_file(p, s))
        },
        unopened: false,
    },
    Sidecar {
        runtime: "OpenClaw",
        what: "state files under `~/.openclaw` outside `agents/*/sessions` (cron jobs and run logs, logs, plugin installs, channel offsets, update checks, exec approvals)",
        source: "openclaw/openclaw src/config/paths.ts (state directory layout), src/cron/store.ts, src/cron/run-log.ts",
        matches: |p| {
            let mut inside = false;
            let mut sessions = false;
            for c in p.parent().into_iter().flat_map(Path::components) {
                let c = c.as_os_str();
                inside |= c == ".openclaw";
                sessions |= inside && c == "sessions";
            }
            inside && !sessions
        },
        unopened: false,
    },
];

impl Sidecar {
    /// Its [`crate::inputs::Skipped::reason`].
    pub fn reason(&self) -> String {
        format!("{SIDECAR}: {} {}", self.runtime, self.what)
    }
}

/// Whether a skip reason is a known sidecar's (or ctxlint's own report's).
pub fn is_sidecar_reason(reason: &str) -> bool {
    reason.starts_with(SIDECAR)
}

/// The known sidecar `path` is, by name and location.
pub fn known(path: &Path) -> Option<&'static Sidecar> {
    KNOWN.iter().find(|s| (s.matches)(path))
}

/// How many bytes of a file [`own_report`] reads.
const REPORT_HEAD: usize = 64 * 1024;

/// Which report ctxlint wrote, if the file's first bytes are one: `json`
/// (`"tool": "ctxlint"`), `sarif` (driver name `ctxlint`), `gitlab` (Code
/// Quality items whose description starts with a rule code), `json-lines`
/// (a finding object with a rule code and fingerprint), `junit`
/// (`<testsuites name="ctxlint"`), `html` (the `ctxlint-index` block).
pub fn own_report(head: &[u8]) -> Option<&'static str> {
    use regex::bytes::Regex;
    use std::sync::LazyLock;
    static JSON: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"tool"\s*:\s*"ctxlint""#).expect("regex"));
    static SARIF: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?s)\A\s*\{.{0,400}"\$schema"\s*:\s*"[^"]*sarif[^"]*".*"driver"\s*:\s*\{\s*"name"\s*:\s*"ctxlint""#,
        )
        .expect("regex")
    });
    static GITLAB: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?s)\A\s*\[\s*\{\s*"description"\s*:\s*"CTX\d{3} [a-z-]+: .*?"check_name"\s*:"#).expect("regex")
    });
    static LINES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\A\s*\{\s*"rule"\s*:\s*"[a-z-]+"\s*,\s*"code"\s*:\s*"CTX\d{3}""#).expect("regex")
    });
    static JUNIT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\A\s*(?:<\?xml[^>]*\?>\s*)?<testsuites name="ctxlint""#).expect("regex"));
    static HTML: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)\A\s*<!doctype html>(?s:.*)(?:<script[^>]*id="ctxlint-index"|<a class="brand" href="\#">ctxlint</a>)"#)
            .expect("regex")
    });
    let head = &head[..head.len().min(REPORT_HEAD)];
    [(&*JSON, "json"), (&*SARIF, "sarif"), (&*GITLAB, "gitlab"), (&*LINES, "json-lines"), (&*JUNIT, "junit")]
        .into_iter()
        .find(|(re, _)| re.is_match(head))
        .map(|(_, id)| id)
        .or_else(|| HTML.is_match(head).then_some("html"))
}

/// The skip reason of a file that matches no input format, when it is a
/// known sidecar or a report ctxlint wrote (its first bytes are read).
pub fn reason(path: &Path) -> Option<String> {
    if let Some(s) = known(path) {
        return Some(s.reason());
    }
    let head = read_head(path)?;
    own_report(&head).map(|id| format!("{SIDECAR}: a report ctxlint wrote (`--output-format {id}`)"))
}

fn read_head(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let f = std::fs::File::open(path).ok()?;
    let mut buf = Vec::with_capacity(4096);
    f.take(REPORT_HEAD as u64).read_to_end(&mut buf).ok()?;
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_recognised_by_content() {
        assert_eq!(own_report(br#"{"version": 1, "tool": "ctxlint", "findings": []}"#), Some("json"));
        assert_eq!(
            own_report(
                br#"{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "ctxlint"}}}]}"#
            ),
            Some("sarif")
        );
        assert_eq!(
            own_report(br#"[{"description": "CTX203 duplicate-user-turn: the \"x\" turn", "check_name": "duplicate-user-turn"}]"#),
            Some("gitlab")
        );
        assert_eq!(
            own_report(br#"{"rule": "duplicate-user-turn", "code": "CTX203", "severity": "error"}"#),
            Some("json-lines")
        );
        assert_eq!(
            own_report(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ctxlint\" tests=\"1\">"),
            Some("junit")
        );
        assert_eq!(
            own_report(b"<!DOCTYPE html><html><script type=\"application/json\" id=\"ctxlint-index\">{}</script>"),
            Some("html")
        );
        // Another tool's report, a transcript mentioning ctxlint: no.
        assert_eq!(own_report(br#"{"version": 1, "tool": "ruff", "findings": []}"#), None);
        assert_eq!(own_report(br#"{"type":"message","message":{"content":"\"tool\": \"ctxlint\""}}"#), None);
    }

    /// An agent's own files in its home and session folders (seen in real
    /// backups of `~/.copilot`, `~/.claude`, `~/.codex`, `~/.gemini`) are
    /// sidecars: a Copilot rewind backup that is a byte copy of a session file
    /// is not opened; a session file or a name in another place is none.
    #[test]
    fn agent_home_and_session_state_files_are_sidecars() {
        let d = tempfile::tempdir().unwrap();
        let state = d.path().join(".copilot/session-state/b87feda8-379e-4f8c-aa42-b4f7d12f253a");
        std::fs::create_dir_all(state.join("rewind-snapshots/backups")).unwrap();
        std::fs::create_dir_all(state.join("checkpoints")).unwrap();
        std::fs::write(state.join("events.jsonl"), "").unwrap();
        let is = |rel: &str| known(&d.path().join(rel)).map(|s| s.runtime);
        let cp = ".copilot/session-state/b87feda8-379e-4f8c-aa42-b4f7d12f253a";
        for rel in ["rewind-snapshots/backups/caebba4ef5c59c3a-1780886298702", "checkpoints/index.md", "session.db"] {
            let s = known(&d.path().join(cp).join(rel)).expect(rel);
            assert_eq!((s.runtime, s.unopened), ("Copilot CLI", true), "{rel}");
        }
        assert_eq!(is(&format!("{cp}/events.jsonl")), None);
        assert_eq!(is("work/rewind-snapshots/backups/a-1"), None);
        assert_eq!(is(".claude/sessions/1442014.json"), Some("Claude Code"));
        assert_eq!(is(".claude/sessions/notes.json"), None);
        assert_eq!(is(".codex/version.json"), Some("Codex"));
        assert_eq!(is(".codex/log/codex-tui.log"), Some("Codex"));
        assert_eq!(is(".codex/log/session.jsonl"), None);
        assert_eq!(is("proj/version.json"), None);
        assert_eq!(is(".gemini/installation_id"), Some("Gemini CLI / Qwen Code"));
        assert_eq!(is(".gemini/settings.json"), Some("Gemini CLI / Qwen Code"));
        assert_eq!(is(".qwen/oauth_creds.json"), Some("Gemini CLI / Qwen Code"));
        assert_eq!(is("app/settings.json"), None);
        assert_eq!(is("repo/.aider.chat.history.md"), Some("Aider"));
        assert_eq!(is("repo/.aider.input.history"), Some("Aider"));
        assert_eq!(is("repo/.aider.llm.history"), None);
    }
}
