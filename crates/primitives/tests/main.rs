//! The primitives' tests, one module per concern, built as one test binary.

mod common;

mod polygon;
mod robustness;
mod shared_corners;
mod triangle_distance;
mod triangle_pair;
mod triangle_tests_agree;
mod triangle_transform;
mod triangulation;
