//! The contact room: where two meshes' surfaces meet, how far apart they are, and where a
//! mesh cuts itself. [`Mesh::intersects`](crate::mesh::Mesh::intersects), [`Mesh::intersecting_pairs`](crate::mesh::Mesh::intersecting_pairs),
//! [`Mesh::self_intersections`](crate::mesh::Mesh::self_intersections), [`Mesh::mesh_distance`](crate::mesh::Mesh::mesh_distance) and [`Mesh::hausdorff_distance`](crate::mesh::Mesh::hausdorff_distance)
//! (`hausdorff.rs`, regions of one surface bounded against the other): the second mesh carried into
//! the first's space in `f64` (`side.rs`), a walk down both eight-wide trees at once or one
//! against itself (`walk.rs`; best first, nearest boxes first, in `distance.rs`), and exact
//! triangle pair tests at the leaves (from `meshcast_primitives`). The same between
//! instances, and among a scene's instances or against a mesh placed in it, in world space
//! (`placed.rs`).
//!
//! May use: `scene`, `mesh`. Used by nothing in the crate.

mod distance;
mod hausdorff;
mod intersection;
mod placed;
mod side;
mod walk;

pub use distance::{DMeshDistance, MeshDistance};
pub use hausdorff::{DirectedHausdorff, HausdorffDistance};
