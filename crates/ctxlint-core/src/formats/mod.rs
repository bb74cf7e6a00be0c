//! Input formats: the registry ([`REGISTRY`], the only list of formats: one
//! [`Format`] descriptor per format, defined in its loader file), detection by
//! content (`detect.rs`, docs/spec.md §1), loading (`load.rs`) and parent
//! links (`parents.rs`). One loader file per format; each documents the
//! upstream source of its facts. Adding a format: docs/adding-a-format.md.

pub mod ai_sdk;
pub mod aider;
pub mod anthropic;
pub mod bedrock;
pub mod body;
pub mod claude_code;
pub mod cline_history;
pub mod codex_rollout;
pub mod copilot_cli;
mod detect;
pub mod exchange_log;
pub mod format;
pub mod gemini;
pub mod gemini_cli;
pub mod har;
pub mod jsonl;
pub mod langgraph;
mod load;
pub mod openai_agents;
pub mod openai_chat;
pub mod openai_responses;
pub mod openclaw_trajectory;
pub mod opencode;
pub mod otel_genai;
mod parents;
pub mod pi_session;
pub mod pydantic_ai;
pub mod record;
pub mod reply;
pub mod sqlite;
pub mod usage;
pub mod vcr_cassette;

use crate::model::*;

pub use body::IGNORED_KEYS;
use detect::is_openclaw_trajectory;
#[cfg(test)]
use detect::steps;
pub use detect::{
    DAMAGED_DATABASE, Detection, MAX_SNIFF_BYTES, MIN_RECORDS, OPENCLAW_TRAJECTORY_DOCUMENT, OPENCODE_DATABASE, PEEK,
    check_fit, detect, detect_input, detect_just_stamped, sniff_body, sniff_jsonl_record,
};
pub use format::{
    About, AgentFolder, Detect, Encoding, Fit, Format, Locate, Read, Repro, Shape, Sniffer, Store, TextCase,
};
#[cfg(test)]
pub(crate) use load::load_str_for_test;
pub(crate) use load::small_text_snapshot;
pub use load::{
    ELEMENT_PREFIX, JoinedStream, LoadOptions, READ_TRIES, Reloader, element_again, element_json_again, load,
    load_body_file, load_read, parse_body, reload_line, reload_message,
};
pub use parents::{ParentIds, fill_id_repeats, link_linearly};
pub use sqlite::CopyScope;
pub use vcr_cassette::MAX_YAML_DEPTH;

/// Every format ctxlint reads: the only list of formats. Listed in the order
/// `ctxlint formats` shows them; detection orders its tests by each
/// descriptor's ranks ([`Detect`]), not by this list.
pub static REGISTRY: &[&Format] = &[
    &pi_session::FORMAT,
    &claude_code::FORMAT,
    &codex_rollout::FORMAT,
    &pydantic_ai::FORMAT,
    &openai_chat::FORMAT,
    &openai_responses::FORMAT,
    &anthropic::FORMAT,
    &gemini::FORMAT,
    &bedrock::FORMAT,
    &exchange_log::FORMAT,
    &vcr_cassette::FORMAT,
    &har::FORMAT,
    &openclaw_trajectory::FORMAT,
    &aider::FORMAT,
    &otel_genai::FORMAT,
    &gemini_cli::FORMAT,
    &copilot_cli::FORMAT,
    &cline_history::FORMAT,
    &ai_sdk::FORMAT,
    &openai_agents::FORMAT,
    &langgraph::FORMAT,
    &opencode::FORMAT,
];

/// The descriptor of format `f`; `None` only for [`FormatId::UNKNOWN`] (ids
/// are made only by the loaders, and a registry test checks each is listed).
pub fn descriptor(f: FormatId) -> Option<&'static Format> {
    REGISTRY.iter().copied().find(|d| d.id == f)
}

/// Every agent's folders of the default scan ([`Format::agent_folders`]),
/// in rank order.
pub fn agent_folders() -> Vec<AgentFolder> {
    let mut v: Vec<AgentFolder> = REGISTRY.iter().flat_map(|d| d.agent_folders.iter().copied()).collect();
    v.sort_by_key(|f| f.rank);
    v
}

/// Whether `f` is a transcript format ([`Shape::Transcript`]).
pub fn is_transcript(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::is_transcript)
}

/// Formats whose files are single request bodies or history snapshots
/// (several in one directory may form a stream).
pub fn is_body_format(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::is_body)
}

/// Whether files of format `f` in one directory form one stream (docs/spec.md §1):
/// request bodies and history snapshots, except OpenAI Agents SDK sessions,
/// which the SDK keeps one per session and appends to in place (files side
/// by side are different sessions).
pub fn joins_stream(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::joins_stream)
}

/// Whether a file found walking a folder belongs to a store tree of some
/// format ([`Store::is_member`]): not an input of its own.
pub fn is_store_member(path: &std::path::Path) -> bool {
    REGISTRY.iter().filter_map(|d| d.store).any(|s| (s.is_member)(path))
}

/// Formats whose files are history snapshots (a stored run, read as one
/// request-like element), not request bodies.
pub fn is_snapshot_format(f: FormatId) -> bool {
    descriptor(f).is_some_and(Format::is_snapshot)
}

/// Looks a format id up (`--input-format`).
pub fn parse_format_id(s: &str) -> Option<FormatId> {
    REGISTRY.iter().map(|d| d.id).find(|f| f.as_str() == s)
}

/// Every format id, in [`REGISTRY`]'s order, joined with `", "` (for messages).
pub fn ids_joined() -> String {
    REGISTRY.iter().map(|d| d.id.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn every_registered_format_has_a_whole_descriptor() {
        // Issue 34: the registry is the only list of formats; a descriptor
        // that is incomplete or contradicts itself fails here.
        let mut seen = std::collections::HashSet::new();
        for d in REGISTRY {
            let id = d.id.as_str();
            assert!(seen.insert(id), "{id} listed twice");
            assert_eq!(parse_format_id(id), Some(d.id));
            assert_eq!(descriptor(d.id).map(|x| x.id), Some(d.id));
            let a = &d.about;
            assert!(!a.what.is_empty() && !a.kind.is_empty() && !a.location.is_empty(), "{id}: about");
            match (d.shape, d.read) {
                (Shape::Transcript | Shape::Stream, Read::File(_))
                | (Shape::Body | Shape::Snapshot { .. }, Read::Body { .. }) => {}
                _ => panic!("{id}: its shape and how it is read disagree"),
            }
            let t = &d.detect;
            assert!(
                t.record.is_some()
                    || t.document.is_some()
                    || t.body.is_some()
                    || t.text.is_some()
                    || t.database.is_some(),
                "{id}: detection never recognises it"
            );
            if let Some(r) = d.record {
                assert!(
                    d.is_transcript() && d.encoding == Encoding::Jsonl,
                    "{id}: a record schema is for JSONL transcripts"
                );
                assert_eq!(r.format, d.id, "{id}: its record schema is another format's");
            }
            match d.locate {
                Locate::Lines { .. } => assert_eq!(d.encoding, Encoding::Jsonl, "{id}"),
                Locate::Rows(_) => assert_eq!(d.encoding, Encoding::Database, "{id}"),
                Locate::Document { .. } => assert_eq!(d.encoding, Encoding::Json, "{id}"),
                Locate::Own(_) => assert!(matches!(d.encoding, Encoding::Text | Encoding::Yaml), "{id}"),
            }
            if d.repro.threading.is_some() {
                assert!(d.is_transcript(), "{id}: threading keys are for transcripts");
            }
            assert!(!d.repro.name.is_empty() && d.case_file_name(0, 1) == d.repro.name, "{id}: repro name");
            assert_eq!(d.is_body(), t.body.is_some(), "{id}: a body format is recognised as a body, and only it");
        }
        // Ranks order detection at each step: two formats never share one.
        let s = steps();
        let unique = |v: Vec<u8>, step: &str| {
            let n = v.len();
            assert_eq!(
                v.into_iter().collect::<std::collections::BTreeSet<u8>>().len(),
                n,
                "two formats share a {step} rank"
            );
        };
        unique(s.record.iter().map(|(_, x)| x.rank).collect(), "record");
        unique(s.weak_record.iter().map(|(_, x)| x.rank).collect(), "weak record");
        unique(s.document.iter().map(|(_, x)| x.rank).collect(), "document");
        unique(s.body.iter().map(|(_, x)| x.rank).collect(), "body");
        unique(s.text.iter().map(|(_, x)| x.rank).collect(), "text");
        unique(s.database.iter().map(|(_, x)| x.rank).collect(), "database");
        unique(agent_folders().iter().map(|f| f.rank).collect(), "agent folder");
        assert!(agent_folders().iter().all(|f| !f.pattern.is_empty() && !f.pattern.starts_with('/')));
        assert!(descriptor(FormatId::UNKNOWN).is_none());
        assert!(!is_transcript(FormatId::UNKNOWN) && !is_body_format(FormatId::UNKNOWN));
    }

    #[test]
    fn detection_tries_the_formats_in_the_order_it_always_had() {
        // The formats below keep their order at each step; a format added
        // later may take any rank between them (it is left out here).
        const KNOWN: [&str; 22] = [
            "pi-session",
            "claude-code",
            "codex-rollout",
            "pydantic-ai-history",
            "openai-chat",
            "openai-responses",
            "anthropic-messages",
            "gemini",
            "bedrock-converse",
            "exchange-log",
            "vcr-cassette",
            "har",
            "openclaw-trajectory",
            "aider-llm-history",
            "otel-genai",
            "gemini-cli",
            "copilot-cli",
            "cline-history",
            "ai-sdk-ui-messages",
            "openai-agents-session",
            "langgraph-state",
            "opencode",
        ];
        let ids =
            |v: Vec<FormatId>| v.into_iter().map(FormatId::as_str).filter(|f| KNOWN.contains(f)).collect::<Vec<_>>();
        let s = steps();
        assert_eq!(
            ids(s.record.iter().map(|x| x.0).collect()),
            [
                "openclaw-trajectory",
                "pi-session",
                "gemini-cli",
                "codex-rollout",
                "claude-code",
                "copilot-cli",
                "exchange-log",
                "otel-genai"
            ]
        );
        assert_eq!(ids(s.weak_record.iter().map(|x| x.0).collect()), ["claude-code", "pi-session"]);
        assert_eq!(
            ids(s.document.iter().map(|x| x.0).collect()),
            ["har", "otel-genai", "gemini-cli", "cline-history", "opencode", "exchange-log"]
        );
        assert_eq!(
            ids(s.body.iter().map(|x| x.0).collect()),
            [
                "ai-sdk-ui-messages",
                "openai-agents-session",
                "pydantic-ai-history",
                "langgraph-state",
                "gemini",
                "openai-responses",
                "bedrock-converse",
                "anthropic-messages",
                "openai-chat"
            ]
        );
        assert_eq!(ids(s.text.iter().map(|x| x.0).collect()), ["aider-llm-history", "vcr-cassette"]);
        assert_eq!(ids(s.database.iter().map(|x| x.0).collect()), ["openai-agents-session", "opencode"]);
    }
}
