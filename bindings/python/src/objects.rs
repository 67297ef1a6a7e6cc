//! The layouts of the Python classes `Geometry` and `Mesh`, and a `Mesh` object made from an
//! engine mesh. Declared here, below the modules that give them methods (`geometry`,
//! `mesh`), so that `GpuMesh.to_cpu` and `Scene.mesh` make `Mesh` objects without the class
//! files naming each other in a circle.

use std::sync::{Arc, RwLock};

use pyo3::prelude::*;

use crate::state::{current, Level, MeshState};

/// A mesh, a scene or a mesh on a GPU (`Mesh`, `Scene`, `GpuMesh`): every query of
/// meshcast, on numpy arrays, with the names and shapes of Open3D's `RaycastingScene`.
///
/// Rays are arrays of shape `(..., 6)`, `(ox, oy, oz, dx, dy, dz)` (or `origins` and
/// `directions` of shape `(..., 3)`, broadcast together); points `(..., 3)`. Any real dtype
/// is accepted (`float32` and `float64` without a copy). Answers have the rays' or points'
/// leading shape. A `Mesh` (and a `GpuMesh`) takes `float64` rays and points (and the
/// integers and Python floats numpy reads as `float64`) as world coordinates in double
/// precision: each is carried into the mesh's own frame (`Mesh.origin`) before it is
/// rounded to single precision, so geometry far from the origin keeps its precision, and
/// `t_hit`, points and distances come back in `float64` (winding numbers too). `float32`
/// rays and points are answered in `float32`, as they are given (carried too when the mesh
/// has an origin of its own). A `Scene` with an instance far from the origin carries
/// `float64` rays into each instance it reaches in double precision (`t_hit` in `float64`);
/// otherwise, and for its point queries, a `Scene` reads every dtype in single precision.
/// A ray hits
/// where `tnear < t <= tfar` (every ray query takes them; by default every `t > 0`), `t` in
/// units of its direction as in Open3D: a direction of length 2 reaches `t = 1` two units
/// from its origin. Every answer is exact: rays through shared edges and vertices never
/// slip through and cross a closed surface once. A ray or point with a NaN or infinite
/// number is an error (`ValueError` naming it), not a miss. Work runs with the GIL released
/// on every core, or on `threads` threads. A `GpuMesh` is a `Geometry` too: it traces the
/// rays on its GPU and answers the point queries with the CPU mesh it was made from.
#[pyclass(subclass, frozen, module = "meshcast")]
pub struct Geometry {
    pub level: Level,
}

/// A triangle mesh with its BVH, queried in its own space.
///
/// `Mesh(vertices, faces)` builds one from a `(N, 3)` array of positions and a `(M, 3)`
/// array of vertex indices (any integer dtype); `Mesh.load(path)` reads OBJ, glTF (the
/// scene flattened), PLY, STL or a meshcast cache. `float64` positions far from the world's
/// origin (farther than 64 diagonals of their box) give the mesh an origin of its own, the
/// centre of their box (`origin`): its single-precision coordinates are measured from
/// there, and `vertices` and `bounds` answer `float64` world coordinates. A mesh changes
/// only by `set_positions`; it pickles through `to_bytes` (the geometry, its origin and its
/// BVH, so unpickling does not rebuild).
#[pyclass(extends = Geometry, frozen, module = "meshcast")]
pub struct Mesh;

impl Mesh {
    /// The shared mesh of a `Mesh` object, as it is now.
    pub fn shared(mesh: &Bound<'_, Self>) -> Arc<meshcast::Mesh> {
        Arc::clone(&current(Self::state(mesh)).mesh)
    }

    /// Where a `Mesh` object keeps its mesh.
    pub fn state<'a>(mesh: &'a Bound<'_, Self>) -> &'a RwLock<Arc<MeshState>> {
        match &mesh.as_super().get().level {
            Level::Mesh(state) => state,
            Level::Scene(..) | Level::Gpu(..) => unreachable!("a Mesh object holds a mesh"),
        }
    }

    /// The initializer of a `Mesh` object of `mesh` (for `Mesh(...)`).
    pub fn initializer(mesh: Arc<meshcast::Mesh>) -> PyClassInitializer<Self> {
        PyClassInitializer::from(Geometry {
            level: Level::mesh(mesh),
        })
        .add_subclass(Mesh)
    }

    /// A `Mesh` object of `mesh`.
    pub fn object(py: Python<'_>, mesh: Arc<meshcast::Mesh>) -> PyResult<Bound<'_, Self>> {
        Bound::new(py, Self::initializer(mesh))
    }
}
