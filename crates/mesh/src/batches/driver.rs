//! The batch driver: a batch cut into rayon tasks (or traced on the calling thread), sorted
//! when its [`BatchOrder`] says so, each task handed its rays, their answers and the width of
//! the image the batch is, if it is one. What each task does with its rays is not the
//! driver's business: every batch query, whatever its kind, goes through [`parallel_batch`]
//! or [`serial_batch_in_order`] with a task of its own (the queries room's, which walks
//! packets where the rays are coherent, or one ray at a time).

use rayon::prelude::*;

use crate::batches::batch_ray::BatchRay;
use crate::batches::images::{image_width, TILE_SIDE};
use crate::batches::order::{sorted_order, BatchFrame, BatchOrder};

/// Rays (or points) one rayon task answers at least: enough to pay for the task, few enough
/// to balance.
pub(crate) const BATCH_GRAIN: usize = 64;

/// The most rays of a batch one rayon task answers, unless an image's band is wider: a task's
/// [`crate::batches::PacketFinder`] learns whether the rays hold packets and then passes over chunks of random
/// rays, so tasks should be long, but a thread that ends early should find tasks to take.
const MAX_RAY_GRAIN: usize = 1024;

/// A task of a batch: handed rays `R`, it leaves the answer of `rays[i]` in `answers[i]`,
/// told the width of the image the batch is, if it is one ([`image_width`]; the task then
/// holds whole bands of [`TILE_SIDE`] rows).
pub(crate) trait BatchTask<R, A>: Fn(&[R], &mut [A], Option<usize>) {}

impl<R, A, T: Fn(&[R], &mut [A], Option<usize>)> BatchTask<R, A> for T {}

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
    trace: impl BatchTask<R, A> + Sync,
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
