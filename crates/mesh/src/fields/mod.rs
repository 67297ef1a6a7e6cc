//! The fields room: values of the point queries over many points at once. Dense grids of
//! signed distances, occupancy and winding numbers over a box (`grid.rs`: [`Grid`] and the
//! `Mesh::*_grid` calls), computed a row at a time without a list of points; points on the surface, uniform by area
//! (`sampling.rs`: [`SurfaceSamples`] and `Mesh::sample_surface`).
//!
//! May use: `points`, `scene`, `mesh`, `triangles`, `volume`, `queries`. Used by nothing
//! in the crate.

mod grid;
mod sampling;

pub use grid::Grid;
pub use sampling::SurfaceSamples;
