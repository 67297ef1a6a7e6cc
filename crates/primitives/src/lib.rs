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

mod aabb;
mod camera;
mod closest_point;
mod ear_clipping;
mod error;
mod frustum;
mod hit;
mod lanes;
pub mod moller_trumbore;
mod plane;
mod polygon;
pub mod predicates;
mod ray;
mod ray_packet;
mod shared_corners;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod simd;
mod sphere;
#[cfg(test)]
mod test_rng;
mod transform_block;
mod triangle;
mod triangle_block;
mod triangle_distance;
mod triangle_pair;
pub mod triangle_transform;
mod triangulation;
mod viewport;
mod volume;
pub mod watertight;
mod watertight_packet;
mod z_order;

pub use aabb::{slab, slab_slack, Aabb, SLAB_SLACK};
pub use camera::{Camera, CameraFrame};
pub use closest_point::{box_distance_squared, distance_squared, TrianglePoint};
pub use error::Error;
pub use frustum::Frustum;
pub use hit::{Hit, RayHit};
#[cfg(target_arch = "x86_64")]
pub use lanes::Avx2;
pub use lanes::{Lanes, Portable, Simd, ALL_LANES, PACKET_WIDTH};
pub use plane::Plane;
pub use polygon::{Polygon, PLANARITY_TOLERANCE};
pub use ray::{Ray, T_MIN_POSITIVE};
pub use ray_packet::{lanes_like, RayClasses, RayPacket};
pub use shared_corners::triangles_intersect_beyond_shared;
#[cfg(target_arch = "x86_64")]
pub use simd::prefetch;
pub use sphere::Sphere;
pub use transform_block::{TransformBlock, TransformHits, TransformRay};
pub use triangle::Triangle;
pub use triangle_block::{BlockHits, BlockRay, TriangleBlock, BLOCK_WIDTH};
pub use triangle_distance::{closest_point_on_triangle, triangles_distance, TriangleDistance};
pub use triangle_pair::triangles_intersect;
pub use triangle_transform::TriangleTransform;
pub use triangulation::triangulate;
pub use viewport::{ClipPlanes, DepthConvention, Viewport};
pub use volume::{Overlap, Volume};
pub use watertight::{Contacts, WatertightRay};
/// Asks the CPU to bring `values` into its caches ahead of use, where it can (x86-64); here a
/// hint with nothing to do.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn prefetch<T>(_values: &[T]) {}

pub use watertight_packet::{PacketHits, RayPair, WatertightPacket};
