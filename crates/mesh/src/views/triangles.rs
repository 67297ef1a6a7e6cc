//! Which triangles a viewport's pixels or eye points see: [`Mesh::visible_triangles_in_view`]
//! (the closest hit at some pixel) and [`Mesh::visible_triangles`] (the closest hit towards
//! some sample point on the triangle).

use glam::{DVec3, Vec3};
use meshcast_primitives::{Ray, Viewport};
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::queries::{QueryPoint, RayQueries};

/// Rows of pixels traced as one batch: a multiple of the packets' four-row tiles, few enough
/// that a large image's rays are never all held at once.
const BAND_ROWS: u32 = 64;

/// The most sample points along a triangle's side ([`Mesh::visible_triangles`]): at most
/// this many squared per triangle, however large the density.
///
/// # Examples
/// ```
/// use meshcast_mesh::MAX_SIDE_SAMPLES;
///
/// assert_eq!(MAX_SIDE_SAMPLES * MAX_SIDE_SAMPLES, 1 << 20);
/// ```
pub const MAX_SIDE_SAMPLES: u32 = 1024;

/// Triangles whose sample rays are made and traced as one batch.
const SAMPLE_CHUNK: usize = 4096;

impl Mesh {
    /// Which triangles the image of `viewport` shows: `visible[t]` is whether triangle `t`
    /// is the closest hit of the ray through the centre of some pixel
    /// ([`Viewport::pixel_rays`], limited to the view volume between the clip planes).
    ///
    /// The rays are traced with [`RayQueries::cast_batch`], a band of rows at a time, as a
    /// camera image: in tiles of four by four pixels, as packets. Both sides of a triangle
    /// are seen; where two triangles tie at a pixel (a ray through their shared edge) the
    /// smaller index is the one seen ([`meshcast_primitives::Hit::order`]). So the answer
    /// equals a loop over every pixel and triangle with the watertight test. A triangle
    /// smaller than a pixel may fall between pixel centres and go unseen: for every
    /// triangle that some eye sees, sample the triangles instead
    /// ([`Mesh::visible_triangles`]).
    ///
    /// # Examples
    /// ```
    /// use glam::{Mat4, Vec3};
    /// use meshcast_mesh::Mesh;
    /// use meshcast_primitives::{DepthConvention, Viewport};
    ///
    /// // A square of two triangles, and behind it a triangle it hides whole.
    /// let positions = [
    ///     [-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0],
    ///     [-0.5, -0.5, -1.0], [0.5, -0.5, -1.0], [0.0, 0.5, -1.0],
    /// ];
    /// let mesh = Mesh::from_triangles(&positions, &[[0, 1, 2], [0, 2, 3], [4, 5, 6]])?;
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
    /// let projection = Mat4::perspective_rh(1.0, 1.0, 0.1, 100.0);
    /// let viewport = Viewport::new(view, projection, DepthConvention::ZeroToOne, 32, 32)?;
    /// assert_eq!(mesh.visible_triangles_in_view(&viewport), [true, true, false]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn visible_triangles_in_view(&self, viewport: &Viewport) -> Vec<bool> {
        let mut visible = vec![false; self.triangle_count()];
        let (width, height) = (viewport.width(), viewport.height());
        for top in (0..height).step_by(BAND_ROWS as usize) {
            let rows = (top + BAND_ROWS).min(height) - top;
            // Each ray is a matrix product in `f64`: made in parallel too.
            let rays: Vec<Ray> = (0..rows * width)
                .into_par_iter()
                .with_min_len(BATCH_GRAIN)
                .map(|i| viewport.ray_through_pixel(i % width, top + i / width))
                .collect();
            for hit in self.cast_batch(&rays).into_iter().flatten() {
                visible[hit.triangle as usize] = true;
            }
        }
        visible
    }

    /// Which triangles at least one of `eyes` sees, by sample points on each triangle at
    /// `density` points per unit area: `visible[t]` for every triangle `t`.
    ///
    /// Triangle `t` is seen from the eye `e` at its sample point `p` when `t` is the closest
    /// hit of the ray from `e` towards `p` (`Ray::new(e, p - e)`, no end): the eye sees that
    /// triangle first in that direction, whatever the rounding of `p`. A triangle is split
    /// into `k × k` equal triangles, `k = ⌈√(area × density)⌉` (at least 1, at most
    /// [`MAX_SIDE_SAMPLES`]), and its samples are their centroids, spread evenly over it
    /// (with `density = 0`, its centroid alone). Both sides are seen; a triangle seen
    /// edge-on (the eye in its plane) is not; degenerate triangles never are; ties go to the
    /// smaller index ([`meshcast_primitives::Hit::order`]). The answer equals a loop over
    /// every sample, eye and triangle with the watertight test.
    ///
    /// Traced eye by eye, the samples of the triangles not seen yet in the tree's leaf order,
    /// with [`RayQueries::cast_batch`] (neighbouring samples run side by side, as packets).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an eye with a NaN or infinite coordinate, or a
    /// `density` that is NaN, negative or infinite.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_mesh::Mesh;
    ///
    /// // A floor of two triangles, and a small square over the middle of its diagonal.
    /// let positions = [
    ///     [-2.0, -2.0, 0.0], [2.0, -2.0, 0.0], [2.0, 2.0, 0.0], [-2.0, 2.0, 0.0],
    ///     [-0.5, -0.5, 1.0], [0.5, -0.5, 1.0], [0.5, 0.5, 1.0], [-0.5, 0.5, 1.0],
    /// ];
    /// let triangles = [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]];
    /// let mesh = Mesh::from_triangles(&positions, &triangles)?;
    /// let above = [Vec3::new(0.0, 0.0, 3.0)];
    /// // Each floor triangle's centroid alone lies under the square...
    /// assert_eq!(mesh.visible_triangles(&above, 0.0)?, [false, false, true, true]);
    /// // ... but four points per unit area find the rest of the floor.
    /// assert_eq!(mesh.visible_triangles(&above, 4.0)?, [true; 4]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn visible_triangles<P: QueryPoint>(&self, eyes: &[P], density: f32) -> Result<Vec<bool>> {
        let eyes = eyes_in_frame(eyes, self.origin())?;
        if !(density.is_finite() && density >= 0.0) {
            return Err(Error::InvalidParameter {
                parameter: "density",
                value: f64::from(density),
                expected: "a finite number of sample points per unit area, at least 0",
            });
        }
        let sides = self.sample_sides(density);
        let mut visible = vec![false; self.triangle_count()];
        // The triangles in the tree's leaf order, so that consecutive samples lie side by
        // side (the order changes only the time taken).
        let by_leaves: Vec<u32> = self
            .bvh()
            .primitive_order()
            .iter()
            .copied()
            .filter(|&t| (t as usize) < visible.len())
            .collect();
        for &eye in &eyes {
            let unseen: Vec<u32> = by_leaves
                .iter()
                .copied()
                .filter(|&t| !visible[t as usize] && sides[t as usize] > 0)
                .collect();
            for chunk in unseen.chunks(SAMPLE_CHUNK) {
                let (rays, owners) = self.sample_rays(eye, chunk, &sides);
                let hits = self.cast_batch(&rays);
                for (hit, owner) in hits.iter().zip(owners) {
                    if hit.is_some_and(|hit| hit.triangle == owner) {
                        visible[owner as usize] = true;
                    }
                }
            }
        }
        Ok(visible)
    }

    /// Each triangle's number of samples along a side, `k` of [`Mesh::visible_triangles`];
    /// 0 for a degenerate triangle, which no ray hits.
    fn sample_sides(&self, density: f32) -> Vec<u32> {
        let density = f64::from(density);
        self.tri_mesh()
            .triangles()
            .collect::<Vec<_>>()
            .par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|triangle| {
                if triangle.is_degenerate() {
                    return 0;
                }
                let [a, b, c] = [triangle.v0, triangle.v1, triangle.v2].map(|p| p.as_dvec3());
                let area = 0.5 * (b - a).cross(c - a).length();
                ((area * density).sqrt().ceil() as u32).clamp(1, MAX_SIDE_SAMPLES)
            })
            .collect()
    }

    /// The rays from `eye` towards every sample of the triangles `chunk`, and the triangle
    /// each sample lies on, in the chunk's order.
    fn sample_rays(&self, eye: Vec3, chunk: &[u32], sides: &[u32]) -> (Vec<Ray>, Vec<u32>) {
        let (mut rays, mut owners) = (Vec::new(), Vec::new());
        for &t in chunk {
            let Some(triangle) = self.tri_mesh().triangle(t as usize) else {
                continue;
            };
            let (e1, e2) = (triangle.v1 - triangle.v0, triangle.v2 - triangle.v0);
            for [u, v] in centroids(sides[t as usize]) {
                let p = triangle.v0 + e1 * u + e2 * v;
                rays.push(Ray::new(eye, p - eye));
                owners.push(t);
            }
        }
        (rays, owners)
    }
}

/// The barycentric coordinates `[u, v]` of the centroids of the `k²` triangles of a
/// triangle's regular split into `k` parts along each side: the upright ones, then those
/// turned over, row by row.
fn centroids(k: u32) -> impl Iterator<Item = [f32; 2]> {
    let k_f = k as f32;
    let upright = (0..k).flat_map(move |i| {
        (0..k - i).map(move |j| [(i as f32 + 1.0 / 3.0) / k_f, (j as f32 + 1.0 / 3.0) / k_f])
    });
    let turned = (0..k.saturating_sub(1)).flat_map(move |i| {
        (0..k - 1 - i).map(move |j| [(i as f32 + 2.0 / 3.0) / k_f, (j as f32 + 2.0 / 3.0) / k_f])
    });
    upright.chain(turned)
}

/// [`Error::InvalidParameter`] for the first eye with a NaN or infinite coordinate.
pub(super) fn eyes_in_frame<P: QueryPoint>(eyes: &[P], origin: DVec3) -> Result<Vec<Vec3>> {
    match eyes
        .iter()
        .flat_map(|eye| eye.world().to_array())
        .find(|c| !c.is_finite())
    {
        Some(value) => Err(Error::InvalidParameter {
            parameter: "eye",
            value,
            expected: "finite coordinates",
        }),
        None => Ok(eyes.iter().map(|eye| eye.in_frame(origin)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centroids_split_the_triangle_evenly() {
        for k in 1..6 {
            let points: Vec<[f32; 2]> = centroids(k).collect();
            assert_eq!(points.len() as u32, k * k);
            // Inside, none repeated, and their mean is the triangle's centroid.
            assert!(points
                .iter()
                .all(|&[u, v]| u > 0.0 && v > 0.0 && u + v < 1.0));
            let mut sorted = points.clone();
            sorted.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
            sorted.dedup();
            assert_eq!(sorted.len(), points.len());
            let mean = points
                .iter()
                .fold([0.0; 2], |m, p| [m[0] + p[0], m[1] + p[1]]);
            for m in mean {
                assert!((m / (k * k) as f32 - 1.0 / 3.0).abs() < 1e-5);
            }
        }
    }
}
