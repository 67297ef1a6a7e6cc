//! A wide hierarchy taken apart and put back together: its nodes as little-endian bytes, and
//! [`WideBvh::from_parts`], which checks parts read back from storage before any walk uses
//! them. What the bytes are stored in is the caller's business.

use glam::{Vec3, Vec4};
use meshcast_primitives::Aabb;

use crate::wide::{EMPTY_LANE, HALVES, MAX_NODES};
use crate::{Error, Kernel, WideBvh, WideLane, WideNode, PADDING_SLOT, WIDE_WIDTH};

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
    /// [`Kernel::preferred`].
    ///
    /// Linear time. Every lane must be well formed (an empty lane has the empty box and
    /// offset 0, any other a finite box), then [`WideBvh::validate`] holds, and the leaves
    /// hold exactly the primitives a build keeps: those whose box is finite and not empty.
    /// The depth, which sizes the traversal stack, and the root box are computed, not taken
    /// on trust.
    ///
    /// # Errors
    /// [`Error::TooManyNodes`], [`Error::EmptyMismatch`], [`Error::MalformedLane`],
    /// [`Error::SlotOutOfRange`], any error of [`WideBvh::validate`],
    /// [`Error::PrimitiveDropped`] and [`Error::PrimitiveMissing`].
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
    /// // Without its last primitive's slot, the hierarchy is not the one built.
    /// let mut order = wide.primitive_order().to_vec();
    /// let slot = order.iter().position(|&p| p == 19).ok_or("kept")?;
    /// order[slot] = meshcast_bvh::PADDING_SLOT;
    /// let err = WideBvh::from_parts(wide.nodes().to_vec(), order, &boxes).unwrap_err();
    /// assert_eq!(err, Error::PrimitiveMissing { primitive: 19 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(
        nodes: Vec<WideNode>,
        order: Vec<u32>,
        boxes: &[Aabb],
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
        // Lanes first: `validate` and the walks add a leaf's count to its offset.
        for (index, node) in nodes.iter().enumerate() {
            if let Some(lane) = (0..WIDE_WIDTH).find(|&lane| !node.lane_is_well_formed(lane)) {
                return Err(Error::MalformedLane { node: index, lane });
            }
        }
        let mut wide = Self {
            nodes,
            order,
            bounds: Aabb::EMPTY,
            primitive_count: boxes.len(),
            depth: 0,
            kernel: Kernel::preferred(),
        };
        wide.validate(boxes)?;
        // `validate` found every primitive in range and in at most one slot: the leaves hold
        // the usable boxes exactly when each one they hold is usable and they are as many.
        let usable = |b: &Aabb| b.is_finite() && !b.is_empty();
        let mut held = 0usize;
        for &primitive in wide.order.iter().filter(|&&p| p != PADDING_SLOT) {
            if !usable(&boxes[primitive as usize]) {
                return Err(Error::PrimitiveDropped { primitive });
            }
            held += 1;
        }
        if held != boxes.iter().filter(|b| usable(b)).count() {
            let mut in_leaf = vec![false; boxes.len()];
            for &primitive in wide.order.iter().filter(|&&p| p != PADDING_SLOT) {
                in_leaf[primitive as usize] = true;
            }
            let missing = (0..boxes.len()).find(|&p| usable(&boxes[p]) && !in_leaf[p]);
            return Err(Error::PrimitiveMissing {
                primitive: missing.unwrap_or_default() as u32,
            });
        }
        // Children follow their parents and each is reached once: one pass gives each node
        // its level.
        let mut level = vec![0u32; wide.nodes.len()];
        if let Some(root) = level.first_mut() {
            *root = 1;
        }
        for (index, node) in wide.nodes.iter().enumerate() {
            for lane in 0..WIDE_WIDTH {
                if let WideLane::Node(child) = node.lane(lane) {
                    level[child as usize] = level[index] + 1;
                }
            }
        }
        wide.depth = level.iter().copied().max().unwrap_or(0);
        wide.bounds = wide.nodes.first().map_or(Aabb::EMPTY, WideNode::union);
        Ok(wide)
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
        order[slot] = PADDING_SLOT;
        assert_eq!(
            WideBvh::from_parts(nodes.clone(), order, &boxes).err(),
            Some(Error::PrimitiveMissing { primitive: 40 })
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
