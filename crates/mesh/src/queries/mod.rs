//! The queries room: the vocabulary of asking, shared by every level. The options a query
//! takes and the rules they become at the leaves (`options.rs`: [`QueryOptions`], [`Filter`],
//! [`Culling`], `HitRules`), the handle of an instance that filters and answers carry
//! (`instance_id.rs`), the ray query trait (`ray_queries.rs`: [`RayQueries`]), the kinds of
//! query its one walk is generic over (`query_kinds.rs`: closest, any and every hit, and
//! their count), its batch driver (`batches.rs`), the walks they ask of each level besides the trait's own
//! (`batch_walks.rs`: `BatchWalks`, sealed), hit lists (`hit_lists.rs`: [`HitLists`]), sets of
//! lanes as bits (`lane_bits.rs`), the order a batch is traced in (`batch_order.rs`:
//! [`BatchOrder`]), batches that are camera images (`images.rs`), which rays of a chunk are
//! coherent enough to walk together (`coherence.rs`), and the finding of a batch's packets,
//! chunk after chunk (`packets.rs`).
//!
//! May use: nothing else of the crate. Used by every room above it.

mod batch_order;
mod batch_walks;
mod batches;
pub(crate) mod coherence;
mod hit_lists;
mod images;
mod instance_id;
mod lane_bits;
mod options;
mod packets;
mod query_kinds;
mod ray_queries;

pub(crate) use batch_order::{sorted_order, BatchFrame};
pub use batch_order::{BatchOrder, BATCH_ORDER_ENV, MIN_SORTED_BYTES, MIN_SORTED_RAYS};
pub(crate) use batch_walks::BatchWalks;
pub(crate) use batches::BATCH_GRAIN;
pub use hit_lists::HitLists;
pub use instance_id::InstanceId;
pub(crate) use lane_bits::{at_least, for_each_lane};
pub(crate) use options::HitRules;
pub use options::{Culling, Facing, Filter, KeepAll, QueryOptions, ALL_LAYERS};
pub(crate) use query_kinds::{All, Any, Closest, Count, QueryKind, RayLeaves};
pub(crate) use ray_queries::sealed;
pub use ray_queries::RayQueries;
