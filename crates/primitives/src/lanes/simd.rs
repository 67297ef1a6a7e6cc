//! The AVX2 form of [`Simd`]: eight lanes in one 256-bit register, and [`prefetch`]. This
//! module holds the crate's only `unsafe` code: the intrinsics, which are sound to call once
//! the CPU was found to run AVX2, as every [`Avx2`] value proves, and the prefetch hint.

use core::arch::x86_64::{
    __m256, _mm256_add_ps, _mm256_and_ps, _mm256_and_si256, _mm256_blendv_ps,
    _mm256_castps256_ps128, _mm256_castsi256_ps, _mm256_cmp_ps, _mm256_cmpeq_epi32, _mm256_div_ps,
    _mm256_extractf128_ps, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_max_ps, _mm256_min_ps,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_permutevar8x32_ps, _mm256_set1_epi32, _mm256_set1_ps,
    _mm256_set_m128, _mm256_set_m128i, _mm256_setr_epi32, _mm256_storeu_ps, _mm256_sub_ps,
    _mm_cvtss_f32, _mm_max_ps, _mm_min_ps, _mm_movehl_ps, _mm_prefetch, _mm_set1_epi32,
    _mm_shuffle_ps, _CMP_EQ_OQ, _CMP_LE_OQ, _CMP_LT_OQ, _CMP_NEQ_UQ, _MM_HINT_T0,
};

use glam::Vec4;

use crate::lanes::{Simd, PACKET_WIDTH};

/// Asks the CPU to bring the cache lines that hold `values` into its caches ahead of their
/// use. A hint only: it reads nothing the program sees and changes no result.
#[inline(always)]
pub fn prefetch<T>(values: &[T]) {
    const LINE: usize = 64;
    let start = values.as_ptr().cast::<i8>();
    let bytes = core::mem::size_of_val(values);
    if bytes == 0 {
        return;
    }
    // From the line of the first byte to the line of the last.
    let lines = (start as usize % LINE + bytes - 1) / LINE + 1;
    for line in 0..lines {
        // SAFETY: a prefetch never faults, whatever the address, and SSE, which it needs, is
        // part of every x86-64 CPU. The addresses are those of `values`' lines, made without
        // dereferencing anything.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line * LINE)) };
    }
}

/// AVX2's eight lanes: a zero-sized proof that this CPU runs AVX2, made by [`Avx2::detect`]
/// (or, inside code compiled for AVX2, by [`Avx2::new_unchecked`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2(());

impl Avx2 {
    /// The proof, if this CPU (and the operating system) run AVX2 and the instructions that
    /// come with it (FMA, BMI1, BMI2, LZCNT, POPCNT: Intel Haswell and AMD Zen onwards), which
    /// code compiled for AVX2 may use: the one detection of AVX2 in meshcast.
    pub fn detect() -> Option<Self> {
        (is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("popcnt"))
        .then_some(Self(()))
    }

    /// The proof, unchecked.
    ///
    /// # Safety
    /// The CPU must run AVX2 and FMA.
    #[inline(always)]
    pub unsafe fn new_unchecked() -> Self {
        Self(())
    }
}

/// Defines a lane-by-lane operation of two operands as one intrinsic.
macro_rules! binary {
    ($name:ident, $intrinsic:expr) => {
        #[inline(always)]
        fn $name(self, a: __m256, b: __m256) -> __m256 {
            // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
            unsafe { $intrinsic(a, b) }
        }
    };
}

/// Defines a comparison as one compare and a move of the lanes' sign bits.
macro_rules! compare {
    ($name:ident, $predicate:ident) => {
        #[inline(always)]
        fn $name(self, a: __m256, b: __m256) -> u32 {
            // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
            unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<$predicate>(a, b)) as u32 }
        }
    };
}

impl Simd for Avx2 {
    type F32x8 = __m256;

    #[inline(always)]
    fn splat(self, value: f32) -> __m256 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe { _mm256_set1_ps(value) }
    }

    #[inline(always)]
    fn load(self, lanes: [f32; PACKET_WIDTH]) -> __m256 {
        // SAFETY: AVX2 as above; the load reads the array's eight `f32`s, unaligned.
        unsafe { _mm256_loadu_ps(lanes.as_ptr()) }
    }

    #[inline(always)]
    fn join(self, [low, high]: [Vec4; 2]) -> __m256 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe { _mm256_set_m128(high.into(), low.into()) }
    }

    #[inline(always)]
    fn to_array(self, v: __m256) -> [f32; PACKET_WIDTH] {
        let mut lanes = [0.0; PACKET_WIDTH];
        // SAFETY: AVX2 as above; the store writes the array's eight `f32`s, unaligned.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), v) };
        lanes
    }

    binary!(add, _mm256_add_ps);
    binary!(sub, _mm256_sub_ps);
    binary!(mul, _mm256_mul_ps);
    binary!(div, _mm256_div_ps);

    #[inline(always)]
    fn mul_add(self, a: __m256, b: __m256, c: __m256) -> __m256 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2 and FMA (`detect`).
        unsafe { _mm256_fmadd_ps(a, b, c) }
    }
    // `maxps` and `minps` return their second operand when the first is not larger (smaller),
    // NaN included: the rule `Simd` names.
    binary!(max, _mm256_max_ps);
    binary!(min, _mm256_min_ps);

    #[inline(always)]
    fn abs(self, a: __m256) -> __m256 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe { _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX))) }
    }

    compare!(lt, _CMP_LT_OQ);
    compare!(le, _CMP_LE_OQ);
    compare!(eq, _CMP_EQ_OQ);
    // Unordered: a NaN lane is unequal, as `!=` answers.
    compare!(ne, _CMP_NEQ_UQ);

    #[inline(always)]
    fn sign_bits(self, a: __m256) -> u32 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe { _mm256_movemask_ps(a) as u32 }
    }

    #[inline(always)]
    fn select(self, bits: u32, a: __m256, b: __m256) -> __m256 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe {
            let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            let set = _mm256_and_si256(_mm256_set1_epi32(bits as i32), lane_bits);
            let mask = _mm256_castsi256_ps(_mm256_cmpeq_epi32(set, lane_bits));
            _mm256_blendv_ps(b, a, mask)
        }
    }

    #[inline(always)]
    fn pair(self, v: __m256, a: usize, b: usize) -> __m256 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2. The permutation reads
        // the low three bits of each index, and `a` and `b` are lanes (below eight).
        unsafe {
            let index = _mm256_set_m128i(_mm_set1_epi32(b as i32), _mm_set1_epi32(a as i32));
            _mm256_permutevar8x32_ps(v, index)
        }
    }

    #[inline(always)]
    fn min_lane(self, a: __m256) -> f32 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe {
            let four = _mm_min_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps::<1>(a));
            let two = _mm_min_ps(four, _mm_movehl_ps(four, four));
            let one = _mm_min_ps(two, _mm_shuffle_ps::<0b01>(two, two));
            _mm_cvtss_f32(one)
        }
    }

    #[inline(always)]
    fn max_lane(self, a: __m256) -> f32 {
        // SAFETY: an `Avx2` value exists only on a CPU that runs AVX2.
        unsafe {
            let four = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps::<1>(a));
            let two = _mm_max_ps(four, _mm_movehl_ps(four, four));
            let one = _mm_max_ps(two, _mm_shuffle_ps::<0b01>(two, two));
            _mm_cvtss_f32(one)
        }
    }
}
