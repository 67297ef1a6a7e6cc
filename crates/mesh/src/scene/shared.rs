//! `SharedScene`: a scene that many threads query while one thread prepares the next
//! version (a double buffer of `Arc<Scene>`).

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::scene::Scene;

/// A [`Scene`] shared between reader threads and writers: readers take a snapshot
/// ([`SharedScene::snapshot`], an `Arc<Scene>`) and query it as long as they like; a writer
/// edits a copy ([`SharedScene::update`]) and publishes it in one pointer swap, so no query
/// ever waits for an edit or a rebuild, and no query sees a half-edited scene.
///
/// A [`Scene`] is `Send + Sync` and every query takes `&self`, so any number of threads can
/// share one snapshot. Copying a scene for an edit is cheap: instances hold their meshes
/// through [`Arc`], so the copy duplicates the instance list and the top-level hierarchy,
/// never a mesh or its BVH. Edits through [`SharedScene::update`] are serialised (one writer
/// at a time, each seeing the previous one's result); readers are never blocked by them
/// beyond the swap of a pointer.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, RayQueries, Scene, SharedScene};
/// use meshcast_primitives::Ray;
///
/// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
/// let mut scene = Scene::new();
/// let id = scene.add(Instance::new(tri, Affine3A::IDENTITY)?);
/// let shared = SharedScene::new(scene);
/// let down = Ray::new(Vec3::new(0.2, 0.2, 5.0), Vec3::NEG_Z);
///
/// let before = shared.snapshot();
/// std::thread::scope(|threads| {
///     threads.spawn(|| {
///         shared.update(|next| next.set_transform(id, Affine3A::from_translation(Vec3::X * 9.0)))
///     });
///     // Meanwhile this snapshot keeps answering for the scene it was taken from.
///     assert!(before.cast(&down).is_some());
/// });
/// assert!(shared.snapshot().cast(&down).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct SharedScene {
    current: RwLock<Arc<Scene>>,
    writer: Mutex<()>,
}

impl SharedScene {
    /// Shares `scene`.
    pub fn new(scene: Scene) -> Self {
        Self {
            current: RwLock::new(Arc::new(scene)),
            writer: Mutex::new(()),
        }
    }

    /// The current scene; it stays valid (and unchanged) while held, whatever is published
    /// after.
    pub fn snapshot(&self) -> Arc<Scene> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Replaces the scene; snapshots taken before keep the old one.
    pub fn publish(&self, scene: Scene) {
        let next = Arc::new(scene);
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = next;
    }

    /// Edits a copy of the current scene with `edit` and publishes it, returning what
    /// `edit` returns. Writers take turns; readers keep querying the previous scene until
    /// the swap. If `edit` panics, nothing is published.
    pub fn update<R>(&self, edit: impl FnOnce(&mut Scene) -> R) -> R {
        let _turn = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = Scene::clone(&self.snapshot());
        let result = edit(&mut next);
        self.publish(next);
        result
    }
}

// Readers share `&Scene` (or `Arc<Scene>`) across threads: checked at compile time.
const _: () = {
    const fn shared_across_threads<T: Send + Sync>() {}
    shared_across_threads::<Scene>();
    shared_across_threads::<SharedScene>();
    shared_across_threads::<crate::mesh::Mesh>();
};
