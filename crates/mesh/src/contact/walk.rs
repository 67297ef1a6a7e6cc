//! The walk down two trees at once (or one tree against itself) to the pairs of triangles
//! whose boxes overlap, and the exact pair test at the leaves: behind
//! [`Mesh::intersects`](crate::Mesh::intersects), `intersecting_pairs` and
//! `self_intersections`.

use std::ops::ControlFlow;

use glam::DVec3;
use meshcast_bvh::PADDING_SLOT;
use meshcast_primitives::{triangles_intersect, triangles_intersect_beyond_shared};
use smallvec::SmallVec;

use super::side::{Bounds, Frames, Item, Lanes, Side};

/// Pairs of subtrees handed to rayon's threads by the pair lists, at least.
pub(super) const PARALLEL_TASKS: usize = 256;

/// A triangle of a leaf, ready for the pair tests: its slot, its index, its corners and
/// their box.
type CarriedSlot = (usize, u32, [DVec3; 3], Bounds);

/// Which pairs the walk visits, and how it tests them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pairing {
    /// One triangle of each side, with [`triangles_intersect`].
    Across,
    /// Two triangles of one side (the same on both), each unordered pair once, with
    /// [`triangles_intersect_beyond_shared`].
    Within,
}

/// A pair of items, one of each side, whose boxes overlap.
#[derive(Clone, Copy, Debug)]
pub(super) struct Task {
    pub(super) a: (Item, Bounds),
    pub(super) b: (Item, Bounds),
}

impl Task {
    pub(super) fn is_leaves(&self) -> bool {
        self.a.0.is_leaf() && self.b.0.is_leaf()
    }
}

/// The walk over two sides (the same side twice for [`Pairing::Within`]).
pub(super) struct DualWalk<'s, 'a> {
    pub(super) a: &'s Side<'a>,
    pub(super) b: &'s Side<'a>,
    pub(super) pairing: Pairing,
    /// Whether the walk stops at the first pair found: then, of the pairs a task opens into,
    /// those whose boxes overlap most ([`overlap_fraction`]) are visited first, as the
    /// likeliest to hold a pair that meets. (Bunny against a turned copy, 50 random poses:
    /// 1.11 ms before, 0.81 ms after; a pair list visits every pair whatever the order.)
    pub(super) first_found: bool,
}

impl DualWalk<'_, '_> {
    /// Whether `task` pairs an item with itself, whose pairs are visited once each.
    fn is_diagonal(&self, task: &Task) -> bool {
        self.pairing == Pairing::Within && task.a.0 == task.b.0
    }

    /// The pairs of starting items whose boxes overlap.
    pub(super) fn starts(&self) -> Vec<Task> {
        let (starts_a, starts_b) = (self.a.starts(), self.b.starts());
        let mut tasks = Vec::new();
        for (i, &a) in starts_a.iter().enumerate() {
            let from = if self.pairing == Pairing::Within {
                i
            } else {
                0
            };
            for &b in &starts_b[from..] {
                if a.1.overlaps(&b.1) {
                    tasks.push(Task { a, b });
                }
            }
        }
        tasks
    }

    /// Opens `task` one level on both sides (a leaf stays as it is), pushing the pairs whose
    /// boxes overlap and whose carried boxes' face normals do not part them
    /// ([`Side::frame_gap`]); an item paired with itself opens into each unordered pair of
    /// its lanes once.
    ///
    /// The pairs of lanes are tested one by one in `f64`. Measured dead end: rejecting
    /// them eight at a time with `f32` vector comparisons (glam's `Vec4`, the boxes rounded
    /// outwards first) raised this function from 14.5 to 17.3 million instructions per
    /// bunny pair-list query (callgrind, `contact_timing --only "intersecting_pairs,
    /// overlapping"`): the outward rounding costs more than the comparisons it saves.
    fn expand(&self, task: Task, out: &mut Vec<Task>) {
        let (mut lanes_a, mut lanes_b) = (Lanes::new(), Lanes::new());
        let (mut frames_a, mut frames_b) = (Frames::new(), Frames::new());
        self.a
            .open_framed(task.a.0, task.a.1, &mut lanes_a, &mut frames_a);
        self.b
            .open_framed(task.b.0, task.b.1, &mut lanes_b, &mut frames_b);
        let diagonal = self.is_diagonal(&task);
        for (i, &la) in lanes_a.iter().enumerate() {
            let from = if diagonal { i } else { 0 };
            for (j, &lb) in lanes_b.iter().enumerate().skip(from) {
                let parted = || {
                    frames_b
                        .get(j)
                        .is_some_and(|f| self.b.frame_gap(f, &la.1) > 0.0)
                        || frames_a
                            .get(i)
                            .is_some_and(|f| self.a.frame_gap(f, &lb.1) > 0.0)
                };
                if la.1.overlaps(&lb.1) && !parted() {
                    out.push(Task { a: la, b: lb });
                }
            }
        }
    }

    /// Opens tasks breadth first until there are [`PARALLEL_TASKS`] or only pairs of leaves.
    pub(super) fn split(&self, mut tasks: Vec<Task>) -> Vec<Task> {
        while tasks.len() < PARALLEL_TASKS && tasks.iter().any(|t| !t.is_leaves()) {
            let mut next = Vec::with_capacity(tasks.len() * 8);
            for task in tasks {
                if task.is_leaves() {
                    next.push(task);
                } else {
                    self.expand(task, &mut next);
                }
            }
            tasks = next;
        }
        tasks
    }

    /// The walk from `stack`: every pair of triangles in overlapping leaves whose boxes
    /// overlap goes to the pairing's exact test, and each pair that meets to `found`, as
    /// `(triangle of a, triangle of b)`.
    pub(super) fn walk(
        &self,
        mut stack: Vec<Task>,
        found: &mut impl FnMut(u32, u32) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let test: fn(&[DVec3; 3], &[DVec3; 3]) -> bool = match self.pairing {
            Pairing::Across => triangles_intersect,
            Pairing::Within => triangles_intersect_beyond_shared,
        };
        while let Some(task) = stack.pop() {
            if !task.is_leaves() {
                let opened = stack.len();
                self.expand(task, &mut stack);
                if self.first_found {
                    // The most overlapping last, to be popped first.
                    stack[opened..].sort_unstable_by(|x, y| {
                        overlap_fraction(x).total_cmp(&overlap_fraction(y))
                    });
                }
                continue;
            }
            // Each of b's triangles carried once per pair of leaves, not once per pair of
            // triangles.
            let leaf_b: SmallVec<[CarriedSlot; 16]> = self
                .b
                .slots(task.b.0)
                .iter()
                .enumerate()
                .filter(|&(_, &t)| t != PADDING_SLOT)
                .map(|(j, &t)| {
                    let corners = self.b.corners(t);
                    (j, t, corners, Bounds::around(&corners))
                })
                .collect();
            let diagonal = self.is_diagonal(&task);
            for (i, &ta) in self.a.slots(task.a.0).iter().enumerate() {
                if ta == PADDING_SLOT {
                    continue;
                }
                let corners_a = self.a.corners(ta);
                let box_a = Bounds::around(&corners_a);
                if !box_a.overlaps(&task.b.1) {
                    continue;
                }
                for (j, tb, corners_b, box_b) in &leaf_b {
                    if (!diagonal || *j > i) && box_a.overlaps(box_b) && test(&corners_a, corners_b)
                    {
                        found(ta, *tb)?;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// How much of the smaller of a task's two boxes their overlap fills: the product over the
/// axes of the overlap's extent over the smaller extent (a flat box's zero extent counts as
/// the smallest positive `f64`, so that it fills its overlap).
fn overlap_fraction(task: &Task) -> f64 {
    let (a, b) = (task.a.1, task.b.1);
    let overlap = (a.max.min(b.max) - a.min.max(b.min)).max(DVec3::ZERO);
    let smaller = (a.max - a.min)
        .min(b.max - b.min)
        .max(DVec3::splat(f64::MIN_POSITIVE));
    (overlap / smaller).element_product()
}
