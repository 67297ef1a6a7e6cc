//! The GPU takes the CPU engine's `QueryOptions` and answers what the CPU answers with the
//! same options, ray for ray: the contacts rule, back-face culling, distance limits (NaN and
//! negative ones included), `max_hits` (below, at and above the hit capacity) and filters,
//! alone and together, on an asset of each kind and on random, incoherent, adversarial (through
//! vertices and edges, grazing) and degenerate rays.

use std::sync::Arc;

use glam::Vec3;
use meshcast::{
    Aabb, Contacts, Culling, Filter, KeepAll, Mesh, MeshFiles, QueryOptions, Ray, RayQueries,
    Triangle,
};
use meshcast_gpu::{Gpu, GpuMesh};
use meshcast_testkit::{adversarial_rays, asset, cube, icosphere, incoherent_rays, random_rays};

use crate::common::{assets_of_each_kind, bit_exact, gpu, same_closest, upload, within_bounds};

/// Checks every query with `options` on `rays` against the CPU engine with the same options.
fn check_with<F: Filter<u32> + Sync>(
    gpu: &Gpu,
    on_gpu: &GpuMesh,
    rays: &[Ray],
    options: &QueryOptions<F>,
    what: &str,
) {
    let mesh = on_gpu.mesh();
    let exact = bit_exact(gpu);
    let closest = on_gpu
        .cast_batch_with(rays, options)
        .expect("cast_batch_with");
    let occluded = on_gpu
        .occluded_batch_with(rays, options)
        .expect("occluded_batch_with");
    let counts = on_gpu
        .count_batch_with(rays, options)
        .expect("count_batch_with");
    let lists = on_gpu
        .cast_all_batch_with(rays, options)
        .expect("cast_all_batch_with");
    assert_eq!(lists.len(), rays.len());
    for (i, ray) in rays.iter().enumerate() {
        let want = mesh.cast_with(ray, options);
        assert!(
            same_closest(closest[i], want, exact),
            "{what}: cast, ray {i} {ray:?}: GPU {:?}, CPU {want:?}",
            closest[i]
        );
        let want = mesh.occluded_with(ray, options);
        assert_eq!(occluded[i], want, "{what}: occluded, ray {i} {ray:?}");
        let want = mesh.count_with(ray, options);
        assert_eq!(counts[i] as usize, want, "{what}: count, ray {i} {ray:?}");
        let want = mesh.cast_all_with(ray, options);
        let got: Vec<u32> = lists[i].iter().map(|h| h.triangle).collect();
        let want_triangles: Vec<u32> = want.iter().map(|h| h.triangle).collect();
        assert_eq!(got, want_triangles, "{what}: cast_all, ray {i} {ray:?}");
        for (g, w) in lists[i].iter().zip(&want) {
            assert!(
                within_bounds(g, w),
                "{what}: cast_all, ray {i}: {g:?} vs {w:?}"
            );
        }
        if exact {
            assert_eq!(&lists[i], &want[..], "{what}: cast_all hits, ray {i}");
        }
    }
}

/// Checks `options` with no filter and with one that drops every third triangle.
fn check_filtered(gpu: &Gpu, on_gpu: &GpuMesh, rays: &[Ray], options: QueryOptions, what: &str) {
    check_with(gpu, on_gpu, rays, &options, what);
    let filtered = options.with_filter(|triangle: u32| triangle % 3 != 1);
    check_with(gpu, on_gpu, rays, &filtered, &format!("{what}, filtered"));
}

/// Random, incoherent and adversarial rays at `mesh`, and degenerate ones.
fn rays_at(mesh: &Mesh, count: usize) -> Vec<Ray> {
    let bounds = mesh.bounds();
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let mut rays = random_rays(bounds, count, 11);
    rays.extend(incoherent_rays(bounds, count, 12));
    rays.extend(adversarial_rays(&triangles, count, 13));
    let o = bounds.centroid() + Vec3::new(0.01, 0.02, 3.0 * bounds.extent().length());
    rays.extend([
        Ray::new(o, Vec3::ZERO),
        Ray::new(o, Vec3::new(f32::NAN, 0.0, -1.0)),
        Ray::new(Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::NEG_Z),
        Ray::new(o, Vec3::NEG_Z).with_range(2.0, 1.0),
        Ray::new(o, Vec3::NEG_Z).with_range(f32::NAN, 1.0),
        Ray::new(o, Vec3::NEG_Z * 1e-35),
        Ray::new(o, Vec3::NEG_Z * 1e35),
    ]);
    rays
}

/// The option sets every mesh is checked with: each option alone, then together.
fn option_sets(reach: f32) -> Vec<(QueryOptions, String)> {
    let new = QueryOptions::new;
    vec![
        (new(), "defaults".into()),
        (new().with_contacts(Contacts::TieRule), "tie rule".into()),
        (
            new().with_culling(Culling::BackFaces),
            "back faces culled".into(),
        ),
        (
            new().with_max_distance(reach),
            format!("max_distance {reach}"),
        ),
        (new().with_max_hits(1), "max_hits 1".into()),
        (new().with_max_hits(3), "max_hits 3".into()),
        (
            new()
                .with_contacts(Contacts::TieRule)
                .with_culling(Culling::BackFaces)
                .with_max_distance(reach)
                .with_max_hits(2),
            "all together".into(),
        ),
    ]
}

#[test]
fn assets_of_each_kind_answer_as_the_cpu_with_every_option() {
    let Some(gpu) = gpu() else { return };
    for path in assets_of_each_kind() {
        let mesh = Arc::new(Mesh::from_path(&path).expect("asset"));
        let on_gpu = upload(gpu, &mesh);
        let rays = rays_at(&mesh, 200);
        // Past the nearest parts of the mesh for rays from around it, short of the far ones.
        let reach = 0.9 * mesh.bounds().extent().length();
        for (options, what) in option_sets(reach) {
            let what = format!("{}, {what}", path.display());
            check_filtered(gpu, &on_gpu, &rays, options, &what);
        }
    }
}

#[test]
fn closed_shapes_answer_as_the_cpu_with_every_option() {
    let Some(gpu) = gpu() else { return };
    for (s, shape) in [cube(1.0, 3), icosphere(3)].into_iter().enumerate() {
        let mesh = Arc::new(Mesh::from_tri_mesh(shape, &Default::default()));
        let on_gpu = upload(gpu, &mesh);
        // From inside too: there every face is seen from behind.
        let mut rays = rays_at(&mesh, 300);
        let b = mesh.bounds();
        let inner = Aabb::new(
            b.centroid() - 0.15 * b.extent(),
            b.centroid() + 0.15 * b.extent(),
        );
        rays.extend(random_rays(inner, 300, 21));
        for (options, what) in option_sets(1.5) {
            check_filtered(gpu, &on_gpu, &rays, options, &format!("shape {s}, {what}"));
        }
    }
}

#[test]
fn nan_and_negative_distance_limits_and_no_hits_find_nothing() {
    let Some(gpu) = gpu() else { return };
    let mesh = Arc::new(Mesh::from_path(asset("stanford-bunny.obj")).expect("bunny"));
    let on_gpu = upload(gpu, &mesh);
    let rays = rays_at(&mesh, 200);
    let sets = [
        QueryOptions::new().with_max_distance(f32::NAN),
        QueryOptions::new().with_max_distance(-1.0),
        QueryOptions::new().with_max_distance(0.0),
        QueryOptions::new().with_max_hits(0),
    ];
    for options in sets {
        check_filtered(gpu, &on_gpu, &rays, options, &format!("{options:?}"));
    }
    let nothing = QueryOptions::new().with_max_distance(f32::NAN);
    let hits = on_gpu.cast_batch_with(&rays, &nothing).expect("cast");
    assert!(hits.iter().all(Option::is_none));
}

/// A filter that rejects everything leaves nothing, and one that keeps everything, though
/// not known to, changes nothing.
#[test]
fn filters_that_reject_or_keep_everything_answer_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let mesh = Arc::new(Mesh::from_tri_mesh(icosphere(2), &Default::default()));
    let on_gpu = upload(gpu, &mesh);
    let rays = rays_at(&mesh, 300);
    let none = QueryOptions::new().with_filter(|_: u32| false);
    check_with(gpu, &on_gpu, &rays, &none, "reject all");
    assert!(on_gpu
        .occluded_batch_with(&rays, &none)
        .expect("any")
        .iter()
        .all(|&hit| !hit));
    let all = QueryOptions::new().with_filter(|_: u32| true);
    check_with(gpu, &on_gpu, &rays, &all, "keep all, unknown to the GPU");
    check_with(
        gpu,
        &on_gpu,
        &rays,
        &QueryOptions::new().with_filter(KeepAll),
        "KeepAll",
    );
}

/// Twenty stacked squares, every ray down the stack hitting forty triangles: the first
/// `max_hits` are kept on the GPU for any number of hits, so only lists longer than the
/// capacity with no cap go to the CPU.
#[test]
fn max_hits_keeps_long_lists_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
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
    on_gpu.set_hit_capacity(16);
    // Away from the diagonals, so that no ray is left open for passing near an edge.
    let rays: Vec<Ray> = (0..50)
        .map(|i| Ray::new(Vec3::new(0.013 * i as f32 + 0.1, 0.93, 5.0), Vec3::NEG_Z))
        .collect();
    for max_hits in [1, 2, 7, 16, 17, 40, 41, usize::MAX] {
        let options = QueryOptions::new().with_max_hits(max_hits);
        let before = on_gpu.stats().finished_on_cpu;
        let lists = on_gpu.cast_all_batch_with(&rays, &options).expect("lists");
        let on_cpu = on_gpu.stats().finished_on_cpu - before;
        for (ray, list) in rays.iter().zip(lists.iter()) {
            assert_eq!(
                list,
                &mesh.cast_all_with(ray, &options)[..],
                "max_hits {max_hits}"
            );
        }
        let expected_on_cpu = if max_hits <= 16 { 0 } else { rays.len() as u64 };
        assert_eq!(on_cpu, expected_on_cpu, "max_hits {max_hits}");
        check_filtered(
            gpu,
            &on_gpu,
            &rays,
            options,
            &format!("stack, max_hits {max_hits}"),
        );
    }
    // Seen from below, every square is a back face.
    let up: Vec<Ray> = rays
        .iter()
        .map(|r| Ray::new(r.origin - Vec3::Z * 10.0, Vec3::Z))
        .collect();
    let culled = QueryOptions::new().with_culling(Culling::BackFaces);
    assert!(on_gpu
        .cast_batch_with(&up, &culled)
        .expect("cast")
        .iter()
        .all(Option::is_none));
    assert!(on_gpu
        .cast_batch_with(&rays, &culled)
        .expect("cast")
        .iter()
        .all(Option::is_some));
}
