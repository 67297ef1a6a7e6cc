//! Quick release-mode figures for the BVH: build time (1 and 2 threads), SAH cost, memory,
//! and closest/any-hit throughput on coherent and incoherent rays. The criterion benches in
//! `benches/` are the reference; this prints everything in one short run.
//!
//! `cargo run --release -p meshcast-benches --example bvh_measure [mesh.obj] [subdivision levels]`

use std::time::Instant;

use glam::Vec3;
use meshcast::TriMeshFiles;
use meshcast_bvh::{Any, BuildOptions, Bvh, Closest, Parallel, PreparedRay, Primitive, Quality};
use meshcast_mesh::TriMesh;
use meshcast_primitives::{Aabb, Camera, Hit, Ray, Triangle};
use meshcast_testkit::incoherent_rays;
use rayon::prelude::*;

/// A `size` x `size` image of a camera looking at the box from the front right and above.
fn camera_rays(b: Aabb, size: u32) -> Vec<Ray> {
    let centre = b.centroid();
    let radius = b.extent().length() * 0.5;
    let eye = centre + Vec3::new(0.3, 0.4, 1.0).normalize() * radius * 2.2;
    Camera::new(eye, centre, Vec3::Y, 50.0, 1.0)
        .pixel_rays(size, size)
        .collect()
}

/// CPU time of the calling thread in seconds (Linux), so that one-thread figures hold on a
/// busy machine; `None` elsewhere.
fn thread_cpu() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().next()?.parse::<f64>().ok()? * 1e-9)
}

/// The best of `runs`: wall seconds, or this thread's CPU seconds when `cpu` is set (for work
/// done on this thread alone).
fn time<T>(runs: usize, cpu: bool, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let (start, start_cpu) = (Instant::now(), thread_cpu());
        let v = f();
        let secs = match (cpu, start_cpu, thread_cpu()) {
            (true, Some(a), Some(b)) => b - a,
            _ => start.elapsed().as_secs_f64(),
        };
        best = best.min(secs);
        out = Some(v);
    }
    (best, out.expect("one run"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .map_or("assets/stanford-bunny.obj", String::as_str);
    let levels: u32 = args.get(2).map_or(0, |s| s.parse().expect("levels"));
    let tris: Vec<Triangle> = TriMesh::from_obj(path)
        .and_then(|mesh| Ok(mesh.subdivide(levels)?))
        .expect("a mesh")
        .triangles()
        .collect();
    let n = tris.len();
    println!("{path} x{levels}: {n} triangles (1T: thread CPU time; 2T: wall time)");
    let pools: Vec<_> = [1, 2]
        .map(|k| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(k)
                .build()
                .expect("pool")
        })
        .into();
    let boxes: Vec<Aabb> = tris.iter().map(Triangle::bounds).collect();
    let sah = BuildOptions::default();
    let configs = [
        ("SAH 16 bins", sah),
        ("SAH 32 bins", BuildOptions { bins: 32, ..sah }),
        ("SAH 8 bins", BuildOptions { bins: 8, ..sah }),
        (
            "SAH trav 1",
            BuildOptions {
                traversal_cost: 1.0,
                ..sah
            },
        ),
        (
            "Fast (LBVH)",
            BuildOptions {
                quality: Quality::Fast,
                ..sah
            },
        ),
        (
            "High",
            BuildOptions {
                quality: Quality::High,
                ..sah
            },
        ),
        (
            "Mesh SAH",
            BuildOptions {
                leaf_block: 4,
                ..sah
            },
        ),
        (
            "Mesh High",
            BuildOptions {
                quality: Quality::High,
                leaf_block: 4,
                ..sah
            },
        ),
    ];
    let runs = if n > 2_000_000 { 2 } else { 4 };
    let mut built = Vec::new();
    for (name, options) in configs {
        let mut line = format!("{name:12}");
        for (k, pool) in pools.iter().enumerate() {
            let options = BuildOptions {
                parallel: if k == 0 {
                    Parallel::Sequential
                } else {
                    Parallel::Rayon
                },
                ..options
            };
            let (secs, bvh) = if k == 0 {
                time(runs, true, || Bvh::build(&boxes, &options))
            } else {
                time(runs, false, || {
                    pool.install(|| Bvh::build(&boxes, &options))
                })
            };
            line += &format!(
                " | {}T {:8.1} ms {:6.2} Mtris/s",
                k + 1,
                secs * 1e3,
                n as f64 / secs / 1e6
            );
            if k == 1 {
                built.push((name, bvh));
            }
        }
        println!("{line}");
    }
    for (name, bvh) in &built {
        let s = bvh.stats();
        println!(
            "{name:12} | SAH cost {:7.2} | nodes {} leaves {} depth {} | {:.1} B/tri BVH, {:.1} B/tri with triangles | leaves {:?}",
            s.sah_cost,
            s.node_count,
            s.leaf_count,
            s.depth,
            s.bytes_per_primitive,
            s.bytes_per_primitive + std::mem::size_of::<Triangle>() as f64,
            s.leaf_size_histogram
        );
    }
    if std::env::var_os("BVH_MEASURE_BUILD_ONLY").is_some() {
        return;
    }
    let b = built[0].1.bounds();
    let sets = [
        ("coherent", camera_rays(b, 1024)),
        ("incoherent", incoherent_rays(b, 1 << 20, 7)),
    ];
    for (name, bvh) in built.iter().filter(|(n, _)| {
        n.starts_with("SAH 16")
            || n.starts_with("SAH trav")
            || n.starts_with("Fast")
            || n.starts_with("High")
    }) {
        let leaf: Vec<Triangle> = bvh
            .primitive_order()
            .iter()
            .map(|&i| tris[i as usize])
            .collect();
        let order = bvh.primitive_order();
        for (set, rays) in &sets {
            let mut line = format!("{name:12} {set:10}");
            for (k, pool) in pools.iter().enumerate() {
                let closest = |ray: &Ray| {
                    let prepared = PreparedRay::new(ray);
                    bvh.walk(ray, Closest, |slot, r| {
                        let hit = leaf[slot as usize]
                            .intersect_prepared(&prepared.with_range(r.t_min, r.t_max))?;
                        Some(hit.with_triangle(order[slot as usize]))
                    })
                };
                let any = |ray: &Ray| {
                    let prepared = PreparedRay::new(ray);
                    bvh.walk::<_, Hit>(ray, Any, |slot, _| {
                        leaf[slot as usize].intersect_prepared(&prepared).is_some()
                    })
                };
                let slice = |r: &Ray| bvh.cast_primitives(&tris, r).is_some();
                let (c, hits, a, s) = if k == 0 {
                    let (c, hits) = time(2, true, || {
                        rays.iter().filter(|r| closest(r).is_some()).count()
                    });
                    let (a, _) = time(2, true, || rays.iter().filter(|r| any(r)).count());
                    let (s, _) = time(2, true, || rays.iter().filter(|r| slice(r)).count());
                    (c, hits, a, s)
                } else {
                    let (c, hits) = time(2, false, || {
                        pool.install(|| rays.par_iter().filter(|r| closest(r).is_some()).count())
                    });
                    let (a, _) = time(2, false, || {
                        pool.install(|| rays.par_iter().filter(|r| any(r)).count())
                    });
                    let (s, _) = time(2, false, || {
                        pool.install(|| rays.par_iter().filter(|r| slice(r)).count())
                    });
                    (c, hits, a, s)
                };
                let m = rays.len() as f64 / 1e6;
                line += &format!(
                    " | {}T closest {:6.2} any {:6.2} slice {:6.2} Mrays/s",
                    k + 1,
                    m / c,
                    m / a,
                    m / s
                );
                if k == 0 {
                    line += &format!(" ({:.0}% hit)", 100.0 * hits as f64 / rays.len() as f64);
                }
            }
            println!("{line}");
        }
    }
}
