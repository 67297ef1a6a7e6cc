//! Exact orientation predicates on `f64` coordinates: Shewchuk's adaptive tests ("Adaptive
//! Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997), from the
//! `robust` crate, over glam's `DVec2` and `DVec3`.
//!
//! Each answers a value whose sign is exact: a fast floating-point filter with a proven error
//! bound, and expansion arithmetic only where the filter cannot decide. Exact as long as no
//! intermediate product underflows or overflows, which holds for coordinates between about
//! `1e-90` and `1e90` in magnitude (or zero): every `f32`, and every `f64` that an affine
//! map of `f32` coordinates with an `f32` matrix gives.

use glam::{DVec2, DVec3};
use robust::{Coord, Coord3D};

/// Positive if `a`, `b`, `c` turn counterclockwise (`c` left of the line from `a` to `b`),
/// negative if clockwise, zero exactly when they are collinear. The magnitude is about twice
/// the triangle's area; the sign is exact.
///
/// # Examples
/// ```
/// use glam::DVec2;
/// use meshcast_primitives::predicates::orient2d;
///
/// assert!(orient2d(DVec2::ZERO, DVec2::X, DVec2::Y) > 0.0);
/// // 0.1 is not exact in binary, yet these three points are exactly collinear.
/// assert_eq!(orient2d(DVec2::ZERO, DVec2::splat(0.1), DVec2::splat(0.3)), 0.0);
/// ```
#[inline]
pub fn orient2d(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let coord = |p: DVec2| Coord { x: p.x, y: p.y };
    robust::orient2d(coord(a), coord(b), coord(c))
}

/// Positive if `d` lies below the plane through `a`, `b`, `c` (the side from which they turn
/// clockwise), negative if above, zero exactly when the four points are coplanar. It is the
/// determinant of the rows `a - d`, `b - d`, `c - d`, so `-orient3d(a, b, c, d)` is
/// `(d - a) · ((b - a) × (c - a))` computed exactly (sign only).
///
/// # Examples
/// ```
/// use glam::DVec3;
/// use meshcast_primitives::predicates::orient3d;
///
/// let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
/// assert!(orient3d(a, b, c, DVec3::NEG_Z) > 0.0);
/// assert!(orient3d(a, b, c, DVec3::Z) < 0.0);
/// assert_eq!(orient3d(a, b, c, DVec3::new(0.1, 0.7, 0.0)), 0.0);
/// ```
#[inline]
pub fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    let coord = |p: DVec3| Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    robust::orient3d(coord(a), coord(b), coord(c), coord(d))
}

/// The sign of a predicate's value: `-1`, `0` or `1` (`-0.0` is `0`).
#[inline]
pub fn sign(value: f64) -> i8 {
    if value > 0.0 {
        1
    } else if value < 0.0 {
        -1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orient3d_is_the_sign_of_the_triple_product() {
        let (a, b, c) = (
            DVec3::new(1.0, 2.0, 3.0),
            DVec3::new(4.0, -1.0, 0.5),
            DVec3::Y,
        );
        for d in [
            DVec3::new(0.3, 9.0, -2.0),
            DVec3::new(-5.0, 0.0, 7.0),
            DVec3::ONE,
        ] {
            let triple = (d - a).dot((b - a).cross(c - a));
            assert_eq!(sign(-orient3d(a, b, c, d)), sign(triple));
        }
    }

    #[test]
    fn tiny_offsets_from_a_plane_are_seen() {
        // A plane far from the origin and a point one ulp off it: naive f64 arithmetic
        // rounds the triple product to garbage; the predicate keeps the exact sign.
        let (a, b, c) = (
            DVec3::new(1e6, 1e6, 1e6),
            DVec3::new(1e6 + 1.0, 1e6, 1e6),
            DVec3::new(1e6, 1e6 + 1.0, 1e6),
        );
        let above = DVec3::new(1e6 + 0.5, 1e6 + 0.5, f64::from_bits(1e6f64.to_bits() + 1));
        let below = DVec3::new(1e6 + 0.5, 1e6 + 0.5, f64::from_bits(1e6f64.to_bits() - 1));
        assert!(orient3d(a, b, c, above) < 0.0);
        assert!(orient3d(a, b, c, below) > 0.0);
        assert_eq!(orient3d(a, b, c, DVec3::new(0.1, 0.7, 1e6)), 0.0);
        assert_eq!(sign(-0.0), 0);
    }
}
