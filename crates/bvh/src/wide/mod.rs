//! The wide room: the eight-wide tree. The tree itself (here: [`WideBvh`], its refit and
//! invariant check), its collapse from a binary [`Bvh`] (`collapse.rs`, the SAH-optimal
//! choice of nodes in `sah.rs`), its parts for storage (`parts.rs`), and its walks
//! (`traverse.rs`, packets in `packet.rs` with their node test in `packet_interval.rs`, their
//! shared stack in `stack.rs`), written over the traversal contracts (`contracts.rs`) and run
//! by the node kernels (`simd/`), over the node layout of `layout.rs` ([`WideNode`],
//! [`WideLane`], the widths and the leaf slots).
//!
//! May use: `layout.rs`, `contracts.rs`, `simd`, `error.rs`, `first_hits.rs`, `binary`,
//! `builders` (options, SAH cost). Used by the shared walks at the crate root.
//!
//! The wide hierarchy: a binary [`Bvh`] collapsed so that every node holds up to eight
//! children, their boxes stored coordinate by coordinate so that one ray tests them four at
//! a time with glam's SIMD `Vec4` (the layout of Embree's BVH4 and BVH8; Wald, Benthin,
//! Boulos, *Getting Rid of Packets*, 2008). Each tree keeps the kernel its walks run.
//!
//! Measured on the bunny, one thread: eight children rather than four, 5% more camera and
//! random rays per second (the two groups of four are independent, so they overlap in the
//! pipeline while the tree is about half as deep), for 51 -> 56 bytes per triangle.

mod collapse;
mod packet;
mod packet_interval;
mod parts;
mod sah;
mod stack;
mod traverse;

use core::ops::Range;

use meshcast_primitives::Aabb;

#[cfg(doc)]
use crate::binary::Bvh;
use crate::error::Error;
use crate::layout::{WideLane, WideNode, LEAF_ALIGNMENT, PADDING_SLOT, WIDE_WIDTH};
use crate::simd::SupportedKernel;

/// An eight-wide bounding volume hierarchy, collapsed from a binary [`crate::Bvh`]
/// ([`WideBvh::from_binary`], `collapse.rs`) for fast ray queries ([`WideBvh::walk`],
/// [`WideBvh::traverse_packets`]).
///
/// Its nodes and leaves are the binary tree's subtrees of least SAH cost (Ylitie, Karras,
/// Laine 2017), each leaf starting at a multiple of
/// [`LEAF_ALIGNMENT`] slots and padded with [`PADDING_SLOT`], so that a caller can store its
/// primitives in blocks of four laid out for a SIMD leaf test: block `b` holds slots
/// `4 b .. 4 b + 4`. Node 0 is the root; children follow their parents.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh, WideBvh, PADDING_SLOT};
/// use meshcast_primitives::Aabb;
///
/// let boxes: Vec<Aabb> = (0..100)
///     .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 0.5)))
///     .collect();
/// let wide = WideBvh::from_binary(&Bvh::build(&boxes, &BuildOptions::default()));
/// wide.validate(&boxes)?;
/// let kept = wide.primitive_order().iter().filter(|&&p| p != PADDING_SLOT).count();
/// assert_eq!(kept, 100);
/// assert_eq!(wide.primitive_order().len() % meshcast_bvh::LEAF_ALIGNMENT, 0);
/// # Ok::<(), meshcast_bvh::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct WideBvh {
    pub(crate) nodes: Vec<WideNode>,
    pub(crate) order: Vec<u32>,
    /// The root's box, from which every ray's slab widening is computed.
    pub(crate) bounds: Aabb,
    pub(crate) primitive_count: usize,
    /// Node levels from the root to the deepest node (0 when empty): bounds the stack.
    pub(crate) depth: u32,
    /// The node kernel traversals run.
    pub(crate) kernel: SupportedKernel,
}

/// The most nodes a [`WideBvh`] holds: traversal keeps a node index and a lane in 31 bits.
pub(crate) const MAX_NODES: usize = 1 << 28;

impl WideBvh {
    /// The nodes; the root is at index 0 (none for an empty hierarchy).
    #[inline]
    pub fn nodes(&self) -> &[WideNode] {
        &self.nodes
    }

    /// The padded leaf order: slot `s` holds primitive `primitive_order()[s]`, or
    /// [`PADDING_SLOT`].
    #[inline]
    pub fn primitive_order(&self) -> &[u32] {
        &self.order
    }

    /// The box around every primitive kept.
    #[inline]
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// Whether the hierarchy holds no primitive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Bytes of nodes, leaf order and the struct.
    pub fn bytes(&self) -> usize {
        core::mem::size_of::<Self>()
            + self.nodes.capacity() * core::mem::size_of::<WideNode>()
            + self.order.capacity() * core::mem::size_of::<u32>()
    }

    /// Recomputes every box from new primitive boxes (in original order), keeping the tree,
    /// as [`crate::Bvh::refit`] does.
    ///
    /// # Errors
    /// [`Error::PrimitiveCountMismatch`] if `boxes` is not as long as the build input.
    pub fn refit(&mut self, boxes: &[Aabb]) -> Result<(), Error> {
        self.check_count(boxes)?;
        for index in (0..self.nodes.len()).rev() {
            let mut node = self.nodes[index];
            for lane in 0..WIDE_WIDTH {
                let bounds = match node.lane(lane) {
                    WideLane::Node(child) => self.nodes[child as usize].union(),
                    WideLane::Leaf(slots) => self.leaf_bounds(slots, boxes),
                    WideLane::Empty => continue,
                };
                node.set_bounds(lane, bounds);
            }
            self.nodes[index] = node;
        }
        self.bounds = self.nodes.first().map_or(Aabb::EMPTY, WideNode::union);
        Ok(())
    }

    fn leaf_bounds(&self, slots: Range<u32>, boxes: &[Aabb]) -> Aabb {
        self.order[slots.start as usize..slots.end as usize]
            .iter()
            .filter(|&&p| p != PADDING_SLOT)
            .map(|&p| boxes[p as usize])
            .filter(|b| b.is_finite() && !b.is_empty())
            .fold(Aabb::EMPTY, Aabb::union)
    }

    fn check_count(&self, boxes: &[Aabb]) -> Result<(), Error> {
        if boxes.len() == self.primitive_count {
            Ok(())
        } else {
            Err(Error::PrimitiveCountMismatch {
                expected: self.primitive_count,
                found: boxes.len(),
            })
        }
    }

    /// Checks the invariants against the primitives' `boxes` (in original order): every node
    /// is reached once from a node before it, leaves start at multiples of [`LEAF_ALIGNMENT`],
    /// every slot is in exactly one leaf and every primitive in at most one slot, and every box
    /// contains what lies below it.
    ///
    /// # Errors
    /// The first broken invariant, as for [`crate::Bvh::validate`].
    pub fn validate(&self, boxes: &[Aabb]) -> Result<(), Error> {
        self.check_count(boxes)?;
        let mut reached = vec![0usize; self.nodes.len()];
        if let Some(root) = reached.first_mut() {
            *root = 1;
        }
        let mut seen = vec![false; self.primitive_count];
        let mut slot_leaves = vec![0usize; self.order.len()];
        for (index, node) in self.nodes.iter().enumerate() {
            for lane in 0..WIDE_WIDTH {
                let bounds = node.bounds(lane);
                match node.lane(lane) {
                    WideLane::Node(child) => {
                        let child = child as usize;
                        if child <= index || child >= self.nodes.len() {
                            return Err(Error::ChildOutOfRange {
                                node: index,
                                child,
                                after: index,
                                len: self.nodes.len(),
                            });
                        }
                        reached[child] += 1;
                        if !bounds.contains_box(&self.nodes[child].union()) {
                            return Err(Error::ChildNotContained { node: index, child });
                        }
                    }
                    WideLane::Leaf(slots) => {
                        let (first, end) = (slots.start as usize, slots.end as usize);
                        if first % LEAF_ALIGNMENT != 0
                            || end % LEAF_ALIGNMENT != 0
                            || end > self.order.len()
                        {
                            return Err(Error::SlotOutOfRange {
                                node: index,
                                first,
                                end,
                                len: self.order.len(),
                            });
                        }
                        for (slot, &primitive) in self.order[first..end].iter().enumerate() {
                            slot_leaves[first + slot] += 1;
                            if primitive == PADDING_SLOT {
                                continue;
                            }
                            let Some(was) = seen.get_mut(primitive as usize) else {
                                return Err(Error::PrimitiveOutOfRange {
                                    slot: first + slot,
                                    primitive,
                                    count: self.primitive_count,
                                });
                            };
                            if core::mem::replace(was, true) {
                                return Err(Error::PrimitiveRepeated { primitive });
                            }
                            let b = boxes[primitive as usize];
                            if b.is_finite() && !bounds.contains_box(&b) {
                                return Err(Error::PrimitiveNotContained {
                                    node: index,
                                    primitive,
                                });
                            }
                        }
                    }
                    WideLane::Empty => {}
                }
            }
        }
        if let Some((node, &times)) = reached.iter().enumerate().find(|(_, &n)| n != 1) {
            return Err(Error::NodeReach { node, times });
        }
        if let Some((slot, &leaves)) = slot_leaves.iter().enumerate().find(|(_, &n)| n != 1) {
            return Err(Error::SlotCoverage { slot, leaves });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::EMPTY_LANE;
    use crate::{BuildOptions, Bvh};
    use glam::Vec3;

    fn boxes() -> Vec<Aabb> {
        (0..200)
            .map(|i| {
                let p = Vec3::new((i % 7) as f32, (i % 11) as f32, i as f32 * 0.1);
                Aabb::new(p, p + Vec3::splat(0.5))
            })
            .collect()
    }

    #[test]
    fn validate_finds_a_leaf_dropped_from_its_node() {
        let boxes = boxes();
        let mut wide = WideBvh::from_binary(&Bvh::build(&boxes, &BuildOptions::default()));
        assert_eq!(wide.validate(&boxes), Ok(()));
        let (node, lane) = wide
            .nodes
            .iter()
            .enumerate()
            .find_map(|(n, node)| {
                (0..WIDE_WIDTH)
                    .find(|&l| matches!(node.lane(l), WideLane::Leaf(_)))
                    .map(|l| (n, l))
            })
            .expect("a leaf lane");
        let first = wide.nodes[node].offset[lane] as usize;
        wide.nodes[node].count[lane] = EMPTY_LANE;
        wide.nodes[node].set_bounds(lane, Aabb::EMPTY);
        assert_eq!(
            wide.validate(&boxes),
            Err(Error::SlotCoverage {
                slot: first,
                leaves: 0
            })
        );
    }
}
