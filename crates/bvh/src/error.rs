//! The crate's error: a hierarchy that breaks an invariant, or input of the wrong size.
//!
//! The error room, above the kernels (`simd/`) whose [`Kernel`](crate::Kernel) it names.

/// What [`crate::Bvh::validate`] and [`crate::Bvh::refit`] report.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_bvh::{BuildOptions, Bvh, Error};
/// use meshcast_primitives::Aabb;
///
/// let boxes = [Aabb::new(Vec3::ZERO, Vec3::ONE)];
/// let bvh = Bvh::build(&boxes, &BuildOptions::default());
/// assert_eq!(
///     bvh.validate(&[]),
///     Err(Error::PrimitiveCountMismatch { expected: 1, found: 0 })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The boxes given are not as many as the hierarchy was built over.
    #[error("the hierarchy was built over {expected} primitives but {found} boxes were given")]
    PrimitiveCountMismatch {
        /// The number of primitives at build time (dropped ones included).
        expected: usize,
        /// The number of boxes given.
        found: usize,
    },
    /// An interior node's child index is out of range or does not follow its parent.
    #[error("node {node} has child {child}, outside {after}..{len}")]
    ChildOutOfRange {
        /// The parent.
        node: usize,
        /// The first child's index.
        child: usize,
        /// Children must come after this index.
        after: usize,
        /// The number of nodes.
        len: usize,
    },
    /// A node is the child of two parents, or of none.
    #[error("node {node} is reached {times} times from the root instead of once")]
    NodeReach {
        /// The node.
        node: usize,
        /// How often a walk from the root reaches it.
        times: usize,
    },
    /// A leaf's slot range runs past the primitive order.
    #[error("leaf {node} holds slots {first}..{end}, past the {len} slots")]
    SlotOutOfRange {
        /// The leaf.
        node: usize,
        /// Its first slot.
        first: usize,
        /// One past its last slot.
        end: usize,
        /// The number of slots.
        len: usize,
    },
    /// A slot is held by no leaf or by several.
    #[error("slot {slot} is held by {leaves} leaves instead of one")]
    SlotCoverage {
        /// The slot.
        slot: usize,
        /// The number of leaves holding it.
        leaves: usize,
    },
    /// A slot names a primitive index that does not exist.
    #[error("slot {slot} holds primitive {primitive}, but there are {count} primitives")]
    PrimitiveOutOfRange {
        /// The slot.
        slot: usize,
        /// The primitive index found there.
        primitive: u32,
        /// The number of primitives.
        count: usize,
    },
    /// A primitive sits in two slots.
    #[error("primitive {primitive} sits in more than one slot")]
    PrimitiveRepeated {
        /// The primitive.
        primitive: u32,
    },
    /// The nodes and the slots disagree on whether the hierarchy is empty.
    #[error("{nodes} nodes but {slots} slots: only one of them is empty")]
    EmptyMismatch {
        /// The number of nodes.
        nodes: usize,
        /// The number of slots.
        slots: usize,
    },
    /// A child's box is not inside its parent's.
    #[error("the box of node {child} is not inside the box of its parent {node}")]
    ChildNotContained {
        /// The parent.
        node: usize,
        /// The child.
        child: usize,
    },
    /// A leaf's box does not contain the box of one of its primitives.
    #[error("the box of leaf {node} does not contain primitive {primitive}")]
    PrimitiveNotContained {
        /// The leaf.
        node: usize,
        /// The primitive (original index).
        primitive: u32,
    },
    /// A lane of a wide node is not one a build makes: an empty lane whose box is not the
    /// empty box or whose offset is not 0, a lane whose box is not finite or is inside out,
    /// or a leaf whose slot range overflows ([`crate::WideBvh::from_parts`]).
    #[error("lane {lane} of node {node} is malformed")]
    MalformedLane {
        /// The node.
        node: usize,
        /// The lane.
        lane: usize,
    },
    /// A leaf's slots are not a build's: no primitive, padding before a primitive, or a
    /// whole block of padding ([`crate::WideBvh::from_parts`]).
    #[error("the leaf of node {node} at slot {first} is not padded as a build pads")]
    MalformedLeaf {
        /// The node holding the leaf.
        node: usize,
        /// The leaf's first slot.
        first: usize,
    },
    /// A leaf holds a primitive whose box is empty or not finite, which a build drops.
    #[error("a leaf holds primitive {primitive}, whose box is empty or not finite")]
    PrimitiveDropped {
        /// The primitive (original index).
        primitive: u32,
    },
    /// The box around a group of slots ([`crate::WideBvh::from_parts_with`]) is not inside
    /// the box of the leaf holding them.
    #[error("the box of leaf {node} does not contain its primitives in slots {first_slot}..")]
    GroupNotContained {
        /// The node holding the leaf.
        node: usize,
        /// The group's first slot.
        first_slot: usize,
    },
    /// No leaf holds a primitive whose box is finite and not empty.
    #[error("no leaf holds primitive {primitive}")]
    PrimitiveMissing {
        /// The primitive (original index).
        primitive: u32,
    },
    /// More nodes than a traversal can name.
    #[error("{nodes} nodes, more than the {max} a hierarchy can hold")]
    TooManyNodes {
        /// The number of nodes.
        nodes: usize,
        /// The most there may be.
        max: usize,
    },
    /// A buffer of a build or a hierarchy could not be allocated.
    #[error(transparent)]
    OutOfMemory(#[from] crate::memory::OutOfMemory),
    /// The CPU cannot run the kernel asked for.
    #[error("this CPU cannot run the {kernel} kernel")]
    UnsupportedKernel {
        /// The kernel asked for.
        kernel: crate::simd::Kernel,
    },
}
