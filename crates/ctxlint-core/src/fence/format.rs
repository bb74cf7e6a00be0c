//! Format facts: the session format of the fenced file, detected on its
//! first lines, and the loader's own facts of one of its lines
//! ([`RecordSchema::classify`]).

use super::{HEAD_BYTES, read_at};
use crate::formats::record::{self, Record, RecordSchema, Sessions};
use crate::model::FormatId;
use serde_json::Value;
use std::fs::File;

#[derive(Clone, Copy, Default)]
pub(super) struct Format {
    pub(super) id: Option<FormatId>,
    /// The format's record facts (the loader's own classification).
    pub(super) schema: Option<&'static RecordSchema>,
    /// The header's format version (pi; 1 when absent, 0 without a header).
    version: u64,
    /// Line 1 is a session header (pi): a change there is `replaced`.
    pub(super) header_first_line: bool,
}

impl Format {
    pub(super) fn sniff(head: &[u8]) -> Format {
        let complete = if head.len() >= HEAD_BYTES {
            match memchr::memrchr(b'\n', head) {
                Some(i) => &head[..i],
                None => head,
            }
        } else {
            head
        };
        let mut tried = 0;
        for (i, line) in complete.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            tried += 1;
            if tried > 8 {
                break;
            }
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if let Some(id) = crate::formats::sniff_jsonl_record(&v) {
                let schema = record::schema(id);
                let mut f = Format { id: Some(id), schema, version: 0, header_first_line: false };
                if let Some(rec) = f.classify(line).ok().filter(|r| r.header) {
                    f.header_first_line = i == 0;
                    f.version = rec.version.unwrap_or(1);
                }
                return f;
            }
        }
        Format::default()
    }

    /// The loader's facts of one line of this file.
    pub(super) fn classify<'a>(&self, line: &'a [u8]) -> std::result::Result<Record<'a>, String> {
        match self.schema {
            Some(s) => (s.classify)(line, &record::Context { version: self.version }),
            None => Err("no record schema".into()),
        }
    }

    pub(super) fn sessions(&self) -> Sessions {
        self.schema.map_or(Sessions::Unchecked, |s| s.sessions)
    }
}

/// The session ids of the line 1 headers of OLD (from `head`) and NEW.
pub(super) fn header_ids(fmt: &Format, head: &[u8], new: &mut File) -> (Option<String>, Option<String>) {
    let id_of = |b: &[u8]| -> Option<String> {
        let line = b.split(|&c| c == b'\n').next()?;
        let rec = fmt.classify(line).ok().filter(|r| r.header)?;
        rec.id.map(|c| c.into_owned())
    };
    let new_head = read_at(new, 0, HEAD_BYTES).unwrap_or_default();
    (id_of(head), id_of(&new_head))
}
