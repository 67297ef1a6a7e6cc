//! Camera round trips: a pixel's ray hits the mesh, and the hit projects back to the pixel,
//! for perspective (finite and infinite far plane) and orthographic projections in every
//! depth convention; the viewport of a `Camera` agrees with the camera's own rays.

use glam::{Mat4, Vec2, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{Mesh, RayQueries};
use meshcast_primitives::{Camera, ClipPlanes, DepthConvention, Viewport};
use meshcast_testkit::{asset, rng};
use rand::Rng;

const CONVENTIONS: [DepthConvention; 3] = [
    DepthConvention::NegativeOneToOne,
    DepthConvention::ZeroToOne,
    DepthConvention::ReversedZ,
];

fn orthographic(
    half_width: f32,
    half_height: f32,
    near: f32,
    far: f32,
    depth: DepthConvention,
) -> Mat4 {
    let (l, r, b, t) = (-half_width, half_width, -half_height, half_height);
    match depth {
        DepthConvention::NegativeOneToOne => Mat4::orthographic_rh_gl(l, r, b, t, near, far),
        DepthConvention::ZeroToOne => Mat4::orthographic_rh(l, r, b, t, near, far),
        DepthConvention::ReversedZ => Mat4::orthographic_rh(l, r, b, t, far, near),
    }
}

/// Every projection under test for a camera framing `mesh`, with its name.
fn viewports(camera: &Camera, width: u32, height: u32) -> Vec<(String, Viewport)> {
    let distance = camera.eye.distance(camera.target);
    let mut all = Vec::new();
    for depth in CONVENTIONS {
        for far in [distance * 4.0, f32::INFINITY] {
            let viewport = camera
                .viewport(width, height, ClipPlanes::new(distance * 0.01, far), depth)
                .expect("valid camera");
            all.push((format!("perspective {depth:?} far {far}"), viewport));
        }
        let half_height = distance * 0.4;
        let projection = orthographic(
            half_height * width as f32 / height as f32,
            half_height,
            0.0,
            distance * 4.0,
            depth,
        );
        let viewport = Viewport::new(camera.view_matrix(), projection, depth, width, height)
            .expect("valid orthographic viewport");
        all.push((format!("orthographic {depth:?}"), viewport));
    }
    all
}

#[test]
fn hits_project_back_to_their_pixel_in_every_convention() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("loads");
    let (width, height) = (640, 480);
    let camera = Camera::framing(mesh.bounds(), 45.0, width as f32 / height as f32);
    let mut rng = rng(5);
    for (name, viewport) in viewports(&camera, width, height) {
        let (near_depth, far_depth) = viewport.depth().near_far();
        let mut hits = 0;
        for sample in 0..300 {
            // Pixel centres, pixel corners (whole numbers) and arbitrary points.
            let (x, y) = match sample % 3 {
                0 => (
                    rng.gen_range(0..width) as f32 + 0.5,
                    rng.gen_range(0..height) as f32 + 0.5,
                ),
                1 => (
                    rng.gen_range(0..=width) as f32,
                    rng.gen_range(0..=height) as f32,
                ),
                _ => (
                    rng.gen_range(0.0..width as f32),
                    rng.gen_range(0.0..height as f32),
                ),
            };
            let ray = viewport.ray_through(x, y);
            assert!(ray.is_valid(), "{name}");
            assert!((ray.dir.length() - 1.0).abs() < 1e-5);
            let Some(hit) = mesh.cast(&ray) else {
                continue;
            };
            hits += 1;
            let point = mesh.surface(&hit).expect("a triangle of the mesh").point;
            let projected = viewport.project(point).expect("in front");
            assert!(
                projected.truncate().distance(Vec2::new(x, y)) < 0.02,
                "{name}: ({x}, {y}) -> {projected}"
            );
            let (low, high) = (
                near_depth.min(far_depth) as f32,
                near_depth.max(far_depth) as f32,
            );
            assert!(
                projected.z >= low - 1e-4 && projected.z <= high + 1e-4,
                "{name}: depth {}",
                projected.z
            );
        }
        assert!(hits > 60, "{name}: only {hits} rays hit the cow");
    }
}

#[test]
fn viewport_rays_follow_the_camera_and_start_at_the_near_plane() {
    let camera = Camera::new(
        Vec3::new(4.0, 3.0, 9.0),
        Vec3::new(-1.0, 0.5, 0.0),
        Vec3::Y,
        55.0,
        1.6,
    );
    for depth in CONVENTIONS {
        let viewport = camera
            .viewport(320, 200, ClipPlanes::new(0.5, 80.0), depth)
            .expect("valid");
        assert!(viewport.eye().expect("perspective").distance(camera.eye) < 1e-4);
        for (column, row) in [(0, 0), (319, 199), (160, 100), (17, 150)] {
            let ours = viewport.ray_through_pixel(column, row);
            let camera_ray = camera.ray_through_pixel(column, row, 320, 200);
            assert!(ours.dir.distance(camera_ray.dir) < 1e-5, "{depth:?}");
            assert!(ours.origin.distance(camera_ray.origin) < 1e-4);
            // The range starts on the near plane and ends on the far plane.
            let forward = camera.forward();
            assert!(((ours.at(ours.t_min) - camera.eye).dot(forward) - 0.5).abs() < 1e-3);
            assert!(((ours.at(ours.t_max) - camera.eye).dot(forward) - 80.0).abs() < 1e-2);
        }
    }
    let broken = Camera::new(Vec3::ONE, Vec3::ONE, Vec3::Y, 55.0, 1.0);
    assert!(broken
        .viewport(
            10,
            10,
            ClipPlanes::new(0.1, 10.0),
            DepthConvention::ZeroToOne
        )
        .is_err());
    assert!(camera
        .viewport(
            10,
            10,
            ClipPlanes::new(0.0, 10.0),
            DepthConvention::ZeroToOne
        )
        .is_err());
}

#[test]
fn marquee_frusta_hold_exactly_what_projects_inside_the_rectangle() {
    let mesh = Mesh::from_obj(asset("suzanne.obj")).expect("loads");
    let camera = Camera::framing(mesh.bounds(), 40.0, 1.0);
    let mut rng = rng(9);
    for (name, viewport) in viewports(&camera, 300, 300) {
        let (low, high) = (Vec2::new(80.0, 90.0), Vec2::new(210.0, 170.0));
        let frustum = viewport.marquee(high, low).expect("has area");
        for &p in mesh.tri_mesh().positions() {
            let Some(pixel) = viewport.project(p) else {
                continue;
            };
            let margin = 0.05;
            let clearly_inside = pixel.x > low.x + margin
                && pixel.x < high.x - margin
                && pixel.y > low.y + margin
                && pixel.y < high.y - margin;
            let clearly_outside = pixel.x < low.x - margin
                || pixel.x > high.x + margin
                || pixel.y < low.y - margin
                || pixel.y > high.y + margin;
            if clearly_inside {
                assert!(frustum.contains_point(p), "{name}: {p} at {pixel}");
            } else if clearly_outside {
                assert!(!frustum.contains_point(p), "{name}: {p} at {pixel}");
            }
        }
        // Points along a pixel ray inside the rectangle, within the planes, are inside.
        for _ in 0..20 {
            let (x, y) = (
                rng.gen_range(low.x + 1.0..high.x - 1.0),
                rng.gen_range(low.y + 1.0..high.y - 1.0),
            );
            let ray = viewport.ray_through(x, y);
            let t = if ray.t_max.is_finite() {
                (ray.t_min + ray.t_max) * 0.5
            } else {
                ray.t_min * 50.0
            };
            assert!(frustum.contains_point(ray.at(t)), "{name}");
        }
    }
}
