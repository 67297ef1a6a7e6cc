//! The node test, written once over eight lanes: the slab test of one ray against the eight
//! boxes of a [`WideNode`] in the lanes of any [`Simd`] (two glam `Vec4`s for the portable
//! walk, one 256-bit register for the AVX2 and AVX-512 walks), so every instruction set
//! computes the same operations in the same order and answers the same bits.

use meshcast_primitives::{Lanes, Simd};

use crate::contracts::{Plane, RaySetup};
use crate::wide::WideNode;

/// A ray splatted over the eight lanes of `S`, made once per ray.
pub(crate) struct LaneRay<S: Simd> {
    origin: [Lanes<S>; 3],
    inv_dir: [Lanes<S>; 3],
    slack: Lanes<S>,
    t_min: Lanes<S>,
    near: [Plane; 3],
    far: [Plane; 3],
}

impl<S: Simd> LaneRay<S> {
    /// `setup` in `simd`'s lanes.
    #[inline(always)]
    pub(crate) fn new(simd: S, setup: &RaySetup) -> Self {
        let splat = |v: f32| Lanes::splat(simd, v);
        Self {
            origin: setup.origin.to_array().map(splat),
            inv_dir: setup.inv_dir.to_array().map(splat),
            slack: splat(setup.slack),
            t_min: splat(setup.t_min),
            near: setup.near,
            far: setup.far,
        }
    }

    /// The lanes of `node` whose box the ray enters within `[t_min, t_max]`, as bits, and
    /// every lane's entry distance (meaningful for those lanes only).
    ///
    /// The slab test of Kay and Kajiya (1986), with each axis's near plane chosen by the sign
    /// of the direction (which also makes the empty lanes, `min = +inf` and `max = -inf`,
    /// miss), the `0 * inf` of an axis-parallel ray on a slab plane counted as inside that
    /// slab, and the range widened by the ray's slack so that no box holding a hit is culled
    /// (Ize, *Robust BVH Ray Traversal*, 2013). The NaN of `0 * inf` is dropped by `max` and
    /// `min`, which return their second operand when the first is NaN ([`Simd::max`]), and
    /// the innermost operand is an infinity, never NaN.
    #[inline(always)]
    pub(crate) fn test(&self, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
        let simd = self.t_min.simd();
        let plane = |p: Plane| Lanes::from_halves(simd, node.planes[p as usize]);
        let [ox, oy, oz] = self.origin;
        let [ix, iy, iz] = self.inv_dir;
        let near_x = (plane(self.near[0]) - ox) * ix;
        let near_y = (plane(self.near[1]) - oy) * iy;
        let near_z = (plane(self.near[2]) - oz) * iz;
        let far_x = (plane(self.far[0]) - ox) * ix;
        let far_y = (plane(self.far[1]) - oy) * iy;
        let far_z = (plane(self.far[2]) - oz) * iz;
        let near = near_x.max(near_y.max(near_z.max(Lanes::splat(simd, f32::NEG_INFINITY))));
        let far = far_x.min(far_y.min(far_z.min(Lanes::splat(simd, f32::INFINITY))));
        let entry = (near - self.slack).max(self.t_min);
        let exit = (far + self.slack).min(Lanes::splat(simd, t_max));
        (entry.le(exit), entry.to_array())
    }
}
