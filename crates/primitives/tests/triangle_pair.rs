//! The exact triangle–triangle test against an exact reference written differently: the
//! separating axis theorem in integer arithmetic, on small integer coordinates (so every
//! degenerate, touching and coplanar case comes up often), then under maps that keep the
//! answer and stay exact in `f64` (powers of two, far offsets, signed zeros).

use glam::DVec3;
use meshcast_primitives::triangles_intersect;
use proptest::prelude::*;

type I3 = [i64; 3];

fn sub(a: I3, b: I3) -> I3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: I3, b: I3) -> I3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: I3, b: I3) -> i64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Whether the convex hulls of `a` and `b` share a point, by exhausting separating axes:
/// two compact convex polytopes are disjoint exactly when some direction separates them
/// strictly, and one can be found among the differences of their points `D`, the cross
/// products `u × v` and the `(u × v) × w` for `u, v, w` in `D` (facet normals of the
/// Minkowski difference, in its affine hull or across it). Works for segments and points.
fn reference(a: [I3; 3], b: [I3; 3]) -> bool {
    let points: Vec<I3> = a.iter().chain(&b).copied().collect();
    let mut directions = Vec::new();
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            let d = sub(points[i], points[j]);
            if d != [0; 3] {
                directions.push(d);
            }
        }
    }
    let mut axes = directions.clone();
    for &u in &directions {
        for &v in &directions {
            let n = cross(u, v);
            if n == [0; 3] {
                continue;
            }
            axes.push(n);
            for &w in &directions {
                let m = cross(n, w);
                if m != [0; 3] {
                    axes.push(m);
                }
            }
        }
    }
    !axes.iter().any(|&axis| {
        let range = |t: [I3; 3]| {
            let values = t.map(|p| dot(p, axis));
            (*values.iter().min().unwrap(), *values.iter().max().unwrap())
        };
        let (a_min, a_max) = range(a);
        let (b_min, b_max) = range(b);
        a_max < b_min || b_max < a_min
    })
}

fn to_f64(t: [I3; 3]) -> [DVec3; 3] {
    t.map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64))
}

/// Every answer the test must give alike: both orders of the triangles, every rotation and
/// reflection of the corner order.
fn answers(a: [DVec3; 3], b: [DVec3; 3]) -> Vec<bool> {
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
    let mut all = Vec::new();
    for x in orders(a) {
        for y in orders(b) {
            all.push(triangles_intersect(&x, &y));
            all.push(triangles_intersect(&y, &x));
        }
    }
    all
}

fn check(a: [I3; 3], b: [I3; 3]) {
    let expected = reference(a, b);
    let (fa, fb) = (to_f64(a), to_f64(b));
    for (i, got) in answers(fa, fb).into_iter().enumerate() {
        assert_eq!(got, expected, "order {i}: {a:?} {b:?}");
    }
    // Maps that keep the answer and are exact in f64.
    let maps: [&dyn Fn(DVec3) -> DVec3; 4] = [
        &|p| p * 0.125,
        &|p| p * 1024.0 + DVec3::new(1e6, -1e6, 3e6),
        &|p| DVec3::new(p.z, -p.x, p.y),
        &|p| p * 2f64.powi(-40) + DVec3::splat(1.0),
    ];
    for map in maps {
        assert_eq!(
            triangles_intersect(&fa.map(map), &fb.map(map)),
            expected,
            "mapped: {a:?} {b:?}"
        );
    }
}

fn small_point(range: i64) -> impl Strategy<Value = I3> {
    prop::array::uniform3(-range..=range)
}

fn small_triangle(range: i64) -> impl Strategy<Value = [I3; 3]> {
    prop::array::uniform3(small_point(range))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Coordinates in -2..=2: degenerate, coplanar and touching pairs are common.
    #[test]
    fn tiny_grid_matches_the_reference(a in small_triangle(2), b in small_triangle(2)) {
        check(a, b);
    }

    /// Coordinates in -6..=6: more pairs in general position.
    #[test]
    fn small_grid_matches_the_reference(a in small_triangle(6), b in small_triangle(6)) {
        check(a, b);
    }

    /// Both triangles in the plane z = 0 (sometimes degenerate).
    #[test]
    fn coplanar_pairs_match_the_reference(
        a in prop::array::uniform3(prop::array::uniform2(-4i64..=4)),
        b in prop::array::uniform3(prop::array::uniform2(-4i64..=4)),
    ) {
        check(a.map(|[x, y]| [x, y, 0]), b.map(|[x, y]| [x, y, 0]));
    }

    /// The second triangle shares a corner or an edge with the first.
    #[test]
    fn pairs_sharing_corners_match_the_reference(
        a in small_triangle(5),
        extra in small_triangle(5),
        shared_edge in any::<bool>(),
    ) {
        let b = if shared_edge { [a[1], a[0], extra[0]] } else { [a[2], extra[0], extra[1]] };
        check(a, b);
        prop_assert!(triangles_intersect(&to_f64(a), &to_f64(b)));
    }
}

fn t(points: [[f64; 3]; 3]) -> [DVec3; 3] {
    points.map(DVec3::from_array)
}

#[test]
fn adversarial_cases() {
    let base = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let cases: [(&str, [DVec3; 3], bool); 14] = [
        ("identical", base, true),
        (
            "shared edge, folded",
            t([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.3, -0.2, 0.9]]),
            true,
        ),
        (
            "shared vertex only",
            t([[1.0, 0.0, 0.0], [2.0, 0.0, 1.0], [2.0, 1.0, -1.0]]),
            true,
        ),
        (
            "coplanar, overlapping",
            t([[0.2, 0.2, 0.0], [2.0, 0.2, 0.0], [0.2, 2.0, 0.0]]),
            true,
        ),
        (
            "coplanar, edge to edge",
            t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, -1.0, 0.0]]),
            true,
        ),
        (
            "coplanar, vertex on edge",
            t([[0.5, 0.5, 0.0], [1.0, 1.0, 0.0], [2.0, 0.5, 0.0]]),
            true,
        ),
        (
            "coplanar, apart",
            t([[0.6, 0.6, 0.0], [1.0, 1.0, 0.0], [2.0, 0.5, 0.0]]),
            false,
        ),
        (
            "vertex on the plane, inside",
            t([[0.25, 0.25, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]),
            true,
        ),
        (
            "vertex on the plane, outside",
            t([[0.75, 0.75, 0.0], [1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]),
            false,
        ),
        (
            "parallel plane",
            t([[0.0, 0.0, 1e-300], [1.0, 0.0, 1e-300], [0.0, 1.0, 1e-300]]),
            false,
        ),
        (
            "segment through the face",
            t([[0.2, 0.2, -1.0], [0.2, 0.2, 1.0], [0.2, 0.2, 3.0]]),
            true,
        ),
        (
            "segment beside the face",
            t([[0.6, 0.6, -1.0], [0.6, 0.6, 1.0], [0.6, 0.6, 3.0]]),
            false,
        ),
        ("point on the edge", t([[0.5, 0.0, 0.0]; 3]), true),
        ("point off the edge", t([[0.5, -1e-17, 0.0]; 3]), false),
    ];
    for (name, other, expected) in cases {
        for answer in answers(base, other) {
            assert_eq!(answer, expected, "{name}");
        }
    }
}

#[test]
fn far_from_the_origin_and_signed_zeros() {
    let offset = DVec3::new(1e6, -1e6, 1e6);
    let a = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).map(|p| p + offset);
    // Touching a's edge from above at one point, then lifted by one ulp of 1e6.
    let b = t([[0.5, 0.0, 0.0], [0.5, 0.0, 1.0], [0.5, -1.0, 1.0]]).map(|p| p + offset);
    assert!(triangles_intersect(&a, &b));
    let ulp = f64::from_bits(1e6f64.to_bits() + 1) - 1e6;
    let lifted = b.map(|p| p + DVec3::Z * ulp);
    assert!(!triangles_intersect(&a, &lifted));

    let zeros = t([[-0.0, -0.0, -0.0], [1.0, -0.0, 0.0], [0.0, 1.0, -0.0]]);
    let plain = t([[0.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]);
    assert!(triangles_intersect(&zeros, &plain));
    let nan = t([[f64::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    assert!(!triangles_intersect(&nan, &plain));
}
