//! The kinds of single-ray query ([`QueryKind`]: [`Closest`], [`Any`], [`All`], [`Count`]),
//! each a value that every level's one walk is generic over. A level's walk forwards the kind
//! down (`LevelWalks::walk`: scene, instance, mesh, leaf blocks); the kind itself
//! says what differs, in one place: the hit rules it asks, the answer of a level the ray
//! cannot reach, how an instance's answer becomes the scene's, and the two walks that really
//! differ by kind, over the mesh's wide hierarchy ([`QueryKind::walk_wide`]) and over the
//! scene's top level ([`QueryKind::walk_top_level`]). Adding a query is adding a kind here.
//!
//! The trait is public in this private module, as `LevelWalks` is: the walk of that sealed
//! supertrait of the public [`crate::RayQueries`] names it, and users can neither name it nor
//! implement it.

use core::ops::Range;

use meshcast_bvh::{Bvh, LeafIntersector, TraversalCounts, WideBvh};
use meshcast_primitives::{Hit, Ray, RayHit};

use crate::queries::HitRules;
use crate::QueryOptions;

/// One ray's leaf test over a mesh's leaves, for every kind: the closest and any hit of a
/// leaf ([`LeafIntersector`]), every hit of it and their number.
pub trait RayLeaves: LeafIntersector {
    /// Appends to `hits` every hit in the leaf `slots` within `ray`'s range.
    fn all(&mut self, slots: Range<u32>, ray: &Ray, hits: &mut Vec<Hit>);

    /// The number of hits [`RayLeaves::all`] would append.
    fn count(&mut self, slots: Range<u32>, ray: &Ray) -> usize;
}

/// What a single-ray walk asks: the closest hit, whether anything is hit, every hit, or how
/// many there are.
pub trait QueryKind: Copy {
    /// The answer at a level whose hits are `H`.
    type Answer<H>;

    /// Which hits the walk accepts with `options`.
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules;

    /// The answer of a level the ray cannot reach (an instance outside the options' layers).
    fn nothing<H>() -> Self::Answer<H>;

    /// `answer` with each hit made by `f` (an instance's hits as the scene's).
    fn map<H, G>(answer: Self::Answer<H>, f: impl FnMut(H) -> G) -> Self::Answer<G>;

    /// The walk of a mesh's wide hierarchy with the leaf test `leaves`, adding what it
    /// visited to `counts` when given (a constant `None` leaves the counting out).
    fn walk_wide(
        self,
        wide: &WideBvh,
        ray: &Ray,
        leaves: impl RayLeaves,
        counts: Option<&mut TraversalCounts>,
    ) -> Self::Answer<Hit>;

    /// The walk of a scene's top level, whose leaf slot `slot` answers this kind for the
    /// ray cut to the range the walk has left (`leaf(slot, range)`).
    fn walk_top_level<H: RayHit>(
        self,
        top_level: &Bvh,
        ray: &Ray,
        leaf: impl FnMut(u32, &Ray) -> Self::Answer<H>,
    ) -> Self::Answer<H>;
}

/// The closest hit within the ray's range, or `None`.
#[derive(Clone, Copy, Debug)]
pub struct Closest;

/// Whether anything is hit within the ray's range; the walk stops at the first hit found.
#[derive(Clone, Copy, Debug)]
pub struct Any;

/// Every hit within the ray's range, in any order, or of more than `max_hits` (at least
/// one; `usize::MAX`: no limit) the first `max_hits` in hit order.
#[derive(Clone, Copy, Debug)]
pub struct All {
    pub max_hits: usize,
}

/// The number of hits [`All`] answers (every crossing once), without keeping them: of more
/// than `max_hits`, `max_hits`.
#[derive(Clone, Copy, Debug)]
pub struct Count {
    pub max_hits: usize,
}

impl QueryKind for Closest {
    type Answer<H> = Option<H>;

    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::first_hit(options)
    }

    #[inline(always)]
    fn nothing<H>() -> Option<H> {
        None
    }

    #[inline(always)]
    fn map<H, G>(answer: Option<H>, f: impl FnMut(H) -> G) -> Option<G> {
        answer.map(f)
    }

    #[inline(always)]
    fn walk_wide(
        self,
        wide: &WideBvh,
        ray: &Ray,
        leaves: impl RayLeaves,
        counts: Option<&mut TraversalCounts>,
    ) -> Option<Hit> {
        match counts {
            None => wide.cast_leaves(ray, leaves),
            Some(counts) => wide.cast_counted(ray, leaves, counts),
        }
    }

    /// The top level keeps the first hit by the hits' order; each instance it reaches gives
    /// its own closest hit, so the answer is the first of all hits in that order.
    #[inline(always)]
    fn walk_top_level<H: RayHit>(
        self,
        top_level: &Bvh,
        ray: &Ray,
        leaf: impl FnMut(u32, &Ray) -> Option<H>,
    ) -> Option<H> {
        top_level.cast(ray, leaf)
    }
}

impl QueryKind for Any {
    type Answer<H> = bool;

    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::first_hit(options)
    }

    #[inline(always)]
    fn nothing<H>() -> bool {
        false
    }

    #[inline(always)]
    fn map<H, G>(answer: bool, _: impl FnMut(H) -> G) -> bool {
        answer
    }

    #[inline(always)]
    fn walk_wide(
        self,
        wide: &WideBvh,
        ray: &Ray,
        leaves: impl RayLeaves,
        counts: Option<&mut TraversalCounts>,
    ) -> bool {
        match counts {
            None => wide.occluded_leaves(ray, leaves),
            Some(counts) => wide.occluded_counted(ray, leaves, counts),
        }
    }

    #[inline(always)]
    fn walk_top_level<H: RayHit>(
        self,
        top_level: &Bvh,
        ray: &Ray,
        leaf: impl FnMut(u32, &Ray) -> bool,
    ) -> bool {
        top_level.occluded(ray, leaf)
    }
}

impl QueryKind for All {
    type Answer<H> = Vec<H>;

    /// Each crossing once, whatever the options' contacts.
    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::every_hit(options)
    }

    #[inline(always)]
    fn nothing<H>() -> Vec<H> {
        Vec::new()
    }

    #[inline(always)]
    fn map<H, G>(answer: Vec<H>, f: impl FnMut(H) -> G) -> Vec<G> {
        answer.into_iter().map(f).collect()
    }

    /// Every leaf the ray enters, or with `max_hits` the walk that shrinks the range to the
    /// last of the first `max_hits` found ([`WideBvh::cast_first`]). Counts nothing.
    fn walk_wide(
        self,
        wide: &WideBvh,
        ray: &Ray,
        mut leaves: impl RayLeaves,
        _: Option<&mut TraversalCounts>,
    ) -> Vec<Hit> {
        let leaf = |slots, range: &Ray, hits: &mut Vec<Hit>| leaves.all(slots, range, hits);
        if self.max_hits == usize::MAX {
            wide.cast_all(ray, leaf)
        } else {
            wide.cast_first(ray, self.max_hits, leaf)
        }
    }

    /// Every instance the ray reaches gives its hits; with `max_hits` each gives its own
    /// first hits within the range left, which shrinks to the last of the scene's first
    /// `max_hits` once it has them.
    fn walk_top_level<H: RayHit>(
        self,
        top_level: &Bvh,
        ray: &Ray,
        mut leaf: impl FnMut(u32, &Ray) -> Vec<H>,
    ) -> Vec<H> {
        if self.max_hits == usize::MAX {
            let mut hits = Vec::new();
            top_level.visit(ray, |slot, range| hits.extend(leaf(slot, range)));
            hits
        } else {
            top_level.cast_first(ray, self.max_hits, |slot, range, hits| {
                hits.extend(leaf(slot, range))
            })
        }
    }
}

impl QueryKind for Count {
    type Answer<H> = usize;

    /// Each crossing once, whatever the options' contacts, as [`All`].
    #[inline(always)]
    fn rules<F>(self, options: &QueryOptions<F>) -> HitRules {
        HitRules::every_hit(options)
    }

    #[inline(always)]
    fn nothing<H>() -> usize {
        0
    }

    #[inline(always)]
    fn map<H, G>(answer: usize, _: impl FnMut(H) -> G) -> usize {
        answer
    }

    /// Every leaf the ray enters, each counting its hits (the any-hit walk with a leaf that
    /// reports none). Counts no traversal.
    fn walk_wide(
        self,
        wide: &WideBvh,
        ray: &Ray,
        mut leaves: impl RayLeaves,
        _: Option<&mut TraversalCounts>,
    ) -> usize {
        let mut count = 0;
        wide.occluded(ray, |slots, range| {
            count += leaves.count(slots, range);
            false
        });
        count.min(self.max_hits)
    }

    /// Every instance the ray reaches counts its own hits (each at most `max_hits`).
    fn walk_top_level<H: RayHit>(
        self,
        top_level: &Bvh,
        ray: &Ray,
        mut leaf: impl FnMut(u32, &Ray) -> usize,
    ) -> usize {
        let mut count = 0;
        top_level.visit(ray, |slot, range| count += leaf(slot, range));
        count.min(self.max_hits)
    }
}
