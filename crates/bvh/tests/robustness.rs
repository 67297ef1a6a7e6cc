//! The worst inputs: nothing, one primitive, identical primitives, equal centroids, unusable
//! boxes, huge coordinates, trees as deep as the input; and the build's own promises (leaf
//! size, statistics). Determinism across thread counts is tested on pinned pools, with
//! inputs large enough for every parallel path, in `tests/tests/determinism.rs`.

use crate::common::*;
use glam::Vec3;
use meshcast_bvh::{All, Any, BuildOptions, Bvh, Closest, Error, Quality};
use meshcast_primitives::{Aabb, Hit, Ray, Triangle};
use rand::Rng;

fn build_boxes(boxes: &[Aabb], options: &BuildOptions) -> Bvh {
    let bvh = Bvh::build(boxes, options);
    if let Err(e) = bvh.validate(boxes) {
        panic!("invalid hierarchy with {options:?}: {e}");
    }
    bvh
}

#[test]
fn no_primitives_gives_an_empty_hierarchy_that_misses() {
    let ray = Ray::new(Vec3::ZERO, Vec3::X);
    for options in all_options() {
        let bvh = build_boxes(&[], &options);
        assert!(bvh.is_empty());
        assert_eq!(bvh.bounds(), Aabb::EMPTY);
        assert_eq!(
            bvh.walk(&ray, Closest, |_, _| -> Option<Hit> { unreachable!() }),
            None
        );
        assert!(!bvh.walk::<_, Hit>(&ray, Any, |_, _| unreachable!()));
        assert!(bvh
            .walk(&ray, All::EVERY, |_, _| -> Vec<Hit> { unreachable!() })
            .is_empty());
        let stats = bvh.stats();
        assert_eq!(
            (stats.node_count, stats.leaf_count, stats.primitive_count),
            (0, 0, 0)
        );
    }
    let empty: [Triangle; 0] = [];
    assert_eq!(Bvh::empty().cast_primitives(&empty, &ray), None);
}

#[test]
fn one_primitive_is_one_leaf() {
    let tri = [Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y)];
    for options in all_options() {
        let bvh = build(&tri, &options);
        assert_eq!(bvh.nodes().len(), 1);
        assert_eq!(bvh.primitive_order(), [0]);
        let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
        assert_eq!(bvh.cast_primitives(&tri, &ray).map(|h| h.triangle), Some(0));
    }
}

#[test]
fn identical_primitives_split_by_count_and_tie_to_index_zero() {
    let tris = vec![Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y); 5000];
    for options in all_options() {
        let bvh = build(&tris, &options);
        let stats = bvh.stats();
        assert!(
            stats.leaf_size_histogram.len() <= options.max_leaf_primitives + 1,
            "{stats:?}"
        );
        assert!(stats.depth <= 16, "{options:?}: depth {}", stats.depth);
        let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
        let hit = bvh.cast_primitives(&tris, &ray).expect("hit");
        assert_eq!(hit.triangle, 0);
        assert_eq!(bvh.cast_all_primitives(&tris, &ray).len(), 5000);
    }
}

#[test]
fn equal_centroids_of_different_sizes_respect_the_leaf_size() {
    let tris: Vec<Triangle> = (1..=3000)
        .map(|i| {
            let s = i as f32 * 0.01;
            Triangle::new(
                Vec3::new(-s, -s, 0.0),
                Vec3::new(2.0 * s, -s, 0.0),
                Vec3::new(-s, 2.0 * s, 0.0),
            )
        })
        .collect();
    assert!(tris.iter().all(|t| t.centroid() == Vec3::ZERO));
    let reference = check_all_options(&tris, mixed_rays(&tris, 40, 300), "nested");
    assert!(reference.hit_count() > 100);
    for options in all_options() {
        let stats = build(&tris, &options).stats();
        assert!(stats.leaf_size_histogram.len() <= options.max_leaf_primitives + 1);
    }
}

#[test]
fn unusable_boxes_are_dropped_and_counted() {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let mut r = rng(41);
    let mut tris = random_soup(41, 2000);
    let rays = mixed_rays(&tris, 42, 500);
    for (i, t) in tris.iter_mut().enumerate() {
        if r.gen_ratio(1, 5) {
            let v = [
                Vec3::new(nan, 0.0, 0.0),
                Vec3::new(0.0, inf, 0.0),
                Vec3::new(0.0, 0.0, -inf),
            ];
            t.v1 = v[i % 3];
        }
    }
    // glam's `min`/`max` may drop a NaN, so some NaN triangles keep a finite box: those stay
    // in the tree (and never hit); the others are dropped.
    let boxes = boxes(&tris);
    let bad = boxes
        .iter()
        .filter(|b| !b.is_finite() || b.is_empty())
        .count();
    assert!(bad > 100);
    check_all_options(&tris, rays, "soup with NaN and infinite corners");
    for options in all_options() {
        let bvh = build(&tris, &options);
        assert_eq!(bvh.dropped_count(), bad);
        assert_eq!(bvh.stats().dropped_count, bad);
        assert_eq!(bvh.primitive_order().len(), tris.len() - bad);
        assert!(bvh
            .primitive_order()
            .iter()
            .all(|&i| boxes[i as usize].is_finite()));
    }
    // Raw boxes: empty (min > max), NaN, infinite, and point boxes (kept).
    let raw = [
        Aabb::EMPTY,
        Aabb::new(Vec3::ONE, Vec3::ZERO),
        Aabb::new(Vec3::splat(nan), Vec3::ONE),
        Aabb::new(Vec3::ZERO, Vec3::splat(inf)),
        Aabb::new(Vec3::ONE, Vec3::ONE),
        Aabb::new(Vec3::ZERO, Vec3::ONE),
    ];
    for options in all_options() {
        let bvh = build_boxes(&raw, &options);
        assert_eq!(bvh.dropped_count(), 4);
        let mut kept = bvh.primitive_order().to_vec();
        kept.sort();
        assert_eq!(kept, [4, 5]);
        let all_bad = build_boxes(&raw[..4], &options);
        assert!(all_bad.is_empty());
        assert_eq!(all_bad.dropped_count(), 4);
    }
}

#[test]
fn huge_boxes_and_exponential_spacing_build_valid_trees() {
    let huge: Vec<Aabb> = (0..1000)
        .map(|i| {
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            Aabb::new(
                Vec3::splat(s * 3e38 - 1e37),
                Vec3::splat(s * 3e38 + 1e37).min(Vec3::splat(f32::MAX)),
            )
        })
        .collect();
    // Boxes spaced by powers of two: binning peels off one at a time, the tree is as deep as
    // the input, and neither the build nor the traversal may overflow a stack.
    let deep: Vec<Aabb> = (0..250)
        .map(|i| {
            let x = 2f32.powi(i - 125);
            Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x * 1.5, 1.0, 1.0))
        })
        .collect();
    for options in all_options() {
        build_boxes(&huge, &options);
        let bvh = build_boxes(&deep, &options);
        let ray = Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X);
        assert_eq!(
            bvh.walk(&ray, All::EVERY, |slot, r| vec![
                meshcast_primitives::Hit::new(r.t_min.max(1.0), 0.0, 0.0).with_triangle(slot)
            ])
            .len(),
            250
        );
    }
}

#[test]
fn bin_counts_and_leaf_sizes_are_clamped() {
    let soup = random_soup(43, 500);
    for (bins, max_leaf) in [(0, 0), (1, 1), (1000, 1), (33, 100_000)] {
        let options = BuildOptions {
            bins,
            max_leaf_primitives: max_leaf,
            ..BuildOptions::default()
        };
        let stats = build(&soup, &options).stats();
        assert!(stats.leaf_size_histogram.len() <= max_leaf.max(1) + 1);
    }
}

#[test]
fn statistics_add_up() {
    let mesh = load_mesh("fandisk.obj");
    for options in all_options() {
        let bvh = build(&mesh, &options);
        let s = bvh.stats();
        assert_eq!(s.node_count, bvh.nodes().len());
        assert_eq!(s.node_count, 2 * s.leaf_count - 1);
        assert_eq!(s.leaf_size_histogram.iter().sum::<usize>(), s.leaf_count);
        let in_leaves: usize = s
            .leaf_size_histogram
            .iter()
            .enumerate()
            .map(|(k, n)| k * n)
            .sum();
        assert_eq!(in_leaves, mesh.len());
        assert_eq!(s.primitive_count, mesh.len());
        assert!(s.depth >= (s.leaf_count as f64).log2().ceil() as usize);
        assert!(s.sah_cost >= 1.0 && s.sah_cost.is_finite(), "{s:?}");
        assert!(s.bytes >= s.node_count * 32 + mesh.len() * 4);
        assert!((s.bytes_per_primitive - s.bytes as f64 / mesh.len() as f64).abs() < 1e-9);
    }
}

#[test]
fn more_bins_never_cost_much_more_and_the_fast_build_is_close() {
    let mesh = load_mesh("stanford-bunny.obj");
    let cost = |options: BuildOptions| build(&mesh, &options).stats().sah_cost;
    let sah16 = cost(BuildOptions::default());
    let sah32 = cost(BuildOptions {
        bins: 32,
        ..BuildOptions::default()
    });
    let fast = cost(BuildOptions {
        quality: Quality::Fast,
        ..BuildOptions::default()
    });
    assert!(sah16 <= sah32 * 1.1, "16 bins {sah16}, 32 bins {sah32}");
    assert!(fast < sah16 * 2.0, "fast {fast}, SAH {sah16}");
}

#[test]
fn validate_and_refit_reject_boxes_of_the_wrong_count() {
    let soup = random_soup(44, 10);
    let mut bvh = build(&soup, &BuildOptions::default());
    let short = boxes(&soup[..9]);
    let expected = Error::PrimitiveCountMismatch {
        expected: 10,
        found: 9,
    };
    assert_eq!(bvh.validate(&short), Err(expected.clone()));
    let before = bvh.nodes().to_vec();
    assert_eq!(bvh.refit(&short), Err(expected));
    assert_eq!(bvh.nodes(), before);
}

#[test]
fn validate_catches_boxes_that_moved_without_a_refit() {
    let soup = random_soup(45, 200);
    let bvh = build(&soup, &BuildOptions::default());
    let mut moved = boxes(&soup);
    moved[17] = Aabb::new(Vec3::splat(5.0), Vec3::splat(6.0));
    assert_eq!(
        bvh.validate(&moved)
            .map_err(|e| matches!(e, Error::PrimitiveNotContained { primitive: 17, .. })),
        Err(true)
    );
}
