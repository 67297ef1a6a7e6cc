//! The Möller–Trumbore ray–triangle test (Möller, Trumbore, *Fast, Minimum Storage
//! Ray/Triangle Intersection*, Journal of Graphics Tools, 1997), two-sided and back-face
//! culled.
//!
//! The test solves `origin + t * dir = (1 - u - v) * v0 + u * v1 + v * v2` by Cramer's rule
//! with the scalar triple products of the edges, and needs no precomputed data. Both variants
//! use the paper's culling branch: the barycentric bounds are checked against the unscaled
//! determinant, so a miss costs no division. The two-sided variant first mirrors a back face
//! (negating the determinant and the scaled barycentrics, which is exact), so on a front face
//! both variants compute bit-identical hits.

use crate::rays::Ray;
use crate::triangles::{Hit, Triangle};

/// Which faces a test accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Facing {
    Both,
    Front,
}

impl Triangle {
    /// The Möller–Trumbore test, two-sided: hits either face.
    ///
    /// Returns `t` (in units of `ray.dir`, inside the ray's inclusive range) and `u`, `v` with
    /// the hit point `(1 - u - v) * v0 + u * v1 + v * v2`, or `None` when the ray misses,
    /// runs parallel to the triangle's plane (a ray lying in the plane included), the ray is
    /// degenerate ([`Ray::is_valid`]) or the triangle is ([`Triangle::is_degenerate`]).
    /// Points on an edge or vertex count as inside; unlike
    /// [`Triangle::intersect_watertight`], a ray through an edge shared by two triangles can
    /// fall between them, as rounding differs on each side.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
    /// // From behind: the normal is +z, the ray travels along +z.
    /// let ray = Ray::new(Vec3::new(0.25, 0.5, -2.0), Vec3::Z);
    /// let hit = tri.intersect_moller_trumbore(&ray).ok_or("miss")?;
    /// assert_eq!((hit.t, hit.u, hit.v), (2.0, 0.25, 0.5));
    /// # Ok::<(), &str>(())
    /// ```
    #[inline]
    pub fn intersect_moller_trumbore(&self, ray: &Ray) -> Option<Hit> {
        moller_trumbore(self, ray, Facing::Both)
    }

    /// The Möller–Trumbore test with back-face culling (the paper's `TEST_CULL` branch):
    /// hits only the front face, the side from which the corners `v0`, `v1`, `v2` appear
    /// counter-clockwise, i.e. when `ray.dir · normal < 0` (see [`Triangle::normal`]).
    ///
    /// Otherwise as [`Triangle::intersect_moller_trumbore`], whose hit it returns bit for bit
    /// on a front face. Whether a ray almost parallel to the plane faces the triangle is
    /// decided by the test's own determinant, which may differ in sign from a separately
    /// computed `ray.dir · normal` when both are within rounding of zero.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y); // front face towards +z
    /// let front = Ray::new(Vec3::new(0.25, 0.5, 2.0), Vec3::NEG_Z);
    /// let back = Ray::new(Vec3::new(0.25, 0.5, -2.0), Vec3::Z);
    /// let hit = tri.intersect_moller_trumbore_culled(&front).ok_or("miss")?;
    /// assert_eq!(hit.t, 2.0);
    /// assert_eq!(tri.intersect_moller_trumbore_culled(&back), None);
    /// # Ok::<(), &str>(())
    /// ```
    #[inline]
    pub fn intersect_moller_trumbore_culled(&self, ray: &Ray) -> Option<Hit> {
        moller_trumbore(self, ray, Facing::Front)
    }
}

#[inline(always)]
fn moller_trumbore(tri: &Triangle, ray: &Ray, facing: Facing) -> Option<Hit> {
    if !ray.is_valid() || tri.is_degenerate() {
        return None;
    }
    let e1 = tri.v1 - tri.v0;
    let e2 = tri.v2 - tri.v0;
    let p = ray.dir.cross(e2);
    // det = e1 · (dir × e2) = -dir · (e1 × e2): positive on the front face.
    let det = e1.dot(p);
    let sign = match facing {
        Facing::Front => 1.0,
        Facing::Both if det < 0.0 => -1.0,
        Facing::Both => 1.0,
    };
    let det_abs = det * sign;
    // Zero: the ray is parallel to the plane. NaN: overflow.
    if det_abs.is_nan() || det_abs <= 0.0 {
        return None;
    }

    // Scaled barycentrics, compared with the determinant before any division.
    let s = ray.origin - tri.v0;
    let u = s.dot(p);
    let u_abs = u * sign;
    if !(u_abs >= 0.0 && u_abs <= det_abs) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.dir.dot(q);
    let v_abs = v * sign;
    if !(v_abs >= 0.0 && u_abs + v_abs <= det_abs) {
        return None;
    }

    // One division for t, u and v. A determinant too small to invert gives an infinite or
    // NaN t, which is rejected.
    let inv_det = 1.0 / det_abs;
    let t = e2.dot(q) * sign * inv_det;
    if !(t.is_finite() && ray.contains_t(t)) {
        return None;
    }
    Some(Hit::new(t, u_abs * inv_det, v_abs * inv_det))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn tri() -> Triangle {
        Triangle::new(
            Vec3::new(-1.0, -1.0, 0.5),
            Vec3::new(1.0, -1.0, 0.5),
            Vec3::new(0.0, 1.0, 0.5),
        )
    }

    #[test]
    fn both_faces_hit_and_culled_keeps_the_front_only() {
        let tri = tri();
        let front = Ray::new(Vec3::new(0.0, 0.0, 2.5), Vec3::new(0.0, 0.0, -2.0));
        let back = Ray::new(Vec3::new(0.0, 0.0, -1.5), Vec3::new(0.0, 0.0, 2.0));
        let f = tri.intersect_moller_trumbore(&front).expect("front hit");
        let b = tri.intersect_moller_trumbore(&back).expect("back hit");
        assert_eq!(f.t, 1.0);
        assert_eq!(b.t, 1.0);
        assert_eq!((f.u, f.v), (b.u, b.v));
        assert!((f.u - 0.25).abs() < 1e-6 && (f.v - 0.5).abs() < 1e-6);
        assert_eq!(tri.intersect_moller_trumbore_culled(&front), Some(f));
        assert_eq!(tri.intersect_moller_trumbore_culled(&back), None);
    }

    #[test]
    fn edges_and_vertices_are_inside_outside_is_not() {
        let tri = tri();
        for (target, inside) in [
            (tri.v0, true),
            (tri.v1, true),
            (tri.v2, true),
            (tri.v0.lerp(tri.v1, 0.5), true),
            (tri.v1.lerp(tri.v2, 0.25), true),
            (Vec3::new(0.0, -1.001, 0.5), false),
            (Vec3::new(0.9, 0.5, 0.5), false),
        ] {
            let ray = Ray::new(target + Vec3::Z, Vec3::NEG_Z);
            assert_eq!(
                tri.intersect_moller_trumbore(&ray).is_some(),
                inside,
                "{target}"
            );
        }
    }

    #[test]
    fn range_is_inclusive_and_origin_is_excluded() {
        let tri = tri();
        let ray = Ray::new(Vec3::new(0.0, 0.0, 1.5), Vec3::NEG_Z);
        assert!(tri
            .intersect_moller_trumbore(&ray.with_range(1.0, 1.0))
            .is_some());
        assert!(tri
            .intersect_moller_trumbore(&ray.with_range(0.0, 0.999))
            .is_none());
        assert!(tri
            .intersect_moller_trumbore(&ray.with_range(1.001, 9.0))
            .is_none());
        let on_surface = Ray::new(Vec3::new(0.0, 0.0, 0.5), Vec3::NEG_Z);
        assert!(tri.intersect_moller_trumbore(&on_surface).is_none());
        assert!(tri
            .intersect_moller_trumbore(&on_surface.with_range(0.0, 1.0))
            .is_some());
    }

    #[test]
    fn parallel_and_in_plane_rays_miss() {
        let tri = tri();
        let parallel = Ray::new(Vec3::new(-5.0, 0.0, 1.0), Vec3::X);
        let in_plane = Ray::new(Vec3::new(-5.0, 0.0, 0.5), Vec3::X);
        for ray in [parallel, in_plane] {
            assert_eq!(tri.intersect_moller_trumbore(&ray), None);
            assert_eq!(tri.intersect_moller_trumbore_culled(&ray), None);
        }
    }

    #[test]
    fn tiny_determinant_is_not_an_infinite_hit() {
        // A triangle of area ~1e-40: its determinant cannot be inverted in f32.
        let s = 1e-20;
        let tiny = Triangle::new(Vec3::ZERO, Vec3::new(s, 0.0, 0.0), Vec3::new(0.0, s, 0.0));
        let ray = Ray::new(Vec3::new(s * 0.25, s * 0.25, 1.0), Vec3::NEG_Z);
        if let Some(hit) = tiny.intersect_moller_trumbore(&ray) {
            assert!(hit.t.is_finite() && hit.u.is_finite() && hit.v.is_finite());
        }
    }
}
