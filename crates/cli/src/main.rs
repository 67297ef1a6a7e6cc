//! The meshcast command (in progress).
#![forbid(unsafe_code)]
fn main() {}
