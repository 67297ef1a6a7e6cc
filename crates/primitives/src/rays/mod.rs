//! The rays room: what a query walks with. The ray and the segment (`ray.rs`: [`Ray`],
//! [`T_MIN_POSITIVE`]), the double-precision ray carried into a frame (`dray.rs`: [`DRay`]), the range a walk asks of either
//! (`range.rs`: [`RayRange`]), the axis-aligned box and its conservative slab test (`aabb.rs`:
//! [`Aabb`], [`slab`], [`slab_slack`]), and a packet's rays stored lane by lane
//! (`ray_packet.rs`: [`RayPacket`], [`RayClasses`]).
//!
//! May use: `lanes`. Used by `triangles`, `polygons`, `volumes` and `view`.

mod aabb;
mod dray;
mod range;
mod ray;
mod ray_packet;

pub use aabb::{
    bounded_slack, overflow_safe_reciprocal, slab, slab_reciprocal, slab_slack, Aabb, SLAB_SLACK,
    SLACK_FLOOR,
};
pub use dray::{carry_point, f32_at_least, f32_at_most, DFrame, DRay, FAR_SIZES};
pub use range::RayRange;
pub use ray::{Ray, T_MIN_POSITIVE};
pub use ray_packet::{lanes_like, RayClasses, RayPacket};
