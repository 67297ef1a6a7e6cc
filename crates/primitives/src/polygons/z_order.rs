//! The corners of a polygon sorted by z-order (Morton) code, for finding those in a box
//! without looking at the others: the spatial index of the ear clipper.

use super::projection::Point;

/// A z-order code.
type Code = u64;

/// Bits per axis of the z-order grid: 2^32 cells a side, finer than an `f32` polygon's
/// corners can be apart, so a code fits a `u64`.
pub(crate) const CELL_BITS: u32 = 32;

/// The last cell along an axis.
const LAST_CELL: u32 = u32::MAX;

/// The bits of the first axis in a code.
const X_BITS: Code = 0x5555_5555_5555_5555;

/// Points sorted by the Morton code of their cell in a 2^32 × 2^32 grid over their bounding
/// box (Morton, 1966), from which points can be removed. A box's points have codes between
/// those of its lower and upper corners; a point in that range but outside the box is
/// followed by a jump to the next code inside it, BIGMIN (Tropf, Herzog, *Multidimensional
/// Range Search in Dynamically Balanced Trees*, 1981), so a large box with few points (the
/// ear of a long spike, say) costs a jump each time the curve leaves it near other points,
/// not a visit to every point of its range (tried: walking the whole range, as earcut does,
/// cost over 50 visits per corner on a 10k-corner star; a 2^16 grid in `u32` codes ran as
/// fast as this one at 1M corners, with 15% more visits).
pub(crate) struct ZOrder {
    /// Origin and scale of the grid.
    min: Point,
    scale: f64,
    /// The points in increasing order of code, and a last entry past the end.
    entries: Vec<Entry>,
    /// The number of the point at each position.
    ids: Vec<u32>,
    /// The position of each point.
    slots: Vec<u32>,
    /// The first position of each run of codes with the same leading bits (all but the
    /// `shift` lowest), and one past the end: where a jump to a code lands before a short
    /// search.
    starts: Vec<u32>,
    shift: u32,
}

/// A point at its position in z-order (what a visit reads, in one cache line or two).
#[derive(Clone, Copy, Debug)]
struct Entry {
    point: Point,
    code: Code,
    /// Itself while the point is there; otherwise a later position, no further than the next
    /// point still there (a union-find forest, compressed on each look-up).
    skip: u32,
}

impl ZOrder {
    /// The index of these (finite) points, numbered in order.
    pub(crate) fn new(points: &[Point]) -> Self {
        let mut min = [f64::INFINITY; 2];
        let mut max = [f64::NEG_INFINITY; 2];
        for p in points {
            for axis in 0..2 {
                min[axis] = min[axis].min(p[axis]);
                max[axis] = max[axis].max(p[axis]);
            }
        }
        let extent = (max[0] - min[0]).max(max[1] - min[1]);
        let scale = f64::from(LAST_CELL) / extent;
        // A zero or subnormal extent: every point in one cell, correct but unhashed.
        let scale = if scale.is_finite() { scale } else { 0.0 };
        let mut index = Self {
            min,
            scale,
            entries: Vec::new(),
            ids: (0..points.len() as u32).collect(),
            slots: vec![0; points.len()],
            starts: Vec::new(),
            shift: 0,
        };
        let codes: Vec<Code> = points.iter().map(|&p| index.code(p)).collect();
        index.ids.sort_unstable_by_key(|&i| codes[i as usize]);
        let n = points.len() as u32;
        index.entries = (0..=n)
            .map(|slot| {
                let id = index.ids.get(slot as usize).map_or(0, |&i| i as usize);
                Entry {
                    point: points[id],
                    code: codes[id],
                    skip: slot,
                }
            })
            .collect();
        for (slot, &id) in (0..).zip(&index.ids) {
            index.slots[id as usize] = slot;
        }
        // About one point a run.
        let leading = points.len().max(2).ilog2();
        index.shift = 2 * CELL_BITS - leading;
        let sorted = &index.entries[..points.len()];
        index.starts = (0..=1u64 << leading)
            .map(|run| {
                let first = u128::from(run) << index.shift;
                sorted.partition_point(|e| u128::from(e.code) < first) as u32
            })
            .collect();
        index
    }

    /// The Morton code of the cell of `p`: monotonic in each coordinate.
    fn code(&self, p: Point) -> Code {
        // `as` saturates: below the first cell is the first, past the last one (rounding) the
        // last, 2^32 - 1.
        let cell = |axis: usize| ((p[axis] - self.min[axis]) * self.scale) as u32;
        spread_bits(cell(0)) | spread_bits(cell(1)) << 1
    }

    /// A length in cells of the grid.
    pub(crate) fn cells(&self, length: f64) -> f64 {
        length * self.scale
    }

    /// Removes point `id`.
    pub(crate) fn remove(&mut self, id: u32) {
        let slot = self.slots[id as usize];
        self.entries[slot as usize].skip = slot + 1;
    }

    /// The first position from `slot` on whose point is still there (or the end).
    fn live(&mut self, slot: usize) -> usize {
        let mut root = slot;
        while self.entries[root].skip as usize != root {
            root = self.entries[root].skip as usize;
        }
        let mut at = slot;
        while at != root {
            let next = self.entries[at].skip as usize;
            self.entries[at].skip = root as u32;
            at = next;
        }
        root
    }

    /// The first point (by number, in z-order) in the closed box `[min, max]` for which
    /// `found` holds, searching from point `near`, which lies in the box. Adds the positions
    /// visited to `work`.
    pub(crate) fn find_in_box(
        &mut self,
        min: Point,
        max: Point,
        near: u32,
        work: &mut usize,
        mut found: impl FnMut(u32) -> bool,
    ) -> Option<u32> {
        let (z_min, z_max) = (self.code(min), self.code(max));
        let inside =
            |p: Point| (min[0]..=max[0]).contains(&p[0]) && (min[1]..=max[1]).contains(&p[1]);
        let mut slot = self.first_from_below(self.slots[near as usize] as usize, z_min);
        let end = self.ids.len();
        loop {
            slot = self.live(slot);
            if slot >= end {
                return None;
            }
            let Entry { point, code, .. } = self.entries[slot];
            if code > z_max {
                return None;
            }
            *work += 1;
            if inside(point) {
                let id = self.ids[slot];
                if found(id) {
                    return Some(id);
                }
                slot += 1;
            } else if in_cell_box(code, z_min, z_max) {
                // Outside the box but in one of its cells.
                slot += 1;
            } else {
                slot = self.first_at_least(slot, bigmin(code, z_min, z_max));
            }
        }
    }

    /// The first position at or before `slot` from which every code is at least `z`, for a
    /// `slot` whose code is, by galloping search downwards (close by in memory, where a
    /// binary search over every code would miss the caches).
    fn first_from_below(&self, slot: usize, z: Code) -> usize {
        let (mut high, mut step) = (slot, 1);
        while high >= step && self.entries[high - step].code >= z {
            high -= step;
            step *= 2;
        }
        let low = high.saturating_sub(step);
        low + self.entries[low..high].partition_point(|e| e.code < z)
    }

    /// The first position after `slot` whose code is at least `z` (greater than the code at
    /// `slot`): from the start of the run of `z`, or right after `slot` if later.
    fn first_at_least(&self, slot: usize, z: Code) -> usize {
        let run = (z >> self.shift) as usize;
        let low = (self.starts[run] as usize).max(slot + 1);
        let high = (self.starts[run + 1] as usize).max(low);
        low + self.entries[low..high].partition_point(|e| e.code < z)
    }
}

/// The bits of a 32-bit number spread to the even bit positions.
fn spread_bits(x: u32) -> Code {
    let x = Code::from(x);
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    let x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    let x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & X_BITS
}

/// Whether the cell with code `z` lies in the box of cells from `z_min` to `z_max`.
fn in_cell_box(z: Code, z_min: Code, z_max: Code) -> bool {
    let within = |mask: Code| (z_min & mask) <= (z & mask) && (z & mask) <= (z_max & mask);
    within(X_BITS) && within(!X_BITS)
}

/// The smallest code greater than `z` in the box of cells from `z_min` to `z_max`, for a `z`
/// between the two but outside the box (BIGMIN, Tropf and Herzog 1981): walks the bits from
/// the top, narrowing the box to the half that can hold the answer.
fn bigmin(z: Code, mut z_min: Code, mut z_max: Code) -> Code {
    let mut best = z_max;
    // Above the highest bit where the box's corners differ, all three codes agree.
    let top = Code::BITS - 1 - (z_min ^ z_max).leading_zeros().min(Code::BITS - 1);
    for bit in (0..=top).rev() {
        let mask: Code = 1 << bit;
        // This bit and the lower bits of the same axis.
        let axis_below = (X_BITS << (bit & 1)) & (mask | (mask - 1));
        // The lower bits of the same axis set to 0 ("1000..") or to 1 ("0111..").
        let ones_from = |v: Code| (v & !axis_below) | mask;
        let zeros_from = |v: Code| (v & !axis_below) | (axis_below & !mask);
        match (z & mask != 0, z_min & mask != 0, z_max & mask != 0) {
            (false, false, true) => {
                best = ones_from(z_min);
                z_max = zeros_from(z_max);
            }
            (false, true, true) => return z_min,
            (true, false, false) => return best,
            (true, false, true) => z_min = ones_from(z_min),
            // Equal bits go on; z_min above z_max cannot happen.
            _ => {}
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interleave(x: u32, y: u32) -> Code {
        spread_bits(x) | spread_bits(y) << 1
    }

    #[test]
    fn codes_interleave_the_cells() {
        assert_eq!(spread_bits(u32::MAX), X_BITS);
        assert_eq!(spread_bits(0b1011), 0b100_0101);
        let index = ZOrder::new(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
        assert_eq!(index.code([0.0, 0.0]), 0);
        assert_eq!(index.code([1.0, 1.0]), Code::MAX);
        assert_eq!(index.code([1.0, 0.0]), X_BITS);
        // Past the box (rounding, or a caller's bug): the nearest cell, never a wrap.
        assert_eq!(index.code([-1.0, 2.0]), !X_BITS);
    }

    /// BIGMIN against a scan of every code, on every box of a 16 × 16 corner of the grid
    /// (and shifted far from the origin, where the high bits are set).
    #[test]
    fn bigmin_is_the_next_code_in_the_box() {
        for offset in [0, 0x7ff0, u32::MAX - 15] {
            for (x0, y0, x1, y1) in
                (0..256).flat_map(|i| (0..256).map(move |j| (i % 16, i / 16, j % 16, j / 16)))
            {
                if x0 > x1 || y0 > y1 {
                    continue;
                }
                let [x0, y0, x1, y1] = [x0, y0, x1, y1].map(|c| c + offset);
                let (z_min, z_max) = (interleave(x0, y0), interleave(x1, y1));
                let in_box = |z: Code| in_cell_box(z, z_min, z_max);
                for z in z_min..z_max {
                    if in_box(z) {
                        continue;
                    }
                    let expected = (z + 1..=z_max).find(|&c| in_box(c));
                    assert_eq!(
                        Some(bigmin(z, z_min, z_max)),
                        expected,
                        "{z:#x} in {z_min:#x}..{z_max:#x}"
                    );
                }
            }
        }
    }

    fn inside(p: Point, min: Point, max: Point) -> bool {
        (min[0]..=max[0]).contains(&p[0]) && (min[1]..=max[1]).contains(&p[1])
    }

    #[test]
    fn boxes_find_their_points_and_no_removed_one() {
        let points: Vec<Point> = (0..400)
            .map(|i| [f64::from(i % 20), f64::from(i / 20) * 0.5])
            .collect();
        let mut index = ZOrder::new(&points);
        for id in (0..400).step_by(3) {
            index.remove(id);
        }
        let mut work = 0;
        for (min, max) in [
            ([2.0, 1.0], [9.0, 3.5]),
            ([0.0, 0.0], [19.0, 9.5]),
            ([4.5, 2.2], [6.2, 2.6]),
            ([7.0, 0.0], [7.0, 9.5]),
        ] {
            let mut seen = Vec::new();
            // A point there, as the ear clipper always has one: the ear's own corner.
            let near = (0..400u32)
                .find(|&id| id % 3 != 0 && inside(points[id as usize], min, max))
                .expect("a point in the box");
            index.find_in_box(min, max, near, &mut work, |id| {
                seen.push(id);
                false
            });
            seen.sort_unstable();
            let expected: Vec<u32> = (0..400u32)
                .filter(|&id| id % 3 != 0 && inside(points[id as usize], min, max))
                .collect();
            assert_eq!(seen, expected, "{min:?} {max:?}");
        }
    }
}
