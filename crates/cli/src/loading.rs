//! Loading a mesh and building its BVH, timed separately; and where the bundled bunny is.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use meshcast::{BuildOptions, Format, Mesh, Quality, TriMesh};

use crate::timing::timed;

/// The demo mesh, relative to the repository root.
const BUNNY: &str = "assets/stanford-bunny.obj";

/// A mesh ready for queries, with what it took to get there.
pub struct LoadedMesh {
    pub mesh: Mesh,
    pub load_time: Duration,
    pub build_time: Duration,
    /// Whether the mesh came from a cache file, with its hierarchy (no build).
    pub from_cache: bool,
}

/// Reads an OBJ file.
///
/// # Errors
/// The library's error (missing file, a bad line with its number), with the path.
pub fn read_obj(path: &Path) -> Result<TriMesh> {
    TriMesh::from_obj(path).map_err(|err| with_path(err, path))
}

/// The library's error with context: its messages name the file; add it only where one
/// does not.
pub fn with_path(err: meshcast::Error, path: &Path) -> anyhow::Error {
    let shown = path.display().to_string();
    if err.to_string().contains(&shown) {
        anyhow::Error::new(err).context("loading mesh")
    } else {
        anyhow::Error::new(err).context(format!("loading mesh {shown}"))
    }
}

/// Reads an OBJ file, then builds its BVH with the default options.
///
/// # Errors
/// As [`read_obj`].
pub fn load(path: &Path) -> Result<LoadedMesh> {
    if is_cache(path) {
        let (mesh, load_time) = timed(|| Mesh::from_path(path).map_err(|err| with_path(err, path)));
        return Ok(LoadedMesh {
            mesh: mesh?,
            load_time,
            build_time: Duration::ZERO,
            from_cache: true,
        });
    }
    let (tri_mesh, load_time) = timed(|| read_obj(path));
    let tri_mesh = tri_mesh?;
    let (mesh, build_time) = timed(|| build(tri_mesh, Quality::default()));
    Ok(LoadedMesh {
        mesh: mesh?,
        load_time,
        build_time,
        from_cache: false,
    })
}

/// Whether `path` names a meshcast cache ([`Mesh::save`]): by its extension, or by its
/// first bytes.
pub fn is_cache(path: &Path) -> bool {
    let mut head = Vec::with_capacity(16);
    let read = std::fs::File::open(path).and_then(|file| file.take(16).read_to_end(&mut head));
    Format::from_extension(path) == Some(Format::Cache)
        || (read.is_ok() && Format::detect(&head) == Some(Format::Cache))
}

/// Builds the BVH of a loaded mesh with the default options at `quality`.
pub fn build(tri_mesh: TriMesh, quality: Quality) -> Result<Mesh> {
    let options = BuildOptions {
        quality,
        ..BuildOptions::default()
    };
    Ok(Mesh::from_tri_mesh(tri_mesh, &options))
}

/// The bundled Stanford bunny: `assets/stanford-bunny.obj` under the current folder if it is
/// there, else in the source tree this program was built from.
pub fn bundled_bunny() -> PathBuf {
    let here = Path::new(BUNNY);
    if here.is_file() {
        return here.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(BUNNY)
}
