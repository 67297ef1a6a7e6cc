//! Mesh against mesh: whether two meshes' surfaces meet, the pairs of triangles that do,
//! how far apart they are (nearest points and Hausdorff distance), and where a mesh cuts
//! itself; the same between a scene's instances, and between a scene and a mesh placed in
//! the world. Each a call of the Rust library with the GIL released. For a `Mesh`,
//! `transform` places the other mesh in this mesh's space; for a `Scene`, in the world.
//! Meshes with an origin of their own (`Mesh.origin`) are placed from it
//! (`transform::affine_between`), and a mesh's points are given in its world coordinates.

use std::sync::{Arc, RwLock};

use meshcast::glam::{Affine3A, DAffine3, DVec3};
use meshcast::{DMeshDistance, Instance, InstanceId};
use numpy::PyArrayMethods;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::arrays::{frame_points, to_numpy};
use crate::error::to_py;
use crate::state::read;
use crate::transform::{self, affine_between};
use crate::{threads, world_queries};

/// Below this many candidate pairs, a scene's collisions are tested on the calling thread:
/// handing them to the pool would wake a thread and wait for it, which costs about as much
/// as testing a few pairs.
const POOLED_FROM_PAIRS: usize = 8;

/// The map placing `other` by `transform` (from `other`'s space; the identity for `None`)
/// in a frame whose origin lies at `frame`: a mesh's own (`Mesh.origin`), or the world's
/// for a scene. `other`'s coordinates are measured from its own origin, which the map
/// starts from.
fn placement(
    py: Python<'_>,
    transform: Option<&Bound<'_, PyAny>>,
    other: &meshcast::Mesh,
    frame: DVec3,
) -> PyResult<Affine3A> {
    affine_between(py, transform, "transform", other.origin(), frame)
}

/// `Mesh.intersects`: whether `other`, placed by `transform`, meets `mesh`; one walk on
/// the calling thread.
pub fn intersects(
    py: Python<'_>,
    mesh: Arc<meshcast::Mesh>,
    other: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let transform = placement(py, transform, &other, mesh.origin())?;
    Ok(threads::run_here(py, || {
        mesh.intersects(&other, &transform)
    }))
}

/// `Mesh.intersecting_pairs`.
pub fn intersecting_pairs<'py>(
    py: Python<'py>,
    mesh: Arc<meshcast::Mesh>,
    other: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let transform = placement(py, transform, &other, mesh.origin())?;
    let pairs = threads::run(py, threads, || {
        Ok(mesh.intersecting_pairs(&other, &transform))
    })?;
    pairs_array(py, pairs)
}

/// `Mesh.distance_to_mesh`: one walk, on the calling thread.
pub fn distance_to_mesh<'py>(
    py: Python<'py>,
    mesh: Arc<meshcast::Mesh>,
    other: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'py, PyAny>>,
    max_distance: Option<f64>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let transform = placement(py, transform, &other, mesh.origin())?;
    let bound = distance_bound(max_distance)?;
    let found = threads::run_here(py, || mesh.mesh_distance(&other, &transform, bound));
    distance_dict(py, found, max_distance, mesh.origin())
}

/// `Mesh.hausdorff_distance`.
pub fn hausdorff_distance<'py>(
    py: Python<'py>,
    mesh: Arc<meshcast::Mesh>,
    other: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'py, PyAny>>,
    relative_error: f64,
    threads: Option<i64>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let transform = placement(py, transform, &other, mesh.origin())?;
    let error = self::relative_error(relative_error)?;
    let found = threads::run(py, threads, || {
        Ok(mesh.hausdorff_distance(&other, &transform, error))
    })?;
    hausdorff_dict(py, found, mesh.origin())
}

/// `Mesh.self_intersections`.
pub fn self_intersections<'py>(
    py: Python<'py>,
    mesh: Arc<meshcast::Mesh>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let pairs = threads::run(py, threads, || Ok(mesh.self_intersections()))?;
    pairs_array(py, pairs)
}

/// Pairs of triangle indices as a `(k, 2)` uint32 array.
pub fn pairs_array(py: Python<'_>, pairs: Vec<(u32, u32)>) -> PyResult<Bound<'_, PyAny>> {
    let count = pairs.len();
    let flat: Vec<u32> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
    to_numpy(py, flat, &[count], &[2])
}

/// `max_distance` as the Rust library's bound: `None` for no bound (also infinity), else
/// the smallest `f32` not below it, so that no pair within it is missed.
///
/// # Errors
/// `ValueError` for a NaN or negative distance.
pub fn distance_bound(max_distance: Option<f64>) -> PyResult<Option<f32>> {
    match max_distance {
        None => Ok(None),
        Some(m) if m.is_nan() || m < 0.0 => Err(PyValueError::new_err(format!(
            "max_distance must be at least 0 or None, not {m}"
        ))),
        Some(m) if m == f64::INFINITY => Ok(None),
        Some(m) => {
            let bound = m as f32;
            Ok(Some(if f64::from(bound) < m {
                bound.next_up()
            } else {
                bound
            }))
        }
    }
}

/// `distance_to_mesh`'s answer as a dict: `distance`, `points` (2, 3) (on this mesh, on the
/// other in this mesh's space, whose origin lies at `origin`: float32, float64 world
/// coordinates for an origin of its own) and `primitive_ids` (2,) uint32; `None` when there
/// is none, or its distance (as answered, float32) is beyond `max_distance`.
pub fn distance_dict(
    py: Python<'_>,
    found: Option<meshcast::MeshDistance>,
    max_distance: Option<f64>,
    origin: DVec3,
) -> PyResult<Option<Bound<'_, PyDict>>> {
    let found = found.map(|gap| DMeshDistance {
        distance: f64::from(gap.distance),
        point_on_self: origin + gap.point_on_self.as_dvec3(),
        point_on_other: origin + gap.point_on_other.as_dvec3(),
        triangle_self: gap.triangle_self,
        triangle_other: gap.triangle_other,
    });
    distance_dict_of(py, found, max_distance, &[], origin != DVec3::ZERO)
}

/// [`distance_dict`] of a distance found in `f64` world coordinates, its distance and
/// points in `float64` where `wide` (else rounded to `float32`, as they are answered near
/// the origin), with `geometry_ids` (the instances of the two
/// points), when given, as `geometry_ids` (2,) uint32.
fn distance_dict_of<'py>(
    py: Python<'py>,
    found: Option<DMeshDistance>,
    max_distance: Option<f64>,
    geometry_ids: &[InstanceId],
    wide: bool,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(found) = found else {
        return Ok(None);
    };
    let rounded = found.rounded();
    let distance = if wide {
        found.distance
    } else {
        f64::from(rounded.distance)
    };
    if max_distance.is_some_and(|m| distance > m) {
        return Ok(None);
    }
    let dict = PyDict::new(py);
    dict.set_item("distance", distance)?;
    let points = if wide {
        let points = [found.point_on_self, found.point_on_other];
        to_numpy(
            py,
            points.iter().flat_map(|p| p.to_array()).collect(),
            &[2],
            &[3],
        )?
    } else {
        let points = [rounded.point_on_self, rounded.point_on_other];
        let flat = points.iter().flat_map(|p| p.to_array()).collect();
        to_numpy::<f32>(py, flat, &[2], &[3])?
    };
    dict.set_item("points", points)?;
    let ids = vec![found.triangle_self, found.triangle_other];
    dict.set_item("primitive_ids", to_numpy(py, ids, &[2], &[])?)?;
    if !geometry_ids.is_empty() {
        let ids: Vec<u32> = geometry_ids.iter().map(|id| id.index()).collect();
        dict.set_item("geometry_ids", to_numpy(py, ids, &[2], &[])?)?;
    }
    Ok(Some(dict))
}

/// The transform of a mesh placed in a scene by `transform` (from the mesh's world
/// coordinates, its origin included; the identity for `None`), in `f64`, as
/// `Scene.add` places it.
fn scene_placement(py: Python<'_>, transform: Option<&Bound<'_, PyAny>>) -> PyResult<DAffine3> {
    transform::placement(transform::matrix(py, transform, "transform")?, "transform")
}

/// The largest distance a scene's `f64` distance queries look to, from `max_distance` as
/// [`distance_bound`] reads it.
///
/// # Errors
/// As [`distance_bound`].
fn scene_distance_bound(max_distance: Option<f64>) -> PyResult<Option<f64>> {
    Ok(distance_bound(max_distance)?.map(f64::from))
}

/// `relative_error` as the Rust library's `f32`.
///
/// # Errors
/// `ValueError` for a NaN or negative error.
pub fn relative_error(relative_error: f64) -> PyResult<f32> {
    if relative_error.is_nan() || relative_error < 0.0 {
        return Err(PyValueError::new_err(format!(
            "relative_error must be at least 0, not {relative_error}"
        )));
    }
    Ok(relative_error as f32)
}

/// `hausdorff_distance`'s answer as a dict: `distance` (the larger directed distance) and
/// `self_to_other`, `other_to_self`, each a dict of `distance`, `bound` (floats), `points`
/// (2, 3) (the farthest point found, its nearest point on the other surface) and
/// `primitive_ids` (2,) uint32 (their triangles), every point in this mesh's space, whose
/// origin lies at `origin` (float32; float64 world coordinates for an origin of its own).
pub fn hausdorff_dict(
    py: Python<'_>,
    found: Option<meshcast::HausdorffDistance>,
    origin: DVec3,
) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(found) = found else {
        return Ok(None);
    };
    let directed = |side: &meshcast::DirectedHausdorff| -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("distance", f64::from(side.distance))?;
        dict.set_item("bound", f64::from(side.bound))?;
        let points = [side.from_point, side.to_point];
        dict.set_item("points", frame_points(py, &points, origin)?)?;
        let ids = vec![side.from_triangle, side.to_triangle];
        dict.set_item("primitive_ids", to_numpy(py, ids, &[2], &[])?)?;
        Ok(dict)
    };
    let dict = PyDict::new(py);
    dict.set_item("distance", f64::from(found.distance()))?;
    dict.set_item("self_to_other", directed(&found.self_to_other)?)?;
    dict.set_item("other_to_self", directed(&found.other_to_self)?)?;
    Ok(Some(dict))
}

/// The distance between triangle `pairs[i][0]` of `mesh` and triangle `pairs[i][1]` of
/// `other` placed by `transform`, for each pair, as the Rust library's mesh distance
/// computes it (`meshcast.primitives.triangles_distance` on the corners carried in
/// float64, zero decided exactly): a dict of `distance` (k,) and `points_on_mesh`,
/// `points_on_other` (k, 3), float64, in `mesh`'s space (world coordinates for a mesh
/// with an origin of its own); with `mesh_transform`, `mesh` is carried too, as a scene
/// carries its instances, and both are in the world. Where two triangles meet, both
/// points are one point where they meet. The reference of the tests, and the contact points
/// of `meshcast.trimesh.CollisionManager`.
pub fn triangle_distances<'py>(
    py: Python<'py>,
    this: Arc<meshcast::Mesh>,
    other: Arc<meshcast::Mesh>,
    pairs: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    mesh_transform: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    // In `mesh`'s own frame, whose origin is added back to the points, `other` placed as the
    // mesh-against-mesh queries place it (rounded to `f32`); with `mesh_transform`, both in
    // the world, each placed as a scene places an instance (in `f64`, from its world
    // coordinates).
    let (mesh_carry, transform, frame) = match mesh_transform {
        Some(_) => {
            let placed = |transform, mesh: &meshcast::Mesh, name| -> PyResult<DAffine3> {
                let matrix = transform::matrix(py, transform, name)?;
                let placement = transform::placement(matrix, name)?;
                Ok(placement * DAffine3::from_translation(mesh.origin()))
            };
            let mesh_carry = placed(mesh_transform, &this, "mesh_transform")?;
            (
                Some(mesh_carry),
                placed(transform, &other, "transform")?,
                DVec3::ZERO,
            )
        }
        None => {
            let transform = placement(py, transform, &other, this.origin())?;
            (None, transform.as_daffine3(), this.origin())
        }
    };
    let numpy = py.import("numpy")?;
    let pairs = numpy.call_method1("asarray", (pairs, "int64"))?;
    let shape: Vec<usize> = pairs.getattr("shape")?.extract()?;
    if shape.len() != 2 || shape[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "pairs must have shape (k, 2), not {}",
            pairs.getattr("shape")?
        )));
    }
    let pairs = numpy.call_method1("ascontiguousarray", (pairs,))?;
    let pairs = pairs.cast::<numpy::PyArray2<i64>>()?.readonly();
    let pairs = pairs.as_slice()?;
    let counts = [this.triangle_count(), other.triangle_count()];
    for (k, pair) in pairs.chunks_exact(2).enumerate() {
        for (side, (&t, count)) in pair.iter().zip(counts).enumerate() {
            if usize::try_from(t).map_or(true, |t| t >= count) {
                return Err(PyValueError::new_err(format!(
                    "pairs[{k}, {side}] is {t}: that mesh has {count} triangles"
                )));
            }
        }
    }
    let answers: Vec<meshcast::TriangleDistance> = threads::run(py, None, || {
        let carry = Some(transform);
        let corners = |mesh: &meshcast::Mesh, t: i64, carry: Option<DAffine3>| -> [DVec3; 3] {
            let tri_mesh = mesh.tri_mesh();
            tri_mesh.indices()[t as usize].map(|v| {
                let p = tri_mesh.positions()[v as usize].as_dvec3();
                carry.map_or(p, |carry| carry.transform_point3(p))
            })
        };
        Ok(pairs
            .par_chunks_exact(2)
            .map(|pair| {
                meshcast::triangles_distance(
                    &corners(&this, pair[0], mesh_carry),
                    &corners(&other, pair[1], carry),
                )
            })
            .collect())
    })?;
    let count = answers.len();
    let dict = PyDict::new(py);
    let distance: Vec<f64> = answers.iter().map(|a| a.distance).collect();
    let world = |point: DVec3| (frame + point).to_array();
    let on_mesh: Vec<f64> = answers.iter().flat_map(|a| world(a.on_a)).collect();
    let on_other: Vec<f64> = answers.iter().flat_map(|a| world(a.on_b)).collect();
    dict.set_item("distance", to_numpy(py, distance, &[count], &[])?)?;
    dict.set_item("points_on_mesh", to_numpy(py, on_mesh, &[count], &[3])?)?;
    dict.set_item("points_on_other", to_numpy(py, on_other, &[count], &[3])?)?;
    Ok(dict)
}

/// `Scene.colliding_pairs`: the pairs of instances whose surfaces meet, (k, 2) uint32 ids,
/// sorted. The candidates (instances whose world boxes overlap) are found on the calling
/// thread; a few are tested there too, more on the pool of `threads`.
pub fn scene_colliding_pairs<'py>(
    py: Python<'py>,
    scene: &RwLock<meshcast::Scene>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    threads::check(threads)?;
    let guard = read(scene);
    let scene: &meshcast::Scene = &guard;
    let candidates = threads::run_here(py, || scene.overlapping_pairs());
    let meet = |&(a, b): &(InstanceId, InstanceId)| scene.instances_intersect(a, b);
    let pairs: Vec<(InstanceId, InstanceId)> = if candidates.len() < POOLED_FROM_PAIRS {
        threads::run_here(py, || candidates.into_iter().filter(meet).collect())
    } else {
        threads::run(py, threads, || {
            Ok(candidates.into_par_iter().filter(meet).collect())
        })?
    };
    let ids = pairs.into_iter().map(|(a, b)| (a.index(), b.index()));
    pairs_array(py, ids.collect())
}

/// `mesh` placed in the world by `transform` (the identity for `None`), as a scene's
/// instance would be.
fn probe(
    py: Python<'_>,
    mesh: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'_, PyAny>>,
) -> PyResult<Instance> {
    let matrix = transform::matrix(py, transform, "transform")?;
    transform::instance(mesh, matrix, "transform")
}

/// The instance `id` of `scene`, or a `KeyError`.
fn instance(scene: &meshcast::Scene, id: u32) -> PyResult<&Instance> {
    scene
        .instance(InstanceId::from_index(id))
        .ok_or_else(|| PyKeyError::new_err(format!("the scene has no instance {id}")))
}

/// `Scene.intersecting_instances`: the ids of the instances on a layer of `mask` whose
/// surface meets `mesh`'s, placed in the world by `transform`; uint32, sorted.
pub fn scene_intersecting_instances<'py>(
    py: Python<'py>,
    scene: &RwLock<meshcast::Scene>,
    mesh: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'py, PyAny>>,
    mask: u32,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let transform = scene_placement(py, transform)?;
    let ids = threads::run(py, threads, || {
        Ok(read(scene).intersecting_instances(&mesh, &transform, mask))
    })?;
    let count = ids.len();
    to_numpy(
        py,
        ids.into_iter().map(|id| id.index()).collect(),
        &[count],
        &[],
    )
}

/// What `Scene.intersecting_pairs` asks instance `id` against: a mesh (placed by the
/// call's `transform`) or another instance.
pub enum Other {
    Mesh(Arc<meshcast::Mesh>),
    Instance(u32),
}

/// `Scene.intersecting_pairs`: the pairs of triangles (instance `id`'s, the other's) that
/// meet in the world, the other an instance id or a `Mesh` placed by `transform`; (k, 2)
/// uint32, sorted.
pub fn scene_intersecting_pairs<'py>(
    py: Python<'py>,
    scene: &RwLock<meshcast::Scene>,
    id: u32,
    other: Other,
    transform: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    /// The other side, placed in the world.
    enum Placed {
        Probe(Box<Instance>),
        Held(u32),
    }
    let other = match other {
        Other::Mesh(mesh) => Placed::Probe(Box::new(probe(py, mesh, transform)?)),
        Other::Instance(_) if transform.is_some() => {
            return Err(PyValueError::new_err(
                "transform places a Mesh: another instance is placed already",
            ))
        }
        Other::Instance(id) => Placed::Held(id),
    };
    let guard = read(scene);
    let scene: &meshcast::Scene = &guard;
    let this = instance(scene, id)?;
    let other = match &other {
        Placed::Probe(placed) => placed,
        Placed::Held(id) => instance(scene, *id)?,
    };
    let pairs = threads::run(py, threads, || Ok(this.intersecting_pairs(other)))?;
    pairs_array(py, pairs)
}

/// `Scene.distance_to_mesh`: the instance on a layer of `mask` nearest to `mesh`, placed
/// in the world by `transform`, as [`distance_dict`] (the points on the instance and on
/// the mesh, in the world) with that instance's `geometry_id`.
pub fn scene_distance_to_mesh<'py>(
    py: Python<'py>,
    scene: &RwLock<meshcast::Scene>,
    mesh: Arc<meshcast::Mesh>,
    transform: Option<&Bound<'py, PyAny>>,
    max_distance: Option<f64>,
    mask: u32,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let transform = scene_placement(py, transform)?;
    let bound = scene_distance_bound(max_distance)?;
    let (found, wide) = threads::run_here(py, || {
        let scene = read(scene);
        let found = scene.world_mesh_distance(&mesh, &transform, mask, bound);
        (found, world_queries::is_far(&scene))
    });
    let Some((id, gap)) = found else {
        return Ok(None);
    };
    let dict = distance_dict_of(py, Some(gap), max_distance, &[], wide)?;
    if let Some(dict) = &dict {
        dict.set_item("geometry_id", id.index())?;
    }
    Ok(dict)
}

/// `Scene.nearest_instances`: the two nearest instances (or the nearest to instance
/// `id`), as [`distance_dict`] with their `geometry_ids`.
pub fn scene_nearest_instances<'py>(
    py: Python<'py>,
    scene: &RwLock<meshcast::Scene>,
    id: Option<u32>,
    max_distance: Option<f64>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let bound = scene_distance_bound(max_distance)?;
    let of = id.map(InstanceId::from_index);
    let (found, wide) = threads::run_here(py, || {
        let scene = read(scene);
        (
            scene.world_nearest_instances(of, bound),
            world_queries::is_far(&scene),
        )
    });
    let Some((a, b, gap)) = found.map_err(to_py)? else {
        return Ok(None);
    };
    distance_dict_of(py, Some(gap), max_distance, &[a, b], wide)
}
