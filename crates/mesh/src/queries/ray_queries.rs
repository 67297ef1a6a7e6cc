//! `RayQueries`: the ray queries that [`Mesh`], [`Instance`] and [`Scene`] all answer for rays
//! in `f32` and in `f64` ([`crate::QueryRay`]), written once over one walk per level and
//! precision, generic over the query's kind (`query_kinds.rs`). The walks
//! each level implements (a sealed supertrait, out of the public trait's face) are in
//! `level_walks.rs`; how the queries are derived from them, the batches through the batches
//! room's driver, in `batch_queries.rs`; the flat answer of a batch of every-hit queries in
//! `hit_lists.rs`.
//!
//! [`Mesh`]: crate::Mesh
//! [`Instance`]: crate::Instance
//! [`Scene`]: crate::Scene

use core::fmt::Debug;

use meshcast_primitives::{Ray, RayHit};

use crate::queries::batch_queries::{batch_ray_by_ray, every_hit, walk_limited};
use crate::queries::{
    All, Any, Closest, Count, Filter, HitLists, LevelWalks, QueryOptions, QueryRay,
};

/// The ray queries every level answers, the same at each: a [`crate::Mesh`] in its own
/// space, an [`crate::Instance`] and a [`crate::Scene`] for world rays.
///
/// | query | answer |
/// |---|---|
/// | [`cast`](RayQueries::cast) | the closest hit, or `None` |
/// | [`occluded`](RayQueries::occluded) | whether anything is hit (stops at the first found) |
/// | [`cast_all`](RayQueries::cast_all) | every hit, in [`RayHit::order`] |
/// | [`cast_batch`](RayQueries::cast_batch), [`occluded_batch`](RayQueries::occluded_batch), [`cast_all_batch`](RayQueries::cast_all_batch) | the same for many rays, in parallel, in the rays' order |
///
/// Each has a `*_with` form that takes [`QueryOptions`]: a distance limit, back-face
/// culling, contacts, a layer mask (instances and scenes) and a [`Filter`] asked about every
/// candidate ([`RayQueries::Candidate`]). A rejected or culled hit lets the ray go on to what
/// lies behind it. The plain forms are the `*_with` forms with [`QueryOptions::new`].
///
/// Answers are exact: they equal a brute-force loop over every triangle with the watertight
/// test, bit for bit (a ray through an edge or vertex never slips through, and `cast_all`
/// counts a crossing of a closed surface there exactly once), and hits are ordered by `t`
/// (`-0.0` equal to `0.0`), then by the level's order ([`meshcast_primitives::Hit::order`]
/// on a mesh or an instance, [`crate::SceneHit::order`] in a scene). `cast` and `occluded`
/// count a ray that touches a triangle, through its edge or a vertex, as a hit
/// ([`crate::Contacts::Hit`], [`QueryOptions::contacts`]); with [`crate::Contacts::TieRule`]
/// they follow `cast_all`'s rule, and `cast` is the first of `cast_all`.
/// Degenerate rays (NaN or infinite components, a zero direction, an empty range) hit
/// nothing. Every batch call answers each ray exactly as its single-ray call does, whatever
/// the number of threads.
///
/// Every query takes a ray of either precision ([`crate::QueryRay`]): a [`Ray`] in `f32`,
/// answered with [`meshcast_primitives::Hit`] and [`crate::SceneHit`], or a
/// [`meshcast_primitives::DRay`] in `f64` world coordinates, for geometry far from the origin,
/// answered with [`meshcast_primitives::DHit`] and [`crate::DSceneHit`] (`t` in `f64` along
/// the world ray). The same method answers both: `mesh.cast(&ray)`, `mesh.cast(&dray)`. An
/// `f64` ray is carried into each mesh's frame in `f64` and rounded once, so its answer is
/// exactly the `f32` answer of the carried ray, and only the rounding of coordinates at each
/// mesh's own scale is left, wherever the mesh lies; the distance limit is measured along the
/// world ray. `f64` batches through a scene or an instance walk ray by ray.
///
/// The trait is implemented by this crate's three levels only; bring it into scope to query
/// (`use meshcast_mesh::RayQueries;`, or `use meshcast::RayQueries;` from the facade).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, QueryOptions, RayQueries, Scene};
/// use meshcast_primitives::Ray;
///
/// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
/// let lifted = Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z))?;
/// let scene = Scene::from_instances([lifted.clone()]);
/// let down = Ray::new(Vec3::new(0.25, 0.25, 4.0), Vec3::NEG_Z);
///
/// // The same question at every level: the mesh in its own space, the instance and the
/// // scene in the world.
/// assert_eq!(tri.cast(&down).map(|h| h.t), Some(4.0));
/// assert_eq!(lifted.cast(&down).map(|h| h.t), Some(3.0));
/// assert_eq!(scene.cast(&down).map(|h| h.hit.t), Some(3.0));
///
/// // Batches answer as the single calls do, in order.
/// let rays = [down, Ray::new(Vec3::new(5.0, 5.0, 5.0), Vec3::NEG_Z)];
/// assert_eq!(scene.occluded_batch(&rays), [true, false]);
/// let lists = tri.cast_all_batch(&rays);
/// assert_eq!((lists[0].len(), lists[1].len()), (1, 0));
/// assert_eq!(lists.offsets(), [0, 1, 1]);
///
/// // Options: a distance limit (in world units) the hit lies beyond.
/// let near = QueryOptions::new().with_max_distance(2.5);
/// assert!(!lifted.occluded_with(&down, &near));
///
/// // The same queries in f64 world coordinates, the scene placed 6378 km east.
/// use glam::{DAffine3, DVec3};
/// use meshcast_primitives::DRay;
/// let east = DVec3::new(6_378_137.3, 0.0, 0.0);
/// let far = Scene::from_instances([Instance::new(tri, DAffine3::from_translation(east))?]);
/// let far_down = DRay::new(east + DVec3::new(0.25, 0.25, 4.0), DVec3::NEG_Z);
/// assert_eq!(far.cast(&far_down).map(|h| h.hit.t), Some(4.0));
/// assert_eq!(far.occluded_batch(&[far_down]), [true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait RayQueries<R: QueryRay = Ray>:
    Sync
    + sealed::Level
    + LevelWalks<R, <Self as RayQueries<R>>::Hit, <Self as RayQueries<R>>::Candidate>
{
    /// What a hit names: [`meshcast_primitives::Hit`] on a mesh or an instance (`t`, the
    /// triangle, barycentrics), [`crate::SceneHit`] in a scene (the instance as well); for
    /// `f64` rays [`meshcast_primitives::DHit`] and [`crate::DSceneHit`].
    type Hit: RayHit<Scalar = R::Scalar> + Send + Sync + Debug + PartialEq;

    /// What a [`Filter`] is asked about each candidate: the triangle index (`u32`) on a mesh
    /// or an instance, the instance and the triangle (`(InstanceId, u32)`) in a scene.
    ///
    /// [`InstanceId`]: crate::InstanceId
    type Candidate;

    /// The closest hit within the ray's range (the first in [`RayHit::order`]), or `None`.
    #[inline]
    fn cast(&self, ray: &R) -> Option<Self::Hit> {
        // The default options limit nothing: the ray needs no cut.
        self.walk(ray, &QueryOptions::new(), Closest)
    }

    /// [`RayQueries::cast`] with [`QueryOptions`]: the closest hit that the options keep.
    #[inline]
    fn cast_with<F: Filter<Self::Candidate>>(
        &self,
        ray: &R,
        options: &QueryOptions<F>,
    ) -> Option<Self::Hit> {
        walk_limited(self, ray, options, Closest)
    }

    /// Whether anything is hit within the ray's range (a shadow or visibility test); stops
    /// at the first hit found, so it is faster than [`RayQueries::cast`].
    #[inline]
    fn occluded(&self, ray: &R) -> bool {
        self.walk(ray, &QueryOptions::new(), Any)
    }

    /// [`RayQueries::occluded`] with [`QueryOptions`]: whether any hit that the options keep
    /// lies within the ray's range.
    #[inline]
    fn occluded_with<F: Filter<Self::Candidate>>(
        &self,
        ray: &R,
        options: &QueryOptions<F>,
    ) -> bool {
        walk_limited(self, ray, options, Any)
    }

    /// Every hit within the ray's range, in [`RayHit::order`]: by `t`, then the level's tie
    /// rule.
    ///
    /// Each crossing of a closed, consistently oriented surface is reported exactly once,
    /// also where the ray passes exactly through an edge or a vertex shared by several
    /// triangles (the watertight test's tie rule, [`meshcast_primitives::Triangle::intersect_watertight`]),
    /// so the parity of the hits of a ray to infinity tells whether its origin is inside;
    /// a ray that only touches the surface (a silhouette edge or vertex) gives two hits or
    /// none, never one. On open meshes, non-manifold edges or inconsistently oriented
    /// neighbours the rule still gives every triangle half-open edges, and a ray through
    /// such an edge may hit none or two of the triangles there.
    fn cast_all(&self, ray: &R) -> Vec<Self::Hit> {
        self.cast_all_with(ray, &QueryOptions::new())
    }

    /// [`RayQueries::cast_all`] with [`QueryOptions`]: every hit that the options keep, or
    /// with [`QueryOptions::max_hits`] the first that many of them (the first of
    /// `cast_all`'s list, ties included). Hits are found out of order, so the walk cannot stop
    /// at the `max_hits`-th one found: once it holds `max_hits`, it skips every subtree that
    /// starts beyond the last of them.
    fn cast_all_with<F: Filter<Self::Candidate>>(
        &self,
        ray: &R,
        options: &QueryOptions<F>,
    ) -> Vec<Self::Hit> {
        let max_hits = options.max_hits;
        let mut hits = every_hit(self, ray, options, All { max_hits });
        hits.sort_unstable_by(Self::Hit::order);
        hits
    }

    /// [`RayQueries::cast`] for every ray, in parallel on the current rayon thread pool; the
    /// answers are those of `cast`, in the order of `rays`.
    ///
    /// Coherent neighbours (a camera image in row-major order, shadow rays from neighbouring
    /// points towards one light) are traced together as packets of up to sixteen rays, which
    /// share the work of walking the hierarchy; the others one by one. A camera image (the
    /// rays of `Camera::pixel_rays`, or your own in row-major order) is recognised by its rows
    /// and traced in 4 x 4 pixel tiles, each tile one packet. Scattered rays through a large
    /// hierarchy are sorted first, so that neighbours share nodes in the caches
    /// ([`crate::BatchOrder`], chosen by [`QueryOptions::order`]). Either way each answer is
    /// `cast`'s, bit for bit, in the order of `rays`.
    fn cast_batch(&self, rays: &[R]) -> Vec<Option<Self::Hit>> {
        self.cast_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::cast_with`] for every ray, in parallel (the filter is shared by the
    /// threads, hence `Sync`), coherent rays traced as packets ([`RayQueries::cast_batch`]).
    fn cast_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
    ) -> Vec<Option<Self::Hit>> {
        let mut hits = vec![None; rays.len()];
        self.batch(rays, options, Closest, &mut hits);
        hits
    }

    /// [`RayQueries::cast_batch`] on the calling thread, for callers that run their own
    /// threads: `hits[i]` is the closest hit of `rays[i]`.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn cast_batch_serial(&self, rays: &[R], hits: &mut [Option<Self::Hit>]) {
        self.cast_batch_serial_with(rays, &QueryOptions::new(), hits);
    }

    /// [`RayQueries::cast_batch_with`] on the calling thread.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn cast_batch_serial_with<F: Filter<Self::Candidate>>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
        hits: &mut [Option<Self::Hit>],
    ) {
        assert_eq!(rays.len(), hits.len(), "one answer per ray");
        self.batch_serial(rays, options, Closest, hits);
    }

    /// [`RayQueries::occluded`] for every ray, in parallel, in the order of `rays`, coherent
    /// rays traced as packets ([`RayQueries::cast_batch`]).
    fn occluded_batch(&self, rays: &[R]) -> Vec<bool> {
        self.occluded_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::occluded_with`] for every ray, in parallel.
    fn occluded_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
    ) -> Vec<bool> {
        let mut hits = vec![false; rays.len()];
        self.batch(rays, options, Any, &mut hits);
        hits
    }

    /// [`RayQueries::occluded_batch`] on the calling thread: `hits[i]` is whether `rays[i]`
    /// hits anything.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn occluded_batch_serial(&self, rays: &[R], hits: &mut [bool]) {
        self.occluded_batch_serial_with(rays, &QueryOptions::new(), hits);
    }

    /// [`RayQueries::occluded_batch_with`] on the calling thread.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn occluded_batch_serial_with<F: Filter<Self::Candidate>>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
        hits: &mut [bool],
    ) {
        assert_eq!(rays.len(), hits.len(), "one answer per ray");
        self.batch_serial(rays, options, Any, hits);
    }

    /// [`RayQueries::cast_all`] for every ray, in parallel: ray `i`'s hits are
    /// `lists[i]`, as `cast_all` orders them ([`HitLists`] keeps them in one flat array).
    fn cast_all_batch(&self, rays: &[R]) -> HitLists<Self::Hit> {
        self.cast_all_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::cast_all_with`] for every ray, in parallel.
    ///
    /// # Panics
    /// If the rays have more than `u32::MAX` hits in all (the limit of [`HitLists`]).
    fn cast_all_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
    ) -> HitLists<Self::Hit> {
        let mut lists = vec![Vec::new(); rays.len()];
        batch_ray_by_ray(self.batch_frame(), rays, options, &mut lists, |ray| {
            self.cast_all_with(ray, options)
        });
        let mut all = HitLists::new();
        for list in lists {
            all.push(list);
        }
        all
    }

    /// How many hits [`RayQueries::cast_all`] reports for `ray`, without keeping them: each
    /// crossing of a closed surface once, so an odd count along a ray to infinity means its
    /// origin is inside.
    fn count(&self, ray: &R) -> usize {
        self.count_with(ray, &QueryOptions::new())
    }

    /// [`RayQueries::count`] with [`QueryOptions`]: the length of
    /// [`RayQueries::cast_all_with`]'s list, unsorted.
    fn count_with<F: Filter<Self::Candidate>>(&self, ray: &R, options: &QueryOptions<F>) -> usize {
        let max_hits = options.max_hits;
        every_hit(self, ray, options, Count { max_hits })
    }

    /// [`RayQueries::count`] for every ray, in parallel, in the order of `rays` (a count past
    /// `u32::MAX` is `u32::MAX`).
    fn count_batch(&self, rays: &[R]) -> Vec<u32> {
        self.count_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::count_with`] for every ray, in parallel.
    fn count_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
    ) -> Vec<u32> {
        let mut counts = vec![0; rays.len()];
        batch_ray_by_ray(self.batch_frame(), rays, options, &mut counts, |ray| {
            u32::try_from(self.count_with(ray, options)).unwrap_or(u32::MAX)
        });
        counts
    }
}

/// The levels that may implement the query traits: `Mesh`, `Instance` and `Scene`, each
/// declared in its own room.
pub(crate) mod sealed {
    pub trait Level {}
}
