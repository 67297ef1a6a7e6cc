//! Rays, boxes and every single-primitive intersection test of meshcast.
//!
//! The bottom layer: geometry and the exact tests a BVH runs at its nodes ([`Aabb`]) and
//! leaves ([`Triangle`], [`Sphere`], [`Polygon`], ...). No BVH, and no allocation in any test
//! (only building a [`Polygon`] and [`triangulate`] allocate). Every test returns a [`Hit`]
//! (distance and barycentrics) or `None`, treats NaN or infinite input and degenerate
//! primitives as a miss, and never panics.
//!
//! Ray–triangle tests, all two-sided unless named culled, all returning `t`, `u`, `v`:
//! [`Triangle::intersect_watertight`] (the default, [`Triangle::intersect`]; prepared per ray
//! in [`WatertightRay`]), [`Triangle::intersect_moller_trumbore`] and
//! [`Triangle::intersect_moller_trumbore_culled`], the precomputed [`TriangleTransform`], and
//! the two-step [`Triangle::intersect_plane_inside`]. Four triangles at a time, bit for bit as
//! their scalar forms: [`TriangleBlock`] (watertight) and [`TransformBlock`]. Other
//! primitives: [`Plane`], [`Sphere`] and [`Polygon`], whose faces [`triangulate`] splits into
//! triangles.
//!
//! Triangle pairs, in `f64`: [`triangles_intersect`] (exact, Guigue and Devillers 2003, on
//! the [`predicates`]), [`triangles_intersect_beyond_shared`] for two triangles of one mesh,
//! which touch where they share corners, and [`triangles_distance`] (Ericson 2005).
//!
//! For picking and selection: [`Triangle::closest_point`] (Ericson 2005), the selection
//! [`Volume`]s (box, sphere, [`Frustum`]) with exact triangle tests (Akenine-Möller 2001 and
//! separating axes), and the [`Viewport`], which turns pixels into rays and marquee
//! rectangles into frusta from view and projection matrices in any [`DepthConvention`].
//!
//! ```
//! use glam::Vec3;
//! use meshcast_primitives::{Ray, Triangle};
//!
//! let tri = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y);
//! let ray = Ray::new(Vec3::new(0.25, 0.25, 1.0), Vec3::NEG_Z);
//! let hit = tri.intersect(&ray).ok_or("miss")?;
//! assert_eq!(hit.t, 1.0);
//! # Ok::<(), &str>(())
//! ```

mod error;
mod exact;
mod lanes;
mod polygons;
mod rays;
#[cfg(test)]
mod test_rng;
mod triangles;
mod view;
mod volumes;

pub use error::Error;
pub use exact::predicates;
pub use exact::{
    closest_point_on_triangle, ray_edge_side, ray_edge_tie, triangles_distance,
    triangles_intersect, triangles_intersect_beyond_shared, TriangleDistance,
};
#[cfg(target_arch = "x86_64")]
pub use lanes::Avx2;
pub use lanes::{prefetch, Lanes, Portable, Simd, ALL_LANES, PACKET_WIDTH};
pub use polygons::{triangulate, Plane, Polygon, PLANARITY_TOLERANCE};
pub use rays::{
    bounded_slack, carry_point, f32_at_least, f32_at_most, lanes_like, overflow_safe_reciprocal,
    slab, slab_reciprocal, slab_slack, Aabb, DFrame, DRay, Ray, RayClasses, RayPacket, RayRange,
    FAR_SIZES, SLAB_SLACK, SLACK_FLOOR, T_MIN_POSITIVE,
};
pub use triangles::{
    box_distance_squared, distance_squared, BlockHits, BlockRay, Contacts, DHit, Hit, PacketHits,
    RayHit, RayPair, TransformBlock, TransformHits, TransformRay, Triangle, TriangleBlock,
    TrianglePoint, TriangleTransform, WatertightPacket, WatertightRay, BLOCK_WIDTH,
};
pub use triangles::{moller_trumbore, triangle_transform, watertight};
pub use view::{Camera, CameraFrame, ClipPlanes, DepthConvention, Viewport};
pub use volumes::{Frustum, Overlap, Sphere, Volume};
