//! The streaming pass: OLD and NEW read side by side in [`BLOCK`]-byte
//! blocks and compared with `memcmp`, the bytes they share fed to the
//! [`PrefixScan`] (lines and ids), and SHA-256 computed, when asked for, on a
//! second thread.

use super::BLOCK;
use super::ids::PrefixScan;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::thread::JoinHandle;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Identical,
    /// NEW starts with OLD and is longer.
    Append,
    /// NEW is a proper prefix of OLD (or shorter than the fingerprint size).
    Truncate,
    /// First differing byte.
    Diverge(u64),
    /// The fingerprint's hash does not match.
    HashMismatch,
}

pub(super) struct Pass {
    pub(super) outcome: Outcome,
    /// Last byte of the common bytes (NEW's last byte for `Truncate`).
    pub(super) last_byte: Option<u8>,
    /// Last byte of OLD's bytes (for `Append`: whether OLD ended with `\n`).
    pub(super) prefix_last_byte: Option<u8>,
    pub(super) old_sha: Option<[u8; 32]>,
    pub(super) new_sha: Option<[u8; 32]>,
}

pub(super) enum PassError {
    Old(io::Error),
    New(io::Error),
}

/// Fills `buf` from `f`, reading at most `*remaining` bytes; a file that ends
/// early (it shrank while being read) is an error.
fn fill(f: &mut File, buf: &mut [u8], remaining: &mut u64) -> io::Result<usize> {
    let want = usize::try_from((buf.len() as u64).min(*remaining)).unwrap_or(buf.len());
    let mut n = 0;
    while n < want {
        match f.read(&mut buf[n..want]) {
            Ok(0) => {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "file shrank while it was read"));
            }
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    *remaining -= n as u64;
    Ok(n)
}

/// Index of the first differing byte of two equal-length slices (`a.len()` when equal).
fn first_diff(a: &[u8], b: &[u8]) -> usize {
    if a == b {
        return a.len();
    }
    const C: usize = 64;
    let mut i = 0;
    while i + C <= a.len() && a[i..i + C] == b[i..i + C] {
        i += C;
    }
    i + a[i..].iter().zip(&b[i..]).position(|(x, y)| x != y).unwrap_or(a.len() - i)
}

/// Which file hashed bytes belong to.
#[derive(Debug, Clone, Copy)]
enum Side {
    /// Bytes both files share (before they part ways).
    Both,
    Old,
    New,
}

enum HashMsg {
    /// `buf[..len]` belongs to `side`.
    Bytes(Side, Vec<u8>, usize),
    /// The files part ways here: OLD's and NEW's hashes continue from the shared state.
    Fork,
}

/// SHA-256 of (OLD, or NEW's first N bytes for a fingerprint; NEW).
type Digests = ([u8; 32], [u8; 32]);

/// Buffers in flight: the reader holds two, the hashing thread queues the rest.
const POOL: usize = 8;

/// The running SHA-256 state of a pass: one hash while the files agree,
/// two (OLD, NEW) from the point where they part ways.
#[derive(Default)]
struct HashState {
    common: Sha256,
    split: Option<(Sha256, Sha256)>,
}

impl HashState {
    fn apply(&mut self, m: HashMsg) -> Option<Vec<u8>> {
        match m {
            HashMsg::Fork => {
                self.split = Some((self.common.clone(), self.common.clone()));
                None
            }
            HashMsg::Bytes(side, buf, len) => {
                let bytes = &buf[..len.min(buf.len())];
                match (side, &mut self.split) {
                    (Side::Both, _) | (_, None) => self.common.update(bytes),
                    (Side::Old, Some((o, _))) => o.update(bytes),
                    (Side::New, Some((_, n))) => n.update(bytes),
                }
                Some(buf)
            }
        }
    }

    fn finish(self) -> Digests {
        match self.split {
            Some((o, n)) => (o.finalize().into(), n.finalize().into()),
            None => {
                let d: [u8; 32] = self.common.finalize().into();
                (d, d)
            }
        }
    }
}

/// Where blocks are hashed: on a second thread, or (when no thread can be
/// started: a pids limit) on the calling thread.
enum Hasher {
    Thread(SyncSender<HashMsg>, JoinHandle<Digests>),
    Inline(Box<std::cell::RefCell<HashState>>),
}

/// The block buffers of a pass, and the thread that hashes them.
///
/// With hashing on, SHA-256 runs on a second thread while the calling thread
/// reads and compares: blocks travel to it through a bounded channel and come
/// back through the pool, so memory stays at [`POOL`] blocks. When that
/// thread cannot be started, the calling thread hashes each block itself.
struct Blocks {
    pool_tx: SyncSender<Vec<u8>>,
    pool_rx: Receiver<Vec<u8>>,
    hasher: Option<Hasher>,
}

impl Blocks {
    pub(super) fn new(hash: bool, block: usize) -> Blocks {
        let (pool_tx, pool_rx) = sync_channel(POOL);
        // Without hashing the reader only ever holds two blocks.
        for _ in 0..if hash { POOL } else { 2 } {
            let _ = pool_tx.try_send(vec![0u8; block]);
        }
        let hasher = hash.then(|| {
            let (tx, rx) = sync_channel::<HashMsg>(POOL);
            let back = pool_tx.clone();
            let spawned = std::thread::Builder::new().name("ctxlint-sha256".into()).spawn(move || {
                let mut state = HashState::default();
                for m in rx {
                    if let Some(buf) = state.apply(m) {
                        let _ = back.try_send(buf);
                    }
                }
                state.finish()
            });
            match spawned {
                Ok(handle) => Hasher::Thread(tx, handle),
                Err(_) => Hasher::Inline(Box::new(std::cell::RefCell::new(HashState::default()))),
            }
        });
        Blocks { pool_tx, pool_rx, hasher }
    }

    /// A free block. Should the hashing thread have died with blocks in
    /// flight, a fresh one is allocated rather than waiting forever (the
    /// failure is then reported by [`Blocks::finish`]).
    fn get(&self) -> Vec<u8> {
        loop {
            match self.pool_rx.recv_timeout(std::time::Duration::from_millis(200)) {
                Ok(b) => return b,
                Err(RecvTimeoutError::Timeout) if matches!(&self.hasher, Some(Hasher::Thread(_, h)) if !h.is_finished()) =>
                    {}
                Err(_) => return vec![0u8; BLOCK],
            }
        }
    }

    /// Returns a block to the pool.
    fn give(&self, b: Vec<u8>) {
        let _ = self.pool_tx.try_send(b);
    }

    /// Hashes `b[..len]` as `side` (when hashing), then recycles `b`.
    fn hash(&self, side: Side, b: Vec<u8>, len: usize) {
        match &self.hasher {
            Some(Hasher::Thread(tx, _)) => {
                let _ = tx.send(HashMsg::Bytes(side, b, len));
            }
            Some(Hasher::Inline(state)) => {
                if let Some(b) = state.borrow_mut().apply(HashMsg::Bytes(side, b, len)) {
                    self.give(b);
                }
            }
            None => self.give(b),
        }
    }

    fn fork(&self) {
        match &self.hasher {
            Some(Hasher::Thread(tx, _)) => {
                let _ = tx.send(HashMsg::Fork);
            }
            Some(Hasher::Inline(state)) => {
                state.borrow_mut().apply(HashMsg::Fork);
            }
            None => {}
        }
    }

    /// Reads the rest of `f` and hashes it as `side`.
    fn drain(&self, f: &mut File, side: Side, remaining: &mut u64) -> io::Result<()> {
        while *remaining > 0 {
            let mut b = self.get();
            let n = fill(f, &mut b, remaining)?;
            self.hash(side, b, n);
        }
        Ok(())
    }

    /// Waits for the hashes: (OLD or the shared prefix, NEW); `None` without hashing.
    fn finish(self) -> io::Result<Option<Digests>> {
        match self.hasher {
            None => Ok(None),
            Some(Hasher::Inline(state)) => Ok(Some(state.into_inner().finish())),
            Some(Hasher::Thread(tx, handle)) => {
                drop(tx);
                handle.join().map(Some).map_err(|_| io::Error::other("the hashing thread failed"))
            }
        }
    }
}

/// The two-file pass: compares OLD (`so` bytes) with NEW (`sn` bytes).
pub(super) fn pass_files(
    old: &mut File,
    so: u64,
    new: &mut File,
    sn: u64,
    hashes: bool,
    scan: &mut PrefixScan,
) -> std::result::Result<Pass, PassError> {
    old.seek(SeekFrom::Start(0)).map_err(PassError::Old)?;
    new.seek(SeekFrom::Start(0)).map_err(PassError::New)?;
    let block = BLOCK.min(usize::try_from(so.max(sn)).unwrap_or(BLOCK).max(1));
    let blocks = Blocks::new(hashes, block);
    let (mut ro, mut rn) = (so, sn);
    let mut pos = 0u64;
    let mut pass =
        Pass { outcome: Outcome::Identical, last_byte: None, prefix_last_byte: None, old_sha: None, new_sha: None };
    loop {
        let (mut bo, mut bn) = (blocks.get(), blocks.get());
        let a = fill(old, &mut bo, &mut ro).map_err(PassError::Old)?;
        let b = fill(new, &mut bn, &mut rn).map_err(PassError::New)?;
        let m = a.min(b);
        let i = first_diff(&bo[..m], &bn[..m]);
        scan.feed(pos, &bn[..i]);
        if i > 0 {
            pass.last_byte = Some(bn[i - 1]);
        }
        pos += i as u64;
        if i == m && a == b {
            blocks.give(bo);
            blocks.hash(Side::Both, bn, i);
            if a == 0 {
                break;
            }
            continue;
        }
        // The files part ways in this block.
        pass.outcome = if i < m {
            Outcome::Diverge(pos)
        } else if a < b {
            pass.prefix_last_byte = pass.last_byte;
            Outcome::Append
        } else {
            Outcome::Truncate
        };
        if hashes {
            let (old_rest, new_rest) = (bo[i..a].to_vec(), bn[i..b].to_vec());
            blocks.give(bo);
            blocks.hash(Side::Both, bn, i);
            blocks.fork();
            let (lo, ln) = (old_rest.len(), new_rest.len());
            blocks.hash(Side::Old, old_rest, lo);
            blocks.drain(old, Side::Old, &mut ro).map_err(PassError::Old)?;
            blocks.hash(Side::New, new_rest, ln);
            blocks.drain(new, Side::New, &mut rn).map_err(PassError::New)?;
        }
        break;
    }
    if let Some((o, n)) = blocks.finish().map_err(PassError::New)? {
        pass.old_sha = Some(o);
        pass.new_sha = Some(n);
    }
    Ok(pass)
}

/// The fingerprint pass: NEW's first `size` bytes stand for OLD.
pub(super) fn pass_fingerprint(
    new: &mut File,
    sn: u64,
    size: u64,
    sha: Option<&[u8; 32]>,
    hashes: bool,
    scan: &mut PrefixScan,
) -> io::Result<Pass> {
    new.seek(SeekFrom::Start(0))?;
    let blocks = Blocks::new(hashes || sha.is_some(), BLOCK.min(usize::try_from(sn).unwrap_or(BLOCK).max(1)));
    let mut rem = sn;
    let mut pos = 0u64;
    let mut forked = false;
    let mut pass =
        Pass { outcome: Outcome::Identical, last_byte: None, prefix_last_byte: None, old_sha: None, new_sha: None };
    if size == 0 {
        blocks.fork();
        forked = true;
    }
    while rem > 0 && (pos < size || hashes) {
        let mut b = blocks.get();
        let n = fill(new, &mut b, &mut rem)?;
        let in_prefix = usize::try_from(size.saturating_sub(pos)).unwrap_or(usize::MAX).min(n);
        if in_prefix > 0 {
            scan.feed(pos, &b[..in_prefix]);
            pass.last_byte = Some(b[in_prefix - 1]);
        }
        if forked || in_prefix == n && pos + (n as u64) < size {
            blocks.hash(if forked { Side::New } else { Side::Both }, b, n);
        } else {
            // The fingerprint's end is in this block.
            let rest = b[in_prefix..n].to_vec();
            blocks.hash(Side::Both, b, in_prefix);
            blocks.fork();
            forked = true;
            let l = rest.len();
            blocks.hash(Side::New, rest, l);
        }
        pos += n as u64;
    }
    let digests = blocks.finish()?;
    if hashes {
        pass.new_sha = digests.map(|d| d.1);
    }
    pass.prefix_last_byte = pass.last_byte;
    let prefix_sha = digests.filter(|_| forked).map(|d| d.0);
    pass.outcome = if sn < size {
        Outcome::Truncate
    } else if sha.is_some_and(|s| prefix_sha.as_ref() != Some(s)) {
        Outcome::HashMismatch
    } else if sn == size {
        Outcome::Identical
    } else {
        Outcome::Append
    };
    Ok(pass)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_diff_finds_the_byte() {
        let a = vec![7u8; 300];
        for i in [0, 63, 64, 200, 299] {
            let mut b = a.clone();
            b[i] = 8;
            assert_eq!(first_diff(&a, &b), i);
        }
        assert_eq!(first_diff(&a, &a), 300);
    }
}
