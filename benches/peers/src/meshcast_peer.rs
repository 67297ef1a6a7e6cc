//! meshcast itself: `Mesh::cast` and `Mesh::occluded`, one ray at a time, as users call them,
//! `Mesh::cast_batch_serial` on the camera rays as an extra packet row, and `Mesh::cast_batch`
//! / `Mesh::occluded_batch` on the incoherent rays as an extra batch row.

use anyhow::{Context, Result};
use meshcast::{BuildOptions, Mesh, Parallel, Ray, RayQueries, TriMesh};

use crate::results::{MESHCAST, MESHCAST_BATCH, MESHCAST_BATCH_INCOHERENT};
use crate::tracer::{Geometry, Library, Threads, Tracer, TILE};

/// The engine under test.
pub struct Meshcast;

/// A built mesh, with its hierarchy's memory for the report.
pub struct MeshcastTracer {
    mesh: Mesh,
}

impl Meshcast {
    /// Builds and keeps the concrete type, for the memory figure.
    pub fn build_mesh(geometry: &Geometry, threads: Threads) -> Result<MeshcastTracer> {
        let tri_mesh = TriMesh::from_triangles(geometry.positions, geometry.indices)
            .context("meshcast rejected the mesh")?;
        let options = BuildOptions {
            parallel: match threads {
                Threads::One => Parallel::Sequential,
                Threads::All => Parallel::Rayon,
            },
            ..BuildOptions::default()
        };
        Ok(MeshcastTracer {
            mesh: Mesh::from_tri_mesh(tri_mesh, &options),
        })
    }
}

impl Library for Meshcast {
    fn name(&self) -> &'static str {
        MESHCAST
    }

    fn version(&self) -> String {
        "workspace (path dependency)".to_string()
    }

    fn builds_in_parallel(&self) -> bool {
        true
    }

    fn notes(&self) -> &'static str {
        "`Mesh::from_tri_mesh` (binned SAH collapsed to an eight-wide tree, \
         `Parallel::Sequential` / `Parallel::Rayon`); `Mesh::cast` and `Mesh::occluded` per \
         ray; watertight two-sided triangle test, four triangles at a time; \
         `Mesh::cast_batch_serial` on the camera rays in their row-major order, four rows per \
         call (it finds the image's width and traces 4 x 4 tiles as packets of 16 rays, with \
         the same answers as `Mesh::cast`) as an extra row; `Mesh::cast_batch` / \
         `Mesh::occluded_batch` on the whole array of incoherent rays (parallel on the current \
         rayon pool: one thread, or all) as another"
    }

    fn build(&self, geometry: &Geometry, threads: Threads) -> Result<Box<dyn Tracer>> {
        Ok(Box::new(Self::build_mesh(geometry, threads)?))
    }
}

/// The one place where meshcast's ray queries are called: single rays, the batch call that
/// traces coherent rays as packets (the packet row), and the parallel batch calls (the batch
/// row).
impl Tracer for MeshcastTracer {
    #[inline]
    fn closest(&self, ray: &Ray) -> Option<f32> {
        self.mesh.cast(ray).map(|hit| hit.t)
    }

    #[inline]
    fn occluded(&self, ray: &Ray) -> bool {
        self.mesh.occluded(ray)
    }

    /// The acceleration structure's bytes per triangle (nodes and leaf triangle blocks), as
    /// `meshcast bench` reports them.
    fn bytes_per_triangle(&self) -> Option<f64> {
        Some(self.mesh.acceleration_bytes() as f64 / self.mesh.triangle_count().max(1) as f64)
    }

    fn packet_name(&self) -> Option<&'static str> {
        Some(MESHCAST_BATCH)
    }

    fn packet_closest(&self, rays: &[Ray], _width: usize) -> Vec<Option<f32>> {
        let mut hits = vec![None; rays.len()];
        self.mesh.cast_batch_serial(rays, &mut hits);
        hits.iter().map(|hit| hit.map(|hit| hit.t)).collect()
    }

    /// The image's rows four at a time (the rows of one row of tiles), into one buffer of
    /// answers: as a renderer that writes a band of its image at a time calls it.
    fn count_packet_closest(&self, rays: &[Ray], width: usize) -> usize {
        let band = TILE * width.max(1);
        let mut hits = vec![None; band.min(rays.len())];
        rays.chunks(band)
            .map(|rows| {
                let hits = &mut hits[..rows.len()];
                self.mesh.cast_batch_serial(rows, hits);
                hits.iter().flatten().count()
            })
            .sum()
    }

    fn batch_name(&self) -> Option<&'static str> {
        Some(MESHCAST_BATCH_INCOHERENT)
    }

    /// `Mesh::cast_batch`, which shares the rays among the current pool's threads itself.
    fn batch_closest(&self, rays: &[Ray], _threads: Threads) -> Vec<Option<f32>> {
        self.mesh
            .cast_batch(rays)
            .iter()
            .map(|hit| hit.map(|hit| hit.t))
            .collect()
    }

    /// `Mesh::occluded_batch`, in the current pool as `batch_closest`.
    fn batch_occluded(&self, rays: &[Ray], _threads: Threads) -> Vec<bool> {
        self.mesh.occluded_batch(rays)
    }

    /// The batch call over the whole array, its answers counted afterwards, as a caller that
    /// keeps them would.
    fn count_batch(&self, rays: &[Ray], occluded: bool, _threads: Threads) -> usize {
        if occluded {
            self.mesh
                .occluded_batch(rays)
                .into_iter()
                .filter(|&hit| hit)
                .count()
        } else {
            self.mesh.cast_batch(rays).iter().flatten().count()
        }
    }
}
