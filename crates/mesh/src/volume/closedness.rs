//! Whether a triangle mesh is closed: every edge of its non-degenerate triangles shared by
//! exactly two of them, running along it in opposite directions, vertices identified by
//! position. Found on the first [`crate::TriMesh::is_closed`] and kept.

use std::sync::OnceLock;

use glam::Vec3;
use meshcast_primitives::Triangle;
use rayon::prelude::*;

/// Vertices one rayon task checks at least.
const PARALLEL_GRAIN: usize = 4096;

/// The closedness of a [`crate::TriMesh`], found on first use and kept, or given by a cache.
///
/// It is a function of the positions and triangles, which the mesh's own `PartialEq`
/// compares, so two caches always compare equal: found or not, they hold (or will hold)
/// the same answer.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClosednessCache(OnceLock<bool>);

impl PartialEq for ClosednessCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl ClosednessCache {
    /// A cache that already holds `closed`.
    pub(crate) fn known(closed: bool) -> Self {
        Self(OnceLock::from(closed))
    }

    /// The kept answer, or [`is_closed`] over the non-degenerate triangles, found now.
    pub(crate) fn get_or_find(&self, positions: &[Vec3], indices: &[[u32; 3]]) -> bool {
        *self.0.get_or_init(|| {
            let kept: Vec<bool> = indices
                .par_iter()
                .with_min_len(PARALLEL_GRAIN)
                .map(|&corners| !is_degenerate(positions, corners))
                .collect();
            is_closed(positions, indices, &kept)
        })
    }
}

/// Whether the triangle with `corners` over `positions` is degenerate
/// ([`Triangle::is_degenerate`]).
#[inline]
pub(crate) fn is_degenerate(positions: &[Vec3], corners: [u32; 3]) -> bool {
    let [a, b, c] = corners.map(|i| positions[i as usize]);
    Triangle::new(a, b, c).is_degenerate()
}

/// Whether the triangles of `indices` over `positions` for which `kept` is true form a
/// closed, consistently oriented surface (see [`crate::TriMesh::is_closed`]); `kept` says
/// which triangles are not degenerate.
///
/// Vertices are welded by position first (duplicated vertices of an OBJ seam become one);
/// then the directed edges are grouped by the vertex they leave. The surface is closed
/// exactly when no edge `a -> b` appears twice and each has its reverse `b -> a`: each
/// undirected edge then runs once each way. Linear time: one hash table, two passes over
/// the triangles, and for each edge a look through the few edges leaving its end.
pub(crate) fn is_closed(positions: &[Vec3], indices: &[[u32; 3]], kept: &[bool]) -> bool {
    let welded = weld(positions);
    let triangles: Vec<[u32; 3]> = indices
        .iter()
        .zip(kept)
        .filter(|(_, &kept)| kept)
        .map(|(corners, _)| corners.map(|i| welded[i as usize]))
        .collect();
    let edges = || {
        triangles
            .iter()
            .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
    };
    // The edges leaving each vertex, as `to[start[a]..start[a + 1]]`.
    let mut start = vec![0usize; positions.len() + 1];
    for (from, _) in edges() {
        start[from as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut cursor = start.clone();
    let mut to = vec![0u32; start[positions.len()]];
    for (from, end) in edges() {
        let at = &mut cursor[from as usize];
        to[*at] = end;
        *at += 1;
    }
    let leaving = |a: u32| &to[start[a as usize]..start[a as usize + 1]];
    (0..positions.len() as u32)
        .into_par_iter()
        .with_min_len(PARALLEL_GRAIN)
        .all(|a| {
            let out = leaving(a);
            out.iter()
                .enumerate()
                .all(|(k, &b)| !out[..k].contains(&b) && leaving(b).contains(&a))
        })
}

/// For each vertex, the smallest index of a vertex at the same position (`-0.0` and `0.0`
/// are the same coordinate; the positions are finite), found with an open-addressing hash
/// table of vertex indices. Not `std::collections::HashMap`: with it, `TriMesh::new` on the
/// bunny subdivided twice (1.1M triangles) took 103 ms instead of 45 ms (`cargo bench -p
/// meshcast-benches --bench point_queries -- closedness`), its hashing dominating.
fn weld(positions: &[Vec3]) -> Vec<u32> {
    const EMPTY: u32 = u32::MAX;
    // Adding 0.0 turns -0.0 into 0.0 and changes nothing else.
    let key = |p: Vec3| (p + Vec3::ZERO).to_array().map(f32::to_bits);
    // At most half full, a power of two: Fibonacci hashing takes the top bits.
    let bits = (positions.len() * 2)
        .next_power_of_two()
        .max(16)
        .trailing_zeros();
    let mut table = vec![EMPTY; 1 << bits];
    let mask = table.len() - 1;
    positions
        .iter()
        .enumerate()
        .map(|(index, &p)| {
            let k = key(p);
            let mixed = (u64::from(k[0]) << 32 | u64::from(k[1])) ^ u64::from(k[2]).rotate_left(17);
            let mut slot = (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
            loop {
                match table[slot] {
                    EMPTY => {
                        table[slot] = index as u32;
                        return index as u32;
                    }
                    other if key(positions[other as usize]) == k => return other,
                    _ => slot = (slot + 1) & mask,
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`is_closed`] keeping the non-degenerate triangles, as a mesh does.
    fn closed(positions: &[Vec3], indices: &[[u32; 3]]) -> bool {
        ClosednessCache::default().get_or_find(positions, indices)
    }

    /// A tetrahedron's corners and four triangles, wound outwards.
    fn tetrahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let corners = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        (corners, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    }

    #[test]
    fn a_tetrahedron_is_closed_and_loses_it_with_a_face_or_a_flip() {
        let (corners, triangles) = tetrahedron();
        assert!(closed(&corners, &triangles));
        assert!(!closed(&corners, &triangles[1..]));
        let mut flipped = triangles.clone();
        flipped[0].swap(1, 2);
        assert!(!closed(&corners, &flipped));
        // The same tetrahedron twice: every edge is shared by four triangles.
        let twice: Vec<[u32; 3]> = triangles.iter().chain(&triangles).copied().collect();
        assert!(!closed(&corners, &twice));
        // Nothing encloses nothing.
        assert!(closed(&corners, &[]));
    }

    #[test]
    fn duplicated_vertices_weld_and_degenerate_triangles_do_not_count() {
        let (mut corners, triangles) = tetrahedron();
        // Each triangle gets corners of its own, as an OBJ with split normals gives them;
        // the first one's corner at the origin is written -0.0.
        let mut split = Vec::new();
        let mut split_triangles = Vec::new();
        for t in &triangles {
            let base = split.len() as u32;
            split.extend(t.map(|i| corners[i as usize]));
            split_triangles.push([base, base + 1, base + 2]);
        }
        split[0] = Vec3::new(-0.0, 0.0, -0.0);
        assert!(closed(&split, &split_triangles));
        // A sliver of zero area on an edge, and a point triangle, change nothing.
        corners.push(Vec3::new(0.5, 0.0, 0.0));
        let mut with_slivers = triangles.clone();
        with_slivers.extend([[0, 4, 1], [3, 3, 3]]);
        assert!(closed(&corners, &with_slivers));
    }
}
