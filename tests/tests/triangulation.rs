//! The triangulation against the original `O(n²)` ear clipper (the testkit's reference): the
//! same triangles for every convex face, and the same guarantees (n - 2 triangles, none wound
//! backwards, areas adding up to the face's) on every face of the assets and on random
//! concave polygons, whose triangles may differ, as the ears are now taken smallest first.

use glam::{DVec2, Vec3};
use meshcast::primitives::triangulate;
use meshcast_testkit::{all_assets, obj_face_corners, reference_triangulate, rng};
use rand::Rng;

/// The total area of the triangles projected along `normal` (the face's Newell normal, of
/// length twice the face's projected area), and the smallest of their projected signed areas
/// relative to the face's (negative for a triangle wound backwards). Non-planar faces are
/// compared in projection, where any two exact covers have the same area.
fn area_and_winding(vertices: &[Vec3], triangles: &[[u32; 3]], normal: Vec3) -> (f64, f64) {
    let normal = normal.as_dvec3();
    let mut area = 0.0;
    let mut worst = f64::INFINITY;
    for t in triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize].as_dvec3());
        let projected = (b - a).cross(c - a).dot(normal) / normal.length_squared();
        area += projected.abs();
        worst = worst.min(projected);
    }
    (area * 0.5 * normal.length(), worst)
}

fn newell(vertices: &[Vec3]) -> Vec3 {
    (1..vertices.len() - 1)
        .map(|i| (vertices[i] - vertices[0]).cross(vertices[i + 1] - vertices[0]))
        .sum()
}

/// Where the new triangles differ from the original clipper's (on concave faces only: a
/// convex face keeps the fan), and the original covered the face exactly in projection, the
/// new ones do too (the same projected area, nothing wound backwards). Faces that fold over
/// themselves in projection (non-planar slivers) only get `n - 2` triangles from either.
#[test]
fn asset_faces_get_what_the_original_clipper_gave_or_as_good() {
    let (mut polygons, mut differ, mut folded) = (0, 0, 0);
    for path in all_assets() {
        let text = std::fs::read_to_string(&path).expect("asset is text");
        for face in obj_face_corners(&text).iter().filter(|f| f.len() > 3) {
            polygons += 1;
            let new = triangulate(face);
            let old = reference_triangulate(face);
            if new == old {
                continue;
            }
            differ += 1;
            assert_eq!(new.len(), old.len());
            let normal = newell(face);
            let (old_area, old_winding) = area_and_winding(face, &old, normal);
            if old_winding < 0.0 {
                folded += 1;
                continue;
            }
            let (new_area, new_winding) = area_and_winding(face, &new, normal);
            assert!(
                (new_area - old_area).abs() <= 1e-5 * old_area,
                "{}: {face:?} {new:?} covers {new_area}, {old:?} {old_area}",
                path.display()
            );
            assert!(new_winding >= -1e-6, "{face:?}: {new:?}");
        }
    }
    assert!(polygons > 0);
    println!("{differ} of {polygons} asset polygons got other triangles, {folded} folded");
}

/// The small concave polygons of the repository's tests and examples: the arrowhead of the
/// documentation keeps its triangles; the others may differ (the smallest ear is cut first,
/// where the original cut the first one from corner 0), covering the polygon exactly all
/// the same.
#[test]
fn small_test_polygons_keep_their_guarantees() {
    let xy = |points: &[(f32, f32)]| -> Vec<Vec3> {
        points.iter().map(|&(x, y)| Vec3::new(x, y, 0.0)).collect()
    };
    let arrow = xy(&[(2.0, 1.0), (1.0, 1.0), (0.0, 2.0), (0.0, 0.0)]);
    assert_eq!(triangulate(&arrow), reference_triangulate(&arrow));
    let polygons = [
        (
            xy(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 1.0), (0.0, 4.0)]),
            10.0,
        ),
        (
            xy(&[(0.0, 0.0), (2.0, 0.0), (1.0, 1.0), (2.0, 2.0), (0.0, 2.0)]),
            3.0,
        ),
        (
            xy(&[
                (0.0, 0.0),
                (2.0, 0.0),
                (2.0, 1.0),
                (1.0, 1.0),
                (1.0, 2.0),
                (0.0, 2.0),
            ]),
            3.0,
        ),
        (
            xy(&[
                (0.0, 0.0),
                (3.0, 0.0),
                (3.0, 2.0),
                (2.0, 2.0),
                (2.0, 1.0),
                (1.0, 1.0),
                (1.0, 2.0),
                (0.0, 2.0),
            ]),
            5.0,
        ),
    ];
    for (polygon, area) in &polygons {
        for reversed in [false, true] {
            let mut polygon = polygon.clone();
            if reversed {
                polygon.reverse();
            }
            let normal = newell(&polygon);
            for triangles in [triangulate(&polygon), reference_triangulate(&polygon)] {
                assert_eq!(triangles.len(), polygon.len() - 2);
                let (covered, winding) = area_and_winding(&polygon, &triangles, normal);
                assert!((covered - area).abs() < 1e-12, "{polygon:?}: {triangles:?}");
                assert!(winding >= 0.0, "{polygon:?}: {triangles:?}");
            }
        }
    }
}

/// Random star-shaped polygons (simple, concave): both clippers give `n - 2` triangles, none
/// wound backwards, covering the polygon's area.
#[test]
fn random_polygons_get_the_original_clippers_guarantees() {
    let mut rng = rng(35);
    for case in 0..300 {
        let n = rng.gen_range(4..300);
        let steps: Vec<f64> = (0..n).map(|_| rng.gen_range(0.05..1.0)).collect();
        let total: f64 = steps.iter().sum();
        let mut angle = 0.0;
        let vertices: Vec<Vec3> = steps
            .iter()
            .map(|step| {
                angle += step / total * core::f64::consts::TAU;
                let p = DVec2::from_angle(angle) * rng.gen_range(0.05..1.0);
                Vec3::new(p.x as f32, 0.5, p.y as f32)
            })
            .collect();
        let normal = newell(&vertices);
        let area = 0.5 * normal.as_dvec3().length();
        for (name, triangles) in [
            ("new", triangulate(&vertices)),
            ("original", reference_triangulate(&vertices)),
        ] {
            assert_eq!(triangles.len(), n - 2, "case {case}: {name}");
            let (covered, winding) = area_and_winding(&vertices, &triangles, normal);
            assert!(
                (covered - area).abs() <= 1e-4 * area,
                "case {case}: {name} covers {covered} of {area}"
            );
            assert!(winding >= -1e-6, "case {case}: {name} wound backwards");
        }
    }
}
