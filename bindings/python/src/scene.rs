//! `Scene`: instances of shared meshes, placed by 4x4 transforms; picking from a camera.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use meshcast::glam::DMat4;
use meshcast::{Facing, Instance, InstanceId, QueryOptions, SceneFiles, ALL_LAYERS};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use rayon::prelude::*;

use crate::arrays::{to_numpy, Rows};
use crate::building::build;
use crate::camera::{Camera, Clip};
use crate::error::to_py;
use crate::objects::{Geometry, Mesh};
use crate::queries::INVALID_ID;
use crate::state::{read, Level};
use crate::transform::{instance, matrix, placement};
use crate::{contact, threads, views};

/// Instances of meshes, each placed by a 4x4 affine transform (mesh space to world space),
/// under a BVH of their boxes: the same queries as a `Mesh`, in world space, with
/// `geometry_ids` naming the instance; and `pick` from a camera.
///
/// `Scene.load(path)` reads a glTF file's default scene (one shared mesh per glTF mesh) or
/// any other mesh file as one instance. A transform places a mesh's `vertices`, so a `Mesh`
/// with an origin of its own (`Mesh.origin`, from `float64` vertices far from the origin, as
/// `add_triangles` builds them too) is placed where it lies, in double precision. A scene far
/// from the origin answers `float64` rays through each instance in double precision, `t` in
/// float64, so that georeferenced meshes keep their precision; `float32` rays, and scenes
/// near the origin, are answered in single precision in world coordinates. A mesh added many times is stored once. Instance ids count from 0 in the order of
/// `add` and are never reused. A scene pickles with its meshes' BVHs (each shared mesh
/// once).
///
/// `add_triangles` also takes Open3D's names and meshes (`vertex_positions` and
/// `triangle_indices`, or an Open3D `TriangleMesh`); `meshcast.RaycastingScene` wraps a
/// `Scene` with the rest of Open3D's spellings (`nthreads`, `device`).
#[pyclass(extends = Geometry, frozen, module = "meshcast")]
pub struct Scene {
    /// The threads that build what is added (`None` for every core).
    threads: Option<i64>,
}

/// The vertices and triangles of an Open3D `TriangleMesh`: a tensor mesh's
/// `vertex.positions` and `triangle.indices`, a legacy mesh's `vertices` and `triangles`.
/// `None` for anything else.
fn mesh_arrays<'py>(
    mesh: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    if mesh.hasattr("vertex")? && mesh.hasattr("triangle")? {
        let vertices = mesh.getattr("vertex")?.get_item("positions")?;
        let triangles = mesh.getattr("triangle")?.get_item("indices")?;
        return Ok(Some((vertices, triangles)));
    }
    if mesh.hasattr("vertices")? && mesh.hasattr("triangles")? {
        return Ok(Some((
            mesh.getattr("vertices")?,
            mesh.getattr("triangles")?,
        )));
    }
    Ok(None)
}

impl Scene {
    /// The lock of a `Scene` object's scene.
    fn lock<'a>(scene: &'a Bound<'_, Self>) -> &'a RwLock<meshcast::Scene> {
        match &scene.as_super().get().level {
            Level::Scene(scene) => scene,
            Level::Mesh(..) | Level::Gpu(..) => unreachable!("a Scene object holds a scene"),
        }
    }

    /// Changes the scene with the GIL released (a query may be running: it is waited for).
    fn change<T: Send>(
        scene: &Bound<'_, Self>,
        change: impl FnOnce(&mut meshcast::Scene) -> Result<T, meshcast::MeshError> + Send,
    ) -> PyResult<T> {
        let lock = Self::lock(scene);
        scene
            .py()
            .detach(|| {
                let mut scene = lock
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                change(&mut scene)
            })
            .map_err(to_py)
    }

    /// A `Scene` object of `scene`.
    fn object(py: Python<'_>, scene: meshcast::Scene) -> PyResult<Bound<'_, Self>> {
        let init = PyClassInitializer::from(Geometry {
            level: Level::Scene(RwLock::new(scene)),
        })
        .add_subclass(Scene { threads: None });
        Bound::new(py, init)
    }
}

#[pymethods]
impl Scene {
    /// An empty scene. `threads` is the number of threads that build the meshes given to
    /// `add_triangles` (None or 0, the default, for every core); queries take their own.
    #[new]
    #[pyo3(signature = (*, threads=None))]
    fn new(threads: Option<i64>) -> PyResult<PyClassInitializer<Self>> {
        // Checks the count as a query would.
        threads::check(threads)?;
        Ok(PyClassInitializer::from(Geometry {
            level: Level::Scene(RwLock::new(meshcast::Scene::new())),
        })
        .add_subclass(Scene { threads }))
    }

    /// Reads a glTF file's default scene (its nodes become instances of shared meshes), or
    /// any other mesh file or cache as one untransformed instance.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, Self>> {
        let scene = threads::run(py, None, || {
            meshcast::Scene::from_path(&path).map_err(to_py)
        })?;
        Self::object(py, scene)
    }

    /// Places `mesh` by `transform` (4x4 or 3x4, mesh to world; identity by default) on
    /// `layers` (a 32-bit mask, every layer by default); returns the instance's id.
    #[pyo3(signature = (mesh, transform=None, layers=None))]
    fn add(
        slf: &Bound<'_, Self>,
        mesh: &Bound<'_, Mesh>,
        transform: Option<&Bound<'_, PyAny>>,
        layers: Option<u32>,
    ) -> PyResult<u32> {
        let matrix = matrix(slf.py(), transform, "transform")?;
        let instance = instance(Mesh::shared(mesh), matrix, "transform")?;
        let instance = match layers {
            Some(layers) => instance.with_layers(layers),
            None => instance,
        };
        Self::change(slf, |scene| Ok(scene.add(instance).index()))
    }

    /// Open3D's `add_triangles`: adds a `Mesh`, or the mesh of `vertices` and `faces`, once,
    /// untransformed; returns its id. Open3D's names are accepted, `vertex_positions` and
    /// `triangle_indices` or `mesh`, and so are Open3D's meshes (a legacy or a tensor
    /// `TriangleMesh`: its vertices and triangles) and tensors (read by their `numpy()`).
    #[pyo3(signature = (vertices=None, faces=None, *, vertex_positions=None, triangle_indices=None, mesh=None))]
    fn add_triangles(
        slf: &Bound<'_, Self>,
        vertices: Option<&Bound<'_, PyAny>>,
        faces: Option<&Bound<'_, PyAny>>,
        vertex_positions: Option<&Bound<'_, PyAny>>,
        triangle_indices: Option<&Bound<'_, PyAny>>,
        mesh: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u32> {
        let py = slf.py();
        let threads = slf.get().threads;
        let usage = || {
            PyTypeError::new_err(
                "add_triangles takes a mesh (a meshcast Mesh or an Open3D TriangleMesh), or \
                 vertices and faces (vertex_positions and triangle_indices, Open3D's names)",
            )
        };
        let (vertices, faces) = match (vertices, faces, vertex_positions, triangle_indices, mesh) {
            (Some(v), f, None, t, None) | (None, f, Some(v), t, None)
                if f.is_none() || t.is_none() =>
            {
                (v, f.or(t))
            }
            (None, None, None, None, Some(mesh)) => (mesh, None),
            _ => return Err(usage()),
        };
        let mesh = match (vertices.cast::<Mesh>(), faces) {
            (Ok(mesh), None) => Mesh::shared(mesh),
            (_, Some(faces)) => build(py, vertices, faces, threads)?,
            (Err(_), None) => {
                let Some((vertices, faces)) = mesh_arrays(vertices)? else {
                    return Err(usage());
                };
                build(py, &vertices, &faces, threads)?
            }
        };
        let instance = instance(mesh, DMat4::IDENTITY, "transform")?;
        Self::change(slf, |scene| Ok(scene.add(instance).index()))
    }

    /// Removes an instance (its id is not reused).
    fn remove(slf: &Bound<'_, Self>, id: u32) -> PyResult<()> {
        Self::change(slf, |scene| {
            scene.remove(InstanceId::from_index(id)).map(drop)
        })
    }

    /// Moves an instance to `transform` (4x4 or 3x4).
    fn set_transform(slf: &Bound<'_, Self>, id: u32, transform: &Bound<'_, PyAny>) -> PyResult<()> {
        let matrix = matrix(slf.py(), Some(transform), "transform")?;
        let transform = placement(matrix, "transform")?;
        Self::change(slf, |scene| {
            scene.set_transform(InstanceId::from_index(id), transform)
        })
    }

    /// An instance's transform, 4x4 float64: the transform given (for a mesh with an origin
    /// of its own, from its world coordinates), in double precision.
    fn transform<'py>(slf: &Bound<'py, Self>, id: u32) -> PyResult<Bound<'py, PyAny>> {
        let scene = read(Self::lock(slf));
        let instance = scene
            .instance(InstanceId::from_index(id))
            .ok_or_else(|| PyKeyError::new_err(format!("the scene has no instance {id}")))?;
        let matrix = given_transform(instance).transpose();
        to_numpy(slf.py(), matrix.to_cols_array().to_vec(), &[4], &[4])
    }

    /// An instance's mesh (shared with every instance of it).
    fn mesh<'py>(slf: &Bound<'py, Self>, id: u32) -> PyResult<Bound<'py, Mesh>> {
        let mesh = {
            let scene = read(Self::lock(slf));
            let instance = scene
                .instance(InstanceId::from_index(id))
                .ok_or_else(|| PyKeyError::new_err(format!("the scene has no instance {id}")))?;
            instance.mesh().clone()
        };
        Mesh::object(slf.py(), mesh)
    }

    /// The ids of the instances, in order.
    #[getter]
    fn geometry_ids(slf: &Bound<'_, Self>) -> Vec<u32> {
        read(Self::lock(slf))
            .instances()
            .map(|(id, _)| id.index())
            .collect()
    }

    fn __len__(slf: &Bound<'_, Self>) -> usize {
        read(Self::lock(slf)).len()
    }

    /// What lies under each pixel of a pinhole camera at `eye` looking at `center` (`up`
    /// up, `fov_deg` the horizontal field of view as in `create_rays_pinhole`, an image of
    /// `width_px` x `height_px`):
    /// `pixels` is `(..., 2)`, `(x, y)` from the image's top-left corner (a pixel's centre is
    /// `(column + 0.5, row + 0.5)`). A dict of `geometry_ids`, `primitive_ids` (INVALID_ID
    /// where nothing is hit), `t_hit` and `distance` (inf), `points`, `normals` (geometric)
    /// and `shading_normals` (..., 3; NaN), `front` (bool: the side the triangle's corners
    /// run counter-clockwise) and `groups` (a list of object or group names, None where
    /// there is none).
    #[pyo3(signature = (pixels, camera=None, *, threads=None, **camera_keywords))]
    fn pick<'py>(
        slf: &Bound<'py, Self>,
        pixels: &Bound<'py, PyAny>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let rows = Rows::new(pixels, "pixels", 2)?;
        let view = rows.view();
        let camera = Camera::of_call("pick", camera, camera_keywords, Clip::Whole)?;
        let (width_px, height_px) = (camera.width, camera.height);
        let camera = camera.to_engine()?;
        let lock = Self::lock(slf);
        let picks = threads::run(py, threads, || {
            let scene = read(lock);
            let picks: Vec<Picked> = view
                .map_rows(|[x, y]: [f32; 2]| camera.ray_through(x, y, width_px, height_px))
                .par_iter()
                .map(|ray| {
                    scene.pick(ray, &QueryOptions::new()).map(|pick| Picked {
                        geometry: pick.instance.index(),
                        primitive: pick.hit.triangle,
                        t: pick.hit.t,
                        distance: pick.distance,
                        point: pick.surface.point.to_array(),
                        normal: pick.surface.geometric_normal.to_array(),
                        shading_normal: pick.surface.shading_normal.to_array(),
                        front: pick.facing == Facing::Front,
                        group: pick.surface.group.map(str::to_owned),
                    })
                })
                .map(Option::unwrap_or_default)
                .collect();
            Ok(picks)
        })?;
        let lead = &rows.leading;
        let column = |f: fn(&Picked) -> f32| picks.iter().map(f).collect::<Vec<f32>>();
        let triple = |f: fn(&Picked) -> [f32; 3]| picks.iter().flat_map(f).collect::<Vec<f32>>();
        let dict = PyDict::new(py);
        dict.set_item(
            "geometry_ids",
            to_numpy(py, picks.iter().map(|p| p.geometry).collect(), lead, &[])?,
        )?;
        dict.set_item(
            "primitive_ids",
            to_numpy(py, picks.iter().map(|p| p.primitive).collect(), lead, &[])?,
        )?;
        dict.set_item("t_hit", to_numpy(py, column(|p| p.t), lead, &[])?)?;
        dict.set_item("distance", to_numpy(py, column(|p| p.distance), lead, &[])?)?;
        dict.set_item("points", to_numpy(py, triple(|p| p.point), lead, &[3])?)?;
        dict.set_item("normals", to_numpy(py, triple(|p| p.normal), lead, &[3])?)?;
        dict.set_item(
            "shading_normals",
            to_numpy(py, triple(|p| p.shading_normal), lead, &[3])?,
        )?;
        dict.set_item(
            "front",
            to_numpy(py, picks.iter().map(|p| p.front).collect(), lead, &[])?,
        )?;
        let groups: Vec<Option<&str>> = picks.iter().map(|p| p.group.as_deref()).collect();
        dict.set_item("groups", PyList::new(py, groups)?)?;
        Ok(dict)
    }

    /// The triangles seen at the pixels of a pinhole camera's image (as `pick` takes it,
    /// with clip planes at `near` and `far`) whose centres lie inside `polygon`, (n, 2)
    /// pixel coordinates from the top-left: (k, 2) uint32 rows of geometry id and triangle
    /// id, sorted. `MeshcastError` for a polygon of fewer than three points, no area or a
    /// NaN coordinate.
    #[pyo3(signature = (polygon, camera=None, *, threads=None, **camera_keywords))]
    fn lasso_triangles<'py>(
        slf: &Bound<'py, Self>,
        polygon: &Bound<'py, PyAny>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let camera = Camera::of_call("lasso_triangles", camera, camera_keywords, Clip::Planes)?;
        views::scene_lasso(slf.py(), Self::lock(slf), polygon, &camera, threads)
    }

    /// The pairs of instances whose surfaces meet in the world (as `Mesh.intersects`
    /// decides it, each instance's vertices carried into the world in float64) and whose
    /// layers share a bit: (k, 2) uint32 ids, each pair once, the smaller id first, sorted.
    #[pyo3(signature = (*, threads=None))]
    fn colliding_pairs<'py>(
        slf: &Bound<'py, Self>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        contact::scene_colliding_pairs(slf.py(), Self::lock(slf), threads)
    }

    /// The ids of the instances on a layer of `layers` (every layer by default) whose
    /// surface meets `mesh`'s, placed in the world by `transform` (4x4 or 3x4; the identity
    /// by default): uint32, sorted.
    #[pyo3(signature = (mesh, transform=None, *, layers=None, threads=None))]
    fn intersecting_instances<'py>(
        slf: &Bound<'py, Self>,
        mesh: &Bound<'py, Mesh>,
        transform: Option<&Bound<'py, PyAny>>,
        layers: Option<u32>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mask = layers.unwrap_or(ALL_LAYERS);
        contact::scene_intersecting_instances(
            slf.py(),
            Self::lock(slf),
            Mesh::shared(mesh),
            transform,
            mask,
            threads,
        )
    }

    /// The pairs of triangles, one of instance `geometry_id`, one of `other`, that meet in
    /// the world: `other` is another instance's id, or a `Mesh` placed in the world by
    /// `transform` (4x4 or 3x4, invertible; the identity by default). (k, 2) uint32, sorted.
    #[pyo3(signature = (geometry_id, other, transform=None, *, threads=None))]
    fn intersecting_pairs<'py>(
        slf: &Bound<'py, Self>,
        geometry_id: u32,
        other: &Bound<'py, PyAny>,
        transform: Option<&Bound<'py, PyAny>>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let other = match other.cast::<Mesh>() {
            Ok(mesh) => contact::Other::Mesh(Mesh::shared(mesh)),
            Err(_) => contact::Other::Instance(other.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "other must be an instance id or a Mesh, not {}",
                    other.get_type()
                ))
            })?),
        };
        contact::scene_intersecting_pairs(
            slf.py(),
            Self::lock(slf),
            geometry_id,
            other,
            transform,
            threads,
        )
    }

    /// The instance on a layer of `layers` nearest to `mesh`, placed in the world by
    /// `transform`, as `Mesh.distance_to_mesh` measures it: a dict of `distance`,
    /// `geometry_id`, `points` (2, 3) float32 (on the instance, on the mesh, in the world)
    /// and `primitive_ids` (2,) uint32. Of instances at the same distance, the smallest id.
    /// `None` when no instance lies within `max_distance`.
    #[pyo3(signature = (mesh, transform=None, max_distance=None, *, layers=None))]
    fn distance_to_mesh<'py>(
        slf: &Bound<'py, Self>,
        mesh: &Bound<'py, Mesh>,
        transform: Option<&Bound<'py, PyAny>>,
        max_distance: Option<f64>,
        layers: Option<u32>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mask = layers.unwrap_or(ALL_LAYERS);
        contact::scene_distance_to_mesh(
            slf.py(),
            Self::lock(slf),
            Mesh::shared(mesh),
            transform,
            max_distance,
            mask,
        )
    }

    /// The two nearest instances whose layers share a bit (with `geometry_id`, the instance
    /// nearest to that one), as `Mesh.distance_to_mesh` measures it in the world: a dict of
    /// `distance`, `geometry_ids` (2,) uint32 (`geometry_id` first when given, else the
    /// smaller), `points` (2, 3) float32 (on each) and `primitive_ids` (2,) uint32. Of pairs
    /// at the same distance, the first in id order. `None` when no pair lies within
    /// `max_distance`; `MeshcastError` for an id the scene does not hold.
    #[pyo3(signature = (geometry_id=None, max_distance=None))]
    fn nearest_instances<'py>(
        slf: &Bound<'py, Self>,
        geometry_id: Option<u32>,
        max_distance: Option<f64>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        contact::scene_nearest_instances(slf.py(), Self::lock(slf), geometry_id, max_distance)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let (meshes, slots) = {
            let scene = read(Self::lock(slf));
            let mut meshes: Vec<Arc<meshcast::Mesh>> = Vec::new();
            let mut slots: Vec<Option<Slot>> = Vec::new();
            for (id, instance) in scene.instances() {
                slots.resize(id.index() as usize, None);
                let mesh = match meshes.iter().position(|m| Arc::ptr_eq(m, instance.mesh())) {
                    Some(at) => at,
                    None => {
                        meshes.push(instance.mesh().clone());
                        meshes.len() - 1
                    }
                };
                let matrix = given_transform(instance).transpose();
                slots.push(Some((
                    mesh,
                    matrix.to_cols_array().to_vec(),
                    instance.layers(),
                )));
            }
            (meshes, slots)
        };
        let meshes: Vec<Bound<'py, Mesh>> = meshes
            .into_iter()
            .map(|mesh| Mesh::object(py, mesh))
            .collect::<PyResult<_>>()?;
        let rebuild = slf.get_type().getattr("_from_state")?;
        let state = (meshes, slots).into_pyobject(py)?;
        PyTuple::new(py, [rebuild, PyTuple::new(py, [state])?.into_any()])
    }

    /// The scene `__reduce__` describes: the meshes, and for each id its mesh, 4x4 transform
    /// (row by row) and layers, or None for a removed instance.
    #[staticmethod]
    fn _from_state<'py>(
        py: Python<'py>,
        state: (Vec<Bound<'py, Mesh>>, Vec<Option<Slot>>),
    ) -> PyResult<Bound<'py, Self>> {
        let (meshes, slots) = state;
        let meshes: Vec<Arc<meshcast::Mesh>> = meshes.iter().map(Mesh::shared).collect();
        let mut instances = Vec::with_capacity(slots.len());
        let mut removed = Vec::new();
        for (id, slot) in slots.iter().enumerate() {
            let (mesh, matrix, layers) = match slot {
                Some((mesh, matrix, layers)) => (*mesh, matrix.as_slice(), *layers),
                None => {
                    // Held by a stand-in, removed once every id is placed.
                    removed.push(InstanceId::from_index(id as u32));
                    (
                        0,
                        &[
                            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
                            0.0, 1.0,
                        ][..],
                        0,
                    )
                }
            };
            let mesh = meshes
                .get(mesh)
                .cloned()
                .or_else(|| meshes.first().cloned());
            let Some(mesh) = mesh.filter(|_| matrix.len() == 16) else {
                return Err(PyValueError::new_err("not a pickled meshcast scene"));
            };
            let matrix = DMat4::from_cols_slice(matrix).transpose();
            instances.push(instance(mesh, matrix, "transform")?.with_layers(layers));
        }
        let mut scene = meshcast::Scene::from_instances(instances);
        for id in removed {
            scene.remove(id).map_err(to_py)?;
        }
        Self::object(py, scene)
    }
}

/// The transform `instance` was placed by (mesh world coordinates to the scene's), as
/// `Scene.add` took it, in `f64`.
fn given_transform(instance: &Instance) -> DMat4 {
    DMat4::from(instance.placement())
}

/// A pickled instance: its mesh (an index into the pickled meshes), its 4x4 transform row
/// by row, and its layers.
type Slot = (usize, Vec<f64>, u32);

/// One pixel's pick, as the answer lays it out (nothing hit: the default).
struct Picked {
    geometry: u32,
    primitive: u32,
    t: f32,
    distance: f32,
    point: [f32; 3],
    normal: [f32; 3],
    shading_normal: [f32; 3],
    front: bool,
    group: Option<String>,
}

impl Default for Picked {
    fn default() -> Self {
        Self {
            geometry: INVALID_ID,
            primitive: INVALID_ID,
            t: f32::INFINITY,
            distance: f32::INFINITY,
            point: [f32::NAN; 3],
            normal: [f32::NAN; 3],
            shading_normal: [f32::NAN; 3],
            front: false,
            group: None,
        }
    }
}
