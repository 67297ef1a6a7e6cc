//! What every builder is given: the options of a build ([`BuildOptions`], the [`Quality`]
//! ladder, [`Parallel`], their defaults and bounds) and the usable boxes, prepared once
//! ([`Prepared`], [`BuildPrimitive`], [`CentroidBounds`]). Uses nothing else of the room.

use glam::{Vec3, Vec3A};
use meshcast_primitives::Aabb;
use rayon::prelude::*;

#[cfg(doc)]
use crate::binary::Bvh;
use crate::memory::{try_vec, OutOfMemory};

/// The fewest bins the SAH builder uses.
pub const MIN_BINS: usize = 2;
/// The most bins the SAH builder uses.
pub const MAX_BINS: usize = 32;
/// The SAH builder's default bin count.
pub const DEFAULT_BINS: usize = 16;
/// The default largest leaf.
pub const DEFAULT_MAX_LEAF_PRIMITIVES: usize = 8;
/// The default SAH cost of a node visit against one primitive test. Measured on the bunny
/// against 1.0: leaves of 2 to 4 triangles instead of 2, 26.7 instead of 38.5 bytes per
/// triangle, SAH cost (at unit costs) 32.3 instead of 31.4, the same trace speed within noise
/// (one thread: coherent 8.5 vs 8.8, incoherent 1.6 vs 1.5 Mrays/s).
pub const DEFAULT_TRAVERSAL_COST: f32 = 2.0;
/// Inputs with fewer boxes are prepared without rayon.
const PARALLEL_PREPARE_PRIMITIVES: usize = 1 << 14;
/// The boxes one rayon task prepares.
const PREPARE_CHUNK: usize = 1 << 14;

/// How much build time to spend for how good a tree: the ladder of Embree's build qualities.
///
/// Each step up builds slower. Measured through `meshcast_mesh::Mesh`
/// builds (leaves of four) with callgrind, one thread, instructions (wall times on the shared
/// 2-core machine varied by 2x between runs). x16 is the bunny subdivided twice (1.1M
/// triangles); a trace figure is the mean over coherent and incoherent rays, closest and any
/// hit:
///
/// | quality  | build, bunny | build, x16 | trace per ray, bunny | trace per ray, x16 |
/// |----------|--------------|------------|----------------------|--------------------|
/// | Fast     | 83 M         | 1.37 G     | 1111                 | 1211               |
/// | Balanced | 204 M        | 3.79 G     | 1074                 | 1153               |
/// | High     | 214 M        | 3.98 G     | 1084                 | 1158               |
///
/// High lowers the binary tree's SAH cost by only 0.1% (see `reinsertion.rs`) and the
/// eight-wide tree a mesh collapses it into is no better for it (bunny: wide SAH 24.07 ->
/// 24.09): for meshes, Balanced is the better choice today.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh, Quality};
/// use meshcast_primitives::Aabb;
///
/// let boxes: Vec<Aabb> = (0..64)
///     .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 1.0)))
///     .collect();
/// let build = |quality| Bvh::build(&boxes, &BuildOptions { quality, ..BuildOptions::default() });
/// let (fast, balanced, high) = (build(Quality::Fast), build(Quality::Balanced), build(Quality::High));
/// assert!(fast.validate(&boxes).is_ok() && high.validate(&boxes).is_ok());
/// assert!(balanced.stats().sah_cost <= fast.stats().sah_cost * 1.5);
/// assert!(high.stats().sah_cost <= balanced.stats().sah_cost);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Quality {
    /// A linear BVH from sorted Morton codes (Lauterbach et al., *Fast BVH Construction on
    /// GPUs*, 2009; Karras, *Maximizing Parallelism in the Construction of BVHs, Octrees, and
    /// k-d Trees*, 2012), split top-down at the highest differing bit: several times faster
    /// to build, slower to trace. For scenes that change every frame.
    Fast,
    /// Binned SAH (Wald, *On fast Construction of SAH-based Bounding Volume Hierarchies*,
    /// 2007), with an exact sweep for small nodes: the default.
    #[default]
    Balanced,
    /// Binned SAH, then a few passes of reinsertion (Bittner, Hapala, Havran, *Fast
    /// Insertion-Based Optimization of Bounding Volume Hierarchies*, 2013; Meister and Bittner,
    /// *Parallel Reinsertion for Bounding Volume Hierarchy Optimization*, 2018): the subtrees
    /// under the largest nodes move to wherever they lower the SAH cost most. The tree's SAH
    /// cost is never higher than [`Quality::Balanced`]'s. For meshes built once and traced
    /// many times.
    High,
}

/// Whether a build uses rayon.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh, Parallel};
/// use meshcast_primitives::Aabb;
///
/// let boxes: Vec<Aabb> = (0..1000).map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 2.0))).collect();
/// let sequential = BuildOptions { parallel: Parallel::Sequential, ..BuildOptions::default() };
/// let one = Bvh::build(&boxes, &sequential);
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
/// let two = pool.install(|| Bvh::build(&boxes, &BuildOptions::default()));
/// assert_eq!(one.nodes(), two.nodes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Parallel {
    /// Build on the calling thread only.
    Sequential,
    /// Build on the current rayon thread pool (run it under `ThreadPool::install` to choose
    /// the thread count). The tree is a sequential build's, bit for bit, on any number of
    /// threads (see [`Bvh::build`]).
    #[default]
    Rayon,
}

/// How to build a [`Bvh`]. The same boxes and options give the same tree on any number of
/// threads, whichever [`Parallel`] is chosen ([`Bvh::build`] says what is promised).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh, Parallel, Quality};
/// use meshcast_primitives::Aabb;
///
/// let boxes: Vec<Aabb> = (0..100)
///     .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 0.5)))
///     .collect();
/// let options = BuildOptions {
///     quality: Quality::High,
///     bins: 32,
///     max_leaf_primitives: 4,
///     parallel: Parallel::Sequential,
///     ..BuildOptions::default()
/// };
/// let bvh = Bvh::build(&boxes, &options);
/// assert!(bvh.validate(&boxes).is_ok());
/// assert!(bvh.stats().leaf_size_histogram.len() <= 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildOptions {
    /// The step of the quality ladder: the algorithm, and how long it may polish the tree.
    pub quality: Quality,
    /// SAH bins per axis, clamped to [`MIN_BINS`]`..=`[`MAX_BINS`].
    pub bins: usize,
    /// The largest leaf (at least 1). Always respected: primitives that cannot be told apart
    /// (equal centroids) are split by count.
    pub max_leaf_primitives: usize,
    /// Whether to use rayon.
    pub parallel: Parallel,
    /// The SAH cost of visiting a node, relative to testing one primitive; larger values give
    /// bigger leaves and fewer nodes. Default [`DEFAULT_TRAVERSAL_COST`].
    pub traversal_cost: f32,
    /// How many primitives a leaf test takes at once (at least 1): the SAH counts a leaf's
    /// cost in such blocks, rounded up, as Embree does for its four-triangle leaves, so that
    /// leaves fill whole blocks. A [`crate::WideBvh`] whose caller tests four at a time wants
    /// [`crate::LEAF_ALIGNMENT`]. Default 1.
    pub leaf_block: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            quality: Quality::Balanced,
            bins: DEFAULT_BINS,
            max_leaf_primitives: DEFAULT_MAX_LEAF_PRIMITIVES,
            parallel: Parallel::Rayon,
            traversal_cost: DEFAULT_TRAVERSAL_COST,
            leaf_block: 1,
        }
    }
}

impl BuildOptions {
    /// The bin count actually used.
    pub(crate) fn clamped_bins(&self) -> usize {
        self.bins.clamp(MIN_BINS, MAX_BINS)
    }

    /// The leaf size actually used.
    pub(crate) fn clamped_max_leaf(&self) -> usize {
        self.max_leaf_primitives.clamp(1, u32::MAX as usize)
    }
}

/// A usable primitive box with its original index, laid out in 32 bytes so that builders can
/// sort and partition these directly (streaming memory rather than gathering through indices).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct BuildPrimitive {
    pub min: Vec3,
    pub index: u32,
    pub max: Vec3,
    /// Room for a builder's own key.
    pub key: u32,
}

impl BuildPrimitive {
    /// The centroid, computed as `min / 2 + max / 2` so that huge boxes do not overflow.
    #[inline(always)]
    pub fn centroid(&self) -> Vec3A {
        Vec3A::from(self.min) * 0.5 + Vec3A::from(self.max) * 0.5
    }
}

/// The usable boxes (finite and non-empty) with their indices, in input order, and their
/// box and centroid box, found in the same pass.
pub(crate) struct Prepared {
    pub primitives: Vec<BuildPrimitive>,
    pub bounds: Aabb,
    pub centroids: CentroidBounds,
}

impl Prepared {
    /// The usable ones of the `count` boxes `box_of` gives (each asked once or twice), in
    /// one buffer reserved up front: the only allocation of the preparation.
    pub(super) fn try_new(
        count: usize,
        box_of: &(impl Fn(usize) -> Aabb + Sync),
        parallel: Parallel,
    ) -> Result<Self, OutOfMemory> {
        let usable = |b: &Aabb| b.is_finite() && !b.is_empty();
        let sequential = parallel == Parallel::Sequential || count < PARALLEL_PREPARE_PRIMITIVES;
        // Usually every box is usable: then one parallel pass finds the bounds and another
        // writes the primitives in place (no chunks to concatenate afterwards).
        if sequential || !(0..count).into_par_iter().all(|i| usable(&box_of(i))) {
            let mut prepared = Self {
                primitives: try_vec(count, "the build's primitives")?,
                bounds: Aabb::EMPTY,
                centroids: CentroidBounds::EMPTY,
            };
            if sequential {
                prepared.extend((0..count).map(box_of), 0);
                return Ok(prepared);
            }
            // Chunk by chunk in parallel into small parts, appended in input order.
            for first in (0..count).step_by(PREPARE_CHUNK * 64) {
                let end = count.min(first + PREPARE_CHUNK * 64);
                let parts: Vec<Self> = (first..end)
                    .into_par_iter()
                    .step_by(PREPARE_CHUNK)
                    .map(|start| {
                        let stop = end.min(start + PREPARE_CHUNK);
                        let mut part = Self {
                            primitives: Vec::with_capacity(stop - start),
                            bounds: Aabb::EMPTY,
                            centroids: CentroidBounds::EMPTY,
                        };
                        part.extend((start..stop).map(box_of), start);
                        part
                    })
                    .collect();
                for part in parts {
                    prepared.primitives.extend_from_slice(&part.primitives);
                    prepared.bounds = merge_boxes(prepared.bounds, part.bounds);
                    prepared.centroids = prepared.centroids.union(part.centroids);
                }
            }
            return Ok(prepared);
        }
        let mut primitives: Vec<BuildPrimitive> = try_vec(count, "the build's primitives")?;
        (0..count)
            .into_par_iter()
            .map(|index| {
                let b = box_of(index);
                BuildPrimitive {
                    min: b.min,
                    index: index as u32,
                    max: b.max,
                    key: 0,
                }
            })
            .collect_into_vec(&mut primitives);
        let (bounds, centroids) = primitives.par_chunks(PREPARE_CHUNK).map(bounds_of).reduce(
            || (Aabb::EMPTY, CentroidBounds::EMPTY),
            |a, b| (merge_boxes(a.0, b.0), a.1.union(b.1)),
        );
        Ok(Self {
            primitives,
            bounds,
            centroids,
        })
    }

    /// Appends the usable ones of `boxes`, the first of which has index `first`.
    fn extend(&mut self, boxes: impl Iterator<Item = Aabb>, first: usize) {
        let (mut min, mut max) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
        let (mut cmin, mut cmax) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
        for (i, b) in boxes.enumerate() {
            if !b.is_finite() || b.is_empty() {
                continue;
            }
            let p = BuildPrimitive {
                min: b.min,
                index: (first + i) as u32,
                max: b.max,
                key: 0,
            };
            let c = p.centroid();
            min = min.min(b.min.into());
            max = max.max(b.max.into());
            cmin = cmin.min(c);
            cmax = cmax.max(c);
            self.primitives.push(p);
        }
        self.bounds = merge_boxes(self.bounds, Aabb::new(min.into(), max.into()));
        self.centroids = self.centroids.union(CentroidBounds {
            min: cmin,
            max: cmax,
        });
    }
}

/// The box of a set of centroids, as two SIMD corners.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CentroidBounds {
    pub min: Vec3A,
    pub max: Vec3A,
}

impl CentroidBounds {
    pub const EMPTY: Self = Self {
        min: Vec3A::INFINITY,
        max: Vec3A::NEG_INFINITY,
    };

    #[inline]
    pub fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
}

/// The union of two boxes with the `Vec3A` `min` and `max` of the passes over primitives
/// ([`bounds_of`], [`Prepared::extend`]), so that merging the parts of a parallel pass in
/// order gives the sequential pass's box bit for bit. [`Aabb::union`] works on `Vec3`, whose
/// `min` keeps the later of `0.0` and `-0.0` where `Vec3A`'s keeps `-0.0` (NEON) or the
/// earlier one (wasm); on x86-64 both keep the later one.
fn merge_boxes(a: Aabb, b: Aabb) -> Aabb {
    let min = Vec3A::from(a.min).min(Vec3A::from(b.min));
    let max = Vec3A::from(a.max).max(Vec3A::from(b.max));
    Aabb::new(min.into(), max.into())
}

/// The box and the centroid box of `prims`.
pub(crate) fn bounds_of(prims: &[BuildPrimitive]) -> (Aabb, CentroidBounds) {
    let (mut min, mut max) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
    let mut centroids = CentroidBounds::EMPTY;
    for p in prims {
        let c = p.centroid();
        min = min.min(p.min.into());
        max = max.max(p.max.into());
        centroids.min = centroids.min.min(c);
        centroids.max = centroids.max.max(c);
    }
    (Aabb::new(min.into(), max.into()), centroids)
}
