//! Nearest-primitive traversal over a leaf closure: visits nodes nearest first and skips
//! every node whose lower bound is beyond the best distance found so far (closest point,
//! snapping, nearest neighbour).

use core::cmp::Ordering;

use meshcast_primitives::Aabb;
use smallvec::SmallVec;

use crate::binary::{Bvh, STACK_INLINE_CAPACITY};
use crate::layout::{WideLane, PADDING_SLOT, WIDE_WIDTH};
use crate::wide::WideBvh;

impl Bvh {
    /// Finds the nearest primitive under a caller-defined distance (any ordered type `T`:
    /// `f32` squared distances, `f64` entries of a ray in `f64`), returning the final bound.
    ///
    /// `node_distance(bounds)` gives a lower bound of the distance of every primitive inside
    /// a node's box (a squared distance from a point to the box, say); `leaf(slot, bound)`
    /// tests the primitive in leaf slot `slot` (see [`Bvh::primitive_order`]), keeps its own
    /// best answer, and returns the new bound: the best distance so far, never more than
    /// `bound`. The traversal starts from `bound` (the largest distance of interest;
    /// `f32::INFINITY` for none), visits the nearer child first, and skips a node only when
    /// its lower bound is *greater* than the current bound, so a primitive at exactly the
    /// best distance is still visited (for a tie rule by index). A lower bound that compares
    /// with nothing (a NaN) skips the node. An empty hierarchy calls nothing and returns
    /// `bound`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh};
    /// use meshcast_primitives::{box_distance_squared, Triangle};
    ///
    /// let triangles: Vec<Triangle> = (0..8)
    ///     .map(|i| {
    ///         let x = Vec3::X * (3 * i) as f32;
    ///         Triangle::new(x, x + Vec3::X, x + Vec3::Y)
    ///     })
    ///     .collect();
    /// let bvh = Bvh::build_primitives(&triangles, &BuildOptions::default());
    /// let query = Vec3::new(9.25, 0.25, 2.0);
    /// let mut best = None;
    /// let bound = bvh.nearest(
    ///     f32::INFINITY,
    ///     |bounds| box_distance_squared(query, bounds),
    ///     |slot, bound| {
    ///         let index = bvh.primitive_order()[slot as usize];
    ///         let d = triangles[index as usize].distance_squared(query);
    ///         if d < bound {
    ///             best = Some(index);
    ///             return d;
    ///         }
    ///         bound
    ///     },
    /// );
    /// assert_eq!(best, Some(3)); // the triangle from x = 9 to x = 10
    /// assert_eq!(bound, 4.0);
    /// ```
    pub fn nearest<T, D, L>(&self, bound: T, mut node_distance: D, mut leaf: L) -> T
    where
        T: Copy + PartialOrd,
        D: FnMut(&Aabb) -> T,
        L: FnMut(u32, T) -> T,
    {
        let nodes = self.nodes.as_slice();
        let mut bound = bound;
        let Some(root) = nodes.first() else {
            return bound;
        };
        let root_distance = node_distance(&root.bounds());
        // Only nodes with a bound no larger than the best are pushed (never a NaN one). The
        // nearer child is taken at once and the farther waits on the stack, in the order of
        // pushing both and popping the nearer: the same visits, half the stack's work (a
        // far scene's `cast`, whose top level this walks, spent 223 instructions a ray
        // in the stack's pushes and pops).
        let mut stack: SmallVec<[(u32, T); STACK_INLINE_CAPACITY]> = SmallVec::new();
        let mut next = (root_distance <= bound).then_some(0u32);
        loop {
            let index = match next.take() {
                Some(index) => index,
                None => match stack.pop() {
                    None => return bound,
                    Some((_, distance)) if distance > bound => continue,
                    Some((index, _)) => index,
                },
            };
            let node = &nodes[index as usize];
            match node.children() {
                Some([a, b]) => {
                    let da = node_distance(&nodes[a as usize].bounds());
                    let db = node_distance(&nodes[b as usize].bounds());
                    let (near, far) = if db < da {
                        ((b, db), (a, da))
                    } else {
                        ((a, da), (b, db))
                    };
                    if far.1 <= bound {
                        stack.push(far);
                    }
                    if near.1 <= bound {
                        next = Some(near.0);
                    }
                }
                None => {
                    for slot in node.offset()..node.offset() + node.count() {
                        let found = leaf(slot, bound);
                        if found < bound {
                            bound = found;
                        }
                    }
                }
            }
        }
    }
}

impl WideBvh {
    /// [`Bvh::nearest`] over the eight-wide tree: the same contract, with `leaf(slot, bound)`
    /// called for the kept slots of [`WideBvh::primitive_order`] (never a padding slot).
    /// Lanes are visited nearest first.
    pub fn nearest<T, D, L>(&self, bound: T, mut node_distance: D, mut leaf: L) -> T
    where
        T: Copy + PartialOrd,
        D: FnMut(&Aabb) -> T,
        L: FnMut(u32, T) -> T,
    {
        let mut bound = bound;
        if self.nodes.is_empty() {
            return bound;
        }
        let mut stack: SmallVec<[(WideLane, T); STACK_INLINE_CAPACITY]> = SmallVec::new();
        // Only lanes no farther than the best are pushed (never a NaN one).
        let root_distance = node_distance(&self.bounds);
        if root_distance <= bound {
            stack.push((WideLane::Node(0), root_distance));
        }
        while let Some((lane, distance)) = stack.pop() {
            if distance > bound {
                continue;
            }
            match lane {
                WideLane::Node(index) => {
                    let node = &self.nodes[index as usize];
                    let mut lanes: SmallVec<[(WideLane, T); WIDE_WIDTH]> = (0..WIDE_WIDTH)
                        .filter(|&l| node.lane(l) != WideLane::Empty)
                        .map(|l| (node.lane(l), node_distance(&node.bounds(l))))
                        .filter(|(_, d)| *d <= bound)
                        .collect();
                    // Farthest first on the stack, so the nearest is popped first (the kept
                    // distances compare: each is no larger than the bound).
                    lanes.sort_unstable_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal));
                    stack.extend(lanes);
                }
                WideLane::Leaf(slots) => {
                    for slot in slots {
                        if self.order[slot as usize] != PADDING_SLOT {
                            let found = leaf(slot, bound);
                            if found < bound {
                                bound = found;
                            }
                        }
                    }
                }
                WideLane::Empty => {}
            }
        }
        bound
    }
}
