//! The mesh's triangles in the wide hierarchy's leaf order, four to a block in the layout of
//! its [`LeafTest`], and the queries over them. Each query matches the layout once per ray,
//! so every layout gets its own monomorphised walk.

use core::ops::Range;

use meshcast_bvh::{
    LeafIntersector, PacketLeaves, Parallel, TraversalCounts, WideBvh, LEAF_ALIGNMENT, PADDING_SLOT,
};
use meshcast_primitives::{
    Aabb, BlockHits, BlockRay, Contacts, Hit, Lanes, Ray, RayPacket, Simd, TransformBlock,
    TransformHits, TransformRay, Triangle, TriangleBlock, TriangleTransform, WatertightPacket,
    WatertightRay, ALL_LANES, BLOCK_WIDTH, PACKET_WIDTH,
};
use rayon::prelude::*;

use crate::queries::for_each_lane;
use crate::queries::HitRules;
use crate::{LeafTest, TriMesh};

const _: () = assert!(BLOCK_WIDTH == LEAF_ALIGNMENT);

/// Blocks one rayon task lays out at least.
const PARALLEL_BLOCKS: usize = 1 << 12;

/// The triangles of a mesh laid out for its leaf test: block `b` holds the triangles of the
/// wide hierarchy's slots `4 b .. 4 b + 4` (padding slots hold no triangle).
#[derive(Clone, Debug)]
pub(crate) enum LeafBlocks {
    /// The corners, for [`LeafTest::Watertight`].
    Watertight(Vec<TriangleBlock>),
    /// The world-to-triangle transforms, for [`LeafTest::Transform`].
    Transform(Vec<TransformBlock>),
}

impl LeafBlocks {
    /// The blocks of `tri_mesh`'s triangles in `wide`'s padded leaf order for `leaf_test`,
    /// made with rayon when `parallel` says so.
    pub(crate) fn new(
        tri_mesh: &TriMesh,
        wide: &WideBvh,
        parallel: Parallel,
        leaf_test: LeafTest,
    ) -> Self {
        Self::from_order(tri_mesh, wide.primitive_order(), parallel, leaf_test)
    }

    /// [`LeafBlocks::new`] from the padded leaf order alone, before its hierarchy is made,
    /// and the box around each block's triangles, `None` if one is degenerate: what a cache
    /// checks its hierarchy against ([`meshcast_bvh::WideBvh::from_parts_with`]). A slot
    /// naming no triangle of `tri_mesh` is left empty.
    ///
    /// Watertight blocks hold their corners, so the boxes come from them in one streaming
    /// pass rather than from a second gather of the triangles in leaf order.
    pub(crate) fn with_block_bounds(
        tri_mesh: &TriMesh,
        order: &[u32],
        parallel: Parallel,
        leaf_test: LeafTest,
    ) -> (Self, Vec<Option<Aabb>>) {
        let laid_out = Self::from_order(tri_mesh, order, parallel, leaf_test);
        let bounds = match &laid_out {
            Self::Watertight(blocks) => map(blocks, parallel, |block| {
                // Unused lanes have NaN corners; a mesh's corners are finite.
                let lanes = (0..BLOCK_WIDTH).map(|lane| block.triangle(lane));
                block_bounds(lanes.filter(|t| t.v0.is_finite()))
            }),
            Self::Transform(_) => blocks(order, parallel, |slots| {
                block_bounds(triangles(tri_mesh, slots))
            }),
        };
        (laid_out, bounds)
    }

    /// The blocks of `order`'s slots in the layout of `leaf_test`, each filled lane by lane
    /// from the slots naming a triangle of `tri_mesh`.
    fn from_order(
        tri_mesh: &TriMesh,
        order: &[u32],
        parallel: Parallel,
        leaf_test: LeafTest,
    ) -> Self {
        match leaf_test {
            LeafTest::Watertight => Self::Watertight(blocks(order, parallel, |slots| {
                let mut block = TriangleBlock::EMPTY;
                for (lane, triangle) in triangles(tri_mesh, slots).enumerate() {
                    block.set(lane, &triangle);
                }
                block
            })),
            LeafTest::Transform => Self::Transform(blocks(order, parallel, |slots| {
                let mut block = TransformBlock::EMPTY;
                for (lane, triangle) in triangles(tri_mesh, slots).enumerate() {
                    // A transform that is not representable stays an unused lane, as the
                    // scalar test never hits its triangle either.
                    if let Some(transform) = TriangleTransform::new(&triangle) {
                        block.set(lane, &transform);
                    }
                }
                block
            })),
        }
    }

    /// The test these blocks are laid out for.
    pub(crate) fn leaf_test(&self) -> LeafTest {
        match self {
            Self::Watertight(_) => LeafTest::Watertight,
            Self::Transform(_) => LeafTest::Transform,
        }
    }

    /// The triangle in slot `slot` of `wide` (NaN corners for a padding slot). Transform
    /// blocks keep no corners: theirs come from `tri_mesh`.
    #[inline]
    pub(crate) fn triangle(&self, slot: u32, wide: &WideBvh, tri_mesh: &TriMesh) -> Triangle {
        let slot = slot as usize;
        match self {
            Self::Watertight(blocks) => blocks[slot / BLOCK_WIDTH].triangle(slot % BLOCK_WIDTH),
            Self::Transform(_) => corners(tri_mesh, wide.primitive_order()[slot]),
        }
    }

    /// Heap memory of the blocks.
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Self::Watertight(blocks) => blocks.capacity() * core::mem::size_of::<TriangleBlock>(),
            Self::Transform(blocks) => blocks.capacity() * core::mem::size_of::<TransformBlock>(),
        }
    }

    /// The closest hit within the ray's range that `keep` accepts and `culling` does not skip,
    /// adding what the traversal visited to `counts` when given.
    #[inline]
    pub(crate) fn cast(
        &self,
        wide: &WideBvh,
        tri_mesh: &TriMesh,
        ray: &Ray,
        rules: HitRules,
        keep: impl FnMut(u32) -> bool,
        counts: Option<&mut TraversalCounts>,
    ) -> Option<Hit> {
        match self {
            Self::Watertight(blocks) => {
                Leaves::new(blocks, wide, tri_mesh).cast::<BlockRay, _>(ray, rules, keep, counts)
            }
            Self::Transform(blocks) => Leaves::new(blocks, wide, tri_mesh)
                .cast::<TransformRay, _>(ray, rules, keep, counts),
        }
    }

    /// Whether any triangle that `keep` accepts and `culling` does not skip is hit within the
    /// ray's range (`counts` as in [`LeafBlocks::cast`]).
    #[inline]
    pub(crate) fn occluded(
        &self,
        wide: &WideBvh,
        tri_mesh: &TriMesh,
        ray: &Ray,
        rules: HitRules,
        keep: impl FnMut(u32) -> bool,
        counts: Option<&mut TraversalCounts>,
    ) -> bool {
        match self {
            Self::Watertight(blocks) => Leaves::new(blocks, wide, tri_mesh)
                .occluded::<BlockRay, _>(ray, rules, keep, counts),
            Self::Transform(blocks) => Leaves::new(blocks, wide, tri_mesh)
                .occluded::<TransformRay, _>(ray, rules, keep, counts),
        }
    }

    /// Every hit within the ray's range that `keep` accepts and `culling` does not skip,
    /// sorted by `t`, then triangle index; the first `max_hits` of them (at least one;
    /// `usize::MAX`: every hit).
    pub(crate) fn cast_all(
        &self,
        wide: &WideBvh,
        tri_mesh: &TriMesh,
        ray: &Ray,
        rules: HitRules,
        keep: impl FnMut(u32) -> bool,
        max_hits: usize,
    ) -> Vec<Hit> {
        match self {
            Self::Watertight(blocks) => Leaves::new(blocks, wide, tri_mesh)
                .cast_all::<BlockRay, _>(ray, rules, keep, max_hits),
            Self::Transform(blocks) => Leaves::new(blocks, wide, tri_mesh)
                .cast_all::<TransformRay, _>(ray, rules, keep, max_hits),
        }
    }
}

impl LeafBlocks {
    /// Writes to `hits[p][i]` the closest hit of each ray `rays[p][i]` in `lanes[p]` (bits;
    /// degenerate rays miss), as [`LeafBlocks::cast`] answers it, the rays of the `H` packets
    /// traced together ([`WideBvh::cast_packets`], which splits them by direction octant).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn cast_packets<const H: usize>(
        &self,
        wide: &WideBvh,
        tri_mesh: &TriMesh,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        rules: HitRules,
        keep: &impl Fn(u32) -> bool,
        hits: [&mut [Option<Hit>; PACKET_WIDTH]; H],
    ) {
        match self {
            Self::Watertight(blocks) => {
                let leaves = Leaves::new(blocks, wide, tri_mesh);
                let mut p = 0;
                let mut packets = hits.map(|hits| {
                    let best = BestHits::clear(lanes[p], hits);
                    let leaf = PacketLeaf::new(&leaves, rays[p], lanes[p], rules, keep, best);
                    p += 1;
                    leaf
                });
                wide.cast_packets(rays, lanes, &mut packets);
            }
            // The transform test has no packet form: each ray walks alone.
            Self::Transform(_) => {
                for (p, hits) in hits.into_iter().enumerate() {
                    for_each_lane(lanes[p], |lane| {
                        let ray = rays[p].ray(lane);
                        hits[lane] = self.cast(wide, tri_mesh, &ray, rules, keep, None);
                    });
                }
            }
        }
    }

    /// Which rays of `rays[p]` in `lanes[p]` (bits) hit anything, as [`LeafBlocks::occluded`]
    /// answers each, the rays of the `H` packets traced together
    /// ([`WideBvh::occluded_packets`]), as bits per packet.
    pub(crate) fn occluded_packets<const H: usize>(
        &self,
        wide: &WideBvh,
        tri_mesh: &TriMesh,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        rules: HitRules,
        keep: &impl Fn(u32) -> bool,
    ) -> [u32; H] {
        match self {
            Self::Watertight(blocks) => {
                let leaves = Leaves::new(blocks, wide, tri_mesh);
                // An any-hit walk keeps no hits.
                let mut none = [[None; PACKET_WIDTH]; H];
                let mut p = 0;
                let mut packets = none.each_mut().map(|none| {
                    let best = BestHits::clear(0, none);
                    let leaf = PacketLeaf::new(&leaves, rays[p], lanes[p], rules, keep, best);
                    p += 1;
                    leaf
                });
                wide.occluded_packets(rays, lanes, &mut packets)
            }
            Self::Transform(_) => {
                let mut hit = [0; H];
                for (p, hit) in hit.iter_mut().enumerate() {
                    for_each_lane(lanes[p], |lane| {
                        let ray = rays[p].ray(lane);
                        if self.occluded(wide, tri_mesh, &ray, rules, keep, None) {
                            *hit |= 1 << lane;
                        }
                    });
                }
                hit
            }
        }
    }
}

/// A packet's leaf test over watertight blocks: when the rays share their axes, two rays
/// against a block's four triangles in one eight-lane test ([`meshcast_primitives::RayPair`]),
/// else each ray by its single-ray leaf test. Either way a ray's hits are those of its
/// single-ray test, culled, filtered and ordered the same way, so its answer is
/// [`LeafBlocks::cast`]'s.
///
/// The walk hands it only the rays whose own test enters the leaf's box
/// ([`WideBvh::cast_packets`]): on a camera image about three of eight, as leaves are about a
/// pixel wide there. Two rays per test make a block cost one test per pair of those rays
/// rather than one per triangle, as testing each triangle against all eight lanes did
/// (bunny, 512 x 512 camera image, one thread: 548 to 481 instructions per ray).
struct PacketLeaf<'l, 'a, 'h, K> {
    rays: PacketRays<'l, 'a, K>,
    lanes: u32,
    /// The rays' set-ups for the pair test, made at the first leaf (`None` until then);
    /// `Some(None)` if the rays do not share their axes.
    packet: Option<Option<WatertightPacket>>,
    best: BestHits<'h>,
}

/// What a packet's leaf test reads: the blocks, the rays and which hits to keep.
struct PacketRays<'l, 'a, K> {
    leaves: &'l Leaves<'a, TriangleBlock>,
    rays: &'l RayPacket,
    rules: HitRules,
    keep: &'l K,
}

/// Each ray's closest hit so far, lane by lane, kept in the caller's answers: copying a whole
/// packet's hits there at the end was a call to `memcpy`.
struct BestHits<'h> {
    hits: &'h mut [Option<Hit>; PACKET_WIDTH],
}

impl<'h> BestHits<'h> {
    /// The hits of `hits`, none yet in the lanes of `lanes` (bits).
    #[inline(always)]
    fn clear(lanes: u32, hits: &'h mut [Option<Hit>; PACKET_WIDTH]) -> Self {
        if lanes == ALL_LANES {
            *hits = [None; PACKET_WIDTH];
        } else {
            for_each_lane(lanes, |lane| hits[lane] = None);
        }
        Self { hits }
    }

    /// Keeps `hit` in `lane` if it comes before the hit there ([`Hit::order`]); returns
    /// whether it did.
    #[inline(always)]
    fn offer(&mut self, lane: usize, hit: Hit) -> bool {
        let best = &mut self.hits[lane];
        if best.is_some_and(|best| !hit.is_closer_than(&best)) {
            return false;
        }
        *best = Some(hit);
        true
    }
}

impl<'l, 'a, 'h, K: Fn(u32) -> bool> PacketLeaf<'l, 'a, 'h, K> {
    fn new(
        leaves: &'l Leaves<'a, TriangleBlock>,
        rays: &'l RayPacket,
        lanes: u32,
        rules: HitRules,
        keep: &'l K,
        best: BestHits<'h>,
    ) -> Self {
        Self {
            rays: PacketRays {
                leaves,
                rays,
                rules,
                keep,
            },
            lanes,
            packet: None,
            best,
        }
    }
}

impl<'l, K: Fn(u32) -> bool> PacketRays<'l, '_, K> {
    /// The single-ray leaf query of `lane`.
    #[inline(always)]
    fn query(&self, lane: usize) -> LeafQuery<BlockRay, &'l K> {
        Leaves::<TriangleBlock>::query(&self.rays.ray(lane), self.rules, self.keep)
    }

    /// Calls `found(lane, hit)` for every ray in `lanes` and every triangle of the leaf `slots`
    /// it hits within `[t_min, t_max[lane]]` that rules and the filter keep, in slot order,
    /// testing two rays against a block's four triangles at once
    /// ([`meshcast_primitives::RayPair`]). `found` says what the ray does next ([`Next`]).
    #[inline(always)]
    fn for_each_hit<S: Simd>(
        &self,
        packet: &WatertightPacket,
        slots: Range<u32>,
        lanes: u32,
        t_max: &mut Lanes<S>,
        mut found: impl FnMut(usize, Hit) -> Next,
    ) {
        let first = slots.start as usize / BLOCK_WIDTH;
        let blocks = &self.leaves.blocks[first..slots.end as usize / BLOCK_WIDTH];
        let mut rest = lanes;
        while rest != 0 {
            // The next two rays, or the last one twice (its second half then goes unread).
            let a = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let b = if rest != 0 {
                rest.trailing_zeros() as usize
            } else {
                a
            };
            rest &= rest.wrapping_sub(1);
            let rays = [a, b];
            let mut pair = packet.pair(a, b, *t_max);
            // Bit `r` for each of the pair's rays whose range a hit cut.
            let mut shortened = 0;
            // Bit `r` for each of the pair's rays still testing.
            let mut testing = if b == a { 0b01 } else { 0b11 };
            for (i, block) in blocks.iter().enumerate() {
                let hits = pair.intersect(block);
                if hits.lanes() == 0 {
                    continue;
                }
                for (r, &ray) in rays.iter().enumerate() {
                    if testing & (1 << r) == 0 {
                        continue;
                    }
                    let mut triangles = (hits.lanes() >> (BLOCK_WIDTH * r)) & 0xf;
                    while triangles != 0 {
                        let lane = triangles.trailing_zeros() as usize;
                        triangles &= triangles - 1;
                        let index = self.leaves.order[(first + i) * BLOCK_WIDTH + lane];
                        if self.rules.culls_faces() {
                            let triangle = block.triangle(lane);
                            let dir = self.rays.ray(ray).dir;
                            if self.rules.culls(triangle.v0, triangle.v1, triangle.v2, dir) {
                                continue;
                            }
                        }
                        if !(self.keep)(index) {
                            continue;
                        }
                        let Some(hit) = hits.hit(BLOCK_WIDTH * r + lane) else {
                            continue;
                        };
                        match found(ray, hit.with_triangle(index)) {
                            Next::Continue => {}
                            Next::Shorten(t) => {
                                pair.shorten(r, t);
                                shortened |= 1 << r;
                            }
                            Next::Leave => {
                                testing &= !(1 << r);
                                break;
                            }
                        }
                    }
                }
                if testing == 0 {
                    break;
                }
            }
            for (r, &ray) in rays.iter().enumerate() {
                if shortened & (1 << r) != 0 {
                    *t_max = t_max.with_lane(ray, pair.t_max(r));
                }
            }
        }
    }
}

/// What a ray of a packet does after a hit in a leaf.
enum Next {
    /// Goes on with its range.
    Continue,
    /// Goes on with its range cut to the hit's `t`.
    Shorten(f32),
    /// Stops (an any-hit query found what it asked).
    Leave,
}

impl<K: Fn(u32) -> bool> PacketLeaves for PacketLeaf<'_, '_, '_, K> {
    #[inline(always)]
    fn closest<S: Simd>(&mut self, slots: Range<u32>, lanes: u32, t_max: &mut Lanes<S>) {
        let best = &mut self.best;
        if let Some(packet) = set_up(&mut self.packet, t_max.simd(), &self.rays, self.lanes) {
            self.rays
                .for_each_hit(packet, slots, lanes, t_max, |lane, hit| {
                    if best.offer(lane, hit) {
                        Next::Shorten(hit.t)
                    } else {
                        Next::Continue
                    }
                });
            return;
        }
        let mut rest = lanes;
        while rest != 0 {
            let lane = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut query = self.rays.query(lane);
            let found =
                self.rays
                    .leaves
                    .closest(t_max.simd(), slots.clone(), t_max.lane(lane), &mut query);
            if let Some(hit) = found {
                if best.offer(lane, hit) {
                    *t_max = t_max.with_lane(lane, hit.t);
                }
            }
        }
    }

    #[inline(always)]
    fn any<S: Simd>(&mut self, slots: Range<u32>, lanes: u32, t_max: &Lanes<S>) -> u32 {
        let mut hit = 0;
        if let Some(packet) = set_up(&mut self.packet, t_max.simd(), &self.rays, self.lanes) {
            let mut limit = *t_max;
            self.rays
                .for_each_hit(packet, slots, lanes, &mut limit, |lane, _| {
                    hit |= 1 << lane;
                    Next::Leave
                });
            return hit;
        }
        let mut rest = lanes;
        while rest != 0 {
            let lane = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut query = self.rays.query(lane);
            if self
                .rays
                .leaves
                .any(t_max.simd(), slots.clone(), t_max.lane(lane), &mut query)
            {
                hit |= 1 << lane;
            }
        }
        hit
    }
}

/// The pair test's set-up of `rays` in `lanes`, with their rules' contacts, kept in `packet`:
/// made at the first leaf, so that packets that reach no leaf never make it, in the lanes of
/// the walk.
#[inline(always)]
fn set_up<'p, S: Simd, K>(
    packet: &'p mut Option<Option<WatertightPacket>>,
    simd: S,
    rays: &PacketRays<'_, '_, K>,
    lanes: u32,
) -> Option<&'p WatertightPacket> {
    if packet.is_none() {
        let contacts = rays.rules.contacts();
        *packet =
            Some(WatertightPacket::new(simd, rays.rays, lanes).map(|p| p.with_contacts(contacts)));
    }
    packet.as_ref().and_then(Option::as_ref)
}

/// `f` of each item, in order, on rayon when `parallel` says so.
fn map<T: Sync, B: Send>(
    items: &[T],
    parallel: Parallel,
    f: impl Fn(&T) -> B + Sync + Send,
) -> Vec<B> {
    match parallel {
        Parallel::Rayon => items
            .par_iter()
            .with_min_len(PARALLEL_BLOCKS)
            .map(f)
            .collect(),
        Parallel::Sequential => items.iter().map(f).collect(),
    }
}

/// `block` of each block's slots of `order`, in order, on rayon when `parallel` says so.
fn blocks<B: Send>(
    order: &[u32],
    parallel: Parallel,
    block: impl Fn(&[u32]) -> B + Sync + Send,
) -> Vec<B> {
    match parallel {
        Parallel::Rayon => order
            .par_chunks(BLOCK_WIDTH)
            .with_min_len(PARALLEL_BLOCKS)
            .map(block)
            .collect(),
        Parallel::Sequential => order.chunks(BLOCK_WIDTH).map(block).collect(),
    }
}

/// The triangles of a block's slots, padding and slots naming no triangle left out.
fn triangles<'a>(tri_mesh: &'a TriMesh, slots: &'a [u32]) -> impl Iterator<Item = Triangle> + 'a {
    slots
        .iter()
        .filter(|&&index| index != PADDING_SLOT)
        .filter_map(|&index| tri_mesh.triangle(index as usize))
}

/// The box around these triangles, `None` if one is degenerate.
fn block_bounds(mut triangles: impl Iterator<Item = Triangle>) -> Option<Aabb> {
    triangles.try_fold(Aabb::EMPTY, |bounds, triangle| {
        (!triangle.is_degenerate()).then(|| bounds.union(triangle.bounds()))
    })
}

/// The corners of triangle `index` of `tri_mesh`, or NaN corners for a padding slot.
fn corners(tri_mesh: &TriMesh, index: u32) -> Triangle {
    tri_mesh.triangle(index as usize).unwrap_or(Triangle::new(
        glam::Vec3::NAN,
        glam::Vec3::NAN,
        glam::Vec3::NAN,
    ))
}

/// A four-lane leaf test: a ray's set-up for one block layout and what it finds per lane.
pub(crate) trait LaneTest {
    /// The layout the test reads.
    type Block;
    /// What one block test finds.
    type Hits: LaneHits;

    /// The set-up of `ray` with the rule `contacts`, made once per ray.
    fn new(ray: &Ray, contacts: Contacts) -> Self;

    /// Tests the four triangles of `block` with `t` in `[t_min, t_max]`.
    fn intersect(&self, block: &Self::Block, t_max: f32) -> Self::Hits;

    /// Tests two blocks, each answer exactly what [`LaneTest::intersect`] answers for its
    /// block: at once in `simd`'s eight lanes where the layout has such a test, else one
    /// block after the other.
    #[inline(always)]
    fn intersect_pair<S: Simd>(
        &self,
        simd: S,
        blocks: [&Self::Block; 2],
        t_max: f32,
    ) -> [Self::Hits; 2] {
        let _ = simd;
        blocks.map(|block| self.intersect(block, t_max))
    }

    /// The corners of the triangle `index` in `lane` of `block`, for back-face culling.
    fn triangle(block: &Self::Block, lane: usize, index: u32, tri_mesh: &TriMesh) -> Triangle;
}

/// The lanes a four-lane test hit and their hits.
pub(crate) trait LaneHits {
    /// A bit per lane that hit.
    fn lanes(&self) -> u32;
    /// The hit in `lane`, or `None` if that lane missed.
    fn hit(&self, lane: usize) -> Option<Hit>;
}

impl LaneTest for BlockRay {
    type Block = TriangleBlock;
    type Hits = BlockHits;

    #[inline(always)]
    fn new(ray: &Ray, contacts: Contacts) -> Self {
        BlockRay::new(WatertightRay::new(ray).with_contacts(contacts))
    }

    #[inline(always)]
    fn intersect(&self, block: &TriangleBlock, t_max: f32) -> BlockHits {
        BlockRay::intersect(self, block, t_max)
    }

    #[inline(always)]
    fn intersect_pair<S: Simd>(
        &self,
        simd: S,
        blocks: [&TriangleBlock; 2],
        t_max: f32,
    ) -> [BlockHits; 2] {
        BlockRay::intersect_pair(self, simd, blocks, t_max)
    }

    #[inline]
    fn triangle(block: &TriangleBlock, lane: usize, _: u32, _: &TriMesh) -> Triangle {
        block.triangle(lane)
    }
}

impl LaneHits for BlockHits {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        BlockHits::lanes(self)
    }

    #[inline(always)]
    fn hit(&self, lane: usize) -> Option<Hit> {
        BlockHits::hit(self, lane)
    }
}

impl LaneTest for TransformRay {
    type Block = TransformBlock;
    type Hits = TransformHits;

    #[inline(always)]
    /// The transform test holds every triangle closed: `contacts` is always
    /// [`Contacts::Hit`] for it (see [`crate::LeafTest::Transform`]).
    fn new(ray: &Ray, _: Contacts) -> Self {
        TransformRay::new(ray)
    }

    #[inline(always)]
    fn intersect(&self, block: &TransformBlock, t_max: f32) -> TransformHits {
        TransformRay::intersect(self, block, t_max)
    }

    #[inline]
    fn triangle(_: &TransformBlock, _: usize, index: u32, tri_mesh: &TriMesh) -> Triangle {
        corners(tri_mesh, index)
    }
}

impl LaneHits for TransformHits {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        TransformHits::lanes(self)
    }

    #[inline(always)]
    fn hit(&self, lane: usize) -> Option<Hit> {
        TransformHits::hit(self, lane)
    }
}

/// One layout's blocks with what the walks need besides them.
struct Leaves<'a, B> {
    blocks: &'a [B],
    wide: &'a WideBvh,
    /// `wide`'s padded leaf order.
    order: &'a [u32],
    tri_mesh: &'a TriMesh,
}

/// What a leaf test needs besides the slots: the ray's four-lane set-up, which faces to skip
/// and which triangles to keep.
struct LeafQuery<T, K> {
    /// The four-lane set-up, made at the first leaf the ray reaches ([`prepare`]).
    lanes: Option<T>,
    ray: Ray,
    kept: Kept<K>,
}

/// Which of a ray's hits a leaf test keeps: faces the rules cull are skipped, and so are
/// triangles `keep` refuses.
struct Kept<K> {
    dir: glam::Vec3,
    rules: HitRules,
    keep: K,
}

/// The leaf test's set-up of `ray`, out of line so that the compiler does not hoist it into
/// every ray's start: a ray that misses every box never needs it. Measured with callgrind on
/// the bunny (AVX2 kernel, one thread), instructions per ray against making it with the
/// query: rays that miss the root 487 -> 343 (any hit), camera rays 784 -> 716 (closest) and
/// 726 -> 621 (any), random rays 1208 -> 1215 (closest) and 1048 -> 993 (any).
#[inline(never)]
fn prepare<T: LaneTest>(ray: &Ray, contacts: Contacts) -> T {
    T::new(ray, contacts)
}

/// One ray's leaf test over one layout's blocks. Its methods are inlined into the hierarchy's
/// traversal loop, so the block test is compiled for each node kernel's instruction set (a
/// closure was called out of line).
struct BlockLeaf<'l, 'a, B, T, K> {
    leaves: &'l Leaves<'a, B>,
    query: LeafQuery<T, K>,
}

impl<B, T: LaneTest<Block = B>, K: FnMut(u32) -> bool> LeafIntersector
    for BlockLeaf<'_, '_, B, T, K>
{
    #[inline(always)]
    fn closest<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        self.leaves.closest(simd, slots, ray.t_max, &mut self.query)
    }

    #[inline(always)]
    fn any<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> bool {
        self.leaves.any(simd, slots, ray.t_max, &mut self.query)
    }
}

impl<'a, B> Leaves<'a, B> {
    #[inline(always)]
    fn new(blocks: &'a [B], wide: &'a WideBvh, tri_mesh: &'a TriMesh) -> Self {
        Self {
            blocks,
            wide,
            order: wide.primitive_order(),
            tri_mesh,
        }
    }

    /// The query of `ray` (made once per ray).
    #[inline(always)]
    fn query<T: LaneTest<Block = B>, K>(ray: &Ray, rules: HitRules, keep: K) -> LeafQuery<T, K> {
        LeafQuery {
            lanes: None,
            ray: *ray,
            kept: Kept {
                dir: ray.dir,
                rules,
                keep,
            },
        }
    }

    /// The closest hit, with the leaf test compiled into the traversal loop of the
    /// hierarchy's kernel; counted only when `counts` is given (a constant `None` leaves the
    /// counting path out).
    #[inline(always)]
    fn cast<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        ray: &Ray,
        rules: HitRules,
        keep: K,
        counts: Option<&mut TraversalCounts>,
    ) -> Option<Hit> {
        let leaf = BlockLeaf {
            leaves: self,
            query: Self::query::<T, K>(ray, rules, keep),
        };
        match counts {
            None => self.wide.cast_leaves(ray, leaf),
            Some(counts) => self.wide.cast_counted(ray, leaf, counts),
        }
    }

    /// Whether anything is hit (as [`Leaves::cast`]).
    #[inline(always)]
    fn occluded<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        ray: &Ray,
        rules: HitRules,
        keep: K,
        counts: Option<&mut TraversalCounts>,
    ) -> bool {
        let leaf = BlockLeaf {
            leaves: self,
            query: Self::query::<T, K>(ray, rules, keep),
        };
        match counts {
            None => self.wide.occluded_leaves(ray, leaf),
            Some(counts) => self.wide.occluded_counted(ray, leaf, counts),
        }
    }

    /// Every hit, or the first `max_hits` (as [`LeafBlocks::cast_all`]).
    fn cast_all<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        ray: &Ray,
        rules: HitRules,
        keep: K,
        max_hits: usize,
    ) -> Vec<Hit> {
        let mut query = Self::query::<T, K>(ray, rules, keep);
        let leaf = |slots, range: &Ray, hits: &mut Vec<Hit>| {
            self.all(slots, range.t_max, &mut query, hits)
        };
        if max_hits == usize::MAX {
            // Every leaf the ray enters is visited: the any-hit walk, children in lane order.
            self.wide.cast_all(ray, leaf)
        } else {
            self.wide.cast_first(ray, max_hits, leaf)
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
        query: &mut LeafQuery<T, K>,
        mut t_max: impl FnMut() -> f32,
        mut found: impl FnMut(Hit) -> bool,
    ) -> bool {
        let lane_ray = query
            .lanes
            .get_or_insert_with(|| prepare(&query.ray, query.kept.rules.contacts()));
        let first = slots.start as usize / BLOCK_WIDTH;
        let end = slots.end as usize / BLOCK_WIDTH;
        let blocks = &self.blocks[first..end];
        let mut pairs = blocks.chunks_exact(2);
        for (p, pair) in pairs.by_ref().enumerate() {
            let [low, high] = lane_ray.intersect_pair(simd, [&pair[0], &pair[1]], t_max());
            if self.offer::<T, K>(first + 2 * p, &pair[0], &low, &mut query.kept, &mut found)
                || self.offer::<T, K>(
                    first + 2 * p + 1,
                    &pair[1],
                    &high,
                    &mut query.kept,
                    &mut found,
                )
            {
                return true;
            }
        }
        if let [block] = pairs.remainder() {
            let hits = lane_ray.intersect(block, t_max());
            return self.offer::<T, K>(end - 1, block, &hits, &mut query.kept, &mut found);
        }
        false
    }

    /// Offers the hit lanes of block `b` that `kept` keeps to `found`, in lane order: true
    /// when it asks to stop.
    #[inline(always)]
    fn offer<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        b: usize,
        block: &B,
        hits: &T::Hits,
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
                if kept.rules.culls(t.v0, t.v1, t.v2, kept.dir) {
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
    fn closest<S: Simd, T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        simd: S,
        slots: Range<u32>,
        t_max: f32,
        query: &mut LeafQuery<T, K>,
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
    fn any<S: Simd, T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        simd: S,
        slots: Range<u32>,
        t_max: f32,
        query: &mut LeafQuery<T, K>,
    ) -> bool {
        self.for_each_hit(simd, slots, query, || t_max, |_| true)
    }

    /// Every kept hit of the leaf `slots` within `[t_min, t_max]`, appended to `hits`.
    fn all<T: LaneTest<Block = B>, K: FnMut(u32) -> bool>(
        &self,
        slots: Range<u32>,
        t_max: f32,
        query: &mut LeafQuery<T, K>,
        hits: &mut Vec<Hit>,
    ) {
        // The walk of every hit hands no instruction set to its leaves: the portable lanes.
        self.for_each_hit(
            meshcast_primitives::Portable,
            slots,
            query,
            || t_max,
            |hit| {
                hits.push(hit);
                false
            },
        );
    }
}
