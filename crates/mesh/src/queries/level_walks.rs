//! `LevelWalks`: what each level (`Mesh`, `Instance`, `Scene`) implements for the ray
//! queries, over its hits and the candidates its filters are asked about: the walk of one ray
//! for every kind of query, and what the batch driver asks besides: packets of rays, one or a
//! pair at once, how wide a packet may be and the frame a batch's order is chosen by. Every
//! query of [`RayQueries`] is derived from these (`ray_queries.rs`, `batch_queries.rs`).
//!
//! The trait is public in this private module, a supertrait of [`RayQueries`] that users can
//! neither name nor implement, so that [`RayQueries`] shows the queries alone; it is below
//! them, so the queries' files import it and it imports none of them.
//!
//! [`RayQueries`]: crate::RayQueries

use meshcast_primitives::{Ray, RayPacket, PACKET_WIDTH};

use crate::batches::coherence::PacketSpan;
use crate::batches::{for_each_lane, BatchFrame};
use crate::queries::{Any, Closest, QueryKind};
use crate::{Filter, QueryOptions};

/// A level's walks, over its hits `H` and the candidates `C` its filters are asked about
/// ([`crate::RayQueries::Hit`] and [`crate::RayQueries::Candidate`]): one ray's for every kind
/// of query ([`LevelWalks::walk`]), and those a batch of rays takes besides
/// ([`crate::RayQueries::cast_batch`], [`crate::RayQueries::occluded_batch`]): `P` packets of
/// rays at once (one packet, or a pair of whole packets of neighbouring rays). The packet walks' defaults answer a packet ray by
/// ray; levels that trace packets override them.
pub trait LevelWalks<H, C> {
    /// The answer of the query `kind` (closest hit, any hit, every hit, their count: the
    /// kinds of `query_kinds.rs`) for a ray already cut to the options' distance limit: the
    /// one walk every query is derived from. Every hit (`All`, `Count`) is asked of valid
    /// rays only, `All` in any order.
    fn walk<Q: QueryKind, F: Filter<C>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<H>;

    /// Writes to `hits[p][i]` the closest hit of the ray in each lane `i` of `rays[p]` in
    /// `lanes[p]` (bits; rays already cut to the options' distance limit, coherent as
    /// [`crate::batches::coherence::coherent`] groups them, degenerate ones among them), as
    /// [`LevelWalks::walk`] answers it, whatever their directions.
    #[inline]
    fn walk_closest_packets<F: Filter<C>, const P: usize>(
        &self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        options: &QueryOptions<F>,
        hits: [&mut [Option<H>; PACKET_WIDTH]; P],
    ) {
        for ((rays, lanes), hits) in rays.into_iter().zip(lanes).zip(hits) {
            for_each_lane(lanes, |lane| {
                hits[lane] = self.walk(&rays.ray(lane), options, Closest)
            });
        }
    }

    /// Which rays of `rays[p]` in `lanes[p]` hit anything (as
    /// [`LevelWalks::walk_closest_packets`] takes them), as bits per packet.
    #[inline]
    fn walk_any_packets<F: Filter<C>, const P: usize>(
        &self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        options: &QueryOptions<F>,
    ) -> [u32; P] {
        core::array::from_fn(|p| {
            let mut hit = 0;
            for_each_lane(lanes[p], |lane| {
                if self.walk(&rays[p].ray(lane), options, Any) {
                    hit |= 1 << lane;
                }
            });
            hit
        })
    }

    /// How wide a packet of a batch may be at this level ([`PacketSpan`]). Levels that give a
    /// span also walk two whole chunks of neighbouring rays as one pair of packets; `None`
    /// for levels that do not, whose packets are bounded by their rays' cone and spread
    /// alone.
    #[inline]
    fn packet_span(&self) -> Option<PacketSpan> {
        None
    }

    /// What a batch's order is chosen by ([`crate::BatchOrder`]): the box around everything
    /// the level's rays may hit and the bytes of hierarchy and triangles they walk.
    fn batch_frame(&self) -> BatchFrame;
}
