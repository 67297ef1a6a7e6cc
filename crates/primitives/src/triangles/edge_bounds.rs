//! How far a watertight test's rounded edge function can lie from its exact value: a static
//! filter in the manner of Shewchuk (1997). An edge function farther from zero than its
//! bound has its exact sign; one within it is decided on the input's coordinates
//! ([`crate::ray_edge_side`]). The scalar test and every lane test compute the bound with
//! the same operations in the same order, so they send the same triangles to the exact
//! decision.
//!
//! The derivation, with `u = 2^-24`: a sheared coordinate `p_kx - s_x p_kz` (with
//! `|s_x| <= 1`, `p` the corner relative to the ray's origin) lies within
//! `4.001 u (|p_kx| + |p_kz|)` of its exact value, since the difference from the origin, the
//! shear's quotient, the product and the difference round once each. With `M` a corner's
//! magnitude `|p_kx| + |p_ky| + |p_kz|`, each of the edge function's two products then lies
//! within `8.003 u M_from M_to` of its exact value, and the roundings of the products and of
//! their difference add `4.0003 u M_from M_to`: `20.01 u M_from M_to` in all, under the
//! `32 u` used. A product that underflows adds at most `2^-149` times the other factor,
//! which the floor of `2^-60` on the magnitudes covers.

use glam::Vec4;

use crate::{Lanes, Simd};

/// How far a rounded edge function can lie from its exact value, relative to the product of
/// its two corners' magnitudes: `2^-19 = 32 u`.
pub(crate) const EDGE_ERROR: f32 = 1.907_348_6e-6;

/// The least magnitude a corner is given: `2^-60`.
pub(crate) const MAGNITUDE_FLOOR: f32 = 8.673_617e-19;

/// The magnitude of the corner at `p` (relative to the ray's origin) on the axes
/// `[kx, ky, kz]`: `|p_kx| + |p_ky| + |p_kz|`, at least [`MAGNITUDE_FLOOR`].
#[inline(always)]
pub(crate) fn magnitude(p: glam::Vec3, [kx, ky, kz]: [usize; 3]) -> f32 {
    (p[kx].abs() + p[ky].abs() + p[kz].abs()).max(MAGNITUDE_FLOOR)
}

/// The bounds of the edge functions of the edges `b -> c`, `c -> a` and `a -> b`, from the
/// corners' magnitudes.
#[inline(always)]
pub(crate) fn edge_bounds([a, b, c]: [f32; 3]) -> [f32; 3] {
    [b * c * EDGE_ERROR, c * a * EDGE_ERROR, a * b * EDGE_ERROR]
}

/// [`magnitude`] in four lanes, from the corners' coordinates on `kx`, `ky`, `kz`.
#[inline(always)]
pub(crate) fn magnitude4(x: Vec4, y: Vec4, z: Vec4) -> Vec4 {
    (x.abs() + y.abs() + z.abs()).max(Vec4::splat(MAGNITUDE_FLOOR))
}

/// The lanes (bits) of four whose edge functions `e` lie within their bounds of zero, from
/// the corners' magnitudes `[a, b, c]`.
#[inline(always)]
pub(crate) fn near_edges4([e0, e1, e2]: [Vec4; 3], [a, b, c]: [Vec4; 3]) -> u32 {
    let error = Vec4::splat(EDGE_ERROR);
    (e0.abs().cmple(b * c * error) | e1.abs().cmple(c * a * error) | e2.abs().cmple(a * b * error))
        .bitmask()
}

/// [`magnitude`] in eight lanes.
#[inline(always)]
pub(crate) fn lane_magnitude<S: Simd>(x: Lanes<S>, y: Lanes<S>, z: Lanes<S>) -> Lanes<S> {
    (x.abs() + y.abs() + z.abs()).max(Lanes::splat(x.simd(), MAGNITUDE_FLOOR))
}

/// [`near_edges4`] in eight lanes.
#[inline(always)]
pub(crate) fn near_lanes<S: Simd>([e0, e1, e2]: [Lanes<S>; 3], [a, b, c]: [Lanes<S>; 3]) -> u32 {
    let error = Lanes::splat(a.simd(), EDGE_ERROR);
    e0.abs().le(b * c * error) | e1.abs().le(c * a * error) | e2.abs().le(a * b * error)
}
