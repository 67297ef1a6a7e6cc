//! How a walk of the binary tree tests node boxes against its ray ([`BoxTest`]), and the
//! test of `f32` rays ([`SlabRay`]): the conservative slab test after Ize, *Robust BVH Ray
//! Traversal*, 2013.

use glam::Vec3A;
use meshcast_primitives::{slab, slab_reciprocal, Ray, RayRange};

use crate::binary::Node;

/// How a walk of the binary tree ([`crate::Bvh::walk_tested`]) tests a node's box against
/// its ray, in the ray's precision ([`BoxTest::Ray`]): set up once per ray, asked per node.
///
/// A test may widen boxes but never narrow them: the walk skips a subtree only where the test
/// says its ray does not enter it, so a box too narrow loses hits. `f32` rays use the
/// conservative slab test of every walk ([`crate::Bvh::walk`]); a scene's `f64` rays test its
/// `f32` boxes widened by how far an instance's carried, rounded ray may hit.
pub trait BoxTest {
    /// The ray the walk hands its leaves, with its range in the precision of `t`.
    type Ray: RayRange;

    /// `(entry, exit)` of `node`'s box within the ray's range ending at `t_max`: the ray
    /// enters the box iff `entry <= exit` (never when either is NaN), first at `entry`.
    fn test(
        &self,
        node: &Node,
        t_max: <Self::Ray as RayRange>::Scalar,
    ) -> (
        <Self::Ray as RayRange>::Scalar,
        <Self::Ray as RayRange>::Scalar,
    );
}

/// A ray prepared for slab tests: SIMD origin and reciprocal direction, and the absolute
/// widening of every node's range.
pub(crate) struct SlabRay {
    origin: Vec3A,
    inv_dir: Vec3A,
    slack: f32,
    t_min: f32,
}

impl SlabRay {
    /// The set-up for `ray` in a tree whose root is `root`.
    ///
    /// Ranges are widened by [`meshcast_primitives::slab_slack`] of the root box
    /// ([`meshcast_primitives::SLAB_SLACK`] times its farthest distance along the ray's
    /// dominant axis): every node lies in the root, so one absolute amount, computed once per
    /// ray, serves them all.
    #[inline(always)]
    pub(crate) fn new(ray: &Ray, root: &Node) -> Self {
        let (inv_dir, slack) = slab_reciprocal(ray, &root.bounds());
        Self {
            origin: ray.origin.into(),
            inv_dir: inv_dir.into(),
            slack,
            t_min: ray.t_min,
        }
    }
}

impl BoxTest for SlabRay {
    type Ray = Ray;

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
