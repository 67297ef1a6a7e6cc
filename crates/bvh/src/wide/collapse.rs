//! Collapsing a binary [`Bvh`] into a [`WideBvh`]. Each wide node's lanes are chosen by the
//! SAH-optimal dynamic program of Ylitie, Karras and Laine (2017; `sah.rs`), or by the
//! usual greedy rule, which keeps opening the child of largest surface area until the node
//! has [`WIDE_WIDTH`] (Wald, Benthin, Boulos, *Getting Rid of Packets*, 2008).
//!
//! The layout is fixed by the tree alone: a node's child nodes are contiguous, and the
//! subtrees below them follow from the last lane to the first, each laid out the same way;
//! leaves take slots in that order too. The top levels are collapsed on rayon, each subtree into a piece of
//! its own, and the pieces are joined in lane order, so any number of threads lays out the
//! same nodes.

use rayon::prelude::*;

use super::sah::{Lane, Lanes, SahCollapse};
use super::MAX_NODES;
use crate::binary::{Bvh, Node};
use crate::builders::{BuildOptions, Parallel};
use crate::layout::{WideNode, LEAF_ALIGNMENT, PADDING_SLOT, WIDE_WIDTH};
use crate::memory::{try_vec, OutOfMemory};
use crate::simd::SupportedKernel;
use crate::wide::WideBvh;

/// Wide levels whose child subtrees are collapsed in parallel (the root is level 1): up to
/// 8^3 pieces.
const PARALLEL_LEVELS: u32 = 3;
/// Binary trees with fewer nodes are collapsed on one thread.
const PARALLEL_BINARY_NODES: usize = 1 << 13;

impl WideBvh {
    /// Collapses `binary` on the current rayon pool with the default costs, for traversal
    /// with [`crate::Kernel::preferred`] (see [`WideBvh::from_binary_with`]).
    ///
    /// # Panics
    /// If the collapse makes more than 2^28 nodes (64 GiB of them: memory runs out first).
    pub fn from_binary(binary: &Bvh) -> Self {
        Self::from_binary_with(binary, &BuildOptions::default())
    }

    /// Collapses `binary` into eight-wide nodes of least SAH cost (Ylitie, Karras, Laine,
    /// *Efficient Incoherent Ray Traversal on GPUs Through Compressed Wide BVHs*, HPG 2017,
    /// section 3.1), with the costs `binary` was built with: a node visit costs
    /// `options.traversal_cost` against a block of [`LEAF_ALIGNMENT`] primitive tests. Each
    /// wide node's lanes are binary subtrees, each held as a wide node or, with at most
    /// `options.max_leaf_primitives` primitives, as a leaf padded to a multiple of
    /// [`LEAF_ALIGNMENT`] slots. A flat tree (boxes on a line or a point, every area zero) is
    /// collapsed as [`WideBvh::from_binary_greedy`] does. Runs on rayon or on the calling
    /// thread as `options.parallel` says; the nodes are the same either way.
    ///
    /// Measured against the greedy collapse on meshes (the bunny, the ogre and the bunny
    /// subdivided twice; one thread, callgrind): 1.2 to 5.7% fewer nodes visited per ray, 0.1
    /// to 2.2% fewer instructions per ray (coherent and incoherent, closest and any hit; the
    /// bunny's coherent any-hit rays 0.3% more), lower SAH costs (bunny 20.26 to 19.06, at a
    /// mesh's costs) and 30 to 45% fewer nodes, for 1.6 times the collapse's instructions
    /// (1.2% more for the whole mesh build).
    ///
    /// # Panics
    /// As [`WideBvh::from_binary`]. Aborts, as a `Vec` does, if a buffer cannot be
    /// allocated: [`WideBvh::try_from_binary_with`] returns that as an error instead.
    pub fn from_binary_with(binary: &Bvh, options: &BuildOptions) -> Self {
        Self::try_from_binary_with(binary, options).unwrap_or_else(|error| error.abort())
    }

    /// [`WideBvh::from_binary_with`], with the collapse's large buffers (a price per binary
    /// node, the wide nodes and the slots) reserved through `try_reserve`.
    ///
    /// # Errors
    /// [`OutOfMemory`] naming the buffer that did not fit and its size.
    ///
    /// # Panics
    /// As [`WideBvh::from_binary`].
    pub fn try_from_binary_with(binary: &Bvh, options: &BuildOptions) -> Result<Self, OutOfMemory> {
        let options = BuildOptions {
            parallel: parallel_for(binary, options.parallel),
            ..*options
        };
        // The SAH cannot tell apart the collapses of a flat tree (boxes on a line or a point),
        // where every area and every cost is zero: the greedy rule fills its nodes.
        let choice = SahCollapse::new(binary, &options)?.map_or(Choice::Greedy, Choice::Sah);
        Self::collapse(binary, &choice, options.parallel)
    }

    /// Collapses `binary` greedily: each wide node takes its binary node's children and keeps
    /// opening the one with the largest surface area until it has [`WIDE_WIDTH`] (Wald et al.
    /// 2008); leaves keep the binary tree's leaves, each padded to a multiple of
    /// [`LEAF_ALIGNMENT`] slots. Kept to compare with [`WideBvh::from_binary_with`].
    ///
    /// # Panics
    /// As [`WideBvh::from_binary`].
    pub fn from_binary_greedy(binary: &Bvh, parallel: Parallel) -> Self {
        Self::collapse(binary, &Choice::Greedy, parallel_for(binary, parallel))
            .unwrap_or_else(|error| error.abort())
    }

    fn collapse(binary: &Bvh, choice: &Choice, parallel: Parallel) -> Result<Self, OutOfMemory> {
        let mut wide = Self {
            nodes: Vec::new(),
            order: Vec::new(),
            bounds: binary.bounds(),
            primitive_count: binary.primitive_count(),
            depth: 0,
            kernel: SupportedKernel::preferred(),
        };
        if binary.is_empty() {
            return Ok(wide);
        }
        let piece = Piece::collapse(binary, choice, 0, 1, parallel);
        assert!(
            piece.node_total <= MAX_NODES,
            "a wide hierarchy holds at most 2^28 nodes"
        );
        wide.depth = piece.depth;
        if piece.subtrees.is_empty() {
            // Collapsed on one thread: the piece is the tree.
            wide.nodes = piece.nodes;
            wide.order = piece.order;
            wide.nodes.shrink_to_fit();
            wide.order.shrink_to_fit();
        } else {
            wide.nodes = try_vec(piece.node_total, "the hierarchy's wide nodes")?;
            wide.order = try_vec(piece.slot_total, "the hierarchy's slots")?;
            wide.nodes.push(WideNode::EMPTY);
            piece.emit(0, &mut wide.nodes, &mut wide.order);
        }
        Ok(wide)
    }
}

/// `parallel`, unless `binary` is too small to share out.
fn parallel_for(binary: &Bvh, parallel: Parallel) -> Parallel {
    if binary.nodes().len() < PARALLEL_BINARY_NODES {
        Parallel::Sequential
    } else {
        parallel
    }
}

/// How each wide node's lanes are chosen.
enum Choice {
    Greedy,
    Sah(SahCollapse),
}

impl Choice {
    /// The lanes of the wide node made of binary node `root`.
    fn lanes(&self, nodes: &[Node], root: u32) -> Lanes {
        match self {
            Choice::Greedy => Greedy::open(nodes, root).lanes(nodes),
            Choice::Sah(sah) => sah.lanes(nodes, root),
        }
    }
}

/// A collapsed subtree: its root is `nodes[0]`, node lanes index `nodes` and leaf lanes
/// `order`, as if the piece were the whole tree. A piece of the parallel top holds only its
/// root and the nodes reserved for its children, whose own pieces are `subtrees`; they are
/// joined once, by [`Piece::emit`], into arrays of the final size.
struct Piece {
    nodes: Vec<WideNode>,
    order: Vec<u32>,
    /// For each interior lane of the root, in lane order: the index in `nodes` of the node
    /// reserved for it and the piece that fills it (empty below the parallel levels, where
    /// `nodes` holds the whole subtree).
    subtrees: Vec<(u32, Piece)>,
    /// Nodes and slots of the whole subtree.
    node_total: usize,
    slot_total: usize,
    /// The deepest level reached, counting the whole tree's root as 1.
    depth: u32,
}

impl Piece {
    fn new(level: u32) -> Self {
        Self {
            nodes: vec![WideNode::EMPTY],
            order: Vec::new(),
            subtrees: Vec::new(),
            node_total: 0,
            slot_total: 0,
            depth: level,
        }
    }

    /// The subtree under binary node `root`, whose wide node sits at `level`.
    fn collapse(binary: &Bvh, choice: &Choice, root: u32, level: u32, parallel: Parallel) -> Self {
        if parallel == Parallel::Sequential || level > PARALLEL_LEVELS {
            return Self::collapse_sequential(binary, choice, root, level);
        }
        let mut piece = Self::new(level);
        let (node, children) = piece.fill(binary, choice, root);
        piece.nodes[0] = node;
        piece.subtrees = children
            .par_iter()
            .map(|&(index, child)| {
                (
                    index,
                    Self::collapse(binary, choice, child, level + 1, parallel),
                )
            })
            .collect();
        // Each subtree's root fills a node counted here already.
        piece.node_total = piece.nodes.len();
        piece.slot_total = piece.order.len();
        for (_, subtree) in &piece.subtrees {
            piece.node_total += subtree.node_total - 1;
            piece.slot_total += subtree.slot_total;
            piece.depth = piece.depth.max(subtree.depth);
        }
        piece
    }

    /// Writes this piece's root at `out[index]` (already there) and appends the rest of its
    /// nodes, then its subtrees' from the last lane to the first, and its slots, then
    /// theirs: the layout of the sequential collapse.
    fn emit(self, index: usize, out: &mut Vec<WideNode>, order: &mut Vec<u32>) {
        // Local node i >= 1 lands at out.len() + i - 1.
        let node_shift = out.len() as u32 - 1;
        let slot_shift = order.len() as u32;
        order.extend_from_slice(&self.order);
        let mut nodes = self.nodes.iter().map(|n| n.shifted(node_shift, slot_shift));
        out[index] = nodes.next().expect("a piece has its root");
        out.extend(nodes);
        for (local, subtree) in self.subtrees.into_iter().rev() {
            subtree.emit((local + node_shift) as usize, out, order);
        }
    }

    /// [`Piece::collapse`] on the calling thread, with an explicit stack so that no tree is
    /// too deep. Children are popped from the last lane to the first: the layout of the
    /// parallel collapse.
    fn collapse_sequential(binary: &Bvh, choice: &Choice, root: u32, level: u32) -> Self {
        let mut piece = Self::new(level);
        let mut stack = vec![(0u32, root, level)];
        while let Some((index, root, level)) = stack.pop() {
            piece.depth = piece.depth.max(level);
            let (node, children) = piece.fill(binary, choice, root);
            piece.nodes[index as usize] = node;
            stack.extend(
                children
                    .iter()
                    .map(|&(index, child)| (index, child, level + 1)),
            );
        }
        piece.node_total = piece.nodes.len();
        piece.slot_total = piece.order.len();
        piece
    }

    /// The wide node made from binary node `root`: its leaf lanes' slots are appended to
    /// `order` and a node is reserved (empty) for each interior lane, together. Returns the
    /// node and, for each interior lane, the reserved node's index and its binary node.
    fn fill(&mut self, binary: &Bvh, choice: &Choice, root: u32) -> (WideNode, Vec<(u32, u32)>) {
        let mut node = WideNode::EMPTY;
        let mut children = Vec::with_capacity(WIDE_WIDTH);
        for (lane, Lane { node: child, slots }) in
            choice.lanes(binary.nodes(), root).into_iter().enumerate()
        {
            node.set_bounds(lane, binary.nodes()[child as usize].bounds());
            match slots {
                Some(slots) => {
                    let first = self.order.len();
                    self.order.extend_from_slice(
                        &binary.primitive_order()[slots.start as usize..slots.end as usize],
                    );
                    let padded = self.order.len().next_multiple_of(LEAF_ALIGNMENT);
                    self.order.resize(padded, PADDING_SLOT);
                    node.offset[lane] = first as u32;
                    node.count[lane] = (padded - first) as u32;
                }
                None => {
                    let index = self.nodes.len() as u32;
                    node.offset[lane] = index;
                    node.count[lane] = 0;
                    self.nodes.push(WideNode::EMPTY);
                    children.push((index, child));
                }
            }
        }
        (node, children)
    }
}

/// The greedy choice of lanes: the binary nodes that become one wide node's lanes, each read
/// once: its box's area, or `None` for a leaf, which cannot be opened.
struct Greedy {
    nodes: [u32; WIDE_WIDTH],
    areas: [Option<f32>; WIDE_WIDTH],
    len: usize,
}

impl Greedy {
    /// The up to [`WIDE_WIDTH`] binary nodes under `root`: its children, with the interior
    /// one of largest area opened while there is room (of equal areas, the last).
    fn open(nodes: &[Node], root: u32) -> Self {
        let mut lanes = Self {
            nodes: [0; WIDE_WIDTH],
            areas: [None; WIDE_WIDTH],
            len: 0,
        };
        match nodes[root as usize].children() {
            Some([a, b]) => {
                lanes.set(0, nodes, a);
                lanes.set(1, nodes, b);
            }
            None => lanes.set(0, nodes, root),
        }
        while lanes.len < WIDE_WIDTH {
            let mut widest: Option<(usize, f32)> = None;
            for (k, area) in lanes.areas[..lanes.len].iter().enumerate() {
                if let Some(area) = *area {
                    if widest.is_none_or(|(_, best)| area.total_cmp(&best).is_ge()) {
                        widest = Some((k, area));
                    }
                }
            }
            let Some((k, _)) = widest else {
                break;
            };
            let [a, b] = nodes[lanes.nodes[k] as usize]
                .children()
                .expect("an interior node");
            lanes.set(k, nodes, a);
            lanes.set(lanes.len, nodes, b);
        }
        lanes
    }

    /// The lanes: the binary tree's leaves stay leaves.
    fn lanes(&self, nodes: &[Node]) -> Lanes {
        self.nodes[..self.len]
            .iter()
            .map(|&node| Lane {
                node,
                slots: nodes[node as usize].slots(),
            })
            .collect()
    }

    /// Puts binary node `node` in lane `k` (at most one past the last).
    fn set(&mut self, k: usize, nodes: &[Node], node: u32) {
        let source = &nodes[node as usize];
        self.nodes[k] = node;
        self.areas[k] = (!source.is_leaf()).then(|| source.bounds().surface_area());
        self.len = self.len.max(k + 1);
    }
}

impl WideNode {
    /// This node with its node lanes moved by `nodes` and its leaf lanes by `slots`.
    fn shifted(mut self, nodes: u32, slots: u32) -> Self {
        for (offset, &count) in self.offset.iter_mut().zip(&self.count) {
            match count {
                0 => *offset += nodes,
                crate::layout::EMPTY_LANE => {}
                _ => *offset += slots,
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use meshcast_primitives::Aabb;

    use super::*;

    #[test]
    fn the_parallel_collapse_lays_out_the_sequential_nodes() {
        let boxes: Vec<Aabb> = (0..40_000)
            .map(|i| {
                let p = Vec3::new((i % 37) as f32, (i % 101) as f32 * 0.3, i as f32 * 0.01);
                Aabb::new(p, p + Vec3::splat(0.7))
            })
            .collect();
        let binary = Bvh::build(&boxes, &BuildOptions::default());
        assert!(binary.nodes().len() >= PARALLEL_BINARY_NODES);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool");
        let options = |parallel| BuildOptions {
            parallel,
            ..BuildOptions::default()
        };
        let collapses: [&(dyn Fn(Parallel) -> WideBvh + Sync); 2] = [
            &|parallel| WideBvh::from_binary_with(&binary, &options(parallel)),
            &|parallel| WideBvh::from_binary_greedy(&binary, parallel),
        ];
        for collapse in collapses {
            let sequential = collapse(Parallel::Sequential);
            let parallel = pool.install(|| collapse(Parallel::Rayon));
            assert_eq!(sequential.validate(&boxes), Ok(()));
            assert!(sequential.depth > PARALLEL_LEVELS + 1);
            assert_eq!(sequential.nodes, parallel.nodes);
            assert_eq!(sequential.order, parallel.order);
            assert_eq!(sequential.depth, parallel.depth);
        }
    }
}
