//! `GpuMesh`, a mesh on the GPU (`Mesh.to_gpu()`), answering the ray queries of `Mesh` with
//! the same arrays, and `gpu_adapters()`. The work is `meshcast::gpu`'s: the GPU answers
//! what its rounding decides, the CPU engine the few rays it leaves open, so every answer
//! is the CPU's.

use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use meshcast::glam::Vec3;
use meshcast::gpu::{Gpu, ADAPTER_VARIABLE};
use meshcast::HitLists;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{self, Rows};
use crate::camera::Camera;
use crate::error::{to_py, MeshcastError};
use crate::objects::Mesh;
use crate::queries;
use crate::ray_arguments::{ray_rows, RayArguments};
use crate::ray_methods::{self, RayEngine};
use crate::threads;

/// The GPUs opened by this process, by the adapter name asked for (`None`: the best one),
/// so that every `to_gpu` after the first shares the device and its compiled kernel.
struct Opened {
    process: u32,
    by_name: Vec<(Option<String>, Gpu)>,
}

static OPENED: Mutex<Option<Opened>> = Mutex::new(None);

/// The GPU named like `name` (or by `MESHCAST_GPU`, else the best one), opened once per
/// process. A forked child opens its own: the parent's devices are leaked there, not
/// dropped, as their driver state belongs to the parent.
fn open(name: Option<&str>) -> meshcast::Result<Gpu> {
    let wanted = match name {
        Some(name) => Some(name.to_owned()),
        None => std::env::var(ADAPTER_VARIABLE)
            .ok()
            .filter(|name| !name.trim().is_empty()),
    };
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    let process = std::process::id();
    let opened = opened.get_or_insert_with(|| Opened {
        process,
        by_name: Vec::new(),
    });
    if opened.process != process {
        std::mem::forget(std::mem::take(&mut opened.by_name));
        opened.process = process;
    }
    if let Some((_, gpu)) = opened.by_name.iter().find(|(n, _)| *n == wanted) {
        return Ok(gpu.clone());
    }
    let gpu = Gpu::with_adapter(wanted.as_deref())?;
    opened.by_name.push((wanted, gpu.clone()));
    Ok(gpu)
}

/// The `MeshcastError` of a mesh that cannot be put on a GPU.
fn no_gpu(err: impl Into<meshcast::Error>) -> PyErr {
    let err = err.into();
    let hint = match &err {
        meshcast::Error::Gpu(meshcast::GpuError::NoGpu { .. }) => {
            ". meshcast.gpu_adapters() lists the adapters found; on Linux without a GPU, \
             Mesa's lavapipe (package mesa-vulkan-drivers) is one"
        }
        _ => "",
    };
    MeshcastError::new_err(format!("cannot put the mesh on a GPU: {err}{hint}"))
}

/// Uploads `mesh` to the GPU named like `adapter` (as `Mesh.to_gpu`).
pub fn upload(
    py: Python<'_>,
    mesh: Arc<meshcast::Mesh>,
    adapter: Option<&str>,
) -> PyResult<GpuMesh> {
    let resident = py.detach(|| {
        let gpu = open(adapter).map_err(no_gpu)?;
        let mesh = gpu.upload(mesh).map_err(no_gpu)?;
        Ok::<_, PyErr>(Resident::new(mesh))
    })?;
    Ok(GpuMesh {
        state: RwLock::new(Arc::new(resident)),
    })
}

/// The names of the GPU adapters found (Vulkan, Metal, DX12, OpenGL), best first: the one
/// `Mesh.to_gpu()` takes first, unless `MESHCAST_GPU` names another. Empty where there is
/// none.
#[pyfunction]
pub fn gpu_adapters(py: Python<'_>) -> Vec<String> {
    py.detach(|| {
        Gpu::adapters()
            .into_iter()
            .map(|adapter| adapter.name)
            .collect()
    })
}

/// A mesh on the GPU with the unit normals of its triangles (made when a query first needs
/// them).
struct Resident {
    mesh: meshcast::gpu::GpuMesh,
    normals: OnceLock<Vec<Vec3>>,
}

impl Resident {
    fn new(mesh: meshcast::gpu::GpuMesh) -> Self {
        Self {
            mesh,
            normals: OnceLock::new(),
        }
    }

    /// The unit normals of the triangles, as a CPU `Mesh` answers them.
    fn normals(&self) -> &[Vec3] {
        self.normals
            .get_or_init(|| queries::unit_normals(self.mesh.mesh()))
    }
}

/// The error of `contacts=False`, which the GPU does not answer.
fn only_contacts(contacts: bool) -> PyResult<()> {
    if contacts {
        return Ok(());
    }
    Err(PyValueError::new_err(
        "a GpuMesh answers closest and any hits with contacts=True only (a ray touching an \
         edge or a vertex hits); ask the CPU Mesh for contacts=False",
    ))
}

/// A mesh on the GPU, made by `Mesh.to_gpu()`: the ray queries of `Mesh` (`cast_rays`,
/// `cast_camera`, `test_occlusions`, `count_intersections`, `list_intersections`) with the
/// same arguments and the same answers: the same keys, dtypes and shapes, triangles, counts
/// and hit lists.
/// `t_hit` and `primitive_uvs` are the shader's: the CPU's bit for bit where the driver
/// rounds as the CPU does (llvmpipe), within a few units in the last place where it fuses
/// multiply-adds. The GPU traces the rays; the few it cannot decide exactly (through or next
/// to an edge or a vertex) are finished by the CPU engine, on every core or `threads`
/// threads. The GIL is released meanwhile.
#[pyclass(frozen, module = "meshcast")]
pub struct GpuMesh {
    /// The mesh as it is now: each query takes the one of its start (as a `Mesh` does), so
    /// that no lock is held while the GPU and the thread pool work.
    state: RwLock<Arc<Resident>>,
}

impl GpuMesh {
    /// The mesh as it is now.
    fn current(&self) -> Arc<Resident> {
        Arc::clone(&self.state.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Runs `work` on the mesh with the GIL released, on the pool of `threads` threads
    /// (where the CPU finishes the open rays).
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        threads: Option<i64>,
        work: impl FnOnce(&Resident) -> PyResult<T> + Send,
    ) -> PyResult<T> {
        let resident = self.current();
        threads::run(py, threads, || work(&resident))
    }
}

#[pymethods]
impl GpuMesh {
    /// The closest hit of each ray with `tnear < t <= tfar`, as `Mesh.cast_rays`: a dict of
    /// `t_hit` (inf on a miss), `geometry_ids` and `primitive_ids` (uint32, `INVALID_ID` on a
    /// miss), `primitive_uvs` (..., 2) and `primitive_normals` (..., 3). `contacts` must be
    /// True (the default): a ray touching an edge or a vertex hits.
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., contacts=True, threads=None)")]
    fn cast_rays<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        ray_methods::cast_rays(self, py, rays, keywords)
    }

    /// `cast_rays` of a pinhole camera's image, as `Mesh.cast_camera`: the rays through the
    /// centres of its pixels, traced on the GPU; the dict's arrays of leading shape
    /// `(height, width)`. `contacts` must be True (the default).
    #[pyo3(signature = (camera=None, *, threads=None, contacts=true, **camera_keywords), text_signature = "(camera=None, *, eye=None, center=None, up=[0.0, 1.0, 0.0], fov_deg=60.0, width_px=None, height_px=None, near=0.01, far=..., contacts=True, threads=None)")]
    fn cast_camera<'py>(
        &self,
        py: Python<'py>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        contacts: bool,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        ray_methods::cast_camera(self, py, camera, threads, contacts, camera_keywords)
    }

    /// Whether each ray hits anything with `tnear < t <= tfar` (bool), as
    /// `Mesh.test_occlusions`. `contacts` must be True (the default).
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., contacts=True, threads=None)")]
    fn test_occlusions<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ray_methods::test_occlusions(self, py, rays, keywords)
    }

    /// The number of surface crossings of each ray with `tnear < t <= tfar` (int32), each
    /// exactly once, as `Mesh.count_intersections`.
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., threads=None)")]
    fn count_intersections<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ray_methods::count_intersections(self, py, rays, keywords)
    }

    /// Every hit of every ray with `tnear < t <= tfar`, nearest first, in flat arrays, as
    /// `Mesh.list_intersections`: `ray_splits`, `ray_ids`, `geometry_ids`, `primitive_ids`,
    /// `primitive_uvs` (k, 2) and `t_hit`. `max_hits` keeps each ray's first `max_hits`.
    #[pyo3(signature = (rays=None, **keywords), text_signature = "(rays=None, *, origins=None, directions=None, tnear=0.0, tfar=..., max_hits=None, threads=None)")]
    fn list_intersections<'py>(
        &self,
        py: Python<'py>,
        rays: Option<&Bound<'py, PyAny>>,
        keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        ray_methods::list_intersections(self, py, rays, keywords)
    }

    /// Moves the vertices to `vertices`, an `(N, 3)` array of one position per vertex, as
    /// `Mesh.set_positions`: the tree is refitted on the CPU and the GPU's copy rewritten.
    /// The `Mesh` this was made from keeps its positions, and queries already running finish
    /// on the old ones. Positions that are not one per vertex, or not finite, raise
    /// `MeshcastError` and leave the mesh as it was.
    fn set_positions(&self, py: Python<'_>, vertices: &Bound<'_, PyAny>) -> PyResult<()> {
        let rows = Rows::vertices(vertices)?;
        let view = rows.view();
        threads::run(py, None, || {
            let positions = view.map_rows(|row: [f32; 3]| row);
            let mut now = self.state.write().unwrap_or_else(PoisonError::into_inner);
            match Arc::get_mut(&mut now) {
                // No query holds the mesh: refit it and rewrite the GPU's copy in place.
                Some(resident) => {
                    resident.mesh.set_positions(&positions).map_err(to_py)?;
                    resident.normals = OnceLock::new();
                }
                // Queries hold it: they keep it, and a refit copy, uploaded anew, takes its
                // place.
                None => {
                    let mut mesh = meshcast::Mesh::clone(now.mesh.mesh());
                    mesh.set_positions(&positions).map_err(to_py)?;
                    let mesh = now.mesh.gpu().upload(mesh).map_err(to_py)?;
                    *now = Arc::new(Resident::new(mesh));
                }
            }
            Ok(())
        })
    }

    /// The name of the GPU adapter the mesh lives on (as `gpu_adapters()` lists it).
    #[getter]
    fn adapter(&self) -> String {
        self.current().mesh.gpu().adapter().name.clone()
    }

    /// Bytes of GPU memory the mesh takes.
    #[getter]
    fn gpu_bytes(&self) -> u64 {
        self.current().mesh.gpu_bytes()
    }

    /// `{"rays": ..., "finished_on_cpu": ...}`: the rays asked since the upload (or since
    /// a `set_positions` that met running queries, which uploads anew) and those the CPU
    /// answered (the GPU's rounding left them open).
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self.current().mesh.stats();
        let dict = PyDict::new(py);
        dict.set_item("rays", stats.rays)?;
        dict.set_item("finished_on_cpu", stats.finished_on_cpu)?;
        Ok(dict)
    }

    /// The traversal kernel's best time, in seconds, over `repeat` launches on `rays` (an
    /// `(N, 6)` array) copied to the GPU once, with nothing read back: `query` is
    /// `"closest"` or `"any"`. For benchmarks (`benchmarks/gpu_vs_warp.py`), beside peers
    /// timed with their rays on the GPU.
    #[pyo3(signature = (rays, query="closest", repeat=7))]
    fn _kernel_seconds(
        &self,
        py: Python<'_>,
        rays: &Bound<'_, PyAny>,
        query: &str,
        repeat: usize,
    ) -> PyResult<f64> {
        let query = match query {
            "closest" => meshcast::gpu::GpuQuery::Closest,
            "any" => meshcast::gpu::GpuQuery::Any,
            other => {
                return Err(PyValueError::new_err(format!(
                    "query must be \"closest\" or \"any\", not {other:?}"
                )))
            }
        };
        let rows = ray_rows(py, Some(rays), None, None)?;
        let view = rows.view();
        self.run(py, None, |resident| {
            let rays = arrays::rays(&view, None)?;
            let resident_rays = resident.mesh.resident_rays(&rays, query).map_err(to_py)?;
            let best = resident
                .mesh
                .time(&resident_rays, query, repeat)
                .map_err(to_py)?;
            Ok(best.as_secs_f64())
        })
    }

    /// The mesh as it is now, on the CPU (a `Mesh` sharing it, not a copy).
    fn to_cpu<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, Mesh>> {
        Mesh::object(py, Arc::clone(self.current().mesh.mesh()))
    }

    fn __repr__(&self) -> String {
        let resident = self.current();
        format!(
            "meshcast.GpuMesh({} triangles on {})",
            resident.mesh.mesh().triangle_count(),
            resident.mesh.gpu().adapter()
        )
    }
}

impl RayEngine for GpuMesh {
    fn cast(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<queries::Cast> {
        only_contacts(query.contacts)?;
        let view = query.rows.view();
        let range = query.range;
        self.run(py, query.threads, |resident| {
            let clock = std::time::Instant::now();
            let rays = arrays::row_rays(&view, Some(range))?;
            let checked = clock.elapsed();
            let hits = resident.mesh.cast_batch(&rays).map_err(to_py)?;
            let clock = std::time::Instant::now();
            let mesh: &meshcast::Mesh = resident.mesh.mesh();
            let cast = queries::cast_answers(mesh, Some(resident.normals()), &hits);
            if meshcast::gpu::profiling() {
                eprintln!(
                    "meshcast python: rays checked {:.2} ms, answers laid out {:.2} ms",
                    checked.as_secs_f64() * 1e3,
                    clock.elapsed().as_secs_f64() * 1e3
                );
            }
            Ok(cast)
        })
    }

    fn occluded(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<bool>> {
        only_contacts(query.contacts)?;
        let view = query.rows.view();
        let range = query.range;
        self.run(py, query.threads, |resident| {
            let rays = arrays::row_rays(&view, Some(range))?;
            resident.mesh.occluded_batch(&rays).map_err(to_py)
        })
    }

    fn count(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<Vec<i32>> {
        let view = query.rows.view();
        let range = query.range;
        self.run(py, query.threads, |resident| {
            let rays = arrays::row_rays(&view, Some(range))?;
            let counts = resident.mesh.count_batch(&rays).map_err(to_py)?;
            Ok(counts
                .into_iter()
                .map(|count| i32::try_from(count).unwrap_or(i32::MAX))
                .collect())
        })
    }

    fn list(&self, py: Python<'_>, query: &RayArguments<'_>) -> PyResult<queries::Intersections> {
        let view = query.rows.view();
        let (range, max_hits) = (query.range, query.max_hits);
        self.run(py, query.threads, |resident| {
            let rays = arrays::row_rays(&view, Some(range))?;
            let mut lists = resident.mesh.cast_all_batch(&rays).map_err(to_py)?;
            if max_hits < usize::MAX {
                // The capped list is the first `max_hits` of the whole one.
                lists = lists
                    .iter()
                    .map(|hits| hits[..hits.len().min(max_hits)].to_vec())
                    .collect::<HitLists<meshcast::Hit>>();
            }
            let mesh: &meshcast::Mesh = resident.mesh.mesh();
            Ok(queries::list_answers(mesh, lists))
        })
    }
}
