//! The x86-64 kernels: the eight boxes of a node in one 256-bit register, and the entry
//! points that compile a walk (a [`RayWalk`] or a [`PacketWalk`]) for AVX2 and for AVX-512.

use core::arch::x86_64::{
    __m256, _mm256_add_ps, _mm256_cmp_ps, _mm256_load_ps, _mm256_max_ps, _mm256_min_ps,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_storeu_ps, _mm256_sub_ps, _CMP_LE_OQ,
};

use meshcast_primitives::{Hit, Ray, RayPacket};

use crate::contracts::{NodeKernel, PacketWalk, Plane, RaySetup, RayWalk};
use crate::wide::WideNode;

/// Whether the CPU (and the operating system) run the AVX2 kernel.
pub(super) fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("lzcnt")
        && is_x86_feature_detected!("popcnt")
}

/// Whether the CPU (and the operating system) run the AVX-512 kernel.
pub(super) fn has_avx512() -> bool {
    has_avx2()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512dq")
}

/// Defines a traversal entry point: a [`RayWalk`] with the [`Avx2`] node test, compiled with
/// `$features` enabled.
macro_rules! walk_compiled_for {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) fn $name<W: RayWalk>(
            tree: &W::Tree,
            ray: &Ray,
            leaf: &mut W::Leaf,
            counters: &mut W::Counters,
        ) -> Option<Hit> {
            // SAFETY: this function runs only where the CPU has AVX2 (its callers check the
            // kernel with `is_supported`), which is what `Avx2::new_unchecked` requires.
            let simd = unsafe { meshcast_primitives::Avx2::new_unchecked() };
            W::run::<Avx2, _>(simd, tree, ray, leaf, counters)
        }
    };
}

walk_compiled_for!(
    /// The traversal loop with AVX2 enabled.
    walk_avx2,
    "avx2,bmi1,bmi2,lzcnt,popcnt"
);

walk_compiled_for!(
    /// The traversal loop with AVX-512 enabled (the same node test; the compiler gets 32
    /// vector registers and mask compares for the leaf test and the child ordering).
    walk_avx512,
    "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq"
);

/// Defines a packet walk entry point: a [`PacketWalk`] in AVX2's eight lanes, compiled with
/// `$features` enabled, so that the lanes' intrinsics (node tests and the caller's leaf
/// test) are inlined.
macro_rules! walk_packets_compiled_for {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) fn $name<W: PacketWalk<H>, const H: usize>(
            tree: &W::Tree,
            rays: [&RayPacket; H],
            lanes: [u32; H],
            leaves: &mut [W::Leaves; H],
        ) -> [u32; H] {
            // SAFETY: this function runs only where the CPU has AVX2 (its callers check the
            // kernel with `is_supported`), which is what `Avx2::new_unchecked` requires.
            let simd = unsafe { meshcast_primitives::Avx2::new_unchecked() };
            W::run(simd, tree, rays, lanes, leaves)
        }
    };
}

walk_packets_compiled_for!(
    /// The packet walk with AVX2 enabled: eight rays in one 256-bit register.
    walk_packets_avx2,
    "avx2,bmi1,bmi2,lzcnt,popcnt"
);

walk_packets_compiled_for!(
    /// The packet walk with AVX-512 enabled.
    walk_packets_avx512,
    "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq"
);

/// The eight-lane kernel; only reached through [`walk_avx2`] and [`walk_avx512`].
pub(super) struct Avx2;

/// A ray splatted over eight lanes.
pub(super) struct Avx2Ray {
    origin: [__m256; 3],
    inv_dir: [__m256; 3],
    slack: __m256,
    t_min: __m256,
    near: [Plane; 3],
    far: [Plane; 3],
}

impl NodeKernel for Avx2 {
    type Ray = Avx2Ray;

    #[inline(always)]
    fn prepare(setup: &RaySetup) -> Avx2Ray {
        // SAFETY: `Avx2` is only used inside `walk_avx2` and `walk_avx512`, which run only once
        // the CPU was found to have AVX2.
        unsafe { prepare(setup) }
    }

    #[inline(always)]
    fn test(ray: &Avx2Ray, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
        // SAFETY: as in `prepare`.
        unsafe { test(ray, node, t_max) }
    }
}

#[target_feature(enable = "avx2")]
#[inline]
fn prepare(setup: &RaySetup) -> Avx2Ray {
    Avx2Ray {
        origin: [0, 1, 2].map(|a| _mm256_set1_ps(setup.origin[a])),
        inv_dir: [0, 1, 2].map(|a| _mm256_set1_ps(setup.inv_dir[a])),
        slack: _mm256_set1_ps(setup.slack),
        t_min: _mm256_set1_ps(setup.t_min),
        near: setup.near,
        far: setup.far,
    }
}

/// The portable kernel's arithmetic on eight lanes at once: `_mm256_max_ps` and
/// `_mm256_min_ps` return their second operand when the first is NaN, as SSE's do, which is
/// the rule the portable kernel relies on.
#[target_feature(enable = "avx2")]
#[inline]
fn test(ray: &Avx2Ray, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
    let plane = |p: Plane| {
        let lanes = &node.planes[p as usize];
        // SAFETY: a plane is two `Vec4`s, eight consecutive `f32`s, and starts 32-byte aligned
        // (`WideNode` is 64-byte aligned and every plane is 32 bytes long).
        unsafe { _mm256_load_ps(lanes.as_ptr().cast::<f32>()) }
    };
    let [ox, oy, oz] = ray.origin;
    let [ix, iy, iz] = ray.inv_dir;
    let near_x = _mm256_mul_ps(_mm256_sub_ps(plane(ray.near[0]), ox), ix);
    let near_y = _mm256_mul_ps(_mm256_sub_ps(plane(ray.near[1]), oy), iy);
    let near_z = _mm256_mul_ps(_mm256_sub_ps(plane(ray.near[2]), oz), iz);
    let far_x = _mm256_mul_ps(_mm256_sub_ps(plane(ray.far[0]), ox), ix);
    let far_y = _mm256_mul_ps(_mm256_sub_ps(plane(ray.far[1]), oy), iy);
    let far_z = _mm256_mul_ps(_mm256_sub_ps(plane(ray.far[2]), oz), iz);
    let near = _mm256_max_ps(
        near_x,
        _mm256_max_ps(
            near_y,
            _mm256_max_ps(near_z, _mm256_set1_ps(f32::NEG_INFINITY)),
        ),
    );
    let far = _mm256_min_ps(
        far_x,
        _mm256_min_ps(far_y, _mm256_min_ps(far_z, _mm256_set1_ps(f32::INFINITY))),
    );
    let entry = _mm256_max_ps(_mm256_sub_ps(near, ray.slack), ray.t_min);
    let exit = _mm256_min_ps(_mm256_add_ps(far, ray.slack), _mm256_set1_ps(t_max));
    let hit = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(entry, exit)) as u32;
    let mut entries = [0.0f32; 8];
    // SAFETY: `entries` is eight `f32`s; the store is unaligned.
    unsafe { _mm256_storeu_ps(entries.as_mut_ptr(), entry) };
    (hit, entries)
}

/// The node test on its own, for the tests that compare kernels lane by lane.
///
/// # Safety
/// The CPU must run AVX2 ([`has_avx2`]).
#[cfg(test)]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn test_node(setup: &RaySetup, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
    test(&prepare(setup), node, t_max)
}
