//! The x86-64 entry points: the functions that compile a walk (a [`RayWalk`] or a
//! [`PacketWalk`]) in AVX2's eight lanes, with AVX2 and with AVX-512 enabled.

use meshcast_primitives::{Ray, RayPacket};

use crate::contracts::{PacketWalk, RayWalk};

/// Whether the CPU (and the operating system) run the AVX2 kernel: the one detection of
/// AVX2, [`meshcast_primitives::Avx2::detect`].
pub(super) fn has_avx2() -> bool {
    meshcast_primitives::Avx2::detect().is_some()
}

/// Whether the CPU (and the operating system) run the AVX-512 kernel.
pub(super) fn has_avx512() -> bool {
    has_avx2()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512dq")
}

/// Defines a traversal entry point: a [`RayWalk`] in AVX2's eight lanes, compiled with
/// `$features` enabled, so that the lanes' intrinsics (node tests and the caller's leaf test)
/// are inlined.
macro_rules! walk_compiled_for {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) fn $name<W: RayWalk>(
            tree: &W::Tree,
            ray: &Ray,
            leaf: &mut W::Leaf,
            counters: &mut W::Counters,
        ) -> W::Found {
            // SAFETY: this function runs only where the CPU has AVX2 and FMA (its callers
            // check the kernel with `is_supported`), which is what `Avx2::new_unchecked`
            // requires.
            let simd = unsafe { meshcast_primitives::Avx2::new_unchecked() };
            W::run(simd, tree, ray, leaf, counters)
        }
    };
}

walk_compiled_for!(
    /// The traversal loop with AVX2 enabled.
    walk_avx2,
    "avx2,fma,bmi1,bmi2,lzcnt,popcnt"
);

walk_compiled_for!(
    /// The traversal loop with AVX-512 enabled (the same eight lanes; the compiler gets 32
    /// vector registers and mask compares for the leaf test and the child ordering).
    walk_avx512,
    "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq"
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
            // SAFETY: this function runs only where the CPU has AVX2 and FMA (its callers
            // check the kernel with `is_supported`), which is what `Avx2::new_unchecked`
            // requires.
            let simd = unsafe { meshcast_primitives::Avx2::new_unchecked() };
            W::run(simd, tree, rays, lanes, leaves)
        }
    };
}

walk_packets_compiled_for!(
    /// The packet walk with AVX2 enabled: eight rays in one 256-bit register.
    walk_packets_avx2,
    "avx2,fma,bmi1,bmi2,lzcnt,popcnt"
);

walk_packets_compiled_for!(
    /// The packet walk with AVX-512 enabled.
    walk_packets_avx512,
    "avx2,fma,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512bw,avx512dq"
);
