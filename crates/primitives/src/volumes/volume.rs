//! Selection volumes (box, sphere, frustum) and their exact triangle tests: the
//! triangle–box test of Akenine-Möller (2001), the triangle–sphere test by the closest
//! point, and the frustum's own ([`Frustum::intersects_triangle`]); and how a volume relates
//! to a node box ([`Overlap`]).

use glam::Vec3;

use crate::rays::Aabb;
use crate::triangles::{box_distance_squared, distance_squared, Triangle};
use crate::volumes::{Frustum, Sphere};

/// How a box lies relative to a volume, as a hierarchy's volume traversal needs it.
///
/// [`Volume::classify_box`] is conservative and consistent with the exact triangle tests:
/// `Outside` means no triangle inside the box can pass [`Volume::intersects_triangle`], and
/// `Inside` means every triangle inside the box passes [`Volume::contains_triangle`] (and
/// so `intersects_triangle`); `Crossing` promises nothing.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Aabb, Overlap, Sphere, Volume};
///
/// let ball = Volume::Sphere(Sphere::new(Vec3::ZERO, 2.0));
/// let unit = |at: Vec3| Aabb::new(at, at + Vec3::ONE);
/// assert_eq!(ball.classify_box(&unit(Vec3::ZERO)), Overlap::Inside);
/// assert_eq!(ball.classify_box(&unit(Vec3::splat(1.0))), Overlap::Crossing);
/// assert_eq!(ball.classify_box(&unit(Vec3::splat(5.0))), Overlap::Outside);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    /// The box and the volume share no point.
    Outside,
    /// The box may be partly inside.
    Crossing,
    /// The whole box is inside the volume.
    Inside,
}

/// A closed region to select with: an axis-aligned box, a sphere (a ball: its inside
/// counts) or a [`Frustum`] (such as a marquee's, [`crate::Viewport::marquee`]).
///
/// Each volume answers the same exact questions for a triangle: does it share a point with
/// the volume ([`Volume::intersects_triangle`]), and does it lie entirely inside
/// ([`Volume::contains_triangle`], all three corners inside, which for a convex volume is
/// the whole triangle). Touching counts as intersecting. A volume with a non-finite or
/// negative size contains nothing; a sphere of radius 0 is a point.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Aabb, Triangle, Volume};
///
/// let region = Volume::Box(Aabb::new(Vec3::ZERO, Vec3::ONE));
/// // A large triangle whose corners are all outside, crossing the box.
/// let big = Triangle::new(Vec3::new(-5.0, 0.5, -5.0), Vec3::new(5.0, 0.5, -5.0), Vec3::new(0.0, 0.5, 5.0));
/// assert!(region.intersects_triangle(&big));
/// assert!(!region.contains_triangle(&big));
/// let small = Triangle::new(Vec3::splat(0.1), Vec3::splat(0.2), Vec3::new(0.3, 0.1, 0.1));
/// assert!(region.contains_triangle(&small));
/// ```
// A volume is made once per query and passed by reference: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Volume {
    /// An axis-aligned box.
    Box(Aabb),
    /// A ball.
    Sphere(Sphere),
    /// A frustum.
    Frustum(Frustum),
}

impl Volume {
    /// Whether `point` lies in the volume (boundary included).
    #[inline]
    pub fn contains_point(&self, point: Vec3) -> bool {
        match self {
            Self::Box(b) => b.contains(point),
            Self::Sphere(s) => sphere_is_valid(s) && sphere_contains(s, point),
            Self::Frustum(f) => f.contains_point(point),
        }
    }

    /// Whether the triangle shares a point with the volume. Exact up to rounding; a
    /// triangle with a corner inside always intersects, and a non-finite one never does.
    pub fn intersects_triangle(&self, triangle: &Triangle) -> bool {
        match self {
            Self::Box(b) => triangle_intersects_box(triangle, b),
            Self::Sphere(s) => {
                let corners = triangle.vertices();
                sphere_is_valid(s)
                    && corners.iter().all(|c| c.is_finite())
                    && (corners.iter().any(|&c| sphere_contains(s, c))
                        || sphere_contains(s, triangle.closest_point(s.center).point))
            }
            Self::Frustum(f) => f.intersects_triangle(triangle),
        }
    }

    /// Whether the whole triangle lies in the volume (its three corners do).
    #[inline]
    pub fn contains_triangle(&self, triangle: &Triangle) -> bool {
        triangle
            .vertices()
            .iter()
            .all(|&corner| self.contains_point(corner))
    }

    /// How `bounds` lies relative to the volume (see [`Overlap`] for what each answer
    /// promises). An empty box is `Outside`.
    pub fn classify_box(&self, bounds: &Aabb) -> Overlap {
        if bounds.is_empty() {
            return Overlap::Outside;
        }
        match self {
            Self::Box(b) => {
                if b.is_empty() || !boxes_overlap(b, bounds) {
                    Overlap::Outside
                } else if b.contains_box(bounds) {
                    Overlap::Inside
                } else {
                    Overlap::Crossing
                }
            }
            Self::Sphere(s) => {
                let r2 = s.radius * s.radius;
                let gap = box_distance_squared(s.center, bounds);
                if !sphere_is_valid(s) || gap.is_nan() || gap > r2 {
                    Overlap::Outside
                } else if farthest_distance_squared(s.center, bounds) <= r2 {
                    Overlap::Inside
                } else {
                    Overlap::Crossing
                }
            }
            Self::Frustum(f) => {
                if f.separates_box(bounds) {
                    Overlap::Outside
                } else if f.contains_box(bounds) {
                    Overlap::Inside
                } else {
                    Overlap::Crossing
                }
            }
        }
    }

    /// A box around the volume (unbounded frusta give infinite sides).
    pub fn bounds(&self) -> Aabb {
        match self {
            Self::Box(b) => *b,
            Self::Sphere(s) => Aabb::new(s.center - s.radius, s.center + s.radius),
            Self::Frustum(f) => {
                let near = Aabb::from_points(f.near_corners());
                match f.far_corners() {
                    Some(far) => near.union(Aabb::from_points(far)),
                    None => Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY),
                }
            }
        }
    }
}

/// Whether the sphere can contain anything: finite centre, radius finite and not negative.
#[inline]
fn sphere_is_valid(sphere: &Sphere) -> bool {
    sphere.center.is_finite() && sphere.radius.is_finite() && sphere.radius >= 0.0
}

#[inline]
fn sphere_contains(sphere: &Sphere, point: Vec3) -> bool {
    distance_squared(point, sphere.center) <= sphere.radius * sphere.radius
}

/// The squared distance from `point` to the box's farthest corner, computed from the same
/// differences as [`distance_squared`], so that no point of the box is computed farther.
#[inline]
fn farthest_distance_squared(point: Vec3, bounds: &Aabb) -> f32 {
    let low = (bounds.min - point).abs();
    let high = (bounds.max - point).abs();
    let d = low.max(high);
    d.x * d.x + d.y * d.y + d.z * d.z
}

#[inline]
fn boxes_overlap(a: &Aabb, b: &Aabb) -> bool {
    a.min.cmple(b.max).all() && b.min.cmple(a.max).all()
}

/// The triangle–box overlap test of Akenine-Möller (*Fast 3D Triangle-Box Overlap
/// Testing*, 2001): the separating axis theorem with the box's three face normals (the
/// boxes of the two), the triangle's normal and the nine cross products of the box's axes
/// with the triangle's edges. A corner inside the box is an immediate yes (so that a box
/// inside the query box proves its triangles overlap, rounding or not).
pub(crate) fn triangle_intersects_box(triangle: &Triangle, bounds: &Aabb) -> bool {
    if bounds.is_empty() || !bounds.is_finite() {
        return false;
    }
    let corners = triangle.vertices();
    if !corners.iter().all(|c| c.is_finite()) {
        return false;
    }
    if corners.iter().any(|&c| bounds.contains(c)) {
        return true;
    }
    // The box's face normals: the triangle's box against the box, exactly.
    if !boxes_overlap(&triangle.bounds(), bounds) {
        return false;
    }
    let centre = bounds.centroid();
    let half = bounds.max - centre;
    let v = corners.map(|c| c - centre);
    let separates = |axis: Vec3| {
        let p = v.map(|c| axis.dot(c));
        let radius = half.dot(axis.abs());
        p[0].min(p[1]).min(p[2]) > radius || p[0].max(p[1]).max(p[2]) < -radius
    };
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    for edge in edges {
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            if separates(axis.cross(edge)) {
                return false;
            }
        }
    }
    !separates(edges[0].cross(edges[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_test_needs_every_axis() {
        let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
        // Separated only by the triangle's plane: it passes diagonally by a corner.
        let by_corner = Triangle::new(
            Vec3::new(2.1, 2.1, -1.0),
            Vec3::new(2.1, -1.0, 2.1),
            Vec3::new(-1.0, 2.1, 2.1),
        );
        assert!(!triangle_intersects_box(&by_corner, &unit));
        // Moved closer it cuts the corner off.
        let cutting = Triangle::new(
            Vec3::new(1.9, 1.9, -1.0),
            Vec3::new(1.9, -1.0, 1.9),
            Vec3::new(-1.0, 1.9, 1.9),
        );
        assert!(triangle_intersects_box(&cutting, &unit));
        // Separated only by an edge-cross axis: a sliver past an edge of the box.
        let sliver = Triangle::new(
            Vec3::new(3.1, 0.5, -1.0),
            Vec3::new(-1.0, 0.5, 3.1),
            Vec3::new(3.2, 0.5, -1.0),
        );
        assert!(!triangle_intersects_box(&sliver, &unit));
        let on_face = Triangle::new(
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(1.0, 3.0, -1.0),
            Vec3::new(1.0, -1.0, 3.0),
        );
        assert!(
            triangle_intersects_box(&on_face, &unit),
            "touching a face counts"
        );
    }

    #[test]
    fn sphere_tests_use_the_closest_point() {
        let ball = Volume::Sphere(Sphere::new(Vec3::new(0.0, 0.0, 1.0), 1.0));
        let big = Triangle::new(
            Vec3::new(-5.0, -5.0, 0.0),
            Vec3::new(5.0, -5.0, 0.0),
            Vec3::new(0.0, 5.0, 0.0),
        );
        assert!(ball.intersects_triangle(&big), "tangent to the plane");
        let below = Triangle::new(
            big.v0 - Vec3::Z * 0.01,
            big.v1 - Vec3::Z * 0.01,
            big.v2 - Vec3::Z * 0.01,
        );
        assert!(!ball.intersects_triangle(&below));
        let point = Volume::Sphere(Sphere::new(Vec3::new(0.0, 0.0, 0.0), 0.0));
        assert!(point.intersects_triangle(&big));
        let invalid = Volume::Sphere(Sphere::new(Vec3::ZERO, -1.0));
        assert!(!invalid.intersects_triangle(&big));
        assert_eq!(invalid.classify_box(&big.bounds()), Overlap::Outside);
    }

    #[test]
    fn inside_boxes_prove_their_triangles() {
        let volumes = [
            Volume::Box(Aabb::new(Vec3::splat(-1.0), Vec3::splat(2.0))),
            Volume::Sphere(Sphere::new(Vec3::splat(0.3), 2.0)),
        ];
        let node = Aabb::new(Vec3::splat(-0.5), Vec3::splat(1.0));
        let tri = Triangle::new(node.min, node.max, Vec3::new(1.0, -0.5, 0.2));
        for volume in volumes {
            assert_eq!(volume.classify_box(&node), Overlap::Inside);
            assert!(volume.contains_triangle(&tri) && volume.intersects_triangle(&tri));
        }
    }
}
