//! The mesh's triangles in the wide hierarchy's leaf order, four to a block in the layout of
//! its [`LeafTest`]: how the blocks are laid out, and, borrowed with their tree and triangles
//! ([`MeshLeaves`]), the one single-ray walk over them, generic over the query kind, which
//! matches the layout once per ray so that every layout gets its own monomorphised walk
//! (`leaves.rs`). The packet queries are in `packet_leaves.rs`.

use meshcast_bvh::{
    try_vec, Counters, OutOfMemory, Parallel, WideBvh, LEAF_ALIGNMENT, PADDING_SLOT,
};
use meshcast_primitives::{
    prefetch, Aabb, BlockRay, Hit, Ray, TransformBlock, TransformRay, Triangle, TriangleBlock,
    TriangleTransform, BLOCK_WIDTH,
};
use rayon::prelude::*;

use super::leaves::Leaves;
use crate::queries::{HitRules, QueryKind};
use crate::triangles::{LeafTest, TriMesh};

const _: () = assert!(BLOCK_WIDTH == LEAF_ALIGNMENT);

/// Blocks one rayon task lays out at least.
const PARALLEL_BLOCKS: usize = 1 << 12;

/// The triangles of a mesh laid out for its leaf test: block `b` holds the triangles of the
/// wide hierarchy's slots `4 b .. 4 b + 4` (padding slots hold no triangle).
#[derive(Clone, Debug)]
pub(crate) enum LeafBlocks {
    /// The corners, for [`LeafTest::Watertight`].
    Watertight(Vec<TriangleBlock>),
    /// The world-to-triangle transforms, for [`LeafTest::Transform`].
    Transform(Vec<TransformBlock>),
}

impl LeafBlocks {
    /// The blocks of `tri_mesh`'s triangles in `wide`'s padded leaf order for `leaf_test`,
    /// made with rayon when `parallel` says so; [`OutOfMemory`] if they cannot be allocated.
    pub(crate) fn new(
        tri_mesh: &TriMesh,
        wide: &WideBvh,
        parallel: Parallel,
        leaf_test: LeafTest,
    ) -> Result<Self, OutOfMemory> {
        Self::from_order(tri_mesh, wide.primitive_order(), parallel, leaf_test)
    }

    /// [`LeafBlocks::new`] from the padded leaf order alone, before its hierarchy is made,
    /// and the box around each block's triangles, `None` if one is degenerate: what a cache
    /// checks its hierarchy against ([`meshcast_bvh::WideBvh::from_parts_with`]). A slot
    /// naming no triangle of `tri_mesh` is left empty. The blocks are the same as
    /// [`LeafBlocks::new`]'s.
    pub(crate) fn with_block_bounds(
        tri_mesh: &TriMesh,
        order: &[u32],
        parallel: Parallel,
        leaf_test: LeafTest,
    ) -> Result<(Self, Vec<Option<Aabb>>), OutOfMemory> {
        // One pass: each block's triangles are gathered once, laid out and bounded together
        // (a second, streaming pass over the laid-out watertight blocks for their boxes, and a
        // second gather for transform blocks, cost a whole pass over the blocks).
        Ok(match leaf_test {
            LeafTest::Watertight => {
                let (blocks, bounds) = blocks_and_bounds(tri_mesh, order, parallel, |slots| {
                    let mut block = TriangleBlock::EMPTY;
                    let mut bounds = Some(Aabb::EMPTY);
                    for (lane, triangle) in triangles(tri_mesh, slots).enumerate() {
                        block.set(lane, &triangle);
                        bounds = bounded(bounds, &triangle);
                    }
                    (block, bounds)
                })?;
                (Self::Watertight(blocks), bounds)
            }
            LeafTest::Transform => {
                let (blocks, bounds) = blocks_and_bounds(tri_mesh, order, parallel, |slots| {
                    let mut block = TransformBlock::EMPTY;
                    let mut bounds = Some(Aabb::EMPTY);
                    for (lane, triangle) in triangles(tri_mesh, slots).enumerate() {
                        // As in `from_order`: an unrepresentable transform stays unused.
                        if let Some(transform) = TriangleTransform::new(&triangle) {
                            block.set(lane, &transform);
                        }
                        bounds = bounded(bounds, &triangle);
                    }
                    (block, bounds)
                })?;
                (Self::Transform(blocks), bounds)
            }
        })
    }

    /// The blocks of `order`'s slots in the layout of `leaf_test`, each filled lane by lane
    /// from the slots naming a triangle of `tri_mesh`.
    fn from_order(
        tri_mesh: &TriMesh,
        order: &[u32],
        parallel: Parallel,
        leaf_test: LeafTest,
    ) -> Result<Self, OutOfMemory> {
        Ok(match leaf_test {
            LeafTest::Watertight => Self::Watertight(blocks(order, parallel, |slots| {
                let mut block = TriangleBlock::EMPTY;
                for (lane, triangle) in triangles(tri_mesh, slots).enumerate() {
                    block.set(lane, &triangle);
                }
                block
            })?),
            LeafTest::Transform => Self::Transform(blocks(order, parallel, |slots| {
                let mut block = TransformBlock::EMPTY;
                for (lane, triangle) in triangles(tri_mesh, slots).enumerate() {
                    // A transform that is not representable stays an unused lane, as the
                    // scalar test never hits its triangle either.
                    if let Some(transform) = TriangleTransform::new(&triangle) {
                        block.set(lane, &transform);
                    }
                }
                block
            })?),
        })
    }

    /// The test these blocks are laid out for.
    pub(crate) fn leaf_test(&self) -> LeafTest {
        match self {
            Self::Watertight(_) => LeafTest::Watertight,
            Self::Transform(_) => LeafTest::Transform,
        }
    }

    /// Heap memory of the blocks.
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Self::Watertight(blocks) => blocks.capacity() * core::mem::size_of::<TriangleBlock>(),
            Self::Transform(blocks) => blocks.capacity() * core::mem::size_of::<TransformBlock>(),
        }
    }
}

/// A mesh's leaf blocks with the hierarchy and the triangles they are laid out from: what
/// every walk over them borrows, so that the three travel as one.
#[derive(Clone, Copy)]
pub(crate) struct MeshLeaves<'a> {
    pub(crate) blocks: &'a LeafBlocks,
    pub(crate) wide: &'a WideBvh,
    pub(crate) tri_mesh: &'a TriMesh,
}

impl MeshLeaves<'_> {
    /// The answer of `kind` for `ray` among the hits that `keep` accepts and `rules` do not
    /// skip, adding what the traversal visited to `counters` (`&mut ()` counts nothing): the
    /// leaves' tier of a ray's road, which matches the layout once per ray and hands the
    /// tree's walk ([`WideBvh::traverse`]) that layout's leaf test, each monomorphised.
    #[inline(always)]
    pub(crate) fn trace<Q: QueryKind>(
        self,
        ray: &Ray,
        rules: HitRules,
        keep: impl FnMut(u32) -> bool,
        kind: Q,
        counters: &mut impl Counters,
    ) -> Q::Answer<Hit> {
        let (wide, tri_mesh) = (self.wide, self.tri_mesh);
        match self.blocks {
            LeafBlocks::Watertight(blocks) => {
                let leaves = Leaves::new(blocks, wide, tri_mesh);
                let leaf = leaves.leaf::<BlockRay, _>(ray, rules, keep);
                wide.traverse(ray, kind, leaf, counters)
            }
            LeafBlocks::Transform(blocks) => {
                let leaves = Leaves::new(blocks, wide, tri_mesh);
                let leaf = leaves.leaf::<TransformRay, _>(ray, rules, keep);
                wide.traverse(ray, kind, leaf, counters)
            }
        }
    }

    /// The triangle in slot `slot` of the hierarchy (NaN corners for a padding slot).
    /// Transform blocks keep no corners: theirs come from the mesh's triangles.
    #[inline]
    pub(crate) fn triangle(self, slot: u32) -> Triangle {
        let slot = slot as usize;
        match self.blocks {
            LeafBlocks::Watertight(blocks) => {
                blocks[slot / BLOCK_WIDTH].triangle(slot % BLOCK_WIDTH)
            }
            LeafBlocks::Transform(_) => self
                .tri_mesh
                .slot_triangle(self.wide.primitive_order()[slot]),
        }
    }
}

/// `block` of each block's slots of `order`, in order, on rayon when `parallel` says so.
fn blocks<B: Send>(
    order: &[u32],
    parallel: Parallel,
    block: impl Fn(&[u32]) -> B + Sync + Send,
) -> Result<Vec<B>, OutOfMemory> {
    let mut out = try_vec(order.len().div_ceil(BLOCK_WIDTH), "the leaf blocks")?;
    match parallel {
        Parallel::Rayon => order
            .par_chunks(BLOCK_WIDTH)
            .with_min_len(PARALLEL_BLOCKS)
            .map(block)
            .collect_into_vec(&mut out),
        Parallel::Sequential => out.extend(order.chunks(BLOCK_WIDTH).map(block)),
    }
    Ok(out)
}

/// The triangles of a block's slots, padding and slots naming no triangle left out.
fn triangles<'a>(tri_mesh: &'a TriMesh, slots: &'a [u32]) -> impl Iterator<Item = Triangle> + 'a {
    slots
        .iter()
        .filter(|&&index| index != PADDING_SLOT)
        .filter_map(|&index| tri_mesh.triangle(index as usize))
}

/// [`blocks`] with the box around each block's triangles beside each block, in one pass
/// over `tri_mesh`'s triangles in `order`, which asks for their corners ahead of their use.
fn blocks_and_bounds<B: Send>(
    tri_mesh: &TriMesh,
    order: &[u32],
    parallel: Parallel,
    block: impl Fn(&[u32]) -> (B, Option<Aabb>) + Sync + Send,
) -> Result<(Vec<B>, Vec<Option<Aabb>>), OutOfMemory> {
    let count = order.len().div_ceil(BLOCK_WIDTH);
    let mut blocks = try_vec(count, "the leaf blocks")?;
    let mut bounds = try_vec(count, "the leaf blocks' boxes")?;
    let (indices, positions) = (tri_mesh.indices(), tri_mesh.positions());
    let slots = |b: usize| {
        order
            .get(b * BLOCK_WIDTH..)
            .unwrap_or_default()
            .iter()
            .take(BLOCK_WIDTH)
    };
    // The gather is bound by memory latency (leaf order is not the triangles' order): each
    // block asks for the index triples of a block `FAR` ahead and the corners of one `NEAR`
    // ahead, whose triples were asked for earlier.
    const FAR: usize = 16;
    const NEAR: usize = 8;
    let ahead = |b: usize| {
        for &t in slots(b + FAR) {
            if let Some(corners) = indices.get(t as usize) {
                prefetch(core::slice::from_ref(corners));
            }
        }
        for &t in slots(b + NEAR) {
            for &v in indices.get(t as usize).into_iter().flatten() {
                if let Some(corner) = positions.get(v as usize) {
                    prefetch(core::slice::from_ref(corner));
                }
            }
        }
    };
    match parallel {
        Parallel::Rayon => order
            .par_chunks(BLOCK_WIDTH)
            .enumerate()
            .with_min_len(PARALLEL_BLOCKS)
            .map(|(b, slots)| {
                ahead(b);
                block(slots)
            })
            .unzip_into_vecs(&mut blocks, &mut bounds),
        Parallel::Sequential => {
            for (b, slots) in order.chunks(BLOCK_WIDTH).enumerate() {
                ahead(b);
                let (laid_out, bound) = block(slots);
                blocks.push(laid_out);
                bounds.push(bound);
            }
        }
    }
    Ok((blocks, bounds))
}

/// `bounds` grown by `triangle`'s box, `None` once a triangle is degenerate.
fn bounded(bounds: Option<Aabb>, triangle: &Triangle) -> Option<Aabb> {
    bounds.and_then(|b| (!triangle.is_degenerate()).then(|| b.union(triangle.bounds())))
}
