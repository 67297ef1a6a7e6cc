//! Whether two triangles of one mesh cut each other beyond the corners and the edge they
//! share, decided exactly: the pair test behind a mesh's self-intersections.

use glam::DVec3;

use super::predicates::{orient2d, orient3d, sign};
use super::triangle_pair::{project, projection_axis, segment_triangle};
use crate::exact::triangles_intersect;

/// Whether the closed triangles `a` and `b` share a point that is neither a corner they
/// share nor on an edge they share, decided exactly: the test for a mesh's
/// self-intersections, where neighbours always touch along what they share.
///
/// Corners are compared by position (`-0.0` equals `0.0`), not by index, so an unwelded mesh
/// answers as its welded form would. Let `S` be the positions that are corners of both:
///
/// - **none shared**: reported when they share any point, as [`triangles_intersect`];
/// - **one corner `v`**: reported when they meet anywhere but `v`; two triangles that
///   merely touch at `v` (a fan, a pinched vertex) are not;
/// - **two corners `u`, `w`** (the edge `u w`): reported when they meet anywhere off the
///   segment `u w`. Two triangles that are not coplanar meet only along their common line,
///   so this is a fold: coplanar, with the third corners on the same side of `u w`
///   (overlapping near the edge). Neighbours folded flat to opposite sides are not;
/// - **three corners** (the same triangle twice, either winding): reported unless the
///   triangle is degenerate (then it is the segment of its longest edge, which they share).
///
/// In short: reported when the common part of the closed triangles is not contained in
/// the segment of a shared edge or in a shared corner. Degenerate triangles (corners
/// collinear or repeated, exactly) are the segments or points they cover, and follow the
/// same rule: a needle lying along a shared edge is not reported, one reaching past its
/// end into the neighbour is.
///
/// Every decision is the sign of [`orient3d`] or [`orient2d`] or a comparison of
/// coordinates, so the answer is exact, does not depend on the order of the corners nor of
/// the triangles, and a corner that is not finite makes it `false`. The one-corner case
/// uses that the common part is convex: it holds a point other than `v` exactly when a
/// ray from `v` stays in both a while, that is when the part of one triangle facing away
/// from `v` (its opposite edge) meets the other triangle.
///
/// # Examples
/// ```
/// use glam::DVec3;
/// use meshcast_primitives::triangles_intersect_beyond_shared;
///
/// let floor = [DVec3::ZERO, DVec3::X, DVec3::Y];
/// // A neighbour across the edge from (1, 0, 0) to (0, 1, 0), bent up: touching along it.
/// let bent = [DVec3::X, DVec3::new(1.0, 1.0, 1.0), DVec3::Y];
/// assert!(!triangles_intersect_beyond_shared(&floor, &bent));
/// // Folded back over the floor, flat: the fold overlaps it.
/// let folded = [DVec3::X, DVec3::new(0.2, 0.2, 0.0), DVec3::Y];
/// assert!(triangles_intersect_beyond_shared(&floor, &folded));
/// // Sharing the corner at the origin only, and piercing the floor.
/// let spike = [DVec3::ZERO, DVec3::new(0.5, 0.2, -1.0), DVec3::new(0.2, 0.5, 1.0)];
/// assert!(triangles_intersect_beyond_shared(&floor, &spike));
/// ```
pub fn triangles_intersect_beyond_shared(a: &[DVec3; 3], b: &[DVec3; 3]) -> bool {
    if !a.iter().chain(b).all(|p| p.is_finite()) {
        return false;
    }
    let mut shared = [DVec3::ZERO; 3];
    let mut count = 0;
    for (i, &p) in a.iter().enumerate() {
        if b.contains(&p) && !a[..i].contains(&p) {
            shared[count] = p;
            count += 1;
        }
    }
    match count {
        0 => triangles_intersect(a, b),
        1 => beyond_corner(a, b, shared[0]),
        2 => beyond_edge(a, b, shared[0], shared[1]),
        _ => projection_axis(a).is_some(),
    }
}

/// A piece of a triangle seen from one of its corners `v`: the part between `v` and the
/// segment `[p, q]` (a point when `p == q`), which does not hold `v`.
type Piece = [DVec3; 2];

/// The pieces that cover triangle `t` from its corner `v`: the opposite edge, or for a
/// degenerate triangle whose corners lie on both sides of `v` on one line, each far end
/// alone (the segment between them would hold `v`). None when `t` is the point `v`.
fn pieces(t: &[DVec3; 3], v: DVec3) -> ([Piece; 2], usize) {
    let mut others = [v; 2];
    let mut count = 0;
    for &p in t {
        if p != v && !others[..count].contains(&p) {
            others[count] = p;
            count += 1;
        }
    }
    let [f, g] = others;
    match count {
        0 => ([[v, v]; 2], 0),
        1 => ([[f, f], [f, f]], 1),
        _ if between(v, f, g) && projection_axis(&[v, f, g]).is_none() => ([[f, f], [g, g]], 2),
        _ => ([[f, g], [f, g]], 1),
    }
}

/// Whether `x` lies within the box of `p` and `q`: on the segment `p q` when the three are
/// collinear.
fn between(x: DVec3, p: DVec3, q: DVec3) -> bool {
    p.min(q).cmple(x).all() && x.cmple(p.max(q)).all()
}

/// Whether the segment `piece` meets the closed triangle `t`: the fast segment test when
/// `t` is not degenerate, the general one otherwise.
fn piece_meets(piece: Piece, t: &[DVec3; 3]) -> bool {
    let [p, q] = piece;
    match projection_axis(t) {
        Some(axis) => segment_triangle(p, q, t, axis),
        None => triangles_intersect(&[p, q, q], t),
    }
}

/// One shared corner `v`: whether the triangles meet anywhere else. Both are unions of
/// pieces `conv(v, F)` with `v` outside `conv(F)`. Two such pieces share a point `x != v`
/// exactly when one's far segment meets the other piece: the ray from `v` through `x`
/// leaves each piece through its far segment, and the nearer exit lies in both.
fn beyond_corner(a: &[DVec3; 3], b: &[DVec3; 3], v: DVec3) -> bool {
    // The usual case, around a vertex of a smooth surface: the other's corners strictly on
    // one side of one's plane, so that it meets that plane (and the triangle) at `v` only.
    if off_plane(a, b, v) || off_plane(b, a, v) {
        return false;
    }
    let (pieces_a, count_a) = pieces(a, v);
    let (pieces_b, count_b) = pieces(b, v);
    pieces_a[..count_a].iter().any(|&[f, g]| {
        pieces_b[..count_b]
            .iter()
            .any(|&[h, k]| piece_meets([f, g], &[v, h, k]) || piece_meets([h, k], &[v, f, g]))
    })
}

/// Whether the corners of `t` other than `v` lie strictly on one side of the plane of
/// `plane` (never for a degenerate `plane`, whose orientations are all zero).
fn off_plane(plane: &[DVec3; 3], t: &[DVec3; 3], v: DVec3) -> bool {
    let mut side = 0;
    for &p in t.iter().filter(|&&p| p != v) {
        let s = sign(orient3d(plane[0], plane[1], plane[2], p));
        if s == 0 || s == -side {
            return false;
        }
        side = s;
    }
    side != 0
}

/// The shared edge `u w`: whether the triangles meet anywhere off the segment.
fn beyond_edge(a: &[DVec3; 3], b: &[DVec3; 3], u: DVec3, w: DVec3) -> bool {
    let third = |t: &[DVec3; 3]| t.iter().copied().find(|&p| p != u && p != w);
    // A triangle with only `u` and `w` for corners is the segment itself.
    let (Some(p), Some(q)) = (third(a), third(b)) else {
        return false;
    };
    // Off one plane: neither is degenerate, and their planes meet in the line `u w`, which
    // holds only the shared segment of each.
    if orient3d(u, w, p, q) != 0.0 {
        return false;
    }
    match (projection_axis(&[u, w, p]), projection_axis(&[u, w, q])) {
        // In one plane, they overlap when the third corners lie on one side of `u w`.
        (Some(axis), Some(_)) => {
            let (u2, w2) = (project(u, axis), project(w, axis));
            sign(orient2d(u2, w2, project(p, axis))) == sign(orient2d(u2, w2, project(q, axis)))
        }
        (None, _) => past_edge(u, w, p, b),
        (_, None) => past_edge(u, w, q, a),
    }
}

/// A degenerate triangle with corners `u`, `w`, `p` on one line, against the other
/// triangle `t` of corners `u`, `w` and a third: whether the part of the segment reaching
/// past `u w` (to `p`, from the end it passes) meets `t` anywhere but that end.
fn past_edge(u: DVec3, w: DVec3, p: DVec3, t: &[DVec3; 3]) -> bool {
    if between(p, u, w) {
        return false;
    }
    let end = if between(w, u, p) { w } else { u };
    let (pieces_t, count) = pieces(t, end);
    pieces_t[..count]
        .iter()
        .any(|&[h, k]| piece_meets([p, p], &[end, h, k]) || piece_meets([h, k], &[end, p, p]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(points: [[f64; 3]; 3]) -> [DVec3; 3] {
        points.map(DVec3::from_array)
    }

    /// Both orders of the triangles and every order of their corners agree with `expected`.
    fn check(a: [DVec3; 3], b: [DVec3; 3], expected: bool, name: &str) {
        let orders = |t: [DVec3; 3]| {
            [
                t,
                [t[1], t[2], t[0]],
                [t[2], t[0], t[1]],
                [t[0], t[2], t[1]],
                [t[2], t[1], t[0]],
                [t[1], t[0], t[2]],
            ]
        };
        for x in orders(a) {
            for y in orders(b) {
                assert_eq!(
                    triangles_intersect_beyond_shared(&x, &y),
                    expected,
                    "{name}"
                );
                assert_eq!(
                    triangles_intersect_beyond_shared(&y, &x),
                    expected,
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn shared_edges() {
        let floor = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let cases = [
            (
                "flat neighbour",
                [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
                false,
            ),
            (
                "bent neighbour",
                [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]],
                false,
            ),
            (
                "folded flat",
                [[1.0, 0.0, 0.0], [0.2, 0.2, 0.0], [0.0, 1.0, 0.0]],
                true,
            ),
            (
                "folded, larger",
                [[1.0, 0.0, 0.0], [-3.0, -2.0, 0.0], [0.0, 1.0, 0.0]],
                true,
            ),
            (
                "folded almost flat",
                [[1.0, 0.0, 0.0], [0.2, 0.2, 1e-20], [0.0, 1.0, 0.0]],
                false,
            ),
            (
                "duplicate",
                [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
                true,
            ),
            (
                "needle along the edge",
                [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 1.0, 0.0]],
                false,
            ),
            (
                "needle past the edge, outside",
                [[1.0, 0.0, 0.0], [2.0, -1.0, 0.0], [0.0, 1.0, 0.0]],
                false,
            ),
            (
                "segment as a triangle",
                [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                false,
            ),
        ];
        for (name, other, expected) in cases {
            check(floor, t(other), expected, name);
        }
        // A needle on the line of an edge, reaching past its end along the next edge.
        let needle = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]);
        check(floor, needle, false, "needle past the corner, outside");
        let along = t([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.5, 0.0]]);
        check(floor, along, false, "needle within the edge");
        // Two needles on one line sharing two points and reaching past the same end overlap
        // there; past opposite ends they do not.
        let one = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
        let same_end = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 0.0, 0.0]]);
        let other_end = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]);
        check(one, same_end, true, "needles past the same end");
        check(one, other_end, false, "needles past opposite ends");
        // A needle past an edge's end, into a neighbour that continues that way.
        let wide = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 1.0, 0.0]]);
        let into = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
        check(
            wide,
            into,
            false,
            "needle along the neighbour's edge, below",
        );
        let slanted = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, -1.0, 0.0]]);
        let beyond = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [3.0, 0.0, 0.0]]);
        check(slanted, beyond, false, "needle outside the neighbour");
        let fan = t([[0.0, 0.0, 0.0], [3.0, 1.0, 0.0], [3.0, -1.0, 0.0]]);
        check(
            fan,
            beyond,
            true,
            "needle inside a fan, from the shared corner",
        );
        let hull = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [4.0, 1.0, 0.0]]);
        let inside = [beyond[0], beyond[1], DVec3::new(3.0, 0.5, 0.0)];
        check(hull, inside, true, "folded onto a neighbour");
    }

    #[test]
    fn shared_corners() {
        let floor = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let cases = [
            (
                "fan",
                [[0.0, 0.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, 0.0, 0.0]],
                false,
            ),
            (
                "pinched",
                [[0.0, 0.0, 0.0], [-1.0, -1.0, 1.0], [-1.0, -1.0, -1.0]],
                false,
            ),
            (
                "touching along a ray",
                [[0.0, 0.0, 0.0], [0.0, 2.0, 1.0], [0.0, 2.0, -1.0]],
                true,
            ),
            (
                "piercing",
                [[0.0, 0.0, 0.0], [0.5, 0.2, -1.0], [0.2, 0.5, 1.0]],
                true,
            ),
            (
                "standing inside",
                [[0.0, 0.0, 0.0], [0.3, 0.3, 0.0], [0.3, 0.3, 1.0]],
                true,
            ),
            (
                "coplanar, overlapping",
                [[0.0, 0.0, 0.0], [2.0, 1.0, 0.0], [1.0, 2.0, 0.0]],
                true,
            ),
            (
                "coplanar, inside",
                [[0.0, 0.0, 0.0], [0.2, 0.1, 0.0], [0.1, 0.2, 0.0]],
                true,
            ),
            (
                "coplanar, opposite",
                [[0.0, 0.0, 0.0], [-2.0, -1.0, 0.0], [-1.0, -2.0, 0.0]],
                false,
            ),
            (
                "edge on edge",
                [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, -1.0, 0.0]],
                true,
            ),
            (
                "opposite edges crossing",
                [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, -1.0]],
                true,
            ),
            (
                "needle away",
                [[0.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [-2.0, 0.0, 0.0]],
                false,
            ),
            (
                "needle inside",
                [[0.0, 0.0, 0.0], [0.1, 0.1, 0.0], [0.2, 0.2, 0.0]],
                true,
            ),
            (
                "needle through",
                [[-1.0, -1.0, 0.0], [0.0, 0.0, 0.0], [0.1, 0.1, 0.0]],
                true,
            ),
            (
                "needle across",
                [[-1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, -1.0, 0.0]],
                false,
            ),
            (
                "point",
                [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                false,
            ),
        ];
        for (name, other, expected) in cases {
            check(floor, t(other), expected, name);
        }
    }

    #[test]
    fn nothing_shared_is_the_plain_test() {
        let floor = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let touching = t([[0.5, 0.5, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, -1.0]]);
        check(floor, touching, true, "touching an edge");
        let apart = touching.map(|p| p + DVec3::X * 1e-9);
        check(floor, apart, false, "apart");
        let nan = t([[f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        check(floor, nan, false, "not finite");
    }
}
