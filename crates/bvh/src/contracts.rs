//! The contracts of the wide tree's walks: the traits a walk is written over and the types in
//! their signatures. The node test (`simd/`) is made from a [`RaySetup`];
//! callers implement the leaf tests ([`LeafIntersector`], [`PacketLeaves`]); the walks
//! (`wide/traverse.rs`, `wide/packet.rs`) are written once over all of them and handed to a
//! kernel's dispatch as a [`RayWalk`] or a [`PacketWalk`], which the dispatch compiles with
//! the kernel's instruction set.
//!
//! The contracts room: uses only the node layout (`layout.rs`), neither the kernels (`simd/`)
//! nor the trees and their walks (`wide/`).

use core::ops::Range;

use glam::{Vec3, Vec3A, Vec4};
use meshcast_primitives::{
    bounded_slack, overflow_safe_reciprocal, Aabb, Hit, Lanes, Ray, RayPacket, Simd, SLAB_SLACK,
};

#[cfg(doc)]
use crate::layout::WideNode;
use crate::layout::{LEAF_ALIGNMENT, WIDE_WIDTH};

/// What every kernel's per-ray set-up is made from: the origin, the reciprocal direction, the
/// widening and the near and far plane of each axis.
pub(crate) struct RaySetup {
    pub(crate) origin: Vec3,
    pub(crate) inv_dir: Vec3,
    /// [`meshcast_primitives::slab_slack`] of the root box: every node lies in the root, so
    /// one absolute widening, computed once per ray, serves them all.
    pub(crate) slack: f32,
    pub(crate) t_min: f32,
    pub(crate) near: [Plane; 3],
    pub(crate) far: [Plane; 3],
    /// Whether the reciprocal of a non-zero component overflowed (a component below about
    /// `2^-128`): the walk then takes [`RaySetup::overflow_safe`]'s set-up.
    pub(crate) overflowed: bool,
    /// The fused node test's biases ([`RaySetup::fused`]): per axis, `-o * inv` less (near)
    /// and plus (far) that axis's widening, so that `plane * inv + bias` is the widened
    /// distance.
    pub(crate) near_bias: Vec3,
    pub(crate) far_bias: Vec3,
    /// Whether the fused node test serves this ray: every reciprocal, every `o * inv` and every
    /// product of a coordinate of the root box with a reciprocal is below `f32::MAX / 4`.
    /// A zero component (an infinite reciprocal) or an overflowing one walks the plain test.
    pub(crate) fused: bool,
}

/// The fused node test's extra widening, relative to `|o * inv| + slack`: `2^-21`, eight
/// units of roundoff (see [`RaySetup::new`]).
const FUSED_MARGIN: f32 = 1.0 / (1 << 21) as f32;

/// The largest magnitude the fused node test lets a product reach: a quarter of `f32::MAX`,
/// so that no product, offset or difference of it overflows.
const FUSED_RANGE: f32 = f32::MAX / 4.0;

impl RaySetup {
    /// The set-up of `ray` in a hierarchy whose root box is `bounds`.
    #[inline(always)]
    pub(crate) fn new(ray: &Ray, bounds: &Aabb) -> Self {
        // `slab_slack`'s arithmetic, without branches: every axis's reach over the
        // direction's size in one division, and the dominant axis's (glam's `max_position`,
        // the first largest) chosen by compares; the same quotients, each correctly rounded.
        let (o, d) = (Vec3A::from(ray.origin), Vec3A::from(ray.dir));
        let size = d.abs();
        let reaches = (Vec3A::from(bounds.min) - o)
            .abs()
            .max((Vec3A::from(bounds.max) - o).abs())
            / size;
        let largest = size.max_element();
        let reach = if size.x == largest {
            reaches.x
        } else if size.y == largest {
            reaches.y
        } else {
            reaches.z
        };
        let divisor = Vec4::new(d.x, d.y, d.z, 1.0);
        let quotients = Vec4::ONE / divisor;
        let (near, far) = near_far_planes(ray);
        let inv_dir = quotients.truncate();
        let slack = bounded_slack(reach * SLAB_SLACK);
        // The fused test computes a slab distance as `p * inv + (-o * inv ∓ w)`. Against the
        // plain `(p - o) * inv`, whose error the slack covers (`gamma(3) |t|` plus the
        // slack's own absolute part), it adds roundings of sizes `|o * inv|` (the product,
        // the offset) and `w` (the offset, the difference); with `w = slack + 2^-21
        // (|o * inv| + slack)`, each rounded once more, the extra width covers them with
        // room: `8u (|o inv| + slack)` against the `3u |o inv| + 3u slack` they need (`u =
        // 2^-24`). Unfused (the portable lanes), `p * inv` rounds once more, by `u |p inv| <=
        // u (|t| + |o inv|)`, which the same margin and `gamma(3)`'s third `u |t|` cover.
        // Products stay below `f32::MAX / 4`, so nothing overflows.
        let inv = Vec3A::from_vec4(quotients);
        let origin_scaled = o * inv;
        let widening = (origin_scaled.abs() + slack) * FUSED_MARGIN + slack;
        let extent = Vec3A::from(bounds.min)
            .abs()
            .max(Vec3A::from(bounds.max).abs());
        // A zero or NaN component, or one whose reciprocal overflows, makes its reciprocal
        // infinite or NaN and with it `extent * |inv|` (`0 * inf` is NaN) and the origin's
        // product: out of range. An infinite component has a zero reciprocal, which the
        // products let through: the size's check takes it out. So a ray in range has every
        // direction component finite and non-zero, and its reciprocal finite.
        let in_range = (extent * inv.abs()).cmplt(Vec3A::splat(FUSED_RANGE))
            & origin_scaled.abs().cmplt(Vec3A::splat(FUSED_RANGE))
            & size.cmplt(Vec3A::INFINITY);
        Self {
            origin: ray.origin,
            inv_dir,
            slack,
            t_min: ray.t_min,
            near,
            far,
            // `(1 / d) d` is about 1, NaN for a zero component and infinite exactly where
            // `1 / d` overflowed.
            overflowed: (quotients * divisor).cmpeq(Vec4::INFINITY).any(),
            near_bias: (-origin_scaled - widening).into(),
            far_bias: (widening - origin_scaled).into(),
            // NaN products (`0 * inf`) compare false, as infinite ones do. With the range's
            // checks, a ray the fused test serves is valid. (The direction's check was
            // `|(1 / d) d| < 2` on every component, eight instructions where the size's
            // compare is two.)
            fused: in_range.all()
                & (slack < FUSED_RANGE)
                & (ray.t_min <= ray.t_max)
                & (ray.t_min < f32::INFINITY)
                & (ray.t_max > f32::NEG_INFINITY),
        }
    }

    /// This set-up made safe for a ray along `dir` whose reciprocal of a non-zero component
    /// overflowed ([`overflow_safe_reciprocal`]).
    #[inline(always)]
    pub(crate) fn overflow_safe(self, dir: Vec3) -> Self {
        let (inv_dir, slack) = overflow_safe_reciprocal(dir, self.inv_dir, self.slack);
        Self {
            inv_dir,
            slack,
            overflowed: false,
            fused: false,
            ..self
        }
    }
}

/// For each axis, the index in [`WideNode`]'s planes of the plane a ray along `dir` meets first
/// (the minimum for a positive component, the maximum for a negative one, `-0.0` included),
/// and of the plane it leaves by.
///
/// One table lookup by the direction's octant (its three sign bits) rather than three
/// selections: about 25 fewer instructions per ray.
#[inline(always)]
pub(crate) fn near_far_planes(ray: &Ray) -> ([Plane; 3], [Plane; 3]) {
    use Plane::*;
    // Indexed by the octant: bit `a` is set when component `a` is negative.
    const NEAR: [[Plane; 3]; 8] = [
        [MinX, MinY, MinZ],
        [MaxX, MinY, MinZ],
        [MinX, MaxY, MinZ],
        [MaxX, MaxY, MinZ],
        [MinX, MinY, MaxZ],
        [MaxX, MinY, MaxZ],
        [MinX, MaxY, MaxZ],
        [MaxX, MaxY, MaxZ],
    ];
    let octant = ray.dir.is_negative_bitmask() as usize;
    (NEAR[octant & 7], NEAR[!octant & 7])
}

/// One of the six planes of a [`WideNode`], in its storage order; as an enum, indexing the
/// planes with it needs no bounds check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Plane {
    MinX,
    MinY,
    MinZ,
    MaxX,
    MaxY,
    MaxZ,
}

/// A single-ray walk written once over its lanes: what the kernel dispatch (`simd::dispatch`)
/// instantiates, with the kernel's [`Simd`], inside a function compiled for the kernel's
/// instruction set, so that the whole loop, node and leaf tests included, is compiled there.
///
/// The walk is a type (naming the stack, the query and what it is generic over), and its
/// arguments pass one by one, as the loop's own do, so that the dispatch's entry points take
/// them in registers and compile as they did before this contract existed. A walk passed as
/// one value (a struct of four references, through memory) compiled differently: callgrind on
/// the bunny counted 1-4% fewer instructions per single ray and 0.6-1.4% more per ray in
/// packets; unmeasured in time, and left for a change made for speed.
pub(crate) trait RayWalk {
    /// The hierarchy walked.
    type Tree;
    /// The leaf test, asked one kind of query.
    type Leaf;
    /// What the walk holds while it goes, and returns.
    type Found;
    /// What the walk counts.
    type Counters;

    /// Runs the walk in `simd`'s lanes, node tests and leaf tests alike. Implementations are
    /// `#[inline(always)]`, so that the loop is compiled into the dispatch's instruction set.
    fn run<V: Simd>(
        simd: V,
        tree: &Self::Tree,
        ray: &Ray,
        leaf: &mut Self::Leaf,
        counters: &mut Self::Counters,
    ) -> Self::Found;
}

/// A walk of `H` packets of rays written once over its lanes: what the packet dispatch
/// (`simd::dispatch_packets`) instantiates, with the kernel's [`Simd`], inside a function
/// compiled for the kernel's instruction set; a type, with its arguments one by one, as
/// [`RayWalk`] is.
pub(crate) trait PacketWalk<const H: usize> {
    /// The hierarchy walked.
    type Tree;
    /// Each packet's leaf test.
    type Leaves;

    /// Runs the walk of the rays of `rays` in `lanes` (bits, packet by packet) in the lanes
    /// of `simd`, and answers bits per packet. Implementations are `#[inline(always)]`, as
    /// [`RayWalk::run`]'s are.
    fn run<V: Simd>(
        simd: V,
        tree: &Self::Tree,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        leaves: &mut [Self::Leaves; H],
    ) -> [u32; H];
}

/// The primitives of a [`WideBvh`]'s leaves, as its walks test them: a whole leaf at a time,
/// so that they can be tested several at once, asked what the walk's kind of query asks
/// ([`crate::Query`]).
///
/// A type whose methods are `#[inline(always)]` is compiled into each kernel's traversal loop
/// ([`WideBvh::walk`]), and so gets that kernel's instruction set too; [`LeafHits`] makes one
/// from a closure, usually called out of line.
///
/// [`WideBvh`]: crate::WideBvh
/// [`WideBvh::walk`]: crate::WideBvh::walk
pub trait LeafIntersector {
    /// The closest hit among the primitives in leaf slots `slots` (a range of
    /// [`WideBvh::primitive_order`], padding included) within `ray`'s range, ties to the
    /// smaller primitive index, with `triangle` set to the primitive's index.
    ///
    /// `simd` is the walk's instruction set, for leaf tests over eight lanes.
    ///
    /// [`WideBvh::primitive_order`]: crate::WideBvh::primitive_order
    fn closest<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> Option<Hit>;

    /// Whether any primitive in leaf slots `slots` is hit within `ray`'s range.
    fn any<S: Simd>(&mut self, simd: S, slots: Range<u32>, ray: &Ray) -> bool;

    /// Appends to `hits` every hit of the primitives in leaf slots `slots` within `ray`'s
    /// range (hits outside it are dropped by the walk), each with `triangle` set.
    fn all(&mut self, slots: Range<u32>, ray: &Ray, hits: &mut Vec<Hit>);

    /// The number of hits [`LeafIntersector::all`] would append within `ray`'s range.
    fn count(&mut self, slots: Range<u32>, ray: &Ray) -> usize;
}

/// A leaf test written as a closure that appends the hits of a leaf's primitives:
/// `hits(slots, ray, hits)` appends every hit of the primitives in leaf slots `slots` (a range
/// of [`WideBvh::primitive_order`], padding included) within `ray`'s range, with `triangle`
/// set, and every question of [`LeafIntersector`] is answered from that list.
///
/// [`WideBvh::primitive_order`]: crate::WideBvh::primitive_order
/// [`WideBvh`]: crate::WideBvh
pub struct LeafHits<F> {
    hits: F,
    scratch: Vec<Hit>,
}

impl<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)> LeafHits<F> {
    /// The leaf test of `hits`.
    pub fn new(hits: F) -> Self {
        Self {
            hits,
            scratch: Vec::new(),
        }
    }

    /// The leaf's hits within `ray`'s range, in `scratch`.
    fn within(&mut self, slots: Range<u32>, ray: &Ray) -> &[Hit] {
        self.scratch.clear();
        (self.hits)(slots, ray, &mut self.scratch);
        self.scratch.retain(|hit| ray.contains_t(hit.t));
        &self.scratch
    }
}

impl<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)> LeafIntersector for LeafHits<F> {
    fn closest<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> Option<Hit> {
        self.within(slots, ray).iter().copied().min_by(Hit::order)
    }

    fn any<S: Simd>(&mut self, _: S, slots: Range<u32>, ray: &Ray) -> bool {
        !self.within(slots, ray).is_empty()
    }

    fn all(&mut self, slots: Range<u32>, ray: &Ray, hits: &mut Vec<Hit>) {
        (self.hits)(slots, ray, hits);
    }

    fn count(&mut self, slots: Range<u32>, ray: &Ray) -> usize {
        self.within(slots, ray).len()
    }
}

/// The leaves of a [`WideBvh`] as a packet walk tests them: a whole leaf against several rays.
///
/// Implementations whose methods are `#[inline(always)]` are compiled into each kernel's
/// packet walk, with that kernel's instruction set.
///
/// [`WideBvh`]: crate::WideBvh
pub trait PacketLeaves {
    /// Tests the rays in `lanes` (bits) against the primitives in leaf slots `slots` (a range
    /// of [`WideBvh::primitive_order`], padding included): ray `i` accepts hits with `t` in
    /// `[t_min, t_max[i]]` (inclusive), keeps the closest by its own order and lowers
    /// `t_max[i]` to it. The lanes are in the walk's instruction set `S`.
    ///
    /// [`WideBvh::primitive_order`]: crate::WideBvh::primitive_order
    fn closest<S: Simd>(&mut self, slots: Range<u32>, lanes: u32, t_max: &mut Lanes<S>);

    /// The rays among `lanes` that hit any primitive in leaf slots `slots` with `t` in
    /// `[t_min, t_max[i]]`, as bits.
    fn any<S: Simd>(&mut self, slots: Range<u32>, lanes: u32, t_max: &Lanes<S>) -> u32;
}

/// Set in a [`Pending::reference`] that names a leaf lane rather than a node.
pub(crate) const LEAF_REFERENCE: u32 = 1 << 31;

/// A subtree waiting on the stack: a node index, or [`LEAF_REFERENCE`] with the node and lane
/// of a leaf (`node << 3 | lane`), and the distance at which the ray enters its box.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Pending {
    pub(crate) reference: u32,
    pub(crate) entry: f32,
}

/// The stack of a traversal.
pub(crate) trait TraversalStack: Default {
    fn push(&mut self, pending: Pending);
    /// Pushes the first `count` entries of `block`.
    fn push_block(&mut self, block: &[Pending; WIDE_WIDTH], count: usize);
    fn pop(&mut self) -> Option<Pending>;
}

/// What a traversal did, summed over rays: from [`WideBvh::traverse`], so that optimisation
/// can follow counts as well as times.
///
/// [`WideBvh::traverse`]: crate::WideBvh::traverse
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use core::ops::Range;
/// use meshcast_bvh::{Any, BuildOptions, Bvh, LeafHits, TraversalCounts, WideBvh};
/// use meshcast_primitives::{Aabb, Hit, Ray};
///
/// let boxes = [Aabb::new(Vec3::ZERO, Vec3::ONE)];
/// let wide = WideBvh::from_binary(&Bvh::build(&boxes, &BuildOptions::default()));
/// let mut counts = TraversalCounts::default();
/// let ray = Ray::new(Vec3::new(0.5, 0.5, -1.0), Vec3::Z);
/// // Every leaf holds one hit, at t = 1.
/// let everything = LeafHits::new(|_: Range<u32>, _: &Ray, hits: &mut Vec<Hit>| {
///     hits.push(Hit::new(1.0, 0.0, 0.0))
/// });
/// assert!(wide.traverse(&ray, Any, everything, &mut counts));
/// assert_eq!((counts.rays, counts.nodes, counts.leaves, counts.blocks), (1, 1, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraversalCounts {
    /// Rays traced (degenerate rays and empty hierarchies included, which visit nothing).
    pub rays: u64,
    /// Nodes whose eight boxes were tested.
    pub nodes: u64,
    /// Leaves handed to the leaf closure.
    pub leaves: u64,
    /// Blocks of [`LEAF_ALIGNMENT`] slots in those leaves (a mesh tests one block of four
    /// triangles at once).
    pub blocks: u64,
}

impl core::ops::Add for TraversalCounts {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            rays: self.rays + other.rays,
            nodes: self.nodes + other.nodes,
            leaves: self.leaves + other.leaves,
            blocks: self.blocks + other.blocks,
        }
    }
}

/// Counting in a traversal ([`crate::WideBvh::traverse`]): the no-op `()` for the fast path,
/// [`TraversalCounts`] otherwise. Sealed: the walks are compiled for these two.
pub trait Counters: sealed::Counting {
    /// A ray starts.
    fn ray(&mut self) {}
    /// A node's boxes are tested.
    fn node(&mut self) {}
    /// A leaf of `slots` slots is handed to the leaf test.
    fn leaf(&mut self, _slots: u32) {}
}

impl Counters for () {}
impl sealed::Counting for () {}
impl sealed::Counting for TraversalCounts {}

mod sealed {
    /// Keeps [`super::Counters`] to the two counters the walks are written for.
    pub trait Counting {}
}

impl Counters for TraversalCounts {
    #[inline(always)]
    fn ray(&mut self) {
        self.rays += 1;
    }

    #[inline(always)]
    fn node(&mut self) {
        self.nodes += 1;
    }

    #[inline(always)]
    fn leaf(&mut self, slots: u32) {
        self.leaves += 1;
        self.blocks += u64::from(slots) / LEAF_ALIGNMENT as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widening_is_slab_slack() {
        let bounds = Aabb::new(
            glam::Vec3::new(-1.0, 2.0, -3.0),
            glam::Vec3::new(4.0, 5.0, 6.0),
        );
        for dir in [
            glam::Vec3::new(0.3, -0.7, 0.1),
            glam::Vec3::new(-0.0, 0.0, -2.5),
        ] {
            let ray = Ray::new(glam::Vec3::new(10.0, -3.0, 0.5), dir);
            let setup = RaySetup::new(&ray, &bounds);
            let slack = meshcast_primitives::slab_slack(&bounds, &ray);
            assert_eq!(setup.slack.to_bits(), slack.to_bits());
            assert_eq!(setup.inv_dir, dir.recip());
        }
    }

    #[test]
    fn planes_follow_the_direction_signs() {
        let ray = Ray::new(glam::Vec3::ZERO, glam::Vec3::new(1.0, -0.0, -2.0));
        let (near, far) = near_far_planes(&ray);
        assert_eq!(near, [Plane::MinX, Plane::MaxY, Plane::MaxZ]);
        assert_eq!(far, [Plane::MaxX, Plane::MinY, Plane::MinZ]);
    }
}
