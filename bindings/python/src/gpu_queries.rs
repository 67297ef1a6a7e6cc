//! The ray queries of a mesh on a GPU (`Geometry`'s GPU level, a `GpuMesh` object): the GPU
//! traces the rays, the CPU engine finishes the few its rounding leaves open (through or
//! next to an edge or a vertex), and the answers are laid out as `queries` lays out the
//! CPU's, so that every answer is the CPU's. Rays reach the GPU as the CPU mesh reads them
//! (`ray_reading::RayReading`): world coordinates already carried into the mesh's frame.
//! The options (`contacts`, `max_hits`) are the CPU's, passed down as `QueryOptions`.

use meshcast::QueryOptions;
use pyo3::prelude::*;

use crate::error::to_py;
use crate::queries::{self, Cast, GpuCastLayout, Intersections};
use crate::ray_arguments::RayArguments;
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
