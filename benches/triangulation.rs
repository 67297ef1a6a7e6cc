//! Time to triangulate one large concave polygon (`meshcast_primitives::triangulate`): stars
//! and spiral bands of 10k, 100k and 1M corners, a self-intersecting star that winds 500
//! times (no ears: the fallbacks and the work bound), and the full load of an OBJ file
//! holding a star or a spiral as its only face (`TriMesh::from_bytes`). Throughput is in
//! corners per second. Issue 35: a 1M-corner face (about 31 MB of OBJ) should load in under
//! 3 s on one thread, 200k corners in under 0.5 s.

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use meshcast::{Format, TriMesh, TriMeshFiles};
use meshcast_testkit::{obj_polygon, spiral, star};

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

/// A star of `corners` points on the unit circle, each step `winds / corners` of a turn.
fn winding_star(corners: usize, winds: f32) -> Vec<Vec3> {
    (0..corners)
        .map(|i| {
            let angle = i as f32 / corners as f32 * winds * core::f32::consts::TAU;
            Vec3::new(angle.cos(), angle.sin(), 0.0)
        })
        .collect()
}

fn shapes(corners: usize) -> [(&'static str, Vec<Vec3>); 3] {
    [
        ("star", star(corners)),
        ("spiral", spiral(corners, 8.0)),
        ("winding_star", winding_star(corners | 1, 500.0)),
    ]
}

fn triangulate(c: &mut Criterion) {
    let mut group = c.benchmark_group("triangulate");
    for corners in SIZES {
        if corners >= 1_000_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(corners as u64));
        for (name, polygon) in shapes(corners) {
            group.bench_with_input(BenchmarkId::new(name, corners), &polygon, |b, polygon| {
                b.iter(|| meshcast_primitives::triangulate(black_box(polygon)));
            });
        }
    }
    group.finish();
}

fn load_obj(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_obj_face");
    group.sample_size(10);
    for corners in [200_000, 1_000_000] {
        group.throughput(Throughput::Elements(corners as u64));
        for (name, polygon) in [("star", star(corners)), ("spiral", spiral(corners, 8.0))] {
            let text = obj_polygon(&polygon);
            group.bench_with_input(BenchmarkId::new(name, corners), &text, |b, text| {
                b.iter(|| TriMesh::from_bytes(black_box(text.as_bytes()), Some(Format::Obj)));
            });
        }
    }
    group.finish();
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which would need docs.
mod group {
    criterion::criterion_group!(benches, super::triangulate, super::load_obj);
}
criterion_main!(group::benches);
