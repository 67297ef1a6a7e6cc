//! The kinds of query ([`Closest`], [`Any`], [`All`], [`Count`]): the bvh's own values
//! ([`meshcast_bvh::Query`]), which every level's one walk takes and hands down (scene, its
//! top level, instance, mesh, the wide tree's loop), so that the kind is one type from the
//! query to the loop. What the mesh adds is what a kind asks of the leaves' hit rules
//! ([`QueryKind::rules`]), and for the kinds packets walk ([`PacketKind`]), where a packet's
//! answers are kept while its walk goes.
//!
//! The traits are public in this private module, as `LevelWalks` is: the walks of that sealed
//! supertrait of the public [`crate::RayQueries`] name them, and users can neither name them
//! nor implement them.

pub use meshcast_bvh::{All, Any, Closest, Count};
use meshcast_bvh::{PacketQuery, Query};
use meshcast_primitives::{Hit, PACKET_WIDTH};

use crate::batches::for_each_lane;
use crate::queries::HitRules;
use crate::QueryOptions;

/// A kind of query as the mesh asks it: the bvh's kind with the hit rules it takes.
pub trait QueryKind: Query {
    /// Which hits the walk accepts with `options`.
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules;
}

/// A kind of query a batch walks as packets where its rays are coherent: the closest hit or
/// whether anything is hit, each answer one `Copy` value per ray.
pub trait PacketKind: QueryKind + PacketQuery {
    /// Runs `walk`, a packet walk over the mesh's leaves, with slots for each ray's closest
    /// hit, and leaves in `answers[p]` the answer of each ray of `lanes[p]`: for the closest
    /// hit the slots are the answers themselves; for any hit they are scratch, and the
    /// answers are the bits `walk` returns.
    fn with_hit_slots<const P: usize>(
        answers: [&mut [Self::Answer<Hit>; PACKET_WIDTH]; P],
        lanes: [u32; P],
        walk: impl FnOnce([&mut [Option<Hit>; PACKET_WIDTH]; P]) -> [u32; P],
    );
}

impl QueryKind for Closest {
    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::first_hit(options)
    }
}

impl QueryKind for Any {
    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::first_hit(options)
    }
}

impl QueryKind for All {
    /// Each crossing once, whatever the options' contacts.
    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::every_hit(options)
    }
}

impl QueryKind for Count {
    /// Each crossing once, whatever the options' contacts, as [`All`].
    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::every_hit(options)
    }
}

impl PacketKind for Closest {
    #[inline(always)]
    fn with_hit_slots<const P: usize>(
        answers: [&mut [Option<Hit>; PACKET_WIDTH]; P],
        _: [u32; P],
        walk: impl FnOnce([&mut [Option<Hit>; PACKET_WIDTH]; P]) -> [u32; P],
    ) {
        walk(answers);
    }
}

impl PacketKind for Any {
    #[inline(always)]
    fn with_hit_slots<const P: usize>(
        answers: [&mut [bool; PACKET_WIDTH]; P],
        lanes: [u32; P],
        walk: impl FnOnce([&mut [Option<Hit>; PACKET_WIDTH]; P]) -> [u32; P],
    ) {
        // An any-hit walk keeps no hits.
        let mut scratch = [[None; PACKET_WIDTH]; P];
        let hit = walk(scratch.each_mut());
        for ((hit, lanes), answers) in hit.into_iter().zip(lanes).zip(answers) {
            for_each_lane(lanes, |lane| answers[lane] = hit & (1 << lane) != 0);
        }
    }
}
