//! The ray queries of `Geometry` (`cast_rays`, `test_occlusions`, `count_intersections`,
//! `list_intersections`, and `cast_camera`, `cast_rays` of a camera's pixels) written once:
//! the class says how its engine answers ([`RayEngine`]: each level, `Mesh`, `Scene` and
//! `GpuMesh`, its own); reading the arguments and laying out the answers is here.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{to_numpy, Rows};
use crate::camera::{Camera, Clip};
use crate::queries::{Cast, Intersections};
use crate::ray_arguments::{range, RayArguments, RayQuery};
use crate::threads;

/// How a class answers the ray queries on checked arguments, with the GIL released.
pub trait RayEngine {
    /// The closest hit of each ray.
    fn cast(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Cast>;
    /// Whether each ray hits anything.
    fn occluded(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<bool>>;
    /// The surface crossings of each ray.
    fn count(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<i32>>;
    /// Every hit of every ray, at most `query.max_hits` each.
    fn list(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Intersections>;
}

/// `cast_rays`: a dict of the closest hits.
pub fn cast_rays<'py>(
    engine: &impl RayEngine,
    py: Python<'py>,
    rays: Option<&Bound<'py, PyAny>>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let query = RayArguments::read(py, RayQuery::Cast, rays, keywords)?;
    engine.cast(py, &query)?.into_dict(py, &query.rows.leading)
}

/// `test_occlusions`: bool.
pub fn test_occlusions<'py>(
    engine: &impl RayEngine,
    py: Python<'py>,
    rays: Option<&Bound<'py, PyAny>>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let query = RayArguments::read(py, RayQuery::Occluded, rays, keywords)?;
    to_numpy(py, engine.occluded(py, &query)?, &query.rows.leading, &[])
}

/// `count_intersections`: int32.
pub fn count_intersections<'py>(
    engine: &impl RayEngine,
    py: Python<'py>,
    rays: Option<&Bound<'py, PyAny>>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let query = RayArguments::read(py, RayQuery::Count, rays, keywords)?;
    to_numpy(py, engine.count(py, &query)?, &query.rows.leading, &[])
}

/// `list_intersections`: a dict of flat arrays.
pub fn list_intersections<'py>(
    engine: &impl RayEngine,
    py: Python<'py>,
    rays: Option<&Bound<'py, PyAny>>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let query = RayArguments::read(py, RayQuery::List, rays, keywords)?;
    engine.list(py, &query)?.into_dict(py)
}

/// `cast_camera`: `cast_rays` of the rays through the centres of the camera's pixels (rows
/// from the top), each hit with `near < t <= far`, `t` the distance from the eye; the dict's
/// arrays of shape `(height, width)`. The rays are the viewport's, those the `*_in_view`
/// calls cast ([`Camera::pixel_rows`]), answered by the engine's own `cast`.
///
/// # Errors
/// As [`Camera::of_call`] and [`Camera::pixel_rows`], and as the engine's `cast`.
pub fn cast_camera<'py>(
    engine: &impl RayEngine,
    py: Python<'py>,
    camera: Option<&Bound<'py, Camera>>,
    threads: Option<i64>,
    contacts: bool,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let camera = Camera::of_call("cast_camera", camera, keywords, Clip::Planes)?;
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
    engine.cast(py, &query)?.into_dict(py, &leading)
}
