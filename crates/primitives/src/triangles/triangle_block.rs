//! Four triangles against one ray at once: the watertight test of [`crate::watertight`]
//! evaluated lane by lane with glam's SIMD `Vec4`, with the same operations in the same order,
//! so every lane answers exactly what [`WatertightRay::intersect`] answers for its triangle.

use glam::{Vec3, Vec4};

use super::edge_bounds::{
    edge_bound4, lane_edge_bound, near_lanes, near_lanes4, open_lanes, open_lanes4,
    well_placed_lanes, well_placed_lanes4,
};
use crate::lanes::{Lanes, Simd};
use crate::triangles::{Hit, Triangle, WatertightRay};

/// Triangles in one [`TriangleBlock`].
pub const BLOCK_WIDTH: usize = 4;

/// Four triangles stored coordinate by coordinate (structure of arrays), the layout the
/// four-lane test reads with aligned loads. An unused lane holds NaN corners, which no ray
/// hits.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{BlockRay, Ray, Triangle, TriangleBlock, WatertightRay};
///
/// let near = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// let far = Triangle::new(Vec3::NEG_Z, Vec3::NEG_Z + Vec3::X, Vec3::NEG_Z + Vec3::Y);
/// let block = TriangleBlock::new(&[far, near]);
/// let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
/// let hits = BlockRay::new(WatertightRay::new(&ray)).intersect(&block, f32::INFINITY);
/// assert_eq!(hits.lanes(), 0b11);
/// assert_eq!(hits.hit(1), near.intersect(&ray));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct TriangleBlock {
    /// `corners[c][axis]`: that coordinate of corner `c`, one lane per triangle.
    corners: [[Vec4; 3]; 3],
}

const _: () = assert!(core::mem::size_of::<TriangleBlock>() == 144);

impl Default for TriangleBlock {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl TriangleBlock {
    /// The block with every lane unused.
    pub const EMPTY: Self = Self {
        corners: [[Vec4::NAN; 3]; 3],
    };

    /// The block holding `triangles` in its first lanes (at most [`BLOCK_WIDTH`]; the rest
    /// stay unused).
    ///
    /// # Panics
    /// If more than [`BLOCK_WIDTH`] triangles are given.
    pub fn new(triangles: &[Triangle]) -> Self {
        assert!(
            triangles.len() <= BLOCK_WIDTH,
            "a block holds four triangles"
        );
        let mut corners = [[[f32::NAN; BLOCK_WIDTH]; 3]; 3];
        for (lane, triangle) in triangles.iter().enumerate() {
            for (corner, point) in [triangle.v0, triangle.v1, triangle.v2].iter().enumerate() {
                for axis in 0..3 {
                    corners[corner][axis][lane] = point[axis];
                }
            }
        }
        Self {
            corners: corners.map(|corner| corner.map(Vec4::from_array)),
        }
    }

    /// Puts `triangle` in `lane`.
    ///
    /// # Panics
    /// If `lane >= BLOCK_WIDTH`.
    pub fn set(&mut self, lane: usize, triangle: &Triangle) {
        for (corner, point) in [triangle.v0, triangle.v1, triangle.v2].iter().enumerate() {
            for axis in 0..3 {
                self.corners[corner][axis][lane] = point[axis];
            }
        }
    }

    /// The triangle in `lane` (NaN corners for an unused lane).
    ///
    /// # Panics
    /// If `lane >= BLOCK_WIDTH`.
    pub fn triangle(&self, lane: usize) -> Triangle {
        let corner = |c: usize| {
            Vec3::new(
                self.coordinate(c, 0, lane),
                self.coordinate(c, 1, lane),
                self.coordinate(c, 2, lane),
            )
        };
        Triangle::new(corner(0), corner(1), corner(2))
    }

    /// Coordinate `axis` of corner `corner` of the four triangles, lane by lane.
    #[inline(always)]
    pub fn coordinates(&self, corner: usize, axis: usize) -> Vec4 {
        self.corners[corner][axis]
    }

    /// Coordinate `axis` of corner `corner` of the triangle in `lane` (NaN for an unused lane).
    ///
    /// # Panics
    /// If `corner`, `axis` or `lane` is out of range.
    #[inline(always)]
    pub fn coordinate(&self, corner: usize, axis: usize, lane: usize) -> f32 {
        let lanes: &[f32; BLOCK_WIDTH] = self.corners[corner][axis].as_ref();
        lanes[lane]
    }
}

/// A [`WatertightRay`] spread over four lanes for [`TriangleBlock`] tests: its permuted
/// origin and shear, each splatted once per ray.
#[derive(Clone, Copy, Debug)]
pub struct BlockRay {
    ray: WatertightRay,
    /// The origin's `kx`, `ky`, `kz` coordinates.
    origin: [Vec4; 3],
    /// The shear `sx`, `sy`, `sz`.
    shear: [Vec4; 3],
    t_min: Vec4,
}

/// What a [`BlockRay::intersect`] found: `t`, `u`, `v` per lane and the lanes that hit.
#[derive(Clone, Copy, Debug)]
pub struct BlockHits {
    t: Vec4,
    u: Vec4,
    v: Vec4,
    lanes: u32,
}

impl BlockHits {
    /// No lane hit.
    const NONE: Self = Self {
        t: Vec4::ZERO,
        u: Vec4::ZERO,
        v: Vec4::ZERO,
        lanes: 0,
    };

    /// A bit per lane that hit (bit `i` for lane `i`).
    #[inline]
    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    /// The hit in `lane` (its `triangle` field 0), or `None` if that lane missed.
    #[inline]
    pub fn hit(&self, lane: usize) -> Option<Hit> {
        (self.lanes & (1 << lane) != 0).then(|| Hit::new(self.t[lane], self.u[lane], self.v[lane]))
    }
}

impl BlockRay {
    /// The four-lane set-up of `ray`.
    #[inline]
    pub fn new(ray: WatertightRay) -> Self {
        let [kx, ky, kz] = ray.axes;
        let o = ray.origin.to_array();
        Self {
            ray,
            origin: [Vec4::splat(o[kx]), Vec4::splat(o[ky]), Vec4::splat(o[kz])],
            shear: [
                Vec4::splat(ray.shear.x),
                Vec4::splat(ray.shear.y),
                Vec4::splat(ray.shear.z),
            ],
            t_min: Vec4::splat(ray.t_min),
        }
    }

    /// The single-triangle set-up this was made from.
    #[inline]
    pub fn ray(&self) -> &WatertightRay {
        &self.ray
    }

    /// Tests the four triangles of `block`, accepting `t` in `[t_min, t_max]` (`t_min` from
    /// the ray). Lane `i` hits exactly when [`WatertightRay::intersect`] hits lane `i`'s
    /// triangle with that range, with the same `t`, `u` and `v` bit for bit: the arithmetic
    /// is the same, and lanes whose edge functions round to zero are redone by that test.
    #[inline(always)]
    pub fn intersect(&self, block: &TriangleBlock, t_max: f32) -> BlockHits {
        let [kx, ky, kz] = self.ray.axes;
        let [sx, sy, sz] = self.shear;
        let [ox, oy, oz] = self.origin;
        let sheared = |corner: &[Vec4; 3]| {
            let (x, y, z) = (corner[kx] - ox, corner[ky] - oy, corner[kz] - oz);
            (x - sx * z, y - sy * z, z)
        };
        let (ax, ay, a_z) = sheared(&block.corners[0]);
        let (bx, by, b_z) = sheared(&block.corners[1]);
        let (cx, cy, c_z) = sheared(&block.corners[2]);

        let e0 = cx * by - cy * bx;
        let e1 = ax * cy - ay * cx;
        let e2 = bx * ay - by * ax;
        // Exact early-out: a lane with two edge functions of opposite signs beyond their
        // rounding misses whatever its distance, so when every lane does, nothing more is
        // computed. Measured on the bunny, AVX2 kernel, one thread, when the early-out
        // tested the signs alone: random rays 3.78 -> 4.00 Mrays/s (closest) and
        // 4.82 -> 5.12 (any), camera rays unchanged.
        let bound = edge_bound4([(ax, ay), (bx, by), (cx, cy)], [a_z, b_z, c_z]);
        let open = open_lanes4([e0, e1, e2], bound, a_z);
        if open == 0 {
            return BlockHits::NONE;
        }
        let zero = Vec4::ZERO;
        let negative = e0.cmplt(zero) | e1.cmplt(zero) | e2.cmplt(zero);
        let positive = e0.cmpgt(zero) | e1.cmpgt(zero) | e2.cmpgt(zero);
        let det = e0 + e1 + e2;
        let candidates = (!(negative & positive) & det.cmpne(zero)).bitmask();
        let t_scaled = e0 * (sz * a_z) + e1 * (sz * b_z) + e2 * (sz * c_z);
        let inv_det = Vec4::ONE / det;
        let t = t_scaled * inv_det;
        // An edge function within its rounding of zero is decided exactly, and a hit the
        // `f32` arithmetic cannot place is placed in `f64`, by the scalar test.
        let misplaced = candidates & !well_placed_lanes4(t_scaled, det, t);
        let redo = (near_lanes4([e0, e1, e2], bound) | misplaced) & open;
        let in_range = t.cmpge(self.t_min) & t.cmple(Vec4::splat(t_max));
        let mut hits = BlockHits {
            t,
            u: e1 * inv_det,
            v: e2 * inv_det,
            lanes: candidates & in_range.bitmask(),
        };
        if redo != 0 {
            self.redo_lanes(block, t_max, redo, &mut hits);
        }
        hits
    }

    /// Tests the eight triangles of two blocks at once in the eight lanes of `simd`, lanes 0
    /// to 3 for `blocks[0]`: each block's answer is exactly what [`BlockRay::intersect`]
    /// answers for it (the same operations on each lane, lane by lane), at half the
    /// instructions where a leaf holds more than four triangles.
    #[inline(always)]
    pub fn intersect_pair<S: Simd>(
        &self,
        simd: S,
        blocks: [&TriangleBlock; 2],
        t_max: f32,
    ) -> [BlockHits; 2] {
        // No closures here: one left out of line would call the instruction set's intrinsics
        // out of line too.
        let (ax, ay, a_z) = self.sheared_pair(simd, blocks, 0);
        let (bx, by, b_z) = self.sheared_pair(simd, blocks, 1);
        let (cx, cy, c_z) = self.sheared_pair(simd, blocks, 2);
        let e0 = cx * by - cy * bx;
        let e1 = ax * cy - ay * cx;
        let e2 = bx * ay - by * ax;
        let bound = lane_edge_bound([(ax, ay), (bx, by), (cx, cy)], [a_z, b_z, c_z]);
        let open = open_lanes([e0, e1, e2], bound, a_z);
        if open == 0 {
            return [BlockHits::NONE; 2];
        }
        let zero = Lanes::splat(simd, 0.0);
        let negative = e0.lt(zero) | e1.lt(zero) | e2.lt(zero);
        let positive = zero.lt(e0) | zero.lt(e1) | zero.lt(e2);
        let det = e0 + e1 + e2;
        let candidates = !(negative & positive) & det.ne(zero);
        let sz = twice(simd, self.shear[2]);
        let t_scaled = e0 * (sz * a_z) + e1 * (sz * b_z) + e2 * (sz * c_z);
        let inv_det = Lanes::splat(simd, 1.0) / det;
        let t = t_scaled * inv_det;
        let misplaced = candidates & !well_placed_lanes(t_scaled, det, t);
        let redo = (near_lanes([e0, e1, e2], bound) | misplaced) & open;
        let t_min = twice(simd, self.t_min);
        let lanes = candidates & t_min.le(t) & t.le(Lanes::splat(simd, t_max));
        let (t, u, v) = (
            t.to_array(),
            (e1 * inv_det).to_array(),
            (e2 * inv_det).to_array(),
        );
        let mut hits = [BlockHits::NONE; 2];
        for (half, hits) in hits.iter_mut().enumerate() {
            let lanes_of = 4 * half..4 * half + 4;
            *hits = BlockHits {
                t: Vec4::from_slice(&t[lanes_of.clone()]),
                u: Vec4::from_slice(&u[lanes_of.clone()]),
                v: Vec4::from_slice(&v[lanes_of]),
                lanes: lanes >> (4 * half) & 0xf,
            };
            let redo = redo >> (4 * half) & 0xf;
            if redo != 0 {
                self.redo_lanes(blocks[half], t_max, redo, hits);
            }
        }
        hits
    }

    /// Corner `corner` of the eight triangles of `blocks`, relative to the origin and sheared,
    /// and its `z`, as [`BlockRay::intersect`] computes them for four.
    #[inline(always)]
    fn sheared_pair<S: Simd>(
        &self,
        simd: S,
        blocks: [&TriangleBlock; 2],
        corner: usize,
    ) -> (Lanes<S>, Lanes<S>, Lanes<S>) {
        let [kx, ky, kz] = self.ray.axes;
        let [ox, oy, oz] = self.origin;
        let [sx, sy, _] = self.shear;
        let x = joined(simd, blocks, corner, kx) - twice(simd, ox);
        let y = joined(simd, blocks, corner, ky) - twice(simd, oy);
        let z = joined(simd, blocks, corner, kz) - twice(simd, oz);
        (x - twice(simd, sx) * z, y - twice(simd, sy) * z, z)
    }

    /// Replaces the lanes in `redo` with the scalar test's answers.
    #[cold]
    #[inline(never)]
    fn redo_lanes(&self, block: &TriangleBlock, t_max: f32, redo: u32, hits: &mut BlockHits) {
        let ray = self.ray.with_range(self.ray.t_min, t_max);
        for lane in 0..BLOCK_WIDTH {
            if redo & (1 << lane) == 0 {
                continue;
            }
            let triangle = block.triangle(lane);
            match ray.intersect(triangle.v0, triangle.v1, triangle.v2) {
                Some(hit) => {
                    hits.t[lane] = hit.t;
                    hits.u[lane] = hit.u;
                    hits.v[lane] = hit.v;
                    hits.lanes |= 1 << lane;
                }
                None => hits.lanes &= !(1 << lane),
            }
        }
    }
}

/// `v` in both halves of eight lanes.
#[inline(always)]
fn twice<S: Simd>(simd: S, v: Vec4) -> Lanes<S> {
    Lanes::from_halves(simd, [v, v])
}

/// Coordinate `axis` of corner `corner` of the eight triangles of `blocks`.
#[inline(always)]
fn joined<S: Simd>(simd: S, blocks: [&TriangleBlock; 2], corner: usize, axis: usize) -> Lanes<S> {
    Lanes::from_halves(
        simd,
        [
            blocks[0].corners[corner][axis],
            blocks[1].corners[corner][axis],
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Contacts, Ray};

    use crate::test_rng::{shared_vertex_fan, SharedVertexFan, Xorshift};

    /// Checks every lane against the scalar test, with either rule for contacts, in one
    /// block and in both halves of a pair of blocks in every instruction set.
    fn assert_lanes_match(ray: &Ray, triangles: &[Triangle], t_max: f32) {
        let block = TriangleBlock::new(triangles);
        let reversed: Vec<Triangle> = triangles.iter().rev().copied().collect();
        let other = TriangleBlock::new(&reversed);
        for contacts in [Contacts::TieRule, Contacts::Hit] {
            let watertight = WatertightRay::new(ray).with_contacts(contacts);
            let block_ray = BlockRay::new(watertight);
            let scalar = watertight.with_range(ray.t_min, t_max);
            let check = |hits: BlockHits, triangles: &[Triangle], how: &str| {
                for lane in 0..BLOCK_WIDTH {
                    let expected = triangles
                        .get(lane)
                        .and_then(|t| scalar.intersect(t.v0, t.v1, t.v2));
                    let bits =
                        |h: Option<Hit>| h.map(|h| (h.t.to_bits(), h.u.to_bits(), h.v.to_bits()));
                    assert_eq!(
                        bits(hits.hit(lane)),
                        bits(expected),
                        "{how}, lane {lane}, {contacts:?}, {ray:?}, {triangles:?}"
                    );
                }
            };
            check(block_ray.intersect(&block, t_max), triangles, "block");
            let [low, high] = block_ray.intersect_pair(crate::Portable, [&block, &other], t_max);
            check(low, triangles, "portable pair, low");
            check(high, &reversed, "portable pair, high");
            #[cfg(target_arch = "x86_64")]
            if let Some(avx2) = crate::Avx2::detect() {
                let [low, high] = block_ray.intersect_pair(avx2, [&other, &block], t_max);
                check(low, &reversed, "AVX2 pair, low");
                check(high, triangles, "AVX2 pair, high");
            }
        }
    }

    #[test]
    fn lanes_equal_the_scalar_test_on_random_triangles_and_rays() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..4000 {
            let scale = [1.0, 1e-3, 1e4][round % 3];
            let count = 1 + round % BLOCK_WIDTH;
            let triangles: Vec<Triangle> = (0..count)
                .map(|_| Triangle::new(rng.point(scale), rng.point(scale), rng.point(scale)))
                .collect();
            let origin = rng.point(3.0 * scale);
            let target = triangles[0].centroid() + rng.point(0.3 * scale);
            let ray = Ray::new(origin, target - origin);
            assert_lanes_match(&ray, &triangles, f32::INFINITY);
            assert_lanes_match(&ray, &triangles, 0.9);
        }
    }

    #[test]
    fn lanes_equal_the_scalar_test_through_shared_edges_and_vertices() {
        // A fan around a shared vertex, hit through the vertex, along the spokes and with
        // axis-parallel rays with signed zero components.
        let SharedVertexFan {
            centre,
            rim,
            triangles: fan,
        } = shared_vertex_fan();
        for target in [centre, centre.lerp(rim[0], 0.5), centre.lerp(rim[1], 0.25)] {
            for dir in [
                Vec3::new(0.0, 0.0, -1.0),
                Vec3::new(-0.0, -0.0, 1.0),
                Vec3::new(0.3, -0.2, -1.0),
            ] {
                let ray = Ray::new(target - dir * 2.0, dir);
                assert_lanes_match(&ray, &fan, f32::INFINITY);
                let hits = BlockRay::new(WatertightRay::new(&ray))
                    .intersect(&TriangleBlock::new(&fan), f32::INFINITY);
                assert_ne!(hits.lanes(), 0, "{ray:?} fell through the fan");
            }
        }
    }

    /// Rays exactly through vertices and edges at oblique angles, whose edge functions round
    /// to either side of zero: the lanes send them to the scalar test's exact decision.
    #[test]
    fn lanes_equal_the_scalar_test_through_vertices_at_oblique_angles() {
        let patch: Vec<Triangle> = crate::test_rng::crease_patch()
            .iter()
            .map(|[a, b, c]| Triangle::new(*a, *b, *c))
            .collect();
        for ray in crate::test_rng::crease_rays() {
            for block in patch.chunks(BLOCK_WIDTH) {
                assert_lanes_match(&ray, block, f32::INFINITY);
            }
        }
    }

    /// Coordinates from subnormal to beyond `f32`'s products, directions scaled with them or
    /// with subnormal components: lanes whose arithmetic underflows or overflows go to the
    /// scalar test, and every lane answers what it answers.
    #[test]
    fn lanes_equal_the_scalar_test_at_every_scale() {
        for (_, patch, rays) in crate::test_rng::scaled_creases() {
            for ray in rays {
                for block in patch.chunks(BLOCK_WIDTH) {
                    assert_lanes_match(&ray, block, f32::INFINITY);
                }
            }
        }
    }

    #[test]
    fn unused_lanes_and_degenerate_rays_never_hit() {
        let triangle = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let block = TriangleBlock::new(&[triangle]);
        let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
        let hits = BlockRay::new(WatertightRay::new(&ray)).intersect(&block, f32::INFINITY);
        assert_eq!(hits.lanes(), 1);
        assert_eq!(block.triangle(0), triangle);
        for bad in [
            Ray::new(Vec3::NAN, Vec3::NEG_Z),
            Ray::new(Vec3::ZERO, Vec3::ZERO),
            ray.with_range(2.0, 1.0),
        ] {
            let hits = BlockRay::new(WatertightRay::new(&bad)).intersect(&block, bad.t_max);
            assert_eq!(hits.lanes(), 0, "{bad:?}");
        }
    }
}
