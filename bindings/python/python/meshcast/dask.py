"""Cast Dask arrays of rays against a meshcast geometry, on a thread pool or a cluster.

``cast_rays(geometry, rays)`` is the Dask counterpart of ``geometry.cast_rays(rays)``: it
takes a Dask array of rays of shape ``(n, 6)`` chunked along the rays and answers the same
dict (``t_hit``, ``geometry_ids``, ``primitive_ids``, ``primitive_uvs``,
``primitive_normals``) with lazy Dask arrays as values, chunked like the rays::

    import dask.array as da
    import meshcast
    import meshcast.dask

    mesh = meshcast.Mesh.load("bunny.obj")
    rays = da.from_zarr("rays.zarr")                  # (n, 6), chunked along rays
    hits = meshcast.dask.cast_rays(mesh, rays)
    hit_count = da.isfinite(hits["t_hit"]).sum().compute()

The answers are bit for bit those of ``geometry.cast_rays`` on the whole array, whatever
the chunking: every ray is cast independently of the others.

How the geometry travels
------------------------
The geometry (a ``Mesh`` or a ``Scene``; a bunny is about 3 MB) must reach every worker,
but should not travel once per chunk, nor be rebuilt once per chunk:

1. The client pickles it once (a ``Mesh`` pickles through its cache bytes, so loading it
   back is a copy, not a BVH rebuild) and names the bytes by their BLAKE2b hash.
2. The bytes enter the task graph once, as a single key that every chunk's task depends
   on. The scheduler sends it to one worker; any other worker fetches it once from a peer
   and keeps it for all the chunks it runs in that computation.
3. Each worker process keeps a small module-level cache (hash -> geometry), so the bytes
   are unpickled once per process however many chunks and ``compute`` calls it runs (a
   later ``compute`` ships the bytes again, but finds the geometry cached). The hash
   travels with the bytes, so a worker never hashes the payload itself.

Each chunk is one task that casts its rays once and returns the five answers together;
five cheap tasks per chunk then pick each answer out (no copy). Computing one answer alone
fuses its task with the cast.

``threads`` is the number of threads each task casts with. The default, 1, leaves the
parallelism to Dask: one task per core, whether the cores are single-threaded worker
processes (``LocalCluster(threads_per_worker=1)``) or the threads of one process (the threaded
scheduler); each calling thread gets threads of its own, so tasks run side by side.

The same on Ray
---------------
Ray has the same two ingredients: ``ray.put`` stores the bytes once in the object store
(each node fetches them once, tasks read them from the node's shared store), and
``Dataset.map_batches`` runs a function per batch of a ``ray.data`` dataset of rays. The
function uses the same per-process cache, through ``load_geometry``. A sketch (Ray is not a
dependency of meshcast and this is not tested here)::

    import ray
    import meshcast.dask

    key, payload = meshcast.dask.serialize_geometry(mesh)
    payload_ref = ray.put(payload)          # the bytes, stored once

    def cast_batch(batch, payload, key):    # Ray resolves payload_ref to the bytes
        geometry = meshcast.dask.load_geometry(key, payload)
        hits = geometry.cast_rays(batch["data"], threads=1)
        return {name: hits[name] for name in ("t_hit", "primitive_ids")}

    dataset = ray.data.from_numpy(rays)     # column "data", one (6,) row per ray
    hits = dataset.map_batches(
        cast_batch, fn_kwargs={"payload": payload_ref, "key": key}, batch_size=65536
    )
"""

from __future__ import annotations

import hashlib
import math
import pickle
import threading
from collections import OrderedDict
from typing import Dict, Optional, Tuple, Union

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize

from ._native import Geometry, Mesh, Scene

__all__ = [
    "DEFAULT_CHUNK_RAYS",
    "cast_rays",
    "geometry_cache_stats",
    "load_geometry",
    "serialize_geometry",
]

#: Rays per chunk when ``cast_rays`` is given a numpy array and no ``chunks``. Each chunk
#: costs six tasks (the cast and the five answers), a few milliseconds of scheduler and
#: worker time each; a million rays keep that to a few percent of the cast (about 0.3 s on
#: the bunny, single-threaded) and weigh about 60 MB in and out (float32 rays).
DEFAULT_CHUNK_RAYS = 1 << 20

#: Geometries each process keeps unpickled; the least recently used is dropped first.
CACHE_SIZE = 4

#: The answers of ``cast_rays``: name, dtype, and columns (None for one value per ray).
#: ``t_hit`` is float64 where a ``Mesh`` is given float64 rays (``_t_dtype``).
ANSWERS = (
    ("t_hit", np.float32, None),
    ("geometry_ids", np.uint32, None),
    ("primitive_ids", np.uint32, None),
    ("primitive_uvs", np.float32, 2),
    ("primitive_normals", np.float32, 3),
)

_cache: "OrderedDict[str, Geometry]" = OrderedDict()
_cache_lock = threading.Lock()
_load_counts: Dict[str, int] = {}
_chunks_cast = 0


def serialize_geometry(geometry: Geometry) -> Tuple[str, bytes]:
    """Pickle ``geometry`` (a ``Mesh`` or a ``Scene``) and name the bytes by their hash.

    Returns ``(key, payload)``: ``key`` is the hex BLAKE2b digest of ``payload``, so two
    geometries share a key only if they pickle to the same bytes, and ``load_geometry``
    can trust it without hashing again.
    """
    # A GpuMesh is a Geometry too, but lives on this process's GPU: it does not pickle.
    if not isinstance(geometry, (Mesh, Scene)):
        raise TypeError(
            f"geometry must be a meshcast.Mesh or a meshcast.Scene, not {type(geometry).__name__}"
        )
    payload = pickle.dumps(geometry, protocol=pickle.HIGHEST_PROTOCOL)
    key = hashlib.blake2b(payload, digest_size=16).hexdigest()
    return key, payload


def load_geometry(key: str, payload: bytes) -> Geometry:
    """The geometry pickled in ``payload``, unpickled at most once per process per ``key``.

    ``key`` must be the one ``serialize_geometry`` returned with ``payload``. The cache
    keeps the ``CACHE_SIZE`` most recently used geometries.
    """
    with _cache_lock:
        geometry = _cache.get(key)
        if geometry is not None:
            _cache.move_to_end(key)
            return geometry
        geometry = pickle.loads(payload)
        _load_counts[key] = _load_counts.get(key, 0) + 1
        _cache[key] = geometry
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return geometry


def geometry_cache_stats() -> Dict[str, object]:
    """This process's cache: how often each key was unpickled, what it holds, chunks cast.

    Returns ``{"loads": {key: count}, "cached": [key, ...], "chunks_cast": int}``. Run it
    on every worker with ``client.run(meshcast.dask.geometry_cache_stats)``.
    """
    with _cache_lock:
        return {
            "loads": dict(_load_counts),
            "cached": list(_cache),
            "chunks_cast": _chunks_cast,
        }


def _cast_chunk(
    rays: np.ndarray,
    payload: bytes,
    key: str,
    threads: Optional[int],
    tnear: float = 0.0,
    tfar: float = math.inf,
) -> Dict[str, np.ndarray]:
    """Cast one chunk of rays: the dict of the five answers of ``geometry.cast_rays``."""
    global _chunks_cast
    geometry = load_geometry(key, payload)
    hits = geometry.cast_rays(rays, tnear=tnear, tfar=tfar, threads=threads)
    with _cache_lock:
        _chunks_cast += 1
    return hits


def _answer(hits: Dict[str, np.ndarray], name: str) -> np.ndarray:
    """One answer of a chunk's dict (no copy)."""
    return hits[name]


def _t_dtype(geometry: Geometry, rays: da.Array) -> np.dtype:
    """The dtype of ``geometry.cast_rays(rays)["t_hit"]``: float64 for a ``Mesh`` given rays
    numpy reads as float64 (float64 and integers: world coordinates, carried into the
    mesh's frame), else float32."""
    wide = rays.dtype.kind in "iu" or rays.dtype.itemsize >= 8
    return np.dtype(np.float64 if wide and isinstance(geometry, Mesh) else np.float32)


def _as_dask_rays(rays: Union[da.Array, np.ndarray], chunks: Optional[int]) -> da.Array:
    """``rays`` as a Dask array of shape (n, 6) whose 6 columns are one chunk."""
    if not isinstance(rays, da.Array):
        rays = np.asarray(rays)
        if rays.ndim == 2 and rays.shape[1] == 6:
            rows = DEFAULT_CHUNK_RAYS if chunks is None else chunks
            rays = da.from_array(rays, chunks=(rows, 6))
    elif chunks is not None:
        raise ValueError("chunks only applies to numpy rays; rechunk a Dask array yourself")
    if rays.ndim != 2 or rays.shape[1] != 6:
        raise ValueError(f"rays must have shape (n, 6), got shape {rays.shape}")
    if rays.dtype.kind not in "iuf":
        raise TypeError(f"rays must be a real numeric array, got dtype {rays.dtype}")
    if rays.numblocks[1] != 1:
        rays = rays.rechunk({1: -1})
    return rays


def cast_rays(
    geometry: Geometry,
    rays: Union[da.Array, np.ndarray],
    threads: Optional[int] = 1,
    *,
    chunks: Optional[int] = None,
    tnear: float = 0.0,
    tfar: float = math.inf,
) -> Dict[str, da.Array]:
    """Cast a Dask array of rays against ``geometry``, lazily, one task per chunk.

    Parameters
    ----------
    geometry
        A ``meshcast.Mesh`` or ``meshcast.Scene``. It is pickled now: changing it later
        does not change the answers.
    rays
        A Dask array of shape ``(n, 6)`` (origin then direction per row), chunked along
        the rays; if its columns are split over several chunks it is rechunked so that
        they are not. A numpy array is accepted too and cut into chunks of ``chunks`` rays
        (``DEFAULT_CHUNK_RAYS`` by default).
    threads
        Threads per task (None or 0: all cores, shared by the tasks of a process). The
        default, 1, leaves the parallelism across chunks to Dask.
    chunks
        Rays per chunk, for numpy ``rays`` only.
    tnear, tfar
        The interval of the hits, ``tnear < t <= tfar`` in units of each ray's direction,
        as ``geometry.cast_rays`` takes it.

    Returns
    -------
    dict of Dask arrays, as ``geometry.cast_rays``: ``t_hit`` (n,) float32 (float64 for a
    ``Mesh`` given float64 rays), inf on a miss;
    ``geometry_ids`` and ``primitive_ids`` (n,) uint32, ``meshcast.INVALID_ID`` on a miss;
    ``primitive_uvs`` (n, 2) and ``primitive_normals`` (n, 3) float32. Computing several
    of them together (``dask.compute(*hits.values())``) casts each chunk once.
    """
    rays = _as_dask_rays(rays, chunks)
    key, payload = serialize_geometry(geometry)
    # One key in the graph holds the bytes; every chunk's task depends on it.
    geometry_node = dask.delayed(payload, name=f"meshcast-geometry-{key}")
    token = tokenize(rays, key, threads, tnear, tfar)
    # The chunks of this array are the dicts of ``geometry.cast_rays``, not numpy arrays: it
    # stays internal, and each answer is a cheap task per chunk that picks its array out.
    # Returning the native arrays as they are costs no copy, unlike packing them into one.
    hits = da.map_blocks(
        _cast_chunk,
        rays,
        geometry_node,
        key,
        threads,
        tnear,
        tfar,
        name=f"meshcast-cast-rays-{token}",
        drop_axis=1,
        meta=np.empty((0,), dtype=np.float32),
    )
    answers = {}
    for name, dtype, columns in ANSWERS:
        if name == "t_hit":
            dtype = _t_dtype(geometry, rays)
        if columns is None:
            shape = {"meta": np.empty((0,), dtype=dtype)}
        else:
            shape = {
                "new_axis": 1,
                "chunks": (hits.chunks[0], (columns,)),
                "meta": np.empty((0, columns), dtype=dtype),
            }
        answers[name] = hits.map_blocks(
            _answer, name, name=f"meshcast-{name}-{token}", dtype=dtype, **shape
        )
    return answers
