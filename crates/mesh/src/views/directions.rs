//! Directions around a unit normal from two uniform numbers: cosine-weighted over the
//! hemisphere, or uniform over a cone.

use std::f64::consts::TAU;

use glam::{DVec3, Vec3};

/// A direction in the hemisphere around `+z` with density `cos θ / π`, from two numbers in
/// `[0, 1)`: a point uniform on the unit disk (`r = √u₁`, `φ = 2π u₂`) lifted straight up
/// onto the hemisphere (Malley's method; Pharr, Jakob, Humphreys, *Physically Based
/// Rendering*, 3rd ed., 2016, section 13.6.3).
pub(super) fn cosine_hemisphere(u1: f64, u2: f64) -> DVec3 {
    let r = u1.sqrt();
    let (sin, cos) = (TAU * u2).sin_cos();
    DVec3::new(r * cos, r * sin, (1.0 - u1).sqrt())
}

/// A direction uniform over the cone of directions within an angle of `+z` whose cosine is
/// `cos_max`, from two numbers in `[0, 1)`: `cos θ = 1 - u₁ (1 - cos_max)`, `φ = 2π u₂`
/// (uniform over the spherical cap; Pharr, Jakob, Humphreys, *Physically Based Rendering*,
/// 3rd ed., 2016, section 13.6.4).
pub(super) fn uniform_cone(u1: f64, u2: f64, cos_max: f64) -> DVec3 {
    let cos = 1.0 - u1 * (1.0 - cos_max);
    let sin = (1.0 - cos * cos).max(0.0).sqrt();
    let (sin_phi, cos_phi) = (TAU * u2).sin_cos();
    DVec3::new(sin * cos_phi, sin * sin_phi, cos)
}

/// `local`, whose `z` runs along the unit `normal`, in world space: the frame of Duff et
/// al., *Building an Orthonormal Basis, Revisited* (JCGT 2017; glam's
/// `any_orthonormal_pair`), continuous but where `normal.z` changes sign.
pub(super) fn around(normal: Vec3, local: DVec3) -> Vec3 {
    let (x, y) = normal.any_orthonormal_pair();
    let local = local.as_vec3();
    x * local.x + y * local.y + normal * local.z
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of a 64 x 64 grid of cell centres in the unit square.
    fn grid() -> impl Iterator<Item = (f64, f64)> {
        (0..64 * 64).map(|i| {
            (
                ((i / 64) as f64 + 0.5) / 64.0,
                ((i % 64) as f64 + 0.5) / 64.0,
            )
        })
    }

    #[test]
    fn hemisphere_directions_are_unit_and_cosine_weighted() {
        let n = 64.0 * 64.0;
        let mut mean_cos = 0.0;
        for (u1, u2) in grid() {
            let d = cosine_hemisphere(u1, u2);
            assert!((d.length() - 1.0).abs() < 1e-12 && d.z > 0.0);
            mean_cos += d.z / n;
        }
        // E[cos θ] under the density cos θ / π is 2/3.
        assert!((mean_cos - 2.0 / 3.0).abs() < 1e-3, "{mean_cos}");
    }

    #[test]
    fn cone_directions_stay_within_the_angle_and_cover_it_by_solid_angle() {
        let cos_max = 0.5_f64;
        let mut mean_cos = 0.0;
        for (u1, u2) in grid() {
            let d = uniform_cone(u1, u2, cos_max);
            assert!((d.length() - 1.0).abs() < 1e-12 && d.z >= cos_max);
            mean_cos += d.z / (64.0 * 64.0);
        }
        // Uniform over the cap: cos θ is uniform on [cos_max, 1].
        assert!((mean_cos - 0.75).abs() < 1e-3, "{mean_cos}");
        assert_eq!(uniform_cone(0.3, 0.7, 1.0), DVec3::Z);
    }

    #[test]
    fn local_z_lands_on_the_normal_in_every_octant() {
        for normal in [
            Vec3::Z,
            Vec3::NEG_Z,
            Vec3::new(-0.6, 0.0, -0.8),
            Vec3::new(0.0, 0.8, 0.6),
        ] {
            assert!(around(normal, DVec3::Z).distance(normal) < 1e-6);
            let side = around(normal, DVec3::new(0.6, 0.0, 0.8));
            assert!((side.dot(normal) - 0.8).abs() < 1e-6 && (side.length() - 1.0).abs() < 1e-6);
        }
    }
}
