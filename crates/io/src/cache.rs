//! The meshcast cache: a [`Mesh`] and its hierarchy in one versioned, checksummed file,
//! loaded without a build ([`MeshFiles::save`], [`MeshFiles::load`]).
//!
//! # Format, version 2
//!
//! Every number is little-endian, whatever the host: the writer encodes and the reader
//! decodes each value with `to_le_bytes` / `from_le_bytes`, so a big-endian host reads and
//! writes the same bytes. A 240-byte header (`header.rs` lists its fields: magic number
//! `MESHCAST`, an endianness mark, the version, the layout of the hierarchy, the build
//! options, the leaf test, whether the mesh is closed and which attributes it has, the counts,
//! a hash of the geometry, one checksum per section, the origin of the mesh's frame in `f64`
//! and the header's checksum), then ten sections
//! back to back, each as long as the counts say, nothing after them:
//!
//! | section | bytes |
//! | --- | --- |
//! | positions | 12 a vertex: `f32` x, y, z, relative to the header's origin |
//! | indices | 12 a triangle: `u32` vertex indices |
//! | normal values, normal corners | 12 a normal; 12 a triangle (`u32::MAX` three times for a triangle without) |
//! | uv values, uv corners | 8 a texture coordinate; 12 a triangle, as for normals |
//! | group names | each name: its length as `u32`, then its UTF-8 bytes |
//! | triangle groups | 4 a triangle: `u32` index into the names |
//! | nodes | 256 a node ([`meshcast_bvh::WideNode::to_le_bytes`]) |
//! | primitive order | 4 a slot: `u32` triangle index, `u32::MAX` for padding |
//!
//! Absent attributes have empty sections. Checksums and the geometry hash are XXH3-64
//! (Collet, xxHash, 2019; through the `xxhash-rust` crate) with seed 0; the geometry hash
//! ([`TriMeshFiles::geometry_hash`]) is that of the positions' and indices' checksums.
//!
//! Loading checks, in linear time and before anything is used, the header, the size of every
//! section, every checksum, every index and value ([`TriMesh::new`]'s checks), and the tree
//! ([`meshcast_bvh::WideBvh::from_parts`]); anything wrong is an [`Error::Cache`]. No
//! allocation is larger than a constant times the bytes present. Closedness is stored rather
//! than found again (finding it is a sixth of a build); the degenerate count is recounted.
//!
//! A cache file is memory-mapped rather than read (`mapped.rs`; `MESHCAST_CACHE_READ=read`
//! reads it into a buffer instead), and its bytes are let go once every section is decoded,
//! before the leaves are laid out. The checks run on rayon: the checksums a section each,
//! the sections' values in parallel chunks, the tree's nodes in parallel, and the leaves'
//! triangles gathered once, in leaf order, for both their layout and the tree's boxes.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use meshcast_mesh::{Mesh, TriMesh};

use crate::mapped::FileBytes;
use crate::source::Source;
use crate::{Error, Place, Result};
#[cfg(doc)]
use crate::{MeshFiles, TriMeshFiles};

mod decode;
mod encode;
mod header;
mod problem;

pub use problem::{CacheProblem, CacheSection};

/// The format version this build writes and reads (2: the origin of the mesh's frame added
/// to version 1's header).
pub(crate) const VERSION: u32 = 2;

/// The mesh a cache file holds, checked through and through.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<Mesh> {
    decode::read(bytes).map_err(|problem| cache_error(problem, source))
}

/// [`read`] from a whole file's bytes, mapped or read, which are let go once every section
/// is decoded, before the leaves are laid out: the peak of opening a cache is then the
/// mesh's own memory, not that and the file's bytes.
pub(crate) fn read_file_bytes(bytes: FileBytes, source: Source) -> Result<Mesh> {
    let parts = decode::parts(&bytes).map_err(|problem| cache_error(problem, source))?;
    drop(bytes);
    parts
        .into_mesh()
        .map_err(|problem| cache_error(problem, source))
}

/// A problem at a byte offset of `source`, as an error.
fn cache_error((offset, problem): header::Problem, source: Source) -> Error {
    Error::Cache {
        at: source.at(Place::Byte(offset)),
        problem,
    }
}

/// The checksum of a section, and of the header: XXH3-64, seed 0.
fn checksum(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

/// Whether a checksum read from a file is the one computed. Under `cfg(fuzzing)` (set by
/// cargo fuzz) every checksum passes, so that the fuzzer's mutations reach the checks behind
/// them, which must stand on their own: a forged file with right checksums is as hostile.
fn matches(computed: u64, stored: u64) -> bool {
    cfg!(fuzzing) || computed == stored
}

/// The geometry hash from the checksums of the positions and indices sections.
fn geometry_hash(positions: u64, indices: u64) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&positions.to_le_bytes());
    bytes[8..].copy_from_slice(&indices.to_le_bytes());
    xxh3_64(&bytes)
}

/// The geometry hash of `tri_mesh` ([`TriMeshFiles::geometry_hash`]).
pub(crate) fn geometry_hash_of(tri_mesh: &TriMesh) -> u64 {
    let positions = streamed_checksum(tri_mesh.positions(), |p: &Vec3| {
        encode::le12(p.to_array().map(f32::to_bits))
    });
    let indices = streamed_checksum(tri_mesh.indices(), |&corners| encode::le12(corners));
    geometry_hash(positions, indices)
}
/// The checksum of the bytes `encode` makes of `items`, without holding them all.
fn streamed_checksum<T, const N: usize>(items: &[T], encode: impl Fn(&T) -> [u8; N]) -> u64 {
    let mut hasher = Xxh3::new();
    for chunk in items.chunks(4096) {
        let bytes: Vec<u8> = chunk.iter().flat_map(&encode).collect();
        hasher.update(&bytes);
    }
    hasher.digest()
}

/// The cache bytes of `mesh` ([`MeshFiles::to_bytes`]); aborts, as a `Vec` does, if they
/// cannot be allocated.
pub(crate) fn to_bytes(mesh: &Mesh) -> Vec<u8> {
    encode::to_bytes(mesh).unwrap_or_else(|error| error.abort())
}

/// Writes the cache of `mesh` to `path` through a temporary file ([`MeshFiles::save`]).
pub(crate) fn save(mesh: &Mesh, path: &Path) -> Result<()> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = encode::to_bytes(mesh).map_err(|source| Error::OutOfMemory {
        at: Source::file(path).at(Place::File),
        source,
    })?;
    let temporary = temporary_path(path).map_err(io_error)?;
    let written = write_synced(&temporary, &bytes).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        // Best effort: the error that matters is the write's.
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io_error)
}

/// A file name beside `path` for the bytes before they are renamed to it: hidden, and unique
/// to this process.
fn temporary_path(path: &Path) -> std::io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let mut temporary = std::ffi::OsString::from(".");
    temporary.push(name);
    temporary.push(format!(".{}.tmp", std::process::id()));
    Ok(path.with_file_name(temporary))
}

/// Writes `bytes` to a new file at `path` and waits until they are on disk, so that the
/// rename that follows never exposes a file whose bytes are still to come.
fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod mapped_tests;
#[cfg(test)]
mod tests;
