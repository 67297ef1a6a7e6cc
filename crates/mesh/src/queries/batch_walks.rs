//! `BatchWalks`: what a level gives the batch driver (`batches.rs`) besides the single-ray
//! walks of [`RayQueries`]: packets of rays, pairs of packets, how wide a packet may be and
//! the frame a batch's order is chosen by. The trait is public in this private module, a
//! supertrait of [`RayQueries`] that users can neither name nor implement, so that
//! [`RayQueries`] shows only its required walks and the queries derived from them.
//!
//! Its methods ask `Self: RayQueries` rather than the trait asking it of its implementors:
//! [`RayQueries`] names this trait as a supertrait, so the bound cannot run the other way.

use meshcast_primitives::{RayPacket, ALL_LANES, PACKET_WIDTH};

use crate::queries::coherence::PacketSpan;
use crate::queries::{for_each_lane, Any, BatchFrame, Closest, RayQueries};
use crate::{Filter, QueryOptions};

/// The walks a batch of rays takes at a level ([`RayQueries::cast_batch`],
/// [`RayQueries::occluded_batch`]) besides the single-ray walks. The defaults answer a
/// packet ray by ray; levels that trace packets override them.
pub trait BatchWalks {
    /// Writes to `hits[i]` the closest hit of the ray in each lane `i` of `rays` in `lanes`
    /// (bits; rays already cut to the options' distance limit, coherent as
    /// [`crate::queries::coherence::coherent`] groups them, degenerate ones among them), as
    /// [`RayQueries::walk`] answers it, whatever their directions. Levels that trace
    /// packets override it.
    #[inline]
    fn walk_closest_packet<F: Filter<<Self as RayQueries>::Candidate>>(
        &self,
        rays: &RayPacket,
        lanes: u32,
        options: &QueryOptions<F>,
        hits: &mut [Option<<Self as RayQueries>::Hit>; PACKET_WIDTH],
    ) where
        Self: RayQueries,
    {
        for_each_lane(lanes, |lane| {
            hits[lane] = self.walk(&rays.ray(lane), options, Closest)
        });
    }

    /// How wide a packet of a batch may be at this level ([`PacketSpan`]). Levels that give a
    /// span also walk two whole chunks of neighbouring rays as one packet
    /// ([`BatchWalks::walk_closest_packet_pair`]); `None` for levels that do not, whose
    /// packets are bounded by their rays' cone and spread alone.
    #[inline]
    fn packet_span(&self) -> Option<PacketSpan> {
        None
    }

    /// What a batch's order is chosen by ([`crate::BatchOrder`]): the box around everything
    /// the level's rays may hit and the bytes of hierarchy and triangles they walk.
    fn batch_frame(&self) -> BatchFrame;

    /// [`BatchWalks::walk_closest_packet`] of two whole packets of neighbouring rays, which
    /// levels that trace packets walk together.
    #[inline]
    fn walk_closest_packet_pair<F: Filter<<Self as RayQueries>::Candidate>>(
        &self,
        rays: [&RayPacket; 2],
        options: &QueryOptions<F>,
        hits: [&mut [Option<<Self as RayQueries>::Hit>; PACKET_WIDTH]; 2],
    ) where
        Self: RayQueries,
    {
        for (rays, hits) in rays.into_iter().zip(hits) {
            self.walk_closest_packet(rays, ALL_LANES, options, hits);
        }
    }

    /// [`BatchWalks::walk_any_packet`] of two whole packets of neighbouring rays, which
    /// levels that trace packets walk together, as bits per packet.
    #[inline]
    fn walk_any_packet_pair<F: Filter<<Self as RayQueries>::Candidate>>(
        &self,
        rays: [&RayPacket; 2],
        options: &QueryOptions<F>,
    ) -> [u32; 2]
    where
        Self: RayQueries,
    {
        rays.map(|rays| self.walk_any_packet(rays, ALL_LANES, options))
    }

    /// Which rays of `rays` in `lanes` hit anything (as [`BatchWalks::walk_closest_packet`]
    /// takes them), as bits.
    #[inline]
    fn walk_any_packet<F: Filter<<Self as RayQueries>::Candidate>>(
        &self,
        rays: &RayPacket,
        lanes: u32,
        options: &QueryOptions<F>,
    ) -> u32
    where
        Self: RayQueries,
    {
        let mut hit = 0;
        for_each_lane(lanes, |lane| {
            if self.walk(&rays.ray(lane), options, Any) {
                hit |= 1 << lane;
            }
        });
        hit
    }
}
