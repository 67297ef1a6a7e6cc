//! The top-down driver every builder runs: a [`Splitter`] decides each node, the driver builds
//! the top of the tree in parallel (rayon over the halves of large subtrees) and small
//! subtrees sequentially, into one node array whose shape does not depend on the threads.

use meshcast_primitives::Aabb;

use super::input::Parallel;
use crate::binary::Node;
use crate::memory::{try_vec, OutOfMemory};

/// Subtrees with at most this many primitives are built on one thread.
const SEQUENTIAL_SUBTREE_PRIMITIVES: usize = 1 << 12;

/// What a builder decides for one node.
pub(crate) enum Split<T> {
    /// Make the node a leaf of all its primitives.
    Leaf,
    /// Split after the first `mid` primitives (now reordered), `0 < mid < len`.
    Node { mid: usize, left: T, right: T },
}

/// One top-down builder: decides each node from its primitives and per-node state.
pub(crate) trait Splitter: Sync {
    /// What a builder sorts or partitions.
    type Item: Send;
    /// Per-node state passed from parent to child (the node's box, say).
    type Task: Send;
    /// The node's box to store (a builder may store [`Aabb::EMPTY`] and refit afterwards).
    fn bounds(&self, task: &Self::Task) -> Aabb;
    /// Leaf or split; may reorder `items`.
    fn split(&self, items: &mut [Self::Item], task: Self::Task) -> Split<Self::Task>;
}

/// Runs `splitter` top-down from `root`: rayon over the halves of large subtrees, one thread
/// below [`SEQUENTIAL_SUBTREE_PRIMITIVES`]. Returns the node array (children after parents,
/// child pairs adjacent) and the leaf order, the `index` of each of `items` as reordered.
///
/// `items` are dropped once the order is taken from them, before the parallel top's pieces
/// are joined into one node array: the records and two copies of the nodes are never held
/// at once (at 10M triangles that cut the build's peak by about 300 MB).
///
/// # Errors
/// [`OutOfMemory`] when the node array or the order cannot be allocated (the pieces of the
/// parallel top, each at most a few thousand nodes, are allocated as usual).
pub(crate) fn build_top_down<S: Splitter>(
    splitter: &S,
    mut items: Vec<S::Item>,
    root: S::Task,
    parallel: Parallel,
    index: impl Fn(&S::Item) -> u32,
) -> Result<(Vec<Node>, Vec<u32>), OutOfMemory> {
    let order_of = |items: &[S::Item]| -> Result<Vec<u32>, OutOfMemory> {
        let mut order = try_vec(items.len(), "the hierarchy's primitive order")?;
        order.extend(items.iter().map(&index));
        Ok(order)
    };
    if parallel == Parallel::Sequential || items.len() <= SEQUENTIAL_SUBTREE_PRIMITIVES {
        let mut nodes = try_vec(items.len(), NODES)?;
        build_sequential(splitter, &mut items, 0, root, &mut nodes);
        return Ok((nodes, order_of(&items)?));
    }
    let piece = build_piece(splitter, &mut items, 0, root);
    let order = order_of(&items)?;
    drop(items);
    let mut nodes = try_vec(piece.node_count(), NODES)?;
    nodes.push(Node::leaf(Aabb::EMPTY, 0, 1));
    piece.emit(0, &mut nodes);
    Ok((nodes, order))
}

/// What the node array is called in an [`OutOfMemory`] error.
const NODES: &str = "the hierarchy's binary nodes";

/// The top of a tree built in parallel: splits down to subtrees built sequentially.
enum Piece {
    Flat(Vec<Node>),
    Split {
        bounds: Aabb,
        children: Box<(Piece, Piece)>,
    },
}

impl Piece {
    fn node_count(&self) -> usize {
        match self {
            Piece::Flat(nodes) => nodes.len(),
            Piece::Split { children, .. } => 1 + children.0.node_count() + children.1.node_count(),
        }
    }

    /// Writes this piece's root at `index` (already allocated) and appends the rest.
    fn emit(self, index: usize, out: &mut Vec<Node>) {
        match self {
            Piece::Flat(nodes) => {
                // Local node i >= 1 lands at base + i - 1.
                let shift = (out.len() - 1) as u32;
                out[index] = nodes[0].shifted(shift);
                out.extend(nodes[1..].iter().map(|n| n.shifted(shift)));
            }
            Piece::Split { bounds, children } => {
                let first = out.len();
                out[index] = Node::interior(bounds, first as u32);
                out.extend([Node::leaf(Aabb::EMPTY, 0, 1); 2]);
                let (left, right) = *children;
                left.emit(first, out);
                right.emit(first + 1, out);
            }
        }
    }
}

fn build_piece<S: Splitter>(
    splitter: &S,
    items: &mut [S::Item],
    first_slot: usize,
    task: S::Task,
) -> Piece {
    if items.len() <= SEQUENTIAL_SUBTREE_PRIMITIVES {
        let mut nodes = Vec::with_capacity(items.len());
        build_sequential(splitter, items, first_slot, task, &mut nodes);
        return Piece::Flat(nodes);
    }
    let bounds = splitter.bounds(&task);
    let len = items.len();
    match splitter.split(items, task) {
        Split::Leaf => Piece::Flat(vec![Node::leaf(bounds, first_slot as u32, len as u32)]),
        Split::Node { mid, left, right } => {
            assert!(
                mid > 0 && mid < len,
                "a split must leave both sides non-empty"
            );
            let (l, r) = items.split_at_mut(mid);
            let children = rayon::join(
                || build_piece(splitter, l, first_slot, left),
                || build_piece(splitter, r, first_slot + mid, right),
            );
            Piece::Split {
                bounds,
                children: Box::new(children),
            }
        }
    }
}

/// The sequential driver: an explicit work stack, so that even a degenerate tree as deep as
/// the primitive count cannot overflow the call stack. Appends to the empty `nodes`.
fn build_sequential<S: Splitter>(
    splitter: &S,
    items: &mut [S::Item],
    first_slot: usize,
    root: S::Task,
    nodes: &mut Vec<Node>,
) {
    debug_assert!(nodes.is_empty());
    nodes.push(Node::leaf(Aabb::EMPTY, 0, 1));
    let mut stack = vec![(0usize, 0usize, items.len(), root)];
    while let Some((index, start, end, task)) = stack.pop() {
        let bounds = splitter.bounds(&task);
        match splitter.split(&mut items[start..end], task) {
            Split::Leaf => {
                nodes[index] =
                    Node::leaf(bounds, (first_slot + start) as u32, (end - start) as u32);
            }
            Split::Node { mid, left, right } => {
                assert!(
                    mid > 0 && start + mid < end,
                    "a split must leave both sides non-empty"
                );
                let first = nodes.len();
                nodes[index] = Node::interior(bounds, first as u32);
                nodes.extend([Node::leaf(Aabb::EMPTY, 0, 1); 2]);
                stack.push((first + 1, start + mid, end, right));
                stack.push((first, start, start + mid, left));
            }
        }
    }
}
