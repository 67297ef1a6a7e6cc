//! Lasso selection for editors: the triangles seen at the pixels under a screen polygon,
//! [`Mesh::lasso_triangles`] and [`Scene::lasso_triangles`].

use glam::{Vec2, Vec3};
use meshcast_primitives::{Polygon, Ray, Viewport};

use crate::error::Result;
use crate::mesh::Mesh;
use crate::queries::{Filter, InstanceId, QueryOptions, RayQueries};
use crate::scene::{Scene, SceneTriangle};

impl Mesh {
    /// The triangles seen under a lasso: every triangle that is the closest hit (with the
    /// options' culling, filter and distance limit) of the ray through the centre of a pixel
    /// of `viewport` whose centre lies inside the polygon `lasso` (in pixel coordinates,
    /// [`Viewport`]), in index order, each once.
    ///
    /// The lasso may be concave and wound either way; a pixel centre is inside by
    /// [`Polygon::contains`] (the crossing number, exact in `f64`). Only the pixels within
    /// the lasso's bounding box and the image are looked at, row by row, and their rays traced
    /// as one batch ([`RayQueries::cast_batch_with`]), so the answer equals a loop over those
    /// pixels and every triangle. What is hidden, or smaller than a pixel and between pixel
    /// centres, is not selected; to select through the model, use
    /// [`Mesh::select_triangles`] with [`Viewport::marquee`].
    ///
    /// # Errors
    /// [`crate::Error::Geometry`] when `lasso` is not a polygon: fewer than three points, a
    /// NaN or infinite coordinate, or no area.
    ///
    /// # Examples
    /// ```
    /// use glam::{Mat4, Vec2, Vec3};
    /// use meshcast_mesh::{Mesh, QueryOptions};
    /// use meshcast_primitives::{DepthConvention, Viewport};
    ///
    /// // Two squares side by side, two triangles each, seen from the front.
    /// let positions = [
    ///     [-2.0, -1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [-2.0, 1.0, 0.0],
    ///     [0.0, -1.0, 0.0], [2.0, -1.0, 0.0], [2.0, 1.0, 0.0], [0.0, 1.0, 0.0],
    /// ];
    /// let triangles = [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]];
    /// let mesh = Mesh::from_triangles(&positions, &triangles)?;
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, Vec3::Y);
    /// let projection = Mat4::orthographic_rh(-2.0, 2.0, -2.0, 2.0, 0.1, 10.0);
    /// let viewport = Viewport::new(view, projection, DepthConvention::ZeroToOne, 100, 100)?;
    ///
    /// // A triangle drawn over the left square's lower right half.
    /// let lasso = [Vec2::new(10.0, 72.0), Vec2::new(45.0, 72.0), Vec2::new(45.0, 35.0)];
    /// assert_eq!(mesh.lasso_triangles(&viewport, &lasso, &QueryOptions::new())?, [0]);
    /// // A band across the middle of the image meets all four.
    /// let band = [Vec2::new(2.0, 45.0), Vec2::new(98.0, 45.0), Vec2::new(98.0, 55.0), Vec2::new(2.0, 55.0)];
    /// assert_eq!(mesh.lasso_triangles(&viewport, &band, &QueryOptions::new())?, [0, 1, 2, 3]);
    /// assert!(mesh.lasso_triangles(&viewport, &lasso[..2], &QueryOptions::new()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lasso_triangles<F: Filter<u32> + Sync>(
        &self,
        viewport: &Viewport,
        lasso: &[Vec2],
        options: &QueryOptions<F>,
    ) -> Result<Vec<u32>> {
        let rays = lasso_rays(viewport, lasso)?;
        let mut triangles: Vec<u32> = self
            .cast_batch_with(&rays, options)
            .into_iter()
            .flatten()
            .map(|hit| hit.triangle)
            .collect();
        triangles.sort_unstable();
        triangles.dedup();
        Ok(triangles)
    }
}

impl Scene {
    /// The triangles of the scene seen under a lasso, [`Mesh::lasso_triangles`] for a scene:
    /// the closest hit at each pixel under the polygon (the options' layer mask, culling,
    /// filter and distance limit applied), each instance's triangles once, sorted by instance
    /// and triangle.
    ///
    /// # Errors
    /// [`crate::Error::Geometry`] when `lasso` is not a polygon.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Mat4, Vec2, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, QueryOptions, Scene};
    /// use meshcast_primitives::{DepthConvention, Viewport};
    ///
    /// let square = Arc::new(Mesh::from_triangles(
    ///     &[[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?);
    /// // A square in front, and one behind it that it hides.
    /// let scene = Scene::from_instances([
    ///     Instance::new(square.clone(), Affine3A::IDENTITY)?,
    ///     Instance::new(square, Affine3A::from_translation(Vec3::NEG_Z))?,
    /// ]);
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO, Vec3::Y);
    /// let projection = Mat4::perspective_rh(1.0, 1.0, 0.1, 100.0);
    /// let viewport = Viewport::new(view, projection, DepthConvention::ZeroToOne, 64, 64)?;
    /// let lasso = [Vec2::new(0.0, 0.0), Vec2::new(64.0, 0.0), Vec2::new(64.0, 64.0), Vec2::new(0.0, 64.0)];
    /// let seen = scene.lasso_triangles(&viewport, &lasso, &QueryOptions::new())?;
    /// assert!(seen.iter().all(|t| t.instance.index() == 0) && seen.len() == 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lasso_triangles<F: Filter<(InstanceId, u32)> + Sync>(
        &self,
        viewport: &Viewport,
        lasso: &[Vec2],
        options: &QueryOptions<F>,
    ) -> Result<Vec<SceneTriangle>> {
        let rays = lasso_rays(viewport, lasso)?;
        let mut triangles: Vec<SceneTriangle> = self
            .cast_batch_with(&rays, options)
            .into_iter()
            .flatten()
            .map(|hit| SceneTriangle {
                instance: hit.instance,
                triangle: hit.hit.triangle,
            })
            .collect();
        triangles.sort_unstable();
        triangles.dedup();
        Ok(triangles)
    }
}

/// The rays through the centres of the pixels of `viewport` inside `lasso`, row by row.
fn lasso_rays(viewport: &Viewport, lasso: &[Vec2]) -> Result<Vec<Ray>> {
    let polygon = Polygon::new(lasso.iter().map(|p| p.extend(0.0)).collect::<Vec<Vec3>>())?;
    let bounds = polygon.bounds();
    // The pixels whose centres (i + 0.5) lie within the bounding box, clipped to the image
    // (empty where they do not meet).
    let span = |low: f32, high: f32, size: u32| {
        let first = (f64::from(low) - 0.5).ceil().max(0.0) as u32;
        let last = (f64::from(high) - 0.5).floor().min(f64::from(size) - 1.0);
        first..(last + 1.0).max(0.0) as u32
    };
    let mut rays = Vec::new();
    for row in span(bounds.min.y, bounds.max.y, viewport.height()) {
        for column in span(bounds.min.x, bounds.max.x, viewport.width()) {
            let centre = Vec3::new(column as f32 + 0.5, row as f32 + 0.5, 0.0);
            if polygon.contains(centre) {
                rays.push(viewport.ray_through_pixel(column, row));
            }
        }
    }
    Ok(rays)
}
