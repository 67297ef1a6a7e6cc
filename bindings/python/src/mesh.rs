//! `Mesh`'s methods: made from arrays, files or bytes, read back as arrays, pickled; its
//! contact, field and view queries are thin entries here, their work in `contact`,
//! `fields` and `views` on the engine's mesh.

use std::path::PathBuf;
use std::sync::Arc;

use meshcast::glam::DVec3;
use meshcast::{MeshFiles, TriMeshFiles};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::arrays::{self, to_numpy, Rows};
use crate::building::build;
use crate::camera::{Camera, Clip};
use crate::error::to_py;
use crate::fields::{self, GridSpec};
use crate::gpu::{self, GpuMesh};
use crate::objects::Mesh;
use crate::state;
use crate::{contact, threads, views};

#[pymethods]
impl Mesh {
    #[new]
    fn new(
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        faces: &Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        Ok(Self::initializer(build(py, vertices, faces, None)?))
    }

    /// Reads a mesh file (OBJ, glTF, PLY, STL, the format from the extension or the content)
    /// and builds its BVH, or loads a meshcast cache (`save`) without a build.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, Self>> {
        let mesh = threads::run(py, None, || meshcast::Mesh::from_path(&path).map_err(to_py))?;
        Self::object(py, Arc::new(mesh))
    }

    /// The mesh in `data`, bytes from `to_bytes`: checked whole (checksums, every index, the
    /// tree) before use, so corrupt or hostile bytes raise `MeshcastError`.
    #[staticmethod]
    fn from_bytes<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, Self>> {
        let mesh = threads::run(py, None, || meshcast::Mesh::from_bytes(data).map_err(to_py))?;
        Self::object(py, Arc::new(mesh))
    }

    /// The mesh and its BVH as bytes (a meshcast cache): `from_bytes` gives the same mesh
    /// back, answering bit for bit alike, in any process.
    fn to_bytes<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyBytes>> {
        let mesh = Self::shared(slf);
        let bytes = slf.py().detach(|| mesh.to_bytes());
        Ok(PyBytes::new(slf.py(), &bytes))
    }

    /// Writes the mesh and its BVH to a cache file (through a temporary file and a rename),
    /// for `Mesh.load`.
    fn save(slf: &Bound<'_, Self>, path: PathBuf) -> PyResult<()> {
        let mesh = Self::shared(slf);
        slf.py().detach(|| mesh.save(&path)).map_err(to_py)
    }

    /// Moves the vertices to `vertices`, an `(N, 3)` array of one position per vertex in
    /// the same order, and refits the BVH to them: the path for deforming meshes (a rebuild
    /// where a triangle becomes or stops being degenerate). Every answer afterwards is the
    /// answer of `Mesh(vertices, self.faces)`, bit for bit: the tree's shape may differ,
    /// what it finds does not. A mesh with an origin of its own keeps it: the positions are
    /// world coordinates, carried there in double precision (as `Mesh(vertices, ...)` would
    /// carry them to the origin it picks, which may differ). Queries already running finish
    /// on the old positions; a `Scene` this mesh was added to keeps the positions it was
    /// given.
    fn set_positions(slf: &Bound<'_, Self>, vertices: &Bound<'_, PyAny>) -> PyResult<()> {
        let rows = Rows::vertices(vertices)?;
        let view = rows.view();
        let origin = Self::shared(slf).origin();
        let state = Self::state(slf);
        threads::run(slf.py(), None, || {
            let positions = view.map_carried(origin, |position| position.to_array());
            state::set_positions(state, &positions).map_err(to_py)
        })
    }

    /// The mesh on a GPU (a `GpuMesh`, a `Geometry` as this mesh is), tracing `cast_rays`,
    /// `cast_camera`, `test_occlusions`, `count_intersections` and `list_intersections`
    /// there with this mesh's answers (rays carried into its frame first, as here); its
    /// point queries are this mesh's, on the CPU. `adapter` picks the first adapter whose
    /// name contains it (case-insensitive; `gpu_adapters()` lists them); by default the
    /// `MESHCAST_GPU` environment variable does, else the best one found. The GPU is opened
    /// once per process. Raises `MeshcastError` where there is no adapter (or none named
    /// so) or the mesh does not fit on it.
    #[pyo3(signature = (adapter=None))]
    fn to_gpu<'py>(slf: &Bound<'py, Self>, adapter: Option<&str>) -> PyResult<Bound<'py, GpuMesh>> {
        gpu::upload(slf.py(), Self::shared(slf), adapter)
    }

    /// Whether the surface of `other`, placed by `transform` (4x4 or 3x4, from `other`'s
    /// space into this mesh's, each the space of its `vertices`; the identity by default),
    /// shares a point with this mesh's surface: some triangle of each, edges and corners
    /// included, meet, decided exactly. Surfaces only: a mesh wholly inside a closed mesh,
    /// touching nothing, does not intersect it. Stops at the first pair found.
    #[pyo3(signature = (other, transform=None))]
    fn intersects(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, Mesh>,
        transform: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let other = Self::shared(other);
        contact::intersects(slf.py(), Self::shared(slf), other, transform)
    }

    /// Every pair `(triangle of self, triangle of other)` that meets, `other` placed by
    /// `transform` as for `intersects`: `(k, 2)` uint32, sorted, each pair once.
    #[pyo3(signature = (other, transform=None, *, threads=None))]
    fn intersecting_pairs<'py>(
        slf: &Bound<'py, Self>,
        other: &Bound<'py, Mesh>,
        transform: Option<&Bound<'py, PyAny>>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let other = Self::shared(other);
        contact::intersecting_pairs(slf.py(), Self::shared(slf), other, transform, threads)
    }

    /// The nearest points of this mesh's surface and `other`'s, placed by `transform` as
    /// for `intersects`: a dict of `distance` (a float, 0.0 exactly when they meet),
    /// `points` (2, 3) float32 (float64 world coordinates for a mesh with an origin of its
    /// own), the point on this mesh and the point on `other` (in this mesh's space), and
    /// `primitive_ids` (2,) uint32, their triangles. `None` when either mesh has no
    /// triangle or nothing is within `max_distance` (as answered; `None`, the default, for
    /// no limit). Exact up to the float64 distance of the nearest triangles, rounded to
    /// float32; one walk, on one thread.
    #[pyo3(signature = (other, transform=None, max_distance=None))]
    fn distance_to_mesh<'py>(
        slf: &Bound<'py, Self>,
        other: &Bound<'py, Mesh>,
        transform: Option<&Bound<'py, PyAny>>,
        max_distance: Option<f64>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (mesh, other) = (Self::shared(slf), Self::shared(other));
        contact::distance_to_mesh(slf.py(), mesh, other, transform, max_distance)
    }

    /// The Hausdorff distance between this mesh's surface and `other`'s, placed by
    /// `transform` as for `intersects`, both directed distances each within
    /// `relative_error` (not sampled: proven bounds refined until they meet). A dict of
    /// `distance` (the larger directed one) and `self_to_other`, `other_to_self`: each a
    /// dict of `distance` (the farthest point found lies this far from the other surface),
    /// `bound` (no point lies farther), `points` (2, 3) float32, float64 for a mesh with an
    /// origin of its own (that point, and its nearest point on the other surface) and
    /// `primitive_ids` (2,) uint32 (their triangles), every point in this mesh's space.
    /// `None` when either mesh has no triangle.
    #[pyo3(signature = (other, transform=None, relative_error=1e-3, *, threads=None))]
    fn hausdorff_distance<'py>(
        slf: &Bound<'py, Self>,
        other: &Bound<'py, Mesh>,
        transform: Option<&Bound<'py, PyAny>>,
        relative_error: f64,
        threads: Option<i64>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (mesh, other) = (Self::shared(slf), Self::shared(other));
        contact::hausdorff_distance(slf.py(), mesh, other, transform, relative_error, threads)
    }

    /// Every pair `(i, j)`, `i < j`, of this mesh's triangles that meet other than along
    /// the edge or at the corner they share (corners shared by position): `(k, 2)` uint32,
    /// sorted. A closed, manifold surface that does not cut itself answers none.
    #[pyo3(signature = (*, threads=None))]
    fn self_intersections<'py>(
        slf: &Bound<'py, Self>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        contact::self_intersections(slf.py(), Self::shared(slf), threads)
    }

    /// The signed distance (negative inside, float32) at every point of a grid: `shape`
    /// `(nx, ny, nz)` points over `bounds` (a (2, 3) array, min and max corners, which are
    /// the first and last points; along each axis `min * (1 - t) + max * t` with `t = i /
    /// (n - 1)` in float32). Answers `(nx, ny, nz)`, each value `compute_signed_distance`
    /// at its point, bit for bit (inf for a mesh with no surface). A mesh with an origin of
    /// its own takes `bounds` in world coordinates and carries the corners into its frame,
    /// where the points are (so its values are those of its float64 queries to within
    /// single-precision rounding, not bit for bit). With `max_distance` (rounded to
    /// float32), values beyond it are `+-max_distance`, and their distances are not
    /// computed (faster).
    #[pyo3(signature = (bounds, shape, max_distance=None, *, threads=None))]
    fn compute_signed_distance_grid<'py>(
        slf: &Bound<'py, Self>,
        bounds: &Bound<'py, PyAny>,
        shape: &Bound<'py, PyAny>,
        max_distance: Option<f64>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mesh = Self::shared(slf);
        let grid = GridSpec::new(bounds, shape, mesh.origin())?;
        let band = fields::band(max_distance)?;
        grid.compute(slf.py(), threads, |bounds, shape| {
            mesh.signed_distance_grid(bounds, shape, band)
        })
    }

    /// Whether each point of the grid (see `compute_signed_distance_grid`) is inside:
    /// `(nx, ny, nz)` bool, `contains` at each point.
    #[pyo3(signature = (bounds, shape, *, threads=None))]
    fn compute_occupancy_grid<'py>(
        slf: &Bound<'py, Self>,
        bounds: &Bound<'py, PyAny>,
        shape: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mesh = Self::shared(slf);
        GridSpec::new(bounds, shape, mesh.origin())?.compute(slf.py(), threads, |bounds, shape| {
            mesh.occupancy_grid(bounds, shape)
        })
    }

    /// The generalised winding number at each point of the grid (see
    /// `compute_signed_distance_grid`): `(nx, ny, nz)` float32, `winding_number` at each
    /// point, bit for bit.
    #[pyo3(signature = (bounds, shape, *, threads=None))]
    fn compute_winding_number_grid<'py>(
        slf: &Bound<'py, Self>,
        bounds: &Bound<'py, PyAny>,
        shape: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mesh = Self::shared(slf);
        GridSpec::new(bounds, shape, mesh.origin())?.compute(slf.py(), threads, |bounds, shape| {
            mesh.winding_number_grid(bounds, shape)
        })
    }

    /// `n` points on the surface, uniform by area, the same for a `seed` whatever the
    /// number of threads: a dict of `points` (n, 3) float32 (float64 world coordinates for
    /// a mesh with an origin of its own), `primitive_ids` (n,) uint32, the triangle of
    /// each, and `primitive_uvs` (n, 2) float32, its barycentric coordinates (the point is
    /// `p0 + u (p1 - p0) + v (p2 - p0)`). A mesh without area gives no samples (empty
    /// arrays).
    #[pyo3(signature = (n, seed=0, *, threads=None))]
    fn sample_surface<'py>(
        slf: &Bound<'py, Self>,
        n: i128,
        seed: i128,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        fields::sample_surface(slf.py(), &Self::shared(slf), n, seed, threads)
    }

    /// At most `n` points on the surface, spread evenly (Poisson-disk samples by Yuksel's
    /// weighted sample elimination, 2015), every two at least `radius` apart where it is
    /// given; the same dict as `sample_surface`, the same for a `seed`. A `radius` above
    /// about 1.4 times the spacing of `n` points packed on the surface gives fewer points.
    #[pyo3(signature = (n, radius=None, seed=0, *, threads=None))]
    fn sample_surface_even<'py>(
        slf: &Bound<'py, Self>,
        n: i128,
        radius: Option<f64>,
        seed: i128,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mesh = Self::shared(slf);
        fields::sample_surface_even(slf.py(), &mesh, n, radius, seed, threads)
    }

    /// `n` points near the surface and their signed distances (negative inside), mixed as
    /// `mesh_to_sdf`'s `sample_sdf_near_surface` mixes them: about 47% surface samples
    /// moved by a Gaussian offset of standard deviation `sigma` along each axis, 47% by
    /// `sigma / 10`, the rest uniform in the mesh's box (`mesh_to_sdf` takes 0.0025 for a
    /// mesh scaled into the unit sphere). A dict of `points` (n, 3) (as `sample_surface`'s)
    /// and `signed_distances` (n,) float32, each distance `compute_signed_distance` at its
    /// point, bit for bit (for a mesh with an origin of its own, to within single-precision
    /// rounding); the same for a `seed`.
    #[pyo3(signature = (n, sigma, seed=0, *, threads=None))]
    fn sample_near_surface<'py>(
        slf: &Bound<'py, Self>,
        n: i128,
        sigma: f64,
        seed: i128,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mesh = Self::shared(slf);
        fields::sample_near_surface(slf.py(), &mesh, n, sigma, seed, threads)
    }

    /// Whether at least one of `eyes` ((3,) or (k, 3)) sees each vertex: (N,) bool. An eye
    /// sees a vertex when the segment from the vertex to the eye meets the surface nowhere
    /// else (the vertex's own triangles left out, touching blocks). `MeshcastError` for a
    /// NaN or infinite eye.
    #[pyo3(signature = (eyes, *, threads=None))]
    fn visible_vertices<'py>(
        slf: &Bound<'py, Self>,
        eyes: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        views::visible_vertices(slf.py(), &Self::shared(slf), eyes, threads)
    }

    /// Whether at least one of `eyes` sees each triangle at one of its sample points
    /// (`density` per unit area; 0: the centroid alone) as the closest hit: (M,) bool.
    #[pyo3(signature = (eyes, density=0.0, *, threads=None))]
    fn visible_triangles<'py>(
        slf: &Bound<'py, Self>,
        eyes: &Bound<'py, PyAny>,
        density: f64,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        views::visible_triangles(slf.py(), &Self::shared(slf), eyes, density, threads)
    }

    /// Whether the image of a pinhole camera (as `Scene.pick` takes it, with clip planes at
    /// `near` and `far`) shows each vertex unoccluded: (N,) bool.
    #[pyo3(signature = (camera=None, *, threads=None, **camera_keywords))]
    fn visible_vertices_in_view<'py>(
        slf: &Bound<'py, Self>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let camera = Camera::of_call(
            "visible_vertices_in_view",
            camera,
            camera_keywords,
            Clip::Planes,
        )?;
        let seen = meshcast::Mesh::visible_vertices_in_view;
        views::in_view(slf.py(), &Self::shared(slf), &camera, threads, seen)
    }

    /// Whether each triangle is the closest hit at the centre of some pixel of the camera's
    /// image (see `visible_vertices_in_view`): (M,) bool.
    #[pyo3(signature = (camera=None, *, threads=None, **camera_keywords))]
    fn visible_triangles_in_view<'py>(
        slf: &Bound<'py, Self>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let camera = Camera::of_call(
            "visible_triangles_in_view",
            camera,
            camera_keywords,
            Clip::Planes,
        )?;
        let seen = meshcast::Mesh::visible_triangles_in_view;
        views::in_view(slf.py(), &Self::shared(slf), &camera, threads, seen)
    }

    /// The triangles seen at the pixels of the camera's image (see
    /// `visible_vertices_in_view`) whose centres lie inside `polygon`, (n, 2) pixel
    /// coordinates from the top-left: (k,) uint32, sorted. `MeshcastError` for a polygon of
    /// fewer than three points, no area or a NaN coordinate.
    #[pyo3(signature = (polygon, camera=None, *, threads=None, **camera_keywords))]
    fn lasso_triangles<'py>(
        slf: &Bound<'py, Self>,
        polygon: &Bound<'py, PyAny>,
        camera: Option<&Bound<'py, Camera>>,
        threads: Option<i64>,
        camera_keywords: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let camera = Camera::of_call("lasso_triangles", camera, camera_keywords, Clip::Planes)?;
        views::mesh_lasso(slf.py(), &Self::shared(slf), polygon, &camera, threads)
    }

    /// Each vertex's ambient occlusion, the fraction of `rays_per_vertex` cosine-weighted
    /// rays around its normal blocked within `max_distance`: (N,) float32 (NaN for a vertex
    /// on no triangle with area), the same for a `seed` on any number of threads.
    #[pyo3(signature = (rays_per_vertex=64, max_distance=f64::INFINITY, seed=0, *, threads=None))]
    fn ambient_occlusion<'py>(
        slf: &Bound<'py, Self>,
        rays_per_vertex: i128,
        max_distance: f64,
        seed: i128,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mesh = Self::shared(slf);
        views::ambient_occlusion(
            slf.py(),
            &mesh,
            rays_per_vertex,
            max_distance,
            seed,
            threads,
        )
    }

    /// How thick the mesh is at each vertex, along `rays_per_vertex` rays into it uniform
    /// in the cone of `half_angle_degrees` around the reversed normal: a dict of `mean` and
    /// `min` (float32, the distances at which they met the surface; inf where none did) and
    /// `hits` (uint32, how many did), per vertex; the same for a `seed`.
    #[pyo3(signature = (rays_per_vertex=64, half_angle_degrees=60.0, seed=0, *, threads=None))]
    fn thickness<'py>(
        slf: &Bound<'py, Self>,
        rays_per_vertex: i128,
        half_angle_degrees: f64,
        seed: i128,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mesh = Self::shared(slf);
        views::thickness(
            slf.py(),
            &mesh,
            rays_per_vertex,
            half_angle_degrees,
            seed,
            threads,
        )
    }

    /// The vertex positions, `(N, 3)` float32 (a copy); float64 world coordinates for a
    /// mesh with an origin of its own (`origin` plus its single-precision coordinates).
    #[getter]
    fn vertices<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let mesh = Self::shared(slf);
        arrays::frame_points(slf.py(), mesh.tri_mesh().positions(), mesh.origin())
    }

    /// Where the mesh's single-precision coordinates are measured from, `(3,)` float64: the
    /// centre of the box of `float64` vertices given far from the world's origin (farther
    /// than 64 of the box's diagonals), else zero. Rays and points are carried there in
    /// double precision before they are rounded.
    #[getter]
    fn origin<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let origin = Self::shared(slf).origin().to_array().to_vec();
        to_numpy(slf.py(), origin, &[3], &[])
    }

    /// The triangles' vertex indices, `(M, 3)` uint32 (a copy).
    #[getter]
    fn faces<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let mesh = Self::shared(slf);
        let faces: Vec<u32> = mesh
            .tri_mesh()
            .indices()
            .iter()
            .flatten()
            .copied()
            .collect();
        to_numpy(slf.py(), faces, &[mesh.triangle_count()], &[3])
    }

    /// The number of triangles.
    #[getter]
    fn triangle_count(slf: &Bound<'_, Self>) -> usize {
        Self::shared(slf).triangle_count()
    }

    /// The number of vertices.
    #[getter]
    fn vertex_count(slf: &Bound<'_, Self>) -> usize {
        Self::shared(slf).tri_mesh().vertex_count()
    }

    /// Whether every edge is shared by exactly two consistently oriented triangles (then
    /// `contains` counts crossings exactly).
    #[getter]
    fn is_closed(slf: &Bound<'_, Self>) -> bool {
        Self::shared(slf).is_closed()
    }

    /// A 64-bit hash of the positions and triangles: equal meshes have equal hashes.
    #[getter]
    fn geometry_hash(slf: &Bound<'_, Self>) -> u64 {
        Self::shared(slf).tri_mesh().geometry_hash()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let from_bytes = slf.get_type().getattr("from_bytes")?;
        let bytes = Self::to_bytes(slf)?;
        PyTuple::new(
            slf.py(),
            [from_bytes, PyTuple::new(slf.py(), [bytes])?.into_any()],
        )
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let mesh = Self::shared(slf);
        let origin = mesh.origin();
        let origin = if origin == DVec3::ZERO {
            String::new()
        } else {
            format!(", origin {origin}")
        };
        format!(
            "meshcast.Mesh({} triangles, {} vertices{}{origin})",
            mesh.triangle_count(),
            mesh.tri_mesh().vertex_count(),
            if mesh.is_closed() { ", closed" } else { "" }
        )
    }
}

/// The distance between triangle `pairs[i][0]` of `mesh` and triangle `pairs[i][1]` of
/// `other` placed by `transform`, for each pair, as the Rust library's mesh distance
/// computes it: a dict of `distance` (k,) and `points_on_mesh`, `points_on_other` (k, 3),
/// float64 (see `contact::triangle_distances`). The reference of the tests, and the contact
/// points of `meshcast.trimesh.CollisionManager`.
#[pyfunction]
#[pyo3(name = "_triangle_distances", signature = (mesh, other, pairs, transform=None, mesh_transform=None))]
pub fn triangle_distances<'py>(
    mesh: &Bound<'py, Mesh>,
    other: &Bound<'py, Mesh>,
    pairs: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    mesh_transform: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (this, other) = (Mesh::shared(mesh), Mesh::shared(other));
    contact::triangle_distances(mesh.py(), this, other, pairs, transform, mesh_transform)
}
