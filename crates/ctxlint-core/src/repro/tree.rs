//! The reducible shape of a case: its files, each a tree of [`Node`]s whose
//! array elements remember their original index, so that a finding's line and
//! JSON Pointer can be followed into any reduced candidate.
//!
//! Units, from coarse to fine: the files of a request stream; the lines of a
//! JSONL file (entries, exchanges); array elements (cassette interactions,
//! messages, content blocks, parts) and object members; then the lines and
//! words of a string. JSON strings that hold a JSON document (a cassette's
//! `body.string`, tool-call arguments) are expanded so that their insides can
//! be reduced too, and are written back as strings.

use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// One JSON value of a case.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null`, a boolean or a number.
    Scalar(Value),
    /// A string (its id names it as a text-reduction site).
    Str(u32, String),
    /// A string holding a JSON object or array, expanded.
    Embedded(Box<Node>),
    /// A JSONL line that is not one JSON value, kept as text.
    Raw(String),
    /// An array: `(original index, element)`.
    Arr(u32, Vec<(usize, Node)>),
    /// An object: members in their original order.
    Obj(u32, Vec<(String, Node)>),
}

/// How a file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// JSON Lines: the root is an array of lines.
    Jsonl,
    /// One JSON document.
    Json,
    /// A VCR cassette, written as block YAML.
    Yaml,
}

/// Parent links of a JSONL transcript (pi `id`/`parentId`, Claude Code `uuid`/`parentUuid`).
#[derive(Debug, Clone, Default)]
pub struct Threading {
    /// The id field.
    pub id_key: &'static str,
    /// The parent field.
    pub parent_key: &'static str,
    /// The parent of each id that may be skipped: for the case's entries (ids
    /// used once in the file), their parent; for a parent outside the slice,
    /// its nearest ancestor among the case's entries (`None` = root). An id
    /// not in this map (a dangling parent, a repeated id) is kept verbatim.
    pub up: HashMap<String, Option<String>>,
}

/// One file of a case.
#[derive(Debug, Clone)]
pub struct CaseFile {
    /// File name inside the case directory.
    pub name: String,
    /// The format ctxlint detected for it.
    pub format: crate::model::FormatId,
    /// How it is written.
    pub kind: Kind,
    /// The content.
    pub root: Node,
    /// JSONL: whether the last line ends with a newline.
    pub trailing_newline: bool,
    /// JSONL transcripts with ids: how removed entries' children are re-threaded.
    pub threading: Option<Threading>,
}

/// A reducible case: its files in natural order.
#[derive(Debug, Clone)]
pub struct Case {
    /// The files.
    pub files: Vec<CaseFile>,
}

/// Assigns ids to containers and strings.
#[derive(Debug, Default)]
pub struct Ids(u32);

impl Ids {
    /// A fresh id.
    pub fn next_id(&mut self) -> u32 {
        self.0 += 1;
        self.0
    }
}

/// Builds a node from a JSON value; with `embed`, strings holding a JSON
/// object or array are expanded.
pub fn from_value(v: Value, ids: &mut Ids, embed: bool) -> Node {
    match v {
        Value::String(s) => {
            if embed {
                let t = s.trim_start();
                if t.starts_with('{') || t.starts_with('[') {
                    if let Ok(inner @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(&s) {
                        return Node::Embedded(Box::new(from_value(inner, ids, embed)));
                    }
                }
            }
            Node::Str(ids.next_id(), s)
        }
        Value::Array(a) => {
            let id = ids.next_id();
            Node::Arr(id, a.into_iter().enumerate().map(|(i, x)| (i, from_value(x, ids, embed))).collect())
        }
        Value::Object(o) => {
            let id = ids.next_id();
            Node::Obj(id, o.into_iter().map(|(k, x)| (k, from_value(x, ids, embed))).collect())
        }
        other => Node::Scalar(other),
    }
}

/// The JSON value of a node (embedded documents become strings again).
pub fn to_value(n: &Node) -> Value {
    match n {
        Node::Scalar(v) => v.clone(),
        Node::Str(_, s) | Node::Raw(s) => Value::String(s.clone()),
        Node::Embedded(inner) => Value::String(serde_json::to_string(&to_value(inner)).unwrap_or_default()),
        Node::Arr(_, items) => Value::Array(items.iter().map(|(_, x)| to_value(x)).collect()),
        Node::Obj(_, m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), to_value(x))).collect()),
    }
}

impl Node {
    /// The container or string id, if any.
    pub fn id(&self) -> Option<u32> {
        match self {
            Node::Str(id, _) | Node::Arr(id, _) | Node::Obj(id, _) => Some(*id),
            _ => None,
        }
    }

    /// Finds the node with this id.
    pub fn find_mut(&mut self, want: u32) -> Option<&mut Node> {
        if self.id() == Some(want) {
            return Some(self);
        }
        match self {
            Node::Embedded(inner) => inner.find_mut(want),
            Node::Arr(_, items) => items.iter_mut().find_map(|(_, x)| x.find_mut(want)),
            Node::Obj(_, m) => m.iter_mut().find_map(|(_, x)| x.find_mut(want)),
            _ => None,
        }
    }

    /// Number of elements of a container (0 for anything else).
    pub fn len(&self) -> usize {
        match self {
            Node::Arr(_, v) => v.len(),
            Node::Obj(_, v) => v.len(),
            _ => 0,
        }
    }

    /// Whether this is an empty container or not a container.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the elements at these positions (ascending).
    pub fn retain_positions(&mut self, keep: &[usize]) {
        let set: HashSet<usize> = keep.iter().copied().collect();
        match self {
            Node::Arr(_, v) => {
                let mut i = 0;
                v.retain(|_| {
                    i += 1;
                    set.contains(&(i - 1))
                });
            }
            Node::Obj(_, v) => {
                let mut i = 0;
                v.retain(|_| {
                    i += 1;
                    set.contains(&(i - 1))
                });
            }
            _ => {}
        }
    }

    /// Ids of the containers, breadth first (coarse units before fine ones).
    pub fn containers(&self, out: &mut Vec<u32>) {
        let mut queue = std::collections::VecDeque::from([self]);
        while let Some(n) = queue.pop_front() {
            match n {
                Node::Arr(id, v) => {
                    out.push(*id);
                    queue.extend(v.iter().map(|(_, x)| x));
                }
                Node::Obj(id, v) => {
                    out.push(*id);
                    queue.extend(v.iter().map(|(_, x)| x));
                }
                Node::Embedded(inner) => queue.push_back(inner),
                _ => {}
            }
        }
    }

    /// Ids of the strings, depth first in document order.
    pub fn strings(&self, out: &mut Vec<u32>) {
        match self {
            Node::Str(id, _) => out.push(*id),
            Node::Embedded(inner) => inner.strings(out),
            Node::Arr(_, v) => v.iter().for_each(|(_, x)| x.strings(out)),
            Node::Obj(_, v) => v.iter().for_each(|(_, x)| x.strings(out)),
            _ => {}
        }
    }

    /// Follows an original JSON Pointer into this (possibly reduced) node and
    /// returns the pointer to the same element here, or `None` when an element
    /// on the way was removed. Tokens below a string are kept as they are.
    pub fn map_pointer(&self, pointer: &str) -> Option<String> {
        if pointer.is_empty() {
            return Some(String::new());
        }
        let tokens: Vec<String> = pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect();
        let mut out = String::new();
        let mut node = self;
        let mut k = 0;
        while k < tokens.len() {
            let t = &tokens[k];
            match node {
                Node::Embedded(inner) => {
                    node = inner;
                    continue;
                }
                Node::Arr(_, items) => {
                    let orig: usize = t.parse().ok()?;
                    let pos = items.iter().position(|(o, _)| *o == orig)?;
                    out.push('/');
                    out.push_str(&pos.to_string());
                    node = &items[pos].1;
                }
                Node::Obj(_, m) => {
                    let (_, x) = m.iter().find(|(key, _)| key == t)?;
                    out.push('/');
                    out.push_str(&t.replace('~', "~0").replace('/', "~1"));
                    node = x;
                }
                _ => {
                    for t in &tokens[k..] {
                        out.push('/');
                        out.push_str(&t.replace('~', "~0").replace('/', "~1"));
                    }
                    return Some(out);
                }
            }
            k += 1;
        }
        Some(out)
    }

    /// A member of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Obj(_, m) => m.iter().find(|(k, _)| k == key).map(|(_, x)| x),
            _ => None,
        }
    }

    /// The text of a string member.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Node::Str(_, s) => Some(s),
            _ => None,
        }
    }
}

impl CaseFile {
    /// The file's bytes, with removed entries' children re-threaded to their
    /// nearest kept ancestor.
    pub fn render(&self) -> Vec<u8> {
        match self.kind {
            Kind::Jsonl => {
                let Node::Arr(_, lines) = &self.root else { return Vec::new() };
                let kept: HashSet<&str> = match &self.threading {
                    Some(t) => lines.iter().filter_map(|(_, l)| l.get_str(t.id_key)).collect(),
                    None => HashSet::new(),
                };
                let mut out = Vec::new();
                for (i, (_, line)) in lines.iter().enumerate() {
                    match line {
                        Node::Raw(s) => out.extend_from_slice(s.as_bytes()),
                        other => {
                            let mut v = to_value(other);
                            if let Some(t) = &self.threading {
                                rethread(&mut v, t, &kept);
                            }
                            out.extend_from_slice(serde_json::to_string(&v).unwrap_or_default().as_bytes());
                        }
                    }
                    if i + 1 < lines.len() || self.trailing_newline {
                        out.push(b'\n');
                    }
                }
                out
            }
            Kind::Json => {
                let mut s = serde_json::to_string(&to_value(&self.root)).unwrap_or_default();
                s.push('\n');
                s.into_bytes()
            }
            Kind::Yaml => {
                let mut s = String::new();
                yaml_block(&to_value(&self.root), 0, &mut s);
                s.into_bytes()
            }
        }
    }

    /// Writes the re-threaded parent links into the tree, so that later steps
    /// (anonymisation) see the final links; drops the threading.
    pub fn bake_threading(&mut self) {
        let Some(t) = self.threading.take() else { return };
        let Node::Arr(_, lines) = &mut self.root else { return };
        let kept: HashSet<String> = lines.iter().filter_map(|(_, l)| l.get_str(t.id_key).map(str::to_string)).collect();
        let kept_ref: HashSet<&str> = kept.iter().map(String::as_str).collect();
        for (_, line) in lines.iter_mut() {
            let Some(Node::Str(_, p)) = line.get(t.parent_key) else { continue };
            let now = resolve(Some(p.clone()), &t, &kept_ref);
            if now.as_deref() == Some(p.as_str()) {
                continue;
            }
            if let Node::Obj(_, m) = line {
                if let Some((_, slot)) = m.iter_mut().find(|(k, _)| k == t.parent_key) {
                    *slot = match now {
                        Some(s) => Node::Str(slot.id().unwrap_or(0), s),
                        None => Node::Scalar(Value::Null),
                    };
                }
            }
        }
    }
}

/// The parent an entry gets once removed entries are skipped (`None` = root).
fn resolve(mut p: Option<String>, t: &Threading, kept: &HashSet<&str>) -> Option<String> {
    let mut steps = 0;
    while let Some(x) = &p {
        if kept.contains(x.as_str()) || steps > t.up.len() {
            break;
        }
        match t.up.get(x) {
            Some(next) => p = next.clone(),
            None => break, // dangling or repeated: kept verbatim
        }
        steps += 1;
    }
    p
}

fn rethread(v: &mut Value, t: &Threading, kept: &HashSet<&str>) {
    let Some(o) = v.as_object_mut() else { return };
    let Some(p) = o.get(t.parent_key).and_then(Value::as_str).map(str::to_string) else { return };
    let now = resolve(Some(p.clone()), t, kept);
    if now.as_deref() != Some(p.as_str()) {
        o.insert(t.parent_key.to_string(), now.map(Value::String).unwrap_or(Value::Null));
    }
}

/// Keys by which a tool result (or a call, in Responses/Codex) names its call.
const PAIR_KEYS: &[&str] = &["toolCallId", "tool_call_id", "tool_use_id", "call_id", "toolUseId"];
/// `type` / `part_kind` values of tool-call objects (whose `id` is the call id).
const CALL_TYPES: &[&str] =
    &["toolCall", "tool_use", "server_tool_use", "mcp_tool_use", "function_call", "custom_tool_call", "tool-call"];

fn is_call(members: &[(String, Node)]) -> bool {
    members.iter().any(|(k, v)| match (k.as_str(), v) {
        ("type" | "part_kind", Node::Str(_, t)) => CALL_TYPES.contains(&t.as_str()),
        ("function", Node::Obj(..)) => true,
        _ => false,
    })
}

/// Collects the tool-call ids named anywhere in `n` (calls and results).
pub fn pair_ids(n: &Node, out: &mut HashSet<String>) {
    match n {
        Node::Embedded(inner) => pair_ids(inner, out),
        Node::Arr(_, items) => items.iter().for_each(|(_, x)| pair_ids(x, out)),
        Node::Obj(_, m) => {
            let call = is_call(m);
            for (k, v) in m {
                if let Node::Str(_, s) = v {
                    if PAIR_KEYS.contains(&k.as_str()) || (k == "id" && call) {
                        out.insert(s.clone());
                    }
                }
                pair_ids(v, out);
            }
        }
        _ => {}
    }
}

/// Whether the element itself (its objects, not its arrays) names one of `ids` as a call id.
fn names_pair(n: &Node, ids: &HashSet<String>) -> bool {
    match n {
        Node::Embedded(inner) => names_pair(inner, ids),
        Node::Obj(_, m) => {
            let call = is_call(m);
            m.iter().any(|(k, v)| match v {
                Node::Str(_, s) => (PAIR_KEYS.contains(&k.as_str()) || (k == "id" && call)) && ids.contains(s),
                Node::Obj(..) | Node::Embedded(_) => names_pair(v, ids),
                _ => false,
            })
        }
        _ => false,
    }
}

/// Removes every array element (entry, message, block, item) that names one of
/// `ids`: a tool call goes with its results, a result with its call.
pub fn drop_pairs(n: &mut Node, ids: &HashSet<String>) {
    match n {
        Node::Embedded(inner) => drop_pairs(inner, ids),
        Node::Arr(_, items) => {
            items.retain(|(_, x)| !names_pair(x, ids));
            items.iter_mut().for_each(|(_, x)| drop_pairs(x, ids));
        }
        Node::Obj(_, m) => m.iter_mut().for_each(|(_, x)| drop_pairs(x, ids)),
        _ => {}
    }
}

/// Whether a mapping key can be written without quotes.
fn plain_key(k: &str) -> bool {
    let reserved = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"];
    !k.is_empty()
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !reserved.contains(&k.to_ascii_lowercase().as_str())
}

fn yaml_key(k: &str) -> String {
    if plain_key(k) { k.to_string() } else { serde_json::to_string(k).unwrap_or_default() }
}

/// A value in YAML flow style (JSON with spaces after `:` and `,`).
fn yaml_flow(v: &Value, out: &mut String) {
    match v {
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                yaml_flow(x, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            for (i, (k, x)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                yaml_flow(x, out);
            }
            out.push('}');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}

/// Block YAML for the top levels of a cassette (mappings down to
/// `interactions[i].request.*`); deeper values in flow style, strings
/// double-quoted (JSON escapes are valid YAML escapes).
fn yaml_block(v: &Value, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    match v {
        Value::Object(o) if !o.is_empty() && depth < 3 => {
            for (k, x) in o {
                out.push_str(&pad);
                out.push_str(&yaml_key(k));
                out.push(':');
                yaml_child(x, depth, out);
            }
        }
        Value::Array(a) if !a.is_empty() && depth < 3 => {
            for x in a {
                out.push_str(&pad);
                out.push_str("- ");
                match x {
                    Value::Object(o) if !o.is_empty() => {
                        // First member on the dash line, the rest aligned under it.
                        let mut first = true;
                        for (k, y) in o {
                            if !first {
                                out.push_str(&pad);
                                out.push_str("  ");
                            }
                            first = false;
                            out.push_str(&yaml_key(k));
                            out.push(':');
                            yaml_child(y, depth + 1, out);
                        }
                    }
                    other => {
                        yaml_flow(other, out);
                        out.push('\n');
                    }
                }
            }
        }
        other => {
            out.push_str(&pad);
            yaml_flow(other, out);
            out.push('\n');
        }
    }
}

fn yaml_child(x: &Value, depth: usize, out: &mut String) {
    let nested = match x {
        Value::Object(o) => !o.is_empty() && depth + 1 < 3,
        Value::Array(a) => !a.is_empty() && depth + 1 < 3,
        _ => false,
    };
    if nested {
        out.push('\n');
        // Sequences under a mapping key sit at the key's indentation (YAML allows it).
        let d = if x.is_array() { depth } else { depth + 1 };
        yaml_block(x, d, out);
    } else {
        out.push(' ');
        yaml_flow(x, out);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_follow_removed_elements() {
        let mut ids = Ids::default();
        let mut n = from_value(json!({"messages": [{"c": [1, 2]}, {"c": [3, {"x": 4}]}]}), &mut ids, true);
        let Node::Obj(_, m) = &mut n else { panic!() };
        m[0].1.retain_positions(&[1]);
        assert_eq!(n.map_pointer("/messages/1/c/1/x").as_deref(), Some("/messages/0/c/1/x"));
        assert_eq!(n.map_pointer("/messages/0/c"), None);
        assert_eq!(n.map_pointer("").as_deref(), Some(""));
    }

    #[test]
    fn embedded_json_is_transparent() {
        let mut ids = Ids::default();
        let n = from_value(json!({"body": {"string": "{\"messages\": [1, 2]}"}}), &mut ids, true);
        assert_eq!(n.map_pointer("/body/string/messages/1").as_deref(), Some("/body/string/messages/1"));
        assert_eq!(to_value(&n), json!({"body": {"string": "{\"messages\":[1,2]}"}}));
    }

    #[test]
    fn yaml_round_trips_through_the_loader_shape() {
        let v = json!({"interactions": [{"request": {"method": "POST", "uri": "https://x/v1", "parsed_body": {"a": [1, "b"]}}}], "version": 1});
        let mut s = String::new();
        yaml_block(&v, 0, &mut s);
        assert!(s.starts_with("interactions:\n- request:\n"), "{s}");
        assert!(s.contains("    parsed_body: {\"a\": [1, \"b\"]}\n"), "{s}");
        assert!(s.ends_with("version: 1\n"), "{s}");
    }

    #[test]
    fn tool_pairs_go_together() {
        let mut ids = Ids::default();
        let mut n = from_value(
            json!([
                {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "t1"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}, {"type": "text", "text": "y"}]},
                {"type": "message", "message": {"role": "toolResult", "toolCallId": "t1"}}
            ]),
            &mut ids,
            true,
        );
        let mut gone = HashSet::new();
        pair_ids(&from_value(json!({"type": "tool_use", "id": "t1"}), &mut ids, true), &mut gone);
        drop_pairs(&mut n, &gone);
        assert_eq!(
            to_value(&n),
            json!([
                {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
                {"role": "user", "content": [{"type": "text", "text": "y"}]}
            ])
        );
    }

    #[test]
    fn rethreads_over_removed_entries() {
        let t = Threading {
            id_key: "id",
            parent_key: "parentId",
            up: HashMap::from([
                ("a".to_string(), None),
                ("b".to_string(), Some("a".to_string())),
                ("c".to_string(), Some("b".to_string())),
            ]),
        };
        let kept: HashSet<&str> = ["a", "c", "d"].into_iter().collect();
        assert_eq!(resolve(Some("b".into()), &t, &kept), Some("a".into()));
        assert_eq!(resolve(Some("zzz".into()), &t, &kept), Some("zzz".into()));
        let none: HashSet<&str> = ["c"].into_iter().collect();
        assert_eq!(resolve(Some("b".into()), &t, &none), None);
    }
}
