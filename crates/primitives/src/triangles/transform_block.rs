//! Four triangles against one ray at once with the precomputed-transform test of
//! [`crate::triangle_transform`] (Baldwin and Weber 2016): [`TriangleTransform::intersect`]
//! evaluated lane by lane with glam's SIMD `Vec4`, with the same operations in the same order,
//! so every lane answers bit for bit what the scalar test answers. Like the scalar test, it is
//! not watertight: [`crate::TriangleBlock`] is.

use glam::{Vec3, Vec4};

use crate::rays::Ray;
use crate::triangles::{Hit, TriangleTransform, BLOCK_WIDTH};

/// Four [`TriangleTransform`]s stored entry by entry (structure of arrays): one `Vec4` per
/// entry of `R` and per coordinate of the origin, 48 bytes per triangle. An unused lane holds
/// NaN entries, which no ray hits.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Ray, Triangle, TransformBlock, TransformRay, TriangleTransform};
///
/// let near = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// let far = Triangle::new(Vec3::NEG_Z, Vec3::NEG_Z + Vec3::X, Vec3::NEG_Z + Vec3::Y);
/// let transforms = [far, near].map(|t| TriangleTransform::new(&t));
/// let [Some(far), Some(near)] = transforms else { return Err("degenerate") };
/// let block = TransformBlock::new(&[far, near]);
/// let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
/// let hits = TransformRay::new(&ray).intersect(&block, f32::INFINITY);
/// assert_eq!(hits.lanes(), 0b11);
/// assert_eq!(hits.hit(1), near.intersect(&ray));
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct TransformBlock {
    /// `rows[r][axis]`: entry `(r, axis)` of `R`, one lane per triangle.
    rows: [[Vec4; 3]; 3],
    /// `origin[axis]`: that coordinate of triangle space's origin `v0`, one lane per triangle.
    origin: [Vec4; 3],
}

const _: () = assert!(
    core::mem::size_of::<TransformBlock>()
        == BLOCK_WIDTH * core::mem::size_of::<TriangleTransform>()
);

impl Default for TransformBlock {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl TransformBlock {
    /// The block with every lane unused.
    pub const EMPTY: Self = Self {
        rows: [[Vec4::NAN; 3]; 3],
        origin: [Vec4::NAN; 3],
    };

    /// The block holding `transforms` in its first lanes (at most [`BLOCK_WIDTH`]; the rest
    /// stay unused).
    ///
    /// # Panics
    /// If more than [`BLOCK_WIDTH`] transforms are given.
    pub fn new(transforms: &[TriangleTransform]) -> Self {
        assert!(
            transforms.len() <= BLOCK_WIDTH,
            "a block holds four triangles"
        );
        let mut block = Self::EMPTY;
        for (lane, transform) in transforms.iter().enumerate() {
            block.set(lane, transform);
        }
        block
    }

    /// Puts `transform` in `lane`.
    ///
    /// # Panics
    /// If `lane >= BLOCK_WIDTH`.
    pub fn set(&mut self, lane: usize, transform: &TriangleTransform) {
        let (rows, origin) = transform.parts();
        for (row, entries) in rows.iter().zip(&mut self.rows) {
            for axis in 0..3 {
                entries[axis][lane] = row[axis];
            }
        }
        for axis in 0..3 {
            self.origin[axis][lane] = origin[axis];
        }
    }

    /// The transform in `lane`, or `None` for an unused lane.
    ///
    /// # Panics
    /// If `lane >= BLOCK_WIDTH`.
    pub fn transform(&self, lane: usize) -> Option<TriangleTransform> {
        let column =
            |entries: &[Vec4; 3]| Vec3::new(entries[0][lane], entries[1][lane], entries[2][lane]);
        TriangleTransform::from_parts(self.rows.each_ref().map(column), column(&self.origin))
    }
}

/// A [`Ray`] spread over four lanes for [`TransformBlock`] tests: origin, direction and
/// `t_min`, each splatted once per ray.
#[derive(Clone, Copy, Debug)]
pub struct TransformRay {
    origin: [Vec4; 3],
    dir: [Vec4; 3],
    /// The ray's `t_min`, or NaN for a degenerate ray ([`Ray::is_valid`]), which then fails
    /// every range check as the scalar test's validity check would.
    t_min: Vec4,
}

/// What a [`TransformRay::intersect`] found: `t`, `u`, `v` per lane and the lanes that hit
/// (as [`crate::BlockHits`] for the watertight block).
#[derive(Clone, Copy, Debug)]
pub struct TransformHits {
    t: Vec4,
    u: Vec4,
    v: Vec4,
    lanes: u32,
}

impl TransformHits {
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

impl TransformRay {
    /// The four-lane set-up of `ray`.
    #[inline]
    pub fn new(ray: &Ray) -> Self {
        let t_min = if ray.is_valid() { ray.t_min } else { f32::NAN };
        Self {
            origin: ray.origin.to_array().map(Vec4::splat),
            dir: ray.dir.to_array().map(Vec4::splat),
            t_min: Vec4::splat(t_min),
        }
    }

    /// Tests the four triangles of `block`, accepting `t` in `[t_min, t_max]` (`t_min` from
    /// the ray). Lane `i` hits exactly when [`TriangleTransform::intersect`] of lane `i`'s
    /// transform hits the ray with that range, with the same `t`, `u` and `v` bit for bit:
    /// the arithmetic is the same, operation for operation.
    #[inline]
    pub fn intersect(&self, block: &TransformBlock, t_max: f32) -> TransformHits {
        let [r0, r1, r2] = &block.rows;
        // Each dot product adds x, y, z left to right, as `Vec3::dot` does.
        let dot = |r: &[Vec4; 3], [x, y, z]: [Vec4; 3]| r[0] * x + r[1] * y + r[2] * z;
        let [ox, oy, oz] = self.origin;
        let [vx, vy, vz] = block.origin;
        let o = [ox - vx, oy - vy, oz - vz];

        // Where the ray crosses the plane z = 0 of triangle space.
        let t = -dot(r2, o) / dot(r2, self.dir);
        let in_range = t.is_finite_mask() & t.cmpge(self.t_min) & t.cmple(Vec4::splat(t_max));
        // Tried returning here when no lane is in range (skipping the barycentrics): no
        // measurable change on the bunny or the ogre (0.90 to 1.03 times, within noise).

        // The crossing's x and y are the barycentrics.
        let [dx, dy, dz] = self.dir;
        let p = [o[0] + dx * t, o[1] + dy * t, o[2] + dz * t];
        let u = dot(r0, p);
        let v = dot(r1, p);
        let zero = Vec4::ZERO;
        let inside = u.cmpge(zero) & v.cmpge(zero) & (u + v).cmple(Vec4::ONE);
        TransformHits {
            t,
            u,
            v,
            lanes: (in_range & inside).bitmask(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Triangle;

    use crate::test_rng::{shared_vertex_fan, SharedVertexFan, Xorshift};

    /// The transforms of the non-degenerate `triangles`.
    fn transforms(triangles: &[Triangle]) -> Vec<TriangleTransform> {
        triangles
            .iter()
            .filter_map(TriangleTransform::new)
            .collect()
    }

    fn assert_lanes_match(ray: &Ray, transforms: &[TriangleTransform], t_max: f32) {
        let block = TransformBlock::new(transforms);
        let hits = TransformRay::new(ray).intersect(&block, t_max);
        let scalar = ray.with_range(ray.t_min, t_max);
        for lane in 0..BLOCK_WIDTH {
            let expected = transforms.get(lane).and_then(|t| t.intersect(&scalar));
            let got = hits.hit(lane);
            let bits = |h: Option<Hit>| h.map(|h| (h.t.to_bits(), h.u.to_bits(), h.v.to_bits()));
            assert_eq!(
                bits(got),
                bits(expected),
                "lane {lane}, t_max {t_max}, {ray:?}, {transforms:?}"
            );
        }
    }

    #[test]
    fn lanes_equal_the_scalar_test_on_random_triangles_and_rays() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        let mut hits = 0;
        for round in 0..6000 {
            let scale = [1.0, 1e-3, 1e4, 1e-12, 1e12][round % 5];
            let count = 1 + round % BLOCK_WIDTH;
            let triangles: Vec<Triangle> = (0..count)
                .map(|_| Triangle::new(rng.point(scale), rng.point(scale), rng.point(scale)))
                .collect();
            let transforms = transforms(&triangles);
            let origin = rng.point(3.0 * scale);
            let target = triangles[0].centroid() + rng.point(0.3 * scale);
            let ray = Ray::new(origin, target - origin);
            for t_max in [f32::INFINITY, 0.9, 1.0] {
                assert_lanes_match(&ray, &transforms, t_max);
            }
            assert_lanes_match(&ray.with_range(0.5, 2.0), &transforms, 2.0);
            let scalar_hits = transforms.iter().filter(|t| t.intersect(&ray).is_some());
            hits += scalar_hits.count();
        }
        assert!(hits > 3000, "too few hits to mean anything: {hits}");
    }

    #[test]
    fn lanes_equal_the_scalar_test_through_shared_edges_and_vertices() {
        // A fan around a shared vertex, hit through the vertex, along the spokes and with
        // axis-parallel rays with signed zero components: here the test may miss every
        // triangle or hit several, but each lane as the scalar test does.
        let SharedVertexFan {
            centre,
            rim,
            triangles,
        } = shared_vertex_fan();
        let fan = transforms(&triangles);
        assert_eq!(fan.len(), 4);
        for target in [centre, centre.lerp(rim[0], 0.5), centre.lerp(rim[1], 0.25)] {
            for dir in [
                Vec3::new(0.0, 0.0, -1.0),
                Vec3::new(-0.0, -0.0, 1.0),
                Vec3::new(0.3, -0.2, -1.0),
                Vec3::new(1.0, 0.0, 0.0),
            ] {
                let ray = Ray::new(target - dir * 2.0, dir);
                assert_lanes_match(&ray, &fan, f32::INFINITY);
            }
        }
    }

    #[test]
    fn unused_lanes_and_degenerate_rays_never_hit() {
        let triangle = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let transform = TriangleTransform::new(&triangle).expect("not degenerate");
        let block = TransformBlock::new(&[transform]);
        assert_eq!(block.transform(0), Some(transform));
        for lane in 1..BLOCK_WIDTH {
            assert_eq!(block.transform(lane), None);
        }
        let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
        let hits = TransformRay::new(&ray).intersect(&block, f32::INFINITY);
        assert_eq!(hits.lanes(), 1);
        assert_eq!(hits.hit(0), transform.intersect(&ray));
        let empty = TransformRay::new(&ray).intersect(&TransformBlock::EMPTY, f32::INFINITY);
        assert_eq!(empty.lanes(), 0);
        for bad in [
            Ray::new(Vec3::NAN, Vec3::NEG_Z),
            Ray::new(Vec3::new(0.2, 0.2, f32::INFINITY), Vec3::NEG_Z),
            Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::ZERO),
            Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.0, f32::NAN, -1.0)),
            ray.with_range(2.0, 1.0),
            ray.with_range(f32::NAN, 2.0),
            ray.with_range(f32::NEG_INFINITY, f32::NEG_INFINITY),
        ] {
            let hits = TransformRay::new(&bad).intersect(&block, bad.t_max);
            assert_eq!(hits.lanes(), 0, "{bad:?}");
            assert_lanes_match(&bad, &[transform], bad.t_max);
        }
        // A ray in the triangle's plane has no crossing.
        let grazing = Ray::new(Vec3::new(-1.0, 0.2, 0.0), Vec3::X);
        assert_lanes_match(&grazing, &[transform], f32::INFINITY);
        let hits = TransformRay::new(&grazing).intersect(&block, f32::INFINITY);
        assert_eq!(hits.lanes(), 0);
    }
}
