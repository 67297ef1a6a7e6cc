//! What a `Mesh`, `Scene` or `GpuMesh` object holds between calls ([`Level`]), and how a
//! query reads it: the mesh as it is at the query's start, the scene under its read lock.

use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard};

use meshcast::glam::Vec3;

/// What a `Geometry` holds: a mesh (replaced whole by `Mesh.set_positions`), a scene
/// (changed by its methods while no query runs), or a mesh on a GPU (replaced whole by
/// `GpuMesh.set_positions`).
pub enum Level {
    /// The mesh as it is now: each query takes the one of its start, so that
    /// `Mesh.set_positions` never waits for queries nor changes one that runs.
    Mesh(RwLock<Arc<MeshState>>),
    Scene(RwLock<meshcast::Scene>),
    /// A mesh on a GPU, held as a `Mesh` is: its ray queries are traced on the GPU, its
    /// point queries answered by the CPU mesh the GPU copy was made from.
    Gpu(RwLock<Arc<GpuState>>),
}

impl Level {
    /// The level of `mesh`.
    pub fn mesh(mesh: Arc<meshcast::Mesh>) -> Self {
        Self::Mesh(RwLock::new(Arc::new(MeshState::new(mesh))))
    }

    /// The level of `mesh`, on a GPU.
    pub fn gpu(mesh: meshcast::gpu::GpuMesh) -> Self {
        Self::Gpu(RwLock::new(Arc::new(MeshState::new(mesh))))
    }
}

/// Where a [`MeshState`]'s mesh lives: on the CPU only (an `Arc<meshcast::Mesh>`, shared
/// with the scenes it was added to), or on a GPU too (a `meshcast::gpu::GpuMesh`, which
/// keeps the CPU mesh it was made from beside its buffers).
pub trait Residence: Sized {
    /// The mesh on the CPU.
    fn cpu(&self) -> &Arc<meshcast::Mesh>;
    /// Moves the vertices to `positions` (in the mesh's frame) and refits, in place.
    fn refit(&mut self, positions: &[[f32; 3]]) -> meshcast::Result<()>;
    /// A copy of the mesh, its vertices moved to `positions` and refit.
    fn refit_copy(&self, positions: &[[f32; 3]]) -> meshcast::Result<Self>;
}

impl Residence for Arc<meshcast::Mesh> {
    fn cpu(&self) -> &Arc<meshcast::Mesh> {
        self
    }

    /// The mesh itself unless a scene shares it, then a copy in its place.
    fn refit(&mut self, positions: &[[f32; 3]]) -> meshcast::Result<()> {
        Ok(Arc::make_mut(self).set_positions(positions)?)
    }

    fn refit_copy(&self, positions: &[[f32; 3]]) -> meshcast::Result<Self> {
        let mut mesh = meshcast::Mesh::clone(self);
        mesh.set_positions(positions)?;
        Ok(Arc::new(mesh))
    }
}

impl Residence for meshcast::gpu::GpuMesh {
    fn cpu(&self) -> &Arc<meshcast::Mesh> {
        self.mesh()
    }

    /// The CPU mesh refit and the GPU's copy rewritten.
    fn refit(&mut self, positions: &[[f32; 3]]) -> meshcast::Result<()> {
        Ok(self.set_positions(positions)?)
    }

    /// The copy uploaded anew.
    fn refit_copy(&self, positions: &[[f32; 3]]) -> meshcast::Result<Self> {
        let mesh = self.cpu().refit_copy(positions)?;
        Ok(self.gpu().upload(mesh)?)
    }
}

/// A mesh as queries read it: the mesh, where it lives ([`Residence`]), and its triangles'
/// unit normals once a query has needed them.
///
/// One idea for both levels of a mesh: a `Mesh` object holds a `MeshState` of its CPU mesh,
/// a `GpuMesh` object a [`GpuState`], the same state of the GPU's copy (which owns the CPU
/// mesh, so that a refit changes one mesh, in place when nothing else holds it).
pub struct MeshState<M = Arc<meshcast::Mesh>> {
    pub mesh: M,
    pub normals: OnceLock<Vec<Vec3>>,
}

/// A mesh on a GPU as queries read it (a `GpuMesh` object's).
pub type GpuState = MeshState<meshcast::gpu::GpuMesh>;

impl<M: Residence> MeshState<M> {
    /// `mesh`, its normals not yet made.
    pub fn new(mesh: M) -> Self {
        Self {
            mesh,
            normals: OnceLock::new(),
        }
    }

    /// The mesh on the CPU (for a GPU's, the one its copy was made from).
    pub fn cpu(&self) -> &Arc<meshcast::Mesh> {
        self.mesh.cpu()
    }

    /// The unit normal of each triangle (zero for a degenerate one), made by the first
    /// query that needs them.
    pub fn normals(&self) -> &[Vec3] {
        self.normals.get_or_init(|| unit_normals(self.cpu()))
    }
}

/// The unit normal of each triangle of `mesh` (zero for a degenerate one), as
/// `queries::Record::of` computes it.
///
/// On one thread: it runs inside a `OnceLock`'s initialisation, where a rayon worker that
/// stole another query's job would wait on itself (two Python threads casting on a fresh
/// mesh can meet there).
fn unit_normals(mesh: &meshcast::Mesh) -> Vec<Vec3> {
    let tri_mesh = mesh.tri_mesh();
    (0..tri_mesh.triangle_count())
        .map(|i| {
            tri_mesh
                .triangle(i)
                .map_or(Vec3::ZERO, |t| t.normal().normalize_or_zero())
        })
        .collect()
}

/// `Mesh.set_positions` and `GpuMesh.set_positions`: the mesh `state` holds, its vertices
/// moved to `positions` (in its frame) and refit, in place when no query holds it, else a
/// refit copy in its place (the queries that hold it finish on it). Its normals are made
/// anew by the next query that needs them.
///
/// # Errors
/// The engine's, for positions that are not one per vertex or not finite; the mesh is then
/// as it was.
pub fn set_positions<M: Residence>(
    state: &RwLock<Arc<MeshState<M>>>,
    positions: &[[f32; 3]],
) -> meshcast::Result<()> {
    let mut now = state.write().unwrap_or_else(PoisonError::into_inner);
    match Arc::get_mut(&mut now) {
        Some(state) => {
            state.mesh.refit(positions)?;
            state.normals = OnceLock::new();
        }
        None => *now = Arc::new(MeshState::new(now.mesh.refit_copy(positions)?)),
    }
    Ok(())
}

/// The mesh of a `Mesh` or `GpuMesh` object as it is now (a lock poisoned by a panic in
/// `set_positions`, a bug, is read as it was left).
pub fn current<M>(state: &RwLock<Arc<MeshState<M>>>) -> Arc<MeshState<M>> {
    Arc::clone(&state.read().unwrap_or_else(PoisonError::into_inner))
}

/// A scene for reading: a panic while it was written leaves it as the last write left it,
/// whole, since every change goes through one `Scene` method.
pub fn read(scene: &RwLock<meshcast::Scene>) -> RwLockReadGuard<'_, meshcast::Scene> {
    scene.read().unwrap_or_else(PoisonError::into_inner)
}
