//! Traversal over a leaf closure: closest hit, any hit and all hits, with an explicit stack
//! and no recursion. Node boxes are tested with a conservative slab test (after Ize, *Robust
//! BVH Ray Traversal*, 2013; see `SlabRay::test`), and a node is skipped only when its entry
//! distance exceeds its exit distance, so the answers equal a brute-force loop over every
//! primitive, ties included. Coherent rays can walk together as a packet
//! ([`Bvh::cast_packet`]), each ray still tested exactly as it is alone.

use glam::Vec3A;
use meshcast_primitives::{slab, slab_reciprocal, Hit, Ray, RayHit, ALL_LANES, PACKET_WIDTH};
use smallvec::SmallVec;

use crate::first_hits::FirstHits;
use crate::{Bvh, Node};

/// Stack entries kept inline before a traversal allocates (deeper trees still work).
pub const STACK_INLINE_CAPACITY: usize = 64;

/// A ray prepared for slab tests: SIMD origin and reciprocal direction, and the absolute
/// widening of every node's range.
struct SlabRay {
    origin: Vec3A,
    inv_dir: Vec3A,
    slack: f32,
    t_min: f32,
}

impl SlabRay {
    /// The set-up for `ray` in a tree whose root is `root`.
    ///
    /// Ranges are widened by [`slab_slack`] of the root box ([`meshcast_primitives::SLAB_SLACK`] times its farthest
    /// distance along the ray's dominant axis): every node lies in the root, so one absolute
    /// amount, computed once per ray, serves them all.
    #[inline(always)]
    fn new(ray: &Ray, root: &Node) -> Self {
        let (inv_dir, slack) = slab_reciprocal(ray, &root.bounds());
        Self {
            origin: ray.origin.into(),
            inv_dir: inv_dir.into(),
            slack,
            t_min: ray.t_min,
        }
    }

    /// `(entry, exit)` of `node` within `[t_min, t_max]`, widened; hit iff `entry <= exit`.
    ///
    /// The slab test of [`meshcast_primitives::slab`] (Kay and Kajiya 1986): the `0 * inf`
    /// case of an axis-parallel ray on a slab plane counts as inside that slab.
    #[inline(always)]
    fn test(&self, node: &Node, t_max: f32) -> (f32, f32) {
        slab(
            node.min().into(),
            node.max().into(),
            self.origin,
            self.inv_dir,
            self.slack,
            self.t_min,
            t_max,
        )
    }
}

impl Bvh {
    /// The closest hit: the first in the ray's range by the hits' order ([`Hit::order`]: the
    /// smallest `t`, ties going to the smaller primitive index).
    ///
    /// `leaf(slot, ray)` tests the primitive in leaf slot `slot` (see
    /// [`Bvh::primitive_order`]) against `ray`, whose `t_max` shrinks to the closest hit found
    /// so far (inclusive, so that an equal-`t` hit with a smaller index can still win). It
    /// returns a [`Hit`] whose `triangle` field is the primitive's original index, or any
    /// other [`RayHit`] (a scene's hit names its instance); hits outside the ray's range are
    /// ignored. Children are visited near-first and subtrees beyond the
    /// closest hit are skipped. A degenerate ray ([`Ray::is_valid`]) or an empty hierarchy
    /// gives `None` without calling `leaf`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::Z, Vec3::Z + Vec3::X, Vec3::Z + Vec3::Y),
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    /// ];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// // Keep the triangles in leaf order, as a mesh would.
    /// let leaf_order: Vec<Triangle> =
    ///     bvh.primitive_order().iter().map(|&i| triangles[i as usize]).collect();
    /// let ray = Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z);
    /// let hit = bvh
    ///     .cast(&ray, |slot, ray| {
    ///         let index = bvh.primitive_order()[slot as usize];
    ///         Some(leaf_order[slot as usize].intersect(ray)?.with_triangle(index))
    ///     })
    ///     .ok_or("miss")?;
    /// assert_eq!((hit.triangle, hit.t), (1, 1.0));
    /// # Ok::<(), &str>(())
    /// ```
    pub fn cast<H: RayHit, F: FnMut(u32, &Ray) -> Option<H>>(
        &self,
        ray: &Ray,
        mut leaf: F,
    ) -> Option<H> {
        self.walk::<false, H>(ray, &mut leaf)
    }

    /// Whether any primitive is hit in the ray's range (occlusion, shadow rays): stops at the
    /// first hit that `leaf` reports (`leaf` as in [`Bvh::cast`], returning whether slot
    /// `slot` is hit). A degenerate ray or an empty hierarchy gives `false`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y)];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let leaf = |slot: u32, ray: &Ray| triangles[slot as usize].intersect(ray).is_some();
    /// let blocked = Ray::segment(Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, 1.0));
    /// let clear = Ray::segment(Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, -0.5));
    /// assert!(bvh.occluded(&blocked, leaf));
    /// assert!(!bvh.occluded(&clear, leaf));
    /// ```
    pub fn occluded<F: FnMut(u32, &Ray) -> bool>(&self, ray: &Ray, mut leaf: F) -> bool {
        let mut found = |slot, ray: &Ray| leaf(slot, ray).then_some(Hit::new(ray.t_min, 0.0, 0.0));
        self.walk::<true, Hit>(ray, &mut found).is_some()
    }

    /// Every hit in the ray's range, sorted by their order ([`Hit::order`]: `t`, then
    /// primitive index; `leaf` as in [`Bvh::cast`], and the range it is given never shrinks). A degenerate ray or an empty
    /// hierarchy gives no hit.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle};
    ///
    /// let triangles = [
    ///     Triangle::new(Vec3::Z, Vec3::Z + Vec3::X, Vec3::Z + Vec3::Y),
    ///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
    /// ];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let hits = bvh.cast_all_primitives(&triangles, &Ray::new(Vec3::new(0.2, 0.2, -1.0), Vec3::Z));
    /// let order: Vec<(u32, f32)> = hits.iter().map(|h| (h.triangle, h.t)).collect();
    /// assert_eq!(order, [(1, 1.0), (0, 2.0)]);
    /// ```
    pub fn cast_all<H: RayHit, F: FnMut(u32, &Ray) -> Option<H>>(
        &self,
        ray: &Ray,
        mut leaf: F,
    ) -> Vec<H> {
        let mut hits = Vec::new();
        self.visit(ray, |slot, ray| {
            hits.extend(leaf(slot, ray).filter(|h| ray.contains_t(h.t())));
        });
        hits.sort_unstable_by(H::order);
        hits
    }

    /// The first `max_hits` hits in the ray's range, sorted by their order ([`RayHit::order`]),
    /// as the first `max_hits` of [`Bvh::cast_all`]: `leaf(slot, ray, hits)` appends the hits
    /// in leaf slot `slot` within `ray`'s range (any number: a slot may hold a whole
    /// instance), and once `max_hits` are found the range shrinks to the last of them,
    /// inclusively, so that the walk skips what lies beyond (children near first, as
    /// [`Bvh::cast`]). A degenerate ray, an empty hierarchy or `max_hits == 0` gives no hit.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Hit, Ray, Triangle};
    ///
    /// // Ten parallel triangles, one above the other.
    /// let triangles: Vec<Triangle> = (0..10)
    ///     .map(|i| Triangle::new(Vec3::Z * i as f32, Vec3::Z * i as f32 + Vec3::X, Vec3::Z * i as f32 + Vec3::Y))
    ///     .collect();
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let down = Ray::new(Vec3::new(0.2, 0.2, 20.0), Vec3::NEG_Z);
    /// let first = bvh.cast_first(&down, 2, |slot, ray, hits: &mut Vec<Hit>| {
    ///     let index = bvh.primitive_order()[slot as usize];
    ///     hits.extend(triangles[index as usize].intersect(ray).map(|h| h.with_triangle(index)));
    /// });
    /// // The two nearest, the top two triangles, in hit order.
    /// assert_eq!(first.iter().map(|h| h.triangle).collect::<Vec<_>>(), [9, 8]);
    /// ```
    pub fn cast_first<H: RayHit, F: FnMut(u32, &Ray, &mut Vec<H>)>(
        &self,
        ray: &Ray,
        max_hits: usize,
        mut leaf: F,
    ) -> Vec<H> {
        if max_hits == 0 {
            return Vec::new();
        }
        let mut first = FirstHits::new(max_hits);
        self.walk::<false, H>(ray, &mut |slot, range: &Ray| {
            let start = first.len();
            leaf(slot, range, first.hits_mut());
            first.settle(start, range)
        });
        first.into_sorted()
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
        // The any-hit walk with a leaf that reports nothing visits every leaf the ray enters.
        self.walk::<true, Hit>(ray, &mut |slot, ray: &Ray| {
            leaf(slot, ray);
            None
        });
    }

    /// The traversal loop: closest hit (children near first, the range shrinking to the best
    /// hit), or with `ANY` the first hit `leaf` reports (children in order, the range fixed).
    fn walk<const ANY: bool, H: RayHit>(
        &self,
        ray: &Ray,
        leaf: &mut impl FnMut(u32, &Ray) -> Option<H>,
    ) -> Option<H> {
        let nodes = self.nodes.as_slice();
        if nodes.is_empty() || !ray.is_valid() {
            return None;
        }
        let slab_ray = SlabRay::new(ray, &nodes[0]);
        let mut t_max = ray.t_max;
        let (entry, exit) = slab_ray.test(&nodes[0], t_max);
        if entry > exit {
            return None;
        }
        let mut best: Option<H> = None;
        let mut stack: SmallVec<[(u32, f32); STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut current = 0usize;
        loop {
            let node = &nodes[current];
            if node.is_leaf() {
                let mut range = ray.with_range(ray.t_min, t_max);
                for slot in node.offset()..node.offset() + node.count() {
                    let Some(hit) = leaf(slot, &range) else {
                        continue;
                    };
                    if ANY {
                        return Some(hit);
                    }
                    if best.is_none_or(|b| hit.is_closer_than(&b)) && range.contains_t(hit.t()) {
                        best = Some(hit);
                        t_max = hit.t();
                        range.t_max = t_max;
                    }
                }
            } else {
                let first = node.offset() as usize;
                let (a, b) = (&nodes[first], &nodes[first + 1]);
                let (entry_a, exit_a) = slab_ray.test(a, t_max);
                let (entry_b, exit_b) = slab_ray.test(b, t_max);
                match (entry_a <= exit_a, entry_b <= exit_b) {
                    (true, true) => {
                        // Near first (closest hit): the other child waits with its entry.
                        if !ANY && entry_b < entry_a {
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
            // Pop the next subtree that may still hold a hit no farther than the best.
            loop {
                match stack.pop() {
                    None => return best,
                    Some((index, entry)) if ANY || entry <= t_max => {
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
    /// The closest hits of several rays walked together as a packet (Wald, Slusallek, Benthin,
    /// Wagner, *Interactive Rendering with Coherent Ray Tracing*, 2001): the rays of `rays` in
    /// `lanes` (bits; other lanes are never touched).
    ///
    /// `leaf(slot, lanes, t_max)` tests the primitive in leaf slot `slot` against the rays in
    /// its `lanes` (those that entered the leaf), ray `i` with the range
    /// `[rays[i].t_min, t_max[i]]`, inclusive as in [`Bvh::cast`]; it keeps each ray's closest
    /// hit itself and lowers `t_max[i]` to it. `t_max` starts at each ray's `t_max`.
    ///
    /// Each ray's node tests are its single-ray walk's (the same set-up and slab test at its
    /// own `t_max`), so it enters every box that holds a hit no farther than its best so far,
    /// and a `leaf` that answers each ray as the [`Bvh::cast`] closure would leaves each ray
    /// with its single-ray answer, bit for bit, ties included. What the rays share is the
    /// walk: one fetch, one ordering and one stack entry per node for all of them, and one
    /// call of `leaf` per slot (which can then test its primitive against the rays together).
    /// Rays need not share direction signs; children are visited nearer first by the smallest
    /// entry among the rays. Degenerate rays ([`Ray::is_valid`]) are left out and `leaf`
    /// never sees them; an empty hierarchy calls nothing.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
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
    /// bvh.cast_packet(&rays, 0b1011, |slot, lanes, t_max| {
    ///     let index = bvh.primitive_order()[slot as usize];
    ///     for lane in (0..PACKET_WIDTH).filter(|lane| lanes & (1 << lane) != 0) {
    ///         let range = rays[lane].with_range(rays[lane].t_min, t_max[lane]);
    ///         let Some(hit) = triangles[index as usize].intersect(&range) else { continue };
    ///         let hit = hit.with_triangle(index);
    ///         if best[lane].is_none_or(|b| hit.is_closer_than(&b)) {
    ///             best[lane] = Some(hit);
    ///             t_max[lane] = hit.t;
    ///         }
    ///     }
    /// });
    /// assert_eq!(best[0].map(|h| (h.triangle, h.t)), Some((1, 1.0)));
    /// assert!(best[2].is_none()); // not in the packet's lanes
    /// ```
    pub fn cast_packet<F: FnMut(u32, u32, &mut [f32; PACKET_WIDTH])>(
        &self,
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        mut leaf: F,
    ) {
        self.walk_packet::<false>(rays, lanes, &mut |slot, lanes, t_max| {
            leaf(slot, lanes, t_max);
            0
        });
    }

    /// Which of the rays of `rays` in `lanes` (bits) hit anything, walked together as in
    /// [`Bvh::cast_packet`], as bits: `leaf(slot, lanes)` answers which rays of its `lanes`
    /// hit the primitive in leaf slot `slot` within their own ranges, and those rays leave
    /// the walk, which ends when none is left. Each ray's answer is its [`Bvh::occluded`]
    /// answer; degenerate rays are left out (never hit), and an empty hierarchy gives 0.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Ray, Triangle, PACKET_WIDTH};
    ///
    /// let triangles = [Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y)];
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let rays: [Ray; PACKET_WIDTH] = core::array::from_fn(|i| {
    ///     // Even rays cross the triangle, odd ones stop short of it.
    ///     let to = if i % 2 == 0 { 1.0 } else { -0.5 };
    ///     Ray::segment(Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, to))
    /// });
    /// let hit = bvh.occluded_packet(&rays, 0b1111, |slot, lanes| {
    ///     (0..PACKET_WIDTH)
    ///         .filter(|&lane| lanes & (1 << lane) != 0)
    ///         .filter(|&lane| triangles[slot as usize].intersect(&rays[lane]).is_some())
    ///         .fold(0, |bits, lane| bits | 1 << lane)
    /// });
    /// assert_eq!(hit, 0b0101);
    /// ```
    pub fn occluded_packet<F: FnMut(u32, u32) -> u32>(
        &self,
        rays: &[Ray; PACKET_WIDTH],
        lanes: u32,
        mut leaf: F,
    ) -> u32 {
        self.walk_packet::<true>(rays, lanes, &mut |slot, lanes, _| leaf(slot, lanes))
    }

    /// The packet walk: closest hits (each ray's range shrinking as `leaf` lowers its
    /// `t_max`, children nearer first), or with `ANY` which rays hit (returned as bits, the
    /// ranges fixed, children in order as in the single-ray walk).
    fn walk_packet<const ANY: bool>(
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
                    let found = leaf(slot, inside, &mut t_max);
                    if ANY {
                        // The rays that hit are answered: they leave the walk.
                        let found = found & inside;
                        hit |= found;
                        left &= !found;
                        inside &= !found;
                        if inside == 0 {
                            break;
                        }
                    }
                }
                if ANY && left == 0 {
                    return hit;
                }
            } else {
                let first = node.offset() as usize;
                let a = Entered::test(&slab_rays, &nodes[first], inside, &t_max);
                let b = Entered::test(&slab_rays, &nodes[first + 1], inside, &t_max);
                match (a.lanes != 0, b.lanes != 0) {
                    (true, true) => {
                        // Near first (closest hits): the other child waits with its rays.
                        let ((near, near_node), (far, far_node)) = if !ANY && b.nearest < a.nearest
                        {
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
                if !ANY {
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
