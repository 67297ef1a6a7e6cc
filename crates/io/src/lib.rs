//! Mesh files for meshcast: OBJ, glTF, PLY and STL readers, each behind a cargo feature of
//! the same name (all on by default), and the meshcast cache, a mesh with its hierarchy in
//! one checksummed file that loads without a build (always read).
//!
//! The layer above `meshcast-mesh`, which holds and queries meshes but reads no files: a
//! user who wants ray casting alone compiles none of the format dependencies. The methods
//! come as three extension traits on the mesh crate's types, [`TriMeshFiles`],
//! [`MeshFiles`] and [`SceneFiles`]; bring them into scope and call `Mesh::from_path(path)`.
//! The formats are [`Format`]s; what goes wrong is an [`Error`], which names the place in the
//! file ([`Location`]) or the cache's problem ([`CacheProblem`]), and wraps the mesh crate's
//! own errors for what a file describes but the mesh crate rejects ([`Error::Mesh`]).
//!
//! Every reader takes the whole file as bytes and a `Source` that names it in errors, and
//! gives a [`TriMesh`](meshcast_mesh::TriMesh) (glTF also a scene of instances). Readers never panic: whatever the
//! bytes, the answer is a mesh or an [`Error`] that says where the file went wrong.
//!
//! ```
//! use meshcast_io::{Format, MeshFiles, TriMeshFiles};
//! use meshcast_mesh::{Mesh, TriMesh};
//!
//! let obj = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
//! let square = TriMesh::from_bytes(obj, Some(Format::Obj))?;
//! assert_eq!(square.triangle_count(), 2);
//! let mesh = Mesh::from_tri_mesh(square, &Default::default());
//! let again = Mesh::from_bytes(&mesh.to_bytes())?; // the cache: no build
//! assert_eq!(again.bvh().nodes(), mesh.bvh().nodes());
//! # Ok::<(), meshcast_io::Error>(())
//! ```

// `unsafe` lives in `mapped.rs` alone: the call that maps a cache file.
#![deny(unsafe_code)]

mod cache;
mod error;
mod files;
mod format;
#[cfg(feature = "gltf")]
mod gltf;
mod location;
#[allow(unsafe_code)]
mod mapped;
#[cfg(feature = "obj")]
mod obj;
#[cfg(feature = "ply")]
mod ply;
#[cfg(any(feature = "obj", feature = "ply"))]
mod polygon;
mod read;
mod source;
#[cfg(feature = "stl")]
mod stl;

pub use cache::{CacheProblem, CacheSection};
pub use error::{Error, Result};
pub use files::{MeshFiles, SceneFiles, TriMeshFiles};
pub use format::{Format, CACHE_EXTENSION, CACHE_MAGIC};
pub use location::{IndexKind, Location, Place};

/// Whether this build reads `format`: its cargo feature is on (the cache is always read).
pub fn is_enabled(format: Format) -> bool {
    const ENABLED: [(Format, bool); 5] = [
        (Format::Obj, cfg!(feature = "obj")),
        (Format::Gltf, cfg!(feature = "gltf")),
        (Format::Ply, cfg!(feature = "ply")),
        (Format::Stl, cfg!(feature = "stl")),
        (Format::Cache, true),
    ];
    ENABLED.contains(&(format, true))
}
