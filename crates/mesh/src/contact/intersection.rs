//! The exact contact queries: whether two meshes' surfaces meet, the pairs of triangles
//! that do, and the pairs of one mesh's triangles that cut each other.

use std::ops::ControlFlow;

use glam::Affine3A;
use rayon::prelude::*;

use super::side::Side;
use super::walk::{DualWalk, Pairing};
use crate::mesh::Mesh;

impl Mesh {
    /// Whether the surface of `other`, placed by `other_to_self` (from `other`'s space into
    /// this mesh's), shares a point with this mesh's surface: some triangle of each, closed
    /// (edges and corners included), meet. Surfaces only: a mesh wholly inside a closed
    /// mesh, touching nothing, does not intersect it.
    ///
    /// `other`'s vertices are carried by `other_to_self` in `f64` (a `DAffine3` made from
    /// the `Affine3A`; each vertex always to the same value, and only those of the leaves
    /// the walk reaches); from there every decision is exact: the carried corners
    /// are tested with [`meshcast_primitives::triangles_intersect`] (Guigue and Devillers
    /// 2003 on Shewchuk's exact predicates), and the trees only prune with boxes that hold
    /// those same corners (this mesh's stored boxes; for `other`, its stored boxes carried
    /// and padded by far more than the rounding of the carried corners), so no pair that
    /// meets is skipped. The walk costs what it visits, never a pass over `other`. A transform of
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
        meet(
            &Side::new(self, None),
            &Side::new(other, Some(&other_to_self.as_daffine3())),
        )
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
        crossing_pairs(
            &Side::new(self, None),
            &Side::new(other, Some(&other_to_self.as_daffine3())),
        )
    }

    /// Every pair `(i, j)`, `i < j`, of this mesh's triangles that intersect other than along
    /// the edge or at the corner they share: sorted, each pair once. The walk runs on rayon's
    /// threads; the answer does not depend on their number.
    ///
    /// Corners are shared by position (equal coordinates), not by index, so a mesh split
    /// at its seams, or read from STL, answers as its welded form. Each pair is decided
    /// exactly on the `f32` coordinates by
    /// [`meshcast_primitives::triangles_intersect_beyond_shared`]:
    ///
    /// - **no shared corner**: reported when the closed triangles share any point (touching
    ///   counts), as [`Mesh::intersecting_pairs`] decides it;
    /// - **one shared corner**: reported when they meet anywhere but there (one pierces the
    ///   other, or lies on it); a fan around a vertex, or two cones touching at a pinched
    ///   vertex, is not;
    /// - **a shared edge** (two corners): reported when they meet off that edge, which for
    ///   triangles of two planes never happens (their planes meet along it); so this is a
    ///   fold: both in one plane with the third corners on the same side of the edge.
    ///   Neighbours folded flat to opposite sides, or at any angle, are not;
    /// - **three shared corners** (a face repeated, either winding): reported, unless it has
    ///   no area.
    ///
    /// Degenerate triangles (zero area, exactly) are the segments or points they cover and
    /// follow the same rule; the tree leaves them out, so each is tested against the tree
    /// and the other left-out ones. A closed, manifold surface that does not cut itself
    /// answers nothing.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Mesh;
    ///
    /// // A square of two triangles (apart from the diagonal they share), and a third,
    /// // folded back over the first across its outer edge.
    /// let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.2, 0.0]];
    /// let square = Mesh::from_triangles(&positions, &[[0, 1, 2], [0, 2, 3]])?;
    /// assert!(square.self_intersections().is_empty());
    /// let folded = Mesh::from_triangles(&positions, &[[0, 1, 2], [0, 2, 3], [1, 0, 4]])?;
    /// // The fold overlaps the first triangle, and shares only the corner 0 with the second,
    /// // which it does not reach.
    /// assert_eq!(folded.self_intersections(), [(0, 2)]);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn self_intersections(&self) -> Vec<(u32, u32)> {
        let side = Side::new(self, None);
        pairs(&DualWalk {
            a: &side,
            b: &side,
            pairing: Pairing::Within,
            first_found: false,
        })
    }
}

/// Whether some triangle of `a` and some of `b` meet; the walk stops at the first pair.
pub(super) fn meet(a: &Side, b: &Side) -> bool {
    let walk = DualWalk {
        a,
        b,
        pairing: Pairing::Across,
        first_found: true,
    };
    walk.walk(walk.starts(), &mut |_, _| ControlFlow::Break(()))
        .is_break()
}

/// Every pair `(triangle of a, triangle of b)` that meets, sorted.
pub(super) fn crossing_pairs(a: &Side, b: &Side) -> Vec<(u32, u32)> {
    pairs(&DualWalk {
        a,
        b,
        pairing: Pairing::Across,
        first_found: false,
    })
}

/// Every pair the walk finds, split into tasks for rayon's threads, sorted, each once; a
/// [`Pairing::Within`] pair as `(smaller, larger)`.
fn pairs(walk: &DualWalk) -> Vec<(u32, u32)> {
    let tasks = walk.split(walk.starts());
    let within = walk.pairing == Pairing::Within;
    let mut pairs: Vec<(u32, u32)> = tasks
        .into_par_iter()
        .map(|task| {
            let mut pairs = Vec::new();
            let _ = walk.walk(vec![task], &mut |i, j| {
                pairs.push(if within { (i.min(j), i.max(j)) } else { (i, j) });
                ControlFlow::Continue(())
            });
            pairs
        })
        .flatten()
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}
