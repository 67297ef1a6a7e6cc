//! Which vertices eye points, or a viewport's image, see unoccluded:
//! [`Mesh::visible_vertices`] and [`Mesh::visible_vertices_in_view`].

use meshcast_primitives::{Ray, Viewport};
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::error::Result;
use crate::mesh::Mesh;
use crate::queries::QueryPoint;
use crate::views::sight::sight_ray;
use crate::views::triangles::eyes_in_frame;

impl Mesh {
    /// Which vertices at least one of `eyes` sees: `visible[v]` for every vertex `v`, used
    /// by a triangle or not.
    ///
    /// The eye `e` sees the vertex at `p` when the ray from `p` towards `e`,
    /// `Ray::new(p, e - p)` over the range `(0, 1]` (`t = 1` is the eye, up to the rounding
    /// of `e - p`), hits nothing: the segment meets the surface nowhere but at the vertex
    /// itself. The ray starts exactly at the vertex, so every triangle with a corner there
    /// (its own, and those of another vertex at the same position, as along a seam) meets it
    /// at `t = 0` exactly and is left out without a filter; so is any other surface through
    /// the vertex. Whatever the segment meets after the vertex hides it, touching included
    /// (a segment through another part's edge or vertex is blocked, as
    /// [`crate::Contacts::Hit`] says), both sides of every triangle alike. On a mesh with
    /// [`crate::LeafTest::Transform`], whose distances are rounded even at a corner, the
    /// triangles with a corner at the vertex's position are left out by a filter instead:
    /// the same rule, one ray at a time.
    ///
    /// Edge cases: an eye at the vertex's position sees it (there is no segment). An eye on
    /// the surface is behind it: the triangles at the eye meet each segment at its end, so
    /// lift eyes off the surface (along the normal) to see from a surface point. Degenerate
    /// triangles hide nothing.
    ///
    /// Traced eye by eye: one batch of rays towards the eye from the vertices not seen yet,
    /// in the order the tree's leaves reach them, so that neighbours run side by side and
    /// are traced as packets. Each answer is that of its ray alone, so the result equals a
    /// loop over every vertex, eye and triangle with the watertight test, on any number of
    /// threads.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParameter`] for an eye with a NaN or infinite coordinate.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Mesh;
    ///
    /// // A floor, and a small square hovering over its far corner (vertex 0).
    /// let positions = [
    ///     [0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 4.0, 0.0], [0.0, 4.0, 0.0],
    ///     [-0.5, -0.5, 1.0], [0.5, -0.5, 1.0], [0.5, 0.5, 1.0], [-0.5, 0.5, 1.0],
    /// ];
    /// let triangles = [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]];
    /// let mesh = Mesh::from_triangles(&positions, &triangles)?;
    ///
    /// let above = Vec3::new(0.0, 0.0, 5.0);
    /// let seen = mesh.visible_vertices(&[above])?;
    /// assert_eq!(seen, [false, true, true, true, true, true, true, true]);
    /// // From the side, under the square, vertex 0 is seen too.
    /// assert!(mesh.visible_vertices(&[above, Vec3::new(3.0, 0.0, 0.2)])?[0]);
    /// assert!(mesh.visible_vertices(&[Vec3::NAN]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn visible_vertices<P: QueryPoint>(&self, eyes: &[P]) -> Result<Vec<bool>> {
        let eyes = eyes_in_frame(eyes, self.origin())?;
        let positions = self.tri_mesh().positions();
        let mut visible = vec![false; positions.len()];
        let order = self.vertices_by_leaves();
        for &eye in &eyes {
            let unseen: Vec<u32> = order
                .iter()
                .copied()
                .filter(|&v| !visible[v as usize])
                .collect();
            let rays: Vec<Ray> = unseen
                .par_iter()
                .with_min_len(BATCH_GRAIN)
                .map(|&v| {
                    let p = positions[v as usize];
                    sight_ray(p, eye - p, 1.0)
                })
                .collect();
            for (v, hidden) in unseen.iter().zip(self.sight_occluded(&rays)) {
                visible[*v as usize] = !hidden;
            }
        }
        Ok(visible)
    }

    /// Which vertices the image of `viewport` shows unoccluded: `visible[v]` for every
    /// vertex `v`.
    ///
    /// A vertex is shown when it projects into the image ([`Viewport::project`]: in front of
    /// the eye, its pixel coordinates within `[0, width] × [0, height]` and its depth between
    /// the near and far planes' values) and the ray from it towards the point where its line
    /// of sight enters the view (on the near plane: [`Viewport::ray_through`] of its pixel,
    /// at `t_min`) over `(0, 1]` hits nothing: the rule of [`Mesh::visible_vertices`] with
    /// that point as the eye, for perspective and orthographic projections alike, so what the
    /// near plane clips away hides nothing. A vertex on the near plane itself is seen when it
    /// projects into the image.
    ///
    /// # Examples
    /// ```
    /// use glam::{Mat4, Vec3};
    /// use meshcast_mesh::Mesh;
    /// use meshcast_primitives::{DepthConvention, Viewport};
    ///
    /// // Two squares along the view: the near one hides the far one's centre vertex (4).
    /// let positions = [
    ///     [-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 0.0],
    ///     [-0.5, -0.5, 2.0], [0.5, -0.5, 2.0], [0.5, 0.5, 2.0], [-0.5, 0.5, 2.0],
    /// ];
    /// let triangles = [[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4], [5, 6, 7], [5, 7, 8]];
    /// let mesh = Mesh::from_triangles(&positions, &triangles)?;
    ///
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
    /// let projection = Mat4::perspective_rh(0.5, 1.0, 0.1, 100.0);
    /// let viewport = Viewport::new(view, projection, DepthConvention::ZeroToOne, 64, 64)?;
    /// let seen = mesh.visible_vertices_in_view(&viewport);
    /// assert_eq!(seen, [true, true, true, true, false, true, true, true, true]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn visible_vertices_in_view(&self, viewport: &Viewport) -> Vec<bool> {
        let positions = self.tri_mesh().positions();
        let (width, height) = (viewport.width() as f32, viewport.height() as f32);
        let (near, far) = viewport.depth().near_far();
        let depths = near.min(far)..=near.max(far);
        // Each vertex in the view, with the ray towards where its line of sight enters it.
        let in_view: Vec<(u32, Ray)> = positions
            .par_iter()
            .enumerate()
            .with_min_len(BATCH_GRAIN)
            .filter_map(|(v, &p)| {
                let q = viewport.project(p)?;
                let inside = (0.0..=width).contains(&q.x)
                    && (0.0..=height).contains(&q.y)
                    && depths.contains(&f64::from(q.z));
                if !inside {
                    return None;
                }
                let sight = viewport.ray_through(q.x, q.y);
                let entry = sight.at(sight.t_min);
                Some((v as u32, sight_ray(p, entry - p, 1.0)))
            })
            .collect();
        let rays: Vec<Ray> = in_view.iter().map(|(_, ray)| *ray).collect();
        let mut visible = vec![false; positions.len()];
        for ((v, _), hidden) in in_view.iter().zip(self.sight_occluded(&rays)) {
            visible[*v as usize] = !hidden;
        }
        visible
    }
}
