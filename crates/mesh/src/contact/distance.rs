//! How far apart two meshes' surfaces are: a best-first walk down both trees, nearest
//! pair of boxes first, to the nearest pair of triangles.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::{Affine3A, DVec3, Vec3};
use meshcast_primitives::{triangles_distance, TriangleDistance};
use smallvec::SmallVec;

use super::side::{Bounds, Lanes, Side};
use super::walk::Task;
use crate::mesh::Mesh;

/// The slack a box bound keeps below the best distance found, relative to the largest
/// coordinate: rounding in the triangle distances (a few units of `f64` rounding of the
/// coordinates) can put a computed distance that far below the box bound of its pair, and
/// such a pair must still be visited.
pub(super) const BOUND_SLACK: f64 = 1.0 / (1u64 << 40) as f64;

/// The nearest points of two meshes' surfaces: [`Mesh::mesh_distance`]'s answer.
///
/// # Examples
/// ```
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::Mesh;
///
/// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
/// let above = Affine3A::from_translation(Vec3::new(0.0, 0.0, 2.0));
/// let gap = tri.mesh_distance(&tri, &above, None).ok_or("empty")?;
/// assert_eq!(gap.distance, 2.0);
/// assert_eq!(gap.point_on_other - gap.point_on_self, Vec3::new(0.0, 0.0, 2.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshDistance {
    /// The distance between the surfaces: `0.0` exactly when they meet (as
    /// [`Mesh::intersects`] decides it), otherwise positive.
    pub distance: f32,
    /// The point of this mesh's surface nearest to the other's.
    pub point_on_self: Vec3,
    /// The point of the other mesh's surface nearest to this one's, in this mesh's space.
    pub point_on_other: Vec3,
    /// The triangle of this mesh that holds `point_on_self`.
    pub triangle_self: u32,
    /// The triangle of the other mesh that holds `point_on_other`.
    pub triangle_other: u32,
}

/// The nearest points of two placed meshes' surfaces in `f64`: what
/// [`crate::Instance::world_mesh_distance`] and the scene's `world_*` distance queries answer,
/// for meshes far from the origin, whose world points an `f32` would round to the metre.
/// [`MeshDistance`] is its rounding ([`DMeshDistance::rounded`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DMeshDistance {
    /// The distance between the surfaces: `0.0` exactly when they meet, otherwise positive.
    pub distance: f64,
    /// The point of the first surface nearest to the other.
    pub point_on_self: DVec3,
    /// The point of the other surface nearest to the first, in the same space.
    pub point_on_other: DVec3,
    /// The triangle of the first mesh that holds `point_on_self`.
    pub triangle_self: u32,
    /// The triangle of the other mesh that holds `point_on_other`.
    pub triangle_other: u32,
}

impl DMeshDistance {
    /// Rounded to `f32`: the points to the nearest, the distance too, but never from positive
    /// to zero (apart stays apart).
    pub fn rounded(&self) -> MeshDistance {
        MeshDistance {
            distance: if self.distance == 0.0 {
                0.0
            } else {
                (self.distance as f32).max(f32::from_bits(1))
            },
            point_on_self: self.point_on_self.as_vec3(),
            point_on_other: self.point_on_other.as_vec3(),
            triangle_self: self.triangle_self,
            triangle_other: self.triangle_other,
        }
    }
}

impl Mesh {
    /// The smallest distance between this mesh's surface and that of `other`, placed by
    /// `other_to_self` (from `other`'s space into this mesh's), with the nearest points and
    /// their triangles; `None` when either mesh has no triangle, the transform is not
    /// finite, or no pair lies within `max_distance` (inclusive; `None` for no limit).
    ///
    /// `other` is carried as [`Mesh::intersects`] carries it (once per vertex, in `f64`).
    /// A best-first walk takes pairs of subtrees by the distance between their boxes and
    /// stops when the nearest box pair left is farther than the nearest triangles found (or
    /// `max_distance`); it keeps pairs whose box bound is a rounding error beyond that, so the
    /// distance is the smallest over every pair of triangles of
    /// [`meshcast_primitives::triangles_distance`], computed in `f64` (edge pairs and
    /// corners over faces, Ericson 2005), then rounded to `f32`. When the surfaces meet
    /// (decided exactly), the distance is `0.0`, both points are one point where they meet,
    /// and the walk stops at the first pair found; apart, it is positive (at least the
    /// smallest positive `f32`). Of several pairs at the same distance, one is reported;
    /// the same on every run. Sequential: one query is one walk.
    ///
    /// # Examples
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::Mesh;
    ///
    /// let square = Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?;
    /// // Turned to stand on its edge, three units to the right: nearest at x = 1 and 3.
    /// let standing = Affine3A::from_translation(Vec3::new(3.0, 0.0, 0.0))
    ///     * Affine3A::from_rotation_y(-std::f32::consts::FRAC_PI_2);
    /// let gap = square.mesh_distance(&square, &standing, None).ok_or("empty")?;
    /// assert!((gap.distance - 2.0).abs() < 1e-6);
    /// assert_eq!(gap.point_on_self.x, 1.0);
    /// // Nothing within one unit; moved into the square, touching.
    /// assert_eq!(square.mesh_distance(&square, &standing, Some(1.0)), None);
    /// let touching = Affine3A::from_translation(Vec3::new(-2.0, 0.0, 0.0)) * standing;
    /// assert_eq!(square.mesh_distance(&square, &touching, Some(1.0)).ok_or("apart")?.distance, 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mesh_distance(
        &self,
        other: &Mesh,
        other_to_self: &Affine3A,
        max_distance: Option<f32>,
    ) -> Option<MeshDistance> {
        let limit = distance_limit(max_distance.map(f64::from))?;
        if !other_to_self.is_finite() {
            return None;
        }
        nearest_pair(
            &Side::new(self, None),
            &Side::new(other, Some(&other_to_self.as_daffine3())),
            limit,
        )
        .map(|gap| gap.rounded())
    }
}

/// The limit a `max_distance` sets (none: no limit); `None` for a NaN or negative one.
pub(super) fn distance_limit(max_distance: Option<f64>) -> Option<f64> {
    let limit = max_distance.unwrap_or(f64::INFINITY);
    (limit >= 0.0).then_some(limit)
}

/// The nearest pair of triangles of `a` and `b` within `limit` (inclusive): a best-first
/// walk down both trees, nearest boxes first.
pub(super) fn nearest_pair(a: &Side, b: &Side, limit: f64) -> Option<DMeshDistance> {
    let slack = a.extent.max(b.extent) * BOUND_SLACK;
    let mut nearest = Nearest {
        limit,
        slack,
        best: None,
    };
    let mut queue = Frontier::default();
    let starts_b = b.starts();
    for &start_a in a.starts() {
        for &start_b in starts_b {
            let bound = start_a.1.distance(&start_b.1);
            if nearest.may_hold(bound) {
                queue.push(
                    bound,
                    Task {
                        a: start_a,
                        b: start_b,
                    },
                );
            }
        }
    }
    let (mut lanes_a, mut lanes_b) = (Lanes::new(), Lanes::new());
    while let Some((bound, task)) = queue.pop() {
        if !nearest.may_hold(bound) {
            break;
        }
        if task.is_leaves() {
            if nearest.leaves(a, b, &task).is_some() {
                break;
            }
            continue;
        }
        // Open the larger box only (a leaf stays as it is): 8 pairs rather than 64, fewer
        // of them under the bound (the bunny against a turned copy: 50 random poses apart
        // 51 ms before, 48 ms after; overlapping 0.058 ms, 0.033 ms). The intersection
        // walk opens both: there, opening one was slower on random poses (0.80 against
        // 0.99 ms), faster on the placements that overlap most.
        let diagonal = |bounds: &Bounds| (bounds.max - bounds.min).length_squared();
        let open_a = task.b.0.is_leaf()
            || (!task.a.0.is_leaf() && diagonal(&task.a.1) >= diagonal(&task.b.1));
        if open_a {
            a.open(task.a.0, task.a.1, &mut lanes_a);
            lanes_b.clear();
            lanes_b.push(task.b);
        } else {
            lanes_a.clear();
            lanes_a.push(task.a);
            b.open(task.b.0, task.b.1, &mut lanes_b);
        }
        // The carried boxes' face normals ([`Side::frame_gap`]) were tried here as a second
        // bound: measured slower (bunny against a turned copy 1.5 sizes apart, 50 random
        // poses: 112 ms against 104 ms), the boxes' distance bounds these walks as well.
        for &la in &lanes_a {
            for &lb in &lanes_b {
                let bound = la.1.distance(&lb.1);
                if nearest.may_hold(bound) {
                    queue.push(bound, Task { a: la, b: lb });
                }
            }
        }
    }
    let (gap, triangle_self, triangle_other) = nearest.best?;
    Some(DMeshDistance {
        distance: gap.distance,
        point_on_self: gap.on_a,
        point_on_other: gap.on_b,
        triangle_self,
        triangle_other,
    })
}

/// The pairs of items a distance walk has still to visit, nearest bound first. The heap
/// holds indices into `tasks`, which only grows: a task is large, and a heap moves its
/// entries at every push and pop (the bunny against a turned copy 1.5 sizes apart, 50
/// random poses: 59 ms with the tasks in the heap, 52 ms with their indices).
#[derive(Default)]
struct Frontier {
    tasks: Vec<Task>,
    queue: BinaryHeap<Queued<u32>>,
}

impl Frontier {
    fn push(&mut self, bound: f64, task: Task) {
        self.queue.push(Queued {
            bound,
            task: self.tasks.len() as u32,
        });
        self.tasks.push(task);
    }

    /// The task of the smallest bound, with its bound.
    fn pop(&mut self) -> Option<(f64, Task)> {
        let Queued { bound, task } = self.queue.pop()?;
        Some((bound, self.tasks[task as usize]))
    }
}

/// The nearest pair of triangles found so far, and what may still beat it.
struct Nearest {
    limit: f64,
    slack: f64,
    best: Option<(TriangleDistance, u32, u32)>,
}

impl Nearest {
    /// Whether boxes `bound` apart may hold a pair at least as near as the best so far (or
    /// the limit), with the rounding slack.
    fn may_hold(&self, bound: f64) -> bool {
        let cutoff = self.best.map_or(self.limit, |(gap, ..)| gap.distance);
        bound <= cutoff + self.slack
    }

    /// Every pair of triangles of a pair of leaves whose boxes may hold a nearer pair;
    /// `Some(())` once a pair that meets is found (nothing can be nearer).
    fn leaves(&mut self, a: &Side, b: &Side, task: &Task) -> Option<()> {
        // Each of b's triangles carried once per pair of leaves, not once per pair of
        // triangles.
        let leaf_b: SmallVec<[(u32, [DVec3; 3], Bounds); 16]> = b
            .triangles(task.b.0)
            .map(|tb| {
                let corners = b.corners(tb);
                (tb, corners, Bounds::around(&corners))
            })
            .collect();
        for ta in a.triangles(task.a.0) {
            let corners_a = a.corners(ta);
            let box_a = Bounds::around(&corners_a);
            if !self.may_hold(box_a.distance(&task.b.1)) {
                continue;
            }
            let centroid_a = (corners_a[0] + corners_a[1] + corners_a[2]) / 3.0;
            for (tb, corners_b, box_b) in &leaf_b {
                if !self.may_hold(box_a.distance(box_b)) {
                    continue;
                }
                // A second bound, along the line between the centroids, which holds apart
                // most of the pairs that boxes keep (the bunny against a turned copy 1.5
                // sizes away, 50 random poses: 103 ms before, 59 ms after).
                let centroid_b = (corners_b[0] + corners_b[1] + corners_b[2]) / 3.0;
                let towards = centroid_b - centroid_a;
                if !self.may_hold(projected_gap(&corners_a, corners_b, towards)) {
                    continue;
                }
                let gap = triangles_distance(&corners_a, corners_b);
                let better = match self.best {
                    None => gap.distance <= self.limit,
                    Some((best, ..)) => gap.distance < best.distance,
                };
                if better {
                    self.best = Some((gap, ta, *tb));
                    if gap.distance == 0.0 {
                        return Some(());
                    }
                }
            }
        }
        None
    }
}

/// How far apart the two triangles' projections onto the line along `towards` lie (0 when
/// they overlap, or `towards` is zero): a lower bound on the distance between the
/// triangles, up to the rounding of a few dot products (far below [`BOUND_SLACK`]).
fn projected_gap(a: &[DVec3; 3], b: &[DVec3; 3], towards: DVec3) -> f64 {
    let length = towards.length();
    if !(length > 0.0 && length.is_finite()) {
        return 0.0;
    }
    let unit = towards / length;
    let far_a = a
        .iter()
        .map(|p| p.dot(unit))
        .fold(f64::NEG_INFINITY, f64::max);
    let near_b = b.iter().map(|p| p.dot(unit)).fold(f64::INFINITY, f64::min);
    (near_b - far_a).max(0.0)
}

/// An entry of a best-first queue: a lower bound on the distance of what `task` holds;
/// the queue pops the smallest bound first.
pub(super) struct Queued<T> {
    pub(super) bound: f64,
    pub(super) task: T,
}

impl<T> PartialEq for Queued<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T> Eq for Queued<T> {}

impl<T> PartialOrd for Queued<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Queued<T> {
    /// Reversed, so that the max-heap pops the nearest.
    fn cmp(&self, other: &Self) -> Ordering {
        other.bound.total_cmp(&self.bound)
    }
}
