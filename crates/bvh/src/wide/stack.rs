//! The stack both walks of the wide tree share (`traverse.rs`, `packet.rs`): its
//! entries' leaf references, the fixed stack sized for the tree's depth, and the order in
//! which a node's entered children go on it.
//!
//! The stack is a fixed array of 8-byte entries, sized for the tree's depth (a deeper tree,
//! which only pathological input builds, walks with a heap stack and the portable kernel).
//! Children are ordered without data-dependent branches: each entered lane's rank is the
//! number of entered lanes with a smaller entry distance, and it is stored at that rank.
//!
//! Three or more children are ranked into a block of [`WIDE_WIDTH`] entries that goes on the
//! fixed stack whole (one fixed-size copy, no call), the stack's length then advancing by the
//! children's number less one: the fixed stack keeps [`WIDE_WIDTH`] spare entries for it.
//!
//! Measured dead ends (bunny, one thread, best of interleaved runs): an insertion sort instead
//! of ranks for three or more children was 1% faster on camera rays and 4% slower on random
//! ones (12.35 vs 12.17, 3.98 vs 4.14); prefetching the nodes pushed on the stack changed
//! nothing, on the bunny or the bunny x16; pushing entries one by one instead of copying them
//! as a slice changed nothing. Copying the slice called `memcpy` (about 25 instructions per
//! copy, at 0.52 copies per ray of the callgrind probe); the whole block's copy replaced it.
//!
//! Uses the contracts (`contracts.rs`: [`Pending`], [`TraversalStack`]), the node layout and
//! the tree (`mod.rs`).

use core::ops::Range;

use arrayvec::ArrayVec;
use meshcast_primitives::{Lanes, Simd};

use crate::contracts::{Pending, TraversalStack, LEAF_REFERENCE};
use crate::layout::{WideNode, WIDE_WIDTH};
use crate::wide::WideBvh;

/// Entries of the fixed traversal stack: enough for trees of [`MAX_FIXED_STACK_DEPTH`] levels.
pub(crate) const STACK_CAPACITY: usize = (WIDE_WIDTH - 1) * MAX_FIXED_STACK_DEPTH;

/// The deepest tree (in node levels) walked with the fixed stack.
pub(crate) const MAX_FIXED_STACK_DEPTH: usize = 24;

/// The stack of trees no deeper than [`MAX_FIXED_STACK_DEPTH`] levels: each level pushes at
/// most `WIDE_WIDTH - 1` entries, and a block of children is copied whole, so the array has
/// [`WIDE_WIDTH`] entries beyond [`STACK_CAPACITY`].
pub(crate) type FixedStack = ArrayVec<Pending, { STACK_CAPACITY + WIDE_WIDTH }>;

impl TraversalStack for FixedStack {
    #[inline(always)]
    fn push(&mut self, pending: Pending) {
        ArrayVec::push(self, pending);
    }

    #[inline(always)]
    fn push_block(&mut self, block: &[Pending; WIDE_WIDTH], count: usize) {
        let len = self.len();
        self.try_extend_from_slice(block)
            .expect("the stack is sized for the tree's depth");
        self.truncate(len + count);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Pending> {
        ArrayVec::pop(self)
    }
}

impl TraversalStack for Vec<Pending> {
    #[inline(always)]
    fn push(&mut self, pending: Pending) {
        Vec::push(self, pending);
    }

    #[inline(always)]
    fn push_block(&mut self, block: &[Pending; WIDE_WIDTH], count: usize) {
        self.extend_from_slice(&block[..count]);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Pending> {
        Vec::pop(self)
    }
}

impl WideBvh {
    /// The slots of the leaf a [`LEAF_REFERENCE`] names.
    #[inline(always)]
    pub(crate) fn leaf_slots(&self, reference: u32) -> Range<u32> {
        let (parent, lane) = leaf_parent(reference);
        let node = &self.nodes[parent];
        node.offset[lane]..node.offset[lane] + node.count[lane]
    }
}

/// The node and the lane of the leaf a [`LEAF_REFERENCE`] names.
#[inline(always)]
pub(crate) fn leaf_parent(reference: u32) -> (usize, usize) {
    (
        ((reference & !LEAF_REFERENCE) >> 3) as usize,
        (reference & 7) as usize,
    )
}

/// What `lane` of node `index` holds, as a stack reference.
#[inline(always)]
pub(crate) fn reference(index: u32, node: &WideNode, lane: usize) -> u32 {
    if node.count[lane] == 0 {
        node.offset[lane]
    } else {
        LEAF_REFERENCE | index << 3 | lane as u32
    }
}

/// Pushes every lane in `mask` (not empty) but the first, and returns the first.
#[inline(always)]
pub(crate) fn push_in_lane_order(
    index: u32,
    node: &WideNode,
    mut mask: u32,
    stack: &mut impl TraversalStack,
) -> u32 {
    let first = mask.trailing_zeros() as usize;
    mask &= mask - 1;
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        stack.push(Pending {
            reference: reference(index, node, lane),
            entry: 0.0,
        });
    }
    reference(index, node, first)
}

/// Pushes the lanes in `mask` (not empty) but the nearest, farthest first (so that they are
/// popped nearest first), and returns the nearest.
///
/// One lane goes on; of two, the nearer goes on and the other waits. With more, each lane's
/// place is its rank: the number of lanes in `mask` that are nearer, or as near and earlier.
/// The ranks come from SIMD compares, with no branch on the distances.
#[inline(always)]
pub(crate) fn push_nearest_last<S: Simd>(
    simd: S,
    index: u32,
    node: &WideNode,
    mask: u32,
    entries: &[f32; WIDE_WIDTH],
    stack: &mut impl TraversalStack,
) -> u32 {
    let first = mask.trailing_zeros() as usize;
    let rest = mask & (mask - 1);
    if rest == 0 {
        return reference(index, node, first);
    }
    if rest & (rest - 1) == 0 {
        // Two lanes, the commonest case after one: the nearer goes on, the other waits.
        let second = rest.trailing_zeros() as usize;
        let (near, far) = if entries[second] < entries[first] {
            (second, first)
        } else {
            (first, second)
        };
        stack.push(Pending {
            reference: reference(index, node, far),
            entry: entries[far],
        });
        return reference(index, node, near);
    }
    let all = Lanes::from_array(simd, *entries);
    let last = mask.count_ones() as usize - 1;
    let mut sorted = [Pending::default(); WIDE_WIDTH];
    let mut lanes = mask;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let rank = (nearer_lanes(all, entries[lane], lane) & mask).count_ones() as usize;
        sorted[(last - rank) % WIDE_WIDTH] = Pending {
            reference: reference(index, node, lane),
            entry: entries[lane],
        };
    }
    stack.push_block(&sorted, last);
    sorted[last].reference
}

/// The lanes whose entry distance (in `all`) is smaller than `entry`, or equal with a
/// smaller lane than `lane`, as bits. Entries are never NaN.
#[inline(always)]
pub(crate) fn nearer_lanes<S: Simd>(all: Lanes<S>, entry: f32, lane: usize) -> u32 {
    let entry = Lanes::splat(all.simd(), entry);
    all.lt(entry) | (all.eq(entry) & ((1 << lane) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshcast_primitives::Portable;

    #[test]
    fn nearer_lanes_break_ties_by_lane() {
        let entries = [3.0, -1.0, 0.0, -0.0, 1e30, -1e30, 3.0, f32::INFINITY];
        let halves = Lanes::from_array(Portable, entries);
        assert_eq!(nearer_lanes(halves, entries[0], 0), 0b0010_1110);
        assert_eq!(nearer_lanes(halves, entries[6], 6), 0b0010_1111);
        // -0.0 and 0.0 are as near: the earlier lane goes first.
        assert_eq!(nearer_lanes(halves, entries[3], 3), 0b0010_0110);
        assert_eq!(nearer_lanes(halves, entries[2], 2), 0b0010_0010);
    }

    #[test]
    fn children_are_pushed_farthest_first() {
        let mut node = WideNode::EMPTY;
        for lane in 0..WIDE_WIDTH {
            node.offset[lane] = 10 + lane as u32;
            node.count[lane] = 0;
        }
        let entries = [5.0, 1.0, 7.0, 0.5, 9.0, 3.0, 2.0, 8.0];
        let mask = 0b1011_0111;
        let mut stack = FixedStack::default();
        let nearest = push_nearest_last(Portable, 0, &node, mask, &entries, &mut stack);
        assert_eq!(nearest, 11); // lane 1, at 1.0
        let popped: Vec<u32> = core::iter::from_fn(|| stack.pop().map(|p| p.reference)).collect();
        // lanes 5 (3.0), 0 (5.0), 2 (7.0), 7 (8.0), 4 (9.0)
        assert_eq!(popped, [15, 10, 12, 17, 14]);
    }
}
