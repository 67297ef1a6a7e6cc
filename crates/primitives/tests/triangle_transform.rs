//! The precomputed-transform test composed with an object's transform equals the test of the
//! transformed triangle.

use crate::common::*;
use glam::{Affine3A, Quat, Vec3};
use meshcast_primitives::{Ray, Triangle, TriangleTransform};
use proptest::prelude::*;

/// A rotation and translation, with a non-uniform scale when `scaled` (each factor in
/// [0.25, 4]).
fn placement(scaled: bool) -> impl Strategy<Value = Affine3A> {
    (
        point(1.0),
        -3.2f32..3.2,
        point(100.0),
        (0.25f32..4.0, 0.25f32..4.0, 0.25f32..4.0),
    )
        .prop_map(move |(axis, angle, translation, (x, y, z))| {
            let rotation = Quat::from_axis_angle(axis.normalize_or(Vec3::Z), angle);
            let scale = if scaled {
                Vec3::new(x, y, z)
            } else {
                Vec3::ONE
            };
            Affine3A::from_scale_rotation_translation(scale, rotation, translation)
        })
}

fn moved(tri: &Triangle, to_world: &Affine3A) -> Triangle {
    let [a, b, c] = tri.vertices().map(|v| to_world.transform_point3(v));
    Triangle::new(a, b, c)
}

proptest! {
    #![proptest_config(config(3000))]

    /// Under any placement, the composed transform hits where the transform of the moved
    /// triangle does, with the same `t`, `u`, `v`, and maps the moved triangle's points to
    /// their barycentrics.
    #[test]
    fn composed_transform_equals_the_moved_triangle(
        tri in triangle(10.0),
        to_world in placement(true),
        origin in point(20.0),
        uv in (-0.3f32..1.3, -0.3f32..1.3),
    ) {
        prop_assume!(shape_quality(&tri) > 0.05);
        let world = moved(&tri, &to_world);
        prop_assume!(shape_quality(&world) > 0.05);
        let local = TriangleTransform::new(&tri).ok_or_else(|| TestCaseError::fail("degenerate"))?;
        let direct = TriangleTransform::new(&world).ok_or_else(|| TestCaseError::fail("degenerate"))?;
        let composed = local
            .compose(&to_world.inverse(), &to_world)
            .ok_or_else(|| TestCaseError::fail("not finite"))?;

        let (u, v) = uv;
        let target = world.v0 * (1.0 - u - v) + world.v1 * u + world.v2 * v;
        let on_plane = composed.transform_point(target);
        prop_assert!((on_plane - Vec3::new(u, v, 0.0)).abs().max_element() < 1e-3, "{}", on_plane);

        let ray = Ray::new(to_world.transform_point3(origin), target - to_world.transform_point3(origin));
        prop_assume!(ray.is_valid() && cosine(&world, &ray) > 0.02);
        let Some(mut expected) = Expected::new(&world, &ray) else {
            return Ok(());
        };
        // The placement's own rounding (its inverse, and the moved corners) adds to the
        // test's error, in proportion to how much it stretches.
        expected.hair *= 64.0;
        expected.t_tolerance *= 64.0;
        for (name, hit) in [("direct", direct.intersect(&ray)), ("composed", composed.intersect(&ray))] {
            expected
                .check(name, &world, &ray, hit)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{tri:?}\n{to_world:?}")))?;
        }
    }

    /// Under a rigid placement the composed and direct transforms are the same matrix.
    #[test]
    fn rigid_composition_is_the_same_matrix(tri in triangle(10.0), to_world in placement(false)) {
        prop_assume!(shape_quality(&tri) > 0.05);
        let local = TriangleTransform::new(&tri).ok_or_else(|| TestCaseError::fail("degenerate"))?;
        let direct = TriangleTransform::new(&moved(&tri, &to_world))
            .ok_or_else(|| TestCaseError::fail("degenerate"))?;
        let composed = local
            .compose(&to_world.inverse(), &to_world)
            .ok_or_else(|| TestCaseError::fail("not finite"))?;
        let (a, b) = (composed.to_affine(), direct.to_affine());
        // The moved corners are rounded at the scale of the translation: the matrices agree to
        // that rounding, amplified by the triangle's shape.
        let size = f64::from(tri.bounds().extent().max_element());
        let largest = [b.matrix3.x_axis, b.matrix3.y_axis, b.matrix3.z_axis]
            .map(|c| c.abs().max_element())
            .into_iter()
            .fold(0.0, f32::max);
        let far = f64::from(to_world.translation.length()) + size;
        let tolerance = 64.0 * EPS * far / (size * shape_quality(&tri)) * f64::from(largest);
        prop_assert!(a.matrix3.abs_diff_eq(b.matrix3, tolerance as f32), "{:?} vs {:?}", a, b);
        for corner in moved(&tri, &to_world).vertices() {
            let (pa, pb) = (composed.transform_point(corner), direct.transform_point(corner));
            prop_assert!(pa.distance(pb) < 1e-4, "{} vs {}", pa, pb);
        }
    }
}
