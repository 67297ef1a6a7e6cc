//! What a cache file can have wrong with it ([`Error::Cache`](crate::Error::Cache)): the
//! cache reader's vocabulary, its sections and its problems.

use core::fmt;

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
    pub const BODY: [CacheSection; 10] = [
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

    /// What the section's decoded contents are called in an out-of-memory error.
    pub(crate) fn buffer(self) -> &'static str {
        match self {
            Self::Header => "the cache's header",
            Self::Positions => "the cache's positions",
            Self::Indices => "the cache's triangle indices",
            Self::NormalValues => "the cache's normals",
            Self::NormalCorners => "the cache's normal indices",
            Self::UvValues => "the cache's texture coordinates",
            Self::UvCorners => "the cache's texture coordinate indices",
            Self::GroupNames => "the cache's group names",
            Self::TriangleGroups => "the cache's triangle groups",
            Self::Nodes => "the cache's hierarchy nodes",
            Self::PrimitiveOrder => "the cache's leaf order",
        }
    }
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

/// What is wrong with a cache file ([`Error::Cache`](crate::Error::Cache)).
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
    /// The mesh fails a check of [`TriMesh`](meshcast_mesh::TriMesh) not covered above (its message).
    InvalidMesh(String),
    /// A section's contents, or the mesh made of them, could not be allocated.
    OutOfMemory(meshcast_bvh::OutOfMemory),
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
            Self::OutOfMemory(source) => write!(f, "{source}"),
        }
    }
}
