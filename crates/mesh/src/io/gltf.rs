//! Skeleton: this reader is being written (issue 14).

use super::Source;
use crate::error::Place;
use crate::{Error, Format, Result, TriMesh};

/// The mesh in `bytes`.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let _ = bytes;
    Err(Error::Unsupported {
        at: source.at(Place::File),
        what: format!("{} is not read yet", Format::Gltf),
    })
}

/// The default scene flattened into one mesh.
pub(crate) fn read_flattened(bytes: &[u8], source: Source) -> Result<TriMesh> {
    read(bytes, source)
}

/// The default scene, its nodes as instances.
pub(crate) fn read_scene(bytes: &[u8], source: Source) -> Result<crate::Scene> {
    read(bytes, source).map(|_| crate::Scene::new())
}
