//! The cache's header: what the file holds and how it is laid out, and the checksums of
//! everything after it.
//!
//! | offset | field | type |
//! | --- | --- | --- |
//! | 0 | magic number `MESHCAST` | 8 bytes |
//! | 8 | endianness mark `0x01020304` | `u32` |
//! | 12 | format version | `u32` |
//! | 16 | header bytes (216) | `u32` |
//! | 20 | node bytes (256) | `u32` |
//! | 24 | node width (8) | `u32` |
//! | 28 | leaf alignment, triangles a leaf test takes at once (4) | `u32` |
//! | 32 | leaf test: 0 watertight, 1 transform | `u8` |
//! | 33 | build quality: 0 fast, 1 balanced, 2 high | `u8` |
//! | 34 | flags: 1 closed, 2 normals, 4 texture coordinates, 8 groups | `u8` |
//! | 35 | reserved, 0 | `u8` |
//! | 36 | build traversal cost | `f32` |
//! | 40 | build bins | `u64` |
//! | 48 | build largest leaf | `u64` |
//! | 56 | counts: vertices, triangles, normal values, texture coordinate values, group names, group name bytes, nodes, slots | 8 `u64` |
//! | 120 | geometry hash | `u64` |
//! | 128 | section checksums, in file order | 10 `u64` |
//! | 208 | the origin of the mesh's frame ([`meshcast_mesh::Mesh::origin`]): x, y, z | 3 `f64` |
//! | 232 | header checksum, of bytes 0 to 231 | `u64` |

use glam::DVec3;
use meshcast_bvh::{BuildOptions, Quality, WideNode, LEAF_ALIGNMENT, WIDE_WIDTH};

use crate::{CacheProblem, CacheSection};

use super::{checksum, matches, VERSION};
use meshcast_mesh::LeafTest;

/// The first bytes of every cache file.
pub(crate) const MAGIC: [u8; 8] = crate::CACHE_MAGIC;

/// The endianness mark as written: a reader that finds it byte-swapped has a file written
/// big-endian.
const ENDIANNESS_MARK: u32 = 0x0102_0304;

/// The header's length in version 2.
pub(super) const HEADER_BYTES: usize = 240;

/// A problem and the byte offset where it was found.
pub(super) type Problem = (u64, CacheProblem);

const FLAG_CLOSED: u8 = 1;
const FLAG_NORMALS: u8 = 2;
const FLAG_UVS: u8 = 4;
const FLAG_GROUPS: u8 = 8;

/// What the header says.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Header {
    pub(super) leaf_test: LeafTest,
    /// The build options, `leaf_block` being the leaf alignment and `parallel` the default.
    pub(super) options: BuildOptions,
    pub(super) closed: bool,
    pub(super) normals: bool,
    pub(super) uvs: bool,
    pub(super) groups: bool,
    pub(super) counts: Counts,
    pub(super) geometry_hash: u64,
    /// Of each of [`CacheSection::BODY`].
    pub(super) checksums: [u64; 10],
    /// Where the mesh's frame lies in the world, finite.
    pub(super) origin: DVec3,
}

/// How many of each thing the file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) vertices: u64,
    pub(super) triangles: u64,
    pub(super) normal_values: u64,
    pub(super) uv_values: u64,
    pub(super) group_names: u64,
    pub(super) group_name_bytes: u64,
    pub(super) nodes: u64,
    pub(super) slots: u64,
}

impl Header {
    /// The header's bytes.
    pub(super) fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = Vec::with_capacity(HEADER_BYTES);
        let c = &self.counts;
        out.extend_from_slice(&MAGIC);
        for word in [
            ENDIANNESS_MARK,
            VERSION,
            HEADER_BYTES as u32,
            WideNode::ENCODED_BYTES as u32,
            WIDE_WIDTH as u32,
            LEAF_ALIGNMENT as u32,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        let flags = [
            (self.closed, FLAG_CLOSED),
            (self.normals, FLAG_NORMALS),
            (self.uvs, FLAG_UVS),
            (self.groups, FLAG_GROUPS),
        ]
        .iter()
        .filter(|(set, _)| *set)
        .fold(0, |flags, (_, flag)| flags | flag);
        out.extend_from_slice(&[
            leaf_test_code(self.leaf_test),
            quality_code(self.options.quality),
            flags,
            0,
        ]);
        out.extend_from_slice(&self.options.traversal_cost.to_le_bytes());
        let words = [
            self.options.bins as u64,
            self.options.max_leaf_primitives as u64,
            c.vertices,
            c.triangles,
            c.normal_values,
            c.uv_values,
            c.group_names,
            c.group_name_bytes,
            c.nodes,
            c.slots,
            self.geometry_hash,
        ];
        for word in words.iter().chain(&self.checksums) {
            out.extend_from_slice(&word.to_le_bytes());
        }
        for coordinate in self.origin.to_array() {
            out.extend_from_slice(&coordinate.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        let mut bytes = [0u8; HEADER_BYTES];
        bytes.copy_from_slice(&out);
        bytes
    }

    /// The header at the start of `bytes`, checked: magic number, endianness, version,
    /// layout, checksum, then each field.
    pub(super) fn decode(bytes: &[u8]) -> Result<Self, Problem> {
        let truncated = |expected: usize| {
            (
                0,
                CacheProblem::Truncated {
                    section: CacheSection::Header,
                    expected: expected as u64,
                    found: bytes.len() as u64,
                },
            )
        };
        let head = &bytes[..bytes.len().min(MAGIC.len())];
        if !MAGIC.starts_with(head) || head.is_empty() {
            return Err((0, CacheProblem::NotACache));
        }
        let mut fields = Fields {
            bytes,
            at: MAGIC.len(),
        };
        let mark = fields.u32().ok_or_else(|| truncated(HEADER_BYTES))?;
        if mark == ENDIANNESS_MARK.swap_bytes() {
            return Err((8, CacheProblem::WrongEndianness));
        }
        if mark != ENDIANNESS_MARK {
            return Err((8, invalid("endianness mark", mark.into())));
        }
        let version = fields.u32().ok_or_else(|| truncated(HEADER_BYTES))?;
        if version != VERSION {
            let problem = CacheProblem::UnsupportedVersion {
                found: version,
                supported: VERSION,
            };
            return Err((12, problem));
        }
        if bytes.len() < HEADER_BYTES {
            return Err(truncated(HEADER_BYTES));
        }
        let sum_at = HEADER_BYTES - 8;
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&bytes[sum_at..HEADER_BYTES]);
        if !matches(checksum(&bytes[..sum_at]), u64::from_le_bytes(stored)) {
            let problem = CacheProblem::ChecksumMismatch {
                section: CacheSection::Header,
            };
            return Err((sum_at as u64, problem));
        }
        // The length is known from here on: each read below is in the header.
        for (what, expected) in [
            ("header bytes", HEADER_BYTES),
            ("node bytes", WideNode::ENCODED_BYTES),
            ("node width", WIDE_WIDTH),
            ("leaf alignment", LEAF_ALIGNMENT),
        ] {
            let found = fields.u32().unwrap_or_default();
            if found as usize != expected {
                let problem = CacheProblem::UnsupportedLayout {
                    what,
                    found: found.into(),
                    expected: expected as u64,
                };
                return Err((fields.at as u64 - 4, problem));
            }
        }
        Self::decode_fields(&mut fields)
    }

    /// The fields after the layout (offset 32 on), the header being whole.
    fn decode_fields(fields: &mut Fields) -> Result<Self, Problem> {
        let at = fields.at as u64;
        let [leaf_test, quality, flags, reserved] = fields.array().unwrap_or_default();
        let leaf_test = match leaf_test {
            0 => LeafTest::Watertight,
            1 => LeafTest::Transform,
            code => return Err((at, invalid("leaf test", code.into()))),
        };
        let quality = match quality {
            0 => Quality::Fast,
            1 => Quality::Balanced,
            2 => Quality::High,
            code => return Err((at + 1, invalid("quality", code.into()))),
        };
        let known = FLAG_CLOSED | FLAG_NORMALS | FLAG_UVS | FLAG_GROUPS;
        if flags & !known != 0 {
            return Err((at + 2, invalid("flags", flags.into())));
        }
        if reserved != 0 {
            return Err((at + 3, invalid("reserved", reserved.into())));
        }
        let cost_bits = fields.u32().unwrap_or_default();
        let traversal_cost = f32::from_bits(cost_bits);
        if !traversal_cost.is_finite() {
            return Err((at + 4, invalid("traversal cost", cost_bits.into())));
        }
        let mut usize_field = |name| {
            let at = fields.at as u64;
            let value = fields.u64().unwrap_or_default();
            usize::try_from(value).map_err(|_| (at, invalid(name, value)))
        };
        let options = BuildOptions {
            quality,
            bins: usize_field("bins")?,
            max_leaf_primitives: usize_field("largest leaf")?,
            traversal_cost,
            leaf_block: LEAF_ALIGNMENT,
            ..BuildOptions::default()
        };
        let mut u64_field = || fields.u64().unwrap_or_default();
        let counts = Counts {
            vertices: u64_field(),
            triangles: u64_field(),
            normal_values: u64_field(),
            uv_values: u64_field(),
            group_names: u64_field(),
            group_name_bytes: u64_field(),
            nodes: u64_field(),
            slots: u64_field(),
        };
        let geometry_hash = u64_field();
        let checksums = core::array::from_fn(|_| u64_field());
        let origin_at = fields.at as u64;
        let origin_bits: [u64; 3] = core::array::from_fn(|_| fields.u64().unwrap_or_default());
        let origin = DVec3::from_array(origin_bits.map(f64::from_bits));
        if let Some(axis) = (0..3).find(|&axis| !origin[axis].is_finite()) {
            let at = origin_at + 8 * axis as u64;
            return Err((at, invalid("origin", origin_bits[axis])));
        }
        Ok(Self {
            leaf_test,
            options,
            closed: flags & FLAG_CLOSED != 0,
            normals: flags & FLAG_NORMALS != 0,
            uvs: flags & FLAG_UVS != 0,
            groups: flags & FLAG_GROUPS != 0,
            counts,
            geometry_hash,
            checksums,
            origin,
        })
    }

    /// The length of each of [`CacheSection::BODY`], once the counts are checked against the
    /// flags and each other.
    pub(super) fn section_lengths(&self) -> Result<[u64; 10], Problem> {
        let c = &self.counts;
        // The offset of each count in the header.
        let inconsistent = |field: usize, count, value| {
            (
                56 + 8 * field as u64,
                CacheProblem::InconsistentCount { count, value },
            )
        };
        // `u32` indices address them (and `u32::MAX` marks a triangle without an attribute).
        let indexed = [
            (0, "vertex", c.vertices),
            (1, "triangle", c.triangles),
            (2, "normal", c.normal_values),
            (3, "texture coordinate", c.uv_values),
            (4, "group name", c.group_names),
        ];
        for (field, name, value) in indexed {
            if value > u64::from(u32::MAX) {
                return Err(inconsistent(field, name, value));
            }
        }
        let absent = [
            (2, "normal", c.normal_values, self.normals),
            (3, "texture coordinate", c.uv_values, self.uvs),
            (4, "group name", c.group_names, self.groups),
            (5, "group name byte", c.group_name_bytes, self.groups),
        ];
        for (field, name, value, present) in absent {
            if value != 0 && !present {
                return Err(inconsistent(field, name, value));
            }
        }
        // Each name takes at least its 4-byte length: no more names than that allows.
        if c.group_names > c.group_name_bytes / 4 {
            return Err(inconsistent(4, "group name", c.group_names));
        }
        let per_triangle = |present: bool, bytes: u64| if present { bytes } else { 0 };
        let lengths = [
            (0, "vertex", c.vertices, 12),
            (1, "triangle", c.triangles, 12),
            (2, "normal", c.normal_values, 12),
            (1, "triangle", c.triangles, per_triangle(self.normals, 12)),
            (3, "texture coordinate", c.uv_values, 8),
            (1, "triangle", c.triangles, per_triangle(self.uvs, 12)),
            (5, "group name byte", c.group_name_bytes, 1),
            (1, "triangle", c.triangles, per_triangle(self.groups, 4)),
            (6, "node", c.nodes, WideNode::ENCODED_BYTES as u64),
            (7, "slot", c.slots, 4),
        ];
        let mut out = [0u64; 10];
        for (length, (field, name, count, size)) in out.iter_mut().zip(lengths) {
            *length = count
                .checked_mul(size)
                .ok_or_else(|| inconsistent(field, name, count))?;
        }
        Ok(out)
    }
}

/// An invalid header field.
fn invalid(field: &'static str, value: u64) -> CacheProblem {
    CacheProblem::InvalidField { field, value }
}

fn leaf_test_code(leaf_test: LeafTest) -> u8 {
    match leaf_test {
        LeafTest::Watertight => 0,
        LeafTest::Transform => 1,
    }
}

fn quality_code(quality: Quality) -> u8 {
    match quality {
        Quality::Fast => 0,
        Quality::Balanced => 1,
        Quality::High => 2,
    }
}

/// Little-endian fields read in order; `None` past the end.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Fields<'_> {
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let field = self.bytes.get(self.at..self.at + N)?;
        self.at += N;
        let mut out = [0u8; N];
        out.copy_from_slice(field);
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
}
