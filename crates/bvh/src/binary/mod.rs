//! The binary room: the binary tree. Its 32-byte node (`node.rs`: [`Node`]), the hierarchy
//! with its leaf order, accessors and invariant check (`bvh.rs`: [`Bvh`]), its walks over a
//! leaf closure, closest, any and all hits, single rays and packets (`traverse.rs`), how they
//! test boxes against rays of either precision (`box_test.rs`: [`BoxTest`]), and its
//! refit after the primitives move (`refit.rs`). How it is built lives in `builders/`; the
//! walks both trees share (nearest, overlap, stats) at the crate root.
//!
//! May use: `first_hits.rs`, `error.rs`. Used by `builders`, `wide`, and at the crate root
//! `primitive.rs` and the shared walks.

mod box_test;
mod bvh;
mod node;
mod refit;
mod traverse;

pub use box_test::BoxTest;
pub use bvh::Bvh;
pub use node::Node;
pub(crate) use refit::refit_nodes;
pub use traverse::STACK_INLINE_CAPACITY;
