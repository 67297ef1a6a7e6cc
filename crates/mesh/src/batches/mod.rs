//! The batches room: how a batch of rays is traced, whatever is asked of each ray. The order
//! a batch is traced in (`order.rs`: [`BatchOrder`], sorted by a Morton code of origin and
//! direction when that pays), batches that are camera images and their tiles (`images.rs`),
//! what the driver reads of a batch's rays, `f32` or `f64` (`batch_ray.rs`), which rays of
//! a chunk are coherent enough to walk a hierarchy together (`coherence.rs`),
//! the finding of a batch's packets chunk after chunk (`finder.rs`), sets of a packet's lanes
//! as bits (`lane_bits.rs`), and the driver every batch query runs through: tasks on the
//! rayon pool, the sort and its undoing (`driver.rs`). What a task does with its rays is
//! handed in, a closure per task: the queries room's walk of packets and pairs of packets
//! (`queries/level_batch.rs`), or of one ray at a time.
//!
//! May use: nothing else of the crate. Used by the queries room and every room above it.

mod batch_ray;
pub(crate) mod coherence;
mod driver;
mod finder;
mod images;
mod lane_bits;
mod order;

pub(crate) use batch_ray::BatchRay;
pub(crate) use driver::{parallel_batch, serial_batch_in_order, BatchTask, BATCH_GRAIN};
pub(crate) use finder::PacketFinder;
pub(crate) use images::TILE_SIDE;
pub(crate) use lane_bits::{at_least, for_each_lane};
pub(crate) use order::BatchFrame;
pub use order::{BatchOrder, BATCH_ORDER_ENV, MIN_SORTED_BYTES, MIN_SORTED_RAYS};
