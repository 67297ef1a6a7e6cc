//! What viewpoints see, against brute force on the assets: `visible_vertices` (a ray per
//! vertex and eye, the rule checked in both its forms, by range and by filter),
//! `visible_vertices_in_view` and `visible_triangles_in_view` (a ray per pixel), the sampled
//! `visible_triangles`, and lasso selection on meshes and scenes; with adversarial eyes.

use glam::{Mat4, Vec2, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{LeafTest, Mesh, QueryOptions, SceneTriangle, MAX_SIDE_SAMPLES};
use meshcast_primitives::{Camera, ClipPlanes, DepthConvention, Polygon, Ray, Triangle, Viewport};
use meshcast_testkit::{
    asset, brute_force_cast, brute_force_scene_cast, brute_force_sight_blocked,
    brute_force_sight_blocked_filtered, random_scene, small_meshes, LeafReference,
};

const ASSETS: [&str; 4] = ["suzanne.obj", "cow.obj", "spot.obj", "stanford-bunny.obj"];

/// Vertices checked per asset, spread over the vertex order.
const VERTICES_CHECKED: usize = 700;

fn triangles(mesh: &Mesh) -> Vec<Triangle> {
    mesh.tri_mesh().triangles().collect()
}

/// Eyes around a mesh's box, one inside it and one far away.
fn eyes(mesh: &Mesh) -> Vec<Vec3> {
    let (centre, size) = (
        mesh.bounds().centroid(),
        mesh.bounds().extent().max_element(),
    );
    vec![
        centre + Vec3::new(2.0, 1.0, 1.5) * size,
        centre + Vec3::new(-1.5, 0.5, -2.0) * size,
        centre,
        centre + Vec3::new(0.3, 1e4, -0.2) * size,
    ]
}

/// Every vertex of a small mesh, else `VERTICES_CHECKED` of them at an even stride.
fn checked(count: usize) -> impl Iterator<Item = usize> {
    (0..count).step_by(count.div_ceil(VERTICES_CHECKED).max(1))
}

/// Asserts that `seen` answers brute force from `eye` at the checked vertices, by range and
/// by filter, and returns how many of them it sees and hides.
fn assert_vertices(mesh: &Mesh, name: &str, eye: Vec3, seen: &[bool]) -> (usize, usize) {
    let all = triangles(mesh);
    let positions = mesh.tri_mesh().positions();
    let (mut visible, mut hidden) = (0, 0);
    for v in checked(positions.len()) {
        let p = positions[v];
        let blocked = brute_force_sight_blocked(&all, p, eye);
        assert_eq!(seen[v], !blocked, "{name}: vertex {v} from {eye}");
        let filtered = brute_force_sight_blocked_filtered(&all, p, eye);
        assert_eq!(
            blocked, filtered,
            "{name}: the two rules differ at vertex {v} from {eye}"
        );
        if blocked {
            hidden += 1;
        } else {
            visible += 1;
        }
    }
    (visible, hidden)
}

#[test]
fn visible_vertices_equal_brute_force_on_the_assets() {
    for name in ASSETS {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let eyes = eyes(&mesh);
        let mut each = Vec::new();
        for (i, &eye) in eyes.iter().enumerate() {
            let seen = mesh.visible_vertices(&[eye]).expect("a finite eye");
            let (visible, hidden) = assert_vertices(&mesh, name, eye, &seen);
            if i < 2 {
                assert!(
                    visible > 0 && hidden > 0,
                    "{name} from {eye}: {visible} seen, {hidden} hidden"
                );
            }
            each.push(seen);
        }
        let together = mesh.visible_vertices(&eyes).expect("finite eyes");
        for (v, &seen) in together.iter().enumerate() {
            assert_eq!(
                seen,
                each.iter().any(|s| s[v]),
                "{name}: vertex {v} from every eye"
            );
        }
    }
}

#[test]
fn visible_vertices_on_adversarial_eyes() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    let positions = mesh.tri_mesh().positions();
    let [a, b, c] = mesh.tri_mesh().indices()[10].map(|i| positions[i as usize]);
    let at_vertex = positions[123];
    let adversarial = [
        // On a vertex: it sees that vertex.
        at_vertex,
        // On a face (its centroid), and in a face's plane outside it.
        (a + b + c) / 3.0,
        a + (b - a) * 3.0 - (c - a) * 2.0,
        // Far away, and at a corner of the box.
        Vec3::new(-3e7, 2e7, 1e7),
        mesh.bounds().max,
    ];
    for eye in adversarial {
        let seen = mesh.visible_vertices(&[eye]).expect("a finite eye");
        assert_vertices(&mesh, "cow", eye, &seen);
    }
    assert!(mesh.visible_vertices(&[at_vertex]).expect("finite")[123]);
    for bad in [Vec3::NAN, Vec3::new(0.0, f32::INFINITY, 0.0)] {
        assert!(mesh.visible_vertices(&[Vec3::ZERO, bad]).is_err());
        assert!(mesh.visible_triangles(&[bad], 1.0).is_err());
    }
    assert_eq!(
        mesh.visible_vertices::<Vec3>(&[]).expect("no eyes"),
        vec![false; positions.len()]
    );
}

#[test]
fn degenerate_triangles_hide_nothing() {
    // A floor, and over vertex 0 a needle (three collinear corners) and a triangle with two
    // corners at one point: both lie across the segment up from vertex 0.
    let positions = [
        [0.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [0.0, 4.0, 0.0],
        [-1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 1.0],
        [0.0, -1.0, 2.0],
        [0.0, 1.0, 2.0],
    ];
    let mesh = Mesh::from_triangles(&positions, &[[0, 1, 2], [3, 4, 5], [6, 7, 7]])
        .expect("degenerate triangles are kept and never hit");
    let seen = mesh
        .visible_vertices(&[Vec3::new(0.0, 0.0, 5.0)])
        .expect("finite");
    assert!(seen[0]);
    let sampled = mesh
        .visible_triangles(&[Vec3::new(0.0, 0.0, 5.0)], 10.0)
        .expect("finite");
    assert_eq!(sampled, [true, false, false]);
}

#[test]
fn the_transform_test_leaves_a_vertexs_triangles_out_by_its_filter() {
    let mesh = Mesh::from_obj(asset("suzanne.obj")).expect("the asset loads");
    let transform = mesh.clone().with_leaf_test(LeafTest::Transform);
    let all = triangles(&mesh);
    for eye in eyes(&mesh) {
        let seen = transform.visible_vertices(&[eye]).expect("finite");
        for (v, p) in mesh.tri_mesh().positions().iter().enumerate() {
            let others: Vec<Triangle> = all
                .iter()
                .filter(|t| ![t.v0, t.v1, t.v2].contains(p))
                .copied()
                .collect();
            let reference = LeafReference::new(LeafTest::Transform, &others);
            let ray = Ray::new(*p, eye - *p).with_range(0.0, 1.0);
            assert_eq!(
                seen[v],
                reference.cast(&ray).is_none(),
                "vertex {v} from {eye}"
            );
        }
    }
}

/// A perspective viewport framing `mesh` in each depth convention, and an orthographic one.
fn viewports(mesh: &Mesh, width: u32, height: u32) -> Vec<Viewport> {
    let camera = Camera::framing(mesh.bounds(), 40.0, width as f32 / height as f32);
    let distance = camera.eye.distance(camera.target);
    let mut all: Vec<Viewport> = [
        (DepthConvention::ZeroToOne, distance * 4.0),
        (DepthConvention::ReversedZ, f32::INFINITY),
        (DepthConvention::NegativeOneToOne, distance),
    ]
    .into_iter()
    .map(|(depth, far)| {
        let planes = ClipPlanes::new(distance * 0.05, far);
        camera
            .viewport(width, height, planes, depth)
            .expect("a valid camera")
    })
    .collect();
    let half = distance * 0.4;
    let aspect = width as f32 / height as f32;
    let projection = Mat4::orthographic_rh(
        -half * aspect,
        half * aspect,
        -half,
        half,
        0.0,
        distance * 4.0,
    );
    let ortho = Viewport::new(
        camera.view_matrix(),
        projection,
        DepthConvention::ZeroToOne,
        width,
        height,
    );
    all.push(ortho.expect("a valid orthographic viewport"));
    all
}

#[test]
fn visible_vertices_in_view_equal_brute_force() {
    for name in ["cow.obj", "stanford-bunny.obj"] {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let all = triangles(&mesh);
        let positions = mesh.tri_mesh().positions();
        for viewport in viewports(&mesh, 48, 36) {
            let seen = mesh.visible_vertices_in_view(&viewport);
            let (near, far) = viewport.depth().near_far();
            let (mut visible, mut hidden) = (0, 0);
            for v in checked(positions.len()) {
                let p = positions[v];
                let reference = viewport.project(p).is_some_and(|q| {
                    let in_image = q.x >= 0.0 && q.y >= 0.0 && q.x <= 48.0 && q.y <= 36.0;
                    let depth = f64::from(q.z);
                    let in_depth = depth >= near.min(far) && depth <= near.max(far);
                    let sight = viewport.ray_through(q.x, q.y);
                    in_image
                        && in_depth
                        && !brute_force_sight_blocked(&all, p, sight.at(sight.t_min))
                });
                assert_eq!(seen[v], reference, "{name}: vertex {v} in {viewport:?}");
                if reference {
                    visible += 1
                } else {
                    hidden += 1
                }
            }
            assert!(
                visible > 0 && hidden > 0,
                "{name}: {visible} seen, {hidden} not"
            );
        }
    }
}

/// Each triangle's visibility by brute force at every pixel of `viewport`.
fn seen_at_pixels(mesh: &Mesh, viewport: &Viewport) -> Vec<bool> {
    let all = triangles(mesh);
    let mut seen = vec![false; all.len()];
    for ray in viewport.pixel_rays() {
        if let Some(hit) = brute_force_cast(&all, &ray) {
            seen[hit.triangle as usize] = true;
        }
    }
    seen
}

#[test]
fn visible_triangles_in_view_equal_brute_force_per_pixel() {
    for (name, width, height) in [
        ("suzanne.obj", 64, 48),
        ("spot.obj", 48, 40),
        ("stanford-bunny.obj", 32, 24),
    ] {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        for viewport in viewports(&mesh, width, height) {
            let seen = mesh.visible_triangles_in_view(&viewport);
            assert_eq!(
                seen,
                seen_at_pixels(&mesh, &viewport),
                "{name}: {viewport:?}"
            );
            assert!(seen.contains(&true), "{name}");
        }
    }
}

/// The sample points of `Mesh::visible_triangles` as its docs define them.
fn samples(triangle: &Triangle, density: f32) -> Vec<Vec3> {
    let [a, b, c] = [triangle.v0, triangle.v1, triangle.v2].map(|p| p.as_dvec3());
    let area = 0.5 * (b - a).cross(c - a).length();
    let k = ((area * f64::from(density)).sqrt().ceil() as u32).clamp(1, MAX_SIDE_SAMPLES);
    let (e1, e2) = (triangle.v1 - triangle.v0, triangle.v2 - triangle.v0);
    let kf = k as f32;
    let mut points = Vec::new();
    for (offset, rows) in [(1.0 / 3.0, k), (2.0 / 3.0, k.saturating_sub(1))] {
        for i in 0..rows {
            for j in 0..rows - i {
                let (u, v) = ((i as f32 + offset) / kf, (j as f32 + offset) / kf);
                points.push(triangle.v0 + e1 * u + e2 * v);
            }
        }
    }
    points
}

#[test]
fn sampled_visible_triangles_equal_brute_force() {
    for (name, samples_per_triangle) in [("suzanne.obj", 6.0), ("cow.obj", 2.0)] {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let all = triangles(&mesh);
        let area: f64 = all.iter().map(|t| f64::from(t.area())).sum();
        let density = (samples_per_triangle * all.len() as f64 / area) as f32;
        let eyes = &eyes(&mesh)[..2];
        let seen = mesh.visible_triangles(eyes, density).expect("valid");
        for (t, triangle) in all.iter().enumerate() {
            let reference = !triangle.is_degenerate()
                && eyes.iter().any(|&eye| {
                    samples(triangle, density).into_iter().any(|p| {
                        let hit = brute_force_cast(&all, &Ray::new(eye, p - eye));
                        hit.is_some_and(|h| h.triangle == t as u32)
                    })
                });
            assert_eq!(seen[t], reference, "{name}: triangle {t}");
        }
        // More samples see at least what fewer see.
        let centroids = mesh.visible_triangles(eyes, 0.0).expect("valid");
        assert!(
            centroids.iter().zip(&seen).all(|(&c, &s)| !c || s),
            "{name}"
        );
        assert!(seen.iter().filter(|&&s| s).count() > centroids.iter().filter(|&&c| c).count());
    }
}

/// A star-shaped lasso in pixel coordinates around `centre`.
fn star(centre: Vec2, radius: f32) -> Vec<Vec2> {
    (0..14)
        .map(|k| {
            let angle = k as f32 * core::f32::consts::TAU / 14.0;
            let r = if k % 2 == 0 { radius } else { radius * 0.45 };
            centre + Vec2::new(angle.cos(), angle.sin()) * r
        })
        .collect()
}

/// The pixels of `viewport` whose centres lie inside `lasso`.
fn lasso_pixels(viewport: &Viewport, lasso: &[Vec2]) -> Vec<Ray> {
    let polygon =
        Polygon::new(lasso.iter().map(|p| p.extend(0.0)).collect::<Vec<_>>()).expect("a polygon");
    let mut rays = Vec::new();
    for row in 0..viewport.height() {
        for column in 0..viewport.width() {
            if polygon.contains(Vec3::new(column as f32 + 0.5, row as f32 + 0.5, 0.0)) {
                rays.push(viewport.ray_through_pixel(column, row));
            }
        }
    }
    rays
}

#[test]
fn lasso_selects_what_brute_force_sees_under_it() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    let all = triangles(&mesh);
    let options = QueryOptions::new();
    for viewport in viewports(&mesh, 64, 48) {
        let lasso = star(Vec2::new(30.0, 26.0), 20.0);
        let selected = mesh
            .lasso_triangles(&viewport, &lasso, &options)
            .expect("a lasso");
        let mut reference: Vec<u32> = lasso_pixels(&viewport, &lasso)
            .iter()
            .filter_map(|ray| brute_force_cast(&all, ray).map(|h| h.triangle))
            .collect();
        reference.sort_unstable();
        reference.dedup();
        assert_eq!(selected, reference);
        assert!(!selected.is_empty());
        // A lasso around the whole image selects what the image shows.
        let whole = [
            Vec2::new(-5.0, -5.0),
            Vec2::new(70.0, -5.0),
            Vec2::new(70.0, 60.0),
            Vec2::new(-5.0, 60.0),
        ];
        let everything = mesh
            .lasso_triangles(&viewport, &whole, &options)
            .expect("a lasso");
        let shown = mesh.visible_triangles_in_view(&viewport);
        let shown: Vec<u32> = (0..shown.len() as u32)
            .filter(|&t| shown[t as usize])
            .collect();
        assert_eq!(everything, shown);
        // Off the image, nothing; a filter leaves triangles out, showing what lies behind.
        let off = star(Vec2::new(-100.0, -100.0), 20.0);
        assert!(mesh
            .lasso_triangles(&viewport, &off, &options)
            .expect("a lasso")
            .is_empty());
        let odd = QueryOptions::new().with_filter(|t: u32| t % 2 == 1);
        let filtered = mesh
            .lasso_triangles(&viewport, &lasso, &odd)
            .expect("a lasso");
        assert!(filtered.iter().all(|t| t % 2 == 1) && !filtered.is_empty());
    }
    let viewport = viewports(&mesh, 64, 48)[0];
    for bad in [
        vec![Vec2::ZERO, Vec2::ONE],
        vec![Vec2::ZERO, Vec2::ONE, Vec2::splat(2.0)],
        vec![Vec2::ZERO, Vec2::NAN, Vec2::X],
    ] {
        assert!(
            mesh.lasso_triangles(&viewport, &bad, &options).is_err(),
            "{bad:?}"
        );
    }
}

#[test]
fn scene_lasso_selects_what_brute_force_sees_under_it() {
    let scene = random_scene(&small_meshes(), 30, 6.0, 17);
    let camera = Camera::framing(scene.bounds(), 50.0, 4.0 / 3.0);
    let viewport = camera
        .viewport(
            64,
            48,
            ClipPlanes::new(0.01, f32::INFINITY),
            DepthConvention::ZeroToOne,
        )
        .expect("a valid camera");
    let lasso = star(Vec2::new(32.0, 24.0), 22.0);
    let selected = scene
        .lasso_triangles(&viewport, &lasso, &QueryOptions::new())
        .expect("a lasso");
    let mut reference: Vec<SceneTriangle> = lasso_pixels(&viewport, &lasso)
        .iter()
        .filter_map(|ray| brute_force_scene_cast(&scene, ray))
        .map(|hit| SceneTriangle {
            instance: hit.instance,
            triangle: hit.hit.triangle,
        })
        .collect();
    reference.sort_unstable();
    reference.dedup();
    assert_eq!(selected, reference);
    let instances = selected
        .iter()
        .map(|t| t.instance)
        .collect::<std::collections::BTreeSet<_>>();
    assert!(instances.len() > 1, "{instances:?}");
}
