//! The colours of `meshcast render`: a clay look lit by a key light with shadow rays, a
//! headlight fill and ambient occlusion, plus the depth and normal views.
//!
//! Every visibility question is the library's `occluded` (any hit); this module only turns
//! answers into colours.

use glam::Vec3;
use meshcast::{Camera, Ray, SurfacePoint};

use crate::target::Target;

/// Ambient occlusion rays per pixel.
pub const AO_SAMPLES: u32 = 12;

/// How far ambient occlusion looks, relative to the mesh's bounding-box diagonal.
const AO_RADIUS: f32 = 0.12;

/// How far secondary rays start off the surface, relative to the bounding-box diagonal, so
/// they do not hit the triangle they leave.
const SURFACE_OFFSET: f32 = 1e-5;

/// The surface colour (linear RGB): a warm clay.
const ALBEDO: Vec3 = Vec3::new(0.78, 0.56, 0.42);

/// The key light's colour and strength (linear RGB): warm sunlight.
const KEY_COLOUR: Vec3 = Vec3::new(0.85, 0.78, 0.68);

/// The ambient light's colour and strength (linear RGB): a cool sky.
const SKY_COLOUR: Vec3 = Vec3::new(0.55, 0.62, 0.75);

/// Shades hits of one camera on one mesh or scene.
pub struct Shading<'a, T> {
    mesh: &'a T,
    /// Unit direction towards the key light.
    key_light: Vec3,
    ao_radius: f32,
    offset: f32,
}

/// A shaded pixel's colour and how many secondary rays it took.
pub struct Shade {
    pub colour: Vec3,
    pub secondary_rays: u32,
}

impl<'a, T: Target> Shading<'a, T> {
    /// Shading for `mesh` seen by `camera`: the key light sits above and to the left of the
    /// camera, so shadows fall right and down and show the shape.
    pub fn new(mesh: &'a T, camera: &Camera) -> Self {
        // Compute the smooth normals now, once, rather than inside the first pixel while the
        // other threads wait for them.
        mesh.prepare_normals();
        let forward = camera.forward();
        let right = forward.cross(camera.up).normalize_or_zero();
        let up = right.cross(forward);
        let key_light = (-forward * 0.5 + up * 1.0 - right * 1.2).normalize_or(Vec3::Y);
        let bounds = mesh.bounds();
        let diagonal = if bounds.is_empty() {
            1.0
        } else {
            bounds.extent().length().max(f32::MIN_POSITIVE)
        };
        Self {
            mesh,
            key_light,
            ao_radius: AO_RADIUS * diagonal,
            offset: SURFACE_OFFSET * diagonal,
        }
    }

    /// The unit shading normal at a hit ([`SurfacePoint::shading_normal`]: the mesh's normals
    /// interpolated, from the file or smooth), turned to face the ray.
    pub fn facing_normal(&self, ray: &Ray, surface: &SurfacePoint) -> Vec3 {
        let geometric = surface.geometric_normal;
        let sign = if geometric.dot(ray.dir) > 0.0 {
            -1.0
        } else {
            1.0
        };
        let facing = geometric * sign;
        // A smooth normal is kept only on the side of the face the ray sees.
        let smooth = surface.shading_normal * sign;
        if smooth.dot(facing) > 0.0 {
            smooth
        } else {
            facing
        }
    }

    /// The clay colour of a hit (linear RGB), with a shadow ray towards the key light and
    /// [`AO_SAMPLES`] ambient occlusion rays, decorrelated between pixels by `pixel`; black
    /// for a hit that is not of this mesh.
    pub fn shade(&self, ray: &Ray, hit: &T::Hit, pixel: u32) -> Shade {
        let Some(surface) = self.mesh.surface(hit) else {
            return Shade {
                colour: Vec3::ZERO,
                secondary_rays: 0,
            };
        };
        let normal = self.facing_normal(ray, &surface);
        let origin = surface.point + normal * self.offset;

        let key = normal.dot(self.key_light).max(0.0);
        let lit = if key > 0.0 && !self.mesh.occluded(&Ray::new(origin, self.key_light)) {
            key
        } else {
            0.0
        };
        let headlight = normal.dot(-ray.dir).max(0.0);

        let (tangent, bitangent) = normal.any_orthonormal_pair();
        let rotation = hash_unit(pixel);
        let rotation2 = hash_unit(pixel ^ 0x9e37_79b9);
        let mut open = 0;
        for i in 0..AO_SAMPLES {
            // Cosine-weighted directions from a rotated Hammersley set.
            let u = ((i as f32 + 0.5) / AO_SAMPLES as f32 + rotation).fract();
            let v = (radical_inverse(i) + rotation2).fract();
            let radius = u.sqrt();
            let angle = core::f32::consts::TAU * v;
            let dir = tangent * (radius * angle.cos())
                + bitangent * (radius * angle.sin())
                + normal * (1.0 - u).max(0.0).sqrt();
            let probe = Ray::new(origin, dir).with_range(0.0, self.ao_radius);
            if !self.mesh.occluded(&probe) {
                open += 1;
            }
        }
        let ambient = open as f32 / AO_SAMPLES as f32;
        let light = KEY_COLOUR * lit + SKY_COLOUR * (ambient * (0.15 + 0.35 * headlight));
        Shade {
            colour: ALBEDO * light,
            secondary_rays: AO_SAMPLES + u32::from(key > 0.0),
        }
    }
}

/// The background (linear RGB): a soft vertical gradient, `row_fraction` 0 at the top.
pub fn background(row_fraction: f32) -> Vec3 {
    let top = Vec3::new(0.52, 0.60, 0.70);
    let bottom = Vec3::new(0.92, 0.92, 0.90);
    top.lerp(bottom, row_fraction.clamp(0.0, 1.0))
}

/// A normal as a colour: each component mapped from `[-1, 1]` to `[0, 1]`.
pub fn normal_colour(normal: Vec3) -> Vec3 {
    normal * 0.5 + 0.5
}

/// The base-2 radical inverse of `i` (van der Corput), in `[0, 1)`.
fn radical_inverse(i: u32) -> f32 {
    i.reverse_bits() as f32 * (1.0 / 4_294_967_296.0)
}

/// A well-mixed pseudo-random number in `[0, 1)` from an integer (a PCG output hash), so
/// neighbouring pixels get unrelated sample rotations and no banding appears.
fn hash_unit(value: u32) -> f32 {
    let state = value.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    let mixed = (word >> 22) ^ word;
    (mixed >> 8) as f32 * (1.0 / 16_777_216.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_sequences_stay_in_the_unit_interval() {
        for i in 0..1000 {
            let h = hash_unit(i);
            assert!((0.0..1.0).contains(&h));
            assert!((0.0..1.0).contains(&radical_inverse(i)));
        }
        assert_eq!(radical_inverse(1), 0.5);
        assert_eq!(radical_inverse(2), 0.25);
        assert_ne!(hash_unit(1), hash_unit(2));
    }

    #[test]
    fn colours_of_the_extremes() {
        assert_eq!(normal_colour(Vec3::X), Vec3::new(1.0, 0.5, 0.5));
        assert_eq!(background(0.0), Vec3::new(0.52, 0.60, 0.70));
        assert_eq!(background(5.0), background(1.0));
    }
}
