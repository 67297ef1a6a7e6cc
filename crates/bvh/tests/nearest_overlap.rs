//! The nearest-point and volume traversals against brute force over random triangle soups.

use core::ops::ControlFlow;

use glam::Vec3;
use meshcast_bvh::{BuildOptions, Bvh, Quality};
use meshcast_primitives::{Aabb, Frustum, Overlap, Sphere, Triangle, Volume};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn soup(seed: u64, count: usize) -> Vec<Triangle> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let point = |rng: &mut Pcg64| Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 10.0;
    (0..count)
        .map(|_| {
            let a = point(&mut rng);
            let size = rng.gen_range(0.05..1.5);
            let b = a + (point(&mut rng) - Vec3::splat(5.0)) * size * 0.2;
            let c = a + (point(&mut rng) - Vec3::splat(5.0)) * size * 0.2;
            Triangle::new(a, b, c)
        })
        .collect()
}

fn builds(triangles: &[Triangle]) -> Vec<Bvh> {
    [Quality::Fast, Quality::Balanced, Quality::High]
        .into_iter()
        .flat_map(|quality| {
            [1, 4].map(|max_leaf_primitives| {
                let options = BuildOptions {
                    quality,
                    max_leaf_primitives,
                    ..BuildOptions::default()
                };
                Bvh::build_primitives(triangles, &options)
            })
        })
        .collect()
}

/// The nearest triangle by (squared distance, index), by the traversal.
fn nearest(bvh: &Bvh, triangles: &[Triangle], query: Vec3, bound: f32) -> Option<(f32, u32)> {
    let mut best: Option<(f32, u32)> = None;
    bvh.nearest(
        bound,
        |bounds| meshcast_primitives::box_distance_squared(query, bounds),
        |slot, bound| {
            let index = bvh.primitive_order()[slot as usize];
            let d = triangles[index as usize].distance_squared(query);
            let better = best.map_or(d <= bound, |(bd, bi)| d < bd || (d == bd && index < bi));
            if better {
                best = Some((d, index));
                return d;
            }
            bound
        },
    );
    best
}

#[test]
fn nearest_matches_brute_force() {
    for seed in 0..4 {
        let triangles = soup(seed, 400);
        let mut rng = Pcg64::seed_from_u64(seed + 100);
        for bvh in builds(&triangles) {
            for _ in 0..50 {
                let query = Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 14.0 - Vec3::splat(2.0);
                let bound = if rng.gen() {
                    f32::INFINITY
                } else {
                    rng.gen_range(0.0..4.0)
                };
                let expected = triangles
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.distance_squared(query), i as u32))
                    .filter(|(d, _)| *d <= bound)
                    .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                assert_eq!(
                    nearest(&bvh, &triangles, query, bound),
                    expected,
                    "seed {seed} query {query} bound {bound}"
                );
            }
        }
    }
}

#[test]
fn overlap_matches_brute_force_for_every_volume() {
    let triangles = soup(7, 600);
    let mut rng = Pcg64::seed_from_u64(8);
    for bvh in builds(&triangles) {
        for round in 0..30 {
            let centre = Vec3::new(rng.gen(), rng.gen(), rng.gen()) * 10.0;
            let size = rng.gen_range(0.5..4.0);
            let near = [
                centre + Vec3::new(-size, -size, 0.0),
                centre + Vec3::new(size, -size, 0.0),
                centre + Vec3::new(size, size, 0.0),
                centre + Vec3::new(-size, size, 0.0),
            ];
            let far = near.map(|c| centre + (c - centre) * 2.0 + Vec3::Z * size * 3.0);
            let volume = match round % 3 {
                0 => Volume::Box(Aabb::new(centre - size, centre + size * 0.7)),
                1 => Volume::Sphere(Sphere::new(centre, size)),
                _ => Volume::Frustum(Frustum::from_corners(near, far).expect("valid")),
            };
            for (name, test) in [
                (
                    "intersects",
                    Volume::intersects_triangle as fn(&Volume, &Triangle) -> bool,
                ),
                ("contains", Volume::contains_triangle),
            ] {
                let mut found = Vec::new();
                let flow = bvh.overlap(
                    |bounds| volume.classify_box(bounds),
                    |slot, overlap| {
                        let index = bvh.primitive_order()[slot as usize];
                        let triangle = &triangles[index as usize];
                        // A node inside the volume proves its triangles pass either test.
                        if overlap == Overlap::Inside {
                            assert!(test(&volume, triangle), "{name} {volume:?} {index}");
                        }
                        if test(&volume, triangle) {
                            found.push(index);
                        }
                        ControlFlow::<()>::Continue(())
                    },
                );
                assert_eq!(flow, ControlFlow::Continue(()));
                found.sort_unstable();
                let expected: Vec<u32> = (0..triangles.len() as u32)
                    .filter(|&i| test(&volume, &triangles[i as usize]))
                    .collect();
                assert_eq!(found, expected, "{name} {volume:?}");
            }
        }
    }
}

#[test]
fn overlap_stops_when_the_leaf_breaks() {
    let triangles = soup(3, 200);
    let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    let everything = Volume::Box(Aabb::new(Vec3::splat(-100.0), Vec3::splat(100.0)));
    let mut calls = 0;
    let flow = bvh.overlap(
        |bounds| everything.classify_box(bounds),
        |slot, _| {
            calls += 1;
            if calls == 5 {
                ControlFlow::Break(slot)
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    assert!(matches!(flow, ControlFlow::Break(_)));
    assert_eq!(calls, 5);
    let empty = Bvh::empty();
    assert_eq!(
        empty.overlap(|_| Overlap::Inside, |_, _| ControlFlow::<()>::Break(())),
        ControlFlow::Continue(())
    );
    assert_eq!(empty.nearest(3.0, |_| 0.0, |_, _| 0.0), 3.0);
}
