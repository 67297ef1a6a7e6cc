//! How [`RayQueries`]' queries are derived from a level's walks ([`LevelWalks`]): a ray of
//! either precision cut to the options' distance limit before its walk ([`walk_limited`],
//! [`every_hit`]), and a batch handed to the batches room's driver ray by ray (every hit and
//! their count, and rays through levels that walk no packets). Batches that walk packets are
//! `level_batch.rs`'s.
//!
//! [`RayQueries`]: crate::RayQueries

use crate::batches::{parallel_batch, serial_batch_in_order, BatchFrame, BatchRay};
use crate::queries::{Filter, LevelWalks, QueryKind, QueryOptions, QueryRay};

/// The answers of `kind` for a batch in parallel, ray by ray through the batch driver
/// ([`batch_ray_by_ray`]): what [`LevelWalks::batch`] does unless the level traces packets.
pub(super) fn ray_by_ray<L, R, H, C, F, Q>(
    level: &L,
    rays: &[R],
    options: &QueryOptions<F>,
    kind: Q,
    answers: &mut [Q::Answer<H>],
) where
    L: LevelWalks<R, H, C> + Sync + ?Sized,
    R: QueryRay,
    F: Filter<C> + Sync,
    Q: QueryKind + Sync,
    Q::Answer<H>: Clone + Default + Send + Sync,
{
    batch_ray_by_ray(level.batch_frame(), rays, options, answers, |ray| {
        walk_limited(level, ray, options, kind)
    });
}

/// [`ray_by_ray`] on the calling thread.
pub(super) fn serial_ray_by_ray<L, R, H, C, F, Q>(
    level: &L,
    rays: &[R],
    options: &QueryOptions<F>,
    kind: Q,
    answers: &mut [Q::Answer<H>],
) where
    L: LevelWalks<R, H, C> + ?Sized,
    R: QueryRay,
    F: Filter<C>,
    Q: QueryKind,
    Q::Answer<H>: Default,
{
    serial_batch_in_order(
        rays,
        level.batch_frame(),
        options.order,
        answers,
        |rays, answers, _| {
            for (ray, slot) in rays.iter().zip(answers) {
                *slot = walk_limited(level, ray, options, kind);
            }
        },
    );
}

/// The answers `answer` gives each ray of a batch (rays in `f32` or `f64`, [`BatchRay`])
/// through a level with `frame`, in parallel, through the batch driver ([`parallel_batch`]:
/// sorted where the options' order says), ray by ray: the queries that walk no packets
/// (every hit and their count, and a far scene's `f64` rays).
pub(crate) fn batch_ray_by_ray<R: BatchRay, F, A: Clone + Default + Send + Sync>(
    frame: BatchFrame,
    rays: &[R],
    options: &QueryOptions<F>,
    answers: &mut [A],
    answer: impl Fn(&R) -> A + Sync,
) {
    parallel_batch(rays, frame, options.order, answers, |rays, answers, _| {
        for (ray, slot) in rays.iter().zip(answers) {
            *slot = answer(ray);
        }
    });
}

/// The answer of `kind` to `ray` cut to the options' distance limit: nothing where the cut
/// leaves no range. What [`crate::RayQueries::cast_with`] and [`crate::RayQueries::occluded_with`] answer,
/// and a batch's rays that walk alone.
#[inline]
pub(super) fn walk_limited<L, R, H, C, F, Q>(
    level: &L,
    ray: &R,
    options: &QueryOptions<F>,
    kind: Q,
) -> Q::Answer<H>
where
    L: LevelWalks<R, H, C> + ?Sized,
    R: QueryRay,
    F: Filter<C>,
    Q: QueryKind,
{
    // A ray with no limit to apply is walked where it lies: through `limit_ray`'s copy, a
    // batch's rays that walk alone ran 20% slower (`batch_orders`, fans, bunny).
    if !options.limits_distance() {
        return level.walk(ray, options, kind);
    }
    match options.limit_ray(ray) {
        Some(ray) => level.walk(&ray, options, kind),
        None => Q::nothing(),
    }
}

/// The answer of `kind` ([`All`](crate::queries::All), [`Count`](crate::queries::Count)) to a ray cut to the options' distance limit: none
/// for a ray the options leave invalid or for `max_hits` 0.
pub(super) fn every_hit<L, R, H, C, F, Q>(
    level: &L,
    ray: &R,
    options: &QueryOptions<F>,
    kind: Q,
) -> Q::Answer<H>
where
    L: LevelWalks<R, H, C> + ?Sized,
    R: QueryRay,
    F: Filter<C>,
    Q: QueryKind,
{
    match options.limit_ray(ray).filter(R::is_valid) {
        Some(ray) if options.max_hits > 0 => level.walk(&ray, options, kind),
        _ => Q::nothing(),
    }
}
