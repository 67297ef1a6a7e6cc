//! The polygon test (convex, concave, points on edges and vertices, polygons sharing edges) and
//! the triangulation (fan for convex faces, exact cover for concave ones).

use crate::common::config;
use glam::{DVec2, Quat, Vec3};
use meshcast_primitives::{triangulate, Polygon, Ray};
use proptest::prelude::*;

fn xy(points: &[(f32, f32)], z: f32) -> Vec<Vec3> {
    points.iter().map(|&(x, y)| Vec3::new(x, y, z)).collect()
}

/// Whether a point `(x, y)` lies inside a shape.
type Inside = dyn Fn(f32, f32) -> bool;

const L_SHAPE: [(f32, f32); 6] = [
    (0.0, 0.0),
    (2.0, 0.0),
    (2.0, 1.0),
    (1.0, 1.0),
    (1.0, 2.0),
    (0.0, 2.0),
];
const U_SHAPE: [(f32, f32); 8] = [
    (0.0, 0.0),
    (3.0, 0.0),
    (3.0, 2.0),
    (2.0, 2.0),
    (2.0, 1.0),
    (1.0, 1.0),
    (1.0, 2.0),
    (0.0, 2.0),
];

/// Casts a ray down through `(x, y)` (from above `z`) and checks the hit's point against its
/// fan triangle; returns whether it hit.
fn hits_at(polygon: &Polygon, x: f32, y: f32, z: f32) -> bool {
    let ray = Ray::new(Vec3::new(x, y, z + 1.0), Vec3::NEG_Z);
    let Some(hit) = polygon.intersect(&ray) else {
        return false;
    };
    assert_eq!(hit.t, 1.0);
    let fan = polygon.fan_triangle(hit.triangle).expect("a fan triangle");
    assert!(
        hit.u >= 0.0 && hit.v >= 0.0 && hit.u + hit.v <= 1.0,
        "{hit:?}"
    );
    assert!(hit.point(&fan).distance(ray.at(hit.t)) < 1e-5, "{hit:?}");
    true
}

#[test]
fn convex_hexagon_in_both_windings() {
    let hexagon: Vec<(f32, f32)> = (0..6)
        .map(|i| {
            let a = i as f32 * core::f32::consts::FRAC_PI_3;
            (a.cos(), a.sin())
        })
        .collect();
    let mut reversed = hexagon.clone();
    reversed.reverse();
    for corners in [hexagon, reversed] {
        let polygon = Polygon::new(xy(&corners, 0.5)).expect("valid");
        assert!((polygon.area() - 1.5 * 3f32.sqrt()).abs() < 1e-5);
        assert!(hits_at(&polygon, 0.0, 0.0, 0.5));
        assert!(hits_at(&polygon, 0.9, 0.05, 0.5));
        assert!(hits_at(&polygon, -0.45, -0.8, 0.5));
        assert!(!hits_at(&polygon, 0.9, 0.3, 0.5));
        assert!(!hits_at(&polygon, 0.0, 0.9, 0.5));
        assert_eq!(
            polygon.triangulate(),
            vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]
        );
    }
}

/// Concave shapes, scanned on a grid that avoids their edges, against the analytic inside.
#[test]
fn concave_l_and_u_shapes_match_their_analytic_inside() {
    let inside_l =
        |x: f32, y: f32| (0.0..2.0).contains(&x) && (0.0..2.0).contains(&y) && (x < 1.0 || y < 1.0);
    let inside_u = |x: f32, y: f32| {
        (0.0..3.0).contains(&x) && (0.0..2.0).contains(&y) && !(x > 1.0 && x < 2.0 && y > 1.0)
    };
    let shapes: [(&[(f32, f32)], &Inside); 2] = [(&L_SHAPE, &inside_l), (&U_SHAPE, &inside_u)];
    for (corners, inside) in shapes {
        for reverse in [false, true] {
            let mut corners = corners.to_vec();
            if reverse {
                corners.reverse();
            }
            let polygon = Polygon::new(xy(&corners, -2.0)).expect("valid");
            for i in 0..40 {
                for j in 0..30 {
                    let (x, y) = (-0.475 + i as f32 * 0.1, -0.475 + j as f32 * 0.1);
                    assert_eq!(
                        hits_at(&polygon, x, y, -2.0),
                        inside(x, y),
                        "{corners:?} at {x} {y}"
                    );
                }
            }
        }
    }
}

/// The half-open rule on a unit square in the plane z = 0 (projected on x, y): the edges at
/// x = 0 and y = 0 are inside, those at x = 1 and y = 1 outside; of the corners only (0, 0).
#[test]
fn points_exactly_on_edges_and_vertices() {
    let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    for corners in [square.to_vec(), square.iter().rev().copied().collect()] {
        let polygon = Polygon::new(xy(&corners, 0.0)).expect("valid");
        let cases = [
            ((0.0, 0.5), true),
            ((0.5, 0.0), true),
            ((1.0, 0.5), false),
            ((0.5, 1.0), false),
            ((0.0, 0.0), true),
            ((1.0, 0.0), false),
            ((1.0, 1.0), false),
            ((0.0, 1.0), false),
        ];
        for ((x, y), inside) in cases {
            assert_eq!(hits_at(&polygon, x, y, 0.0), inside, "({x}, {y})");
            assert_eq!(polygon.contains(Vec3::new(x, y, 0.0)), inside);
        }
    }
    // A diagonal edge: points exactly on it are decided once, consistently.
    let triangle = Polygon::new(xy(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)], 0.0)).expect("valid");
    let other = Polygon::new(xy(&[(0.0, 0.0), (1.0, 1.0), (0.0, 1.0)], 0.0)).expect("valid");
    for k in 1..8 {
        let p = k as f32 / 8.0;
        assert_eq!(
            u8::from(hits_at(&triangle, p, p, 0.0)) + u8::from(hits_at(&other, p, p, 0.0)),
            1
        );
    }
}

/// Polygons tiling the rectangle [0, 4] x [0, 2] of an axis plane, in mixed windings: an L, a
/// square in its notch, a rectangle with a vertex in the middle of an edge, and two triangles
/// sharing a diagonal.
fn tiling(axis: usize, level: f32) -> Vec<Polygon> {
    let faces: [&[(f32, f32)]; 6] = [
        &L_SHAPE,
        &[(1.0, 1.0), (2.0, 1.0), (2.0, 2.0), (1.0, 2.0)],
        &[(3.0, 2.0), (3.0, 0.0), (2.0, 0.0), (2.0, 1.0), (2.0, 2.0)],
        &[(3.0, 0.0), (4.0, 0.0), (4.0, 2.0)],
        &[(3.0, 2.0), (4.0, 2.0), (3.0, 0.0)],
        // Not part of the tiling: a far-away polygon that must never be hit.
        &[(10.0, 10.0), (11.0, 10.0), (11.0, 11.0)],
    ];
    faces
        .iter()
        .map(|face| {
            let vertices: Vec<Vec3> = face
                .iter()
                .map(|&(a, b)| place(axis, a, b, level))
                .collect();
            Polygon::new(vertices).expect("valid")
        })
        .collect()
}

/// The point with in-plane coordinates `(a, b)` on the plane `axis = level`.
fn place(axis: usize, a: f32, b: f32, level: f32) -> Vec3 {
    let mut p = Vec3::ZERO;
    p[axis] = level;
    p[(axis + 1) % 3] = a;
    p[(axis + 2) % 3] = b;
    p
}

proptest! {
    #![proptest_config(config(3000))]

    /// A ray from anywhere through a point of the tiling's interior hits exactly one polygon,
    /// also on shared edges and vertices (coordinates on a 1/8 grid hit them often).
    #[test]
    fn shared_edges_and_vertices_belong_to_exactly_one_polygon(
        axis in 0usize..3,
        level in prop_oneof![Just(0.0f32), Just(-1.5), -100.0f32..100.0],
        grid in (1u32..32, 1u32..16),
        jitter in prop_oneof![Just((0.0f32, 0.0f32)), (0.0f32..0.125, 0.0f32..0.125)],
        from in crate::common::point(50.0),
    ) {
        let (a, b) = (grid.0 as f32 / 8.0 + jitter.0, grid.1 as f32 / 8.0 + jitter.1);
        prop_assume!(a < 4.0 && b < 2.0);
        let target = place(axis, a, b, level);
        let mut origin = from;
        // From the side away from the plane by at least 1: not grazing.
        origin[axis] = level + if from[axis] < 0.0 { from[axis] - 1.0 } else { from[axis] + 1.0 };
        let polygons = tiling(axis, level);
        for ray in [Ray::new(origin, target - origin), Ray::new(place(axis, a, b, level + 3.0), target - place(axis, a, b, level + 3.0))] {
            let hits: Vec<usize> = polygons
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.intersect(&ray).map(|_| i))
                .collect();
            prop_assert_eq!(hits.len(), 1, "{:?} through ({}, {}) hit {:?}", ray, a, b, hits);
        }
    }

    /// Random star-shaped polygons (concave in general) in random orientations: `n - 2`
    /// triangles wound like the polygon, whose areas add up to the polygon's and which cover
    /// each sample point inside it exactly once, and no point outside.
    #[test]
    fn triangulation_covers_the_polygon_exactly(
        steps in prop::collection::vec((0.05f32..1.0, 0.2f32..1.0), 4..16),
        rotation in (crate::common::point(1.0), -3.2f32..3.2),
        offset in crate::common::point(10.0),
        samples in prop::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 40),
    ) {
        let total: f32 = steps.iter().map(|s| s.0).sum();
        // Every angular step below half a turn: star-shaped around the origin, hence simple.
        prop_assume!(steps.iter().all(|s| s.0 < 0.45 * total));
        let mut angle = 0.0;
        let flat: Vec<DVec2> = steps
            .iter()
            .map(|&(step, radius)| {
                angle += step / total * core::f32::consts::TAU * 0.999;
                DVec2::new(f64::from(radius * angle.cos()), f64::from(radius * angle.sin()))
            })
            .collect();
        let q = Quat::from_axis_angle(rotation.0.normalize_or(Vec3::Y), rotation.1);
        let lift = |p: DVec2| q * Vec3::new(p.x as f32, p.y as f32, 0.0) + offset;
        let vertices: Vec<Vec3> = flat.iter().map(|&p| lift(p)).collect();
        let polygon = Polygon::new(vertices.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let triangles = triangulate(&vertices);
        prop_assert_eq!(&triangles, &polygon.triangulate());
        prop_assert_eq!(triangles.len(), vertices.len() - 2);
        let mut area = 0.0;
        for t in &triangles {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let n = (b - a).cross(c - a);
            prop_assert!(n.dot(polygon.normal()) >= -1e-5 * polygon.normal().length(), "{:?} wound backwards", t);
            area += 0.5 * n.length();
        }
        prop_assert!((area - polygon.area()).abs() <= 1e-4 * polygon.area().max(1.0), "{} vs {}", area, polygon.area());

        // Coverage, in the polygon's own 2D coordinates, away from every edge.
        let flat_triangles: Vec<[DVec2; 3]> = triangles.iter().map(|t| t.map(|i| flat[i as usize])).collect();
        let mut edges: Vec<(DVec2, DVec2)> = flat_triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .collect();
        edges.extend((0..flat.len()).map(|i| (flat[i], flat[(i + 1) % flat.len()])));
        for (x, y) in samples {
            let p = DVec2::new(f64::from(x), f64::from(y));
            if edges.iter().any(|&(a, b)| distance_to_segment(p, a, b) < 1e-3) {
                continue;
            }
            let covering = flat_triangles.iter().filter(|t| in_triangle(p, t)).count();
            let inside = crossing_number_inside(p, &flat);
            prop_assert_eq!(covering, usize::from(inside), "at {:?}", p);
        }
    }

    /// Convex polygons keep the fan, whatever their orientation and winding.
    #[test]
    fn convex_polygons_get_the_fan(
        steps in prop::collection::vec(0.05f32..1.0, 3..24),
        radii in (0.1f32..5.0, 0.1f32..5.0),
        rotation in (crate::common::point(1.0), -3.2f32..3.2),
        reverse in any::<bool>(),
    ) {
        let total: f32 = steps.iter().sum();
        let mut angle = 0.0;
        let q = Quat::from_axis_angle(rotation.0.normalize_or(Vec3::Y), rotation.1);
        let mut vertices: Vec<Vec3> = steps
            .iter()
            .map(|&step| {
                angle += step / total * core::f32::consts::TAU;
                q * Vec3::new(radii.0 * angle.cos(), radii.1 * angle.sin(), 0.0)
            })
            .collect();
        if reverse {
            vertices.reverse();
        }
        let fan: Vec<[u32; 3]> = (1..vertices.len() as u32 - 1).map(|i| [0, i, i + 1]).collect();
        prop_assert_eq!(triangulate(&vertices), fan);
    }
}

fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let ab = b - a;
    let s = ((p - a).dot(ab) / ab.length_squared().max(1e-300)).clamp(0.0, 1.0);
    p.distance(a + ab * s)
}

fn in_triangle(p: DVec2, [a, b, c]: &[DVec2; 3]) -> bool {
    let side = |a: DVec2, b: DVec2| (b - a).perp_dot(p - a);
    let (s0, s1, s2) = (side(*a, *b), side(*b, *c), side(*c, *a));
    (s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0) || (s0 <= 0.0 && s1 <= 0.0 && s2 <= 0.0)
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
