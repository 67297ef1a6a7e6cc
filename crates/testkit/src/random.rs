//! The seeded generator every test and bench uses, and the random directions, points and
//! transforms drawn from it.

use meshcast::glam::{Affine3A, Quat, Vec3};
use meshcast::Aabb;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The seeded generator every test uses.
pub fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// A uniformly random unit vector.
pub fn random_direction(rng: &mut Pcg64) -> Vec3 {
    let z: f32 = rng.gen_range(-1.0..=1.0);
    let azimuth: f32 = rng.gen_range(0.0..std::f32::consts::TAU);
    let ring = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(ring * azimuth.cos(), ring * azimuth.sin(), z)
}

/// A uniformly random point in a box.
pub fn random_point_in(rng: &mut Pcg64, bounds: Aabb) -> Vec3 {
    bounds.min + bounds.extent() * Vec3::from(rng.gen::<[f32; 3]>())
}

/// A random rigid-plus-scale transform: a rotation, a non-uniform scale (each factor in
/// `[0.2, 5]`, possibly negative to mirror) and a translation within `spread`.
pub fn random_transform(rng: &mut Pcg64, spread: f32) -> Affine3A {
    let axis = random_direction(rng);
    let angle = rng.gen_range(0.0..std::f32::consts::TAU);
    let mut scale = Vec3::from(std::array::from_fn::<f32, 3, _>(|_| {
        rng.gen_range(0.2..5.0)
    }));
    if rng.gen_bool(0.2) {
        scale.x = -scale.x;
    }
    let translation = (Vec3::from(rng.gen::<[f32; 3]>()) - 0.5) * 2.0 * spread;
    Affine3A::from_scale_rotation_translation(
        scale,
        Quat::from_axis_angle(axis, angle),
        translation,
    )
}
