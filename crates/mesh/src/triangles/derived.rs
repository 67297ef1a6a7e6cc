//! What a [`crate::TriMesh`] finds from its positions and triangles on first use and keeps:
//! its vertex normals and its count of degenerate triangles.

use std::sync::OnceLock;

/// A value found from a mesh's positions and triangles on first use and kept, or given by
/// whoever already knows it (a build, a cache).
///
/// It is a function of the positions and triangles, which the mesh's own `PartialEq`
/// compares, so two always compare equal: found or not, they hold (or will hold) the same
/// value.
#[derive(Clone, Debug, Default)]
pub(crate) struct Derived<T>(OnceLock<T>);

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Derived<T> {
    /// One that already holds `value`.
    pub(crate) fn known(value: T) -> Self {
        Self(OnceLock::from(value))
    }

    /// The value, if it has been found or given.
    pub(crate) fn get(&self) -> Option<&T> {
        self.0.get()
    }

    /// The value, found now by `find` if it has not been.
    pub(crate) fn get_or_find(&self, find: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(find)
    }
}
