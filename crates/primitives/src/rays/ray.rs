//! The ray (and the segment, a ray whose range is `[0, 1]`).

use glam::Vec3;

/// The smallest positive `f32`: the default `t_min`, so that `t = 0` (the origin itself) is
/// excluded and every `t > 0` is accepted.
// `f32::from_bits(1)`, written as a literal because `from_bits` is `const` only since Rust 1.83.
pub const T_MIN_POSITIVE: f32 = 1e-45;

/// A ray `origin + t * dir` for `t` in the closed range `[t_min, t_max]`.
///
/// `dir` need not be unit length: `t` is measured in units of `dir`, so a hit at `t = 2` on a
/// ray with `|dir| = 3` lies 6 units from the origin. A ray whose origin or direction is not
/// finite, whose direction is zero, or whose range is NaN or empty is *degenerate*: every
/// query treats it as a miss (see [`Ray::is_valid`]).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::Ray;
///
/// let ray = Ray::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0)).with_range(0.0, 10.0);
/// assert_eq!(ray.at(1.5), Vec3::new(0.0, 0.0, 3.0));
/// assert!(ray.is_valid());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts (`t = 0`).
    pub origin: Vec3,
    /// The direction; its length is the unit of `t`.
    pub dir: Vec3,
    /// The smallest accepted distance (inclusive).
    pub t_min: f32,
    /// The largest accepted distance (inclusive).
    pub t_max: f32,
}

impl Ray {
    /// A ray accepting every `t` in `(0, +inf)`: the origin itself is excluded.
    #[inline]
    pub const fn new(origin: Vec3, dir: Vec3) -> Self {
        Self {
            origin,
            dir,
            t_min: T_MIN_POSITIVE,
            t_max: f32::INFINITY,
        }
    }

    /// The segment from `from` to `to`: a ray with `dir = to - from` and range `[0, 1]`, so
    /// `t` is the fraction of the way from `from` to `to`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_primitives::Ray;
    ///
    /// let seg = Ray::segment(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0));
    /// assert_eq!(seg.at(0.25), Vec3::new(1.0, 0.0, 0.0));
    /// assert_eq!((seg.t_min, seg.t_max), (0.0, 1.0));
    /// ```
    #[inline]
    pub fn segment(from: Vec3, to: Vec3) -> Self {
        Self {
            origin: from,
            dir: to - from,
            t_min: 0.0,
            t_max: 1.0,
        }
    }

    /// The same ray with the accepted range set to `[t_min, t_max]`.
    #[inline]
    #[must_use]
    pub const fn with_range(self, t_min: f32, t_max: f32) -> Self {
        Self {
            t_min,
            t_max,
            ..self
        }
    }

    /// The point at distance `t` (in units of `dir`).
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }

    /// The component-wise reciprocal of the direction; a `±0` component gives `±inf`, which the
    /// slab test in [`crate::Aabb`] handles.
    #[inline]
    pub fn inv_dir(&self) -> Vec3 {
        self.dir.recip()
    }

    /// Whether any query can hit: finite origin and direction, a non-zero direction, and a
    /// range `t_min <= t_max` with no NaN (infinite bounds are fine).
    #[inline]
    pub fn is_valid(&self) -> bool {
        let (o, d) = (self.origin, self.dir);
        // Four lanes at a time, without branches (every condition is cheap, and a batch
        // checks its rays faster without them): `x < inf` is false for an infinite or NaN
        // `x`, so one comparison checks the coordinates' magnitudes, `t_min < inf` and
        // `-t_max < inf` alike.
        let magnitudes = glam::Vec4::new(o.x, o.y, o.z, d.x).abs();
        let rest = glam::Vec4::new(d.y.abs(), d.z.abs(), self.t_min, -self.t_max);
        let below_infinity =
            (magnitudes.cmplt(glam::Vec4::INFINITY) & rest.cmplt(glam::Vec4::INFINITY)).all();
        // A sum of magnitudes is zero only if each is (and it cannot underflow to zero).
        let moving = d.x.abs() + d.y.abs() + d.z.abs() > 0.0;
        below_infinity & moving & (self.t_min <= self.t_max) // false when either is NaN
    }

    /// Whether `t` lies in the accepted range (false for NaN).
    #[inline]
    pub fn contains_t(&self, t: f32) -> bool {
        t >= self.t_min && t <= self.t_max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_range_excludes_origin_but_no_positive_t() {
        assert_eq!(T_MIN_POSITIVE.to_bits(), 1);
        let ray = Ray::new(Vec3::ZERO, Vec3::X);
        assert!(!ray.contains_t(0.0));
        assert!(!ray.contains_t(-0.0));
        assert!(ray.contains_t(f32::from_bits(1)));
        assert!(ray.contains_t(1e30));
        assert!(!ray.contains_t(f32::NAN));
    }

    #[test]
    fn degenerate_rays_are_invalid() {
        let ok = Ray::new(Vec3::ZERO, Vec3::X);
        assert!(ok.is_valid());
        assert!(!Ray::new(Vec3::ZERO, Vec3::ZERO).is_valid());
        assert!(!Ray::new(Vec3::NAN, Vec3::X).is_valid());
        assert!(!Ray::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0)).is_valid());
        assert!(!ok.with_range(f32::NAN, 1.0).is_valid());
        assert!(!ok.with_range(0.0, f32::NAN).is_valid());
        assert!(!ok.with_range(2.0, 1.0).is_valid());
        assert!(ok.with_range(1.0, 1.0).is_valid());
        assert!(!ok.with_range(f32::INFINITY, f32::INFINITY).is_valid());
    }
}
