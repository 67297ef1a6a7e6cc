//! Whether two closed triangles share a point, decided exactly on `f64` coordinates: the test
//! of Guigue and Devillers ("Fast and robust triangle-triangle overlap test using
//! orientation predicates", Journal of Graphics Tools 8(1), 2003) on Shewchuk's exact
//! [`orient3d`] and [`orient2d`], with degenerate triangles reduced to segments and points.

use glam::{DVec2, DVec3};

use super::predicates::{orient2d, orient3d, sign};

/// Whether the closed triangles `a` and `b` (their corners, in `f64`) share at least one
/// point, decided exactly: touching at a vertex, along an edge or inside a face counts.
///
/// Triangles in general position take the test of Guigue and Devillers (2003): each
/// triangle's corners against the other's plane, then two orientations that compare the
/// intervals along which the triangles cross the line where their planes meet. Coplanar
/// triangles are tested in 2D, projected along an axis the plane's normal is not
/// perpendicular to (a projection keeps the answer, since it maps the plane one to one).
/// Degenerate triangles (corners collinear or equal, exactly) are their edges, segments
/// or points, tested against the other triangle or its edges with the same predicates.
///
/// Every decision is the sign of [`orient3d`] or [`orient2d`] or a comparison of
/// coordinates, so the answer is exact for any finite input within the predicates' range
/// (see [`crate::predicates`]), does not depend on the order of the corners nor of the two
/// triangles, and `-0.0` equals `0.0`. A corner that is not finite makes the answer `false`.
///
/// # Examples
/// ```
/// use glam::DVec3;
/// use meshcast_primitives::triangles_intersect;
///
/// let floor = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// // Standing on the floor's edge: touching counts.
/// let wall = [DVec3::new(0.5, 0.0, 0.0), DVec3::new(0.5, 0.0, 1.0), DVec3::new(0.5, -1.0, 1.0)];
/// assert!(triangles_intersect(&floor, &wall));
/// // Lifted a hair: apart.
/// let lifted = wall.map(|p| p + DVec3::Z * 1e-12);
/// assert!(!triangles_intersect(&floor, &lifted));
/// ```
pub fn triangles_intersect(a: &[DVec3; 3], b: &[DVec3; 3]) -> bool {
    if !a.iter().chain(b).all(|p| p.is_finite()) {
        return false;
    }
    match (projection_axis(a), projection_axis(b)) {
        (Some(axis), Some(_)) => general(a, b, axis),
        (None, Some(axis)) => edges(a)
            .into_iter()
            .any(|[p, q]| segment_triangle(p, q, b, axis)),
        (Some(axis), None) => edges(b)
            .into_iter()
            .any(|[p, q]| segment_triangle(p, q, a, axis)),
        (None, None) => edges(a).into_iter().any(|[p, q]| {
            edges(b)
                .into_iter()
                .any(|[r, s]| segments_intersect(p, q, r, s))
        }),
    }
}

/// The axis to drop when projecting the triangle's plane to 2D, one whose projection keeps
/// the triangle's area (the largest, by the predicate's magnitude); `None` when every
/// projection is collinear, that is when the triangle is degenerate.
pub(crate) fn projection_axis(t: &[DVec3; 3]) -> Option<usize> {
    let mut best = None;
    let mut best_area = 0.0;
    for axis in 0..3 {
        let area = orient2d(
            project(t[0], axis),
            project(t[1], axis),
            project(t[2], axis),
        )
        .abs();
        if area > best_area {
            (best, best_area) = (Some(axis), area);
        }
    }
    best
}

/// `p` without its coordinate `axis`.
#[inline]
pub(crate) fn project(p: DVec3, axis: usize) -> DVec2 {
    match axis {
        0 => DVec2::new(p.y, p.z),
        1 => DVec2::new(p.z, p.x),
        _ => DVec2::new(p.x, p.y),
    }
}

fn edges<P: Copy>(t: &[P; 3]) -> [[P; 2]; 3] {
    [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]]
}

/// `(d - a) · ((b - a) × (c - a))`, exactly, as a sign: the orientation Guigue and
/// Devillers write as `[a, b, c, d]`.
#[inline]
fn orientation(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> i8 {
    -sign(orient3d(a, b, c, d))
}

/// Two non-degenerate triangles; `axis` projects `a`'s plane one to one. Guigue and
/// Devillers' `tri_tri_overlap_test_3d`, branch for branch.
fn general(a: &[DVec3; 3], b: &[DVec3; 3], axis: usize) -> bool {
    let [p1, q1, r1] = *a;
    let [p2, q2, r2] = *b;
    // The corners of `a` against `b`'s plane: all strictly on one side, apart.
    let (dp1, dq1, dr1) = (
        orientation(p2, q2, r2, p1),
        orientation(p2, q2, r2, q1),
        orientation(p2, q2, r2, r1),
    );
    if dp1 * dq1 > 0 && dp1 * dr1 > 0 {
        return false;
    }
    let (dp2, dq2, dr2) = (
        orientation(p1, q1, r1, p2),
        orientation(p1, q1, r1, q2),
        orientation(p1, q1, r1, r2),
    );
    if dp2 * dq2 > 0 && dp2 * dr2 > 0 {
        return false;
    }
    if dp1 == 0 && dq1 == 0 && dr1 == 0 {
        return coplanar(a, b, axis);
    }
    // Turn `a` so that `p1` is alone on its side of `b`'s plane, and turn `b` over when
    // needed so that `p1` is on its positive side; then compare the intervals.
    let straddle = |first: [DVec3; 3], second: [DVec3; 3], signs: [i8; 3]| {
        intervals_overlap(first, second, signs, a, b, axis)
    };
    let b_kept = [p2, q2, r2];
    let b_turned = [p2, r2, q2];
    let (signs_kept, signs_turned) = ([dp2, dq2, dr2], [dp2, dr2, dq2]);
    if dp1 > 0 {
        if dq1 > 0 {
            straddle([r1, p1, q1], b_turned, signs_turned)
        } else if dr1 > 0 {
            straddle([q1, r1, p1], b_turned, signs_turned)
        } else {
            straddle([p1, q1, r1], b_kept, signs_kept)
        }
    } else if dp1 < 0 {
        if dq1 < 0 {
            straddle([r1, p1, q1], b_kept, signs_kept)
        } else if dr1 < 0 {
            straddle([q1, r1, p1], b_kept, signs_kept)
        } else {
            straddle([p1, q1, r1], b_turned, signs_turned)
        }
    } else if dq1 < 0 {
        if dr1 >= 0 {
            straddle([q1, r1, p1], b_turned, signs_turned)
        } else {
            straddle([p1, q1, r1], b_kept, signs_kept)
        }
    } else if dq1 > 0 {
        if dr1 > 0 {
            straddle([p1, q1, r1], b_turned, signs_turned)
        } else {
            straddle([q1, r1, p1], b_kept, signs_kept)
        }
    } else if dr1 > 0 {
        straddle([r1, p1, q1], b_kept, signs_kept)
    } else {
        straddle([r1, p1, q1], b_turned, signs_turned)
    }
}

/// Guigue and Devillers' `TRI_TRI_3D`: turns the second triangle so that its first corner
/// is alone on its side of the first's plane, then [`check_min_max`]. `a`, `b` and `axis`
/// are the original triangles, for the coplanar case (which the caller has ruled out, so
/// it is not reached; kept so that no branch answers without a test).
fn intervals_overlap(
    first: [DVec3; 3],
    second: [DVec3; 3],
    [dp2, dq2, dr2]: [i8; 3],
    a: &[DVec3; 3],
    b: &[DVec3; 3],
    axis: usize,
) -> bool {
    let [p1, q1, r1] = first;
    let [p2, q2, r2] = second;
    if dp2 > 0 {
        if dq2 > 0 {
            check_min_max([p1, r1, q1], [r2, p2, q2])
        } else if dr2 > 0 {
            check_min_max([p1, r1, q1], [q2, r2, p2])
        } else {
            check_min_max([p1, q1, r1], [p2, q2, r2])
        }
    } else if dp2 < 0 {
        if dq2 < 0 {
            check_min_max([p1, q1, r1], [r2, p2, q2])
        } else if dr2 < 0 {
            check_min_max([p1, q1, r1], [q2, r2, p2])
        } else {
            check_min_max([p1, r1, q1], [p2, q2, r2])
        }
    } else if dq2 < 0 {
        if dr2 >= 0 {
            check_min_max([p1, r1, q1], [q2, r2, p2])
        } else {
            check_min_max([p1, q1, r1], [p2, q2, r2])
        }
    } else if dq2 > 0 {
        if dr2 > 0 {
            check_min_max([p1, r1, q1], [p2, q2, r2])
        } else {
            check_min_max([p1, q1, r1], [q2, r2, p2])
        }
    } else if dr2 > 0 {
        check_min_max([p1, q1, r1], [r2, p2, q2])
    } else if dr2 < 0 {
        check_min_max([p1, r1, q1], [r2, p2, q2])
    } else {
        coplanar(a, b, axis)
    }
}

/// Guigue and Devillers' `CHECK_MIN_MAX`: with each triangle's first corner alone on its
/// side of the other's plane, the segments where they cross the planes' common line
/// overlap exactly when neither interval ends before the other begins.
#[inline]
fn check_min_max([p1, q1, r1]: [DVec3; 3], [p2, q2, r2]: [DVec3; 3]) -> bool {
    orientation(q1, p2, p1, q2) <= 0 && orientation(p1, p2, r1, r2) <= 0
}

/// Two non-degenerate triangles in one plane, which `axis` projects one to one.
fn coplanar(a: &[DVec3; 3], b: &[DVec3; 3], axis: usize) -> bool {
    let a2 = a.map(|p| project(p, axis));
    let b2 = b.map(|p| project(p, axis));
    edges(&a2).into_iter().any(|[p, q]| {
        edges(&b2)
            .into_iter()
            .any(|[r, s]| segments_intersect_2d(p, q, r, s))
    }) || point_in_triangle_2d(a2[0], &b2)
        || point_in_triangle_2d(b2[0], &a2)
}

/// Whether the closed segment `p q` (perhaps a point) meets the closed non-degenerate
/// triangle `t`, whose plane `axis` projects one to one.
pub(crate) fn segment_triangle(p: DVec3, q: DVec3, t: &[DVec3; 3], axis: usize) -> bool {
    let side_p = orientation(t[0], t[1], t[2], p);
    let side_q = orientation(t[0], t[1], t[2], q);
    if side_p * side_q > 0 {
        return false;
    }
    if side_p == 0 && side_q == 0 {
        let t2 = t.map(|c| project(c, axis));
        let (p2, q2) = (project(p, axis), project(q, axis));
        return point_in_triangle_2d(p2, &t2)
            || edges(&t2)
                .into_iter()
                .any(|[r, s]| segments_intersect_2d(p2, q2, r, s));
    }
    // The segment crosses the plane at one point; the line through it meets the closed
    // triangle exactly when it passes no two edges on opposite sides (Plücker).
    let around = [
        orientation(p, q, t[0], t[1]),
        orientation(p, q, t[1], t[2]),
        orientation(p, q, t[2], t[0]),
    ];
    !(around.contains(&1) && around.contains(&-1))
}

/// Whether the closed segments `p q` and `r s` (each perhaps a point) meet in 3D.
fn segments_intersect(p: DVec3, q: DVec3, r: DVec3, s: DVec3) -> bool {
    if orient3d(p, q, r, s) != 0.0 {
        return false;
    }
    // Coplanar (or collinear): project along an axis that keeps the dimension of the four
    // points' affine hull, which maps that hull one to one.
    let points = [p, q, r, s];
    let dimension = |axis: usize| {
        let flat = points.map(|x| project(x, axis));
        let triples = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]];
        if triples
            .iter()
            .any(|&[i, j, k]| orient2d(flat[i], flat[j], flat[k]) != 0.0)
        {
            2
        } else if flat.iter().any(|&x| x != flat[0]) {
            1
        } else {
            0
        }
    };
    let axis = (0..3).max_by_key(|&axis| dimension(axis)).unwrap_or(2);
    segments_intersect_2d(
        project(p, axis),
        project(q, axis),
        project(r, axis),
        project(s, axis),
    )
}

/// Whether the closed segments `p q` and `r s` (each perhaps a point) meet in the plane
/// (Cormen et al., *Introduction to Algorithms*, 33.1, with exact orientations).
fn segments_intersect_2d(p: DVec2, q: DVec2, r: DVec2, s: DVec2) -> bool {
    let d1 = sign(orient2d(r, s, p));
    let d2 = sign(orient2d(r, s, q));
    let d3 = sign(orient2d(p, q, r));
    let d4 = sign(orient2d(p, q, s));
    if d1 * d2 < 0 && d3 * d4 < 0 {
        return true;
    }
    let within = |a: DVec2, b: DVec2, x: DVec2| a.min(b).cmple(x).all() && x.cmple(a.max(b)).all();
    (d1 == 0 && within(r, s, p))
        || (d2 == 0 && within(r, s, q))
        || (d3 == 0 && within(p, q, r))
        || (d4 == 0 && within(p, q, s))
}

/// Whether `p` lies in the closed non-degenerate triangle `t`.
fn point_in_triangle_2d(p: DVec2, t: &[DVec2; 3]) -> bool {
    let sides = [
        sign(orient2d(t[0], t[1], p)),
        sign(orient2d(t[1], t[2], p)),
        sign(orient2d(t[2], t[0], p)),
    ];
    !(sides.contains(&1) && sides.contains(&-1))
}
