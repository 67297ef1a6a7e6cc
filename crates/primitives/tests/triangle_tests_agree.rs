//! Every ray–triangle test of the crate against an `f64` reference and against each other, on
//! random triangles and rays: near the origin, from far away, far from the world origin, and
//! along the axes; plus the back-face culled test against the two-sided one.

use crate::common::*;
use glam::Vec3;
use meshcast_primitives::{Ray, Triangle};
use proptest::prelude::*;

/// The ray's range: the default `(0, inf)`, or a window around `t = 1 / length`, where the
/// ray reaches its target.
fn range() -> impl Strategy<Value = Option<(f32, f32)>> {
    prop_oneof![
        Just(None),
        (0.0f32..1.5, 0.0f32..1.0).prop_map(|(a, w)| Some((a, a + w))),
    ]
}

/// A ray from `origin` towards the point of barycentrics `(u, v)` on `tri` (outside when
/// they are), reaching it at `t = 1 / length`, within the window `range` scaled to that `t`.
fn aim(
    tri: &Triangle,
    origin: Vec3,
    (u, v): (f32, f32),
    length: f32,
    range: Option<(f32, f32)>,
) -> Ray {
    let target = tri.v0 * (1.0 - u - v) + tri.v1 * u + tri.v2 * v;
    let ray = Ray::new(origin, (target - origin) * length);
    match range {
        None => ray,
        Some((a, b)) => ray.with_range(a / length, b / length),
    }
}

/// Checks every two-sided test against the reference; the case is skipped when the triangle is
/// a needle or the ray grazes it (their error bounds say nothing useful there).
fn check_all(tri: &Triangle, ray: &Ray) -> Result<(), TestCaseError> {
    if shape_quality(tri) < 0.05 || !ray.is_valid() || cosine(tri, ray) < 0.02 {
        return Ok(());
    }
    let Some(expected) = Expected::new(tri, ray) else {
        return Ok(());
    };
    for (name, hit) in two_sided_hits(tri, ray) {
        expected
            .check(name, tri, ray, hit)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{tri:?}\n{ray:?}")))?;
    }
    Ok(())
}

fn barycentrics() -> impl Strategy<Value = (f32, f32)> {
    (-0.3f32..1.3, -0.3f32..1.3)
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn every_test_agrees_with_the_reference_near_the_origin(
        tri in triangle(10.0),
        origin in point(20.0),
        uv in barycentrics(),
        length in 0.1f32..10.0,
        range in range(),
    ) {
        check_all(&tri, &aim(&tri, origin, uv, length, range))?;
    }

    #[test]
    fn every_test_agrees_for_rays_from_far_away(
        tri in triangle(10.0),
        from in point(1.0),
        uv in barycentrics(),
        length in 0.1f32..10.0,
        range in range(),
    ) {
        let origin = from.normalize_or(Vec3::X) * 1e5;
        check_all(&tri, &aim(&tri, origin, uv, length, range))?;
    }

    #[test]
    fn every_test_agrees_far_from_the_world_origin(
        tri in triangle(10.0),
        origin in point(20.0),
        uv in barycentrics(),
        length in 0.1f32..10.0,
        offset in point(1.0),
    ) {
        let offset = offset * 1e5;
        let far = Triangle::new(tri.v0 + offset, tri.v1 + offset, tri.v2 + offset);
        check_all(&far, &aim(&far, origin + offset, uv, length, None))?;
    }

    /// Directions along an axis with every combination of signed zeros in the other two
    /// components: all tests agree with the reference, and the signs of the zeros change
    /// nothing.
    #[test]
    fn axis_parallel_rays_with_signed_zeros(
        tri in triangle(10.0),
        uv in barycentrics(),
        axis in 0usize..3,
        negative in any::<bool>(),
        distance in 0.5f32..30.0,
    ) {
        let (u, v) = uv;
        let target = tri.v0 * (1.0 - u - v) + tri.v1 * u + tri.v2 * v;
        let sign = if negative { -1.0 } else { 1.0 };
        let mut origin = target;
        origin[axis] -= sign * distance;
        let mut answers = Vec::new();
        for zeros in [(0.0f32, 0.0f32), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)] {
            let mut dir = Vec3::ZERO;
            dir[axis] = sign;
            dir[(axis + 1) % 3] = zeros.0;
            dir[(axis + 2) % 3] = zeros.1;
            let ray = Ray::new(origin, dir);
            check_all(&tri, &ray)?;
            answers.push(two_sided_hits(&tri, &ray).map(|(_, hit)| hit));
        }
        for other in &answers[1..] {
            prop_assert_eq!(other, &answers[0]);
        }
    }

    /// The culled test returns the two-sided hit exactly on a front face and never on a back
    /// face; only within rounding of edge-on may the facing be decided either way.
    #[test]
    fn culled_moller_trumbore_is_two_sided_filtered_by_facing(
        tri in triangle(10.0),
        origin in point(20.0),
        uv in barycentrics(),
        length in 0.1f32..10.0,
        range in range(),
    ) {
        let ray = aim(&tri, origin, uv, length, range);
        let culled = tri.intersect_moller_trumbore_culled(&ray);
        let two_sided = tri.intersect_moller_trumbore(&ray);
        let facing = f64::from(ray.dir.dot(tri.normal()));
        let scale = f64::from(ray.dir.length() * tri.normal().length());
        if facing.abs() > 1e-5 * scale {
            let expected = if facing < 0.0 { two_sided } else { None };
            prop_assert_eq!(culled, expected);
        } else {
            prop_assert!(culled.is_none() || culled == two_sided);
        }
    }
}

#[test]
fn hits_exactly_on_edges_and_vertices_along_the_axes() {
    // Corners and edge midpoints are exact in f32, and an axis-parallel ray keeps them exact:
    // every closed triangle test counts them as inside. (The watertight and polygon tests'
    // boundaries are half-open instead, so that triangles or polygons sharing an edge do not
    // both own it: see the watertight module's tests and tests/polygon.rs.)
    let tri = Triangle::new(
        Vec3::new(-1.0, -1.0, 0.5),
        Vec3::new(1.0, -1.0, 0.5),
        Vec3::new(0.0, 1.0, 0.5),
    );
    let points = [
        tri.v0,
        tri.v1,
        tri.v2,
        (tri.v0 + tri.v1) * 0.5,
        (tri.v1 + tri.v2) * 0.5,
        (tri.v2 + tri.v0) * 0.5,
    ];
    for p in points {
        for dir in [
            Vec3::Z,
            Vec3::NEG_Z,
            Vec3::new(-0.0, 0.0, 1.0),
            Vec3::new(0.0, -0.0, -1.0),
        ] {
            let ray = Ray::new(p - dir * 2.0, dir);
            for (name, hit) in two_sided_hits(&tri, &ray) {
                if matches!(name, "polygon" | "watertight" | "watertight_ray") {
                    continue;
                }
                let hit = hit.unwrap_or_else(|| panic!("{name} missed {p} along {dir}"));
                assert_eq!(hit.t, 2.0, "{name}");
            }
        }
    }
}
