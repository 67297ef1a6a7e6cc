//! Finding packets in a batch: [`PacketFinder`] reads a batch chunk after chunk of
//! [`PACKET_WIDTH`] rays, asks which rays of a chunk are coherent enough to walk a hierarchy
//! together ([`coherent`], `coherence.rs`), whether two whole chunks walk as one packet of
//! sixteen ([`PacketFinder::find_pair`]), and keeps the rays of the packets it found lane by
//! lane. After chunks of random rays it passes over the next ones without a look, so that
//! incoherent batches pay next to nothing for the search.
//!
//! [`coherent`]: crate::batches::coherence::coherent

use meshcast_primitives::{Portable, Ray, RayPacket, ALL_LANES, PACKET_WIDTH};

use crate::batches::coherence::{coherent, near, near_lanes, PacketLanes, PacketSpan, RayClass};

/// Looks for packets in a batch, chunk after chunk ([`coherent`]), and keeps the rays of the
/// last chunk that held any lane by lane ([`PacketFinder::rays`]).
///
/// Random rays rarely hold a packet, and a batch of them should cost what its rays cost one
/// by one. So after a chunk whose neighbours share no class the finder passes over the next
/// chunks without a look, one after the first such chunk, then two, four, up to
/// [`MAX_SKIPPED_CHUNKS`], and looks at every chunk again once one holds a packet. Which rays
/// walk together changes only the time taken: every ray's answer is its single-ray answer.
#[derive(Debug)]
pub(crate) struct PacketFinder {
    /// The rays of the last chunk that held a packet, or of the last pair of chunks that
    /// made one ([`PacketFinder::find_pair`]).
    rays: [RayPacket; 2],
    /// The chunks to pass over after the next miss.
    backoff: u32,
    /// The chunks still to pass over.
    skipping: u32,
    /// How wide a packet may be at the mesh, if the level says.
    span: Option<PacketSpan>,
    /// Whether the chunks are rows of a camera image's tiles, whose rays between a chunk's
    /// ends are taken on trust.
    image: bool,
}

/// The most chunks a [`PacketFinder`] passes over after chunks of random rays.
pub(crate) const MAX_SKIPPED_CHUNKS: u32 = 16;

impl PacketFinder {
    /// A finder for a batch through a level whose packets may be `span` wide
    /// ([`PacketSpan`]; `None` for levels bounded by their rays' cone alone).
    pub(crate) fn new(span: Option<PacketSpan>) -> Self {
        Self {
            rays: [RayPacket::default(); 2],
            backoff: 1,
            skipping: 0,
            span,
            image: false,
        }
    }

    /// The finder for the tiles of a camera image, whose chunks' ends are enough to look at.
    pub(crate) fn image(span: Option<PacketSpan>) -> Self {
        Self {
            image: true,
            ..Self::new(span)
        }
    }

    /// The packets among `rays` in `lanes` and the rays that walk alone ([`coherent`]).
    #[inline(always)]
    pub(crate) fn find(&mut self, rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (PacketLanes, u32) {
        if self.skipping > 0 {
            self.skipping -= 1;
            return (PacketLanes::new(), lanes);
        }
        self.look(rays, lanes)
    }

    /// How many chunks the finder would pass over next, which the caller walks alone: the
    /// finder then looks at the chunk after them.
    #[inline(always)]
    pub(crate) fn take_passed_over(&mut self) -> usize {
        core::mem::take(&mut self.skipping) as usize
    }

    /// [`PacketFinder::find`] of a chunk not passed over, out of line: the check for a chunk
    /// to pass over is all that random rays pay for most chunks.
    #[inline(never)]
    fn look(&mut self, rays: &[Ray; PACKET_WIDTH], lanes: u32) -> (PacketLanes, u32) {
        let (packets, alone) = coherent(
            rays,
            lanes,
            &mut self.rays[0],
            self.span.as_ref(),
            self.image,
        );
        if packets.is_empty() {
            self.skipping = self.backoff;
            self.backoff = (2 * self.backoff).min(MAX_SKIPPED_CHUNKS);
        } else {
            self.backoff = 1;
        }
        (packets, alone)
    }

    /// Whether two neighbouring whole chunks, `front` then `back`, make one packet of
    /// sixteen rays: whether every ray shares the [`RayClass`] of the first ray of `front`
    /// and lies within its cone, spread and span (in an image's tiles, the last ray of `back`
    /// only, the rays between taken on trust as [`coherent`] takes a whole chunk's). If so
    /// the finder keeps their rays ([`PacketFinder::pair`]); if not it has looked at neither
    /// chunk.
    #[inline(always)]
    pub(crate) fn find_pair(
        &mut self,
        front: &[Ray; PACKET_WIDTH],
        back: &[Ray; PACKET_WIDTH],
    ) -> bool {
        let (first, last) = (&front[0], &back[PACKET_WIDTH - 1]);
        let span = self.span.as_ref();
        if self.skipping > 0
            || RayClass::of(first) != RayClass::of(last)
            || !near(first, last, span)
        {
            return false;
        }
        // Made in place: a failed pair leaves them to be overwritten.
        self.rays = [RayPacket::new(front), RayPacket::new(back)];
        if !self.image
            && !self.rays.iter().all(|packet| {
                packet.classes(Portable).like(0) == ALL_LANES
                    && near_lanes(packet, first, span) == ALL_LANES
            })
        {
            return false;
        }
        self.backoff = 1;
        true
    }

    /// The rays of the chunk [`PacketFinder::find`] last found packets in, lane by lane.
    #[inline]
    pub(crate) fn rays(&self) -> &RayPacket {
        &self.rays[0]
    }

    /// The rays of the pair of chunks [`PacketFinder::find_pair`] last took, lane by lane.
    #[inline]
    pub(crate) fn pair(&self) -> [&RayPacket; 2] {
        [&self.rays[0], &self.rays[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn rays(dirs: [Vec3; PACKET_WIDTH]) -> [Ray; PACKET_WIDTH] {
        dirs.map(|dir| Ray::new(Vec3::ZERO, dir))
    }

    #[test]
    fn the_finder_looks_at_fewer_chunks_of_random_rays_and_at_every_coherent_one() {
        let coherent_rays = rays(core::array::from_fn(|i| {
            Vec3::new(0.01 * i as f32, 0.02, -1.0)
        }));
        let mut random_dirs = [Vec3::new(0.1, 0.2, -1.0); PACKET_WIDTH];
        random_dirs[1].x = -0.1;
        random_dirs[PACKET_WIDTH - 1].z = 1.0;
        let random_rays = rays(random_dirs);
        let mut finder = PacketFinder::new(None);
        // Misses: chunk 0 is looked at, 1 passed over, 2 looked at, 3 and 4 passed over, ...
        let looked: Vec<bool> = (0..80)
            .map(|_| {
                let skipping = finder.skipping > 0;
                finder.find(&random_rays, 0xff);
                !skipping
            })
            .collect();
        let looked_at: Vec<usize> = (0..80).filter(|&i| looked[i]).collect();
        assert_eq!(looked_at[..6], [0, 2, 5, 10, 19, 36]);
        assert_eq!(looked_at[6] - looked_at[5], MAX_SKIPPED_CHUNKS as usize + 1);
        // Passed-over chunks walk alone; once a coherent chunk is looked at, every chunk is.
        while finder.skipping > 0 {
            assert!(finder.find(&coherent_rays, 0xff).0.is_empty());
        }
        for _ in 0..3 {
            assert_eq!(finder.find(&coherent_rays, 0xff).0.as_slice(), [0xff]);
            assert_eq!(finder.rays(), &RayPacket::new(&coherent_rays));
        }
        finder.find(&random_rays, 0xff);
        assert_eq!(finder.skipping, 1, "the back-off starts over");
    }

    #[test]
    fn two_chunks_whose_outer_ends_agree_are_one_packet() {
        let row = |first: usize| {
            rays(core::array::from_fn(|i| {
                Vec3::new(0.005 * (first + i) as f32, 0.02, -1.0)
            }))
        };
        let (front, back) = (row(0), row(PACKET_WIDTH));
        let mut finder = PacketFinder::image(None);
        assert!(finder.find_pair(&front, &back));
        assert_eq!(
            finder.pair(),
            [&RayPacket::new(&front), &RayPacket::new(&back)]
        );
        // In an image's tiles the rays between the ends are taken on trust; elsewhere each is
        // checked.
        let mut odd = back;
        odd[2].dir = Vec3::X;
        assert!(finder.find_pair(&front, &odd));
        let mut batch = PacketFinder::new(None);
        assert!(batch.find_pair(&front, &back));
        assert!(!batch.find_pair(&front, &odd));
        // Ends of other classes, or too far apart, are not one packet.
        let mut turned = back;
        turned[PACKET_WIDTH - 1].dir.z = 1.0;
        assert!(!finder.find_pair(&front, &turned));
        let mut wide = back;
        wide[PACKET_WIDTH - 1].dir.x = 0.3;
        assert!(!finder.find_pair(&front, &wide));
        // A finder passing over chunks of random rays does not look at pairs either.
        finder.skipping = 1;
        assert!(!finder.find_pair(&front, &back));
    }
}
