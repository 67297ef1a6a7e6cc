"""`meshcast.Camera`: the view calls answer the same through `camera=` as through the
keywords it stands for (`eye`, `center`, `up`, `fov_deg`, `width_px`, `height_px`, `near`,
`far`), and a call given both, or neither, or an unknown keyword, raises `TypeError`."""

import numpy as np
import pytest

import meshcast
from conftest import asset


@pytest.fixture(scope="module")
def fandisk():
    return meshcast.Mesh.load(asset("fandisk.obj"))


def views(mesh, **far):
    low, high = mesh.bounds
    keywords = dict(eye=(high + (high - low)).tolist(), center=((low + high) / 2).tolist(),
                    up=[0.0, 1.0, 0.0], fov_deg=50.0, width_px=48, height_px=36, **far)
    camera = meshcast.Camera(keywords["eye"], keywords["center"], up=keywords["up"], fov=50.0,
                             width=48, height=36, **far)
    return keywords, camera


def test_camera_keeps_its_fields_and_defaults():
    camera = meshcast.Camera([0, 0, 5], [0, 0, 0], width=64, height=48)
    assert camera.eye == [0.0, 0.0, 5.0] and camera.target == [0.0, 0.0, 0.0]
    assert camera.up == [0.0, 1.0, 0.0] and camera.fov == 60.0
    assert (camera.width, camera.height, camera.far) == (64, 48, np.inf) and camera.near == pytest.approx(0.01)
    assert camera == meshcast.Camera([0, 0, 5], [0, 0, 0], width=64, height=48)
    assert camera != meshcast.Camera([0, 0, 5], [0, 0, 0], width=64, height=49)
    assert "Camera(eye=" in repr(camera)


@pytest.mark.parametrize("far", [{}, {"far": 2.5}])
def test_views_answer_the_same_through_camera_as_through_keywords(fandisk, far):
    keywords, camera = views(fandisk, **far)
    for name in ("visible_vertices_in_view", "visible_triangles_in_view"):
        by_keywords = getattr(fandisk, name)(**keywords)
        assert np.array_equal(getattr(fandisk, name)(camera=camera), by_keywords)
        assert np.array_equal(getattr(fandisk, name)(camera, threads=1), by_keywords)
    polygon = [[5, 5], [40, 8], [30, 30], [6, 28]]
    lasso = fandisk.lasso_triangles(polygon, **keywords)
    assert np.array_equal(fandisk.lasso_triangles(polygon, camera), lasso)
    scene = meshcast.Scene()
    scene.add(fandisk)
    rows = scene.lasso_triangles(polygon, **keywords)
    assert np.array_equal(scene.lasso_triangles(polygon, camera=camera, threads=1), rows)


def test_pick_answers_the_same_through_camera_as_through_keywords(fandisk):
    keywords, camera = views(fandisk)
    scene = meshcast.Scene()
    scene.add(fandisk)
    columns, rows = np.meshgrid(np.arange(48) + 0.5, np.arange(36) + 0.5)
    pixels = np.stack([columns, rows], axis=-1)
    by_keywords = scene.pick(pixels, **{k: v for k, v in keywords.items()})
    by_camera = scene.pick(pixels, camera)
    for key in ("geometry_ids", "primitive_ids", "t_hit", "distance", "points", "normals", "front"):
        np.testing.assert_array_equal(by_camera[key], by_keywords[key])
    assert (by_camera["primitive_ids"] != meshcast.INVALID_ID).any()


def test_camera_and_keywords_together_or_neither_or_unknown_raise_type_error(fandisk):
    keywords, camera = views(fandisk)
    with pytest.raises(TypeError, match="either camera"):
        fandisk.visible_vertices_in_view(camera, eye=keywords["eye"])
    with pytest.raises(TypeError, match="missing required keyword argument: 'eye'"):
        fandisk.visible_triangles_in_view()
    with pytest.raises(TypeError, match="unexpected keyword argument 'fov'"):
        fandisk.visible_triangles_in_view(**keywords, fov=3.0)
    scene = meshcast.Scene()
    with pytest.raises(TypeError, match="unexpected keyword argument 'near'"):
        scene.pick([[0.5, 0.5]], **keywords, near=0.1)
    with pytest.raises(TypeError, match="missing required keyword argument: 'width'"):
        meshcast.Camera([0, 0, 1], [0, 0, 0], height=3)
    with pytest.raises(ValueError, match="fov"):
        meshcast.Camera([0, 0, 1], [0, 0, 0], fov=180.0, width=3, height=3)


def test_ray_queries_refuse_an_unknown_keyword(fandisk):
    rays = np.array([[0.0, 0.0, 5.0, 0.0, 0.0, -1.0]], np.float32)
    with pytest.raises(TypeError, match="cast_rays\\(\\) got an unexpected keyword argument 'max_hits'"):
        fandisk.cast_rays(rays, max_hits=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'contacts'"):
        fandisk.list_intersections(rays, contacts=False)
