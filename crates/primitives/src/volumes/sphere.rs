//! The sphere and its geometric ray test.

use glam::Vec3;

use crate::rays::{Aabb, Ray};
use crate::triangles::Hit;

/// A sphere with centre `center` and radius `radius`.
///
/// A sphere whose centre or radius is not finite, or whose radius is not positive, is
/// degenerate ([`Sphere::is_degenerate`]): no ray hits it.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Ray, Sphere};
///
/// let ball = Sphere::new(Vec3::ZERO, 2.0);
/// let outside = Ray::new(Vec3::new(0.0, 0.0, 5.0), Vec3::NEG_Z);
/// assert_eq!(ball.intersect(&outside).ok_or("miss")?.t, 3.0);
/// // From the centre the near root is behind the origin: the far one is the hit.
/// let inside = Ray::new(Vec3::ZERO, Vec3::new(0.0, 0.5, 0.0));
/// assert_eq!(ball.intersect(&inside).ok_or("miss")?.t, 4.0);
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// The centre.
    pub center: Vec3,
    /// The radius.
    pub radius: f32,
}

impl Sphere {
    /// The sphere with this centre and radius.
    #[inline]
    pub const fn new(center: Vec3, radius: f32) -> Self {
        Self { center, radius }
    }

    /// Whether no ray can hit the sphere: the centre or radius is not finite, or the radius
    /// is zero, negative or NaN.
    #[inline]
    pub fn is_degenerate(&self) -> bool {
        !(self.center.is_finite() && self.radius.is_finite() && self.radius > 0.0)
    }

    /// The bounding box (meaningless for a degenerate sphere).
    #[inline]
    pub fn bounds(&self) -> Aabb {
        Aabb::new(self.center - self.radius, self.center + self.radius)
    }

    /// The outward unit normal at `point` of the surface (`(point - center) / radius`).
    #[inline]
    pub fn normal_at(&self, point: Vec3) -> Vec3 {
        (point - self.center) / self.radius
    }

    /// The nearest point where the ray enters or leaves the sphere with `t` inside the ray's
    /// inclusive range `[t_min, t_max]`; `u` and `v` of the hit are 0 (a sphere has no
    /// barycentrics: use [`Ray::at`] and [`Sphere::normal_at`]).
    ///
    /// Of the two roots `t0 <= t1`, `t0` is returned if it is in range, else `t1`: from an
    /// origin inside the sphere `t0 < 0`, so the exit point is the hit. A tangent ray hits
    /// where it touches. Returns `None` when the ray misses, both roots are out of range, or
    /// the ray ([`Ray::is_valid`]) or the sphere ([`Sphere::is_degenerate`]) is degenerate.
    ///
    /// The geometric solution: the squared distance from the centre to the ray's line is
    /// computed as the length of a vector, not as the difference `|f|² - (f · d)² / |d|²`,
    /// and the roots as `c / q` and `q / a` to avoid cancellation, following Haines,
    /// Günther and Akenine-Möller, *Precision Improvements for Ray/Sphere Intersection*
    /// (Ray Tracing Gems, 2019).
    #[inline]
    pub fn intersect(&self, ray: &Ray) -> Option<Hit> {
        if !ray.is_valid() || self.is_degenerate() {
            return None;
        }
        let d = ray.dir;
        let f = ray.origin - self.center;
        let a = d.dot(d);
        // b / a is the t of the point of the line closest to the centre.
        let b = -f.dot(d);
        let closest = f + d * (b / a);
        let r2 = self.radius * self.radius;
        let discriminant = r2 - closest.dot(closest);
        // Negative: the line passes outside. NaN: overflow.
        if discriminant.is_nan() || discriminant < 0.0 {
            return None;
        }
        let q = b + (a * discriminant).sqrt().copysign(b);
        let c = f.dot(f) - r2;
        let far_or_near = q / a;
        // q == 0 only for a tangent line touching at the origin: a double root t = 0.
        let other = if q != 0.0 { c / q } else { far_or_near };
        let (t0, t1) = (far_or_near.min(other), far_or_near.max(other));
        [t0, t1]
            .into_iter()
            .find(|&t| t.is_finite() && ray.contains_t(t))
            .map(|t| Hit::new(t, 0.0, 0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ball() -> Sphere {
        Sphere::new(Vec3::new(1.0, 2.0, 3.0), 2.0)
    }

    #[test]
    fn outside_origin_hits_the_near_side() {
        let ball = ball();
        let ray = Ray::new(Vec3::new(1.0, 2.0, -7.0), Vec3::new(0.0, 0.0, 4.0));
        let hit = ball.intersect(&ray).expect("hit");
        assert!((hit.t - 2.0).abs() < 1e-6);
        assert!(ball.normal_at(ray.at(hit.t)).distance(Vec3::NEG_Z) < 1e-6);
    }

    #[test]
    fn inside_origin_hits_the_far_side() {
        let ball = ball();
        for dir in [Vec3::X, Vec3::NEG_Y, Vec3::new(1.0, 1.0, 1.0)] {
            let origin = ball.center + Vec3::new(0.5, -0.25, 0.125);
            let ray = Ray::new(origin, dir);
            let hit = ball.intersect(&ray).expect("the exit");
            assert!(hit.t > 0.0);
            let point = ray.at(hit.t);
            assert!((point.distance(ball.center) - ball.radius).abs() < 1e-5);
            assert!(
                ball.normal_at(point).dot(dir) > 0.0,
                "leaving, not entering"
            );
        }
    }

    #[test]
    fn range_selects_the_root() {
        let ball = Sphere::new(Vec3::ZERO, 1.0);
        let ray = Ray::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::X);
        let t = |r: Ray| ball.intersect(&r).map(|h| h.t);
        assert_eq!(t(ray), Some(2.0));
        assert_eq!(t(ray.with_range(2.0, 2.0)), Some(2.0));
        assert_eq!(t(ray.with_range(2.5, 10.0)), Some(4.0));
        assert_eq!(t(ray.with_range(4.0, 10.0)), Some(4.0));
        assert_eq!(t(ray.with_range(4.001, 10.0)), None);
        assert_eq!(t(ray.with_range(0.0, 1.999)), None);
        assert_eq!(t(ray.with_range(2.1, 3.9)), None);
        let away = Ray::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::NEG_X);
        assert_eq!(t(away), None);
    }

    #[test]
    fn tangent_and_passing_rays() {
        let ball = Sphere::new(Vec3::ZERO, 1.0);
        let tangent = Ray::new(Vec3::new(-3.0, 1.0, 0.0), Vec3::X);
        let hit = ball.intersect(&tangent).expect("touches");
        assert!((hit.t - 3.0).abs() < 1e-3);
        let passing = Ray::new(Vec3::new(-3.0, 1.001, 0.0), Vec3::X);
        assert_eq!(ball.intersect(&passing), None);
    }

    #[test]
    fn far_small_sphere_keeps_its_precision() {
        // The naive discriminant (f·d)² - |d|²(|f|² - r²) cancels catastrophically here.
        let ball = Sphere::new(Vec3::new(0.0, 0.0, 1e4), 0.01);
        let ray = Ray::new(Vec3::ZERO, Vec3::new(0.005, 0.0, 1e4));
        let hit = ball.intersect(&ray).expect("hit");
        let point = ray.at(hit.t);
        assert!((point.distance(ball.center) - ball.radius).abs() < 2e-3);
        assert!(point.z < ball.center.z, "the near side");
    }

    #[test]
    fn degenerate_spheres_and_rays_miss() {
        let ray = Ray::new(Vec3::new(0.0, 0.0, -5.0), Vec3::Z);
        for sphere in [
            Sphere::new(Vec3::ZERO, 0.0),
            Sphere::new(Vec3::ZERO, -1.0),
            Sphere::new(Vec3::ZERO, f32::NAN),
            Sphere::new(Vec3::ZERO, f32::INFINITY),
            Sphere::new(Vec3::new(f32::NAN, 0.0, 0.0), 1.0),
        ] {
            assert!(sphere.is_degenerate());
            assert_eq!(sphere.intersect(&ray), None, "{sphere:?}");
        }
        let ball = Sphere::new(Vec3::ZERO, 1.0);
        for bad in [
            Ray::new(Vec3::new(0.0, 0.0, f32::NAN), Vec3::Z),
            Ray::new(Vec3::new(0.0, 0.0, -5.0), Vec3::ZERO),
            Ray::new(
                Vec3::new(0.0, 0.0, -5.0),
                Vec3::new(0.0, 0.0, f32::INFINITY),
            ),
            ray.with_range(f32::NAN, 10.0),
        ] {
            assert_eq!(ball.intersect(&bad), None, "{bad:?}");
        }
        // |dir|² overflows: a miss or a finite hit, never an infinite or NaN one.
        let huge = Ray::new(Vec3::new(0.0, 0.0, -5.0), Vec3::new(0.0, 0.0, 1e30));
        if let Some(hit) = ball.intersect(&huge) {
            assert!(hit.t.is_finite());
        }
    }
}
