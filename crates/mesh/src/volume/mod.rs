//! The volume room: what tells inside from outside. Whether a surface is closed, found from
//! its triangles' shared edges (`closedness.rs`), and the generalised winding number
//! (Jacobson et al. 2013) accelerated by far-field expansions over a wide tree (Barill et al.
//! 2018; `winding.rs`), with bounds of its terms over a box of points that prove on which
//! side of ½ every point of the box lies (`winding_bounds.rs`). All are algorithms over
//! positions, triangles and a tree, with no mesh type of their own: the triangles room
//! caches closedness in a `TriMesh`, the mesh room the winding expansions in a `Mesh`, and
//! the points room answers `contains` and `winding_number` with them.
//!
//! May use: nothing else of the crate. Used by `triangles`, `mesh`, `points` and `fields`.

mod closedness;
mod winding;
mod winding_bounds;

pub(crate) use closedness::{is_degenerate, ClosednessCache};
pub(crate) use winding::WindingCache;
#[cfg(test)]
pub(crate) use winding_bounds::tests;
pub(crate) use winding_bounds::PointBox;
