//! What viewpoints see of a mesh and how open its surface is: the Rust library's `views`
//! (visible vertices and triangles from eye points or a pinhole camera, lasso selection,
//! ambient occlusion and thickness) with numpy at the edge. `Mesh`'s and `Scene`'s methods
//! call these. Eyes and cameras are world coordinates, carried into the frame of a mesh with
//! an origin of its own (`Mesh.origin`).

use std::sync::RwLock;

use meshcast::glam::{DVec3, Vec2, Vec3};
use meshcast::{Thickness, Viewport};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{to_numpy, Rows};
use crate::camera::Camera;
use crate::error::to_py;
use crate::fields;
use crate::state::read;
use crate::threads;

/// The eye points of `eyes`, a `(3,)` point or a `(k, 3)` array of them, carried into the
/// frame of a mesh whose origin lies at `origin` (as given for an origin at zero; a NaN or
/// infinite one is the Rust library's to refuse).
///
/// # Errors
/// `ValueError` for another shape.
fn eyes_of(eyes: &Bound<'_, PyAny>, origin: DVec3) -> PyResult<Vec<Vec3>> {
    let rows =
        Rows::new(eyes, "eyes", 3)?.shaped(|leading| leading.len() <= 1, "(3,) or (k, 3)")?;
    Ok(rows.view().map_carried(origin, |eye| eye))
}

/// A count of rays per vertex, at least 1 (0 is the Rust library's to refuse).
fn rays_per_vertex(n: i128) -> PyResult<usize> {
    usize::try_from(fields::unsigned(n, "rays_per_vertex")?)
        .map_err(|_| PyValueError::new_err(format!("rays_per_vertex = {n} is too many rays")))
}

/// `visible`, one bool per vertex or triangle, as a numpy array.
fn bools(py: Python<'_>, visible: Vec<bool>) -> PyResult<Bound<'_, PyAny>> {
    let n = visible.len();
    to_numpy(py, visible, &[n], &[])
}

/// `Mesh.visible_vertices`.
pub fn visible_vertices<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    eyes: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let eyes = eyes_of(eyes, mesh.origin())?;
    let visible = threads::run(py, threads, || mesh.visible_vertices(&eyes).map_err(to_py))?;
    bools(py, visible)
}

/// `Mesh.visible_triangles`.
pub fn visible_triangles<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    eyes: &Bound<'py, PyAny>,
    density: f64,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let eyes = eyes_of(eyes, mesh.origin())?;
    let density = fields::length(density, "density")?;
    let visible = threads::run(py, threads, || {
        mesh.visible_triangles(&eyes, density).map_err(to_py)
    })?;
    bools(py, visible)
}

/// `Mesh.visible_vertices_in_view` and `Mesh.visible_triangles_in_view`: what `seen` (the
/// mesh's query) answers for the viewport of `camera` in the mesh's frame, as bools.
pub fn in_view<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    camera: &Camera,
    threads: Option<i64>,
    seen: impl FnOnce(&meshcast::Mesh, &Viewport) -> Vec<bool> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let viewport = camera.in_frame(mesh.origin()).viewport()?;
    let visible = threads::run(py, threads, || Ok(seen(mesh, &viewport)))?;
    bools(py, visible)
}

/// The points of `polygon`, an `(n, 2)` array of pixel coordinates.
fn polygon_of(polygon: &Bound<'_, PyAny>) -> PyResult<Vec<Vec2>> {
    let rows = Rows::new(polygon, "polygon", 2)?.shaped(|leading| leading.len() == 1, "(n, 2)")?;
    Ok(rows.view().map_rows(Vec2::from_array))
}

/// `Mesh.lasso_triangles`: the triangle ids, sorted, as `(k,)` uint32.
pub fn mesh_lasso<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    polygon: &Bound<'py, PyAny>,
    camera: &Camera,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let lasso = polygon_of(polygon)?;
    let viewport = camera.in_frame(mesh.origin()).viewport()?;
    let triangles = threads::run(py, threads, || {
        mesh.lasso_triangles(&viewport, &lasso, &meshcast::QueryOptions::new())
            .map_err(to_py)
    })?;
    let n = triangles.len();
    to_numpy(py, triangles, &[n], &[])
}

/// `Scene.lasso_triangles`: rows `(geometry id, triangle id)`, sorted, as `(k, 2)` uint32.
pub fn scene_lasso<'py>(
    py: Python<'py>,
    scene: &RwLock<meshcast::Scene>,
    polygon: &Bound<'py, PyAny>,
    camera: &Camera,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let lasso = polygon_of(polygon)?;
    let viewport = camera.viewport()?;
    let triangles = threads::run(py, threads, || {
        read(scene)
            .lasso_triangles(&viewport, &lasso, &meshcast::QueryOptions::new())
            .map_err(to_py)
    })?;
    let n = triangles.len();
    let rows: Vec<u32> = triangles
        .iter()
        .flat_map(|t| [t.instance.index(), t.triangle])
        .collect();
    to_numpy(py, rows, &[n], &[2])
}

/// `Mesh.ambient_occlusion`: float32 per vertex.
pub fn ambient_occlusion<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    rays: i128,
    max_distance: f64,
    seed: i128,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let rays = rays_per_vertex(rays)?;
    let max_distance = fields::length(max_distance, "max_distance")?;
    let seed = fields::unsigned(seed, "seed")?;
    let occlusion = threads::run(py, threads, || {
        mesh.ambient_occlusion(rays, max_distance, seed)
            .map_err(to_py)
    })?;
    let n = occlusion.len();
    to_numpy(py, occlusion, &[n], &[])
}

/// `Mesh.thickness`: a dict of `mean`, `min` (float32) and `hits` (uint32) per vertex.
pub fn thickness<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    rays: i128,
    half_angle_degrees: f64,
    seed: i128,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let rays = rays_per_vertex(rays)?;
    let seed = fields::unsigned(seed, "seed")?;
    let Thickness { mean, min, hits } = threads::run(py, threads, || {
        mesh.thickness(rays, half_angle_degrees as f32, seed)
            .map_err(to_py)
    })?;
    let n = hits.len();
    let dict = PyDict::new(py);
    dict.set_item("mean", to_numpy(py, mean, &[n], &[])?)?;
    dict.set_item("min", to_numpy(py, min, &[n], &[])?)?;
    dict.set_item("hits", to_numpy(py, hits, &[n], &[])?)?;
    Ok(dict)
}
