//! Statistics of a built hierarchy: counts, depth, leaf sizes, SAH cost and memory.

use crate::Bvh;

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
                + self.nodes.capacity() * core::mem::size_of::<crate::Node>()
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
