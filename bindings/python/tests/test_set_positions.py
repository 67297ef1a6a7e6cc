"""Mesh.set_positions: a refit mesh answers every query as a mesh built from the same
positions does, bit for bit (the tree keeps its shape; what it finds does not change),
ties included."""

import pickle

import numpy as np
import pytest

import meshcast

from conftest import adversarial_rays, asset, random_rays


def deformed(vertices, seed):
    """The vertices moved by a smooth field, a few percent of the mesh's size."""
    rng = np.random.default_rng(seed)
    v = vertices.astype(np.float64)
    size = np.linalg.norm(v.max(axis=0) - v.min(axis=0))
    phase = rng.uniform(0, 2 * np.pi, 3)
    wave = np.sin(v * (6.0 / size) + phase)
    return (v + 0.03 * size * wave[:, [1, 2, 0]]).astype(np.float32)


def answers(geometry, rays, points):
    """Every exact answer of a geometry to `rays` and `points`."""
    out = {}
    for key, value in geometry.cast_rays(rays).items():
        out["cast_" + key] = value
    for key, value in geometry.list_intersections(rays).items():
        out["list_" + key] = value
    for key, value in geometry.list_intersections(rays, tnear=0.2, max_hits=2).items():
        out["capped_" + key] = value
    out["count"] = geometry.count_intersections(rays)
    out["occluded"] = geometry.test_occlusions(rays, tnear=0.1, tfar=2.0)
    for key, value in geometry.compute_closest_points(points).items():
        out["closest_" + key] = value
    out["distance"] = geometry.compute_distance(points, max_distance=0.05)
    return out


def assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("name", ["stanford-bunny.obj", "cow.obj"])
def test_a_refit_mesh_answers_as_a_mesh_built_from_its_positions(name):
    mesh = meshcast.Mesh.load(asset(name))
    faces = mesh.faces
    for seed in (1, 2):
        moved = deformed(mesh.vertices, seed)
        mesh.set_positions(moved)
        fresh = meshcast.Mesh(moved, faces)
        np.testing.assert_array_equal(mesh.vertices, moved)
        np.testing.assert_array_equal(mesh.bounds, fresh.bounds)
        assert mesh.geometry_hash == fresh.geometry_hash
        # Rays aimed exactly at the moved vertices and edges: ties between neighbours.
        rays = np.concatenate([random_rays(fresh, 1500, seed), adversarial_rays(fresh, 1500, seed + 7)])
        points = random_rays(fresh, 1500, seed + 3)[:, :3]
        points = np.concatenate([points, moved[::50]])
        assert_same(answers(mesh, rays, points), answers(fresh, rays, points))
        if fresh.is_closed:
            assert mesh.is_closed
            np.testing.assert_array_equal(mesh.contains(points), fresh.contains(points))
            np.testing.assert_array_equal(mesh.compute_signed_distance(points), fresh.compute_signed_distance(points))


def test_a_triangle_that_collapses_rebuilds_and_still_answers_alike():
    mesh = meshcast.Mesh.load(asset("spot.obj"))
    moved = mesh.vertices.copy()
    a, b, c = mesh.faces[10]
    moved[b] = moved[a]  # triangle 10 and its neighbours through b degenerate
    mesh.set_positions(moved)
    fresh = meshcast.Mesh(moved, mesh.faces)
    rays = np.concatenate([random_rays(fresh, 1000, 5), adversarial_rays(fresh, 1000, 6)])
    points = random_rays(fresh, 500, 8)[:, :3]
    assert_same(answers(mesh, rays, points), answers(fresh, rays, points))
    # And back: the triangles come back too.
    original = meshcast.Mesh.load(asset("spot.obj"))
    mesh.set_positions(original.vertices)
    assert_same(answers(mesh, rays, points), answers(original, rays, points))


def test_bad_positions_are_rejected_and_leave_the_mesh_as_it_was():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    before = mesh.vertices
    with pytest.raises(meshcast.MeshcastError, match="positions"):
        mesh.set_positions(before[:-1])
    bad = before.copy()
    bad[3, 1] = np.nan
    with pytest.raises(meshcast.MeshcastError):
        mesh.set_positions(bad)
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        mesh.set_positions(before[None])
    with pytest.raises(ValueError):
        mesh.set_positions(before[:, :2])
    np.testing.assert_array_equal(mesh.vertices, before)


def test_scenes_keep_the_positions_they_were_given():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    scene = meshcast.Scene()
    scene.add(mesh)
    rays = random_rays(mesh, 500, 3)
    before = scene.cast_rays(rays)
    mesh.set_positions(mesh.vertices * 2.0)
    assert_same(scene.cast_rays(rays), before)
    assert not np.array_equal(mesh.cast_rays(rays)["t_hit"], before["t_hit"])
    # The mesh a scene hands back is the scene's: moving it changes that object only.
    inside = scene.mesh(0)
    inside.set_positions(inside.vertices + 1.0)
    assert_same(scene.cast_rays(rays), before)
    # Added again, the scene takes the mesh as it is now.
    scene.add(mesh)
    assert (scene.cast_rays(rays)["geometry_ids"] != 0).any()


def test_a_refit_mesh_pickles_with_its_new_positions():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    mesh.set_positions(deformed(mesh.vertices, 4))
    copy = pickle.loads(pickle.dumps(mesh))
    np.testing.assert_array_equal(copy.vertices, mesh.vertices)
    rays = random_rays(mesh, 300, 9)
    assert_same(copy.cast_rays(rays), mesh.cast_rays(rays))
