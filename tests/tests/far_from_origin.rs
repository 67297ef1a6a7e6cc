//! Far from the origin: a mesh made from `f64` positions and asked with `f64` rays and points
//! answers, at UTM and Earth-centred offsets, what the same mesh answers at the origin, up
//! to the rounding of its coordinates at its own scale: no hit or miss and no triangle
//! differs except for rays within a relative `1e-6` of the mesh's size from an edge, and `t`
//! and distances agree within `1e-6` of its size.

use std::sync::Arc;

use meshcast::glam::{Affine3A, DAffine3, DVec3, Vec2, Vec3};
use meshcast::{
    Aabb, DRay, Format, Instance, Mesh, PointQueries, QueryOptions, Ray, RayQueries, Scene,
    TriMesh, TriMeshFiles,
};
use meshcast_testkit::{icosphere, rng};
use rand::Rng;

/// The offsets of the table, and one at ten thousand kilometres on every axis.
const OFFSETS: [[f64; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [1000.0, 0.0, 0.0],
    [500_123.37, 5_000_456.71, 100.0],
    [6_378_137.0, 0.0, 0.0],
    [1e7, 1e7, 1e7],
];

/// The relative tolerance of the targets, times the sphere's size (its diameter, 2).
const TOLERANCE: f64 = 1e-6 * 2.0;

/// The radius-1 sphere's positions moved by `offset`, in `f64`.
fn moved(sphere: &TriMesh, offset: DVec3) -> Vec<[f64; 3]> {
    sphere
        .positions()
        .iter()
        .map(|p| (p.as_dvec3() + offset).to_array())
        .collect()
}

/// The distance in the plane z = 0 from `p` to the nearest edge of triangle `triangle`
/// (every ray here runs along z).
fn distance_to_edges(sphere: &TriMesh, triangle: u32, p: Vec2) -> f32 {
    let corners = sphere
        .triangle(triangle as usize)
        .expect("a triangle")
        .vertices();
    (0..3)
        .map(|i| {
            let (a, b) = (corners[i].truncate(), corners[(i + 1) % 3].truncate());
            let along = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + (b - a) * along)
        })
        .fold(f32::INFINITY, f32::min)
}

/// 2,000 rays along -z over the sphere's disc and a little beyond, starting at `height`.
fn parallel_rays(height: f32) -> Vec<Ray> {
    let mut rng = rng(57);
    (0..2000)
        .map(|_| {
            let (x, y) = (rng.gen_range(-1.1f32..1.1), rng.gen_range(-1.1f32..1.1));
            Ray::new(Vec3::new(x, y, height), Vec3::NEG_Z)
        })
        .collect()
}

#[test]
fn far_meshes_answer_as_the_same_mesh_at_the_origin() {
    let sphere = icosphere(3);
    let at_origin = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    // From 5 m away, as the table, and from 10 000 km away (the origin moved along
    // the ray before rounding): the same `t` less the 10 000 km.
    for (height, start) in [(5.0f32, 5.0f64), (5.0, 1e7)] {
        let rays = parallel_rays(height);
        let expected = at_origin.cast_batch(&rays);
        for offset in OFFSETS.map(DVec3::from) {
            let far = Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices())
                .expect("a far mesh");
            let world_rays: Vec<DRay> = rays
                .iter()
                .map(|ray| {
                    let origin = ray.origin.as_dvec3() + offset;
                    DRay::new(
                        DVec3::new(origin.x, origin.y, offset.z + start),
                        DVec3::NEG_Z,
                    )
                })
                .collect();
            let answers = far.cast_batch(&world_rays);
            let mut differing = 0;
            for ((ray, near), world) in rays.iter().zip(&expected).zip(&answers) {
                let near_edge = |triangle: u32| {
                    distance_to_edges(&sphere, triangle, ray.origin.truncate()) as f64 <= TOLERANCE
                };
                match (near, world) {
                    (Some(near), Some(world)) => {
                        let t = world.t - (start - f64::from(height));
                        assert!(
                            (t - f64::from(near.t)).abs() <= TOLERANCE,
                            "offset {offset}, start {start}: t {t} against {}",
                            near.t
                        );
                        if near.triangle != world.triangle {
                            differing += 1;
                            assert!(near_edge(near.triangle) && near_edge(world.triangle));
                        }
                    }
                    (Some(near), None) => {
                        differing += 1;
                        assert!(near_edge(near.triangle), "offset {offset}: {ray:?} lost");
                    }
                    (None, Some(world)) => {
                        differing += 1;
                        assert!(near_edge(world.triangle), "offset {offset}: {ray:?} gained");
                    }
                    _ => {}
                }
            }
            // Rounding at the sphere's scale moves few rays, if any, across an edge.
            assert!(differing <= 20, "offset {offset}: {differing} rays differ");
            let hits = answers.iter().flatten().count();
            assert!(hits > 1000, "offset {offset}: {hits} hits");
        }
    }
}

#[test]
fn far_meshes_keep_inside_outside_and_signed_distance() {
    let sphere = icosphere(3);
    let at_origin = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    assert!(at_origin.is_closed());
    let mut rng = rng(5757);
    let points: Vec<Vec3> = (0..500)
        .map(|_| Vec3::from(rng.gen::<[f32; 3]>()) * 3.0 - 1.5)
        .collect();
    for offset in OFFSETS.map(DVec3::from) {
        let far = Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices())
            .expect("a far mesh");
        assert!(far.is_closed());
        for &p in &points {
            let world = p.as_dvec3() + offset;
            let near_distance = f64::from(at_origin.signed_distance(p).expect("a distance"));
            let far_distance = far.signed_distance(world).expect("a distance");
            assert!(
                (near_distance - far_distance).abs() <= TOLERANCE,
                "offset {offset}, point {p}: {far_distance} against {near_distance}"
            );
            if near_distance.abs() > TOLERANCE {
                assert_eq!(far.contains(world), at_origin.contains(p), "{offset} {p}");
                let winding = far.winding_number(world);
                assert!((winding - f64::from(at_origin.winding_number(p))).abs() < 1e-3);
            }
            let closest = far
                .closest_point(world, &QueryOptions::new())
                .expect("a closest point");
            let near = at_origin
                .closest_point(p, &QueryOptions::new())
                .expect("a closest point");
            assert!((closest.point - offset).distance(near.point.as_dvec3()) <= TOLERANCE);
        }
    }
}

#[test]
fn a_mesh_near_the_origin_is_stored_as_its_f32_positions() {
    let sphere = icosphere(2);
    let positions: Vec<[f32; 3]> = sphere.positions().iter().map(|p| p.to_array()).collect();
    let from_f32 = Mesh::from_triangles(&positions, sphere.indices()).expect("a mesh");
    let from_f64 = Mesh::from_world_triangles(
        &positions
            .iter()
            .map(|p| p.map(f64::from))
            .collect::<Vec<_>>(),
        sphere.indices(),
    )
    .expect("a mesh");
    assert_eq!(from_f64.origin(), DVec3::ZERO);
    assert_eq!(
        from_f64.tri_mesh().positions(),
        from_f32.tri_mesh().positions()
    );
    // And an f64 ray that is an f32 ray starting near the mesh (within two radii of its
    // box, so that it is not moved along itself) gets the f32 ray's answers, bit for bit.
    for ray in parallel_rays(1.5) {
        let hit = from_f32.cast(&ray);
        let world = from_f64.cast(&DRay::from(ray));
        assert_eq!(
            hit.map(|h| (f64::from(h.t), h.triangle)),
            world.map(|h| (h.t, h.triangle))
        );
        assert_eq!(from_f32.count(&ray), from_f64.count(&DRay::from(ray)));
    }
}

#[test]
fn a_far_mesh_keeps_its_origin_when_deformed() {
    let sphere = icosphere(1);
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    let mut far =
        Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices()).expect("a far mesh");
    let origin = far.origin();
    assert!(origin.distance(offset) < 1e-6, "{origin}");
    // Lifted by 2 m: a ray from above hits 2 m sooner.
    let lifted = moved(&sphere, offset + DVec3::Z * 2.0);
    let down = DRay::new(offset + DVec3::new(0.01, 0.02, 10.0), DVec3::NEG_Z);
    let before = far.cast(&down).expect("a hit").t;
    far.set_world_positions(&lifted).expect("deformed");
    assert_eq!(far.origin(), origin);
    let after = far.cast(&down).expect("a hit").t;
    assert!((before - after - 2.0).abs() < TOLERANCE, "{before} {after}");
    assert!(far.set_world_positions(&lifted[1..]).is_err());
    assert!(Mesh::from_world_triangles(&[[f64::NAN; 3]; 3], &[[0, 1, 2]]).is_err());
    let tri_mesh = far.tri_mesh().clone();
    assert_eq!(tri_mesh.origin(), origin);
    assert!(tri_mesh.clone().with_origin(DVec3::INFINITY).is_err());
    assert_eq!(
        tri_mesh.with_origin(DVec3::ONE).expect("moved").origin(),
        DVec3::ONE
    );
}

#[test]
fn a_distance_limit_is_measured_along_the_world_ray_from_far_away() {
    let sphere = icosphere(1);
    let offset = DVec3::new(6_378_137.0, 0.0, 0.0);
    let far =
        Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices()).expect("a far mesh");
    // From ten thousand kilometres above the top of the sphere: the hit is 1e7 m away, and
    // the ray is moved along itself before it is carried into the mesh's frame.
    let height = 1e7;
    let down = DRay::new(offset + DVec3::new(0.01, 0.02, 1.0 + height), DVec3::NEG_Z);
    let hit = far.cast(&down).expect("a hit");
    let near = DRay::new(offset + DVec3::new(0.01, 0.02, 5.0), DVec3::NEG_Z);
    let surface = far.cast(&near).expect("a hit").t - 4.0;
    assert!(
        (hit.t - height - surface).abs() < TOLERANCE,
        "{} {surface}",
        hit.t
    );
    let within = QueryOptions::new().with_max_distance((height + 1.0) as f32);
    let short = QueryOptions::new().with_max_distance(100.0);
    assert_eq!(
        far.cast_with(&down, &within).map(|h| h.triangle),
        Some(hit.triangle)
    );
    assert!(far.cast_with(&down, &short).is_none());
    // The limit is a distance: twice as long a direction meets the same hit at half the t.
    let doubled = DRay::new(down.origin, DVec3::NEG_Z * 2.0);
    let halved = far.cast_with(&doubled, &within).expect("a hit").t;
    assert!(
        (halved - (height + surface) / 2.0).abs() < TOLERANCE,
        "{halved}"
    );
    assert!(far.cast_with(&doubled, &short).is_none());
}

#[test]
fn degenerate_f64_rays_and_points_miss() {
    let sphere = icosphere(1);
    let offset = DVec3::new(6_378_137.0, 0.0, 0.0);
    let far =
        Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices()).expect("a far mesh");
    for ray in [
        DRay::new(DVec3::splat(f64::NAN), DVec3::X),
        DRay::new(offset + DVec3::Z * 5.0, DVec3::ZERO),
        DRay::new(
            offset + DVec3::Z * 5.0,
            DVec3::new(0.0, 0.0, f64::NEG_INFINITY),
        ),
        DRay::new(offset + DVec3::Z * 5.0, DVec3::NEG_Z).with_range(3.0, 2.0),
        DRay::new(DVec3::new(f64::INFINITY, 0.0, 0.0), DVec3::NEG_X),
    ] {
        assert_eq!(far.cast(&ray), None, "{ray:?}");
        assert!(!far.occluded(&ray));
        assert!(far.cast_all(&ray).is_empty());
        assert_eq!(far.cast_batch(&[ray]), [None]);
    }
    assert!(!far.contains(DVec3::NAN));
    assert!(far.winding_number(DVec3::INFINITY).is_nan());
    assert_eq!(far.signed_distance(DVec3::NAN), None);
    // Every crossing once, in world units: through the centre, two crossings about 2 m
    // apart (the faces lie inside the unit sphere).
    let through = DRay::new(offset + DVec3::new(0.0, 0.0, 5.0), DVec3::NEG_Z);
    let all = far.cast_all(&through);
    assert_eq!(all.len(), 2);
    assert_eq!(far.count(&through), 2);
    assert!((all[1].t - all[0].t - 2.0).abs() < 0.3, "{all:?}");
    assert!(far.occluded_batch(&[through]) == [true]);
}

#[test]
fn an_obj_file_far_from_the_origin_keeps_its_precision() {
    // The sphere written at the UTM offset with every digit of its f64 coordinates.
    let sphere = icosphere(2);
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    let mut text = String::new();
    for p in moved(&sphere, offset) {
        text += &format!("v {:?} {:?} {:?}\n", p[0], p[1], p[2]);
    }
    for [a, b, c] in sphere.indices() {
        text += &format!("f {} {} {}\n", a + 1, b + 1, c + 1);
    }
    let read = TriMesh::from_bytes(text.as_bytes(), Some(Format::Obj)).expect("an OBJ");
    let built = TriMesh::from_world_triangles(&moved(&sphere, offset), sphere.indices())
        .expect("a far mesh");
    assert_eq!(read.origin(), built.origin());
    // tobj numbers the vertices by first use: compare the triangles' corners.
    assert!(read.triangles().eq(built.triangles()));
    // And as an ASCII PLY file of doubles, whose vertices keep their order.
    let positions = moved(&sphere, offset);
    let mut ply = format!(
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty double x\nproperty double y\n\
         property double z\nelement face {}\nproperty list uchar int vertex_indices\n\
         end_header\n",
        positions.len(),
        sphere.triangle_count()
    );
    for p in &positions {
        ply += &format!("{:?} {:?} {:?}\n", p[0], p[1], p[2]);
    }
    for [a, b, c] in sphere.indices() {
        ply += &format!("3 {a} {b} {c}\n");
    }
    let from_ply = TriMesh::from_bytes(ply.as_bytes(), Some(Format::Ply)).expect("a PLY");
    assert_eq!(from_ply.origin(), built.origin());
    assert_eq!(from_ply.positions(), built.positions());
    let far = Mesh::from_tri_mesh(read, &Default::default());
    let down = DRay::new(offset + DVec3::new(0.1, 0.2, 5.0), DVec3::NEG_Z);
    let hit = far.cast(&down).expect("a hit");
    let near = Mesh::from_tri_mesh(sphere, &Default::default());
    let expected = near
        .cast(&Ray::new(Vec3::new(0.1, 0.2, 5.0), Vec3::NEG_Z))
        .expect("a hit");
    assert_eq!(hit.triangle, expected.triangle);
    assert!(
        (hit.t - f64::from(expected.t)).abs() < TOLERANCE,
        "{hit:?} {expected:?}"
    );
}

#[test]
fn instances_place_a_far_mesh_where_it_lies() {
    let sphere = icosphere(3);
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    let far = Arc::new(
        Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices()).expect("a far mesh"),
    );
    let near = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    // Placed where it lies: an f32 world ray finds it there, at f32's world precision.
    let in_place = Instance::new(Arc::clone(&far), Affine3A::IDENTITY).expect("placed");
    let down = (offset + DVec3::new(0.1, 0.2, 5.0)).as_vec3();
    let hit = in_place.cast(&Ray::new(down, Vec3::NEG_Z)).expect("a hit");
    assert!((hit.t - 4.0).abs() < 1.0, "{hit:?}");
    assert!(in_place
        .transform()
        .translation
        .as_dvec3()
        .abs_diff_eq(far.origin(), 1.0));
    // Brought back 3 km from the world's origin, each copy answers as the sphere at the
    // origin does, to f32's precision at 3 km, though the mesh lies 5000 km away.
    let placements = [DVec3::ZERO, DVec3::new(3000.0, 0.0, 0.0)];
    let scene = Scene::from_instances(placements.map(|at| {
        Instance::new(Arc::clone(&far), DAffine3::from_translation(at - offset)).expect("placed")
    }));
    for (i, at) in placements.iter().enumerate() {
        for ray in parallel_rays(5.0).iter().step_by(10) {
            let world = Ray::new(ray.origin + at.as_vec3(), ray.dir);
            let expected = near.cast(ray);
            let hit = scene.cast(&world);
            assert_eq!(expected.is_some(), hit.is_some(), "{ray:?}");
            if let (Some(expected), Some(hit)) = (expected, hit) {
                assert_eq!(hit.instance.index() as usize, i);
                assert!(
                    (hit.hit.t - expected.t).abs() < 1e-3,
                    "{hit:?} {expected:?}"
                );
            }
        }
    }
}

#[test]
fn far_meshes_see_and_lay_fields_as_at_the_origin() {
    let sphere = icosphere(3);
    let at_origin = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    let eyes = [
        Vec3::new(0.0, 0.0, 5.0),
        Vec3::new(3.0, -2.0, 0.5),
        Vec3::new(0.0, 1e4, 0.0),
    ];
    let seen = at_origin.visible_vertices(&eyes).expect("finite eyes");
    let seen_triangles = at_origin
        .visible_triangles(&eyes, 4.0)
        .expect("finite eyes");
    let count = seen.iter().filter(|&&s| s).count();
    assert!(count > 300 && count < seen.len(), "{count} seen");
    let bounds = Aabb::new(Vec3::splat(-1.5), Vec3::splat(1.5));
    let shape = [9, 8, 7];
    let distances = at_origin.signed_distance_grid(bounds, shape, None);
    let inside = at_origin.occupancy_grid(bounds, shape);
    let winding = at_origin.winding_number_grid(bounds, shape);
    for offset in OFFSETS.map(DVec3::from) {
        let far = Mesh::from_world_triangles(&moved(&sphere, offset), sphere.indices())
            .expect("a far mesh");
        let world_eyes = eyes.map(|eye| eye.as_dvec3() + offset);
        let far_seen = far.visible_vertices(&world_eyes).expect("finite eyes");
        let differing = seen.iter().zip(&far_seen).filter(|(a, b)| a != b).count();
        assert!(
            differing <= 2,
            "offset {offset}: {differing} vertices differ"
        );
        let far_triangles = far.visible_triangles(&world_eyes, 4.0).expect("finite");
        let differing = (seen_triangles.iter().zip(&far_triangles))
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            differing <= 2,
            "offset {offset}: {differing} triangles differ"
        );
        let world_box = [bounds.min, bounds.max].map(|corner| corner.as_dvec3() + offset);
        let far_distances = far.signed_distance_grid(world_box, shape, None);
        for (near, far) in distances.iter().zip(&far_distances) {
            assert!(
                (f64::from(*near) - f64::from(*far)).abs() <= TOLERANCE,
                "{offset}"
            );
        }
        assert_eq!(far.occupancy_grid(world_box, shape), inside, "{offset}");
        let far_winding = far.winding_number_grid(world_box, shape);
        for (near, far) in winding.iter().zip(&far_winding) {
            assert!((near - far).abs() < 1e-3, "{offset}");
        }
    }
    assert!(at_origin.visible_vertices(&[DVec3::NAN]).is_err());
}
