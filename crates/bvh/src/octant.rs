//! The pieces of the wide slab test that single rays and packets share: a ray's sign octant,
//! the near and far plane of each axis for that octant, and the NaN-aware reductions.

use glam::Vec4;
use meshcast_primitives::Ray;

/// The sign octant of `ray`'s direction: bit `a` set when axis `a` is negative (`-0.0`
/// included).
#[inline(always)]
pub(crate) fn octant(ray: &Ray) -> usize {
    let negative = |a: usize| usize::from(ray.dir[a].is_sign_negative()) << a;
    negative(0) | negative(1) | negative(2)
}

/// The index in [`crate::WideNode`]'s planes of the plane that a ray in `OCTANT` meets first
/// on `axis` (the minimum for a positive direction, the maximum for a negative one).
#[inline(always)]
pub(crate) const fn near_plane<const OCTANT: usize>(axis: usize) -> usize {
    if OCTANT >> axis & 1 == 1 {
        axis + 3
    } else {
        axis
    }
}

/// The plane a ray in `OCTANT` leaves by on `axis`.
#[inline(always)]
pub(crate) const fn far_plane<const OCTANT: usize>(axis: usize) -> usize {
    if OCTANT >> axis & 1 == 1 {
        axis
    } else {
        axis + 3
    }
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

/// Rays spread over four lanes for slab tests: one ray splatted (against four boxes) or four
/// rays (against one box splatted).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlabLanes {
    pub(crate) origin: [Vec4; 3],
    pub(crate) inv_dir: [Vec4; 3],
    /// The absolute widening of every range ([`meshcast_primitives::slab_slack`]).
    pub(crate) slack: Vec4,
    pub(crate) t_min: Vec4,
}

/// The slab test lane by lane (Kay and Kajiya 1986, widened as in Ize, *Robust BVH Ray
/// Traversal*, 2013): the lanes whose box the ray enters within `[t_min, t_max]`, as bits,
/// and their entry distances. `near` and `far` are each axis's near and far plane.
#[inline(always)]
pub(crate) fn slab_lanes(
    near: [Vec4; 3],
    far: [Vec4; 3],
    rays: &SlabLanes,
    t_max: Vec4,
) -> (u32, Vec4) {
    let [ox, oy, oz] = rays.origin;
    let [ix, iy, iz] = rays.inv_dir;
    let near_x = (near[0] - ox) * ix;
    let near_y = (near[1] - oy) * iy;
    let near_z = (near[2] - oz) * iz;
    let far_x = (far[0] - ox) * ix;
    let far_y = (far[1] - oy) * iy;
    let far_z = (far[2] - oz) * iz;
    let near = max_nan_low(
        near_x,
        max_nan_low(near_y, max_nan_low(near_z, Vec4::NEG_INFINITY)),
    );
    let far = min_nan_high(
        far_x,
        min_nan_high(far_y, min_nan_high(far_z, Vec4::INFINITY)),
    );
    let entry = (near - rays.slack).max(rays.t_min);
    let exit = (far + rays.slack).min(t_max);
    (entry.cmple(exit).bitmask(), entry)
}

/// Runs `$call` with the const `$octant` equal to `$value` (0 to 7), so that each sign
/// octant gets its own copy of a traversal loop.
macro_rules! by_octant {
    ($value:expr, $octant:ident => $call:expr) => {
        match $value {
            0 => {
                const $octant: usize = 0;
                $call
            }
            1 => {
                const $octant: usize = 1;
                $call
            }
            2 => {
                const $octant: usize = 2;
                $call
            }
            3 => {
                const $octant: usize = 3;
                $call
            }
            4 => {
                const $octant: usize = 4;
                $call
            }
            5 => {
                const $octant: usize = 5;
                $call
            }
            6 => {
                const $octant: usize = 6;
                $call
            }
            _ => {
                const $octant: usize = 7;
                $call
            }
        }
    };
}
