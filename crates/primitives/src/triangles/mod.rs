//! The triangles room: the triangle and every ray test on it. The triangle and its geometry
//! (`triangle.rs`: [`Triangle`]), the result of a test and the order of hits (`hit.rs`:
//! [`Hit`], [`RayHit`]), the scalar ray tests, one per file ([`watertight`], the default;
//! [`moller_trumbore`]; the precomputed [`triangle_transform`]), the same tests four
//! triangles at a time (`triangle_block.rs`: [`TriangleBlock`]; `transform_block.rs`:
//! [`TransformBlock`]) and over a packet's eight lanes (`watertight_packet.rs`:
//! [`WatertightPacket`]; `ray_pair.rs`: [`RayPair`]), and the closest point of a triangle
//! (`closest_point.rs`: [`Triangle::closest_point`], [`TrianglePoint`]). The watertight
//! tests share one bound on their edge functions' rounding (`edge_bounds.rs`), beyond which
//! a sign is exact and within which the exact room decides it.
//!
//! May use: `rays`, `lanes`, `exact`. Used by `polygons` and `volumes`.

mod closest_point;
mod edge_bounds;
mod hit;
pub mod moller_trumbore;
mod ray_pair;
mod transform_block;
mod triangle;
mod triangle_block;
pub mod triangle_transform;
pub mod watertight;
mod watertight_packet;

pub use closest_point::{box_distance_squared, distance_squared, TrianglePoint};
pub use hit::{DHit, Hit, RayHit};
pub use ray_pair::RayPair;
pub use transform_block::{TransformBlock, TransformHits, TransformRay};
pub use triangle::Triangle;
pub use triangle_block::{BlockHits, BlockRay, TriangleBlock, BLOCK_WIDTH};
pub use triangle_transform::TriangleTransform;
pub use watertight::{Contacts, WatertightRay};
pub use watertight_packet::{PacketHits, WatertightPacket};
