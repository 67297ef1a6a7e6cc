//! Packets: eight or sixteen coherent rays walking a [`WideBvh`] together (Wald, Slusallek,
//! Benthin, Wagner, *Interactive Rendering with Coherent Ray Tracing*, 2001), for a camera
//! tile or shadow rays towards one light.
//!
//! The packet visits a node's children with one test of all eight boxes against all its rays:
//! the rays as intervals (`packet_interval.rs`), a test that bounds each ray's own slab test.
//! Every box that holds a ray's hit is therefore visited, each leaf tests every ray that
//! enters its box with the ray's own triangle test, and each ray's answer is its single-ray
//! answer, bit for bit. What the packet saves is the walking: one node test, one ordering
//! and one stack entry for all its rays.
//!
//! Sixteen rays walk as two packets of eight lanes each ([`WideBvh::traverse_packets`] with
//! `H = 2`): the node test spans both, and at a leaf each packet tests its own rays.
//!
//! The rays of one walk share their direction signs, so one choice of near and far planes
//! serves them all, and have finite reciprocal directions, so the intervals hold no NaN;
//! [`WideBvh::traverse_packets`] splits the rays by direction octant, and walks a ray with an
//! infinite reciprocal component alone (a packet of one ray,
//! whose interval test is exactly its single-ray test).
//!
//! Uses the intervals (`packet_interval.rs`), the contracts (`contracts.rs`), the stack
//! (`stack.rs`) and the packet dispatch (`simd::dispatch_packets`).

use core::marker::PhantomData;

use meshcast_primitives::{prefetch, Lanes, RayPacket, Simd};

use super::packet_interval::{largest_of, PacketInterval};
use super::stack::{
    leaf_parent, push_in_lane_order, push_nearest_last, FixedStack, MAX_FIXED_STACK_DEPTH,
};
use crate::contracts::{PacketLeaves, PacketWalk, Pending, TraversalStack, LEAF_REFERENCE};
use crate::query::PacketQuery;
use crate::simd::{self, SupportedKernel};
use crate::wide::WideBvh;

impl WideBvh {
    /// The rays of packets `rays` in `lanes` (bits, packet by packet) walked together, asked
    /// `kind`: with [`Closest`](crate::Closest) `leaves[p]` ([`PacketLeaves::closest`]) keeps
    /// the closest hit of each ray of packet `p`, and the walk answers 0; with
    /// [`Any`](crate::Any) each ray leaves the walk at its first hit
    /// ([`PacketLeaves::any`]), and the walk answers which rays hit, as bits per packet.
    /// One packet or two: two packets of neighbouring rays (sixteen pixels of a camera row)
    /// share each node test. Degenerate rays ([`meshcast_primitives::Ray::is_valid`]) are
    /// left out (never hit); rays of different direction octants walk apart.
    ///
    /// Every leaf that holds a ray's answer is visited with that ray among the tested lanes,
    /// so a leaf test that answers each ray as the single-ray leaf test does gives each ray
    /// the single-ray answer ([`WideBvh::walk`]), bit for bit. The walk runs in the lanes of
    /// the hierarchy's kernel, or for a tree too deep for the fixed stack, with a heap stack
    /// in the portable lanes.
    pub fn traverse_packets<Q: PacketQuery, const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        _kind: Q,
        leaves: &mut [impl PacketLeaves; H],
    ) -> [u32; H] {
        if self.nodes.is_empty() {
            return [0; H];
        }
        if self.depth as usize <= MAX_FIXED_STACK_DEPTH {
            simd::dispatch_packets::<Packets<FixedStack, _, Q>, H>(
                self.kernel,
                self,
                rays,
                lanes,
                leaves,
            )
        } else {
            simd::dispatch_packets::<Packets<Vec<Pending>, _, Q>, H>(
                SupportedKernel::PORTABLE,
                self,
                rays,
                lanes,
                leaves,
            )
        }
    }

    /// The packet walk of the rays of `rays` in `lanes` (valid, of one direction octant, with
    /// finite reciprocal directions `inv_dir`, or a single ray) in `inv_dir`'s lanes: closest
    /// hits, or with [`PacketQuery::ANY`] which rays hit anything (returned as bits per packet;
    /// closest hits return 0).
    ///
    /// The single-ray walk's loop ([`WideBvh::walk`]) with the packets' node test and leaf
    /// test, and the largest `t_max` of the rays as the range every box is tested against.
    #[inline(always)]
    fn walk_packet_part<
        V: Simd,
        S: TraversalStack,
        L: PacketLeaves,
        Q: PacketQuery,
        const H: usize,
    >(
        &self,
        rays: [&RayPacket; H],
        inv_dir: &[[Lanes<V>; 3]; H],
        lanes: [u32; H],
        leaves: &mut [L; H],
    ) -> [u32; H] {
        let simd = inv_dir[0][0].simd();
        let interval = PacketInterval::new(rays, inv_dir, lanes, &self.bounds);
        let mut t_max = [Lanes::splat(simd, 0.0); H];
        for p in 0..H {
            t_max[p] = Lanes::from_array(simd, rays[p].t_max);
        }
        let mut farthest = largest_of(t_max, lanes);
        // The rays still walking: with `Q::ANY`, those that found no hit yet.
        let mut active = lanes;
        let mut stack = S::default();
        let mut current = 0u32;
        loop {
            if current & LEAF_REFERENCE == 0 {
                let node = &self.nodes[current as usize];
                let (mask, entries) = interval.test(node, farthest);
                // The inner children let in, fetched ahead: their node tests would otherwise
                // wait on memory.
                let mut inner = mask;
                while inner != 0 {
                    let lane = inner.trailing_zeros() as usize;
                    inner &= inner - 1;
                    if node.count[lane] == 0 {
                        let child = &self.nodes[node.offset[lane] as usize];
                        prefetch(core::slice::from_ref(child));
                    }
                }
                if mask != 0 {
                    current = if Q::ANY {
                        push_in_lane_order(current, node, mask, &mut stack)
                    } else {
                        push_nearest_last(simd, current, node, mask, &entries, &mut stack)
                    };
                    continue;
                }
            } else {
                let (parent, child) = leaf_parent(current);
                let parent = &self.nodes[parent];
                let mut tested = false;
                for p in 0..H {
                    if H > 1 && active[p] == 0 {
                        continue;
                    }
                    let entering = interval.rays_entering(p, parent, child, t_max[p], active[p]);
                    if entering == 0 {
                        continue;
                    }
                    let slots = self.leaf_slots(current);
                    if Q::ANY {
                        active[p] &= !leaves[p].any(slots, entering, &t_max[p]);
                    } else {
                        leaves[p].closest(slots, entering, &mut t_max[p]);
                        tested = true;
                    }
                }
                if Q::ANY && active == [0; H] {
                    return lanes;
                }
                if tested {
                    farthest = largest_of(t_max, active);
                }
            }
            loop {
                match stack.pop() {
                    None => {
                        let mut hit = [0; H];
                        for p in 0..H {
                            hit[p] = lanes[p] & !active[p];
                        }
                        return hit;
                    }
                    Some(next) if Q::ANY || next.entry <= farthest => {
                        current = next.reference;
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }
}

/// A packet walk with stack `S` and the kind `Q`, as the kernel dispatch runs it: the
/// dispatch picks the lanes and the instruction set.
struct Packets<S, L, Q>(PhantomData<(S, L, Q)>);

impl<S, L, Q, const H: usize> PacketWalk<H> for Packets<S, L, Q>
where
    S: TraversalStack,
    L: PacketLeaves,
    Q: PacketQuery,
{
    type Tree = WideBvh;
    type Leaves = L;

    /// Splits `lanes` by direction octant, leaving out degenerate rays and walking rays with
    /// an infinite reciprocal direction component alone, and walks each part
    /// ([`WideBvh::walk_packet_part`]) in the lanes of `simd`. The reciprocal directions are
    /// computed once, for all parts.
    #[inline(always)]
    fn run<V: Simd>(
        simd: V,
        bvh: &WideBvh,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        leaves: &mut [L; H],
    ) -> [u32; H] {
        let one = Lanes::splat(simd, 1.0);
        let inf = Lanes::splat(simd, f32::INFINITY);
        let mut inv_dir = [[one; 3]; H];
        let mut left = [0; H];
        let mut alone = [0; H];
        let mut negative = [[0; 3]; H];
        for p in 0..H {
            let [dx, dy, dz] = rays[p].dir_lanes(simd);
            inv_dir[p] = [one / dx, one / dy, one / dz];
            left[p] = lanes[p] & rays[p].valid(simd);
            let [ix, iy, iz] = inv_dir[p];
            let finite = ix.abs().lt(inf) & iy.abs().lt(inf) & iz.abs().lt(inf);
            alone[p] = left[p] & !finite;
            negative[p] = rays[p].negative(simd);
        }
        let mut hit = [0; H];
        while let Some(lead) = left.iter().position(|&l| l != 0) {
            let first = left[lead].trailing_zeros() as usize;
            let mut part = [0; H];
            if alone[lead] & (1 << first) != 0 {
                part[lead] = 1 << first;
            } else {
                // The rays whose direction signs are the first ray's.
                let signs = negative[lead].map(|bits| bits & (1 << first) != 0);
                for p in 0..H {
                    let like = |axis: usize| {
                        let bits = negative[p][axis];
                        if signs[axis] {
                            bits
                        } else {
                            !bits
                        }
                    };
                    part[p] = like(0) & like(1) & like(2) & left[p] & !alone[p];
                }
            }
            for p in 0..H {
                left[p] &= !part[p];
            }
            let found = bvh.walk_packet_part::<V, S, L, Q, H>(rays, &inv_dir, part, leaves);
            for p in 0..H {
                hit[p] |= found[p];
            }
        }
        hit
    }
}
