//! The world room: queries in `f64` world coordinates for geometry far from the origin. A
//! mesh keeps an `f64` origin of its own ([`crate::Mesh::origin`]); its `*_f64` queries carry
//! rays ([`meshcast_primitives::DRay`]) and points into its frame in `f64`, round once, ask
//! the mesh's own queries and give the answers back in world units (`mesh_frame.rs`).
//!
//! May use: `mesh`, `points`, `queries`. Used by nothing in the crate.

mod mesh_frame;

pub use mesh_frame::DClosestPoint;
