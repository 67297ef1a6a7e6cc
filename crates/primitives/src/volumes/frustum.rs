//! The frustum: a convex volume with six (or, with no far face, five) planar faces, such as
//! the part of a camera's view behind a marquee rectangle; and its exact triangle test.

use glam::Vec3;

use crate::rays::Aabb;
use crate::triangles::Triangle;

/// How far the frustum reaches: to four far corners, or without end along four directions
/// (a perspective projection with an infinite far plane).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Far {
    Corners([Vec3; 4]),
    Directions([Vec3; 4]),
}

/// A face plane: the points `p` with `normal · p <= offset` are on the inner side.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FacePlane {
    normal: Vec3,
    offset: f32,
}

impl FacePlane {
    #[inline]
    fn distance(&self, p: Vec3) -> f32 {
        let n = self.normal;
        n.x * p.x + n.y * p.y + n.z * p.z - self.offset
    }
}

/// The most planes and edge directions a frustum has.
const MAX_PLANES: usize = 6;
const MAX_EDGE_DIRECTIONS: usize = 12;

/// A convex volume bounded by a near quadrilateral, four side faces and a far quadrilateral
/// (or, when unbounded, nothing beyond: the sides run on without end), closed: points on a
/// face are inside.
///
/// Build one from a camera with [`crate::Viewport::marquee`], or from its corners. Corners
/// are given in the same cyclic order for the near and far faces (the far corner `i` is
/// joined to the near corner `i` by a side edge). The faces must be planar and the volume
/// convex, as a frustum or a transformed box is.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Frustum, Triangle};
///
/// // A unit cube as a frustum.
/// let near = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
/// let far = near.map(|c| c + Vec3::Z);
/// let cube = Frustum::from_corners(near, far).ok_or("degenerate")?;
/// assert!(cube.contains_point(Vec3::splat(0.5)));
/// let crossing = Triangle::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::new(2.0, 0.5, 0.5), Vec3::new(0.5, 3.0, 0.5));
/// assert!(cube.intersects_triangle(&crossing));
/// let beside = Triangle::new(Vec3::new(2.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 0.0));
/// assert!(!cube.intersects_triangle(&beside));
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    near: [Vec3; 4],
    far: Far,
    planes: [FacePlane; MAX_PLANES],
    plane_count: usize,
    edges: [Vec3; MAX_EDGE_DIRECTIONS],
    edge_count: usize,
}

impl Frustum {
    /// The frustum with these near and far corners (in matching cyclic order), or `None`
    /// when a corner is not finite or a face has no area.
    pub fn from_corners(near: [Vec3; 4], far: [Vec3; 4]) -> Option<Self> {
        Self::build(near, Far::Corners(far))
    }

    /// The unbounded frustum whose side edges start at the near corners and run on along
    /// `directions` (as under a perspective projection with no far plane), or `None` when an
    /// input is not finite, a direction is zero or a face has no area.
    pub fn unbounded(near: [Vec3; 4], directions: [Vec3; 4]) -> Option<Self> {
        if directions.contains(&Vec3::ZERO) {
            return None;
        }
        Self::build(near, Far::Directions(directions))
    }

    fn build(near: [Vec3; 4], far: Far) -> Option<Self> {
        let (far_points, directions) = match far {
            Far::Corners(c) => (c, None),
            Far::Directions(d) => (near, Some(d)),
        };
        let all_finite = near.iter().chain(&far_points).all(|p| p.is_finite())
            && directions.is_none_or(|d| d.iter().all(|v| v.is_finite()));
        if !all_finite {
            return None;
        }
        // A point strictly inside, to orient each face outwards.
        let near_centre = near.iter().copied().sum::<Vec3>() * 0.25;
        let inside = match directions {
            None => (near_centre + far_points.iter().copied().sum::<Vec3>() * 0.25) * 0.5,
            Some(d) => {
                let size = near
                    .iter()
                    .map(|c| c.distance(near_centre))
                    .fold(0.0, f32::max);
                let mean = d.iter().map(|v| v.normalize_or_zero()).sum::<Vec3>() * 0.25;
                near_centre + mean * size.max(f32::MIN_POSITIVE)
            }
        };
        let mut planes = [FacePlane {
            normal: Vec3::ZERO,
            offset: 0.0,
        }; MAX_PLANES];
        let mut plane_count = 0;
        let mut add_plane = |normal: Vec3, on_face: Vec3| -> Option<()> {
            let normal = normal.normalize_or_zero();
            if normal == Vec3::ZERO || !normal.is_finite() {
                return None;
            }
            let mut plane = FacePlane {
                normal,
                offset: normal.dot(on_face),
            };
            if plane.distance(inside) > 0.0 {
                plane = FacePlane {
                    normal: -normal,
                    offset: -plane.offset,
                };
            }
            planes[plane_count] = plane;
            plane_count += 1;
            Some(())
        };
        // Near face, then the far face, from their diagonals.
        add_plane((near[2] - near[0]).cross(near[3] - near[1]), near_centre)?;
        if directions.is_none() {
            let f = far_points;
            let far_centre = f.iter().copied().sum::<Vec3>() * 0.25;
            add_plane((f[2] - f[0]).cross(f[3] - f[1]), far_centre)?;
        }
        // Side faces.
        for i in 0..4 {
            let j = (i + 1) % 4;
            let (a, b) = (near[i], near[j]);
            let normal = match directions {
                None => (far_points[j] - a).cross(far_points[i] - b),
                Some(d) => (b - a).cross(d[i].normalize_or_zero() + d[j].normalize_or_zero()),
            };
            let on_face = match directions {
                None => (a + b + far_points[i] + far_points[j]) * 0.25,
                Some(_) => (a + b) * 0.5,
            };
            add_plane(normal, on_face)?;
        }
        // Edge directions for the separating axis test, parallel ones once.
        let mut edges = [Vec3::ZERO; MAX_EDGE_DIRECTIONS];
        let mut edge_count = 0;
        let mut add_edge = |edge: Vec3| {
            let edge = edge.normalize_or_zero();
            let parallel = edges[..edge_count]
                .iter()
                .any(|e: &Vec3| e.cross(edge).length_squared() <= 1e-12);
            if edge != Vec3::ZERO && !parallel {
                edges[edge_count] = edge;
                edge_count += 1;
            }
        };
        for i in 0..4 {
            let j = (i + 1) % 4;
            add_edge(near[j] - near[i]);
            match directions {
                None => {
                    add_edge(far_points[j] - far_points[i]);
                    add_edge(far_points[i] - near[i]);
                }
                Some(d) => add_edge(d[i]),
            }
        }
        Some(Self {
            near,
            far,
            planes,
            plane_count,
            edges,
            edge_count,
        })
    }

    /// The near corners, in the order given.
    pub fn near_corners(&self) -> [Vec3; 4] {
        self.near
    }

    /// The far corners, or `None` for an unbounded frustum.
    pub fn far_corners(&self) -> Option<[Vec3; 4]> {
        match self.far {
            Far::Corners(c) => Some(c),
            Far::Directions(_) => None,
        }
    }

    /// Whether the frustum runs on without a far face.
    pub fn is_unbounded(&self) -> bool {
        matches!(self.far, Far::Directions(_))
    }

    fn planes(&self) -> &[FacePlane] {
        &self.planes[..self.plane_count]
    }

    /// Whether `point` lies inside or on the frustum (every face plane has it on its inner
    /// side or on it).
    #[inline]
    pub fn contains_point(&self, point: Vec3) -> bool {
        self.planes()
            .iter()
            .all(|plane| plane.distance(point) <= 0.0)
    }

    /// The interval that the frustum covers along `axis` (unbounded ends are infinite).
    fn project(&self, axis: Vec3) -> (f32, f32) {
        let mut low = f32::INFINITY;
        let mut high = f32::NEG_INFINITY;
        for c in self.near {
            let d = axis.dot(c);
            low = low.min(d);
            high = high.max(d);
        }
        match self.far {
            Far::Corners(far) => {
                for c in far {
                    let d = axis.dot(c);
                    low = low.min(d);
                    high = high.max(d);
                }
            }
            Far::Directions(directions) => {
                for d in directions {
                    let slope = axis.dot(d);
                    if slope > 0.0 {
                        high = f32::INFINITY;
                    } else if slope < 0.0 {
                        low = f32::NEG_INFINITY;
                    }
                }
            }
        }
        (low, high)
    }

    /// Whether the triangle and the frustum share a point (touching counts).
    ///
    /// Exact up to rounding: a corner inside the frustum is an immediate yes; otherwise the
    /// separating axis theorem with every candidate axis of two convex polyhedra (Gottschalk,
    /// Lin and Manocha, *OBBTree*, 1996; as Akenine-Möller's triangle–box test, 2001): the
    /// coordinate axes, the frustum's face normals, the triangle's normal and the cross
    /// products of the triangle's edges with the frustum's edge directions. Degenerate
    /// triangles (segments, points) are tested as what they are. A triangle with a
    /// non-finite corner never intersects.
    pub fn intersects_triangle(&self, triangle: &Triangle) -> bool {
        let corners = triangle.vertices();
        if !corners.iter().all(|c| c.is_finite()) {
            return false;
        }
        if corners.iter().any(|&c| self.contains_point(c)) {
            return true;
        }
        // The coordinate axes: the boxes of the two.
        let bounds = triangle.bounds();
        for (axis, k) in [(Vec3::X, 0), (Vec3::Y, 1), (Vec3::Z, 2)] {
            let (low, high) = self.project(axis);
            if bounds.max[k] < low || bounds.min[k] > high {
                return false;
            }
        }
        // The face planes: all three corners outside one.
        for plane in self.planes() {
            if corners.iter().all(|&c| plane.distance(c) > 0.0) {
                return false;
            }
        }
        let separates = |axis: Vec3| {
            let (low, high) = self.project(axis);
            let p = corners.map(|c| axis.dot(c));
            let (tri_low, tri_high) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
            tri_high < low || tri_low > high
        };
        if separates(triangle.normal()) {
            return false;
        }
        let triangle_edges = [
            corners[1] - corners[0],
            corners[2] - corners[1],
            corners[0] - corners[2],
        ];
        for edge in &self.edges[..self.edge_count] {
            for triangle_edge in triangle_edges {
                if separates(triangle_edge.cross(*edge)) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether every corner of the triangle lies in the frustum (so the whole triangle does).
    #[inline]
    pub fn contains_triangle(&self, triangle: &Triangle) -> bool {
        triangle.vertices().iter().all(|&c| self.contains_point(c))
    }

    /// Whether the box lies entirely outside one face plane (then it shares no point with
    /// the frustum) or outside the frustum's extent along a coordinate axis. Conservative:
    /// `false` does not prove an overlap.
    pub fn separates_box(&self, bounds: &Aabb) -> bool {
        if bounds.is_empty() {
            return true;
        }
        for k in 0..3 {
            let mut axis = Vec3::ZERO;
            axis[k] = 1.0;
            let (low, high) = self.project(axis);
            if bounds.max[k] < low || bounds.min[k] > high {
                return true;
            }
        }
        // The corner nearest each plane's inner side: if it is outside, all are.
        self.planes().iter().any(|plane| {
            let nearest = Vec3::select(plane.normal.cmpge(Vec3::ZERO), bounds.min, bounds.max);
            plane.distance(nearest) > 0.0
        })
    }

    /// Whether every point of the box lies in the frustum (its farthest corner from each
    /// plane's inner side is inside). An empty box is not contained.
    pub fn contains_box(&self, bounds: &Aabb) -> bool {
        !bounds.is_empty()
            && self.planes().iter().all(|plane| {
                let farthest = Vec3::select(plane.normal.cmpge(Vec3::ZERO), bounds.max, bounds.min);
                plane.distance(farthest) <= 0.0
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pyramid() -> Frustum {
        // An eye at the origin looking down -z, near plane at z = -1, far at z = -10.
        let near = [
            Vec3::new(-1.0, -1.0, -1.0),
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(1.0, 1.0, -1.0),
            Vec3::new(-1.0, 1.0, -1.0),
        ];
        Frustum::from_corners(near, near.map(|c| c * 10.0)).expect("valid")
    }

    #[test]
    fn containment_follows_the_planes() {
        let f = pyramid();
        assert!(f.contains_point(Vec3::new(0.0, 0.0, -5.0)));
        assert!(
            f.contains_point(Vec3::new(5.0, 5.0, -5.0)),
            "on the corner edge"
        );
        assert!(!f.contains_point(Vec3::new(5.1, 0.0, -5.0)));
        assert!(!f.contains_point(Vec3::new(0.0, 0.0, -0.5)));
        assert!(!f.contains_point(Vec3::new(0.0, 0.0, -10.5)));
        assert!(!f.is_unbounded());
    }

    #[test]
    fn edge_edge_separation_is_found() {
        let f = pyramid();
        // A thin triangle passing near the frustum's corner edge, outside it: only an
        // edge-cross axis separates it (its box and every face plane do not).
        let tri = Triangle::new(
            Vec3::new(6.0, 4.5, -5.0),
            Vec3::new(4.5, 6.0, -5.0),
            Vec3::new(6.0, 6.0, -5.0),
        );
        assert!(!f.intersects_triangle(&tri));
        let touching = Triangle::new(
            Vec3::new(6.0, 4.0, -5.0),
            Vec3::new(4.0, 6.0, -5.0),
            Vec3::new(6.0, 6.0, -5.0),
        );
        assert!(f.intersects_triangle(&touching));
    }

    #[test]
    fn unbounded_frustum_reaches_without_end() {
        let near = pyramid().near_corners();
        let f = Frustum::unbounded(near, near).expect("valid");
        assert!(f.is_unbounded());
        assert!(f.contains_point(Vec3::new(0.0, 0.0, -1e20)));
        let far_away = Triangle::new(
            Vec3::new(-1e6, -1e6, -1e7),
            Vec3::new(1e6, -1e6, -1e7),
            Vec3::new(0.0, 1e6, -1e7),
        );
        assert!(f.intersects_triangle(&far_away));
        assert!(!pyramid().intersects_triangle(&far_away));
        assert!(Frustum::unbounded(near, [Vec3::ZERO; 4]).is_none());
    }

    #[test]
    fn boxes_are_classified_conservatively() {
        let f = pyramid();
        let inside = Aabb::new(Vec3::new(-0.5, -0.5, -3.0), Vec3::new(0.5, 0.5, -2.0));
        assert!(f.contains_box(&inside) && !f.separates_box(&inside));
        let outside = Aabb::new(Vec3::new(20.0, 0.0, -3.0), Vec3::new(21.0, 1.0, -2.0));
        assert!(f.separates_box(&outside) && !f.contains_box(&outside));
        let crossing = Aabb::new(Vec3::new(-0.5, -0.5, -3.0), Vec3::new(5.0, 0.5, -2.0));
        assert!(!f.separates_box(&crossing) && !f.contains_box(&crossing));
    }

    #[test]
    fn degenerate_input_is_rejected() {
        let near = pyramid().near_corners();
        assert!(Frustum::from_corners(near, near).is_none(), "flat");
        let mut bad = near;
        bad[0].x = f32::NAN;
        assert!(Frustum::from_corners(bad, near.map(|c| c * 2.0)).is_none());
    }
}
