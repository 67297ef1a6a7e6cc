"""meshcast.trimesh's proximity queries (``ProximityQuery``, ``closest_point``,
``signed_distance``, ``longest_ray``) against trimesh.proximity and a brute force.

meshcast picks each point's triangle in single precision and computes the point on it in
double precision, so distances agree with trimesh's to single precision's rounding (two
nearly equidistant triangles may be told apart differently), and exactly tied triangles (a
shared vertex or edge) go to the smaller index where trimesh picks by the faces' normals.
trimesh's own closest point on a triangle is wrong on small triangles (see
``test_trimesh_puts_points_on_edges_of_small_triangles``): there meshcast is nearer.
"""

import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

trimesh = pytest.importorskip("trimesh")
from conftest import trimesh_asset as load  # noqa: E402

import meshcast  # noqa: E402
import meshcast.trimesh as mt  # noqa: E402


#: Single precision's rounding, relative to a mesh's size: distances of two triangles closer
#: than this may be ordered either way when meshcast picks the nearer.
SINGLE = 1e-7


def near_points(mesh, count, seed):
    """Points near the surface (samples moved by up to a few percent of the mesh's size)
    and in and around its box."""
    rng = np.random.default_rng(seed)
    near = count // 2
    corners = mesh.triangles[rng.integers(0, len(mesh.faces), near)]
    weights = rng.dirichlet([1.0, 1.0, 1.0], near)
    samples = np.einsum("nk,nkd->nd", weights, corners)
    samples += rng.normal(size=(near, 3)) * 0.02 * mesh.scale
    low, high = mesh.bounds
    around = rng.uniform(low - 0.2 * (high - low), high + 0.2 * (high - low), (count - near, 3))
    return np.vstack((samples, around))


def assert_projections_inside(mesh, points, closest, triangle_id):
    """Each closest point is its point's projection onto the plane of its triangle, and
    inside that triangle: then no point of the triangle is nearer."""
    corners = mesh.triangles[triangle_id]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    height = np.einsum("ij,ij->i", points - corners[:, 0], normals)
    projection = points - height[:, None] * normals
    np.testing.assert_allclose(closest, projection, rtol=0, atol=1e-12 * mesh.scale)
    barycentric = trimesh.triangles.points_to_barycentric(corners, projection)
    assert (barycentric > 0).all()


def brute_force(mesh, points):
    """Every triangle's distance to every point, by trimesh's own per-triangle closest point."""
    distances = np.empty((len(points), len(mesh.faces)))
    for i, point in enumerate(points):
        on = trimesh.triangles.closest_point(mesh.triangles, np.repeat(point[None], len(mesh.faces), 0))
        distances[i] = np.linalg.norm(on - point, axis=1)
    return distances


@pytest.mark.parametrize("name", ["spot", "suzanne", "fandisk", "cow"])
def test_closest_points_agree_with_trimesh(name):
    mesh = load(name)
    points = near_points(mesh, 3000, 1)
    closest, distance, triangle_id = mt.closest_point(mesh, points)
    theirs = trimesh.proximity.closest_point(mesh, points)
    assert (closest.dtype, distance.dtype, triangle_id.dtype) == (np.float64, np.float64, np.int64)
    assert closest.shape == points.shape and distance.shape == triangle_id.shape == (len(points),)
    scale = mesh.scale
    # Never farther than trimesh's, but for single precision's choice between nearly
    # equidistant triangles; nearer only where trimesh's point is wrong.
    assert (distance <= theirs[1] + SINGLE * scale).all()
    nearer = distance < theirs[1] - SINGLE * scale
    assert nearer.mean() < 0.01
    assert_projections_inside(mesh, points[nearer], closest[nearer], triangle_id[nearer])
    np.testing.assert_allclose(np.linalg.norm(closest - points, axis=1), distance, rtol=1e-12)
    # Each point is on its triangle.
    barycentric = trimesh.triangles.points_to_barycentric(mesh.triangles[triangle_id], closest)
    assert (barycentric > -1e-9).all()
    same = (triangle_id == theirs[2]) & ~nearer
    np.testing.assert_allclose(closest[same], theirs[0][same], rtol=0, atol=1e-9 * scale)
    # Other triangles hold the same point (a shared vertex or edge), or one as near to
    # single precision's rounding: on a flat stretch, a point of the shared edge next to
    # the projection is as near as makes no difference.
    apart = np.linalg.norm(closest - theirs[0], axis=1)[~same & ~nearer]
    assert (apart <= 1e-9 * scale).mean() > 0.95 and (apart <= 1e-3 * scale).all()
    assert same.mean() > 0.3  # points off the mesh mostly find vertices and edges: ties


def test_closest_points_match_a_brute_force():
    mesh = load("spot")
    points = near_points(mesh, 300, 2)
    distances = brute_force(mesh, points)
    closest, distance, triangle_id = mt.closest_point(mesh, points)
    best = distances.min(axis=1)
    assert np.abs(distance - best).max() <= SINGLE * mesh.scale
    ordered = np.sort(distances, axis=1)
    gap = ordered[:, 1] - ordered[:, 0]
    # A clear best triangle is found. (Ties are decided in single precision, where two
    # triangles tied in double precision need not tie: test_ties_go_to_the_smaller_triangle.)
    decided = gap > 1e-6 * mesh.scale
    assert decided.sum() > 100
    assert (triangle_id[decided] == distances.argmin(axis=1)[decided]).all()


def test_trimesh_puts_points_on_edges_of_small_triangles():
    """trimesh's ``triangles.closest_point`` compares Ericson's region quantities (products
    of dot products, which scale with the fourth power of lengths) with an absolute 1e-13,
    so on the bunny's triangles, about a millimetre wide, a point whose projection lies
    inside a triangle is put on an edge instead, farther than the true closest point (by
    up to 4e-4 of the bunny's size). meshcast's point there is the projection, inside the
    triangle."""
    mesh = load("stanford-bunny")
    points = near_points(mesh, 3000, 3)
    closest, distance, triangle_id = mt.closest_point(mesh, points)
    theirs = trimesh.proximity.closest_point(mesh, points)
    scale = mesh.scale
    assert (distance <= theirs[1] + SINGLE * scale).all()
    nearer = distance < theirs[1] - SINGLE * scale
    assert nearer.sum() > 10
    assert_projections_inside(mesh, points[nearer], closest[nearer], triangle_id[nearer])


def test_ties_go_to_the_smaller_triangle():
    mesh = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    point = np.array([[3.0, 2.5, 4.0]])  # beyond the corner (1, 1, 1)
    closest, distance, triangle_id = mt.closest_point(mesh, point)
    np.testing.assert_array_equal(closest, [[1.0, 1.0, 1.0]])
    assert distance[0] == np.linalg.norm(point - 1.0)
    corner = np.flatnonzero((mesh.vertices == 1.0).all(axis=1))[0]
    around = np.flatnonzero((mesh.faces == corner).any(axis=1))
    assert triangle_id[0] == around.min()
    theirs = trimesh.proximity.closest_point(mesh, point)
    assert theirs[1][0] == distance[0] and theirs[2][0] in around


@pytest.mark.parametrize("name", ["spot", "cow", "fandisk"])
def test_signed_distance_agrees_with_trimesh(name):
    mesh = load(name)
    points = near_points(mesh, 2000, 4)
    signed = mt.signed_distance(mesh, points)
    theirs = trimesh.proximity.signed_distance(mesh, points)
    assert signed.dtype == np.float64 and signed.shape == (len(points),)
    np.testing.assert_allclose(np.abs(signed), np.abs(theirs), rtol=0, atol=SINGLE * mesh.scale)
    np.testing.assert_array_equal(np.abs(signed), mt.closest_point(mesh, points)[1])
    # Positive inside, as trimesh. The sign is meshcast's exact inside test; trimesh takes
    # the closest triangle's normal where the point projects into it, which gets a few
    # points wrong that trimesh's own `contains` gets right.
    clear = np.abs(theirs) > 1e-4 * mesh.scale
    differ = clear & (np.sign(signed) != np.sign(theirs))
    assert differ.mean() < 0.002
    assert (mesh.contains(points[differ]) == (signed[differ] > 0)).all()
    assert ((signed > 0) == meshcast.Mesh(mesh.vertices, mesh.faces).contains(points)).mean() > 0.999
    assert (signed > 0).sum() > 100 and (signed < 0).sum() > 100
    # Points on the surface are at +0 (within trimesh's merge tolerance: positive).
    on = mt.signed_distance(mesh, mesh.vertices[:100])
    assert (on >= 0).all() and (on <= mt.TOL_MERGE).all()
    query = mt.ProximityQuery(mesh)
    np.testing.assert_array_equal(query.signed_distance(points), signed)


@pytest.mark.parametrize("name", ["spot", "fandisk"])
def test_longest_ray_agrees_with_trimesh(name):
    mesh = load(name)
    rng = np.random.default_rng(5)
    points = near_points(mesh, 1000, 6)
    directions = rng.normal(size=points.shape) * rng.uniform(0.1, 10.0, (len(points), 1))
    # And thickness's rays: from surface points along their faces' inward normals.
    faces = rng.integers(0, len(mesh.faces), 500)
    on = mesh.triangles[faces].mean(axis=1)
    points = np.vstack((points, on))
    directions = np.vstack((directions, -mesh.face_normals[faces]))
    lengths = mt.longest_ray(mesh, points, directions)
    theirs = trimesh.proximity.longest_ray(mesh, points, directions)
    assert lengths.dtype == np.float64 and lengths.shape == (len(points),)
    agree = np.isfinite(lengths) == np.isfinite(theirs)
    assert agree.mean() > 0.995
    both = np.isfinite(lengths) & np.isfinite(theirs)
    close = np.abs(lengths[both] - theirs[both]) <= 1e-9 * mesh.scale
    assert close.mean() > 0.99
    assert np.isfinite(lengths[-500:]).all()  # every inward ray from a closed surface hits


def test_vertex_is_trimesh_answer():
    mesh = load("suzanne")
    points = near_points(mesh, 1000, 7)
    distance, vertex_id = mt.ProximityQuery(mesh).vertex(points)
    theirs = trimesh.proximity.ProximityQuery(mesh).vertex(points)
    assert (distance.dtype, vertex_id.dtype) == (np.float64, np.int64)
    np.testing.assert_array_equal(distance, theirs[0])
    np.testing.assert_array_equal(vertex_id, theirs[1])


def test_trimesh_code_uses_the_drop_in():
    mesh = load("cow").copy()
    points = mesh.triangles[::50].mean(axis=1)
    normals = mesh.face_normals[::50]
    expected = trimesh.proximity.thickness(mesh, points, normals=normals, method="max_sphere")
    mesh.nearest = mt.ProximityQuery(mesh)
    calls = []
    on_surface = mesh.nearest.on_surface
    mesh.nearest.on_surface = lambda p: calls.append(len(p)) or on_surface(p)
    thickness = trimesh.proximity.thickness(mesh, points, normals=normals, method="max_sphere")
    assert calls
    np.testing.assert_allclose(thickness, expected, rtol=1e-6)
    # The module's functions use the mesh's own ProximityQuery's meshcast mesh.
    assert mt._prepared_for(mesh) is mesh.nearest._prepared
    assert id(mesh) not in mt._prepared_by_id


def test_inputs_outputs_and_errors():
    mesh = load("suzanne")
    empty = mt.closest_point(mesh, np.zeros((0, 3)))
    assert [a.shape for a in empty] == [(0, 3), (0,), (0,)]
    assert [a.dtype for a in empty] == [np.float64, np.float64, np.int64]
    assert mt.signed_distance(mesh, np.zeros((0, 3))).shape == (0,)
    assert mt.longest_ray(mesh, np.zeros((0, 3)), np.zeros((0, 3))).shape == (0,)
    # Lists and float32 are fine; a zero direction goes on forever.
    assert mt.closest_point(mesh, [[0.0, 0.0, 5.0]])[2].shape == (1,)
    assert mt.longest_ray(mesh, np.float32([[0.0, 0.0, 0.0]]), [[0.0, 0.0, 0.0]])[0] == np.inf
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        mt.closest_point(mesh, np.zeros(3))
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        mt.signed_distance(mesh, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="one direction per point"):
        mt.longest_ray(mesh, np.zeros((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError):
        mt.closest_point(mesh, [[0.0, np.nan, 0.0]])
    # A mesh with no triangles has no closest point.
    nothing = mt.closest_point(trimesh.Trimesh(), [[0.0, 0.0, 0.0]])
    assert np.isnan(nothing[0]).all() and nothing[1][0] == np.inf and nothing[2][0] == -1


def test_rebuilds_when_the_mesh_changes_and_forgets_it_when_it_goes():
    mesh = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    point = [[0.25, 0.5, 5.0]]
    np.testing.assert_array_equal(mt.closest_point(mesh, point)[0], [[0.25, 0.5, 1.0]])
    kept = mt._prepared_by_id[id(mesh)][1]
    mt.signed_distance(mesh, point)
    assert mt._prepared_by_id[id(mesh)][1] is kept
    mesh.apply_translation([0.0, 0.0, 10.0])
    np.testing.assert_array_equal(mt.closest_point(mesh, point)[0], [[0.25, 0.5, 9.0]])
    assert mt.signed_distance(mesh, [[0.0, 0.0, 10.5], [0.0, 0.0, 0.5]]).tolist() == [0.5, -8.5]
    key = id(mesh)
    del mesh
    gc.collect()
    assert key not in mt._prepared_by_id


def test_a_mesh_far_from_the_origin_keeps_its_precision():
    offset = np.array([1e6, -2e6, 3e6])
    mesh = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    mesh.apply_translation(offset)
    points = offset + np.array([[0.123, -0.456, 3.0], [0.25, 0.0, 0.5]])
    closest, distance, _ = mt.closest_point(mesh, points)
    np.testing.assert_allclose(closest, offset + [[0.123, -0.456, 1.0], [0.25, 0.0, 1.0]], rtol=0, atol=1e-9)
    np.testing.assert_allclose(distance, [2.0, 0.5], rtol=1e-9)
    assert mt.signed_distance(mesh, points).tolist() == pytest.approx([-2.0, 0.5], rel=1e-9)
    lengths = mt.longest_ray(mesh, points, [[0.0, 0.0, -1.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(lengths, [2.0, 0.75], rtol=1e-9)


def test_a_proximity_query_pickles_without_its_meshcast_mesh():
    import pickle

    mesh = load("suzanne")
    query = mt.ProximityQuery(mesh, threads=1)
    points = near_points(mesh, 100, 8)
    answer = query.on_surface(points)
    restored = pickle.loads(pickle.dumps(query))
    assert restored._prepared is None and restored.threads == 1
    for mine, reference in zip(restored.on_surface(points), answer):
        np.testing.assert_array_equal(mine, reference)


def test_works_without_trimesh():
    script = textwrap.dedent(
        """
        import sys
        sys.modules["trimesh"] = None  # any `import trimesh` now fails
        import meshcast.trimesh as mt

        class Tetrahedron:
            vertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
            faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]

        mesh = Tetrahedron()
        print(mt.closest_point(mesh, [[0.25, 0.25, -1.0]])[0].tolist())
        print(mt.signed_distance(mesh, [[0.1, 0.1, 0.1], [0.1, 0.1, -1.0]]).tolist())
        print(mt.longest_ray(mesh, [[0.1, 0.1, 0.1]], [[0, 0, -2]]).tolist())
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    lines = result.stdout.split("\n")
    assert lines[0] == "[[0.25, 0.25, 0.0]]"
    assert lines[1] == "[0.1, -1.0]"
    assert lines[2] == "[0.1]"
