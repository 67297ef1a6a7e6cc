//! What the fuzz targets do with what a parser accepts: build the hierarchy, check it, and
//! query it, comparing with brute force. A hostile file that a reader accepts must not make
//! a query panic or answer wrongly either.

use std::sync::{Arc, OnceLock};

use meshcast::glam::{DVec3, Vec3};
use meshcast::{
    Aabb, BuildOptions, DHit, DRay, Hit, LeafTest, Mesh, PointQueries, Ray, RayQueries, Scene,
    TriMesh, Triangle,
};
use meshcast_testkit::{
    brute_force_distance, brute_force_scene_cast, cube as shapes_cube, same_hit, same_scene_hit,
    LeafReference,
};

/// The most triangles compared with brute force, so that a large accepted input costs a
/// bounded time per run.
const MAX_BRUTE_FORCE_TRIANGLES: usize = 4096;

/// Builds the hierarchy of an accepted mesh and runs [`exercise_mesh`] on it.
///
/// # Panics
/// As [`exercise_mesh`].
pub fn exercise_tri_mesh(tri_mesh: TriMesh) {
    let mesh = Mesh::from_tri_mesh(tri_mesh, &BuildOptions::default());
    exercise_mesh(&mesh);
}

/// Checks a mesh's hierarchy against its triangles, then casts rays at its bounds and
/// vertices and asks about a few points ([`check_rays`], [`check_points`]).
///
/// # Panics
/// When the hierarchy is invalid or a query answers otherwise than brute force: a bug.
pub fn exercise_mesh(mesh: &Mesh) {
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let boxes: Vec<Aabb> = triangles.iter().map(box_of).collect();
    if let Err(err) = mesh.bvh().validate(&boxes) {
        panic!("invalid hierarchy: {err}");
    }
    for index in 0..=triangles.len() {
        let _ = mesh.tri_mesh().group_name(index);
    }
    if triangles.len() > MAX_BRUTE_FORCE_TRIANGLES {
        return;
    }
    check_rays(mesh, &rays(mesh));
    check_points(mesh, &points(mesh));
}

/// Checks each distinct mesh of an accepted scene ([`exercise_mesh`]), then casts rays at the
/// scene's bounds and compares with brute force over every instance's world triangles.
///
/// # Panics
/// As [`exercise_mesh`], or when the scene answers otherwise than brute force.
pub fn exercise_scene(scene: &Scene) {
    let mut meshes: Vec<&Arc<Mesh>> = Vec::new();
    for (_, instance) in scene.instances() {
        if !meshes.iter().any(|m| Arc::ptr_eq(m, instance.mesh())) {
            meshes.push(instance.mesh());
        }
    }
    let mut triangles = 0;
    for mesh in meshes {
        exercise_mesh(mesh);
        triangles += mesh.tri_mesh().triangle_count();
    }
    if triangles > MAX_BRUTE_FORCE_TRIANGLES {
        return;
    }
    let bounds = scene.bounds();
    let (centre, reach) = (bounds.centroid(), bounds.extent().max_element() + 1.0);
    for dir in [Vec3::X, Vec3::NEG_Y, Vec3::new(0.3, -0.8, 0.52)] {
        let ray = Ray::new(centre - dir * reach, dir);
        let (hit, expected) = (scene.cast(&ray), brute_force_scene_cast(scene, &ray));
        assert!(
            same_scene_hit(hit, expected),
            "{ray:?}: the scene answers {hit:?}, brute force {expected:?}"
        );
    }
}

/// Casts each ray at `mesh` (closest hit, any hit, every hit, the surface at the hit; one
/// ray at a time, as packets of sixteen copies, and all of them as one batch) and compares
/// with brute force: equal answers for the watertight leaf test; for
/// [`LeafTest::Transform`], whose rounding can put a hit outside its triangle's box for rays
/// from very far away (as its docs say), every hit reported must be a brute-force hit.
///
/// # Panics
/// When an answer differs from brute force.
pub fn check_rays(mesh: &Mesh, rays: &[Ray]) {
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let reference = LeafReference::new(mesh.leaf_test(), &triangles);
    let exact = mesh.leaf_test() == LeafTest::Watertight;
    for ray in rays {
        let hit = mesh.cast(ray);
        let all = mesh.cast_all(ray);
        let expected_all = reference.cast_all(ray);
        if exact {
            let expected = reference.cast(ray);
            assert!(
                same_hit(hit, expected),
                "{ray:?}: the hierarchy answers {hit:?}, brute force {expected:?}"
            );
            assert_eq!(mesh.occluded(ray), expected.is_some(), "{ray:?}");
            assert_eq!(all.len(), expected_all.len(), "{ray:?}");
        } else {
            let found = |h: &Hit| expected_all.iter().any(|e| same_hit(Some(*e), Some(*h)));
            assert!(
                all.iter().chain(&hit).all(found),
                "{ray:?}: the hierarchy answers {all:?}, brute force {expected_all:?}"
            );
            assert!(!mesh.occluded(ray) || !expected_all.is_empty(), "{ray:?}");
        }
        if let Some(hit) = hit {
            assert!(
                mesh.surface(&hit).is_some(),
                "{ray:?}: no surface at {hit:?}"
            );
        }
        // Sixteen copies of the ray are coherent: a batch walks them as packets.
        let copies = [*ray; 16];
        let packed = mesh.cast_batch(&copies);
        assert!(
            packed.iter().all(|&p| same_hit(p, hit)),
            "{ray:?}: packets answer {packed:?}, one ray {hit:?}"
        );
        let occluded = mesh.occluded(ray);
        assert!(
            mesh.occluded_batch(&copies).iter().all(|&o| o == occluded),
            "{ray:?}: packets' occlusion differs"
        );
    }
    // The rays as one batch, in their order.
    let batch = mesh.cast_batch(rays);
    for (ray, got) in rays.iter().zip(batch) {
        assert!(
            same_hit(got, mesh.cast(ray)),
            "{ray:?}: the batch answers {got:?}"
        );
    }
}

/// Casts each ray in `f64` world coordinates at `mesh` (a mesh with an origin of its own):
/// the answers are the carried rays' ([`Mesh::carry_ray`]), which [`check_rays`] holds to
/// brute force, with `t` moved by the carriage's shift; any, every hit and count agree.
///
/// # Panics
/// When an answer differs from the carried ray's, or brute force's.
pub fn check_world_rays(mesh: &Mesh, rays: &[DRay]) {
    let carried: Vec<(Ray, f64)> = rays.iter().map(|ray| mesh.carry_ray(ray)).collect();
    let local: Vec<Ray> = carried.iter().map(|&(ray, _)| ray).collect();
    check_rays(mesh, &local);
    for (ray, &(local, shift)) in rays.iter().zip(&carried) {
        let hit = mesh.cast(ray);
        let expected = mesh.cast(&local).map(|hit| DHit::carried_back(hit, shift));
        assert_eq!(hit, expected, "{ray:?}");
        assert_eq!(mesh.occluded(ray), mesh.occluded(&local), "{ray:?}");
        let all = mesh.cast_all(ray);
        assert_eq!(all.len(), mesh.count(ray), "{ray:?}");
    }
    assert_eq!(
        mesh.cast_batch(rays),
        rays.iter().map(|ray| mesh.cast(ray)).collect::<Vec<_>>()
    );
}

/// Asks `mesh` (a mesh with an origin of its own) about each point in `f64` world
/// coordinates: the answers are those of the point carried into its frame
/// ([`Mesh::carry_point`]), which [`check_points`] holds to brute force, with the closest
/// point's distance measured again in `f64`.
///
/// # Panics
/// When an answer differs from the carried point's.
pub fn check_world_points(mesh: &Mesh, points: &[DVec3]) {
    let carried: Vec<Vec3> = points.iter().map(|&p| mesh.carry_point(p)).collect();
    check_points(mesh, &carried);
    for (&point, &local) in points.iter().zip(&carried) {
        let closest = mesh.closest_point(point, &Default::default());
        let expected = mesh.closest_point(local, &Default::default());
        assert_eq!(
            closest.map(|c| c.triangle),
            expected.map(|c| c.triangle),
            "{point}"
        );
        if let Some(closest) = closest {
            assert_eq!(closest.distance, closest.point.distance(point), "{point}");
        }
        assert_eq!(mesh.contains(point), mesh.contains(local), "{point}");
        let signed = mesh.signed_distance(point);
        assert_eq!(signed.is_some(), expected.is_some(), "{point}");
    }
}

/// [`cube`] made from `f64` positions at a UTM position (500 km east, 5000 km north): what
/// the command's ray lines are asked about in `f64` world coordinates.
pub fn far_cube() -> &'static Mesh {
    static FAR_CUBE: OnceLock<Mesh> = OnceLock::new();
    FAR_CUBE.get_or_init(|| {
        let cube = shapes_cube(1.0, 1);
        let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
        let positions: Vec<[f64; 3]> = cube
            .positions()
            .iter()
            .map(|p| (p.as_dvec3() + offset).to_array())
            .collect();
        Mesh::from_world_triangles(&positions, cube.indices()).expect("a cube")
    })
}

/// Asks `mesh` about each point (closest point, inside, winding number, signed distance)
/// and compares the distance with brute force.
///
/// # Panics
/// When the closest point's distance differs from brute force.
pub fn check_points(mesh: &Mesh, points: &[Vec3]) {
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    for &point in points {
        let closest = mesh.closest_point(point, &Default::default());
        let distance = closest.map(|c| c.distance.to_bits());
        // A point that is not finite has no closest point.
        let expected = point
            .is_finite()
            .then(|| brute_force_distance(&triangles, point))
            .flatten()
            .map(f32::to_bits);
        assert_eq!(distance, expected, "closest point to {point}");
        let _ = mesh.contains(point);
        let _ = mesh.winding_number(point);
        let _ = mesh.signed_distance(point);
    }
}

/// A closed cube, `[-1, 1]^3` split once (48 triangles), built once: what the command's
/// input lines are asked about.
pub fn cube() -> &'static Mesh {
    static CUBE: OnceLock<Mesh> = OnceLock::new();
    CUBE.get_or_init(|| Mesh::from_tri_mesh(shapes_cube(1.0, 1), &BuildOptions::default()))
}

/// A triangle's box as the hierarchy holds it: empty for a degenerate triangle.
fn box_of(triangle: &Triangle) -> Aabb {
    if triangle.is_degenerate() {
        Aabb::EMPTY
    } else {
        triangle.bounds()
    }
}

/// Rays along each axis through the centre of the bounds, and rays at the first vertices
/// (which lie on edges and corners, where ties are decided) from an oblique direction.
fn rays(mesh: &Mesh) -> Vec<Ray> {
    let bounds = mesh.bounds();
    let centre = bounds.centroid();
    let reach = bounds.extent().max_element() + 1.0;
    let axes = [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::NEG_X,
        Vec3::NEG_Y,
        Vec3::NEG_Z,
    ];
    let mut rays: Vec<Ray> = axes
        .into_iter()
        .map(|dir| Ray::new(centre - dir * reach, dir))
        .collect();
    let oblique = Vec3::new(0.3, -0.8, 0.52);
    for &vertex in mesh.tri_mesh().positions().iter().take(4) {
        rays.push(Ray::new(vertex - oblique * reach, oblique));
    }
    rays
}

/// The centre of the bounds, a corner outside them and the first vertex.
fn points(mesh: &Mesh) -> Vec<Vec3> {
    let bounds = mesh.bounds();
    let mut points = vec![bounds.centroid(), bounds.max + bounds.extent()];
    points.extend(mesh.tri_mesh().positions().first());
    points
}
