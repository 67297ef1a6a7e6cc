"""`meshcast.trimesh.CollisionManager`, trimesh's collision manager without python-fcl,
held to brute force (every pair of triangles of every pair of objects, placed in world
space, through the exact pair test), to trimesh's signatures and return shapes, and to
FCL's answers where python-fcl is installed."""

import inspect
import math

import numpy as np
import pytest

import meshcast
from conftest import asset
from meshcast import _native
from meshcast.trimesh import CollisionManager, ContactData, DistanceData


def rigid(seed: int, spread: float) -> np.ndarray:
    """A random rotation and a translation within `spread`."""
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    matrix = np.eye(4)
    matrix[:3, :3] = q
    matrix[:3, 3] = rng.uniform(-spread, spread, 3)
    return matrix


def translation(x: float, y: float = 0.0, z: float = 0.0) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


class Shape:
    """A mesh as trimesh would hold it: float64 `vertices`, int64 `faces`, hashable."""

    def __init__(self, vertices, faces):
        self.vertices = np.asarray(vertices, dtype=np.float64)
        self.faces = np.asarray(faces, dtype=np.int64)

    def __hash__(self):
        return hash((self.vertices.tobytes(), self.faces.tobytes()))


def suzanne(scale: float = 1.0) -> Shape:
    native = meshcast.Mesh.load(asset("suzanne.obj"))
    vertices = native.vertices.astype(np.float64)
    centre = (vertices.min(axis=0) + vertices.max(axis=0)) / 2
    return Shape((vertices - centre) * scale, native.faces)


def soup(n: int, seed: int) -> Shape:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 1, (n, 1, 3))
    corners = (centres + rng.normal(scale=0.15, size=(n, 3, 3))).reshape(-1, 3)
    return Shape(corners, np.arange(3 * n).reshape(n, 3))


def world(shape: Shape, transform: np.ndarray) -> meshcast.Mesh:
    """The shape placed in world space, as one meshcast mesh."""
    vertices = shape.vertices @ transform[:3, :3].T + transform[:3, 3]
    return meshcast.Mesh(vertices, shape.faces)


def world_pairs(a: Shape, ta, b: Shape, tb):
    """Brute force: every pair of triangles of the two placed shapes, their distances."""
    wa, wb = world(a, ta), world(b, tb)
    i, j = np.meshgrid(np.arange(wa.triangle_count), np.arange(wb.triangle_count), indexing="ij")
    pairs = np.stack([i.ravel(), j.ravel()], axis=1)
    return pairs, _native._triangle_distances(wa, wb, pairs)


def scene(seed: int):
    """Objects scattered so that some pairs cross and others are apart."""
    shapes = {
        "monkey": suzanne(),
        "small monkey": suzanne(0.5),
        "soup": soup(40, seed),
        "other soup": soup(30, seed + 1),
        "far": soup(10, seed + 2),
    }
    transforms = {name: rigid(seed * 10 + k, 1.2) for k, name in enumerate(shapes)}
    transforms["far"] = translation(50.0) @ transforms["far"]
    return shapes, transforms


def manager_of(shapes, transforms, names=None) -> CollisionManager:
    manager = CollisionManager()
    for name in names or shapes:
        manager.add_object(name, shapes[name], transforms[name])
    return manager


@pytest.mark.parametrize("seed", range(4))
def test_internal_collisions_and_distances_match_brute_force(seed):
    shapes, transforms = scene(seed)
    manager = manager_of(shapes, transforms)
    names = sorted(shapes)
    expected = set()
    nearest = (math.inf, None)
    meeting = {}
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            pairs, found = world_pairs(shapes[a], transforms[a], shapes[b], transforms[b])
            if (found["distance"] == 0.0).any():
                expected.add((a, b))
                meeting[(a, b)] = {tuple(p) for p in pairs[found["distance"] == 0.0]}
            if found["distance"].min() < nearest[0]:
                nearest = (found["distance"].min(), (a, b))
    assert expected, "the scene should have colliding pairs"
    hit, found_names = manager.in_collision_internal(return_names=True)
    assert hit is True and found_names == expected
    # Contacts: the triangle pairs that meet, each a point of both triangles.
    hit, contacts = manager.in_collision_internal(return_data=True)
    by_pair = {}
    for contact in contacts:
        assert isinstance(contact, ContactData)
        a, b = sorted(contact.names)
        by_pair.setdefault((a, b), set()).add((contact.index(a), contact.index(b)))
        assert math.isnan(contact.depth)
        assert abs(np.linalg.norm(contact.normal) - 1.0) < 1e-9
        for name in (a, b):
            placed = world(shapes[name], transforms[name])
            assert placed.compute_distance(contact.point[None])[0] < 1e-5
    # The same triangle pairs as in world space (no pair of these scenes grazes, so the
    # rounding of the placements decides none).
    for pair, triangles in meeting.items():
        assert by_pair[pair] == triangles, pair
    distance = manager.min_distance_internal()
    assert distance == 0.0
    # Apart: the far object's nearest neighbour, by name.
    far, far_names, far_data = manager.min_distance_internal(name="far", return_names=True, return_data=True)
    brute = min(
        (world_pairs(shapes["far"], transforms["far"], shapes[n], transforms[n])[1]["distance"].min(), n)
        for n in names
        if n != "far"
    )
    assert abs(far - brute[0]) <= 1e-5 * brute[0]
    assert far_names == tuple(sorted(("far", brute[1])))
    assert isinstance(far_data, DistanceData) and far_data.names == {"far", brute[1]}
    assert abs(np.linalg.norm(far_data.point("far") - far_data.point(brute[1])) - far) < 1e-4
    for name in far_data.names:
        placed = world(shapes[name], transforms[name])
        assert placed.compute_distance(far_data.point(name)[None])[0] < 1e-4
        assert 0 <= far_data.index(name) < placed.triangle_count


@pytest.mark.parametrize("seed", range(3))
def test_single_and_other_match_brute_force(seed):
    shapes, transforms = scene(seed)
    mine = ["monkey", "soup", "far"]
    theirs = ["small monkey", "other soup"]
    manager = manager_of(shapes, transforms, mine)
    other = manager_of(shapes, transforms, theirs)
    expected = set()
    best = (math.inf, None)
    for a in mine:
        for b in theirs:
            _, found = world_pairs(shapes[a], transforms[a], shapes[b], transforms[b])
            if (found["distance"] == 0.0).any():
                expected.add((a, b))
            best = min(best, (found["distance"].min(), (a, b)))
    hit, names = manager.in_collision_other(other, return_names=True)
    assert hit == bool(expected) and names == expected
    assert manager.in_collision_other(other) == bool(expected)
    distance, pair = manager.min_distance_other(other, return_names=True)
    if best[0] == 0.0:
        assert distance == 0.0 and pair in expected
    else:
        assert abs(distance - best[0]) <= 1e-5 * best[0] and pair == best[1]
    # Single: each of the other manager's shapes against this manager.
    for b in theirs:
        colliding = {a for a, bb in expected if bb == b}
        hit, names = manager.in_collision_single(shapes[b], transforms[b], return_names=True)
        assert hit == bool(colliding) and names == colliding
        native = meshcast.Mesh(shapes[b].vertices, shapes[b].faces)
        assert manager.in_collision_single(native, transforms[b]) == bool(colliding)
        hit, contacts = manager.in_collision_single(shapes[b], transforms[b], return_data=True)
        assert hit == bool(contacts) == bool(colliding)
        for contact in contacts:
            assert "__external" in contact.names and len(contact.names) == 2
            assert contact.names - {"__external"} <= colliding
        distance, name, data = manager.min_distance_single(shapes[b], transforms[b], return_name=True, return_data=True)
        brute = min(
            (world_pairs(shapes[a], transforms[a], shapes[b], transforms[b])[1]["distance"].min(), a) for a in mine
        )
        if brute[0] == 0.0:
            assert distance == 0.0 and name in colliding
        else:
            assert abs(distance - brute[0]) <= 1e-5 * brute[0] and name == brute[1]
        assert data.names == {name, "__external"} and data.distance == distance


def test_touching_objects_collide_and_moving_them_apart_separates():
    cube = meshcast.Mesh(
        [[x, y, z] for z in (0.0, 1.0) for y in (0.0, 1.0) for x in (0.0, 1.0)],
        [[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]],
    )
    manager = CollisionManager()
    manager.add_object("a", cube)
    manager.add_object("b", cube, translation(1.0))  # face on face, exactly
    assert manager.in_collision_internal(return_names=True) == (True, {("a", "b")})
    assert manager.min_distance_internal() == 0.0
    manager.set_transform("b", translation(3.0))
    assert manager.in_collision_internal() is False
    assert manager.min_distance_internal(return_names=True) == (2.0, ("a", "b"))
    # A cube inside a cube: surfaces only, no collision.
    manager.set_transform("b", translation(0.25, 0.25, 0.25) @ np.diag([0.5, 0.5, 0.5, 1.0]))
    assert manager.in_collision_internal() is False
    manager.remove_object("b")
    assert manager.in_collision_internal() is False
    assert manager.min_distance_internal() == math.inf
    assert manager.min_distance_internal(return_names=True, return_data=True) == (math.inf, None, None)
    # A name added again replaces the object.
    manager.add_object("a", cube, translation(10.0))
    assert manager.min_distance_single(cube, return_name=True) == (9.0, "a")


def test_return_shapes_follow_trimesh():
    shapes, transforms = scene(0)
    manager = manager_of(shapes, transforms)
    assert manager.in_collision_internal() is True
    assert len(manager.in_collision_internal(True, True)) == 3
    result, names = manager.in_collision_internal(return_names=True)
    assert all(isinstance(pair, tuple) and list(pair) == sorted(pair) for pair in names)
    distance = manager.min_distance_single(shapes["far"], transforms["far"])
    assert isinstance(distance, float)
    assert len(manager.min_distance_single(shapes["far"], transforms["far"], True, True)) == 3
    assert isinstance(manager.add_object("x", shapes["soup"]), meshcast.trimesh.CollisionObject)


def test_bad_input_raises():
    manager = CollisionManager()
    shape = soup(5, 1)
    with pytest.raises(ValueError, match="not in collision manager"):
        manager.remove_object("nothing")
    with pytest.raises(ValueError, match="not in collision manager"):
        manager.set_transform("nothing", np.eye(4))
    with pytest.raises(ValueError, match="not in collision manager"):
        manager.min_distance_internal(name="nothing")
    with pytest.raises(ValueError, match=r"\(4, 4\)"):
        manager.add_object("a", shape, np.eye(3))
    with pytest.raises(ValueError, match="finite"):
        manager.add_object("a", shape, np.diag([np.nan, 1, 1, 1]))
    with pytest.raises(ValueError, match="affine"):
        manager.add_object("a", shape, np.ones((4, 4)))
    with pytest.raises(ValueError, match="invertible"):
        manager.add_object("a", shape, np.diag([0.0, 1, 1, 1]))
    with pytest.raises(TypeError, match="vertices and faces"):
        manager.add_object("a", "not a mesh")
    manager.add_object("a", shape, np.diag([2.0, 1, 1, 1]))
    with pytest.raises(ValueError, match="invertible"):
        manager.in_collision_single(shape, np.diag([1.0, 0.0, 1, 1]), return_data=True)


def test_scaled_and_sheared_objects_are_measured_in_world_space():
    shape = suzanne()
    scaled = translation(0.2, 0.1) @ np.diag([2.0, 0.5, 1.0, 1.0])
    sheared = translation(4.5)
    sheared[0, 1] = 0.7
    manager = CollisionManager()
    manager.add_object("scaled", shape, scaled)
    manager.add_object("sheared", shape, sheared)
    expected = world_pairs(shape, scaled, shape, sheared)[1]["distance"].min()
    assert expected > 0
    for distance in (manager.min_distance_internal(), manager.min_distance_internal(name="sheared")):
        assert abs(distance - expected) <= 1e-5 * expected
    single = CollisionManager()
    single.add_object("scaled", shape, scaled)
    assert abs(single.min_distance_single(shape, sheared) - expected) <= 1e-5 * expected
    hit, contacts = single.in_collision_single(shape, translation(0.3) @ scaled, return_data=True)
    assert hit and contacts
    for contact in contacts:
        assert world(shape, scaled).compute_distance(contact.point[None])[0] < 1e-5


def test_converted_meshes_are_kept_per_object():
    shape = soup(20, 3)
    manager = CollisionManager()
    first = manager.add_object("a", shape)
    second = manager.add_object("b", shape, translation(0.1))
    assert first.mesh is second.mesh
    shape.vertices = shape.vertices + 1.0  # a new hash: converted again
    third = manager.add_object("c", shape)
    assert third.mesh is not first.mesh


def test_signatures_match_trimesh():
    trimesh = pytest.importorskip("trimesh")
    theirs = trimesh.collision.CollisionManager
    for name, member in vars(theirs).items():
        if name.startswith("_") or not callable(member):
            continue
        ours = getattr(CollisionManager, name)
        expected = inspect.signature(member).parameters
        found = inspect.signature(ours).parameters
        assert list(found) == list(expected), name
        assert [p.default for p in found.values()] == [p.default for p in expected.values()], name
    for cls, ours in ((trimesh.collision.ContactData, ContactData), (trimesh.collision.DistanceData, DistanceData)):
        public = {n for n in vars(cls) if not n.startswith("_")}
        assert public <= set(vars(ours)), cls


def test_a_trimesh_mesh_is_accepted():
    trimesh = pytest.importorskip("trimesh")
    monkey = suzanne()
    mesh = trimesh.Trimesh(monkey.vertices, monkey.faces, process=False)
    manager = CollisionManager()
    manager.add_object("monkey", mesh)
    assert manager.in_collision_single(mesh, translation(0.5)) is True
    assert manager.in_collision_single(mesh, translation(5.0)) is False
    distance, data = manager.min_distance_single(mesh, translation(5.0), return_data=True)
    expected = world_pairs(monkey, np.eye(4), monkey, translation(5.0))[1]["distance"].min()
    assert abs(distance - expected) <= 1e-5 * expected


def fcl_manager(shapes, transforms, names):
    trimesh = pytest.importorskip("trimesh")
    pytest.importorskip("fcl")
    manager = trimesh.collision.CollisionManager()
    for name in names:
        shape = shapes[name]
        manager.add_object(name, trimesh.Trimesh(shape.vertices, shape.faces, process=False), transforms[name])
    return manager


@pytest.mark.parametrize("seed", range(4))
def test_answers_match_fcl(seed):
    shapes, transforms = scene(seed)
    names = list(shapes)
    theirs = fcl_manager(shapes, transforms, names)
    ours = manager_of(shapes, transforms)
    assert ours.in_collision_internal(return_names=True) == theirs.in_collision_internal(return_names=True)
    for name in names:
        ours_distance = ours.min_distance_internal(name=name)
        theirs_distance = theirs.min_distance_internal(name=name)
        if ours_distance == 0.0:
            assert theirs_distance <= 1e-6
        else:
            assert abs(ours_distance - theirs_distance) <= 1e-4 * theirs_distance, name


def test_names_of_any_hashable_type():
    # Names that do not compare with each other keep the order the manager holds them in.
    shape = soup(20, 4)
    manager = CollisionManager()
    manager.add_object(1, shape)
    manager.add_object("one", shape, translation(0.01))
    manager.add_object((2, 3), shape, translation(40.0))
    hit, names = manager.in_collision_internal(return_names=True)
    assert hit and names == {(1, "one")}
    distance, pair = manager.min_distance_internal(name=(2, 3), return_names=True)
    assert distance > 30 and set(pair) in ({1, (2, 3)}, {"one", (2, 3)})
