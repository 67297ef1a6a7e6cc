//! The plane, its ray distance, and the two-step ray–triangle test built on it (the ray meets
//! the triangle's plane, then the point is tested against the three edges); and the Newell
//! normal, which gives a polygon its plane.

use glam::Vec3;

use crate::rays::Ray;
use crate::triangles::{Hit, Triangle};

/// The plane through `point` with normal `normal`; the normal need not be unit length, and
/// the side it points to is the front.
///
/// A plane whose point or normal is not finite, or whose normal is zero, is degenerate
/// ([`Plane::is_degenerate`]): no ray meets it.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Plane, Ray};
///
/// let floor = Plane::new(Vec3::new(0.0, -1.0, 0.0), Vec3::Y);
/// let ray = Ray::new(Vec3::new(3.0, 2.0, 0.0), Vec3::new(0.0, -2.0, 0.0));
/// assert_eq!(floor.intersect(&ray), Some(1.5));
/// assert_eq!(floor.signed_distance(ray.origin), 3.0);
/// // Parallel to the floor, above it or in it: no crossing.
/// assert_eq!(floor.intersect(&Ray::new(ray.origin, Vec3::X)), None);
/// assert_eq!(floor.intersect(&Ray::new(Vec3::new(0.0, -1.0, 0.0), Vec3::X)), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// A point of the plane.
    pub point: Vec3,
    /// The normal, of any non-zero length, pointing to the front.
    pub normal: Vec3,
}

impl Plane {
    /// The plane through `point` with normal `normal` (not normalised).
    #[inline]
    pub const fn new(point: Vec3, normal: Vec3) -> Self {
        Self { point, normal }
    }

    /// The plane of `triangle`: through `v0`, with the triangle's non-normalised
    /// [`normal`](Triangle::normal), so its front is the triangle's front. `None` for a
    /// degenerate triangle ([`Triangle::is_degenerate`]).
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Plane, Triangle};
    ///
    /// let tri = Triangle::new(Vec3::Z, Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 1.0));
    /// let plane = Plane::from_triangle(&tri).ok_or("degenerate")?;
    /// assert_eq!(plane.signed_distance(Vec3::new(5.0, 5.0, 3.0)), 2.0);
    /// assert_eq!(Plane::from_triangle(&Triangle::new(Vec3::ZERO, Vec3::X, Vec3::X)), None);
    /// # Ok::<(), &str>(())
    /// ```
    #[inline]
    pub fn from_triangle(triangle: &Triangle) -> Option<Self> {
        (!triangle.is_degenerate()).then(|| Self::new(triangle.v0, triangle.normal()))
    }

    /// Whether no ray can meet the plane: the point or normal is not finite, or the normal is
    /// zero.
    #[inline]
    pub fn is_degenerate(&self) -> bool {
        !(self.point.is_finite() && self.normal.is_finite()) || self.normal == Vec3::ZERO
    }

    /// The signed distance from the plane to `point`, positive on the front side; NaN for a
    /// degenerate plane.
    #[inline]
    pub fn signed_distance(&self, point: Vec3) -> f32 {
        (point - self.point).dot(self.normal) / self.normal.length()
    }

    /// The distance `t` (in units of `ray.dir`) at which the ray crosses the plane, from
    /// either side.
    ///
    /// Returns `None` when:
    /// - the ray is parallel to the plane (`dir · normal == 0`) and off it: it never meets it;
    /// - the ray is parallel and lies *in* the plane: every point is on the plane and there is
    ///   no single crossing, so like a triangle seen edge-on this is a miss (check
    ///   [`Plane::signed_distance`] of the origin to tell the two cases apart);
    /// - the crossing is outside the ray's inclusive range `[t_min, t_max]`, or too far to
    ///   represent;
    /// - the ray ([`Ray::is_valid`]) or the plane ([`Plane::is_degenerate`]) is degenerate.
    #[inline]
    pub fn intersect(&self, ray: &Ray) -> Option<f32> {
        if !ray.is_valid() || self.is_degenerate() {
            return None;
        }
        let denom = self.normal.dot(ray.dir);
        if denom == 0.0 || !denom.is_finite() {
            return None;
        }
        // Relative to the ray's origin, so that a plane far from the world origin keeps its
        // precision near the ray.
        let t = self.normal.dot(self.point - ray.origin) / denom;
        (t.is_finite() && ray.contains_t(t)).then_some(t)
    }
}

impl Triangle {
    /// The textbook two-step test, two-sided: `t` from the ray's crossing with the triangle's
    /// [`Plane`], then the crossing point is inside when it lies on the inner side of all
    /// three edges (edges and vertices count as inside).
    ///
    /// Returns `t`, `u`, `v` as [`Triangle::intersect_moller_trumbore`] does, and misses in
    /// the same cases (see [`Plane::intersect`] for the plane's). It is slower and less precise
    /// than the one-step tests, because the barycentrics are computed from a rounded 3D
    /// point; it serves as an independent reference for them.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
    /// let hit = tri
    ///     .intersect_plane_inside(&Ray::new(Vec3::new(0.25, 0.5, 1.0), Vec3::NEG_Z))
    ///     .ok_or("miss")?;
    /// assert_eq!((hit.t, hit.u, hit.v), (1.0, 0.25, 0.5));
    /// # Ok::<(), &str>(())
    /// ```
    #[inline]
    pub fn intersect_plane_inside(&self, ray: &Ray) -> Option<Hit> {
        let plane = Plane::from_triangle(self)?;
        let t = plane.intersect(ray)?;
        let n = plane.normal;
        // The crossing point relative to v0, and the edges: no large absolute coordinates,
        // so a triangle far from the world origin keeps its precision.
        let e1 = self.v1 - self.v0;
        let e2 = self.v2 - self.v0;
        let p = (ray.origin - self.v0) + ray.dir * t;
        // Twice the signed areas of the sub-triangles opposite each corner, times |n|.
        let w0 = (e2 - e1).cross(p - e1).dot(n);
        let w1 = (-e2).cross(p - e2).dot(n);
        let w2 = e1.cross(p).dot(n);
        if !(w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) {
            return None;
        }
        let sum = w0 + w1 + w2;
        let (u, v) = (w1 / sum, w2 / sum);
        (u.is_finite() && v.is_finite()).then_some(Hit::new(t, u, v))
    }
}

/// The Newell normal of a closed loop of vertices: the sum of the normals of the fan triangles
/// from the first vertex. For a loop in a plane `x`, `y` or `z` = constant, its other two
/// components are exactly zero.
pub(crate) fn newell_normal(vertices: &[Vec3]) -> Vec3 {
    let Some((&v0, rest)) = vertices.split_first() else {
        return Vec3::ZERO;
    };
    rest.windows(2)
        .map(|pair| (pair[0] - v0).cross(pair[1] - v0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_from_both_sides_and_any_normal_length() {
        let plane = Plane::new(Vec3::new(0.0, 0.0, 2.0), Vec3::new(0.0, 0.0, -7.0));
        let down = Ray::new(Vec3::new(1.0, 1.0, 5.0), Vec3::new(0.0, 0.0, -3.0));
        let up = Ray::new(Vec3::new(1.0, 1.0, -1.0), Vec3::new(0.5, 0.0, 1.0));
        assert_eq!(plane.intersect(&down), Some(1.0));
        assert_eq!(plane.intersect(&up), Some(3.0));
        assert_eq!(plane.signed_distance(up.origin), 3.0);
        assert_eq!(plane.signed_distance(down.origin), -3.0);
    }

    #[test]
    fn parallel_in_plane_behind_and_out_of_range_miss() {
        let plane = Plane::new(Vec3::ZERO, Vec3::Z);
        let above = Ray::new(Vec3::new(0.0, 0.0, 1.0), Vec3::new(1.0, -2.0, 0.0));
        let inside = Ray::new(Vec3::new(4.0, 0.0, 0.0), Vec3::new(1.0, -2.0, -0.0));
        assert_eq!(plane.intersect(&above), None);
        assert_eq!(plane.intersect(&inside), None);
        assert_eq!(plane.signed_distance(inside.origin), 0.0);
        let away = Ray::new(Vec3::new(0.0, 0.0, 1.0), Vec3::Z);
        assert_eq!(plane.intersect(&away), None);
        let towards = Ray::new(Vec3::new(0.0, 0.0, 1.0), Vec3::NEG_Z);
        assert_eq!(plane.intersect(&towards.with_range(0.0, 0.5)), None);
        assert_eq!(plane.intersect(&towards.with_range(1.0, 1.0)), Some(1.0));
    }

    #[test]
    fn degenerate_planes_and_rays_miss() {
        let ray = Ray::new(Vec3::new(0.0, 0.0, 1.0), Vec3::NEG_Z);
        for plane in [
            Plane::new(Vec3::ZERO, Vec3::ZERO),
            Plane::new(Vec3::NAN, Vec3::Z),
            Plane::new(Vec3::ZERO, Vec3::new(0.0, 0.0, f32::INFINITY)),
        ] {
            assert!(plane.is_degenerate());
            assert_eq!(plane.intersect(&ray), None, "{plane:?}");
        }
        let plane = Plane::new(Vec3::ZERO, Vec3::Z);
        for bad in [
            Ray::new(Vec3::NAN, Vec3::NEG_Z),
            Ray::new(Vec3::Z, Vec3::ZERO),
            Ray::new(Vec3::Z, Vec3::new(0.0, 0.0, f32::NEG_INFINITY)),
            ray.with_range(0.0, f32::NAN),
        ] {
            assert_eq!(plane.intersect(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn nearly_parallel_ray_gives_no_infinite_t() {
        let plane = Plane::new(Vec3::ZERO, Vec3::Z);
        let ray = Ray::new(Vec3::new(0.0, 0.0, 1e30), Vec3::new(1.0, 0.0, -1e-30));
        assert_eq!(plane.intersect(&ray), None);
    }

    #[test]
    fn plane_inside_matches_the_edges() {
        let tri = Triangle::new(
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(0.0, 0.0, 3.0),
        );
        let dir = -tri.normal();
        for (u, v, inside) in [
            (0.2, 0.3, true),
            (0.01, 0.01, true),
            (0.49, 0.5, true),
            (0.001, 0.99, true),
            (0.6, 0.6, false),
            (-0.01, 0.5, false),
        ] {
            let target = tri.v0 * (1.0 - u - v) + tri.v1 * u + tri.v2 * v;
            let ray = Ray::new(target - dir, dir);
            let hit = tri.intersect_plane_inside(&ray);
            assert_eq!(hit.is_some(), inside, "u {u} v {v}");
            if let Some(hit) = hit {
                assert!((hit.t - 1.0).abs() < 1e-6);
                assert!((hit.u - u).abs() < 1e-5 && (hit.v - v).abs() < 1e-5);
            }
        }
    }
}
