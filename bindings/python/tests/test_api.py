"""Shapes, dtypes, threads, pickling, scenes and picking: the package's promises about its
arrays and objects."""

import pickle

import numpy as np
import pytest

import meshcast

from conftest import asset, random_rays

CAST_KEYS = {"t_hit", "geometry_ids", "primitive_ids", "primitive_uvs", "primitive_normals"}


def same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_answers_keep_the_leading_shape_and_open3d_dtypes(bunny):
    rays = random_rays(bunny, 24, 1).reshape(2, 3, 4, 6)
    answer = bunny.cast_rays(rays)
    assert answer.keys() == CAST_KEYS
    assert answer["t_hit"].shape == (2, 3, 4) and answer["t_hit"].dtype == np.float32
    assert answer["geometry_ids"].dtype == np.uint32 and answer["primitive_ids"].dtype == np.uint32
    assert answer["primitive_uvs"].shape == (2, 3, 4, 2)
    assert answer["primitive_normals"].shape == (2, 3, 4, 3)
    flat = bunny.cast_rays(rays.reshape(-1, 6))
    same(answer, {k: v.reshape((2, 3, 4) + v.shape[1:]) for k, v in flat.items()})
    assert bunny.test_occlusions(rays).dtype == np.bool_
    assert bunny.count_intersections(rays).dtype == np.int32
    assert bunny.compute_signed_distance(rays[..., :3]).shape == (2, 3, 4)
    assert bunny.compute_occupancy(rays[..., :3]).dtype == np.float32
    assert bunny.compute_closest_points(rays[..., :3])["points"].shape == (2, 3, 4, 3)
    single = bunny.cast_rays(rays[0, 0, 0])
    assert single["t_hit"].shape == () and single["primitive_uvs"].shape == (2,)


def test_a_miss_is_inf_and_invalid_id(bunny):
    answer = bunny.cast_rays([[10.0, 10.0, 10.0, 0.0, 0.0, 1.0]])
    assert answer["t_hit"][0] == np.inf
    assert answer["geometry_ids"][0] == answer["primitive_ids"][0] == meshcast.INVALID_ID == 0xFFFFFFFF


def test_every_real_dtype_and_layout_gives_the_same_answer(bunny):
    rays = random_rays(bunny, 500, 2)
    expected = bunny.cast_rays(rays)
    same(bunny.cast_rays(rays.astype(np.float64)), expected)
    same(bunny.cast_rays(rays.tolist()), expected)
    same(bunny.cast_rays(np.asfortranarray(rays)), expected)
    wide = np.zeros((500, 12), np.float32)
    wide[:, ::2] = rays
    same(bunny.cast_rays(wide[:, ::2]), expected)
    half = rays.astype(np.float16)
    same(bunny.cast_rays(half), bunny.cast_rays(half.astype(np.float32)))
    integers = np.array([[0, 0, 5, 0, 0, -1], [0, 0, -5, 0, 0, 1]], np.int64)
    same(bunny.cast_rays(integers), bunny.cast_rays(integers.astype(np.float32)))


def test_origins_and_directions_broadcast(bunny):
    rays = random_rays(bunny, 100, 3)
    same(bunny.cast_rays(origins=rays[:, :3], directions=rays[:, 3:]), bunny.cast_rays(rays))
    eye = np.array([0.0, 0.1, 1.0])
    expected = bunny.cast_rays(np.concatenate([np.broadcast_to(eye, (100, 3)), rays[:, 3:]], 1))
    same(bunny.cast_rays(origins=eye, directions=rays[:, 3:]), expected)
    assert (bunny.test_occlusions(origins=eye, directions=rays[:, 3:]) == np.isfinite(expected["t_hit"])).all()


def test_threads_do_not_change_answers(bunny):
    rays = random_rays(bunny, 3000, 4)
    one = bunny.cast_rays(rays, threads=1)
    same(bunny.cast_rays(rays), one)
    same(bunny.cast_rays(rays, threads=3), one)
    same(bunny.list_intersections(rays, threads=1), bunny.list_intersections(rays))


def test_large_batches_through_large_meshes_answer_as_small_ones():
    # A grid of 180,000 triangles (about 9 MB of hierarchy): 6,000 scattered rays are cast
    # as one batch, which the engine sorts; in chunks of 1,000 they are cast as they come.
    side = 301
    x, y = np.meshgrid(np.linspace(0, 1, side), np.linspace(0, 1, side))
    vertices = np.stack([x, y, 0.05 * np.sin(9 * x) * np.cos(7 * y)], -1).reshape(-1, 3)
    i = (np.arange(side - 1)[:, None] * side + np.arange(side - 1)[None, :]).ravel()
    faces = np.concatenate([np.stack([i, i + 1, i + side], 1), np.stack([i + 1, i + side + 1, i + side], 1)])
    grid = meshcast.Mesh(vertices, faces)
    rays = random_rays(grid, 6000, 9)
    whole = grid.cast_rays(rays, threads=2)
    chunks = [grid.cast_rays(rays[k : k + 1000], threads=1) for k in range(0, 6000, 1000)]
    same(whole, {key: np.concatenate([c[key] for c in chunks]) for key in whole})
    assert np.isfinite(whole["t_hit"]).sum() > 500
    rays[4321, 2] = np.nan
    with pytest.raises(ValueError, match=r"rays\[4321\] is not finite"):
        grid.cast_rays(rays)


def test_mesh_round_trips_through_bytes_pickle_and_files(bunny, tmp_path):
    rays = random_rays(bunny, 2000, 5)
    expected = bunny.cast_rays(rays)
    again = meshcast.Mesh.from_bytes(bunny.to_bytes())
    same(again.cast_rays(rays), expected)
    unpickled = pickle.loads(pickle.dumps(bunny))
    assert isinstance(unpickled, meshcast.Mesh)
    assert unpickled.geometry_hash == bunny.geometry_hash
    same(unpickled.cast_rays(rays), expected)
    bunny.save(tmp_path / "bunny.mcache")
    same(meshcast.Mesh.load(tmp_path / "bunny.mcache").cast_rays(rays), expected)
    built = meshcast.Mesh(bunny.vertices, bunny.faces)
    assert built.geometry_hash == bunny.geometry_hash
    same(built.cast_rays(rays), expected)


def test_a_mesh_from_arrays_answers_as_the_same_mesh_from_a_file():
    cube = meshcast.Mesh(
        np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], np.float64),
        np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int64),
    )
    assert cube.triangle_count == 12 and cube.vertex_count == 8 and cube.is_closed
    # Through the cube's diagonal edge and corners: two crossings each, exactly.
    rays = np.array([[0.5, 0.5, -1, 0, 0, 1], [-1, -1, -1, 1, 1, 1], [0.25, 0.25, -1, 0, 0, 1]], np.float32)
    assert cube.count_intersections(rays).tolist() == [2, 2, 2]
    assert cube.contains([[0.5, 0.5, 0.5], [2, 2, 2]]).tolist() == [True, False]
    np.testing.assert_allclose(cube.compute_signed_distance([[0.5, 0.5, 0.5], [3, 0.5, 0.5]]), [-0.5, 2.0])
    np.testing.assert_allclose(cube.winding_number([[0.5, 0.5, 0.5]]), [1.0], atol=1e-5)
    np.testing.assert_array_equal(cube.bounds, [[0, 0, 0], [1, 1, 1]])


def test_a_scene_places_instances_and_names_them():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    scene = meshcast.Scene()
    moved = np.array([[2, 0, 0, 10], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1]], np.float64)
    first = scene.add(mesh)
    second = scene.add(mesh, moved)
    assert (first, second, len(scene), scene.geometry_ids) == (0, 1, 2, [0, 1])
    np.testing.assert_array_equal(scene.transform(second), moved)
    # The second instance answers as the mesh with its vertices moved.
    v = mesh.vertices.astype(np.float64)
    moved_mesh = meshcast.Mesh((v * 2 + [10, 0, 0]).astype(np.float32), mesh.faces)
    rays = random_rays(moved_mesh, 3000, 6)
    scene_answer = scene.cast_rays(rays)
    alone = moved_mesh.cast_rays(rays)
    on_second = scene_answer["geometry_ids"] == second
    assert on_second.sum() > 200
    np.testing.assert_allclose(scene_answer["t_hit"][on_second], alone["t_hit"][on_second], rtol=1e-4, atol=1e-6)
    assert (scene_answer["primitive_ids"][on_second] == alone["primitive_ids"][on_second]).mean() > 0.99
    # Removing keeps ids; pickling keeps everything, each mesh once.
    scene.remove(first)
    assert scene.geometry_ids == [1]
    again = pickle.loads(pickle.dumps(scene))
    assert again.geometry_ids == [1]
    same(again.cast_rays(rays), scene.cast_rays(rays))
    with pytest.raises(meshcast.MeshcastError, match="instance"):
        scene.remove(first)
    with pytest.raises(KeyError):
        scene.transform(7)


def test_a_gltf_scene_loads_as_instances():
    scene = meshcast.Scene.load(asset("gltf/SimpleMeshes.gltf"))
    assert len(scene) == 2
    flattened = meshcast.Mesh.load(asset("gltf/SimpleMeshes.gltf"))
    rays = random_rays(flattened, 500, 7)
    np.testing.assert_allclose(scene.cast_rays(rays)["t_hit"], flattened.cast_rays(rays)["t_hit"], rtol=1e-5)


def test_pick_finds_what_is_under_the_pixel(bunny):
    scene = meshcast.Scene()
    scene.add_triangles(bunny)
    eye, center = [0.0, 0.1, 0.5], [0.0, 0.1, 0.0]
    picks = scene.pick([[320.0, 240.0], [0.5, 0.5]], eye=eye, center=center, fov_deg=45, width_px=640, height_px=480)
    assert picks["geometry_ids"].tolist() == [0, meshcast.INVALID_ID]
    ray = np.array([eye + list(np.subtract(center, eye) / np.linalg.norm(np.subtract(center, eye)))], np.float32)
    cast = bunny.cast_rays(ray)
    assert picks["primitive_ids"][0] == cast["primitive_ids"][0]
    np.testing.assert_allclose(picks["distance"][0], cast["t_hit"][0], rtol=1e-5)
    assert picks["front"][0] and np.isnan(picks["points"][1]).all()
    assert picks["groups"][1] is None
    # The camera of create_rays_pinhole, whose image is Open3D's, turned half a turn from
    # pick's upright one, with directions of depth 1: its pixel (x, y) is pick's
    # (width - x, height - y), and pixel centres pick what its rays hit.
    rays = meshcast.create_rays_pinhole(45, center, eye, [0, 1, 0], 64, 48)
    rows, columns = np.mgrid[0:48, 0:64]
    centres = np.stack([64 - (columns + 0.5), 48 - (rows + 0.5)], axis=-1)
    picks = scene.pick(centres, eye=eye, center=center, fov_deg=45, width_px=64, height_px=48)
    cast = scene.cast_rays(rays)
    hit = cast["geometry_ids"] == 0
    assert hit.sum() > 300
    same = picks["primitive_ids"] == cast["primitive_ids"]
    assert same.mean() > 0.99  # the rays' directions round differently
    length = np.linalg.norm(rays[..., 3:], axis=-1)
    np.testing.assert_allclose(picks["t_hit"][same & hit], (cast["t_hit"] * length)[same & hit], rtol=1e-5)


def test_pinhole_rays_are_open3d_shaped(bunny):
    rays = meshcast.create_rays_pinhole(90.0, [0, 0, 0], [0, 0, 5], [0, 1, 0], 64, 32)
    assert rays.shape == (32, 64, 6) and rays.dtype == np.float32
    np.testing.assert_allclose(rays[..., :3], np.broadcast_to([0, 0, 5], (32, 64, 3)))
    # Open3D's directions: a depth of 1 along the view (-z here), not unit length.
    np.testing.assert_allclose(rays[..., 5], -1.0, rtol=1e-6)
    # fov_deg is horizontal: the left and right edges of the image are 45 degrees off axis;
    # Open3D's image is turned half a turn, its first column looking to the right (+x).
    left = rays[16, 0, 3:]
    assert abs(np.degrees(np.arctan2(left[0], -left[2])) - 45.0 * 63 / 64) < 0.5
    assert bunny.cast_rays(meshcast.Scene.create_rays_pinhole(60, [0, 0.1, 0], [0, 0.1, 0.5], [0, 1, 0], 8, 8))["t_hit"].shape == (8, 8)


def test_an_image_of_rays_is_answered_as_its_rays_one_by_one(bunny):
    # An (H, W, 6) image is cast in bands of rows, as 4x4 tiles of packets; a flat batch
    # and rays one at a time must get the same answers, bit for bit, also where the image's
    # height is no multiple of four and its rows wrap around the mesh's edge.
    rays = meshcast.create_rays_pinhole(50, [0, 0.1, 0], [0.05, 0.12, 0.35], [0, 1, 0], 37, 30)
    image = bunny.cast_rays(rays, threads=2)
    flat = bunny.cast_rays(rays.reshape(-1, 6), threads=1)
    assert (image["geometry_ids"] == 0).sum() > 150
    for key in ("t_hit", "primitive_ids", "primitive_uvs", "primitive_normals"):
        np.testing.assert_array_equal(image[key].reshape(flat[key].shape), flat[key])
    one_by_one = [bunny.cast_rays(ray[None])["t_hit"][0] for ray in rays.reshape(-1, 6)[::7]]
    np.testing.assert_array_equal(flat["t_hit"][::7], one_by_one)


def test_list_intersections_counts_each_crossing_once(bunny):
    rays = random_rays(bunny, 2000, 8)
    listed = bunny.list_intersections(rays)
    counts = bunny.count_intersections(rays)
    np.testing.assert_array_equal(np.diff(listed["ray_splits"]), counts)
    assert listed["primitive_uvs"].shape == (counts.sum(), 2)
    # Nearest first, and the first is the closest hit.
    t = listed["t_hit"]
    for ray in np.flatnonzero(counts > 1)[:200]:
        hits = t[listed["ray_splits"][ray]:listed["ray_splits"][ray + 1]]
        assert (np.diff(hits) >= 0).all()
    first = listed["ray_splits"][:-1][counts > 0]
    np.testing.assert_array_equal(t[first], bunny.cast_rays(rays)["t_hit"][counts > 0])


def test_python_threads_casting_on_a_fresh_mesh_do_not_hang(bunny):
    # The first cast on a mesh makes its table of normals. Made with rayon inside the
    # lock that guards it, a worker waiting there could steal another thread's cast, wait
    # on itself, and hang the process.
    import threading

    data = bunny.to_bytes()
    rays = random_rays(bunny, 20000, 13)
    expected = bunny.cast_rays(rays)["primitive_ids"]
    for _ in range(20):
        fresh = meshcast.Mesh.from_bytes(data)
        answers = []
        threads = [
            threading.Thread(target=lambda: answers.append(fresh.cast_rays(rays, threads=2)["primitive_ids"]))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads), "a cast hung"
        assert len(answers) == 4 and all((a == expected).all() for a in answers)


def box_mesh() -> meshcast.Mesh:
    """A closed box of side 2 around the origin, two triangles a face, facing out."""
    corners = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], float)
    quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
    faces = [[a, b, c] for a, b, c, d in quads] + [[a, c, d] for a, b, c, d in quads]
    return meshcast.Mesh(corners, np.array(faces))


def test_rays_touching_a_box_hit_it_unless_contacts_are_off():
    box = box_mesh()
    spots = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]
    down = np.array([[x, y, 5, 0, 0, -1] for x, y in spots], np.float32)
    up = np.array([[x, y, -5, 0, 0, 1] for x, y in spots], np.float32)
    rays = np.concatenate([down, up])
    touching = box.cast_rays(rays)
    np.testing.assert_array_equal(touching["t_hit"], np.full(len(rays), 4.0, np.float32))
    assert box.test_occlusions(rays).all()
    # The tie rule: the closest hit is the first of the hits listed, which count crossings
    # (a ray that only touches is listed twice or not at all), and some of these rays pass.
    crossing = box.cast_rays(rays, contacts=False)
    listed = box.list_intersections(rays)
    counts = np.diff(listed["ray_splits"])
    assert set(counts.tolist()) <= {0, 2} and 0 in counts
    first = listed["ray_splits"][:-1][counts > 0]
    hit = crossing["primitive_ids"] != meshcast.INVALID_ID
    np.testing.assert_array_equal(hit, counts > 0)
    np.testing.assert_array_equal(crossing["primitive_ids"][hit], listed["primitive_ids"][first])
    np.testing.assert_array_equal(crossing["t_hit"][hit], listed["t_hit"][first])
    np.testing.assert_array_equal(box.test_occlusions(rays, contacts=False), counts > 0)
    # The same with a scene holding the box.
    scene = meshcast.Scene()
    scene.add_triangles(box.vertices, box.faces)
    np.testing.assert_array_equal(scene.cast_rays(rays)["t_hit"], touching["t_hit"])
    np.testing.assert_array_equal(scene.test_occlusions(rays, contacts=False), counts > 0)
