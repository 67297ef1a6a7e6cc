//! Which side of a triangle's edge a ray passes, decided exactly on the input's own
//! coordinates: the ray's `f32` origin and direction and the edge's `f32` corners.
//!
//! The watertight test (`triangles/watertight.rs`) shears the ray onto an axis and takes the
//! signs of three edge functions in `f32`. Where a rounded edge function lies within its error
//! bound of zero, its sign could be wrong (a ray exactly through a vertex can then pass beside
//! every triangle around it), and the test asks here instead. In exact arithmetic the sheared
//! edge function of the edge `from -> to` is `dir · ((to - o) × (from - o)) / |dir[kz]|`
//! (expand the shear; the axis order that keeps the winding makes the sign independent of
//! `kz`), so its sign is that of a triple product of `f32` differences, which
//! [`ray_edge_side`] decides. A ray through the edge's line (a zero) is broken by the tie rule
//! with [`ray_edge_tie`]: the side the ray would be on were it moved by an infinitesimal step in
//! the sheared plane, also exact.
//!
//! Each sign is decided in three stages, in the manner of Shewchuk's adaptive predicates
//! (1997): an `f64` evaluation with a proven error bound, which decides all but values
//! within about `1e-15` of zero relative to their terms; then Shewchuk's own exact
//! predicates (`robust`), when the ray's second point `origin + dir` is exact in `f64`;
//! else integers (every finite `f32` is an integer times `2^-149`). Only rays exactly through
//! an edge's line, or within an `f64` rounding of it, get past the first.

use glam::{DVec2, DVec3, Vec3};
use num_bigint::BigInt;

use super::predicates::{orient2d, orient3d, sign};

/// Half an `f64` ulp at 1: the relative error of one rounding.
const EPS: f64 = f64::EPSILON / 2.0;

/// The error bound of the triple product in `f64`, relative to its terms' magnitudes: the
/// two differences add one rounding each to Shewchuk's `7 ε` for exact inputs (`9 ε` in
/// all, and the magnitudes' own rounding), doubled.
const TRIPLE_BOUND: f64 = 16.0 * EPS;

/// The error bound of the 2D cross product in `f64` (a difference, two products and their
/// difference: `4 ε`), doubled.
const CROSS_BOUND: f64 = 8.0 * EPS;

/// The sign (`-1`, `0` or `1`) of `dir · ((to - origin) × (from - origin))`, exact: the sign
/// of the watertight test's edge function of the edge `from -> to` in exact arithmetic.
/// Zero exactly when the ray's line meets the edge's line (or runs parallel to it).
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::ray_edge_side;
///
/// // A ray down the z axis through (0.1, 0.2), beside the edge from (0, 0) to (1, 0.5):
/// // 0.1 is not exact in binary, yet the point lies exactly on the edge's line.
/// let down = |x: f32, y: f32| (Vec3::new(x, y, 1.0), Vec3::NEG_Z);
/// let (from, to) = (Vec3::ZERO, Vec3::new(1.0, 0.5, 0.0));
/// let (origin, dir) = down(0.1, 0.05);
/// assert_eq!(ray_edge_side(origin, dir, from, to), 0);
/// let (origin, dir) = down(0.1, 0.06);
/// assert_eq!(ray_edge_side(origin, dir, from, to), -ray_edge_side(origin, dir, to, from));
/// ```
pub fn ray_edge_side(origin: Vec3, dir: Vec3, from: Vec3, to: Vec3) -> i8 {
    let [o, d, from, to] = [origin, dir, from, to].map(|v| v.as_dvec3());
    let (p, q) = (to - o, from - o);
    let value = d.dot(p.cross(q));
    let terms = d.abs().dot(DVec3::new(
        (p.y * q.z).abs() + (p.z * q.y).abs(),
        (p.z * q.x).abs() + (p.x * q.z).abs(),
        (p.x * q.y).abs() + (p.y * q.x).abs(),
    ));
    if value.abs() > TRIPLE_BOUND * terms {
        return sign(value);
    }
    match exact_sum(o, d) {
        // The rows `to - o`, `from - o`, `ahead - o = d`.
        Some(ahead) => sign(orient3d(to, from, ahead, o)),
        None => big_edge_side([origin, dir, from.as_vec3(), to.as_vec3()]),
    }
}

/// The side of the edge `from -> to` that the tie rule gives a ray through the edge's line:
/// the sign its sheared edge function takes when the ray is moved by `(ε, ε²)` in the
/// sheared plane of the axes `[kx, ky, kz]` (Edelsbrunner and Mücke's simulation of
/// simplicity, 1990), which is the sign of the sheared edge's `y` extent, `to - from`, or
/// where that is zero of its `x` extent, `from - to`; exact. Zero only for an edge of no
/// sheared length.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::ray_edge_tie;
///
/// // Seen down the z axis (axes x, y, z), an edge going up in y, and the same edge reversed.
/// let (from, to) = (Vec3::ZERO, Vec3::new(0.5, 1.0, 3.0));
/// assert_eq!(ray_edge_tie(Vec3::Z, [0, 1, 2], from, to), 1);
/// assert_eq!(ray_edge_tie(Vec3::Z, [0, 1, 2], to, from), -1);
/// ```
pub fn ray_edge_tie(dir: Vec3, [kx, ky, kz]: [usize; 3], from: Vec3, to: Vec3) -> i8 {
    // The sheared extent along `k` of `p - q` is `(p - q)[k] - dir[k] / dir[kz] (p - q)[kz]`,
    // whose sign is that of `dir[kz] (p - q)[k] - dir[k] (p - q)[kz]` times `dir[kz]`'s.
    let extent = |k: usize, p: Vec3, q: Vec3| {
        let cross = cross_side([dir[kz], dir[k]], [p[kz], p[k]], [q[kz], q[k]]);
        if dir[kz] < 0.0 {
            -cross
        } else {
            cross
        }
    };
    match extent(ky, to, from) {
        0 => extent(kx, from, to),
        side => side,
    }
}

/// The sign of `d[0] (p - q)[1] - d[1] (p - q)[0]`, exact.
fn cross_side(d: [f32; 2], p: [f32; 2], q: [f32; 2]) -> i8 {
    let [d, p, q] = [d, p, q].map(|v| DVec2::from(v.map(f64::from)));
    let delta = p - q;
    let value = d.x * delta.y - d.y * delta.x;
    let terms = (d.x * delta.y).abs() + (d.y * delta.x).abs();
    if value.abs() > CROSS_BOUND * terms {
        return sign(value);
    }
    match exact_sum(q.extend(0.0), d.extend(0.0)) {
        // The rows `(q + d) - q = d` and `p - q`.
        Some(ahead) => sign(orient2d(ahead.truncate(), p, q)),
        None => {
            let [d0, d1, p0, p1, q0, q1] = [d.x, d.y, p.x, p.y, q.x, q.y].map(|x| big(x as f32));
            sign_of(&(d0 * (p1 - q1) - d1 * (p0 - q0)))
        }
    }
}

/// `a + b`, if it is exact in `f64` (Knuth's two-sum leaves no error): always for values
/// of nearby magnitudes, since both are `f32`.
fn exact_sum(a: DVec3, b: DVec3) -> Option<DVec3> {
    let sum = a + b;
    let b_part = sum - a;
    let error = (a - (sum - b_part)) + (b - b_part);
    (error == DVec3::ZERO).then_some(sum)
}

/// [`ray_edge_side`] in integers: every coordinate times `2^149`.
fn big_edge_side([origin, dir, from, to]: [Vec3; 4]) -> i8 {
    let big3 = |v: Vec3| v.to_array().map(big);
    let [o, d, from, to] = [origin, dir, from, to].map(big3);
    let p: [BigInt; 3] = core::array::from_fn(|i| &to[i] - &o[i]);
    let q: [BigInt; 3] = core::array::from_fn(|i| &from[i] - &o[i]);
    let cross: [BigInt; 3] = core::array::from_fn(|i| {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        &p[j] * &q[k] - &p[k] * &q[j]
    });
    let value: BigInt = (0..3).map(|i| &d[i] * &cross[i]).sum();
    sign_of(&value)
}

/// `x` times `2^149` as an integer, exactly (zero for a value that is not finite, which no
/// caller passes).
fn big(x: f32) -> BigInt {
    if !x.is_finite() {
        return BigInt::ZERO;
    }
    let bits = x.to_bits();
    let exponent = (bits >> 23 & 0xff) as usize;
    let fraction = bits & 0x7f_ffff;
    // A subnormal is `fraction * 2^-149`; a normal `(2^23 + fraction) * 2^(exponent - 150)`.
    let (mantissa, shift) = match exponent {
        0 => (fraction, 0),
        _ => (fraction | 0x80_0000, exponent - 1),
    };
    let magnitude = BigInt::from(mantissa) << shift;
    if x.is_sign_negative() {
        -magnitude
    } else {
        magnitude
    }
}

fn sign_of(value: &BigInt) -> i8 {
    match value.sign() {
        num_bigint::Sign::Minus => -1,
        num_bigint::Sign::NoSign => 0,
        num_bigint::Sign::Plus => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Xorshift;

    /// The three stages, each forced, agree with one another wherever they decide.
    #[test]
    fn every_stage_gives_the_integer_sign() {
        let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
        for round in 0..3000 {
            let scale = [1.0, 1e-20, 1e20, 3.0][round % 4];
            let origin = rng.point(scale);
            let from = rng.point(scale);
            let to = if round % 5 == 0 {
                // Collinear with the ray, through `from`, in exact arithmetic where it lands.
                from + (from - origin) * 0.5
            } else {
                rng.point(scale)
            };
            let dir = match round % 3 {
                0 => to - origin,
                1 => rng.point(1.0),
                _ => (from - origin) * 2.0,
            };
            let integers = big_edge_side([origin, dir, from, to]);
            assert_eq!(ray_edge_side(origin, dir, from, to), integers, "{round}");
            let [o, d, f, t] = [origin, dir, from, to].map(|v| v.as_dvec3());
            if let Some(ahead) = exact_sum(o, d) {
                assert_eq!(sign(orient3d(t, f, ahead, o)), integers, "{round}");
            }
            assert_eq!(ray_edge_side(origin, dir, to, from), -integers, "{round}");
        }
    }

    #[test]
    fn integers_are_exact() {
        assert_eq!(big(1.0), BigInt::from(1u32) << 149);
        assert_eq!(big(-0.75), -(BigInt::from(3u32) << 147usize));
        assert_eq!(big(f32::from_bits(1)), BigInt::from(1u32));
        assert_eq!(
            big(f32::MAX),
            BigInt::from(0xff_ffffu32) << (127 + 149 - 23)
        );
        assert_eq!(big(-0.0), BigInt::ZERO);
    }

    /// Rays through an edge's line and one ulp beside it, far from the origin, decided by
    /// each stage: exact `f64` products, then integers where `origin + dir` is not exact in
    /// `f64` and the value is far below `f64`'s rounding of the terms.
    #[test]
    fn one_ulp_beside_an_edge_is_seen() {
        let (from, to) = (Vec3::new(1e7, 0.0, 0.0), Vec3::new(1e7, 8.0, 0.0));
        let beside = f32::from_bits(1e7f32.to_bits() + 1);
        for (origin_x, x, on_line) in [
            (0.0, 1e7, true),
            (0.0, beside, false),
            // The ray meets z = 0 at x = 1e7 - 3e-30.
            (-3e-30, 1e7, false),
        ] {
            let origin = Vec3::new(origin_x, 1.0, 5.0);
            let dir = Vec3::new(x, 3.0, 0.0) - origin;
            let side = ray_edge_side(origin, dir, from, to);
            assert_eq!(side, big_edge_side([origin, dir, from, to]));
            assert_eq!(side == 0, on_line, "{origin_x} {x}");
        }
    }

    #[test]
    fn ties_follow_the_sheared_extents() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            let (d, p, q) = (rng.point(1.0), rng.point(1e3), rng.point(1e-3));
            let [d, p, q] = [[d.x, d.y], [p.x, p.y], [q.x, q.y]];
            let exact = {
                let [d0, d1, p0, p1, q0, q1] = [d[0], d[1], p[0], p[1], q[0], q[1]].map(big);
                sign_of(&(d0 * (p1 - q1) - d1 * (p0 - q0)))
            };
            assert_eq!(cross_side(d, p, q), exact);
            assert_eq!(cross_side(d, q, p), -exact);
        }
        // An edge with no extent in y takes its x extent's side.
        let (from, to) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(2.0, 1.0, 0.0));
        assert_eq!(ray_edge_tie(Vec3::Z, [0, 1, 2], from, to), -1);
        assert_eq!(ray_edge_tie(Vec3::NEG_Z, [1, 0, 2], from, to), 1);
    }
}
