//! What the Python call's overhead is measured against: the Rust library's own batch, timed
//! here (outside `geometry.rs`, which `mesh.rs` builds on, so that imports run one way).

use std::time::Instant;

use meshcast::RayQueries;
use pyo3::prelude::*;

use crate::arrays::Rows;
use crate::objects::Mesh;
use crate::ray_reading::{self, Interval, RayReading};
use crate::threads;

/// The seconds `Mesh::cast_batch` of the Rust library takes on `rays` (already made into
/// `Ray`s) on `threads` threads, best of `repeat`: what the Python call's overhead is measured
/// against (`benchmarks/throughput.py`).
#[pyfunction]
#[pyo3(name = "_rust_cast_batch_seconds", signature = (mesh, rays, threads=None, repeat=5))]
pub fn rust_cast_batch_seconds(
    py: Python<'_>,
    mesh: &Bound<'_, Mesh>,
    rays: &Bound<'_, PyAny>,
    threads: Option<i64>,
    repeat: usize,
) -> PyResult<f64> {
    let mesh = Mesh::shared(mesh);
    let rows = Rows::new(rays, "rays", 6)?;
    let view = rows.view();
    threads::run(py, threads, || {
        let reading = RayReading::new(&view, Interval::POSITIVE, Some(mesh.as_ref()));
        let rays = ray_reading::rays::<meshcast::Ray>(&view, &reading)?.rays;
        let mut best = f64::INFINITY;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let hits = mesh.cast_batch(&rays);
            best = best.min(start.elapsed().as_secs_f64());
            std::hint::black_box(hits);
        }
        Ok(best)
    })
}
