//! Reinsertion: a built tree polished by moving subtrees to where they lower its SAH cost
//! (Bittner, Hapala, Havran, *Fast Insertion-Based Optimization of Bounding Volume
//! Hierarchies*, 2013; Meister and Bittner, *Parallel Reinsertion for Bounding Volume
//! Hierarchy Optimization*, 2018).
//!
//! Each pass takes the nodes of largest area (the largest terms of the cost), and for each
//! one detaches it with its parent, finds by branch and bound the node beside which it costs
//! least, and puts it there when that is cheaper than where it was. Leaves move whole, so
//! every leaf keeps its primitives: only interior boxes change, and the cost change is the
//! change of their total area, whatever the traversal cost.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use meshcast_primitives::Aabb;

use super::cost::{area, SahCost};
use super::input::BuildOptions;
use crate::binary::Node;

/// The most passes.
///
/// Measured on the bunny (binary tree, unit leaf blocks, SAH cost at unit costs): binned SAH
/// 32.31; 3 passes over 1 node in 64: 32.29 (+0 to 30% build time); 10 passes over 1 in 16:
/// 32.27; 20 over 1 in 4: 32.24 (3x the build time); 40 over 1 in 2: 32.19 (6x). With leaves
/// of four, as a mesh builds: 38.84 to 38.82 .. 38.78. Ranking the candidates by Bittner et
/// al.'s combined inefficiency (area times area over the smallest child's and over the sum of
/// the children's) instead of by area gave the same costs to 0.01. A binned SAH tree is close
/// to a local optimum for moves of one subtree: the large gains of the papers are measured
/// from worse starting trees. So the pass count stays small.
const MAX_PASSES: usize = 3;
/// Each pass reinserts one node in this many, those of largest area.
const CANDIDATE_DIVISOR: usize = 64;
/// A pass that lowers the interior area by less than this fraction ends the optimisation.
const MIN_PASS_GAIN: f64 = 1e-3;
/// No parent.
const NONE: u32 = u32::MAX;

/// Optimises the tree `nodes` over the leaf order `order`; returns the new nodes and order
/// (leaves laid out in depth-first order), or the input if no move lowered the cost.
pub(crate) fn optimize(
    nodes: Vec<Node>,
    order: Vec<u32>,
    options: &BuildOptions,
) -> (Vec<Node>, Vec<u32>) {
    let cost = SahCost::new(options);
    let root_area = area(&nodes[0].bounds());
    if nodes.len() < 5 || !root_area.is_finite() || root_area <= 0.0 {
        return (nodes, order);
    }
    let mut tree = Tree::new(&nodes);
    let before = tree.interior_cost(&cost);
    let mut last = before;
    for _ in 0..MAX_PASSES {
        for candidate in tree.candidates() {
            tree.reinsert(candidate);
        }
        let now = tree.interior_cost(&cost);
        let gain = (last - now) / last;
        last = now;
        if gain.is_nan() || gain < MIN_PASS_GAIN {
            break;
        }
    }
    if last.partial_cmp(&before) != Some(Ordering::Less) {
        return (nodes, order);
    }
    tree.emit(&order)
}

/// A node of the tree under optimisation, with its parent.
#[derive(Clone, Copy, Debug)]
struct TreeNode {
    bounds: Aabb,
    parent: u32,
    /// Interior: the children. Leaf: the first slot and the count.
    links: [u32; 2],
    leaf: bool,
}

/// The tree as linked nodes, so that subtrees can move.
struct Tree {
    nodes: Vec<TreeNode>,
    root: u32,
}

/// A node to visit in the search for an insertion place, with the cost its ancestors would
/// grow by.
#[derive(Clone, Copy, Debug)]
struct Visit {
    induced: f32,
    node: u32,
}

impl PartialEq for Visit {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Visit {}

impl PartialOrd for Visit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Visit {
    /// The cheapest first in a max-heap; ties to the smaller node index.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .induced
            .total_cmp(&self.induced)
            .then(other.node.cmp(&self.node))
    }
}

impl Tree {
    fn new(nodes: &[Node]) -> Self {
        let mut tree: Vec<TreeNode> = nodes
            .iter()
            .map(|n| TreeNode {
                bounds: n.bounds(),
                parent: NONE,
                links: match n.children() {
                    Some(children) => children,
                    None => [n.offset(), n.count()],
                },
                leaf: n.is_leaf(),
            })
            .collect();
        for i in 0..tree.len() {
            if !tree[i].leaf {
                for c in tree[i].links {
                    tree[c as usize].parent = i as u32;
                }
            }
        }
        Self {
            nodes: tree,
            root: 0,
        }
    }

    /// The interior nodes' term of the SAH cost, in `f64`, to compare trees.
    fn interior_cost(&self, cost: &SahCost) -> f64 {
        self.nodes
            .iter()
            .filter(|n| !n.leaf)
            .map(|n| f64::from(cost.interior(area(&n.bounds))))
            .sum()
    }

    /// The nodes to reinsert in this pass: one in [`CANDIDATE_DIVISOR`] of those with a
    /// grandparent, largest area first (ties to the smaller index).
    fn candidates(&self) -> Vec<u32> {
        let mut candidates: Vec<(f32, u32)> = (0..self.nodes.len() as u32)
            .filter(|&i| {
                let parent = self.nodes[i as usize].parent;
                parent != NONE && self.nodes[parent as usize].parent != NONE
            })
            .map(|i| (area(&self.nodes[i as usize].bounds), i))
            .collect();
        let by_area = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let count = (candidates.len() / CANDIDATE_DIVISOR).max(1);
        if count < candidates.len() {
            candidates.select_nth_unstable_by(count, by_area);
            candidates.truncate(count);
        }
        candidates.sort_unstable_by(by_area);
        candidates.into_iter().map(|(_, i)| i).collect()
    }

    /// Moves `node` (and its parent, which becomes the new parent) to the place where it
    /// costs least, if that is cheaper than where it is.
    fn reinsert(&mut self, node: u32) {
        let parent = self.nodes[node as usize].parent;
        if parent == NONE || self.nodes[parent as usize].parent == NONE {
            return;
        }
        let grandparent = self.nodes[parent as usize].parent;
        let links = self.nodes[parent as usize].links;
        let sibling = if links[0] == node { links[1] } else { links[0] };
        // Detach: the sibling takes the parent's place.
        self.replace_child(grandparent, parent, sibling);
        self.nodes[sibling as usize].parent = grandparent;
        self.refit_from(grandparent);
        // Search, starting from the cost of going back.
        let bounds = self.nodes[node as usize].bounds;
        let stay = self.insertion_cost(sibling, &bounds);
        let target = self.best_place(&bounds, sibling, stay);
        // Attach beside the target, the freed parent joining them.
        let above = self.nodes[target as usize].parent;
        self.nodes[parent as usize].links = [target, node];
        self.nodes[parent as usize].parent = above;
        self.nodes[parent as usize].bounds = self.nodes[target as usize].bounds.union(bounds);
        self.nodes[target as usize].parent = parent;
        self.nodes[node as usize].parent = parent;
        if above == NONE {
            self.root = parent;
        } else {
            self.replace_child(above, target, parent);
            self.refit_from(above);
        }
    }

    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        let links = &mut self.nodes[parent as usize].links;
        let k = usize::from(links[1] == old);
        links[k] = new;
    }

    /// Recomputes the boxes from `node` up, stopping where a box does not change.
    fn refit_from(&mut self, mut node: u32) {
        while node != NONE {
            let n = self.nodes[node as usize];
            let [a, b] = n.links;
            let bounds = self.nodes[a as usize]
                .bounds
                .union(self.nodes[b as usize].bounds);
            if bounds == n.bounds {
                return;
            }
            self.nodes[node as usize].bounds = bounds;
            node = n.parent;
        }
    }

    /// The cost of putting a subtree of box `bounds` beside `target`: the new parent's area
    /// and the growth of every ancestor's, summed from the root down as [`Tree::best_place`]
    /// sums it, so that both give the same float for the same place.
    fn insertion_cost(&self, target: u32, bounds: &Aabb) -> f32 {
        let mut path = Vec::new();
        let mut a = self.nodes[target as usize].parent;
        while a != NONE {
            path.push(a);
            a = self.nodes[a as usize].parent;
        }
        let mut induced = 0.0f32;
        for &a in path.iter().rev() {
            let b = self.nodes[a as usize].bounds;
            induced = induced + area(&b.union(*bounds)) - area(&b);
        }
        induced + area(&self.nodes[target as usize].bounds.union(*bounds))
    }

    /// The place of least insertion cost below `best_cost` (branch and bound, cheapest
    /// ancestors' growth first), or `best` if there is none.
    fn best_place(&self, bounds: &Aabb, mut best: u32, mut best_cost: f32) -> u32 {
        let own = area(bounds);
        let mut heap = BinaryHeap::new();
        heap.push(Visit {
            induced: 0.0,
            node: self.root,
        });
        while let Some(Visit { induced, node }) = heap.pop() {
            // Every place below costs at least the new parent, which holds `bounds`.
            if induced + own >= best_cost {
                break;
            }
            let n = &self.nodes[node as usize];
            let total = induced + area(&n.bounds.union(*bounds));
            if total < best_cost {
                (best, best_cost) = (node, total);
            }
            if !n.leaf {
                let induced = total - area(&n.bounds);
                if induced + own < best_cost {
                    for child in n.links {
                        heap.push(Visit {
                            induced,
                            node: child,
                        });
                    }
                }
            }
        }
        best
    }

    /// The node array (children after parents, pairs adjacent, depth first) and the leaf
    /// order to match.
    fn emit(&self, order: &[u32]) -> (Vec<Node>, Vec<u32>) {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut new_order = Vec::with_capacity(order.len());
        nodes.push(Node::leaf(Aabb::EMPTY, 0, 1));
        let mut stack = vec![(self.root, 0usize)];
        while let Some((id, index)) = stack.pop() {
            let n = &self.nodes[id as usize];
            if n.leaf {
                let [first, count] = n.links;
                let slot = new_order.len() as u32;
                new_order.extend_from_slice(&order[first as usize..(first + count) as usize]);
                nodes[index] = Node::leaf(n.bounds, slot, count);
            } else {
                let first = nodes.len();
                nodes[index] = Node::interior(n.bounds, first as u32);
                nodes.extend([Node::leaf(Aabb::EMPTY, 0, 1); 2]);
                stack.push((n.links[1], first + 1));
                stack.push((n.links[0], first));
            }
        }
        (nodes, new_order)
    }
}
