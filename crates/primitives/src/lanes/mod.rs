//! The lanes room: eight `f32` lanes, one per ray of a packet, over an instruction set chosen
//! at run time ([`Simd`], [`Lanes`], [`Portable`], here), with the AVX2 form and the cache
//! prefetch hint in `simd.rs` ([`Avx2`], [`prefetch`]), the crate's one `unsafe` module.
//!
//! May use: nothing else of the crate. Used by `rays` (packets) and `triangles` (the packet
//! test).
//!
//! [`Simd`] is an instruction set's eight-lane arithmetic: [`Portable`] (two glam `Vec4`s:
//! SSE2 on x86-64, NEON on aarch64) and, on x86-64, [`Avx2`] (one 256-bit register), whose
//! values can only be made once the CPU was found to run it. [`Lanes`] wraps a value with its
//! instruction set, so that packet code reads as arithmetic (`(plane - origin) * inv_dir`) and
//! is written once for every instruction set: the packet walks of `meshcast-bvh` are compiled
//! once per kernel and handed the matching [`Simd`].
//!
//! Every operation is a correctly rounded IEEE operation on each lane (no fused multiply-add),
//! and `min` and `max` follow SSE's rule for a NaN operand (the second is returned), so every
//! instruction set answers the same bits, which are the bits the scalar and four-lane code
//! computes for the same ray.

use core::fmt;
use core::ops::{Add, Div, Mul, Sub};

use glam::Vec4;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod simd;

#[cfg(target_arch = "x86_64")]
pub use simd::{prefetch, Avx2};

/// Asks the CPU to bring `values` into its caches ahead of use, where it can (x86-64); here a
/// hint with nothing to do.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn prefetch<T>(_values: &[T]) {}

/// Rays in a packet: one lane each.
pub const PACKET_WIDTH: usize = 8;

/// A bit per lane of a packet ([`PACKET_WIDTH`] bits).
pub const ALL_LANES: u32 = (1 << PACKET_WIDTH) - 1;

/// An instruction set's arithmetic on eight `f32` lanes. Its values are zero-sized proofs
/// that the CPU runs the instruction set.
pub trait Simd: Copy + fmt::Debug {
    /// Eight lanes in this instruction set's registers.
    type F32x8: Copy + fmt::Debug;

    /// Every lane `value`.
    fn splat(self, value: f32) -> Self::F32x8;
    /// The lanes of an array.
    fn load(self, lanes: [f32; PACKET_WIDTH]) -> Self::F32x8;
    /// The lanes of two `Vec4`s, the first holding lanes 0 to 3.
    fn join(self, halves: [Vec4; 2]) -> Self::F32x8;
    /// The lanes as an array.
    fn to_array(self, v: Self::F32x8) -> [f32; PACKET_WIDTH];
    /// `a + b`, lane by lane.
    fn add(self, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// `a - b`, lane by lane.
    fn sub(self, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// `a * b`, lane by lane.
    fn mul(self, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// `a / b`, lane by lane.
    fn div(self, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// `a * b + c`, lane by lane: rounded once where the instruction set fuses it (AVX2's
    /// FMA), twice where it does not (the portable lanes). Callers bound the error of either.
    fn mul_add(self, a: Self::F32x8, b: Self::F32x8, c: Self::F32x8) -> Self::F32x8;
    /// `a` where `a > b`, else `b` (also when either is NaN): SSE's `maxps`.
    fn max(self, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// `a` where `a < b`, else `b` (also when either is NaN): SSE's `minps`.
    fn min(self, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// `|a|`, lane by lane.
    fn abs(self, a: Self::F32x8) -> Self::F32x8;
    /// The lanes where `a < b`, as bits.
    fn lt(self, a: Self::F32x8, b: Self::F32x8) -> u32;
    /// The lanes where `a <= b`, as bits.
    fn le(self, a: Self::F32x8, b: Self::F32x8) -> u32;
    /// The lanes where `a == b`, as bits.
    fn eq(self, a: Self::F32x8, b: Self::F32x8) -> u32;
    /// The lanes where `a != b` (a NaN lane included), as bits.
    fn ne(self, a: Self::F32x8, b: Self::F32x8) -> u32;
    /// The lanes whose sign bit is set (`-0.0` and negative NaNs included), as bits.
    fn sign_bits(self, a: Self::F32x8) -> u32;
    /// `a` in the lanes of `bits`, `b` in the others.
    fn select(self, bits: u32, a: Self::F32x8, b: Self::F32x8) -> Self::F32x8;
    /// The smallest lane (lanes are not NaN).
    fn min_lane(self, a: Self::F32x8) -> f32;
    /// The largest lane (lanes are not NaN).
    fn max_lane(self, a: Self::F32x8) -> f32;
    /// Lane `a` of `v` in lanes 0 to 3, lane `b` in lanes 4 to 7 (bit patterns unchanged).
    fn pair(self, v: Self::F32x8, a: usize, b: usize) -> Self::F32x8;
}

/// The portable eight lanes: two glam `Vec4`s, so SSE2 on x86-64 and NEON on aarch64. Runs
/// everywhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Portable;

/// Whether glam's `Vec4::max` and `min` are SSE's `maxps` and `minps` (the second operand
/// when the first is NaN): one instruction each, where a compare and a select cost four and
/// made the portable node test 27% dearer in instructions.
const GLAM_HAS_SSE_RULES: bool = cfg!(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
));

/// `a` where `a > b`, else `b`: SSE's `maxps`.
#[inline(always)]
fn max_sse(a: Vec4, b: Vec4) -> Vec4 {
    if GLAM_HAS_SSE_RULES {
        a.max(b)
    } else {
        Vec4::select(a.cmpgt(b), a, b)
    }
}

/// `a` where `a < b`, else `b`: SSE's `minps`.
#[inline(always)]
fn min_sse(a: Vec4, b: Vec4) -> Vec4 {
    if GLAM_HAS_SSE_RULES {
        a.min(b)
    } else {
        Vec4::select(a.cmplt(b), a, b)
    }
}

impl Simd for Portable {
    type F32x8 = [Vec4; 2];

    #[inline(always)]
    fn splat(self, value: f32) -> [Vec4; 2] {
        [Vec4::splat(value); 2]
    }

    #[inline(always)]
    fn load(self, lanes: [f32; PACKET_WIDTH]) -> [Vec4; 2] {
        [Vec4::from_slice(&lanes[..4]), Vec4::from_slice(&lanes[4..])]
    }

    #[inline(always)]
    fn join(self, halves: [Vec4; 2]) -> [Vec4; 2] {
        halves
    }

    #[inline(always)]
    fn to_array(self, [low, high]: [Vec4; 2]) -> [f32; PACKET_WIDTH] {
        let mut lanes = [0.0; PACKET_WIDTH];
        low.write_to_slice(&mut lanes[..4]);
        high.write_to_slice(&mut lanes[4..]);
        lanes
    }

    #[inline(always)]
    fn add(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        [a + c, b + d]
    }

    #[inline(always)]
    fn sub(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        [a - c, b - d]
    }

    #[inline(always)]
    fn mul(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        [a * c, b * d]
    }

    #[inline(always)]
    fn div(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        [a / c, b / d]
    }

    #[inline(always)]
    fn mul_add(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2], [e, f]: [Vec4; 2]) -> [Vec4; 2] {
        [a * c + e, b * d + f]
    }

    #[inline(always)]
    fn max(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        [max_sse(a, c), max_sse(b, d)]
    }

    #[inline(always)]
    fn min(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        [min_sse(a, c), min_sse(b, d)]
    }

    #[inline(always)]
    fn abs(self, [a, b]: [Vec4; 2]) -> [Vec4; 2] {
        [a.abs(), b.abs()]
    }

    #[inline(always)]
    fn lt(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> u32 {
        a.cmplt(c).bitmask() | b.cmplt(d).bitmask() << 4
    }

    #[inline(always)]
    fn le(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> u32 {
        a.cmple(c).bitmask() | b.cmple(d).bitmask() << 4
    }

    #[inline(always)]
    fn eq(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> u32 {
        a.cmpeq(c).bitmask() | b.cmpeq(d).bitmask() << 4
    }

    #[inline(always)]
    fn ne(self, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> u32 {
        a.cmpne(c).bitmask() | b.cmpne(d).bitmask() << 4
    }

    #[inline(always)]
    fn sign_bits(self, [a, b]: [Vec4; 2]) -> u32 {
        a.is_negative_bitmask() | b.is_negative_bitmask() << 4
    }

    #[inline(always)]
    fn select(self, bits: u32, [a, b]: [Vec4; 2], [c, d]: [Vec4; 2]) -> [Vec4; 2] {
        let mask = |from: u32| {
            let bit = |lane: u32| bits & (1 << (from + lane)) != 0;
            glam::BVec4A::new(bit(0), bit(1), bit(2), bit(3))
        };
        [Vec4::select(mask(0), a, c), Vec4::select(mask(4), b, d)]
    }

    #[inline(always)]
    fn min_lane(self, [a, b]: [Vec4; 2]) -> f32 {
        a.min(b).min_element()
    }

    #[inline(always)]
    fn max_lane(self, [a, b]: [Vec4; 2]) -> f32 {
        a.max(b).max_element()
    }

    #[inline(always)]
    fn pair(self, v: [Vec4; 2], a: usize, b: usize) -> [Vec4; 2] {
        let lanes = self.to_array(v);
        [Vec4::splat(lanes[a]), Vec4::splat(lanes[b])]
    }
}

/// Eight `f32` lanes in the registers of the instruction set `S`, with arithmetic operators.
#[derive(Clone, Copy)]
pub struct Lanes<S: Simd> {
    v: S::F32x8,
    simd: S,
}

impl<S: Simd> fmt::Debug for Lanes<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lanes").field(&self.to_array()).finish()
    }
}

impl<S: Simd> Lanes<S> {
    /// Every lane `value`.
    #[inline(always)]
    pub fn splat(simd: S, value: f32) -> Self {
        Self {
            v: simd.splat(value),
            simd,
        }
    }

    /// The lanes of an array.
    #[inline(always)]
    pub fn from_array(simd: S, lanes: [f32; PACKET_WIDTH]) -> Self {
        Self {
            v: simd.load(lanes),
            simd,
        }
    }

    /// The lanes of two `Vec4`s, the first holding lanes 0 to 3.
    #[inline(always)]
    pub fn from_halves(simd: S, halves: [Vec4; 2]) -> Self {
        Self {
            v: simd.join(halves),
            simd,
        }
    }

    /// Lane `i` is `f(i)`.
    #[inline(always)]
    pub fn from_fn(simd: S, f: impl FnMut(usize) -> f32) -> Self {
        Self::from_array(simd, core::array::from_fn(f))
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f32; PACKET_WIDTH] {
        self.simd.to_array(self.v)
    }

    /// The instruction set.
    #[inline(always)]
    pub fn simd(self) -> S {
        self.simd
    }

    #[inline(always)]
    fn with(self, v: S::F32x8) -> Self {
        Self { v, simd: self.simd }
    }

    /// These lanes in the lanes of `bits`, `other`'s in the others (bit patterns copied
    /// unchanged).
    #[inline(always)]
    #[must_use]
    pub fn select(self, bits: u32, other: Self) -> Self {
        self.with(self.simd.select(bits, self.v, other.v))
    }

    /// Lane `lane`.
    #[inline(always)]
    pub fn lane(self, lane: usize) -> f32 {
        self.to_array()[lane]
    }

    /// These lanes with lane `lane` set to `value`. A blend in registers: writing the lane in
    /// memory and reading the lanes back would wait for the store.
    #[inline(always)]
    #[must_use]
    pub fn with_lane(self, lane: usize, value: f32) -> Self {
        Self::splat(self.simd, value).select(1 << lane, self)
    }

    /// Lane by lane: `self` where it is the larger, else `other` (also when either is NaN).
    #[inline(always)]
    #[must_use]
    pub fn max(self, other: Self) -> Self {
        self.with(self.simd.max(self.v, other.v))
    }

    /// Lane by lane: `self` where it is the smaller, else `other` (also when either is NaN).
    #[inline(always)]
    #[must_use]
    pub fn min(self, other: Self) -> Self {
        self.with(self.simd.min(self.v, other.v))
    }

    /// Lane by lane `|self|`.
    #[inline(always)]
    #[must_use]
    pub fn abs(self) -> Self {
        self.with(self.simd.abs(self.v))
    }

    /// `self * b + c`, lane by lane ([`Simd::mul_add`]: fused where the instruction set
    /// fuses it).
    #[inline(always)]
    pub fn mul_add(self, b: Self, c: Self) -> Self {
        self.with(self.simd.mul_add(self.v, b.v, c.v))
    }

    /// The lanes where `self < other`, as bits.
    #[inline(always)]
    pub fn lt(self, other: Self) -> u32 {
        self.simd.lt(self.v, other.v)
    }

    /// The lanes where `self <= other`, as bits.
    #[inline(always)]
    pub fn le(self, other: Self) -> u32 {
        self.simd.le(self.v, other.v)
    }

    /// The lanes where `self == other`, as bits.
    #[inline(always)]
    pub fn eq(self, other: Self) -> u32 {
        self.simd.eq(self.v, other.v)
    }

    /// The lanes where `self != other` (NaN included), as bits.
    #[inline(always)]
    pub fn ne(self, other: Self) -> u32 {
        self.simd.ne(self.v, other.v)
    }

    /// The lanes whose sign bit is set (`-0.0` included), as bits.
    #[inline(always)]
    pub fn sign_bits(self) -> u32 {
        self.simd.sign_bits(self.v)
    }

    /// The smallest lane among `lanes` (bits), `+inf` if there is none. Lanes are not NaN.
    #[inline(always)]
    pub fn min_of(self, lanes: u32) -> f32 {
        if lanes == ALL_LANES {
            return self.simd.min_lane(self.v);
        }
        let inf = self.simd.splat(f32::INFINITY);
        self.simd.min_lane(self.simd.select(lanes, self.v, inf))
    }

    /// Lane `a` in lanes 0 to 3 and lane `b` in lanes 4 to 7 (bit patterns copied unchanged).
    #[inline(always)]
    #[must_use]
    pub fn pair(self, a: usize, b: usize) -> Self {
        self.with(self.simd.pair(self.v, a, b))
    }

    /// The largest lane among `lanes` (bits), `-inf` if there is none. Lanes are not NaN.
    #[inline(always)]
    pub fn max_of(self, lanes: u32) -> f32 {
        if lanes == ALL_LANES {
            return self.simd.max_lane(self.v);
        }
        let neg_inf = self.simd.splat(f32::NEG_INFINITY);
        self.simd.max_lane(self.simd.select(lanes, self.v, neg_inf))
    }
}

macro_rules! lane_op {
    ($trait:ident, $method:ident) => {
        impl<S: Simd> $trait for Lanes<S> {
            type Output = Lanes<S>;

            #[inline(always)]
            fn $method(self, other: Lanes<S>) -> Lanes<S> {
                self.with(self.simd.$method(self.v, other.v))
            }
        }
    };
}

lane_op!(Add, add);
lane_op!(Sub, sub);
lane_op!(Mul, mul);
lane_op!(Div, div);

#[cfg(test)]
mod tests {
    use super::*;

    fn check<S: Simd>(simd: S) {
        let lanes = |a: [f32; 8]| Lanes::from_array(simd, a);
        let a = lanes([f32::NAN, 1.0, -0.0, 0.0, 2.0, f32::NAN, 3.0, -1.0]);
        let b = lanes([1.0, f32::NAN, 0.0, -0.0, 1.0, f32::NAN, 4.0, -2.0]);
        let max = a.max(b).to_array();
        let min = a.min(b).to_array();
        // A NaN operand: the second is returned.
        assert_eq!(max[0], 1.0);
        assert!(max[1].is_nan());
        assert_eq!(min[0], 1.0);
        assert!(min[1].is_nan());
        // Equal zeros: the second operand.
        assert!(max[2].is_sign_positive() && max[3].is_sign_negative());
        assert!(min[2].is_sign_positive() && min[3].is_sign_negative());
        assert_eq!((max[4], min[4], max[7], min[7]), (2.0, 1.0, -1.0, -2.0));

        let a = lanes([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        let b = Lanes::splat(simd, 3.0);
        // Exact in either rounding: `a * 3 - 1`.
        let product = a.mul_add(b, Lanes::splat(simd, -1.0)).to_array();
        assert_eq!(product, [-1.0, 2.0, 5.0, 8.0, 11.0, 14.0, 17.0, 20.0]);
        assert_eq!(a.lt(b), 0b0000_0111);
        assert_eq!(a.le(b), 0b0000_1111);
        assert_eq!(a.eq(b), 0b0000_1000);
        assert_eq!(a.ne(b), 0b1111_0111);
        assert_eq!(lanes([f32::NAN; 8]).ne(b), ALL_LANES);
        assert_eq!(
            lanes([
                -0.0,
                0.0,
                -1.0,
                1.0,
                f32::NAN,
                -f32::NAN,
                f32::NEG_INFINITY,
                2.0
            ])
            .sign_bits(),
            0b0110_0101
        );
        assert_eq!(a.min_of(0b0110_0000), 5.0);
        assert_eq!(a.min_of(0b1000_0000), 7.0);
        assert_eq!(a.min_of(0), f32::INFINITY);
        assert_eq!(a.max_of(0b0110_0001), 6.0);
        assert_eq!(a.max_of(0), f32::NEG_INFINITY);
        assert_eq!((a.min_of(ALL_LANES), a.max_of(ALL_LANES)), (0.0, 7.0));
        let signed = lanes([-3.0, 1.0, -7.0, 2.5, -0.5, 2.0, -1.0, 0.5]);
        assert_eq!(
            (signed.min_of(ALL_LANES), signed.max_of(ALL_LANES)),
            (-7.0, 2.5)
        );
        assert_eq!(
            (signed.min_of(0b1001_0010), signed.max_of(0b0110_0001)),
            (-0.5, 2.0)
        );
        assert_eq!(
            Lanes::from_array(simd, [9.0; 8]).min_of(ALL_LANES),
            9.0,
            "every lane"
        );
        assert_eq!((a - b).abs().lane(0), 3.0);
        assert_eq!((a * b / b + b).lane(7), 10.0);
        assert_eq!(a.with_lane(2, -5.0).to_array()[..3], [0.0, 1.0, -5.0]);
        assert_eq!(
            a.pair(6, 1).to_array(),
            [6.0, 6.0, 6.0, 6.0, 1.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(a.pair(7, 7).to_array(), [7.0; 8]);
        let nan = f32::from_bits(0x7fc0_1234);
        let odd = lanes([0.0, -0.0, nan, 1.0, 2.0, 3.0, 4.0, 5.0]).pair(2, 1);
        assert_eq!(
            odd.to_array().map(f32::to_bits)[3..5],
            [nan.to_bits(), (-0.0f32).to_bits()]
        );
        let halves = [Vec4::new(1.0, 2.0, 3.0, 4.0), Vec4::new(5.0, 6.0, 7.0, 8.0)];
        assert_eq!(
            Lanes::from_halves(simd, halves).to_array(),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        );
    }

    #[test]
    fn every_instruction_set_follows_sse_rules() {
        check(Portable);
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = Avx2::detect() {
            check(avx2);
        }
    }
}
