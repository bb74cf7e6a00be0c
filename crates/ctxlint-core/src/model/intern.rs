//! One copy of what a stream's requests send again.
//!
//! Every recorded request carries its whole history: request *k* of a
//! conversation re-sends the *k − 1* before it. Held as they were read, a
//! stream of *n* requests takes memory for *n²/2* messages (an exchange log of
//! 30-request conversations took 7 times its file). [`Interner`] gives each
//! loader one place to hand a request to before keeping it: a message equal
//! to one an earlier request sent (same pointer, role, kind, blocks, texts and
//! hashes: [`Message`]'s `PartialEq`) becomes the earlier one's [`Arc`], and a
//! text equal to one already held (a system prompt, a tool result sent again
//! at another pointer) shares its bytes. Nothing a rule reads changes: only
//! where equal values live.

use super::{Block, Message, Request};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

/// Texts shorter than this (in bytes) are not worth a table entry.
const MIN_SHARED_TEXT: usize = 64;

/// The messages and texts one stream holds, by content (see the module
/// documentation). Used while a stream is loaded, then dropped.
#[derive(Default)]
pub struct Interner {
    messages: foldhash::HashMap<u64, Vec<Arc<Message>>>,
    texts: foldhash::HashMap<(u64, u32), Vec<Arc<str>>>,
}

impl Interner {
    /// Replaces the request's messages and texts by equal ones already held,
    /// and holds its new ones for the next requests. A stream whose requests
    /// sit at pointers of their own in one document (an HTTP Archive's
    /// `/log/entries/{i}/…`, a cassette's `/interactions/{i}/…`) holds its
    /// elements' pointers relative to each request's body
    /// ([`Request::relative`]), so that its history is shared too: held at
    /// their pointers in the file, every message of an archive was its own
    /// (a 117 MB archive took 2.1 times its size).
    pub fn request(&mut self, r: &mut Request) {
        for m in r.messages.iter_mut() {
            self.message(m);
        }
        // (Grown by pushes: up to twice the room, for every request.)
        r.messages.shrink_to_fit();
        for s in r.slots.iter_mut() {
            for b in s.parts.iter_mut() {
                share_text(&mut self.texts, b);
            }
        }
    }

    fn message(&mut self, m: &mut Arc<Message>) {
        let k = key(m);
        if let Some(held) = self.messages.get(&k).and_then(|b| b.iter().find(|h| ***h == **m)) {
            *m = Arc::clone(held);
            return;
        }
        self.message_texts(m);
        self.messages.entry(k).or_default().push(Arc::clone(m));
    }

    /// Shares the texts of a message held only here (and trims its blocks).
    fn message_texts(&mut self, m: &mut Arc<Message>) {
        if let Some(mm) = Arc::get_mut(m) {
            // (A vector of one block pushed has room for four.)
            mm.blocks.shrink_to_fit();
            for b in mm.blocks.iter_mut() {
                share_text(&mut self.texts, b);
            }
        }
    }
}

/// Makes the block's text the held copy of an equal text, or holds it.
fn share_text(texts: &mut foldhash::HashMap<(u64, u32), Vec<Arc<str>>>, b: &mut Block) {
    if b.text.len() < MIN_SHARED_TEXT {
        return;
    }
    let bucket = texts.entry((b.text_hash, b.text.len() as u32)).or_default();
    match bucket.iter().find(|t| ***t == *b.text) {
        Some(t) => b.text = Arc::clone(t),
        None => bucket.push(Arc::clone(&b.text)),
    }
}

/// A hash of what [`Message`]'s equality compares, without reading texts
/// again (their hashes were taken when the blocks were made).
fn key(m: &Message) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x6374_786c).build_hasher();
    m.pointer.hash(&mut h);
    m.role.as_str().hash(&mut h);
    m.kind.as_str().hash(&mut h);
    m.json_hash.hash(&mut h);
    m.blocks.len().hash(&mut h);
    for b in &m.blocks {
        b.pointer.hash(&mut h);
        b.text_hash.hash(&mut h);
        b.json_hash.hash(&mut h);
        b.text.len().hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::body;
    use crate::model::{BlockKind, MessageKind, Role};

    fn msg(ptr: &str, text: &str) -> Arc<Message> {
        let mut m = body::message(Role::User, MessageKind::UserTurn, ptr.to_string());
        m.blocks.push(Block::new(BlockKind::Text, ptr.to_string().into(), text, true));
        Arc::new(m)
    }

    #[test]
    fn equal_messages_are_held_once_and_texts_shared_across_pointers() {
        let long = "a system prompt long enough to be worth sharing between two requests of a stream";
        let path: Arc<str> = "log.jsonl".into();
        let mut a = body::new_request(&path, crate::formats::openai_chat::ID, 0, "/request/body");
        a.messages = vec![msg("/request/body/messages/0", long), msg("/request/body/messages/1", "hi")];
        let mut b = body::new_request(&path, crate::formats::openai_chat::ID, 1, "/request/body");
        b.messages = vec![
            msg("/request/body/messages/0", long),
            msg("/request/body/messages/1", "hi"),
            msg("/request/body/messages/2", long),
        ];
        let mut c = body::new_request(&path, crate::formats::openai_chat::ID, 2, "/request/body");
        c.messages =
            vec![msg("/request/body/messages/0", "another text, as long as the first one, but not equal to it")];
        let mut i = Interner::default();
        for r in [&mut a, &mut b, &mut c] {
            i.request(r);
        }
        assert!(Arc::ptr_eq(&a.messages[0], &b.messages[0]));
        assert!(Arc::ptr_eq(&a.messages[1], &b.messages[1]));
        // Same text at another pointer: another message, the same text bytes.
        assert!(!Arc::ptr_eq(&b.messages[0], &b.messages[2]));
        assert!(Arc::ptr_eq(&b.messages[0].blocks[0].text, &b.messages[2].blocks[0].text));
        assert!(!Arc::ptr_eq(&a.messages[0], &c.messages[0]));
        assert_eq!(&*c.messages[0].blocks[0].text, "another text, as long as the first one, but not equal to it");
    }
}
