//! Points near a surface with their signed distances: [`Mesh::sample_near_surface`], the
//! training sets of learned signed distance functions (as `mesh_to_sdf`'s
//! `sample_sdf_near_surface` makes them, after Park et al., *DeepSDF*, 2019).

use std::f64::consts::TAU;

use glam::Vec3;
use rayon::prelude::*;

use super::sampling::uniform;
use crate::batches::BATCH_GRAIN;
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::points::PointQueries;

/// Points with the signed distance at each: `distances[i]` is
/// [`PointQueries::signed_distance`] at `points[i]`, bit for bit, NaN where it has none (a
/// point that is not finite).
///
/// # Examples
/// ```
/// use meshcast_mesh::NearSurfaceSamples;
///
/// assert!(NearSurfaceSamples::default().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NearSurfaceSamples {
    /// The points, in the mesh's space.
    pub points: Vec<Vec3>,
    /// The signed distance at each point, negative inside.
    pub distances: Vec<f32>,
}

impl NearSurfaceSamples {
    /// The number of points.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::NearSurfaceSamples;
    ///
    /// assert_eq!(NearSurfaceSamples::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether there is no point.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::NearSurfaceSamples;
    ///
    /// assert!(NearSurfaceSamples::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// The second group's offsets are this many times smaller than the first's (`mesh_to_sdf`'s
/// 0.0025 and 0.00025).
pub const FINE_SIGMA_DIVISOR: f32 = 10.0;

/// Mixes a seed into the seed of another stream of numbers (SplitMix64's output function),
/// so the offsets' numbers share nothing with the surface samples'.
fn stream(seed: u64) -> u64 {
    let mut z = seed ^ 0x6a09_e667_f3bc_c909;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Three independent standard normal numbers for point `i` (Box–Muller over four of its
/// uniform numbers).
fn normals(seed: u64, i: u64) -> [f64; 3] {
    let pair = |u1: f64, u2: f64| {
        let r = (-2.0 * (1.0 - u1).ln()).sqrt();
        (r * (TAU * u2).cos(), r * (TAU * u2).sin())
    };
    let (a, b) = pair(uniform(seed, 2 * i, 0), uniform(seed, 2 * i, 1));
    let (c, _) = pair(uniform(seed, 2 * i, 2), uniform(seed, 2 * i + 1, 0));
    [a, b, c]
}

/// The number of surface points each offset group has among `n` points: half of
/// `⌊47 n / 50⌋`, as `mesh_to_sdf` counts.
fn near_count(n: usize) -> usize {
    (47 * (n / 50) + 47 * (n % 50) / 50) / 2
}

impl Mesh {
    /// `n` points near the surface and their exact signed distances, the same for a `seed`
    /// whatever the number of threads, mixed as `mesh_to_sdf`'s `sample_sdf_near_surface`
    /// mixes them.
    ///
    /// With `m = ⌊47 n / 50⌋ / 2` and `surface = self.sample_surface(m, seed)`: points
    /// `0..m` are `surface.points[i]` plus a Gaussian offset of standard deviation `sigma`
    /// along each axis, points `m..2m` the same surface points plus one of standard
    /// deviation `sigma / 10` ([`FINE_SIGMA_DIVISOR`]), and the other `n - 2m` (about 6%)
    /// are uniform in the mesh's box ([`Mesh::bounds`]; `mesh_to_sdf` takes the unit
    /// sphere around a mesh it has scaled into it). `mesh_to_sdf`'s `sigma` is 0.0025 for a
    /// mesh in the unit sphere. The offsets come from their own stream of the counter-based
    /// numbers (Box–Muller), computed in `f64` and added in `f32`. Each distance is
    /// [`PointQueries::signed_distance`] at the point, computed in parallel.
    ///
    /// A mesh without area gives no points; so does `n = 0`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a `sigma` that is NaN, negative or infinite.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{Mesh, PointQueries};
    ///
    /// let triangle = Mesh::from_triangles(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let near = triangle.sample_near_surface(100, 0.01, 5)?;
    /// assert_eq!(near.len(), 100);
    /// assert!(near.points[..94].iter().all(|p| p.z.abs() < 0.06));
    /// assert_eq!(Some(near.distances[7]), triangle.signed_distance(near.points[7]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_near_surface(
        &self,
        n: usize,
        sigma: f32,
        seed: u64,
    ) -> Result<NearSurfaceSamples> {
        if !(sigma.is_finite() && sigma >= 0.0) {
            return Err(Error::InvalidParameter {
                parameter: "sigma",
                value: f64::from(sigma),
                expected: "a finite length >= 0",
            });
        }
        let m = near_count(n);
        let surface = self.sample_surface(m.max(1), seed);
        if n == 0 || surface.is_empty() {
            return Ok(NearSurfaceSamples::default());
        }
        let surface = &surface.points[..m];
        let offsets = stream(seed);
        let bounds = self.bounds();
        let sigmas = [f64::from(sigma), f64::from(sigma / FINE_SIGMA_DIVISOR)];
        let points: Vec<Vec3> = (0..n)
            .into_par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|i| {
                if i < 2 * m {
                    let scale = sigmas[i / m];
                    let offset = normals(offsets, i as u64).map(|x| (x * scale) as f32);
                    surface[i % m] + Vec3::from_array(offset)
                } else {
                    let t = [0, 1, 2].map(|draw| uniform(offsets, 2 * i as u64, draw) as f32);
                    bounds.min + Vec3::from_array(t) * (bounds.max - bounds.min)
                }
            })
            .collect();
        let distances = self
            .signed_distance_batch(&points)
            .into_iter()
            .map(|d| d.unwrap_or(f32::NAN))
            .collect();
        Ok(NearSurfaceSamples { points, distances })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_count_is_mesh_to_sdf_s() {
        for n in [0, 1, 49, 50, 51, 99, 1000, 500_000, usize::MAX] {
            let expected = (n as u128 * 47 / 50 / 2) as usize;
            assert_eq!(near_count(n), expected, "{n}");
        }
    }

    #[test]
    fn normals_have_unit_variance() {
        let count = 20_000;
        let (mut sum, mut squares) = ([0.0; 3], [0.0; 3]);
        for i in 0..count {
            for (axis, x) in normals(stream(3), i).into_iter().enumerate() {
                sum[axis] += x;
                squares[axis] += x * x;
            }
        }
        for axis in 0..3 {
            let mean = sum[axis] / count as f64;
            let variance = squares[axis] / count as f64 - mean * mean;
            assert!(mean.abs() < 0.03, "axis {axis}: mean {mean}");
            assert!(
                (variance - 1.0).abs() < 0.04,
                "axis {axis}: variance {variance}"
            );
        }
    }
}
