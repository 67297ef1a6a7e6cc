//! `LevelWalks`: what each level (`Mesh`, `Instance`, `Scene`) implements for the ray
//! queries, over its hits and the candidates its filters are asked about: the walk of one ray
//! and of packets of rays (one or a pair at once), each generic over the kind of query, and
//! what the batch driver asks besides: how wide a packet may be and the frame a batch's
//! order is chosen by. Every query of [`RayQueries`] is derived from these
//! (`ray_queries.rs`, `batch_queries.rs`).
//!
//! The trait is public in this private module, a supertrait of [`RayQueries`] that users can
//! neither name nor implement, so that [`RayQueries`] shows the queries alone; it is below
//! them, so the queries' files import it and it imports none of them.
//!
//! [`RayQueries`]: crate::RayQueries

use meshcast_primitives::{Ray, RayPacket, PACKET_WIDTH};

use crate::batches::coherence::PacketSpan;
use crate::batches::{for_each_lane, BatchFrame};
use crate::queries::{PacketKind, QueryKind};
use crate::{Filter, QueryOptions};

/// A level's walks, over its hits `H` and the candidates `C` its filters are asked about
/// ([`crate::RayQueries::Hit`] and [`crate::RayQueries::Candidate`]): one walk per ray shape,
/// each generic over the kind of query: one ray's ([`LevelWalks::walk`]), and `P` packets of
/// rays at once for a batch ([`LevelWalks::walk_packets`]: one packet, or a pair of whole
/// packets of neighbouring rays, for [`crate::RayQueries::cast_batch`] and
/// [`crate::RayQueries::occluded_batch`]).
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

    /// Leaves in `answers[p][i]` the answer of `kind` (closest hit, or whether anything is
    /// hit) for the ray in each lane `i` of `rays[p]` in `lanes[p]` (bits; rays already cut
    /// to the options' distance limit, coherent as [`crate::batches::coherence::coherent`]
    /// groups them, degenerate ones among them), as [`LevelWalks::walk`] answers it, whatever
    /// their directions: the one packet walk of every level. This default answers ray by
    /// ray ([`walk_rays`]); levels that trace packets override it.
    #[inline]
    fn walk_packets<Q: PacketKind, F: Filter<C>, const P: usize>(
        &self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        options: &QueryOptions<F>,
        kind: Q,
        answers: [&mut [Q::Answer<H>; PACKET_WIDTH]; P],
    ) {
        walk_rays(rays, lanes, answers, |ray| self.walk(ray, options, kind));
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

/// Leaves in `answers[p][i]` the answer `walk` gives the ray in each lane `i` of `rays[p]` in
/// `lanes[p]`: a packet walked ray by ray.
#[inline(always)]
pub(crate) fn walk_rays<A, const P: usize>(
    rays: [&RayPacket; P],
    lanes: [u32; P],
    answers: [&mut [A; PACKET_WIDTH]; P],
    mut walk: impl FnMut(&Ray) -> A,
) {
    for ((rays, lanes), answers) in rays.into_iter().zip(lanes).zip(answers) {
        for_each_lane(lanes, |lane| answers[lane] = walk(&rays.ray(lane)));
    }
}
