//! The colours of `meshcast render`: a clay look lit by a key light with shadow rays, a
//! headlight fill and ambient occlusion, plus the depth and normal views.
//!
//! Every visibility question is an any-hit query the caller asks the library (in batches,
//! `occluded_batch`); this module makes the rays and turns the answers into colours.

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

    /// Where `ray` met the surface at `hit`, as shading needs it; `None` for a hit that is
    /// not of this mesh.
    pub fn point(&self, ray: &Ray, hit: &T::Hit) -> Option<ShadingPoint> {
        let surface = self.mesh.surface(hit)?;
        let normal = self.facing_normal(ray, &surface);
        Some(ShadingPoint {
            normal,
            origin: surface.point + normal * self.offset,
            key: normal.dot(self.key_light).max(0.0),
            headlight: normal.dot(-ray.dir).max(0.0),
        })
    }

    /// The shadow ray from `point` towards the key light, or `None` where the light is behind
    /// the surface and leaves it dark whatever lies in between.
    pub fn shadow_ray(&self, point: &ShadingPoint) -> Option<Ray> {
        point
            .faces_key_light()
            .then(|| Ray::new(point.origin, self.key_light))
    }

    /// The [`AO_SAMPLES`] ambient occlusion rays of `point`: cosine-weighted directions
    /// around its normal, as long as the occlusion radius, rotated by `pixel` so that
    /// neighbouring pixels sample differently.
    pub fn occlusion_rays(&self, point: &ShadingPoint, pixel: u32) -> impl Iterator<Item = Ray> {
        let (normal, origin, ao_radius) = (point.normal, point.origin, self.ao_radius);
        let (tangent, bitangent) = normal.any_orthonormal_pair();
        let rotation = hash_unit(pixel);
        let rotation2 = hash_unit(pixel ^ 0x9e37_79b9);
        (0..AO_SAMPLES).map(move |i| {
            // Cosine-weighted directions from a rotated Hammersley set.
            let u = ((i as f32 + 0.5) / AO_SAMPLES as f32 + rotation).fract();
            let v = (radical_inverse(i) + rotation2).fract();
            let radius = u.sqrt();
            let angle = core::f32::consts::TAU * v;
            let dir = tangent * (radius * angle.cos())
                + bitangent * (radius * angle.sin())
                + normal * (1.0 - u).max(0.0).sqrt();
            Ray::new(origin, dir).with_range(0.0, ao_radius)
        })
    }

    /// The clay colour (linear RGB) of `point`, given whether its shadow ray reached the key
    /// light (`false` where it has none) and how many of its occlusion rays hit nothing.
    pub fn colour(&self, point: &ShadingPoint, key_light_visible: bool, open: u32) -> Vec3 {
        let lit = if key_light_visible { point.key } else { 0.0 };
        let ambient = open as f32 / AO_SAMPLES as f32;
        let light = KEY_COLOUR * lit + SKY_COLOUR * (ambient * (0.15 + 0.35 * point.headlight));
        ALBEDO * light
    }
}

/// A camera ray's hit as shading needs it: the normal, where secondary rays start and how
/// the lights fall.
pub struct ShadingPoint {
    /// The unit shading normal, facing the camera ray.
    normal: Vec3,
    /// Just off the surface on the camera's side, so secondary rays miss the triangle they
    /// leave.
    origin: Vec3,
    /// The cosine towards the key light, 0 where the light is behind the surface.
    key: f32,
    /// The cosine towards the eye.
    headlight: f32,
}

impl ShadingPoint {
    /// Whether the key light shines on the surface here (before shadows), so a shadow ray
    /// is worth tracing.
    pub fn faces_key_light(&self) -> bool {
        self.key > 0.0
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
