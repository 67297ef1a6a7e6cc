//! The command line's tests, one module per command or concern, built as one test binary that runs the `meshcast` executable.

mod support;

mod bench;
mod cache;
mod commands;
mod errors;
mod far;
mod fields;
mod gltf;
mod gpu;
mod points;
