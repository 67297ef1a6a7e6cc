//! Refitting: new boxes for the same tree after the primitives move, bottom-up, without a
//! rebuild.

use meshcast_primitives::Aabb;

use crate::binary::{Bvh, Node};
use crate::error::Error;

impl Bvh {
    /// Recomputes every node's box from new primitive boxes (in original primitive order),
    /// keeping the tree: fast, but the tree degrades as primitives move far, so rebuild after
    /// large changes.
    ///
    /// Primitives dropped at build time stay out of the tree; a box that is now empty or not
    /// finite contributes nothing (its primitive can then only be reported by a leaf test
    /// that still hits it, as brute force would).
    ///
    /// # Errors
    /// [`Error::PrimitiveCountMismatch`] if `boxes` is not as long as the build input; the
    /// hierarchy is then unchanged.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::Aabb;
    ///
    /// let mut boxes = vec![Aabb::new(Vec3::ZERO, Vec3::ONE); 4];
    /// let mut bvh = Bvh::build(&boxes, &BuildOptions::default());
    /// boxes[2] = Aabb::new(Vec3::splat(5.0), Vec3::splat(6.0));
    /// bvh.refit(&boxes)?;
    /// bvh.validate(&boxes)?;
    /// assert_eq!(bvh.bounds(), Aabb::new(Vec3::ZERO, Vec3::splat(6.0)));
    /// # Ok::<(), meshcast_bvh::Error>(())
    /// ```
    pub fn refit(&mut self, boxes: &[Aabb]) -> Result<(), Error> {
        if boxes.len() != self.primitive_count {
            return Err(Error::PrimitiveCountMismatch {
                expected: self.primitive_count,
                found: boxes.len(),
            });
        }
        refit_nodes(&mut self.nodes, &self.order, |i| boxes[i]);
        Ok(())
    }
}

/// Sets every node's box bottom-up. Children follow their parents in the array, so one
/// reverse sweep sees every child before its parent.
pub(crate) fn refit_nodes(nodes: &mut [Node], order: &[u32], box_of: impl Fn(usize) -> Aabb) {
    for i in (0..nodes.len()).rev() {
        let node = nodes[i];
        let bounds = match node.children() {
            Some([a, b]) => nodes[a as usize].bounds().union(nodes[b as usize].bounds()),
            None => {
                let slots = node.offset() as usize..(node.offset() + node.count()) as usize;
                order[slots]
                    .iter()
                    .map(|&p| box_of(p as usize))
                    .filter(|b| b.is_finite() && !b.is_empty())
                    .fold(Aabb::EMPTY, Aabb::union)
            }
        };
        nodes[i].set_bounds(bounds);
    }
}
