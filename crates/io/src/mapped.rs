//! A cache file's bytes, memory-mapped or read: the crate's only `unsafe` code, the call that
//! maps the file. `MESHCAST_CACHE_READ` chooses: `map` (the default) or `read`, which copies
//! the file into a buffer as every other reader does; which is faster depends on the machine
//! (mapping saves the copy and the faults of a fresh buffer as large as the file).
//!
//! # The hazard of a mapping
//!
//! The bytes of a mapping are the file's, not a copy: if another process writes the file
//! while it is being read, the bytes change under the reader, and if it truncates the file,
//! touching a page past the new end raises `SIGBUS`, which ends the process. The first only
//! ever gives garbage or an error: the reader checks every checksum after mapping and then
//! copies each section into the mesh's own buffers, checking what it copies (indices, values,
//! the tree) against those copies, never against the file again; a change that lands between
//! the checksums and the copies makes a mesh from unchecked bytes whose structure is still
//! checked. The second cannot be guarded without a signal handler. Neither happens to a cache
//! that meshcast writes: [`crate::MeshFiles::save`] writes a temporary file and renames it over
//! the old one, so a mapping keeps the old file's bytes. Where other programs rewrite caches in
//! place, set `MESHCAST_CACHE_READ=read`.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

use memmap2::{Mmap, MmapOptions};

use crate::source::{read_file, Source};
use crate::{Error, Place, Result};

/// The environment variable that chooses how a cache file is brought into memory.
pub const CACHE_READ_VARIABLE: &str = "MESHCAST_CACHE_READ";

/// How a file's bytes are brought into memory ([`CACHE_READ_VARIABLE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CacheRead {
    /// Mapped ([`memmap2`]); files too small to map are read.
    Map,
    /// Read into a buffer.
    Read,
}

impl CacheRead {
    /// The choice of `MESHCAST_CACHE_READ`: `read` reads, anything else (unset, `map`) maps.
    pub(crate) fn from_env() -> Self {
        match std::env::var(CACHE_READ_VARIABLE).as_deref() {
            Ok("read") => Self::Read,
            _ => Self::Map,
        }
    }
}

/// A whole file's bytes: mapped or read.
pub(crate) enum FileBytes {
    Mapped(Mmap),
    Read(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Self::Mapped(map) => map,
            Self::Read(bytes) => bytes,
        }
    }
}

/// The bytes of the file at `path`, brought in as `how` says; [`Error::Io`] if it cannot be
/// opened or read, [`Error::OutOfMemory`] if a buffer for them cannot be allocated.
pub(crate) fn file_bytes(path: &Path, how: CacheRead) -> Result<FileBytes> {
    if how == CacheRead::Read {
        return read_file(path).map(FileBytes::Read);
    }
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    let size = file.metadata().map_err(io_error)?.len();
    // An empty file cannot be mapped, and a small one is cheaper read.
    if size < 1 << 16 {
        return read_file(path).map(FileBytes::Read);
    }
    // SAFETY: `Mmap::map`'s contract is that the file is not changed while mapped, which
    // this process cannot promise for another. What it can promise: the mapping is read-only
    // and private, every reader of these bytes is safe code that takes them as untrusted
    // input (any byte values, even changing ones, give a mesh whose structure is checked or
    // an error, see the module's comment), and nothing here hands out a `&str` or other
    // validated view into the mapping that outlives its check. A file truncated under the
    // mapping raises SIGBUS when a page past its new end is read; meshcast never writes a
    // cache in place, and `MESHCAST_CACHE_READ=read` avoids the mapping altogether.
    let map = unsafe { MmapOptions::new().populate().map_copy_read_only(&file) };
    let map = map.map_err(|source| match source.kind() {
        std::io::ErrorKind::OutOfMemory => Error::OutOfMemory {
            at: Source::file(path).at(Place::File),
            source: meshcast_bvh::OutOfMemory {
                what: "the file's mapping",
                bytes: size,
            },
        },
        _ => io_error(source),
    })?;
    Ok(FileBytes::Mapped(map))
}
