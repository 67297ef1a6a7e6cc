//! The incoherent rays `meshcast bench` measures with: the same rays, seed for seed, as the
//! test kit's `incoherent_rays`, which the criterion and peer benchmarks measure with, so
//! that their figures compare (the test below holds the two to each other).

use meshcast::glam::Vec3;
use meshcast::{Aabb, Ray};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// How far out, relative to the radius of the box's bounding sphere, incoherent rays start.
const ORIGIN_SPHERE_SCALE: f32 = 2.0;

/// `count` incoherent rays aimed at `bounds`, the same for the same `seed`: each starts at a
/// uniformly random point on a sphere around the box (twice the radius of the box's bounding
/// sphere, centred on it) and points towards a uniformly random point inside the box, with a
/// direction of unit length. An empty or non-finite box is replaced by the cube `[-1, 1]^3`.
pub(super) fn incoherent_rays(bounds: Aabb, count: usize, seed: u64) -> Vec<Ray> {
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
            let origin = centre + random_direction(&mut rng) * radius;
            let target = random_point_in(&mut rng, bounds);
            Ray::new(origin, (target - origin).normalize())
        })
        .collect()
}

/// A uniformly random unit vector.
fn random_direction(rng: &mut Pcg64) -> Vec3 {
    let z: f32 = rng.gen_range(-1.0..=1.0);
    let azimuth: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
    let ring = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(ring * azimuth.cos(), ring * azimuth.sin(), z)
}

/// A uniformly random point in a box.
fn random_point_in(rng: &mut Pcg64, bounds: Aabb) -> Vec3 {
    bounds.min + bounds.extent() * Vec3::from(rng.gen::<[f32; 3]>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every coordinate and range end of `ray`, as bits.
    fn bits(ray: &Ray) -> [u32; 8] {
        let [ox, oy, oz] = ray.origin.to_array();
        let [dx, dy, dz] = ray.dir.to_array();
        [ox, oy, oz, dx, dy, dz, ray.t_min, ray.t_max].map(f32::to_bits)
    }

    #[test]
    fn the_bench_rays_are_the_test_kits_bit_for_bit() {
        let boxes = [
            Aabb::new(Vec3::new(-0.09, 0.03, -0.06), Vec3::new(0.06, 0.19, 0.06)),
            Aabb::new(Vec3::splat(1e5), Vec3::new(1e5 + 3.0, 1e5 + 1.0, 1e5 + 0.5)),
            // A flat box, a point, an empty box and a non-finite one.
            Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0)),
            Aabb::new(Vec3::ONE, Vec3::ONE),
            Aabb::EMPTY,
            Aabb::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 1.0, 1.0)),
        ];
        for bounds in boxes {
            for seed in [crate::bench::INCOHERENT_SEED, 0, 7] {
                let ours = incoherent_rays(bounds, 500, seed);
                let kit = meshcast_testkit::incoherent_rays(bounds, 500, seed);
                assert_eq!(ours.len(), 500);
                assert_eq!(kit.len(), 500);
                for (a, b) in ours.iter().zip(&kit) {
                    assert_eq!(bits(a), bits(b), "{bounds:?}, seed {seed}");
                }
            }
        }
    }
}
