//! Volume traversal over a node test and a leaf closure: every leaf slot whose node may
//! overlap a query volume (box, sphere, frustum selection), with whole subtrees accepted
//! when their box lies inside it.

use core::ops::ControlFlow;

use meshcast_primitives::{Aabb, Overlap};
use smallvec::SmallVec;

use crate::binary::{Bvh, STACK_INLINE_CAPACITY};
use crate::layout::{WideLane, PADDING_SLOT, WIDE_WIDTH};
use crate::wide::WideBvh;

impl Bvh {
    /// Visits the leaf slots of every node that `classify` does not put outside the query
    /// volume; stops early when `leaf` breaks, and returns what it broke with.
    ///
    /// `classify(bounds)` places a node's box relative to the volume ([`Overlap`]): an
    /// `Outside` node is skipped with its subtree; an `Inside` one is not tested further,
    /// and every slot below it is passed to `leaf` with [`Overlap::Inside`]; a `Crossing`
    /// one is opened, and its leaves' slots are passed with [`Overlap::Crossing`].
    /// `leaf(slot, overlap)` gets the leaf slot (see [`Bvh::primitive_order`]). Slots come
    /// in depth-first order, each at most once. An empty hierarchy visits nothing.
    ///
    /// # Examples
    /// ```
    /// use core::ops::ControlFlow;
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{Aabb, Volume};
    ///
    /// let boxes: Vec<Aabb> = (0..16)
    ///     .map(|i| Aabb::new(Vec3::X * i as f32, Vec3::X * i as f32 + Vec3::splat(0.5)))
    ///     .collect();
    /// let bvh = Bvh::build(&boxes, &BuildOptions::default());
    /// let region = Volume::Box(Aabb::new(Vec3::new(2.0, 0.0, 0.0), Vec3::new(5.2, 1.0, 1.0)));
    /// let mut found = Vec::new();
    /// let _ = bvh.overlap(
    ///     |bounds| region.classify_box(bounds),
    ///     |slot, _| {
    ///         let index = bvh.primitive_order()[slot as usize];
    ///         if region.classify_box(&boxes[index as usize]) != meshcast_primitives::Overlap::Outside {
    ///             found.push(index);
    ///         }
    ///         ControlFlow::<()>::Continue(())
    ///     },
    /// );
    /// found.sort();
    /// assert_eq!(found, [2, 3, 4, 5]);
    /// ```
    pub fn overlap<B, N, L>(&self, mut classify: N, mut leaf: L) -> ControlFlow<B>
    where
        N: FnMut(&Aabb) -> Overlap,
        L: FnMut(u32, Overlap) -> ControlFlow<B>,
    {
        let nodes = self.nodes.as_slice();
        if nodes.is_empty() {
            return ControlFlow::Continue(());
        }
        // The first child is taken at once and the second waits on the stack: the order of
        // pushing both and popping the first, with half the stack's work.
        let mut stack: SmallVec<[(u32, Overlap); STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut next = Some((0, Overlap::Crossing));
        while let Some((index, parent)) = next.take().or_else(|| stack.pop()) {
            let node = &nodes[index as usize];
            let overlap = match parent {
                Overlap::Inside => Overlap::Inside,
                _ => classify(&node.bounds()),
            };
            if overlap == Overlap::Outside {
                continue;
            }
            match node.children() {
                Some([a, b]) => {
                    stack.push((b, overlap));
                    next = Some((a, overlap));
                }
                None => {
                    for slot in node.offset()..node.offset() + node.count() {
                        leaf(slot, overlap)?;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }
}

impl WideBvh {
    /// [`Bvh::overlap`] over the eight-wide tree: the same contract, with `leaf(slot, overlap)`
    /// called for the kept slots of [`WideBvh::primitive_order`] (never a padding slot).
    pub fn overlap<B, N, L>(&self, mut classify: N, mut leaf: L) -> ControlFlow<B>
    where
        N: FnMut(&Aabb) -> Overlap,
        L: FnMut(u32, Overlap) -> ControlFlow<B>,
    {
        if self.nodes.is_empty() {
            return ControlFlow::Continue(());
        }
        let mut stack: SmallVec<[(u32, Overlap); STACK_INLINE_CAPACITY]> = SmallVec::new();
        stack.push((0, Overlap::Crossing));
        while let Some((index, parent)) = stack.pop() {
            let node = &self.nodes[index as usize];
            // Lanes in reverse on the stack so they come off in order: slots depth first.
            for lane in (0..WIDE_WIDTH).rev() {
                let kind = node.lane(lane);
                if kind == WideLane::Empty {
                    continue;
                }
                let overlap = match parent {
                    Overlap::Inside => Overlap::Inside,
                    _ => classify(&node.bounds(lane)),
                };
                if overlap == Overlap::Outside {
                    continue;
                }
                match kind {
                    WideLane::Node(child) => stack.push((child, overlap)),
                    WideLane::Leaf(slots) => {
                        for slot in slots {
                            if self.order[slot as usize] != PADDING_SLOT {
                                leaf(slot, overlap)?;
                            }
                        }
                    }
                    WideLane::Empty => {}
                }
            }
        }
        ControlFlow::Continue(())
    }
}
