//! One mesh as the contact walks see it: its vertices carried into the first mesh's space
//! in `f64`, a box around the carried corners for each lane of its wide tree, and the
//! degenerate triangles the tree leaves out, each an item of its own.

use glam::{DAffine3, DMat3, DVec3};
use meshcast_bvh::{WideLane, PADDING_SLOT, WIDE_WIDTH};
use meshcast_primitives::Aabb;
use smallvec::SmallVec;

use crate::mesh::Mesh;

/// A box in `f64`, closed; empty when `min > max`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    pub(super) min: DVec3,
    pub(super) max: DVec3,
}

impl Bounds {
    pub(super) const EMPTY: Self = Self {
        min: DVec3::INFINITY,
        max: DVec3::NEG_INFINITY,
    };

    pub(super) fn around(corners: &[DVec3; 3]) -> Self {
        Self {
            min: corners[0].min(corners[1]).min(corners[2]),
            max: corners[0].max(corners[1]).max(corners[2]),
        }
    }

    pub(super) fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Whether the closed boxes share a point (false for an empty or NaN one).
    pub(super) fn overlaps(&self, other: &Self) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// The distance between the closed boxes, 0 when they overlap: a lower bound on the
    /// distance between anything inside them (up to its rounding, a unit of the gap's).
    pub(super) fn distance(&self, other: &Self) -> f64 {
        let gap = (self.min - other.max)
            .max(other.min - self.max)
            .max(DVec3::ZERO);
        gap.length()
    }

    /// The distance from `point` to the closed box, 0 inside: a lower bound on the distance
    /// from `point` to anything inside (up to its rounding).
    pub(super) fn distance_to(&self, point: DVec3) -> f64 {
        (self.min - point)
            .max(point - self.max)
            .max(DVec3::ZERO)
            .length()
    }

    /// The centre and half the diagonal: every point of the box lies within that radius of
    /// the centre (up to rounding).
    pub(super) fn ball(&self) -> (DVec3, f64) {
        (
            (self.min + self.max) * 0.5,
            (self.max - self.min).length() * 0.5,
        )
    }
}

/// The items a node opens into, with their boxes: at most a lane each.
pub(super) type Lanes = SmallVec<[(Item, Bounds); WIDE_WIDTH]>;

/// A lane of a carried side as the box it is in its own mesh's space, carried: the
/// parallelepiped of the points `centre + M h`, `|h_k| <= half_k` (`M` the transform's
/// linear part), which holds the lane's carried corners and is held by the lane's
/// axis-aligned [`Bounds`]. Its three face normals are the axes of the separating axis test
/// that axis-aligned boxes leave out (Gottschalk, Lin and Manocha 1996, for oriented
/// boxes): they part boxes that a turned mesh's axis-aligned boxes make overlap, and bound
/// their distance tighter ([`Side::frame_gap`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    centre: DVec3,
    half: DVec3,
    /// The magnitudes of its points' coordinates: the scale of the roundings it is padded for.
    magnitude: DVec3,
}

/// The frames of the lanes a node of a carried side opens into, one per lane; none for
/// a side in its own space, or an item that opens into itself.
pub(super) type Frames = SmallVec<[Frame; WIDE_WIDTH]>;

/// A node, a leaf's slots, or the `k`-th triangle the tree leaves out, of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Item {
    Node(u32),
    Leaf(u32, u32),
    Loose(u32),
}

impl Item {
    /// Whether the item holds triangles rather than lanes.
    pub(super) fn is_leaf(self) -> bool {
        !matches!(self, Item::Node(_))
    }
}

/// One mesh as the walks see it.
pub(super) struct Side<'a> {
    mesh: &'a Mesh,
    /// How its vertices are carried; `None` for a mesh in its own space, whose `f32`
    /// positions and stored boxes are exact in `f64` and hold its triangles as they are.
    carried: Option<Carried>,
    /// The triangles in no leaf slot (degenerate ones).
    left_out: Vec<u32>,
    /// Where the walks start, with their boxes (see [`Side::starts`]).
    starts: Vec<(Item, Bounds)>,
    /// The largest magnitude of a coordinate of a triangle: the scale of rounding errors.
    pub(super) extent: f64,
}

/// The relative padding of a carried box: the carried corners and the carried box are each
/// a few `f64` roundings (units of `2^-53`) of the magnitudes `|M| |p| + |t|` away from the
/// exact images, so `2^-40` of those magnitudes holds them with room to spare.
const CARRIED_BOX_SLACK: f64 = 1.0 / (1u64 << 40) as f64;

/// The relative padding of a [`Side::frame_gap`]: its projections are a few `f64`
/// roundings of the magnitudes involved, as are the carried corners, so `2^-40` of them
/// holds every rounding with room to spare.
const FRAME_GAP_SLACK: f64 = 1.0 / (1u64 << 40) as f64;

/// A transform into the first mesh's space, applied to what a walk visits when it visits
/// it: a query costs the nodes and triangles it reaches, not the size of the mesh.
struct Carried {
    transform: DAffine3,
    /// The linear part with every entry made non-negative, which carries a box's half-sizes.
    abs_matrix: DMat3,
    /// The face normals of a carried box, `n_j = m_k x m_l` for the linear part's columns
    /// `m`: `n_j` is orthogonal to the two columns other than `m_j`.
    normals: [DVec3; 3],
    /// The normals with every entry made non-negative.
    abs_normals: [DVec3; 3],
    /// `|n_j . m_j|`, the same for every `j`: the absolute determinant.
    volume: f64,
    /// `1 / |n_j|`; 0 for a zero normal (a flattening transform), which then parts nothing.
    inverse_lengths: [f64; 3],
    /// Whether the linear part turns or shears boxes (is not diagonal): a carried box is
    /// otherwise its own axis-aligned box, and its face normals part nothing more.
    turns: bool,
}

impl Carried {
    fn new(transform: &DAffine3) -> Self {
        let transform = *transform;
        let m = transform.matrix3;
        let normals = [
            m.y_axis.cross(m.z_axis),
            m.z_axis.cross(m.x_axis),
            m.x_axis.cross(m.y_axis),
        ];
        let inverse_length = |n: DVec3| {
            let length = n.length();
            if length > 0.0 && length.is_finite() {
                1.0 / length
            } else {
                0.0
            }
        };
        Self {
            transform,
            abs_matrix: DMat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs()),
            normals,
            abs_normals: normals.map(DVec3::abs),
            volume: m.determinant().abs(),
            inverse_lengths: normals.map(inverse_length),
            turns: m.x_axis.y != 0.0
                || m.x_axis.z != 0.0
                || m.y_axis.x != 0.0
                || m.y_axis.z != 0.0
                || m.z_axis.x != 0.0
                || m.z_axis.y != 0.0,
        }
    }

    /// A vertex carried: the `f64` rounding of the exact image, the same value every time.
    fn point(&self, p: glam::Vec3) -> DVec3 {
        self.transform.transform_point3(p.as_dvec3())
    }

    /// A box holding the carried corners of whatever `stored` holds: the box around the
    /// exact image of `stored` (centre and half-sizes, Arvo 1990), padded by
    /// [`CARRIED_BOX_SLACK`] for the roundings of both.
    fn bounds(&self, stored: Aabb) -> Bounds {
        self.framed(stored).0
    }

    /// [`Carried::bounds`], and the [`Frame`] of the carried box that it holds.
    fn framed(&self, stored: Aabb) -> (Bounds, Frame) {
        let (min, max) = (stored.min.as_dvec3(), stored.max.as_dvec3());
        let centre = self.transform.transform_point3((min + max) * 0.5);
        let own_half = (max - min) * 0.5;
        let half = self.abs_matrix * own_half;
        let magnitude =
            self.abs_matrix * min.abs().max(max.abs()) + self.transform.translation.abs();
        let reach = half + magnitude * CARRIED_BOX_SLACK + DVec3::splat(f64::MIN_POSITIVE);
        let frame = Frame {
            centre,
            half: own_half,
            magnitude,
        };
        if stored.is_empty() {
            return (Bounds::EMPTY, frame);
        }
        let bounds = Bounds {
            min: centre - reach,
            max: centre + reach,
        };
        (bounds, frame)
    }
}

impl<'a> Side<'a> {
    /// `mesh` with its vertices carried by `transform` in `f64` (none, or the identity: as
    /// they are, which is what carrying by the identity gives). Costs nothing per vertex:
    /// vertices and boxes are carried as the walks reach them.
    pub(super) fn new(mesh: &'a Mesh, transform: Option<&DAffine3>) -> Self {
        let mut side = Self {
            mesh,
            carried: transform
                .filter(|t| **t != DAffine3::IDENTITY)
                .map(Carried::new),
            left_out: left_out(mesh),
            starts: Vec::new(),
            extent: 0.0,
        };
        side.starts = side.find_starts();
        side.extent = side
            .starts
            .iter()
            .filter(|(_, b)| b.min.cmple(b.max).all())
            .fold(0.0, |m: f64, (_, b)| {
                m.max(b.min.abs().max(b.max.abs()).max_element())
            });
        side
    }

    pub(super) fn corners(&self, triangle: u32) -> [DVec3; 3] {
        let corners = self.mesh.tri_mesh().indices()[triangle as usize];
        let positions = self.mesh.tri_mesh().positions();
        match &self.carried {
            Some(carried) => corners.map(|v| carried.point(positions[v as usize])),
            None => corners.map(|v| positions[v as usize].as_dvec3()),
        }
    }

    /// How far apart `bounds` (a box of the other side, in this side's space) and the
    /// carried box of `frame` lie along the carried box's face normals, at most: the
    /// largest gap along a unit normal, less a padding for rounding. Positive only when
    /// nothing the two hold meets; a lower bound on the distance between anything they hold.
    /// 0 for a side in its own space, or where no normal parts them.
    pub(super) fn frame_gap(&self, frame: &Frame, bounds: &Bounds) -> f64 {
        let Some(carried) = &self.carried else {
            return 0.0;
        };
        let centre = (bounds.min + bounds.max) * 0.5;
        let half = (bounds.max - bounds.min) * 0.5;
        let offset = frame.centre - centre;
        let magnitude = frame.magnitude + centre.abs() + half;
        let mut gap = 0.0_f64;
        for j in 0..3 {
            let apart = carried.normals[j].dot(offset).abs()
                - carried.abs_normals[j].dot(half)
                - carried.volume * frame.half[j]
                - carried.abs_normals[j].dot(magnitude) * FRAME_GAP_SLACK;
            // A NaN (an empty box) parts nothing: `max` keeps the other.
            gap = gap.max(apart * carried.inverse_lengths[j]);
        }
        gap
    }

    /// The box of lane `lane` of node `node`.
    fn lane_bounds(&self, node: u32, lane: usize) -> Bounds {
        let stored = self.mesh.bvh().nodes()[node as usize].bounds(lane);
        match &self.carried {
            Some(carried) => carried.bounds(stored),
            None => Bounds {
                min: stored.min.as_dvec3(),
                max: stored.max.as_dvec3(),
            },
        }
    }

    /// The box around the triangles of a leaf item.
    fn bounds(&self, item: Item) -> Bounds {
        self.triangles(item).fold(Bounds::EMPTY, |b, t| {
            b.union(Bounds::around(&self.corners(t)))
        })
    }

    /// Where the walks start, with their boxes: the root (none for an empty tree) and each
    /// triangle the tree leaves out.
    pub(super) fn starts(&self) -> &[(Item, Bounds)] {
        &self.starts
    }

    fn find_starts(&self) -> Vec<(Item, Bounds)> {
        let root = (!self.mesh.bvh().nodes().is_empty()).then(|| {
            (
                Item::Node(0),
                (0..WIDE_WIDTH).fold(Bounds::EMPTY, |b, lane| b.union(self.lane_bounds(0, lane))),
            )
        });
        let loose =
            (0..self.left_out.len() as u32).map(|k| (Item::Loose(k), self.bounds(Item::Loose(k))));
        root.into_iter().chain(loose).collect()
    }

    /// What `item` opens into: a node's non-empty lanes with their boxes; a leaf, itself.
    pub(super) fn open(&self, item: Item, bounds: Bounds, out: &mut Lanes) {
        self.open_framed(item, bounds, out, &mut Frames::new());
    }

    /// [`Side::open`], and for a node of a side carried by a map that turns or shears the
    /// [`Frame`] of each lane, in the same order (`frames` left empty otherwise).
    pub(super) fn open_framed(
        &self,
        item: Item,
        bounds: Bounds,
        out: &mut Lanes,
        frames: &mut Frames,
    ) {
        out.clear();
        frames.clear();
        let Item::Node(n) = item else {
            out.push((item, bounds));
            return;
        };
        let node = &self.mesh.bvh().nodes()[n as usize];
        for lane in 0..WIDE_WIDTH {
            let item = match node.lane(lane) {
                WideLane::Node(child) => Item::Node(child),
                WideLane::Leaf(slots) => Item::Leaf(slots.start, slots.end),
                WideLane::Empty => continue,
            };
            match &self.carried {
                Some(carried) if carried.turns => {
                    let (bounds, frame) = carried.framed(node.bounds(lane));
                    out.push((item, bounds));
                    frames.push(frame);
                }
                _ => out.push((item, self.lane_bounds(n, lane))),
            }
        }
    }

    /// The slots of a leaf item, padding included ([`PADDING_SLOT`]); none for a node.
    pub(super) fn slots(&self, item: Item) -> &[u32] {
        match item {
            Item::Node(_) => &[],
            Item::Leaf(start, end) => {
                &self.mesh.bvh().primitive_order()[start as usize..end as usize]
            }
            Item::Loose(k) => std::slice::from_ref(&self.left_out[k as usize]),
        }
    }

    /// The triangles of a leaf item (padding skipped).
    pub(super) fn triangles(&self, item: Item) -> impl Iterator<Item = u32> + '_ {
        self.slots(item)
            .iter()
            .copied()
            .filter(|&t| t != PADDING_SLOT)
    }
}

/// The triangles of `mesh` in no leaf slot: the degenerate ones, which a build leaves out
/// and counts ([`crate::TriMesh::degenerate_count`]), so that most meshes need no search.
fn left_out(mesh: &Mesh) -> Vec<u32> {
    let order = mesh.bvh().primitive_order();
    let held = || order.iter().filter(|&&t| t != PADDING_SLOT);
    if mesh.tri_mesh().degenerate_count() == 0 {
        debug_assert_eq!(held().count(), mesh.triangle_count());
        return Vec::new();
    }
    let mut in_slot = vec![false; mesh.triangle_count()];
    for &t in held() {
        in_slot[t as usize] = true;
    }
    (0..in_slot.len() as u32)
        .filter(|&t| !in_slot[t as usize])
        .collect()
}
