//! Refitting after the vertices move keeps every query equal to brute force.

use crate::common::*;
use glam::Vec3;
use meshcast_bvh::BuildOptions;
use meshcast_primitives::Triangle;
use rand::Rng;

/// Moves every vertex: a smooth wave plus a small seeded jitter, the same for shared vertices
/// (a function of position) so the mesh stays closed.
fn deform(triangles: &[Triangle], amplitude: f32, seed: u64) -> Vec<Triangle> {
    let b = bounds(triangles);
    let size = b.extent().max_element();
    let mut r = rng(seed);
    let phase: Vec3 = Vec3::new(r.gen(), r.gen(), r.gen()) * 6.0;
    let warp = |v: Vec3| {
        let p = (v - b.min) / size * 6.0 + phase;
        v + Vec3::new(p.y.sin(), p.z.cos(), (p.x + p.y).sin()) * amplitude * size
    };
    triangles
        .iter()
        .map(|t| Triangle::new(warp(t.v0), warp(t.v1), warp(t.v2)))
        .collect()
}

#[test]
fn refit_after_deformation_matches_brute_force() {
    for (name, rays) in [
        ("cow.obj", 800),
        ("spot.obj", 600),
        ("stanford-bunny.obj", 150),
    ] {
        let mesh = load_mesh(name);
        for options in all_options() {
            let mut bvh = build(&mesh, &options);
            for (step, amplitude) in [0.01f32, 0.1, 0.3].into_iter().enumerate() {
                let moved = deform(&mesh, amplitude, 50 + step as u64);
                let boxes = boxes(&moved);
                bvh.refit(&boxes).expect("same primitive count");
                bvh.validate(&boxes).expect("valid after refit");
                if options == BuildOptions::default() || step == 2 {
                    let reference =
                        Reference::new(&moved, mixed_rays(&moved, 60 + step as u64, rays));
                    reference.check(
                        &moved,
                        &bvh,
                        &format!("{name} refit step {step} {options:?}"),
                    );
                }
            }
        }
    }
}

#[test]
fn refit_of_an_unchanged_mesh_changes_nothing() {
    let mesh = load_mesh("teapot.obj");
    for options in all_options() {
        let mut bvh = build(&mesh, &options);
        let before = bvh.nodes().to_vec();
        bvh.refit(&boxes(&mesh)).expect("same count");
        assert_eq!(bvh.nodes(), before, "{options:?}");
    }
}

#[test]
fn refit_with_vertices_turned_nan_stays_valid_and_exact() {
    let mesh = load_mesh("cow.obj");
    let mut moved = mesh.clone();
    for t in moved.iter_mut().step_by(7) {
        t.v2 = Vec3::NAN;
    }
    for options in all_options() {
        let mut bvh = build(&mesh, &options);
        let boxes = boxes(&moved);
        bvh.refit(&boxes).expect("same count");
        bvh.validate(&boxes).expect("valid");
        let reference = Reference::new(&moved, mixed_rays(&mesh, 70, 300));
        reference.check(&moved, &bvh, &format!("cow with NaN {options:?}"));
    }
}

/// Refitting the eight-wide hierarchy keeps its queries equal to brute force.
#[test]
fn wide_refit_after_deformation_matches_brute_force() {
    let mesh = load_mesh("cow.obj");
    for options in all_options() {
        let bvh = build(&mesh, &options);
        let mut wide = meshcast_bvh::WideBvh::from_binary(&bvh);
        for (step, amplitude) in [0.05f32, 0.4].into_iter().enumerate() {
            let moved = deform(&mesh, amplitude, 70 + step as u64);
            let boxes = boxes(&moved);
            wide.refit(&boxes).expect("same primitive count");
            wide.validate(&boxes).expect("valid after refit");
            let reference = Reference::new(&moved, mixed_rays(&moved, 80 + step as u64, 200));
            let wides = every_kernel(&wide);
            for ray in 0..reference.rays.len() {
                reference.check_wide(
                    &moved,
                    &wides,
                    ray,
                    &format!("refit step {step} {options:?}"),
                );
            }
        }
        assert!(wide.refit(&boxes(&mesh)[1..]).is_err());
    }
}
