//! The Hausdorff distance between two meshes' surfaces, each way: how far the farthest point
//! of one surface lies from the other, bounded from below by points whose distance is
//! computed and from above by regions whose distance is bounded, until the bounds meet
//! within the caller's relative error.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::{Affine3A, DVec3, Vec3};
use meshcast_primitives::closest_point_on_triangle;
use rayon::prelude::*;

use super::distance::{Queued, BOUND_SLACK};
use super::side::{Bounds, Item, Lanes, Side};
use crate::mesh::Mesh;

/// Regions refined at once on rayon's threads: a constant, so that which regions are
/// refined, and so the answer, does not depend on the number of threads.
const BATCH: usize = 64;

/// How many times a piece of a triangle is split in four, at most: `2^-24` of the
/// triangle's size, where `f32` coordinates no longer tell points apart. A piece that
/// would go deeper is left, its bound counted in [`DirectedHausdorff::bound`].
const MAX_DEPTH: u32 = 24;

/// The relative error asked for is raised to at least this, half a unit in the last place
/// of an `f32`: the answer is an `f32`, and asking for less would refine without end where
/// the distance is the same over a whole region (two parallel faces).
const MIN_RELATIVE_ERROR: f64 = 1.0 / (1u64 << 24) as f64;

/// How far the farthest point of one surface lies from another: one direction of
/// [`HausdorffDistance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectedHausdorff {
    /// The distance from [`from_point`](Self::from_point) to the other surface, its nearest
    /// point there [`to_point`](Self::to_point): a lower bound on the directed Hausdorff
    /// distance, which lies within `distance * (1 + relative_error)` (the relative error
    /// asked for).
    pub distance: f32,
    /// A proven upper bound on the directed Hausdorff distance, at least `distance` (and
    /// within the relative error of it unless a region needed more than `2^24` subdivisions).
    pub bound: f32,
    /// The point of the surface measured from that lies farthest from the other found.
    pub from_point: Vec3,
    /// The triangle holding `from_point`.
    pub from_triangle: u32,
    /// The point of the other surface nearest to `from_point`.
    pub to_point: Vec3,
    /// The triangle holding `to_point`.
    pub to_triangle: u32,
}

/// The Hausdorff distance between two surfaces, both directions: [`Mesh::hausdorff_distance`]'s
/// answer, every point in the first mesh's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HausdorffDistance {
    /// From this mesh's surface to the other's: how far this mesh's farthest point lies.
    pub self_to_other: DirectedHausdorff,
    /// From the other mesh's surface to this one's.
    pub other_to_self: DirectedHausdorff,
}

impl HausdorffDistance {
    /// The (symmetric) Hausdorff distance: the larger of the two directed ones.
    ///
    /// # Examples
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::Mesh;
    ///
    /// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let lifted = Affine3A::from_translation(Vec3::Z * 0.5);
    /// let h = tri.hausdorff_distance(&tri, &lifted, 1e-3).ok_or("empty")?;
    /// assert_eq!(h.distance(), 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn distance(&self) -> f32 {
        self.self_to_other.distance.max(self.other_to_self.distance)
    }
}

impl Mesh {
    /// The Hausdorff distance between this mesh's surface and that of `other`, placed by
    /// `other_to_self` (from `other`'s space into this mesh's): each directed distance (the
    /// largest distance from a point of one surface to the other surface) with a point that
    /// realises it within `relative_error`, and where its nearest point on the other surface
    /// lies. `None` when either mesh has no triangle, the transform is not finite, or
    /// `relative_error` is negative or NaN.
    ///
    /// Exact up to the error asked for, not sampled: each direction keeps regions of the
    /// surface measured from (subtrees of its tree, then triangles split in four) with an
    /// upper bound on the distance of their points to the other surface, and refines the
    /// region of largest bound until no bound exceeds the farthest distance found by more
    /// than `relative_error` of it. A subtree is bounded by the distance from its box's centre
    /// plus half its diagonal (the distance to a surface changes no faster than the point
    /// moves); a piece of a triangle by its centre's distance plus its farthest corner, and by
    /// the triangles nearest to its corners and centre: the distance to one
    /// triangle is convex, so over a piece it is largest at a corner (the bounds of Tang,
    /// Lee and Kim, *Interactive Hausdorff distance computation for general polygonal
    /// models*, 2009). Distances are computed in `f64` from the corners as
    /// [`Mesh::mesh_distance`] carries them, nearest points by
    /// [`meshcast_primitives::closest_point_on_triangle`]. `relative_error` is raised to at
    /// least `2^-24`; the `f32` answers are the `f64` ones rounded (the bound rounded up).
    /// Regions are refined 64 at a time on rayon's threads; the answer does not depend on
    /// their number.
    ///
    /// # Examples
    /// ```
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::Mesh;
    ///
    /// let square = Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 2.0, 0.0], [0.0, 2.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?;
    /// let small = Affine3A::from_scale(Vec3::new(0.5, 0.5, 1.0));
    /// let h = square.hausdorff_distance(&square, &small, 1e-4).ok_or("empty")?;
    /// // The far corner (2, 2) lies sqrt(2) from the shrunk square; all of it lies on this one.
    /// assert!((h.self_to_other.distance - 2f32.sqrt()).abs() < 1e-6);
    /// assert_eq!(h.self_to_other.from_point, Vec3::new(2.0, 2.0, 0.0));
    /// assert_eq!(h.other_to_self.distance, 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn hausdorff_distance(
        &self,
        other: &Mesh,
        other_to_self: &Affine3A,
        relative_error: f32,
    ) -> Option<HausdorffDistance> {
        let usable = self.triangle_count() > 0 && other.triangle_count() > 0;
        if !usable || !other_to_self.is_finite() || relative_error.is_nan() || relative_error < 0.0
        {
            return None;
        }
        let (a, b) = (
            Side::new(self, None),
            Side::new(other, Some(&other_to_self.as_daffine3())),
        );
        let error = f64::from(relative_error).max(MIN_RELATIVE_ERROR);
        let slack = a.extent.max(b.extent) * BOUND_SLACK;
        if !slack.is_finite() {
            return None;
        }
        Some(HausdorffDistance {
            self_to_other: Directed::new(&a, &b, error, slack).farthest()?,
            other_to_self: Directed::new(&b, &a, error, slack).farthest()?,
        })
    }
}

/// A point of the other surface nearest to a point, and its distance.
#[derive(Clone, Copy, Debug)]
struct Nearest {
    distance: f64,
    point: DVec3,
    triangle: u32,
}

/// A point of the surface measured from, with its distance to the other.
#[derive(Clone, Copy, Debug)]
struct Witness {
    point: DVec3,
    triangle: u32,
    nearest: Nearest,
}

/// A part of the surface measured from, whose points all lie within a bound of the other.
enum Region {
    /// An item of its tree, with its box.
    Subtree(Item, Bounds),
    /// A piece of a triangle: its corners, each with its nearest point on the other surface,
    /// and how many times it was split.
    Piece {
        triangle: u32,
        corners: [DVec3; 3],
        nearest: [Nearest; 3],
        depth: u32,
    },
}

/// What refining a region gives: its parts with their bounds, and the farthest point of the
/// surface measured.
struct Refined {
    parts: Vec<(f64, Region)>,
    farthest: Option<Witness>,
    /// The largest bound of the parts left unsplit at [`MAX_DEPTH`].
    left: f64,
}

/// One direction: from one side's surface to the other's.
struct Directed<'s, 'a> {
    from: &'s Side<'a>,
    to: &'s Side<'a>,
    error: f64,
    slack: f64,
}

impl<'s, 'a> Directed<'s, 'a> {
    fn new(from: &'s Side<'a>, to: &'s Side<'a>, error: f64, slack: f64) -> Self {
        Self {
            from,
            to,
            error,
            slack,
        }
    }

    /// Refines the regions of largest bound, a batch at a time, until none may hold a point
    /// farther than the farthest found (within the error); `None` for an empty side.
    fn farthest(&self) -> Option<DirectedHausdorff> {
        // `Queued` pops the smallest bound; reversed, the largest.
        let mut regions = BinaryHeap::new();
        for &(item, bounds) in self.from.starts() {
            let bound = self.subtree_bound(&bounds);
            regions.push(Reverse(Queued {
                bound,
                task: Region::Subtree(item, bounds),
            }));
        }
        let mut farthest: Option<Witness> = None;
        let mut left = f64::NEG_INFINITY;
        let cutoff = |farthest: &Option<Witness>| {
            farthest.map_or(f64::NEG_INFINITY, |w| {
                w.nearest.distance * (1.0 + self.error) + self.slack
            })
        };
        loop {
            let cut = cutoff(&farthest);
            let mut batch = Vec::with_capacity(BATCH);
            while batch.len() < BATCH {
                match regions.peek() {
                    Some(Reverse(top)) if top.bound > cut => {
                        let Some(Reverse(queued)) = regions.pop() else {
                            break;
                        };
                        batch.push(queued.task);
                    }
                    _ => break,
                }
            }
            if batch.is_empty() {
                break;
            }
            let refined: Vec<Refined> = batch.into_par_iter().map(|r| self.refine(r)).collect();
            for part in &refined {
                if let Some(w) = part.farthest {
                    if farthest.is_none_or(|f| w.nearest.distance > f.nearest.distance) {
                        farthest = Some(w);
                    }
                }
                left = left.max(part.left);
            }
            let cut = cutoff(&farthest);
            for part in refined {
                for (bound, region) in part.parts {
                    if bound > cut {
                        regions.push(Reverse(Queued {
                            bound,
                            task: region,
                        }));
                    }
                }
            }
        }
        let found = farthest?;
        let open = regions.peek().map_or(f64::NEG_INFINITY, |r| r.0.bound);
        let bound = found.nearest.distance.max(open).max(left);
        Some(DirectedHausdorff {
            distance: found.nearest.distance as f32,
            bound: round_up(bound),
            from_point: found.point.as_vec3(),
            from_triangle: found.triangle,
            to_point: found.nearest.point.as_vec3(),
            to_triangle: found.nearest.triangle,
        })
    }

    /// The bound of a subtree's box: the distance from its centre, plus half its diagonal.
    fn subtree_bound(&self, bounds: &Bounds) -> f64 {
        let (centre, radius) = bounds.ball();
        self.nearest(centre, &[]).distance + radius
    }

    fn refine(&self, region: Region) -> Refined {
        let mut refined = Refined {
            parts: Vec::new(),
            farthest: None,
            left: f64::NEG_INFINITY,
        };
        match region {
            Region::Subtree(item, _) if item.is_leaf() => {
                for triangle in self.from.triangles(item) {
                    let corners = self.from.corners(triangle);
                    self.offer_piece(&mut refined, triangle, corners, None, 0);
                }
            }
            Region::Subtree(item, bounds) => {
                let mut lanes = Lanes::new();
                self.from.open(item, bounds, &mut lanes);
                for (item, bounds) in lanes {
                    let bound = self.subtree_bound(&bounds);
                    refined.parts.push((bound, Region::Subtree(item, bounds)));
                }
            }
            Region::Piece {
                triangle,
                corners: [p, q, r],
                nearest: [np, nq, nr],
                depth,
            } => {
                let (pq, qr, rp) = ((p + q) * 0.5, (q + r) * 0.5, (r + p) * 0.5);
                let hints = [np.triangle, nq.triangle, nr.triangle];
                let [npq, nqr, nrp] = [pq, qr, rp].map(|m| self.nearest(m, &hints));
                for (corners, nearest) in [
                    ([p, pq, rp], [np, npq, nrp]),
                    ([pq, q, qr], [npq, nq, nqr]),
                    ([rp, qr, r], [nrp, nqr, nr]),
                    ([qr, rp, pq], [nqr, nrp, npq]),
                ] {
                    self.offer_piece(&mut refined, triangle, corners, Some(nearest), depth + 1);
                }
            }
        }
        refined
    }

    /// Adds a piece of `triangle` to `refined`, its corners and centre offered as
    /// witnesses; the corners' nearest points are found unless given.
    fn offer_piece(
        &self,
        refined: &mut Refined,
        triangle: u32,
        corners: [DVec3; 3],
        nearest: Option<[Nearest; 3]>,
        depth: u32,
    ) {
        let nearest = nearest.unwrap_or_else(|| {
            let first = self.nearest(corners[0], &[]);
            let hint = [first.triangle];
            [
                first,
                self.nearest(corners[1], &hint),
                self.nearest(corners[2], &hint),
            ]
        });
        let centre = (corners[0] + corners[1] + corners[2]) / 3.0;
        let hints = nearest.map(|n| n.triangle);
        let near_centre = self.nearest(centre, &hints);
        let points = corners
            .iter()
            .zip(&nearest)
            .chain([(&centre, &near_centre)]);
        for (&point, &nearest) in points {
            if refined
                .farthest
                .is_none_or(|f| nearest.distance > f.nearest.distance)
            {
                refined.farthest = Some(Witness {
                    point,
                    triangle,
                    nearest,
                });
            }
        }
        let bound = self.piece_bound(&corners, &nearest, centre, near_centre);
        if depth >= MAX_DEPTH {
            refined.left = refined.left.max(bound);
            return;
        }
        refined.parts.push((
            bound,
            Region::Piece {
                triangle,
                corners,
                nearest,
                depth,
            },
        ));
    }

    /// A bound on the distance of every point of the piece to the other surface: the least
    /// of the centre's distance plus its distance to the farthest corner, and of the largest
    /// distance of a corner to one triangle nearest to a corner or the centre. The centre's
    /// triangle settles a piece lying on the other surface, whose corners may each be
    /// nearest (at distance 0) to a neighbour.
    fn piece_bound(
        &self,
        corners: &[DVec3; 3],
        nearest: &[Nearest; 3],
        centre: DVec3,
        near_centre: Nearest,
    ) -> f64 {
        let reach = corners
            .iter()
            .map(|c| c.distance(centre))
            .fold(0.0, f64::max);
        let lipschitz = near_centre.distance + reach;
        let convex = nearest
            .iter()
            .chain([&near_centre])
            .map(|n| {
                let triangle = self.to.corners(n.triangle);
                corners
                    .iter()
                    .map(|&c| c.distance(closest_point_on_triangle(c, &triangle)))
                    .fold(0.0, f64::max)
            })
            .fold(f64::INFINITY, f64::min);
        lipschitz.min(convex)
    }

    /// The point of the other surface nearest to `point`: a best-first walk down its tree,
    /// nearest box first, keeping boxes within the rounding slack of the nearest found,
    /// which starts as the nearest of the `hints` (triangles nearest to points close by),
    /// so that the walk skips at once what lies farther.
    fn nearest(&self, point: DVec3, hints: &[u32]) -> Nearest {
        let mut best = Nearest {
            distance: f64::INFINITY,
            point: DVec3::NAN,
            triangle: 0,
        };
        for &triangle in hints {
            self.offer_triangle(point, triangle, &mut best);
        }
        // One allocation, large enough for most walks (a few dozen boxes queued).
        let mut queue = BinaryHeap::with_capacity(64);
        for &(item, bounds) in self.to.starts() {
            queue.push(Queued {
                bound: bounds.distance_to(point),
                task: (item, bounds),
            });
        }
        let mut lanes = Lanes::new();
        while let Some(Queued {
            bound,
            task: (item, bounds),
        }) = queue.pop()
        {
            if bound > best.distance + self.slack {
                break;
            }
            if !item.is_leaf() {
                self.to.open(item, bounds, &mut lanes);
                for &(item, bounds) in &lanes {
                    let bound = bounds.distance_to(point);
                    if bound <= best.distance + self.slack {
                        queue.push(Queued {
                            bound,
                            task: (item, bounds),
                        });
                    }
                }
                continue;
            }
            for triangle in self.to.triangles(item) {
                self.offer_triangle(point, triangle, &mut best);
            }
        }
        best
    }

    /// Keeps `triangle` of the other surface in `best` if it lies nearer to `point`.
    fn offer_triangle(&self, point: DVec3, triangle: u32, best: &mut Nearest) {
        let corners = self.to.corners(triangle);
        if Bounds::around(&corners).distance_to(point) > best.distance + self.slack {
            return;
        }
        let on = closest_point_on_triangle(point, &corners);
        let distance = point.distance(on);
        if distance < best.distance {
            *best = Nearest {
                distance,
                point: on,
                triangle,
            };
        }
    }
}

/// The smallest `f32` at least `x`.
fn round_up(x: f64) -> f32 {
    let rounded = x as f32;
    if f64::from(rounded) < x {
        rounded.next_up()
    } else {
        rounded
    }
}
