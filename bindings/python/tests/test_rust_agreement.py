"""The package answers exactly what the Rust library answers: every query against the
`meshcast` command line on real meshes, random and adversarial rays, bit for bit."""

import subprocess

import numpy as np
import pytest

import meshcast

from conftest import adversarial_rays, asset, random_rays, write_lines

MESHES = ["stanford-bunny.obj", "spot.obj", "suzanne.obj", "teapot.obj", "cow.obj"]


def run(cli, *args) -> list:
    out = subprocess.run([str(cli), *map(str, args)], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def rays_for(mesh, seed):
    return np.concatenate([random_rays(mesh, 1500, seed), adversarial_rays(mesh, 1500, seed + 1)])


@pytest.mark.parametrize("name", MESHES)
def test_cast_rays_is_the_library_closest_hit(cli, tmp_path, name):
    mesh = meshcast.Mesh.load(asset(name))
    rays = rays_for(mesh, 11)
    write_lines(tmp_path / "rays.txt", rays)
    lines = run(cli, "cast", "--rays", tmp_path / "rays.txt", asset(name))
    answer = mesh.cast_rays(rays)
    assert len(lines) == len(rays)
    hits = 0
    for i, line in enumerate(lines):
        words = line.split()
        if words[0] == "miss":
            assert answer["t_hit"][i] == np.inf
            assert answer["primitive_ids"][i] == meshcast.INVALID_ID
            continue
        hits += 1
        t, triangle, u, v = np.float32(words[1]), int(words[2]), np.float32(words[3]), np.float32(words[4])
        assert answer["t_hit"][i] == t, i
        assert answer["primitive_ids"][i] == triangle, i
        assert answer["geometry_ids"][i] == 0
        assert (answer["primitive_uvs"][i] == [u, v]).all(), i
    assert hits > len(rays) // 4


@pytest.mark.parametrize("name", MESHES[:3])
def test_list_intersections_is_the_library_cast_all(cli, tmp_path, name):
    mesh = meshcast.Mesh.load(asset(name))
    rays = rays_for(mesh, 21)
    write_lines(tmp_path / "rays.txt", rays)
    lines = run(cli, "cast", "--all", "--rays", tmp_path / "rays.txt", asset(name))
    listed = mesh.list_intersections(rays)
    counts = mesh.count_intersections(rays)
    splits = listed["ray_splits"]
    assert splits[0] == 0 and splits[-1] == len(listed["t_hit"])
    for i, line in enumerate(lines):
        words = line.split()
        expected = [] if words[0] == "miss" else np.array(words[2:]).reshape(-1, 4)
        assert counts[i] == len(expected)
        hits = slice(splits[i], splits[i + 1])
        assert (listed["ray_ids"][hits] == i).all()
        assert (listed["t_hit"][hits] == np.array([np.float32(h[0]) for h in expected], np.float32)).all()
        assert (listed["primitive_ids"][hits] == np.array([int(h[1]) for h in expected], np.uint32)).all()


@pytest.mark.parametrize("name", MESHES[:3])
def test_occlusion_is_the_library_any_hit(cli, tmp_path, name):
    mesh = meshcast.Mesh.load(asset(name))
    rays = rays_for(mesh, 31)
    write_lines(tmp_path / "rays.txt", rays)
    lines = run(cli, "cast", "--any", "--rays", tmp_path / "rays.txt", asset(name))
    assert (mesh.test_occlusions(rays) == np.array([line == "hit" for line in lines])).all()
    # A range: only hits with 0.5 <= t <= 1.5.
    lines = run(cli, "cast", "--any", "--t-min", 0.5, "--t-max", 1.5, "--rays", tmp_path / "rays.txt", asset(name))
    assert (mesh.test_occlusions(rays, tnear=0.5, tfar=1.5) == np.array([line == "hit" for line in lines])).all()


@pytest.mark.parametrize("name", ["spot.obj", "suzanne.obj"])
def test_points_are_the_library_inside_and_distance(cli, tmp_path, name):
    mesh = meshcast.Mesh.load(asset(name))
    points = random_rays(mesh, 800, 41)[:, :3]
    write_lines(tmp_path / "points.txt", points)
    inside = run(cli, "contains", "--points", tmp_path / "points.txt", asset(name))
    assert (mesh.contains(points) == np.array([line == "inside" for line in inside])).all()
    assert (mesh.compute_occupancy(points) == np.array([line == "inside" for line in inside], np.float32)).all()
    distance = run(cli, "distance", "--points", tmp_path / "points.txt", asset(name))
    assert (mesh.compute_signed_distance(points) == np.array([np.float32(d) for d in distance])).all()
