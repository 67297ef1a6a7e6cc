//! What a `Mesh` or a `Scene` object holds between calls ([`Level`]), and how a query reads
//! it: the mesh as it is at the query's start, the scene under its read lock.

use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard};

use meshcast::glam::Vec3;

/// What a `Geometry` holds: a mesh (replaced whole by `Mesh.set_positions`) or a scene
/// (changed by its methods while no query runs).
pub enum Level {
    /// The mesh as it is now: each query takes the one of its start, so that
    /// `Mesh.set_positions` never waits for queries nor changes one that runs.
    Mesh(RwLock<Arc<MeshState>>),
    Scene(RwLock<meshcast::Scene>),
}

impl Level {
    /// The level of `mesh`.
    pub fn mesh(mesh: Arc<meshcast::Mesh>) -> Self {
        Self::Mesh(RwLock::new(Arc::new(MeshState::new(mesh))))
    }
}

/// A mesh as queries read it: the mesh (shared with the scenes it was added to), and its
/// triangles' unit normals once a query has needed them.
pub struct MeshState {
    pub mesh: Arc<meshcast::Mesh>,
    pub normals: OnceLock<Vec<Vec3>>,
}

impl MeshState {
    /// `mesh`, its normals not yet made.
    pub fn new(mesh: Arc<meshcast::Mesh>) -> Self {
        Self {
            mesh,
            normals: OnceLock::new(),
        }
    }
}

/// The mesh of a `Mesh` object as it is now (a lock poisoned by a panic in
/// `Mesh.set_positions`, a bug, is read as it was left).
pub fn current(state: &RwLock<Arc<MeshState>>) -> Arc<MeshState> {
    Arc::clone(&state.read().unwrap_or_else(PoisonError::into_inner))
}

/// A scene for reading: a panic while it was written leaves it as the last write left it,
/// whole, since every change goes through one `Scene` method.
pub fn read(scene: &RwLock<meshcast::Scene>) -> RwLockReadGuard<'_, meshcast::Scene> {
    scene.read().unwrap_or_else(PoisonError::into_inner)
}
