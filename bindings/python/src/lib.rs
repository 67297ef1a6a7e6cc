//! meshcast for Python: exact BVH ray casting on numpy arrays. The Python package
//! (`python/meshcast`) wraps this module, `meshcast._native`, and adds Open3D's
//! `RaycastingScene`, the trimesh drop-in and the Dask path.
//!
//! Modules use one another one way, each only the ones in the lines above it
//! (`tests/test_module_graph.py` holds it):
//!
//!     error, keywords, threads, arrays       the edge: exceptions, keywords, pools, numpy
//!     device_arrays, device_answers          the edge: arrays on a CUDA device, in and out
//!     ray_reading                            numpy's rows read as rays (carried to a mesh)
//!     transform, camera, state, building     values read from Python; what an object holds
//!     queries, ray_arguments                 the ray queries, written once for every level
//!     world_queries                          a far scene's ray queries on float64 rays, in f64
//!     point_queries                          the point queries, written once
//!     contact, fields, views, gpu_queries    the concepts' work, on engine values only
//!     objects                                the `Geometry` and `Mesh` classes' layouts
//!     geometry, gpu                          `Geometry`'s methods (every level's); `GpuMesh`
//!     mesh, scene, benchmark                 `Mesh`'s and `Scene`'s methods (`Mesh.to_gpu`)
//!
//! `Mesh`, `Scene` and `GpuMesh` are the three levels of `Geometry` (`state::Level`), whose
//! methods answer for all three. Concept modules take `Arc<meshcast::Mesh>`,
//! `&RwLock<meshcast::Scene>`, a `state::GpuState` and arrays, never a class;
//! `GpuMesh.to_cpu` makes its `Mesh` through `objects`, not `mesh`.

mod arrays;
mod benchmark;
mod building;
mod camera;
mod contact;
mod device_answers;
mod device_arrays;
mod error;
mod fields;
mod geometry;
mod gpu;
mod gpu_queries;
mod keywords;
mod mesh;
mod objects;
mod point_queries;
mod queries;
mod ray_arguments;
mod ray_reading;
mod scene;
mod state;
mod threads;
mod transform;
mod views;
mod world_queries;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<camera::Camera>()?;
    m.add_class::<objects::Geometry>()?;
    m.add_class::<objects::Mesh>()?;
    m.add_class::<scene::Scene>()?;
    m.add_class::<gpu::GpuMesh>()?;
    m.add_class::<device_answers::DeviceArray>()?;
    m.add_function(wrap_pyfunction!(device_answers::_host_array, m)?)?;
    m.add_function(wrap_pyfunction!(gpu::gpu_adapters, m)?)?;
    m.add("MeshcastError", m.py().get_type::<error::MeshcastError>())?;
    m.add("INVALID_ID", queries::INVALID_ID)?;
    m.add_function(wrap_pyfunction!(benchmark::rust_cast_batch_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(mesh::triangle_distances, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
