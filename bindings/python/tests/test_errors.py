"""Bad input raises a Python exception with a clear message, never a crash: wrong shapes
and dtypes, NaN and infinity, missing, garbled and truncated files, bad faces and
transforms."""

import numpy as np
import pytest

import meshcast

from conftest import asset


@pytest.mark.parametrize(
    "rays, error, message",
    [
        (np.zeros((3, 5)), ValueError, r"rays must have shape \(\.\.\., 6\), not \(3, 5\)"),
        (np.zeros(7), ValueError, r"not \(7,\)"),
        (np.float32(1.0), ValueError, r"not \(\)"),
        (np.array([["a"] * 6]), TypeError, "real numbers"),
        (np.zeros((2, 6), complex), TypeError, "real numbers, not complex128"),
        ([[0, 0, 0, 0, 0]], ValueError, "shape"),
        ([[np.nan, 0, 0, 0, 0, 1]], ValueError, r"rays\[0\] is not finite"),
        ([[0, 0, 0, 0, 0, 1], [0, 0, 0, np.inf, 0, 1]], ValueError, r"rays\[1\] is not finite"),
        (np.full((2, 2, 6), 1e39), ValueError, r"rays\[0, 0\] is not finite"),
    ],
)
def test_bad_rays_raise(bunny, rays, error, message):
    with pytest.raises(error, match=message):
        bunny.cast_rays(rays)
    with pytest.raises(error):
        bunny.count_intersections(rays)


def test_every_query_rejects_non_finite_input(bunny):
    bad_rays = [[0, 0, 0, 0, np.nan, 1]]
    for query in (bunny.test_occlusions, bunny.list_intersections):
        with pytest.raises(ValueError, match="not finite"):
            query(bad_rays)
    bad_points = [[0, 0, 0], [0, np.nan, 0]]
    for query in (bunny.compute_closest_points, bunny.compute_distance, bunny.compute_signed_distance,
                  bunny.compute_occupancy, bunny.contains, bunny.winding_number):
        with pytest.raises(ValueError, match=r"query_points\[1\] is not finite|points\[1\] is not finite"):
            query(bad_points)
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        bunny.contains([[0, 0]])


def test_ray_arguments_must_be_given_one_way(bunny):
    with pytest.raises(TypeError, match="either rays"):
        bunny.cast_rays()
    with pytest.raises(TypeError, match="either rays"):
        bunny.cast_rays([[0, 0, 0, 0, 0, 1]], origins=[[0, 0, 0]], directions=[[0, 0, 1]])
    with pytest.raises(ValueError, match="do not broadcast"):
        bunny.cast_rays(origins=np.zeros((3, 3)), directions=np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        bunny.test_occlusions([[0, 0, 0, 0, 0, 1]], tnear=np.nan)


def test_native_classes_speak_one_spelling_and_name_open3d_s_in_errors(bunny):
    # Open3D's spellings (`nthreads`, `tnear` and `tfar` by position, `nsamples`, `device`)
    # are `meshcast.RaycastingScene`'s only.
    rays = [[0, 0, 0, 0, 0, 1]]
    points = [[0, 0, 0]]
    scene = meshcast.Scene()
    scene.add(bunny)
    for geometry in (bunny, scene):
        for name in ("cast_rays", "test_occlusions", "count_intersections", "list_intersections"):
            query = getattr(geometry, name)
            with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'nthreads'"):
                query(rays, nthreads=1)
            with pytest.raises(TypeError, match="positional"):
                query(rays, 1)
        with pytest.raises(TypeError, match="positional"):
            geometry.test_occlusions(rays, 0.0, 1.0)
        for name in ("compute_closest_points", "compute_distance", "compute_signed_distance", "compute_occupancy"):
            with pytest.raises(TypeError, match="nthreads"):
                getattr(geometry, name)(points, nthreads=1)
            with pytest.raises(TypeError, match="positional"):
                getattr(geometry, name)(points, 1)
        with pytest.raises(TypeError, match="nsamples"):
            geometry.compute_signed_distance(points, nsamples=1)
    with pytest.raises(TypeError, match="nthreads"):
        meshcast.Scene(nthreads=1)
    with pytest.raises(TypeError, match="device"):
        meshcast.Scene(device="CPU:0")
    with pytest.raises(TypeError, match="positional"):
        meshcast.Scene(1)
    assert len(meshcast.Scene(threads=1)) == 0
    with pytest.raises(ValueError, match="threads"):
        meshcast.Scene(threads=-1)


def test_threads_must_be_a_sensible_count(bunny):
    with pytest.raises(ValueError, match="threads"):
        bunny.cast_rays([[0, 0, 0, 0, 0, 1]], threads=-1)


def test_missing_garbled_and_truncated_files_raise(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.obj"):
        meshcast.Mesh.load(tmp_path / "nowhere.obj")
    with pytest.raises(FileNotFoundError):
        meshcast.Scene.load(tmp_path / "nowhere.glb")
    garbled = tmp_path / "garbled.ply"
    garbled.write_bytes(b"ply\nformat binary_little_endian 1.0\nelement vertex 99999999\n\x00\x01")
    with pytest.raises(meshcast.MeshcastError, match="garbled.ply"):
        meshcast.Mesh.load(garbled)
    unknown = tmp_path / "noise.bin"
    unknown.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(meshcast.MeshcastError, match="not a mesh format"):
        meshcast.Mesh.load(unknown)
    cut = tmp_path / "cut.obj"
    cut.write_bytes(asset("suzanne.obj").read_bytes()[:2000])
    with pytest.raises(meshcast.MeshcastError):
        meshcast.Mesh.load(cut)
    assert issubclass(meshcast.MeshcastError, ValueError)


def test_corrupt_cache_bytes_raise(bunny):
    data = bytearray(meshcast.Mesh(bunny.vertices[:3], [[0, 1, 2]]).to_bytes())
    with pytest.raises(meshcast.MeshcastError, match="not a meshcast cache"):
        meshcast.Mesh.from_bytes(b"garbage")
    for at in range(0, len(data), max(1, len(data) // 40)):
        flipped = bytearray(data)
        flipped[at] ^= 0x40
        with pytest.raises(meshcast.MeshcastError):
            meshcast.Mesh.from_bytes(bytes(flipped))
    with pytest.raises(meshcast.MeshcastError):
        meshcast.Mesh.from_bytes(bytes(data[: len(data) // 2]))


@pytest.mark.parametrize(
    "vertices, faces, error, message",
    [
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]], meshcast.MeshcastError, "refers to vertex 3"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, -1, 2]], ValueError, r"faces\[0\] refers to vertex -1"),
        ([[0, 0, 0], [1, 0, 0], [0, np.nan, 0]], [[0, 1, 2]], meshcast.MeshcastError, "finite"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0.0, 1.0, 2.0]], TypeError, "integer"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [0, 1, 2], ValueError, r"\(M, 3\)"),
        ([[[0, 0, 0]]], [[0, 0, 0]], ValueError, r"\(N, 3\)"),
    ],
)
def test_bad_meshes_raise(vertices, faces, error, message):
    with pytest.raises(error, match=message):
        meshcast.Mesh(vertices, faces)


def test_bad_transforms_raise(bunny):
    scene = meshcast.Scene()
    with pytest.raises(ValueError, match="affine"):
        scene.add(bunny, np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"\(4, 4\)"):
        scene.add(bunny, np.eye(3))
    with pytest.raises(meshcast.MeshcastError, match="invertible|finite"):
        scene.add(bunny, np.diag([0.0, 1.0, 1.0, 1.0]))
    with pytest.raises(meshcast.MeshcastError):
        scene.add(bunny, np.diag([np.nan, 1.0, 1.0, 1.0]))
    assert len(scene) == 0
    with pytest.raises(TypeError):
        scene.add("not a mesh")
