//! parry3d: `TriMesh` with the `RayCast` trait, `cast_local_ray` (closest) and
//! `intersects_local_ray` (its boolean query).

use anyhow::{anyhow, Result};
use meshcast::Ray;
use parry3d::query::{Ray as ParryRay, RayCast};
use parry3d::shape::TriMesh;

use crate::tracer::{xyz, Geometry, Library, Threads, Tracer};

/// The parry3d crate.
pub struct Parry;

/// A parry triangle mesh (its own BVH is built by `TriMesh::new`).
pub struct ParryTracer {
    mesh: TriMesh,
}

/// `solid = false`: the surface is what is hit, like every other library here; with
/// `solid = true` a ray starting inside a closed mesh would stop at its origin. Every ray of
/// this benchmark starts outside the mesh, so the two agree on it.
const SOLID: bool = false;

impl Library for Parry {
    fn name(&self) -> &'static str {
        "parry3d"
    }

    fn version(&self) -> String {
        env!("PEER_VERSION_PARRY3D").to_string()
    }

    fn builds_in_parallel(&self) -> bool {
        false
    }

    fn notes(&self) -> &'static str {
        "`TriMesh::new` (its BVH, sequential); `RayCast::cast_local_ray` with solid = false \
         (closest); `RayCast::intersects_local_ray` for occlusion, which parry answers with \
         its closest-hit cast (no early exit)"
    }

    fn build(&self, geometry: &Geometry, _threads: Threads) -> Result<Box<dyn Tracer>> {
        let vertices = geometry.positions.iter().map(|&p| p.into()).collect();
        let mesh = TriMesh::new(vertices, geometry.indices.to_vec())
            .map_err(|err| anyhow!("parry3d rejected the mesh: {err:?}"))?;
        Ok(Box::new(ParryTracer { mesh }))
    }
}

impl ParryTracer {
    #[inline]
    fn ray(ray: &Ray) -> ParryRay {
        ParryRay::new(xyz(ray.origin).into(), xyz(ray.dir).into())
    }
}

/// parry's rays have no start distance; its `max_time_of_impact` is the end.
fn max_toi(ray: &Ray) -> f32 {
    ray.t_max.min(f32::MAX)
}

impl Tracer for ParryTracer {
    #[inline]
    fn closest(&self, ray: &Ray) -> Option<f32> {
        self.mesh
            .cast_local_ray(&Self::ray(ray), max_toi(ray), SOLID)
    }

    #[inline]
    fn occluded(&self, ray: &Ray) -> bool {
        self.mesh
            .intersects_local_ray(&Self::ray(ray), max_toi(ray))
    }

    fn occlusion_note(&self) -> Option<&'static str> {
        Some("parry3d's `intersects_local_ray` is its closest-hit cast")
    }
}
