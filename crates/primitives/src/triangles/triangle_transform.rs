//! The precomputed-transform ray–triangle test (Baldwin, Weber, *Fast Ray-Triangle
//! Intersections by Coordinate Transformation*, JCGT 2016; also known as the GPWiki method).
//!
//! Each triangle stores the affine map from world space to *triangle space*, where its
//! corners are `(0, 0, 0)`, `(1, 0, 0)` and `(0, 1, 0)`. A ray then hits the triangle where
//! its triangle-space `z` changes sign, at a point whose `x` and `y` are the barycentrics
//! `u` and `v`: no edge vectors or cross products per test, at the price of 48 bytes per
//! triangle.

use glam::{Affine3A, Mat3A, Vec3, Vec3A};

use crate::rays::Ray;
use crate::triangles::{Hit, Triangle};

/// The world-to-triangle-space transform of one triangle: the 3×4 matrix `[R | -R·v0]`,
/// stored as the rows of `R` and the corner `v0`.
///
/// `R` is the inverse of the matrix whose columns are the edges `v1 - v0`, `v2 - v0` and the
/// normal `(v1 - v0) × (v2 - v0)`, so a point `p` has triangle-space coordinates
/// `R (p - v0)`: `x` and `y` are its barycentrics `u` and `v`, and `z` its distance from the
/// plane in units of the normal's length. Keeping `v0` instead of the translation `-R·v0` is
/// the same matrix, but subtracting `v0` first keeps the precision of rays that start near
/// a triangle far from the world origin.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Ray, Triangle, TriangleTransform};
///
/// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
/// let transform = TriangleTransform::new(&tri).ok_or("degenerate")?;
/// assert_eq!(transform.transform_point(tri.v1), Vec3::X);
/// let hit = transform
///     .intersect(&Ray::new(Vec3::new(0.5, 1.0, 3.0), Vec3::NEG_Z))
///     .ok_or("miss")?;
/// assert_eq!((hit.t, hit.u, hit.v), (3.0, 0.25, 0.5));
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleTransform {
    /// The rows of `R`.
    rows: [Vec3; 3],
    /// Triangle space's origin, the triangle's first corner, in world space.
    origin: Vec3,
}

const _: () = assert!(core::mem::size_of::<TriangleTransform>() == 48);

impl TriangleTransform {
    /// The transform of `triangle`, or `None` if it is degenerate
    /// ([`Triangle::is_degenerate`]) or its inverse is not representable in `f32`.
    #[inline]
    pub fn new(triangle: &Triangle) -> Option<Self> {
        if triangle.is_degenerate() {
            return None;
        }
        let e1 = triangle.v1 - triangle.v0;
        let e2 = triangle.v2 - triangle.v0;
        let n = e1.cross(e2);
        // The inverse of [e1 e2 n] has rows (e2 × n, n × e1, n) / |n|², since its
        // determinant is (e1 × e2) · n = |n|². Scaling n to a largest component of 1 first
        // keeps |n|² from overflowing or underflowing for huge or tiny triangles.
        let m = n.abs().max_element();
        let n = n / m;
        let scale = 1.0 / (m * n.length_squared());
        Self {
            rows: [e2.cross(n) * scale, n.cross(e1) * scale, n * scale],
            origin: triangle.v0,
        }
        .finite()
    }

    /// The transform with these rows of `R` and origin, or `None` if an entry is not
    /// finite (an unused lane of a [`crate::TransformBlock`] reads back this way).
    #[inline]
    pub(crate) fn from_parts(rows: [Vec3; 3], origin: Vec3) -> Option<Self> {
        Self { rows, origin }.finite()
    }

    /// The rows of `R` and the origin `v0`, as [`crate::TransformBlock`] spreads them over
    /// lanes.
    #[inline]
    pub(crate) fn parts(&self) -> ([Vec3; 3], Vec3) {
        (self.rows, self.origin)
    }

    /// `Some(self)` if every entry is finite.
    #[inline]
    fn finite(self) -> Option<Self> {
        let [r0, r1, r2] = self.rows;
        (r0.is_finite() && r1.is_finite() && r2.is_finite() && self.origin.is_finite())
            .then_some(self)
    }

    /// The transform as a 3×4 affine map from world space to triangle space.
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        let matrix = Mat3A::from_cols(
            self.rows[0].into(),
            self.rows[1].into(),
            self.rows[2].into(),
        )
        .transpose();
        Affine3A {
            matrix3: matrix,
            translation: -(matrix * Vec3A::from(self.origin)),
        }
    }

    /// The triangle-space coordinates of the world-space `point`: `(u, v, z)`.
    #[inline]
    pub fn transform_point(&self, point: Vec3) -> Vec3 {
        self.transform_vector(point - self.origin)
    }

    /// The triangle-space components of the world-space direction `vector`.
    #[inline]
    pub fn transform_vector(&self, vector: Vec3) -> Vec3 {
        let [r0, r1, r2] = self.rows;
        Vec3::new(r0.dot(vector), r1.dot(vector), r2.dot(vector))
    }

    /// The ray test, two-sided: the ray crosses the triangle's plane where its triangle-space
    /// `z` changes sign, at `t = -z(origin) / z(dir)`; it hits if that `t` lies in the ray's
    /// inclusive range and the crossing's `x`, `y` satisfy `x >= 0`, `y >= 0`, `x + y <= 1`.
    ///
    /// Returns `t`, `u = x`, `v = y` as [`Triangle::intersect_moller_trumbore`] does, and
    /// misses in the same cases: a ray parallel to the plane (in it or not), out of range, or
    /// degenerate ([`Ray::is_valid`]).
    #[inline]
    pub fn intersect(&self, ray: &Ray) -> Option<Hit> {
        if !ray.is_valid() {
            return None;
        }
        let [r0, r1, r2] = self.rows;
        let o = ray.origin - self.origin;
        // Parallel (dz == 0) gives an infinite or NaN t, which is rejected.
        let t = -r2.dot(o) / r2.dot(ray.dir);
        if !(t.is_finite() && ray.contains_t(t)) {
            return None;
        }
        let p = o + ray.dir * t;
        let u = r0.dot(p);
        let v = r1.dot(p);
        (u >= 0.0 && v >= 0.0 && u + v <= 1.0).then_some(Hit::new(t, u, v))
    }

    /// The segment test of the method's original form: the segment from `from` to `to`
    /// crosses the plane iff the triangle-space `z` of its ends differ in sign (or one is
    /// zero), then the crossing is bounded by `x`, `y` as in [`TriangleTransform::intersect`].
    ///
    /// `t` is the fraction of the way from `from` to `to`, as on [`Ray::segment`]; both ends
    /// are included. A segment lying in the plane misses. A miss costs no division.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Triangle, TriangleTransform};
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
    /// let transform = TriangleTransform::new(&tri).ok_or("degenerate")?;
    /// let (from, to) = (Vec3::new(0.25, 0.25, 1.0), Vec3::new(0.25, 0.25, -3.0));
    /// assert_eq!(transform.intersect_segment(from, to).ok_or("miss")?.t, 0.25);
    /// assert_eq!(transform.intersect_segment(from, Vec3::new(0.25, 0.25, 0.5)), None);
    /// # Ok::<(), &str>(())
    /// ```
    #[inline]
    pub fn intersect_segment(&self, from: Vec3, to: Vec3) -> Option<Hit> {
        let [r0, r1, r2] = self.rows;
        let a = from - self.origin;
        let b = to - self.origin;
        let za = r2.dot(a);
        let zb = r2.dot(b);
        // Comparisons, not the sign of za * zb, which can underflow to zero. NaN fails both.
        let crosses = (za <= 0.0 && zb >= 0.0) || (za >= 0.0 && zb <= 0.0);
        if !crosses || za == zb {
            return None;
        }
        // |za - zb| >= |za| as the signs differ, so t is in [0, 1].
        let t = za / (za - zb);
        let p = a + (b - a) * t;
        let u = r0.dot(p);
        let v = r1.dot(p);
        (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t.is_finite()).then_some(Hit::new(t, u, v))
    }

    /// The transform of this triangle once its object is placed in the world: for an object
    /// whose local space maps to world space by `local_to_world` (and back by its inverse
    /// `world_to_local`), composing this object-space transform with `world_to_local` gives
    /// one that tests world-space rays directly. A moving object recomposes its triangles'
    /// transforms (a 3×3 product each) instead of rebuilding them from moved corners, or
    /// skips even that by moving the ray into object space instead.
    ///
    /// The result gives the same `t`, `u`, `v` as [`TriangleTransform::new`] of the moved
    /// triangle (up to rounding): both share the plane and the barycentrics on it. For a
    /// rigid motion the two are the same matrix; under scaling or shear only the scale and
    /// direction of their `z` axis differ. The two arguments must be each other's inverse.
    /// `None` if the result is not finite.
    ///
    /// # Examples
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_primitives::{Ray, Triangle, TriangleTransform};
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
    /// let local = TriangleTransform::new(&tri).ok_or("degenerate")?;
    /// let to_world = Affine3A::from_translation(Vec3::new(0.0, 0.0, -4.0));
    /// let world = local.compose(&to_world.inverse(), &to_world).ok_or("not finite")?;
    /// let ray = Ray::new(Vec3::new(0.25, 0.5, 1.0), Vec3::NEG_Z);
    /// assert_eq!(world.intersect(&ray).ok_or("miss")?.t, 5.0);
    /// # Ok::<(), &str>(())
    /// ```
    #[inline]
    pub fn compose(&self, world_to_local: &Affine3A, local_to_world: &Affine3A) -> Option<Self> {
        // R (W p + w - v0) = (R W) (p - v0_world), where v0_world = W⁻¹ (v0 - w).
        let m_transposed = world_to_local.matrix3.transpose();
        let row = |r: Vec3| Vec3::from(m_transposed * Vec3A::from(r));
        Self {
            rows: self.rows.map(row),
            origin: local_to_world.transform_point3(self.origin),
        }
        .finite()
    }
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;

    fn tri() -> Triangle {
        Triangle::new(
            Vec3::new(0.5, -1.0, 2.0),
            Vec3::new(3.0, 0.5, 1.0),
            Vec3::new(-0.5, 2.0, 2.5),
        )
    }

    #[test]
    fn corners_map_to_the_unit_triangle_and_the_normal_to_z() {
        let tri = tri();
        let transform = TriangleTransform::new(&tri).expect("not degenerate");
        let expect = [Vec3::ZERO, Vec3::X, Vec3::Y];
        for (corner, image) in tri.vertices().into_iter().zip(expect) {
            assert!(transform.transform_point(corner).distance(image) < 1e-6);
        }
        let normal = transform.transform_vector(tri.normal());
        assert!(normal.distance(Vec3::Z) < 1e-6);
        let affine = transform.to_affine();
        for corner in tri.vertices() {
            let a = affine.transform_point3(corner);
            assert!(a.distance(transform.transform_point(corner)) < 1e-5);
        }
    }

    #[test]
    fn ray_and_segment_forms_agree_with_moller_trumbore() {
        let tri = tri();
        let transform = TriangleTransform::new(&tri).expect("not degenerate");
        for (u, v) in [(0.2, 0.3), (0.7, 0.1), (0.05, 0.9), (0.6, 0.6), (-0.1, 0.5)] {
            let target = tri.v0 * (1.0 - u - v) + tri.v1 * u + tri.v2 * v;
            let from = target + Vec3::new(0.3, -0.2, 2.0);
            let to = target - Vec3::new(0.3, -0.2, 2.0) * 3.0;
            let ray = Ray::segment(from, to);
            let mt = tri.intersect_moller_trumbore(&ray);
            let hits = [
                transform.intersect(&ray),
                transform.intersect_segment(from, to),
            ];
            for hit in hits {
                assert_eq!(hit.is_some(), mt.is_some(), "u {u} v {v}");
                if let (Some(hit), Some(mt)) = (hit, mt) {
                    assert!((hit.t - 0.25).abs() < 1e-6 && (mt.t - 0.25).abs() < 1e-6);
                    assert!((hit.u - u).abs() < 1e-5 && (hit.v - v).abs() < 1e-5);
                }
            }
        }
    }

    #[test]
    fn segment_ends_are_included_and_in_plane_segments_miss() {
        let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let transform = TriangleTransform::new(&tri).expect("not degenerate");
        let on = Vec3::new(0.25, 0.25, 0.0);
        let hit = transform.intersect_segment(on, Vec3::new(0.25, 0.25, 1.0));
        assert_eq!(hit.map(|h| h.t), Some(0.0));
        let hit = transform.intersect_segment(Vec3::new(0.25, 0.25, 1.0), on);
        assert_eq!(hit.map(|h| h.t), Some(1.0));
        assert_eq!(
            transform.intersect_segment(on, Vec3::new(0.5, 0.1, 0.0)),
            None
        );
        assert_eq!(transform.intersect_segment(Vec3::NAN, on), None);
        let both_above = (Vec3::new(0.2, 0.2, 1e-30), Vec3::new(0.2, 0.2, 2e-30));
        assert_eq!(
            transform.intersect_segment(both_above.0, both_above.1),
            None
        );
    }

    #[test]
    fn huge_and_tiny_triangles_have_finite_transforms() {
        for s in [1e-15f32, 1e-5, 1.0, 1e5, 1e15] {
            let tri = Triangle::new(Vec3::ZERO, Vec3::new(s, 0.0, 0.0), Vec3::new(0.0, s, 0.0));
            let transform = TriangleTransform::new(&tri).expect("representable");
            let ray = Ray::new(Vec3::new(0.25 * s, 0.5 * s, s), Vec3::new(0.0, 0.0, -s));
            let hit = transform.intersect(&ray).expect("hit");
            assert!((hit.t - 1.0).abs() < 1e-6, "{s}");
            assert!(
                (hit.u - 0.25).abs() < 1e-6 && (hit.v - 0.5).abs() < 1e-6,
                "{s}"
            );
        }
    }

    #[test]
    fn rigid_composition_equals_the_moved_triangle() {
        let tri = tri();
        let local = TriangleTransform::new(&tri).expect("not degenerate");
        let to_world = Affine3A::from_rotation_translation(
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.7),
            Vec3::new(10.0, -3.0, 4.0),
        );
        let moved = Triangle::new(
            to_world.transform_point3(tri.v0),
            to_world.transform_point3(tri.v1),
            to_world.transform_point3(tri.v2),
        );
        let direct = TriangleTransform::new(&moved).expect("not degenerate");
        let composed = local
            .compose(&to_world.inverse(), &to_world)
            .expect("finite");
        assert_eq!(composed.origin, direct.origin);
        for (a, b) in composed.rows.iter().zip(direct.rows) {
            assert!(a.distance(b) < 1e-5, "{a} vs {b}");
        }
    }
}
