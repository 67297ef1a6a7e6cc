//! `RayQueries`: the ray queries that [`Mesh`], [`Instance`] and [`Scene`] all answer, written
//! once over three walks per level (closest hit, any hit, every hit), and [`HitLists`], the
//! flat answer of a batch of every-hit queries.
//!
//! [`Mesh`]: crate::Mesh
//! [`Instance`]: crate::Instance
//! [`Scene`]: crate::Scene

use core::fmt::Debug;
use core::ops::Index;

use meshcast_primitives::{prefetch, Ray, RayHit, RayPacket, ALL_LANES, PACKET_WIDTH};
use rayon::prelude::*;

use crate::queries::packets::{image_width, PacketFinder, PacketSpan, TILE_SIDE};
use crate::queries::{sorted_order, BatchFrame};
use crate::{Filter, QueryOptions};

/// Rays (or points) one rayon task answers at least: enough to pay for the task, few enough
/// to balance.
pub(crate) const BATCH_GRAIN: usize = 64;

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
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait RayQueries: Sync + sealed::Level {
    /// What a hit names: [`meshcast_primitives::Hit`] on a mesh or an instance (`t`, the
    /// triangle, barycentrics), [`crate::SceneHit`] in a scene (the instance as well).
    type Hit: RayHit + Send + Sync + Debug + PartialEq;

    /// What a [`Filter`] is asked about each candidate: the triangle index (`u32`) on a mesh
    /// or an instance, the instance and the triangle (`(InstanceId, u32)`) in a scene.
    type Candidate;

    /// The closest hit of a ray already cut to the options' distance limit.
    #[doc(hidden)]
    fn walk_closest<F: Filter<Self::Candidate>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Option<Self::Hit>;

    /// Whether a ray already cut to the options' distance limit hits anything.
    #[doc(hidden)]
    fn walk_any<F: Filter<Self::Candidate>>(&self, ray: &Ray, options: &QueryOptions<F>) -> bool;

    /// Every hit of a valid ray already cut to the options' distance limit, in any order; of
    /// more than `options.max_hits` (at least one), the first `max_hits` in hit order.
    #[doc(hidden)]
    fn walk_all<F: Filter<Self::Candidate>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Vec<Self::Hit>;

    /// Writes to `hits[i]` the closest hit of the ray in each lane `i` of `rays` in `lanes`
    /// (bits; rays already cut to the options' distance limit, coherent as
    /// [`crate::queries::packets::coherent`] groups them, degenerate ones among them), as
    /// [`RayQueries::walk_closest`] answers it, whatever their directions. Levels that trace
    /// packets override it.
    #[doc(hidden)]
    #[inline]
    fn walk_closest_packet<F: Filter<Self::Candidate>>(
        &self,
        rays: &RayPacket,
        lanes: u32,
        options: &QueryOptions<F>,
        hits: &mut [Option<Self::Hit>; PACKET_WIDTH],
    ) {
        for_each_lane(lanes, |lane| {
            hits[lane] = self.walk_closest(&rays.ray(lane), options)
        });
    }

    /// How wide a packet of a batch may be at this level ([`PacketSpan`]). Levels that give a
    /// span also walk two whole chunks of neighbouring rays as one packet
    /// ([`RayQueries::walk_closest_packet_pair`]); `None` for levels that do not, whose
    /// packets are bounded by their rays' cone and spread alone.
    #[doc(hidden)]
    #[inline]
    fn packet_span(&self) -> Option<PacketSpan> {
        None
    }

    /// What a batch's order is chosen by ([`crate::BatchOrder`]): the box around everything
    /// the level's rays may hit and the bytes of hierarchy and triangles they walk.
    #[doc(hidden)]
    fn batch_frame(&self) -> BatchFrame;

    /// [`RayQueries::walk_closest_packet`] of two whole packets of neighbouring rays, which
    /// levels that trace packets walk together.
    #[doc(hidden)]
    #[inline]
    fn walk_closest_packet_pair<F: Filter<Self::Candidate>>(
        &self,
        rays: [&RayPacket; 2],
        options: &QueryOptions<F>,
        hits: [&mut [Option<Self::Hit>; PACKET_WIDTH]; 2],
    ) {
        for (rays, hits) in rays.into_iter().zip(hits) {
            self.walk_closest_packet(rays, ALL_LANES, options, hits);
        }
    }

    /// [`RayQueries::walk_any_packet`] of two whole packets of neighbouring rays, which
    /// levels that trace packets walk together, as bits per packet.
    #[doc(hidden)]
    #[inline]
    fn walk_any_packet_pair<F: Filter<Self::Candidate>>(
        &self,
        rays: [&RayPacket; 2],
        options: &QueryOptions<F>,
    ) -> [u32; 2] {
        rays.map(|rays| self.walk_any_packet(rays, ALL_LANES, options))
    }

    /// Which rays of `rays` in `lanes` hit anything (as [`RayQueries::walk_closest_packet`]
    /// takes them), as bits.
    #[doc(hidden)]
    #[inline]
    fn walk_any_packet<F: Filter<Self::Candidate>>(
        &self,
        rays: &RayPacket,
        lanes: u32,
        options: &QueryOptions<F>,
    ) -> u32 {
        let mut hit = 0;
        for_each_lane(lanes, |lane| {
            if self.walk_any(&rays.ray(lane), options) {
                hit |= 1 << lane;
            }
        });
        hit
    }

    /// The closest hit within the ray's range (the first in [`RayHit::order`]), or `None`.
    #[inline]
    fn cast(&self, ray: &Ray) -> Option<Self::Hit> {
        // The default options limit nothing: the ray needs no cut.
        self.walk_closest(ray, &QueryOptions::new())
    }

    /// [`RayQueries::cast`] with [`QueryOptions`]: the closest hit that the options keep.
    #[inline]
    fn cast_with<F: Filter<Self::Candidate>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Option<Self::Hit> {
        // A ray with no limit to apply is walked where it lies: through `limit_ray`'s copy, a
        // batch's rays that walk alone ran 20% slower (`batch_orders`, fans, bunny).
        if options.max_distance == f32::INFINITY {
            return self.walk_closest(ray, options);
        }
        self.walk_closest(&options.limit_ray(ray)?, options)
    }

    /// Whether anything is hit within the ray's range (a shadow or visibility test); stops
    /// at the first hit found, so it is faster than [`RayQueries::cast`].
    #[inline]
    fn occluded(&self, ray: &Ray) -> bool {
        self.walk_any(ray, &QueryOptions::new())
    }

    /// [`RayQueries::occluded`] with [`QueryOptions`]: whether any hit that the options keep
    /// lies within the ray's range.
    #[inline]
    fn occluded_with<F: Filter<Self::Candidate>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> bool {
        // As in `cast_with`.
        if options.max_distance == f32::INFINITY {
            return self.walk_any(ray, options);
        }
        options
            .limit_ray(ray)
            .is_some_and(|ray| self.walk_any(&ray, options))
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
    fn cast_all(&self, ray: &Ray) -> Vec<Self::Hit> {
        self.cast_all_with(ray, &QueryOptions::new())
    }

    /// [`RayQueries::cast_all`] with [`QueryOptions`]: every hit that the options keep, or
    /// with [`QueryOptions::max_hits`] the first that many of them (the first of
    /// `cast_all`'s list, ties included). Hits are found out of order, so the walk cannot stop
    /// at the `max_hits`-th one found: once it holds `max_hits`, it skips every subtree that
    /// starts beyond the last of them.
    fn cast_all_with<F: Filter<Self::Candidate>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Vec<Self::Hit> {
        let Some(ray) = options.limit_ray(ray).filter(Ray::is_valid) else {
            return Vec::new();
        };
        if options.max_hits == 0 {
            return Vec::new();
        }
        let mut hits = self.walk_all(&ray, options);
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
    fn cast_batch(&self, rays: &[Ray]) -> Vec<Option<Self::Hit>> {
        self.cast_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::cast_with`] for every ray, in parallel (the filter is shared by the
    /// threads, hence `Sync`), coherent rays traced as packets ([`RayQueries::cast_batch`]).
    fn cast_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
    ) -> Vec<Option<Self::Hit>> {
        let mut hits = vec![None; rays.len()];
        parallel_batch(
            rays,
            self.batch_frame(),
            options,
            &mut hits,
            |rays, hits, width| cast_serial(self, rays, options, hits, width),
        );
        hits
    }

    /// [`RayQueries::cast_batch`] on the calling thread, for callers that run their own
    /// threads: `hits[i]` is the closest hit of `rays[i]`.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn cast_batch_serial(&self, rays: &[Ray], hits: &mut [Option<Self::Hit>]) {
        self.cast_batch_serial_with(rays, &QueryOptions::new(), hits);
    }

    /// [`RayQueries::cast_batch_with`] on the calling thread.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn cast_batch_serial_with<F: Filter<Self::Candidate>>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
        hits: &mut [Option<Self::Hit>],
    ) {
        assert_eq!(rays.len(), hits.len(), "one answer per ray");
        serial_batch_in_order(
            rays,
            self.batch_frame(),
            options,
            hits,
            |rays, hits, width| cast_serial(self, rays, options, hits, width),
        );
    }

    /// [`RayQueries::occluded`] for every ray, in parallel, in the order of `rays`, coherent
    /// rays traced as packets ([`RayQueries::cast_batch`]).
    fn occluded_batch(&self, rays: &[Ray]) -> Vec<bool> {
        self.occluded_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::occluded_with`] for every ray, in parallel.
    fn occluded_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
    ) -> Vec<bool> {
        let mut hits = vec![false; rays.len()];
        parallel_batch(
            rays,
            self.batch_frame(),
            options,
            &mut hits,
            |rays, hits, width| occluded_serial(self, rays, options, hits, width),
        );
        hits
    }

    /// [`RayQueries::occluded_batch`] on the calling thread: `hits[i]` is whether `rays[i]`
    /// hits anything.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn occluded_batch_serial(&self, rays: &[Ray], hits: &mut [bool]) {
        self.occluded_batch_serial_with(rays, &QueryOptions::new(), hits);
    }

    /// [`RayQueries::occluded_batch_with`] on the calling thread.
    ///
    /// # Panics
    /// If `rays` and `hits` differ in length.
    fn occluded_batch_serial_with<F: Filter<Self::Candidate>>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
        hits: &mut [bool],
    ) {
        assert_eq!(rays.len(), hits.len(), "one answer per ray");
        serial_batch_in_order(
            rays,
            self.batch_frame(),
            options,
            hits,
            |rays, hits, width| occluded_serial(self, rays, options, hits, width),
        );
    }

    /// [`RayQueries::cast_all`] for every ray, in parallel: ray `i`'s hits are
    /// `lists[i]`, as `cast_all` orders them ([`HitLists`] keeps them in one flat array).
    fn cast_all_batch(&self, rays: &[Ray]) -> HitLists<Self::Hit> {
        self.cast_all_batch_with(rays, &QueryOptions::new())
    }

    /// [`RayQueries::cast_all_with`] for every ray, in parallel.
    ///
    /// # Panics
    /// If the rays have more than `u32::MAX` hits in all (the limit of [`HitLists`]).
    fn cast_all_batch_with<F: Filter<Self::Candidate> + Sync>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
    ) -> HitLists<Self::Hit> {
        rays.par_chunks(BATCH_GRAIN)
            .map(|chunk| {
                let mut lists = HitLists::new();
                for ray in chunk {
                    lists.push(self.cast_all_with(ray, options));
                }
                lists
            })
            .collect::<Vec<_>>()
            .into_iter()
            .fold(HitLists::new(), |mut all, lists| {
                all.append(lists);
                all
            })
    }
}

/// The hits of many rays in one flat array: ray `i`'s hits are
/// `hits[offsets[i]..offsets[i + 1]]`, so `offsets` has one more entry than there are rays
/// and starts at 0 (the layout of a compressed sparse row, or Open3D's `ray_splits`).
/// [`RayQueries::cast_all_batch`] gives one; index it by ray, iterate it, or take its parts
/// to hand to other code. Lists concatenate ([`HitLists::append`]) without touching the
/// hits themselves.
///
/// Offsets are `u32`: a `HitLists` holds at most `u32::MAX` hits, and adding more panics.
///
/// # Examples
/// ```
/// use meshcast_mesh::HitLists;
///
/// let mut lists: HitLists<char> = [vec!['a', 'b'], vec![], vec!['c']].into_iter().collect();
/// assert_eq!((lists.len(), &lists[0], &lists[1], &lists[2]), (3, &['a', 'b'][..], &[][..], &['c'][..]));
/// lists.append([vec!['d']].into_iter().collect());
/// assert_eq!(lists.offsets(), [0, 2, 2, 3, 4]);
/// assert_eq!(lists.hits(), ['a', 'b', 'c', 'd']);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HitLists<H> {
    offsets: Vec<u32>,
    hits: Vec<H>,
}

impl<H> Default for HitLists<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H> HitLists<H> {
    /// No rays.
    pub fn new() -> Self {
        Self {
            offsets: vec![0],
            hits: Vec::new(),
        }
    }

    /// The number of rays.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no rays.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ray `ray`'s hits, or `None` past the last ray.
    pub fn get(&self, ray: usize) -> Option<&[H]> {
        let start = *self.offsets.get(ray)? as usize;
        let end = *self.offsets.get(ray + 1)? as usize;
        Some(&self.hits[start..end])
    }

    /// Each ray's hits, in the order of the rays.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[H]> + '_ {
        self.offsets
            .windows(2)
            .map(|pair| &self.hits[pair[0] as usize..pair[1] as usize])
    }

    /// Where each ray's hits start in [`HitLists::hits`], and after the last ray, where
    /// they end: one entry more than there are rays.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Every ray's hits, one ray after the other.
    pub fn hits(&self) -> &[H] {
        &self.hits
    }

    /// The offsets and the hits, as [`HitLists::offsets`] and [`HitLists::hits`].
    pub fn into_parts(self) -> (Vec<u32>, Vec<H>) {
        (self.offsets, self.hits)
    }

    /// Adds one more ray with these hits.
    ///
    /// # Panics
    /// If the lists would hold more than `u32::MAX` hits.
    pub fn push(&mut self, hits: impl IntoIterator<Item = H>) {
        self.hits.extend(hits);
        self.offsets.push(offset(self.hits.len()));
    }

    /// Adds the rays of `other` after these.
    ///
    /// # Panics
    /// If the lists would hold more than `u32::MAX` hits.
    pub fn append(&mut self, mut other: Self) {
        let base = offset(self.hits.len());
        assert!(
            offset(other.hits.len()).checked_add(base).is_some(),
            "a HitLists holds at most u32::MAX hits"
        );
        self.hits.append(&mut other.hits);
        self.offsets
            .extend(other.offsets.iter().skip(1).map(|&end| base + end));
    }
}

/// A number of hits as an offset.
fn offset(hits: usize) -> u32 {
    u32::try_from(hits).expect("a HitLists holds at most u32::MAX hits")
}

impl<H> Index<usize> for HitLists<H> {
    type Output = [H];

    /// Ray `ray`'s hits.
    ///
    /// # Panics
    /// If `ray >= self.len()`.
    fn index(&self, ray: usize) -> &[H] {
        self.get(ray).expect("a ray of the lists")
    }
}

impl<H, L: IntoIterator<Item = H>> FromIterator<L> for HitLists<H> {
    /// One ray per item, with that item's hits.
    fn from_iter<I: IntoIterator<Item = L>>(lists: I) -> Self {
        let mut all = Self::new();
        for hits in lists {
            all.push(hits);
        }
        all
    }
}

/// The levels that answer [`RayQueries`] and [`crate::PointQueries`]: this crate's `Mesh`,
/// `Instance` and `Scene`.
/// What fills the lanes of a packet that hold no ray.
const PLACEHOLDER_RAY: Ray = Ray::new(glam::Vec3::ZERO, glam::Vec3::X);

/// The rays of two neighbouring chunks, which may walk as one packet
/// ([`PacketFinder::find_pair`]).
const PAIR_WIDTH: usize = 2 * PACKET_WIDTH;

/// The most rays of a batch one rayon task answers, unless an image's band is wider: a task's
/// [`PacketFinder`] learns whether the rays hold packets and then passes over chunks of random
/// rays, so tasks should be long, but a thread that ends early should find tasks to take.
const MAX_RAY_GRAIN: usize = 1024;

/// How many rays of a batch one rayon task answers, and the width of the image the batch is
/// ([`image_width`]), found once for all tasks: an eighth of each thread's share, within
/// [`BATCH_GRAIN`] and [`MAX_RAY_GRAIN`], or for an image whole bands of [`TILE_SIDE`] rows,
/// so that each task traces tiles.
fn batch_grain(rays: &[Ray]) -> (usize, Option<usize>) {
    let width = image_width(rays);
    let grain = (rays.len() / (8 * rayon::current_num_threads())).clamp(BATCH_GRAIN, MAX_RAY_GRAIN);
    let grain = match width {
        Some(width) => {
            let band = TILE_SIDE * width;
            band * grain.div_ceil(band)
        }
        None => grain,
    };
    (grain, width)
}

/// The batch driver of [`RayQueries::cast_batch_with`] and [`RayQueries::occluded_batch_with`]:
/// `answers[i]` is `trace`'s answer for `rays[i]`, traced on the current rayon pool in tasks of
/// [`batch_grain`] rays, `trace` being handed each task's rays and answers and the width of the
/// image the batch is, if it is one (then each task holds whole bands of tiles). A batch the
/// options' [`BatchOrder`] sorts ([`BatchOrder::sorts`]; never an image) is traced in the
/// order of [`sorted_order`], its answers put back in the caller's order.
fn parallel_batch<A: Copy + Default + Send + Sync, F>(
    rays: &[Ray],
    frame: BatchFrame,
    options: &QueryOptions<F>,
    answers: &mut [A],
    trace: impl Fn(&[Ray], &mut [A], Option<usize>) + Sync,
) {
    let (grain, width) = batch_grain(rays);
    if width.is_some() || !options.order.sorts(rays, &frame) {
        rays.par_chunks(grain)
            .zip(answers.par_chunks_mut(grain))
            .for_each(|(rays, answers)| trace(rays, answers, width));
        return;
    }
    let order = sorted_order(rays, &frame, true);
    let mut sorted_answers = vec![A::default(); rays.len()];
    order
        .par_chunks(grain)
        .zip(sorted_answers.par_chunks_mut(grain))
        .for_each(|(indices, answers)| {
            let rays: Vec<Ray> = indices.iter().map(|&i| rays[i as usize]).collect();
            trace(&rays, answers, None)
        });
    let mut place = vec![0u32; rays.len()];
    for (k, &i) in order.iter().enumerate() {
        place[i as usize] = k as u32;
    }
    answers
        .par_iter_mut()
        .zip(place.par_iter())
        .for_each(|(answer, &k)| *answer = sorted_answers[k as usize]);
}

/// [`parallel_batch`] on the calling thread, for the serial batch calls.
fn serial_batch_in_order<A: Copy + Default, F>(
    rays: &[Ray],
    frame: BatchFrame,
    options: &QueryOptions<F>,
    answers: &mut [A],
    mut trace: impl FnMut(&[Ray], &mut [A], Option<usize>),
) {
    let width = image_width(rays);
    if width.is_some() || !options.order.sorts(rays, &frame) {
        trace(rays, answers, width);
        return;
    }
    let order = sorted_order(rays, &frame, false);
    let sorted: Vec<Ray> = order.iter().map(|&i| rays[i as usize]).collect();
    let mut sorted_answers = vec![A::default(); rays.len()];
    trace(&sorted, &mut sorted_answers, None);
    for (&i, answer) in order.iter().zip(sorted_answers) {
        answers[i as usize] = answer;
    }
}

/// The closest hits of a serial batch ([`serial_batch`]), `width` being the width of the
/// image the rays are, whose rows they start at, if they are one.
#[inline(always)]
fn cast_serial<L: RayQueries + ?Sized, F: Filter<L::Candidate>>(
    level: &L,
    rays: &[Ray],
    options: &QueryOptions<F>,
    hits: &mut [Option<L::Hit>],
    width: Option<usize>,
) {
    let mut scratch = [PLACEHOLDER_RAY; PACKET_WIDTH];
    serial_batch(
        rays,
        options,
        hits,
        level,
        width,
        Walks {
            pair: |rays: [&RayPacket; 2], answers: [&mut [Option<L::Hit>; PACKET_WIDTH]; 2]| {
                level.walk_closest_packet_pair(rays, options, answers)
            },
            chunk: |finder: &mut PacketFinder, rays: &[Ray], hits: &mut [Option<L::Hit>]| {
                cast_chunk(level, rays, options, finder, &mut scratch, hits)
            },
            alone: |rays: &[Ray], hits: &mut [Option<L::Hit>]| {
                for (ray, hit) in rays.iter().zip(hits) {
                    *hit = level.cast_with(ray, options);
                }
            },
        },
    );
}

/// Which rays of a serial batch hit anything ([`serial_batch`]; `width` as in
/// [`cast_serial`]).
#[inline(always)]
fn occluded_serial<L: RayQueries + ?Sized, F: Filter<L::Candidate>>(
    level: &L,
    rays: &[Ray],
    options: &QueryOptions<F>,
    hits: &mut [bool],
    width: Option<usize>,
) {
    let mut scratch = [PLACEHOLDER_RAY; PACKET_WIDTH];
    serial_batch(
        rays,
        options,
        hits,
        level,
        width,
        Walks {
            pair: |rays: [&RayPacket; 2], answers: [&mut [bool; PACKET_WIDTH]; 2]| {
                let hit = level.walk_any_packet_pair(rays, options);
                for (hit, answers) in hit.into_iter().zip(answers) {
                    for (lane, answer) in answers.iter_mut().enumerate() {
                        *answer = hit & (1 << lane) != 0;
                    }
                }
            },
            chunk: |finder: &mut PacketFinder, rays: &[Ray], hits: &mut [bool]| {
                occluded_chunk(level, rays, options, finder, &mut scratch, hits)
            },
            alone: |rays: &[Ray], hits: &mut [bool]| {
                for (ray, hit) in rays.iter().zip(hits) {
                    *hit = level.occluded_with(ray, options);
                }
            },
        },
    );
}

/// The two halves of a pair of chunks.
#[inline(always)]
fn halves(pair: &[Ray; PAIR_WIDTH]) -> (&[Ray; PACKET_WIDTH], &[Ray; PACKET_WIDTH]) {
    let (front, back) = pair.split_at(PACKET_WIDTH);
    (
        front.try_into().expect("half a pair"),
        back.try_into().expect("half a pair"),
    )
}

/// The three ways a serial batch walks rays ([`serial_batch`]): two whole chunks as one
/// packet (`pair`), a chunk with the finder to look for its packets (`chunk`), and the rays
/// of the chunks the finder passes over one by one (`alone`).
struct Walks<P, C, S> {
    pair: P,
    chunk: C,
    alone: S,
}

/// A serial batch call's loop: the rays and their `answers` sixteen at a time, as a pair of
/// chunks of [`PACKET_WIDTH`]. A camera image in row-major order, `width` rays to a row
/// ([`image_width`], found by the caller), is read in square tiles of [`TILE_SIDE`] rows and
/// columns, its top two rows one chunk and its bottom two the other, as Embree's users trace
/// images; other batches in order. Two whole chunks that make one packet
/// ([`PacketFinder::find_pair`]; rays with no distance limit to apply) go to `walks.pair`
/// where `level` walks such pairs ([`RayQueries::packet_span`]); the chunks of other pairs go
/// to `walks.chunk` one by one, with the finder to look for their packets, and the chunks the
/// finder passes over go to `walks.alone` together, whose rays walk one by one. Answers land in the rays'
/// order whatever the order of the walks.
#[inline(always)]
fn serial_batch<A: Copy + Default, F, L: RayQueries + ?Sized>(
    rays: &[Ray],
    options: &QueryOptions<F>,
    answers: &mut [A],
    level: &L,
    width: Option<usize>,
    walks: Walks<
        impl FnMut([&RayPacket; 2], [&mut [A; PACKET_WIDTH]; 2]),
        impl FnMut(&mut PacketFinder, &[Ray], &mut [A]),
        impl FnMut(&[Ray], &mut [A]),
    >,
) {
    let Walks {
        mut pair,
        mut chunk,
        mut alone,
    } = walks;
    let span = level.packet_span();
    let mut finder = match width {
        Some(_) => PacketFinder::image(span),
        None => PacketFinder::new(span),
    };
    // Pairs are read where they lie: their rays need no distance limit applied.
    let pairs = span.is_some() && options.max_distance == f32::INFINITY;
    let mut sixteen = |finder: &mut PacketFinder, rays: &[Ray], answers: &mut [A]| {
        if let (true, Ok(both), Ok(both_answers)) = (
            pairs,
            <&[Ray; PAIR_WIDTH]>::try_from(rays),
            <&mut [A; PAIR_WIDTH]>::try_from(&mut *answers),
        ) {
            let (front, back) = halves(both);
            if finder.find_pair(front, back) {
                let (front, back) = both_answers.split_at_mut(PACKET_WIDTH);
                let halves = [front, back].map(|half| half.try_into().expect("half a pair"));
                pair(finder.pair(), halves);
                return;
            }
        }
        for (rays, answers) in rays
            .chunks(PACKET_WIDTH)
            .zip(answers.chunks_mut(PACKET_WIDTH))
        {
            chunk(finder, rays, answers);
        }
    };
    let mut start = 0;
    if let Some(width) = width {
        let band = TILE_SIDE * width;
        for (rays, answers) in rays.chunks_exact(band).zip(answers.chunks_mut(band)) {
            for_each_tile(rays, answers, width, |rays, answers| {
                sixteen(&mut finder, rays, answers)
            });
        }
        start = rays.len() / band * band;
    }
    while start < rays.len() {
        let passed_over = (finder.take_passed_over() * PACKET_WIDTH).min(rays.len() - start);
        if passed_over > 0 {
            let end = start + passed_over;
            alone(&rays[start..end], &mut answers[start..end]);
            start = end;
            continue;
        }
        let end = (start + PAIR_WIDTH).min(rays.len());
        // The walks between fill the caches with the hierarchy, and a batch's rays, read
        // once, would otherwise come from memory while the CPU waits (bunny camera image: the
        // first reads of a chunk took half the time of finding its packets).
        if let Some(ahead) = rays.get(end..(end + PAIR_WIDTH).min(rays.len())) {
            prefetch(ahead);
        }
        sixteen(&mut finder, &rays[start..end], &mut answers[start..end]);
        start = end;
    }
}

/// Hands `walk` the rays and answers of each [`TILE_SIDE`]-square tile of a band of
/// [`TILE_SIDE`] image rows `width` rays wide, row by row within a tile, then the rays left at
/// the band's right end a row at a time; writes the answers back in the rays' order.
#[inline(always)]
fn for_each_tile<A: Copy + Default>(
    rays: &[Ray],
    answers: &mut [A],
    width: usize,
    mut walk: impl FnMut(&[Ray], &mut [A]),
) {
    let mut tile_rays = [PLACEHOLDER_RAY; PAIR_WIDTH];
    let mut tile_answers = [A::default(); PAIR_WIDTH];
    let whole = width / TILE_SIDE * TILE_SIDE;
    for column in (0..whole).step_by(TILE_SIDE) {
        let place = |row: usize| row * width + column..row * width + column + TILE_SIDE;
        for row in 0..TILE_SIDE {
            tile_rays[row * TILE_SIDE..][..TILE_SIDE].copy_from_slice(&rays[place(row)]);
        }
        walk(&tile_rays, &mut tile_answers);
        for row in 0..TILE_SIDE {
            answers[place(row)].copy_from_slice(&tile_answers[row * TILE_SIDE..][..TILE_SIDE]);
        }
    }
    for row in 0..TILE_SIDE {
        let edge = row * width + whole..(row + 1) * width;
        walk(&rays[edge.clone()], &mut answers[edge]);
    }
}

/// Which rays of a chunk of up to [`PACKET_WIDTH`] rays of a batch hit anything, in `hits`, as
/// packets where `finder` finds them.
#[inline(always)]
fn occluded_chunk<L: RayQueries + ?Sized, F: Filter<L::Candidate>>(
    level: &L,
    rays: &[Ray],
    options: &QueryOptions<F>,
    finder: &mut PacketFinder,
    scratch: &mut [Ray; PACKET_WIDTH],
    hits: &mut [bool],
) {
    let (rays, lanes) = packet_rays(rays, options, scratch);
    let (packets, alone) = finder.find(rays, lanes);
    if packets.is_empty() {
        // Rays that walk alone, answered in place, as a loop of single-ray calls is.
        for (lane, (ray, hit)) in rays.iter().zip(hits).enumerate() {
            *hit = lanes & (1 << lane) != 0 && level.walk_any(ray, options);
        }
        return;
    }
    let mut hit = 0;
    for packet in packets {
        hit |= level.walk_any_packet(finder.rays(), packet, options) & packet;
    }
    for_each_lane(alone, |lane| {
        if level.walk_any(&rays[lane], options) {
            hit |= 1 << lane;
        }
    });
    for (lane, answer) in hits.iter_mut().enumerate() {
        *answer = hit & (1 << lane) != 0;
    }
}

/// The closest hits of a chunk of up to [`PACKET_WIDTH`] rays of a batch, in `hits`, as
/// packets where `finder` finds them.
#[inline(always)]
fn cast_chunk<L: RayQueries + ?Sized, F: Filter<L::Candidate>>(
    level: &L,
    rays: &[Ray],
    options: &QueryOptions<F>,
    finder: &mut PacketFinder,
    scratch: &mut [Ray; PACKET_WIDTH],
    hits: &mut [Option<L::Hit>],
) {
    let (rays, lanes) = packet_rays(rays, options, scratch);
    let (packets, alone) = finder.find(rays, lanes);
    if packets.is_empty() {
        // Rays that walk alone, answered in place, as a loop of single-ray calls is.
        for (lane, (ray, hit)) in rays.iter().zip(hits).enumerate() {
            *hit = if lanes & (1 << lane) != 0 {
                level.walk_closest(ray, options)
            } else {
                None
            };
        }
        return;
    }
    // The answers go to the caller's slice, or for a last chunk of fewer rays to `tail`
    // first: one copy of the code below, inlined.
    let mut tail = [None; PACKET_WIDTH];
    let (answers, whole) = match <&mut [_; PACKET_WIDTH]>::try_from(&mut *hits) {
        Ok(answers) => (answers, true),
        Err(_) => (&mut tail, false),
    };
    for packet in packets {
        level.walk_closest_packet(finder.rays(), packet, options, answers);
    }
    for_each_lane(alone, |lane| {
        answers[lane] = level.walk_closest(&rays[lane], options)
    });
    for_each_lane(!lanes & ALL_LANES, |lane| answers[lane] = None);
    if !whole {
        hits.copy_from_slice(&tail[..hits.len()]);
    }
}

/// Up to [`PACKET_WIDTH`] rays of a batch as a packet, cut to the options' distance limit, and
/// the bits of the lanes that hold a ray to answer (the others hit nothing). The rays may be
/// invalid ([`Ray::is_valid`]): a packet walk leaves them out and the single-ray walks answer
/// them, with no hit either way ([`crate::queries::packets::coherent`]). A whole packet of rays that
/// need no cut is read where it lies; otherwise the rays are copied to `scratch`, whose unused
/// lanes hold a placeholder.
#[inline(always)]
fn packet_rays<'r, F>(
    rays: &'r [Ray],
    options: &QueryOptions<F>,
    scratch: &'r mut [Ray; PACKET_WIDTH],
) -> (&'r [Ray; PACKET_WIDTH], u32) {
    let unlimited = options.max_distance == f32::INFINITY;
    if let (true, Ok(whole)) = (unlimited, <&[Ray; PACKET_WIDTH]>::try_from(rays)) {
        return (whole, ALL_LANES);
    }
    let mut lanes = 0;
    for (lane, ray) in rays.iter().enumerate().take(PACKET_WIDTH) {
        if let Some(ray) = options.limit_ray(ray) {
            scratch[lane] = ray;
            lanes |= 1 << lane;
        }
    }
    (scratch, lanes)
}

/// Whether `lanes` has at least `count` bits set: the lowest `count - 1` cleared, something is
/// left. Cheaper than `count_ones`, which without the `popcnt` instruction (not in the
/// baseline x86-64 a plain build targets) is a dozen operations.
#[inline(always)]
pub(crate) fn at_least(mut lanes: u32, count: u32) -> bool {
    for _ in 1..count {
        lanes &= lanes.wrapping_sub(1);
    }
    lanes != 0
}

/// Calls `f` with each set bit's index of `lanes`, lowest first.
#[inline]
pub(crate) fn for_each_lane(mut lanes: u32, mut f: impl FnMut(usize)) {
    while lanes != 0 {
        f(lanes.trailing_zeros() as usize);
        lanes &= lanes - 1;
    }
}

/// The levels that may implement the query traits: `Mesh`, `Instance` and `Scene`, each
/// declared in its own room.
pub(crate) mod sealed {
    pub trait Level {}
}
