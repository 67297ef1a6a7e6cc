//! The hierarchy itself: the node array, the leaf order of the primitives, accessors and the
//! invariant check. Building, traversal and refitting live in their own modules.

use meshcast_primitives::Aabb;

use crate::binary::Node;
use crate::error::Error;

/// A bounding volume hierarchy over primitive boxes, in a flat array of 32-byte [`Node`]s.
///
/// The hierarchy never sees the primitives: it is built from their boxes ([`Bvh::build`]) and
/// traversed with a leaf closure ([`Bvh::walk`], for every kind of query) or over
/// a slice of [`crate::Primitive`]s ([`Bvh::cast_primitives`]). Primitives whose box is empty
/// or not finite are dropped at build time and never reported.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh};
/// use meshcast_primitives::{Ray, Triangle};
///
/// let triangles = [
///     Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y),
///     Triangle::new(Vec3::Z, Vec3::Z + Vec3::X, Vec3::Z + Vec3::Y),
/// ];
/// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
/// let ray = Ray::new(Vec3::new(0.25, 0.25, 5.0), Vec3::NEG_Z);
/// let hit = bvh.cast_primitives(&triangles, &ray).ok_or("miss")?;
/// assert_eq!((hit.triangle, hit.t), (1, 4.0));
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Bvh {
    pub(crate) nodes: Vec<Node>,
    pub(crate) order: Vec<u32>,
    /// The number of boxes the hierarchy was built over, dropped ones included.
    pub(crate) primitive_count: usize,
}

impl Bvh {
    /// The hierarchy over no primitive: every query misses.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The nodes; the root is at index 0 (none for an empty hierarchy).
    #[inline]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The leaf order: slot `s` of the leaves holds primitive `primitive_order()[s]`. Dropped
    /// primitives appear nowhere.
    #[inline]
    pub fn primitive_order(&self) -> &[u32] {
        &self.order
    }

    /// The box around every primitive kept ([`Aabb::EMPTY`] when there is none).
    #[inline]
    pub fn bounds(&self) -> Aabb {
        self.nodes.first().map_or(Aabb::EMPTY, Node::bounds)
    }

    /// The number of boxes the hierarchy was built over, dropped ones included.
    #[inline]
    pub fn primitive_count(&self) -> usize {
        self.primitive_count
    }

    /// The number of primitives dropped at build time because their box was empty or not
    /// finite.
    #[inline]
    pub fn dropped_count(&self) -> usize {
        self.primitive_count - self.order.len()
    }

    /// Whether the hierarchy holds no primitive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Checks every invariant against the primitives' `boxes` (in original order): each child
    /// follows its parent and is reached once, each kept primitive sits in exactly one leaf
    /// slot, every child box lies inside its parent's, and every leaf box contains its
    /// primitives' boxes (those that are finite and non-empty).
    ///
    /// # Errors
    /// [`Error::PrimitiveCountMismatch`] if `boxes` is not as long as the build input; otherwise
    /// the first broken invariant found.
    pub fn validate(&self, boxes: &[Aabb]) -> Result<(), Error> {
        if boxes.len() != self.primitive_count {
            return Err(Error::PrimitiveCountMismatch {
                expected: self.primitive_count,
                found: boxes.len(),
            });
        }
        self.validate_order()?;
        if self.nodes.is_empty() {
            return Ok(());
        }
        let len = self.nodes.len();
        let mut reached = vec![0usize; len];
        let mut slot_leaves = vec![0usize; self.order.len()];
        reached[0] = 1;
        for (index, node) in self.nodes.iter().enumerate() {
            if let Some(slots) = node.slots() {
                let (first, end) = (slots.start as usize, slots.end as usize);
                if end > self.order.len() {
                    return Err(Error::SlotOutOfRange {
                        node: index,
                        first,
                        end,
                        len: self.order.len(),
                    });
                }
                for (covered, &primitive) in slot_leaves[first..end]
                    .iter_mut()
                    .zip(&self.order[first..end])
                {
                    *covered += 1;
                    let b = boxes[primitive as usize];
                    if b.is_finite() && !node.bounds().contains_box(&b) {
                        return Err(Error::PrimitiveNotContained {
                            node: index,
                            primitive,
                        });
                    }
                }
            } else {
                let child = node.offset() as usize;
                if child <= index || child + 1 >= len {
                    return Err(Error::ChildOutOfRange {
                        node: index,
                        child,
                        after: index,
                        len,
                    });
                }
                for c in [child, child + 1] {
                    reached[c] += 1;
                    if !node.bounds().contains_box(&self.nodes[c].bounds()) {
                        return Err(Error::ChildNotContained {
                            node: index,
                            child: c,
                        });
                    }
                }
            }
        }
        // Children always follow their parent, so a node reached exactly once from a node
        // reached exactly once is on a single path from the root.
        if let Some((node, &times)) = reached.iter().enumerate().find(|(_, &n)| n != 1) {
            return Err(Error::NodeReach { node, times });
        }
        if let Some((slot, &leaves)) = slot_leaves.iter().enumerate().find(|(_, &n)| n != 1) {
            return Err(Error::SlotCoverage { slot, leaves });
        }
        Ok(())
    }

    fn validate_order(&self) -> Result<(), Error> {
        let count = self.primitive_count;
        let mut seen = vec![false; count];
        for (slot, &primitive) in self.order.iter().enumerate() {
            let Some(seen) = seen.get_mut(primitive as usize) else {
                return Err(Error::PrimitiveOutOfRange {
                    slot,
                    primitive,
                    count,
                });
            };
            if core::mem::replace(seen, true) {
                return Err(Error::PrimitiveRepeated { primitive });
            }
        }
        if self.order.is_empty() != self.nodes.is_empty() {
            return Err(Error::EmptyMismatch {
                nodes: self.nodes.len(),
                slots: self.order.len(),
            });
        }
        Ok(())
    }
}
