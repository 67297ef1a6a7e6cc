//! `triangles_intersect_beyond_shared` against an exact reference written differently: on
//! small integer coordinates, every corner of the common part of the two triangles is
//! listed in rational arithmetic (a corner of one inside the other, an edge of one through
//! the other's plane, two edges crossing), and the pair is reported when one of them lies
//! off the shared corner or edge. Integer grids make shared, degenerate, coplanar and
//! touching pairs common; exact maps in `f64` must keep every answer.

use glam::DVec3;
use meshcast_primitives::{triangles_intersect, triangles_intersect_beyond_shared};
use proptest::prelude::*;

type I3 = [i128; 3];

fn sub(a: I3, b: I3) -> I3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: I3, s: i128) -> I3 {
    a.map(|x| x * s)
}

fn add(a: I3, b: I3) -> I3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn cross(a: I3, b: I3) -> I3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: I3, b: I3) -> i128 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A rational point `n / d`, `d > 0`.
#[derive(Clone, Copy, Debug)]
struct Point {
    n: I3,
    d: i128,
}

impl Point {
    fn at(p: I3) -> Self {
        Self { n: p, d: 1 }
    }

    fn new(n: I3, d: i128) -> Self {
        if d < 0 {
            Self {
                n: scale(n, -1),
                d: -d,
            }
        } else {
            Self { n, d }
        }
    }

    /// `d * (self - p)`, an integer vector with the direction of `self - p`.
    fn minus(&self, p: I3) -> I3 {
        sub(self.n, scale(p, self.d))
    }

    fn is(&self, p: I3) -> bool {
        self.minus(p) == [0; 3]
    }
}

/// Whether `x` lies on the closed segment `p q` (a point when `p == q`).
fn on_segment(x: Point, p: I3, q: I3) -> bool {
    cross(x.minus(p), sub(q, p)) == [0; 3]
        && (0..3).all(|i| {
            let (lo, hi) = (p[i].min(q[i]), p[i].max(q[i]));
            lo * x.d <= x.n[i] && x.n[i] <= hi * x.d
        })
}

fn normal(t: [I3; 3]) -> I3 {
    cross(sub(t[1], t[0]), sub(t[2], t[0]))
}

fn edges(t: [I3; 3]) -> [[I3; 2]; 3] {
    [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]]
}

/// Whether `x` lies in the closed triangle `t` (its edges, when it is degenerate).
fn in_triangle(x: Point, t: [I3; 3]) -> bool {
    let n = normal(t);
    if n == [0; 3] {
        return edges(t).iter().any(|&[p, q]| on_segment(x, p, q));
    }
    dot(n, x.minus(t[0])) == 0
        && edges(t)
            .iter()
            .all(|&[p, q]| dot(cross(sub(q, p), x.minus(p)), n) >= 0)
}

/// Candidates for the corners of `a ∩ b` (each checked to lie in both): a corner of either,
/// an edge of one through the other's plane at one point, two edges meeting at one point.
/// Every corner of the common part is among them: it is where a face of `a` and one of `b`
/// whose spans meet in a single point meet.
fn common_corners(a: [I3; 3], b: [I3; 3]) -> Vec<Point> {
    let mut candidates: Vec<Point> = a.iter().chain(&b).map(|&p| Point::at(p)).collect();
    for (x, y) in [(a, b), (b, a)] {
        let n = normal(y);
        if n == [0; 3] {
            continue;
        }
        for [p, q] in edges(x) {
            let (dp, dq) = (dot(n, sub(p, y[0])), dot(n, sub(q, y[0])));
            if dp != dq {
                // p + (q - p) * dp / (dp - dq)
                let num = add(scale(p, dp - dq), scale(sub(q, p), dp));
                candidates.push(Point::new(num, dp - dq));
            }
        }
    }
    for [p, q] in edges(a) {
        for [r, s] in edges(b) {
            let (e, f) = (sub(q, p), sub(s, r));
            let m = cross(e, f);
            let mm = dot(m, m);
            if mm != 0 && dot(sub(r, p), m) == 0 {
                // p + e * ((r - p) × f) · m / |m|²
                let t = dot(cross(sub(r, p), f), m);
                candidates.push(Point::new(add(scale(p, mm), scale(e, t)), mm));
            }
        }
    }
    candidates
        .into_iter()
        .filter(|&x| in_triangle(x, a) && in_triangle(x, b))
        .collect()
}

/// The rule, from its definition: shared corners by position; reported when a corner of the
/// common part lies off the shared corner or edge, or for the same three corners, when the
/// triangle has an area.
fn reference(a: [I3; 3], b: [I3; 3]) -> bool {
    let mut shared: Vec<I3> = a.iter().copied().filter(|p| b.contains(p)).collect();
    shared.dedup();
    shared.sort();
    shared.dedup();
    let corners = common_corners(a, b);
    match shared[..] {
        [] => !corners.is_empty(),
        [v] => corners.iter().any(|x| !x.is(v)),
        [u, w] => corners.iter().any(|&x| !on_segment(x, u, w)),
        _ => normal(a) != [0; 3],
    }
}

fn to_f64(t: [I3; 3]) -> [DVec3; 3] {
    t.map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64))
}

fn orders(t: [DVec3; 3]) -> [[DVec3; 3]; 6] {
    [
        t,
        [t[1], t[2], t[0]],
        [t[2], t[0], t[1]],
        [t[0], t[2], t[1]],
        [t[2], t[1], t[0]],
        [t[1], t[0], t[2]],
    ]
}

fn check(a: [I3; 3], b: [I3; 3]) -> bool {
    let expected = reference(a, b);
    let (fa, fb) = (to_f64(a), to_f64(b));
    for x in orders(fa) {
        for y in orders(fb) {
            assert_eq!(
                triangles_intersect_beyond_shared(&x, &y),
                expected,
                "{a:?} {b:?}"
            );
            assert_eq!(
                triangles_intersect_beyond_shared(&y, &x),
                expected,
                "{b:?} {a:?}"
            );
        }
    }
    if expected {
        assert!(triangles_intersect(&fa, &fb), "{a:?} {b:?}");
    }
    let maps: [&dyn Fn(DVec3) -> DVec3; 3] = [
        &|p| p * 0.125,
        &|p| p * 1024.0 + DVec3::new(1e6, -1e6, 3e6),
        &|p| DVec3::new(p.z, -p.x, p.y),
    ];
    for map in maps {
        assert_eq!(
            triangles_intersect_beyond_shared(&fa.map(map), &fb.map(map)),
            expected,
            "mapped: {a:?} {b:?}"
        );
    }
    expected
}

/// `b`'s corners: `choice < 3` takes `a`'s corner of that index, otherwise `extra`'s.
fn sharing(a: [I3; 3], extra: [I3; 3], choice: [usize; 3]) -> [I3; 3] {
    [0, 1, 2].map(|k| {
        if choice[k] < 3 {
            a[choice[k]]
        } else {
            extra[k]
        }
    })
}

fn point(range: i128) -> impl Strategy<Value = I3> {
    prop::array::uniform3(-range..=range)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    /// Coordinates in -2..=2, about half of `b`'s corners taken from `a`: degenerate,
    /// coplanar, folded and touching pairs are common.
    #[test]
    fn tiny_grid_matches_the_reference(
        a in prop::array::uniform3(point(2)),
        extra in prop::array::uniform3(point(2)),
        choice in prop::array::uniform3(0usize..6),
    ) {
        check(a, sharing(a, extra, choice));
    }

    /// Coordinates in -5..=5: more pairs in general position.
    #[test]
    fn small_grid_matches_the_reference(
        a in prop::array::uniform3(point(5)),
        extra in prop::array::uniform3(point(5)),
        choice in prop::array::uniform3(0usize..5),
    ) {
        check(a, sharing(a, extra, choice));
    }

    /// Both in the plane z = 0, where folds and overlaps live.
    #[test]
    fn coplanar_pairs_match_the_reference(
        a in prop::array::uniform3(prop::array::uniform2(-3i128..=3)),
        extra in prop::array::uniform3(prop::array::uniform2(-3i128..=3)),
        choice in prop::array::uniform3(0usize..5),
    ) {
        let a = a.map(|[x, y]| [x, y, 0]);
        check(a, sharing(a, extra.map(|[x, y]| [x, y, 0]), choice));
    }

    /// On one line: needles sharing corners, along and past each other.
    #[test]
    fn collinear_pairs_match_the_reference(
        a in prop::array::uniform3(-4i128..=4),
        extra in prop::array::uniform3(-4i128..=4),
        choice in prop::array::uniform3(0usize..5),
    ) {
        let line = |x: i128| [x, 2 * x, -x];
        let a = a.map(line);
        check(a, sharing(a, extra.map(line), choice));
    }
}

#[test]
fn the_reference_sees_each_rule() {
    let floor = [[0, 0, 0], [2, 0, 0], [0, 2, 0]];
    // Folded over the shared edge, bent up from it, piercing from a shared corner, touching
    // only there.
    assert!(check(floor, [[2, 0, 0], [0, 2, 0], [1, 0, 0]]));
    assert!(!check(floor, [[2, 0, 0], [0, 2, 0], [2, 2, 2]]));
    assert!(check(floor, [[0, 0, 0], [1, 1, -1], [1, 1, 1]]));
    assert!(!check(floor, [[0, 0, 0], [-1, -1, -1], [-1, -1, 1]]));
    assert!(check(floor, floor));
}
