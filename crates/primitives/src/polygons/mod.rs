//! The polygons room: flat primitives. The plane, the two-step ray–triangle test built on it
//! and the Newell normal that gives a polygon its plane (`plane.rs`: [`Plane`],
//! [`Triangle::intersect_plane_inside`]), the planar polygon and its ray test (`polygon.rs`:
//! [`Polygon`]), and the triangulation of its face (`triangulation.rs`: [`triangulate`]), by
//! ear clipping (`ear_clipping.rs`) over a z-order index of the corners (`z_order.rs`), all
//! three in the polygon's projection to 2D (`projection.rs`: the projected corner and the
//! orientation of three).
//!
//! Inside, imports run one way: `polygon.rs` uses `triangulation.rs`, which uses
//! `ear_clipping.rs`, which uses `z_order.rs`; the last three use `projection.rs`, and
//! `polygon.rs` and `triangulation.rs` use `plane.rs`.
//!
//! May use: `triangles`, `rays`, `error`. Used by nothing in the crate.
//!
//! [`Triangle::intersect_plane_inside`]: crate::Triangle::intersect_plane_inside

mod ear_clipping;
mod plane;
mod polygon;
mod projection;
mod triangulation;
mod z_order;

pub use plane::Plane;
pub use polygon::{Polygon, PLANARITY_TOLERANCE};
pub use triangulation::triangulate;
