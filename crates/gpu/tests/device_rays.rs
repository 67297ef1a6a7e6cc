//! Rays that stay on the device (`GpuMesh::cast_device`, `occluded_device`) answer what the
//! CPU engine answers, ray for ray, whatever the arrays' strides: the kernels that pack the
//! caller's rows, lay the answers out and list the open rays, built as host C++
//! (`Backend::CudaHost`, everywhere, bit for bit) and on an NVIDIA GPU where one is present
//! (`t`, `u`, `v` within the documented bounds). The open rays are exactly those the
//! host-rays path leaves open, and bad arrays are refused with typed errors. (`unsafe`: the
//! rows are made over buffers these tests own, as a caller vouches for its arrays.)
#![allow(unsafe_code)]

use std::sync::Arc;

use glam::Vec3;
use meshcast::{Hit, Mesh, MeshFiles, QueryOptions, Ray, RayQueries, TriMesh, Triangle};
use meshcast_gpu::{
    Backend, DeviceBuffer, DeviceCast, DeviceRays, DeviceRows, Error, Gpu, GpuMesh, GpuOptions,
};
use meshcast_testkit::{adversarial_rays, asset, incoherent_rays, random_rays};

use crate::common::{cuda_back_ends, gpu, mesh_of, same_closest};

/// The CUDA back ends this machine runs, with chunks of `chunk` rays: the host build always,
/// the device where present.
fn back_ends(chunk: u32) -> Vec<Gpu> {
    cuda_back_ends(GpuOptions {
        chunk,
        ..GpuOptions::default()
    })
}

/// How the rays' numbers lie in memory, as frameworks hold them.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// One `(N, 6)` array, C order: origin then direction.
    Rows,
    /// Two `(N, 3)` arrays, C order.
    Apart,
    /// Two `(3, N)` arrays seen transposed (Fortran order): rows 4 bytes apart.
    Transposed,
    /// Every other row of an `(2N, 6)` array, negative strides (the rows reversed).
    Reversed,
    /// One origin for every ray.
    OneOrigin,
}

/// `rays`' origins and directions on `on_gpu`'s device laid out as `layout` says, read with
/// `range`: the buffers (kept alive) and the rays.
fn on_device(
    on_gpu: &GpuMesh,
    rays: &[Ray],
    layout: Layout,
    range: (f32, f32),
) -> (Vec<DeviceBuffer>, DeviceRays) {
    let n = rays.len();
    let o = |r: &Ray| r.origin.to_array();
    let d = |r: &Ray| r.dir.to_array();
    let copy = |floats: &[f32]| {
        on_gpu
            .device_copy(bytemuck::cast_slice(floats))
            .expect("device copy")
    };
    // (buffer index, byte offset, rows, row stride, column stride) of origins, directions.
    type Place = (usize, u64, usize, i64, i64);
    let (buffers, places): (Vec<DeviceBuffer>, [Place; 2]) = match layout {
        Layout::Rows => {
            let rows: Vec<f32> = rays.iter().flat_map(|r| [o(r), d(r)]).flatten().collect();
            (vec![copy(&rows)], [(0, 0, n, 24, 4), (0, 12, n, 24, 4)])
        }
        Layout::Apart => {
            let origins: Vec<f32> = rays.iter().flat_map(o).collect();
            let dirs: Vec<f32> = rays.iter().flat_map(d).collect();
            (
                vec![copy(&origins), copy(&dirs)],
                [(0, 0, n, 12, 4), (1, 0, n, 12, 4)],
            )
        }
        Layout::Transposed => {
            let columns = |f: &dyn Fn(&Ray) -> [f32; 3]| -> Vec<f32> {
                (0..3)
                    .flat_map(|k| rays.iter().map(move |r| f(r)[k]))
                    .collect()
            };
            let stride = 4 * n as i64;
            (
                vec![copy(&columns(&o)), copy(&columns(&d))],
                [(0, 0, n, 4, stride), (1, 0, n, 4, stride)],
            )
        }
        Layout::Reversed => {
            // Row 2k + 1 holds ray n - 1 - k; row 2k is garbage (NaN) the query must skip.
            let mut rows = vec![f32::NAN; 12 * n];
            for (k, ray) in rays.iter().rev().enumerate() {
                rows[12 * k + 6..12 * k + 9].copy_from_slice(&o(ray));
                rows[12 * k + 9..12 * k + 12].copy_from_slice(&d(ray));
            }
            let last = 48 * n.saturating_sub(1) as u64 + 24;
            (
                vec![copy(&rows)],
                [(0, last, n, -48, 4), (0, last + 12, n, -48, 4)],
            )
        }
        Layout::OneOrigin => {
            let dirs: Vec<f32> = rays.iter().flat_map(d).collect();
            (
                vec![copy(&o(&rays[0])), copy(&dirs)],
                [(0, 0, 1, 12, 4), (1, 0, n, 12, 4)],
            )
        }
    };
    let rows = |(buffer, offset, rows, row, column): Place| {
        let address = buffers[buffer].address() + offset;
        // SAFETY: every row named lies in `buffers[buffer]` (laid out above), which the
        // caller keeps until the query returns and nothing writes.
        unsafe { DeviceRows::new(address, rows, row, column) }.expect("aligned")
    };
    let device_rays = DeviceRays::new(rows(places[0]), rows(places[1]), range).expect("rays");
    (buffers, device_rays)
}

/// The rays `on_device` reads for `layout`: one origin for every ray where it shares one.
fn read_as(rays: &[Ray], layout: Layout, (t_min, t_max): (f32, f32)) -> Vec<Ray> {
    rays.iter()
        .map(|r| {
            let origin = match layout {
                Layout::OneOrigin => rays[0].origin,
                _ => r.origin,
            };
            Ray::new(origin, r.dir).with_range(t_min, t_max)
        })
        .collect()
}

fn floats(buffer: &DeviceBuffer) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(&buffer.to_host().expect("read back"))
}

fn words(buffer: &DeviceBuffer) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(&buffer.to_host().expect("read back"))
}

/// Each ray's hit as the arrays lay it out, and the normal they give it.
fn hits(cast: &DeviceCast) -> Vec<(Option<Hit>, [f32; 3], u32)> {
    let (t, ids, geometry) = (
        floats(&cast.t_hit),
        words(&cast.primitive_ids),
        words(&cast.geometry_ids),
    );
    let (uvs, normals) = (floats(&cast.primitive_uvs), floats(&cast.primitive_normals));
    (0..t.len())
        .map(|i| {
            let normal = [normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]];
            let hit = (ids[i] != u32::MAX).then(|| Hit {
                t: t[i],
                u: uvs[2 * i],
                v: uvs[2 * i + 1],
                triangle: ids[i],
            });
            if hit.is_none() {
                assert_eq!(
                    (t[i], uvs[2 * i], uvs[2 * i + 1]),
                    (f32::INFINITY, 0.0, 0.0)
                );
            }
            (hit, normal, geometry[i])
        })
        .collect()
}

/// The unit normal the arrays give a hit on `triangle` of `mesh`.
fn unit_normal(mesh: &Mesh, triangle: u32) -> [f32; 3] {
    let triangle = mesh.tri_mesh().triangle(triangle as usize).expect("hit");
    triangle.normal().normalize_or_zero().to_array()
}

/// Checks closest and any hits of `rays` on the device, laid out every way, against the CPU
/// engine, and that the device leaves open the rays the host-rays path leaves open.
fn check(gpu: &Gpu, on_gpu: &GpuMesh, rays: &[Ray], what: &str) {
    let mesh = on_gpu.mesh();
    let exact = gpu.kernel_options().backend == Backend::CudaHost;
    let options = QueryOptions::new();
    let layouts = [
        Layout::Rows,
        Layout::Apart,
        Layout::Transposed,
        Layout::Reversed,
        Layout::OneOrigin,
    ];
    for (layout, range) in layouts.into_iter().zip([
        (f32::MIN_POSITIVE, f32::INFINITY),
        (0.0, 0.8),
        (0.5, 2.0),
        (-1.0, f32::INFINITY),
        (f32::MIN_POSITIVE, 1.5),
    ]) {
        let what = format!("{what}, {layout:?}, range {range:?}");
        let read = read_as(rays, layout, range);
        let (_buffers, device_rays) = on_device(on_gpu, rays, layout, range);
        let before = on_gpu.stats();
        let cast = on_gpu
            .cast_device(&device_rays, &options)
            .expect("cast_device");
        let on_device_open = on_gpu.stats().finished_on_cpu - before.finished_on_cpu;
        let before = on_gpu.stats();
        let from_host = on_gpu.cast_batch_with(&read, &options).expect("cast_batch");
        let from_host_open = on_gpu.stats().finished_on_cpu - before.finished_on_cpu;
        assert_eq!(on_device_open, from_host_open, "{what}: open rays");
        let want = mesh.cast_batch_with(&read, &options);
        let got = hits(&cast);
        assert_eq!(got.len(), rays.len());
        for (i, ((hit, normal, geometry), want)) in got.into_iter().zip(&want).enumerate() {
            assert!(
                same_closest(hit, *want, exact),
                "{what}: ray {i} {:?}: device {hit:?}, CPU {want:?}",
                read[i]
            );
            assert_eq!(hit, from_host[i], "{what}: ray {i}, rays from the host");
            let (want_normal, want_geometry) = match want {
                Some(hit) => (unit_normal(mesh, hit.triangle), 0),
                None => ([0.0; 3], u32::MAX),
            };
            assert_eq!(
                (normal, geometry),
                (want_normal, want_geometry),
                "{what}: ray {i}"
            );
        }
        let occluded = on_gpu
            .occluded_device(&device_rays, &options)
            .expect("occluded_device");
        let got: Vec<u8> = occluded.to_host().expect("read back");
        let want: Vec<u8> = mesh
            .occluded_batch_with(&read, &options)
            .into_iter()
            .map(u8::from)
            .collect();
        assert_eq!(got, want, "{what}: occluded");
    }
}

#[test]
fn rays_on_the_device_are_answered_as_the_cpu_in_every_layout() {
    // Chunks of 4096 rays (the least): two per query.
    for gpu in back_ends(4096) {
        for name in ["suzanne.obj", "fandisk.obj", "stanford-bunny.obj"] {
            let mesh = Arc::new(Mesh::from_path(asset(name)).expect("asset"));
            let on_gpu = gpu.upload(Arc::clone(&mesh)).expect("upload");
            let bounds = mesh.bounds();
            let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
            let mut rays = random_rays(bounds, 1500, 21);
            rays.extend(incoherent_rays(bounds, 1500, 22));
            rays.extend(adversarial_rays(&triangles, 1500, 23));
            // A query of rays on the device refuses a ray that is not finite (below).
            rays.retain(|ray| ray.origin.is_finite() && ray.dir.is_finite());
            let what = format!("{name} on {:?}", gpu.kernel_options().backend);
            check(&gpu, &on_gpu, &rays, &what);
            let open = on_gpu.stats().finished_on_cpu;
            assert!(open > 0, "{what}: the adversarial rays leave some open");
        }
    }
}

#[test]
fn rays_on_the_device_are_answered_on_empty_and_untraceable_meshes() {
    let rays: Vec<Ray> = (0..50)
        .map(|i| Ray::new(Vec3::new(0.25, 0.25, -1.0 - i as f32), Vec3::Z))
        .collect();
    let empty = mesh_of(TriMesh::new(vec![], vec![]).expect("empty"));
    // Coordinates beyond the kernel's ranges (2^28): every ray is left to the CPU.
    let far = 1e9;
    let untraceable = mesh_of(
        TriMesh::new(
            vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(far, far, 5.0),
            ],
            vec![[0, 1, 2], [0, 1, 3]],
        )
        .expect("untraceable"),
    );
    for gpu in back_ends(4096) {
        for (name, mesh) in [("empty", &empty), ("untraceable", &untraceable)] {
            let on_gpu = gpu.upload(Arc::clone(mesh)).expect("upload");
            check(&gpu, &on_gpu, &rays, name);
        }
        let on_gpu = gpu.upload(Arc::clone(&untraceable)).expect("upload");
        let (_buffers, none) = on_device(&on_gpu, &[], Layout::Apart, (0.0, 1.0));
        let cast = on_gpu
            .cast_device(&none, &QueryOptions::new())
            .expect("no rays");
        assert_eq!(cast.t_hit.bytes(), 0);
        assert_eq!(cast.primitive_normals.to_host().expect("read").len(), 0);
    }
}

#[test]
fn a_ray_on_the_device_that_is_not_finite_is_refused() {
    for gpu in back_ends(4096) {
        let mesh = Arc::new(Mesh::from_path(asset("suzanne.obj")).expect("asset"));
        let on_gpu = gpu.upload(Arc::clone(&mesh)).expect("upload");
        let mut rays = random_rays(mesh.bounds(), 30, 5);
        rays[13].dir.y = f32::NAN;
        rays[21].origin.x = f32::INFINITY;
        let (_buffers, device_rays) = on_device(&on_gpu, &rays, Layout::Apart, (0.0, 1.0));
        for result in [
            on_gpu.cast_device(&device_rays, &QueryOptions::new()).err(),
            on_gpu
                .occluded_device(&device_rays, &QueryOptions::new())
                .err(),
        ] {
            assert!(
                matches!(result, Some(Error::NotFinite { ray: 13 })),
                "{result:?}"
            );
        }
    }
}

#[test]
fn rays_on_the_device_are_refused_where_they_cannot_be_read() {
    let Some(shared) = gpu() else { return };
    let mesh = Arc::new(Mesh::from_path(asset("suzanne.obj")).expect("asset"));
    let rays = random_rays(mesh.bounds(), 10, 6);
    let host = back_ends(4096).remove(0);
    let on_host = host.upload(Arc::clone(&mesh)).expect("upload");
    let (_buffers, device_rays) = on_device(&on_host, &rays, Layout::Apart, (0.0, 1.0));
    // wgpu alone has no CUDA back end to read them.
    let wgpu = Gpu::with_options(
        Some(&shared.adapter().name),
        GpuOptions {
            backend: Backend::Wgpu,
            ..GpuOptions::default()
        },
    )
    .expect("wgpu");
    let on_wgpu = wgpu.upload(Arc::clone(&mesh)).expect("upload");
    let refused = on_wgpu.cast_device(&device_rays, &QueryOptions::new());
    assert!(
        matches!(&refused, Err(Error::DeviceRays { reason }) if reason.contains("CUDA back end")),
        "{refused:?}"
    );
    // Options the kernel does not apply.
    for options in [
        QueryOptions::new().with_max_distance(1.0),
        QueryOptions::new().with_culling(meshcast::Culling::BackFaces),
    ] {
        let refused = on_host.occluded_device(&device_rays, &options);
        assert!(
            matches!(refused, Err(Error::DeviceRays { .. })),
            "{refused:?}"
        );
    }
    // Misaligned arrays, and arrays of different lengths.
    // SAFETY: refused before anything is read.
    let misaligned = unsafe { DeviceRows::new(2, 10, 12, 4) };
    assert!(matches!(misaligned, Err(Error::DeviceRays { .. })));
    // SAFETY: as above, for the strides.
    let misaligned = unsafe { DeviceRows::new(0, 10, 14, 4) };
    assert!(matches!(misaligned, Err(Error::DeviceRays { .. })));
    // SAFETY: never read: the rays are refused.
    let (three, four) = unsafe {
        (
            DeviceRows::new(0, 3, 12, 4).expect("aligned"),
            DeviceRows::new(0, 4, 12, 4).expect("aligned"),
        )
    };
    let mismatched = DeviceRays::new(three, four, (0.0, 1.0));
    assert!(
        matches!(mismatched, Err(Error::DeviceRays { .. })),
        "{mismatched:?}"
    );
    assert_eq!(
        DeviceRays::new(three, three, (0.0, 1.0))
            .expect("same")
            .len(),
        3
    );
}
