//! The exact SAH split of a small node: sort the centroids on each axis and weigh the plane
//! between every two neighbours (the plane sweep of MacDonald and Booth, *Heuristics for ray
//! tracing using space subdivision*, 1990, as in Wald 2007 before binning). Cheaper than
//! setting up and sweeping bins for a few dozen primitives, and exact. The boxes are loaded
//! once as SIMD corners: the unions of [`meshcast_primitives::Aabb`]'s three-float corners
//! were scalar (bunny x16, one thread: 2.22 -> 2.05 G instructions in the splitter, with the
//! unchecked bin index of the binning).

use glam::Vec3A;

use super::cost::{corner_area, SahCost};
use super::input::BuildPrimitive;

/// Nodes with at most this many primitives are split by the sweep instead of binning.
pub(crate) const SWEEP_PRIMITIVES: usize = 24;
const _: () = assert!(SWEEP_PRIMITIVES <= 32);

/// The best plane of the sweep: the first `mid` primitives in centroid order on `axis`.
pub(crate) struct SweepSplit {
    /// The sum of both sides' [`SahCost::side`] costs.
    pub sides: f32,
    pub mid: usize,
    axis: usize,
    /// Each primitive's position in the node, in centroid order on every axis, below the
    /// centroid's bits.
    orders: [[u64; SWEEP_PRIMITIVES]; 3],
}

/// The plane of least SAH cost over every axis, or `None` if no plane has a finite cost.
/// `items` holds at most [`SWEEP_PRIMITIVES`].
pub(crate) fn best_split(items: &[BuildPrimitive], cost: &SahCost) -> Option<SweepSplit> {
    let n = items.len();
    debug_assert!(n <= SWEEP_PRIMITIVES);
    // Sort small keys rather than the primitives: the centroid coordinate made
    // order-preserving as an integer, above the primitive's position in the node.
    let mut orders = [[0u64; SWEEP_PRIMITIVES]; 3];
    for (i, p) in items.iter().enumerate() {
        let c = p.centroid();
        for (axis, order) in orders.iter_mut().enumerate() {
            order[i] = u64::from(ordered_bits(c[axis])) << 32 | i as u64;
        }
    }
    // The boxes as SIMD corners, loaded once for the three sweeps.
    // Thirty-two of them, so that the position masked to five bits needs no bounds check.
    let mut corners = [(Vec3A::ZERO, Vec3A::ZERO); 32];
    for (corner, p) in corners.iter_mut().zip(items) {
        *corner = (p.min.into(), p.max.into());
    }
    // The leaf cost of every count, once: the three sweeps weigh about 6n sides.
    let leaf_cost: [f32; 32] = core::array::from_fn(|count| cost.leaf(count));
    let side = |area: f32, count: usize| area * leaf_cost[count & 31];
    let mut best: Option<(usize, usize, f32)> = None;
    let mut right_cost = [0.0f32; SWEEP_PRIMITIVES];
    for (axis, order) in orders.iter_mut().enumerate() {
        let order = &mut order[..n];
        order.sort_unstable();
        let corner = |k: usize| corners[(order[k] & 31) as usize];
        let (mut min, mut max) = corner(n - 1);
        for i in (1..n).rev() {
            let (lo, hi) = corner(i);
            (min, max) = (min.min(lo), max.max(hi));
            right_cost[i] = side(corner_area(min, max), n - i);
        }
        (min, max) = corner(0);
        for (i, right_cost) in right_cost.iter().enumerate().take(n).skip(1) {
            let (lo, hi) = corner(i - 1);
            (min, max) = (min.min(lo), max.max(hi));
            let sides = side(corner_area(min, max), i) + right_cost;
            if sides < best.map_or(f32::INFINITY, |b| b.2) {
                best = Some((axis, i, sides));
            }
        }
    }
    let (axis, mid, sides) = best?;
    Some(SweepSplit {
        sides,
        mid,
        axis,
        orders,
    })
}

impl SweepSplit {
    /// Reorders `items` (the primitives [`best_split`] saw) so that the first `mid` are the
    /// left side.
    pub fn apply(&self, items: &mut [BuildPrimitive]) {
        let n = items.len();
        let mut sorted = [items[0]; SWEEP_PRIMITIVES];
        for (slot, key) in sorted.iter_mut().zip(&self.orders[self.axis][..n]) {
            *slot = items[(key & 0xffff_ffff) as usize];
        }
        items.copy_from_slice(&sorted[..n]);
    }
}

/// The bits of `x` as an integer with the same order as the floats (`-0.0` before `0.0`).
#[inline(always)]
fn ordered_bits(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}
