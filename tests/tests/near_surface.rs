//! `Mesh::sample_near_surface` on the assets: the distances equal the per-point signed
//! distances bit for bit, the offsets have the documented mix and spread (means, standard
//! deviations, distances within the offsets), the same points for a seed whatever the
//! number of threads, and degenerate input.

use meshcast::glam::Vec3;
use meshcast::{Mesh, MeshError, MeshFiles, NearSurfaceSamples, PointQueries, FINE_SIGMA_DIVISOR};
use meshcast_testkit::asset;

const POINTS: usize = 20_000;

/// The surface points of each offset group, `⌊47 n / 50⌋ / 2`.
fn near_count(n: usize) -> usize {
    n * 47 / 50 / 2
}

/// Checks one group's offsets along each axis: mean within 5 standard errors of 0, standard
/// deviation within 5% of `sigma`.
fn check_offsets(name: &str, offsets: &[Vec3], sigma: f32) {
    let count = offsets.len() as f64;
    for axis in 0..3 {
        let values: Vec<f64> = offsets.iter().map(|o| f64::from(o[axis])).collect();
        let mean = values.iter().sum::<f64>() / count;
        let deviation =
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1.0)).sqrt();
        let sigma = f64::from(sigma);
        assert!(
            mean.abs() < 5.0 * sigma / count.sqrt(),
            "{name}: axis {axis}: mean {mean}, sigma {sigma}"
        );
        assert!(
            (deviation / sigma - 1.0).abs() < 0.05,
            "{name}: axis {axis}: standard deviation {deviation}, sigma {sigma}"
        );
    }
}

#[test]
fn distances_are_the_per_point_ones_and_offsets_are_gaussian() {
    for name in ["stanford-bunny.obj", "cow.obj", "suzanne.obj"] {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let sigma = 0.01 * mesh.bounds().extent().length();
        let near = mesh
            .sample_near_surface(POINTS, sigma, 4)
            .expect("valid input");
        assert_eq!(near.len(), POINTS);
        assert_eq!(near.distances.len(), POINTS);
        for (point, &distance) in near.points.iter().zip(&near.distances) {
            let expected = mesh.signed_distance(*point).expect("a finite point");
            assert_eq!(distance.to_bits(), expected.to_bits(), "{name}: at {point}");
        }

        let m = near_count(POINTS);
        let surface = mesh.sample_surface(m, 4);
        let fine = sigma / FINE_SIGMA_DIVISOR;
        for (group, sigma) in [(0, sigma), (1, fine)] {
            let points = &near.points[group * m..(group + 1) * m];
            let distances = &near.distances[group * m..(group + 1) * m];
            let offsets: Vec<Vec3> = points
                .iter()
                .zip(&surface.points)
                .map(|(p, s)| *p - *s)
                .collect();
            check_offsets(name, &offsets, sigma);
            // The surface point is on the surface: no point is farther from it than that.
            for (offset, distance) in offsets.iter().zip(distances) {
                assert!(
                    distance.abs() <= offset.length() * 1.0001 + 1e-7,
                    "{name}: distance {distance}, offset {offset}"
                );
            }
            // Near a surface, the distance is about the offset across it: a half-normal's
            // mean σ √(2 / π), less where the surface curves or another part is nearer.
            let mean = distances.iter().map(|d| f64::from(d.abs())).sum::<f64>() / m as f64;
            let half_normal = f64::from(sigma) * (2.0 / std::f64::consts::PI).sqrt();
            assert!(
                (0.6 * half_normal..1.05 * half_normal).contains(&mean),
                "{name}: mean distance {mean}, half-normal mean {half_normal}"
            );
            // On a closed mesh, about half fall inside.
            if mesh.is_closed() {
                let inside = distances.iter().filter(|d| d.is_sign_negative()).count();
                let share = inside as f64 / m as f64;
                assert!((0.45..0.55).contains(&share), "{name}: {share} inside");
            }
        }
        // The rest: uniform in the box.
        let bounds = mesh.bounds();
        let rest = &near.points[2 * m..];
        assert_eq!(rest.len(), POINTS - 2 * m);
        assert!(rest
            .iter()
            .all(|p| p.cmpge(bounds.min).all() && p.cmple(bounds.max).all()));
        let centre = rest.iter().fold(Vec3::ZERO, |sum, p| sum + *p) / rest.len() as f32;
        let off = (centre - (bounds.min + bounds.max) / 2.0).abs() / bounds.extent();
        assert!(
            off.max_element() < 0.05,
            "{name}: uniform points centred at {off}"
        );
    }
}

#[test]
fn near_samples_depend_on_the_seed_alone() {
    let mesh = Mesh::from_obj(asset("stanford-bunny.obj")).expect("the asset loads");
    let in_pool = |threads: usize, seed: u64| -> NearSurfaceSamples {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
            .install(|| mesh.sample_near_surface(5000, 0.003, seed))
            .expect("valid input")
    };
    let one = in_pool(1, 2);
    assert_eq!(one, in_pool(4, 2));
    assert_ne!(one.points, in_pool(1, 3).points);
}

#[test]
fn degenerate_input_gives_no_points_or_an_error() {
    let cow = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    assert!(cow
        .sample_near_surface(0, 0.1, 1)
        .expect("n = 0")
        .is_empty());
    let empty = Mesh::from_triangles(&[], &[]).expect("an empty mesh");
    assert!(empty
        .sample_near_surface(10, 0.1, 1)
        .expect("empty")
        .is_empty());
    let flat = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], &[[0, 1, 2]])
        .expect("a degenerate triangle");
    assert!(flat
        .sample_near_surface(10, 0.1, 1)
        .expect("no area")
        .is_empty());
    for bad in [f32::NAN, -1.0, f32::INFINITY] {
        let err = cow.sample_near_surface(10, bad, 1).unwrap_err();
        assert!(
            matches!(
                err,
                MeshError::InvalidParameter {
                    parameter: "sigma",
                    ..
                }
            ),
            "{bad}: {err}"
        );
    }
    // Sigma 0: the surface points themselves, at distance 0 or nearly.
    let on = cow.sample_near_surface(1000, 0.0, 1).expect("valid");
    assert!(on.distances[..940].iter().all(|d| d.abs() < 1e-5));
    // A single point is a uniform one.
    assert_eq!(cow.sample_near_surface(1, 0.1, 1).expect("valid").len(), 1);
}
