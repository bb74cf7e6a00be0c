//! The default scan of `check` with no PATH: the session folders of the
//! agents installed on this machine.

use std::path::PathBuf;

/// The session folders of agents installed on this machine (docs/spec.md §3), and the
/// places looked at (for the message when none exists).
pub(crate) fn agent_folders() -> (Vec<String>, Vec<String>) {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let env_dir = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut looked = Vec::new();
    let mut out = Vec::new();
    if let Some(home) = &home {
        let agents = home.join(".openclaw/agents");
        looked.push(agents.join("*/sessions"));
        if let Ok(rd) = std::fs::read_dir(&agents) {
            let mut v: Vec<PathBuf> =
                rd.filter_map(|e| e.ok().map(|e| e.path().join("sessions"))).filter(|p| p.is_dir()).collect();
            v.sort();
            out.extend(v);
        }
        looked.push(home.join(".pi/agent/sessions"));
    }
    if let Some(d) = env_dir("CLAUDE_CONFIG_DIR").or_else(|| home.as_ref().map(|h| h.join(".claude"))) {
        looked.push(d.join("projects"));
    }
    if let Some(d) = env_dir("CODEX_HOME").or_else(|| home.as_ref().map(|h| h.join(".codex"))) {
        looked.push(d.join("sessions"));
    }
    // The first place looked at is the OpenClaw pattern, already expanded above.
    out.extend(looked.iter().skip(usize::from(home.is_some())).filter(|p| p.is_dir()).cloned());
    // Gemini CLI (`$GEMINI_CLI_HOME` replaces the home folder: gemini-cli
    // `packages/core/src/utils/paths.ts`) and Qwen Code (`$QWEN_RUNTIME_DIR`,
    // else `$QWEN_HOME`, else `~/.qwen`): the `chats` folders and Gemini
    // CLI's `/chat save` checkpoints, not the logs beside them.
    let gemini = env_dir("GEMINI_CLI_HOME").or_else(|| home.clone()).map(|h| h.join(".gemini/tmp"));
    let qwen = env_dir("QWEN_RUNTIME_DIR")
        .or_else(|| env_dir("QWEN_HOME"))
        .or_else(|| home.as_ref().map(|h| h.join(".qwen")))
        .map(|d| d.join("projects"));
    // Copilot CLI: each session folder's `events.jsonl` (`$COPILOT_HOME`, else
    // `~/.copilot`), not the workspace files and checkpoints beside it.
    if let Some(root) = env_dir("COPILOT_HOME").or_else(|| home.as_ref().map(|h| h.join(".copilot"))) {
        let root = root.join("session-state");
        looked.push(root.join("*/events.jsonl"));
        if let Ok(rd) = std::fs::read_dir(&root) {
            let mut v: Vec<PathBuf> =
                rd.filter_map(|e| e.ok().map(|e| e.path().join("events.jsonl"))).filter(|p| p.is_file()).collect();
            v.sort();
            out.extend(v);
        }
    }
    // Cline, Roo Code and Kilo Code task folders in VS Code's globalStorage
    // (Linux and macOS), and the Cline CLI's: each task's
    // `api_conversation_history.json` and each SDK session's `*.messages.json`
    // (not the UI logs and manifests beside them).
    if let Some(home) = &home {
        let mut roots: Vec<PathBuf> = Vec::new();
        for code in [".config/Code/User/globalStorage", "Library/Application Support/Code/User/globalStorage"] {
            for ext in ["saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code"] {
                roots.push(home.join(code).join(ext).join("tasks"));
            }
        }
        roots.push(home.join(".cline/data/tasks"));
        for root in roots {
            looked.push(root.join("*/api_conversation_history.json"));
            if let Ok(rd) = std::fs::read_dir(&root) {
                let mut v: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path().join("api_conversation_history.json")))
                    .filter(|p| p.is_file())
                    .collect();
                v.sort();
                out.extend(v);
            }
        }
        let sessions = home.join(".cline/data/sessions");
        looked.push(sessions.join("*/*.messages.json"));
        if let Ok(rd) = std::fs::read_dir(&sessions) {
            let mut v: Vec<PathBuf> = rd
                .filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_dir(e.path()).ok())
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".messages.json"))
                .collect();
            v.sort();
            out.extend(v);
        }
    }
    for (k, root) in [gemini, qwen].into_iter().enumerate() {
        let Some(root) = root else { continue };
        looked.push(root.join("*/chats"));
        if let Ok(rd) = std::fs::read_dir(&root) {
            let mut v: Vec<PathBuf> =
                rd.filter_map(|e| e.ok().map(|e| e.path().join("chats"))).filter(|p| p.is_dir()).collect();
            v.sort();
            out.extend(v);
        }
        // Gemini CLI's `/chat save` checkpoints beside the chats
        // (`<project temp dir>/checkpoint-<tag>.json`, core `logger.ts`).
        if k == 0 {
            looked.push(root.join("*/checkpoint-*.json"));
            let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
                .into_iter()
                .flatten()
                .filter_map(|e| std::fs::read_dir(e.ok()?.path()).ok())
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    p.is_file() && name.starts_with("checkpoint") && name.ends_with(".json")
                })
                .collect();
            v.sort();
            out.extend(v);
        }
    }
    // OpenCode and Kilo CLI keep every session in one SQLite store in their
    // XDG data folder (`$XDG_DATA_HOME`, else `~/.local/share`; opencode
    // `packages/opencode/src/global/index.ts`): the database file only, not
    // its snapshots and logs.
    let data = env_dir("XDG_DATA_HOME").or_else(|| home.as_ref().map(|h| h.join(".local/share")));
    if let Some(data) = data {
        for db in [data.join("opencode/opencode.db"), data.join("kilo/kilo.db")] {
            if db.is_file() {
                out.push(db.clone());
            }
            looked.push(db);
        }
        // OpenCode 1.1 and earlier: one JSON file per session (its messages
        // and parts are read with it).
        let legacy = data.join("opencode/storage/session");
        if legacy.is_dir() {
            out.push(legacy.clone());
        }
        looked.push(legacy);
    }
    let s = |v: Vec<PathBuf>| v.into_iter().map(|p| p.to_string_lossy().into_owned()).collect();
    (s(out), s(looked))
}
