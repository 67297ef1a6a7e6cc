//! How far a watertight test's rounded edge functions can lie from their exact values: a
//! static filter in the manner of Shewchuk (1997); and the range in which its `f32`
//! placement of a hit is as accurate as at unit scale ([`is_well_placed`]). An edge function farther from zero than
//! its triangle's bound has its exact sign; one within it is decided on the input's
//! coordinates ([`crate::ray_edge_side`]). The scalar test and every lane test compute the
//! bound with the same operations in the same order, so they send the same triangles to the
//! exact decision.
//!
//! The derivation, with `u = 2^-24`, for a corner `p` relative to the ray's origin, sheared
//! to `(p_x, p_y)`, with `p_z` its coordinate on the dominant axis: the sheared coordinate
//! `p_kx - s_x p_kz` (`|s_x| <= 1`) lies within `4.001 u (|p_kx| + |s_x p_kz|)` of its exact
//! value (the difference from the origin, the shear's quotient, the product and the
//! difference round once each), which is at most `4.01 u W_p` with
//! `W_p = |p_x| + |p_y| + 2 |p_z|`. With `S_p = |p_x| + |p_y|`, the edge function
//! `c_x b_y - c_y b_x` then lies within `4.01 u (W_c S_b + W_b S_c) + 32.2 u^2 W_b W_c` of
//! its value on the exact sheared corners, and its products' and difference's roundings add
//! `2.0001 u S_b S_c <= 1.0001 u (W_c S_b + W_b S_c)`. Summed over the triangle's corners
//! (`S = S_a + S_b + S_c`, `W = S + 2 (|a_z| + |b_z| + |c_z|)`), every edge function of the
//! triangle lies within `5.02 u W S + 8.05 u^2 W^2` of its exact value, under the bound used,
//! `8 u W (S + 8 u W)`. It is small where it matters: the error is that of the shear, about
//! `u` of the distance along the ray times the triangle's sheared extent, not the distance
//! squared, so only rays within about `u` times the distance over the triangle's size of an
//! edge's line are sent to the exact decision.
//!
//! The bound's absolute term, which makes it hold at every scale. Below `2^-126` a rounding
//! is absolute, not relative: a product or quotient that underflows is off by up to
//! `η = 2^-150` (a sum or difference that underflows is exact). The shear's quotient then
//! adds `η |p_z|` and its product `η` to a sheared coordinate, `η (1 + |p_z|)` in all (times
//! `1 + 2u` for the roundings after it), and an edge function gains at most
//! `η [(1 + |c_z|) S_b + (1 + |b_z|) S_c] + 2η <= 2η (1 + W) (S + 1)` beyond its relative
//! error. The bound is made from `max(W, F)` with the floor `F = 2^-40`, which leaves at
//! least `2.98 u max(W, F) S + 55.9 u^2 max(W, F)^2` above the relative error, and that
//! exceeds the absolute term for every `W` and `S`: `2η / (2.98 u F) < 2^-85` and
//! `2η / (55.9 u^2 F^2) < 2^-25`. So the bound, `8 u max(W, 2^-40) (S + 8 u max(W, 2^-40))`,
//! holds for every finite input, subnormal coordinates and directions included, and is
//! itself at least `2^-122`, so its own rounding stays relative. Where it overflows
//! (coordinates past about `2^63`), [`is_near`] sends every edge function to the exact
//! decision. The hit's placement has its own range ([`is_well_placed`]).

use glam::Vec4;

use crate::lanes::{Lanes, Simd};

/// The bound's factor: `2^-21 = 8 u`.
const EDGE_ERROR: f32 = 4.768_371_6e-7;

/// The least `W` the bound is made from: `2^-40`.
const SIZE_FLOOR: f32 = 9.094_947e-13;

/// The bound on how far each rounded edge function of a triangle can lie from its exact
/// value, from its sheared corners `[(a_x, a_y), (b_x, b_y), (c_x, c_y)]` and their
/// coordinates on the dominant axis.
#[inline(always)]
pub(crate) fn edge_bound(sheared: [(f32, f32); 3], z: [f32; 3]) -> f32 {
    let [(ax, ay), (bx, by), (cx, cy)] = sheared;
    let lateral = (ax.abs() + ay.abs()) + (bx.abs() + by.abs()) + (cx.abs() + cy.abs());
    let depth = z[0].abs() + z[1].abs() + z[2].abs();
    let step = (lateral + (depth + depth)).max(SIZE_FLOOR) * EDGE_ERROR;
    step * (lateral + step)
}

/// [`edge_bound`] in four lanes.
#[inline(always)]
pub(crate) fn edge_bound4(sheared: [(Vec4, Vec4); 3], z: [Vec4; 3]) -> Vec4 {
    let [(ax, ay), (bx, by), (cx, cy)] = sheared;
    let lateral = (ax.abs() + ay.abs()) + (bx.abs() + by.abs()) + (cx.abs() + cy.abs());
    let depth = z[0].abs() + z[1].abs() + z[2].abs();
    let step = (lateral + (depth + depth)).max(Vec4::splat(SIZE_FLOOR)) * EDGE_ERROR;
    step * (lateral + step)
}

/// [`edge_bound`] in eight lanes.
#[inline(always)]
pub(crate) fn lane_edge_bound<S: Simd>(
    sheared: [(Lanes<S>, Lanes<S>); 3],
    z: [Lanes<S>; 3],
) -> Lanes<S> {
    let [(ax, ay), (bx, by), (cx, cy)] = sheared;
    let simd = ax.simd();
    let lateral = (ax.abs() + ay.abs()) + (bx.abs() + by.abs()) + (cx.abs() + cy.abs());
    let depth = z[0].abs() + z[1].abs() + z[2].abs();
    let size = (lateral + (depth + depth)).max(Lanes::splat(simd, SIZE_FLOOR));
    let step = size * Lanes::splat(simd, EDGE_ERROR);
    step * (lateral + step)
}

/// The lanes (bits) that are no sure miss: not two edge functions of opposite signs beyond
/// the `bound`. A lane whose first corner's depth `a_z` is NaN (a block's unused lanes,
/// whose corners are NaN) counts as a sure miss; a real triangle's corners are finite, so
/// its differences from the origin are numbers or infinities, never NaN.
#[inline(always)]
pub(crate) fn open_lanes<S: Simd>(e: [Lanes<S>; 3], bound: Lanes<S>, a_z: Lanes<S>) -> u32 {
    let [e0, e1, e2] = e;
    let below = Lanes::splat(bound.simd(), 0.0) - bound;
    let negative = e0.lt(below) | e1.lt(below) | e2.lt(below);
    let positive = bound.lt(e0) | bound.lt(e1) | bound.lt(e2);
    !(negative & positive) & a_z.eq(a_z)
}

/// Whether the edge function `e` is near zero for the triangle's `bound`: within it, exactly
/// zero, or the bound not finite. A bound that overflowed (coordinates whose products
/// overflow `f32`, where an edge function can be infinite or NaN) sends every edge function
/// of the triangle to the exact decision, which works on the input's coordinates in `f64`
/// and overflows nowhere below `f32::MAX`.
#[inline(always)]
pub(crate) fn is_near(e: f32, bound: f32) -> bool {
    e == 0.0 || e.abs() <= bound || !bound.is_finite()
}

/// The lanes (bits) with an edge function near zero ([`is_near`]).
#[inline(always)]
pub(crate) fn near_lanes<S: Simd>(e: [Lanes<S>; 3], bound: Lanes<S>) -> u32 {
    let [e0, e1, e2] = e;
    let zero = Lanes::splat(bound.simd(), 0.0);
    let finite = bound.lt(Lanes::splat(bound.simd(), f32::INFINITY));
    let within = e0.abs().le(bound) | e1.abs().le(bound) | e2.abs().le(bound);
    within | !finite | e0.eq(zero) | e1.eq(zero) | e2.eq(zero)
}

/// [`open_lanes`] in four lanes.
#[inline(always)]
pub(crate) fn open_lanes4([e0, e1, e2]: [Vec4; 3], bound: Vec4, a_z: Vec4) -> u32 {
    let below = -bound;
    let negative = e0.cmplt(below) | e1.cmplt(below) | e2.cmplt(below);
    let positive = e0.cmpgt(bound) | e1.cmpgt(bound) | e2.cmpgt(bound);
    (!(negative & positive) & a_z.cmpeq(a_z)).bitmask()
}

/// [`near_lanes`] in four lanes.
#[inline(always)]
pub(crate) fn near_lanes4([e0, e1, e2]: [Vec4; 3], bound: Vec4) -> u32 {
    let finite = bound.cmplt(Vec4::INFINITY);
    let within = e0.abs().cmple(bound) | e1.abs().cmple(bound) | e2.abs().cmple(bound);
    let zero = e0.cmpeq(Vec4::ZERO) | e1.cmpeq(Vec4::ZERO) | e2.cmpeq(Vec4::ZERO);
    (within | !finite | zero).bitmask()
}

/// The least `|t_scaled|` and the largest `|det|` of a hit placed in `f32`: `2^-100` and
/// `2^100`.
const PLACE_LIMIT: f32 = 1.0 / (1u128 << 100) as f32;

/// Whether a hit placed in `f32` from the scaled distance `t_scaled` and the determinant
/// `det` (both of exact sign) is as accurate as at unit scale, `t` its distance: `t_scaled`
/// at least `2^-100`, so that a product in it that underflowed (an absolute error of
/// `2^-150`) moves `t` by under `2^-49` of itself; `det` at most `2^100`, so that its
/// reciprocal is a normal float; and `t` finite. Edge functions that pass the bound exceed
/// `2^-122`, so the division's relative rounding holds too. Every test places a hit that
/// fails this in `f64` on the input's coordinates ([`crate::WatertightRay::intersect`]): a ray
/// with a direction below `2^-126` (whose shear overflows), a mesh far below or above unit
/// size, a hit at `t` beyond `f32`'s range (no hit).
#[inline(always)]
pub(crate) fn is_well_placed(t_scaled: f32, det: f32, t: f32) -> bool {
    t_scaled.abs() >= PLACE_LIMIT && det.abs() <= 1.0 / PLACE_LIMIT && t.abs() < f32::INFINITY
}

/// The lanes (bits) that [`is_well_placed`] accepts.
#[inline(always)]
pub(crate) fn well_placed_lanes<S: Simd>(t_scaled: Lanes<S>, det: Lanes<S>, t: Lanes<S>) -> u32 {
    let simd = t.simd();
    Lanes::splat(simd, PLACE_LIMIT).le(t_scaled.abs())
        & det.abs().le(Lanes::splat(simd, 1.0 / PLACE_LIMIT))
        & t.abs().lt(Lanes::splat(simd, f32::INFINITY))
}

/// [`well_placed_lanes`] in four lanes.
#[inline(always)]
pub(crate) fn well_placed_lanes4(t_scaled: Vec4, det: Vec4, t: Vec4) -> u32 {
    (t_scaled.abs().cmpge(Vec4::splat(PLACE_LIMIT))
        & det.abs().cmple(Vec4::splat(1.0 / PLACE_LIMIT))
        & t.abs().cmplt(Vec4::INFINITY))
    .bitmask()
}
