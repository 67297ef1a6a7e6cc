//! The GPU answers what the CPU engine answers, ray for ray: closest hits (the same
//! triangle, and on llvmpipe the same `t`, `u`, `v`), any hits, crossing counts and hit
//! lists, on every asset, on random, incoherent and adversarial rays (through vertices and
//! edges, axis-parallel with signed zeros, grazing, from far away, from the surface,
//! degenerate), on the exactly-once suites, cameras, deforming and empty meshes.
//!
//! Where no adapter exists the tests print why and pass, except in CI (`CI` set), where they
//! fail: CI installs Mesa's llvmpipe so that they always run there.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use meshcast::{
    Camera, Contacts, Hit, Mesh, MeshFiles, PointQueries, QueryOptions, Ray, RayQueries, TriMesh,
    TriMeshFiles, Triangle,
};
use meshcast_gpu::{AnswerSink, Backend, ChildOrder, Gpu, GpuMesh, GpuOptions};
use meshcast_testkit::{
    adversarial_rays, all_assets, asset, brute_force_cast_all, brute_force_cast_with, cube,
    icosphere, incoherent_rays, lattice_solids, random_rays, random_transform, rng, torus,
    transformed,
};
use rayon::prelude::*;

use crate::common::{
    assets_of_each_kind, bit_exact, degenerate_rays, gpu, mesh_of, same_closest,
    scaled_lattice_solids, upload, within_bounds,
};

/// Checks every query on `rays` against the CPU engine.
fn check(gpu: &Gpu, on_gpu: &GpuMesh, rays: &[Ray], what: &str) {
    let mesh = on_gpu.mesh();
    let exact = bit_exact(gpu);
    let closest = on_gpu.cast_batch(rays).expect("cast_batch");
    for (i, (ray, got)) in rays.iter().zip(&closest).enumerate() {
        let want = mesh.cast(ray);
        assert!(
            same_closest(*got, want, exact),
            "{what}: ray {i} {ray:?}: GPU {got:?}, CPU {want:?}"
        );
    }
    let occluded = on_gpu.occluded_batch(rays).expect("occluded_batch");
    let counts = on_gpu.count_batch(rays).expect("count_batch");
    let lists = on_gpu.cast_all_batch(rays).expect("cast_all_batch");
    assert_eq!(lists.len(), rays.len());
    for (i, ray) in rays.iter().enumerate() {
        assert_eq!(
            occluded[i],
            mesh.occluded(ray),
            "{what}: occluded, ray {i} {ray:?}"
        );
        let all = mesh.cast_all(ray);
        assert_eq!(
            counts[i] as usize,
            all.len(),
            "{what}: count, ray {i} {ray:?}"
        );
        let got: Vec<u32> = lists[i].iter().map(|h| h.triangle).collect();
        let want: Vec<u32> = all.iter().map(|h| h.triangle).collect();
        assert_eq!(got, want, "{what}: cast_all, ray {i} {ray:?}");
        for (g, w) in lists[i].iter().zip(&all) {
            assert!(
                within_bounds(g, w),
                "{what}: cast_all, ray {i}: {g:?} vs {w:?}"
            );
        }
        if exact {
            assert_eq!(&lists[i], &all[..], "{what}: cast_all hits, ray {i}");
        }
    }
}

#[test]
fn every_asset_answers_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for path in all_assets() {
        let mesh = Arc::new(Mesh::from_path(&path).expect("asset"));
        let on_gpu = upload(gpu, &mesh);
        let bounds = mesh.bounds();
        let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
        let mut rays = random_rays(bounds, 1500, 1);
        rays.extend(incoherent_rays(bounds, 1500, 2));
        rays.extend(adversarial_rays(&triangles, 2000, 3));
        check(gpu, &on_gpu, &rays, &path.display().to_string());
    }
}

#[test]
fn closed_shapes_count_every_crossing_once() {
    let Some(gpu) = gpu() else { return };
    let shapes = [cube(1.0, 3), icosphere(3), torus(1.0, 0.3, 24, 12)];
    for (s, shape) in shapes.into_iter().enumerate() {
        let mesh = mesh_of(shape);
        let on_gpu = upload(gpu, &mesh);
        let positions = mesh.tri_mesh().positions();
        let mut random = rng(s as u64);
        let mut rays = Vec::new();
        // From inside and outside, exactly through every vertex and edge midpoint.
        for [a, b, _] in mesh
            .tri_mesh()
            .indices()
            .iter()
            .map(|t| t.map(|i| positions[i as usize]))
        {
            for target in [a, (a + b) * 0.5] {
                let from_outside = target + meshcast_testkit::random_direction(&mut random) * 5.0;
                rays.push(Ray::new(from_outside, target - from_outside));
                rays.push(Ray::new(Vec3::new(0.01, 0.02, 0.03), target));
                // Axis-parallel with signed zeros.
                rays.push(Ray::new(target - Vec3::X * 3.0, Vec3::new(1.0, -0.0, 0.0)));
            }
        }
        check(gpu, &on_gpu, &rays, &format!("shape {s}"));
        // And against the brute force: every triangle, the watertight test.
        let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
        let counts = on_gpu.count_batch(&rays).expect("counts");
        let closest = on_gpu.cast_batch(&rays).expect("closest");
        for ((ray, count), hit) in rays.iter().zip(counts).zip(closest) {
            let want = brute_force_cast_with(&triangles, ray, Contacts::Hit);
            assert_eq!(hit.map(|h| h.triangle), want.map(|h| h.triangle), "{ray:?}");
            assert_eq!(
                count as usize,
                brute_force_cast_all(&triangles, ray).len(),
                "{ray:?}"
            );
            if mesh.contains(ray.origin) {
                assert_eq!(count % 2, 1, "{ray:?} starts inside");
            }
        }
    }
}

/// Rays exactly through the vertices and edge midpoints of integer meshes at oblique angles,
/// whose rounded edge functions lie on either side of zero: the shader leaves each sign its
/// bounds leave open to the CPU, whose signs are exact (the `touching` suite holds the CPU
/// to an exact reference on the same rays).
#[test]
fn rays_touching_at_oblique_angles_answer_as_the_cpu() {
    let Some(default) = gpu() else { return };
    let name = default.adapter().name.clone();
    let one_by_one = GpuOptions {
        leaf: Some(1),
        order: ChildOrder::Octant,
        ..GpuOptions::default()
    };
    for options in [GpuOptions::default(), one_by_one] {
        let gpu = Gpu::with_options(Some(&name), options).expect("the same adapter");
        for solid in lattice_solids() {
            let mesh = mesh_of(solid.mesh.clone());
            let on_gpu = upload(&gpu, &mesh);
            check(&gpu, &on_gpu, &solid.rays(3), solid.name);
        }
    }
}

/// Exact at every scale (the CPU is held to brute force there by `tests/tests/scales.rs`):
/// the lattice solids scaled from `2^-140`, where coordinates are subnormal, to `2^60`, the
/// rays scaled with them, and the cube of the ray fuzz target's reproducer with rays whose
/// directions have subnormal components.
#[test]
fn every_scale_and_subnormal_directions_answer_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for k in [-140, -126, -100, 60] {
        for (name, mesh, rays) in scaled_lattice_solids(k) {
            check(gpu, &upload(gpu, &mesh), &rays, &name);
        }
    }
    let on_gpu = upload(gpu, &mesh_of(meshcast_testkit::cube(1.0, 1)));
    let tilt = Vec3::new(f32::from_bits(8), -f32::from_bits(5), f32::from_bits(1));
    let mut rays = vec![Ray::new(
        Vec3::new(-1.0, -2.1e-44, -1.0),
        Vec3::new(0.0, 1.1e-44, 1.0),
    )];
    for &target in on_gpu.mesh().tri_mesh().positions() {
        let origin = Vec3::new(-3.0, 0.5, 5.0);
        rays.push(Ray::new(origin, target - origin + tilt));
        rays.push(Ray::new(origin + tilt, target - origin));
    }
    check(gpu, &on_gpu, &rays, "subnormal directions");
    let hit = on_gpu.cast_batch(&rays[..1]).expect("cast_batch")[0];
    assert_eq!(hit.map(|h| h.t), Some(2.0), "the fuzz target's ray");
}

#[test]
fn transformed_and_far_meshes_answer_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let bunny = TriMesh::from_path(asset("suzanne.obj")).expect("suzanne");
    for seed in 0..3 {
        let mut random = rng(seed);
        let mut transform = random_transform(&mut random, 10.0);
        if seed == 2 {
            // Far from the origin: a million units away.
            transform = Affine3A::from_translation(Vec3::splat(1.0e6)) * transform;
        }
        let mesh = mesh_of(transformed(&bunny, transform));
        let on_gpu = upload(gpu, &mesh);
        let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
        let mut rays = random_rays(mesh.bounds(), 1000, seed);
        rays.extend(adversarial_rays(&triangles, 1000, seed + 10));
        check(gpu, &on_gpu, &rays, &format!("suzanne, transform {seed}"));
    }
}

#[test]
fn degenerate_and_out_of_range_rays_answer_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let mesh = mesh_of(icosphere(2));
    let on_gpu = upload(gpu, &mesh);
    let rays = degenerate_rays();
    check(gpu, &on_gpu, &rays, "degenerate rays");
}

#[test]
fn cameras_answer_for_the_rays_the_gpu_makes() {
    let Some(gpu) = gpu() else { return };
    for name in ["stanford-bunny.obj", "cow.obj"] {
        let mesh = Arc::new(Mesh::from_path(asset(name)).expect("asset"));
        let on_gpu = upload(gpu, &mesh);
        let camera = Camera::framing(mesh.bounds(), 40.0, 1.5);
        let (width, height) = (96, 64);
        let image = on_gpu.cast_camera(&camera, width, height).expect("camera");
        let rays = on_gpu.camera_rays(&camera, width, height).expect("rays");
        assert_eq!((image.len(), rays.len()), (96 * 64, 96 * 64));
        let mut hits = 0;
        for (i, (ray, got)) in rays.iter().zip(&image).enumerate() {
            let want = mesh.cast(ray);
            assert_eq!(
                got.map(|h| h.triangle),
                want.map(|h| h.triangle),
                "{name}: pixel {i}"
            );
            // The GPU's ray is the CPU's within a few units in the last place.
            let cpu = camera.ray_through_pixel(i as u32 % width, i as u32 / width, width, height);
            assert_eq!(ray.origin, cpu.origin);
            assert!((ray.dir - cpu.dir).abs().max_element() < 1e-6, "pixel {i}");
            hits += usize::from(got.is_some());
        }
        assert!(hits > 500, "{name}: the camera sees the mesh ({hits} hits)");
    }
}

#[test]
fn deforming_meshes_refit_and_answer_as_the_cpu() {
    let Some(default) = gpu() else { return };
    // The mesh's own tree, and a tree of the GPU's own beside it.
    let gpu_tree = Gpu::with_options(
        Some(&default.adapter().name),
        GpuOptions {
            leaf: Some(2),
            ..default.kernel_options()
        },
    )
    .expect("the same adapter");
    for gpu in [default, &gpu_tree] {
        deform(gpu);
    }
}

fn deform(gpu: &Gpu) {
    let mesh = mesh_of(torus(1.0, 0.4, 32, 16));
    let mut on_gpu = upload(gpu, &mesh);
    for step in 1..4 {
        let moved: Vec<[f32; 3]> = mesh
            .tri_mesh()
            .positions()
            .iter()
            .map(|p| {
                (*p * (1.0 + 0.1 * step as f32) + Vec3::Y * p.x * 0.2 * step as f32).to_array()
            })
            .collect();
        on_gpu.set_positions(&moved).expect("set_positions");
        let rays = random_rays(on_gpu.mesh().bounds(), 800, step);
        check(gpu, &on_gpu, &rays, &format!("deformed, step {step}"));
    }
    // The CPU mesh the upload was made from is untouched.
    assert_eq!(
        mesh.tri_mesh().positions()[0],
        torus(1.0, 0.4, 32, 16).positions()[0]
    );
}

#[test]
fn empty_and_tiny_meshes_answer_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let empty = Arc::new(Mesh::from_triangles(&[], &[]).expect("empty"));
    let degenerate = Arc::new(
        Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], &[[0, 1, 2]])
            .expect("needle"),
    );
    let single = Arc::new(
        Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
            .expect("one"),
    );
    let huge = Arc::new(
        Mesh::from_triangles(
            &[[0.0; 3], [1e30, 0.0, 0.0], [0.0, 1e30, 0.0]],
            &[[0, 1, 2]],
        )
        .expect("huge"),
    );
    let rays = random_rays(
        meshcast::Aabb::new(Vec3::splat(-1.0), Vec3::splat(2.0)),
        300,
        9,
    );
    for (name, mesh) in [
        ("empty", empty),
        ("needle", degenerate),
        ("one", single),
        ("huge", huge),
    ] {
        let on_gpu = upload(gpu, &mesh);
        check(gpu, &on_gpu, &rays, name);
        let lists = on_gpu.cast_all_batch(&[]).expect("no rays");
        assert!(lists.is_empty());
        let image = on_gpu
            .cast_camera(&Camera::framing(mesh.bounds(), 50.0, 1.0), 8, 8)
            .expect("camera");
        assert_eq!(image.len(), 64);
    }
}

#[test]
fn most_rays_are_answered_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let mesh = Arc::new(Mesh::from_path(asset("stanford-bunny.obj")).expect("bunny"));
    let on_gpu = upload(gpu, &mesh);
    let rays = random_rays(mesh.bounds(), 20_000, 5);
    on_gpu.cast_batch(&rays).expect("cast");
    let stats = on_gpu.stats();
    assert_eq!(stats.rays, 20_000);
    // A few rays in ten thousand pass close enough to an edge to be left open.
    eprintln!("bunny, 20,000 random rays: {stats:?}");
    assert!(stats.finished_on_cpu < 200, "{stats:?}");
}

#[test]
fn hit_lists_longer_than_the_capacity_are_complete() {
    let Some(gpu) = gpu() else { return };
    // Twenty stacked squares: every ray down the stack hits forty triangles.
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for layer in 0..20u32 {
        let z = layer as f32 * 0.1;
        let base = positions.len() as u32;
        positions.extend([[0.0, 0.0, z], [1.0, 0.0, z], [1.0, 1.0, z], [0.0, 1.0, z]]);
        indices.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]]);
    }
    let mesh = Arc::new(Mesh::from_triangles(&positions, &indices).expect("stack"));
    let mut on_gpu = upload(gpu, &mesh);
    let rays: Vec<Ray> = (0..50)
        .map(|i| Ray::new(Vec3::new(0.013 * i as f32 + 0.1, 0.31, 5.0), Vec3::NEG_Z))
        .collect();
    for capacity in [4, 20, 64] {
        on_gpu.set_hit_capacity(capacity);
        let lists = on_gpu.cast_all_batch(&rays).expect("lists");
        for (ray, list) in rays.iter().zip(lists.iter()) {
            let want: Vec<Hit> = mesh.cast_all(ray);
            assert_eq!(list.len(), want.len());
            assert_eq!(
                list.iter().map(|h| h.triangle).collect::<Vec<_>>(),
                want.iter().map(|h| h.triangle).collect::<Vec<_>>()
            );
        }
    }
}

/// Rays streamed in many small chunks, through a stack small enough to overflow and kernels
/// with wgpu's runtime checks on, answer as the CPU does: every chunk lands in its place, and
/// a ray whose walk outgrows the stack is finished on the CPU.
#[test]
fn every_kernel_option_answers_as_the_cpu() {
    let Some(default) = gpu() else { return };
    let mesh = Arc::new(Mesh::from_path(asset("stanford-bunny.obj")).expect("bunny"));
    let bounds = mesh.bounds();
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let mut rays = random_rays(bounds, 6000, 11);
    rays.extend(incoherent_rays(bounds, 4000, 12));
    rays.extend(adversarial_rays(&triangles, 3000, 13));
    let name = default.adapter().name.clone();
    for options in [
        GpuOptions {
            chunk: 4096,
            ..GpuOptions::default()
        },
        GpuOptions {
            stack: 8,
            workgroup: 32,
            runtime_checks: true,
            chunk: 5000,
            leaf: Some(1),
            order: ChildOrder::Octant,
            ..GpuOptions::default()
        },
        GpuOptions {
            leaf: Some(4),
            ..GpuOptions::default()
        },
    ] {
        let gpu = Gpu::with_options(Some(&name), options).expect("the same adapter");
        // The options given, the tree the back end's where they leave it to the back end.
        let kernel = gpu.kernel_options();
        assert_eq!(
            GpuOptions {
                leaf: options.leaf,
                ..kernel
            },
            options
        );
        assert!(kernel.leaf.is_some());
        let on_gpu = upload(&gpu, &mesh);
        check(&gpu, &on_gpu, &rays, &options.to_string());
        let camera = Camera::framing(bounds, 50.0, 1.0);
        let image = on_gpu.cast_camera(&camera, 100, 90).expect("camera");
        let camera_rays = on_gpu.camera_rays(&camera, 100, 90).expect("rays");
        for (pixel, (hit, ray)) in image.iter().zip(&camera_rays).enumerate() {
            let want = mesh.cast(ray);
            assert_eq!(
                hit.map(|h| h.triangle),
                want.map(|h| h.triangle),
                "{options}: pixel {pixel}"
            );
        }
        if options.stack == 8 {
            assert!(on_gpu.stats().finished_on_cpu > 0, "a stack of 8 overflows");
        }
    }
}

/// A device opened without the driver's bounds checks on buffer accesses (Vulkan's
/// `robustBufferAccess` and `robustBufferAccess2`; elsewhere the option is ignored) answers
/// as the CPU does: the kernel's indices stay in bounds without them.
#[test]
fn a_device_without_robust_buffer_access_answers_as_the_cpu() {
    let Some(shared) = gpu() else { return };
    let options = GpuOptions {
        robust_access: false,
        ..shared.kernel_options()
    };
    let gpu = Gpu::with_options(Some(&shared.adapter().name), options).expect("the same adapter");
    assert_eq!(gpu.kernel_options(), options);
    let mesh = Arc::new(Mesh::from_path(asset("stanford-bunny.obj")).expect("bunny"));
    let on_gpu = upload(&gpu, &mesh);
    let rays = random_rays(mesh.bounds(), 4000, 21);
    check(&gpu, &on_gpu, &rays, &options.to_string());
}

#[test]
fn every_asset_takes_at_most_40_bytes_of_gpu_memory_per_triangle() {
    let Some(shared) = gpu() else { return };
    // The mesh's own tree, whatever MESHCAST_GPU_LEAF asks of the shared GPU.
    let gpu = &Gpu::with_options(
        Some(&shared.adapter().name),
        GpuOptions {
            leaf: Some(0),
            ..shared.kernel_options()
        },
    )
    .expect("the same adapter");
    for path in all_assets() {
        let mesh = Arc::new(Mesh::from_path(&path).expect("asset"));
        let on_gpu = upload(gpu, &mesh);
        let per_triangle = on_gpu.gpu_bytes() as f64 / mesh.triangle_count() as f64;
        eprintln!("{}: {per_triangle:.2} bytes per triangle", path.display());
        // 36 for the corners, and an 80-byte node per 30 to 35 triangles.
        assert!(
            per_triangle <= 40.0,
            "{}: {per_triangle:.2}",
            path.display()
        );
    }
}

#[test]
fn the_kernel_inputs_are_the_uploaded_tree_and_triangles() {
    let Some(gpu) = gpu() else { return };
    let mesh = Arc::new(Mesh::from_path(asset("stanford-bunny.obj")).expect("bunny"));
    let on_gpu = upload(gpu, &mesh);
    let inputs = on_gpu.kernel_inputs().expect("the kernel's inputs");
    let bytes = inputs.nodes.len() + inputs.triangles.len();
    assert_eq!(bytes as u64, on_gpu.gpu_bytes());
    // Each kernel triangle holds the corners of the mesh's triangle it names, each once.
    let corners: &[[f32; 9]] = bytemuck::cast_slice(&inputs.triangles);
    assert_eq!(corners.len(), inputs.triangle_ids.len());
    let mut seen = vec![false; mesh.triangle_count()];
    for (corners, &id) in corners.iter().zip(&inputs.triangle_ids) {
        let triangle = mesh.tri_mesh().triangle(id as usize).expect("a triangle");
        let want = [triangle.v0, triangle.v1, triangle.v2].map(|v| v.to_array());
        assert_eq!(corners, want.as_flattened(), "triangle {id}");
        assert!(
            !std::mem::replace(&mut seen[id as usize], true),
            "{id} twice"
        );
    }
    assert!(seen.iter().all(|&s| s), "every triangle");
}

#[test]
fn the_other_child_order_answers_as_the_cpu() {
    let Some(shared) = gpu() else { return };
    // The order the shared GPU does not run (the environment may pick either).
    let options = shared.kernel_options();
    let order = match options.order {
        ChildOrder::Distance => ChildOrder::Octant,
        ChildOrder::Octant => ChildOrder::Distance,
    };
    let gpu = Gpu::with_options(
        Some(&shared.adapter().name),
        GpuOptions { order, ..options },
    )
    .expect("the same adapter");
    for path in assets_of_each_kind() {
        let mesh = Arc::new(Mesh::from_path(&path).expect("asset"));
        let on_gpu = upload(&gpu, &mesh);
        let bounds = mesh.bounds();
        let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
        let mut rays = random_rays(bounds, 700, 11);
        rays.extend(incoherent_rays(bounds, 700, 12));
        rays.extend(adversarial_rays(&triangles, 1000, 13));
        check(
            &gpu,
            &on_gpu,
            &rays,
            &format!("{order:?}: {}", path.display()),
        );
    }
    let camera = Camera::framing(icosphere(2).bounds(), 40.0, 1.5);
    let sphere = upload(&gpu, &mesh_of(icosphere(2)));
    let image = sphere.cast_camera(&camera, 48, 32).expect("camera");
    let rays = sphere.camera_rays(&camera, 48, 32).expect("rays");
    for (ray, got) in rays.iter().zip(&image) {
        assert_eq!(
            got.map(|h| h.triangle),
            sphere.mesh().cast(ray).map(|h| h.triangle)
        );
    }
}

/// Closest hits handed to a sink of the caller's own: each ray's hit where it lands, and
/// what the sink was given.
#[derive(Default)]
struct RecordingSink {
    hits: Vec<Option<Hit>>,
    runs: Vec<std::ops::Range<usize>>,
    put: Vec<usize>,
}

impl AnswerSink<Option<Hit>> for RecordingSink {
    fn take<I: IndexedParallelIterator<Item = Option<Hit>>>(&mut self, first: usize, hits: I) {
        self.runs.push(first..first + hits.len());
        let run = &mut self.hits[first..first + hits.len()];
        run.par_iter_mut()
            .zip(hits)
            .for_each(|(slot, hit)| *slot = hit);
    }

    fn put(&mut self, ray: usize, hit: Option<Hit>) {
        self.put.push(ray);
        self.hits[ray] = hit;
    }
}

#[test]
fn a_sink_of_the_callers_takes_every_answer_once_in_order() {
    let Some(shared) = gpu() else { return };
    // Chunks of 4096 rays, so that the answers come in several runs; through wgpu and
    // through the CUDA kernel's host build, whose streams hand answers on alike.
    for backend in [Backend::Wgpu, Backend::CudaHost] {
        let options = GpuOptions {
            backend,
            chunk: 4096,
            ..GpuOptions::default()
        };
        let gpu = Gpu::with_options(Some(&shared.adapter().name), options).expect("options");
        // Woody is flat: the random rays that start in its plane, on the surface, are left
        // open, as are some of the adversarial ones (through edges and vertices).
        for name in ["woody.obj", "suzanne.obj"] {
            let mesh = Arc::new(Mesh::from_path(asset(name)).expect("asset"));
            let on_gpu = upload(&gpu, &mesh);
            let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
            let mut rays = random_rays(mesh.bounds(), 5000, 11);
            rays.extend(adversarial_rays(&triangles, 2000, 12));
            let query = QueryOptions::new();
            let mut sink = RecordingSink {
                hits: vec![None; rays.len()],
                ..RecordingSink::default()
            };
            on_gpu
                .cast_batch_into_with(&rays, &query, &mut sink)
                .expect("cast_batch_into_with");
            let what = format!("{name}, {backend:?}");
            // The runs cover the rays once, in order, in more than one run.
            assert!(sink.runs.len() > 1, "{what}: {:?}", sink.runs);
            let mut next = 0;
            for run in &sink.runs {
                assert_eq!(run.start, next, "{what}: runs {:?}", sink.runs);
                next = run.end;
            }
            assert_eq!(next, rays.len(), "{what}");
            // Every open ray is put once, and only those.
            let open = on_gpu.stats().finished_on_cpu;
            assert!(open > 0, "{what}: no open ray to put");
            assert_eq!(sink.put.len() as u64, open, "{what}");
            sink.put.sort_unstable();
            sink.put.dedup();
            assert_eq!(sink.put.len() as u64, open, "{what}: a ray put twice");
            // The answers are the CPU's, and the `Vec` the batch query returns.
            let exact = bit_exact(&gpu);
            for (i, (ray, got)) in rays.iter().zip(&sink.hits).enumerate() {
                let want = mesh.cast(ray);
                assert!(
                    same_closest(*got, want, exact),
                    "{what}: ray {i} {ray:?}: sink {got:?}, CPU {want:?}"
                );
            }
            let batch = on_gpu.cast_batch_with(&rays, &query).expect("cast_batch");
            assert_eq!(batch, sink.hits, "{what}");
        }
    }
}
