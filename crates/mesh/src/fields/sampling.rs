//! Points on a mesh's surface: [`Mesh::sample_surface`], uniform by area, the same for a
//! seed whatever the number of threads.

use glam::Vec3;
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::mesh::Mesh;

/// Points sampled on a surface, with the triangle and the barycentric coordinates each
/// lies at: sample `s` is `points[s]`, on triangle `triangles[s]` at
/// `barycentrics[s] = [u, v]`, the weights of its second and third corners (as a hit's
/// `u` and `v`).
///
/// # Examples
/// ```
/// use meshcast_mesh::Mesh;
///
/// let mesh = Mesh::from_triangles(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
/// let samples = mesh.sample_surface(3, 7);
/// assert_eq!(samples.len(), 3);
/// assert_eq!(samples.triangles, [0, 0, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SurfaceSamples {
    /// The points, in the mesh's space.
    pub points: Vec<Vec3>,
    /// The triangle (index into the mesh's triangles) each point lies on.
    pub triangles: Vec<u32>,
    /// Each point's barycentric coordinates `[u, v]` on its triangle: the point is
    /// `p0 + u * (p1 - p0) + v * (p2 - p0)`.
    pub barycentrics: Vec<[f32; 2]>,
}

impl SurfaceSamples {
    /// The number of samples.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::SurfaceSamples;
    ///
    /// assert_eq!(SurfaceSamples::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether there is no sample.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::SurfaceSamples;
    ///
    /// assert!(SurfaceSamples::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// The increment of SplitMix64 (Steele, Lea, Flood, *Fast Splittable Pseudorandom Number
/// Generators*, 2014): the golden ratio in 64 bits.
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The `draw`-th of a sample's uniform numbers in `[0, 1)`, from the seed and the sample's
/// number alone (SplitMix64's output function over a counter), so any thread can make it.
pub(crate) fn uniform(seed: u64, sample: u64, draw: u64) -> f64 {
    let mut z = seed.wrapping_add(
        sample
            .wrapping_mul(3)
            .wrapping_add(draw + 1)
            .wrapping_mul(GOLDEN_GAMMA),
    );
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The running sum of a mesh's triangle areas, in `f64` and in triangle order (the same
/// on every run), and the last triangle with area.
pub(super) struct AreaSums {
    /// `running[t]`: the areas of triangles `0..=t`.
    pub(super) running: Vec<f64>,
    /// The surface's area.
    pub(super) total: f64,
    /// The last triangle with area; `None` for a mesh without area or with an infinite one.
    pub(super) last: Option<usize>,
}

impl AreaSums {
    pub(super) fn of(mesh: &Mesh) -> Self {
        let tri_mesh = mesh.tri_mesh();
        let positions = tri_mesh.positions();
        let mut running = Vec::with_capacity(tri_mesh.indices().len());
        let mut total = 0.0;
        let mut last = None;
        for (t, corners) in tri_mesh.indices().iter().enumerate() {
            let [a, b, c] = corners.map(|i| positions[i as usize].as_dvec3());
            let area = 0.5 * (b - a).cross(c - a).length();
            if area > 0.0 {
                total += area;
                last = Some(t);
            }
            running.push(total);
        }
        let last = last.filter(|_| total.is_finite());
        Self {
            running,
            total,
            last,
        }
    }
}

impl Mesh {
    /// `n` points on the surface, uniform by area, the same for a `seed` whatever the number
    /// of threads.
    ///
    /// Each sample draws three numbers from a counter-based generator (SplitMix64's output
    /// function over the seed and the sample's number): the first picks a triangle with
    /// probability proportional to its area (a binary search in the running sum of the
    /// areas, in `f64`; degenerate triangles are never picked), the other two a point
    /// uniform on it (`r = √u₁`: weights `1 - r`, `r (1 - u₂)`, `r u₂`; Osada et al., *Shape
    /// Distributions*, 2002). The samples are made in parallel, each from its own numbers.
    /// No samples for a mesh without area.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Mesh;
    ///
    /// // Two triangles, the second three times the first's area.
    /// let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [3.0, 0.0, 1.0], [0.0, 1.0, 1.0]];
    /// let mesh = Mesh::from_triangles(&positions, &[[0, 1, 2], [3, 4, 5]])?;
    /// let samples = mesh.sample_surface(4000, 1);
    /// let on_second = samples.triangles.iter().filter(|&&t| t == 1).count();
    /// assert!((2850..3150).contains(&on_second));
    /// assert!(samples.points.iter().zip(&samples.triangles).all(|(p, &t)| p.z == t as f32));
    /// assert_eq!(samples, mesh.sample_surface(4000, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_surface(&self, n: usize, seed: u64) -> SurfaceSamples {
        let tri_mesh = self.tri_mesh();
        let positions = tri_mesh.positions();
        let indices = tri_mesh.indices();
        let corners = |t: usize| indices[t].map(|i| positions[i as usize]);
        let AreaSums {
            running,
            total,
            last,
        } = AreaSums::of(self);
        let Some(last) = last else {
            return SurfaceSamples::default();
        };
        let picked: Vec<(u32, [f32; 2], Vec3)> = (0..n)
            .into_par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|s| {
                let s = s as u64;
                let x = uniform(seed, s, 0) * total;
                // The first triangle whose running sum passes x: one with area, since a
                // degenerate one repeats the sum before it.
                let t = running.partition_point(|&sum| sum <= x).min(last);
                let r = uniform(seed, s, 1).sqrt();
                let w = uniform(seed, s, 2);
                let (u, v) = ((r * (1.0 - w)) as f32, (r * w) as f32);
                let [p0, p1, p2] = corners(t);
                (t as u32, [u, v], p0 + u * (p1 - p0) + v * (p2 - p0))
            })
            .collect();
        let mut samples = SurfaceSamples {
            points: Vec::with_capacity(n),
            triangles: Vec::with_capacity(n),
            barycentrics: Vec::with_capacity(n),
        };
        for (triangle, barycentric, point) in picked {
            samples.triangles.push(triangle);
            samples.barycentrics.push(barycentric);
            samples.points.push(point);
        }
        samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_numbers_lie_in_the_unit_interval() {
        let mean = (0..10_000).map(|s| uniform(5, s, s % 3)).sum::<f64>() / 10_000.0;
        assert!((mean - 0.5).abs() < 0.02);
        assert!((0..1000).all(|s| (0.0..1.0).contains(&uniform(u64::MAX, s, 2))));
    }
}
