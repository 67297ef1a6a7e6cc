//! The queries of a mesh or a scene on many rays, with their answers laid out as Open3D's
//! `RaycastingScene` lays them out: one generic function per query, over [`Target`], for
//! both levels (the point queries' in `point_queries`). Rays reach them as
//! `ray_reading::RayReading` reads them (carried into a mesh's frame where they are world
//! coordinates).

use std::ops::Range;

use meshcast::glam::Vec3;
use meshcast::{HitLists, Mesh, PointQueries, QueryOptions, Ray, RayQueries, Scene};

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::arrays::{to_numpy, Answers, Reals, RowsView};
use crate::ray_reading::{self, RayReading};

/// The id of no geometry and no primitive: what a miss answers (Open3D's `INVALID_ID`).
pub const INVALID_ID: u32 = u32::MAX;

/// What a hit or a closest point names, as the answers give it.
#[derive(Clone, Copy)]
pub struct Record {
    /// The instance in a scene; 0 on a mesh.
    pub geometry: u32,
    /// The triangle.
    pub primitive: u32,
    /// Barycentric weights of the triangle's second and third corners.
    pub uv: [f32; 2],
    /// The triangle's unit geometric normal, in the query's space.
    pub normal: Vec3,
}

impl Record {
    /// The record of a triangle of a mesh placed by an instance (or not).
    fn of(
        geometry: u32,
        triangle: Option<meshcast::Triangle>,
        primitive: u32,
        uv: [f32; 2],
    ) -> Self {
        Self {
            geometry,
            primitive,
            uv,
            normal: triangle.map_or(Vec3::ZERO, |t| t.normal().normalize_or_zero()),
        }
    }

    /// The record of triangle `primitive` of a mesh queried on its own.
    pub fn on_mesh(mesh: &Mesh, primitive: u32, uv: [f32; 2]) -> Self {
        let triangle = mesh.tri_mesh().triangle(primitive as usize);
        Self::of(0, triangle, primitive, uv)
    }
}

/// A mesh or a scene: what the Python classes query.
///
/// `normals`, when given, holds each triangle's unit normal
/// ([`MeshState::normals`](crate::state::MeshState::normals)): a mesh reads a hit's normal
/// there, one load where the triangle's corners would be four, most of them cache misses.
pub trait Target: RayQueries + PointQueries {
    /// The mesh whose frame world coordinates are carried into: a mesh's own; `None` for a
    /// scene, which reads rays and points as they are, in `f32`.
    fn frame(&self) -> Option<&Mesh>;
    /// What `hit` names.
    fn hit_record(&self, hit: &<Self as RayQueries>::Hit, normals: Option<&[Vec3]>) -> Record;
    /// The distance along the ray of `hit`, in units of its direction.
    fn hit_t(hit: &<Self as RayQueries>::Hit) -> f32;
    /// The barycentric weights of `hit`'s second and third corners.
    fn hit_uv(hit: &<Self as RayQueries>::Hit) -> [f32; 2];
    /// What `closest` names, and its point.
    fn closest_record(&self, closest: &<Self as PointQueries>::Closest) -> (Record, Vec3, f32);
    /// The bytes of hierarchy and triangles a ray walks, as the engine's batch order weighs
    /// them ([`meshcast::BatchOrder::may_sort`]).
    fn acceleration_bytes(&self) -> usize;
    /// The scene whose `float64` world rays `world_queries` may answer in `f64`: a scene's
    /// own; `None` for a mesh, whose rays are carried into its frame instead.
    fn world_scene(&self) -> Option<&Scene> {
        None
    }
}

impl Target for Mesh {
    fn frame(&self) -> Option<&Mesh> {
        Some(self)
    }

    fn acceleration_bytes(&self) -> usize {
        Mesh::acceleration_bytes(self)
    }

    fn hit_record(&self, hit: &meshcast::Hit, normals: Option<&[Vec3]>) -> Record {
        let uv = [hit.u, hit.v];
        match normals.and_then(|normals| normals.get(hit.triangle as usize)) {
            Some(&normal) => Record {
                geometry: 0,
                primitive: hit.triangle,
                uv,
                normal,
            },
            None => Record::on_mesh(self, hit.triangle, uv),
        }
    }

    fn hit_t(hit: &meshcast::Hit) -> f32 {
        hit.t
    }

    fn hit_uv(hit: &meshcast::Hit) -> [f32; 2] {
        [hit.u, hit.v]
    }

    fn closest_record(&self, closest: &meshcast::ClosestPoint) -> (Record, Vec3, f32) {
        let record = Record::on_mesh(self, closest.triangle, [closest.u, closest.v]);
        (record, closest.point, closest.distance)
    }
}

impl Target for Scene {
    fn frame(&self) -> Option<&Mesh> {
        None
    }

    fn world_scene(&self) -> Option<&Scene> {
        Some(self)
    }

    fn acceleration_bytes(&self) -> usize {
        Scene::acceleration_bytes(self)
    }

    fn hit_record(&self, hit: &meshcast::SceneHit, _: Option<&[Vec3]>) -> Record {
        let triangle = self
            .instance(hit.instance)
            .and_then(|instance| instance.world_triangle(hit.hit.triangle as usize));
        let uv = [hit.hit.u, hit.hit.v];
        Record::of(hit.instance.index(), triangle, hit.hit.triangle, uv)
    }

    fn hit_t(hit: &meshcast::SceneHit) -> f32 {
        hit.hit.t
    }

    fn hit_uv(hit: &meshcast::SceneHit) -> [f32; 2] {
        [hit.hit.u, hit.hit.v]
    }

    fn closest_record(&self, closest: &meshcast::SceneClosestPoint) -> (Record, Vec3, f32) {
        let on = closest.closest;
        let triangle = self
            .instance(closest.instance)
            .and_then(|instance| instance.world_triangle(on.triangle as usize));
        let record = Record::of(
            closest.instance.index(),
            triangle,
            on.triangle,
            [on.u, on.v],
        );
        (record, on.point, on.distance)
    }
}

/// The closest hit of each ray: Open3D's `cast_rays`.
pub struct Cast {
    pub t_hit: Reals,
    pub geometry_ids: Vec<u32>,
    pub primitive_ids: Vec<u32>,
    pub primitive_uvs: Vec<f32>,
    pub primitive_normals: Vec<f32>,
}

/// A [`Cast`] as the hits are laid out, `t` along the rays as they were cast.
struct CastLayout {
    t_hit: Vec<f32>,
    geometry_ids: Vec<u32>,
    primitive_ids: Vec<u32>,
    primitive_uvs: Vec<f32>,
    primitive_normals: Vec<f32>,
}

impl CastLayout {
    /// The layout of `n` rays, zeroed.
    fn zeroed(n: usize) -> Self {
        Self {
            t_hit: vec![0.0; n],
            geometry_ids: vec![0; n],
            primitive_ids: vec![0; n],
            primitive_uvs: vec![0.0; 2 * n],
            primitive_normals: vec![0.0; 3 * n],
        }
    }

    /// Where rays `rays` are laid out.
    fn slices(&mut self, rays: Range<usize>) -> CastSlices<'_> {
        let Range { start, end } = rays;
        (
            &mut self.t_hit[start..end],
            &mut self.geometry_ids[start..end],
            &mut self.primitive_ids[start..end],
            &mut self.primitive_uvs[2 * start..2 * end],
            &mut self.primitive_normals[3 * start..3 * end],
        )
    }

    /// Where rays `rays` are laid out, `per_task` rays at a time.
    fn par_runs(
        &mut self,
        rays: Range<usize>,
        per_task: usize,
    ) -> impl IndexedParallelIterator<Item = CastSlices<'_>> {
        let (t, geometry, primitive, uv, normal) = self.slices(rays);
        (
            t.par_chunks_mut(per_task),
            geometry.par_chunks_mut(per_task),
            primitive.par_chunks_mut(per_task),
            uv.par_chunks_mut(2 * per_task),
            normal.par_chunks_mut(3 * per_task),
        )
            .into_par_iter()
    }

    /// The answers to the rays `reading` read, `shift(i)` that of ray `i`: `t` as the rows'
    /// own ([`RayReading::carried_back`]).
    fn answers(self, reading: &RayReading, shift: impl Fn(usize) -> f64 + Sync) -> Cast {
        Cast {
            t_hit: reading.carried_back(self.t_hit, shift),
            geometry_ids: self.geometry_ids,
            primitive_ids: self.primitive_ids,
            primitive_uvs: self.primitive_uvs,
            primitive_normals: self.primitive_normals,
        }
    }
}

impl Cast {
    /// The answers as Open3D's dict, each array of the rays' `leading` shape.
    pub fn into_dict<'py>(
        self,
        py: Python<'py>,
        leading: &[usize],
    ) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("t_hit", self.t_hit.into_numpy(py, leading, &[])?)?;
        dict.set_item(
            "geometry_ids",
            to_numpy(py, self.geometry_ids, leading, &[])?,
        )?;
        dict.set_item(
            "primitive_ids",
            to_numpy(py, self.primitive_ids, leading, &[])?,
        )?;
        dict.set_item(
            "primitive_uvs",
            to_numpy(py, self.primitive_uvs, leading, &[2])?,
        )?;
        dict.set_item(
            "primitive_normals",
            to_numpy(py, self.primitive_normals, leading, &[3])?,
        )?;
        Ok(dict)
    }
}

/// Rays (or points) answered per task when the answers are laid out.
pub const GRAIN: usize = 1024;

/// Rays made, cast and laid out together, so that none of them leaves the cache between
/// (see [`cast`]).
const CHUNK: usize = 256;

/// Image rows cast together when the rays come shaped as an image: a band of four rows is
/// traced in tiles of 4 x 4 pixels, as packets.
const IMAGE_BAND_ROWS: usize = 4;

/// The widest image whose bands of rows are cast together (a band then holds at most 64k
/// rays); wider images are cast in chunks of [`CHUNK`].
const IMAGE_ROW_MAX: usize = 1 << 14;

/// The rays [`cast`] makes, casts and lays out together, for rays of the shape `leading`
/// (the array's shape less its last axis): for an image, `(..., H, W)`, bands of
/// [`IMAGE_BAND_ROWS`] rows, so that [`RayQueries::cast_batch_serial_with`] finds the rows
/// and traces a camera image (Open3D's `create_rays_pinhole`, `cast_camera`) in 4 x 4
/// tiles; else [`CHUNK`].
pub fn cast_chunk(leading: &[usize]) -> usize {
    match leading {
        [.., height, width] if *height > 1 && (2..=IMAGE_ROW_MAX).contains(width) => {
            IMAGE_BAND_ROWS * width
        }
        _ => CHUNK,
    }
}

/// [`RayQueries::cast_batch_with`] with `options` of the rays `reading` reads from `rows`,
/// laid out: `t_hit` infinite, ids [`INVALID_ID`] and the rest zero on a miss.
///
/// The rays are read, cast and laid out `chunk` at a time ([`cast_chunk`]), each chunk one
/// serial batch on this pool's threads, so that its rays and hits stay in the cache: on
/// a `float32` camera image of 1M rays of the ogre (`create_rays_pinhole`), one batch of
/// them all, its rays and hits two more passes over memory, took 55 to 58 ms against 31 to
/// 36 ms, on one thread or two; 1M random rays took as long either way. A batch the engine may sort (large, through a hierarchy
/// that outgrows the caches: [`meshcast::BatchOrder::may_sort`]) is cast whole, as the
/// engine's sort needs every ray. That choice, and the chunks, are what the engine's own
/// batch calls would take over to serve every caller.
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number.
pub fn cast<T: Target>(
    target: &T,
    normals: Option<&[Vec3]>,
    rows: &RowsView<'_>,
    chunk: usize,
    reading: &RayReading,
    options: &QueryOptions,
) -> PyResult<Cast> {
    let n = rows.len();
    if chunk == CHUNK && options.order.may_sort(n, target.acceleration_bytes()) {
        let read = ray_reading::rays(rows, reading)?;
        let hits = target.cast_batch_with(&read.rays, options);
        let shift = |ray: usize| read.shifts[ray];
        return Ok(cast_answers(target, normals, &hits, reading, shift));
    }
    let mut out = CastLayout::zeroed(n);
    let outputs = out.par_runs(0..n, chunk);
    let shifts = ray_reading::read_chunks(rows, reading, chunk, outputs, |rays, slices| {
        let mut hits = vec![None; rays.len()];
        target.cast_batch_serial_with(rays, options, &mut hits);
        lay_out_hits(target, normals, &hits, slices);
    })?;
    Ok(out.answers(reading, |ray| shifts[ray]))
}

/// Where [`lay_out_hits`] writes: `t`, geometry and primitive ids, uvs (two per hit) and
/// normals (three per hit), zeroed.
type CastSlices<'a> = (
    &'a mut [f32],
    &'a mut [u32],
    &'a mut [u32],
    &'a mut [f32],
    &'a mut [f32],
);

/// Lays out the closest hits of the rays `reading` read, found by [`cast`] in one batch the
/// engine sorts, `shift(i)` that of ray `i`.
pub fn cast_answers<T: Target + Sync>(
    target: &T,
    normals: Option<&[Vec3]>,
    hits: &[Option<<T as RayQueries>::Hit>],
    reading: &RayReading,
    shift: impl Fn(usize) -> f64 + Sync,
) -> Cast
where
    <T as RayQueries>::Hit: Sync,
{
    let mut out = CastLayout::zeroed(hits.len());
    (hits.par_chunks(GRAIN), out.par_runs(0..hits.len(), GRAIN))
        .into_par_iter()
        .for_each(|(hits, slices)| lay_out_hits(target, normals, hits, slices));
    out.answers(reading, shift)
}

/// Closest hits laid out as a mesh on the GPU decides them
/// ([`meshcast::gpu::GpuMesh::cast_batch_into_with`]): straight from its hit slots into
/// the answers' arrays, [`GRAIN`] rays per task, with no `Vec` of hits between.
pub struct GpuCastLayout<'a> {
    mesh: &'a Mesh,
    normals: &'a [Vec3],
    out: CastLayout,
}

impl<'a> GpuCastLayout<'a> {
    /// The layout of `n` rays' hits on `mesh`, whose triangles' unit normals are `normals`.
    pub fn new(mesh: &'a Mesh, normals: &'a [Vec3], n: usize) -> Self {
        Self {
            mesh,
            normals,
            out: CastLayout::zeroed(n),
        }
    }

    /// The answers to the rays `reading` read, `shift(i)` that of ray `i`.
    pub fn answers(self, reading: &RayReading, shift: impl Fn(usize) -> f64 + Sync) -> Cast {
        self.out.answers(reading, shift)
    }
}

impl meshcast::gpu::AnswerSink<Option<meshcast::Hit>> for GpuCastLayout<'_> {
    fn take<I: IndexedParallelIterator<Item = Option<meshcast::Hit>>>(
        &mut self,
        first: usize,
        hits: I,
    ) {
        let (mesh, normals) = (self.mesh, Some(self.normals));
        let rays = first..first + hits.len();
        (hits.chunks(GRAIN), self.out.par_runs(rays, GRAIN))
            .into_par_iter()
            .for_each(|(hits, slices)| lay_out_hits(mesh, normals, &hits, slices));
    }

    /// Over the placeholder's miss: a hit writes every number a miss wrote.
    fn put(&mut self, ray: usize, hit: Option<meshcast::Hit>) {
        let slices = self.out.slices(ray..ray + 1);
        lay_out_hits(self.mesh, Some(self.normals), &[hit], slices);
    }
}

/// Writes `hits`, one per ray, into zeroed `slices`: `t` infinite and the ids
/// [`INVALID_ID`] on a miss.
fn lay_out_hits<T: Target>(
    target: &T,
    normals: Option<&[Vec3]>,
    hits: &[Option<<T as RayQueries>::Hit>],
    (t, geometry, primitive, uv, normal): CastSlices<'_>,
) {
    for (hit, i) in hits.iter().zip(0..) {
        match hit {
            Some(hit) => {
                t[i] = T::hit_t(hit);
                uv[2 * i..2 * i + 2].copy_from_slice(&T::hit_uv(hit));
            }
            None => {
                t[i] = f32::INFINITY;
                geometry[i] = INVALID_ID;
                primitive[i] = INVALID_ID;
            }
        }
    }
    // Normals in a second loop: their loads (cache misses on a large mesh) are independent
    // of one another there, so they overlap, where after each ray's walk they would not.
    for (i, hit) in hits.iter().enumerate() {
        if let Some(hit) = hit {
            let record = target.hit_record(hit, normals);
            geometry[i] = record.geometry;
            primitive[i] = record.primitive;
            normal[3 * i..3 * i + 3].copy_from_slice(&record.normal.to_array());
        }
    }
}

/// Every hit of every ray: Open3D's `list_intersections`.
pub struct Intersections {
    pub ray_splits: Vec<u32>,
    pub ray_ids: Vec<u32>,
    pub geometry_ids: Vec<u32>,
    pub primitive_ids: Vec<u32>,
    pub primitive_uvs: Vec<f32>,
    pub t_hit: Reals,
}

impl Intersections {
    /// The answers as Open3D's dict of flat arrays.
    pub fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let hits = self.ray_ids.len();
        let dict = PyDict::new(py);
        dict.set_item("ray_splits", PyArray1::from_vec(py, self.ray_splits))?;
        dict.set_item("ray_ids", PyArray1::from_vec(py, self.ray_ids))?;
        dict.set_item("geometry_ids", PyArray1::from_vec(py, self.geometry_ids))?;
        dict.set_item("primitive_ids", PyArray1::from_vec(py, self.primitive_ids))?;
        dict.set_item(
            "primitive_uvs",
            to_numpy(py, self.primitive_uvs, &[hits], &[2])?,
        )?;
        dict.set_item("t_hit", self.t_hit.into_numpy(py, &[hits], &[])?)?;
        Ok(dict)
    }
}

/// [`RayQueries::cast_all_batch`] of the rays `reading` reads from `rows`, laid out flat:
/// ray `i`'s hits are `ray_splits[i]..ray_splits[i + 1]`, nearest first, at most `max_hits`
/// of them.
///
/// # Errors
/// `ValueError` naming the first ray with a NaN or infinite number.
pub fn list<T: Target>(
    target: &T,
    rows: &RowsView<'_>,
    reading: &RayReading,
    max_hits: usize,
) -> PyResult<Intersections> {
    let read = ray_reading::rays(rows, reading)?;
    let options = QueryOptions::new().with_max_hits(max_hits);
    let lists = target.cast_all_batch_with(&read.rays, &options);
    let shift = |ray: usize| read.shifts[ray];
    Ok(list_answers(target, lists, reading, shift))
}

/// Lays out hit lists found elsewhere (on the GPU) as [`list`] does, the hits of the rays
/// `reading` read, `shift(i)` that of ray `i`.
pub fn list_answers<T: Target>(
    target: &T,
    lists: HitLists<<T as RayQueries>::Hit>,
    reading: &RayReading,
    shift: impl Fn(usize) -> f64 + Sync,
) -> Intersections {
    let (ray_splits, hits) = lists.into_parts();
    let records: Vec<(Record, f32)> = hits
        .par_iter()
        .with_min_len(GRAIN)
        .map(|hit| (target.hit_record(hit, None), T::hit_t(hit)))
        .collect();
    let ray_ids: Vec<u32> = ray_splits
        .par_windows(2)
        .enumerate()
        .flat_map_iter(|(ray, range)| {
            std::iter::repeat_n(ray as u32, (range[1] - range[0]) as usize)
        })
        .collect();
    let t_hit = records.iter().map(|&(_, t)| t).collect();
    Intersections {
        t_hit: reading.carried_back(t_hit, |hit| shift(ray_ids[hit] as usize)),
        ray_ids,
        geometry_ids: records.iter().map(|(r, _)| r.geometry).collect(),
        primitive_ids: records.iter().map(|(r, _)| r.primitive).collect(),
        primitive_uvs: records.iter().flat_map(|(r, _)| r.uv).collect(),
        ray_splits,
    }
}

/// The number of hits of each ray (each crossing of a closed surface once): Open3D's
/// `count_intersections`.
pub fn count<T: Target>(target: &T, rays: &[Ray]) -> Vec<i32> {
    target
        .count_batch(rays)
        .into_iter()
        .map(|count| i32::try_from(count).unwrap_or(i32::MAX))
        .collect()
}
