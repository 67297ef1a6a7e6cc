//! Traversal over a leaf closure: one walk for every kind of query ([`crate::Query`]) and
//! either precision of ray, with an explicit stack and no recursion. Node boxes are tested as
//! the walk's [`BoxTest`] says (for `f32` rays the conservative slab test of `box_test.rs`,
//! after Ize, *Robust BVH Ray Traversal*, 2013), and a node is skipped only when its entry
//! distance exceeds its exit distance, so the answers equal a brute-force loop over every
//! primitive, ties included. Coherent rays can walk together as a packet
//! ([`Bvh::walk_packet`]), each ray still tested exactly as it is alone.

use meshcast_primitives::{Hit, Ray, RayHit, RayRange, ALL_LANES, PACKET_WIDTH};
use smallvec::SmallVec;

use crate::binary::box_test::{BoxTest, SlabRay};
use crate::binary::{Bvh, Node};
use crate::query::{Count, PacketQuery, Query, Step};

/// Stack entries kept inline before a traversal allocates (deeper trees still work).
pub const STACK_INLINE_CAPACITY: usize = 64;

impl Bvh {
    /// The answer of `kind` ([`Closest`](crate::Closest), [`Any`](crate::Any),
    /// [`All`](crate::query::All), [`Count`]) for `ray`, each leaf slot answering the
    /// same kind for itself: the one walk of every single-ray query.
    ///
    /// `leaf(slot, ray)` answers `kind` for the primitive in leaf slot `slot` (see
    /// [`Bvh::primitive_order`]; a slot may hold a whole instance) within `ray`'s range, with
    /// hits whose `triangle` is the primitive's original index, or any other [`RayHit`] (a
    /// scene's hit names its instance); hits outside the range are ignored. The closest hit
    /// is the first in the ray's range by the hits' order ([`Hit::order`]: the smallest `t`,
    /// ties going to the smaller primitive index); every hit comes in that order. For the
    /// closest hit and the first `max_hits` of all, children are visited near first, and the
    /// range `leaf` is given shrinks to the best hit so far (the last of the first hits),
    /// inclusively, so that an equal-`t` hit with a smaller index still gets in and
    /// subtrees beyond it are skipped; any hit stops at the first slot that reports one. A
    /// degenerate ray ([`Ray::is_valid`]) or an empty hierarchy gives [`Query::nothing`]
    /// without calling `leaf`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{All, Any, BuildOptions, Bvh, Closest};
    /// use meshcast_primitives::{Hit, Ray, Triangle};
    ///
    /// // Ten parallel triangles, one above the other.
    /// let triangles: Vec<Triangle> = (0..10)
    ///     .map(|i| Triangle::new(Vec3::Z * i as f32, Vec3::Z * i as f32 + Vec3::X, Vec3::Z * i as f32 + Vec3::Y))
    ///     .collect();
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let hit_in = |slot: u32, ray: &Ray| {
    ///     let index = bvh.primitive_order()[slot as usize];
    ///     Some(triangles[index as usize].intersect(ray)?.with_triangle(index))
    /// };
    /// let down = Ray::new(Vec3::new(0.2, 0.2, 20.0), Vec3::NEG_Z);
    /// let hit = bvh.walk(&down, Closest, hit_in).ok_or("miss")?;
    /// assert_eq!(hit.triangle, 9);
    /// // Any hit: the answer is a `bool`, whatever the hits' type, which is named.
    /// assert!(bvh.walk::<_, Hit>(&down, Any, |slot, ray| hit_in(slot, ray).is_some()));
    /// // The two nearest, the top two triangles, in hit order.
    /// let first = bvh.walk(&down, All { max_hits: 2 }, |slot, ray| Vec::from_iter(hit_in(slot, ray)));
    /// assert_eq!(first.iter().map(|h| h.triangle).collect::<Vec<_>>(), [9, 8]);
    /// # Ok::<(), &str>(())
    /// ```
    pub fn walk<Q: Query, H: RayHit<Scalar = f32>>(
        &self,
        ray: &Ray,
        kind: Q,
        leaf: impl FnMut(u32, &Ray) -> Q::Answer<H>,
    ) -> Q::Answer<H> {
        match self.nodes.first() {
            Some(root) => self.walk_tested(&SlabRay::new(ray, root), ray, kind, leaf),
            None => Q::nothing(),
        }
    }

    /// [`Bvh::walk`] with the node boxes tested by `boxes` ([`BoxTest`]) for a ray of its
    /// precision: a ray in `f64` whose boxes the caller widens by what its leaves' rounding
    /// may reach (a far scene's top level), with hits whose `t` is in `f64`. The walk is the
    /// same loop: a box is entered where `boxes` says so, and the range handed to `leaf`
    /// shrinks as `kind` says.
    pub fn walk_tested<B: BoxTest, Q: Query, H: RayHit<Scalar = <B::Ray as RayRange>::Scalar>>(
        &self,
        boxes: &B,
        ray: &B::Ray,
        kind: Q,
        mut leaf: impl FnMut(u32, &B::Ray) -> Q::Answer<H>,
    ) -> Q::Answer<H> {
        let found = if kind.nearest_first() {
            self.walk_loop::<true, B, Q, H>(boxes, ray, kind, &mut leaf)
        } else {
            self.walk_loop::<false, B, Q, H>(boxes, ray, kind, &mut leaf)
        };
        match found {
            Some(found) => kind.finish(found),
            None => Q::nothing(),
        }
    }

    /// Calls `leaf(slot, ray)` for every leaf slot whose boxes the ray's range enters, in the
    /// order of the walk (the range it is given never shrinks): for leaves that report many
    /// hits each, or none. A degenerate ray or an empty hierarchy calls nothing.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    ///     Triangle::new(Vec3::X * 5.0, Vec3::X * 6.0, Vec3::X * 5.0 + Vec3::Y),
    /// ];
    /// let one_per_leaf = BuildOptions { max_leaf_primitives: 1, ..BuildOptions::default() };
    /// let bvh = Bvh::build_primitives(&triangles, &one_per_leaf);
    /// let mut reached = Vec::new();
    /// bvh.visit(&Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z), |slot, _| {
    ///     reached.push(bvh.primitive_order()[slot as usize]);
    /// });
    /// assert_eq!(reached, [0]);
    /// ```
    pub fn visit<F: FnMut(u32, &Ray)>(&self, ray: &Ray, mut leaf: F) {
        // A count walk visits every leaf the ray enters.
        self.walk::<Count, Hit>(ray, Count::EVERY, |slot, ray| {
            leaf(slot, ray);
            0
        });
    }

    /// The traversal loop: children near first with the range shrinking as `kind` says, or
    /// with `NEAREST` false in order with the range fixed; what `kind` holds at the end, or
    /// `None` for a degenerate ray or an empty tree.
    fn walk_loop<const NEAREST: bool, B: BoxTest, Q: Query, H>(
        &self,
        boxes: &B,
        ray: &B::Ray,
        kind: Q,
        leaf: &mut impl FnMut(u32, &B::Ray) -> Q::Answer<H>,
    ) -> Option<Q::Found<H>>
    where
        H: RayHit<Scalar = <B::Ray as RayRange>::Scalar>,
    {
        let nodes = self.nodes.as_slice();
        if nodes.is_empty() || !ray.is_valid() {
            return None;
        }
        let mut t_max = ray.t_max();
        let (entry, exit) = boxes.test(&nodes[0], t_max);
        let mut found = kind.start();
        if entry > exit {
            return Some(found);
        }
        let mut stack: SmallVec<[(u32, <B::Ray as RayRange>::Scalar); STACK_INLINE_CAPACITY]> =
            SmallVec::new();
        let mut current = 0usize;
        loop {
            let node = &nodes[current];
            if node.is_leaf() {
                let mut range = ray.with_t_max(t_max);
                for slot in node.offset()..node.offset() + node.count() {
                    match kind.take(&mut found, leaf(slot, &range), &range) {
                        Step::Go => {}
                        Step::Shrink(t) => {
                            t_max = t;
                            range = range.with_t_max(t);
                        }
                        Step::Stop => return Some(found),
                    }
                }
            } else {
                let first = node.offset() as usize;
                let (a, b) = (&nodes[first], &nodes[first + 1]);
                let (entry_a, exit_a) = boxes.test(a, t_max);
                let (entry_b, exit_b) = boxes.test(b, t_max);
                match (entry_a <= exit_a, entry_b <= exit_b) {
                    (true, true) => {
                        // Near first: the other child waits with its entry.
                        if NEAREST && entry_b < entry_a {
                            stack.push((first as u32, entry_a));
                            current = first + 1;
                        } else {
                            stack.push((first as u32 + 1, entry_b));
                            current = first;
                        }
                        continue;
                    }
                    (true, false) => {
                        current = first;
                        continue;
                    }
                    (false, true) => {
                        current = first + 1;
                        continue;
                    }
                    (false, false) => {}
                }
            }
            // Pop the next subtree that may still hold a hit no farther than the range's end.
            loop {
                match stack.pop() {
                    None => return Some(found),
                    Some((index, entry)) if !NEAREST || entry <= t_max => {
                        current = index as usize;
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }
}

/// A subtree waiting on a packet walk's stack: its node, the rays that entered its box, and
/// each one's entry distance (a closest-hit walk drops the rays whose best hit has since come
/// nearer, as the single-ray walk drops the subtree).
#[derive(Clone, Copy)]
struct PacketPending {
    node: u32,
    lanes: u32,
    entry: [f32; PACKET_WIDTH],
}

/// The rays of a packet that enter one node's box: bits, each one's entry distance, and the
/// smallest of those (which orders the children).
struct Entered {
    lanes: u32,
    entry: [f32; PACKET_WIDTH],
    nearest: f32,
}

impl Entered {
    /// Tests `node` against each ray of `lanes`, as that ray's single-ray walk would at
    /// `t_max[lane]`.
    #[inline(always)]
    fn test(
        slab_rays: &[SlabRay; PACKET_WIDTH],
        node: &Node,
        lanes: u32,
        t_max: &[f32; PACKET_WIDTH],
    ) -> Self {
        let mut entered = Self {
            lanes: 0,
            entry: [f32::INFINITY; PACKET_WIDTH],
            nearest: f32::INFINITY,
        };
        for_each_lane(lanes, |lane| {
            let (entry, exit) = slab_rays[lane].test(node, t_max[lane]);
            if entry <= exit {
                entered.lanes |= 1 << lane;
                entered.entry[lane] = entry;
                entered.nearest = entered.nearest.min(entry);
            }
        });
        entered
    }
}

impl Bvh {
    /// The rays of `rays` in `lanes` (bits; other lanes are never touched) walked together as
    /// a packet (Wald, Slusallek, Benthin, Wagner, *Interactive Rendering with Coherent Ray
    /// Tracing*, 2001), asked `kind`: closest hits ([`Closest`](crate::Closest)) or which
    /// rays hit anything ([`Any`](crate::Any)).
    ///
    /// `leaf(slot, lanes, t_max)` tests the primitive in leaf slot `slot` against the rays in
    /// its `lanes` (those that entered the leaf), ray `i` with the range
    /// `[rays[i].t_min, t_max[i]]`, inclusive as in [`Bvh::walk`], and answers which of them
    /// it hit, as bits. For closest hits it keeps each ray's closest hit itself and lowers
    /// `t_max[i]` to it (`t_max` starts at each ray's `t_max`); for any hit the rays it hit
    /// leave the walk, which ends when none is left. The walk answers the bits `leaf`
    /// reported, ORed.
    ///
    /// Each ray's node tests are its single-ray walk's (the same set-up and slab test at its
    /// own `t_max`), so it enters every box that holds a hit no farther than its best so far,
    /// and a `leaf` that answers each ray as the [`Bvh::walk`] closure would leaves each ray
    /// with its single-ray answer, bit for bit, ties included. What the rays share is the
    /// walk: one fetch, one ordering and one stack entry per node for all of them, and one
    /// call of `leaf` per slot (which can then test its primitive against the rays together).
    /// Rays need not share direction signs; for closest hits children are visited nearer
    /// first by the smallest entry among the rays, for any hit in order. Degenerate rays
    /// ([`Ray::is_valid`]) are left out and `leaf` never sees them; an empty hierarchy calls
    /// nothing and answers 0.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{Any, BuildOptions, Bvh, Closest};
    /// use meshcast_primitives::{Hit, Ray, RayHit, Triangle, PACKET_WIDTH};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::Z, Vec3::Z + Vec3::X, Vec3::Z + Vec3::Y),
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    /// ];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|i| {
    ///     Ray::new(Vec3::new(0.1 + 0.05 * i as f32, 0.2, -1.0), Vec3::Z)
    /// });
    /// let mut best: [Option<Hit>; PACKET_WIDTH] = [None; PACKET_WIDTH];
    /// let hit_bits = |slot: u32, lanes: u32, t_max: &mut [f32; PACKET_WIDTH], best: &mut [Option<Hit>; PACKET_WIDTH]| {
    ///     let index = bvh.primitive_order()[slot as usize];
    ///     let mut bits = 0;
    ///     for lane in (0..PACKET_WIDTH).filter(|lane| lanes & (1 << lane) != 0) {
    ///         let range = rays[lane].with_range(rays[lane].t_min, t_max[lane]);
    ///         let Some(hit) = triangles[index as usize].intersect(&range) else { continue };
    ///         let hit = hit.with_triangle(index);
    ///         bits |= 1 << lane;
    ///         if best[lane].is_none_or(|b| hit.is_closer_than(&b)) {
    ///             best[lane] = Some(hit);
    ///             t_max[lane] = hit.t;
    ///         }
    ///     }
    ///     bits
    /// };
    /// bvh.walk_packet(&rays, 0b1011, Closest, |slot, lanes, t_max| hit_bits(slot, lanes, t_max, &mut best));
    /// assert_eq!(best[0].map(|h| (h.triangle, h.t)), Some((1, 1.0)));
    /// assert!(best[2].is_none()); // not in the packet's lanes
    /// // Any hit: rays that stop short of both triangles miss.
    /// let mut scratch = [None; PACKET_WIDTH];
    /// let hit = bvh.walk_packet(&rays, 0b1011, Any, |slot, lanes, t_max| hit_bits(slot, lanes, t_max, &mut scratch));
    /// assert_eq!(hit, 0b1011);
    /// ```
    pub fn walk_packet<Q: PacketQuery>(
        &self,
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        _kind: Q,
        mut leaf: impl FnMut(u32, u32, &mut [f32; PACKET_WIDTH]) -> u32,
    ) -> u32 {
        self.walk_packet_loop::<Q>(rays, lanes, &mut leaf)
    }

    /// The packet walk: closest hits (each ray's range shrinking as `leaf` lowers its
    /// `t_max`, children nearer first), or with [`PacketQuery::ANY`] which rays hit (the
    /// ranges fixed, children in order as in the single-ray walk, rays that hit leaving).
    fn walk_packet_loop<Q: PacketQuery>(
        &self,
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        leaf: &mut impl FnMut(u32, u32, &mut [f32; PACKET_WIDTH]) -> u32,
    ) -> u32 {
        let nodes = self.nodes.as_slice();
        let mut left = 0;
        for_each_lane(lanes & ALL_LANES, |lane| {
            if rays[lane].is_valid() {
                left |= 1 << lane;
            }
        });
        if nodes.is_empty() || left == 0 {
            return 0;
        }
        // Lanes outside `left` get a set-up too (never used): it keeps the array simple.
        let slab_rays: [SlabRay; PACKET_WIDTH] =
            core::array::from_fn(|lane| SlabRay::new(&rays[lane], &nodes[0]));
        let mut t_max: [f32; PACKET_WIDTH] = core::array::from_fn(|lane| rays[lane].t_max);
        let mut hit = 0;
        let mut stack: SmallVec<[PacketPending; STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut current = 0usize;
        let mut inside = Entered::test(&slab_rays, &nodes[0], left, &t_max).lanes;
        if inside == 0 {
            return 0;
        }
        loop {
            let node = &nodes[current];
            if node.is_leaf() {
                for slot in node.offset()..node.offset() + node.count() {
                    let found = leaf(slot, inside, &mut t_max) & inside;
                    hit |= found;
                    if Q::ANY {
                        // The rays that hit are answered: they leave the walk.
                        left &= !found;
                        inside &= !found;
                        if inside == 0 {
                            break;
                        }
                    }
                }
                if Q::ANY && left == 0 {
                    return hit;
                }
            } else {
                let first = node.offset() as usize;
                let a = Entered::test(&slab_rays, &nodes[first], inside, &t_max);
                let b = Entered::test(&slab_rays, &nodes[first + 1], inside, &t_max);
                match (a.lanes != 0, b.lanes != 0) {
                    (true, true) => {
                        // Near first (closest hits): the other child waits with its rays.
                        let ((near, near_node), (far, far_node)) =
                            if !Q::ANY && b.nearest < a.nearest {
                                ((b, first + 1), (a, first))
                            } else {
                                ((a, first), (b, first + 1))
                            };
                        stack.push(PacketPending {
                            node: far_node as u32,
                            lanes: far.lanes,
                            entry: far.entry,
                        });
                        (current, inside) = (near_node, near.lanes);
                        continue;
                    }
                    (true, false) => {
                        (current, inside) = (first, a.lanes);
                        continue;
                    }
                    (false, true) => {
                        (current, inside) = (first + 1, b.lanes);
                        continue;
                    }
                    (false, false) => {}
                }
            }
            // Pop the next subtree that some ray still needs: not yet answered (any hit), or
            // entered no farther than its best hit (closest hit).
            loop {
                let Some(pending) = stack.pop() else {
                    return hit;
                };
                let mut lanes = pending.lanes & left;
                if !Q::ANY {
                    for_each_lane(lanes, |lane| {
                        if pending.entry[lane] > t_max[lane] {
                            lanes &= !(1 << lane);
                        }
                    });
                }
                if lanes != 0 {
                    (current, inside) = (pending.node as usize, lanes);
                    break;
                }
            }
        }
    }
}

/// Calls `f` with the index of each set bit of `lanes`, lowest first.
#[inline(always)]
fn for_each_lane(mut lanes: u32, mut f: impl FnMut(usize)) {
    while lanes != 0 {
        f(lanes.trailing_zeros() as usize);
        lanes &= lanes - 1;
    }
}
