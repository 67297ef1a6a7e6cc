//! The points room: queries at a point, at every level. The [`PointQueries`] trait and its
//! implementations for [`crate::Mesh`], [`crate::Instance`] and [`crate::Scene`]
//! (`point_queries.rs`: inside by the parity of a ray's crossings on closed meshes or by the
//! winding number, the winding number itself, signed distances, batches), and closest points
//! with the feature they land on (`nearest.rs`: [`ClosestPoint`], [`Feature`],
//! [`SceneClosestPoint`]).
//!
//! May use: `scene`, `mesh`, `triangles`, `volume`, `queries`. Used by nothing in the crate.

mod nearest;
mod point_queries;

pub use nearest::{ClosestPoint, Feature, SceneClosestPoint};
pub use point_queries::{PointQueries, CONTAINS_RAY_DIRECTION};
