//! Statistics of a built hierarchy: counts, depth, leaf sizes, SAH cost and memory.

use crate::binary::Bvh;
use crate::layout::{WideLane, PADDING_SLOT, WIDE_WIDTH};
use crate::wide::WideBvh;

/// The SAH cost of visiting a node in [`BvhStats::sah_cost`], relative to one primitive test.
pub const SAH_TRAVERSAL_COST: f64 = 1.0;

/// Counts and costs of a [`Bvh`], from [`Bvh::stats`].
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh};
/// use meshcast_primitives::Aabb;
///
/// let boxes = [
///     Aabb::new(Vec3::ZERO, Vec3::ONE),
///     Aabb::new(Vec3::splat(9.0), Vec3::splat(10.0)),
///     Aabb::new(Vec3::ONE, Vec3::new(f32::NAN, 2.0, 2.0)),
/// ];
/// let bvh = Bvh::build(&boxes, &BuildOptions::default());
/// let stats = bvh.stats();
/// assert_eq!((stats.primitive_count, stats.dropped_count), (2, 1));
/// assert_eq!(stats.node_count, 2 * stats.leaf_count - 1);
/// assert!(stats.bytes_per_primitive > 0.0);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BvhStats {
    /// Nodes, interior and leaf.
    pub node_count: usize,
    /// Leaves.
    pub leaf_count: usize,
    /// The longest root-to-leaf path, in edges (0 for a lone leaf or an empty hierarchy).
    pub depth: usize,
    /// Primitives in the leaves.
    pub primitive_count: usize,
    /// Primitives dropped at build time (empty or non-finite boxes).
    pub dropped_count: usize,
    /// `leaf_size_histogram[k]` leaves hold `k` primitives.
    pub leaf_size_histogram: Vec<usize>,
    /// The surface area heuristic cost (MacDonald and Booth, *Heuristics for ray tracing using
    /// space subdivision*, 1990): the expected work of one ray through the root box, counting
    /// [`SAH_TRAVERSAL_COST`] per interior node and 1 per primitive, weighted by the ratio of
    /// each node's area to the root's. Lower traces faster.
    pub sah_cost: f64,
    /// Heap and inline memory of the hierarchy (nodes, leaf order and the struct).
    pub bytes: usize,
    /// [`BvhStats::bytes`] per primitive in the leaves.
    pub bytes_per_primitive: f64,
}

impl Bvh {
    /// Counts, depth, leaf-size histogram, SAH cost and memory of the hierarchy.
    pub fn stats(&self) -> BvhStats {
        let mut stats = BvhStats {
            node_count: self.nodes.len(),
            primitive_count: self.order.len(),
            dropped_count: self.dropped_count(),
            bytes: core::mem::size_of::<Bvh>()
                + self.nodes.capacity() * core::mem::size_of::<crate::binary::Node>()
                + self.order.capacity() * core::mem::size_of::<u32>(),
            ..BvhStats::default()
        };
        stats.bytes_per_primitive = stats.bytes as f64 / stats.primitive_count.max(1) as f64;
        let Some(root) = self.nodes.first() else {
            return stats;
        };
        let root_area = f64::from(root.bounds().surface_area());
        let mut cost = 0.0;
        let mut stack = vec![(0usize, 0usize)];
        while let Some((index, depth)) = stack.pop() {
            let node = &self.nodes[index];
            stats.depth = stats.depth.max(depth);
            let area = f64::from(node.bounds().surface_area());
            match node.children() {
                Some([a, b]) => {
                    cost += SAH_TRAVERSAL_COST * area;
                    stack.push((a as usize, depth + 1));
                    stack.push((b as usize, depth + 1));
                }
                None => {
                    let size = node.count() as usize;
                    stats.leaf_count += 1;
                    if stats.leaf_size_histogram.len() <= size {
                        stats.leaf_size_histogram.resize(size + 1, 0);
                    }
                    stats.leaf_size_histogram[size] += 1;
                    cost += size as f64 * area;
                }
            }
        }
        // A flat root (zero area) makes every ray's cost that of its leaves alone.
        stats.sah_cost = if root_area > 0.0 {
            cost / root_area
        } else {
            stats.primitive_count as f64
        };
        stats
    }
}

impl WideBvh {
    /// Counts, depth, leaf-size histogram (kept primitives per leaf, padding not counted),
    /// SAH cost and memory of the eight-wide tree. Its SAH cost counts
    /// [`SAH_TRAVERSAL_COST`] per wide node (one test of its eight boxes) and 1 per primitive.
    pub fn stats(&self) -> BvhStats {
        let primitive_count = self.order.iter().filter(|&&p| p != PADDING_SLOT).count();
        let bytes = self.bytes();
        let mut stats = BvhStats {
            node_count: self.nodes.len(),
            primitive_count,
            dropped_count: self.primitive_count - primitive_count,
            bytes,
            bytes_per_primitive: bytes as f64 / primitive_count.max(1) as f64,
            ..BvhStats::default()
        };
        if self.nodes.is_empty() {
            return stats;
        }
        let root_area = f64::from(self.bounds.surface_area());
        let mut cost = 0.0;
        let mut stack = vec![(0usize, root_area, 0usize)];
        while let Some((index, area, depth)) = stack.pop() {
            stats.depth = stats.depth.max(depth);
            cost += SAH_TRAVERSAL_COST * area;
            let node = &self.nodes[index];
            for lane in 0..WIDE_WIDTH {
                let lane_area = f64::from(node.bounds(lane).surface_area());
                match node.lane(lane) {
                    WideLane::Node(child) => stack.push((child as usize, lane_area, depth + 1)),
                    WideLane::Leaf(slots) => {
                        let size = self.order[slots.start as usize..slots.end as usize]
                            .iter()
                            .filter(|&&p| p != PADDING_SLOT)
                            .count();
                        stats.leaf_count += 1;
                        stats.depth = stats.depth.max(depth + 1);
                        if stats.leaf_size_histogram.len() <= size {
                            stats.leaf_size_histogram.resize(size + 1, 0);
                        }
                        stats.leaf_size_histogram[size] += 1;
                        cost += size as f64 * lane_area;
                    }
                    WideLane::Empty => {}
                }
            }
        }
        stats.sah_cost = if root_area > 0.0 {
            cost / root_area
        } else {
            primitive_count as f64
        };
        stats
    }
}
