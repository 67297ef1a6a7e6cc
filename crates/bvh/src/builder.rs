//! Build options and the build entry point: drops unusable boxes, then runs the chosen builder
//! ([`crate::sah`] or [`crate::lbvh`]) through one top-down driver that builds the top of the
//! tree in parallel and small subtrees sequentially.

use glam::{Vec3, Vec3A};
use meshcast_primitives::Aabb;
use rayon::prelude::*;

use crate::{lbvh, sah, Bvh, Node};

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
/// Subtrees with at most this many primitives are built on one thread.
const SEQUENTIAL_SUBTREE_PRIMITIVES: usize = 1 << 12;
/// Inputs with fewer boxes are prepared without rayon.
const PARALLEL_PREPARE_PRIMITIVES: usize = 1 << 14;

/// Which algorithm builds the tree.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Builder, Bvh};
/// use meshcast_primitives::Aabb;
///
/// let boxes: Vec<Aabb> = (0..64).map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 1.0))).collect();
/// let sah = Bvh::build(&boxes, &BuildOptions::default());
/// let fast = Bvh::build(&boxes, &BuildOptions { builder: Builder::Fast, ..BuildOptions::default() });
/// assert!(fast.validate(&boxes).is_ok());
/// assert!(sah.stats().sah_cost <= fast.stats().sah_cost * 1.5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Builder {
    /// Binned SAH (Wald, *On fast Construction of SAH-based Bounding Volume Hierarchies*,
    /// 2007): the best trees for tracing; the default.
    #[default]
    Sah,
    /// A linear BVH from sorted Morton codes (Lauterbach et al., *Fast BVH Construction on
    /// GPUs*, 2009; Karras, *Maximizing Parallelism in the Construction of BVHs, Octrees, and
    /// k-d Trees*, 2012), split top-down at the highest differing bit: several times faster
    /// to build, somewhat slower to trace. For scenes that change every frame.
    Fast,
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
    /// the thread count). The tree is the same as a sequential build's.
    #[default]
    Rayon,
}

/// How to build a [`Bvh`].
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Builder, Bvh, Parallel};
/// use meshcast_primitives::Aabb;
///
/// let boxes: Vec<Aabb> = (0..100)
///     .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 0.5)))
///     .collect();
/// let options = BuildOptions {
///     builder: Builder::Sah,
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
    /// The algorithm.
    pub builder: Builder,
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
    /// [`crate::WIDE_WIDTH`]. Default 1.
    pub leaf_block: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            builder: Builder::Sah,
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

    /// The SAH cost of testing `count` primitives: whole blocks of [`BuildOptions::leaf_block`].
    #[inline(always)]
    pub(crate) fn leaf_cost(&self, count: usize) -> f32 {
        let block = self.leaf_block.max(1);
        count.div_ceil(block) as f32
    }

    /// The leaf size actually used.
    pub(crate) fn clamped_max_leaf(&self) -> usize {
        self.max_leaf_primitives.clamp(1, u32::MAX as usize)
    }
}

impl Bvh {
    /// Builds a hierarchy over primitive boxes (in original primitive order).
    ///
    /// Boxes that are empty or not finite are dropped: their primitives are in no leaf and
    /// [`Bvh::dropped_count`] counts them. No input makes the build panic or recurse without
    /// end; with no usable box the hierarchy is empty and every query misses.
    ///
    /// # Panics
    /// If there are more than `u32::MAX / 2` boxes.
    pub fn build(boxes: &[Aabb], options: &BuildOptions) -> Self {
        assert!(
            boxes.len() <= (u32::MAX / 2) as usize,
            "too many primitives for 32-bit node indices"
        );
        let prims = prepare(boxes, options.parallel);
        if prims.is_empty() {
            return Self {
                primitive_count: boxes.len(),
                ..Self::default()
            };
        }
        let (nodes, order) = match options.builder {
            Builder::Sah => sah::build(prims, options),
            Builder::Fast => lbvh::build(prims, boxes, options),
        };
        Self {
            nodes,
            order,
            primitive_count: boxes.len(),
        }
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

    #[inline(always)]
    pub fn bounds(&self) -> Aabb {
        Aabb::new(self.min, self.max)
    }
}

/// The usable boxes (finite and non-empty) with their indices, in input order.
fn prepare(boxes: &[Aabb], parallel: Parallel) -> Vec<BuildPrimitive> {
    let make = |(index, b): (usize, &Aabb)| {
        (b.is_finite() && !b.is_empty()).then_some(BuildPrimitive {
            min: b.min,
            index: index as u32,
            max: b.max,
            key: 0,
        })
    };
    if parallel == Parallel::Rayon && boxes.len() >= PARALLEL_PREPARE_PRIMITIVES {
        boxes.par_iter().enumerate().filter_map(make).collect()
    } else {
        boxes.iter().enumerate().filter_map(make).collect()
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

/// The box and the centroid box of `prims`, in parallel for large inputs.
pub(crate) fn bounds_of(prims: &[BuildPrimitive], parallel: Parallel) -> (Aabb, CentroidBounds) {
    let one = |p: &BuildPrimitive| {
        let c = p.centroid();
        (p.bounds(), CentroidBounds { min: c, max: c })
    };
    let both =
        |a: (Aabb, CentroidBounds), b: (Aabb, CentroidBounds)| (a.0.union(b.0), a.1.union(b.1));
    let empty = (Aabb::EMPTY, CentroidBounds::EMPTY);
    if parallel == Parallel::Rayon && prims.len() >= PARALLEL_PREPARE_PRIMITIVES {
        prims.par_iter().map(one).reduce(|| empty, both)
    } else {
        prims.iter().map(one).fold(empty, both)
    }
}

/// What a builder decides for one node.
pub(crate) enum Split<T> {
    /// Make the node a leaf of all its primitives.
    Leaf,
    /// Split after the first `mid` primitives (now reordered), `0 < mid < len`.
    Node { mid: usize, left: T, right: T },
}

/// One top-down builder: decides each node from its primitives and per-node state.
pub(crate) trait Splitter: Sync {
    /// What a builder sorts or partitions.
    type Item: Send;
    /// Per-node state passed from parent to child (the node's box, say).
    type Task: Send;
    /// The node's box to store (a builder may store [`Aabb::EMPTY`] and refit afterwards).
    fn bounds(&self, task: &Self::Task) -> Aabb;
    /// Leaf or split; may reorder `items`.
    fn split(&self, items: &mut [Self::Item], task: Self::Task) -> Split<Self::Task>;
}

/// Runs `splitter` top-down from `root`: rayon over the halves of large subtrees, one thread
/// below [`SEQUENTIAL_SUBTREE_PRIMITIVES`]. Returns the node array (children after parents,
/// child pairs adjacent); the leaves' slots index `items` as reordered.
pub(crate) fn build_top_down<S: Splitter>(
    splitter: &S,
    items: &mut [S::Item],
    root: S::Task,
    parallel: Parallel,
) -> Vec<Node> {
    if parallel == Parallel::Sequential || items.len() <= SEQUENTIAL_SUBTREE_PRIMITIVES {
        return build_sequential(splitter, items, 0, root);
    }
    let piece = build_piece(splitter, items, 0, root);
    let mut nodes = Vec::with_capacity(piece.node_count());
    nodes.push(Node::leaf(Aabb::EMPTY, 0, 1));
    piece.emit(0, &mut nodes);
    nodes
}

/// The top of a tree built in parallel: splits down to subtrees built sequentially.
enum Piece {
    Flat(Vec<Node>),
    Split {
        bounds: Aabb,
        children: Box<(Piece, Piece)>,
    },
}

impl Piece {
    fn node_count(&self) -> usize {
        match self {
            Piece::Flat(nodes) => nodes.len(),
            Piece::Split { children, .. } => 1 + children.0.node_count() + children.1.node_count(),
        }
    }

    /// Writes this piece's root at `index` (already allocated) and appends the rest.
    fn emit(self, index: usize, out: &mut Vec<Node>) {
        match self {
            Piece::Flat(nodes) => {
                // Local node i >= 1 lands at base + i - 1.
                let shift = (out.len() - 1) as u32;
                out[index] = nodes[0].shifted(shift);
                out.extend(nodes[1..].iter().map(|n| n.shifted(shift)));
            }
            Piece::Split { bounds, children } => {
                let first = out.len();
                out[index] = Node::interior(bounds, first as u32);
                out.extend([Node::leaf(Aabb::EMPTY, 0, 1); 2]);
                let (left, right) = *children;
                left.emit(first, out);
                right.emit(first + 1, out);
            }
        }
    }
}

fn build_piece<S: Splitter>(
    splitter: &S,
    items: &mut [S::Item],
    first_slot: usize,
    task: S::Task,
) -> Piece {
    if items.len() <= SEQUENTIAL_SUBTREE_PRIMITIVES {
        return Piece::Flat(build_sequential(splitter, items, first_slot, task));
    }
    let bounds = splitter.bounds(&task);
    let len = items.len();
    match splitter.split(items, task) {
        Split::Leaf => Piece::Flat(vec![Node::leaf(bounds, first_slot as u32, len as u32)]),
        Split::Node { mid, left, right } => {
            assert!(
                mid > 0 && mid < len,
                "a split must leave both sides non-empty"
            );
            let (l, r) = items.split_at_mut(mid);
            let children = rayon::join(
                || build_piece(splitter, l, first_slot, left),
                || build_piece(splitter, r, first_slot + mid, right),
            );
            Piece::Split {
                bounds,
                children: Box::new(children),
            }
        }
    }
}

/// The sequential driver: an explicit work stack, so that even a degenerate tree as deep as
/// the primitive count cannot overflow the call stack.
fn build_sequential<S: Splitter>(
    splitter: &S,
    items: &mut [S::Item],
    first_slot: usize,
    root: S::Task,
) -> Vec<Node> {
    let mut nodes = Vec::with_capacity(items.len());
    nodes.push(Node::leaf(Aabb::EMPTY, 0, 1));
    let mut stack = vec![(0usize, 0usize, items.len(), root)];
    while let Some((index, start, end, task)) = stack.pop() {
        let bounds = splitter.bounds(&task);
        match splitter.split(&mut items[start..end], task) {
            Split::Leaf => {
                nodes[index] =
                    Node::leaf(bounds, (first_slot + start) as u32, (end - start) as u32);
            }
            Split::Node { mid, left, right } => {
                assert!(
                    mid > 0 && start + mid < end,
                    "a split must leave both sides non-empty"
                );
                let first = nodes.len();
                nodes[index] = Node::interior(bounds, first as u32);
                nodes.extend([Node::leaf(Aabb::EMPTY, 0, 1); 2]);
                stack.push((first + 1, start + mid, end, right));
                stack.push((first, start, start + mid, left));
            }
        }
    }
    nodes
}
