//! `Geometry`'s methods, the queries a `Mesh`, a `Scene` and a `GpuMesh` share (rays,
//! points, the camera's image): each written once for every level. A `GpuMesh` traces the
//! rays on its GPU (`gpu_queries`) and answers the point queries with its CPU mesh.

use meshcast::glam::Vec3;
use meshcast::{Contacts, PointQueries, QueryOptions, RayQueries};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::arrays::{self, to_numpy, Rows};
use crate::camera::{Camera, Clip};
use crate::objects::Geometry;
use crate::ray_arguments::{range, RayArguments, RayQuery};
use crate::state::{current, read, Level};
use crate::threads;
use crate::{gpu_queries, queries};

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
/// `$name`), from `$answer`, a `Vec` computed with `$target` the mesh or scene and `$found`
/// the points: the body of every point query that answers one array.
macro_rules! per_point {
    ($geometry:expr, $py:expr, $points:expr, $name:literal, $threads:expr, |$target:ident, $found:ident| $answer:expr) => {{
        let rows = Rows::new($points, $name, 3)?;
        let view = rows.view();
        let answers = on_target!($geometry, $py, $threads, |$target| {
            let $found = arrays::points(&view)?;
            Ok($answer)
        })?;
        to_numpy($py, answers, &rows.leading, &[])
    }};
}

/// How far a closest-point query looks: points whose distance, as answered, is at most
/// `max_distance`.
///
/// # Errors
/// `ValueError` for a NaN or negative distance.
fn reach(max_distance: f64) -> PyResult<queries::Reach> {
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(PyValueError::new_err(format!(
            "max_distance must be at least 0, not {max_distance}"
        )));
    }
    Ok(queries::Reach::new(max_distance))
}

/// The options of a closest or any hit: whether a ray touching an edge or a vertex hits.
fn first_hit_options(contacts: bool) -> QueryOptions {
    QueryOptions::new().with_contacts(if contacts {
        Contacts::Hit
    } else {
        Contacts::TieRule
    })
}

#[pymethods]
impl Geometry {
    /// The closest hit of each ray with `tnear < t <= tfar`, as Open3D's `cast_rays`: a dict
    /// of `t_hit` (inf on a miss), `geometry_ids` and `primitive_ids` (uint32, `INVALID_ID`
    /// on a miss), `primitive_uvs` (..., 2) and `primitive_normals` (..., 3, the unit
    /// geometric normal). With `contacts` (the default) a ray that touches a triangle's edge
    /// or vertex hits it; without, each edge and vertex belongs to one triangle (the tie rule
    /// of `list_intersections`).
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., contacts=True, threads=None)")]
    fn cast_rays<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let query = RayArguments::read(py, RayQuery::Cast, rays, keywords)?;
        self.cast(py, &query)?.into_dict(py, &query.rows.leading)
    }

    /// `cast_rays` of a pinhole camera's image: one ray from the eye through the centre of
    /// each pixel, rows from the top (the rays the `*_in_view` calls cast), each hit with
    /// `near < t <= far` (`t` the distance from the eye). The same dict as `cast_rays`, each
    /// array of leading shape `(height, width)`. `camera` is a `Camera`, or its keywords as
    /// `visible_triangles_in_view` takes them; `contacts` as for `cast_rays`.
    #[pyo3(signature = (camera=None, *, threads=None, contacts=true, **camera_keywords), text_signature = "(camera=None, *, eye=None, center=None, up=[0.0, 1.0, 0.0], fov_deg=60.0, width_px=None, height_px=None, near=0.01, far=..., contacts=True, threads=None)")]
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
        let rays = to_numpy(py, rows, &leading, &[6])?;
        let query = RayArguments {
            rows: Rows::new(&rays, "rays", 6)?,
            range: range(camera.near.into(), camera.far.into())?,
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
        let query = RayArguments::read(py, RayQuery::Occluded, rays, keywords)?;
        to_numpy(py, self.occluded(py, &query)?, &query.rows.leading, &[])
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
    /// Open3D's `list_intersections`. Ray `i` (counted over the flattened leading shape) has
    /// the hits `ray_splits[i]:ray_splits[i + 1]` of `ray_ids`, `geometry_ids`,
    /// `primitive_ids`, `primitive_uvs` (k, 2) and `t_hit`. `max_hits` keeps each ray's
    /// first `max_hits` hits (ties by the hit order) and stops looking past them.
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

    /// The nearest surface point to each point: Open3D's `compute_closest_points`, a dict of
    /// `points` (..., 3), `geometry_ids`, `primitive_ids`, `primitive_uvs` (..., 2) and
    /// `primitive_normals` (..., 3), Open3D's keys; with `with_distance`, also `distance`
    /// (float32). Where no surface is within `max_distance` (or none at all): points NaN,
    /// ids `INVALID_ID`, uvs and normals 0, distance inf.
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
            let points = arrays::points(&view)?;
            Ok(queries::closest(target, &points, reach))
        })?;
        let lead = &rows.leading;
        let dict = PyDict::new(py);
        dict.set_item("points", to_numpy(py, closest.points, lead, &[3])?)?;
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
            dict.set_item("distance", to_numpy(py, closest.distance, lead, &[])?)?;
        }
        Ok(dict)
    }

    /// The distance from each point to the surface (float32; inf where there is none within
    /// `max_distance`).
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
            |target, points| queries::distance(target, &points, reach)
        )
    }

    /// The signed distance from each point to the surface, negative inside (float32): inside
    /// is exact on closed meshes (the parity of one ray's crossings) and the generalised
    /// winding number elsewhere.
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
            |target, points| queries::signed_distance(target, &points)
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
            |target, points| {
                target
                    .contains_batch(&points)
                    .into_iter()
                    .map(|inside| if inside { 1.0_f32 } else { 0.0 })
                    .collect::<Vec<f32>>()
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
        per_point!(self, py, points, "points", threads, |target, points| {
            target.contains_batch(&points)
        })
    }

    /// The generalised winding number at each point (float32; Jacobson et al. 2013): about 1
    /// inside a closed, outward-facing surface and 0 outside.
    #[pyo3(signature = (points, *, threads=None))]
    fn winding_number<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        per_point!(self, py, points, "points", threads, |target, points| {
            target.winding_number_batch(&points)
        })
    }

    /// The box around everything: `[[min x, y, z], [max x, y, z]]` (float32).
    #[getter]
    fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let bounds = match &self.level {
            Level::Mesh(state) => current(state).cpu().bounds(),
            Level::Gpu(state) => current(state).cpu().bounds(),
            Level::Scene(scene) => read(scene).bounds(),
        };
        let corners = [bounds.min.to_array(), bounds.max.to_array()].concat();
        to_numpy(py, corners, &[2], &[3])
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

/// The ray queries of every level: a mesh on a GPU traces them there (`contacts=False`
/// refused), a mesh or a scene on the CPU.
/// How each level answers the ray queries on checked arguments, with the GIL released: a
/// mesh or a scene by the CPU engine, a mesh on a GPU by the GPU (`gpu_queries`).
impl Geometry {
    /// The closest hit of each ray.
    fn cast(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<queries::Cast> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::cast(py, &current(state), query);
        }
        let view = query.rows.view();
        let chunk = queries::cast_chunk(&query.rows.leading);
        let range = query.range;
        let options = first_hit_options(query.contacts);
        on_target!(self, py, query.threads, |target, normals| {
            queries::cast(target, normals, &view, chunk, range, &options)
        })
    }

    /// Whether each ray hits anything.
    fn occluded(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<bool>> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::occluded(py, &current(state), query);
        }
        let view = query.rows.view();
        let range = query.range;
        let options = first_hit_options(query.contacts);
        on_target!(self, py, query.threads, |target| {
            let rays = arrays::rays(&view, Some(range))?;
            Ok(target.occluded_batch_with(&rays, &options))
        })
    }

    /// The surface crossings of each ray.
    fn count(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<i32>> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::count(py, &current(state), query);
        }
        let view = query.rows.view();
        let range = query.range;
        on_target!(self, py, query.threads, |target| {
            let rays = arrays::rays(&view, Some(range))?;
            Ok(queries::count(target, &rays))
        })
    }

    /// Every hit of every ray, at most `query.max_hits` each.
    fn list(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<queries::Intersections> {
        if let Level::Gpu(state) = &self.level {
            return gpu_queries::list(py, &current(state), query);
        }
        let view = query.rows.view();
        let (range, max_hits) = (query.range, query.max_hits);
        on_target!(self, py, query.threads, |target| {
            let rays = arrays::rays(&view, Some(range))?;
            Ok(queries::list(target, &rays, max_hits))
        })
    }
}
