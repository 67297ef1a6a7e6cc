//! The triangles room: what a mesh is made of and everything found from its triangles
//! alone. Validated storage with optional normals, texture coordinates and groups
//! (`tri_mesh.rs`: [`TriMesh`]; `vertex_attribute.rs`: [`VertexAttribute`]), its origin in
//! the world for `f64` positions (`frame.rs`: [`frame_origin`]), vertex normals computed on
//! first use (`vertex_normals.rs`; what is found on first use and kept, the normals and the
//! degenerate count, in `derived.rs`), subdivision (`subdivision.rs`), the surface at a hit
//! (`surface.rs`: [`SurfacePoint`]), and the leaf test a mesh runs with its triangles laid out
//! in leaf order, four at a time (`leaf_test.rs`: [`LeafTest`]; `leaf_blocks.rs`, walked by `leaves.rs` one ray at a time
//! and by `packet_leaves.rs` a packet at a time, through `lane_test.rs`).
//!
//! May use: `volume` (closedness), `queries` (the rules a leaf applies), `error`. Used by
//! `mesh`, `scene` and `points`.

mod derived;
mod frame;
mod lane_test;
mod leaf_blocks;
mod leaf_test;
mod leaves;
mod packet_leaves;
mod subdivision;
mod surface;
mod tri_mesh;
mod vertex_attribute;
mod vertex_normals;

pub use frame::frame_origin;
pub(crate) use leaf_blocks::{LeafBlocks, MeshLeaves};
pub use leaf_test::LeafTest;
pub use surface::SurfacePoint;
pub use tri_mesh::TriMesh;
pub use vertex_attribute::VertexAttribute;
