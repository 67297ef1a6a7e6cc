//! `BatchWalks`: what a level gives the batch driver (`batches.rs`) besides the single-ray
//! walk of [`RayQueries`]: packets of rays, one or a pair at once, how wide a packet may be and
//! the frame a batch's order is chosen by. The trait is public in this private module, a
//! supertrait of [`RayQueries`] that users can neither name nor implement, so that
//! [`RayQueries`] shows only its required walks and the queries derived from them.
//!
//! Its methods ask `Self: RayQueries` rather than the trait asking it of its implementors:
//! [`RayQueries`] names this trait as a supertrait, so the bound cannot run the other way.

use meshcast_primitives::{RayPacket, PACKET_WIDTH};

use crate::queries::coherence::PacketSpan;
use crate::queries::{for_each_lane, Any, BatchFrame, Closest, RayQueries};
use crate::{Filter, QueryOptions};

/// The walks a batch of rays takes at a level ([`RayQueries::cast_batch`],
/// [`RayQueries::occluded_batch`]) besides the single-ray walk: `H` packets of rays at once
/// (one packet, or a pair of whole packets of neighbouring rays). The defaults answer a
/// packet ray by ray; levels that trace packets override them.
pub trait BatchWalks {
    /// Writes to `hits[p][i]` the closest hit of the ray in each lane `i` of `rays[p]` in
    /// `lanes[p]` (bits; rays already cut to the options' distance limit, coherent as
    /// [`crate::queries::coherence::coherent`] groups them, degenerate ones among them), as
    /// [`RayQueries::walk`] answers it, whatever their directions.
    #[inline]
    fn walk_closest_packets<F: Filter<<Self as RayQueries>::Candidate>, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        options: &QueryOptions<F>,
        hits: [&mut [Option<<Self as RayQueries>::Hit>; PACKET_WIDTH]; H],
    ) where
        Self: RayQueries,
    {
        for ((rays, lanes), hits) in rays.into_iter().zip(lanes).zip(hits) {
            for_each_lane(lanes, |lane| {
                hits[lane] = self.walk(&rays.ray(lane), options, Closest)
            });
        }
    }

    /// Which rays of `rays[p]` in `lanes[p]` hit anything (as
    /// [`BatchWalks::walk_closest_packets`] takes them), as bits per packet.
    #[inline]
    fn walk_any_packets<F: Filter<<Self as RayQueries>::Candidate>, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        options: &QueryOptions<F>,
    ) -> [u32; H]
    where
        Self: RayQueries,
    {
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
