//! The node of the flat layout: a box, then either the index of a child pair or a range of
//! leaf slots, in 32 bytes.

use core::ops::Range;

use glam::Vec3;
use meshcast_primitives::Aabb;

/// One node of a [`crate::Bvh`]: its box and either the index of its first child (the second
/// child follows it) or the range of leaf slots it holds.
///
/// Nodes live in one array with the root at index 0. An interior node's children sit side by
/// side at indices after its own, so a reverse sweep over the array visits every child before
/// its parent. A leaf's slots index [`crate::Bvh::primitive_order`].
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh};
/// use meshcast_primitives::Aabb;
///
/// let boxes = [Aabb::new(Vec3::ZERO, Vec3::ONE)];
/// let bvh = Bvh::build(&boxes, &BuildOptions::default());
/// let root = bvh.nodes()[0];
/// assert!(root.is_leaf());
/// assert_eq!(root.slots(), Some(0..1));
/// assert_eq!(root.bounds(), boxes[0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Node {
    min: Vec3,
    /// Interior: the index of the first child. Leaf: the first slot.
    offset: u32,
    max: Vec3,
    /// Interior: 0. Leaf: the number of slots (at least 1).
    count: u32,
}

const _: () = assert!(core::mem::size_of::<Node>() == 32);

impl Node {
    /// An interior node whose children are at `first_child` and `first_child + 1`.
    #[inline]
    pub(crate) fn interior(bounds: Aabb, first_child: u32) -> Self {
        Self {
            min: bounds.min,
            offset: first_child,
            max: bounds.max,
            count: 0,
        }
    }

    /// A leaf holding slots `first_slot..first_slot + count`; `count` must be at least 1.
    #[inline]
    pub(crate) fn leaf(bounds: Aabb, first_slot: u32, count: u32) -> Self {
        debug_assert!(count > 0);
        Self {
            min: bounds.min,
            offset: first_slot,
            max: bounds.max,
            count,
        }
    }

    /// The node's box: the union of its children's boxes, or of its primitives' boxes.
    #[inline]
    pub fn bounds(&self) -> Aabb {
        Aabb::new(self.min, self.max)
    }

    /// The smallest corner of the box.
    #[inline(always)]
    pub(crate) fn min(&self) -> Vec3 {
        self.min
    }

    /// The largest corner of the box.
    #[inline(always)]
    pub(crate) fn max(&self) -> Vec3 {
        self.max
    }

    #[inline]
    pub(crate) fn set_bounds(&mut self, bounds: Aabb) {
        self.min = bounds.min;
        self.max = bounds.max;
    }

    /// Whether the node is a leaf.
    #[inline(always)]
    pub fn is_leaf(&self) -> bool {
        self.count != 0
    }

    /// The raw offset: the first child of an interior node, the first slot of a leaf.
    #[inline(always)]
    pub(crate) fn offset(&self) -> u32 {
        self.offset
    }

    /// The raw count: 0 for an interior node, the number of slots of a leaf.
    #[inline(always)]
    pub(crate) fn count(&self) -> u32 {
        self.count
    }

    /// The indices of the two children, or `None` for a leaf.
    #[inline]
    pub fn children(&self) -> Option<[u32; 2]> {
        (!self.is_leaf()).then(|| [self.offset, self.offset + 1])
    }

    /// The leaf's slots (indices into [`crate::Bvh::primitive_order`]), or `None` for an
    /// interior node.
    #[inline]
    pub fn slots(&self) -> Option<Range<u32>> {
        self.is_leaf()
            .then(|| self.offset..self.offset + self.count)
    }

    /// The same node with its child index moved by `shift` (leaves are unchanged); used when
    /// subtrees built apart are copied into one array.
    #[inline]
    pub(crate) fn shifted(self, shift: u32) -> Self {
        if self.is_leaf() {
            self
        } else {
            Self {
                offset: self.offset + shift,
                ..self
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_and_leaf_accessors() {
        let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let interior = Node::interior(b, 7);
        assert!(!interior.is_leaf());
        assert_eq!(interior.children(), Some([7, 8]));
        assert_eq!(interior.slots(), None);
        assert_eq!(interior.shifted(3).children(), Some([10, 11]));
        let leaf = Node::leaf(b, 4, 3);
        assert!(leaf.is_leaf());
        assert_eq!(leaf.children(), None);
        assert_eq!(leaf.slots(), Some(4..7));
        assert_eq!(leaf.shifted(3), leaf);
        assert_eq!(leaf.bounds(), b);
    }
}
