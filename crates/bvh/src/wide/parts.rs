//! A wide hierarchy taken apart and put back together: its nodes as little-endian bytes, and
//! [`WideBvh::from_parts`], which checks parts read back from storage before any walk uses
//! them. What the bytes are stored in is the caller's business.

use core::ops::Range;
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use glam::{Vec3, Vec4};
use meshcast_primitives::Aabb;
use rayon::prelude::*;

use super::MAX_NODES;
use crate::error::Error;
use crate::layout::{
    WideLane, WideNode, EMPTY_LANE, HALVES, LEAF_ALIGNMENT, PADDING_SLOT, WIDE_WIDTH,
};
use crate::simd::SupportedKernel;
use crate::wide::WideBvh;

impl WideNode {
    /// The node as bytes, little-endian whatever the host: the 48 box coordinates as `f32`
    /// (`min.x` of lanes 0 to 7, then `min.y`, `min.z`, `max.x`, `max.y`, `max.z`), then the
    /// eight lane offsets and the eight lane counts as `u32` (a count of 0 is a node lane,
    /// `u32::MAX` an empty one, any other a leaf's slot count). [`WideNode::from_le_bytes`]
    /// reads it back.
    pub fn to_le_bytes(&self) -> [u8; WideNode::ENCODED_BYTES] {
        let mut bytes = [0u8; Self::ENCODED_BYTES];
        let words = self
            .planes
            .iter()
            .flatten()
            .flat_map(|half| half.to_array())
            .map(f32::to_bits)
            .chain(self.offset)
            .chain(self.count);
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// The node [`WideNode::to_le_bytes`] wrote, bit for bit. Any bytes make a node; whether
    /// nodes make a hierarchy is for [`WideBvh::from_parts`] to check.
    pub fn from_le_bytes(bytes: &[u8; WideNode::ENCODED_BYTES]) -> Self {
        let (words, _) = bytes.as_chunks::<4>();
        let word = |i: usize| u32::from_le_bytes(words[i]);
        let mut node = Self::EMPTY;
        for (plane, halves) in node.planes.iter_mut().enumerate() {
            for (half, v) in halves.iter_mut().enumerate() {
                let first = (plane * HALVES + half) * 4;
                *v = Vec4::from_array(core::array::from_fn(|k| f32::from_bits(word(first + k))));
            }
        }
        let lanes = 6 * HALVES * 4;
        node.offset = core::array::from_fn(|lane| word(lanes + lane));
        node.count = core::array::from_fn(|lane| word(lanes + WIDE_WIDTH + lane));
        node
    }

    /// The bytes of [`WideNode::to_le_bytes`]: 32 a lane.
    pub const ENCODED_BYTES: usize = 32 * WIDE_WIDTH;

    /// Whether `lane` is well formed: an empty lane has the empty box (every `min` `+inf`,
    /// every `max` `-inf`, which every ray misses) and offset 0; any other lane a finite box
    /// with `min <= max`, and a leaf's slot range does not overflow.
    fn lane_is_well_formed(&self, lane: usize) -> bool {
        let bounds = self.bounds(lane);
        match self.count[lane] {
            EMPTY_LANE => {
                self.offset[lane] == 0
                    && bounds.min == Vec3::INFINITY
                    && bounds.max == Vec3::NEG_INFINITY
            }
            count => {
                bounds.is_finite()
                    && !bounds.is_empty()
                    && self.offset[lane].checked_add(count).is_some()
            }
        }
    }
}

impl WideBvh {
    /// The hierarchy made of these nodes and padded leaf order over primitives whose boxes
    /// are `boxes` (in original order), checked as a built one would be: for a hierarchy
    /// that was stored ([`WideNode::to_le_bytes`]) and read back, perhaps damaged or forged.
    /// On success it answers every query as the hierarchy it was taken from, with
    /// [`crate::Kernel::preferred`].
    ///
    /// Linear time: one pass over the nodes, on rayon. Every lane must be well formed (an empty lane
    /// has the empty box and offset 0, any other a finite box); what
    /// [`WideBvh::validate`] checks must hold; each leaf's padding slots must follow its
    /// primitives, fewer than [`LEAF_ALIGNMENT`] of them; and the
    /// leaves must hold exactly the primitives a build keeps, those whose box is finite and
    /// not empty. The depth, which sizes the traversal stack, and the root box are computed,
    /// not taken on trust.
    ///
    /// # Errors
    /// [`Error::TooManyNodes`], [`Error::EmptyMismatch`], [`Error::MalformedLane`],
    /// [`Error::MalformedLeaf`], [`Error::PrimitiveDropped`], [`Error::PrimitiveMissing`],
    /// and the errors of [`WideBvh::validate`].
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_bvh::{BuildOptions, Bvh, Error, WideBvh};
    /// use meshcast_primitives::Aabb;
    ///
    /// let boxes: Vec<Aabb> = (0..20)
    ///     .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 0.5)))
    ///     .collect();
    /// let wide = WideBvh::from_binary(&Bvh::build(&boxes, &BuildOptions::default()));
    /// let copy = WideBvh::from_parts(wide.nodes().to_vec(), wide.primitive_order().to_vec(), &boxes)?;
    /// assert_eq!(copy.nodes(), wide.nodes());
    /// assert_eq!(copy.bounds(), wide.bounds());
    /// // One more box: a build over these would have put it in a leaf.
    /// let mut more = boxes.clone();
    /// more.push(Aabb::new(Vec3::ZERO, Vec3::ONE));
    /// let err = WideBvh::from_parts(wide.nodes().to_vec(), wide.primitive_order().to_vec(), &more);
    /// assert_eq!(err.err(), Some(Error::PrimitiveMissing { primitive: 20 }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(
        nodes: Vec<WideNode>,
        order: Vec<u32>,
        boxes: &[Aabb],
    ) -> Result<Self, Error> {
        let group_bounds = |_: usize, primitives: &[u32]| {
            primitives.iter().try_fold(Aabb::EMPTY, |group, &p| {
                let b = boxes[p as usize];
                usable(&b).then(|| group.union(b))
            })
        };
        let kept = |primitive: u32| usable(&boxes[primitive as usize]);
        Self::from_parts_with(nodes, order, boxes.len(), group_bounds, kept)
    }

    /// [`WideBvh::from_parts`] for a caller that knows the primitives in leaf order, which
    /// saves gathering their boxes. Slots go by groups of [`LEAF_ALIGNMENT`], group `g`
    /// being slots `LEAF_ALIGNMENT * g ..`; `group_bounds(g, primitives)` is the box around
    /// the boxes of the primitives group `g` holds (`primitives`, padding left out, each
    /// below `primitive_count`), or `None` if one of those boxes is empty or not finite;
    /// `kept(p)` is whether primitive `p`'s box is finite and not empty (asked for the
    /// primitives no slot holds, and to name a dropped one). The checks and errors are
    /// those of [`WideBvh::from_parts`], made against what the two functions answer, and
    /// [`Error::GroupNotContained`] where a group's box is not in its leaf's.
    ///
    /// # Errors
    /// As [`WideBvh::from_parts`].
    pub fn from_parts_with(
        nodes: Vec<WideNode>,
        order: Vec<u32>,
        primitive_count: usize,
        group_bounds: impl Fn(usize, &[u32]) -> Option<Aabb> + Sync,
        kept: impl Fn(u32) -> bool + Sync,
    ) -> Result<Self, Error> {
        if nodes.len() > MAX_NODES {
            return Err(Error::TooManyNodes {
                nodes: nodes.len(),
                max: MAX_NODES,
            });
        }
        if nodes.is_empty() != order.is_empty() {
            return Err(Error::EmptyMismatch {
                nodes: nodes.len(),
                slots: order.len(),
            });
        }
        let counters = |n: usize| (0..n).map(|_| AtomicU8::new(0)).collect::<Vec<_>>();
        let check = Check {
            nodes: &nodes,
            order: &order,
            reached: counters(nodes.len()),
            group_leaves: counters(order.len().div_ceil(LEAF_ALIGNMENT)),
            held: (0..primitive_count.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            primitive_count,
        };
        // The nodes are checked on rayon, the first failing node (by index) answering; what
        // nodes share (how often each is reached, each group's leaves, each primitive's slot)
        // is counted in atomics and judged once all are done.
        let failed = (0..nodes.len())
            .into_par_iter()
            .with_min_len(PARALLEL_NODES)
            .filter_map(|index| check.node(index, &group_bounds, &kept).err())
            .find_first(|_| true);
        if let Some(error) = failed {
            return Err(error);
        }
        check.coverage(&kept)?;
        let depth = depth(&nodes);
        let bounds = nodes.first().map_or(Aabb::EMPTY, WideNode::union);
        Ok(Self {
            nodes,
            order,
            bounds,
            primitive_count,
            depth,
            kernel: SupportedKernel::preferred(),
        })
    }
}

/// Nodes one rayon task checks at least.
const PARALLEL_NODES: usize = 1 << 10;

/// The depth of a tree whose every node but the root is reached once, from a parent before
/// it: each node's level (1 for the root) set from its parent's, in order.
fn depth(nodes: &[WideNode]) -> u32 {
    let mut level = vec![0u32; nodes.len()];
    if let Some(root) = level.first_mut() {
        *root = 1;
    }
    for (index, node) in nodes.iter().enumerate() {
        for lane in 0..WIDE_WIDTH {
            if let WideLane::Node(child) = node.lane(lane) {
                level[child as usize] = level[index] + 1;
            }
        }
    }
    level.into_iter().max().unwrap_or(0)
}

/// One more on an atomic count that stops at 255.
fn count_up(count: &AtomicU8) {
    let _ = count.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1));
}

/// Whether a build keeps a primitive with this box.
fn usable(bounds: &Aabb) -> bool {
    bounds.is_finite() && !bounds.is_empty()
}

/// The state of [`WideBvh::from_parts_with`]'s pass over the nodes.
struct Check<'a> {
    nodes: &'a [WideNode],
    order: &'a [u32],
    /// How often a parent reached each node, up to 255.
    reached: Vec<AtomicU8>,
    /// How many leaves hold each group of slots, up to 255.
    group_leaves: Vec<AtomicU8>,
    /// Whether a slot holds each primitive, a bit each: an eighth of the memory of a
    /// `Vec<bool>`, which matters in a pass that sets them in random order (on the bunny
    /// subdivided twice, that store was a sixth of loading a cache).
    held: Vec<AtomicU64>,
    /// The number of primitives.
    primitive_count: usize,
}

impl Check<'_> {
    /// Checks node `index`'s lanes and what they hold.
    fn node(
        &self,
        index: usize,
        group_bounds: &impl Fn(usize, &[u32]) -> Option<Aabb>,
        kept: &impl Fn(u32) -> bool,
    ) -> Result<(), Error> {
        let node = &self.nodes[index];
        for lane in 0..WIDE_WIDTH {
            // The lane first: the rest adds a leaf's count to its offset.
            if !node.lane_is_well_formed(lane) {
                return Err(Error::MalformedLane { node: index, lane });
            }
            let bounds = node.bounds(lane);
            match node.lane(lane) {
                WideLane::Node(child) => {
                    let child = child as usize;
                    if child <= index || child >= self.nodes.len() {
                        return Err(Error::ChildOutOfRange {
                            node: index,
                            child,
                            after: index,
                            len: self.nodes.len(),
                        });
                    }
                    count_up(&self.reached[child]);
                    if !bounds.contains_box(&self.nodes[child].union()) {
                        return Err(Error::ChildNotContained { node: index, child });
                    }
                }
                WideLane::Leaf(slots) => {
                    let slots = slots.start as usize..slots.end as usize;
                    self.leaf(index, slots, bounds, group_bounds, kept)?;
                }
                WideLane::Empty => {}
            }
        }
        Ok(())
    }

    /// Checks the leaf of node `index` holding `slots`, inside `bounds`.
    fn leaf(
        &self,
        index: usize,
        slots: Range<usize>,
        bounds: Aabb,
        group_bounds: &impl Fn(usize, &[u32]) -> Option<Aabb>,
        kept: &impl Fn(u32) -> bool,
    ) -> Result<(), Error> {
        let Range { start: first, end } = slots;
        if first % LEAF_ALIGNMENT != 0 || end % LEAF_ALIGNMENT != 0 || end > self.order.len() {
            return Err(Error::SlotOutOfRange {
                node: index,
                first,
                end,
                len: self.order.len(),
            });
        }
        let held = &self.order[first..end];
        let primitives = held.iter().take_while(|&&p| p != PADDING_SLOT).count();
        if primitives == 0
            || held.len() - primitives >= LEAF_ALIGNMENT
            || held[primitives..].iter().any(|&p| p != PADDING_SLOT)
        {
            return Err(Error::MalformedLeaf { node: index, first });
        }
        for (slot, &primitive) in (first..).zip(&held[..primitives]) {
            if primitive as usize >= self.primitive_count {
                return Err(Error::PrimitiveOutOfRange {
                    slot,
                    primitive,
                    count: self.primitive_count,
                });
            }
            let (word, bit) = (primitive as usize / 64, 1u64 << (primitive % 64));
            if self.held[word].fetch_or(bit, Ordering::Relaxed) & bit != 0 {
                return Err(Error::PrimitiveRepeated { primitive });
            }
        }
        for group in first / LEAF_ALIGNMENT..end / LEAF_ALIGNMENT {
            count_up(&self.group_leaves[group]);
            let start = group * LEAF_ALIGNMENT;
            let primitives = &held[start - first..(start - first + LEAF_ALIGNMENT).min(primitives)];
            match group_bounds(group, primitives) {
                None => {
                    let dropped = primitives.iter().find(|&&p| !kept(p));
                    let primitive = dropped.or(primitives.first()).copied().unwrap_or_default();
                    return Err(Error::PrimitiveDropped { primitive });
                }
                Some(b) if !bounds.contains_box(&b) => {
                    return Err(Error::GroupNotContained {
                        node: index,
                        first_slot: start,
                    });
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Checks that every node but the root was reached once, every group of slots held by
    /// one leaf, and every primitive a build keeps held by a slot.
    fn coverage(&self, kept: &(impl Fn(u32) -> bool + Sync)) -> Result<(), Error> {
        let root = usize::from(!self.nodes.is_empty());
        let unreached = self
            .reached
            .iter()
            .enumerate()
            .skip(root)
            .map(|(node, n)| (node, n.load(Ordering::Relaxed)))
            .find(|&(_, n)| n != 1);
        if let Some((node, times)) = unreached {
            return Err(Error::NodeReach {
                node,
                times: times.into(),
            });
        }
        let uncovered = self
            .group_leaves
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .enumerate()
            .find(|&(_, n)| n != 1);
        if let Some((group, leaves)) = uncovered {
            return Err(Error::SlotCoverage {
                slot: group * LEAF_ALIGNMENT,
                leaves: leaves.into(),
            });
        }
        // Word by word on rayon: a full word (the usual case) holds no missing primitive.
        let count = self.primitive_count;
        let missing = self
            .held
            .par_iter()
            .enumerate()
            .with_min_len(PARALLEL_NODES)
            .find_map_first(|(word, bits)| {
                let bits = bits.load(Ordering::Relaxed);
                if bits == u64::MAX {
                    return None;
                }
                (word * 64..(word * 64 + 64).min(count))
                    .find(|&p| bits & (1 << (p % 64)) == 0 && kept(p as u32))
                    .map(|p| p as u32)
            });
        match missing {
            Some(primitive) => Err(Error::PrimitiveMissing { primitive }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, Bvh};

    /// Boxes along a line, one of them empty (a build drops it).
    fn boxes() -> Vec<Aabb> {
        (0..300)
            .map(|i| match i {
                17 => Aabb::EMPTY,
                _ => {
                    let p = Vec3::new((i % 13) as f32, (i % 7) as f32, i as f32 * 0.25);
                    Aabb::new(p, p + Vec3::splat(0.5))
                }
            })
            .collect()
    }

    fn built(boxes: &[Aabb]) -> WideBvh {
        WideBvh::from_binary(&Bvh::build(boxes, &BuildOptions::default()))
    }

    fn parts(wide: &WideBvh) -> (Vec<WideNode>, Vec<u32>) {
        (wide.nodes.clone(), wide.order.clone())
    }

    /// The first leaf lane: (node, lane).
    fn first_leaf(wide: &WideBvh) -> (usize, usize) {
        wide.nodes
            .iter()
            .enumerate()
            .find_map(|(n, node)| {
                (0..WIDE_WIDTH)
                    .find(|&l| matches!(node.lane(l), WideLane::Leaf(_)))
                    .map(|l| (n, l))
            })
            .expect("a leaf lane")
    }

    #[test]
    fn nodes_read_back_bit_for_bit_from_their_bytes() {
        let wide = built(&boxes());
        for node in &wide.nodes {
            let bytes = node.to_le_bytes();
            let back = WideNode::from_le_bytes(&bytes);
            assert_eq!(back.to_le_bytes(), bytes);
            assert_eq!(back.offset, node.offset);
            assert_eq!(back.count, node.count);
            for lane in 0..WIDE_WIDTH {
                let (a, b) = (back.bounds(lane), node.bounds(lane));
                assert_eq!(
                    a.min.to_array().map(f32::to_bits),
                    b.min.to_array().map(f32::to_bits)
                );
                assert_eq!(
                    a.max.to_array().map(f32::to_bits),
                    b.max.to_array().map(f32::to_bits)
                );
            }
        }
        // Little-endian: the first lane's `min.x` comes first, its low byte first.
        let mut node = WideNode::EMPTY;
        node.set_bounds(0, Aabb::new(Vec3::splat(1.0), Vec3::splat(2.0)));
        assert_eq!(node.to_le_bytes()[..4], 1.0f32.to_bits().to_le_bytes());
        assert_eq!(node.to_le_bytes()[192..196], [0; 4]);
    }

    #[test]
    fn parts_of_a_built_hierarchy_make_it_again() {
        let boxes = boxes();
        let wide = built(&boxes);
        let (nodes, order) = parts(&wide);
        let again = WideBvh::from_parts(nodes, order, &boxes).expect("valid parts");
        assert_eq!(again.nodes, wide.nodes);
        assert_eq!(again.order, wide.order);
        assert_eq!(again.depth, wide.depth);
        assert!(again.depth > 1);
        assert_eq!(again.bounds, wide.bounds);
        assert_eq!(again.primitive_count, boxes.len());
        let empty = WideBvh::from_parts(Vec::new(), Vec::new(), &[Aabb::EMPTY]).expect("empty");
        assert!(empty.is_empty() && empty.depth == 0 && empty.bounds.is_empty());
    }

    #[test]
    fn from_parts_rejects_damaged_lanes() {
        let boxes = boxes();
        let wide = built(&boxes);
        let (node, lane) = first_leaf(&wide);
        let damaged = |change: &dyn Fn(&mut WideNode)| {
            let (mut nodes, order) = parts(&wide);
            change(&mut nodes[node]);
            WideBvh::from_parts(nodes, order, &boxes).err()
        };
        let malformed = Some(Error::MalformedLane { node, lane });
        // A slot range that overflows `u32`, which the walk would add up.
        assert_eq!(damaged(&|n| n.offset[lane] = u32::MAX - 3), malformed);
        // A NaN or inside-out box.
        assert_eq!(
            damaged(&|n| n.planes[0][lane / 4][lane % 4] = f32::NAN),
            malformed
        );
        assert_eq!(
            damaged(&|n| n.planes[0][lane / 4][lane % 4] = 1e9),
            malformed
        );
        // An empty lane with a box a ray could enter: the walk would take it for a leaf.
        assert_eq!(damaged(&|n| n.count[lane] = EMPTY_LANE), malformed);
        let empty = (0..WIDE_WIDTH).find(|&l| wide.nodes[0].lane(l) == WideLane::Empty);
        if let Some(l) = empty {
            let (mut nodes, order) = parts(&wide);
            nodes[0].offset[l] = 4;
            let err = WideBvh::from_parts(nodes, order, &boxes).err();
            assert_eq!(err, Some(Error::MalformedLane { node: 0, lane: l }));
        }
        // A child before its parent: a cycle the walk would never leave.
        let interior =
            (0..WIDE_WIDTH).find(|&l| matches!(wide.nodes[0].lane(l), WideLane::Node(_)));
        let l = interior.expect("the root has a node lane");
        let (mut nodes, order) = parts(&wide);
        nodes[0].offset[l] = 0;
        assert!(matches!(
            WideBvh::from_parts(nodes, order, &boxes),
            Err(Error::ChildOutOfRange {
                node: 0,
                child: 0,
                ..
            })
        ));
    }

    #[test]
    fn from_parts_wants_the_primitives_a_build_keeps() {
        let boxes = boxes();
        let wide = built(&boxes);
        let (nodes, mut order) = parts(&wide);
        let slot = order.iter().position(|&p| p == 40).expect("kept");
        // The dropped primitive in a leaf, in place of a kept one.
        order[slot] = 17;
        assert_eq!(
            WideBvh::from_parts(nodes.clone(), order.clone(), &boxes).err(),
            Some(Error::PrimitiveDropped { primitive: 17 })
        );
        // Padding before a primitive: the leaf test would number its lanes wrongly.
        order[slot] = PADDING_SLOT;
        assert!(matches!(
            WideBvh::from_parts(nodes.clone(), order, &boxes).err(),
            Some(Error::MalformedLeaf { .. })
        ));
        // The dropped primitive's box made usable: a build would have kept it.
        let mut usable = boxes.clone();
        usable[17] = Aabb::new(Vec3::ZERO, Vec3::ONE);
        assert_eq!(
            WideBvh::from_parts(nodes.clone(), wide.order.clone(), &usable).err(),
            Some(Error::PrimitiveMissing { primitive: 17 })
        );
        assert_eq!(
            WideBvh::from_parts(nodes.clone(), Vec::new(), &boxes).err(),
            Some(Error::EmptyMismatch {
                nodes: nodes.len(),
                slots: 0
            })
        );
        // Boxes of other primitives.
        let (nodes, order) = parts(&wide);
        assert!(WideBvh::from_parts(nodes, order, &boxes[1..]).is_err());
    }
}
