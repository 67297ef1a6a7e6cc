//! What every library adapter provides: a build from positions and index triples, and
//! single-ray queries. The timed loops live here as default methods, so that each adapter's
//! per-ray call is inlined into its own loop rather than reached through a virtual call.

use anyhow::Result;
use meshcast::Ray;

/// How many threads a build may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// The calling thread only.
    One,
    /// Every thread of the machine (the library's own parallel build, if it has one).
    All,
}

/// The mesh every library receives: the same positions and index triples.
pub struct Geometry<'a> {
    /// Vertex positions.
    pub positions: &'a [[f32; 3]],
    /// Triangles, as indices into `positions`.
    pub indices: &'a [[u32; 3]],
}

/// A ray caster built over one mesh.
pub trait Tracer: Send + Sync {
    /// The distance to the closest hit, through the library's fastest single-ray query.
    fn closest(&self, ray: &Ray) -> Option<f32>;

    /// Whether the ray hits anything, through the library's any-hit query. Libraries without
    /// one answer with their closest-hit query and say so in [`Tracer::occlusion_note`].
    fn occluded(&self, ray: &Ray) -> bool;

    /// How the occlusion figure was obtained, when it is not a true any-hit query.
    fn occlusion_note(&self) -> Option<&'static str> {
        None
    }

    /// Hits among `rays` by [`Tracer::closest`]: the timed closest-hit loop.
    fn count_closest(&self, rays: &[Ray]) -> usize {
        rays.iter()
            .filter(|ray| self.closest(ray).is_some())
            .count()
    }

    /// Hits among `rays` by [`Tracer::occluded`]: the timed any-hit loop.
    fn count_occluded(&self, rays: &[Ray]) -> usize {
        rays.iter().filter(|ray| self.occluded(ray)).count()
    }

    /// The structure's bytes per triangle, where the library reports it.
    fn bytes_per_triangle(&self) -> Option<f64> {
        None
    }

    /// The name of an extra row for a packet (or other batched) closest-hit path, if the
    /// library has one; it is measured on coherent rays.
    fn packet_name(&self) -> Option<&'static str> {
        None
    }

    /// Closest hits of `rays` through the packet path (same order as `rays`): whole rows of an
    /// image `width` rays wide, row by row (the whole image, or a band of its rows). Only
    /// called when [`Tracer::packet_name`] is `Some`.
    fn packet_closest(&self, rays: &[Ray], width: usize) -> Vec<Option<f32>> {
        let _ = width;
        rays.iter().map(|ray| self.closest(ray)).collect()
    }

    /// Hits among `rays` (as [`Tracer::packet_closest`] takes them) through the packet path:
    /// the timed loop of the packet row.
    fn count_packet_closest(&self, rays: &[Ray], width: usize) -> usize {
        self.packet_closest(rays, width).iter().flatten().count()
    }

    /// The name of an extra row for a batch call that takes a whole array of rays (a stream),
    /// if the library has one; it is measured on incoherent rays, closest and any hit.
    fn batch_name(&self) -> Option<&'static str> {
        None
    }

    /// Closest hits of `rays` through the batch call (same order as `rays`), called inside the
    /// rayon pool of `threads`: the adapter shares the rays among the pool's threads as its
    /// users do. Only called when [`Tracer::batch_name`] is `Some`.
    fn batch_closest(&self, rays: &[Ray], threads: Threads) -> Vec<Option<f32>> {
        let _ = threads;
        rays.iter().map(|ray| self.closest(ray)).collect()
    }

    /// Whether each of `rays` hits anything, through the batch call (as
    /// [`Tracer::batch_closest`] takes them).
    fn batch_occluded(&self, rays: &[Ray], threads: Threads) -> Vec<bool> {
        let _ = threads;
        rays.iter().map(|ray| self.occluded(ray)).collect()
    }

    /// Hits among `rays` through the batch call, any hit if `occluded` and closest otherwise
    /// (as [`Tracer::batch_closest`] takes them): the timed loop of the batch row.
    fn count_batch(&self, rays: &[Ray], occluded: bool, threads: Threads) -> usize {
        if occluded {
            self.batch_occluded(rays, threads)
                .into_iter()
                .filter(|&hit| hit)
                .count()
        } else {
            self.batch_closest(rays, threads).iter().flatten().count()
        }
    }
}

/// The side of the square pixel tiles that packet rows trace images in: Embree's tutorials
/// trace 4 x 4 tiles with `rtcIntersect16`.
pub const TILE: usize = 4;

/// A library under comparison: its name, version and build.
pub trait Library: Sync {
    /// The name shown in tables.
    fn name(&self) -> &'static str;

    /// The exact version measured.
    fn version(&self) -> String;

    /// Whether the library can build with several threads (otherwise the all-threads build
    /// is left blank).
    fn builds_in_parallel(&self) -> bool;

    /// What the library's queries are, for the report (API used, triangle test).
    fn notes(&self) -> &'static str;

    /// One-thread build times of mesh `mesh`, one per round, for a library whose one-thread
    /// builds are measured elsewhere than in this process (Embree: see `embree_build.rs`);
    /// `None` times them in the rounds.
    fn one_thread_builds(&self, mesh: &str, rounds: usize) -> Result<Option<Vec<f64>>> {
        let _ = (mesh, rounds);
        Ok(None)
    }

    /// Builds the library's structure from positions and indices, ready to trace. Called
    /// inside a rayon pool of the requested size.
    fn build(&self, geometry: &Geometry, threads: Threads) -> Result<Box<dyn Tracer>>;
}

/// `[x, y, z]` of a glam vector, the common currency between libraries.
#[inline]
pub fn xyz(v: meshcast::glam::Vec3) -> [f32; 3] {
    v.to_array()
}
