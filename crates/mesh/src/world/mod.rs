//! The world room: the levels' queries of rays ([`crate::RayQueries`] of a
//! [`meshcast_primitives::DRay`]) and points ([`crate::PointQueries`] of a [`glam::DVec3`]) in
//! `f64` world coordinates, for geometry far from the origin: the same methods as `f32`
//! queries, implemented here. A mesh keeps an `f64` origin of its own
//! ([`crate::Mesh::origin`]); a ray or point is carried into its frame in `f64`, rounded
//! once, asked as the mesh's own walk asks it, and the answer given back in world units
//! (`mesh_frame.rs`, where a batch of rays is carried and traced as `f32` packets).
//! Instances keep their `f64` placement ([`crate::Instance::exact_transform`]); a world ray is
//! carried by each reached instance's `f64` inverse transform into its mesh's frame, so that
//! each mesh answers at its own precision, and a scene walks its top level with the exact
//! ray through the `f32` rays' walk, its `f32` boxes widened so that they only cull
//! (`scene_frame.rs`: the box test `TopLevelRay`); picks with world points in `f64`
//! (`picks.rs`); point queries in `f64`: the nearest point measured with the triangles
//! carried to the query point, inside and outside at each instance's own precision
//! (`scene_points.rs`). The views' eyes and the grids' boxes in `f64` are carried where the
//! views and fields take them ([`crate::QueryPoint`], [`crate::QueryBox`]).
//!
//! May use: `mesh`, `points`, `queries`, `scene`. Used by nothing in the crate.

mod mesh_frame;
mod picks;
mod scene_frame;
mod scene_points;

pub use mesh_frame::DClosestPoint;
pub use picks::DPick;
pub use scene_frame::DSceneHit;
pub use scene_points::DSceneClosestPoint;
