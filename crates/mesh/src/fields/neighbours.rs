//! Fixed-radius neighbours of a set of points, found through a uniform grid of cells as
//! wide as the radius (the sample elimination's neighbour search).

use glam::{DVec3, Vec3};
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;

/// For each point, the other points strictly nearer than a radius, in increasing index
/// order: point `i`'s are `indices[offsets[i]..offsets[i + 1]]`.
pub(super) struct Neighbours {
    offsets: Vec<usize>,
    indices: Vec<u32>,
}

/// A cell of the grid: the point's coordinates over the cell's width, rounded down.
type Cell = [i64; 3];

/// Widens the cells a little over the radius, so that two points nearer than the radius
/// land in the same or adjacent cells despite the rounding of the division.
const CELL_SLACK: f64 = 1.000_001;

impl Neighbours {
    /// The neighbours of each of `points` (indexable by `u32`) nearer than `radius`
    /// (positive and finite), the distance measured in `f64` between the `f32` points.
    pub(super) fn within(points: &[Vec3], radius: f64) -> Self {
        debug_assert!(radius > 0.0 && radius.is_finite());
        let origin = points
            .iter()
            .fold(DVec3::INFINITY, |min, p| min.min(p.as_dvec3()));
        let width = radius * CELL_SLACK;
        // Saturating casts: points beyond i64's range share a cell, which costs time, not
        // answers.
        let cell_of = |p: Vec3| -> Cell {
            ((p.as_dvec3() - origin) / width)
                .floor()
                .to_array()
                .map(|c| c as i64)
        };
        let mut order: Vec<(Cell, u32)> = points
            .iter()
            .enumerate()
            .map(|(i, &p)| (cell_of(p), i as u32))
            .collect();
        order.par_sort_unstable();
        let found: Vec<Vec<u32>> = points
            .par_iter()
            .enumerate()
            .with_min_len(BATCH_GRAIN)
            .map(|(i, &p)| {
                let [x, y, z] = cell_of(p);
                let mut near = Vec::new();
                for dx in -1..=1 {
                    for dy in -1..=1 {
                        for dz in -1..=1 {
                            let cell = [
                                x.saturating_add(dx),
                                y.saturating_add(dy),
                                z.saturating_add(dz),
                            ];
                            let start = order.partition_point(|&(c, _)| c < cell);
                            for &(_, j) in order[start..].iter().take_while(|&&(c, _)| c == cell) {
                                let q = points[j as usize];
                                if j as usize != i
                                    && (p.as_dvec3() - q.as_dvec3()).length() < radius
                                {
                                    near.push(j);
                                }
                            }
                        }
                    }
                }
                near.sort_unstable();
                near.dedup();
                near
            })
            .collect();
        let mut offsets = Vec::with_capacity(points.len() + 1);
        offsets.push(0);
        let mut indices = Vec::with_capacity(found.iter().map(Vec::len).sum());
        for near in found {
            indices.extend(near);
            offsets.push(indices.len());
        }
        Self { offsets, indices }
    }

    /// Point `i`'s neighbours, in increasing index order.
    pub(super) fn of(&self, i: usize) -> &[u32] {
        &self.indices[self.offsets[i]..self.offsets[i + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_match_all_pairs() {
        // A lattice with repeats and points exactly a radius apart.
        let mut points = Vec::new();
        for i in 0..300u32 {
            let f = |k: u32| ((i * k) % 17) as f32 * 0.25 - 2.0;
            points.push(Vec3::new(f(7), f(11), f(13)));
        }
        points.push(points[5]);
        for radius in [0.25, 0.3, 1.0, 3.0] {
            let neighbours = Neighbours::within(&points, radius);
            for (i, p) in points.iter().enumerate() {
                let expected: Vec<u32> = (0..points.len() as u32)
                    .filter(|&j| {
                        j as usize != i
                            && (p.as_dvec3() - points[j as usize].as_dvec3()).length() < radius
                    })
                    .collect();
                assert_eq!(neighbours.of(i), expected, "point {i}, radius {radius}");
            }
        }
    }
}
