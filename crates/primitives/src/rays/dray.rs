//! The double-precision ray ([`DRay`]) and its carriage into a frame of `f32` coordinates
//! ([`DRay::carry`]): how a ray given far from the origin keeps its precision.

use glam::{DVec3, Vec3};

use crate::rays::{Aabb, Ray};

/// How far from the world's origin, in lengths of its diagonal, a box may lie and keep its
/// `f32` coordinates in the world's frame ([`crate::DRay::carry`] and the meshes' frames):
/// there, rounding to `f32` costs at most `2^-24 * 64`, about `4e-6`, of the box's size.
pub const FAR_SIZES: f64 = 64.0;

/// A ray `origin + t * dir` in `f64` world coordinates, for `t` in `[t_min, t_max]`: the ray
/// of geometry that lies far from the origin (surveying, GIS, CAD, planetary coordinates),
/// where an `f32` coordinate would lose the ray's position at centimetre or metre scale.
///
/// Queries carry it into a mesh's own frame ([`DRay::carry`]) before rounding to `f32`, so
/// that only the rounding of coordinates relative to the mesh is left, and give `t` back in
/// units of `dir`, as [`Ray`] does. Degenerate rays (NaN or infinite components, a zero
/// direction, an empty range) miss.
///
/// # Examples
/// ```
/// use glam::{DVec3, Vec3};
/// use meshcast_primitives::{Aabb, DRay};
///
/// let ray = DRay::new(DVec3::new(500_123.37, 5_000_456.71, 100.0), DVec3::NEG_Z);
/// assert_eq!(ray.at(40.0), DVec3::new(500_123.37, 5_000_456.71, 60.0));
/// // Carried into a frame at the position of the ray's origin, around a unit box there, the
/// // f32 ray starts at zero.
/// let unit = Aabb::new(-Vec3::ONE, Vec3::ONE);
/// let (local, shift) = ray.carry(DVec3::new(500_123.37, 5_000_456.71, 100.0), &unit);
/// assert_eq!((local.origin, shift), (Vec3::ZERO, 0.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DRay {
    /// Where the ray starts (`t = 0`).
    pub origin: DVec3,
    /// The direction; its length is the unit of `t`.
    pub dir: DVec3,
    /// The smallest accepted distance (inclusive).
    pub t_min: f64,
    /// The largest accepted distance (inclusive).
    pub t_max: f64,
}

impl DRay {
    /// A ray accepting every `t` in `(0, +inf)`: the origin itself is excluded, as
    /// [`Ray::new`]'s range excludes it.
    #[inline]
    pub const fn new(origin: DVec3, dir: DVec3) -> Self {
        Self {
            origin,
            dir,
            // The smallest positive `f64`, as `T_MIN_POSITIVE` is the smallest `f32`.
            t_min: 5e-324,
            t_max: f64::INFINITY,
        }
    }

    /// The same ray with the accepted range set to `[t_min, t_max]`.
    #[inline]
    #[must_use]
    pub const fn with_range(self, t_min: f64, t_max: f64) -> Self {
        Self {
            t_min,
            t_max,
            ..self
        }
    }

    /// The point at distance `t` (in units of `dir`).
    #[inline]
    pub fn at(&self, t: f64) -> DVec3 {
        self.origin + self.dir * t
    }

    /// The ray in a frame whose origin lies at `origin` in world coordinates, rounded to
    /// `f32`, with the `shift` to add to the carried ray's `t` to get this ray's.
    ///
    /// The carried ray is `(self.origin - origin + shift * dir, dir)` over `[t_min - shift,
    /// t_max - shift]`, each computed in `f64` and rounded once: the coordinates to the
    /// nearest `f32`, the range inwards (the smallest `f32` at least `t_min - shift`, the
    /// largest at most `t_max - shift`), so that the carried ray accepts no `t` the ray does
    /// not and the default range still excludes the origin. The shift is zero unless the
    /// ray starts farther from the centre of `bounds` (the frame's geometry, in frame
    /// coordinates) than [`FAR_SIZES`] times the box's diagonal: it then moves the origin
    /// along the ray to the point of the range nearest that centre, so that the `f32` origin is rounded at the geometry's scale rather than at
    /// the distance the ray has to travel. A ray from a satellite keeps the precision of one
    /// from a metre away. The same `t` measures both rays, whose direction is the same.
    ///
    /// A degenerate ray carries to a degenerate one (its NaN or infinite components stay so),
    /// so queries miss it.
    #[inline]
    pub fn carry(&self, origin: DVec3, bounds: &Aabb) -> (Ray, f64) {
        DFrame::new(origin, bounds).carry(self)
    }

    /// Whether `t` lies in the accepted range (false for NaN).
    #[inline]
    pub fn contains_t(&self, t: f64) -> bool {
        t >= self.t_min && t <= self.t_max
    }

    /// Whether any query can hit: finite origin and direction, a non-zero direction, and a
    /// range `t_min <= t_max` with no NaN, as [`Ray::is_valid`] asks.
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.origin.is_finite()
            && self.dir.is_finite()
            && self.dir != DVec3::ZERO
            && self.t_min <= self.t_max
            && self.t_min < f64::INFINITY
            && self.t_max > f64::NEG_INFINITY
    }
}

/// A frame of `f32` coordinates in the `f64` world: its origin, and the centre and reach of
/// the box of its geometry, which decide the rays [`DFrame::carry`] moves along themselves.
/// Made once for many rays ([`DRay::carry`] makes one per ray).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DFrame {
    origin: DVec3,
    /// The centre of the geometry's box, in frame coordinates (NaN for an empty box).
    centre: DVec3,
    /// The squared distance from the centre beyond which a ray moves along itself:
    /// [`FAR_SIZES`] times the box's diagonal, squared.
    reach_squared: f64,
}

impl DFrame {
    /// The frame whose origin lies at `origin` in the world, around the geometry of box
    /// `bounds` (in frame coordinates).
    #[inline]
    pub fn new(origin: DVec3, bounds: &Aabb) -> Self {
        let (min, max) = (bounds.min.as_dvec3(), bounds.max.as_dvec3());
        Self {
            origin,
            centre: (min + max) * 0.5,
            // Squared, so that no square root waits.
            reach_squared: FAR_SIZES * FAR_SIZES * (max - min).length_squared(),
        }
    }

    /// Where the frame's origin lies in the world.
    #[inline]
    pub fn origin(&self) -> DVec3 {
        self.origin
    }

    /// `ray` carried into this frame, with the shift to add to the carried ray's `t`: see
    /// [`DRay::carry`].
    #[inline]
    pub fn carry(&self, ray: &DRay) -> (Ray, f64) {
        let local = ray.origin - self.origin;
        // Never for an empty box, whose centre is NaN.
        let shift = if (local - self.centre).length_squared() > self.reach_squared {
            let nearest = (self.centre - local).dot(ray.dir) / ray.dir.length_squared();
            // NaN (a zero or degenerate direction) is left at the range's start by `max`.
            nearest.max(ray.t_min).min(ray.t_max)
        } else {
            0.0
        };
        if shift == 0.0 || !shift.is_finite() {
            // Most rays start near the geometry: nothing to move (and `local + dir * 0` is
            // `local`, its range the ray's own): 24 of the 922 instructions of a carried
            // closest hit on the bunny.
            let carried = Ray {
                origin: local.as_vec3(),
                dir: ray.dir.as_vec3(),
                t_min: f32_at_least(ray.t_min),
                t_max: f32_at_most(ray.t_max),
            };
            return (carried, 0.0);
        }
        let carried = Ray {
            origin: (local + ray.dir * shift).as_vec3(),
            dir: ray.dir.as_vec3(),
            t_min: f32_at_least(ray.t_min - shift),
            t_max: f32_at_most(ray.t_max - shift),
        };
        (carried, shift)
    }
}

impl From<Ray> for DRay {
    /// The same ray in `f64` (exact).
    fn from(ray: Ray) -> Self {
        Self {
            origin: ray.origin.as_dvec3(),
            dir: ray.dir.as_dvec3(),
            t_min: f64::from(ray.t_min),
            t_max: f64::from(ray.t_max),
        }
    }
}

/// The smallest `f32` at least `x` (NaN for NaN).
#[inline]
pub fn f32_at_least(x: f64) -> f32 {
    let near = x as f32;
    if f64::from(near) >= x {
        near
    } else {
        near.next_up()
    }
}

/// The largest `f32` at most `x` (NaN for NaN).
#[inline]
pub fn f32_at_most(x: f64) -> f32 {
    let near = x as f32;
    if f64::from(near) <= x {
        near
    } else {
        near.next_down()
    }
}

/// A point in `f64` carried into a frame whose origin lies at `origin`, rounded once.
#[inline]
pub fn carry_point(point: DVec3, origin: DVec3) -> Vec3 {
    (point - origin).as_vec3()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The box of the frames in these tests: a cube of side 2 around the origin.
    const UNIT: Aabb = Aabb::new(Vec3::NEG_ONE, Vec3::ONE);

    #[test]
    fn a_ray_near_the_frame_is_carried_without_a_shift() {
        // Coordinates of few bits, so that the sum and the difference are exact in f64.
        let origin = DVec3::new(500_123.5, 5_000_456.75, 100.0);
        let ray = DRay::new(origin + DVec3::new(0.25, 0.5, 5.0), DVec3::NEG_Z);
        let (local, shift) = ray.carry(origin, &Aabb::new(Vec3::splat(-3.0), Vec3::splat(3.0)));
        assert_eq!(shift, 0.0);
        assert_eq!(local.origin, Vec3::new(0.25, 0.5, 5.0));
        assert_eq!(local.dir, Vec3::NEG_Z);
        assert_eq!(local.t_max, f32::INFINITY);
    }

    #[test]
    fn a_ray_from_far_away_starts_near_the_frame() {
        // 10 000 km up, looking down at a frame of radius 1 around its origin.
        let ray = DRay::new(DVec3::new(0.1, 0.2, 1e7), DVec3::NEG_Z);
        let (local, shift) = ray.carry(DVec3::ZERO, &UNIT);
        assert_eq!(shift, 1e7);
        assert_eq!(local.origin, Vec3::new(0.1, 0.2, 0.0));
        assert_eq!(f64::from(local.t_min), -1e7);
        // A ray whose range ends before the nearest point stops at its end.
        let short = ray.with_range(0.0, 5e6);
        assert_eq!(short.carry(DVec3::ZERO, &UNIT).1, 5e6);
        // One pointing away stays where it starts.
        let away = DRay::new(DVec3::new(0.0, 0.0, 1e7), DVec3::Z).with_range(0.0, f64::INFINITY);
        assert_eq!(away.carry(DVec3::ZERO, &UNIT).1, 0.0);
    }

    #[test]
    fn the_range_is_rounded_inwards() {
        let ray = DRay::new(DVec3::ZERO, DVec3::X);
        let (local, _) = ray.carry(DVec3::ZERO, &UNIT);
        assert_eq!(
            (local.t_min, local.t_max),
            (crate::T_MIN_POSITIVE, f32::INFINITY)
        );
        let (local, _) = ray.with_range(0.1, 0.3).carry(DVec3::ZERO, &UNIT);
        assert!(f64::from(local.t_min) >= 0.1 && f64::from(local.t_min.next_down()) < 0.1);
        assert!(f64::from(local.t_max) <= 0.3 && f64::from(local.t_max.next_up()) > 0.3);
        assert_eq!(f32_at_least(1.0), 1.0);
        assert_eq!(f32_at_most(1e300), f32::MAX);
        assert_eq!(f32_at_least(-1e300), f32::MIN);
        assert!(f32_at_least(f64::NAN).is_nan());
    }

    #[test]
    fn a_degenerate_ray_stays_degenerate() {
        for ray in [
            DRay::new(DVec3::new(f64::NAN, 0.0, 1e7), DVec3::NEG_Z),
            DRay::new(DVec3::new(0.0, 0.0, 1e7), DVec3::ZERO),
            DRay::new(
                DVec3::new(0.0, 0.0, 1e7),
                DVec3::new(0.0, f64::INFINITY, -1.0),
            ),
            DRay::new(DVec3::new(0.0, 0.0, 1e7), DVec3::NEG_Z).with_range(2.0, 1.0),
        ] {
            assert!(!ray.is_valid());
            assert!(!ray.carry(DVec3::ZERO, &UNIT).0.is_valid(), "{ray:?}");
        }
        assert!(DRay::new(DVec3::ZERO, DVec3::X).is_valid());
    }
}
