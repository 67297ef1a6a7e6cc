//! A bounding volume hierarchy over anything with a bounding box and a ray test.
//!
//! The layer above `meshcast-primitives`: the [`Bvh`] is built over primitive boxes
//! ([`Bvh::build`], on a ladder of [`Quality`]: a Morton-code linear BVH, binned SAH, or
//! binned SAH polished by reinsertion) into one array of 32-byte [`Node`]s, and traversed
//! with a leaf closure, so the same code serves
//! triangles, spheres, polygons and whole mesh instances. [`Primitive`] is implemented for
//! [`meshcast_primitives::Triangle`] (the watertight test), and the `*_primitives` queries
//! run over a slice of primitives. Every query returns what a brute-force loop over all
//! primitives with the same test and tie rule returns, bit for bit.
//!
//! For fast ray queries, [`WideBvh::from_binary`] collapses a built tree into eight-wide
//! nodes whose boxes one ray tests together, with leaves aligned for testing four
//! primitives at once (a mesh keeps its triangles in that layout); it answers the same
//! queries with the same results.
//!
//! ```
//! use glam::Vec3;
//! use meshcast_bvh::{BuildOptions, Bvh};
//! use meshcast_primitives::{Ray, Triangle};
//!
//! let triangles: Vec<Triangle> = (0..10)
//!     .map(|i| {
//!         let z = Vec3::Z * i as f32;
//!         Triangle::new(z, z + Vec3::X, z + Vec3::Y)
//!     })
//!     .collect();
//! let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
//! bvh.validate(&triangles.iter().map(Triangle::bounds).collect::<Vec<_>>())?;
//! let ray = Ray::new(Vec3::new(0.25, 0.25, 4.5), Vec3::Z);
//! let hit = bvh.cast_primitives(&triangles, &ray).ok_or("miss")?;
//! assert_eq!((hit.triangle, hit.t), (5, 0.5));
//! assert_eq!(bvh.cast_all_primitives(&triangles, &ray).len(), 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The rooms; each may use only the rooms below it in ARCHITECTURE.md's "Inside
// meshcast-bvh" (layout, contracts, simd, error, first_hits, query, binary, builders,
// primitive, wide; nearest, overlap and stats on top).
mod binary;
mod builders;
mod contracts;
mod error;
mod first_hits;
#[allow(unsafe_code)]
mod huge_pages;
mod layout;
mod memory;
mod nearest;
mod overlap;
mod primitive;
mod query;
#[allow(unsafe_code)]
mod simd;
mod stats;
mod wide;

pub use binary::{BoxTest, Bvh, Node, STACK_INLINE_CAPACITY};
pub use builders::{
    BuildOptions, Parallel, Quality, DEFAULT_BINS, DEFAULT_MAX_LEAF_PRIMITIVES,
    DEFAULT_TRAVERSAL_COST, MAX_BINS, MIN_BINS,
};
pub use contracts::{Counters, LeafHits, LeafIntersector, PacketLeaves, TraversalCounts};
pub use error::Error;
pub use huge_pages::HUGE_PAGES_ENV;
pub use layout::{WideLane, WideNode, LEAF_ALIGNMENT, PADDING_SLOT, WIDE_WIDTH};
pub use memory::{try_filled, try_grow, try_reserve, try_vec, OutOfMemory};
pub use primitive::{PreparedRay, Primitive};
pub use query::{All, Any, Closest, Count, PacketQuery, Query, Step};
pub use simd::{Kernel, UnknownKernel, KERNEL_ENV};
pub use stats::{BvhStats, SAH_TRAVERSAL_COST};
pub use wide::WideBvh;
