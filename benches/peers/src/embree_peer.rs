//! Embree 3 through [`crate::embree`]: `rtcIntersect1` and `rtcOccluded1` per ray, on a
//! default scene and on a robust one (`RTC_SCENE_FLAG_ROBUST`); `rtcIntersect16` on the
//! camera image's 4 x 4 pixel tiles and `rtcIntersect1M` / `rtcOccluded1M` on the incoherent
//! rays as extra rows of the default scene.

use std::sync::Arc;

use anyhow::Result;
use meshcast::Ray;
use rayon::prelude::*;

use crate::embree::{Device, PacketRay, Scene, SceneFlags};
use crate::embree_build;
use crate::results::{EMBREE, EMBREE_PACKETS, EMBREE_ROBUST, EMBREE_STREAM};
use crate::tracer::{xyz, Geometry, Library, Threads, Tracer, TILE};
use crate::CHUNK;

/// Embree, with its default device (every hardware thread) made once, so that device
/// start-up (its thread pool) is not counted as build time. Its one-thread builds are
/// measured in a process of their own (`embree_build.rs`), as a device asking for one thread
/// beside this one would build on every core.
pub struct Embree {
    device: Arc<Device>,
    flags: SceneFlags,
}

impl Embree {
    /// Starts the device. Scenes get the default flags.
    pub fn new() -> Result<Self> {
        Ok(Self {
            device: Device::new("")?,
            flags: SceneFlags::Default,
        })
    }

    /// The same device, building scenes with `flags`.
    pub fn with_flags(&self, flags: SceneFlags) -> Self {
        Self {
            device: self.device.clone(),
            flags,
        }
    }
}

/// A committed Embree scene.
pub struct EmbreeTracer {
    scene: Scene,
    flags: SceneFlags,
    /// What the build allocated (Embree's memory monitor): its copy of the vertices and
    /// triangles and its hierarchy.
    bytes_per_triangle: f64,
}

impl Library for Embree {
    fn name(&self) -> &'static str {
        match self.flags {
            SceneFlags::Default => EMBREE,
            SceneFlags::Robust => EMBREE_ROBUST,
        }
    }

    fn version(&self) -> String {
        format!("{} (system libembree3)", self.device.version())
    }

    fn builds_in_parallel(&self) -> bool {
        true
    }

    fn notes(&self) -> &'static str {
        match self.flags {
            SceneFlags::Default => {
                "`rtcCommitScene` with default quality and flags (one thread: a \"threads=1\" \
                 device alone in a process of its own; all threads: the default device); \
                 `rtcIntersect1` / `rtcOccluded1` per ray (incoherent context), \
                 `rtcIntersect16` on the camera image in 4 x 4 pixel tiles (coherent context), as \
                 Embree's tutorials trace images; `rtcIntersect1M` / `rtcOccluded1M` on the \
                 incoherent rays (incoherent context; one call over every ray on one thread, one \
                 call per chunk of 256 rays on all threads); its own two-sided triangle test"
            }
            SceneFlags::Robust => {
                "as Embree, but the scene has `RTC_SCENE_FLAG_ROBUST` (`rtcSetSceneFlags`: \
                 avoid optimisations that reduce arithmetic accuracy; Embree 3.13 then builds \
                 `triangle4v` leaves and tests them with its Plücker test, see the kernels \
                 line); `rtcIntersect1` / `rtcOccluded1` per ray, no packet or stream row"
            }
        }
    }

    fn one_thread_builds(&self, mesh: &str, rounds: usize) -> Result<Option<Vec<f64>>> {
        embree_build::one_thread_builds(mesh, rounds, self.flags).map(Some)
    }

    fn build(&self, geometry: &Geometry, _threads: Threads) -> Result<Box<dyn Tracer>> {
        let before = Device::allocated_bytes();
        let scene = Scene::triangles(
            &self.device,
            geometry.positions,
            geometry.indices,
            self.flags,
        )?;
        let bytes = Device::allocated_bytes() - before;
        Ok(Box::new(EmbreeTracer {
            scene,
            flags: self.flags,
            bytes_per_triangle: bytes as f64 / geometry.indices.len().max(1) as f64,
        }))
    }
}

impl Tracer for EmbreeTracer {
    fn bytes_per_triangle(&self) -> Option<f64> {
        Some(self.bytes_per_triangle)
    }

    #[inline]
    fn closest(&self, ray: &Ray) -> Option<f32> {
        self.scene
            .intersect(xyz(ray.origin), xyz(ray.dir), ray.t_max)
    }

    #[inline]
    fn occluded(&self, ray: &Ray) -> bool {
        self.scene
            .occluded(xyz(ray.origin), xyz(ray.dir), ray.t_max)
    }

    /// Only the default scene has a packet row: the targets name single-ray queries, and one
    /// packet row shows what packets add.
    fn packet_name(&self) -> Option<&'static str> {
        (self.flags == SceneFlags::Default).then_some(EMBREE_PACKETS)
    }

    fn packet_closest(&self, rays: &[Ray], width: usize) -> Vec<Option<f32>> {
        let mut out = vec![None; rays.len()];
        self.trace_tiles(rays, width, |i, hit| out[i] = hit);
        out
    }

    fn count_packet_closest(&self, rays: &[Ray], width: usize) -> usize {
        let mut count = 0;
        self.trace_tiles(rays, width, |_, hit| count += usize::from(hit.is_some()));
        count
    }

    /// Only the default scene has a stream row, as only it has a packet row.
    fn batch_name(&self) -> Option<&'static str> {
        (self.flags == SceneFlags::Default).then_some(EMBREE_STREAM)
    }

    fn batch_closest(&self, rays: &[Ray], threads: Threads) -> Vec<Option<f32>> {
        streams(rays, threads, |rays| {
            self.scene.intersect1m(stream(rays)).collect::<Vec<_>>()
        })
        .concat()
    }

    fn batch_occluded(&self, rays: &[Ray], threads: Threads) -> Vec<bool> {
        streams(rays, threads, |rays| {
            self.scene.occluded1m(stream(rays)).collect::<Vec<_>>()
        })
        .concat()
    }

    fn count_batch(&self, rays: &[Ray], occluded: bool, threads: Threads) -> usize {
        let calls = streams(rays, threads, |rays| {
            if occluded {
                self.scene
                    .occluded1m(stream(rays))
                    .filter(|&hit| hit)
                    .count()
            } else {
                self.scene.intersect1m(stream(rays)).flatten().count()
            }
        });
        calls.into_iter().sum()
    }
}

/// Runs `call` on `rays` as users thread Embree's stream calls: on one thread one call over
/// every ray; on all threads one call per [`CHUNK`] rays, the chunks shared among the current
/// rayon pool's threads. Returns each call's answer, in the order of `rays`.
fn streams<T: Send>(rays: &[Ray], threads: Threads, call: impl Fn(&[Ray]) -> T + Sync) -> Vec<T> {
    match threads {
        Threads::One => vec![call(rays)],
        Threads::All => rays.par_chunks(CHUNK).map(&call).collect(),
    }
}

/// `rays` as (origin, direction, end), for a stream call.
#[inline]
fn stream(rays: &[Ray]) -> impl Iterator<Item = PacketRay> + '_ {
    rays.iter()
        .map(|ray| (xyz(ray.origin), xyz(ray.dir), ray.t_max))
}

impl EmbreeTracer {
    /// Traces the image of `rays`, `width` to a row, in [`TILE`] x [`TILE`] tiles with
    /// `rtcIntersect16`, and hands `answer` each ray's index and closest hit.
    #[inline]
    fn trace_tiles(&self, rays: &[Ray], width: usize, mut answer: impl FnMut(usize, Option<f32>)) {
        let mut hits = [None; 16];
        for_each_tile(rays.len(), width, |tile| {
            let (packet, n) = packet(tile.iter().map(|&i| &rays[i]));
            self.scene.intersect16(&packet[..n], &mut hits);
            for (&i, &hit) in tile.iter().zip(&hits) {
                answer(i, hit);
            }
        });
    }
}

/// Up to 16 rays as (origin, direction, end), on the stack, and how many there are.
#[inline]
fn packet<'r>(rays: impl Iterator<Item = &'r Ray>) -> ([PacketRay; 16], usize) {
    let mut out = [([0.0; 3], [0.0; 3], 0.0); 16];
    let mut n = 0;
    for (slot, ray) in out.iter_mut().zip(rays) {
        *slot = (xyz(ray.origin), xyz(ray.dir), ray.t_max);
        n += 1;
    }
    (out, n)
}

/// Calls `tile` with the indices of the rays of each [`TILE`] x [`TILE`] tile of the image
/// of `rays` rays, `width` to a row, row-major: tile row after tile row, each tile's rays row
/// by row. Tiles at the right and bottom edges hold what is left.
fn for_each_tile(rays: usize, width: usize, mut tile: impl FnMut(&[usize])) {
    let width = width.max(1);
    let rows = rays.div_ceil(width);
    let mut indices = [0; TILE * TILE];
    for top in (0..rows).step_by(TILE) {
        for left in (0..width).step_by(TILE) {
            let mut count = 0;
            for row in top..(top + TILE).min(rows) {
                for column in left..(left + TILE).min(width) {
                    let index = row * width + column;
                    if index < rays {
                        indices[count] = index;
                        count += 1;
                    }
                }
            }
            tile(&indices[..count]);
        }
    }
}
