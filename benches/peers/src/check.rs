//! The correctness check: each library's closest hits on a sample of rays against a
//! brute-force loop over every triangle with meshcast's watertight `Triangle::intersect`
//! (`meshcast_testkit::brute_force_cast`, the reference of meshcast's own tests).
//!
//! Libraries use different triangle tests, so rays through an exact edge or vertex may go
//! either way; the counts are reported as they are. meshcast promises the brute-force answer
//! exactly, so for it any difference in the bits of `t` counts.
//!
//! A packet row is also compared with its own library's single-ray answers on every ray of
//! both sets, traced in the benchmark's order and chunks (so the packets are the measured
//! ones): meshcast's batch call must answer what `Mesh::cast` does, bit for bit. A batch row
//! is checked likewise on every incoherent ray, as its all-threads figure traces them, and its
//! any-hit answers on the sample against its own closest hits.

use meshcast::{Ray, Triangle};
use meshcast_testkit::brute_force_cast;
use rayon::prelude::*;

use crate::tracer::{Threads, Tracer, TILE};

/// The relative tolerance on `t` for the peers.
pub const RELATIVE_T_TOLERANCE: f32 = 1e-4;

/// Brute-force triangle tests allowed per ray set; big meshes check fewer rays.
const BRUTE_FORCE_BUDGET: usize = 1_000_000_000;

/// One row's disagreements on one mesh.
#[derive(Clone, Debug, Default)]
pub struct CheckResult {
    /// The row (library, or packet or batch path).
    pub name: String,
    /// Rays checked (both sets).
    pub rays: usize,
    /// Whether the row promises the brute-force answer exactly (meshcast's rows).
    pub exact: bool,
    /// Hit where brute force misses, or the reverse.
    pub hit_miss: usize,
    /// Both hit, but `t` differs beyond the tolerance (for meshcast: in any bit).
    pub distance: usize,
    /// Any-hit answer differs from the row's own closest-hit hit/miss (blank for packet rows).
    pub any_vs_closest: Option<usize>,
    /// For a packet or batch row: rays whose packet or batch answer differs from the
    /// library's single-ray answer (hit/miss, or `t` beyond the tolerance; for meshcast in any
    /// bit), and how many rays were compared.
    pub packet_vs_single: Option<(usize, usize)>,
}

impl CheckResult {
    /// Every disagreement the check found.
    pub fn disagreements(&self) -> usize {
        self.hit_miss
            + self.distance
            + self.any_vs_closest.unwrap_or(0)
            + self.packet_vs_single.map_or(0, |(differ, _)| differ)
    }
}

/// How many rays of each set to check on a mesh of `triangles`, at most `wanted`.
pub fn sample_size(wanted: usize, triangles: usize) -> usize {
    wanted.min((BRUTE_FORCE_BUDGET / triangles.max(1)).max(100))
}

/// `count` rays spread evenly over `rays`.
pub fn sample(rays: &[Ray], count: usize) -> Vec<Ray> {
    let count = count.min(rays.len());
    (0..count).map(|i| rays[i * rays.len() / count]).collect()
}

/// The brute-force closest hit of every ray (in the current rayon pool).
pub fn brute_force(positions: &[[f32; 3]], indices: &[[u32; 3]], rays: &[Ray]) -> Vec<Option<f32>> {
    let triangles: Vec<Triangle> = indices
        .iter()
        .map(|&[a, b, c]| {
            let p = |i: u32| meshcast::glam::Vec3::from_array(positions[i as usize]);
            Triangle::new(p(a), p(b), p(c))
        })
        .collect();
    rays.par_iter()
        .map(|ray| brute_force_cast(&triangles, ray).map(|hit| hit.t))
        .collect()
}

/// Compares closest hits (`got`) with the reference; `exact` asks for equal bits.
pub fn compare(
    name: &str,
    reference: &[Option<f32>],
    got: &[Option<f32>],
    any: Option<&[bool]>,
    exact: bool,
) -> CheckResult {
    let mut result = CheckResult {
        name: name.to_string(),
        rays: reference.len(),
        exact,
        any_vs_closest: any.map(|_| 0),
        ..CheckResult::default()
    };
    for (i, (&want, &have)) in reference.iter().zip(got).enumerate() {
        match (want, have) {
            (Some(want), Some(have)) => {
                let close = if exact {
                    want.to_bits() == have.to_bits()
                } else {
                    (want - have).abs() <= RELATIVE_T_TOLERANCE * want.abs()
                };
                if !close {
                    result.distance += 1;
                }
            }
            (None, None) => {}
            _ => result.hit_miss += 1,
        }
        if let (Some(any), Some(count)) = (any, result.any_vs_closest.as_mut()) {
            if any[i] != have.is_some() {
                *count += 1;
            }
        }
    }
    result
}

/// Checks one tracer's single-ray queries on `rays` against `reference`.
pub fn check_tracer(
    name: &str,
    tracer: &dyn Tracer,
    rays: &[Ray],
    reference: &[Option<f32>],
    exact: bool,
) -> CheckResult {
    let closest: Vec<Option<f32>> = rays.iter().map(|ray| tracer.closest(ray)).collect();
    let any: Vec<bool> = rays.iter().map(|ray| tracer.occluded(ray)).collect();
    compare(name, reference, &closest, Some(&any), exact)
}

/// Checks a tracer's packet path on the sample `rays` against `reference`, and on every ray
/// of `sets` (each with the width of its image's rows) against the tracer's own single-ray
/// answers (in the current rayon pool, in the bands of the all-threads loop); `exact` asks for
/// equal bits in both.
pub fn check_packets(
    name: &str,
    tracer: &dyn Tracer,
    rays: &[Ray],
    reference: &[Option<f32>],
    sets: &[(&[Ray], usize)],
    exact: bool,
) -> CheckResult {
    let closest = tracer.packet_closest(rays, rays.len());
    let mut result = compare(name, reference, &closest, None, exact);
    let mut differ = 0;
    let mut compared = 0;
    for &(set, width) in sets {
        let packets: Vec<Option<f32>> = set
            .par_chunks(TILE * width)
            .flat_map_iter(|band| tracer.packet_closest(band, width))
            .collect();
        differ += differences_from_single(tracer, set, &packets, exact);
        compared += set.len();
    }
    result.packet_vs_single = Some((differ, compared));
    result
}

/// Checks a tracer's batch path as its all-threads figure calls it (in the current rayon
/// pool): closest and any-hit answers on the sample `rays` against `reference` and against
/// each other, and closest answers on every ray of `set` against the tracer's own single-ray
/// answers; `exact` asks for equal bits in both.
pub fn check_batch(
    name: &str,
    tracer: &dyn Tracer,
    rays: &[Ray],
    reference: &[Option<f32>],
    set: &[Ray],
    exact: bool,
) -> CheckResult {
    let closest = tracer.batch_closest(rays, Threads::All);
    let any = tracer.batch_occluded(rays, Threads::All);
    let mut result = compare(name, reference, &closest, Some(&any), exact);
    let batch = tracer.batch_closest(set, Threads::All);
    let differ = differences_from_single(tracer, set, &batch, exact);
    result.packet_vs_single = Some((differ, set.len()));
    result
}

/// Rays of `set` whose answer in `got` differs from the tracer's single-ray closest hit
/// (hit/miss, or `t` beyond the tolerance; with `exact` in any bit), in the current rayon
/// pool.
fn differences_from_single(
    tracer: &dyn Tracer,
    set: &[Ray],
    got: &[Option<f32>],
    exact: bool,
) -> usize {
    let single: Vec<Option<f32>> = set.par_iter().map(|ray| tracer.closest(ray)).collect();
    let check = compare("", &single, got, None, exact);
    check.hit_miss + check.distance
}
