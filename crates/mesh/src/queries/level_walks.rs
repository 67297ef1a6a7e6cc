//! `LevelWalks`: what each level (`Mesh`, `Instance`, `Scene`) implements for the ray
//! queries of rays of each precision `R` ([`crate::QueryRay`]), over its hits and the
//! candidates its filters are asked about: the walk of one ray, generic over the kind of
//! query, how a batch of such rays is traced, and the frame a batch's order is chosen by.
//! `PacketWalks`: what the levels add for batches of `f32` rays, which trace coherent rays
//! as packets (one or a pair at once). Every query of [`RayQueries`] is derived from these
//! (`ray_queries.rs`, `batch_queries.rs`).
//!
//! The traits are public in this private module, supertraits of [`RayQueries`] that users
//! can neither name nor implement, so that [`RayQueries`] shows the queries alone; they are
//! below them, so the queries' files import them and they import only the batch driver's
//! helpers.
//!
//! [`RayQueries`]: crate::RayQueries

use meshcast_primitives::{Hit, Ray, RayPacket, PACKET_WIDTH};

use crate::batches::coherence::PacketSpan;
use crate::batches::{for_each_lane, BatchFrame};
use crate::queries::batch_queries::{ray_by_ray, serial_ray_by_ray};
use crate::queries::{Filter, PacketKind, QueryKind, QueryOptions, QueryRay};

/// A level's walks of rays `R`, over its hits `H` and the candidates `C` its filters are asked
/// about ([`crate::RayQueries::Hit`] and [`crate::RayQueries::Candidate`]): one ray's walk,
/// generic over the kind of query ([`LevelWalks::walk`]), and a batch's
/// ([`LevelWalks::batch`]), ray by ray unless the level traces packets.
pub trait LevelWalks<R: QueryRay, H, C> {
    /// The answer of the query `kind` (closest hit, any hit, every hit, their count: the
    /// kinds of `query_kinds.rs`) for a ray already cut to the options' distance limit: the
    /// one walk every query is derived from. Every hit (`All`, `Count`) is asked of valid
    /// rays only, `All` in any order.
    fn walk<Q: QueryKind, F: Filter<C>>(
        &self,
        ray: &R,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<H>;

    /// Leaves in `answers[i]` the answer of `kind` (closest hit, or whether anything is hit)
    /// for `rays[i]`, as the single-ray query with these options answers it, in parallel on
    /// the current rayon pool. This default walks ray by ray through the batch driver
    /// (sorted where the options' order says); levels that trace packets override it, and a
    /// mesh carries `f64` rays into its frame to trace them as `f32` packets (whose answers
    /// are the kind's over [`Hit`]).
    fn batch<Q: PacketKind + Sync, F: Filter<C> + Sync>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<H>],
    ) where
        Self: Sync,
        Q::Answer<H>: Copy + Default + Send + Sync,
        Q::Answer<Hit>: Copy + Default + Send + Sync,
    {
        ray_by_ray(self, rays, options, kind, answers);
    }

    /// [`LevelWalks::batch`] on the calling thread.
    fn batch_serial<Q: PacketKind, F: Filter<C>>(
        &self,
        rays: &[R],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<H>],
    ) where
        Q::Answer<H>: Copy + Default,
        Q::Answer<Hit>: Copy + Default,
    {
        serial_ray_by_ray(self, rays, options, kind, answers);
    }

    /// What a batch's order is chosen by ([`crate::BatchOrder`]): the box around everything
    /// the level's rays may hit and the bytes of hierarchy and triangles they walk.
    fn batch_frame(&self) -> BatchFrame;
}

/// The packet walks of a level's `f32` rays: `P` packets of rays at once for a batch
/// ([`PacketWalks::walk_packets`]: one packet, or a pair of whole packets of neighbouring
/// rays, for [`crate::RayQueries::cast_batch`] and [`crate::RayQueries::occluded_batch`]).
pub trait PacketWalks<H, C>: LevelWalks<Ray, H, C> {
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
