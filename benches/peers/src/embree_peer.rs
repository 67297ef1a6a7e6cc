//! Embree 3 through [`crate::embree`]: `rtcIntersect1` and `rtcOccluded1` per ray, and
//! `rtcIntersect16` on packets of 16 coherent rays as an extra row.

use std::sync::Arc;

use anyhow::Result;
use meshcast::Ray;

use crate::embree::{Device, PacketRay, Scene};
use crate::results::EMBREE;
use crate::tracer::{xyz, Geometry, Library, Threads, Tracer};

/// Embree, with one device per thread setting, made once so that device start-up (its thread
/// pool) is not counted as build time.
pub struct Embree {
    one: Arc<Device>,
    all: Arc<Device>,
}

impl Embree {
    /// Starts the two devices: one build thread, and Embree's default (every hardware thread).
    pub fn new() -> Result<Self> {
        Ok(Self {
            one: Device::new("threads=1")?,
            all: Device::new("")?,
        })
    }
}

/// A committed Embree scene.
pub struct EmbreeTracer {
    scene: Scene,
}

impl Library for Embree {
    fn name(&self) -> &'static str {
        EMBREE
    }

    fn version(&self) -> String {
        format!("{} (system libembree3)", self.all.version())
    }

    fn builds_in_parallel(&self) -> bool {
        true
    }

    fn notes(&self) -> &'static str {
        "`rtcCommitScene` with default quality and flags (device \"threads=1\" or default); \
         `rtcIntersect1` / `rtcOccluded1` per ray (incoherent context), `rtcIntersect16` on \
         16-ray packets (coherent context); its own two-sided triangle test"
    }

    fn build(&self, geometry: &Geometry, threads: Threads) -> Result<Box<dyn Tracer>> {
        let device = match threads {
            Threads::One => &self.one,
            Threads::All => &self.all,
        };
        let scene = Scene::triangles(device, geometry.positions, geometry.indices)?;
        Ok(Box::new(EmbreeTracer { scene }))
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

    fn packet_name(&self) -> Option<&'static str> {
        Some("Embree ×16")
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
