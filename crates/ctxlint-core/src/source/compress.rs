//! Compressed inputs (gzip, zstd, bzip2, xz): recognised by their first
//! bytes and read through a decompressor capped at [`decompressed_limit`],
//! so that a decompression bomb is an input error.

use super::SourceRef;
use std::io::{self, BufReader, Read};

impl SourceRef {
    /// The compression the first bytes announce (gzip, zstd, bzip2, xz magic numbers).
    pub(super) fn compression(&self, head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Compression {
    None,
    Gzip,
    Zstd,
    Bzip2,
    Xz,
}

/// Bytes read to recognise a compression format (the xz magic number is 6 bytes).
pub(super) const HEAD: usize = 6;

/// Most times its compressed size that a compressed input may decompress to
/// (beyond [`MIN_DECOMPRESSED`]). Real session files and logs compress 5 to
/// 30 times; a decompression bomb (a few KB of zstd that decompress to
/// gigabytes of `{}` lines) far more.
pub const MAX_RATIO: u64 = 100;

/// Bytes any compressed input may decompress to whatever its ratio.
pub const MIN_DECOMPRESSED: u64 = 8 << 20;

/// The most bytes an input of `compressed` bytes may decompress to.
pub fn decompressed_limit(compressed: u64) -> u64 {
    compressed.saturating_mul(MAX_RATIO).max(MIN_DECOMPRESSED)
}

/// A decompressing reader that fails (an I/O error naming the limit) once it
/// has given more than its limit: a decompression bomb is an input error,
/// read no further, never memory or time without end.
struct Capped<R> {
    inner: R,
    left: u64,
    limit: u64,
    compressed: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // One byte past the limit tells a bomb from an input exactly at it.
        let want = buf.len().min(usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.left {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "decompresses to more than {} bytes ({} times its {} compressed bytes): a decompression bomb, not read further",
                    self.limit, MAX_RATIO, self.compressed
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// `r` (the stored bytes, `compressed` of them) behind the decompressor `c`
/// announces, capped at [`decompressed_limit`].
pub(super) fn wrap(c: Compression, r: Box<dyn Read + Send>, compressed: u64) -> io::Result<Box<dyn Read + Send>> {
    let limit = decompressed_limit(compressed);
    let cap = |inner: Box<dyn Read + Send>| -> Box<dyn Read + Send> {
        Box::new(Capped { inner, left: limit, limit, compressed })
    };
    Ok(match c {
        Compression::None => r,
        Compression::Gzip => cap(Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(r)))),
        Compression::Zstd => cap(Box::new(zstd::stream::read::Decoder::new(r)?)),
        // Multi-stream, like `bzcat` and `xzcat`: concatenated streams are one input.
        Compression::Bzip2 => cap(Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(r)))),
        Compression::Xz => cap(Box::new(liblzma::read::XzDecoder::new_multi_decoder(BufReader::new(r)))),
    })
}
