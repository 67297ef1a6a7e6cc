//! The ray queries of a mesh on a GPU (`Geometry`'s GPU level, a `GpuMesh` object): the GPU
//! traces the rays, the CPU engine finishes the few its rounding leaves open (through or
//! next to an edge or a vertex), and the answers are laid out as `queries` lays out the
//! CPU's, so that every answer is the CPU's. Rays reach the GPU as the CPU mesh reads them
//! (`ray_reading::RayReading`): world coordinates already carried into the mesh's frame.
//! The options (`contacts`, `max_hits`) are the CPU's, passed down as `QueryOptions`. Rays
//! on a CUDA device (`cast_device`, `occluded_device`) are read and answered there, through
//! the CUDA back end, the answers handed back as the caller's framework's arrays.

use meshcast::glam::DVec3;
use meshcast::gpu::{DeviceRays, Error as GpuError};
use meshcast::QueryOptions;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::place_in;
use crate::device_answers::{DeviceArray, Dtype};
use crate::error::{to_py, MeshcastError};
use crate::queries::{self, Cast, GpuCastLayout, Intersections};
use crate::ray_arguments::{DeviceArguments, RayArguments};
use crate::ray_reading::{row_rays, RayReading};
use crate::state::GpuState;
use crate::threads;

/// The closest hit of each ray.
pub fn cast(py: Python<'_>, state: &GpuState, query: &RayArguments<'_>) -> PyResult<Cast> {
    let options = query.first_hit_options();
    let view = query.rows.view();
    let mesh: &meshcast::Mesh = state.cpu();
    let reading = RayReading::new(&view, query.interval, Some(mesh));
    threads::run(py, query.threads, || {
        let clock = std::time::Instant::now();
        let rays = row_rays(&view, &reading)?;
        let checked = clock.elapsed();
        let mut layout = GpuCastLayout::new(mesh, state.normals(), view.len());
        state
            .mesh
            .cast_batch_into_with(&rays, &options, &mut layout)
            .map_err(to_py)?;
        let clock = std::time::Instant::now();
        let cast = layout.answers(&reading, |ray| view.shift(ray, &reading));
        if meshcast::gpu::profiling() {
            eprintln!(
                "meshcast python: rays checked {:.2} ms, t carried back {:.2} ms",
                checked.as_secs_f64() * 1e3,
                clock.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(cast)
    })
}

/// Whether each ray hits anything.
pub fn occluded(py: Python<'_>, state: &GpuState, query: &RayArguments<'_>) -> PyResult<Vec<bool>> {
    let options = query.first_hit_options();
    let view = query.rows.view();
    let reading = RayReading::new(&view, query.interval, Some(state.cpu().as_ref()));
    threads::run(py, query.threads, || {
        let rays = row_rays(&view, &reading)?;
        state
            .mesh
            .occluded_batch_with(&rays, &options)
            .map_err(to_py)
    })
}

/// The surface crossings of each ray.
pub fn count(py: Python<'_>, state: &GpuState, query: &RayArguments<'_>) -> PyResult<Vec<i32>> {
    let view = query.rows.view();
    let reading = RayReading::new(&view, query.interval, Some(state.cpu().as_ref()));
    threads::run(py, query.threads, || {
        let rays = row_rays(&view, &reading)?;
        let counts = state.mesh.count_batch(&rays).map_err(to_py)?;
        Ok(counts
            .into_iter()
            .map(|count| i32::try_from(count).unwrap_or(i32::MAX))
            .collect())
    })
}

/// Every hit of every ray, at most `query.max_hits` each.
pub fn list(py: Python<'_>, state: &GpuState, query: &RayArguments<'_>) -> PyResult<Intersections> {
    let view = query.rows.view();
    let max_hits = query.max_hits;
    let mesh: &meshcast::Mesh = state.cpu();
    let reading = RayReading::new(&view, query.interval, Some(mesh));
    threads::run(py, query.threads, || {
        let rays = row_rays(&view, &reading)?;
        let options = QueryOptions::new().with_max_hits(max_hits);
        let lists = state
            .mesh
            .cast_all_batch_with(&rays, &options)
            .map_err(to_py)?;
        let shift = |ray| view.shift(ray, &reading);
        Ok(queries::list_answers(mesh, lists, &reading, shift))
    })
}

/// The rays of `query` as the GPU mesh reads them on its CUDA device.
///
/// # Errors
/// `MeshcastError` for misaligned arrays, a mesh with no CUDA back end or with an origin of
/// its own; `ValueError` for arrays made on two different streams.
fn device_rays(state: &GpuState, query: &DeviceArguments) -> PyResult<DeviceRays> {
    let (origins, directions) = (
        query.origins.device_rows()?,
        query.directions.device_rows()?,
    );
    if state.mesh.gpu().cuda_device().is_none() {
        return Err(MeshcastError::new_err(format!(
            "rays on a CUDA device are read by the CUDA back end only, and this GpuMesh has \
             none ({} through wgpu: no NVIDIA driver or GPU, or MESHCAST_GPU_BACKEND=wgpu): \
             give the rays as numpy arrays",
            state.mesh.gpu().adapter().name
        )));
    }
    if state.cpu().origin() != DVec3::ZERO {
        return Err(MeshcastError::new_err(
            "this mesh has an origin of its own (Mesh.origin), into whose frame rays are \
             carried in float64 on the host: give the rays as numpy arrays",
        ));
    }
    let rays = DeviceRays::new(origins, directions, query.interval.closed_f32()).map_err(to_py)?;
    let stream = match (query.origins.stream, query.directions.stream) {
        (Some(o), Some(d)) if o != d => {
            return Err(PyValueError::new_err(format!(
                "origins made on stream {o:#x} and directions on stream {d:#x}: give one"
            )))
        }
        (o, d) => o.or(d),
    };
    Ok(match stream {
        // SAFETY: the stream the arrays' `__cuda_array_interface__` names, which the
        // producer keeps valid while the arrays are (arguments of this call); a stream of
        // their device, which the query checks is the mesh's.
        Some(stream) => unsafe { rays.after_stream(stream) },
        None => rays,
    })
}

/// The error of a query of rays on the device: a ray that is not finite named by its place
/// in the rays' shape (a `ValueError`, as for numpy's rays), the rest as meshcast's.
fn device_error(query: &DeviceArguments) -> impl Fn(GpuError) -> PyErr + '_ {
    move |error| match error {
        GpuError::NotFinite { ray } => {
            let place = place_in(&query.leading, ray);
            PyValueError::new_err(format!("rays{place:?} on the device is not finite"))
        }
        error => to_py(error),
    }
}

/// The closest hit of each ray on the device, laid out there in the caller's framework's
/// arrays (Open3D's keys, dtypes and shapes).
pub fn cast_device<'py>(
    py: Python<'py>,
    state: &GpuState,
    query: &DeviceArguments,
) -> PyResult<Bound<'py, PyDict>> {
    let rays = device_rays(state, query)?;
    let options = query.options();
    let cast = threads::run(py, query.threads, || {
        state
            .mesh
            .cast_device(&rays, &options)
            .map_err(device_error(query))
    })?;
    let framework = query.origins.framework;
    let shape = |width: Option<usize>| -> Vec<usize> {
        query.leading.iter().copied().chain(width).collect()
    };
    let dict = PyDict::new(py);
    for (key, buffer, width, dtype) in [
        ("t_hit", cast.t_hit, None, Dtype::F32),
        ("geometry_ids", cast.geometry_ids, None, Dtype::U32),
        ("primitive_ids", cast.primitive_ids, None, Dtype::U32),
        ("primitive_uvs", cast.primitive_uvs, Some(2), Dtype::F32),
        (
            "primitive_normals",
            cast.primitive_normals,
            Some(3),
            Dtype::F32,
        ),
    ] {
        let array = DeviceArray::new(buffer, shape(width), dtype);
        dict.set_item(key, array.into_framework(py, framework)?)?;
    }
    Ok(dict)
}

/// Whether each ray on the device hits anything, a `bool` array there in the caller's
/// framework.
pub fn occluded_device<'py>(
    py: Python<'py>,
    state: &GpuState,
    query: &DeviceArguments,
) -> PyResult<Bound<'py, PyAny>> {
    let rays = device_rays(state, query)?;
    let options = query.options();
    let occluded = threads::run(py, query.threads, || {
        state
            .mesh
            .occluded_device(&rays, &options)
            .map_err(device_error(query))
    })?;
    let array = DeviceArray::new(occluded, query.leading.clone(), Dtype::Bool);
    Ok(array
        .into_framework(py, query.origins.framework)?
        .into_bound(py))
}
