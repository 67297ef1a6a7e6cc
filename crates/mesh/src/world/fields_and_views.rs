//! [`Mesh`]'s fields and views asked in `f64` world coordinates: the eyes and the grid's box
//! carried into the mesh's frame ([`Mesh::origin`]) in `f64` and rounded once, then asked as
//! the mesh's own queries ask them. Their answers are flags, distances and winding numbers,
//! which do not depend on where the frame lies.
//!
//! The views of a viewport ([`Mesh::visible_vertices_in_view`], lassos) take a viewport in
//! the mesh's frame: its view matrix made relative to [`Mesh::origin`], as a renderer of far
//! geometry makes its camera relative to its own origin.

use glam::DVec3;
use meshcast_primitives::Aabb;

use crate::{Mesh, Result};

impl Mesh {
    /// [`Mesh::visible_vertices`] seen from eyes in `f64` world coordinates.
    ///
    /// # Errors
    /// As [`Mesh::visible_vertices`]: an eye with a NaN or infinite coordinate.
    ///
    /// # Examples
    /// ```
    /// use glam::DVec3;
    /// use meshcast_mesh::Mesh;
    ///
    /// // A floor 5000 km north, and a small square hovering over its corner (vertex 0).
    /// let (x, y) = (500_123.37, 5_000_456.71);
    /// let positions = [
    ///     [x, y, 0.0], [x + 4.0, y, 0.0], [x + 4.0, y + 4.0, 0.0], [x, y + 4.0, 0.0],
    ///     [x - 0.5, y - 0.5, 1.0], [x + 0.5, y - 0.5, 1.0], [x + 0.5, y + 0.5, 1.0], [x - 0.5, y + 0.5, 1.0],
    /// ];
    /// let mesh = Mesh::from_f64_triangles(&positions, &[[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])?;
    /// let seen = mesh.visible_vertices_f64(&[DVec3::new(x, y, 5.0)])?;
    /// assert_eq!(seen, [false, true, true, true, true, true, true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn visible_vertices_f64(&self, eyes: &[DVec3]) -> Result<Vec<bool>> {
        self.visible_vertices(&self.carry_points(eyes))
    }

    /// [`Mesh::visible_triangles`] seen from eyes in `f64` world coordinates.
    ///
    /// # Errors
    /// As [`Mesh::visible_triangles`].
    pub fn visible_triangles_f64(&self, eyes: &[DVec3], density: f32) -> Result<Vec<bool>> {
        self.visible_triangles(&self.carry_points(eyes), density)
    }

    /// [`Mesh::signed_distance_grid`] over the box from `min` to `max` in `f64` world
    /// coordinates; the grid's points are the world points of [`Mesh::frame_box`]'s grid.
    pub fn signed_distance_grid_f64(
        &self,
        [min, max]: [DVec3; 2],
        shape: [usize; 3],
        max_distance: Option<f32>,
    ) -> Vec<f32> {
        self.signed_distance_grid(self.frame_box(min, max), shape, max_distance)
    }

    /// [`Mesh::occupancy_grid`] over the box from `min` to `max` in `f64` world coordinates.
    pub fn occupancy_grid_f64(&self, [min, max]: [DVec3; 2], shape: [usize; 3]) -> Vec<bool> {
        self.occupancy_grid(self.frame_box(min, max), shape)
    }

    /// [`Mesh::winding_number_grid`] over the box from `min` to `max` in `f64` world
    /// coordinates.
    pub fn winding_number_grid_f64(&self, [min, max]: [DVec3; 2], shape: [usize; 3]) -> Vec<f32> {
        self.winding_number_grid(self.frame_box(min, max), shape)
    }

    /// The box from `min` to `max` (`f64` world coordinates) in the mesh's frame, each corner
    /// rounded once ([`Mesh::carry_point`]): where the `*_grid_f64` fields lay their grids.
    pub fn frame_box(&self, min: DVec3, max: DVec3) -> Aabb {
        Aabb::new(self.carry_point(min), self.carry_point(max))
    }

    fn carry_points(&self, points: &[DVec3]) -> Vec<glam::Vec3> {
        points
            .iter()
            .map(|&point| self.carry_point(point))
            .collect()
    }
}
