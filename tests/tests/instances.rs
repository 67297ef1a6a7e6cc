//! Querying in local space: a mesh under a rotated, scaled (non-uniformly, even mirrored),
//! translated instance hits like the same mesh with its vertices moved into the world.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use meshcast::MeshFiles;
use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Instance, Mesh, RayQueries, TriMesh};
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
                        let surface = instance.surface(&a).expect("a hit of the mesh");
                        let on_world = world.surface(&b).expect("a hit of the mesh");
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

#[test]
fn shading_normals_follow_the_surface_and_a_mirror_does_not_turn_them_over() {
    // Under rotations and uniform scales angles are kept, so the instance's smooth normals
    // carried into the world are those of the mesh moved there. A mirror reverses the moved
    // mesh's winding, and with it that mesh's normals, but not the instance's: they keep
    // facing the side they faced in the mesh.
    let mesh = Arc::new(Mesh::from_obj(asset("cow.obj")).expect("cow loads"));
    let rotation = glam::Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 1.1);
    for (mirror, sign) in [(1.0, 1.0), (-1.0, -1.0)] {
        let transform = Affine3A::from_scale_rotation_translation(
            Vec3::new(2.5 * mirror, 2.5, 2.5),
            rotation,
            Vec3::new(3.0, -1.0, 7.0),
        );
        let instance = Instance::new(Arc::clone(&mesh), transform).expect("invertible");
        let world = moved_into_world(mesh.tri_mesh(), transform);
        let mut compared = 0;
        for ray in random_rays(world.bounds(), 1000, 9) {
            let (Some(a), Some(b)) = (instance.cast(&ray), world.cast(&ray)) else {
                continue;
            };
            if a.triangle != b.triangle {
                continue;
            }
            compared += 1;
            let (Some(placed), Some(moved)) = (instance.surface(&a), world.surface(&b)) else {
                panic!("hits of the mesh have surfaces");
            };
            let dot = placed.shading_normal.dot(moved.shading_normal);
            assert!((dot - sign).abs() < 1e-4, "mirror {mirror}: {dot}");
            // The geometric normal is turned over with the winding, as the moved mesh's is.
            assert!(placed.geometric_normal.dot(moved.geometric_normal) > 0.999);
        }
        assert!(compared > 200, "{compared} hits compared");
    }
}
