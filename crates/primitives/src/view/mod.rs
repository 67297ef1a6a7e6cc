//! The view room: pixels and rays. The viewport, which turns pixels into rays and marquee
//! rectangles into frusta from a view and a projection matrix in any depth convention
//! (`viewport.rs`: [`Viewport`], [`ClipPlanes`], [`DepthConvention`]), and the pinhole
//! camera built from eye, target, up and field of view, which makes viewports (`camera.rs`:
//! [`Camera`], [`CameraFrame`]). The camera uses the viewport, never the other way.
//!
//! May use: `volumes`, `rays`, `error`. Used by nothing in the crate.

mod camera;
mod viewport;

pub use camera::{Camera, CameraFrame};
pub use viewport::{ClipPlanes, DepthConvention, Viewport};
