//! The first hits of a ray, capped: what a walk asked for [`crate::All`] hits keeps while it
//! goes (public in this private module, as the kind's [`crate::Query::Found`]).
//!
//! Leaves are reached out of hit order, so a capped walk cannot stop at its `max_hits`-th
//! hit. It keeps the first `max_hits` hits found so far instead, and once it holds that many
//! it shrinks the ray's range to the last of them, inclusively, as a closest-hit walk shrinks
//! it to its best hit: a subtree whose box the ray enters beyond that hit can only hold hits
//! that come later, and an equal-`t` hit with a smaller index still gets in.

use meshcast_primitives::{RayHit, RayRange};

/// At most `max_hits` hits, the first in [`RayHit::order`] of those offered.
pub struct FirstHits<H> {
    hits: Vec<H>,
    max_hits: usize,
}

impl<H: RayHit> FirstHits<H> {
    /// None yet, keeping at most `max_hits` (at least one).
    pub(crate) fn new(max_hits: usize) -> Self {
        debug_assert!(max_hits > 0, "a capped walk keeps at least one hit");
        Self {
            hits: Vec::new(),
            max_hits,
        }
    }

    /// Where a leaf appends its hits, before [`FirstHits::settle`].
    pub(crate) fn hits_mut(&mut self) -> &mut Vec<H> {
        &mut self.hits
    }

    /// The number of hits held.
    pub(crate) fn len(&self) -> usize {
        self.hits.len()
    }

    /// Settles the hits appended since there were `start`, found within `range`: those
    /// outside it are dropped, and only the first `max_hits` of all are kept. Returns the
    /// last hit kept once `max_hits` are held (the walk's new range end), `None` while fewer
    /// are or when nothing was appended (the end has not moved).
    pub(crate) fn settle<R: RayRange<Scalar = H::Scalar>>(
        &mut self,
        start: usize,
        range: &R,
    ) -> Option<H> {
        if self.hits.len() == start {
            return None;
        }
        let mut kept = start;
        for i in start..self.hits.len() {
            if range.contains_t(self.hits[i].t()) {
                self.hits[kept] = self.hits[i];
                kept += 1;
            }
        }
        self.hits.truncate(kept);
        if self.hits.len() < self.max_hits || kept == start {
            return None;
        }
        if self.hits.len() > self.max_hits {
            // The `max_hits`-th hit in order lands at its place, every hit before it comes
            // no later: linear, where a sort of the whole list would not be.
            self.hits
                .select_nth_unstable_by(self.max_hits - 1, |a, b| a.order(b));
            self.hits.truncate(self.max_hits);
            return Some(self.hits[self.max_hits - 1]);
        }
        self.hits.iter().copied().max_by(|a, b| a.order(b))
    }

    /// The hits kept, in [`RayHit::order`].
    pub(crate) fn into_sorted(self) -> Vec<H> {
        let mut hits = self.hits;
        hits.sort_unstable_by(|a, b| a.order(b));
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use meshcast_primitives::{Hit, Ray};

    fn hit(t: f32, triangle: u32) -> Hit {
        Hit::new(t, 0.0, 0.0).with_triangle(triangle)
    }

    #[test]
    fn keeps_the_first_hits_in_order_and_reports_the_last_once_full() {
        let range = Ray::new(Vec3::ZERO, Vec3::X).with_range(0.0, 10.0);
        let mut first = FirstHits::new(3);
        first.hits_mut().extend([hit(5.0, 0), hit(2.0, 1)]);
        assert_eq!(first.settle(0, &range), None, "two of three");
        first.hits_mut().extend([hit(11.0, 2), hit(4.0, 3)]);
        assert_eq!(
            first.settle(2, &range),
            Some(hit(5.0, 0)),
            "the hit beyond the range is dropped"
        );
        assert_eq!(first.len(), 3);
        // A tie at the end: the smaller triangle index comes first and stays.
        first.hits_mut().extend([hit(4.0, 7), hit(4.0, 2)]);
        assert_eq!(first.settle(3, &range), Some(hit(4.0, 3)));
        assert_eq!(first.settle(3, &range), None, "nothing new");
        assert_eq!(first.into_sorted(), [hit(2.0, 1), hit(4.0, 2), hit(4.0, 3)]);
    }

    #[test]
    fn signed_zeros_tie() {
        let range = Ray::new(Vec3::ZERO, Vec3::X).with_range(-1.0, 1.0);
        let mut first = FirstHits::new(1);
        first
            .hits_mut()
            .extend([hit(0.0, 4), hit(-0.0, 3), hit(0.0, 5)]);
        assert_eq!(first.settle(0, &range).map(|h| h.triangle), Some(3));
    }
}
