//! The fields room: values of the point queries over many points at once. Dense grids of
//! signed distances, occupancy and winding numbers over a box (`grid.rs`: [`Grid`];
//! `grid_queries.rs`: the `Mesh::*_grid` calls, settled by the blocks of `blocks.rs`),
//! computed a row at a time without a list of points; points on the surface, uniform by area
//! (`sampling.rs`: [`SurfaceSamples`] and `Mesh::sample_surface`), spread evenly
//! (`elimination.rs`: `Mesh::sample_surface_even`, Poisson-disk by sample elimination over
//! the fixed-radius neighbours of `neighbours.rs`), and points near the surface with their
//! signed distances (`near_surface.rs`: [`NearSurfaceSamples`], `Mesh::sample_near_surface`).
//!
//! May use: `points`, `scene`, `mesh`, `triangles`, `volume`, `queries`. Used by `views`
//! (the seeded numbers of `sampling.rs`).

mod blocks;
mod elimination;
mod grid;
mod grid_queries;
mod near_surface;
mod neighbours;
mod sampling;

pub use grid::Grid;
pub use near_surface::{NearSurfaceSamples, FINE_SIGMA_DIVISOR};
pub(crate) use sampling::uniform;
pub use sampling::SurfaceSamples;
