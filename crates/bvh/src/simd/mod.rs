//! Node kernels: the slab test of one ray against the eight boxes of a [`crate::WideNode`],
//! written once over lanes and compiled for each instruction set, and the run-time choice
//! between them.
//!
//! A plain `cargo build --release` targets baseline x86-64 (SSE2), so the AVX2 and AVX-512
//! kernels are chosen at run time, as Embree and tinybvh ship theirs: [`Kernel::preferred`]
//! detects the CPU once, and each [`crate::WideBvh`] keeps its kernel. The dispatches
//! ([`dispatch`], [`dispatch_packets`]) are handed a walk written over the contracts (a [`RayWalk`]
//! or a [`PacketWalk`]) and instantiate it, loop and leaf test included, inside a function
//! compiled with the kernel's instruction set enabled, so the caller's leaf test (inlined into
//! it) gets the wider encoding too.
//!
//! Each node test is written once (`node_test.rs`: [`LaneRay`], [`FusedLaneRay`]) over the
//! eight lanes of [`meshcast_primitives::Simd`], the one lane vocabulary of the project: the
//! portable walk runs it in two glam `Vec4`s, the x86 walks (`x86.rs`) in one AVX2 register.
//! The plain test answers bit for bit in every instruction set what scalar code answers: the
//! same operations in the same order, no fused multiply-add, the same NaN rules. The fused
//! test rounds once per plane where the instruction set fuses and twice where it does not;
//! its widening covers either, so every instruction set keeps every box a ray enters.
//!
//! The simd room: uses only the contracts (`contracts.rs`: `RaySetup`, `Plane`, [`RayWalk`],
//! [`PacketWalk`]) and the node layout (`layout.rs`); it knows nothing of the trees and their
//! walks (`wide/`), which are above it. This module holds the crate's only `unsafe` code: the calls into the functions
//! compiled for an instruction set the CPU was checked to have, and the proofs of AVX2 made
//! inside them.

use core::fmt;
use std::sync::OnceLock;

use meshcast_primitives::{Ray, RayPacket};

use crate::contracts::{PacketWalk, RayWalk};

mod node_test;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use node_test::{FusedLaneRay, LaneRay, NodeTest};

/// The environment variable that forces a kernel ([`Kernel::preferred`]): `portable`, `avx2`
/// or `avx512`.
pub const KERNEL_ENV: &str = "MESHCAST_KERNEL";

/// An instruction set the traversal is compiled for.
///
/// # Examples
/// ```
/// use meshcast_bvh::Kernel;
///
/// assert!(Kernel::Portable.is_supported());
/// assert!(Kernel::preferred().is_supported());
/// assert!(Kernel::supported().contains(&Kernel::preferred()));
/// assert_eq!("avx2".parse::<Kernel>(), Ok(Kernel::Avx2));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// glam's four-lane `Vec4` code: SSE2 on x86-64, NEON on aarch64, scalar elsewhere.
    /// Runs everywhere.
    #[default]
    Portable,
    /// Eight boxes in one 256-bit register (x86-64 with AVX2, FMA, BMI1, BMI2, LZCNT and POPCNT:
    /// Intel Haswell and AMD Zen onwards).
    Avx2,
    /// The AVX2 kernel with AVX-512 (F, VL, BW, DQ) enabled: 32 vector registers and mask
    /// registers for the compares (Intel Skylake-SP, AMD Zen 4 onwards). Used only when asked
    /// for ([`Kernel::fastest`] says why).
    Avx512,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 3] = [Kernel::Portable, Kernel::Avx2, Kernel::Avx512];

    /// Whether this CPU can run the kernel.
    pub fn is_supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => x86::has_avx512(),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2 | Kernel::Avx512 => false,
        }
    }

    /// The kernels this CPU can run.
    pub fn supported() -> Vec<Kernel> {
        Self::ALL.into_iter().filter(|k| k.is_supported()).collect()
    }

    /// The fastest kernel this CPU can run: AVX2 where there is AVX2, else the portable one.
    ///
    /// AVX-512 is not chosen unless asked for: measured on an AMD EPYC (Zen 4) against AVX2 on
    /// the bunny, one thread, best of five, it traced random rays 2-9% faster and camera rays
    /// 2-5% slower, and on Intel CPUs 512-bit code can lower the clock.
    pub fn fastest() -> Kernel {
        if Kernel::Avx2.is_supported() {
            Kernel::Avx2
        } else {
            Kernel::Portable
        }
    }

    /// The kernel new hierarchies use: the one named by the environment variable
    /// [`KERNEL_ENV`] if it is set to a kernel this CPU supports, otherwise
    /// [`Kernel::fastest`]. Decided once per process.
    pub fn preferred() -> Kernel {
        static PREFERRED: OnceLock<Kernel> = OnceLock::new();
        *PREFERRED.get_or_init(|| {
            std::env::var(KERNEL_ENV)
                .ok()
                .and_then(|name| name.parse::<Kernel>().ok())
                .filter(|k| k.is_supported())
                .unwrap_or_else(Kernel::fastest)
        })
    }

    /// The kernel's name, as [`Kernel::from_str`](core::str::FromStr) reads it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Kernel`] name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown kernel `{0}` (expected portable, avx2 or avx512)")]
pub struct UnknownKernel(pub String);

impl core::str::FromStr for Kernel {
    type Err = UnknownKernel;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| UnknownKernel(name.to_string()))
    }
}

/// A [`Kernel`] this CPU was checked to run: what a [`crate::WideBvh`] keeps and what the
/// dispatches ([`dispatch`], [`dispatch_packets`]) take, so that calling into a kernel's instruction
/// set is sound wherever the value came from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct SupportedKernel(Kernel);

impl SupportedKernel {
    /// The portable kernel, which runs everywhere.
    pub(crate) const PORTABLE: Self = Self(Kernel::Portable);

    /// `kernel`, if this CPU runs it ([`Kernel::is_supported`]).
    pub(crate) fn new(kernel: Kernel) -> Option<Self> {
        kernel.is_supported().then_some(Self(kernel))
    }

    /// [`Kernel::preferred`], which is always supported.
    pub(crate) fn preferred() -> Self {
        Self(Kernel::preferred())
    }

    /// The kernel.
    pub(crate) fn kernel(self) -> Kernel {
        self.0
    }
}

impl Default for SupportedKernel {
    fn default() -> Self {
        Self::PORTABLE
    }
}

/// Debug-printed as the kernel itself, as the field of [`crate::WideBvh`] it replaced was.
impl fmt::Debug for SupportedKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Runs walk `W` with `kernel`'s node test, compiled for its instruction set: the walk, loop
/// and leaf test included, is instantiated inside the kernel's `#[target_feature]` function.
/// A tree too deep for `W`'s stack (`deep`) runs walk `D` instead, its heap stack in the
/// portable lanes. The dispatch tier of a ray's road, between the tree's walk and the
/// kernel's entry.
#[inline(always)]
pub(crate) fn dispatch<W, D>(
    kernel: SupportedKernel,
    deep: bool,
    tree: &W::Tree,
    ray: &Ray,
    leaf: &mut W::Leaf,
    counters: &mut W::Counters,
) -> W::Found
where
    W: RayWalk,
    D: RayWalk<Tree = W::Tree, Leaf = W::Leaf, Found = W::Found, Counters = W::Counters>,
{
    if deep {
        return walk_portable::<D>(tree, ray, leaf, counters);
    }
    match kernel.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `SupportedKernel` holds only a kernel that `is_supported` confirmed this
        // CPU runs (`SupportedKernel::new`, `Kernel::preferred`).
        Kernel::Avx2 => unsafe { x86::walk_avx2::<W>(tree, ray, leaf, counters) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx512 => unsafe { x86::walk_avx512::<W>(tree, ray, leaf, counters) },
        _ => walk_portable::<W>(tree, ray, leaf, counters),
    }
}

/// Walk `W` in the portable lanes, out of line as the instruction sets' entry points are:
/// inlined, its loop made every caller of [`dispatch`] a large function that saved six registers
/// and copied the ray's leaf query around a 2.7 KB frame on every ray, whatever the kernel.
#[inline(never)]
fn walk_portable<W: RayWalk>(
    tree: &W::Tree,
    ray: &Ray,
    leaf: &mut W::Leaf,
    counters: &mut W::Counters,
) -> W::Found {
    W::run(meshcast_primitives::Portable, tree, ray, leaf, counters)
}

/// Runs packet walk `W` in the lanes of `kernel`'s instruction set (eight lanes,
/// [`meshcast_primitives::Simd`]), compiled for that instruction set.
#[inline(always)]
pub(crate) fn dispatch_packets<W: PacketWalk<H>, const H: usize>(
    kernel: SupportedKernel,
    tree: &W::Tree,
    rays: [&RayPacket; H],
    lanes: [u32; H],
    leaves: &mut [W::Leaves; H],
) -> [u32; H] {
    match kernel.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `SupportedKernel` holds only a kernel that `is_supported` confirmed this
        // CPU runs (`SupportedKernel::new`, `Kernel::preferred`).
        Kernel::Avx2 => unsafe { x86::walk_packets_avx2::<W, H>(tree, rays, lanes, leaves) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx512 => unsafe { x86::walk_packets_avx512::<W, H>(tree, rays, lanes, leaves) },
        _ => W::run(meshcast_primitives::Portable, tree, rays, lanes, leaves),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::{Plane, RaySetup};
    use crate::layout::WideNode;
    use glam::Vec3;
    use meshcast_primitives::Aabb;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Tests `node` against `ray` in the lanes of `kernel`'s instruction set (which this CPU
    /// must run): the node test alone, so that tests can compare instruction sets lane by lane.
    fn test_with(
        kernel: Kernel,
        ray: &Ray,
        bounds: &Aabb,
        node: &WideNode,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        let setup = RaySetup::new(ray, bounds);
        match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 | Kernel::Avx512 => {
                let avx2 = meshcast_primitives::Avx2::detect().expect("a supported kernel");
                LaneRay::new(avx2, &setup).test(node, t_max)
            }
            _ => LaneRay::new(meshcast_primitives::Portable, &setup).test(node, t_max),
        }
    }

    /// The node test one lane at a time in scalar `f32`: the reference every instruction set
    /// must answer. `max` and `min` take SSE's rule (the second operand when the first is
    /// NaN), which drops the NaN of an axis-parallel ray's `0 * inf`.
    fn test_scalar(ray: &Ray, bounds: &Aabb, node: &WideNode, t_max: f32) -> (u32, [f32; 8]) {
        let setup = RaySetup::new(ray, bounds);
        let max = |a: f32, b: f32| if a > b { a } else { b };
        let min = |a: f32, b: f32| if a < b { a } else { b };
        let (mut mask, mut entries) = (0, [0.0; 8]);
        for (lane, entry) in entries.iter_mut().enumerate() {
            let plane = |p: Plane| node.planes[p as usize][lane / 4][lane % 4];
            let o = setup.origin.to_array();
            let inv = setup.inv_dir.to_array();
            let slab = |a: usize, p: Plane| (plane(p) - o[a]) * inv[a];
            let near = (0..3)
                .rev()
                .fold(f32::NEG_INFINITY, |acc, a| max(slab(a, setup.near[a]), acc));
            let far = (0..3)
                .rev()
                .fold(f32::INFINITY, |acc, a| min(slab(a, setup.far[a]), acc));
            *entry = max(near - setup.slack, setup.t_min);
            let exit = min(far + setup.slack, t_max);
            mask |= u32::from(*entry <= exit) << lane;
        }
        (mask, entries)
    }

    /// Seeded floats in `[0, 1)`, points in a cube and directions.
    struct Random(Pcg64);

    impl Random {
        fn next(&mut self) -> f32 {
            self.0.gen()
        }

        fn point(&mut self, scale: f32) -> Vec3 {
            Vec3::new(self.next(), self.next(), self.next()) * 2.0 * scale - scale
        }

        /// A node of boxes around `centre`, `scale` wide, some empty and some flat (which
        /// axis-parallel rays meet on their plane), and the box around them.
        fn node(&mut self, centre: Vec3, scale: f32) -> (WideNode, Aabb) {
            let mut node = WideNode::EMPTY;
            let mut bounds = Aabb::EMPTY;
            for lane in 0..8 {
                match (self.next() * 6.0) as u32 {
                    0 => continue, // an empty lane
                    1 => {
                        let p = centre + self.point(scale);
                        let q = p + Vec3::new(self.next() * scale, 0.0, self.next() * scale);
                        node.set_bounds(lane, Aabb::new(p.min(q), p.max(q)));
                    }
                    _ => {
                        let (p, q) = (centre + self.point(scale), centre + self.point(scale));
                        node.set_bounds(lane, Aabb::new(p.min(q), p.max(q)));
                    }
                }
                bounds = bounds.union(node.bounds(lane));
            }
            (node, bounds)
        }

        /// A direction with, now and then, zero components of either sign.
        fn direction(&mut self) -> Vec3 {
            let mut d = self.point(1.0);
            for axis in 0..3 {
                match (self.next() * 8.0) as u32 {
                    0 => d[axis] = 0.0,
                    1 => d[axis] = -0.0,
                    _ => {}
                }
            }
            if d == Vec3::ZERO {
                Vec3::X
            } else {
                d
            }
        }
    }

    #[test]
    fn every_instruction_set_answers_what_scalar_code_answers() {
        let mut rng = Random(Pcg64::seed_from_u64(0x2545_f491_4f6c_dd1d));
        let kernels = Kernel::supported();
        let (mut compared, mut entered) = (0, 0);
        for round in 0..20_000 {
            let scale = [1.0, 1e-3, 1e5, 3e7][round % 4];
            let centre = rng.point(scale) + Vec3::splat([0.0, 1e6, -4e4, 0.0][round % 4]);
            let (node, bounds) = rng.node(centre, scale);
            let origin = match round % 3 {
                0 => centre + rng.point(3.0 * scale),
                // On a box's corner plane.
                1 => node
                    .bounds((round / 3) % 8)
                    .min
                    .max(centre - Vec3::splat(scale)),
                _ => centre,
            };
            let mut ray = Ray::new(origin, rng.direction() * [1.0, 1e-20, 1e20][round % 3]);
            if round % 5 == 0 {
                ray = ray.with_range(-rng.next() * scale, rng.next() * 4.0 * scale);
            }
            if !ray.is_valid() || bounds.is_empty() {
                continue;
            }
            let t_max = [ray.t_max, rng.next() * scale][round % 2];
            let expected = test_scalar(&ray, &bounds, &node, t_max);
            compared += 1;
            entered += expected.0.count_ones();
            for &kernel in &kernels {
                let (mask, entries) = test_with(kernel, &ray, &bounds, &node, t_max);
                assert_eq!(mask, expected.0, "{kernel}: round {round}, {ray:?}");
                for (lane, (entry, expected)) in entries.iter().zip(expected.1).enumerate() {
                    if mask & (1 << lane) != 0 {
                        assert_eq!(
                            entry.to_bits(),
                            expected.to_bits(),
                            "{kernel}: round {round}, lane {lane}, {ray:?}"
                        );
                    }
                }
            }
        }
        // The input must exercise the test: most rounds compared, many boxes entered.
        assert!(
            compared > 15_000 && entered > 10_000,
            "{compared} {entered}"
        );
    }

    /// The fused node test in the lanes of `kernel`, if it serves `ray`.
    fn fused_with(
        kernel: Kernel,
        ray: &Ray,
        bounds: &Aabb,
        node: &WideNode,
        t_max: f32,
    ) -> Option<(u32, [f32; 8])> {
        let setup = RaySetup::new(ray, bounds);
        if !setup.fused {
            return None;
        }
        Some(match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 | Kernel::Avx512 => {
                let avx2 = meshcast_primitives::Avx2::detect().expect("a supported kernel");
                FusedLaneRay::new(avx2, &setup).test(node, t_max)
            }
            _ => FusedLaneRay::new(meshcast_primitives::Portable, &setup).test(node, t_max),
        })
    }

    /// The lanes of `node` the ray enters within `[t_min, t_max]`, and their entries, in
    /// `f64` (all but exact for `f32` input) with no widening: what every node test must
    /// keep. For rays with no zero component; an empty lane is never entered.
    fn test_exact(ray: &Ray, node: &WideNode, t_max: f32) -> (u32, [f64; 8]) {
        let (mut mask, mut entries) = (0, [0.0; 8]);
        for (lane, entry) in entries.iter_mut().enumerate() {
            let (mut near, mut far) = (f64::from(ray.t_min), f64::from(t_max));
            for axis in 0..3 {
                let slab = |plane: usize| {
                    let p = f64::from(node.planes[plane][lane / 4][lane % 4]);
                    (p - f64::from(ray.origin[axis])) / f64::from(ray.dir[axis])
                };
                let (a, b) = (slab(axis), slab(axis + 3));
                near = near.max(a.min(b));
                far = far.min(a.max(b));
            }
            *entry = near;
            mask |= u32::from(near <= far && !node.bounds(lane).is_empty()) << lane;
        }
        (mask, entries)
    }

    #[test]
    fn the_fused_test_keeps_every_box_the_ray_enters() {
        let mut rng = Random(Pcg64::seed_from_u64(0x9e37_79b9_7f4a_7c15));
        let (mut compared, mut entered) = (0, 0);
        for round in 0..20_000 {
            let scale = [1.0, 1e-3, 1e5, 3e7, 1e-30][round % 5];
            let centre = rng.point(scale) + Vec3::splat([0.0, 1e6, -4e4, 0.0, 2.0][round % 5]);
            let (node, bounds) = rng.node(centre, scale);
            if bounds.is_empty() {
                continue;
            }
            // Origins near the boxes and on their planes, or far from them; directions
            // of every size, some aimed at a box's corner, so that the ray grazes it.
            let lane = (round / 3) % 8;
            let origin = match round % 4 {
                0 => centre + rng.point(3.0 * scale),
                1 => node.bounds(lane).min.max(centre - Vec3::splat(scale)),
                2 => centre + rng.point(1e4 * scale),
                _ => centre,
            };
            let mut dir = rng.point(1.0) * [1.0, 1e-20, 1e20, 1e-3][round % 4];
            if round % 7 == 0 && !node.bounds(lane).is_empty() {
                dir = node.bounds(lane).max - origin;
            }
            let mut ray = Ray::new(origin, dir);
            if round % 5 == 0 {
                ray = ray.with_range(-rng.next() * scale, rng.next() * 4.0 * scale);
            }
            if !ray.is_valid() || ray.dir.cmpeq(Vec3::ZERO).any() {
                continue;
            }
            let t_max = [ray.t_max, rng.next() * scale][round % 2];
            let (exact, exact_entries) = test_exact(&ray, &node, t_max);
            for kernel in Kernel::supported() {
                let Some((mask, entries)) = fused_with(kernel, &ray, &bounds, &node, t_max) else {
                    continue;
                };
                compared += 1;
                entered += exact.count_ones();
                assert_eq!(mask & exact, exact, "{kernel}: round {round}, {ray:?}");
                for lane in 0..8 {
                    if exact & (1 << lane) != 0 {
                        assert!(
                            f64::from(entries[lane]) <= exact_entries[lane],
                            "{kernel}: round {round}, lane {lane}, {ray:?}"
                        );
                    }
                }
            }
        }
        assert!(compared > 15_000 && entered > 5_000, "{compared} {entered}");
    }

    #[test]
    fn names_read_back_and_unknown_names_are_errors() {
        for kernel in Kernel::ALL {
            assert_eq!(kernel.name().parse::<Kernel>(), Ok(kernel));
            assert_eq!(kernel.to_string(), kernel.name());
        }
        assert_eq!(" AVX2 ".parse::<Kernel>(), Ok(Kernel::Avx2));
        assert!("sse9".parse::<Kernel>().is_err());
    }
}
