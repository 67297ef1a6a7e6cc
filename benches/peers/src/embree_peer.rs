//! Embree 3 through [`crate::embree`]: `rtcIntersect1` and `rtcOccluded1` per ray, on a
//! default scene and on a robust one (`RTC_SCENE_FLAG_ROBUST`), and `rtcIntersect16` on
//! packets of 16 coherent rays as an extra row of the default scene.

use std::sync::Arc;

use anyhow::Result;
use meshcast::Ray;

use crate::embree::{Device, PacketRay, Scene, SceneFlags};
use crate::results::{EMBREE, EMBREE_PACKETS, EMBREE_ROBUST};
use crate::tracer::{xyz, Geometry, Library, Threads, Tracer};

/// Embree, with one device per thread setting, made once so that device start-up (its thread
/// pool) is not counted as build time.
pub struct Embree {
    one: Arc<Device>,
    all: Arc<Device>,
    flags: SceneFlags,
}

impl Embree {
    /// Starts the two devices: one build thread, and Embree's default (every hardware thread).
    /// Scenes get the default flags.
    pub fn new() -> Result<Self> {
        Ok(Self {
            one: Device::new("threads=1")?,
            all: Device::new("")?,
            flags: SceneFlags::Default,
        })
    }

    /// The same devices, building scenes with `flags`.
    pub fn with_flags(&self, flags: SceneFlags) -> Self {
        Self {
            one: self.one.clone(),
            all: self.all.clone(),
            flags,
        }
    }
}

/// A committed Embree scene.
pub struct EmbreeTracer {
    scene: Scene,
    flags: SceneFlags,
}

impl Library for Embree {
    fn name(&self) -> &'static str {
        match self.flags {
            SceneFlags::Default => EMBREE,
            SceneFlags::Robust => EMBREE_ROBUST,
        }
    }

    fn version(&self) -> String {
        format!("{} (system libembree3)", self.all.version())
    }

    fn builds_in_parallel(&self) -> bool {
        true
    }

    fn notes(&self) -> &'static str {
        match self.flags {
            SceneFlags::Default => {
                "`rtcCommitScene` with default quality and flags (device \"threads=1\" or \
                 default); `rtcIntersect1` / `rtcOccluded1` per ray (incoherent context), \
                 `rtcIntersect16` on 16-ray packets (coherent context); its own two-sided \
                 triangle test"
            }
            SceneFlags::Robust => {
                "as Embree, but the scene has `RTC_SCENE_FLAG_ROBUST` (`rtcSetSceneFlags`: \
                 avoid optimisations that reduce arithmetic accuracy; Embree 3.13 then builds \
                 `triangle4v` leaves and tests them with its Plücker test, see the kernels \
                 line); `rtcIntersect1` / `rtcOccluded1` per ray, no packet row"
            }
        }
    }

    fn build(&self, geometry: &Geometry, threads: Threads) -> Result<Box<dyn Tracer>> {
        let device = match threads {
            Threads::One => &self.one,
            Threads::All => &self.all,
        };
        let scene = Scene::triangles(device, geometry.positions, geometry.indices, self.flags)?;
        Ok(Box::new(EmbreeTracer {
            scene,
            flags: self.flags,
        }))
    }
}

impl Tracer for EmbreeTracer {
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

    fn packet_closest(&self, rays: &[Ray]) -> Vec<Option<f32>> {
        let mut out = vec![None; rays.len()];
        for (chunk, hits) in rays.chunks(16).zip(out.chunks_mut(16)) {
            let (rays, n) = packet(chunk);
            self.scene.intersect16(&rays[..n], hits);
        }
        out
    }

    fn count_packet_closest(&self, rays: &[Ray]) -> usize {
        let mut hits = [None; 16];
        rays.chunks(16)
            .map(|chunk| {
                let (rays, n) = packet(chunk);
                self.scene.intersect16(&rays[..n], &mut hits);
                hits[..chunk.len()].iter().flatten().count()
            })
            .sum()
    }
}

/// Up to 16 rays as (origin, direction, end), on the stack, and how many there are.
#[inline]
fn packet(rays: &[Ray]) -> ([PacketRay; 16], usize) {
    let mut out = [([0.0; 3], [0.0; 3], 0.0); 16];
    for (slot, ray) in out.iter_mut().zip(rays) {
        *slot = (xyz(ray.origin), xyz(ray.dir), ray.t_max);
    }
    (out, rays.len().min(16))
}
