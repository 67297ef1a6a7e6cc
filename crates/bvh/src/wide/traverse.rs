//! Traversal of the [`WideBvh`]: one walk ([`WideBvh::walk`]) for every kind of query
//! ([`crate::Query`]) over a leaf test that gets a whole leaf at a time (so that it can test
//! its primitives several at once).
//!
//! One loop serves every kind: closest hit and the first `max_hits` hits visit the entered
//! children nearest first and skip those that start beyond the end of the range, which
//! shrinks to the best hit (the last of the first hits) as the kind says; any hit, every hit
//! and their count take the children in lane order and never shrink the range
//! ([`crate::Query::nearest_first`], a constant the compiler folds for every kind but a
//! capped [`crate::All`], so one dispatch serves both orders). Each node's eight boxes are tested by the
//! hierarchy's [`Kernel`] (`simd/`), with the same arithmetic and widening as the binary
//! tree's slab test, so no box that holds a hit is culled and the answers equal a brute-force
//! loop, ties included, whichever kernel runs. The loop is written once over the contracts
//! (`contracts.rs`) and the kind (`query.rs`) and handed to the kernel dispatch
//! (`simd::dispatch`) as a [`RayWalk`], which compiles it for the kernel's instruction set.
//!
//! Measured dead ends (bunny, one thread, best of interleaved runs): one copy of the loop per
//! direction octant, picking the near planes at compile time, was 2-5% faster with the SSE2
//! kernel alone but is an eight-way jump that mispredicts on random rays and eight times the
//! code once kernels multiply it; near-first order for any hit made random occlusion rays
//! slower (4.0 -> 3.65 Mrays/s). The stack and the child ordering are in `stack.rs`.
//!
//! Uses the contracts, the kinds (`query.rs`), the stack (`stack.rs`) and the kernel dispatch
//! (`simd::dispatch`).

use core::marker::PhantomData;

use meshcast_primitives::{Hit, Ray, Simd};

use super::stack::{push_in_lane_order, push_nearest_last, FixedStack, MAX_FIXED_STACK_DEPTH};
use crate::contracts::{
    Counters, LeafIntersector, Pending, RaySetup, RayWalk, TraversalStack, LEAF_REFERENCE,
};
use crate::query::{Query, QueryLeaves, Step};
use crate::simd::{self, FusedLaneRay, Kernel, LaneRay, NodeTest, SupportedKernel};
use crate::wide::WideBvh;

impl WideBvh {
    /// The answer of `kind` ([`Closest`](crate::Closest), [`Any`](crate::Any),
    /// [`All`](crate::All), [`Count`](crate::Count)) for `ray` over the leaf test `leaves`,
    /// as a brute-force loop over every primitive answers it, ties included: the one walk of
    /// every single-ray query.
    ///
    /// The closest hit is the smallest `t` in the ray's range, ties going to the smaller
    /// primitive index ([`Hit::order`]), as [`crate::Bvh::walk`] answers; every hit comes
    /// sorted in that order. Closest hits and the first `max_hits` of all visit children
    /// nearest first, skipping those that start beyond the best hit so far (the last of the
    /// first hits); any hit stops at the first leaf that reports one. A degenerate ray or an
    /// empty hierarchy gives [`Query::nothing`] without asking `leaves`.
    ///
    /// `leaves` is compiled into the loop of the hierarchy's kernel when its methods are
    /// `#[inline(always)]` ([`LeafIntersector`]; [`crate::LeafHits`] for a closure).
    #[inline(always)]
    pub fn walk<Q: Query>(
        &self,
        ray: &Ray,
        kind: Q,
        leaves: impl LeafIntersector,
    ) -> Q::Answer<Hit> {
        self.traverse(ray, kind, leaves, &mut ())
    }

    /// [`WideBvh::walk`], adding what it visited to `counters`: `&mut ()` counts nothing and
    /// pays nothing for it, a [`crate::TraversalCounts`] counts rays, nodes, leaves and
    /// blocks. The tree's tier of a ray's road: the kind's loop, children nearest first or as they come
    /// ([`Query::nearest_first`]; a constant for every kind but a capped [`crate::All`]),
    /// handed to the kernel dispatch with the fused node test (`RaySetup::fused`), which
    /// hands the rays it does not serve to the plain one (`WideBvh::run_plain`).
    #[inline(always)]
    pub fn traverse<Q: Query, L: LeafIntersector, C: Counters>(
        &self,
        ray: &Ray,
        kind: Q,
        mut leaves: L,
        counters: &mut C,
    ) -> Q::Answer<Hit> {
        counters.ray();
        if self.nodes.is_empty() {
            return Q::nothing();
        }
        let mut leaves = QueryLeaves {
            kind,
            leaves: &mut leaves,
        };
        let found = simd::dispatch::<Fixed<C, Q, L, FUSED>, Heap<C, Q, L, FUSED>>(
            self.kernel,
            self.too_deep(),
            self,
            ray,
            &mut leaves,
            counters,
        );
        kind.finish(found)
    }

    /// Whether the tree is too deep for the fixed stack: its walks then take a heap stack in
    /// the portable lanes (`simd::dispatch`).
    #[inline(always)]
    fn too_deep(&self) -> bool {
        self.depth as usize > MAX_FIXED_STACK_DEPTH
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
    pub fn set_kernel(&mut self, kernel: Kernel) -> Result<(), crate::error::Error> {
        self.kernel = SupportedKernel::new(kernel)
            .ok_or(crate::error::Error::UnsupportedKernel { kernel })?;
        Ok(())
    }

    /// [`WideBvh::traverse`] for a ray the fused node test does not serve (a zero direction
    /// component, whose reciprocal is infinite, or products out of its range): the plain
    /// node test, in a walk of its own, so that other rays pay only for the test.
    ///
    /// Kept apart from [`WideBvh::run_overflow_safe`]: one cold function for both, a const
    /// choosing, cost the hot walk 2.5 instructions per ray (callgrind, bunny camera rays,
    /// closest hit, 628.8 -> 631.3).
    #[cold]
    #[inline(never)]
    fn run_plain<Q, L, C>(
        &self,
        ray: &Ray,
        leaves: &mut QueryLeaves<'_, Q, L>,
        counters: &mut C,
    ) -> Q::Found<Hit>
    where
        Q: Query,
        L: LeafIntersector,
        C: Counters,
    {
        simd::dispatch::<Fixed<C, Q, L, PLAIN>, Heap<C, Q, L, PLAIN>>(
            self.kernel,
            self.too_deep(),
            self,
            ray,
            leaves,
            counters,
        )
    }

    /// [`WideBvh::traverse`] for a ray with a non-zero direction component whose reciprocal
    /// overflows ([`RaySetup::overflowed`]), with the set-up made safe for it
    /// ([`RaySetup::overflow_safe`]): a walk of its own, the heap stack and the portable
    /// kernel, so that other rays pay only for the test.
    #[cold]
    #[inline(never)]
    fn run_overflow_safe<Q, L, C>(
        &self,
        ray: &Ray,
        leaves: &mut QueryLeaves<'_, Q, L>,
        counters: &mut C,
    ) -> Q::Found<Hit>
    where
        Q: Query,
        L: LeafIntersector,
        C: Counters,
    {
        simd::dispatch::<Heap<C, Q, L, SAFE>, Heap<C, Q, L, SAFE>>(
            SupportedKernel::PORTABLE,
            true,
            self,
            ray,
            leaves,
            counters,
        )
    }

    /// The traversal loop, for kernel `V` and the node test `T` of `set_up`: children nearest
    /// first with the range shrinking, or, where the kind takes them as they come
    /// ([`Query::nearest_first`]: a constant, compiled away, for every kind but a capped
    /// [`crate::All`]), in lane order with the range fixed; each leaf asked what `leaves`'
    /// kind asks.
    #[inline(always)]
    fn walk_loop<T, V, S, C, Q, L>(
        &self,
        simd: V,
        ray: &Ray,
        set_up: &RaySetup,
        leaves: &mut QueryLeaves<'_, Q, L>,
        counters: &mut C,
    ) -> Q::Found<Hit>
    where
        T: NodeTest<V>,
        V: Simd,
        S: TraversalStack,
        C: Counters,
        Q: Query,
        L: LeafIntersector,
    {
        let lane_ray = T::new(simd, set_up);
        let nearest = leaves.kind.nearest_first();
        let mut found = leaves.start();
        let mut t_max = ray.t_max;
        let mut stack = S::default();
        let mut current = 0u32;
        loop {
            if current & LEAF_REFERENCE == 0 {
                let node = &self.nodes[current as usize];
                counters.node();
                let (mask, entries) = lane_ray.test(node, t_max);
                if mask != 0 {
                    current = if nearest {
                        push_nearest_last(simd, current, node, mask, &entries, &mut stack)
                    } else {
                        push_in_lane_order(current, node, mask, &mut stack)
                    };
                    continue;
                }
            } else {
                let slots = self.leaf_slots(current);
                counters.leaf(slots.end - slots.start);
                match leaves.visit(&mut found, simd, slots, ray, t_max) {
                    Step::Go => {}
                    Step::Shrink(t) => t_max = t,
                    Step::Stop => return found,
                }
            }
            loop {
                match stack.pop() {
                    None => return found,
                    Some(next) if !nearest || next.entry <= t_max => {
                        current = next.reference;
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }
}

/// The walk's node test and set-up ([`RayWalk::run`]'s `SETUP`): the fused test, the
/// plain one, or the plain one with the set-up made safe for reciprocals that overflow.
const FUSED: u8 = 0;
const PLAIN: u8 = 1;
const SAFE: u8 = 2;

/// One ray's walk with stack `S`, the kind `Q` and the node test `SETUP`, as the kernel
/// dispatch runs it ([`RayWalk::run`]): the dispatch picks the instruction set.
struct Walk<'l, S, C, Q, L, const SETUP: u8>(PhantomData<(&'l (), S, C, Q, L)>);

/// The walk with the fixed stack, in the hierarchy's kernel.
type Fixed<'l, C, Q, L, const SETUP: u8> = Walk<'l, FixedStack, C, Q, L, SETUP>;

/// The walk with a heap stack, for a tree too deep for the fixed one, in the portable lanes.
type Heap<'l, C, Q, L, const SETUP: u8> = Walk<'l, Vec<Pending>, C, Q, L, SETUP>;

impl<'l, S, C, Q, L, const SETUP: u8> RayWalk for Walk<'l, S, C, Q, L, SETUP>
where
    S: TraversalStack,
    C: Counters,
    Q: Query,
    L: LeafIntersector + 'l,
{
    type Tree = WideBvh;
    type Leaf = QueryLeaves<'l, Q, L>;
    type Found = Q::Found<Hit>;
    type Counters = C;

    /// The ray's set-up for the node test `SETUP`, then its loop; a degenerate ray finds
    /// nothing. Everything a ray costs before its first node test, the validity check
    /// included, is compiled here, in the kernel's instruction set.
    #[inline(always)]
    fn run<V: Simd>(
        simd: V,
        bvh: &WideBvh,
        ray: &Ray,
        leaves: &mut QueryLeaves<'l, Q, L>,
        counters: &mut C,
    ) -> Q::Found<Hit> {
        if SETUP == FUSED {
            // A ray the fused test serves is valid (`RaySetup::fused`); the plain walk
            // checks the others.
            let set_up = RaySetup::new(ray, &bvh.bounds);
            if !set_up.fused {
                return bvh.run_plain::<Q, L, C>(ray, leaves, counters);
            }
            return bvh
                .walk_loop::<FusedLaneRay<V>, V, S, C, Q, L>(simd, ray, &set_up, leaves, counters);
        }
        if !ray.is_valid() {
            return leaves.start();
        }
        let set_up = RaySetup::new(ray, &bvh.bounds);
        if SETUP == SAFE {
            let set_up = set_up.overflow_safe(ray.dir);
            return bvh
                .walk_loop::<LaneRay<V>, V, S, C, Q, L>(simd, ray, &set_up, leaves, counters);
        }
        if set_up.overflowed {
            return bvh.run_overflow_safe::<Q, L, C>(ray, leaves, counters);
        }
        bvh.walk_loop::<LaneRay<V>, V, S, C, Q, L>(simd, ray, &set_up, leaves, counters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Any, BuildOptions, Bvh, Closest};
    use core::ops::Range;
    use glam::Vec3;
    use meshcast_primitives::Portable;
    use meshcast_primitives::Triangle;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The portable walk of `kind` with stack `S` and the node test `SETUP`, over a leaf
    /// test that finds each leaf's closest hit.
    fn walk_as<S: TraversalStack, Q: Query, const SETUP: u8>(
        wide: &WideBvh,
        ray: &Ray,
        kind: Q,
        mut closest_in: impl FnMut(Range<u32>, &Ray) -> Option<Hit>,
    ) -> Q::Answer<Hit> {
        let mut leaves = crate::LeafHits::new(|slots, ray: &Ray, hits: &mut Vec<Hit>| {
            hits.extend(closest_in(slots, ray))
        });
        let mut leaves = QueryLeaves {
            kind,
            leaves: &mut leaves,
        };
        let found =
            <Walk<S, (), Q, _, SETUP> as RayWalk>::run(Portable, wide, ray, &mut leaves, &mut ());
        kind.finish(found)
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
                walk_as::<FixedStack, _, FUSED>(&wide, &ray, Closest, closest_in),
                walk_as::<Vec<Pending>, _, FUSED>(&wide, &ray, Closest, closest_in),
                walk_as::<FixedStack, _, PLAIN>(&wide, &ray, Closest, closest_in),
                walk_as::<Vec<Pending>, _, PLAIN>(&wide, &ray, Closest, closest_in),
            ];
            let any = [
                walk_as::<FixedStack, _, FUSED>(&wide, &ray, Any, closest_in),
                walk_as::<Vec<Pending>, _, FUSED>(&wide, &ray, Any, closest_in),
                walk_as::<FixedStack, _, PLAIN>(&wide, &ray, Any, closest_in),
                walk_as::<Vec<Pending>, _, PLAIN>(&wide, &ray, Any, closest_in),
            ];
            for (walk, (answer, any)) in answers.into_iter().zip(any).enumerate() {
                assert_eq!(bits(answer), bits(expected), "{ray:?} walk {walk}");
                assert_eq!(any, expected.is_some(), "{ray:?} walk {walk}");
            }
        }
        assert!(hits > 200, "{hits}");
    }
}
