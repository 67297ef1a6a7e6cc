//! The readers' tests, one module per format, built as one test binary.

mod obj;
mod ply;
mod stl;
