//! The triangulation of large and hostile polygons: random star-shaped polygons and spirals
//! are covered exactly (n - 2 triangles, none wound backwards, each inside, areas adding up),
//! and degenerate, self-intersecting and non-finite ones still get n - 2 valid triangles.

use crate::common::config;
use glam::{DVec2, Vec3};
use meshcast_primitives::triangulate;
use proptest::prelude::*;

/// The polygon with these in-plane points on the plane `axis = level`, in the axes after
/// `axis` in cyclic order (so the triangulation projects it back exactly).
fn place(flat: &[DVec2], axis: usize, level: f32) -> Vec<Vec3> {
    flat.iter()
        .map(|p| {
            let mut v = Vec3::splat(level);
            v[(axis + 1) % 3] = p.x as f32;
            v[(axis + 2) % 3] = p.y as f32;
            v
        })
        .collect()
}

/// The in-plane points as the triangulation sees them (rounded to `f32`).
fn rounded(flat: &[DVec2]) -> Vec<DVec2> {
    flat.iter()
        .map(|p| DVec2::new(f64::from(p.x as f32), f64::from(p.y as f32)))
        .collect()
}

fn signed_area(polygon: &[DVec2]) -> f64 {
    let n = polygon.len();
    (0..n)
        .map(|i| polygon[i].perp_dot(polygon[(i + 1) % n]))
        .sum::<f64>()
        * 0.5
}

fn crossing_number_inside(p: DVec2, polygon: &[DVec2]) -> bool {
    let mut inside = false;
    for i in 0..polygon.len() {
        let (a, b) = (polygon[i], polygon[(i + 1) % polygon.len()]);
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) {
            inside = !inside;
        }
    }
    inside
}

/// Checks a triangulation of a simple polygon: `n - 2` triangles of distinct valid corners,
/// each wound like the polygon (or flat), each with its centroid inside the polygon unless
/// flat, their areas adding up to the polygon's.
fn check_exact_cover(flat: &[DVec2], triangles: &[[u32; 3]]) -> Result<(), TestCaseError> {
    let n = flat.len();
    prop_assert_eq!(triangles.len(), n - 2);
    let winding = signed_area(flat).signum();
    let mut total = 0.0;
    for t in triangles {
        prop_assert!(t.iter().all(|&i| (i as usize) < n), "{:?}", t);
        prop_assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2], "{:?}", t);
        let [a, b, c] = t.map(|i| flat[i as usize]);
        let area = 0.5 * (b - a).perp_dot(c - a) * winding;
        prop_assert!(area >= 0.0, "{:?} wound backwards: {}", t, area);
        total += area;
        if area > 0.0 {
            let centroid = (a + b + c) / 3.0;
            prop_assert!(
                crossing_number_inside(centroid, flat),
                "{:?} leaves the polygon",
                t
            );
        }
    }
    let expected = signed_area(flat).abs();
    prop_assert!(
        (total - expected).abs() <= 1e-9 * expected,
        "{} vs {}",
        total,
        expected
    );
    Ok(())
}

/// Checks only what every polygon gets: `n - 2` triangles (none below three corners) of valid
/// corner numbers.
fn check_valid(n: usize, triangles: &[[u32; 3]]) {
    assert_eq!(triangles.len(), n.saturating_sub(2));
    assert!(triangles.iter().flatten().all(|&i| (i as usize) < n));
}

/// A star-shaped polygon around the origin: corners at increasing angles (each step below
/// half a turn) and the given radii.
fn star_shaped(steps: &[(f64, f64)]) -> Vec<DVec2> {
    let total: f64 = steps.iter().map(|s| s.0).sum();
    let mut angle = 0.0;
    steps
        .iter()
        .map(|&(step, radius)| {
            angle += step / total * core::f64::consts::TAU;
            DVec2::from_angle(angle) * radius
        })
        .collect()
}

/// A band of width `width` (in turns' gaps) winding `turns` times, `half` corners on each edge.
fn spiral(half: usize, turns: f64, width: f64) -> Vec<DVec2> {
    let at = |j: usize, w: f64| {
        let angle = turns * core::f64::consts::TAU * j as f64 / (half - 1) as f64;
        DVec2::from_angle(angle) * (1.0 + angle / core::f64::consts::TAU + w)
    };
    let outer = (0..half).map(|j| at(j, width));
    let inner = (0..half).rev().map(|j| at(j, 0.0));
    outer.chain(inner).collect()
}

fn oriented(mut flat: Vec<DVec2>, reverse: bool) -> Vec<DVec2> {
    if reverse {
        flat.reverse();
    }
    rounded(&flat)
}

proptest! {
    #![proptest_config(config(300))]

    /// Star-shaped polygons with random radii, up to a few hundred corners, in any axis plane
    /// and either winding.
    #[test]
    fn random_star_shaped_polygons_are_covered_exactly(
        steps in prop::collection::vec((0.05f64..1.0, 0.05f64..1.0), 4..400),
        axis in 0usize..3,
        level in -100.0f32..100.0,
        reverse in any::<bool>(),
    ) {
        let total: f64 = steps.iter().map(|s| s.0).sum();
        prop_assume!(steps.iter().all(|s| s.0 < 0.45 * total));
        let flat = oriented(star_shaped(&steps), reverse);
        check_exact_cover(&flat, &triangulate(&place(&flat, axis, level)))?;
    }

    /// Spiral bands, concave all along their inner edge.
    #[test]
    fn spirals_are_covered_exactly(
        per_turn in 12.0f64..60.0,
        turns in 0.2f64..5.0,
        width in 0.05f64..0.9,
        axis in 0usize..3,
        reverse in any::<bool>(),
    ) {
        let half = (per_turn * turns) as usize + 2;
        let flat = oriented(spiral(half, turns, width), reverse);
        prop_assume!(is_simple(&flat));
        check_exact_cover(&flat, &triangulate(&place(&flat, axis, 1.5)))?;
    }

    /// Far from the origin, where `f32` coordinates are coarse, the cover is still exact in
    /// the coordinates the polygon really has.
    #[test]
    fn polygons_far_from_the_origin_are_covered_exactly(
        steps in prop::collection::vec((0.05f64..1.0, 0.05f64..1.0), 4..100),
        offset in prop_oneof![Just(1e6f64), Just(-3e7), 1e4f64..1e7],
        scale in prop_oneof![Just(1.0f64), Just(1e-3), Just(1e30)],
    ) {
        let total: f64 = steps.iter().map(|s| s.0).sum();
        prop_assume!(steps.iter().all(|s| s.0 < 0.45 * total));
        let flat: Vec<DVec2> = star_shaped(&steps)
            .iter()
            .map(|&p| (p * 1000.0 + DVec2::splat(offset)) * scale)
            .collect();
        let flat = rounded(&flat);
        // Rounding may fold a spike onto its neighbours: only a simple polygon is checked.
        prop_assume!(is_simple(&flat));
        check_exact_cover(&flat, &triangulate(&place(&flat, 2, 0.0)))?;
    }

    /// Random corners (self-intersecting almost always), with repeats: `n - 2` valid
    /// triangles, and the same ones every time.
    #[test]
    fn random_corners_get_valid_triangles(
        corners in prop::collection::vec((0u8..8, 0u8..8), 0..300),
    ) {
        let vertices: Vec<Vec3> = corners
            .iter()
            .map(|&(x, y)| Vec3::new(f32::from(x), f32::from(y), 0.0))
            .collect();
        let triangles = triangulate(&vertices);
        check_valid(vertices.len(), &triangles);
        prop_assert_eq!(triangulate(&vertices), triangles);
    }
}

/// Whether no two edges of the polygon cross or touch, but at their shared corner (a
/// quadratic check, for the tests' small polygons).
fn is_simple(polygon: &[DVec2]) -> bool {
    let n = polygon.len();
    let edge = |i: usize| (polygon[i], polygon[(i + 1) % n]);
    let side = |a: DVec2, b: DVec2, p: DVec2| (b - a).perp_dot(p - a);
    (0..n).all(|i| {
        (i + 2..n).all(|j| {
            if (j + 1) % n == i {
                return true;
            }
            let ((a, b), (c, d)) = (edge(i), edge(j));
            let apart = |s: f64, t: f64| (s > 0.0 && t > 0.0) || (s < 0.0 && t < 0.0);
            apart(side(a, b, c), side(a, b, d)) || apart(side(c, d, a), side(c, d, b))
        })
    })
}

/// An L with many corners along each straight edge, and the same corner repeated: every
/// collinear corner gives a flat triangle, and together they cover the L exactly.
#[test]
fn collinear_runs_and_repeated_corners_are_covered_exactly() -> Result<(), TestCaseError> {
    let run = |from: DVec2, to: DVec2, count: usize| -> Vec<DVec2> {
        (0..count)
            .map(|k| from.lerp(to, k as f64 / count as f64))
            .collect()
    };
    let corners = [
        (0.0, 0.0),
        (4.0, 0.0),
        (4.0, 1.0),
        (1.0, 1.0),
        (1.0, 4.0),
        (0.0, 4.0),
    ]
    .map(|(x, y)| DVec2::new(x, y));
    let mut l_shape: Vec<DVec2> = (0..6)
        .flat_map(|i| run(corners[i], corners[(i + 1) % 6], 16))
        .collect();
    check_exact_cover(&l_shape, &triangulate(&place(&l_shape, 2, 0.0)))?;
    // Each corner of the L twice in a row.
    for i in (0..6).rev() {
        l_shape.insert(i * 16, corners[i]);
    }
    let triangles = triangulate(&place(&l_shape, 2, 0.0));
    check_valid(l_shape.len(), &triangles);
    let total: f64 = triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| l_shape[i as usize]);
            0.5 * (b - a).perp_dot(c - a)
        })
        .sum();
    assert_eq!(total, 7.0);
    Ok(())
}

#[test]
fn zero_area_self_intersecting_and_non_finite_polygons_get_valid_triangles() {
    let v = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    // All on a line, and all at one point: the fan.
    let line: Vec<Vec3> = (0..50).map(|i| v(i as f32, 2.0 * i as f32)).collect();
    let fan: Vec<[u32; 3]> = (1..49).map(|i| [0, i, i + 1]).collect();
    assert_eq!(triangulate(&line), fan);
    assert_eq!(triangulate(&[Vec3::ONE; 50]), fan);
    // A bow-tie: its two halves wind opposite ways.
    let bow_tie = [v(0.0, 0.0), v(2.0, 2.0), v(2.0, 0.0), v(0.0, 2.0)];
    check_valid(4, &triangulate(&bow_tie));
    // A bow-tie with many corners on its edges.
    let mut long_bow_tie = Vec::new();
    for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
        for k in 0..100 {
            long_bow_tie.push(bow_tie[a].lerp(bow_tie[b], k as f32 / 100.0));
        }
    }
    check_valid(400, &triangulate(&long_bow_tie));
    // NaN and infinite corners: the fan.
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX] {
        let mut star: Vec<Vec3> = (0..40)
            .map(|i| {
                let r = if i % 2 == 0 { 1.0 } else { 0.4 };
                let a = i as f32 / 40.0 * core::f32::consts::TAU;
                v(r * a.cos(), r * a.sin())
            })
            .collect();
        star[7].y = bad;
        let triangles = triangulate(&star);
        check_valid(40, &triangles);
        if !bad.is_finite() {
            assert_eq!(triangles, fan[..38], "{bad}");
        }
    }
}

/// A polygon that winds many times around (a star of 20001 corners stepping almost half a
/// turn each time) has no ears to speak of: it takes the fallbacks and the work bound, and
/// still gets `n - 2` valid triangles.
#[test]
fn a_polygon_without_ears_gets_valid_triangles() {
    let n = 20_001;
    let star: Vec<Vec3> = (0..n)
        .map(|i| {
            let a = (i as f64 * 10_000.0 / n as f64) * core::f64::consts::TAU;
            Vec3::new(a.cos() as f32, a.sin() as f32, 0.0)
        })
        .collect();
    check_valid(n, &triangulate(&star));
}
