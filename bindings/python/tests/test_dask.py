"""meshcast.dask: Dask arrays of rays cast on threads and on a two-process local cluster.

The answers must be bit for bit those of ``geometry.cast_rays`` on the whole numpy array,
whatever the chunking, and the geometry must be unpickled at most once per worker process.
"""

import pickle
import re

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

import meshcast  # noqa: E402
import meshcast.dask as mdask  # noqa: E402

FIELDS = ("t_hit", "geometry_ids", "primitive_ids", "primitive_uvs", "primitive_normals")
RAY_COUNT = 20_000

# Chunkings of the rays along the rays (and, for the last, across the columns too).
CHUNKINGS = {
    "even": (4_000, 6),
    "uneven": ((1, 999, 7_000, 3, 11_997), 6),
    "split-columns": (6_500, (2, 4)),
}


@pytest.fixture(scope="module")
def scene(bunny):
    """Two instances of the bunny: as loaded, and doubled in size beside it."""
    scene = meshcast.Scene()
    scene.add(bunny, np.eye(4))
    beside = np.diag([2.0, 2.0, 2.0, 1.0])
    beside[0, 3] = 0.4
    scene.add(bunny, beside)
    return scene


def aimed_rays(geometry, count, seed):
    """float32 rays from around ``geometry`` toward points of its bounding box, plus misses."""
    rng = np.random.default_rng(seed)
    low, high = geometry.bounds
    size = np.linalg.norm(high - low)
    origins = (low + high) / 2 + rng.normal(size=(count, 3)) * size
    targets = low + rng.random((count, 3)) * (high - low)
    directions = targets - origins
    directions[::7] *= -1.0  # away from the geometry: misses
    return np.hstack([origins, directions]).astype(np.float32)


@pytest.fixture(scope="module")
def geometries(bunny, scene):
    return {"mesh": bunny, "scene": scene}


def assert_same_answers(answers, expected):
    assert set(answers) == set(FIELDS)
    for name in FIELDS:
        assert answers[name].dtype == expected[name].dtype, name
        assert np.array_equal(answers[name], expected[name]), name


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
    ) as cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client


@pytest.mark.parametrize("kind", ["mesh", "scene"])
@pytest.mark.parametrize("chunking", sorted(CHUNKINGS))
def test_cluster_answers_match_single_process(client, geometries, kind, chunking):
    geometry = geometries[kind]
    rays = aimed_rays(geometry, RAY_COUNT, seed=1)
    expected = geometry.cast_rays(rays)
    assert np.isinf(expected["t_hit"]).any() and np.isfinite(expected["t_hit"]).any()
    assert (expected["primitive_ids"] == meshcast.INVALID_ID).any()
    if kind == "scene":
        assert set(np.unique(expected["geometry_ids"])) == {0, 1, meshcast.INVALID_ID}

    dask_rays = da.from_array(rays, chunks=CHUNKINGS[chunking])
    hits = mdask.cast_rays(geometry, dask_rays)
    for name in FIELDS:
        assert hits[name].chunks[0] == dask_rays.chunks[0], name
    (answers,) = dask.compute(hits, scheduler=client)
    assert_same_answers(answers, expected)


def test_cluster_unpickles_geometry_at_most_once_per_worker(client, bunny):
    key, _ = mdask.serialize_geometry(bunny)
    rays = aimed_rays(bunny, RAY_COUNT, seed=2)
    expected = bunny.cast_rays(rays)
    dask_rays = da.from_array(rays, chunks=1_000)  # 20 chunks, over two workers
    before = client.run(mdask.geometry_cache_stats)

    for _ in range(2):
        hits = mdask.cast_rays(bunny, dask_rays)
        (answers,) = dask.compute(hits, scheduler=client)
        assert_same_answers(answers, expected)

    after = client.run(mdask.geometry_cache_stats)
    assert len(after) == 2
    for worker, stats in after.items():
        assert stats["loads"].get(key, 0) <= 1, worker
    assert sum(stats["loads"].get(key, 0) for stats in after.values()) >= 1
    # Each chunk was cast once per compute, though five arrays came back.
    cast = sum(after[w]["chunks_cast"] - before[w]["chunks_cast"] for w in after)
    assert cast == 2 * dask_rays.numblocks[0]


def test_graph_holds_the_payload_once(bunny):
    key, payload = mdask.serialize_geometry(bunny)
    rays = da.from_array(aimed_rays(bunny, 1_000, seed=3), chunks=100)
    hits = mdask.cast_rays(bunny, rays)
    graph = {}
    for array in hits.values():
        graph.update(dict(array.__dask_graph__()))
    names = {k[0] if isinstance(k, tuple) else k for k in graph}
    assert [n for n in names if n.startswith("meshcast-geometry-")] == [
        f"meshcast-geometry-{key}"
    ]
    cast_keys = [k for k in graph if isinstance(k, tuple) and "meshcast-cast-rays-" in k[0]]
    assert len(cast_keys) == 10
    # No task carries a copy of the bytes: the whole graph pickles to about one payload.
    assert len(pickle.dumps(graph)) < 1.2 * len(payload)


def test_threaded_scheduler_casts_each_chunk_once(geometries):
    geometry = geometries["scene"]
    rays = aimed_rays(geometry, RAY_COUNT, seed=4)
    dask_rays = da.from_array(rays, chunks=CHUNKINGS["uneven"])
    before = mdask.geometry_cache_stats()["chunks_cast"]
    (answers,) = dask.compute(mdask.cast_rays(geometry, dask_rays), scheduler="threads")
    assert mdask.geometry_cache_stats()["chunks_cast"] - before == dask_rays.numblocks[0]
    assert_same_answers(answers, geometry.cast_rays(rays))
    key, _ = mdask.serialize_geometry(geometry)
    assert mdask.geometry_cache_stats()["loads"][key] == 1


def test_threads_per_task_does_not_change_answers(bunny):
    rays = aimed_rays(bunny, RAY_COUNT, seed=5)
    hits = mdask.cast_rays(bunny, da.from_array(rays, chunks=7_000), threads=2)
    # Tasks side by side, each on two threads of its own.
    (answers,) = dask.compute(hits, scheduler="threads")
    assert_same_answers(answers, bunny.cast_rays(rays))


def test_a_ray_interval_is_cast_as_the_geometry_casts_it(geometries):
    geometry = geometries["scene"]
    rays = aimed_rays(geometry, RAY_COUNT, seed=8)
    for tnear, tfar in [(0.3, 1.1), (0.0, 0.9)]:
        hits = mdask.cast_rays(geometry, da.from_array(rays, chunks=6_000), tnear=tnear, tfar=tfar)
        (answers,) = dask.compute(hits, scheduler="threads")
        expected = geometry.cast_rays(rays, tnear=tnear, tfar=tfar)
        assert_same_answers(answers, expected)
        assert not np.array_equal(expected["t_hit"], geometry.cast_rays(rays)["t_hit"])


def test_numpy_rays_are_chunked(bunny):
    rays = aimed_rays(bunny, 5_000, seed=6).astype(np.float64)
    hits = mdask.cast_rays(bunny, rays, chunks=2_000)
    assert hits["t_hit"].chunks == ((2_000, 2_000, 1_000),)
    assert hits["primitive_normals"].chunks == ((2_000, 2_000, 1_000), (3,))
    (answers,) = dask.compute(hits, scheduler="sync")
    assert_same_answers(answers, bunny.cast_rays(rays))
    default = mdask.cast_rays(bunny, rays)
    assert default["t_hit"].chunks == ((5_000,),)


def test_single_field_and_empty_rays(bunny):
    rays = aimed_rays(bunny, 3_000, seed=7)
    t_hit = mdask.cast_rays(bunny, da.from_array(rays, chunks=1_000))["t_hit"]
    assert np.array_equal(t_hit.compute(scheduler="sync"), bunny.cast_rays(rays)["t_hit"])
    empty = mdask.cast_rays(bunny, np.zeros((0, 6), dtype=np.float32))
    (answers,) = dask.compute(empty, scheduler="sync")
    assert answers["t_hit"].shape == (0,)
    assert answers["primitive_uvs"].shape == (0, 2)


@pytest.mark.parametrize("shape", [(10, 5), (10,), (10, 6, 1), (6,)])
@pytest.mark.parametrize("wrap", ["numpy", "dask"])
def test_wrong_shapes_are_refused(bunny, shape, wrap):
    rays = np.zeros(shape, dtype=np.float32)
    if wrap == "dask":
        rays = da.from_array(rays)
    with pytest.raises(ValueError, match=re.escape(f"shape (n, 6), got shape {shape}")):
        mdask.cast_rays(bunny, rays)


def test_wrong_arguments_are_refused(bunny):
    rays = np.zeros((4, 6), dtype=np.float32)
    with pytest.raises(TypeError, match="meshcast.Mesh or a meshcast.Scene"):
        mdask.cast_rays(bunny.vertices, rays)
    with pytest.raises(TypeError, match="dtype"):
        mdask.cast_rays(bunny, rays.astype(np.complex64))
    with pytest.raises(ValueError, match="chunks only applies to numpy"):
        mdask.cast_rays(bunny, da.from_array(rays), chunks=2)
