//! Traversal of the [`WideBvh`]: closest hit, any hit and every hit over a leaf closure that
//! gets a whole leaf at a time (so that it can test its primitives several at once).
//!
//! One loop serves every query: closest hit visits the entered children nearest first and
//! skips those that start beyond the best hit so far; any hit and every hit (a const flag)
//! take the children in lane order and never shrink the range; the first `max_hits` hits
//! ([`WideBvh::cast_first`]) walk as closest hit, the range shrinking to the last of them.
//! Each node's eight boxes are tested by the hierarchy's [`Kernel`] (`simd/`), with the same
//! arithmetic and widening as the binary tree's slab test, so no box that holds a hit is
//! culled and the answers equal a brute-force loop, ties included, whichever kernel runs.
//! The loop is written once over the contracts (`contracts.rs`) and handed to the kernel
//! dispatch (`simd::walk`) as a [`RayWalk`], which compiles it for the kernel's instruction
//! set.
//!
//! Measured dead ends (bunny, one thread, best of interleaved runs): one copy of the loop per
//! direction octant, picking the near planes at compile time, was 2-5% faster with the SSE2
//! kernel alone but is an eight-way jump that mispredicts on random rays and eight times the
//! code once kernels multiply it; near-first order for any hit made random occlusion rays
//! slower (4.0 -> 3.65 Mrays/s). The stack and the child ordering are in `stack.rs`.
//!
//! Uses the contracts, the stack (`stack.rs`) and the kernel dispatch (`simd::walk`).

use core::ops::Range;

use core::marker::PhantomData;

use meshcast_primitives::{Hit, Ray, Simd};

use super::stack::{push_in_lane_order, push_nearest_last, FixedStack, MAX_FIXED_STACK_DEPTH};
use crate::contracts::{
    Counters, LeafIntersector, Pending, RaySetup, RayWalk, TraversalCounts, TraversalStack,
    LEAF_REFERENCE,
};
use crate::first_hits::FirstHits;
use crate::simd::{self, FusedLaneRay, LaneRay, NodeTest, SupportedKernel};
use crate::{Kernel, WideBvh};

/// What an any-hit walk returns when a leaf is hit: only its presence matters.
const FOUND: Hit = Hit {
    t: 0.0,
    u: 0.0,
    v: 0.0,
    triangle: 0,
};

/// [`WideBvh::cast`]'s closure as a [`LeafIntersector`].
struct ClosestLeaf<F>(F);

impl<F: FnMut(Range<u32>, &Ray) -> Option<Hit>> LeafIntersector for ClosestLeaf<F> {
    #[inline(always)]
    fn closest<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        (self.0)(slots, ray)
    }

    #[inline(always)]
    fn any<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> bool {
        (self.0)(slots, ray).is_some()
    }
}

/// [`WideBvh::occluded`]'s closure as a [`LeafIntersector`].
struct AnyLeaf<F>(F);

impl<F: FnMut(Range<u32>, &Ray) -> bool> LeafIntersector for AnyLeaf<F> {
    #[inline(always)]
    fn closest<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        (self.0)(slots, ray).then_some(FOUND)
    }

    #[inline(always)]
    fn any<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> bool {
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
    fn closest<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        (self.leaf)(slots, ray, self.hits);
        None
    }

    #[inline(always)]
    fn any<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> bool {
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
    fn closest<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        let start = self.first.len();
        (self.leaf)(slots, ray, self.first.hits_mut());
        self.first.settle(start, ray)
    }

    /// Not asked: [`WideBvh::cast_first`] runs the closest-hit walk.
    #[inline(always)]
    fn any<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> bool {
        self.closest(simd, slots, ray);
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
        self.kernel.kernel()
    }

    /// Makes the traversals run `kernel`, for tests and benchmarks that compare kernels
    /// (every kernel gives the same answers).
    ///
    /// # Errors
    /// [`crate::Error::UnsupportedKernel`] if this CPU cannot run it; the kernel is then
    /// unchanged.
    pub fn set_kernel(&mut self, kernel: Kernel) -> Result<(), crate::Error> {
        self.kernel =
            SupportedKernel::new(kernel).ok_or(crate::Error::UnsupportedKernel { kernel })?;
        Ok(())
    }

    /// Runs the loop with the fixed stack and the hierarchy's kernel, or for a tree too deep
    /// for that stack, with a heap stack and the portable kernel: the fused node test
    /// ([`RaySetup::fused`]), which hands the rays it does not serve to [`WideBvh::run_plain`].
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
        self.run_with::<ANY, FUSED, L, C>(ray, leaf, counters)
    }

    /// The walk with node test `SETUP`: the fixed stack and the hierarchy's kernel, or for a
    /// tree too deep for that stack, a heap stack and the portable kernel.
    #[inline(always)]
    fn run_with<const ANY: bool, const SETUP: u8, L, C>(
        &self,
        ray: &Ray,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit>
    where
        L: LeafIntersector,
        C: Counters,
    {
        if self.depth as usize <= MAX_FIXED_STACK_DEPTH {
            simd::walk::<Walk<FixedStack, C, L, ANY, SETUP>>(self.kernel, self, ray, leaf, counters)
        } else {
            let kernel = SupportedKernel::PORTABLE;
            simd::walk::<Walk<Vec<Pending>, C, L, ANY, SETUP>>(kernel, self, ray, leaf, counters)
        }
    }

    /// [`WideBvh::run`] for a ray the fused node test does not serve (a zero direction
    /// component, whose reciprocal is infinite, or products out of its range): the plain
    /// node test, in a walk of its own, so that other rays pay only for the test.
    #[cold]
    #[inline(never)]
    fn run_plain<const ANY: bool, L, C>(
        &self,
        ray: &Ray,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit>
    where
        L: LeafIntersector,
        C: Counters,
    {
        self.run_with::<ANY, PLAIN, L, C>(ray, leaf, counters)
    }

    /// [`WideBvh::run`] for a ray with a non-zero direction component whose reciprocal
    /// overflows ([`RaySetup::overflowed`]), with the set-up made safe for it
    /// ([`RaySetup::overflow_safe`]): a walk of its own, the heap stack and the portable
    /// kernel, so that other rays pay only for the test.
    #[cold]
    #[inline(never)]
    fn run_overflow_safe<const ANY: bool, L, C>(
        &self,
        ray: &Ray,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit>
    where
        L: LeafIntersector,
        C: Counters,
    {
        let kernel = SupportedKernel::PORTABLE;
        simd::walk::<Walk<Vec<Pending>, C, L, ANY, SAFE>>(kernel, self, ray, leaf, counters)
    }

    /// The traversal loop, for kernel `K` and the node test `SETUP` names: closest hit, or
    /// with `ANY` the first leaf that reports a hit (every leaf, for a closure that never
    /// does). A degenerate ray misses.
    ///
    /// Everything a ray costs before its first node test, the validity check included, is
    /// compiled here, in the kernel's instruction set.
    #[inline(always)]
    fn walk<V, S, C, L, const ANY: bool, const SETUP: u8>(
        &self,
        simd: V,
        ray: &Ray,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit>
    where
        V: Simd,
        S: TraversalStack,
        C: Counters,
        L: LeafIntersector,
    {
        if SETUP == FUSED {
            // A ray the fused test serves is valid (`RaySetup::fused`); the plain walk
            // checks the others.
            let set_up = RaySetup::new(ray, &self.bounds);
            if !set_up.fused {
                return self.run_plain::<ANY, L, C>(ray, leaf, counters);
            }
            return self
                .walk_with::<FusedLaneRay<V>, V, S, C, L, ANY>(simd, ray, &set_up, leaf, counters);
        }
        if !ray.is_valid() {
            return None;
        }
        let set_up = RaySetup::new(ray, &self.bounds);
        if SETUP == SAFE {
            let set_up = set_up.overflow_safe(ray.dir);
            return self
                .walk_with::<LaneRay<V>, V, S, C, L, ANY>(simd, ray, &set_up, leaf, counters);
        }
        if set_up.overflowed {
            return self.run_overflow_safe::<ANY, L, C>(ray, leaf, counters);
        }
        self.walk_with::<LaneRay<V>, V, S, C, L, ANY>(simd, ray, &set_up, leaf, counters)
    }

    /// [`WideBvh::walk`]'s loop with the node test `T` of `set_up`.
    #[inline(always)]
    fn walk_with<T, V, S, C, L, const ANY: bool>(
        &self,
        simd: V,
        ray: &Ray,
        set_up: &RaySetup,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit>
    where
        T: NodeTest<V>,
        V: Simd,
        S: TraversalStack,
        C: Counters,
        L: LeafIntersector,
    {
        let lane_ray = T::new(simd, set_up);
        let mut best: Option<Hit> = None;
        let mut t_max = ray.t_max;
        let mut stack = S::default();
        let mut current = 0u32;
        loop {
            if current & LEAF_REFERENCE == 0 {
                let node = &self.nodes[current as usize];
                counters.node();
                let (mask, entries) = lane_ray.test(node, t_max);
                if mask != 0 {
                    current = if ANY {
                        push_in_lane_order(current, node, mask, &mut stack)
                    } else {
                        push_nearest_last(simd, current, node, mask, &entries, &mut stack)
                    };
                    continue;
                }
            } else {
                let slots = self.leaf_slots(current);
                counters.leaf(slots.end - slots.start);
                if ANY {
                    if leaf.any(simd, slots, ray) {
                        return Some(FOUND);
                    }
                } else {
                    let range = ray.with_range(ray.t_min, t_max);
                    if let Some(hit) = leaf.closest(simd, slots, &range) {
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
}

/// The walk's node test and set-up ([`WideBvh::walk`]'s `SETUP`): the fused test, the plain
/// one, or the plain one with the set-up made safe for reciprocals that overflow.
const FUSED: u8 = 0;
const PLAIN: u8 = 1;
const SAFE: u8 = 2;

/// One ray's walk, [`WideBvh::walk`] with stack `S`, the query `ANY` and the node test
/// `SETUP`, as the kernel dispatch runs it: the dispatch picks the instruction set.
struct Walk<S, C, L, const ANY: bool, const SETUP: u8>(PhantomData<(S, C, L)>);

impl<S, C, L, const ANY: bool, const SETUP: u8> RayWalk for Walk<S, C, L, ANY, SETUP>
where
    S: TraversalStack,
    C: Counters,
    L: LeafIntersector,
{
    type Tree = WideBvh;
    type Leaf = L;
    type Counters = C;

    #[inline(always)]
    fn run<V: Simd>(
        simd: V,
        bvh: &WideBvh,
        ray: &Ray,
        leaf: &mut L,
        counters: &mut C,
    ) -> Option<Hit> {
        bvh.walk::<V, S, C, L, ANY, SETUP>(simd, ray, leaf, counters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, Bvh};
    use glam::Vec3;
    use meshcast_primitives::Portable;
    use meshcast_primitives::Triangle;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The portable walk with stack `S`, the query `ANY` and the node test `SETUP`.
    fn walk_as<S: TraversalStack, const ANY: bool, const SETUP: u8>(
        wide: &WideBvh,
        ray: &Ray,
        leaf: impl FnMut(Range<u32>, &Ray) -> Option<Hit>,
    ) -> Option<Hit> {
        wide.walk::<Portable, S, _, _, ANY, SETUP>(Portable, ray, &mut ClosestLeaf(leaf), &mut ())
    }

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
            // Every stack and node test, the plain one forced (the fused one hands it only
            // the rays it does not serve).
            let answers = [
                walk_as::<FixedStack, false, FUSED>(&wide, &ray, closest_in),
                walk_as::<Vec<Pending>, false, FUSED>(&wide, &ray, closest_in),
                walk_as::<FixedStack, false, PLAIN>(&wide, &ray, closest_in),
                walk_as::<Vec<Pending>, false, PLAIN>(&wide, &ray, closest_in),
            ];
            let any = [
                walk_as::<FixedStack, true, FUSED>(&wide, &ray, closest_in),
                walk_as::<Vec<Pending>, true, FUSED>(&wide, &ray, closest_in),
                walk_as::<FixedStack, true, PLAIN>(&wide, &ray, closest_in),
                walk_as::<Vec<Pending>, true, PLAIN>(&wide, &ray, closest_in),
            ];
            for (walk, (answer, any)) in answers.into_iter().zip(any).enumerate() {
                assert_eq!(bits(answer), bits(expected), "{ray:?} walk {walk}");
                assert_eq!(any.is_some(), expected.is_some(), "{ray:?} walk {walk}");
            }
        }
        assert!(hits > 200, "{hits}");
    }
}
