//! Meshes and scenes (in progress).

mod workload;

pub use workload::{camera_rays, incoherent_rays};
