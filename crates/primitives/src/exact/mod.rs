//! The exact room: decisions about triangle pairs in `f64`, with no epsilon. Shewchuk's
//! orientation predicates ([`predicates`]), the exact pair test of Guigue and Devillers
//! (`triangle_pair.rs`: [`triangles_intersect`]) and its form for two triangles of one mesh,
//! which leaves out the corners and the edge they share (`shared_corners.rs`:
//! [`triangles_intersect_beyond_shared`]), and the distance between two triangles, zero
//! decided by the exact test (`triangle_distance.rs`: [`triangles_distance`]).
//!
//! May use: nothing else of the crate. Used by nothing in the crate (the mesh crate's
//! contact queries call it).

pub mod predicates;
mod shared_corners;
mod triangle_distance;
mod triangle_pair;

pub use shared_corners::triangles_intersect_beyond_shared;
pub use triangle_distance::{closest_point_on_triangle, triangles_distance, TriangleDistance};
pub use triangle_pair::triangles_intersect;
