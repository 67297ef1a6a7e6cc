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
use crate::queries::{HitRules, QueryOptions};

/// A kind of query as the mesh asks it: the bvh's kind with the hit rules it takes.
pub trait QueryKind: Query {
    /// Which hits the walk accepts with `options`.
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules;
}

/// A kind of query a batch walks as packets where its rays are coherent: the closest hit or
/// whether anything is hit, each answer one `Copy` value per ray, kept in the caller's answers
/// while a packet walks the mesh's leaves.
pub trait PacketKind: QueryKind + PacketQuery {
    /// Offers `hit` to a ray's answer so far: the closest hit keeps it if it comes first
    /// ([`Hit::is_closer_than`]), an any-hit answer becomes a hit; whether the answer took it.
    fn offer(answer: &mut Self::Answer<Hit>, hit: Hit) -> bool;

    /// Leaves in `answers` the rays of `hit` (bits) that a packet walk found to hit: an
    /// any-hit walk's answer. A closest-hit walk answers with the hits offered, and no bits.
    fn take_hits(answers: &mut [Self::Answer<Hit>; PACKET_WIDTH], hit: u32);
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
    fn offer(answer: &mut Option<Hit>, hit: Hit) -> bool {
        if answer.is_some_and(|best| !hit.is_closer_than(&best)) {
            return false;
        }
        *answer = Some(hit);
        true
    }

    #[inline(always)]
    fn take_hits(_: &mut [Option<Hit>; PACKET_WIDTH], _: u32) {}
}

impl PacketKind for Any {
    #[inline(always)]
    fn offer(answer: &mut bool, _: Hit) -> bool {
        *answer = true;
        true
    }

    #[inline(always)]
    fn take_hits(answers: &mut [bool; PACKET_WIDTH], hit: u32) {
        for_each_lane(hit, |lane| answers[lane] = true);
    }
}
