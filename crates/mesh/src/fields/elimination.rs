//! Evenly spread points on a surface: [`Mesh::sample_surface_even`], Poisson-disk samples by
//! weighted sample elimination (Yuksel, *Sample Elimination for Generating Poisson Disk
//! Sample Sets*, 2015).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use rayon::prelude::*;

use super::neighbours::Neighbours;
use super::sampling::AreaSums;
use crate::batches::BATCH_GRAIN;
use crate::error::{Error, Result};
use crate::fields::SurfaceSamples;
use crate::mesh::Mesh;

/// How many uniform candidates are drawn for each point asked (Yuksel's M / N).
const CANDIDATE_FACTOR: usize = 5;
/// The weight function's exponent (Yuksel's α).
const WEIGHT_EXPONENT: i32 = 8;
/// The weight limiting's scale and exponent (Yuksel's β and γ).
const LIMIT_SCALE: f64 = 0.65;
const LIMIT_EXPONENT: f64 = 1.5;

/// A candidate's weight in the heap: ordered by weight, then by the lower index first, so
/// the elimination order depends on the weights alone.
#[derive(Clone, Copy, PartialEq)]
struct Entry {
    weight: f64,
    candidate: Reverse<u32>,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.weight
            .total_cmp(&other.weight)
            .then(self.candidate.cmp(&other.candidate))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The elimination's state: which candidates remain, their weights, and how many of their
/// remaining neighbours are nearer than the radius asked.
struct Elimination<'a> {
    neighbours: Neighbours,
    distance: &'a (dyn Fn(usize, u32) -> f64 + Sync),
    weight: &'a (dyn Fn(f64) -> f64 + Sync),
    radius: f64,
    weights: Vec<f64>,
    conflicts: Vec<u32>,
    alive: Vec<bool>,
    remaining: usize,
}

impl Elimination<'_> {
    /// Removes `i`, takes its weight off its remaining neighbours and pushes their new
    /// weights onto `heap`.
    fn remove(&mut self, i: usize, heap: &mut BinaryHeap<Entry>) {
        self.alive[i] = false;
        self.remaining -= 1;
        for &j in self.neighbours.of(i) {
            let ju = j as usize;
            if !self.alive[ju] {
                continue;
            }
            let d = (self.distance)(i, j);
            self.weights[ju] -= (self.weight)(d);
            if d < self.radius {
                self.conflicts[ju] -= 1;
            }
            heap.push(Entry {
                weight: self.weights[ju],
                candidate: Reverse(j),
            });
        }
    }

    /// The heaviest remaining candidate that `eligible` accepts, dropping stale entries.
    fn pop(&self, heap: &mut BinaryHeap<Entry>, eligible: impl Fn(usize) -> bool) -> Option<usize> {
        while let Some(entry) = heap.pop() {
            let i = entry.candidate.0 as usize;
            if self.alive[i] && entry.weight.to_bits() == self.weights[i].to_bits() && eligible(i) {
                return Some(i);
            }
        }
        None
    }

    fn entries(&self, eligible: impl Fn(usize) -> bool) -> BinaryHeap<Entry> {
        (0..self.alive.len())
            .filter(|&i| self.alive[i] && eligible(i))
            .map(|i| Entry {
                weight: self.weights[i],
                candidate: Reverse(i as u32),
            })
            .collect()
    }
}

/// Checks that `radius` is a length the even sampling accepts.
fn check_radius(radius: Option<f32>) -> Result<f64> {
    match radius {
        None => Ok(0.0),
        Some(r) if r.is_finite() && r >= 0.0 => Ok(f64::from(r)),
        Some(r) => Err(Error::InvalidParameter {
            parameter: "radius",
            value: f64::from(r),
            expected: "a finite length >= 0",
        }),
    }
}

impl Mesh {
    /// At most `n` points on the surface, spread evenly, every two at least `radius` apart:
    /// Poisson-disk samples by weighted sample elimination (Yuksel 2015), the same for a
    /// `seed` whatever the number of threads.
    ///
    /// `5 n` candidates are drawn by [`Mesh::sample_surface`] with the seed; each weighs
    /// `Σ (1 - d̂ / 2r)⁸` over its neighbours nearer than `2r`, where `r` is Yuksel's
    /// `r_max = √(A / (2√3 n))` for the surface's area `A` (the radius of `n` disks packed
    /// hexagonally on it), raised to `radius / 2` when that is larger, and `d̂` is the
    /// distance limited from below as Yuksel does (β = 0.65, γ = 1.5). The heaviest
    /// candidate is removed, its neighbours' weights lowered, until `n` remain (ties go to
    /// the lower candidate number); then, while two remaining candidates are nearer than
    /// `radius`, the heavier of those with such a neighbour is removed too. Distances are
    /// Euclidean, in `f64` between the `f32` points. The answer keeps the candidates'
    /// order, triangles and barycentrics.
    ///
    /// `radius = None` (or 0) asks nothing beyond the elimination: `n` points, their least
    /// distance typically 0.7 to 0.8 times `2 r_max` (so a `radius` below about `1.4 r_max`
    /// rarely removes more). A larger `radius` gives fewer than `n` points. A mesh without
    /// area, or `n = 0`, gives no points.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a `radius` that is NaN, negative or infinite, or an
    /// `n` whose candidates overflow `usize`.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Mesh;
    ///
    /// // The unit square.
    /// let square = Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?;
    /// let samples = square.sample_surface_even(100, Some(0.07), 3)?;
    /// assert!(samples.len() <= 100 && samples.len() > 80);
    /// for (i, p) in samples.points.iter().enumerate() {
    ///     for q in &samples.points[i + 1..] {
    ///         assert!(p.as_dvec3().distance(q.as_dvec3()) >= 0.07);
    ///     }
    /// }
    /// assert!(square.sample_surface_even(10, Some(f32::NAN), 3).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sample_surface_even(
        &self,
        n: usize,
        radius: Option<f32>,
        seed: u64,
    ) -> Result<SurfaceSamples> {
        let radius = check_radius(radius)?;
        let candidates = n
            .checked_mul(CANDIDATE_FACTOR)
            .filter(|&m| u32::try_from(m).is_ok())
            .ok_or(Error::InvalidParameter {
                parameter: "n",
                value: n as f64,
                expected: "at most u32::MAX / 5 points",
            })?;
        let area = AreaSums::of(self);
        if n == 0 || area.last.is_none() {
            return Ok(SurfaceSamples::default());
        }
        let samples = self.sample_surface(candidates, seed);
        let points = &samples.points;

        let r_max = (area.total / (2.0 * 3f64.sqrt() * n as f64)).sqrt();
        let reach = (2.0 * r_max).max(radius);
        let limit =
            reach * (1.0 - (n as f64 / candidates as f64).powf(LIMIT_EXPONENT)) * LIMIT_SCALE;
        let distance =
            |i: usize, j: u32| (points[i].as_dvec3() - points[j as usize].as_dvec3()).length();
        let weight = |d: f64| (1.0 - d.max(limit) / reach).powi(WEIGHT_EXPONENT);
        let neighbours = Neighbours::within(points, reach);
        let (weights, conflicts): (Vec<f64>, Vec<u32>) = (0..candidates)
            .into_par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|i| {
                neighbours.of(i).iter().fold((0.0, 0), |(sum, count), &j| {
                    let d = distance(i, j);
                    (sum + weight(d), count + u32::from(d < radius))
                })
            })
            .unzip();
        let mut state = Elimination {
            neighbours,
            distance: &distance,
            weight: &weight,
            radius,
            weights,
            conflicts,
            alive: vec![true; candidates],
            remaining: candidates,
        };

        // Down to n by weight.
        let mut heap = state.entries(|_| true);
        while state.remaining > n {
            let Some(i) = state.pop(&mut heap, |_| true) else {
                break;
            };
            state.remove(i, &mut heap);
        }
        // Then the heavier of every pair still nearer than the radius.
        let mut heap = state.entries(|i| state.conflicts[i] > 0);
        while let Some(i) = state.pop(&mut heap, |i| state.conflicts[i] > 0) {
            state.remove(i, &mut heap);
        }

        let kept: Vec<usize> = (0..candidates).filter(|&i| state.alive[i]).collect();
        Ok(SurfaceSamples {
            points: kept.iter().map(|&i| samples.points[i]).collect(),
            triangles: kept.iter().map(|&i| samples.triangles[i]).collect(),
            barycentrics: kept.iter().map(|&i| samples.barycentrics[i]).collect(),
        })
    }
}
