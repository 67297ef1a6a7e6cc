//! Ear clipping of a counter-clockwise polygon in `O(n log n)` typical time, with a bound on
//! the work hostile input can cause: the corners form a ring, a z-order index finds those
//! near a candidate ear, and a queue by size holds the corners that may have become ears.

use std::collections::BinaryHeap;

use super::projection::{orient, Point};
use super::z_order::{ZOrder, CELL_BITS};

/// No corner: the end of a list, or the neighbour of a clipped corner.
const NONE: u32 = u32::MAX;

/// Work allowed per corner (a corner taken from the queue, a corner visited by an ear test,
/// or a corner scanned when no ear is left, each counts one) before the search for ears gives
/// up. The stars of `benches/triangulation.rs` need about 12 per corner at 10k corners and 23
/// at 1M, its spirals about 6.
const WORK_PER_CORNER: usize = 64;

/// Work allowed on top of [`WORK_PER_CORNER`], so that small polygons always get the full
/// search (the original `O(n²)` one would need `n²` at most).
const WORK_ALLOWANCE: usize = 1 << 16;

/// A corner of the polygon: its point and its neighbours along the ring ([`NONE`] once
/// clipped).
#[derive(Clone, Copy, Debug)]
struct Corner {
    point: Point,
    prev: u32,
    next: u32,
}

/// The corners not yet clipped, in a ring and in z-order, and those that may be ears.
struct Ring {
    corners: Vec<Corner>,
    len: usize,
    z_order: ZOrder,
    /// Convex corners to test, smallest triangle first.
    queue: SizeQueue,
    /// How many times each corner was queued: only its last place in the queue counts.
    stamps: Vec<u32>,
    /// For each corner, the first of the corners whose triangle it was found in (an index
    /// into `waits`), to test again once it is clipped.
    blocked: Vec<u32>,
    /// Lists of blocked corners: the corner, and the next entry of the list.
    waits: Vec<(u32, u32)>,
}

/// Triangulates the counter-clockwise polygon with these (finite) points by ear clipping:
/// `n - 2` triangles of indices into `points`, for any `n >= 3`.
///
/// An ear is a convex corner whose triangle holds no other corner (Meisters 1975; Eberly
/// 2002). Every convex corner is queued once, and again only when it may have become an ear:
/// when a neighbour is clipped (which changes its triangle), or when the corner found in its
/// triangle is (the ear list of Held's FIST, 2001). The queue gives the corner with the
/// smallest triangle first, so the polygon is eaten in small ears everywhere at once, rather
/// than by a fan of long triangles from one corner (which the original clipper made of a
/// star: each one's box then holds a large part of the polygon). The corners in an ear's
/// bounding box are found by z-order hashing, as in Mapbox's earcut (Agafonkin, 2016), here
/// with BIGMIN jumps ([`ZOrder`]).
///
/// When no corner may be an ear (a self-intersecting polygon, or collinear corners on every
/// diagonal), the fallbacks of the original clipper apply: every collinear corner is cut off
/// (a zero-area triangle), or else the first convex corner, or else any corner. Once the
/// work exceeds [`WORK_PER_CORNER`] per corner, the rest is cut by
/// [`Ring::clip_convex_corners`], in linear time. Earcut's own last resorts (curing local
/// intersections, splitting the polygon in two) can cost `O(n²)` and more, and are not here.
pub(crate) fn clip_ears(points: &[Point]) -> Vec<[u32; 3]> {
    let budget = points
        .len()
        .saturating_mul(WORK_PER_CORNER)
        .saturating_add(WORK_ALLOWANCE);
    clip_ears_within(points, budget).0
}

/// [`clip_ears`] searching for ears until `budget` units of work are spent; also returns the
/// work done.
fn clip_ears_within(points: &[Point], budget: usize) -> (Vec<[u32; 3]>, usize) {
    let n = points.len();
    debug_assert!(n >= 3 && u32::try_from(n).is_ok_and(|n| n < NONE));
    let mut ring = Ring::new(points);
    let mut triangles = Vec::with_capacity(n - 2);
    let mut work = 0usize;
    // A corner not clipped.
    let mut at = 0u32;
    while ring.len > 3 {
        work += 1;
        if work > budget {
            at = ring.clip_convex_corners(at, &mut triangles);
            break;
        }
        let Some(b) = ring.pop() else {
            // No ear left.
            work += 2 * ring.len;
            at = match ring.clip_collinear_corners(at, &mut triangles) {
                Some(at) => at,
                None => {
                    let convex = ring.find(at, |turn| turn > 0.0);
                    ring.clip(convex.unwrap_or(at), &mut triangles)
                }
            };
            continue;
        };
        if ring.turn(b) > 0.0 {
            match ring.blocker(b, &mut work) {
                None => at = ring.clip(b, &mut triangles),
                Some(q) => ring.wait(b, q),
            }
        }
    }
    triangles.push(ring.last_triangle(at));
    (triangles, work)
}

impl Ring {
    fn new(points: &[Point]) -> Self {
        let n = points.len() as u32;
        let corners = (0..n)
            .zip(points)
            .map(|(i, &point)| Corner {
                point,
                prev: if i == 0 { n - 1 } else { i - 1 },
                next: if i == n - 1 { 0 } else { i + 1 },
            })
            .collect();
        let mut ring = Self {
            corners,
            len: points.len(),
            z_order: ZOrder::new(points),
            queue: SizeQueue::new(points.len()),
            stamps: vec![0; points.len()],
            blocked: vec![NONE; points.len()],
            waits: Vec::new(),
        };
        // In reverse, so that among triangles of a size the first corner comes first.
        for i in (0..n).rev() {
            ring.push(i);
        }
        ring
    }

    #[inline]
    fn point(&self, i: u32) -> Point {
        self.corners[i as usize].point
    }

    /// The corner `i` with its neighbours: `(prev, i, next)`.
    #[inline]
    fn corner(&self, i: u32) -> [u32; 3] {
        let c = &self.corners[i as usize];
        [c.prev, i, c.next]
    }

    /// Twice the signed area of the corner's triangle: positive where the ring turns left.
    #[inline]
    fn turn(&self, i: u32) -> f64 {
        let [a, b, c] = self.corner(i).map(|k| self.point(k));
        orient(a, b, c)
    }

    /// Queues corner `i` (again) if it is convex (and not clipped), by the size of its
    /// triangle's bounding box.
    fn push(&mut self, i: u32) {
        if self.corners[i as usize].next == NONE {
            return;
        }
        let stamp = &mut self.stamps[i as usize];
        *stamp = stamp.wrapping_add(1);
        let stamp = *stamp;
        let [a, b, c] = self.corner(i).map(|k| self.point(k));
        if orient(a, b, c) > 0.0 {
            let size = [0, 1]
                .map(|axis| a[axis].max(b[axis]).max(c[axis]) - a[axis].min(b[axis]).min(c[axis]));
            let cells = self.z_order.cells(size[0] + size[1]);
            self.queue.push(cells, (i, stamp));
        }
    }

    /// The next corner to test: one of those with the smallest triangles, not clipped.
    fn pop(&mut self) -> Option<u32> {
        while let Some((i, stamp)) = self.queue.pop() {
            if stamp == self.stamps[i as usize] && self.corners[i as usize].next != NONE {
                return Some(i);
            }
        }
        None
    }

    /// Notes that corner `b` is no ear while corner `q` lies in its triangle.
    fn wait(&mut self, b: u32, q: u32) {
        let head = self.blocked[q as usize];
        self.blocked[q as usize] = self.waits.len() as u32;
        self.waits.push((b, head));
    }

    /// A corner inside or on the triangle of corner `b`, not at the same place as one of its
    /// three corners (the original clipper's test), looking only at the corners in the
    /// triangle's bounding box. Adds the corners visited to `work`.
    fn blocker(&mut self, b: u32, work: &mut usize) -> Option<u32> {
        let [a, _, c] = self.corner(b);
        let [pa, pb, pc] = [a, b, c].map(|k| self.point(k));
        let min = [0, 1].map(|axis| pa[axis].min(pb[axis]).min(pc[axis]));
        let max = [0, 1].map(|axis| pa[axis].max(pb[axis]).max(pc[axis]));
        let corners = &self.corners;
        let blocks = |q: u32| {
            let p = corners[q as usize].point;
            q != a
                && q != b
                && q != c
                && p != pa
                && p != pb
                && p != pc
                && orient(pa, pb, p) >= 0.0
                && orient(pb, pc, p) >= 0.0
                && orient(pc, pa, p) >= 0.0
        };
        self.z_order.find_in_box(min, max, b, work, blocks)
    }

    /// Cuts off corner `b` as the triangle `(prev, b, next)`, and queues the corners that may
    /// have become ears: its neighbours and those it blocked. Returns `prev`.
    fn clip(&mut self, b: u32, triangles: &mut Vec<[u32; 3]>) -> u32 {
        let Corner { prev, next, .. } = self.corners[b as usize];
        triangles.push([prev, b, next]);
        self.corners[prev as usize].next = next;
        self.corners[next as usize].prev = prev;
        self.corners[b as usize].prev = NONE;
        self.corners[b as usize].next = NONE;
        self.z_order.remove(b);
        self.len -= 1;
        self.push(prev);
        self.push(next);
        let mut entry = std::mem::replace(&mut self.blocked[b as usize], NONE);
        while entry != NONE {
            let (waiting, rest) = self.waits[entry as usize];
            self.push(waiting);
            entry = rest;
        }
        prev
    }

    /// The first corner from `start` on, once around, whose turn passes `test`.
    fn find(&self, start: u32, test: impl Fn(f64) -> bool) -> Option<u32> {
        let mut i = start;
        for _ in 0..self.len {
            if test(self.turn(i)) {
                return Some(i);
            }
            i = self.corners[i as usize].next;
        }
        None
    }

    /// Cuts off every corner with a zero turn (a zero-area triangle: a corner in the middle
    /// of a straight run, or the tip of a zero-width spike), once around from `start`,
    /// looking again at the corner before each one cut. Returns a corner left, or `None` if
    /// there was no such corner.
    fn clip_collinear_corners(&mut self, start: u32, triangles: &mut Vec<[u32; 3]>) -> Option<u32> {
        let mut clipped = false;
        let mut i = start;
        let mut steps = self.len;
        while steps > 0 && self.len > 3 {
            if self.turn(i) == 0.0 {
                i = self.clip(i, triangles);
                clipped = true;
            } else {
                i = self.corners[i as usize].next;
                steps -= 1;
            }
        }
        clipped.then_some(i)
    }

    /// Cuts the ring down to three corners without testing ears, in linear time: convex (or
    /// collinear) corners from `start` on, and once two turns of the ring have passed without
    /// one, whatever corner is at hand. Returns a corner of the three left.
    fn clip_convex_corners(&mut self, start: u32, triangles: &mut Vec<[u32; 3]>) -> u32 {
        let mut i = start;
        let mut passes = 2 * self.len;
        while self.len > 3 {
            if passes > 0 && self.turn(i) < 0.0 {
                i = self.corners[i as usize].next;
                passes -= 1;
            } else {
                i = self.clip(i, triangles);
            }
        }
        i
    }

    /// The triangle of the last three corners, from the one that comes first in the polygon.
    fn last_triangle(&self, any: u32) -> [u32; 3] {
        let [a, b, c] = self.corner(any);
        if a < b && a < c {
            [a, b, c]
        } else if b < c {
            [b, c, a]
        } else {
            [c, a, b]
        }
    }
}

/// A priority queue of corners (with their stamps) by the size of their triangles, in
/// buckets a quarter of a binary order of magnitude wide, the last one queued first within a
/// bucket: a bucket queue (Dial, 1969), constant time per corner where a binary heap's
/// cache misses cost half of the triangulation's time at 1M corners. A small polygon keeps
/// the same order in a binary heap, where setting up the buckets cost more than the rest of
/// its triangulation (1.2 µs, 14 times the original clipper's time, for a concave pentagon).
struct SizeQueue {
    /// For a small polygon: how far the bucket is from the last, the number of the push, and
    /// the entry (the largest first).
    heap: BinaryHeap<(u8, u32, (u32, u32))>,
    pushes: u32,
    /// For a large polygon: the buckets, smallest sizes first.
    buckets: Vec<Vec<(u32, u32)>>,
    /// No bucket below this one holds a corner.
    lowest: usize,
}

impl SizeQueue {
    /// Sizes (in cells of the z-order grid) in the 64 octaves below twice the grid's width
    /// get buckets of their own; smaller ones share the first.
    const BUCKETS: usize = 256;

    /// Polygons with fewer corners use the heap.
    const SMALL: usize = 4096;

    fn new(corners: usize) -> Self {
        let mut buckets = Vec::new();
        if corners >= Self::SMALL {
            buckets.resize_with(Self::BUCKETS, Vec::new);
        }
        Self {
            heap: BinaryHeap::new(),
            pushes: 0,
            buckets,
            lowest: Self::BUCKETS,
        }
    }

    fn push(&mut self, size: f64, entry: (u32, u32)) {
        const LOWEST_OCTAVE: i64 = CELL_BITS as i64 + 1 - 64;
        // The exponent and the two leading bits of the mantissa.
        let quarter_octaves = (size.to_bits() >> 50) as i64 - ((1023 + LOWEST_OCTAVE) << 2);
        let bucket = quarter_octaves.clamp(0, Self::BUCKETS as i64 - 1) as usize;
        if self.buckets.is_empty() {
            let from_last = (Self::BUCKETS - 1 - bucket) as u8;
            self.heap.push((from_last, self.pushes, entry));
            self.pushes = self.pushes.wrapping_add(1);
        } else {
            self.buckets[bucket].push(entry);
            self.lowest = self.lowest.min(bucket);
        }
    }

    fn pop(&mut self) -> Option<(u32, u32)> {
        if self.buckets.is_empty() {
            return self.heap.pop().map(|(_, _, entry)| entry);
        }
        while self.lowest < self.buckets.len() {
            if let Some(entry) = self.buckets[self.lowest].pop() {
                return Some(entry);
            }
            self.lowest += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn star(n: usize, winds: f64) -> Vec<Point> {
        (0..n)
            .map(|i| {
                let angle = i as f64 / n as f64 * winds * core::f64::consts::TAU;
                let radius = if winds == 1.0 && i % 2 == 1 { 0.5 } else { 1.0 };
                [radius * angle.cos(), radius * angle.sin()]
            })
            .collect()
    }

    fn valid(n: usize, triangles: &[[u32; 3]]) -> bool {
        triangles.len() == n - 2 && triangles.iter().flatten().all(|&i| (i as usize) < n)
    }

    /// The same star, in full and with no budget: clipped at convex corners, untested.
    #[test]
    fn the_budget_bounds_the_search() {
        let points = star(2000, 1.0);
        let (triangles, work) = clip_ears_within(&points, usize::MAX);
        assert!(valid(2000, &triangles));
        assert!(work < 20 * 2000, "{work}");
        let (untested, work) = clip_ears_within(&points, 0);
        assert!(valid(2000, &untested));
        assert_eq!(work, 1);
        assert_ne!(untested, triangles);
    }

    /// A polygon winding 500 times around: no ears, so the fallbacks run until the budget is
    /// spent.
    #[test]
    fn a_polygon_without_ears_spends_the_budget() {
        let n = 10_001;
        let points = star(n, 500.0);
        let budget = n * WORK_PER_CORNER + WORK_ALLOWANCE;
        let (triangles, work) = clip_ears_within(&points, budget);
        assert!(valid(n, &triangles));
        // Over by at most the step that crossed it: a scan of the ring, or one ear test.
        assert!(work > budget && work <= budget + 2 * n + 1, "{work}");
    }

    /// The heap of small polygons pops corners in the order of the buckets of large ones.
    #[test]
    fn both_queues_give_the_same_order() {
        let mut small = SizeQueue::new(3);
        let mut large = SizeQueue::new(SizeQueue::SMALL);
        let mut popped = [Vec::new(), Vec::new()];
        let mut size = 1.0f64;
        for i in 0..2000u32 {
            // Sizes over many orders of magnitude, with repeats.
            size = (size * 1.37).rem_euclid(1e12) + f64::from(i % 7);
            for (queue, popped) in [&mut small, &mut large].into_iter().zip(&mut popped) {
                queue.push(size, (i, i % 3));
                if i % 5 == 0 {
                    popped.push(queue.pop());
                }
            }
        }
        assert_eq!(popped[0], popped[1]);
        let drain = |queue: &mut SizeQueue| std::iter::from_fn(|| queue.pop()).collect::<Vec<_>>();
        assert_eq!(drain(&mut small), drain(&mut large));
    }
}
