//! The quality ladder's promises: every step validates and respects the leaf size, and
//! [`Quality::High`]'s reinsertion never makes the tree costlier than [`Quality::Balanced`]'s,
//! on meshes, random soups and the worst inputs.

use std::cmp::Ordering;

use crate::common::*;
use glam::Vec3;
use meshcast_bvh::{BuildOptions, Bvh, Parallel, Quality};
use meshcast_primitives::Aabb;
use rand::Rng;

/// Builds `boxes` at Balanced and High with `options`, validates both, checks the leaf size,
/// and returns their SAH costs.
fn balanced_and_high(boxes: &[Aabb], options: BuildOptions, case: &str) -> (f64, f64) {
    let cost = |quality| {
        let options = BuildOptions { quality, ..options };
        let bvh = Bvh::build(boxes, &options);
        bvh.validate(boxes)
            .unwrap_or_else(|e| panic!("{case} {options:?}: {e}"));
        let stats = bvh.stats();
        assert!(
            stats.leaf_size_histogram.len() <= options.max_leaf_primitives.max(1) + 1,
            "{case} {options:?}: leaves {:?}",
            stats.leaf_size_histogram
        );
        assert_eq!(
            stats.primitive_count + stats.dropped_count,
            boxes.len(),
            "{case}"
        );
        stats.sah_cost
    };
    (cost(Quality::Balanced), cost(Quality::High))
}

/// The options High is checked with: the default, a mesh's (leaves of four), single
/// primitives per leaf.
fn options() -> [BuildOptions; 3] {
    let base = BuildOptions::default();
    [
        base,
        BuildOptions {
            leaf_block: 4,
            ..base
        },
        BuildOptions {
            max_leaf_primitives: 1,
            parallel: Parallel::Sequential,
            ..base
        },
    ]
}

#[test]
fn high_quality_costs_no_more_than_balanced_on_meshes() {
    for name in ["stanford-bunny.obj", "fandisk.obj", "cow.obj"] {
        let boxes = boxes(&load_mesh(name));
        for options in options() {
            let (balanced, high) = balanced_and_high(&boxes, options, name);
            assert!(
                high <= balanced,
                "{name}: high {high} > balanced {balanced}"
            );
        }
    }
}

#[test]
fn high_quality_costs_no_more_than_balanced_on_random_soups() {
    for (seed, count) in [(60, 10), (61, 100), (62, 1000), (63, 20_000)] {
        let boxes = boxes(&random_soup(seed, count));
        for options in options() {
            let case = format!("soup seed {seed}, {count} triangles");
            let (balanced, high) = balanced_and_high(&boxes, options, &case);
            assert!(
                high <= balanced,
                "{case}: high {high} > balanced {balanced}"
            );
        }
    }
}

#[test]
fn reinsertion_survives_adversarial_input() {
    let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
    let mut r = rng(64);
    let huge: Vec<Aabb> = (0..500)
        .map(|_| {
            let c = Vec3::new(r.gen(), r.gen(), r.gen()) * 2.0e38 - 1.0e38;
            Aabb::new(c, c + Vec3::splat(1.0e37))
        })
        .collect();
    let large: Vec<Aabb> = (0..500)
        .map(|_| {
            let c = Vec3::new(r.gen(), r.gen(), r.gen()) * 1.0e18;
            Aabb::new(c, c + Vec3::splat(1.0e15))
        })
        .collect();
    let line: Vec<Aabb> = (0..300)
        .map(|i| Aabb::new(Vec3::X * i as f32, Vec3::X * (i as f32 + 0.5)))
        .collect();
    let flat: Vec<Aabb> = (0..300)
        .map(|_| {
            let c = Vec3::new(r.gen(), r.gen(), 0.0);
            Aabb::new(c, c + Vec3::new(0.01, 0.01, 0.0))
        })
        .collect();
    let cases: [(&str, Vec<Aabb>); 7] = [
        ("all equal", vec![unit; 1000]),
        ("one", vec![unit]),
        (
            "two",
            vec![unit, Aabb::new(Vec3::splat(2.0), Vec3::splat(3.0))],
        ),
        ("huge coordinates", huge),
        ("large coordinates", large),
        ("zero-area line", line),
        ("flat", flat),
    ];
    for (case, boxes) in &cases {
        for options in options() {
            let (balanced, high) = balanced_and_high(boxes, options, case);
            // Huge coordinates overflow the areas: both costs are then NaN.
            assert_ne!(
                high.partial_cmp(&balanced),
                Some(Ordering::Greater),
                "{case}: high {high} > balanced {balanced}"
            );
            let high = BuildOptions {
                quality: Quality::High,
                ..options
            };
            let sequential = Bvh::build(
                boxes,
                &BuildOptions {
                    parallel: Parallel::Sequential,
                    ..high
                },
            );
            let parallel = Bvh::build(
                boxes,
                &BuildOptions {
                    parallel: Parallel::Rayon,
                    ..high
                },
            );
            assert_eq!(sequential.nodes(), parallel.nodes(), "{case}");
        }
    }
}
