//! The binned SAH builder (Wald, *On fast Construction of SAH-based Bounding Volume
//! Hierarchies*, 2007; Bikker, *How to build a BVH*, 2022): each node bins its primitives'
//! centroids on all three axes and splits at the plane of least surface area cost, or becomes
//! a leaf when that is cheaper. Small nodes take the exact [`super::sweep`] instead.

use glam::{UVec3, Vec3A};
use meshcast_primitives::Aabb;
use rayon::prelude::*;

use super::cost::{corner_area, SahCost};
use super::driver::{build_top_down, Split, Splitter};
use super::input::{
    bounds_of, BuildOptions, BuildPrimitive, CentroidBounds, Parallel, Prepared, MAX_BINS,
};
use super::sweep::{self, SWEEP_PRIMITIVES};
use crate::binary::Node;
use crate::memory::OutOfMemory;

/// Nodes with at least this many primitives bin them with rayon.
const PARALLEL_BINNING_PRIMITIVES: usize = 1 << 16;
/// The chunk of primitives one rayon task bins.
const BINNING_CHUNK: usize = 1 << 14;
/// Chunks with at least this many primitives bin into two sets of bins ([`Binning::bin_chunk`]).
const TWO_BIN_SETS_PRIMITIVES: usize = 64;

/// Builds the nodes and the leaf order over usable primitives.
pub(crate) fn build(
    prepared: Prepared,
    options: &BuildOptions,
) -> Result<(Vec<Node>, Vec<u32>), OutOfMemory> {
    let Prepared {
        primitives,
        bounds,
        centroids,
    } = prepared;
    let splitter = SahSplitter {
        options: *options,
        cost: SahCost::new(options),
        max_leaf: options.clamped_max_leaf(),
    };
    let root = SahTask { bounds, centroids };
    build_top_down(&splitter, primitives, root, options.parallel, |p| p.index)
}

struct SahSplitter {
    options: BuildOptions,
    cost: SahCost,
    max_leaf: usize,
}

/// A node to split: the box of its primitives and the box of their centroids.
struct SahTask {
    bounds: Aabb,
    centroids: CentroidBounds,
}

impl Splitter for SahSplitter {
    type Item = BuildPrimitive;
    type Task = SahTask;

    fn bounds(&self, task: &SahTask) -> Aabb {
        task.bounds
    }

    fn split(&self, items: &mut [BuildPrimitive], task: SahTask) -> Split<SahTask> {
        let n = items.len();
        if n <= 1 || (n <= self.max_leaf && self.cost.split_never_wins(n)) {
            return Split::Leaf;
        }
        if n <= SWEEP_PRIMITIVES {
            return self.split_small(items, task);
        }
        let binning = Binning::new(&task.centroids, self.options.clamped_bins(), &self.cost);
        let best = if binning.usable == [false; 3] {
            None
        } else {
            // Filled in place: a 4.6 KB array returned from a branch was copied once more.
            let mut bins = EMPTY_BINS;
            if self.options.parallel == Parallel::Rayon && n >= PARALLEL_BINNING_PRIMITIVES {
                bins = items
                    .par_chunks_mut(BINNING_CHUNK)
                    .fold(
                        || EMPTY_BINS,
                        |mut bins, chunk| {
                            binning.bin_chunk(chunk, &mut bins);
                            bins
                        },
                    )
                    .reduce(|| EMPTY_BINS, merge_bins);
            } else {
                binning.bin(items, &mut bins);
            }
            binning.best_split(&bins)
        };
        if self.prefers_leaf(n, best.as_ref().map(|b| b.sides), &task.bounds) {
            return Split::Leaf;
        }
        match best {
            Some(best) => {
                let (mid, left_centroids, right_centroids) = binning.partition(items, &best);
                debug_assert_eq!(mid, best.left_count);
                if mid == 0 || mid == n {
                    // Unreachable with consistent binning; stay safe rather than loop.
                    return median_split(items, &task.centroids);
                }
                Split::Node {
                    mid,
                    left: SahTask {
                        bounds: best.left_bounds,
                        centroids: left_centroids,
                    },
                    right: SahTask {
                        bounds: best.right_bounds,
                        centroids: right_centroids,
                    },
                }
            }
            None => median_split(items, &task.centroids),
        }
    }
}

impl SahSplitter {
    fn prefers_leaf(&self, n: usize, sides: Option<f32>, bounds: &Aabb) -> bool {
        self.cost
            .prefers_leaf(n, self.max_leaf, sides, bounds.surface_area())
    }

    /// Small nodes: the exact sweep.
    fn split_small(&self, items: &mut [BuildPrimitive], task: SahTask) -> Split<SahTask> {
        let n = items.len();
        if task.centroids.min == task.centroids.max {
            // Every plane costs the same: split by count rather than peel one off at a time.
            if n <= self.max_leaf {
                return Split::Leaf;
            }
            return median_split(items, &task.centroids);
        }
        let best = sweep::best_split(items, &self.cost);
        if self.prefers_leaf(n, best.as_ref().map(|b| b.sides), &task.bounds) {
            return Split::Leaf;
        }
        let Some(best) = best else {
            return median_split(items, &task.centroids);
        };
        best.apply(items);
        let (l, r) = items.split_at(best.mid);
        Split::Node {
            mid: best.mid,
            left: SahTask::of(l),
            right: SahTask::of(r),
        }
    }
}

impl SahTask {
    fn of(items: &[BuildPrimitive]) -> Self {
        let (bounds, centroids) = bounds_of(items);
        Self { bounds, centroids }
    }
}

/// The split for primitives that binning cannot separate (equal centroids, or boxes so large
/// that their areas overflow): the object median along the longest centroid axis.
fn median_split(items: &mut [BuildPrimitive], centroids: &CentroidBounds) -> Split<SahTask> {
    let axis = (centroids.max - centroids.min).max_position();
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |a, b| {
        a.centroid()[axis].total_cmp(&b.centroid()[axis])
    });
    let (l, r) = items.split_at(mid);
    Split::Node {
        mid,
        left: SahTask::of(l),
        right: SahTask::of(r),
    }
}

#[derive(Clone, Copy, Debug)]
struct Bin {
    min: Vec3A,
    max: Vec3A,
    count: u32,
}

impl Bin {
    const EMPTY: Self = Self {
        min: Vec3A::INFINITY,
        max: Vec3A::NEG_INFINITY,
        count: 0,
    };

    #[inline(always)]
    fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
            count: self.count + other.count,
        }
    }

    /// The surface area of the bin's box (only called on bins holding primitives).
    #[inline(always)]
    fn area(&self) -> f32 {
        corner_area(self.min, self.max)
    }

    fn to_aabb(self) -> Aabb {
        Aabb::new(self.min.into(), self.max.into())
    }
}

type Bins = [[Bin; MAX_BINS]; 3];

const EMPTY_BINS: Bins = [[Bin::EMPTY; MAX_BINS]; 3];

fn merge_bins(mut a: Bins, b: Bins) -> Bins {
    for (axis_a, axis_b) in a.iter_mut().zip(&b) {
        for (x, y) in axis_a.iter_mut().zip(axis_b) {
            *x = x.union(*y);
        }
    }
    a
}

/// The mapping from centroids to bins for one node.
struct Binning {
    cost: SahCost,
    origin: Vec3A,
    scale: Vec3A,
    count: usize,
    /// Axes along which the centroids spread (binning the others tells nothing).
    usable: [bool; 3],
}

/// The chosen plane: bins below `bin` of `axis` go left.
struct BestSplit {
    axis: usize,
    bin: u32,
    /// The sum of both sides' [`SahCost::side`] costs.
    sides: f32,
    left_count: usize,
    left_bounds: Aabb,
    right_bounds: Aabb,
}

impl Binning {
    fn new(centroids: &CentroidBounds, count: usize, cost: &SahCost) -> Self {
        let extent = centroids.max - centroids.min;
        let usable = [extent.x > 0.0, extent.y > 0.0, extent.z > 0.0];
        let scale = Vec3A::select(
            extent.cmpgt(Vec3A::ZERO),
            Vec3A::splat(count as f32) / extent,
            Vec3A::ZERO,
        );
        Self {
            cost: *cost,
            origin: centroids.min,
            scale,
            count,
            usable,
        }
    }

    /// The bin of a centroid on each axis: `(c - origin) * scale` (from 0 to `count`)
    /// rounded down (up at some exact halves), NaN to the first bin and overflow to the last.
    /// The rounding adds 2^23, so
    /// that the integer is read from the float's bits (ties go to even) without the branches
    /// of a saturating `as` conversion; [`Binning::partition`] reads the bins stored by
    /// [`Binning::bin`], so the two always agree.
    #[inline(always)]
    fn index(&self, c: Vec3A) -> UVec3 {
        const TWO_TO_23: f32 = 8_388_608.0;
        let last = self.count as u32 - 1;
        let v = (((c - self.origin) * self.scale - 0.5).max(Vec3A::ZERO))
            .min(Vec3A::splat(last as f32))
            + TWO_TO_23;
        // The clamps above already bound the bin: `max` answers its second operand (zero)
        // for NaN, and `min` caps overflow at the last bin. A last integer `min` here cost
        // about 5% of the binning's instructions.
        let bits = v.to_array().map(|x| x.to_bits() - TWO_TO_23.to_bits());
        debug_assert!(bits.iter().all(|&b| b <= last));
        UVec3::from_array(bits)
    }

    /// Adds `items` to `bins`, and stores each one's bin on every axis in its `key` (eight
    /// bits an axis), for [`Binning::partition`]. The bins are the caller's: returning a
    /// fresh 4.6 KB array from every call was three copies of it per node.
    ///
    /// The items are taken in chunks of [`BINNING_CHUNK`], the chunks a parallel binning
    /// hands its tasks, so that both merge the same boxes in the same order (a box's
    /// `min` keeps the later of `0.0` and `-0.0`, see `merge_boxes` in `input.rs`).
    ///
    /// Tried not storing the key in nodes above 2^15 primitives, so that binning would only
    /// read them and the partition would compute the bins again: the bunny x16 build got
    /// slower (one thread 489 -> 584 ms, two threads 464 -> 567 ms, best of three rounds).
    fn bin(&self, items: &mut [BuildPrimitive], bins: &mut Bins) {
        for chunk in items.chunks_mut(BINNING_CHUNK) {
            self.bin_chunk(chunk, bins);
        }
    }

    /// [`Binning::bin`] for one chunk. Chunks of [`TWO_BIN_SETS_PRIMITIVES`] or more bin
    /// their even and odd items into two sets of bins, merged at the end: neighbouring
    /// primitives usually fall into the same bins, and with one set each one's `min` and
    /// `max` waited for the store of the one before (bunny x16, one thread, the binary
    /// build 312 -> 296 ms, best of five, alternated three times).
    fn bin_chunk(&self, items: &mut [BuildPrimitive], bins: &mut Bins) {
        if items.len() < TWO_BIN_SETS_PRIMITIVES {
            for p in items {
                self.bin_one(p, bins);
            }
            return;
        }
        let mut odd = EMPTY_BINS;
        let (pairs, last) = items.as_chunks_mut::<2>();
        for [even_item, odd_item] in pairs {
            self.bin_one(even_item, bins);
            self.bin_one(odd_item, &mut odd);
        }
        for p in last {
            self.bin_one(p, bins);
        }
        for (axis, odd_axis) in bins.iter_mut().zip(&odd) {
            for (bin, odd_bin) in axis[..self.count].iter_mut().zip(odd_axis) {
                *bin = bin.union(*odd_bin);
            }
        }
    }

    /// Adds one primitive to `bins` and stores its bins in its `key`.
    #[inline(always)]
    fn bin_one(&self, p: &mut BuildPrimitive, bins: &mut Bins) {
        let (min, max) = (Vec3A::from(p.min), Vec3A::from(p.max));
        let b = self.index(min * 0.5 + max * 0.5);
        p.key = b.x | b.y << 8 | b.z << 16;
        for axis in 0..3 {
            // The mask tells the compiler the index is in range (it always is).
            let bin = &mut bins[axis][b[axis] as usize & (MAX_BINS - 1)];
            bin.min = bin.min.min(min);
            bin.max = bin.max.max(max);
            bin.count += 1;
        }
    }

    /// The plane of least `area_left * count_left + area_right * count_right` over all usable
    /// axes, or `None` if no plane has primitives on both sides with a finite cost.
    fn best_split(&self, bins: &Bins) -> Option<BestSplit> {
        let n = self.count;
        let mut best: Option<(usize, usize, f32)> = None;
        for axis in (0..3).filter(|&a| self.usable[a]) {
            let axis_bins = &bins[axis][..n];
            // Right sweep: cost share of the bins at and above each plane.
            let mut right_cost = [0.0f32; MAX_BINS];
            let mut right = Bin::EMPTY;
            for k in (1..n).rev() {
                right = right.union(axis_bins[k]);
                right_cost[k] = if right.count == 0 {
                    f32::NAN
                } else {
                    self.cost.side(right.area(), right.count as usize)
                };
            }
            let mut left = Bin::EMPTY;
            for k in 1..n {
                left = left.union(axis_bins[k - 1]);
                if left.count == 0 {
                    continue;
                }
                let sides = self.cost.side(left.area(), left.count as usize) + right_cost[k];
                if sides < best.map_or(f32::INFINITY, |b| b.2) {
                    best = Some((axis, k, sides));
                }
            }
        }
        let (axis, k, sides) = best?;
        let left = bins[axis][..k].iter().fold(Bin::EMPTY, |a, b| a.union(*b));
        let right = bins[axis][k..n].iter().fold(Bin::EMPTY, |a, b| a.union(*b));
        Some(BestSplit {
            axis,
            bin: k as u32,
            sides,
            left_count: left.count as usize,
            left_bounds: left.to_aabb(),
            right_bounds: right.to_aabb(),
        })
    }

    /// Moves the primitives left of the plane to the front; returns their count and the
    /// centroid boxes of both sides. Reads the bins [`Binning::bin`] stored, and moves every
    /// primitive without a branch on its side (a branch would be mispredicted half the time):
    /// the sequential build of the bunny subdivided to 1.1M triangles went from 547 to 498 ms.
    /// The move is a swap of whole items: writing back the copy the centroid was read from
    /// stored it field by field, and the next item's 16-byte load across those stores
    /// could not be forwarded (11% of the build's samples on one load; the binary build
    /// 344 -> 312 ms).
    fn partition(
        &self,
        items: &mut [BuildPrimitive],
        split: &BestSplit,
    ) -> (usize, CentroidBounds, CentroidBounds) {
        // Indexed by the item's parity, then by side, right first: one load, min or max and
        // store per corner, where selecting the centroid or an infinity into both sides'
        // boxes took four selects. Two sets for the same reason as in `bin_chunk`.
        let mut sides = [[CentroidBounds::EMPTY; 2]; 2];
        let shift = 8 * split.axis as u32;
        let mut mid = 0;
        for i in 0..items.len() {
            let p = items[i];
            let bin = (p.key >> shift) & 0xff;
            let goes_left = bin < split.bin;
            let c = p.centroid();
            let side = &mut sides[i & 1][usize::from(goes_left)];
            side.min = side.min.min(c);
            side.max = side.max.max(c);
            items.swap(i, mid);
            mid += usize::from(goes_left);
        }
        let [[even_right, even_left], [odd_right, odd_left]] = sides;
        (mid, even_left.union(odd_left), even_right.union(odd_right))
    }
}
