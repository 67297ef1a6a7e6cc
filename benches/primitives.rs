//! Time per single-primitive test: every triangle test of meshcast-primitives and the slab
//! test, on fixed seeded sets. Throughput is in tests per second, so the time per element is
//! the time per test.
//!
//! Two workloads: `pairs`, 4096 rays each aimed at its own triangle (half of them hit, the
//! rest miss just outside an edge), and `leaf`, 256 rays each tested against a cluster of 16
//! triangles, as in a BVH leaf (about one in ten tests hits), where [`WatertightRay`] and the
//! reciprocal direction are prepared once per ray.

use criterion::measurement::WallTime;
use criterion::{black_box, criterion_main, BenchmarkGroup, Criterion, Throughput};
use glam::{Vec3, Vec3A};
use meshcast_primitives::{
    slab, slab_slack, Aabb, Hit, Ray, Triangle, TriangleTransform, WatertightRay,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const SEED: u64 = 0x7072_696d_6974_6976;
const PAIRS: usize = 4096;
const LEAF_RAYS: usize = 256;
const LEAF_TRIANGLES: usize = 16;

fn point(rng: &mut Pcg64Mcg, extent: f32) -> Vec3 {
    Vec3::new(
        rng.gen_range(-extent..extent),
        rng.gen_range(-extent..extent),
        rng.gen_range(-extent..extent),
    )
}

/// A triangle near `center` (size about 2) with its precomputed forms.
struct Prepared {
    triangle: Triangle,
    transform: TriangleTransform,
    bounds: Aabb,
}

fn prepare(rng: &mut Pcg64Mcg, center: Vec3) -> Prepared {
    loop {
        let triangle = Triangle::new(
            center + point(rng, 1.0),
            center + point(rng, 1.0),
            center + point(rng, 1.0),
        );
        if let Some(transform) = TriangleTransform::new(&triangle) {
            return Prepared {
                triangle,
                transform,
                bounds: triangle.bounds(),
            };
        }
    }
}

/// A ray from 20 units away towards `target`.
fn ray_towards(rng: &mut Pcg64Mcg, target: Vec3) -> Ray {
    let origin = target + point(rng, 1.0).normalize_or(Vec3::X) * 20.0;
    Ray::new(origin, target - origin)
}

fn pairs() -> Vec<(Ray, Prepared)> {
    let mut rng = Pcg64Mcg::seed_from_u64(SEED);
    (0..PAIRS)
        .map(|_| {
            let center = point(&mut rng, 10.0);
            let prepared = prepare(&mut rng, center);
            // Barycentrics in the unit square: inside for half of them.
            let (u, v): (f32, f32) = (rng.gen(), rng.gen());
            let [a, b, c] = prepared.triangle.vertices();
            let ray = ray_towards(&mut rng, a * (1.0 - u - v) + b * u + c * v);
            (ray, prepared)
        })
        .collect()
}

fn leaves() -> Vec<(Ray, Vec<Prepared>)> {
    let mut rng = Pcg64Mcg::seed_from_u64(SEED ^ 1);
    (0..LEAF_RAYS)
        .map(|_| {
            let center = point(&mut rng, 10.0);
            let cluster = (0..LEAF_TRIANGLES)
                .map(|_| prepare(&mut rng, center))
                .collect();
            let target = center + point(&mut rng, 0.5);
            (ray_towards(&mut rng, target), cluster)
        })
        .collect()
}

/// Sums `t` over the hits so that no test can be skipped.
#[inline(always)]
fn sum(hit: Option<Hit>) -> f32 {
    hit.map_or(0.0, |h| h.t)
}

fn bench_pairs(c: &mut Criterion) {
    let pairs = pairs();
    let hits = pairs
        .iter()
        .filter(|(ray, p)| p.triangle.intersect(ray).is_some())
        .count();
    eprintln!("pairs: {hits} of {PAIRS} tests hit");
    let mut group = c.benchmark_group("primitives/pairs");
    group.throughput(Throughput::Elements(PAIRS as u64));
    // Generic, not `dyn`: an indirect call per test would weigh on a few nanoseconds.
    fn bench<F: Fn(&Ray, &Prepared) -> f32>(
        group: &mut BenchmarkGroup<'_, WallTime>,
        pairs: &[(Ray, Prepared)],
        name: &str,
        test: F,
    ) {
        group.bench_function(name, |b| {
            b.iter(|| {
                pairs
                    .iter()
                    .map(|(ray, p)| test(black_box(ray), black_box(p)))
                    .sum::<f32>()
            })
        });
    }
    bench(&mut group, &pairs, "moller_trumbore", |ray, p| {
        sum(p.triangle.intersect_moller_trumbore(ray))
    });
    bench(&mut group, &pairs, "moller_trumbore_culled", |ray, p| {
        sum(p.triangle.intersect_moller_trumbore_culled(ray))
    });
    bench(&mut group, &pairs, "watertight", |ray, p| {
        sum(p.triangle.intersect_watertight(ray))
    });
    bench(&mut group, &pairs, "watertight_ray", |ray, p| {
        let [a, b, c] = p.triangle.vertices();
        sum(WatertightRay::new(ray).intersect(a, b, c))
    });
    bench(&mut group, &pairs, "triangle_transform", |ray, p| {
        sum(p.transform.intersect(ray))
    });
    bench(&mut group, &pairs, "plane_inside", |ray, p| {
        sum(p.triangle.intersect_plane_inside(ray))
    });
    bench(&mut group, &pairs, "slab", |ray, p| {
        p.bounds.intersect(ray).map_or(0.0, |(entry, _)| entry)
    });
    group.finish();
}

fn bench_leaves(c: &mut Criterion) {
    let leaves = leaves();
    let hits: usize = leaves
        .iter()
        .map(|(ray, cluster)| {
            cluster
                .iter()
                .filter(|p| p.triangle.intersect(ray).is_some())
                .count()
        })
        .sum();
    let tests = LEAF_RAYS * LEAF_TRIANGLES;
    eprintln!("leaf: {hits} of {tests} tests hit");
    let mut group = c.benchmark_group("primitives/leaf");
    group.throughput(Throughput::Elements(tests as u64));
    fn bench<F: Fn(&Ray, &[Prepared]) -> f32>(
        group: &mut BenchmarkGroup<'_, WallTime>,
        leaves: &[(Ray, Vec<Prepared>)],
        name: &str,
        test: F,
    ) {
        group.bench_function(name, |b| {
            b.iter(|| {
                leaves
                    .iter()
                    .map(|(ray, cluster)| test(black_box(ray), black_box(cluster)))
                    .sum::<f32>()
            })
        });
    }
    bench(&mut group, &leaves, "moller_trumbore", |ray, cluster| {
        cluster
            .iter()
            .map(|p| sum(p.triangle.intersect_moller_trumbore(ray)))
            .sum()
    });
    bench(
        &mut group,
        &leaves,
        "moller_trumbore_culled",
        |ray, cluster| {
            cluster
                .iter()
                .map(|p| sum(p.triangle.intersect_moller_trumbore_culled(ray)))
                .sum()
        },
    );
    bench(&mut group, &leaves, "watertight", |ray, cluster| {
        cluster
            .iter()
            .map(|p| sum(p.triangle.intersect_watertight(ray)))
            .sum()
    });
    bench(&mut group, &leaves, "watertight_ray", |ray, cluster| {
        let prepared = WatertightRay::new(ray);
        cluster
            .iter()
            .map(|p| {
                let [a, b, c] = p.triangle.vertices();
                sum(prepared.intersect(a, b, c))
            })
            .sum()
    });
    bench(&mut group, &leaves, "triangle_transform", |ray, cluster| {
        cluster
            .iter()
            .map(|p| sum(p.transform.intersect(ray)))
            .sum()
    });
    bench(&mut group, &leaves, "slab", |ray, cluster| {
        let (origin, inv_dir) = (Vec3A::from(ray.origin), Vec3A::from(ray.inv_dir()));
        // Once per ray from the enclosing box, as a traversal does from its root.
        let root = cluster.iter().fold(Aabb::EMPTY, |b, p| b.union(p.bounds));
        let slack = slab_slack(&root, ray);
        cluster
            .iter()
            .map(|p| {
                let (entry, exit) = slab(
                    p.bounds.min.into(),
                    p.bounds.max.into(),
                    origin,
                    inv_dir,
                    slack,
                    ray.t_min,
                    ray.t_max,
                );
                if entry <= exit {
                    entry
                } else {
                    0.0
                }
            })
            .sum()
    });
    group.finish();
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which missing_docs would flag.
mod group {
    criterion::criterion_group!(benches, super::bench_pairs, super::bench_leaves);
}
criterion_main!(group::benches);
