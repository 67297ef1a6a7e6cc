//! The axis-aligned bounding box and its ray slab test.

use glam::{Vec3, Vec3A};

use crate::rays::Ray;

/// `gamma(3) = 3u / (1 - 3u)` with `u = 2^-24` (Pharr, Jakob, Humphreys, *Physically Based
/// Rendering*, 3rd ed., §3.9): the relative error bound of one slab distance `(plane - o) * inv`.
const GAMMA_3: f32 = 3.0 * (f32::EPSILON * 0.5) / (1.0 - 3.0 * (f32::EPSILON * 0.5));

/// How far the slab test widens the range it returns, relative to the ray's reach through the
/// box (its farthest distance along the ray's dominant axis; see [`slab_slack`]).
///
/// Ize (*Robust BVH Ray Traversal*, JCGT 2013) shows that widening the exit distance by
/// `2 * gamma(3)` makes the test conservative for the box itself. We widen both ends by more
/// (about 32 float steps) so that a triangle lying *on* a box face, whose own computed `t` is
/// a few steps off the exact one, is never culled: a BVH then finds exactly the hits that a
/// brute-force loop over the same triangle test finds, ties included. The widening is an
/// absolute amount, not one relative to each distance, because a triangle test's `t` carries
/// an error of the size of the corners' distances along the dominant axis (the watertight test
/// computes `t` as their weighted mean): relative widening culled a grazing ray that starts on
/// a flat mesh, hit at a computed `t = 2.4e-9` inside a box whose exact range is `[0, 0]`.
pub const SLAB_SLACK: f32 = 2.0 * GAMMA_3 + 32.0 * f32::EPSILON;

/// An axis-aligned box `[min, max]`, closed on every side.
///
/// The empty box has `min = +inf` and `max = -inf`, so that growing it by any point gives
/// that point's box; it contains nothing and no ray hits it.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Aabb, Ray};
///
/// let cube = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
/// let ray = Ray::new(Vec3::new(0.0, 0.0, -5.0), Vec3::Z);
/// let (entry, exit) = cube.intersect(&ray).ok_or("miss")?;
/// assert!((entry - 4.0).abs() < 1e-4 && (exit - 6.0).abs() < 1e-4);
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// The smallest corner.
    pub min: Vec3,
    /// The largest corner.
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The box that contains nothing; the identity of [`Aabb::union`].
    pub const EMPTY: Self = Self {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// The box with the given corners (not reordered: `min > max` on any axis is empty).
    #[inline]
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The smallest box containing every point ([`Aabb::EMPTY`] for none).
    pub fn from_points<I: IntoIterator<Item = Vec3>>(points: I) -> Self {
        points.into_iter().fold(Self::EMPTY, Self::grow)
    }

    /// The smallest box containing both boxes.
    #[inline]
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// The smallest box containing this box and `point`.
    #[inline]
    #[must_use]
    pub fn grow(self, point: Vec3) -> Self {
        Self::new(self.min.min(point), self.max.max(point))
    }

    /// Whether the box contains no point (some `min > max`, or a NaN corner).
    #[inline]
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// Whether both corners are finite (an empty box is not).
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// The box's centre. Meaningless for an empty box.
    #[inline]
    pub fn centroid(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// The size along each axis (`max - min`).
    #[inline]
    pub fn extent(&self) -> Vec3 {
        self.max - self.min
    }

    /// The axis (0, 1, 2 for x, y, z) along which the box is longest.
    #[inline]
    pub fn largest_axis(&self) -> usize {
        let e = self.extent();
        if e.x >= e.y && e.x >= e.z {
            0
        } else if e.y >= e.z {
            1
        } else {
            2
        }
    }

    /// The area of the box's surface; zero for an empty box. The cost measure of the SAH.
    #[inline]
    pub fn surface_area(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let e = self.extent();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// Whether `point` lies in the closed box.
    #[inline]
    pub fn contains(&self, point: Vec3) -> bool {
        self.min.cmple(point).all() && point.cmple(self.max).all()
    }

    /// Whether `other` lies entirely in this box (an empty `other` does).
    #[inline]
    pub fn contains_box(&self, other: &Self) -> bool {
        other.is_empty() || (self.contains(other.min) && self.contains(other.max))
    }

    /// The slab test: the range of `t` in which the ray is inside the box, clipped to the ray's
    /// own range, as `(entry, exit)`; `None` when the ray misses, is degenerate
    /// ([`Ray::is_valid`]), or the box is empty or not finite.
    ///
    /// Both distances are widened by [`SLAB_SLACK`] relative to their size, so the answer never
    /// misses a point of the box. Axis-parallel rays (direction components `+0.0` or `-0.0`)
    /// are handled, also when the origin lies exactly on a slab plane.
    #[inline]
    pub fn intersect(&self, ray: &Ray) -> Option<(f32, f32)> {
        if !ray.is_valid() || !self.is_finite() || self.is_empty() {
            return None;
        }
        let (inv_dir, slack) = slab_reciprocal(ray, self);
        let (entry, exit) = slab(
            self.min.into(),
            self.max.into(),
            ray.origin.into(),
            inv_dir.into(),
            slack,
            ray.t_min,
            ray.t_max,
        );
        (entry <= exit).then_some((entry, exit))
    }
}

/// The slab test (Kay and Kajiya 1986) on raw data, for traversal loops that keep the
/// reciprocal direction: returns `(entry, exit)`, and the ray hits the box iff `entry <= exit`.
///
/// Each axis gives the two plane distances `t0`, `t1`; the ray is inside that slab between
/// `min(t0, t1)` and `max(t0, t1)` (taking the min and the max of *both*, so the direction's
/// sign needs no branch). A direction component of `±0` has a reciprocal of `±inf`: the slab
/// distances are then `±inf`, which is right, except when the origin lies exactly on the plane,
/// where `0 * inf` is NaN. That ray runs inside the closed slab, so a NaN makes the axis
/// unconstrained. Both ends are then widened by the absolute `slack` (from [`slab_slack`]).
/// The inputs must be finite apart from `inv_dir`, and the box non-empty.
#[inline(always)]
pub fn slab(
    min: Vec3A,
    max: Vec3A,
    origin: Vec3A,
    inv_dir: Vec3A,
    slack: f32,
    t_min: f32,
    t_max: f32,
) -> (f32, f32) {
    let t0 = (min - origin) * inv_dir;
    let t1 = (max - origin) * inv_dir;
    let on_plane = t0.cmpne(t0) | t1.cmpne(t1);
    let near = Vec3A::select(on_plane, Vec3A::NEG_INFINITY, t0.min(t1));
    let far = Vec3A::select(on_plane, Vec3A::INFINITY, t0.max(t1));
    (
        (near.max_element() - slack).max(t_min),
        (far.min_element() + slack).min(t_max),
    )
}

/// The least widening of a slab test: `2^-126`, the smallest normal `f32`. A slab distance
/// below it is subnormal, and its product rounds by up to `2^-150` whatever its size, an
/// error no relative widening covers.
pub const SLACK_FLOOR: f32 = f32::MIN_POSITIVE;

/// The absolute widening [`slab`] needs for boxes inside `bounds`: [`SLAB_SLACK`] times the
/// farthest distance of `bounds` from the ray's origin along its dominant axis, in units of `t`,
/// at least [`SLACK_FLOOR`] and at most `f32::MAX`. A traversal computes it once per ray from
/// the root box, since every node lies inside it.
#[inline]
pub fn slab_slack(bounds: &Aabb, ray: &Ray) -> f32 {
    let axis = ray.dir.abs().max_position(); // the watertight test's dominant axis
    let reach = (bounds.min[axis] - ray.origin[axis])
        .abs()
        .max((bounds.max[axis] - ray.origin[axis]).abs());
    bounded_slack(reach / ray.dir[axis].abs() * SLAB_SLACK)
}

/// The reciprocal direction and widening [`slab`] takes for `ray` in a tree whose root box is
/// `bounds`: [`Ray::inv_dir`] and [`slab_slack`], made safe where a reciprocal overflows
/// ([`overflow_safe_reciprocal`]).
#[inline]
pub fn slab_reciprocal(ray: &Ray, bounds: &Aabb) -> (Vec3, f32) {
    let (inv_dir, slack) = (ray.inv_dir(), slab_slack(bounds, ray));
    if inv_dir.is_finite() {
        return (inv_dir, slack);
    }
    overflow_safe_reciprocal(ray.dir, inv_dir, slack)
}

/// `slack` raised by [`SLACK_FLOOR`] and kept finite: `slack + SLACK_FLOOR`, which is `slack`
/// itself wherever that is above `2^-101` (the floor is below its rounding), at most
/// `f32::MAX`; a NaN (no reach to measure) becomes `f32::MAX`. Added rather than taken as a
/// maximum, so that a set-up pays one instruction for it. Kept finite: an infinite slack (a
/// far origin, a tiny direction) would widen the empty lanes' inverted boxes (`+inf` to
/// `-inf`) of a wide node into `inf - inf`, a NaN that passes the test. The largest finite
/// slack still widens every real box past any finite `t`.
#[inline(always)]
pub fn bounded_slack(slack: f32) -> f32 {
    (slack + SLACK_FLOOR).min(f32::MAX)
}

/// The reciprocal direction and widening of a slab test made safe where a reciprocal
/// `1 / d` of a non-zero component overflows (`|d|` below about `2^-128`), from the plain
/// `inv_dir` and `slack`; both are returned unchanged for every other ray.
///
/// Such a ray is almost parallel to that axis's slabs, but not quite: it crosses a plane at
/// `(plane - o) / d`, a finite distance that `(plane - o) * inf` would put at infinity,
/// culling boxes it enters (a ray of direction `(0, 1.1e-44, 1)` missed a cube it meets at
/// `t = 2`). So an overflowing reciprocal becomes `±f32::MAX`, which puts every plane ahead
/// of the origin no farther than it is (`|1 / d| > f32::MAX`), so that no entry comes late,
/// and the widening becomes `f32::MAX`, which takes every exit past any finite `t`, so that
/// none comes early. A box is then missed only where some plane distance is infinite: an
/// empty lane's inverted box (`+inf` to `-inf`), or a box no finite `t` reaches. Such rays
/// walk the tree with little pruning: exact, and slow, as rays this short are nowhere in
/// practice. A zero component keeps its `±inf`, which is exact.
pub fn overflow_safe_reciprocal(dir: Vec3, inv_dir: Vec3, slack: f32) -> (Vec3, f32) {
    // `(1 / d) d` is about 1, NaN for a zero component and infinite exactly where `1 / d`
    // overflowed.
    let overflowed = (inv_dir * dir).cmpeq(Vec3::INFINITY);
    if !overflowed.any() {
        return (inv_dir, slack);
    }
    let largest = Vec3::splat(f32::MAX).copysign(dir);
    (Vec3::select(overflowed, largest, inv_dir), f32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_cube() -> Aabb {
        Aabb::new(Vec3::ZERO, Vec3::ONE)
    }

    #[test]
    fn empty_box_is_union_identity_and_never_hit() {
        let b = unit_cube();
        assert_eq!(Aabb::EMPTY.union(b), b);
        assert!(Aabb::EMPTY.is_empty());
        assert_eq!(Aabb::EMPTY.surface_area(), 0.0);
        assert!(!Aabb::EMPTY.contains(Vec3::ZERO));
        let ray = Ray::new(Vec3::splat(-1.0), Vec3::ONE);
        assert_eq!(Aabb::EMPTY.intersect(&ray), None);
    }

    #[test]
    fn from_points_grow_centroid_area() {
        let b = Aabb::from_points([Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 0.0, 4.0)]);
        assert_eq!(
            b,
            Aabb::new(Vec3::new(-1.0, 0.0, 3.0), Vec3::new(1.0, 2.0, 4.0))
        );
        assert_eq!(b.centroid(), Vec3::new(0.0, 1.0, 3.5));
        assert_eq!(b.surface_area(), 2.0 * (2.0 * 2.0 + 2.0 * 1.0 + 1.0 * 2.0));
        assert_eq!(b.largest_axis(), 0);
        assert!(b.contains(Vec3::new(1.0, 2.0, 4.0)));
        assert!(!b.contains(Vec3::new(1.0, 2.0, 4.0001)));
    }

    /// The worked example of the JavaFX picking write-up: a 10 x 12 x 4 box centred at the
    /// origin, a ray from (4, -7, -4) entering at (3.5, -4.5, -2) and leaving at (2.5, 0.5, 2).
    /// Those two points fix the direction as (-1, 5, 4) (the ray reaches (2, 3, 4) at t = 2).
    #[test]
    fn javafx_box_example_entry_and_exit() {
        let b = Aabb::new(Vec3::new(-5.0, -6.0, -2.0), Vec3::new(5.0, 6.0, 2.0));
        let ray = Ray::new(Vec3::new(4.0, -7.0, -4.0), Vec3::new(-1.0, 5.0, 4.0));
        let (entry, exit) = b.intersect(&ray).expect("the ray crosses the box");
        assert!(ray.at(entry).distance(Vec3::new(3.5, -4.5, -2.0)) < 1e-4);
        assert!(ray.at(exit).distance(Vec3::new(2.5, 0.5, 2.0)) < 1e-4);
    }

    /// A direction component of +0 or -0 with the origin exactly on that axis's slab plane:
    /// the `0 * inf = NaN` case. The ray runs along the box face and must hit.
    #[test]
    fn axis_parallel_ray_on_slab_plane_hits() {
        let b = unit_cube();
        for zero in [0.0f32, -0.0] {
            for plane in [0.0f32, 1.0] {
                let ray = Ray::new(Vec3::new(plane, 0.5, -1.0), Vec3::new(zero, zero, 1.0));
                let (entry, exit) = b.intersect(&ray).expect("ray along a face hits");
                assert!((entry - 1.0).abs() < 1e-5 && (exit - 2.0).abs() < 1e-5);
                let outside = Ray::new(Vec3::new(plane + 1.5, 0.5, -1.0), ray.dir);
                assert_eq!(b.intersect(&outside), None);
            }
        }
    }

    /// The classic article takes the min of the two slab distances twice; with a negative
    /// direction component that culls boxes the ray crosses.
    #[test]
    fn negative_direction_components_hit() {
        let b = unit_cube();
        let ray = Ray::new(Vec3::new(2.0, 2.0, 2.0), Vec3::new(-1.0, -1.0, -1.0));
        let (entry, exit) = b.intersect(&ray).expect("hit");
        assert!((entry - 1.0).abs() < 1e-5 && (exit - 2.0).abs() < 1e-5);
    }

    #[test]
    fn origin_inside_box_enters_at_t_min() {
        let ray = Ray::new(Vec3::splat(0.5), Vec3::X).with_range(0.0, 100.0);
        let (entry, exit) = unit_cube().intersect(&ray).expect("hit");
        assert_eq!(entry, 0.0);
        assert!((exit - 0.5).abs() < 1e-5);
    }

    #[test]
    fn range_clips_the_box() {
        let ray = Ray::new(Vec3::new(-2.0, 0.5, 0.5), Vec3::X);
        assert!(unit_cube().intersect(&ray.with_range(0.0, 1.9)).is_none());
        assert!(unit_cube().intersect(&ray.with_range(3.1, 9.0)).is_none());
        assert!(unit_cube().intersect(&ray.with_range(2.5, 2.6)).is_some());
    }

    #[test]
    fn nan_and_infinite_input_never_hits() {
        let b = unit_cube();
        let nan = f32::NAN;
        let inf = f32::INFINITY;
        let rays = [
            Ray::new(Vec3::new(nan, 0.5, 0.5), Vec3::X),
            Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::new(nan, 0.0, 0.0)),
            Ray::new(Vec3::new(-inf, 0.5, 0.5), Vec3::X),
            Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::new(inf, 0.0, 0.0)),
            Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::ZERO),
            Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X).with_range(nan, 5.0),
        ];
        for ray in rays {
            assert_eq!(b.intersect(&ray), None, "{ray:?}");
        }
        let nan_box = Aabb::new(Vec3::new(nan, 0.0, 0.0), Vec3::ONE);
        assert_eq!(
            nan_box.intersect(&Ray::new(Vec3::splat(-1.0), Vec3::ONE)),
            None
        );
    }

    /// Found by the command line's ray fuzz target: the direction component `1.1e-44` has a
    /// reciprocal that overflows to infinity, which put the plane `y = 0`, crossed at
    /// `t = 1.875`, at infinity and culled the upper half of the cube the ray meets at `t = 2`.
    #[test]
    fn a_subnormal_direction_component_crosses_its_slabs() {
        let ray = Ray::new(
            Vec3::new(-1.0, -2.1e-44, -1.0),
            Vec3::new(0.0, 1.1e-44, 1.0),
        );
        let upper = Aabb::new(Vec3::new(-1.0, 0.0, -1.0), Vec3::ONE);
        let lower = Aabb::new(Vec3::splat(-1.0), Vec3::new(1.0, 0.0, 1.0));
        let (entry, exit) = upper.intersect(&ray).expect("the ray enters y >= 0");
        assert!(entry <= 1.875 && exit >= 2.0, "{entry}, {exit}");
        let (entry, exit) = lower.intersect(&ray).expect("the ray starts below y = 0");
        assert!(entry <= 1e-45 && exit >= 1.875, "{entry}, {exit}");
        // Beside the cube in x, the box is still missed.
        let beside = Aabb::new(Vec3::new(2.0, -1.0, -1.0), Vec3::splat(3.0));
        assert_eq!(beside.intersect(&ray), None);
    }

    /// A direction whose every component is below `2^-128`: no reciprocal is finite, and the
    /// box the ray crosses is entered; a box behind the origin along a zero component is not.
    #[test]
    fn a_direction_below_every_reciprocal_enters_the_boxes_it_crosses() {
        let s = 2f64.powi(-140) as f32;
        let b = Aabb::new(Vec3::ZERO, Vec3::splat(s));
        let ray = Ray::new(Vec3::new(0.5, 0.5, -2.0) * s, Vec3::new(0.25, 0.0, 1.0) * s);
        assert!(b.intersect(&ray).is_some());
        let aside = Ray::new(Vec3::new(0.5, 3.0, -2.0) * s, ray.dir);
        assert_eq!(b.intersect(&aside), None);
    }

    /// A box of subnormal size, the ray crossing it at subnormal distances: the widening's
    /// floor covers the products' absolute rounding.
    #[test]
    fn subnormal_boxes_are_entered() {
        let s = 2f64.powi(-140) as f32;
        let b = Aabb::new(Vec3::splat(s), Vec3::splat(2.0 * s));
        for dir in [Vec3::X, Vec3::new(1.0, 0.5, 0.25), Vec3::new(0.9, 1.0, 1.1)] {
            let ray = Ray::new(Vec3::splat(1.5 * s) - dir * s, dir).with_range(0.0, f32::INFINITY);
            assert!(b.intersect(&ray).is_some(), "{dir}");
        }
    }

    #[test]
    fn flat_box_is_hit_head_on() {
        let flat = Aabb::new(Vec3::new(0.0, 0.0, 1.0), Vec3::new(1.0, 1.0, 1.0));
        let ray = Ray::new(Vec3::new(0.3, 0.3, 0.0), Vec3::Z);
        assert!(flat.intersect(&ray).is_some());
    }
}
