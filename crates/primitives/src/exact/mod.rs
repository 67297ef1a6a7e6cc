//! The exact room: decisions about triangle pairs in `f64`, with no epsilon. Shewchuk's
//! orientation predicates ([`predicates`]), the exact pair test of Guigue and Devillers
//! (`triangle_pair.rs`: [`triangles_intersect`]) and its form for two triangles of one mesh,
//! which leaves out the corners and the edge they share (`shared_corners.rs`:
//! [`triangles_intersect_beyond_shared`]), and the distance between two triangles, zero
//! decided by the exact test (`triangle_distance.rs`: [`triangles_distance`]).
//!
//! It also holds the exact side of a triangle's edge that a ray passes (`ray_edges.rs`:
//! [`ray_edge_side`], [`ray_edge_tie`]), which the watertight test asks where its rounded edge
//! functions lie too near zero to be trusted.
//!
//! May use: nothing else of the crate. Used by the triangles room (the watertight test) and
//! by the mesh crate's contact queries.

pub mod predicates;
mod ray_edges;
mod shared_corners;
mod triangle_distance;
mod triangle_pair;

pub use ray_edges::{ray_edge_side, ray_edge_tie};
pub use shared_corners::triangles_intersect_beyond_shared;
pub use triangle_distance::{closest_point_on_triangle, triangles_distance, TriangleDistance};
pub use triangle_pair::triangles_intersect;
