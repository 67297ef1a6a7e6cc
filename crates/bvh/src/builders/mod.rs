//! The builders room: how a [`Bvh`] is made. The entry point [`Bvh::build`] (here), which
//! prepares the usable boxes once and runs the builder of the chosen [`Quality`] through the
//! one top-down driver; what every builder is given (`input.rs`: [`BuildOptions`],
//! [`Quality`], [`Parallel`] and the prepared boxes); the builders themselves (`lbvh.rs`, a
//! Morton-code linear BVH; `binned.rs`, binned SAH, with `sweep.rs` for small nodes), the
//! driver they run in (`driver.rs`), the optimisation by reinsertion (`reinsertion.rs`), and
//! the surface area heuristic every one of them weighs a tree with (`cost.rs`).
//!
//! Dependencies run one way: this module calls the builders ([`binned`], [`lbvh`]) and the
//! optimisation ([`reinsertion`]); the builders call the [`driver`], everything that weighs a
//! tree uses the one formula in [`cost`], and all of them take their types from [`input`],
//! never from this module.
//!
//! May use: `binary`. Used by `wide` (the options and the SAH cost) and `primitive.rs`.

mod binned;
mod cost;
mod driver;
mod input;
mod lbvh;
mod reinsertion;
mod sweep;

use meshcast_primitives::Aabb;

pub(crate) use cost::SahCost;
use input::Prepared;
pub use input::{
    BuildOptions, Parallel, Quality, DEFAULT_BINS, DEFAULT_MAX_LEAF_PRIMITIVES,
    DEFAULT_TRAVERSAL_COST, MAX_BINS, MIN_BINS,
};

use crate::binary::Bvh;
use crate::memory::OutOfMemory;

impl Bvh {
    /// Builds a hierarchy over primitive boxes (in original primitive order), with the
    /// algorithm of `options.quality`.
    ///
    /// Boxes that are empty or not finite are dropped: their primitives are in no leaf and
    /// [`Bvh::dropped_count`] counts them. No input makes the build panic or recurse without
    /// end; with no usable box the hierarchy is empty and every query misses.
    ///
    /// # Determinism
    /// The same boxes and options give the same tree, bit for bit (nodes, their boxes and the
    /// primitive order), for any size of rayon pool and for [`Parallel::Sequential`] as for
    /// [`Parallel::Rayon`], so every query on it answers the same too. Parallel passes merge
    /// their parts in input order with the operations of the sequential pass, the sort of
    /// [`Quality::Fast`] has unique keys, and nodes are laid out in the same order whichever
    /// thread built them.
    ///
    /// Not promised: the build time; the same tree from another version of this crate; the
    /// same bits on another target, where `min` and `max` may keep the other one of `0.0` and
    /// `-0.0`, so that a box can differ in the sign of a zero.
    ///
    /// # Panics
    /// If there are more than `u32::MAX / 2` boxes. Aborts, as a `Vec` does, if a buffer
    /// cannot be allocated: [`Bvh::try_build`] returns that as an error instead.
    pub fn build(boxes: &[Aabb], options: &BuildOptions) -> Self {
        Self::try_build(boxes, options).unwrap_or_else(|error| error.abort())
    }

    /// [`Bvh::build`], with the build's large buffers (its primitives, nodes and order)
    /// reserved through `try_reserve`: a build too large for the memory there is is an
    /// error, not an abort. ([`Quality::High`]'s reinsertion passes still allocate as usual.)
    ///
    /// # Errors
    /// [`OutOfMemory`] naming the buffer that did not fit and its size.
    ///
    /// # Panics
    /// As [`Bvh::build`], when there are too many boxes.
    pub fn try_build(boxes: &[Aabb], options: &BuildOptions) -> Result<Self, OutOfMemory> {
        Self::try_build_with(boxes.len(), |i| boxes[i], options)
    }

    /// [`Bvh::try_build`] over the `count` boxes `box_of` gives (index `0..count`), made on
    /// demand, so that a caller whose boxes are cheap to compute (a mesh's triangles) never
    /// holds them all: the build's only copy is its own 32-byte record per primitive.
    /// `box_of` is called a few times per index, from rayon's threads; it must give the same
    /// box each time. The tree is the one [`Bvh::build`] makes over those boxes.
    ///
    /// # Errors
    /// As [`Bvh::try_build`].
    ///
    /// # Panics
    /// If `count` is more than `u32::MAX / 2`.
    pub fn try_build_with(
        count: usize,
        box_of: impl Fn(usize) -> Aabb + Sync,
        options: &BuildOptions,
    ) -> Result<Self, OutOfMemory> {
        assert!(
            count <= (u32::MAX / 2) as usize,
            "too many primitives for 32-bit node indices"
        );
        let prepared = Prepared::try_new(count, &box_of, options.parallel)?;
        if prepared.primitives.is_empty() {
            return Ok(Self {
                primitive_count: count,
                ..Self::default()
            });
        }
        let (nodes, order) = match options.quality {
            Quality::Fast => lbvh::build(prepared, box_of, options)?,
            Quality::Balanced => binned::build(prepared, options)?,
            Quality::High => {
                let (nodes, order) = binned::build(prepared, options)?;
                reinsertion::optimize(nodes, order, options)
            }
        };
        Ok(Self {
            nodes,
            order,
            primitive_count: count,
        })
    }
}
