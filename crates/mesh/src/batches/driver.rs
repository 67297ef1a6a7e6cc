//! The batch driver: a batch cut into rayon tasks (or traced on the calling thread), sorted
//! when its [`BatchOrder`] says so, and each task's rays walked as pairs of packets, as packets
//! a [`PacketFinder`] finds, or one by one. What each ray is asked is not the driver's
//! business: [`parallel_batch`] and [`serial_batch_in_order`] hand tasks of rays to a closure
//! (every batch query, whatever its kind, goes through them), and [`trace_packets`] asks a
//! [`PacketTrace`] (a level and a kind of query, from the queries room) for the walks of
//! single rays and of packets.

use meshcast_primitives::{prefetch, Ray, RayPacket, ALL_LANES, PACKET_WIDTH};
use rayon::prelude::*;

use crate::batches::batch_ray::BatchRay;
use crate::batches::coherence::PacketSpan;
use crate::batches::finder::PacketFinder;
use crate::batches::images::{image_width, TILE_SIDE};
use crate::batches::lane_bits::for_each_lane;
use crate::batches::order::{sorted_order, BatchFrame, BatchOrder};

/// Rays (or points) one rayon task answers at least: enough to pay for the task, few enough
/// to balance.
pub(crate) const BATCH_GRAIN: usize = 64;

/// What fills the lanes of a packet that hold no ray.
const PLACEHOLDER_RAY: Ray = Ray::new(glam::Vec3::ZERO, glam::Vec3::X);

/// The rays of two neighbouring chunks, which may walk as one packet
/// ([`PacketFinder::find_pair`]).
const PAIR_WIDTH: usize = 2 * PACKET_WIDTH;

/// The most rays of a batch one rayon task answers, unless an image's band is wider: a task's
/// [`PacketFinder`] learns whether the rays hold packets and then passes over chunks of random
/// rays, so tasks should be long, but a thread that ends early should find tasks to take.
const MAX_RAY_GRAIN: usize = 1024;

/// What a batch that walks packets asks of each ray and each packet: a level's walks for one
/// kind of query, under one set of options (the queries room's `LevelBatch`).
pub(crate) trait PacketTrace {
    /// One ray's answer: the closest hit, or whether anything is hit.
    type Answer: Copy + Default;

    /// How wide a packet may be at the level ([`PacketSpan`]); `None` for levels that walk
    /// no pairs, whose packets are bounded by their rays' cone.
    fn span(&self) -> Option<PacketSpan>;

    /// Whether the options leave every ray as it is (no distance limit to apply), so that
    /// rays are read where they lie.
    fn unlimited(&self) -> bool;

    /// `ray` cut to the options' distance limit, or `None` where nothing can be hit.
    fn limit(&self, ray: &Ray) -> Option<Ray>;

    /// The answer for a ray already cut ([`PacketTrace::limit`]).
    fn walk(&self, ray: &Ray) -> Self::Answer;

    /// The answer for a ray not yet cut: a batch's rays that walk alone.
    fn alone(&self, ray: &Ray) -> Self::Answer;

    /// The answer of a lane that holds no ray to answer.
    fn nothing(&self) -> Self::Answer;

    /// Writes to `answers[p][i]` the answer of the ray in each lane `i` of `rays[p]` in
    /// `lanes[p]` (rays already cut, coherent as [`crate::batches::coherence::coherent`]
    /// groups them, degenerate ones among them), the `H` packets walked together.
    fn packets<const H: usize>(
        &self,
        rays: [&RayPacket; H],
        lanes: [u32; H],
        answers: [&mut [Self::Answer; PACKET_WIDTH]; H],
    );
}

/// How many rays of a batch one rayon task answers, and the width of the image the batch is
/// ([`image_width`]), found once for all tasks: an eighth of each thread's share, within
/// [`BATCH_GRAIN`] and [`MAX_RAY_GRAIN`], or for an image whole bands of [`TILE_SIDE`] rows,
/// so that each task traces tiles.
fn batch_grain<R: BatchRay>(rays: &[R]) -> (usize, Option<usize>) {
    let width = image_width(rays);
    let grain = (rays.len() / (8 * rayon::current_num_threads())).clamp(BATCH_GRAIN, MAX_RAY_GRAIN);
    let grain = match width {
        Some(width) => {
            let band = TILE_SIDE * width;
            band * grain.div_ceil(band)
        }
        None => grain,
    };
    (grain, width)
}

/// Every batch query's driver: `answers[i]` is `trace`'s answer for `rays[i]` (rays in `f32`
/// or `f64`, [`BatchRay`]), traced on the current rayon pool in tasks of [`batch_grain`] rays,
/// `trace` being handed each task's rays and answers and the width of the image the batch is,
/// if it is one (then each task holds whole bands of tiles). A batch that `order` sorts
/// through a level with `frame` ([`BatchOrder::sorts`]; never an image) is traced in the
/// order of [`sorted_order`], its answers put back in the caller's order.
pub(crate) fn parallel_batch<R: BatchRay, A: Clone + Default + Send + Sync>(
    rays: &[R],
    frame: BatchFrame,
    order: BatchOrder,
    answers: &mut [A],
    trace: impl Fn(&[R], &mut [A], Option<usize>) + Sync,
) {
    let (grain, width) = batch_grain(rays);
    if width.is_some() || !order.sorts(rays, &frame) {
        rays.par_chunks(grain)
            .zip(answers.par_chunks_mut(grain))
            .for_each(|(rays, answers)| trace(rays, answers, width));
        return;
    }
    let order = sorted_order(rays, &frame, true);
    let mut sorted_answers = vec![A::default(); rays.len()];
    order
        .par_chunks(grain)
        .zip(sorted_answers.par_chunks_mut(grain))
        .for_each(|(indices, answers)| {
            let rays: Vec<R> = indices.iter().map(|&i| rays[i as usize]).collect();
            trace(&rays, answers, None)
        });
    let mut place = vec![0u32; rays.len()];
    for (k, &i) in order.iter().enumerate() {
        place[i as usize] = k as u32;
    }
    answers
        .par_iter_mut()
        .zip(place.par_iter())
        .for_each(|(answer, &k)| *answer = sorted_answers[k as usize].clone());
}

/// [`parallel_batch`] on the calling thread, for the serial batch calls.
pub(crate) fn serial_batch_in_order<R: BatchRay, A: Default>(
    rays: &[R],
    frame: BatchFrame,
    order: BatchOrder,
    answers: &mut [A],
    mut trace: impl FnMut(&[R], &mut [A], Option<usize>),
) {
    let width = image_width(rays);
    if width.is_some() || !order.sorts(rays, &frame) {
        trace(rays, answers, width);
        return;
    }
    let order = sorted_order(rays, &frame, false);
    let sorted: Vec<R> = order.iter().map(|&i| rays[i as usize]).collect();
    let mut sorted_answers: Vec<A> = sorted.iter().map(|_| A::default()).collect();
    trace(&sorted, &mut sorted_answers, None);
    for (&i, answer) in order.iter().zip(sorted_answers) {
        answers[i as usize] = answer;
    }
}

/// One task's loop for a query that walks packets: the rays and their `answers` sixteen at a
/// time, as a pair of chunks of [`PACKET_WIDTH`]. A camera image in row-major order, `width`
/// rays to a row ([`image_width`], found by the caller), is read in square tiles of
/// [`TILE_SIDE`] rows and columns, its top two rows one chunk and its bottom two the other, as
/// Embree's users trace images; other batches in order. Two whole chunks that make one packet
/// ([`PacketFinder::find_pair`]; rays with no distance limit to apply) walk as a pair where
/// the level walks pairs ([`PacketTrace::span`]); the chunks of other pairs are walked one by
/// one ([`chunk`]), with the finder to look for their packets, and the chunks the finder
/// passes over walk ray by ray. Answers land in the rays' order whatever the order of the
/// walks.
#[inline(always)]
pub(crate) fn trace_packets<T: PacketTrace>(
    trace: &T,
    rays: &[Ray],
    answers: &mut [T::Answer],
    width: Option<usize>,
) {
    let span = trace.span();
    let mut finder = match width {
        Some(_) => PacketFinder::image(span),
        None => PacketFinder::new(span),
    };
    let mut scratch = [PLACEHOLDER_RAY; PACKET_WIDTH];
    // Pairs are read where they lie: their rays need no distance limit applied.
    let pairs = span.is_some() && trace.unlimited();
    let mut sixteen = |finder: &mut PacketFinder, rays: &[Ray], answers: &mut [T::Answer]| {
        if let (true, Ok(both), Ok(both_answers)) = (
            pairs,
            <&[Ray; PAIR_WIDTH]>::try_from(rays),
            <&mut [T::Answer; PAIR_WIDTH]>::try_from(&mut *answers),
        ) {
            let (front, back) = halves(both);
            if finder.find_pair(front, back) {
                let (front, back) = both_answers.split_at_mut(PACKET_WIDTH);
                let halves = [front, back].map(|half| half.try_into().expect("half a pair"));
                trace.packets(finder.pair(), [ALL_LANES; 2], halves);
                return;
            }
        }
        for (rays, answers) in rays
            .chunks(PACKET_WIDTH)
            .zip(answers.chunks_mut(PACKET_WIDTH))
        {
            chunk(trace, rays, finder, &mut scratch, answers);
        }
    };
    let mut start = 0;
    if let Some(width) = width {
        // Each band of TILE_SIDE rows: its square tiles, gathered row by row and their
        // answers put back, then the rays left at the band's right end a row at a time.
        let mut tile_rays = [PLACEHOLDER_RAY; PAIR_WIDTH];
        let mut tile_answers = [T::Answer::default(); PAIR_WIDTH];
        let whole = width / TILE_SIDE * TILE_SIDE;
        let band = TILE_SIDE * width;
        for (rays, answers) in rays.chunks_exact(band).zip(answers.chunks_mut(band)) {
            for column in (0..whole).step_by(TILE_SIDE) {
                let row = |row: usize| row * width + column..row * width + column + TILE_SIDE;
                for (i, tile_row) in tile_rays.chunks_exact_mut(TILE_SIDE).enumerate() {
                    tile_row.copy_from_slice(&rays[row(i)]);
                }
                sixteen(&mut finder, &tile_rays, &mut tile_answers);
                for (i, tile_row) in tile_answers.chunks_exact(TILE_SIDE).enumerate() {
                    answers[row(i)].copy_from_slice(tile_row);
                }
            }
            for row in 0..TILE_SIDE {
                let edge = row * width + whole..(row + 1) * width;
                sixteen(&mut finder, &rays[edge.clone()], &mut answers[edge]);
            }
        }
        start = rays.len() / band * band;
    }
    while start < rays.len() {
        let passed_over = (finder.take_passed_over() * PACKET_WIDTH).min(rays.len() - start);
        if passed_over > 0 {
            let end = start + passed_over;
            for (ray, answer) in rays[start..end].iter().zip(&mut answers[start..end]) {
                *answer = trace.alone(ray);
            }
            start = end;
            continue;
        }
        let end = (start + PAIR_WIDTH).min(rays.len());
        // The walks between fill the caches with the hierarchy, and a batch's rays, read
        // once, would otherwise come from memory while the CPU waits (bunny camera image: the
        // first reads of a chunk took half the time of finding its packets).
        if let Some(ahead) = rays.get(end..(end + PAIR_WIDTH).min(rays.len())) {
            prefetch(ahead);
        }
        sixteen(&mut finder, &rays[start..end], &mut answers[start..end]);
        start = end;
    }
}

/// The two halves of a pair of chunks.
#[inline(always)]
fn halves(pair: &[Ray; PAIR_WIDTH]) -> (&[Ray; PACKET_WIDTH], &[Ray; PACKET_WIDTH]) {
    let (front, back) = pair.split_at(PACKET_WIDTH);
    (
        front.try_into().expect("half a pair"),
        back.try_into().expect("half a pair"),
    )
}

/// The answers for a chunk of up to [`PACKET_WIDTH`] rays of a batch, in `answers`, as
/// packets where `finder` finds them.
#[inline(always)]
fn chunk<T: PacketTrace>(
    trace: &T,
    rays: &[Ray],
    finder: &mut PacketFinder,
    scratch: &mut [Ray; PACKET_WIDTH],
    answers: &mut [T::Answer],
) {
    let (rays, lanes) = packet_rays(trace, rays, scratch);
    let (packets, alone) = finder.find(rays, lanes);
    if packets.is_empty() {
        // Rays that walk alone, answered in place, as a loop of single-ray calls is.
        for (lane, (ray, answer)) in rays.iter().zip(answers).enumerate() {
            *answer = if lanes & (1 << lane) != 0 {
                trace.walk(ray)
            } else {
                trace.nothing()
            };
        }
        return;
    }
    // The answers go to the caller's slice, or for a last chunk of fewer rays to `tail`
    // first: one copy of the code below, inlined.
    let mut tail = [T::Answer::default(); PACKET_WIDTH];
    let (whole_answers, whole) = match <&mut [_; PACKET_WIDTH]>::try_from(&mut *answers) {
        Ok(whole_answers) => (whole_answers, true),
        Err(_) => (&mut tail, false),
    };
    for packet in packets {
        trace.packets([finder.rays()], [packet], [&mut *whole_answers]);
    }
    for_each_lane(alone, |lane| whole_answers[lane] = trace.walk(&rays[lane]));
    for_each_lane(!lanes & ALL_LANES, |lane| {
        whole_answers[lane] = trace.nothing()
    });
    if !whole {
        answers.copy_from_slice(&tail[..answers.len()]);
    }
}

/// Up to [`PACKET_WIDTH`] rays of a batch as a packet, cut to the options' distance limit, and
/// the bits of the lanes that hold a ray to answer (the others hit nothing). The rays may be
/// invalid ([`Ray::is_valid`]): a packet walk leaves them out and the single-ray walks answer
/// them, with no hit either way ([`crate::batches::coherence::coherent`]). A whole packet of
/// rays that need no cut is read where it lies; otherwise the rays are copied to `scratch`,
/// whose unused lanes hold a placeholder.
#[inline(always)]
fn packet_rays<'r, T: PacketTrace>(
    trace: &T,
    rays: &'r [Ray],
    scratch: &'r mut [Ray; PACKET_WIDTH],
) -> (&'r [Ray; PACKET_WIDTH], u32) {
    if let (true, Ok(whole)) = (trace.unlimited(), <&[Ray; PACKET_WIDTH]>::try_from(rays)) {
        return (whole, ALL_LANES);
    }
    let mut lanes = 0;
    for (lane, ray) in rays.iter().enumerate().take(PACKET_WIDTH) {
        if let Some(ray) = trace.limit(ray) {
            scratch[lane] = ray;
            lanes |= 1 << lane;
        }
    }
    (scratch, lanes)
}
