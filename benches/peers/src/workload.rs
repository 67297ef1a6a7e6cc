//! The meshes and rays every library gets: the same positions, index triples and rays, from
//! meshcast's own loader and subdivision, the camera's pixel rays and meshcast-testkit's
//! incoherent rays (the ones `meshcast bench` and the criterion benches use).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use meshcast::{Camera, Ray, TriMesh, TriMeshFiles};
use meshcast_testkit::incoherent_rays;

/// The field of view of `meshcast bench` and the CLI's other commands.
const FOV_DEGREES: f32 = 40.0;

/// The seed of `meshcast bench`'s incoherent rays, so figures compare with it.
pub const INCOHERENT_SEED: u64 = 0x6d65_7368;

/// A mesh the benchmark knows by name.
#[derive(Clone, Copy, Debug)]
pub struct MeshSpec {
    /// The name on the command line and in tables.
    pub name: &'static str,
    /// The OBJ file, relative to the repository root.
    pub file: &'static str,
    /// How many times each triangle is split into four.
    pub subdivide: u32,
}

/// Every mesh, in the default order.
pub const MESHES: [MeshSpec; 4] = [
    MeshSpec {
        name: "bunny",
        file: "assets/stanford-bunny.obj",
        subdivide: 0,
    },
    MeshSpec {
        name: "ogre",
        file: "assets/ogre.obj",
        subdivide: 0,
    },
    MeshSpec {
        name: "bunny-x16",
        file: "assets/stanford-bunny.obj",
        subdivide: 2,
    },
    MeshSpec {
        name: "bunny-x64",
        file: "assets/stanford-bunny.obj",
        subdivide: 3,
    },
];

/// Meshes of tens of millions of triangles, known by name but run only when named (the
/// large-mesh probe, `large_probe.rs`): the bunny subdivided four and five times.
pub const LARGE_MESHES: [MeshSpec; 2] = [
    MeshSpec {
        name: "bunny-x256",
        file: "assets/stanford-bunny.obj",
        subdivide: 4,
    },
    MeshSpec {
        name: "bunny-x1024",
        file: "assets/stanford-bunny.obj",
        subdivide: 5,
    },
];

/// The mesh named `name`: one of [`MESHES`] or [`LARGE_MESHES`], or a mesh file (any format
/// meshcast reads) by its path.
pub fn mesh_spec(name: &str) -> Result<MeshSpec> {
    match MESHES
        .iter()
        .chain(&LARGE_MESHES)
        .find(|spec| spec.name == name)
    {
        Some(spec) => Ok(*spec),
        None if Path::new(name).is_file() => {
            // A name for the process's life: the probes run one mesh each.
            let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
            Ok(MeshSpec {
                name,
                file: name,
                subdivide: 0,
            })
        }
        None => {
            let known: Vec<_> = MESHES
                .iter()
                .chain(&LARGE_MESHES)
                .map(|spec| spec.name)
                .collect();
            bail!(
                "unknown mesh {name:?} (known: {}, or a mesh file)",
                known.join(", ")
            )
        }
    }
}

/// One mesh's shared input.
pub struct Workload {
    /// Its name.
    pub name: &'static str,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Index triples.
    pub indices: Vec<[u32; 3]>,
    /// A square view filling the frame, one ray per pixel, row-major: neighbours take the
    /// same paths.
    pub coherent: Vec<Ray>,
    /// The image's width in pixels (its rows of [`Workload::coherent`]).
    pub width: usize,
    /// From a sphere around the mesh towards random points in its box.
    pub incoherent: Vec<Ray>,
}

impl Workload {
    /// Loads (and subdivides) the mesh and makes `rays` coherent and `rays` incoherent rays
    /// (the camera image is the nearest square).
    pub fn load(root: &Path, spec: MeshSpec, rays: usize) -> Result<Self> {
        let path: PathBuf = root.join(spec.file);
        if !path.is_file() {
            bail!("mesh file {} is missing", path.display());
        }
        let mesh = TriMesh::from_path(&path)
            .with_context(|| format!("loading {}", path.display()))?
            .subdivide(spec.subdivide)
            .with_context(|| format!("subdividing {}", path.display()))?;
        let bounds = mesh.bounds();
        let side = ((rays as f64).sqrt().round() as u32).max(1);
        let camera = Camera::framing(bounds, FOV_DEGREES, 1.0).with_image_aspect(side, side);
        Ok(Self {
            name: spec.name,
            positions: mesh.positions().iter().map(|p| p.to_array()).collect(),
            indices: mesh.indices().to_vec(),
            coherent: camera.pixel_rays(side, side).collect(),
            width: side as usize,
            incoherent: incoherent_rays(bounds, rays, INCOHERENT_SEED),
        })
    }

    /// Triangles in the mesh.
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }
}
