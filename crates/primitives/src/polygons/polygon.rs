//! The planar polygon (convex or concave, either winding) and its ray test: the ray meets the
//! polygon's plane, then the crossing number decides whether the point is inside.

use glam::Vec3;

use super::plane::newell_normal;
use crate::error::Error;
use crate::polygons::{triangulate, Plane};
use crate::rays::{Aabb, Ray};
use crate::triangles::{Hit, Triangle};

/// How far a vertex may lie from a polygon's plane, as a fraction of the diagonal of the
/// polygon's bounding box, for [`Polygon::new`] to accept it.
pub const PLANARITY_TOLERANCE: f32 = 1e-4;

/// A planar polygon of three or more vertices, convex or concave, wound either way, without
/// holes (its edges should not cross; a self-intersecting polygon is tested by the even-odd
/// rule).
///
/// Its normal is the Newell normal (Newell, 1972, as in Sutherland, Sproull, Schumacker, *A
/// Characterization of Ten Hidden-Surface Algorithms*, 1974): the sum of the normals of the
/// fan triangles `(v0, vi, vi+1)`, so it follows the winding by the right-hand rule and its
/// length is twice the area. The ray test projects along the normal's dominant axis, where
/// the polygon has the largest area.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Polygon, Ray};
///
/// // An L in the plane z = 0: the notch at x, y > 1 is outside.
/// let l = Polygon::new([
///     Vec3::new(0.0, 0.0, 0.0),
///     Vec3::new(2.0, 0.0, 0.0),
///     Vec3::new(2.0, 1.0, 0.0),
///     Vec3::new(1.0, 1.0, 0.0),
///     Vec3::new(1.0, 2.0, 0.0),
///     Vec3::new(0.0, 2.0, 0.0),
/// ])?;
/// assert_eq!(l.area(), 3.0);
/// let down = |x, y| Ray::new(Vec3::new(x, y, 1.0), Vec3::NEG_Z);
/// assert!(l.intersect(&down(1.5, 1.5)).is_none());
/// let hit = l.intersect(&down(0.5, 1.5)).ok_or("miss")?;
/// assert_eq!(hit.t, 1.0);
/// // The hit lies in fan triangle (v0, v4, v5); u, v are its barycentrics there.
/// assert_eq!(hit.triangle, 3);
/// let fan = l.fan_triangle(hit.triangle).ok_or("no such triangle")?;
/// assert!(hit.point(&fan).distance(Vec3::new(0.5, 1.5, 0.0)) < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    vertices: Vec<Vec3>,
    /// The Newell normal.
    normal: Vec3,
    /// Through `vertices[0]`, with the normal scaled so that its dominant component is
    /// exactly ±1: for a polygon in a plane `x`, `y` or `z` = constant, every polygon of that
    /// plane then computes the same `t` for a ray, so a ray through their shared edge is
    /// decided on the same point.
    plane: Plane,
    /// The two axes of the projection, in cyclic order after the dominant one.
    axes: [usize; 2],
}

impl Polygon {
    /// The polygon with these vertices, in order.
    ///
    /// # Errors
    /// - [`Error::TooFewVertices`] for fewer than three vertices;
    /// - [`Error::NonFinite`] for a vertex with a NaN or infinite coordinate;
    /// - [`Error::ZeroArea`] when the vertices enclose no area (all collinear or repeated);
    /// - [`Error::NonPlanar`] when a vertex lies farther from the polygon's plane (through the
    ///   vertices' mean, along the Newell normal) than [`PLANARITY_TOLERANCE`] times the
    ///   diagonal of the polygon's bounding box.
    pub fn new(vertices: impl Into<Vec<Vec3>>) -> Result<Self, Error> {
        let vertices = vertices.into();
        if vertices.len() < 3 {
            return Err(Error::TooFewVertices {
                count: vertices.len(),
            });
        }
        if let Some((vertex, &value)) = vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::NonFinite { vertex, value });
        }
        let normal = newell_normal(&vertices);
        let largest = normal.abs().max_element();
        if !largest.is_finite() || largest == 0.0 {
            return Err(Error::ZeroArea);
        }

        // Planarity, relative to the polygon's size.
        let unit = (normal / largest).normalize();
        let bounds = Aabb::from_points(vertices.iter().copied());
        let tolerance = PLANARITY_TOLERANCE * bounds.extent().length();
        // Relative to the first vertex, which keeps the precision far from the world origin.
        let v0 = vertices[0];
        let mean = vertices.iter().map(|v| *v - v0).sum::<Vec3>() / vertices.len() as f32;
        let (vertex, distance) = vertices
            .iter()
            .map(|v| unit.dot(*v - v0 - mean).abs())
            .enumerate()
            .fold(
                (0, 0.0f32),
                |far, (i, d)| if d > far.1 { (i, d) } else { far },
            );
        if distance > tolerance {
            return Err(Error::NonPlanar {
                vertex,
                distance,
                tolerance,
            });
        }

        let k = normal.abs().max_position();
        Ok(Self {
            plane: Plane::new(vertices[0], normal / normal[k].abs()),
            axes: [(k + 1) % 3, (k + 2) % 3],
            normal,
            vertices,
        })
    }

    /// The vertices, in order.
    #[inline]
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The Newell normal: by the right-hand rule from the winding, twice the area long.
    #[inline]
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// The area.
    #[inline]
    pub fn area(&self) -> f32 {
        0.5 * self.normal.length()
    }

    /// The plane the ray test uses: through the first vertex, normal along
    /// [`Polygon::normal`].
    #[inline]
    pub fn plane(&self) -> Plane {
        self.plane
    }

    /// The bounding box.
    #[inline]
    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(self.vertices.iter().copied())
    }

    /// The fan triangle `(v0, v[index + 1], v[index + 2])`, the one a [`Hit`] with
    /// `triangle == index` refers to; `None` past the last (`index >= n - 2`).
    #[inline]
    pub fn fan_triangle(&self, index: u32) -> Option<Triangle> {
        let i = usize::try_from(index).ok()?;
        match self.vertices.get(i.checked_add(1)?..i.checked_add(3)?)? {
            &[b, c] => Some(Triangle::new(self.vertices[0], b, c)),
            _ => None,
        }
    }

    /// An ear-clipping triangulation: see [`triangulate`].
    pub fn triangulate(&self) -> Vec<[u32; 3]> {
        triangulate(&self.vertices)
    }

    /// Whether `point`, projected along the polygon's dominant axis, lies inside the
    /// projected polygon (its distance from the plane is not checked).
    ///
    /// The crossing number (even-odd rule) with a half-open rule on the boundary: a point on
    /// an edge or vertex counts as if moved by an infinitesimal step along both projection
    /// axes (in the cyclic order after the dominant axis: `y` and `z` for a dominant `x`,
    /// `z` and `x` for `y`, `x` and `y` for `z`). So among polygons that share edges and tile
    /// a region of the same projection, every point of the region belongs to exactly one.
    /// For a polygon in the plane `z = c`, points on its edges of smallest `x` or `y` are
    /// inside, those on its edges of largest `x` or `y` outside.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::Polygon;
    ///
    /// let square = Polygon::new([Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y])?;
    /// assert!(square.contains(Vec3::new(0.5, 0.5, 7.0)));
    /// assert!(square.contains(Vec3::new(0.0, 0.5, 0.0)));
    /// assert!(!square.contains(Vec3::new(1.0, 0.5, 0.0)));
    /// # Ok::<(), meshcast_primitives::Error>(())
    /// ```
    #[inline]
    pub fn contains(&self, point: Vec3) -> bool {
        let [ax, ay] = self.axes;
        self.contains_projected(f64::from(point[ax]), f64::from(point[ay]))
    }

    /// The ray test, two-sided: the ray's crossing with the polygon's plane
    /// ([`Plane::intersect`]), then [`Polygon::contains`] on the crossing point.
    ///
    /// The hit's `t` is in units of `ray.dir`; `triangle` is the index `i` of the first fan
    /// triangle `(v0, v[i + 1], v[i + 2])` that contains the point (see
    /// [`Polygon::fan_triangle`]; a BVH over polygons overwrites it with the polygon's index)
    /// and `u`, `v` are the barycentrics there, weighting `v[i + 1]` and `v[i + 2]`. In a
    /// concave polygon fan triangles reach outside it, but one always contains a point inside.
    ///
    /// Misses when the ray is parallel to the plane (in it or not), out of range, or
    /// degenerate ([`Ray::is_valid`]). A ray through an edge shared by two polygons hits
    /// exactly one of them when both compute the same crossing point, which the plane's
    /// representation guarantees for polygons in a common axis-aligned plane; elsewhere the
    /// two crossings may round apart: a watertight mesh should triangulate its faces and use
    /// [`Triangle::intersect_watertight`].
    #[inline]
    pub fn intersect(&self, ray: &Ray) -> Option<Hit> {
        let t = self.plane.intersect(ray)?;
        // The crossing point in f64: `dir * t` is exact there, so the point is as precise far
        // from the world origin as near it, and the same `t` gives the same point.
        let [ax, ay] = self.axes;
        let at =
            |axis: usize| f64::from(ray.origin[axis]) + f64::from(ray.dir[axis]) * f64::from(t);
        let (x, y) = (at(ax), at(ay));
        if !self.contains_projected(x, y) {
            return None;
        }
        let (triangle, u, v) = self.fan_barycentrics(x, y);
        Some(Hit { t, u, v, triangle })
    }

    /// The crossing number of the projected point `(px, py)`, in `f64` so that a point
    /// exactly on an edge is decided exactly in most cases.
    #[inline]
    fn contains_projected(&self, px: f64, py: f64) -> bool {
        let [ax, ay] = self.axes;
        let mut inside = false;
        let mut prev = self.vertices[self.vertices.len() - 1];
        for &cur in &self.vertices {
            // Count the edges that cross the half-line from the point towards +x; an end on
            // the line counts as below it.
            if (f64::from(prev[ay]) > py) != (f64::from(cur[ay]) > py) {
                // The same order for both polygons that share this edge, so both compute the
                // same sign.
                let (lo, hi) = if prev[ay] < cur[ay] {
                    (prev, cur)
                } else {
                    (cur, prev)
                };
                let (lx, ly) = (f64::from(lo[ax]), f64::from(lo[ay]));
                let (hx, hy) = (f64::from(hi[ax]), f64::from(hi[ay]));
                // Left of the upward edge, i.e. strictly before its crossing with the line.
                if (hx - lx) * (py - ly) - (hy - ly) * (px - lx) > 0.0 {
                    inside = !inside;
                }
            }
            prev = cur;
        }
        inside
    }

    /// The first fan triangle containing the projected point, and the point's barycentrics
    /// there; if rounding leaves it in none, the nearest one, with barycentrics clamped to it.
    #[inline]
    fn fan_barycentrics(&self, px: f64, py: f64) -> (u32, f32, f32) {
        let [ax, ay] = self.axes;
        let project = |v: Vec3| (f64::from(v[ax]), f64::from(v[ay]));
        let (x0, y0) = project(self.vertices[0]);
        let (px, py) = (px - x0, py - y0);
        let mut best = (0, 0.0, 0.0, f64::NEG_INFINITY);
        for (i, pair) in self.vertices[1..].windows(2).enumerate() {
            let (bx, by) = project(pair[0]);
            let (cx, cy) = project(pair[1]);
            let (bx, by, cx, cy) = (bx - x0, by - y0, cx - x0, cy - y0);
            let det = bx * cy - by * cx;
            if det == 0.0 {
                continue;
            }
            let u = (px * cy - py * cx) / det;
            let v = (bx * py - by * px) / det;
            let least = u.min(v).min(1.0 - u - v);
            if least >= 0.0 {
                return (i as u32, u as f32, v as f32);
            }
            if least > best.3 {
                best = (i as u32, u, v, least);
            }
        }
        let (i, u, v, _) = best;
        let (u, v) = (u.max(0.0), v.max(0.0));
        let sum = (u + v).max(1.0);
        (i, (u / sum) as f32, (v / sum) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(z: f32) -> [Vec3; 4] {
        [
            Vec3::new(0.0, 0.0, z),
            Vec3::new(1.0, 0.0, z),
            Vec3::new(1.0, 1.0, z),
            Vec3::new(0.0, 1.0, z),
        ]
    }

    #[test]
    fn construction_errors_name_the_problem() {
        assert_eq!(
            Polygon::new(vec![Vec3::ZERO; 2]),
            Err(Error::TooFewVertices { count: 2 })
        );
        let mut bad = square(0.0);
        bad[2].y = f32::NAN;
        assert!(matches!(
            Polygon::new(bad),
            Err(Error::NonFinite { vertex: 2, .. })
        ));
        let collinear = [Vec3::ZERO, Vec3::X, Vec3::new(2.0, 0.0, 0.0), Vec3::X];
        assert_eq!(Polygon::new(collinear), Err(Error::ZeroArea));
        let mut bent = square(0.0);
        bent[3].z = 0.01;
        match Polygon::new(bent) {
            Err(Error::NonPlanar {
                distance,
                tolerance,
                ..
            }) => assert!(distance > tolerance),
            other => panic!("expected NonPlanar, got {other:?}"),
        }
    }

    #[test]
    fn planarity_tolerance_scales_with_size() {
        // The same relative bend is accepted at every scale.
        for scale in [1e-3f32, 1.0, 1e4] {
            let mut quad = square(0.0).map(|v| v * scale);
            quad[3].z = 2e-5 * scale;
            assert!(Polygon::new(quad).is_ok(), "scale {scale}");
            quad[3].z = 2e-3 * scale;
            assert!(Polygon::new(quad).is_err(), "scale {scale}");
        }
    }

    #[test]
    fn normal_area_and_orientation() {
        let ccw = Polygon::new(square(2.0)).expect("valid");
        assert_eq!(ccw.normal(), Vec3::new(0.0, 0.0, 2.0));
        assert_eq!(ccw.area(), 1.0);
        let mut reversed = square(2.0);
        reversed.reverse();
        let cw = Polygon::new(reversed).expect("valid");
        assert_eq!(cw.normal(), Vec3::new(0.0, 0.0, -2.0));
        assert_eq!(ccw.plane().normal, Vec3::Z);
    }

    #[test]
    fn every_orientation_hits_with_a_point_on_its_fan_triangle() {
        let quad = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let rotations = [
            glam::Quat::IDENTITY,
            glam::Quat::from_rotation_x(1.2),
            glam::Quat::from_rotation_y(-0.4),
            glam::Quat::from_rotation_x(core::f32::consts::FRAC_PI_2),
            glam::Quat::from_rotation_y(core::f32::consts::FRAC_PI_2),
            glam::Quat::from_axis_angle(Vec3::ONE.normalize(), 2.0),
        ];
        for rotation in rotations {
            let moved = quad.map(|v| rotation * v + Vec3::new(3.0, -1.0, 0.5));
            let polygon = Polygon::new(moved).expect("valid");
            let normal = polygon.normal().normalize();
            for (x, y, inside) in [(0.5, 0.5, true), (1.5, 0.25, true), (2.5, 0.5, false)] {
                let target = rotation * Vec3::new(x, y, 0.0) + Vec3::new(3.0, -1.0, 0.5);
                let ray = Ray::new(
                    target + normal * 2.0 + Vec3::X * 0.1,
                    -normal * 2.0 - Vec3::X * 0.1,
                );
                let hit = polygon.intersect(&ray);
                assert_eq!(hit.is_some(), inside, "{rotation} {x} {y}");
                if let Some(hit) = hit {
                    assert!((hit.t - 1.0).abs() < 1e-5);
                    let fan = polygon.fan_triangle(hit.triangle).expect("fan index");
                    assert!(hit.point(&fan).distance(ray.at(hit.t)) < 1e-5);
                    assert!(hit.u >= 0.0 && hit.v >= 0.0 && hit.u + hit.v <= 1.0);
                }
            }
        }
    }

    #[test]
    fn parallel_degenerate_and_out_of_range_rays_miss() {
        let polygon = Polygon::new(square(0.0)).expect("valid");
        let rays = [
            Ray::new(Vec3::new(0.5, 0.5, 0.0), Vec3::X),
            Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::X),
            Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::Z),
            Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::NEG_Z).with_range(0.0, 0.5),
            Ray::new(Vec3::new(0.5, f32::NAN, 1.0), Vec3::NEG_Z),
            Ray::new(Vec3::new(0.5, 0.5, 1.0), Vec3::ZERO),
            Ray::new(
                Vec3::new(0.5, 0.5, 1.0),
                Vec3::new(0.0, 0.0, f32::NEG_INFINITY),
            ),
        ];
        for ray in rays {
            assert_eq!(polygon.intersect(&ray), None, "{ray:?}");
        }
    }

    #[test]
    fn fan_triangles_are_numbered_from_zero() {
        let polygon = Polygon::new(square(0.0)).expect("valid");
        assert_eq!(
            polygon.fan_triangle(1),
            Some(Triangle::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0), Vec3::Y))
        );
        assert_eq!(polygon.fan_triangle(2), None);
        assert_eq!(polygon.fan_triangle(u32::MAX), None);
    }
}
