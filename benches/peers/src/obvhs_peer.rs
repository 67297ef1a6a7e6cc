//! obvhs: its compressed wide BVH (CWBVH, eight-way) built from triangles, traversed with
//! `CwBvh::ray_traverse` for the closest hit and `CwBvh::ray_traverse_miss` for occlusion.

use anyhow::Result;
use meshcast::Ray;
use obvhs::cwbvh::builder::build_cwbvh_from_tris;
use obvhs::cwbvh::CwBvh;
use obvhs::ray::{Ray as ObvhsRay, RayHit};
use obvhs::triangle::Triangle;
use obvhs::BvhBuildParams;

use crate::tracer::{xyz, Geometry, Library, Threads, Tracer};

/// The obvhs crate.
pub struct Obvhs;

/// A CWBVH with its triangles stored in leaf order, as the crate's examples recommend, so the
/// intersection callback indexes them directly.
pub struct ObvhsTracer {
    bvh: CwBvh,
    triangles: Vec<Triangle>,
}

impl Library for Obvhs {
    fn name(&self) -> &'static str {
        "obvhs"
    }

    fn version(&self) -> String {
        env!("PEER_VERSION_OBVHS").to_string()
    }

    fn builds_in_parallel(&self) -> bool {
        true
    }

    fn notes(&self) -> &'static str {
        "`build_cwbvh_from_tris` with `BvhBuildParams::medium_build()` (PLOC + reinsertion, \
         feature `parallel`), triangles reordered to leaf order; `CwBvh::ray_traverse` \
         (closest) and `CwBvh::ray_traverse_miss` (any hit) with `Triangle::intersect` \
         (Möller–Trumbore, two-sided)"
    }

    fn build(&self, geometry: &Geometry, _threads: Threads) -> Result<Box<dyn Tracer>> {
        let positions = geometry.positions;
        let triangles: Vec<Triangle> = geometry
            .indices
            .iter()
            .map(|&[a, b, c]| Triangle {
                v0: positions[a as usize].into(),
                v1: positions[b as usize].into(),
                v2: positions[c as usize].into(),
            })
            .collect();
        // The thread count comes from the rayon pool this runs in.
        let bvh = build_cwbvh_from_tris(
            &triangles,
            BvhBuildParams::medium_build(),
            &mut Default::default(),
        );
        let triangles = bvh
            .primitive_indices
            .iter()
            .map(|&i| triangles[i as usize])
            .collect();
        Ok(Box::new(ObvhsTracer { bvh, triangles }))
    }
}

impl ObvhsTracer {
    #[inline]
    fn ray(ray: &Ray) -> ObvhsRay {
        ObvhsRay::new(
            xyz(ray.origin).into(),
            xyz(ray.dir).into(),
            ray.t_min,
            ray.t_max,
        )
    }
}

impl Tracer for ObvhsTracer {
    #[inline]
    fn closest(&self, ray: &Ray) -> Option<f32> {
        let mut hit = RayHit::none();
        self.bvh
            .ray_traverse(Self::ray(ray), &mut hit, |ray, id| {
                self.triangles[id].intersect(ray)
            })
            .then_some(hit.t)
    }

    #[inline]
    fn occluded(&self, ray: &Ray) -> bool {
        !self
            .bvh
            .ray_traverse_miss(Self::ray(ray), |ray, id| self.triangles[id].intersect(ray))
    }
}
