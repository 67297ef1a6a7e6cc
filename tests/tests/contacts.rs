//! Rays that touch a surface without crossing into it: down every edge of a box and of grids
//! on its faces, and through every vertex of boxes, spheres and real meshes, along each axis
//! from both sides. Every ray below runs exactly through its vertex or edge (only one
//! coordinate of its origin differs from the point's), so the tests reach the exact zero
//! edge functions the rule is about.
//!
//! What is checked, for each ray and at every level (`Mesh`, `Instance`, `Scene`), single rays
//! and batches (packets) alike:
//! - with the default options (contacts hit) `cast` is the brute-force closest hit over
//!   closed triangles, and `occluded` agrees;
//! - by the tie rule (`Contacts::TieRule`) `cast` is the first of `cast_all`, which counts
//!   crossings, and `occluded` agrees;
//! - on boxes and spheres every such ray from outside meets the surface.

use std::sync::Arc;

use meshcast::glam::{Affine3A, Vec3};
use meshcast::{
    BuildOptions, Contacts, Culling, Instance, Mesh, MeshFiles, QueryOptions, Ray, RayQueries,
    Scene, TriMesh, Triangle, ALL_LAYERS,
};
use meshcast_testkit::{
    asset, brute_force_cast, brute_force_cast_with, brute_force_hits, cube, icosphere, same_hit,
    Rules,
};

/// Rays along each axis, both ways, through `point`, starting `distance` away from it.
fn axis_rays(point: Vec3, distance: f32) -> [Ray; 6] {
    [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::NEG_X,
        Vec3::NEG_Y,
        Vec3::NEG_Z,
    ]
    .map(|dir| Ray::new(point - dir * distance, dir))
}

/// Rays through every vertex of `mesh` (up to `most` of them, evenly spread) along each axis.
fn vertex_rays(mesh: &TriMesh, distance: f32, most: usize) -> Vec<Ray> {
    let positions = mesh.positions();
    let step = (positions.len() / most).max(1);
    positions
        .iter()
        .step_by(step)
        .flat_map(|&p| axis_rays(p, distance))
        .collect()
}

/// Rays down every edge of `mesh` that runs along an axis, both ways, and along the other
/// axes through its middle (exact when the corners' coordinates are short binary fractions).
fn axis_edge_rays(mesh: &TriMesh, distance: f32) -> Vec<Ray> {
    let positions = mesh.positions();
    let mut rays = Vec::new();
    for &[a, b, c] in mesh.indices() {
        for (p, q) in [(a, b), (b, c), (c, a)] {
            let (p, q) = (positions[p as usize], positions[q as usize]);
            let along = q - p;
            if (along.cmpne(Vec3::ZERO)).bitmask().count_ones() != 1 {
                continue;
            }
            let dir = along.normalize();
            rays.push(Ray::new(p - dir * distance, dir));
            rays.push(Ray::new(q + dir * distance, -dir));
            rays.extend(axis_rays((p + q) * 0.5, distance));
        }
    }
    rays
}

/// Checks every query of `mesh`, alone and placed in a scene by a translation, on `rays`;
/// returns how many rays hit the mesh with contacts and by the tie rule.
fn check(name: &str, tri_mesh: &TriMesh, rays: &[Ray]) -> (usize, usize) {
    let triangles: Vec<Triangle> = tri_mesh.triangles().collect();
    let mesh = Arc::new(Mesh::from_tri_mesh(
        tri_mesh.clone(),
        &BuildOptions::default(),
    ));
    let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
    let shift = Vec3::new(4.0, -2.0, 8.0);
    let instance =
        Instance::new(Arc::clone(&mesh), Affine3A::from_translation(shift)).expect("a translation");
    let scene = Scene::from_instances([instance.clone()]);
    let shifted: Vec<Ray> = rays
        .iter()
        .map(|ray| Ray::new(ray.origin + shift, ray.dir))
        .collect();
    let (mut hits, mut crossing_hits) = (0, 0);
    for (i, (ray, moved)) in rays.iter().zip(&shifted).enumerate() {
        let expected = brute_force_cast(&triangles, ray);
        hits += usize::from(expected.is_some());
        let hit = mesh.cast(ray);
        assert!(
            same_hit(hit, expected),
            "{name}: ray {i} {ray:?}: {hit:?}, brute force {expected:?}"
        );
        assert_eq!(mesh.occluded(ray), expected.is_some(), "{name}: ray {i}");
        // The moved ray is exact only where the shift keeps the coordinates: compare with
        // brute force on the ray the instance carries into its mesh's space.
        let placed = |contacts| {
            let rules = Rules::new(Culling::Off, contacts);
            let hits =
                brute_force_hits(&scene, moved, f32::INFINITY, rules, ALL_LAYERS, |_, _| true);
            hits.first().map(|h| h.hit)
        };
        let expected = placed(Contacts::Hit);
        assert!(same_hit(instance.cast(moved), expected), "{name}: ray {i}");
        assert_eq!(instance.occluded(moved), expected.is_some());
        assert!(same_hit(scene.cast(moved).map(|h| h.hit), expected));
        let first = placed(Contacts::TieRule);
        assert!(same_hit(instance.cast_with(moved, &tie_rule), first));
        assert_eq!(scene.occluded_with(moved, &tie_rule), first.is_some());

        let crossings = mesh.cast_all(ray);
        let first = brute_force_cast_with(&triangles, ray, Contacts::TieRule);
        crossing_hits += usize::from(first.is_some());
        assert!(
            same_hit(crossings.first().copied(), first),
            "{name}: ray {i}"
        );
        let crossing = mesh.cast_with(ray, &tie_rule);
        assert!(same_hit(crossing, first), "{name}: ray {i} {ray:?}");
        assert_eq!(mesh.occluded_with(ray, &tie_rule), first.is_some());
    }
    // Batches trace neighbouring rays together as packets: the same answers.
    let singles: Vec<_> = rays.iter().map(|ray| mesh.cast(ray)).collect();
    assert_eq!(mesh.cast_batch(rays), singles, "{name}");
    let singles: Vec<_> = rays.iter().map(|ray| mesh.occluded(ray)).collect();
    assert_eq!(mesh.occluded_batch(rays), singles, "{name}");
    let singles: Vec<_> = rays.iter().map(|r| mesh.cast_with(r, &tie_rule)).collect();
    assert_eq!(mesh.cast_batch_with(rays, &tie_rule), singles, "{name}");
    let singles: Vec<_> = shifted.iter().map(|ray| scene.cast(ray)).collect();
    assert_eq!(scene.cast_batch(&shifted), singles, "{name}");
    (hits, crossing_hits)
}

#[test]
fn rays_down_the_edges_of_boxes_and_grids_meet_them_from_every_side() {
    for levels in [0, 2] {
        let tri_mesh = cube(1.0, levels);
        let mut rays = axis_edge_rays(&tri_mesh, 5.0);
        rays.extend(vertex_rays(&tri_mesh, 5.0, usize::MAX));
        let (hits, crossing_hits) = check(&format!("cube {levels}"), &tri_mesh, &rays);
        assert_eq!(hits, rays.len(), "cube {levels}: every ray touches the box");
        // The tie rule lets some through: the rays reach the exact zeros.
        assert!(
            crossing_hits < hits,
            "cube {levels}: {crossing_hits} of {hits}"
        );
    }
}

#[test]
fn rays_through_every_vertex_of_spheres_and_assets_meet_them() {
    let sphere = icosphere(2);
    let rays = vertex_rays(&sphere, 5.0, usize::MAX);
    let (hits, _) = check("icosphere", &sphere, &rays);
    assert_eq!(
        hits,
        rays.len(),
        "every ray through a vertex meets the sphere"
    );
    for name in ["fandisk.obj", "cow.obj"] {
        let mesh = Mesh::from_obj(asset(name)).expect("asset loads");
        let tri_mesh = mesh.tri_mesh().clone();
        let distance = 4.0 * mesh.bounds().extent().length();
        let rays = vertex_rays(&tri_mesh, distance, 300);
        let (hits, _) = check(name, &tri_mesh, &rays);
        assert!(
            hits * 10 >= rays.len() * 9,
            "{name}: {hits} of {}",
            rays.len()
        );
    }
}
