//! Every crossing of a closed surface is reported exactly once, at every level (`Bvh`,
//! `Mesh`, `Instance`, `Scene`): rays aimed exactly through every vertex, every edge midpoint
//! and points `k/64` along edges of closed meshes, from inside and from outside.
//!
//! What is checked, for each ray:
//! - walking the hits in order, each enters or leaves the solid: the winding number along
//!   the ray, starting from the origin's (inside by a brute-force `f64` winding number),
//!   stays 0 or 1 and ends at 0, so no crossing is counted twice or missed, and the parity
//!   is the origin's inside-ness;
//! - on a convex mesh, a ray from inside hits once and one from outside twice or not at all;
//! - `cast` is the first of `cast_all` and `occluded` agrees.

use std::sync::Arc;

use meshcast::glam::{Affine3A, EulerRot, Quat, Vec3};
use meshcast::{
    BuildOptions, Bvh, Contacts, Hit, Instance, Mesh, QueryOptions, Ray, RayHit, RayQueries, Scene,
    TriMesh, TriMeshFiles, Triangle,
};
use meshcast_testkit::{
    asset, brute_force_winding_number, cube, icosphere, random_direction, rng, torus,
};
use rand::Rng;

/// The points rays are aimed at: every vertex, every edge's midpoint and, on up to
/// `edge_samples` edges, the points `k/64` along them.
fn targets(mesh: &TriMesh, edge_samples: usize) -> Vec<Vec3> {
    let positions = mesh.positions();
    let mut points: Vec<Vec3> = positions.to_vec();
    let mut edges: Vec<(u32, u32)> = mesh
        .indices()
        .iter()
        .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
        .filter(|(a, b)| a < b)
        .collect();
    edges.sort_unstable();
    let step = (edges.len() / edge_samples.max(1)).max(1);
    for (i, &(a, b)) in edges.iter().enumerate() {
        let (p, q) = (positions[a as usize], positions[b as usize]);
        points.push((p + q) * 0.5);
        if i % step == 0 {
            points.extend((1..64).map(|k| p.lerp(q, k as f32 / 64.0)));
        }
    }
    points
}

/// Which side of `triangle` a ray along `dir` meets: +1 or -1 (0 edge-on).
fn facing(triangle: &Triangle, dir: Vec3) -> i32 {
    let along = triangle.normal().dot(dir);
    i32::from(along > 0.0) - i32::from(along < 0.0)
}

/// Checks the hits of one ray; `triangle_of` names each hit's world triangle, `inside`
/// whether the origin is inside, `outward` is 1 when the world triangles run
/// counter-clockwise seen from outside (-1 under a mirroring transform).
///
/// Along the ray the winding number starts at 1 inside or 0 outside, and each hit changes
/// it by one: down when the ray leaves through a triangle, up when it enters. A crossing
/// counted twice would take it to 2 or -1. Hits at the same point may come in any order
/// (their `t`s differ by rounding), so they are taken together.
fn check_crossings<H: RayHit<Scalar = f32> + std::fmt::Debug>(
    ray: &Ray,
    hits: &[H],
    triangle_of: impl Fn(&H) -> Triangle,
    inside: bool,
    outward: i32,
    world: &[Triangle],
) {
    let mut winding = i32::from(inside);
    let mut start = 0;
    let mut facings = Vec::new();
    while start < hits.len() {
        let t = hits[start].t();
        let end = start + hits[start..].partition_point(|h| h.t() <= t + t.abs() * 1e-5);
        let group: Vec<i32> = hits[start..end]
            .iter()
            .map(|h| facing(&triangle_of(h), ray.dir) * outward)
            .collect();
        winding -= group.iter().sum::<i32>();
        facings.push(group);
        if winding != 0 && winding != 1 {
            // Legitimate only where the surface overlaps itself: the brute-force winding
            // number just past these hits says so.
            let next = hits.get(end).map_or(t * 2.0 + 1.0, |h| h.t());
            let past = ray.at((t + next) * 0.5);
            let expected = brute_force_winding_number(world, past).round() as i32 * outward;
            assert_eq!(
                winding, expected,
                "a crossing counted twice or missed: {ray:?} {hits:?} facings {facings:?}"
            );
        }
        start = end;
    }
    assert_eq!(
        winding, 0,
        "the ray ends outside: {ray:?} {hits:?} {facings:?}"
    );
}

/// A closed mesh with its name, whether it is convex, and points inside it.
struct Closed {
    name: &'static str,
    mesh: TriMesh,
    convex: bool,
    inside: Vec<Vec3>,
}

fn closed_meshes() -> Vec<Closed> {
    let rotation = Quat::from_euler(EulerRot::XYZ, 0.3, -0.7, 1.1);
    let rotated = cube(2.0, 1);
    let rotated = TriMesh::new(
        rotated.positions().iter().map(|&p| rotation * p).collect(),
        rotated.indices().to_vec(),
    )
    .expect("a rotated cube");
    let mut closed = vec![
        Closed {
            name: "cube",
            mesh: cube(2.0, 2),
            convex: true,
            inside: vec![
                Vec3::ZERO,
                Vec3::new(1.0, 0.5, -1.5),
                Vec3::new(0.0, 1.0, 1.0),
            ],
        },
        Closed {
            name: "rotated cube",
            mesh: rotated,
            convex: true,
            inside: vec![Vec3::ZERO, Vec3::new(0.5, -0.5, 0.25)],
        },
        Closed {
            name: "icosphere",
            mesh: icosphere(2),
            convex: true,
            inside: vec![Vec3::ZERO, Vec3::new(0.3, -0.2, 0.1)],
        },
        Closed {
            name: "torus",
            mesh: torus(2.0, 0.5, 24, 12),
            convex: false,
            inside: vec![Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, -2.1, 0.2)],
        },
    ];
    for (name, file) in [("cow", "cow.obj"), ("spot", "spot.obj")] {
        let mesh = TriMesh::from_obj(asset(file)).expect("the asset loads");
        // Points inside: random points in the box that the winding number puts inside.
        let triangles: Vec<Triangle> = mesh.triangles().collect();
        let bounds = mesh.bounds();
        let mut random = rng(41);
        let inside = (0..200)
            .map(|_| bounds.min + bounds.extent() * Vec3::from(random.gen::<[f32; 3]>()))
            .filter(|&p| brute_force_winding_number(&triangles, p) > 0.5)
            .take(3)
            .collect();
        closed.push(Closed {
            name,
            mesh,
            convex: false,
            inside,
        });
    }
    closed
}

/// The rays of one closed mesh: from points inside and from points outside (on a sphere
/// around it) through every target.
fn rays_for(closed: &Closed, edge_samples: usize, seed: u64) -> Vec<(Ray, bool)> {
    let bounds = closed.mesh.bounds();
    let radius = bounds.extent().length();
    let mut random = rng(seed);
    let mut rays = Vec::new();
    for (i, target) in targets(&closed.mesh, edge_samples).into_iter().enumerate() {
        let outside = bounds.centroid() + random_direction(&mut random) * radius * 1.5;
        rays.push((Ray::new(outside, target - outside), false));
        let inside = closed.inside[i % closed.inside.len()];
        if inside != target {
            rays.push((Ray::new(inside, target - inside), true));
        }
    }
    rays
}

#[test]
fn a_bvh_and_a_mesh_count_every_crossing_once() {
    for closed in closed_meshes() {
        let triangles: Vec<Triangle> = closed.mesh.triangles().collect();
        let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
        let mesh = Mesh::from_tri_mesh(closed.mesh.clone(), &BuildOptions::default());
        let rays = rays_for(&closed, 300, 7);
        let mut hits_seen = 0;
        for (ray, inside) in &rays {
            let from_bvh = bvh.cast_all_primitives(&triangles, ray);
            let of = |hit: &Hit| triangles[hit.triangle as usize];
            check_crossings(ray, &from_bvh, of, *inside, 1, &triangles);
            if closed.convex {
                let expected: &[usize] = if *inside { &[1] } else { &[0, 2] };
                assert!(expected.contains(&from_bvh.len()), "{ray:?} {from_bvh:?}");
            }
            let from_mesh = mesh.cast_all(ray);
            assert_eq!(from_mesh, from_bvh, "{}: {ray:?}", closed.name);
            // By the tie rule the closest hit is the first crossing; contacts come no later.
            let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
            assert_eq!(mesh.cast_with(ray, &tie_rule), from_mesh.first().copied());
            assert_eq!(mesh.occluded_with(ray, &tie_rule), !from_mesh.is_empty());
            if let Some(first) = from_mesh.first() {
                assert!(mesh.cast(ray).is_some_and(|h| h.order(first).is_le()));
            }
            hits_seen += from_mesh.len();
        }
        assert!(hits_seen >= rays.len(), "{}: {hits_seen} hits", closed.name);
    }
}

#[test]
fn instances_and_scenes_count_every_crossing_once() {
    let transforms = [
        Affine3A::from_scale_rotation_translation(
            Vec3::new(1.5, 0.5, 2.0),
            Quat::from_rotation_y(0.4),
            Vec3::new(3.0, -1.0, 0.5),
        ),
        // Mirrored: the world's fronts are the mesh's backs.
        Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
    ];
    for closed in closed_meshes().into_iter().filter(|c| c.name != "spot") {
        let mesh = Arc::new(Mesh::from_tri_mesh(
            closed.mesh.clone(),
            &BuildOptions::default(),
        ));
        for transform in transforms {
            let outward = transform.matrix3.determinant().signum() as i32;
            let instance = Instance::new(Arc::clone(&mesh), transform).expect("invertible");
            // A second instance far away, so that the scene's top level has two leaves.
            let far = Affine3A::from_translation(Vec3::X * 1e3) * transform;
            let scene = Scene::from_instances([
                instance.clone(),
                Instance::new(Arc::clone(&mesh), far).expect("invertible"),
            ]);
            let placed: Vec<Triangle> = (0..mesh.triangle_count())
                .filter_map(|i| instance.world_triangle(i))
                .collect();
            let world = |triangle: u32| placed[triangle as usize];
            for (local, inside) in rays_for(&closed, 60, 9) {
                let origin = transform.transform_point3(local.origin);
                let target = transform.transform_point3(local.origin + local.dir);
                let ray = Ray::new(origin, target - origin);
                let hits = instance.cast_all(&ray);
                check_crossings(
                    &ray,
                    &hits,
                    |h: &Hit| world(h.triangle),
                    inside,
                    outward,
                    &placed,
                );
                let in_scene = scene.cast_all(&ray);
                let near: Vec<Hit> = in_scene
                    .iter()
                    .filter(|h| h.instance.index() == 0)
                    .map(|h| h.hit)
                    .collect();
                assert_eq!(near, hits, "{}: {ray:?}", closed.name);
                let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
                assert_eq!(scene.cast_with(&ray, &tie_rule), in_scene.first().copied());
            }
        }
    }
}
