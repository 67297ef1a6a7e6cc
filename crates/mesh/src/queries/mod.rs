//! The queries room: the vocabulary of asking, shared by every level. The options a query
//! takes and the rules they become at the leaves (`options.rs`: [`QueryOptions`], [`Filter`],
//! [`Culling`], `HitRules`), the handle of an instance that filters and answers carry
//! (`instance_id.rs`), the precision of a query's ray and point (`query_ray.rs`: [`QueryRay`];
//! `query_point.rs`: [`QueryPoint`]), the
//! ray query trait (`ray_queries.rs`: [`RayQueries`]), the kinds of
//! query its one walk is generic over (`query_kinds.rs`: the bvh's closest, any and every
//! hit, and their count, with the hit rules each asks and a packet's answers), what each level implements and every query is derived from
//! (`level_walks.rs`: `LevelWalks`, sealed: one ray's walk for every kind and a batch's, for
//! rays of each precision; `PacketWalks`: the packet walks of `f32` batches), how the queries are derived from those walks
//! (`batch_queries.rs`: the distance limit's cut, batches ray by ray; `level_batch.rs`: a
//! level asked one kind, whose batch tasks walk packets sixteen rays at a time), and hit lists (`hit_lists.rs`: [`HitLists`]). How a batch is
//! scheduled, sorted and cut into packets is the batches room's.
//!
//! May use: the batches room. Used by every room above it.

mod batch_queries;
mod hit_lists;
mod instance_id;
mod level_batch;
mod level_walks;
mod options;
mod query_kinds;
mod query_point;
mod query_ray;
mod ray_queries;

pub use hit_lists::HitLists;
pub use instance_id::InstanceId;
pub(crate) use level_batch::{batch_packets, packet_task, serial_batch_packets};
pub(crate) use level_walks::{walk_rays, LevelWalks, PacketWalks};
pub(crate) use options::HitRules;
pub use options::{Culling, Facing, Filter, KeepAll, QueryOptions, ALL_LAYERS};
pub(crate) use query_kinds::{All, Any, Closest, Count, PacketKind, QueryKind};
pub use query_point::{QueryBox, QueryPoint};
pub use query_ray::QueryRay;
pub(crate) use ray_queries::sealed;
pub use ray_queries::RayQueries;
