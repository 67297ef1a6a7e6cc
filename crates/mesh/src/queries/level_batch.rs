//! A batch of `f32` rays traced as packets: [`LevelBatch`], a level asked one kind of query
//! (closest hit, or whether anything is hit) under one set of options, hands the batch
//! driver ([`parallel_batch`]) one task ([`LevelBatch::task`]) that reads its rays sixteen at
//! a time, camera images in square tiles, and walks the packets the batches room's finder
//! finds through the level's packet walk ([`PacketWalks::walk_packets`]), the rest ray by
//! ray. The road of a packet is one frame per tier: the driver's task, the sixteen rays
//! ([`LevelBatch::trace_sixteen`]), the level, its leaves, the tree, the SIMD dispatch and
//! the kernel's loop.

use core::marker::PhantomData;

use meshcast_primitives::{prefetch, Ray, RayPacket, ALL_LANES, PACKET_WIDTH};

use crate::batches::{
    for_each_lane, parallel_batch, serial_batch_in_order, BatchTask, PacketFinder, TILE_SIDE,
};
use crate::queries::batch_queries::walk_limited;
use crate::queries::{Filter, PacketKind, PacketWalks, QueryOptions};

/// What fills the lanes of a packet that hold no ray.
const PLACEHOLDER_RAY: Ray = Ray::new(glam::Vec3::ZERO, glam::Vec3::X);

/// The rays of two neighbouring chunks, which may walk as one packet
/// ([`PacketFinder::find_pair`]).
const PAIR_WIDTH: usize = 2 * PACKET_WIDTH;

/// The two halves of a pair of chunks.
#[inline(always)]
fn halves(pair: &[Ray; PAIR_WIDTH]) -> (&[Ray; PACKET_WIDTH], &[Ray; PACKET_WIDTH]) {
    let (front, back) = pair.split_at(PACKET_WIDTH);
    (
        front.try_into().expect("half a pair"),
        back.try_into().expect("half a pair"),
    )
}

/// `level` asked `kind` under `options`, its answers of hits `H`, its filter asked about
/// candidates `C`: what each task of a batch that walks packets traces.
struct LevelBatch<'a, L: ?Sized, H, C, F, Q> {
    level: &'a L,
    options: &'a QueryOptions<F>,
    kind: Q,
    walks: PhantomData<fn() -> (H, C)>,
}

/// What one task keeps from chunk to chunk: the finder of its packets, whether two whole
/// chunks may walk as a pair, and the packet its rays are cut into.
struct TaskPackets {
    finder: PacketFinder,
    pairs: bool,
    scratch: [Ray; PACKET_WIDTH],
}

impl<'a, L, H, C, F, Q> LevelBatch<'a, L, H, C, F, Q>
where
    L: PacketWalks<H, C> + ?Sized,
    F: Filter<C>,
    Q: PacketKind,
    Q::Answer<H>: Copy + Default,
{
    #[inline(always)]
    fn new(level: &'a L, options: &'a QueryOptions<F>, kind: Q) -> Self {
        Self {
            level,
            options,
            kind,
            walks: PhantomData,
        }
    }

    /// One task of the batch driver: the rays and their `answers` sixteen at a time
    /// ([`LevelBatch::trace_sixteen`]). A camera image in row-major order, `width` rays to a
    /// row (found by the driver), is read in square tiles of [`TILE_SIDE`] rows and columns,
    /// its top two rows one chunk and its bottom two the other, as Embree's users trace
    /// images; other batches in order. The chunks the finder passes over walk ray by ray.
    /// Answers land in the rays' order whatever the order of the walks.
    #[inline(always)]
    fn task(self) -> impl BatchTask<Ray, Q::Answer<H>> + 'a
    where
        H: 'a,
        C: 'a,
        Q: 'a,
    {
        move |rays: &[Ray], answers: &mut [Q::Answer<H>], width: Option<usize>| {
            let span = self.level.packet_span();
            let mut task = TaskPackets {
                finder: match width {
                    Some(_) => PacketFinder::image(span),
                    None => PacketFinder::new(span),
                },
                // Pairs are read where they lie: their rays need no distance limit applied.
                pairs: span.is_some() && !self.options.limits_distance(),
                scratch: [PLACEHOLDER_RAY; PACKET_WIDTH],
            };
            let mut start = 0;
            if let Some(width) = width {
                // Each band of TILE_SIDE rows: its square tiles, gathered row by row and their
                // answers put back, then the rays left at the band's right end a row at a time.
                let mut tile_rays = [PLACEHOLDER_RAY; PAIR_WIDTH];
                let mut tile_answers = [Q::Answer::<H>::default(); PAIR_WIDTH];
                let whole = width / TILE_SIDE * TILE_SIDE;
                let band = TILE_SIDE * width;
                for (rays, answers) in rays.chunks_exact(band).zip(answers.chunks_mut(band)) {
                    for column in (0..whole).step_by(TILE_SIDE) {
                        let row =
                            |row: usize| row * width + column..row * width + column + TILE_SIDE;
                        for (i, tile_row) in tile_rays.chunks_exact_mut(TILE_SIDE).enumerate() {
                            tile_row.copy_from_slice(&rays[row(i)]);
                        }
                        self.trace_sixteen(&mut task, &tile_rays, &mut tile_answers);
                        for (i, tile_row) in tile_answers.chunks_exact(TILE_SIDE).enumerate() {
                            answers[row(i)].copy_from_slice(tile_row);
                        }
                    }
                    for row in 0..TILE_SIDE {
                        let edge = row * width + whole..(row + 1) * width;
                        self.trace_sixteen(&mut task, &rays[edge.clone()], &mut answers[edge]);
                    }
                }
                start = rays.len() / band * band;
            }
            while start < rays.len() {
                let passed_over =
                    (task.finder.take_passed_over() * PACKET_WIDTH).min(rays.len() - start);
                if passed_over > 0 {
                    let end = start + passed_over;
                    for (ray, answer) in rays[start..end].iter().zip(&mut answers[start..end]) {
                        *answer = walk_limited(self.level, ray, self.options, self.kind);
                    }
                    start = end;
                    continue;
                }
                let end = (start + PAIR_WIDTH).min(rays.len());
                // The walks between fill the caches with the hierarchy, and a batch's rays,
                // read once, would otherwise come from memory while the CPU waits (bunny
                // camera image: the first reads of a chunk took half the time of finding its
                // packets).
                if let Some(ahead) = rays.get(end..(end + PAIR_WIDTH).min(rays.len())) {
                    prefetch(ahead);
                }
                self.trace_sixteen(&mut task, &rays[start..end], &mut answers[start..end]);
                start = end;
            }
        }
    }

    /// The answers for up to sixteen rays of a batch, as a pair of chunks of
    /// [`PACKET_WIDTH`]: two whole chunks that make one packet ([`PacketFinder::find_pair`];
    /// rays with no distance limit to apply) walk as a pair where the level walks pairs
    /// ([`PacketWalks::packet_span`]); otherwise each chunk's rays are cut to the distance
    /// limit ([`LevelBatch::packet_rays`]) and walk as the packets the finder finds among
    /// them, the rest ray by ray.
    #[inline(always)]
    fn trace_sixteen(&self, task: &mut TaskPackets, rays: &[Ray], answers: &mut [Q::Answer<H>]) {
        if let (true, Ok(both), Ok(both_answers)) = (
            task.pairs,
            <&[Ray; PAIR_WIDTH]>::try_from(rays),
            <&mut [Q::Answer<H>; PAIR_WIDTH]>::try_from(&mut *answers),
        ) {
            let (front, back) = halves(both);
            if task.finder.find_pair(front, back) {
                let (front, back) = both_answers.split_at_mut(PACKET_WIDTH);
                let answers = [front, back].map(|half| half.try_into().expect("half a pair"));
                let pair = task.finder.pair();
                self.level
                    .walk_packets(pair, [ALL_LANES; 2], self.options, self.kind, answers);
                return;
            }
        }
        for (rays, answers) in rays
            .chunks(PACKET_WIDTH)
            .zip(answers.chunks_mut(PACKET_WIDTH))
        {
            let (rays, lanes) = self.packet_rays(rays, &mut task.scratch);
            let (packets, alone) = task.finder.find(rays, lanes);
            if packets.is_empty() {
                self.walk_each(rays, lanes, answers);
                continue;
            }
            // The answers go to the caller's slice, or for a last chunk of fewer rays to
            // `tail` first: one copy of the code below, inlined.
            let mut tail = [Q::Answer::<H>::default(); PACKET_WIDTH];
            let (whole_answers, whole) = match <&mut [_; PACKET_WIDTH]>::try_from(&mut *answers) {
                Ok(whole_answers) => (whole_answers, true),
                Err(_) => (&mut tail, false),
            };
            for packet in packets {
                let packet_rays: [&RayPacket; 1] = [task.finder.rays()];
                self.level.walk_packets(
                    packet_rays,
                    [packet],
                    self.options,
                    self.kind,
                    [&mut *whole_answers],
                );
            }
            for_each_lane(alone, |lane| {
                whole_answers[lane] = self.level.walk(&rays[lane], self.options, self.kind)
            });
            for_each_lane(!lanes & ALL_LANES, |lane| {
                whole_answers[lane] = Q::nothing()
            });
            if !whole {
                answers.copy_from_slice(&tail[..answers.len()]);
            }
        }
    }

    /// Up to [`PACKET_WIDTH`] rays of a batch as a packet, cut to the options' distance
    /// limit, and the bits of the lanes that hold a ray to answer (the others hit nothing).
    /// The rays may be invalid ([`Ray::is_valid`]): a packet walk leaves them out and the
    /// single-ray walks answer them, with no hit either way
    /// ([`crate::batches::coherence::coherent`]). A whole packet of rays that need no cut is
    /// read where it lies; otherwise the rays are copied to `scratch`, whose unused lanes
    /// hold a placeholder.
    #[inline(always)]
    fn packet_rays<'r>(
        &self,
        rays: &'r [Ray],
        scratch: &'r mut [Ray; PACKET_WIDTH],
    ) -> (&'r [Ray; PACKET_WIDTH], u32) {
        let whole = <&[Ray; PACKET_WIDTH]>::try_from(rays);
        if let (false, Ok(whole)) = (self.options.limits_distance(), whole) {
            return (whole, ALL_LANES);
        }
        let mut lanes = 0;
        for (lane, ray) in rays.iter().enumerate().take(PACKET_WIDTH) {
            if let Some(ray) = self.options.limit_ray(ray) {
                scratch[lane] = ray;
                lanes |= 1 << lane;
            }
        }
        (scratch, lanes)
    }

    /// Leaves in `answers[i]` the single-ray answer of `rays[i]` (already cut) for each lane
    /// `i` of `lanes`, and nothing in the other lanes, up to the answers' end: a chunk with
    /// no packet, answered in place, as a loop of single-ray calls is.
    #[inline(always)]
    fn walk_each(&self, rays: &[Ray; PACKET_WIDTH], lanes: u32, answers: &mut [Q::Answer<H>]) {
        for (lane, (ray, answer)) in rays.iter().zip(answers).enumerate() {
            *answer = if lanes & (1 << lane) != 0 {
                self.level.walk(ray, self.options, self.kind)
            } else {
                Q::nothing()
            };
        }
    }
}

/// The batch driver's task ([`LevelBatch::task`]) of `level` asked `kind` under `options`:
/// each task's `f32` rays walked as packets where they are coherent, sixteen at a time. Whole
/// batches go through [`batch_packets`]; a mesh's `f64` batches carry each task's rays into
/// its frame and hand them to this task.
#[inline(always)]
pub(crate) fn packet_task<'a, L, H, C, F, Q>(
    level: &'a L,
    options: &'a QueryOptions<F>,
    kind: Q,
) -> impl BatchTask<Ray, Q::Answer<H>> + 'a
where
    L: PacketWalks<H, C> + ?Sized,
    F: Filter<C>,
    Q: PacketKind + 'a,
    Q::Answer<H>: Copy + Default,
    H: 'a,
    C: 'a,
{
    LevelBatch::new(level, options, kind).task()
}

/// The answers of `kind`, which walks packets, for a batch of `f32` rays in parallel: the
/// batch driver ([`parallel_batch`]), each task's rays walked as packets where they are
/// coherent ([`LevelBatch::task`]). What the levels that trace packets answer
/// [`crate::queries::LevelWalks::batch`] with.
#[inline]
pub(crate) fn batch_packets<L, H, C, F, Q>(
    level: &L,
    rays: &[Ray],
    options: &QueryOptions<F>,
    kind: Q,
    answers: &mut [Q::Answer<H>],
) where
    L: PacketWalks<H, C> + Sync + ?Sized,
    F: Filter<C> + Sync,
    Q: PacketKind + Sync,
    Q::Answer<H>: Copy + Default + Send + Sync,
{
    let task = packet_task(level, options, kind);
    parallel_batch(rays, level.batch_frame(), options.order, answers, task);
}

/// [`batch_packets`] on the calling thread ([`crate::queries::LevelWalks::batch_serial`]).
#[inline]
pub(crate) fn serial_batch_packets<L, H, C, F, Q>(
    level: &L,
    rays: &[Ray],
    options: &QueryOptions<F>,
    kind: Q,
    answers: &mut [Q::Answer<H>],
) where
    L: PacketWalks<H, C> + ?Sized,
    F: Filter<C>,
    Q: PacketKind,
    Q::Answer<H>: Copy + Default,
{
    let task = packet_task(level, options, kind);
    serial_batch_in_order(rays, level.batch_frame(), options.order, answers, task);
}
