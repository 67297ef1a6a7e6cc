//! The layout room, the lowest: one node of the [`WideBvh`](crate::WideBvh), eight child
//! boxes stored plane by plane, and what each lane holds; with the widths and the leaf-slot
//! layout that the contracts (`contracts.rs`), the node kernels (`simd/`) and the wide tree
//! (`wide/`) share. Uses nothing of the crate.

use core::ops::Range;

use glam::{Vec3, Vec4};
use meshcast_primitives::Aabb;

/// Children per [`WideNode`].
pub const WIDE_WIDTH: usize = 8;

/// The groups of four lanes a node's boxes are stored and tested in (one `Vec4` each).
pub(crate) const HALVES: usize = WIDE_WIDTH / 4;

/// Every leaf's slots start at a multiple of this and are padded to one, so that a caller
/// can test its primitives four at a time.
pub const LEAF_ALIGNMENT: usize = 4;

/// The slot value that pads a leaf of a [`WideBvh`](crate::WideBvh) to a multiple of
/// [`LEAF_ALIGNMENT`] slots.
pub const PADDING_SLOT: u32 = u32::MAX;

/// A lane's `count` when the lane holds nothing; its box is empty.
pub(crate) const EMPTY_LANE: u32 = u32::MAX;

/// One node of a [`WideBvh`](crate::WideBvh): eight child boxes, coordinate by coordinate,
/// and what each lane holds: another node, a leaf's slots, or nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct WideNode {
    /// The lanes' `min.x`, `min.y`, `min.z`, then `max.x`, `max.y`, `max.z`. An empty lane
    /// has `min = +inf` and `max = -inf`, which every ray misses.
    pub(crate) planes: [[Vec4; HALVES]; 6],
    /// A node lane: the child's node index. A leaf lane: its first slot.
    pub(crate) offset: [u32; WIDE_WIDTH],
    /// 0 for a node lane, the slot count (a multiple of [`LEAF_ALIGNMENT`]) for a leaf lane,
    /// [`EMPTY_LANE`] for an empty one.
    pub(crate) count: [u32; WIDE_WIDTH],
}

const _: () = assert!(core::mem::size_of::<WideNode>() == 32 * WIDE_WIDTH);

/// What one lane of a [`WideNode`] holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WideLane {
    /// Another node, by index.
    Node(u32),
    /// A leaf: slots of [`WideBvh::primitive_order`](crate::WideBvh::primitive_order), padded
    /// to a multiple of [`LEAF_ALIGNMENT`].
    Leaf(Range<u32>),
    /// Nothing.
    Empty,
}

impl WideNode {
    pub(crate) const EMPTY: Self = Self {
        planes: [
            [Vec4::INFINITY; HALVES],
            [Vec4::INFINITY; HALVES],
            [Vec4::INFINITY; HALVES],
            [Vec4::NEG_INFINITY; HALVES],
            [Vec4::NEG_INFINITY; HALVES],
            [Vec4::NEG_INFINITY; HALVES],
        ],
        offset: [0; WIDE_WIDTH],
        count: [EMPTY_LANE; WIDE_WIDTH],
    };

    /// What `lane` holds.
    #[inline]
    pub fn lane(&self, lane: usize) -> WideLane {
        match self.count[lane] {
            0 => WideLane::Node(self.offset[lane]),
            EMPTY_LANE => WideLane::Empty,
            count => WideLane::Leaf(self.offset[lane]..self.offset[lane] + count),
        }
    }

    /// The box of `lane` (empty for an empty lane).
    #[inline]
    pub fn bounds(&self, lane: usize) -> Aabb {
        let (half, sub) = (lane / 4, lane % 4);
        let p = |plane: usize| self.planes[plane][half][sub];
        Aabb::new(Vec3::new(p(0), p(1), p(2)), Vec3::new(p(3), p(4), p(5)))
    }

    pub(crate) fn set_bounds(&mut self, lane: usize, bounds: Aabb) {
        let (half, sub) = (lane / 4, lane % 4);
        for axis in 0..3 {
            self.planes[axis][half][sub] = bounds.min[axis];
            self.planes[axis + 3][half][sub] = bounds.max[axis];
        }
    }

    /// The box around every lane.
    pub(crate) fn union(&self) -> Aabb {
        (0..WIDE_WIDTH).fold(Aabb::EMPTY, |b, lane| b.union(self.bounds(lane)))
    }
}
