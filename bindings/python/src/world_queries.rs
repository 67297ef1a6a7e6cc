//! A scene's ray queries on `float64` world rays where the scene lies far from the origin:
//! the engine's `f64` scene queries ([`meshcast::Scene::cast_with`] and the rest), which
//! carry each ray into every instance it reaches in `f64`, so that a scene of georeferenced
//! meshes (UTM or Earth-centred coordinates) answers at each mesh's own precision; `t` in
//! `float64`. Near the origin, and for `float32` rays, a scene's rays are read as they are
//! (`queries`), as they always were.

use meshcast::glam::{DVec3, Vec3};
use meshcast::{frame_origin, DRay, DSceneHit, InstanceId, QueryOptions, RayQueries, Scene};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::arrays::{Reals, RowsView};
use crate::queries::{Cast, Intersections, INVALID_ID};
use crate::ray_reading::{self, Interval, RayReading};

/// Whether `scene` answers `rows` in `f64`: `float64` rows, and a scene far from the origin
/// ([`is_far`]), where its `f32` world coordinates lose what the rows hold at a mesh's
/// scale.
pub fn answers(scene: &Scene, rows: &RowsView<'_>) -> bool {
    rows.is_wide() && is_far(scene)
}

/// Whether an instance of `scene` lies farther from the world's origin than
/// [`meshcast::FAR_SIZES`] of its box's diagonals ([`frame_origin`]): where the scene
/// answers `float64` rays in `f64`, and its distances' points in `float64`.
pub fn is_far(scene: &Scene) -> bool {
    scene.instances().any(|(_, instance)| {
        let bounds = instance.bounds();
        !bounds.is_empty()
            && frame_origin([bounds.min.as_dvec3(), bounds.max.as_dvec3()]) != DVec3::ZERO
    })
}

/// The world rays of rows `(ox, oy, oz, dx, dy, dz)` in `f64`, each accepting the `t` of
/// `interval`, read by the one reader of rows ([`ray_reading::rays`]).
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number.
fn world_rays(rows: &RowsView<'_>, interval: Interval) -> PyResult<Vec<DRay>> {
    let reading = RayReading::new(rows, interval, None);
    Ok(ray_reading::rays::<DRay>(rows, &reading)?.rays)
}

/// The unit geometric normal of triangle `triangle` of instance `instance`, in world space
/// ([`meshcast::Instance::world_normal`]: not from the rounded world corners, which lie far
/// from the origin here); zero for a stale instance or triangle.
pub fn normal(scene: &Scene, instance: InstanceId, triangle: u32) -> Vec3 {
    scene
        .instance(instance)
        .and_then(|placed| placed.world_normal(triangle as usize))
        .unwrap_or(Vec3::ZERO)
}

/// The closest hit of each ray, laid out as `queries::cast` lays it out, `t` in `float64`.
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number.
pub fn cast(
    scene: &Scene,
    rows: &RowsView<'_>,
    interval: Interval,
    options: &QueryOptions,
) -> PyResult<Cast> {
    let hits = scene.cast_batch_with(&world_rays(rows, interval)?, options);
    let n = hits.len();
    let (mut t_hit, mut geometry_ids, mut primitive_ids) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut primitive_uvs, mut primitive_normals) =
        (Vec::with_capacity(2 * n), Vec::with_capacity(3 * n));
    for hit in &hits {
        let (t, geometry, primitive, uv, normal) = match hit {
            Some(hit) => (
                hit.hit.t,
                hit.instance.index(),
                hit.hit.triangle,
                [hit.hit.u, hit.hit.v],
                normal(scene, hit.instance, hit.hit.triangle),
            ),
            None => (f64::INFINITY, INVALID_ID, INVALID_ID, [0.0; 2], Vec3::ZERO),
        };
        t_hit.push(t);
        geometry_ids.push(geometry);
        primitive_ids.push(primitive);
        primitive_uvs.extend(uv);
        primitive_normals.extend(normal.to_array());
    }
    Ok(Cast {
        t_hit: Reals::F64(t_hit),
        geometry_ids,
        primitive_ids,
        primitive_uvs,
        primitive_normals,
    })
}

/// Whether each ray hits anything.
///
/// # Errors
/// As [`cast`].
pub fn occluded(
    scene: &Scene,
    rows: &RowsView<'_>,
    interval: Interval,
    options: &QueryOptions,
) -> PyResult<Vec<bool>> {
    Ok(scene.occluded_batch_with(&world_rays(rows, interval)?, options))
}

/// The surface crossings of each ray, each once.
///
/// # Errors
/// As [`cast`].
pub fn count(scene: &Scene, rows: &RowsView<'_>, interval: Interval) -> PyResult<Vec<i32>> {
    let options = QueryOptions::new();
    Ok(world_rays(rows, interval)?
        .par_iter()
        .map(|ray| i32::try_from(scene.count_with(ray, &options)).unwrap_or(i32::MAX))
        .collect())
}

/// Every hit of every ray, at most `max_hits` each, laid out as `queries::list` lays them
/// out, `t` in `float64`.
///
/// # Errors
/// As [`cast`].
pub fn list(
    scene: &Scene,
    rows: &RowsView<'_>,
    interval: Interval,
    max_hits: usize,
) -> PyResult<Intersections> {
    let options = QueryOptions::new().with_max_hits(max_hits);
    let lists: Vec<Vec<DSceneHit>> = world_rays(rows, interval)?
        .par_iter()
        .map(|ray| scene.cast_all_with(ray, &options))
        .collect();
    let mut ray_splits = Vec::with_capacity(lists.len() + 1);
    ray_splits.push(0u32);
    let (mut ray_ids, mut geometry_ids, mut primitive_ids) = (Vec::new(), Vec::new(), Vec::new());
    let (mut primitive_uvs, mut t_hit) = (Vec::new(), Vec::new());
    for (ray, hits) in lists.iter().enumerate() {
        for hit in hits {
            ray_ids.push(ray as u32);
            geometry_ids.push(hit.instance.index());
            primitive_ids.push(hit.hit.triangle);
            primitive_uvs.extend([hit.hit.u, hit.hit.v]);
            t_hit.push(hit.hit.t);
        }
        ray_splits.push(u32::try_from(ray_ids.len()).unwrap_or(u32::MAX));
    }
    Ok(Intersections {
        ray_splits,
        ray_ids,
        geometry_ids,
        primitive_ids,
        primitive_uvs,
        t_hit: Reals::F64(t_hit),
    })
}
