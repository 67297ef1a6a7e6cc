//! The hierarchy's tests, one module per concern, built as one test binary.

mod common;

mod adversarial;
mod differential;
mod nearest_overlap;
mod packet;
mod quality;
mod refit;
mod robustness;
