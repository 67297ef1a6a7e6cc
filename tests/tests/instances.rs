//! Querying in local space: a mesh under a rotated, scaled (non-uniformly, even mirrored),
//! translated instance hits like the same mesh with its vertices moved into the world.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Instance, Mesh, TriMesh};
use meshcast_primitives::Hit;
use meshcast_testkit::{asset, edge_closeness, random_rays, random_transform, rng};

/// The same mesh with every vertex carried into the world by `transform`.
fn moved_into_world(tri_mesh: &TriMesh, transform: Affine3A) -> Mesh {
    let positions: Vec<Vec3> = tri_mesh
        .positions()
        .iter()
        .map(|&p| transform.transform_point3(p))
        .collect();
    let world = TriMesh::new(positions, tri_mesh.indices().to_vec()).expect("finite");
    Mesh::from_tri_mesh(world, &BuildOptions::default())
}

/// Near an edge, a rounding difference may move a hit to the neighbouring triangle, or
/// through a crack-free seam to a miss on a silhouette: allowed only there.
const EDGE: f32 = 2e-3;

#[test]
fn instanced_hits_equal_hits_on_the_moved_mesh() {
    let mut random = rng(2024);
    let mut compared = 0;
    let mut near_edge_differences = 0;
    for name in ["cow.obj", "spot.obj", "suzanne.obj"] {
        let mesh = Arc::new(Mesh::from_obj(asset(name)).expect("asset loads"));
        for round in 0..4 {
            let transform = random_transform(&mut random, 10.0);
            let instance = Instance::new(Arc::clone(&mesh), transform).expect("invertible");
            let world = moved_into_world(mesh.tri_mesh(), transform);
            let size = world.bounds().extent().length();
            assert!(instance.bounds().contains_box(&world.bounds()));
            for ray in random_rays(world.bounds(), 500, round) {
                compared += 1;
                let (a, b) = (instance.cast(&ray), world.cast(&ray));
                assert_eq!(instance.occluded(&ray), a.is_some());
                match (a, b) {
                    (None, None) => {}
                    (Some(a), Some(b)) if a.triangle == b.triangle => {
                        let scale = ray.dir.length();
                        assert!(
                            (a.t - b.t).abs() * scale <= 1e-4 * size,
                            "{name}: t {} vs {}",
                            a.t,
                            b.t
                        );
                        let surface = instance.surface(&a);
                        let on_world = world.surface(&b);
                        assert!(surface.point.distance(on_world.point) <= 1e-4 * size);
                        // The inverse transpose keeps the normal perpendicular to the moved
                        // triangle; a mirror flips the winding, hence the absolute value.
                        let dot = surface.geometric_normal.dot(on_world.geometric_normal);
                        assert!(dot.abs() > 0.999, "{name}: normals {dot}");
                    }
                    (a, b) => {
                        let near_edge =
                            |h: Option<Hit>| h.is_none_or(|h| edge_closeness(&h) < EDGE);
                        assert!(
                            near_edge(a) && near_edge(b),
                            "{name} round {round}: {ray:?}: instance {a:?}, world {b:?}"
                        );
                        near_edge_differences += 1;
                    }
                }
            }
        }
    }
    assert!(compared >= 6000);
    assert!(
        near_edge_differences * 100 < compared,
        "{near_edge_differences} of {compared} differ"
    );
}

#[test]
fn identity_instance_is_the_mesh_itself() {
    let mesh = Arc::new(Mesh::from_obj(asset("woody.obj")).expect("woody"));
    let instance = Instance::new(Arc::clone(&mesh), Affine3A::IDENTITY).expect("identity");
    for ray in random_rays(mesh.bounds(), 500, 3) {
        assert_eq!(instance.cast(&ray), mesh.cast(&ray));
        assert_eq!(instance.cast_all(&ray), mesh.cast_all(&ray));
    }
}
