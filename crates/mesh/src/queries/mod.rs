//! The queries room: the vocabulary of asking, shared by every level. The options a query
//! takes and the rules they become at the leaves (`options.rs`: [`QueryOptions`], [`Filter`],
//! [`Culling`], `HitRules`), the handle of an instance that filters and answers carry
//! (`instance_id.rs`), the ray query trait with its batches and hit lists
//! (`ray_queries.rs`: [`RayQueries`], [`HitLists`]), and the grouping of a batch's coherent
//! rays into packets (`packets.rs`).
//!
//! May use: nothing else of the crate. Used by every room above it.

mod instance_id;
mod options;
pub(crate) mod packets;
mod ray_queries;

pub use instance_id::InstanceId;
pub(crate) use options::HitRules;
pub use options::{Culling, Facing, Filter, KeepAll, QueryOptions, ALL_LAYERS};
pub(crate) use ray_queries::{at_least, for_each_lane, sealed, BATCH_GRAIN};
pub use ray_queries::{HitLists, RayQueries};
