//! Point queries (`PointQueries`) at every level against brute force: closedness, inside and
//! outside, winding numbers, signed distances, the features of closest points, batches.
//!
//! `contains` on a closed mesh counts the crossings of the ray from the point along +x
//! (`CONTAINS_RAY_DIRECTION`); the points here are chosen so that many of those rays run
//! exactly through vertices and edges: a grid at the integer coordinates of the cube's
//! corners and edges, and points straight behind (in -x) every vertex and edge midpoint of
//! each closed mesh. The reference is the brute-force `f64` winding number over every
//! triangle, rounded: 1 inside, 0 outside.

use std::sync::Arc;

use meshcast::glam::{Affine3A, DAffine3, EulerRot, Mat3, Quat, Vec3};
use meshcast::{
    Feature, Instance, Mesh, MeshFiles, PointQueries, QueryOptions, Ray, RayQueries, Scene,
    TriMesh, TriMeshFiles, Triangle, ALL_LAYERS, CONTAINS_RAY_DIRECTION,
};
use meshcast_testkit::{
    all_assets, asset, brute_force_closest, brute_force_distance, brute_force_winding_number, cube,
    edge_closeness, icosphere, random_point_in, rng, torus, transformed, world_triangles,
};
use rand::Rng;

/// The largest error of the accelerated winding number against the exact sum that the docs
/// promise.
const WINDING_ERROR: f64 = 1e-3;

/// The mesh's triangles.
fn triangles(mesh: &Mesh) -> Vec<Triangle> {
    mesh.tri_mesh().triangles().collect()
}

/// The cube from -2 to 2, each face cut into 32 triangles: corners and edges at integers.
fn integer_cube() -> Mesh {
    Mesh::from_tri_mesh(cube(2.0, 2), &Default::default())
}

/// Closed meshes made in code and from the assets, with a name.
fn closed_meshes() -> Vec<(&'static str, Mesh)> {
    let askew = Affine3A::from_quat(Quat::from_euler(EulerRot::XYZ, 0.3, -0.7, 1.1));
    let build = |mesh: TriMesh| Mesh::from_tri_mesh(mesh, &Default::default());
    vec![
        ("cube", integer_cube()),
        ("askew cube", build(transformed(&cube(2.0, 2), askew))),
        ("icosphere", build(icosphere(3))),
        ("torus", build(torus(2.0, 0.5, 32, 12))),
        ("cow", Mesh::from_obj(asset("cow.obj")).expect("cow loads")),
        (
            "spot",
            Mesh::from_obj(asset("spot.obj")).expect("spot loads"),
        ),
    ]
}

/// Points whose +x rays run exactly through a vertex or an edge midpoint of `mesh` (taken
/// from up to `samples` vertices and edges): the feature moved back along -x, so its `y`
/// and `z` are the ray's, by one, a quarter and twice the mesh's size.
fn points_behind_features(mesh: &Mesh, samples: usize) -> Vec<Vec3> {
    let tri_mesh = mesh.tri_mesh();
    let positions = tri_mesh.positions();
    let mut features: Vec<Vec3> = positions.to_vec();
    features.extend(tri_mesh.indices().iter().flat_map(|&[a, b, c]| {
        [(a, b), (b, c), (c, a)].map(|(p, q)| (positions[p as usize] + positions[q as usize]) * 0.5)
    }));
    let step = (features.len() / samples).max(1);
    let size = mesh.bounds().extent().max_element();
    features
        .iter()
        .step_by(step)
        .flat_map(|&f| [1e-3, 0.25, 2.0].map(|d| f - CONTAINS_RAY_DIRECTION * (d * size)))
        .collect()
}

/// The brute-force answer to "inside?" from the winding number `w`: `None` on the surface
/// (`w` not within `1e-6` of an integer, for closed meshes).
fn closed_inside(w: f64) -> Option<bool> {
    let rounded = w.round();
    ((w - rounded).abs() < 1e-6).then_some(rounded as i64 % 2 != 0)
}

/// The brute-force answer for a mesh that is not closed: `w >= 0.5`, `None` within the
/// documented error of ½.
fn open_inside(w: f64) -> Option<bool> {
    ((w - 0.5).abs() > WINDING_ERROR).then_some(w >= 0.5)
}

#[test]
fn closedness_of_the_shapes_and_the_assets() {
    for (name, mesh) in closed_meshes() {
        assert!(mesh.is_closed(), "{name}");
    }
    let closed: Vec<String> = all_assets()
        .iter()
        .filter(|path| TriMesh::from_obj(path).expect("assets load").is_closed())
        .map(|path| {
            path.file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    // The bunny has holes at its base, the ogre, the teapot, suzanne and others have
    // borders; the beast has two edges of four triangles.
    assert_eq!(
        closed,
        [
            "cheburashka",
            "cow",
            "fandisk",
            "homer",
            "nefertiti",
            "rocker-arm",
            "spot"
        ]
    );
    // A missing or a turned triangle opens a closed mesh.
    let sphere = icosphere(1);
    let mut fewer = sphere.indices().to_vec();
    fewer.pop();
    let mut turned = sphere.indices().to_vec();
    turned[3].swap(0, 1);
    for indices in [fewer, turned] {
        let mesh = TriMesh::new(sphere.positions().to_vec(), indices).expect("valid");
        assert!(!mesh.is_closed());
    }
}

#[test]
fn contains_on_closed_meshes_is_the_brute_force_winding_number() {
    for (name, mesh) in closed_meshes() {
        let mut points = points_behind_features(&mesh, 400);
        let bounds = mesh.bounds();
        let grid = 9;
        for i in 0..grid * grid * grid {
            let f = Vec3::new(
                (i % grid) as f32,
                (i / grid % grid) as f32,
                (i / grid / grid) as f32,
            ) / (grid - 1) as f32;
            points.push(bounds.min - bounds.extent() * 0.1 + bounds.extent() * 1.2 * f);
        }
        if name == "cube" {
            // Every half-integer point from -3 to 3: the rays at integer y and z run along
            // the cube's faces' edges and through its vertices.
            for i in 0..13 * 13 * 13 {
                let c = Vec3::new((i % 13) as f32, (i / 13 % 13) as f32, (i / 169) as f32);
                points.push(c * 0.5 - Vec3::splat(3.0));
            }
        }
        let all = triangles(&mesh);
        let size = bounds.extent().max_element();
        let (mut inside, mut outside, mut through_edges) = (0, 0, 0);
        for p in points {
            // A point on the surface (its winding number is then ½, or on an edge anything)
            // may go either way; the nearest point of a face is found with rounding.
            if brute_force_distance(&all, p).is_some_and(|d| d < 1e-6 * size) {
                continue;
            }
            let Some(expected) = closed_inside(brute_force_winding_number(&all, p)) else {
                continue;
            };
            assert_eq!(mesh.contains(p), expected, "{name}: {p}");
            if expected {
                inside += 1;
            } else {
                outside += 1;
            }
            // Rays that cross exactly at an edge or a vertex (a barycentric weight of 0).
            let ray = Ray::new(p, CONTAINS_RAY_DIRECTION);
            if mesh
                .cast_all(&ray)
                .iter()
                .any(|hit| edge_closeness(hit) == 0.0)
            {
                through_edges += 1;
            }
        }
        assert!(
            inside > 50 && outside > 50,
            "{name}: {inside} in, {outside} out"
        );
        assert!(
            through_edges > 100,
            "{name}: {through_edges} rays through edges"
        );
    }
}

/// Random points in a box twice the mesh's and near its surface (within 2% of its size).
fn points_around(mesh: &Mesh, count: usize, seed: u64) -> Vec<Vec3> {
    let mut rng = rng(seed);
    let bounds = mesh.bounds();
    let around = meshcast::Aabb::new(
        bounds.min - bounds.extent() * 0.5,
        bounds.max + bounds.extent() * 0.5,
    );
    let all = triangles(mesh);
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                return random_point_in(&mut rng, around);
            }
            let t = all[rng.gen_range(0..all.len())];
            let (u, v): (f32, f32) = (rng.gen(), rng.gen());
            let (u, v) = if u + v > 1.0 {
                (1.0 - u, 1.0 - v)
            } else {
                (u, v)
            };
            let on = t.v0 + (t.v1 - t.v0) * u + (t.v2 - t.v0) * v;
            let off = rng.gen_range(-0.02..0.02) * bounds.extent().max_element();
            on + t.normal().normalize_or_zero() * off
        })
        .collect()
}

#[test]
fn winding_numbers_are_within_the_documented_error_and_decide_open_meshes() {
    for (name, closed) in [("stanford-bunny.obj", false), ("cow.obj", true)] {
        let mesh = Mesh::from_obj(asset(name)).expect("asset loads");
        assert_eq!(mesh.is_closed(), closed, "{name}");
        let all = triangles(&mesh);
        let (mut inside, mut outside, mut worst) = (0, 0, 0.0f64);
        for p in points_around(&mesh, 500, 11) {
            let exact = brute_force_winding_number(&all, p);
            let fast = f64::from(mesh.winding_number(p));
            worst = worst.max((fast - exact).abs());
            assert!(
                (fast - exact).abs() < WINDING_ERROR,
                "{name}: {p}: {fast} vs {exact}"
            );
            let expected = if closed {
                closed_inside(exact)
            } else {
                open_inside(exact)
            };
            if let Some(expected) = expected {
                assert_eq!(mesh.contains(p), expected, "{name}: {p}: {exact}");
                if expected {
                    inside += 1;
                } else {
                    outside += 1;
                }
            }
        }
        assert!(
            inside > 50 && outside > 50,
            "{name}: {inside} in, {outside} out"
        );
        println!("{name}: largest winding number error {worst:.2e}");
    }
    // Far away, nothing; a point that is not finite, nowhere.
    let cow = Mesh::from_obj(asset("cow.obj")).expect("cow loads");
    assert!(cow.winding_number(Vec3::splat(1e4)).abs() < 1e-6);
    assert!(cow.winding_number(Vec3::NAN).is_nan());
    assert!(!cow.contains(Vec3::new(f32::INFINITY, 0.0, 0.0)));
    let empty = Mesh::from_triangles(&[], &[]).expect("empty");
    assert_eq!(empty.winding_number(Vec3::ZERO), 0.0);
    assert!(!empty.contains(Vec3::ZERO));
}

#[test]
fn signed_distances_are_brute_force_distances_negative_inside() {
    let mut meshes = closed_meshes();
    meshes.truncate(4);
    meshes.push((
        "bunny",
        Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads"),
    ));
    for (name, mesh) in meshes {
        let all = triangles(&mesh);
        let mut signs = [0, 0];
        for p in points_around(&mesh, 300, 5) {
            let exact = brute_force_winding_number(&all, p);
            let distance = brute_force_distance(&all, p).expect("a triangle");
            let signed = mesh.signed_distance(p).expect("a surface");
            assert_eq!(signed.abs().to_bits(), distance.to_bits(), "{name}: {p}");
            let inside = if mesh.is_closed() {
                closed_inside(exact)
            } else {
                open_inside(exact)
            };
            if let Some(inside) = inside.filter(|_| distance > 0.0) {
                assert_eq!(signed < 0.0, inside, "{name}: {p}: {signed} at {exact}");
                signs[usize::from(inside)] += 1;
            }
        }
        assert!(signs[0] > 20 && signs[1] > 20, "{name}: {signs:?}");
    }
    let empty = Mesh::from_triangles(&[], &[]).expect("empty");
    assert_eq!(empty.signed_distance(Vec3::ZERO), None);
    assert_eq!(integer_cube().signed_distance(Vec3::NAN), None);
    assert_eq!(integer_cube().signed_distance(Vec3::ZERO), Some(-2.0));
    assert_eq!(
        integer_cube().signed_distance(Vec3::new(0.0, 0.0, 7.0)),
        Some(5.0)
    );
}

#[test]
fn closest_points_name_the_vertex_edge_or_face_they_land_on() {
    let sphere = icosphere(2);
    let mesh = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    let scene = Scene::from_instances([Instance::new(
        Arc::new(mesh.clone()),
        Affine3A::from_rotation_z(0.4) * Affine3A::from_translation(Vec3::X * 3.0),
    )
    .expect("invertible")]);
    let to_world = |p: Vec3| {
        scene
            .instances()
            .next()
            .expect("one")
            .1
            .transform()
            .transform_point3(p)
    };
    let options = QueryOptions::new();
    let positions = sphere.positions();
    // Just outside each vertex, in line with the centre: the vertex itself.
    for (i, &v) in positions.iter().enumerate() {
        let closest = mesh.closest_point(v * 1.05, &options).expect("near");
        assert_eq!(
            (closest.feature, closest.point),
            (Feature::Vertex(i as u32), v)
        );
        let world = scene
            .closest_point(to_world(v * 1.05), &options)
            .expect("near");
        assert_eq!(world.closest.feature, Feature::Vertex(i as u32));
    }
    for (t, &[a, b, c]) in sphere.indices().iter().enumerate() {
        let [pa, pb, pc] = [a, b, c].map(|i| positions[i as usize]);
        // Just outside the middle of each edge: that edge, in the order of one of its
        // triangles.
        for (p, q) in [(a, b), (b, c), (c, a)] {
            let middle = (positions[p as usize] + positions[q as usize]) * 0.5;
            let closest = mesh.closest_point(middle * 1.02, &options).expect("near");
            assert!(
                matches!(closest.feature, Feature::Edge(x, y) if (x, y) == (p, q) || (x, y) == (q, p)),
                "edge {p} {q}: {closest:?}"
            );
            let world = scene
                .closest_point(to_world(middle * 1.02), &options)
                .expect("near");
            assert!(
                matches!(world.closest.feature, Feature::Edge(..)),
                "{world:?}"
            );
        }
        // Above the middle of the face: the face.
        let centre = (pa + pb + pc) / 3.0;
        let above = centre + (pb - pa).cross(pc - pa).normalize() * 0.01;
        let closest = mesh.closest_point(above, &options).expect("near");
        assert_eq!(
            (closest.triangle, closest.feature),
            (t as u32, Feature::Face)
        );
    }
    // The cube's corner, from beyond it along the diagonal.
    let cube = integer_cube();
    let corner = cube
        .tri_mesh()
        .positions()
        .iter()
        .position(|&p| p == Vec3::splat(2.0))
        .expect("the corner");
    let closest = cube
        .closest_point(Vec3::splat(3.0), &options)
        .expect("near");
    assert_eq!(closest.feature, Feature::Vertex(corner as u32));
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Every answer of a level's point queries for `points`, as bits, single calls or batches.
fn answers<L: PointQueries>(level: &L, points: &[Vec3], batch: bool) -> Vec<String>
where
    L::Closest: std::fmt::Debug,
{
    let options = QueryOptions::new();
    let bits = |x: Option<f32>| x.map(f32::to_bits);
    if batch {
        let closest = level.closest_point_batch(points, &options);
        let contains = level.contains_batch(points);
        let winding = level.winding_number_batch(points);
        let signed = level.signed_distance_batch(points);
        (0..points.len())
            .map(|i| {
                format!(
                    "{:?} {} {:x} {:?}",
                    closest[i],
                    contains[i],
                    winding[i].to_bits(),
                    bits(signed[i])
                )
            })
            .collect()
    } else {
        points
            .iter()
            .map(|&p| {
                format!(
                    "{:?} {} {:x} {:?}",
                    level.closest_point(p, &options),
                    level.contains(p),
                    level.winding_number(p).to_bits(),
                    bits(level.signed_distance(p))
                )
            })
            .collect()
    }
}

#[test]
fn batches_answer_as_single_calls_on_one_and_two_threads() {
    let cow = Arc::new(Mesh::from_obj(asset("cow.obj")).expect("cow loads"));
    let bunny = Arc::new(Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads"));
    let mirror = Affine3A::from_scale(Vec3::new(-1.0, 2.0, 1.0));
    let instance = Instance::new(cow.clone(), mirror).expect("invertible");
    let scene = Scene::from_instances([
        instance.clone(),
        Instance::new(bunny.clone(), Affine3A::from_scale(Vec3::splat(20.0))).expect("ok"),
    ]);
    let mut points = points_around(&cow, 600, 3);
    points.extend([Vec3::NAN, Vec3::splat(f32::INFINITY)]);
    let check = |what: &str, single: Vec<String>, batch: &(dyn Fn() -> Vec<String> + Sync)| {
        for threads in [1, 2] {
            assert_eq!(
                pool(threads).install(batch),
                single,
                "{what}, {threads} threads"
            );
        }
    };
    check("cow", answers(&*cow, &points, false), &|| {
        answers(&*cow, &points, true)
    });
    let bunny_points = points_around(&bunny, 600, 4);
    check("bunny", answers(&*bunny, &bunny_points, false), &|| {
        answers(&*bunny, &bunny_points, true)
    });
    let world: Vec<Vec3> = points.iter().map(|&p| mirror.transform_point3(p)).collect();
    check("instance", answers(&instance, &world, false), &|| {
        answers(&instance, &world, true)
    });
    check("scene", answers(&scene, &world, false), &|| {
        answers(&scene, &world, true)
    });
}

/// An instance's brute-force winding number at a world point: the exact sum over its mesh at
/// the point carried as the instance carries it (in `f64`), turned over by a mirror.
fn instance_winding(instance: &Instance, point: Vec3) -> f64 {
    let transform = instance.transform();
    let to_local = DAffine3::from_mat3_translation(
        Mat3::from(transform.matrix3).as_dmat3(),
        transform.translation.as_dvec3(),
    )
    .inverse();
    let local = to_local.transform_point3(point.as_dvec3());
    let all = triangles(instance.mesh());
    // The exact sum at the `f32` point `contains` asks about (the same point up to rounding).
    let w = brute_force_winding_number(&all, local.as_vec3());
    if instance.is_mirrored() {
        -w
    } else {
        w
    }
}

#[test]
fn scenes_and_instances_answer_as_brute_force_through_transforms_and_mirrors() {
    let build = |mesh: TriMesh| Arc::new(Mesh::from_tri_mesh(mesh, &Default::default()));
    let cow = Arc::new(Mesh::from_obj(asset("cow.obj")).expect("cow loads"));
    let suzanne = Arc::new(Mesh::from_obj(asset("suzanne.obj")).expect("suzanne loads"));
    assert!(!suzanne.is_closed());
    let instances = [
        // Mirrored in x and moved: the cube's winding number is -1 inside.
        (
            build(cube(2.0, 2)),
            Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0))
                * Affine3A::from_translation(Vec3::new(3.0, 0.0, 0.0)),
        ),
        (
            build(torus(2.0, 0.5, 32, 12)),
            Affine3A::from_scale_rotation_translation(
                Vec3::new(1.5, 0.7, 1.0),
                Quat::from_rotation_x(1.0),
                Vec3::new(1.0, 4.0, 0.0),
            ),
        ),
        (
            cow,
            Affine3A::from_scale_rotation_translation(
                Vec3::new(0.5, -0.5, 0.5),
                Quat::from_rotation_y(2.0),
                Vec3::new(-2.0, -3.0, 1.0),
            ),
        ),
        (
            suzanne,
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(1.5),
                Quat::from_rotation_z(0.5),
                Vec3::new(4.0, -2.0, 2.0),
            ),
        ),
    ];
    let scene = Scene::from_instances(
        instances
            .iter()
            .map(|(mesh, transform)| Instance::new(mesh.clone(), *transform).expect("invertible")),
    );
    assert!(scene.instances().any(|(_, i)| i.is_mirrored()));
    let mirrored_cube = scene.instances().next().expect("the cube").1;
    let inside_cube = mirrored_cube
        .transform()
        .transform_point3(Vec3::new(0.5, 0.25, 0.5));
    assert!((mirrored_cube.winding_number(inside_cube) + 1.0).abs() < 1e-6);
    assert!(scene.contains(inside_cube) && mirrored_cube.contains(inside_cube));

    let world = world_triangles(&scene, ALL_LAYERS, &|_, _| true);
    let mut rng = rng(21);
    let bounds = scene.bounds();
    let (mut inside, mut outside) = (0, 0);
    for _ in 0..400 {
        let p = random_point_in(&mut rng, bounds);
        let windings: Vec<f64> = scene
            .instances()
            .map(|(_, instance)| instance_winding(instance, p))
            .collect();
        // Per instance, inside by its own rule; unknown near a surface.
        let decided: Vec<Option<bool>> = scene
            .instances()
            .zip(&windings)
            .map(|((_, instance), &w)| {
                let w = if instance.is_mirrored() { -w } else { w };
                if instance.mesh().is_closed() {
                    closed_inside(w)
                } else {
                    open_inside(w)
                }
            })
            .collect();
        for (((_, instance), &w), known) in scene.instances().zip(&windings).zip(&decided) {
            let fast = f64::from(instance.winding_number(p));
            assert!((fast - w).abs() < WINDING_ERROR, "{p}: {fast} vs {w}");
            if let Some(known) = known {
                assert_eq!(instance.contains(p), *known, "{p}");
            }
        }
        let total: f64 = windings.iter().sum();
        let fast = f64::from(scene.winding_number(p));
        assert!(
            (fast - total).abs() < 2.0 * WINDING_ERROR,
            "{p}: {fast} vs {total}"
        );
        if decided.iter().all(Option::is_some) {
            let expected = decided.contains(&Some(true));
            assert_eq!(scene.contains(p), expected, "{p}");
            let (_, _, nearest) = brute_force_closest(&world, p, f32::INFINITY).expect("near");
            let distance = meshcast::primitives::distance_squared(nearest, p).sqrt();
            let signed = scene.signed_distance(p).expect("a surface");
            assert_eq!(signed.abs().to_bits(), distance.to_bits(), "{p}");
            assert_eq!(signed < 0.0, expected, "{p}: {signed}");
            if expected {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    assert!(inside > 20 && outside > 20, "{inside} in, {outside} out");
    assert_eq!(Scene::new().signed_distance(Vec3::ZERO), None);
    assert_eq!(Scene::new().winding_number(Vec3::ZERO), 0.0);
}
