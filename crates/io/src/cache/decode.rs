//! Reading a cache: the header, the sections' extents and checksums, then their contents,
//! each checked before the mesh is put together.

use core::ops::Range;

use glam::{Vec2, Vec3};
use meshcast_bvh::{try_vec, BuildOptions, WideNode};
use meshcast_mesh::{Error, LeafTest, Mesh, TriMesh, VertexAttribute};
use rayon::prelude::*;

use super::header::{Header, Problem, HEADER_BYTES};
use super::{checksum, geometry_hash, matches};
use crate::{CacheProblem, CacheSection};

/// Items one rayon task decodes or checks at least.
const PARALLEL_GRAIN: usize = 1 << 14;

/// The bytes of one section and where they start in the file.
#[derive(Clone, Copy)]
struct Section<'a> {
    kind: CacheSection,
    start: u64,
    bytes: &'a [u8],
}

impl Section<'_> {
    /// `problem`, at the start of the `index`th element of `size` bytes.
    fn problem_at(&self, index: usize, size: usize, problem: CacheProblem) -> Problem {
        (self.start + (index * size) as u64, problem)
    }

    /// Each `N`-byte element decoded, on rayon (the length is a multiple of `N`, from the
    /// counts; a remainder would be ignored), into a buffer reserved first.
    fn decode<T: Send, const N: usize>(
        &self,
        decode: impl Fn(&[u8; N]) -> T + Sync + Send,
    ) -> Result<Vec<T>, Problem> {
        let (elements, _) = self.bytes.as_chunks::<N>();
        let mut out = try_vec(elements.len(), self.kind.buffer())
            .map_err(|error| (self.start, CacheProblem::OutOfMemory(error)))?;
        elements
            .par_iter()
            .with_min_len(PARALLEL_GRAIN)
            .map(decode)
            .collect_into_vec(&mut out);
        Ok(out)
    }
}

/// The mesh in cache `bytes`, or the first problem found and its byte offset.
pub(super) fn read(bytes: &[u8]) -> Result<Mesh, Problem> {
    parts(bytes)?.into_mesh()
}

/// What a cache holds, decoded and checked but for the tree, which [`Parts::into_mesh`]
/// checks: nothing in it borrows the file's bytes, which can go before the leaves are laid
/// out (the peak of opening a cache).
pub(super) struct Parts {
    tri_mesh: TriMesh,
    nodes: Vec<WideNode>,
    order: Vec<u32>,
    leaf_test: LeafTest,
    options: BuildOptions,
    /// Where the nodes start in the file, for the tree's problems.
    nodes_start: u64,
}

/// The sections of cache `bytes` decoded, each checked but the tree, or the first problem
/// found and its byte offset.
pub(super) fn parts(bytes: &[u8]) -> Result<Parts, Problem> {
    let header = Header::decode(bytes)?;
    let sections = sections(bytes, &header)?;
    let [positions, indices, normal_values, normal_corners, uv_values, uv_corners, names, triangle_groups, nodes, order] =
        sections;

    let float = |b: [u8; 4]| f32::from_le_bytes(b);
    let vec3 = |b: &[u8; 12]| {
        let (w, _) = b.as_chunks::<4>();
        Vec3::new(float(w[0]), float(w[1]), float(w[2]))
    };
    let triple = |b: &[u8; 12]| {
        let (w, _) = b.as_chunks::<4>();
        [w[0], w[1], w[2]].map(u32::from_le_bytes)
    };
    let corners = |b: &[u8; 12]| Some(triple(b)).filter(|&c| c != [u32::MAX; 3]);
    let word = |b: &[u8; 4]| u32::from_le_bytes(*b);

    let tri_mesh = TriMesh::with_closedness(
        positions.decode(vec3)?,
        indices.decode(triple)?,
        header.closed,
    )
    .map_err(|err| geometry_problem(err, positions, indices))?
    .with_origin(header.origin)
    // The header's reader took only finite coordinates.
    .map_err(|err| (0, CacheProblem::InvalidMesh(err.to_string())))?;
    let tri_mesh = match header.normals {
        false => tri_mesh,
        true => {
            let values = normal_values.decode(vec3)?;
            check_finite(normal_values, &values, 12, |v| v.is_finite())?;
            let corners = normal_corners.decode(corners)?;
            check_corners(normal_corners, &corners, values.len())?;
            tri_mesh
                .with_normals(VertexAttribute::new(values, corners))
                .map_err(|err| {
                    (
                        normal_values.start,
                        CacheProblem::InvalidMesh(err.to_string()),
                    )
                })?
        }
    };
    let tri_mesh = match header.uvs {
        false => tri_mesh,
        true => {
            let values = uv_values.decode(|b: &[u8; 8]| {
                let (w, _) = b.as_chunks::<4>();
                Vec2::new(float(w[0]), float(w[1]))
            })?;
            check_finite(uv_values, &values, 8, |v| v.is_finite())?;
            let corners = uv_corners.decode(corners)?;
            check_corners(uv_corners, &corners, values.len())?;
            tri_mesh
                .with_uvs(VertexAttribute::new(values, corners))
                .map_err(|err| (uv_values.start, CacheProblem::InvalidMesh(err.to_string())))?
        }
    };
    let tri_mesh = match header.groups {
        false => tri_mesh,
        true => {
            let group_names = group_names(names, header.counts.group_names)?;
            let groups = triangle_groups.decode(word)?;
            if let Some(t) = groups.iter().position(|&g| g as usize >= group_names.len()) {
                let problem = CacheProblem::IndexOutOfRange {
                    section: CacheSection::TriangleGroups,
                    element: t as u64,
                    index: groups[t],
                    count: group_names.len() as u64,
                };
                return Err(triangle_groups.problem_at(t, 4, problem));
            }
            tri_mesh
                .with_groups(group_names, groups)
                .map_err(|err| (names.start, CacheProblem::InvalidMesh(err.to_string())))?
        }
    };
    Ok(Parts {
        tri_mesh,
        nodes: nodes.decode(|b: &[u8; WideNode::ENCODED_BYTES]| WideNode::from_le_bytes(b))?,
        order: order.decode(word)?,
        leaf_test: header.leaf_test,
        options: header.options,
        nodes_start: nodes.start,
    })
}

impl Parts {
    /// The mesh, its tree checked against its triangles ([`Mesh::from_stored`]).
    pub(super) fn into_mesh(self) -> Result<Mesh, Problem> {
        let at = self.nodes_start;
        Mesh::from_stored(
            self.tri_mesh,
            self.nodes,
            self.order,
            self.leaf_test,
            self.options,
        )
        .map_err(|err| match err {
            meshcast_bvh::Error::OutOfMemory(error) => (at, CacheProblem::OutOfMemory(error)),
            err => (at, CacheProblem::InvalidTree(err)),
        })
    }
}

/// The body's sections, each as long as the header says and with the checksum it gives,
/// filling the file exactly; and the geometry hash checked against theirs.
fn sections<'a>(bytes: &'a [u8], header: &Header) -> Result<[Section<'a>; 10], Problem> {
    let lengths = header.section_lengths()?;
    let mut ranges: [Range<u64>; 10] = Default::default();
    let mut start = HEADER_BYTES as u64;
    let end = bytes.len() as u64;
    for ((range, &kind), length) in ranges.iter_mut().zip(&CacheSection::BODY).zip(lengths) {
        let left = end - start;
        if length > left {
            let problem = CacheProblem::Truncated {
                section: kind,
                expected: length,
                found: left,
            };
            return Err((start, problem));
        }
        *range = start..start + length;
        start += length;
    }
    if start < end {
        return Err((start, CacheProblem::TrailingBytes { count: end - start }));
    }
    // Every range lies in `bytes`: each `usize` conversion below is exact.
    let sections: [Section; 10] = core::array::from_fn(|i| Section {
        kind: CacheSection::BODY[i],
        start: ranges[i].start,
        bytes: &bytes[ranges[i].start as usize..ranges[i].end as usize],
    });
    let sums: Vec<u64> = sections.par_iter().map(|s| checksum(s.bytes)).collect();
    for (section, (&sum, &stored)) in sections.iter().zip(sums.iter().zip(&header.checksums)) {
        if !matches(sum, stored) {
            let problem = CacheProblem::ChecksumMismatch {
                section: section.kind,
            };
            return Err((section.start, problem));
        }
    }
    let computed = geometry_hash(sums[0], sums[1]);
    if !matches(computed, header.geometry_hash) {
        let problem = CacheProblem::GeometryHashMismatch {
            stored: header.geometry_hash,
            computed,
        };
        return Err((120, problem));
    }
    Ok(sections)
}

/// What [`TriMesh::with_closedness`]'s checks found, as a cache problem.
fn geometry_problem(err: Error, positions: Section, indices: Section) -> Problem {
    match err {
        Error::NonFiniteVertex { vertex, .. } => positions.problem_at(
            vertex,
            12,
            CacheProblem::NonFiniteValue {
                section: CacheSection::Positions,
                index: vertex as u64,
            },
        ),
        Error::IndexOutOfRange {
            triangle,
            index,
            vertex_count,
        } => indices.problem_at(
            triangle,
            12,
            CacheProblem::IndexOutOfRange {
                section: CacheSection::Indices,
                element: triangle as u64,
                index,
                count: vertex_count as u64,
            },
        ),
        err => (positions.start, CacheProblem::InvalidMesh(err.to_string())),
    }
}

/// The first value that is not finite, as a problem.
fn check_finite<T: Sync>(
    section: Section,
    values: &[T],
    size: usize,
    is_finite: impl Fn(&T) -> bool + Sync + Send,
) -> Result<(), Problem> {
    let bad = values
        .par_iter()
        .with_min_len(PARALLEL_GRAIN)
        .position_first(|v| !is_finite(v));
    match bad {
        None => Ok(()),
        Some(index) => Err(section.problem_at(
            index,
            size,
            CacheProblem::NonFiniteValue {
                section: section.kind,
                index: index as u64,
            },
        )),
    }
}

/// The first corner index past `count` values, as a problem.
fn check_corners(
    section: Section,
    corners: &[Option<[u32; 3]>],
    count: usize,
) -> Result<(), Problem> {
    let out_of_range =
        |c: &Option<[u32; 3]>| c.is_some_and(|c| c.iter().any(|&i| i as usize >= count));
    let bad = corners
        .par_iter()
        .with_min_len(PARALLEL_GRAIN)
        .position_first(out_of_range);
    let Some(triangle) = bad else {
        return Ok(());
    };
    let index = corners[triangle]
        .and_then(|c| c.into_iter().find(|&i| i as usize >= count))
        .unwrap_or_default();
    Err(section.problem_at(
        triangle,
        12,
        CacheProblem::IndexOutOfRange {
            section: section.kind,
            element: triangle as u64,
            index,
            count: count as u64,
        },
    ))
}

/// The `count` group names, each a `u32` length and that many UTF-8 bytes, filling the
/// section exactly.
fn group_names(section: Section, count: u64) -> Result<Vec<String>, Problem> {
    let mut rest = section.bytes;
    let mut names = Vec::new();
    for group in 0..count {
        let at = section.start + (section.bytes.len() - rest.len()) as u64;
        let invalid = (at, CacheProblem::InvalidGroupName { group });
        let (length, after) = rest.split_first_chunk::<4>().ok_or(invalid.clone())?;
        let length = u32::from_le_bytes(*length) as usize;
        let name = after.get(..length).ok_or(invalid.clone())?;
        let name = core::str::from_utf8(name).map_err(|_| invalid)?;
        names.push(name.to_owned());
        rest = &after[length..];
    }
    if !rest.is_empty() {
        let at = section.start + (section.bytes.len() - rest.len()) as u64;
        return Err((at, CacheProblem::InvalidGroupName { group: count }));
    }
    Ok(names)
}
