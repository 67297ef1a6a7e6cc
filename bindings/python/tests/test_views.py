"""What viewpoints see and how open the surface is: visible vertices and triangles against a
brute force over every triangle in numpy (Möller–Trumbore in float64, cases within rounding
of an edge or an end left out), the lasso against the whole image, ambient occlusion and
thickness against closed forms and a brute force along the normals, the same for a seed on
any number of threads; shapes, dtypes and errors."""

import numpy as np
import pytest

import meshcast
from conftest import asset

EPS = 1e-6


def segment_hits(origins, ends, corners):
    """For each segment `origins[i] -> ends[i]` (over `(0, 1]`) and triangle `corners[j]`:
    whether it clearly crosses the triangle's interior, and whether it comes within rounding
    of doing so (an edge, a corner, an end), as two `(R, T)` bool arrays."""
    o = np.asarray(origins, np.float64)[:, None, :]
    d = (np.asarray(ends, np.float64) - np.asarray(origins, np.float64))[:, None, :]
    a, b, c = (np.asarray(corners, np.float64)[None, :, k, :] for k in range(3))
    e1, e2 = b - a, c - a
    p = np.cross(d, e2)
    det = np.sum(e1 * p, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = o - a
        u = np.sum(s * p, axis=-1) * inv
        q = np.cross(s, e1)
        v = np.sum(d * q, axis=-1) * inv
        t = np.sum(e2 * q, axis=-1) * inv
        w = 1.0 - u - v
    scale = np.linalg.norm(e1, axis=-1) * np.linalg.norm(e2, axis=-1) * np.linalg.norm(d, axis=-1)
    flat = np.abs(det) <= 1e-9 * scale
    with np.errstate(invalid="ignore"):
        clear = ~flat & (u > EPS) & (v > EPS) & (w > EPS) & (t > EPS) & (t < 1 - EPS)
        near = ~flat & (u > -EPS) & (v > -EPS) & (w > -EPS) & (t > -EPS) & (t < 1 + EPS)
    return clear, near | (flat & (scale > 0))


def brute_visible_vertices(vertices, faces, eye):
    """Each vertex's visibility from `eye` by the Rust docs' rule (triangles with a corner at
    the vertex's position left out), and where that is within rounding."""
    corners = vertices[faces]
    eyes = np.broadcast_to(eye, vertices.shape)
    clear, near = segment_hits(vertices, eyes, corners)
    own = np.all(corners[None, :, :, :] == vertices[:, None, None, :], axis=-1).any(axis=-1)
    hidden = (clear & ~own).any(axis=1)
    doubtful = (near & ~own).any(axis=1) & ~hidden
    return ~hidden, doubtful


def random_scene(seed=3):
    """An icosphere with random triangles around and through it and a few lone vertices."""
    import trimesh

    rng = np.random.default_rng(seed)
    sphere = trimesh.creation.icosphere(1)
    loose = rng.uniform(-1.6, 1.6, size=(90, 3))
    vertices = np.vstack([sphere.vertices, loose]).astype(np.float32)
    n = len(sphere.vertices)
    faces = np.vstack([sphere.faces, n + np.arange(75).reshape(25, 3)])
    return vertices, faces


CAMERA = dict(eye=[0.3, 0.4, 5.0], center=[0.0, 0.0, 0.0], up=[0.0, 1.0, 0.0], fov_deg=90.0, width_px=80, height_px=60)


def test_visible_vertices_equal_a_brute_force():
    vertices, faces = random_scene()
    mesh = meshcast.Mesh(vertices, faces)
    rng = np.random.default_rng(7)
    eyes = rng.normal(size=(4, 3)) * 3.0
    compared = 0
    for eye in eyes:
        seen = mesh.visible_vertices(eye)
        assert seen.dtype == np.bool_ and seen.shape == (len(vertices),)
        expected, doubtful = brute_visible_vertices(vertices.astype(np.float64), faces, eye.astype(np.float32))
        assert np.array_equal(seen[~doubtful], expected[~doubtful])
        assert 0 < expected[~doubtful].sum() < (~doubtful).sum()
        compared += (~doubtful).sum()
    assert compared > 0.9 * len(eyes) * len(vertices)
    # Several eyes: seen from any of them.
    each = np.array([mesh.visible_vertices(eye) for eye in eyes])
    assert np.array_equal(mesh.visible_vertices(eyes, threads=1), each.any(axis=0))


def test_visible_vertices_on_shared_edges_and_corners():
    # A floor of two triangles with its diagonal through the origin, and a triangle under it.
    vertices = np.array(
        [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0], [0, 0, -1], [0.5, 0, -1], [0, 0.5, -1], [3, 3, 3]],
        dtype=np.float32,
    )
    faces = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6]])
    mesh = meshcast.Mesh(vertices, faces)
    # The segment from vertex 4 up to the eye crosses the floor on its diagonal: touching
    # blocks. The floor's own corners see the eye past their own triangles.
    seen = mesh.visible_vertices([0.0, 0.0, 5.0])
    assert seen.tolist() == [True, True, True, True, False, False, False, True]
    # Through the floor's corner (0, below vertex 2's line of sight to an eye beyond it).
    seen = mesh.visible_vertices([2.0, 2.0, 2.0])
    assert not seen[4]
    # An eye at a vertex's position sees that vertex.
    assert mesh.visible_vertices(vertices[4])[4]


def test_visible_triangles_equal_the_closest_hit_towards_each_centroid():
    vertices, faces = random_scene()
    mesh = meshcast.Mesh(vertices, faces)
    eye = np.array([0.5, -4.0, 1.5], dtype=np.float32)
    seen = mesh.visible_triangles(eye, 0.0)
    assert seen.dtype == np.bool_ and seen.shape == (len(faces),)
    centroids = vertices[faces].astype(np.float64).mean(axis=1)
    clear, near = segment_hits(np.broadcast_to(eye, centroids.shape), centroids, vertices[faces])
    # Triangle t is seen when nothing clearly crosses the segment to its centroid before it.
    others = ~np.eye(len(faces), dtype=bool)
    blocked = (clear & others).any(axis=1)
    doubtful = (near & others).any(axis=1) & ~blocked
    assert np.array_equal(seen[~doubtful], ~blocked[~doubtful])
    assert 0 < seen.sum() < len(faces) and doubtful.sum() < 0.1 * len(faces)
    # More samples find more; several eyes see what any of them sees.
    dense = mesh.visible_triangles(eye, 50.0)
    assert np.all(dense >= seen)
    eyes = np.array([eye, -eye])
    assert np.array_equal(
        mesh.visible_triangles(eyes, 5.0), mesh.visible_triangles(eye, 5.0) | mesh.visible_triangles(-eye, 5.0)
    )


def test_visible_vertices_in_view_equal_the_brute_force_from_the_eye():
    vertices, faces = random_scene()
    mesh = meshcast.Mesh(vertices, faces)
    seen = mesh.visible_vertices_in_view(**CAMERA)
    assert seen.dtype == np.bool_ and seen.shape == (len(vertices),)
    # Every vertex is in the image: a vertex is shown where the eye sees it (the near plane
    # is 0.01 from the eye, where nothing lies).
    expected, doubtful = brute_visible_vertices(vertices.astype(np.float64), faces, np.float32(CAMERA["eye"]))
    assert np.array_equal(seen[~doubtful], expected[~doubtful])
    assert 0 < seen.sum() < len(vertices) and doubtful.sum() < 0.1 * len(vertices)
    # Looking away, nothing is shown; a far plane before the mesh shows nothing either.
    assert not mesh.visible_vertices_in_view(**{**CAMERA, "center": [0.3, 0.4, 10.0]}).any()
    assert not mesh.visible_vertices_in_view(**{**CAMERA, "far": 2.0}).any()


def test_lasso_of_the_whole_image_is_what_the_view_shows():
    mesh = meshcast.Mesh.load(asset("fandisk.obj"))
    low, high = mesh.bounds
    camera = dict(eye=(high + (high - low)).tolist(), center=((low + high) / 2).tolist(), width_px=96, height_px=72)
    shown = mesh.visible_triangles_in_view(**camera)
    assert shown.dtype == np.bool_ and shown.shape == (mesh.triangle_count,)
    image = [[0, 0], [96, 0], [96, 72], [0, 72]]
    whole = mesh.lasso_triangles(image, **camera)
    assert whole.dtype == np.uint32
    assert np.array_equal(whole, np.flatnonzero(shown))
    assert 0 < len(whole) < mesh.triangle_count
    # A concave lasso selects part of that, sorted, each once; both windings alike.
    notch = np.array([[10, 10], [80, 10], [40, 35], [80, 60], [10, 60]], dtype=np.float64)
    part = mesh.lasso_triangles(notch, **camera)
    assert 0 < len(part) < len(whole) and np.all(np.isin(part, whole))
    assert np.all(np.diff(part.astype(np.int64)) > 0)
    assert np.array_equal(mesh.lasso_triangles(notch[::-1], **camera), part)
    # The scene's lasso: the same triangles, with the mesh's geometry id.
    scene = meshcast.Scene()
    gid = scene.add(mesh)
    rows = scene.lasso_triangles(image, **camera, threads=1)
    assert rows.dtype == np.uint32 and rows.shape == (len(whole), 2)
    assert np.all(rows[:, 0] == gid) and np.array_equal(rows[:, 1], whole)


def test_visible_triangles_in_view_equal_pick_at_every_pixel():
    mesh = meshcast.Mesh.load(asset("fandisk.obj"))
    low, high = mesh.bounds
    camera = dict(eye=(high + (high - low)).tolist(), center=((low + high) / 2).tolist(), width_px=40, height_px=30)
    scene = meshcast.Scene()
    scene.add(mesh)
    columns, rows = np.meshgrid(np.arange(40) + 0.5, np.arange(30) + 0.5)
    picked = scene.pick(np.stack([columns, rows], axis=-1), **camera)["primitive_ids"]
    picked = np.unique(picked[picked != meshcast.INVALID_ID])
    assert np.array_equal(np.flatnonzero(mesh.visible_triangles_in_view(**camera)), picked)


def floor_under_ceiling(height=1.0, size=1000.0):
    """A small floor fanned around vertex 0 at the origin (normal +z), and a large ceiling."""
    floor = [[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [-0.1, 0, 0], [0, -0.1, 0]]
    ceiling = [[-size, -size, height], [size, -size, height], [size, size, height], [-size, size, height]]
    vertices = np.array(floor + ceiling, dtype=np.float32)
    faces = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [5, 6, 7], [5, 7, 8]])
    return meshcast.Mesh(vertices, faces)


def test_ambient_occlusion_under_a_ceiling_follows_the_closed_form():
    mesh = floor_under_ceiling()
    # Cosine-weighted directions blocked within d by a plane at height h: 1 - (h / d)^2.
    for max_distance, expected in [(np.inf, 1.0), (2.0, 0.75), (1.25, 1 - 0.64), (0.5, 0.0)]:
        occlusion = mesh.ambient_occlusion(4096, max_distance, seed=5)
        assert occlusion.dtype == np.float32 and occlusion.shape == (mesh.vertex_count,)
        assert abs(occlusion[0] - expected) < 0.03


def test_ambient_occlusion_is_the_same_for_a_seed_on_any_threads():
    mesh = meshcast.Mesh.load(asset("fandisk.obj"))
    one = mesh.ambient_occlusion(16, seed=9, threads=1)
    assert np.array_equal(one, mesh.ambient_occlusion(16, seed=9, threads=3), equal_nan=True)
    assert np.array_equal(one, mesh.ambient_occlusion(16, np.inf, 9), equal_nan=True)
    assert not np.array_equal(one, mesh.ambient_occlusion(16, seed=10), equal_nan=True)
    assert np.all((one >= 0) & (one <= 1)) and one.max() > 0
    # A vertex on no triangle has no normal: NaN.
    lone = meshcast.Mesh(np.vstack([mesh.vertices, [[9, 9, 9]]]), mesh.faces)
    assert np.isnan(lone.ambient_occlusion(4)[-1])


def angle_weighted_normals(vertices, faces):
    corners = vertices[faces]
    normals = np.zeros_like(vertices)
    face = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    face /= np.linalg.norm(face, axis=1, keepdims=True)
    for k in range(3):
        a, b = corners[:, (k + 1) % 3] - corners[:, k], corners[:, (k + 2) % 3] - corners[:, k]
        cos = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        np.add.at(normals, faces[:, k], face * np.arccos(np.clip(cos, -1, 1))[:, None])
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def test_thickness_along_the_normal_equals_a_brute_force():
    import trimesh

    sphere = trimesh.creation.icosphere(2, radius=1.5)
    vertices = sphere.vertices.astype(np.float32)
    mesh = meshcast.Mesh(vertices, sphere.faces)
    found = mesh.thickness(4, 0.0, seed=2)
    assert set(found) == {"mean", "min", "hits"}
    assert found["mean"].dtype == np.float32 and found["hits"].dtype == np.uint32
    assert np.all(found["hits"] == 4) and np.array_equal(found["mean"], found["min"])
    # The first triangle the reversed normal meets, in float64 over every triangle.
    v = vertices.astype(np.float64)
    normals = angle_weighted_normals(v, sphere.faces)
    ends = v - 10.0 * normals
    _, near = segment_hits(v, ends, v[sphere.faces])
    o = v[:, None, :]
    corners = v[sphere.faces]
    plane = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.sum((corners[None, :, 0] - o) * plane[None], axis=-1) / np.sum(-normals[:, None] * plane[None], axis=-1)
    # Through an edge or a corner (the antipodal vertex) too; the vertex's own triangles at 0.
    expected = np.where(near & (t > 1e-3), t, np.inf).min(axis=1)
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(found["min"], expected, rtol=1e-4)


def test_thickness_of_a_slab_and_its_seed():
    vertices = np.array(
        [[-5, -5, 0.5], [5, -5, 0.5], [5, 5, 0.5], [-5, 5, 0.5], [-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0], [0, 0, 0]],
        dtype=np.float32,
    )
    mesh = meshcast.Mesh(vertices, [[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6]])
    cone = mesh.thickness(64, 30.0, seed=1)
    assert cone["min"][2] >= 0.5 and 0.5 < cone["mean"][2] < 0.5 / np.cos(np.radians(30))
    assert np.isnan(cone["mean"][8]) and cone["hits"][8] == 0
    again = mesh.thickness(64, 30.0, seed=1, threads=1)
    for key in ("mean", "min", "hits"):
        assert np.array_equal(cone[key], again[key], equal_nan=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.visible_vertices([np.nan, 0, 0]),
        lambda m: m.visible_vertices([[0, 0, 5], [np.inf, 0, 0]]),
        lambda m: m.visible_triangles([0, 0, 5], -1.0),
        lambda m: m.visible_triangles([0, 0, 5], np.nan),
        lambda m: m.ambient_occlusion(0),
        lambda m: m.ambient_occlusion(8, -1.0),
        lambda m: m.ambient_occlusion(8, np.nan),
        lambda m: m.thickness(8, 91.0),
        lambda m: m.thickness(0),
        lambda m: m.lasso_triangles([[0, 0], [10, 10]], **CAMERA),
        lambda m: m.lasso_triangles([[0, 0], [10, 10], [20, 20]], **CAMERA),
        lambda m: m.lasso_triangles([[0, 0], [10, 0], [np.nan, 5]], **CAMERA),
        lambda m: m.visible_triangles_in_view(**{**CAMERA, "center": CAMERA["eye"]}),
        lambda m: m.visible_vertices_in_view(**{**CAMERA, "near": 0.0}),
        lambda m: m.visible_vertices_in_view(**{**CAMERA, "far": 0.001}),
    ],
)
def test_bad_parameters_raise_meshcast_error(call):
    mesh = floor_under_ceiling()
    with pytest.raises(meshcast.MeshcastError):
        call(mesh)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.visible_vertices([0, 0]),
        lambda m: m.visible_vertices(np.zeros((2, 2, 3))),
        lambda m: m.lasso_triangles(np.zeros((4, 3)), **CAMERA),
        lambda m: m.ambient_occlusion(8, seed=-1),
        lambda m: m.thickness(-1),
        lambda m: m.visible_triangles_in_view(**{**CAMERA, "width_px": 0}),
        lambda m: m.visible_vertices_in_view(**{**CAMERA, "fov_deg": 180.0}),
    ],
)
def test_bad_shapes_raise_value_error(call):
    mesh = floor_under_ceiling()
    with pytest.raises(ValueError):
        call(mesh)


def test_empty_eyes_see_nothing():
    mesh = floor_under_ceiling()
    assert not mesh.visible_vertices(np.zeros((0, 3))).any()
    assert not mesh.visible_triangles(np.zeros((0, 3))).any()
