"""meshcast.trimesh.RayMeshIntersector against trimesh's own pure-Python intersector.

The two must agree on every ray whose hits are clear of triangle edges and of the ray's
origin (where rounding, single precision against double, may pick a different triangle or
side); through shared edges and vertices meshcast must count each crossing once where
trimesh's intersector counts it once per triangle touched.
"""

import pickle
import subprocess
import sys
import textwrap
from functools import lru_cache

import numpy as np
import pytest

trimesh = pytest.importorskip("trimesh")
from conftest import trimesh_asset as load  # noqa: E402
from trimesh.ray.ray_triangle import RayMeshIntersector as TrimeshIntersector  # noqa: E402

import meshcast  # noqa: E402
from meshcast.trimesh import RayMeshIntersector  # noqa: E402


# Hits closer than this fraction of the mesh's size to an edge of their triangle, or to the
# ray's origin, are within rounding of another answer: their rays are left out of the
# comparison with trimesh.
CLEARANCE = 1e-5


def random_rays(mesh, count, seed):
    """Rays from outside aimed into the box, and rays from inside in every direction.

    Directions have lengths between 0.5 and 2: trimesh keeps hits up to 1e-6 behind the
    origin in units of the direction, so lengths near 1 keep that slack small.
    """
    rng = np.random.default_rng(seed)
    low, high = mesh.bounds
    center = (low + high) / 2.0
    outside = count // 2
    toward = rng.normal(size=(outside, 3))
    toward /= np.linalg.norm(toward, axis=1, keepdims=True)
    outer_origins = center + toward * mesh.scale
    outer_directions = rng.uniform(low, high, (outside, 3)) - outer_origins
    outer_directions /= np.linalg.norm(outer_directions, axis=1, keepdims=True)
    inner_origins = rng.uniform(low, high, (count - outside, 3))
    inner_directions = rng.normal(size=(count - outside, 3))
    inner_directions /= np.linalg.norm(inner_directions, axis=1, keepdims=True)
    origins = np.vstack((outer_origins, inner_origins))
    directions = np.vstack((outer_directions, inner_directions))
    return origins, directions * rng.uniform(0.5, 2.0, (count, 1))


def distance_to_edges(mesh, index_tri, locations):
    """Distance from each point to the nearest edge of its triangle (NaN if degenerate)."""
    corners = mesh.triangles[index_tri]
    barycentric = trimesh.triangles.points_to_barycentric(corners, locations)
    # The edge opposite each corner, and the triangle's height over it.
    opposite = np.stack(
        (
            corners[:, 2] - corners[:, 1],
            corners[:, 0] - corners[:, 2],
            corners[:, 1] - corners[:, 0],
        ),
        axis=1,
    )
    doubled_area = np.linalg.norm(np.cross(opposite[:, 0], opposite[:, 1]), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        heights = doubled_area[:, None] / np.linalg.norm(opposite, axis=2)
    return (np.abs(barycentric) * heights).min(axis=1)


def unclear_rays(mesh, origins, directions, index_tri, index_ray, locations):
    """The rays with a hit near an edge of its triangle or near the ray's origin."""
    margin = CLEARANCE * mesh.scale
    unit = directions[index_ray] / np.linalg.norm(directions[index_ray], axis=1)[:, None]
    along = np.einsum("ij,ij->i", locations - origins[index_ray], unit)
    edge = distance_to_edges(mesh, index_tri, locations)
    unclear = ~(edge > margin) | (np.abs(along) < margin)
    return np.unique(index_ray[unclear])


def hits_by_pair(index_tri, index_ray, locations, rays):
    """{(ray, triangle): location} for the hits of the given rays."""
    keep = np.isin(index_ray, rays)
    return {
        (ray, tri): location
        for ray, tri, location in zip(
            index_ray[keep].tolist(), index_tri[keep].tolist(), locations[keep]
        )
    }


@lru_cache(maxsize=None)
def comparison(name):
    """Both intersectors' hits of the same random rays on one asset, and the clear rays."""
    mesh = load(name)
    # trimesh's intersector takes ~10 ms a ray on the bunny's 69k triangles.
    count = 600 if len(mesh.faces) > 50_000 else 3000
    origins, directions = random_rays(mesh, count, seed=len(name))
    theirs = TrimeshIntersector(mesh).intersects_id(
        origins, directions, multiple_hits=True, return_locations=True
    )
    ours = RayMeshIntersector(mesh).intersects_id(
        origins, directions, multiple_hits=True, return_locations=True
    )
    unclear = np.union1d(
        unclear_rays(mesh, origins, directions, *theirs),
        unclear_rays(mesh, origins, directions, *ours),
    )
    clear = np.setdiff1d(np.arange(count), unclear)
    return mesh, origins, directions, theirs, ours, clear


ASSET_NAMES = ["stanford-bunny", "spot", "cow", "suzanne", "teapot"]


@pytest.mark.parametrize("name", ASSET_NAMES)
def test_hits_agree_with_trimesh_away_from_edges(name):
    mesh, origins, _directions, theirs, ours, clear = comparison(name)
    # Rounding leaves out only a few rays, and enough rays hit for the test to mean much.
    assert len(clear) > 0.97 * len(origins)
    their_hits = hits_by_pair(*theirs, clear)
    our_hits = hits_by_pair(*ours, clear)
    assert len(our_hits) > len(origins) / 2
    assert our_hits.keys() == their_hits.keys()
    pairs = list(our_hits)
    ours_at = np.array([our_hits[pair] for pair in pairs])
    theirs_at = np.array([their_hits[pair] for pair in pairs])
    # Both are where the float64 ray meets the float64 triangle's plane.
    assert np.abs(ours_at - theirs_at).max() < 1e-10 * mesh.scale


@pytest.mark.parametrize("name", ASSET_NAMES)
def test_first_and_any_agree_with_trimesh_away_from_edges(name):
    mesh, origins, directions, _theirs, _ours, clear = comparison(name)
    # Every tenth clear ray: trimesh answers each of these queries by casting again.
    origins, directions = origins[clear[::10]], directions[clear[::10]]
    reference = TrimeshIntersector(mesh)
    ours = RayMeshIntersector(mesh)
    first = ours.intersects_first(origins, directions)
    assert np.array_equal(first, reference.intersects_first(origins, directions))
    assert (first >= 0).any() and (first == -1).any()
    any_hit = ours.intersects_any(origins, directions)
    assert np.array_equal(any_hit, reference.intersects_any(origins, directions))
    assert np.array_equal(any_hit, first >= 0)


@pytest.mark.parametrize("name", ASSET_NAMES)
def test_hits_are_listed_ray_by_ray_nearest_first(name):
    mesh, origins, directions, _theirs, ours, _clear = comparison(name)
    index_tri, index_ray, locations = ours
    assert np.all(np.diff(index_ray) >= 0)
    along = np.einsum("ij,ij->i", locations - origins[index_ray], directions[index_ray])
    same_ray = np.diff(index_ray) == 0
    assert np.all(np.diff(along)[same_ray] >= 0)
    # Several rays hit more than once, so the order within a ray is exercised.
    assert same_ray.sum() > 100
    # intersects_location answers the same hits, as (locations, index_ray, index_tri).
    location_answer = RayMeshIntersector(mesh).intersects_location(origins, directions)
    assert np.array_equal(location_answer[0], locations)
    assert np.array_equal(location_answer[1], index_ray)
    assert np.array_equal(location_answer[2], index_tri)


def test_first_hit_is_the_nearest_of_all_hits():
    mesh, origins, directions, _theirs, ours, _clear = comparison("spot")
    index_tri, index_ray, locations = ours
    first_of_ray = np.unique(index_ray, return_index=True)[1]
    intersector = RayMeshIntersector(mesh)
    nearest = intersector.intersects_id(
        origins, directions, multiple_hits=False, return_locations=True
    )
    assert np.array_equal(nearest[0], index_tri[first_of_ray])
    assert np.array_equal(nearest[1], index_ray[first_of_ray])
    assert np.array_equal(nearest[2], locations[first_of_ray])
    first = intersector.intersects_first(origins, directions)
    assert np.array_equal(first[nearest[1]], nearest[0])
    assert np.all(np.delete(first, nearest[1]) == -1)


def test_max_hits_keeps_the_nearest_hits_of_each_ray():
    mesh, origins, directions, _theirs, ours, _clear = comparison("teapot")
    index_tri, index_ray, _locations = ours
    kept = RayMeshIntersector(mesh).intersects_id(origins, directions, max_hits=2)
    # Each hit's place among its ray's hits (the hits are sorted by ray).
    rank = np.arange(len(index_ray)) - np.searchsorted(index_ray, index_ray)
    assert (rank >= 2).any()
    assert np.array_equal(kept[0], index_tri[rank < 2])
    assert np.array_equal(kept[1], index_ray[rank < 2])
    none = RayMeshIntersector(mesh).intersects_id(origins, directions, max_hits=0)
    assert len(none[0]) == 0 and len(none[1]) == 0


def test_length_of_direction_does_not_matter():
    mesh, origins, directions, _theirs, ours, _clear = comparison("cow")
    intersector = RayMeshIntersector(mesh)
    # Powers of two scale exactly, so the answers must be identical.
    for scale in (2.0**-30, 2.0**40):
        scaled = intersector.intersects_id(
            origins, directions * scale, return_locations=True
        )
        for mine, reference in zip(scaled, ours):
            assert np.array_equal(mine, reference)


def test_locations_of_grazing_hits_are_on_their_triangle_and_ray():
    mesh = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    # Rays that dip into the top face (z = 1) at a slope of 1e-7, from 1e-7 above it: in
    # single precision the origins round to 1.19e-7 above, so meshcast's hits fall 0.19
    # further along. Where the ray meets the plane of the triangle hit is on that triangle
    # for the first ray and off it (on the top face's other triangle) for the second.
    origins = np.array([[-0.5, 0.1, 1.0 + 1e-7], [-0.5, 0.6, 1.0 + 1e-7]])
    directions = np.array([[1.0, 0.0, -1e-7], [1.0, 0.0, -1e-7]])
    locations, index_ray, index_tri = RayMeshIntersector(mesh).intersects_location(
        origins, directions
    )
    entry = np.unique(index_ray, return_index=True)[1]
    assert len(entry) == 2 and np.all(mesh.face_normals[index_tri[entry], 2] == 1.0)
    # (the float64 answer, to the 1e-9 that cancellation leaves at this slope)
    assert np.allclose(locations[entry[0]], [0.5, 0.1, 1.0], rtol=0, atol=1e-8)

    # Every location is on its triangle ...
    corners = mesh.triangles[index_tri]
    barycentric = trimesh.triangles.points_to_barycentric(corners, locations)
    assert barycentric.min() > -1e-9
    off_plane = np.einsum("ij,ij->i", locations - corners[:, 0], mesh.face_normals[index_tri])
    assert np.abs(off_plane).max() < 1e-12
    # ... and within rounding of its ray: off it only for the second ray's entry.
    offsets = locations - origins[index_ray]
    along = np.einsum("ij,ij->i", offsets, directions[index_ray]) / np.einsum(
        "ij,ij->i", directions[index_ray], directions[index_ray]
    )
    off_ray = np.linalg.norm(offsets - along[:, None] * directions[index_ray], axis=1)
    assert off_ray.max() < 1e-6
    assert off_ray[entry[1]] > 1e-9


def closed_convex_meshes():
    """A box with corners at +-1 (exact in any precision) and an icosphere of radius 1."""
    return {
        "box": trimesh.creation.box(extents=(2.0, 2.0, 2.0)),
        "icosphere": trimesh.creation.icosphere(subdivisions=2),
    }


def rays_through_vertices_and_edges(mesh):
    """From outside, through every vertex and every edge's midpoint, on to the centre.

    Each such ray crosses the convex surface exactly twice: in where it is aimed (a vertex
    or an edge) and out on the far side (for these symmetric meshes, also a vertex or an
    edge).
    """
    center = mesh.bounds.mean(axis=0)
    midpoints = mesh.vertices[mesh.edges_unique].mean(axis=1)
    targets = np.vstack((mesh.vertices, midpoints))
    origins = center + 3.0 * (targets - center)
    return origins, center - origins, targets


@pytest.mark.parametrize("name", ["box", "icosphere"])
def test_crossings_through_shared_edges_and_vertices_are_counted_once(name):
    mesh = closed_convex_meshes()[name]
    assert mesh.is_watertight and mesh.is_convex
    origins, directions, targets = rays_through_vertices_and_edges(mesh)
    count = len(origins)

    their_tri, their_ray = TrimeshIntersector(mesh).intersects_id(origins, directions)
    their_counts = np.bincount(their_ray, minlength=count)
    # trimesh lists a hit on every triangle that touches the point crossed: 4 to 12 hits
    # for these rays that cross the surface twice.
    assert (their_counts > 2).all()
    assert their_counts.max() >= 9

    intersector = RayMeshIntersector(mesh)
    index_tri, index_ray = intersector.intersects_id(origins, directions)
    assert np.array_equal(np.bincount(index_ray, minlength=count), np.full(count, 2))
    assert set(zip(index_ray.tolist(), index_tri.tolist())) <= set(
        zip(their_ray.tolist(), their_tri.tolist())
    )
    locations, location_ray, _ = intersector.intersects_location(origins, directions)
    assert np.array_equal(location_ray, index_ray)
    # The first crossing is where the ray was aimed.
    first = np.unique(location_ray, return_index=True)[1]
    assert np.abs(locations[first] - targets).max() < 1e-6 * mesh.scale


def test_contains_is_exact_in_a_box_on_a_grid_through_its_vertices_and_edges():
    mesh = closed_convex_meshes()["box"]
    axis = np.linspace(-1.5, 1.5, 13)
    points = np.stack(np.meshgrid(axis, axis, axis), axis=-1).reshape((-1, 3))
    on_surface = np.abs(points).max(axis=1) == 1.0
    points = points[~on_surface]
    inside = RayMeshIntersector(mesh).contains_points(points)
    assert np.array_equal(inside, np.abs(points).max(axis=1) < 1.0)


@pytest.mark.parametrize("name", ["spot", "cow", "fandisk"])
def test_contains_agrees_with_trimesh_away_from_the_surface(name):
    mesh = load(name)
    assert mesh.is_watertight
    rng = np.random.default_rng(7)
    low, high = mesh.bounds
    pad = 0.05 * (high - low)
    points = rng.uniform(low - pad, high + pad, (500, 3))
    distance = trimesh.proximity.closest_point(mesh, points)[1]
    points = points[distance > 1e-3 * mesh.scale]
    ours = RayMeshIntersector(mesh).contains_points(points)
    assert ours.dtype == np.bool_ and ours.shape == (len(points),)
    assert np.array_equal(ours, TrimeshIntersector(mesh).contains_points(points))
    assert 0.1 < ours.mean() < 0.9


def test_trimesh_methods_use_the_drop_in():
    mesh = load("spot").copy()
    plain = load("spot").copy()
    plain.ray = TrimeshIntersector(plain)
    intersector = RayMeshIntersector(mesh)
    mesh.ray = intersector
    assert mesh.ray is intersector and intersector.mesh is mesh

    origins, directions = random_rays(mesh, 200, seed=3)
    locations, index_ray, index_tri = mesh.ray.intersects_location(origins, directions)
    assert len(index_ray) > 100
    assert locations.shape == (len(index_ray), 3)

    rng = np.random.default_rng(5)
    points = rng.uniform(*mesh.bounds, (300, 3))
    points = points[trimesh.proximity.closest_point(plain, points)[1] > 1e-3 * mesh.scale]
    inside = mesh.contains(points)
    assert np.array_equal(inside, intersector.contains_points(points))
    assert np.array_equal(inside, plain.contains(points))

    # trimesh's own functions that cast rays go through mesh.ray as well.
    inner = points[inside][:20]
    inner_directions = rng.normal(size=inner.shape)
    assert np.allclose(
        trimesh.proximity.longest_ray(mesh, inner, inner_directions),
        trimesh.proximity.longest_ray(plain, inner, inner_directions),
        rtol=1e-12,
    )


def test_empty_inputs_give_empty_answers_of_trimesh_types():
    intersector = RayMeshIntersector(closed_convex_meshes()["box"])
    empty = np.zeros((0, 3))
    index_tri, index_ray = intersector.intersects_id(empty, empty)
    assert index_tri.shape == index_ray.shape == (0,)
    assert index_tri.dtype == index_ray.dtype == np.int64
    for multiple_hits in (True, False):
        locations, index_ray, index_tri = intersector.intersects_location(
            empty, empty, multiple_hits=multiple_hits
        )
        assert locations.shape == (0, 3) and locations.dtype == np.float64
        assert index_ray.shape == index_tri.shape == (0,)
        assert index_ray.dtype == index_tri.dtype == np.int64
    first = intersector.intersects_first(empty, empty)
    assert first.shape == (0,) and first.dtype == np.int64
    any_hit = intersector.intersects_any(empty, empty)
    assert any_hit.shape == (0,) and any_hit.dtype == np.bool_
    inside = intersector.contains_points(empty)
    assert inside.shape == (0,) and inside.dtype == np.bool_


def test_answers_have_trimesh_types_for_any_input_type():
    mesh = closed_convex_meshes()["box"]
    intersector = RayMeshIntersector(mesh)
    # A ray through the box, one that misses it, and one with no direction: lists of ints.
    origins = [[0, 0, -5], [3, 0, -5], [0, 0, -5]]
    directions = [[0, 0, 2], [0, 0, 1], [0, 0, 0]]
    for cast in (list, lambda rays: np.asarray(rays, dtype=np.float32)):
        index_tri, index_ray, locations = intersector.intersects_id(
            cast(origins), cast(directions), return_locations=True
        )
        assert index_tri.dtype == index_ray.dtype == np.int64
        assert locations.dtype == np.float64
        assert index_ray.tolist() == [0, 0]
        assert np.array_equal(locations, [[0, 0, -1], [0, 0, 1]])
        assert mesh.faces[index_tri].shape == (2, 3)
        first = intersector.intersects_first(cast(origins), cast(directions))
        # The ray meets the bottom face on the diagonal its two triangles share: the first
        # hit is either of them (the smaller index), the list names the one that owns it.
        assert first.dtype == np.int64 and first[0] <= index_tri[0]
        assert np.allclose(mesh.vertices[mesh.faces[first[0]]][:, 2], -1.0)
        assert first[1:].tolist() == [-1, -1]
        any_hit = intersector.intersects_any(cast(origins), cast(directions))
        assert any_hit.dtype == np.bool_ and any_hit.tolist() == [True, False, False]
    assert intersector.contains_points([[0, 0, 0], [0, 0, 2]]).tolist() == [True, False]


def test_bad_input_is_rejected():
    intersector = RayMeshIntersector(closed_convex_meshes()["box"])
    with pytest.raises(ValueError):
        intersector.intersects_id([0.0, 0.0, -5.0], [0.0, 0.0, 1.0])
    with pytest.raises(ValueError):
        intersector.intersects_location(np.zeros((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError):
        intersector.intersects_first([[0.0, np.nan, -5.0]], [[0.0, 0.0, 1.0]])
    with pytest.raises(ValueError):
        intersector.intersects_any([[0.0, 0.0, -5.0]], [[0.0, 0.0, np.inf]])
    with pytest.raises(ValueError):
        intersector.contains_points(np.zeros((4, 2)))


def test_rebuilds_when_the_mesh_changes():
    mesh = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    intersector = RayMeshIntersector(mesh)
    origins, directions = [[0.25, 0.5, -5.0]], [[0.0, 0.0, 1.0]]
    locations = intersector.intersects_location(origins, directions)[0]
    assert np.array_equal(locations[:, 2], [-1.0, 1.0])
    built = intersector._current()
    intersector.intersects_any(origins, directions)
    assert intersector._current() is built

    mesh.apply_translation([0.0, 0.0, 10.0])
    locations = intersector.intersects_location(origins, directions)[0]
    assert np.array_equal(locations[:, 2], [9.0, 11.0])
    assert intersector._current() is not built
    inside = intersector.contains_points([[0.0, 0.0, 10.5], [0.0, 0.0, 0.5]])
    assert inside.tolist() == [True, False]


def test_mesh_far_from_the_origin_keeps_its_precision():
    # Single precision at a million has steps of 1/16; the drop-in moves the mesh first.
    offset = np.array([1e6, -2e6, 3e6])
    mesh = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    mesh.apply_translation(offset)
    intersector = RayMeshIntersector(mesh)
    aimed = np.array([[0.123, -0.456, 0.0], [0.0, 0.0, 0.75]])
    origins = offset + aimed + [[0.0, 0.0, -5.0], [-5.0, 0.0, 0.0]]
    locations, index_ray, _ = intersector.intersects_location(origins, [[0, 0, 1], [1, 0, 0]])
    expected = offset + np.array(
        [[0.123, -0.456, -1.0], [0.123, -0.456, 1.0], [-1.0, 0.0, 0.75], [1.0, 0.0, 0.75]]
    )
    assert index_ray.tolist() == [0, 0, 1, 1]
    assert np.abs(locations - expected).max() < 1e-6
    inside = intersector.contains_points(offset + [[0.99, 0.0, 0.0], [1.01, 0.0, 0.0]])
    assert inside.tolist() == [True, False]


def test_rays_touching_a_box_hit_it_as_trimeshs_embree_intersector_answers():
    # trimesh's regression tests for its Embree intersector (issues 2317 and 72): rays down
    # a box's vertical edges and corners, and along a unit cube's edge.
    box = trimesh.creation.box(extents=[2, 2, 2])
    intersector = RayMeshIntersector(box, scale_to_box=False)
    edges = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1], [1, -1], [-1, 1]]
    for z, dz in [(5.0, -1.0), (-5.0, 1.0)]:
        origins = np.array([[x, y, z] for x, y in edges], dtype=np.float64)
        directions = np.tile([[0.0, 0.0, dz]], (len(origins), 1))
        assert intersector.intersects_any(origins, directions).all()
        first = intersector.intersects_first(origins, directions)
        assert (first >= 0).all()
        index_tri, index_ray, locations = intersector.intersects_id(
            origins, directions, multiple_hits=False, return_locations=True
        )
        assert index_ray.tolist() == list(range(len(origins)))
        assert np.allclose(locations[:, 2], -dz)
        assert np.allclose(locations[:, :2], origins[:, :2])
        # Listing every hit counts crossings: a ray that only touches is listed twice or
        # not at all.
        _, listed = intersector.intersects_id(origins, directions, multiple_hits=True)
        assert set(np.bincount(listed, minlength=len(origins)).tolist()) <= {0, 2}
    cube = trimesh.creation.box(extents=[1, 1, 1])
    locations, _, _ = RayMeshIntersector(cube).intersects_location(
        [[0.5, 0.5, -2.0]], [[0.0, 0.0, 1.0]], multiple_hits=False
    )
    assert np.allclose(locations, [[0.5, 0.5, -0.5]])
    # Every ray strictly inside the box's cross section hits (trimesh issue 72).
    xy = np.linspace(-0.9, 0.9, 40)
    grid = np.array([[x, y, -5.0] for x in xy for y in xy])
    up = np.tile([[0.0, 0.0, 1.0]], (len(grid), 1))
    assert intersector.intersects_any(grid, up).all()


def test_takes_trimeshs_constructor_arguments():
    mesh = closed_convex_meshes()["icosphere"]
    origins, directions, _ = rays_through_vertices_and_edges(mesh)
    answers = [
        RayMeshIntersector(mesh, scale_to_box=scale).intersects_id(origins, directions)
        for scale in (True, False)
    ]
    for a, b in zip(*answers):
        assert np.array_equal(a, b)
    with pytest.raises(TypeError):
        RayMeshIntersector(mesh, True, 1)  # threads is keyword-only


def test_pickles_without_its_meshcast_mesh():
    mesh = closed_convex_meshes()["icosphere"]
    intersector = RayMeshIntersector(mesh, scale_to_box=False, threads=1)
    origins, directions, _ = rays_through_vertices_and_edges(mesh)
    answer = intersector.intersects_id(origins, directions, return_locations=True)
    restored = pickle.loads(pickle.dumps(intersector))
    assert restored._prepared is None and restored.threads == 1
    assert restored.scale_to_box is False
    for mine, reference in zip(
        restored.intersects_id(origins, directions, return_locations=True), answer
    ):
        assert np.array_equal(mine, reference)


def test_imports_and_works_without_trimesh():
    script = textwrap.dedent(
        """
        import sys
        sys.modules["trimesh"] = None  # any `import trimesh` now fails
        from meshcast.trimesh import RayMeshIntersector

        class Tetrahedron:
            vertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
            faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]

        intersector = RayMeshIntersector(Tetrahedron())
        print(intersector.intersects_first([[0.2, 0.2, -1]], [[0, 0, 1]]).tolist())
        print(intersector.contains_points([[0.1, 0.1, 0.1], [1, 1, 1]]).tolist())
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.split("\n")[:2] == ["[0]", "[True, False]"]
