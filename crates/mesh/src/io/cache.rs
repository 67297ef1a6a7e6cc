//! The meshcast cache: a [`Mesh`] and its hierarchy in one versioned, checksummed file,
//! loaded without a build ([`Mesh::save`], [`Mesh::load`]).
//!
//! # Format, version 1
//!
//! Every number is little-endian, whatever the host: the writer encodes and the reader
//! decodes each value with `to_le_bytes` / `from_le_bytes`, so a big-endian host reads and
//! writes the same bytes. A 216-byte header (`header.rs` lists its fields: magic number
//! `MESHCAST`, an endianness mark, the version, the layout of the hierarchy, the build
//! options, the leaf test, whether the mesh is closed and which attributes it has, the counts,
//! a hash of the geometry, one checksum per section and one of the header), then ten sections
//! back to back, each as long as the counts say, nothing after them:
//!
//! | section | bytes |
//! | --- | --- |
//! | positions | 12 a vertex: `f32` x, y, z |
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
//! ([`TriMesh::geometry_hash`]) is that of the positions' and indices' checksums.
//!
//! Loading checks, in linear time and before anything is used, the header, the size of every
//! section, every checksum, every index and value ([`TriMesh::new`]'s checks), and the tree
//! ([`meshcast_bvh::WideBvh::from_parts`]); anything wrong is an [`Error::Cache`]. No
//! allocation is larger than a constant times the bytes present. Closedness is stored rather
//! than found again (finding it is a sixth of a build); the degenerate count is recounted.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::{read_file, Source};
use crate::error::Place;
use crate::{Error, Mesh, Result, TriMesh};

mod decode;
mod encode;
mod header;

pub(crate) use header::MAGIC;

/// The format version this build writes and reads.
pub(crate) const VERSION: u32 = 1;

/// A part of a cache file ([`CacheProblem`] names the one that is wrong).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheSection {
    /// The header: magic number, version, layout, options, counts and checksums.
    Header,
    /// The vertex positions.
    Positions,
    /// The triangles' vertex indices.
    Indices,
    /// The normals' values.
    NormalValues,
    /// Each triangle's indices into the normals.
    NormalCorners,
    /// The texture coordinates' values.
    UvValues,
    /// Each triangle's indices into the texture coordinates.
    UvCorners,
    /// The group names.
    GroupNames,
    /// Each triangle's group.
    TriangleGroups,
    /// The hierarchy's nodes.
    Nodes,
    /// The hierarchy's padded leaf order.
    PrimitiveOrder,
}

impl CacheSection {
    /// The sections after the header, in file order.
    pub(crate) const BODY: [CacheSection; 10] = [
        Self::Positions,
        Self::Indices,
        Self::NormalValues,
        Self::NormalCorners,
        Self::UvValues,
        Self::UvCorners,
        Self::GroupNames,
        Self::TriangleGroups,
        Self::Nodes,
        Self::PrimitiveOrder,
    ];
}

impl fmt::Display for CacheSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Header => "header",
            Self::Positions => "positions",
            Self::Indices => "triangle indices",
            Self::NormalValues => "normals",
            Self::NormalCorners => "normal indices",
            Self::UvValues => "texture coordinates",
            Self::UvCorners => "texture coordinate indices",
            Self::GroupNames => "group names",
            Self::TriangleGroups => "triangle groups",
            Self::Nodes => "hierarchy nodes",
            Self::PrimitiveOrder => "leaf order",
        })
    }
}

/// What is wrong with a cache file ([`Error::Cache`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheProblem {
    /// The file does not start with the cache's magic number.
    NotACache,
    /// The file was written with the bytes of each number in the other order (a writer on a
    /// big-endian host that did not encode little-endian).
    WrongEndianness,
    /// A format version this build does not read (another version of meshcast wrote it).
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The hierarchy is laid out differently from this build's (node size, width, leaf
    /// alignment, header size).
    UnsupportedLayout {
        /// Which part of the layout.
        what: &'static str,
        /// The file's value.
        found: u64,
        /// This build's.
        expected: u64,
    },
    /// A header field holds a value no writer gives it (an unknown quality or leaf test,
    /// unknown flag bits, a non-finite traversal cost).
    InvalidField {
        /// The field.
        field: &'static str,
        /// Its value (the bits of a float).
        value: u64,
    },
    /// The counts in the header contradict each other (normal values without normals,
    /// more vertices than a `u32` numbers, sections too long to add up).
    InconsistentCount {
        /// Which count.
        count: &'static str,
        /// Its value.
        value: u64,
    },
    /// The file ends inside a section.
    Truncated {
        /// The section.
        section: CacheSection,
        /// Its length in bytes, as the header gives it.
        expected: u64,
        /// The bytes left for it.
        found: u64,
    },
    /// Bytes follow the last section.
    TrailingBytes {
        /// How many.
        count: u64,
    },
    /// A section's bytes do not have the checksum the header gives (a damaged file).
    ChecksumMismatch {
        /// The section.
        section: CacheSection,
    },
    /// The hash of the geometry in the header is not that of the positions and indices.
    GeometryHashMismatch {
        /// The header's hash.
        stored: u64,
        /// The hash of the file's positions and indices.
        computed: u64,
    },
    /// A value is NaN or infinite.
    NonFiniteValue {
        /// Its section.
        section: CacheSection,
        /// Its index in the section.
        index: u64,
    },
    /// An index points past what it indexes (a vertex, a normal, a group).
    IndexOutOfRange {
        /// Its section.
        section: CacheSection,
        /// The element holding it (a triangle).
        element: u64,
        /// The index.
        index: u32,
        /// How many there are to index.
        count: u64,
    },
    /// A group name is cut short by its section's end or is not UTF-8, or bytes follow the
    /// last one.
    InvalidGroupName {
        /// The name's index (the name count for stray bytes after the last).
        group: u64,
    },
    /// The hierarchy is not one a build makes over these triangles.
    InvalidTree(meshcast_bvh::Error),
    /// The mesh fails a check of [`TriMesh`] not covered above (its message).
    InvalidMesh(String),
}

impl fmt::Display for CacheProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotACache => f.write_str("not a meshcast cache file"),
            Self::WrongEndianness => {
                f.write_str("a meshcast cache written big-endian (caches are little-endian)")
            }
            Self::UnsupportedVersion { found, supported } => write!(
                f,
                "meshcast cache version {found}, but this build reads version {supported}: \
                 build the cache again"
            ),
            Self::UnsupportedLayout {
                what,
                found,
                expected,
            } => write!(f, "cache {what} is {found}, this build uses {expected}"),
            Self::InvalidField { field, value } => {
                write!(f, "cache header field {field} holds invalid value {value}")
            }
            Self::InconsistentCount { count, value } => {
                write!(f, "cache {count} count {value} contradicts the header")
            }
            Self::Truncated {
                section,
                expected,
                found,
            } => write!(
                f,
                "cache ends in its {section}: {expected} bytes expected, {found} left"
            ),
            Self::TrailingBytes { count } => {
                write!(f, "{count} bytes after the cache's last section")
            }
            Self::ChecksumMismatch { section } => {
                write!(
                    f,
                    "cache {section} do not match their checksum: the file is damaged"
                )
            }
            Self::GeometryHashMismatch { stored, computed } => write!(
                f,
                "cache geometry hash {stored:#018x} is not that of its geometry, {computed:#018x}"
            ),
            Self::NonFiniteValue { section, index } => {
                write!(f, "cache {section}: value {index} is not finite")
            }
            Self::IndexOutOfRange {
                section,
                element,
                index,
                count,
            } => write!(
                f,
                "cache {section}: element {element} holds index {index}, but there are {count}"
            ),
            Self::InvalidGroupName { group } => write!(
                f,
                "cache group name {group} is cut short, not UTF-8, or followed by stray bytes"
            ),
            Self::InvalidTree(error) => write!(f, "invalid cached hierarchy: {error}"),
            Self::InvalidMesh(message) => write!(f, "invalid cached mesh: {message}"),
        }
    }
}

/// The mesh a cache file holds, checked through and through.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<Mesh> {
    decode::read(bytes).map_err(|(offset, problem)| Error::Cache {
        at: source.at(Place::Byte(offset)),
        problem,
    })
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

impl TriMesh {
    /// A 64-bit hash of the positions and triangles, the one a cache file stores
    /// ([`Mesh::save`]): two meshes with the same vertices (bit for bit) and the same index
    /// triples have the same hash, whatever their attributes; a cache built from a mesh file
    /// has the hash of the mesh read from that file. It is XXH3-64 (seed 0) of the XXH3-64
    /// hashes of the positions' and of the indices' little-endian bytes, each 8 bytes
    /// little-endian; stable across hosts and versions of meshcast.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{Mesh, TriMesh};
    ///
    /// let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    /// let tri = TriMesh::from_triangles(&corners, &[[0, 1, 2]])?;
    /// let cached = Mesh::from_bytes(&Mesh::from_triangles(&corners, &[[0, 1, 2]])?.to_bytes())?;
    /// assert_eq!(cached.tri_mesh().geometry_hash(), tri.geometry_hash());
    /// let turned = TriMesh::from_triangles(&corners, &[[0, 2, 1]])?;
    /// assert_ne!(turned.geometry_hash(), tri.geometry_hash());
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn geometry_hash(&self) -> u64 {
        let positions = streamed_checksum(self.positions(), |p: &Vec3| {
            encode::le12(p.to_array().map(f32::to_bits))
        });
        let indices = streamed_checksum(self.indices(), |&corners| encode::le12(corners));
        geometry_hash(positions, indices)
    }
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

impl Mesh {
    /// The mesh and its hierarchy as the bytes of a cache file (the format is in the
    /// `io::cache` module's source; [`Mesh::from_bytes`] reads them back). The same mesh
    /// gives the same bytes on any host. Kept: positions, triangles, normals, texture
    /// coordinates, groups, the hierarchy, its [`Mesh::build_options`] and
    /// [`Mesh::leaf_test`], and whether the mesh is closed. Not kept: the loader's
    /// [`TriMesh::warnings`], the node kernel (the loading machine chooses), caches made
    /// by queries.
    pub fn to_bytes(&self) -> Vec<u8> {
        encode::to_bytes(self)
    }

    /// The mesh in cache bytes from [`Mesh::to_bytes`], with its hierarchy as it was: no
    /// build. It answers every query exactly as the mesh that wrote them.
    ///
    /// Everything is checked first, in linear time; no allocation exceeds a few times the
    /// length of `bytes`.
    ///
    /// # Errors
    /// [`Error::Cache`], with the byte offset where the problem was found and a
    /// [`CacheProblem`]: not a cache, another version, damaged or truncated bytes (every
    /// section is checksummed), or contents no writer makes.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{CacheProblem, Error, Mesh, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let mut bytes = tri.to_bytes();
    /// let ray = Ray::new(Vec3::new(0.25, 0.25, 1.0), Vec3::NEG_Z);
    /// assert_eq!(Mesh::from_bytes(&bytes)?.cast(&ray), tri.cast(&ray));
    /// let last = bytes.len() - 1;
    /// bytes[last] ^= 1;
    /// let err = Mesh::from_bytes(&bytes).unwrap_err();
    /// assert!(matches!(err, Error::Cache { problem: CacheProblem::ChecksumMismatch { .. }, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        read(bytes, Source::MEMORY)
    }

    /// Writes the mesh to a cache file at `path` ([`Mesh::to_bytes`]; the advised extension
    /// is [`crate::CACHE_EXTENSION`]), which [`Mesh::load`] and [`Mesh::from_path`] read
    /// without a build. The bytes go to a temporary file in the same folder, which is then
    /// renamed over `path`: a reader sees the old file or the whole new one, never part of
    /// it, and a failed write leaves `path` as it was.
    ///
    /// # Errors
    /// [`Error::Io`] with `path` if the file cannot be written or renamed.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let io_error = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let temporary = temporary_path(path).map_err(io_error)?;
        let written = write_synced(&temporary, &self.to_bytes())
            .and_then(|()| std::fs::rename(&temporary, path));
        if written.is_err() {
            // Best effort: the error that matters is the write's.
            let _ = std::fs::remove_file(&temporary);
        }
        written.map_err(io_error)
    }

    /// Loads a cache file written by [`Mesh::save`]: [`Mesh::from_bytes`] on its contents,
    /// errors naming the file. [`Mesh::from_path`] takes a cache as well as any mesh file.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read; otherwise as [`Mesh::from_bytes`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        read(&read_file(path)?, Source::file(path))
    }
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
mod tests;
