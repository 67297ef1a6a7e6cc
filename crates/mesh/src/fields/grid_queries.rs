//! Dense grids of point queries over a box: [`Mesh::signed_distance_grid`],
//! [`Mesh::occupancy_grid`] and [`Mesh::winding_number_grid`] answer at each point of a
//! [`Grid`], a row of `z` at a time, in parallel, settling blocks of points at once
//! (`blocks.rs`).

use glam::Vec3;

use super::blocks::{Blocks, Known};
use super::grid::Grid;
use crate::mesh::Mesh;
use crate::points::PointQueries;
use crate::queries::{QueryBox, QueryOptions};

/// How much farther than the band the bounded closest-point search looks, so that every
/// distance whose `f32` square root is within the band is found despite the square's
/// rounding (a relative 2.4e-7 at most); the distances found beyond it are clamped after.
const BAND_SEARCH_MARGIN: f32 = 1.000_01;

/// The smallest radius the bounded search uses, so that a band too small to square in
/// `f32` still finds the distances within it.
const BAND_SEARCH_FLOOR: f32 = 1e-18;

impl Mesh {
    /// The signed distance at every point of the [`Grid`] of `shape` points over `bounds`,
    /// in the grid's order (C order, `z` fastest: `(nx, ny, nz)` for numpy), optionally
    /// clamped to a narrow band.
    ///
    /// Each value is the one [`PointQueries::signed_distance`] gives at
    /// [`Grid::point`], bit for bit, with `None` written as `f32::INFINITY` (a mesh with no
    /// surface) or NaN (a point that is not finite). With `max_distance = Some(m)`, a value
    /// whose magnitude is above `m` is `±m` instead, negative where
    /// [`PointQueries::contains`] says inside, and its distance is not computed: the
    /// closest-point search is bounded by `m`. Values within the band are the per-point
    /// ones, bit for bit. A NaN or infinite `m` is no band; a negative one is 0.
    ///
    /// The points are never stored: columns of 8 × 8 rows of `z` run in parallel, each
    /// settling its blocks of points and writing their values in place, so memory is the
    /// output. A block (from 8 × 8 × 8 points, halved along each axis until settled) whose
    /// box is farther than `m` from every triangle's box is clamped as a whole, and its
    /// side, where proven for the whole box, is asked of no point: on a closed mesh with
    /// the watertight leaf test ([`crate::LeafTest::Watertight`]), where `contains` counts
    /// crossings exactly, a box apart from every triangle's box lies on one side, that of
    /// its first point; on a mesh that is not closed, where `contains` is the winding number
    /// against ½, bounds of every term of its sum over the box prove that every point's
    /// computed winding number lies on one side of ½ (within rounding bounded term by
    /// term), tried for boxes whose half diagonal is at most half their distance to the
    /// surface. Points no block settles are asked one by one, so the values are the
    /// per-point ones either way. Without a band, distances are asked at every point and
    /// sides by blocks the same way.
    ///
    /// # Panics
    /// If the number of points overflows `usize`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::{Grid, Mesh, PointQueries};
    /// use meshcast_primitives::Aabb;
    ///
    /// // A cube from -1 to 1, its faces wound outwards.
    /// let corners: Vec<[f32; 3]> = (0..8)
    ///     .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { 1.0 } else { -1.0 }))
    ///     .collect();
    /// let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    /// let triangles: Vec<[u32; 3]> =
    ///     faces.iter().flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]]).collect();
    /// let cube = Mesh::from_triangles(&corners, &triangles)?;
    ///
    /// let bounds = Aabb::new(Vec3::splat(-3.0), Vec3::splat(3.0));
    /// let grid = Grid::new(bounds, [7, 7, 7]);
    /// let distances = cube.signed_distance_grid(bounds, [7, 7, 7], None);
    /// assert_eq!(distances[grid.index([3, 3, 3])], -1.0); // the centre
    /// assert_eq!(distances[grid.index([6, 3, 3])], 2.0); // x = 3
    /// let point = grid.point([5, 1, 4]);
    /// assert_eq!(Some(distances[grid.index([5, 1, 4])]), cube.signed_distance(point));
    ///
    /// // With a band of 1.5, the farthest points read 1.5.
    /// let banded = cube.signed_distance_grid(bounds, [7, 7, 7], Some(1.5));
    /// assert_eq!(banded[grid.index([6, 3, 3])], 1.5);
    /// assert_eq!(banded[grid.index([3, 3, 3])], -1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn signed_distance_grid(
        &self,
        bounds: impl QueryBox,
        shape: [usize; 3],
        max_distance: Option<f32>,
    ) -> Vec<f32> {
        let grid = Grid::new(bounds.in_frame(self.origin()), shape);
        let band = max_distance.filter(|m| m.is_finite()).map(|m| m.max(0.0));
        let blocks = Blocks::new(self, &grid, band);
        let Some(band) = band else {
            if !blocks.proves_sides() {
                return grid.fill(|row, i, j| {
                    for (k, value) in row.iter_mut().enumerate() {
                        let point = grid.point([i, j, k]);
                        *value = self.signed_distance(point).unwrap_or(no_distance(point));
                    }
                });
            }
            // Distances everywhere, sides by blocks where they prove them.
            return blocks.fill(
                |_| f32::NAN,
                |point, known| match self.closest_point(point, &QueryOptions::new()) {
                    Some(closest) => self.signed(point, closest.distance, known),
                    None => no_distance(point),
                },
            );
        };
        let search = QueryOptions::new()
            .with_max_distance((band * BAND_SEARCH_MARGIN).max(BAND_SEARCH_FLOOR));
        blocks.fill(
            |inside| if inside { -band } else { band },
            |point, known| {
                if !point.is_finite() {
                    return f32::NAN;
                }
                let distance = (!known.clamped)
                    .then(|| self.closest_point(point, &search))
                    .flatten()
                    .map(|closest| closest.distance)
                    .filter(|&distance| distance <= band);
                self.signed(point, distance.unwrap_or(band), known)
            },
        )
    }

    /// `distance`, negative if `point` is inside: as `known` says, else as
    /// [`PointQueries::contains`] answers.
    fn signed(&self, point: Vec3, distance: f32, known: Known) -> f32 {
        if known.inside.unwrap_or_else(|| self.contains(point)) {
            -distance
        } else {
            distance
        }
    }

    /// Whether each point of the [`Grid`] of `shape` points over `bounds` is inside, in the
    /// grid's order (C order, `z` fastest): [`PointQueries::contains`] at each
    /// [`Grid::point`], computed by blocks in parallel without storing the points: a block
    /// whose side is proven as a whole (see [`Mesh::signed_distance_grid`]) asks none of
    /// its points.
    ///
    /// # Panics
    /// If the number of points overflows `usize`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Mesh;
    /// use meshcast_primitives::Aabb;
    ///
    /// // A cube from -1 to 1, its faces wound outwards.
    /// let corners: Vec<[f32; 3]> = (0..8)
    ///     .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { 1.0 } else { -1.0 }))
    ///     .collect();
    /// let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    /// let triangles: Vec<[u32; 3]> =
    ///     faces.iter().flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]]).collect();
    /// let cube = Mesh::from_triangles(&corners, &triangles)?;
    ///
    /// // x = -3, 0, 3 along a line through the centre.
    /// let line = Aabb::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0));
    /// assert_eq!(cube.occupancy_grid(line, [3, 1, 1]), [false, true, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn occupancy_grid(&self, bounds: impl QueryBox, shape: [usize; 3]) -> Vec<bool> {
        let grid = Grid::new(bounds.in_frame(self.origin()), shape);
        let blocks = Blocks::sides_only(self, &grid);
        if !blocks.proves_sides() {
            return grid.fill(|row, i, j| {
                for (k, value) in row.iter_mut().enumerate() {
                    *value = self.contains(grid.point([i, j, k]));
                }
            });
        }
        blocks.fill(
            |inside| inside,
            |point, known| known.inside.unwrap_or_else(|| self.contains(point)),
        )
    }

    /// The winding number at each point of the [`Grid`] of `shape` points over `bounds`,
    /// in the grid's order (C order, `z` fastest): [`PointQueries::winding_number`] at each
    /// [`Grid::point`], bit for bit, computed a row of `z` at a time in parallel without
    /// storing the points.
    ///
    /// # Panics
    /// If the number of points overflows `usize`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Mesh;
    /// use meshcast_primitives::Aabb;
    ///
    /// // A cube from -1 to 1, its faces wound outwards.
    /// let corners: Vec<[f32; 3]> = (0..8)
    ///     .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { 1.0 } else { -1.0 }))
    ///     .collect();
    /// let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    /// let triangles: Vec<[u32; 3]> =
    ///     faces.iter().flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]]).collect();
    /// let cube = Mesh::from_triangles(&corners, &triangles)?;
    ///
    /// let line = Aabb::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0));
    /// let winding = cube.winding_number_grid(line, [3, 1, 1]);
    /// assert!(winding[0].abs() < 1e-6 && (winding[1] - 1.0).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn winding_number_grid(&self, bounds: impl QueryBox, shape: [usize; 3]) -> Vec<f32> {
        let grid = Grid::new(bounds.in_frame(self.origin()), shape);
        grid.fill(|row, i, j| {
            for (k, value) in row.iter_mut().enumerate() {
                *value = self.winding_number(grid.point([i, j, k]));
            }
        })
    }
}

/// The grid's value where [`PointQueries::signed_distance`] has none: infinity for a mesh
/// with no surface, NaN for a point that is not finite.
fn no_distance(point: Vec3) -> f32 {
    if point.is_finite() {
        f32::INFINITY
    } else {
        f32::NAN
    }
}
