//! Writing a cache: the sections back to back after a header that holds their checksums.

use core::ops::Range;

use rayon::prelude::*;

use super::header::{Counts, Header, HEADER_BYTES};
use super::{checksum, geometry_hash};
use meshcast_bvh::{try_vec, OutOfMemory, WideNode};
use meshcast_mesh::{Mesh, VertexAttribute};

/// Items one rayon task encodes at least.
const PARALLEL_GRAIN: usize = 1 << 14;

/// The corner indices written for a triangle without the attribute: never a valid index,
/// since a cache holds at most `u32::MAX` values of an attribute.
const NO_CORNERS: [u32; 3] = [u32::MAX; 3];

/// The cache bytes of `mesh` (the format: [`super`]), in one buffer reserved first.
pub(super) fn to_bytes(mesh: &Mesh) -> Result<Vec<u8>, OutOfMemory> {
    let tri_mesh = mesh.tri_mesh();
    let wide = mesh.bvh();
    let names = tri_mesh.group_names();
    let groups = !names.is_empty();
    let mut name_bytes = Vec::new();
    for name in names {
        name_bytes.extend_from_slice(&(name.len() as u32).to_le_bytes());
        name_bytes.extend_from_slice(name.as_bytes());
    }
    let counts = Counts {
        vertices: tri_mesh.vertex_count() as u64,
        triangles: tri_mesh.triangle_count() as u64,
        normal_values: tri_mesh.normals().map_or(0, |n| n.values().len() as u64),
        uv_values: tri_mesh.uvs().map_or(0, |uvs| uvs.values().len() as u64),
        group_names: names.len() as u64,
        group_name_bytes: name_bytes.len() as u64,
        nodes: wide.nodes().len() as u64,
        slots: wide.primitive_order().len() as u64,
    };

    let normals = tri_mesh.normals();
    let uvs = tri_mesh.uvs();
    let total = HEADER_BYTES as u64
        + 12 * (tri_mesh.positions().len() + tri_mesh.indices().len()) as u64
        + normals.map_or(0, |n| 12 * (n.values().len() + n.indices().len()) as u64)
        + uvs.map_or(0, |uv| {
            (8 * uv.values().len() + 12 * uv.indices().len()) as u64
        })
        + name_bytes.len() as u64
        + 4 * tri_mesh.triangle_groups().len() as u64
        + (WideNode::ENCODED_BYTES * wide.nodes().len()) as u64
        + 4 * wide.primitive_order().len() as u64;
    let mut out = try_vec(
        usize::try_from(total).unwrap_or(usize::MAX),
        "the cache's bytes",
    )?;
    out.resize(HEADER_BYTES, 0);
    let mut sections: Vec<Range<usize>> = Vec::with_capacity(10);
    let mut section = |out: &mut Vec<u8>, write: &dyn Fn(&mut Vec<u8>)| {
        let start = out.len();
        write(out);
        sections.push(start..out.len());
    };
    section(&mut out, &|out| {
        put(out, tri_mesh.positions(), |p| {
            le12(p.to_array().map(f32::to_bits))
        })
    });
    section(&mut out, &|out| put(out, tri_mesh.indices(), |&c| le12(c)));
    section(&mut out, &|out| {
        let values = tri_mesh.normals().map_or(&[][..], VertexAttribute::values);
        put(out, values, |n| le12(n.to_array().map(f32::to_bits)));
    });
    section(&mut out, &|out| corners(out, tri_mesh.normals()));
    section(&mut out, &|out| {
        let values = tri_mesh.uvs().map_or(&[][..], VertexAttribute::values);
        put(out, values, |uv| le8(uv.to_array().map(f32::to_bits)));
    });
    section(&mut out, &|out| corners(out, tri_mesh.uvs()));
    section(&mut out, &|out| out.extend_from_slice(&name_bytes));
    section(&mut out, &|out| {
        put(out, tri_mesh.triangle_groups(), |&g| g.to_le_bytes())
    });
    section(&mut out, &|out| put(out, wide.nodes(), |n| n.to_le_bytes()));
    section(&mut out, &|out| {
        put(out, wide.primitive_order(), |&slot| slot.to_le_bytes())
    });

    let sums: Vec<u64> = sections
        .par_iter()
        .map(|range| checksum(&out[range.clone()]))
        .collect();
    let mut checksums = [0u64; 10];
    checksums.copy_from_slice(&sums);
    let header = Header {
        leaf_test: mesh.leaf_test(),
        options: mesh.build_options(),
        closed: tri_mesh.is_closed(),
        normals: tri_mesh.normals().is_some(),
        uvs: tri_mesh.uvs().is_some(),
        groups,
        counts,
        geometry_hash: geometry_hash(checksums[0], checksums[1]),
        checksums,
        origin: mesh.origin(),
    };
    out[..HEADER_BYTES].copy_from_slice(&header.encode());
    debug_assert_eq!(
        out.len() as u64,
        total,
        "the reservation is the file's size"
    );
    Ok(out)
}

/// Appends the `N` bytes `encode` makes of each item, on rayon.
fn put<T: Sync, const N: usize>(
    out: &mut Vec<u8>,
    items: &[T],
    encode: impl Fn(&T) -> [u8; N] + Sync + Send,
) {
    let start = out.len();
    out.resize(start + items.len() * N, 0);
    let (chunks, _) = out[start..].as_chunks_mut::<N>();
    chunks
        .par_iter_mut()
        .zip(items)
        .with_min_len(PARALLEL_GRAIN)
        .for_each(|(chunk, item)| *chunk = encode(item));
}

/// Appends each triangle's corner indices into `attribute`, [`NO_CORNERS`] for a triangle
/// without; nothing without the attribute.
fn corners<T: Copy>(out: &mut Vec<u8>, attribute: Option<&VertexAttribute<T>>) {
    if let Some(attribute) = attribute {
        put(out, attribute.indices(), |c| le12(c.unwrap_or(NO_CORNERS)));
    }
}

/// Three words as little-endian bytes.
pub(super) fn le12(three: [u32; 3]) -> [u8; 12] {
    words::<3, 12>(three)
}

/// Two words as little-endian bytes.
fn le8(two: [u32; 2]) -> [u8; 8] {
    words::<2, 8>(two)
}

/// `W` words as `N = 4 W` little-endian bytes.
fn words<const W: usize, const N: usize>(words: [u32; W]) -> [u8; N] {
    const { assert!(N == 4 * W) };
    let mut out = [0u8; N];
    for (chunk, word) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}
