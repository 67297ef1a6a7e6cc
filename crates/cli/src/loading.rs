//! Loading a mesh file in any format and building its BVH, timed separately; a glTF file
//! as a scene for the commands that cast rays; and where the bundled bunny is.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use std::sync::Arc;

use anyhow::{Context, Result};
use glam::{DAffine3, DVec3};
use meshcast::{
    frame_origin, BuildOptions, Format, Instance, Mesh, MeshError, MeshFiles, Quality, Scene,
    SceneFiles, TriMesh, TriMeshFiles,
};

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

/// Reads a mesh file in any format the library reads (a glTF file's scene flattened).
///
/// # Errors
/// The library's error (missing file, unknown format, a bad line or element), with the path.
pub fn read_mesh(path: &Path) -> Result<TriMesh> {
    TriMesh::from_path(path).map_err(|err| with_path(err, path))
}

/// The library's error with the path, where its message does not name the file already.
fn with_path(err: impl Into<meshcast::Error>, path: &Path) -> anyhow::Error {
    let err = err.into();
    let shown = path.display().to_string();
    if err.to_string().contains(&shown) {
        anyhow::Error::new(err).context("loading mesh")
    } else {
        anyhow::Error::new(err).context(format!("loading mesh {shown}"))
    }
}

/// Reads a mesh file, then builds its BVH with the default options.
///
/// # Errors
/// As [`read_mesh`].
pub fn load(path: &Path) -> Result<LoadedMesh> {
    if detected(path)? == Some(Format::Cache) {
        let (mesh, load_time) = timed(|| Mesh::from_path(path).map_err(|err| with_path(err, path)));
        return Ok(LoadedMesh {
            mesh: mesh?,
            load_time,
            build_time: Duration::ZERO,
            from_cache: true,
        });
    }
    let (tri_mesh, load_time) = timed(|| read_mesh(path));
    let tri_mesh = tri_mesh?;
    let (mesh, build_time) = timed(|| build(tri_mesh, Quality::default()));
    Ok(LoadedMesh {
        mesh: mesh?,
        load_time,
        build_time,
        from_cache: false,
    })
}

/// What the commands that cast rays look at: a glTF file's scene, its nodes placing shared
/// meshes, or the mesh of any other file.
pub enum Loaded {
    Mesh(Arc<Mesh>),
    /// A glTF file's scene. One far from the world's origin (a georeferenced file) is placed
    /// relative to `origin`, the centre of its box, so that the commands' `f32` queries keep
    /// their precision at the scene's own scale; zero for the rest.
    Scene {
        scene: Scene,
        origin: DVec3,
    },
}

impl Loaded {
    /// Where the frame of the commands' `f32` queries lies in the world: the mesh's origin
    /// ([`Mesh::origin`]) or the scene's.
    pub fn origin(&self) -> DVec3 {
        match self {
            Self::Mesh(mesh) => mesh.origin(),
            Self::Scene { origin, .. } => *origin,
        }
    }
}

/// Loads a file for the commands that cast rays: a glTF file (by its content) as a scene,
/// any other as [`load`] does.
///
/// # Errors
/// As [`read_mesh`].
pub fn load_target(path: &Path) -> Result<Loaded> {
    if detected(path)? != Some(Format::Gltf) {
        return Ok(Loaded::Mesh(Arc::new(load(path)?.mesh)));
    }
    let scene = Scene::from_path(path).map_err(|err| with_path(err, path))?;
    let (scene, origin) = rebased(scene).map_err(|err| with_path(err, path))?;
    Ok(Loaded::Scene { scene, origin })
}

/// `scene`, if it lies far from the world's origin ([`frame_origin`] of its box), with each
/// instance placed relative to the centre of its box instead (in `f64`, before rounding), and
/// that centre; else `scene` as it is and zero.
fn rebased(scene: Scene) -> Result<(Scene, DVec3), MeshError> {
    let bounds = scene.bounds();
    if bounds.is_empty() {
        return Ok((scene, DVec3::ZERO));
    }
    let origin = frame_origin([bounds.min.as_dvec3(), bounds.max.as_dvec3()]);
    if origin == DVec3::ZERO {
        return Ok((scene, origin));
    }
    let back = DAffine3::from_translation(-origin);
    let instances = scene
        .instances()
        .map(|(_, instance)| {
            let placed = Instance::new(Arc::clone(instance.mesh()), back * instance.placement());
            Ok(placed?.with_layers(instance.layers()))
        })
        .collect::<Result<Vec<Instance>, MeshError>>()?;
    Ok((Scene::from_instances(instances), origin))
}

/// The format a file's first bytes show, for the choices only the content decides: a
/// glTF scene, a cache with its hierarchy ([`Mesh::save`]).
fn detected(path: &Path) -> Result<Option<Format>> {
    const HEAD_BYTES: u64 = 1024;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(HEAD_BYTES).read_to_end(&mut head))
        .with_context(|| format!("reading mesh {}", path.display()))?;
    Ok(Format::detect(&head))
}

/// Builds the BVH of a loaded mesh with the default options at `quality`.
pub fn build(tri_mesh: TriMesh, quality: Quality) -> Result<Mesh> {
    let options = BuildOptions {
        quality,
        ..BuildOptions::default()
    };
    Mesh::try_from_tri_mesh(tri_mesh, &options).context("building the hierarchy")
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
