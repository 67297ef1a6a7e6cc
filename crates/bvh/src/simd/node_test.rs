//! The node tests, each written once over eight lanes: the slab test of one ray against the
//! eight boxes of a [`WideNode`] in the lanes of any [`Simd`] (two glam `Vec4`s for the
//! portable walk, one 256-bit register for the AVX2 and AVX-512 walks).
//!
//! Two forms ([`NodeTest`]). The plain test ([`LaneRay`]) computes `(plane - o) * inv`, the
//! same operations in the same order in every instruction set, which answer the same bits.
//! The fused test ([`FusedLaneRay`]), which every ray whose products stay in range walks,
//! computes `plane * inv + bias`, one fused multiply-add per plane where the instruction
//! set has it, with the origin's product and the widening folded into each axis's two
//! biases once per ray, and the ray's range as the innermost operands: six
//! products, three maxima, three minima and a compare per node, Embree's count (its
//! `BVHNNodeIntersector1`) with the widening kept. Its error bound is argued in
//! [`RaySetup::new`]; it differs from the plain test's in the last bits, never in a box
//! holding a hit, so the answers are the same.

use meshcast_primitives::{Lanes, Simd};

use crate::contracts::{Plane, RaySetup};
use crate::layout::WideNode;

/// A node test made once per ray: the lanes of `node` whose box the ray enters within
/// `[t_min, t_max]`, as bits, and every lane's entry distance (meaningful for those lanes).
pub(crate) trait NodeTest<S: Simd> {
    /// The test of `setup` in `simd`'s lanes.
    fn new(simd: S, setup: &RaySetup) -> Self;

    /// The lanes of `node` the ray enters within `[t_min, t_max]` and their entries.
    fn test(&self, node: &WideNode, t_max: f32) -> (u32, [f32; 8]);
}

/// The fused node test of a ray ([`RaySetup::fused`]), made once per ray.
pub(crate) struct FusedLaneRay<S: Simd> {
    inv_dir: [Lanes<S>; 3],
    near_bias: [Lanes<S>; 3],
    far_bias: [Lanes<S>; 3],
    t_min: Lanes<S>,
    near: [Plane; 3],
    far: [Plane; 3],
}

impl<S: Simd> NodeTest<S> for FusedLaneRay<S> {
    #[inline(always)]
    fn new(simd: S, setup: &RaySetup) -> Self {
        let splat = |v: f32| Lanes::splat(simd, v);
        Self {
            inv_dir: setup.inv_dir.to_array().map(splat),
            near_bias: setup.near_bias.to_array().map(splat),
            far_bias: setup.far_bias.to_array().map(splat),
            t_min: splat(setup.t_min),
            near: setup.near,
            far: setup.far,
        }
    }

    /// Each axis's near and far distances, already widened by the biases; no NaN arises,
    /// since every reciprocal is finite, and an empty lane's inverted box (`+inf` to `-inf`)
    /// gives an entry of `+inf` and an exit of `-inf`.
    #[inline(always)]
    fn test(&self, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
        let simd = self.t_min.simd();
        let plane = |p: Plane| Lanes::from_halves(simd, node.planes[p as usize]);
        let [ix, iy, iz] = self.inv_dir;
        let [nx, ny, nz] = self.near_bias;
        let [fx, fy, fz] = self.far_bias;
        let near_x = plane(self.near[0]).mul_add(ix, nx);
        let near_y = plane(self.near[1]).mul_add(iy, ny);
        let near_z = plane(self.near[2]).mul_add(iz, nz);
        let far_x = plane(self.far[0]).mul_add(ix, fx);
        let far_y = plane(self.far[1]).mul_add(iy, fy);
        let far_z = plane(self.far[2]).mul_add(iz, fz);
        let entry = near_x.max(near_y.max(near_z.max(self.t_min)));
        let exit = far_x.min(far_y.min(far_z.min(Lanes::splat(simd, t_max))));
        (entry.le(exit), entry.to_array())
    }
}

/// A ray splatted over the eight lanes of `S`, made once per ray.
pub(crate) struct LaneRay<S: Simd> {
    origin: [Lanes<S>; 3],
    inv_dir: [Lanes<S>; 3],
    slack: Lanes<S>,
    t_min: Lanes<S>,
    near: [Plane; 3],
    far: [Plane; 3],
}

impl<S: Simd> NodeTest<S> for LaneRay<S> {
    /// `setup` in `simd`'s lanes.
    #[inline(always)]
    fn new(simd: S, setup: &RaySetup) -> Self {
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
    fn test(&self, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
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
