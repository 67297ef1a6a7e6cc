//! The portable node kernel: the eight boxes as two groups of four, each tested with glam's
//! `Vec4` (SSE2 on x86-64, NEON on aarch64, scalar elsewhere).

use glam::Vec4;

use crate::contracts::{NodeKernel, Plane, RaySetup};
use crate::wide::WideNode;

/// The portable kernel.
pub(crate) struct Portable;

/// A ray splatted over four lanes.
pub(crate) struct PortableRay {
    origin: [Vec4; 3],
    inv_dir: [Vec4; 3],
    slack: Vec4,
    t_min: Vec4,
    near: [Plane; 3],
    far: [Plane; 3],
}

impl NodeKernel for Portable {
    type Ray = PortableRay;

    #[inline(always)]
    fn prepare(setup: &RaySetup) -> PortableRay {
        PortableRay {
            origin: [0, 1, 2].map(|a| Vec4::splat(setup.origin[a])),
            inv_dir: [0, 1, 2].map(|a| Vec4::splat(setup.inv_dir[a])),
            slack: Vec4::splat(setup.slack),
            t_min: Vec4::splat(setup.t_min),
            near: setup.near,
            far: setup.far,
        }
    }

    #[inline(always)]
    fn test(ray: &PortableRay, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
        let t_max = Vec4::splat(t_max);
        let (low, low_entry) = test_four(ray, node, 0, t_max);
        let (high, high_entry) = test_four(ray, node, 1, t_max);
        let mut entries = [0.0; 8];
        entries[..4].copy_from_slice(&low_entry.to_array());
        entries[4..].copy_from_slice(&high_entry.to_array());
        (low | high << 4, entries)
    }
}

/// The slab test of the four lanes of group `half`.
#[inline(always)]
fn test_four(ray: &PortableRay, node: &WideNode, half: usize, t_max: Vec4) -> (u32, Vec4) {
    let plane = |p: Plane| node.planes[p as usize][half];
    let [ox, oy, oz] = ray.origin;
    let [ix, iy, iz] = ray.inv_dir;
    let near_x = (plane(ray.near[0]) - ox) * ix;
    let near_y = (plane(ray.near[1]) - oy) * iy;
    let near_z = (plane(ray.near[2]) - oz) * iz;
    let far_x = (plane(ray.far[0]) - ox) * ix;
    let far_y = (plane(ray.far[1]) - oy) * iy;
    let far_z = (plane(ray.far[2]) - oz) * iz;
    let near = max_nan_low(
        near_x,
        max_nan_low(near_y, max_nan_low(near_z, Vec4::NEG_INFINITY)),
    );
    let far = min_nan_high(
        far_x,
        min_nan_high(far_y, min_nan_high(far_z, Vec4::INFINITY)),
    );
    let entry = (near - ray.slack).max(ray.t_min);
    let exit = (far + ray.slack).min(t_max);
    (entry.cmple(exit).bitmask(), entry)
}

/// `max(a, b)` where a NaN `a` counts as `-inf` (and `min` where it counts as `+inf`): the
/// `0 * inf` of an axis-parallel ray on a slab plane, which counts as inside that slab.
/// On x86 the SSE instructions return the second operand when the first is NaN.
#[inline(always)]
fn max_nan_low(a: Vec4, b: Vec4) -> Vec4 {
    if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        a.max(b)
    } else {
        Vec4::select(a.cmpeq(a), a, Vec4::NEG_INFINITY).max(b)
    }
}

#[inline(always)]
fn min_nan_high(a: Vec4, b: Vec4) -> Vec4 {
    if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        a.min(b)
    } else {
        Vec4::select(a.cmpeq(a), a, Vec4::INFINITY).min(b)
    }
}
