//! How open the surface is at each vertex: [`Mesh::ambient_occlusion`] (rays out, around the
//! normal) and [`Mesh::thickness`] (rays in, against it).

use glam::{DVec3, Vec3};
use meshcast_primitives::{Hit, Ray};
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::error::{Error, Result};
use crate::fields::uniform;
use crate::mesh::Mesh;
use crate::views::directions::{around, cosine_hemisphere, uniform_cone};
use crate::views::sight::sight_ray;

/// How thick a mesh is at each vertex, along rays into it ([`Mesh::thickness`]): for vertex
/// `v`, `mean[v]` and `min[v]` are the mean and the least distance at which its rays met the
/// surface, over the `hits[v]` rays that did.
///
/// A vertex none of whose rays met anything (on an open mesh, or one facing out of a
/// hollow) has `hits[v] == 0` and infinite distances; a vertex with no normal (used by no
/// triangle with area) casts no ray and has NaN distances.
///
/// # Examples
/// ```
/// use meshcast_mesh::Thickness;
///
/// let thickness = Thickness { mean: vec![2.0], min: vec![1.5], hits: vec![8] };
/// assert!(thickness.min[0] <= thickness.mean[0]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Thickness {
    /// Each vertex's mean distance to the surface over its rays that hit it.
    pub mean: Vec<f32>,
    /// Each vertex's least distance to the surface over its rays.
    pub min: Vec<f32>,
    /// How many of each vertex's rays hit the surface.
    pub hits: Vec<u32>,
}

impl Mesh {
    /// Each vertex's ambient occlusion: the fraction of `rays_per_vertex` rays from the
    /// vertex, cosine-weighted over the hemisphere around its normal, that meet the surface
    /// within `max_distance`; 0 in the open, 1 where every ray is blocked, NaN for a vertex
    /// with no normal (used by no triangle with area).
    ///
    /// The normals are [`crate::TriMesh::vertex_normals`] (angle-weighted). Ray `k` of every
    /// vertex takes the direction `cosine_hemisphere(u₁, u₂)` of Malley's method (a point
    /// uniform on the disk lifted onto the hemisphere; Pharr, Jakob, Humphreys, *Physically
    /// Based Rendering*, 3rd ed., 2016, 13.6.3) in the vertex's frame (Duff et al., *Building
    /// an Orthonormal Basis, Revisited*, 2017), with `u₁`, `u₂` drawn from `seed` and `k`
    /// alone by the counter-based generator of [`Mesh::sample_surface`]: the answer is the
    /// same for a seed on any number of threads, and rays `k` of neighbouring vertices run
    /// side by side, so that each `k` is one batch for [`crate::RayQueries::occluded_batch`]
    /// whose neighbours are traced as packets (the estimates' noise is alike at neighbouring
    /// vertices, smooth rather than speckled). The estimate of each vertex is unbiased.
    ///
    /// Rays start exactly at the vertex, over `(0, max_distance]` along unit directions, so
    /// the triangles with a corner there, which such a ray meets at `t = 0` only, never
    /// occlude it (see [`Mesh::visible_vertices`]); no offset is needed, and what lies within
    /// any distance of the vertex counts. At a sharp convex vertex some directions around
    /// the averaged normal run into the solid and are counted as blocked, as at any point
    /// whose hemisphere the surface cuts.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `rays_per_vertex = 0` or a `max_distance` that is NaN
    /// or not positive (`f32::INFINITY` is no limit).
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Mesh;
    ///
    /// // A floor, and a wall along its near edge (x = 0.25); vertex 8 is on no triangle.
    /// let positions = [
    ///     [0.25, -4.0, 0.0], [4.0, -4.0, 0.0], [4.0, 4.0, 0.0], [0.25, 4.0, 0.0],
    ///     [0.0, -4.0, 0.0], [0.0, 4.0, 0.0], [0.0, 4.0, 4.0], [0.0, -4.0, 4.0], [9.0, 9.0, 9.0],
    /// ];
    /// let triangles = [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]];
    /// let mesh = Mesh::from_triangles(&positions, &triangles)?;
    /// let occlusion = mesh.ambient_occlusion(256, f32::INFINITY, 7)?;
    /// // The wall hides more of the sky from the near edge than from the far one.
    /// assert!(occlusion[0] > 0.15 && occlusion[1] < 0.1);
    /// assert!(occlusion[8].is_nan());
    /// // The same seed, the same answer (NaN aside).
    /// assert_eq!(occlusion[..8], mesh.ambient_occlusion(256, f32::INFINITY, 7)?[..8]);
    /// // Within a distance of 1, the wall is out of the far edge's reach.
    /// let near = mesh.ambient_occlusion(256, 1.0, 7)?;
    /// assert!(near[0] > 0.1 && near[1] == 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ambient_occlusion(
        &self,
        rays_per_vertex: usize,
        max_distance: f32,
        seed: u64,
    ) -> Result<Vec<f32>> {
        check_rays(rays_per_vertex)?;
        if max_distance.is_nan() || max_distance <= 0.0 {
            return Err(Error::InvalidParameter {
                parameter: "max_distance",
                value: f64::from(max_distance),
                expected: "a positive length (infinity for no limit)",
            });
        }
        Ok(
            self.occlusion_traced(rays_per_vertex, max_distance, seed, |rays| {
                self.sight_occluded(rays)
            }),
        )
    }

    /// [`Mesh::ambient_occlusion`] of valid parameters, its rays traced by `trace`.
    pub(super) fn occlusion_traced(
        &self,
        rays_per_vertex: usize,
        max_distance: f32,
        seed: u64,
        trace: impl Fn(&[Ray]) -> Vec<bool>,
    ) -> Vec<f32> {
        let mut blocked = vec![0u32; self.tri_mesh().vertex_count()];
        self.trace_from_vertices(
            rays_per_vertex,
            max_distance,
            |k| cosine_hemisphere(uniform(seed, k, 0), uniform(seed, k, 1)),
            trace,
            |vertex, hidden| blocked[vertex] += u32::from(hidden),
        );
        self.per_normal(|vertex| blocked[vertex] as f32 / rays_per_vertex as f32)
    }

    /// How thick the mesh is at each vertex: the distances at which `rays_per_vertex` rays
    /// from the vertex into the mesh, uniform over the cone of half-angle
    /// `half_angle_degrees` around the reversed normal, first meet the surface, as their
    /// mean and least ([`Thickness`]).
    ///
    /// A ray into a closed mesh from its surface crosses it to the other side; the mean
    /// over a cone is the shape diameter function of Shapira, Shamir and Cohen-Or
    /// (*Consistent Mesh Partitioning and Skeletonisation using the Shape Diameter
    /// Function*, 2008), which uses a cone of 120° (`half_angle_degrees = 60`), here without
    /// their weights and outlier removal; the least is the thinnest wall in the cone.
    /// Directions are uniform over the spherical cap (Pharr, Jakob, Humphreys, *Physically
    /// Based Rendering*, 3rd ed., 2016, 13.6.4), from `seed` and the ray's number as in
    /// [`Mesh::ambient_occlusion`], and traced likewise with
    /// [`crate::RayQueries::cast_batch`]: the same answer for a seed on any number of
    /// threads. Rays start exactly at the vertex, so its own triangles are never hit (see
    /// [`Mesh::visible_vertices`]); a distance is `t` along a unit direction.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `rays_per_vertex = 0` or a half-angle that is NaN or
    /// outside `[0, 90]` degrees.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Mesh;
    ///
    /// // A slab 0.5 thick: two squares facing away from each other.
    /// let positions = [
    ///     [-5.0, -5.0, 0.5], [5.0, -5.0, 0.5], [5.0, 5.0, 0.5], [-5.0, 5.0, 0.5],
    ///     [-5.0, -5.0, 0.0], [5.0, -5.0, 0.0], [5.0, 5.0, 0.0], [-5.0, 5.0, 0.0], [0.0, 0.0, 0.0],
    /// ];
    /// let triangles = [[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6]];
    /// let mesh = Mesh::from_triangles(&positions, &triangles)?;
    /// let straight = mesh.thickness(4, 0.0, 1)?;
    /// assert_eq!((straight.min[0], straight.mean[0], straight.hits[0]), (0.5, 0.5, 4));
    /// let cone = mesh.thickness(64, 30.0, 1)?;
    /// assert!(cone.min[2] >= 0.5 && cone.mean[2] > 0.5 && cone.mean[2] < 0.5 / 30f32.to_radians().cos());
    /// assert!(cone.mean[8].is_nan());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn thickness(
        &self,
        rays_per_vertex: usize,
        half_angle_degrees: f32,
        seed: u64,
    ) -> Result<Thickness> {
        check_rays(rays_per_vertex)?;
        if !(0.0..=90.0).contains(&half_angle_degrees) {
            return Err(Error::InvalidParameter {
                parameter: "half_angle_degrees",
                value: f64::from(half_angle_degrees),
                expected: "an angle from 0 to 90 degrees",
            });
        }
        let cos_max = f64::from(half_angle_degrees).to_radians().cos();
        Ok(self.thickness_traced(rays_per_vertex, cos_max, seed, |rays| self.sight_cast(rays)))
    }

    /// [`Mesh::thickness`] of valid parameters (the cone's half-angle as its cosine), its
    /// rays traced by `trace`.
    pub(super) fn thickness_traced(
        &self,
        rays_per_vertex: usize,
        cos_max: f64,
        seed: u64,
        trace: impl Fn(&[Ray]) -> Vec<Option<Hit>>,
    ) -> Thickness {
        let count = self.tri_mesh().vertex_count();
        let length = self.direction_length();
        let mut sum = vec![0.0f64; count];
        let mut min = vec![f32::INFINITY; count];
        let mut hits = vec![0u32; count];
        self.trace_from_vertices(
            rays_per_vertex,
            f32::INFINITY,
            |k| -uniform_cone(uniform(seed, k, 0), uniform(seed, k, 1), cos_max),
            trace,
            |vertex, hit| {
                if let Some(hit) = hit {
                    let distance = hit.t * length;
                    sum[vertex] += f64::from(distance);
                    min[vertex] = min[vertex].min(distance);
                    hits[vertex] += 1;
                }
            },
        );
        let mean = self.per_normal(|v| match hits[v] {
            0 => f32::INFINITY,
            n => (sum[v] / f64::from(n)) as f32,
        });
        let min = self.per_normal(|v| min[v]);
        Thickness { mean, min, hits }
    }

    /// Traces `rays_per_vertex` rays from every vertex with a normal, ray `k` along
    /// `local(k)` in the vertex's frame, one batch per `k` (`trace`), and hands each answer
    /// to `record(vertex, answer)`. The directions are
    /// [`Mesh::direction_length`] long, so each ray's range is `(0, t_max]` divided by that
    /// length, and a hit's `t` times it is its distance along the unit direction.
    fn trace_from_vertices<A>(
        &self,
        rays_per_vertex: usize,
        t_max: f32,
        local: impl Fn(u64) -> DVec3,
        trace: impl Fn(&[Ray]) -> Vec<A>,
        mut record: impl FnMut(usize, A),
    ) {
        let tri_mesh = self.tri_mesh();
        let (positions, normals) = (tri_mesh.positions(), tri_mesh.vertex_normals());
        let with_normal: Vec<usize> = self
            .vertices_by_leaves()
            .into_iter()
            .map(|v| v as usize)
            .filter(|&v| normals[v] != Vec3::ZERO)
            .collect();
        let length = self.direction_length();
        let t_max = t_max / length;
        for k in 0..rays_per_vertex as u64 {
            let local = local(k);
            let rays: Vec<Ray> = with_normal
                .par_iter()
                .with_min_len(BATCH_GRAIN)
                .map(|&v| sight_ray(positions[v], around(normals[v], local) * length, t_max))
                .collect();
            for (&vertex, answer) in with_normal.iter().zip(trace(&rays)) {
                record(vertex, answer);
            }
        }
    }

    /// The length of the directions of [`Mesh::trace_from_vertices`]: the power of two at
    /// or above the box's diagonal, at least 1. The packet search takes rays whose origins
    /// lie within a hundredth of a ray's length of each other, so rays of neighbouring
    /// vertices group at any scale; a power of two at least 1 scales a direction, and
    /// every `t` the watertight test computes along it, exactly.
    fn direction_length(&self) -> f32 {
        let diagonal = self.bounds().extent().length();
        if !(diagonal.is_finite() && diagonal > 1.0) {
            return 1.0;
        }
        diagonal.log2().ceil().min(64.0).exp2()
    }

    /// `value(v)` for every vertex with a normal, NaN for the others.
    fn per_normal(&self, value: impl Fn(usize) -> f32) -> Vec<f32> {
        let normals = self.tri_mesh().vertex_normals();
        (0..normals.len())
            .map(|v| {
                if normals[v] == Vec3::ZERO {
                    f32::NAN
                } else {
                    value(v)
                }
            })
            .collect()
    }
}

/// [`Error::InvalidParameter`] for no rays.
fn check_rays(rays_per_vertex: usize) -> Result<()> {
    if rays_per_vertex == 0 {
        return Err(Error::InvalidParameter {
            parameter: "rays_per_vertex",
            value: 0.0,
            expected: "at least 1",
        });
    }
    Ok(())
}
