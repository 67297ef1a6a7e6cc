//! The result of a ray–primitive test, and the tie rule that orders hits.

use glam::Vec3;

use crate::Triangle;

/// Where a ray hits a primitive: distance `t` along the ray (in units of its direction),
/// barycentrics `u`, `v`, and the index of the primitive that was hit.
///
/// On a triangle the hit point is `(1 - u - v) * v0 + u * v1 + v * v2`. The single-primitive
/// tests leave `triangle` at 0; a BVH, mesh or scene sets it to the primitive's index.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Ray, Triangle};
///
/// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// let ray = Ray::new(Vec3::new(0.25, 0.5, 1.0), Vec3::NEG_Z);
/// let hit = tri.intersect(&ray).ok_or("miss")?;
/// assert_eq!(hit.t, 1.0);
/// assert!(hit.point(&tri).distance(Vec3::new(0.25, 0.5, 0.0)) < 1e-6);
/// assert_eq!(hit.normal(&tri), Vec3::Z);
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Distance along the ray, in units of its direction.
    pub t: f32,
    /// Barycentric weight of the second vertex.
    pub u: f32,
    /// Barycentric weight of the third vertex.
    pub v: f32,
    /// Index of the primitive hit (its position in the mesh's or caller's order).
    pub triangle: u32,
}

impl Hit {
    /// A hit at `t` with barycentrics `u`, `v`, on primitive 0.
    #[inline]
    pub const fn new(t: f32, u: f32, v: f32) -> Self {
        Self {
            t,
            u,
            v,
            triangle: 0,
        }
    }

    /// The same hit, attributed to primitive `triangle`.
    #[inline]
    #[must_use]
    pub const fn with_triangle(self, triangle: u32) -> Self {
        Self { triangle, ..self }
    }

    /// The tie rule every query follows: the smaller `t` wins, and at equal `t` (a ray through
    /// a shared edge or vertex) the smaller primitive index, so answers do not depend on the
    /// order in which a BVH happens to visit primitives.
    #[inline]
    pub fn is_closer_than(&self, other: &Self) -> bool {
        self.t < other.t || (self.t == other.t && self.triangle < other.triangle)
    }

    /// The closer of two optional hits by [`Hit::is_closer_than`].
    #[inline]
    pub fn closest(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.is_closer_than(&a) { b } else { a }),
            (a, None) => a,
            (None, b) => b,
        }
    }

    /// The barycentric weight of the first vertex, `1 - u - v`.
    #[inline]
    pub fn w(&self) -> f32 {
        1.0 - self.u - self.v
    }

    /// The hit point on `triangle`, from the barycentrics (more accurate than `ray.at(t)` far
    /// from the origin).
    #[inline]
    pub fn point(&self, triangle: &Triangle) -> Vec3 {
        triangle.v0 * self.w() + triangle.v1 * self.u + triangle.v2 * self.v
    }

    /// The unit geometric normal of `triangle` (counter-clockwise winding faces the viewer),
    /// the same on both sides; zero for a degenerate triangle.
    #[inline]
    pub fn normal(&self, triangle: &Triangle) -> Vec3 {
        triangle.normal().normalize_or_zero()
    }

    /// Interpolates per-vertex attributes (normals, texture coordinates) at the hit.
    #[inline]
    pub fn interpolate<T>(&self, a0: T, a1: T, a2: T) -> T
    where
        T: core::ops::Mul<f32, Output = T> + core::ops::Add<Output = T>,
    {
        a0 * self.w() + a1 * self.u + a2 * self.v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tie_rule_prefers_smaller_t_then_smaller_index() {
        let a = Hit::new(1.0, 0.0, 0.0).with_triangle(5);
        let b = Hit::new(1.0, 0.5, 0.5).with_triangle(3);
        let c = Hit::new(0.5, 0.0, 0.0).with_triangle(9);
        assert!(b.is_closer_than(&a));
        assert!(!a.is_closer_than(&b));
        assert!(c.is_closer_than(&b));
        assert!(!a.is_closer_than(&a));
        assert_eq!(Hit::closest(Some(a), Some(b)), Some(b));
        assert_eq!(Hit::closest(Some(a), None), Some(a));
        assert_eq!(Hit::closest(None, Some(c)), Some(c));
        assert_eq!(Hit::closest(None, None), None);
    }

    #[test]
    fn interpolate_weights_sum_to_one() {
        let hit = Hit::new(1.0, 0.25, 0.5);
        let value = hit.interpolate(Vec3::X, Vec3::Y, Vec3::Z);
        assert_eq!(value, Vec3::new(0.25, 0.25, 0.5));
    }
}
