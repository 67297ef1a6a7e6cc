//! The order a batch is traced in: incoherent rays sorted so that neighbours take similar paths
//! through the hierarchy, answers returned in the caller's order.
//!
//! A loop of single rays over random rays visits the hierarchy in no order, and on a mesh
//! whose tree outgrows the caches each ray reloads the nodes its predecessor evicted. Sorted by
//! a Morton code of origin and direction (the six-dimensional ray space of Aila and Karras,
//! *Architecture Considerations for Tracing Incoherent Rays*, 2010; Garanzha and Loop, *Fast
//! Ray Sorting and Breadth-First Packet Traversal for GPU Ray Tracing*, 2010), neighbouring
//! rays share their top nodes and often their leaves, and a sorted batch of rays from one point
//! (a shuffled lidar scan, `BatchOrder::Sorted`) comes together into packets again. The sort is a radix sort of 32-bit keys, linear in
//! the rays. Which order a batch is traced in changes only the time taken: every ray's answer
//! is its single-ray answer, bit for bit.

use std::sync::OnceLock;

use glam::Vec3;
use meshcast_primitives::{Aabb, Ray};
use rayon::prelude::*;

use crate::batches::batch_ray::BatchRay;

/// The environment variable that fixes the order of every batch whose options leave it to the
/// engine ([`BatchOrder::Auto`]): `caller` or `sorted`.
pub const BATCH_ORDER_ENV: &str = "MESHCAST_BATCH_ORDER";

/// The order the rays of a batch call are traced in (the answers come back in the caller's
/// order either way, each bit for bit its single-ray answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BatchOrder {
    /// The engine's choice: sorted when the batch is large ([`MIN_SORTED_RAYS`]), the level's
    /// hierarchy outgrows the caches ([`MIN_SORTED_BYTES`]) and neighbouring rays start and
    /// pass far apart in the caller's order, unless [`BATCH_ORDER_ENV`] names an order.
    #[default]
    Auto,
    /// The caller's order.
    Caller,
    /// Sorted by a Morton code of origin and direction.
    Sorted,
}

impl core::str::FromStr for BatchOrder {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "auto" => Ok(Self::Auto),
            "caller" => Ok(Self::Caller),
            "sorted" => Ok(Self::Sorted),
            _ => Err(format!(
                "unknown batch order {name:?} (auto, caller or sorted)"
            )),
        }
    }
}

impl BatchOrder {
    /// The order [`BatchOrder::Auto`] stands for in this process: [`BATCH_ORDER_ENV`]'s, if
    /// it names `caller` or `sorted`; read once.
    fn from_env() -> Self {
        static ORDER: OnceLock<BatchOrder> = OnceLock::new();
        *ORDER.get_or_init(|| {
            std::env::var(BATCH_ORDER_ENV)
                .ok()
                .and_then(|name| name.parse().ok())
                .unwrap_or(BatchOrder::Auto)
        })
    }

    /// The order this one stands for in this process: [`BatchOrder::Auto`] as the environment
    /// fixes it ([`BATCH_ORDER_ENV`]), any other as it is.
    fn resolved(self) -> Self {
        match self {
            Self::Auto => Self::from_env(),
            order => order,
        }
    }

    /// Whether a batch of `rays` rays through a hierarchy of `bytes` bytes (of nodes and
    /// triangles, [`crate::Mesh::acceleration_bytes`], [`crate::Scene::acceleration_bytes`])
    /// may be traced sorted in this order: for [`BatchOrder::Auto`], at least
    /// [`MIN_SORTED_RAYS`] through at least [`MIN_SORTED_BYTES`], the rays themselves then
    /// deciding. Callers that lay out each chunk's answers as they trace it hand such batches
    /// whole to a batch call.
    pub fn may_sort(self, rays: usize, bytes: usize) -> bool {
        match self.resolved() {
            Self::Caller => false,
            Self::Sorted => rays > 1,
            Self::Auto => large_enough_to_sort(rays, bytes),
        }
    }

    /// Whether `rays` are traced sorted through a level with `frame`.
    pub(crate) fn sorts<R: BatchRay>(self, rays: &[R], frame: &BatchFrame) -> bool {
        self.may_sort(rays.len(), frame.bytes)
            && (self.resolved() != Self::Auto || !frame.local_in_order(rays))
    }
}

/// [`BatchOrder::Auto`]'s first test: at least [`MIN_SORTED_RAYS`] rays through at least
/// [`MIN_SORTED_BYTES`].
fn large_enough_to_sort(rays: usize, bytes: usize) -> bool {
    rays >= MIN_SORTED_RAYS && bytes >= MIN_SORTED_BYTES
}

/// The fewest rays [`BatchOrder::Auto`] sorts: below this the sort's fixed costs outweigh
/// what it saves.
pub const MIN_SORTED_RAYS: usize = 4096;

/// The smallest hierarchy (bytes of nodes and triangles, [`crate::Mesh::acceleration_bytes`])
/// whose batches [`BatchOrder::Auto`] sorts. A smaller one stays in the caches whatever the
/// order, and the sort (about 35 ns a ray on one thread) costs more than it saves. Measured
/// with `batch_orders`, one thread, 200k random rays, sorted against a loop of single rays
/// (AMD EPYC, 2 cores): bunny (3.4 MB) 0.93x, ogre (6.2 MB) 0.88x, bunny subdivided once
/// (13.7 MB) 1.22x, twice (55 MB) 1.23x-1.31x.
pub const MIN_SORTED_BYTES: usize = 8 << 20;

/// How many neighbouring pairs [`BatchFrame::local_in_order`] samples.
const SAMPLES: usize = 64;

/// What a batch's order is chosen by: the box of the level its rays are traced through, where
/// their keys are measured, and the bytes of hierarchy and triangles they walk.
#[derive(Clone, Copy, Debug)]
pub struct BatchFrame {
    bounds: Aabb,
    bytes: usize,
}

impl BatchFrame {
    /// The frame of a level with box `bounds` and `bytes` of hierarchy and triangles.
    pub(crate) fn new(bounds: Aabb, bytes: usize) -> Self {
        Self { bounds, bytes }
    }

    /// Whether the rays already come in an order that keeps neighbours' walks close: whether
    /// at least a quarter of [`SAMPLES`] neighbouring pairs, spread over the batch, start
    /// within a hundredth of the box's diagonal of each other (a camera, a lidar, fans of rays
    /// from shared points, rays sorted by origin) or pass the box's centre within a
    /// thirty-second of it (rays sorted by where they pass, as the sort leaves them). Random
    /// rays in the order they were made fail.
    fn local_in_order<R: BatchRay>(&self, rays: &[R]) -> bool {
        let frame = KeyFrame::new(self.bounds);
        let diagonal_squared = self.bounds.extent().length_squared();
        let step = (rays.len() - 1) / SAMPLES;
        let local = (0..SAMPLES)
            .map(|i| (rays[i * step].seen(), rays[i * step + 1].seen()))
            .filter(|(a, b)| {
                (b.origin - a.origin).length_squared() <= 1e-4 * diagonal_squared
                    || (frame.pass(b) - frame.pass(a)).length_squared()
                        <= diagonal_squared / (32.0 * 32.0)
            })
            .count();
        4 * local >= SAMPLES
    }
}

/// The indices of `rays` in the order they are traced through a level with `frame`:
/// sorted by [`KeyFrame::key`] (stably, so equal keys keep the caller's order), on the current
/// rayon pool if `parallel`.
pub(crate) fn sorted_order<R: BatchRay>(
    rays: &[R],
    frame: &BatchFrame,
    parallel: bool,
) -> Vec<u32> {
    let frame = KeyFrame::new(frame.bounds);
    let keyed = |(i, ray): (usize, &R)| u64::from(frame.key(&ray.seen())) << 32 | i as u64;
    let keyed: Vec<u64> = if parallel {
        rays.par_iter().enumerate().map(keyed).collect()
    } else {
        rays.iter().enumerate().map(keyed).collect()
    };
    radix_sort_by_high_half(keyed)
        .into_iter()
        .map(|keyed| keyed as u32)
        .collect()
}

/// Where rays pass: the level's box grown to twice its size around its centre, mapped to the
/// unit cube.
struct KeyFrame {
    centre: Vec3,
    low: Vec3,
    scale: Vec3,
}

/// Each coordinate's five bits spread to every sixth bit of a key, the highest first.
const SPREAD: [u32; 32] = {
    let mut table = [0; 32];
    let mut value = 0;
    while value < 32 {
        let mut bit = 0;
        while bit < 5 {
            table[value] |= ((value as u32 >> bit) & 1) << (6 * bit);
            bit += 1;
        }
        value += 1;
    }
    table
};

impl KeyFrame {
    fn new(bounds: Aabb) -> Self {
        let bounds = if bounds.is_empty() || !bounds.is_finite() {
            Aabb::new(Vec3::splat(-1.0), Vec3::ONE)
        } else {
            bounds
        };
        let extent = bounds.extent();
        let centre = bounds.centroid();
        Self {
            centre,
            low: centre - extent,
            scale: Vec3::select(extent.cmpgt(Vec3::ZERO), (2.0 * extent).recip(), Vec3::ZERO),
        }
    }

    /// Where `ray`'s line passes closest to the box's centre.
    #[inline]
    fn pass(&self, ray: &Ray) -> Vec3 {
        let d = ray.dir;
        ray.origin + d * ((self.centre - ray.origin).dot(d) / d.length_squared())
    }

    /// A ray's key: a Morton code of five bits per coordinate of the point where the ray passes
    /// closest to the box's centre (in the frame) and of its direction projected onto the cube
    /// `[-1, 1]³`, 30 bits, the six coordinates interleaved. Non-finite coordinates map to cell
    /// 0. Two quotients and no root: the key only groups rays.
    #[inline]
    fn key(&self, ray: &Ray) -> u32 {
        let d = ray.dir;
        let position = (self.pass(ray) - self.low) * self.scale * 32.0;
        let dir = (d * (1.0 / d.abs().max_element()) + Vec3::ONE) * 16.0;
        // `as` saturates and maps NaN to 0.
        let cell = |x: f32| SPREAD[(x as u32).min(31) as usize];
        cell(position.x) << 5
            | cell(position.y) << 4
            | cell(position.z) << 3
            | cell(dir.x) << 2
            | cell(dir.y) << 1
            | cell(dir.z)
    }
}

/// `keyed` sorted by the upper 32 bits of each entry, stably: a least-significant-digit radix
/// sort, ten bits at a time, of the 30 bits [`KeyFrame::key`] uses, the three digits counted
/// in one pass.
fn radix_sort_by_high_half(mut keyed: Vec<u64>) -> Vec<u64> {
    const BITS: u32 = 10;
    const DIGITS: usize = 3;
    let digit = |entry: u64, pass: usize| (entry >> (32 + BITS * pass as u32) & 0x3ff) as usize;
    let mut starts = vec![[0usize; 1 << BITS]; DIGITS];
    for &entry in &keyed {
        for (pass, counts) in starts.iter_mut().enumerate() {
            counts[digit(entry, pass)] += 1;
        }
    }
    let mut spare = vec![0; keyed.len()];
    for (pass, starts) in starts.iter_mut().enumerate() {
        let mut sum = 0;
        for start in starts.iter_mut() {
            (*start, sum) = (sum, sum + *start);
        }
        for &entry in &keyed {
            let slot = &mut starts[digit(entry, pass)];
            spare[*slot] = entry;
            *slot += 1;
        }
        core::mem::swap(&mut keyed, &mut spare);
    }
    keyed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_radix_sort_sorts_by_key_and_keeps_equal_keys_in_order() {
        let mut state = 12345u64;
        let keyed: Vec<u64> = (0..5000u64)
            .map(|i| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 40) & 0x3fff_ffff & !0xff_ff00) << 32 | i
            })
            .collect();
        let mut expected = keyed.clone();
        expected.sort_by_key(|entry| entry >> 32);
        assert_eq!(radix_sort_by_high_half(keyed), expected);
    }

    #[test]
    fn sorting_puts_rays_from_one_point_in_one_direction_together() {
        let rays: Vec<Ray> = (0..64)
            .map(|i| {
                let dir = if i % 2 == 0 { Vec3::X } else { Vec3::NEG_X };
                Ray::new(Vec3::new(0.0, i as f32 % 4.0, 0.0), dir)
            })
            .collect();
        let frame = BatchFrame::new(Aabb::new(Vec3::splat(-4.0), Vec3::splat(4.0)), 0);
        let order = sorted_order(&rays, &frame, false);
        let mut seen = order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..64).collect::<Vec<_>>(), "a permutation");
        // Eight runs of eight equal rays, each run in the caller's order.
        for run in order.chunks(8) {
            assert!(run
                .iter()
                .all(|&i| rays[i as usize] == rays[run[0] as usize]));
            assert!(run.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn degenerate_rays_have_keys() {
        let frame = KeyFrame::new(Aabb::new(Vec3::ZERO, Vec3::ONE));
        for ray in [
            Ray::new(Vec3::splat(f32::NAN), Vec3::X),
            Ray::new(Vec3::ZERO, Vec3::splat(f32::INFINITY)),
            Ray::new(Vec3::splat(-1e30), Vec3::ZERO),
        ] {
            assert!(frame.key(&ray) < 1 << 30);
        }
        let ray = Ray::new(Vec3::NAN, Vec3::NAN);
        assert_eq!(
            sorted_order(&[ray], &BatchFrame::new(Aabb::EMPTY, 0), true),
            [0]
        );
    }

    #[test]
    fn auto_sorts_large_batches_of_scattered_rays_through_large_hierarchies() {
        let bounds = Aabb::new(Vec3::splat(-1.0), Vec3::ONE);
        let (small, large) = (
            BatchFrame::new(bounds, MIN_SORTED_BYTES - 1),
            BatchFrame::new(bounds, MIN_SORTED_BYTES),
        );
        let mut state = 7u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            4.0 * (state as f32 / u32::MAX as f32 - 0.5)
        };
        let random: Vec<Ray> = (0..MIN_SORTED_RAYS)
            .map(|_| {
                Ray::new(
                    Vec3::new(next(), next(), next()),
                    Vec3::new(next(), next(), next()),
                )
            })
            .collect();
        // Fans of 16 random directions from shared points.
        let fans: Vec<Ray> = random
            .iter()
            .enumerate()
            .map(|(i, ray)| Ray::new(random[i / 16 * 16].origin, ray.dir))
            .collect();
        // Random rays sorted by origin along x, then their neighbours' lines in pairs.
        let mut by_origin = random.clone();
        by_origin.sort_by(|a, b| a.origin.x.total_cmp(&b.origin.x));
        let paired: Vec<Ray> = random
            .iter()
            .enumerate()
            .map(|(i, ray)| if i % 2 == 1 { random[i - 1] } else { *ray })
            .collect();
        let auto = |rays: &[Ray], frame: &BatchFrame| {
            large_enough_to_sort(rays.len(), frame.bytes) && !frame.local_in_order(rays)
        };
        assert!(auto(&random, &large));
        assert!(!auto(&random, &small));
        assert!(!auto(&random[1..], &large));
        assert!(!auto(&fans, &large));
        assert!(auto(&by_origin, &large), "close in x, far apart in y and z");
        assert!(!auto(&paired, &large));
        for rays in [&random, &fans] {
            assert!(BatchOrder::Sorted.sorts(rays, &small));
            assert!(!BatchOrder::Caller.sorts(rays, &large));
        }
    }
}
