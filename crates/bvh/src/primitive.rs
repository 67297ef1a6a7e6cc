//! The [`Primitive`] trait (anything with a box and a ray test), its implementation for
//! [`Triangle`], and the queries over a slice of primitives in original order.

use meshcast_primitives::{Aabb, Hit, Ray, Triangle, WatertightRay};
use rayon::prelude::*;

use crate::binary::Bvh;
use crate::builders::{BuildOptions, Parallel};
use crate::query::{All, Any, Closest};

/// Inputs with fewer primitives compute their boxes without rayon.
const PARALLEL_BOUNDS_PRIMITIVES: usize = 1 << 14;

/// Anything a [`Bvh`] can index: a box and a ray test.
///
/// The hierarchy's queries return exactly what a loop over [`Primitive::intersect`] returns
/// as long as every hit the test reports lies in the primitive's box, up to the widening of
/// the node test (a relative [`meshcast_primitives::SLAB_SLACK`] of the scene's extent
/// along the ray): true of the watertight triangle test, whose error in `t` is a few float
/// steps of the corners' distances. A test with a larger error should pad its box.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh, Primitive};
/// use meshcast_primitives::{Aabb, Hit, Ray};
///
/// /// A solid box, hit where the ray enters it.
/// struct Cube(Aabb);
/// impl Primitive for Cube {
///     fn bounds(&self) -> Aabb {
///         self.0
///     }
///     fn intersect(&self, ray: &Ray) -> Option<Hit> {
///         let (entry, _) = self.0.intersect(ray)?;
///         Some(Hit::new(entry, 0.0, 0.0))
///     }
/// }
///
/// let cubes = [Cube(Aabb::new(Vec3::ZERO, Vec3::ONE)), Cube(Aabb::new(Vec3::splat(3.0), Vec3::splat(4.0)))];
/// let bvh = Bvh::build_primitives(&cubes, &BuildOptions::default());
/// let hit = bvh.cast_primitives(&cubes, &Ray::new(Vec3::splat(10.0), Vec3::splat(-1.0))).ok_or("miss")?;
/// assert_eq!(hit.triangle, 1);
/// # Ok::<(), &str>(())
/// ```
pub trait Primitive {
    /// The box around every point the ray test can hit; an empty or non-finite box makes a
    /// build drop the primitive.
    fn bounds(&self) -> Aabb;

    /// The ray test: a hit within the ray's range (the `triangle` field is set by the caller),
    /// or `None`.
    fn intersect(&self, ray: &Ray) -> Option<Hit>;

    /// The same answer as [`Primitive::intersect`] with the per-ray set-up done once per query
    /// (the watertight shear, for triangles). Implement it when the test has such a set-up.
    #[inline]
    fn intersect_prepared(&self, ray: &PreparedRay) -> Option<Hit> {
        self.intersect(ray.ray())
    }
}

/// A ray with the per-ray set-up of the primitive tests, built once per query.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{PreparedRay, Primitive};
/// use meshcast_primitives::{Ray, Triangle};
///
/// let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
/// let ray = Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z);
/// let prepared = PreparedRay::new(&ray);
/// assert_eq!(tri.intersect_prepared(&prepared), Primitive::intersect(&tri, &ray));
/// assert!(tri.intersect_prepared(&prepared.with_range(0.0, 0.5)).is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PreparedRay {
    ray: Ray,
    watertight: WatertightRay,
    valid: bool,
}

impl PreparedRay {
    /// The set-up for `ray`; a degenerate ray ([`Ray::is_valid`]) stays one that misses.
    #[inline]
    pub fn new(ray: &Ray) -> Self {
        Self {
            ray: *ray,
            watertight: WatertightRay::new(ray),
            valid: ray.is_valid(),
        }
    }

    /// The same set-up with the accepted range `[t_min, t_max]` (a degenerate ray stays
    /// degenerate).
    #[inline]
    #[must_use]
    pub fn with_range(self, t_min: f32, t_max: f32) -> Self {
        if !self.valid {
            return self;
        }
        Self {
            ray: self.ray.with_range(t_min, t_max),
            watertight: self.watertight.with_range(t_min, t_max),
            valid: true,
        }
    }

    /// The ray.
    #[inline]
    pub fn ray(&self) -> &Ray {
        &self.ray
    }

    /// The watertight triangle test's set-up for the ray.
    #[inline]
    pub fn watertight(&self) -> &WatertightRay {
        &self.watertight
    }
}

impl Primitive for Triangle {
    #[inline]
    fn bounds(&self) -> Aabb {
        Triangle::bounds(self)
    }

    /// [`Triangle::intersect`]: the watertight test, two-sided.
    #[inline]
    fn intersect(&self, ray: &Ray) -> Option<Hit> {
        Triangle::intersect(self, ray)
    }

    #[inline]
    fn intersect_prepared(&self, ray: &PreparedRay) -> Option<Hit> {
        if self.is_degenerate() {
            return None;
        }
        ray.watertight.intersect(self.v0, self.v1, self.v2)
    }
}

impl Bvh {
    /// Builds over the boxes of `primitives` ([`Bvh::build`]).
    pub fn build_primitives<P: Primitive + Sync>(primitives: &[P], options: &BuildOptions) -> Self {
        let boxes: Vec<Aabb> = if options.parallel == Parallel::Rayon
            && primitives.len() >= PARALLEL_BOUNDS_PRIMITIVES
        {
            primitives.par_iter().map(P::bounds).collect()
        } else {
            primitives.iter().map(P::bounds).collect()
        };
        Self::build(&boxes, options)
    }

    /// The closest hit among `primitives` (in the original order the hierarchy was built
    /// over), with `triangle` set to the primitive's index; equal to a loop over every
    /// primitive keeping the first by [`Hit::order`]. Primitives missing from a
    /// too-short slice are never hit.
    pub fn cast_primitives<P: Primitive>(&self, primitives: &[P], ray: &Ray) -> Option<Hit> {
        self.cast_primitives_filtered(primitives, ray, |_| true)
    }

    /// [`Bvh::cast_primitives`] over the primitives for which `filter(index)` is true (to skip
    /// the surface a ray starts on, or to apply masks).
    pub fn cast_primitives_filtered<P: Primitive, F: FnMut(u32) -> bool>(
        &self,
        primitives: &[P],
        ray: &Ray,
        mut filter: F,
    ) -> Option<Hit> {
        let prepared = PreparedRay::new(ray);
        let order = self.order.as_slice();
        self.walk(ray, Closest, |slot, range| {
            let index = order[slot as usize];
            if !filter(index) {
                return None;
            }
            let hit = primitives
                .get(index as usize)?
                .intersect_prepared(&prepared.with_range(range.t_min, range.t_max))?;
            Some(hit.with_triangle(index))
        })
    }

    /// Whether any of `primitives` is hit in the ray's range.
    pub fn occluded_primitives<P: Primitive>(&self, primitives: &[P], ray: &Ray) -> bool {
        self.occluded_primitives_filtered(primitives, ray, |_| true)
    }

    /// [`Bvh::occluded_primitives`] over the primitives for which `filter(index)` is true.
    pub fn occluded_primitives_filtered<P: Primitive, F: FnMut(u32) -> bool>(
        &self,
        primitives: &[P],
        ray: &Ray,
        mut filter: F,
    ) -> bool {
        let prepared = PreparedRay::new(ray);
        let order = self.order.as_slice();
        self.walk::<_, Hit>(ray, Any, |slot, _| {
            let index = order[slot as usize];
            filter(index)
                && primitives
                    .get(index as usize)
                    .is_some_and(|p| p.intersect_prepared(&prepared).is_some())
        })
    }

    /// Every hit among `primitives` in the ray's range, sorted by `t` then index.
    pub fn cast_all_primitives<P: Primitive>(&self, primitives: &[P], ray: &Ray) -> Vec<Hit> {
        self.cast_all_primitives_filtered(primitives, ray, |_| true)
    }

    /// [`Bvh::cast_all_primitives`] over the primitives for which `filter(index)` is true.
    pub fn cast_all_primitives_filtered<P: Primitive, F: FnMut(u32) -> bool>(
        &self,
        primitives: &[P],
        ray: &Ray,
        mut filter: F,
    ) -> Vec<Hit> {
        let prepared = PreparedRay::new(ray);
        let order = self.order.as_slice();
        self.walk(ray, All::EVERY, |slot, _| {
            let index = order[slot as usize];
            let hit = filter(index)
                .then(|| {
                    primitives
                        .get(index as usize)?
                        .intersect_prepared(&prepared)
                })
                .flatten();
            Vec::from_iter(hit.map(|hit| hit.with_triangle(index)))
        })
    }
}
