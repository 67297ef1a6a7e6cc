//! [`Grid`]: the points of a regular grid over a box, their order, and the filling of a
//! grid's values a row of `z` at a time, in parallel. What a mesh answers at them is in
//! `grid_queries.rs`.

use glam::Vec3;
use meshcast_primitives::Aabb;
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;

/// The points of a regular grid over a box: `shape[0] × shape[1] × shape[2]` points, the
/// corners of the box among them.
///
/// Point `(i, j, k)` has, along each axis, the coordinate `min * (1 - t) + max * t` with
/// `t = i as f32 / (n - 1) as f32` (in `f32`, as written), where `n` is that axis's count:
/// the first point is `bounds.min`, the last `bounds.max`, both exactly; an axis of one
/// point sits at `min`. Values are stored in C order, `k` (the `z` index) fastest:
/// `index = (i * ny + j) * nz + k`, as numpy lays out an array of shape `(nx, ny, nz)`.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::Grid;
/// use meshcast_primitives::Aabb;
///
/// let grid = Grid::new(Aabb::new(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0)), [3, 1, 2]);
/// assert_eq!(grid.len(), 6);
/// assert_eq!(grid.point([1, 0, 1]), Vec3::new(1.0, 0.0, 1.0));
/// assert_eq!(grid.index([1, 0, 1]), 3);
/// assert_eq!(grid.points().nth(3), Some(grid.point([1, 0, 1])));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// The box whose corners are the grid's first and last points.
    pub bounds: Aabb,
    /// The number of points along `x`, `y` and `z`.
    pub shape: [usize; 3],
}

impl Grid {
    /// The grid of `shape` points over `bounds`.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Grid;
    /// use meshcast_primitives::Aabb;
    ///
    /// let grid = Grid::new(Aabb::new(Vec3::ZERO, Vec3::ONE), [2, 2, 2]);
    /// assert_eq!(grid.point([1, 1, 1]), Vec3::ONE);
    /// ```
    pub fn new(bounds: Aabb, shape: [usize; 3]) -> Self {
        Self { bounds, shape }
    }

    /// The number of points, `nx * ny * nz`.
    ///
    /// # Panics
    /// If the product overflows `usize` (no such grid could be stored).
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Grid;
    /// use meshcast_primitives::Aabb;
    ///
    /// assert_eq!(Grid::new(Aabb::EMPTY, [4, 0, 2]).len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        let [nx, ny, nz] = self.shape;
        nx.checked_mul(ny)
            .and_then(|n| n.checked_mul(nz))
            .expect("the grid's number of points overflows usize")
    }

    /// Whether the grid has no point (a count of zero along some axis).
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Grid;
    /// use meshcast_primitives::Aabb;
    ///
    /// assert!(Grid::new(Aabb::EMPTY, [0, 3, 3]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// The point `(i, j, k)`, as the type's docs define it (indices are not checked
    /// against the shape).
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Grid;
    /// use meshcast_primitives::Aabb;
    ///
    /// let grid = Grid::new(Aabb::new(Vec3::splat(-1.0), Vec3::ONE), [5, 1, 3]);
    /// assert_eq!(grid.point([1, 0, 2]), Vec3::new(-0.5, -1.0, 1.0));
    /// ```
    #[inline]
    pub fn point(&self, [i, j, k]: [usize; 3]) -> Vec3 {
        let (min, max) = (self.bounds.min, self.bounds.max);
        Vec3::new(
            coordinate(min.x, max.x, i, self.shape[0]),
            coordinate(min.y, max.y, j, self.shape[1]),
            coordinate(min.z, max.z, k, self.shape[2]),
        )
    }

    /// Where the value at point `(i, j, k)` is stored: `(i * ny + j) * nz + k`.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Grid;
    /// use meshcast_primitives::Aabb;
    ///
    /// assert_eq!(Grid::new(Aabb::EMPTY, [2, 3, 4]).index([1, 2, 3]), 23);
    /// ```
    #[inline]
    pub fn index(&self, [i, j, k]: [usize; 3]) -> usize {
        (i * self.shape[1] + j) * self.shape[2] + k
    }

    /// Every point, in storage order (`k` fastest).
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Grid;
    /// use meshcast_primitives::Aabb;
    ///
    /// let grid = Grid::new(Aabb::new(Vec3::ZERO, Vec3::ONE), [1, 1, 2]);
    /// assert_eq!(grid.points().collect::<Vec<_>>(), [Vec3::ZERO, Vec3::Z]);
    /// ```
    pub fn points(&self) -> impl Iterator<Item = Vec3> + '_ {
        let [nx, ny, nz] = self.shape;
        (0..nx).flat_map(move |i| {
            (0..ny).flat_map(move |j| (0..nz).map(move |k| self.point([i, j, k])))
        })
    }

    /// Fills one value per point, a row of `z` (fixed `i`, `j`) at a time, rows in
    /// parallel: `row(values, i, j)` writes the row's `nz` values.
    pub(super) fn fill<T, R>(&self, row: R) -> Vec<T>
    where
        T: Clone + Default + Send,
        R: Fn(&mut [T], usize, usize) + Sync,
    {
        let mut values = vec![T::default(); self.len()];
        if values.is_empty() {
            return values;
        }
        let [_, ny, nz] = self.shape;
        values
            .par_chunks_mut(nz)
            .with_min_len(BATCH_GRAIN.div_ceil(nz))
            .enumerate()
            .for_each(|(r, values)| row(values, r / ny, r % ny));
        values
    }
}

/// The coordinate of point `i` of `n` from `min` to `max`.
#[inline]
pub(super) fn coordinate(min: f32, max: f32, i: usize, n: usize) -> f32 {
    if n <= 1 {
        return min;
    }
    let t = i as f32 / (n - 1) as f32;
    min * (1.0 - t) + max * t
}
