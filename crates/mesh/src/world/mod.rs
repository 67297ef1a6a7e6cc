//! The world room: queries in `f64` world coordinates for geometry far from the origin. A
//! mesh keeps an `f64` origin of its own ([`crate::Mesh::origin`]); its `*_f64` queries carry
//! rays ([`meshcast_primitives::DRay`]) and points into its frame in `f64`, round once, ask
//! the mesh's own queries and give the answers back in world units (`mesh_frame.rs`; its
//! fields and views from world eyes and boxes, `fields_and_views.rs`).
//! Instances keep their `f64` placement ([`crate::Instance::exact_transform`]); a scene's
//! `*_f64` queries carry a world ray by each reached instance's `f64` inverse transform into
//! its mesh's frame, so that each mesh answers at its own precision, and walk the top level
//! with the exact ray, its `f32` boxes widened so that they only cull (`scene_frame.rs`),
//! pick with world points in `f64` (`picks.rs`), and answer point queries in `f64`: the
//! nearest point measured with the triangles carried to the query point, inside and
//! outside at each instance's own precision (`scene_points.rs`).
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
