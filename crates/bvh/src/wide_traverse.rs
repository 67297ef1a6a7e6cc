//! Traversal of the [`WideBvh`]: closest hit and any hit over a leaf closure that gets a whole
//! leaf at a time (so that it can test its primitives several at once).
//!
//! Each node's boxes are tested four at a time (`octant.rs`) with the same arithmetic and
//! widening as the binary tree's slab test (Kay and Kajiya 1986, widened as in Ize, *Robust
//! BVH Ray Traversal*, 2013), so no box that holds a hit is culled and the answers equal a
//! brute-force loop, ties included. The near plane of each axis
//! follows from the sign of the direction, as in Embree, which also makes the empty lanes
//! (`min = +inf`, `max = -inf`) miss; each of the eight sign octants has its own copy of the
//! loop, so that the planes are picked at compile time (measured against per-ray plane
//! indices, which spilled to the stack: 2% more camera rays and 5% more random rays per
//! second on the bunny).

use core::ops::Range;

use glam::Vec4;
use meshcast_primitives::{slab_slack, Hit, Ray};
use smallvec::SmallVec;

use crate::octant::{far_plane, near_plane, octant, slab_lanes, SlabLanes};
use crate::traverse::sort_hits;
use crate::wide::{WideLane, WideNode, WIDE_WIDTH};
use crate::{WideBvh, STACK_INLINE_CAPACITY};

/// A ray prepared for four-lane slab tests.
struct WideRay {
    /// The ray in every lane.
    lanes: SlabLanes,
    /// Bit `a` set when the direction's axis `a` is negative (`-0.0` included).
    octant: usize,
}

impl WideRay {
    #[inline(always)]
    fn new(ray: &Ray, wide: &WideBvh) -> Self {
        let inv = ray.dir.recip();
        Self {
            lanes: SlabLanes {
                origin: [
                    Vec4::splat(ray.origin.x),
                    Vec4::splat(ray.origin.y),
                    Vec4::splat(ray.origin.z),
                ],
                inv_dir: [Vec4::splat(inv.x), Vec4::splat(inv.y), Vec4::splat(inv.z)],
                slack: Vec4::splat(slab_slack(&wide.bounds, ray)),
                t_min: Vec4::splat(ray.t_min),
            },
            octant: octant(ray),
        }
    }

    /// The lanes whose box the ray enters within `[t_min, t_max]`, and their entry
    /// distances, for a ray in octant `OCTANT`.
    #[inline(always)]
    fn test<const OCTANT: usize>(&self, node: &WideNode, t_max: f32) -> (u32, [f32; WIDE_WIDTH]) {
        let mut mask = 0;
        let mut entries = [0.0; WIDE_WIDTH];
        let t_max = Vec4::splat(t_max);
        for half in 0..WIDE_WIDTH / 4 {
            let (hit, entry) = self.test_four::<OCTANT>(node, half, t_max);
            mask |= hit << (4 * half);
            entries[4 * half..4 * half + 4].copy_from_slice(&entry);
        }
        (mask, entries)
    }

    /// [`WideRay::test`] for the four lanes of group `half`.
    #[inline(always)]
    fn test_four<const OCTANT: usize>(
        &self,
        node: &WideNode,
        half: usize,
        t_max: Vec4,
    ) -> (u32, [f32; 4]) {
        let p = |plane: usize| node.planes[plane][half];
        let (hit, entry) = slab_lanes(
            [0, 1, 2].map(|axis| p(near_plane::<OCTANT>(axis))),
            [0, 1, 2].map(|axis| p(far_plane::<OCTANT>(axis))),
            &self.lanes,
            t_max,
        );
        (hit, entry.to_array())
    }
}

/// A subtree waiting on the stack: a lane's offset and count, and its entry distance.
type Pending = (u32, u32, f32);

impl WideBvh {
    /// The closest hit: the smallest `t` in the ray's range, ties going to the smaller
    /// primitive index ([`Hit::is_closer_than`]), as [`crate::Bvh::cast`] answers.
    ///
    /// `leaf(slots, ray)` returns the closest hit among the primitives in leaf slots `slots`
    /// (a range of [`WideBvh::primitive_order`], padding included) within `ray`'s range,
    /// whose `t_max` shrinks to the best hit so far (inclusive), with `triangle` set to the
    /// primitive's index. Nodes are visited nearest first. A degenerate ray or an empty
    /// hierarchy gives `None` without calling `leaf`.
    pub fn cast<F: FnMut(Range<u32>, &Ray) -> Option<Hit>>(
        &self,
        ray: &Ray,
        leaf: F,
    ) -> Option<Hit> {
        if self.nodes.is_empty() || !ray.is_valid() {
            return None;
        }
        let wide_ray = WideRay::new(ray, self);
        by_octant!(wide_ray.octant, OCTANT => self.cast_in::<OCTANT, F>(&wide_ray, ray, leaf))
    }

    #[inline(always)]
    fn cast_in<const OCTANT: usize, F: FnMut(Range<u32>, &Ray) -> Option<Hit>>(
        &self,
        wide_ray: &WideRay,
        ray: &Ray,
        mut leaf: F,
    ) -> Option<Hit> {
        let mut best: Option<Hit> = None;
        let mut t_max = ray.t_max;
        let mut stack: SmallVec<[Pending; STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut current: Pending = (0, 0, ray.t_min);
        loop {
            let (offset, count, _) = current;
            if count == 0 {
                let node = &self.nodes[offset as usize];
                let (mask, entry) = wide_ray.test::<OCTANT>(node, t_max);
                if mask != 0 {
                    current = descend(node, mask, &entry, &mut stack);
                    continue;
                }
            } else {
                let range = ray.with_range(ray.t_min, t_max);
                if let Some(hit) = leaf(offset..offset + count, &range) {
                    if range.contains_t(hit.t) && best.map_or(true, |b| hit.is_closer_than(&b)) {
                        best = Some(hit);
                        t_max = hit.t;
                    }
                }
            }
            loop {
                match stack.pop() {
                    None => return best,
                    Some(next) if next.2 <= t_max => {
                        current = next;
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
    }

    /// Whether any primitive is hit in the ray's range: stops at the first leaf for which
    /// `leaf(slots, ray)` is true. A degenerate ray or an empty hierarchy gives `false`.
    pub fn occluded<F: FnMut(Range<u32>, &Ray) -> bool>(&self, ray: &Ray, leaf: F) -> bool {
        if self.nodes.is_empty() || !ray.is_valid() {
            return false;
        }
        let wide_ray = WideRay::new(ray, self);
        by_octant!(wide_ray.octant, OCTANT => self.occluded_in::<OCTANT, F>(&wide_ray, ray, leaf))
    }

    #[inline(always)]
    fn occluded_in<const OCTANT: usize, F: FnMut(Range<u32>, &Ray) -> bool>(
        &self,
        wide_ray: &WideRay,
        ray: &Ray,
        mut leaf: F,
    ) -> bool {
        let mut stack: SmallVec<[(u32, u32); STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut current = (0u32, 0u32);
        loop {
            let (offset, count) = current;
            if count == 0 {
                let node = &self.nodes[offset as usize];
                let (mut mask, _) = wide_ray.test::<OCTANT>(node, ray.t_max);
                if mask != 0 {
                    let first = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    while mask != 0 {
                        let lane = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        stack.push((node.offset[lane], node.count[lane]));
                    }
                    current = (node.offset[first], node.count[first]);
                    continue;
                }
            } else if leaf(offset..offset + count, ray) {
                return true;
            }
            match stack.pop() {
                None => return false,
                Some(next) => current = next,
            }
        }
    }
}

impl WideBvh {
    /// Every hit in the ray's range, sorted by `t` and then by primitive index, as
    /// [`crate::Bvh::cast_all`] answers: `leaf(slots, ray, hits)` appends the hits of the
    /// primitives in leaf slots `slots` (the range it is given never shrinks).
    pub fn cast_all<F: FnMut(Range<u32>, &Ray, &mut Vec<Hit>)>(
        &self,
        ray: &Ray,
        mut leaf: F,
    ) -> Vec<Hit> {
        let mut hits = Vec::new();
        if self.nodes.is_empty() || !ray.is_valid() {
            return hits;
        }
        let wide_ray = WideRay::new(ray, self);
        by_octant!(wide_ray.octant, OCTANT => self.visit_all::<OCTANT>(&wide_ray, ray, |slots| leaf(slots, ray, &mut hits)));
        hits.retain(|h| ray.contains_t(h.t));
        sort_hits(&mut hits);
        hits
    }

    /// Calls `leaf(slots)` for every leaf whose box the ray enters within its range.
    #[inline(always)]
    fn visit_all<const OCTANT: usize>(
        &self,
        wide_ray: &WideRay,
        ray: &Ray,
        mut leaf: impl FnMut(Range<u32>),
    ) {
        let mut stack: SmallVec<[u32; STACK_INLINE_CAPACITY]> = SmallVec::new();
        stack.push(0);
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            let (mut mask, _) = wide_ray.test::<OCTANT>(node, ray.t_max);
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                match node.lane(lane) {
                    WideLane::Node(child) => stack.push(child),
                    WideLane::Leaf(slots) => leaf(slots),
                    WideLane::Empty => {}
                }
            }
        }
    }
}

/// The nearest of the lanes in `mask` (not empty), with the others pushed on `stack`
/// farthest first, so that they are popped nearest first.
#[inline(always)]
fn descend(
    node: &WideNode,
    mut mask: u32,
    entry: &[f32; WIDE_WIDTH],
    stack: &mut SmallVec<[Pending; STACK_INLINE_CAPACITY]>,
) -> Pending {
    let pending = |lane: usize| (node.offset[lane], node.count[lane], entry[lane]);
    let first = mask.trailing_zeros() as usize;
    mask &= mask - 1;
    if mask == 0 {
        return pending(first);
    }
    let second = mask.trailing_zeros() as usize;
    mask &= mask - 1;
    let (mut near, far) = if entry[second] < entry[first] {
        (pending(second), pending(first))
    } else {
        (pending(first), pending(second))
    };
    if mask == 0 {
        stack.push(far);
        return near;
    }
    // Three or more lanes: an insertion sort of the rest, farthest first, then the nearest.
    let mut sorted: [Pending; WIDE_WIDTH] = [far; WIDE_WIDTH];
    let mut len = 1;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let mut item = pending(lane);
        if item.2 < near.2 {
            core::mem::swap(&mut item, &mut near);
        }
        let mut j = len;
        while j > 0 && sorted[j - 1].2 < item.2 {
            sorted[j] = sorted[j - 1];
            j -= 1;
        }
        sorted[j] = item;
        len += 1;
    }
    stack.extend_from_slice(&sorted[..len]);
    near
}
