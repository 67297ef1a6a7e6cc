//! What a walk is asked: the kinds of query ([`Closest`], [`Any`], [`All`], [`Count`]), one
//! type each, that every walk of both trees takes as a value ([`crate::WideBvh::walk`],
//! [`crate::Bvh::walk`], and for packets [`crate::WideBvh::traverse_packets`],
//! [`crate::Bvh::walk_packet`]). A walk's loop is written once over [`Query`]: the kind says
//! in which order children are taken (nearest first with the range shrinking, or as they
//! come), what a leaf is asked, how what it found joins what the walk holds, and when the
//! walk may stop. Adding a query is adding a kind here; the callers above (a mesh, a scene's
//! top level) pass the same values down.
//!
//! The query room: uses the contracts (`contracts.rs`: [`LeafIntersector`]) and the capped
//! first hits (`first_hits.rs`); the trees' walks use it.

use core::ops::Range;

use meshcast_primitives::{Hit, Ray, RayHit, RayRange, Simd};

use crate::contracts::LeafIntersector;
use crate::first_hits::FirstHits;

/// The closest hit within the ray's range (the smallest `t`, ties to the smaller primitive
/// index, [`RayHit::order`]), or `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Closest;

/// Whether anything is hit within the ray's range; the walk stops at the first hit found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Any;

/// Every hit within the ray's range, sorted by [`RayHit::order`], or of more than `max_hits`
/// the first `max_hits` in that order (`usize::MAX`: no limit; 0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct All {
    /// The most hits answered.
    pub max_hits: usize,
}

/// The number of hits [`All`] answers, without keeping them: of more than `max_hits`,
/// `max_hits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// The largest count answered.
    pub max_hits: usize,
}

impl All {
    /// Every hit, with no limit.
    pub const EVERY: Self = Self {
        max_hits: usize::MAX,
    };
}

impl Count {
    /// Every hit counted, with no limit.
    pub const EVERY: Self = Self {
        max_hits: usize::MAX,
    };
}

/// What the walk does after a leaf: go on, go on with the range ending at `t` (inclusive;
/// only walks that take children nearest first shrink it), or stop with what it holds. `T`
/// is the precision of the ray's `t` ([`RayRange::Scalar`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step<T = f32> {
    /// Go on with the range as it is.
    Go,
    /// Go on with the range ending at this `t`.
    Shrink(T),
    /// Stop: the answer is what the walk holds.
    Stop,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Closest {}
    impl Sealed for super::Any {}
    impl Sealed for super::All {}
    impl Sealed for super::Count {}
}

/// A kind of query: what a walk answers and how it gets there. Sealed: the kinds are this
/// module's.
///
/// The walks ask a kind three things besides its answer's type: the order children are taken
/// in ([`Query::nearest_first`]), what the walk holds while it goes ([`Query::Found`], from
/// [`Query::start`] to [`Query::finish`]), and what a leaf adds to it: a wide tree's leaf test
/// asked this kind's question ([`Query::test_leaf`]), or a binary tree's leaf slot already
/// answering this kind ([`Query::take`]: an instance of a scene).
pub trait Query: Copy + sealed::Sealed {
    /// The answer for hits of type `H`.
    type Answer<H>;

    /// What a walk holds while it goes.
    type Found<H>;

    /// The answer where nothing is reached (an empty tree, a degenerate ray).
    fn nothing<H>() -> Self::Answer<H>;

    /// `answer` with each hit made by `f` (an instance's hits as a scene's).
    fn map<H, G>(answer: Self::Answer<H>, f: impl FnMut(H) -> G) -> Self::Answer<G>;

    /// Whether the walk takes children nearest first, skipping those that start beyond the
    /// end of its range, which shrinks as hits are found ([`Step::Shrink`]); else children
    /// are taken as they come and the range is fixed.
    fn nearest_first(self) -> bool;

    /// What a walk holds before its first leaf.
    fn start<H: RayHit>(self) -> Self::Found<H>;

    /// The answer from what the walk holds at its end.
    fn finish<H: RayHit>(self, found: Self::Found<H>) -> Self::Answer<H>;

    /// Asks `leaves` this kind's question of the primitives in leaf slots `slots` for `ray`,
    /// whose range ends at `t_max` now, and adds the answer to `found`.
    fn test_leaf<S: Simd, L: LeafIntersector>(
        self,
        found: &mut Self::Found<Hit>,
        leaves: &mut L,
        simd: S,
        slots: Range<u32>,
        ray: &Ray,
        t_max: f32,
    ) -> Step;

    /// Adds `answer`, a leaf slot's own answer to this kind for `range` (the ray, in either
    /// precision, with the range the walk has left), to `found`.
    fn take<R: RayRange, H: RayHit<Scalar = R::Scalar>>(
        self,
        found: &mut Self::Found<H>,
        answer: Self::Answer<H>,
        range: &R,
    ) -> Step<R::Scalar>;
}

/// A kind of query packets of rays walk together: [`Closest`] or [`Any`], whose answer is one
/// value per ray.
pub trait PacketQuery: Query {
    /// Whether a ray leaves the packet's walk at its first hit (children taken as they come),
    /// else the walk keeps each ray's closest hit (children nearest first).
    const ANY: bool;
}

/// `hit` kept as `best` if it lies in `range` and comes before `best`: the closest-hit rule.
#[inline(always)]
fn keep_closer<R: RayRange, H: RayHit<Scalar = R::Scalar>>(
    best: &mut Option<H>,
    hit: H,
    range: &R,
) -> Step<R::Scalar> {
    if range.contains_t(hit.t()) && best.is_none_or(|b| hit.is_closer_than(&b)) {
        *best = Some(hit);
        return Step::Shrink(hit.t());
    }
    Step::Go
}

impl Query for Closest {
    type Answer<H> = Option<H>;
    type Found<H> = Option<H>;

    #[inline(always)]
    fn nothing<H>() -> Option<H> {
        None
    }

    #[inline(always)]
    fn map<H, G>(answer: Option<H>, f: impl FnMut(H) -> G) -> Option<G> {
        answer.map(f)
    }

    #[inline(always)]
    fn nearest_first(self) -> bool {
        true
    }

    #[inline(always)]
    fn start<H: RayHit>(self) -> Option<H> {
        None
    }

    #[inline(always)]
    fn finish<H: RayHit>(self, found: Option<H>) -> Option<H> {
        found
    }

    #[inline(always)]
    fn test_leaf<S: Simd, L: LeafIntersector>(
        self,
        found: &mut Option<Hit>,
        leaves: &mut L,
        simd: S,
        slots: Range<u32>,
        ray: &Ray,
        t_max: f32,
    ) -> Step {
        let range = ray.with_range(ray.t_min, t_max);
        match leaves.closest(simd, slots, &range) {
            Some(hit) => keep_closer(found, hit, &range),
            None => Step::Go,
        }
    }

    #[inline(always)]
    fn take<R: RayRange, H: RayHit<Scalar = R::Scalar>>(
        self,
        found: &mut Option<H>,
        answer: Option<H>,
        range: &R,
    ) -> Step<R::Scalar> {
        match answer {
            Some(hit) => keep_closer(found, hit, range),
            None => Step::Go,
        }
    }
}

impl PacketQuery for Closest {
    const ANY: bool = false;
}

impl Query for Any {
    type Answer<H> = bool;
    type Found<H> = bool;

    #[inline(always)]
    fn nothing<H>() -> bool {
        false
    }

    #[inline(always)]
    fn map<H, G>(answer: bool, _: impl FnMut(H) -> G) -> bool {
        answer
    }

    #[inline(always)]
    fn nearest_first(self) -> bool {
        false
    }

    #[inline(always)]
    fn start<H: RayHit>(self) -> bool {
        false
    }

    #[inline(always)]
    fn finish<H: RayHit>(self, found: bool) -> bool {
        found
    }

    /// The range never shrinks, so the leaf is asked about `ray` itself.
    #[inline(always)]
    fn test_leaf<S: Simd, L: LeafIntersector>(
        self,
        found: &mut bool,
        leaves: &mut L,
        simd: S,
        slots: Range<u32>,
        ray: &Ray,
        _: f32,
    ) -> Step {
        self.take::<Ray, Hit>(found, leaves.any(simd, slots, ray), ray)
    }

    #[inline(always)]
    fn take<R: RayRange, H: RayHit<Scalar = R::Scalar>>(
        self,
        found: &mut bool,
        answer: bool,
        _: &R,
    ) -> Step<R::Scalar> {
        if answer {
            *found = true;
            return Step::Stop;
        }
        Step::Go
    }
}

impl PacketQuery for Any {
    const ANY: bool = true;
}

/// The first hits kept while an [`All`] walk goes: with a limit, the range shrinks to the
/// last of the first `max_hits` once that many are held (`FirstHits::settle`).
impl Query for All {
    type Answer<H> = Vec<H>;
    type Found<H> = FirstHits<H>;

    #[inline(always)]
    fn nothing<H>() -> Vec<H> {
        Vec::new()
    }

    #[inline(always)]
    fn map<H, G>(answer: Vec<H>, f: impl FnMut(H) -> G) -> Vec<G> {
        answer.into_iter().map(f).collect()
    }

    /// With a limit the walk is the closest-hit walk, its range ending at the last of the
    /// first hits; without one every leaf the ray enters is visited.
    #[inline(always)]
    fn nearest_first(self) -> bool {
        self.max_hits != usize::MAX
    }

    #[inline(always)]
    fn start<H: RayHit>(self) -> FirstHits<H> {
        FirstHits::new(self.max_hits.max(1))
    }

    #[inline(always)]
    fn finish<H: RayHit>(self, found: FirstHits<H>) -> Vec<H> {
        let mut hits = found.into_sorted();
        hits.truncate(self.max_hits);
        hits
    }

    fn test_leaf<S: Simd, L: LeafIntersector>(
        self,
        found: &mut FirstHits<Hit>,
        leaves: &mut L,
        _: S,
        slots: Range<u32>,
        ray: &Ray,
        t_max: f32,
    ) -> Step {
        let range = ray.with_range(ray.t_min, t_max);
        let start = found.len();
        leaves.all(slots, &range, found.hits_mut());
        settled(found.settle(start, &range))
    }

    fn take<R: RayRange, H: RayHit<Scalar = R::Scalar>>(
        self,
        found: &mut FirstHits<H>,
        answer: Vec<H>,
        range: &R,
    ) -> Step<R::Scalar> {
        let start = found.len();
        found.hits_mut().extend(answer);
        settled(found.settle(start, range))
    }
}

/// The step after `FirstHits::settle`: the range ends at the last hit kept once there are
/// enough.
#[inline(always)]
fn settled<H: RayHit>(last: Option<H>) -> Step<H::Scalar> {
    last.map_or(Step::Go, |hit| Step::Shrink(hit.t()))
}

impl Query for Count {
    type Answer<H> = usize;
    type Found<H> = usize;

    #[inline(always)]
    fn nothing<H>() -> usize {
        0
    }

    #[inline(always)]
    fn map<H, G>(answer: usize, _: impl FnMut(H) -> G) -> usize {
        answer
    }

    #[inline(always)]
    fn nearest_first(self) -> bool {
        false
    }

    #[inline(always)]
    fn start<H: RayHit>(self) -> usize {
        0
    }

    #[inline(always)]
    fn finish<H: RayHit>(self, found: usize) -> usize {
        found.min(self.max_hits)
    }

    fn test_leaf<S: Simd, L: LeafIntersector>(
        self,
        found: &mut usize,
        leaves: &mut L,
        _: S,
        slots: Range<u32>,
        ray: &Ray,
        _: f32,
    ) -> Step {
        *found += leaves.count(slots, ray);
        Step::Go
    }

    fn take<R: RayRange, H: RayHit<Scalar = R::Scalar>>(
        self,
        found: &mut usize,
        answer: usize,
        _: &R,
    ) -> Step<R::Scalar> {
        *found += answer;
        Step::Go
    }
}

/// A wide tree's leaf test asked `kind`: what the single-ray walk's loop visits leaves with.
/// It borrows the leaf test: a mesh's holds the ray's leaf set-up, and a copy of it cost
/// every ray 11 instructions (callgrind, bunny camera rays, 625 -> 636).
pub(crate) struct QueryLeaves<'l, Q, L> {
    pub(crate) kind: Q,
    pub(crate) leaves: &'l mut L,
}

impl<Q: Query, L: LeafIntersector> QueryLeaves<'_, Q, L> {
    /// What the walk holds before its first leaf.
    #[inline(always)]
    pub(crate) fn start(&self) -> Q::Found<Hit> {
        self.kind.start()
    }

    /// The leaf slots `slots` asked, their answer added to `found`.
    #[inline(always)]
    pub(crate) fn visit<S: Simd>(
        &mut self,
        found: &mut Q::Found<Hit>,
        simd: S,
        slots: Range<u32>,
        ray: &Ray,
        t_max: f32,
    ) -> Step {
        self.kind
            .test_leaf(found, self.leaves, simd, slots, ray, t_max)
    }
}
