//! `Mesh::sample_surface_even` on the assets: every pair at least the radius asked apart
//! (all pairs, brute force), at most `n` points, a subset of the uniform candidates, the
//! same for a seed whatever the number of threads, and degenerate input.

use meshcast::{Mesh, MeshError, MeshFiles, SurfaceSamples};
use meshcast_testkit::{asset, triangle_areas};

const ASSETS: [&str; 4] = ["stanford-bunny.obj", "cow.obj", "suzanne.obj", "teapot.obj"];

/// The least distance between two of the points, in `f64`, over all pairs.
fn least_distance(samples: &SurfaceSamples) -> f64 {
    let points = &samples.points;
    let mut least = f64::INFINITY;
    for (i, p) in points.iter().enumerate() {
        for q in &points[i + 1..] {
            least = least.min((p.as_dvec3() - q.as_dvec3()).length());
        }
    }
    least
}

/// Yuksel's `r_max` for `n` points on the mesh.
fn r_max(mesh: &Mesh, n: usize) -> f64 {
    let area: f64 = triangle_areas(mesh).iter().sum();
    (area / (2.0 * 3f64.sqrt() * n as f64)).sqrt()
}

#[test]
fn pairs_are_at_least_the_radius_apart_on_the_assets() {
    let n = 1500;
    for name in ASSETS {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let r_max = r_max(&mesh, n);
        // Without a radius: n points, spread far better than uniform ones.
        let free = mesh.sample_surface_even(n, None, 11).expect("valid input");
        assert_eq!(free.len(), n, "{name}");
        let free_least = least_distance(&free);
        let uniform_least = least_distance(&mesh.sample_surface(n, 11));
        println!(
            "{name}: least distance / 2 r_max: {:.3} even, {:.3} uniform",
            free_least / (2.0 * r_max),
            uniform_least / (2.0 * r_max)
        );
        assert!(free_least > 0.3 * 2.0 * r_max, "{name}: {free_least}");
        assert!(free_least > 10.0 * uniform_least, "{name}");

        // With a radius near and above what the elimination gives alone.
        for factor in [1.2, 1.5, 2.5] {
            let radius = (factor * r_max) as f32;
            let samples = mesh
                .sample_surface_even(n, Some(radius), 11)
                .expect("valid input");
            let least = least_distance(&samples);
            assert!(
                least >= f64::from(radius),
                "{name}: radius {radius}: least distance {least}"
            );
            assert!(samples.len() <= n, "{name}: {}", samples.len());
            assert!(samples.len() > n / 10, "{name}: {}", samples.len());
            println!(
                "{name}: radius {factor} r_max: {} points, least distance {least:.3e}",
                samples.len()
            );
        }
    }
}

#[test]
fn even_samples_are_candidates() {
    let mesh = Mesh::from_obj(asset("spot.obj")).expect("the asset loads");
    let samples = mesh
        .sample_surface_even(400, Some(0.0), 5)
        .expect("valid input");
    let candidates = mesh.sample_surface(2000, 5);
    let mut next = 0;
    for (s, point) in samples.points.iter().enumerate() {
        let c = next
            + candidates.points[next..]
                .iter()
                .position(|q| q == point)
                .expect("a candidate, in order");
        assert_eq!(samples.triangles[s], candidates.triangles[c]);
        assert_eq!(samples.barycentrics[s], candidates.barycentrics[c]);
        next = c + 1;
    }
    // Radius 0 asks nothing more than none.
    assert_eq!(
        samples,
        mesh.sample_surface_even(400, None, 5).expect("valid")
    );
}

#[test]
fn even_samples_depend_on_the_seed_alone() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    let in_pool = |threads: usize, seed: u64| -> SurfaceSamples {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
            .install(|| mesh.sample_surface_even(3000, Some(0.004), seed))
            .expect("valid input")
    };
    let one = in_pool(1, 9);
    assert_eq!(one, in_pool(2, 9));
    assert_eq!(one, in_pool(7, 9));
    assert_ne!(one, in_pool(1, 10));
}

#[test]
fn degenerate_input_gives_no_points_or_an_error() {
    let cow = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    assert!(cow
        .sample_surface_even(0, Some(0.1), 1)
        .expect("n = 0")
        .is_empty());
    let empty = Mesh::from_triangles(&[], &[]).expect("an empty mesh");
    assert!(empty
        .sample_surface_even(10, None, 1)
        .expect("empty")
        .is_empty());
    let flat = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], &[[0, 1, 2]])
        .expect("a degenerate triangle");
    assert!(flat
        .sample_surface_even(10, None, 1)
        .expect("no area")
        .is_empty());
    for bad in [f32::NAN, -1.0, -0.0001, f32::INFINITY, f32::NEG_INFINITY] {
        let err = cow.sample_surface_even(10, Some(bad), 1).unwrap_err();
        assert!(
            matches!(
                err,
                MeshError::InvalidParameter {
                    parameter: "radius",
                    ..
                }
            ),
            "{bad}: {err}"
        );
    }
    assert!(matches!(
        cow.sample_surface_even(usize::MAX / 2, None, 1),
        Err(MeshError::InvalidParameter { parameter: "n", .. })
    ));
    // -0.0 is a radius of zero.
    assert_eq!(
        cow.sample_surface_even(50, Some(-0.0), 1)
            .expect("valid")
            .len(),
        50
    );
    // One point, and a radius larger than the mesh: one point is left.
    assert_eq!(cow.sample_surface_even(1, None, 1).expect("valid").len(), 1);
    assert_eq!(
        cow.sample_surface_even(100, Some(1e6), 1)
            .expect("valid")
            .len(),
        1
    );
}
