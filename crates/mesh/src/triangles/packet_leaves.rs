//! The packet queries over a mesh's leaf blocks: a packet's rays against a leaf's watertight
//! blocks two rays at a time ([`PacketLeaf`]), or each ray alone by its single-ray walk.

use core::ops::Range;

use meshcast_bvh::PacketLeaves;
#[cfg(doc)]
use meshcast_bvh::WideBvh;
use meshcast_primitives::{
    BlockRay, Hit, Lanes, Ray, RayPacket, Simd, TriangleBlock, WatertightPacket, ALL_LANES,
    BLOCK_WIDTH, PACKET_WIDTH,
};

use super::leaf_blocks::{LeafBlocks, MeshLeaves};
use super::leaves::{LeafQuery, Leaves};
use crate::batches::coherence::PACKET_MIN_RAYS;
use crate::batches::{at_least, for_each_lane};
use crate::queries::{walk_rays, HitRules, PacketKind};

impl MeshLeaves<'_> {
    /// Leaves in `answers[p][i]` the answer of `kind` (closest hit, or whether anything is
    /// hit) for each ray `rays[p][i]` in `lanes[p]` (bits; coherent as
    /// [`crate::batches::coherence::coherent`] groups them, degenerate rays among them), as
    /// [`MeshLeaves::trace`] answers it: the leaves' tier of a packet's road, the rays of the
    /// `P` packets traced together ([`WideBvh::traverse_packets`], which splits them by
    /// direction octant) when each has [`PACKET_MIN_RAYS`] rays and the blocks have a packet
    /// test, else ray by ray. The answers are kept in `answers` while the walk goes.
    pub(crate) fn trace_packets<Q: PacketKind, const P: usize>(
        self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        rules: HitRules,
        keep: &impl Fn(u32) -> bool,
        kind: Q,
        answers: [&mut [Q::Answer<Hit>; PACKET_WIDTH]; P],
    ) {
        let enough = lanes.iter().all(|&lanes| at_least(lanes, PACKET_MIN_RAYS));
        // The transform test has no packet form.
        let (true, LeafBlocks::Watertight(blocks)) = (enough, self.blocks) else {
            walk_rays(rays, lanes, answers, |ray| {
                self.trace(ray, rules, keep, kind, &mut ())
            });
            return;
        };
        let leaves = Leaves::new(blocks, self.wide, self.tri_mesh);
        let mut p = 0;
        let mut packets = answers.map(|answers| {
            let best = BestHits::<Q>::clear(lanes[p], answers);
            let leaf = PacketLeaf::new(&leaves, rays[p], lanes[p], rules, keep, best);
            p += 1;
            leaf
        });
        let hit = self.wide.traverse_packets(rays, lanes, kind, &mut packets);
        for (packet, hit) in packets.iter_mut().zip(hit) {
            Q::take_hits(packet.best.answers, hit);
        }
    }
}

/// A packet's leaf test over watertight blocks: when the rays share their axes, two rays
/// against a block's four triangles in one eight-lane test ([`meshcast_primitives::RayPair`]),
/// else each ray by its single-ray leaf test. Either way a ray's hits are those of its
/// single-ray test, culled, filtered and ordered the same way, so its answer is
/// [`MeshLeaves::trace`]'s.
///
/// The walk hands it only the rays whose own test enters the leaf's box
/// ([`WideBvh::traverse_packets`]): on a camera image about three of eight, as leaves are about a
/// pixel wide there. Two rays per test make a block cost one test per pair of those rays
/// rather than one per triangle, as testing each triangle against all eight lanes did
/// (bunny, 512 x 512 camera image, one thread: 548 to 481 instructions per ray).
struct PacketLeaf<'l, 'a, 'h, K, Q: PacketKind> {
    rays: PacketRays<'l, 'a, K>,
    lanes: u32,
    /// The rays' set-ups for the pair test, made at the first leaf (`None` until then);
    /// `Some(None)` if the rays do not share their axes.
    packet: Option<Option<WatertightPacket>>,
    best: BestHits<'h, Q>,
}

/// What a packet's leaf test reads: the blocks, the rays and which hits to keep.
struct PacketRays<'l, 'a, K> {
    leaves: &'l Leaves<'a, TriangleBlock>,
    rays: &'l RayPacket,
    rules: HitRules,
    keep: &'l K,
}

/// Each ray's answer so far, lane by lane, kept in the caller's answers: copying a whole
/// packet's hits there at the end was a call to `memcpy`.
struct BestHits<'h, Q: PacketKind> {
    answers: &'h mut [Q::Answer<Hit>; PACKET_WIDTH],
}

impl<'h, Q: PacketKind> BestHits<'h, Q> {
    /// The answers of `answers`, none yet in the lanes of `lanes` (bits).
    #[inline(always)]
    fn clear(lanes: u32, answers: &'h mut [Q::Answer<Hit>; PACKET_WIDTH]) -> Self {
        if lanes == ALL_LANES {
            answers.iter_mut().for_each(|answer| *answer = Q::nothing());
        } else {
            for_each_lane(lanes, |lane| answers[lane] = Q::nothing());
        }
        Self { answers }
    }

    /// Offers `hit` to the answer in `lane` ([`PacketKind::offer`]); returns whether it
    /// took it.
    #[inline(always)]
    fn offer(&mut self, lane: usize, hit: Hit) -> bool {
        Q::offer(&mut self.answers[lane], hit)
    }
}

impl<'l, 'a, 'h, K: Fn(u32) -> bool, Q: PacketKind> PacketLeaf<'l, 'a, 'h, K, Q> {
    fn new(
        leaves: &'l Leaves<'a, TriangleBlock>,
        rays: &'l RayPacket,
        lanes: u32,
        rules: HitRules,
        keep: &'l K,
        best: BestHits<'h, Q>,
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
    /// The single-ray leaf query of `ray`, a lane's.
    #[inline(always)]
    fn query<'r>(&self, ray: &'r Ray) -> LeafQuery<'r, BlockRay, &'l K> {
        Leaves::<TriangleBlock>::query(ray, self.rules, self.keep)
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

impl<K: Fn(u32) -> bool, Q: PacketKind> PacketLeaves for PacketLeaf<'_, '_, '_, K, Q> {
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
            let ray = self.rays.rays.ray(lane);
            let mut query = self.rays.query(&ray);
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
            let ray = self.rays.rays.ray(lane);
            let mut query = self.rays.query(&ray);
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
