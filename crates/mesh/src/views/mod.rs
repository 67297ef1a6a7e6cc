//! The views room: what viewpoints see of a mesh and how open its surface is. Vertices and
//! triangles seen unoccluded from eye points or in a [`Viewport`]'s image
//! (`vertices.rs`, `triangles.rs`), the visible triangles under a screen polygon, for
//! editors (`lasso.rs`: `Mesh::lasso_triangles`, `Scene::lasso_triangles`), and per-vertex
//! ambient occlusion and thickness (`occlusion.rs`: [`Thickness`]), over the rays of
//! `sight.rs` (rays that start at a vertex, traced as batches) and the directions of
//! `directions.rs` (cosine-weighted hemispheres and cones, from seeded numbers).
//!
//! May use: `fields` (the seeded numbers), `points`, `scene`, `mesh`, `triangles`,
//! `volume`, `queries`, `error`. Used by nothing in the crate.
//!
//! [`Viewport`]: meshcast_primitives::Viewport

mod directions;
mod lasso;
mod occlusion;
mod sight;
#[cfg(test)]
mod tests;
mod triangles;
mod vertices;

pub use occlusion::Thickness;
pub use triangles::MAX_SIDE_SAMPLES;
