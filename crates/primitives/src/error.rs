//! The crate's error: why a [`crate::Polygon`] or a [`crate::Viewport`] could not be built.

use glam::Vec3;

/// Why a polygon was rejected by [`crate::Polygon::new`], or a viewport by
/// [`crate::Viewport::new`].
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_primitives::{Error, Polygon};
///
/// let err = Polygon::new([Vec3::ZERO, Vec3::X]).err().ok_or("accepted two vertices")?;
/// assert_eq!(err, Error::TooFewVertices { count: 2 });
/// assert_eq!(err.to_string(), "a polygon needs at least 3 vertices, got 2");
/// # Ok::<(), &str>(())
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// Fewer than three vertices.
    #[error("a polygon needs at least 3 vertices, got {count}")]
    TooFewVertices {
        /// How many vertices were given.
        count: usize,
    },
    /// A vertex has a NaN or infinite coordinate.
    #[error("vertex {vertex} is not finite: {value}")]
    NonFinite {
        /// The index of the vertex.
        vertex: usize,
        /// Its coordinates.
        value: Vec3,
    },
    /// The vertices enclose no area (all collinear or repeated), or the area is not finite.
    #[error("the polygon encloses no area, or an area too large for f32")]
    ZeroArea,
    /// A vertex lies too far from the polygon's plane.
    #[error("the polygon is not planar: vertex {vertex} lies {distance} from its plane (tolerance {tolerance})")]
    NonPlanar {
        /// The index of the vertex farthest from the plane.
        vertex: usize,
        /// Its distance from the plane.
        distance: f32,
        /// The largest distance accepted for this polygon (see [`crate::PLANARITY_TOLERANCE`]).
        tolerance: f32,
    },
    /// A [`crate::Viewport`] that cannot turn pixels into rays.
    #[error("invalid viewport: {reason}")]
    InvalidViewport {
        /// What is wrong (no pixels, a non-finite matrix, a singular projection).
        reason: &'static str,
    },
}
