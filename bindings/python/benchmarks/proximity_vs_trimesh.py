"""closest_point on points near a mesh: meshcast.trimesh against trimesh.proximity.

Points near the surface (samples of random triangles moved by a normal offset of 2% of the
mesh's size; 500k on the bunny by default) are given to `meshcast.trimesh.closest_point`
and to trimesh's `trimesh.proximity.closest_point`, and the best time of each is printed
with their ratio (above 1: meshcast is faster). Each side's structures are built first and
timed apart: meshcast's mesh and BVH, trimesh's r-tree of the triangles (its k-d tree of the
vertices is rebuilt inside every call, so it is in trimesh's time). trimesh runs once, on
every point, or on the first `--trimesh-points` of them with its time scaled to all the
points (its cost is linear in the points; the script says when it scales). The answers are
compared on the points trimesh was given.

    python benchmarks/proximity_vs_trimesh.py [MESH] [--points N] [--trimesh-points M]
        [--repeat K] [--threads T]
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np
import trimesh

import meshcast
import meshcast.trimesh as mt

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def points_near(mesh: trimesh.Trimesh, count: int, seed: int = 0) -> np.ndarray:
    """`count` points near the surface: random points of random triangles (uniform on each),
    moved by a normal offset of 2% of the mesh's size."""
    rng = np.random.default_rng(seed)
    corners = mesh.triangles[rng.integers(0, len(mesh.faces), count)]
    weights = rng.dirichlet([1.0, 1.0, 1.0], count)
    samples = np.einsum("nk,nkd->nd", weights, corners)
    return samples + rng.normal(size=(count, 3)) * 0.02 * mesh.scale


def best_of(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mesh", nargs="?", default=str(ASSETS / "stanford-bunny.obj"))
    parser.add_argument("--points", type=int, default=500_000)
    parser.add_argument("--trimesh-points", type=int, default=None, help="time trimesh on this many and scale")
    parser.add_argument("--repeat", type=int, default=5, help="meshcast runs (trimesh runs once)")
    parser.add_argument("--threads", type=int, default=None, help="meshcast's threads (default: every core)")
    args = parser.parse_args()

    native = meshcast.Mesh.load(args.mesh)
    mesh = trimesh.Trimesh(native.vertices.astype(np.float64), native.faces, process=False)
    points = points_near(mesh, args.points)
    print(
        f"{Path(args.mesh).name}: {len(mesh.faces)} triangles, {len(points)} points near it, "
        f"trimesh {trimesh.__version__}, {os.cpu_count()} cores"
    )

    start = time.perf_counter()
    mesh.nearest = mt.ProximityQuery(mesh, threads=args.threads)
    mesh.nearest.on_surface(points[:1])
    print(f"meshcast build: {time.perf_counter() - start:.3f} s (mesh and BVH, once per mesh)")
    ours = best_of(args.repeat, lambda: mesh.nearest.on_surface(points))
    print(f"meshcast closest_point: {ours:.3f} s, best of {args.repeat} ({len(points) / ours / 1e6:.2f} M points/s)")

    start = time.perf_counter()
    trimesh.proximity.closest_point(mesh, points[:1])
    print(f"trimesh build: {time.perf_counter() - start:.3f} s (r-tree of the triangles, cached on the mesh)")
    subset = points if args.trimesh_points is None else points[: args.trimesh_points]
    start = time.perf_counter()
    theirs = trimesh.proximity.closest_point(mesh, subset)
    measured = time.perf_counter() - start
    scaled = measured * len(points) / len(subset)
    if len(subset) == len(points):
        print(f"trimesh closest_point: {measured:.3f} s, one run ({len(points) / measured / 1e3:.1f} k points/s)")
    else:
        print(
            f"trimesh closest_point: {measured:.3f} s on {len(subset)} points, one run, "
            f"scaled to {len(points)}: {scaled:.1f} s ({len(subset) / measured / 1e3:.1f} k points/s)"
        )
    print(f"ratio: meshcast is {scaled / ours:.1f}x faster")

    mine = mesh.nearest.on_surface(subset)
    difference = (mine[1] - theirs[1]) / mesh.scale
    single = 1e-7  # single precision's rounding, relative to the mesh's size
    print(
        f"agreement on {len(subset)} points, distances relative to the mesh's size: "
        f"{np.mean(np.abs(difference) <= single):.4f} within {single:g}; "
        f"{(difference < -single).sum()} nearer than trimesh's (by up to {-difference.min():.1e}: "
        f"trimesh's closest point on a small triangle), {(difference > single).sum()} farther "
        f"(by up to {max(difference.max(), 0.0):.1e}); same triangle for {np.mean(mine[2] == theirs[2]):.3f} "
        "(the others share the point: vertices, edges)"
    )


if __name__ == "__main__":
    main()
