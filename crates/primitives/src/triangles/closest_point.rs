//! The point of a triangle closest to a query point (Ericson, *Real-Time Collision
//! Detection*, 2005, §5.1.5), with its barycentrics, and the squared distance every
//! nearest-point and sphere query measures with.

use glam::Vec3;

use crate::rays::Aabb;
use crate::triangles::Triangle;

/// A point on a triangle: its position and barycentrics, so that
/// `point = (1 - u - v) * v0 + u * v1 + v * v2` (up to rounding).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::Triangle;
///
/// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// let closest = tri.closest_point(Vec3::new(0.25, 0.25, 3.0));
/// assert_eq!(closest.point, Vec3::new(0.25, 0.25, 0.0));
/// assert_eq!((closest.u, closest.v), (0.25, 0.25));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrianglePoint {
    /// The point.
    pub point: Vec3,
    /// Barycentric weight of the second corner.
    pub u: f32,
    /// Barycentric weight of the third corner.
    pub v: f32,
}

/// The squared distance `|a - b|²`, summed as `x² + y² + z²` in that order.
///
/// Every query that compares distances (nearest points, spheres, box bounds) uses this one
/// function, so a bound computed for a box is never larger than the distance computed for a
/// point inside it: rounding is monotone, and so is each step here.
#[inline]
pub fn distance_squared(a: Vec3, b: Vec3) -> f32 {
    let d = a - b;
    d.x * d.x + d.y * d.y + d.z * d.z
}

/// The squared distance from `point` to the closed box `bounds` (0 inside), summed like
/// [`distance_squared`], so that it never exceeds [`distance_squared`] from `point` to any
/// point of the box. `+inf` for an empty box; NaN for NaN input.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{box_distance_squared, Aabb};
///
/// let cube = Aabb::new(Vec3::ZERO, Vec3::ONE);
/// assert_eq!(box_distance_squared(Vec3::new(3.0, 0.5, -1.0), &cube), 4.0 + 1.0);
/// assert_eq!(box_distance_squared(Vec3::splat(0.5), &cube), 0.0);
/// ```
#[inline]
pub fn box_distance_squared(point: Vec3, bounds: &Aabb) -> f32 {
    if bounds.is_empty() {
        return f32::INFINITY;
    }
    // Per axis the gap to the box, computed from the same differences `point - corner` that
    // `distance_squared` computes for a point on the box's side.
    let below = bounds.min - point;
    let above = point - bounds.max;
    let d = below.max(above).max(Vec3::ZERO);
    d.x * d.x + d.y * d.y + d.z * d.z
}

impl Triangle {
    /// The point of the (closed) triangle closest to `point`, with its barycentrics.
    ///
    /// Ericson's region test (*Real-Time Collision Detection*, 2005, §5.1.5): the Voronoi
    /// regions of the corners, then of the edges, then the face. A degenerate triangle
    /// (see [`Triangle::is_degenerate`]: collinear or repeated corners) is treated as its
    /// three edges. The point is clamped into the triangle's bounding box, which the exact
    /// answer lies in, so that rounding never puts it outside a box that holds the
    /// triangle. Non-finite input gives a non-finite answer.
    ///
    /// The weights name the feature the point lies on exactly: in a corner's region they are
    /// that corner's (`u`, `v` and `1 - u - v` are 0 or 1), and on an edge the opposite
    /// corner's weight is exactly 0 (`u + v == 1` on the edge `v1 v2`, computed so that
    /// `1 - u - v` rounds to 0), so snapping can tell corners, edges and the face apart.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::Triangle;
    ///
    /// let tri = Triangle::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0));
    /// // Beyond the corner v1: the corner itself.
    /// let corner = tri.closest_point(Vec3::new(5.0, -1.0, 0.0));
    /// assert_eq!((corner.point, corner.u, corner.v), (Vec3::new(2.0, 0.0, 0.0), 1.0, 0.0));
    /// // Beside the long edge: its midpoint.
    /// let edge = tri.closest_point(Vec3::new(2.0, 2.0, 0.0));
    /// assert_eq!((edge.point, edge.u, edge.v), (Vec3::new(1.0, 1.0, 0.0), 0.5, 0.5));
    /// ```
    pub fn closest_point(&self, point: Vec3) -> TrianglePoint {
        let found = if self.is_degenerate() {
            None
        } else {
            ericson(self, point)
        };
        let found = found.unwrap_or_else(|| closest_on_edges(self, point));
        let bounds = self.bounds();
        TrianglePoint {
            point: found.point.clamp(bounds.min, bounds.max),
            ..found
        }
    }

    /// The squared distance from `point` to the triangle, by [`Triangle::closest_point`] and
    /// [`distance_squared`].
    #[inline]
    pub fn distance_squared(&self, point: Vec3) -> f32 {
        distance_squared(self.closest_point(point).point, point)
    }
}

/// Ericson's test; `None` when a division is not finite (a triangle so small or thin that
/// its squared edge lengths underflow), for the edge fallback to answer.
fn ericson(triangle: &Triangle, p: Vec3) -> Option<TrianglePoint> {
    let (a, b, c) = (triangle.v0, triangle.v1, triangle.v2);
    let at = |point: Vec3, u: f32, v: f32| Some(TrianglePoint { point, u, v });
    let ab = b - a;
    let ac = c - a;
    // Corner a.
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return at(a, 0.0, 0.0);
    }
    // Corner b.
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return at(b, 1.0, 0.0);
    }
    // Edge ab.
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let s = d1 / (d1 - d3);
        return s.is_finite().then(|| TrianglePoint {
            point: a + ab * s,
            u: s,
            v: 0.0,
        });
    }
    // Corner c.
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return at(c, 0.0, 1.0);
    }
    // Edge ac.
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let s = d2 / (d2 - d6);
        return s.is_finite().then(|| TrianglePoint {
            point: a + ac * s,
            u: 0.0,
            v: s,
        });
    }
    // Edge bc.
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return s.is_finite().then(|| on_edge_bc(b + (c - b) * s, s));
    }
    // The face.
    let denominator = 1.0 / (va + vb + vc);
    let (u, v) = (vb * denominator, vc * denominator);
    let point = a + ab * u + ac * v;
    (u.is_finite() && v.is_finite() && point.is_finite()).then_some(TrianglePoint { point, u, v })
}

/// The point `point = b + (c - b) * s` of the edge `v1 v2`, weighted so that the first
/// corner's weight `1 - u - v` is exactly zero: `u = 1 - s` rounded, and `v = 1 - u`, which
/// is exact (Sterbenz), so `u + v == 1`. Then `v` is `s` itself when `s >= 0.5`, and `s`
/// rounded to a multiple of 2^-24 below (within 2^-25 of it).
#[inline]
fn on_edge_bc(point: Vec3, s: f32) -> TrianglePoint {
    let u = 1.0 - s;
    TrianglePoint {
        point,
        u,
        v: 1.0 - u,
    }
}

/// The closest point over the three edges (each a closed segment), for degenerate
/// triangles; ties go to the first edge in the order `v0 v1`, `v0 v2`, `v1 v2`.
fn closest_on_edges(triangle: &Triangle, p: Vec3) -> TrianglePoint {
    let (a, b, c) = (triangle.v0, triangle.v1, triangle.v2);
    let segment = |from: Vec3, to: Vec3| {
        let d = to - from;
        let length_squared = d.dot(d);
        let s = if length_squared > 0.0 {
            ((p - from).dot(d) / length_squared).clamp(0.0, 1.0)
        } else {
            0.0
        };
        // NaN from overflow: fall back to the segment's start.
        let s = if s.is_nan() { 0.0 } else { s };
        (from + d * s, s)
    };
    let (on_ab, s_ab) = segment(a, b);
    let (on_ac, s_ac) = segment(a, c);
    let (on_bc, s_bc) = segment(b, c);
    let candidates = [
        TrianglePoint {
            point: on_ab,
            u: s_ab,
            v: 0.0,
        },
        TrianglePoint {
            point: on_ac,
            u: 0.0,
            v: s_ac,
        },
        on_edge_bc(on_bc, s_bc),
    ];
    let mut best = candidates[0];
    let mut best_distance = distance_squared(best.point, p);
    for candidate in &candidates[1..] {
        let d = distance_squared(candidate.point, p);
        if d < best_distance {
            best = *candidate;
            best_distance = d;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closest point by brute force in `f64`: the best of a fine barycentric grid,
    /// refined, which bounds the error of the exact answer from above.
    fn sampled_distance(triangle: &Triangle, p: Vec3) -> f64 {
        let (a, b, c) = (
            triangle.v0.as_dvec3(),
            triangle.v1.as_dvec3(),
            triangle.v2.as_dvec3(),
        );
        let p = p.as_dvec3();
        let steps = 200;
        let mut best = f64::INFINITY;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let (u, v) = (i as f64 / steps as f64, j as f64 / steps as f64);
                let q = a * (1.0 - u - v) + b * u + c * v;
                best = best.min(q.distance(p));
            }
        }
        best
    }

    #[test]
    fn every_region_gives_the_nearest_point() {
        let tri = Triangle::new(
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(3.0, 0.5, 0.2),
            Vec3::new(0.5, 2.0, -0.4),
        );
        let mut state = 0x2545_f491_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state as f32 / u32::MAX as f32) * 8.0 - 4.0
        };
        for _ in 0..300 {
            let p = Vec3::new(next(), next(), next());
            let closest = tri.closest_point(p);
            let exact = f64::from(closest.point.distance(p));
            let sampled = sampled_distance(&tri, p);
            // The grid spacing bounds how far the sampled answer is above the exact one.
            assert!(exact <= sampled + 1e-5, "{p}: {exact} > {sampled}");
            assert!(exact >= sampled - 0.02, "{p}: {exact} << {sampled}");
            let rebuilt =
                tri.v0 * (1.0 - closest.u - closest.v) + tri.v1 * closest.u + tri.v2 * closest.v;
            assert!(rebuilt.distance(closest.point) < 1e-5, "{p}");
            assert!(
                closest.u >= -1e-6 && closest.v >= -1e-6 && closest.u + closest.v <= 1.0 + 1e-6
            );
        }
    }

    #[test]
    fn corner_and_edge_regions_give_exact_weights() {
        let tri = Triangle::new(
            Vec3::new(0.1, -0.2, 0.0),
            Vec3::new(3.0, 0.5, 0.2),
            Vec3::new(0.5, 2.0, -0.4),
        );
        let corners = tri.vertices();
        let normal = tri.normal().normalize();
        let mut state = 0x9e37_79b9_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32
        };
        for _ in 0..2000 {
            let (a, b, lift) = (next(), next(), (next() - 0.5) * 4.0);
            for corner in 0..3 {
                // Beyond a corner, away from both of its edges: that corner exactly.
                let here = corners[corner];
                let [p, q] = [corners[(corner + 1) % 3], corners[(corner + 2) % 3]];
                let away = ((here - p).normalize() + (here - q).normalize()) * (0.1 + a * 3.0);
                let found = tri.closest_point(here + away + normal * lift);
                let weights = [1.0 - found.u - found.v, found.u, found.v];
                for (i, w) in weights.into_iter().enumerate() {
                    assert_eq!(w, if i == corner { 1.0 } else { 0.0 }, "{found:?}");
                }
                assert_eq!(found.point, here);

                // Beside the edge from `here` to `p`, within its span: the opposite weight
                // is exactly zero, and the point is on the edge.
                let along = here + (p - here) * (0.02 + b * 0.96);
                let out = (p - here).cross(normal).normalize();
                let out = if out.dot(q - here) > 0.0 { -out } else { out };
                let found = tri.closest_point(along + out * (a * 2.0) + normal * lift);
                let weights = [1.0 - found.u - found.v, found.u, found.v];
                let opposite = (corner + 2) % 3;
                assert_eq!(weights[opposite], 0.0, "{found:?}");
                assert!(weights.iter().all(|&w| (0.0..=1.0).contains(&w)));
                assert!(found.point.distance(along) < 1e-5 + a * 1e-5, "{found:?}");
            }
        }
    }

    #[test]
    fn edge_v1_v2_weights_sum_to_one_and_keep_the_point() {
        let tri = Triangle::new(
            Vec3::ZERO,
            Vec3::new(4.0, 0.0, 0.0),
            Vec3::new(0.0, 4.0, 0.0),
        );
        // Past the hypotenuse: s = 0.3 is not a multiple of 2^-24, so 1 - (1 - s) != s.
        for s in [0.3_f32, 0.7, 1.0 / 3.0, 1e-6, 0.5] {
            let on = tri.v1 + (tri.v2 - tri.v1) * s;
            let found = tri.closest_point(on + Vec3::new(1.0, 1.0, 0.5));
            assert_eq!(found.u + found.v, 1.0);
            assert_eq!(1.0 - found.u - found.v, 0.0);
            assert!((found.v - s).abs() < 1e-6, "{s}: {found:?}");
            assert!(found.point.distance(on) < 1e-5, "{s}: {found:?}");
        }
    }

    #[test]
    fn degenerate_triangles_use_their_edges() {
        let line = Triangle::new(
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
        );
        let closest = line.closest_point(Vec3::new(1.5, 1.0, 0.0));
        assert_eq!(closest.point, Vec3::new(1.5, 0.0, 0.0));
        let point = Triangle::new(Vec3::ONE, Vec3::ONE, Vec3::ONE);
        assert_eq!(point.closest_point(Vec3::ZERO).point, Vec3::ONE);
        assert_eq!(point.distance_squared(Vec3::ZERO), 3.0);
    }

    #[test]
    fn box_distance_never_exceeds_a_distance_to_a_point_inside() {
        let bounds = Aabb::new(Vec3::new(-1.0, 0.1, 3.0), Vec3::new(0.3, 0.7, 3.3));
        let p = Vec3::new(7.0, -3.0, 1.0);
        let floor = box_distance_squared(p, &bounds);
        for i in 0..8 {
            let corner = Vec3::select(
                glam::BVec3::new(i & 1 == 0, i & 2 == 0, i & 4 == 0),
                bounds.min,
                bounds.max,
            );
            assert!(floor <= distance_squared(corner, p));
        }
        assert_eq!(box_distance_squared(p, &Aabb::EMPTY), f32::INFINITY);
    }
}
