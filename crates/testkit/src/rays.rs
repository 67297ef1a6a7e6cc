//! Seeded ray sets: random rays around a box, and adversarial rays that stress a triangle
//! test and a BVH.

use meshcast::glam::Vec3;
use meshcast::{Aabb, Ray, Triangle};
use rand::Rng;

use crate::random::{random_direction, random_point_in, rng};

/// `count` random rays around `bounds`: half from a sphere around the box towards a random
/// point in it (unnormalised directions of random length, so `t` is not a distance), half from
/// a random point inside the box in a random direction.
pub fn random_rays(bounds: Aabb, count: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed);
    let radius = bounds.extent().length().max(1e-3);
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                let origin = bounds.centroid() + random_direction(&mut rng) * radius * 1.5;
                let target = random_point_in(&mut rng, bounds);
                Ray::new(origin, (target - origin) * rng.gen_range(0.01..10.0))
            } else {
                let origin = random_point_in(&mut rng, bounds);
                Ray::new(origin, random_direction(&mut rng))
            }
        })
        .collect()
}

/// `count` rays that stress a triangle test and a BVH on `triangles` (non-degenerate ones are
/// picked as targets): through vertices and points on edges (shared in a closed mesh),
/// axis-parallel with `+0`/`-0` components, from far away, grazing along a triangle's plane,
/// starting on the surface, with tight or empty ranges, and degenerate (NaN, infinite, zero).
pub fn adversarial_rays(triangles: &[Triangle], count: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed);
    let targets: Vec<&Triangle> = triangles.iter().filter(|t| !t.is_degenerate()).collect();
    let bounds = triangles
        .iter()
        .fold(Aabb::EMPTY, |b, t| b.union(t.bounds()));
    let radius = bounds.extent().length().max(1e-3);
    let mut rays = Vec::with_capacity(count);
    while rays.len() < count {
        let triangle = targets[rng.gen_range(0..targets.len())];
        let corners = triangle.vertices();
        let vertex = corners[rng.gen_range(0..3)];
        let edge_point = {
            let k = rng.gen_range(0..3);
            let f: f32 = [0.5, 0.25, rng.gen()][rng.gen_range(0..3)];
            corners[k].lerp(corners[(k + 1) % 3], f)
        };
        let target = if rng.gen() { vertex } else { edge_point };
        let outside = bounds.centroid() + random_direction(&mut rng) * radius * 2.0;
        let ray = match rays.len() % 10 {
            // Through a vertex or an edge point, from outside.
            0 | 1 => Ray::new(outside, target - outside),
            // Axis-parallel through the target, other components +0 or -0.
            2 | 3 => {
                let axis = rng.gen_range(0..3);
                let sign = if rng.gen() { 1.0 } else { -1.0 };
                let mut dir = Vec3::ZERO;
                for k in 0..3 {
                    dir[k] = if rng.gen() { 0.0 } else { -0.0 };
                }
                dir[axis] = sign;
                let mut origin = target;
                origin[axis] -= sign * radius * 2.0;
                Ray::new(origin, dir)
            }
            // From far away (a million sizes), at the target.
            4 => {
                let far = bounds.centroid() + random_direction(&mut rng) * radius * 1e6;
                Ray::new(far, target - far)
            }
            // Grazing: in the triangle's plane, along an edge's direction.
            5 => {
                let dir = corners[1] - corners[0];
                Ray::new(corners[0] - dir * 3.0, dir)
            }
            // Starting on the surface (inside a triangle), in a random direction.
            6 => {
                let (a, b): (f32, f32) = (rng.gen(), rng.gen());
                let (a, b) = if a + b > 1.0 {
                    (1.0 - a, 1.0 - b)
                } else {
                    (a, b)
                };
                let on_surface =
                    corners[0] + (corners[1] - corners[0]) * a + (corners[2] - corners[0]) * b;
                Ray::new(on_surface, random_direction(&mut rng))
            }
            // A segment ending exactly at the target, or a range that starts past it.
            7 => {
                if rng.gen() {
                    Ray::segment(outside, target)
                } else {
                    Ray::new(outside, target - outside).with_range(0.5, 2.0)
                }
            }
            // A tiny or huge direction (t scales inversely).
            8 => {
                let scale = if rng.gen() { 1e-6 } else { 1e6 };
                Ray::new(outside, (target - outside) * scale)
            }
            // Degenerate rays: every query must call them a miss.
            _ => {
                let nan = f32::NAN;
                let inf = f32::INFINITY;
                match rng.gen_range(0..6) {
                    0 => Ray::new(Vec3::new(nan, 0.0, 0.0), target - outside),
                    1 => Ray::new(outside, Vec3::new(0.0, nan, 1.0)),
                    2 => Ray::new(outside, Vec3::ZERO),
                    3 => Ray::new(Vec3::new(0.0, -inf, 0.0), Vec3::Y),
                    4 => Ray::new(outside, Vec3::new(inf, 0.0, 0.0)),
                    _ => Ray::new(outside, target - outside).with_range(nan, 1.0),
                }
            }
        };
        rays.push(ray);
    }
    rays
}
