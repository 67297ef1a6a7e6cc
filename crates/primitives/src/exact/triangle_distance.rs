//! The distance between two triangles and a pair of points that realises it, in `f64`
//! (Ericson, *Real-Time Collision Detection*, 2005, §5.1.5 and §5.1.9), with zero decided by
//! the exact pair test.

use glam::DVec3;

use crate::exact::triangles_intersect;

/// How far apart two triangles are, and where: [`triangles_distance`]'s answer.
///
/// # Examples
/// ```
/// use glam::DVec3;
/// use meshcast_primitives::triangles_distance;
///
/// let floor = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// let above = floor.map(|p| p + DVec3::new(2.0, 0.0, 1.0));
/// let gap = triangles_distance(&floor, &above);
/// assert_eq!((gap.on_a, gap.on_b), (DVec3::X, DVec3::new(2.0, 0.0, 1.0)));
/// assert_eq!(gap.distance, 2f64.sqrt());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleDistance {
    /// The distance: `0.0` exactly when the triangles share a point, otherwise positive.
    pub distance: f64,
    /// The point of the first triangle nearest to the second.
    pub on_a: DVec3,
    /// The point of the second triangle nearest to the first.
    pub on_b: DVec3,
}

/// The smallest distance between the closed triangles `a` and `b`, with a pair of points
/// that realises it.
///
/// Whether they meet is decided exactly ([`triangles_intersect`], run when their boxes
/// overlap): then the distance is `0.0` and both points are one point where they meet,
/// computed (the middle of the nearest pair among the edges' crossings of the other's
/// plane, the edge pairs and the corners over the other's face). Otherwise the nearest of
/// the nine pairs of edges (Ericson's closest points of two segments, §5.1.9) and the six
/// corners projected onto the other triangle's face where they land inside it: two disjoint
/// triangles are nearest either between two edges or between a corner and the other's
/// face. A degenerate triangle (a segment or a point) is its edges. The distance is
/// computed in `f64` from the points, so it is within a few units of rounding of the
/// coordinates of the exact one, and kept positive (at least the smallest positive `f64`)
/// for triangles that do not meet. Non-finite corners give NaN for the distance and the
/// points.
///
/// # Examples
/// ```
/// use glam::DVec3;
/// use meshcast_primitives::triangles_distance;
///
/// let floor = [DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0), DVec3::new(0.0, 2.0, 0.0)];
/// // A corner hanging over the face, one unit up.
/// let hanging = [DVec3::new(0.5, 0.5, 1.0), DVec3::new(0.5, 0.5, 3.0), DVec3::new(1.5, 0.5, 3.0)];
/// let gap = triangles_distance(&floor, &hanging);
/// assert_eq!((gap.distance, gap.on_a), (1.0, DVec3::new(0.5, 0.5, 0.0)));
/// // Lowered through the floor: they meet, at a point of both.
/// let through = hanging.map(|p| p - DVec3::Z * 2.0);
/// let contact = triangles_distance(&floor, &through);
/// assert_eq!(contact.distance, 0.0);
/// assert!(contact.on_a.z.abs() < 1e-12);
/// ```
pub fn triangles_distance(a: &[DVec3; 3], b: &[DVec3; 3]) -> TriangleDistance {
    if !a.iter().chain(b).all(|p| p.is_finite()) {
        return TriangleDistance {
            distance: f64::NAN,
            on_a: DVec3::NAN,
            on_b: DVec3::NAN,
        };
    }
    let (min_a, max_a) = bounds(a);
    let (min_b, max_b) = bounds(b);
    if min_a.cmple(max_b).all() && min_b.cmple(max_a).all() && triangles_intersect(a, b) {
        let point = contact(a, b);
        return TriangleDistance {
            distance: 0.0,
            on_a: point,
            on_b: point,
        };
    }
    let (on_a, on_b) = nearest_features(a, b);
    let distance = on_a.distance(on_b);
    TriangleDistance {
        // Apart, exactly: rounding must not report them touching.
        distance: if distance == 0.0 {
            f64::from_bits(1)
        } else {
            distance
        },
        on_a,
        on_b,
    }
}

fn bounds(t: &[DVec3; 3]) -> (DVec3, DVec3) {
    (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))
}

fn edges(t: &[DVec3; 3]) -> [[DVec3; 2]; 3] {
    [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]]
}

/// The nearest pair among the edge pairs and the corners over the other's face, first
/// found on ties.
fn nearest_features(a: &[DVec3; 3], b: &[DVec3; 3]) -> (DVec3, DVec3) {
    let mut best = (a[0], b[0]);
    let mut best_squared = f64::INFINITY;
    let mut offer = |p: DVec3, q: DVec3| {
        let squared = p.distance_squared(q);
        if squared < best_squared {
            (best, best_squared) = ((p, q), squared);
        }
    };
    for [p, q] in edges(a) {
        for [r, s] in edges(b) {
            let (x, y) = segments_closest(p, q, r, s);
            offer(x, y);
        }
    }
    for &p in a {
        if let Some(q) = over_face(p, b) {
            offer(p, q);
        }
    }
    for &q in b {
        if let Some(p) = over_face(q, a) {
            offer(p, q);
        }
    }
    best
}

/// The closest points of the segments `p1 q1` and `p2 q2` (each perhaps a point): Ericson's
/// `ClosestPtSegmentSegment` (§5.1.9), with exact zero tests for points and parallel
/// segments.
fn segments_closest(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (s, t) = if a == 0.0 && e == 0.0 {
        (0.0, 0.0)
    } else if a == 0.0 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            // Never negative in exact arithmetic; zero (or rounded below) when parallel,
            // where any s will do.
            let denom = a * e - b * b;
            let s = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (p1 + d1 * s, p2 + d2 * t)
}

/// The foot of `p` on the plane of the non-degenerate triangle `t`, when it lands inside
/// the triangle (closed); `None` otherwise or for a degenerate triangle, whose nearest
/// points to `p` lie on its edges.
fn over_face(p: DVec3, t: &[DVec3; 3]) -> Option<DVec3> {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let nn = n.dot(n);
    if nn == 0.0 || !nn.is_finite() {
        return None;
    }
    // The side of each edge, measured for p itself: p and its foot differ along n only.
    let inside = edges(t)
        .iter()
        .all(|&[q, r]| (r - q).cross(p - q).dot(n) >= 0.0);
    inside.then(|| p - n * (n.dot(p - t[0]) / nn))
}

/// The point of the closed triangle `t` nearest to `p`, in `f64`: the foot of `p` on the
/// face when it lands inside, else the nearest point of the three edges (Ericson 2005,
/// §5.1.5 in the form of §5.1.9's segments). A degenerate triangle is its edges.
///
/// # Examples
/// ```
/// use glam::DVec3;
/// use meshcast_primitives::closest_point_on_triangle;
///
/// let floor = [DVec3::ZERO, DVec3::X * 2.0, DVec3::Y * 2.0];
/// assert_eq!(closest_point_on_triangle(DVec3::new(0.5, 0.5, 3.0), &floor), DVec3::new(0.5, 0.5, 0.0));
/// assert_eq!(closest_point_on_triangle(DVec3::new(-1.0, -1.0, 0.0), &floor), DVec3::ZERO);
/// ```
pub fn closest_point_on_triangle(p: DVec3, t: &[DVec3; 3]) -> DVec3 {
    over_face(p, t).unwrap_or_else(|| {
        edges(t)
            .iter()
            .map(|&[q, r]| segments_closest(p, p, q, r).1)
            .min_by(|x, y| p.distance_squared(*x).total_cmp(&p.distance_squared(*y)))
            .unwrap_or(t[0])
    })
}

/// A point where the triangles, known to meet, meet (up to rounding): the middle of the
/// nearest pair among each edge's crossing of the other's plane (with the point of the
/// other triangle nearest to it) and the pairs [`nearest_features`] weighs, which cover
/// triangles in one plane.
fn contact(a: &[DVec3; 3], b: &[DVec3; 3]) -> DVec3 {
    let (p, q) = nearest_features(a, b);
    let mut best = (p, q);
    let mut best_squared = p.distance_squared(q);
    for (x, y, x_first) in [(a, b, true), (b, a, false)] {
        let n = (y[1] - y[0]).cross(y[2] - y[0]);
        for [p, q] in edges(x) {
            let (dp, dq) = (n.dot(p - y[0]), n.dot(q - y[0]));
            if dp * dq > 0.0 || dp == dq {
                continue;
            }
            let crossing = p + (q - p) * (dp / (dp - dq));
            let nearest = closest_point_on_triangle(crossing, y);
            let squared = crossing.distance_squared(nearest);
            if squared < best_squared {
                best_squared = squared;
                best = if x_first {
                    (crossing, nearest)
                } else {
                    (nearest, crossing)
                };
            }
        }
    }
    (best.0 + best.1) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(points: [[f64; 3]; 3]) -> [DVec3; 3] {
        points.map(DVec3::from_array)
    }

    #[test]
    fn segments_in_each_configuration() {
        let (x, y) = segments_closest(
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(0.5, 1.0, 1.0),
            DVec3::new(0.5, -1.0, 1.0),
        );
        assert_eq!(
            (x, y),
            (DVec3::new(0.5, 0.0, 0.0), DVec3::new(0.5, 0.0, 1.0))
        );
        // Parallel, overlapping: any pair at distance 1.
        let (x, y) = segments_closest(
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(0.5, 1.0, 0.0),
            DVec3::new(2.0, 1.0, 0.0),
        );
        assert_eq!(x.distance(y), 1.0);
        // A point against a segment, and two points.
        let (x, y) = segments_closest(DVec3::Y, DVec3::Y, DVec3::NEG_X, DVec3::X);
        assert_eq!((x, y), (DVec3::Y, DVec3::ZERO));
        let (x, y) = segments_closest(DVec3::Y, DVec3::Y, DVec3::Z, DVec3::Z);
        assert_eq!((x, y), (DVec3::Y, DVec3::Z));
        // End to end.
        let (x, y) = segments_closest(
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(3.0, 1.0, 0.0),
        );
        assert_eq!((x, y), (DVec3::X, DVec3::new(2.0, 0.0, 0.0)));
    }

    #[test]
    fn edge_to_edge_and_corner_to_face() {
        let floor = t([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
        let crossed = t([[1.0, -1.0, 1.0], [1.0, 3.0, 1.0], [1.0, 3.0, 5.0]]);
        let gap = triangles_distance(&floor, &crossed);
        assert_eq!(gap.distance, 1.0);
        assert_eq!(gap.on_b.z, 1.0);
        let swapped = triangles_distance(&crossed, &floor);
        assert_eq!(swapped.distance, 1.0);
        // Parallel and overlapping in projection: the face distance.
        let above = floor.map(|p| p + DVec3::new(0.25, 0.25, 0.5));
        assert_eq!(triangles_distance(&floor, &above).distance, 0.5);
    }

    #[test]
    fn meeting_triangles_are_at_zero_with_a_common_point() {
        let floor = t([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
        let cases = [
            t([[0.5, 0.5, -1.0], [0.5, 0.5, 1.0], [0.7, 0.5, 1.0]]),
            t([[2.0, 0.0, 0.0], [3.0, 0.0, 1.0], [3.0, 1.0, 0.0]]),
            t([[0.1, 0.1, 0.0], [0.3, 0.1, 0.0], [0.1, 0.3, 0.0]]),
            t([[1.0, 1.0, 0.0], [3.0, 1.0, 0.0], [1.0, 3.0, 0.0]]),
            t([[-1.0, 1.0, 0.0], [3.0, 1.0, 0.0], [3.0, 1.0, 0.0]]),
        ];
        for other in cases {
            let contact = triangles_distance(&floor, &other);
            assert_eq!(contact.distance, 0.0, "{other:?}");
            assert_eq!(contact.on_a, contact.on_b);
            let p = contact.on_a;
            assert!(
                closest_point_on_triangle(p, &floor).distance(p) < 1e-12,
                "{other:?}"
            );
            assert!(
                closest_point_on_triangle(p, &other).distance(p) < 1e-12,
                "{other:?}"
            );
        }
    }

    #[test]
    fn apart_is_never_zero_and_nan_stays_nan() {
        let a = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let b = a.map(|p| p + DVec3::Z * 1e-30);
        assert!(triangles_distance(&a, &b).distance > 0.0);
        let nan = t([[f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        assert!(triangles_distance(&a, &nan).distance.is_nan());
    }
}
