//! Node kernels: the slab test of one ray against the eight boxes of a [`WideNode`], once per
//! instruction set, and the run-time choice between them.
//!
//! A plain `cargo build --release` targets baseline x86-64 (SSE2), so the AVX2 and AVX-512
//! kernels are chosen at run time, as Embree and tinybvh ship theirs: [`Kernel::preferred`]
//! detects the CPU once, and each [`crate::WideBvh`] keeps its kernel. The whole traversal
//! loop, leaf closure included, is compiled once per kernel with that kernel's instruction
//! set enabled, so the caller's leaf test (inlined into it) gets the wider encoding too.
//!
//! Every kernel answers bit for bit what the portable one answers: the same operations in the
//! same order, no fused multiply-add, the same NaN rules. This module holds the crate's only
//! `unsafe` code: the aligned loads of the x86 kernels, the calls into the functions
//! compiled for an instruction set the CPU was checked to have.

use core::fmt;
use std::sync::OnceLock;

use glam::{Vec3, Vec4};
use meshcast_primitives::{Aabb, Hit, Ray, RayPacket, SLAB_SLACK};

use crate::wide_node::WideNode;
use crate::wide_packet::PacketLeaves;
use crate::wide_traverse::{Counters, LeafIntersector, TraversalStack};
use crate::WideBvh;

mod portable;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use portable::Portable;

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
    /// Eight boxes in one 256-bit register (x86-64 with AVX2, BMI1, BMI2, LZCNT and POPCNT:
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

/// What every kernel's per-ray set-up is made from: the origin, the reciprocal direction, the
/// widening and the near and far plane of each axis.
pub(crate) struct RaySetup {
    pub(crate) origin: Vec3,
    pub(crate) inv_dir: Vec3,
    /// [`meshcast_primitives::slab_slack`] of the root box: every node lies in the root, so
    /// one absolute widening, computed once per ray, serves them all.
    pub(crate) slack: f32,
    pub(crate) t_min: f32,
    pub(crate) near: [Plane; 3],
    pub(crate) far: [Plane; 3],
}

impl RaySetup {
    /// The set-up of `ray` in a hierarchy whose root box is `bounds`.
    #[inline(always)]
    pub(crate) fn new(ray: &Ray, bounds: &Aabb) -> Self {
        // `slab_slack`'s arithmetic, with its division in the same SIMD division as the
        // reciprocal direction: one division instruction per ray instead of four, and the
        // same quotients, each correctly rounded.
        let axis = ray.dir.abs().max_position();
        let reach = (bounds.min[axis] - ray.origin[axis])
            .abs()
            .max((bounds.max[axis] - ray.origin[axis]).abs());
        let d = ray.dir;
        let quotients = Vec4::new(1.0, 1.0, 1.0, reach) / Vec4::new(d.x, d.y, d.z, d[axis].abs());
        let (near, far) = near_far_planes(ray);
        Self {
            origin: ray.origin,
            inv_dir: quotients.truncate(),
            // Kept finite: an infinite slack (a far origin, a tiny direction) would widen the
            // empty lanes' inverted boxes (`+inf` to `-inf`) into `inf - inf`, a NaN that
            // passes the test, and the walk would enter a lane that holds nothing. The largest
            // finite slack still widens every real box past any finite `t`.
            slack: (quotients.w * SLAB_SLACK).min(f32::MAX),
            t_min: ray.t_min,
            near,
            far,
        }
    }
}

/// A ray set up once for the slab tests of one kernel.
pub(crate) trait NodeKernel {
    /// The per-ray set-up.
    type Ray;

    /// The kernel's form of `setup`.
    fn prepare(setup: &RaySetup) -> Self::Ray;

    /// The lanes of `node` whose box the ray enters within `[t_min, t_max]`, as bits, and
    /// every lane's entry distance (meaningful for those lanes only).
    ///
    /// The slab test of Kay and Kajiya (1986), with each axis's near plane chosen by the sign
    /// of the direction (which also makes the empty lanes, `min = +inf` and `max = -inf`,
    /// miss), the `0 * inf` of an axis-parallel ray on a slab plane counted as inside that
    /// slab, and the range widened by the ray's slack so that no box holding a hit is culled
    /// (Ize, *Robust BVH Ray Traversal*, 2013).
    fn test(ray: &Self::Ray, node: &WideNode, t_max: f32) -> (u32, [f32; 8]);
}

/// For each axis, the index in [`WideNode`]'s planes of the plane a ray along `dir` meets first
/// (the minimum for a positive component, the maximum for a negative one, `-0.0` included),
/// and of the plane it leaves by.
#[inline(always)]
pub(crate) fn near_far_planes(ray: &Ray) -> ([Plane; 3], [Plane; 3]) {
    let near = |axis: usize| Plane::of(axis, ray.dir[axis].is_sign_negative());
    let far = |axis: usize| Plane::of(axis, !ray.dir[axis].is_sign_negative());
    ([near(0), near(1), near(2)], [far(0), far(1), far(2)])
}

/// One of the six planes of a [`WideNode`], in its storage order; as an enum, indexing the
/// planes with it needs no bounds check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Plane {
    MinX,
    MinY,
    MinZ,
    MaxX,
    MaxY,
    MaxZ,
}

impl Plane {
    #[inline(always)]
    fn of(axis: usize, max: bool) -> Self {
        const PLANES: [Plane; 6] = [
            Plane::MinX,
            Plane::MinY,
            Plane::MinZ,
            Plane::MaxX,
            Plane::MaxY,
            Plane::MaxZ,
        ];
        PLANES[(axis + 3 * usize::from(max)) % 6]
    }
}

/// Runs the traversal loop of `bvh` compiled for its kernel.
#[inline(always)]
pub(crate) fn walk<S, C, L, const ANY: bool>(
    bvh: &WideBvh,
    ray: &Ray,
    leaf: &mut L,
    counters: &mut C,
) -> Option<Hit>
where
    S: TraversalStack,
    C: Counters,
    L: LeafIntersector,
{
    match bvh.kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a hierarchy's kernel is only set to one that `is_supported` confirmed this
        // CPU runs (`WideBvh::from_binary`, `WideBvh::set_kernel`).
        Kernel::Avx2 => unsafe { x86::walk_avx2::<S, C, L, ANY>(bvh, ray, leaf, counters) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx512 => unsafe { x86::walk_avx512::<S, C, L, ANY>(bvh, ray, leaf, counters) },
        _ => bvh.walk::<Portable, S, C, L, ANY>(ray, leaf, counters),
    }
}

/// Runs the packet walk of `bvh` ([`WideBvh::split_packets`]) compiled for its kernel's
/// instruction set, with that instruction set's eight lanes ([`meshcast_primitives::Simd`]).
#[inline(always)]
pub(crate) fn split_packets<S, L, const ANY: bool, const H: usize>(
    bvh: &WideBvh,
    rays: [&RayPacket; H],
    lanes: [u32; H],
    leaves: &mut [L; H],
) -> [u32; H]
where
    S: TraversalStack,
    L: PacketLeaves,
{
    match bvh.kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a hierarchy's kernel is only set to one that `is_supported` confirmed this
        // CPU runs (`WideBvh::from_binary`, `WideBvh::set_kernel`).
        Kernel::Avx2 => unsafe {
            x86::split_packets_avx2::<S, L, ANY, H>(bvh, rays, lanes, leaves)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Kernel::Avx512 => unsafe {
            x86::split_packets_avx512::<S, L, ANY, H>(bvh, rays, lanes, leaves)
        },
        _ => bvh.split_packets::<meshcast_primitives::Portable, S, L, ANY, H>(
            meshcast_primitives::Portable,
            rays,
            lanes,
            leaves,
        ),
    }
}

/// Tests `node` against `ray` with `kernel` (which this CPU must run): the node test alone, so
/// that tests can compare kernels lane by lane.
#[cfg(test)]
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
        // SAFETY: the caller only passes kernels that `is_supported` confirmed.
        Kernel::Avx2 | Kernel::Avx512 => unsafe { x86::test_node(&setup, node, t_max) },
        _ => Portable::test(&Portable::prepare(&setup), node, t_max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Seeded floats in `[0, 1)`, points in a cube and directions.
    struct Random(Pcg64);

    impl Random {
        fn next(&mut self) -> f32 {
            self.0.gen()
        }

        fn point(&mut self, scale: f32) -> Vec3 {
            Vec3::new(self.next(), self.next(), self.next()) * 2.0 * scale - scale
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
    fn every_kernel_answers_what_the_portable_one_answers() {
        let mut rng = Random(Pcg64::seed_from_u64(0x2545_f491_4f6c_dd1d));
        let kernels = Kernel::supported();
        let (mut compared, mut entered) = (0, 0);
        for round in 0..20_000 {
            let scale = [1.0, 1e-3, 1e5, 3e7][round % 4];
            let centre = rng.point(scale) + Vec3::splat([0.0, 1e6, -4e4, 0.0][round % 4]);
            let mut node = WideNode::EMPTY;
            let mut bounds = Aabb::EMPTY;
            for lane in 0..8 {
                match (rng.next() * 6.0) as u32 {
                    0 => continue, // an empty lane
                    1 => {
                        // A flat box, which axis-parallel rays meet on its plane.
                        let p = centre + rng.point(scale);
                        let q = p + Vec3::new(rng.next() * scale, 0.0, rng.next() * scale);
                        node.set_bounds(lane, Aabb::new(p.min(q), p.max(q)));
                    }
                    _ => {
                        let (p, q) = (centre + rng.point(scale), centre + rng.point(scale));
                        node.set_bounds(lane, Aabb::new(p.min(q), p.max(q)));
                    }
                }
                bounds = bounds.union(node.bounds(lane));
            }
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
            let expected = test_with(Kernel::Portable, &ray, &bounds, &node, t_max);
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

    #[test]
    fn names_read_back_and_unknown_names_are_errors() {
        for kernel in Kernel::ALL {
            assert_eq!(kernel.name().parse::<Kernel>(), Ok(kernel));
            assert_eq!(kernel.to_string(), kernel.name());
        }
        assert_eq!(" AVX2 ".parse::<Kernel>(), Ok(Kernel::Avx2));
        assert!("sse9".parse::<Kernel>().is_err());
    }

    #[test]
    fn the_widening_is_slab_slack() {
        let bounds = Aabb::new(
            glam::Vec3::new(-1.0, 2.0, -3.0),
            glam::Vec3::new(4.0, 5.0, 6.0),
        );
        for dir in [
            glam::Vec3::new(0.3, -0.7, 0.1),
            glam::Vec3::new(-0.0, 0.0, -2.5),
        ] {
            let ray = Ray::new(glam::Vec3::new(10.0, -3.0, 0.5), dir);
            let setup = RaySetup::new(&ray, &bounds);
            let slack = meshcast_primitives::slab_slack(&bounds, &ray);
            assert_eq!(setup.slack.to_bits(), slack.to_bits());
            assert_eq!(setup.inv_dir, dir.recip());
        }
    }

    #[test]
    fn planes_follow_the_direction_signs() {
        let ray = Ray::new(glam::Vec3::ZERO, glam::Vec3::new(1.0, -0.0, -2.0));
        let (near, far) = near_far_planes(&ray);
        assert_eq!(near, [Plane::MinX, Plane::MaxY, Plane::MaxZ]);
        assert_eq!(far, [Plane::MaxX, Plane::MinY, Plane::MinZ]);
    }
}
