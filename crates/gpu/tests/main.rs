//! The GPU path's tests, built as one test binary.

mod common;

mod cuda;
mod device_rays;
mod gpu;
mod options;
