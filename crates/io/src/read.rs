//! Choosing the reader: bytes in a known format to a [`TriMesh`], a [`Mesh`] or a [`Scene`].

use std::sync::Arc;

use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Instance, Mesh, Scene, TriMesh};

use crate::cache;
#[cfg(feature = "gltf")]
use crate::gltf;
#[cfg(feature = "obj")]
use crate::obj;
#[cfg(feature = "ply")]
use crate::ply;
use crate::source::Source;
#[cfg(feature = "stl")]
use crate::stl;
use crate::{Error, Format, Place, Result};

/// The mesh in `bytes`, in `format`.
pub(crate) fn read_tri_mesh(bytes: &[u8], format: Format, source: Source) -> Result<TriMesh> {
    match format {
        #[cfg(feature = "obj")]
        Format::Obj => obj::read(bytes, source),
        #[cfg(feature = "gltf")]
        Format::Gltf => gltf::read_flattened(bytes, source),
        #[cfg(feature = "ply")]
        Format::Ply => ply::read(bytes, source),
        #[cfg(feature = "stl")]
        Format::Stl => stl::read(bytes, source),
        Format::Cache => cache::read(bytes, source).map(Mesh::into_tri_mesh),
        #[allow(unreachable_patterns)]
        format => Err(Error::FormatDisabled {
            at: source.at(Place::File),
            format,
        }),
    }
}

/// The mesh in `bytes`, in `format`: a cache's as it is, any other built with the default
/// options.
pub(crate) fn read_mesh(bytes: &[u8], format: Format, source: Source) -> Result<Mesh> {
    match format {
        Format::Cache => cache::read(bytes, source),
        format => Ok(Mesh::try_from_tri_mesh(
            read_tri_mesh(bytes, format, source)?,
            &BuildOptions::default(),
        )?),
    }
}

/// The scene in `bytes`, in `format`: a glTF file's default scene, any other format one
/// instance, untransformed, of its mesh.
pub(crate) fn read_scene(bytes: &[u8], format: Format, source: Source) -> Result<Scene> {
    #[cfg(feature = "gltf")]
    if format == Format::Gltf {
        return gltf::read_scene(bytes, source);
    }
    scene_of(read_mesh(bytes, format, source)?)
}

/// The scene of one instance, untransformed, of `mesh`.
pub(crate) fn scene_of(mesh: Mesh) -> Result<Scene> {
    Ok(Scene::from_instances([Instance::new(
        Arc::new(mesh),
        glam::Affine3A::IDENTITY,
    )?]))
}
