//! The result of a ray–primitive test, and the order of hits along a ray.

use core::cmp::Ordering;

use glam::Vec3;

use crate::triangles::Triangle;

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

    /// The order of hits along a ray, the one every query and sort follows: the smaller `t`
    /// first ([`Hit::compare_t`]: `-0.0` equals `0.0`), and at equal `t` (a ray through a
    /// shared edge or vertex) the smaller primitive index, so that answers do not depend on
    /// the order in which a hierarchy happens to visit primitives.
    ///
    /// # Examples
    /// ```
    /// use meshcast_primitives::Hit;
    ///
    /// let mut hits = [
    ///     Hit::new(2.0, 0.0, 0.0).with_triangle(1),
    ///     Hit::new(0.0, 0.0, 0.0).with_triangle(9),
    ///     Hit::new(-0.0, 0.0, 0.0).with_triangle(4),
    /// ];
    /// hits.sort_unstable_by(Hit::order);
    /// assert_eq!(hits.map(|h| h.triangle), [4, 9, 1]);
    /// ```
    #[inline]
    pub fn order(&self, other: &Self) -> Ordering {
        Self::compare_t(self.t, other.t).then(self.triangle.cmp(&other.triangle))
    }

    /// The order of distances along a ray that [`Hit::order`] starts with, for hit types that
    /// add their own tie rule: numeric order, `-0.0` equal to `0.0`, and NaN (which no query
    /// reports) after every number, so that it is a total order.
    #[inline]
    pub fn compare_t(a: f32, b: f32) -> Ordering {
        // Adding zero turns -0.0 into 0.0 and changes nothing else.
        (a + 0.0).total_cmp(&(b + 0.0))
    }

    /// Whether this hit comes first in [`Hit::order`]: the test a closest-hit search keeps its
    /// best with (for hits whose `t` is not NaN, which every query guarantees).
    #[inline]
    pub fn is_closer_than(&self, other: &Self) -> bool {
        self.t < other.t || (self.t == other.t && self.triangle < other.triangle)
    }

    /// The closer of two optional hits by [`Hit::order`].
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

/// A [`Hit`] of a double-precision ray ([`crate::DRay`]): `t` along that ray in `f64`, the
/// barycentrics and the primitive of the hit of the ray carried into the primitive's frame.
///
/// # Examples
/// ```
/// use meshcast_primitives::{DHit, Hit};
///
/// // A hit at t = 0.5 of a ray carried 1e7 along its direction.
/// let hit = DHit::carried_back(Hit::new(0.5, 0.25, 0.25).with_triangle(3), 1e7);
/// assert_eq!((hit.t, hit.triangle), (10_000_000.5, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DHit {
    /// Distance along the ray, in units of its direction.
    pub t: f64,
    /// Barycentric weight of the second vertex.
    pub u: f32,
    /// Barycentric weight of the third vertex.
    pub v: f32,
    /// Index of the primitive hit.
    pub triangle: u32,
}

impl DHit {
    /// The hit of a ray that [`crate::DRay::carry`] carried with `shift`, as the ray's own.
    #[inline]
    pub fn carried_back(hit: Hit, shift: f64) -> Self {
        Self {
            t: f64::from(hit.t) + shift,
            u: hit.u,
            v: hit.v,
            triangle: hit.triangle,
        }
    }
}

/// A hit that a hierarchy can keep the closest of and sort: its distance `t` along the ray
/// and its order ([`Hit::order`], or a type's own tie rule built on [`Hit::compare_t`]).
/// A leaf may report any such type, for example a scene's hit that names its instance.
pub trait RayHit: Copy {
    /// The precision of `t`, the ray's ([`crate::RayRange::Scalar`]): `f32` for [`Hit`],
    /// `f64` for [`DHit`].
    type Scalar: Copy + PartialOrd;

    /// The distance along the ray, in units of its direction.
    fn t(&self) -> Self::Scalar;

    /// The order of hits along the ray: by `t` ([`Hit::compare_t`]), then a tie rule that
    /// makes it total.
    fn order(&self, other: &Self) -> Ordering;

    /// Whether this hit comes first in [`RayHit::order`].
    #[inline]
    fn is_closer_than(&self, other: &Self) -> bool {
        self.order(other).is_lt()
    }
}

impl RayHit for Hit {
    type Scalar = f32;

    #[inline]
    fn t(&self) -> f32 {
        self.t
    }

    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        Hit::order(self, other)
    }

    #[inline]
    fn is_closer_than(&self, other: &Self) -> bool {
        Hit::is_closer_than(self, other)
    }
}

impl RayHit for DHit {
    type Scalar = f64;

    #[inline]
    fn t(&self) -> f64 {
        self.t
    }

    /// By `t` (`-0.0` equal to `0.0`), then the smaller primitive index, as [`Hit::order`].
    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        // Adding zero turns -0.0 into 0.0; a query's `t` is never NaN.
        (self.t + 0.0)
            .total_cmp(&(other.t + 0.0))
            .then(self.triangle.cmp(&other.triangle))
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
    fn the_order_ties_signed_zeros_and_agrees_with_is_closer_than() {
        let ts = [
            -1.0,
            -0.0,
            0.0,
            f32::MIN_POSITIVE,
            1.0,
            1.0 + f32::EPSILON,
            f32::INFINITY,
        ];
        let hits: Vec<Hit> = ts
            .iter()
            .flat_map(|&t| (0..3).map(move |i| Hit::new(t, 0.0, 0.0).with_triangle(i)))
            .collect();
        for a in &hits {
            for b in &hits {
                assert_eq!(a.is_closer_than(b), a.order(b).is_lt(), "{a:?} {b:?}");
                assert_eq!(a.order(b), b.order(a).reverse());
            }
        }
        let zero = Hit::new(0.0, 0.0, 0.0).with_triangle(2);
        let negative_zero = Hit::new(-0.0, 0.0, 0.0).with_triangle(2);
        assert_eq!(zero.order(&negative_zero), Ordering::Equal);
        assert_eq!(Hit::compare_t(f32::NAN, f32::INFINITY), Ordering::Greater);
    }

    #[test]
    fn interpolate_weights_sum_to_one() {
        let hit = Hit::new(1.0, 0.25, 0.5);
        let value = hit.interpolate(Vec3::X, Vec3::Y, Vec3::Z);
        assert_eq!(value, Vec3::new(0.25, 0.25, 0.5));
    }
}
