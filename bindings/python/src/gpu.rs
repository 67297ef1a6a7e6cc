//! `GpuMesh`, a mesh on the GPU (`Mesh.to_gpu()`), `Geometry`'s third level: what is its
//! own (moving its vertices, the adapter, its statistics), and `gpu_adapters()`. Its ray
//! queries are `Geometry`'s, answered on the GPU by `gpu_queries`.

use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use meshcast::gpu::{Gpu, ADAPTER_VARIABLE};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::Rows;
use crate::error::{to_py, MeshcastError};
use crate::objects::{Geometry, Mesh};
use crate::ray_arguments::ray_rows;
use crate::ray_reading::{self, Interval, RayReading};
use crate::state::{current, GpuState, Level, MeshState};
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
pub fn upload<'py>(
    py: Python<'py>,
    mesh: Arc<meshcast::Mesh>,
    adapter: Option<&str>,
) -> PyResult<Bound<'py, GpuMesh>> {
    let mesh = py.detach(|| {
        let gpu = open(adapter).map_err(no_gpu)?;
        gpu.upload(mesh).map_err(no_gpu)
    })?;
    let geometry = Geometry {
        level: Level::gpu(mesh),
    };
    Bound::new(py, PyClassInitializer::from(geometry).add_subclass(GpuMesh))
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

/// A mesh on the GPU, made by `Mesh.to_gpu()`: a `Geometry` whose ray queries
/// (`cast_rays`, `cast_camera`, `test_occlusions`, `count_intersections`,
/// `list_intersections`) take the same arguments as a `Mesh`'s and give the same answers: the
/// same keys, dtypes and shapes, triangles, counts and hit lists, with the same `contacts`
/// and `max_hits` (passed down to the GPU's queries: `max_hits` up to 16 is kept on the GPU).
/// `t_hit` and `primitive_uvs` are the shader's: the CPU's bit for bit where the driver
/// rounds as the CPU does (llvmpipe), within a few units in the last place where it fuses
/// multiply-adds. The GPU traces the rays; the few it cannot decide exactly (through or next
/// to an edge or a vertex) are finished by the CPU engine, on every core or `threads`
/// threads. The GIL is released meanwhile.
/// Its point queries (`compute_closest_points`, `compute_distance`,
/// `compute_signed_distance`, `compute_occupancy`, `contains`, `winding_number`, `bounds`)
/// are answered on the CPU by the mesh the GPU copy was made from, as its `Mesh` answers them.
#[pyclass(extends = Geometry, frozen, module = "meshcast")]
pub struct GpuMesh;

impl GpuMesh {
    /// Where a `GpuMesh` object keeps its mesh.
    fn state<'a>(gpu: &'a Bound<'_, Self>) -> &'a RwLock<Arc<GpuState>> {
        match &gpu.as_super().get().level {
            Level::Gpu(state) => state,
            Level::Mesh(..) | Level::Scene(..) => unreachable!("a GpuMesh object holds a GPU mesh"),
        }
    }

    /// The mesh as it is now.
    fn current(gpu: &Bound<'_, Self>) -> Arc<GpuState> {
        current(Self::state(gpu))
    }
}

#[pymethods]
impl GpuMesh {
    /// Moves the vertices to `vertices`, an `(N, 3)` array of one position per vertex, as
    /// `Mesh.set_positions` (world coordinates for a mesh with an origin of its own, which
    /// it keeps): the tree is refitted on the CPU and the GPU's copy rewritten. The `Mesh`
    /// this was made from keeps its positions, and queries already running finish on the
    /// old ones. Positions that are not one per vertex, or not finite, raise
    /// `MeshcastError` and leave the mesh as it was.
    fn set_positions(slf: &Bound<'_, Self>, vertices: &Bound<'_, PyAny>) -> PyResult<()> {
        let rows = Rows::vertices(vertices)?;
        let view = rows.view();
        let origin = Self::current(slf).cpu().origin();
        let state = Self::state(slf);
        threads::run(slf.py(), None, || {
            let positions = view.map_carried(origin, |position| position.to_array());
            let mut now = state.write().unwrap_or_else(PoisonError::into_inner);
            match Arc::get_mut(&mut now) {
                // No query holds the mesh: refit it and rewrite the GPU's copy in place.
                Some(state) => {
                    state.mesh.set_positions(&positions).map_err(to_py)?;
                    state.normals = OnceLock::new();
                }
                // Queries hold it: they keep it, and a refit copy, uploaded anew, takes its
                // place.
                None => {
                    let mut mesh = meshcast::Mesh::clone(now.cpu());
                    mesh.set_positions(&positions).map_err(to_py)?;
                    let mesh = now.mesh.gpu().upload(mesh).map_err(to_py)?;
                    *now = Arc::new(MeshState::new(mesh));
                }
            }
            Ok(())
        })
    }

    /// The name of the GPU adapter the mesh lives on (as `gpu_adapters()` lists it).
    #[getter]
    fn adapter(slf: &Bound<'_, Self>) -> String {
        Self::current(slf).mesh.gpu().adapter().name.clone()
    }

    /// The CUDA device that answers closest and any-hit batches (`cast_rays`,
    /// `test_occlusions`), with the build of the kernel it runs (for example
    /// `"NVIDIA H200 (sm_90 machine code)"`), or `None` where wgpu answers them (no NVIDIA
    /// driver, a GPU older than Turing, or `MESHCAST_GPU_BACKEND=wgpu`).
    #[getter]
    fn cuda_device(slf: &Bound<'_, Self>) -> Option<String> {
        Self::current(slf).mesh.gpu().cuda_device()
    }

    /// Bytes of GPU memory the mesh takes.
    #[getter]
    fn gpu_bytes(slf: &Bound<'_, Self>) -> u64 {
        Self::current(slf).mesh.gpu_bytes()
    }

    /// `{"rays": ..., "finished_on_cpu": ...}`: the rays asked since the upload (or since
    /// a `set_positions` that met running queries, which uploads anew) and those the CPU
    /// answered (the GPU's rounding left them open).
    #[getter]
    fn stats<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let stats = Self::current(slf).mesh.stats();
        let dict = PyDict::new(slf.py());
        dict.set_item("rays", stats.rays)?;
        dict.set_item("finished_on_cpu", stats.finished_on_cpu)?;
        Ok(dict)
    }

    /// The traversal kernel's best time, in seconds, over `repeat` launches on `rays` (an
    /// `(N, 6)` array) copied to the GPU once, with nothing read back: `query` is
    /// `"closest"` or `"any"`; `backend` `"in use"` times the kernel that answers the query
    /// (CUDA's, timed by CUDA events, where `cuda_device` names a device), `"wgpu"` wgpu's
    /// whatever answers. For benchmarks (`benchmarks/gpu_vs_warp.py`), beside peers timed
    /// with their rays on the GPU.
    #[pyo3(signature = (rays, query="closest", repeat=7, backend="in use"))]
    fn _kernel_seconds(
        slf: &Bound<'_, Self>,
        rays: &Bound<'_, PyAny>,
        query: &str,
        repeat: usize,
        backend: &str,
    ) -> PyResult<f64> {
        let wgpu = match backend {
            "in use" => false,
            "wgpu" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "backend must be \"in use\" or \"wgpu\", not {other:?}"
                )))
            }
        };
        let query = match query {
            "closest" => meshcast::gpu::GpuQuery::Closest,
            "any" => meshcast::gpu::GpuQuery::Any,
            other => {
                return Err(PyValueError::new_err(format!(
                    "query must be \"closest\" or \"any\", not {other:?}"
                )))
            }
        };
        let py = slf.py();
        let rows = ray_rows(py, Some(rays), None, None)?;
        let view = rows.view();
        let state = Self::current(slf);
        threads::run(py, None, || {
            let reading = RayReading::new(&view, Interval::POSITIVE, Some(state.cpu().as_ref()));
            let rays = ray_reading::rays::<meshcast::Ray>(&view, &reading)?.rays;
            let resident_rays = state.mesh.resident_rays(&rays, query).map_err(to_py)?;
            let best = if wgpu {
                state.mesh.time_wgpu(&resident_rays, query, repeat)
            } else {
                state.mesh.time(&resident_rays, query, repeat)
            }
            .map_err(to_py)?;
            Ok(best.as_secs_f64())
        })
    }

    /// The mesh as it is now, on the CPU (a `Mesh` sharing it, not a copy).
    fn to_cpu<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Mesh>> {
        Mesh::object(slf.py(), Arc::clone(Self::current(slf).cpu()))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let state = Self::current(slf);
        format!(
            "meshcast.GpuMesh({} triangles on {})",
            state.cpu().triangle_count(),
            state.mesh.gpu().adapter()
        )
    }
}
