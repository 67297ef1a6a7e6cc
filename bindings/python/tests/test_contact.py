"""Mesh against mesh (`intersects`, `intersecting_pairs`, `distance_to_mesh`,
`self_intersections`, `hausdorff_distance`), held to brute force: every pair of triangles
through the exact pair test (`_triangle_distances`, zero exactly where two triangles meet),
the `meshcast` command, and for Hausdorff every sampled point within the bound."""

import subprocess

import numpy as np
import pytest

import meshcast
from conftest import asset
from meshcast import _native


def translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


def rotation(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    i, j = [k for k in range(3) if k != axis]
    matrix = np.eye(4)
    matrix[i, i] = matrix[j, j] = c
    matrix[i, j], matrix[j, i] = -s, s
    return matrix


def box(low=(-1.0, -1.0, -1.0), high=(1.0, 1.0, 1.0)) -> meshcast.Mesh:
    """A closed box, two triangles a face, facing out."""
    corners = np.array([[x, y, z] for z in (low[2], high[2]) for y in (low[1], high[1]) for x in (low[0], high[0])])
    quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
    faces = [[a, b, c] for a, b, c, d in quads] + [[a, c, d] for a, b, c, d in quads]
    return meshcast.Mesh(corners, faces)


def soup(n: int, seed: int, spread: float = 1.0) -> meshcast.Mesh:
    """n random triangles of size about 0.3 in a cube of side `spread`."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, spread, (n, 1, 3))
    corners = (centres + rng.normal(scale=0.15, size=(n, 3, 3))).reshape(-1, 3)
    return meshcast.Mesh(corners.astype(np.float32), np.arange(3 * n).reshape(n, 3))


def every_pair(a: meshcast.Mesh, b: meshcast.Mesh) -> np.ndarray:
    i, j = np.meshgrid(np.arange(a.triangle_count), np.arange(b.triangle_count), indexing="ij")
    return np.stack([i.ravel(), j.ravel()], axis=1)


def brute_force(a, b, transform=None):
    """Every pair of triangles: the distance of each, and the pairs that meet."""
    pairs = every_pair(a, b)
    found = _native._triangle_distances(a, b, pairs, transform)
    return pairs, found


def rounded(distance: float) -> float:
    """The float64 distance of two triangles as the mesh distance answers it (float32,
    positive kept positive)."""
    if distance == 0.0:
        return 0.0
    return float(max(np.float32(distance), np.nextafter(np.float32(0), np.float32(1))))


def placements():
    """Transforms that touch, cross, graze and miss, exact and rounded, near and far."""
    yield None
    yield translation(2.0)  # a box beside a box: faces on each other, exactly
    yield translation(2.0, 2.0, 2.0)  # corner to corner
    yield translation(2.0 + 2**-20)  # just apart
    yield translation(0.5, 0.25, 0.125)
    yield rotation(2, 0.3) @ translation(1.5)
    yield rotation(0, np.pi / 4) @ rotation(1, np.pi / 5) @ translation(1.2, 0.7, -0.4)
    yield translation(1e6, -1e6, 3.0)
    yield np.diag([0.5, 2.0, -1.0, 1.0]) @ translation(0.3, 0.2, 0.1)  # scaled, mirrored
    yield rotation(1, 0.1)[:3]  # 3x4


@pytest.mark.parametrize("transform", list(placements()))
def test_box_against_box_matches_brute_force(transform):
    a, b = box(), box((-1.0, -1.0, -1.0), (1.0, 0.5, 1.5))
    pairs, found = brute_force(a, b, transform)
    meeting = pairs[found["distance"] == 0.0]
    answered = a.intersecting_pairs(b, transform)
    assert answered.dtype == np.uint32 and answered.shape == (len(meeting), 2)
    np.testing.assert_array_equal(answered, meeting)
    assert a.intersects(b, transform) == (len(meeting) > 0)
    gap = a.distance_to_mesh(b, transform)
    assert gap["distance"] == rounded(found["distance"].min())


@pytest.mark.parametrize("seed", range(6))
def test_random_soups_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    a, b = soup(60, seed), soup(50, seed + 100)
    transform = rotation(seed % 3, rng.uniform(0, 6)) @ translation(*rng.uniform(-0.6, 0.6, 3))
    pairs, found = brute_force(a, b, transform)
    np.testing.assert_array_equal(a.intersecting_pairs(b, transform), pairs[found["distance"] == 0.0])
    assert a.intersects(b, transform) == bool((found["distance"] == 0.0).any())
    gap = a.distance_to_mesh(b, transform)
    assert gap["distance"] == rounded(found["distance"].min())
    # Apart: moved away, the nearest pair is one of the brute force's nearest.
    far = translation(3.0) @ transform
    pairs, found = brute_force(a, b, far)
    gap = a.distance_to_mesh(b, far)
    assert gap["distance"] == rounded(found["distance"].min()) > 0
    k = np.flatnonzero((pairs == gap["primitive_ids"].astype(np.int64)).all(axis=1))[0]
    np.testing.assert_array_equal(gap["points"][0], found["points_on_mesh"][k].astype(np.float32))
    np.testing.assert_array_equal(gap["points"][1], found["points_on_other"][k].astype(np.float32))


def test_degenerate_triangles_match_brute_force():
    # Triangles collapsed to segments and points, which the trees leave out, touching and
    # crossing the other mesh's triangles and each other.
    corners = np.array(
        [
            [[0, 0, 0], [1, 0, 0], [0, 1, 0]],  # a triangle
            [[0.25, 0.25, -1], [0.25, 0.25, 1], [0.25, 0.25, 0]],  # a segment through it
            [[0.5, 0.5, 0], [0.5, 0.5, 0], [0.5, 0.5, 0]],  # a point on its edge
            [[2, 0, 0], [3, 0, 0], [4, 0, 0]],  # a segment away from it
        ],
        dtype=np.float64,
    )
    a = meshcast.Mesh(corners.reshape(-1, 3), np.arange(12).reshape(4, 3))
    for transform in (None, translation(0.5), translation(-1.5), rotation(0, np.pi / 2), translation(0.0, 0.0, 2.0)):
        pairs, found = brute_force(a, a, transform)
        np.testing.assert_array_equal(a.intersecting_pairs(a, transform), pairs[found["distance"] == 0.0])
        gap = a.distance_to_mesh(a, transform)
        assert gap["distance"] == rounded(found["distance"].min())


def test_suzanne_against_itself_turned_matches_brute_force():
    suzanne = meshcast.Mesh.load(asset("suzanne.obj"))
    centre = suzanne.bounds.astype(np.float64).mean(axis=0)
    transform = translation(*centre) @ rotation(1, 0.7) @ translation(*(0.3, 0.1, 0.0) - centre)
    pairs, found = brute_force(suzanne, suzanne, transform)
    meeting = pairs[found["distance"] == 0.0]
    assert len(meeting) > 50
    np.testing.assert_array_equal(suzanne.intersecting_pairs(suzanne, transform, threads=2), meeting)
    np.testing.assert_array_equal(suzanne.intersecting_pairs(suzanne, transform, threads=1), meeting)
    far = translation(0.0, 0.0, 2.5) @ transform
    _, apart = brute_force(suzanne, suzanne, far)
    assert suzanne.distance_to_mesh(suzanne, far)["distance"] == rounded(apart["distance"].min())


def test_distance_answer_has_its_keys_and_points_on_their_triangles():
    a = box()
    transform = rotation(2, 0.5) @ translation(3.0, 0.5, 0.2)
    gap = a.distance_to_mesh(a, transform)
    assert set(gap) == {"distance", "points", "primitive_ids"}
    assert isinstance(gap["distance"], float)
    assert gap["points"].shape == (2, 3) and gap["points"].dtype == np.float32
    assert gap["primitive_ids"].shape == (2,) and gap["primitive_ids"].dtype == np.uint32
    on_self, on_other = gap["points"].astype(np.float64)
    assert abs(np.linalg.norm(on_other - on_self) - gap["distance"]) < 1e-6
    # Each point lies on its triangle: its own distance to that mesh is (about) zero.
    assert a.compute_distance(on_self[None])[0] < 1e-6
    moved_back = (np.linalg.inv(transform) @ np.append(on_other, 1.0))[:3]
    assert a.compute_distance(moved_back[None])[0] < 1e-6


def test_max_distance_limits_the_search():
    a = box()
    beside = translation(3.0)  # one unit apart
    assert a.distance_to_mesh(a, beside)["distance"] == 1.0
    assert a.distance_to_mesh(a, beside, max_distance=1.0)["distance"] == 1.0
    assert a.distance_to_mesh(a, beside, max_distance=0.999) is None
    assert a.distance_to_mesh(a, beside, max_distance=np.inf)["distance"] == 1.0
    assert a.distance_to_mesh(a, translation(1.5), max_distance=0.0)["distance"] == 0.0
    for bad in (-1.0, np.nan):
        with pytest.raises(ValueError, match="max_distance"):
            a.distance_to_mesh(a, beside, max_distance=bad)


def test_touching_exactly_meets_and_grazing_misses():
    a = box()
    assert a.intersects(a, translation(2.0))
    assert a.distance_to_mesh(a, translation(2.0))["distance"] == 0.0
    assert not a.intersects(a, translation(2.0 + 2**-22))
    assert a.distance_to_mesh(a, translation(2.0 + 2**-22))["distance"] > 0.0
    # A box inside a box touches nothing: surfaces only.
    small = box((-0.5,) * 3, (0.5,) * 3)
    assert not a.intersects(small)
    assert a.distance_to_mesh(small)["distance"] == 0.5


def test_empty_and_bad_input():
    empty = meshcast.Mesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    a = box()
    assert not a.intersects(empty) and not empty.intersects(a)
    assert a.intersecting_pairs(empty).shape == (0, 2)
    assert a.distance_to_mesh(empty) is None
    assert empty.self_intersections().shape == (0, 2)
    with pytest.raises(ValueError, match=r"\(4, 4\) or \(3, 4\)"):
        a.intersects(a, np.eye(3))
    with pytest.raises(ValueError, match="affine"):
        a.intersecting_pairs(a, np.ones((4, 4)))
    for bad in (np.diag([np.nan, 1, 1, 1]), np.diag([np.inf, 1, 1, 1]), np.diag([1e300, 1, 1, 1])):
        with pytest.raises(meshcast.MeshcastError, match="finite"):
            a.distance_to_mesh(a, bad)
    with pytest.raises(TypeError):
        a.intersects(np.eye(4))
    with pytest.raises(ValueError, match="pairs"):
        _native._triangle_distances(a, a, [[0, 12]])


def test_self_intersections_of_two_overlapping_parts_are_their_pairs():
    # Two closed boxes in one mesh, overlapping: the pairs that cut are exactly the pairs
    # between the parts that meet, as intersecting_pairs finds them.
    a = box()
    b = box((0.3, 0.2, -0.4), (1.7, 1.9, 0.6))
    both = meshcast.Mesh(np.vstack([a.vertices, b.vertices]), np.vstack([a.faces, b.faces + a.vertex_count]))
    expected = a.intersecting_pairs(b).astype(np.int64)
    expected[:, 1] += a.triangle_count
    found = both.self_intersections()
    assert found.dtype == np.uint32 and len(found) > 0
    np.testing.assert_array_equal(found, expected)
    assert a.self_intersections().shape == (0, 2)


def test_self_intersections_of_a_fold():
    positions = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.2, 0]]
    folded = meshcast.Mesh(positions, [[0, 1, 2], [0, 2, 3], [1, 0, 4]])
    np.testing.assert_array_equal(folded.self_intersections(), [[0, 2]])


def test_self_intersections_match_the_command_line(cli, tmp_path):
    for name in ("suzanne", "stanford-bunny"):
        mesh = meshcast.Mesh.load(asset(f"{name}.obj"))
        run = subprocess.run(
            [str(cli), "self-intersections", str(asset(f"{name}.obj"))],
            capture_output=True,
            text=True,
            check=True,
        )
        pairs = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("pair ")]
        expected = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        assert f"pairs          {len(expected)}" in run.stdout
        np.testing.assert_array_equal(mesh.self_intersections(threads=1), expected)



def test_hausdorff_distance_of_a_box_and_its_half():
    a = box()
    half = np.diag([0.5, 0.5, 0.5, 1.0])
    h = a.hausdorff_distance(a, half, relative_error=1e-4)
    assert set(h) == {"distance", "self_to_other", "other_to_self"}
    there, back = h["self_to_other"], h["other_to_self"]
    # a's corners lie sqrt(3) / 2 from the half box; every point of the half box 0.5 from a.
    assert there["distance"] <= np.sqrt(3) / 2 <= there["bound"] <= there["distance"] * (1 + 1e-4) + 1e-7
    assert back["distance"] <= 0.5 <= back["bound"] <= back["distance"] * (1 + 1e-4) + 1e-7
    assert h["distance"] == max(there["distance"], back["distance"])
    np.testing.assert_allclose(np.abs(there["points"][0]), 1.0)  # a corner of a
    np.testing.assert_allclose(np.abs(there["points"][1]), 0.5)  # the half box's corner
    assert there["points"].dtype == np.float32 and there["primitive_ids"].dtype == np.uint32
    assert a.hausdorff_distance(a)["distance"] == 0.0


def test_hausdorff_distance_bounds_every_sampled_point():
    suzanne = meshcast.Mesh.load(asset("suzanne.obj"))
    centre = suzanne.bounds.astype(np.float64).mean(axis=0)
    transform = translation(*centre) @ rotation(2, 0.4) @ translation(*(0.2, -0.1, 0.1) - centre)
    # The other mesh placed in this one's space, and samples of each (the corners too).
    vertices = suzanne.vertices.astype(np.float64)
    placed = meshcast.Mesh(vertices @ transform[:3, :3].T + transform[:3, 3], suzanne.faces)
    size = float(np.linalg.norm(suzanne.bounds[1] - suzanne.bounds[0]))
    for error in (1e-2, 1e-4):
        h = suzanne.hausdorff_distance(suzanne, transform, relative_error=error, threads=1)
        for (mesh, other), key in (((suzanne, placed), "self_to_other"), ((placed, suzanne), "other_to_self")):
            directed = h[key]
            samples = np.vstack([mesh.vertices, mesh.sample_surface(20000, seed=5)["points"]])
            farthest = other.compute_distance(samples).max()
            slack = 1e-6 * size
            assert farthest <= directed["bound"] + slack
            assert directed["distance"] <= directed["bound"] <= directed["distance"] * (1 + error) + slack
            start, end = directed["points"]
            assert mesh.compute_distance(start[None])[0] < slack
            assert other.compute_distance(end[None])[0] < slack
            assert abs(np.linalg.norm(end.astype(np.float64) - start) - directed["distance"]) < slack
            assert abs(other.compute_distance(start[None])[0] - directed["distance"]) < slack
        again = suzanne.hausdorff_distance(suzanne, transform, relative_error=error, threads=2)
        assert again["distance"] == h["distance"]


def test_hausdorff_distance_of_empty_meshes_and_bad_errors():
    a = box()
    empty = meshcast.Mesh(np.zeros((0, 3)), np.zeros((0, 3), int))
    assert a.hausdorff_distance(empty) is None and empty.hausdorff_distance(a) is None
    for bad in (-1e-3, np.nan):
        with pytest.raises(ValueError, match="relative_error"):
            a.hausdorff_distance(a, relative_error=bad)
    with pytest.raises(meshcast.MeshcastError, match="finite"):
        a.hausdorff_distance(a, np.diag([np.inf, 1, 1, 1]))


def random_affine(seed: int, spread: float) -> np.ndarray:
    """A random invertible affine map: rotated, scaled and sheared a little, moved."""
    rng = np.random.default_rng(seed)
    matrix = np.eye(4)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    matrix[:3, :3] = q @ (np.eye(3) + rng.uniform(-0.3, 0.3, (3, 3)))
    matrix[:3, 3] = rng.uniform(-spread, spread, 3)
    return matrix


def placed_scene(seed: int):
    """A scene of boxes and soups at random affine placements (some meet, some do not),
    every third on layer 2, the rest on layer 1."""
    meshes = [box(), soup(30, seed), soup(20, seed + 1)]
    scene = meshcast.Scene()
    placed = []
    for k in range(9):
        mesh, transform = meshes[k % 3], random_affine(seed * 100 + k, 2.5)
        layers = 0b10 if k % 3 == 2 else 0b01
        placed.append((scene.add(mesh, transform, layers=layers), mesh, transform, layers))
    return scene, placed


def world_distances(a, ta, b, tb):
    """Brute force in the world: each mesh's corners carried by its transform in float64,
    every pair of triangles."""
    return _native._triangle_distances(a, b, every_pair(a, b), tb, mesh_transform=ta)


@pytest.mark.parametrize("seed", range(3))
def test_scene_contacts_match_brute_force(seed):
    scene, placed = placed_scene(seed)
    expected = []
    nearest = (np.inf, None)
    for i, (ia, a, ta, la) in enumerate(placed):
        for ib, b, tb, lb in placed[i + 1 :]:
            found = world_distances(a, ta, b, tb)
            meet = every_pair(a, b)[found["distance"] == 0.0]
            if la & lb:
                if len(meet):
                    expected.append((ia, ib))
                if rounded(found["distance"].min()) < nearest[0]:
                    nearest = (rounded(found["distance"].min()), (ia, ib))
            assert np.array_equal(scene.intersecting_pairs(ia, ib), meet)
            assert np.array_equal(scene.intersecting_pairs(ia, b, tb), meet)
    assert expected, "some pairs should meet"
    pairs = scene.colliding_pairs()
    assert pairs.dtype == np.uint32 and pairs.shape == (len(expected), 2)
    assert [tuple(p) for p in pairs] == expected
    assert np.array_equal(scene.colliding_pairs(threads=1), pairs)
    if nearest[0] > 0:
        found = scene.nearest_instances()
        assert found["distance"] == nearest[0] and tuple(found["geometry_ids"]) == nearest[1]
    # A probe against the scene: meeting instances, nearest instance, by layer.
    probe, where = soup(25, seed + 7, 2.0), random_affine(seed + 50, 1.0)
    for layers in (None, 0b10):
        on = [(i, m, t) for i, m, t, l in placed if layers is None or l & layers]
        meeting = [i for i, m, t in on if (world_distances(m, t, probe, where)["distance"] == 0.0).any()]
        got = scene.intersecting_instances(probe, where, layers=layers)
        assert got.dtype == np.uint32 and list(got) == meeting
        gaps = [(rounded(world_distances(m, t, probe, where)["distance"].min()), i) for i, m, t in on]
        found = scene.distance_to_mesh(probe, where, layers=layers)
        assert (found["distance"], found["geometry_id"]) == min(gaps)
        assert found["points"].shape == (2, 3) and found["primitive_ids"].dtype == np.uint32


def test_scene_nearest_instances_of_one_and_limits():
    scene = meshcast.Scene()
    cube = box()
    ids = [scene.add(cube, translation(x)) for x in (0.0, 5.0, 9.0)]
    found = scene.nearest_instances()
    assert found["distance"] == 2.0 and list(found["geometry_ids"]) == [ids[1], ids[2]]
    found = scene.nearest_instances(ids[0])
    assert found["distance"] == 3.0 and list(found["geometry_ids"]) == [ids[0], ids[1]]
    assert np.allclose(found["points"][:, 0], [1.0, 4.0])
    assert scene.nearest_instances(ids[0], max_distance=2.5) is None
    # Scaled and sheared placements are measured in the world.
    scene.set_transform(ids[2], translation(9.0) @ np.diag([3.0, 1.0, 1.0, 1.0]))
    assert scene.nearest_instances(ids[1])["distance"] == 0.0
    assert scene.distance_to_mesh(cube, translation(-4.0))["geometry_id"] == ids[0]
    assert scene.distance_to_mesh(cube, translation(-4.0), max_distance=1.0) is None


def test_scene_contacts_bad_input():
    scene = meshcast.Scene()
    cube = box()
    a = scene.add(cube)
    assert len(scene.colliding_pairs()) == 0 and scene.nearest_instances() is None
    with pytest.raises(meshcast.MeshcastError, match="instance 7"):
        scene.nearest_instances(7)
    with pytest.raises(KeyError):
        scene.intersecting_pairs(7, a)
    with pytest.raises(KeyError):
        scene.intersecting_pairs(a, 7)
    with pytest.raises(TypeError, match="instance id or a Mesh"):
        scene.intersecting_pairs(a, "cube")
    with pytest.raises(ValueError, match="transform places a Mesh"):
        scene.intersecting_pairs(a, a, np.eye(4))
    with pytest.raises(ValueError, match="invertible"):
        scene.intersecting_pairs(a, cube, np.diag([0.0, 1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="max_distance"):
        scene.distance_to_mesh(cube, max_distance=-1.0)
    with pytest.raises(ValueError, match="threads"):
        scene.colliding_pairs(threads=-1)
    empty = meshcast.Mesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.uint32))
    assert len(scene.intersecting_instances(empty)) == 0
    assert scene.distance_to_mesh(empty) is None
