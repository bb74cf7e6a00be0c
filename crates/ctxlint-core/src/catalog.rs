//! The catalogue of input formats `ctxlint formats` lists: every stable
//! format id, what it is, whether this build reads it, and where the agent
//! or tool that writes it keeps its files.

use serde_json::{Value, json};

/// One input format.
#[derive(Debug, Clone, Copy)]
pub struct FormatInfo {
    /// Stable format id (`--input-format`).
    pub id: &'static str,
    /// What it is.
    pub what: &'static str,
    /// Whether the files are transcripts, request bodies or streams of requests.
    pub kind: &'static str,
    /// Where the files are usually found.
    pub location: &'static str,
}

/// Every format id, read or planned: first the ones this build reads (in the
/// order of [`crate::formats::ALL`]'s documentation), then the planned ones.
pub const FORMATS: &[FormatInfo] = &[
    FormatInfo {
        id: "pi-session",
        what: "pi / OpenClaw session JSONL, versions 1-3",
        kind: "transcript",
        location: "~/.pi/agent/sessions/*/*.jsonl; OpenClaw: ~/.openclaw/agents/*/sessions/*.jsonl",
    },
    FormatInfo {
        id: "claude-code",
        what: "Claude Code session JSONL",
        kind: "transcript",
        location: "~/.claude/projects/*/*.jsonl (or $CLAUDE_CONFIG_DIR/projects)",
    },
    FormatInfo {
        id: "codex-rollout",
        what: "Codex CLI rollout JSONL",
        kind: "transcript",
        location: "~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (or $CODEX_HOME/sessions)",
    },
    FormatInfo {
        id: "pydantic-ai-history",
        what: "pydantic-ai message history (ModelMessagesTypeAdapter JSON)",
        kind: "history snapshot",
        location: "wherever the application saves it",
    },
    FormatInfo {
        id: "openai-chat",
        what: "OpenAI Chat Completions request body (also Mistral, Groq, DeepSeek, HF router, Cohere v2)",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
    FormatInfo {
        id: "openai-responses",
        what: "OpenAI Responses request body",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
    FormatInfo {
        id: "anthropic-messages",
        what: "Anthropic Messages request body (also Bedrock invoke)",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
    FormatInfo {
        id: "gemini",
        what: "Gemini generateContent request body",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
    FormatInfo {
        id: "bedrock-converse",
        what: "Bedrock Converse request body",
        kind: "request body",
        location: "recorded by the application, a proxy or a test",
    },
    FormatInfo {
        id: "exchange-log",
        what: "JSONL of recorded {request, response} exchanges (claude-trace, claude-tap and similar proxies)",
        kind: "stream of requests",
        location: "claude-trace: .claude-trace/log-*.jsonl in the project",
    },
    FormatInfo {
        id: "vcr-cassette",
        what: "VCR YAML cassette (vcrpy, pytest-recording)",
        kind: "stream of requests",
        location: "tests/cassettes/**/*.yaml in the project",
    },
    FormatInfo {
        id: "har",
        what: "HTTP Archive 1.2 of provider API traffic (browser devtools, mitmproxy hardump, Charles exports)",
        kind: "stream of requests",
        location: "wherever it was exported (*.har)",
    },
    FormatInfo {
        id: "openclaw-trajectory",
        what: "OpenClaw trajectory JSONL (traceSchema \"openclaw-trajectory\"): context.compiled records as requests, model.completed outcomes",
        kind: "stream of requests",
        location: "~/.openclaw/agents/*/sessions/*.trajectory.jsonl",
    },
    FormatInfo {
        id: "aider-llm-history",
        what: "Aider LLM history (TO LLM / LLM RESPONSE blocks)",
        kind: "stream of requests",
        location: ".aider.llm.history in the project (--llm-history-file)",
    },
    FormatInfo {
        id: "otel-genai",
        what: "OpenTelemetry GenAI traces and logs (semconv 1.37+ gen_ai.input.messages, operation-details events, v1.30 per-message events) as OTLP JSON or SDK JSON dumps; OpenInference spans",
        kind: "streams of requests",
        location: "the file exporter's or collector's output file",
    },
    FormatInfo {
        id: "gemini-cli",
        what: "Gemini CLI chat recordings (JSONL, and the legacy whole-file JSON); Qwen Code chats",
        kind: "transcript",
        location: "~/.gemini/tmp/<project>/chats/session-*.jsonl (or $GEMINI_CLI_HOME/.gemini); Qwen Code: ~/.qwen/projects/*/chats/*.jsonl (or $QWEN_HOME, $QWEN_RUNTIME_DIR)",
    },
    FormatInfo {
        id: "copilot-cli",
        what: "GitHub Copilot CLI session event logs (events.jsonl)",
        kind: "transcript",
        location: "~/.copilot/session-state/<id>/events.jsonl (or $COPILOT_HOME/session-state)",
    },
    FormatInfo {
        id: "cline-history",
        what: "Cline / Roo Code / Kilo Code task histories (api_conversation_history.json; Cline SDK/CLI <id>.messages.json)",
        kind: "transcript",
        location: "the editor's globalStorage: <extension id>/tasks/<task id>/api_conversation_history.json; ~/.cline/data/tasks/*/, ~/.cline/data/sessions/*/*.messages.json",
    },
    FormatInfo {
        id: "ai-sdk-ui-messages",
        what: "Vercel AI SDK UIMessage[] JSON (parts with tool-* / tool-invocation states)",
        kind: "history snapshot",
        location: "wherever the application persists its chats",
    },
    FormatInfo {
        id: "openai-agents-session",
        what: "OpenAI Agents SDK session items: a JSON list of Responses input items, as get_items() returns them, or a SQLiteSession database (one history per session, read-only)",
        kind: "history snapshots",
        location: "wherever the application saves it (SQLiteSession(session_id, db_path))",
    },
    FormatInfo {
        id: "langgraph-state",
        what: "LangGraph thread state / checkpoint JSON (values.messages of LangChain messages)",
        kind: "history snapshot",
        location: "the LangGraph API's GET /threads/{id}/state, or the application's dump",
    },
    FormatInfo {
        id: "opencode",
        what: "OpenCode / Kilo CLI SQLite store, and OpenCode 1.1's legacy storage/ JSON tree (one transcript per session)",
        kind: "transcripts",
        location: "~/.local/share/opencode/opencode.db (legacy: opencode/storage/session/*/*.json), Kilo CLI: ~/.local/share/kilo/kilo.db (or $XDG_DATA_HOME)",
    },
];

/// Whether this build reads format `id`.
pub fn supported(id: &str) -> bool {
    crate::formats::parse_format_id(id).is_some()
}

/// The catalogue as a text table.
pub fn table() -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING).set_header(vec!["format", "supported", "kind", "what", "files"]);
    for f in FORMATS {
        t.add_row(vec![f.id, if supported(f.id) { "yes" } else { "not yet" }, f.kind, f.what, f.location]);
    }
    crate::report::term::fit(&mut t, &[0, 1, 2]);
    let mut out: String = t.to_string().lines().map(|l| l.trim_end().to_string() + "\n").collect();
    out.push_str("\nDetection is by content; `--input-format ID` forces a supported format.\n");
    out
}

/// The catalogue as a JSON array of `{id, supported, kind, description, location}`.
pub fn json() -> String {
    let v: Vec<Value> = FORMATS
        .iter()
        .map(|f| {
            json!({"id": f.id, "supported": supported(f.id), "kind": f.kind, "description": f.what, "location": f.location})
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_format_is_listed_once() {
        for id in crate::formats::ALL {
            assert_eq!(FORMATS.iter().filter(|f| f.id == *id).count(), 1, "{id}");
        }
        let ids: std::collections::HashSet<&str> = FORMATS.iter().map(|f| f.id).collect();
        assert_eq!(ids.len(), FORMATS.len());
        assert_eq!(FORMATS.iter().filter(|f| supported(f.id)).count(), crate::formats::ALL.len());
    }
}
