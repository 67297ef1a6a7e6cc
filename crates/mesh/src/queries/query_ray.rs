//! [`QueryRay`]: the precision of a query's ray as a type, so that every ray query is one
//! method for rays in `f32` and in `f64` (glam's `Vec3` and `DVec3` share their names the
//! same way).

use core::fmt::Debug;

use meshcast_primitives::{DRay, Ray, RayRange};

use crate::batches::BatchRay;

/// A ray the queries of [`crate::RayQueries`] take: [`Ray`] in `f32`, in the level's own
/// coordinates, or [`DRay`] in `f64` world coordinates for geometry far from the origin.
///
/// Every level answers both with the same methods (`mesh.cast(&ray)` and `mesh.cast(&dray)`):
/// a [`DRay`] is carried into each mesh's frame in `f64` ([`crate::Mesh::carry_ray`],
/// [`crate::Instance::carry_ray`]: the mesh's origin, an instance's `f64` placement) and
/// rounded once, the mesh answers the carried ray exactly as it answers an `f32` ray, and the
/// hit comes back with `t` in `f64` along the world ray ([`meshcast_primitives::DHit`],
/// [`crate::DSceneHit`]). So only the rounding of coordinates at each mesh's own scale is
/// left, wherever the mesh lies. A scene walks its top level with the exact `f64` ray, its
/// boxes widened by how far a carried, rounded ray may hit, through the same walk as `f32`
/// rays.
///
/// Sealed: implemented by [`Ray`] and [`DRay`] only.
pub trait QueryRay: BatchRay + RayRange + Debug + PartialEq {}

impl QueryRay for Ray {}

impl QueryRay for DRay {}
