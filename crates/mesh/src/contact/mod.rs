//! The contact room: where two meshes' surfaces meet, and where a mesh cuts itself.
//! [`Mesh::intersects`], [`Mesh::intersecting_pairs`] and [`Mesh::self_intersections`]: the
//! second mesh carried into the first's space in `f64` (`side.rs`), a walk down both
//! eight-wide trees at once or one against itself (`walk.rs`), and exact triangle pair tests
//! at the leaves (from `meshcast_primitives`).
//!
//! May use: `mesh`. Used by nothing in the crate.

mod intersection;
mod side;
mod walk;
