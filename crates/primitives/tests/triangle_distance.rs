//! `triangles_distance` against sampling: the distance is never above that of any two
//! sampled points of the triangles, and never below the nearest sampled pair less the
//! sampling's spacing; its points lie on their triangles at that distance; zero exactly
//! when the exact pair test says they meet.

use glam::DVec3;
use meshcast_primitives::{triangles_distance, triangles_intersect};
use proptest::prelude::*;

/// Barycentric steps per edge when sampling.
const STEPS: usize = 12;

fn samples(t: &[DVec3; 3]) -> Vec<DVec3> {
    let mut points = Vec::new();
    for i in 0..=STEPS {
        for j in 0..=STEPS - i {
            let (u, v) = (i as f64 / STEPS as f64, j as f64 / STEPS as f64);
            points.push(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v);
        }
    }
    points
}

fn longest_edge(t: &[DVec3; 3]) -> f64 {
    t[0].distance(t[1])
        .max(t[1].distance(t[2]))
        .max(t[2].distance(t[0]))
}

/// The distance from `p` to the closed triangle `t`, written plainly: the foot on the plane
/// when the barycentrics of the foot are all non-negative, else the nearest edge point.
fn point_distance(p: DVec3, t: &[DVec3; 3]) -> f64 {
    let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
    let n = e1.cross(e2);
    let mut best = f64::INFINITY;
    if n.length_squared() > 0.0 {
        let foot = p - n * (n.dot(p - t[0]) / n.length_squared());
        let w = foot - t[0];
        let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
        let (dw1, dw2) = (w.dot(e1), w.dot(e2));
        let det = d11 * d22 - d12 * d12;
        let u = (d22 * dw1 - d12 * dw2) / det;
        let v = (d11 * dw2 - d12 * dw1) / det;
        if u >= 0.0 && v >= 0.0 && u + v <= 1.0 {
            best = p.distance(foot);
        }
    }
    for (q, r) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
        let d = r - q;
        let s = if d.length_squared() > 0.0 {
            ((p - q).dot(d) / d.length_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        best = best.min(p.distance(q + d * s));
    }
    best
}

fn check(a: [DVec3; 3], b: [DVec3; 3]) {
    let gap = triangles_distance(&a, &b);
    let scale = a
        .iter()
        .chain(&b)
        .map(|p| p.abs().max_element())
        .fold(1.0, f64::max);
    let tolerance = 1e-12 * scale;
    assert_eq!(
        gap.distance == 0.0,
        triangles_intersect(&a, &b),
        "{a:?} {b:?}"
    );
    assert!(point_distance(gap.on_a, &a) <= tolerance, "{a:?} {b:?}");
    assert!(point_distance(gap.on_b, &b) <= tolerance, "{a:?} {b:?}");
    if gap.distance > 0.0 {
        assert!((gap.on_a.distance(gap.on_b) - gap.distance).abs() <= tolerance);
    }
    let (sa, sb) = (samples(&a), samples(&b));
    let sampled = sa
        .iter()
        .flat_map(|p| sb.iter().map(move |q| p.distance(*q)))
        .fold(f64::INFINITY, f64::min);
    let spacing = (longest_edge(&a) + longest_edge(&b)) / STEPS as f64;
    assert!(
        gap.distance <= sampled + tolerance,
        "{} > {sampled}: {a:?} {b:?}",
        gap.distance
    );
    assert!(gap.distance >= sampled - spacing - tolerance, "{a:?} {b:?}");
    // From each of its points, the other triangle is no nearer than the distance.
    assert!(point_distance(gap.on_a, &b) >= gap.distance - tolerance);
    assert!(point_distance(gap.on_b, &a) >= gap.distance - tolerance);
    let swapped = triangles_distance(&b, &a);
    assert!(
        (swapped.distance - gap.distance).abs() <= tolerance,
        "{a:?} {b:?}"
    );
}

fn point(range: f64) -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-range..range).prop_map(DVec3::from_array)
}

fn grid_point() -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-3i32..=3).prop_map(|c| DVec3::from_array(c.map(f64::from)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn random_triangles_match_sampling(
        a in prop::array::uniform3(point(2.0)),
        b in prop::array::uniform3(point(2.0)),
        offset in point(3.0),
    ) {
        check(a, b.map(|p| p + offset));
    }

    /// Integer corners: touching, coplanar, parallel and degenerate pairs are common.
    #[test]
    fn grid_triangles_match_sampling(
        a in prop::array::uniform3(grid_point()),
        b in prop::array::uniform3(grid_point()),
    ) {
        check(a, b);
    }

    /// Far from the origin, a small gap.
    #[test]
    fn far_triangles_match_sampling(
        a in prop::array::uniform3(point(1.0)),
        b in prop::array::uniform3(point(1.0)),
        lift in 0.0..0.1f64,
    ) {
        let far = DVec3::new(1e5, -2e5, 3e5);
        check(a.map(|p| p + far), b.map(|p| p + far + DVec3::Z * (2.0 + lift)));
    }
}
