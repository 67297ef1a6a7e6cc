//! Adversarial input for every test of the crate: degenerate triangles, NaN and infinite rays
//! and primitives (no hit, no panic), and rays through the shared edges and vertices of a
//! triangle fan (the watertight test never lets one through).

use crate::common::*;
use glam::Vec3;
use meshcast_primitives::{
    Aabb, Error, Plane, Polygon, Ray, Sphere, Triangle, TriangleTransform, WatertightRay,
};
use proptest::prelude::*;

/// A triangle that [`Triangle::is_degenerate`] must flag, by one of several constructions
/// that are exact in `f32`.
fn degenerate_triangle() -> impl Strategy<Value = Triangle> {
    let int = || -8i32..8;
    let int_point =
        move || (int(), int(), int()).prop_map(|(x, y, z)| Vec3::new(x as f32, y as f32, z as f32));
    let bad = prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)];
    prop_oneof![
        // A repeated corner, in each position.
        (point(10.0), point(10.0), 0usize..3).prop_map(|(a, b, slot)| {
            let mut corners = [a, b, b];
            corners.rotate_left(slot);
            Triangle::new(corners[0], corners[1], corners[2])
        }),
        // Three collinear points with small integer coordinates (exact arithmetic).
        (int_point(), int_point(), -3i32..4, 0usize..3).prop_map(|(p, d, k, slot)| {
            let mut corners = [p, p + d, p + d * k as f32];
            corners.rotate_left(slot);
            Triangle::new(corners[0], corners[1], corners[2])
        }),
        // A non-finite coordinate.
        (triangle(10.0), bad, 0usize..9).prop_map(|(tri, bad, at)| {
            let mut corners = tri.vertices();
            corners[at / 3][at % 3] = bad;
            Triangle::new(corners[0], corners[1], corners[2])
        }),
    ]
}

/// A ray that [`Ray::is_valid`] must reject.
fn degenerate_ray() -> impl Strategy<Value = Ray> {
    let bad = prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)];
    (point(20.0), point(1.0), bad, 0usize..9).prop_map(|(origin, dir, bad, what)| {
        let ray = Ray::new(origin, dir);
        match what {
            0..=2 => {
                let mut origin = origin;
                origin[what] = bad;
                Ray::new(origin, dir)
            }
            3..=5 => {
                let mut dir = dir;
                dir[what - 3] = bad;
                Ray::new(origin, dir)
            }
            6 => Ray::new(origin, Vec3::ZERO),
            7 => ray.with_range(f32::NAN, if bad.is_nan() { 1.0 } else { bad }),
            _ => ray.with_range(2.0, 1.0),
        }
    })
}

/// Degeneracy is decided exactly, so it does not depend on scale: collinear corners are
/// degenerate and a proper triangle is not, from subnormal coordinates (whose `f32` normal
/// underflows to zero) to coordinates near `f32::MAX` (whose normal overflows), and one
/// corner moved off the line by the least step there is makes a needle that can be hit.
#[test]
fn degeneracy_is_the_same_at_every_scale() {
    for k in [-149, -140, -126, -100, -64, 0, 40, 64, 100, 120, 125] {
        let s = 2f64.powi(k) as f32;
        let at = |x: f32, y: f32, z: f32| Vec3::new(x, y, z) * s;
        let proper = Triangle::new(at(0.0, 0.0, 0.0), at(1.0, 0.0, 0.0), at(0.0, 1.0, 0.0));
        assert!(!proper.is_degenerate(), "2^{k}");
        let collinear = Triangle::new(at(0.0, 0.0, 0.0), at(1.0, 2.0, 3.0), at(2.0, 4.0, 6.0));
        assert!(collinear.is_degenerate(), "2^{k}");
        let needle_tip = at(2.0, 4.0, 6.0) + Vec3::new(f32::from_bits(1), 0.0, 0.0);
        let needle = Triangle::new(collinear.v0, collinear.v1, needle_tip);
        assert_eq!(needle.is_degenerate(), needle_tip == collinear.v2, "2^{k}");
    }
    let huge = Triangle::new(
        Vec3::new(-f32::MAX, 0.0, 0.0),
        Vec3::new(f32::MAX, 0.0, 0.0),
        Vec3::new(0.0, f32::MAX, 1.0),
    );
    assert!(!huge.is_degenerate());
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn degenerate_triangles_are_never_hit(
        tri in degenerate_triangle(),
        origin in point(20.0),
        target in point(10.0),
    ) {
        prop_assert!(tri.is_degenerate());
        // Aim at a corner too: a ray through the degenerate triangle's points.
        for aim in [target, tri.v0, tri.v1.lerp(tri.v2, 0.5)] {
            let ray = Ray::new(origin, aim - origin);
            for (name, hit) in two_sided_hits(&tri, &ray) {
                prop_assert_eq!(hit, None, "{}", name);
            }
            prop_assert_eq!(tri.intersect_moller_trumbore_culled(&ray), None);
        }
        prop_assert_eq!(TriangleTransform::new(&tri), None);
        prop_assert_eq!(Plane::from_triangle(&tri), None);
        let polygon = Polygon::new(tri.vertices());
        prop_assert!(
            matches!(polygon, Err(Error::ZeroArea | Error::NonFinite { .. })),
            "{:?}",
            polygon
        );
    }

    #[test]
    fn degenerate_rays_hit_nothing(
        ray in degenerate_ray(),
        tri in triangle(10.0),
        center in point(5.0),
    ) {
        prop_assert!(!ray.is_valid());
        for (name, hit) in two_sided_hits(&tri, &ray) {
            prop_assert_eq!(hit, None, "{}", name);
        }
        prop_assert_eq!(WatertightRay::new(&ray).intersect(tri.v0, tri.v1, tri.v2), None);
        prop_assert_eq!(tri.intersect_moller_trumbore_culled(&ray), None);
        if let Some(transform) = TriangleTransform::new(&tri) {
            prop_assert_eq!(transform.intersect(&ray), None);
        }
        prop_assert_eq!(Plane::new(center, Vec3::ONE).intersect(&ray), None);
        prop_assert_eq!(Sphere::new(center, 30.0).intersect(&ray), None);
        prop_assert_eq!(Aabb::new(Vec3::splat(-30.0), Vec3::splat(30.0)).intersect(&ray), None);
        let square = [Vec3::new(-30.0, -30.0, 0.0), Vec3::new(30.0, -30.0, 0.0), Vec3::new(30.0, 30.0, 0.0), Vec3::new(-30.0, 30.0, 0.0)];
        let polygon = Polygon::new(square).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(polygon.intersect(&ray), None);
    }

    #[test]
    fn non_finite_spheres_planes_and_transforms_are_never_hit(
        origin in point(20.0),
        dir in point(1.0),
        what in 0usize..4,
    ) {
        let ray = Ray::new(origin, dir);
        let nan = f32::NAN;
        let sphere = [
            Sphere::new(Vec3::new(nan, 0.0, 0.0), 100.0),
            Sphere::new(Vec3::ZERO, nan),
            Sphere::new(Vec3::ZERO, f32::INFINITY),
            Sphere::new(Vec3::ZERO, -100.0),
        ][what];
        prop_assert_eq!(sphere.intersect(&ray), None);
        let plane = [
            Plane::new(Vec3::new(nan, 0.0, 0.0), Vec3::Z),
            Plane::new(Vec3::ZERO, Vec3::new(0.0, nan, 1.0)),
            Plane::new(Vec3::ZERO, Vec3::ZERO),
            Plane::new(Vec3::new(0.0, f32::INFINITY, 0.0), Vec3::Z),
        ][what];
        prop_assert_eq!(plane.intersect(&ray), None);
        // A transform composed with a broken object transform is refused.
        let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
        let transform = TriangleTransform::new(&tri).ok_or_else(|| TestCaseError::fail("degenerate"))?;
        let broken = glam::Affine3A::from_scale(Vec3::new(nan, 1.0, 1.0));
        prop_assert_eq!(transform.compose(&broken, &glam::Affine3A::IDENTITY), None);
    }

    /// A fan of triangles around a centre vertex, its rim wavy in z: rays from anywhere
    /// through the centre (shared by every triangle) and through points of the shared spokes
    /// always hit at least one triangle, wherever the fan does not fold over itself as seen
    /// by the ray (there the point would be on its silhouette, which a ray can just touch).
    #[test]
    fn watertight_test_never_lets_a_ray_through_a_fan(
        center in point(5.0),
        count in 3usize..12,
        radius in 0.01f32..10.0,
        wave in -1.0f32..1.0,
        origin in point(50.0),
        along in 0.0f32..0.999,
        spoke in 0usize..12,
    ) {
        let rim: Vec<Vec3> = (0..count)
            .map(|i| {
                let a = i as f32 / count as f32 * core::f32::consts::TAU;
                center + Vec3::new(a.cos(), a.sin(), wave * (3.0 * a).sin()) * radius
            })
            .collect();
        let fan: Vec<Triangle> = (0..count)
            .map(|i| Triangle::new(center, rim[i], rim[(i + 1) % count]))
            .collect();
        let spoke = rim[spoke % count];
        for target in [center, center.lerp(spoke, along)] {
            let ray = Ray::new(origin, target - origin);
            prop_assume!(ray.is_valid());
            let prepared = WatertightRay::new(&ray);
            let mut hits = 0;
            for tri in &fan {
                let hit = tri.intersect_watertight(&ray);
                let raw = if tri.is_degenerate() { None } else { prepared.intersect(tri.v0, tri.v1, tri.v2) };
                prop_assert_eq!(hit, raw);
                hits += usize::from(hit.is_some());
            }
            let front = fan.iter().all(|tri| tri.normal().dot(ray.dir) < 0.0);
            let back = fan.iter().all(|tri| tri.normal().dot(ray.dir) > 0.0);
            prop_assert!(hits >= 1 || !(front || back), "{:?} fell through towards {}", ray, target);
        }
    }
}
