//! The volumes room: the shapes a selection takes and their exact triangle tests. The sphere
//! with its ray test (`sphere.rs`: [`Sphere`]), the frustum, a convex volume such as the view
//! behind a marquee rectangle (`frustum.rs`: [`Frustum`]), and the selection [`Volume`] (box,
//! sphere or frustum) with its triangle tests and how it relates to a node box (`volume.rs`:
//! [`Volume`], [`Overlap`]).
//!
//! May use: `triangles`, `rays`. Used by `view`.

mod frustum;
mod sphere;
mod volume;

pub use frustum::Frustum;
pub use sphere::Sphere;
pub use volume::{Overlap, Volume};
