"""The options of the queries: a ray interval (`tnear`, `tfar`) on every ray query, a cap on
the hits listed (`max_hits`), a reach for closest points (`max_distance`). Each is held
against the answers without it (an exact reference: the same triangle test, filtered), the
Rust command line's ranges, and a numpy brute force."""

import subprocess

import numpy as np
import pytest

import meshcast

from conftest import adversarial_rays, asset, random_rays, write_lines
from test_brute_force import EDGE_MARGIN, moller_trumbore, rays_at_triangles


def same(a: dict, b: dict) -> None:
    """Two answers alike, bit for bit (NaN where both are NaN)."""
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def rays_for(mesh, seed, n=600):
    return np.concatenate([random_rays(mesh, n, seed), adversarial_rays(mesh, n, seed + 1)])


def hit_lists(listed):
    """Each ray's hits as (t, primitive, geometry, u, v) rows, from list_intersections."""
    splits = listed["ray_splits"]
    rows = np.column_stack(
        (
            listed["t_hit"].view(np.uint32),
            listed["primitive_ids"],
            listed["geometry_ids"],
            listed["primitive_uvs"].view(np.uint32),
        )
    )
    return [rows[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]


def in_interval(t, tnear, tfar):
    """Open3D's (and Embree's) interval, tested in float64 on float32 t."""
    t = t.astype(np.float64)
    return (t > tnear) & (t <= tfar)


# --- tnear and tfar -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def suzanne():
    return meshcast.Mesh.load(asset("suzanne.obj"))


@pytest.mark.parametrize("tnear, tfar", [(0.0, np.inf), (0.5, 1.5), (1.0, 2.0), (-1.0, 0.75), (0.9, 0.9)])
def test_every_ray_query_answers_the_hits_in_its_interval(suzanne, tnear, tfar):
    rays = rays_for(suzanne, 3)
    # Every hit on the whole line, behind the origins too: the default list is its t > 0.
    listed = suzanne.list_intersections(rays, tnear=-np.inf)
    ahead = listed["t_hit"] > 0
    for key, value in suzanne.list_intersections(rays).items():
        if key != "ray_splits":
            np.testing.assert_array_equal(value, listed[key][ahead], err_msg=key)
    t = listed["t_hit"]
    keep = in_interval(t, tnear, tfar)
    ray_ids = listed["ray_ids"]
    expected_counts = np.bincount(ray_ids[keep], minlength=len(rays))
    assert (suzanne.count_intersections(rays, tnear=tnear, tfar=tfar) == expected_counts).all()
    # The rays touch edges and vertices: by the tie rule (contacts off) the closest and any
    # hits follow the hits listed.
    hit = expected_counts > 0
    assert (suzanne.test_occlusions(rays, tnear=tnear, tfar=tfar, contacts=False) == hit).all()
    assert (suzanne.test_occlusions(rays, tnear=tnear, tfar=tfar, contacts=False) == hit).all()
    # With contacts (the default) every ray that crosses also hits.
    assert suzanne.test_occlusions(rays, tnear=tnear, tfar=tfar)[hit].all()

    ranged = suzanne.list_intersections(rays, tnear=tnear, tfar=tfar)
    for key in ("ray_ids", "primitive_ids", "geometry_ids", "t_hit", "primitive_uvs"):
        np.testing.assert_array_equal(ranged[key], listed[key][keep], err_msg=key)

    # The closest hit is the first listed in the interval.
    cast = suzanne.cast_rays(rays, tnear=tnear, tfar=tfar, contacts=False)
    first = np.full(len(rays), -1)
    kept = np.flatnonzero(keep)
    first_of_ray = np.unique(ray_ids[kept], return_index=True)
    first[first_of_ray[0]] = kept[first_of_ray[1]]
    hit = first >= 0
    assert (cast["t_hit"][hit] == t[first[hit]]).all()
    assert (cast["primitive_ids"][hit] == listed["primitive_ids"][first[hit]]).all()
    assert (cast["primitive_uvs"][hit] == listed["primitive_uvs"][first[hit]]).all()
    assert (cast["t_hit"][~hit] == np.inf).all()
    assert (cast["primitive_ids"][~hit] == meshcast.INVALID_ID).all()
    if tnear == 0.0 and tfar == np.inf:
        same(cast, suzanne.cast_rays(rays, contacts=False))
        assert hit.sum() > len(rays) // 4


def test_the_interval_is_exact_at_its_ends():
    # One triangle at z = 0 and a ray from z = 1 straight down: its hit is at exactly t = 1,
    # also with a direction of length 2 from z = 2 (t in units of the direction).
    mesh = meshcast.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]), np.array([[0, 1, 2]]))
    rays = np.array([[0.2, 0.2, 1.0, 0, 0, -1.0], [0.2, 0.2, 2.0, 0, 0, -2.0]])
    below, above = np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0)
    cases = [
        ((0.0, 1.0), True),  # tfar is inclusive
        ((0.0, below), False),  # ... to the bit, in float64: 1 - 2**-53 rounds to 1.0f
        ((1.0, 2.0), False),  # tnear is exclusive (Embree's tnear < t)
        ((below, 2.0), True),
        ((above, 2.0), False),
        ((-np.inf, np.inf), True),
        ((2.0, 1.0), False),  # empty
        ((np.inf, np.inf), False),
    ]
    for (tnear, tfar), hit in cases:
        case = f"tnear={tnear!r}, tfar={tfar!r}"
        assert (mesh.test_occlusions(rays, tnear=tnear, tfar=tfar) == hit).all(), case
        assert (mesh.count_intersections(rays, tnear=tnear, tfar=tfar) == int(hit)).all(), case
        t_hit = mesh.cast_rays(rays, tnear=tnear, tfar=tfar)["t_hit"]
        assert (t_hit == (1.0 if hit else np.inf)).all(), case
        assert len(mesh.list_intersections(rays, tnear=tnear, tfar=tfar)["t_hit"]) == 2 * hit, case


def test_a_ray_starting_on_the_surface_misses_it_by_default():
    mesh = meshcast.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]), np.array([[0, 1, 2]]))
    on = np.array([[0.25, 0.25, 0.0, 0, 0, 1.0]])
    assert not mesh.test_occlusions(on)[0]
    assert not mesh.test_occlusions(on, tnear=0.0)[0]
    assert mesh.test_occlusions(on, tnear=-1.0)[0]
    assert mesh.cast_rays(on, tnear=-1.0)["t_hit"][0] == 0.0


@pytest.mark.parametrize("name", ["suzanne.obj", "spot.obj"])
def test_intervals_are_the_library_ranges(cli, tmp_path, name):
    """The command line's --t-min and --t-max are a closed range: tnear's exclusive end is
    the float32 after it."""
    mesh = meshcast.Mesh.load(asset(name))
    rays = rays_for(mesh, 13, 300)
    write_lines(tmp_path / "rays.txt", rays)
    # An interval holding about half of the hits, its ends float32 numbers.
    tnear, tfar = (float(np.float32(q)) for q in np.quantile(mesh.list_intersections(rays)["t_hit"], [0.25, 0.75]))
    t_min = repr(float(np.nextafter(np.float32(tnear), np.float32(np.inf))))
    args = ["--t-min", t_min, "--t-max", tfar, "--rays", tmp_path / "rays.txt", asset(name)]

    def run(*extra):
        out = subprocess.run([str(cli), "cast", *extra, *map(str, args)], check=True, capture_output=True, text=True)
        return out.stdout.splitlines()

    closest = run()
    cast = mesh.cast_rays(rays, tnear=tnear, tfar=tfar)
    for i, line in enumerate(closest):
        words = line.split()
        if words[0] == "miss":
            assert cast["t_hit"][i] == np.inf, i
        else:
            assert (cast["t_hit"][i], cast["primitive_ids"][i]) == (np.float32(words[1]), int(words[2])), i
    every = run("--all")
    counts = mesh.count_intersections(rays, tnear=tnear, tfar=tfar)
    listed = hit_lists(mesh.list_intersections(rays, tnear=tnear, tfar=tfar))
    for i, line in enumerate(every):
        words = line.split()
        expected = [] if words[0] == "miss" else np.array(words[2:]).reshape(-1, 4)
        assert counts[i] == len(expected) == len(listed[i]), i
        assert [int(h[1]) for h in expected] == list(listed[i][:, 1]), i
    any_hit = run("--any")
    assert (mesh.test_occlusions(rays, tnear=tnear, tfar=tfar) == np.array([line == "hit" for line in any_hit])).all()
    assert sum(counts) > 50


def test_intervals_apply_to_scenes_in_world_units_of_the_direction():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    scene = meshcast.Scene()
    scene.add(mesh)
    rays = rays_for(mesh, 17, 300)
    for tnear, tfar in [(0.25, 1.0), (0.0, 0.6)]:
        for query in ("cast_rays", "list_intersections"):
            a = getattr(scene, query)(rays, tnear=tnear, tfar=tfar)
            b = getattr(mesh, query)(rays, tnear=tnear, tfar=tfar)
            same(a, b)
        assert (scene.count_intersections(rays, tnear=tnear, tfar=tfar) == mesh.count_intersections(rays, tnear=tnear, tfar=tfar)).all()


def test_interval_errors():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    rays = random_rays(mesh, 4, 1)
    for query in ("cast_rays", "count_intersections", "list_intersections", "test_occlusions"):
        with pytest.raises(ValueError, match="NaN"):
            getattr(mesh, query)(rays, tnear=np.nan)
        with pytest.raises(ValueError, match="NaN"):
            getattr(mesh, query)(rays, tfar=np.nan)


# --- max_hits -------------------------------------------------------------------------------


def tied_scene():
    """Suzanne twice in one place, and once moved: hits tie between the first two."""
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    scene = meshcast.Scene()
    scene.add(mesh)
    scene.add(mesh)
    moved = np.eye(4)
    moved[:3, 3] = [0.3, 0.1, 0.2]
    scene.add(mesh, moved)
    return mesh, scene


@pytest.mark.parametrize("level", ["mesh", "scene"])
def test_max_hits_keeps_the_first_hits_of_each_ray(level):
    mesh, scene = tied_scene()
    geometry = mesh if level == "mesh" else scene
    rays = rays_for(mesh, 23)
    for tnear, tfar in [(0.0, np.inf), (0.3, 1.2)]:
        every = hit_lists(geometry.list_intersections(rays, tnear=tnear, tfar=tfar))
        assert max(len(h) for h in every) >= 3
        for max_hits in [0, 1, 2, 3, 5, 1000]:
            listed = geometry.list_intersections(rays, tnear=tnear, tfar=tfar, max_hits=max_hits)
            capped = hit_lists(listed)
            assert len(capped) == len(rays)
            for i, (hits, first) in enumerate(zip(capped, every)):
                np.testing.assert_array_equal(hits, first[:max_hits], err_msg=f"ray {i}, {max_hits}")
            lengths = np.diff(listed["ray_splits"].astype(np.int64))
            assert (listed["ray_ids"] == np.repeat(np.arange(len(rays)), lengths)).all()
    # The copies tie: each crossing is listed for instance 0, then instance 1, and a cap
    # between them keeps instance 0's.
    if level == "scene":
        every = hit_lists(scene.list_intersections(rays))
        one = hit_lists(scene.list_intersections(rays, max_hits=1))
        tied = [i for i, h in enumerate(every) if len(h) >= 2 and h[0, 0] == h[1, 0] and h[0, 1] == h[1, 1]]
        assert len(tied) > 100
        assert all(one[i][0, 2] == 0 and every[i][1, 2] == 1 for i in tied)


def test_max_hits_matches_a_brute_force():
    mesh = meshcast.Mesh.load(asset("spot.obj"))
    rays = rays_at_triangles(mesh, 300, 29)
    t, margin = moller_trumbore(mesh.vertices, mesh.faces, rays)
    clear = ~((np.abs(margin) < EDGE_MARGIN) & np.isfinite(t)).any(axis=1)
    order = np.argsort(t, axis=1, kind="stable")
    for max_hits in [1, 2, 3]:
        capped = hit_lists(mesh.list_intersections(rays, max_hits=max_hits))
        checked = 0
        for i in np.flatnonzero(clear):
            expected = [j for j in order[i, :max_hits] if np.isfinite(t[i, j])]
            assert list(capped[i][:, 1]) == expected, i
            got_t = capped[i][:, 0].view(np.float32)
            np.testing.assert_allclose(got_t, t[i, expected], rtol=1e-5)
            checked += len(expected) > 0
        assert checked > 200


def test_max_hits_errors():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    with pytest.raises(ValueError, match="max_hits"):
        mesh.list_intersections(random_rays(mesh, 4, 1), max_hits=-1)


# --- max_distance ---------------------------------------------------------------------------


def no_surface(closest, far):
    """The answers of the points `far` (a mask) are those of no surface at all."""
    assert np.isnan(closest["points"][far]).all()
    assert (closest["geometry_ids"][far] == meshcast.INVALID_ID).all()
    assert (closest["primitive_ids"][far] == meshcast.INVALID_ID).all()
    assert (closest["primitive_uvs"][far] == 0).all()
    assert (closest["primitive_normals"][far] == 0).all()
    assert (closest["distance"][far] == np.inf).all()


@pytest.mark.parametrize("level", ["mesh", "scene"])
def test_max_distance_keeps_the_points_within_reach(level):
    mesh, scene = tied_scene()
    geometry = mesh if level == "mesh" else scene
    points = random_rays(mesh, 2000, 31)[:, :3]
    # Points on the surface: their vertices, at distance 0.
    points = np.concatenate([points, mesh.vertices[:50]])
    every = geometry.compute_closest_points(points, with_distance=True)
    distance = every["distance"]
    for max_distance in [0.0, float(np.median(distance)), float(distance[7]), float(np.nextafter(np.float64(distance[7]), 0)), 1e30, np.inf]:
        reached = geometry.compute_closest_points(points, max_distance=max_distance, with_distance=True)
        within = distance.astype(np.float64) <= max_distance
        assert within.any()
        for key in every:
            np.testing.assert_array_equal(reached[key][within], every[key][within], err_msg=key)
        no_surface(reached, ~within)
        np.testing.assert_array_equal(geometry.compute_distance(points, max_distance=max_distance), reached["distance"])
    just_short = float(np.nextafter(np.float64(distance[7]), 0))
    assert geometry.compute_distance(points[7:8], max_distance=just_short)[0] == np.inf
    assert geometry.compute_distance(points[7:8], max_distance=float(distance[7]))[0] == distance[7]


def test_max_distance_matches_a_brute_force():
    trimesh = pytest.importorskip("trimesh")
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    points = random_rays(mesh, 300, 37)[:, :3].astype(np.float64)
    triangles = mesh.vertices[mesh.faces].astype(np.float64)
    best = np.array(
        [
            np.linalg.norm(trimesh.triangles.closest_point(triangles, np.repeat(p[None], len(triangles), 0)) - p, axis=1).min()
            for p in points
        ]
    )
    max_distance = float(np.median(best))
    reached = mesh.compute_distance(points, max_distance=max_distance)
    clear = np.abs(best - max_distance) > 1e-4 * max_distance
    within = best <= max_distance
    np.testing.assert_allclose(reached[clear & within], best[clear & within], rtol=1e-4)
    assert (reached[clear & ~within] == np.inf).all()
    assert (clear & within).sum() > 100 and (clear & ~within).sum() > 100


def test_max_distance_errors():
    mesh = meshcast.Mesh.load(asset("suzanne.obj"))
    for bad in (-1.0, np.nan):
        for query in ("compute_closest_points", "compute_distance"):
            with pytest.raises(ValueError, match="max_distance"):
                getattr(mesh, query)(np.zeros((1, 3)), max_distance=bad)
