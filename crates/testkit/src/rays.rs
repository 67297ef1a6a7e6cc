//! Seeded ray sets: the incoherent rays every benchmark measures with, random rays around a
//! box, and adversarial rays that stress a triangle test and a BVH.

use meshcast::glam::Vec3;
use meshcast::{Aabb, Ray, Triangle};
use rand::Rng;

use crate::random::{random_direction, random_point_in, rng};

/// How far out, relative to the radius of the box's bounding sphere, incoherent rays start.
const ORIGIN_SPHERE_SCALE: f32 = 2.0;

/// `count` incoherent rays aimed at `bounds`, the same for the same `seed`: each starts at a
/// uniformly random point on a sphere around the box (twice the radius of the box's bounding
/// sphere, centred on it) and points towards a uniformly random point inside the box.
///
/// Neighbouring rays share nothing, so a BVH traversal finds no coherence between them: the
/// hard case, opposite to a camera's [`pixel_rays`](meshcast::Camera::pixel_rays). Directions
/// have unit length, so `t` is a distance. An empty or non-finite box is replaced by the cube `[-1, 1]^3`.
///
/// # Examples
/// ```
/// use meshcast::glam::Vec3;
/// use meshcast::Aabb;
/// use meshcast_testkit::incoherent_rays;
///
/// let cube = Aabb::new(Vec3::ZERO, Vec3::ONE);
/// let rays = incoherent_rays(cube, 100, 7);
/// assert_eq!(rays.len(), 100);
/// assert!(rays.iter().all(|ray| cube.intersect(ray).is_some()));
/// assert_eq!(rays, incoherent_rays(cube, 100, 7));
/// ```
pub fn incoherent_rays(bounds: Aabb, count: usize, seed: u64) -> Vec<Ray> {
    let bounds = if bounds.is_empty() || !bounds.is_finite() {
        Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0))
    } else {
        bounds
    };
    let centre = bounds.centroid();
    let half_diagonal = 0.5 * bounds.extent().length();
    let radius = ORIGIN_SPHERE_SCALE
        * if half_diagonal > 0.0 {
            half_diagonal
        } else {
            1.0
        };
    let mut rng = rng(seed);
    (0..count)
        .map(|_| {
            let origin = centre + random_direction(&mut rng) * radius;
            let target = random_point_in(&mut rng, bounds);
            Ray::new(origin, (target - origin).normalize())
        })
        .collect()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Aabb {
        Aabb::new(Vec3::new(-3.0, 10.0, 0.5), Vec3::new(1.0, 12.0, 0.75))
    }

    #[test]
    fn incoherent_rays_start_on_the_sphere_and_cross_the_box() {
        let b = bounds();
        let radius = ORIGIN_SPHERE_SCALE * 0.5 * b.extent().length();
        let rays = incoherent_rays(b, 2000, 42);
        assert_eq!(rays.len(), 2000);
        for ray in &rays {
            assert!(ray.is_valid());
            assert!((ray.origin.distance(b.centroid()) - radius).abs() < 1e-4 * radius);
            assert!((ray.dir.length() - 1.0).abs() < 1e-5);
            assert!(b.intersect(ray).is_some(), "{ray:?} misses the box");
        }
        // Origins cover every side of the sphere.
        let mean = rays.iter().map(|r| r.origin - b.centroid()).sum::<Vec3>() / 2000.0;
        assert!(mean.length() < 0.1 * radius, "origins bunch up: {mean}");
    }

    #[test]
    fn incoherent_rays_depend_on_the_seed_only() {
        let b = bounds();
        assert_eq!(incoherent_rays(b, 50, 1), incoherent_rays(b, 50, 1));
        assert_ne!(incoherent_rays(b, 50, 1), incoherent_rays(b, 50, 2));
        // A longer set starts with the shorter one.
        assert_eq!(
            incoherent_rays(b, 80, 3)[..50],
            incoherent_rays(b, 50, 3)[..]
        );
    }

    #[test]
    fn incoherent_rays_on_empty_flat_or_point_boxes_are_valid() {
        let p = Vec3::new(5.0, 5.0, 5.0);
        for b in [
            Aabb::EMPTY,
            Aabb::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 1.0, 1.0)),
            Aabb::new(p, p),
            Aabb::new(Vec3::ZERO, Vec3::new(1.0, 0.0, 1.0)),
        ] {
            let rays = incoherent_rays(b, 100, 9);
            assert_eq!(rays.len(), 100);
            assert!(rays.iter().all(Ray::is_valid), "{b:?}");
        }
        assert!(incoherent_rays(bounds(), 0, 9).is_empty());
    }
}
