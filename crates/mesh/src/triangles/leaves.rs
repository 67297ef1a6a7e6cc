//! One ray's leaf test over one layout's blocks ([`Leaves`]), inlined into the hierarchy's
//! traversal loop: the walk a [`super::LeafBlocks`] query runs, for every [`QueryKind`](crate::queries::QueryKind).

use core::ops::Range;

use meshcast_bvh::{LeafIntersector, WideBvh};
use meshcast_primitives::{Contacts, Hit, Ray, Simd, BLOCK_WIDTH};

use super::lane_test::{LaneHits, LaneTest};
use crate::queries::HitRules;
use crate::triangles::TriMesh;

/// One layout's blocks with what the walks need besides them.
pub(super) struct Leaves<'a, B> {
    pub(super) blocks: &'a [B],
    /// `wide`'s padded leaf order.
    pub(super) order: &'a [u32],
    tri_mesh: &'a TriMesh,
}

/// What a leaf test needs besides the slots: the ray's four-lane set-up, which faces to skip
/// and which triangles to keep. The ray is borrowed, not copied: a copy (and its direction's,
/// for culling) cost every ray 21 instructions before its walk, which most rays end without
/// reaching a leaf.
pub(super) struct LeafQuery<'r, T, K> {
    /// The four-lane set-up, made at the first leaf the ray reaches ([`prepare`]).
    lanes: Option<T>,
    ray: &'r Ray,
    kept: Kept<K>,
}

/// Which of a ray's hits a leaf test keeps: faces the rules cull are skipped, and so are
/// triangles `keep` refuses.
struct Kept<K> {
    rules: HitRules,
    keep: K,
}

/// The leaf test's set-up of `ray`, out of line so that the compiler does not hoist it into
/// every ray's start: a ray that misses every box never needs it. Measured with callgrind on
/// the bunny (AVX2 kernel, one thread), instructions per ray against making it with the
/// query: rays that miss the root 487 -> 343 (any hit), camera rays 784 -> 716 (closest) and
/// 726 -> 621 (any), random rays 1208 -> 1215 (closest) and 1048 -> 993 (any).
///
/// It writes the set-up in its place in the query: returned and then moved there, it was
/// copied once more on every ray that reaches a leaf.
#[inline(never)]
fn prepare<'q, T: LaneTest>(lanes: &'q mut Option<T>, ray: &Ray, contacts: Contacts) -> &'q T {
    lanes.insert(T::new(ray, contacts))
}

/// One ray's leaf test over one layout's blocks. Its methods are inlined into the hierarchy's
/// traversal loop, so the block test is compiled for each node kernel's instruction set (a
/// closure was called out of line).
struct BlockLeaf<'l, 'a, 'r, B, T, K> {
    leaves: &'l Leaves<'a, B>,
    query: LeafQuery<'r, T, K>,
}

impl<B, T: LaneTest<Block = B>, K: FnMut(u32) -> bool> LeafIntersector
    for BlockLeaf<'_, '_, '_, B, T, K>
{
    #[inline(always)]
    fn closest<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        self.leaves.closest(simd, slots, ray.t_max, &mut self.query)
    }

    #[inline(always)]
    fn any<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> bool {
        self.leaves.any(simd, slots, ray.t_max, &mut self.query)
    }

    fn all(&mut self, slots: Range<u32>, ray: &Ray, hits: &mut Vec<Hit>) {
        self.leaves
            .every_hit(slots, ray.t_max, &mut self.query, |hit| hits.push(hit))
    }

    fn count(&mut self, slots: Range<u32>, ray: &Ray) -> usize {
        let mut count = 0;
        let within = |hit: Hit| count += usize::from(ray.contains_t(hit.t));
        self.leaves
            .every_hit(slots, ray.t_max, &mut self.query, within);
        count
    }
}

impl<'a, B> Leaves<'a, B> {
    #[inline(always)]
    pub(super) fn new(blocks: &'a [B], wide: &'a WideBvh, tri_mesh: &'a TriMesh) -> Self {
        Self {
            blocks,
            order: wide.primitive_order(),
            tri_mesh,
        }
    }

    /// The query of `ray` (made once per ray).
    #[inline(always)]
    pub(super) fn query<T: LaneTest<Block = B>, K>(
        ray: &Ray,
        rules: HitRules,
        keep: K,
    ) -> LeafQuery<'_, T, K> {
        LeafQuery {
            lanes: None,
            ray,
            kept: Kept { rules, keep },
        }
    }

    /// `ray`'s leaf test over these blocks, keeping the hits that `rules` accept and `keep`
    /// keeps: what the hierarchy's walk ([`WideBvh::traverse`]) compiles into its loop.
    #[inline(always)]
    pub(super) fn leaf<'l, 'r, T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &'l self,
        ray: &'r Ray,
        rules: HitRules,
        keep: K,
    ) -> impl LeafIntersector + use<'l, 'a, 'r, B, T, K> {
        BlockLeaf {
            leaves: self,
            query: Self::query::<T, K>(ray, rules, keep),
        }
    }

    /// Calls `found(hit)` for every hit lane of the blocks of `slots` within
    /// `[t_min, t_max()]` that `query` keeps, in slot order; `t_max` is read before each pair
    /// of blocks, which are tested at once in `simd`'s lanes (a last odd block alone).
    #[inline(always)]
    fn for_each_hit<S: Simd, T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        simd: S,
        slots: Range<u32>,
        query: &mut LeafQuery<'_, T, K>,
        mut t_max: impl FnMut() -> f32,
        mut found: impl FnMut(Hit) -> bool,
    ) -> bool {
        let (ray, kept) = (query.ray, &mut query.kept);
        let lane_ray = match query.lanes {
            Some(ref lanes) => lanes,
            None => prepare(&mut query.lanes, ray, kept.rules.contacts()),
        };
        let first = slots.start as usize / BLOCK_WIDTH;
        let end = slots.end as usize / BLOCK_WIDTH;
        let blocks = &self.blocks[first..end];
        let mut pairs = blocks.chunks_exact(2);
        for (p, pair) in pairs.by_ref().enumerate() {
            let [low, high] = lane_ray.intersect_pair(simd, [&pair[0], &pair[1]], t_max());
            if self.offer::<T, K>(first + 2 * p, &pair[0], &low, ray, kept, &mut found)
                || self.offer::<T, K>(first + 2 * p + 1, &pair[1], &high, ray, kept, &mut found)
            {
                return true;
            }
        }
        if let [block] = pairs.remainder() {
            let hits = lane_ray.intersect(block, t_max());
            return self.offer::<T, K>(end - 1, block, &hits, ray, kept, &mut found);
        }
        false
    }

    /// Offers the hit lanes of block `b` that `kept` keeps for `ray` to `found`, in lane
    /// order: true when it asks to stop.
    #[inline(always)]
    fn offer<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        b: usize,
        block: &B,
        hits: &T::Hits,
        ray: &Ray,
        kept: &mut Kept<K>,
        found: &mut impl FnMut(Hit) -> bool,
    ) -> bool {
        let mut lanes = hits.lanes();
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let index = self.order[b * BLOCK_WIDTH + lane];
            if kept.rules.culls_faces() {
                let t = T::triangle(block, lane, index, self.tri_mesh);
                if kept.rules.culls(t.v0, t.v1, t.v2, ray.dir) {
                    continue;
                }
            }
            if !(kept.keep)(index) {
                continue;
            }
            let Some(hit) = hits.hit(lane) else { continue };
            if found(hit.with_triangle(index)) {
                return true;
            }
        }
        false
    }

    /// The closest kept hit in the leaf `slots` with `t` in `[t_min, t_max]`.
    #[inline(always)]
    pub(super) fn closest<S: Simd, T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        simd: S,
        slots: Range<u32>,
        t_max: f32,
        query: &mut LeafQuery<'_, T, K>,
    ) -> Option<Hit> {
        let best = core::cell::Cell::new(None::<Hit>);
        self.for_each_hit(
            simd,
            slots,
            query,
            || best.get().map_or(t_max, |b| b.t),
            |hit| {
                if best.get().is_none_or(|b| hit.is_closer_than(&b)) {
                    best.set(Some(hit));
                }
                false
            },
        );
        best.get()
    }

    /// Whether any kept triangle of the leaf `slots` is hit within `[t_min, t_max]`.
    #[inline(always)]
    pub(super) fn any<S: Simd, T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        simd: S,
        slots: Range<u32>,
        t_max: f32,
        query: &mut LeafQuery<'_, T, K>,
    ) -> bool {
        self.for_each_hit(simd, slots, query, || t_max, |_| true)
    }

    /// Hands `found` every kept hit of the leaf `slots` within `[t_min, t_max]`.
    fn every_hit<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        slots: Range<u32>,
        t_max: f32,
        query: &mut LeafQuery<'_, T, K>,
        mut found: impl FnMut(Hit),
    ) {
        // The walk of every hit hands no instruction set to its leaves: the portable lanes.
        self.for_each_hit(
            meshcast_primitives::Portable,
            slots,
            query,
            || t_max,
            |hit| {
                found(hit);
                false
            },
        );
    }
}
