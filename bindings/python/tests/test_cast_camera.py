"""`cast_camera`: `cast_rays` of a pinhole camera's pixels, on every ray level (`Mesh`,
`Scene`, `GpuMesh`). Its rays are the ones through the pixels' centres, rows from the top,
as a test builds them from the camera by hand; its hits lie in `near < t <= far`."""

import re

import numpy as np
import pytest

import meshcast
from conftest import asset

KEYS = ("t_hit", "geometry_ids", "primitive_ids", "primitive_uvs", "primitive_normals")
#: How far from every edge (in barycentric weight) a hit must lie for a ray built by hand,
#: rounded differently from the camera's, to be sure of the same triangle.
EDGE_MARGIN = 1e-2


@pytest.fixture(scope="module")
def fandisk():
    return meshcast.Mesh.load(asset("fandisk.obj"))


def camera_of(mesh, width=48, height=36, clip=None, **planes):
    """A camera looking at the mesh from outside its box; `clip`, two fractions of the
    distance from the eye to the box's centre, places `near` and `far` through the mesh."""
    low, high = mesh.bounds.astype(np.float64)
    eye = high + 0.8 * (high - low)
    target = (low + high) / 2
    if clip is not None:
        distance = np.linalg.norm(target - eye)
        planes = dict(near=clip[0] * distance, far=clip[1] * distance)
    return meshcast.Camera(eye.tolist(), target.tolist(), up=[0.0, 1.0, 0.0], fov=50.0, width=width,
                           height=height, **planes)


def keywords_of(camera):
    return dict(eye=camera.eye, center=camera.target, up=camera.up, fov_deg=camera.fov,
                width_px=camera.width, height_px=camera.height, near=camera.near, far=camera.far)


def rays_by_hand(camera):
    """The camera's rays built here, in float64: from the eye through each pixel's centre,
    rows from the top, `fov` the horizontal field of view, unit directions."""
    eye, target, up = (np.array(v, np.float64) for v in (camera.eye, camera.target, camera.up))
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    half_width = np.tan(np.radians(camera.fov) / 2)
    half_height = half_width * camera.height / camera.width
    x = (2 * (np.arange(camera.width) + 0.5) / camera.width - 1) * half_width
    y = (1 - 2 * (np.arange(camera.height) + 0.5) / camera.height) * half_height
    directions = forward + x[None, :, None] * right + y[:, None, None] * true_up
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    origins = np.broadcast_to(eye, directions.shape)
    return np.concatenate([origins, directions], axis=-1).astype(np.float32)


def away_from_edges(hits):
    u, v = hits["primitive_uvs"][..., 0], hits["primitive_uvs"][..., 1]
    found = hits["primitive_ids"] != meshcast.INVALID_ID
    return found & (u > EDGE_MARGIN) & (v > EDGE_MARGIN) & (1 - u - v > EDGE_MARGIN)


@pytest.mark.parametrize("clip", [None, (0.75, 1.0)])
def test_cast_camera_is_cast_rays_of_the_pixel_centres(fandisk, clip):
    camera = camera_of(fandisk, clip=clip)
    answer = fandisk.cast_camera(camera)
    for key in KEYS:
        assert answer[key].shape[:2] == (36, 48), key
    assert answer["primitive_uvs"].shape == (36, 48, 2)
    by_hand = fandisk.cast_rays(rays_by_hand(camera), tnear=camera.near, tfar=camera.far)
    hit = answer["primitive_ids"] != meshcast.INVALID_ID
    hit_by_hand = by_hand["primitive_ids"] != meshcast.INVALID_ID
    assert hit.sum() > 100, "the camera sees the mesh"
    # Only silhouette pixels may differ, where a ray grazes the last triangle.
    assert (hit != hit_by_hand).sum() <= 0.01 * hit.size
    sure = away_from_edges(answer) & away_from_edges(by_hand)
    assert sure.sum() > 0.8 * hit.sum()
    np.testing.assert_array_equal(answer["primitive_ids"][sure], by_hand["primitive_ids"][sure])
    np.testing.assert_allclose(answer["t_hit"][sure], by_hand["t_hit"][sure], rtol=1e-5)
    assert (np.isinf(answer["t_hit"]) == ~hit).all()
    if clip:
        t = answer["t_hit"][hit]
        assert (t > camera.near).all() and (t <= camera.far).all()


def test_cast_camera_sees_the_triangles_the_view_sees(fandisk):
    camera = camera_of(fandisk)
    ids = fandisk.cast_camera(camera)["primitive_ids"]
    seen = np.unique(ids[ids != meshcast.INVALID_ID])
    np.testing.assert_array_equal(seen, np.flatnonzero(fandisk.visible_triangles_in_view(camera)))


def test_cast_camera_takes_a_camera_or_its_keywords(fandisk):
    camera = camera_of(fandisk, clip=(0.5, 1.0))
    answer = fandisk.cast_camera(camera)
    for other in (fandisk.cast_camera(**keywords_of(camera)), fandisk.cast_camera(camera=camera, threads=1)):
        for key in KEYS:
            np.testing.assert_array_equal(other[key], answer[key], err_msg=key)
    strict = fandisk.cast_camera(camera, contacts=False)
    assert strict["primitive_ids"].shape == (36, 48)


def test_every_level_gives_the_same_triangles(fandisk):
    camera = camera_of(fandisk)
    answer = fandisk.cast_camera(camera)
    scene = meshcast.Scene()
    scene.add(fandisk)
    in_scene = scene.cast_camera(camera)
    np.testing.assert_array_equal(in_scene["primitive_ids"], answer["primitive_ids"])
    np.testing.assert_allclose(in_scene["t_hit"], answer["t_hit"], rtol=1e-6)
    if not meshcast.gpu_adapters():
        pytest.skip("no GPU adapter (meshcast.gpu_adapters() is empty): GpuMesh not compared")
    gpu = fandisk.to_gpu()
    on_gpu = gpu.cast_camera(camera)
    np.testing.assert_array_equal(on_gpu["primitive_ids"], answer["primitive_ids"])
    np.testing.assert_allclose(on_gpu["t_hit"], answer["t_hit"], rtol=2.0**-12)
    strict = fandisk.cast_camera(camera, contacts=False)
    on_gpu = gpu.cast_camera(camera, contacts=False)
    np.testing.assert_array_equal(on_gpu["primitive_ids"], strict["primitive_ids"])


def test_bad_cameras_raise_what_the_view_calls_raise(fandisk):
    keywords = keywords_of(camera_of(fandisk))
    for bad in ({"width_px": 0}, {"height_px": 0}, {"fov_deg": 180.0}):
        with pytest.raises(ValueError) as view_error:
            fandisk.visible_triangles_in_view(**{**keywords, **bad})
        with pytest.raises(type(view_error.value), match=re.escape(str(view_error.value))):
            fandisk.cast_camera(**{**keywords, **bad})
    for bad in ({"fov": 3.0}, {"nthreads": 1}):
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{next(iter(bad))}'"):
            fandisk.visible_triangles_in_view(**keywords, **bad)
        with pytest.raises(TypeError, match=f"cast_camera\\(\\) got an unexpected keyword argument '{next(iter(bad))}'"):
            fandisk.cast_camera(**keywords, **bad)
    with pytest.raises(TypeError, match="either camera"):
        fandisk.cast_camera(camera_of(fandisk), eye=keywords["eye"])
    with pytest.raises(ValueError, match="width"):
        meshcast.Camera([0, 0, 1], [0, 0, 0], width=0, height=3)
    with pytest.raises(meshcast.MeshcastError):
        fandisk.cast_camera(**{**keywords, "near": 2.0, "far": 1.0})
