//! `Geometry`'s methods, the queries a `Mesh`, a `Scene` and a `GpuMesh` share (rays,
//! points, the camera's image): each written once for every level. A `GpuMesh` traces the
//! rays on its GPU (`gpu_queries`) and answers the point queries with its CPU mesh.
//!
//! A mesh's queries take `float64` rays and points as world coordinates in `f64` (and any
//! when the mesh has an origin of its own, `Mesh.origin`): rays are carried into its frame
//! as they are read (`ray_reading::RayReading`), points answered by its queries of `DVec3`s. A
//! scene far from the origin answers `float64` rays (`world_queries`) and points
//! (`point_queries::World`) by the engine's `f64` scene queries.

use meshcast::glam::{DVec3, Vec3};
use std::sync::Arc;

use meshcast::{PointQueries, RayQueries};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::arrays::{self, to_numpy, Answers, Reals, Rows, RowsView};
use crate::camera::{Camera, Clip};
use crate::objects::Geometry;
use crate::point_queries::World;
use crate::queries::Target;
use crate::ray_arguments::{RayArguments, RayQuery, Rays};
use crate::ray_reading::{self, Interval, RayReading};
use crate::state::{current, read, GpuState, Level};
use crate::threads;
use crate::{gpu_queries, point_queries, queries, world_queries};

/// Runs `$body` with `$target` bound to the mesh or the scene, on the pool of `$threads`
/// threads with the GIL released (the body is compiled once for each level). A mesh on a
/// GPU is its CPU mesh here: the point queries are answered on the CPU.
macro_rules! on_target {
    // A `Mesh`'s or a `GpuMesh`'s state: its CPU mesh and the normals it keeps.
    (@mesh $state:expr, $py:expr, $threads:expr, |$target:ident, $normals:ident| $body:expr) => {{
        let state = $state;
        threads::run($py, $threads, || {
            let $target: &meshcast::Mesh = state.cpu();
            let $normals: Option<&[Vec3]> = Some(state.normals());
            $body
        })
    }};
    ($geometry:expr, $py:expr, $threads:expr, |$target:ident| $body:expr) => {
        on_target!($geometry, $py, $threads, |$target, _normals| $body)
    };
    ($geometry:expr, $py:expr, $threads:expr, |$target:ident, $normals:ident| $body:expr) => {
        match &$geometry.level {
            Level::Mesh(state) => {
                on_target!(@mesh current(state), $py, $threads, |$target, $normals| $body)
            }
            Level::Gpu(state) => {
                on_target!(@mesh current(state), $py, $threads, |$target, $normals| $body)
            }
            Level::Scene(scene) => threads::run($py, $threads, || {
                let guard = read(scene);
                let $target: &meshcast::Scene = &guard;
                let $normals: Option<&[Vec3]> = None;
                $body
            }),
        }
    };
}

/// One answer per point of `$points` (an array of shape `(..., 3)` the caller calls
/// `$name`): the body of every point query that answers one array. `$answer` computes them
/// with `$target` the mesh or scene and `$found` the points in `f32`; for points in world
/// coordinates (a far mesh or scene, or a mesh asked with `float64` points: [`World::of`]),
/// `$world_answer` computes them (the same type) with `$answerer` the [`World`], `$world`
/// the points in `f64` and `$wide` whether they came as `float64`.
macro_rules! per_point {
    ($geometry:expr, $py:expr, $points:expr, $name:literal, $threads:expr, |$target:ident, $found:ident| $answer:expr, |$answerer:ident, $world:ident, $wide:ident| $world_answer:expr) => {{
        let rows = Rows::new($points, $name, 3)?;
        let view = rows.view();
        let answers = on_target!($geometry, $py, $threads, |$target| {
            match World::of($target, &view) {
                None => {
                    let $found = arrays::points(&view)?;
                    Ok($answer)
                }
                Some($answerer) => {
                    let $world = arrays::world_points(&view)?;
                    let $wide = view.is_wide();
                    Ok($world_answer)
                }
            }
        })?;
        answers.into_numpy($py, &rows.leading, &[])
    }};
}

/// How far a closest-point query looks: points whose distance, as answered, is at most
/// `max_distance`.
///
/// # Errors
/// `ValueError` for a NaN or negative distance.
fn reach(max_distance: f64) -> PyResult<point_queries::Reach> {
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(PyValueError::new_err(format!(
            "max_distance must be at least 0, not {max_distance}"
        )));
    }
    Ok(point_queries::Reach::new(max_distance))
}

/// The scene that answers `rows` in `f64` ([`world_queries::answers`]): a scene far from the
/// origin asked with `float64` rays; `None` otherwise.
fn world_scene<'t>(target: &'t impl Target, rows: &RowsView<'_>) -> Option<&'t meshcast::Scene> {
    target
        .world_scene()
        .filter(|scene| world_queries::answers(scene, rows))
}

/// 1.0 for each point inside, 0.0 outside: `compute_occupancy`'s answers.
fn occupancy(inside: Vec<bool>) -> Vec<f32> {
    inside
        .into_iter()
        .map(|inside| if inside { 1.0 } else { 0.0 })
        .collect()
}

#[pymethods]
impl Geometry {
    /// The closest hit of each ray with `tnear < t <= tfar`, as Open3D's `cast_rays`: a
    /// dict of `t_hit` (inf on a miss; float32, float64 for a mesh's float64 rays),
    /// `geometry_ids` and `primitive_ids` (uint32, `INVALID_ID` on a miss), `primitive_uvs`
    /// (..., 2) and `primitive_normals` (..., 3, the unit geometric normal). With
    /// `contacts` (the default) a ray that touches a triangle's edge or vertex hits it;
    /// without, each edge and vertex belongs to one triangle (the tie rule of
    /// `list_intersections`).
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., contacts=True, threads=None)")]
    fn cast_rays<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        match RayArguments::read_rays(py, RayQuery::Cast, rays, keywords)? {
            Rays::Host(query) => self.cast(py, &query)?.into_dict(py, &query.rows.leading),
            Rays::Device(query) => {
                gpu_queries::cast_device(py, &*self.on_device("cast_rays")?, &query)
            }
        }
    }

    /// `cast_rays` of a pinhole camera's image: one ray from the eye through the centre of
    /// each pixel, rows from the top (the rays the `*_in_view` calls cast), each hit with
    /// `near < t <= far` (`t` the distance from the eye). The same dict as `cast_rays`, each
    /// array of leading shape `(height, width)`. `camera` is a `Camera`, or its keywords as
    /// `visible_triangles_in_view` takes them; `contacts` as for `cast_rays`.
    #[pyo3(signature = (camera=None, *, threads=None, contacts=true, **camera_keywords))]
    fn cast_camera<'py>(
        &self,
        py: Python<'py>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        contacts: bool,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        // The viewport's rays, those the `*_in_view` calls cast, answered by this level's cast.
        let camera = Camera::of_call("cast_camera", camera, camera_keywords, Clip::Planes)?;
        let viewport = camera.viewport()?;
        let leading = [camera.height as usize, camera.width as usize];
        let rows = threads::run(py, threads, || camera.pixel_rows(&viewport))?;
        let query = RayArguments {
            rows: Rows::made(rows, leading.to_vec(), 6, "rays"),
            interval: Interval::new(camera.near.into(), camera.far.into())?,
            threads,
            contacts,
            max_hits: usize::MAX,
        };
        self.cast(py, &query)?.into_dict(py, &leading)
    }

    /// Whether each ray hits anything with `tnear < t <= tfar`, stopping at the first hit
    /// found: Open3D's `test_occlusions` (bool). `contacts` as for `cast_rays`.
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., contacts=True, threads=None)")]
    fn test_occlusions<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match RayArguments::read_rays(py, RayQuery::Occluded, rays, keywords)? {
            Rays::Host(query) => to_numpy(py, self.occluded(py, &query)?, &query.rows.leading, &[]),
            Rays::Device(query) => {
                gpu_queries::occluded_device(py, &*self.on_device("test_occlusions")?, &query)
            }
        }
    }

    /// The number of surface crossings of each ray with `tnear < t <= tfar` (int32), each
    /// exactly once, also through shared edges and vertices: Open3D's `count_intersections`.
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., threads=None)")]
    fn count_intersections<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let query = RayArguments::read(py, RayQuery::Count, rays, keywords)?;
        to_numpy(py, self.count(py, &query)?, &query.rows.leading, &[])
    }

    /// Every hit of every ray with `tnear < t <= tfar`, nearest first, in flat arrays:
    /// Open3D's `list_intersections`. Ray `i` (counted over the flattened leading shape)
    /// has the hits `ray_splits[i]:ray_splits[i + 1]` of `ray_ids`, `geometry_ids`,
    /// `primitive_ids`, `primitive_uvs` (k, 2) and `t_hit` (as `cast_rays`'). `max_hits`
    /// keeps each ray's first `max_hits` hits (ties by the hit order) and stops looking
    /// past them.
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., max_hits=None, threads=None)")]
    fn list_intersections<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let query = RayArguments::read(py, RayQuery::List, rays, keywords)?;
        self.list(py, &query)?.into_dict(py)
    }

    /// The nearest surface point to each point: Open3D's `compute_closest_points`, a dict
    /// of `points` (..., 3), `geometry_ids`, `primitive_ids`, `primitive_uvs` (..., 2) and
    /// `primitive_normals` (..., 3), Open3D's keys; with `with_distance`, also `distance`.
    /// `points` and `distance` are float32, float64 world coordinates and distances for
    /// float64 points of a mesh or of a scene far from the origin. Where no surface is
    /// within `max_distance` (or none at all): points NaN, ids `INVALID_ID`, uvs and normals
    /// 0, distance inf.
    #[pyo3(signature = (query_points, *, max_distance=f64::INFINITY, with_distance=false, threads=None))]
    fn compute_closest_points<'py>(
        &self,
        py: Python<'py>,
        query_points: &Bound<'py, PyAny>,
        max_distance: f64,
        with_distance: bool,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rows = Rows::new(query_points, "query_points", 3)?;
        let view = rows.view();
        let reach = reach(max_distance)?;
        let closest = on_target!(self, py, threads, |target| {
            match World::of(target, &view) {
                None => Ok(point_queries::closest(
                    target,
                    &arrays::points(&view)?,
                    reach,
                )),
                Some(world) => {
                    let points = arrays::world_points(&view)?;
                    Ok(point_queries::closest_world(
                        world,
                        &points,
                        reach,
                        view.is_wide(),
                    ))
                }
            }
        })?;
        let lead = &rows.leading;
        let dict = PyDict::new(py);
        dict.set_item("points", closest.points.into_numpy(py, lead, &[3])?)?;
        dict.set_item(
            "geometry_ids",
            to_numpy(py, closest.geometry_ids, lead, &[])?,
        )?;
        dict.set_item(
            "primitive_ids",
            to_numpy(py, closest.primitive_ids, lead, &[])?,
        )?;
        dict.set_item(
            "primitive_uvs",
            to_numpy(py, closest.primitive_uvs, lead, &[2])?,
        )?;
        dict.set_item(
            "primitive_normals",
            to_numpy(py, closest.primitive_normals, lead, &[3])?,
        )?;
        if with_distance {
            dict.set_item("distance", closest.distance.into_numpy(py, lead, &[])?)?;
        }
        Ok(dict)
    }

    /// The distance from each point to the surface (float32, float64 for the float64 points
    /// of a mesh or a far scene; inf where there is none within `max_distance`).
    #[pyo3(signature = (query_points, *, max_distance=f64::INFINITY, threads=None))]
    fn compute_distance<'py>(
        &self,
        py: Python<'py>,
        query_points: &Bound<'py, PyAny>,
        max_distance: f64,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reach = reach(max_distance)?;
        per_point!(
            self,
            py,
            query_points,
            "query_points",
            threads,
            |target, points| Reals::F32(point_queries::distance(target, &points, reach)),
            |world, points, wide| point_queries::distance_world(world, &points, reach, wide)
        )
    }

    /// The signed distance from each point to the surface, negative inside (float32,
    /// float64 for the float64 points of a mesh or a far scene): inside is exact on closed
    /// meshes (the parity of one ray's crossings) and the generalised winding number
    /// elsewhere.
    #[pyo3(signature = (query_points, *, threads=None))]
    fn compute_signed_distance<'py>(
        &self,
        py: Python<'py>,
        query_points: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        per_point!(
            self,
            py,
            query_points,
            "query_points",
            threads,
            |target, points| Reals::F32(point_queries::signed_distance(target, &points)),
            |world, points, wide| {
                let distances = point_queries::each_world_point(&points, |point| {
                    world.signed_distance(point).unwrap_or(f64::INFINITY)
                });
                Reals::new(distances, wide)
            }
        )
    }

    /// 1.0 for each point inside, 0.0 outside (float32, as Open3D's `compute_occupancy`);
    /// see `contains`.
    #[pyo3(signature = (query_points, *, threads=None))]
    fn compute_occupancy<'py>(
        &self,
        py: Python<'py>,
        query_points: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        per_point!(
            self,
            py,
            query_points,
            "query_points",
            threads,
            |target, points| occupancy(target.contains_batch(&points)),
            |world, points, _wide| {
                occupancy(point_queries::each_world_point(&points, |p| {
                    world.contains(p)
                }))
            }
        )
    }

    /// Whether each point is inside (bool): exact on closed meshes (the parity of the
    /// crossings of one ray), the generalised winding number at least 0.5 on others.
    #[pyo3(signature = (points, *, threads=None))]
    fn contains<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        per_point!(
            self,
            py,
            points,
            "points",
            threads,
            |target, points| target.contains_batch(&points),
            |world, points, _wide| point_queries::each_world_point(&points, |p| world.contains(p))
        )
    }

    /// The generalised winding number at each point (float32, float64 for the float64 points
    /// of a mesh or a far scene; Jacobson et al. 2013): about 1
    /// inside a closed, outward-facing surface and 0 outside.
    #[pyo3(signature = (points, *, threads=None))]
    fn winding_number<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        per_point!(
            self,
            py,
            points,
            "points",
            threads,
            |target, points| Reals::F32(target.winding_number_batch(&points)),
            |world, points, wide| {
                let winding = point_queries::each_world_point(&points, |p| world.winding_number(p));
                Reals::new(winding, wide)
            }
        )
    }

    /// The box around everything: `[[min x, y, z], [max x, y, z]]` (float32; float64 world
    /// coordinates for a mesh with an origin of its own, `Mesh.origin`).
    #[getter]
    fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (bounds, origin) = match &self.level {
            Level::Mesh(state) => (current(state).cpu().bounds(), current(state).cpu().origin()),
            Level::Gpu(state) => (current(state).cpu().bounds(), current(state).cpu().origin()),
            Level::Scene(scene) => (read(scene).bounds(), DVec3::ZERO),
        };
        arrays::frame_points(py, &[bounds.min, bounds.max], origin)
    }

    /// The rays of a pinhole camera, shape `(height_px, width_px, 6)` float32, as Open3D's
    /// `create_rays_pinhole` makes them, in either of its forms:
    /// `(intrinsic_matrix, extrinsic_matrix, width_px, height_px)` (3x3 K, 4x4 world to
    /// camera) or `(fov_deg, center, eye, up, width_px, height_px)`. See
    /// `meshcast.create_rays_pinhole`.
    #[staticmethod]
    #[pyo3(signature = (*args, **kwargs))]
    fn create_rays_pinhole<'py>(
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        py.import("meshcast._open3d")?
            .getattr("create_rays_pinhole")?
            .call(args, kwargs)
    }
}

/// The ray queries of every level: a mesh on a GPU traces them there, a mesh or a scene on
/// the CPU.
/// How each level answers the ray queries on checked arguments, with the GIL released: a
/// mesh or a scene by the CPU engine, a mesh on a GPU by the GPU (`gpu_queries`).
impl Geometry {
    /// The GPU mesh that answers `method` of rays on a CUDA device.
    ///
    /// # Errors
    /// `TypeError` for a mesh or a scene on the CPU.
    fn on_device(&self, method: &str) -> PyResult<Arc<GpuState>> {
        match &self.level {
            Level::Gpu(state) => Ok(current(state)),
            Level::Mesh(..) | Level::Scene(..) => Err(PyTypeError::new_err(format!(
                "{method}() of a Mesh or a Scene takes rays on the host (numpy arrays); rays \
                 on a CUDA device are cast by a GpuMesh (Mesh.to_gpu()) with the CUDA back end"
            ))),
        }
    }

    /// The closest hit of each ray.
    fn cast(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<queries::Cast> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::cast(py, &current(state), query);
        }
        let view = query.rows.view();
        let chunk = queries::cast_chunk(&query.rows.leading);
        let interval = query.interval;
        let options = query.first_hit_options();
        on_target!(self, py, query.threads, |target, normals| {
            if let Some(scene) = world_scene(target, &view) {
                return world_queries::cast(scene, &view, interval, &options);
            }
            let reading = RayReading::new(&view, interval, target.frame());
            queries::cast(target, normals, &view, chunk, &reading, &options)
        })
    }

    /// Whether each ray hits anything.
    fn occluded(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<bool>> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::occluded(py, &current(state), query);
        }
        let view = query.rows.view();
        let interval = query.interval;
        let options = query.first_hit_options();
        on_target!(self, py, query.threads, |target| {
            if let Some(scene) = world_scene(target, &view) {
                return world_queries::occluded(scene, &view, interval, &options);
            }
            let reading = RayReading::new(&view, interval, target.frame());
            let read = ray_reading::rays::<meshcast::Ray>(&view, &reading)?;
            Ok(target.occluded_batch_with(&read.rays, &options))
        })
    }

    /// The surface crossings of each ray.
    fn count(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<i32>> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::count(py, &current(state), query);
        }
        let view = query.rows.view();
        let interval = query.interval;
        on_target!(self, py, query.threads, |target| {
            if let Some(scene) = world_scene(target, &view) {
                return world_queries::count(scene, &view, interval);
            }
            let reading = RayReading::new(&view, interval, target.frame());
            let read = ray_reading::rays::<meshcast::Ray>(&view, &reading)?;
            Ok(queries::count(target, &read.rays))
        })
    }

    /// Every hit of every ray, at most `query.max_hits` each.
    fn list(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<queries::Intersections> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::list(py, &current(state), query);
        }
        let view = query.rows.view();
        let (interval, max_hits) = (query.interval, query.max_hits);
        on_target!(self, py, query.threads, |target| {
            if let Some(scene) = world_scene(target, &view) {
                return world_queries::list(scene, &view, interval, max_hits);
            }
            let reading = RayReading::new(&view, interval, target.frame());
            queries::list(target, &view, &reading, max_hits)
        })
    }
}
