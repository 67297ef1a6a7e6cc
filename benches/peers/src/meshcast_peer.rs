//! meshcast itself: `Mesh::cast` and `Mesh::occluded`, one ray at a time, as users call them.

use anyhow::{Context, Result};
use meshcast::{BuildOptions, Mesh, Parallel, Ray, RayQueries, TriMesh};

use crate::results::MESHCAST;
use crate::tracer::{Geometry, Library, Threads, Tracer};

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
         ray; watertight two-sided triangle test, four triangles at a time"
    }

    fn build(&self, geometry: &Geometry, threads: Threads) -> Result<Box<dyn Tracer>> {
        Ok(Box::new(Self::build_mesh(geometry, threads)?))
    }
}

/// The one place where meshcast's ray queries are called: a packet or stream path (a future
/// `Mesh::cast_packet`, say) becomes an extra row by answering `packet_name` and
/// `packet_closest` here.
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
}
