//! Seeded benchmark rays: incoherent rays from a sphere around a box. The benches and the
//! `meshcast bench` command measure with these, and with
//! [`Camera::pixel_rays`](meshcast_primitives::Camera::pixel_rays).

use glam::Vec3;
use meshcast_primitives::{Aabb, Ray};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// How far out, relative to the radius of the box's bounding sphere, incoherent rays start.
const ORIGIN_SPHERE_SCALE: f32 = 2.0;

/// `count` incoherent rays aimed at `bounds`, the same for the same `seed`: each starts at a
/// uniformly random point on a sphere around the box (twice the radius of the box's bounding
/// sphere, centred on it) and points towards a uniformly random point inside the box.
///
/// Neighbouring rays share nothing, so a BVH traversal finds no coherence between them: the
/// hard case, opposite to a camera's
/// [`pixel_rays`](meshcast_primitives::Camera::pixel_rays). Directions have unit length, so
/// `t` is a distance.
/// An empty or non-finite box is replaced by the cube `[-1, 1]^3`.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::incoherent_rays;
/// use meshcast_primitives::Aabb;
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
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            // Uniform on the sphere: z uniform in [-1, 1], azimuth uniform (Archimedes).
            let z: f32 = rng.gen_range(-1.0..=1.0);
            let azimuth: f32 = rng.gen_range(0.0..core::f32::consts::TAU);
            let ring = (1.0 - z * z).max(0.0).sqrt();
            let on_sphere = Vec3::new(ring * azimuth.cos(), ring * azimuth.sin(), z);
            let origin = centre + on_sphere * radius;
            let target = bounds.min + bounds.extent() * Vec3::from(rng.gen::<[f32; 3]>());
            Ray::new(origin, (target - origin).normalize())
        })
        .collect()
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
