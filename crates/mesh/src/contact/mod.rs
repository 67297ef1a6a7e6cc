//! The contact room: where two meshes' surfaces meet. [`Mesh::intersects`] and
//! [`Mesh::intersecting_pairs`]: the second mesh carried into the first's space in `f64`, a
//! walk down both eight-wide trees at once, and the exact triangle–triangle test
//! ([`meshcast_primitives::triangles_intersect`]) at the leaves.
//!
//! May use: `mesh`. Used by nothing in the crate.

use std::ops::ControlFlow;

use glam::{Affine3A, DVec3};
use meshcast_bvh::{WideLane, PADDING_SLOT, WIDE_WIDTH};
use meshcast_primitives::triangles_intersect;
use rayon::prelude::*;

use crate::Mesh;

/// Pairs of subtrees handed to rayon's threads by [`Mesh::intersecting_pairs`], at least.
const PARALLEL_TASKS: usize = 256;

impl Mesh {
    /// Whether the surface of `other`, placed by `other_to_self` (from `other`'s space into
    /// this mesh's), shares a point with this mesh's surface: some triangle of each, closed
    /// (edges and corners included), meet. Surfaces only: a mesh wholly inside a closed
    /// mesh, touching nothing, does not intersect it.
    ///
    /// `other`'s vertices are carried once each by `other_to_self` in `f64` (a `DAffine3`
    /// made from the `Affine3A`); from there every decision is exact: the carried corners
    /// are tested with [`meshcast_primitives::triangles_intersect`] (Guigue and Devillers
    /// 2003 on Shewchuk's exact predicates), and the trees only prune with boxes fitted
    /// around those same `f64` corners, so no pair that meets is skipped. A transform of
    /// integers, powers of two and exact translations carries exactly, so a copy placed on
    /// top or beside touches exactly; any other is the `f64` rounding of the exact map, a
    /// few `1e-16` relative. Degenerate triangles, which the trees leave out, are tested
    /// too (each against the other mesh's tree, and against the other's degenerate ones),
    /// as segments or points. A transform that is not finite meets nothing. Stops at the
    /// first pair found.
    ///
    /// # Examples
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::Mesh;
    ///
    /// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// // Turned a quarter about x through the origin: the copies cross along an edge.
    /// let turned = Affine3A::from_rotation_x(std::f32::consts::FRAC_PI_2);
    /// assert!(tri.intersects(&tri, &turned));
    /// // Moved past the edge x + y = 1, they are apart.
    /// assert!(!tri.intersects(&tri, &Affine3A::from_translation(Vec3::new(0.75, 0.75, 0.0))));
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn intersects(&self, other: &Mesh, other_to_self: &Affine3A) -> bool {
        let (a, b) = (Side::new(self, None), Side::new(other, Some(other_to_self)));
        let mut found = |_: u32, _: u32| ControlFlow::Break(());
        walk(
            &a,
            &b,
            Task::roots(&a, &b).into_iter().collect(),
            &mut found,
        )
        .is_break()
            || left_out(&a, &b, &mut found).is_break()
    }

    /// Every pair `(triangle of self, triangle of other)` whose closed triangles share a
    /// point, `other` placed by `other_to_self`, as [`Mesh::intersects`] decides it: sorted,
    /// each pair once. The walk runs on rayon's threads; the answer does not depend on
    /// their number.
    ///
    /// # Examples
    /// ```
    /// use glam::Affine3A;
    /// use meshcast_mesh::Mesh;
    ///
    /// // A unit square of two triangles, against itself: every pair touches (they share
    /// // the diagonal), so all four.
    /// let square = Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?;
    /// let pairs = square.intersecting_pairs(&square, &Affine3A::IDENTITY);
    /// assert_eq!(pairs, [(0, 0), (0, 1), (1, 0), (1, 1)]);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn intersecting_pairs(&self, other: &Mesh, other_to_self: &Affine3A) -> Vec<(u32, u32)> {
        let (a, b) = (Side::new(self, None), Side::new(other, Some(other_to_self)));
        let tasks = split(&a, &b, Task::roots(&a, &b).into_iter().collect());
        let mut pairs: Vec<(u32, u32)> = tasks
            .into_par_iter()
            .map(|task| {
                let mut pairs = Vec::new();
                let _ = walk(&a, &b, vec![task], &mut |i, j| {
                    pairs.push((i, j));
                    ControlFlow::Continue(())
                });
                pairs
            })
            .flatten()
            .collect();
        let _ = left_out(&a, &b, &mut |i, j| {
            pairs.push((i, j));
            ControlFlow::Continue(())
        });
        pairs.par_sort_unstable();
        pairs.dedup();
        pairs
    }
}

/// A box in `f64`, closed; empty when `min > max`.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: DVec3,
    max: DVec3,
}

impl Bounds {
    const EMPTY: Self = Self {
        min: DVec3::INFINITY,
        max: DVec3::NEG_INFINITY,
    };

    fn around(corners: &[DVec3; 3]) -> Self {
        Self {
            min: corners[0].min(corners[1]).min(corners[2]),
            max: corners[0].max(corners[1]).max(corners[2]),
        }
    }

    fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Whether the closed boxes share a point (false for an empty or NaN one).
    fn overlaps(&self, other: &Self) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }
}

/// One mesh as the walk sees it: its vertices in the first mesh's space, in `f64`, each
/// node lane's box fitted around them, and the triangles its tree leaves out.
struct Side<'a> {
    mesh: &'a Mesh,
    vertices: Vec<DVec3>,
    /// Per node, per lane: the box around the carried corners of the triangles below.
    /// Fitted afresh rather than carrying the stored `f32` boxes' corners, so it holds the
    /// carried triangles by construction (no rounding bound to pad by) and stays tight
    /// under rotations.
    lanes: Vec<[Bounds; WIDE_WIDTH]>,
    /// The triangles in no leaf slot (degenerate ones), with their boxes.
    left_out: Vec<(u32, Bounds)>,
}

impl<'a> Side<'a> {
    fn new(mesh: &'a Mesh, transform: Option<&Affine3A>) -> Self {
        let positions = mesh.tri_mesh().positions();
        let vertices: Vec<DVec3> = match transform {
            None => positions.iter().map(|p| p.as_dvec3()).collect(),
            Some(t) => {
                let t = t.as_daffine3();
                positions
                    .iter()
                    .map(|p| t.transform_point3(p.as_dvec3()))
                    .collect()
            }
        };
        let mut side = Self {
            mesh,
            vertices,
            lanes: Vec::new(),
            left_out: Vec::new(),
        };
        side.fit();
        side
    }

    /// Fits every lane's box, children first (children follow their parents), and lists the
    /// triangles no slot holds.
    fn fit(&mut self) {
        let bvh = self.mesh.bvh();
        let nodes = bvh.nodes();
        let order = bvh.primitive_order();
        let mut lanes = vec![[Bounds::EMPTY; WIDE_WIDTH]; nodes.len()];
        for n in (0..nodes.len()).rev() {
            for lane in 0..WIDE_WIDTH {
                lanes[n][lane] = match nodes[n].lane(lane) {
                    WideLane::Node(child) => lanes[child as usize]
                        .iter()
                        .fold(Bounds::EMPTY, |b, &lane| b.union(lane)),
                    WideLane::Leaf(slots) => self
                        .leaf(slots.start, slots.end)
                        .fold(Bounds::EMPTY, |b, t| {
                            b.union(Bounds::around(&self.corners(t)))
                        }),
                    WideLane::Empty => Bounds::EMPTY,
                };
            }
        }
        self.lanes = lanes;
        let mut held = vec![false; self.mesh.triangle_count()];
        for &t in order.iter().filter(|&&t| t != PADDING_SLOT) {
            held[t as usize] = true;
        }
        self.left_out = (0..held.len() as u32)
            .filter(|&t| !held[t as usize])
            .map(|t| (t, Bounds::around(&self.corners(t))))
            .collect();
    }

    fn corners(&self, triangle: u32) -> [DVec3; 3] {
        self.mesh.tri_mesh().indices()[triangle as usize].map(|v| self.vertices[v as usize])
    }

    /// The root as an item with its box, `None` for an empty tree.
    fn root(&self) -> Option<(Item, Bounds)> {
        let lanes = self.lanes.first()?;
        Some((
            Item::Node(0),
            lanes.iter().fold(Bounds::EMPTY, |b, &lane| b.union(lane)),
        ))
    }

    /// What `item` opens into: a node's non-empty lanes with their boxes; a leaf, itself.
    fn open(&self, item: Item, bounds: Bounds, out: &mut Vec<(Item, Bounds)>) {
        out.clear();
        match item {
            Item::Leaf(..) => out.push((item, bounds)),
            Item::Node(n) => {
                let node = &self.mesh.bvh().nodes()[n as usize];
                for lane in 0..WIDE_WIDTH {
                    let item = match node.lane(lane) {
                        WideLane::Node(child) => Item::Node(child),
                        WideLane::Leaf(slots) => Item::Leaf(slots.start, slots.end),
                        WideLane::Empty => continue,
                    };
                    out.push((item, self.lanes[n as usize][lane]));
                }
            }
        }
    }

    /// The triangles of a leaf's slots (padding skipped).
    fn leaf(&self, start: u32, end: u32) -> impl Iterator<Item = u32> + '_ {
        self.mesh.bvh().primitive_order()[start as usize..end as usize]
            .iter()
            .copied()
            .filter(|&t| t != PADDING_SLOT)
    }
}

/// A node or a leaf's slots of one tree.
#[derive(Clone, Copy, Debug)]
enum Item {
    Node(u32),
    Leaf(u32, u32),
}

/// A pair of subtrees, one of each mesh, whose boxes overlap.
#[derive(Clone, Copy, Debug)]
struct Task {
    a: (Item, Bounds),
    b: (Item, Bounds),
}

impl Task {
    fn roots(a: &Side, b: &Side) -> Option<Self> {
        let (ra, rb) = (a.root()?, b.root()?);
        ra.1.overlaps(&rb.1).then_some(Self { a: ra, b: rb })
    }

    fn is_leaves(&self) -> bool {
        matches!((self.a.0, self.b.0), (Item::Leaf(..), Item::Leaf(..)))
    }
}

/// Opens `task` one level on both sides (a leaf stays as it is), pushing the pairs whose
/// boxes overlap.
fn expand(a: &Side, b: &Side, task: Task, out: &mut Vec<Task>) {
    let (mut lanes_a, mut lanes_b) = (Vec::with_capacity(8), Vec::with_capacity(8));
    a.open(task.a.0, task.a.1, &mut lanes_a);
    b.open(task.b.0, task.b.1, &mut lanes_b);
    for &la in &lanes_a {
        for &lb in &lanes_b {
            if la.1.overlaps(&lb.1) {
                out.push(Task { a: la, b: lb });
            }
        }
    }
}

/// Opens tasks breadth first until there are [`PARALLEL_TASKS`] or only pairs of leaves.
fn split(a: &Side, b: &Side, mut tasks: Vec<Task>) -> Vec<Task> {
    while tasks.len() < PARALLEL_TASKS && tasks.iter().any(|t| !t.is_leaves()) {
        let mut next = Vec::with_capacity(tasks.len() * 8);
        for task in tasks {
            if task.is_leaves() {
                next.push(task);
            } else {
                expand(a, b, task, &mut next);
            }
        }
        tasks = next;
    }
    tasks
}

/// The dual walk from `stack`: every pair of triangles in overlapping leaves whose boxes
/// overlap goes to the exact test, and each pair that meets to `found`.
fn walk(
    a: &Side,
    b: &Side,
    mut stack: Vec<Task>,
    found: &mut impl FnMut(u32, u32) -> ControlFlow<()>,
) -> ControlFlow<()> {
    while let Some(task) = stack.pop() {
        match (task.a.0, task.b.0) {
            (Item::Leaf(sa, ea), Item::Leaf(sb, eb)) => {
                for ta in a.leaf(sa, ea) {
                    let corners_a = a.corners(ta);
                    let box_a = Bounds::around(&corners_a);
                    if !box_a.overlaps(&task.b.1) {
                        continue;
                    }
                    for tb in b.leaf(sb, eb) {
                        let corners_b = b.corners(tb);
                        if box_a.overlaps(&Bounds::around(&corners_b))
                            && triangles_intersect(&corners_a, &corners_b)
                        {
                            found(ta, tb)?;
                        }
                    }
                }
            }
            _ => expand(a, b, task, &mut stack),
        }
    }
    ControlFlow::Continue(())
}

/// The triangles the trees leave out: each of `a`'s against `b`'s tree and `b`'s left-out
/// ones, each of `b`'s against `a`'s tree.
fn left_out(
    a: &Side,
    b: &Side,
    found: &mut impl FnMut(u32, u32) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for &(ta, box_a) in &a.left_out {
        let corners_a = a.corners(ta);
        let mut hit = |tb: u32| -> ControlFlow<()> {
            if triangles_intersect(&corners_a, &b.corners(tb)) {
                found(ta, tb)?;
            }
            ControlFlow::Continue(())
        };
        near(b, box_a, &mut hit)?;
        for &(tb, box_b) in &b.left_out {
            if box_a.overlaps(&box_b) {
                hit(tb)?;
            }
        }
    }
    for &(tb, box_b) in &b.left_out {
        let corners_b = b.corners(tb);
        near(a, box_b, &mut |ta| {
            if triangles_intersect(&a.corners(ta), &corners_b) {
                found(ta, tb)?;
            }
            ControlFlow::Continue(())
        })?;
    }
    ControlFlow::Continue(())
}

/// Every triangle of `side`'s tree whose box overlaps `bounds`, to `visit`.
fn near(
    side: &Side,
    bounds: Bounds,
    visit: &mut impl FnMut(u32) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Some(root) = side.root() else {
        return ControlFlow::Continue(());
    };
    let mut stack = vec![root];
    let mut lanes = Vec::with_capacity(WIDE_WIDTH);
    while let Some((item, item_bounds)) = stack.pop() {
        if !item_bounds.overlaps(&bounds) {
            continue;
        }
        match item {
            Item::Leaf(start, end) => {
                for t in side.leaf(start, end) {
                    if Bounds::around(&side.corners(t)).overlaps(&bounds) {
                        visit(t)?;
                    }
                }
            }
            Item::Node(_) => {
                side.open(item, item_bounds, &mut lanes);
                stack.extend_from_slice(&lanes);
            }
        }
    }
    ControlFlow::Continue(())
}
