//! The surface area heuristic (Goldsmith and Salmon, *Automatic Creation of Object
//! Hierarchies for Ray Tracing*, 1987; MacDonald and Booth, *Heuristics for ray tracing using
//! space subdivision*, 1990), written once: the binned and sweep splits, the leaf decision and
//! the reinsertion all weigh nodes with [`SahCost`].

use glam::Vec3A;
use meshcast_primitives::Aabb;

use super::input::BuildOptions;

/// The costs of one build: a node visit against a primitive test, and leaves counted in
/// whole blocks of primitives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SahCost {
    /// The cost of visiting an interior node, relative to one block of primitive tests.
    traversal: f32,
    /// Primitives tested together; a leaf costs one per started block.
    leaf_block: usize,
    /// `log2(leaf_block)` when it is a power of two (it always is in practice): a shift
    /// instead of a division by a run-time value, which was 7% of the splitter's
    /// instructions on the bunny x16.
    block_shift: Option<u32>,
}

impl SahCost {
    pub fn new(options: &BuildOptions) -> Self {
        let leaf_block = options.leaf_block.max(1);
        Self {
            traversal: options.traversal_cost,
            leaf_block,
            block_shift: leaf_block
                .is_power_of_two()
                .then(|| leaf_block.trailing_zeros()),
        }
    }

    /// The cost of testing `count` primitives: whole blocks of [`BuildOptions::leaf_block`].
    #[inline(always)]
    pub fn leaf(&self, count: usize) -> f32 {
        let blocks = match self.block_shift {
            Some(shift) => (count + self.leaf_block - 1) >> shift,
            None => count.div_ceil(self.leaf_block),
        };
        blocks as f32
    }

    /// One side of a split plane: its area times the cost of its primitives as a leaf.
    #[inline(always)]
    pub fn side(&self, area: f32, count: usize) -> f32 {
        area * self.leaf(count)
    }

    /// The cost of splitting a node of area `node_area` whose two sides' [`SahCost::side`]
    /// costs add up to `sides`, relative to the node's own area (NaN for a flat node).
    #[inline]
    pub fn split(&self, node_area: f32, sides: f32) -> f32 {
        self.traversal + sides / node_area
    }

    /// The interior node's term of a tree's cost (before division by the root's area).
    #[inline]
    pub fn interior(&self, area: f32) -> f32 {
        self.traversal * area
    }

    /// Whether a split can never beat a leaf of `count` primitives: a split costs at least
    /// one node visit. With a mesh's options (leaves tested four at a time, visits costing
    /// two) this holds for every node of up to eight triangles, which then skip the search.
    #[inline]
    pub fn split_never_wins(&self, count: usize) -> bool {
        self.leaf(count) <= self.traversal
    }

    /// Leaf versus split for a node of `count` primitives and area `node_area`, given the
    /// best split's `sides` cost. Nodes above `max_leaf` always split; a missing or NaN cost
    /// (a flat node) means leaf.
    pub fn prefers_leaf(
        &self,
        count: usize,
        max_leaf: usize,
        sides: Option<f32>,
        node_area: f32,
    ) -> bool {
        if count > max_leaf {
            return false;
        }
        let split = sides.map_or(f32::NAN, |s| self.split(node_area, s));
        let split_is_cheaper = split < self.leaf(count);
        !split_is_cheaper
    }
}

/// The surface area of a non-empty box (no emptiness check, unlike [`Aabb::surface_area`]).
#[inline(always)]
pub(crate) fn area(b: &Aabb) -> f32 {
    corner_area(b.min.into(), b.max.into())
}

/// The surface area of the non-empty box from `min` to `max`.
#[inline(always)]
pub(crate) fn corner_area(min: Vec3A, max: Vec3A) -> f32 {
    let e = max - min;
    2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
}
