//! Traversal of the [`WideBvh`]: closest hit, any hit and every hit over a leaf closure that
//! gets a whole leaf at a time (so that it can test its primitives several at once).
//!
//! One loop serves every query: closest hit visits the entered children nearest first and
//! skips those that start beyond the best hit so far; any hit and every hit (a const flag)
//! take the children in lane order and never shrink the range; the first `max_hits` hits
//! ([`WideBvh::cast_first`]) walk as closest hit, the range shrinking to the last of them. Each node's eight boxes are
//! tested by the hierarchy's [`Kernel`] (`simd/`), with the same arithmetic and widening as
//! the binary tree's slab test, so no box that holds a hit is culled and the answers equal a
//! brute-force loop, ties included, whichever kernel runs.
//!
//! The stack is a fixed array of 8-byte entries, sized for the tree's depth (a deeper tree,
//! which only pathological input builds, walks with a heap stack and the portable kernel).
//! Children are ordered without data-dependent branches: each entered lane's rank is the
//! number of entered lanes with a smaller entry distance, and it is stored at that rank.
//!
//! Measured dead ends (bunny, one thread, best of interleaved runs): one copy of the loop per
//! direction octant, picking the near planes at compile time, was 2-5% faster with the SSE2
//! kernel alone but is an eight-way jump that mispredicts on random rays and eight times the
//! code once kernels multiply it; near-first order for any hit made random occlusion rays
//! slower (4.0 -> 3.65 Mrays/s); an insertion sort instead of ranks for three or more children
//! was 1% faster on camera rays and 4% slower on random ones (12.35 vs 12.17, 3.98 vs 4.14);
//! prefetching the nodes pushed on the stack changed nothing, on the bunny or the bunny x16;
//! pushing entries one by one instead of copying them as a slice changed nothing.

use core::ops::Range;

use arrayvec::ArrayVec;
use glam::Vec4;
use meshcast_primitives::{Hit, Ray};

use crate::first_hits::FirstHits;
use crate::simd::{self, NodeKernel, Portable, RaySetup};
use crate::wide_node::{WideNode, WIDE_WIDTH};
use crate::{Kernel, WideBvh, LEAF_ALIGNMENT};

/// Entries of the fixed traversal stack: enough for trees of [`MAX_FIXED_STACK_DEPTH`] levels.
pub(crate) const STACK_CAPACITY: usize = (WIDE_WIDTH - 1) * MAX_FIXED_STACK_DEPTH;

/// The deepest tree (in node levels) walked with the fixed stack.
pub(crate) const MAX_FIXED_STACK_DEPTH: usize = 24;

/// Set in a [`Pending::reference`] that names a leaf lane rather than a node.
pub(crate) const LEAF_REFERENCE: u32 = 1 << 31;

/// A subtree waiting on the stack: a node index, or [`LEAF_REFERENCE`] with the node and lane
/// of a leaf (`node << 3 | lane`), and the distance at which the ray enters its box.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pending {
    pub(crate) reference: u32,
    pub(crate) entry: f32,
}

/// The stack of a traversal.
pub(crate) trait TraversalStack: Default {
    fn push(&mut self, pending: Pending);
    fn push_slice(&mut self, pending: &[Pending]);
    fn pop(&mut self) -> Option<Pending>;
}

/// The stack of trees no deeper than [`MAX_FIXED_STACK_DEPTH`] levels: each level pushes at
/// most `WIDE_WIDTH - 1` entries.
pub(crate) type FixedStack = ArrayVec<Pending, STACK_CAPACITY>;

impl TraversalStack for FixedStack {
    #[inline(always)]
    fn push(&mut self, pending: Pending) {
        ArrayVec::push(self, pending);
    }

    #[inline(always)]
    fn push_slice(&mut self, pending: &[Pending]) {
        self.try_extend_from_slice(pending)
            .expect("the stack is sized for the tree's depth");
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Pending> {
        ArrayVec::pop(self)
    }
}

impl TraversalStack for Vec<Pending> {
    #[inline(always)]
    fn push(&mut self, pending: Pending) {
        Vec::push(self, pending);
    }

    #[inline(always)]
    fn push_slice(&mut self, pending: &[Pending]) {
        self.extend_from_slice(pending);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Pending> {
        Vec::pop(self)
    }
}

/// What a traversal did, summed over rays: from [`WideBvh::cast_counted`] and
/// [`WideBvh::occluded_counted`], so that optimisation can follow counts as well as times.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use core::ops::Range;
/// use meshcast_bvh::{BuildOptions, Bvh, LeafIntersector, TraversalCounts, WideBvh};
/// use meshcast_primitives::{Aabb, Hit, Ray};
///
/// let boxes = [Aabb::new(Vec3::ZERO, Vec3::ONE)];
/// let wide = WideBvh::from_binary(&Bvh::build(&boxes, &BuildOptions::default()));
/// let mut counts = TraversalCounts::default();
/// let ray = Ray::new(Vec3::new(0.5, 0.5, -1.0), Vec3::Z);
/// struct Everything;
/// impl LeafIntersector for Everything {
///     fn closest(&mut self, _: Range<u32>, ray: &Ray) -> Option<Hit> {
///         Some(Hit::new(ray.t_max.min(1.0), 0.0, 0.0))
///     }
///     fn any(&mut self, _: Range<u32>, _: &Ray) -> bool {
///         true
///     }
/// }
/// assert!(wide.occluded_counted(&ray, Everything, &mut counts));
/// assert_eq!((counts.rays, counts.nodes, counts.leaves, counts.blocks), (1, 1, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraversalCounts {
    /// Rays traced (degenerate rays and empty hierarchies included, which visit nothing).
    pub rays: u64,
    /// Nodes whose eight boxes were tested.
    pub nodes: u64,
    /// Leaves handed to the leaf closure.
    pub leaves: u64,
    /// Blocks of [`LEAF_ALIGNMENT`] slots in those leaves (a mesh tests one block of four
    /// triangles at once).
    pub blocks: u64,
}

impl core::ops::Add for TraversalCounts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            rays: self.rays + other.rays,
            nodes: self.nodes + other.nodes,
            leaves: self.leaves + other.leaves,
            blocks: self.blocks + other.blocks,
        }
    }
}

/// Counting in a traversal: the no-op `()` for the fast path, [`TraversalCounts`] otherwise.
pub(crate) trait Counters {
    fn ray(&mut self) {}
    fn node(&mut self) {}
    fn leaf(&mut self, _slots: u32) {}
}

impl Counters for () {}

impl Counters for TraversalCounts {
    #[inline(always)]
    fn ray(&mut self) {
        self.rays += 1;
    }

    #[inline(always)]
    fn node(&mut self) {
        self.nodes += 1;
    }

    #[inline(always)]
    fn leaf(&mut self, slots: u32) {
        self.leaves += 1;
        self.blocks += u64::from(slots) / LEAF_ALIGNMENT as u64;
    }
}

/// What an any-hit walk returns when a leaf is hit: only its presence matters.
const FOUND: Hit = Hit {
    t: 0.0,
    u: 0.0,
    v: 0.0,
    triangle: 0,
};

/// The primitives of a [`WideBvh`]'s leaves, as its traversals test them: a whole leaf at a
/// time, so that they can be tested several at once.
///
/// A type whose methods are `#[inline(always)]` is compiled into each kernel's traversal loop
/// ([`WideBvh::cast_leaves`], [`WideBvh::occluded_leaves`]), and so gets that kernel's
/// instruction set too; a closure given to [`WideBvh::cast`] is usually called out of line.
pub trait LeafIntersector {
    /// The closest hit among the primitives in leaf slots `slots` (a range of
    /// [`WideBvh::primitive_order`], padding included) within `ray`'s range, ties to the
    /// smaller primitive index, with `triangle` set to the primitive's index.
    fn closest(&mut self, slots: Range<u32>, ray: &Ray) -> Option<Hit>;

    /// Whether any primitive in leaf slots `slots` is hit within `ray`'s range.
    fn any(&mut self, slots: Range<u32>, ray: &Ray) -> bool;
}

/// [`WideBvh::cast`]'s closure as a [`LeafIntersector`].
struct ClosestLeaf<F>(F);

impl<F: FnMut(Range<u32>, &Ray) -> Option<Hit>> LeafIntersector for ClosestLeaf<F> {
    #[inline(always)]
    fn closest(&mut self, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        (self.0)(slots, ray)
    }

    #[inline(always)]
    fn any(&mut self, slots: Range<u32>, ray: &Ray) -> bool {
        (self.0)(slots, ray).is_some()
    }
}

/// [`WideBvh::occluded`]'s closure as a [`LeafIntersector`].
struct AnyLeaf<F>(F);

impl<F: FnMut(Range<u32>, &Ray) -> bool> LeafIntersector for AnyLeaf<F> {
    #[inline(always)]
    fn closest(&mut self, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        (self.0)(slots, ray).then_some(FOUND)
    }

    #[inline(always)]
    fn any(&mut self, slots: Range<u32>, ray: &Ray) -> bool {
        (self.0)(slots, ray)
    }
}

/// [`WideBvh::cast_all`]'s closure as a [`LeafIntersector`]: every hit of a leaf appended, none
/// reported, so that the any-hit walk visits every leaf the ray enters.
struct AppendAll<'h, F> {
    leaf: F,
    hits: &'h mut Vec<Hit>,
}

impl<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)> LeafIntersector for AppendAll<'_, F> {
    #[inline(always)]
    fn closest(&mut self, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        (self.leaf)(slots, ray, self.hits);
        None
    }

    #[inline(always)]
    fn any(&mut self, slots: Range<u32>, ray: &Ray) -> bool {
        (self.leaf)(slots, ray, self.hits);
        false
    }
}

/// [`WideBvh::cast_first`]'s closure as a [`LeafIntersector`]: each leaf's hits appended to
/// the first hits so far, and the last of those reported once there are enough, so that the
/// closest-hit walk shrinks the range to it.
struct AppendFirst<'h, F> {
    leaf: F,
    first: &'h mut FirstHits<Hit>,
}

impl<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)> LeafIntersector for AppendFirst<'_, F> {
    #[inline(always)]
    fn closest(&mut self, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        let start = self.first.len();
        (self.leaf)(slots, ray, self.first.hits_mut());
        self.first.settle(start, ray)
    }

    /// Not asked: [`WideBvh::cast_first`] runs the closest-hit walk.
    #[inline(always)]
    fn any(&mut self, slots: Range<u32>, ray: &Ray) -> bool {
        self.closest(slots, ray);
        false
    }
}

impl WideBvh {
    /// The closest hit: the smallest `t` in the ray's range, ties going to the smaller
    /// primitive index ([`Hit::order`]), as [`crate::Bvh::cast`] answers.
    ///
    /// `leaf(slots, ray)` returns the closest hit among the primitives in leaf slots `slots`
    /// (a range of [`WideBvh::primitive_order`], padding included) within `ray`'s range,
    /// whose `t_max` shrinks to the best hit so far (inclusive), with `triangle` set to the
    /// primitive's index. Nodes are visited nearest first. A degenerate ray or an empty
    /// hierarchy gives `None` without calling `leaf`.
    pub fn cast<F: FnMut(Range<u32>, &Ray) -> Option<Hit>>(
        &self,
        ray: &Ray,
        leaf: F,
    ) -> Option<Hit> {
        self.run::<false, _, _>(ray, &mut ClosestLeaf(leaf), &mut ())
    }

    /// [`WideBvh::cast`] with a [`LeafIntersector`] compiled into the traversal loop.
    pub fn cast_leaves(&self, ray: &Ray, mut leaf: impl LeafIntersector) -> Option<Hit> {
        self.run::<false, _, _>(ray, &mut leaf, &mut ())
    }

    /// [`WideBvh::cast_leaves`], adding what it visited to `counts` (a separate path: the
    /// other queries count nothing and pay nothing for it).
    pub fn cast_counted(
        &self,
        ray: &Ray,
        mut leaf: impl LeafIntersector,
        counts: &mut TraversalCounts,
    ) -> Option<Hit> {
        self.run::<false, _, _>(ray, &mut leaf, counts)
    }

    /// Whether any primitive is hit in the ray's range: stops at the first leaf for which
    /// `leaf(slots, ray)` is true. A degenerate ray or an empty hierarchy gives `false`.
    pub fn occluded<F: FnMut(Range<u32>, &Ray) -> bool>(&self, ray: &Ray, leaf: F) -> bool {
        self.run::<true, _, _>(ray, &mut AnyLeaf(leaf), &mut ())
            .is_some()
    }

    /// [`WideBvh::occluded`] with a [`LeafIntersector`] compiled into the traversal loop.
    pub fn occluded_leaves(&self, ray: &Ray, mut leaf: impl LeafIntersector) -> bool {
        self.run::<true, _, _>(ray, &mut leaf, &mut ()).is_some()
    }

    /// [`WideBvh::occluded_leaves`], adding what it visited to `counts`.
    pub fn occluded_counted(
        &self,
        ray: &Ray,
        mut leaf: impl LeafIntersector,
        counts: &mut TraversalCounts,
    ) -> bool {
        self.run::<true, _, _>(ray, &mut leaf, counts).is_some()
    }

    /// Every hit in the ray's range, sorted by [`Hit::order`] (`t`, then primitive index), as
    /// [`crate::Bvh::cast_all`] answers: `leaf(slots, ray, hits)` appends the hits of the
    /// primitives in leaf slots `slots` (the range it is given never shrinks).
    pub fn cast_all<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)>(
        &self,
        ray: &Ray,
        leaf: F,
    ) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.run::<true, _, _>(
            ray,
            &mut AppendAll {
                leaf,
                hits: &mut hits,
            },
            &mut (),
        );
        hits.retain(|h| ray.contains_t(h.t));
        hits.sort_unstable_by(Hit::order);
        hits
    }

    /// The first `max_hits` hits of [`WideBvh::cast_all`], sorted by [`Hit::order`]: `leaf`
    /// as there, with `ray`'s range shrinking, inclusively, to the last of the first
    /// `max_hits` hits once that many are found, so that the walk (the closest-hit walk,
    /// nearest children first) skips the subtrees beyond it. A degenerate ray, an empty
    /// hierarchy or `max_hits == 0` gives no hit.
    pub fn cast_first<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)>(
        &self,
        ray: &Ray,
        max_hits: usize,
        leaf: F,
    ) -> Vec<Hit> {
        if max_hits == 0 {
            return Vec::new();
        }
        let mut first = FirstHits::new(max_hits);
        self.run::<false, _, _>(
            ray,
            &mut AppendFirst {
                leaf,
                first: &mut first,
            },
            &mut (),
        );
        first.into_sorted()
    }

    /// The kernel this hierarchy's traversals run ([`Kernel::preferred`] unless set).
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Makes the traversals run `kernel`, for tests and benchmarks that compare kernels
    /// (every kernel gives the same answers).
    ///
    /// # Errors
    /// [`crate::Error::UnsupportedKernel`] if this CPU cannot run it; the kernel is then
    /// unchanged.
    pub fn set_kernel(&mut self, kernel: Kernel) -> Result<(), crate::Error> {
        if !kernel.is_supported() {
            return Err(crate::Error::UnsupportedKernel { kernel });
        }
        self.kernel = kernel;
        Ok(())
    }

    /// Runs the loop with the fixed stack and the hierarchy's kernel, or for a tree too deep
    /// for that stack, with a heap stack and the portable kernel.
    #[inline(always)]
    fn run<const ANY: bool, L, C>(&self, ray: &Ray, leaf: &mut L, counters: &mut C) -> Option<Hit>
    where
        L: LeafIntersector,
        C: Counters,
    {
        counters.ray();
        if self.nodes.is_empty() {
            return None;
        }
        if self.depth as usize <= MAX_FIXED_STACK_DEPTH {
            simd::walk::<FixedStack, C, L, ANY>(self, ray, leaf, counters)
        } else {
            self.walk::<Portable, Vec<Pending>, C, L, ANY>(ray, leaf, counters)
        }
    }

    /// The traversal loop, for kernel `K`: closest hit, or with `ANY` the first leaf that
    /// reports a hit (every leaf, for a closure that never does). A degenerate ray misses.
    ///
    /// Everything a ray costs before its first node test, the validity check included, is
    /// compiled here, in the kernel's instruction set.
    #[inline(always)]
    pub(crate) fn walk<K, S, C, L, const ANY: bool>(
        &self,
        ray: &Ray,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit>
    where
        K: NodeKernel,
        S: TraversalStack,
        C: Counters,
        L: LeafIntersector,
    {
        if !ray.is_valid() {
            return None;
        }
        let kernel_ray = K::prepare(&RaySetup::new(ray, &self.bounds));
        let mut best: Option<Hit> = None;
        let mut t_max = ray.t_max;
        let mut stack = S::default();
        let mut current = 0u32;
        loop {
            if current & LEAF_REFERENCE == 0 {
                let node = &self.nodes[current as usize];
                counters.node();
                let (mask, entries) = K::test(&kernel_ray, node, t_max);
                if mask != 0 {
                    current = if ANY {
                        push_in_lane_order(current, node, mask, &mut stack)
                    } else {
                        push_nearest_last(current, node, mask, &entries, &mut stack)
                    };
                    continue;
                }
            } else {
                let slots = self.leaf_slots(current);
                counters.leaf(slots.end - slots.start);
                if ANY {
                    if leaf.any(slots, ray) {
                        return Some(FOUND);
                    }
                } else {
                    let range = ray.with_range(ray.t_min, t_max);
                    if let Some(hit) = leaf.closest(slots, &range) {
                        if range.contains_t(hit.t) && best.is_none_or(|b| hit.is_closer_than(&b)) {
                            best = Some(hit);
                            t_max = hit.t;
                        }
                    }
                }
            }
            loop {
                match stack.pop() {
                    None => return best,
                    Some(next) if ANY || next.entry <= t_max => {
                        current = next.reference;
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }

    /// The slots of the leaf a [`LEAF_REFERENCE`] names.
    #[inline(always)]
    pub(crate) fn leaf_slots(&self, reference: u32) -> Range<u32> {
        let (parent, lane) = leaf_parent(reference);
        let node = &self.nodes[parent];
        node.offset[lane]..node.offset[lane] + node.count[lane]
    }
}

/// The node and the lane of the leaf a [`LEAF_REFERENCE`] names.
#[inline(always)]
pub(crate) fn leaf_parent(reference: u32) -> (usize, usize) {
    (
        ((reference & !LEAF_REFERENCE) >> 3) as usize,
        (reference & 7) as usize,
    )
}

/// What `lane` of node `index` holds, as a stack reference.
#[inline(always)]
pub(crate) fn reference(index: u32, node: &WideNode, lane: usize) -> u32 {
    if node.count[lane] == 0 {
        node.offset[lane]
    } else {
        LEAF_REFERENCE | index << 3 | lane as u32
    }
}

/// Pushes every lane in `mask` (not empty) but the first, and returns the first.
#[inline(always)]
pub(crate) fn push_in_lane_order(
    index: u32,
    node: &WideNode,
    mut mask: u32,
    stack: &mut impl TraversalStack,
) -> u32 {
    let first = mask.trailing_zeros() as usize;
    mask &= mask - 1;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        stack.push(Pending {
            reference: reference(index, node, lane),
            entry: 0.0,
        });
    }
    reference(index, node, first)
}

/// Pushes the lanes in `mask` (not empty) but the nearest, farthest first (so that they are
/// popped nearest first), and returns the nearest.
///
/// One lane goes on; of two, the nearer goes on and the other waits. With more, each lane's
/// place is its rank: the number of lanes in `mask` that are nearer, or as near and earlier.
/// The ranks come from SIMD compares, with no branch on the distances.
#[inline(always)]
pub(crate) fn push_nearest_last(
    index: u32,
    node: &WideNode,
    mask: u32,
    entries: &[f32; WIDE_WIDTH],
    stack: &mut impl TraversalStack,
) -> u32 {
    let first = mask.trailing_zeros() as usize;
    let rest = mask & (mask - 1);
    if rest == 0 {
        return reference(index, node, first);
    }
    if rest & (rest - 1) == 0 {
        // Two lanes, the commonest case after one: the nearer goes on, the other waits.
        let second = rest.trailing_zeros() as usize;
        let (near, far) = if entries[second] < entries[first] {
            (second, first)
        } else {
            (first, second)
        };
        stack.push(Pending {
            reference: reference(index, node, far),
            entry: entries[far],
        });
        return reference(index, node, near);
    }
    let halves = [
        Vec4::from_slice(&entries[..4]),
        Vec4::from_slice(&entries[4..]),
    ];
    let last = mask.count_ones() as usize - 1;
    let mut sorted = [Pending::default(); WIDE_WIDTH];
    let mut lanes = mask;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let rank = (nearer_lanes(&halves, entries[lane], lane) & mask).count_ones() as usize;
        sorted[(last - rank) % WIDE_WIDTH] = Pending {
            reference: reference(index, node, lane),
            entry: entries[lane],
        };
    }
    stack.push_slice(&sorted[..last]);
    sorted[last].reference
}

/// The lanes whose entry distance (in `halves`, four lanes each) is smaller than `entry`, or
/// equal with a smaller lane than `lane`, as bits. Entries are never NaN.
#[inline(always)]
pub(crate) fn nearer_lanes(halves: &[Vec4; 2], entry: f32, lane: usize) -> u32 {
    let entry = Vec4::splat(entry);
    let [low, high] = halves;
    let smaller = low.cmplt(entry).bitmask() | high.cmplt(entry).bitmask() << 4;
    let equal = low.cmpeq(entry).bitmask() | high.cmpeq(entry).bitmask() << 4;
    smaller | (equal & ((1 << lane) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, Bvh};
    use glam::Vec3;
    use meshcast_primitives::Triangle;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    #[test]
    fn the_heap_stack_walk_answers_as_brute_force() {
        // Trees deeper than `MAX_FIXED_STACK_DEPTH` levels walk with the heap stack; check
        // that walk (and the fixed one) on an ordinary tree against a loop over every triangle.
        let mut rng = Pcg64::seed_from_u64(0x853c_49e6_748f_ea9b);
        let mut point = |scale: f32| Vec3::from(rng.gen::<[f32; 3]>()) * 2.0 * scale - scale;
        let triangles: Vec<Triangle> = (0..500)
            .map(|_| {
                let c = point(4.0);
                Triangle::new(c + point(0.5), c + point(0.5), c + point(0.5))
            })
            .collect();
        let wide =
            WideBvh::from_binary(&Bvh::build_primitives(&triangles, &BuildOptions::default()));
        let order = wide.primitive_order();
        let closest_in = |slots: Range<u32>, ray: &Ray| {
            order[slots.start as usize..slots.end as usize]
                .iter()
                .filter(|&&p| p != crate::PADDING_SLOT)
                .filter_map(|&p| Some(triangles[p as usize].intersect(ray)?.with_triangle(p)))
                .reduce(|a, b| if b.is_closer_than(&a) { b } else { a })
        };
        let bits = |h: Option<Hit>| h.map(|h| (h.triangle, h.t.to_bits()));
        let mut hits = 0;
        for i in 0..400 {
            let origin = point(8.0);
            let target = triangles[i % triangles.len()].centroid() + point(0.2);
            let ray = Ray::new(origin, target - origin);
            let expected = triangles
                .iter()
                .enumerate()
                .filter_map(|(i, t)| Some(t.intersect(&ray)?.with_triangle(i as u32)))
                .reduce(|a, b| if b.is_closer_than(&a) { b } else { a });
            hits += usize::from(expected.is_some());
            let walk = |any: bool, heap: bool| {
                let leaf = &mut ClosestLeaf(closest_in);
                match (any, heap) {
                    (false, false) => {
                        wide.walk::<Portable, FixedStack, _, _, false>(&ray, leaf, &mut ())
                    }
                    (false, true) => {
                        wide.walk::<Portable, Vec<Pending>, _, _, false>(&ray, leaf, &mut ())
                    }
                    (true, false) => {
                        wide.walk::<Portable, FixedStack, _, _, true>(&ray, leaf, &mut ())
                    }
                    (true, true) => {
                        wide.walk::<Portable, Vec<Pending>, _, _, true>(&ray, leaf, &mut ())
                    }
                }
            };
            for heap in [false, true] {
                assert_eq!(
                    bits(walk(false, heap)),
                    bits(expected),
                    "{ray:?} heap {heap}"
                );
                assert_eq!(
                    walk(true, heap).is_some(),
                    expected.is_some(),
                    "{ray:?} heap {heap}"
                );
            }
        }
        assert!(hits > 200, "{hits}");
    }

    #[test]
    fn nearer_lanes_break_ties_by_lane() {
        let entries = [3.0, -1.0, 0.0, -0.0, 1e30, -1e30, 3.0, f32::INFINITY];
        let halves = [
            Vec4::from_slice(&entries[..4]),
            Vec4::from_slice(&entries[4..]),
        ];
        assert_eq!(nearer_lanes(&halves, entries[0], 0), 0b0010_1110);
        assert_eq!(nearer_lanes(&halves, entries[6], 6), 0b0010_1111);
        // -0.0 and 0.0 are as near: the earlier lane goes first.
        assert_eq!(nearer_lanes(&halves, entries[3], 3), 0b0010_0110);
        assert_eq!(nearer_lanes(&halves, entries[2], 2), 0b0010_0010);
    }

    #[test]
    fn children_are_pushed_farthest_first() {
        let mut node = WideNode::EMPTY;
        for lane in 0..WIDE_WIDTH {
            node.offset[lane] = 10 + lane as u32;
            node.count[lane] = 0;
        }
        let entries = [5.0, 1.0, 7.0, 0.5, 9.0, 3.0, 2.0, 8.0];
        let mask = 0b1011_0111;
        let mut stack = FixedStack::default();
        let nearest = push_nearest_last(0, &node, mask, &entries, &mut stack);
        assert_eq!(nearest, 11); // lane 1, at 1.0
        let popped: Vec<u32> = core::iter::from_fn(|| stack.pop().map(|p| p.reference)).collect();
        // lanes 5 (3.0), 0 (5.0), 2 (7.0), 7 (8.0), 4 (9.0)
        assert_eq!(popped, [15, 10, 12, 17, 14]);
    }
}
