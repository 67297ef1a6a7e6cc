"""Geometry far from the origin (issue 57): float64 vertices give a mesh an origin of its own,
and float64 rays and points are carried there in double precision, so that a mesh answers
alike wherever it lies; float32 input is answered as it always was."""

import pickle

import numpy as np
import pytest

import meshcast

#: Where the issue's sphere is moved: a town's local grid, UTM coordinates, the Earth's
#: radius, and far out on every axis.
OFFSETS = [(1000.0, 0.0, 0.0), (500123.37, 5000456.71, 100.0), (6378137.0, 0.0, 0.0), (1e7, 1e7, 1e7)]

#: The sphere's size (its diameter) and the precision it is held to, relative to the size.
SIZE = 2.0
PRECISION = 1e-6 * SIZE


def icosphere(subdivisions=3):
    """A closed, outward-facing sphere of radius 1 about the origin (trimesh's
    ``creation.icosphere`` made here, so that the tests need no trimesh): an icosahedron,
    each triangle cut into four `subdivisions` times, the new corners pushed out onto the
    sphere. float64 vertices, int64 faces."""
    t = (1.0 + 5.0**0.5) / 2.0
    vertices = [
        (-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
        (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1),
    ]
    vertices = [np.array(v, float) / np.linalg.norm(v) for v in vertices]
    faces = [
        (0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
        (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
        (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1),
    ]
    for _ in range(subdivisions):
        middles = {}

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in middles:
                point = vertices[a] + vertices[b]
                vertices.append(point / np.linalg.norm(point))
                middles[key] = len(vertices) - 1
            return middles[key]

        cut = []
        for a, b, c in faces:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            cut += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = cut
    return np.array(vertices), np.array(faces, dtype=np.int64)


VERTICES, FACES = icosphere()


def down_rays(n, seed, height=5.0):
    """`n` parallel float64 rays straight down (-z) from `height` above the sphere's centre,
    their origins uniform over the sphere's disc (and a little beyond it)."""
    rng = np.random.default_rng(seed)
    radius = 1.05 * np.sqrt(rng.random(n))
    angle = rng.uniform(0.0, 2.0 * np.pi, n)
    origins = np.stack([radius * np.cos(angle), radius * np.sin(angle), np.full(n, height)], axis=1)
    directions = np.tile([0.0, 0.0, -1.0], (n, 1))
    return np.concatenate([origins, directions], axis=1)


def moved(rays, offset):
    """`rays` with their origins moved by `offset`, in float64."""
    rays = rays.copy()
    rays[:, :3] += offset
    return rays


def distance_to_edges_xy(points, triangles):
    """The distance in the xy plane from each point (k, 2) to the nearest edge of its
    triangle (k, 3, 3): how near a ray straight down passes to an edge."""
    corners = triangles[:, :, :2]
    start, end = corners, np.roll(corners, -1, axis=1)
    along = end - start
    to_point = points[:, None, :] - start
    length = np.maximum(np.einsum("kij,kij->ki", along, along), 1e-300)
    s = np.clip(np.einsum("kij,kij->ki", to_point, along) / length, 0.0, 1.0)
    nearest = start + s[..., None] * along
    return np.linalg.norm(points[:, None, :] - nearest, axis=2).min(axis=1)


def near_an_edge(rays, *hit_triangles):
    """Whether each ray passes within `PRECISION` of an edge of a triangle it hit (any of
    `hit_triangles`, one array of triangle ids per answer, INVALID_ID for a miss), in the xy
    plane: where single-precision rounding may rightly decide either way."""
    near = np.zeros(len(rays), bool)
    for triangles in hit_triangles:
        hit = triangles != meshcast.INVALID_ID
        corners = VERTICES[FACES[triangles[hit].astype(np.int64)]]
        near[hit] |= distance_to_edges_xy(rays[hit, :2], corners) <= PRECISION
    return near


@pytest.mark.parametrize("offset", OFFSETS)
def test_a_far_sphere_answers_as_the_sphere_at_the_origin(offset):
    offset = np.array(offset)
    here = meshcast.Mesh(VERTICES, FACES)
    far = meshcast.Mesh(VERTICES + offset, FACES)
    assert not here.origin.any()
    assert far.origin.dtype == np.float64 and np.allclose(far.origin, offset, rtol=1e-15, atol=0)
    assert far.is_closed and far.vertices.dtype == np.float64
    np.testing.assert_allclose(far.vertices, VERTICES + offset, rtol=0, atol=PRECISION)
    rays = down_rays(2000, 1)

    expected = here.cast_rays(rays)
    got = far.cast_rays(moved(rays, offset))
    assert got["t_hit"].dtype == np.float64
    ours, theirs = got["primitive_ids"], expected["primitive_ids"]
    edge = near_an_edge(rays, ours, theirs)
    assert edge.mean() < 0.01
    assert (ours[~edge] == theirs[~edge]).all()
    both = np.isfinite(got["t_hit"]) & np.isfinite(expected["t_hit"])
    assert both.sum() > 1500
    np.testing.assert_allclose(got["t_hit"][both], expected["t_hit"][both], rtol=0, atol=PRECISION)

    hit = np.isfinite(expected["t_hit"])
    assert (far.test_occlusions(moved(rays, offset))[~edge] == hit[~edge]).all()
    counts = far.count_intersections(moved(rays, offset))
    assert (counts[~edge] == here.count_intersections(rays)[~edge]).all()
    assert set(counts[~edge & hit]) == {2}


@pytest.mark.parametrize("offset", OFFSETS)
def test_every_hit_of_a_far_sphere_is_where_it_is_at_the_origin(offset):
    offset = np.array(offset)
    here, far = meshcast.Mesh(VERTICES, FACES), meshcast.Mesh(VERTICES + offset, FACES)
    # Rays from a kilometre away along a slant: the carriage also moves each ray's start
    # near the sphere before rounding it.
    rays = down_rays(500, 2, height=1000.0)
    rays[:, 3] = 1e-3
    expected, got = here.list_intersections(rays), far.list_intersections(moved(rays, offset))
    assert got["t_hit"].dtype == np.float64 and expected["t_hit"].dtype == np.float64
    np.testing.assert_array_equal(got["ray_splits"], expected["ray_splits"])
    np.testing.assert_allclose(got["t_hit"], expected["t_hit"], rtol=0, atol=PRECISION)
    # t is in the world: the hits are on the moved sphere.
    ray_ids = got["ray_ids"].astype(np.int64)
    points = rays[ray_ids, :3] + offset + got["t_hit"][:, None] * rays[ray_ids, 3:]
    radius = np.linalg.norm(points - offset, axis=1)
    assert (radius <= 1.0 + PRECISION).all() and (radius > 0.99).all()


def random_points(n, seed):
    """Points around the sphere: uniform in its box grown by half, and near its surface."""
    rng = np.random.default_rng(seed)
    box = rng.uniform(-1.5, 1.5, (n, 3))
    directions = rng.normal(size=(n, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    shell = directions * rng.uniform(0.98, 1.02, (n, 1))
    return np.concatenate([box, shell])


@pytest.mark.parametrize("offset", OFFSETS)
def test_point_queries_of_a_far_sphere_are_those_at_the_origin(offset):
    offset = np.array(offset)
    here, far = meshcast.Mesh(VERTICES, FACES), meshcast.Mesh(VERTICES + offset, FACES)
    points = random_points(1000, 3)
    world = points + offset

    signed = far.compute_signed_distance(world)
    assert signed.dtype == np.float64
    expected = here.compute_signed_distance(points)
    np.testing.assert_allclose(signed, expected, rtol=0, atol=PRECISION)
    surface = np.abs(expected) <= PRECISION
    assert surface.mean() < 0.01
    inside = far.contains(world)
    assert (inside[~surface] == (expected < 0)[~surface]).all()
    assert (inside[~surface] == here.contains(points)[~surface]).all()
    assert (far.compute_occupancy(world) == inside).all()

    closest = far.compute_closest_points(world, with_distance=True)
    assert closest["points"].dtype == np.float64 and closest["distance"].dtype == np.float64
    np.testing.assert_allclose(closest["points"] - offset, here.compute_closest_points(points)["points"], rtol=0, atol=PRECISION)
    np.testing.assert_allclose(closest["distance"], np.abs(expected), rtol=0, atol=PRECISION)
    assert np.allclose(np.linalg.norm(closest["points"] - world, axis=1), closest["distance"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(far.compute_distance(world), np.abs(expected), rtol=0, atol=PRECISION)
    # Within max_distance: the same points, measured in the world.
    reach = float(np.median(np.abs(expected)))
    limited = far.compute_distance(world, max_distance=reach)
    assert (limited[np.isfinite(limited)] <= reach).all()
    assert (np.isfinite(limited) == (np.abs(expected) <= reach))[np.abs(np.abs(expected) - reach) > PRECISION].all()

    winding = far.winding_number(world)
    assert winding.dtype == np.float64
    np.testing.assert_allclose(winding[~surface], here.winding_number(points)[~surface], atol=1e-4)


def test_float32_input_is_answered_as_before():
    # float32 vertices far away: no origin, the positions rounded as given, as a scene
    # reads them, and float32 rays and points answered in float32, bit for bit as a scene
    # (which reads everything in single precision) answers them, even from afar.
    offset = np.array([1000.0, 0.0, 0.0])
    vertices = (VERTICES + offset).astype(np.float32)
    mesh = meshcast.Mesh(vertices, FACES)
    assert not mesh.origin.any() and mesh.vertices.dtype == np.float32 and mesh.bounds.dtype == np.float32
    np.testing.assert_array_equal(mesh.vertices, vertices)
    scene = meshcast.Scene()
    scene.add(mesh)
    near, afar = down_rays(1000, 4), down_rays(1000, 5, height=1e4)
    afar[:, 3] = 1e-2
    rays = np.concatenate([moved(near, offset), moved(afar, offset)]).astype(np.float32)
    for query in ("cast_rays", "list_intersections"):
        answer, reference = getattr(mesh, query)(rays), getattr(scene, query)(rays)
        for key in ("t_hit", "primitive_ids", "primitive_uvs"):
            assert answer[key].dtype == reference[key].dtype, key
            np.testing.assert_array_equal(answer[key], reference[key], err_msg=key)
    assert mesh.cast_rays(rays)["t_hit"].dtype == np.float32
    np.testing.assert_array_equal(mesh.count_intersections(rays), scene.count_intersections(rays))
    points = (random_points(300, 6) + offset).astype(np.float32)
    for query in ("compute_signed_distance", "compute_distance", "winding_number", "contains"):
        answer, reference = getattr(mesh, query)(points), getattr(scene, query)(points)
        assert answer.dtype == reference.dtype and answer.dtype in (np.float32, np.bool_), query
        np.testing.assert_array_equal(answer, reference, err_msg=query)
    closest = mesh.compute_closest_points(points)["points"]
    assert closest.dtype == np.float32
    np.testing.assert_array_equal(closest, scene.compute_closest_points(points)["points"])


def test_float32_rays_of_a_far_mesh_are_carried_too():
    # float32 rays are world coordinates too: rounded as given (by up to a quarter metre
    # here), then carried as float64 rays, and answered in float32.
    offset = np.array(OFFSETS[1])
    far = meshcast.Mesh(VERTICES + offset, FACES)
    narrow = moved(down_rays(500, 7), offset).astype(np.float32)
    answer = far.cast_rays(narrow)
    widened = far.cast_rays(narrow.astype(np.float64))
    assert answer["t_hit"].dtype == np.float32 and widened["t_hit"].dtype == np.float64
    np.testing.assert_array_equal(answer["primitive_ids"], widened["primitive_ids"])
    np.testing.assert_array_equal(answer["t_hit"], widened["t_hit"].astype(np.float32))
    assert np.isfinite(answer["t_hit"]).sum() > 300


def test_the_origin_survives_pickling_and_set_positions():
    offset = np.array(OFFSETS[2])
    far = meshcast.Mesh(VERTICES + offset, FACES)
    rays = moved(down_rays(300, 8), offset)
    copy = pickle.loads(pickle.dumps(far))
    np.testing.assert_array_equal(copy.origin, far.origin)
    np.testing.assert_array_equal(copy.vertices, far.vertices)
    for key, value in far.cast_rays(rays).items():
        np.testing.assert_array_equal(copy.cast_rays(rays)[key], value, err_msg=key)
    assert "origin" in repr(far) and "origin" not in repr(meshcast.Mesh(VERTICES, FACES))

    # Moved by a millimetre, in world coordinates: the origin stays, the precision too.
    far.set_positions(VERTICES + offset + [0.0, 0.0, 1e-3])
    np.testing.assert_array_equal(far.origin, copy.origin)
    np.testing.assert_allclose(far.vertices, VERTICES + offset + [0.0, 0.0, 1e-3], rtol=0, atol=PRECISION)
    hit = np.isfinite(copy.cast_rays(rays)["t_hit"])
    moved_t = far.cast_rays(rays)["t_hit"][hit]
    np.testing.assert_allclose(moved_t, copy.cast_rays(rays)["t_hit"][hit] - 1e-3, rtol=0, atol=PRECISION)


def test_a_far_mesh_places_its_views_and_samples_in_the_world():
    offset = np.array(OFFSETS[1])
    here, far = meshcast.Mesh(VERTICES, FACES), meshcast.Mesh(VERTICES + offset, FACES)
    assert far.bounds.dtype == np.float64
    np.testing.assert_allclose(far.bounds, here.bounds + offset, rtol=0, atol=PRECISION)
    samples = far.sample_surface(500, seed=1)["points"]
    assert samples.dtype == np.float64
    np.testing.assert_allclose(samples - offset, here.sample_surface(500, seed=1)["points"], rtol=0, atol=PRECISION)
    near = far.sample_near_surface(200, 0.01, seed=2)
    np.testing.assert_allclose(near["points"] - offset, here.sample_near_surface(200, 0.01, seed=2)["points"], atol=PRECISION)
    bounds = np.array([[-1.5, -1.5, -1.5], [1.5, 1.5, 1.5]])
    grid = far.compute_signed_distance_grid(bounds + offset, (9, 9, 9))
    np.testing.assert_allclose(grid, here.compute_signed_distance_grid(bounds, (9, 9, 9)), rtol=0, atol=PRECISION)
    eye = np.array([0.3, 0.2, 5.0])
    seen = far.visible_vertices(eye + offset)
    assert 0 < seen.sum() < len(seen)
    assert (seen != here.visible_vertices(eye)).mean() < 0.01
    # A camera is single precision: a kilometre away, rounded by less than a millimetre.
    town = np.array(OFFSETS[0])
    far = meshcast.Mesh(VERTICES + town, FACES)
    shown = far.visible_triangles_in_view(eye=(eye + town).tolist(), center=town.tolist(), width_px=32, height_px=24)
    home = here.visible_triangles_in_view(eye=eye.tolist(), center=[0.0, 0.0, 0.0], width_px=32, height_px=24)
    assert shown.sum() > 50 and (shown != home).mean() < 0.01


def test_a_far_mesh_on_a_gpu_answers_as_on_the_cpu():
    if not meshcast.gpu_adapters():
        pytest.skip("no GPU adapter (meshcast.gpu_adapters() is empty)")
    offset = np.array(OFFSETS[2])
    far = meshcast.Mesh(VERTICES + offset, FACES)
    gpu = far.to_gpu()
    # llvmpipe rounds as the CPU does; other GPUs give t within 2^-12 of the CPU's.
    rtol = 0.0 if "llvmpipe" in gpu.adapter.lower() else 2.0**-12
    rays = moved(down_rays(500, 11), offset)
    for geometry in (far, gpu):
        assert geometry.bounds.dtype == np.float64
    for query in ("cast_rays", "list_intersections"):
        got, expected = getattr(gpu, query)(rays), getattr(far, query)(rays)
        assert got["t_hit"].dtype == np.float64
        np.testing.assert_array_equal(got["primitive_ids"], expected["primitive_ids"])
        np.testing.assert_allclose(got["t_hit"], expected["t_hit"], rtol=rtol, atol=0)
    np.testing.assert_array_equal(gpu.count_intersections(rays), far.count_intersections(rays))
    np.testing.assert_array_equal(gpu.test_occlusions(rays), far.test_occlusions(rays))
    # Moved in world coordinates, on the GPU as on the CPU.
    lifted = VERTICES + offset + [0.0, 0.0, 1e-3]
    gpu.set_positions(lifted)
    far.set_positions(lifted)
    np.testing.assert_array_equal(gpu.to_cpu().vertices, far.vertices)
    np.testing.assert_allclose(gpu.cast_rays(rays)["t_hit"], far.cast_rays(rays)["t_hit"], rtol=rtol, atol=0)


def translation(x, y=0.0, z=0.0):
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


@pytest.mark.parametrize("offset", OFFSETS)
def test_a_far_scene_answers_float64_rays_through_each_instance_in_float64(offset):
    # A mesh with an origin is placed where it lies, and float64 rays reach each instance in
    # double precision: the scene answers as the mesh does, bit for bit, and a copy 30 m east
    # answers its own rays alike.
    offset = np.array(offset)
    far = meshcast.Mesh(VERTICES + offset, FACES)
    scene = meshcast.Scene()
    first, second = scene.add(far), scene.add(far, translation(30.0))
    np.testing.assert_array_equal(scene.transform(first), np.eye(4))
    assert scene.mesh(first).origin.any()
    rays = moved(down_rays(500, 10), offset)
    expected = far.cast_rays(rays)
    hit = np.isfinite(expected["t_hit"])
    assert hit.mean() > 0.8
    for geometry in (scene, pickle.loads(pickle.dumps(scene))):
        got = geometry.cast_rays(rays)
        assert got["t_hit"].dtype == np.float64
        np.testing.assert_array_equal(got["t_hit"], expected["t_hit"])
        np.testing.assert_array_equal(got["primitive_ids"], expected["primitive_ids"])
        np.testing.assert_array_equal(got["primitive_uvs"], expected["primitive_uvs"])
        np.testing.assert_allclose(got["primitive_normals"], expected["primitive_normals"], atol=1e-6)
        assert (got["geometry_ids"][hit] == first).all()
        assert (got["geometry_ids"][~hit] == meshcast.INVALID_ID).all()
    east = scene.cast_rays(moved(rays, (30.0, 0.0, 0.0)))
    np.testing.assert_allclose(east["t_hit"], expected["t_hit"], rtol=0, atol=PRECISION)
    assert (east["geometry_ids"][hit] == second).all()
    np.testing.assert_array_equal(scene.test_occlusions(rays), far.test_occlusions(rays))
    np.testing.assert_array_equal(scene.count_intersections(rays), far.count_intersections(rays))
    listed, on_mesh = scene.list_intersections(rays), far.list_intersections(rays)
    for key in ("ray_splits", "ray_ids", "primitive_ids", "t_hit"):
        np.testing.assert_array_equal(listed[key], on_mesh[key])
    assert listed["t_hit"].dtype == np.float64
    first_only = scene.list_intersections(rays, max_hits=1)
    np.testing.assert_array_equal(first_only["t_hit"], expected["t_hit"][hit])
    # Open3D's drop-in, given the float64 vertices themselves, answers the same.
    opened = meshcast.RaycastingScene()
    opened.add_triangles(VERTICES + offset, FACES)
    np.testing.assert_array_equal(opened.cast_rays(rays)["t_hit"].numpy(), expected["t_hit"])
    # float32 rays are read in single precision in the world, as they always were.
    assert scene.cast_rays(rays.astype(np.float32))["t_hit"].dtype == np.float32


@pytest.mark.parametrize("offset", OFFSETS)
def test_a_far_scene_answers_float64_points_in_float64(offset):
    # Two copies of the far sphere 30 m apart: the scene's point queries answer what the
    # sphere at the origin answers, in float64, each point near the copy it was made for.
    offset = np.array(offset)
    here, far = meshcast.Mesh(VERTICES, FACES), meshcast.Mesh(VERTICES + offset, FACES)
    scene = meshcast.Scene()
    first, second = scene.add(far), scene.add(far, translation(30.0))
    points = random_points(600, 12)
    expected = here.compute_signed_distance(points)
    surface = np.abs(expected) <= PRECISION
    for shift, instance in (((0.0, 0.0, 0.0), first), ((30.0, 0.0, 0.0), second)):
        world = points + offset + shift
        signed = scene.compute_signed_distance(world)
        assert signed.dtype == np.float64
        np.testing.assert_allclose(signed, expected, rtol=0, atol=PRECISION)
        closest = scene.compute_closest_points(world, with_distance=True)
        assert closest["points"].dtype == np.float64 and closest["distance"].dtype == np.float64
        assert (closest["geometry_ids"] == instance).all()
        np.testing.assert_allclose(
            closest["points"] - offset - shift, here.compute_closest_points(points)["points"], rtol=0, atol=PRECISION
        )
        np.testing.assert_allclose(closest["distance"], np.abs(expected), rtol=0, atol=PRECISION)
        np.testing.assert_allclose(scene.compute_distance(world), np.abs(expected), rtol=0, atol=PRECISION)
        inside = scene.contains(world)
        assert (inside[~surface] == (expected < 0)[~surface]).all()
        assert (scene.compute_occupancy(world) == inside).all()
        winding = scene.winding_number(world)
        assert winding.dtype == np.float64
        np.testing.assert_allclose(winding[~surface], here.winding_number(points)[~surface], atol=1e-4)
    # float32 points are read in single precision in the world, as they always were.
    assert scene.compute_signed_distance(points.astype(np.float32)).dtype == np.float32


def test_a_scene_near_the_origin_answers_float64_rays_in_float32():
    scene = meshcast.Scene()
    scene.add(meshcast.Mesh(VERTICES, FACES), translation(30.0))
    got = scene.cast_rays(moved(down_rays(100, 11), (30.0, 0.0, 0.0)))
    assert got["t_hit"].dtype == np.float32
    assert np.isfinite(got["t_hit"]).mean() > 0.8


def test_meshes_meet_other_meshes_from_their_origins():
    offset = np.array(OFFSETS[1])
    far = meshcast.Mesh(VERTICES + offset, FACES)
    beside = meshcast.Mesh(VERTICES + offset + [1.5, 0.0, 0.0], FACES)
    apart = meshcast.Mesh(VERTICES + offset + [2.5, 0.0, 0.0], FACES)
    assert far.intersects(beside) and not far.intersects(apart)
    assert len(far.intersecting_pairs(beside)) > 0
    # The transform places the other mesh's world coordinates in this one's.
    here = meshcast.Mesh(VERTICES, FACES)
    assert here.intersects(apart, translation(*(-offset - [2.5, 0.0, 0.0])))
    gap = far.distance_to_mesh(apart)
    assert abs(gap["distance"] - 0.5) < PRECISION
    assert gap["points"].dtype == np.float64
    np.testing.assert_allclose(gap["points"], [offset + [1.0, 0.0, 0.0], offset + [1.5, 0.0, 0.0]], rtol=0, atol=PRECISION)
    hausdorff = far.hausdorff_distance(beside)
    np.testing.assert_allclose(hausdorff["distance"], 1.5, rtol=3e-3)
    assert hausdorff["self_to_other"]["points"].dtype == np.float64
    assert len(far.self_intersections()) == 0
    scene = meshcast.Scene()
    scene.add(far)
    assert list(scene.intersecting_instances(beside)) == [0]
    assert abs(scene.distance_to_mesh(apart)["distance"] - 0.5) < 1e-3


def first_hits(origins, directions, vertices, faces):
    """The nearest hit of each ray in float64 by brute force (Moller and Trumbore 1997):
    its triangle (-1 for none) and point."""
    v0, v1, v2 = (vertices[faces[:, k]][None] for k in range(3))
    e1, e2 = v1 - v0, v2 - v0
    d = directions[:, None, :]
    p = np.cross(d, e2)
    s = origins[:, None, :] - v0
    q = np.cross(s, e1)
    det = (e1 * p).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (s * p).sum(-1) / det
        v = (d * q).sum(-1) / det
        t = (e2 * q).sum(-1) / det
    t = np.where((u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0), t, np.inf)
    triangle = t.argmin(axis=1)
    nearest = t[np.arange(len(t)), triangle]
    triangle[~np.isfinite(nearest)] = -1
    return triangle, origins + nearest[:, None] * directions


def test_the_trimesh_drop_in_locates_hits_on_a_far_mesh_to_world_precision():
    trimesh = pytest.importorskip("trimesh")
    import meshcast.trimesh as mtrimesh

    offset = np.array(OFFSETS[1])
    rng = np.random.default_rng(9)
    # Slanted rays from 100 km away, each aimed at a point inside the sphere: in single
    # precision their starts would be rounded by millimetres, sideways.
    directions = rng.normal(size=(400, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    aims = rng.normal(size=(400, 3))
    aims *= rng.uniform(0.0, 0.8, (400, 1)) / np.linalg.norm(aims, axis=1, keepdims=True)
    origins = aims - 1e5 * directions
    triangle, points = first_hits(origins, directions, VERTICES, FACES)
    assert (triangle >= 0).all()

    mesh = trimesh.Trimesh(VERTICES + offset, FACES, process=False)
    intersector = mtrimesh.RayMeshIntersector(mesh)
    locations, index_ray, index_tri = intersector.intersects_location(origins + offset, directions, multiple_hits=False)
    np.testing.assert_array_equal(index_ray, np.arange(400))
    assert (index_tri == triangle).mean() > 0.99
    np.testing.assert_allclose(locations - offset, points, rtol=0, atol=PRECISION)
    np.testing.assert_array_equal(intersector.intersects_first(origins + offset, directions), index_tri)


def test_dask_casts_float64_rays_at_a_far_mesh_in_float64():
    dask_array = pytest.importorskip("dask.array")
    import meshcast.dask as mdask

    offset = np.array(OFFSETS[3])
    far = meshcast.Mesh(VERTICES + offset, FACES)
    rays = moved(down_rays(3000, 12), offset)
    hits = mdask.cast_rays(far, dask_array.from_array(rays, chunks=1000))
    assert hits["t_hit"].dtype == np.float64
    t_hit = hits["t_hit"].compute(scheduler="sync")
    assert t_hit.dtype == np.float64
    np.testing.assert_array_equal(t_hit, far.cast_rays(rays)["t_hit"])
    assert mdask.cast_rays(far, rays.astype(np.float32))["t_hit"].dtype == np.float32
